//! Quickstart: a Rust struct becomes an HDF5 compound datatype, is written to a file, and is
//! read back.
//!
//! `#[derive(H5Type)]` gives the datatype the C library builds for the same C struct with
//! `H5Tcreate` + `H5Tinsert(.., HOFFSET(..), ..)`; it prints as `H5LTdtype_to_text` prints it.
//! The file is an ordinary HDF5 file: `h5dump quickstart.h5` or h5py read it.
//!
//! Run with `cargo run --example quickstart [PATH]`.

use h5::types::h5type::{FixedAscii, NullTerm};
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

/// Just the members `c` and `a` of the same records, in another order.
#[derive(H5Type, Debug, Clone, PartialEq)]
#[repr(C)]
struct Subset {
    c: f64,
    a: i32,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("quickstart.h5"));
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

    // The in-memory datatype, as H5LTdtype_to_text prints it.
    println!(
        "datatype of Sample ({} bytes):\n{}\n",
        Sample::h5_type().size(),
        Sample::h5_type()
    );

    // Write: a group, a dataset of the derived type, an attribute.
    let file = h5::File::create(&path)?;
    let group = file.create_group("experiment")?;
    let ds = group
        .new_dataset::<Sample>()
        .shape(&[samples.len() as u64])
        .create("samples")?;
    ds.write(&samples)?;
    ds.new_attr::<f64>().create("temperature")?.write(&[21.5])?;
    file.close()?;
    println!("wrote {}", path.display());

    // Read back: the whole records, then a subset of the members by name.
    let file = h5::File::open(&path)?;
    let ds = file.dataset("/experiment/samples")?;
    println!("shape {:?}, file datatype:\n{}", ds.shape(), ds.datatype());
    let back: Vec<Sample> = ds.read()?;
    assert_eq!(back, samples);
    for s in &back {
        println!("{s:?}");
    }
    let subset: Vec<Subset> = ds.read()?;
    println!("members c and a only: {subset:?}");
    let t: Vec<f64> = ds.attr("temperature")?.read()?;
    println!("temperature attribute: {t:?}");
    Ok(())
}
