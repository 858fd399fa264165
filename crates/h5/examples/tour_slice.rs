//! Tour, "Slice": numpy's `d[2, :, 1:6:2]` is `d.read_slice(s![2, .., 1..6;2])`.
//!
//! `cargo run --example tour_slice [PATH]`

use h5::s;
use ndarray::{Array, Array1, Array2};

fn main() -> h5::Result<()> {
    let path = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("tour_slice.h5"));
    let f = h5::File::create(&path)?;
    let cube = Array::from_shape_fn((4, 5, 6), |(i, j, k)| (i * 100 + j * 10 + k) as i32);
    let d = f
        .new_dataset_builder()
        .with_data(&cube)
        .chunk(&[1, 5, 6])
        .deflate(4)
        .create("cube")?;
    let plane: Array2<i32> = d.read_slice(s![2, .., 1..6;2])?; // d[2, :, 1:6:2]
    let last: Array1<i32> = d.read_slice(s![-1, -1])?; // d[-1, -1]
    let back: Array1<i32> = d.read_slice(s![0, 0, ..;-1])?; // d[0, 0, ::-1]
    println!("d[2, :, 1:6:2] =\n{plane}\nd[-1, -1] = {last}\nd[0, 0, ::-1] = {back}");
    d.write_slice(&ndarray::arr1(&[-1, -2, -3, -4, -5, -6]), s![3, 4])?; // d[3, 4] = ...
    let row: Array1<i32> = d.read_slice(s![3, 4])?;
    println!("after d[3, 4] = ...: {row}");
    f.close()
}
