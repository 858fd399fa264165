//! The readers of kerchunk references, for the `h5 refs` interop test
//! (`crates/h5-cli/tests/refs_interop.rs`): kerchunk (whose `SingleHdf5ToZarr` output ours
//! is compared with), fsspec and s3fs (the `ReferenceFileSystem`, locally and from moto's
//! S3 server), zarr, xarray and dask, with h5py and hdf5plugin to read the same files, in a
//! virtual environment of their own at `~/.cache/h5-oracles/refs-REFS_ORACLE_TAG` (where the
//! test looks; keep the tag in step with it).

use std::path::PathBuf;
use std::process::Command;

use crate::{run, Result};

/// The name of the environment's folder: change it with the pins so machines rebuild it.
pub(crate) const REFS_ORACLE_TAG: &str = "kerchunk-0.2.10-1";

/// Every package, pinned (the direct ones and those whose versions change what is read).
const REQUIREMENTS: &[&str] = &[
    "kerchunk==0.2.10",
    "fsspec==2026.9.0",
    "s3fs==2026.9.0",
    "aiobotocore==3.10.0",
    "zarr==3.1.6",
    "numcodecs==0.16.6",
    "xarray==2026.9.0",
    "dask==2026.8.0",
    "numpy==2.4.6",
    "h5py==3.16.0",
    "hdf5plugin==7.1.0",
    "ujson==6.1.0",
];

/// Make the environment unless its Python already imports every reader.
pub(crate) fn install_refs_oracles() -> Result {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let venv = home
        .join(".cache/h5-oracles")
        .join(format!("refs-{REFS_ORACLE_TAG}"));
    let python = venv.join("bin/python");
    let ready = python.is_file()
        && Command::new(&python)
            .args([
                "-c",
                "import kerchunk.hdf, fsspec, s3fs, zarr, xarray, dask, h5py, hdf5plugin",
            ])
            .status()
            .is_ok_and(|s| s.success());
    if ready {
        return Ok(());
    }
    run(Command::new("python3").arg("-m").arg("venv").arg(&venv))?;
    run(Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "--disable-pip-version-check"])
        .args(REQUIREMENTS))
}
