//! `h5 check` over the conformance corpus: every file the reference library reads is sound
//! (exit 0), every malformed file it rejects is reported (exit 1) naming the broken
//! structure, and no run panics or hangs (each runs as a process with a time limit).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(60);

fn corpus(sub: &str) -> Option<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .map(|a| a.join("shared/corpus").join(sub))
        .find(|p| p.is_dir())
}

fn h5_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "h5"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

struct Run {
    code: i32,
    stdout: String,
}

/// `h5 check FILE`, under a 1 GiB address-space limit where a shell can set one, so an
/// allocation sized by a corrupt field fails the run instead of passing unnoticed.
fn command(file: &Path) -> Command {
    if cfg!(unix) && Path::new("/bin/sh").exists() {
        let mut c = Command::new("/bin/sh");
        c.arg("-c")
            .arg("ulimit -v 1048576 && exec \"$0\" check \"$1\"")
            .arg(env!("CARGO_BIN_EXE_h5"))
            .arg(file);
        c
    } else {
        let mut c = Command::new(env!("CARGO_BIN_EXE_h5"));
        c.arg("check").arg(file);
        c
    }
}

/// Run `h5 check FILE` with a time limit; a panic (exit 101), a signal, a timeout or running
/// out of the memory limit fails.
fn check(file: &Path) -> Run {
    let mut child = command(file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run h5");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            panic!("h5 check {} did not finish in {LIMIT:?}", file.display());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let out = child.wait_with_output().expect("output");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = status
        .code()
        .unwrap_or_else(|| panic!("h5 check {} killed by a signal: {stderr}", file.display()));
    assert!(
        code == 0 || code == 1,
        "h5 check {}: exit {code}\n{stdout}\n{stderr}",
        file.display()
    );
    assert!(
        stdout
            .lines()
            .last()
            .is_some_and(|l| l.contains(" objects, ")),
        "no summary line: {stdout}"
    );
    Run { code, stdout }
}

/// Files of `h5dump/` that are not sound on their own, and why. Each must be reported.
const H5DUMP_EXCEPTIONS: &[(&str, &str, &str)] = &[
    // INDEX.tsv: h5dump is expected to fail on these (exit 1): the fill value is larger than
    // its message (CVE-2018-11206).
    (
        "tCVE_2018_11206_fill_new.h5",
        "fill value message",
        "CVE reproducer",
    ),
    (
        "tCVE_2018_11206_fill_old.h5",
        "old fill value message",
        "CVE reproducer",
    ),
    // Member 0 of a family (`--filedriver=family` in INDEX.tsv): its end of file address
    // covers all members, so alone it is a truncated file, as the default driver says too.
    ("tfamily00000.h5", "superblock", "family member 0"),
    // h5dump's test of a reference to a deleted object: the revised object reference in
    // /Dataset2 points at 0x320, where the object's header was (h5dump prints an error for
    // that element).
    (
        "trefer_obj_del.h5",
        "reference",
        "dangling object reference",
    ),
];

/// Parts of multi-file sets without a superblock of their own (raw data or later members),
/// which the reference library opens only through the family, multi or split drivers.
/// (The superblock files of the multi and split sets, `tmulti-s.h5` and `tsplit_file-m.h5`,
/// say so in their driver information: `h5 check` notes that it checked only their
/// superblock and exits 0.)
fn is_member_without_superblock(name: &str) -> bool {
    (name.starts_with("tfamily") && name != "tfamily00000.h5")
        || (name.starts_with("tmulti-") && name != "tmulti-s.h5")
        || name == "tsplit_file-r.h5"
}

#[test]
fn reference_library_files_are_sound() {
    let mut files = Vec::new();
    for sub in ["h5dump", "h5dump-develop"] {
        if let Some(d) = corpus(sub) {
            files.extend(h5_files(&d));
        }
    }
    if files.is_empty() {
        eprintln!("corpus not found; skipping");
        return;
    }
    let mut failures = Vec::new();
    let mut sound = 0;
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let r = check(f);
        if let Some((_, structure, _)) = H5DUMP_EXCEPTIONS.iter().find(|e| e.0 == name) {
            if r.code != 1 || !r.stdout.contains(&format!("{structure} at ")) {
                failures.push(format!(
                    "{name}: expected a {structure} problem:\n{}",
                    r.stdout
                ));
            }
        } else if is_member_without_superblock(&name) {
            if r.code != 1
                || !r
                    .stdout
                    .contains("superblock at 0x0: no HDF5 format signature")
            {
                failures.push(format!("{name}: expected no superblock:\n{}", r.stdout));
            }
        } else if r.code != 0 {
            failures.push(format!("{name}:\n{}", r.stdout));
        } else {
            sound += 1;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(sound > 150, "only {sound} sound files");
}

#[test]
fn h5py_fixtures_are_sound() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../h5-io/tests/fixtures/h5py");
    let files = h5_files(&dir);
    if files.is_empty() {
        eprintln!("h5py fixtures not found; skipping");
        return;
    }
    for f in &files {
        let r = check(f);
        assert_eq!(r.code, 0, "{}:\n{}", f.display(), r.stdout);
    }
}

/// Every file of `bad/`: what `h5 check` must say. `Some(texts)`: exit 1 with a problem line
/// containing each text (the first names the structure, from NOTES.tsv's description).
/// `None`: exit 0, with the reason.
const BAD: &[(&str, Option<&[&str]>)] = &[
    // Header size far beyond the file ("unable to open file").
    (
        "3790_infinite_loop.h5",
        Some(&["object header at 0x68", "header size"]),
    ),
    // Compound datatypes with zero members.
    (
        "bad_compound.h5",
        Some(&["datatype message at ", "compound datatype without members"]),
    ),
    // Symbol table entries whose name offsets lie beyond the local heap's data segment.
    (
        "bad_offset.h5",
        Some(&["symbol table entry at ", "link name offset 999"]),
    ),
    // Corrupt symbol table message (the library repairs it from the cached entry only when
    // writing; read-only it fails).
    (
        "corrupt_stab_msg.h5",
        Some(&[
            "symbol table message at ",
            "differ from the parent's cached",
        ]),
    ),
    // Attribute message with a corrupt name length.
    ("corrupted_name_len.h5", Some(&["attribute message at "])),
    // Malformed version 0 file space info message.
    ("cve_2020_10810.h5", Some(&["file space info message at "])),
    // The metadata cache image lies far past the end of file (the read that crashed).
    (
        "cve_2020_10812.h5",
        Some(&[
            "metadata cache image message at 0x10100",
            "past the end of file",
        ]),
    ),
    // Attribute whose (shared) dataspace is corrupt.
    (
        "err_attr_dspace.h5",
        Some(&["shared message at ", "Attribute message"]),
    ),
    // The structure is sound: the dataset names a filter the reference library has not
    // registered, so only reading its data fails. `h5 check` checks structure, not codecs.
    ("filter_error.h5", None),
    // Valid file (enum values that are not members are data, not structure).
    ("h5diff_enum_invalid_values.h5", None),
    // Dataspace rank that reads past the message's end.
    (
        "h5repack_CVE-2018-14460.h5",
        Some(&["dataspace message at "]),
    ),
    // Non-zero rank for a scalar dataspace.
    (
        "h5repack_CVE-2018-17432.h5",
        Some(&["dataspace message at ", "Scalar dataspace with rank"]),
    ),
    // Old fill value message larger than its message.
    (
        "h5stat_err_old_fill.h5",
        Some(&["old fill value message at ", "fill value size"]),
    ),
    // Version 2 layout message with dimensionality 0.
    (
        "h5stat_err_old_layout.h5",
        Some(&["data layout message at ", "dimensionality 0"]),
    ),
    // Reference count message in a version 1 object header.
    (
        "h5stat_err_refcount.h5",
        Some(&["object header at ", "reference count message"]),
    ),
    // Attribute whose sizes overflow (CVE-2021-37501).
    (
        "tCVE-2021-37501_attr_decode.h5",
        Some(&["attribute message at "]),
    ),
    (
        "tCVE_2018_11206_fill_new.h5",
        Some(&["fill value message at ", "fill value size"]),
    ),
    (
        "tCVE_2018_11206_fill_old.h5",
        Some(&["old fill value message at ", "fill value size"]),
    ),
    // The stored message count is wrong; the reference library accepts it (only strict
    // format-check builds refuse it), and so does this check.
    ("tbad_msg_count.h5", None),
    // Unknown message with the "fail if unknown" flag.
    (
        "tbogus.h5",
        Some(&["header message at ", "fail if unknown"]),
    ),
    // Dataspace of rank 33.
    ("th5s.h5", Some(&["dataspace message at ", "rank 33"])),
];

#[test]
fn malformed_files_are_reported() {
    let Some(dir) = corpus("bad") else {
        eprintln!("corpus not found; skipping");
        return;
    };
    let files = h5_files(&dir);
    let mut failures = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let Some((_, expect)) = BAD.iter().find(|b| b.0 == name) else {
            failures.push(format!("{name}: not in the table of this test"));
            continue;
        };
        let r = check(f);
        match expect {
            None if r.code != 0 => failures.push(format!("{name}: expected sound:\n{}", r.stdout)),
            Some(texts) => {
                let line_ok = r
                    .stdout
                    .lines()
                    .any(|l| texts.iter().all(|t| l.contains(t)));
                if r.code != 1 || !line_ok {
                    failures.push(format!(
                        "{name}: expected a line with {texts:?}:\n{}",
                        r.stdout
                    ));
                }
            }
            None => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn usage_and_io_errors_exit_2() {
    let h5 = env!("CARGO_BIN_EXE_h5");
    let st = Command::new(h5).arg("check").output().expect("run");
    assert_eq!(st.status.code(), Some(2));
    let st = Command::new(h5)
        .args(["check", "/nonexistent/file.h5"])
        .output()
        .expect("run");
    assert_eq!(st.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&st.stderr).contains("/nonexistent/file.h5"));
    let st = Command::new(h5)
        .args(["check", "--bogus", "x"])
        .output()
        .expect("run");
    assert_eq!(st.status.code(), Some(2));
}

/// Variable-length strings stored only in deflated chunks (`h5-oracle/c/walk_files.c`): `h5
/// check` decodes the chunks, so a global heap collection whose objects lost their indexes is
/// reported with the dataset that refers to it.
#[test]
fn values_in_filtered_chunks_are_checked() {
    let Some(exe) = h5_oracle::require("walk_files oracle", h5_oracle::c_program("walk_files"))
    else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("h5-check-walk-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    h5_oracle::run(&exe, &[dir.to_str().expect("utf-8 path")], b"").expect("walk_files ran");
    let good = dir.join("vlen_filtered.h5");
    let r = check(&good);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(!r.stdout.contains("note:"), "{}", r.stdout);
    let mut d = std::fs::read(&good).expect("oracle file");
    let at = d
        .windows(4)
        .position(|w| w == b"GCOL")
        .expect("a collection");
    // The first object's index (after the 16-byte collection header).
    d[at + 16] = 99;
    let bad = dir.join("bad_filtered.h5");
    std::fs::write(&bad, &d).expect("write");
    let r = check(&bad);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout.lines().any(|l| l
            .starts_with(&format!("global heap collection at {at:#x}: no object 1 "))
            && l.contains("/strings_deflated")),
        "{}",
        r.stdout
    );
}
