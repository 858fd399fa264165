//! Reads that convert: into the returned vector directly (primitive numbers whose file
//! elements are not larger), in the read buffer (narrowing), or out of place (widening to a
//! derived type), with fill values where nothing was written, by selection and by netCDF
//! forms.

use h5::read::NcForm;
use h5::{File, H5Type, WritableFile};
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("h5-read-convert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[derive(H5Type, Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Rec {
    a: i16,
    b: f64,
    c: u8,
}

#[derive(H5Type, Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct OnlyB {
    b: f64,
}

#[derive(H5Type, Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Wide {
    c: u64,
    a: i64,
    pad: [u8; 24],
}

#[test]
fn reads_convert_in_every_direction_with_fill_values() {
    let path = tmp("convert.h5");
    let n = 10_000u64;
    {
        let f = WritableFile::create(&path).unwrap();
        // Chunked with a fill value, only the first half written: the rest is fill.
        let d = f
            .new_dataset::<i16>()
            .shape(&[n])
            .chunk(&[1000])
            .fill_value(-7)
            .create("i16")
            .unwrap();
        let half: Vec<i16> = (0..n / 2).map(|i| (i as i16).wrapping_mul(13)).collect();
        d.write_slab(&[0], &[n / 2], &half).unwrap();
        let be = f
            .new_dataset::<f64>()
            .shape(&[n])
            .dtype(h5::types::predefined::IEEE_F64BE.into())
            .create("f64be")
            .unwrap();
        let xs: Vec<f64> = (0..n).map(|i| i as f64 * 1.5 - 100.0).collect();
        be.write(&xs).unwrap();
        let recs: Vec<Rec> = (0..n)
            .map(|i| Rec {
                a: i as i16,
                b: i as f64 / 8.0,
                c: (i % 251) as u8,
            })
            .collect();
        f.new_dataset::<Rec>()
            .packed()
            .shape(&[n])
            .create("recs")
            .unwrap()
            .write(&recs)
            .unwrap();
        f.close().unwrap();
    }
    let f = File::open(&path).unwrap();
    let want_i16 = |i: u64| -> i16 {
        if i < n / 2 {
            (i as i16).wrapping_mul(13)
        } else {
            -7
        }
    };
    // Same type: read straight into the result.
    let v: Vec<i16> = f.dataset("i16").unwrap().read().unwrap();
    assert!(v.iter().enumerate().all(|(i, x)| *x == want_i16(i as u64)));
    // Widening integers: into the result, then converted in place (back to front).
    let v: Vec<i64> = f.dataset("i16").unwrap().read().unwrap();
    assert!(v
        .iter()
        .enumerate()
        .all(|(i, x)| *x == i64::from(want_i16(i as u64))));
    // Narrowing (clamped to u8): the read buffer converted in place.
    let v: Vec<u8> = f.dataset("i16").unwrap().read().unwrap();
    assert!(v
        .iter()
        .enumerate()
        .all(|(i, x)| *x == want_i16(i as u64).clamp(0, 255) as u8));
    // A selection and a netCDF subsampled section of the same.
    let v: Vec<f32> = f
        .dataset("i16")
        .unwrap()
        .read_hyperslab(&[4990], Some(&[3]), &[10], None)
        .unwrap();
    let want: Vec<f32> = (0..10).map(|k| f32::from(want_i16(4990 + 3 * k))).collect();
    assert_eq!(v, want);
    let v: Vec<i32> = f
        .dataset("i16")
        .unwrap()
        .read_nc(NcForm::Subsampled {
            start: &[4000],
            count: &[5],
            stride: &[500],
        })
        .unwrap();
    let want: Vec<i32> = (0..5)
        .map(|k| i32::from(want_i16(4000 + 500 * k)))
        .collect();
    assert_eq!(v, want);
    // Byte-swapped floats, same size and narrower.
    let v: Vec<f64> = f.dataset("f64be").unwrap().read().unwrap();
    assert!(v
        .iter()
        .enumerate()
        .all(|(i, x)| *x == i as f64 * 1.5 - 100.0));
    let v: Vec<f32> = f.dataset("f64be").unwrap().read().unwrap();
    assert!(v
        .iter()
        .enumerate()
        .all(|(i, x)| *x == (i as f64 * 1.5 - 100.0) as f32));
    // Compounds: a subset (narrower, in place) and a wider reordered type (out of place).
    let v: Vec<OnlyB> = f.dataset("recs").unwrap().read().unwrap();
    assert!(v.iter().enumerate().all(|(i, r)| r.b == i as f64 / 8.0));
    let v: Vec<Wide> = f.dataset("recs").unwrap().read().unwrap();
    assert!(v
        .iter()
        .enumerate()
        .all(|(i, r)| r.a == i64::from(i as i16) && r.c == (i % 251) as u64 && r.pad == [0; 24]));
    let _ = std::fs::remove_file(&path);
}
