//! Groups: symbol tables (version 1 B-tree of group nodes, symbol table nodes, local heap),
//! compact links, dense links and dense attributes (fractal heap and version 2 B-trees),
//! and the local heap of external data files.

use super::{Decoded, Walker};
use crate::btree::v1::{self, Keys, Node, NodeType};
use crate::btree::v2::Record;
use crate::heap::local::{string_at, LocalHeap};
use crate::message::attribute::Attribute;
use crate::message::link::{Link, LinkTarget};
use crate::message::{Message, MessageType};
use crate::symbol_table::{CachedInfo, SymbolTableNode};
use crate::{limits, Addr, Cursor, Sizes};

const TREE: &str = "v1 B-tree node";
const SNOD: &str = "symbol table node";
const ENTRY: &str = "symbol table entry";
const HEAP: &str = "local heap";

/// A local heap whose data segment was read.
pub(crate) struct LocalHeapData<'b> {
    pub(crate) addr: Addr,
    data_addr: u64,
    bytes: std::borrow::Cow<'b, [u8]>,
    sizes: Sizes,
}

impl LocalHeapData<'_> {
    /// A cursor over the data segment (its base is the segment's address).
    pub(crate) fn segment(&self) -> Cursor<'_> {
        Cursor::new(&self.bytes, self.data_addr, self.sizes)
    }
}

/// The path of a link: parent path and name (long names shortened, so paths stay small
/// however deep and long-named the groups are).
fn join(path: &str, name: &[u8]) -> String {
    let name = if name.len() > 200 {
        format!("{}...", String::from_utf8_lossy(&name[..200]))
    } else {
        String::from_utf8_lossy(name).into_owned()
    };
    if path.ends_with('/') {
        format!("{path}{name}")
    } else {
        format!("{path}/{name}")
    }
}

