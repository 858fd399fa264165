//! Dataspace selection encodings (`H5S_SELECT_SERIALIZE`): none, all, point lists (versions 1
//! and 2) and hyperslabs (version 1 blocks, version 2 regular, version 3 regular or blocks
//! with 2-, 4- or 8-byte fields). Used by region references and virtual dataset mappings.

use crate::bits::check_count;
use crate::{limits, Cursor, ErrorKind, Result, Writer};

const STRUCTURE: &str = "dataspace selection";

/// Selection type codes.
const SEL_NONE: u32 = 0;
const SEL_POINTS: u32 = 1;
const SEL_HYPERSLABS: u32 = 2;
const SEL_ALL: u32 = 3;

/// Flag bit 0 of hyperslab versions 2 and 3: the selection is regular.
const HYPER_REGULAR: u8 = 0x01;

/// "Encode Size" of version 2 point and version 3 hyperslab selections.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EncodeSize {
    /// 2-byte fields.
    Two,
    /// 4-byte fields.
    Four,
    /// 8-byte fields.
    Eight,
}

impl EncodeSize {
    /// Bytes per field.
    pub fn bytes(self) -> usize {
        match self {
            EncodeSize::Two => 2,
            EncodeSize::Four => 4,
            EncodeSize::Eight => 8,
        }
    }

    /// The smallest size that holds `max` (the reference library picks it this way).
    pub fn fitting(max: u64) -> EncodeSize {
        if max <= u16::MAX as u64 {
            EncodeSize::Two
        } else if max <= u32::MAX as u64 {
            EncodeSize::Four
        } else {
            EncodeSize::Eight
        }
    }

    fn from_byte(c: &Cursor<'_>, b: u8) -> Result<EncodeSize> {
        match b {
            2 => Ok(EncodeSize::Two),
            4 => Ok(EncodeSize::Four),
            8 => Ok(EncodeSize::Eight),
            _ => Err(c.error(ErrorKind::InvalidValue, format!("encode size {b}"))),
        }
    }

    /// All bits set at this width: the encoding of `H5S_UNLIMITED` for counts and blocks.
    fn all_ones(self) -> u64 {
        match self {
            EncodeSize::Two => u16::MAX as u64,
            EncodeSize::Four => u32::MAX as u64,
            EncodeSize::Eight => u64::MAX,
        }
    }
}

/// One dimension of a regular hyperslab. `u64::MAX` in `count` or `block` is `H5S_UNLIMITED`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegularDim {
    /// "Start": offset of the first block.
    pub start: u64,
    /// "Stride": elements between block starts.
    pub stride: u64,
    /// "Count": number of blocks.
    pub count: u64,
    /// "Block": block size.
    pub block: u64,
}

/// One block of an irregular hyperslab: the offsets of its first and last elements.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Block {
    /// Starting offset per dimension.
    pub start: Vec<u64>,
    /// Ending offset per dimension (inclusive).
    pub end: Vec<u64>,
}

/// A dataspace selection, in the form it is encoded. Point coordinates and block offsets must
/// have `rank` entries each.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Selection {
    /// Nothing selected (`H5S_SEL_NONE`, version 1).
    None,
    /// The whole extent (`H5S_SEL_ALL`, version 1).
    All,
    /// Points, version 1 (4-byte coordinates).
    PointsV1 {
        /// Rank.
        rank: u32,
        /// The points' coordinates.
        points: Vec<Vec<u64>>,
    },
    /// Points, version 2.
    PointsV2 {
        /// Width of the count and coordinates.
        size: EncodeSize,
        /// Rank.
        rank: u32,
        /// The points' coordinates.
        points: Vec<Vec<u64>>,
    },
    /// Hyperslab version 1: blocks with 4-byte offsets.
    HyperslabV1 {
        /// Rank.
        rank: u32,
        /// The blocks.
        blocks: Vec<Block>,
    },
    /// Hyperslab version 2: regular, 8-byte fields.
    HyperslabV2 {
        /// One entry per dimension.
        dims: Vec<RegularDim>,
    },
    /// Hyperslab version 3, regular.
    HyperslabV3Regular {
        /// Field width.
        size: EncodeSize,
        /// One entry per dimension.
        dims: Vec<RegularDim>,
    },
    /// Hyperslab version 3, irregular (blocks).
    HyperslabV3Blocks {
        /// Field width.
        size: EncodeSize,
        /// Rank.
        rank: u32,
        /// The blocks.
        blocks: Vec<Block>,
    },
}

