//! [`Error`]: the one error type of the facade, with a matchable [`ErrorKind`], the object
//! path it concerns, the file offset for malformed files, and the lower layer's error as its
//! [`source`](std::error::Error::source).

use std::fmt;

/// What went wrong, as a matchable code.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("h5-errkind-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// # let path = dir.join("kinds.h5");
/// let f = h5::File::create(&path)?;
/// f.create_group("g")?;
/// match f.dataset("g") {
///     Err(e) if e.kind() == h5::ErrorKind::WrongKind => {} // a group, not a dataset
///     other => panic!("{other:?}"),
/// }
/// assert_eq!(f.dataset("missing").unwrap_err().kind(), h5::ErrorKind::NotFound);
/// # Ok::<(), h5::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An operating-system I/O error (opening a directory, a missing file, a failed write).
    Io,
    /// The file is malformed (see [`Error::offset`] and the source).
    Format,
    /// No object, link or attribute of that name.
    NotFound,
    /// A name already exists where a new one was to be created.
    AlreadyExists,
    /// The object is not of the kind asked for (a group where a dataset was expected...).
    WrongKind,
    /// A write to a file opened read-only.
    ReadOnly,
    /// Values cannot be converted between the file's and the memory's datatype, or a strict
    /// conversion would lose information.
    Conversion,
    /// An argument is not valid: a shape, a selection, a builder option, a buffer of the
    /// wrong size.
    InvalidInput,
    /// A feature of the format this library does not read or write.
    Unsupported,
    /// A filter failed or is not available.
    Filter,
    /// A link cannot be followed (a loop, external links not allowed, a user-defined link).
    Link,
    /// A size or count exceeds what the library accepts or memory can hold.
    LimitExceeded,
    /// The file was closed (explicitly, or after an earlier failure).
    Closed,
    /// The file is in use: locked by another process, or marked open for writing by its
    /// superblock (a writer still running, or one that stopped without closing it: `h5 clear`
    /// resets the mark). A file a SWMR writer writes opens with `OpenOptions::swmr`.
    InUse,
}

impl ErrorKind {
    fn describe(self) -> &'static str {
        match self {
            ErrorKind::Io => "i/o error",
            ErrorKind::Format => "malformed file",
            ErrorKind::NotFound => "not found",
            ErrorKind::AlreadyExists => "already exists",
            ErrorKind::WrongKind => "wrong object kind",
            ErrorKind::ReadOnly => "file is read-only",
            ErrorKind::Conversion => "conversion failed",
            ErrorKind::InvalidInput => "invalid input",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Filter => "filter error",
            ErrorKind::Link => "link error",
            ErrorKind::LimitExceeded => "limit exceeded",
            ErrorKind::Closed => "file closed",
            ErrorKind::InUse => "file in use",
        }
    }
}

type Source = Box<dyn std::error::Error + Send + Sync + 'static>;

#[derive(Debug)]
struct Inner {
    kind: ErrorKind,
    path: Option<String>,
    offset: Option<u64>,
    message: String,
    source: Option<Source>,
}

/// An error of any layer: `"/group/dataset: kind: message"`, with the cause as its source.
pub struct Error(Box<Inner>);

