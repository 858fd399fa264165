//! An open HDF5 file for reading: the superblock, the byte source (sec2, family, split/multi),
//! and caches of decoded structures shared by every object of the file.
//!
//! A [`File`] is an `Arc` around its state: cheap to clone, `Send + Sync`. Reads are
//! positioned reads of the source with no lock held; the caches (object headers, global heap
//! collections, fractal heap headers) are behind `RwLock`s held only to look up or insert a
//! decoded value, never during I/O.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use h5_format::btree::v2;
use h5_format::driver_info::{DriverData, DriverInfoBlock};
use h5_format::heap::fractal::{FractalHeapHeader, Location};
use h5_format::heap::global::GlobalHeapCollection;
use h5_format::superblock::{self, Superblock, SuperblockExtension};
use h5_format::{Addr, Cursor, Sizes};

use crate::error::{bail, ensure, Error, ErrorKind, Result};
use crate::object::{self, Object};
use crate::raw::RawFile;
use h5_format::storage::{FamilyStorage, FsResolver, MemStorage, MultiStorage, Resolver, Storage};

/// Options for opening a file.
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    /// Follow external links (opening the files they name, relative to this file's
    /// directory). Off by default.
    pub external_links: bool,
    /// Do not verify fletcher32 checksums of chunks.
    pub skip_checksums: bool,
    /// Virtual datasets: the extent of an unlimited dimension stops at the first missing
    /// source (`H5D_VDS_FIRST_MISSING`) instead of reaching the last available one.
    pub vds_first_missing: bool,
    /// Virtual datasets: how many missing printf-named sources in a row are skipped while
    /// looking for more (`H5Pset_virtual_printf_gap`).
    pub vds_gap: u64,
    /// Open a file shorter than the end of file address its superblock stores (a truncated
    /// file, e.g. a copy cut short), to recover what its bytes still hold. Off by default:
    /// like the reference library, opening such a file fails with [`ErrorKind::Truncated`].
    pub allow_truncated: bool,
    /// The filter codecs chunks (and filtered heap objects) are decoded with: the built-in
    /// ones unless set.
    pub filters: crate::filter::FilterRegistry,
    /// Opens the other files this file names (external links, virtual dataset sources,
    /// external raw data, family and multi members, onion histories); `None`: the file system
    /// ([`FsResolver`]).
    pub resolver: Option<Arc<dyn Resolver>>,
    /// Single-writer/multiple-reader reading (`H5F_ACC_SWMR_READ`): a file whose superblock
    /// marks it open for SWMR writing opens (its end of file is not checked: the writer may
    /// not have written all of it yet). See [`check_status_flags`].
    pub swmr: bool,
}

impl OpenOptions {
    /// The default options: external links are not followed, checksums are verified.
    pub fn new() -> Self {
        Self::default()
    }

    /// Allow or forbid following external links.
    pub fn external_links(mut self, allow: bool) -> Self {
        self.external_links = allow;
        self
    }

    /// Allow or refuse opening a truncated file (see [`OpenOptions::allow_truncated`]).
    pub fn allow_truncated(mut self, allow: bool) -> Self {
        self.allow_truncated = allow;
        self
    }

    /// Read a file that a single writer is writing (see [`OpenOptions::swmr`]).
    pub fn swmr(mut self, swmr: bool) -> Self {
        self.swmr = swmr;
        self
    }

    /// Decode filtered data with the codecs of `registry`.
    pub fn filters(mut self, registry: crate::filter::FilterRegistry) -> Self {
        self.filters = registry;
        self
    }

    /// Open the files this file names through `resolver`.
    pub fn resolver(mut self, resolver: Arc<dyn Resolver>) -> Self {
        self.resolver = Some(resolver);
        self
    }

    /// The resolver in force: the one set, else the file system.
    pub fn resolve(&self) -> &dyn Resolver {
        match &self.resolver {
            Some(r) => &**r,
            None => &FsResolver,
        }
    }
}

