//! Tour, "Threads": one `File` shared by threads that read at once.
//!
//! `cargo run --example tour_threads [PATH]`

fn main() -> h5::Result<()> {
    let path = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("tour_threads.h5"));
    let f = h5::File::create(&path)?;
    for i in 0..4 {
        let v: Vec<i64> = (0..10_000).map(|x| x * i).collect();
        f.new_dataset::<i64>()
            .shape(&[10_000])
            .chunk(&[1000])
            .deflate(1)
            .create(&format!("d{i}"))?
            .write(&v)?;
    }
    f.close()?;

    let f = h5::File::open(&path)?;
    let sums = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let f = f.clone();
                s.spawn(move || -> h5::Result<i64> {
                    Ok(f.dataset(&format!("d{i}"))?.read::<i64>()?.iter().sum())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("reader thread"))
            .collect::<h5::Result<Vec<i64>>>()
    })?;
    println!("sums read by 4 threads at once: {sums:?}");
    Ok(())
}
