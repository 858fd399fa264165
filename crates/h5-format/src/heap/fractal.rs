//! Fractal heaps: the header (`FRHP`), direct blocks (`FHDB`), indirect blocks (`FHIB`), the
//! doubling table arithmetic that places blocks in the heap's address space, and heap IDs
//! (managed, huge, tiny).

use crate::bits::{bytes_for_bits, check_count, limit_enc_size, log2_gen, verify_zeroed_checksum};
use crate::{limits, Addr, Cursor, Error, ErrorKind, Result, Sizes, Writer};

/// Header signature.
pub const HEADER_SIGNATURE: [u8; 4] = *b"FRHP";
/// Direct block signature.
pub const DIRECT_SIGNATURE: [u8; 4] = *b"FHDB";
/// Indirect block signature.
pub const INDIRECT_SIGNATURE: [u8; 4] = *b"FHIB";

const HEADER: &str = "fractal heap header";
const DIRECT: &str = "fractal heap direct block";
const INDIRECT: &str = "fractal heap indirect block";
const HEAP_ID: &str = "fractal heap ID";

/// Flag bit 0: the huge object ID counter has wrapped.
pub const FLAG_HUGE_ID_WRAPPED: u8 = 0x01;
/// Flag bit 1: direct blocks are checksummed.
pub const FLAG_CHECKSUM_DIRECT_BLOCKS: u8 = 0x02;

/// The I/O filter part of a header, present when "I/O Filters' Encoded Length" is above 0.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HeapFilters {
    /// "Size of Filtered Root Direct Block".
    pub root_direct_block_size: u64,
    /// "I/O Filter Mask" of the root direct block.
    pub filter_mask: u32,
    /// "I/O Filter Information": the encoded filter pipeline message, kept as bytes.
    pub pipeline: Vec<u8>,
}

/// A fractal heap header.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FractalHeapHeader {
    /// "Heap ID Length" in bytes.
    pub heap_id_length: u16,
    /// "Flags".
    pub flags: u8,
    /// "Maximum Size of Managed Objects".
    pub max_managed_object_size: u32,
    /// "Next Huge Object ID".
    pub next_huge_id: u64,
    /// "v2 B-tree Address of Huge Objects".
    pub huge_btree: Addr,
    /// "Amount of Free Space in Managed Blocks".
    pub managed_free_space: u64,
    /// "Address of Managed Block Free Space Manager".
    pub free_space_manager: Addr,
    /// "Amount of Managed Space in Heap".
    pub managed_space: u64,
    /// "Amount of Allocated Managed Space in Heap".
    pub allocated_managed_space: u64,
    /// "Offset of Direct Block Allocation Iterator in Managed Space".
    pub direct_block_iterator_offset: u64,
    /// "Number of Managed Objects in Heap".
    pub managed_objects: u64,
    /// "Size of Huge Objects in Heap".
    pub huge_objects_size: u64,
    /// "Number of Huge Objects in Heap".
    pub huge_objects: u64,
    /// "Size of Tiny Objects in Heap".
    pub tiny_objects_size: u64,
    /// "Number of Tiny Objects in Heap".
    pub tiny_objects: u64,
    /// "Table Width": columns of the doubling table.
    pub table_width: u16,
    /// "Starting Block Size".
    pub starting_block_size: u64,
    /// "Maximum Direct Block Size".
    pub max_direct_block_size: u64,
    /// "Maximum Heap Size": log2 of the heap's address space.
    pub max_heap_size: u16,
    /// "Starting # of Rows in Root Indirect Block".
    pub starting_root_rows: u16,
    /// "Address of Root Block" (undefined for an empty heap).
    pub root_block: Addr,
    /// "Current # of Rows in Root Indirect Block" (0: the root is a direct block).
    pub current_root_rows: u16,
    /// Filter information, when the heap's blocks are filtered.
    pub filters: Option<HeapFilters>,
}

