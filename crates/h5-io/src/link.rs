//! The links of a group, whatever their storage: a symbol table (v1 B-tree of symbol table
//! nodes + local heap), link messages in the header (compact), or a fractal heap indexed by
//! version 2 B-trees (dense).

use std::cmp::Ordering;
use std::collections::HashSet;

use h5_format::btree::v1;
use h5_format::btree::v2::{self, Probe, Record};
use h5_format::checksum;
use h5_format::heap::local::{string_at, LocalHeap};
use h5_format::message::link::LinkTarget as FormatTarget;
use h5_format::message::{Message, MessageFlags, MessageType};
use h5_format::symbol_table::{CachedInfo, SymbolTableEntry, SymbolTableNode};
use h5_format::{limits, Addr, Cursor};

use crate::error::{bail, ensure, Error, ErrorKind, Result};
use crate::file::File;
use crate::object::Object;

/// Where a link points.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LinkTarget {
    /// A hard link: the object header's address.
    Hard(Addr),
    /// A soft link: a path in the same file (possibly dangling).
    Soft(String),
    /// An external link: a path in another file.
    External {
        /// The other file's name (relative to this file's directory unless absolute).
        file: String,
        /// The object's path in that file.
        path: String,
    },
    /// A user-defined link (type 65 to 255): reported, never followed.
    UserDefined {
        /// The link type.
        link_type: u8,
        /// The link's data.
        data: Vec<u8>,
    },
}

/// One link of a group.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Link {
    /// The link name.
    pub name: String,
    /// Where it points.
    pub target: LinkTarget,
    /// The creation order, when the group tracks it.
    pub creation_order: Option<u64>,
    /// The name's character set: 0 ASCII, 1 UTF-8.
    pub charset: u8,
}

/// How a group stores its links.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkStorage {
    /// A symbol table (old-style group).
    SymbolTable,
    /// Link messages in the object header.
    Compact,
    /// A fractal heap with a name index.
    Dense,
}

fn lossy(b: &[u8]) -> String {
    // Valid UTF-8 (nearly every name) is checked and copied; the rest replaced.
    match std::str::from_utf8(b) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(b).into_owned(),
    }
}

fn from_format(l: h5_format::message::link::Link) -> Link {
    let target = match l.target {
        FormatTarget::Hard(a) => LinkTarget::Hard(a),
        FormatTarget::Soft(p) => LinkTarget::Soft(lossy(&p)),
        FormatTarget::External { file, path, .. } => LinkTarget::External {
            file: lossy(&file),
            path: lossy(&path),
        },
        FormatTarget::UserDefined { link_type, data } => {
            LinkTarget::UserDefined { link_type, data }
        }
    };
    Link {
        name: lossy(&l.name),
        target,
        creation_order: l.creation_order,
        charset: l.charset.unwrap_or(0),
    }
}

/// The storage kind of a group object.
pub fn storage(obj: &Object) -> Result<LinkStorage> {
    if obj.has(MessageType::SYMBOL_TABLE) {
        return Ok(LinkStorage::SymbolTable);
    }
    if let Some(Message::LinkInfo(li)) = obj.message(MessageType::LINK_INFO)? {
        if !li.fractal_heap_address.is_undef() {
            return Ok(LinkStorage::Dense);
        }
    }
    Ok(LinkStorage::Compact)
}

/// Every link of the group `obj`, in storage order (name order for symbol tables and dense
/// storage, header order for compact storage).
pub fn links(file: &File, obj: &Object) -> Result<Vec<Link>> {
    match storage(obj)? {
        LinkStorage::SymbolTable => {
            let Some(Message::SymbolTable(st)) = obj.message(MessageType::SYMBOL_TABLE)? else {
                return Ok(Vec::new());
            };
            symbol_table_links(file, st.btree_address, st.heap_address)
        }
        LinkStorage::Compact => {
            let mut v = Vec::new();
            for m in obj.messages_of(MessageType::LINK) {
                match m {
                    Ok(Message::Link(l)) => v.push(from_format(l.clone())),
                    Ok(_) => {}
                    Err(e) => {
                        return Err(Error::new(ErrorKind::Format, format!("link message: {e}")))
                    }
                }
            }
            Ok(v)
        }
        LinkStorage::Dense => {
            let Some(Message::LinkInfo(li)) = obj.message(MessageType::LINK_INFO)? else {
                return Ok(Vec::new());
            };
            let mut v = Vec::new();
            for r in file.v2_records(li.name_btree_address)? {
                let id: &[u8] = match &r {
                    Record::LinkName { heap_id, .. } => heap_id,
                    Record::LinkCreationOrder { heap_id, .. } => heap_id,
                    _ => continue,
                };
                v.push(dense_link(file, li.fractal_heap_address, id)?);
            }
            Ok(v)
        }
    }
}

