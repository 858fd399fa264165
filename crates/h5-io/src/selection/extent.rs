//! The dataspace (extent) of a dataset or attribute: scalar, null, or simple with current and
//! maximum dimension sizes.

use super::{Error, ErrorKind, Result};
use h5_format::limits::MAX_RANK;
use h5_format::message::dataspace::{Dataspace as FormatSpace, DataspaceKind};

/// The maximum size of a dimension that can grow without bound (`H5S_UNLIMITED`).
pub const UNLIMITED: u64 = u64::MAX;

/// A dataspace: the shape of a dataset's elements (the dataspace message's extent).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dataspace {
    /// One element, rank 0 (`H5S_SCALAR`).
    Scalar,
    /// No elements at all (`H5S_NULL`).
    Null,
    /// A row-major array of `dims` (slowest first) that may grow up to `maxdims`
    /// (`H5S_SIMPLE`). Construct with [`Dataspace::simple`] or [`Dataspace::with_max`] so the
    /// invariants hold.
    Simple {
        /// Current dimension sizes, slowest varying first.
        dims: Vec<u64>,
        /// Maximum dimension sizes; [`UNLIMITED`] for a dimension without bound.
        maxdims: Vec<u64>,
    },
}

impl Dataspace {
    /// The extent a dataspace message (of a dataset or an attribute) describes.
    pub fn from_message(s: &FormatSpace) -> Result<Self> {
        Ok(match s.kind {
            DataspaceKind::Scalar => Dataspace::Scalar,
            DataspaceKind::Null => Dataspace::Null,
            DataspaceKind::Simple if s.dims.is_empty() => Dataspace::Scalar,
            DataspaceKind::Simple => match &s.max_dims {
                Some(m) => {
                    Dataspace::with_max(&s.dims, m).or_else(|_| Dataspace::simple(&s.dims))?
                }
                None => Dataspace::simple(&s.dims)?,
            },
        })
    }

    /// A simple dataspace of fixed size (maxdims = dims).
    pub fn simple(dims: &[u64]) -> Result<Self> {
        Self::with_max(dims, dims)
    }

    /// A simple dataspace with current sizes `dims` and maximum sizes `maxdims`
    /// ([`UNLIMITED`] allowed). Checks rank <= 32, equal ranks, `dims <= maxdims` and that the
    /// element count fits in 64 bits.
    pub fn with_max(dims: &[u64], maxdims: &[u64]) -> Result<Self> {
        if dims.len() > MAX_RANK {
            return Err(Error::new(
                ErrorKind::InvalidExtent,
                format!("rank {} exceeds the maximum rank {MAX_RANK}", dims.len()),
            ));
        }
        if dims.len() != maxdims.len() {
            return Err(Error::new(
                ErrorKind::RankMismatch,
                format!(
                    "dims has rank {} but maxdims has rank {}",
                    dims.len(),
                    maxdims.len()
                ),
            ));
        }
        for (k, (&d, &m)) in dims.iter().zip(maxdims).enumerate() {
            if d == UNLIMITED {
                return Err(Error::new(
                    ErrorKind::InvalidExtent,
                    format!("current size of dim {k} cannot be unlimited"),
                ));
            }
            if m != UNLIMITED && d > m {
                return Err(Error::new(
                    ErrorKind::InvalidExtent,
                    format!("dimension size {d} exceeds maximum size {m} in dim {k}"),
                ));
            }
        }
        element_count(dims)?;
        Ok(Dataspace::Simple {
            dims: dims.to_vec(),
            maxdims: maxdims.to_vec(),
        })
    }

    /// The rank (0 for scalar and null dataspaces).
    pub fn rank(&self) -> usize {
        match self {
            Dataspace::Scalar | Dataspace::Null => 0,
            Dataspace::Simple { dims, .. } => dims.len(),
        }
    }

    /// The current dimension sizes (empty for scalar and null).
    pub fn dims(&self) -> &[u64] {
        match self {
            Dataspace::Scalar | Dataspace::Null => &[],
            Dataspace::Simple { dims, .. } => dims,
        }
    }

    /// The maximum dimension sizes (empty for scalar and null).
    pub fn maxdims(&self) -> &[u64] {
        match self {
            Dataspace::Scalar | Dataspace::Null => &[],
            Dataspace::Simple { maxdims, .. } => maxdims,
        }
    }

    /// Whether dimension `k` can grow without bound.
    pub fn is_unlimited(&self, k: usize) -> bool {
        self.maxdims().get(k) == Some(&UNLIMITED)
    }

    /// The number of elements (1 for scalar, 0 for null). Checked when built with
    /// [`Dataspace::simple`]; saturates for a hand-built value that overflows.
    pub fn npoints(&self) -> u64 {
        match self {
            Dataspace::Scalar => 1,
            Dataspace::Null => 0,
            Dataspace::Simple { dims, .. } => dims.iter().fold(1u64, |a, &d| a.saturating_mul(d)),
        }
    }

    /// Check the invariants of [`Dataspace::with_max`] (for values built by hand).
    pub fn check(&self) -> Result<()> {
        match self {
            Dataspace::Simple { dims, maxdims } => Self::with_max(dims, maxdims).map(|_| ()),
            _ => Ok(()),
        }
    }

    /// The same dataspace with new current sizes, checked against the maximum sizes
    /// (`H5Sset_extent_simple` keeping maxdims, as `H5Dset_extent` does).
    pub fn resized(&self, dims: &[u64]) -> Result<Self> {
        match self {
            Dataspace::Simple { maxdims, .. } => Self::with_max(dims, maxdims),
            _ => Err(Error::new(
                ErrorKind::InvalidExtent,
                "only a simple dataspace can be resized",
            )),
        }
    }
}

/// The product of `dims`, or an overflow error.
pub(crate) fn element_count(dims: &[u64]) -> Result<u64> {
    dims.iter().try_fold(1u64, |acc, &d| {
        acc.checked_mul(d).ok_or_else(|| {
            Error::new(
                ErrorKind::Overflow,
                format!("element count of dimensions {dims:?} overflows 64 bits"),
            )
        })
    })
}

/// Row-major strides (in elements) of `shape`: the last is 1. Saturates on overflow, which
/// only happens for shapes whose element count was not checked.
pub(crate) fn row_major_strides(shape: &[u64]) -> Vec<u64> {
    let mut out = vec![1u64; shape.len()];
    let mut acc = 1u64;
    for k in (0..shape.len()).rev() {
        out[k] = acc;
        acc = acc.saturating_mul(shape[k]);
    }
    out
}