impl FractalHeapHeader {
    /// Parse a header, check its checksum and its doubling table parameters.
    pub fn parse(c: &mut Cursor<'_>) -> Result<FractalHeapHeader> {
        c.set_structure(HEADER);
        let start = c.pos();
        let at = c.offset();
        c.expect_signature(&HEADER_SIGNATURE)?;
        let version = c.read_u8()?;
        crate::ensure!(
            version == 0,
            UnsupportedVersion,
            HEADER,
            at + 4,
            "version {version}"
        );
        let heap_id_length = c.read_u16()?;
        let filter_len = c.read_u16()?;
        let flags = c.read_u8()?;
        let max_managed_object_size = c.read_u32()?;
        let next_huge_id = c.read_len()?;
        let huge_btree = c.read_addr()?;
        let managed_free_space = c.read_len()?;
        let free_space_manager = c.read_addr()?;
        let managed_space = c.read_len()?;
        let allocated_managed_space = c.read_len()?;
        let direct_block_iterator_offset = c.read_len()?;
        let managed_objects = c.read_len()?;
        let huge_objects_size = c.read_len()?;
        let huge_objects = c.read_len()?;
        let tiny_objects_size = c.read_len()?;
        let tiny_objects = c.read_len()?;
        let table_width = c.read_u16()?;
        let starting_block_size = c.read_len()?;
        let max_direct_block_size = c.read_len()?;
        let max_heap_size = c.read_u16()?;
        let starting_root_rows = c.read_u16()?;
        let root_block = c.read_addr()?;
        let current_root_rows = c.read_u16()?;
        let filters = if filter_len > 0 {
            let root_direct_block_size = c.read_len()?;
            let filter_mask = c.read_u32()?;
            let pipeline = c.read_bytes(filter_len as usize)?.to_vec();
            Some(HeapFilters {
                root_direct_block_size,
                filter_mask,
                pipeline,
            })
        } else {
            None
        };
        c.verify_checksum(start)?;
        let h = FractalHeapHeader {
            heap_id_length,
            flags,
            max_managed_object_size,
            next_huge_id,
            huge_btree,
            managed_free_space,
            free_space_manager,
            managed_space,
            allocated_managed_space,
            direct_block_iterator_offset,
            managed_objects,
            huge_objects_size,
            huge_objects,
            tiny_objects_size,
            tiny_objects,
            table_width,
            starting_block_size,
            max_direct_block_size,
            max_heap_size,
            starting_root_rows,
            root_block,
            current_root_rows,
            filters,
        };
        h.doubling_table()
            .map_err(|e| Error::new(e.kind(), HEADER, at, e.message().to_string()))?;
        crate::ensure!(
            heap_id_length >= 1,
            InvalidValue,
            HEADER,
            at + 5,
            "heap ID length is 0"
        );
        Ok(h)
    }

    /// Encode the header with its checksum.
    pub fn encode(&self, w: &mut Writer) {
        let start = w.len();
        w.put_bytes(&HEADER_SIGNATURE);
        w.put_u8(0);
        w.put_u16(self.heap_id_length);
        w.put_u16(self.filters.as_ref().map_or(0, |f| f.pipeline.len() as u16));
        w.put_u8(self.flags);
        w.put_u32(self.max_managed_object_size);
        w.put_len(self.next_huge_id);
        w.put_addr(self.huge_btree);
        w.put_len(self.managed_free_space);
        w.put_addr(self.free_space_manager);
        w.put_len(self.managed_space);
        w.put_len(self.allocated_managed_space);
        w.put_len(self.direct_block_iterator_offset);
        w.put_len(self.managed_objects);
        w.put_len(self.huge_objects_size);
        w.put_len(self.huge_objects);
        w.put_len(self.tiny_objects_size);
        w.put_len(self.tiny_objects);
        w.put_u16(self.table_width);
        w.put_len(self.starting_block_size);
        w.put_len(self.max_direct_block_size);
        w.put_u16(self.max_heap_size);
        w.put_u16(self.starting_root_rows);
        w.put_addr(self.root_block);
        w.put_u16(self.current_root_rows);
        if let Some(f) = &self.filters {
            w.put_len(f.root_direct_block_size);
            w.put_u32(f.filter_mask);
            w.put_bytes(&f.pipeline);
        }
        w.put_checksum(start);
    }

