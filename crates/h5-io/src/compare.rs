//! Deep comparison of two files, groups or datasets, as h5diff does it.
//!
//! Two levels:
//!
//! - [`compare_sources`] (and [`diff_files`] for two open files) is h5diff's whole comparison:
//!   the traversal of two files or groups with object pairing by relative path, excluded
//!   paths, symbolic links followed or compared by value, dangling links, named datatypes,
//!   groups, the attributes of every pair, and the values of every datatype class (numbers
//!   under the tolerances with h5diff's NaN rules, strings, enumerations, compounds, arrays,
//!   variable-length sequences, object references by the datasets they point at, region
//!   references by their selections, bitfields and opaque values). It tells each finding to a
//!   [`Reporter`] as an [`Event`] (element differences with their positions and values,
//!   reasons objects are not comparable, warnings), and returns a [`Summary`]: per-object
//!   outcomes, totals and the exit status (0 same, 1 different, 2 error). `h5 diff` prints
//!   its report from those events.
//! - [`compare_datasets`] and [`compare_files`]: two datasets' values, or the datasets two
//!   files hold at the same paths, with structured results (counts, paths, positions, values).
//!
//! ```no_run
//! # fn main() -> h5_io::Result<()> {
//! use h5_io::compare::{diff_files, CompareOptions, DiffOptions, Event};
//! let (a, b) = (h5_io::File::open("a.h5")?, h5_io::File::open("b.h5")?);
//! let opts = DiffOptions {
//!     values: CompareOptions { delta: Some(1e-6), ..CompareOptions::default() },
//!     ..DiffOptions::default()
//! };
//! let mut differences = 0;
//! let summary = diff_files(&a, &b, (None, None), &opts, &mut |e: Event<'_>| {
//!     if let Event::Difference { .. } = e {
//!         differences += 1;
//!     }
//! });
//! for o in &summary.objects {
//!     println!("{} and {}: {:?}", o.first, o.second, o.outcome);
//! }
//! std::process::exit(summary.exit_status());
//! # }
//! ```

mod attributes;
mod file_source;
mod report;
mod source;
mod values;
mod walk;

pub use file_source::FileSource;
pub use report::{
    position, AttributeResult, ElementDifference, Event, NotComparable, ObjectResult, Outcome,
    PairRow, Reporter, Silent, Summary, Warning,
};
pub use source::{
    AttributeInfo, DatasetInfo, ObjectId, ObjectType, RefTarget, Region, Source, SourceRef,
};
pub use values::Subset;
pub use walk::{compare_sources, DiffOptions};

/// [`compare_sources`] of two open files.
pub fn diff_files(
    first: &File,
    second: &File,
    names: (Option<&str>, Option<&str>),
    o: &DiffOptions,
    report: &mut dyn Reporter,
) -> Summary {
    compare_sources(
        FileSource::shared(first.clone()),
        FileSource::shared(second.clone()),
        names,
        o,
        report,
    )
}

use h5_types::compose::decode_int;
use h5_types::{ByteOrder, Datatype, FloatType, Norm};

use crate::dataset::Dataset;
use crate::file::File;
use crate::object::ObjectKind;
use crate::Result;

/// How values are compared (h5diff's `-d`, `-p`, `--use-system-epsilon`, `--nan`, `-n`).
/// At most one of `delta`, `relative` and `use_system_epsilon` is meant to be set; when
/// several are, `delta` wins over `relative`, which wins over the epsilon.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareOptions {
    /// `-d`: two values differ when `|a - b| > delta`.
    pub delta: Option<f64>,
    /// `-p`: two values differ when `|(b - a) / a| > relative`; when `a` is zero (for floats:
    /// within the epsilon of their precision of zero) and `b` is not, they are not
    /// comparable, which counts as a difference.
    pub relative: Option<f64>,
    /// `--use-system-epsilon`: floats differ when `|a - b|` is not below the machine
    /// epsilon of their precision.
    pub use_system_epsilon: bool,
    /// `--nan` (`-N`): NaNs are compared as values (never equal) instead of by h5diff's
    /// default rule (two NaNs are equal, a NaN and a number differ).
    pub no_nans: bool,
    /// `-n`: stop counting after this many differences in one object.
    pub max_differences: Option<u64>,
    /// How many differences of one object are kept with their positions and values (the
    /// count goes on past it).
    pub keep_details: usize,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            delta: None,
            relative: None,
            use_system_epsilon: false,
            no_nans: false,
            max_differences: None,
            keep_details: 1024,
        }
    }
}

/// A value decoded for comparison.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    /// An integer (or enumeration, bitfield or opaque byte) value.
    Int(i128),
    /// A floating-point value; `single` when its precision is that of a `float` or less
    /// (the value is then rounded to `f32`, as h5diff reads it into a native float).
    Float {
        /// The value.
        value: f64,
        /// Whether it is of single precision or less.
        single: bool,
    },
}

