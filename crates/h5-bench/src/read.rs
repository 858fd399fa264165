//! The read group: reading files made by h5py, side by side with h5py.
//!
//! Before the first run the h5py side makes the input files in a scratch directory
//! (`bench_h5py.py setup`): a file with 10,000 objects in its root group (groups and
//! scalar datasets), an `f64` dataset of `--mib` MiB stored contiguously, the same data
//! chunked (1 MiB chunks) with shuffle and deflate (level 4), and a compound dataset of
//! 5 members (26-byte packed records) of `--mib` MiB; the same `f64` data chunked with the
//! plugin filters of hdf5plugin: Zstd, LZ4, Bitshuffle with LZ4, Blosc and Blosc2 (lz4, shuffle); an
//! 8192 x 8192 `f32` dataset in 64 x 64 deflate chunks, of which a 100 x 100 hyperslab is
//! read (whatever `--mib`); a root group with 100 scalar attributes, of which one is read.
//! Each benchmark opens its file,
//! reads, and closes it under the clock, on both sides; the digests of what was read
//! (the sorted names; the values) must agree.

use crate::data::{self, digest, f64_bytes, Scratch};
use crate::runner::{Defaults, Group, Measurement, Side};
use crate::Result;
use h5::H5Type;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// The benchmarks: name and description.
pub const BENCHES: [(&str, &str); 13] = [
    ("open_list", "open and list 10,000 objects"),
    ("open_attr", "open and read one of 100 attributes"),
    ("contiguous", "contiguous f64"),
    ("chunked_deflate", "chunked f64, shuffle + deflate"),
    ("compound_field", "one field of a 5-field compound"),
    (
        "hyperslab",
        "100x100 of 8192x8192 f32, 64x64 deflate chunks",
    ),
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
    // Last: their touched buffer then never counts in another row's peak memory, and in a
    // worker process the rows after `read_into` ran slower on this VM (the same number of
    // page faults took longer: chunked deflate at 16 MiB 28-34 ms against 20-21 ms when
    // run alone), so no row runs after these two.
    (
        "contiguous_into",
        "contiguous f64 into a touched buffer (read_into)",
    ),
    (
        "contiguous_pread",
        "contiguous f64's bytes, one pread into touched memory (the limit)",
    ),
];

/// The rows that measure reading into a caller's buffer against the plain `pread` limit:
/// run by ours and h5py (`read_direct`, `os.preadv`) only, not by the peers table.
pub const BUFFER_ROWS: [&str; 2] = ["contiguous_into", "contiguous_pread"];

/// The bytes one call of benchmark `name` counts at `mib` MiB (0: counted in objects).
pub fn bench_bytes(name: &str, mib: usize) -> u64 {
    match name {
        "open_list" | "open_attr" => 0,
        "hyperslab" => data::SLAB_SELECTION.iter().map(|(_, n)| n).product::<u64>() * 4,
        _ => (mib as u64) << 20,
    }
}

/// The file each benchmark reads, in the scratch directory, and the object in it.
pub fn bench_file(name: &str) -> Option<(String, &'static str)> {
    Some(match name {
        "open_list" => ("list.h5".into(), "/"),
        "open_attr" => ("attrs.h5".into(), "/"),
        "contiguous" | "contiguous_into" | "contiguous_pread" => ("contiguous.h5".into(), "data"),
        "chunked_deflate" => ("deflate.h5".into(), "data"),
        "compound_field" => ("compound.h5".into(), "records"),
        "hyperslab" => ("slab.h5".into(), "data"),
        n if n.starts_with("chunked_") => (format!("{}.h5", &n["chunked_".len()..]), "data"),
        _ => return None,
    })
}

/// One timed call: its time, the peak resident memory during it, and the output (the
/// bytes the digest is taken of, made after the clock stopped).
pub struct Timed {
    /// Seconds.
    pub seconds: f64,
    /// Peak resident memory in KiB ([`data::Clock`]).
    pub peak_kib: Option<u64>,
    /// The output.
    pub out: data::Output,
}

