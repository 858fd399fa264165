//! The extensible array chunk index: header (`EAHD`), index block (`EAIB`), secondary blocks
//! (`EASB`) and data blocks (`EADB`, paged when larger than one page), with the super block
//! arithmetic of the reference library (`H5EA__hdr_init`).

use super::{encode_pages, parse_elements, parse_pages, BlockElements, ChunkElement};
use crate::bits::{bytes_for_bits, check_count, log2_gen};
use crate::{limits, Addr, Cursor, Error, ErrorKind, Result, Sizes, Writer};

/// Header signature.
pub const HEADER_SIGNATURE: [u8; 4] = *b"EAHD";
/// Index block signature.
pub const INDEX_BLOCK_SIGNATURE: [u8; 4] = *b"EAIB";
/// Secondary block signature.
pub const SECONDARY_BLOCK_SIGNATURE: [u8; 4] = *b"EASB";
/// Data block signature.
pub const DATA_BLOCK_SIGNATURE: [u8; 4] = *b"EADB";
const HEADER: &str = "extensible array header";
const INDEX: &str = "extensible array index block";
const SECONDARY: &str = "extensible array secondary block";
const DATA: &str = "extensible array data block";
const PAGE: &str = "extensible array data block page";

/// An extensible array header.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExtensibleArrayHeader {
    /// "Client ID".
    pub client: u8,
    /// "Element Size".
    pub element_size: u8,
    /// "Max Nelmts Bits": log2 of the most elements the array holds.
    pub max_nelmts_bits: u8,
    /// "Index Block Elements".
    pub index_block_elements: u8,
    /// "Data Block Min Elements".
    pub data_block_min_elements: u8,
    /// "Secondary Block Min Data Ptrs".
    pub secondary_block_min_data_pointers: u8,
    /// "Max Dblk Page Nelmts Bits".
    pub max_data_block_page_bits: u8,
    /// "Number of Secondary Blocks" created.
    pub secondary_blocks: u64,
    /// "Size of Secondary Blocks".
    pub secondary_blocks_size: u64,
    /// "Number of Data Blocks" created.
    pub data_blocks: u64,
    /// "Size of Data Blocks".
    pub data_blocks_size: u64,
    /// "Maximum Index Set".
    pub max_index_set: u64,
    /// "Number of Elements Realized".
    pub elements_realized: u64,
    /// "Index Block Address".
    pub index_block: Addr,
}

/// Per super block: its data blocks and the elements they hold (`H5EA_sblk_info_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SuperBlockInfo {
    /// Data blocks in the super block: 2^(i/2).
    pub data_blocks: u64,
    /// Elements per data block: 2^((i+1)/2) × data block min elements.
    pub data_block_elements: u64,
    /// Index (after the index block's elements) of the super block's first element.
    pub start_index: u64,
    /// Index of the super block's first data block.
    pub start_data_block: u64,
}

/// The geometry of an array, computed from its header.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Geometry {
    /// All super blocks.
    pub super_blocks: Vec<SuperBlockInfo>,
    /// Bytes of a block offset (`arr_off_size`).
    pub offset_size: usize,
    /// Super blocks whose data blocks the index block points to directly.
    pub index_block_super_blocks: usize,
    /// Data block addresses in the index block: 2 × (min data pointers − 1).
    pub index_block_data_blocks: usize,
    /// Secondary block addresses in the index block.
    pub index_block_secondary_blocks: usize,
    /// Elements per data block page.
    pub page_elements: u64,
}

/// Where element `i` of the array lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementLocation {
    /// In the index block, at this position.
    IndexBlock(usize),
    /// In a data block the index block points to.
    DataBlock {
        /// Position among the index block's data block addresses.
        data_block: usize,
        /// Elements in that data block.
        data_block_elements: u64,
        /// Position in the data block.
        element: u64,
    },
    /// In a data block of a secondary block.
    SecondaryBlock {
        /// Position among the index block's secondary block addresses.
        secondary_block: usize,
        /// The super block index (for [`SecondaryBlock::parse`]).
        super_block: usize,
        /// Position among the secondary block's data block addresses.
        data_block: usize,
        /// Elements in that data block.
        data_block_elements: u64,
        /// Position in the data block.
        element: u64,
    },
}