impl Number {
    /// The value of an integer, float or enumeration element of type `dt` (`None` for
    /// other classes or bytes of the wrong length).
    pub fn decode(dt: &Datatype, bytes: &[u8]) -> Option<Number> {
        match dt {
            Datatype::Integer(t) => decode_int(t, bytes).map(Number::Int),
            Datatype::Float(t) => {
                let single = dt.native_type().map(|n| n.size()).unwrap_or(8) <= 4;
                decode_float(t, bytes).map(|v| {
                    if single {
                        Number::Float {
                            value: v as f32 as f64,
                            single: true,
                        }
                    } else {
                        Number::Float {
                            value: v,
                            single: false,
                        }
                    }
                })
            }
            Datatype::Enum(e) => decode_int(e.base(), bytes).map(Number::Int),
            _ => None,
        }
    }
}

/// How a pair of numbers differs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NumberDifference {
    /// They differ (exactly, beyond the epsilon, or beyond `delta`).
    Absolute,
    /// They differ relatively (`relative` set) by this much (NaN when one is a NaN).
    Relative(f64),
    /// `relative` is set and the first value is zero while the second is not.
    NotComparable,
}

/// Whether and how `a` and `b` differ under `o` (`None`: they are equal). Integers compare
/// with integers and floats with floats; a mixed pair is equal (not comparable by value).
pub fn compare_numbers(a: Number, b: Number, o: &CompareOptions) -> Option<NumberDifference> {
    match (a, b) {
        (Number::Int(x), Number::Int(y)) => {
            let diff = (x - y).unsigned_abs();
            if let Some(d) = o.delta {
                (diff as f64 > d).then_some(NumberDifference::Absolute)
            } else if let Some(p) = o.relative {
                if x == 0 {
                    (y != 0).then_some(NumberDifference::NotComparable)
                } else {
                    let per = ((y - x) as f64 / x as f64).abs();
                    (per > p).then_some(NumberDifference::Relative(per))
                }
            } else {
                (x != y).then_some(NumberDifference::Absolute)
            }
        }
        (Number::Float { value: x, single }, Number::Float { value: y, .. }) => {
            let nans = !o.no_nans;
            let (n1, n2) = (nans && x.is_nan(), nans && y.is_nan());
            let diff = (x - y).abs();
            let eps = if single {
                f32::EPSILON as f64
            } else {
                f64::EPSILON
            };
            if let Some(d) = o.delta {
                let differ = if !n1 && !n2 { diff > d } else { n1 != n2 };
                differ.then_some(NumberDifference::Absolute)
            } else if let Some(p) = o.relative {
                if !n1 && !n2 {
                    // h5diff's `PER`: a value within the epsilon of zero is zero.
                    let (z1, z2) = (x.abs() < eps, y.abs() < eps);
                    if z1 {
                        (!z2).then_some(NumberDifference::NotComparable)
                    } else {
                        let per = ((y - x) / x).abs();
                        (per > p).then_some(NumberDifference::Relative(per))
                    }
                } else {
                    (n1 != n2).then_some(NumberDifference::Relative(f64::NAN))
                }
            } else {
                let equal = if n1 || n2 {
                    n1 && n2
                } else if o.use_system_epsilon {
                    diff < eps
                } else {
                    x == y
                };
                (!equal).then_some(NumberDifference::Absolute)
            }
        }
        _ => None,
    }
}

/// Decode a floating-point value of any layout (byte order, VAX order, exponent and
/// mantissa placement, normalization) to `f64`; `None` when `raw` is not of the type's size.
pub fn decode_float(t: &FloatType, raw: &[u8]) -> Option<f64> {
    if raw.len() != t.size() {
        return None;
    }
    let mut le = raw.to_vec();
    match t.order() {
        ByteOrder::BigEndian => le.reverse(),
        ByteOrder::Vax => {
            // VAX: 16-bit words in little-endian order, most significant word first.
            let mut v = Vec::with_capacity(le.len());
            for pair in le.chunks(2).rev() {
                v.extend_from_slice(pair);
            }
            le = v;
        }
        ByteOrder::LittleEndian => {}
    }
    let bits = |pos: usize, n: usize| -> u128 {
        let mut v = 0u128;
        for i in 0..n.min(128) {
            let p = pos + i;
            if le.get(p / 8).is_some_and(|b| b & (1 << (p % 8)) != 0) {
                v |= 1 << i;
            }
        }
        v
    };
    let sign = bits(t.sign_pos(), 1) != 0;
    let exp = bits(t.exp_pos(), t.exp_size()) as i64;
    let mant = bits(t.mant_pos(), t.mant_size());
    let msize = t.mant_size() as i32;
    let max_exp = if t.exp_size() >= 63 {
        i64::MAX
    } else {
        (1i64 << t.exp_size()) - 1
    };
    let frac = mant as f64 / 2f64.powi(msize);
    let bias = t.exp_bias() as i64;
    let v = if exp == max_exp && t.norm() == Norm::Implied && t.order() != ByteOrder::Vax {
        if mant == 0 {
            f64::INFINITY
        } else {
            f64::NAN
        }
    } else if exp == 0 {
        frac * 2f64.powi((1 - bias) as i32)
    } else {
        match t.norm() {
            Norm::Implied => (1.0 + frac) * 2f64.powi((exp - bias) as i32),
            // An explicit leading bit: the mantissa is one integer bit and the fraction.
            Norm::MsbSet | Norm::None => frac * 2f64.powi((exp - bias + 1) as i32),
        }
    };
    Some(if sign { -v } else { v })
}

