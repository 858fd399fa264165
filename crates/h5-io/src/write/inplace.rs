//! Modifying an existing file where it is ([`FileWriter::open_rw`]): every object of the
//! file enters the writer's model with its header's address, its links, attributes (their
//! stored bytes, so variable-length values keep pointing into the file's global heaps),
//! datatype, extent and storage, but stays *pristine*: nothing of it is rewritten until it
//! is modified. The first change of an object adopts it: its header is then rebuilt at
//! each flush from the messages the writer models (links or symbol table, dataspace and
//! layout, attributes, reference count, comment) plus every other message of the original
//! header kept as it was (modification times, fill value, filters, datatype, unknown
//! messages...), in chunk 0 where it was and a continuation chunk in new space. Structures
//! the object points to are rebuilt in new space when they change (copy-on-write, in the
//! crash-safe order of [`FileWriter::flush`]); raw data stays where it is: contiguous data
//! is written in place, chunks that change move, new chunks are appended.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::Arc;

use h5_format::message::fs_info::FileSpaceInfo;
use h5_format::message::{Message, MessageType};
use h5_format::object_header::{
    ObjectHeader, Prefix, RawMessage, FLAG_ATTR_CREATION_ORDER_TRACKED,
};
use h5_format::storage::{FileStorage, OffsetStorage};
use h5_format::superblock::Superblock;
use h5_format::symbol_table_entry::ScratchPad;
use h5_format::{Addr, Sizes};

use super::attribute::Attr;
use super::dataset::Dataset;
use super::extents::Blocks;
use super::file::{
    Body, FileFormat, FileWriter, ObjId, Object, CHUNK_K, GROUP_INTERNAL_K, GROUP_LEAF_K,
};
use super::group::{CreationOrder, Group, GroupOptions, LinkSpec};
use super::{bail, ensure, Error, ErrorKind, Result};
use crate::file::File;
use crate::group::Location;
use crate::link::LinkTarget;
use crate::object::ObjectKind;

/// "File space strategy" `H5F_FSPACE_STRATEGY_PAGE`.
const PAGED: u8 = 1;

/// What the writer keeps of a file it modifies in place.
#[derive(Debug)]
pub(crate) struct InPlace {
    /// The file as read when opened (pristine objects are read through it).
    src: File,
    /// The superblock as read; the end of file (and the root group's cached symbol table)
    /// change at flushes.
    pub(crate) superblock: Superblock,
    /// The objects read from the file, by object id.
    origins: HashMap<usize, Origin>,
    /// A File Space Info message (version 1) that persists free space: rewritten at each
    /// flush (see [`FileWriter::inplace_fs_info`]).
    fs_info: Option<PersistedFreeSpace>,
}

/// Where a persisting File Space Info message is: its superblock extension's header, the
/// chunk and message index of the message, and the message.
#[derive(Debug)]
struct PersistedFreeSpace {
    header: ObjectHeader,
    chunk: usize,
    message: usize,
    info: FileSpaceInfo,
}

/// An object read from the file.
#[derive(Debug)]
struct Origin {
    /// Not modified yet: nothing of it is written.
    pristine: bool,
    /// Version 1 header.
    v1: bool,
    /// The header's prefix (version 2: flags, times, phase change values kept).
    prefix: Prefix,
    /// Bytes of messages chunk 0 holds.
    body0: u64,
    /// The continuation chunks of the original header (retired at its first rewrite).
    conts: Vec<(u64, u64)>,
    /// The original messages the writer does not generate, in order.
    kept: Vec<RawMessage>,
    /// The message types the writer generates from its model.
    generated: Vec<MessageType>,
    /// Why the object cannot be modified in place at all.
    frozen: Option<String>,
}

/// The writer's id of the object loaded from `addr`.
fn loaded(ids: &HashMap<u64, ObjId>, addr: Addr) -> Result<ObjId> {
    ids.get(&addr.0).copied().ok_or_else(|| {
        Error::new(
            ErrorKind::Format,
            format!("no object was loaded from {:#x}", addr.0),
        )
    })
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
    Error::with_source(kind, format!("reading the file: {e}"), e)
}

