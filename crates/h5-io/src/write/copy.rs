//! Copying a whole file that the reader opened into a writer: every group, dataset, committed
//! datatype, attribute and link, with the data unchanged (raw bytes in the file datatype,
//! variable-length values moved to the new global heap, references pointing to the new
//! addresses). `h5 repack` is built on it, and so is [`FileWriter::open_rw`], which loads an
//! existing file into the writer's model this way. The same copier copies one object and
//! what it reaches into a group of the writer ([`FileWriter::copy_object`], `H5Ocopy`).
//!
//! The copy goes in passes, so that every object has its new address before anything refers
//! to it: groups (breadth first from the root), then committed datatypes, then datasets (their
//! headers only), then the remaining links (further hard links to an object already copied,
//! soft and external links), and last attributes and raw data (where references are
//! remapped).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};

use h5_format::message::attribute::MaybeShared;
use h5_format::message::layout::{LayoutClass, CHUNK_DONT_FILTER_PARTIAL_BOUND_CHUNKS};
use h5_format::message::shared::SharedLocation;
use h5_format::message::{Message, MessageFlags, MessageType};
use h5_format::storage::Storage;
use h5_format::{Addr, Cursor};
use h5_types::convert::VarLenHeap;
use h5_types::{Datatype, ReferenceKind};

use super::dataset::{AllocTime, DatasetSpec, StorageSpec};
use super::file::{FileFormat, FileWriter, ObjId};
use super::group::{CreationOrder, GroupOptions, LinkSpec};
use super::{bail, ensure, Error, ErrorKind, Result};
use crate::dataset::{self as rd, Dataset};
use crate::file::File;
use crate::group::Location;
use crate::link::LinkTarget;
use crate::object::{Object, ObjectKind};
use crate::selection::{Dataspace, MemoryMap, Selection};

/// A hook that may change how each dataset is stored in the copy: it gets the dataset's path
/// (absolute, the first path it was found at) and the specification the copy would use (the
/// source's layout, filters and fill value), and may change its storage and filters.
pub type DatasetHook<'a> = dyn Fn(&str, &mut DatasetSpec) -> Result<()> + 'a;

/// How [`copy_file`] copies.
#[derive(Default)]
pub struct CopyOptions<'a> {
    /// Called for every dataset before it is created.
    pub dataset_hook: Option<&'a DatasetHook<'a>>,
    /// Fail on anything the copy cannot carry over (instead of listing it in the report).
    pub strict: bool,
    /// Most bytes of a dataset read at once (0: [`DEFAULT_MAX_READ`]); larger datasets are
    /// copied in slabs of whole rows.
    pub max_read: u64,
}

/// Most bytes of a dataset a copy reads at once, unless [`CopyOptions::max_read`] says.
pub const DEFAULT_MAX_READ: u64 = 64 << 20;

impl std::fmt::Debug for CopyOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CopyOptions")
            .field("dataset_hook", &self.dataset_hook.is_some())
            .field("strict", &self.strict)
            .field("max_read", &self.max_read)
            .finish()
    }
}

/// What a copy could not carry over (it went on without them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CopyReport {
    /// Objects copied: groups, datasets and committed datatypes.
    pub objects: usize,
    /// What was not carried over as it was, with the reason (references to objects no link
    /// reaches become null references; virtual datasets and external raw data storage
    /// become ordinary datasets holding the data).
    pub skipped: Vec<String>,
}

/// An object found in the source: its kind and the first path it was reached by.
struct Found {
    kind: ObjectKind,
    path: String,
    parent: Addr,
    name: String,
}

/// Copy every object of `src` into `w` (whose root group is `src`'s root group).
pub fn copy_file(src: &File, w: &mut FileWriter, opts: &CopyOptions<'_>) -> Result<CopyReport> {
    Copier::new(src, w, opts, Outside::Report).run(opts)
}

/// What a copy does with an object reference to an object it does not copy.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Outside {
    /// Fail when strict, otherwise a null reference listed in the report.
    Report,
    /// The same reference (a copy within one file: the object is still there).
    Keep,
    /// A null reference (a copy of part of a file into another file).
    Null,
}

struct Copier<'s, 'w> {
    src: &'s File,
    w: &'w mut FileWriter,
    /// Old object header address -> new object.
    map: HashMap<u64, ObjId>,
    /// Committed datatypes no link reaches, copied as anonymous ones.
    anonymous: Vec<Addr>,
    strict: bool,
    max_read: u64,
    report: CopyReport,
    /// The group the top object of a copy of one object goes to ([`FileWriter::copy_object`]).
    top_parent: Option<ObjId>,
    outside: Outside,
}

