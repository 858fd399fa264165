//! `h5 repack [--latest] [-l LAYOUT]... [-f FILTER]... IN OUT`: read any file the reader
//! reads and write it anew with the writer, optionally with other layouts and filters.
//!
//! Every group, dataset, committed datatype, attribute and link is copied; the data stays
//! the same bytes in the same file datatypes (variable-length values and references are
//! rewritten for the new file). The options follow the reference `h5repack`:
//!
//! * `-l [OBJ,OBJ...:]CHUNK=D1xD2...`, `-l [OBJ...:]CONTI`, `-l [OBJ...:]COMPA`: the layout
//!   of the listed datasets (of every dataset without a list).
//! * `-f [OBJ,OBJ...:]FILTER` with FILTER one of `GZIP=L`, `SZIP=PPB,EC|NN`, `SHUF`, `FLET`,
//!   `NBIT`, `SOFF=FACTOR,IN|DS`, `NONE`: the filters of the listed datasets (of every
//!   dataset without a list). The `-f` options replace a dataset's pipeline, in the order
//!   given; `NONE` removes every filter. A filter on a dataset that is not chunked chunks it
//!   (one chunk of the whole extent, as `h5repack` does); a filter that does not apply to a
//!   dataset's datatype is left out for it, with a warning.
//! * `--latest`: write the latest format (superblock version 2) instead of the compatible
//!   one.
//! * `-S STRATEGY` (`--fs_strategy=`), `-G PAGESIZE` (`--fs_pagesize=`): the file-space
//!   strategy (`FSM_AGGR`, `PAGE`, `AGGR`, `NONE`) and page size of the output, as
//!   `H5Pset_file_space_strategy` (not persisting, threshold 1) and
//!   `H5Pset_file_space_page_size` set them: `-S PAGE` writes paged aggregation (metadata
//!   and raw data in separate pages), which readers of object stores fetch page by page.
//!   Either option alone takes the other's default (FSM_AGGR, 4096 bytes).

use std::cell::RefCell;

use h5::io::filter::{self, Filter};
use h5::io::selection::{Dataspace, UNLIMITED};
use h5::io::write::paged::{FileSpace, FileSpaceStrategy, DEFAULT_PAGE_SIZE, MIN_PAGE_SIZE};
use h5::io::write::{
    copy_file, CopyOptions, DatasetSpec, Error as WError, ErrorKind as WKind, FileFormat,
    FileWriter, StorageSpec,
};

/// A layout option.
#[derive(Clone, Debug, PartialEq, Eq)]
enum LayoutOpt {
    Chunk(Vec<u64>),
    Contiguous,
    Compact,
}

/// A filter option: a filter to add, or NONE.
#[derive(Clone, Debug, PartialEq, Eq)]
enum FilterOpt {
    Add(Filter),
    None,
}

/// The objects an option applies to: all when empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Objects(Vec<String>);

impl Objects {
    fn matches(&self, path: &str) -> bool {
        if self.0.is_empty() {
            return true;
        }
        let p = path.trim_start_matches('/');
        self.0.iter().any(|o| o.trim_start_matches('/') == p)
    }
}

