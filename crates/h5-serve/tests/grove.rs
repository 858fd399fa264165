//! The differential test: h5grove's FastAPI server (the reference, in its pinned virtual
//! environment) and ours over the same h5py-made files, the same requests for every object:
//! status codes equal, JSON equal after parsing, npy/bin/csv bytes equal.

mod common;

use common::*;
use serde_json::Value;

/// The requests made of every path: `(endpoint, extra query)`.
fn requests(meta: &Value) -> Vec<(&'static str, String)> {
    let mut r = vec![
        ("meta", String::new()),
        ("meta", "&resolve_links=none".into()),
        ("meta", "&resolve_links=all".into()),
        ("attr", String::new()),
        ("paths", String::new()),
        ("data", String::new()),
        ("data", "&format=npy".into()),
        ("data", "&format=csv".into()),
        ("data", "&format=bin&dtype=safe".into()),
        ("data", "&flatten=true".into()),
        ("data", "&dtype=safe".into()),
        ("stats", String::new()),
    ];
    let dtype = meta["type"]["dtype"].to_string();
    let shape = &meta["shape"];
    // h5grove's bytes of variable-length data, references and h5py's Empty are the
    // memory addresses of Python objects: not comparable.
    if !dtype.contains("|O") && !shape.is_null() && meta["kind"] == "dataset" {
        r.push(("data", "&format=bin".into()));
    }
    match shape.as_array().map(Vec::len) {
        Some(1) => {
            for s in ["2:5", "-3:", "::3", "1", "-1", "5:2", "100", ":4:0", "1,2"] {
                r.push(("data", format!("&selection={}", enc(s))));
            }
            r.push(("data", format!("&selection={}&format=npy", enc("1:4"))));
            r.push(("stats", format!("&selection={}", enc("0:3"))));
        }
        Some(2) => {
            for s in ["1", "1,2", "2:5, 1:8:3", ":, 3", "-1, -2", " 1 , 2:4"] {
                r.push(("data", format!("&selection={}", enc(s))));
            }
            r.push((
                "data",
                format!("&selection={}&format=bin&dtype=safe", enc("3, :")),
            ));
            r.push((
                "data",
                format!("&selection={}&flatten=true&format=npy", enc("0:2, 0:2")),
            ));
            r.push(("stats", format!("&selection={}", enc("1:3, 2:6"))));
            r.push(("data", "&format=tiff".into()));
            r.push((
                "data",
                format!("&selection={}&format=tiff", enc("1:5, ::2")),
            ));
        }
        Some(3) => {
            r.push(("data", format!("&selection={}", enc("1, :, 1:3"))));
            r.push(("data", format!("&selection={}&format=csv", enc("0"))));
        }
        _ => {}
    }
    r
}

/// Two TIFF files hold the same image (shape, dtype, pixels) as tifffile reads them.
fn same_tiff(python: &std::path::Path, a: &[u8], b: &[u8]) -> bool {
    let dir = scratch("tiff");
    let (pa, pb) = (dir.join("a.tiff"), dir.join("b.tiff"));
    std::fs::write(&pa, a).unwrap();
    std::fs::write(&pb, b).unwrap();
    let code = "import sys, numpy as np, tifffile\n\
                a, b = (tifffile.imread(p) for p in sys.argv[1:3])\n\
                sys.exit(0 if a.dtype == b.dtype and a.shape == b.shape \
                and np.array_equal(a, b, equal_nan=True) else 1)";
    std::process::Command::new(python)
        .args(["-c", code])
        .arg(&pa)
        .arg(&pb)
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn same_answers_as_h5grove() {
    let Some(python) = h5_oracle::require("h5grove venv", h5grove_python()) else {
        return;
    };
    let dir = scratch("grove");
    make_files(&python, &dir);
    let port = free_port();
    let app = format!(
        "import os\nos.environ['HDF5_USE_FILE_LOCKING']='FALSE'\n\
         import uvicorn\nfrom fastapi import FastAPI\n\
         from h5grove.fastapi_utils import router, settings\n\
         settings.base_dir = {:?}\napp = FastAPI()\napp.include_router(router)\n\
         uvicorn.run(app, host='127.0.0.1', port={port}, log_level='warning')\n",
        dir.display().to_string()
    );
    let _grove = Child(
        std::process::Command::new(&python)
            .args(["-c", &app])
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start h5grove"),
    );
    let theirs: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    assert!(wait_up(theirs, "/", 60), "h5grove did not start");
    let ours = start(&dir, true, h5_serve::Config::default());

    let (mut compared, mut failures) = (0usize, Vec::new());
    let mut check = |target: &str| {
        let a = get(theirs, target).unwrap();
        let b = get(ours, target).unwrap();
        compared += 1;
        let json = a.header("content-type") == Some("application/json");
        let same = a.status == b.status
            && match (a.status, json) {
                // h5grove's uncaught exceptions (500) are a plain "Internal Server Error".
                (500, _) => true,
                (_, true) => {
                    serde_json::from_slice::<Value>(&a.body).ok()
                        == serde_json::from_slice::<Value>(&b.body).ok()
                }
                _ if target.contains("format=tiff") => same_tiff(&python, &a.body, &b.body),
                _ => a.body == b.body,
            };
        if !same {
            let show = |r: &Reply| {
                let t = String::from_utf8_lossy(&r.body);
                format!("{} {}", r.status, t.chars().take(300).collect::<String>())
            };
            failures.push(format!(
                "{target}\n  h5grove: {}\n  ours:    {}",
                show(&a),
                show(&b)
            ));
        }
        (a, b)
    };
    assert_eq!(check("/").0.body, b"ok");
    for file in ["types.h5", "simple.h5", "target.h5", "missing.h5"] {
        let base = format!("?file={}", enc(file));
        let (paths, _) = check(&format!("/paths{base}&path=/"));
        let list: Vec<String> = serde_json::from_slice(&paths.body).unwrap_or_default();
        let mut all = list.clone();
        all.push("/nope".into());
        all.push("/links/dangling/x".into());
        for p in &all {
            let q = format!("{base}&path={}", enc(p));
            let meta: Value =
                serde_json::from_slice(&get(ours, &format!("/meta{q}")).unwrap().body)
                    .unwrap_or(Value::Null);
            for (ep, extra) in requests(&meta) {
                check(&format!("/{ep}{q}{extra}"));
            }
        }
        check(&format!(
            "/attr{base}&path=/&attr_keys=title&attr_keys=scale"
        ));
        check(&format!("/data{base}&path=/entry/data/image&format=xml"));
        check(&format!("/data{base}&path=/entry/data/image&dtype=bogus"));
        check(&format!("/meta{base}&path=/&resolve_links=maybe"));
        for res in ["none", "all", "true", "false", "ONLY_VALID"] {
            check(&format!("/paths{base}&path=/&resolve_links={res}"));
        }
        check(&format!("/paths{base}&path=/cycle"));
        check(&format!("/paths{base}&path=/entry/data/image"));
        check(&format!(
            "/attr{base}&path=/entry/data/image&attr_keys=units"
        ));
        check(&format!("/data{base}&path=/entry/data/image&flatten=maybe"));
        check(&format!(
            "/data{base}&path=/entry/data/image&selection=1:3&flatten=1&format=bin"
        ));
        check(&format!("/data{base}"));
        check("/meta?path=/");
        check(&format!("/data{base}&path=/entry/data/scalar&format=csv"));
    }
    eprintln!("{compared} requests compared, {} differ", failures.len());
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
