//! A selection as maximal contiguous runs of a row-major layout: the whole dataset
//! (contiguous storage) or one chunk of a chunk grid.

use std::collections::BTreeMap;

use super::extent::row_major_strides;
use super::hyperslab::{Axis, Repr};
use super::spans::SpanList;
use super::{bail, Dataspace, Error, ErrorKind, Points, Result, Selection};

/// A run of `len` selected elements: contiguous at element `offset` of a row-major layout
/// (the dataset, or one chunk), and the selected elements number `rank .. rank + len` in the
/// selection's iteration order (so `rank` is also the position in a packed buffer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Run {
    /// Offset in elements from the start of the layout.
    pub offset: u64,
    /// Position of the first element in the selection's iteration order.
    pub rank: u64,
    /// Number of elements.
    pub len: u64,
}

/// The row-major layout runs are expressed in, and the box of coordinates visited.
#[derive(Clone, Debug)]
struct Layout {
    /// Dataset coordinates of the layout's element 0.
    origin: Vec<u64>,
    /// The layout's shape.
    shape: Vec<u64>,
    /// Row-major strides of `shape`.
    lstride: Vec<u64>,
    /// Visited coordinates: `lo[k] .. hi[k]` (dataset coordinates).
    lo: Vec<u64>,
    hi: Vec<u64>,
}

impl Layout {
    fn whole(dims: &[u64]) -> Layout {
        Layout {
            origin: vec![0; dims.len()],
            shape: dims.to_vec(),
            lstride: row_major_strides(dims),
            lo: vec![0; dims.len()],
            hi: dims.to_vec(),
        }
    }

    fn chunk(dims: &[u64], chunk: &[u64], coords: &[u64]) -> Layout {
        let origin: Vec<u64> = coords.iter().zip(chunk).map(|(q, c)| q * c).collect();
        let hi = origin
            .iter()
            .zip(chunk)
            .zip(dims)
            .map(|((o, c), d)| o.saturating_add(*c).min(*d))
            .collect();
        Layout {
            lo: origin.clone(),
            origin,
            shape: chunk.to_vec(),
            lstride: row_major_strides(chunk),
            hi,
        }
    }
}

/// The runs of a selection, maximal and in iteration order (see [`Run`]). Lazy: holds
/// O(rank) state for hyperslabs and everything.
#[derive(Debug)]
pub struct Runs<'a> {
    inner: Inner<'a>,
    pending: Option<Run>,
}

#[derive(Debug)]
enum Inner<'a> {
    Empty,
    Single(Option<Run>),
    Product(ProductRuns),
    Tree(TreeRuns<'a>),
    Points(PointRuns<'a>),
}

impl Iterator for Runs<'_> {
    type Item = Run;

    fn next(&mut self) -> Option<Run> {
        loop {
            let next = match &mut self.inner {
                Inner::Empty => None,
                Inner::Single(r) => r.take(),
                Inner::Product(p) => p.next(),
                Inner::Tree(t) => t.next(),
                Inner::Points(p) => p.next(),
            };
            let Some(r) = next else {
                return self.pending.take();
            };
            match &mut self.pending {
                Some(p) if p.offset + p.len == r.offset && p.rank + p.len == r.rank => {
                    p.len += r.len;
                }
                Some(_) => return self.pending.replace(r),
                None => self.pending = Some(r),
            }
        }
    }
}

impl<'a> Runs<'a> {
    fn build(
        sel: &'a Selection,
        space: &Dataspace,
        layout: Layout,
        points: Option<Vec<usize>>,
    ) -> Runs<'a> {
        let inner = match sel {
            Selection::None => Inner::Empty,
            _ if space.npoints() == 0 => Inner::Empty,
            Selection::All if space.rank() == 0 => Inner::Single(Some(Run {
                offset: 0,
                rank: 0,
                len: 1,
            })),
            Selection::All => {
                let axes = space.dims().iter().map(|&d| Axis::full(d)).collect();
                ProductRuns::start(axes, layout)
            }
            Selection::Hyperslab(h) => match &h.repr {
                Repr::Regular(axes) => ProductRuns::start(axes.clone(), layout),
                Repr::Spans(list) => TreeRuns::start(list, layout),
            },
            Selection::Points(p) => Inner::Points(PointRuns {
                points: p,
                indices: points,
                pos: 0,
                layout,
            }),
        };
        Runs {
            inner,
            pending: None,
        }
    }
}

