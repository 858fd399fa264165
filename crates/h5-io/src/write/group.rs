//! Groups and links: symbol tables (local heap, version 1 B-tree, symbol table nodes) in the
//! compatible format, link messages in the header otherwise (or dense storage: a fractal
//! heap of link messages indexed by version 2 B-trees of name hashes and, when indexed,
//! creation order); creation by path; link creation-order tracking.
//!
//! A group that tracks link creation order is a "new-style" group (Link Info message and link
//! messages) in the compatible format too, as the reference library makes it; its header
//! stays a version 1 header unless the group also tracks attribute creation order.

use std::collections::BTreeMap;

use h5_format::btree::v1::{self as btree, Keys, Node, NodeType};
use h5_format::heap::local::{LocalHeap, FREE_NULL};
use h5_format::message::group_info::GroupInfo;
use h5_format::message::link::{Link, LinkTarget};
use h5_format::message::link_info::LinkInfo;
use h5_format::message::symbol_table::SymbolTableMessage;
use h5_format::message::Message;
use h5_format::symbol_table::{CachedInfo, SymbolTableEntry, SymbolTableNode};
use h5_format::symbol_table_entry::ScratchPad;
use h5_format::{Addr, Writer};

use super::heap::{DenseAddrs, DenseKind};

use super::file::{align8, Body, FileFormat, FileWriter, ObjId, GROUP_INTERNAL_K, GROUP_LEAF_K};
use super::{bail, ensure, Error, ErrorKind, Result};

/// What a link points to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LinkSpec {
    /// A hard link to an object of this file.
    Hard(ObjId),
    /// A soft link: a path, resolved when followed (may dangle).
    Soft(String),
    /// An external link: an object path in another file.
    External {
        /// The other file's name.
        file: String,
        /// The object's path in it.
        path: String,
    },
    /// A user-defined link (link type 65 to 255): its type and data, stored as they are
    /// (the group then keeps link messages, in either format).
    UserDefined {
        /// The link type.
        link_type: u8,
        /// The link's data.
        data: Vec<u8>,
    },
}

/// Whether the creation order of a group's links or an object's attributes is tracked
/// (`H5P_CRT_ORDER_TRACKED`) and indexed (`H5P_CRT_ORDER_INDEXED`, which implies tracked).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CreationOrder {
    /// Not tracked (the default): order by name only.
    #[default]
    Untracked,
    /// Tracked: every link or attribute stores its creation index.
    Tracked,
    /// Tracked and indexed: dense storage also has a version 2 B-tree by creation index.
    Indexed,
}

impl CreationOrder {
    /// `Indexed` when `index`, else `Tracked` when `track`, else `Untracked` (h5py's
    /// `track_order=True` is `Indexed`).
    pub fn new(track: bool, index: bool) -> CreationOrder {
        if index {
            CreationOrder::Indexed
        } else if track {
            CreationOrder::Tracked
        } else {
            CreationOrder::Untracked
        }
    }

    /// Whether creation order is tracked.
    pub fn is_tracked(self) -> bool {
        self != CreationOrder::Untracked
    }

    /// Whether creation order is indexed.
    pub fn is_indexed(self) -> bool {
        self == CreationOrder::Indexed
    }

    /// The link creation order a group read from a file has, from its Link Info message
    /// (what a copy keeps).
    pub fn of_links(obj: &crate::object::Object) -> CreationOrder {
        match obj.message(h5_format::message::MessageType::LINK_INFO) {
            Ok(Some(Message::LinkInfo(li))) => CreationOrder::new(
                li.max_creation_index.is_some(),
                li.creation_order_btree_address.is_some(),
            ),
            _ => CreationOrder::Untracked,
        }
    }

    /// The attribute creation order an object read from a file has, from its version 2
    /// header's flags (what a copy keeps).
    pub fn of_attributes(obj: &crate::object::Object) -> CreationOrder {
        use h5_format::object_header::{
            Prefix, FLAG_ATTR_CREATION_ORDER_INDEXED, FLAG_ATTR_CREATION_ORDER_TRACKED,
        };
        match obj.header.prefix {
            Prefix::V2 { flags, .. } => CreationOrder::new(
                flags & FLAG_ATTR_CREATION_ORDER_TRACKED != 0,
                flags & FLAG_ATTR_CREATION_ORDER_INDEXED != 0,
            ),
            _ => CreationOrder::Untracked,
        }
    }

