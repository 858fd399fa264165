//! numpy-style slicing: ndarray's [`s!`](crate::s) turned into a hyperslab of the dataset and
//! the shape of the result.
//!
//! Per dimension of length `n`, as numpy (and h5py) read `d[...]`:
//! - an integer `i` selects one index and drops the dimension; `i < 0` counts from the end;
//!   outside `-n..n` is an error;
//! - a range `a..b;k` selects `a, a+k, ...` below `b`; negative `a` and `b` count from the
//!   end, both are clamped to `0..=n` (an empty range selects nothing), `k` is 1 when absent;
//! - a negative step takes the same range from its end backwards (ndarray's meaning of
//!   `s![a..b;-k]`: `b-1, b-1-k, ...` down to `a`);
//! - `NewAxis` adds a dimension of length 1;
//! - dimensions left unnamed at the end are taken whole (`d[5]` of a 3-D dataset is a 2-D
//!   slab).

use ndarray::SliceInfoElem;

use crate::error::{bail, Result};

/// A numpy-style slice, one element per dimension (or new axis): what [`s!`](crate::s!)
/// builds. ndarray's own `ndarray::s!` works too wherever a slice is taken.
///
/// `h5::s!` has ndarray's syntax (`s![5, .., 100..200;2]`, `s![-1, 3..;-1]`,
/// `s![.., NewAxis]`), but builds a plain array of [`SliceInfoElem`] with no `unsafe` code, so
/// it compiles in crates that `forbid(unsafe_code)` (ndarray's macro expands to an `unsafe`
/// block there).
#[macro_export]
macro_rules! s {
    (@parse [$($acc:expr,)*]) => { [$($acc,)*] };
    (@parse [$($acc:expr,)*] $r:expr ; $step:expr , $($rest:tt)*) => {
        $crate::s!(@parse [$($acc,)* $crate::__private_slice::elem($r, $step),] $($rest)*)
    };
    (@parse [$($acc:expr,)*] $r:expr ; $step:expr) => {
        $crate::s!(@parse [$($acc,)* $crate::__private_slice::elem($r, $step),])
    };
    (@parse [$($acc:expr,)*] $r:expr , $($rest:tt)*) => {
        $crate::s!(@parse [$($acc,)* $crate::__private_slice::elem($r, 1),] $($rest)*)
    };
    (@parse [$($acc:expr,)*] $r:expr) => {
        $crate::s!(@parse [$($acc,)* $crate::__private_slice::elem($r, 1),])
    };
    ($($t:tt)*) => { $crate::s!(@parse [] $($t)*) };
}

/// What [`s!`](crate::s!) accepts for one dimension: an index, a range, `..`, or
/// `NewAxis`.
pub trait SliceArg {
    /// The slice element, with the step given after `;` (ignored for indices and new
    /// axes).
    fn elem(self, step: isize) -> SliceInfoElem;
}

#[doc(hidden)]
pub fn elem(arg: impl SliceArg, step: isize) -> SliceInfoElem {
    arg.elem(step)
}

fn to_isize<T: TryInto<isize>>(v: T) -> isize {
    // Values beyond isize's range clamp: they are out of bounds of any dataset either way.
    v.try_into().unwrap_or(isize::MAX)
}

macro_rules! slice_arg_ints {
    ($($t:ty),*) => {$(
        impl SliceArg for $t {
            fn elem(self, _step: isize) -> SliceInfoElem {
                SliceInfoElem::Index(to_isize(self))
            }
        }
        impl SliceArg for std::ops::Range<$t> {
            fn elem(self, step: isize) -> SliceInfoElem {
                SliceInfoElem::Slice { start: to_isize(self.start), end: Some(to_isize(self.end)), step }
            }
        }
        impl SliceArg for std::ops::RangeInclusive<$t> {
            fn elem(self, step: isize) -> SliceInfoElem {
                let end = to_isize(*self.end());
                SliceInfoElem::Slice {
                    start: to_isize(*self.start()),
                    end: if end == -1 { None } else { Some(end.saturating_add(1)) },
                    step,
                }
            }
        }
        impl SliceArg for std::ops::RangeFrom<$t> {
            fn elem(self, step: isize) -> SliceInfoElem {
                SliceInfoElem::Slice { start: to_isize(self.start), end: None, step }
            }
        }
        impl SliceArg for std::ops::RangeTo<$t> {
            fn elem(self, step: isize) -> SliceInfoElem {
                SliceInfoElem::Slice { start: 0, end: Some(to_isize(self.end)), step }
            }
        }
        impl SliceArg for std::ops::RangeToInclusive<$t> {
            fn elem(self, step: isize) -> SliceInfoElem {
                let end = to_isize(self.end);
                SliceInfoElem::Slice {
                    start: 0,
                    end: if end == -1 { None } else { Some(end.saturating_add(1)) },
                    step,
                }
            }
        }
    )*};
}
slice_arg_ints!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl SliceArg for std::ops::RangeFull {
    fn elem(self, step: isize) -> SliceInfoElem {
        SliceInfoElem::Slice {
            start: 0,
            end: None,
            step,
        }
    }
}

impl SliceArg for ndarray::NewAxis {
    fn elem(self, _step: isize) -> SliceInfoElem {
        SliceInfoElem::NewAxis
    }
}

impl SliceArg for SliceInfoElem {
    fn elem(self, _step: isize) -> SliceInfoElem {
        self
    }
}

/// A slice resolved against a dataset's dimensions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// The hyperslab, per dataset dimension.
    pub start: Vec<u64>,
    pub stride: Vec<u64>,
    pub count: Vec<u64>,
    /// The shape of the result (integer indices dropped, new axes added).
    pub shape: Vec<usize>,
    /// Axes of the result to reverse (negative steps).
    pub reversed: Vec<usize>,
}

