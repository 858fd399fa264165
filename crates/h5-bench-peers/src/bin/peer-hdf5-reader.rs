//! The read benchmarks through hdf5-reader 0.12.1 (its parallel whole-dataset read).

use h5_bench_peers::*;
use hdf5_reader::{Hdf5File, SliceInfo, SliceInfoElem};
use std::path::Path;

fn read(dir: &Path, name: &str) -> Result<Option<Timed>> {
    let (path, object) = input(dir, name)?;
    let e = msg(name);
    let clock = Clock::start();
    Ok(Some(match name {
        "open_list" => {
            let f = Hdf5File::open(path).map_err(&e)?;
            let (mut names, datasets) =
                f.root_group().and_then(|g| g.member_names()).map_err(&e)?;
            names.extend(datasets);
            drop(f);
            Timed::stop(&clock, || names_bytes(names))
        }
        "open_attr" => {
            let f = Hdf5File::open(path).map_err(&e)?;
            let v: f64 = f
                .root_group()
                .and_then(|g| g.attribute(READ_ATTR))
                .and_then(|a| a.read_scalar())
                .map_err(&e)?;
            drop(f);
            Timed::stop(&clock, || v.to_le_bytes().to_vec())
        }
        "compound_field" => {
            let f = Hdf5File::open(path).map_err(&e)?;
            let raw = f
                .dataset(object)
                .and_then(|d| d.read_raw_bytes())
                .map_err(&e)?;
            let b = field_b(&raw);
            drop((raw, f));
            Timed::stop(&clock, || b)
        }
        "hyperslab" => {
            let f = Hdf5File::open(path).map_err(&e)?;
            let sel = SliceInfo {
                selections: SLAB_SELECTION
                    .iter()
                    .map(|&(start, n)| SliceInfoElem::Slice {
                        start,
                        end: start + n,
                        step: 1,
                    })
                    .collect(),
            };
            let a = f
                .dataset(object)
                .and_then(|d| d.read_slice::<f32>(&sel))
                .map_err(&e)?;
            let v: Vec<f32> = a.iter().copied().collect();
            drop((a, f));
            Timed::stop(&clock, || v)
        }
        _ => {
            let f = Hdf5File::open(path).map_err(&e)?;
            let a = f
                .dataset(object)
                .and_then(|d| d.read_array_parallel::<f64>())
                .map_err(&e)?;
            drop(f);
            Timed::stop(&clock, || {
                if a.is_standard_layout() {
                    a.into_raw_vec_and_offset().0
                } else {
                    a.iter().copied().collect::<Vec<f64>>()
                }
            })
        }
    }))
}

fn main() -> std::process::ExitCode {
    main_with(read)
}