/// Runs of a regular hyperslab (or everything): an odometer over the blocks of each
/// dimension, where the fastest dimensions that are fully selected merge into the runs.
#[derive(Debug)]
struct ProductRuns {
    axes: Vec<Axis>,
    layout: Layout,
    /// Elements per coordinate of each dimension in iteration order.
    rstride: Vec<u64>,
    /// The dimension whose blocks are the runs; all faster ones are fully selected.
    m: usize,
    first: Vec<u64>,
    last: Vec<u64>,
    blk: Vec<u64>,
    coord: Vec<u64>,
    done: bool,
}

impl ProductRuns {
    fn start<'a>(axes: Vec<Axis>, layout: Layout) -> Inner<'a> {
        let rank = axes.len();
        let mut first = Vec::with_capacity(rank);
        let mut last = Vec::with_capacity(rank);
        for (k, ax) in axes.iter().enumerate() {
            match ax.clip(layout.lo[k], layout.hi[k]) {
                Some((f, l)) => {
                    first.push(f);
                    last.push(l);
                }
                None => return Inner::Empty,
            }
        }
        let full = |k: usize| {
            let ax = &axes[k];
            let (a, b) = ax.interval(first[k], layout.lo[k], layout.hi[k]);
            first[k] == last[k]
                && ax.count == 1
                && a == ax.start
                && b == ax.end()
                && a == layout.origin[k]
                && Some(b) == layout.origin[k].checked_add(layout.shape[k])
        };
        let m = (0..rank).rev().find(|&k| !full(k)).unwrap_or(0);
        let mut rstride = vec![1u64; rank];
        for k in (0..rank.saturating_sub(1)).rev() {
            rstride[k] = rstride[k + 1] * axes[k + 1].len();
        }
        let blk = first.clone();
        let coord = (0..rank)
            .map(|k| axes[k].interval(first[k], layout.lo[k], layout.hi[k]).0)
            .collect();
        Inner::Product(ProductRuns {
            axes,
            layout,
            rstride,
            m,
            first,
            last,
            blk,
            coord,
            done: false,
        })
    }

    fn next(&mut self) -> Option<Run> {
        if self.done {
            return None;
        }
        let m = self.m;
        let l = &self.layout;
        let (a, b) = self.axes[m].interval(self.blk[m], l.lo[m], l.hi[m]);
        let mut offset = (a - l.origin[m]) * l.lstride[m];
        let mut rank = self.axes[m].rank_of(self.blk[m], a) * self.rstride[m];
        for k in 0..m {
            offset += (self.coord[k] - l.origin[k]) * l.lstride[k];
            rank += self.axes[k].rank_of(self.blk[k], self.coord[k]) * self.rstride[k];
        }
        let run = Run {
            offset,
            rank,
            len: (b - a) * l.lstride[m],
        };
        // Advance the odometer.
        self.blk[m] += 1;
        if self.blk[m] > self.last[m] {
            self.blk[m] = self.first[m];
            let mut k = m;
            loop {
                if k == 0 {
                    self.done = true;
                    break;
                }
                k -= 1;
                self.coord[k] += 1;
                let (_, end) = self.axes[k].interval(self.blk[k], l.lo[k], l.hi[k]);
                if self.coord[k] < end {
                    break;
                }
                self.blk[k] += 1;
                if self.blk[k] <= self.last[k] {
                    self.coord[k] = self.axes[k].interval(self.blk[k], l.lo[k], l.hi[k]).0;
                    break;
                }
                self.blk[k] = self.first[k];
                self.coord[k] = self.axes[k].interval(self.blk[k], l.lo[k], l.hi[k]).0;
            }
        }
        Some(run)
    }
}

#[derive(Debug)]
struct TreeFrame<'a> {
    node: &'a SpanList,
    idx: usize,
    end: usize,
    /// Next coordinate of span `idx` to descend into, once entered.
    coord: Option<u64>,
    base_off: u64,
    base_rank: u64,
}

/// Runs of a span tree: a depth-first walk of the spans inside the visited box.
#[derive(Debug)]
struct TreeRuns<'a> {
    layout: Layout,
    stack: Vec<TreeFrame<'a>>,
}