fn rerr(e: crate::Error) -> Error {
    let kind = match e.kind() {
        crate::ErrorKind::Io => ErrorKind::Io,
        crate::ErrorKind::Unsupported => ErrorKind::Unsupported,
        crate::ErrorKind::NotFound => ErrorKind::NotFound,
        crate::ErrorKind::LimitExceeded => ErrorKind::LimitExceeded,
        crate::ErrorKind::Filter => ErrorKind::Filter,
        _ => ErrorKind::Format,
    };
    Error::with_source(kind, format!("reading the source: {e}"), e)
}

/// The address of the committed datatype a header's message of `kind` shares, if any.
fn committed_of(src: &File, obj: &Object, kind: MessageType) -> Option<Addr> {
    obj.header.messages().find_map(|m| {
        if m.kind != kind || m.flags.0 & MessageFlags::SHARED == 0 {
            return None;
        }
        match m.decode(src.sizes()) {
            Ok(Message::Shared { shared, .. }) => match shared.location {
                SharedLocation::Committed(a) => Some(a),
                _ => None,
            },
            _ => None,
        }
    })
}

/// Committed datatypes of the attributes stored in a header (compact storage), by name.
fn attribute_committed(src: &File, obj: &Object) -> HashMap<String, Addr> {
    let mut out = HashMap::new();
    for m in obj.header.messages() {
        if m.kind != MessageType::ATTRIBUTE {
            continue;
        }
        if let Ok(Message::Attribute(a)) = m.decode(src.sizes()) {
            if let MaybeShared::Shared(s) = &a.datatype {
                if let SharedLocation::Committed(addr) = s.location {
                    out.insert(String::from_utf8_lossy(&a.name).into_owned(), addr);
                }
            }
        }
    }
    out
}

/// Whether a datatype holds references anywhere.
fn has_reference(dt: &Datatype) -> bool {
    match dt {
        Datatype::Reference(_) => true,
        Datatype::Compound(c) => c.members().iter().any(|m| has_reference(m.datatype())),
        Datatype::Array(a) => has_reference(a.base()),
        Datatype::VarLen(v) => has_reference(v.base()),
        _ => false,
    }
}

impl<'s, 'w> Copier<'s, 'w> {
    fn new(src: &'s File, w: &'w mut FileWriter, opts: &CopyOptions<'_>, outside: Outside) -> Self {
        Copier {
            src,
            w,
            map: HashMap::new(),
            anonymous: Vec::new(),
            strict: opts.strict,
            max_read: if opts.max_read == 0 {
                DEFAULT_MAX_READ
            } else {
                opts.max_read
            },
            report: CopyReport::default(),
            top_parent: None,
            outside,
        }
    }
}

impl Copier<'_, '_> {
    fn run(mut self, opts: &CopyOptions<'_>) -> Result<CopyReport> {
        let root = self.src.root_address();
        self.map.insert(root.0, self.w.root());
        // The root group's link and attribute creation order, as tracked in the source.
        let ro = self.src.object(root).map_err(rerr)?;
        let o = GroupOptions::of_source(&ro);
        let r = self.w.root();
        self.w.set_link_order(r, o.link_order)?;
        self.w.set_attribute_order(r, o.attr_order)?;
        let top = Found {
            kind: ObjectKind::Group,
            path: "/".into(),
            parent: Addr::UNDEF,
            name: String::new(),
        };
        self.copy_tree(root, top, false, opts)?;
        Ok(self.report)
    }

