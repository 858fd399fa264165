//! The read benchmarks through hdf5-pure-rust 0.3.10.

use h5_bench_peers::*;
use hdf5_pure_rust::File;
use std::path::Path;

fn read(dir: &Path, name: &str) -> Result<Option<Timed>> {
    let (path, object) = input(dir, name)?;
    let e = msg(name);
    let clock = Clock::start();
    Ok(Some(match name {
        "open_list" => {
            let f = File::open(path).map_err(&e)?;
            let names = f.member_names().map_err(&e)?;
            drop(f);
            Timed::stop(&clock, || names_bytes(names))
        }
        "open_attr" => {
            let f = File::open(path).map_err(&e)?;
            let v: f64 = f
                .attr(READ_ATTR)
                .and_then(|a| a.read_scalar())
                .map_err(&e)?;
            drop(f);
            Timed::stop(&clock, || v.to_le_bytes().to_vec())
        }
        "compound_field" => {
            let f = File::open(path).map_err(&e)?;
            let b: Vec<f64> = f
                .dataset(object)
                .and_then(|d| d.read_field("b"))
                .map_err(&e)?;
            drop(f);
            Timed::stop(&clock, || b)
        }
        "hyperslab" => {
            let f = File::open(path).map_err(&e)?;
            let [(r0, nr), (c0, nc)] = SLAB_SELECTION.map(|(s, n)| (s as usize, n as usize));
            let v: Vec<f32> = f
                .dataset(object)
                .and_then(|d| d.read_slice::<f32, _>((r0..r0 + nr, c0..c0 + nc)))
                .map_err(&e)?;
            drop(f);
            Timed::stop(&clock, || v)
        }
        _ => {
            let f = File::open(path).map_err(&e)?;
            let v: Vec<f64> = f.dataset(object).and_then(|d| d.read()).map_err(&e)?;
            drop(f);
            Timed::stop(&clock, || v)
        }
    }))
}

fn main() -> std::process::ExitCode {
    main_with(read)
}
