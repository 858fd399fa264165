//! The browser test: headless Chromium (Debian's, driven by playwright-core) loads the page
//! `h5 serve` serves; the tree shows the file's groups and a 2-D dataset renders as a heatmap
//! (checked in the DOM; a screenshot is kept in the target folder).

mod common;

use std::path::{Path, PathBuf};

use common::*;

const PLAYWRIGHT_VERSION: &str = "1.57.0";

fn tools() -> Result<(PathBuf, PathBuf), String> {
    let chromium = PathBuf::from("/usr/bin/chromium");
    if !chromium.is_file() {
        return Err("/usr/bin/chromium is missing (cargo xtask install-oracles)".into());
    }
    let home = std::env::var_os("HOME").ok_or("HOME is not set")?;
    let pw = Path::new(&home)
        .join(".cache/h5-oracles")
        .join(format!("playwright-{PLAYWRIGHT_VERSION}"));
    if !pw
        .join("node_modules/playwright-core/package.json")
        .is_file()
    {
        return Err(format!("{} has no playwright-core", pw.display()));
    }
    let probe = h5_serve::Server::new(Vec::new(), h5_serve::Config::default());
    if !probe.has_viewer() {
        return Err("built without the viewer bundle (cargo xtask build-viewer)".into());
    }
    Ok((chromium, pw))
}

#[test]
fn heatmap_in_chromium() {
    let Some((chromium, pw)) = h5_oracle::require("chromium + viewer", tools()) else {
        return;
    };
    let Some(py) = h5_oracle::require("h5py", h5grove_python().or_else(|_| h5_oracle::h5py()))
    else {
        return;
    };
    let dir = scratch("browser");
    make_files(&py, &dir);
    let addr = start(&dir, false, h5_serve::Config::default());
    // The index page lists the folder's files.
    let index = String::from_utf8(get(addr, "/").unwrap().body).unwrap();
    assert!(
        index.contains("types.h5") && index.contains("simple.h5"),
        "{index}"
    );
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("h5-serve-heatmap.png");
    let out = std::process::Command::new("node")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser.js"))
        .arg(&pw)
        .arg(&chromium)
        .arg(format!("http://{addr}/?file=types.h5"))
        .arg(dir.join("chromium-profile"))
        .arg(&shot)
        .output()
        .expect("node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "browser run failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    eprintln!("browser: {v}, screenshot {}", shot.display());
    let groups = v["groups"].to_string();
    assert!(
        groups.contains("entry") && groups.contains("links"),
        "{groups}"
    );
    assert_eq!(v["selected"], "true");
    assert!(
        v["canvases"].as_u64().unwrap_or(0) >= 1,
        "no heatmap canvas: {v}"
    );
    assert_eq!(v["errors"].as_array().map(Vec::len), Some(0), "{v}");
    assert!(std::fs::metadata(&shot).is_ok_and(|m| m.len() > 10_000));
}
