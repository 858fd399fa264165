//! `h5 refs` against the readers of kerchunk references: for files written by h5py (every
//! chunk index, the filters numcodecs reads, groups, attributes, dimension scales, strings,
//! a user block, and data references cannot express), our references, opened with fsspec's
//! `ReferenceFileSystem` and zarr, and with xarray and dask, give h5py's values for every
//! array, from the local file and from moto's S3 server; and they equal kerchunk's own
//! (`SingleHdf5ToZarr`) key by key, after normalisation (metadata compared as JSON, an
//! inline chunk equal to a range holding the same bytes), except where listed in
//! [`KERCHUNK_DIFFERS`] with the reason.
//!
//! The readers live in a virtual environment of their own, made by `cargo xtask
//! install-oracles` (`xtask/src/oracle_refs.rs`); the Python side is `refs_interop.py`, the
//! files come from `refs_fixtures.py`.

use std::path::{Path, PathBuf};
use std::process::Command;

use h5_oracle::moto::MotoServer;

/// Keep in step with `REFS_ORACLE_TAG` in `xtask/src/oracle_refs.rs`.
const REFS_ORACLE_TAG: &str = "kerchunk-0.2.10-1";
const FILES: &[&str] = &["earliest.h5", "latest.h5", "userblock.h5"];
const BUCKET: &str = "h5-refs-test";

/// Objects whose references differ from kerchunk's, and why (in every file holding them).
const KERCHUNK_DIFFERS: &[(&str, &str)] = &[
    (
        "/grp/compact_big",
        "a compact dataset of 500 bytes or more: kerchunk writes no chunk (it reads as the \
         fill value); we inline the data, which has no byte range of its own",
    ),
    (
        "/grp/fletcher",
        "Fletcher-32: kerchunk refuses the filter (or inlines datasets under 500 bytes); we \
         reference each chunk without its 4-byte checksum",
    ),
    (
        "/plugins/bzip2",
        "bzip2: numcodecs' bz2 reads HDF5's bzip2 frames; kerchunk does not map the filter",
    ),
];

/// Datasets `h5 refs` must skip (with a reason), in every file holding them.
const SKIPPED: &[&str] = &[
    "/grp/lzf",
    "/grp/scaleoffset",
    "/plugins/lz4",
    "/plugins/bitshuffle",
];

fn python() -> Result<PathBuf, String> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let p = home
        .join(".cache/h5-oracles")
        .join(format!("refs-{REFS_ORACLE_TAG}"))
        .join("bin/python");
    if p.is_file() {
        Ok(p)
    } else {
        Err(format!(
            "{} not found (cargo xtask install-oracles makes it)",
            p.display()
        ))
    }
}

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

fn h5(args: &[&str], env: &[(&str, String)]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_h5"))
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "h5 {args:?}: {stderr}");
    (String::from_utf8_lossy(&out.stdout).into_owned(), stderr)
}

/// Run the Python side; its report, per file name.
fn check(
    py: &Path,
    mode: &str,
    pairs: &[(PathBuf, PathBuf)],
    dir: &Path,
    env: &[(&str, String)],
) -> serde_json::Value {
    let list = dir.join(format!("pairs-{mode}.json"));
    let body: Vec<String> = pairs
        .iter()
        .map(|(h, r)| {
            format!(
                "[{:?}, {:?}]",
                h.display().to_string(),
                r.display().to_string()
            )
        })
        .collect();
    std::fs::write(&list, format!("[{}]", body.join(","))).unwrap();
    let out = Command::new(py)
        .arg(tests_dir().join("refs_interop.py"))
        .arg(mode)
        .arg(&list)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "refs_interop.py {mode}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("report: {e}"))
}

fn fixtures(dir: &Path) -> Option<()> {
    let py = h5_oracle::require("h5py", h5_oracle::h5py())?;
    let script = tests_dir().join("refs_fixtures.py");
    h5_oracle::require(
        "h5py fixtures",
        h5_oracle::run(&py, &[script.to_str()?, dir.to_str()?], &[]).map(|_| ()),
    )
}

/// The values every reader gave equal h5py's, for as many arrays as the references hold.
fn assert_values(report: &serde_json::Value, refs: &serde_json::Value, what: &str) {
    let arrays = refs["refs"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| k.ends_with(".zarray"))
        .count() as u64;
    assert!(arrays > 10, "{what}: only {arrays} arrays");
    assert_eq!(report["mismatches"], serde_json::json!([]), "{what}");
    assert_eq!(report["zarr_checked"].as_u64(), Some(arrays), "{what}");
    // climate/{x, y, mask, temp}
    assert_eq!(
        report["xarray_checked"].as_u64(),
        Some(4),
        "{what}: {report}"
    );
}

