//! The fixed array chunk index: header (`FAHD`) and data block (`FADB`), the data block paged
//! (with a page-initialized bitmap) when it holds more elements than one page.

use super::{encode_pages, parse_elements, parse_pages, BlockElements, ChunkElement};
use crate::bits::{bit_set, check_count};
use crate::{limits, Addr, Cursor, Result, Sizes, Writer};

/// Header signature.
pub const HEADER_SIGNATURE: [u8; 4] = *b"FAHD";
/// Data block signature.
pub const DATA_BLOCK_SIGNATURE: [u8; 4] = *b"FADB";
const HEADER: &str = "fixed array header";
const DATA_BLOCK: &str = "fixed array data block";
const PAGE: &str = "fixed array data block page";

/// A fixed array header.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FixedArrayHeader {
    /// "Client ID" (0 chunks, 1 filtered chunks).
    pub client: u8,
    /// "Entry Size" in bytes.
    pub element_size: u8,
    /// "Page Bits": log2 of the most elements in a data block page.
    pub page_bits: u8,
    /// "Max Num Entries".
    pub nelements: u64,
    /// "Data Block Address" (undefined before any chunk is written).
    pub data_block: Addr,
}

impl FixedArrayHeader {
    /// Encoded size.
    pub fn encoded_size(sizes: Sizes) -> usize {
        8 + sizes.length as usize + sizes.offset as usize + 4
    }

    /// Parse a header and check its checksum.
    pub fn parse(c: &mut Cursor<'_>) -> Result<FixedArrayHeader> {
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
        let h = FixedArrayHeader {
            client: c.read_u8()?,
            element_size: c.read_u8()?,
            page_bits: c.read_u8()?,
            nelements: c.read_len()?,
            data_block: c.read_addr()?,
        };
        c.verify_checksum(start)?;
        crate::ensure!(
            h.element_size > 0,
            InvalidValue,
            HEADER,
            at + 6,
            "element size is 0"
        );
        crate::ensure!(
            h.nelements <= limits::MAX_ARRAY_INDEX_ELEMENTS,
            LimitExceeded,
            HEADER,
            at + 8,
            "{} elements exceed {}",
            h.nelements,
            limits::MAX_ARRAY_INDEX_ELEMENTS
        );
        Ok(h)
    }

    /// Encode the header with its checksum.
    pub fn encode(&self, w: &mut Writer) {
        let start = w.len();
        w.put_bytes(&HEADER_SIGNATURE);
        w.put_u8(0);
        w.put_u8(self.client);
        w.put_u8(self.element_size);
        w.put_u8(self.page_bits);
        w.put_len(self.nelements);
        w.put_addr(self.data_block);
        w.put_checksum(start);
    }

    /// Elements per page (`None` when the page bits exceed 63, so no block is ever paged).
    pub fn page_elements(&self) -> Option<u64> {
        1u64.checked_shl(self.page_bits as u32)
    }

    /// Number of pages of the data block (0 when it is not paged).
    pub fn npages(&self) -> u64 {
        match self.page_elements() {
            Some(p) if self.nelements > p => self.nelements.div_ceil(p),
            _ => 0,
        }
    }

    /// Size of the data block's prefix (up to and including its checksum, before any page).
    pub fn data_block_prefix_size(&self, sizes: Sizes) -> usize {
        let npages = self.npages();
        6 + sizes.offset as usize
            + if npages > 0 {
                npages.div_ceil(8) as usize
            } else {
                self.nelements.saturating_mul(self.element_size as u64) as usize
            }
            + 4
    }
}

/// A fixed array data block with its pages.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FixedArrayDataBlock {
    /// "Client ID".
    pub client: u8,
    /// "Header Address".
    pub header: Addr,
    /// The elements: inline, or by page.
    pub elements: BlockElements,
}

impl FixedArrayDataBlock {
    /// Parse the data block of header `h`, and its initialized pages when paged (the pages
    /// follow the block's prefix in the same allocation; the cursor must cover them).
    pub fn parse(c: &mut Cursor<'_>, h: &FixedArrayHeader) -> Result<FixedArrayDataBlock> {
        c.set_structure(DATA_BLOCK);
        let start = c.pos();
        let at = c.offset();
        c.expect_signature(&DATA_BLOCK_SIGNATURE)?;
        let version = c.read_u8()?;
        crate::ensure!(
            version == 0,
            UnsupportedVersion,
            DATA_BLOCK,
            at + 4,
            "version {version}"
        );
        let client = c.read_u8()?;
        crate::ensure!(
            client == h.client,
            InvalidValue,
            DATA_BLOCK,
            at + 5,
            "client {client}, the header says {}",
            h.client
        );
        let header = c.read_addr()?;
        let npages = h.npages();
        if npages == 0 {
            let elements = parse_elements(
                c,
                client,
                h.element_size,
                h.nelements,
                limits::MAX_ARRAY_INDEX_ELEMENTS,
            )?;
            c.verify_checksum(start)?;
            return Ok(FixedArrayDataBlock {
                client,
                header,
                elements: BlockElements::Inline(elements),
            });
        }
        let bitmap_len = check_count(c, npages.div_ceil(8), 1, u64::MAX, "page bitmap")?;
        let bitmap = c.read_bytes(bitmap_len)?;
        c.verify_checksum(start)?;
        let per_page = h.page_elements().unwrap_or(u64::MAX);
        let last = h.nelements - (npages - 1) * per_page;
        let pages = parse_pages(
            c,
            PAGE,
            client,
            h.element_size,
            npages,
            per_page,
            last,
            &|p| super::bitmap_get(bitmap, p),
        )?;
        Ok(FixedArrayDataBlock {
            client,
            header,
            elements: BlockElements::Paged(pages),
        })
    }

