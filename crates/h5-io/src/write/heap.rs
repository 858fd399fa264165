//! Global heap collections for variable-length data and region references; fractal heaps
//! for dense link and attribute storage.

use h5_format::heap::global::{
    header_size, object_header_size, GlobalHeapCollection, GlobalHeapId, GlobalHeapObject,
    MIN_COLLECTION_SIZE,
};
use std::collections::BTreeMap;

use h5_format::{Addr, Writer};

use h5_format::btree::v2::Record;
use h5_format::checksum::lookup3;

use super::btree2::Btree2Params;
use super::file::{align8, FileWriter};
use super::{bail, ensure, Error, ErrorKind, Result};

/// The collections written so far; objects are appended to the last one while it has room.
#[derive(Debug, Default)]
pub(crate) struct GlobalHeap {
    collections: Vec<(u64, GlobalHeapCollection)>,
}

impl FileWriter {
    /// Store `data` as a new global heap object and return its id. The collection is
    /// re-encoded into the image at once.
    pub(crate) fn gheap_insert(&mut self, data: Vec<u8>) -> Result<GlobalHeapId> {
        let sizes = self.sizes;
        let need = object_header_size(sizes) as u64 + align8(data.len() as u64);
        let fits = self.gheap.collections.last().is_some_and(|(_, c)| {
            c.objects.len() < (u16::MAX - 1) as usize
                && c.free_space(sizes) >= need
                && (c.free_space(sizes) - need == 0
                    || c.free_space(sizes) - need >= object_header_size(sizes) as u64)
        });
        if !fits {
            let size = (header_size(sizes) as u64 + need + object_header_size(sizes) as u64)
                .max(MIN_COLLECTION_SIZE);
            let size = size.div_ceil(4096) * 4096;
            let addr = self.alloc(size);
            self.gheap.collections.push((
                addr,
                GlobalHeapCollection {
                    collection_size: size,
                    objects: Vec::new(),
                },
            ));
        }
        let Some((addr, coll)) = self.gheap.collections.last_mut() else {
            bail!(Format, "no global heap collection");
        };
        let index = coll.objects.len() as u16 + 1;
        coll.objects.push(GlobalHeapObject {
            index,
            reference_count: 0,
            data,
        });
        let mut w = Writer::new(sizes);
        coll.encode(&mut w);
        let at = *addr;
        self.put(at, w.as_slice())?;
        Ok(GlobalHeapId {
            collection: Addr(at),
            index: u32::from(index),
        })
    }
}

/// Creation parameters of a fractal heap: those the reference library uses for dense link
/// storage ([`LINK_HEAP`], `H5Gdense.c`) and dense attribute storage ([`ATTR_HEAP`],
/// `H5Oprivate.h`). Both have a table width of 4, 64 KiB maximum direct blocks, 4 KiB
/// maximum managed objects, one starting root row and checksummed direct blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HeapParams {
    /// "Heap ID Length".
    pub(crate) id_len: u16,
    /// "Starting Block Size".
    pub(crate) start_block: u64,
    /// "Maximum Heap Size" (log2 of the heap's address space).
    pub(crate) max_heap_bits: u16,
}

/// Dense link storage: 7-byte heap IDs, 512-byte starting blocks, 32-bit address space.
pub(crate) const LINK_HEAP: HeapParams = HeapParams {
    id_len: 7,
    start_block: 512,
    max_heap_bits: 32,
};

/// Dense attribute storage: 8-byte heap IDs, 1 KiB starting blocks, 40-bit address space.
pub(crate) const ATTR_HEAP: HeapParams = HeapParams {
    id_len: 8,
    start_block: 1024,
    max_heap_bits: 40,
};

/// Where dense link or attribute storage lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DenseAddrs {
    /// The fractal heap of messages.
    pub(crate) heap: u64,
    /// The version 2 B-tree indexing names.
    pub(crate) names: u64,
    /// The version 2 B-tree indexing creation order, when it is indexed.
    pub(crate) order: Option<u64>,
}

