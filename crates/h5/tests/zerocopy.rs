//! Derived structs marked `#[h5(zerocopy)]`: read straight from the file's bytes when the
//! file's datatype is the struct's own byte for byte (h5py-written files, contiguous, chunked
//! with deflate, with a fill value), converted inside the vector's memory when the layout
//! differs (byte order, padding, member order, a subset of the members), and always equal to
//! what the conversion path (the same struct without the opt-in, decoded value by value)
//! reads; written as their memory, read back by h5py.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use h5::zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};
use h5::{File, H5Type, WritableFile};

/// The records' layout in Rust: t@0, id@8, value@12, n@16 (24 bytes, no padding).
#[derive(H5Type, FromBytes, IntoBytes, Immutable, KnownLayout, Clone, Copy, Debug, PartialEq)]
#[zerocopy(crate = "h5::zerocopy")]
#[h5(zerocopy)]
#[repr(C)]
struct Sample {
    t: f64,
    id: u32,
    value: f32,
    n: i64,
}

/// The same members without the opt-in: converted into a buffer and decoded value by value.
#[derive(H5Type, Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct SampleDecoded {
    t: f64,
    id: u32,
    value: f32,
    n: i64,
}

impl From<SampleDecoded> for Sample {
    fn from(s: SampleDecoded) -> Sample {
        Sample {
            t: s.t,
            id: s.id,
            value: s.value,
            n: s.n,
        }
    }
}

/// Three of the five members of the `five` datasets (16 bytes, no padding).
#[derive(H5Type, FromBytes, IntoBytes, Immutable, KnownLayout, Clone, Copy, Debug, PartialEq)]
#[zerocopy(crate = "h5::zerocopy")]
#[h5(zerocopy)]
#[repr(C)]
struct Subset {
    t: f64,
    a: i32,
    value: f32,
}

#[derive(H5Type, Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct SubsetDecoded {
    t: f64,
    a: i32,
    value: f32,
}

/// One member alone.
#[derive(H5Type, FromBytes, IntoBytes, Immutable, KnownLayout, Clone, Copy, Debug, PartialEq)]
#[zerocopy(crate = "h5::zerocopy")]
#[h5(zerocopy)]
#[repr(C)]
struct OnlyT {
    t: f64,
}

const N: usize = 1000;

fn sample(k: usize) -> Sample {
    Sample {
        t: k as f64 / 4.0,
        id: 3 * k as u32 + 1,
        value: (k % 1000) as f32 - 0.5,
        n: -7 * k as i64,
    }
}

/// The directory of files written by `support/make_zerocopy_files.py`, once per test run;
/// `None` (test skipped) without h5py.
fn files() -> Option<&'static PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        h5_oracle::h5py_files(
            &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/make_zerocopy_files.py"),
            std::env::temp_dir().join(format!("h5-zerocopy-{}", std::process::id())),
        )
    })
    .as_ref()
}

fn records() -> Option<File> {
    Some(File::open(files()?.join("records.h5")).expect("open records.h5"))
}

#[test]
fn the_opt_in_gives_a_byte_image() {
    assert!(Sample::has_byte_image());
    assert!(Subset::has_byte_image());
    assert!(!SampleDecoded::has_byte_image());
    let mut v = vec![sample(1), sample(2)];
    let bytes = Sample::image_bytes_mut(&mut v).unwrap();
    assert_eq!(bytes.len(), 48);
    assert_eq!(&bytes[8..12], &4u32.to_ne_bytes());
    assert_eq!(
        Sample::zeroed_vec(3).unwrap(),
        vec![Sample::new_zeroed(); 3]
    );
    // The datatype is the derive's, as without the opt-in.
    assert_eq!(Sample::h5_type(), SampleDecoded::h5_type());
}

#[test]
fn equal_layouts_read_straight_from_the_file() {
    let Some(f) = records() else { return };
    for name in ["native", "native_chunked"] {
        let d = f.dataset(name).unwrap();
        assert!(d.reads_directly::<Sample>().unwrap(), "{name}");
        assert!(!d.reads_directly::<SampleDecoded>().unwrap(), "{name}");
        let direct: Vec<Sample> = d.read().unwrap();
        let decoded: Vec<SampleDecoded> = d.read().unwrap();
        let want: Vec<Sample> = (0..N).map(sample).collect();
        assert_eq!(direct, want, "{name}");
        let decoded: Vec<Sample> = decoded.into_iter().map(Sample::from).collect();
        assert_eq!(decoded, want, "{name}");
        // A selection too (every third record of 100..400).
        let sel: Vec<Sample> = d.read_hyperslab(&[100], Some(&[3]), &[100], None).unwrap();
        let sel_decoded: Vec<SampleDecoded> =
            d.read_hyperslab(&[100], Some(&[3]), &[100], None).unwrap();
        let want: Vec<Sample> = (0..100).map(|i| sample(100 + 3 * i)).collect();
        assert_eq!(sel, want, "{name}");
        let sel_decoded: Vec<Sample> = sel_decoded.into_iter().map(Sample::from).collect();
        assert_eq!(sel_decoded, want, "{name}");
    }
}

