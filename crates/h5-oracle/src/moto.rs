//! moto's S3 server on 127.0.0.1, for tests of reading from an object store: started on a
//! free port by [`MotoServer::start`], stopped when dropped. Its request log (one line per
//! request, as its web server prints them) is kept to compare with a client's counters.
//!
//! The server comes from a virtual environment of its own, `moto[server]` at
//! [`MOTO_VERSION`], made by `cargo xtask install-oracles` under
//! `~/.cache/h5-oracles/moto-VERSION` (or `$H5_MOTO_SERVER`, the `moto_server` program).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The moto release the tests run against.
pub const MOTO_VERSION: &str = "5.2.5";

/// The virtual environment `cargo xtask install-oracles` makes for moto.
pub fn moto_venv() -> PathBuf {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    home.join(".cache/h5-oracles")
        .join(format!("moto-{MOTO_VERSION}"))
}

/// The `moto_server` program.
pub fn moto_server() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("H5_MOTO_SERVER") {
        return Ok(PathBuf::from(p));
    }
    let p = moto_venv().join("bin/moto_server");
    if p.is_file() {
        Ok(p)
    } else {
        Err(format!(
            "{} not found (cargo xtask install-oracles installs it)",
            p.display()
        ))
    }
}

/// A running moto server.
#[derive(Debug)]
pub struct MotoServer {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl MotoServer {
    /// Start the server on a free port of 127.0.0.1 and wait until it accepts connections.
    pub fn start() -> Result<MotoServer, String> {
        let exe = moto_server()?;
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let log = std::env::temp_dir().join(format!("h5-moto-{}-{port}.log", std::process::id()));
        let err = std::fs::File::create(&log).map_err(|e| e.to_string())?;
        let child = Command::new(&exe)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(err)
            .spawn()
            .map_err(|e| format!("{}: {e}", exe.display()))?;
        let mut server = MotoServer { child, port, log };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if start.elapsed() > Duration::from_secs(30) {
                let log = server.log_text();
                let _ = server.child.kill();
                return Err(format!("moto did not start listening: {log}"));
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(format!("moto exited ({status}): {}", server.log_text()));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        // A first request, so that what the log holds from here on is the caller's.
        server.request("GET", "/", &[])?;
        Ok(server)
    }

    /// `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Send one unsigned request (moto does not check signatures); returns the status code.
    pub fn request(&self, method: &str, path: &str, body: &[u8]) -> Result<u16, String> {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).map_err(|e| e.to_string())?;
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.port,
            body.len()
        );
        s.write_all(head.as_bytes())
            .and_then(|_| s.write_all(body))
            .map_err(|e| e.to_string())?;
        let mut resp = Vec::new();
        s.read_to_end(&mut resp).map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&resp);
        text.split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| format!("no status in {text:?}"))
    }

    /// Create a bucket.
    pub fn create_bucket(&self, bucket: &str) -> Result<(), String> {
        match self.request("PUT", &format!("/{bucket}"), &[])? {
            200 => Ok(()),
            c => Err(format!("creating bucket {bucket}: status {c}")),
        }
    }

    /// Store an object.
    pub fn put(&self, bucket: &str, key: &str, body: &[u8]) -> Result<(), String> {
        match self.request("PUT", &format!("/{bucket}/{key}"), body)? {
            200 => Ok(()),
            c => Err(format!("storing {bucket}/{key}: status {c}")),
        }
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The request lines logged so far: `("GET", "/bucket/key", status)`.
    pub fn requests(&self) -> Vec<(String, String, u16)> {
        strip_colours(&self.log_text())
            .lines()
            .filter_map(|l| {
                let q = l.split('"').nth(1)?;
                let mut w = q.split_whitespace();
                let (m, p) = (w.next()?, w.next()?);
                let status = l
                    .split('"')
                    .nth(2)?
                    .split_whitespace()
                    .next()?
                    .parse()
                    .ok()?;
                Some((m.to_string(), p.to_string(), status))
            })
            .collect()
    }
}

/// The text without terminal colour sequences (`ESC [ ... m`), which the server's log puts
/// around some lines.
fn strip_colours(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

impl Drop for MotoServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}