/// The writer's kind of an error opening a file to modify it: in use (marked open for
/// writing, or locked) or an i/o error.
pub(crate) fn open_error_kind(e: &crate::Error) -> ErrorKind {
    match e.kind() {
        crate::ErrorKind::InUse => ErrorKind::InUse,
        _ => ErrorKind::Io,
    }
}

/// Why a file cannot be modified in place by this writer (it is then rewritten whole), if
/// so.
fn fallback_reason(sb: &Superblock) -> Option<String> {
    if sb.sizes != Sizes::DEFAULT {
        return Some(format!(
            "sizes of offsets and lengths {} and {} (this writer writes 8 and 8)",
            sb.sizes.offset, sb.sizes.length
        ));
    }
    if let Some(v0) = &sb.v0 {
        if v0.group_leaf_node_k != GROUP_LEAF_K || v0.group_internal_node_k != GROUP_INTERNAL_K {
            return Some(format!(
                "group B-tree K values {} and {} (this writer writes {GROUP_LEAF_K} and \
                 {GROUP_INTERNAL_K})",
                v0.group_leaf_node_k, v0.group_internal_node_k
            ));
        }
        if v0
            .indexed_storage_internal_node_k
            .is_some_and(|k| k != CHUNK_K)
        {
            return Some("a chunk B-tree K value other than 32".into());
        }
    }
    None
}

impl FileWriter {
    /// Open `path` to modify it in place. `Ok(Err(why))`: the file needs what in-place
    /// modification does not do (it can still be rewritten whole).
    pub(crate) fn open_in_place(path: &Path) -> Result<std::result::Result<FileWriter, String>> {
        let src = File::open(path).map_err(|e| {
            Error::new(
                open_error_kind(&e),
                format!("cannot open {} for writing: {e}", path.display()),
            )
        })?;
        let sb = src.superblock().clone();
        if let Some(v0) = &sb.v0 {
            ensure!(
                v0.driver_info_address.is_undef(),
                Unsupported,
                "{}: the file uses a file driver's layout (driver information block: family, \
                 multi or split files): not modified",
                path.display()
            );
        }
        if let Some(why) = fallback_reason(&sb) {
            return Ok(Err(why));
        }
        let format = if sb.version >= 2 {
            FileFormat::Latest
        } else {
            FileFormat::Compatible
        };
        let base = src.raw().base();
        let file = FileStorage::open_rw(path).map_err(|e| {
            Error::new(
                ErrorKind::Io,
                format!("cannot open {} for writing: {e}", path.display()),
            )
        })?;
        let io = OffsetStorage::new(file, base);
        // The stored end of file counts from the start of the file (the reference library
        // adds the base address); the writer's addresses count from the base.
        let eoa = sb.eof_address.get().unwrap_or(0).saturating_sub(base);
        let sb_len = sb.encoded_len() as u64;
        let mut w = FileWriter::from_existing(
            Arc::new(io),
            path.to_path_buf(),
            format,
            sb.sizes,
            sb_len,
            eoa,
        )?;
        // The file's strategy is kept: its File Space Info message stays as it is (the
        // superblock extension is not rewritten) and a paged file takes new space in pages.
        if let Some(FileSpaceInfo::V1 {
            strategy: PAGED,
            page_size,
            ..
        }) = src
            .superblock_extension()
            .and_then(|e| e.file_space_info.as_ref())
        {
            if *page_size >= super::paged::MIN_PAGE_SIZE {
                w.use_pages(*page_size);
            }
        }
        let fs_info = persisted_free_space(&src, &sb)?;
        w.inplace = Some(Box::new(InPlace {
            src: src.clone(),
            superblock: sb,
            origins: HashMap::new(),
            fs_info,
        }));
        if let Err(e) = w.load_objects(&src) {
            // Nothing was changed: the half-loaded writer must not flush when dropped.
            w.discard();
            return Err(e);
        }
        Ok(Ok(w))
    }

