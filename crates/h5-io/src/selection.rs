//! Dataspaces and selections: which elements of a dataset a read or write touches, and where
//! they sit in the file's layout and in memory. No I/O happens here.
//!
//! - [`Dataspace`]: scalar, null, or simple with current and maximum sizes.
//! - [`Selection`]: everything, nothing, a list of points, or a hyperslab built with the
//!   reference library's operations (`SET`, `OR`, `AND`, `XOR`, `NOTB`, `NOTA`; see
//!   [`SelectOp`]), kept as a regular pattern when it is one and as a span tree otherwise.
//!   Elements are visited in the reference library's order: row-major over a hyperslab (or
//!   everything), the given order for points.
//! - [`Runs`]: a selection as maximal contiguous runs of a row-major layout, either the whole
//!   dataset ([`Selection::runs`]) or one chunk ([`Selection::chunks`]); each run says where it
//!   sits in the layout and which selected elements (by position in iteration order) it holds.
//!   Runs are produced lazily; a regular selection costs nothing per element when its fastest
//!   runs are long, so a dataset far bigger than memory is read by selection without touching
//!   the rest.
//! - [`MemoryMap`]: where the selected elements go in a memory buffer (packed, a memory
//!   dataspace with its own selection, or strided as netCDF's mapped access), and
//!   [`Transfer`], which pairs file runs with memory runs of equal length for gather/scatter.
//! - [`nc_access`]: netCDF's five access forms (whole variable, one element, array section,
//!   subsampled section, mapped section) turned into a file selection and a memory map.

mod extent;
mod hyperslab;
mod memory;
mod netcdf;
mod runs;
mod spans;

#[cfg(test)]
mod tests;

use std::fmt;

pub use extent::{Dataspace, UNLIMITED};
pub use hyperslab::{Axis, Hyperslab};
pub use memory::{copy_to_file, copy_to_memory, MemoryMap, Pair, Transfer};
pub use netcdf::{nc_access, NcAccess, NcForm, NcMode};
pub use runs::{Chunk, Chunks, Run, Runs};
pub use spans::MAX_SPANS;

use hyperslab::Repr;
use spans::SpanList;

/// What went wrong with a dataspace, selection or access request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A dataspace that cannot exist (rank, sizes above maximum sizes).
    InvalidExtent,
    /// Ranks of two things that must agree do not.
    RankMismatch,
    /// A selection reaches outside its dataspace.
    OutOfBounds,
    /// Selection parameters that the reference library rejects (zero stride, overlapping
    /// blocks, combining points with a hyperslab).
    InvalidSelection,
    /// The file and memory sides select different numbers of elements, or a buffer is too
    /// short for the runs given.
    CountMismatch,
    /// A size or count does not fit in 64 bits.
    Overflow,
    /// A selection too complex to represent within the limits (see [`MAX_SPANS`]).
    LimitExceeded,
    /// netCDF `NC_EINVALCOORDS`: a start or index beyond its dimension.
    InvalidCoords,
    /// netCDF `NC_EEDGE`: start + count beyond its dimension.
    Edge,
    /// netCDF `NC_ESTRIDE`: a stride below 1.
    Stride,
}

impl ErrorKind {
    fn describe(self) -> &'static str {
        match self {
            ErrorKind::InvalidExtent => "invalid dataspace",
            ErrorKind::RankMismatch => "rank mismatch",
            ErrorKind::OutOfBounds => "selection out of bounds",
            ErrorKind::InvalidSelection => "invalid selection",
            ErrorKind::CountMismatch => "element count mismatch",
            ErrorKind::Overflow => "overflow",
            ErrorKind::LimitExceeded => "limit exceeded",
            ErrorKind::InvalidCoords => "index exceeds dimension bound (NC_EINVALCOORDS)",
            ErrorKind::Edge => "start+count exceeds dimension bound (NC_EEDGE)",
            ErrorKind::Stride => "illegal stride (NC_ESTRIDE)",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    message: String,
}

/// An error of dataspaces and selections.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(Box<Inner>);

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error.
    #[cold]
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error(Box::new(Inner {
            kind,
            message: message.into(),
        }))
    }

    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The message without the kind.
    pub fn message(&self) -> &str {
        &self.0.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.0.kind.describe(), self.0.message)
    }
}

impl std::error::Error for Error {}

macro_rules! bail {
    ($kind:ident, $($arg:tt)*) => {
        return Err(Error::new(ErrorKind::$kind, format!($($arg)*)))
    };
}
pub(crate) use bail;

