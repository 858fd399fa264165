//! The file writer: the file image, the space allocator, the objects and their headers, the
//! superblock, flush and close.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use h5_format::message::continuation::Continuation;
use h5_format::message::{Message, MessageFlags, MessageType};
use h5_format::object_header::{Chunk, ObjectHeader, Prefix, RawMessage};
use h5_format::storage::{FileStorage, WritableStorage};
use h5_format::superblock::{Superblock, SuperblockV0};
use h5_format::symbol_table_entry::{ScratchPad, SymbolTableEntry};
use h5_format::{Addr, Sizes, Writer};
use h5_types::Datatype;

use super::attribute::Attr;
use super::dataset::Dataset;
use super::group::{CreationOrder, Group, LinkSpec};
use super::heap::{DenseAddrs, GlobalHeap};
use super::paged::{FileSpace, FileSpaceStrategy, Pages};
use super::space::Space;
use super::{bail, ensure, Error, ErrorKind, Result};

/// Which variant of the file format to write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FileFormat {
    /// The widest-compatible format: superblock version 0, version 1 object headers,
    /// symbol-table groups, version 1 B-tree chunk indexes. Readable by the reference library
    /// 1.8 and later (and mostly by 1.6).
    #[default]
    Compatible,
    /// The latest format: superblock version 3, version 2 object headers, link messages (or
    /// dense link storage) in groups, version 3 attribute messages (or dense attribute
    /// storage), version 4 layouts with the chunk indexes of version 1.10 (readable by 1.10
    /// and later).
    Latest,
}

/// The id of an object of a [`FileWriter`]: a group, a dataset or a committed datatype.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjId(pub(crate) usize);

/// What an object is (the writer's objects are never [`ObjectKind::Unknown`]).
pub use crate::object::ObjectKind;

/// What an object holds besides its attributes.
#[derive(Debug)]
pub(crate) enum Body {
    Group(Group),
    Dataset(Box<Dataset>),
    Datatype(Datatype),
}

/// One object and where its header lives.
#[derive(Debug)]
pub(crate) struct Object {
    /// Address of the header (chunk 0); fixed for the object's life.
    pub(crate) addr: u64,
    /// Bytes reserved for chunk 0, prefix (and checksum) included.
    pub(crate) cap0: u64,
    /// The continuation chunk, when one was needed: address and bytes reserved.
    pub(crate) cont: Option<(u64, u64)>,
    /// Number of hard links to the object.
    pub(crate) refcount: u32,
    /// The object's attributes in creation order.
    pub(crate) attrs: Vec<Attr>,
    /// The position of each attribute in `attrs`, by name (so that many attributes on one
    /// object do not cost a scan each).
    pub(crate) attr_index: HashMap<String, usize>,
    /// The first path the object was created at (for error messages).
    pub(crate) path: String,
    /// Dense attribute storage (version 2 headers, more than [`MAX_COMPACT_ATTRS`]
    /// attributes): fractal heap and index addresses, rebuilt at each flush.
    pub(crate) dense_attrs: Option<DenseAddrs>,
    /// Whether attribute creation order is tracked (and indexed).
    pub(crate) attr_order: CreationOrder,
    /// The creation index the next attribute gets.
    pub(crate) attr_next: u32,
    /// Whether attributes changed since dense storage was last written.
    pub(crate) attrs_dirty: bool,
    /// The object comment (`H5Oset_comment`), if any.
    pub(crate) comment: Option<Vec<u8>>,
    /// Freed (its last hard link removed): its id names nothing any more, its space was
    /// returned (see [`FileWriter::unlink`]).
    pub(crate) freed: bool,
    pub(crate) body: Body,
}

impl Object {
    /// The position in `attrs` of the attribute called `name`.
    pub(crate) fn attr_position(&self, name: &str) -> Option<usize> {
        self.attr_index.get(name).copied()
    }

    /// Add an attribute (last in creation order).
    pub(crate) fn push_attr(&mut self, a: Attr) {
        self.attr_index.insert(a.name.clone(), self.attrs.len());
        self.attrs.push(a);
    }

    /// Remove the attribute added last.
    pub(crate) fn pop_attr(&mut self) {
        if let Some(a) = self.attrs.pop() {
            self.attr_index.remove(&a.name);
        }
    }

    /// Replace every attribute.
    pub(crate) fn set_attrs(&mut self, attrs: Vec<Attr>) {
        self.attr_index = attrs
            .iter()
            .enumerate()
            .map(|(i, a)| (a.name.clone(), i))
            .collect();
        self.attrs = attrs;
    }
}

/// Writes an HDF5 file. See the [module documentation](super).
///
/// Objects are named by [`ObjId`]s; [`FileWriter::root`] is the root group. Every operation
/// either succeeds or returns an `Err` and leaves the model as it was, so a failed call never
/// leaves a file the reference library cannot read. [`FileWriter::flush`] writes a complete
/// file; [`FileWriter::close`] flushes and reports the result; dropping a writer that was not
/// closed flushes and prints any error to standard error (a destructor cannot return one).
///
/// Not written yet: free-space managers of fractal heaps, filtered fractal heaps, shared
/// object header messages, virtual datasets, raw data in external files, undefined fill
/// values set through the public API (copies keep them), modification times.
#[derive(Debug)]
pub struct FileWriter {
    file: Option<Arc<dyn WritableStorage>>,
    path: PathBuf,
    pub(crate) format: FileFormat,
    pub(crate) sizes: Sizes,
    /// Metadata blocks (superblock, headers, heaps, B-trees, chunk indexes) by address: kept
    /// in memory and written at a flush when changed.
    meta: BTreeMap<u64, Block>,
    /// Free, fresh and retired space.
    pub(crate) space: Space,
    /// The blocks of each object's rebuilt structures (key: object and 0 for what the body
    /// points to, 1 for dense attribute storage), retired when the structure is rebuilt.
    owned: HashMap<(usize, u8), Vec<(u64, u64)>>,
    /// While a structure is being rebuilt: the blocks allocated for it.
    scope: Option<Vec<(u64, u64)>>,
    /// Writes of blocks the on-disk state references other than headers and the superblock
    /// (global heap collections that gained objects), counted for tests.
    pub(crate) inplace_other: u64,
    /// End of the allocated space. Raw data (contiguous storage, chunks, huge heap objects)
    /// is allocated here too but written to the file at once, not kept in memory.
    eoa: u64,
    pub(crate) objects: Vec<Object>,
    /// The live object whose header is at each address (see [`FileWriter::object_at`]).
    pub(crate) by_addr: HashMap<u64, ObjId>,
    /// Headers the next flush rewrites before the others: groups a link moved to (so that
    /// a flush cut short leaves a moved object linked at both places, never at neither).
    pub(crate) headers_first: std::collections::HashSet<u64>,
    pub(crate) gheap: GlobalHeap,
    superblock_len: u64,
    /// A file modified in place: what was read of it.
    pub(crate) inplace: Option<Box<super::inplace::InPlace>>,
    /// File-space settings of a new file: written in a superblock extension at `.1`.
    file_space: Option<(FileSpace, u64)>,
    /// Paged aggregation (the paged strategy): the pages in use.
    pages: Option<Pages>,
    /// The filter codecs chunks are encoded (and read back) with.
    pub(crate) filters: crate::filter::FilterRegistry,
    /// SWMR writing is on ([`FileWriter::start_swmr`]).
    swmr: bool,
}