/// How many bytes the open reads at the superblock (and keeps, to serve the reads that
/// fall in them).
const HEAD: u64 = 4096;

/// Most entries a cache holds before it is emptied (bounds memory on huge files).
const CACHE_CAP: usize = 1 << 14;

#[derive(Debug)]
struct Cache<V> {
    map: RwLock<BTreeMap<u64, V>>,
}

impl<V: Clone> Cache<V> {
    fn new() -> Self {
        Cache {
            map: RwLock::new(BTreeMap::new()),
        }
    }

    fn get(&self, k: u64) -> Option<V> {
        self.map.read().ok()?.get(&k).cloned()
    }

    fn insert(&self, k: u64, v: V) {
        if let Ok(mut m) = self.map.write() {
            if m.len() >= CACHE_CAP {
                m.clear();
            }
            m.insert(k, v);
        }
    }
}

#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) raw: RawFile,
    pub(crate) superblock: Superblock,
    pub(crate) extension: Option<SuperblockExtension>,
    pub(crate) options: OpenOptions,
    pub(crate) path: Option<PathBuf>,
    headers: Cache<Arc<Object>>,
    gheaps: Cache<Arc<GlobalHeapCollection>>,
    fheaps: Cache<Arc<FractalHeapHeader>>,
}

/// An HDF5 file open for reading.
#[derive(Clone, Debug)]
pub struct File {
    pub(crate) inner: Arc<Inner>,
}

fn io_err(path: &Path, e: std::io::Error) -> Error {
    Error::with_source(ErrorKind::Io, format!("opening {}", path.display()), e)
}

/// The reference library's open-time check (`H5F__super_read`): the bytes of the file
/// (all members of a family) must reach the stored "End of File Address", which counts from
/// the start of the file (the base address included). Multi files are not checked: their
/// members each hold part of the address space.
fn check_not_truncated(sb: &Superblock, len: u64) -> Result<()> {
    if let Some(stored) = sb.eof_address.get() {
        ensure!(
            len >= stored,
            Truncated,
            "truncated file: eof = {len}, stored_eof = {stored} (the superblock's end of file \
             address is past the file's last byte; OpenOptions::allow_truncated opens it anyway)"
        );
    }
    Ok(())
}

/// The reference library's check of a version 3 superblock's "File Consistency Flags" when a
/// file is opened for reading (`H5F_open`): without SWMR, a file marked open for writing (or
/// SWMR writing) is refused; with SWMR, a file must be marked both open for writing and for
/// SWMR writing, or neither. Earlier superblock versions are not checked.
pub fn check_status_flags(sb: &Superblock, swmr: bool) -> Result<()> {
    use superblock::{FLAG_SWMR_WRITE_ACCESS as SWMR, FLAG_WRITE_ACCESS as WRITE};
    if sb.version < 3 {
        return Ok(());
    }
    let (w, s) = (sb.flags & WRITE != 0, sb.flags & SWMR != 0);
    if swmr {
        ensure!(
            w == s,
            InUse,
            "file is not already open for SWMR writing (status flags {:#x})",
            sb.flags
        );
    } else {
        ensure!(
            !w && !s,
            InUse,
            "file is already open for write{} (status flags {:#x}; open it with \
             OpenOptions::swmr while its writer runs, or reset the flags of a file whose \
             writer stopped with `h5 clear FILE`)",
            if s { "/SWMR write" } else { "" },
            sb.flags
        );
    }
    Ok(())
}

/// Whether a superblock marks its file open for SWMR writing (both flags set, version 3).
pub fn marked_swmr_writing(sb: &Superblock) -> bool {
    use superblock::{FLAG_SWMR_WRITE_ACCESS as SWMR, FLAG_WRITE_ACCESS as WRITE};
    sb.version >= 3 && sb.flags & (WRITE | SWMR) == WRITE | SWMR
}