impl Timed {
    /// The measurements of `clock` (stopped now) with the output `out`.
    pub fn stop<O: Into<data::Output>>(clock: &data::Clock, out: impl FnOnce() -> O) -> Timed {
        let (seconds, peak_kib) = clock.stop();
        Timed {
            seconds,
            peak_kib,
            out: out().into(),
        }
    }
}

/// Member `b` of the compound records, alone. Its memory is its byte image (zerocopy), so
/// the read gathers the member from the records straight into the result.
#[derive(
    H5Type,
    h5::zerocopy::FromBytes,
    h5::zerocopy::IntoBytes,
    h5::zerocopy::Immutable,
    Clone,
    Copy,
    Debug,
)]
#[zerocopy(crate = "h5::zerocopy")]
#[h5(zerocopy)]
#[repr(C)]
struct FieldB {
    b: f64,
}

/// A buffer of `n` values, allocated and written (so its pages are resident) before a
/// clock starts and kept from one call to the next: what `read_into` and the plain `pread`
/// of the limit row read into.
fn touched(buf: &mut Vec<f64>, n: usize) -> &mut [f64] {
    if buf.len() != n {
        *buf = vec![1.0; n];
    }
    buf
}

/// The byte offset of the contiguous dataset's data in its file (untimed: read before the
/// clock starts, as the h5py side asks `get_offset()` first).
fn contiguous_offset(path: &Path, object: &str) -> Result<u64> {
    let f = h5::File::open(path).map_err(|e| e.to_string())?;
    let layout = f
        .dataset(object)
        .and_then(|d| d.layout())
        .map_err(|e| e.to_string())?;
    match layout.class {
        h5::LayoutClass::Contiguous { address, .. } if !address.is_undef() => Ok(address.0),
        _ => Err(format!("{}: not contiguous", path.display())),
    }
}

#[cfg(unix)]
fn pread(f: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, at)
}

#[cfg(not(unix))]
fn pread(mut f: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    f.seek(SeekFrom::Start(at))?;
    f.read_exact(buf)
}

/// One read of ours. The clock stops before the output bytes are made. `buf` is the
/// touched buffer of the `_into` and `_pread` rows, kept between their calls (they run
/// last, so it is never resident during another row).
fn read_one(dir: &Path, name: &str, mib: usize, buf: &mut Vec<f64>) -> Result<Option<Timed>> {
    let err = |e: h5::read::Error| format!("{name}: {e}");
    let Some((file, object)) = bench_file(name) else {
        return Err(format!("unknown read benchmark {name:?}"));
    };
    let path = dir.join(file);
    if name == "contiguous_pread" {
        let at = contiguous_offset(&path, object)?;
        let buf = touched(buf, data::f64_count(mib));
        let clock = data::Clock::start();
        let f = std::fs::File::open(&path).map_err(|e| format!("{name}: {e}"))?;
        let bytes = h5::H5Type::image_bytes_mut(&mut buf[..]).ok_or("f64 has an image")?;
        pread(&f, bytes, at).map_err(|e| format!("{name}: {e}"))?;
        drop(f);
        return Ok(Some(Timed::stop(&clock, || f64_bytes(buf))));
    }
    if name == "contiguous_into" {
        let buf = touched(buf, data::f64_count(mib));
        let clock = data::Clock::start();
        let f = h5::File::open(path).map_err(err)?;
        f.dataset(object)
            .and_then(|d| d.read_into(buf))
            .map_err(err)?;
        drop(f);
        return Ok(Some(Timed::stop(&clock, || f64_bytes(buf))));
    }
    let clock = data::Clock::start();
    Ok(Some(match name {
        "open_list" => {
            let f = h5::File::open(path).map_err(err)?;
            // The names, as h5py's `list(f)` gives.
            let mut names = f.root().and_then(|g| g.member_names()).map_err(err)?;
            drop(f);
            Timed::stop(&clock, || {
                names.sort();
                names.join("\n").into_bytes()
            })
        }
        "open_attr" => {
            let f = h5::File::open(path).map_err(err)?;
            let v: f64 = f
                .root()
                .and_then(|g| g.attr(data::READ_ATTR))
                .and_then(|a| a.read_scalar())
                .map_err(err)?;
            drop(f);
            Timed::stop(&clock, || v.to_le_bytes().to_vec())
        }
        "compound_field" => {
            let f = h5::File::open(path).map_err(err)?;
            let v: Vec<FieldB> = f.dataset(object).and_then(|d| d.read()).map_err(err)?;
            drop(f);
            Timed::stop(&clock, || {
                // In place: a `FieldB` is an `f64`'s size and alignment.
                v.into_iter().map(|r| r.b).collect::<Vec<f64>>()
            })
        }
        "hyperslab" => {
            let f = h5::File::open(path).map_err(err)?;
            let [(r0, nr), (c0, nc)] = data::SLAB_SELECTION;
            let v: Vec<f32> = f
                .dataset(object)
                .and_then(|d| d.read_hyperslab(&[r0, c0], None, &[nr, nc], None))
                .map_err(err)?;
            drop(f);
            Timed::stop(&clock, || v)
        }
        _ => {
            let f = h5::File::open(path).map_err(err)?;
            let v: Vec<f64> = f.dataset(object).and_then(|d| d.read()).map_err(err)?;
            drop(f);
            Timed::stop(&clock, || v)
        }
    }))
}