    /// Whether direct blocks carry a checksum.
    pub fn checksums_direct_blocks(&self) -> bool {
        self.flags & FLAG_CHECKSUM_DIRECT_BLOCKS != 0
    }

    /// The doubling table arithmetic, or why the parameters are unusable.
    pub fn doubling_table(&self) -> Result<DoublingTable> {
        DoublingTable::new(self)
    }
}

/// The doubling table derived from a header (`H5HF__dtable_init` and the header's
/// "finish init" computations).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DoublingTable {
    /// Table width (columns).
    pub width: u64,
    /// Starting block size.
    pub start_block_size: u64,
    /// Maximum direct block size.
    pub max_direct_size: u64,
    /// log2 of the heap's address space.
    pub max_heap_bits: u32,
    /// log2 of the starting block size.
    pub start_bits: u32,
    /// log2 of (starting block size × width): the bits addressed by the first row.
    pub first_row_bits: u32,
    /// Most rows the root indirect block can have.
    pub max_root_rows: u32,
    /// Rows of direct blocks (the rest of an indirect block's rows hold indirect blocks).
    pub max_direct_rows: u32,
    /// Bytes of a block offset / managed object offset (`heap_off_size`).
    pub heap_off_size: usize,
    /// Bytes of a managed object length in a heap ID (`heap_len_size`).
    pub heap_len_size: usize,
}

fn dt_err(m: String) -> Error {
    Error::without_offset(ErrorKind::InvalidValue, HEADER, m)
}

impl DoublingTable {
    /// Compute the table from a header, checking every parameter it relies on.
    pub fn new(h: &FractalHeapHeader) -> Result<DoublingTable> {
        let width = h.table_width as u64;
        if width == 0 || !width.is_power_of_two() {
            return Err(dt_err(format!("table width {width} is not a power of two")));
        }
        let start = h.starting_block_size;
        if start == 0 || !start.is_power_of_two() {
            return Err(dt_err(format!(
                "starting block size {start} is not a power of two"
            )));
        }
        let maxd = h.max_direct_block_size;
        if maxd < start || !maxd.is_power_of_two() || maxd > limits::MAX_METADATA_BLOCK {
            return Err(dt_err(format!(
                "maximum direct block size {maxd} is not usable"
            )));
        }
        let max_heap_bits = h.max_heap_size as u32;
        let start_bits = log2_gen(start);
        let first_row_bits = start_bits + log2_gen(width);
        if max_heap_bits > 64 || max_heap_bits < first_row_bits {
            return Err(dt_err(format!(
                "maximum heap size of {max_heap_bits} bits is out of range"
            )));
        }
        let max_direct_bits = log2_gen(maxd);
        let max_root_rows = max_heap_bits - first_row_bits + 1;
        let max_direct_rows = max_direct_bits - start_bits + 2;
        let heap_off_size = bytes_for_bits(max_heap_bits);
        let max_dir_blk_off_size = bytes_for_bits(max_direct_bits);
        let heap_len_size =
            max_dir_blk_off_size.min(limit_enc_size(h.max_managed_object_size as u64));
        if h.current_root_rows as u32 > max_root_rows {
            return Err(dt_err(format!(
                "root indirect block has {} rows, at most {max_root_rows}",
                h.current_root_rows
            )));
        }
        Ok(DoublingTable {
            width,
            start_block_size: start,
            max_direct_size: maxd,
            max_heap_bits,
            start_bits,
            first_row_bits,
            max_root_rows,
            max_direct_rows,
            heap_off_size,
            heap_len_size,
        })
    }

    /// Size of the blocks of `row` (rows 0 and 1 have the starting size, then doubling).
    pub fn row_block_size(&self, row: u32) -> Option<u64> {
        if row == 0 {
            Some(self.start_block_size)
        } else {
            let s = self.start_block_size.checked_shl(row - 1)?;
            (s >> (row - 1) == self.start_block_size).then_some(s)
        }
    }

