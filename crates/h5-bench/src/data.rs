//! What the read and write groups share with their h5py side (`py/bench_h5py.py`, which
//! has the same formulas): the data, the digest of outputs, the scratch directory and the
//! Python script.

use crate::Result;
use h5::H5Type;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Objects in the file of the open-and-list benchmark.
pub const OBJECTS: usize = 10_000;
/// Groups of the attribute benchmark, each with [`ATTRS_PER_GROUP`] attributes.
pub const ATTR_GROUPS: usize = 1_000;
/// Attributes per group of the attribute benchmark.
pub const ATTRS_PER_GROUP: usize = 100;
/// Records appended by the append benchmark.
pub const RECORDS: usize = 1_000_000;
/// Records per chunk (and per append).
pub const RECORDS_PER_CHUNK: usize = 1_000;
/// `f64` elements per chunk of the chunked datasets (1 MiB).
pub const CHUNK: u64 = 131_072;
/// The deflate level of the chunked datasets (h5py's default for gzip).
pub const DEFLATE_LEVEL: u32 = 4;

/// The h5py side's script.
pub const SCRIPT: &str = include_str!("../py/bench_h5py.py");

/// The compound record: `numpy.dtype([("a", "<i4"), ("b", "<f8"), ("c", "<i2"),
/// ("d", "<f4"), ("e", "<i8")])`, packed (26 bytes) in the files.
#[derive(H5Type, Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Record {
    /// k
    pub a: i32,
    /// k / 4
    pub b: f64,
    /// k mod 32768
    pub c: i16,
    /// (k mod 1000) / 2
    pub d: f32,
    /// 3k
    pub e: i64,
}

/// The packed size of a [`Record`] in the files.
pub const RECORD_FILE_SIZE: usize = 26;

impl Record {
    /// Record `k`.
    pub fn of(k: usize) -> Record {
        let k = k as i64;
        Record {
            a: k as i32,
            b: k as f64 * 0.25,
            c: (k % 32768) as i16,
            d: (k % 1000) as f32 * 0.5,
            e: k * 3,
        }
    }

    /// The packed little-endian bytes (numpy's `tobytes()` of the packed dtype).
    pub fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.a.to_le_bytes());
        out.extend_from_slice(&self.b.to_le_bytes());
        out.extend_from_slice(&self.c.to_le_bytes());
        out.extend_from_slice(&self.d.to_le_bytes());
        out.extend_from_slice(&self.e.to_le_bytes());
    }
}

/// Element `i` of the `f64` datasets: i/2 plus a fraction of 16 pseudo-random bits.
pub fn series_value(i: u64) -> f64 {
    let mut z = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z ^= z >> 32;
    z = z.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    z ^= z >> 32;
    i as f64 * 0.5 + (z >> 48) as f64 * (1.0 / 65536.0)
}

/// The first `n` elements of the `f64` datasets.
pub fn series(n: usize) -> Vec<f64> {
    (0..n as u64).map(series_value).collect()
}

/// `f64` elements in `mib` MiB.
pub fn f64_count(mib: usize) -> usize {
    (mib << 20) / 8
}

/// Records in `mib` MiB of the packed file type.
pub fn record_count(mib: usize) -> usize {
    (mib << 20) / RECORD_FILE_SIZE
}

/// The value of attribute `k` of group `g`.
pub fn attr_value(g: usize, k: usize) -> f64 {
    (g * ATTRS_PER_GROUP + k) as f64 * 0.5
}

const K0: u64 = 0x9E37_79B9_7F4A_7C15;
const K1: u64 = 0xC2B2_AE3D_27D4_EB4F;

/// The digest of outputs (vectorizable in numpy, unlike FNV): the length times K0 plus,
/// over the little-endian 64-bit words `w_i` (a short tail zero-padded),
/// `(w_i ^ (w_i >> 31)) * ((2i + 1) * K1)`, all modulo 2^64.
pub fn digest(bytes: &[u8]) -> u64 {
    let mut h = (bytes.len() as u64).wrapping_mul(K0);
    let mut words = bytes.chunks_exact(8);
    let mut i = 0u64;
    for w in &mut words {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        let w = u64::from_le_bytes(a);
        h = h.wrapping_add((w ^ (w >> 31)).wrapping_mul((2 * i + 1).wrapping_mul(K1)));
        i += 1;
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        let mut a = [0u8; 8];
        a[..tail.len()].copy_from_slice(tail);
        let w = u64::from_le_bytes(a);
        h = h.wrapping_add((w ^ (w >> 31)).wrapping_mul((2 * i + 1).wrapping_mul(K1)));
    }
    h
}