/// Result with the facade's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error.
    #[cold]
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error(Box::new(Inner {
            kind,
            path: None,
            offset: None,
            message: message.into(),
            source: None,
        }))
    }

    #[cold]
    fn caused(
        kind: ErrorKind,
        path: Option<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Error {
        Error(Box::new(Inner {
            kind,
            path,
            offset: None,
            message: String::new(),
            source: Some(Box::new(source)),
        }))
    }

    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The object path the error concerns, when known.
    pub fn path(&self) -> Option<&str> {
        self.0.path.as_deref()
    }

    /// For a malformed file: the file offset of the structure that failed to parse.
    pub fn offset(&self) -> Option<u64> {
        if self.0.offset.is_some() {
            return self.0.offset;
        }
        let mut cur: Option<&(dyn std::error::Error + 'static)> = self
            .0
            .source
            .as_ref()
            .map(|s| s.as_ref() as &(dyn std::error::Error + 'static));
        while let Some(e) = cur {
            if let Some(f) = e.downcast_ref::<h5_format::Error>() {
                return f.offset();
            }
            cur = e.source();
        }
        None
    }

    /// The datatype layer's error, when one is the cause (a conversion that failed).
    pub fn datatype_error(&self) -> Option<&h5_types::Error> {
        let mut cur: Option<&(dyn std::error::Error + 'static)> = self
            .0
            .source
            .as_ref()
            .map(|s| s.as_ref() as &(dyn std::error::Error + 'static));
        while let Some(e) = cur {
            if let Some(t) = e.downcast_ref::<h5_types::Error>() {
                return Some(t);
            }
            cur = e.source();
        }
        None
    }

    /// For a conversion that failed on one element (a strict read): the element's index in
    /// the order the values are read.
    pub fn element(&self) -> Option<usize> {
        self.datatype_error()?.element()
    }

    /// For a strict read: what would have been lost.
    pub fn loss(&self) -> Option<h5_types::Loss> {
        self.datatype_error()?.loss()
    }

    /// The same error, naming the object path it concerns (kept if one is set already).
    #[cold]
    #[must_use]
    pub fn at(mut self, path: impl Into<String>) -> Error {
        if self.0.path.is_none() {
            self.0.path = Some(path.into());
        }
        self
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?}: {self})", self.0.kind)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.0.path {
            write!(f, "{p}: ")?;
        }
        if !self.0.message.is_empty() {
            write!(f, "{}: {}", self.0.kind.describe(), self.0.message)
        } else if let Some(s) = &self.0.source {
            // The lower layer's error says what went wrong (its own kind and message); its
            // path is the same object's, so it is not repeated.
            match s.downcast_ref::<h5_io::Error>() {
                Some(io) if io.path().is_some() && self.0.path.is_some() => {
                    write!(f, "{}", strip_path(&io.to_string(), io.path()))
                }
                _ => match s.downcast_ref::<h5_io::write::Error>() {
                    Some(w) if w.path().is_some() && self.0.path.is_some() => {
                        write!(f, "{}", strip_path(&w.to_string(), w.path()))
                    }
                    _ => write!(f, "{s}"),
                },
            }
        } else {
            write!(f, "{}", self.0.kind.describe())
        }
    }
}

fn strip_path<'a>(text: &'a str, path: Option<&str>) -> &'a str {
    match path {
        Some(p) => text
            .strip_prefix(p)
            .and_then(|t| t.strip_prefix(": "))
            .unwrap_or(text),
        None => text,
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

impl From<h5_io::Error> for Error {
    fn from(e: h5_io::Error) -> Error {
        use h5_io::ErrorKind as K;
        let kind = match e.kind() {
            K::Io => ErrorKind::Io,
            K::Format | K::Raw => ErrorKind::Format,
            K::NotFound => ErrorKind::NotFound,
            K::WrongKind => ErrorKind::WrongKind,
            K::Unsupported => ErrorKind::Unsupported,
            K::Filter => ErrorKind::Filter,
            K::Selection | K::InvalidArgument => ErrorKind::InvalidInput,
            K::Datatype => ErrorKind::Conversion,
            K::Link => ErrorKind::Link,
            K::LimitExceeded => ErrorKind::LimitExceeded,
            K::InUse => ErrorKind::InUse,
            _ => ErrorKind::Format,
        };
        let path = e.path().map(str::to_owned);
        Error::caused(kind, path, e)
    }
}

impl From<h5_io::write::Error> for Error {
    fn from(e: h5_io::write::Error) -> Error {
        use h5_io::write::ErrorKind as K;
        let kind = match e.kind() {
            K::Io => ErrorKind::Io,
            K::NotFound => ErrorKind::NotFound,
            K::AlreadyExists => ErrorKind::AlreadyExists,
            K::InvalidArgument | K::BufferSize => ErrorKind::InvalidInput,
            K::Conversion => ErrorKind::Conversion,
            K::Filter => ErrorKind::Filter,
            K::LimitExceeded => ErrorKind::LimitExceeded,
            K::Unsupported => ErrorKind::Unsupported,
            K::Format => ErrorKind::Format,
            K::Closed => ErrorKind::Closed,
            K::InUse => ErrorKind::InUse,
            _ => ErrorKind::Unsupported,
        };
        let path = e.path().map(str::to_owned);
        Error::caused(kind, path, e)
    }
}

impl From<h5_types::Error> for Error {
    fn from(e: h5_types::Error) -> Error {
        let kind = match e.kind() {
            h5_types::ErrorKind::NotFound => ErrorKind::NotFound,
            h5_types::ErrorKind::BufferSize => ErrorKind::InvalidInput,
            _ => ErrorKind::Conversion,
        };
        Error::caused(kind, None, e)
    }
}

impl From<h5_format::Error> for Error {
    fn from(e: h5_format::Error) -> Error {
        let offset = e.offset();
        let mut err = Error::caused(ErrorKind::Format, None, e);
        err.0.offset = offset;
        err
    }
}

impl From<h5_io::selection::Error> for Error {
    fn from(e: h5_io::selection::Error) -> Error {
        Error::caused(ErrorKind::InvalidInput, None, e)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::caused(ErrorKind::Io, None, e)
    }
}

/// `Err(Error::new(kind, format!(...)))`.
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