/// One difference found: where, and the two values.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// The element's coordinates in the first dataset.
    pub position: Vec<u64>,
    /// The first value.
    pub first: Value,
    /// The second value.
    pub second: Value,
    /// How they differ.
    pub kind: DifferenceKind,
}

/// A compared value: a number, or a character of a string.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A number (or a member or array element that is one, or an enumeration's value).
    Number(Number),
    /// A character of a string (0 past its end).
    Char(u8),
    /// A reference (one of the two is null).
    Reference,
}

/// How two compared values differ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DifferenceKind {
    /// Numbers that differ ([`compare_numbers`]).
    Number(NumberDifference),
    /// Characters at the same position of two strings that differ.
    Char,
    /// Enumeration values of different names (or without one).
    Enum,
    /// One reference is null and the other is not.
    NullReference,
}

/// The comparison of two datasets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DatasetComparison {
    /// Why the two could not be compared (different classes, shapes or signs, no storage:
    /// a [`NotComparable`] in words); `None` when they were.
    pub not_comparable: Option<String>,
    /// Whether the two are stored with different datatypes (compared all the same).
    pub different_types: bool,
    /// The number of differences found (at most `max_differences` when set).
    pub differences: u64,
    /// The first differences (up to `keep_details`), in element order.
    pub details: Vec<Difference>,
}

/// Compare the values of two datasets element by element as h5diff compares two named
/// datasets (without their attributes), in bounded memory (a strip of rows at a time):
/// numbers (integers, floats, bitfield and opaque bytes) under `o`, enumerations by name,
/// compounds member by member and arrays element by element (each pair counts), strings
/// character by character, variable-length sequences element by element, references by what
/// they point at.
pub fn compare_datasets(a: &Dataset, b: &Dataset, o: &CompareOptions) -> Result<DatasetComparison> {
    let mut out = DatasetComparison {
        different_types: a.datatype() != b.datatype(),
        ..DatasetComparison::default()
    };
    let dims = a.shape();
    let (details, keep) = (&mut out.details, o.keep_details);
    // Only the differences of these two datasets' own values (not of datasets their
    // references point at) are kept.
    let mut depth = 0usize;
    let mut collect = |e: Event<'_>| match e {
        Event::ValuesBegin { .. } => depth += 1,
        Event::ValuesEnd => depth = depth.saturating_sub(1),
        Event::Difference { index, difference } if depth == 1 && details.len() < keep => {
            let (first, second, kind) = match difference {
                ElementDifference::Number {
                    first,
                    second,
                    kind,
                } => (
                    Value::Number(first),
                    Value::Number(second),
                    DifferenceKind::Number(kind),
                ),
                ElementDifference::Char { first, second, .. } => (
                    Value::Char(first),
                    Value::Char(second),
                    DifferenceKind::Char,
                ),
                ElementDifference::Enum { values, .. } => (
                    Value::Number(values.0),
                    Value::Number(values.1),
                    DifferenceKind::Enum,
                ),
                ElementDifference::NullReference => (
                    Value::Reference,
                    Value::Reference,
                    DifferenceKind::NullReference,
                ),
            };
            details.push(Difference {
                position: position(index, &dims),
                first,
                second,
                kind,
            });
        }
        _ => {}
    };
    let (s1, s2) = (
        FileSource::new(a.file().clone()),
        FileSource::new(b.file().clone()),
    );
    let (n, why) = walk::compare_values(
        (&s1, a.location().addr.0),
        (&s2, b.location().addr.0),
        o,
        &mut collect,
    )?;
    out.differences = n;
    out.not_comparable = why.map(|w| w.to_string());
    Ok(out)
}