    /// The version 2 object header flag bits for attribute creation order.
    pub(crate) fn header_flags(self) -> u8 {
        use h5_format::object_header::{
            FLAG_ATTR_CREATION_ORDER_INDEXED, FLAG_ATTR_CREATION_ORDER_TRACKED,
        };
        match self {
            CreationOrder::Untracked => 0,
            CreationOrder::Tracked => FLAG_ATTR_CREATION_ORDER_TRACKED,
            CreationOrder::Indexed => {
                FLAG_ATTR_CREATION_ORDER_TRACKED | FLAG_ATTR_CREATION_ORDER_INDEXED
            }
        }
    }
}

/// How to create a group (`H5Pset_link_creation_order` and `H5Pset_attr_creation_order` of
/// a group creation property list).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GroupOptions {
    /// Creation order of the group's links.
    pub link_order: CreationOrder,
    /// Creation order of the group's attributes.
    pub attr_order: CreationOrder,
}

impl GroupOptions {
    /// Links and attributes tracked and indexed: h5py's `track_order=True`.
    pub fn track_order() -> GroupOptions {
        GroupOptions {
            link_order: CreationOrder::Indexed,
            attr_order: CreationOrder::Indexed,
        }
    }

    /// The options of a group read from a file (what a copy keeps).
    pub fn of_source(obj: &crate::object::Object) -> GroupOptions {
        GroupOptions {
            link_order: CreationOrder::of_links(obj),
            attr_order: CreationOrder::of_attributes(obj),
        }
    }
}

/// A group's links and, in the compatible format, where its symbol table lives.
#[derive(Debug)]
pub(crate) struct Group {
    pub(crate) links: BTreeMap<String, LinkSpec>,
    /// Creation index of every link (kept whether tracked or not: dense storage and link
    /// messages are written in creation order, as the reference library inserts them).
    corder: BTreeMap<String, u64>,
    /// The creation index the next link gets.
    next_corder: u64,
    /// Whether link creation order is tracked (and indexed).
    order: CreationOrder,
    /// Local heap header address (symbol-table groups), fixed at creation.
    heap_addr: u64,
    /// Local heap data segment: address and capacity.
    seg: (u64, u64),
    /// Root of the version 1 B-tree.
    btree_addr: u64,
    /// The block holding the B-tree nodes and symbol table nodes: address and capacity.
    block: (u64, u64),
    dirty: bool,
    format: FileFormat,
    /// Dense link storage (more than [`MAX_COMPACT_LINKS`] links in a link-message group):
    /// fractal heap and index addresses, rebuilt at each flush.
    dense: Option<DenseAddrs>,
}

/// Most links kept as link messages in the header (the reference library's default "max
/// compact"); more go to dense storage.
pub(crate) const MAX_COMPACT_LINKS: usize = 8;

/// Fewest links a group in dense storage keeps there when links are removed (the reference
/// library's default "min dense"); with fewer it goes back to link messages.
pub(crate) const MIN_DENSE_LINKS: usize = 6;

/// Encoded link messages of this many bytes or more do not go in a header
/// (`H5O_MESG_MAX_SIZE`): their group uses dense storage whatever its number of links.
const MAX_LINK_MESSAGE: usize = 65536;

impl Group {
    /// A new empty group of the writer's format (its symbol table, if any, is built at the
    /// first flush).
    pub(crate) fn new(w: &mut FileWriter) -> Group {
        Group::with_order(w, CreationOrder::Untracked)
    }

    /// A new empty group whose links have creation order `order` (a symbol table, when the
    /// group keeps one, is built at the first flush).
    fn with_order(w: &mut FileWriter, order: CreationOrder) -> Group {
        Group {
            links: BTreeMap::new(),
            corder: BTreeMap::new(),
            next_corder: 0,
            order,
            heap_addr: 0,
            seg: (0, 0),
            btree_addr: 0,
            block: (0, 0),
            dirty: true,
            format: w.format,
            dense: None,
        }
    }

    /// A group read from a file keeps its symbol table where it is (B-tree root and local
    /// heap) until its links change; then it is rebuilt in new space.
    pub(crate) fn set_symbol_table(&mut self, btree: u64, heap: u64) {
        self.btree_addr = btree;
        self.heap_addr = heap;
    }