impl File {
    /// Open the file at `path` with default options.
    pub fn open(path: impl AsRef<Path>) -> Result<File> {
        Self::open_with(path, OpenOptions::default())
    }

    /// Open the file at `path`. The family driver is recognised from the superblock's driver
    /// information (the other members are found by the number in the name); the multi/split
    /// driver likewise (open the `-s.h5` member or the base name).
    pub fn open_with(path: impl AsRef<Path>, options: OpenOptions) -> Result<File> {
        let path = path.as_ref();
        let resolver = options.resolve();
        let source = match resolver.open(path) {
            Ok(s) => s,
            Err(e) => {
                // A family named by its printf pattern ("name%05d.h5"): open member 0.
                if let Some(first) = printf_member0(path) {
                    if resolver.exists(&first) {
                        return Self::open_with(&first, options);
                    }
                }
                // A multi/split file named by its base name.
                for suffix in ["-s.h5", "-m.h5"] {
                    let s = PathBuf::from(format!("{}{suffix}", path.display()));
                    if resolver.exists(&s) {
                        return Self::open_with(&s, options);
                    }
                }
                return Err(io_err(path, e));
            }
        };
        Self::from_source(source, Some(path.to_path_buf()), options)
            .map_err(|e| e.at(path.display().to_string()))
    }

    /// Open revision `revision` of a file written with HDF5 2.x's onion driver: `path` is
    /// the original HDF5 file, its history is `path` + `.onion`. Revision 0 is the original
    /// file, 1 ..= the number of revisions a later revision,
    /// [`crate::onion::LATEST_REVISION`] the latest (see [`crate::onion::OnionSource`]).
    pub fn open_onion(path: impl AsRef<Path>, revision: u64, options: OpenOptions) -> Result<File> {
        let path = path.as_ref();
        let source = crate::onion::OnionSource::open_in(options.resolve(), path, revision)?;
        Self::from_source(Arc::new(source), Some(path.to_path_buf()), options)
            .map_err(|e| e.at(format!("{} (onion revision {revision})", path.display())))
    }

    /// A file held in memory.
    pub fn from_bytes(bytes: impl Into<Arc<[u8]>>) -> Result<File> {
        Self::from_source(
            Arc::new(MemStorage::new(bytes)),
            None,
            OpenOptions::default(),
        )
    }

    /// A file read from any storage (a file, memory, an object store...). The other files it
    /// names are opened through the options' resolver, relative to the storage's location
    /// when the resolver has one ([`File::open_storage_at`]).
    pub fn open_storage(storage: Arc<dyn Storage>, options: OpenOptions) -> Result<File> {
        Self::from_source(storage, None, options)
    }

    /// A file read from `storage`, which the options' resolver knows as `location` (a path,
    /// or an object store's key): external files, links, family and multi members are
    /// looked for relative to it.
    pub fn open_storage_at(
        storage: Arc<dyn Storage>,
        location: impl Into<PathBuf>,
        options: OpenOptions,
    ) -> Result<File> {
        let location = location.into();
        Self::from_source(storage, Some(location.clone()), options)
            .map_err(|e| e.at(location.display().to_string()))
    }

