//! A SWMR writer killed at random points (SIGKILL, in another process) leaves a file that
//! a SWMR reader opens with every record of the last flush the writer reported, that a
//! plain open refuses as in use, and that, once `File::clear_status_flags` (`h5 clear`) reset
//! its marks, the reference `h5dump` and h5py read with the same values.
//!
//! The writer is this test program itself, run with `--writer PATH` (a `harness = false`
//! test, so that `cargo test -p h5 --test swmr_kill` builds everything it runs).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use h5::{ErrorKind, File, FileFormat, OpenOptions};

/// Records appended per flush.
const PER: u64 = 5;
/// Flushes the writer makes at most (the fixed-array dataset holds this many flushes).
const MAX_FLUSHES: u64 = 400;
/// The writer is killed after it reported a flush below this, then a pause below
/// `MAX_PAUSE_US` later (so that the kill lands anywhere in the next flushes).
const MAX_KILL_FLUSH: u64 = 150;
const MAX_PAUSE_US: u64 = 4000;
/// The seeds of the kills: fixed, so that a failure is reproduced by running again.
const SEEDS: [u64; 16] = [
    1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597,
];

/// The writer: `/ea` (extensible array index: one unlimited dimension), `/fa` (fixed array:
/// fixed size, filled progressively, fill value -1) and `/bt` (version 2 B-tree: two
/// unlimited dimensions) in a Latest-format file; SWMR writing; then flush after flush of
/// `PER` records each. Record `i` is `i` in `/ea` and `/fa`, the row `[i, -i]` in `/bt`.
/// Prints `ready` once SWMR writing started and `flushed N` once the flush that published
/// `N` records returned.
fn writer(path: &Path) -> h5::Result<()> {
    use std::io::Write;
    let n = MAX_FLUSHES * PER;
    let f = File::create_with(path, FileFormat::Latest)?;
    let ea = f
        .new_dataset::<i64>()
        .shape(&[0])
        .max_shape(&[None])
        .chunk(&[16])
        .create("ea")?;
    let fa = f
        .new_dataset::<i64>()
        .shape(&[n])
        .chunk(&[16])
        .fill_value(-1)
        .create("fa")?;
    let bt = f
        .new_dataset::<i64>()
        .shape(&[0, 2])
        .max_shape(&[None, None])
        .chunk(&[16, 2])
        .create("bt")?;
    f.start_swmr()?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "ready").and_then(|()| out.flush())?;
    for k in 0..MAX_FLUSHES {
        let (lo, hi) = (k * PER, (k + 1) * PER);
        let v: Vec<i64> = (lo as i64..hi as i64).collect();
        ea.append(&v)?;
        fa.write_slab(&[lo], &[PER], &v)?;
        let rows: Vec<i64> = v.iter().flat_map(|&i| [i, -i]).collect();
        bt.append(&rows)?;
        f.flush()?;
        writeln!(out, "flushed {hi}").and_then(|()| out.flush())?;
    }
    // Not reached by the test (it kills the writer before); wait to be killed all the same,
    // so that a file is never closed cleanly under the test.
    writeln!(out, "done").and_then(|()| out.flush())?;
    std::thread::sleep(Duration::from_secs(60));
    Ok(())
}