    /// A group read from a file keeps its link creation order: `order` as tracked, and
    /// `next` the index the next link gets.
    pub(crate) fn set_loaded_order(&mut self, order: CreationOrder, next: u64) {
        self.order = order;
        self.next_corder = next;
    }

    /// A link of a group read from a file, with its creation index when the file has one
    /// (links without one get the next index, in the order they are entered).
    pub(crate) fn insert_loaded(&mut self, name: String, spec: LinkSpec, corder: Option<u64>) {
        let index = corder.unwrap_or(self.next_corder);
        self.next_corder = self.next_corder.max(index.saturating_add(1));
        self.corder.insert(name.clone(), index);
        self.links.insert(name, spec);
    }

    /// Whether the links are kept as a symbol table (compatible format, and no link type a
    /// symbol table cannot hold).
    pub(crate) fn is_symbol_table(&self) -> bool {
        self.format == FileFormat::Compatible
            && self.order == CreationOrder::Untracked
            && !self
                .links
                .values()
                .any(|l| matches!(l, LinkSpec::External { .. } | LinkSpec::UserDefined { .. }))
    }

    /// Whether the group has a structure outside its header (a symbol table or dense
    /// storage), as last prepared.
    pub(crate) fn has_structure(&self) -> bool {
        self.is_symbol_table() || self.dense.is_some()
    }

    /// Remove the link `name` (its creation index goes with it); the group is rebuilt at the
    /// next flush.
    pub(crate) fn remove_link(&mut self, name: &str) -> Option<LinkSpec> {
        let l = self.links.remove(name)?;
        self.corder.remove(name);
        self.dirty = true;
        Some(l)
    }

    /// The scratch-pad a symbol table entry for this group caches.
    pub(crate) fn scratch_pad(&self) -> ScratchPad {
        if self.is_symbol_table() && self.btree_addr != 0 {
            ScratchPad::Group {
                btree_address: Addr(self.btree_addr),
                heap_address: Addr(self.heap_addr),
            }
        } else {
            ScratchPad::None([0; 16])
        }
    }

    fn cached(&self) -> CachedInfo {
        match self.scratch_pad() {
            ScratchPad::Group {
                btree_address,
                heap_address,
            } => CachedInfo::Group {
                btree: btree_address,
                heap: heap_address,
            },
            _ => CachedInfo::None,
        }
    }

    /// The header messages.
    pub(crate) fn messages(&self, w: &FileWriter, _id: ObjId) -> Result<Vec<(Message, u8)>> {
        if self.is_symbol_table() {
            return Ok(vec![(
                Message::SymbolTable(SymbolTableMessage {
                    btree_address: Addr(self.btree_addr),
                    heap_address: Addr(self.heap_addr),
                }),
                0,
            )]);
        }
        let dense = self.dense.filter(|_| self.wants_dense(w).unwrap_or(true));
        let heap = dense.map_or(Addr::UNDEF, |d| Addr(d.heap));
        let mut out = vec![
            (
                Message::LinkInfo(LinkInfo {
                    max_creation_index: self.order.is_tracked().then_some(self.next_corder),
                    fractal_heap_address: heap,
                    name_btree_address: dense.map_or(Addr::UNDEF, |d| Addr(d.names)),
                    creation_order_btree_address: self
                        .order
                        .is_indexed()
                        .then(|| dense.and_then(|d| d.order).map_or(Addr::UNDEF, Addr)),
                }),
                0,
            ),
            (
                Message::GroupInfo(GroupInfo {
                    link_phase_change: None,
                    estimated_entry_info: None,
                }),
                0,
            ),
        ];
        if !heap.is_undef() {
            return Ok(out);
        }
        out.extend(self.link_messages(w)?.into_iter().map(|m| (m.2, 0)));
        Ok(out)
    }

    /// The link names with their creation indexes, in creation order.
    fn names_in_order(&self) -> Vec<(&str, u64)> {
        let mut v: Vec<(&str, u64)> = self
            .links
            .keys()
            .map(|n| (n.as_str(), self.corder.get(n).copied().unwrap_or(u64::MAX)))
            .collect();
        v.sort_by_key(|&(n, c)| (c, n));
        v
    }

