//! Where the commands' files come from: a path, or the URL of an object store
//! (`s3://bucket/key`, `gs://`, `az://`, `http(s)://`, `file://`, configured from the
//! environment as `object_store` is: `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP`, ...). Every
//! command opens its input here, so each accepts URLs alike; `--stats` (any command) prints
//! what reading cost to standard error at the end: requests, bytes and cache hits.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use h5::format::storage::{CountingStorage, FileStorage, Storage};
use h5::io::{File, OpenOptions};
use h5::object_store::{self as remote, RemoteOptions, RemoteStorage, Runtime};

static STATS: AtomicBool = AtomicBool::new(false);

/// What was opened, for `--stats`.
enum Opened {
    Remote(String, Arc<RemoteStorage>),
    Local(String, Arc<CountingStorage<FileStorage>>),
}

fn opened() -> &'static Mutex<Vec<Opened>> {
    static OPENED: OnceLock<Mutex<Vec<Opened>>> = OnceLock::new();
    OPENED.get_or_init(|| Mutex::new(Vec::new()))
}

fn keep(o: Opened) {
    if let Ok(mut v) = opened().lock() {
        v.push(o);
    }
}

/// The runtime object-store requests block on, started on first use.
fn runtime() -> Result<&'static Runtime, String> {
    static RT: OnceLock<Runtime> = OnceLock::new();
    if let Some(rt) = RT.get() {
        return Ok(rt);
    }
    let rt = Runtime::new().map_err(|e| format!("starting the object store runtime: {e}"))?;
    Ok(RT.get_or_init(|| rt))
}

/// Take `--stats` out of the arguments; remembers whether it was there.
pub fn take_stats_flag(args: &mut Vec<String>) {
    let before = args.len();
    args.retain(|a| a != "--stats");
    if args.len() != before {
        STATS.store(true, Ordering::Relaxed);
    }
}

/// Whether `name` is a URL rather than a path.
pub fn is_url(name: &str) -> bool {
    remote::is_url(name)
}

/// Open the HDF5 file `name` (a path or a URL) for reading.
pub fn open(name: &str, options: OpenOptions) -> Result<File, String> {
    if is_url(name) {
        let r = remote::open_url_with(name, options, runtime()?, RemoteOptions::default())
            .map_err(|e| e.to_string())?;
        keep(Opened::Remote(name.to_string(), r.storage.clone()));
        return Ok(r.file);
    }
    if STATS.load(Ordering::Relaxed) && Path::new(name).is_file() {
        let s = Arc::new(CountingStorage::new(
            FileStorage::open(name).map_err(|e| format!("{name}: {e}"))?,
        ));
        keep(Opened::Local(name.to_string(), s.clone()));
        return File::open_storage_at(s, name, options).map_err(|e| e.to_string());
    }
    File::open_with(name, options).map_err(|e| e.to_string())
}

/// The bytes of `name` (a path or a URL) as a storage, for the checker's walk.
pub fn storage(name: &str) -> Result<Arc<dyn Storage>, String> {
    if is_url(name) {
        let opts = RemoteOptions::default();
        let resolver = remote::ObjectStoreResolver::new(runtime()?.clone(), opts.clone());
        let object = resolver.open_object(name).map_err(|e| e.to_string())?;
        let s = Arc::new(RemoteStorage::with_sizes(
            object,
            opts.page_size,
            opts.cache_bytes,
        ));
        keep(Opened::Remote(name.to_string(), s.clone()));
        return Ok(s);
    }
    let f = FileStorage::open(name).map_err(|e| e.to_string())?;
    if STATS.load(Ordering::Relaxed) {
        let s = Arc::new(CountingStorage::new(f));
        keep(Opened::Local(name.to_string(), s.clone()));
        return Ok(s);
    }
    Ok(Arc::new(f))
}

/// With `--stats`: one line per file opened, to standard error.
pub fn print_stats() {
    if !STATS.load(Ordering::Relaxed) {
        return;
    }
    let Ok(v) = opened().lock() else { return };
    for o in v.iter() {
        match o {
            Opened::Remote(name, s) => {
                let (hits, misses) = s.hits_and_misses();
                let st = s.inner().stats();
                eprintln!(
                    "{name}: {} requests, {} bytes, {hits} cache hits, {misses} cache misses",
                    st.requests, st.bytes
                );
            }
            Opened::Local(name, s) => {
                let c = s.counts();
                eprintln!(
                    "{name}: {} requests, {} bytes, 0 cache hits, 0 cache misses",
                    c.reads, c.bytes
                );
            }
        }
    }
}
