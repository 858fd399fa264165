//! HDF5 files read from object stores: S3, Google Cloud Storage, Azure Blob Storage, HTTP(S)
//! and the local file system, through the [`object_store`] crate.
//!
//! [`ObjectStorage`] is a [`Storage`](h5_format::storage::Storage) over one object: its
//! size and ETag are taken at open and its head (the first [`RemoteOptions::head_bytes`])
//! fetched with them; every later request is conditional on that ETag (`If-Match`), so an
//! object replaced while it is read is an error, never a mix of two versions. A batch of
//! ranges ([`Storage::read_ranges`](h5_format::storage::Storage::read_ranges)) is merged
//! where the gaps are small ([`RemoteOptions::merge_gap`]) up to a size
//! ([`RemoteOptions::merge_cap`]) and fetched concurrently
//! ([`RemoteOptions::concurrency`]). [`RemoteStorage`] puts the page cache of `h5-format`
//! ([`CachedStorage`]) in front, so the metadata of a file comes in a few large requests.
//!
//! [`open_url`] opens `s3://bucket/key` (also `gs://`, `az://`, `abfs://`, `http(s)://`,
//! `file://`), configured from the environment the way `object_store` configures itself
//! (`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`,
//! `AWS_ALLOW_HTTP`, `GOOGLE_SERVICE_ACCOUNT`, `AZURE_STORAGE_ACCOUNT_NAME`, ...). The other
//! files a file names (external links, virtual dataset sources, external raw data) are opened
//! through [`ObjectStoreResolver`]: in the same store, relative to the object's key.
//!
//! ## Blocking
//! The reader is synchronous; each request blocks the calling thread on a Tokio runtime:
//! one this crate starts (two worker threads, [`Runtime::new`]) or one handed to it
//! ([`Runtime::from_handle`], a multi-thread runtime's handle). Called from async code (a
//! thread inside a runtime), the future is driven on a scoped helper thread, so nothing
//! panics; but the calling task's thread is still blocked for the request's duration: call
//! the reader through `tokio::task::spawn_blocking` there.

mod resolve;
mod runtime;
mod storage;

use std::io;
use std::sync::Arc;

use h5_format::storage::CachedStorage;

pub use object_store;
pub use resolve::ObjectStoreResolver;
pub use runtime::Runtime;
pub use storage::{ObjectStorage, RemoteOptions, Stats};

/// An object in a store, behind a page cache: what [`open_url`] reads through.
pub type RemoteStorage = CachedStorage<Arc<ObjectStorage>>;

/// Whether `location` names an object store rather than a local path: it has a URL scheme
/// of two or more letters (`s3://`, `gs://`, `https://`, `file://`...).
pub fn is_url(location: &str) -> bool {
    location.split_once("://").is_some_and(|(scheme, _)| {
        scheme.len() >= 2
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '+')
    })
}

/// A file opened from an object store, and the storage it reads through (for its counters).
#[derive(Debug)]
pub struct Remote {
    /// The file.
    pub file: h5_io::File,
    /// The object, behind its page cache.
    pub storage: Arc<RemoteStorage>,
}

impl Remote {
    /// Requests made, bytes received, and the page cache's hits and misses so far.
    pub fn stats(&self) -> Stats {
        let (hits, misses) = self.storage.hits_and_misses();
        Stats {
            cache_hits: hits,
            cache_misses: misses,
            ..self.storage.inner().stats()
        }
    }
}

/// Open the HDF5 file at `url` with a runtime of its own and the default
/// [`RemoteOptions`]. `options.resolver` is replaced by an [`ObjectStoreResolver`] for the
/// same store unless set.
pub fn open_url(url: &str, options: h5_io::OpenOptions) -> h5_io::Result<Remote> {
    let rt = Runtime::new().map_err(|e| io_error(url, e))?;
    open_url_with(url, options, &rt, RemoteOptions::default())
}

/// [`open_url`] on the runtime `rt`, with `remote` options.
pub fn open_url_with(
    url: &str,
    mut options: h5_io::OpenOptions,
    rt: &Runtime,
    remote: RemoteOptions,
) -> h5_io::Result<Remote> {
    let resolver = Arc::new(ObjectStoreResolver::new(rt.clone(), remote.clone()));
    let object = resolver.open_object(url).map_err(|e| io_error(url, e))?;
    let storage = Arc::new(CachedStorage::with_sizes(
        object,
        remote.page_size,
        remote.cache_bytes,
    ));
    if options.resolver.is_none() {
        options.resolver = Some(resolver);
    }
    let file = h5_io::File::open_storage_at(storage.clone(), url, options)?;
    if remote.file_page_size {
        if let Some(page) = paged_page_size(&file) {
            storage.set_page_size(page).map_err(|e| io_error(url, e))?;
        }
    }
    Ok(Remote { file, storage })
}

/// The page size of a file written with paged aggregation (file space strategy PAGE, from
/// the superblock extension's file space info), if it was.
pub fn paged_page_size(file: &h5_io::File) -> Option<u64> {
    use h5_format::message::fs_info::FileSpaceInfo;
    /// `H5F_FSPACE_STRATEGY_PAGE`.
    const PAGE: u8 = 1;
    match file.superblock_extension()?.file_space_info.as_ref()? {
        FileSpaceInfo::V1 {
            strategy: PAGE,
            page_size,
            ..
        } if *page_size > 0 => Some(*page_size),
        _ => None,
    }
}

fn io_error(url: &str, e: io::Error) -> h5_io::Error {
    h5_io::Error::with_source(h5_io::ErrorKind::Io, format!("opening {url}"), e)
}
