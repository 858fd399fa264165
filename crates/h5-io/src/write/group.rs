//! Groups and links: symbol tables (local heap, version 1 B-tree, symbol table nodes) in the
//! compatible format, link messages in the header otherwise; creation by path.

use std::collections::BTreeMap;

use h5_format::btree::v1::{self as btree, Keys, Node, NodeType};
use h5_format::btree::v2::Record;
use h5_format::checksum::lookup3;
use h5_format::heap::local::{LocalHeap, FREE_NULL};
use h5_format::message::group_info::GroupInfo;
use h5_format::message::link::{Link, LinkTarget};
use h5_format::message::link_info::LinkInfo;
use h5_format::message::symbol_table::SymbolTableMessage;
use h5_format::message::Message;
use h5_format::symbol_table::{CachedInfo, SymbolTableEntry, SymbolTableNode};
use h5_format::symbol_table_entry::ScratchPad;
use h5_format::{Addr, Writer};

use super::btree2::Btree2Params;

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

/// A group's links and, in the compatible format, where its symbol table lives.
#[derive(Debug)]
pub(crate) struct Group {
    pub(crate) links: BTreeMap<String, LinkSpec>,
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
    /// fractal heap and name index addresses, rebuilt at each flush.
    dense: Option<(u64, u64)>,
}

/// Most links kept as link messages in the header (the reference library's default "max
/// compact"); more go to dense storage.
pub(crate) const MAX_COMPACT_LINKS: usize = 8;