    /// Encode the block (and its pages, uninitialized ones as zeros).
    pub fn encode(&self, w: &mut Writer, h: &FixedArrayHeader) {
        let start = w.len();
        w.put_bytes(&DATA_BLOCK_SIGNATURE);
        w.put_u8(0);
        w.put_u8(self.client);
        w.put_addr(self.header);
        match &self.elements {
            BlockElements::Inline(v) => {
                for e in v {
                    e.encode(w, h.element_size);
                }
                w.put_checksum(start);
            }
            BlockElements::Paged(pages) => {
                let mut bitmap = vec![0u8; pages.len().div_ceil(8)];
                for (i, p) in pages.iter().enumerate() {
                    if p.is_some() {
                        bit_set(&mut bitmap, i);
                    }
                }
                w.put_bytes(&bitmap);
                w.put_checksum(start);
                let per_page = h.page_elements().unwrap_or(u64::MAX);
                let last = h
                    .nelements
                    .saturating_sub((pages.len() as u64).saturating_sub(1) * per_page);
                encode_pages(w, pages, h.element_size, per_page, last);
            }
        }
    }

    /// The element of chunk `index`, `None` when out of range or in an uninitialized page.
    pub fn element(&self, h: &FixedArrayHeader, index: u64) -> Option<ChunkElement> {
        match &self.elements {
            BlockElements::Inline(v) => v.get(usize::try_from(index).ok()?).copied(),
            BlockElements::Paged(pages) => {
                let per = h.page_elements()?;
                let page = pages.get(usize::try_from(index / per).ok()?)?.as_ref()?;
                page.get((index % per) as usize).copied()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn header_from_bytes() {
        let mut b = b"FAHD\x00\x00\x08\x0a".to_vec();
        b.extend_from_slice(&6u64.to_le_bytes());
        b.extend_from_slice(&0x700u64.to_le_bytes());
        let sum = crate::checksum::checksum(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        let h = FixedArrayHeader::parse(&mut Cursor::new(&b, 0x600, Sizes::DEFAULT)).unwrap();
        assert_eq!(
            h,
            FixedArrayHeader {
                client: 0,
                element_size: 8,
                page_bits: 10,
                nelements: 6,
                data_block: Addr(0x700)
            }
        );
        assert_eq!(h.npages(), 0);
        let mut w = Writer::new(Sizes::DEFAULT);
        h.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn unpaged_data_block_from_bytes() {
        let h = FixedArrayHeader {
            client: 0,
            element_size: 8,
            page_bits: 10,
            nelements: 2,
            data_block: Addr(0x700),
        };
        let mut b = b"FADB\x00\x00".to_vec();
        b.extend_from_slice(&0x600u64.to_le_bytes());
        b.extend_from_slice(&0x1000u64.to_le_bytes());
        b.extend_from_slice(&[0xff; 8]);
        let sum = crate::checksum::checksum(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        assert_eq!(b.len(), h.data_block_prefix_size(Sizes::DEFAULT));
        let d =
            FixedArrayDataBlock::parse(&mut Cursor::new(&b, 0x700, Sizes::DEFAULT), &h).unwrap();
        assert_eq!(d.element(&h, 0), Some(ChunkElement::Chunk(Addr(0x1000))));
        assert_eq!(d.element(&h, 1), Some(ChunkElement::Chunk(Addr::UNDEF)));
        assert_eq!(d.element(&h, 2), None);
        let mut w = Writer::new(Sizes::DEFAULT);
        d.encode(&mut w, &h);
        assert_eq!(w.as_slice(), &b[..]);
        b[20] ^= 1;
        let e = FixedArrayDataBlock::parse(&mut Cursor::new(&b, 0x700, Sizes::DEFAULT), &h)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ChecksumMismatch);
        assert_eq!(e.structure(), "fixed array data block");
    }

    #[test]
    fn paged_data_block_round_trip() {
        // 4 elements per page, 10 elements: 3 pages (4, 4, 2); page 1 not initialized.
        let h = FixedArrayHeader {
            client: 1,
            element_size: 8 + 2 + 4,
            page_bits: 2,
            nelements: 10,
            data_block: Addr(0x700),
        };
        assert_eq!(h.npages(), 3);
        let el = |i: u64| ChunkElement::Filtered {
            address: Addr(0x1000 * i),
            chunk_size: 100 + i,
            filter_mask: 0,
        };
        let d = FixedArrayDataBlock {
            client: 1,
            header: Addr(0x600),
            elements: BlockElements::Paged(vec![
                Some((0..4).map(el).collect()),
                None,
                Some((8..10).map(el).collect()),
            ]),
        };
        let mut w = Writer::new(Sizes::DEFAULT);
        d.encode(&mut w, &h);
        let prefix = h.data_block_prefix_size(Sizes::DEFAULT);
        assert_eq!(prefix, 6 + 8 + 1 + 4);
        assert_eq!(w.as_slice()[14], 0b1010_0000);
        assert_eq!(w.len(), prefix + 2 * (4 * 14 + 4) + (2 * 14 + 4));
        let back =
            FixedArrayDataBlock::parse(&mut Cursor::new(w.as_slice(), 0, Sizes::DEFAULT), &h)
                .unwrap();
        assert_eq!(back, d);
        assert_eq!(back.element(&h, 9), Some(el(9)));
        assert_eq!(back.element(&h, 5), None);
        // Truncated pages are an error, not a panic.
        let short = &w.as_slice()[..w.len() - 3];
        assert!(
            FixedArrayDataBlock::parse(&mut Cursor::new(short, 0, Sizes::DEFAULT), &h).is_err()
        );
    }
}