/// What dense storage holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DenseKind {
    /// Link messages of a group: name index of record type 5, creation-order index of
    /// type 6.
    Links,
    /// Attribute messages of an object: name index of record type 8, creation-order index
    /// of type 9.
    Attributes,
}

/// The version 2 B-tree parameters of a dense storage index (the reference library's).
fn index_params(record_type: u8, record_size: u16) -> Btree2Params {
    Btree2Params {
        record_type,
        node_size: 512,
        record_size,
        split_percent: 100,
        merge_percent: 40,
    }
}

/// "Table Width" of the doubling table.
const FHEAP_WIDTH: u16 = 4;
/// "Maximum Direct Block Size".
const FHEAP_MAX_DIRECT: u64 = 65536;
/// "Maximum Size of Managed Objects": bigger objects are huge objects.
pub(crate) const FHEAP_MAX_MANAGED: u32 = 4096;
/// How many partly filled direct blocks are still offered to later objects.
const OPEN_BLOCKS: usize = 16;

/// A direct block being filled: heap offset, size, object bytes so far.
struct Block {
    offset: u64,
    size: u64,
    data: Vec<u8>,
}

/// The size of the direct block that starts at heap offset `offset`: walk down from the root
/// through indirect block rows (`H5HF__man_iter_start_offset`). The heap's address space is
/// the same partition into blocks whatever the root's current number of rows.
fn direct_block_size(dt: &h5_format::heap::fractal::DoublingTable, offset: u64) -> Option<u64> {
    let mut base = 0u64;
    for _ in 0..64 {
        let (row, col) = dt.lookup(offset - base)?;
        let size = dt.row_block_size(row)?;
        if row < dt.max_direct_rows {
            return Some(size);
        }
        base = base
            .checked_add(dt.row_block_offset(row)?)?
            .checked_add(col.checked_mul(size)?)?;
    }
    None
}

/// Number of direct blocks in an indirect block of `nrows` rows, its children's included.
fn direct_blocks_in(dt: &h5_format::heap::fractal::DoublingTable, nrows: u32) -> u64 {
    (0..nrows)
        .map(|row| {
            if row < dt.max_direct_rows {
                dt.width
            } else {
                let child = dt.row_block_size(row).map_or(0, |s| dt.rows_for_size(s));
                dt.width.saturating_mul(direct_blocks_in(dt, child))
            }
        })
        .fold(0u64, u64::saturating_add)
}

