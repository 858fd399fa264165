//! Shared by the h5-serve tests: a small HTTP/1.1 client, our server on a free port, the
//! h5py-made files and the h5grove oracle's virtual environment.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// h5grove's pinned version (in step with xtask/src/oracle_serve.rs).
pub const H5GROVE_VERSION: &str = "4.0.0";

/// A response: status, headers (lower-case names), body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// `GET target` with `Connection: close`.
pub fn get(addr: SocketAddr, target: &str) -> std::io::Result<Reply> {
    get_with(addr, target, &[])
}

/// `GET target` with extra headers.
pub fn get_with(addr: SocketAddr, target: &str, extra: &[(&str, &str)]) -> std::io::Result<Reply> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    s.set_read_timeout(Some(Duration::from_secs(60)))?;
    let mut req = format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in extra {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes())?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)?;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| std::io::Error::other("no header end"))?;
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| std::io::Error::other("bad status line"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"))
    {
        body = dechunk(&body);
    }
    Ok(Reply {
        status,
        headers,
        body,
    })
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(p) = b.windows(2).position(|w| w == b"\r\n") {
        let n = usize::from_str_radix(String::from_utf8_lossy(&b[..p]).trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.extend_from_slice(&b[p + 2..p + 2 + n]);
        b = &b[p + 2 + n + 2..];
    }
    out
}

/// Percent-encode a query value.
pub fn enc(s: &str) -> String {
    let mut o = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            o.push(b as char);
        } else {
            o.push_str(&format!("%{b:02X}"));
        }
    }
    o
}

/// A fresh scratch folder for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("h5-serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The h5grove virtual environment's python (`cargo xtask install-oracles` makes it).
pub fn h5grove_python() -> Result<PathBuf, String> {
    let home = std::env::var_os("HOME").ok_or("HOME is not set")?;
    let py = Path::new(&home)
        .join(".cache/h5-oracles")
        .join(format!("h5grove-{H5GROVE_VERSION}"))
        .join("bin/python");
    if py.is_file() {
        Ok(py)
    } else {
        Err(format!(
            "{} is missing (cargo xtask install-oracles)",
            py.display()
        ))
    }
}

/// Write the test files into `dir` with h5py (the venv's python).
pub fn make_files(python: &Path, dir: &Path) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/make_files.py");
    let st = std::process::Command::new(python)
        .arg(script)
        .arg(dir)
        .status()
        .unwrap();
    assert!(st.success(), "make_files.py failed");
}

/// Our API (`api = true`) or the whole app on a free loopback port, in a background thread.
pub fn start(dir: &Path, api: bool, config: h5_serve::Config) -> SocketAddr {
    let server = h5_serve::Server::new(
        vec![h5_serve::Root::from_arg(dir.to_str().unwrap()).unwrap()],
        config,
    );
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(l.local_addr().unwrap()).unwrap();
            let app = if api { server.api() } else { server.router() };
            axum::serve(l, app).await.unwrap();
        });
    });
    rx.recv().unwrap()
}

/// A free loopback port.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child process killed when dropped.
pub struct Child(pub std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Poll `addr` until `/` answers (or give up after `secs`).
pub fn wait_up(addr: SocketAddr, path: &str, secs: u64) -> bool {
    let end = std::time::Instant::now() + Duration::from_secs(secs);
    while std::time::Instant::now() < end {
        if get(addr, path).is_ok_and(|r| r.status == 200) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}
