//! `h5 dump` on the corrupt files of the shared corpus (`corpus/bad`): each runs as its own
//! process with a time limit and an address-space limit, and must end with a clear
//! `h5dump error: ...` and exit status 1, never a panic, a signal, a hang or a huge
//! allocation. The few files of that folder the reference library reads normally (its
//! `NOTES.tsv` says `rc=0`) must be dumped with status 0.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Address space a run may use (KiB, as `ulimit -v` takes it).
const ADDRESS_SPACE_KIB: u64 = 2 * 1024 * 1024;
/// Wall-clock time a run may take.
const TIME_LIMIT: Duration = Duration::from_secs(60);

fn bad_dir() -> Option<PathBuf> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        "../../../shared/corpus/bad",
        "../../../../shared/corpus/bad",
    ]
    .iter()
    .map(|p| base.join(p))
    .find(|p| p.join("NOTES.tsv").exists())
}

struct Run {
    status: Option<i32>,
    stderr: String,
    timed_out: bool,
}

fn run_limited(file: &Path) -> Run {
    let script = format!("ulimit -v {ADDRESS_SPACE_KIB}; exec \"$0\" dump \"$1\" >/dev/null");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_h5"))
        .arg(file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sh");
    let mut stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        match child.try_wait().expect("wait") {
            Some(s) => break s,
            None if start.elapsed() > TIME_LIMIT => {
                let _ = child.kill();
                timed_out = true;
                break child.wait().expect("wait");
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    Run {
        status: status.code(),
        stderr: reader.join().unwrap_or_default(),
        timed_out,
    }
}

#[test]
fn corrupt_files_fail_cleanly() {
    let Some(dir) = bad_dir() else {
        eprintln!("corpus/bad not found; skipped");
        return;
    };
    let notes = std::fs::read_to_string(dir.join("NOTES.tsv")).expect("NOTES.tsv");
    let mut problems = Vec::new();
    let mut n = 0;
    for line in notes.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (Some(name), Some(result)) = (f.first(), f.last()) else {
            continue;
        };
        if !name.ends_with(".h5") {
            continue;
        }
        n += 1;
        let valid = result.starts_with("rc=0");
        let r = run_limited(&dir.join(name));
        let want = if valid { 0 } else { 1 };
        let mut why = Vec::new();
        if r.timed_out {
            why.push(format!("no result within {TIME_LIMIT:?}"));
        }
        if r.stderr.contains("panicked") {
            why.push("panicked".to_string());
        }
        if r.status != Some(want) {
            why.push(format!("exit status {:?}, want {want}", r.status));
        }
        if !valid && !r.stderr.contains("h5dump error: ") {
            why.push("no h5dump error message".to_string());
        }
        if !why.is_empty() {
            problems.push(format!(
                "{name}: {} (stderr: {})",
                why.join(", "),
                r.stderr.lines().take(3).collect::<Vec<_>>().join(" | ")
            ));
        }
    }
    eprintln!("corpus/bad: {} of {n} files behave", n - problems.len());
    assert!(n > 0, "no files listed in NOTES.tsv");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