fn geo_err(m: String) -> Error {
    Error::without_offset(ErrorKind::InvalidValue, HEADER, m)
}

impl ExtensibleArrayHeader {
    /// Encoded size.
    pub fn encoded_size(sizes: Sizes) -> usize {
        12 + 6 * sizes.length as usize + sizes.offset as usize + 4
    }

    /// Parse a header, check its checksum and its parameters.
    pub fn parse(c: &mut Cursor<'_>) -> Result<ExtensibleArrayHeader> {
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
        let h = ExtensibleArrayHeader {
            client: c.read_u8()?,
            element_size: c.read_u8()?,
            max_nelmts_bits: c.read_u8()?,
            index_block_elements: c.read_u8()?,
            data_block_min_elements: c.read_u8()?,
            secondary_block_min_data_pointers: c.read_u8()?,
            max_data_block_page_bits: c.read_u8()?,
            secondary_blocks: c.read_len()?,
            secondary_blocks_size: c.read_len()?,
            data_blocks: c.read_len()?,
            data_blocks_size: c.read_len()?,
            max_index_set: c.read_len()?,
            elements_realized: c.read_len()?,
            index_block: c.read_addr()?,
        };
        c.verify_checksum(start)?;
        h.geometry()
            .map_err(|e| Error::new(e.kind(), HEADER, at, e.message().to_string()))?;
        Ok(h)
    }

    /// Encode the header with its checksum.
    pub fn encode(&self, w: &mut Writer) {
        let start = w.len();
        w.put_bytes(&HEADER_SIGNATURE);
        w.put_u8(0);
        w.put_u8(self.client);
        w.put_u8(self.element_size);
        w.put_u8(self.max_nelmts_bits);
        w.put_u8(self.index_block_elements);
        w.put_u8(self.data_block_min_elements);
        w.put_u8(self.secondary_block_min_data_pointers);
        w.put_u8(self.max_data_block_page_bits);
        w.put_len(self.secondary_blocks);
        w.put_len(self.secondary_blocks_size);
        w.put_len(self.data_blocks);
        w.put_len(self.data_blocks_size);
        w.put_len(self.max_index_set);
        w.put_len(self.elements_realized);
        w.put_addr(self.index_block);
        w.put_checksum(start);
    }

    /// The array geometry, or why the parameters are unusable.
    pub fn geometry(&self) -> Result<Geometry> {
        let bits = self.max_nelmts_bits as u32;
        let dmin = self.data_block_min_elements as u64;
        let smin = self.secondary_block_min_data_pointers as u64;
        if self.element_size == 0 {
            return Err(geo_err("element size is 0".into()));
        }
        if bits == 0 || bits > 64 {
            return Err(geo_err(format!("max elements bits {bits} is out of range")));
        }
        if dmin == 0 || !dmin.is_power_of_two() || log2_gen(dmin) > bits {
            return Err(geo_err(format!(
                "data block min elements {dmin} is not usable"
            )));
        }
        if smin < 2 || !smin.is_power_of_two() {
            return Err(geo_err(format!(
                "secondary block min data pointers {smin} is not usable"
            )));
        }
        if self.max_data_block_page_bits >= 64 {
            return Err(geo_err("data block page bits exceed 63".into()));
        }
        let nsblks = 1 + (bits - log2_gen(dmin)) as usize;
        let mut super_blocks = Vec::with_capacity(nsblks);
        let (mut start_index, mut start_data_block) = (0u64, 0u64);
        for u in 0..nsblks as u32 {
            let data_blocks = 1u64 << (u / 2);
            let data_block_elements = 1u64
                .checked_shl(u.div_ceil(2))
                .and_then(|v| v.checked_mul(dmin));
            let Some(data_block_elements) = data_block_elements else {
                break;
            };
            super_blocks.push(SuperBlockInfo {
                data_blocks,
                data_block_elements,
                start_index,
                start_data_block,
            });
            match data_blocks
                .checked_mul(data_block_elements)
                .and_then(|n| n.checked_add(start_index))
            {
                Some(n) => start_index = n,
                None => break,
            }
            start_data_block += data_blocks;
        }
        let iblock_sblks = 2 * log2_gen(smin) as usize;
        if iblock_sblks > super_blocks.len() {
            return Err(geo_err(format!(
                "the index block covers {iblock_sblks} super blocks, the array has {}",
                super_blocks.len()
            )));
        }
        Ok(Geometry {
            offset_size: bytes_for_bits(bits),
            index_block_super_blocks: iblock_sblks,
            index_block_data_blocks: 2 * (smin as usize - 1),
            index_block_secondary_blocks: nsblks - iblock_sblks,
            page_elements: 1u64 << self.max_data_block_page_bits,
            super_blocks,
        })
    }
}

