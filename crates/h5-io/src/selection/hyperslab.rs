//! Hyperslab selections: a regular pattern `(start, stride, count, block)` per dimension when
//! possible, a span tree (union of blocks) otherwise.

use std::sync::Arc;

use super::spans::SpanList;
use super::Result;

/// One dimension of a regular hyperslab: `count` blocks of `block` coordinates, the `i`-th
/// starting at `start + i * stride`.
///
/// Kept normalized: `count >= 1`, `block >= 1`, and touching blocks are merged, so
/// `stride > block` when `count > 1`, and `stride == block` when `count == 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Axis {
    /// First selected coordinate.
    pub start: u64,
    /// Distance between block starts.
    pub stride: u64,
    /// Number of blocks.
    pub count: u64,
    /// Coordinates per block.
    pub block: u64,
}

impl Axis {
    /// Normalize an axis with `count >= 1`, `block >= 1`, `stride >= block` (when count > 1).
    pub(crate) fn normalized(start: u64, stride: u64, count: u64, block: u64) -> Axis {
        if count == 1 || stride == block {
            let block = count * block;
            Axis {
                start,
                stride: block,
                count: 1,
                block,
            }
        } else {
            Axis {
                start,
                stride,
                count,
                block,
            }
        }
    }

    /// The axis selecting `0..n` (n >= 1).
    pub(crate) fn full(n: u64) -> Axis {
        Axis {
            start: 0,
            stride: n,
            count: 1,
            block: n,
        }
    }

    /// One past the last selected coordinate.
    pub fn end(&self) -> u64 {
        self.start + (self.count - 1) * self.stride + self.block
    }

    /// Number of selected coordinates.
    pub fn len(&self) -> u64 {
        self.count * self.block
    }

    /// Always false: a normalized axis selects something (present for API symmetry).
    pub fn is_empty(&self) -> bool {
        self.count == 0 || self.block == 0
    }

    /// Start of block `i`.
    pub(crate) fn block_start(&self, i: u64) -> u64 {
        self.start + i * self.stride
    }

    /// The first selected coordinate `>= x`.
    pub(crate) fn first_at_or_after(&self, x: u64) -> Option<u64> {
        if x <= self.start {
            return Some(self.start);
        }
        let i = (x - self.start) / self.stride;
        if i >= self.count {
            return None;
        }
        if x < self.block_start(i) + self.block {
            Some(x)
        } else if i + 1 < self.count {
            Some(self.block_start(i + 1))
        } else {
            None
        }
    }

    /// The blocks (first and last index) intersecting `[lo, hi)`, if any.
    pub(crate) fn clip(&self, lo: u64, hi: u64) -> Option<(u64, u64)> {
        if hi <= self.start || lo >= self.end() || lo >= hi {
            return None;
        }
        let mut first = if lo <= self.start {
            0
        } else {
            (lo - self.start) / self.stride
        };
        if self.block_start(first) + self.block <= lo {
            first += 1;
        }
        let last = ((hi - 1 - self.start) / self.stride).min(self.count - 1);
        (first <= last).then_some((first, last))
    }

    /// Block `i` clipped to `[lo, hi)`, as a half-open interval.
    pub(crate) fn interval(&self, i: u64, lo: u64, hi: u64) -> (u64, u64) {
        let s = self.block_start(i);
        (s.max(lo), (s + self.block).min(hi))
    }

    /// The position of coordinate `c` (in block `i`) among the axis's selected coordinates.
    pub(crate) fn rank_of(&self, i: u64, c: u64) -> u64 {
        i * self.block + (c - self.block_start(i))
    }

    /// The coordinate at position `r` and how many coordinates of its block follow it
    /// (itself included).
    pub(crate) fn coord_of_rank(&self, r: u64) -> (u64, u64) {
        let i = r / self.block;
        let j = r % self.block;
        (self.block_start(i) + j, self.block - j)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Repr {
    Regular(Vec<Axis>),
    Spans(Arc<SpanList>),
}

/// A non-empty hyperslab selection of a fixed rank (>= 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hyperslab {
    pub(crate) repr: Repr,
}

impl Hyperslab {
    /// A regular hyperslab from normalized axes (rank >= 1).
    pub(crate) fn from_axes(axes: Vec<Axis>) -> Hyperslab {
        Hyperslab {
            repr: Repr::Regular(axes),
        }
    }

    /// A hyperslab from a span tree, regular again when the tree is; `None` when empty.
    pub(crate) fn from_spans(list: SpanList) -> Option<Hyperslab> {
        if list.spans.is_empty() {
            return None;
        }
        Some(match list.to_regular() {
            Some(axes) => Hyperslab::from_axes(axes),
            None => Hyperslab {
                repr: Repr::Spans(Arc::new(list)),
            },
        })
    }

    /// The rank.
    pub fn rank(&self) -> usize {
        match &self.repr {
            Repr::Regular(axes) => axes.len(),
            Repr::Spans(list) => {
                let mut rank = 1;
                let mut node: &SpanList = list;
                while let Some(d) = node.spans.first().and_then(|s| s.down.as_ref()) {
                    rank += 1;
                    node = d;
                }
                rank
            }
        }
    }

    /// The regular description (`H5Sget_regular_hyperslab`), when the selection is one
    /// regular pattern.
    pub fn regular(&self) -> Option<&[Axis]> {
        match &self.repr {
            Repr::Regular(axes) => Some(axes),
            Repr::Spans(_) => None,
        }
    }

    /// Whether the selection is one regular pattern (`H5Sis_regular_hyperslab`).
    pub fn is_regular(&self) -> bool {
        matches!(self.repr, Repr::Regular(_))
    }

    /// The number of selected elements.
    pub fn npoints(&self) -> u64 {
        match &self.repr {
            Repr::Regular(axes) => axes.iter().map(Axis::len).product(),
            Repr::Spans(list) => list.nelem,
        }
    }

    /// The inclusive bounding box `(low, high)`.
    pub fn bounds(&self) -> (Vec<u64>, Vec<u64>) {
        match &self.repr {
            Repr::Regular(axes) => (
                axes.iter().map(|a| a.start).collect(),
                axes.iter().map(|a| a.end() - 1).collect(),
            ),
            Repr::Spans(list) => {
                let rank = self.rank();
                let mut lo = vec![u64::MAX; rank];
                let mut hi = vec![0; rank];
                list.bounds_into(0, &mut lo, &mut hi);
                (lo, hi)
            }
        }
    }

    /// The span tree (built from the regular description when needed).
    pub(crate) fn span_tree(&self) -> Result<Arc<SpanList>> {
        Ok(match &self.repr {
            Repr::Regular(axes) => SpanList::from_regular(axes)?
                .unwrap_or_else(|| Arc::new(SpanList::build(std::iter::empty()))),
            Repr::Spans(list) => list.clone(),
        })
    }
}