/// A metadata block: its bytes and whether they changed since last written.
#[derive(Debug)]
struct Block {
    bytes: Vec<u8>,
    dirty: bool,
}

/// Most attributes kept in a version 2 header (the reference library's default "max
/// compact"); more go to dense storage.
pub(crate) const MAX_COMPACT_ATTRS: usize = 8;

/// Group Leaf Node K (the reference library's default).
pub(crate) const GROUP_LEAF_K: u16 = 4;
/// Group Internal Node K.
pub(crate) const GROUP_INTERNAL_K: u16 = 16;
/// Indexed Storage Internal Node K (the default, implied by superblock version 0).
pub(crate) const CHUNK_K: u16 = 32;

pub(crate) fn align8(n: u64) -> u64 {
    n.div_ceil(8) * 8
}

impl FileWriter {
    /// Create (or truncate) the file at `path` with an empty root group.
    pub fn create(path: impl AsRef<Path>, format: FileFormat) -> Result<FileWriter> {
        Self::create_with_file_space(path, format, None)
    }

    /// [`FileWriter::create`] with file-space settings (`H5Pset_file_space_strategy`,
    /// `H5Pset_file_space_page_size`): unless they are the defaults, a File Space Info
    /// message in a superblock extension (superblock version 2 for the compatible format, 3
    /// for the latest) and, with
    /// [`FileSpaceStrategy::Page`], paged aggregation (see [`super::paged`]).
    pub fn create_with_file_space(
        path: impl AsRef<Path>,
        format: FileFormat,
        file_space: Option<FileSpace>,
    ) -> Result<FileWriter> {
        // The default settings need no message (the reference library writes none).
        let file_space = file_space.filter(|fs| *fs != FileSpace::default());
        // The superblock extension's bytes, ready before anything is written.
        let extension = match &file_space {
            Some(fs) => {
                fs.validate()?;
                Some(fs.extension_bytes(Sizes::DEFAULT, format == FileFormat::Compatible)?)
            }
            None => None,
        };
        let path = path.as_ref().to_path_buf();
        let file = FileStorage::create(&path).map_err(|e| {
            Error::new(
                ErrorKind::Io,
                format!("cannot create {}: {e}", path.display()),
            )
        })?;
        let sizes = Sizes::DEFAULT;
        let superblock_len = match format {
            FileFormat::Compatible if file_space.is_none() => 96,
            _ => 48,
        };
        let mut w = FileWriter {
            file: Some(Arc::new(file)),
            path,
            format,
            sizes,
            meta: BTreeMap::from([(
                0,
                Block {
                    bytes: vec![0; superblock_len],
                    dirty: true,
                },
            )]),
            space: Space::default(),
            owned: HashMap::new(),
            scope: None,
            inplace_other: 0,
            eoa: superblock_len as u64,
            objects: Vec::new(),
            by_addr: HashMap::new(),
            headers_first: std::collections::HashSet::new(),
            gheap: GlobalHeap::default(),
            superblock_len: superblock_len as u64,
            inplace: None,
            file_space: None,
            pages: None,
            filters: crate::filter::FilterRegistry::default(),
            swmr: false,
        };
        if let (Some(fs), Some(bytes)) = (file_space, extension) {
            if fs.strategy == FileSpaceStrategy::Page {
                // The superblock opens the first metadata page.
                let mut p = Pages::new(fs.page_size);
                w.eoa = 0;
                p.place(&mut w.eoa, superblock_len as u64, false);
                w.pages = Some(p);
            }
            let at = w.alloc(bytes.len() as u64);
            if let Some(b) = w.meta.get_mut(&at) {
                b.bytes.copy_from_slice(&bytes);
            }
            w.file_space = Some((fs, at));
        }
        let group = Group::new(&mut w);
        w.new_object("/".to_owned(), Body::Group(group))?;
        w.flush()?;
        Ok(w)
    }

    /// The filter codecs datasets are created, written and read back with.
    pub fn filters(&self) -> &crate::filter::FilterRegistry {
        &self.filters
    }

    /// Create, write and read back filtered datasets with the codecs of `registry` (the
    /// built-in ones unless set). Set it before creating datasets that use its codecs.
    pub fn set_filters(&mut self, registry: crate::filter::FilterRegistry) {
        self.filters = registry;
    }

    /// A writer over an existing file of `eoa` bytes (relative to its superblock) whose
    /// superblock takes `superblock_len` bytes at address 0 (kept in the image as read).
    pub(crate) fn from_existing(
        file: Arc<dyn WritableStorage>,
        path: PathBuf,
        format: FileFormat,
        sizes: Sizes,
        superblock_len: u64,
        eoa: u64,
    ) -> Result<FileWriter> {
        let mut bytes = vec![0; superblock_len as usize];
        file.read_exact_at(0, &mut bytes)?;
        Ok(FileWriter {
            file: Some(file),
            path,
            format,
            sizes,
            meta: BTreeMap::from([(
                0,
                Block {
                    bytes,
                    dirty: false,
                },
            )]),
            space: Space::default(),
            owned: HashMap::new(),
            scope: None,
            inplace_other: 0,
            eoa,
            objects: Vec::new(),
            by_addr: HashMap::new(),
            headers_first: std::collections::HashSet::new(),
            gheap: GlobalHeap::default(),
            superblock_len,
            inplace: None,
            file_space: None,
            pages: None,
            filters: crate::filter::FilterRegistry::default(),
            swmr: false,
        })
    }