    /// A file read from any source. `path` (when known) locates external files, family and
    /// multi members.
    pub fn from_source(
        source: Arc<dyn Storage>,
        path: Option<PathBuf>,
        options: OpenOptions,
    ) -> Result<File> {
        let len = source.len()?;
        let sig_err = |off: u64, e: std::io::Error| {
            h5_format::Error::new(
                h5_format::ErrorKind::UnexpectedEof,
                "superblock",
                off,
                e.to_string(),
            )
        };
        // The first 4 KiB in one read: the signature where it usually is (offset 0) and the
        // superblock after it, often the root group's header too.
        let first = match len {
            0 => Vec::new(),
            _ => source
                .read_vec(0, HEAD.min(len) as usize)
                .map_err(|e| sig_err(0, e))?,
        };
        let at = superblock::find_signature(len, |off, n| {
            let n = n.min(len.saturating_sub(off) as usize);
            let held = usize::try_from(off)
                .ok()
                .and_then(|o| first.get(o..o.checked_add(n)?));
            match held {
                Some(b) => Ok(b.to_vec()),
                None => source.read_vec(off, n).map_err(|e| sig_err(off, e)),
            }
        })?
        .ok_or_else(|| Error::new(ErrorKind::Format, "not an HDF5 file (no format signature)"))?;
        let head = match at {
            0 => first,
            _ => source.read_vec(at, HEAD.min(len - at) as usize)?,
        };
        let sb = Superblock::parse(&mut Cursor::new(&head, at, Sizes::DEFAULT))?;
        // The base address is absolute; a superblock after a user block normally has it equal
        // to the signature's position. Some writers store 0 there: the signature wins then.
        let base = match sb.base_address.get() {
            Some(b) if b == at => b,
            _ => at,
        };
        let mut source = source;
        let mut driver = None;
        if let Some(v0) = &sb.v0 {
            if let Some(a) = v0.driver_info_address.get() {
                let pos = base
                    .checked_add(a)
                    .ok_or_else(|| Error::new(ErrorKind::Format, "driver info address"))?;
                if pos < len {
                    let b = source.read_vec(pos, 4096.min(len - pos) as usize)?;
                    let blk = DriverInfoBlock::parse(&mut Cursor::new(&b, a, sb.sizes))?;
                    driver = Some(blk.data);
                }
            }
        }
        // A family whose driver information lies past the first member: the file is shorter
        // than its end-of-file address and its name is numbered.
        if driver.is_none() && sb.version < 2 {
            if let (Some(p), Some(eof)) = (&path, sb.eof_address.get()) {
                let numbered = p
                    .file_stem()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.ends_with(|c: char| c.is_ascii_digit()));
                if numbered && base.saturating_add(eof) > len && len > 0 {
                    if let Ok(fam) = family_source(options.resolve(), p, len) {
                        source = fam;
                        driver = Some(DriverData::Family { member_size: len });
                    }
                }
            }
        }
        // The head is not kept to serve later reads: a reader reads the file as it is when
        // it reads (a plain reader sees a structure changed under it, and fails on it).
        drop(head);
        let mut raw = RawFile::new(source.clone(), base, sb.sizes, path.clone())?;
        let extension = match sb.extension_address.get() {
            Some(_) if sb.version >= 2 => {
                let h = object::read_header(&raw, sb.extension_address)?;
                Some(SuperblockExtension::from_header(&h, sb.sizes)?)
            }
            _ => None,
        };
        if let Some(ext) = &extension {
            check_cache_image(ext, &raw)?;
        }
        if driver.is_none() {
            if let Some(d) = extension.as_ref().and_then(|e| e.driver_info.as_ref()) {
                driver = Some(d.data.clone());
            }
        }
        match (&driver, &path) {
            (Some(DriverData::Family { member_size }), Some(p)) if source.len()? == len => {
                source = family_source(options.resolve(), p, *member_size)?;
                raw = RawFile::new(source.clone(), base, sb.sizes, path.clone())?;
            }
            (Some(DriverData::Multi { map, members }), Some(p)) => {
                source = multi_source(options.resolve(), p, map, members)?;
                raw = RawFile::new(source.clone(), 0, sb.sizes, path.clone())?;
            }
            _ => {}
        }
        check_status_flags(&sb, options.swmr)?;
        // A file being written in SWMR mode may look truncated: the reference library skips
        // the check then.
        let swmr_writing = options.swmr && marked_swmr_writing(&sb);
        if !options.allow_truncated
            && !swmr_writing
            && !matches!(driver, Some(DriverData::Multi { .. }))
        {
            check_not_truncated(&sb, source.len()?)?;
        }
        Ok(File {
            inner: Arc::new(Inner {
                raw,
                superblock: sb,
                extension,
                options,
                path,
                headers: Cache::new(),
                gheaps: Cache::new(),
                fheaps: Cache::new(),
            }),
        })
    }

    /// The superblock.
    pub fn superblock(&self) -> &Superblock {
        &self.inner.superblock
    }

    /// Open a file another file names (an external link target, a virtual dataset source)
    /// where the reference library looks for it (`H5F_prefix_open_file`): an absolute name
    /// as is (else by its last component); then under each directory of the environment
    /// variable `env` (a `:`-separated list, `${ORIGIN}` standing for this file's directory);
    /// then in this file's directory; then relative to the working directory. `None` when
    /// no candidate opens.
    pub fn open_prefixed(&self, name: &str, env: &str) -> Option<File> {
        let opts = self.options().clone();
        let resolver = opts.resolve();
        let try_open = |p: &Path| -> Option<File> {
            if resolver.exists(p) {
                File::open_with(p, opts.clone()).ok()
            } else {
                None
            }
        };
        let mut name = name.to_string();
        let given = Path::new(&name);
        if given.is_absolute() {
            if let Some(f) = try_open(given) {
                return Some(f);
            }
            name = given
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
        }
        let own_dir = self
            .path()
            .and_then(|p| p.parent())
            .map(Path::to_path_buf)
            .unwrap_or_default();
        if let Ok(list) = std::env::var(env) {
            for prefix in list.split(':').filter(|p| !p.is_empty()) {
                let prefix = prefix.replace("${ORIGIN}", &own_dir.to_string_lossy());
                if let Some(f) = try_open(&Path::new(&prefix).join(&name)) {
                    return Some(f);
                }
            }
        }
        if let Some(f) = try_open(&own_dir.join(&name)) {
            return Some(f);
        }
        try_open(Path::new(&name))
    }

    /// The superblock extension (version 2 and 3 superblocks), if any.
    pub fn superblock_extension(&self) -> Option<&SuperblockExtension> {
        self.inner.extension.as_ref()
    }

    /// The path the file was opened from.
    pub fn path(&self) -> Option<&Path> {
        self.inner.path.as_deref()
    }

    /// The open options.
    pub fn options(&self) -> &OpenOptions {
        &self.inner.options
    }

    /// The file's bytes, addressed as its structures address them.
    pub fn raw(&self) -> &RawFile {
        &self.inner.raw
    }

    /// The size of offsets and lengths.
    pub fn sizes(&self) -> Sizes {
        self.inner.superblock.sizes
    }

    /// Whether two handles refer to the same open file.
    pub fn same_file(&self, other: &File) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The root group's object header address.
    pub fn root_address(&self) -> Addr {
        self.inner.superblock.root_object_header()
    }

    /// The decoded object header at `addr` (cached).
    pub fn object(&self, addr: Addr) -> Result<Arc<Object>> {
        let a = addr
            .get()
            .ok_or_else(|| Error::new(ErrorKind::Format, "object at the undefined address"))?;
        if let Some(o) = self.inner.headers.get(a) {
            return Ok(o);
        }
        let o = Arc::new(Object::load(self, addr)?);
        self.inner.headers.insert(a, o.clone());
        Ok(o)
    }

    /// The global heap collection at `addr` (cached).
    pub fn global_heap(&self, addr: Addr) -> Result<Arc<GlobalHeapCollection>> {
        let a = addr
            .get()
            .ok_or_else(|| Error::new(ErrorKind::Format, "global heap at the undefined address"))?;
        if let Some(c) = self.inner.gheaps.get(a) {
            return Ok(c);
        }
        let raw = self.raw();
        // The collection size follows the 8-byte signature, version and reserved bytes.
        let head = raw.read(addr, 8 + raw.sizes().length as u64)?;
        let mut c = raw.cursor(&head, addr);
        c.skip(8)?;
        let size = c.read_len()?;
        ensure!(
            size <= h5_format::limits::MAX_METADATA_BLOCK,
            LimitExceeded,
            "global heap collection of {size} bytes at {a:#x}"
        );
        let bytes = raw.read(addr, size)?;
        let coll = Arc::new(GlobalHeapCollection::parse(&mut raw.cursor(&bytes, addr))?);
        self.inner.gheaps.insert(a, coll.clone());
        Ok(coll)
    }

    /// The bytes of global heap object `index` of the collection at `addr`.
    pub fn global_heap_object(&self, addr: Addr, index: u32) -> Result<Vec<u8>> {
        let coll = self.global_heap(addr)?;
        let idx = u16::try_from(index).map_err(|_| {
            Error::new(
                ErrorKind::Format,
                format!("global heap object index {index} out of range"),
            )
        })?;
        match coll.object(idx) {
            Some(o) => Ok(o.data.clone()),
            None => bail!(
                Format,
                "no object {index} in the global heap collection at {:#x}",
                addr.0
            ),
        }
    }

    /// The fractal heap header at `addr` (cached).
    pub fn fractal_heap(&self, addr: Addr) -> Result<Arc<FractalHeapHeader>> {
        let a = addr.get().ok_or_else(|| {
            Error::new(ErrorKind::Format, "fractal heap at the undefined address")
        })?;
        if let Some(h) = self.inner.fheaps.get(a) {
            return Ok(h);
        }
        let h = Arc::new(FractalHeapHeader::read(self.raw(), addr)?.0);
        self.inner.fheaps.insert(a, h.clone());
        Ok(h)
    }

    /// The bytes of the object with heap ID `id` in the fractal heap at `heap` (located by
    /// h5-format's navigator, decoded here when the heap filters it).
    pub fn fractal_heap_object(&self, heap: Addr, id: &[u8]) -> Result<Vec<u8>> {
        let h = self.fractal_heap(heap)?;
        let raw = self.raw();
        match h.locate(raw, id, None)? {
            Location::Tiny(data) => Ok(data),
            Location::Plain { address, length } => Ok(raw.read(address, length)?),
            Location::Filtered {
                address,
                stored,
                filter_mask,
                memory_size,
                object,
            } => {
                let stored = raw.read(address, stored)?;
                let pipeline = heap_pipeline(&h, raw.sizes())?;
                let n = usize::try_from(memory_size).map_err(|_| {
                    Error::new(ErrorKind::LimitExceeded, "fractal heap object size")
                })?;
                let data = self.options().filters.decode_chunk(
                    &pipeline,
                    filter_mask,
                    stored,
                    &crate::filter::ChunkInfo::new(n),
                )?;
                let Some(r) = object else { return Ok(data) };
                usize::try_from(r.start)
                    .ok()
                    .zip(usize::try_from(r.end).ok())
                    .and_then(|(s, e)| data.get(s..e))
                    .map(<[u8]>::to_vec)
                    .ok_or_else(|| Error::new(ErrorKind::Format, "heap object past its block"))
            }
        }
    }

    /// Every record of the version 2 B-tree whose header is at `addr`, in key order
    /// ([`v2::Tree::records`]: each node once, at most the header's record count).
    pub fn v2_records(&self, addr: Addr) -> Result<Vec<v2::Record>> {
        let raw = self.raw();
        let tree = v2::Tree::open(raw, addr)?;
        ensure!(
            tree.header.root.is_undef() || tree.header.total_records <= raw.end(),
            LimitExceeded,
            "v2 B-tree claims {} records",
            tree.header.total_records
        );
        tree.records(raw)
    }
}

