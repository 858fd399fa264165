//! The BioC conventions for HDF5 files: the datatypes a dataset may have for the in-memory
//! type a format promises, string loading, and missing values marked by a placeholder
//! attribute, as **ritsuko** (ArtifactDB/ritsuko, the C++ library takane, chihaya and the
//! alabaster/dolomite packages validate with) defines them. ritsuko replaced the deprecated
//! "HDF5 policy for BioC file formats"; where the two differ the policy's reading is available
//! with [`Rules::DeprecatedPolicy`] ([`Reader::rules`], [`check_with`],
//! [`Placeholder::choose_with`]).
//!
//! **Datatype fit** ([`check`], ritsuko `hdf5/exceeds_limit.hpp`, see [`ritsuko`] for each
//! rule's reference):
//! * integers: an integer datatype whose precision the Rust type holds
//!   ([`ritsuko::exceeds_integer_limit`]);
//! * floats: `H5T_IEEE_F32LE/BE` (and for `f64` `H5T_IEEE_F64LE/BE`) exactly, or an integer of
//!   at most 24 (`f32`) or 52 (`f64`) bits of signed precision
//!   ([`ritsuko::exceeds_float_limit`]). The policy also accepted half floats and any
//!   IEEE-like layout narrower than the target, and integers up to the mantissa plus one bit;
//! * strings: a string datatype, fixed or variable length, ASCII or UTF-8 declared
//!   ([`ritsuko::is_utf8_string`]). A fixed-length string ends at its first NUL or its full
//!   length whatever its padding; a NULL variable-length string is an error
//!   ([`Rule::NullString`]), whatever the rules. Read as `Vec<u8>`, the bytes come as stored
//!   (ritsuko does not check them); read as `String` they must be UTF-8 ([`Rule::Utf8`]). The
//!   policy also required UTF-8 of `Vec<u8>`.
//!
//! **Missing values** ([`read`], [`Reader`]): a scalar attribute (`missing-value-placeholder`
//! unless the format names another, [`Reader::placeholder_name`]) holds a placeholder; every
//! value equal to it is missing. It has the dataset's exact datatype (numbers) or is a string
//! that is not NULL (strings), ritsuko `hdf5/missing_placeholder.hpp`. Numbers compare at the
//! dataset's full precision; a NaN placeholder matches the NaNs of identical bits only
//! (ritsuko `r_missing_value.hpp`, `are_floats_identical`; the policy matched every NaN).
//! Strings compare byte for byte. Without the attribute nothing is missing. Errors name the
//! rule a file breaks ([`Error::broken_rule`]).
//!
//! **Writing.** [`choose_placeholder`] picks a placeholder absent from the data in ritsuko's
//! order (`choose_missing_placeholder.hpp`: integers the minimum, the maximum, 0, then the
//! smallest gap; floats NaN, +Inf, -Inf, the lowest, the highest, 0, then the midpoint of the
//! first gap; `"NA"` for strings), and [`with_placeholder`] substitutes it for the missing
//! values.
//!
//! **VLS string arrays** ([`ritsuko::vls`]): ritsuko's (offset, length) pointers into a heap of
//! bytes.
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

use h5_io::vlen::decode_as;
use h5_io::{Attribute, Dataset};
use h5_types::{Datatype, FloatType, Norm, Sign};

pub mod ritsuko;

/// The placeholder attribute's usual name.
pub const DEFAULT_PLACEHOLDER: &str = "missing-value-placeholder";

/// A rule of the BioC conventions (named as the policy named them, plus ritsuko's own).
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
    /// ritsuko: a variable-length string is not NULL (`validate_string.hpp`).
    NullString,
    /// ritsuko: a VLS array's pointers and heap (`hdf5/vls/`).
    Vls,
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
            Rule::NullString => "strings are not NULL",
            Rule::Vls => "VLS arrays",
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
            Rule::NullString => "no variable-length string is a NULL pointer",
            Rule::Vls => {
                "a compound of (offset, length) unsigned integers pointing within a 1-D heap of bytes"
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

/// An error: a file breaking a BioC rule (with the dataset's path), or an error
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

    /// The message without the rule and path.
    fn message(&self) -> String {
        match &self.kind {
            Kind::Rule { message, .. } => message.clone(),
            Kind::Io(e) => e.to_string(),
            Kind::H5(e) => e.to_string(),
        }
    }
}