#[test]
fn references_read_as_h5py_reads_and_agree_with_kerchunk() {
    let Some(py) = h5_oracle::require("kerchunk, fsspec, zarr and xarray", python()) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("h5-refs-interop-{}", std::process::id()));
    let Some(()) = fixtures(&dir) else { return };
    let plugins = h5_oracle::h5py()
        .ok()
        .and_then(|p| h5_oracle::run(&p, &["-c", "import hdf5plugin"], &[]).ok())
        .is_some();

    // Data references cannot express: skipped with the reason, the rest written.
    let file = dir.join("unsupported.h5");
    let (json, stderr) = h5(&["refs", file.to_str().unwrap()], &[]);
    for (object, reason) in [
        ("/grp/compound", "compound data"),
        ("/grp/vlen_ints", "variable-length sequence data"),
        ("/grp/refs", "reference data"),
    ] {
        assert!(
            stderr.contains(&format!("{object}: skipped: {reason}")),
            "{object}: {stderr}"
        );
    }
    let refs: serde_json::Value = serde_json::from_str(&json).unwrap();
    let keys: Vec<&String> = refs["refs"].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            ".zattrs",
            ".zgroup",
            "grp/.zattrs",
            "grp/.zgroup",
            "x/.zarray",
            "x/.zattrs",
            "x/0"
        ]
    );

    // Local files.
    let mut pairs = Vec::new();
    let mut local_refs = Vec::new();
    for name in FILES {
        let file = dir.join(name);
        let out = dir.join(format!("{name}.json"));
        let (_, stderr) = h5(
            &["refs", file.to_str().unwrap(), "-o", out.to_str().unwrap()],
            &[],
        );
        let refs: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        for s in SKIPPED {
            let in_file = *name != "userblock.h5" && (plugins || !s.starts_with("/plugins"));
            assert_eq!(
                stderr.contains(&format!("{s}: skipped: ")),
                in_file,
                "{name} {s}: {stderr}"
            );
            let key = format!("{}/.zarray", s.trim_start_matches('/'));
            assert!(refs["refs"].get(&key).is_none(), "{name}: {key} written");
        }
        pairs.push((file, out));
        local_refs.push(refs);
    }
    let report = check(&py, "local", &pairs, &dir, &[]);
    for (name, refs) in FILES.iter().zip(&local_refs) {
        let r = &report[*name];
        eprintln!(
            "{name}: zarr {} arrays, xarray {} variables, {} objects compared with kerchunk",
            r["zarr_checked"], r["xarray_checked"], r["kerchunk_compared"]
        );
        if *name != "userblock.h5" {
            assert_values(r, refs, name);
        } else {
            assert_eq!(r["mismatches"], serde_json::json!([]), "{name}");
        }
        let diffs = r["kerchunk_diffs"].as_object().unwrap();
        for (object, why) in diffs {
            assert!(
                KERCHUNK_DIFFERS.iter().any(|(o, _)| o == object),
                "{name} {object}: ours and kerchunk's differ: {why}"
            );
        }
        if *name != "userblock.h5" {
            for (object, _) in KERCHUNK_DIFFERS {
                if plugins || !object.starts_with("/plugins") {
                    assert!(
                        diffs.contains_key(*object),
                        "{name} {object}: no longer differs"
                    );
                }
            }
        }
        assert!(r["kerchunk_compared"].as_u64().unwrap_or(0) >= 3, "{name}");
    }

    // The same files in moto's S3 server: references naming s3:// URLs, made from the
    // bucket and read from it.
    let Some(server) = h5_oracle::require("moto server", MotoServer::start()) else {
        return;
    };
    server.create_bucket(BUCKET).unwrap();
    let env = [
        ("AWS_ENDPOINT_URL", server.endpoint()),
        ("AWS_ALLOW_HTTP", "true".to_string()),
        ("AWS_ACCESS_KEY_ID", "test".to_string()),
        ("AWS_SECRET_ACCESS_KEY", "test".to_string()),
        ("AWS_REGION", "us-east-1".to_string()),
    ];
    let mut pairs = Vec::new();
    for (name, local) in FILES.iter().zip(&local_refs) {
        let file = dir.join(name);
        server
            .put(BUCKET, name, &std::fs::read(&file).unwrap())
            .unwrap();
        let url = format!("s3://{BUCKET}/{name}");
        let (json, _) = h5(&["refs", &url], &env);
        let refs: serde_json::Value = serde_json::from_str(&json).unwrap();
        // The same references as the local file's, but for the URL.
        let local_url = file.to_str().unwrap();
        let renamed = serde_json::to_string(local).unwrap().replace(
            &serde_json::to_string(local_url).unwrap(),
            &serde_json::to_string(&url).unwrap(),
        );
        assert_eq!(
            refs,
            serde_json::from_str::<serde_json::Value>(&renamed).unwrap(),
            "{url}"
        );
        let out = dir.join(format!("{name}.s3.json"));
        std::fs::write(&out, json).unwrap();
        pairs.push((file, out));
    }
    let report = check(&py, "s3", &pairs, &dir, &env);
    for (name, refs) in FILES.iter().zip(&local_refs) {
        let r = &report[*name];
        eprintln!(
            "s3 {name}: zarr {} arrays, xarray {} variables",
            r["zarr_checked"], r["xarray_checked"]
        );
        if *name != "userblock.h5" {
            assert_values(r, refs, &format!("s3 {name}"));
        } else {
            assert_eq!(r["mismatches"], serde_json::json!([]), "s3 {name}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