    /// Replace the bytes of a block of the file that is not one of the writer's structures
    /// (a file modified in place: its superblock extension), written at the next flush.
    pub(crate) fn set_block(&mut self, at: u64, bytes: Vec<u8>) {
        self.meta.insert(at, Block { bytes, dirty: true });
    }

    /// Take new space by paged aggregation (a file modified in place that uses it): from the
    /// next page boundary on, in pages of `page` bytes.
    pub(crate) fn use_pages(&mut self, page: u64) {
        self.pages = Some(Pages::new(page));
    }

    /// The page size of paged aggregation, when the file uses it.
    pub(crate) fn page_size(&self) -> Option<u64> {
        self.pages.as_ref().map(Pages::page_size)
    }

    /// The end of the allocated space.
    pub(crate) fn eoa_now(&self) -> u64 {
        self.eoa
    }

    /// The path the file was created at.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file now lives at `path` (after a rename).
    pub(crate) fn set_path(&mut self, path: PathBuf) {
        self.path = path;
    }

    /// The format being written.
    pub fn format(&self) -> FileFormat {
        self.format
    }

    /// The root group.
    pub fn root(&self) -> ObjId {
        ObjId(0)
    }

    /// What the object is.
    pub fn kind(&self, id: ObjId) -> Result<ObjectKind> {
        Ok(match self.object(id)?.body {
            Body::Group(_) => ObjectKind::Group,
            Body::Dataset(_) => ObjectKind::Dataset,
            Body::Datatype(_) => ObjectKind::Datatype,
        })
    }

    /// The address of the object's header: what an object reference to it stores.
    pub fn address(&self, id: ObjId) -> Result<u64> {
        Ok(self.object(id)?.addr)
    }

    /// Set (or with `None` remove) the object's comment (`H5Oset_comment`): ASCII text
    /// without NUL bytes.
    pub fn set_comment(&mut self, id: ObjId, comment: Option<&str>) -> Result<()> {
        self.swmr_forbids("changing object comments")?;
        if let Some(c) = comment {
            ensure!(
                !c.contains('\0'),
                InvalidArgument,
                "an object comment cannot hold a NUL byte"
            );
            ensure!(
                c.len() < 0xffff - 8,
                LimitExceeded,
                "an object comment of {} bytes does not fit a header message",
                c.len()
            );
        }
        self.object_mut(id)?.comment = comment.map(|c| c.as_bytes().to_vec());
        Ok(())
    }

    /// The object's comment, if any.
    pub fn comment(&self, id: ObjId) -> Result<Option<String>> {
        Ok(self
            .object(id)?
            .comment
            .as_ref()
            .map(|c| String::from_utf8_lossy(c).into_owned()))
    }

    /// The path the object was created at.
    pub fn object_path(&self, id: ObjId) -> Result<&str> {
        Ok(&self.object(id)?.path)
    }

    pub(crate) fn object(&self, id: ObjId) -> Result<&Object> {
        self.objects
            .get(id.0)
            .filter(|o| !o.freed)
            .ok_or_else(|| Error::new(ErrorKind::NotFound, format!("no object {}", id.0)))
    }

    /// The object, to change it: an object of a file modified in place is adopted first
    /// (its header is written from then on).
    pub(crate) fn object_mut(&mut self, id: ObjId) -> Result<&mut Object> {
        self.object(id)?;
        if self.is_pristine(id) {
            self.adopt(id)?;
        }
        self.objects
            .get_mut(id.0)
            .filter(|o| !o.freed)
            .ok_or_else(|| Error::new(ErrorKind::NotFound, format!("no object {}", id.0)))
    }

    /// Reserve `size` bytes of metadata (8-byte aligned): space a completed flush freed, or
    /// at the end of the file; zeroed and kept in memory until flushed.
    pub(crate) fn alloc(&mut self, size: u64) -> u64 {
        let size = size.max(1);
        // Paged aggregation: in a metadata page (freed space is not reused, it may lie in
        // a page of raw data).
        let paged = self
            .pages
            .as_mut()
            .map(|p| p.place(&mut self.eoa, size, false));
        let at = match paged.or_else(|| self.take_free(size)) {
            Some(at) => at,
            None => {
                let at = align8(self.eoa);
                self.eoa = at + size;
                at
            }
        };
        self.meta.insert(
            at,
            Block {
                bytes: vec![0; size as usize],
                dirty: true,
            },
        );
        self.allocated(at, size);
        at
    }

    /// Reserve `size` bytes of raw data at the end of the file (8-byte aligned): zeros on disk
    /// until written with [`FileWriter::put`], which writes raw data to the file at once.
    pub(crate) fn alloc_raw(&mut self, size: u64) -> u64 {
        let at = match self.pages.as_mut() {
            Some(p) => p.place(&mut self.eoa, size, true),
            None => {
                let at = align8(self.eoa);
                self.eoa = at + size.max(1);
                at
            }
        };
        self.allocated(at, size.max(1));
        at
    }

    /// `size` bytes from the free list, if a range has room. A range a flush freed may end
    /// in the alignment padding of the last block (past an end of allocation not yet
    /// rounded up): the end moves to cover it.
    /// (Never in a paged file: freed space may lie in a page of the other kind.)
    fn take_free(&mut self, size: u64) -> Option<u64> {
        if self.pages.is_some() {
            return None;
        }
        let at = self.space.take(size)?;
        self.eoa = self.eoa.max(at + align8(size.max(1)));
        Some(at)
    }

    /// Reserve `size` bytes of raw data that read as zeros until written: space a completed
    /// flush freed (zeroed first, when `zero`; otherwise the caller writes every byte), or at
    /// the end of the file (zeros on disk).
    pub(crate) fn alloc_zeroed(&mut self, size: u64, zero: bool) -> Result<u64> {
        let Some(at) = self.take_free(size) else {
            return Ok(self.alloc_raw(size));
        };
        self.allocated(at, size.max(1));
        if zero {
            let on_disk = match &self.file {
                Some(f) => f.len()?,
                None => bail!(Closed, "the file was closed"),
            };
            let end = (at + size).min(on_disk.max(at));
            let piece = vec![0u8; (end - at).min(1 << 20) as usize];
            let mut p = at;
            while p < end {
                let k = (end - p).min(piece.len() as u64) as usize;
                self.put(p, &piece[..k])?;
                p += k as u64;
            }
        }
        Ok(at)
    }

