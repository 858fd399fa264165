//! The write group: writing files, side by side with h5py.
//!
//! Each benchmark creates a file in a scratch directory, writes, and closes it under the
//! clock, on both sides (the data is made beforehand, untimed): an `f64` dataset of
//! `--mib` MiB stored contiguously; the same chunked (1 MiB chunks) with shuffle and deflate
//! (level 4; our side compresses chunks in parallel), and with the plugin filters Zstd,
//! LZ4, Bitshuffle with LZ4, Blosc and Blosc2 (lz4, shuffle); 100,000 scalar `f64` attributes
//! (100 on each of 1,000 groups); 10^6 compound records (5 members, packed 26 bytes)
//! appended 1,000 at a time, one chunk per append, to a dataset of unlimited extent.
//!
//! After its timed calls each side reads its last file back (untimed), and the digests of
//! what it holds must agree; the runner then has h5py read our file too and checks that it
//! finds the same.

use crate::data::{self, digest, f64_bytes, Record, Scratch};
use crate::runner::{Config, Defaults, Group, Measurement, Side};
use crate::Result;
use h5::WritableFile;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

/// The benchmarks: name and description.
pub const BENCHES: [(&str, &str); 9] = [
    ("contiguous", "contiguous f64"),
    ("chunked_deflate", "chunked f64, shuffle + deflate"),
    ("attributes", "100,000 small attributes"),
    ("append_records", "append 10^6 compound records by chunk"),
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

/// The filters of the plugin-filter rows (the same as the h5py side's `PLUGINS`).
fn plugin_filter(name: &str) -> Option<h5::io::filter::Filter> {
    use h5::io::filter::{BitshuffleCompression, Blosc2Filter, BloscCodec, BloscShuffle, Filter};
    Some(match name {
        "chunked_zstd" => Filter::zstd(3),
        "chunked_lz4" => Filter::lz4(),
        "chunked_bitshuffle_lz4" => Filter::bitshuffle(BitshuffleCompression::Lz4),
        "chunked_blosc_lz4" => Filter::blosc(BloscCodec::Lz4, 5, BloscShuffle::Byte),
        "chunked_blosc2_lz4" => Filter::blosc2(BloscCodec::Lz4, 5, Blosc2Filter::Shuffle),
        _ => return None,
    })
}

/// The file our side writes for benchmark `name`.
pub fn our_file(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("ours-{name}.h5"))
}

fn bytes_of(name: &str, mib: usize) -> u64 {
    match name {
        "attributes" => 0,
        "append_records" => (data::RECORDS * data::RECORD_FILE_SIZE) as u64,
        _ => (mib as u64) << 20,
    }
}

/// The inputs, made once per process.
#[derive(Default)]
struct Inputs {
    series: Option<Vec<f64>>,
    records: Option<Vec<Record>>,
}

/// One timed write of benchmark `name` to `path`.
fn write_one(path: &Path, name: &str, mib: usize, inputs: &mut Inputs) -> Result<f64> {
    let err = |e: h5::WriteError| format!("{name}: {e}");
    match name {
        "contiguous"
        | "chunked_deflate"
        | "chunked_zstd"
        | "chunked_lz4"
        | "chunked_bitshuffle_lz4"
        | "chunked_blosc_lz4"
        | "chunked_blosc2_lz4" => {
            let x = inputs
                .series
                .get_or_insert_with(|| data::series(data::f64_count(mib)));
            let t0 = Instant::now();
            let f = WritableFile::create(path).map_err(err)?;
            let b = f.new_dataset::<f64>().shape(&[x.len() as u64]);
            let b = match (name, plugin_filter(name)) {
                ("contiguous", _) => b.contiguous(),
                (_, Some(filter)) => b.chunk(&[data::CHUNK]).filter(filter),
                _ => b
                    .chunk(&[data::CHUNK])
                    .shuffle()
                    .deflate(data::DEFLATE_LEVEL),
            };
            b.create("data")
                .and_then(|d| d.write(&x[..]))
                .map_err(err)?;
            f.close().map_err(err)?;
            Ok(t0.elapsed().as_secs_f64())
        }
        "attributes" => {
            let t0 = Instant::now();
            let f = WritableFile::create(path).map_err(err)?;
            for g in 0..data::ATTR_GROUPS {
                let grp = f.create_group(&format!("g{g:04}")).map_err(err)?;
                for k in 0..data::ATTRS_PER_GROUP {
                    grp.new_attr::<f64>()
                        .create(&format!("a{k:03}"))
                        .and_then(|a| a.write(&[data::attr_value(g, k)]))
                        .map_err(err)?;
                }
            }
            f.close().map_err(err)?;
            Ok(t0.elapsed().as_secs_f64())
        }
        "append_records" => {
            let r = inputs
                .records
                .get_or_insert_with(|| (0..data::RECORDS).map(Record::of).collect());
            let c = data::RECORDS_PER_CHUNK;
            let t0 = Instant::now();
            let f = WritableFile::create(path).map_err(err)?;
            let d = f
                .new_dataset::<Record>()
                .packed()
                .shape(&[0])
                .max_shape(&[None])
                .chunk(&[c as u64])
                .create("records")
                .map_err(err)?;
            for block in r.chunks(c) {
                d.append(block).map_err(err)?;
            }
            f.close().map_err(err)?;
            Ok(t0.elapsed().as_secs_f64())
        }
        other => Err(format!("unknown write benchmark {other:?}")),
    }
}

