//! The reference library as a judge, for tests only.
//!
//! Small C programs under `c/` are built on first use with the system C compiler against the
//! reference library (`libhdf5-dev`: `pkg-config hdf5` or `h5cc`), cached under the target
//! directory, and driven over stdin/stdout. Command-line tools (`h5dump`, `h5diff`, ...) and
//! h5py are located the same way.
//!
//! Policy: when an oracle is absent, [`require`] returns `None` and prints why, so the test
//! skips; with `H5_REQUIRE_ORACLES=1` (set by `cargo xtask ci`) it panics instead, so CI cannot
//! pass by skipping.

pub mod moto;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

/// Whether missing oracles are failures (`H5_REQUIRE_ORACLES=1`).
pub fn oracles_required() -> bool {
    std::env::var("H5_REQUIRE_ORACLES").is_ok_and(|v| v == "1" || v.eq_ignore_ascii_case("true"))
}

/// Turn an oracle lookup into the test policy: `Some` when present; when absent, `None` after
/// printing why (or a panic when oracles are required).
pub fn require<T>(what: &str, found: Result<T, String>) -> Option<T> {
    match found {
        Ok(t) => Some(t),
        Err(why) => {
            if oracles_required() {
                panic!("oracle {what} is required (H5_REQUIRE_ORACLES=1) but unavailable: {why}");
            }
            eprintln!("skipping: oracle {what} unavailable: {why}");
            None
        }
    }
}

/// The directory where built oracle programs are cached.
fn cache_dir() -> PathBuf {
    // CARGO_TARGET_TMPDIR exists for integration tests only; fall back to the target dir
    // beside this crate's manifest.
    let base = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    base.join("h5-oracle")
}

/// Compiler and linker flags for the reference library, from pkg-config or h5cc.
fn hdf5_flags() -> Result<Vec<String>, String> {
    if let Ok(out) = Command::new("pkg-config")
        .args(["--cflags", "--libs", "hdf5"])
        .output()
    {
        if out.status.success() {
            let s = String::from_utf8_lossy(&out.stdout).to_string();
            let mut v: Vec<String> = s.split_whitespace().map(str::to_owned).collect();
            // The high-level library (H5LT*) sits beside the main one.
            let hl = v.iter().find_map(|f| {
                f.strip_prefix("-L")
                    .map(|d| Path::new(d).join("libhdf5_hl.so"))
            });
            if hl.is_some_and(|p| p.exists())
                || Path::new("/usr/lib/x86_64-linux-gnu/libhdf5_serial_hl.so").exists()
            {
                v.push("-lhdf5_hl".into());
            }
            return Ok(v);
        }
    }
    Err("libhdf5 not found by pkg-config (install libhdf5-dev)".into())
}

static BUILD_LOCK: Mutex<()> = Mutex::new(());

/// Build (once per source change) the C program `c/<name>.c` against the reference library
/// and return the executable's path.
pub fn c_program(name: &str) -> Result<PathBuf, String> {
    c_program_with(name, &[])
}

/// [`c_program`] with extra compiler flags after the defaults (e.g. `-O2` for benchmark
/// drivers); each set of flags is cached separately.
pub fn c_program_with(name: &str, extra_flags: &[&str]) -> Result<PathBuf, String> {
    let _guard = BUILD_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("c")
        .join(format!("{name}.c"));
    let mut text = std::fs::read(&src).map_err(|e| format!("{}: {e}", src.display()))?;
    for f in extra_flags {
        text.push(0);
        text.extend_from_slice(f.as_bytes());
    }
    let hash = fnv(&text);
    let dir = cache_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let exe = dir.join(format!("{name}-{hash:016x}"));
    if exe.exists() {
        return Ok(exe);
    }
    let flags = hdf5_flags()?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let tmp = dir.join(format!("{name}-{hash:016x}.tmp{}", std::process::id()));
    let out = Command::new(&cc)
        .arg("-O1")
        .args(extra_flags)
        .arg("-o")
        .arg(&tmp)
        .arg(&src)
        .args(&flags)
        .arg("-lm")
        .output()
        .map_err(|e| format!("running {cc}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "building {}: {}",
            src.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    std::fs::rename(&tmp, &exe).map_err(|e| format!("{}: {e}", exe.display()))?;
    Ok(exe)
}

/// Run a built C oracle with `args`, feeding `stdin`, and return its stdout. A non-zero exit
/// is an error carrying stderr.
pub fn run_c(name: &str, args: &[&str], stdin: &[u8]) -> Result<Vec<u8>, String> {
    let exe = c_program(name)?;
    run(&exe, args, stdin)
}

/// Run any program with arguments and stdin; stdout on success, stderr in the error.
pub fn run(exe: &Path, args: &[&str], stdin: &[u8]) -> Result<Vec<u8>, String> {
    use std::io::Write;
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    let mut input = child.stdin.take().ok_or("no stdin")?;
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || input.write_all(&data));
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(format!(
            "{} exited {}: {}",
            exe.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(out.stdout)
}

/// The path of a command-line tool (`h5dump`, `h5diff`, `h5repack`, `python3`...) on PATH.
pub fn tool(name: &str) -> Result<PathBuf, String> {
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(name))
                .find(|p| p.is_file())
        })
        .ok_or_else(|| format!("{name} not on PATH"))
}

/// Whether h5py imports in `python3`; returns the interpreter's path.
pub fn h5py() -> Result<PathBuf, String> {
    let py = tool("python3")?;
    let out = Command::new(&py)
        .args(["-c", "import h5py"])
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(py)
    } else {
        Err(format!(
            "h5py does not import: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Runs the h5py script `script` with `dir` as its argument (it writes its files there)
/// and returns `dir`; `None` without h5py (see [`require`]). Panics when the script fails.
pub fn h5py_files(script: &Path, dir: PathBuf) -> Option<PathBuf> {
    let py = require("h5py", h5py())?;
    let out = Command::new(py)
        .arg(script)
        .arg(&dir)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", script.display()));
    assert!(
        out.status.success(),
        "{}: {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(dir)
}

fn fnv(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// Folder `dir` of the shared corpus: under `$H5_CORPUS` when set, otherwise
/// `shared/corpus` beside the checkout (or one level further up).
pub fn corpus(dir: &str) -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        std::env::var_os("H5_CORPUS").map(PathBuf::from),
        Some(manifest.join("../../../shared/corpus")),
        Some(manifest.join("../../../../shared/corpus")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.is_dir())
        .unwrap_or_else(|| manifest.join("../../../shared/corpus"))
        .join(dir)
}