    /// Reserve `size` bytes of raw data that the caller writes whole at once (a chunk): space
    /// a completed flush freed, or at the end of the file.
    pub(crate) fn alloc_written(&mut self, size: u64) -> u64 {
        if self.pages.is_some() {
            return self.alloc_raw(size);
        }
        match self.take_free(size) {
            Some(at) => {
                self.allocated(at, size.max(1));
                at
            }
            None => self.alloc_raw(size),
        }
    }

    fn allocated(&mut self, at: u64, size: u64) {
        self.space.mark_fresh(at, size);
        if let Some(s) = &mut self.scope {
            s.push((at, align8(size)));
        }
    }

    /// Whether the block at `addr` was allocated since the on-disk state last changed, so
    /// that no structure on disk references it and it may be rewritten in place.
    pub(crate) fn is_fresh(&self, addr: u64) -> bool {
        self.space.is_fresh(addr)
    }

    /// The block `addr..addr + len` is no longer part of the state being built: its space is
    /// reused once no structure on disk can reference it.
    pub(crate) fn retire(&mut self, addr: u64, len: u64) {
        if addr == 0 || len == 0 {
            return;
        }
        self.meta.remove(&addr);
        self.space.retire(addr, len);
    }

    /// Whether `bytes` are what the image (or the file) holds at `addr`.
    pub(crate) fn same_bytes(&self, addr: u64, bytes: &[u8]) -> Result<bool> {
        Ok(addr
            .checked_add(bytes.len() as u64)
            .is_some_and(|e| e <= self.eoa)
            && self.get(addr, bytes.len() as u64)? == bytes)
    }

    /// Rebuild a structure of an object: `f` allocates the blocks of the new structure (or
    /// none, when it kept the old one); when it allocated any, the blocks of the previous
    /// build are retired.
    pub(crate) fn rebuild<T>(
        &mut self,
        key: (usize, u8),
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        let outer = self.scope.replace(Vec::new());
        let r = f(self);
        let got = std::mem::replace(&mut self.scope, outer).unwrap_or_default();
        if let Some(s) = &mut self.scope {
            s.extend_from_slice(&got);
        }
        if r.is_err() {
            // The old structure stays; what was built of the new one is dropped.
            for (a, l) in got {
                self.retire(a, l);
            }
        } else if !got.is_empty() {
            let old = self.owned.insert(key, got).unwrap_or_default();
            for (a, l) in old {
                self.retire(a, l);
            }
        }
        r
    }

    /// Count `blocks` as part of an object's structure `key` (the structure a file modified
    /// in place has on disk): retired when the structure is rebuilt or the object freed.
    pub(crate) fn own_blocks(&mut self, key: (usize, u8), blocks: Vec<(u64, u64)>) {
        self.owned.entry(key).or_default().extend(blocks);
    }

    /// Retire every block of an object's structure (it no longer has one).
    pub(crate) fn drop_structure(&mut self, key: (usize, u8)) {
        for (a, l) in self.owned.remove(&key).unwrap_or_default() {
            self.retire(a, l);
        }
    }

    /// The metadata block holding `addr..addr + len`, if any: its start and bytes.
    fn meta_block(&self, addr: u64, len: u64) -> Option<(u64, &Block)> {
        let (&start, block) = self.meta.range(..=addr).next_back()?;
        (addr + len <= start + block.bytes.len() as u64).then_some((start, block))
    }

    /// Write `bytes` at `addr`: into a metadata block, or to the file for raw data.
    pub(crate) fn put(&mut self, addr: u64, bytes: &[u8]) -> Result<()> {
        let len = bytes.len() as u64;
        ensure!(
            addr.checked_add(len).is_some_and(|e| e <= self.eoa),
            Format,
            "write of {len} bytes at {addr:#x} past the allocated end {:#x}",
            self.eoa
        );
        if let Some((start, _)) = self.meta_block(addr, len) {
            if let Some(block) = self.meta.get_mut(&start) {
                let o = (addr - start) as usize;
                let dst = &mut block.bytes[o..o + bytes.len()];
                if dst != bytes {
                    dst.copy_from_slice(bytes);
                    block.dirty = true;
                }
                return Ok(());
            }
        }
        let file = self
            .file
            .as_ref()
            .ok_or_else(|| Error::new(ErrorKind::Closed, "the file was closed"))?;
        file.write_all_at(addr, bytes)?;
        Ok(())
    }

    /// The bytes at `addr..addr + len`: from a metadata block, or read from the file (raw
    /// data; never-written parts read as zeros).
    pub(crate) fn get(&self, addr: u64, len: u64) -> Result<Vec<u8>> {
        ensure!(
            addr.checked_add(len).is_some_and(|e| e <= self.eoa),
            Format,
            "read of {len} bytes at {addr:#x} past the allocated end {:#x}",
            self.eoa
        );
        if let Some((start, block)) = self.meta_block(addr, len) {
            let o = (addr - start) as usize;
            return Ok(block.bytes[o..o + len as usize].to_vec());
        }
        let file = self
            .file
            .as_ref()
            .ok_or_else(|| Error::new(ErrorKind::Closed, "the file was closed"))?;
        let mut out = vec![0u8; len as usize];
        let size = file.len()?;
        if addr < size {
            let n = (size - addr).min(len) as usize;
            file.read_exact_at(addr, &mut out[..n])?;
        }
        Ok(out)
    }

    /// Add an object, reserving its header from its current messages plus room to grow.
    pub(crate) fn new_object(&mut self, path: String, body: Body) -> Result<ObjId> {
        let id = ObjId(self.objects.len());
        self.objects.push(Object {
            addr: 0,
            cap0: 0,
            cont: None,
            refcount: 1,
            attrs: Vec::new(),
            attr_index: HashMap::new(),
            path,
            dense_attrs: None,
            attr_order: CreationOrder::Untracked,
            attr_next: 0,
            attrs_dirty: true,
            comment: None,
            freed: false,
            body,
        });
        let msgs = match self.header_messages(id) {
            Ok(m) => m,
            Err(e) => {
                self.objects.pop();
                return Err(e);
            }
        };
        let body: u64 = msgs
            .iter()
            .map(|m| self.msg_header_len(id) + m.data.len() as u64)
            .sum();
        // A whole number of 8-byte units, as this writer allocates: the header's extent as
        // the file stores it (the size of chunk 0) is then all the space it takes, so that a
        // file modified in place later frees it whole (the padding a shorter chunk left
        // before the next block would be known to nobody, and would keep the freed header
        // from merging with a freed neighbour such as the dataset's raw data).
        let cap0 = align8(self.prefix_len(id, body + 256) + align8(body + 256));
        let addr = self.alloc(cap0);
        let o = &mut self.objects[id.0];
        o.addr = addr;
        o.cap0 = cap0;
        self.by_addr.insert(addr, id);
        Ok(id)
    }