/// Copy a file anew with our writer (h5repack's -l/-f options)
///
/// Every group, dataset, committed datatype, attribute and link is copied; the data stays the
/// same bytes in the same file datatypes. The -l and -f options take h5repack's syntax and
/// apply to the datasets listed before their colon (to every dataset without a list).
#[derive(clap::Parser, Clone, Debug, Default, PartialEq, Eq)]
#[command(name = "repack", verbatim_doc_comment)]
pub struct Options {
    /// Write with the latest file format (superblock version 2)
    #[arg(short = 'L', long)]
    latest: bool,
    /// The layout of these datasets: [OBJ,..:]CHUNK=DxD..|CONTI|COMPA (repeatable)
    #[arg(short = 'l', long = "layout", value_name = "LAYOUT", value_parser = parse_layout)]
    layouts: Vec<(Objects, LayoutOpt)>,
    /// The filters of these datasets, in order: [OBJ,..:]FILTER (repeatable)
    ///
    /// FILTER: GZIP=L, SZIP=PPB,EC|NN, SHUF, FLET, NBIT, SOFF=N,IN|DS, UD=ID,FLAG,N,CD.. or NONE.
    /// The -f options replace a dataset's pipeline; NONE removes every filter. A filter on a
    /// dataset that is not chunked chunks it (one chunk of the whole extent, as h5repack does);
    /// a filter that does not apply to a dataset's datatype is left out for it, with a warning.
    #[arg(
        short = 'f',
        long = "filter",
        value_name = "FILTER",
        value_parser = parse_filter,
        verbatim_doc_comment
    )]
    filters: Vec<(Objects, FilterOpt)>,
    /// File space strategy of the output: FSM_AGGR, PAGE, AGGR or NONE
    ///
    /// As H5Pset_file_space_strategy sets it (not persisting, threshold 1): PAGE writes paged
    /// aggregation (metadata and raw data in separate pages), which readers of object stores
    /// fetch page by page. Alone, it takes the page size 4096.
    #[arg(
        short = 'S',
        long = "fs_strategy",
        value_name = "STRATEGY",
        value_parser = parse_strategy,
        verbatim_doc_comment
    )]
    fs_strategy: Option<FileSpaceStrategy>,
    /// File space page size of the output, in bytes (alone, the strategy FSM_AGGR)
    #[arg(short = 'G', long = "fs_pagesize", value_name = "PAGESIZE", value_parser = parse_page_size)]
    fs_page_size: Option<u64>,
    /// The file to read (a path or a URL)
    #[arg(value_name = "IN")]
    input: String,
    /// The file to write
    #[arg(value_name = "OUT")]
    output: String,
}

impl crate::Run for Options {
    fn run(self) -> i32 {
        match repack(&self) {
            Ok(warnings) => {
                for w in warnings {
                    eprintln!("h5 repack: warning: {w}");
                }
                0
            }
            Err(e) => {
                eprintln!("h5 repack: {e}");
                1
            }
        }
    }
}

/// The arguments after `h5 repack`, or the first error: the message of a bad `-l`, `-f`,
/// `-S` or `-G` value alone.
#[cfg(test)]
fn parse_args(args: &[String]) -> Result<Options, String> {
    use clap::Parser;
    use std::error::Error;
    Options::try_parse_from(std::iter::once("repack").chain(args.iter().map(String::as_str)))
        .map_err(|e| {
            e.source()
                .map_or_else(|| e.to_string(), ToString::to_string)
        })
}

/// A `-S` value.
fn parse_strategy(s: &str) -> Result<FileSpaceStrategy, String> {
    FileSpaceStrategy::from_name(s)
        .ok_or_else(|| format!("unknown file space strategy {s:?} (FSM_AGGR, PAGE, AGGR or NONE)"))
}

/// A `-G` value.
fn parse_page_size(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if n >= MIN_PAGE_SIZE => Ok(n),
        _ => Err(format!(
            "file space page size {s:?} is not a number of at least {MIN_PAGE_SIZE}"
        )),
    }
}

/// Split `OBJ,OBJ:VALUE` into the object list and the value.
fn split_objects(s: &str) -> (Objects, &str) {
    match s.rsplit_once(':') {
        Some((objs, v)) if !objs.is_empty() => (
            Objects(
                objs.split(',')
                    .filter(|o| !o.is_empty())
                    .map(str::to_owned)
                    .collect(),
            ),
            v,
        ),
        _ => (Objects::default(), s),
    }
}

fn parse_layout(s: &str) -> Result<(Objects, LayoutOpt), String> {
    let (objs, v) = split_objects(s);
    let up = v.to_ascii_uppercase();
    let opt = if up == "CONTI" {
        LayoutOpt::Contiguous
    } else if up == "COMPA" {
        LayoutOpt::Compact
    } else if let Some(dims) = up.strip_prefix("CHUNK=") {
        let dims: Result<Vec<u64>, _> = dims.split(['x', 'X']).map(str::parse::<u64>).collect();
        match dims {
            Ok(d) if !d.is_empty() && d.iter().all(|&x| x > 0) => LayoutOpt::Chunk(d),
            _ => return Err(format!("bad chunk dimensions in {s:?}")),
        }
    } else {
        return Err(format!(
            "unknown layout {s:?} (CHUNK=DxD.., CONTI or COMPA)"
        ));
    };
    Ok((objs, opt))
}

