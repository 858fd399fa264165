//! Fractal heaps (every block, huge objects, object lookup), version 2 B-trees (every node,
//! record order and counts).

use std::collections::HashMap;

use super::Walker;
use crate::btree::v2::{self, Header, Record};
use crate::heap::fractal::{
    Child, DirectBlock, FractalHeapHeader, HeapId, HeapIdLayout, IndirectBlock,
};
use crate::{limits, Addr, Error, ErrorKind, Result};

const FRHP: &str = "fractal heap header";
const FHIB: &str = "fractal heap indirect block";
const FHDB: &str = "fractal heap direct block";
const BTHD: &str = "v2 B-tree header";
const BTNODE: &str = "v2 B-tree node";

/// A fractal heap whose blocks were walked, ready to look objects up.
pub(crate) struct Heap {
    pub(crate) addr: Addr,
    pub(crate) header: FractalHeapHeader,
    layout: HeapIdLayout,
    /// Huge objects by ID (from the huge object B-tree): address, length, filtered.
    huge: HashMap<u64, (Addr, u64, bool)>,
}

/// How the records of a v2 B-tree are ordered: the sort key, and whether equal keys may repeat.
fn record_key(r: &Record) -> Option<(Vec<u64>, bool)> {
    Some(match r {
        Record::HugeIndirect { id, .. } | Record::HugeIndirectFiltered { id, .. } => {
            (vec![*id], false)
        }
        Record::HugeDirect { address, .. } | Record::HugeDirectFiltered { address, .. } => {
            (vec![address.0], false)
        }
        Record::LinkName { hash, .. } | Record::AttributeName { hash, .. } => {
            (vec![u64::from(*hash)], true)
        }
        Record::LinkCreationOrder { creation_order, .. } => (vec![*creation_order], false),
        Record::AttributeCreationOrder { creation_order, .. } => {
            (vec![u64::from(*creation_order)], false)
        }
        Record::SharedMessage(m) => (
            vec![u64::from(match m {
                v2::SharedMessageRecord::InHeap { hash, .. }
                | v2::SharedMessageRecord::InObjectHeader { hash, .. } => *hash,
            })],
            true,
        ),
        Record::Chunk { scaled, .. } | Record::FilteredChunk { scaled, .. } => {
            (scaled.clone(), false)
        }
        Record::Unknown { .. } => return None,
    })
}

