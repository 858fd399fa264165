//! Global heap collections for variable-length data and region references.

use h5_format::heap::global::{
    header_size, object_header_size, GlobalHeapCollection, GlobalHeapId, GlobalHeapObject,
    MIN_COLLECTION_SIZE,
};
use h5_format::{Addr, Writer};

use super::file::{align8, FileWriter};
use super::{ensure, Result};

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
            super::bail!(Format, "no global heap collection");
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

/// Largest managed object of the fractal heaps written here (heap IDs keep 2 length bytes).
const FHEAP_MAX_MANAGED: u32 = 65536 - 64;
/// Largest direct block.
const FHEAP_MAX_DIRECT: u64 = 65536;

impl FileWriter {
    /// Write a fractal heap holding `objects` as managed objects in one root direct block
    /// (checksummed) and return the header's address and each object's heap ID (`id_len`
    /// bytes: version/type byte, 4-byte offset, 2-byte length, zero padding).
    pub(crate) fn write_fractal_heap(
        &mut self,
        objects: &[Vec<u8>],
        id_len: u16,
    ) -> Result<(u64, Vec<Vec<u8>>)> {
        use h5_format::heap::fractal::{
            DirectBlock, DirectEntry, FractalHeapHeader, IndirectBlock, FLAG_CHECKSUM_DIRECT_BLOCKS,
        };
        let sizes = self.sizes;
        let mut h = FractalHeapHeader {
            heap_id_length: id_len,
            flags: FLAG_CHECKSUM_DIRECT_BLOCKS,
            max_managed_object_size: FHEAP_MAX_MANAGED,
            next_huge_id: 0,
            huge_btree: Addr::UNDEF,
            managed_free_space: 0,
            free_space_manager: Addr::UNDEF,
            managed_space: 0,
            allocated_managed_space: 0,
            direct_block_iterator_offset: 0,
            managed_objects: objects.len() as u64,
            huge_objects_size: 0,
            huge_objects: 0,
            tiny_objects_size: 0,
            tiny_objects: 0,
            table_width: 4,
            starting_block_size: 512,
            max_direct_block_size: FHEAP_MAX_DIRECT,
            max_heap_size: 32,
            starting_root_rows: 1,
            root_block: Addr::UNDEF,
            current_root_rows: 0,
            filters: None,
        };
        let dt = h.doubling_table()?;
        let overhead = dt.direct_block_overhead(sizes, true) as u64;
        // Objects too big for a managed block are "huge": stored on their own and found by
        // id through a version 2 B-tree (record type 1, indirect ids).
        let is_huge = |o: &Vec<u8>| o.len() as u64 > u64::from(FHEAP_MAX_MANAGED);
        let total: u64 = objects
            .iter()
            .filter(|o| !is_huge(o))
            .map(|o| o.len() as u64)
            .sum();
        // One root direct block when everything fits, else a root indirect block of direct
        // blocks (rows of 512-byte blocks doubling up to 64 KiB, four per row).
        let single = overhead + total <= FHEAP_MAX_DIRECT;
        h.starting_block_size = if single {
            (overhead + total).next_power_of_two().max(512)
        } else {
            512
        };
        let dt = h.doubling_table()?;
        let width = dt.width;
        // Direct blocks: (heap offset, size, bytes after the prefix).
        let mut blocks: Vec<(u64, u64, Vec<u8>)> = Vec::new();
        let mut row = 0u32;
        let mut col = 0u64;
        let new_block = |row: u32, col: u64| -> Result<(u64, u64, Vec<u8>)> {
            let size = dt.row_block_size(row);
            let base = dt.row_block_offset(row);
            match (size, base) {
                (Some(size), Some(base)) if row < dt.max_direct_rows => {
                    Ok((base + col * size, size, Vec::new()))
                }
                _ => super::bail!(
                    Unsupported,
                    "{total} bytes of dense storage need nested indirect fractal heap blocks, \
                     not written yet"
                ),
            }
        };
        blocks.push(new_block(0, 0)?);
        let mut ids = Vec::with_capacity(objects.len());
        let mut huge = Vec::new();
        for o in objects {
            if is_huge(o) {
                let at = self.alloc_raw(o.len() as u64);
                self.put(at, o)?;
                let hid = huge.len() as u64 + 1;
                huge.push(h5_format::btree::v2::Record::HugeIndirect {
                    address: Addr(at),
                    length: o.len() as u64,
                    id: hid,
                });
                h.huge_objects += 1;
                h.huge_objects_size += o.len() as u64;
                let mut w = Writer::new(sizes);
                w.put_u8(0x10);
                w.put_uint(hid, id_len as usize - 1);
                ids.push(w.into_vec());
                continue;
            }
            let len = o.len() as u64;
            loop {
                let Some((_, size, data)) = blocks.last() else {
                    super::bail!(Format, "no fractal heap block");
                };
                if overhead + data.len() as u64 + len <= *size {
                    break;
                }
                col += 1;
                if col == width {
                    col = 0;
                    row += 1;
                }
                blocks.push(new_block(row, col)?);
            }
            let Some((boff, _, data)) = blocks.last_mut() else {
                super::bail!(Format, "no fractal heap block");
            };
            let off = *boff + overhead + data.len() as u64;
            data.extend_from_slice(o);
            let mut id = vec![0u8; id_len as usize];
            let mut w = Writer::new(sizes);
            w.put_u8(0);
            w.put_uint(off, dt.heap_off_size);
            w.put_uint(len, dt.heap_len_size);
            let b = w.as_slice();
            ensure!(b.len() <= id.len(), Format, "heap ID of {} bytes", b.len());
            id[..b.len()].copy_from_slice(b);
            ids.push(id);
        }
        let hsize = {
            let mut w = Writer::new(sizes);
            h.encode(&mut w);
            w.len() as u64
        };
        let haddr = self.alloc(hsize);
        h.managed_objects = (objects.len() - huge.len()) as u64;
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
        let mut addrs = Vec::with_capacity(blocks.len());
        for (boff, size, mut data) in blocks {
            h.managed_free_space += size - overhead - data.len() as u64;
            h.allocated_managed_space += size;
            h.direct_block_iterator_offset = boff + size;
            data.resize((size - overhead) as usize, 0);
            let at = self.alloc(size);
            let mut w = Writer::new(sizes);
            DirectBlock {
                heap_header: Addr(haddr),
                block_offset: boff,
                checksummed: true,
                data,
            }
            .encode(&mut w, &h);
            self.put(at, w.as_slice())?;
            addrs.push(Addr(at));
        }
        if single {
            h.root_block = addrs.first().copied().unwrap_or(Addr::UNDEF);
            h.managed_space = h.starting_block_size;
        } else {
            let nrows = row + 1;
            let (k, n) = dt.indirect_entries(nrows);
            let mut direct = vec![
                DirectEntry {
                    address: Addr::UNDEF,
                    filtered: None,
                };
                k as usize
            ];
            for (slot, a) in direct.iter_mut().zip(&addrs) {
                slot.address = *a;
            }
            let ib = IndirectBlock {
                heap_header: Addr(haddr),
                block_offset: 0,
                nrows,
                direct,
                indirect: vec![Addr::UNDEF; n as usize],
            };
            let mut w = Writer::new(sizes);
            ib.encode(&mut w, &h);
            let at = self.alloc(w.len() as u64);
            self.put(at, w.as_slice())?;
            h.root_block = Addr(at);
            h.current_root_rows = nrows as u16;
            h.managed_space = dt.row_block_offset(nrows).unwrap_or(0);
        }
        let mut w = Writer::new(sizes);
        h.encode(&mut w);
        self.put(haddr, w.as_slice())?;
        Ok((haddr, ids))
    }
}
