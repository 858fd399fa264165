//! The version 2 B-tree chunk index (datasets with more than one unlimited dimension): record
//! types 10 (unfiltered) and 11 (filtered) of [`crate::btree::v2`], seen as chunk entries.

use super::chunk_size_len;
use crate::btree::v2::{Header, Record};
use crate::{Addr, Error, ErrorKind, Result, Sizes};

const STRUCTURE: &str = "v2 B-tree chunk index";

/// Record type of unfiltered chunks.
pub const RECORD_CHUNK: u8 = 10;
/// Record type of filtered chunks.
pub const RECORD_FILTERED_CHUNK: u8 = 11;

/// One chunk of the index.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ChunkRecord {
    /// Chunk address.
    pub address: Addr,
    /// Size after filters and filter mask, for filtered datasets.
    pub filtered: Option<(u64, u32)>,
    /// Scaled offset (chunk offset / chunk dimension) per dataset dimension.
    pub scaled: Vec<u64>,
}

/// Record size of the index for a dataset of `rank` dimensions, filtered or not, with chunks
/// of `chunk_bytes` unfiltered bytes.
pub fn record_size(sizes: Sizes, rank: usize, filtered: bool, chunk_bytes: u64) -> usize {
    sizes.offset as usize
        + 8 * rank
        + if filtered {
            chunk_size_len(chunk_bytes) as usize + 4
        } else {
            0
        }
}

/// Check that a v2 B-tree header is a chunk index for a dataset of `rank` dimensions.
pub fn check_header(h: &Header, sizes: Sizes, rank: usize) -> Result<()> {
    let err = |m: String| Error::without_offset(ErrorKind::InvalidValue, STRUCTURE, m);
    match h.record_type {
        RECORD_CHUNK => {
            if h.record_size as usize != sizes.offset as usize + 8 * rank {
                return Err(err(format!(
                    "record size {} does not fit rank {rank}",
                    h.record_size
                )));
            }
        }
        RECORD_FILTERED_CHUNK => {
            let fixed = sizes.offset as usize + 8 * rank + 4;
            if !(fixed + 1..=fixed + 8).contains(&(h.record_size as usize)) {
                return Err(err(format!(
                    "record size {} does not fit rank {rank}",
                    h.record_size
                )));
            }
        }
        t => return Err(err(format!("record type {t} is not a chunk record"))),
    }
    Ok(())
}

impl ChunkRecord {
    /// The chunk entry of a type 10 or 11 record.
    pub fn from_record(r: &Record) -> Result<ChunkRecord> {
        match r {
            Record::Chunk { address, scaled } => Ok(ChunkRecord {
                address: *address,
                filtered: None,
                scaled: scaled.clone(),
            }),
            Record::FilteredChunk {
                address,
                chunk_size,
                filter_mask,
                scaled,
                ..
            } => Ok(ChunkRecord {
                address: *address,
                filtered: Some((*chunk_size, *filter_mask)),
                scaled: scaled.clone(),
            }),
            other => Err(Error::without_offset(
                ErrorKind::InvalidValue,
                STRUCTURE,
                format!(
                    "record of type {} is not a chunk record",
                    other.record_type()
                ),
            )),
        }
    }

    /// The record for this chunk; `chunk_bytes` fixes the width of a filtered chunk's size.
    pub fn to_record(&self, chunk_bytes: u64) -> Record {
        match self.filtered {
            None => Record::Chunk {
                address: self.address,
                scaled: self.scaled.clone(),
            },
            Some((chunk_size, filter_mask)) => Record::FilteredChunk {
                address: self.address,
                chunk_size,
                chunk_size_len: chunk_size_len(chunk_bytes),
                filter_mask,
                scaled: self.scaled.clone(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Cursor, Writer};

    #[test]
    fn chunk_records_through_the_btree_code() {
        let s = Sizes::DEFAULT;
        let rs = record_size(s, 2, true, 4000);
        assert_eq!(rs, 8 + 16 + 3 + 4);
        let c = ChunkRecord {
            address: Addr(0x4000),
            filtered: Some((1234, 0)),
            scaled: vec![1, 7],
        };
        let r = c.to_record(4000);
        let mut w = Writer::new(s);
        r.encode(&mut w, rs);
        assert_eq!(w.len(), rs);
        // Address, 3-byte size, mask, two scaled offsets.
        assert_eq!(&w.as_slice()[8..11], &[0xd2, 0x04, 0x00]);
        let back = Record::parse(
            &mut Cursor::new(w.as_slice(), 0, s),
            RECORD_FILTERED_CHUNK,
            rs,
        )
        .unwrap();
        assert_eq!(ChunkRecord::from_record(&back).unwrap(), c);

        let plain = ChunkRecord {
            address: Addr(0x4000),
            filtered: None,
            scaled: vec![3, 4, 5],
        };
        let rs = record_size(s, 3, false, 0);
        let mut w = Writer::new(s);
        plain.to_record(0).encode(&mut w, rs);
        let back = Record::parse(&mut Cursor::new(w.as_slice(), 0, s), RECORD_CHUNK, rs).unwrap();
        assert_eq!(ChunkRecord::from_record(&back).unwrap(), plain);

        let mut h = Header {
            record_type: RECORD_CHUNK,
            node_size: 2048,
            record_size: rs as u16,
            depth: 0,
            split_percent: 100,
            merge_percent: 40,
            root: Addr::UNDEF,
            root_records: 0,
            total_records: 0,
        };
        check_header(&h, s, 3).unwrap();
        assert!(check_header(&h, s, 2).is_err());
        h.record_type = 5;
        assert!(check_header(&h, s, 3).is_err());
    }
}
