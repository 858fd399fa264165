//! `h5 dump` streams: on a dataset of 4,294,967,306 one-byte elements (`tbigdims.h5` of the
//! h5dump corpus: a 6 KB file whose data was never written) the first megabyte of output
//! arrives while the resident memory of the process, read from `/proc`, stays under 100 MB.

use std::io::Read;
use std::process::{Command, Stdio};

/// Resident set size of process `pid` in kB (`VmRSS` of `/proc/PID/status`).
fn rss_kb(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn first_megabyte_of_a_huge_dataset_in_bounded_memory() {
    let file = h5_oracle::corpus("h5dump").join("tbigdims.h5");
    if !file.exists() || !std::path::Path::new("/proc/self/status").exists() {
        eprintln!("tbigdims.h5 or /proc not available; skipped");
        return;
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_h5"))
        .arg("dump")
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run h5 dump");
    let pid = child.id();
    let mut out = child.stdout.take().expect("stdout");
    let mut got = 0usize;
    let mut max_rss = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    while got < 1 << 20 {
        let n = out.read(&mut buf).expect("read the dump");
        if n == 0 {
            break;
        }
        got += n;
        if let Some(r) = rss_kb(pid) {
            max_rss = max_rss.max(r);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    eprintln!("first {got} bytes, peak RSS {max_rss} kB");
    assert!(got >= 1 << 20, "the dump ended after {got} bytes");
    assert!(max_rss > 0, "no RSS reading");
    assert!(max_rss < 100 * 1024, "RSS reached {max_rss} kB");
}
