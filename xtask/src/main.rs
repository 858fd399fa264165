//! `cargo xtask <task>`: the project's automation, in Rust, with no dependencies.
//!
//! - `ci`: install the oracle tools if missing (hdf5-tools and libhdf5-dev through apt, h5py
//!   and hdf5plugin through pip), then `cargo fmt --check`, `cargo clippy -D warnings`, and every test with
//!   `H5_REQUIRE_ORACLES=1` so that no differential test can pass by skipping.
//! - `gen-fixtures [--check]`: write the h5py interop fixtures (`xtask/fixtures.py`) and the
//!   reference `h5dump` output of each into `crates/h5-io/tests/fixtures/h5py/`, and the
//!   plugin-filter fixtures (`xtask/plugin_fixtures.py`, h5py with hdf5plugin) with the
//!   output of `h5dump` loading hdf5plugin's plugins into `.../fixtures/plugins/`; with
//!   `--check`, regenerate into a scratch folder and fail if anything differs from what is
//!   committed.
//! - `bench [GROUP...] [--runs N] [--reps R] [--mib M] [--threads T] [--tsv]`: build `h5-bench` in release and run it:
//!   each benchmark group side by side with the reference (for `convert`, the reference
//!   library's `H5Tconvert`; for `read` and `write`, h5py), interleaved, reported as median
//!   times and their ratios. `bench peers [...]`: the read group against h5py and the other
//!   pure-Rust HDF5 crates (`bench_peers.rs`).

mod bench_peers;

mod oracle_bioc;
mod oracle_refs;

mod oracle_serve;
mod viewer;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod oracle_netcdf;

/// The h5py version the interop tests and fixtures are made with.
/// The facade's examples CI runs: the quickstart and one per section of the crate's tour.
const EXAMPLES: &[&str] = &[
    "quickstart",
    "tour_walk",
    "tour_read",
    "tour_slice",
    "tour_write",
    "tour_attributes",
    "tour_errors",
    "tour_threads",
];

const H5PY_VERSION: &str = "3.16.0";
/// The hdf5plugin version (the plugin filters' reference encoders) of the plugin fixtures
/// and interop tests.
const HDF5PLUGIN_VERSION: &str = "7.1.0";
/// Debian packages that bring the reference library and its tools.
const APT_PACKAGES: &[&str] = &["hdf5-tools", "libhdf5-dev", "pkg-config"];
/// moto's S3 server for the object-store tests, in a virtual environment of its own (keep in
/// step with `h5_oracle::moto::MOTO_VERSION`).
const MOTO_VERSION: &str = "5.2.5";

type Result<T = ()> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci(),
        Some("install-oracles") => install_oracles(),
        Some("gen-fixtures") => gen_fixtures(args.iter().any(|a| a == "--check")),
        Some("bench") => bench(&args[1..]),
        Some("build-viewer") => viewer::build(),
        Some("help") | Some("--help") | Some("-h") | None => {
            println!("usage: cargo xtask <task>\n\ntasks:\n  ci               install oracles, fmt check, clippy -D warnings, all tests\n  install-oracles  install h5dump/libhdf5 (apt), h5py and hdf5plugin (pip) if missing\n  gen-fixtures     write the h5py fixtures and their reference dumps (--check: verify them)\n  build-viewer     build the h5web bundle `h5 serve` embeds (npm, cached)\n  bench            benchmarks side by side with the reference library and h5py: [convert] [read] [write] [--runs N] [--reps R] [--mib M] [--threads T] [--tsv] [--svg FILE]; peers [--runs N] [--mib M] [--svg FILE]");
            Ok(())
        }
        Some(other) => Err(format!("unknown task {other:?} (try `cargo xtask help`)")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    c
}

fn run(cmd: &mut Command) -> Result {
    eprintln!("xtask: running {cmd:?}");
    let status = cmd.status().map_err(|e| format!("{cmd:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?} failed: {status}"))
    }
}

fn succeeds(cmd: &mut Command) -> bool {
    cmd.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
}

/// The fixture sets: the generator script under `xtask/` and the folder under
/// `crates/h5-io/tests/fixtures/`. The plugin set is dumped with hdf5plugin's plugins
/// loaded.
const FIXTURE_SETS: &[(&str, &str)] = &[("fixtures.py", "h5py"), ("plugin_fixtures.py", "plugins")];

