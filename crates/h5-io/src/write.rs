//! Writing HDF5 files: an in-memory model of a file's objects, serialized with h5-format's
//! encoders.
//!
//! Every object header gets its address when the object is created and keeps it (so object
//! references can be taken at once). Metadata (the superblock, headers, heaps, B-trees, chunk
//! indexes) lives in memory as blocks and is written at each [`FileWriter::flush`]; raw data
//! (contiguous storage, chunks) goes to the file as it is written and is not kept in memory.
//! Heaps, B-trees, symbol table nodes, chunk indexes and chunks are rebuilt at a flush when
//! they changed, copy-on-write: never over a block the file on disk references, always in new
//! space (from an in-memory free list of space earlier flushes freed, or at the end of the
//! file). A flush writes the new blocks first, then the superblock, then the headers that
//! changed in place, one write each, so that a write error at any point leaves a file the
//! reference library reads, each object as the previous flush or this one left it (see
//! [`FileWriter::flush`]). Between flushes the file's metadata is the previous flush's.
//!
//! Two formats: [`FileFormat::Compatible`] (superblock version 0, version 1 object headers,
//! symbol-table groups, version 3 layouts with version 1 B-tree chunk indexes; readable by the
//! reference library 1.8 and later) and [`FileFormat::Latest`] (superblock version 3, version 2
//! object headers, link messages or dense link storage, version 3 attribute messages or dense
//! attribute storage, version 4 layouts with the single-chunk, implicit, fixed array,
//! extensible array and version 2 B-tree chunk indexes chosen as the reference library
//! chooses them; readable by 1.10 and later).
//!
//! Groups with more than eight links and objects with more than eight attributes (or an
//! attribute too big for a header message) use dense storage in version 2 headers: a
//! fractal heap of any size (laid out as the reference library lays it out, huge objects
//! over 4 KiB included) indexed by version 2 B-trees. Link and attribute creation order can
//! be tracked and indexed ([`GroupOptions`], [`CreationOrder`]); as in the reference library,
//! a group tracking link creation order is a link-message group in the compatible format
//! too, and an object tracking attribute creation order gets a version 2 header (with dense
//! attribute storage) in either format. Without it, the compatible format keeps attributes
//! in version 1 headers, where one attribute message holds 65535 bytes at most.
//!
//! Existing files: [`FileWriter::open_rw`] modifies a file where it is (objects keep their
//! addresses; only what changes is written; see its documentation for what is refused and
//! when the file is rewritten whole instead), and [`copy_file`] copies everything the
//! reader opened into a writer (what `h5 repack` and [`FileWriter::open_rewritten`] do).
//!
//! Object management ([`FileWriter::unlink`], [`FileWriter::rename`],
//! [`FileWriter::delete_attribute`], [`FileWriter::rename_attribute`],
//! [`FileWriter::copy_object`], [`FileWriter::object_at`]): links are removed and moved in
//! the model, and an object whose last hard link goes is freed with what it holds, its space
//! reused by later writes once a flush has stopped referencing it (see the `manage` module).
//!
//! The API works with object ids ([`ObjId`]); the `h5` crate wraps them in handles.

mod attribute;
mod btree2;
mod chunk_index;
mod copy;
mod dataset;
mod extents;
mod file;
mod group;
mod heap;
mod inplace;
mod manage;
pub mod paged;
mod reference;
mod space;
mod status;
mod value;

pub use copy::{copy_file, CopyOptions, CopyReport, DatasetHook, DEFAULT_MAX_READ};
pub use dataset::{AllocTime, DatasetSpec, FillTime, StorageSpec};
pub use file::{FileFormat, FileWriter, ObjId, ObjectKind};
pub use group::{CreationOrder, GroupOptions, LinkSpec};
pub use status::{clear_status_flags, clear_status_flags_with, DEFAULT_EOA_INCREMENT};

use std::fmt;