fn parse_filter(s: &str) -> Result<(Objects, FilterOpt), String> {
    let (objs, v) = split_objects(s);
    let up = v.to_ascii_uppercase();
    let (name, arg) = match up.split_once('=') {
        Some((n, a)) => (n, Some(a)),
        None => (up.as_str(), None),
    };
    let num = |a: Option<&str>| -> Result<u32, String> {
        a.and_then(|a| a.split(',').next())
            .and_then(|x| x.parse().ok())
            .ok_or_else(|| format!("filter {s:?} needs a number"))
    };
    let second = |a: Option<&str>| a.and_then(|a| a.split(',').nth(1)).map(str::to_owned);
    let f = match name {
        "NONE" => return Ok((objs, FilterOpt::None)),
        "GZIP" => {
            let l = num(arg)?;
            if l > 9 {
                return Err(format!("GZIP level {l} is not 1 to 9"));
            }
            Filter::deflate(l)
        }
        "SHUF" => Filter::shuffle(),
        "FLET" => Filter::fletcher32(),
        "NBIT" => Filter::nbit(),
        "SZIP" => {
            let ppb = num(arg)?;
            let mask = match second(arg).as_deref() {
                Some("EC") => filter::SZIP_EC,
                Some("NN") | None => filter::SZIP_NN,
                Some(o) => return Err(format!("SZIP coding {o:?} is not EC or NN")),
            };
            if ppb == 0 || ppb % 2 != 0 || ppb > 32 {
                return Err(format!("SZIP pixels per block {ppb} is not even, 2 to 32"));
            }
            Filter::szip(mask, ppb)
        }
        "SOFF" => {
            let factor: i32 = arg
                .and_then(|a| a.split(',').next())
                .and_then(|x| x.parse().ok())
                .ok_or_else(|| format!("filter {s:?} needs a scale factor"))?;
            let kind = match second(arg).as_deref() {
                Some("IN") | None => 2,
                Some("DS") => 0,
                Some(o) => return Err(format!("SOFF type {o:?} is not IN or DS")),
            };
            Filter::scaleoffset(kind, factor)
        }
        "UD" => parse_user_defined(s, arg)?,
        _ => return Err(format!("unknown filter {s:?}")),
    };
    Ok((objs, FilterOpt::Add(f)))
}

/// h5repack's `UD=<filter_number,filter_flag,cd_value_count,value_1[,...,value_N]>`: any
/// filter with a codec, its flag (0 mandatory, 1 optional) and client data.
fn parse_user_defined(s: &str, arg: Option<&str>) -> Result<Filter, String> {
    let fields: Vec<u32> = arg
        .unwrap_or("")
        .split(',')
        .map(|x| x.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("filter {s:?}: UD needs numbers: id,flag,count,values..."))?;
    let [id, flag, count, values @ ..] = fields.as_slice() else {
        return Err(format!("filter {s:?}: UD needs id,flag,count[,values...]"));
    };
    let id = u16::try_from(*id)
        .ok()
        .filter(|&i| i > 0)
        .ok_or_else(|| format!("filter {s:?}: filter id {id} is not 1 to 65535"))?;
    if *count as usize != values.len() {
        return Err(format!(
            "filter {s:?}: {count} client data values announced, {} given",
            values.len()
        ));
    }
    let id = filter::FilterId(id);
    if !filter::FilterRegistry::shared().contains(id) {
        return Err(format!("filter {id} is not available"));
    }
    let f = Filter::new(id, values.to_vec());
    match flag {
        0 => Ok(f),
        1 => Ok(f.optional()),
        _ => Err(format!(
            "filter {s:?}: flag {flag} is not 0 (mandatory) or 1 (optional)"
        )),
    }
}

/// The number of bytes of the dataset's data.
fn data_bytes(spec: &DatasetSpec) -> u64 {
    let n: u64 = match &spec.space {
        Dataspace::Simple { dims, .. } => dims.iter().product(),
        Dataspace::Scalar => 1,
        _ => 0,
    };
    n.saturating_mul(h5::format::message::datatype::disk_size(
        &spec.datatype,
        h5::format::Sizes::DEFAULT,
    ))
}