    /// Offset in the heap's address space of the first block of `row` (relative to the
    /// indirect block that holds it).
    pub fn row_block_offset(&self, row: u32) -> Option<u64> {
        if row == 0 {
            Some(0)
        } else {
            let first = self.start_block_size.checked_mul(self.width)?;
            let s = first.checked_shl(row - 1)?;
            (s >> (row - 1) == first).then_some(s)
        }
    }

    /// Row and column of `offset` relative to an indirect block (`H5HF__dtable_lookup`).
    pub fn lookup(&self, offset: u64) -> Option<(u32, u64)> {
        let first = self.start_block_size.checked_mul(self.width)?;
        if offset < first {
            Some((0, offset / self.start_block_size))
        } else {
            let high = log2_gen(offset);
            let row = high - self.first_row_bits + 1;
            let col = (offset - (1u64 << high)) / self.row_block_size(row)?;
            Some((row, col))
        }
    }

    /// Rows of an indirect block of `block_size` bytes of address space
    /// (`H5HF__dtable_size_to_rows`).
    pub fn rows_for_size(&self, block_size: u64) -> u32 {
        (log2_gen(block_size) + 1).saturating_sub(self.first_row_bits)
    }

    /// Number of direct-block entries (K) and indirect-block entries (N) of an indirect block
    /// with `nrows` rows.
    pub fn indirect_entries(&self, nrows: u32) -> (u64, u64) {
        let direct_rows = nrows.min(self.max_direct_rows) as u64;
        let indirect_rows = (nrows as u64).saturating_sub(self.max_direct_rows as u64);
        (direct_rows * self.width, indirect_rows * self.width)
    }

    /// Prefix (and checksum) bytes at the start of a direct block.
    pub fn direct_block_overhead(&self, sizes: Sizes, checksummed: bool) -> usize {
        5 + sizes.offset as usize + self.heap_off_size + if checksummed { 4 } else { 0 }
    }
}

/// A direct block: its prefix and the bytes after it (object data and free space).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DirectBlock {
    /// "Heap Header Address".
    pub heap_header: Addr,
    /// "Block Offset": where the block starts in the heap's address space.
    pub block_offset: u64,
    /// Whether the block carries a checksum (the header's flag bit 1).
    pub checksummed: bool,
    /// The rest of the block. An object at offset `o` in the block starts at
    /// `data[o - overhead]`, where overhead is [`DoublingTable::direct_block_overhead`].
    pub data: Vec<u8>,
}

impl DirectBlock {
    /// Parse a direct block of `block_size` bytes (unfiltered bytes: a filtered block is
    /// decoded by the caller first). The checksum, when the header asks for one, covers the
    /// whole block with the checksum field taken as zero.
    pub fn parse(
        c: &mut Cursor<'_>,
        h: &FractalHeapHeader,
        block_size: u64,
    ) -> Result<DirectBlock> {
        c.set_structure(DIRECT);
        let at = c.offset();
        let dt = h.doubling_table()?;
        crate::ensure!(
            block_size <= c.remaining() as u64,
            UnexpectedEof,
            DIRECT,
            at,
            "block of {block_size} bytes runs past the end of the data ({} left)",
            c.remaining()
        );
        let mut b = c.sub(block_size as usize)?;
        b.expect_signature(&DIRECT_SIGNATURE)?;
        let version = b.read_u8()?;
        crate::ensure!(
            version == 0,
            UnsupportedVersion,
            DIRECT,
            at + 4,
            "version {version}"
        );
        let heap_header = b.read_addr()?;
        let block_offset = b.read_uint(dt.heap_off_size)?;
        let checksummed = h.checksums_direct_blocks();
        if checksummed {
            let pos = b.pos();
            b.skip(4)?;
            verify_zeroed_checksum(&b, pos)?;
        }
        let data = b.rest().to_vec();
        Ok(DirectBlock {
            heap_header,
            block_offset,
            checksummed,
            data,
        })
    }