fn heap_pipeline(h: &FractalHeapHeader, sizes: Sizes) -> Result<Vec<crate::filter::Filter>> {
    let f = h
        .filters
        .as_ref()
        .ok_or_else(|| Error::new(ErrorKind::Format, "heap has no filters"))?;
    let p = h5_format::message::filter_pipeline::FilterPipeline::parse(&mut Cursor::new(
        &f.pipeline,
        0,
        sizes,
    ))?;
    Ok(p.filters)
}

/// A metadata cache image (message 0x0018 in the superblock extension) must lie inside the
/// file: the reference library reads it before any object (`H5C__load_cache_image`).
fn check_cache_image(ext: &SuperblockExtension, raw: &RawFile) -> Result<()> {
    for m in &ext.other {
        let h5_format::message::Message::Unknown { kind, raw: body } = m else {
            continue;
        };
        if kind.0 != 0x18 {
            continue;
        }
        let mut c = raw.cursor(body, Addr(0));
        let _version = c.read_u8()?;
        let addr = c.read_addr()?;
        let len = c.read_len()?;
        if let Some(a) = addr.get() {
            ensure!(
                a.checked_add(len).is_some_and(|e| e <= raw.end()),
                Format,
                "metadata cache image of {len} bytes at {a:#x} extends past the end of the file ({:#x})",
                raw.end()
            );
        }
    }
    Ok(())
}