    /// The links as link messages, in creation order, with their names and creation
    /// indexes (stored in the messages when the group tracks creation order).
    fn link_messages(&self, w: &FileWriter) -> Result<Vec<(&str, u64, Message)>> {
        let mut out = Vec::with_capacity(self.links.len());
        for (name, corder) in self.names_in_order() {
            let Some(l) = self.links.get(name) else {
                continue;
            };
            let target = match l {
                LinkSpec::Hard(id) => LinkTarget::Hard(Addr(w.address(*id)?)),
                LinkSpec::Soft(p) => LinkTarget::Soft(p.as_bytes().to_vec()),
                LinkSpec::External { file, path } => LinkTarget::External {
                    version_flags: 0,
                    file: file.as_bytes().to_vec(),
                    path: path.as_bytes().to_vec(),
                },
                LinkSpec::UserDefined { link_type, data } => LinkTarget::UserDefined {
                    link_type: *link_type,
                    data: data.clone(),
                },
            };
            let charset = (!name.is_ascii()).then_some(1);
            out.push((
                name,
                corder,
                Message::Link(Link {
                    creation_order: self.order.is_tracked().then_some(corder),
                    charset,
                    name: name.as_bytes().to_vec(),
                    target,
                }),
            ));
        }
        Ok(out)
    }

    /// Whether the links go to dense storage, as the reference library decides when links
    /// are added (`H5G_obj_insert`) and removed: more than [`MAX_COMPACT_LINKS`] of them,
    /// (once dense) at least [`MIN_DENSE_LINKS`], or a link message too large for a header
    /// message (a body of [`MAX_LINK_MESSAGE`] bytes or more).
    fn wants_dense(&self, w: &FileWriter) -> Result<bool> {
        let n = self.links.len();
        if n > MAX_COMPACT_LINKS || (self.dense.is_some() && n >= MIN_DENSE_LINKS) {
            return Ok(true);
        }
        Ok(self
            .link_messages(w)?
            .iter()
            .any(|(_, _, m)| m.to_bytes(w.sizes).len() >= MAX_LINK_MESSAGE))
    }

    /// Write dense link storage: the link messages in a fractal heap (in creation order),
    /// indexed by a version 2 B-tree of name hashes (record type 5) and, when creation order
    /// is indexed, one of creation indexes (record type 6).
    fn prepare_dense(&mut self, w: &mut FileWriter) -> Result<()> {
        if !self.wants_dense(w)? {
            self.dense = None;
            return Ok(());
        }
        if self.dense.is_some() && !self.dirty {
            return Ok(());
        }
        // `link_messages` gives the links in creation order, as the heap wants them.
        let entries = self
            .link_messages(w)?
            .into_iter()
            .map(|(name, corder, m)| (name.to_owned(), corder, m.to_bytes(w.sizes)))
            .collect();
        self.dense =
            Some(w.write_dense_storage(DenseKind::Links, entries, self.order.is_indexed())?);
        self.dirty = false;
        Ok(())
    }