fn read_rank(c: &mut Cursor<'_>) -> Result<usize> {
    let at = c.offset();
    let rank = c.read_u32()?;
    crate::ensure!(
        rank as usize <= limits::MAX_RANK,
        LimitExceeded,
        STRUCTURE,
        at,
        "rank {rank} exceeds {}",
        limits::MAX_RANK
    );
    Ok(rank as usize)
}

fn read_coords(c: &mut Cursor<'_>, rank: usize, w: usize) -> Result<Vec<u64>> {
    let mut v = Vec::with_capacity(rank);
    for _ in 0..rank {
        v.push(c.read_uint(w)?);
    }
    Ok(v)
}

/// Points or blocks of rank 0 take no bytes, so their count is not bounded by the data: a
/// rank-0 (scalar) selection holds at most one, the dataspace's only element.
fn check_rank0(c: &Cursor<'_>, n: u64, rank: usize, what: &str) -> Result<()> {
    if rank == 0 && n > 1 {
        return Err(c.error(
            crate::ErrorKind::LimitExceeded,
            format!("{n} {what} in a selection of rank 0"),
        ));
    }
    Ok(())
}

fn read_points(c: &mut Cursor<'_>, n: u64, rank: usize, w: usize) -> Result<Vec<Vec<u64>>> {
    check_rank0(c, n, rank, "points")?;
    let item = (rank * w) as u64;
    let n = check_count(c, n, item, limits::MAX_SELECTION_ELEMENTS, "points")?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(read_coords(c, rank, w)?);
    }
    Ok(v)
}

fn read_blocks(c: &mut Cursor<'_>, n: u64, rank: usize, w: usize) -> Result<Vec<Block>> {
    check_rank0(c, n, rank, "blocks")?;
    let item = (2 * rank * w) as u64;
    let n = check_count(c, n, item, limits::MAX_SELECTION_ELEMENTS, "blocks")?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let start = read_coords(c, rank, w)?;
        let end = read_coords(c, rank, w)?;
        v.push(Block { start, end });
    }
    Ok(v)
}

fn read_regular(c: &mut Cursor<'_>, rank: usize, size: EncodeSize) -> Result<Vec<RegularDim>> {
    let w = size.bytes();
    check_count(c, rank as u64, 4 * w as u64, u64::MAX, "dimensions")?;
    let unlimited = |v: u64| if v == size.all_ones() { u64::MAX } else { v };
    let mut dims = Vec::with_capacity(rank);
    for _ in 0..rank {
        dims.push(RegularDim {
            start: c.read_uint(w)?,
            stride: c.read_uint(w)?,
            count: unlimited(c.read_uint(w)?),
            block: unlimited(c.read_uint(w)?),
        });
    }
    Ok(dims)
}

