//! netCDF's numeric conversion (the guide's section 3.3) as netcdf-c performs it
//! (`nc4_convert_type` in `libsrc4/nc4var.c`), and the stricter reading kept as an option.
//!
//! netcdf-c converts each value with a C cast after comparing the *source* value with the
//! destination's bounds, themselves converted to the source's type:
//!
//! * integer to integer: an exact range check;
//! * integer to `float`/`double`: never an error (rounding to nearest);
//! * `double` to `float`: an error when the value is above `FLT_MAX` or below `-FLT_MAX`,
//!   so ±infinity is an error while NaN is not (`isgreater`/`isless` are false for NaN);
//! * `float`/`double` to an integer: an error when the value is above the maximum or below
//!   the minimum *as the C comparison sees them*: NaN compares false, so a NaN is never a
//!   range error; `(double)INT64_MAX` is 2^63, so 2^63 read as `int64` is not an error;
//!   `(double)UINT64_MAX` is 2^64; from `float`, the bounds of `uint`, `int64` and `uint64`
//!   are first rounded to `float` (2^32, 2^63, 2^64);
//! * the value is compared before truncation: 255.5 read as `ubyte` and -0.5 read as
//!   `ubyte` are range errors although they truncate to 255 and 0.
//!
//! Deliberate difference: where C's cast is undefined (a NaN or an out-of-range float read as
//! an integer, netcdf-c's value being whatever the processor gives), we store Rust's
//! saturating `as` conversion (NaN gives 0); netcdf-c's status is kept.

use std::fmt;

use h5_types::H5Type;

mod sealed {
    pub trait Sealed {}
}

/// How range errors are decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rules {
    /// netcdf-c's comparisons, exactly (the default; see the module documentation).
    #[default]
    NetcdfC,
    /// Every value the destination cannot hold is an error: NaN and ±infinity read as an
    /// integer, 2^63 read as `int64`, a finite value beyond `f32`'s range read as `float`
    /// (±infinity read as `float` is not: it is representable), a float outside an
    /// integer's range (compared before truncation, as netcdf-c does). This was the reading of earlier
    /// versions of this crate.
    Strict,
}

/// A value of a variable, in its own external type, before conversion.
#[derive(Clone, Copy, Debug, PartialEq)]
#[doc(hidden)]
pub enum Src {
    /// A signed integer (`byte`, `short`, `int`, `int64`).
    I(i64),
    /// An unsigned integer (`ubyte`, `ushort`, `uint`, `uint64`).
    U(u64),
    /// A `float`.
    F32(f32),
    /// A `double`.
    F64(f64),
}

impl Src {
    /// The value as a double (for masking and unpacking).
    pub(crate) fn as_f64(self) -> f64 {
        match self {
            Src::I(v) => v as f64,
            Src::U(v) => v as f64,
            Src::F32(v) => f64::from(v),
            Src::F64(v) => v,
        }
    }
}

/// What kind of destination a numeric type is.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Dest {
    /// An integer with these bounds.
    Int {
        /// The minimum.
        min: i128,
        /// The maximum.
        max: i128,
        /// The maximum as netcdf-c's comparison from a `float` source sees it.
        max_from_f32: f64,
    },
    /// `float`.
    F32,
    /// `double`.
    F64,
}

/// A numeric type netCDF reads into: `byte` (`i8`), `ubyte` (`u8`), `short`, `ushort`, `int`,
/// `uint`, `int64`, `uint64`, `float` (`f32`), `double` (`f64`).
pub trait Numeric: sealed::Sealed + H5Type + Copy + fmt::Debug + PartialEq {
    /// netCDF's name of the type.
    const NC_NAME: &'static str;
    #[doc(hidden)]
    const DEST: Dest;
    #[doc(hidden)]
    fn from_i128(v: i128) -> Self;
    #[doc(hidden)]
    fn from_f64(v: f64) -> Self;
    #[doc(hidden)]
    fn from_f32(v: f32) -> Self;
    #[doc(hidden)]
    fn to_src(self) -> Src;
}

macro_rules! int {
    ($($t:ty => $name:literal, $src:ident, $wide:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Numeric for $t {
            const NC_NAME: &'static str = $name;
            const DEST: Dest = Dest::Int {
                min: <$t>::MIN as i128,
                max: <$t>::MAX as i128,
                max_from_f32: if <$t>::MAX as u128 > u16::MAX as u128 && <$t>::MAX as u128 != i32::MAX as u128 {
                    <$t>::MAX as f32 as f64
                } else {
                    <$t>::MAX as f64
                },
            };
            fn from_i128(v: i128) -> Self { v as $t }
            fn from_f64(v: f64) -> Self { v as $t }
            fn from_f32(v: f32) -> Self { v as $t }
            fn to_src(self) -> Src { Src::$src(self as $wide) }
        }
    )*};
}