#[test]
fn unwritten_chunks_read_as_the_fill_value() {
    let Some(f) = records() else { return };
    let d = f.dataset("native_fill").unwrap();
    assert!(d.reads_directly::<Sample>().unwrap());
    let direct: Vec<Sample> = d.read().unwrap();
    let decoded: Vec<Sample> = d
        .read::<SampleDecoded>()
        .unwrap()
        .into_iter()
        .map(Sample::from)
        .collect();
    let fill = Sample {
        t: -1.0,
        id: 9,
        value: 2.5,
        n: -3,
    };
    let want: Vec<Sample> = (0..N)
        .map(|k| if k < N / 2 { sample(k) } else { fill })
        .collect();
    assert_eq!(direct, want);
    assert_eq!(decoded, want);
    // One member, gathered chunk by chunk: the fill value's where nothing was written.
    let t: Vec<OnlyT> = d.read().unwrap();
    let want: Vec<OnlyT> = want.iter().map(|s| OnlyT { t: s.t }).collect();
    assert_eq!(t, want);
}

#[test]
fn other_layouts_convert_and_agree_with_the_conversion_path() {
    let Some(f) = records() else { return };
    let want: Vec<Sample> = (0..N).map(sample).collect();
    for name in ["big", "big_chunked", "padded", "reordered"] {
        let d = f.dataset(name).unwrap();
        assert!(!d.reads_directly::<Sample>().unwrap(), "{name}");
        let direct: Vec<Sample> = d.read().unwrap();
        let decoded: Vec<Sample> = d
            .read::<SampleDecoded>()
            .unwrap()
            .into_iter()
            .map(Sample::from)
            .collect();
        assert_eq!(direct, want, "{name}");
        assert_eq!(decoded, want, "{name}");
        let sel: Vec<Sample> = d.read_hyperslab(&[10], None, &[50], None).unwrap();
        assert_eq!(sel, want[10..60], "{name}");
    }
}

#[test]
fn member_subsets_gather_from_the_records() {
    let Some(f) = records() else { return };
    for name in ["five", "five_chunked"] {
        let d = f.dataset(name).unwrap();
        assert!(!d.reads_directly::<Subset>().unwrap(), "{name}");
        let sub: Vec<Subset> = d.read().unwrap();
        let sub_decoded: Vec<SubsetDecoded> = d.read().unwrap();
        for (k, (s, o)) in sub.iter().zip(&sub_decoded).enumerate() {
            let want = Subset {
                t: k as f64 / 4.0,
                a: k as i32,
                value: (k % 1000) as f32 - 0.5,
            };
            assert_eq!(*s, want, "{name} record {k}");
            assert_eq!((o.t, o.a, o.value), (want.t, want.a, want.value), "{name}");
        }
        assert_eq!(sub.len(), N);
        let t: Vec<OnlyT> = d.read().unwrap();
        let want: Vec<OnlyT> = (0..N).map(|k| OnlyT { t: k as f64 / 4.0 }).collect();
        assert_eq!(t, want, "{name}");
        // A selection across chunk boundaries, every seventh record of 50..960.
        let sel: Vec<OnlyT> = d.read_hyperslab(&[50], Some(&[7]), &[130], None).unwrap();
        let want: Vec<OnlyT> = (0..130).map(|i| want[50 + 7 * i]).collect();
        assert_eq!(sel, want, "{name}");
    }
}

fn python(script: &str, path: &Path) -> Option<String> {
    let exe = h5_oracle::require("h5py", h5_oracle::h5py())?;
    let out = h5_oracle::run(&exe, &["-c", script, path.to_str().unwrap()], b"")
        .unwrap_or_else(|e| panic!("python failed on {}: {e}", path.display()));
    Some(String::from_utf8(out).unwrap())
}