/// Whether `node` (at `level`) selects exactly the layout's full extent in its dimensions,
/// all inside the visited box, so its elements are one run in both layout and order.
fn node_is_full(layout: &Layout, node: &SpanList, level: usize) -> bool {
    let [s] = node.spans.as_slice() else {
        return false;
    };
    let (Some(&o), Some(&n), Some(&lo), Some(&hi)) = (
        layout.origin.get(level),
        layout.shape.get(level),
        layout.lo.get(level),
        layout.hi.get(level),
    ) else {
        return false;
    };
    s.low == o
        && o.checked_add(n) == s.high.checked_add(1)
        && lo <= s.low
        && s.high < hi
        && s.down
            .as_ref()
            .is_none_or(|d| node_is_full(layout, d, level + 1))
}

impl<'a> TreeRuns<'a> {
    fn start(list: &'a SpanList, layout: Layout) -> Inner<'a> {
        let (f, e) = list.clip_range(layout.lo[0], layout.hi[0]);
        Inner::Tree(TreeRuns {
            stack: vec![TreeFrame {
                node: list,
                idx: f,
                end: e,
                coord: None,
                base_off: 0,
                base_rank: 0,
            }],
            layout,
        })
    }

    fn next(&mut self) -> Option<Run> {
        loop {
            let l = self.stack.len().checked_sub(1)?;
            let layout = &self.layout;
            let top = &mut self.stack[l];
            let node = top.node;
            let Some(span) = node.spans.get(top.idx).filter(|_| top.idx < top.end) else {
                self.stack.pop();
                continue;
            };
            let a = span.low.max(layout.lo[l]);
            let b = span.high.min(layout.hi[l] - 1);
            let dn = span.down_count();
            let down = match &span.down {
                Some(d) if !node_is_full(layout, d, l + 1) => d,
                _ => {
                    top.idx += 1;
                    top.coord = None;
                    return Some(Run {
                        offset: top.base_off + (a - layout.origin[l]) * layout.lstride[l],
                        rank: top.base_rank + span.prefix + (a - span.low) * dn,
                        len: (b - a + 1) * layout.lstride[l],
                    });
                }
            };
            let c = top.coord.unwrap_or(a);
            if c >= b {
                top.idx += 1;
                top.coord = None;
            } else {
                top.coord = Some(c + 1);
            }
            let base_off = top.base_off + (c - layout.origin[l]) * layout.lstride[l];
            let base_rank = top.base_rank + span.prefix + (c - span.low) * dn;
            let (f, e) = down.clip_range(layout.lo[l + 1], layout.hi[l + 1]);
            self.stack.push(TreeFrame {
                node: down,
                idx: f,
                end: e,
                coord: None,
                base_off,
                base_rank,
            });
        }
    }
}

/// Runs of a point selection: each point inside the visited box, in the given order.
#[derive(Debug)]
struct PointRuns<'a> {
    points: &'a Points,
    /// The points of this chunk, when iterating a chunk.
    indices: Option<Vec<usize>>,
    pos: usize,
    layout: Layout,
}

impl PointRuns<'_> {
    fn next(&mut self) -> Option<Run> {
        loop {
            let i = match &self.indices {
                Some(ix) => *ix.get(self.pos)?,
                None => self.pos,
            };
            self.pos += 1;
            let pt = self.points.get(i)?;
            let l = &self.layout;
            let mut offset = 0u64;
            let mut inside = true;
            for (k, &c) in pt.iter().enumerate() {
                if c < l.lo[k] || c >= l.hi[k] {
                    inside = false;
                    break;
                }
                offset += (c - l.origin[k]) * l.lstride[k];
            }
            if inside {
                return Some(Run {
                    offset,
                    rank: i as u64,
                    len: 1,
                });
            }
        }
    }
}

