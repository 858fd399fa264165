//! The read benchmarks through rust-hdf5 0.7.9.

use h5_bench_peers::*;
use rust_hdf5::H5File;
use std::path::Path;

fn read(dir: &Path, name: &str) -> Result<Option<Timed>> {
    let (path, object) = input(dir, name)?;
    let e = msg(name);
    let clock = Clock::start();
    Ok(Some(match name {
        "open_list" => {
            let f = H5File::open(path).map_err(&e)?;
            let root = f.root_group();
            let mut names = root.group_names().map_err(&e)?;
            names.extend(root.dataset_names().map_err(&e)?);
            drop(f);
            Timed::stop(&clock, || names_bytes(names))
        }
        // Groups' attributes are readable as strings only.
        "open_attr" => return Ok(None),
        "compound_field" => {
            let f = H5File::open(path).map_err(&e)?;
            let raw = f
                .dataset(object)
                .and_then(|d| d.read_raw_bytes())
                .map_err(&e)?;
            let b = field_b(&raw);
            drop((raw, f));
            Timed::stop(&clock, || b)
        }
        "hyperslab" => {
            let f = H5File::open(path).map_err(&e)?;
            let [(r0, nr), (c0, nc)] = SLAB_SELECTION.map(|(s, n)| (s as usize, n as usize));
            let v: Vec<f32> = f
                .dataset(object)
                .and_then(|d| d.read_slice::<f32>(&[r0, c0], &[nr, nc]))
                .map_err(&e)?;
            drop(f);
            Timed::stop(&clock, || v)
        }
        _ => {
            let f = H5File::open(path).map_err(&e)?;
            let v: Vec<f64> = f.dataset(object).and_then(|d| d.read_raw()).map_err(&e)?;
            drop(f);
            Timed::stop(&clock, || v)
        }
    }))
}

fn main() -> std::process::ExitCode {
    main_with(read)
}
