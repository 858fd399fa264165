//! The error of the netCDF layer.

use std::fmt;

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
    /// `NC_EBADTYPE`: the variable's type does not convert to the one asked for (a numeric
    /// read of an enum, compound, opaque or variable-length variable).
    BadType,
    /// `NC_EMAPTYPE`: a mapped read of a variable of a user type.
    MapType,
    /// A writer call that netCDF refuses: a name already in use (`NC_ENAMEINUSE`), an
    /// unknown dimension (`NC_EBADDIM`), data of the wrong length, a second unlimited
    /// dimension of a variable's shape that netCDF-4 allows but this call does not, ...
    Invalid,
}

/// An error of netCDF access.
pub struct Error {
    pub(crate) kind: ErrorKind,
    path: Option<String>,
    message: String,
    source: Option<Source>,
    pub(crate) positions: Vec<usize>,
    status: Option<i32>,
}

/// The error beneath an [`ErrorKind::Io`] error.
#[derive(Debug)]
pub(crate) enum Source {
    /// The low-level reader's.
    Io(h5_io::Error),
    /// The facade's (opening the file, reaching its reader).
    H5(h5::Error),
}

/// Result with the netCDF [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    #[cold]
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            path: None,
            message: message.into(),
            source: None,
            positions: Vec::new(),
            status: None,
        }
    }

    /// An access error of the selection layer, with its netCDF status.
    #[cold]
    pub(crate) fn selection(e: h5_io::selection::Error) -> Self {
        use h5_io::selection::ErrorKind as K;
        let status = match e.kind() {
            K::InvalidCoords => Some(-40),
            K::Edge => Some(-57),
            K::Stride => Some(-58),
            _ => None,
        };
        let mut x = Error::from(h5_io::Error::from(e));
        x.status = status;
        x
    }

    #[cold]
    pub(crate) fn at(mut self, path: &str) -> Self {
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

    /// The netCDF status code netcdf-c returns for this error (`NC_ERANGE` is -60, ...), when
    /// there is one: the access errors (`NC_EINVALCOORDS`, -40, `NC_EEDGE`, -57,
    /// `NC_ESTRIDE`, -58), and this layer's range (-60), text (`NC_ECHAR`, -56), missing
    /// variable (`NC_ENOTVAR`, -49) and type (`NC_EBADTYPE`, -45) errors.
    pub fn nc_status(&self) -> Option<i32> {
        match self.kind {
            ErrorKind::Range => Some(-60),
            ErrorKind::Char => Some(-56),
            ErrorKind::NotFound => Some(-49),
            ErrorKind::BadType => Some(-45),
            ErrorKind::MapType => Some(-121),
            _ => self.status,
        }
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
            status: None,
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
            ErrorKind::BadType => "not a valid data type or _FillValue type mismatch (NC_EBADTYPE)",
            ErrorKind::Invalid => "invalid argument",
            ErrorKind::MapType => "mapped access for atomic types only (NC_EMAPTYPE)",
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