impl Geometry {
    /// Where element `index` lives (`H5EA_get` / `H5EA__dblock_sblk_idx`).
    pub fn locate(&self, h: &ExtensibleArrayHeader, index: u64) -> Option<ElementLocation> {
        let ib = h.index_block_elements as u64;
        if index < ib {
            return Some(ElementLocation::IndexBlock(index as usize));
        }
        let i = index - ib;
        let dmin = h.data_block_min_elements as u64;
        let s = log2_gen((i / dmin).checked_add(1)?) as usize;
        let sb = self.super_blocks.get(s)?;
        let within = i - sb.start_index;
        let dblk = within / sb.data_block_elements;
        let element = within % sb.data_block_elements;
        if s < self.index_block_super_blocks {
            Some(ElementLocation::DataBlock {
                data_block: (sb.start_data_block + dblk) as usize,
                data_block_elements: sb.data_block_elements,
                element,
            })
        } else {
            Some(ElementLocation::SecondaryBlock {
                secondary_block: s - self.index_block_super_blocks,
                super_block: s,
                data_block: dblk as usize,
                data_block_elements: sb.data_block_elements,
                element,
            })
        }
    }

    /// Elements of the index block's `i`th directly held data block.
    pub fn index_data_block_elements(&self, i: usize) -> Option<u64> {
        self.super_blocks
            .iter()
            .find(|s| {
                (i as u64) >= s.start_data_block && (i as u64) < s.start_data_block + s.data_blocks
            })
            .map(|s| s.data_block_elements)
    }

    /// Pages per data block of super block `s` (0 when its data blocks are not paged).
    pub fn pages_per_data_block(&self, s: usize) -> u64 {
        self.super_blocks.get(s).map_or(0, |sb| {
            if sb.data_block_elements > self.page_elements {
                sb.data_block_elements / self.page_elements
            } else {
                0
            }
        })
    }
}

fn check_prefix(
    c: &mut Cursor<'_>,
    sig: &[u8; 4],
    structure: &'static str,
    h: &ExtensibleArrayHeader,
) -> Result<()> {
    let at = c.offset();
    c.expect_signature(sig)?;
    let version = c.read_u8()?;
    crate::ensure!(
        version == 0,
        UnsupportedVersion,
        structure,
        at + 4,
        "version {version}"
    );
    let client = c.read_u8()?;
    crate::ensure!(
        client == h.client,
        InvalidValue,
        structure,
        at + 5,
        "client {client}, the header says {}",
        h.client
    );
    Ok(())
}

/// An index block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IndexBlock {
    /// "Header Address".
    pub header: Addr,
    /// The elements held in the index block.
    pub elements: Vec<ChunkElement>,
    /// "Data Block Addresses" held directly.
    pub data_blocks: Vec<Addr>,
    /// "Secondary Block Addresses".
    pub secondary_blocks: Vec<Addr>,
}

