//! `h5 dump --compat=2.0` dereferences object references and prints the data they name; a
//! dataset that references itself is printed once on a chain of references, not again at
//! each level (HDF5 2.x h5dump never finishes such a file).

use std::process::Command;

#[test]
fn a_dataset_referencing_itself_is_printed_once_per_chain() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("h5-dump-ref-cycles-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("selfref.h5");
    let make = "import sys, h5py\n\
                with h5py.File(sys.argv[1], 'w') as f:\n\
                \x20   d = f.create_dataset('r', (100,), dtype=h5py.ref_dtype)\n\
                \x20   d[...] = [d.ref] * 100\n";
    h5_oracle::run(&py, &["-c", make, p.to_str().unwrap()], b"").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_h5"))
        .args(["dump", "--compat=2.0", "selfref.h5"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // The dataset's 100 names, and under each the 100 names of the one dereference.
    let names = text.matches("DATASET \"selfref.h5/r\"").count();
    assert_eq!(names, 100 + 100 * 100, "{}", &text[..text.len().min(2000)]);
    let _ = std::fs::remove_dir_all(&dir);
}