    /// Copy the object at `addr` of the source (a group, dataset or committed datatype, the
    /// `top` of what is copied) and everything it reaches; `create_top`: it is created
    /// (named by `top`, in [`Copier::top_parent`]), otherwise it exists already (the root
    /// group of a whole-file copy).
    fn copy_tree(
        &mut self,
        addr: Addr,
        top: Found,
        create_top: bool,
        opts: &CopyOptions<'_>,
    ) -> Result<()> {
        let root = addr;
        // Creation indexes of the source's links: (group, name, index).
        let mut corders: Vec<(Addr, String, u64)> = Vec::new();
        // Discover every object reachable by hard links, breadth first, and every link.
        let mut found: BTreeMap<u64, Found> = BTreeMap::new();
        let mut order: Vec<u64> = Vec::new();
        let mut links: Vec<(Addr, String, String, LinkTarget)> = Vec::new();
        let mut queue = VecDeque::new();
        if top.kind == ObjectKind::Group {
            queue.push_back((root, top.path.clone()));
        }
        if create_top {
            order.push(root.0);
        }
        found.insert(root.0, top);
        while let Some((addr, path)) = queue.pop_front() {
            let g = crate::group::Group::at(Location {
                file: self.src.clone(),
                addr,
                path: path.clone(),
            })
            .map_err(rerr)?;
            for l in g.links().map_err(rerr)? {
                if let Some(c) = l.creation_order {
                    corders.push((addr, l.name.clone(), c));
                }
                let child = crate::group::join(&path, &l.name);
                if let LinkTarget::Hard(a) = &l.target {
                    if let std::collections::btree_map::Entry::Vacant(slot) = found.entry(a.0) {
                        let obj = self.src.object(*a).map_err(|e| rerr(e.at(&child)))?;
                        let kind = obj.kind();
                        if kind == ObjectKind::Unknown {
                            bail!(
                                Unsupported,
                                "{child}: an object of unknown kind at {:#x}",
                                a.0
                            );
                        }
                        slot.insert(Found {
                            kind,
                            path: child.clone(),
                            parent: addr,
                            name: l.name.clone(),
                        });
                        order.push(a.0);
                        if kind == ObjectKind::Group {
                            queue.push_back((*a, child.clone()));
                        }
                        continue;
                    }
                }
                links.push((addr, l.name.clone(), child, l.target));
            }
        }
        // Pass 1-3: groups, committed datatypes, datasets (each at its first path; the parent
        // group, reached breadth first, exists already).
        for pass in [ObjectKind::Group, ObjectKind::Datatype, ObjectKind::Dataset] {
            for &a in &order {
                let f = &found[&a];
                if f.kind != pass {
                    continue;
                }
                let parent = self.id_of(f.parent)?;
                let obj = self.src.object(Addr(a)).map_err(rerr)?;
                let id = match pass {
                    ObjectKind::Group => {
                        self.w
                            .create_group_with(parent, &f.name, &GroupOptions::of_source(&obj))
                    }
                    ObjectKind::Datatype => rd::datatype_of(&obj)
                        .map_err(rerr)
                        .and_then(|dt| self.w.commit_datatype(parent, &f.name, &dt)),
                    _ => self.create_dataset(Addr(a), parent, f, opts),
                }
                .and_then(|id| {
                    if pass != ObjectKind::Group {
                        self.w
                            .set_attribute_order(id, CreationOrder::of_attributes(&obj))?;
                    }
                    Ok(id)
                })
                .map_err(|e| e.at_path(&f.path))?;
                self.map.insert(a, id);
                self.report.objects += 1;
            }
        }
        // Pass 4: the other links.
        for (parent, name, path, target) in links {
            let p = self.id_of(parent)?;
            let spec = match target {
                LinkTarget::Hard(a) => LinkSpec::Hard(self.id_of(a)?),
                LinkTarget::Soft(s) => LinkSpec::Soft(s),
                LinkTarget::External { file, path } => LinkSpec::External { file, path },
                LinkTarget::UserDefined { link_type, data } => {
                    LinkSpec::UserDefined { link_type, data }
                }
            };
            self.w
                .create_link(p, &name, spec)
                .map_err(|e| e.at_path(&path))?;
        }
        // The source's link creation indexes, where the copy tracks them.
        for (parent, name, c) in corders {
            let p = self.id_of(parent)?;
            if self.w.link_order(p)?.is_tracked() {
                self.w.set_link_creation_index(p, &name, c)?;
            }
        }
        // Pass 5: attributes of every object, then raw data.
        let mut all = if create_top { Vec::new() } else { vec![root.0] };
        all.extend(order.iter().copied());
        for &a in &all {
            let path = found[&a].path.clone();
            self.copy_attributes(Addr(a), &path)
                .map_err(|e| e.at_path(&path))?;
            self.copy_comment(Addr(a)).map_err(|e| e.at_path(&path))?;
        }
        let mut i = 0;
        while let Some(&a) = self.anonymous.get(i) {
            let path = format!("<anonymous datatype at {:#x}>", a.0);
            self.copy_attributes(a, &path)
                .map_err(|e| e.at_path(&path))?;
            i += 1;
        }
        for &a in &order {
            let f = &found[&a];
            if f.kind == ObjectKind::Dataset {
                let path = f.path.clone();
                self.copy_data(Addr(a), &path)
                    .map_err(|e| e.at_path(&path))?;
            }
        }
        Ok(())
    }

    fn id_of(&self, addr: Addr) -> Result<ObjId> {
        if let (true, Some(p)) = (addr.is_undef(), self.top_parent) {
            return Ok(p);
        }
        self.map.get(&addr.0).copied().ok_or_else(|| {
            Error::new(
                ErrorKind::NotFound,
                format!("no copied object for the source address {:#x}", addr.0),
            )
        })
    }

    /// The new committed datatype for the one at `addr` in the source: the copy of a linked
    /// one, or a new anonymous one when no link reaches it.
    fn committed_id(&mut self, addr: Addr) -> Result<ObjId> {
        if let Some(&id) = self.map.get(&addr.0) {
            return Ok(id);
        }
        let t = self.src.object(addr).map_err(rerr)?;
        let dt = rd::datatype_of(&t).map_err(rerr)?;
        let id = self.w.commit_anonymous_datatype(&dt)?;
        self.w
            .set_attribute_order(id, CreationOrder::of_attributes(&t))?;
        self.map.insert(addr.0, id);
        self.anonymous.push(addr);
        Ok(id)
    }