/// The names of the links of the group `obj`, in the order of [`links`]. A symbol table's
/// names are read from its nodes and heap without making the links (less memory, as
/// h5py's `list(group)` gives names alone); other storage gives the links' names.
pub fn names(file: &File, obj: &Object) -> Result<Vec<String>> {
    if storage(obj)? == LinkStorage::SymbolTable {
        let Some(Message::SymbolTable(st)) = obj.message(MessageType::SYMBOL_TABLE)? else {
            return Ok(Vec::new());
        };
        return symbol_table_entries(file, st.btree_address, st.heap_address, entry_name);
    }
    Ok(links(file, obj)?.into_iter().map(|l| l.name).collect())
}

/// The link stored in the fractal heap at `heap` under heap ID `id`.
fn dense_link(file: &File, heap: Addr, id: &[u8]) -> Result<Link> {
    let bytes = file.fractal_heap_object(heap, id)?;
    match Message::parse_bytes(MessageType::LINK, MessageFlags(0), &bytes, 0, file.sizes())? {
        Message::Link(l) => Ok(from_format(l)),
        _ => Err(Error::new(
            ErrorKind::Format,
            "dense link storage holds something else than a link",
        )),
    }
}

/// The link called `name` of the group `obj`, found the way the reference library finds it
/// (`H5G__obj_lookup`): a descent of the symbol table's v1 B-tree and a binary search of one
/// symbol table node, or a descent of the dense storage's v2 B-tree name index by the name's
/// hash: O(log n) reads, not a listing. Compact links are in the header already.
pub fn lookup(file: &File, obj: &Object, name: &str) -> Result<Option<Link>> {
    match storage(obj)? {
        LinkStorage::SymbolTable => {
            let Some(Message::SymbolTable(st)) = obj.message(MessageType::SYMBOL_TABLE)? else {
                return Ok(None);
            };
            symbol_table_lookup(file, st.btree_address, st.heap_address, name)
        }
        LinkStorage::Compact => Ok(links(file, obj)?.into_iter().find(|l| l.name == name)),
        LinkStorage::Dense => {
            let Some(Message::LinkInfo(li)) = obj.message(MessageType::LINK_INFO)? else {
                return Ok(None);
            };
            dense_lookup(file, li.fractal_heap_address, li.name_btree_address, name)
        }
    }
}

/// [`lookup`], falling back to a listing when the group's index cannot be searched (a
/// damaged B-tree the listing may still get through, or reports precisely).
pub fn find(file: &File, obj: &Object, name: &str) -> Result<Option<Link>> {
    match lookup(file, obj, name) {
        Ok(found) => Ok(found),
        Err(_) => Ok(links(file, obj)?.into_iter().find(|l| l.name == name)),
    }
}

/// The data segment of the group's local heap at `heap`, and its address.
fn heap_segment(file: &File, heap: Addr) -> Result<(Vec<u8>, Addr)> {
    let raw = file.raw();
    let hb = raw.read(heap, LocalHeap::encoded_size(raw.sizes()) as u64)?;
    let lh = LocalHeap::parse(&mut raw.cursor(&hb, heap))?;
    Ok((
        raw.read(lh.data_segment, lh.data_segment_size)?,
        lh.data_segment,
    ))
}

