//! Opening the other files a file names: external links, virtual dataset sources, external
//! raw data files, family and multi members, onion histories.
//!
//! A file names others by path (relative to its own directory, to prefixes from the
//! environment, or absolute). The [`Resolver`] turns such a location into a [`Storage`]: the
//! file system's ([`FsResolver`]) by default; an object store's resolver opens them in the
//! same bucket, so a file read from an object store follows its own links there. Where to
//! look (the reference library's `H5F_prefix_open_file` order) is the caller's; the resolver
//! only says whether a candidate exists and opens it.

use std::fmt;
use std::io;
use std::path::Path;
use std::sync::Arc;

use super::{FileStorage, Storage};

/// Opens the storage at a location a file names.
pub trait Resolver: Send + Sync + fmt::Debug {
    /// Open the file at `location` for reading.
    fn open(&self, location: &Path) -> io::Result<Arc<dyn Storage>>;

    /// Whether `location` names a file that [`Resolver::open`] can be expected to open (a
    /// candidate worth trying; a cheap check, not a promise).
    fn exists(&self, location: &Path) -> bool;
}

/// The file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct FsResolver;

impl Resolver for FsResolver {
    fn open(&self, location: &Path) -> io::Result<Arc<dyn Storage>> {
        Ok(Arc::new(FileStorage::open(location)?))
    }

    fn exists(&self, location: &Path) -> bool {
        FileStorage::is_file(location)
    }
}
