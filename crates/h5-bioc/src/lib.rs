//! Bioconductor's HDF5 policy ("HDF5 policy for BioC file formats"): datatype constraints,
//! and missing values marked by a placeholder attribute.
//!
//! **Datatype constraints.** A format states the widest in-memory type a dataset's values
//! must fit ([`check`]):
//! * integers: any integer datatype every value of which an `i32` (or the type asked for)
//!   holds exactly, e.g. `H5T_NATIVE_INT8` or `H5T_NATIVE_UINT16` for `i32`;
//! * floats: any float or integer datatype an `f64` holds exactly (`H5T_NATIVE_FLOAT`,
//!   `H5T_NATIVE_UINT32`...), IEEE 754;
//! * strings: fixed or variable length alike, ASCII or UTF-8 whatever the declared character
//!   set, read as UTF-8. A fixed-length string ends at its first NUL or, without one, at its
//!   full length, whatever its padding; space padding is part of the string.
//!
//! **Missing values.** A scalar attribute (`missing-value-placeholder` unless the format names
//! another, see [`Reader::placeholder_name`]) holds a placeholder; every value equal to it is
//! missing ([`read`], [`Reader`]):
//! * numbers: the attribute has the dataset's exact datatype; equality is tested at the
//!   dataset's full precision, whatever type the values are read into; when the placeholder is
//!   a NaN every NaN is missing, whatever its payload;
//! * strings: the attribute is a string (any string type); values with the same bytes (as
//!   `strcmp` sees them) are missing.
//!
//! Without the attribute nothing is missing. Errors name the rule a file breaks
//! (`Error::rule`).
//!
//! **Writing.** [`choose_placeholder`] picks a placeholder absent from the data (the type's
//! minimum for integers, as R's `NA_integer_`; NaN for floats without NaNs; `"NA"` for
//! strings), and [`with_placeholder`] substitutes it for the missing values.
//!
//! ```no_run
//! # fn main() -> Result<(), h5_bioc::Error> {
//! let f = h5::File::open("counts.h5")?;
//! let ds = f.dataset("/counts")?;
//! h5_bioc::check::<i32>(&ds)?; // an integer type an i32 holds
//! let counts = h5_bioc::read::<i32>(&ds)?;
//! for (v, missing) in counts.values().iter().zip(counts.missing()) {
//!     if !missing {
//!         println!("{v}");
//!     }
//! }
//! # Ok(())
//! # }
//! ```

use std::fmt;

use h5_io::vlen::{decode_as, string_bytes};
use h5_io::{Attribute, Dataset};
use h5_types::{Datatype, FloatType, Norm, Sign};

/// The placeholder attribute's usual name.
pub const DEFAULT_PLACEHOLDER: &str = "missing-value-placeholder";

/// A rule of the policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// "Integers": the dataset is an integer datatype the integer type asked for holds.
    Integer,
    /// "Floats": the dataset is a float or integer datatype the float type asked for holds.
    Float,
    /// "Strings": the dataset is a string datatype (fixed or variable length).
    String,
    /// "Strings": the contents are UTF-8 (ASCII being a subset).
    Utf8,
    /// "Missing value placeholders": the placeholder attribute is a scalar.
    PlaceholderScalar,
    /// "Missing value placeholders": the placeholder has the dataset's exact datatype
    /// (numbers) or is a string (strings).
    PlaceholderType,
}

impl Rule {
    /// The rule's short name.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Integer => "integers",
            Rule::Float => "floats",
            Rule::String => "strings",
            Rule::Utf8 => "strings are UTF-8",
            Rule::PlaceholderScalar => "placeholder is a scalar",
            Rule::PlaceholderType => "placeholder datatype",
        }
    }

    /// What the rule asks for.
    pub fn requirement(self) -> &'static str {
        match self {
            Rule::Integer => "an integer datatype whose every value the integer type holds",
            Rule::Float => {
                "a float or integer datatype whose every value the float type holds exactly"
            }
            Rule::String => "a string datatype, fixed or variable length",
            Rule::Utf8 => "string contents encoded in UTF-8",
            Rule::PlaceholderScalar => "the placeholder attribute is a scalar",
            Rule::PlaceholderType => {
                "the placeholder has the dataset's exact datatype (a string datatype for strings)"
            }
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug)]
enum Kind {
    Rule { rule: Rule, message: String },
    Io(h5_io::Error),
    H5(h5::Error),
}

