//! Helpers shared by the writer tests (`write_seed.rs`, `write_features.rs`): the two file
//! formats, scratch paths, and h5py / h5dump as judges.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use h5::FileFormat;

/// Every writer test runs in both formats.
pub const FORMATS: [FileFormat; 2] = [FileFormat::Compatible, FileFormat::Latest];

/// A scratch path `NAME-FORMAT.h5` in a per-process directory named after `suite`.
pub fn tmp_in(suite: &str, name: &str, format: FileFormat) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("h5-{suite}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{name}-{format:?}.h5"))
}

/// Run a Python snippet with `f` = the file opened by h5py; its stdout, or `None` when h5py
/// is unavailable (the test then skips, unless oracles are required).
pub fn py(path: &Path, body: &str) -> Option<String> {
    let exe = h5_oracle::require("h5py", h5_oracle::h5py())?;
    let script =
        format!("import sys, h5py, numpy as np\nf = h5py.File(sys.argv[1], 'r')\n{body}\n");
    let out = h5_oracle::run(&exe, &["-c", &script, path.to_str().unwrap()], b"")
        .unwrap_or_else(|e| panic!("h5py failed on {}: {e}", path.display()));
    Some(String::from_utf8(out).unwrap())
}

/// h5dump's output (exit status 0 required).
pub fn dump(path: &Path, args: &[&str]) -> Option<String> {
    let exe = h5_oracle::require("h5dump", h5_oracle::tool("h5dump"))?;
    let mut all: Vec<&str> = args.to_vec();
    all.push(path.to_str().unwrap());
    let out = h5_oracle::run(&exe, &all, b"")
        .unwrap_or_else(|e| panic!("h5dump failed on {}: {e}", path.display()));
    Some(String::from_utf8(out).unwrap())
}

/// Every snippet appears in `text`, compared modulo indentation.
pub fn assert_contains(text: &str, snippets: &[&str]) {
    let norm = |s: &str| s.lines().map(str::trim).collect::<Vec<_>>().join("\n");
    let t = norm(text);
    for s in snippets {
        assert!(t.contains(&norm(s)), "missing:\n{s}\nin:\n{text}");
    }
}
