//! The read builders' `read_array` (feature `ndarray`): strict reads shaped as the data.
#![cfg(feature = "ndarray")]

use std::path::Path;

use ndarray::{Array2, Ix1, Ix2};

fn fixture() -> h5_io::File {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/h5py/big_endian.h5");
    h5_io::File::open(p).unwrap()
}

#[test]
fn strict_read_array() {
    let f = fixture();
    let ds = f.dataset("be_i4").unwrap();
    let a: Array2<i8> = ds.reader().strict().read_array::<i8, Ix2>().unwrap();
    assert_eq!(a.shape(), [3, 4]);
    assert_eq!(a[[2, 3]], 11);
    // be_f8 holds i / 7: element 1 has a fraction.
    let ds = f.dataset("be_f8").unwrap();
    let e = ds.reader().strict().read_array::<i32, Ix2>().unwrap_err();
    assert_eq!(e.kind(), h5_io::ErrorKind::Datatype, "{e}");
    assert_eq!(e.datatype_error().and_then(|t| t.element()), Some(1), "{e}");
    assert_eq!(e.path(), Some("/be_f8"), "{e}");
    // By default the fraction is truncated.
    let a = ds.reader().read_array::<i32, Ix2>().unwrap();
    assert_eq!(a[[2, 3]], 1);
    // Rounding to f32 is not refused.
    let a = ds.reader().strict().read_array::<f32, Ix2>().unwrap();
    assert_eq!(a[[0, 1]], (1.0f64 / 7.0) as f32);
    // A rank other than the data's is an error, not a panic.
    let a = ds.reader().strict().read_array::<f64, Ix1>();
    assert!(a.is_err());
}