    /// Rebuild the symbol table (local heap, symbol table nodes, B-tree) when links changed.
    pub(crate) fn prepare(&mut self, w: &mut FileWriter) -> Result<()> {
        if !self.is_symbol_table() {
            return self.prepare_dense(w);
        }
        // Cached group info of children may change when they are rebuilt: the entries are
        // always computed again, and the structure rebuilt when they or the names changed.
        let sizes = w.sizes;
        // The local heap: the empty name at offset 0, then names (and soft link values).
        let mut seg = vec![0u8; 8];
        let mut entries = Vec::with_capacity(self.links.len());
        for (name, l) in &self.links {
            let off = push_name(&mut seg, name.as_bytes());
            let entry = match l {
                LinkSpec::Hard(id) => {
                    let o = w.object(*id)?;
                    let cache = match &o.body {
                        Body::Group(g) => g.cached(),
                        _ => CachedInfo::None,
                    };
                    SymbolTableEntry {
                        link_name_offset: off,
                        object_header: Addr(o.addr),
                        cache,
                    }
                }
                LinkSpec::Soft(p) => {
                    let v = push_name(&mut seg, p.as_bytes());
                    SymbolTableEntry {
                        link_name_offset: off,
                        object_header: Addr::UNDEF,
                        cache: CachedInfo::SymbolicLink {
                            link_value_offset: u32::try_from(v).map_err(|_| {
                                Error::new(ErrorKind::LimitExceeded, "local heap over 4 GiB")
                            })?,
                        },
                    }
                }
                LinkSpec::External { .. } | LinkSpec::UserDefined { .. } => {
                    bail!(Format, "external or user-defined link in a symbol table")
                }
            };
            entries.push(entry);
        }
        // Symbol table nodes of 2K entries; the B-tree's keys are the last name of each.
        let per_node = 2 * GROUP_LEAF_K as usize;
        let snod_size = SymbolTableNode::encoded_size(sizes, GROUP_LEAF_K) as u64;
        let node_size = btree::node_size(sizes, NodeType::Group, 0, GROUP_INTERNAL_K) as u64;
        let nnodes = entries.len().div_ceil(per_node);
        let levels = btree_levels(nnodes, GROUP_INTERNAL_K);
        // The symbol table nodes, then the B-tree's nodes, in one block (laid out so that
        // none crosses a page of paged aggregation).
        let node_sizes: Vec<u64> = std::iter::repeat_n(snod_size, nnodes)
            .chain(std::iter::repeat_n(node_size, levels.iter().sum()))
            .collect();
        let (offsets, total) = super::paged::block_layout(w.page_size(), &node_sizes);
        // The nodes and the B-tree over them, placed at `base`.
        let image = |base: u64| {
            let mut children = Vec::with_capacity(nnodes);
            let mut left = 0u64;
            let mut parts = Vec::with_capacity(offsets.len());
            for (i, n) in entries.chunks(per_node).enumerate() {
                let node = SymbolTableNode {
                    entries: n.to_vec(),
                };
                let mut buf = Writer::new(sizes);
                node.encode(&mut buf, GROUP_LEAF_K);
                let at = offsets.get(i).copied().unwrap_or(0);
                parts.push((at, buf.into_vec()));
                children.push((left, Addr(base + at)));
                left = n.last().map_or(left, |e| e.link_name_offset);
            }
            let addrs: Vec<u64> = offsets[nnodes.min(offsets.len())..]
                .iter()
                .map(|o| base + o)
                .collect();
            let (root, tree) = build_btree_at(
                sizes,
                &addrs,
                &levels,
                node_size,
                GROUP_INTERNAL_K,
                children,
                left,
                Keys::Group,
            );
            parts.extend(
                offsets[nnodes.min(offsets.len())..]
                    .iter()
                    .copied()
                    .zip(tree),
            );
            (root, super::paged::assemble(total, parts))
        };
        let seg_len = align8(seg.len() as u64);
        // Unchanged (same names, entries and caches) when it encodes to the same bytes where
        // it is: nothing is rewritten.
        if self.btree_addr != 0 && seg_len <= self.seg.1 && total == self.block.1 {
            let mut s = seg.clone();
            s.resize(self.seg.1 as usize, 0);
            let (root, bytes) = image(self.block.0);
            if root == self.btree_addr
                && w.same_bytes(self.seg.0, &s)?
                && w.same_bytes(self.block.0, &bytes)?
            {
                self.dirty = false;
                return Ok(());
            }
        }
        // Changed: the heap, its data segment and the nodes go to new space (the blocks on
        // disk stay as they are until no header references them; the flush retires them),
        // unless this flush made them (nothing on disk references those yet: they are
        // rewritten where they are, so that the addresses parents cache settle, even around
        // a cycle of groups).
        let reuse = self.btree_addr != 0
            && seg_len <= self.seg.1
            && total == self.block.1
            && [self.heap_addr, self.seg.0, self.block.0]
                .iter()
                .all(|&a| w.is_fresh(a));
        if !reuse {
            let heap_size = LocalHeap::encoded_size(sizes) as u64;
            self.heap_addr = w.alloc(heap_size);
            self.seg = (w.alloc(seg_len), seg_len);
            self.block = (w.alloc(total), total);
        }
        seg.resize(self.seg.1 as usize, 0);
        w.put(self.seg.0, &seg)?;
        let heap = LocalHeap {
            data_segment_size: self.seg.1,
            free_list_head: Some(FREE_NULL),
            data_segment: Addr(self.seg.0),
        };
        let mut hw = Writer::new(sizes);
        heap.encode(&mut hw);
        w.put(self.heap_addr, hw.as_slice())?;
        let (root, bytes) = image(self.block.0);
        w.put(self.block.0, &bytes)?;
        self.btree_addr = root;
        self.dirty = false;
        Ok(())
    }
}