/// Apply the layout and filter options to one dataset.
fn adjust(o: &Options, path: &str, spec: &mut DatasetSpec, warn: &mut Vec<String>) {
    let (dims, maxdims) = match &spec.space {
        Dataspace::Simple { dims, maxdims } => (dims.clone(), maxdims.clone()),
        // Scalar and null datasets keep their layout.
        _ => return,
    };
    let unlimited = maxdims != dims;
    let chunk_for = |want: &[u64]| -> Vec<u64> {
        want.iter()
            .zip(&maxdims)
            .map(|(&c, &m)| if m == UNLIMITED { c } else { c.min(m.max(1)) })
            .collect()
    };
    for (objs, l) in &o.layouts {
        if !objs.matches(path) {
            continue;
        }
        match l {
            LayoutOpt::Chunk(c) if c.len() == dims.len() => {
                spec.storage = StorageSpec::Chunked(chunk_for(c))
            }
            LayoutOpt::Chunk(c) => warn.push(format!(
                "{path}: chunk of rank {} for a dataset of rank {}: layout kept",
                c.len(),
                dims.len()
            )),
            LayoutOpt::Contiguous | LayoutOpt::Compact if unlimited => warn.push(format!(
                "{path}: unlimited dimensions need chunks: layout kept"
            )),
            LayoutOpt::Contiguous => spec.storage = StorageSpec::Contiguous,
            LayoutOpt::Compact if data_bytes(spec) > 0xffff - 1024 => warn.push(format!(
                "{path}: {} bytes are too many for compact storage: layout kept",
                data_bytes(spec)
            )),
            LayoutOpt::Compact => spec.storage = StorageSpec::Compact,
        }
    }
    let mine: Vec<&FilterOpt> = o
        .filters
        .iter()
        .filter(|(objs, _)| objs.matches(path))
        .map(|(_, f)| f)
        .collect();
    if mine.is_empty() {
        return;
    }
    let mut pipeline = Vec::new();
    for f in mine {
        match f {
            FilterOpt::None => pipeline.clear(),
            FilterOpt::Add(f) => pipeline.push(f.clone()),
        }
    }
    if !pipeline.is_empty() && !matches!(spec.storage, StorageSpec::Chunked(_)) {
        if dims.contains(&0) {
            warn.push(format!(
                "{path}: an empty dataset cannot be chunked: no filters"
            ));
            pipeline.clear();
        } else {
            spec.storage = StorageSpec::Chunked(chunk_for(&dims));
        }
    }
    // Keep only the filters that apply to this datatype and chunk shape.
    if let StorageSpec::Chunked(c) = &spec.storage {
        let fill = match &spec.fill_value {
            Some(v) => filter::FillValue::User(v),
            None => filter::FillValue::Default,
        };
        pipeline.retain(|f| match filter::set_local(f, &spec.datatype, c, fill) {
            Ok(_) => true,
            Err(e) => {
                warn.push(format!("{path}: filter {} left out: {e}", f.id));
                false
            }
        });
    }
    spec.filters = pipeline;
}