impl Resolved {
    /// Number of selected elements.
    pub fn len(&self) -> u64 {
        self.count.iter().product()
    }
}

fn wrap(i: isize, n: u64) -> i128 {
    if i < 0 {
        n as i128 + i as i128
    } else {
        i as i128
    }
}

/// Resolve `elems` against `dims`.
pub(crate) fn resolve(elems: &[SliceInfoElem], dims: &[u64]) -> Result<Resolved> {
    let used = elems
        .iter()
        .filter(|e| !matches!(e, SliceInfoElem::NewAxis))
        .count();
    if used > dims.len() {
        bail!(
            InvalidInput,
            "a slice of {used} indices for a dataset of rank {}",
            dims.len()
        );
    }
    let mut r = Resolved {
        start: Vec::with_capacity(dims.len()),
        stride: Vec::with_capacity(dims.len()),
        count: Vec::with_capacity(dims.len()),
        shape: Vec::new(),
        reversed: Vec::new(),
    };
    let full = SliceInfoElem::Slice {
        start: 0,
        end: None,
        step: 1,
    };
    let mut dim = 0usize;
    let tail = std::iter::repeat_n(&full, dims.len() - used);
    for e in elems.iter().chain(tail) {
        match *e {
            SliceInfoElem::NewAxis => r.shape.push(1),
            SliceInfoElem::Index(i) => {
                let n = dims[dim];
                let k = wrap(i, n);
                if k < 0 || k >= n as i128 {
                    bail!(
                        InvalidInput,
                        "index {i} is out of bounds for dimension {dim} of length {n}"
                    );
                }
                r.start.push(k as u64);
                r.stride.push(1);
                r.count.push(1);
                dim += 1;
            }
            SliceInfoElem::Slice { start, end, step } => {
                let n = dims[dim];
                if step == 0 {
                    bail!(InvalidInput, "a step of 0 in dimension {dim}");
                }
                let clamp = |v: i128| v.clamp(0, n as i128) as u64;
                let a = clamp(wrap(start, n));
                let b = clamp(end.map_or(n as i128, |e| wrap(e, n)));
                let k = step.unsigned_abs() as u64;
                let count = if b > a { (b - a).div_ceil(k) } else { 0 };
                let first = if step > 0 || count == 0 {
                    a
                } else {
                    // From the end backwards: b-1, b-1-k, ... The lowest is the hyperslab's
                    // start; the result's axis is reversed afterwards.
                    b - 1 - (count - 1) * k
                };
                if step < 0 && count > 1 {
                    r.reversed.push(r.shape.len());
                }
                r.start.push(first);
                r.stride.push(k);
                r.count.push(count);
                r.shape.push(usize::try_from(count).unwrap_or(usize::MAX));
                dim += 1;
            }
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(info: &[SliceInfoElem], dims: &[u64]) -> Resolved {
        resolve(info, dims).unwrap()
    }

    #[test]
    fn numpy_meaning() {
        // d[5, :, 100:200:2] of a (10, 20, 300) dataset.
        let r = res(&s![5, .., 100..200;2], &[10, 20, 300]);
        assert_eq!(r.start, [5, 0, 100]);
        assert_eq!(r.stride, [1, 1, 2]);
        assert_eq!(r.count, [1, 20, 50]);
        assert_eq!(r.shape, [20, 50]);
        // Negative indices and ends count from the end; ends are clamped.
        let r = res(&s![-1, -5..], &[4, 10]);
        assert_eq!(
            (r.start, r.count, r.shape),
            (vec![3, 5], vec![1, 5], vec![5])
        );
        let r = res(&s![2..100], &[10]);
        assert_eq!((r.start, r.count), (vec![2], vec![8]));
        // Missing trailing dimensions are whole.
        let r = res(&s![3], &[4, 5, 6]);
        assert_eq!((r.count, r.shape), (vec![1, 5, 6], vec![5, 6]));
        // Empty ranges select nothing.
        let (a, b) = (5, 2);
        let r = res(&s![a..b], &[10]);
        assert_eq!((r.count, r.shape), (vec![0], vec![0]));
        // New axes.
        let r = res(&s![ndarray::NewAxis, 1..3], &[10]);
        assert_eq!(r.shape, [1, 2]);
    }

    #[test]
    fn negative_steps_reverse() {
        // ndarray's s![1..8;-3] of 0..10 is [7, 4, 1].
        let r = res(&s![1..8;-3], &[10]);
        assert_eq!((r.start, r.stride, r.count), (vec![1], vec![3], vec![3]));
        assert_eq!(r.reversed, [0]);
        // Read forwards (1, 4, 7), then reversed: [7, 4, 1], ndarray's `a.slice(s![1..8;-3])`.
    }

    #[test]
    fn errors() {
        assert!(resolve(&s![10], &[10]).is_err());
        assert!(resolve(&s![-11], &[10]).is_err());
        assert!(resolve(&s![0, 0], &[10]).is_err());
        assert!(resolve(&s![..;0], &[10]).is_err());
        // The elements ndarray's own macro makes.
        assert_eq!(
            s![5, .., 100..200;2, -3..=-1],
            [
                SliceInfoElem::Index(5),
                SliceInfoElem::Slice {
                    start: 0,
                    end: None,
                    step: 1
                },
                SliceInfoElem::Slice {
                    start: 100,
                    end: Some(200),
                    step: 2
                },
                SliceInfoElem::Slice {
                    start: -3,
                    end: None,
                    step: 1
                },
            ]
        );
    }
}