/// Append a NUL-terminated name, padded to 8 bytes; return its offset.
fn push_name(seg: &mut Vec<u8>, name: &[u8]) -> u64 {
    let off = seg.len() as u64;
    seg.extend_from_slice(name);
    seg.push(0);
    seg.resize(align8(seg.len() as u64) as usize, 0);
    off
}

/// Nodes per level of a version 1 B-tree over `n` level-0 children with 2k children per
/// node, level 0 first; at least one (possibly empty) root.
pub(crate) fn btree_levels(n: usize, k: u16) -> Vec<usize> {
    let fan = 2 * k as usize;
    let mut levels = vec![n.div_ceil(fan).max(1)];
    while let Some(&last) = levels.last() {
        if last <= 1 {
            break;
        }
        levels.push(last.div_ceil(fan));
    }
    levels
}

/// Encode a version 1 B-tree over `children` (left key and address of each level-0 child,
/// in key order; `last` is the right key of the last child) as nodes of `node_size`
/// bytes at `addrs` (one per node, level 0 first). Returns the root's address and each node's
/// bytes.
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_btree_at<K: Clone>(
    sizes: h5_format::Sizes,
    addrs: &[u64],
    levels: &[usize],
    node_size: u64,
    k: u16,
    children: Vec<(K, Addr)>,
    last: K,
    make_keys: impl Fn(Vec<K>) -> Keys,
) -> (u64, Vec<Vec<u8>>) {
    let fan = 2 * k as usize;
    let mut out = Vec::with_capacity(addrs.len());
    let mut cur = children;
    let mut index = 0usize;
    let node_at = |i: usize| addrs.get(i).copied().unwrap_or(0);
    let mut root = node_at(0);
    for (level, &count) in levels.iter().enumerate() {
        let mut next = Vec::with_capacity(count);
        let groups: Vec<Vec<(K, Addr)>> = if cur.is_empty() {
            vec![Vec::new()]
        } else {
            cur.chunks(fan).map(<[_]>::to_vec).collect()
        };
        let first_keys: Vec<K> = groups
            .iter()
            .filter_map(|g| g.first().map(|c| c.0.clone()))
            .collect();
        for (j, g) in groups.iter().enumerate() {
            let at = node_at(index + j);
            let mut keys: Vec<K> = g.iter().map(|c| c.0.clone()).collect();
            if !g.is_empty() {
                keys.push(
                    first_keys
                        .get(j + 1)
                        .cloned()
                        .unwrap_or_else(|| last.clone()),
                );
            }
            let node = Node {
                level: level as u8,
                left_sibling: if j == 0 {
                    Addr::UNDEF
                } else {
                    Addr(node_at(index + j - 1))
                },
                right_sibling: if j + 1 == groups.len() {
                    Addr::UNDEF
                } else {
                    Addr(node_at(index + j + 1))
                },
                keys: make_keys(keys),
                children: g.iter().map(|c| c.1).collect(),
            };
            let mut w = Writer::new(sizes);
            node.encode(&mut w, k);
            w.put_zeros((node_size as usize).saturating_sub(w.len()));
            out.push(w.into_vec());
            if let Some(first) = g.first() {
                next.push((first.0.clone(), Addr(at)));
            }
            root = at;
        }
        index += groups.len();
        cur = next;
    }
    (root, out)
}

/// Split a path into its names (a leading `/` starts at the root; empty parts and `.` are
/// skipped).
pub(crate) fn split_path(path: &str) -> Result<(bool, Vec<&str>)> {
    let absolute = path.starts_with('/');
    let names: Vec<&str> = path
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    Ok((absolute, names))
}

impl FileWriter {
    pub(crate) fn group(&self, id: ObjId) -> Result<&Group> {
        let o = self.object(id)?;
        match &o.body {
            Body::Group(g) => Ok(g),
            _ => bail!(InvalidArgument, "{} is not a group", o.path),
        }
    }

