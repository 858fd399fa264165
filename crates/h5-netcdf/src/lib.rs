//! netCDF-4 files read the netCDF way ("The NetCDF Users' Guide", chapter 3 "Data").
//!
//! **Variables and dimensions.** A netCDF-4 file is an HDF5 file whose datasets are variables.
//! Dimensions are dimension scales: a coordinate variable is a dataset of the dimension's name
//! made a scale; a dimension without one is a dataset whose `NAME` attribute starts with
//! "This is a netCDF dimension but not a netCDF variable". A variable's `DIMENSION_LIST`
//! attribute names its dimensions; an unlimited dimension is one whose maximum size is
//! unlimited.
//!
//! **Access** ([`Variable::read`], section 3.2.1): the whole variable, one element by its
//! index vector, an array section (`start`, `count`), a subsampled section (with `stride`)
//! and a mapped section (with `imap`, the memory distance between neighbours along each
//! dimension), as [`NcForm`] values, with netCDF's errors (`NC_EINVALCOORDS`, `NC_EEDGE`,
//! `NC_ESTRIDE`).
//!
//! **Conversion** (section 3.3): any numeric variable reads into any numeric type ([`Numeric`]):
//! `i8`..`i64`, `u8`..`u64`, `f32`, `f64`. Floats convert to integers by truncation toward
//! zero; loss of precision is not an error. A value the destination cannot represent (out of
//! range, or a NaN or infinity read as an integer) is a range error (`NC_ERANGE`), but every
//! other value is still converted: [`Variable::read_converted`] returns the values together
//! with the positions and index vectors of the offending ones, and [`Variable::read`] turns
//! them into an [`Error`] of kind [`ErrorKind::Range`]. Byte variables are signed or
//! unsigned as their HDF5 datatype says. Text (`char`) variables do not convert to numbers
//! (`NC_ECHAR`); [`Variable::read_text`] reads them, and [`Variable::read_strings`] reads
//! netCDF-4 `string` variables.
//!
//! **Ragged arrays** (section 3.4): [`NcFile::ragged_rows`] follows the guide's convention,
//! a `row_index` attribute on the data variable naming the integer variable that holds each
//! row's start (row `i` spans `[start[i], start[i+1])`, the last row ends at the data
//! variable's end; starts must be non-decreasing and within the data).
//! [`NcFile::cf_contiguous_rows`] follows the CF conventions' "contiguous ragged array": a
//! count variable whose `sample_dimension` attribute names the data variable's dimension
//! holds each row's length, rows being stored one after another.
//!
//! ```no_run
//! use h5_netcdf::{NcFile, NcForm};
//! # fn main() -> Result<(), h5_netcdf::Error> {
//! let nc = NcFile::open("weather.nc")?;
//! let temp = nc.variable("temp")?; // temp(time, level, lat, lon)
//! // The second level, every time, latitude and longitude (the guide's section 3.2.2).
//! let shape = temp.shape();
//! let v: Vec<f64> = temp.read(NcForm::Section {
//!     start: &[0, 1, 0, 0],
//!     count: &[shape[0], 1, shape[2], shape[3]],
//! })?;
//! // Read as bytes: out-of-range values are reported, the others converted.
//! let c = temp.read_converted::<i8>(NcForm::Whole)?;
//! println!("{} values, {} out of range", c.values.len(), c.out_of_range.len());
//! # let _ = v;
//! # Ok(())
//! # }
//! ```

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use h5_io::selection::{nc_access, NcMode};
use h5_io::vlen::string_bytes;
use h5_io::{Dataset, File, ObjectKind};
use h5_types::convert::{ConversionOptions, Converter, VarLenHeap};
use h5_types::h5type::{decode_slice, ObjectRef, VarLenArray};
use h5_types::{Datatype, H5Type};

pub use h5_io::selection::NcForm;

/// The start of the `NAME` attribute of a dataset that stands for a dimension without a
/// coordinate variable.
pub const NOT_A_VARIABLE: &str = "This is a netCDF dimension but not a netCDF variable";

/// The attribute naming the variable that holds each row's start (section 3.4).
pub const ROW_INDEX: &str = "row_index";