    /// Encode the block (prefix, checksum if flagged, data).
    pub fn encode(&self, w: &mut Writer, h: &FractalHeapHeader) {
        let heap_off_size = h.doubling_table().map_or(8, |d| d.heap_off_size);
        let start = w.len();
        w.put_bytes(&DIRECT_SIGNATURE);
        w.put_u8(0);
        w.put_addr(self.heap_header);
        w.put_uint(self.block_offset, heap_off_size);
        let sum_at = w.len();
        if self.checksummed {
            w.put_u32(0);
        }
        w.put_bytes(&self.data);
        if self.checksummed {
            let sum = crate::checksum::checksum(&w.as_slice()[start..]);
            w.as_mut_slice()[sum_at..sum_at + 4].copy_from_slice(&sum.to_le_bytes());
        }
    }
}

/// "Size of Filtered Direct Block" and "Filter Mask for Direct Block" of a filtered entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FilteredBlock {
    /// Size of the filtered block on disk.
    pub size: u64,
    /// Filter mask.
    pub filter_mask: u32,
}

/// A direct-block entry of an indirect block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DirectEntry {
    /// "Child Direct Block Address" (undefined when not allocated).
    pub address: Addr,
    /// Filter information, present when the heap has filters.
    pub filtered: Option<FilteredBlock>,
}

/// An indirect block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IndirectBlock {
    /// "Heap Header Address".
    pub heap_header: Addr,
    /// "Block Offset" in the heap's address space.
    pub block_offset: u64,
    /// Rows of the block.
    pub nrows: u32,
    /// The K direct block entries, row by row.
    pub direct: Vec<DirectEntry>,
    /// The N indirect block entries, row by row.
    pub indirect: Vec<Addr>,
}

impl IndirectBlock {
    /// Parse an indirect block of `nrows` rows (the header's current root rows for the root,
    /// [`DoublingTable::rows_for_size`] of the row's block size for a child).
    pub fn parse(c: &mut Cursor<'_>, h: &FractalHeapHeader, nrows: u32) -> Result<IndirectBlock> {
        c.set_structure(INDIRECT);
        let at = c.offset();
        let start = c.pos();
        let dt = h.doubling_table()?;
        crate::ensure!(
            nrows <= dt.max_root_rows && nrows as usize <= limits::MAX_FRACTAL_HEAP_ROWS,
            LimitExceeded,
            INDIRECT,
            at,
            "{nrows} rows, at most {}",
            dt.max_root_rows.min(limits::MAX_FRACTAL_HEAP_ROWS as u32)
        );
        c.expect_signature(&INDIRECT_SIGNATURE)?;
        let version = c.read_u8()?;
        crate::ensure!(
            version == 0,
            UnsupportedVersion,
            INDIRECT,
            at + 4,
            "version {version}"
        );
        let heap_header = c.read_addr()?;
        let block_offset = c.read_uint(dt.heap_off_size)?;
        let (k, n) = dt.indirect_entries(nrows);
        let sizes = c.sizes();
        let filtered = h.filters.is_some();
        let dsize = sizes.offset as u64 + if filtered { sizes.length as u64 + 4 } else { 0 };
        let k = check_count(
            c,
            k,
            dsize,
            limits::MAX_BTREE_ENTRIES as u64,
            "direct entries",
        )?;
        let mut direct = Vec::with_capacity(k);
        for _ in 0..k {
            let address = c.read_addr()?;
            let filtered = if filtered {
                Some(FilteredBlock {
                    size: c.read_len()?,
                    filter_mask: c.read_u32()?,
                })
            } else {
                None
            };
            direct.push(DirectEntry { address, filtered });
        }
        let n = check_count(
            c,
            n,
            sizes.offset as u64,
            limits::MAX_BTREE_ENTRIES as u64,
            "indirect entries",
        )?;
        let mut indirect = Vec::with_capacity(n);
        for _ in 0..n {
            indirect.push(c.read_addr()?);
        }
        c.verify_checksum(start)?;
        Ok(IndirectBlock {
            heap_header,
            block_offset,
            nrows,
            direct,
            indirect,
        })
    }