    /// Enter every object reachable from the root group into the model, pristine.
    fn load_objects(&mut self, src: &File) -> Result<()> {
        let root = src.root_address();
        let mut ids: HashMap<u64, ObjId> = HashMap::new();
        let mut groups: Vec<(ObjId, Addr, String)> = Vec::new();
        let mut queue = VecDeque::from([(root, "/".to_owned())]);
        ids.insert(root.0, self.load_object(src, root, "/")?);
        // Breadth first: every object at the first path that reaches it.
        let mut links: Vec<(ObjId, String, LinkTarget, Option<u64>)> = Vec::new();
        while let Some((addr, path)) = queue.pop_front() {
            let gid = loaded(&ids, addr)?;
            groups.push((gid, addr, path.clone()));
            let g = crate::group::Group::at(Location {
                file: src.clone(),
                addr,
                path: path.clone(),
            })
            .map_err(|e| rerr(e).at_path(&path))?;
            for l in g.links().map_err(|e| rerr(e).at_path(&path))? {
                if let LinkTarget::Hard(a) = &l.target {
                    if let std::collections::hash_map::Entry::Vacant(slot) = ids.entry(a.0) {
                        let child = crate::group::join(&path, &l.name);
                        let id = self.load_object(src, *a, &child)?;
                        slot.insert(id);
                        if matches!(self.object(id)?.body, Body::Group(_)) {
                            queue.push_back((*a, child));
                        }
                    }
                }
                links.push((gid, l.name, l.target, l.creation_order));
            }
        }
        for (gid, name, target, corder) in links {
            let spec = match target {
                LinkTarget::Hard(a) => LinkSpec::Hard(loaded(&ids, a)?),
                LinkTarget::Soft(s) => LinkSpec::Soft(s),
                LinkTarget::External { file, path } => LinkSpec::External { file, path },
                LinkTarget::UserDefined { link_type, data } => {
                    LinkSpec::UserDefined { link_type, data }
                }
            };
            if let Body::Group(g) = &mut self.objects[gid.0].body {
                g.insert_loaded(name, spec, corder);
            }
        }
        // Attributes shared committed datatypes: the reference counts read from the file
        // count them already.
        for i in 0..self.objects.len() {
            self.load_attributes(src, ObjId(i), &ids)?;
        }
        for i in 0..self.objects.len() {
            if matches!(self.objects[i].body, Body::Datatype(_)) {
                let disk = self.objects[i].refcount;
                let counted = self.refcount(ObjId(i))?;
                let extra = counted - disk.min(counted);
                self.objects[i].refcount = disk.saturating_sub(extra);
            }
        }
        // A stored count below the hard links (and sharing datasets) the file has would let
        // removing one link free an object still in use: the count is at least those.
        let mut floor: HashMap<usize, u32> = HashMap::new();
        for o in &self.objects {
            if let Body::Group(g) = &o.body {
                for l in g.links.values() {
                    if let LinkSpec::Hard(c) = l {
                        *floor.entry(c.0).or_default() += 1;
                    }
                }
            }
        }
        for i in 0..self.objects.len() {
            if let Some(t) = self.loaded_shared_type(ObjId(i)) {
                *floor.entry(t.0).or_default() += 1;
            }
        }
        for (i, n) in floor {
            if let Some(o) = self.objects.get_mut(i) {
                o.refcount = o.refcount.max(n);
            }
        }
        Ok(())
    }