fn repack(o: &Options) -> Result<Vec<String>, String> {
    let same = match (
        std::fs::canonicalize(&o.input),
        std::fs::canonicalize(&o.output),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return Err(format!(
            "{} -> {}: IN and OUT are the same file",
            o.input, o.output
        ));
    }
    let src = crate::input::open(&o.input, h5::io::OpenOptions::default())
        .map_err(|e| format!("{}: {e}", o.input))?;
    let format = if o.latest {
        FileFormat::Latest
    } else {
        FileFormat::Compatible
    };
    let file_space = (o.fs_strategy.is_some() || o.fs_page_size.is_some()).then(|| FileSpace {
        strategy: o.fs_strategy.unwrap_or(FileSpaceStrategy::FsmAggr),
        page_size: o.fs_page_size.unwrap_or(DEFAULT_PAGE_SIZE),
    });
    let mut w = FileWriter::create_with_file_space(&o.output, format, file_space)
        .map_err(|e| e.to_string())?;
    let warnings = RefCell::new(Vec::new());
    // A bar over the datasets (on a terminal only), a step as each one is copied.
    let datasets = src.walk().map_or(0, |objects| {
        objects
            .iter()
            .filter(|(_, _, k)| *k == h5::io::ObjectKind::Dataset)
            .count() as u64
    });
    let progress = crate::progress::Progress::new(datasets, "datasets");
    let hook = |path: &str, spec: &mut DatasetSpec| -> Result<(), WError> {
        progress.step();
        let mut warn = warnings
            .try_borrow_mut()
            .map_err(|_| WError::new(WKind::InvalidArgument, "re-entered hook"))?;
        adjust(o, path, spec, &mut warn);
        Ok(())
    };
    let opts = CopyOptions {
        dataset_hook: Some(&hook),
        strict: false,
        max_read: 0,
    };
    let copied = copy_file(&src, &mut w, &opts);
    let closed = w.close();
    let report = match copied.and_then(|r| closed.map(|()| r)) {
        Ok(r) => r,
        Err(e) => {
            let _ = std::fs::remove_file(&o.output);
            return Err(format!("{} -> {}: {e}", o.input, o.output));
        }
    };
    let mut out = warnings.into_inner();
    out.extend(report.skipped);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn parses_user_defined_filters() {
        let o = parse_args(&args(
            "-f UD=32015,0,1,5 -f d:UD=32001,1,7,0,0,0,0,5,1,1 -f UD=32004,1,0 in.h5 out.h5",
        ))
        .unwrap();
        assert_eq!(
            o.filters[0].1,
            FilterOpt::Add(Filter::new(filter::FilterId::ZSTD, vec![5]))
        );
        assert_eq!(
            o.filters[1],
            (
                Objects(vec!["d".into()]),
                FilterOpt::Add(
                    Filter::new(filter::FilterId::BLOSC, vec![0, 0, 0, 0, 5, 1, 1]).optional()
                )
            )
        );
        assert_eq!(
            o.filters[2].1,
            FilterOpt::Add(Filter::new(filter::FilterId::LZ4, vec![]).optional())
        );
        for bad in [
            "UD=32015,0,2,5",
            "UD=32015,2,1,5",
            "UD=32015",
            "UD=x,0,0",
            "UD=0,0,0",
            "UD=70000,0,0",
            "UD=32013,0,0",
        ] {
            let e = parse_args(&args(&format!("-f {bad} in.h5 out.h5"))).unwrap_err();
            assert!(!e.is_empty(), "{bad}");
        }
        let e = parse_args(&args("-f UD=32013,0,0 in.h5 out.h5")).unwrap_err();
        assert_eq!(e, "filter 32013 (zfp) is not available");
    }

    #[test]
    fn parses_layouts_and_filters() {
        let o = parse_args(&args(
            "--latest -l dset1,g/d2:CHUNK=10x20 -lCONTI -f GZIP=6 -f d:SHUF -f SZIP=8,NN \
             -f SOFF=3,DS -f NONE in.h5 out.h5",
        ))
        .unwrap();
        assert!(o.latest);
        assert_eq!(
            o.layouts,
            [
                (
                    Objects(vec!["dset1".into(), "g/d2".into()]),
                    LayoutOpt::Chunk(vec![10, 20])
                ),
                (Objects::default(), LayoutOpt::Contiguous),
            ]
        );
        assert_eq!(o.filters.len(), 5);
        assert_eq!(
            o.filters[0],
            (Objects::default(), FilterOpt::Add(Filter::deflate(6)))
        );
        assert_eq!(
            o.filters[1],
            (Objects(vec!["d".into()]), FilterOpt::Add(Filter::shuffle()))
        );
        assert_eq!(
            o.filters[2].1,
            FilterOpt::Add(Filter::szip(filter::SZIP_NN, 8))
        );
        assert_eq!(o.filters[3].1, FilterOpt::Add(Filter::scaleoffset(0, 3)));
        assert_eq!(o.filters[4].1, FilterOpt::None);
        assert_eq!((o.input.as_str(), o.output.as_str()), ("in.h5", "out.h5"));
        assert!(Objects(vec!["/g/d2".into()]).matches("/g/d2"));
        assert!(!Objects(vec!["g".into()]).matches("/g/d2"));
        let o = parse_args(&args("-S PAGE -G 8192 in.h5 out.h5")).unwrap();
        assert_eq!(o.fs_strategy, Some(FileSpaceStrategy::Page));
        assert_eq!(o.fs_page_size, Some(8192));
        let o = parse_args(&args("--fs_strategy=AGGR --fs_pagesize=512 in.h5 out.h5")).unwrap();
        assert_eq!(o.fs_strategy, Some(FileSpaceStrategy::Aggr));
        assert_eq!(o.fs_page_size, Some(512));
    }

    #[test]
    fn rejects_bad_options() {
        for bad in [
            "-l CHUNK=0x3 a b",
            "-l FOO a b",
            "-f GZIP=12 a b",
            "-f SZIP=7,NN a b",
            "-f XYZ a b",
            "a",
            "-q a b",
            "-S PAGED a b",
            "-G 100 a b",
            "-G x a b",
        ] {
            assert!(parse_args(&args(bad)).is_err(), "{bad}");
        }
    }
}