impl Selection {
    /// The selection's runs in the row-major layout of the whole dataset (contiguous
    /// storage), after checking it against `space`.
    pub fn runs(&self, space: &Dataspace) -> Result<Runs<'_>> {
        self.validate(space)?;
        Ok(Runs::build(self, space, Layout::whole(space.dims()), None))
    }

    /// The chunks of a chunk grid (chunk sizes `chunk_dims`) that the selection touches, in
    /// row-major order of chunk coordinates, each with its runs in the chunk's own row-major
    /// layout (edge chunks keep the full chunk shape, as stored).
    pub fn chunks(&self, space: &Dataspace, chunk_dims: &[u64]) -> Result<Chunks<'_>> {
        self.validate(space)?;
        let dims = space.dims();
        if space.rank() == 0 || chunk_dims.len() != dims.len() {
            bail!(
                RankMismatch,
                "chunk dims have rank {} but the dataspace has rank {}",
                chunk_dims.len(),
                space.rank()
            );
        }
        if let Some(k) = chunk_dims.iter().position(|&c| c == 0) {
            bail!(InvalidExtent, "chunk size is zero in dim {k}");
        }
        super::extent::element_count(chunk_dims)?;
        let state = if self.npoints(space) == 0 {
            ChunkState::Done
        } else {
            match self {
                Selection::None => ChunkState::Done,
                Selection::All => {
                    ChunkState::product(dims.iter().map(|&d| Axis::full(d)).collect(), chunk_dims)
                }
                Selection::Hyperslab(h) => match &h.repr {
                    Repr::Regular(axes) => ChunkState::product(axes.clone(), chunk_dims),
                    Repr::Spans(list) => ChunkState::Tree(TreeChunks {
                        root: list,
                        chunk: chunk_dims.to_vec(),
                        levels: Vec::new(),
                        started: false,
                    }),
                },
                Selection::Points(p) => {
                    let mut map: BTreeMap<Vec<u64>, Vec<usize>> = BTreeMap::new();
                    for (i, pt) in p.iter().enumerate() {
                        let q = pt.iter().zip(chunk_dims).map(|(c, n)| c / n).collect();
                        map.entry(q).or_default().push(i);
                    }
                    ChunkState::Points(map.into_iter())
                }
            }
        };
        Ok(Chunks {
            sel: self,
            space: space.clone(),
            chunk: chunk_dims.to_vec(),
            state,
        })
    }
}

/// One level of the walk over the chunks touched by a span tree.
#[derive(Debug)]
struct ChunkLevel<'a> {
    /// The sub-trees of this level reachable through the chunks fixed at slower levels.
    nodes: Vec<&'a SpanList>,
    /// The chunk indices those sub-trees touch: sorted, disjoint, inclusive ranges.
    ranges: Vec<(u64, u64)>,
    ri: usize,
    q: u64,
}

impl<'a> ChunkLevel<'a> {
    fn new(nodes: Vec<&'a SpanList>, c: u64) -> ChunkLevel<'a> {
        let mut ranges: Vec<(u64, u64)> = nodes
            .iter()
            .flat_map(|n| n.spans.iter().map(move |s| (s.low / c, s.high / c)))
            .collect();
        ranges.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
        for (a, b) in ranges {
            match merged.last_mut() {
                Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        let q = merged.first().map_or(0, |r| r.0);
        ChunkLevel {
            nodes,
            ranges: merged,
            ri: 0,
            q,
        }
    }

    fn advance(&mut self) -> bool {
        let Some(&(_, hi)) = self.ranges.get(self.ri) else {
            return false;
        };
        if self.q < hi {
            self.q += 1;
            return true;
        }
        self.ri += 1;
        match self.ranges.get(self.ri) {
            Some(&(lo, _)) => {
                self.q = lo;
                true
            }
            None => false,
        }
    }
}

/// The chunks touched by a span tree, lazily in row-major order: a depth-first walk where
/// each level keeps only the sub-trees reachable through the chunk indices fixed so far, so
/// every index visited leads to a touched chunk and memory stays within the sum (not the
/// product) of the grid's dimensions.
#[derive(Debug)]
struct TreeChunks<'a> {
    root: &'a SpanList,
    chunk: Vec<u64>,
    levels: Vec<ChunkLevel<'a>>,
    started: bool,
}

impl TreeChunks<'_> {
    fn next(&mut self) -> Option<Vec<u64>> {
        if !self.started {
            self.started = true;
            let first = ChunkLevel::new(vec![self.root], self.chunk[0]);
            if first.ranges.is_empty() {
                return None;
            }
            self.levels.push(first);
        } else {
            loop {
                let top = self.levels.last_mut()?;
                if top.advance() {
                    break;
                }
                self.levels.pop();
            }
        }
        while self.levels.len() < self.chunk.len() {
            let l = self.levels.len() - 1;
            let cur = &self.levels[l];
            let c = self.chunk[l];
            let (lo, hi) = (cur.q * c, (cur.q + 1).saturating_mul(c));
            let mut downs: Vec<&SpanList> = Vec::new();
            for n in &cur.nodes {
                let (f, e) = n.clip_range(lo, hi);
                for s in n.spans.get(f..e).unwrap_or_default() {
                    if let Some(d) = &s.down {
                        downs.push(d);
                    }
                }
            }
            downs.sort_unstable_by_key(|d| *d as *const SpanList as usize);
            downs.dedup_by_key(|d| *d as *const SpanList as usize);
            let next = ChunkLevel::new(downs, self.chunk[l + 1]);
            self.levels.push(next);
        }
        Some(self.levels.iter().map(|l| l.q).collect())
    }
}

#[derive(Debug)]
enum ChunkState<'a> {
    Done,
    Tree(TreeChunks<'a>),
    Product {
        axes: Vec<Axis>,
        chunk: Vec<u64>,
        cur: Option<Vec<u64>>,
    },
    Points(std::collections::btree_map::IntoIter<Vec<u64>, Vec<usize>>),
}

/// The first chunk index `>= q` along an axis that holds a selected coordinate.
fn next_chunk(ax: &Axis, q: u64, c: u64) -> Option<u64> {
    ax.first_at_or_after(q.checked_mul(c)?).map(|x| x / c)
}

impl ChunkState<'_> {
    fn product<'a>(axes: Vec<Axis>, chunk: &[u64]) -> ChunkState<'a> {
        let cur: Option<Vec<u64>> = axes
            .iter()
            .zip(chunk)
            .map(|(ax, &c)| next_chunk(ax, 0, c))
            .collect();
        ChunkState::Product {
            axes,
            chunk: chunk.to_vec(),
            cur,
        }
    }
}