/// The CF attribute of a contiguous ragged array's count variable.
pub const SAMPLE_DIMENSION: &str = "sample_dimension";

/// What went wrong, as a matchable code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading the file failed, or the access was invalid (`NC_EINVALCOORDS`, `NC_EEDGE`,
    /// `NC_ESTRIDE`...: see [`Error::io`]).
    Io,
    /// `NC_ERANGE`: values out of the destination type's range (the others were converted).
    Range,
    /// `NC_ECHAR`: text read as numbers, or numbers as text.
    Char,
    /// No variable of that name.
    NotFound,
    /// The file does not follow a convention it claims (dimension list, ragged array).
    Convention,
}

/// An error of netCDF access.
pub struct Error {
    kind: ErrorKind,
    path: Option<String>,
    message: String,
    source: Option<Source>,
    positions: Vec<usize>,
}

/// The error beneath an [`ErrorKind::Io`] error.
#[derive(Debug)]
enum Source {
    /// The low-level reader's.
    Io(h5_io::Error),
    /// The facade's (opening the file, reaching its reader).
    H5(h5::Error),
}

/// Result with the netCDF [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    #[cold]
    fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            path: None,
            message: message.into(),
            source: None,
            positions: Vec::new(),
        }
    }

    #[cold]
    fn at(mut self, path: &str) -> Self {
        if self.path.is_none() {
            self.path = Some(path.to_string());
        }
        self
    }

    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The variable's path, when known.
    pub fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }

    /// The underlying read error, for [`ErrorKind::Io`] (an error of the low-level reader;
    /// an error of the facade is the [`source`](std::error::Error::source)).
    pub fn io(&self) -> Option<&h5_io::Error> {
        match &self.source {
            Some(Source::Io(e)) => Some(e),
            Some(Source::H5(_)) | None => None,
        }
    }

    /// For a range error, the positions (in the values read) of the out-of-range values.
    pub fn out_of_range(&self) -> &[usize] {
        &self.positions
    }
}

impl From<Source> for Error {
    fn from(source: Source) -> Self {
        Error {
            kind: ErrorKind::Io,
            path: None,
            message: String::new(),
            source: Some(source),
            positions: Vec::new(),
        }
    }
}

impl From<h5_io::Error> for Error {
    fn from(e: h5_io::Error) -> Self {
        Source::Io(e).into()
    }
}

impl From<h5::Error> for Error {
    fn from(e: h5::Error) -> Self {
        Source::H5(e).into()
    }
}