/// Where a fixture set and its expected dumps live.
fn fixtures_dir(set: &str) -> PathBuf {
    root().join("crates/h5-io/tests/fixtures").join(set)
}

/// Generate a fixture set into `out`: the files, one `NAME.ddl` per file with the reference
/// h5dump's stdout, and `INDEX.tsv` with each file's h5dump exit status.
fn generate_fixtures(script: &str, out: &Path) -> Result {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    run(Command::new("python3")
        .arg(root().join("xtask").join(script))
        .arg(out))?;
    let plugin_path = if script == "plugin_fixtures.py" {
        Some(hdf5plugin_path()?)
    } else {
        None
    };
    let mut names: Vec<String> = std::fs::read_dir(out)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".h5"))
        .collect();
    names.sort();
    let mut index = String::from("file\th5dump_rc\n");
    for name in &names {
        let mut dump = Command::new("h5dump");
        dump.arg(name).current_dir(out);
        if let Some(p) = &plugin_path {
            dump.env("HDF5_PLUGIN_PATH", p);
        }
        let o = dump.output().map_err(|e| format!("h5dump: {e}"))?;
        let stem = name.trim_end_matches(".h5");
        std::fs::write(out.join(format!("{stem}.ddl")), &o.stdout).map_err(|e| e.to_string())?;
        index.push_str(&format!("{name}\t{}\n", o.status.code().unwrap_or(-1)));
    }
    std::fs::write(out.join("INDEX.tsv"), index).map_err(|e| e.to_string())?;
    Ok(())
}

/// `gen-fixtures`: write every set, or with `check` regenerate and compare byte for byte.
pub fn gen_fixtures(check: bool) -> Result {
    for (script, set) in FIXTURE_SETS {
        gen_fixture_set(script, set, check)?;
    }
    Ok(())
}

fn gen_fixture_set(script: &str, set: &str, check: bool) -> Result {
    let dest = fixtures_dir(set);
    if !check {
        if dest.exists() {
            std::fs::remove_dir_all(&dest).map_err(|e| e.to_string())?;
        }
        generate_fixtures(script, &dest)?;
        eprintln!("xtask: fixtures written to {}", dest.display());
        return Ok(());
    }
    let scratch =
        std::env::temp_dir().join(format!("h5-fixtures-check-{set}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    generate_fixtures(script, &scratch)?;
    let list = |d: &Path| -> Result<Vec<String>> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .map_err(|e| format!("{}: {e}", d.display()))?
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect();
        v.sort();
        Ok(v)
    };
    let (fresh, committed) = (list(&scratch)?, list(&dest)?);
    let mut problems = Vec::new();
    if fresh != committed {
        problems.push(format!(
            "file lists differ: generated {fresh:?}, committed {committed:?}"
        ));
    }
    for name in fresh.iter().filter(|n| committed.contains(n)) {
        let a = std::fs::read(scratch.join(name)).map_err(|e| e.to_string())?;
        let b = std::fs::read(dest.join(name)).map_err(|e| e.to_string())?;
        if a != b {
            problems.push(format!("{name} differs from a fresh generation"));
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "stale fixtures (run `cargo xtask gen-fixtures`):\n  {}",
            problems.join("\n  ")
        ))
    }
}

/// `bench`: build the benchmark runner in release and run it with `args`. It needs the
/// reference library (`cargo xtask install-oracles`).
fn bench(args: &[String]) -> Result {
    if args.first().map(String::as_str) == Some("peers") {
        return bench_peers::bench_peers(&args[1..]);
    }
    run(cargo().args(["build", "--release", "--quiet", "-p", "h5-bench"]))?;
    // The build above ran in the workspace root, where Cargo resolved a relative
    // CARGO_TARGET_DIR.
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(|t| root().join(t))
        .unwrap_or_else(|| root().join("target"));
    let exe = target.join("release").join("h5-bench");
    run(Command::new(&exe).args(args).current_dir(root()))
}

