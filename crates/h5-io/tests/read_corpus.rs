//! Read every dataset and attribute of the conformance corpus and of the h5py fixtures, and
//! compare with what h5py reads: the raw bytes in the file datatype (CRC-32 and length) for
//! fixed-size types, the values for variable-length strings. Every mismatch is listed;
//! mismatches not in `tests/known_mismatches.txt` fail the test.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use h5_io::{File, Node};
use h5_types::h5type::{VarLenArray, VarLenUnicode};
use h5_types::Datatype;

use h5_oracle::corpus;

fn h5_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "h5"))
        .collect();
    v.sort();
    v
}

fn oracle(py: &Path, dir: &Path, files: &[PathBuf]) -> Vec<serde_json::Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/h5py_dump.py");
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let out = Command::new(py)
        .arg(&script)
        .args(&names)
        .current_dir(dir)
        .output()
        .expect("run h5py_dump.py");
    assert!(
        out.status.success(),
        "h5py_dump.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

fn crc(b: &[u8]) -> u32 {
    let mut c = flate2::Crc::new();
    c.update(b);
    c.sum()
}

/// The memory type h5py reads a file type with: fixed-length strings become NUL-padded.
fn h5py_type(dt: &Datatype) -> Datatype {
    use h5_types::{ArrayType, CompoundType, StrPad, StringType};
    match dt {
        Datatype::String(s) if !s.is_variable() && s.pad() != StrPad::NullPad => {
            StringType::fixed(dt.size(), StrPad::NullPad, s.cset()).into()
        }
        Datatype::Compound(c) => {
            let mut out = CompoundType::new(c.size()).unwrap();
            for m in c.members() {
                out.insert(m.name(), m.offset(), h5py_type(m.datatype()))
                    .unwrap();
            }
            out.into()
        }
        Datatype::Array(a) => ArrayType::new(h5py_type(a.base()), a.dims())
            .unwrap()
            .into(),
        other => other.clone(),
    }
}

/// Zero the bytes of compound elements that no member covers (h5py's buffer has zeros there
/// whenever the library converts, as it does for compounds with bitfield members).
fn zero_padding(dt: &Datatype, bytes: &mut [u8]) {
    fn covered(dt: &Datatype, base: usize, mask: &mut [bool]) {
        match dt {
            Datatype::Compound(c) => {
                for m in c.members() {
                    covered(m.datatype(), base + m.offset(), mask);
                }
            }
            Datatype::Array(a) => {
                let s = a.base().size();
                for i in 0..a.len() as usize {
                    covered(a.base(), base + i * s, mask);
                }
            }
            other => {
                for b in mask.iter_mut().skip(base).take(other.size()) {
                    *b = true;
                }
            }
        }
    }
    let size = dt.size();
    let mut mask = vec![false; size];
    covered(dt, 0, &mut mask);
    for e in bytes.chunks_mut(size.max(1)) {
        for (b, m) in e.iter_mut().zip(&mask) {
            if !m {
                *b = 0;
            }
        }
    }
}

fn check_raw(what: &str, raw: &[u8], dt: &Datatype, o: &serde_json::Value, bad: &mut Vec<String>) {
    let padded;
    let raw = if matches!(dt, Datatype::Compound(_)) && dt.detect_class(h5_types::Class::Bitfield) {
        let mut b = raw.to_vec();
        zero_padding(dt, &mut b);
        padded = b;
        &padded[..]
    } else {
        raw
    };
    let mt = h5py_type(dt);
    let converted;
    let raw = if &mt != dt {
        match h5_types::convert::convert(dt, &mt, raw) {
            Ok(b) => {
                converted = b;
                &converted[..]
            }
            Err(e) => {
                bad.push(format!("{what}: converting for h5py: {e}"));
                return;
            }
        }
    } else {
        raw
    };
    let len = o["len"].as_u64().unwrap_or(0);
    let want = o["crc"].as_u64().unwrap_or(0) as u32;
    if raw.len() as u64 != len {
        bad.push(format!("{what}: {} bytes, h5py has {len}", raw.len()));
    } else if crc(raw) != want {
        bad.push(format!("{what}: bytes differ from h5py's"));
    }
}

/// Integer and floating-point types: h5py's values for them are compared as f64.
fn numeric(dt: &Datatype) -> bool {
    matches!(dt, Datatype::Integer(_) | Datatype::Float(_))
}

fn check_f64(
    what: &str,
    got: h5_io::Result<Vec<f64>>,
    o: &serde_json::Value,
    bad: &mut Vec<String>,
) {
    let Some(want) = o.get("f64crc").and_then(|v| v.as_u64()) else {
        return;
    };
    match got {
        Ok(v) => {
            let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
            if crc(&b) != want as u32 {
                bad.push(format!("{what}: values as f64 differ from h5py's"));
            }
        }
        Err(e) => bad.push(format!("{what}: reading as f64: {e}")),
    }
}

fn check_vlen(
    what: &str,
    got: h5_io::Result<Vec<VarLenArray<f64>>>,
    o: &serde_json::Value,
    bad: &mut Vec<String>,
) {
    let want: Vec<Vec<f64>> = o["vlen"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap_or(f64::NAN))
                .collect()
        })
        .collect();
    match got {
        Ok(v) => {
            let got: Vec<Vec<f64>> = v.iter().map(|a| a.as_slice().to_vec()).collect();
            if got != want {
                bad.push(format!("{what}: sequences {got:?}, h5py has {want:?}"));
            }
        }
        Err(e) => bad.push(format!("{what}: {e}")),
    }
}

