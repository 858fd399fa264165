//! SWMR (single writer, multiple readers): the status flags, the rules of SWMR writing,
//! refresh, and both directions against the reference library (h5py) in two processes.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use h5::{ErrorKind, File, FileFormat, OpenOptions};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("h5-swmr-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The superblock's status flags byte (version 2 and 3 superblocks at offset 0).
fn status_flags(p: &Path) -> u8 {
    let b = std::fs::read(p).unwrap();
    assert_eq!(b[8], 3, "superblock version");
    b[11]
}

/// A child process killed when the test ends, passed or failed.
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn swmr() -> OpenOptions {
    OpenOptions::new().swmr(true)
}

#[test]
fn swmr_writing_marks_the_file_refuses_new_objects_and_publishes_at_each_flush() {
    let p = dir("rules").join("w.h5");
    let f = File::create_with(&p, FileFormat::Latest).unwrap();
    let x = f
        .new_dataset::<i64>()
        .shape(&[0])
        .max_shape(&[None])
        .chunk(&[10])
        .create("x")
        .unwrap();
    f.new_attr::<i32>()
        .create("a")
        .unwrap()
        .write(&[1])
        .unwrap();
    f.create_group("g").unwrap();
    f.start_swmr().unwrap();
    assert!(f.is_swmr_writer());
    assert_eq!(status_flags(&p), 0x5);

    // What SWMR forbids names the rule.
    for e in [
        f.create_group("h").unwrap_err(),
        f.new_dataset::<i8>().shape(&[1]).create("y").unwrap_err(),
        f.new_attr::<i8>().create("b").unwrap_err(),
        f.unlink("g").unwrap_err(),
        f.delete_attr("a").unwrap_err(),
    ] {
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
        assert!(e.to_string().contains("SWMR writing forbids"), "{e}");
    }

    // A plain reader is refused, as the reference library refuses it; a SWMR reader reads.
    let e = File::open(&p).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InUse, "{e}");
    assert!(e.to_string().contains("already open for write"), "{e}");
    let r = File::open_with(&p, swmr()).unwrap();
    assert!(r.is_marked_swmr_writing().unwrap());
    let rx = r.dataset("x").unwrap();
    assert_eq!(rx.shape(), [0]);
    let mut want = Vec::new();
    for k in 0..20i64 {
        let v: Vec<i64> = (0..7).map(|i| k * 7 + i).collect();
        x.append(&v).unwrap();
        want.extend(v);
        f.flush().unwrap();
        rx.refresh().unwrap();
        assert_eq!(rx.shape(), [want.len() as u64]);
        assert_eq!(rx.read::<i64>().unwrap(), want);
    }
    // resize + write_slice publish the same way.
    x.resize(&[150]).unwrap();
    let tail: Vec<i64> = (140..150).collect();
    x.write_slab(&[140], &[10], &tail).unwrap();
    f.flush().unwrap();
    rx.refresh().unwrap();
    assert_eq!(rx.shape(), [150]);
    assert_eq!(
        rx.read_hyperslab::<i64>(&[140], None, &[10], None).unwrap(),
        tail
    );
    f.close().unwrap();
    assert_eq!(status_flags(&p), 0);
    r.refresh().unwrap();
    assert!(!r.is_marked_swmr_writing().unwrap());
    drop(r);
    assert_eq!(File::open(&p).unwrap().dataset("x").unwrap().len(), 150);

    // SWMR writing needs superblock version 3.
    let c = File::create(dir("rules").join("c.h5")).unwrap();
    let e = c.start_swmr().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    assert!(e.to_string().contains("superblock version 3"), "{e}");
}

