//! `h5 refs [OPTIONS] FILE|URL [OBJECT...]`: kerchunk version 1 references (JSON) to the
//! file's groups and datasets, which fsspec's `ReferenceFileSystem` serves to zarr, xarray
//! and dask without an HDF5 library (see `h5::refs`). What references cannot express is
//! skipped with its reason on standard error. Exit status: 0 when written, 2 on a usage or
//! read error.

use std::io::Write;

use h5::refs::{kerchunk, RefsOptions};

const USAGE: &str =
    "usage: h5 refs [-o OUT.json] [--url URL] [--inline-threshold BYTES] FILE|URL [OBJECT...]
  -o, --output FILE         write the references there (default: standard output)
  --url URL                 the file's URL written in every reference (default: FILE as given)
  --inline-threshold BYTES  inline chunks smaller than this (default 500; 0: only compact data)
  OBJECT                    only these groups or datasets (absolute paths)";

/// Run `h5 refs` with the arguments after the command name; returns the exit status.
pub fn run(args: &[String]) -> i32 {
    match run_inner(args) {
        Ok(status) => status,
        Err(e) => {
            eprintln!("h5 refs: {e}");
            2
        }
    }
}

fn run_inner(args: &[String]) -> Result<i32, String> {
    let mut output = None;
    let mut url = None;
    let mut threshold = 500u64;
    let mut positional = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(0);
            }
            "-o" | "--output" => output = Some(value(a)?),
            "--url" => url = Some(value(a)?),
            "--inline-threshold" => {
                let v = value(a)?;
                threshold = v
                    .parse()
                    .map_err(|_| format!("--inline-threshold {v:?}: not a byte count"))?;
            }
            s if s.starts_with("--output=") => output = Some(s["--output=".len()..].to_string()),
            s if s.starts_with("--url=") => url = Some(s["--url=".len()..].to_string()),
            s if s.starts_with("--inline-threshold=") => {
                let v = &s["--inline-threshold=".len()..];
                threshold = v
                    .parse()
                    .map_err(|_| format!("--inline-threshold {v:?}: not a byte count"))?;
            }
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(format!("unknown option {s:?}\n{USAGE}"))
            }
            s => positional.push(s.to_string()),
        }
    }
    let Some((file, objects)) = positional.split_first() else {
        return Err(USAGE.to_string());
    };
    let reader = crate::input::open(file, h5::io::OpenOptions::default())
        .map_err(|e| format!("{file}: {e}"))?;
    let f = h5::File::from_reader(reader);
    let options = RefsOptions::new(url.unwrap_or_else(|| file.clone()))
        .inline_threshold(threshold)
        .objects(objects.iter().cloned());
    let refs = kerchunk(&f, &options).map_err(|e| format!("{file}: {e}"))?;
    for s in &refs.skipped {
        eprintln!("h5 refs: {file}: {}: skipped: {}", s.path, s.reason);
    }
    let mut text = refs.to_json().to_string();
    text.push('\n');
    match output {
        Some(path) => std::fs::write(&path, text).map_err(|e| format!("{path}: {e}"))?,
        None => std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .map_err(|e| format!("writing the references: {e}"))?,
    }
    Ok(0)
}
