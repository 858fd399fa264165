//! Truncated files: refused at open as the reference library refuses them (h5py's
//! "truncated file: eof = N, ..., stored_eof = M"), with the same sizes; opened anyway with
//! `OpenOptions::allow_truncated` to recover what the remaining bytes hold.

use std::path::{Path, PathBuf};
use std::process::Command;

use h5_io::{ErrorKind, File, OpenOptions};

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("truncated");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// h5py writes `path`: a small dataset first, then a large one (so a cut in the large one's
/// data leaves the superblock, the root group and the small dataset whole).
fn write_with_h5py(py: &Path, path: &Path) {
    let script = r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w", libver="earliest") as f:
    f["small"] = np.arange(10, dtype="<i4")
    f["big"] = np.arange(100000, dtype="<f8")
"#;
    let out = Command::new(py)
        .args(["-c", script, path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What h5py says when opening `path` ("" when it opens).
fn h5py_open_error(py: &Path, path: &Path) -> String {
    let script = r#"
import sys, h5py
try:
    h5py.File(sys.argv[1], "r").close()
except OSError as e:
    print(e)
"#;
    let out = Command::new(py)
        .args(["-c", script, path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// The number after `key = ` in `text`.
fn number_after(text: &str, key: &str) -> u64 {
    let at = text.find(key).unwrap_or_else(|| panic!("{key} in {text}")) + key.len();
    text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap()
}

#[test]
fn refused_like_the_reference_library_and_opened_on_request() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let whole = tmp("whole.h5");
    write_with_h5py(&py, &whole);
    let bytes = std::fs::read(&whole).unwrap();
    assert_eq!(h5py_open_error(&py, &whole), "");
    File::open(&whole).unwrap();

    let cut = tmp("cut.h5");
    std::fs::write(&cut, &bytes[..bytes.len() - 4000]).unwrap();
    let theirs = h5py_open_error(&py, &cut);
    assert!(theirs.contains("truncated file"), "h5py: {theirs}");

    let e = File::open(&cut).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Truncated, "{e}");
    let ours = e.to_string();
    assert!(ours.contains("truncated file"), "{ours}");
    for key in ["eof = ", "stored_eof = "] {
        assert_eq!(
            number_after(&ours, key),
            number_after(&theirs, key),
            "{key}"
        );
    }
    // The same from memory.
    let e = File::from_bytes(std::fs::read(&cut).unwrap()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Truncated, "{e}");

    // Recovery: what lies before the cut reads.
    let f = File::open_with(&cut, OpenOptions::new().allow_truncated(true)).unwrap();
    let v: Vec<i32> = f.dataset("/small").unwrap().read().unwrap();
    assert_eq!(v, (0..10).collect::<Vec<_>>());
}
