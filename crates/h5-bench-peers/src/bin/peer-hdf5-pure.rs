//! The read benchmarks through hdf5-pure 0.47.

use h5_bench_peers::*;
use hdf5_pure::{AttrValue, File};
use std::path::Path;

fn read(dir: &Path, name: &str) -> Result<Option<Timed>> {
    let (path, object) = input(dir, name)?;
    let e = msg(name);
    let clock = Clock::start();
    Ok(Some(match name {
        "open_list" => {
            let f = File::open(path).map_err(&e)?;
            let root = f.root();
            let mut names = root.groups().map_err(&e)?;
            names.extend(root.datasets().map_err(&e)?);
            drop(f);
            Timed::stop(&clock, || names_bytes(names))
        }
        "open_attr" => {
            let f = File::open(path).map_err(&e)?;
            let v = match f.root().attrs().map_err(&e)?.get(READ_ATTR) {
                Some(AttrValue::F64(v)) => *v,
                other => return Err(format!("{name}: attribute {other:?}")),
            };
            drop(f);
            Timed::stop(&clock, || v.to_le_bytes().to_vec())
        }
        "compound_field" => {
            let f = File::open(path).map_err(&e)?;
            let raw = f.dataset(object).and_then(|d| d.read_raw()).map_err(&e)?;
            let b = field_b(&raw);
            drop((raw, f));
            Timed::stop(&clock, || b)
        }
        "hyperslab" => {
            // Whole rows: the library reads row ranges, not rectangles.
            let f = File::open(path).map_err(&e)?;
            let d = f.dataset(object).map_err(&e)?;
            let side = d.shape().map_err(&e)?[1];
            let [(r0, nr), _] = SLAB_SELECTION;
            let rows = d.read_f32_rows(r0, nr).map_err(&e)?;
            let v = slab_of_rows(&rows, r0, side);
            drop((rows, d, f));
            Timed::stop(&clock, || v)
        }
        _ => {
            let f = File::open(path).map_err(&e)?;
            let v = f.dataset(object).and_then(|d| d.read_f64()).map_err(&e)?;
            drop(f);
            Timed::stop(&clock, || v)
        }
    }))
}

fn main() -> std::process::ExitCode {
    main_with(read)
}