#[test]
fn a_file_left_marked_open_is_reported_and_h5_clear_resets_it() {
    let p = dir("left").join("w.h5");
    let f = File::create_with(&p, FileFormat::Latest).unwrap();
    let x = f
        .new_dataset::<i32>()
        .shape(&[0])
        .max_shape(&[None])
        .chunk(&[4])
        .create("x")
        .unwrap();
    f.start_swmr().unwrap();
    x.append(&[1, 2, 3, 4, 5]).unwrap();
    f.flush().unwrap();
    // A writer that stops without closing: the marks stay.
    let copy = p.with_file_name("crashed.h5");
    std::fs::copy(&p, &copy).unwrap();
    f.close().unwrap();
    assert_eq!(status_flags(&copy), 0x5);
    let e = File::open_rw(&copy).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InUse, "{e}");
    assert_eq!(File::open(&copy).unwrap_err().kind(), ErrorKind::InUse);
    // Readable as the reference library allows: by a SWMR reader.
    let r = File::open_with(&copy, swmr()).unwrap();
    assert_eq!(
        r.dataset("x").unwrap().read::<i32>().unwrap(),
        [1, 2, 3, 4, 5]
    );
    drop(r);
    assert_eq!(File::clear_status_flags(&copy).unwrap(), Some(0x5));
    assert_eq!(status_flags(&copy), 0);
    assert_eq!(File::clear_status_flags(&copy).unwrap(), None);
    let rw = File::open_rw(&copy).unwrap();
    assert_eq!(
        rw.dataset("x").unwrap().read::<i32>().unwrap(),
        [1, 2, 3, 4, 5]
    );
    rw.close().unwrap();
    if let Some(h5dump) = h5_oracle::require("h5dump", h5_oracle::tool("h5dump")) {
        let out = h5_oracle::run(&h5dump, &["-d", "/x", copy.to_str().unwrap()], b"").unwrap();
        assert!(String::from_utf8_lossy(&out).contains("1, 2, 3, 4, 5"));
    }
}

/// h5py's SWMR writer: three datasets with the three chunk indexes SWMR supports (extensible
/// array: one unlimited dimension; fixed array: fixed size, filled progressively; version 2
/// B-tree: two unlimited dimensions), `FLUSHES` flushes of `PER` records each. Record `i` is
/// `i` in `/ea`, `i` in `/fa` (fill value -1 where not written yet) and the row `[i, -i]` in
/// `/bt`. Prints `ready` once SWMR writing started, `done` once the file is closed.
const H5PY_WRITER: &str = r#"
import sys, h5py, numpy as np
path, flushes, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
n = flushes * per
f = h5py.File(path, 'w', libver='latest')
ea = f.create_dataset('ea', (0,), maxshape=(None,), chunks=(16,), dtype='i8')
fa = f.create_dataset('fa', (n,), chunks=(16,), dtype='i8', fillvalue=-1)
bt = f.create_dataset('bt', (0, 2), maxshape=(None, None), chunks=(16, 2), dtype='i8')
f.swmr_mode = True
print('ready', flush=True)
for k in range(flushes):
    lo, hi = k * per, (k + 1) * per
    v = np.arange(lo, hi, dtype='i8')
    ea.resize((hi,)); ea[lo:hi] = v
    fa[lo:hi] = v
    bt.resize((hi, 2)); bt[lo:hi, 0] = v; bt[lo:hi, 1] = -v
    ea.flush(); fa.flush(); bt.flush()
f.close()
print('done', flush=True)
"#;