/// Which reading of the BioC rules applies where ritsuko and the deprecated policy document
/// differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rules {
    /// ritsuko's (the default): floats fit only as the IEEE binary32/binary64 datatypes,
    /// integers fit a float within 24/52 bits of signed precision, string bytes are loaded
    /// as stored, a NaN placeholder matches identical bits, placeholders are chosen in
    /// ritsuko's order.
    #[default]
    Ritsuko,
    /// The deprecated policy's ("HDF5 policy for BioC file formats"): any IEEE-like float no
    /// wider than the target fits (half floats too), integers fit a float up to its mantissa
    /// plus one bit, strings must be UTF-8 whatever they are read as, a NaN placeholder makes
    /// every NaN missing, placeholders are chosen as its text suggests (the minimum, then the
    /// maximum, then the smallest gap; NaN, -Inf, +Inf, the lowest, the highest, then the next
    /// float up).
    DeprecatedPolicy,
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
        /// A string's bytes.
        Bytes,
    }

    pub trait Sealed: Sized {
        /// The type's name in messages.
        const NAME: &'static str;
        fn repr() -> Repr;
        fn decode(ds: &Dataset, dt: &Datatype, raw: &[u8]) -> Result<Vec<Self>>;
    }
}

use sealed::{Repr, Sealed};

/// A Rust type BioC datasets are read into: `i8`..`i64`, `u8`..`u64`, `f32`, `f64`,
/// `String` and `Vec<u8>` (a string's bytes, as ritsuko's `std::string` holds them).
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
        ritsuko::strings(ds.file(), dt, raw, &format!("in '{}'", ds.path()))?
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

impl Value for Vec<u8> {}
impl Sealed for Vec<u8> {
    const NAME: &'static str = "Vec<u8>";
    fn repr() -> Repr {
        Repr::Bytes
    }
    fn decode(ds: &Dataset, dt: &Datatype, raw: &[u8]) -> Result<Vec<Self>> {
        ritsuko::strings(ds.file(), dt, raw, &format!("in '{}'", ds.path()))
    }
}

/// The policy's UTF-8 rule on string bytes.
fn check_utf8(values: &[Vec<u8>]) -> Result<()> {
    for (i, b) in values.iter().enumerate() {
        if let Err(e) = std::str::from_utf8(b) {
            return Err(Error::rule(
                Rule::Utf8,
                format!(
                    "element {i} is not UTF-8 (invalid byte at {})",
                    e.valid_up_to()
                ),
            ));
        }
    }
    Ok(())
}

/// Whether a float layout is IEEE-like with `exp` and `mant` bits at most (so that a float of
/// `exp`/`mant` bits holds every value of it).
fn float_fits(f: &FloatType, exp: usize, mant: usize) -> bool {
    let ieee_bias =
        f.exp_size() >= 1 && f.exp_size() < 64 && f.exp_bias() == (1u64 << (f.exp_size() - 1)) - 1;
    f.norm() == Norm::Implied && ieee_bias && f.exp_size() <= exp && f.mant_size() <= mant
}

/// Check the representability rule for a Rust type described by `repr` named `name`.
fn representable(dt: &Datatype, repr: Repr, name: &str, rules: Rules) -> Result<()> {
    if rules == Rules::Ritsuko {
        return representable_ritsuko(dt, repr, name);
    }
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
        (Repr::Text | Repr::Bytes, Datatype::String(_)) => Ok(()),
        (Repr::Text | Repr::Bytes, other) => Err(Error::rule(
            Rule::String,
            format!("the datatype {other} is not a string datatype"),
        )),
    }
}