/// How a new hyperslab combines with the current selection `A` (`H5S_seloper_t`); `B` is the
/// new hyperslab.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SelectOp {
    /// Replace: `B`.
    Set,
    /// Union: `A | B`.
    Or,
    /// Intersection: `A & B`.
    And,
    /// Symmetric difference: `A ^ B`.
    Xor,
    /// `A` without `B`.
    NotB,
    /// `B` without `A`.
    NotA,
}

impl SelectOp {
    /// Whether an element in `A` (or not) and in `B` (or not) is in the result.
    pub(crate) fn keep(self, a: bool, b: bool) -> bool {
        match self {
            SelectOp::Set => b,
            SelectOp::Or => a || b,
            SelectOp::And => a && b,
            SelectOp::Xor => a ^ b,
            SelectOp::NotB => a && !b,
            SelectOp::NotA => b && !a,
        }
    }
}

/// How new points combine with the current selection (`H5Sselect_elements`'s operation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PointOp {
    /// Replace the selection.
    Set,
    /// Add after the current points.
    Append,
    /// Add before the current points.
    Prepend,
}

/// A list of points of one rank, visited in the given order (duplicates allowed, as in the
/// reference library).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Points {
    rank: usize,
    coords: Vec<u64>,
}

impl Points {
    /// The rank of each point.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of points.
    pub fn len(&self) -> usize {
        self.coords.len().checked_div(self.rank).unwrap_or(0)
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.coords.is_empty()
    }

    /// Point `i`'s coordinates.
    pub fn get(&self, i: usize) -> Option<&[u64]> {
        self.coords.get(i * self.rank..(i + 1) * self.rank)
    }

    /// The points in order.
    pub fn iter(&self) -> impl Iterator<Item = &[u64]> + '_ {
        self.coords.chunks_exact(self.rank.max(1))
    }
}

/// Which elements of a dataspace take part in a read or write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// No element (`H5S_SEL_NONE`).
    None,
    /// Every element (`H5S_SEL_ALL`); the one element of a scalar dataspace.
    All,
    /// A list of points (`H5S_SEL_POINTS`), visited in the given order.
    Points(Points),
    /// A union of blocks (`H5S_SEL_HYPERSLABS`), visited in row-major order.
    Hyperslab(Hyperslab),
}

fn simple_dims<'a>(space: &'a Dataspace, what: &str) -> Result<&'a [u64]> {
    match space {
        Dataspace::Simple { dims, .. } if !dims.is_empty() => Ok(dims),
        _ => bail!(
            InvalidSelection,
            "a {what} selection needs a simple dataspace of rank >= 1"
        ),
    }
}

impl Selection {
    /// One element at `coords` (a point selection of one point).
    pub fn element(space: &Dataspace, coords: &[u64]) -> Result<Self> {
        Self::points(space, std::slice::from_ref(&coords))
    }

    /// The points `coords`, in this order (`H5Sselect_elements` with `H5S_SELECT_SET`),
    /// checked against `space`.
    pub fn points<P: AsRef<[u64]>>(space: &Dataspace, coords: &[P]) -> Result<Self> {
        let dims = simple_dims(space, "point")?;
        let rank = dims.len();
        let mut flat = Vec::with_capacity(coords.len().saturating_mul(rank));
        for (i, p) in coords.iter().enumerate() {
            let p = p.as_ref();
            if p.len() != rank {
                bail!(
                    RankMismatch,
                    "point {i} has rank {} but the dataspace has rank {rank}",
                    p.len()
                );
            }
            flat.extend_from_slice(p);
        }
        let sel = Selection::Points(Points { rank, coords: flat });
        sel.validate(space)?;
        Ok(sel)
    }

    /// Add points to this selection (`H5Sselect_elements`): [`PointOp::Set`] replaces it,
    /// [`PointOp::Append`] and [`PointOp::Prepend`] extend a point selection (or nothing) at
    /// its end or start. Errors for other selections, as the reference library does.
    pub fn select_elements<P: AsRef<[u64]>>(
        &mut self,
        space: &Dataspace,
        op: PointOp,
        coords: &[P],
    ) -> Result<()> {
        let Selection::Points(new) = Self::points(space, coords)? else {
            bail!(InvalidSelection, "point selection expected");
        };
        let old = match (&*self, op) {
            (_, PointOp::Set) | (Selection::None, _) => None,
            (Selection::Points(p), _) => {
                self.validate(space)?;
                Some(p)
            }
            _ => bail!(
                InvalidSelection,
                "cannot append or prepend points to a selection that is not a point selection"
            ),
        };
        let coords = match (old, op) {
            (Some(p), PointOp::Append) => [&p.coords[..], &new.coords[..]].concat(),
            (Some(p), PointOp::Prepend) => [&new.coords[..], &p.coords[..]].concat(),
            _ => new.coords,
        };
        *self = Selection::Points(Points {
            rank: new.rank,
            coords,
        });
        Ok(())
    }