impl FileWriter {
    /// Write a fractal heap holding `objects` and return the header's address and each
    /// object's heap ID (`p.id_len` bytes).
    ///
    /// The layout follows the reference library's: a root direct block of the starting size
    /// while everything fits one, else a root indirect block whose rows double as the heap
    /// grows (1, 2, 4... up to the most the address space allows); rows below the maximum
    /// direct block size hold direct blocks, the rows above hold indirect blocks, each with
    /// the rows its size covers. Direct blocks are used in heap-offset order (the allocation
    /// iterator); an object that does not fit the next block skips it (the block stays
    /// unallocated unless a later, smaller object goes there), and an object goes into the
    /// first of the recent partly filled blocks with room. Objects bigger than 4 KiB (the
    /// maximum managed object size) are huge objects: stored on their own and found through
    /// a version 2 B-tree of record type 1 by the ID in their heap ID. No free-space manager
    /// is written.
    pub(crate) fn write_fractal_heap(
        &mut self,
        objects: &[Vec<u8>],
        p: HeapParams,
    ) -> Result<(u64, Vec<Vec<u8>>)> {
        use h5_format::btree::v2::Record;
        use h5_format::heap::fractal::{
            DirectBlock, FractalHeapHeader, HeapId, HeapIdLayout, FLAG_CHECKSUM_DIRECT_BLOCKS,
        };
        let sizes = self.sizes;
        let mut h = FractalHeapHeader {
            heap_id_length: p.id_len,
            flags: FLAG_CHECKSUM_DIRECT_BLOCKS,
            max_managed_object_size: FHEAP_MAX_MANAGED,
            next_huge_id: 0,
            huge_btree: Addr::UNDEF,
            managed_free_space: 0,
            free_space_manager: Addr::UNDEF,
            managed_space: 0,
            allocated_managed_space: 0,
            direct_block_iterator_offset: 0,
            managed_objects: 0,
            huge_objects_size: 0,
            huge_objects: 0,
            tiny_objects_size: 0,
            tiny_objects: 0,
            table_width: FHEAP_WIDTH,
            starting_block_size: p.start_block,
            max_direct_block_size: FHEAP_MAX_DIRECT,
            max_heap_size: p.max_heap_bits,
            starting_root_rows: 1,
            root_block: Addr::UNDEF,
            current_root_rows: 0,
            filters: None,
        };
        let dt = h.doubling_table()?;
        let layout = HeapIdLayout::new(&h, sizes)?;
        let overhead = dt.direct_block_overhead(sizes, true) as u64;
        let heap_end = 1u64
            .checked_shl(u32::from(p.max_heap_bits))
            .unwrap_or(u64::MAX);

        // Placement: managed objects into direct blocks (heap offset, length), huge ones
        // into raw space.
        let mut blocks: Vec<Block> = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        let mut next_off = 0u64;
        let mut ids = Vec::with_capacity(objects.len());
        let mut huge = Vec::new();
        for o in objects {
            let len = o.len() as u64;
            if len > u64::from(FHEAP_MAX_MANAGED) {
                let at = self.alloc_raw(len);
                self.put(at, o)?;
                let hid = huge.len() as u64 + 1;
                huge.push(Record::HugeIndirect {
                    address: Addr(at),
                    length: len,
                    id: hid,
                });
                h.huge_objects += 1;
                h.huge_objects_size += len;
                let mut w = Writer::new(sizes);
                HeapId::HugeIndirect { id: hid }.encode(&mut w, &layout);
                ids.push(w.into_vec());
                continue;
            }
            let fits = |b: &Block| overhead + b.data.len() as u64 + len <= b.size;
            let slot = match open.iter().position(|&i| blocks.get(i).is_some_and(fits)) {
                Some(k) => open[k],
                None => loop {
                    ensure!(
                        next_off < heap_end,
                        LimitExceeded,
                        "dense storage needs more than the {}-bit address space of its \
                         fractal heap",
                        p.max_heap_bits
                    );
                    let Some(size) = direct_block_size(&dt, next_off) else {
                        bail!(Format, "no fractal heap block at offset {next_off}");
                    };
                    blocks.push(Block {
                        offset: next_off,
                        size,
                        data: Vec::new(),
                    });
                    next_off += size;
                    let i = blocks.len() - 1;
                    open.push(i);
                    if open.len() > OPEN_BLOCKS {
                        open.remove(0);
                    }
                    if blocks.get(i).is_some_and(fits) {
                        break i;
                    }
                },
            };
            let Some(b) = blocks.get_mut(slot) else {
                bail!(Format, "no fractal heap block");
            };
            let off = b.offset + overhead + b.data.len() as u64;
            b.data.extend_from_slice(o);
            h.managed_objects += 1;
            let mut w = Writer::new(sizes);
            HeapId::Managed {
                offset: off,
                length: len,
            }
            .encode(&mut w, &layout);
            ids.push(w.into_vec());
        }

        let hsize = {
            let mut w = Writer::new(sizes);
            h.encode(&mut w);
            w.len() as u64
        };
        let haddr = self.alloc(hsize);
        if !huge.is_empty() {
            h.next_huge_id = huge.len() as u64;
            h.huge_btree = Addr(self.write_btree2(
                &super::btree2::Btree2Params {
                    record_type: 1,
                    node_size: 512,
                    record_size: (sizes.offset + 2 * sizes.length) as u16,
                    split_percent: 100,
                    merge_percent: 40,
                },
                &huge,
            )?);
        }

        // Direct blocks that received objects; the others stay unallocated.
        let mut used = 0u64;
        let mut direct: BTreeMap<u64, (u64, Addr)> = BTreeMap::new();
        for b in blocks.into_iter().filter(|b| !b.data.is_empty()) {
            let mut data = b.data;
            used += data.len() as u64;
            h.allocated_managed_space += b.size;
            h.direct_block_iterator_offset = b.offset + b.size;
            data.resize((b.size - overhead) as usize, 0);
            let at = self.alloc(b.size);
            let mut w = Writer::new(sizes);
            DirectBlock {
                heap_header: Addr(haddr),
                block_offset: b.offset,
                checksummed: true,
                data,
            }
            .encode(&mut w, &h);
            self.put(at, w.as_slice())?;
            direct.insert(b.offset, (b.size, Addr(at)));
        }
        let last_end = h.direct_block_iterator_offset;
        if direct.is_empty() {
            // Huge objects only: no managed space.
        } else if last_end <= dt.start_block_size {
            h.root_block = direct.values().next().map_or(Addr::UNDEF, |d| d.1);
            h.managed_space = dt.start_block_size;
            // The reference library leaves the iterator at 0 while the root is a direct block.
            h.direct_block_iterator_offset = 0;
        } else {
            // The root's rows: one, doubling until the last block's row is covered.
            let (last_row, _) = dt
                .lookup(last_end - 1)
                .ok_or_else(|| Error::new(ErrorKind::Format, "fractal heap offset"))?;
            let mut nrows = u32::from(h.starting_root_rows).max(1);
            while nrows <= last_row {
                nrows = (2 * nrows).min(dt.max_root_rows);
            }
            h.current_root_rows = nrows as u16;
            h.root_block = Addr(self.write_indirect_block(&h, &dt, haddr, 0, nrows, &direct)?);
            h.managed_space = dt
                .row_block_offset(nrows)
                .ok_or_else(|| Error::new(ErrorKind::Format, "fractal heap rows overflow"))?;
        }
        // Free space as the reference library counts it: every direct block the root covers
        // (allocated or not) less its prefix, less the objects.
        let blocks_covered = match h.current_root_rows {
            0 if h.root_block.is_undef() => 0,
            0 => 1,
            n => direct_blocks_in(&dt, u32::from(n)),
        };
        h.managed_free_space = h
            .managed_space
            .saturating_sub(overhead.saturating_mul(blocks_covered))
            .saturating_sub(used);
        let mut w = Writer::new(sizes);
        h.encode(&mut w);
        self.put(haddr, w.as_slice())?;
        Ok((haddr, ids))
    }