#[test]
fn written_as_their_memory_and_read_back_by_h5py() {
    let dir = std::env::temp_dir().join(format!("h5-zerocopy-write-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("written.h5");
    let values: Vec<Sample> = (0..N).map(sample).collect();
    {
        let f = WritableFile::create(&path).unwrap();
        f.new_dataset::<Sample>()
            .shape(&[N as u64])
            .create("native")
            .unwrap()
            .write(&values)
            .unwrap();
        f.new_dataset::<Sample>()
            .shape(&[N as u64])
            .chunk(&[128])
            .deflate(4)
            .create("chunked")
            .unwrap()
            .write(&values)
            .unwrap();
        f.close().unwrap();
    }
    let f = File::open(&path).unwrap();
    for name in ["native", "chunked"] {
        let d = f.dataset(name).unwrap();
        assert!(d.reads_directly::<Sample>().unwrap());
        assert_eq!(d.read::<Sample>().unwrap(), values, "{name}");
    }
    let script = r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], 'r') as f:
    for name in ('native', 'chunked'):
        v = f[name][...]
        k = np.arange(len(v))
        ok = (v['t'] == k / 4.0).all() and (v['id'] == 3 * k + 1).all() \
            and (v['value'] == (k % 1000) - 0.5).all() and (v['n'] == -7 * k).all()
        print(name, v.dtype.itemsize, len(v), ok)
"#;
    if let Some(out) = python(script, &path) {
        assert_eq!(out, "native 24 1000 True\nchunked 24 1000 True\n");
    }
}

/// Member `id` narrowed to 16 bits: values from record 21,845 on do not fit.
#[derive(H5Type, FromBytes, IntoBytes, Immutable, KnownLayout, Clone, Copy, Debug, PartialEq)]
#[zerocopy(crate = "h5::zerocopy")]
#[h5(zerocopy)]
#[repr(C)]
struct NarrowId {
    id: u16,
}

/// `t` and a member the file lacks (read as zeros, the conversion's background).
#[derive(H5Type, FromBytes, IntoBytes, Immutable, KnownLayout, Clone, Copy, Debug, PartialEq)]
#[zerocopy(crate = "h5::zerocopy")]
#[h5(zerocopy)]
#[repr(C)]
struct WithAbsent {
    t: f64,
    absent: i64,
}

/// Contiguous records of many conversion blocks (a block is 256 KiB of records: 10,922 of
/// these 24-byte ones), an odd count so the last block is partial: a member subset gathered
/// block by block in parallel, a member the file lacks read as zeros everywhere, a strict
/// read's loss in a later block reported at its first element, and data cut short by the
/// end of the file an error.
#[test]
fn member_subsets_of_many_blocks() {
    const M: usize = 4 * 10_922 + 7;
    let dir = std::env::temp_dir().join(format!("h5-zerocopy-blocks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("blocks.h5");
    let values: Vec<Sample> = (0..M).map(sample).collect();
    {
        let f = WritableFile::create(&path).unwrap();
        f.new_dataset::<Sample>()
            .shape(&[M as u64])
            .create("records")
            .unwrap()
            .write(&values)
            .unwrap();
        f.close().unwrap();
    }
    let f = File::open(&path).unwrap();
    let d = f.dataset("records").unwrap();
    let t: Vec<OnlyT> = d.read().unwrap();
    assert_eq!(t.len(), M);
    for (k, v) in t.iter().enumerate() {
        assert_eq!(v.t, k as f64 / 4.0, "record {k}");
    }
    let w: Vec<WithAbsent> = d.read().unwrap();
    assert_eq!(w.len(), M);
    for (k, v) in w.iter().enumerate() {
        assert_eq!((v.t, v.absent), (k as f64 / 4.0, 0), "record {k}");
    }
    // id = 3k + 1 exceeds u16::MAX first at k = 21,845, in the third block.
    let e = d.reader().strict().read::<NarrowId>().unwrap_err();
    assert_eq!(e.element(), Some(21_845), "{e}");
    let clamped: Vec<NarrowId> = d.read().unwrap();
    assert_eq!(clamped[21_844].id, 65_533);
    assert_eq!(clamped[M - 1].id, u16::MAX);
    drop(f);
    // The file cut inside the data while open (the length taken at open lets the blocks
    // be read): the blocks past the cut fail, and so does the read, whichever block
    // reaches the end first.
    let f = File::open(&path).unwrap();
    let d = f.dataset("records").unwrap();
    let h5::LayoutClass::Contiguous { address, .. } = d.layout().unwrap().class else {
        panic!("not contiguous");
    };
    let data_end = address.0 + (M * 24) as u64;
    assert!(data_end <= std::fs::metadata(&path).unwrap().len());
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(data_end - 24 * 10_922 - 5)
        .unwrap();
    let e = d.read::<OnlyT>().unwrap_err();
    assert!(e.to_string().contains("reading"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}