#[test]
fn our_swmr_reader_follows_h5py_swmr_writer() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let (flushes, per) = (1000u64, 10u64);
    let n = flushes * per;
    let p = dir("h5py-writer").join("w.h5");
    let child = Command::new(&py)
        .args(["-c", H5PY_WRITER, p.to_str().unwrap()])
        .args([flushes.to_string(), per.to_string()])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = Child(child);
    let mut out = BufReader::new(child.0.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready");
    let f = File::open_with(&p, swmr()).unwrap();
    let (ea, fa, bt) = (
        f.dataset("ea").unwrap(),
        f.dataset("fa").unwrap(),
        f.dataset("bt").unwrap(),
    );
    // What was read so far of each; polls; polls that saw more.
    let (mut seen_ea, mut seen_bt, mut seen_fa) = (0u64, 0u64, 0u64);
    let (mut polls, mut grew) = (0u32, 0u32);
    let mut finished = false;
    loop {
        if !finished {
            finished = child.0.try_wait().unwrap().is_some();
        }
        ea.refresh().unwrap();
        let len = ea.shape()[0];
        if len > seen_ea {
            let v = ea
                .read_hyperslab::<i64>(&[seen_ea], None, &[len - seen_ea], None)
                .unwrap();
            for (k, x) in v.iter().enumerate() {
                assert_eq!(
                    *x,
                    (seen_ea + k as u64) as i64,
                    "/ea[{}]",
                    seen_ea + k as u64
                );
            }
            seen_ea = len;
            grew += 1;
        }
        let rows = bt.shape()[0];
        if rows > seen_bt {
            let v = bt
                .read_hyperslab::<i64>(&[seen_bt, 0], None, &[rows - seen_bt, 2], None)
                .unwrap();
            for (k, r) in v.chunks(2).enumerate() {
                let i = (seen_bt + k as u64) as i64;
                assert_eq!(r, [i, -i], "/bt[{i}]");
            }
            seen_bt = rows;
        }
        // The fixed array: every element is its index or the fill value; what was seen
        // written stays written.
        let v = fa.read::<i64>().unwrap();
        assert_eq!(v.len() as u64, n);
        let mut written = 0;
        for (i, x) in v.iter().enumerate() {
            assert!(*x == i as i64 || *x == -1, "/fa[{i}] = {x}");
            if *x == i as i64 {
                written = i as u64 + 1;
            }
        }
        assert!(written >= seen_fa.min(written), "/fa lost values");
        for (i, x) in v.iter().enumerate().take(seen_fa as usize) {
            assert_eq!(*x, i as i64, "/fa[{i}] was written, now reads {x}");
        }
        seen_fa = seen_fa.max(written);
        polls += 1;
        if finished {
            break;
        }
    }
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    assert_eq!(rest.trim(), "done");
    assert!(child.0.wait().unwrap().success());
    assert_eq!((seen_ea, seen_bt, seen_fa), (n, n, n));
    assert!(!f.is_marked_swmr_writing().unwrap());
    eprintln!("{polls} polls, {grew} saw /ea grow");
    assert!(
        grew > 1,
        "the reader saw the dataset grow only {grew} times"
    );
}

/// h5py's SWMR reader of the file [`our_swmr_writer_is_read_by_h5py_and_h5dump`] writes:
/// polls (refresh, read of the new part) and checks every value; prints `ready` once open,
/// then `ok POLLS GREW` when it saw all `N` records of each dataset.
const H5PY_READER: &str = r#"
import sys, time, h5py, numpy as np
path, n = sys.argv[1], int(sys.argv[2])
f = h5py.File(path, 'r', libver='latest', swmr=True)
ea, fa, bt = f['ea'], f['fa'], f['bt']
print('ready', flush=True)
seen_ea = seen_bt = seen_fa = 0
polls = grew = 0
deadline = time.time() + 120
while (seen_ea, seen_bt, seen_fa) != (n, n, n):
    assert time.time() < deadline, ('timeout', seen_ea, seen_bt, seen_fa)
    ea.refresh(); bt.refresh(); fa.refresh()
    m = ea.shape[0]
    if m > seen_ea:
        v = ea[seen_ea:m]
        assert (v == np.arange(seen_ea, m)).all(), ('ea', seen_ea, m, v)
        seen_ea = m
        grew += 1
    m = bt.shape[0]
    if m > seen_bt:
        v = bt[seen_bt:m]
        i = np.arange(seen_bt, m)
        assert (v[:, 0] == i).all() and (v[:, 1] == -i).all(), ('bt', seen_bt, m)
        seen_bt = m
    v = fa[:]
    i = np.arange(n)
    assert ((v == i) | (v == -1)).all(), ('fa', v)
    assert (v[:seen_fa] == i[:seen_fa]).all(), ('fa lost values', seen_fa)
    w = np.nonzero(v == i)[0]
    seen_fa = max(seen_fa, int(w.max()) + 1 if len(w) else 0)
    polls += 1
print('ok', polls, grew, flush=True)
"#;