    /// Bytes of an indirect block of `nrows` rows of the heap `h` (prefix, entries and
    /// checksum): what to read before [`IndirectBlock::parse`].
    pub fn encoded_size(h: &FractalHeapHeader, nrows: u32, sizes: Sizes) -> Result<u64> {
        let dt = h.doubling_table()?;
        let (k, n) = dt.indirect_entries(nrows);
        let o = sizes.offset as u64;
        let entry = o + if h.filters.is_some() {
            sizes.length as u64 + 4
        } else {
            0
        };
        k.checked_mul(entry)
            .and_then(|d| d.checked_add(n.checked_mul(o)?))
            .and_then(|e| e.checked_add(4 + 1 + o + dt.heap_off_size as u64 + 4))
            .ok_or_else(|| {
                Error::without_offset(
                    ErrorKind::LimitExceeded,
                    INDIRECT,
                    format!("an indirect block of {nrows} rows"),
                )
            })
    }

    /// Encode the block with its checksum.
    pub fn encode(&self, w: &mut Writer, h: &FractalHeapHeader) {
        let heap_off_size = h.doubling_table().map_or(8, |d| d.heap_off_size);
        let start = w.len();
        w.put_bytes(&INDIRECT_SIGNATURE);
        w.put_u8(0);
        w.put_addr(self.heap_header);
        w.put_uint(self.block_offset, heap_off_size);
        for e in &self.direct {
            w.put_addr(e.address);
            if h.filters.is_some() {
                let f = e.filtered.unwrap_or(FilteredBlock {
                    size: 0,
                    filter_mask: 0,
                });
                w.put_len(f.size);
                w.put_u32(f.filter_mask);
            }
        }
        for &a in &self.indirect {
            w.put_addr(a);
        }
        w.put_checksum(start);
    }

    /// The child at `row`, `col`: a direct entry for rows below the table's direct rows, an
    /// indirect block address otherwise.
    pub fn child(&self, dt: &DoublingTable, row: u32, col: u64) -> Option<Child> {
        let width = dt.width;
        if row < dt.max_direct_rows {
            let i = (row as u64).checked_mul(width)?.checked_add(col)?;
            self.direct
                .get(usize::try_from(i).ok()?)
                .copied()
                .map(Child::Direct)
        } else {
            let i = ((row - dt.max_direct_rows) as u64)
                .checked_mul(width)?
                .checked_add(col)?;
            self.indirect
                .get(usize::try_from(i).ok()?)
                .copied()
                .map(Child::Indirect)
        }
    }
}

/// A child of an indirect block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Child {
    /// A direct block entry.
    Direct(DirectEntry),
    /// An indirect block address.
    Indirect(Addr),
}

/// Where a managed object lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ManagedLocation {
    /// Address of the direct block.
    pub block_address: Addr,
    /// Size of the direct block (in the heap's address space, i.e. unfiltered).
    pub block_size: u64,
    /// Offset of the block in the heap's address space.
    pub block_offset: u64,
    /// Offset of the object from the start of the block.
    pub offset_in_block: u64,
    /// Filter information of the block, when the heap is filtered.
    pub filtered: Option<FilteredBlock>,
}

