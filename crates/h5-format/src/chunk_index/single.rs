//! The single chunk index: a dataset whose current, maximum and chunk dimensions are equal has
//! one chunk, whose address is the layout message's index address. With filters, the layout
//! message also stores the chunk's filtered size and filter mask (these fields).

use crate::{Addr, Cursor, Result, Writer};

/// "Size of Filtered Chunk" and "Filter Mask for Chunk" of a filtered single chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FilteredChunk {
    /// Size of the chunk after filters.
    pub size: u64,
    /// Filter mask.
    pub filter_mask: u32,
}

/// The single chunk index information of a layout message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SingleChunkIndex {
    /// Present when the layout flags say the single chunk is filtered.
    pub filtered: Option<FilteredChunk>,
}

impl SingleChunkIndex {
    /// Parse the index information (nothing unless `filtered`).
    pub fn parse(c: &mut Cursor<'_>, filtered: bool) -> Result<SingleChunkIndex> {
        let filtered = if filtered {
            Some(FilteredChunk {
                size: c.read_len()?,
                filter_mask: c.read_u32()?,
            })
        } else {
            None
        };
        Ok(SingleChunkIndex { filtered })
    }

    /// Encode the index information.
    pub fn encode(&self, w: &mut Writer) {
        if let Some(f) = self.filtered {
            w.put_len(f.size);
            w.put_u32(f.filter_mask);
        }
    }

    /// The chunk: its address (the layout's index address) and, when filtered, its stored
    /// size and filter mask. `None` when the chunk is not allocated.
    pub fn chunk(&self, index_address: Addr) -> Option<(Addr, Option<FilteredChunk>)> {
        (!index_address.is_undef()).then_some((index_address, self.filtered))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Sizes;

    #[test]
    fn filtered_fields() {
        let b = [0x10, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0];
        let i = SingleChunkIndex::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT), true).unwrap();
        assert_eq!(
            i.filtered,
            Some(FilteredChunk {
                size: 16,
                filter_mask: 2
            })
        );
        let mut w = Writer::new(Sizes::DEFAULT);
        i.encode(&mut w);
        assert_eq!(w.as_slice(), &b);
        assert_eq!(i.chunk(Addr(0x800)).unwrap().0, Addr(0x800));
        assert!(i.chunk(Addr::UNDEF).is_none());
        let plain =
            SingleChunkIndex::parse(&mut Cursor::new(&[], 0, Sizes::DEFAULT), false).unwrap();
        assert_eq!(plain.filtered, None);
    }
}