/// [`representable`] by ritsuko's `exceeds_integer_limit`, `exceeds_float_limit` and
/// `is_utf8_string`.
fn representable_ritsuko(dt: &Datatype, repr: Repr, name: &str) -> Result<()> {
    match repr {
        Repr::Int { signed, bits } => {
            if !ritsuko::exceeds_integer_limit(dt, bits, signed) {
                return Ok(());
            }
            let why = match dt {
                Datatype::Integer(i) => format!(
                    "the datatype {dt} ({}, {} bits of precision) has values {name} cannot hold",
                    if i.is_signed() { "signed" } else { "unsigned" },
                    i.precision()
                ),
                other => format!(
                    "the datatype {other} is not an integer datatype, {name} is an integer type"
                ),
            };
            Err(Error::rule(Rule::Integer, why))
        }
        Repr::Float { exp, mant } => {
            let bits = 1 + exp + mant;
            if !ritsuko::exceeds_float_limit(dt, bits) {
                return Ok(());
            }
            let why = match dt {
                Datatype::Float(_) => format!(
                    "the float datatype {dt} is not an IEEE binary{} datatype {name} holds",
                    if bits >= 64 { "32 or binary64" } else { "32" }
                ),
                Datatype::Integer(i) => format!(
                    "the integer datatype {dt} ({} bits of precision) exceeds the {} bits of signed precision allowed for {name}",
                    i.precision(),
                    if bits >= 64 { 52 } else { 24 }
                ),
                other => format!("the datatype {other} is neither a float nor an integer datatype"),
            };
            Err(Error::rule(Rule::Float, why))
        }
        Repr::Text | Repr::Bytes => {
            if ritsuko::is_utf8_string(dt) {
                Ok(())
            } else {
                Err(Error::rule(
                    Rule::String,
                    format!("the datatype {dt} is not a string datatype"),
                ))
            }
        }
    }
}

/// Check that every value of datatype `dt` converts to `T` without loss (the integer, float
/// and string rules), by ritsuko's rules.
pub fn check_datatype<T: Value>(dt: &Datatype) -> Result<()> {
    check_datatype_with::<T>(dt, Rules::Ritsuko)
}

/// [`check_datatype`] by the given rules.
pub fn check_datatype_with<T: Value>(dt: &Datatype, rules: Rules) -> Result<()> {
    representable(dt, T::repr(), T::NAME, rules)
}

/// A dataset the BioC rules read: the facade's [`h5::Dataset`] or the low-level reader's.
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

/// Check that every value of the dataset converts to `T` without loss, by ritsuko's rules.
pub fn check<T: Value>(ds: &impl AsDataset) -> Result<()> {
    check_with::<T>(ds, Rules::Ritsuko)
}

/// [`check`] by the given rules.
pub fn check_with<T: Value>(ds: &impl AsDataset, rules: Rules) -> Result<()> {
    let ds = &*ds.low()?;
    check_datatype_with::<T>(ds.datatype(), rules).map_err(|e| e.at(ds.path()))
}

/// The values of a dataset or placeholder at full precision, for equality with the
/// placeholder.
#[derive(Debug)]
enum Full {
    Int(Vec<i128>),
    Float(Vec<f64>),
}

fn full(file: &h5_io::File, dt: &Datatype, raw: &[u8]) -> Result<Full> {
    Ok(match dt {
        Datatype::Integer(i) if i.precision() < 128 || i.is_signed() && i.precision() == 128 => {
            Full::Int(decode_as::<i128>(file, dt, raw)?)
        }
        Datatype::Float(f) if float_fits(f, 11, 52) => {
            Full::Float(decode_as::<f64>(file, dt, raw)?)
        }
        other => {
            return Err(Error::from(h5_io::Error::new(
                h5_io::ErrorKind::Unsupported,
                format!("comparing values of {other} with a placeholder at full precision"),
            )))
        }
    })
}