    fn v1(&self) -> bool {
        self.format == FileFormat::Compatible
    }

    /// Whether the object has a version 1 header: in the compatible format, unless it tracks
    /// attribute creation order (which needs a version 2 header, as the reference library's
    /// `H5O_set_version` decides).
    pub(crate) fn v1_header(&self, id: ObjId) -> bool {
        if let Some(v1) = self.loaded_v1(id) {
            // An object read from the file keeps its header's version.
            return v1;
        }
        self.v1()
            && self
                .object(id)
                .is_ok_and(|o| o.attr_order == CreationOrder::Untracked)
    }

    /// Bytes of a message header: 8 in version 1 headers, 4 in version 2 headers (6 when
    /// they track attribute creation order).
    fn msg_header_len(&self, id: ObjId) -> u64 {
        if self.v1_header(id) {
            8
        } else if self
            .object(id)
            .is_ok_and(|o| o.attr_order != CreationOrder::Untracked)
        {
            6
        } else {
            4
        }
    }

    /// Bytes of chunk 0 that are not messages, for a body of `body` bytes.
    fn prefix_len(&self, id: ObjId, body: u64) -> u64 {
        if self.v1_header(id) {
            16
        } else {
            let width = if body <= 0xff {
                1
            } else if body <= 0xffff {
                2
            } else {
                4
            };
            6 + width + 4
        }
    }

    /// The object's header messages, encoded.
    fn header_messages(&self, id: ObjId) -> Result<Vec<RawMessage>> {
        let o = self.object(id)?;
        let v1 = self.v1_header(id);
        let mut msgs: Vec<(Message, u8)> = match &o.body {
            Body::Group(g) => g.messages(self, id)?,
            Body::Dataset(d) => d.messages(self)?,
            Body::Datatype(t) => vec![(
                Message::Datatype(h5_format::message::datatype::DatatypeMessage::new(
                    t.clone(),
                )),
                MessageFlags::CONSTANT,
            )],
        };
        if let Some(c) = &o.comment {
            msgs.push((
                Message::Comment(h5_format::message::comment::Comment { comment: c.clone() }),
                0,
            ));
        }
        let refcount = self.refcount(id)?;
        if !v1 && refcount > 1 {
            // Version 2 headers keep a reference count other than 1 in a message.
            msgs.push((
                Message::RefCount(h5_format::message::refcount::RefCount { count: refcount }),
                0,
            ));
        }
        let mut msgs: Vec<(Message, u8, Option<u16>)> =
            msgs.into_iter().map(|(m, f)| (m, f, None)).collect();
        msgs.extend(self.attribute_messages(id, v1)?);
        let mut out = Vec::with_capacity(msgs.len());
        for (m, flags, order) in &msgs {
            let mut raw = RawMessage::from_message(m, MessageFlags(*flags), self.sizes, v1);
            raw.creation_order = *order;
            if raw.data.len() > 0xffff {
                bail!(
                    LimitExceeded,
                    "{}: {} message of {} bytes does not fit an object header (65535 at most)",
                    o.path,
                    m.kind(),
                    raw.data.len()
                );
            }
            out.push(raw);
        }
        Ok(self.merge_loaded(id, out))
    }