    fn location(&self, addr: Addr, path: &str) -> Location {
        Location {
            file: self.src.clone(),
            addr,
            path: path.to_owned(),
        }
    }

    fn create_dataset(
        &mut self,
        addr: Addr,
        parent: ObjId,
        f: &Found,
        opts: &CopyOptions<'_>,
    ) -> Result<ObjId> {
        let ds = Dataset::at(self.location(addr, &f.path)).map_err(rerr)?;
        let committed = match committed_of(self.src, ds.object(), MessageType::DATATYPE) {
            Some(a) => Some(self.committed_id(a)?),
            None => None,
        };
        let space = ds.dataspace().clone();
        let unlimited = matches!(&space, Dataspace::Simple { dims, maxdims } if dims != maxdims);
        let virtual_layout = matches!(
            ds.layout().class,
            h5_format::message::layout::LayoutClass::Virtual { .. }
        );
        let kept_out = if virtual_layout {
            Some("a virtual dataset: the writer has none, its data is copied instead")
        } else if ds.external_files().is_some() {
            Some(
                "raw data in external files: the writer has none, the data is copied into the file",
            )
        } else {
            None
        };
        if let Some(why) = kept_out {
            if self.strict {
                bail!(Unsupported, "{why}");
            }
            self.report.skipped.push(format!("{}: {why}", f.path));
        }
        let storage = match &ds.layout().class {
            h5_format::message::layout::LayoutClass::Compact { .. } => StorageSpec::Compact,
            h5_format::message::layout::LayoutClass::Chunked { .. } => {
                StorageSpec::Chunked(ds.chunk_dims().unwrap_or_default())
            }
            _ if unlimited => {
                // A virtual dataset with unlimited dimensions: its data, chunked.
                let dims: Vec<u64> = space.dims().iter().map(|&d| d.clamp(1, 1024)).collect();
                StorageSpec::Chunked(dims)
            }
            _ => StorageSpec::Contiguous,
        };
        let fill = ds.fill_value();
        let mut spec = DatasetSpec::new(ds.datatype().clone(), space);
        spec.committed = committed;
        spec.storage = storage;
        spec.filters = ds.filters().to_vec();
        spec.fill_value = if fill.defined && !ds.datatype().has_variable_length() {
            fill.value.clone()
        } else {
            None
        };
        spec.alloc_time = fill.alloc_time;
        spec.fill_time = fill.fill_time;
        if let Some(hook) = opts.dataset_hook {
            hook(&f.path, &mut spec)?;
        }
        // Allocation times the new storage cannot have fall back to its default.
        match (&spec.storage, spec.alloc_time) {
            (StorageSpec::Compact, _) => spec.alloc_time = AllocTime::Early,
            (StorageSpec::Contiguous, AllocTime::Incremental) => {
                spec.alloc_time = AllocTime::Default
            }
            _ => {}
        }
        if !matches!(spec.storage, StorageSpec::Chunked(_)) {
            spec.filters.clear();
        }
        // An undefined fill value stays undefined unless the hook set a value.
        let fill_defined = fill.defined || spec.fill_value.is_some();
        self.w
            .create_dataset_exact(parent, &f.name, spec, fill_defined)
    }

    fn copy_attributes(&mut self, addr: Addr, path: &str) -> Result<()> {
        let loc = self.location(addr, path);
        let obj = self.src.object(addr).map_err(rerr)?;
        let committed = attribute_committed(self.src, &obj);
        let attrs = crate::attribute::attributes_by_creation_order(&loc)
            .or_else(|_| crate::attribute::attributes(&loc))
            .map_err(rerr)?;
        let id = self.id_of(addr)?;
        for a in attrs {
            let (raw, dt) = a.read_raw();
            let c = committed
                .get(a.name())
                .and_then(|x| self.map.get(&x.0).copied());
            self.w
                .create_attribute_as(id, a.name(), &dt, c, a.dataspace().clone(), true)?;
            if let Some(c) = a.creation_order() {
                // Untracked dense attributes report 65535: only tracked ones keep theirs.
                if self.w.attribute_order(id)?.is_tracked() {
                    let c = u16::try_from(c.min(65534)).unwrap_or(65534);
                    self.w.set_attribute_creation_index(id, a.name(), c)?;
                }
            }
            let (mem, image, heap) = self.memory_form(&dt, raw)?;
            self.w.write_attribute(id, a.name(), &mem, &image, &heap)?;
        }
        Ok(())
    }