fn ci() -> Result {
    install_oracles()?;
    viewer::build()?;
    run(cargo().args(["fmt", "--all", "--", "--check"]))?;
    run(cargo().args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;
    run(cargo()
        .args(["test", "--workspace", "--all-targets"])
        .env("H5_REQUIRE_ORACLES", "1"))?;
    run(cargo()
        .args(["test", "--workspace", "--doc"])
        .env("H5_REQUIRE_ORACLES", "1"))?;
    // The facade's documentation builds without a warning (broken links included).
    run(cargo()
        .args(["doc", "--no-deps", "-p", "h5"])
        .env("RUSTDOCFLAGS", "-D warnings"))?;
    // The README's quickstart and the tour's examples run.
    let scratch = std::env::temp_dir().join(format!("h5-xtask-examples-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    for example in EXAMPLES {
        let out = scratch.join(format!("{example}.h5"));
        run(cargo()
            .args(["run", "--quiet", "-p", "h5", "--example", example, "--"])
            .arg(&out))?;
    }
    let _ = std::fs::remove_dir_all(&scratch);
    eprintln!("xtask: ci passed");
    Ok(())
}

/// Install what the differential tests need, only where it is missing.
fn install_oracles() -> Result {
    let have_tools = on_path("h5dump") && on_path("h5diff") && on_path("h5repack");
    let have_lib = succeeds(Command::new("pkg-config").args(["--exists", "hdf5"]));
    if !(have_tools && have_lib) {
        let sudo: &[&str] = if is_root() { &[] } else { &["sudo"] };
        let apt = |args: &[&str]| {
            let mut c = Command::new(sudo.first().copied().unwrap_or("apt-get"));
            if !sudo.is_empty() {
                c.arg("apt-get");
            }
            c.args(args).env("DEBIAN_FRONTEND", "noninteractive");
            c
        };
        run(&mut apt(&["update", "-qq"]))?;
        let mut install = apt(&["install", "-y", "-qq", "--no-install-recommends"]);
        install.args(APT_PACKAGES);
        run(&mut install)?;
    }
    let h5py_ok = Command::new("python3")
        .args([
            "-c",
            "import h5py, sys; sys.exit(0 if h5py.__version__ == sys.argv[1] else 1)",
            H5PY_VERSION,
        ])
        .status()
        .is_ok_and(|s| s.success());
    if !h5py_ok {
        pip_install(&format!("h5py=={H5PY_VERSION}"))?;
    }
    if python_version("hdf5plugin").as_deref() != Some(HDF5PLUGIN_VERSION) {
        pip_install(&format!("hdf5plugin=={HDF5PLUGIN_VERSION}"))?;
    }
    oracle_bioc::install()?;
    oracle_netcdf::install()?;
    install_moto()?;
    oracle_refs::install_refs_oracles()?;
    oracle_serve::install()
}

/// `moto[server]` in `~/.cache/h5-oracles/moto-VERSION` (where `h5_oracle::moto` looks).
fn install_moto() -> Result {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let venv = home
        .join(".cache/h5-oracles")
        .join(format!("moto-{MOTO_VERSION}"));
    let server = venv.join("bin/moto_server");
    if server.is_file() {
        return Ok(());
    }
    run(Command::new("python3").arg("-m").arg("venv").arg(&venv))?;
    run(Command::new(venv.join("bin/pip")).args([
        "install",
        "--quiet",
        "--disable-pip-version-check",
        &format!("moto[server]=={MOTO_VERSION}"),
    ]))
}

fn pip_install(requirement: &str) -> Result {
    run(Command::new("python3").args([
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        requirement,
    ]))
}

/// The installed version of a Python package, if it imports.
fn python_version(module: &str) -> Option<String> {
    let o = Command::new("python3")
        .args(["-c", &format!("import {module}; print({module}.version)")])
        .output()
        .ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// hdf5plugin's folder of plugin libraries (for `HDF5_PLUGIN_PATH`).
fn hdf5plugin_path() -> Result<String> {
    let o = Command::new("python3")
        .args(["-c", "import hdf5plugin; print(hdf5plugin.PLUGIN_PATH)"])
        .output()
        .map_err(|e| format!("python3: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "hdf5plugin does not import (cargo xtask install-oracles): {}",
            String::from_utf8_lossy(&o.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}