/// Which values equal the placeholder `praw` (datatype `pdt`) among `raw` (datatype `dt`), at
/// full precision. A NaN placeholder matches, by ritsuko's rules, the values of identical bits
/// (`are_floats_identical`; compared as stored when the datatypes are equal, else as float64
/// bits), by the policy's every NaN.
fn numeric_mask(
    file: &h5_io::File,
    dt: &Datatype,
    raw: &[u8],
    pdt: &Datatype,
    praw: &[u8],
    rules: Rules,
) -> Result<Vec<bool>> {
    let mismatch = || {
        Error::rule(
            Rule::PlaceholderType,
            format!("the placeholder is {pdt}, the dataset is {dt}"),
        )
    };
    Ok(match (full(file, dt, raw)?, full(file, pdt, praw)?) {
        (Full::Int(v), Full::Int(p)) => match p.first() {
            Some(p) => v.iter().map(|x| x == p).collect(),
            None => vec![false; v.len()],
        },
        (Full::Float(v), Full::Float(p)) => match p.first() {
            Some(p) if p.is_nan() && rules == Rules::DeprecatedPolicy => {
                v.iter().map(|x| x.is_nan()).collect()
            }
            Some(p) if p.is_nan() && pdt == dt && dt.size() > 0 => raw
                .chunks_exact(dt.size())
                .map(|e| e == &praw[..dt.size().min(praw.len())])
                .collect(),
            Some(p) if p.is_nan() => v.iter().map(|x| x.to_bits() == p.to_bits()).collect(),
            Some(p) => v.iter().map(|x| x == p).collect(),
            None => vec![false; v.len()],
        },
        _ => return Err(mismatch()),
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

/// How to read datasets under the BioC rules.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Reader {
    placeholder: String,
    narrowing: bool,
    exact_placeholder_type: bool,
    rules: Rules,
}

impl Default for Reader {
    fn default() -> Self {
        Reader {
            placeholder: DEFAULT_PLACEHOLDER.to_string(),
            narrowing: false,
            exact_placeholder_type: true,
            rules: Rules::Ritsuko,
        }
    }
}

impl Reader {
    /// The default: ritsuko's rules, placeholder attribute `missing-value-placeholder`, the
    /// target type must hold every value, the placeholder must have the dataset's exact
    /// datatype.
    pub fn new() -> Self {
        Self::default()
    }

    /// Which reading of the rules applies ([`Rules::Ritsuko`] by default).
    pub fn rules(mut self, rules: Rules) -> Self {
        self.rules = rules;
        self
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
    /// only the same class (then it is compared with the values at full precision); ritsuko's
    /// `type_class_only`.
    pub fn exact_placeholder_type(mut self, exact: bool) -> Self {
        self.exact_placeholder_type = exact;
        self
    }

    /// The placeholder attribute of a dataset, validated (scalar, datatype, not a NULL
    /// string), or `None`.
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
        match ds.datatype() {
            Datatype::String(_) => {
                ritsuko::check_string_placeholder(&a)?;
            }
            Datatype::Integer(_) | Datatype::Float(_) => {
                ritsuko::check_numeric_placeholder(ds, &a, !self.exact_placeholder_type)?;
            }
            _ => {
                if !matches!(a.dataspace(), h5_io::selection::Dataspace::Scalar) {
                    return Err(Error::rule(
                        Rule::PlaceholderScalar,
                        format!("expected the '{}' attribute to be a scalar", a.name()),
                    ));
                }
            }
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
        if let Err(e) = check_datatype_with::<T>(dt, self.rules) {
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
        let file = ds.file();
        let text = matches!(T::repr(), Repr::Text | Repr::Bytes);
        let (values, bytes) = if text {
            let bytes = ritsuko::strings(file, dt, &raw, &format!("in '{}'", ds.path()))?;
            if self.rules == Rules::DeprecatedPolicy {
                check_utf8(&bytes)?;
            }
            (T::decode(ds, dt, &raw)?, Some(bytes))
        } else {
            (T::decode(ds, dt, &raw)?, None)
        };
        let (missing, placeholder) = match attr {
            None => (vec![false; values.len()], None),
            Some(a) => {
                let (praw, pdt) = a.read_raw();
                let missing = match &bytes {
                    Some(v) => {
                        let p = ritsuko::string_placeholder_value(&a)?;
                        v.iter().map(|x| *x == p).collect()
                    }
                    None => numeric_mask(file, dt, &raw, &pdt, &praw, self.rules)?,
                };
                // The placeholder as the reader's type (for information).
                let pv =
                    if text || check_datatype_with::<T>(&pdt, self.rules).is_ok() || self.narrowing
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

/// Read a dataset as `T` under ritsuko's rules with the default [`Reader`].
pub fn read<T: Value>(ds: &impl AsDataset) -> Result<Masked<T>> {
    Reader::new().read(ds)
}

/// Read a dataset as `T` under ritsuko's rules with the default [`Reader`], `None` where
/// missing.
pub fn read_options<T: Value>(ds: &impl AsDataset) -> Result<Vec<Option<T>>> {
    Ok(read(ds)?.into_options())
}

/// How a placeholder is chosen ([`Placeholder::choose_with`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Choice {
    /// The order candidates are tried in.
    pub rules: Rules,
    /// Floats: never choose NaN (ritsuko's `skip_nan`, for formats whose NaNs are values
    /// under a NaN-blind comparison).
    pub skip_nan: bool,
}

/// A type a writer can choose a placeholder for.
pub trait Placeholder: Sized + Clone {
    /// A value equal to none of `present` (for floats a NaN only when no value is a NaN), or
    /// `None` when every candidate is present, chosen as `how` says.
    fn choose_with(present: &[Self], how: Choice) -> Option<Self>;

    /// [`Placeholder::choose_with`] in ritsuko's order.
    fn choose(present: &[Self]) -> Option<Self> {
        Self::choose_with(present, Choice::default())
    }
}

macro_rules! int_placeholder {
    ($($t:ty),*) => {$(
        impl Placeholder for $t {
            fn choose_with(present: &[Self], how: Choice) -> Option<Self> {
                let mut v = present.to_vec();
                v.sort_unstable();
                v.dedup();
                let absent = |c: $t| v.binary_search(&c).is_err();
                match how.rules {
                    // ritsuko `choose_missing_placeholder.hpp`,
                    // `choose_missing_integer_placeholder`: the minimum (signed types), the
                    // maximum, 0, then one past the first value followed by a gap.
                    Rules::Ritsuko => {
                        let mut firsts = vec![<$t>::MAX, 0];
                        if <$t>::MIN != 0 {
                            firsts.insert(0, <$t>::MIN);
                        }
                        if let Some(c) = firsts.into_iter().find(|&c| absent(c)) {
                            return Some(c);
                        }
                        v.windows(2)
                            .find(|w| i128::from(w[0]) + 1 < i128::from(w[1]))
                            .map(|w| w[0] + 1)
                    }
                    // The policy: R's convention first (the minimum, then the maximum), else
                    // the smallest value not present.
                    _ => {
                        for c in [<$t>::MIN, <$t>::MAX] {
                            if absent(c) {
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
            }
        }
    )*};
}

int_placeholder!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float_placeholder {
    ($($t:ty),*) => {$(
        impl Placeholder for $t {
            fn choose_with(present: &[Self], how: Choice) -> Option<Self> {
                if !how.skip_nan && !present.iter().any(|x| x.is_nan()) {
                    return Some(<$t>::NAN);
                }
                let mut v: Vec<$t> = present.iter().copied().filter(|x| !x.is_nan()).collect();
                v.sort_unstable_by(|a, b| a.total_cmp(b));
                v.dedup_by(|a, b| a == b);
                let absent = |c: $t| !v.iter().any(|x| *x == c);
                match how.rules {
                    // ritsuko `choose_missing_placeholder.hpp`,
                    // `choose_missing_float_placeholder`: +Inf, -Inf, the lowest, the
                    // highest, 0 (equal to -0), then halfway between the lowest and the first
                    // finite value, or between consecutive finite values, where that is a
                    // new value. (ritsuko's std::set of the values is not ordered when a NaN
                    // is among them; NaNs are left out of the search here.)
                    Rules::Ritsuko => {
                        let firsts = [<$t>::INFINITY, <$t>::NEG_INFINITY, <$t>::MIN, <$t>::MAX, 0.0];
                        if let Some(c) = firsts.into_iter().find(|&c| absent(c)) {
                            return Some(c);
                        }
                        let mut last = <$t>::MIN;
                        for x in v.into_iter().filter(|x| x.is_finite()) {
                            let candidate = last + (x - last) / 2.0;
                            if candidate != last && candidate != x {
                                return Some(candidate);
                            }
                            last = x;
                        }
                        None
                    }
                    // The policy: -Inf, +Inf, the lowest, the highest, then the next float
                    // up from the lowest that is not present.
                    _ => {
                        for c in [<$t>::NEG_INFINITY, <$t>::INFINITY, <$t>::MIN, <$t>::MAX] {
                            if absent(c) {
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
                            // The next float up (`next_up`, newer than the minimum Rust
                            // version); -0.0 equals 0.0, so both step to the smallest positive
                            // value.
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
            }
        }
    )*};
}

float_placeholder!(f32, f64);

impl Placeholder for String {
    /// `"NA"`, else `"NA_1"`, `"NA_2"`... (ritsuko chooses no string placeholders; the
    /// formats' writers use `"NA"`-like strings).
    fn choose_with(present: &[Self], _how: Choice) -> Option<Self> {
        let taken: std::collections::HashSet<&str> = present.iter().map(String::as_str).collect();
        std::iter::once("NA".to_string())
            .chain((1..).map(|i| format!("NA_{i}")))
            .find(|c| !taken.contains(c.as_str()))
    }
}

/// A placeholder absent from `present`, in ritsuko's order (see [`Placeholder::choose`]).
pub fn choose_placeholder<T: Placeholder>(present: &[T]) -> Option<T> {
    T::choose(present)
}

/// Values ready to be written under the BioC rules: missing values replaced by a placeholder, to
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

/// Write `values` as the one-dimensional dataset `name` of `group` under the BioC rules: missing
/// values (`None`) are replaced by a placeholder chosen for the data
/// ([`with_placeholder`]), stored as the scalar attribute `missing-value-placeholder` of the
/// dataset's own datatype. Nothing missing: no attribute. A reader following the rules
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
        let policy = |dt: &Datatype| check_datatype_with::<f64>(dt, Rules::DeprecatedPolicy);
        assert!(policy(&f16).is_ok());
        assert!(check_datatype_with::<f32>(&f16, Rules::DeprecatedPolicy).is_ok());
        // ritsuko: IEEE binary32/binary64 only.
        assert_eq!(
            check_datatype::<f64>(&f16).unwrap_err().broken_rule(),
            Some(Rule::Float)
        );
        assert!(check_datatype::<f32>(&f16).is_err());
        assert!(check_datatype::<f64>(&f32t).is_ok());
        assert!(check_datatype::<f64>(&f64t).is_ok());
        assert!(policy(&f32t).is_ok() && policy(&f64t).is_ok());
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

    fn policy<T: Placeholder>(v: &[T]) -> Option<T> {
        T::choose_with(
            v,
            Choice {
                rules: Rules::DeprecatedPolicy,
                skip_nan: false,
            },
        )
    }

    #[test]
    fn integer_placeholders() {
        assert_eq!(choose_placeholder::<i32>(&[1, 2, 3]), Some(i32::MIN));
        assert_eq!(choose_placeholder::<i32>(&[i32::MIN, 2]), Some(i32::MAX));
        // ritsuko tries 0 before the first gap; the policy goes to the gap.
        let v = [i8::MIN, i8::MAX, -127, -125];
        assert_eq!(choose_placeholder::<i8>(&v), Some(0));
        assert_eq!(policy::<i8>(&v), Some(-126));
        assert_eq!(
            choose_placeholder::<i8>(&[i8::MIN, i8::MAX, 0, -127]),
            Some(-126)
        );
        assert_eq!(choose_placeholder::<u16>(&[1, 2, 3]), Some(u16::MAX));
        assert_eq!(choose_placeholder::<u16>(&[1, 2, 3, 0, u16::MAX]), Some(4));
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(choose_placeholder::<u8>(&all), None);
        assert_eq!(policy::<u8>(&all), None);
        let all_but: Vec<u8> = (0..=255).filter(|&x| x != 77).collect();
        assert_eq!(choose_placeholder::<u8>(&all_but), Some(77));
        assert_eq!(policy::<u8>(&all_but), Some(77));
    }

    #[test]
    fn float_placeholders() {
        assert!(choose_placeholder::<f64>(&[1.0, 2.0]).unwrap().is_nan());
        // ritsuko: +Inf before -Inf; the policy the other way round.
        let p = choose_placeholder::<f64>(&[f64::NAN, 1.0]).unwrap();
        assert_eq!(p, f64::INFINITY);
        let p = policy::<f64>(&[f64::NAN, 1.0]).unwrap();
        assert_eq!(p, f64::NEG_INFINITY);
        let v = [
            f64::NAN,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::MIN,
            f64::MAX,
        ];
        let p = policy::<f64>(&v).unwrap();
        assert_eq!(p, f64::from_bits(f64::MIN.to_bits() - 1));
        // ritsuko: 0, then halfway from the lowest.
        assert_eq!(choose_placeholder::<f64>(&v), Some(0.0));
        let mut w = v.to_vec();
        w.push(-0.0);
        assert_eq!(choose_placeholder::<f64>(&w), Some(f64::MIN / 2.0));
        let up = |x: f32| f32::from_bits(x.to_bits() - 1);
        let v = [
            f32::NAN,
            f32::NEG_INFINITY,
            f32::INFINITY,
            f32::MIN,
            f32::MAX,
            up(f32::MIN),
        ];
        let p = policy::<f32>(&v).unwrap();
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
