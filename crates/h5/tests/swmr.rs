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
    f.new_attr::<i32>().create("a").unwrap().write(&[1]).unwrap();
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
    assert_eq!(rx.read_hyperslab::<i64>(&[140], None, &[10], None).unwrap(), tail);
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
    assert_eq!(r.dataset("x").unwrap().read::<i32>().unwrap(), [1, 2, 3, 4, 5]);
    drop(r);
    assert_eq!(File::clear_status_flags(&copy).unwrap(), Some(0x5));
    assert_eq!(status_flags(&copy), 0);
    assert_eq!(File::clear_status_flags(&copy).unwrap(), None);
    let rw = File::open_rw(&copy).unwrap();
    assert_eq!(rw.dataset("x").unwrap().read::<i32>().unwrap(), [1, 2, 3, 4, 5]);
    rw.close().unwrap();
    if let Some(h5dump) = h5_oracle::require("h5dump", h5_oracle::tool("h5dump")) {
        let out = h5_oracle::run(&h5dump, &["-d", "/x", copy.to_str().unwrap()], b"").unwrap();
        assert!(String::from_utf8_lossy(&out).contains("1, 2, 3, 4, 5"));
    }
}
