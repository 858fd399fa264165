//! Strict reads (`ds.reader().strict().read::<T>()`): each kind of lossy step fails with kind
//! `Datatype` and a datatype error of kind `Lossy` naming the element; a default read
//! converts as the reference library does (clamping). The oracle test has h5py write the
//! file and checks the default results against h5py's own conversions.

use std::path::{Path, PathBuf};

use h5::read::ErrorKind;
use h5::types::h5type::{FixedAscii, FixedUnicode, NullPad};
use h5::types::{ErrorKind as TypesErrorKind, Loss};
use h5::H5Type;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("h5-strict-read-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The element and loss of a strict read's error, after checking its kinds.
#[track_caller]
fn lossy<T: std::fmt::Debug>(r: h5::read::Result<T>) -> (usize, Loss) {
    let e = r.expect_err("the strict read should fail");
    assert_eq!(e.kind(), ErrorKind::Conversion, "{e}");
    let t = e.datatype_error().expect("a datatype error as the source");
    assert_eq!(t.kind(), TypesErrorKind::Lossy, "{e}");
    let element = t.element().expect("an element index");
    assert!(
        e.to_string().contains(&format!("at element {element}")),
        "{e}"
    );
    (element, t.loss().unwrap())
}

#[derive(H5Type, Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Ab {
    a: i32,
    b: f64,
}

#[derive(H5Type, Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Abc {
    a: i32,
    b: f64,
    c: i16,
}

fn write_file(path: &Path) {
    let f = h5::File::create(path).unwrap();
    f.new_dataset::<f64>()
        .shape(&[4])
        .create("f64")
        .unwrap()
        .write(&[1.0, -2.0, 300.5, 2.5])
        .unwrap();
    f.new_dataset::<f64>()
        .shape(&[4])
        .chunk(&[2])
        .create("f64_chunked")
        .unwrap()
        .write(&[1.0, 2.0, 3.5, 1e300])
        .unwrap();
    // Large enough for the block-wise contiguous path, with the loss in a late block.
    // Losses in many blocks, converted in parallel: the lowest is named.
    let mut big = vec![0.25f64; 300_000];
    for k in (250_001..300_000).step_by(997) {
        big[k] = 1e300;
    }
    big[290_000] = -1e300;
    f.new_dataset::<f64>()
        .shape(&[300_000])
        .create("big")
        .unwrap()
        .write(&big)
        .unwrap();
    f.new_dataset::<i32>()
        .shape(&[3])
        .create("i32")
        .unwrap()
        .write(&[5, 70_000, -1])
        .unwrap();
    f.new_dataset::<Ab>()
        .shape(&[2])
        .create("ab")
        .unwrap()
        .write(&[Ab { a: 1, b: 2.0 }, Ab { a: 3, b: 4.0 }])
        .unwrap();
    f.new_dataset::<FixedAscii<10>>()
        .shape(&[2])
        .create("strings")
        .unwrap()
        .write(&[
            FixedAscii::<10>::from_str_padded("abc").unwrap(),
            FixedAscii::<10>::from_str_padded("abcdefghi").unwrap(),
        ])
        .unwrap();
    f.new_dataset::<String>()
        .shape(&[2])
        .create("vlen_strings")
        .unwrap()
        .write(&["ok".to_owned(), "far too long".to_owned()])
        .unwrap();
    f.new_attr::<f64>()
        .shape(&[2])
        .create("scale")
        .unwrap()
        .write(&[1.0, 1e300])
        .unwrap();
    f.close().unwrap();
}

