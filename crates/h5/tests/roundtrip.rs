//! Our reader reads back what our writer writes: every combination of format, layout,
//! filter pipeline and datatype below is written with `File::create_with`, read with
//! `File::open` and compared (values, shape, chunk dims, filters), and the same again after
//! `h5 repack`-style copies through `File::open_rw`.

use std::fmt::Debug;
use std::path::PathBuf;

use h5::io::filter::FilterId;
use h5::types::h5type::{FixedAscii, NullPad, VarLenArray, VarLenUnicode};
use h5::{DatasetBuilder, FileFormat, H5Type};

const FORMATS: [FileFormat; 2] = [FileFormat::Compatible, FileFormat::Latest];

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("h5-roundtrip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A storage layout and filter pipeline.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Layout {
    Contiguous,
    Compact,
    /// Chunks of 7 elements (rows), optionally extendible.
    Chunked {
        unlimited: bool,
    },
    Deflate,
    ShuffleDeflateFletcher,
    Fletcher,
    Lzf,
    Nbit,
    ScaleOffsetInt,
    Szip,
}

const ALL_LAYOUTS: [Layout; 11] = [
    Layout::Contiguous,
    Layout::Compact,
    Layout::Chunked { unlimited: false },
    Layout::Chunked { unlimited: true },
    Layout::Deflate,
    Layout::ShuffleDeflateFletcher,
    Layout::Fletcher,
    Layout::Lzf,
    Layout::Nbit,
    Layout::ScaleOffsetInt,
    Layout::Szip,
];

/// Layouts and filters that apply to any datatype.
const GENERIC: [Layout; 8] = [
    Layout::Contiguous,
    Layout::Compact,
    Layout::Chunked { unlimited: false },
    Layout::Chunked { unlimited: true },
    Layout::Deflate,
    Layout::ShuffleDeflateFletcher,
    Layout::Fletcher,
    Layout::Lzf,
];

fn apply<T: H5Type>(b: DatasetBuilder<T>, l: Layout, n: u64) -> DatasetBuilder<T> {
    let chunk = || b_chunk(l, n);
    match l {
        Layout::Contiguous => b.contiguous(),
        Layout::Compact => b.compact(),
        Layout::Chunked { unlimited: false } => b.chunk(&[chunk()]),
        Layout::Chunked { unlimited: true } => b.max_shape(&[None]).chunk(&[chunk()]),
        Layout::Deflate => b.chunk(&[chunk()]).deflate(6),
        Layout::ShuffleDeflateFletcher => b.chunk(&[chunk()]).shuffle().deflate(3).fletcher32(),
        Layout::Fletcher => b.chunk(&[chunk()]).fletcher32(),
        Layout::Lzf => b.chunk(&[chunk()]).lzf(),
        Layout::Nbit => b.chunk(&[chunk()]).nbit(),
        Layout::ScaleOffsetInt => b.chunk(&[chunk()]).scale_offset(2, 0),
        Layout::Szip => b
            .chunk(&[chunk()])
            .filter(h5::io::filter::Filter::szip(h5::io::filter::SZIP_NN, 8)),
    }
}

/// The chunk length: 7 (partial edge chunks) or, for szip (whose blocks are 8 pixels), 16.
fn b_chunk(l: Layout, n: u64) -> u64 {
    let c = if l == Layout::Szip { 16 } else { 7 };
    c.min(n.max(1))
}

fn expected_filters(l: Layout) -> Vec<FilterId> {
    match l {
        Layout::Deflate => vec![FilterId::DEFLATE],
        Layout::ShuffleDeflateFletcher => {
            vec![FilterId::SHUFFLE, FilterId::DEFLATE, FilterId::FLETCHER32]
        }
        Layout::Fletcher => vec![FilterId::FLETCHER32],
        Layout::Lzf => vec![FilterId::LZF],
        Layout::Nbit => vec![FilterId::NBIT],
        Layout::ScaleOffsetInt => vec![FilterId::SCALEOFFSET],
        Layout::Szip => vec![FilterId::SZIP],
        _ => Vec::new(),
    }
}

