//! `h5 dump` streams: on a dataset of 4,294,967,306 one-byte elements (`tbigdims.h5` of the
//! h5dump corpus: a 6 KB file whose data was never written) the first megabyte of output
//! arrives while the resident memory of the process, read from `/proc`, stays under 100 MB;
//! the same when the data goes to a file (`-o`) and for the XML form (`--xml`).

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
    let Some((got, max_rss)) = watch(&[], None) else {
        return;
    };
    assert!(got >= 1 << 20, "the dump ended after {got} bytes");
    assert!(max_rss > 0, "no RSS reading");
    assert!(max_rss < 100 * 1024, "RSS reached {max_rss} kB");
}

/// `h5 dump ARGS tbigdims.h5` until `out` (the data's destination) holds a megabyte: the
/// bytes seen and the peak resident memory.
fn watch(args: &[&str], out_file: Option<&std::path::Path>) -> Option<(usize, u64)> {
    let file = h5_oracle::corpus("h5dump").join("tbigdims.h5");
    if !file.exists() || !std::path::Path::new("/proc/self/status").exists() {
        eprintln!("tbigdims.h5 or /proc not available; skipped");
        return None;
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_h5"))
        .arg("dump")
        .args(args)
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run h5 dump");
    let pid = child.id();
    let mut out = child.stdout.take().expect("stdout");
    let mut got = 0usize;
    let mut max_rss = 0u64;
    let start = std::time::Instant::now();
    match out_file {
        // Standard output is drained by a thread; the file's size is polled.
        Some(path) => {
            let drain = std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
            while got < 1 << 20 && start.elapsed() < std::time::Duration::from_secs(120) {
                got = std::fs::metadata(path).map_or(0, |m| m.len() as usize);
                if let Some(r) = rss_kb(pid) {
                    max_rss = max_rss.max(r);
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
            let _ = drain.join();
        }
        None => {
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
        }
    }
    eprintln!("{args:?}: first {got} bytes, peak RSS {max_rss} kB");
    Some((got, max_rss))
}

#[test]
fn data_to_a_file_streams_in_bounded_memory() {
    let dir = std::env::temp_dir().join(format!("h5-dump-o-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let path = dir.join("data.txt");
    let p = path.to_string_lossy().to_string();
    let seen = watch(&["-o", &p], Some(&path));
    let _ = std::fs::remove_dir_all(&dir);
    let Some((got, max_rss)) = seen else {
        return;
    };
    assert!(got >= 1 << 20, "the data file stopped at {got} bytes");
    assert!(max_rss > 0, "no RSS reading");
    assert!(max_rss < 100 * 1024, "RSS reached {max_rss} kB");
}

#[test]
fn xml_streams_in_bounded_memory() {
    let Some((got, max_rss)) = watch(&["--xml"], None) else {
        return;
    };
    assert!(got >= 1 << 20, "the XML ended after {got} bytes");
    assert!(max_rss > 0, "no RSS reading");
    assert!(max_rss < 100 * 1024, "RSS reached {max_rss} kB");
}
