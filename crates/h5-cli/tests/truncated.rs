//! A truncated file (one the reference library refuses at open: "truncated file"): `h5 dump`
//! fails as h5dump does, with its message and exit status; `h5 check` still walks what is
//! there and reports the truncation.

use std::path::Path;
use std::process::Command;

#[test]
fn dump_refuses_and_check_reports() {
    let Some(h5dump) = h5_oracle::require("h5dump", h5_oracle::tool("h5dump")) else {
        return;
    };
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("truncated-cli");
    std::fs::create_dir_all(&d).unwrap();
    let cut = d.join("cut.h5");
    let whole = std::fs::read(h5_oracle::corpus("h5dump").join("tgroup.h5")).unwrap();
    std::fs::write(&cut, &whole[..1500]).unwrap();
    let f = cut.to_str().unwrap();

    let theirs = Command::new(&h5dump).arg(f).output().unwrap();
    let ours = Command::new(env!("CARGO_BIN_EXE_h5"))
        .args(["dump", f])
        .output()
        .unwrap();
    assert_ne!(theirs.status.code(), Some(0));
    assert_eq!(ours.status.code(), theirs.status.code());
    assert_eq!(ours.stdout, theirs.stdout);
    let err = String::from_utf8_lossy(&ours.stderr);
    assert!(
        err.contains(&format!("h5dump error: unable to open file \"{f}\"")),
        "{err}"
    );

    let check = Command::new(env!("CARGO_BIN_EXE_h5"))
        .args(["check", f])
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(1));
    let out = String::from_utf8_lossy(&check.stdout);
    assert!(out.contains("the file is truncated"), "{out}");
}