impl<'a> Walker<'a> {
    /// Everything a group's header points to.
    pub(crate) fn group(&mut self, d: &Decoded, cached_stab: Option<(Addr, Addr)>) {
        for (raw, m) in &d.messages {
            match m {
                Message::SymbolTable(st) => {
                    if let Some((b, h)) = cached_stab {
                        if (b, h) != (st.btree_address, st.heap_address) {
                            self.problem(
                                "symbol table message",
                                raw.offset,
                                format!(
                                    "B-tree {} and heap {} differ from the parent's cached {b} and {h} (in {})",
                                    st.btree_address, st.heap_address, d.path
                                ),
                            );
                        }
                    }
                    self.symbol_table(st.btree_address, st.heap_address, d);
                }
                Message::Link(l) => self.link(raw.offset, l, d),
                Message::LinkInfo(li) if !li.fractal_heap_address.is_undef() => {
                    let co = li.creation_order_btree_address;
                    self.dense(li.fractal_heap_address, li.name_btree_address, co, true, d);
                }
                Message::AttributeInfo(ai) if !ai.fractal_heap_address.is_undef() => {
                    let co = ai.creation_order_btree_address;
                    self.dense(ai.fractal_heap_address, ai.name_btree_address, co, false, d);
                }
                Message::ExternalFiles(ef) => {
                    let Some(heap) = self.local_heap(ef.heap_address, &d.path) else {
                        continue;
                    };
                    for (i, slot) in ef.slots.iter().enumerate() {
                        if let Err(e) = string_at(&heap.segment(), slot.name_offset) {
                            self.problem(
                                "external data files message",
                                raw.offset,
                                format!("slot {i}: file name: {} (in {})", e.message(), d.path),
                            );
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn link(&mut self, at: u64, l: &Link, d: &Decoded) {
        if l.name.is_empty() {
            self.problem(
                "link message",
                at,
                format!("a link with an empty name (in {})", d.path),
            );
        }
        if let LinkTarget::Hard(a) = l.target {
            if self.check_range("link message", a, 1, "hard link target", &d.path) {
                self.enqueue(a.0, join(&d.path, &l.name), d.depth + 1, None, at);
            }
        }
    }

    /// Read a local heap and its data segment (and check its free list).
    pub(crate) fn local_heap(&mut self, addr: Addr, path: &str) -> Option<LocalHeapData<'a>> {
        if !self.budget() {
            return None;
        }
        let r = self
            .bytes(HEAP, addr, LocalHeap::encoded_size(self.sizes) as u64)
            .and_then(|b| LocalHeap::parse(&mut self.cursor(&b, addr)));
        let h = match r {
            Ok(h) => h,
            Err(e) => {
                self.error(e, HEAP, addr.0, path);
                return None;
            }
        };
        let seg = match self.bytes(HEAP, h.data_segment, h.data_segment_size) {
            Ok(s) => s,
            Err(e) => {
                self.error(e, HEAP, addr.0, path);
                return None;
            }
        };
        let data = LocalHeapData {
            addr,
            data_addr: h.data_segment.0,
            bytes: seg,
            sizes: self.sizes,
        };
        if let Err(e) = h.free_list(&data.segment()) {
            self.error(e, HEAP, addr.0, path);
        }
        Some(data)
    }

    /// A group stored as a symbol table.
    fn symbol_table(&mut self, btree: Addr, heap: Addr, d: &Decoded) {
        let Some(heap) = self.local_heap(heap, &d.path) else {
            return;
        };
        self.group_node(btree, None, 0, &heap, d);
    }

    /// Read one version 1 B-tree node (either kind).
    pub(crate) fn v1_node(&mut self, addr: Addr, rank: Option<usize>, path: &str) -> Option<Node> {
        if !self.budget() || !self.first_visit(TREE, addr.0, path) {
            return None;
        }
        let sizes = self.sizes;
        let fixed = 8 + 2 * u64::from(sizes.offset);
        let r = self.window(TREE, addr, fixed).and_then(|head| {
            let used = head
                .get(6..8)
                .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]));
            let node_type = match head.get(4) {
                Some(1) => NodeType::Chunk,
                _ => NodeType::Group,
            };
            let ksize =
                v1::key_size(sizes, node_type, rank.unwrap_or(0).min(limits::MAX_RANK)) as u64;
            let len = fixed + u64::from(used) * (ksize + u64::from(sizes.offset)) + ksize;
            let b = self.window(TREE, addr, len)?;
            Node::parse(&mut self.cursor(&b, addr), rank)
        });
        let node = match r {
            Ok(n) => n,
            Err(e) => {
                self.error(e, TREE, addr.0, path);
                return None;
            }
        };
        for (which, s) in [("left", node.left_sibling), ("right", node.right_sibling)] {
            if !s.is_undef() && s.0 >= self.eoa {
                self.problem(
                    TREE,
                    addr.0,
                    format!("{which} sibling {s} is past the end of file (in {path})"),
                );
            }
        }
        let k = match node.node_type() {
            NodeType::Group => self.k.group_internal,
            NodeType::Chunk => self.k.chunk_internal,
        };
        if node.children.len() > 2 * k as usize {
            self.problem(
                TREE,
                addr.0,
                format!(
                    "{} children, more than 2K = {} (in {path})",
                    node.children.len(),
                    2 * k as usize
                ),
            );
        }
        Some(node)
    }

    /// A node of a group's B-tree: keys are names in the local heap, in order; the children of
    /// a leaf are symbol table nodes whose names lie between the keys around them.
    fn group_node(
        &mut self,
        addr: Addr,
        level: Option<u8>,
        depth: usize,
        heap: &LocalHeapData<'_>,
        d: &Decoded,
    ) {
        if depth > limits::MAX_BTREE_DEPTH {
            self.problem(
                TREE,
                addr.0,
                format!(
                    "the B-tree is deeper than {} (in {})",
                    limits::MAX_BTREE_DEPTH,
                    d.path
                ),
            );
            return;
        }
        let Some(node) = self.v1_node(addr, None, &d.path) else {
            return;
        };
        let Keys::Group(keys) = &node.keys else {
            self.problem(
                TREE,
                addr.0,
                format!("a chunk node in a group's B-tree (in {})", d.path),
            );
            return;
        };
        if let Some(l) = level {
            if node.level != l {
                self.problem(
                    TREE,
                    addr.0,
                    format!(
                        "level {} where its parent implies {l} (in {})",
                        node.level, d.path
                    ),
                );
                return;
            }
        }
        let seg = heap.segment();
        let mut names: Vec<Option<&[u8]>> = Vec::with_capacity(keys.len());
        for &k in keys {
            match string_at(&seg, k) {
                Ok(n) => names.push(Some(n)),
                Err(e) => {
                    self.error(e, HEAP, heap.addr.0, &d.path);
                    names.push(None);
                }
            }
        }
        for w in names.windows(2) {
            if let [Some(a), Some(b)] = w {
                if a > b {
                    self.problem(
                        TREE,
                        addr.0,
                        format!(
                            "keys out of order: {:?} before {:?} (in {})",
                            String::from_utf8_lossy(a),
                            String::from_utf8_lossy(b),
                            d.path
                        ),
                    );
                    break;
                }
            }
        }
        for (i, &child) in node.children.iter().enumerate() {
            if node.level > 0 {
                self.group_node(child, Some(node.level - 1), depth + 1, heap, d);
            } else {
                let lo = names.get(i).copied().flatten();
                let hi = names.get(i + 1).copied().flatten();
                self.symbol_node(child, lo, hi, heap, d);
            }
        }
    }

    fn symbol_node(
        &mut self,
        addr: Addr,
        lo: Option<&[u8]>,
        hi: Option<&[u8]>,
        heap: &LocalHeapData<'_>,
        d: &Decoded,
    ) {
        if !self.budget() || !self.first_visit(SNOD, addr.0, &d.path) {
            return;
        }
        let esize = crate::symbol_table::SymbolTableEntry::encoded_size(self.sizes) as u64;
        let r = self.window(SNOD, addr, 8).and_then(|head| {
            let n = head
                .get(6..8)
                .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]));
            let b = self.window(SNOD, addr, 8 + u64::from(n) * esize)?;
            SymbolTableNode::parse(&mut self.cursor(&b, addr))
        });
        let node = match r {
            Ok(n) => n,
            Err(e) => return self.error(e, SNOD, addr.0, &d.path),
        };
        if node.entries.len() > 2 * self.k.group_leaf as usize {
            self.problem(
                SNOD,
                addr.0,
                format!(
                    "{} entries, more than 2K = {} (in {})",
                    node.entries.len(),
                    2 * self.k.group_leaf as usize,
                    d.path
                ),
            );
        }
        let mut prev: Option<&[u8]> = None;
        for (i, e) in node.entries.iter().enumerate() {
            let at = addr.0 + 8 + i as u64 * esize;
            let name = match string_at(&heap.segment(), e.link_name_offset) {
                Ok(n) => n,
                Err(err) => {
                    self.problem(
                        ENTRY,
                        at,
                        format!(
                            "link name offset {} is not a name in the local heap at {}: {} (in {})",
                            e.link_name_offset,
                            heap.addr,
                            err.message(),
                            d.path
                        ),
                    );
                    continue;
                }
            };
            let shown = String::from_utf8_lossy(name);
            if prev.is_some_and(|p| p >= name) {
                self.problem(
                    SNOD,
                    addr.0,
                    format!("entry {shown:?} is out of name order (in {})", d.path),
                );
            }
            if lo.is_some_and(|lo| name <= lo) || hi.is_some_and(|hi| name > hi) {
                self.problem(
                    SNOD,
                    addr.0,
                    format!(
                        "entry {shown:?} lies outside its B-tree keys (in {})",
                        d.path
                    ),
                );
            }
            prev = Some(name);
            let path = join(&d.path, name);
            match (&e.cache, e.object_header.get()) {
                (CachedInfo::SymbolicLink { link_value_offset }, _) => {
                    if let Err(err) = string_at(&heap.segment(), u64::from(*link_value_offset)) {
                        self.problem(
                            ENTRY,
                            at,
                            format!("soft link value: {} (in {path})", err.message()),
                        );
                    }
                }
                (cache, Some(oh)) => {
                    if !self.check_range(ENTRY, e.object_header, 1, "object header", &path) {
                        continue;
                    }
                    let cached = match cache {
                        CachedInfo::Group { btree, heap } => Some((*btree, *heap)),
                        _ => None,
                    };
                    self.enqueue(oh, path, d.depth + 1, cached, at);
                }
                (_, None) => self.problem(
                    ENTRY,
                    at,
                    format!("an entry that is not a soft link has no object header (in {path})"),
                ),
            }
        }
    }

    /// Dense links (`links`) or dense attributes: the fractal heap, the name index and the
    /// creation order index, and every link or attribute they hold.
    fn dense(
        &mut self,
        heap: Addr,
        name_index: Addr,
        order_index: Option<Addr>,
        links: bool,
        d: &Decoded,
    ) {
        let Some(h) = self.fractal_heap(heap, &d.path) else {
            return;
        };
        let (name_type, order_type) = if links { (5u8, 6u8) } else { (8, 9) };
        let Some((bh, records)) = self.v2_btree(name_index, &[name_type], &d.path) else {
            return;
        };
        let _ = bh;
        let mut count = 0u64;
        for r in &records {
            let id: &[u8] = match r {
                Record::LinkName { heap_id, .. } => heap_id,
                Record::AttributeName {
                    heap_id,
                    message_flags,
                    ..
                } => {
                    if message_flags & crate::message::MessageFlags::SHARED != 0 {
                        // A shared attribute: the ID is one of the shared message heap's.
                        count += 1;
                        match self.sohm_message(
                            MessageType::ATTRIBUTE,
                            heap_id,
                            name_index.0,
                            &d.path,
                        ) {
                            Some(Ok(Message::Attribute(a))) => {
                                self.attribute(name_index.0, &a, &d.path)
                            }
                            Some(Err(e)) => {
                                self.error(e, "attribute message", name_index.0, &d.path)
                            }
                            _ => {}
                        }
                        continue;
                    }
                    heap_id
                }
                _ => continue,
            };
            count += 1;
            let Some(obj) = self.heap_object(&h, id, name_index.0, &d.path) else {
                continue;
            };
            let mut c = Cursor::new(&obj, 0, self.sizes);
            if links {
                match Link::parse(&mut c) {
                    Ok(l) => self.link(name_index.0, &l, d),
                    Err(e) => self.error(e, "link message", h.addr.0, &d.path),
                }
            } else {
                match Attribute::parse(&mut c) {
                    Ok(a) => self.attribute(h.addr.0, &a, &d.path),
                    Err(e) => self.error(e, "attribute message", h.addr.0, &d.path),
                }
            }
        }
        if let Some(o) = order_index.filter(|o| !o.is_undef()) {
            if let Some((_, recs)) = self.v2_btree(o, &[order_type], &d.path) {
                if recs.len() as u64 != count {
                    self.problem(
                        "v2 B-tree header",
                        o.0,
                        format!(
                            "the creation order index holds {} records, the name index {count} (in {})",
                            recs.len(),
                            d.path
                        ),
                    );
                }
            }
        }
    }
}
