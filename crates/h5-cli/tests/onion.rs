//! `h5 dump` with HDF5 2.x's onion driver options, beyond the corpus rows: what h5dump prints
//! for revisions out of range, bad revision strings, missing or damaged onion files, and the
//! equivalent ways of naming the driver (`-f onion`, `--vfd-value 14`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus_file(name: &str) -> Option<PathBuf> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        "../../../shared/corpus/h5dump-develop",
        "../../../../shared/corpus/h5dump-develop",
    ]
    .iter()
    .map(|p| base.join(p).join(name))
    .find(|p| p.is_file())
}

/// A scratch directory holding copies of `tst_onion_objs.h5` and its onion file.
fn scratch(tag: &str) -> Option<PathBuf> {
    let h5 = corpus_file("tst_onion_objs.h5")?;
    let onion = corpus_file("tst_onion_objs.h5.onion")?;
    let dir = std::env::temp_dir().join(format!("h5-cli-onion-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(h5, dir.join("tst_onion_objs.h5")).unwrap();
    std::fs::copy(onion, dir.join("tst_onion_objs.h5.onion")).unwrap();
    Some(dir)
}

struct Out {
    stdout: String,
    stderr: String,
    status: i32,
}

fn dump(dir: &Path, args: &[&str]) -> Out {
    let o = Command::new(env!("CARGO_BIN_EXE_h5"))
        .arg("dump")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run h5");
    Out {
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        status: o.status.code().unwrap_or(-1),
    }
}

const FILE: &str = "tst_onion_objs.h5";

#[test]
fn revisions_and_their_errors() {
    let Some(dir) = scratch("revs") else {
        eprintln!("corpus onion files not found; skipped");
        return;
    };
    // Revision 1 has a second dataset, later ones do not.
    let r1 = dump(&dir, &["--vfd-name", "onion", "--vfd-info", "1", FILE]);
    assert_eq!(r1.status, 0, "{}", r1.stderr);
    assert!(r1
        .stdout
        .starts_with("Using revision 1\nHDF5 \"tst_onion_objs.h5\" {\n"));
    assert!(r1.stdout.contains("DATASET \"DS2\""));
    // The latest revision (6) and the largest revision number, which means the latest.
    let r6 = dump(&dir, &["--vfd-name=onion", "--vfd-info=6", FILE]);
    let latest = dump(
        &dir,
        &[
            "--vfd-name",
            "onion",
            "--vfd-info",
            "18446744073709551615",
            FILE,
        ],
    );
    assert_eq!(r6.status, 0);
    assert_eq!(
        r6.stdout.replacen("Using revision 6\n", "", 1),
        latest
            .stdout
            .replacen("Using revision 18446744073709551615\n", "", 1)
    );
    // Without --vfd-info: revision 0 (the original file), and nothing announced.
    let r0 = dump(&dir, &["--vfd-name", "onion", FILE]);
    let plain = dump(&dir, &[FILE]);
    assert_eq!(r0.status, 0);
    assert_eq!(r0.stdout, plain.stdout);
    // Past the last revision: announced, then the file does not open.
    let far = dump(&dir, &["--vfd-name", "onion", "--vfd-info", "7", FILE]);
    assert_eq!(far.status, 1);
    assert_eq!(far.stdout, "Using revision 7\n");
    assert!(far
        .stderr
        .contains("h5dump error: unable to open file \"tst_onion_objs.h5\""));
    // A revision too large for 64 bits.
    let big = dump(
        &dir,
        &[
            "--vfd-name",
            "onion",
            "--vfd-info",
            "99999999999999999999",
            FILE,
        ],
    );
    assert_eq!(big.status, 1);
    assert_eq!(big.stdout, "Invalid onion revision specified\n");
    // strtoull: leading blanks and trailing junk; no digits is revision 0.
    let junk = dump(&dir, &["--vfd-name", "onion", "--vfd-info", " 3abc", FILE]);
    assert!(junk.stdout.starts_with("Using revision 3\n"));
    let none = dump(&dir, &["--vfd-name", "onion", "--vfd-info", "x", FILE]);
    assert_eq!(
        none.stdout.replacen("Using revision 0\n", "", 1),
        plain.stdout
    );
    // No file name: the announcement comes before the usage text.
    let nofile = dump(&dir, &["--vfd-name", "onion", "--vfd-info", "2"]);
    assert_eq!(nofile.status, 1);
    assert!(nofile.stdout.starts_with("Using revision 2\nusage: h5dump"));
    assert!(nofile.stderr.contains("missing file name"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn other_ways_to_name_the_driver() {
    let Some(dir) = scratch("names") else {
        return;
    };
    let by_name = dump(&dir, &["--vfd-name", "onion", "--vfd-info", "3", FILE]);
    let by_f = dump(&dir, &["-f", "onion", "--vfd-info", "3", FILE]);
    assert_eq!(by_f.stdout, by_name.stdout);
    // By value the string goes to the driver as is: no announcement.
    let by_value = dump(&dir, &["--vfd-value", "14", "--vfd-info", "3", FILE]);
    assert_eq!(by_value.status, 0);
    assert_eq!(
        by_value.stdout,
        by_name.stdout.replacen("Using revision 3\n", "", 1)
    );
    // --vfd-name with the drivers --filedriver knows.
    let sec2 = dump(&dir, &["--vfd-name", "sec2", FILE]);
    assert_eq!(sec2.stdout, dump(&dir, &[FILE]).stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn revision_count_and_damaged_onion_files() {
    let Some(dir) = scratch("count") else {
        return;
    };
    let count = ["--vfd-name", "onion", "--vfd-info", "revision_count", FILE];
    let c = dump(&dir, &count);
    assert_eq!(c.status, 0);
    assert_eq!(
        c.stdout,
        "The number of revisions for the onion file is 6\n"
    );

    // A damaged history: the count fails, and so does every revision but 0 (which needs only
    // the header and history... and fails too, since those are damaged).
    let onion = dir.join("tst_onion_objs.h5.onion");
    let good = std::fs::read(&onion).unwrap();
    let mut bad = good.clone();
    let n = bad.len();
    bad[n - 30] ^= 0x10;
    std::fs::write(&onion, &bad).unwrap();
    let c = dump(&dir, &count);
    assert_eq!(c.status, 1);
    assert_eq!(c.stdout, "");
    assert_eq!(
        c.stderr,
        "h5dump error: unable to create FAPL for file access\n"
    );
    for rev in ["0", "3"] {
        let d = dump(&dir, &["--vfd-name", "onion", "--vfd-info", rev, FILE]);
        assert_eq!(d.status, 1, "revision {rev}");
        assert!(d.stderr.contains("unable to open file"), "{}", d.stderr);
        assert!(!d.stderr.contains("panicked"));
    }

    // Truncated onion files.
    for keep in [0, 10, 40, 5000, n - 1] {
        std::fs::write(&onion, &good[..keep]).unwrap();
        let d = dump(&dir, &["--vfd-name", "onion", "--vfd-info", "3", FILE]);
        assert_eq!(d.status, 1, "{keep} bytes");
        assert!(d.stderr.contains("unable to open file"), "{}", d.stderr);
        assert!(!d.stderr.contains("panicked"));
    }

    // No onion file at all.
    std::fs::remove_file(&onion).unwrap();
    let c = dump(&dir, &count);
    assert_eq!(c.status, 1);
    let d = dump(&dir, &["--vfd-name", "onion", "--vfd-info", "1", FILE]);
    assert_eq!(d.status, 1);
    assert_eq!(d.stdout, "Using revision 1\n");
    let _ = std::fs::remove_dir_all(&dir);
}
