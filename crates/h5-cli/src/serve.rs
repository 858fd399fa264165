//! `h5 serve`: the h5grove API and the h5web viewer over files, folders and URLs
//! (the `h5-serve` crate), on 127.0.0.1 unless told otherwise.

use std::net::{IpAddr, SocketAddr};

/// Serve files to the browser: h5web and the h5grove API (127.0.0.1:8888)
///
/// h5web at http://ADDR:P/ (a folder lists its files), the h5grove API under /api/ (/meta,
/// /attr, /data, /stats, /paths). Only the files and folders given are served: absolute
/// paths, `..` and symlinks out of them are refused (403).
#[derive(clap::Parser)]
#[command(name = "serve", verbatim_doc_comment)]
pub struct Args {
    /// Port (0 picks a free one)
    #[arg(short, long, value_name = "P", default_value_t = 8888)]
    port: u16,
    /// Address to listen on; a non-loopback address needs --token
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    bind: IpAddr,
    /// Every request must carry T (Authorization: Bearer T, or ?token=T once in a browser)
    #[arg(long, value_name = "T")]
    token: Option<String>,
    /// Largest selection read for one request, in bytes
    #[arg(long, value_name = "N", default_value_t = h5_serve::Config::default().max_bytes)]
    max_bytes: u64,
    /// The files and folders to serve (paths or URLs)
    #[arg(value_name = "PATH|URL", required = true)]
    roots: Vec<String>,
}

impl Args {
    /// What the parser cannot see: a non-loopback address without a token.
    fn check(&self) -> Result<(), String> {
        if !self.bind.is_loopback() && self.token.as_deref().is_none_or(str::is_empty) {
            return Err(format!(
                "--bind {} is reachable from other machines: give --token T too",
                self.bind
            ));
        }
        Ok(())
    }
}

/// The arguments after `h5 serve`; `None` for `--help`.
#[cfg(test)]
fn parse(args: &[String]) -> Result<Option<Args>, String> {
    use clap::Parser;
    match Args::try_parse_from(std::iter::once("serve").chain(args.iter().map(String::as_str))) {
        Ok(a) => a.check().map(|()| Some(a)),
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelp => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

impl crate::Run for Args {
    /// `h5 serve ARGS`: serve until interrupted.
    fn run(self) -> i32 {
        if let Err(e) = self.check() {
            return crate::usage_error("serve", clap::error::ErrorKind::ArgumentConflict, e);
        }
        serve(self)
    }
}

/// Serve the roots of `a` until interrupted; returns the exit status.
fn serve(a: Args) -> i32 {
    let mut roots = Vec::new();
    for r in &a.roots {
        match h5_serve::Root::from_arg(r) {
            Ok(root) => roots.push(root),
            Err(e) => {
                eprintln!("h5 serve: {r}: {e}");
                return 1;
            }
        }
    }
    let config = h5_serve::Config {
        max_bytes: a.max_bytes,
        token: a.token.clone(),
    };
    let server = h5_serve::Server::new(roots, config);
    let addr = SocketAddr::new(a.bind, a.port);
    let result = server.run(addr, |local| {
        let host = if local.is_ipv6() {
            format!("[{}]", local.ip())
        } else {
            local.ip().to_string()
        };
        let token = a
            .token
            .as_deref()
            .map(|t| format!("?token={t}"))
            .unwrap_or_default();
        println!("h5 serve: http://{host}:{}/{token}", local.port());
        if !server.has_viewer() {
            println!(
                "h5 serve: built without the viewer (cargo xtask build-viewer); the API is at /api/"
            );
        }
        for f in server.files() {
            println!("  {f}");
        }
    });
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("h5 serve: {addr}: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options() {
        let a = parse(&args(&["--port", "9000", "f.h5"])).unwrap().unwrap();
        assert_eq!(
            (a.port, a.bind.is_loopback(), a.roots.len()),
            (9000, true, 1)
        );
        assert!(parse(&args(&["--bind", "0.0.0.0", "f.h5"])).is_err());
        assert!(parse(&args(&["--bind=0.0.0.0", "--token=s", "f.h5"]))
            .unwrap()
            .is_some());
        assert!(parse(&args(&[])).is_err());
        assert!(parse(&args(&["--bogus", "f.h5"])).is_err());
        assert!(parse(&args(&["--help"])).unwrap().is_none());
    }
}
