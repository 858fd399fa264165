//! The API's errors: a status code and the message h5grove sends as `{"message": ...}`.

/// An error answered with `status` and `{"message": message}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status code.
    pub status: u16,
    /// The message.
    pub message: String,
}

/// The result of an API operation.
pub type Result<T, E = ApiError> = std::result::Result<T, E>;

impl ApiError {
    /// An error with `status`.
    #[cold]
    pub fn new(status: u16, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    /// 404: what h5grove answers for a missing file, object or unresolvable link.
    #[cold]
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(404, message)
    }

    /// 422: a query argument h5grove refuses (encoding, dtype, link resolution).
    #[cold]
    pub fn query(message: impl Into<String>) -> ApiError {
        ApiError::new(422, message)
    }

    /// 403: a file outside what is served.
    #[cold]
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(403, message)
    }

    /// 500: what h5grove lets escape as an exception (a wrong kind of object, a bad
    /// selection, an unreadable value).
    #[cold]
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(500, message)
    }
}

impl From<h5::Error> for ApiError {
    fn from(e: h5::Error) -> ApiError {
        ApiError::internal(e.to_string())
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status, self.message)
    }
}

impl std::error::Error for ApiError {}