impl From<h5_types::Error> for Error {
    fn from(e: h5_types::Error) -> Self {
        h5_io::Error::from(e).into()
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({self})")
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let source = match &self.source {
            Some(Source::Io(e)) => Some((e.path().is_some(), e as &dyn fmt::Display)),
            Some(Source::H5(e)) => Some((e.path().is_some(), e as &dyn fmt::Display)),
            None => None,
        };
        if let Some((has_path, e)) = source {
            return match &self.path {
                Some(p) if !has_path => write!(f, "{p}: {e}"),
                _ => write!(f, "{e}"),
            };
        }
        if let Some(p) = &self.path {
            write!(f, "{p}: ")?;
        }
        let what = match self.kind {
            ErrorKind::Io => "error",
            ErrorKind::Range => "numeric conversion not representable (NC_ERANGE)",
            ErrorKind::Char => "attempt to convert between text and numbers (NC_ECHAR)",
            ErrorKind::NotFound => "variable not found (NC_ENOTVAR)",
            ErrorKind::Convention => "convention not followed",
        };
        write!(f, "{what}: {}", self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self.source.as_ref()? {
            Source::Io(e) => Some(e),
            Source::H5(e) => Some(e),
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A numeric type netCDF reads into: `byte` (`i8`), `ubyte` (`u8`), `short`, `ushort`, `int`,
/// `uint`, `int64`, `uint64`, `float` (`f32`), `double` (`f64`).
pub trait Numeric: sealed::Sealed + H5Type + Copy + fmt::Debug + PartialEq {
    /// netCDF's name of the type.
    const NC_NAME: &'static str;
}

macro_rules! numeric {
    ($($t:ty => $name:literal),*) => {$(
        impl sealed::Sealed for $t {}
        impl Numeric for $t {
            const NC_NAME: &'static str = $name;
        }
    )*};
}

numeric!(i8 => "byte", u8 => "ubyte", i16 => "short", u16 => "ushort", i32 => "int",
    u32 => "uint", i64 => "int64", u64 => "uint64", f32 => "float", f64 => "double");

/// A dimension of a variable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dimension {
    /// The dimension's name.
    pub name: String,
    /// Its current length.
    pub len: u64,
    /// Whether it is unlimited (a record dimension).
    pub unlimited: bool,
}

/// The values of a read with the netCDF conversion, and those out of range.
#[derive(Clone, Debug, PartialEq)]
pub struct Converted<T> {
    /// Every value read (out-of-range ones hold the destination's nearest bound, or for NaN
    /// the conversion engine's default).
    pub values: Vec<T>,
    /// The positions in `values` of the values out of range, increasing.
    pub out_of_range: Vec<usize>,
    /// The index vectors in the variable of the values out of range, in the same order.
    pub out_of_range_at: Vec<Vec<u64>>,
}

impl<T: Numeric> Converted<T> {
    /// The values, or a range error naming the offending ones.
    pub fn into_result(self) -> Result<Vec<T>> {
        if self.out_of_range.is_empty() {
            return Ok(self.values);
        }
        let shown: Vec<String> = self
            .out_of_range_at
            .iter()
            .take(8)
            .map(|c| {
                let c: Vec<String> = c.iter().map(u64::to_string).collect();
                format!("[{}]", c.join(", "))
            })
            .collect();
        let more = if self.out_of_range.len() > 8 {
            ", ..."
        } else {
            ""
        };
        let mut e = Error::new(
            ErrorKind::Range,
            format!(
                "{} value(s) out of range of {} ({}), at {}{more} (the other values were converted)",
                self.out_of_range.len(),
                T::NC_NAME,
                std::any::type_name::<T>(),
                shown.join(", ")
            ),
        );
        e.positions = self.out_of_range;
        Err(e)
    }
}

/// A netCDF-4 file.
#[derive(Clone, Debug)]
pub struct NcFile {
    file: h5::File,
    reader: File,
    names: HashMap<u64, String>,
}

impl NcFile {
    /// Open a netCDF-4 file.
    pub fn open(path: impl AsRef<Path>) -> Result<NcFile> {
        NcFile::new(h5::File::open(path)?)
    }

    /// A netCDF view of an open HDF5 file, as it is now (what is written to `file` later is
    /// not seen).
    pub fn new(file: h5::File) -> Result<NcFile> {
        let reader = file.inner()?;
        let names = reader
            .walk()?
            .into_iter()
            .map(|(p, a, _)| (a.0, p))
            .collect();
        Ok(NcFile {
            file,
            reader,
            names,
        })
    }

    /// The HDF5 file.
    pub fn file(&self) -> &h5::File {
        &self.file
    }

    /// The path of every variable (datasets, but not those standing for dimensions without
    /// a coordinate variable), in name order.
    pub fn variables(&self) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for (p, _, kind) in self.reader.walk()? {
            if kind != ObjectKind::Dataset {
                continue;
            }
            let ds = self.reader.dataset(&p)?;
            if !is_dimension_only(&ds) {
                out.push(p.trim_start_matches('/').to_string());
            }
        }
        out.sort();
        Ok(out)
    }

    /// The variable at `path` (a name in the root group, or a path through groups).
    pub fn variable(&self, path: &str) -> Result<Variable> {
        let full = if path.starts_with('/') {
            path.to_string()
        } else {
            format!("/{path}")
        };
        let ds = match self.reader.dataset(&full) {
            Ok(d) => d,
            Err(e) if e.kind() == h5_io::ErrorKind::NotFound => {
                return Err(Error::new(
                    ErrorKind::NotFound,
                    format!("no variable {path:?}"),
                ))
            }
            Err(e) => return Err(e.into()),
        };
        let dims = self.dimensions_of(&ds).map_err(|e| e.at(&full))?;
        Ok(Variable { ds, dims })
    }

    fn dimensions_of(&self, ds: &Dataset) -> Result<Vec<Dimension>> {
        let shape = ds.shape();
        let space = ds.dataspace();
        let dim = |k: usize, name: String| Dimension {
            name,
            len: shape.get(k).copied().unwrap_or(0),
            unlimited: space.is_unlimited(k),
        };
        let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
        match ds.attr("DIMENSION_LIST") {
            Ok(a) => {
                let lists: Vec<VarLenArray<ObjectRef>> = a.read()?;
                if lists.len() != shape.len() {
                    return Err(Error::new(
                        ErrorKind::Convention,
                        format!(
                            "DIMENSION_LIST has {} entries for {} dimensions",
                            lists.len(),
                            shape.len()
                        ),
                    ));
                }
                lists
                    .iter()
                    .enumerate()
                    .map(|(k, refs)| {
                        let r = refs.first().ok_or_else(|| {
                            Error::new(
                                ErrorKind::Convention,
                                format!("DIMENSION_LIST entry {k} is empty"),
                            )
                        })?;
                        let p = self.names.get(&r.addr()).ok_or_else(|| {
                            Error::new(
                                ErrorKind::Convention,
                                format!(
                                    "DIMENSION_LIST entry {k} refers to an object at {:#x} not reachable from the root",
                                    r.addr()
                                ),
                            )
                        })?;
                        Ok(dim(k, base(p)))
                    })
                    .collect()
            }
            Err(e) if e.kind() == h5_io::ErrorKind::NotFound => {
                if shape.len() == 1 && is_scale(ds) {
                    Ok(vec![dim(0, base(ds.path()))])
                } else {
                    Ok((0..shape.len())
                        .map(|k| dim(k, format!("phony_dim_{k}")))
                        .collect())
                }
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The rows of the ragged array `var`, by its `row_index` attribute (section 3.4).
    pub fn ragged_rows<T: Numeric>(&self, var: &str) -> Result<Vec<Vec<T>>> {
        self.ragged_rows_with(var, ROW_INDEX)
    }

    /// The rows of the ragged array `var`, by the attribute `attr` naming the variable that
    /// holds each row's start.
    pub fn ragged_rows_with<T: Numeric>(&self, var: &str, attr: &str) -> Result<Vec<Vec<T>>> {
        let data = self.variable(var)?;
        let f = || -> Result<Vec<Vec<T>>> {
            let a = data.ds.attr(attr).map_err(|e| {
                let mut x = Error::from(e);
                x.kind = ErrorKind::Convention;
                x
            })?;
            let index_name = attribute_text(&a)?;
            let index = self.sibling(&data, &index_name).map_err(|e| {
                Error::new(
                    ErrorKind::Convention,
                    format!("attribute {attr:?} names the variable {index_name:?}: {e}"),
                )
            })?;
            ensure_rank1(&data)?;
            ensure_rank1(&index)?;
            let starts: Vec<i64> = index.read(NcForm::Whole).map_err(|e| e.at(index.path()))?;
            let values: Vec<T> = data.read(NcForm::Whole)?;
            let len = values.len() as i64;
            let mut rows = Vec::with_capacity(starts.len());
            for (i, &s) in starts.iter().enumerate() {
                let end = starts.get(i + 1).copied().unwrap_or(len);
                if s < 0 || s > end || end > len {
                    return Err(Error::new(
                        ErrorKind::Convention,
                        format!(
                            "row {i} of {var:?} spans [{s}, {end}) by {index_name:?}: row starts must be non-decreasing and within the {len} values"
                        ),
                    ));
                }
                rows.push(values[s as usize..end as usize].to_vec());
            }
            Ok(rows)
        };
        f().map_err(|e| e.at(data.path()))
    }

    /// The rows of the CF contiguous ragged array `var`: the count variable is the one whose
    /// `sample_dimension` attribute names `var`'s dimension.
    pub fn cf_contiguous_rows<T: Numeric>(&self, var: &str) -> Result<Vec<Vec<T>>> {
        let data = self.variable(var)?;
        let f = || -> Result<Vec<Vec<T>>> {
            ensure_rank1(&data)?;
            let dim = data
                .dims
                .first()
                .map(|d| d.name.clone())
                .unwrap_or_default();
            let mut count_var = None;
            for name in self.variables()? {
                let v = self.reader.dataset(&format!("/{name}"))?;
                if let Ok(a) = v.attr(SAMPLE_DIMENSION) {
                    if attribute_text(&a)? == dim {
                        count_var = Some(name);
                        break;
                    }
                }
            }
            let count_var = count_var.ok_or_else(|| {
                Error::new(
                    ErrorKind::Convention,
                    format!("no variable has {SAMPLE_DIMENSION} = {dim:?}"),
                )
            })?;
            let counts: Vec<i64> = self.variable(&count_var)?.read(NcForm::Whole)?;
            let values: Vec<T> = data.read(NcForm::Whole)?;
            let mut rows = Vec::with_capacity(counts.len());
            let mut at = 0usize;
            for (i, &c) in counts.iter().enumerate() {
                let end = usize::try_from(c)
                    .ok()
                    .and_then(|c| at.checked_add(c))
                    .filter(|&e| e <= values.len())
                    .ok_or_else(|| {
                        Error::new(
                            ErrorKind::Convention,
                            format!(
                                "row {i} of {count_var:?} has count {c}: counts must be non-negative and sum to at most the {} values",
                                values.len()
                            ),
                        )
                    })?;
                rows.push(values[at..end].to_vec());
                at = end;
            }
            Ok(rows)
        };
        f().map_err(|e| e.at(data.path()))
    }

    /// A variable in the same group as `v`.
    fn sibling(&self, v: &Variable, name: &str) -> Result<Variable> {
        if name.starts_with('/') {
            return self.variable(name);
        }
        let parent = v.path().rsplit_once('/').map(|(p, _)| p).unwrap_or("");
        self.variable(&format!("{parent}/{name}"))
    }
}

fn ensure_rank1(v: &Variable) -> Result<()> {
    if v.dims.len() == 1 {
        Ok(())
    } else {
        Err(Error::new(
            ErrorKind::Convention,
            format!(
                "{}: a ragged array's variables have one dimension, not {}",
                v.path(),
                v.dims.len()
            ),
        ))
    }
}

/// The text of a string attribute (fixed or variable length, up to its first NUL).
fn attribute_text(a: &h5_io::Attribute) -> Result<String> {
    let (raw, dt) = a.read_raw();
    let bytes = string_bytes(a.file(), &dt, &raw).map_err(|_| {
        Error::new(
            ErrorKind::Convention,
            format!("attribute {:?} is {dt}, not a string", a.name()),
        )
    })?;
    match bytes.as_slice() {
        [one] => Ok(String::from_utf8_lossy(one).trim_end().to_string()),
        _ => Err(Error::new(
            ErrorKind::Convention,
            format!(
                "attribute {:?} holds {} strings, not one",
                a.name(),
                bytes.len()
            ),
        )),
    }
}

fn string_attr_starts(ds: &Dataset, name: &str, prefix: &str) -> bool {
    ds.attr(name)
        .ok()
        .and_then(|a| attribute_text(&a).ok())
        .is_some_and(|t| t.starts_with(prefix))
}

fn is_scale(ds: &Dataset) -> bool {
    string_attr_starts(ds, "CLASS", "DIMENSION_SCALE")
}

fn is_dimension_only(ds: &Dataset) -> bool {
    is_scale(ds) && string_attr_starts(ds, "NAME", NOT_A_VARIABLE)
}

/// A variable of a netCDF-4 file.
#[derive(Clone, Debug)]
pub struct Variable {
    ds: Dataset,
    dims: Vec<Dimension>,
}

/// The corner, edge lengths and strides of an access, on a variable of shape `shape`.
fn section(form: &NcForm<'_>, shape: &[u64]) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
    let r = shape.len();
    match *form {
        NcForm::Whole => (vec![0; r], shape.to_vec(), vec![1; r]),
        NcForm::Element { index } => (index.to_vec(), vec![1; r], vec![1; r]),
        NcForm::Section { start, count } => (start.to_vec(), count.to_vec(), vec![1; r]),
        NcForm::Subsampled {
            start,
            count,
            stride,
        } => (start.to_vec(), count.to_vec(), stride.to_vec()),
        NcForm::Mapped {
            start,
            count,
            stride,
            ..
        } => (
            start.to_vec(),
            count.to_vec(),
            stride.map_or_else(|| vec![1; r], <[u64]>::to_vec),
        ),
    }
}

impl Variable {
    /// The variable's path in the file.
    pub fn path(&self) -> &str {
        self.ds.path()
    }

    /// The variable's name.
    pub fn name(&self) -> &str {
        let p = self.ds.path();
        p.rsplit('/').next().unwrap_or(p)
    }

    /// The HDF5 dataset.
    pub fn dataset(&self) -> &Dataset {
        &self.ds
    }

    /// The dimensions, slowest varying first.
    pub fn dims(&self) -> &[Dimension] {
        &self.dims
    }

    /// The current shape.
    pub fn shape(&self) -> Vec<u64> {
        self.ds.shape()
    }

    /// The datatype as stored.
    pub fn datatype(&self) -> &Datatype {
        self.ds.datatype()
    }

    /// Whether the variable is text (netCDF `char`: one-byte fixed strings).
    pub fn is_text(&self) -> bool {
        matches!(self.ds.datatype(), Datatype::String(s) if !s.is_variable() && self.ds.datatype().size() == 1)
    }

    /// Read with netCDF's conversion, failing with a range error ([`ErrorKind::Range`],
    /// naming the offending values) when values are out of the range of `T`.
    pub fn read<T: Numeric>(&self, form: NcForm<'_>) -> Result<Vec<T>> {
        self.read_converted(form)?
            .into_result()
            .map_err(|e| e.at(self.path()))
    }

    /// Read with netCDF's conversion: every value converted, those out of the range of `T`
    /// listed.
    pub fn read_converted<T: Numeric>(&self, form: NcForm<'_>) -> Result<Converted<T>> {
        self.read_converted_impl(form)
            .map_err(|e| e.at(self.path()))
    }

    fn read_converted_impl<T: Numeric>(&self, form: NcForm<'_>) -> Result<Converted<T>> {
        let dt = self.ds.datatype();
        match dt {
            Datatype::Integer(_) | Datatype::Float(_) | Datatype::Enum(_) => {}
            Datatype::String(_) => {
                return Err(Error::new(
                    ErrorKind::Char,
                    format!("the variable is text ({dt}), read as {}", T::NC_NAME),
                ))
            }
            other => {
                return Err(Error::new(
                    ErrorKind::Char,
                    format!("the variable's type {other} is not numeric"),
                ))
            }
        }
        let space = self.ds.dataspace();
        let acc = nc_access(space, form, NcMode::Read).map_err(h5_io::Error::from)?;
        let raw = self.ds.read_raw_selection(&acc.file, &acc.memory)?;
        let esize = dt.size();
        let n = raw.len().checked_div(esize).unwrap_or(0);
        let target = T::h5_type();
        let conv = Converter::new(dt, &target)?;
        let mut out = vec![0u8; n.saturating_mul(target.size())];
        let mut opts = ConversionOptions::netcdf();
        let r = conv.convert(&raw, &mut out, n, &mut opts);
        let positions = opts.report.range_errors.clone();
        match r {
            Err(e) if positions.is_empty() => return Err(e.into()),
            _ => {}
        }
        let values = decode_slice::<T>(&out, &VarLenHeap::new())?;
        // Index vectors of the accessed elements, by memory position.
        let (start, count, stride) = section(&form, space.dims());
        let imap = match form {
            NcForm::Mapped { imap: Some(m), .. } => Some(m.to_vec()),
            _ => None,
        };
        let mut at: HashMap<usize, Vec<u64>> = HashMap::new();
        if !positions.is_empty() {
            let wanted: std::collections::HashSet<usize> = positions.iter().copied().collect();
            let total: u64 = count.iter().product();
            let rank = count.len();
            let mut idx = vec![0u64; rank];
            for seq in 0..total {
                let pos = match &imap {
                    Some(m) => idx.iter().zip(m).map(|(i, m)| i * m).sum::<u64>(),
                    None => seq,
                } as usize;
                if wanted.contains(&pos) {
                    let coords = (0..rank).map(|k| start[k] + idx[k] * stride[k]).collect();
                    at.insert(pos, coords);
                }
                for k in (0..rank).rev() {
                    idx[k] += 1;
                    if idx[k] < count[k] {
                        break;
                    }
                    idx[k] = 0;
                }
            }
        }
        // Positions the access does not reach (gaps of a mapped section hold the fill value)
        // are not values of the variable.
        let mut out_of_range = Vec::new();
        let mut out_of_range_at = Vec::new();
        for p in positions {
            if let Some(c) = at.remove(&p) {
                out_of_range.push(p);
                out_of_range_at.push(c);
            }
        }
        Ok(Converted {
            values,
            out_of_range,
            out_of_range_at,
        })
    }

    /// Every value (`nc_get_var`).
    pub fn get_var<T: Numeric>(&self) -> Result<Vec<T>> {
        self.read(NcForm::Whole)
    }

    /// One value by its index vector (`nc_get_var1`).
    pub fn get_var1<T: Numeric>(&self, index: &[u64]) -> Result<T> {
        let mut v = self.read::<T>(NcForm::Element { index })?;
        v.pop()
            .ok_or_else(|| Error::new(ErrorKind::Io, "no value at that index").at(self.path()))
    }

    /// An array section (`nc_get_vara`).
    pub fn get_vara<T: Numeric>(&self, start: &[u64], count: &[u64]) -> Result<Vec<T>> {
        self.read(NcForm::Section { start, count })
    }

    /// A subsampled array section (`nc_get_vars`).
    pub fn get_vars<T: Numeric>(
        &self,
        start: &[u64],
        count: &[u64],
        stride: &[u64],
    ) -> Result<Vec<T>> {
        self.read(NcForm::Subsampled {
            start,
            count,
            stride,
        })
    }

    /// A mapped array section (`nc_get_varm`): the result has as many elements as the map
    /// reaches (the largest offset plus one); elements the map skips hold the fill value.
    pub fn get_varm<T: Numeric>(
        &self,
        start: &[u64],
        count: &[u64],
        stride: Option<&[u64]>,
        imap: &[u64],
    ) -> Result<Vec<T>> {
        self.read(NcForm::Mapped {
            start,
            count,
            stride,
            imap: Some(imap),
        })
    }

    /// The strings of a variable-length string variable (netCDF-4 `string`), by any access
    /// form (elements a mapped section skips are empty).
    pub fn read_strings(&self, form: NcForm<'_>) -> Result<Vec<String>> {
        let f = || -> Result<Vec<String>> {
            let dt = self.ds.datatype();
            if !matches!(dt, Datatype::String(s) if s.is_variable()) {
                return Err(Error::new(
                    ErrorKind::Char,
                    format!("the variable is {dt}, not a string variable"),
                ));
            }
            let acc =
                nc_access(self.ds.dataspace(), form, NcMode::Read).map_err(h5_io::Error::from)?;
            let raw = self.ds.read_raw_selection(&acc.file, &acc.memory)?;
            let bytes = string_bytes(self.ds.file(), dt, &raw)
                .map_err(|e| Error::new(ErrorKind::Io, e.to_string()))?;
            bytes
                .into_iter()
                .enumerate()
                .map(|(i, b)| {
                    String::from_utf8(b).map_err(|_| {
                        Error::new(
                            ErrorKind::Convention,
                            format!("string {i} is not UTF-8 (netCDF strings are)"),
                        )
                    })
                })
                .collect()
        };
        f().map_err(|e| e.at(self.path()))
    }

    /// The characters of a text variable (netCDF `char`), by any access form.
    pub fn read_text(&self, form: NcForm<'_>) -> Result<Vec<u8>> {
        let f = || -> Result<Vec<u8>> {
            if !self.is_text() {
                return Err(Error::new(
                    ErrorKind::Char,
                    format!("the variable is {}, not text", self.ds.datatype()),
                ));
            }
            let acc =
                nc_access(self.ds.dataspace(), form, NcMode::Read).map_err(h5_io::Error::from)?;
            Ok(self.ds.read_raw_selection(&acc.file, &acc.memory)?)
        };
        f().map_err(|e| e.at(self.path()))
    }
}
