//! Object references to objects no link reaches (an anonymous dataset and an anonymous
//! committed datatype, as netCDF-4's dimension lists can hold) and to objects reached by
//! several paths, in a file the C library wrote (`unlinked_refs.c`):
//! - `h5 dump` prints what h5dump prints (`DATASET 800 ""`, in dataset values, attributes
//!   and variable-length sequences of references);
//! - `deref_object` opens every target, committed datatypes included, and its path is the
//!   one h5py gives the dereferenced object (`H5Iget_name`), none where h5py has none.

use std::path::{Path, PathBuf};
use std::process::Command;

use h5::types::h5type::ObjectRef;
use h5::Node;

/// The file, written afresh for each test (tests run in parallel).
fn make(name: &str) -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("unlinked_refs");
    std::fs::create_dir_all(&d).unwrap();
    let file = d.join(name);
    h5_oracle::require(
        "unlinked_refs (libhdf5)",
        h5_oracle::run_c("unlinked_refs", &[file.to_str().unwrap()], b""),
    )?;
    Some(file)
}

#[test]
fn dump_prints_what_h5dump_prints() {
    let Some(file) = make("dump.h5") else { return };
    let Some(h5dump) = h5_oracle::require("h5dump", h5_oracle::tool("h5dump")) else {
        return;
    };
    let f = file.to_str().unwrap();
    let want = Command::new(h5dump).arg(f).output().unwrap();
    assert!(want.status.success());
    let want = String::from_utf8(want.stdout).unwrap();
    assert!(want.contains("DATASET 800 \"\""), "{want}");
    let got = Command::new(env!("CARGO_BIN_EXE_h5"))
        .args(["dump", f])
        .output()
        .unwrap();
    assert!(
        got.status.success(),
        "{}",
        String::from_utf8_lossy(&got.stderr)
    );
    assert_eq!(String::from_utf8(got.stdout).unwrap(), want);
}

#[test]
fn dereferenced_objects_have_h5py_paths() {
    let Some(file) = make("deref.h5") else { return };
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    // h5py: the class and name of each dereferenced object ("None" without a name).
    let script = r#"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    for r in f["refs"][:]:
        o = f[r]
        print(type(o).__name__, o.name)
"#;
    let out = Command::new(py)
        .args(["-c", script, file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Vec<(String, String)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (k, n) = l.split_once(' ').unwrap();
            (k.to_owned(), n.to_owned())
        })
        .collect();
    assert_eq!(theirs.len(), 6);

    let f = h5::File::open(&file).unwrap();
    let refs: Vec<ObjectRef> = f.dataset("/refs").unwrap().read().unwrap();
    for (r, (kind, name)) in refs.iter().zip(&theirs) {
        let node = f.deref_object(*r).unwrap();
        let (k, path) = match &node {
            Node::Group(g) => ("Group", g.path().to_owned()),
            Node::Dataset(d) => ("Dataset", d.path().to_owned()),
            Node::Datatype(t) => ("Datatype", t.path().to_owned()),
        };
        assert_eq!(k, kind);
        if name == "None" {
            assert!(path.starts_with("<object at 0x"), "{path}");
        } else {
            assert_eq!(&path, name);
        }
    }
    // The anonymous dataset reads; the anonymous datatype is a double.
    match f.deref_object(refs[0]).unwrap() {
        Node::Dataset(d) => assert_eq!(d.read::<i32>().unwrap(), vec![1, 2, 3]),
        _ => panic!("not a dataset"),
    }
    match f.deref_object(refs[3]).unwrap() {
        Node::Datatype(t) => assert_eq!(t.datatype().unwrap().size(), 8),
        _ => panic!("not a datatype"),
    }
}