fn check_strings(
    what: &str,
    got: h5_io::Result<Vec<VarLenUnicode>>,
    o: &serde_json::Value,
    bad: &mut Vec<String>,
) {
    let want: Vec<String> = o["strings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap_or("").to_string())
        .collect();
    match got {
        Ok(v) => {
            let got: Vec<String> = v.iter().map(|s| s.as_str().to_string()).collect();
            if got != want {
                bad.push(format!("{what}: strings {got:?}, h5py has {want:?}"));
            }
        }
        Err(e) => bad.push(format!("{what}: {e}")),
    }
}

/// Compare one file; returns the mismatches and the number of values compared.
fn compare(dir: &Path, rec: &serde_json::Value) -> (Vec<String>, usize) {
    let name = rec["file"].as_str().unwrap();
    let mut bad = Vec::new();
    let mut n = 0;
    if rec.get("error").is_some() && rec["objects"].as_array().is_none_or(|a| a.is_empty()) {
        return (bad, 0);
    }
    let f = match File::open(dir.join(name)) {
        Ok(f) => f,
        Err(e) => {
            bad.push(format!("{name}: open: {e}"));
            return (bad, 0);
        }
    };
    for o in rec["objects"].as_array().unwrap() {
        if o.get("error").is_some() || o.get("skip").is_some() || o.get("null").is_some() {
            continue;
        }
        let path = o["path"].as_str().unwrap();
        let attr = o["attr"].as_str();
        let what = match attr {
            Some(a) => format!("{name}:{path}@{a}"),
            None => format!("{name}:{path}"),
        };
        n += 1;
        let node = if path == "/" {
            f.root().map(Node::Group)
        } else {
            f.node(path)
        };
        let node = match node {
            Ok(x) => x,
            Err(e) => {
                bad.push(format!("{what}: {e}"));
                continue;
            }
        };
        match attr {
            Some(a) => {
                let at = match &node {
                    Node::Group(g) => g.attr(a),
                    Node::Dataset(d) => d.attr(a),
                    Node::Datatype(t) => t.attrs().and_then(|v| {
                        v.into_iter().find(|x| x.name() == a).ok_or_else(|| {
                            h5_io::Error::new(h5_io::ErrorKind::NotFound, "attribute")
                        })
                    }),
                };
                match at {
                    Ok(at) => {
                        if o.get("vlen").is_some() {
                            check_vlen(&what, at.read::<VarLenArray<f64>>(), o, &mut bad);
                        } else if o.get("strings").is_some() {
                            check_strings(&what, at.read::<VarLenUnicode>(), o, &mut bad);
                        } else {
                            let (raw, dt) = at.read_raw();
                            check_raw(&what, &raw, &dt, o, &mut bad);
                            if o.get("f64crc").is_some() && numeric(at.datatype()) {
                                check_f64(&what, at.read::<f64>(), o, &mut bad);
                            }
                        }
                    }
                    Err(e) => bad.push(format!("{what}: {e}")),
                }
            }
            None => {
                let Node::Dataset(d) = node else {
                    bad.push(format!("{what}: not a dataset here"));
                    continue;
                };
                if o.get("vlen").is_some() {
                    check_vlen(&what, d.read::<VarLenArray<f64>>(), o, &mut bad);
                } else if o.get("strings").is_some() {
                    check_strings(&what, d.read::<VarLenUnicode>(), o, &mut bad);
                } else {
                    match d.read_raw() {
                        Ok((raw, dt)) => check_raw(&what, &raw, &dt, o, &mut bad),
                        Err(e) => bad.push(format!("{what}: {e}")),
                    }
                    if o.get("f64crc").is_some() && numeric(d.datatype()) {
                        check_f64(&what, d.read::<f64>(), o, &mut bad);
                    }
                }
            }
        }
    }
    (bad, n)
}

fn known() -> BTreeSet<String> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/known_mismatches.txt");
    std::fs::read_to_string(p)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.to_string())
        .collect()
}

fn run_dir(dir: &Path) {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let files = h5_files(dir);
    assert!(!files.is_empty(), "no files in {}", dir.display());
    let recs = oracle(&py, dir, &files);
    let known = known();
    let mut all = Vec::new();
    let mut compared = 0;
    let typed = recs
        .iter()
        .flat_map(|r| r["objects"].as_array().cloned().unwrap_or_default())
        .filter(|o| o.get("f64crc").is_some())
        .count();
    eprintln!("{typed} of them also compared as f64 values");
    for r in &recs {
        let (bad, n) = compare(dir, r);
        compared += n;
        all.extend(bad);
    }
    let keyed: Vec<(String, &String)> = all
        .iter()
        .map(|m| (m.split(": ").next().unwrap_or("").to_string(), m))
        .collect();
    let new: Vec<&&String> = keyed
        .iter()
        .filter(|(k, _)| !known.contains(k))
        .map(|(_, m)| m)
        .collect();
    eprintln!(
        "{}: {} files, {compared} datasets/attributes compared, {} mismatches ({} known)",
        dir.display(),
        recs.len(),
        all.len(),
        all.len() - new.len()
    );
    for m in &all {
        eprintln!("  mismatch: {m}");
    }
    assert!(
        new.is_empty(),
        "{} new mismatches:\n{}",
        new.len(),
        new.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn h5dump_corpus_matches_h5py() {
    run_dir(&corpus("h5dump"));
}

#[test]
fn h5dump_develop_corpus_matches_h5py() {
    run_dir(&corpus("h5dump-develop"));
}

#[test]
fn h5py_fixtures_match_h5py() {
    run_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/h5py"));
}