    /// Enter one object (its attributes come later).
    fn load_object(&mut self, src: &File, addr: Addr, path: &str) -> Result<ObjId> {
        let obj = src.object(addr).map_err(|e| rerr(e).at_path(path))?;
        let h: &ObjectHeader = &obj.header;
        let sizes = src.sizes();
        let loc = Location {
            file: src.clone(),
            addr,
            path: path.to_owned(),
        };
        let mut frozen = None;
        let body = match obj.kind() {
            ObjectKind::Group => {
                let mut g = Group::new(self);
                if let Ok(Some(Message::SymbolTable(st))) = obj.message(MessageType::SYMBOL_TABLE) {
                    g.set_symbol_table(st.btree_address.0, st.heap_address.0);
                }
                // Link creation order, as tracked: the next index continues the file's.
                if let Ok(Some(Message::LinkInfo(li))) = obj.message(MessageType::LINK_INFO) {
                    g.set_loaded_order(
                        GroupOptions::of_source(&obj).link_order,
                        li.max_creation_index.unwrap_or(0),
                    );
                }
                Body::Group(g)
            }
            ObjectKind::Dataset => {
                let ds =
                    crate::dataset::Dataset::at(loc.clone()).map_err(|e| rerr(e).at_path(path))?;
                match Dataset::loaded(&ds) {
                    Ok(d) => Body::Dataset(Box::new(d)),
                    Err(e) => {
                        // Kept as it is; any change refused. A stand-in model gives its kind.
                        frozen = Some(e.message().to_owned());
                        Body::Dataset(Box::new(Dataset::stand_in(
                            ds.datatype().clone(),
                            ds.dataspace().clone(),
                        )))
                    }
                }
            }
            ObjectKind::Datatype => Body::Datatype(
                crate::dataset::datatype_of(&obj).map_err(|e| rerr(e).at_path(path))?,
            ),
            ObjectKind::Unknown => bail!(
                Unsupported,
                "{path}: an object of unknown kind at {:#x}",
                addr.0
            ),
        };
        let v1 = h.version() == 1;
        let refcount = match &h.prefix {
            Prefix::V1 { refcount, .. } => *refcount,
            Prefix::V2 { .. } => match obj.message(MessageType::REFCOUNT) {
                Ok(Some(Message::RefCount(r))) => r.count,
                _ => 1,
            },
        };
        let comment = match obj.message(MessageType::COMMENT) {
            Ok(Some(Message::Comment(c))) => Some(c.comment.clone()),
            _ => None,
        };
        let mut generated = vec![
            MessageType::NIL,
            MessageType::CONTINUATION,
            MessageType::REFCOUNT,
            MessageType::COMMENT,
        ];
        match &body {
            Body::Group(_) => generated.extend([
                MessageType::SYMBOL_TABLE,
                MessageType::LINK_INFO,
                MessageType::GROUP_INFO,
                MessageType::LINK,
            ]),
            Body::Dataset(_) => generated.extend([MessageType::DATASPACE, MessageType::LAYOUT]),
            _ => {}
        }
        generated.extend([MessageType::ATTRIBUTE, MessageType::ATTRIBUTE_INFO]);
        let kept: Vec<RawMessage> = h
            .messages()
            .filter(|m| !generated.contains(&m.kind))
            .cloned()
            .collect();
        let conts: Vec<(u64, u64)> = h
            .chunks
            .iter()
            .enumerate()
            .skip(1)
            .map(|(i, c)| (c.address.0, h.chunk_size(i) as u64))
            .collect();
        let cap0 = h.chunk_size(0) as u64;
        let prefix_len = cap0 - chunk_body(h, 0);
        let _ = sizes;
        let attr_next = match obj.message(MessageType::ATTRIBUTE_INFO) {
            Ok(Some(Message::AttributeInfo(ai))) => u32::from(ai.max_creation_index.unwrap_or(0)),
            _ => 0,
        };
        let id = ObjId(self.objects.len());
        self.objects.push(Object {
            addr: addr.0,
            cap0,
            cont: None,
            refcount,
            attrs: Vec::new(),
            attr_index: HashMap::new(),
            path: path.to_owned(),
            dense_attrs: None,
            attrs_dirty: false,
            attr_order: CreationOrder::of_attributes(&obj),
            attr_next,
            comment,
            freed: false,
            body,
        });
        self.by_addr.insert(addr.0, id);
        let origin = Origin {
            pristine: true,
            v1,
            prefix: h.prefix.clone(),
            body0: cap0 - prefix_len,
            conts,
            kept,
            generated,
            frozen,
        };
        if let Some(ip) = &mut self.inplace {
            ip.origins.insert(id.0, origin);
        }
        Ok(id)
    }