/// The characters at which two strings differ, position by position (the shorter one
/// padded with NULs), as h5diff counts string differences.
pub fn char_differences<'a>(a: &'a [u8], b: &'a [u8]) -> impl Iterator<Item = (u8, u8)> + 'a {
    (0..a.len().max(b.len()))
        .map(|u| {
            (
                a.get(u).copied().unwrap_or(0),
                b.get(u).copied().unwrap_or(0),
            )
        })
        .filter(|(x, y)| x != y)
}

/// What [`leaf_pairs`] calls with each pair of leaf values: their two types and bytes.
pub type LeafVisitor<'a> = dyn FnMut(&Datatype, &Datatype, &[u8], &[u8]) + 'a;

/// Visit the pairs of leaf values of two elements of types `dt1` and `dt2` (bytes `x` and
/// `y`): compound members in order, pair by pair, and array elements in order, down to values
/// of other classes, which `visit` gets with their types. Arrays of different lengths pair
/// their first elements; a member whose bytes are not there is skipped.
pub fn leaf_pairs(dt1: &Datatype, dt2: &Datatype, x: &[u8], y: &[u8], visit: &mut LeafVisitor<'_>) {
    match (dt1, dt2) {
        (Datatype::Compound(c1), Datatype::Compound(c2)) => {
            for (m1, m2) in c1.members().iter().zip(c2.members()) {
                let a = x.get(m1.offset()..m1.offset() + m1.datatype().size());
                let b = y.get(m2.offset()..m2.offset() + m2.datatype().size());
                if let (Some(a), Some(b)) = (a, b) {
                    leaf_pairs(m1.datatype(), m2.datatype(), a, b, visit);
                }
            }
        }
        (Datatype::Array(a1), Datatype::Array(a2)) => {
            let (s1, s2) = (a1.base().size().max(1), a2.base().size().max(1));
            let n = (x.len() / s1).min(y.len() / s2);
            for k in 0..n {
                leaf_pairs(
                    a1.base(),
                    a2.base(),
                    &x[k * s1..(k + 1) * s1],
                    &y[k * s2..(k + 1) * s2],
                    visit,
                );
            }
        }
        _ => visit(dt1, dt2, x, y),
    }
}

/// A dataset both files hold at the same path, with its comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct DatasetEntry {
    /// The path of the dataset.
    pub path: String,
    /// Its comparison.
    pub comparison: DatasetComparison,
}

/// The comparison of two files (h5diff without object names).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileComparison {
    /// Paths only the first file has.
    pub only_in_first: Vec<String>,
    /// Paths only the second file has.
    pub only_in_second: Vec<String>,
    /// Paths both have, but as objects of different kinds.
    pub different_kinds: Vec<String>,
    /// The datasets both have, compared.
    pub datasets: Vec<DatasetEntry>,
}

impl FileComparison {
    /// The total number of value differences in the datasets.
    pub fn differences(&self) -> u64 {
        self.datasets.iter().map(|d| d.comparison.differences).sum()
    }

    /// Whether the two files hold the same objects with equal values (h5diff's exit 0).
    pub fn is_same(&self) -> bool {
        self.only_in_first.is_empty()
            && self.only_in_second.is_empty()
            && self.different_kinds.is_empty()
            && self.differences() == 0
    }
}

/// Compare two files object by object: every path reachable through hard links in either
/// file, matched by name; the datasets both hold are compared with [`compare_datasets`].
pub fn compare_files(a: &File, b: &File, o: &CompareOptions) -> Result<FileComparison> {
    let mut l1 = a.walk()?;
    let mut l2 = b.walk()?;
    l1.sort_by(|x, y| x.0.as_bytes().cmp(y.0.as_bytes()));
    l2.sort_by(|x, y| x.0.as_bytes().cmp(y.0.as_bytes()));
    let mut out = FileComparison::default();
    let (mut i, mut j) = (0, 0);
    while i < l1.len() || j < l2.len() {
        match (l1.get(i), l2.get(j)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                if x.2 != y.2 {
                    out.different_kinds.push(x.0.clone());
                } else if x.2 == ObjectKind::Dataset {
                    let (d1, d2) = (a.dataset(&x.0)?, b.dataset(&y.0)?);
                    out.datasets.push(DatasetEntry {
                        path: x.0.clone(),
                        comparison: compare_datasets(&d1, &d2, o)?,
                    });
                }
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x.0.as_bytes() < y.0.as_bytes() => {
                out.only_in_first.push(x.0.clone());
                i += 1;
            }
            (Some(x), None) => {
                out.only_in_first.push(x.0.clone());
                i += 1;
            }
            (_, Some(y)) => {
                out.only_in_second.push(y.0.clone());
                j += 1;
            }
            (None, None) => break,
        }
    }
    Ok(out)
}