/// Descend a symbol table's v1 B-tree to the node whose key range holds `name` (child `i`
/// holds the names after key `i` up to key `i + 1`), then search its symbol table node.
fn symbol_table_lookup(file: &File, btree: Addr, heap: Addr, name: &str) -> Result<Option<Link>> {
    let (seg, at) = heap_segment(file, heap)?;
    let segc = file.raw().cursor(&seg, at);
    let name = name.as_bytes();
    let mut addr = btree;
    let mut level = None::<u8>;
    for _ in 0..=limits::MAX_BTREE_DEPTH {
        let node = read_v1_node(file, addr, None)?;
        let v1::Keys::Group(keys) = &node.keys else {
            bail!(Format, "group B-tree node at {:#x} is a chunk node", addr.0);
        };
        if let Some(l) = level {
            ensure!(
                node.level.checked_add(1) == Some(l),
                Format,
                "group B-tree node at {:#x} has level {}, expected {}",
                addr.0,
                node.level,
                l.saturating_sub(1)
            );
        }
        // The child whose keys bracket the name (`H5B_find` with `H5G__node_cmp3`).
        let (mut lo, mut hi) = (0usize, node.children.len());
        let mut found = None;
        while lo < hi {
            let i = (lo + hi) / 2;
            let (Some(&left), Some(&right)) = (keys.get(i), keys.get(i + 1)) else {
                bail!(Format, "group B-tree node at {:#x} lacks keys", addr.0);
            };
            if name <= string_at(&segc, left)? {
                hi = i;
            } else if name > string_at(&segc, right)? {
                lo = i + 1;
            } else {
                found = Some(i);
                break;
            }
        }
        let Some(i) = found else { return Ok(None) };
        let child = node.children[i];
        if node.level == 0 {
            let entries = read_snod(file, child)?.entries;
            let mut err = None;
            let at = entries.binary_search_by(|e| match string_at(&segc, e.link_name_offset) {
                Ok(n) => n.cmp(name),
                Err(e) => {
                    err.get_or_insert(e);
                    std::cmp::Ordering::Less
                }
            });
            if let Some(e) = err {
                return Err(e.into());
            }
            return match at {
                Ok(k) => Ok(Some(entry_link(&segc, &entries[k])?)),
                Err(_) => Ok(None),
            };
        }
        level = Some(node.level);
        addr = child;
    }
    bail!(
        LimitExceeded,
        "group B-tree deeper than {}",
        limits::MAX_BTREE_DEPTH
    )
}

/// Descend the dense storage's name index (records ordered by name hash, then name:
/// `H5G__dense_btree2_name_compare`), reading a link from the heap only when its hash is the
/// name's.
fn dense_lookup(file: &File, heap: Addr, index: Addr, name: &str) -> Result<Option<Link>> {
    let raw = file.raw();
    let tree = v2::Tree::open(raw, index)?;
    let hash = checksum::lookup3(name.as_bytes(), 0);
    tree.find(raw, |r| {
        let Record::LinkName { hash: rh, heap_id } = r else {
            bail!(
                Format,
                "the name index at {:#x} holds other records",
                index.0
            );
        };
        Ok(match rh.cmp(&hash) {
            Ordering::Less => Probe::Less,
            Ordering::Greater => Probe::Greater,
            Ordering::Equal => {
                let l = dense_link(file, heap, heap_id)?;
                match l.name.as_bytes().cmp(name.as_bytes()) {
                    Ordering::Equal => Probe::Found(l),
                    Ordering::Less => Probe::Less,
                    Ordering::Greater => Probe::Greater,
                }
            }
        })
    })
}

/// The links of a symbol-table group: walk the v1 B-tree (each node once) to gather the
/// addresses of every symbol table node, read those nodes ([`read_snods`]: nearby ones
/// together, whichever leaves they hang from), and name the entries from the local heap, in
/// the B-tree's order.
pub fn symbol_table_links(file: &File, btree: Addr, heap: Addr) -> Result<Vec<Link>> {
    symbol_table_entries(file, btree, heap, entry_link)
}