impl Group {
    /// A new empty group of the writer's format (its symbol table, if any, is built at the
    /// first flush).
    pub(crate) fn new(w: &mut FileWriter) -> Group {
        Group {
            links: BTreeMap::new(),
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

    /// Whether the links are kept as a symbol table (compatible format, and no link type a
    /// symbol table cannot hold).
    fn is_symbol_table(&self) -> bool {
        self.format == FileFormat::Compatible
            && !self
                .links
                .values()
                .any(|l| matches!(l, LinkSpec::External { .. } | LinkSpec::UserDefined { .. }))
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
        let (heap, names) = match self.dense {
            Some((h, b)) if self.links.len() > MAX_COMPACT_LINKS => (Addr(h), Addr(b)),
            _ => (Addr::UNDEF, Addr::UNDEF),
        };
        let mut out = vec![
            (
                Message::LinkInfo(LinkInfo {
                    max_creation_index: None,
                    fractal_heap_address: heap,
                    name_btree_address: names,
                    creation_order_btree_address: None,
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
        out.extend(self.link_messages(w)?.into_iter().map(|m| (m, 0)));
        Ok(out)
    }

    /// The links as link messages, in name order.
    fn link_messages(&self, w: &FileWriter) -> Result<Vec<Message>> {
        let mut out = Vec::with_capacity(self.links.len());
        for (name, l) in &self.links {
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
            out.push(Message::Link(Link {
                creation_order: None,
                charset,
                name: name.as_bytes().to_vec(),
                target,
            }));
        }
        Ok(out)
    }

    /// Write dense link storage: the link messages in a fractal heap, indexed by a version 2
    /// B-tree of name hashes (record type 5).
    fn prepare_dense(&mut self, w: &mut FileWriter) -> Result<()> {
        if self.links.len() <= MAX_COMPACT_LINKS {
            self.dense = None;
            return Ok(());
        }
        if self.dense.is_some() && !self.dirty {
            return Ok(());
        }
        let msgs = self.link_messages(w)?;
        let objects: Vec<Vec<u8>> = msgs.iter().map(|m| m.to_bytes(w.sizes)).collect();
        let (heap, ids) = w.write_fractal_heap(&objects, 7)?;
        let mut records: Vec<(u32, &str, Record)> = Vec::with_capacity(ids.len());
        for (name, id) in self.links.keys().zip(&ids) {
            let hash = lookup3(name.as_bytes(), 0);
            let mut heap_id = [0u8; 7];
            heap_id.copy_from_slice(&id[..7]);
            records.push((hash, name, Record::LinkName { hash, heap_id }));
        }
        records.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        let recs: Vec<Record> = records.into_iter().map(|r| r.2).collect();
        let btree = w.write_btree2(
            &Btree2Params {
                record_type: 5,
                node_size: 512,
                record_size: 11,
                split_percent: 100,
                merge_percent: 40,
            },
            &recs,
        )?;
        self.dense = Some((heap, btree));
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
        let total = snod_size * nnodes as u64 + node_size * levels.iter().sum::<usize>() as u64;
        // The nodes and the B-tree over them, placed at `base`.
        let image = |base: u64| {
            let mut children = Vec::with_capacity(nnodes);
            let mut left = 0u64;
            let mut buf = Writer::new(sizes);
            for (i, n) in entries.chunks(per_node).enumerate() {
                let node = SymbolTableNode {
                    entries: n.to_vec(),
                };
                node.encode(&mut buf, GROUP_LEAF_K);
                children.push((left, Addr(base + i as u64 * snod_size)));
                left = n.last().map_or(left, |e| e.link_name_offset);
            }
            let tree_base = base + snod_size * nnodes as u64;
            let (root, tree) = build_btree(
                sizes,
                tree_base,
                &levels,
                node_size,
                GROUP_INTERNAL_K,
                children,
                left,
                Keys::Group,
            );
            buf.put_bytes(&tree);
            (root, buf.into_vec())
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
        // disk stay as they are until no header references them; the flush retires them).
        let heap_size = LocalHeap::encoded_size(sizes) as u64;
        self.heap_addr = w.alloc(heap_size);
        self.seg = (w.alloc(seg_len), seg_len);
        self.block = (w.alloc(total), total);
        seg.resize(seg_len as usize, 0);
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
/// in key order; `last` is the right key of the last child) as consecutive nodes of
/// `node_size` bytes from `base`, level 0 first. Returns the root's address and the bytes.
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_btree<K: Clone>(
    sizes: h5_format::Sizes,
    base: u64,
    levels: &[usize],
    node_size: u64,
    k: u16,
    children: Vec<(K, Addr)>,
    last: K,
    make_keys: impl Fn(Vec<K>) -> Keys,
) -> (u64, Vec<u8>) {
    let fan = 2 * k as usize;
    let mut w = Writer::new(sizes);
    let mut cur = children;
    let mut addr = base;
    let mut root = base;
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
            let at = addr + j as u64 * node_size;
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
                    Addr(at - node_size)
                },
                right_sibling: if j + 1 == groups.len() {
                    Addr::UNDEF
                } else {
                    Addr(at + node_size)
                },
                keys: make_keys(keys),
                children: g.iter().map(|c| c.1).collect(),
            };
            let start = w.len();
            node.encode(&mut w, k);
            w.put_zeros((node_size as usize).saturating_sub(w.len() - start));
            if let Some(first) = g.first() {
                next.push((first.0.clone(), Addr(at)));
            }
            root = at;
        }
        addr += groups.len() as u64 * node_size;
        cur = next;
    }
    (root, w.into_vec())
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
    fn group(&self, id: ObjId) -> Result<&Group> {
        let o = self.object(id)?;
        match &o.body {
            Body::Group(g) => Ok(g),
            _ => bail!(InvalidArgument, "{} is not a group", o.path),
        }
    }

    fn group_mut(&mut self, id: ObjId) -> Result<&mut Group> {
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

    fn insert_link(&mut self, group: ObjId, name: &str, link: LinkSpec) -> Result<()> {
        self.check_links_writable(group)?;
        let g = self.group_mut(group)?;
        ensure!(
            !g.links.contains_key(name),
            AlreadyExists,
            "{name:?} already exists"
        );
        g.links.insert(name.to_owned(), link);
        g.dirty = true;
        Ok(())
    }

    /// Create an object at `path` (intermediate groups are created as needed).
    pub(crate) fn create_object(&mut self, base: ObjId, path: &str, body: Body) -> Result<ObjId> {
        let (parent, name, full) = self.parent_for(base, path)?;
        let id = self.new_object(full, body)?;
        self.insert_link(parent, &name, LinkSpec::Hard(id))?;
        Ok(id)
    }

    /// Create a group at `path`, with any missing intermediate groups.
    pub fn create_group(&mut self, base: ObjId, path: &str) -> Result<ObjId> {
        let g = Group::new(self);
        self.create_object(base, path, Body::Group(g))
    }

    /// Create a link at `path`. A hard link adds a name to an existing object; soft and
    /// external links may dangle.
    pub fn create_link(&mut self, base: ObjId, path: &str, link: LinkSpec) -> Result<()> {
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