impl Selection {
    /// Parse a selection (type, version, then its information).
    pub fn parse(c: &mut Cursor<'_>) -> Result<Selection> {
        if c.structure().is_empty() {
            c.set_structure(STRUCTURE);
        }
        let at = c.offset();
        let kind = c.read_u32()?;
        let version = c.read_u32()?;
        let bad_version = || {
            crate::Error::new(
                ErrorKind::UnsupportedVersion,
                STRUCTURE,
                at + 4,
                format!("selection type {kind} version {version}"),
            )
        };
        match (kind, version) {
            (SEL_NONE | SEL_ALL, 1) => {
                c.skip(8)?;
                Ok(if kind == SEL_NONE {
                    Selection::None
                } else {
                    Selection::All
                })
            }
            (SEL_POINTS, 1) => {
                c.skip(8)?; // reserved, length
                let rank = read_rank(c)?;
                let n = c.read_u32()? as u64;
                Ok(Selection::PointsV1 {
                    rank: rank as u32,
                    points: read_points(c, n, rank, 4)?,
                })
            }
            (SEL_POINTS, 2) => {
                let size = EncodeSize::from_byte(c, c.clone().read_u8()?)?;
                c.skip(1)?;
                let rank = read_rank(c)?;
                let n = c.read_uint(size.bytes())?;
                Ok(Selection::PointsV2 {
                    size,
                    rank: rank as u32,
                    points: read_points(c, n, rank, size.bytes())?,
                })
            }
            (SEL_HYPERSLABS, 1) => {
                c.skip(8)?; // reserved, length
                let rank = read_rank(c)?;
                let n = c.read_u32()? as u64;
                Ok(Selection::HyperslabV1 {
                    rank: rank as u32,
                    blocks: read_blocks(c, n, rank, 4)?,
                })
            }
            (SEL_HYPERSLABS, 2) => {
                let flags_at = c.offset();
                let flags = c.read_u8()?;
                crate::ensure!(
                    flags & HYPER_REGULAR != 0,
                    InvalidValue,
                    STRUCTURE,
                    flags_at,
                    "version 2 hyperslab without the regular flag"
                );
                c.skip(4)?; // length
                let rank = read_rank(c)?;
                Ok(Selection::HyperslabV2 {
                    dims: read_regular(c, rank, EncodeSize::Eight)?,
                })
            }
            (SEL_HYPERSLABS, 3) => {
                let flags = c.read_u8()?;
                let size = EncodeSize::from_byte(c, c.clone().read_u8()?)?;
                c.skip(1)?;
                let rank = read_rank(c)?;
                if flags & HYPER_REGULAR != 0 {
                    Ok(Selection::HyperslabV3Regular {
                        size,
                        dims: read_regular(c, rank, size)?,
                    })
                } else {
                    let n = c.read_uint(size.bytes())?;
                    Ok(Selection::HyperslabV3Blocks {
                        size,
                        rank: rank as u32,
                        blocks: read_blocks(c, n, rank, size.bytes())?,
                    })
                }
            }
            (SEL_NONE..=SEL_ALL, _) => Err(bad_version()),
            _ => Err(c.error_at(
                ErrorKind::InvalidValue,
                at,
                format!("selection type {kind}"),
            )),
        }
    }

