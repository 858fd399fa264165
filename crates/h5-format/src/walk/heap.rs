//! Fractal heaps (every block, huge objects, object lookup), version 2 B-trees (every node,
//! record order and counts).

use std::collections::HashMap;

use super::Walker;
use crate::btree::v2::{self, Header, NodeRef, Record, Tree, Visitor};
use crate::heap::fractal::{
    BlockVisitor, DirectBlock, DirectRef, FractalHeapHeader, HeapIdLayout, IndirectBlock,
    IndirectRef, Location,
};
use crate::{Addr, Error, Result};

const FRHP: &str = "fractal heap header";
const FHIB: &str = "fractal heap indirect block";
const FHDB: &str = "fractal heap direct block";
const BTHD: &str = "v2 B-tree header";
const BTNODE: &str = "v2 B-tree node";

/// A fractal heap whose blocks were walked, ready to look objects up.
pub(crate) struct Heap {
    pub(crate) addr: Addr,
    pub(crate) header: FractalHeapHeader,
    /// Huge objects by ID (from the huge object B-tree, walked whole already).
    huge: HashMap<u64, Location>,
}

/// The walk's checks on the nodes of a v2 B-tree, as the navigator visits them.
struct CheckNodes<'w, 'a> {
    w: &'w mut Walker<'a>,
    path: &'w str,
    records: Vec<Record>,
}

impl Visitor<Error> for CheckNodes<'_, '_> {
    fn enter(&mut self, node: &NodeRef, _size: u64) -> Result<bool> {
        Ok(self.w.budget() && self.w.first_visit(BTNODE, node.address.0, self.path))
    }

    fn record(&mut self, record: Record) -> Result<()> {
        self.records.push(record);
        Ok(())
    }

    fn failed(&mut self, node: &NodeRef, error: Error) -> Result<()> {
        self.w.error(error, BTNODE, node.address.0, self.path);
        Ok(())
    }

    fn subtree(&mut self, node: &NodeRef, records: u64) -> Result<()> {
        if let (Some(t), Some((parent, i))) = (node.total_records, node.parent) {
            if t != records {
                self.w.problem(
                    BTNODE,
                    parent.0,
                    format!(
                        "child {i} counts {t} records below it, holds {records} (in {})",
                        self.path
                    ),
                );
            }
        }
        Ok(())
    }
}

/// The walk's checks on the blocks of a fractal heap, as the navigator visits them.
struct CheckBlocks<'w, 'a> {
    w: &'w mut Walker<'a>,
    heap: &'w Heap,
    path: &'w str,
}

impl BlockVisitor<Error> for CheckBlocks<'_, '_> {
    fn enter(&mut self, block: &IndirectRef, _size: u64) -> Result<bool> {
        Ok(self.w.budget() && self.w.first_visit(FHIB, block.address.0, self.path))
    }

    fn indirect(&mut self, block: &IndirectRef, ib: &IndirectBlock) -> Result<()> {
        let (a, path) = (block.address.0, self.path);
        if ib.heap_header != self.heap.addr {
            self.w.problem(
                FHIB,
                a,
                format!(
                    "heap header address {} instead of {} (in {path})",
                    ib.heap_header, self.heap.addr
                ),
            );
        }
        if ib.block_offset != block.offset {
            self.w.problem(
                FHIB,
                a,
                format!(
                    "block offset {} where {} is expected (in {path})",
                    ib.block_offset, block.offset
                ),
            );
        }
        Ok(())
    }

    fn direct(&mut self, d: &DirectRef) -> Result<()> {
        let filtered = d.filtered.map(|f| f.size);
        self.w
            .direct_block(self.heap, d.address, d.size, d.offset, filtered, self.path);
        Ok(())
    }

    fn failed(&mut self, block: &IndirectRef, error: Error) -> Result<()> {
        self.w.error(error, FHIB, block.address.0, self.path);
        Ok(())
    }
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
        let src = self.reader();
        let h = match Tree::read_header(&src, addr) {
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
        let tree = match Tree::new(addr, h, self.sizes) {
            Ok(t) => t,
            Err(e) => {
                self.error(e, BTHD, addr.0, path);
                return None;
            }
        };
        let h = &tree.header;
        if h.root.is_undef() {
            if h.total_records != 0 || h.root_records != 0 {
                self.problem(
                    BTHD,
                    addr.0,
                    format!("no root node but {} records (in {path})", h.total_records),
                );
            }
            return Some((tree.header, Vec::new()));
        }
        let mut v = CheckNodes {
            w: self,
            path,
            records: Vec::new(),
        };
        let complete = match tree.visit(&src, &mut v) {
            Ok(c) => c,
            Err(e) => {
                v.w.error(e, BTHD, addr.0, path);
                None
            }
        };
        let records = v.records;
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
        Some((tree.header, records))
    }

    /// Parse a fractal heap header and walk all its blocks and huge objects.
    pub(crate) fn fractal_heap(&mut self, addr: Addr, path: &str) -> Option<Heap> {
        if !self.budget() || !self.first_visit(FRHP, addr.0, path) {
            return None;
        }
        let header = match FractalHeapHeader::read(&self.reader(), addr) {
            Ok((h, _)) => h,
            Err(e) => {
                self.error(e, FRHP, addr.0, path);
                return None;
            }
        };
        if let Err(e) = HeapIdLayout::new(&header, self.sizes) {
            self.error(e, FRHP, addr.0, path);
            return None;
        }
        let mut heap = Heap {
            addr,
            header,
            huge: HashMap::new(),
        };
        let src = self.reader();
        let mut v = CheckBlocks {
            w: self,
            heap: &heap,
            path,
        };
        if let Err(e) = heap.header.visit_blocks(&src, &mut v) {
            v.w.error(e, FRHP, addr.0, path);
        }
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
                    let Some((id, loc)) = Location::of_huge_record(&r) else {
                        continue;
                    };
                    let (Location::Plain { address, length }
                    | Location::Filtered {
                        address,
                        stored: length,
                        ..
                    }) = loc
                    else {
                        continue;
                    };
                    self.check_range(FRHP, address, length, "huge object", path);
                    if let Some(id) = id {
                        heap.huge.insert(id, loc);
                    }
                }
            }
        }
        Some(heap)
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
        let src = self.reader();
        let loc = heap
            .header
            .locate_with(&src, id, Some(at), |h| Ok(heap.huge.get(&h).cloned()))?;
        match loc {
            Location::Tiny(data) => Ok(Some(data)),
            Location::Plain { address, length } => Ok(Some(
                self.bytes("fractal heap object", address, length)?
                    .into_owned(),
            )),
            // Filters are not part of this crate: a huge object is only checked to lie in
            // the file, an object of a filtered block (checked with its block) not at all.
            Location::Filtered {
                address,
                stored,
                object: None,
                ..
            } => {
                self.bytes("fractal heap huge object", address, stored)?;
                Ok(None)
            }
            Location::Filtered { .. } => Ok(None),
        }
    }
}
