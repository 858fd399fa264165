//! Tour, "Read": whole datasets as `Vec`s and `ndarray` arrays, converted, into buffers.
//!
//! `cargo run --example tour_read [PATH]`

use ndarray::Array2;

fn main() -> h5::Result<()> {
    let path = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("tour_read.h5"));
    let f = h5::File::create(&path)?;
    let grid = Array2::<f64>::from_shape_fn((3, 4), |(i, j)| i as f64 + j as f64 / 10.0);
    f.new_dataset_builder().with_data(&grid).create("grid")?;
    f.close()?;

    let f = h5::File::open(&path)?;
    let d = f.dataset("grid")?;
    println!("{} {:?} {}", d.path(), d.shape(), d.datatype());
    let v: Vec<f64> = d.read()?;
    let a: Array2<f32> = d.read_array()?; // converted from f64 as the C library converts
    let mut buf = vec![0i32; 12]; // clamped and truncated to i32, into a buffer
    d.read_into(&mut buf)?;
    println!("vec {v:?}\narray\n{a}\nbuffer {buf:?}");
    Ok(())
}
