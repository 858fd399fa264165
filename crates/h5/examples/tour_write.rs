//! Tour, "Write": from arrays and views, chunked and compressed, appended to, overwritten.
//!
//! `cargo run --example tour_write [PATH]`

use ndarray::Array2;

fn main() -> h5::Result<()> {
    let path = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("tour_write.h5"));
    let f = h5::File::create(&path)?;
    let img = Array2::<u16>::from_shape_fn((256, 256), |(i, j)| ((i ^ j) & 0xff) as u16);
    let d = f
        .new_dataset_builder()
        .with_data(&img)
        .chunk(&[64, 64])
        .shuffle()
        .deflate(6)
        .create("image")?;
    println!(
        "image: {:?}, chunks {:?}, filters {:?}",
        d.shape(),
        d.chunk_dims(),
        d.filters()
    );
    // A transposed view is written in its logical order.
    let t = f
        .new_dataset::<u16>()
        .shape(&[256, 256])
        .create("transposed")?;
    t.write(&img.t())?;
    // A log that grows: unlimited first dimension, chunks as h5py would choose them.
    let log = f
        .new_dataset::<f64>()
        .shape(&[0])
        .max_shape(&[None])
        .create("log")?;
    for i in 0..5 {
        log.append(&[i as f64 * 0.5])?;
    }
    println!(
        "log: {:?} (chunks {:?})",
        log.read::<f64>()?,
        log.chunk_dims()
    );
    // Mistakes are refused with InvalidInput, and nothing is created.
    match f
        .new_dataset::<u8>()
        .shape(&[8])
        .deflate(4)
        .lzf()
        .create("bad")
    {
        Err(e) => println!("refused: {e}"),
        Ok(_) => unreachable!("two compressors"),
    }
    f.close()
}
