//! netCDF access to a netCDF-4 file: dimensions, the five access forms, conversion with range
//! errors, text, and ragged arrays.
//!
//! `cargo run --example netcdf_access [FILE]` (default: the `netcdf4.h5` fixture written by
//! h5py).

use std::path::PathBuf;

use h5_netcdf::{NcFile, NcForm};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../h5-io/tests/fixtures/h5py/netcdf4.h5")
        });
    let nc = NcFile::open(&path)?;
    println!("{}: variables {:?}", path.display(), nc.variables()?);

    let temp = nc.variable("temp")?;
    for d in temp.dims() {
        println!(
            "  dimension {} = {}{}",
            d.name,
            d.len,
            if d.unlimited { " (unlimited)" } else { "" }
        );
    }
    let shape = temp.shape();
    // Whole variable.
    let all: Vec<f64> = temp.get_var()?;
    println!("temp: {} values", all.len());
    // One element by index vector.
    let one: f32 = temp.get_var1(&[1, 2, 0, 3])?;
    println!("temp[1, 2, 0, 3] = {one}");
    // The guide's example: the second level, every time, latitude and longitude.
    let level2: Vec<f32> = temp.get_vara(&[0, 1, 0, 0], &[shape[0], 1, shape[2], shape[3]])?;
    println!(
        "temp[:, 1, :, :]: {} values, first {:?}",
        level2.len(),
        &level2[..3]
    );
    // Subsampled: every other longitude, every second latitude.
    let sub: Vec<f64> = temp.get_vars(&[0, 0, 0, 0], &[1, 1, 3, 5], &[1, 1, 2, 2])?;
    println!("temp[0, 0, ::2, ::2] = {sub:?}");
    // Mapped: a lat x lon section transposed in memory (lon slowest).
    let (nlat, nlon) = (shape[2], shape[3]);
    let tr: Vec<f64> = temp.get_varm(&[0, 0, 0, 0], &[1, 1, nlat, nlon], None, &[0, 0, 1, nlat])?;
    println!(
        "temp[0, 0] transposed: first column {:?}",
        &tr[..nlat as usize]
    );
    // Conversion to bytes: out-of-range values are reported, the others converted.
    let c = temp.read_converted::<i8>(NcForm::Whole)?;
    println!(
        "temp as byte: {} of {} values out of range, e.g. at {:?}",
        c.out_of_range.len(),
        c.values.len(),
        c.out_of_range_at.first()
    );
    if let Err(e) = temp.read::<i8>(NcForm::Section {
        start: &[2, 0, 0, 0],
        count: &[1, 1, 1, 10],
    }) {
        println!("{e}");
    }
    // Text.
    let names = nc.variable("station_name")?;
    let text = names.read_text(NcForm::Whole)?;
    for row in text.chunks(5) {
        let end = row.iter().position(|&b| b == 0).unwrap_or(row.len());
        println!("station {:?}", String::from_utf8_lossy(&row[..end]));
    }
    // Ragged arrays: the guide's row_index, and CF's contiguous ragged array.
    for (i, row) in nc.ragged_rows::<i32>("ragged_mat")?.iter().enumerate() {
        println!("ragged_mat row {i}: {row:?}");
    }
    for (i, row) in nc.cf_contiguous_rows::<f32>("humidity")?.iter().enumerate() {
        println!("humidity station {i}: {row:?}");
    }
    Ok(())
}
