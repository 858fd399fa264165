//! Onion-driver files of the conformance corpus, every revision, against HDF5 2.x (the
//! library bundled with h5py, driven through `tests/support/onion_oracle.py`): the bytes each
//! revision presents, and the values of every dataset. Damaged onion files fail cleanly.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use h5_io::onion::{revision_count, OnionSource, LATEST_REVISION};
use h5_io::source::{FileSource, MemSource, ReadAt};
use h5_io::{File, ObjectKind, OpenOptions};

use h5_oracle::corpus;

/// The corpus onion files with their revision counts.
const FILES: [(&str, u64); 3] = [
    ("tst_onion_objs.h5", 6),
    ("tst_onion_dset_ext.h5", 2),
    ("tst_onion_dset_1d.h5", 3),
];

/// A scratch copy of a corpus file and its onion file.
fn scratch(name: &str, tag: &str) -> Option<PathBuf> {
    let src = corpus("h5dump-develop").join(name);
    if !src.is_file() {
        eprintln!("skipping: {} is absent", src.display());
        return None;
    }
    let dir = std::env::temp_dir().join(format!("h5-io-onion-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dst = dir.join(name);
    std::fs::copy(&src, &dst).unwrap();
    let onion = format!("{name}.onion");
    std::fs::copy(corpus("h5dump-develop").join(&onion), dir.join(&onion)).unwrap();
    Some(dst)
}

/// Every dataset of the file with its values as i64.
fn datasets(f: &File) -> Vec<(String, Vec<i64>)> {
    let mut out = Vec::new();
    for (path, _, kind) in f.walk().unwrap() {
        if kind == ObjectKind::Dataset {
            let d = f.dataset(&path).unwrap();
            out.push((path, d.read::<i64>().unwrap()));
        }
    }
    out
}

#[test]
fn revision_counts() {
    for (name, count) in FILES {
        let Some(p) = scratch(name, "count") else {
            continue;
        };
        assert_eq!(revision_count(&p).unwrap(), count, "{name}");
        let s = OnionSource::open(&p, 0).unwrap();
        assert_eq!(s.revision_count(), count, "{name}");
        let e = OnionSource::open(&p, count + 1).unwrap_err();
        assert!(e.to_string().contains("out of range"), "{name}: {e}");
        // The dumps of the corpus: revision 3 of tst_onion_objs and revision 1 of the others.
        let rev = if name == "tst_onion_objs.h5" { 3 } else { 1 };
        let f = File::open_onion(&p, rev, OpenOptions::default()).unwrap();
        let ds = datasets(&f);
        match name {
            "tst_onion_objs.h5" => {
                assert_eq!(ds.len(), 1);
                assert_eq!(ds[0].1, [0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6]);
                let a = f.root().unwrap().attr("file_attribute").unwrap();
                assert_eq!(a.read::<i32>().unwrap(), [0, 0, 0, 0]);
            }
            "tst_onion_dset_ext.h5" => {
                assert_eq!(f.dataset("/DS1").unwrap().shape(), [8, 4]);
            }
            _ => {
                assert_eq!(ds[0].1, (16..32).collect::<Vec<i64>>());
            }
        }
        let _ = std::fs::remove_dir_all(p.parent().unwrap());
    }
}

#[test]
fn revisions_match_hdf5() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/onion_oracle.py");
    let mut compared = 0;
    for (name, count) in FILES {
        let Some(p) = scratch(name, "oracle") else {
            continue;
        };
        let dir = p.parent().unwrap().join("images");
        std::fs::create_dir_all(&dir).unwrap();
        let out = Command::new(&py)
            .arg(&script)
            .arg(&p)
            .arg(&dir)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let Some(_) = h5_oracle::require(
            "libhdf5 2.x onion driver (via h5py)",
            if out.status.success() {
                Ok(())
            } else {
                Err(String::from_utf8_lossy(&out.stderr).into_owned())
            },
        ) else {
            return;
        };
        let mut seen = Vec::new();
        for line in stdout.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            if let Some(r) = v.get("refused") {
                assert_eq!(r.as_u64(), Some(count + 1), "{name}");
                assert!(OnionSource::open(&p, count + 1).is_err());
                continue;
            }
            let rev = match &v["revision"] {
                serde_json::Value::String(_) => LATEST_REVISION,
                r => r.as_u64().unwrap(),
            };
            seen.push(rev);
            let image = std::fs::read(v["image"].as_str().unwrap()).unwrap();
            let s = OnionSource::open(&p, rev).unwrap();
            assert!(
                s.len().unwrap() >= image.len() as u64,
                "{name} revision {rev}"
            );
            let mut ours = vec![0u8; image.len()];
            s.read_exact_at(0, &mut ours).unwrap();
            assert!(
                ours == image,
                "{name} revision {rev}: bytes differ from HDF5's"
            );
            let f = File::open_onion(&p, rev, OpenOptions::default()).unwrap();
            let ds = datasets(&f);
            let want = v["datasets"].as_object().unwrap();
            assert_eq!(ds.len(), want.len(), "{name} revision {rev}");
            for (path, values) in &ds {
                let w: Vec<i64> = want[path]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_i64().unwrap())
                    .collect();
                assert_eq!(values, &w, "{name} revision {rev} {path}");
            }
            compared += 1;
        }
        let mut want: Vec<u64> = (0..=count).collect();
        want.insert(0, LATEST_REVISION);
        assert_eq!(seen, want, "{name}");
        let _ = std::fs::remove_dir_all(p.parent().unwrap());
    }
    eprintln!("{compared} revisions compared with HDF5");
}

