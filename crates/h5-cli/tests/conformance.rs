//! h5dump conformance: `run_index.py` over the shared h5dump corpora with `h5 dump` as the
//! program.
//!
//! - `h5dump_corpus_rows_pass`: the DDL rows of `corpus/h5dump` (expected outputs of h5dump
//!   1.10.8). Every row listed in `conformance_baseline.txt` must pass.
//! - `h5dump_develop_rows_pass`: the DDL rows of `corpus/h5dump-develop` (expected outputs of
//!   the HDF5 2.x h5dump: complex numbers, half floats, revised references, the onion driver),
//!   run as `h5 dump --compat=2.0` (`h5dump-develop-wrapper.sh`). Baseline
//!   `conformance_develop_baseline.txt`.
//! - `h5dump_xml_rows_pass` / `h5dump_develop_xml_rows_pass`: the XML rows (expected file
//!   `*.xml`, `h5dump --xml`) of each corpus. Baselines `conformance_xml_baseline.txt` and
//!   `conformance_develop_xml_baseline.txt`.
//!
//! - `h5ls_rows_pass`, `h5stat_rows_pass`, `h5diff_rows_pass`: every row of `corpus/h5ls`,
//!   `corpus/h5stat` and `corpus/h5diff` (the reference tools' own tests) with `h5 ls`,
//!   `h5 stat` and `h5 diff` as the programs. Baselines `conformance_h5ls_baseline.txt`,
//!   `conformance_h5stat_baseline.txt` and `conformance_h5diff_baseline.txt`.
//!
//! Each h5dump test runs only its own rows: the corpus folder is mirrored (symbolic links) into
//! a scratch folder with an `INDEX.tsv` holding those rows; the other tools' tests run their
//! corpus folder whole. `H5_BLESS=1` rewrites a baseline
//! with the rows that pass now. Each prints its pass counts: all its rows, and the rows the
//! reference h5dump itself passes (its `VERIFY_*.tsv`).

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

/// A scratch copy of corpus folder `dir` (symbolic links to its files) whose `INDEX.tsv`
/// keeps only the XML rows (`xml`) or only the others.
fn select_rows(dir: &Path, tag: &str, xml: bool) -> std::io::Result<PathBuf> {
    let kind = if xml { "xml" } else { "ddl" };
    let out = std::env::temp_dir().join(format!(
        "h5-conformance-{tag}-{kind}-{}",
        std::process::id()
    ));
    if out.exists() {
        std::fs::remove_dir_all(&out)?;
    }
    std::fs::create_dir_all(&out)?;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if !path.is_file() || entry.file_name() == "INDEX.tsv" {
            continue;
        }
        let to = out.join(entry.file_name());
        #[cfg(unix)]
        std::os::unix::fs::symlink(&path, &to)?;
        #[cfg(not(unix))]
        std::fs::copy(&path, &to).map(|_| ())?;
    }
    let index = std::fs::read_to_string(dir.join("INDEX.tsv"))?;
    let mut kept = String::new();
    for (i, line) in index.lines().enumerate() {
        let expected = line.split('\t').next().unwrap_or("");
        if i == 0 || expected.ends_with(".xml") == xml {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    std::fs::write(out.join("INDEX.tsv"), kept)?;
    Ok(out)
}

/// Which rows of a corpus a test runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rows {
    /// h5dump's rows whose expected output is not XML.
    Ddl,
    /// h5dump's XML rows.
    Xml,
    /// Every row.
    All,
}

impl Rows {
    fn selects(self, expected: &str) -> bool {
        match self {
            Rows::Ddl => !expected.ends_with(".xml"),
            Rows::Xml => expected.ends_with(".xml"),
            Rows::All => true,
        }
    }
}

/// Run the DDL rows (or with `xml` the XML rows) of corpus `name` with `wrapper` (a script in
/// `tests/`) as the h5dump program, and check them against `baseline` (a file in `tests/`).
fn run_corpus(name: &str, wrapper: &str, baseline: &str, xml: bool) {
    let rows = if xml { Rows::Xml } else { Rows::Ddl };
    run_rows(name, "h5dump", wrapper, baseline, rows);
}