    pub(crate) fn group_mut(&mut self, id: ObjId) -> Result<&mut Group> {
        let o = self.object_mut(id)?;
        match &mut o.body {
            Body::Group(g) => Ok(g),
            _ => bail!(InvalidArgument, "{} is not a group", o.path),
        }
    }

    /// The object a hard link at `path` (relative to `base`, or absolute) names.
    pub fn open(&self, base: ObjId, path: &str) -> Result<ObjId> {
        let (abs, names) = split_path(path)?;
        let mut cur = if abs { self.root() } else { base };
        for n in names {
            let g = self.group(cur).map_err(|e| e.at_path(path))?;
            cur = match g.links.get(n) {
                Some(LinkSpec::Hard(id)) => *id,
                Some(_) => bail!(
                    Unsupported,
                    "{path}: {n:?} is a soft or external link (not followed)"
                ),
                None => bail!(NotFound, "{path}: no link {n:?}"),
            };
        }
        Ok(cur)
    }

    /// Whether a link of that path exists.
    pub fn exists(&self, base: ObjId, path: &str) -> bool {
        let Ok((abs, mut names)) = split_path(path) else {
            return false;
        };
        let Some(last) = names.pop() else {
            return true;
        };
        let dir = names.join("/");
        let dir = if abs { format!("/{dir}") } else { dir };
        self.open(base, &dir)
            .and_then(|g| self.group(g).map(|g| g.links.contains_key(last)))
            .unwrap_or(false)
    }

    /// The names of a group's links, in name order.
    pub fn link_names(&self, group: ObjId) -> Result<Vec<String>> {
        Ok(self.group(group)?.links.keys().cloned().collect())
    }

    /// Resolve the group that will hold the last name of `path`, creating missing
    /// intermediate groups; checks everything before creating anything.
    fn parent_for(&mut self, base: ObjId, path: &str) -> Result<(ObjId, String, String)> {
        let (abs, names) = split_path(path)?;
        let Some((&last, dirs)) = names.split_last() else {
            bail!(InvalidArgument, "{path:?}: empty name");
        };
        let mut cur = if abs { self.root() } else { base };
        let mut full = if abs {
            String::new()
        } else {
            self.object(cur)?.path.trim_end_matches('/').to_owned()
        };
        // Check pass.
        let mut probe = Some(cur);
        for &d in dirs {
            if let Some(p) = probe {
                let g = self.group(p).map_err(|e| e.at_path(path))?;
                probe = match g.links.get(d) {
                    Some(LinkSpec::Hard(id)) => {
                        self.group(*id).map_err(|e| e.at_path(path))?;
                        Some(*id)
                    }
                    Some(_) => bail!(InvalidArgument, "{path}: {d:?} is not a hard link"),
                    None => None,
                };
            }
        }
        if let Some(p) = probe {
            ensure!(
                !self.group(p)?.links.contains_key(last),
                AlreadyExists,
                "{path}: {last:?} already exists"
            );
        }
        // Create pass.
        for &d in dirs {
            full.push('/');
            full.push_str(d);
            let existing = match self.group(cur)?.links.get(d) {
                Some(LinkSpec::Hard(id)) => Some(*id),
                _ => None,
            };
            cur = match existing {
                Some(id) => id,
                None => {
                    let g = Group::new(self);
                    let id = self.new_object(full.clone(), Body::Group(g))?;
                    self.insert_link(cur, d, LinkSpec::Hard(id))?;
                    id
                }
            };
        }
        full.push('/');
        full.push_str(last);
        Ok((cur, last.to_owned(), full))
    }

    pub(crate) fn insert_link(&mut self, group: ObjId, name: &str, link: LinkSpec) -> Result<()> {
        let g = self.group_mut(group)?;
        ensure!(
            !g.links.contains_key(name),
            AlreadyExists,
            "{name:?} already exists"
        );
        g.links.insert(name.to_owned(), link);
        g.corder.insert(name.to_owned(), g.next_corder);
        g.next_corder += 1;
        g.dirty = true;
        Ok(())
    }

    /// Create an object at `path` (intermediate groups are created as needed).
    pub(crate) fn create_object(&mut self, base: ObjId, path: &str, body: Body) -> Result<ObjId> {
        self.swmr_forbids("creating objects")?;
        let (parent, name, full) = self.parent_for(base, path)?;
        let id = self.new_object(full, body)?;
        self.insert_link(parent, &name, LinkSpec::Hard(id))?;
        Ok(id)
    }

