//! [`File`]: the one entry point for reading, creating and modifying files.

use std::ops::Deref;
use std::path::Path;
use std::sync::Arc;

use crate::write::{FileFormat, WritableFile, WriteResult};

/// An HDF5 file.
///
/// [`File::open`] opens a file for reading; every reading method of [`h5_io::File`] (groups,
/// datasets, attributes, links, references) is available on it through `Deref`.
/// [`File::create`], [`File::create_with`] and [`File::open_rw`] give a [`WritableFile`], the
/// writer's handle.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("h5-file-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// # let path = dir.join("doc.h5");
/// let w = h5::File::create(&path)?;
/// w.new_dataset::<i32>().shape(&[3]).create("x")?.write(&[1, 2, 3])?;
/// w.close()?;
///
/// let rw = h5::File::open_rw(&path)?;
/// rw.new_attr::<f64>().create("scale")?.write(&[0.5])?;
/// rw.close()?;
///
/// let f = h5::File::open(&path)?;
/// assert_eq!(f.dataset("x")?.read::<i32>()?, [1, 2, 3]);
/// assert_eq!(f.attr("scale")?.read_scalar::<f64>()?, 0.5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct File(h5_io::File);

impl File {
    /// Open the file at `path` for reading, with default options.
    pub fn open(path: impl AsRef<Path>) -> crate::read::Result<File> {
        h5_io::File::open(path).map(File)
    }

    /// Open the file at `path` for reading.
    pub fn open_with(
        path: impl AsRef<Path>,
        options: crate::read::OpenOptions,
    ) -> crate::read::Result<File> {
        h5_io::File::open_with(path, options).map(File)
    }

    /// A file held in memory, for reading.
    pub fn from_bytes(bytes: impl Into<Arc<[u8]>>) -> crate::read::Result<File> {
        h5_io::File::from_bytes(bytes).map(File)
    }

    /// Create (or truncate) a file in the widest-compatible format
    /// ([`FileFormat::Compatible`]) and return the writer's handle.
    pub fn create(path: impl AsRef<Path>) -> WriteResult<WritableFile> {
        WritableFile::create(path)
    }

    /// Create (or truncate) a file in the given format.
    pub fn create_with(path: impl AsRef<Path>, format: FileFormat) -> WriteResult<WritableFile> {
        WritableFile::create_with(path, format)
    }

    /// Open an existing file for writing, whatever format it uses. See
    /// [`WritableFile::open_rw`] for how.
    pub fn open_rw(path: impl AsRef<Path>) -> WriteResult<WritableFile> {
        WritableFile::open_rw(path)
    }

    /// The reader's file.
    pub fn inner(&self) -> &h5_io::File {
        &self.0
    }

    /// The reader's file, by value.
    pub fn into_inner(self) -> h5_io::File {
        self.0
    }
}

impl Deref for File {
    type Target = h5_io::File;
    fn deref(&self) -> &h5_io::File {
        &self.0
    }
}

impl AsRef<h5_io::File> for File {
    fn as_ref(&self) -> &h5_io::File {
        &self.0
    }
}

impl From<h5_io::File> for File {
    fn from(f: h5_io::File) -> File {
        File(f)
    }
}

impl From<File> for h5_io::File {
    fn from(f: File) -> h5_io::File {
        f.0
    }
}