#[test]
fn each_lossy_step_fails_strictly_and_clamps_by_default() {
    let path = tmp("ours.h5");
    write_file(&path);
    let f = h5::File::open(&path).unwrap();

    let ds = f.dataset("f64").unwrap();
    assert_eq!(ds.read::<i8>().unwrap(), [1, -2, 127, 2]);
    assert_eq!(ds.reader().read::<i8>().unwrap(), [1, -2, 127, 2]);
    assert_eq!(
        lossy(ds.reader().strict().read::<i8>()),
        (2, Loss::Overflow)
    );
    // Truncation of a fraction: 2.5 as i32.
    assert_eq!(ds.read::<i32>().unwrap(), [1, -2, 300, 2]);
    assert_eq!(
        lossy(ds.reader().strict().read::<i32>()),
        (2, Loss::Fraction)
    );
    // A selection names the element by its index in the result.
    let sel = ds.read_hyperslab::<i32>(&[3], None, &[1], None).unwrap();
    assert_eq!(sel, [2]);
    assert_eq!(
        lossy(
            ds.reader()
                .strict()
                .read_hyperslab::<i32>(&[1], None, &[3], None)
        ),
        (1, Loss::Fraction)
    );
    assert_eq!(
        ds.reader()
            .strict()
            .read_hyperslab::<i32>(&[0], None, &[2], None)
            .unwrap(),
        [1, -2]
    );
    assert_eq!(
        ds.reader().strict().read::<f32>().unwrap(),
        [1.0, -2.0, 300.5, 2.5]
    );
    assert!(ds.reader().with_strict(false).read::<i8>().is_ok());

    let ds = f.dataset("f64_chunked").unwrap();
    assert_eq!(ds.read::<f32>().unwrap()[3], f32::INFINITY);
    assert_eq!(
        lossy(ds.reader().strict().read::<f32>()),
        (3, Loss::Overflow)
    );
    assert_eq!(
        lossy(ds.reader().strict().read::<i64>()),
        (2, Loss::Fraction)
    );

    let ds = f.dataset("big").unwrap();
    let v = ds.read::<f32>().unwrap();
    assert_eq!((v[250_001], v[290_000]), (f32::INFINITY, f32::NEG_INFINITY));
    assert_eq!(
        lossy(ds.reader().strict().read::<f32>()),
        (250_001, Loss::Overflow)
    );

    let ds = f.dataset("i32").unwrap();
    assert_eq!(ds.read::<u16>().unwrap(), [5, u16::MAX, 0]);
    assert_eq!(
        lossy(ds.reader().strict().read::<u16>()),
        (1, Loss::Overflow)
    );
    assert_eq!(ds.reader().strict().read::<i64>().unwrap(), [5, 70_000, -1]);

    let ds = f.dataset("ab").unwrap();
    assert_eq!(
        ds.read::<Abc>().unwrap(),
        [Abc { a: 1, b: 2.0, c: 0 }, Abc { a: 3, b: 4.0, c: 0 }]
    );
    assert_eq!(
        lossy(ds.reader().strict().read::<Abc>()),
        (0, Loss::MissingMember)
    );
    assert_eq!(
        ds.reader().strict().read::<Ab>().unwrap()[1],
        Ab { a: 3, b: 4.0 }
    );

    let ds = f.dataset("strings").unwrap();
    let short: Vec<FixedAscii<4>> = ds.read().unwrap();
    assert_eq!((short[0].as_str(), short[1].as_str()), ("abc", "abc"));
    assert_eq!(
        lossy(ds.reader().strict().read::<FixedAscii<4>>()),
        (1, Loss::StringTooLong)
    );
    let ds = f.dataset("vlen_strings").unwrap();
    let short: Vec<FixedUnicode<4, NullPad>> = ds.read().unwrap();
    assert_eq!(short[1].as_str(), "far ");
    assert_eq!(
        lossy(ds.reader().strict().read::<FixedUnicode<4, NullPad>>()),
        (1, Loss::StringTooLong)
    );

    let a = f.attr("scale").unwrap();
    assert_eq!(a.read::<f32>().unwrap(), [1.0, f32::INFINITY]);
    assert_eq!(
        lossy(a.reader().strict().read::<f32>()),
        (1, Loss::Overflow)
    );
    assert_eq!(a.reader().strict().read::<f64>().unwrap(), [1.0, 1e300]);
    let e = a.reader().strict().read_scalar::<f32>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conversion, "{e}");
}

const H5PY_MAKE: &str = r#"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], 'w')
f['f64'] = np.array([1.5, 300.5, -7.0], dtype='<f8')
f['big'] = np.array([1.0, 1e300, 2.0], dtype='<f8')
f['ab'] = np.array([(1, 2.0), (3, 4.0)], dtype=[('a', '<i4'), ('b', '<f8')])
f['long'] = np.array([b'abc', b'abcdefghij'], dtype='S10')
f.attrs['big'] = np.array([1e300], dtype='<f8')
f.close()
f = h5py.File(sys.argv[1], 'r')
# h5py's own (the reference library's) conversions, for the default results.
print(' '.join(str(int(x)) for x in f['f64'].astype('i1')[()]))
print(' '.join(repr(float(x)) for x in f['big'].astype('<f4')[()]))
"#;

#[test]
fn h5py_files_strict_and_default() {
    let path = tmp("h5py.h5");
    let Some(exe) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let out = h5_oracle::run(&exe, &["-c", H5PY_MAKE, path.to_str().unwrap()], b"")
        .unwrap_or_else(|e| panic!("h5py: {e}"));
    let out = String::from_utf8(out).unwrap();
    let mut lines = out.lines();
    let as_i8: Vec<i8> = lines
        .next()
        .unwrap()
        .split(' ')
        .map(|x| x.parse().unwrap())
        .collect();
    let as_f32: Vec<f32> = lines
        .next()
        .unwrap()
        .split(' ')
        .map(|x| x.parse().unwrap())
        .collect();
    assert_eq!(as_i8, [1, 127, -7]);

    let f = h5::File::open(&path).unwrap();
    let ds = f.dataset("f64").unwrap();
    assert_eq!(
        ds.read::<i8>().unwrap(),
        as_i8,
        "default read = the reference library's"
    );
    assert_eq!(
        lossy(ds.reader().strict().read::<i8>()),
        (0, Loss::Fraction)
    );
    assert_eq!(
        lossy(
            ds.reader()
                .strict()
                .read_hyperslab::<i8>(&[1], None, &[2], None)
        ),
        (0, Loss::Overflow)
    );
    let ds = f.dataset("big").unwrap();
    assert_eq!(ds.read::<f32>().unwrap(), as_f32);
    assert_eq!(
        lossy(ds.reader().strict().read::<f32>()),
        (1, Loss::Overflow)
    );
    let ds = f.dataset("ab").unwrap();
    assert_eq!(ds.read::<Abc>().unwrap()[1], Abc { a: 3, b: 4.0, c: 0 });
    assert_eq!(
        lossy(ds.reader().strict().read::<Abc>()),
        (0, Loss::MissingMember)
    );
    let ds = f.dataset("long").unwrap();
    let short: Vec<FixedAscii<4>> = ds.read().unwrap();
    assert_eq!((short[0].as_str(), short[1].as_str()), ("abc", "abc"));
    assert_eq!(
        lossy(ds.reader().strict().read::<FixedAscii<4>>()),
        (1, Loss::StringTooLong)
    );
    let a = f.attr("big").unwrap();
    assert_eq!(a.read::<f32>().unwrap(), [f32::INFINITY]);
    assert_eq!(
        lossy(a.reader().strict().read_scalar::<f32>()),
        (0, Loss::Overflow)
    );
}