    fn copy_comment(&mut self, addr: Addr) -> Result<()> {
        let obj = self.src.object(addr).map_err(rerr)?;
        if let Ok(Some(Message::Comment(c))) = obj.message(MessageType::COMMENT) {
            let text = String::from_utf8_lossy(&c.comment).into_owned();
            let id = self.id_of(addr)?;
            self.w.set_comment(id, Some(&text))?;
        }
        Ok(())
    }

    fn copy_data(&mut self, addr: Addr, path: &str) -> Result<()> {
        let ds = Dataset::at(self.location(addr, path)).map_err(rerr)?;
        if matches!(ds.dataspace(), Dataspace::Null) || ds.is_empty() {
            return Ok(());
        }
        let id = self.id_of(addr)?;
        if self.copy_stored_chunks(&ds, id)? {
            return Ok(());
        }
        let space = ds.dataspace().clone();
        let dims = space.dims().to_vec();
        let esize = ds.element_size() as u64;
        let row_bytes = dims.iter().skip(1).product::<u64>().saturating_mul(esize);
        let total = space.npoints().saturating_mul(esize);
        if dims.is_empty() || total <= self.max_read {
            let (raw, dt) = ds.read_raw().map_err(rerr)?;
            let (mem, image, heap) = self.memory_form(&dt, raw)?;
            return self.w.write_dataset(id, None, &mem, &image, &heap);
        }
        // Slabs of whole rows (of the first dimension), whole source chunks where possible.
        let mut rows = (self.max_read / row_bytes.max(1)).max(1);
        if let Some(c) = ds.chunk_dims().and_then(|c| c.first().copied()) {
            if rows >= c && c > 0 {
                rows -= rows % c;
            }
        }
        let dt = ds.datatype().clone();
        let mut start = 0;
        while start < dims[0] {
            let mut at = vec![0u64; dims.len()];
            at[0] = start;
            let mut count = dims.clone();
            count[0] = rows.min(dims[0] - start);
            let sel = Selection::hyperslab(&space, &at, None, &count, None)?;
            let n = sel.npoints(&space);
            let raw = ds
                .read_raw_selection(&sel, &MemoryMap::packed(n))
                .map_err(rerr)?;
            let (mem, image, heap) = self.memory_form(&dt, raw)?;
            self.w.write_dataset(id, Some(&sel), &mem, &image, &heap)?;
            start += count[0];
        }
        Ok(())
    }

    /// Copy the stored chunks as they are, when the new dataset has the source's chunk
    /// shape and filter pipeline and its data holds no addresses (variable-length values,
    /// references): nothing is decoded or encoded again, so even a pipeline this crate has
    /// no codec for is carried over. Returns `false` when that does not apply.
    fn copy_stored_chunks(&mut self, ds: &Dataset, id: ObjId) -> Result<bool> {
        let Some(chunk) = ds.chunk_dims() else {
            return Ok(false);
        };
        let dt = ds.datatype();
        if dt.has_variable_length() || has_reference(dt) {
            return Ok(false);
        }
        if let LayoutClass::Chunked { flags, .. } = &ds.layout().class {
            if flags & CHUNK_DONT_FILTER_PARTIAL_BOUND_CHUNKS != 0 {
                return Ok(false);
            }
        }
        let Some((filters, dims)) = self.w.chunk_setup(id)? else {
            return Ok(false);
        };
        let same_pipeline = filters.len() == ds.filters().len()
            && filters
                .iter()
                .zip(ds.filters())
                .all(|(a, b)| a.id == b.id && a.client_data == b.client_data);
        if dims != chunk.as_slice() || !same_pipeline {
            return Ok(false);
        }
        let grid: Vec<u64> = ds
            .dataspace()
            .dims()
            .iter()
            .zip(&chunk)
            .map(|(&d, &c)| d.div_ceil(c))
            .collect();
        let total: u64 = grid.iter().product();
        let mut scaled = vec![0u64; grid.len()];
        for _ in 0..total {
            if let Some((bytes, mask)) = ds.raw_chunk(&scaled).map_err(rerr)? {
                self.w.put_raw_chunk(id, &scaled, &bytes, mask)?;
            }
            for k in (0..grid.len()).rev() {
                scaled[k] += 1;
                if scaled[k] < grid[k] {
                    break;
                }
                scaled[k] = 0;
            }
        }
        Ok(true)
    }

    /// The memory form the writer takes of `raw` elements of file type `dt`: the bytes
    /// themselves with references remapped, or the memory image of variable-length data.
    fn memory_form(
        &mut self,
        dt: &Datatype,
        mut raw: Vec<u8>,
    ) -> Result<(Datatype, Vec<u8>, VarLenHeap)> {
        if has_reference(dt) {
            if dt.has_variable_length() {
                bail!(
                    Unsupported,
                    "references inside variable-length data are not copied"
                );
            }
            let size = dt.size();
            if size > 0 {
                for el in raw.chunks_mut(size) {
                    self.remap(dt, el)?;
                }
            }
        }
        if dt.has_variable_length() {
            let (mem, image, heap) = crate::vlen::memory_image(self.src, dt, &raw).map_err(rerr)?;
            return Ok((mem, image, heap));
        }
        Ok((dt.clone(), raw, VarLenHeap::new()))
    }

