//! `cargo xtask bench peers [ARGS...]`: build `h5-bench` and the peer libraries' workers
//! (crates/h5-bench-peers, a crate outside the workspace so that CI never compiles them)
//! in release, into the workspace's target directory, and run `h5-bench peers` with them.

use crate::{cargo, root, run, Result};
use std::process::Command;

/// The workers: the table's label (crate and pinned version) and the binary's name.
const PEERS: [(&str, &str); 5] = [
    ("hdf5-pure 0.47.0", "peer-hdf5-pure"),
    ("rustyhdf5 1.93.0", "peer-rustyhdf5"),
    ("rust-hdf5 0.7.9", "peer-rust-hdf5"),
    ("hdf5-reader 0.12.1", "peer-hdf5-reader"),
    ("hdf5-pure-rust 0.3.10", "peer-hdf5-pure-rust"),
];

/// Build everything and run the peers table with `args` (`--runs`, `--mib`, `--svg`...).
pub fn bench_peers(args: &[String]) -> Result {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(|t| root().join(t))
        .unwrap_or_else(|| root().join("target"));
    run(cargo().args(["build", "--release", "--quiet", "-p", "h5-bench"]))?;
    run(cargo()
        .args([
            "build",
            "--release",
            "--quiet",
            "--locked",
            "--manifest-path",
        ])
        .arg(root().join("crates/h5-bench-peers/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target))?;
    let release = target.join("release");
    let mut cmd = Command::new(release.join("h5-bench"));
    cmd.arg("peers").args(args).current_dir(root());
    for (label, bin) in PEERS {
        cmd.arg("--peer")
            .arg(format!("{label}={}", release.join(bin).display()));
    }
    run(&mut cmd)
}