    /// Encode the object's header into the image, moving the tail to a continuation chunk
    /// when chunk 0 is full.
    fn write_header(&mut self, id: ObjId) -> Result<()> {
        let msgs = self.header_messages(id)?;
        let refcount = self.refcount(id)?;
        let (addr, cap0, mut cont) = {
            let o = self.object(id)?;
            (o.addr, o.cap0, o.cont)
        };
        let (v1, prefix, body0, hl) = match self.loaded_shape(id, refcount) {
            Some(shape) => {
                // A header read from the file: chunk 0 enters the image as it is on disk
                // (so that only a change rewrites it), and the continuation chunks it had
                // are replaced by this writer's.
                if !self.meta.contains_key(&addr) {
                    let bytes = self.get(addr, cap0)?;
                    self.meta.insert(
                        addr,
                        Block {
                            bytes,
                            dirty: false,
                        },
                    );
                }
                for (a, l) in self.take_original_conts(id) {
                    self.space.retire(a, l);
                }
                shape
            }
            None => {
                let v1 = self.v1_header(id);
                // Body capacity of chunk 0: what the reservation leaves after the prefix.
                let body0 = if v1 {
                    cap0 - 16
                } else {
                    let mut b = cap0 - 11;
                    while self.prefix_len(id, b) + b > cap0 {
                        b -= 1;
                    }
                    b
                };
                let prefix = if v1 {
                    Prefix::V1 {
                        // Used only when the header has more messages than the field holds:
                        // saturated (a zero count makes the reference library refuse the header).
                        num_messages: u16::MAX,
                        refcount,
                    }
                } else {
                    // Bits 0-1: the width of "Size of Chunk #0", fixed by the reservation.
                    let code = match body0 {
                        0..=0xff => 0,
                        0x100..=0xffff => 1,
                        _ => 2,
                    };
                    Prefix::V2 {
                        flags: code | self.object(id)?.attr_order.header_flags(),
                        times: None,
                        attr_phase_change: None,
                    }
                };
                (v1, prefix, body0, self.msg_header_len(id))
            }
        };
        if cont.is_some_and(|(a, _)| a == 0) {
            cont = None;
        }
        let size = |m: &RawMessage| hl + m.data.len() as u64;
        let total: u64 = msgs.iter().map(size).sum();
        let mut new_cont = None;
        let header = if total <= body0 {
            if let Some((a, c)) = cont {
                self.retire(a, c);
            }
            ObjectHeader {
                prefix,
                chunks: vec![self.fill_chunk(Addr(addr), msgs, body0, hl)?],
            }
        } else {
            let cont_msg_len = hl + 2 * self.sizes.offset as u64;
            let mut used = 0;
            let mut split = 0;
            for m in &msgs {
                if used + size(m) + cont_msg_len > body0 {
                    break;
                }
                used += size(m);
                split += 1;
            }
            let mut first = msgs;
            let rest = first.split_off(split);
            let rest_len: u64 = rest.iter().map(size).sum();
            let cont_extra = if v1 { 0 } else { 8 };
            // The continuation chunk is rewritten where it is only when no structure on disk
            // references it yet, or when its bytes do not change; otherwise it moves.
            let mut place = match cont {
                Some((a, c)) if c >= rest_len + cont_extra => Some((a, c)),
                _ => None,
            };
            loop {
                let (caddr, ccap) = match place {
                    Some(p) => p,
                    None => {
                        let c = align8(rest_len + cont_extra + 128);
                        (self.alloc(c), c)
                    }
                };
                let cmsg = Message::Continuation(Continuation {
                    offset: Addr(caddr),
                    length: ccap,
                });
                let mut head = first.clone();
                head.push(RawMessage::from_message(
                    &cmsg,
                    MessageFlags(0),
                    self.sizes,
                    v1,
                ));
                let h = ObjectHeader {
                    prefix: prefix.clone(),
                    chunks: vec![
                        self.fill_chunk(Addr(addr), head, body0, hl)?,
                        self.fill_chunk(Addr(caddr), rest.clone(), ccap - cont_extra, hl)?,
                    ],
                };
                if place.is_some() && !self.is_fresh(caddr) {
                    let mut w = Writer::new(self.sizes);
                    h.encode_chunk(1, &mut w)?;
                    if !self.same_bytes(caddr, w.as_slice())? {
                        place = None;
                        continue;
                    }
                }
                if let Some((a, c)) = cont {
                    if a != caddr {
                        self.retire(a, c);
                    }
                }
                new_cont = Some((caddr, ccap));
                break h;
            }
        };
        for i in 0..header.chunks.len() {
            let mut w = Writer::new(self.sizes);
            header.encode_chunk(i, &mut w)?;
            let at = header.chunks[i].address.0;
            if i > 0 && !self.meta.contains_key(&at) {
                // A continuation chunk of a header read from the file: now in the image.
                self.meta.insert(
                    at,
                    Block {
                        bytes: w.as_slice().to_vec(),
                        dirty: false,
                    },
                );
            }
            self.put(at, w.as_slice())?;
        }
        self.object_mut(id)?.cont = new_cont;
        Ok(())
    }

    /// A chunk of exactly `body` bytes of messages: `msgs`, then NIL messages or a gap.
    fn fill_chunk(
        &self,
        address: Addr,
        mut msgs: Vec<RawMessage>,
        body: u64,
        hl: u64,
    ) -> Result<Chunk> {
        let used: u64 = msgs.iter().map(|m| hl + m.data.len() as u64).sum();
        ensure!(
            used <= body,
            Format,
            "header chunk overflow: {used} > {body}"
        );
        let mut left = body - used;
        let mut gap = 0;
        while left > 0 {
            if left < hl {
                gap = left as usize;
                break;
            }
            let n = (left - hl).min(0xffff - 7);
            msgs.push(RawMessage::nil(n as usize));
            left -= hl + n;
        }
        Ok(Chunk {
            address,
            messages: msgs,
            gap,
        })
    }

    /// Start single-writer/multiple-reader writing (`H5Fstart_swmr_write`): flush, then mark
    /// the superblock (version 3, a file of [`FileFormat::Latest`]) open for writing and SWMR
    /// writing, so that readers opening the file with `OpenOptions::swmr` read it while it is
    /// written. Create every object and attribute first: while SWMR writing is on, only the
    /// raw data and extents of existing datasets change ([`FileWriter::write_dataset`],
    /// [`FileWriter::resize`]); creating objects, links or attributes and deleting anything
    /// fail with [`ErrorKind::InvalidArgument`]. Each [`FileWriter::flush`] then publishes
    /// what was written in an order a concurrent reader can follow: new chunks and chunk
    /// index blocks first, in space no structure on disk references, then the superblock,
    /// then each dataset's header (the extent and the index address) in one write; space
    /// the file on disk referenced is never reused while SWMR writing is on, so that a
    /// reader that read an older header still finds what it points to. Closing the file
    /// clears the marks.
    pub fn start_swmr(&mut self) -> Result<()> {
        ensure!(self.file.is_some(), Closed, "the file was closed");
        ensure!(
            !self.swmr,
            InvalidArgument,
            "SWMR writing has already started"
        );
        let version = match &self.inplace {
            Some(ip) => ip.superblock.version,
            None if self.format == FileFormat::Latest => 3,
            None => 0,
        };
        ensure!(
            version >= 3,
            InvalidArgument,
            "SWMR writing needs superblock version 3 (a file created with FileFormat::Latest); \
             {} has superblock version {version}",
            self.path.display()
        );
        self.flush()?;
        self.swmr = true;
        if let Err(e) = self.flush() {
            self.swmr = false;
            return Err(e);
        }
        Ok(())
    }

    /// Whether SWMR writing is on.
    pub fn is_swmr(&self) -> bool {
        self.swmr
    }

    /// An error naming the SWMR rule `what` breaks, while SWMR writing is on.
    pub(crate) fn swmr_forbids(&self, what: &str) -> Result<()> {
        ensure!(
            !self.swmr,
            InvalidArgument,
            "SWMR writing forbids {what}: create every object and attribute before \
             start_swmr, and delete nothing while SWMR writing is on (only the data and \
             extents of existing datasets change)"
        );
        Ok(())
    }

    /// The superblock's "File Consistency Flags": marked open for writing and SWMR writing
    /// while SWMR writing is on, clear otherwise (this writer's flushes keep the file
    /// consistent, so it does not mark a file it writes otherwise).
    fn status_flags(&self) -> u32 {
        use h5_format::superblock::{FLAG_SWMR_WRITE_ACCESS, FLAG_WRITE_ACCESS};
        if self.swmr {
            FLAG_WRITE_ACCESS | FLAG_SWMR_WRITE_ACCESS
        } else {
            0
        }
    }