#[test]
fn our_swmr_writer_is_read_by_h5py_and_h5dump() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let h5dump = h5_oracle::require("h5dump", h5_oracle::tool("h5dump"));
    let (flushes, per) = (1000u64, 10u64);
    let n = flushes * per;
    let d = dir("our-writer");
    let p = d.join("w.h5");
    let f = File::create_with(&p, FileFormat::Latest).unwrap();
    let ea = f
        .new_dataset::<i64>()
        .shape(&[0])
        .max_shape(&[None])
        .chunk(&[16])
        .create("ea")
        .unwrap();
    let fa = f
        .new_dataset::<i64>()
        .shape(&[n])
        .chunk(&[16])
        .fill_value(-1)
        .create("fa")
        .unwrap();
    let bt = f
        .new_dataset::<i64>()
        .shape(&[0, 2])
        .max_shape(&[None, None])
        .chunk(&[16, 2])
        .create("bt")
        .unwrap();
    for (ds, index) in [
        (&ea, "ExtensibleArray"),
        (&fa, "FixedArray"),
        (&bt, "BTreeV2"),
    ] {
        let layout = format!("{:?}", ds.layout().unwrap());
        assert!(layout.contains(index), "{}: {layout}", ds.path());
    }
    f.start_swmr().unwrap();
    let child = Command::new(&py)
        .args(["-c", H5PY_READER, p.to_str().unwrap(), &n.to_string()])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = Child(child);
    let mut out = BufReader::new(child.0.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready");
    for k in 0..flushes {
        let (lo, hi) = (k * per, (k + 1) * per);
        let v: Vec<i64> = (lo as i64..hi as i64).collect();
        ea.append(&v).unwrap();
        fa.write_slab(&[lo], &[per], &v).unwrap();
        let rows: Vec<i64> = v.iter().flat_map(|&i| [i, -i]).collect();
        bt.append(&rows).unwrap();
        f.flush().unwrap();
        // The reference h5dump reads the file as it is between two flushes (on a copy whose
        // marks `h5 clear` reset: the reference tools do not open a file marked open).
        if let (Some(h5dump), true) = (&h5dump, k % 250 == 125) {
            let snap = d.join(format!("snap{k}.h5"));
            std::fs::copy(&p, &snap).unwrap();
            assert_eq!(File::clear_status_flags(&snap).unwrap(), Some(0x5));
            let out = h5_oracle::run(h5dump, &["-d", "/ea", snap.to_str().unwrap()], b"")
                .unwrap_or_else(|e| panic!("h5dump of the file after flush {k}: {e}"));
            let text = String::from_utf8_lossy(&out);
            assert!(
                text.contains(&format!(
                    "DATASPACE  SIMPLE {{ ( {hi} ) / ( H5S_UNLIMITED ) }}"
                )),
                "{text}"
            );
            assert!(text.contains(&format!("{}", hi - 1)), "{text}");
        }
    }
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    let status = child.0.wait().unwrap();
    assert!(status.success(), "the h5py reader failed: {rest}");
    eprintln!("h5py reader: {}", rest.trim());
    assert!(rest.starts_with("ok "), "{rest}");
    f.close().unwrap();
    if let Some(h5dump) = &h5dump {
        h5_oracle::run(h5dump, &[p.to_str().unwrap()], b"").unwrap();
    }
}

#[test]
fn files_are_locked_against_the_reference_librarys_writers() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let d = dir("locks");
    // h5py holds a file open for writing (an exclusive lock): we are refused.
    let p = d.join("theirs.h5");
    let hold = r#"
