//! The error type of the datatype layer.

use std::fmt;

/// What went wrong, as a matchable code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An argument is outside what the property allows (a zero size, a precision past the
    /// size, a rank of 0 or above 32...).
    InvalidArgument,
    /// The operation does not apply to this datatype class.
    WrongClass,
    /// A name is already used by another compound or enum member.
    DuplicateName,
    /// An enum value is already used by another member.
    DuplicateValue,
    /// A compound member would overlap another, or extend past the compound's size.
    Overlap,
    /// A member name or index does not exist.
    NotFound,
    /// The datatype cannot be modified this way (for example a class that is read-only).
    Immutable,
    /// The DDL text could not be parsed.
    Syntax,
    /// The operation is valid in HDF5 but not supported by this implementation.
    Unsupported,
    /// No conversion path exists between the two datatypes.
    NoConversionPath,
    /// A conversion raised an exception the policy turns into an error.
    ConversionException,
    /// A caller-provided buffer is too small or misaligned for the datatype.
    BufferSize,
}

impl ErrorKind {
    fn describe(self) -> &'static str {
        match self {
            ErrorKind::InvalidArgument => "invalid argument",
            ErrorKind::WrongClass => "wrong datatype class",
            ErrorKind::DuplicateName => "duplicate name",
            ErrorKind::DuplicateValue => "duplicate value",
            ErrorKind::Overlap => "overlapping member",
            ErrorKind::NotFound => "not found",
            ErrorKind::Immutable => "immutable datatype",
            ErrorKind::Syntax => "syntax error",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::NoConversionPath => "no conversion path",
            ErrorKind::ConversionException => "conversion exception",
            ErrorKind::BufferSize => "buffer size",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    /// Byte position in a DDL text, when the error comes from parsing.
    position: Option<usize>,
    message: String,
}

/// An error of the datatype layer: a kind, a message, and for DDL text the byte position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(Box<Inner>);

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of `kind` with a message.
    #[cold]
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error(Box::new(Inner {
            kind,
            position: None,
            message: message.into(),
        }))
    }

    /// A new error of `kind` at byte `position` of a text.
    #[cold]
    pub fn at(kind: ErrorKind, position: usize, message: impl Into<String>) -> Self {
        Error(Box::new(Inner {
            kind,
            position: Some(position),
            message: message.into(),
        }))
    }

    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The byte position in the DDL text, for parse errors.
    pub fn position(&self) -> Option<usize> {
        self.0.position
    }

    /// The message, without kind or position.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The same error with its position moved by `delta` bytes (for nested parsers).
    #[must_use]
    pub fn with_position(mut self, position: usize) -> Self {
        self.0.position = Some(position);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.0.kind.describe(), self.0.message)?;
        if let Some(p) = self.0.position {
            write!(f, " at byte {p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Return early with an [`Error`] of the given kind and a formatted message.
#[macro_export]
macro_rules! bail {
    ($kind:ident, $($arg:tt)+) => {
        return ::core::result::Result::Err($crate::Error::new($crate::ErrorKind::$kind, format!($($arg)+)))
    };
}

/// Return early with an [`Error`] unless the condition holds.
#[macro_export]
macro_rules! ensure {
    ($cond:expr, $kind:ident, $($arg:tt)+) => {
        if !$cond {
            $crate::bail!($kind, $($arg)+);
        }
    };
}