    /// Encode the selection.
    pub fn encode(&self, w: &mut Writer) {
        let put_all = |w: &mut Writer, v: &[u64], n: usize| {
            for &x in v {
                w.put_uint(x, n);
            }
        };
        match self {
            Selection::None | Selection::All => {
                w.put_u32(if matches!(self, Selection::None) {
                    SEL_NONE
                } else {
                    SEL_ALL
                });
                w.put_u32(1);
                w.put_zeros(8);
            }
            Selection::PointsV1 { rank, points } => {
                w.put_u32(SEL_POINTS);
                w.put_u32(1);
                w.put_u32(0);
                w.put_u32((8 + 4 * *rank as u64 * points.len() as u64) as u32);
                w.put_u32(*rank);
                w.put_u32(points.len() as u32);
                for p in points {
                    put_all(w, p, 4);
                }
            }
            Selection::PointsV2 { size, rank, points } => {
                w.put_u32(SEL_POINTS);
                w.put_u32(2);
                w.put_u8(size.bytes() as u8);
                w.put_u32(*rank);
                w.put_uint(points.len() as u64, size.bytes());
                for p in points {
                    put_all(w, p, size.bytes());
                }
            }
            Selection::HyperslabV1 { rank, blocks } => {
                w.put_u32(SEL_HYPERSLABS);
                w.put_u32(1);
                w.put_u32(0);
                w.put_u32((8 + 8 * *rank as u64 * blocks.len() as u64) as u32);
                w.put_u32(*rank);
                w.put_u32(blocks.len() as u32);
                for b in blocks {
                    put_all(w, &b.start, 4);
                    put_all(w, &b.end, 4);
                }
            }
            Selection::HyperslabV2 { dims } => {
                w.put_u32(SEL_HYPERSLABS);
                w.put_u32(2);
                w.put_u8(HYPER_REGULAR);
                w.put_u32((4 + 32 * dims.len() as u64) as u32);
                w.put_u32(dims.len() as u32);
                for d in dims {
                    put_all(w, &[d.start, d.stride, d.count, d.block], 8);
                }
            }
            Selection::HyperslabV3Regular { size, dims } => {
                w.put_u32(SEL_HYPERSLABS);
                w.put_u32(3);
                w.put_u8(HYPER_REGULAR);
                w.put_u8(size.bytes() as u8);
                w.put_u32(dims.len() as u32);
                for d in dims {
                    put_all(w, &[d.start, d.stride, d.count, d.block], size.bytes());
                }
            }
            Selection::HyperslabV3Blocks { size, rank, blocks } => {
                w.put_u32(SEL_HYPERSLABS);
                w.put_u32(3);
                w.put_u8(0);
                w.put_u8(size.bytes() as u8);
                w.put_u32(*rank);
                w.put_uint(blocks.len() as u64, size.bytes());
                for b in blocks {
                    put_all(w, &b.start, size.bytes());
                    put_all(w, &b.end, size.bytes());
                }
            }
        }
    }

    /// Encoded size in bytes.
    pub fn encoded_size(&self) -> usize {
        let mut w = Writer::new(crate::Sizes::DEFAULT);
        self.encode(&mut w);
        w.len()
    }