/// An error: a file breaking a rule of the policy (with the dataset's path), or an error
/// reading the file.
pub struct Error {
    path: Option<String>,
    kind: Kind,
}

/// Result with the BioC [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    #[cold]
    fn rule(rule: Rule, message: impl Into<String>) -> Self {
        Error {
            path: None,
            kind: Kind::Rule {
                rule,
                message: message.into(),
            },
        }
    }

    #[cold]
    fn at(mut self, path: &str) -> Self {
        if self.path.is_none() {
            self.path = Some(path.to_string());
        }
        self
    }

    /// The rule broken, when the error is a file breaking one.
    pub fn broken_rule(&self) -> Option<Rule> {
        match &self.kind {
            Kind::Rule { rule, .. } => Some(*rule),
            Kind::Io(_) | Kind::H5(_) => None,
        }
    }

    /// The read error, when the error is one.
    pub fn io(&self) -> Option<&h5_io::Error> {
        match &self.kind {
            Kind::Io(e) => Some(e),
            Kind::Rule { .. } | Kind::H5(_) => None,
        }
    }

    /// The dataset's path, when known.
    pub fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }
}

impl From<h5_io::Error> for Error {
    fn from(e: h5_io::Error) -> Self {
        Error {
            path: None,
            kind: Kind::Io(e),
        }
    }
}

impl From<h5::Error> for Error {
    fn from(e: h5::Error) -> Self {
        Error {
            path: None,
            kind: Kind::H5(e),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({self})")
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Rule { rule, message } => {
                if let Some(p) = &self.path {
                    write!(f, "{p}: ")?;
                }
                write!(
                    f,
                    "breaks the BioC rule \"{}\" ({}): {message}",
                    rule.name(),
                    rule.requirement()
                )
            }
            Kind::Io(e) => write!(f, "{e}"),
            Kind::H5(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            Kind::Io(e) => Some(e),
            Kind::H5(e) => Some(e),
            Kind::Rule { .. } => None,
        }
    }
}

mod sealed {
    use super::{Dataset, Datatype, Result};

    /// What a Rust type can hold, for the representability rules.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Repr {
        /// An integer of `bits` bits, signed or not.
        Int { signed: bool, bits: usize },
        /// An IEEE float with this many exponent and mantissa bits.
        Float { exp: usize, mant: usize },
        /// UTF-8 text.
        Text,
    }

    pub trait Sealed: Sized {
        /// The type's name in messages.
        const NAME: &'static str;
        fn repr() -> Repr;
        fn decode(ds: &Dataset, dt: &Datatype, raw: &[u8]) -> Result<Vec<Self>>;
    }
}

use sealed::{Repr, Sealed};

/// A Rust type BioC datasets are read into: `i8`..`i64`, `u8`..`u64`, `f32`, `f64` and
/// `String`.
pub trait Value: Sealed + Clone + PartialEq + fmt::Debug {}

macro_rules! numeric_value {
    ($($t:ty => $repr:expr),* $(,)?) => {$(
        impl Value for $t {}
        impl Sealed for $t {
            const NAME: &'static str = stringify!($t);
            fn repr() -> Repr {
                $repr
            }
            fn decode(ds: &Dataset, dt: &Datatype, raw: &[u8]) -> Result<Vec<Self>> {
                Ok(decode_as::<$t>(ds.file(), dt, raw)?)
            }
        }
    )*};
}

numeric_value! {
    i8 => Repr::Int { signed: true, bits: 8 },
    i16 => Repr::Int { signed: true, bits: 16 },
    i32 => Repr::Int { signed: true, bits: 32 },
    i64 => Repr::Int { signed: true, bits: 64 },
    u8 => Repr::Int { signed: false, bits: 8 },
    u16 => Repr::Int { signed: false, bits: 16 },
    u32 => Repr::Int { signed: false, bits: 32 },
    u64 => Repr::Int { signed: false, bits: 64 },
    f32 => Repr::Float { exp: 8, mant: 23 },
    f64 => Repr::Float { exp: 11, mant: 52 },
}