/// Truncated and damaged onion files: every open is an error or a file, never a panic, and
/// damage to the history's structures is always noticed.
#[test]
fn damaged_onion_files_fail_cleanly() {
    let Some(p) = scratch("tst_onion_dset_1d.h5", "bad") else {
        return;
    };
    let original: Arc<dyn ReadAt> = Arc::new(FileSource::open(&p).unwrap());
    let onion = std::fs::read(p.with_extension("h5.onion")).unwrap();
    let open = |bytes: Vec<u8>, rev: u64| {
        OnionSource::new(original.clone(), Arc::new(MemSource::new(bytes)), rev)
    };
    let from = |s: OnionSource| File::from_source(Arc::new(s), None, OpenOptions::default());
    // The history is at the end: every truncation loses it.
    for n in 0..onion.len() {
        let e = open(onion[..n].to_vec(), 1).unwrap_err();
        assert!(!e.to_string().is_empty());
    }
    // Every byte of the header, history and revision records is covered by a checksum; the
    // pages are not, and a damaged page gives either a file or an error.
    let h = h5_io::onion::OnionHistory::read(&MemSource::new(onion.clone())).unwrap();
    // Which revisions notice a change of each byte: the header and history, all; a revision
    // record, the revision it describes (its number plus one); a page, none for certain.
    let mut covered: Vec<Option<u64>> = vec![None; onion.len()];
    covered[..40].fill(Some(0));
    let ha = h.header().history_addr as usize;
    covered[ha..ha + h.header().history_size as usize].fill(Some(0));
    for (i, r) in h.history().records.iter().enumerate() {
        let a = r.phys_addr as usize;
        covered[a..a + r.record_size as usize].fill(Some(i as u64 + 1));
    }
    for (at, &c) in covered.iter().enumerate() {
        let mut m = onion.clone();
        m[at] ^= 0x5a;
        for rev in [1, 3] {
            match open(m.clone(), rev) {
                Ok(s) => {
                    assert!(
                        c.is_none_or(|c| c != 0 && c != rev),
                        "byte {at:#x} of a checksummed structure changed unnoticed"
                    );
                    if let Ok(f) = from(s) {
                        let _ = f.walk().map(|objs| {
                            for (path, _, kind) in objs {
                                if kind == ObjectKind::Dataset {
                                    let _ = f.dataset(&path).and_then(|d| d.read_raw());
                                }
                            }
                        });
                    }
                }
                Err(e) => assert!(!e.to_string().is_empty()),
            }
        }
    }
    // A missing onion file.
    let lone = p.with_file_name("lone.h5");
    std::fs::copy(&p, &lone).unwrap();
    let e = File::open_onion(&lone, 1, OpenOptions::default()).unwrap_err();
    assert!(e.to_string().contains("lone.h5.onion"), "{e}");
    let _ = std::fs::remove_dir_all(p.parent().unwrap());
}