/// Write `data` as one dataset per layout in both formats, read each back and compare;
/// then reopen the file with `open_rw`, append to the extendible one, and compare again.
fn check<T>(name: &str, data: &[T], layouts: &[Layout])
where
    T: H5Type + PartialEq + Debug + Clone,
{
    let n = data.len() as u64;
    for format in FORMATS {
        let p = tmp(&format!("{name}-{format:?}.h5"));
        let f = h5::File::create_with(&p, format).unwrap();
        for (i, &l) in layouts.iter().enumerate() {
            let b = apply(f.new_dataset::<T>().shape(&[n]), l, n);
            let ds = b
                .create(&format!("d{i}"))
                .unwrap_or_else(|e| panic!("{name} {format:?} {l:?}: {e}"));
            ds.write(data)
                .unwrap_or_else(|e| panic!("{name} {format:?} {l:?}: {e}"));
        }
        f.new_attr::<T>()
            .shape(&[n])
            .create("attr")
            .unwrap()
            .write(data)
            .unwrap();
        f.close().unwrap();
        let verify = |extra: &[T]| {
            let r = h5::File::open(&p).unwrap();
            for (i, &l) in layouts.iter().enumerate() {
                let ds = r.dataset(&format!("d{i}")).unwrap();
                let mut want = data.to_vec();
                if l == (Layout::Chunked { unlimited: true }) {
                    want.extend_from_slice(extra);
                }
                let got: Vec<T> = ds
                    .read()
                    .unwrap_or_else(|e| panic!("{name} {format:?} {l:?}: {e}"));
                assert_eq!(got, want, "{name} {format:?} {l:?}");
                let ids: Vec<FilterId> = ds.filters().iter().map(|f| f.id).collect();
                assert_eq!(ids, expected_filters(l), "{name} {format:?} {l:?}");
                let chunked = !matches!(l, Layout::Contiguous | Layout::Compact);
                assert_eq!(
                    ds.chunk_dims(),
                    chunked.then(|| vec![b_chunk(l, n)]),
                    "{name} {format:?} {l:?}"
                );
            }
            let a: Vec<T> = r.attr("attr").unwrap().read().unwrap();
            assert_eq!(a, data, "{name} {format:?} attribute");
        };
        verify(&[]);
        // Reopened for writing: everything is carried over, and the extendible dataset grows.
        let extra: Vec<T> = data.iter().take(3).cloned().collect();
        let w = h5::File::open_rw(&p).unwrap();
        if let Some(i) = layouts
            .iter()
            .position(|&l| l == Layout::Chunked { unlimited: true })
        {
            w.dataset(&format!("d{i}")).unwrap().append(&extra).unwrap();
        }
        w.close().unwrap();
        verify(&extra);
    }
}

#[derive(H5Type, Clone, Debug, PartialEq)]
#[repr(C)]
struct Rec {
    id: u32,
    x: f64,
    tag: FixedAscii<5, NullPad>,
    pair: [i16; 2],
}

#[derive(H5Type, Clone, Debug, PartialEq)]
#[repr(C)]
struct WithVlen {
    n: i32,
    name: VarLenUnicode,
    vals: VarLenArray<f32>,
}

#[derive(H5Type, Clone, Copy, Debug, PartialEq)]
#[repr(u8)]
enum Color {
    Red = 0,
    Green = 1,
    Blue = 7,
}

#[test]
fn integers() {
    let v: Vec<i8> = (0..50).map(|i| (i * 5 - 120) as i8).collect();
    check("i8", &v, &ALL_LAYOUTS);
    let v: Vec<u16> = (0..60).map(|i| i * 1000).collect();
    check("u16", &v, &ALL_LAYOUTS);
    let v: Vec<i32> = (0..100).map(|i| i * i - 3000).collect();
    check("i32", &v, &ALL_LAYOUTS);
    let v: Vec<u64> = (0..40).map(|i| u64::MAX - i * 12345).collect();
    check("u64", &v, &GENERIC);
    let v: Vec<i64> = (0..40).map(|i| i64::MIN + i * 987_654_321).collect();
    check("i64", &v, &[&GENERIC[..], &[Layout::Nbit]].concat());
}