impl FractalHeapHeader {
    /// Resolve a managed object's heap offset and length to its direct block, walking
    /// indirect blocks through `fetch(address, nrows)`.
    pub fn locate_managed<F>(
        &self,
        offset: u64,
        length: u64,
        mut fetch: F,
    ) -> Result<ManagedLocation>
    where
        F: FnMut(Addr, u32) -> Result<IndirectBlock>,
    {
        let dt = self.doubling_table()?;
        let err = |m: String| Error::without_offset(ErrorKind::InvalidValue, HEAP_ID, m);
        if self.root_block.is_undef() {
            return Err(err("the heap is empty".into()));
        }
        let end = offset
            .checked_add(length)
            .ok_or_else(|| err("object offset and length overflow".into()))?;
        if self.current_root_rows == 0 {
            if end > dt.start_block_size {
                return Err(err(format!(
                    "object at {offset} (+{length}) is past the {}-byte root direct block",
                    dt.start_block_size
                )));
            }
            return Ok(ManagedLocation {
                block_address: self.root_block,
                block_size: dt.start_block_size,
                block_offset: 0,
                offset_in_block: offset,
                filtered: self.filters.as_ref().map(|f| FilteredBlock {
                    size: f.root_direct_block_size,
                    filter_mask: f.filter_mask,
                }),
            });
        }
        let mut block = fetch(self.root_block, self.current_root_rows as u32)?;
        let mut base = 0u64;
        for _ in 0..=limits::MAX_FRACTAL_HEAP_ROWS {
            let rel = offset
                .checked_sub(base)
                .ok_or_else(|| err(format!("offset {offset} is before its block")))?;
            let (row, col) = dt
                .lookup(rel)
                .ok_or_else(|| err(format!("offset {offset} is outside the doubling table")))?;
            if row >= block.nrows || col >= dt.width {
                return Err(err(format!(
                    "offset {offset} falls in row {row}, the block has {} rows",
                    block.nrows
                )));
            }
            let size = dt
                .row_block_size(row)
                .ok_or_else(|| err(format!("row {row} overflows")))?;
            let child_base = dt
                .row_block_offset(row)
                .and_then(|o| o.checked_add(size.checked_mul(col)?))
                .and_then(|o| o.checked_add(base))
                .ok_or_else(|| err(format!("row {row} overflows")))?;
            match block.child(&dt, row, col) {
                Some(Child::Direct(e)) => {
                    if e.address.is_undef() {
                        return Err(err(format!("offset {offset} is in an unallocated block")));
                    }
                    let in_block = offset
                        .checked_sub(child_base)
                        .ok_or_else(|| err(format!("offset {offset} is before its block")))?;
                    if in_block.saturating_add(length) > size {
                        return Err(err(format!(
                            "object at {offset} (+{length}) crosses its block's end"
                        )));
                    }
                    return Ok(ManagedLocation {
                        block_address: e.address,
                        block_size: size,
                        block_offset: child_base,
                        offset_in_block: in_block,
                        filtered: e.filtered,
                    });
                }
                Some(Child::Indirect(a)) => {
                    if a.is_undef() {
                        return Err(err(format!("offset {offset} is in an unallocated block")));
                    }
                    let nrows = dt.rows_for_size(size);
                    base = child_base;
                    block = fetch(a, nrows)?;
                }
                None => return Err(err(format!("no entry for row {row} column {col}"))),
            }
        }
        Err(Error::without_offset(
            ErrorKind::LimitExceeded,
            INDIRECT,
            "indirect blocks nest too deep",
        ))
    }
}

/// A fractal heap ID.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HeapId {
    /// Type 0: an object in a managed block.
    Managed {
        /// Offset in the heap's address space.
        offset: u64,
        /// Length of the object.
        length: u64,
    },
    /// Type 1, through the huge object v2 B-tree: the key (object ID).
    HugeIndirect {
        /// The v2 B-tree key.
        id: u64,
    },
    /// Type 1, directly: the object's address and length.
    HugeDirect {
        /// Object address.
        address: Addr,
        /// Object length.
        length: u64,
    },
    /// Type 1, directly, filtered.
    HugeDirectFiltered {
        /// Filtered object address.
        address: Addr,
        /// Filtered length.
        length: u64,
        /// Filter mask.
        filter_mask: u32,
        /// De-filtered size.
        memory_size: u64,
    },
    /// Type 2: the object's bytes inside the ID.
    Tiny {
        /// The object.
        data: Vec<u8>,
    },
}

/// How a heap's IDs are laid out (from the header: `H5HF__huge_init`, `H5HF__tiny_init`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HeapIdLayout {
    /// ID length.
    pub id_len: usize,
    /// Bytes of a managed offset.
    pub offset_size: usize,
    /// Bytes of a managed length.
    pub length_size: usize,
    /// Whether huge objects are addressed directly from the ID.
    pub huge_direct: bool,
    /// Whether the heap is filtered.
    pub filtered: bool,
    /// Bytes of an indirect huge object ID.
    pub huge_id_size: usize,
    /// Whether tiny objects use the two-byte (extended) length.
    pub tiny_extended: bool,
}

