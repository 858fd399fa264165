//! File locking against the reference library (h5py, HDF5 2.0, `HDF5_USE_FILE_LOCKING`
//! unset), case by case: where this library matches it and where it differs (a writer of
//! this library takes a shared lock, see `h5_io::lock`). Each case opens a file in one
//! process while another holds it.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use h5::{ErrorKind, File, FileFormat, OpenOptions};

/// Holds `argv[1]` open in mode `argv[2]` (`r`, `a`, `write`: a new Latest file, `swmr-write`:
/// the same in SWMR writing) until a line arrives on stdin.
const HOLD: &str = r#"
import sys, h5py
p, mode = sys.argv[1], sys.argv[2]
if mode in ('write', 'swmr-write'):
    f = h5py.File(p, 'w', libver='latest')
    f.create_dataset('x', data=[1, 2, 3], maxshape=(None,), chunks=(2,))
    if mode == 'swmr-write':
        f.swmr_mode = True
    f.flush()
else:
    f = h5py.File(p, mode)
print('ready', flush=True)
sys.stdin.readline()
"#;

/// Opens `argv[1]` once in mode `argv[2]` (`r`, `a`, or `swmr`: `r` with `swmr=True`) and
/// prints its names.
const OPEN: &str = r#"
import sys, h5py
p, mode = sys.argv[1], sys.argv[2]
f = h5py.File(p, 'r', swmr=True) if mode == 'swmr' else h5py.File(p, mode)
print(sorted(f.keys()))
"#;

struct Holder(std::process::Child);

impl Holder {
    fn new(py: &Path, p: &Path, mode: &str) -> Holder {
        let child = Command::new(py)
            .args(["-c", HOLD, p.to_str().unwrap(), mode])
            .env_remove("HDF5_USE_FILE_LOCKING")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut h = Holder(child);
        let mut line = String::new();
        BufReader::new(h.0.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(
            line.trim(),
            "ready",
            "h5py could not hold {} ({mode})",
            p.display()
        );
        h
    }

    fn release(mut self) {
        self.0.stdin.take().unwrap().write_all(b"\n").unwrap();
        assert!(self.0.wait().unwrap().success());
    }
}

impl Drop for Holder {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// h5py opening `p` in `mode`: its names, or its error.
fn h5py_open(py: &Path, p: &Path, mode: &str) -> Result<String, String> {
    let out = Command::new(py)
        .args(["-c", OPEN, p.to_str().unwrap(), mode])
        .env_remove("HDF5_USE_FILE_LOCKING")
        .output()
        .unwrap();
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

const LOCKED: &str = "unable to lock file";
const MARKED: &str = "already open for write";

fn refused(r: Result<String, String>, why: &str, case: &str) {
    match r {
        Ok(names) => panic!("{case}: h5py opened it ({names})"),
        Err(e) => assert!(e.contains(why), "{case}: expected {why:?}: {e}"),
    }
}

fn ours_refused(r: h5::Result<File>, why: &str, case: &str) {
    let e = r.map(drop).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InUse, "{case}: {e}");
    assert!(e.to_string().contains(why), "{case}: expected {why:?}: {e}");
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("h5-swmr-locking-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn new_file(p: &Path, format: FileFormat) {
    let f = File::create_with(p, format).unwrap();
    f.new_dataset::<i32>()
        .shape(&[3])
        .create("x")
        .unwrap()
        .write(&[1, 2, 3])
        .unwrap();
    f.close().unwrap();
}

#[test]
fn plain_readers_and_writers_lock_as_the_reference_library_except_our_writers_lock_shared() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    // Our tests may run with the variable set; these cases are about its default.
    if std::env::var_os("HDF5_USE_FILE_LOCKING").is_some() {
        eprintln!("skipped: HDF5_USE_FILE_LOCKING is set");
        return;
    }
    let d = dir();
    let x = "['x']".to_string();

    // A reference reader holds the file (shared lock).
    let p = d.join("ref-reader.h5");
    new_file(&p, FileFormat::Compatible);
    let h = Holder::new(&py, &p, "r");
    // The reference: another reader reads, a writer is refused.
    assert_eq!(h5py_open(&py, &p, "r"), Ok(x.clone()));
    refused(h5py_open(&py, &p, "a"), LOCKED, "h5py writer, h5py reader");
    // Ours: a reader reads (as the reference) ...
    assert_eq!(File::open(&p).unwrap().dataset("x").unwrap().len(), 3);
    // ... but a writer opens it too (DIFFERS: our writer's lock is shared).
    File::open_rw(&p).unwrap().close().unwrap();
    h.release();

    // Our reader holds the file: as the reference, its writers are refused, its readers read.
    let r = File::open(&p).unwrap();
    refused(h5py_open(&py, &p, "a"), LOCKED, "h5py writer, our reader");
    assert_eq!(h5py_open(&py, &p, "r"), Ok(x.clone()));
    drop(r);

    // A reference writer holds the file (exclusive lock): its readers and writers are
    // refused, and so are ours (as the reference).
    let q = d.join("ref-writer.h5");
    let h = Holder::new(&py, &q, "write");
    refused(h5py_open(&py, &q, "r"), LOCKED, "h5py reader, h5py writer");
    refused(h5py_open(&py, &q, "a"), LOCKED, "h5py writer, h5py writer");
    ours_refused(File::open(&q), "unable to lock", "our reader, h5py writer");
    ours_refused(
        File::open_rw(&q),
        "unable to lock",
        "our writer, h5py writer",
    );
    h.release();

    // Our writer holds the file (not SWMR): the reference's writers are refused (as by the
    // reference) but its readers read what was flushed (DIFFERS: the reference's writer
    // locks exclusively, so that h5py would be refused "unable to lock file").
    for format in [FileFormat::Compatible, FileFormat::Latest] {
        let o = d.join(format!("our-writer-{format:?}.h5"));
        let f = File::create_with(&o, format).unwrap();
        f.new_dataset::<i32>()
            .shape(&[3])
            .create("x")
            .unwrap()
            .write(&[1, 2, 3])
            .unwrap();
        f.flush().unwrap();
        if format == FileFormat::Latest {
            // DIFFERS too: the reference marks a version 3 superblock open for writing
            // (status flags 0x1) whenever it opens one for writing; this library marks it
            // only for SWMR writing.
            let b = std::fs::read(&o).unwrap();
            assert_eq!((b[8], b[11]), (3, 0), "superblock version, status flags");
        }
        let case = format!("h5py writer, our {format:?} writer");
        refused(h5py_open(&py, &o, "a"), LOCKED, &case);
        assert_eq!(
            h5py_open(&py, &o, "r"),
            Ok(x.clone()),
            "h5py reader, {case}"
        );
        f.close().unwrap();
        assert_eq!(h5py_open(&py, &o, "a"), Ok(x.clone()));
    }
}

#[test]
fn swmr_writers_give_up_their_lock_as_the_reference_library_does() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    if std::env::var_os("HDF5_USE_FILE_LOCKING").is_some() {
        eprintln!("skipped: HDF5_USE_FILE_LOCKING is set");
        return;
    }
    let d = dir();
    let x = "['x']".to_string();
    let swmr = || OpenOptions::new().swmr(true);

