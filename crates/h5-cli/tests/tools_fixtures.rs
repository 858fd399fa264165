//! `h5 ls -v -r`, `h5 stat` and `h5 diff -v` against the installed reference h5ls, h5stat and
//! h5diff on every h5py fixture of h5-io (each file compared with itself and with the next
//! one for h5diff): the same standard output and the same exit status. Both run with `TZ=UTC`
//! (h5ls prints modification times in local time, `h5 ls` in UTC). Every run must agree
//! except those listed, with the reason, in `tools_fixtures_known.txt`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../h5-io/tests/fixtures/h5py");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "h5"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Standard output and exit status.
fn run(prog: &Path, args: &[&str], dir: &Path) -> (String, Option<i32>) {
    let out = Command::new(prog)
        .args(args)
        .current_dir(dir)
        .env("TZ", "UTC")
        .output()
        .expect("run a tool");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
    )
}

#[test]
fn ls_stat_diff_agree_with_the_reference_tools_on_h5py_fixtures() {
    let tools: Vec<PathBuf> = ["h5ls", "h5stat", "h5diff"]
        .iter()
        .filter_map(|t| h5_oracle::require(t, h5_oracle::tool(t)))
        .collect();
    if tools.len() < 3 {
        return;
    }
    let files = fixtures();
    assert!(!files.is_empty(), "no h5py fixtures found");
    let h5 = PathBuf::from(env!("CARGO_BIN_EXE_h5"));
    let known: Vec<String> = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools_fixtures_known.txt"),
    )
    .unwrap_or_default()
    .lines()
    .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    .map(str::to_string)
    .collect();
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut known_seen = 0;
    for (i, f) in files.iter().enumerate() {
        let dir = f.parent().unwrap_or(Path::new("."));
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let next = files[(i + 1) % files.len()]
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let cases: Vec<(&Path, Vec<&str>, Vec<&str>)> = vec![
            (
                &tools[0],
                vec!["-v", "-r", &name],
                vec!["ls", "-v", "-r", &name],
            ),
            (&tools[1], vec![&name], vec!["stat", &name]),
            (
                &tools[2],
                vec!["-v", &name, &name],
                vec!["diff", "-v", &name, &name],
            ),
            (&tools[2], vec![&name, &next], vec!["diff", &name, &next]),
        ];
        for (tool, targs, ours) in cases {
            checked += 1;
            let want = run(tool, &targs, dir);
            let got = run(&h5, &ours, dir);
            let tool_name = tool
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            if want != got {
                if known.contains(&format!("{tool_name} {name}")) {
                    known_seen += 1;
                } else {
                    failures.push(format!("{} {}", tool.display(), targs.join(" ")));
                }
            }
        }
    }
    eprintln!(
        "{} of {checked} runs agree ({known_seen} known differences)",
        checked - failures.len() - known_seen
    );
    assert!(
        failures.is_empty(),
        "differ from the reference:\n{}",
        failures.join("\n")
    );
}
