//! The error type of the format layer: what is wrong, in which structure, at which file offset.

use std::fmt;

/// What went wrong, as a matchable code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The data ended before the structure did.
    UnexpectedEof,
    /// A signature (magic bytes) is not the expected one.
    BadSignature,
    /// A version number this implementation does not know.
    UnsupportedVersion,
    /// A stored checksum does not match the computed one.
    ChecksumMismatch,
    /// A field has a value the specification does not allow.
    InvalidValue,
    /// A size, count or depth exceeds a limit of `limits.rs` or the file's length.
    LimitExceeded,
    /// An address points outside the file or is undefined where one is required.
    BadAddress,
    /// A feature the specification defines that this implementation does not support.
    Unsupported,
    /// The datatype model rejected a decoded datatype.
    Datatype,
}

impl ErrorKind {
    /// A short lower-case description ("checksum mismatch", "bad address", ...).
    pub fn describe(self) -> &'static str {
        match self {
            ErrorKind::UnexpectedEof => "unexpected end of data",
            ErrorKind::BadSignature => "bad signature",
            ErrorKind::UnsupportedVersion => "unsupported version",
            ErrorKind::ChecksumMismatch => "checksum mismatch",
            ErrorKind::InvalidValue => "invalid value",
            ErrorKind::LimitExceeded => "limit exceeded",
            ErrorKind::BadAddress => "bad address",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Datatype => "invalid datatype",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    /// The structure being parsed ("superblock", "object header", "v1 B-tree node"...).
    structure: &'static str,
    /// Absolute file offset where the problem was found.
    offset: Option<u64>,
    message: String,
}

/// An error of the format layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(Box<Inner>);

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error in `structure` at absolute file `offset`.
    #[cold]
    pub fn new(
        kind: ErrorKind,
        structure: &'static str,
        offset: u64,
        message: impl Into<String>,
    ) -> Self {
        Error(Box::new(Inner {
            kind,
            structure,
            offset: Some(offset),
            message: message.into(),
        }))
    }

    /// A new error without a file offset (for example from encoding).
    #[cold]
    pub fn without_offset(
        kind: ErrorKind,
        structure: &'static str,
        message: impl Into<String>,
    ) -> Self {
        Error(Box::new(Inner {
            kind,
            structure,
            offset: None,
            message: message.into(),
        }))
    }

    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The structure being parsed.
    pub fn structure(&self) -> &'static str {
        self.0.structure
    }

    /// The absolute file offset of the problem, if known.
    pub fn offset(&self) -> Option<u64> {
        self.0.offset
    }

    /// The message, without kind, structure or offset.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The same error attributed to an enclosing structure when it had none.
    #[must_use]
    pub fn in_structure(mut self, structure: &'static str) -> Self {
        if self.0.structure.is_empty() {
            self.0.structure = structure;
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {}",
            self.0.structure,
            self.0.kind.describe(),
            self.0.message
        )?;
        if let Some(o) = self.0.offset {
            write!(f, " at {o:#x}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

impl From<h5_types::Error> for Error {
    fn from(e: h5_types::Error) -> Self {
        Error::without_offset(ErrorKind::Datatype, "datatype message", e.to_string())
    }
}

/// Return early with a format [`Error`]: `bail!(Kind, structure, offset, "fmt", args..)`.
#[macro_export]
macro_rules! bail {
    ($kind:ident, $structure:expr, $offset:expr, $($arg:tt)+) => {
        return ::core::result::Result::Err($crate::Error::new(
            $crate::ErrorKind::$kind, $structure, $offset, format!($($arg)+)))
    };
}

/// Return early with a format [`Error`] unless the condition holds.
#[macro_export]
macro_rules! ensure {
    ($cond:expr, $kind:ident, $structure:expr, $offset:expr, $($arg:tt)+) => {
        if !$cond {
            $crate::bail!($kind, $structure, $offset, $($arg)+);
        }
    };
}
