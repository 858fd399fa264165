//! Tour, "Walk": make a small tree, then list it, follow a soft link, test for links.
//!
//! `cargo run --example tour_walk [PATH]`

fn main() -> h5::Result<()> {
    let path = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("tour_walk.h5"));
    let f = h5::File::create(&path)?;
    f.create_group("entry/instrument/detector")?;
    f.new_dataset::<f32>()
        .shape(&[2, 3])
        .create("entry/instrument/detector/data")?;
    f.link_soft("/entry/instrument/detector/data", "entry/data")?;
    f.close()?;

    let f = h5::File::open(&path)?;
    for (p, _addr, kind) in f.walk()? {
        println!("{kind:?}\t{p}");
    }
    for link in f.group("entry")?.links()? {
        println!("entry/{} -> {:?}", link.name, link.target);
    }
    if let h5::Node::Dataset(d) = f.node("entry/data")? {
        println!("entry/data is a dataset of shape {:?}", d.shape());
    }
    println!("entry/missing exists: {}", f.exists("entry/missing")?);
    Ok(())
}
