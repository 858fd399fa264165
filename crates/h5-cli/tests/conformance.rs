//! h5dump conformance: `run_index.py` over the shared h5dump corpus with `h5 dump` as the
//! program. Every row listed in `conformance_baseline.txt` must pass (`H5_BLESS=1` rewrites the
//! list with the rows that pass now). The pass count is printed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn shared_dir() -> Option<PathBuf> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["../../../shared", "../../../../shared"]
        .iter()
        .map(|p| base.join(p))
        .find(|p| p.join("corpus/tools/run_index.py").exists())
}

#[test]
fn h5dump_corpus_rows_pass() {
    let Some(shared) = shared_dir() else {
        eprintln!("shared corpus not found; skipped");
        return;
    };
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let wrapper = manifest.join("tests/h5dump-wrapper.sh");
    let out = Command::new("python3")
        .arg(shared.join("corpus/tools/run_index.py"))
        .arg(shared.join("corpus/h5dump"))
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
    let passed: BTreeSet<String> = text
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.get(2) == Some(&"PASS")).then(|| format!("{}\t{}", f[0], f[1]))
        })
        .collect();
    eprintln!(
        "h5dump corpus: {} rows pass; {}",
        passed.len(),
        String::from_utf8_lossy(&out.stderr).trim()
    );
    let baseline_path = manifest.join("tests/conformance_baseline.txt");
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