impl Value for String {}
impl Sealed for String {
    const NAME: &'static str = "String";
    fn repr() -> Repr {
        Repr::Text
    }
    fn decode(ds: &Dataset, dt: &Datatype, raw: &[u8]) -> Result<Vec<Self>> {
        string_bytes(ds.file(), dt, raw)?
            .into_iter()
            .enumerate()
            .map(|(i, b)| {
                String::from_utf8(b).map_err(|e| {
                    Error::rule(
                        Rule::Utf8,
                        format!(
                            "element {i} is not UTF-8 (invalid byte at {})",
                            e.utf8_error().valid_up_to()
                        ),
                    )
                })
            })
            .collect()
    }
}

/// Whether a float layout is IEEE-like with `exp` and `mant` bits at most (so that a float of
/// `exp`/`mant` bits holds every value of it).
fn float_fits(f: &FloatType, exp: usize, mant: usize) -> bool {
    let ieee_bias =
        f.exp_size() >= 1 && f.exp_size() < 64 && f.exp_bias() == (1u64 << (f.exp_size() - 1)) - 1;
    f.norm() == Norm::Implied && ieee_bias && f.exp_size() <= exp && f.mant_size() <= mant
}

/// Check the representability rule for a Rust type described by `repr` named `name`.
fn representable(dt: &Datatype, repr: Repr, name: &str) -> Result<()> {
    match (repr, dt) {
        (Repr::Int { signed, bits }, Datatype::Integer(i)) => {
            let p = i.precision();
            let ok = match (i.sign(), signed) {
                (Sign::TwosComplement, true) => p <= bits,
                (Sign::TwosComplement, false) => false,
                (Sign::None, true) => p < bits,
                (Sign::None, false) => p <= bits,
            };
            if ok {
                Ok(())
            } else {
                let what = if i.is_signed() { "signed" } else { "unsigned" };
                Err(Error::rule(
                    Rule::Integer,
                    format!("the datatype {dt} ({what}, {p} bits of precision) has values {name} cannot hold"),
                ))
            }
        }
        (Repr::Int { .. }, other) => Err(Error::rule(
            Rule::Integer,
            format!("the datatype {other} is not an integer datatype, {name} is an integer type"),
        )),
        (Repr::Float { exp, mant }, Datatype::Float(f)) => {
            if float_fits(f, exp, mant) {
                Ok(())
            } else {
                Err(Error::rule(
                    Rule::Float,
                    format!(
                        "the datatype {dt} ({} exponent and {} mantissa bits) has values {name} cannot hold exactly",
                        f.exp_size(),
                        f.mant_size()
                    ),
                ))
            }
        }
        (Repr::Float { mant, .. }, Datatype::Integer(i)) => {
            // A float with `mant` stored mantissa bits holds every integer of magnitude up to
            // 2^(mant + 1).
            let p = i.precision();
            let ok = if i.is_signed() {
                p <= mant + 2
            } else {
                p <= mant + 1
            };
            if ok {
                Ok(())
            } else {
                Err(Error::rule(
                    Rule::Float,
                    format!("the integer datatype {dt} ({p} bits of precision) has values {name} cannot hold exactly"),
                ))
            }
        }
        (Repr::Float { .. }, other) => Err(Error::rule(
            Rule::Float,
            format!("the datatype {other} is neither a float nor an integer datatype"),
        )),
        (Repr::Text, Datatype::String(_)) => Ok(()),
        (Repr::Text, other) => Err(Error::rule(
            Rule::String,
            format!("the datatype {other} is not a string datatype"),
        )),
    }
}

/// Check that every value of datatype `dt` converts to `T` without loss (the integer, float
/// and string rules).
pub fn check_datatype<T: Value>(dt: &Datatype) -> Result<()> {
    representable(dt, T::repr(), T::NAME)
}

/// A dataset the policy reads: the facade's [`h5::Dataset`] or the low-level reader's.
pub trait AsDataset {
    /// The low-level reader's dataset.
    fn low(&self) -> Result<std::borrow::Cow<'_, Dataset>>;
}