/// What a timed call returns, to be digested after the clock stopped: bytes, or the values
/// themselves. Values are digested through their memory (on a little-endian target their
/// image is their little-endian bytes), not through a copy: a copy of a 16 MiB output
/// doubles the free memory at the top of the heap once both are dropped, glibc then
/// returns it to the system, and the next benchmark's output starts on fresh pages that
/// the reference side (whose interpreter keeps its heap) does not pay for.
#[derive(Debug, Default)]
pub enum Output {
    /// Nothing (before the first call).
    #[default]
    Empty,
    /// Bytes made for the digest (names, one value).
    Bytes(Vec<u8>),
    /// `f64` values.
    F64(Vec<f64>),
    /// `f32` values.
    F32(Vec<f32>),
}

impl Output {
    /// The bytes the digest is taken of: the values' little-endian bytes.
    pub fn bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        use std::borrow::Cow;
        let le = cfg!(target_endian = "little");
        match self {
            Output::Empty => Cow::Borrowed(&[]),
            Output::Bytes(b) => Cow::Borrowed(b),
            Output::F64(v) => match H5Type::image_bytes(&v[..]) {
                Some(b) if le => Cow::Borrowed(b),
                _ => Cow::Owned(f64_bytes(v)),
            },
            Output::F32(v) => match H5Type::image_bytes(&v[..]) {
                Some(b) if le => Cow::Borrowed(b),
                _ => Cow::Owned(f32_bytes(v)),
            },
        }
    }
}

impl From<Vec<u8>> for Output {
    fn from(b: Vec<u8>) -> Output {
        Output::Bytes(b)
    }
}

impl From<Vec<f64>> for Output {
    fn from(v: Vec<f64>) -> Output {
        Output::F64(v)
    }
}

impl From<Vec<f32>> for Output {
    fn from(v: Vec<f32>) -> Output {
        Output::F32(v)
    }
}