/// splitmix64: the kill points of a seed.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A child process killed when dropped (a failing test leaves no writer behind).
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Run the writer, kill it after flush `at` was reported and `pause` later; the number of
/// records of the last flush it reported.
fn write_and_kill(path: &Path, at: u64, pause: Duration) -> u64 {
    let exe = std::env::current_exe().unwrap();
    let child = Command::new(exe)
        .arg("--writer")
        .arg(path)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut child = Child(child);
    let mut out = BufReader::new(child.0.stdout.take().unwrap());
    let mut line = String::new();
    let mut last: Option<u64>;
    loop {
        line.clear();
        let n = out.read_line(&mut line).unwrap();
        assert!(n > 0, "the writer stopped before flush {at}");
        let l = line.trim();
        if l == "ready" {
            last = Some(0);
        } else if let Some(v) = l.strip_prefix("flushed ") {
            last = Some(v.parse::<u64>().unwrap());
        } else {
            panic!("unexpected writer output {l:?}");
        }
        if last == Some(at * PER) {
            break;
        }
    }
    std::thread::sleep(pause);
    child.0.kill().unwrap(); // SIGKILL
    let status = child.0.wait().unwrap();
    assert!(!status.success(), "the writer ended by itself: {status}");
    // What it printed before it died: the last flush it reported.
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    for l in rest.lines() {
        if let Some(v) = l.strip_prefix("flushed ") {
            last = Some(v.parse().unwrap());
        } else {
            assert_eq!(l, "done", "unexpected writer output");
        }
    }
    last.unwrap()
}

/// The contents of the killed writer's file: `/ea`, `/fa`, `/bt` as read by `f`.
type Contents = (Vec<i64>, Vec<i64>, Vec<i64>);

fn contents(f: &File) -> Contents {
    (
        f.dataset("ea").unwrap().read::<i64>().unwrap(),
        f.dataset("fa").unwrap().read::<i64>().unwrap(),
        f.dataset("bt").unwrap().read::<i64>().unwrap(),
    )
}

/// Check that `c` holds every record of the `reported` ones, and that whatever else it holds
/// (the flush after, cut short by the kill or completed but not reported yet) is what the
/// writer wrote. A flush writes each dataset's header on its own, so a kill inside one may
/// leave one dataset a flush ahead of another: each is checked on its own.
fn check(c: &Contents, reported: u64, what: &str) {
    let (ea, fa, bt) = c;
    let published = |name: &str, records: u64| {
        assert!(
            (reported..=reported + PER).contains(&records),
            "{what}: {name} has {records} records, {reported} reported"
        );
        assert_eq!(records % PER, 0, "{what}: {name} ends inside a flush");
    };
    published("/ea", ea.len() as u64);
    assert!(
        ea.iter().enumerate().all(|(i, &v)| v == i as i64),
        "{what}: /ea"
    );
    assert_eq!(bt.len() % 2, 0, "{what}: /bt holds whole rows");
    published("/bt", bt.len() as u64 / 2);
    assert!(
        bt.chunks(2)
            .enumerate()
            .all(|(i, r)| r == [i as i64, -(i as i64)]),
        "{what}: /bt"
    );
    assert_eq!(fa.len() as u64, MAX_FLUSHES * PER, "{what}: /fa");
    for (i, &v) in fa.iter().enumerate() {
        let i = i as u64;
        // Published as far as the reported flush, at least; a chunk of the flush after may
        // be there too.
        if i < reported {
            assert_eq!(v, i as i64, "{what}: /fa[{i}]");
        } else {
            assert!(v == -1 || v == i as i64, "{what}: /fa[{i}] = {v}");
        }
    }
}

