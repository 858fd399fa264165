//! The read group: reading files made by h5py, side by side with h5py.
//!
//! Before the first run the h5py side makes the input files in a scratch directory
//! (`bench_h5py.py setup`): a file with 10,000 objects in its root group (groups and
//! scalar datasets), an `f64` dataset of `--mib` MiB stored contiguously, the same data
//! chunked (1 MiB chunks) with shuffle and deflate (level 4), and a compound dataset of
//! 5 members (26-byte packed records) of `--mib` MiB; the same `f64` data chunked with the
//! plugin filters of hdf5plugin: Zstd, LZ4, Bitshuffle with LZ4, Blosc and Blosc2 (lz4, shuffle). Each benchmark opens its file,
//! reads, and closes it under the clock, on both sides; the digests of what was read
//! (the sorted names; the values) must agree.

use crate::data::{self, digest, f64_bytes, Scratch};
use crate::runner::{Defaults, Group, Measurement, Side};
use crate::Result;
use h5::H5Type;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

/// The benchmarks: name and description.
pub const BENCHES: [(&str, &str); 9] = [
    ("open_list", "open and list 10,000 objects"),
    ("contiguous", "contiguous f64"),
    ("chunked_deflate", "chunked f64, shuffle + deflate"),
    ("compound_field", "one field of a 5-field compound"),
    ("chunked_zstd", "chunked f64, Zstd (level 3)"),
    ("chunked_lz4", "chunked f64, LZ4"),
    ("chunked_bitshuffle_lz4", "chunked f64, Bitshuffle + LZ4"),
    (
        "chunked_blosc_lz4",
        "chunked f64, Blosc (lz4, level 5, shuffle)",
    ),
    (
        "chunked_blosc2_lz4",
        "chunked f64, Blosc2 (lz4, level 5, shuffle)",
    ),
];

/// Member `b` of the compound records, alone.
#[derive(H5Type, Clone, Copy, Debug)]
#[repr(C)]
struct FieldB {
    b: f64,
}

/// One read: the bytes it counts, the time, and the output (bytes to digest).
fn read_one(dir: &Path, name: &str, mib: usize) -> Result<(u64, f64, Vec<u8>)> {
    let err = |e: h5::read::Error| format!("{name}: {e}");
    let t0 = Instant::now();
    Ok(match name {
        "open_list" => {
            let f = h5::File::open(dir.join("list.h5")).map_err(err)?;
            let links = f.root().and_then(|g| g.links()).map_err(err)?;
            drop(f);
            let t = t0.elapsed().as_secs_f64();
            let mut names: Vec<String> = links.into_iter().map(|l| l.name).collect();
            names.sort();
            (0, t, names.join("\n").into_bytes())
        }
        "contiguous"
        | "chunked_deflate"
        | "chunked_zstd"
        | "chunked_lz4"
        | "chunked_bitshuffle_lz4"
        | "chunked_blosc_lz4"
        | "chunked_blosc2_lz4" => {
            let file = match name {
                "contiguous" => "contiguous.h5".to_owned(),
                "chunked_deflate" => "deflate.h5".to_owned(),
                plugin => format!("{}.h5", &plugin["chunked_".len()..]),
            };
            let f = h5::File::open(dir.join(file)).map_err(err)?;
            let v: Vec<f64> = f.dataset("data").and_then(|d| d.read()).map_err(err)?;
            drop(f);
            let t = t0.elapsed().as_secs_f64();
            ((mib as u64) << 20, t, f64_bytes(&v))
        }
        "compound_field" => {
            let f = h5::File::open(dir.join("compound.h5")).map_err(err)?;
            let v: Vec<FieldB> = f.dataset("records").and_then(|d| d.read()).map_err(err)?;
            drop(f);
            let t = t0.elapsed().as_secs_f64();
            let b: Vec<f64> = v.iter().map(|r| r.b).collect();
            ((mib as u64) << 20, t, f64_bytes(&b))
        }
        other => return Err(format!("unknown read benchmark {other:?}")),
    })
}

/// Our side: `reps` timed reads of each benchmark named by `only` (or all), then one line
/// each with the digest of the last read's output.
pub fn worker(mib: usize, reps: usize, only: &str, dump: Option<&Path>) -> Result {
    let dir = data::worker_dir()?;
    let mut found = false;
    for (name, _) in BENCHES.iter().filter(|(n, _)| only == "all" || *n == only) {
        found = true;
        let mut times = Vec::new();
        let mut last = (0, Vec::new());
        for _ in 0..reps {
            let (bytes, t, out) = read_one(&dir, name, mib)?;
            times.push(t);
            last = (bytes, out);
        }
        let hash = digest(&last.1);
        for seconds in times {
            let m = Measurement {
                name: (*name).to_owned(),
                bytes: last.0,
                seconds,
                hash,
            };
            println!("{}", m.line());
        }
        if let Some(path) = dump {
            std::fs::write(path, &last.1).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    if found {
        Ok(())
    } else {
        Err(format!("unknown read benchmark {only:?}"))
    }
}

/// The read group for the runner.
#[derive(Default)]
pub struct ReadGroup {
    scratch: OnceLock<Scratch>,
}

impl Group for ReadGroup {
    fn name(&self) -> &'static str {
        "read"
    }

    fn benchmarks(&self) -> Vec<(&'static str, &'static str)> {
        BENCHES.to_vec()
    }

    fn reference_label(&self) -> &'static str {
        "h5py"
    }

    fn bytes(&self, name: &str, mib: usize) -> u64 {
        if name == "open_list" {
            0
        } else {
            (mib as u64) << 20
        }
    }

    fn defaults(&self) -> Defaults {
        Defaults {
            runs: 5,
            reps: 1,
            mib: 256,
        }
    }

    fn setup(&self, cfg: &crate::runner::Config) -> Result {
        if self.scratch.get().is_some() {
            return Ok(());
        }
        let s = Scratch::new("read")?;
        eprintln!(
            "read: making the input files with h5py in {}",
            s.dir().display()
        );
        let mut c = s.python("setup");
        c.arg(cfg.mib.to_string());
        data::output(c)?;
        let _ = self.scratch.set(s);
        Ok(())
    }

    fn command(
        &self,
        side: Side,
        our_exe: &Path,
        mib: usize,
        reps: usize,
        only: Option<&str>,
        dump: Option<&Path>,
    ) -> Result<Command> {
        let s = self
            .scratch
            .get()
            .ok_or("read: the input files are not made yet")?;
        Ok(s.worker_command("read", side, our_exe, (mib, reps), only, dump))
    }
}