/// Run the `rows` of corpus `name` with `wrapper` (a script in `tests/`) in place of the
/// reference `tool`, and check them against `baseline` (a file in `tests/`).
fn run_rows(name: &str, tool: &str, wrapper: &str, baseline: &str, select: Rows) {
    let xml = select == Rows::Xml;
    let Some(shared) = shared_dir() else {
        eprintln!("shared corpus not found; skipped");
        return;
    };
    let dir = shared.join("corpus").join(name);
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let wrapper = manifest.join("tests").join(wrapper);
    let rows = if select == Rows::All {
        dir.clone()
    } else {
        select_rows(&dir, name, xml).expect("scratch copy of the corpus")
    };
    let out = Command::new("python3")
        .arg(shared.join("corpus/tools/run_index.py"))
        .arg(&rows)
        .arg(&wrapper)
        .env("H5_BIN", env!("CARGO_BIN_EXE_h5"))
        .output();
    if select != Rows::All {
        let _ = std::fs::remove_dir_all(&rows);
    }
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
    // What the reference tool (1.10.8) gives on the same rows.
    let verify =
        std::fs::read_to_string(dir.join(format!("VERIFY_{tool}-1.10.8.tsv"))).unwrap_or_default();
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
    let (mut selected, mut selected_pass) = (0, 0);
    let mut failures = String::new();
    for l in text.lines() {
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() < 3 || f[0] == "expected_file" {
            continue;
        }
        let key = format!("{}\t{}", f[0], f[1]);
        let pass = f[2] == "PASS";
        if pass {
            passed.insert(key.clone());
        }
        if select.selects(f[0]) {
            selected += 1;
            selected_pass += usize::from(pass);
        }
        if select.selects(f[0]) && reference.get(&key).map(String::as_str) == Some("PASS") {
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
    let kind = match select {
        Rows::Xml => "XML",
        Rows::Ddl => "non-XML",
        Rows::All => "all",
    };
    let report = if xml {
        format!("{name}-xml-conformance.tsv")
    } else {
        format!("{name}-conformance.tsv")
    };
    let _ = std::fs::write(report_dir.join(report), &*text);
    eprintln!(
        "{name}: {} distinct rows pass ({}); {kind} rows: {selected_pass} of {selected}; \
         {kind} rows the reference {tool} 1.10.8 passes: {counted_pass} of {counted}",
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
    run_corpus(
        "h5dump",
        "h5dump-wrapper.sh",
        "conformance_baseline.txt",
        false,
    );
}

#[test]
fn h5dump_develop_rows_pass() {
    run_corpus(
        "h5dump-develop",
        "h5dump-develop-wrapper.sh",
        "conformance_develop_baseline.txt",
        false,
    );
}

#[test]
fn h5dump_xml_rows_pass() {
    run_corpus(
        "h5dump",
        "h5dump-wrapper.sh",
        "conformance_xml_baseline.txt",
        true,
    );
}

#[test]
fn h5dump_develop_xml_rows_pass() {
    run_corpus(
        "h5dump-develop",
        "h5dump-develop-wrapper.sh",
        "conformance_develop_xml_baseline.txt",
        true,
    );
}

#[test]
fn h5ls_rows_pass() {
    run_rows(
        "h5ls",
        "h5ls",
        "h5ls-wrapper.sh",
        "conformance_h5ls_baseline.txt",
        Rows::All,
    );
}

#[test]
fn h5stat_rows_pass() {
    run_rows(
        "h5stat",
        "h5stat",
        "h5stat-wrapper.sh",
        "conformance_h5stat_baseline.txt",
        Rows::All,
    );
}

#[test]
fn h5diff_rows_pass() {
    run_rows(
        "h5diff",
        "h5diff",
        "h5diff-wrapper.sh",
        "conformance_h5diff_baseline.txt",
        Rows::All,
    );
}