    /// A regular hyperslab (`H5Sselect_hyperslab` with `H5S_SELECT_SET`). `stride` and
    /// `block` default to ones.
    pub fn hyperslab(
        space: &Dataspace,
        start: &[u64],
        stride: Option<&[u64]>,
        count: &[u64],
        block: Option<&[u64]>,
    ) -> Result<Self> {
        let mut sel = Selection::None;
        sel.select_hyperslab(space, SelectOp::Set, start, stride, count, block)?;
        Ok(sel)
    }

    /// Combine this selection with a regular hyperslab (`H5Sselect_hyperslab`). A count or
    /// block of zero is an empty hyperslab. Errors: rank mismatch, zero stride, overlapping
    /// blocks (`stride < block` with `count > 1`), a block beyond the extent, or combining
    /// with a point selection.
    pub fn select_hyperslab(
        &mut self,
        space: &Dataspace,
        op: SelectOp,
        start: &[u64],
        stride: Option<&[u64]>,
        count: &[u64],
        block: Option<&[u64]>,
    ) -> Result<()> {
        let dims = simple_dims(space, "hyperslab")?;
        let rank = dims.len();
        let ones = vec![1u64; rank];
        let stride = stride.unwrap_or(&ones);
        let block = block.unwrap_or(&ones);
        for (name, v) in [
            ("start", start),
            ("stride", stride),
            ("count", count),
            ("block", block),
        ] {
            if v.len() != rank {
                bail!(
                    RankMismatch,
                    "hyperslab {name} has rank {} but the dataspace has rank {rank}",
                    v.len()
                );
            }
        }
        let mut empty = false;
        let mut axes = Vec::with_capacity(rank);
        for k in 0..rank {
            if stride[k] == 0 {
                bail!(
                    InvalidSelection,
                    "hyperslab stride cannot be zero (dim {k})"
                );
            }
            if count[k] > 1 && stride[k] < block[k] {
                bail!(
                    InvalidSelection,
                    "hyperslab blocks overlap in dim {k}: stride {} < block {}",
                    stride[k],
                    block[k]
                );
            }
            if count[k] == 0 || block[k] == 0 {
                empty = true;
                continue;
            }
            let end = (count[k] - 1)
                .checked_mul(stride[k])
                .and_then(|x| x.checked_add(start[k]))
                .and_then(|x| x.checked_add(block[k]))
                .ok_or_else(|| {
                    Error::new(
                        ErrorKind::Overflow,
                        format!("hyperslab end overflows 64 bits in dim {k}"),
                    )
                })?;
            if end > dims[k] {
                bail!(
                    OutOfBounds,
                    "hyperslab end {end} exceeds dimension {} in dim {k}",
                    dims[k]
                );
            }
            axes.push(Axis::normalized(start[k], stride[k], count[k], block[k]));
        }
        let new = if empty {
            None
        } else {
            Some(Hyperslab::from_axes(axes))
        };
        self.combine_hyperslab(space, op, new)
    }

    /// Combine with another selection of hyperslabs, everything or nothing
    /// (`H5Scombine_select`).
    pub fn combine(&self, space: &Dataspace, op: SelectOp, other: &Selection) -> Result<Self> {
        other.validate(space)?;
        let b = match other {
            Selection::None => None,
            Selection::All => Some(Self::all_hyperslab(space)?),
            Selection::Hyperslab(h) => Some(h.clone()),
            Selection::Points(_) => bail!(
                InvalidSelection,
                "cannot combine a point selection with a hyperslab operation"
            ),
        };
        let mut out = self.clone();
        out.combine_hyperslab(space, op, b)?;
        Ok(out)
    }

    fn all_hyperslab(space: &Dataspace) -> Result<Hyperslab> {
        let dims = simple_dims(space, "hyperslab")?;
        Ok(Hyperslab::from_axes(
            dims.iter().map(|&d| Axis::full(d)).collect(),
        ))
    }

