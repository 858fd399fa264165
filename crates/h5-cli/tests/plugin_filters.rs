//! Files we write with each plugin filter (Zstd, LZ4, BZip2, Bitshuffle, Blosc) are read by
//! h5py with hdf5plugin and by the reference h5dump with hdf5plugin's plugins loaded, with
//! the values we wrote; `h5 repack -f UD=...` sets the pipeline the reference h5repack sets.
//! Needs the oracles (`cargo xtask install-oracles`): skipped with a reason when absent,
//! failing with `H5_REQUIRE_ORACLES=1`.

use std::path::{Path, PathBuf};
use std::process::Command;

use h5::io::filter::{BitshuffleCompression, Blosc2Filter, BloscCodec, BloscShuffle};

/// h5py with hdf5plugin importable: the interpreter and the plugin folder.
fn hdf5plugin() -> Result<(PathBuf, String), String> {
    let py = h5_oracle::h5py()?;
    let out = Command::new(&py)
        .args(["-c", "import hdf5plugin; print(hdf5plugin.PLUGIN_PATH)"])
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "hdf5plugin does not import: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok((py, String::from_utf8_lossy(&out.stdout).trim().to_string()))
}

fn tmp() -> PathBuf {
    let d = std::env::temp_dir().join(format!("h5-plugin-filters-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

type Apply = fn(h5::DatasetBuilder<i32>) -> h5::DatasetBuilder<i32>;

fn cases() -> Vec<(&'static str, Apply, Apply)> {
    // (name, on an i32 dataset, on an f64 dataset given as i32 builder is not possible: the
    // same filter twice, one per datatype)
    vec![
        ("zstd", |b| b.zstd(3), |b| b.zstd(19)),
        ("lz4", |b| b.lz4(), |b| b.lz4()),
        ("bzip2", |b| b.bzip2(9), |b| b.bzip2(1)),
        (
            "bitshuffle_none",
            |b| b.bitshuffle(BitshuffleCompression::None),
            |b| b.bitshuffle(BitshuffleCompression::None),
        ),
        (
            "bitshuffle_lz4",
            |b| b.bitshuffle(BitshuffleCompression::Lz4),
            |b| b.bitshuffle(BitshuffleCompression::Lz4),
        ),
        (
            "bitshuffle_zstd",
            |b| b.bitshuffle(BitshuffleCompression::Zstd(5)),
            |b| b.bitshuffle(BitshuffleCompression::Zstd(5)),
        ),
        (
            "blosc_blosclz",
            |b| b.blosc(BloscCodec::BloscLz, 5, BloscShuffle::Byte),
            |b| b.blosc(BloscCodec::BloscLz, 9, BloscShuffle::None),
        ),
        (
            "blosc_lz4",
            |b| b.blosc(BloscCodec::Lz4, 5, BloscShuffle::Byte),
            |b| b.blosc(BloscCodec::Lz4, 5, BloscShuffle::Bit),
        ),
        (
            "blosc_lz4hc",
            |b| b.blosc(BloscCodec::Lz4Hc, 5, BloscShuffle::Bit),
            |b| b.blosc(BloscCodec::Lz4Hc, 5, BloscShuffle::None),
        ),
        (
            "blosc_zlib",
            |b| b.blosc(BloscCodec::Zlib, 5, BloscShuffle::Byte),
            |b| b.blosc(BloscCodec::Zlib, 1, BloscShuffle::Bit),
        ),
        (
            "blosc_zstd",
            |b| b.blosc(BloscCodec::Zstd, 5, BloscShuffle::Bit),
            |b| b.blosc(BloscCodec::Zstd, 5, BloscShuffle::Byte),
        ),
        (
            "blosc2_blosclz",
            |b| b.blosc2(BloscCodec::BloscLz, 5, Blosc2Filter::Shuffle),
            |b| b.blosc2(BloscCodec::BloscLz, 9, Blosc2Filter::None),
        ),
        (
            "blosc2_lz4",
            |b| b.blosc2(BloscCodec::Lz4, 5, Blosc2Filter::Bitshuffle),
            |b| b.blosc2(BloscCodec::Lz4, 0, Blosc2Filter::Shuffle),
        ),
        (
            "blosc2_lz4hc",
            |b| b.blosc2(BloscCodec::Lz4Hc, 5, Blosc2Filter::Delta),
            |b| b.blosc2(BloscCodec::Lz4Hc, 1, Blosc2Filter::Shuffle),
        ),
        (
            "blosc2_zlib",
            |b| b.blosc2(BloscCodec::Zlib, 5, Blosc2Filter::Shuffle),
            |b| b.blosc2(BloscCodec::Zlib, 3, Blosc2Filter::Delta),
        ),
        (
            "blosc2_zstd",
            |b| b.blosc2(BloscCodec::Zstd, 5, Blosc2Filter::TruncPrec),
            |b| b.blosc2(BloscCodec::Zstd, 9, Blosc2Filter::Bitshuffle),
        ),
    ]
}

fn ints() -> Vec<i32> {
    (0..1200).map(|i| (i * 7 / 3) % 251 - 100).collect()
}

/// Write `NAME.h5` with dataset `i` (i32, 40×30 in 16×16 chunks, partial edge chunks) and
/// `k` (the same values through the second filter option, 1200 in chunks of 500).
fn write(dir: &Path, name: &str, a: Apply, b: Apply) -> PathBuf {
    let p = dir.join(format!("{name}.h5"));
    let f = h5::File::create(&p).unwrap();
    let d = a(f.new_dataset::<i32>().shape(&[40, 30]).chunk(&[16, 16]))
        .create("i")
        .unwrap();
    d.write(&ints()).unwrap();
    let d = b(f.new_dataset::<i32>().shape(&[1200]).chunk(&[500]))
        .create("k")
        .unwrap();
    d.write(&ints()).unwrap();
    f.close().unwrap();
    p
}

const READ: &str = r#"
import sys, h5py, hdf5plugin, numpy as np
want = (np.arange(1200, dtype=np.int64) * 7 // 3 % 251 - 100).astype("i4")
with h5py.File(sys.argv[1], "r") as f:
    i, k = f["i"][...], f["k"][...]
    assert i.shape == (40, 30), i.shape
    assert (i.reshape(-1) == want).all(), "i differs"
    assert (k == want).all(), "k differs"
    print(f["i"]._filters, f["k"]._filters)
"#;

#[test]
fn our_plugin_filtered_files_read_in_h5py_and_h5dump() {
    let Some((py, plugins)) = h5_oracle::require("h5py with hdf5plugin", hdf5plugin()) else {
        return;
    };
    let Some(h5dump) = h5_oracle::require("h5dump", h5_oracle::tool("h5dump")) else {
        return;
    };
    let dir = tmp();
    for (name, a, b) in cases() {
        let p = write(&dir, name, a, b);
        // Our reader first.
        let f = h5::File::open(&p).unwrap();
        assert_eq!(
            f.dataset("i").unwrap().read::<i32>().unwrap(),
            ints(),
            "{name}"
        );
        assert_eq!(
            f.dataset("k").unwrap().read::<i32>().unwrap(),
            ints(),
            "{name}"
        );
        // h5py with the plugins.
        let out = Command::new(&py)
            .args(["-c", READ])
            .arg(&p)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: h5py: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The reference h5dump with the plugins, and ours, print the same.
        let reference = Command::new(&h5dump)
            .arg(&p)
            .env("HDF5_PLUGIN_PATH", &plugins)
            .output()
            .unwrap();
        assert!(
            reference.status.success(),
            "{name}: h5dump: {}",
            String::from_utf8_lossy(&reference.stderr)
        );
        let ours = Command::new(env!("CARGO_BIN_EXE_h5"))
            .arg("dump")
            .arg(&p)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&ours.stdout),
            String::from_utf8_lossy(&reference.stdout),
            "{name}: h5 dump and h5dump differ"
        );
    }
}

/// The FILTERS blocks of `h5dump -p -H`.
fn filters_of(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = None;
    for line in text.lines() {
        let t = line.trim();
        if t == "FILTERS {" {
            depth = Some(0);
        }
        if let Some(d) = depth.as_mut() {
            // The COMMENT is the filter's name: ours stores the short one.
            if !t.starts_with("COMMENT") {
                out.push(t.to_string());
            }
            *d += t.matches('{').count() as i32 - t.matches('}').count() as i32;
            if *d <= 0 {
                depth = None;
            }
        }
    }
    out
}

#[test]
fn repack_user_defined_filters_set_what_h5repack_sets() {
    let Some((_, plugins)) = h5_oracle::require("h5py with hdf5plugin", hdf5plugin()) else {
        return;
    };
    let Some(h5repack) = h5_oracle::require("h5repack", h5_oracle::tool("h5repack")) else {
        return;
    };
    let Some(h5dump) = h5_oracle::require("h5dump", h5_oracle::tool("h5dump")) else {
        return;
    };
    let dir = tmp();
    let src = dir.join("repack-src.h5");
    {
        let f = h5::File::create(&src).unwrap();
        let d = f
            .new_dataset::<i32>()
            .shape(&[40, 30])
            .chunk(&[16, 16])
            .create("i")
            .unwrap();
        d.write(&ints()).unwrap();
        f.close().unwrap();
    }
    for (k, spec) in [
        "UD=32015,0,1,5",
        "UD=32001,1,7,0,0,0,0,5,1,1",
        "UD=32004,1,1,0",
        "UD=307,0,1,9",
        "UD=32008,1,2,0,2",
        "UD=32026,1,7,0,0,0,0,5,1,1",
        "UD=32026,1,7,0,0,0,0,9,3,5",
    ]
    .iter()
    .enumerate()
    {
        let (ours, theirs) = (
            dir.join(format!("ours{k}.h5")),
            dir.join(format!("ref{k}.h5")),
        );
        let st = Command::new(env!("CARGO_BIN_EXE_h5"))
            .args(["repack", "-f", spec])
            .arg(&src)
            .arg(&ours)
            .status()
            .unwrap();
        assert!(st.success(), "{spec}: h5 repack failed");
        let st = Command::new(&h5repack)
            .args(["-f", spec])
            .arg(&src)
            .arg(&theirs)
            .env("HDF5_PLUGIN_PATH", &plugins)
            .status()
            .unwrap();
        assert!(st.success(), "{spec}: h5repack failed");
        let dump = |p: &Path| {
            let o = Command::new(&h5dump)
                .args(["-p", "-d", "i"])
                .arg(p)
                .env("HDF5_PLUGIN_PATH", &plugins)
                .output()
                .unwrap();
            assert!(o.status.success(), "{spec}: h5dump {}", p.display());
            String::from_utf8_lossy(&o.stdout).into_owned()
        };
        let (a, b) = (dump(&ours), dump(&theirs));
        assert_eq!(filters_of(&a), filters_of(&b), "{spec}");
        assert!(!filters_of(&a).is_empty(), "{spec}");
        // The same values (the DATA blocks), whichever wrote them.
        let data = |s: &str| s[s.find("DATA {").unwrap_or(0)..].to_string();
        assert_eq!(data(&a), data(&b), "{spec}");
    }
}

const WRITE_BLOSC2: &str = r#"
import sys, h5py, hdf5plugin, numpy as np
def v(shape, dt):
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    return ((i * 7 // 3) % 251 - 100).astype(dt).reshape(shape)
F = hdf5plugin.Blosc2
with h5py.File(sys.argv[1], "w") as f:
    for cname in ("blosclz", "lz4", "lz4hc", "zlib", "zstd"):
        for flt in (F.NOFILTER, F.SHUFFLE, F.BITSHUFFLE, F.DELTA):
            for lvl in (1, 5, 9):
                c = F(cname=cname, clevel=lvl, filters=flt)
                p = f"{cname}_{flt}_{lvl}"
                f.create_dataset(p + "_a", data=v((300, 700), "<i4"), chunks=(300, 530), **c)
                f.create_dataset(p + "_b", data=v((90000,), "<i2"), chunks=(70000,), **c)
                f.create_dataset(p + "_c", data=v((50, 60, 70), "u1"), chunks=(50, 60, 70), **c)
"#;

fn values(n: usize) -> Vec<i64> {
    (0..n as i64).map(|i| (i * 7 / 3) % 251 - 100).collect()
}

/// Chunks of many blocks (Blosc2's automatic block sizes, split streams, B2ND blocks
/// padded past the chunk's edge) that h5py with hdf5plugin writes read as written.
#[test]
fn h5py_blosc2_chunks_of_many_blocks_read_as_written() {
    let Some((py, _)) = h5_oracle::require("h5py with hdf5plugin", hdf5plugin()) else {
        return;
    };
    let dir = tmp();
    let p = dir.join("blosc2-big.h5");
    let out = Command::new(&py)
        .args(["-c", WRITE_BLOSC2])
        .arg(&p)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "h5py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let f = h5::File::open(&p).unwrap();
    let mut n = 0;
    for name in f.root().unwrap().member_names().unwrap() {
        let d = f.dataset(&name).unwrap();
        let mut want = values(d.shape().iter().product::<u64>() as usize);
        let got: Vec<i64> = match name.as_bytes().last() {
            Some(b'a') => d
                .read::<i32>()
                .unwrap()
                .into_iter()
                .map(i64::from)
                .collect(),
            Some(b'b') => d
                .read::<i16>()
                .unwrap()
                .into_iter()
                .map(i64::from)
                .collect(),
            _ => {
                want.iter_mut().for_each(|w| *w = i64::from(*w as u8));
                d.read::<u8>().unwrap().into_iter().map(i64::from).collect()
            }
        };
        assert_eq!(got, want, "{name}");
        n += 1;
    }
    assert_eq!(n, 180);
}
