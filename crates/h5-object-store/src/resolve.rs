//! Opening the files a remote file names, in the same store.

use std::collections::HashMap;
use std::io;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use h5_format::storage::{FsResolver, Resolver, Storage};
use object_store::path::Path;
use object_store::ObjectStore;
use url::Url;

use crate::runtime::Runtime;
use crate::storage::{store_error, ObjectStorage, RemoteOptions};

/// Opens URLs (`s3://bucket/key`, `gs://`, `az://`, `http(s)://`, `file://`) as
/// [`ObjectStorage`]s, one store per scheme and authority, configured from the environment;
/// other locations (local paths) on the file system. The objects it opens share its request
/// and byte counters.
#[derive(Debug)]
pub struct ObjectStoreResolver {
    rt: Runtime,
    options: RemoteOptions,
    stores: Mutex<HashMap<String, Arc<dyn ObjectStore>>>,
    requests: Arc<AtomicU64>,
    bytes: Arc<AtomicU64>,
}

/// The environment's configuration for `object_store`'s builders: every variable with a
/// prefix they read, lowercased (the builders ignore keys they do not know).
fn env_options() -> Vec<(String, String)> {
    std::env::vars()
        .filter(|(k, _)| {
            ["AWS_", "GOOGLE_", "AZURE_", "OBJECT_STORE_", "HTTP_"]
                .iter()
                .any(|p| k.starts_with(p))
        })
        .map(|(k, v)| (k.to_ascii_lowercase(), v))
        .collect()
}

impl ObjectStoreResolver {
    /// A resolver driving requests on `rt`.
    pub fn new(rt: Runtime, options: RemoteOptions) -> Self {
        ObjectStoreResolver {
            rt,
            options,
            stores: Mutex::new(HashMap::new()),
            requests: Arc::new(AtomicU64::new(0)),
            bytes: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Use `store` for the URLs of `scheme://authority` (a store built by hand: credentials
    /// from elsewhere, a custom client).
    pub fn with_store(self, base_url: &str, store: Arc<dyn ObjectStore>) -> io::Result<Self> {
        let url = parse(base_url)?;
        if let Ok(mut m) = self.stores.lock() {
            m.insert(store_key(&url), store);
        }
        Ok(self)
    }

    fn store(&self, url: &Url) -> io::Result<(Arc<dyn ObjectStore>, Path)> {
        let key = store_key(url);
        let (store, path) = object_store::parse_url_opts(url, env_options())
            .map_err(|e| store_error(url.as_str(), e))?;
        let mut stores = self
            .stores
            .lock()
            .map_err(|_| io::Error::other("the resolver's lock is poisoned"))?;
        let store = stores
            .entry(key)
            .or_insert_with(|| Arc::from(store))
            .clone();
        Ok((store, path))
    }

    /// Open the object at `url`.
    pub fn open_object(&self, url: &str) -> io::Result<Arc<ObjectStorage>> {
        let u = parse(url)?;
        let (store, path) = self.store(&u)?;
        Ok(Arc::new(ObjectStorage::open(
            store,
            path,
            url.to_string(),
            self.rt.clone(),
            self.options.clone(),
            (self.requests.clone(), self.bytes.clone()),
        )?))
    }
}

fn parse(url: &str) -> io::Result<Url> {
    Url::parse(url).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{url}: not a URL ({e})"),
        )
    })
}

/// Which store serves a URL: its scheme and authority.
fn store_key(url: &Url) -> String {
    format!("{}://{}", url.scheme(), url.authority())
}

impl Resolver for ObjectStoreResolver {
    fn open(&self, location: &std::path::Path) -> io::Result<Arc<dyn Storage>> {
        let s = location.to_string_lossy();
        if crate::is_url(&s) {
            Ok(self.open_object(&s)?)
        } else {
            FsResolver.open(location)
        }
    }

    fn exists(&self, location: &std::path::Path) -> bool {
        let s = location.to_string_lossy();
        if !crate::is_url(&s) {
            return FsResolver.exists(location);
        }
        let Ok(u) = parse(&s) else { return false };
        let Ok((store, path)) = self.store(&u) else {
            return false;
        };
        self.requests
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.rt
            .block_on(store.get_opts(&path, object_store::GetOptions::new().with_head(true)))
            .is_ok_and(|r| r.is_ok())
    }
}