    /// Write the indirect block of `nrows` rows at heap offset `base` (children first) and
    /// return its address. `direct` maps the heap offset of every allocated direct block to
    /// its size and address; entries without one stay undefined.
    fn write_indirect_block(
        &mut self,
        h: &h5_format::heap::fractal::FractalHeapHeader,
        dt: &h5_format::heap::fractal::DoublingTable,
        haddr: u64,
        base: u64,
        nrows: u32,
        direct: &BTreeMap<u64, (u64, Addr)>,
    ) -> Result<u64> {
        use h5_format::heap::fractal::{DirectEntry, IndirectBlock};
        let overflow = || Error::new(ErrorKind::Format, "fractal heap offset overflow");
        let (k, n) = dt.indirect_entries(nrows);
        let mut ib = IndirectBlock {
            heap_header: Addr(haddr),
            block_offset: base,
            nrows,
            direct: Vec::with_capacity(k as usize),
            indirect: Vec::with_capacity(n as usize),
        };
        for row in 0..nrows {
            let size = dt.row_block_size(row).ok_or_else(overflow)?;
            let row_off = dt.row_block_offset(row).ok_or_else(overflow)?;
            for col in 0..dt.width {
                let off = base
                    .checked_add(row_off)
                    .and_then(|o| o.checked_add(col.checked_mul(size)?))
                    .ok_or_else(overflow)?;
                if row < dt.max_direct_rows {
                    let address = direct.get(&off).map_or(Addr::UNDEF, |d| d.1);
                    ib.direct.push(DirectEntry {
                        address,
                        filtered: None,
                    });
                } else {
                    let end = off.checked_add(size).ok_or_else(overflow)?;
                    let used = direct.range(off..end).next().is_some();
                    let address = if used {
                        let child_rows = dt.rows_for_size(size);
                        Addr(self.write_indirect_block(h, dt, haddr, off, child_rows, direct)?)
                    } else {
                        Addr::UNDEF
                    };
                    ib.indirect.push(address);
                }
            }
        }
        let mut w = Writer::new(self.sizes);
        ib.encode(&mut w, h);
        let at = self.alloc(w.len() as u64);
        self.put(at, w.as_slice())?;
        Ok(at)
    }
}

