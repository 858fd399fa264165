//! The workers of `cargo xtask bench peers`: one binary per pure-Rust HDF5 library (its
//! own release binary, so no library's allocator, thread pool or page cache state leaks
//! into another's), each running the read group's benchmarks through
//! [`h5_bench::read::run_worker`] on the files h5py made, with the same digests.
//!
//! Each binary takes `MIB REPS NAME|all [DUMPFILE]` with `H5_BENCH_DIR` set, like
//! `h5-bench worker read`. A benchmark the library has no API for is reported as
//! unsupported (`None`); where a library can only read whole records or whole datasets,
//! the binary does that and picks out the part asked for, inside the clock.
#![forbid(unsafe_code)]

pub use h5_bench::data::{Clock, READ_ATTR, SLAB_SELECTION};
pub use h5_bench::read::{bench_file, Timed};
pub use h5_bench::Result;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Offset of member `b` (`f64`) in the packed 26-byte records of the compound benchmark.
pub const FIELD_B_OFFSET: usize = 4;

/// Member `b` of every packed record in `raw` (the records' file bytes).
pub fn field_b(raw: &[u8]) -> Vec<f64> {
    raw.chunks_exact(h5_bench::data::RECORD_FILE_SIZE)
        .map(|r| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&r[FIELD_B_OFFSET..FIELD_B_OFFSET + 8]);
            f64::from_le_bytes(a)
        })
        .collect()
}

/// The names of a listing, sorted and joined by newlines (the open-and-list digest).
pub fn names_bytes(mut names: Vec<String>) -> Vec<u8> {
    names.sort();
    names.join("\n").into_bytes()
}

/// The rows and columns of the hyperslab benchmark's selection out of a whole row-major
/// `f32` matrix `side` columns wide (for libraries that read rows or whole datasets).
pub fn slab_of_rows(rows: &[f32], first_row: u64, side: u64) -> Vec<f32> {
    let [(r0, nr), (c0, nc)] = SLAB_SELECTION;
    let mut out = Vec::with_capacity((nr * nc) as usize);
    for r in r0..r0 + nr {
        let at = ((r - first_row) * side + c0) as usize;
        out.extend_from_slice(&rows[at..at + nc as usize]);
    }
    out
}

/// The path of benchmark `name`'s file in `dir`, and the object to read.
pub fn input(dir: &Path, name: &str) -> Result<(PathBuf, &'static str)> {
    let (file, object) =
        bench_file(name).ok_or_else(|| format!("unknown read benchmark {name:?}"))?;
    Ok((dir.join(file), object))
}

/// A worker's `main`: parse `MIB REPS NAME|all [DUMPFILE]` and run the reads.
pub fn main_with(read: impl FnMut(&Path, &str) -> Result<Option<Timed>>) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let run = || -> Result {
        let [mib, reps, only, rest @ ..] = &args[..] else {
            return Err("usage: WORKER MIB REPS NAME|all [DUMPFILE]".into());
        };
        let num = |s: &str| s.parse::<usize>().map_err(|_| format!("bad number {s:?}"));
        let dump = rest.first().map(PathBuf::from);
        h5_bench::read::run_worker(num(reps)?, only, dump.as_deref(), num(mib)?, read)
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// An error of a peer library as a message.
pub fn msg<E: std::fmt::Debug>(name: &str) -> impl Fn(E) -> String + '_ {
    move |e| format!("{name}: {e:?}")
}
