//! The read benchmarks through rustyhdf5 1.93 (its memory-mapped `File`).

use h5_bench_peers::*;
use rustyhdf5::types::AttrValue;
use rustyhdf5::File;
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
            // Whole records through the memory map (contiguous data only).
            let b = {
                let f = File::open(path).map_err(&e)?;
                let d = f.dataset(object).map_err(&e)?;
                let raw = d
                    .read_raw_ref()
                    .map_err(&e)?
                    .ok_or_else(|| format!("{name}: not contiguous"))?;
                field_b(raw)
            };
            Timed::stop(&clock, || b)
        }
        // No partial reads: reading 256 MiB to pick 40 kB would not be this benchmark.
        "hyperslab" => return Ok(None),
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