    /// Create a group at `path`, with any missing intermediate groups.
    pub fn create_group(&mut self, base: ObjId, path: &str) -> Result<ObjId> {
        self.swmr_forbids("creating groups")?;
        let g = Group::new(self);
        self.create_object(base, path, Body::Group(g))
    }

    /// Create a group at `path` with `options` (link and attribute creation order); missing
    /// intermediate groups get the default options.
    pub fn create_group_with(
        &mut self,
        base: ObjId,
        path: &str,
        options: &GroupOptions,
    ) -> Result<ObjId> {
        self.swmr_forbids("creating groups")?;
        let g = Group::with_order(self, options.link_order);
        let id = self.create_object(base, path, Body::Group(g))?;
        self.set_attribute_order(id, options.attr_order)?;
        Ok(id)
    }

    /// Track (and index) the creation order of the links of `group`
    /// (`H5Pset_link_creation_order`): link messages carry creation indexes, the Link Info
    /// message the next index and, when indexed, dense storage a creation-order index
    /// (version 2 B-tree of record type 6). In the compatible format the group then keeps
    /// link messages instead of a symbol table. Only while the group has no links (for
    /// the root group, right after [`FileWriter::create`]).
    pub fn set_link_order(&mut self, group: ObjId, order: CreationOrder) -> Result<()> {
        self.swmr_forbids("changing a group's link order")?;
        let path = self.object(group)?.path.clone();
        let g = self.group(group)?;
        if g.order == order {
            return Ok(());
        }
        ensure!(
            g.links.is_empty(),
            InvalidArgument,
            "{path}: link creation order can only be set before the first link"
        );
        let g = self.group_mut(group)?;
        g.order = order;
        g.dirty = true;
        Ok(())
    }

    /// Whether the links of `group` track (and index) their creation order.
    pub fn link_order(&self, group: ObjId) -> Result<CreationOrder> {
        Ok(self.group(group)?.order)
    }

    /// Set the creation index of link `name` of `group` (a group that tracks link creation
    /// order): what a copy does to keep the source's indexes. Later links get indexes after
    /// the largest one.
    pub fn set_link_creation_index(&mut self, group: ObjId, name: &str, index: u64) -> Result<()> {
        self.swmr_forbids("changing link creation indexes")?;
        let path = self.object(group)?.path.clone();
        let g = self.group_mut(group)?;
        ensure!(
            g.order.is_tracked(),
            InvalidArgument,
            "{path}: the group does not track link creation order"
        );
        ensure!(
            index < u64::MAX,
            LimitExceeded,
            "{path}: link creation index {index} is too large"
        );
        let Some(slot) = g.corder.get_mut(name) else {
            bail!(NotFound, "{path}: no link {name:?}");
        };
        *slot = index;
        g.next_corder = g.next_corder.max(index + 1);
        g.dirty = true;
        Ok(())
    }

    /// The names of a group's links in creation order (whether tracked or not: the order
    /// they were created in, unless creation indexes were set explicitly).
    pub fn link_names_by_creation_order(&self, group: ObjId) -> Result<Vec<String>> {
        Ok(self
            .group(group)?
            .names_in_order()
            .into_iter()
            .map(|(n, _)| n.to_owned())
            .collect())
    }

    /// Create a link at `path`. A hard link adds a name to an existing object; soft and
    /// external links may dangle.
    pub fn create_link(&mut self, base: ObjId, path: &str, link: LinkSpec) -> Result<()> {
        self.swmr_forbids("creating links")?;
        if let LinkSpec::Hard(id) = &link {
            self.object(*id)?;
        }
        if let LinkSpec::Soft(p) | LinkSpec::External { path: p, .. } = &link {
            ensure!(!p.is_empty(), InvalidArgument, "{path}: empty link value");
        }
        if let LinkSpec::UserDefined { link_type, .. } = &link {
            ensure!(
                *link_type >= 65,
                InvalidArgument,
                "{path}: user-defined link types are 65 to 255, not {link_type}"
            );
        }
        let (parent, name, _) = self.parent_for(base, path)?;
        if let LinkSpec::Hard(id) = &link {
            self.add_ref(*id)?;
        }
        self.insert_link(parent, &name, link)
    }
}
