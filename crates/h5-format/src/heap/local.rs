//! Local heaps (`HEAP`): the header, the data segment's free list and names in the segment.

use crate::{Addr, Cursor, ErrorKind, Result, Sizes, Writer};

/// The header signature.
pub const SIGNATURE: [u8; 4] = *b"HEAP";
const STRUCTURE: &str = "local heap";
const FREE_LIST: &str = "local heap free list";

/// "Offset to Head of Free-list" value that marks the end of the list (`H5HL_FREE_NULL`).
pub const FREE_NULL: u64 = 1;

/// A local heap header.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LocalHeap {
    /// "Data Segment Size".
    pub data_segment_size: u64,
    /// "Offset to Head of Free-list", `None` when there is no free block (stored as the
    /// undefined length; some writers store [`FREE_NULL`], which parses to `Some(1)`).
    pub free_list_head: Option<u64>,
    /// "Address of Data Segment".
    pub data_segment: Addr,
}

/// A block of the free list: offset in the data segment and size (counting its two fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FreeBlock {
    /// Offset of the block in the data segment.
    pub offset: u64,
    /// "Size of this Free Block" in bytes.
    pub size: u64,
}

impl LocalHeap {
    /// Encoded size of the header.
    pub fn encoded_size(sizes: Sizes) -> usize {
        8 + 2 * sizes.length as usize + sizes.offset as usize
    }

    /// Parse the header.
    pub fn parse(c: &mut Cursor<'_>) -> Result<LocalHeap> {
        c.set_structure(STRUCTURE);
        let at = c.offset();
        c.expect_signature(&SIGNATURE)?;
        let version = c.read_u8()?;
        crate::ensure!(
            version == 0,
            UnsupportedVersion,
            STRUCTURE,
            at + 4,
            "version {version}"
        );
        c.skip(3)?;
        let data_segment_size = c.read_len()?;
        let head = c.read_len_or_undef()?;
        let data_segment = c.read_addr()?;
        crate::ensure!(
            data_segment_size <= crate::limits::MAX_METADATA_BLOCK,
            LimitExceeded,
            STRUCTURE,
            at + 8,
            "data segment size {data_segment_size} exceeds {}",
            crate::limits::MAX_METADATA_BLOCK
        );
        Ok(LocalHeap {
            data_segment_size,
            free_list_head: (head != u64::MAX).then_some(head),
            data_segment,
        })
    }

    /// Encode the header.
    pub fn encode(&self, w: &mut Writer) {
        w.put_bytes(&SIGNATURE);
        w.put_u8(0);
        w.put_zeros(3);
        w.put_len(self.data_segment_size);
        match self.free_list_head {
            Some(h) => w.put_len(h),
            None => w.put_uint(u64::MAX, w.sizes().length as usize),
        }
        w.put_addr(self.data_segment);
    }

    /// Walk the free list in the data segment `data` (a cursor over the segment, whose base is
    /// the segment's address; it may be shorter than the segment, then blocks past its end
    /// are an `UnexpectedEof` error). Every block must lie inside the segment and be at least
    /// two lengths long, and the walk stops with an error after more blocks than can fit (a
    /// cycle).
    pub fn free_list(&self, data: &Cursor<'_>) -> Result<Vec<FreeBlock>> {
        let sizes = data.sizes();
        let l = sizes.length as u64;
        let seg = self.data_segment_size;
        let available = data.data().len() as u64;
        // Free blocks do not overlap and each is at least 2L long: more blocks than fit in
        // the (available part of the) segment means the list loops.
        let max_blocks = seg.min(available) / (2 * l) + 1;
        let mut out = Vec::new();
        let mut next = self.free_list_head;
        while let Some(off) = next {
            if off == FREE_NULL {
                break;
            }
            let at = data.base().saturating_add(off);
            if out.len() as u64 >= max_blocks {
                return Err(crate::Error::new(
                    ErrorKind::InvalidValue,
                    FREE_LIST,
                    at,
                    "the free list loops",
                ));
            }
            crate::ensure!(
                off.checked_add(2 * l).is_some_and(|e| e <= seg),
                BadAddress,
                FREE_LIST,
                at,
                "free block at offset {off} is outside the {seg}-byte data segment"
            );
            let mut c = Cursor::new(data.data(), data.base(), sizes).in_structure(FREE_LIST);
            c.set_pos(usize::try_from(off).unwrap_or(usize::MAX))?;
            let n = c.read_len_or_undef()?;
            let size = c.read_len()?;
            crate::ensure!(
                size >= 2 * l && off.checked_add(size).is_some_and(|e| e <= seg),
                InvalidValue,
                FREE_LIST,
                at,
                "free block of {size} bytes at offset {off} does not fit the data segment"
            );
            out.push(FreeBlock { offset: off, size });
            next = (n != u64::MAX).then_some(n);
        }
        Ok(out)
    }