/// The data of one dataset as `h5dump -d NAME -y -w 0` prints it.
fn h5dump_values(h5dump: &Path, file: &Path, name: &str) -> Vec<i64> {
    let out = h5_oracle::run(
        h5dump,
        &["-d", name, "-y", "-w", "0", file.to_str().unwrap()],
        b"",
    )
    .unwrap_or_else(|e| panic!("h5dump -d {name} {}: {e}", file.display()));
    let text = String::from_utf8_lossy(&out);
    let Some(start) = text.find("DATA {") else {
        // An empty dataset prints no DATA block.
        assert!(text.contains("( 0"), "{text}");
        return Vec::new();
    };
    let body = &text[start + "DATA {".len()..];
    let body = &body[..body.find('}').unwrap()];
    body.split([',', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap_or_else(|_| panic!("h5dump value {s:?}")))
        .collect()
}

/// h5py prints each file's three datasets, one line of JSON per file.
const H5PY_READ: &str = r#"
import sys, json, h5py
for p in sys.argv[1:]:
    with h5py.File(p, 'r') as f:
        print(json.dumps([f[n][()].reshape(-1).tolist() for n in ('ea', 'fa', 'bt')]))
"#;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, path] = &args[..] {
        if flag == "--writer" {
            if let Err(e) = writer(Path::new(path)) {
                eprintln!("writer: {e}");
                std::process::exit(2);
            }
            return;
        }
    }
    // `cargo test -- --list` and friends: one test.
    if args.iter().any(|a| a == "--list") {
        println!("a_swmr_writer_killed_at_random_points_leaves_every_flushed_record: test");
        return;
    }
    let started = Instant::now();
    let dir = std::env::temp_dir().join(format!("h5-swmr-kill-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let h5dump = h5_oracle::require("h5dump", h5_oracle::tool("h5dump"));
    let py = h5_oracle::require("h5py", h5_oracle::h5py());
    let mut files: Vec<(PathBuf, Contents)> = Vec::new();
    let mut mid = 0;
    for seed in SEEDS {
        let r = mix(seed);
        let at = r % MAX_KILL_FLUSH;
        let pause = Duration::from_micros((r >> 32) % MAX_PAUSE_US);
        let p = dir.join(format!("killed-{seed}.h5"));
        let reported = write_and_kill(&p, at, pause);
        let what = format!(
            "seed {seed} (killed {pause:?} after flush {at}, last reported {reported} records)"
        );

        // Left marked open for SWMR writing: a plain open refuses it, as the reference
        // library does.
        let e = File::open(&p).map(drop).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InUse, "{what}: {e}");
        // A SWMR reader reads every record of the last reported flush.
        let r = File::open_with(&p, OpenOptions::new().swmr(true))
            .unwrap_or_else(|e| panic!("{what}: SWMR open: {e}"));
        assert!(r.is_marked_swmr_writing().unwrap(), "{what}");
        let c = contents(&r);
        check(&c, reported, &what);
        drop(r);
        if c.0.len() as u64 > reported {
            mid += 1; // killed inside the next flush, or after it and before its report
        }
        // `h5 clear`: the marks go, a plain open reads the same.
        assert_eq!(File::clear_status_flags(&p).unwrap(), Some(0x5), "{what}");
        let plain = File::open(&p).unwrap_or_else(|e| panic!("{what}: open after clear: {e}"));
        assert_eq!(contents(&plain), c, "{what}: plain open after clear");
        drop(plain);
        if let Some(h5dump) = &h5dump {
            let (ea, fa, bt) = &c;
            assert_eq!(&h5dump_values(h5dump, &p, "/ea"), ea, "{what}: h5dump /ea");
            assert_eq!(&h5dump_values(h5dump, &p, "/fa"), fa, "{what}: h5dump /fa");
            assert_eq!(&h5dump_values(h5dump, &p, "/bt"), bt, "{what}: h5dump /bt");
            h5_oracle::run(h5dump, &[p.to_str().unwrap()], b"")
                .unwrap_or_else(|e| panic!("{what}: h5dump: {e}"));
        }
        eprintln!("{what}: {} records read", c.0.len());
        files.push((p, c));
    }
    if let Some(py) = &py {
        let mut args = vec!["-c", H5PY_READ];
        args.extend(files.iter().map(|(p, _)| p.to_str().unwrap()));
        let out = h5_oracle::run(py, &args, b"").unwrap_or_else(|e| panic!("h5py: {e}"));
        let text = String::from_utf8_lossy(&out);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), files.len(), "{text}");
        for ((p, (ea, fa, bt)), line) in files.iter().zip(lines) {
            let want = format!("[{ea:?}, {fa:?}, {bt:?}]");
            assert_eq!(line, want, "h5py reads {} differently", p.display());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "{} kills ({mid} with the next flush published in part or whole) in {:?}",
        SEEDS.len(),
        started.elapsed()
    );
    println!("test a_swmr_writer_killed_at_random_points_leaves_every_flushed_record ... ok");
}
