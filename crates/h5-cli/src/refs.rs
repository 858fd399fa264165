//! `h5 refs [OPTIONS] FILE|URL [OBJECT...]`: kerchunk version 1 references (JSON) to the
//! file's groups and datasets, which fsspec's `ReferenceFileSystem` serves to zarr, xarray
//! and dask without an HDF5 library (see `h5::refs`). What references cannot express is
//! skipped with its reason on standard error. Exit status: 0 when written, 2 on a usage or
//! read error.

use std::io::Write;

use h5::refs::{kerchunk, RefsOptions};

/// Write kerchunk references (JSON) to the file's chunks, for fsspec, zarr and xarray
///
/// What references cannot express is skipped with its reason on standard error. Exit status:
/// 0 when written, 2 on a usage or read error.
#[derive(clap::Parser)]
#[command(name = "refs", verbatim_doc_comment)]
pub struct Args {
    /// Write the references there (default: standard output)
    #[arg(short, long, value_name = "OUT.json")]
    output: Option<String>,
    /// The file's URL written in every reference (default: FILE as given)
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// Inline chunks smaller than this (0: only compact data)
    #[arg(long, value_name = "BYTES", default_value = "500", value_parser = byte_count)]
    inline_threshold: u64,
    /// The file (a path or a URL)
    #[arg(value_name = "FILE|URL")]
    file: String,
    /// Only these groups or datasets (absolute paths)
    #[arg(value_name = "OBJECT")]
    objects: Vec<String>,
}

/// A `--inline-threshold` value.
fn byte_count(s: &str) -> Result<u64, String> {
    s.parse().map_err(|_| "not a byte count".to_owned())
}

impl crate::Run for Args {
    fn run(self) -> i32 {
        match refs(self) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("h5 refs: {e}");
                2
            }
        }
    }
}

/// Write the references `args` ask for.
fn refs(args: Args) -> Result<(), String> {
    let file = &args.file;
    let reader = crate::input::open(file, h5::io::OpenOptions::default())
        .map_err(|e| format!("{file}: {e}"))?;
    let f = h5::File::from_reader(reader);
    let options = RefsOptions::new(args.url.unwrap_or_else(|| file.clone()))
        .inline_threshold(args.inline_threshold)
        .objects(args.objects);
    let refs = kerchunk(&f, &options).map_err(|e| format!("{file}: {e}"))?;
    for s in &refs.skipped {
        eprintln!("h5 refs: {file}: {}: skipped: {}", s.path, s.reason);
    }
    let mut text = refs.to_json().to_string();
    text.push('\n');
    match args.output {
        Some(path) => std::fs::write(&path, text).map_err(|e| format!("{path}: {e}"))?,
        None => std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .map_err(|e| format!("writing the references: {e}"))?,
    }
    Ok(())
}