    /// Write everything that changed: groups, chunk indexes, object headers, the superblock.
    /// Afterwards the file on disk is complete.
    ///
    /// The writes are ordered so that every prefix of them leaves a file the reference
    /// library reads, each object in its state of the previous flush or of this one: no
    /// block the file on disk references is overwritten (changed heaps, B-trees, symbol
    /// table nodes, chunk indexes and continuation chunks go to new space); first every new
    /// block is written (the file extended to the new end), then the superblock with the new
    /// end of file, then the object headers rewritten in place, each in one write. Space the
    /// new state no longer references is reused by later flushes once this one completed.
    /// (A global heap collection that gained objects is rewritten in place with the new
    /// blocks, in one write: the objects the file on disk references in it do not change.)
    /// (The order holds against write errors; against power loss it would also need the
    /// operating system to keep it, which this does not force with `fsync`.)
    pub fn flush(&mut self) -> Result<()> {
        ensure!(self.file.is_some(), Closed, "the file was closed");
        self.adopt_shared_types()?;
        // Children before parents: a symbol table caches its child groups' addresses. A
        // group whose symbol table moved has its parents' tables rebuilt too (objects of a
        // file modified in place included), in a further pass where a parent came first.
        let mut done = std::collections::HashSet::new();
        let mut parents: Option<HashMap<usize, Vec<usize>>> = None;
        // Each further pass rebuilds tables in the space the previous one made, so the
        // cached addresses settle; a bound makes sure of it.
        for pass in 0.. {
            ensure!(
                pass <= self.objects.len() + 1,
                Format,
                "symbol table caches did not settle after {pass} passes"
            );
            let mut again = false;
            for i in (0..self.objects.len()).rev() {
                let id = ObjId(i);
                if self.objects[i].freed || self.is_pristine(id) || done.contains(&i) {
                    continue;
                }
                let cached = self.cached_stab(i);
                let r = self
                    .rebuild((i, 0), |w| w.prepare_object(id))
                    .and_then(|()| self.prepare_attributes(id));
                let path = self.objects[i].path.clone();
                r.map_err(|e| e.at_path(&path))?;
                done.insert(i);
                if self.cached_stab(i) == cached {
                    continue;
                }
                let map = parents.get_or_insert_with(|| self.symbol_table_parents());
                for &p in map.get(&i).map(Vec::as_slice).unwrap_or(&[]) {
                    if self.is_pristine(ObjId(p)) {
                        self.adopt(ObjId(p))?;
                    }
                    if done.remove(&p) || p > i {
                        again = true;
                    }
                }
            }
            if !again {
                break;
            }
        }
        for i in 0..self.objects.len() {
            if self.objects[i].freed || self.is_pristine(ObjId(i)) {
                continue;
            }
            let path = self.objects[i].path.clone();
            self.write_header(ObjId(i)).map_err(|e| e.at_path(&path))?;
        }
        self.write_superblock()?;
        self.write_out()
    }

    /// What the symbol table entries of a group's parents cache of it (`None` for other
    /// objects).
    fn cached_stab(&self, i: usize) -> Option<ScratchPad> {
        match &self.objects.get(i)?.body {
            Body::Group(g) => Some(g.scratch_pad()),
            _ => None,
        }
    }

    /// For every object, the groups whose symbol tables hold a hard link to it.
    fn symbol_table_parents(&self) -> HashMap<usize, Vec<usize>> {
        let mut map: HashMap<usize, Vec<usize>> = HashMap::new();
        for (p, o) in self.objects.iter().enumerate() {
            if o.freed {
                continue;
            }
            if let Body::Group(g) = &o.body {
                if g.is_symbol_table() {
                    for l in g.links.values() {
                        if let LinkSpec::Hard(c) = l {
                            map.entry(c.0).or_default().push(p);
                        }
                    }
                }
            }
        }
        map
    }

    /// Write the changed blocks of the image in the crash-safe order (see
    /// [`FileWriter::flush`]).
    fn write_out(&mut self) -> Result<()> {
        let headers: std::collections::HashSet<u64> = self
            .objects
            .iter()
            .filter(|o| !o.freed)
            .map(|o| o.addr)
            .collect();
        let mut new_blocks = Vec::new();
        let mut appended = Vec::new();
        let mut in_place = Vec::new();
        for (&at, b) in &self.meta {
            if !b.dirty || at == 0 {
                continue;
            }
            if self.space.is_fresh(at) {
                new_blocks.push(at);
            } else if headers.contains(&at) {
                in_place.push(at);
            } else {
                // Global heap collections that gained objects: what the file references
                // of them does not change.
                appended.push(at);
            }
        }
        self.inplace_other += appended.len() as u64;
        let end = self.eoa;
        let file = self
            .file
            .clone()
            .ok_or_else(|| Error::new(ErrorKind::Closed, "the file was closed"))?;
        // (1) New blocks, in space no structure on disk references.
        if file.len()? < end {
            file.set_len(end)?;
        }
        for at in new_blocks.into_iter().chain(appended) {
            if let Some(b) = self.meta.get_mut(&at) {
                file.write_all_at(at, &b.bytes)?;
                b.dirty = false;
            }
        }
        // (2) The superblock: the new end of file (and root group).
        self.space.commit();
        if let Some(b) = self.meta.get_mut(&0) {
            if b.dirty {
                file.write_all_at(0, &b.bytes)?;
                b.dirty = false;
            }
        }
        // (3) Headers rewritten in place, one write each (groups a link moved to first).
        in_place.sort_by_key(|at| !self.headers_first.contains(at));
        for at in in_place {
            if let Some(b) = self.meta.get_mut(&at) {
                file.write_all_at(at, &b.bytes)?;
                b.dirty = false;
            }
        }
        if self.swmr {
            // A SWMR reader may still follow the state this flush replaced.
            self.space.abandon();
        } else {
            self.space.complete();
        }
        self.headers_first.clear();
        Ok(())
    }

    /// Build what an object's header points to (symbol tables, chunk indexes).
    fn prepare_object(&mut self, id: ObjId) -> Result<()> {
        let body = std::mem::replace(
            &mut self.object_mut(id)?.body,
            Body::Datatype(<u8 as h5_types::H5Type>::h5_type()),
        );
        let (body, r) = match body {
            Body::Group(mut g) => {
                let r = g.prepare(self);
                if r.is_ok() && !g.has_structure() {
                    // Back to link messages in the header (links were removed): the symbol
                    // table or dense storage built earlier is retired.
                    self.drop_structure((id.0, 0));
                }
                (Body::Group(g), r)
            }
            Body::Dataset(mut d) => {
                let r = d.prepare(self);
                (Body::Dataset(d), r)
            }
            b @ Body::Datatype(_) => (b, Ok(())),
        };
        self.object_mut(id)?.body = body;
        r
    }

