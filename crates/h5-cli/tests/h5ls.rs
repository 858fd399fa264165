//! `h5 ls -r FILE` (and `h5 ls -r -v -d FILE`, `h5 ls -r -v -a FILE`) against the installed reference `h5ls` with the
//! same options on every file of the shared h5dump corpus and on the h5py fixtures of h5-io:
//! the same standard output and the same success or failure. Files listed in
//! `ls_baseline.txt` (`ls_verbose_baseline.txt`, `ls_address_baseline.txt`) must keep matching (`H5_BLESS=1` rewrites
//! it); the match count is printed. Skipped when `h5ls` is not installed; files that `h5ls`
//! itself cannot list within the time limit (or in 64 MiB of output) are left out.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const TIME_LIMIT: Duration = Duration::from_secs(20);

/// Output beyond this is not read (the program is then killed at the time limit).
const OUTPUT_LIMIT: u64 = 64 << 20;

fn corpus_dir() -> Option<PathBuf> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        "../../../shared/corpus/h5dump",
        "../../../../shared/corpus/h5dump",
    ]
    .iter()
    .map(|p| base.join(p))
    .find(|p| p.join("INDEX.tsv").exists())
}

/// Run `prog args` in `dir`, killing it after the time limit (`None` then).
fn run(prog: &str, args: &[&str], dir: &Path) -> Option<Output> {
    let mut child = Command::new(prog)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut std::io::Read::take(stdout, OUTPUT_LIMIT), &mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait().ok()? {
            Some(s) => break s,
            None if start.elapsed() > TIME_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    };
    Some(Output {
        status,
        stdout: reader.join().unwrap_or_default(),
        stderr: Vec::new(),
    })
}

#[test]
fn ls_matches_h5ls_r() {
    compare_with_h5ls(&["-r"], "tests/ls_baseline.txt");
}

#[test]
fn ls_matches_h5ls_r_v_d() {
    compare_with_h5ls(&["-r", "-v", "-d"], "tests/ls_verbose_baseline.txt");
}

#[test]
fn ls_matches_h5ls_r_v_a() {
    compare_with_h5ls(&["-r", "-v", "-a"], "tests/ls_address_baseline.txt");
}

/// `h5 ls OPTIONS FILE` against `h5ls OPTIONS FILE` on every file; the files that match must
/// include those of `baseline`.
fn compare_with_h5ls(options: &[&str], baseline: &str) {
    if Command::new("h5ls").arg("--version").output().is_err() {
        eprintln!("h5ls not installed; skipped");
        return;
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![("h5py", manifest.join("../h5-io/tests/fixtures/h5py"))];
    if let Some(d) = corpus_dir() {
        dirs.push(("h5dump", d));
    }
    let h5 = env!("CARGO_BIN_EXE_h5");
    let mut passed = BTreeSet::new();
    let mut failed = Vec::new();
    let mut total = 0;
    for (label, dir) in &dirs {
        let Ok(rd) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut names: Vec<String> = rd
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".h5"))
            .collect();
        names.sort();
        for name in names {
            let mut args: Vec<&str> = options.to_vec();
            args.push(&name);
            let Some(want) = run("h5ls", &args, dir) else {
                continue;
            };
            total += 1;
            let key = format!("{label}/{name}");
            let mut ours = vec!["ls"];
            ours.extend(&args);
            let got = run(h5, &ours, dir);
            match got {
                Some(g)
                    if g.stdout == want.stdout && g.status.success() == want.status.success() =>
                {
                    passed.insert(key);
                }
                Some(g) => failed.push(format!(
                    "{key}: h5ls status {:?}, ours {:?}, same output: {}",
                    want.status.code(),
                    g.status.code(),
                    g.stdout == want.stdout
                )),
                None => failed.push(format!("{key}: no result within {TIME_LIMIT:?}")),
            }
        }
    }
    eprintln!(
        "h5 ls matches h5ls {} on {} of {total} files",
        options.join(" "),
        passed.len()
    );
    for f in &failed {
        eprintln!("differs: {f}");
    }
    let baseline_path = manifest.join(baseline);
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
        "files that matched before now differ:\n{}",
        lost.join("\n")
    );
}

/// Region references of both kinds at first and later positions, in a dataset and in an
/// attribute: h5ls opens each region with its own element (`{` for points, ` {` for
/// blocks) after the element separator from the second reference on, so the brace follows
/// the name directly, after one space or after two.
#[test]
fn ls_region_reference_braces_match_h5ls() {
    if Command::new("h5ls").arg("--version").output().is_err() {
        assert!(!h5_oracle::oracles_required(), "h5ls is required");
        eprintln!("h5ls not installed; skipped");
        return;
    }
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("h5-ls-region-braces-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let make = "import sys, h5py, numpy as np\n\
                with h5py.File(sys.argv[1], 'w') as f:\n\
                \x20   t = f.create_dataset('t', data=np.arange(16, dtype='i4').reshape(4, 4))\n\
                \x20   def pts(*k):\n\
                \x20       m = np.zeros(16, bool)\n\
                \x20       m[list(k)] = True\n\
                \x20       return t.regionref[m.reshape(4, 4)]\n\
                \x20   r = f.create_dataset('r', (4,), dtype=h5py.regionref_dtype)\n\
                \x20   r[0] = pts(0, 1)\n\
                \x20   r[1] = pts(3)\n\
                \x20   r[2] = t.regionref[0:2, 1:3]\n\
                \x20   r[3] = t.regionref[1:2, 0:3]\n\
                \x20   t.attrs.create('a', data=[t.regionref[0:1, 0:1], pts(0), t.regionref[2:3, 1:2]],\n\
                \x20                  dtype=h5py.regionref_dtype)\n";
    h5_oracle::run(
        &py,
        &["-c", make, dir.join("regions.h5").to_str().unwrap()],
        b"",
    )
    .unwrap();
    let mut all = String::new();
    for options in [["-r", "-v", "-d"], ["-r", "-v", "-a"]] {
        let mut args = options.to_vec();
        args.push("regions.h5");
        let want = run("h5ls", &args, &dir).expect("h5ls runs");
        let mut ours = vec!["ls"];
        ours.extend(&args);
        let got = run(env!("CARGO_BIN_EXE_h5"), &ours, &dir).expect("h5 ls runs");
        let text = String::from_utf8_lossy(&want.stdout);
        all.push_str(&text);
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            text,
            "h5 ls {}",
            options.join(" ")
        );
    }
    // The file exercises each placement of the brace.
    for brace in ["DATASET \"/t\"{", "DATASET \"/t\" {", "DATASET \"/t\"  {"] {
        assert!(all.contains(brace), "no {brace:?} in h5ls's output:\n{all}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
