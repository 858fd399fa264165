//! Files in any storage, and in object stores (feature `object-store`).

use std::sync::Arc;

use h5_format::storage::Storage;

use crate::{Error, File, OpenOptions, Result};

impl File {
    /// Open the HDF5 file at `url` (`s3://bucket/key`, `gs://`, `az://`, `http(s)://`,
    /// `file://`) for reading, configured from the environment as `object_store` is
    /// (`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`,
    /// `AWS_ALLOW_HTTP`, ...). Its external links and other files it names are looked for in
    /// the same store. See [`h5_object_store`] for the runtime, the request batching and the
    /// counters ([`h5_object_store::open_url`] returns them).
    #[cfg_attr(docsrs, doc(cfg(feature = "object-store")))]
    pub fn open_url(url: &str) -> Result<File> {
        Self::open_url_with(url, OpenOptions::default())
    }

    /// [`File::open_url`] with options.
    #[cfg_attr(docsrs, doc(cfg(feature = "object-store")))]
    pub fn open_url_with(url: &str, options: OpenOptions) -> Result<File> {
        let r = h5_object_store::open_url(url, options).map_err(|e| Error::from(e).at(url))?;
        Ok(File::from_reader(r.file))
    }

    /// Open a file read from any storage (an object store's, a cache, a user's own), read
    /// only.
    #[cfg_attr(docsrs, doc(cfg(feature = "object-store")))]
    pub fn open_storage(storage: Arc<dyn Storage>, options: OpenOptions) -> Result<File> {
        Ok(File::from_reader(h5_io::File::open_storage(
            storage, options,
        )?))
    }
}
