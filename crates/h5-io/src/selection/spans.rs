//! The general hyperslab representation: a tree of sorted, disjoint spans, one level per
//! dimension (as the reference library's span trees). Each span `[low, high]` of a level
//! selects those coordinates combined with the sub-selection `down` of the faster dimensions;
//! equal sub-selections are shared through `Arc`, so a regular pattern costs the sum, not the
//! product, of its per-dimension counts.

use std::collections::HashMap;
use std::sync::Arc;

use super::hyperslab::Axis;
use super::{bail, Error, ErrorKind, Result, SelectOp};

/// Most spans built when a regular hyperslab takes part in a set operation (the sum of its
/// block counts over all dimensions).
pub const MAX_SPANS: u64 = 1 << 24;

/// Results of combining pairs of sub-trees, by their addresses (both stay alive for the
/// whole operation, so addresses are not reused).
type Memo = HashMap<(usize, usize), Option<Arc<SpanList>>>;

/// One span of a level: coordinates `low..=high` of this dimension, each with `down`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) low: u64,
    pub(crate) high: u64,
    /// Elements selected before this span within its list (prefix sum).
    pub(crate) prefix: u64,
    /// The selection of the faster dimensions; `None` at the last dimension.
    pub(crate) down: Option<Arc<SpanList>>,
}

impl Span {
    /// Elements selected per coordinate of this span.
    pub(crate) fn down_count(&self) -> u64 {
        self.down.as_ref().map_or(1, |d| d.nelem)
    }
}

/// A sorted list of disjoint spans of one dimension. Adjacent spans with equal sub-selections
/// are merged, so the representation of a set is unique.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SpanList {
    pub(crate) spans: Vec<Span>,
    /// Elements selected by the whole list.
    pub(crate) nelem: u64,
}

fn same_down(a: &Option<Arc<SpanList>>, b: &Option<Arc<SpanList>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => Arc::ptr_eq(x, y) || x == y,
        _ => false,
    }
}

impl SpanList {
    /// Build from pieces sorted by `low`, disjoint; merges adjacent pieces with equal downs.
    pub(crate) fn build(
        pieces: impl IntoIterator<Item = (u64, u64, Option<Arc<SpanList>>)>,
    ) -> Self {
        let mut spans: Vec<Span> = Vec::new();
        for (low, high, down) in pieces {
            if let Some(last) = spans.last_mut() {
                if last.high.checked_add(1) == Some(low) && same_down(&last.down, &down) {
                    last.high = high;
                    continue;
                }
            }
            spans.push(Span {
                low,
                high,
                prefix: 0,
                down,
            });
        }
        let mut acc = 0u64;
        for s in &mut spans {
            s.prefix = acc;
            acc = acc.saturating_add((s.high - s.low + 1).saturating_mul(s.down_count()));
        }
        SpanList { spans, nelem: acc }
    }

    /// The span tree of a regular hyperslab (all axes have count >= 1 and block >= 1). Its
    /// size is the sum of the counts (sub-trees are shared); more than [`MAX_SPANS`] is an
    /// error.
    pub(crate) fn from_regular(axes: &[Axis]) -> Result<Option<Arc<SpanList>>> {
        let total = axes.iter().fold(0u64, |acc, a| acc.saturating_add(a.count));
        if total > MAX_SPANS {
            bail!(
                LimitExceeded,
                "combining this regular hyperslab needs {total} spans, more than the limit {MAX_SPANS}"
            );
        }
        let mut down: Option<Arc<SpanList>> = None;
        for ax in axes.iter().rev() {
            let d = down.clone();
            let list = SpanList::build((0..ax.count).map(|i| {
                let low = ax.start + i * ax.stride;
                (low, low + ax.block - 1, d.clone())
            }));
            down = Some(Arc::new(list));
        }
        Ok(down)
    }