impl FileWriter {
    /// Dense link or attribute storage: `entries` (name, creation index as stored,
    /// encoded message), in creation order, go to a fractal heap, indexed by a version 2
    /// B-tree of name hashes and, when `indexed`, one of creation indexes.
    pub(crate) fn write_dense_storage(
        &mut self,
        kind: DenseKind,
        mut entries: Vec<(String, u64, Vec<u8>)>,
        indexed: bool,
    ) -> Result<DenseAddrs> {
        let (heap_params, names_params, order_params) = match kind {
            DenseKind::Links => (LINK_HEAP, index_params(5, 11), index_params(6, 15)),
            DenseKind::Attributes => (ATTR_HEAP, index_params(8, 17), index_params(9, 13)),
        };
        let objects: Vec<Vec<u8>> = entries
            .iter_mut()
            .map(|e| std::mem::take(&mut e.2))
            .collect();
        let (heap, ids) = self.write_fractal_heap(&objects, heap_params)?;
        drop(objects);
        let mut names: Vec<(u32, &str, Record)> = Vec::with_capacity(ids.len());
        let mut orders: Vec<(u64, Record)> = Vec::new();
        for ((name, corder, _), id) in entries.iter().zip(&ids) {
            let hash = lookup3(name.as_bytes(), 0);
            let (name_record, order_record) = match kind {
                DenseKind::Links => {
                    let mut heap_id = [0u8; 7];
                    let n = id.len().min(7);
                    heap_id[..n].copy_from_slice(&id[..n]);
                    (
                        Record::LinkName { hash, heap_id },
                        Record::LinkCreationOrder {
                            creation_order: *corder,
                            heap_id,
                        },
                    )
                }
                DenseKind::Attributes => {
                    let mut heap_id = [0u8; 8];
                    let n = id.len().min(8);
                    heap_id[..n].copy_from_slice(&id[..n]);
                    let creation_order = u32::try_from(*corder).unwrap_or(u32::MAX);
                    (
                        Record::AttributeName {
                            heap_id,
                            message_flags: 0,
                            creation_order,
                            hash,
                        },
                        Record::AttributeCreationOrder {
                            heap_id,
                            message_flags: 0,
                            creation_order,
                        },
                    )
                }
            };
            names.push((hash, name, name_record));
            if indexed {
                orders.push((*corder, order_record));
            }
        }
        names.sort_by(|a, b| (a.0, a.1.as_bytes()).cmp(&(b.0, b.1.as_bytes())));
        let records: Vec<Record> = names.into_iter().map(|r| r.2).collect();
        let name_tree = self.write_btree2(&names_params, &records)?;
        let order_tree = if indexed {
            orders.sort_by_key(|o| o.0);
            let records: Vec<Record> = orders.into_iter().map(|o| o.1).collect();
            Some(self.write_btree2(&order_params, &records)?)
        } else {
            None
        };
        Ok(DenseAddrs {
            heap,
            names: name_tree,
            order: order_tree,
        })
    }
}

#[cfg(test)]
mod tests;
