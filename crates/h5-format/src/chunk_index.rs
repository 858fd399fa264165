//! Dataset chunk indexes of the version 4 layout: single chunk, implicit, fixed array,
//! extensible array and version 2 B-tree (the version 1 B-tree is in [`crate::btree::v1`]).
//!
//! The array indexes store one element per chunk: its address (client 0) or, for filtered
//! datasets, its address, size and filter mask (client 1). [`ChunkElement`] is that element.

pub mod btree_v2;
pub mod extensible_array;
pub mod fixed_array;
pub mod implicit;
pub mod single;

use crate::bits::{bit_get, check_count, log2_gen};
use crate::{Addr, Cursor, ErrorKind, Result, Sizes, Writer};

/// Array client ID 0: elements are chunk addresses.
pub const CLIENT_CHUNK: u8 = 0;
/// Array client ID 1: elements are filtered chunks (address, size, filter mask).
pub const CLIENT_FILTERED_CHUNK: u8 = 1;

/// Width of the "chunk size" field of filtered chunk records for chunks of `chunk_bytes`
/// unfiltered bytes: `1 + (log2(chunk_bytes) + 8) / 8`, at most 8.
pub fn chunk_size_len(chunk_bytes: u64) -> u8 {
    (1 + (log2_gen(chunk_bytes) + 8) / 8).min(8) as u8
}

/// Element size of an array index for a dataset with chunks of `chunk_bytes` bytes.
pub fn element_size(sizes: Sizes, filtered: bool, chunk_bytes: u64) -> u8 {
    if filtered {
        sizes.offset + chunk_size_len(chunk_bytes) + 4
    } else {
        sizes.offset
    }
}

/// One element of a fixed or extensible array chunk index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChunkElement {
    /// Client 0: the chunk's address (undefined when not allocated).
    Chunk(Addr),
    /// Client 1: a filtered chunk.
    Filtered {
        /// Chunk address.
        address: Addr,
        /// Chunk size after filters.
        chunk_size: u64,
        /// Filter mask.
        filter_mask: u32,
    },
}

impl ChunkElement {
    /// The chunk's address.
    pub fn address(&self) -> Addr {
        match *self {
            ChunkElement::Chunk(a) => a,
            ChunkElement::Filtered { address, .. } => address,
        }
    }

    /// Parse one element of `element_size` bytes for array client `client`.
    pub fn parse(c: &mut Cursor<'_>, client: u8, element_size: u8) -> Result<ChunkElement> {
        let o = c.sizes().offset;
        match client {
            CLIENT_CHUNK if element_size == o => Ok(ChunkElement::Chunk(c.read_addr()?)),
            CLIENT_FILTERED_CHUNK if element_size > o + 4 && element_size <= o + 12 => {
                Ok(ChunkElement::Filtered {
                    address: c.read_addr()?,
                    chunk_size: c.read_uint((element_size - o - 4) as usize)?,
                    filter_mask: c.read_u32()?,
                })
            }
            _ => Err(c.error(
                ErrorKind::InvalidValue,
                format!("element size {element_size} does not fit array client {client}"),
            )),
        }
    }

    /// Encode the element in `element_size` bytes.
    pub fn encode(&self, w: &mut Writer, element_size: u8) {
        let o = w.sizes().offset;
        match *self {
            ChunkElement::Chunk(a) => {
                w.put_addr(a);
                w.put_zeros(element_size.saturating_sub(o) as usize);
            }
            ChunkElement::Filtered {
                address,
                chunk_size,
                filter_mask,
            } => {
                w.put_addr(address);
                w.put_uint(chunk_size, element_size.saturating_sub(o + 4) as usize);
                w.put_u32(filter_mask);
            }
        }
    }
}

/// The elements of an array data block: inline, or in pages (each page present only when
/// its bit in the page-initialized bitmap is set).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BlockElements {
    /// The block is not paged: all elements.
    Inline(Vec<ChunkElement>),
    /// The block is paged: per page, its elements when initialized.
    Paged(Vec<Option<Vec<ChunkElement>>>),
}

pub(crate) fn parse_elements(
    c: &mut Cursor<'_>,
    client: u8,
    element_size: u8,
    count: u64,
    cap: u64,
) -> Result<Vec<ChunkElement>> {
    let n = check_count(c, count, element_size.max(1) as u64, cap, "elements")?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(ChunkElement::parse(c, client, element_size)?);
    }
    Ok(v)
}

