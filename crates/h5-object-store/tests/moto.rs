//! Reading from a real S3 server on 127.0.0.1 (moto's): files written by h5py, stored in a
//! bucket, opened with `open_url("s3://...")` configured from the environment; every
//! dataset's bytes equal the local file's, external links are followed in the bucket, the
//! server's request log agrees with our counters, and a replaced object is an error.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use h5_io::{File, ObjectKind, OpenOptions};
use h5_object_store::object_store::{self, ObjectStoreExt};
use h5_oracle::moto::MotoServer;

const BUCKET: &str = "h5-test";
const FILES: &[&str] = &["latest.h5", "earliest.h5"];

fn fixtures(dir: &Path) -> Option<()> {
    let py = h5_oracle::require("h5py", h5_oracle::h5py())?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures.py");
    h5_oracle::require(
        "h5py fixtures",
        h5_oracle::run(&py, &[script.to_str()?, dir.to_str()?], &[]).map(|_| ()),
    )
}

/// Every dataset's raw bytes, by path.
fn contents(f: &File) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (path, _, kind) in f.walk().unwrap() {
        if kind == ObjectKind::Dataset {
            let (raw, _) = f.dataset(&path).unwrap().read_raw().unwrap();
            out.push((path, raw));
        }
    }
    out
}

#[test]
fn files_in_s3_read_as_the_local_files() {
    let Some(server) = h5_oracle::require("moto server", MotoServer::start()) else {
        return;
    };
    let dir: PathBuf = std::env::temp_dir().join(format!("h5-object-store-{}", std::process::id()));
    let Some(()) = fixtures(&dir) else { return };
    server.create_bucket(BUCKET).unwrap();
    for name in FILES {
        server
            .put(BUCKET, name, &std::fs::read(dir.join(name)).unwrap())
            .unwrap();
    }
    // Configured from the environment, as object_store configures itself. (This is the
    // only test of the binary that touches the environment.)
    for (k, v) in [
        ("AWS_ENDPOINT_URL", server.endpoint().as_str()),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_REGION", "us-east-1"),
    ] {
        std::env::set_var(k, v);
    }
    let opts = OpenOptions::new().external_links(true);
    for name in FILES {
        let url = format!("s3://{BUCKET}/{name}");
        let before = server.requests().len();
        let remote = h5_object_store::open_url(&url, opts.clone()).unwrap();
        let local = File::open_with(dir.join(name), opts.clone()).unwrap();
        let got = contents(&remote.file);
        assert!(!got.is_empty());
        assert_eq!(got, contents(&local), "{url}");
        // The server saw exactly the requests we counted.
        let logged: Vec<_> = server.requests()[before..].to_vec();
        let stats = remote.stats();
        assert!(
            logged.iter().all(|(m, p, s)| (m == "GET" || m == "HEAD")
                && p.starts_with(&format!("/{BUCKET}/"))
                && (*s == 200 || *s == 206)),
            "{logged:?}"
        );
        assert_eq!(stats.requests, logged.len() as u64, "{url}: {logged:?}");
        eprintln!("{url}: {stats:?}");
        assert!(stats.cache_hits > stats.cache_misses, "{url}: {stats:?}");
    }
    // An external link into the same bucket.
    let remote =
        h5_object_store::open_url(&format!("s3://{BUCKET}/earliest.h5"), opts.clone()).unwrap();
    let s = remote.file.dataset("/link/strings").unwrap();
    let local = File::open(dir.join("latest.h5")).unwrap();
    assert_eq!(
        s.read_raw().unwrap().0,
        local
            .dataset("/g/sub/strings")
            .unwrap()
            .read_raw()
            .unwrap()
            .0
    );
    // The object replaced after open: an error, never a mix of two versions.
    let remote =
        h5_object_store::open_url(&format!("s3://{BUCKET}/latest.h5"), opts.clone()).unwrap();
    let mut changed = std::fs::read(dir.join("latest.h5")).unwrap();
    changed.extend_from_slice(&[0u8; 1 << 20]);
    // (moto refuses unsigned overwrites: the store's own client signs this one.)
    let url = url::Url::parse(&format!("s3://{BUCKET}/latest.h5")).unwrap();
    let env: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| k.starts_with("AWS_"))
        .map(|(k, v)| (k.to_ascii_lowercase(), v))
        .collect();
    let (store, path) = object_store::parse_url_opts(&url, env).unwrap();
    let rt = h5_object_store::Runtime::new().unwrap();
    rt.block_on(store.put(&path, object_store::PutPayload::from(changed)))
        .unwrap()
        .unwrap();
    let mut errors = Vec::new();
    for (path, _, kind) in File::open(dir.join("latest.h5")).unwrap().walk().unwrap() {
        if kind == ObjectKind::Dataset {
            if let Err(e) = remote.file.dataset(&path).and_then(|d| d.read_raw()) {
                errors.push(e.to_string());
            }
        }
    }
    assert!(
        errors
            .iter()
            .any(|e| e.contains("changed since it was opened")),
        "{errors:?}"
    );
    // A missing object.
    let e = h5_object_store::open_url(&format!("s3://{BUCKET}/missing.h5"), opts).unwrap_err();
    assert!(e.to_string().contains("missing.h5"), "{e}");
    let _ = Arc::strong_count(&remote.storage);
    let _ = std::fs::remove_dir_all(&dir);
}
