//! The netCDF oracles of `crates/h5-netcdf`'s tests: netCDF4-python (pinned; its wheel
//! bundles the netcdf-c library the differential tests call through ctypes) and `ncdump`
//! (Debian's `netcdf-bin`).

use std::process::Command;

use crate::{is_root, on_path, pip_install, run, Result};

/// The netCDF4-python version (its wheel bundles netcdf-c 4.10.1 and HDF5 2.2.0).
const NETCDF4_VERSION: &str = "1.7.5.1";
/// The Debian package with `ncdump`.
const APT_PACKAGE: &str = "netcdf-bin";

/// Install netCDF4-python and `ncdump` when missing.
pub fn install() -> Result {
    if !on_path("ncdump") {
        let apt = || {
            let mut c = if is_root() {
                Command::new("apt-get")
            } else {
                let mut c = Command::new("sudo");
                c.arg("apt-get");
                c
            };
            c.env("DEBIAN_FRONTEND", "noninteractive");
            c
        };
        run(apt().args(["update", "-qq"]))?;
        let mut c = apt();
        c.args([
            "install",
            "-y",
            "-qq",
            "--no-install-recommends",
            APT_PACKAGE,
        ]);
        run(&mut c)?;
    }
    let installed = Command::new("python3")
        .args(["-c", "import netCDF4; print(netCDF4.__version__)"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if installed.as_deref() != Some(NETCDF4_VERSION) {
        pip_install(&format!("netCDF4=={NETCDF4_VERSION}"))?;
    }
    Ok(())
}
