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
    /// A strict conversion ([`ConversionOptions::strict`](crate::convert::ConversionOptions::strict))
    /// met a value the destination cannot hold exactly; [`Error::element`] names the element
    /// and [`Error::loss`] says what would have been lost.
    Lossy,
}

/// What a lossy conversion step would have lost (the reason of an [`ErrorKind::Lossy`]
/// error).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Loss {
    /// A value outside the destination's range: an integer overflow, a float beyond an
    /// integer's range, a finite float that would become infinity.
    Overflow,
    /// A float with a fractional part converted to an integer.
    Fraction,
    /// A NaN or an infinity converted to an integer.
    NotFinite,
    /// A compound member of the destination that the source does not have.
    MissingMember,
    /// A string longer than the destination holds.
    StringTooLong,
    /// An enum value that is no member of the source, or has no destination member.
    NoEnumMember,
    /// Bits of a bitfield beyond the destination's precision that are set.
    BitsDropped,
}

impl Loss {
    /// A short description in lower case.
    pub fn describe(self) -> &'static str {
        match self {
            Loss::Overflow => "value outside the destination's range",
            Loss::Fraction => "fractional part dropped",
            Loss::NotFinite => "NaN or infinity converted to an integer",
            Loss::MissingMember => "destination member missing from the source",
            Loss::StringTooLong => "string longer than the destination",
            Loss::NoEnumMember => "enum value without a member",
            Loss::BitsDropped => "set bits beyond the destination's precision",
        }
    }
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
            ErrorKind::Lossy => "lossy conversion",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    /// Byte position in a DDL text, when the error comes from parsing.
    position: Option<usize>,
    /// The index of the element a conversion or decoding failed on.
    element: Option<usize>,
    /// What a strict conversion would have lost.
    loss: Option<Loss>,
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
            element: None,
            loss: None,
            message: message.into(),
        }))
    }

    /// A new [`ErrorKind::Lossy`] error: converting element `element` would lose what
    /// `loss` says; `message` gives the details.
    #[cold]
    pub fn lossy(element: usize, loss: Loss, message: impl Into<String>) -> Self {
        Error(Box::new(Inner {
            kind: ErrorKind::Lossy,
            position: None,
            element: Some(element),
            loss: Some(loss),
            message: message.into(),
        }))
    }

    /// A new error of `kind` at byte `position` of a text.
    #[cold]
    pub fn at(kind: ErrorKind, position: usize, message: impl Into<String>) -> Self {
        Error(Box::new(Inner {
            kind,
            position: Some(position),
            element: None,
            loss: None,
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

    /// The index of the element a conversion or decoding failed on, when known (counted from
    /// the first element of the buffer or read).
    pub fn element(&self) -> Option<usize> {
        self.0.element
    }

    /// For [`ErrorKind::Lossy`], what the conversion would have lost.
    pub fn loss(&self) -> Option<Loss> {
        self.0.loss
    }

    /// The same error naming element `element`.
    #[must_use]
    pub fn with_element(mut self, element: usize) -> Self {
        self.0.element = Some(element);
        self
    }

    /// The same error with its element index moved on by `by` (for a buffer converted in
    /// pieces, where the piece's first element is element `by` of the whole).
    #[must_use]
    pub fn offset_element(mut self, by: usize) -> Self {
        if let Some(e) = self.0.element.as_mut() {
            *e = e.saturating_add(by);
        }
        self
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
        if let Some(e) = self.0.element {
            write!(f, " at element {e}")?;
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