/// Parse `npages` pages of `page_elements` elements each (the last one `last_page_elements`)
/// starting at the cursor's position; a page is read only when `init` says so.
#[allow(clippy::too_many_arguments)]
pub(crate) fn parse_pages(
    c: &mut Cursor<'_>,
    structure: &'static str,
    client: u8,
    element_size: u8,
    npages: u64,
    page_elements: u64,
    last_page_elements: u64,
    init: &dyn Fn(usize) -> bool,
) -> Result<Vec<Option<Vec<ChunkElement>>>> {
    let page_size = page_elements
        .checked_mul(element_size as u64)
        .and_then(|n| n.checked_add(4))
        .ok_or_else(|| c.error(ErrorKind::LimitExceeded, "page size overflows"))?;
    let last_size = last_page_elements
        .saturating_mul(element_size as u64)
        .saturating_add(4);
    let total = match npages.checked_sub(1) {
        None => Some(0),
        Some(n) => n
            .checked_mul(page_size)
            .and_then(|n| n.checked_add(last_size)),
    }
    .unwrap_or(u64::MAX);
    crate::ensure!(
        total <= c.remaining() as u64,
        UnexpectedEof,
        structure,
        c.offset(),
        "{npages} pages need {total} bytes, {} left",
        c.remaining()
    );
    let mut pages = Vec::with_capacity(npages as usize);
    for p in 0..npages {
        let n = if p + 1 == npages {
            last_page_elements
        } else {
            page_elements
        };
        let size = (n * element_size as u64 + 4) as usize;
        let mut page = c.sub(size)?.in_structure(structure);
        if init(p as usize) {
            let elems = parse_elements(&mut page, client, element_size, n, u64::MAX)?;
            page.verify_checksum(0)?;
            pages.push(Some(elems));
        } else {
            pages.push(None);
        }
    }
    Ok(pages)
}

/// Encode pages: initialized ones with their checksum, the others as zeros.
pub(crate) fn encode_pages(
    w: &mut Writer,
    pages: &[Option<Vec<ChunkElement>>],
    element_size: u8,
    page_elements: u64,
    last_page_elements: u64,
) {
    for (i, p) in pages.iter().enumerate() {
        let n = if i + 1 == pages.len() {
            last_page_elements
        } else {
            page_elements
        };
        let start = w.len();
        match p {
            Some(elems) => {
                for e in elems {
                    e.encode(w, element_size);
                }
                w.put_checksum(start);
            }
            None => w.put_zeros((n * element_size as u64 + 4) as usize),
        }
    }
}

pub(crate) fn bitmap_get(bitmap: &[u8], i: usize) -> bool {
    bit_get(bitmap, i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_size_widths() {
        assert_eq!(chunk_size_len(1), 2);
        assert_eq!(chunk_size_len(255), 2);
        assert_eq!(chunk_size_len(256), 3);
        assert_eq!(chunk_size_len(1 << 20), 4);
        assert_eq!(chunk_size_len(u64::MAX), 8);
        assert_eq!(element_size(Sizes::DEFAULT, true, 4000), 8 + 3 + 4);
        assert_eq!(element_size(Sizes::DEFAULT, false, 4000), 8);
    }

    #[test]
    fn element_bytes() {
        let s = Sizes::DEFAULT;
        let b = [0x00, 0x20, 0, 0, 0, 0, 0, 0, 0xa0, 0x0f, 0, 1, 0, 0, 0];
        let e = ChunkElement::parse(&mut Cursor::new(&b, 0, s), CLIENT_FILTERED_CHUNK, 15).unwrap();
        assert_eq!(
            e,
            ChunkElement::Filtered {
                address: Addr(0x2000),
                chunk_size: 4000,
                filter_mask: 1
            }
        );
        let mut w = Writer::new(s);
        e.encode(&mut w, 15);
        assert_eq!(w.as_slice(), &b);
        assert!(ChunkElement::parse(&mut Cursor::new(&b, 0, s), CLIENT_CHUNK, 15).is_err());
        assert!(ChunkElement::parse(&mut Cursor::new(&b, 0, s), 7, 8).is_err());
    }
}