/// The chunks a selection touches (see [`Selection::chunks`]).
#[derive(Debug)]
pub struct Chunks<'a> {
    sel: &'a Selection,
    space: Dataspace,
    chunk: Vec<u64>,
    state: ChunkState<'a>,
}

impl<'a> Iterator for Chunks<'a> {
    type Item = Chunk<'a>;

    fn next(&mut self) -> Option<Chunk<'a>> {
        let (coords, points) = match &mut self.state {
            ChunkState::Done => return None,
            ChunkState::Tree(t) => (t.next()?, None),
            ChunkState::Points(it) => {
                let (q, ix) = it.next()?;
                (q, Some(ix))
            }
            ChunkState::Product { axes, chunk, cur } => {
                let out = cur.clone()?;
                // Advance: the fastest dimension that has a further touched chunk moves on,
                // all faster ones restart at their first touched chunk.
                let mut advanced = false;
                if let Some(c) = cur.as_mut() {
                    for k in (0..c.len()).rev() {
                        if let Some(n) = c[k]
                            .checked_add(1)
                            .and_then(|q| next_chunk(&axes[k], q, chunk[k]))
                        {
                            c[k] = n;
                            for j in k + 1..c.len() {
                                c[j] = next_chunk(&axes[j], 0, chunk[j]).unwrap_or(0);
                            }
                            advanced = true;
                            break;
                        }
                    }
                }
                if !advanced {
                    *cur = None;
                }
                (out, None)
            }
        };
        Some(Chunk {
            sel: self.sel,
            layout: Layout::chunk(self.space.dims(), &self.chunk, &coords),
            coords,
            space: self.space.clone(),
            points,
        })
    }
}

/// One chunk touched by a selection.
#[derive(Clone, Debug)]
pub struct Chunk<'a> {
    sel: &'a Selection,
    coords: Vec<u64>,
    layout: Layout,
    space: Dataspace,
    points: Option<Vec<usize>>,
}

impl<'a> Chunk<'a> {
    /// The chunk's coordinates in the chunk grid (dataset coordinates divided by the chunk
    /// size, the "scaled" coordinates of chunk indexes).
    pub fn coords(&self) -> &[u64] {
        &self.coords
    }

    /// The dataset coordinates of the chunk's first element (the chunk's offset as stored in
    /// chunk index records).
    pub fn origin(&self) -> &[u64] {
        &self.layout.origin
    }

    /// The selected elements in this chunk: runs in the chunk's row-major layout (full chunk
    /// shape), with their positions in the whole selection's iteration order.
    pub fn runs(&self) -> Runs<'a> {
        Runs::build(
            self.sel,
            &self.space,
            self.layout.clone(),
            self.points.clone(),
        )
    }
}