/// What `make` makes of each entry of a symbol-table group (with the group's local heap
/// segment, to read names from), in the B-tree's order: [`symbol_table_links`] makes links,
/// [`names`] only names.
fn symbol_table_entries<T>(
    file: &File,
    btree: Addr,
    heap: Addr,
    make: fn(&Cursor, &SymbolTableEntry) -> Result<T>,
) -> Result<Vec<T>> {
    let (seg, at) = heap_segment(file, heap)?;
    let segc = file.raw().cursor(&seg, at);
    let mut seen = HashSet::new();
    let mut snods: Vec<Addr> = Vec::new();
    let mut stack = vec![(btree, None::<u8>)];
    while let Some((addr, expect_level)) = stack.pop() {
        ensure!(
            seen.insert(addr.0),
            Format,
            "group B-tree node at {:#x} visited twice (a loop)",
            addr.0
        );
        ensure!(
            seen.len() + snods.len() <= 1 << 20,
            LimitExceeded,
            "group B-tree with more than 2^20 nodes"
        );
        let node = read_v1_node(file, addr, None)?;
        ensure!(
            node.node_type() == v1::NodeType::Group,
            Format,
            "group B-tree node at {:#x} is a chunk node",
            addr.0
        );
        if let Some(l) = expect_level {
            ensure!(
                node.level == l,
                Format,
                "group B-tree node at {:#x} has level {}, expected {l}",
                addr.0,
                node.level
            );
        }
        if node.level == 0 {
            snods.extend_from_slice(&node.children);
        } else {
            // Push in reverse so children are visited left to right.
            for &c in node.children.iter().rev() {
                stack.push((c, Some(node.level - 1)));
            }
        }
    }
    read_snods(file, &segc, &snods, make)
}

/// The name of a symbol table entry, from the heap segment `segc`.
fn entry_name(segc: &Cursor, e: &SymbolTableEntry) -> Result<String> {
    Ok(lossy(string_at(segc, e.link_name_offset)?))
}

fn entry_link(segc: &Cursor, e: &SymbolTableEntry) -> Result<Link> {
    let name = lossy(string_at(segc, e.link_name_offset)?);
    let target = match &e.cache {
        CachedInfo::SymbolicLink { link_value_offset } => {
            LinkTarget::Soft(lossy(string_at(segc, u64::from(*link_value_offset))?))
        }
        _ => LinkTarget::Hard(e.object_header),
    };
    Ok(Link {
        name,
        target,
        creation_order: None,
        charset: 0,
    })
}

fn read_snod(file: &File, addr: Addr) -> Result<SymbolTableNode> {
    let raw = file.raw();
    let entry = SymbolTableEntry::encoded_size(raw.sizes()) as u64;
    let (leaf_k, _) = group_k(file);
    let b = read_sized(file, addr, 8 + 2 * u64::from(leaf_k) * entry, |head| {
        8 + u64::from(u16::from_le_bytes([head[6], head[7]])) * entry
    })?;
    Ok(SymbolTableNode::parse(&mut raw.cursor(&b, addr))?)
}

/// Symbol table nodes apart by no more than this are fetched in one read (the object
/// headers a writer puts between them are read and dropped: cheaper than a request each).
const SNOD_MERGE_GAP: u64 = 16 << 10;
/// The largest read that fetches several symbol table nodes from storage that is not local.
const SNOD_MERGE_SPAN: u64 = 512 << 10;
/// The largest such read from local storage: the reads land in one reused buffer, which
/// stays this small (in cache, few pages touched); a request more costs little there.
const SNOD_MERGE_SPAN_LOCAL: u64 = 64 << 10;
/// The most bytes one batch of those reads holds at once (a group's nodes are fetched in
/// as many batches as this needs, whatever the file claims of their number and size).
const SNOD_BATCH_BYTES: u64 = 8 * SNOD_MERGE_SPAN;