impl IndexBlock {
    /// Parse the index block of header `h`.
    pub fn parse(c: &mut Cursor<'_>, h: &ExtensibleArrayHeader) -> Result<IndexBlock> {
        c.set_structure(INDEX);
        let start = c.pos();
        let g = h.geometry()?;
        check_prefix(c, &INDEX_BLOCK_SIGNATURE, INDEX, h)?;
        let header = c.read_addr()?;
        let elements = parse_elements(
            c,
            h.client,
            h.element_size,
            h.index_block_elements as u64,
            u64::MAX,
        )?;
        let o = c.sizes().offset as u64;
        let nd = check_count(
            c,
            g.index_block_data_blocks as u64,
            o,
            u64::MAX,
            "data blocks",
        )?;
        let mut data_blocks = Vec::with_capacity(nd);
        for _ in 0..nd {
            data_blocks.push(c.read_addr()?);
        }
        let ns = check_count(
            c,
            g.index_block_secondary_blocks as u64,
            o,
            u64::MAX,
            "secondary blocks",
        )?;
        let mut secondary_blocks = Vec::with_capacity(ns);
        for _ in 0..ns {
            secondary_blocks.push(c.read_addr()?);
        }
        c.verify_checksum(start)?;
        Ok(IndexBlock {
            header,
            elements,
            data_blocks,
            secondary_blocks,
        })
    }

    /// Encode the block with its checksum.
    pub fn encode(&self, w: &mut Writer, h: &ExtensibleArrayHeader) {
        let start = w.len();
        w.put_bytes(&INDEX_BLOCK_SIGNATURE);
        w.put_u8(0);
        w.put_u8(h.client);
        w.put_addr(self.header);
        for e in &self.elements {
            e.encode(w, h.element_size);
        }
        for &a in &self.data_blocks {
            w.put_addr(a);
        }
        for &a in &self.secondary_blocks {
            w.put_addr(a);
        }
        w.put_checksum(start);
    }
}

/// A secondary block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SecondaryBlock {
    /// "Header Address".
    pub header: Addr,
    /// "Block Offset": index of the super block's first element.
    pub block_offset: u64,
    /// "Page Bitmap" (empty when the data blocks are not paged): one bitmask of
    /// `ceil(pages / 8)` bytes per data block; bit `p` of data block `d`'s mask says whether
    /// its page `p` is initialized.
    pub page_bitmap: Vec<u8>,
    /// "Data Block Addresses".
    pub data_blocks: Vec<Addr>,
}