impl AsDataset for Dataset {
    fn low(&self) -> Result<std::borrow::Cow<'_, Dataset>> {
        Ok(std::borrow::Cow::Borrowed(self))
    }
}

impl AsDataset for h5::Dataset {
    fn low(&self) -> Result<std::borrow::Cow<'_, Dataset>> {
        Ok(std::borrow::Cow::Owned(self.inner()?))
    }
}

/// Check that every value of the dataset converts to `T` without loss.
pub fn check<T: Value>(ds: &impl AsDataset) -> Result<()> {
    let ds = &*ds.low()?;
    check_datatype::<T>(ds.datatype()).map_err(|e| e.at(ds.path()))
}

/// The values of a dataset or placeholder at full precision, for equality with the
/// placeholder.
#[derive(Debug)]
enum Full {
    Int(Vec<i128>),
    Float(Vec<f64>),
    Bytes(Vec<Vec<u8>>),
}

fn full(file: &h5_io::File, dt: &Datatype, raw: &[u8]) -> Result<Full> {
    Ok(match dt {
        Datatype::Integer(i) if i.precision() < 128 || i.is_signed() && i.precision() == 128 => {
            Full::Int(decode_as::<i128>(file, dt, raw)?)
        }
        Datatype::Float(f) if float_fits(f, 11, 52) => {
            Full::Float(decode_as::<f64>(file, dt, raw)?)
        }
        Datatype::String(_) => Full::Bytes(string_bytes(file, dt, raw)?),
        other => {
            return Err(Error::from(h5_io::Error::new(
                h5_io::ErrorKind::Unsupported,
                format!("comparing values of {other} with a placeholder at full precision"),
            )))
        }
    })
}

/// A dataset's values with the missing ones marked.
#[derive(Clone, Debug, PartialEq)]
pub struct Masked<T> {
    shape: Vec<u64>,
    values: Vec<T>,
    missing: Vec<bool>,
    placeholder: Option<T>,
}

impl<T> Masked<T> {
    /// The dataset's dimensions (empty for a scalar).
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// Every value, in row-major order (missing ones hold the placeholder as read).
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// Whether each value is missing.
    pub fn missing(&self) -> &[bool] {
        &self.missing
    }

    /// Whether value `i` is missing (`false` past the end).
    pub fn is_missing(&self, i: usize) -> bool {
        self.missing.get(i).copied().unwrap_or(false)
    }

    /// How many values are missing.
    pub fn missing_count(&self) -> usize {
        self.missing.iter().filter(|&&m| m).count()
    }

    /// The placeholder, converted to `T`, when the dataset has one.
    pub fn placeholder(&self) -> Option<&T> {
        self.placeholder.as_ref()
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The values, `None` where missing.
    pub fn into_options(self) -> Vec<Option<T>> {
        self.values
            .into_iter()
            .zip(self.missing)
            .map(|(v, m)| if m { None } else { Some(v) })
            .collect()
    }

    /// The values and the mask.
    pub fn into_parts(self) -> (Vec<T>, Vec<bool>) {
        (self.values, self.missing)
    }
}

/// How to read datasets under the policy.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Reader {
    placeholder: String,
    narrowing: bool,
    exact_placeholder_type: bool,
}

impl Default for Reader {
    fn default() -> Self {
        Reader {
            placeholder: DEFAULT_PLACEHOLDER.to_string(),
            narrowing: false,
            exact_placeholder_type: true,
        }
    }
}

impl Reader {
    /// The default: placeholder attribute `missing-value-placeholder`, the target type must
    /// hold every value, the placeholder must have the dataset's exact datatype.
    pub fn new() -> Self {
        Self::default()
    }

    /// The name of the placeholder attribute (formats name it, e.g. `missing_placeholder`).
    pub fn placeholder_name(mut self, name: impl Into<String>) -> Self {
        self.placeholder = name.into();
        self
    }

    /// Allow reading into a type that does not hold every value (the policy lets readers
    /// choose a smaller type). Values convert as the reference library converts them; missing
    /// values are still found at the dataset's full precision.
    pub fn allow_narrowing(mut self, allow: bool) -> Self {
        self.narrowing = allow;
        self
    }