#[test]
fn floats_and_bools_and_enums() {
    let v: Vec<f32> = (0..64).map(|i| i as f32 * 0.25 - 3.0).collect();
    check(
        "f32",
        &v,
        &[&GENERIC[..], &[Layout::Nbit, Layout::Szip]].concat(),
    );
    let v: Vec<f64> = (0..64).map(|i| (i as f64).sqrt() * 1e-3).collect();
    check("f64", &v, &[&GENERIC[..], &[Layout::Nbit]].concat());
    let v: Vec<bool> = (0..30).map(|i| i % 3 == 0).collect();
    check("bool", &v, &GENERIC);
    let v: Vec<Color> = (0..30)
        .map(|i| [Color::Red, Color::Green, Color::Blue][i % 3])
        .collect();
    check("enum", &v, &GENERIC);
}

#[test]
fn compounds_arrays_and_strings() {
    let v: Vec<Rec> = (0..20u32)
        .map(|i| Rec {
            id: i,
            x: f64::from(i) / 3.0,
            tag: FixedAscii::from_str_padded(&format!("t{i}")).unwrap(),
            pair: [i as i16, -(i as i16)],
        })
        .collect();
    check("compound", &v, &[&GENERIC[..], &[Layout::Nbit]].concat());
    let v: Vec<[u8; 3]> = (0..25u8).map(|i| [i, i.wrapping_mul(7), 255 - i]).collect();
    check("array", &v, &GENERIC);
    let v: Vec<FixedAscii<8>> = (0..12)
        .map(|i| FixedAscii::from_str_padded(&format!("s-{i}")).unwrap())
        .collect();
    check("fixed-string", &v, &GENERIC);
}

#[test]
fn variable_length() {
    let v: Vec<VarLenUnicode> = (0..15)
        .map(|i| VarLenUnicode::from_string("é".repeat(i)).unwrap())
        .collect();
    check("vlen-string", &v, &GENERIC);
    let v: Vec<VarLenArray<i32>> = (0..15)
        .map(|i| VarLenArray::from((0..i).collect::<Vec<i32>>()))
        .collect();
    check("vlen-seq", &v, &GENERIC);
    let v: Vec<WithVlen> = (0..10)
        .map(|i| WithVlen {
            n: i,
            name: VarLenUnicode::from_string(format!("n{i}")).unwrap(),
            vals: VarLenArray::from(vec![i as f32; i as usize]),
        })
        .collect();
    check("vlen-compound", &v, &GENERIC);
}

#[test]
fn copies_in_slabs() {
    use h5::io::write::{copy_file, CopyOptions, FileWriter};
    let src = tmp("slab-src.h5");
    let f = h5::File::create(&src).unwrap();
    let grid: Vec<i32> = (0..37 * 5).collect();
    f.new_dataset::<i32>()
        .shape(&[37, 5])
        .chunk(&[4, 5])
        .deflate(1)
        .create("grid")
        .unwrap()
        .write(&grid)
        .unwrap();
    let names: Vec<VarLenUnicode> = (0..50)
        .map(|i| VarLenUnicode::from_string(format!("name {i}")).unwrap())
        .collect();
    f.new_dataset::<VarLenUnicode>()
        .shape(&[50])
        .create("names")
        .unwrap()
        .write(&names)
        .unwrap();
    let wide: Vec<f64> = (0..300).map(f64::from).collect();
    f.new_dataset::<f64>()
        .shape(&[3, 100])
        .create("wide")
        .unwrap()
        .write(&wide)
        .unwrap();
    f.close().unwrap();
    for (format, max_read) in [(FileFormat::Compatible, 64), (FileFormat::Latest, 1)] {
        let dst = tmp(&format!("slab-dst-{format:?}.h5"));
        let mut w = FileWriter::create(&dst, format).unwrap();
        let opts = CopyOptions {
            dataset_hook: None,
            strict: true,
            max_read,
        };
        let r = h5::File::open(&src).unwrap();
        copy_file(&r.inner().unwrap(), &mut w, &opts).unwrap();
        w.close().unwrap();
        let o = h5::File::open(&dst).unwrap();
        assert_eq!(o.dataset("grid").unwrap().read::<i32>().unwrap(), grid);
        assert_eq!(o.dataset("grid").unwrap().chunk_dims(), Some(vec![4, 5]));
        assert_eq!(
            o.dataset("names").unwrap().read::<VarLenUnicode>().unwrap(),
            names
        );
        assert_eq!(o.dataset("wide").unwrap().read::<f64>().unwrap(), wide);
    }
}