impl SecondaryBlock {
    /// Parse the secondary block of super block `super_block`.
    pub fn parse(
        c: &mut Cursor<'_>,
        h: &ExtensibleArrayHeader,
        super_block: usize,
    ) -> Result<SecondaryBlock> {
        c.set_structure(SECONDARY);
        let start = c.pos();
        let at = c.offset();
        let g = h.geometry()?;
        let sb = *g.super_blocks.get(super_block).ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidValue,
                SECONDARY,
                at,
                format!("super block {super_block} does not exist"),
            )
        })?;
        check_prefix(c, &SECONDARY_BLOCK_SIGNATURE, SECONDARY, h)?;
        let header = c.read_addr()?;
        let block_offset = c.read_uint(g.offset_size)?;
        let pages = g.pages_per_data_block(super_block);
        let page_bitmap = if pages > 0 {
            // One byte-aligned bitmask per data block (`dblk_page_init_size`).
            let n = sb.data_blocks.saturating_mul(pages.div_ceil(8));
            let n = check_count(c, n, 1, u64::MAX, "page bitmap")?;
            c.read_bytes(n)?.to_vec()
        } else {
            Vec::new()
        };
        let o = c.sizes().offset as u64;
        let n = check_count(c, sb.data_blocks, o, u64::MAX, "data blocks")?;
        let mut data_blocks = Vec::with_capacity(n);
        for _ in 0..n {
            data_blocks.push(c.read_addr()?);
        }
        c.verify_checksum(start)?;
        Ok(SecondaryBlock {
            header,
            block_offset,
            page_bitmap,
            data_blocks,
        })
    }

    /// Encode the block with its checksum.
    pub fn encode(&self, w: &mut Writer, h: &ExtensibleArrayHeader) {
        let off = h.geometry().map_or(8, |g| g.offset_size);
        let start = w.len();
        w.put_bytes(&SECONDARY_BLOCK_SIGNATURE);
        w.put_u8(0);
        w.put_u8(h.client);
        w.put_addr(self.header);
        w.put_uint(self.block_offset, off);
        w.put_bytes(&self.page_bitmap);
        for &a in &self.data_blocks {
            w.put_addr(a);
        }
        w.put_checksum(start);
    }

    /// Whether page `page` of data block `data_block` is initialized (`pages` per block).
    pub fn page_initialized(&self, data_block: usize, page: usize, pages: u64) -> bool {
        let mask_bits = pages.div_ceil(8).saturating_mul(8) as usize;
        super::bitmap_get(
            &self.page_bitmap,
            data_block.saturating_mul(mask_bits).saturating_add(page),
        )
    }
}

/// A data block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DataBlock {
    /// "Header Address".
    pub header: Addr,
    /// "Block Offset": index of the block's first element (after the index block's).
    pub block_offset: u64,
    /// The elements, inline or by page.
    pub elements: BlockElements,
}

impl DataBlock {
    /// Parse a data block of `nelements` elements. When the block is paged, the pages follow
    /// it and `page_init(p)` says which to read (from the secondary block's bitmap, or all
    /// for a data block of the index block, whose pages are all initialized).
    pub fn parse(
        c: &mut Cursor<'_>,
        h: &ExtensibleArrayHeader,
        nelements: u64,
        page_init: &dyn Fn(usize) -> bool,
    ) -> Result<DataBlock> {
        c.set_structure(DATA);
        let start = c.pos();
        let g = h.geometry()?;
        check_prefix(c, &DATA_BLOCK_SIGNATURE, DATA, h)?;
        let header = c.read_addr()?;
        let block_offset = c.read_uint(g.offset_size)?;
        if nelements <= g.page_elements {
            let elements = parse_elements(
                c,
                h.client,
                h.element_size,
                nelements,
                limits::MAX_ARRAY_INDEX_ELEMENTS,
            )?;
            c.verify_checksum(start)?;
            return Ok(DataBlock {
                header,
                block_offset,
                elements: BlockElements::Inline(elements),
            });
        }
        c.verify_checksum(start)?;
        let npages = nelements / g.page_elements;
        let pages = parse_pages(
            c,
            PAGE,
            h.client,
            h.element_size,
            npages,
            g.page_elements,
            g.page_elements,
            page_init,
        )?;
        Ok(DataBlock {
            header,
            block_offset,
            elements: BlockElements::Paged(pages),
        })
    }

    /// Encode the block (and its pages).
    pub fn encode(&self, w: &mut Writer, h: &ExtensibleArrayHeader) {
        let (off, per) = h
            .geometry()
            .map_or((8, u64::MAX), |g| (g.offset_size, g.page_elements));
        let start = w.len();
        w.put_bytes(&DATA_BLOCK_SIGNATURE);
        w.put_u8(0);
        w.put_u8(h.client);
        w.put_addr(self.header);
        w.put_uint(self.block_offset, off);
        match &self.elements {
            BlockElements::Inline(v) => {
                for e in v {
                    e.encode(w, h.element_size);
                }
                w.put_checksum(start);
            }
            BlockElements::Paged(pages) => {
                w.put_checksum(start);
                encode_pages(w, pages, h.element_size, per, per);
            }
        }
    }
}

#[cfg(test)]
mod tests;
