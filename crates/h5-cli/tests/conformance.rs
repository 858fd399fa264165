//! h5dump conformance: `run_index.py` over the shared h5dump corpora with `h5 dump` as the
//! program.
//!
//! - `h5dump_corpus_rows_pass`: `corpus/h5dump` (expected outputs of h5dump 1.10.8). Every row
//!   listed in `conformance_baseline.txt` must pass.
//! - `h5dump_develop_rows_pass`: `corpus/h5dump-develop` (expected outputs of the HDF5 2.x
//!   h5dump: complex numbers, half floats, revised references), run as
//!   `h5 dump --compat=2.0` (`h5dump-develop-wrapper.sh`). Baseline
//!   `conformance_develop_baseline.txt`.
//!
//! `H5_BLESS=1` rewrites a baseline with the rows that pass now. Both print their pass counts:
//! all rows, and the non-XML rows the reference h5dump itself passes (its `VERIFY_*.tsv`).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

fn shared_dir() -> Option<PathBuf> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["../../../shared", "../../../../shared"]
        .iter()
        .map(|p| base.join(p))
        .find(|p| p.join("corpus/tools/run_index.py").exists())
}

fn is_xml(args: &str) -> bool {
    args.split_whitespace().any(|a| {
        matches!(a, "-x" | "-u" | "--xml" | "--use-dtd")
            || a.starts_with("--xml")
            || a.starts_with("--use-dtd")
    })
}

/// Run the corpus `name` with `wrapper` as the h5dump program and check it against
/// `baseline` (both files in `tests/`).
fn run_corpus(name: &str, wrapper: &str, baseline: &str) {
    let Some(shared) = shared_dir() else {
        eprintln!("shared corpus not found; skipped");
        return;
    };
    let dir = shared.join("corpus").join(name);
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let wrapper = manifest.join("tests").join(wrapper);
    let out = Command::new("python3")
        .arg(shared.join("corpus/tools/run_index.py"))
        .arg(&dir)
        .arg(&wrapper)
        .env("H5_BIN", env!("CARGO_BIN_EXE_h5"))
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => {
            eprintln!("python3 not available ({e}); skipped");
            return;
        }
    };
    assert!(
        out.status.success(),
        "run_index.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // What the reference h5dump 1.10.8 gives on the same rows.
    let verify = std::fs::read_to_string(dir.join("VERIFY_h5dump-1.10.8.tsv")).unwrap_or_default();
    let reference: HashMap<String, String> = verify
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Some((
                format!("{}\t{}", f.first()?, f.get(1)?),
                f.get(2)?.to_string(),
            ))
        })
        .collect();
    let mut passed = BTreeSet::new();
    let (mut counted, mut counted_pass) = (0, 0);
    let (mut non_xml, mut non_xml_pass) = (0, 0);
    let mut failures = String::new();
    for l in text.lines() {
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() < 3 {
            continue;
        }
        let key = format!("{}\t{}", f[0], f[1]);
        let pass = f[2] == "PASS";
        if pass {
            passed.insert(key.clone());
        }
        if !is_xml(f[1]) {
            non_xml += 1;
            non_xml_pass += usize::from(pass);
        }
        if !is_xml(f[1]) && reference.get(&key).map(String::as_str) == Some("PASS") {
            counted += 1;
            if pass {
                counted_pass += 1;
            } else {
                failures.push_str(l);
                failures.push('\n');
            }
        }
    }
    let report_dir = manifest.join("../../target/h5-cli-reports");
    let _ = std::fs::create_dir_all(&report_dir);
    let _ = std::fs::write(report_dir.join(format!("{name}-conformance.tsv")), &*text);
    eprintln!(
        "{name}: {} distinct rows pass ({}); non-XML rows: {non_xml_pass} of {non_xml}; \
         non-XML rows the reference h5dump 1.10.8 passes: {counted_pass} of {counted}",
        passed.len(),
        String::from_utf8_lossy(&out.stderr).trim()
    );
    if !failures.is_empty() {
        eprintln!("failing counted rows:\n{failures}");
    }
    let baseline_path = manifest.join("tests").join(baseline);
    if std::env::var_os("H5_BLESS").is_some() {
        let body: String = passed.iter().map(|k| format!("{k}\n")).collect();
        std::fs::write(&baseline_path, body).expect("write baseline");
        return;
    }
    let baseline = std::fs::read_to_string(&baseline_path).unwrap_or_default();
    let lost: Vec<&str> = baseline
        .lines()
        .filter(|l| !l.is_empty() && !passed.contains(*l))
        .collect();
    assert!(
        lost.is_empty(),
        "rows that passed before now fail:\n{}",
        lost.join("\n")
    );
}

#[test]
fn h5dump_corpus_rows_pass() {
    run_corpus("h5dump", "h5dump-wrapper.sh", "conformance_baseline.txt");
}

#[test]
fn h5dump_develop_rows_pass() {
    run_corpus(
        "h5dump-develop",
        "h5dump-develop-wrapper.sh",
        "conformance_develop_baseline.txt",
    );
}
