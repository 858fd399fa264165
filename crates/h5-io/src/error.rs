//! The error type of the file layer: what went wrong, at which object path, and the error of
//! the layer below (format, raw read, filter, selection, datatype) that caused it.

use std::fmt;

/// What went wrong, as a matchable code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file could not be opened or read (an operating system error).
    Io,
    /// A structure of the file is malformed (see the underlying format error).
    Format,
    /// A read of the file's bytes failed (outside the file, undefined address).
    Raw,
    /// No object, link or attribute of that name.
    NotFound,
    /// The object is not of the kind asked for (a group where a dataset was expected...).
    WrongKind,
    /// A feature of the format this reader does not support.
    Unsupported,
    /// A filter failed or is not available.
    Filter,
    /// A selection is invalid for the dataset.
    Selection,
    /// The file type cannot be converted to the memory type, or a value did not decode.
    Datatype,
    /// A link cannot be followed (a loop, too many soft links, external links not allowed,
    /// a user-defined link).
    Link,
    /// A size or count exceeds what this reader accepts (or memory can hold).
    LimitExceeded,
    /// An argument from the caller is invalid.
    InvalidArgument,
    /// The file is shorter than the end of file address its superblock stores (see
    /// [`crate::file::OpenOptions::allow_truncated`]).
    Truncated,
    /// The file is in use: locked by another process (see [`crate::lock`]), or its superblock
    /// marks it open for writing (a writer still running, or one that stopped without closing
    /// the file: `h5 clear` resets the mark, as the reference library's `h5clear -s` does).
    InUse,
}

impl ErrorKind {
    fn describe(self) -> &'static str {
        match self {
            ErrorKind::Io => "i/o error",
            ErrorKind::Format => "malformed file",
            ErrorKind::Raw => "read error",
            ErrorKind::NotFound => "not found",
            ErrorKind::WrongKind => "wrong object kind",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Filter => "filter error",
            ErrorKind::Selection => "invalid selection",
            ErrorKind::Datatype => "datatype error",
            ErrorKind::Link => "link error",
            ErrorKind::LimitExceeded => "limit exceeded",
            ErrorKind::InvalidArgument => "invalid argument",
            ErrorKind::Truncated => "truncated file",
            ErrorKind::InUse => "file in use",
        }
    }
}

type Source = Box<dyn std::error::Error + Send + Sync + 'static>;

#[derive(Debug)]
struct Inner {
    kind: ErrorKind,
    path: Option<String>,
    message: String,
    source: Option<Source>,
}

/// An error of the file layer: "/group/dataset: kind: message: cause".
pub struct Error(Box<Inner>);

/// Result with the file layer's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error with a message and no path.
    #[cold]
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error(Box::new(Inner {
            kind,
            path: None,
            message: message.into(),
            source: None,
        }))
    }

    /// A new error caused by `source`.
    #[cold]
    pub fn with_source(
        kind: ErrorKind,
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        let mut e = Error::new(kind, message);
        e.0.source = Some(Box::new(source));
        e
    }

    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The object path the error concerns, when known.
    pub fn path(&self) -> Option<&str> {
        self.0.path.as_deref()
    }

    /// The message (without path and cause).
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// Set the object path unless one is set already (the innermost path wins).
    #[cold]
    pub fn at(mut self, path: impl Into<String>) -> Self {
        if self.0.path.is_none() {
            self.0.path = Some(path.into());
        }
        self
    }

    /// The underlying format error, if the cause is one.
    pub fn format_error(&self) -> Option<&h5_format::Error> {
        self.0.source.as_ref()?.downcast_ref()
    }

    /// The underlying datatype-layer error, if the cause is one (for a conversion, it names
    /// the element with [`h5_types::Error::element`] and, for a strict read, the
    /// [`h5_types::Loss`]).
    pub fn datatype_error(&self) -> Option<&h5_types::Error> {
        self.0.source.as_ref()?.downcast_ref()
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({self})")
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.0.path {
            write!(f, "{p}: ")?;
        }
        write!(f, "{}", self.0.kind.describe())?;
        if !self.0.message.is_empty() {
            write!(f, ": {}", self.0.message)?;
        }
        if let Some(s) = &self.0.source {
            write!(f, ": {s}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0
            .source
            .as_ref()
            .map(|s| s.as_ref() as &(dyn std::error::Error + 'static))
    }
}

impl From<h5_format::Error> for Error {
    fn from(e: h5_format::Error) -> Self {
        Error::with_source(ErrorKind::Format, "", e)
    }
}

impl From<crate::raw::RawError> for Error {
    fn from(e: crate::raw::RawError) -> Self {
        Error::with_source(ErrorKind::Raw, "", e)
    }
}

impl From<crate::filter::Error> for Error {
    fn from(e: crate::filter::Error) -> Self {
        Error::with_source(ErrorKind::Filter, "", e)
    }
}

impl From<crate::selection::Error> for Error {
    fn from(e: crate::selection::Error) -> Self {
        Error::with_source(ErrorKind::Selection, "", e)
    }
}

impl From<h5_types::Error> for Error {
    fn from(e: h5_types::Error) -> Self {
        Error::with_source(ErrorKind::Datatype, "", e)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::with_source(ErrorKind::Io, "", e)
    }
}

/// Return early with an [`Error`]: `bail!(Kind, "fmt", args..)`.
macro_rules! bail {
    ($kind:ident, $($arg:tt)+) => {
        return ::core::result::Result::Err($crate::error::Error::new(
            $crate::error::ErrorKind::$kind, format!($($arg)+)))
    };
}
pub(crate) use bail;

/// Return early with an [`Error`] unless the condition holds.
macro_rules! ensure {
    ($cond:expr, $kind:ident, $($arg:tt)+) => {
        if !$cond {
            $crate::error::bail!($kind, $($arg)+);
        }
    };
}
pub(crate) use ensure;
