//! Tour, "Attributes": create, read, list.
//!
//! `cargo run --example tour_attributes [PATH]`

use h5::types::h5type::VarLenUnicode;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("tour_attributes.h5"));
    let f = h5::File::create(&path)?;
    let d = f.new_dataset::<f64>().shape(&[3]).create("temperature")?;
    let units: VarLenUnicode = "kelvin".parse()?;
    d.new_attr::<VarLenUnicode>()
        .create("units")?
        .write(&[units])?;
    d.new_attr::<f64>().create("scale")?.write_scalar(&0.01)?;
    d.new_attr::<i32>()
        .shape(&[2])
        .create("valid_range")?
        .write(&[0, 40000])?;
    f.new_attr::<u32>().create("run")?.write_scalar(&1234)?;
    f.close()?;

    let f = h5::File::open(&path)?;
    let d = f.dataset("temperature")?;
    for a in d.attrs()? {
        println!("{}: {} {:?}", a.name(), a.datatype(), a.shape());
    }
    println!("scale = {}", d.attr("scale")?.read_scalar::<f64>()?);
    println!("run = {}", f.attr("run")?.read_scalar::<u32>()?);
    Ok(())
}