/// What went wrong while writing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An operating-system I/O error.
    Io,
    /// A name or path does not exist.
    NotFound,
    /// A name already exists.
    AlreadyExists,
    /// An argument is not valid (bad path, shape, selection, type...).
    InvalidArgument,
    /// Data does not have the size or shape the operation needs.
    BufferSize,
    /// A datatype conversion failed.
    Conversion,
    /// A filter failed.
    Filter,
    /// A structure would exceed what the format or the chosen format version can store.
    LimitExceeded,
    /// The operation is not supported (by the format chosen, or not yet by this writer).
    Unsupported,
    /// An encoder of h5-format failed.
    Format,
    /// The writer was closed after an earlier failure.
    Closed,
    /// The file is in use: locked by another process, or marked open for writing by its
    /// superblock (see `crate::ErrorKind::InUse`).
    InUse,
}

impl ErrorKind {
    fn describe(self) -> &'static str {
        match self {
            ErrorKind::Io => "i/o error",
            ErrorKind::NotFound => "not found",
            ErrorKind::AlreadyExists => "already exists",
            ErrorKind::InvalidArgument => "invalid argument",
            ErrorKind::BufferSize => "buffer size",
            ErrorKind::Conversion => "conversion failed",
            ErrorKind::Filter => "filter failed",
            ErrorKind::LimitExceeded => "limit exceeded",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Format => "format error",
            ErrorKind::Closed => "closed",
            ErrorKind::InUse => "file in use",
        }
    }
}

#[derive(Debug, Clone)]
struct Inner {
    kind: ErrorKind,
    path: Option<String>,
    message: String,
    /// The lower layer's error this one wraps (its text is also the message).
    source: Option<std::sync::Arc<dyn std::error::Error + Send + Sync + 'static>>,
}

/// An error of the writer: a kind, the object path it concerns (when known) and a message.
#[derive(Debug, Clone)]
pub struct Error(Box<Inner>);

/// The writer's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error.
    #[cold]
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error(Box::new(Inner {
            kind,
            path: None,
            message: message.into(),
            source: None,
        }))
    }

    /// A new error with a message, caused by `source`.
    #[cold]
    pub fn with_source(
        kind: ErrorKind,
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        let mut e = Error::new(kind, message);
        e.0.source = Some(std::sync::Arc::new(source));
        e
    }

    /// A new error caused by `source` (whose text is the message).
    #[cold]
    pub fn caused_by(
        kind: ErrorKind,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        let mut e = Error::new(kind, source.to_string());
        e.0.source = Some(std::sync::Arc::new(source));
        e
    }

    /// The same error, naming the object path it concerns (kept if already set).
    #[cold]
    #[must_use]
    pub fn at_path(mut self, path: &str) -> Self {
        if self.0.path.is_none() {
            self.0.path = Some(path.to_owned());
        }
        self
    }

    /// The kind.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The object path, when known.
    pub fn path(&self) -> Option<&str> {
        self.0.path.as_deref()
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.0.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.0.path {
            write!(f, "{p}: ")?;
        }
        write!(f, "{}: {}", self.0.kind.describe(), self.0.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0
            .source
            .as_deref()
            .map(|s| s as &(dyn std::error::Error + 'static))
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::caused_by(ErrorKind::Io, e)
    }
}

impl From<h5_format::Error> for Error {
    fn from(e: h5_format::Error) -> Self {
        Error::caused_by(ErrorKind::Format, e)
    }
}

impl From<h5_types::Error> for Error {
    fn from(e: h5_types::Error) -> Self {
        let kind = match e.kind() {
            h5_types::ErrorKind::BufferSize => ErrorKind::BufferSize,
            h5_types::ErrorKind::NotFound => ErrorKind::NotFound,
            _ => ErrorKind::Conversion,
        };
        Error::caused_by(kind, e)
    }
}

impl From<crate::filter::Error> for Error {
    fn from(e: crate::filter::Error) -> Self {
        Error::caused_by(ErrorKind::Filter, e)
    }
}

impl From<crate::selection::Error> for Error {
    fn from(e: crate::selection::Error) -> Self {
        Error::caused_by(ErrorKind::InvalidArgument, e)
    }
}

macro_rules! bail {
    ($kind:ident, $($arg:tt)*) => {
        return Err($crate::write::Error::new($crate::write::ErrorKind::$kind, format!($($arg)*)))
    };
}
macro_rules! ensure {
    ($cond:expr, $kind:ident, $($arg:tt)*) => {
        if !$cond {
            $crate::write::bail!($kind, $($arg)*);
        }
    };
}
pub(crate) use {bail, ensure};

#[cfg(test)]
mod crash_tests;
#[cfg(test)]
mod tests;