    /// Write free blocks (in list order) into a data segment: each block's "next" field and
    /// size. Blocks outside the segment are skipped.
    pub fn encode_free_list(blocks: &[FreeBlock], segment: &mut [u8], sizes: Sizes) {
        let l = sizes.length as usize;
        for (i, b) in blocks.iter().enumerate() {
            let next = blocks.get(i + 1).map_or(FREE_NULL, |n| n.offset);
            let mut w = Writer::new(sizes);
            w.put_len(next);
            w.put_len(b.size);
            let Ok(off) = usize::try_from(b.offset) else {
                continue;
            };
            if let Some(dst) = off
                .checked_add(2 * l)
                .and_then(|end| segment.get_mut(off..end))
            {
                dst.copy_from_slice(w.as_slice());
            }
        }
    }
}

/// The NUL-terminated string at `offset` of a data segment (a link name or soft link value).
pub fn string_at<'a>(segment: &Cursor<'a>, offset: u64) -> Result<&'a [u8]> {
    let mut c = segment.clone().in_structure("local heap data segment");
    let pos = usize::try_from(offset).unwrap_or(usize::MAX);
    c.set_pos(pos).map_err(|_| {
        c.error(
            ErrorKind::BadAddress,
            format!("name offset {offset} is past the segment"),
        )
    })?;
    // A name may be as long as the segment (the reference library writes link names longer
    // than 64 KiB); the read borrows, so the segment bounds it.
    let max = c.remaining();
    c.read_cstr(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_from_bytes() {
        let mut b = b"HEAP\x00\x00\x00\x00".to_vec();
        b.extend_from_slice(&88u64.to_le_bytes());
        b.extend_from_slice(&16u64.to_le_bytes());
        b.extend_from_slice(&0x2c0u64.to_le_bytes());
        let h = LocalHeap::parse(&mut Cursor::new(&b, 0x2a8, Sizes::DEFAULT)).unwrap();
        assert_eq!(
            h,
            LocalHeap {
                data_segment_size: 88,
                free_list_head: Some(16),
                data_segment: Addr(0x2c0)
            }
        );
        let mut w = Writer::new(Sizes::DEFAULT);
        h.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn free_list_walk() {
        let s = Sizes::DEFAULT;
        let mut seg = vec![0u8; 88];
        seg[..1].copy_from_slice(b"\0");
        seg[8..12].copy_from_slice(b"abc\0");
        let blocks = [
            FreeBlock {
                offset: 16,
                size: 24,
            },
            FreeBlock {
                offset: 56,
                size: 32,
            },
        ];
        LocalHeap::encode_free_list(&blocks, &mut seg, s);
        let h = LocalHeap {
            data_segment_size: 88,
            free_list_head: Some(16),
            data_segment: Addr(0x2c0),
        };
        let c = Cursor::new(&seg, 0x2c0, s);
        assert_eq!(h.free_list(&c).unwrap(), blocks);
        assert_eq!(string_at(&c, 8).unwrap(), b"abc");
        assert_eq!(string_at(&c, 0).unwrap(), b"");
        assert_eq!(
            string_at(&c, 1000).unwrap_err().kind(),
            ErrorKind::BadAddress
        );

        // A block pointing to itself is a loop, reported, not followed forever.
        seg[16..24].copy_from_slice(&16u64.to_le_bytes());
        let c = Cursor::new(&seg, 0x2c0, s);
        let e = h.free_list(&c).unwrap_err();
        assert_eq!(e.structure(), "local heap free list");
        // A block past the segment is an error.
        let h2 = LocalHeap {
            free_list_head: Some(80),
            ..h
        };
        assert_eq!(h2.free_list(&c).unwrap_err().kind(), ErrorKind::BadAddress);
    }
}