    /// Rewrite the references of one element of `dt` for the new file.
    fn remap(&mut self, dt: &Datatype, el: &mut [u8]) -> Result<()> {
        match dt {
            Datatype::Reference(r) => match r.kind() {
                ReferenceKind::Object => {
                    let sizes = self.src.sizes();
                    let n = usize::from(sizes.offset);
                    let Some(bytes) = el.get(..n) else {
                        bail!(BufferSize, "object reference of {} bytes", el.len());
                    };
                    let old = Cursor::new(bytes, 0, sizes).read_addr()?;
                    let new = if old.is_undef() || old.0 == 0 {
                        0
                    } else {
                        match self.map.get(&old.0) {
                            Some(&id) => self.w.address(id)?,
                            // An object outside what is copied.
                            None if self.outside == Outside::Keep
                                && self.w.object_at(old.0).is_some() =>
                            {
                                old.0
                            }
                            None if self.outside == Outside::Null => 0,
                            // An object no link reaches was not copied.
                            None if self.strict => bail!(
                                Unsupported,
                                "an object reference to {:#x}, an object no link reaches",
                                old.0
                            ),
                            None => {
                                self.report.skipped.push(format!(
                                    "an object reference to {:#x} (an object no link \
                                     reaches) became a null reference",
                                    old.0
                                ));
                                0
                            }
                        }
                    };
                    if n != 8 || el.len() != 8 {
                        bail!(Unsupported, "object references of {n} bytes");
                    }
                    el.copy_from_slice(&new.to_le_bytes());
                    Ok(())
                }
                ReferenceKind::DatasetRegion => {
                    if el.iter().all(|&b| b == 0) {
                        return Ok(());
                    }
                    let t =
                        crate::reference::region_reference_unnamed(self.src, el).map_err(rerr)?;
                    let crate::reference::Target::Region { dataset, selection } = t else {
                        bail!(
                            Format,
                            "a region reference to something other than a region"
                        );
                    };
                    let id = match self.map.get(&dataset.addr.0) {
                        Some(&id) => id,
                        None => match (self.outside, self.w.object_at(dataset.addr.0)) {
                            (Outside::Keep, Some(id)) => id,
                            (Outside::Null, _) => {
                                el.fill(0);
                                return Ok(());
                            }
                            _ => self.id_of(dataset.addr)?,
                        },
                    };
                    let new = self.w.region_reference(id, &selection)?;
                    if el.len() != new.len() {
                        bail!(Unsupported, "region references of {} bytes", el.len());
                    }
                    el.copy_from_slice(&new);
                    Ok(())
                }
                k => bail!(Unsupported, "{k:?} references are not copied"),
            },
            Datatype::Compound(c) => {
                for m in c.members() {
                    let s = m.datatype().size();
                    let Some(sub) = el.get_mut(m.offset()..m.offset() + s) else {
                        bail!(
                            BufferSize,
                            "compound member {:?} out of its element",
                            m.name()
                        );
                    };
                    self.remap(m.datatype(), sub)?;
                }
                Ok(())
            }
            Datatype::Array(a) => {
                let s = a.base().size();
                if s > 0 {
                    for sub in el.chunks_mut(s) {
                        self.remap(a.base(), sub)?;
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

impl FileWriter {
    /// Copy the object at `src_path` of the file `src` (a group with everything it reaches,
    /// a dataset or a committed datatype, with their attributes) to `name` in `dst_group`,
    /// as `H5Ocopy` does with its default options; returns the new object. Within this
    /// file or from another: `src` is a reader, so a copy from this file copies what the
    /// file on disk holds (what the last flush wrote: [`FileWriter::copy_within`] flushes
    /// first).
    ///
    /// Everything the source object reaches by hard links is copied once (a hard link
    /// inside it to an object outside is a copy of that object, at the first path the walk
    /// reaches it), soft, external and user-defined links as they are; committed datatypes
    /// the copied datasets and attributes share are copied with them (as anonymous ones
    /// when no copied link reaches them). The data is copied unchanged; variable-length
    /// values go to this file's global heap. Object and region references to copied objects
    /// point to their copies; to other objects they stay as they are within one file and
    /// become null references across files. `src_path` may cross soft and external links
    /// (the copy is then from the file the path ends in).
    ///
    /// Refused: `name` existing, a source of unknown kind (nothing copied), a virtual
    /// dataset or raw data in external files somewhere in the copy, a read error (what was
    /// copied so far is unlinked again and freed; committed datatypes copied as anonymous
    /// ones stay, unlinked, in the file).
    pub fn copy_object(
        &mut self,
        src: &File,
        src_path: &str,
        dst_group: ObjId,
        name: &str,
    ) -> Result<ObjId> {
        self.swmr_forbids("copying objects")?;
        self.group(dst_group)?;
        let dst_path = self.object_path(dst_group)?.to_owned();
        ensure!(
            !self.exists(dst_group, name),
            AlreadyExists,
            "{dst_path}: {name:?} already exists"
        );
        let loc = src
            .locate(src_path)
            .map_err(|e| rerr(e).at_path(src_path))?;
        let obj = loc
            .file
            .object(loc.addr)
            .map_err(|e| rerr(e).at_path(src_path))?;
        let kind = obj.kind();
        if kind == ObjectKind::Unknown {
            bail!(Unsupported, "{src_path}: an object of unknown kind");
        }
        let outside = if self.is_file(&loc.file) {
            Outside::Keep
        } else {
            Outside::Null
        };
        let opts = CopyOptions {
            dataset_hook: None,
            strict: true,
            max_read: 0,
        };
        let top = Found {
            kind,
            path: loc.path.clone(),
            parent: Addr::UNDEF,
            name: name.to_owned(),
        };
        let r = {
            let mut c = Copier::new(&loc.file, self, &opts, outside);
            c.top_parent = Some(dst_group);
            c.copy_tree(loc.addr, top, true, &opts)
                .and_then(|()| c.id_of(loc.addr))
        };
        if r.is_err() && self.exists(dst_group, name) {
            // What was copied goes again.
            let _ = self.unlink(dst_group, name);
        }
        r
    }

    /// Copy the object at `src_path` (relative to `base`, or absolute) of this file to
    /// `name` in `dst_group`, objects created or changed since the last flush included:
    /// the writer flushes, then copies from a reader of the file it just wrote with
    /// [`FileWriter::copy_object`] (objects keep their addresses at a flush, so the reader's
    /// view is the writer's).
    pub fn copy_within(
        &mut self,
        base: ObjId,
        src_path: &str,
        dst_group: ObjId,
        name: &str,
    ) -> Result<ObjId> {
        self.swmr_forbids("copying objects")?;
        let full = self.full_path(base, src_path)?;
        self.open(self.root(), &full)
            .map_err(|e| e.at_path(src_path))?;
        self.flush()?;
        let src = File::open(self.path()).map_err(|e| {
            Error::new(
                ErrorKind::Io,
                format!("cannot read {} back: {e}", self.path().display()),
            )
        })?;
        self.copy_object(&src, &full, dst_group, name)
    }

    /// Whether the reader `f` reads the file this writer writes.
    fn is_file(&self, f: &File) -> bool {
        let canon = |p: &Path| std::fs::canonicalize(p).ok();
        match (f.path().and_then(canon), canon(self.path())) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        }
    }

    /// Open an existing file for writing, whatever format it uses (files the reference
    /// library wrote in either format, and ours), modifying it where it is.
    ///
    /// Nothing is rewritten that is not changed: objects keep their addresses (references
    /// stored in the file stay valid), raw data is not copied, the headers and structures of
    /// objects not modified stay byte for byte, the user block is kept; opening and closing
    /// without a change leaves the file as it was. New objects, chunks and structures go to
    /// the end of the file or to space earlier flushes freed. A modified object's header is
    /// rewritten where it is (a continuation chunk in new space when its messages no longer
    /// fit), keeping every message the writer does not model (modification times, fill
    /// value and filter messages as stored, unknown messages...); its symbol table, link or
    /// attribute storage and chunk index are rebuilt in new space, of the same kind (a
    /// version 1 B-tree chunk index stays one, a version 4 index keeps its type). Flushes
    /// follow the crash-safe order of [`FileWriter::flush`]. See the `inplace` module.
    ///
    /// Supported changes: new groups, datasets, committed datatypes, attributes and links
    /// anywhere; writes into datasets of every layout (contiguous and compact in place,
    /// chunks copied on write, new chunks appended); resizes within the maximum dimensions;
    /// attributes overwritten; links removed and moved, objects freed, attributes deleted
    /// and renamed, objects copied (see [`FileWriter::unlink`], [`FileWriter::rename`],
    /// [`FileWriter::delete_attribute`], [`FileWriter::copy_within`]). Refused with an
    /// error (the file stays valid and unchanged by
    /// the refused call): any change of a virtual dataset, of a dataset with raw data in
    /// external files or with unfiltered partial edge chunks. Link and attribute creation
    /// order, where the file tracks it, is kept: new links and attributes get the next
    /// creation indexes.
    ///
    /// Space of the file's original structures that a change replaces is reused once a
    /// flush no longer references it, as the space this writer's own structures leave:
    /// continuation chunks of rewritten headers, symbol tables, dense link and attribute
    /// storage (fractal heaps with their free-space managers, version 2 B-trees), version 1
    /// B-tree, version 2 B-tree, fixed array and extensible array chunk indexes, and the
    /// headers, raw data and chunks of objects freed by [`FileWriter::unlink`]. Not reused
    /// (left in the file, unreferenced): paged fixed arrays, fractal heaps with huge objects
    /// or filters, variable-length values in global heaps, and space a writer freed but did
    /// not reuse before it was closed (no free-space manager is kept in the file). Opening
    /// reads every object's header and attributes (not the raw data), so it costs time and
    /// memory in proportion to the file's metadata.
    ///
    /// Files whose layout this writer cannot extend in place (sizes of offsets or lengths
    /// other than 8, group or chunk B-tree K values other than the defaults) are rewritten
    /// whole instead, by [`FileWriter::open_rewritten`]. Refused with an error, leaving the
    /// file untouched: a file driver's layout (family, multi, split).
    pub fn open_rw(path: impl AsRef<Path>) -> Result<FileWriter> {
        let path = path.as_ref().to_path_buf();
        match FileWriter::open_in_place(&path)? {
            Ok(w) => Ok(w),
            // What in-place modification cannot do, a rewrite can.
            Err(_why) => FileWriter::open_rewritten(&path),
        }
    }

    /// Open an existing file for writing by rewriting it whole: it is loaded into a new
    /// writer of the file's format (superblock version 0 and symbol-table groups when the
    /// file has a version 0 or 1 superblock, otherwise the latest format with superblock
    /// version 2) through [`copy_file`], written to a temporary file next to it, which then
    /// replaces the file. [`FileWriter::open_rw`] does this for files it cannot modify in
    /// place.
    ///
    /// Refused with an error, leaving the file untouched: anything the writer cannot carry
    /// over as it is (data behind a filter without an encoder, an object of unknown kind, a
    /// virtual dataset, raw data in external files, a reference to an object no link
    /// reaches), a user block before the superblock, a file driver's layout (family, multi,
    /// split).
    ///
    /// Objects move to new addresses (references stored in the file are rewritten to follow
    /// them); the file's metadata takes the writer's defaults where it had others (sizes of
    /// offsets and lengths, B-tree K values, modification times, shared object header
    /// messages are not kept; the values they describe are). Creation-order tracking and
    /// the creation indexes are kept.
    pub fn open_rewritten(path: impl AsRef<Path>) -> Result<FileWriter> {
        let path = path.as_ref().to_path_buf();
        let src = File::open(&path).map_err(|e| {
            Error::new(
                super::inplace::open_error_kind(&e),
                format!("cannot open {} for writing: {e}", path.display()),
            )
        })?;
        check_rewritable(&src, &path)?;
        let format = if src.superblock().version >= 2 {
            FileFormat::Latest
        } else {
            FileFormat::Compatible
        };
        let tmp = temp_path(&path);
        let result = (|| {
            let mut w = FileWriter::create(&tmp, format)?;
            let opts = CopyOptions {
                dataset_hook: None,
                strict: true,
                max_read: 0,
            };
            copy_file(&src, &mut w, &opts)?;
            w.flush()?;
            Ok(w)
        })();
        drop(src);
        match result {
            Ok(mut w) => {
                if let Err(e) = std::fs::rename(&tmp, &path) {
                    let _ = w.shutdown();
                    let _ = std::fs::remove_file(&tmp);
                    bail!(
                        Io,
                        "cannot replace {} with its rewritten copy: {e}",
                        path.display()
                    );
                }
                w.set_path(path);
                Ok(w)
            }
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(e)
            }
        }
    }
}

/// Refuse files whose rewrite would lose something the writer cannot write: a user block
/// before the superblock, or a file driver's layout (family, multi, split members).
fn check_rewritable(src: &File, path: &Path) -> Result<()> {
    let mut head = [0u8; 8];
    let starts_with_superblock =
        src.raw().source().read_exact_at(0, &mut head).is_ok() && head == *b"\x89HDF\r\n\x1a\n";
    if !starts_with_superblock {
        bail!(
            Unsupported,
            "{}: the file has a user block (or is not a plain HDF5 file): not rewritten",
            path.display()
        );
    }
    if let Some(v0) = &src.superblock().v0 {
        if !v0.driver_info_address.is_undef() {
            bail!(
                Unsupported,
                "{}: the file uses a file driver's layout (driver information block): not \
                 rewritten",
                path.display()
            );
        }
    }
    Ok(())
}

fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    path.with_file_name(format!(".{name}.h5rw-{}", std::process::id()))
}
