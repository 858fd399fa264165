//! `h5 check [-v] FILE`: walk every structure reachable from the superblock and list what is
//! wrong, one line per problem (`<structure> at <0xaddr>: <what is wrong>`), then a summary.
//! Exit status: 0 for a sound file, 1 when problems were found, 2 for a usage or I/O error.
//! Filtered chunks of datasets whose values hold variable-length data or references are
//! decoded with the reading codecs, so those values are checked too.

use h5::format::message::filter_pipeline::FilterPipeline;
use h5::format::walk::{self, ChunkDecoder, Options};
use h5::io::filter::{decode_chunk, ChunkInfo};

/// Check every structure of a file; exit 0 if sound, 1 if not
///
/// Walks every structure reachable from the superblock and prints what is wrong, one line per
/// problem (`<structure> at <0xaddr>: <what is wrong>`), then a summary. Exit status: 0 for a
/// sound file, 1 when problems were found, 2 for a usage or I/O error.
#[derive(clap::Parser)]
#[command(name = "check", verbatim_doc_comment)]
pub struct Args {
    /// Also print where the superblock is
    #[arg(short, long)]
    verbose: bool,
    /// The file (a path or a URL)
    #[arg(value_name = "FILE")]
    file: String,
}

impl crate::Run for Args {
    fn run(self) -> i32 {
        check(&self.file, self.verbose)
    }
}

/// Check `file`; returns the exit status.
fn check(file: &str, verbose: bool) -> i32 {
    let storage = match crate::input::storage(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("h5 check: {file}: {e}");
            return 2;
        }
    };
    let opts = Options {
        decode_chunk: Some(ChunkDecoder(decode)),
        ..Options::default()
    };
    let report = walk::walk_storage(&*storage, &opts);
    for p in &report.problems {
        println!("{p}");
    }
    if report.dropped_problems > 0 {
        println!("... and {} more problems", report.dropped_problems);
    }
    if verbose {
        if let Some(at) = report.superblock_offset {
            println!("superblock at {at:#x}");
        }
    }
    for n in &report.notes {
        println!("note: {n}");
    }
    let problems = report.problems.len() + report.dropped_problems;
    println!(
        "{}: {} objects, {} structures, {} problem{}",
        file,
        report.objects,
        report.structures,
        problems,
        if problems == 1 { "" } else { "s" }
    );
    if report.is_sound() {
        0
    } else {
        1
    }
}

/// The walk's chunk decoder: the reading pipeline of `h5-io`.
fn decode(
    pipeline: &FilterPipeline,
    filter_mask: u32,
    data: Vec<u8>,
    expected: usize,
) -> Result<Vec<u8>, String> {
    let filters = pipeline.filters.clone();
    decode_chunk(&filters, filter_mask, data, &ChunkInfo::new(expected)).map_err(|e| e.to_string())
}