    /// The rank the selection states (`None` for none/all, which do not store one).
    pub fn rank(&self) -> Option<u32> {
        match self {
            Selection::None | Selection::All => None,
            Selection::PointsV1 { rank, .. }
            | Selection::PointsV2 { rank, .. }
            | Selection::HyperslabV1 { rank, .. }
            | Selection::HyperslabV3Blocks { rank, .. } => Some(*rank),
            Selection::HyperslabV2 { dims } | Selection::HyperslabV3Regular { dims, .. } => {
                Some(dims.len() as u32)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Sizes;

    fn parse(b: &[u8]) -> Result<Selection> {
        Selection::parse(&mut Cursor::new(b, 0x100, Sizes::DEFAULT))
    }

    fn round_trip(s: &Selection) {
        let mut w = Writer::new(Sizes::DEFAULT);
        s.encode(&mut w);
        assert_eq!(w.len(), s.encoded_size());
        let mut c = Cursor::new(w.as_slice(), 0, Sizes::DEFAULT);
        assert_eq!(&Selection::parse(&mut c).unwrap(), s);
        assert!(c.is_empty());
    }

    #[test]
    fn none_and_all_from_bytes() {
        let b = [3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(parse(&b).unwrap(), Selection::All);
        let mut w = Writer::new(Sizes::DEFAULT);
        Selection::All.encode(&mut w);
        assert_eq!(w.as_slice(), &b);
        round_trip(&Selection::None);
    }

    #[test]
    fn points_v1_from_bytes() {
        // Two 2-D points, (1,2) and (3,4).
        let mut b = Vec::new();
        for v in [1u32, 1, 0, 8 + 16, 2, 2, 1, 2, 3, 4] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        let s = parse(&b).unwrap();
        assert_eq!(
            s,
            Selection::PointsV1 {
                rank: 2,
                points: vec![vec![1, 2], vec![3, 4]]
            }
        );
        let mut w = Writer::new(Sizes::DEFAULT);
        s.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn hyperslab_v1_from_bytes() {
        // One 1-D block from 2 to 5.
        let mut b = Vec::new();
        for v in [2u32, 1, 0, 8 + 8, 1, 1, 2, 5] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        let s = parse(&b).unwrap();
        assert_eq!(
            s,
            Selection::HyperslabV1 {
                rank: 1,
                blocks: vec![Block {
                    start: vec![2],
                    end: vec![5]
                }]
            }
        );
        let mut w = Writer::new(Sizes::DEFAULT);
        s.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn hyperslab_v3_regular_from_bytes() {
        let mut b = Vec::new();
        b.extend_from_slice(&2u32.to_le_bytes());
        b.extend_from_slice(&3u32.to_le_bytes());
        b.extend_from_slice(&[1, 2]);
        b.extend_from_slice(&1u32.to_le_bytes());
        for v in [0u16, 4, 0xffff, 2] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        let s = parse(&b).unwrap();
        assert_eq!(
            s,
            Selection::HyperslabV3Regular {
                size: EncodeSize::Two,
                dims: vec![RegularDim {
                    start: 0,
                    stride: 4,
                    count: u64::MAX,
                    block: 2
                }]
            }
        );
        let mut w = Writer::new(Sizes::DEFAULT);
        s.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn every_form_round_trips() {
        let reg = vec![
            RegularDim {
                start: 1,
                stride: 3,
                count: 4,
                block: 2,
            },
            RegularDim {
                start: 0,
                stride: 1,
                count: 1,
                block: 10,
            },
        ];
        let blocks = vec![
            Block {
                start: vec![0, 0],
                end: vec![1, 1],
            },
            Block {
                start: vec![5, 70000],
                end: vec![6, 70001],
            },
        ];
        for s in [
            Selection::PointsV2 {
                size: EncodeSize::Eight,
                rank: 3,
                points: vec![vec![1, 2, 3], vec![1 << 40, 0, 7]],
            },
            Selection::PointsV2 {
                size: EncodeSize::Two,
                rank: 1,
                points: vec![],
            },
            Selection::HyperslabV2 { dims: reg.clone() },
            Selection::HyperslabV3Regular {
                size: EncodeSize::Four,
                dims: reg,
            },
            Selection::HyperslabV3Blocks {
                size: EncodeSize::Four,
                rank: 2,
                blocks,
            },
        ] {
            round_trip(&s);
        }
        assert_eq!(EncodeSize::fitting(70000), EncodeSize::Four);
    }

    #[test]
    fn hostile_selections() {
        // Unknown type, unknown version, absurd rank and counts: errors, no panic.
        assert!(parse(&[9, 0, 0, 0, 1, 0, 0, 0]).is_err());
        assert_eq!(
            parse(&[1, 0, 0, 0, 7, 0, 0, 0]).unwrap_err().kind(),
            ErrorKind::UnsupportedVersion
        );
        let mut b = Vec::new();
        for v in [1u32, 1, 0, 0, 1000, 1] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        assert_eq!(parse(&b).unwrap_err().kind(), ErrorKind::LimitExceeded);
        let mut b = Vec::new();
        for v in [2u32, 1, 0, 0, 0, u32::MAX] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        assert_eq!(parse(&b).unwrap_err().kind(), ErrorKind::LimitExceeded);
        assert!(parse(&[1, 0, 0, 0, 2, 0, 0, 0, 3]).is_err());
    }

    #[test]
    fn rank_0_selections_hold_at_most_one_point_or_block() {
        let s = Sizes::DEFAULT;
        // Points version 1: type 1, version 1, reserved, length, rank 0, one point.
        let one = [
            1u8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
        ];
        let sel = Selection::parse(&mut Cursor::new(&one, 0, s)).unwrap();
        let mut w = Writer::new(s);
        sel.encode(&mut w);
        assert_eq!(
            Selection::parse(&mut Cursor::new(w.as_slice(), 0, s)).unwrap(),
            sel
        );
        let mut two = one;
        two[20] = 2;
        assert!(Selection::parse(&mut Cursor::new(&two, 0, s)).is_err());
    }
}