/// The links of the symbol table nodes at `addrs` (a group's, in B-tree order), named from
/// the heap segment `segc`, in that order. Nodes near each other are fetched together,
/// whichever B-tree leaves they hang from: each read spans nodes at most [`SNOD_MERGE_GAP`]
/// apart and at most [`SNOD_MERGE_SPAN`] bytes ([`SNOD_MERGE_SPAN_LOCAL`] into one reused
/// buffer from local storage), in batches of reads of at most [`SNOD_BATCH_BYTES`] from other
/// storage. A node that does not fit its allocated size, or whose read fails, is read on its
/// own ([`read_snod`], which reports the failure). A node named twice is an error.
fn read_snods<T>(
    file: &File,
    segc: &Cursor,
    addrs: &[Addr],
    make: fn(&Cursor, &SymbolTableEntry) -> Result<T>,
) -> Result<Vec<T>> {
    let raw = file.raw();
    let local = raw.source().is_local();
    let span = if local {
        SNOD_MERGE_SPAN_LOCAL
    } else {
        SNOD_MERGE_SPAN
    };
    let entry = SymbolTableEntry::encoded_size(raw.sizes()) as u64;
    let guess = 8 + 2 * u64::from(group_k(file).0) * entry;
    let mut order: Vec<usize> = (0..addrs.len()).collect();
    order.sort_unstable_by_key(|&i| (addrs[i].0, i));
    if let Some(w) = order.windows(2).find(|w| addrs[w[0]] == addrs[w[1]]) {
        bail!(
            Format,
            "symbol table node at {:#x} referenced twice",
            addrs[w[0]].0
        );
    }
    // Windows of sorted nodes: (start, end, positions in `order`).
    let mut windows: Vec<(u64, u64, std::ops::Range<usize>)> = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        let a = addrs[i].0;
        // A node larger than a merged read is left to `read_snod`.
        let end = a.saturating_add(guess.min(span)).min(raw.end()).max(a);
        match windows.last_mut() {
            Some((start, wend, r))
                if a >= *start
                    && a.saturating_sub(*wend) <= SNOD_MERGE_GAP
                    && end.saturating_sub(*start) <= span =>
            {
                *wend = (*wend).max(end);
                r.end = k + 1;
            }
            _ => windows.push((a, end, k..k + 1)),
        }
    }
    // The links in the address order of their nodes; `spans[i]`: node `addrs[i]`'s.
    let mut links = Links {
        segc,
        make,
        links: Vec::new(),
        spans: vec![None; addrs.len()],
        entries: Vec::new(),
    };
    if local {
        let mut buf = Vec::new();
        for (s, e, r) in &windows {
            // At most SNOD_MERGE_SPAN_LOCAL bytes; zeroed only where the buffer grows.
            let n = (e - s) as usize;
            buf.resize(buf.len().max(n), 0);
            let bytes = &mut buf[..n];
            if raw.read_into(Addr(*s), bytes).is_ok() {
                links.parse_window(raw, entry, addrs, &order[r.clone()], *s, bytes)?;
            }
        }
    } else {
        let mut batches: Vec<&[(u64, u64, std::ops::Range<usize>)]> = Vec::new();
        let (mut first, mut held) = (0, 0u64);
        for (k, (s, e, _)) in windows.iter().enumerate() {
            if k > first && held + (e - s) > SNOD_BATCH_BYTES {
                batches.push(&windows[first..k]);
                (first, held) = (k, 0);
            }
            held += e - s;
        }
        batches.push(&windows[first..]);
        for batch in batches {
            let requests: Vec<(Addr, u64)> =
                batch.iter().map(|(s, e, _)| (Addr(*s), e - s)).collect();
            for ((s, _, r), fetched) in batch.iter().zip(raw.read_batch(&requests)) {
                if let Ok(bytes) = fetched {
                    links.parse_window(raw, entry, addrs, &order[r.clone()], *s, &bytes)?;
                }
            }
        }
    }
    for (i, &a) in addrs.iter().enumerate() {
        if links.spans[i].is_none() {
            let first = links.links.len();
            for e in &read_snod(file, a)?.entries {
                links.links.push(make(segc, e)?);
            }
            links.spans[i] = Some(first..links.links.len());
        }
    }
    Ok(links.into_btree_order())
}

/// What [`read_snods`] gathers: what `make` makes of the entries (links or names), in the
/// address order of their nodes.
struct Links<'s, 'a, T> {
    segc: &'s Cursor<'a>,
    make: fn(&Cursor, &SymbolTableEntry) -> Result<T>,
    links: Vec<T>,
    /// Per node (in B-tree order), where its links lie in `links`, once read.
    spans: Vec<Option<std::ops::Range<usize>>>,
    /// One node's entries (a reused buffer).
    entries: Vec<SymbolTableEntry>,
}