    /// The attributes of a loaded object, their stored bytes as they are.
    fn load_attributes(&mut self, src: &File, id: ObjId, ids: &HashMap<u64, ObjId>) -> Result<()> {
        let o = self.object(id)?;
        let loc = Location {
            file: src.clone(),
            addr: Addr(o.addr),
            path: o.path.clone(),
        };
        let path = o.path.clone();
        let attrs = crate::attribute::attributes_by_creation_order(&loc)
            .or_else(|_| crate::attribute::attributes(&loc))
            .map_err(|e| rerr(e).at_path(&path))?;
        let mut out = Vec::with_capacity(attrs.len());
        for (i, a) in attrs.into_iter().enumerate() {
            let (data, datatype) = a.read_raw();
            // Untracked attributes keep their order of storage.
            let crt_idx = a
                .creation_order()
                .map_or(i, |c| c.min(u64::from(u16::MAX - 1)) as usize);
            out.push(Attr {
                crt_idx: u16::try_from(crt_idx).unwrap_or(u16::MAX - 1),
                name: a.name().to_owned(),
                datatype,
                committed: a.committed_type().and_then(|c| ids.get(&c.0).copied()),
                space: a.dataspace().clone(),
                data,
            });
        }
        self.objects[id.0].set_attrs(out);
        Ok(())
    }