    // The reference's SWMR writer: no lock, the status flags keep plain opens out.
    let p = d.join("ref-swmr.h5");
    let h = Holder::new(&py, &p, "swmr-write");
    assert_eq!(h5py_open(&py, &p, "swmr"), Ok(x.clone()));
    refused(
        h5py_open(&py, &p, "r"),
        MARKED,
        "h5py reader, h5py SWMR writer",
    );
    refused(
        h5py_open(&py, &p, "a"),
        MARKED,
        "h5py writer, h5py SWMR writer",
    );
    // Ours the same.
    let r = File::open_with(&p, swmr()).unwrap();
    assert_eq!(r.dataset("x").unwrap().read::<i64>().unwrap(), [1, 2, 3]);
    ours_refused(File::open(&p), MARKED, "our reader, h5py SWMR writer");
    ours_refused(File::open_rw(&p), "open", "our writer, h5py SWMR writer");
    // A SWMR reader (ours) holds a shared lock: the writer, already open, goes on.
    h.release();
    drop(r);

    // Our SWMR writer: the reference sees what it sees of its own.
    let q = d.join("our-swmr.h5");
    let f = File::create_with(&q, FileFormat::Latest).unwrap();
    let ds = f
        .new_dataset::<i64>()
        .shape(&[0])
        .max_shape(&[None])
        .chunk(&[2])
        .create("x")
        .unwrap();
    f.start_swmr().unwrap();
    ds.append(&[1, 2, 3]).unwrap();
    f.flush().unwrap();
    assert_eq!(h5py_open(&py, &q, "swmr"), Ok(x.clone()));
    refused(
        h5py_open(&py, &q, "r"),
        MARKED,
        "h5py reader, our SWMR writer",
    );
    refused(
        h5py_open(&py, &q, "a"),
        MARKED,
        "h5py writer, our SWMR writer",
    );
    ours_refused(File::open(&q), MARKED, "our reader, our SWMR writer");
    f.close().unwrap();
    assert_eq!(h5py_open(&py, &q, "r"), Ok(x));
}