import sys, h5py
f = h5py.File(sys.argv[1], 'w', libver='latest')
f.create_dataset('x', data=[1, 2, 3])
f.flush()
print('ready', flush=True)
sys.stdin.readline()
"#;
    let child = Command::new(&py)
        .args(["-c", hold, p.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = Child(child);
    let mut out = BufReader::new(child.0.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready");
    for e in [
        File::open(&p).map(drop).unwrap_err(),
        File::open_rw(&p).map(drop).unwrap_err(),
    ] {
        assert_eq!(e.kind(), ErrorKind::InUse, "{e}");
        assert!(e.to_string().contains("unable to lock"), "{e}");
    }
    child.0.stdin.take().unwrap().write_all(b"\n").unwrap();
    assert!(child.0.wait().unwrap().success());
    assert_eq!(File::open(&p).unwrap().dataset("x").unwrap().len(), 3);

    // Our writer holds a file: the reference library's writer is refused, its reader reads
    // what was flushed.
    let q = d.join("ours.h5");
    let f = File::create_with(&q, FileFormat::Latest).unwrap();
    f.new_dataset::<i32>()
        .shape(&[2])
        .create("y")
        .unwrap()
        .write(&[7, 8])
        .unwrap();
    f.flush().unwrap();
    let write = "import sys, h5py; h5py.File(sys.argv[1], 'a')";
    let e = h5_oracle::run(&py, &["-c", write, q.to_str().unwrap()], b"").unwrap_err();
    assert!(e.contains("unable to lock file"), "{e}");
    let read = "import sys, h5py; print(h5py.File(sys.argv[1], 'r')['y'][:].tolist())";
    let out = h5_oracle::run(&py, &["-c", read, q.to_str().unwrap()], b"").unwrap();
    assert_eq!(String::from_utf8_lossy(&out).trim(), "[7, 8]");
    f.close().unwrap();
    h5_oracle::run(&py, &["-c", write, q.to_str().unwrap()], b"").unwrap();
}

#[test]
fn a_latest_format_file_opened_for_writing_starts_swmr_too() {
    let p = dir("reopened").join("w.h5");
    let f = File::create_with(&p, FileFormat::Latest).unwrap();
    f.new_dataset::<u16>()
        .shape(&[2])
        .max_shape(&[None])
        .chunk(&[3])
        .create("x")
        .unwrap()
        .write(&[1, 2])
        .unwrap();
    f.close().unwrap();
    let f = File::open_rw(&p).unwrap();
    f.start_swmr().unwrap();
    assert_eq!(status_flags(&p), 0x5);
    let r = File::open_with(&p, swmr()).unwrap();
    let x = f.dataset("x").unwrap();
    let rx = r.dataset("x").unwrap();
    for k in 0..10u16 {
        x.append(&[k, k + 1]).unwrap();
        f.flush().unwrap();
        rx.refresh().unwrap();
        assert_eq!(rx.len(), 4 + 2 * u64::from(k));
    }
    let e = f.create_group("g").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    f.close().unwrap();
    assert_eq!(status_flags(&p), 0);
    let v = File::open(&p)
        .unwrap()
        .dataset("x")
        .unwrap()
        .read::<u16>()
        .unwrap();
    assert_eq!(&v[..4], [1, 2, 0, 1]);
    assert_eq!(v.len(), 22);
}

#[cfg(unix)]
#[test]
fn a_swmr_read_of_a_structure_being_rewritten_is_retried_a_bounded_number_of_times() {
    let p = dir("retry").join("w.h5");
    let f = File::create_with(&p, FileFormat::Latest).unwrap();
    f.new_dataset::<i32>()
        .shape(&[3])
        .chunk(&[3])
        .create("x")
        .unwrap()
        .write(&[4, 5, 6])
        .unwrap();
    f.close().unwrap();
    let addr = File::open(&p)
        .unwrap()
        .walk()
        .unwrap()
        .into_iter()
        .find(|(path, _, _)| path == "/x")
        .unwrap()
        .1
         .0;
    let r = File::open_with(&p, swmr()).unwrap();
    let x = r.dataset("x").unwrap();
    let good = std::fs::read(&p).unwrap();
    let mut torn = good.clone();
    // A byte of the header's messages changed: its checksum no longer matches, as when a
    // reader reads a header the writer is rewriting.
    torn[addr as usize + 20] ^= 0xff;
    let write = |bytes: &[u8]| {
        use std::os::unix::fs::FileExt;
        let h = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
        h.write_all_at(bytes, 0).unwrap();
    };
    write(&torn);
    let restore = {
        let good = good.clone();
        let p = p.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(150));
            use std::os::unix::fs::FileExt;
            let h = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
            h.write_all_at(&good, 0).unwrap();
        })
    };
    let t0 = std::time::Instant::now();
    x.refresh().unwrap();
    assert_eq!(x.read::<i32>().unwrap(), [4, 5, 6]);
    assert!(t0.elapsed() >= std::time::Duration::from_millis(100));
    restore.join().unwrap();
    // A structure that stays bad is reported after the bounded retry, not waited on forever.
    write(&torn);
    let t0 = std::time::Instant::now();
    let e = x.refresh().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Format, "{e}");
    assert!(t0.elapsed() < std::time::Duration::from_secs(10));
    // A plain reader does not retry.
    write(&good);
    let plain = File::open(&p).unwrap();
    write(&torn);
    let t0 = std::time::Instant::now();
    assert!(plain.dataset("x").is_err());
    assert!(t0.elapsed() < std::time::Duration::from_millis(100));
}