/// `name%05d.h5` (or `%d`) with the member number 0.
fn printf_member0(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let at = name.find('%')?;
    let rest = &name[at + 1..];
    let spec_len = rest.find('d')?;
    let spec = &rest[..spec_len];
    if !spec.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let width: usize = spec.parse().unwrap_or(1);
    let member = format!("{}{:0width$}{}", &name[..at], 0, &rest[spec_len + 1..]);
    Some(path.with_file_name(member))
}

/// The members of a family: the file name's last run of digits is the member number.
fn family_source(
    resolver: &dyn Resolver,
    path: &Path,
    member_size: u64,
) -> Result<Arc<dyn Storage>> {
    let stem = path
        .file_stem()
        .and_then(|n| n.to_str())
        .ok_or_else(|| Error::new(ErrorKind::InvalidArgument, "family member name"))?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| format!(".{e}"))
        .unwrap_or_default();
    let digits = stem.len() - stem.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return Err(Error::new(
            ErrorKind::Unsupported,
            "family file whose name has no member number",
        ));
    }
    let width = digits;
    let (pre, post) = (&stem[..stem.len() - digits], ext.as_str());
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut members: Vec<Box<dyn Storage>> = Vec::new();
    for i in 0..100_000u32 {
        let p = dir.join(format!("{pre}{i:0width$}{post}"));
        match resolver.open(&p) {
            Ok(s) => members.push(Box::new(s)),
            Err(_) => break,
        }
    }
    ensure!(
        !members.is_empty(),
        Io,
        "no family member 0 next to {}",
        path.display()
    );
    Ok(Arc::new(FamilyStorage::new(members, member_size)?))
}

fn multi_source(
    resolver: &dyn Resolver,
    path: &Path,
    _map: &[u8; 6],
    members: &[h5_format::driver_info::MultiMember],
) -> Result<Arc<dyn Storage>> {
    let s = path.to_string_lossy();
    // The base name: the path without the suffix of the member it names ("%s-s.h5" ->
    // "-s.h5", "%s-m.h5" -> "-m.h5"...).
    let base = members
        .iter()
        .filter_map(|m| {
            let n = String::from_utf8_lossy(&m.name).into_owned();
            let suffix = n.split("%s").nth(1)?.to_string();
            s.strip_suffix(suffix.as_str()).map(str::to_string)
        })
        .next()
        .ok_or_else(|| {
            Error::new(
                ErrorKind::Unsupported,
                "a multi/split-driver file is opened through one of its members or its base name",
            )
        })?;
    let mut v: Vec<(u64, Box<dyn Storage>)> = Vec::new();
    for m in members {
        let name = String::from_utf8_lossy(&m.name).replace("%s", &base);
        let src = resolver
            .open(Path::new(&name))
            .map_err(|e| io_err(Path::new(&name), e))?;
        v.push((m.address, Box::new(src)));
    }
    Ok(Arc::new(MultiStorage::new(v)))
}
