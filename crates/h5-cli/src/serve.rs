//! `h5 serve`: the h5grove API and the h5web viewer over files, folders and URLs
//! (the `h5-serve` crate), on 127.0.0.1 unless told otherwise.

use std::net::{IpAddr, SocketAddr};

const USAGE: &str =
    "usage: h5 serve [--port P] [--bind ADDR] [--token T] [--max-bytes N] PATH|URL...

Serve HDF5 files to a browser: h5web at http://ADDR:P/ (a folder lists its files), the
h5grove API under /api/ (/meta, /attr, /data, /stats, /paths).

  -p, --port P    port (default 8888; 0 picks a free one)
  --bind ADDR     address to listen on (default 127.0.0.1); a non-loopback address needs --token
  --token T       every request must carry T (Authorization: Bearer T, or ?token=T once in the
                  browser, which sets a cookie)
  --max-bytes N   largest selection read for one request, in bytes (default 268435456)

Only the files and folders given are served: absolute paths, `..` and symlinks out of them are
refused (403).";

struct Args {
    port: u16,
    bind: IpAddr,
    token: Option<String>,
    max_bytes: u64,
    roots: Vec<String>,
}

fn parse(args: &[String]) -> Result<Option<Args>, String> {
    let mut a = Args {
        port: 8888,
        bind: IpAddr::from([127, 0, 0, 1]),
        token: None,
        max_bytes: h5_serve::Config::default().max_bytes,
        roots: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = |what: &str| -> Result<String, String> {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| format!("{name} needs {what}"))
        };
        match name {
            "-h" | "--help" => return Ok(None),
            "--port" | "-p" => {
                let v = value("a port")?;
                a.port = v
                    .parse()
                    .map_err(|_| format!("--port: {v:?} is not a port"))?;
            }
            "--bind" => {
                let v = value("an address")?;
                a.bind = v
                    .parse()
                    .map_err(|_| format!("--bind: {v:?} is not an IP address"))?;
            }
            "--token" => a.token = Some(value("a token")?),
            "--max-bytes" => {
                let v = value("a number of bytes")?;
                a.max_bytes = v
                    .parse()
                    .map_err(|_| format!("--max-bytes: {v:?} is not a number"))?;
            }
            s if s.starts_with('-') && s.len() > 1 => return Err(format!("unknown option {s}")),
            _ => a.roots.push(arg.clone()),
        }
    }
    if a.roots.is_empty() {
        return Err("give at least one file, folder or URL".into());
    }
    if !a.bind.is_loopback() && a.token.as_deref().is_none_or(str::is_empty) {
        return Err(format!(
            "--bind {} is reachable from other machines: give --token T too",
            a.bind
        ));
    }
    Ok(Some(a))
}

/// `h5 serve ARGS`: serve until interrupted.
pub fn run(args: &[String]) -> i32 {
    let a = match parse(args) {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("{USAGE}");
            return 0;
        }
        Err(e) => {
            eprintln!("h5 serve: {e}\n{USAGE}");
            return 2;
        }
    };
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