int!(i8 => "byte", I, i64, u8 => "ubyte", U, u64, i16 => "short", I, i64,
    u16 => "ushort", U, u64, i32 => "int", I, i64, u32 => "uint", U, u64,
    i64 => "int64", I, i64, u64 => "uint64", U, u64);

impl sealed::Sealed for f32 {}
impl Numeric for f32 {
    const NC_NAME: &'static str = "float";
    const DEST: Dest = Dest::F32;
    fn from_i128(v: i128) -> Self {
        v as f32
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn from_f32(v: f32) -> Self {
        v
    }
    fn to_src(self) -> Src {
        Src::F32(self)
    }
}

impl sealed::Sealed for f64 {}
impl Numeric for f64 {
    const NC_NAME: &'static str = "double";
    const DEST: Dest = Dest::F64;
    fn from_i128(v: i128) -> Self {
        v as f64
    }
    fn from_f64(v: f64) -> Self {
        v
    }
    fn from_f32(v: f32) -> Self {
        f64::from(v)
    }
    fn to_src(self) -> Src {
        Src::F64(self)
    }
}

/// Convert one value; `true` with it when it is a range error under `rules`.
pub(crate) fn convert<T: Numeric>(v: Src, rules: Rules) -> (T, bool) {
    match (v, T::DEST) {
        (Src::I(x), Dest::Int { min, max, .. }) => {
            let x = i128::from(x);
            (T::from_i128(x), x < min || x > max)
        }
        (Src::U(x), Dest::Int { min, max, .. }) => {
            let x = i128::from(x);
            (T::from_i128(x), x < min || x > max)
        }
        (Src::I(x), _) => (T::from_i128(i128::from(x)), false),
        (Src::U(x), _) => (T::from_i128(i128::from(x)), false),
        (
            Src::F32(x),
            Dest::Int {
                min,
                max,
                max_from_f32,
            },
        ) => {
            let bad = match rules {
                Rules::NetcdfC => {
                    let x = f64::from(x);
                    x > max_from_f32 || x < min as f64
                }
                Rules::Strict => strict_int(f64::from(x), min, max),
            };
            (T::from_f32(x), bad)
        }
        (Src::F64(x), Dest::Int { min, max, .. }) => {
            let bad = match rules {
                Rules::NetcdfC => x > max as f64 || x < min as f64,
                Rules::Strict => strict_int(x, min, max),
            };
            (T::from_f64(x), bad)
        }
        (Src::F32(x), _) => (T::from_f32(x), false),
        (Src::F64(x), Dest::F32) => {
            let big = f64::from(f32::MAX);
            let bad = match rules {
                Rules::NetcdfC => x > big || x < -big,
                Rules::Strict => x.is_finite() && x.abs() > big,
            };
            (T::from_f64(x), bad)
        }
        (Src::F64(x), Dest::F64) => (T::from_f64(x), false),
    }
}

/// A float outside an integer's range (the value itself, before truncation), or not
/// finite.
fn strict_int(x: f64, min: i128, max: i128) -> bool {
    let hi = max as f64;
    let above = if hi as i128 == max { x > hi } else { x >= hi };
    !x.is_finite() || x < min as f64 || above
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn netcdf_c_comparisons() {
        let r = Rules::NetcdfC;
        assert!(convert::<f32>(Src::F64(f64::INFINITY), r).1);
        assert!(convert::<f32>(Src::F64(f64::NEG_INFINITY), r).1);
        assert!(!convert::<f32>(Src::F64(f64::NAN), r).1);
        assert!(convert::<f32>(Src::F64(1e300), r).1);
        assert!(!convert::<i32>(Src::F64(f64::NAN), r).1);
        assert!(!convert::<i64>(Src::F64(2f64.powi(63)), r).1);
        assert!(convert::<i64>(Src::F64(1e19), r).1);
        assert!(!convert::<u64>(Src::F64(18446744073709551616.0), r).1);
        assert!(convert::<u8>(Src::F64(255.5), r).1);
        assert!(convert::<u8>(Src::F64(-0.5), r).1);
        assert!(!convert::<u32>(Src::F32(4294967296.0), r).1);
        assert!(convert::<u32>(Src::F64(4294967296.0), r).1);
        assert!(convert::<i32>(Src::F32(2147483648.0), r).1);
        assert!(convert::<i8>(Src::U(128), r).1);
        assert!(convert::<u64>(Src::I(-1), r).1);
        assert_eq!(convert::<i8>(Src::I(300), r), (44, true));
        assert_eq!(convert::<i16>(Src::F64(-3.9), r), (-3, false));
        let s = Rules::Strict;
        assert!(convert::<i32>(Src::F64(f64::NAN), s).1);
        assert!(convert::<i64>(Src::F64(2f64.powi(63)), s).1);
        assert!(!convert::<f32>(Src::F64(f64::INFINITY), s).1);
        assert!(convert::<u8>(Src::F64(255.5), s).1);
        assert!(!convert::<u8>(Src::F64(255.0), s).1);
        assert!(convert::<u64>(Src::F64(18446744073709551616.0), s).1);
    }
}
