//! `build-viewer`: build the h5web app `h5 serve` embeds (`crates/h5-serve/viewer/`: pinned
//! `@h5web/app`, react, vite 7 with a lock file) with npm, in a cache outside the repository
//! (`~/.cache/h5-viewer/<hash of the sources>`), and copy the bundle to the crate's
//! git-ignored `viewer/dist/`, where its `build.rs` embeds it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{root, run, Result};

/// The sources of the viewer, copied into the build folder.
const SOURCES: &[&str] = &[
    "package.json",
    "package-lock.json",
    "index.html",
    "main.js",
    "vite.config.js",
];

fn copy_dir(from: &Path, to: &Path) -> Result {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for e in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let e = e.map_err(|e| e.to_string())?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() {
            copy_dir(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(|e| format!("{}: {e}", src.display()))?;
        }
    }
    Ok(())
}

/// Build the bundle unless the cache has it for these sources; then copy it into place.
pub fn build() -> Result {
    let src = root().join("crates/h5-serve/viewer");
    // FNV-1a over the sources names the cached build.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut texts = Vec::new();
    for name in SOURCES {
        let b = std::fs::read(src.join(name)).map_err(|e| format!("{name}: {e}"))?;
        for byte in name.bytes().chain(b.iter().copied()) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        texts.push((name, b));
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let work = home.join(".cache/h5-viewer").join(format!("{hash:016x}"));
    let dist = work.join("dist");
    if !dist.join("index.html").is_file() {
        std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
        for (name, b) in &texts {
            std::fs::write(work.join(name), b).map_err(|e| format!("{name}: {e}"))?;
        }
        run(Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--silent"])
            .current_dir(&work))?;
        run(Command::new("npx")
            .args(["--no-install", "vite", "build", "--logLevel", "warn"])
            .current_dir(&work))?;
    } else {
        eprintln!("xtask: viewer cached in {}", work.display());
    }
    let out = src.join("dist");
    let _ = std::fs::remove_dir_all(&out);
    copy_dir(&dist, &out)?;
    eprintln!("xtask: viewer bundle in {}", out.display());
    Ok(())
}