impl<T> Links<'_, '_, T> {
    /// The nodes (`which`, positions in `addrs`) that one fetched window (`bytes` from
    /// address `start`) holds wholly: their links appended, their spans set. A node that
    /// does not parse is left unset, for [`read_snod`] to report; a name that is not in the
    /// heap is an error.
    fn parse_window(
        &mut self,
        raw: &crate::raw::RawFile,
        entry: u64,
        addrs: &[Addr],
        which: &[usize],
        start: u64,
        bytes: &[u8],
    ) -> Result<()> {
        for &i in which {
            let a = addrs[i];
            let Some(b) = usize::try_from(a.0 - start)
                .ok()
                .and_then(|o| bytes.get(o..))
            else {
                continue;
            };
            let need = match b.get(6..8) {
                Some(h) => 8 + u64::from(u16::from_le_bytes([h[0], h[1]])) * entry,
                None => continue,
            };
            let Some(b) = usize::try_from(need).ok().and_then(|n| b.get(..n)) else {
                continue;
            };
            self.entries.clear();
            if SymbolTableNode::parse_entries(&mut raw.cursor(b, a), &mut self.entries).is_ok() {
                let first = self.links.len();
                for e in &self.entries {
                    self.links.push((self.make)(self.segc, e)?);
                }
                self.spans[i] = Some(first..self.links.len());
            }
        }
        Ok(())
    }

    /// The links in the B-tree order of their nodes: each moved to its place in one pass
    /// (a permutation applied in place by its cycles).
    fn into_btree_order(self) -> Vec<T> {
        let Links {
            mut links, spans, ..
        } = self;
        // dest[p]: where the link now at `p` goes (the spans partition `links`).
        let mut dest = vec![0usize; links.len()];
        let mut at = 0;
        for r in spans.into_iter().flatten() {
            let n = r.len();
            for (k, p) in r.enumerate() {
                dest[p] = at + k;
            }
            at += n;
        }
        for i in 0..links.len() {
            while dest[i] != i {
                let j = dest[i];
                links.swap(i, j);
                dest.swap(i, j);
            }
        }
        links
    }
}

/// The group B-tree 'K' values in force: (Group Leaf Node K, Group Internal Node K) of a
/// version 0 or 1 superblock, the reference library's defaults otherwise. Only a guess of
/// node sizes depends on them.
fn group_k(file: &File) -> (u16, u16) {
    match &file.superblock().v0 {
        Some(v0) => (v0.group_leaf_node_k, v0.group_internal_node_k),
        None => (4, 16),
    }
}

/// The bytes of a node at `addr` whose size its first 8 bytes give (`size`): one read of
/// `guess` bytes (the node's allocated size, as the reference library reads it) when that
/// covers it, else a second read of exactly what it needs.
fn read_sized(file: &File, addr: Addr, guess: u64, size: impl Fn(&[u8]) -> u64) -> Result<Vec<u8>> {
    let raw = file.raw();
    let mut b = raw.read_up_to(addr, guess.max(8))?;
    ensure!(
        b.len() >= 8,
        Format,
        "node at {:#x} cut short by the end of the file",
        addr.0
    );
    let need = size(&b);
    ensure!(
        need <= limits::MAX_METADATA_BLOCK,
        LimitExceeded,
        "node of {need} bytes at {:#x}",
        addr.0
    );
    if need > b.len() as u64 {
        b = raw.read(addr, need)?;
    } else {
        b.truncate(need as usize);
    }
    Ok(b)
}

/// Read a version 1 B-tree node at `addr`: one read of its allocated size for a group node
/// (from the 'K' values), else its header first, then exactly its used entries.
pub fn read_v1_node(file: &File, addr: Addr, chunk_rank: Option<usize>) -> Result<v1::Node> {
    let raw = file.raw();
    let sizes = raw.sizes();
    let guess = match chunk_rank {
        None => v1::node_size(sizes, v1::NodeType::Group, 0, group_k(file).1) as u64,
        Some(_) => 8,
    };
    let b = read_sized(file, addr, guess, |head| {
        let ty = match head[4] {
            1 => v1::NodeType::Chunk,
            _ => v1::NodeType::Group,
        };
        let used = u64::from(u16::from_le_bytes([head[6], head[7]]));
        let o = sizes.offset as u64;
        let ks = v1::key_size(sizes, ty, chunk_rank.unwrap_or(0)) as u64;
        8 + 2 * o + (used + 1) * ks + used * o
    })?;
    Ok(v1::Node::parse(&mut raw.cursor(&b, addr), chunk_rank)?)
}