/// A read worker's main loop, ours or a peer library's (`h5-bench-peers`): `reps` timed
/// calls of `read(dir, name)` for each benchmark named by `only` (or all), one line each
/// with the digest of the last call's output (`dump`: also written to that file). A read
/// that returns `None` (the library cannot do it) prints `# unsupported NAME`.
pub fn run_worker(
    reps: usize,
    only: &str,
    dump: Option<&Path>,
    mib: usize,
    mut read: impl FnMut(&Path, &str) -> Result<Option<Timed>>,
) -> Result {
    let dir = data::worker_dir()?;
    let mut found = false;
    for (name, _) in BENCHES
        .iter()
        .filter(|(n, _)| only == "all" || only.split(',').any(|o| o == *n))
    {
        found = true;
        let mut calls = Vec::new();
        let mut last = data::Output::default();
        for _ in 0..reps {
            match read(&dir, name)? {
                Some(t) => {
                    calls.push((t.seconds, t.peak_kib));
                    last = t.out;
                }
                None => break,
            }
        }
        if calls.is_empty() {
            println!("# unsupported {name}");
            continue;
        }
        let hash = digest(&last.bytes());
        for (seconds, peak_kib) in calls {
            let m = Measurement {
                name: (*name).to_owned(),
                bytes: bench_bytes(name, mib),
                seconds,
                hash,
                peak_kib,
            };
            println!("{}", m.line());
        }
        if let Some(path) = dump {
            std::fs::write(path, last.bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    if found {
        Ok(())
    } else {
        Err(format!("unknown read benchmark {only:?}"))
    }
}

/// Our side: [`run_worker`] with our reads.
pub fn worker(mib: usize, reps: usize, only: &str, dump: Option<&Path>) -> Result {
    let mut buf = Vec::new();
    run_worker(reps, only, dump, mib, |dir, name| {
        read_one(dir, name, mib, &mut buf)
    })
}

/// The read group for the runner.
#[derive(Default)]
pub struct ReadGroup {
    scratch: OnceLock<Scratch>,
}

impl ReadGroup {
    /// The scratch directory with the input files, once [`Group::setup`] made them.
    pub fn dir(&self) -> Option<&Path> {
        self.scratch.get().map(Scratch::dir)
    }
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
        bench_bytes(name, mib)
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
