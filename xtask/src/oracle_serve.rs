//! The oracles of `h5-serve`'s tests: h5grove's FastAPI server (pinned, with h5py and
//! hdf5plugin, in `~/.cache/h5-oracles/h5grove-VERSION`) and Debian's headless Chromium with
//! playwright-core (npm, in `~/.cache/h5-oracles/playwright-VERSION`) for the browser test.

use std::path::PathBuf;
use std::process::Command;

use crate::{is_root, on_path, run, Result};

/// h5grove (keep in step with `crates/h5-serve/tests/common/mod.rs`).
const H5GROVE_VERSION: &str = "4.0.0";
/// What the h5grove venv holds, pinned.
const H5GROVE_REQUIREMENTS: &[&str] = &[
    "h5grove[fastapi]==4.0.0",
    "fastapi==0.165.0",
    "starlette==1.10.0",
    "uvicorn==0.54.0",
    "pydantic-settings==2.16.3",
    "orjson==3.13.0",
    "tifffile==2026.3.3",
    "h5py==3.16.0",
    "hdf5plugin==7.1.0",
];
/// playwright-core, driving Chromium from the browser test.
pub const PLAYWRIGHT_VERSION: &str = "1.57.0";

fn oracles() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default()
        .join(".cache/h5-oracles")
}

/// Install h5grove's venv, Chromium (apt) and playwright-core (npm) where missing.
pub fn install() -> Result {
    let venv = oracles().join(format!("h5grove-{H5GROVE_VERSION}"));
    if !venv.join("bin/uvicorn").is_file() {
        run(Command::new("python3").arg("-m").arg("venv").arg(&venv))?;
        run(Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .args(H5GROVE_REQUIREMENTS))?;
    }
    if !on_path("chromium") {
        let apt = |args: &[&str]| {
            let mut c = if is_root() {
                Command::new("apt-get")
            } else {
                let mut c = Command::new("sudo");
                c.arg("apt-get");
                c
            };
            c.args(args).env("DEBIAN_FRONTEND", "noninteractive");
            c
        };
        run(&mut apt(&["update", "-qq"]))?;
        run(&mut apt(&[
            "install",
            "-y",
            "-qq",
            "--no-install-recommends",
            "chromium",
        ]))?;
    }
    let pw = oracles().join(format!("playwright-{PLAYWRIGHT_VERSION}"));
    if !pw
        .join("node_modules/playwright-core/package.json")
        .is_file()
    {
        std::fs::create_dir_all(&pw).map_err(|e| format!("{}: {e}", pw.display()))?;
        run(Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--silent"])
            .arg(format!("playwright-core@{PLAYWRIGHT_VERSION}"))
            .current_dir(&pw))?;
    }
    Ok(())
}
