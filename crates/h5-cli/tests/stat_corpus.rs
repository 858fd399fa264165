//! `h5 stat` against the installed reference h5stat on every file of the h5dump corpus, with
//! the dataset options (`-d -D -s -S`) and the datatype option (`-T`, whose descriptor sizes
//! follow how the library re-encodes a datatype read from a file, nested types keeping their
//! stored versions, e.g. `tnestedcmpddt.h5`): the same standard output and exit status, byte
//! for byte.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Standard output and exit status.
fn run(prog: &Path, args: &[&str]) -> (String, Option<i32>) {
    let out = Command::new(prog).args(args).output().expect("run a tool");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
    )
}

#[test]
fn stat_dataset_and_datatype_options_agree_with_h5stat_on_the_h5dump_corpus() {
    let Some(h5stat) = h5_oracle::require("h5stat", h5_oracle::tool("h5stat")) else {
        return;
    };
    let dir = h5_oracle::corpus("h5dump");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "h5"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    if files.is_empty() {
        assert!(
            !h5_oracle::oracles_required(),
            "no h5dump corpus files under {}",
            dir.display()
        );
        eprintln!("skipped: no h5dump corpus under {}", dir.display());
        return;
    }
    assert!(
        files.iter().any(|f| f.ends_with("tnestedcmpddt.h5")),
        "tnestedcmpddt.h5 missing from {}",
        dir.display()
    );
    let h5 = PathBuf::from(env!("CARGO_BIN_EXE_h5"));
    let mut failures = Vec::new();
    for f in &files {
        let name = f.to_string_lossy();
        let opts = ["-T", "-d", "-D", "-s", "-S", &name];
        let want = run(&h5stat, &opts);
        let got = run(&h5, &[&["stat"][..], &opts[..]].concat());
        if want != got {
            failures.push(format!("h5stat {}", opts.join(" ")));
        }
    }
    eprintln!(
        "{} of {} files agree",
        files.len() - failures.len(),
        files.len()
    );
    assert!(
        failures.is_empty(),
        "differ from the reference:\n{}",
        failures.join("\n")
    );
}