    fn write_superblock(&mut self) -> Result<()> {
        // Paged aggregation ends the file on a page boundary.
        if let Some(p) = &self.pages {
            self.eoa = p.align(self.eoa);
        }
        self.inplace_fs_info()?;
        if let Some(mut sb) = self.inplace_superblock() {
            if sb.version >= 3 {
                sb.flags = self.status_flags();
            }
            let mut w = Writer::new(self.sizes);
            sb.encode(&mut w);
            ensure!(
                w.len() as u64 == self.superblock_len,
                Format,
                "superblock of {} bytes where {} were",
                w.len(),
                self.superblock_len
            );
            return self.put(0, w.as_slice());
        }
        let root = &self.objects[0];
        let eof = Addr(match &self.pages {
            Some(_) => self.eoa,
            None => align8(self.eoa),
        });
        let root_addr = Addr(root.addr);
        let sb = match (self.format, self.file_space) {
            // File-space settings: a superblock extension, superblock version 2 at least.
            (format, Some((_, ext))) => Superblock {
                version: if format == FileFormat::Latest { 3 } else { 2 },
                sizes: self.sizes,
                flags: if format == FileFormat::Latest {
                    self.status_flags()
                } else {
                    0
                },
                base_address: Addr(0),
                eof_address: eof,
                extension_address: Addr(ext),
                root_object_header_address: root_addr,
                v0: None,
            },
            (FileFormat::Compatible, None) => {
                let scratch = match &root.body {
                    Body::Group(g) => g.scratch_pad(),
                    _ => ScratchPad::None([0; 16]),
                };
                Superblock {
                    version: 0,
                    sizes: self.sizes,
                    flags: 0,
                    base_address: Addr(0),
                    eof_address: eof,
                    extension_address: Addr::UNDEF,
                    root_object_header_address: root_addr,
                    v0: Some(SuperblockV0 {
                        group_leaf_node_k: GROUP_LEAF_K,
                        group_internal_node_k: GROUP_INTERNAL_K,
                        indexed_storage_internal_node_k: None,
                        free_space_address: Addr::UNDEF,
                        driver_info_address: Addr::UNDEF,
                        root_group: SymbolTableEntry {
                            link_name_offset: 0,
                            object_header_address: root_addr,
                            scratch,
                        },
                    }),
                }
            }
            // Version 3 (the file consistency flags stay zero unless SWMR writing is on:
            // never marked open for writing, so the reference library opens the file even
            // after a crash).
            (FileFormat::Latest, None) => Superblock {
                version: 3,
                sizes: self.sizes,
                flags: self.status_flags(),
                base_address: Addr(0),
                eof_address: eof,
                extension_address: Addr::UNDEF,
                root_object_header_address: root_addr,
                v0: None,
            },
        };
        ensure!(
            sb.encoded_len() as u64 <= self.superblock_len,
            Format,
            "superblock of {} bytes",
            sb.encoded_len()
        );
        let mut w = Writer::new(self.sizes);
        sb.encode(&mut w);
        self.eoa = eof.0;
        self.put(0, w.as_slice())
    }

    /// Flush and close the file, reporting any error.
    pub fn close(mut self) -> Result<()> {
        self.shutdown()
    }

    /// Let go of the file without writing anything more (a writer whose opening failed).
    pub(crate) fn discard(&mut self) {
        self.file = None;
    }

    /// Flush and release the file, reporting any error; later flushes fail with
    /// [`ErrorKind::Closed`] and dropping the writer does nothing more.
    pub fn shutdown(&mut self) -> Result<()> {
        if self.file.is_none() {
            return Ok(());
        }
        // The last flush clears the SWMR marks (the file is closed).
        self.swmr = false;
        let r = self.flush();
        self.file = None;
        r
    }

    /// From now on, fail the `fail_at`-th write or length change (counted from 1) and every
    /// later one, as a full disk would.
    #[cfg(test)]
    pub(crate) fn inject_fault(&mut self, fail_at: u64) {
        if let Some(inner) = self.file.take() {
            self.file = Some(Arc::new(h5_format::storage::FaultyStorage::new(
                inner, fail_at,
            )));
        }
    }

    /// Whether the file is still open.
    pub fn is_open(&self) -> bool {
        self.file.is_some()
    }

    /// The object's reference count: its hard links, plus for a committed datatype every
    /// dataset and attribute that shares it (as the reference library counts them).
    pub(crate) fn refcount(&self, id: ObjId) -> Result<u32> {
        let o = self.object(id)?;
        let mut n = o.refcount;
        if let Body::Datatype(_) = o.body {
            for other in self.objects.iter().filter(|o| !o.freed) {
                if let Body::Dataset(d) = &other.body {
                    n += u32::from(d.committed_type() == Some(id));
                }
                n += other
                    .attrs
                    .iter()
                    .filter(|a| a.committed == Some(id))
                    .count() as u32;
            }
        }
        Ok(n)
    }

    /// Add a hard link count to an object (one more name links to it).
    pub(crate) fn add_ref(&mut self, id: ObjId) -> Result<()> {
        let o = self.object_mut(id)?;
        o.refcount = o.refcount.saturating_add(1);
        Ok(())
    }

    /// The message flags a datatype message gets: shared when committed.
    pub(crate) fn shared_type_message(&self, committed: ObjId) -> Result<Message> {
        let o = self.object(committed)?;
        ensure!(
            matches!(o.body, Body::Datatype(_)),
            InvalidArgument,
            "{} is not a committed datatype",
            o.path
        );
        let version = if self.v1() { 2 } else { 3 };
        Ok(Message::Shared {
            kind: MessageType::DATATYPE,
            shared: h5_format::message::shared::SharedMessage {
                version,
                location: h5_format::message::shared::SharedLocation::Committed(Addr(o.addr)),
            },
        })
    }
}

impl Drop for FileWriter {
    fn drop(&mut self) {
        if self.file.is_some() {
            if let Err(e) = self.shutdown() {
                eprintln!("h5: error flushing {} on drop: {e}", self.path.display());
            }
        }
    }
}