    /// The regular description of this tree, when it is one.
    pub(crate) fn to_regular(&self) -> Option<Vec<Axis>> {
        let mut axes = Vec::new();
        let mut node = self;
        loop {
            let first = node.spans.first()?;
            let block = first.high - first.low + 1;
            let count = node.spans.len() as u64;
            let stride = match node.spans.get(1) {
                Some(second) => second.low - first.low,
                None => block,
            };
            for (i, s) in node.spans.iter().enumerate() {
                if s.low != first.low + i as u64 * stride
                    || s.high - s.low + 1 != block
                    || !same_down(&s.down, &first.down)
                {
                    return None;
                }
            }
            axes.push(Axis::normalized(first.low, stride, count, block));
            match &first.down {
                None => return Some(axes),
                Some(d) => node = d,
            }
        }
    }

    /// Combine two trees of the same rank with a set operation.
    pub(crate) fn combine(a: &SpanList, b: &SpanList, op: SelectOp) -> SpanList {
        Self::combine_memo(a, b, op, &mut HashMap::new())
    }

    /// [`SpanList::combine`], sharing the result for each pair of sub-trees met again (a
    /// regular pattern meets the same pair on every row).
    fn combine_memo(a: &SpanList, b: &SpanList, op: SelectOp, memo: &mut Memo) -> SpanList {
        let mut bounds: Vec<u64> = Vec::with_capacity(2 * (a.spans.len() + b.spans.len()));
        for s in a.spans.iter().chain(&b.spans) {
            bounds.push(s.low);
            // Coordinates are below a dimension size, so `high + 1` does not overflow.
            bounds.push(s.high.saturating_add(1));
        }
        bounds.sort_unstable();
        bounds.dedup();
        let (mut i, mut j) = (0usize, 0usize);
        let mut pieces: Vec<(u64, u64, Option<Arc<SpanList>>)> = Vec::new();
        for w in bounds.windows(2) {
            let (x, y) = (w[0], w[1]);
            while a.spans.get(i).is_some_and(|s| s.high < x) {
                i += 1;
            }
            while b.spans.get(j).is_some_and(|s| s.high < x) {
                j += 1;
            }
            let sa = a.spans.get(i).filter(|s| s.low <= x);
            let sb = b.spans.get(j).filter(|s| s.low <= x);
            let piece: Option<Option<Arc<SpanList>>> = match (sa, sb) {
                (None, None) => None,
                (Some(s), None) => op.keep(true, false).then(|| s.down.clone()),
                (None, Some(t)) => op.keep(false, true).then(|| t.down.clone()),
                (Some(s), Some(t)) => match (&s.down, &t.down) {
                    (Some(da), Some(db)) => {
                        if Arc::ptr_eq(da, db) {
                            op.keep(true, true).then(|| Some(da.clone()))
                        } else {
                            let key = (Arc::as_ptr(da) as usize, Arc::as_ptr(db) as usize);
                            let d = match memo.get(&key) {
                                Some(d) => d.clone(),
                                None => {
                                    let d = SpanList::combine_memo(da, db, op, memo);
                                    let d = (!d.spans.is_empty()).then(|| Arc::new(d));
                                    memo.insert(key, d.clone());
                                    d
                                }
                            };
                            d.map(Some)
                        }
                    }
                    // Equal ranks: both are leaves here.
                    _ => op.keep(true, true).then_some(None),
                },
            };
            if let Some(down) = piece {
                pieces.push((x, y - 1, down));
            }
        }
        SpanList::build(pieces)
    }

    /// Extend `lo`/`hi` (inclusive per-level bounds, starting at `level`) with this tree.
    pub(crate) fn bounds_into(&self, level: usize, lo: &mut [u64], hi: &mut [u64]) {
        let (Some(first), Some(last)) = (self.spans.first(), self.spans.last()) else {
            return;
        };
        lo[level] = lo[level].min(first.low);
        hi[level] = hi[level].max(last.high);
        let mut prev: Option<&Arc<SpanList>> = None;
        for s in &self.spans {
            if let Some(d) = &s.down {
                if prev.is_some_and(|p| Arc::ptr_eq(p, d)) {
                    continue;
                }
                d.bounds_into(level + 1, lo, hi);
                prev = Some(d);
            }
        }
    }

    /// Index range of spans intersecting `[lo, hi)`.
    pub(crate) fn clip_range(&self, lo: u64, hi: u64) -> (usize, usize) {
        let first = self.spans.partition_point(|s| s.high < lo);
        let end = self.spans.partition_point(|s| s.low < hi);
        (first, end.max(first))
    }
}