impl Walker<'_> {
    /// Walk a version 2 B-tree: every node, the node counts, the record order. Returns the
    /// header and the records in key order (`None` when the header is unusable).
    pub(crate) fn v2_btree(
        &mut self,
        addr: Addr,
        record_types: &[u8],
        path: &str,
    ) -> Option<(Header, Vec<Record>)> {
        if !self.budget() || !self.first_visit(BTHD, addr.0, path) {
            return None;
        }
        let r = self
            .window(BTHD, addr, Header::encoded_size(self.sizes) as u64)
            .and_then(|b| Header::parse(&mut self.cursor(&b, addr)));
        let h = match r {
            Ok(h) => h,
            Err(e) => {
                self.error(e, BTHD, addr.0, path);
                return None;
            }
        };
        if !record_types.contains(&h.record_type) {
            self.problem(
                BTHD,
                addr.0,
                format!(
                    "record type {} where {record_types:?} is expected (in {path})",
                    h.record_type
                ),
            );
            return None;
        }
        let info = match h.node_info(self.sizes) {
            Ok(i) => i,
            Err(e) => {
                self.error(e, BTHD, addr.0, path);
                return None;
            }
        };
        let mut records = Vec::new();
        if h.root.is_undef() {
            if h.total_records != 0 || h.root_records != 0 {
                self.problem(
                    BTHD,
                    addr.0,
                    format!("no root node but {} records (in {path})", h.total_records),
                );
            }
            return Some((h, records));
        }
        let complete = self.v2_node(
            &h,
            &info,
            h.root,
            h.depth as usize,
            h.root_records as u64,
            &mut records,
            path,
        );
        if complete.is_some() && records.len() as u64 != h.total_records {
            self.problem(
                BTHD,
                addr.0,
                format!(
                    "the header counts {} records, the nodes hold {} (in {path})",
                    h.total_records,
                    records.len()
                ),
            );
        }
        // Record order.
        let mut prev: Option<Vec<u64>> = None;
        for r in &records {
            let Some((key, dup_ok)) = record_key(r) else {
                continue;
            };
            if let Some(p) = &prev {
                if key < *p || (key == *p && !dup_ok) {
                    self.problem(
                        BTHD,
                        addr.0,
                        format!("records out of order: key {key:?} after {p:?} (in {path})"),
                    );
                    break;
                }
            }
            prev = Some(key);
        }
        Some((h, records))
    }

    /// One node and its subtree; appends its records in order. `Some(count)` when the whole
    /// subtree parsed.
    #[allow(clippy::too_many_arguments)]
    fn v2_node(
        &mut self,
        h: &Header,
        info: &v2::NodeInfo,
        addr: Addr,
        depth: usize,
        nrecords: u64,
        out: &mut Vec<Record>,
        path: &str,
    ) -> Option<u64> {
        if !self.budget() || !self.first_visit(BTNODE, addr.0, path) {
            return None;
        }
        let bytes = match self.bytes(BTNODE, addr, info.node_size) {
            Ok(b) => b,
            Err(e) => {
                self.error(e, BTNODE, addr.0, path);
                return None;
            }
        };
        let mut c = self.cursor(&bytes, addr);
        if depth == 0 {
            match v2::LeafNode::parse(&mut c, h, info, nrecords) {
                Ok(n) => {
                    out.extend(n.records);
                    Some(nrecords)
                }
                Err(e) => {
                    self.error(e, BTNODE, addr.0, path);
                    None
                }
            }
        } else {
            let node = match v2::InternalNode::parse(&mut c, h, info, depth, nrecords) {
                Ok(n) => n,
                Err(e) => {
                    self.error(e, BTNODE, addr.0, path);
                    return None;
                }
            };
            let mut total = nrecords;
            let mut complete = true;
            let mut recs = node.records.into_iter();
            for (i, p) in node.children.iter().enumerate() {
                let below = self.v2_node(h, info, p.address, depth - 1, p.records, out, path);
                match (below, p.total_records) {
                    (Some(n), Some(t)) if n != t => self.problem(
                        BTNODE,
                        addr.0,
                        format!("child {i} counts {t} records below it, holds {n} (in {path})"),
                    ),
                    (Some(n), _) => total = total.saturating_add(n),
                    (None, _) => complete = false,
                }
                if let Some(r) = recs.next() {
                    out.push(r);
                }
            }
            complete.then_some(total)
        }
    }

    /// Parse a fractal heap header and walk all its blocks and huge objects.
    pub(crate) fn fractal_heap(&mut self, addr: Addr, path: &str) -> Option<Heap> {
        if !self.budget() || !self.first_visit(FRHP, addr.0, path) {
            return None;
        }
        let r = self
            .window(FRHP, addr, 1 << 17)
            .and_then(|b| FractalHeapHeader::parse(&mut self.cursor(&b, addr)));
        let header = match r {
            Ok(h) => h,
            Err(e) => {
                self.error(e, FRHP, addr.0, path);
                return None;
            }
        };
        let layout = match HeapIdLayout::new(&header, self.sizes) {
            Ok(l) => l,
            Err(e) => {
                self.error(e, FRHP, addr.0, path);
                return None;
            }
        };
        let mut heap = Heap {
            addr,
            header,
            layout,
            huge: HashMap::new(),
        };
        self.heap_blocks(&heap, path);
        let fsm = heap.header.free_space_manager;
        if !fsm.is_undef() {
            if let Ok(dt) = heap.header.doubling_table() {
                let client = super::free_space::Client::Heap {
                    heap_offset_size: dt.heap_off_size,
                };
                self.free_space_manager(fsm, client, path);
            }
        }
        if !heap.header.huge_btree.is_undef() {
            if let Some((_, recs)) = self.v2_btree(heap.header.huge_btree, &[1, 2, 3, 4], path) {
                for r in recs {
                    let (id, a, len, filtered) = match r {
                        Record::HugeIndirect {
                            address,
                            length,
                            id,
                        } => (Some(id), address, length, false),
                        Record::HugeIndirectFiltered {
                            address,
                            length,
                            id,
                            ..
                        } => (Some(id), address, length, true),
                        Record::HugeDirect { address, length } => (None, address, length, false),
                        Record::HugeDirectFiltered {
                            address, length, ..
                        } => (None, address, length, true),
                        _ => continue,
                    };
                    self.check_range(FRHP, a, len, "huge object", path);
                    if let Some(id) = id {
                        heap.huge.insert(id, (a, len, filtered));
                    }
                }
            }
        }
        Some(heap)
    }

    fn heap_blocks(&mut self, heap: &Heap, path: &str) {
        let h = &heap.header;
        if h.root_block.is_undef() {
            return;
        }
        let dt = match h.doubling_table() {
            Ok(d) => d,
            Err(e) => return self.error(e, FRHP, heap.addr.0, path),
        };
        if h.current_root_rows == 0 {
            let filtered = h.filters.as_ref().map(|f| f.root_direct_block_size);
            self.direct_block(heap, h.root_block, dt.start_block_size, 0, filtered, path);
            return;
        }
        // (address, rows, heap offset of the block, nesting)
        let mut stack = vec![(h.root_block, h.current_root_rows as u32, 0u64, 0usize)];
        while let Some((a, nrows, offset, nest)) = stack.pop() {
            if nest > limits::MAX_FRACTAL_HEAP_ROWS
                || !self.budget()
                || !self.first_visit(FHIB, a.0, path)
            {
                continue;
            }
            let sizes = self.sizes;
            let entries = u64::from(nrows).saturating_mul(dt.width);
            let entry = u64::from(sizes.offset) + u64::from(sizes.length) + 4;
            let bound = entries.saturating_mul(entry).saturating_add(32);
            let r = self
                .window(FHIB, a, bound)
                .and_then(|b| IndirectBlock::parse(&mut self.cursor(&b, a), h, nrows));
            let ib = match r {
                Ok(ib) => ib,
                Err(e) => {
                    self.error(e, FHIB, a.0, path);
                    continue;
                }
            };
            if ib.heap_header != heap.addr {
                self.problem(
                    FHIB,
                    a.0,
                    format!(
                        "heap header address {} instead of {} (in {path})",
                        ib.heap_header, heap.addr
                    ),
                );
            }
            if ib.block_offset != offset {
                self.problem(
                    FHIB,
                    a.0,
                    format!(
                        "block offset {} where {offset} is expected (in {path})",
                        ib.block_offset
                    ),
                );
            }
            for row in 0..nrows {
                let (Some(size), Some(row_off)) =
                    (dt.row_block_size(row), dt.row_block_offset(row))
                else {
                    continue;
                };
                for col in 0..dt.width {
                    let child_off = offset
                        .saturating_add(row_off)
                        .saturating_add(size.saturating_mul(col));
                    match ib.child(&dt, row, col) {
                        Some(Child::Direct(e)) if !e.address.is_undef() => {
                            let filtered = e.filtered.map(|f| f.size);
                            self.direct_block(heap, e.address, size, child_off, filtered, path);
                        }
                        Some(Child::Indirect(c)) if !c.is_undef() => {
                            stack.push((c, dt.rows_for_size(size), child_off, nest + 1));
                        }
                        _ => {}
                    }
                }
            }
        }
    }

    /// A direct block of `size` bytes at heap offset `offset`; a filtered block (its stored
    /// size given) is only checked to lie inside the file.
    fn direct_block(
        &mut self,
        heap: &Heap,
        a: Addr,
        size: u64,
        offset: u64,
        filtered: Option<u64>,
        path: &str,
    ) {
        if !self.budget() || !self.first_visit(FHDB, a.0, path) {
            return;
        }
        if let Some(stored) = filtered {
            self.check_range(FHDB, a, stored, "filtered direct block", path);
            return;
        }
        let r = self
            .bytes(FHDB, a, size)
            .and_then(|b| DirectBlock::parse(&mut self.cursor(&b, a), &heap.header, size));
        match r {
            Ok(db) => {
                if db.heap_header != heap.addr {
                    self.problem(
                        FHDB,
                        a.0,
                        format!(
                            "heap header address {} instead of {} (in {path})",
                            db.heap_header, heap.addr
                        ),
                    );
                }
                if db.block_offset != offset {
                    self.problem(
                        FHDB,
                        a.0,
                        format!(
                            "block offset {} where {offset} is expected (in {path})",
                            db.block_offset
                        ),
                    );
                }
            }
            Err(e) => self.error(e, FHDB, a.0, path),
        }
    }

    /// The bytes of the heap object `id`; `None` (quietly) for objects in filtered blocks,
    /// which this layer cannot decode, and `None` with a problem when the ID does not resolve.
    pub(crate) fn heap_object(
        &mut self,
        heap: &Heap,
        id: &[u8],
        at: u64,
        path: &str,
    ) -> Option<Vec<u8>> {
        let r = self.resolve(heap, id, at);
        match r {
            Ok(v) => v,
            Err(e) => {
                self.error(e, "fractal heap ID", at, path);
                None
            }
        }
    }

    fn resolve(&mut self, heap: &Heap, id: &[u8], at: u64) -> Result<Option<Vec<u8>>> {
        let mut c = self.cursor(id, Addr(at));
        let id = HeapId::parse(&mut c, &heap.layout)?;
        let err = |m: String| Error::new(ErrorKind::InvalidValue, "fractal heap ID", at, m);
        match id {
            HeapId::Tiny { data } => Ok(Some(data)),
            HeapId::Managed { offset, length } => {
                let h = &heap.header;
                let me = &*self;
                let entry = u64::from(me.sizes.offset) + u64::from(me.sizes.length) + 4;
                let loc = h.locate_managed(offset, length, |a, nrows| {
                    let n = u64::from(nrows) * u64::from(h.table_width);
                    let b = me.window(FHIB, a, 32 + n * entry)?;
                    IndirectBlock::parse(&mut me.cursor(&b, a), h, nrows)
                })?;
                if loc.filtered.is_some() {
                    return Ok(None);
                }
                let overhead = h
                    .doubling_table()?
                    .direct_block_overhead(self.sizes, h.checksums_direct_blocks())
                    as u64;
                if loc.offset_in_block < overhead {
                    return Err(err(format!(
                        "object at heap offset {offset} overlaps its block's prefix"
                    )));
                }
                let start = Addr(loc.block_address.0.saturating_add(loc.offset_in_block));
                Ok(Some(
                    self.bytes("fractal heap object", start, length)?
                        .into_owned(),
                ))
            }
            HeapId::HugeDirect { address, length } => Ok(Some(
                self.bytes("fractal heap huge object", address, length)?
                    .into_owned(),
            )),
            HeapId::HugeDirectFiltered {
                address, length, ..
            } => {
                self.bytes("fractal heap huge object", address, length)?;
                Ok(None)
            }
            HeapId::HugeIndirect { id } => match heap.huge.get(&id) {
                Some(&(_, _, true)) => Ok(None),
                Some(&(a, len, false)) => Ok(Some(
                    self.bytes("fractal heap huge object", a, len)?.into_owned(),
                )),
                None => Err(err(format!("huge object {id} is not in the heap's B-tree"))),
            },
        }
    }
}