    fn combine_hyperslab(
        &mut self,
        space: &Dataspace,
        op: SelectOp,
        b: Option<Hyperslab>,
    ) -> Result<()> {
        let a: Option<Hyperslab> = match (&*self, op) {
            (_, SelectOp::Set) => None,
            (Selection::None, _) => None,
            (Selection::All, _) => {
                if space.npoints() == 0 {
                    None
                } else {
                    Some(Self::all_hyperslab(space)?)
                }
            }
            (Selection::Hyperslab(h), _) => {
                self.validate(space)?;
                Some(h.clone())
            }
            (Selection::Points(_), _) => bail!(
                InvalidSelection,
                "cannot combine a point selection with a hyperslab operation"
            ),
        };
        let result = match (a, b) {
            (None, None) => None,
            (Some(a), None) => op.keep(true, false).then_some(a),
            (None, Some(b)) => op.keep(false, true).then_some(b),
            (Some(a), Some(b)) => {
                let (ta, tb) = (a.span_tree()?, b.span_tree()?);
                let list = SpanList::combine(&ta, &tb, op);
                Hyperslab::from_spans(list)
            }
        };
        *self = match result {
            Some(h) => Selection::Hyperslab(h),
            None => Selection::None,
        };
        Ok(())
    }

    /// The number of selected elements (`H5Sget_select_npoints`).
    pub fn npoints(&self, space: &Dataspace) -> u64 {
        match self {
            Selection::None => 0,
            Selection::All => space.npoints(),
            Selection::Points(p) => p.len() as u64,
            Selection::Hyperslab(h) => h.npoints(),
        }
    }

    /// The inclusive bounding box (`H5Sget_select_bounds`); `None` when nothing is selected
    /// or the dataspace is scalar or null.
    pub fn bounds(&self, space: &Dataspace) -> Option<(Vec<u64>, Vec<u64>)> {
        if self.npoints(space) == 0 || space.rank() == 0 {
            return None;
        }
        match self {
            Selection::None => None,
            Selection::All => Some((
                vec![0; space.rank()],
                space.dims().iter().map(|d| d - 1).collect(),
            )),
            Selection::Points(p) => {
                let mut lo = vec![u64::MAX; p.rank];
                let mut hi = vec![0; p.rank];
                for pt in p.iter() {
                    for k in 0..p.rank {
                        lo[k] = lo[k].min(pt[k]);
                        hi[k] = hi[k].max(pt[k]);
                    }
                }
                Some((lo, hi))
            }
            Selection::Hyperslab(h) => Some(h.bounds()),
        }
    }

    /// Check that the selection fits `space` (`H5Sselect_valid`, plus the rank and the
    /// dataspace's own invariants): every point and block inside the current extent.
    pub fn validate(&self, space: &Dataspace) -> Result<()> {
        space.check()?;
        let dims = space.dims();
        match self {
            Selection::None | Selection::All => Ok(()),
            Selection::Points(p) => {
                if p.rank != dims.len() || space.rank() == 0 {
                    bail!(
                        RankMismatch,
                        "point selection has rank {} but the dataspace has rank {}",
                        p.rank,
                        dims.len()
                    );
                }
                for (i, pt) in p.iter().enumerate() {
                    for (k, (&c, &d)) in pt.iter().zip(dims).enumerate() {
                        if c >= d {
                            bail!(
                                OutOfBounds,
                                "point {i} coordinate {c} exceeds dimension {d} in dim {k}"
                            );
                        }
                    }
                }
                Ok(())
            }
            Selection::Hyperslab(h) => {
                if h.rank() != dims.len() || space.rank() == 0 {
                    bail!(
                        RankMismatch,
                        "hyperslab selection has rank {} but the dataspace has rank {}",
                        h.rank(),
                        dims.len()
                    );
                }
                let (_, hi) = h.bounds();
                for (k, (&h, &d)) in hi.iter().zip(dims).enumerate() {
                    if h >= d {
                        bail!(
                            OutOfBounds,
                            "hyperslab end {} exceeds dimension {d} in dim {k}",
                            h + 1
                        );
                    }
                }
                Ok(())
            }
        }
    }

    /// The hyperslab, when this is one.
    pub fn as_hyperslab(&self) -> Option<&Hyperslab> {
        match self {
            Selection::Hyperslab(h) => Some(h),
            _ => None,
        }
    }

    /// The points, when this is a point selection.
    pub fn as_points(&self) -> Option<&Points> {
        match self {
            Selection::Points(p) => Some(p),
            _ => None,
        }
    }

    /// Whether this is a hyperslab selection kept in its regular form.
    pub fn is_regular_hyperslab(&self) -> bool {
        matches!(
            self,
            Selection::Hyperslab(Hyperslab {
                repr: Repr::Regular(_)
            })
        )
    }
}