    /// For a dataset read from the file whose datatype message is shared: the committed
    /// datatype it names (its reference count, as read, counts the dataset).
    pub(crate) fn loaded_shared_type(&self, id: ObjId) -> Option<ObjId> {
        let o = self.origin(id)?;
        let m = o.kept.iter().find(|m| {
            m.kind == MessageType::DATATYPE
                && m.flags.0 & h5_format::message::MessageFlags::SHARED != 0
        })?;
        match m.decode(self.sizes).ok()? {
            Message::Shared { shared, .. } => match shared.location {
                h5_format::message::shared::SharedLocation::Committed(a) => self.object_at(a.0),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether `id` is an object read from the file and not modified yet.
    pub(crate) fn is_pristine(&self, id: ObjId) -> bool {
        self.origin(id).is_some_and(|o| o.pristine)
    }

    /// For an object read from the file: whether its header is version 1.
    pub(crate) fn loaded_v1(&self, id: ObjId) -> Option<bool> {
        self.origin(id).map(|o| o.v1)
    }

    fn origin(&self, id: ObjId) -> Option<&Origin> {
        self.inplace.as_ref()?.origins.get(&id.0)
    }

    /// The first change of an object read from the file: from now on its header is written
    /// at flushes. Refused for objects the model cannot rewrite.
    pub(crate) fn adopt(&mut self, id: ObjId) -> Result<()> {
        let Some(o) = self.origin(id) else {
            return Ok(());
        };
        if let Some(why) = &o.frozen {
            let path = self.object(id)?.path.clone();
            bail!(Unsupported, "{path}: {why}");
        }
        // A chunked dataset's chunks enter the model so its index can be rebuilt.
        let chunked = match &self.object(id)?.body {
            Body::Dataset(d) => d.chunk_grid().is_some(),
            _ => false,
        };
        if chunked {
            self.load_chunks(id)?;
        }
        // The structures on disk (symbol table or dense links, chunk index, dense attributes)
        // are retired when the writer rebuilds them or frees the object; one that cannot be
        // read whole is left where it is.
        let (body, attrs) = self.loaded_structures(id);
        self.own_blocks((id.0, 0), body);
        self.own_blocks((id.0, 1), attrs);
        if let Some(ip) = &mut self.inplace {
            if let Some(o) = ip.origins.get_mut(&id.0) {
                o.pristine = false;
            }
        }
        Ok(())
    }

    /// The blocks of the structures a loaded object's header points to, as far as this
    /// writer rebuilds them: for what the body points to (a group's symbol table or dense
    /// link storage, a dataset's version 1 B-tree, fixed array, extensible array or version 2
    /// B-tree chunk index) and for dense attribute storage. Each is all or nothing (see the
    /// `extents` module).
    fn loaded_structures(&self, id: ObjId) -> (Blocks, Blocks) {
        use super::extents::Extents;
        use h5_format::btree::v1::NodeType;
        use h5_format::message::layout::{ChunkIndex, LayoutClass};
        let Some(ip) = &self.inplace else {
            return (Vec::new(), Vec::new());
        };
        let Ok(o) = self.object(id) else {
            return (Vec::new(), Vec::new());
        };
        let Ok(obj) = ip.src.object(Addr(o.addr)) else {
            return (Vec::new(), Vec::new());
        };
        let msg = |t| obj.message(t).ok().flatten();
        let dense = |w: &Self, heap: Addr, names: Addr, order: Option<Addr>, out: &mut Extents| {
            w.fractal_heap_extents(heap.0, out)?;
            w.btree2_extents(names.0, out)?;
            match order {
                Some(a) if !a.is_undef() => w.btree2_extents(a.0, out),
                _ => Ok(()),
            }
        };
        let mut body = Extents::default();
        let r = match (msg(MessageType::SYMBOL_TABLE), msg(MessageType::LINK_INFO)) {
            (Some(Message::SymbolTable(st)), _) => {
                self.symbol_table_extents(st.btree_address.0, st.heap_address.0, &mut body)
            }
            (_, Some(Message::LinkInfo(li))) if !li.fractal_heap_address.is_undef() => dense(
                self,
                li.fractal_heap_address,
                li.name_btree_address,
                li.creation_order_btree_address,
                &mut body,
            ),
            _ => match msg(MessageType::LAYOUT) {
                Some(Message::Layout(l)) => match &l.class {
                    LayoutClass::Chunked { index, address, .. } if !address.is_undef() => {
                        match index {
                            None => self.v1_btree_extents(
                                address.0,
                                NodeType::Chunk,
                                obj_rank(&obj),
                                None,
                                &mut body,
                            ),
                            Some(ChunkIndex::FixedArray { .. }) => {
                                self.fixed_array_extents(address.0, &mut body)
                            }
                            Some(ChunkIndex::BTreeV2 { .. }) => {
                                self.btree2_extents(address.0, &mut body)
                            }
                            Some(ChunkIndex::ExtensibleArray { .. }) => {
                                self.extensible_array_extents(address.0, &mut body)
                            }
                            _ => Ok(()),
                        }
                    }
                    _ => Ok(()),
                },
                _ => Ok(()),
            },
        };
        let body = if r.is_ok() { body.blocks } else { Vec::new() };
        let mut attrs = Extents::default();
        let r = match msg(MessageType::ATTRIBUTE_INFO) {
            Some(Message::AttributeInfo(ai)) if !ai.fractal_heap_address.is_undef() => dense(
                self,
                ai.fractal_heap_address,
                ai.name_btree_address,
                ai.creation_order_btree_address,
                &mut attrs,
            ),
            _ => Ok(()),
        };
        let attrs = if r.is_ok() { attrs.blocks } else { Vec::new() };
        (body, attrs)
    }

    /// Read where every stored chunk of a chunked dataset is.
    fn load_chunks(&mut self, id: ObjId) -> Result<()> {
        let Some(ip) = &self.inplace else {
            return Ok(());
        };
        let src = ip.src.clone();
        let (addr, path) = {
            let o = self.object(id)?;
            (Addr(o.addr), o.path.clone())
        };
        let ds = crate::dataset::Dataset::at(Location {
            file: src.clone(),
            addr,
            path: path.clone(),
        })
        .map_err(|e| rerr(e).at_path(&path))?;
        let h5_format::message::layout::LayoutClass::Chunked { index, address, .. } =
            &ds.layout().class
        else {
            return Ok(());
        };
        let Some(chunk) = ds.chunk_dims() else {
            return Ok(());
        };
        let chunk_bytes = chunk
            .iter()
            .try_fold(ds.element_size() as u64, |a, &c| a.checked_mul(c))
            .ok_or_else(|| Error::new(ErrorKind::LimitExceeded, "chunk too large"))?;
        let index_kind = *index;
        let idx = crate::chunks::Index::open(
            &src,
            index_kind,
            *address,
            ds.dataspace().dims(),
            ds.dataspace().maxdims(),
            &chunk,
            chunk_bytes,
            !ds.filters().is_empty(),
        )
        .map_err(|e| rerr(e).at_path(&path))?;
        // The implicit index holds every chunk up to the maximum dimensions.
        let extent = if matches!(
            index_kind,
            Some(h5_format::message::layout::ChunkIndex::Implicit)
        ) {
            ds.dataspace().maxdims().to_vec()
        } else {
            ds.dataspace().dims().to_vec()
        };
        let grid: Vec<u64> = extent
            .iter()
            .zip(&chunk)
            .map(|(&d, &c)| d.div_ceil(c.max(1)))
            .collect();
        let total: u64 = grid.iter().product();
        let mut found = Vec::new();
        let mut scaled = vec![0u64; grid.len()];
        for _ in 0..total {
            if let Some(cl) = idx
                .lookup(&src, &scaled)
                .map_err(|e| rerr(e).at_path(&path))?
            {
                let size = if ds.filters().is_empty() {
                    chunk_bytes
                } else {
                    cl.size
                };
                found.push((scaled.clone(), cl.addr.0, size, cl.filter_mask));
            }
            for k in (0..grid.len()).rev() {
                scaled[k] += 1;
                if scaled[k] < grid[k] {
                    break;
                }
                scaled[k] = 0;
            }
        }
        if let Body::Dataset(d) = &mut self.objects[id.0].body {
            for (s, a, size, mask) in found {
                d.set_loaded_chunk(s, a, size, mask);
            }
        }
        Ok(())
    }

    /// For an object read from the file: whether its header is version 1, its prefix, the
    /// body bytes of chunk 0 and the size of a message header.
    pub(crate) fn loaded_shape(
        &self,
        id: ObjId,
        refcount: u32,
    ) -> Option<(bool, Prefix, u64, u64)> {
        let o = self.origin(id)?;
        let (prefix, hl) = match &o.prefix {
            Prefix::V1 { .. } => (
                Prefix::V1 {
                    // Used only when the header has more messages than the field holds:
                    // saturated (a zero count makes the reference library refuse the header).
                    num_messages: u16::MAX,
                    refcount,
                },
                8,
            ),
            Prefix::V2 { flags, .. } => (
                o.prefix.clone(),
                if flags & FLAG_ATTR_CREATION_ORDER_TRACKED != 0 {
                    6
                } else {
                    4
                },
            ),
        };
        Some((o.v1, prefix, o.body0, hl))
    }

    /// The messages of a loaded object's header: the original ones the writer does not
    /// generate, then the generated ones of the kinds it does.
    pub(crate) fn merge_loaded(&self, id: ObjId, generated: Vec<RawMessage>) -> Vec<RawMessage> {
        let Some(o) = self.origin(id) else {
            return generated;
        };
        let mut out = o.kept.clone();
        out.extend(
            generated
                .into_iter()
                .filter(|m| o.generated.contains(&m.kind)),
        );
        out
    }

    /// The original continuation chunks of a loaded header, once (when it is first
    /// rewritten).
    pub(crate) fn take_original_conts(&mut self, id: ObjId) -> Vec<(u64, u64)> {
        self.inplace
            .as_mut()
            .and_then(|ip| ip.origins.get_mut(&id.0))
            .map(|o| std::mem::take(&mut o.conts))
            .unwrap_or_default()
    }

    /// A file that persists its free space (version 1 File Space Info message): the
    /// free-space managers the file names no longer describe it once this writer has taken
    /// space, and the reference library, trusting them and the end of file recorded before
    /// them ("EOA before free-space header and section info allocation"), would shrink the
    /// file back to that end on its next change. So, as h5clear drops free space "to the
    /// floor": the manager addresses become undefined and the recorded end of file is the
    /// new one; strategy, persistence, threshold and page size stay.
    pub(crate) fn inplace_fs_info(&mut self) -> Result<()> {
        let eoa = self.eoa_now();
        let sizes = self.sizes;
        let Some(r) = self.inplace.as_mut().and_then(|ip| ip.fs_info.as_mut()) else {
            return Ok(());
        };
        if let FileSpaceInfo::V1 {
            managers,
            eoa_pre_fsm_alloc,
            ..
        } = &mut r.info
        {
            managers.iter_mut().for_each(|m| *m = Addr::UNDEF);
            *eoa_pre_fsm_alloc = Addr(eoa);
        }
        let mut w = h5_format::Writer::new(sizes);
        r.info.encode(&mut w);
        let mut bytes = w.as_slice().to_vec();
        let Some(m) = r
            .header
            .chunks
            .get_mut(r.chunk)
            .and_then(|c| c.messages.get_mut(r.message))
        else {
            bail!(Format, "superblock extension: no file space info message");
        };
        ensure!(
            bytes.len() <= m.data.len(),
            Format,
            "superblock extension: a file space info message of {} bytes where {} were",
            bytes.len(),
            m.data.len()
        );
        bytes.resize(m.data.len(), 0);
        m.data = bytes;
        let at = r.header.chunks[r.chunk].address.0;
        let mut w = h5_format::Writer::new(sizes);
        r.header
            .encode_chunk(r.chunk, &mut w)
            .map_err(|e| Error::new(ErrorKind::Format, format!("superblock extension: {e}")))?;
        let bytes = w.as_slice().to_vec();
        self.set_block(at, bytes);
        Ok(())
    }

    /// The superblock to write for a file modified in place: the one read, with the new end
    /// of file and the root group's symbol table.
    pub(crate) fn inplace_superblock(&self) -> Option<Superblock> {
        let ip = self.inplace.as_ref()?;
        let mut sb = ip.superblock.clone();
        sb.eof_address = Addr(self.eoa_now() + sb.base_address.get().unwrap_or(0));
        if let Some(v0) = &mut sb.v0 {
            // A cached symbol table (scratch-pad) follows the root group's, which may have
            // moved; an entry that caches nothing stays so (readers do not need it).
            if let ScratchPad::Group { .. } = v0.root_group.scratch {
                if let Some(Body::Group(g)) = self.objects.first().map(|o| &o.body) {
                    if let s @ ScratchPad::Group { .. } = g.scratch_pad() {
                        v0.root_group.scratch = s;
                    }
                }
            }
        }
        Some(sb)
    }

    /// Loaded committed datatypes shared by objects that will be written: adopted, so
    /// their reference counts follow.
    pub(crate) fn adopt_shared_types(&mut self) -> Result<()> {
        if self.inplace.is_none() {
            return Ok(());
        }
        let mut want = Vec::new();
        for (i, o) in self.objects.iter().enumerate() {
            if o.freed || self.is_pristine(ObjId(i)) {
                continue;
            }
            if let Body::Dataset(d) = &o.body {
                want.extend(d.committed_type());
            }
            want.extend(o.attrs.iter().filter_map(|a| a.committed));
        }
        for id in want {
            if self.is_pristine(id) {
                self.adopt(id)?;
            }
        }
        Ok(())
    }
}

/// The persisting File Space Info message (version 1) of the file's superblock extension,
/// if any.
fn persisted_free_space(src: &File, sb: &Superblock) -> Result<Option<PersistedFreeSpace>> {
    let persists = matches!(
        src.superblock_extension()
            .and_then(|e| e.file_space_info.as_ref()),
        Some(FileSpaceInfo::V1 { persist: true, .. })
    );
    if !persists || sb.extension_address.is_undef() {
        return Ok(None);
    }
    let header = crate::object::read_header(src.raw(), sb.extension_address).map_err(rerr)?;
    for (c, chunk) in header.chunks.iter().enumerate() {
        for (i, m) in chunk.messages.iter().enumerate() {
            if m.kind != MessageType::FILE_SPACE_INFO {
                continue;
            }
            if let Ok(Message::FileSpaceInfo(info)) = m.decode(src.sizes()) {
                return Ok(Some(PersistedFreeSpace {
                    header: header.clone(),
                    chunk: c,
                    message: i,
                    info,
                }));
            }
        }
    }
    Ok(None)
}

/// Bytes of messages (and gap) of chunk `i`.
fn chunk_body(h: &ObjectHeader, i: usize) -> u64 {
    let hl = match &h.prefix {
        Prefix::V1 { .. } => 8,
        Prefix::V2 { flags, .. } if flags & FLAG_ATTR_CREATION_ORDER_TRACKED != 0 => 6,
        Prefix::V2 { .. } => 4,
    };
    h.chunks.get(i).map_or(0, |c| {
        c.messages
            .iter()
            .map(|m| hl + m.data.len() as u64)
            .sum::<u64>()
            + c.gap as u64
    })
}

/// The rank of a dataset's dataspace (0 when it has none).
fn obj_rank(obj: &crate::object::Object) -> usize {
    match obj.message(MessageType::DATASPACE) {
        Ok(Some(Message::Dataspace(d))) => d.dims.len(),
        _ => 0,
    }
}