impl HeapIdLayout {
    /// The layout of a heap's IDs.
    pub fn new(h: &FractalHeapHeader, sizes: Sizes) -> Result<HeapIdLayout> {
        let dt = h.doubling_table()?;
        let id_len = h.heap_id_length as usize;
        let o = sizes.offset as usize;
        let l = sizes.length as usize;
        let room = id_len.saturating_sub(1);
        let filtered = h.filters.is_some();
        let huge_direct = if filtered {
            room >= o + l + 4 + l
        } else {
            room >= o + l
        };
        Ok(HeapIdLayout {
            id_len,
            offset_size: dt.heap_off_size,
            length_size: dt.heap_len_size,
            huge_direct,
            filtered,
            huge_id_size: room.min(8),
            tiny_extended: room > 17,
        })
    }
}

impl HeapId {
    /// Parse an ID of the heap's ID length.
    pub fn parse(c: &mut Cursor<'_>, layout: &HeapIdLayout) -> Result<HeapId> {
        let mut c = c.sub(layout.id_len)?.in_structure(HEAP_ID);
        let at = c.offset();
        let b0 = c.read_u8()?;
        crate::ensure!(
            b0 >> 6 == 0,
            UnsupportedVersion,
            HEAP_ID,
            at,
            "heap ID version {}",
            b0 >> 6
        );
        Ok(match (b0 >> 4) & 3 {
            0 => HeapId::Managed {
                offset: c.read_uint(layout.offset_size)?,
                length: c.read_uint(layout.length_size)?,
            },
            1 if !layout.huge_direct => HeapId::HugeIndirect {
                id: c.read_uint(layout.huge_id_size)?,
            },
            1 if layout.filtered => HeapId::HugeDirectFiltered {
                address: c.read_addr()?,
                length: c.read_len()?,
                filter_mask: c.read_u32()?,
                memory_size: c.read_len()?,
            },
            1 => HeapId::HugeDirect {
                address: c.read_addr()?,
                length: c.read_len()?,
            },
            2 => {
                let len = if layout.tiny_extended {
                    (((b0 & 0x0f) as usize) << 8 | c.read_u8()? as usize) + 1
                } else {
                    (b0 & 0x0f) as usize + 1
                };
                HeapId::Tiny {
                    data: c.read_bytes(len)?.to_vec(),
                }
            }
            t => crate::bail!(InvalidValue, HEAP_ID, at, "heap ID type {t}"),
        })
    }

    /// Encode the ID into the heap's ID length (zero padded).
    pub fn encode(&self, w: &mut Writer, layout: &HeapIdLayout) {
        let mut b = Writer::new(w.sizes());
        match self {
            HeapId::Managed { offset, length } => {
                b.put_u8(0);
                b.put_uint(*offset, layout.offset_size);
                b.put_uint(*length, layout.length_size);
            }
            HeapId::HugeIndirect { id } => {
                b.put_u8(0x10);
                b.put_uint(*id, layout.huge_id_size);
            }
            HeapId::HugeDirect { address, length } => {
                b.put_u8(0x10);
                b.put_addr(*address);
                b.put_len(*length);
            }
            HeapId::HugeDirectFiltered {
                address,
                length,
                filter_mask,
                memory_size,
            } => {
                b.put_u8(0x10);
                b.put_addr(*address);
                b.put_len(*length);
                b.put_u32(*filter_mask);
                b.put_len(*memory_size);
            }
            HeapId::Tiny { data } => {
                let n = data.len().saturating_sub(1);
                if layout.tiny_extended {
                    b.put_u8(0x20 | ((n >> 8) & 0x0f) as u8);
                    b.put_u8(n as u8);
                } else {
                    b.put_u8(0x20 | (n & 0x0f) as u8);
                }
                b.put_bytes(data);
            }
        }
        let bytes = b.into_vec();
        let n = bytes.len().min(layout.id_len);
        w.put_bytes(&bytes[..n]);
        w.put_zeros(layout.id_len - n);
    }
}

mod navigate;
pub use navigate::{BlockVisitor, DirectRef, IndirectRef, Location};

#[cfg(test)]
mod tests;
