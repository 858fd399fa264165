//! `h5 dump NAME.h5` on every h5py fixture of h5-io (`crates/h5-io/tests/fixtures/h5py`),
//! run inside that folder, against the expected `NAME.ddl` the reference h5dump 1.10.8 wrote
//! there and the exit status `INDEX.tsv` records. Fixtures listed in
//! `fixtures_baseline.txt` must keep matching (`H5_BLESS=1` rewrites it); the count is
//! printed with the reason of each difference.
//!
//! The same for the plugin-filter fixtures (`.../fixtures/plugins`, written by h5py with
//! hdf5plugin and dumped by h5dump with hdf5plugin's plugins loaded) against
//! `plugin_fixtures_baseline.txt`.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

#[test]
fn dump_matches_h5dump_on_h5py_fixtures() {
    check_fixture_set("h5py", "fixtures_baseline.txt");
}

#[test]
fn dump_matches_h5dump_on_plugin_filter_fixtures() {
    check_fixture_set("plugins", "plugin_fixtures_baseline.txt");
}

fn check_fixture_set(set: &str, baseline: &str) {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = manifest.join("../h5-io/tests/fixtures").join(set);
    let Ok(index) = std::fs::read_to_string(dir.join("INDEX.tsv")) else {
        eprintln!("fixtures not found; skipped");
        return;
    };
    let mut passed = BTreeSet::new();
    let mut failed = Vec::new();
    let mut total = 0;
    for line in index.lines().skip(1) {
        let mut f = line.split('\t');
        let (Some(name), Some(rc)) = (f.next(), f.next()) else {
            continue;
        };
        let want_rc: i32 = rc.trim().parse().unwrap_or(0);
        let stem = name.trim_end_matches(".h5");
        let want = std::fs::read(dir.join(format!("{stem}.ddl"))).unwrap_or_default();
        total += 1;
        let out = Command::new(env!("CARGO_BIN_EXE_h5"))
            .args(["dump", name])
            .current_dir(&dir)
            .output()
            .expect("run h5");
        let mut why = Vec::new();
        if out.status.code() != Some(want_rc) {
            why.push(format!(
                "exit status {:?}, want {want_rc}",
                out.status.code()
            ));
        }
        if out.stdout != want {
            let w = String::from_utf8_lossy(&want);
            let g = String::from_utf8_lossy(&out.stdout);
            let first = w
                .lines()
                .zip(g.lines())
                .find(|(a, b)| a != b)
                .map(|(a, b)| format!("first difference: {a:?} vs {b:?}"))
                .unwrap_or_else(|| "lengths differ".into());
            why.push(first);
        }
        if why.is_empty() {
            passed.insert(name.to_string());
        } else {
            failed.push(format!("{name}: {}", why.join("; ")));
        }
    }
    eprintln!("{set} fixtures: {} of {total} match h5dump", passed.len());
    for f in &failed {
        eprintln!("differs: {f}");
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
        "fixtures that matched before now differ:\n{}",
        lost.join("\n")
    );
}
