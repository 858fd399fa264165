//! Quickstart: a Rust struct becomes an HDF5 compound datatype.
//!
//! `#[derive(H5Type)]` gives the datatype the C library builds for the same C struct with
//! `H5Tcreate` + `H5Tinsert(.., HOFFSET(..), ..)`; it prints as `H5LTdtype_to_text` prints it,
//! and values go to and from the datatype's memory image.
//!
//! Run with `cargo run --example quickstart`.

use h5::types::h5type::{decode_slice, encode_slice, FixedAscii, NullTerm};
use h5::H5Type;

/// A record of the seed document's `s1_t` shape, plus a fixed-length name.
#[derive(H5Type, Debug, Clone, PartialEq)]
#[repr(C)]
struct Sample {
    a: i32,
    b: i8,
    c: f64,
    #[h5(name = "label")]
    name: FixedAscii<8, NullTerm>,
}

fn main() -> h5::Result<()> {
    let samples = vec![
        Sample {
            a: 1,
            b: -2,
            c: 0.5,
            name: FixedAscii::from_str_padded("first")?,
        },
        Sample {
            a: 2,
            b: 3,
            c: 1.25,
            name: FixedAscii::from_str_padded("second")?,
        },
        Sample {
            a: 3,
            b: 7,
            c: -8.0,
            name: FixedAscii::from_str_padded("third")?,
        },
    ];

    // The in-memory datatype, as H5LTdtype_to_text prints it, and its packed variant.
    println!(
        "datatype of Sample ({} bytes):\n{}",
        Sample::h5_type().size(),
        Sample::h5_type()
    );
    println!(
        "packed ({} bytes):\n{}",
        Sample::h5_type_packed().size(),
        Sample::h5_type_packed()
    );

    // Values become the datatype's memory image and come back unchanged.
    let (image, heap) = encode_slice(&samples)?;
    let back: Vec<Sample> = decode_slice(&image, &heap)?;
    assert_eq!(back, samples);
    for s in &back {
        println!("{s:?}");
    }
    Ok(())
}
