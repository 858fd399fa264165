//! The BioC oracle: ritsuko's C++ headers and a C++ compiler, for `crates/h5-bioc`'s
//! `tests/ritsuko.rs` (which builds its driver, `tests/support/ritsuko_driver.cpp`, against
//! them and libhdf5's C++ library from `libhdf5-dev`).
//!
//! ritsuko is header-only; the PyPI package `assorthead` (BiocPy's bundle of C++ headers)
//! ships it (`assorthead.includes()`), version 0.2.2 carrying ritsuko v0.6.1.

use std::process::Command;

use crate::{is_root, on_path, pip_install, run, Result};

/// The assorthead release whose headers the BioC tests build against (keep in step with
/// `ASSORTHEAD_VERSION` in `crates/h5-bioc/tests/ritsuko.rs`).
const ASSORTHEAD_VERSION: &str = "0.2.2";

fn assorthead_version() -> Option<String> {
    let o = Command::new("python3")
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('assorthead'))",
        ])
        .output()
        .ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// Install assorthead (pip) and a C++ compiler (apt `g++`) when missing.
pub(crate) fn install() -> Result {
    if !on_path("c++") && !on_path("g++") {
        let mut apt = Command::new(if is_root() { "apt-get" } else { "sudo" });
        if !is_root() {
            apt.arg("apt-get");
        }
        apt.env("DEBIAN_FRONTEND", "noninteractive");
        let mut update = Command::new(apt.get_program());
        update.args(apt.get_args()).args(["update", "-qq"]);
        run(&mut update)?;
        apt.args(["install", "-y", "-qq", "--no-install-recommends", "g++"]);
        run(&mut apt)?;
    }
    if assorthead_version().as_deref() != Some(ASSORTHEAD_VERSION) {
        pip_install(&format!("assorthead=={ASSORTHEAD_VERSION}"))?;
    }
    Ok(())
}
