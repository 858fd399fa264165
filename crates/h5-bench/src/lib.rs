//! The project's benchmarks, run side by side with the reference implementations and
//! reported as ratios (`cargo xtask bench`).
//!
//! Each group ([`runner::Group`]) has two sides that print measurements in one line format:
//! ours, the `h5-bench worker GROUP ...` subcommand of this crate's binary, and the
//! reference's (for [`convert`], a C program against the reference library; for [`read`]
//! and [`write`], a Python script timing h5py on the same files). The runner
//! alternates them, takes medians, and fails loudly when their outputs differ.
#![forbid(unsafe_code)]

pub mod convert;
pub mod data;
pub mod peers;
pub mod read;
pub mod runner;
pub mod svg;
pub mod write;

/// Errors are messages for the person running the benchmarks.
pub type Result<T = ()> = std::result::Result<T, String>;

/// Every group, in the order they run when none is named.
pub fn groups() -> Vec<Box<dyn runner::Group>> {
    vec![
        Box::new(convert::ConvertGroup),
        Box::new(read::ReadGroup::default()),
        Box::new(write::WriteGroup::default()),
    ]
}

/// Our side of a group: `h5-bench worker GROUP MIB REPS NAME|all [DUMPFILE]`.
pub fn worker(
    group: &str,
    mib: usize,
    reps: usize,
    only: &str,
    dump: Option<&std::path::Path>,
) -> Result {
    match group {
        "convert" => convert::worker(mib, reps, only, dump),
        "read" => read::worker(mib, reps, only, dump),
        "write" => write::worker(mib, reps, only, dump),
        other => Err(format!("unknown benchmark group {other:?}")),
    }
}