/// The bytes of `f64` values (little-endian, as numpy holds them on x86-64).
pub fn f64_bytes(v: &[f64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * 8);
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

/// The side length of the square `f32` dataset of the hyperslab benchmark (8192 x 8192).
pub const SLAB_SIDE: u64 = 8192;
/// Its chunks' side length (64 x 64, deflate level 4).
pub const SLAB_CHUNK: u64 = 64;
/// The selection of the hyperslab benchmark: `(start, count)` per dimension, not aligned
/// to chunks (it touches 3 x 3 of them).
pub const SLAB_SELECTION: [(u64, u64); 2] = [(4000, 100), (3000, 100)];
/// Attributes on the root group of the attribute benchmark's file (`a000`...), `f64`
/// scalars of value [`attr_value`]`(0, k)`.
pub const ROOT_ATTRS: usize = 100;
/// The attribute that benchmark reads.
pub const READ_ATTR: &str = "a042";

/// Element `(r, c)` of the hyperslab benchmark's dataset: the series value of its index
/// rounded to `f32`.
pub fn slab_value(r: u64, c: u64) -> f32 {
    series_value(r * SLAB_SIDE + c) as f32
}

/// The bytes of `f32` values (little-endian).
pub fn f32_bytes(v: &[f32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * 4);
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

/// A clock around one call that also measures the process's peak resident memory during
/// it: starting resets the kernel's high-water mark (`/proc/self/clear_refs`, Linux) and
/// stopping reads it (`VmHWM` of `/proc/self/status`). Elsewhere the peak is not known.
pub struct Clock {
    t0: std::time::Instant,
    peak_known: bool,
}

impl Clock {
    /// Reset the peak and start the clock.
    pub fn start() -> Clock {
        let peak_known = std::fs::write("/proc/self/clear_refs", "5").is_ok();
        Clock {
            t0: std::time::Instant::now(),
            peak_known,
        }
    }

    /// The seconds since the start and the peak resident memory in KiB since then.
    pub fn stop(&self) -> (f64, Option<u64>) {
        let t = self.t0.elapsed().as_secs_f64();
        let peak = self.peak_known.then(peak_rss_kib).flatten();
        (t, peak)
    }
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line["VmHWM:".len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// A scratch directory removed when dropped, with the h5py script in it.
#[derive(Debug)]
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// Create `h5-bench-GROUP-PID` in the system's temporary directory.
    pub fn new(group: &str) -> Result<Scratch> {
        let dir = std::env::temp_dir().join(format!("h5-bench-{group}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let s = Scratch { dir };
        std::fs::write(s.script(), SCRIPT).map_err(|e| format!("writing the script: {e}"))?;
        Ok(s)
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The script's path.
    pub fn script(&self) -> PathBuf {
        self.dir.join("bench_h5py.py")
    }

    /// `python3 bench_h5py.py ARGS...` (the directory is the second argument).
    pub fn python(&self, cmd: &str) -> Command {
        let mut c = Command::new("python3");
        c.arg(self.script()).arg(cmd).arg(&self.dir);
        c
    }
    /// The command of one side's run of benchmark group `group` in this directory: our
    /// `h5-bench worker GROUP` or the h5py script, with `MIB REPS NAME|all [DUMPFILE]`.
    pub fn worker_command(
        &self,
        group: &str,
        side: crate::runner::Side,
        our_exe: &Path,
        (mib, reps): (usize, usize),
        only: Option<&str>,
        dump: Option<&Path>,
    ) -> Command {
        let mut c = match side {
            crate::runner::Side::Ours => {
                let mut c = Command::new(our_exe);
                c.args(["worker", group]).env("H5_BENCH_DIR", self.dir());
                c
            }
            crate::runner::Side::Reference => self.python(group),
        };
        c.arg(mib.to_string())
            .arg(reps.to_string())
            .arg(only.unwrap_or("all"));
        if let Some(d) = dump {
            c.arg(d);
        }
        c
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Run a command to completion, its stdout as text.
pub fn output(mut c: Command) -> Result<String> {
    let out = c.output().map_err(|e| format!("running {c:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{c:?} failed ({}): {} (h5py is needed: `cargo xtask install-oracles`)",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The scratch directory a worker runs in (`H5_BENCH_DIR`, set by the group's command).
pub fn worker_dir() -> Result<PathBuf> {
    std::env::var_os("H5_BENCH_DIR")
        .map(PathBuf::from)
        .ok_or_else(|| "H5_BENCH_DIR is not set (the runner sets it)".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_digest_the_little_endian_bytes_of_their_values() {
        let v = vec![1.5f64, -0.0, f64::MAX, 3e-310];
        let w = vec![1.5f32, -2.25, f32::MIN_POSITIVE];
        assert_eq!(Output::from(v.clone()).bytes(), f64_bytes(&v));
        assert_eq!(Output::from(w.clone()).bytes(), f32_bytes(&w));
        assert_eq!(Output::from(b"ab".to_vec()).bytes(), &b"ab"[..]);
        assert!(Output::default().bytes().is_empty());
        assert_eq!(&f64_bytes(&v)[..8], &1.5f64.to_le_bytes());
    }

    #[test]
    fn digest_covers_length_order_and_tail() {
        assert_ne!(digest(&[]), digest(&[0]));
        assert_ne!(
            digest(&[1, 2, 3, 4, 5, 6, 7, 8, 9]),
            digest(&[1, 2, 3, 4, 5, 6, 7, 8, 8])
        );
        let a: Vec<u8> = (0..16).collect();
        let mut b = a.clone();
        b.rotate_left(8);
        assert_ne!(digest(&a), digest(&b));
    }

    #[test]
    fn records_pack_to_26_bytes() {
        let mut v = Vec::new();
        Record::of(40_000).put(&mut v);
        assert_eq!(v.len(), RECORD_FILE_SIZE);
        assert_eq!(Record::of(40_000).c, (40_000 % 32768) as i16);
    }
}