    /// Whether a numeric placeholder must have the dataset's exact datatype (the default) or
    /// only the same class (then it is compared with the values at full precision).
    pub fn exact_placeholder_type(mut self, exact: bool) -> Self {
        self.exact_placeholder_type = exact;
        self
    }

    /// The placeholder attribute of a dataset, validated (scalar, datatype), or `None`.
    pub fn placeholder_attribute(&self, ds: &impl AsDataset) -> Result<Option<Attribute>> {
        let ds = &*ds.low()?;
        self.placeholder_attribute_impl(ds)
            .map_err(|e| e.at(ds.path()))
    }

    fn placeholder_attribute_impl(&self, ds: &Dataset) -> Result<Option<Attribute>> {
        let a = match ds.attr(&self.placeholder) {
            Ok(a) => a,
            Err(e) if e.kind() == h5_io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        if !matches!(a.dataspace(), h5_io::selection::Dataspace::Scalar) {
            return Err(Error::rule(
                Rule::PlaceholderScalar,
                format!("attribute {:?} has shape {:?}", self.placeholder, a.shape()),
            ));
        }
        let (d, p) = (ds.datatype(), a.datatype());
        let ok = match d {
            Datatype::String(_) => matches!(p, Datatype::String(_)),
            Datatype::Integer(_) | Datatype::Float(_) if self.exact_placeholder_type => p == d,
            Datatype::Integer(_) | Datatype::Float(_) => p.class() == d.class(),
            _ => true,
        };
        if !ok {
            return Err(Error::rule(
                Rule::PlaceholderType,
                format!(
                    "attribute {:?} is {p}, the dataset is {d}",
                    self.placeholder
                ),
            ));
        }
        Ok(Some(a))
    }

    /// Check the datatype rules for `T` (unless narrowing is allowed, then only the class),
    /// read every value, and mark the missing ones.
    pub fn read<T: Value>(&self, ds: &impl AsDataset) -> Result<Masked<T>> {
        let ds = &*ds.low()?;
        self.read_impl(ds).map_err(|e| e.at(ds.path()))
    }

    fn read_impl<T: Value>(&self, ds: &Dataset) -> Result<Masked<T>> {
        let dt = ds.datatype();
        if let Err(e) = check_datatype::<T>(dt) {
            // Narrowing keeps the class rules: integers for integer types, numbers for
            // floats, strings for strings.
            let class_ok = matches!(
                (T::repr(), dt),
                (Repr::Int { .. }, Datatype::Integer(_))
                    | (
                        Repr::Float { .. },
                        Datatype::Integer(_) | Datatype::Float(_)
                    )
            );
            if !(self.narrowing && class_ok) {
                return Err(e);
            }
        }
        let attr = self.placeholder_attribute_impl(ds)?;
        let (raw, _) = ds.read_raw()?;
        let values = T::decode(ds, dt, &raw)?;
        let (missing, placeholder) = match attr {
            None => (vec![false; values.len()], None),
            Some(a) => {
                let (praw, pdt) = a.read_raw();
                let file = ds.file();
                let p = full(file, &pdt, &praw)?;
                let v = full(file, dt, &raw)?;
                let missing = match (&v, &p) {
                    (Full::Int(v), Full::Int(p)) => match p.first() {
                        Some(p) => v.iter().map(|x| x == p).collect(),
                        None => vec![false; v.len()],
                    },
                    (Full::Float(v), Full::Float(p)) => match p.first() {
                        Some(p) if p.is_nan() => v.iter().map(|x| x.is_nan()).collect(),
                        Some(p) => v.iter().map(|x| x == p).collect(),
                        None => vec![false; v.len()],
                    },
                    (Full::Bytes(v), Full::Bytes(p)) => match p.first() {
                        Some(p) => v.iter().map(|x| x == p).collect(),
                        None => vec![false; v.len()],
                    },
                    // The placeholder's class differs from the dataset's (checked above, so
                    // not reached).
                    _ => {
                        return Err(Error::rule(
                            Rule::PlaceholderType,
                            format!(
                                "attribute {:?} is {pdt}, the dataset is {dt}",
                                self.placeholder
                            ),
                        ))
                    }
                };
                // The placeholder as the reader's type (for information).
                let pv = if matches!(T::repr(), Repr::Text)
                    || check_datatype::<T>(&pdt).is_ok()
                    || self.narrowing
                {
                    T::decode(ds, &pdt, &praw).ok().and_then(|mut v| v.pop())
                } else {
                    None
                };
                (missing, pv)
            }
        };
        Ok(Masked {
            shape: ds.shape(),
            values,
            missing,
            placeholder,
        })
    }
}

/// Read a dataset as `T` under the policy with the default [`Reader`].
pub fn read<T: Value>(ds: &impl AsDataset) -> Result<Masked<T>> {
    Reader::new().read(ds)
}

/// Read a dataset as `T` under the policy with the default [`Reader`], `None` where missing.
pub fn read_options<T: Value>(ds: &impl AsDataset) -> Result<Vec<Option<T>>> {
    Ok(read(ds)?.into_options())
}

/// A type a writer can choose a placeholder for.
pub trait Placeholder: Sized + Clone {
    /// A value equal to none of `present`, by the policy's equality (for floats a NaN only
    /// when no value is a NaN, since a NaN placeholder makes every NaN missing), or `None`
    /// when every value of the type is present.
    fn choose(present: &[Self]) -> Option<Self>;
}

macro_rules! int_placeholder {
    ($($t:ty),*) => {$(
        impl Placeholder for $t {
            fn choose(present: &[Self]) -> Option<Self> {
                // R's convention first: the minimum (then the maximum), else the smallest
                // value not present.
                let mut v = present.to_vec();
                v.sort_unstable();
                v.dedup();
                for c in [<$t>::MIN, <$t>::MAX] {
                    if v.binary_search(&c).is_err() {
                        return Some(c);
                    }
                }
                let mut candidate = <$t>::MIN;
                for x in v {
                    if x > candidate {
                        return Some(candidate);
                    }
                    candidate = x.checked_add(1)?;
                }
                Some(candidate)
            }
        }
    )*};
}

int_placeholder!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float_placeholder {
    ($($t:ty),*) => {$(
        impl Placeholder for $t {
            fn choose(present: &[Self]) -> Option<Self> {
                if !present.iter().any(|x| x.is_nan()) {
                    return Some(<$t>::NAN);
                }
                let mut v: Vec<$t> = present.iter().copied().filter(|x| !x.is_nan()).collect();
                v.sort_unstable_by(|a, b| a.total_cmp(b));
                for c in [<$t>::NEG_INFINITY, <$t>::INFINITY, <$t>::MIN, <$t>::MAX] {
                    if !v.iter().any(|x| *x == c) {
                        return Some(c);
                    }
                }
                let mut candidate = <$t>::MIN;
                for x in v {
                    if x < candidate {
                        continue;
                    }
                    if x > candidate {
                        return Some(candidate);
                    }
                    // The next float up (`next_up`, newer than the minimum Rust version);
                    // -0.0 equals 0.0, so both step to the smallest positive value.
                    candidate = if candidate == 0.0 {
                        <$t>::from_bits(1)
                    } else if candidate < 0.0 {
                        <$t>::from_bits(candidate.to_bits() - 1)
                    } else {
                        <$t>::from_bits(candidate.to_bits() + 1)
                    };
                }
                (candidate.is_finite()).then_some(candidate)
            }
        }
    )*};
}

float_placeholder!(f32, f64);

impl Placeholder for String {
    fn choose(present: &[Self]) -> Option<Self> {
        let taken: std::collections::HashSet<&str> = present.iter().map(String::as_str).collect();
        std::iter::once("NA".to_string())
            .chain((1..).map(|i| format!("NA_{i}")))
            .find(|c| !taken.contains(c.as_str()))
    }
}

/// A placeholder absent from `present` (see [`Placeholder::choose`]).
pub fn choose_placeholder<T: Placeholder>(present: &[T]) -> Option<T> {
    T::choose(present)
}

/// Values ready to be written under the policy: missing values replaced by a placeholder, to
/// be stored in the placeholder attribute (none when nothing is missing).
#[derive(Clone, Debug, PartialEq)]
pub struct WithPlaceholder<T> {
    /// The values, missing ones replaced by the placeholder.
    pub values: Vec<T>,
    /// The placeholder, when a value is missing.
    pub placeholder: Option<T>,
}

/// Replace the missing values (`None`) by a placeholder chosen for the present ones. Fails
/// when every value of the type is present (choose a wider type).
pub fn with_placeholder<T: Placeholder>(values: &[Option<T>]) -> Result<WithPlaceholder<T>> {
    if values.iter().all(Option::is_some) {
        return Ok(WithPlaceholder {
            values: values.iter().flatten().cloned().collect(),
            placeholder: None,
        });
    }
    let present: Vec<T> = values.iter().flatten().cloned().collect();
    let p = T::choose(&present).ok_or_else(|| {
        Error::from(h5_io::Error::new(
            h5_io::ErrorKind::InvalidArgument,
            "every value of the type is present: no placeholder is free (use a wider type)",
        ))
    })?;
    Ok(WithPlaceholder {
        values: values
            .iter()
            .map(|v| v.clone().unwrap_or_else(|| p.clone()))
            .collect(),
        placeholder: Some(p),
    })
}

/// Write `values` as the one-dimensional dataset `name` of `group` under the policy: missing
/// values (`None`) are replaced by a placeholder chosen for the data
/// ([`with_placeholder`]), stored as the scalar attribute `missing-value-placeholder` of the
/// dataset's own datatype. Nothing missing: no attribute. A reader following the policy
/// ([`read`]) gives the `None`s back.
pub fn write<T: Placeholder + h5::H5Type>(
    group: &h5::Group,
    name: &str,
    values: &[Option<T>],
) -> Result<h5::Dataset> {
    let prepared = with_placeholder(values)?;
    let ds = group
        .new_dataset::<T>()
        .shape(&[prepared.values.len() as u64])
        .create(name)?;
    ds.write(&prepared.values)?;
    if let Some(p) = prepared.placeholder {
        ds.new_attr::<T>()
            .create(DEFAULT_PLACEHOLDER)?
            .write(std::slice::from_ref(&p))?;
    }
    Ok(ds)
}

/// [`write()`] for strings: a dataset of variable-length UTF-8 strings, missing values replaced
/// by a placeholder string absent from the data (`"NA"`, `"NA_1"`, ...), stored as a scalar
/// variable-length string attribute.
pub fn write_strings(
    group: &h5::Group,
    name: &str,
    values: &[Option<String>],
) -> Result<h5::Dataset> {
    use h5_types::h5type::VarLenUnicode;
    let prepared = with_placeholder(values)?;
    let text = prepared
        .values
        .iter()
        .map(|s| VarLenUnicode::try_from(s.as_str()))
        .collect::<h5_types::Result<Vec<_>>>()
        .map_err(h5::Error::from)?;
    let ds = group
        .new_dataset::<VarLenUnicode>()
        .shape(&[text.len() as u64])
        .create(name)?;
    ds.write(&text)?;
    if let Some(p) = prepared.placeholder {
        ds.new_attr::<VarLenUnicode>()
            .create(DEFAULT_PLACEHOLDER)?
            .write(&[VarLenUnicode::try_from(p.as_str()).map_err(h5::Error::from)?])?;
    }
    Ok(ds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use h5_types::{ByteOrder, IntegerType, StrPad, StringType};

    fn int(size: usize, sign: Sign) -> Datatype {
        IntegerType::new(size, ByteOrder::LittleEndian, sign).into()
    }

    #[test]
    fn integer_rules() {
        use Sign::{None as U, TwosComplement as S};
        assert!(check_datatype::<i32>(&int(1, S)).is_ok());
        assert!(check_datatype::<i32>(&int(2, U)).is_ok());
        assert!(check_datatype::<i32>(&int(4, S)).is_ok());
        let e = check_datatype::<i32>(&int(4, U)).unwrap_err();
        assert_eq!(e.broken_rule(), Some(Rule::Integer));
        assert!(e.to_string().contains("\"integers\""), "{e}");
        assert!(check_datatype::<u8>(&int(1, S)).is_err());
        assert!(check_datatype::<u32>(&int(4, U)).is_ok());
        assert!(check_datatype::<i64>(&int(4, U)).is_ok());
        assert!(check_datatype::<i64>(&int(8, U)).is_err());
    }

    #[test]
    fn float_rules() {
        use Sign::{None as U, TwosComplement as S};
        let f16: Datatype = FloatType::ieee(2, ByteOrder::LittleEndian, 5, 10).into();
        let f32t: Datatype = FloatType::ieee(4, ByteOrder::LittleEndian, 8, 23).into();
        let f64t: Datatype = FloatType::ieee(8, ByteOrder::BigEndian, 11, 52).into();
        assert!(check_datatype::<f64>(&f16).is_ok());
        assert!(check_datatype::<f64>(&f32t).is_ok());
        assert!(check_datatype::<f64>(&f64t).is_ok());
        assert!(check_datatype::<f32>(&f16).is_ok());
        assert_eq!(
            check_datatype::<f32>(&f64t).unwrap_err().broken_rule(),
            Some(Rule::Float)
        );
        assert!(check_datatype::<f64>(&int(4, U)).is_ok());
        assert!(check_datatype::<f64>(&int(4, S)).is_ok());
        assert!(check_datatype::<f64>(&int(8, S)).is_err());
        assert!(check_datatype::<f32>(&int(2, U)).is_ok());
        assert!(check_datatype::<f32>(&int(4, S)).is_err());
        let s: Datatype = StringType::variable(StrPad::NullTerm, h5_types::CharSet::Utf8).into();
        assert_eq!(
            check_datatype::<f64>(&s).unwrap_err().broken_rule(),
            Some(Rule::Float)
        );
        assert!(check_datatype::<String>(&s).is_ok());
        assert_eq!(
            check_datatype::<String>(&f16).unwrap_err().broken_rule(),
            Some(Rule::String)
        );
    }

    #[test]
    fn integer_placeholders() {
        assert_eq!(choose_placeholder::<i32>(&[1, 2, 3]), Some(i32::MIN));
        assert_eq!(choose_placeholder::<i32>(&[i32::MIN, 2]), Some(i32::MAX));
        assert_eq!(
            choose_placeholder::<i8>(&[i8::MIN, i8::MAX, -127, -125]),
            Some(-126)
        );
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(choose_placeholder::<u8>(&all), None);
        let all_but: Vec<u8> = (0..=255).filter(|&x| x != 77).collect();
        assert_eq!(choose_placeholder::<u8>(&all_but), Some(77));
    }

    #[test]
    fn float_placeholders() {
        assert!(choose_placeholder::<f64>(&[1.0, 2.0]).unwrap().is_nan());
        let p = choose_placeholder::<f64>(&[f64::NAN, 1.0]).unwrap();
        assert_eq!(p, f64::NEG_INFINITY);
        let v = [
            f64::NAN,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::MIN,
            f64::MAX,
        ];
        let p = choose_placeholder::<f64>(&v).unwrap();
        assert_eq!(p, f64::from_bits(f64::MIN.to_bits() - 1));
        let up = |x: f32| f32::from_bits(x.to_bits() - 1);
        let v = [
            f32::NAN,
            f32::NEG_INFINITY,
            f32::INFINITY,
            f32::MIN,
            f32::MAX,
            up(f32::MIN),
        ];
        let p = choose_placeholder::<f32>(&v).unwrap();
        assert_eq!(p, up(up(f32::MIN)));
        assert!(!v.contains(&p));
    }

    #[test]
    fn string_placeholders_and_substitution() {
        let v = ["NA".to_string(), "x".to_string(), "NA_1".to_string()];
        assert_eq!(choose_placeholder(&v).as_deref(), Some("NA_2"));
        let w = with_placeholder(&[Some(3i32), None, Some(i32::MIN)]).unwrap();
        assert_eq!(w.placeholder, Some(i32::MAX));
        assert_eq!(w.values, [3, i32::MAX, i32::MIN]);
        let w = with_placeholder(&[Some(1.5f64), Some(2.0)]).unwrap();
        assert_eq!(w.placeholder, None);
        let full: Vec<Option<u8>> = (0..=255).map(Some).chain([None]).collect();
        assert!(with_placeholder(&full).is_err());
    }
}