/// What a written file holds, as the bytes that are digested (the h5py side's
/// `readback` makes the same).
pub fn readback(path: &Path, name: &str) -> Result<Vec<u8>> {
    let err = |e: h5::read::Error| format!("{name}: reading back {}: {e}", path.display());
    let f = h5::File::open(path).map_err(err)?;
    match name {
        "contiguous"
        | "chunked_deflate"
        | "chunked_zstd"
        | "chunked_lz4"
        | "chunked_bitshuffle_lz4"
        | "chunked_blosc_lz4"
        | "chunked_blosc2_lz4" => {
            let v: Vec<f64> = f.dataset("data").and_then(|d| d.read()).map_err(err)?;
            Ok(f64_bytes(&v))
        }
        "attributes" => {
            let mut groups: Vec<String> = f
                .root()
                .and_then(|g| g.links())
                .map_err(err)?
                .into_iter()
                .map(|l| l.name)
                .collect();
            groups.sort();
            let mut out = Vec::new();
            for g in &groups {
                let mut attrs = f.group(g).and_then(|g| g.attrs()).map_err(err)?;
                attrs.sort_by(|a, b| a.name().cmp(b.name()));
                for a in attrs {
                    let v: f64 = a.read_scalar().map_err(err)?;
                    out.extend_from_slice(format!("{g}/{}=", a.name()).as_bytes());
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
            Ok(out)
        }
        "append_records" => {
            let v: Vec<Record> = f.dataset("records").and_then(|d| d.read()).map_err(err)?;
            let mut out = Vec::with_capacity(v.len() * data::RECORD_FILE_SIZE);
            for r in &v {
                r.put(&mut out);
            }
            Ok(out)
        }
        other => Err(format!("unknown write benchmark {other:?}")),
    }
}

/// Our side: `reps` timed writes of each benchmark named by `only` (or all), then the last
/// file read back and one line per write with its digest.
pub fn worker(mib: usize, reps: usize, only: &str, dump: Option<&Path>) -> Result {
    let dir = data::worker_dir()?;
    let mut inputs = Inputs::default();
    let mut found = false;
    for (name, _) in BENCHES.iter().filter(|(n, _)| only == "all" || *n == only) {
        found = true;
        let path = our_file(&dir, name);
        let mut times = Vec::new();
        for _ in 0..reps {
            times.push(write_one(&path, name, mib, &mut inputs)?);
        }
        let out = readback(&path, name)?;
        let hash = digest(&out);
        for seconds in times {
            let m = Measurement {
                name: (*name).to_owned(),
                bytes: bytes_of(name, mib),
                seconds,
                hash,
                peak_kib: None,
            };
            println!("{}", m.line());
        }
        if let Some(p) = dump {
            std::fs::write(p, &out).map_err(|e| format!("{}: {e}", p.display()))?;
        }
    }
    if found {
        Ok(())
    } else {
        Err(format!("unknown write benchmark {only:?}"))
    }
}

/// The write group for the runner.
#[derive(Default)]
pub struct WriteGroup {
    scratch: OnceLock<Scratch>,
}

impl Group for WriteGroup {
    fn name(&self) -> &'static str {
        "write"
    }

    fn benchmarks(&self) -> Vec<(&'static str, &'static str)> {
        BENCHES.to_vec()
    }

    fn reference_label(&self) -> &'static str {
        "h5py"
    }

    fn bytes(&self, name: &str, mib: usize) -> u64 {
        bytes_of(name, mib)
    }

    fn defaults(&self) -> Defaults {
        Defaults {
            runs: 5,
            reps: 1,
            mib: 256,
        }
    }

    fn setup(&self, _cfg: &Config) -> Result {
        if self.scratch.get().is_none() {
            let _ = self.scratch.set(Scratch::new("write")?);
        }
        Ok(())
    }

    fn check(&self, cfg: &Config, name: &str, reference: u64) -> Result<Vec<String>> {
        let s = self.scratch.get().ok_or("write: no scratch directory")?;
        let mut c = s.python("readback");
        c.arg(cfg.mib.to_string())
            .arg(name)
            .arg(our_file(s.dir(), name));
        let text = data::output(c)?;
        let got = u64::from_str_radix(text.trim(), 16)
            .map_err(|_| format!("write: bad digest {text:?} from h5py"))?;
        Ok(if got == reference {
            Vec::new()
        } else {
            vec![format!(
                "h5py reads our file differently from its own (digest {got:016x}, its own file {reference:016x})"
            )]
        })
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
            .ok_or("write: no scratch directory yet")?;
        Ok(s.worker_command("write", side, our_exe, (mib, reps), only, dump))
    }
}
