//! Every malformed file of the corpus (`bad/`) is opened and walked: every object, every
//! attribute, every dataset read (when not huge). Each file runs in its own thread with a
//! time limit; the reader must answer with errors or contents, never a panic or a hang.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use h5_io::{File, Node};

use h5_oracle::corpus;

/// Walk a whole file; returns (objects, errors) counts.
fn walk(path: &Path) -> (usize, Vec<String>) {
    let mut errors = Vec::new();
    let f = match File::open(path) {
        Ok(f) => f,
        Err(e) => return (0, vec![e.to_string()]),
    };
    let objs = match f.walk() {
        Ok(o) => o,
        Err(e) => return (0, vec![e.to_string()]),
    };
    let n = objs.len();
    for (p, _, _) in objs {
        match f.node(&p) {
            Ok(Node::Dataset(d)) => {
                let bytes = d.len().saturating_mul(d.element_size() as u64);
                if bytes <= 1 << 26 {
                    if let Err(e) = d.read_raw() {
                        errors.push(e.to_string());
                    }
                    if d.datatype().has_variable_length() {
                        if let Err(e) = d.read::<h5_types::h5type::VarLenUnicode>() {
                            errors.push(e.to_string());
                        }
                    }
                }
                match d.attrs() {
                    Ok(v) => {
                        for a in v {
                            let _ = a.read_raw();
                        }
                    }
                    Err(e) => errors.push(e.to_string()),
                }
            }
            Ok(Node::Group(g)) => {
                if let Err(e) = g.attrs() {
                    errors.push(e.to_string());
                }
                if let Err(e) = g.links() {
                    errors.push(e.to_string());
                }
            }
            Ok(Node::Datatype(_)) => {}
            Err(e) => errors.push(e.to_string()),
        }
    }
    (n, errors)
}

#[test]
fn bad_files_give_errors_not_panics_or_hangs() {
    let dir = corpus("bad");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        eprintln!("skipping: no corpus at {}", dir.display());
        return;
    };
    let mut files: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "h5"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    for p in files {
        let (tx, rx) = mpsc::channel();
        let q = p.clone();
        std::thread::spawn(move || {
            let r = std::panic::catch_unwind(|| walk(&q));
            let _ = tx.send(r);
        });
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(Ok((n, errs))) => {
                eprintln!("{name}: {n} objects, {} errors", errs.len());
                for e in errs.iter().take(5) {
                    eprintln!("    {e}");
                    assert!(!e.is_empty());
                }
            }
            Ok(Err(_)) => failures.push(format!("{name}: panicked")),
            Err(_) => failures.push(format!("{name}: no answer within 60 s")),
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
