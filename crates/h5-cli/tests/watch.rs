//! `h5 watch` on a file h5py appends to in SWMR mode, and `h5 clear` on a file h5py's SWMR
//! writer left marked open.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

fn dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("h5-cli-watch-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Appends `FLUSHES` times `PER` values (0, 1, 2, ...) to `/x`, pausing between flushes;
/// prints `ready` once SWMR writing started and waits for a line on stdin before writing.
const WRITER: &str = r#"
import sys, time, h5py, numpy as np
path, flushes, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
f = h5py.File(path, 'w', libver='latest')
x = f.create_dataset('x', (0,), maxshape=(None,), chunks=(8,), dtype='i4')
f.swmr_mode = True
print('ready', flush=True)
sys.stdin.readline()
for k in range(flushes):
    x.resize(((k + 1) * per,)); x[k * per:] = np.arange(k * per, (k + 1) * per)
    x.flush()
    time.sleep(0.03)
f.close()
"#;

struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn watch_prints_what_h5py_appends_and_stops_when_the_writer_closes() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let (flushes, per) = (40u32, 5u32);
    let p = dir("watch").join("w.h5");
    let mut writer = Child(
        Command::new(&py)
            .args(["-c", WRITER, p.to_str().unwrap()])
            .args([flushes.to_string(), per.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut out = BufReader::new(writer.0.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready");
    let mut watch = Child(
        Command::new(env!("CARGO_BIN_EXE_h5"))
            .args(["watch", "--interval", "0.01", "--width", "40"])
            .arg(format!("{}/x", p.display()))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    // The watcher is running before the first append.
    std::thread::sleep(std::time::Duration::from_millis(300));
    use std::io::Write;
    writer.0.stdin.take().unwrap().write_all(b"go\n").unwrap();
    assert!(writer.0.wait().unwrap().success());
    // It stops by itself once the writer closed the file.
    let mut text = String::new();
    watch
        .0
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    let mut err = String::new();
    watch
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(watch.0.wait().unwrap().success(), "{err}\n{text}");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("Monitoring dataset /x..."));
    // Every value appended printed once, in order, each line starting with its index.
    let mut values = Vec::new();
    let mut changes = 0;
    for l in lines {
        if let Some(rest) = l.strip_prefix("dimension 0: ") {
            assert!(rest.ends_with(" (increases)"), "{l}");
            changes += 1;
        } else if let Some(rest) = l.strip_prefix("        (") {
            assert!(l.len() <= 40, "wider than 40: {l:?}");
            let (idx, vals) = rest.split_once(") ").unwrap();
            assert_eq!(idx.parse::<usize>().unwrap(), values.len(), "{l}");
            for v in vals.split(',').map(str::trim).filter(|v| !v.is_empty()) {
                values.push(v.parse::<u32>().unwrap());
            }
        } else {
            assert!(l == "    Data:" || l.is_empty(), "unexpected line {l:?}");
        }
    }
    assert_eq!(values, (0..flushes * per).collect::<Vec<_>>(), "{text}");
    assert!(changes > 1, "{text}");
}

#[test]
fn clear_resets_what_a_crashed_h5py_swmr_writer_left() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let p = dir("clear").join("crashed.h5");
    let crash = r#"
import sys, os, h5py, numpy as np
f = h5py.File(sys.argv[1], 'w', libver='latest')
x = f.create_dataset('x', (0,), maxshape=(None,), chunks=(4,), dtype='i4')
f.swmr_mode = True
x.resize((6,)); x[:] = np.arange(6); x.flush()
os._exit(0)
"#;
    h5_oracle::run(&py, &["-c", crash, p.to_str().unwrap()], b"").unwrap();
    let h5 = env!("CARGO_BIN_EXE_h5");
    // Our reader reports the file as left open.
    let ls = Command::new(h5)
        .args(["ls", p.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!ls.status.success());
    let out = Command::new(h5)
        .args(["clear", "-v", "--increment", p.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{}: status flags 0x5 cleared\n", p.display())
    );
    // (The reference writer in SWMR mode had not written its end of file address yet:
    // `--increment` moves it past the data, as `h5clear --increment` does.)
    let check = "import sys, h5py; print(h5py.File(sys.argv[1], 'r')['x'][:].tolist())";
    let read = h5_oracle::run(&py, &["-c", check, p.to_str().unwrap()], b"").unwrap();
    assert_eq!(String::from_utf8_lossy(&read).trim(), "[0, 1, 2, 3, 4, 5]");
    // Nothing left to clear; a missing file is an error.
    let again = Command::new(h5)
        .args(["clear", p.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(again.status.success() && again.stdout.is_empty());
    let missing = Command::new(h5)
        .args(["clear", "/nonexistent.h5"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
}

#[test]
fn watch_stops_on_ctrl_c() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let Some(kill) = h5_oracle::require("kill", h5_oracle::tool("kill")) else {
        return;
    };
    let p = dir("ctrlc").join("w.h5");
    // SWMR writing on, then idle until told to stop.
    let mut writer = Child(
        Command::new(&py)
            .args(["-c", WRITER, p.to_str().unwrap(), "0", "1"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut out = BufReader::new(writer.0.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready");
    let mut watch = Child(
        Command::new(env!("CARGO_BIN_EXE_h5"))
            .args(["watch", "--interval", "0.05"])
            .arg(format!("{}/x", p.display()))
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    std::thread::sleep(std::time::Duration::from_millis(500));
    let pid = watch.0.id().to_string();
    let st = Command::new(kill).args(["-INT", &pid]).status().unwrap();
    assert!(st.success());
    let t0 = std::time::Instant::now();
    let status = loop {
        if let Some(s) = watch.0.try_wait().unwrap() {
            break s;
        }
        assert!(
            t0.elapsed().as_secs() < 10,
            "h5 watch did not stop on SIGINT"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    let mut text = String::new();
    watch
        .0
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text, "Monitoring dataset /x...\n");
    drop(writer.0.stdin.take());
}
