//! `h5 dump`: an h5dump-compatible printer.
//!
//! [`run_with`] parses h5dump's command line, opens each file through an opener that returns a
//! [`model::DumpFile`], and prints the DDL. The printer itself lives in [`ddl`]; the rendering
//! engine (line prefixes, wrapping) in [`render`]; element formatting in [`value`].

pub mod ddl;
pub mod memory;
pub mod model;
pub mod oid;
pub mod reader;
pub mod render;
pub mod value;
pub mod xml;

use std::io::Write;

use crate::getopt::{self, Arg, Rules, Scanner};
use ddl::{Dumper, Opts, Subset, COL};
use model::{DumpFile, IndexOrder, LinkTarget, ObjId, ObjKind};
use render::Dest;

/// h5dump's usage text (what `-h` and a bad command line print: h5dump 1.10.8's own).
pub const USAGE: &str = include_str!("dump/usage.txt");

/// What `--help` adds after [`USAGE`]: the options of `h5 dump` that h5dump has not.
pub const USAGE_OURS: &str = include_str!("dump/usage_ours.txt");

/// The option code of `--compat` (long only).
const OPT_COMPAT: char = '\u{1}';
/// The option code of `--help` (`-h` prints h5dump's usage alone).
const OPT_LONG_HELP: char = '\u{2}';

/// One object selection from the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Handler {
    /// `-d NAME`, with an optional subset.
    Dataset(String, Option<Subset>),
    /// `-g NAME`.
    Group(String),
    /// `-a NAME`.
    Attribute(String),
    /// `-t NAME`.
    Datatype(String),
    /// `-l NAME`.
    Link(String),
    /// `-N NAME`.
    AnyPath(String),
}

/// The parsed command line.
#[derive(Clone, Debug, Default)]
pub struct Command {
    /// Printing options.
    pub opts: Opts,
    /// Object selections in command-line order (empty: dump everything).
    pub handlers: Vec<Handler>,
    /// File names.
    pub files: Vec<String>,
    /// `-h`: print usage and exit 0.
    pub help: bool,
    /// `-V`.
    pub version: bool,
    /// `-o FILE`: raw data output file.
    pub output: Option<String>,
    /// `-O FILE`: DDL output file (`Some(None)`: suppress the DDL).
    pub ddl_output: Option<Option<String>>,
    /// `-b`: binary output form.
    pub binary: Option<String>,
    /// `-x`/`-u`: XML output.
    pub xml: bool,
    /// The XML options (`-u`, `-D`, `-X`).
    pub xml_settings: xml::XmlSettings,
    /// `-n`: list the contents.
    pub contents: Option<u32>,
    /// How files are opened (`--filedriver`, `--vds-view-first-missing`, `--vds-gap-size`).
    pub open: reader::OpenSettings,
    /// What h5dump prints on standard output while parsing (`Using revision N` for the onion
    /// driver).
    pub notice: String,
}

/// Outcome of parsing: a command, or an exit with messages.
#[derive(Debug)]
pub enum Parsed {
    /// Run this.
    Run(Box<Command>),
    /// Exit with (stdout, stderr, status).
    Exit(String, String, i32),
}

/// h5dump's short options, as a `get_option` specification ([`getopt::spec_arg`]).
const SHORT: &str = "a:b*c:d:ef:g:hik:l:m:n*o*pq:rs:t:uvw:xyz:A*BCD:E*F:G:HM:N:O*RS:VX:";
/// h5dump's long options (whole names only): name, argument, the short option it stands for.
const LONG: &[(&str, Arg, char)] = &[
    ("attribute", Arg::Required, 'a'),
    ("binary", Arg::Optional, 'b'),
    ("count", Arg::Required, 'c'),
    ("dataset", Arg::Required, 'd'),
    ("escape", Arg::No, 'e'),
    ("filedriver", Arg::Required, 'f'),
    ("group", Arg::Required, 'g'),
    ("help", Arg::No, OPT_LONG_HELP),
    ("object-ids", Arg::No, 'i'),
    ("block", Arg::Required, 'k'),
    ("soft-link", Arg::Required, 'l'),
    ("format", Arg::Required, 'm'),
    ("contents", Arg::Optional, 'n'),
    ("output", Arg::Optional, 'o'),
    ("properties", Arg::No, 'p'),
    ("sort_by", Arg::Required, 'q'),
    ("string", Arg::No, 'r'),
    ("start", Arg::Required, 's'),
    ("datatype", Arg::Required, 't'),
    ("use-dtd", Arg::No, 'u'),
    ("vds-view-first-missing", Arg::No, 'v'),
    ("width", Arg::Required, 'w'),
    ("xml", Arg::No, 'x'),
    ("noindex", Arg::No, 'y'),
    ("sort_order", Arg::Required, 'z'),
    ("onlyattr", Arg::Optional, 'A'),
    ("superblock", Arg::No, 'B'),
    ("boot-block", Arg::No, 'B'),
    ("no-compact-subset", Arg::No, 'C'),
    ("xml-dtd", Arg::Required, 'D'),
    ("enable-error-stack", Arg::Optional, 'E'),
    ("form", Arg::Required, 'F'),
    ("vds-gap-size", Arg::Required, 'G'),
    ("header", Arg::No, 'H'),
    ("packed-bits", Arg::Required, 'M'),
    ("any_path", Arg::Required, 'N'),
    ("ddl", Arg::Optional, 'O'),
    ("region", Arg::No, 'R'),
    ("stride", Arg::Required, 'S'),
    ("version", Arg::No, 'V'),
    ("xml-ns", Arg::Required, 'X'),
    ("s3-cred", Arg::Required, '$'),
    ("hdfs-attrs", Arg::Required, '#'),
    ("vfd-value", Arg::Required, '4'),
    ("vfd-name", Arg::Required, '5'),
    ("vfd-info", Arg::Required, '6'),
    ("compat", Arg::Required, OPT_COMPAT),
];

/// h5dump's `get_option` rules: a short option's missing argument is an error, a long
/// option's is not; scanning stops at the first file name.
const RULES: Rules = Rules {
    short: |c| getopt::spec_arg(SHORT, c),
    long: |name| getopt::whole_name(LONG, name),
    missing_is_error: true,
    get_option: true,
};

fn parse_list(s: &str) -> Vec<u64> {
    s.split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .map(|p| p.parse().unwrap_or(0))
        .collect()
}

/// Split `NAME[START;STRIDE;COUNT;BLOCK]` into the name and its subset.
pub fn parse_subset_params(s: &str) -> (String, Option<Subset>) {
    if let (Some(open), true) = (s.rfind('['), s.ends_with(']')) {
        let name = s[..open].to_string();
        let inner = &s[open + 1..s.len() - 1];
        let parts: Vec<&str> = inner.split(';').collect();
        let get = |i: usize| -> Option<Vec<u64>> {
            parts
                .get(i)
                .map(|p| parse_list(p))
                .filter(|v| !v.is_empty())
        };
        let sub = Subset {
            start: get(0),
            stride: get(1),
            count: get(2),
            block: get(3),
        };
        return (name, Some(sub));
    }
    (s.to_string(), None)
}

/// Parse h5dump's command line.
pub fn parse(args: &[String]) -> Parsed {
    let usage_exit = |err: String| Parsed::Exit(USAGE.to_string(), err, 1);
    if args.is_empty() {
        return usage_exit(String::new());
    }
    let mut cmd = Command::default();
    let mut g = Scanner::new(&RULES, args);
    let mut last_was_dset = false;
    // `--vfd-info`, and whether the driver was named by `--vfd-value`.
    let (mut vfd_info, mut vfd_by_value) = (None, false);
    let mut pending = g.next();
    while let Some(next) = pending {
        let (opt, arg) = match next {
            Ok(o) => o,
            // What get_option says of a bad option, and h5dump's usage.
            Err(bad) => return usage_exit(bad.message("h5dump")),
        };
        match opt {
            'R' => cmd.opts.display_region = true,
            'B' => {
                cmd.opts.display_bb = true;
                last_was_dset = false;
            }
            'n' => {
                cmd.contents = Some(arg.as_deref().map(|a| a.parse().unwrap_or(0)).unwrap_or(0));
                last_was_dset = false;
            }
            'p' => cmd.opts.display_dcpl = true,
            'y' => cmd.opts.display_ai = false,
            'e' => cmd.opts.display_escape = true,
            'H' => {
                cmd.opts.display_data = false;
                cmd.opts.display_attr_data = false;
                last_was_dset = false;
            }
            'A' => match arg {
                Some(a) => {
                    if a.trim().parse::<i64>().unwrap_or(0) == 0 {
                        cmd.opts.include_attrs = false;
                    }
                }
                None => {
                    cmd.opts.display_data = false;
                    cmd.opts.display_attr_data = true;
                    last_was_dset = false;
                }
            },
            'i' => {
                cmd.opts.display_oid = true;
                last_was_dset = false;
            }
            'r' => cmd.opts.display_char = true,
            'V' => {
                cmd.version = true;
                return Parsed::Exit("h5dump: Version 1.10.8\n".into(), String::new(), 0);
            }
            'w' => {
                let n: i64 = arg.as_deref().map(atoi).unwrap_or(0);
                cmd.opts.ncols = if n <= 0 { 65535 } else { n as usize };
                last_was_dset = false;
            }
            'N' | 'a' | 'g' | 'l' | 't' => {
                let a = arg.unwrap_or_default();
                cmd.handlers.push(match opt {
                    'N' => Handler::AnyPath(a),
                    'a' => Handler::Attribute(a),
                    'g' => Handler::Group(a),
                    'l' => Handler::Link(a),
                    _ => Handler::Datatype(a),
                });
                last_was_dset = false;
            }
            'd' => {
                let a = arg.unwrap_or_default();
                let (name, sub) = if cmd.opts.disable_compact_subset {
                    (a, None)
                } else {
                    parse_subset_params(&a)
                };
                cmd.handlers.push(Handler::Dataset(name, sub));
                last_was_dset = true;
            }
            'f' | '5' => {
                cmd.open.driver = arg;
                vfd_by_value = false;
            }
            '4' => {
                cmd.open.driver = arg
                    .as_deref()
                    .and_then(vfd_name_of_value)
                    .map(str::to_string);
                vfd_by_value = true;
            }
            '6' => vfd_info = arg,
            'O' => {
                cmd.opts.ddl_dest = match &arg {
                    Some(f) => Dest::File(f.clone()),
                    None => Dest::Null,
                };
                cmd.ddl_output = Some(arg);
            }
            'o' => {
                let dest = match &arg {
                    Some(f) => Dest::File(f.clone()),
                    None => Dest::Null,
                };
                if cmd.binary.is_none() {
                    if cmd.opts.display_attr_data && !cmd.opts.display_data {
                        cmd.opts.attr_dest = dest.clone();
                    }
                    if cmd.opts.display_data || cmd.handlers.is_empty() {
                        cmd.opts.data_dest = dest;
                    }
                } else {
                    cmd.opts.data_dest = dest;
                }
                cmd.output = Some(arg.unwrap_or_default());
                last_was_dset = false;
            }
            'b' => {
                let form = arg.unwrap_or_else(|| "NATIVE".into());
                if !matches!(form.as_str(), "NATIVE" | "MEMORY" | "FILE" | "LE" | "BE") {
                    return usage_exit(String::new());
                }
                cmd.binary = Some(form.clone());
                cmd.opts.binary = Some(form);
                if let Some(o) = &cmd.output {
                    if !o.is_empty() {
                        cmd.opts.data_dest = Dest::File(o.clone());
                    }
                }
            }
            'q' => match arg.as_deref() {
                Some("name") => cmd.opts.sort_by = IndexOrder::Name,
                Some("creation_order") => cmd.opts.sort_by = IndexOrder::Creation,
                _ => return usage_exit(String::new()),
            },
            'z' => match arg.as_deref() {
                Some("ascending") => cmd.opts.sort_decreasing = false,
                Some("descending") => cmd.opts.sort_decreasing = true,
                _ => return usage_exit(String::new()),
            },
            'M' => {
                if !last_was_dset {
                    return Parsed::Exit(
                        String::new(),
                        format!(
                            "h5dump error: option \"-{opt}\" can only be used after --dataset option\n",
                        ),
                        1,
                    );
                }
                match parse_mask_list(arg.as_deref().unwrap_or("")) {
                    Ok(m) => cmd.opts.packed_bits = m,
                    Err(e) => {
                        return Parsed::Exit(USAGE.to_string(), format!("h5dump error: {e}\n"), 1)
                    }
                }
            }
            'E' => {
                cmd.opts.error_stack = match arg.as_deref() {
                    Some(a) => atoi(a) != 0,
                    None => true,
                };
            }
            'v' => cmd.open.vds_first_missing = true,
            'G' => cmd.open.vds_gap = arg.as_deref().map(atoi).unwrap_or(0).max(0) as u64,
            'D' => {
                cmd.xml_settings.dtd_uri = arg;
                cmd.opts.ncols = 0;
            }
            'X' => {
                if !cmd.xml_settings.use_schema {
                    return usage_exit(String::new());
                }
                let a = arg.unwrap_or_default();
                cmd.xml_settings.ns = if a == ":" { String::new() } else { a };
                cmd.opts.ncols = 0;
            }
            'F' => {}
            'x' | 'u' => {
                cmd.xml = true;
                cmd.xml_settings.use_schema = opt == 'x';
                if opt == 'u' {
                    cmd.xml_settings.ns.clear();
                }
                cmd.opts.ncols = 0;
            }
            'm' => {
                cmd.opts.fp_format = arg;
                cmd.opts.ncols = 0;
            }
            'C' => cmd.opts.disable_compact_subset = true,
            's' | 'S' | 'c' | 'k' => {
                if !last_was_dset {
                    return Parsed::Exit(
                        String::new(),
                        format!(
                            "h5dump error: option \"-{opt}\" can only be used after --dataset option\n",
                        ),
                        1,
                    );
                }
                let mut o = opt;
                let mut a = arg;
                loop {
                    if let Some(Handler::Dataset(_, sub)) = cmd.handlers.last_mut() {
                        let s = sub.get_or_insert_with(Subset::default);
                        let list = Some(parse_list(a.as_deref().unwrap_or("")));
                        match o {
                            's' => s.start = list,
                            'S' => s.stride = list,
                            'c' => s.count = list,
                            _ => s.block = list,
                        }
                    }
                    match g.next() {
                        Some(Ok((n @ ('s' | 'S' | 'c' | 'k'), v))) => {
                            o = n;
                            a = v;
                        }
                        other => {
                            pending = other;
                            break;
                        }
                    }
                }
                last_was_dset = false;
                continue;
            }
            'h' => return Parsed::Exit(USAGE.to_string(), String::new(), 0),
            OPT_LONG_HELP => return Parsed::Exit(format!("{USAGE}{USAGE_OURS}"), String::new(), 0),
            OPT_COMPAT => match arg.as_deref().and_then(ddl::Compat::parse) {
                Some(c) => cmd.opts.compat = c,
                None => {
                    return Parsed::Exit(
                        USAGE.to_string(),
                        format!(
                            "h5dump error: invalid --compat value \"{}\" (1.10 or 2.0)\n",
                            arg.unwrap_or_default()
                        ),
                        1,
                    )
                }
            },
            '$' | '#' => {
                return Parsed::Exit(
                    String::new(),
                    "h5dump error: Read-Only S3 VFD not enabled.\n".into(),
                    1,
                )
            }
            _ => return usage_exit(String::new()),
        }
        pending = g.next();
    }
    // The onion driver: `--vfd-info` is a revision number (h5dump says which it uses as it
    // parses) or `revision_count`; a driver named by value gets the string as it is.
    let mut announced = String::new();
    if cmd.open.driver.as_deref() == Some("onion") {
        match vfd_info.as_deref() {
            Some(info) if vfd_by_value => {
                cmd.open.onion_revision = Some(strtoull(info).unwrap_or(u64::MAX));
            }
            Some("revision_count") => cmd.open.onion_revision_count = true,
            Some(info) => match strtoull(info) {
                Some(r) => {
                    cmd.open.onion_revision = Some(r);
                    announced = format!("Using revision {r}\n");
                }
                None => {
                    return Parsed::Exit(
                        "Invalid onion revision specified\n".into(),
                        String::new(),
                        1,
                    )
                }
            },
            None => cmd.open.onion_revision = Some(0),
        }
    }
    cmd.files = args[g.index.min(args.len())..].to_vec();
    if cmd.files.is_empty() {
        return Parsed::Exit(
            announced + USAGE,
            "h5dump error: missing file name\n".into(),
            1,
        );
    }
    cmd.notice = announced;
    Parsed::Run(Box::new(cmd))
}

/// The driver name of an `H5FD_class_value_t` (`--vfd-value`).
/// What h5dump says of a file driver it cannot set up (`h5tools_get_fapl` of h5dump 1.10.8
/// as distributions build it: no direct, Windows, MPI-IO or HDFS driver, and ROS3 failing at
/// the open), or `None` for the drivers it reads with (and the onion driver of HDF5 2.x).
/// Driver names are case-sensitive.
fn driver_refusal(name: &str, first_file: &str) -> Option<String> {
    match name {
        "sec2" | "stdio" | "core" | "log" | "family" | "split" | "multi" | "onion" => None,
        "hdfs" => Some("h5dump error: The HDFS VFD is not enabled.\n".to_owned()),
        "ros3" => Some(format!(
            "h5dump error: unable to open file \"{first_file}\"\n"
        )),
        _ => Some("h5dump error: unable to create FAPL for file access\n".to_owned()),
    }
}

fn vfd_name_of_value(v: &str) -> Option<&'static str> {
    const NAMES: [&str; 15] = [
        "sec2",
        "core",
        "log",
        "family",
        "multi",
        "stdio",
        "splitter",
        "mpio",
        "direct",
        "mirror",
        "hdfs",
        "ros3",
        "subfiling",
        "ioc",
        "onion",
    ];
    usize::try_from(atoi(v))
        .ok()
        .and_then(|i| NAMES.get(i).copied())
}

/// C's `strtoull(s, NULL, 10)`: leading blanks, an optional sign (a minus negates modulo
/// 2^64), the longest run of digits (none: 0); `None` when the value overflows (`ERANGE`).
fn strtoull(s: &str) -> Option<u64> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits = t.bytes().take_while(u8::is_ascii_digit);
    let mut v: u64 = 0;
    for d in digits {
        v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    Some(if neg { v.wrapping_neg() } else { v })
}

fn atoi(s: &str) -> i64 {
    let t = s.trim_start();
    let mut end = 0;
    for (i, c) in t.char_indices() {
        if c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+')) {
            end = i + 1;
        } else {
            break;
        }
    }
    t[..end].parse().unwrap_or(0)
}

/// Parse `-M offset,length[,offset,length...]` (`parse_mask_list`): at most 8 masks, each
/// within 64 bits.
fn parse_mask_list(h_list: &str) -> Result<Vec<(u32, u32)>, String> {
    let b = h_list.as_bytes();
    let mut p = 0usize;
    let mut out = Vec::new();
    let digits = |p: usize| -> (i64, usize) {
        let mut q = p;
        while q < b.len() && b[q].is_ascii_digit() {
            q += 1;
        }
        (h_list[p..q].parse().unwrap_or(i64::MAX), q)
    };
    while p < b.len() {
        if !b[p].is_ascii_digit() {
            return Err(format!("Bad mask list({})", h_list));
        }
        let (off, q) = digits(p);
        if !(0..64).contains(&off) {
            return Err(format!(
                "Packed Bit offset value({}) must be between 0 and 63",
                off
            ));
        }
        p = q;
        if b.get(p) != Some(&b',') {
            return Err(format!(
                "Bad mask list({}), missing expected comma separator.",
                h_list
            ));
        }
        p += 1;
        if !b.get(p).is_some_and(|c| c.is_ascii_digit()) {
            return Err(format!("Bad mask list({})", h_list));
        }
        let (len, q) = digits(p);
        if len <= 0 {
            return Err(format!(
                "Packed Bit length value({}) must be positive.",
                len
            ));
        }
        if off + len > 64 {
            return Err(format!(
                "Packed Bit offset+length value({}) too large. Max is 64",
                off + len
            ));
        }
        p = q;
        if out.len() >= 8 {
            return Err(format!(
                "Too many masks requested (max. 8). Mask list({})",
                h_list
            ));
        }
        out.push((off as u32, len as u32));
        if b.get(p) == Some(&b',') {
            p += 1;
            if p >= b.len() {
                return Err(format!(
                    "Bad mask list({}), unexpected end of string.",
                    h_list
                ));
            }
        }
    }
    if out.is_empty() {
        return Err(format!("Bad mask list({})", h_list));
    }
    Ok(out)
}

/// Opens a file for printing.
pub type Opener<'a> = dyn Fn(&str) -> Result<Box<dyn DumpFile>, String> + 'a;

/// The result of one `h5 dump` run.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Exit status.
    pub status: i32,
    /// Files written (`-o`, `-O`): name and contents.
    pub files: Vec<(String, Vec<u8>)>,
}

/// Resolve a path from the root (following hard and soft links).
pub fn resolve(file: &dyn DumpFile, path: &str) -> Option<ObjId> {
    resolve_depth(file, path, 0)
}

fn resolve_depth(file: &dyn DumpFile, path: &str, depth: usize) -> Option<ObjId> {
    if depth > 16 {
        return None;
    }
    let mut cur = file.root();
    for comp in path.split('/').filter(|c| !c.is_empty() && *c != ".") {
        let links = file.links(cur, IndexOrder::Name).ok()?;
        let l = links.into_iter().find(|l| l.name == comp)?;
        cur = match l.target {
            LinkTarget::Hard(id) => id,
            LinkTarget::Soft(t) => resolve_depth(file, &t, depth + 1)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// Why `path` does not resolve: the innermost library error message.
fn resolve_failure(file: &dyn DumpFile, path: &str) -> (&'static str, String) {
    let comps: Vec<&str> = path
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    let mut cur = file.root();
    for (i, comp) in comps.iter().enumerate() {
        let links = file.links(cur, IndexOrder::Name).unwrap_or_default();
        let Some(l) = links.into_iter().find(|l| l.name == *comp) else {
            return if i + 1 == comps.len() {
                (
                    "H5G__loc_find_cb",
                    format!("object '{}' doesn't exist", comp),
                )
            } else {
                ("H5G__traverse_real", "component not found".into())
            };
        };
        cur = match l.target {
            LinkTarget::Hard(id) => id,
            LinkTarget::Soft(t) => match resolve(file, &t) {
                Some(id) => id,
                None => return ("H5G__traverse_slink_cb", "component not found".into()),
            },
            LinkTarget::External { file: f, .. } => {
                return (
                    "H5L__extern_traverse",
                    format!(
                        "unable to open external file, external link file name = '{}'",
                        f
                    ),
                )
            }
            LinkTarget::UserDefined(_) => {
                return (
                    "H5G__traverse_ud",
                    "traversal callback returned invalid ID".into(),
                )
            }
        };
    }
    ("H5O_open", "object is of the wrong type".into())
}

/// Find the link named by the last component of `path`.
fn find_link(file: &dyn DumpFile, path: &str) -> Option<model::Link> {
    let trimmed = path.trim_end_matches('/');
    let (parent, name) = match trimmed.rfind('/') {
        Some(i) => (&trimmed[..i], &trimmed[i + 1..]),
        None => ("", trimmed),
    };
    let pid = resolve(file, parent)?;
    file.links(pid, IndexOrder::Name)
        .ok()?
        .into_iter()
        .find(|l| l.name == name)
}

/// Run `h5 dump` with these arguments, opening files with `open`.
pub fn run_with(args: &[String], open: &Opener<'_>) -> Outcome {
    run_streaming(args, open, None)
}

/// Standard output text: to the sink as it comes, or gathered in the outcome.
fn emit(outcome: &mut Outcome, sink: &Option<render::Sink>, text: &str) {
    match sink {
        Some(s) => s.write(text),
        None => outcome.stdout.push_str(text),
    }
}

/// Like [`run_with`], but standard output is written to `sink` as it is rendered (the
/// outcome's `stdout` stays empty), so memory stays bounded whatever the dataset's size.
pub fn run_streaming(args: &[String], open: &Opener<'_>, sink: Option<render::Sink>) -> Outcome {
    run_streaming_to(args, open, sink, None)
}

/// Like [`run_streaming`], and output files (`-o`, `-O`) are written to `files` as they are
/// rendered (the outcome's `files` then stay empty).
pub fn run_streaming_to(
    args: &[String],
    open: &Opener<'_>,
    sink: Option<render::Sink>,
    files: Option<render::FileSink>,
) -> Outcome {
    let cmd = match parse(args) {
        Parsed::Exit(o, e, s) => {
            return Outcome {
                stdout: o,
                stderr: e,
                status: s,
                files: Vec::new(),
            }
        }
        Parsed::Run(c) => c,
    };
    let mut outcome = Outcome::default();
    emit(&mut outcome, &sink, &cmd.notice);
    if cmd.binary.is_some() && cmd.output.is_none() {
        outcome.stderr =
            "h5dump error: binary output requires a file name, use -o <filename>\n".into();
        outcome.status = 1;
        return outcome;
    }
    if cmd.xml {
        if let Some(why) = xml_conflict(&cmd) {
            outcome.stderr = format!("h5dump error: option \"{}\" not available for XML\n", why);
            outcome.status = 1;
            return outcome;
        }
    } else if let Some(uri) = &cmd.xml_settings.dtd_uri {
        outcome.stderr = format!(
            "h5dump warning: option \"--xml-dtd\" only applies with XML: {}\n",
            uri
        );
    }
    if cmd.open.onion_revision_count {
        // h5dump asks the driver for the first file's revision count instead of dumping.
        if let Some(fname) = cmd.files.first() {
            match reader::onion_revision_count(fname) {
                Ok(n) => outcome.stdout.push_str(&format!(
                    "The number of revisions for the onion file is {n}\n"
                )),
                Err(_) => {
                    outcome
                        .stderr
                        .push_str("h5dump error: unable to create FAPL for file access\n");
                    outcome.status = 1;
                }
            }
        }
        return outcome;
    }
    if let (Some(name), Some(first)) = (cmd.open.driver.as_deref(), cmd.files.first()) {
        if let Some(why) = driver_refusal(name, first) {
            outcome.stderr.push_str(&why);
            outcome.status = 1;
            return outcome;
        }
    }
    let mut xml_settings = cmd.xml_settings.clone();
    // One library for the whole run: identifiers keep counting from file to file.
    let ids = oid::Ids::default();
    for fname in &cmd.files {
        let file = match open(fname) {
            Ok(f) => f,
            Err(_) => {
                outcome.stderr.push_str(&format!(
                    "h5dump error: unable to open file \"{}\"\n",
                    fname
                ));
                outcome.status = 1;
                return outcome;
            }
        };
        if cmd.xml {
            let mut x = xml::dump_file(
                file.as_ref(),
                &cmd.opts,
                &mut xml_settings,
                sink.clone(),
                files.clone(),
            );
            emit(&mut outcome, &sink, &x.stdout);
            outcome.stderr.push_str(&x.stderr);
            outcome.files.append(&mut x.files);
            if x.status != 0 {
                outcome.status = x.status;
                if x.stdout.is_empty() {
                    return outcome;
                }
            }
            continue;
        }
        let mut d = Dumper::new(file.as_ref(), cmd.opts.clone());
        d.ids = ids.clone();
        d.out.sink = sink.clone();
        d.out.file_sink = files.clone();
        if files.is_some() && cmd.output.is_some() {
            // Data to a file: a bar over the datasets, on a terminal.
            let datasets = value::first_paths(file.as_ref())
                .values()
                .filter(|(_, k)| *k == ObjKind::Dataset)
                .count() as u64;
            let bar = crate::progress::Progress::new(datasets, "datasets");
            d.out.progress = Some(std::rc::Rc::new(bar));
        }
        d.ext_open = Some(open);
        d.file_key = ddl::file_key(fname);
        d.file_name = fname.clone();
        d.root_key = d.file_key.clone();
        if let Err(e) = d.build_tables() {
            // h5dump stops when it cannot build its object tables ("internal error").
            d.error_msg(&e);
            outcome.stderr.push_str(&d.err);
            outcome.stderr.push_str("h5dump error: internal error\n");
            outcome.status = 1;
            return outcome;
        }
        d.out.put(&format!("HDF5 \"{}\" {{", fname));
        if let Some(level) = cmd.contents {
            d.out.put("\n");
            d.dump_fcontents(level > 0);
            d.out.put("}\n");
            emit(&mut outcome, &sink, &d.out.text);
            outcome.stderr.push_str(&d.err);
            if d.status != 0 {
                outcome.status = d.status;
            }
            return outcome;
        }
        if cmd.opts.display_bb {
            dump_superblock(&mut d);
        }
        if cmd.handlers.is_empty() {
            d.dump_indent += COL;
            let root = d.file.root();
            d.dump_group(root, "/");
            d.dump_indent -= COL;
            d.out.put("\n");
        } else {
            for h in &cmd.handlers {
                run_handler(&mut d, h);
            }
            d.out.put("\n");
        }
        d.out.put("}\n");
        // The bar goes before the rest of the text is written.
        drop(d.out.progress.take());
        emit(&mut outcome, &sink, &d.out.text);
        // Only data goes to standard output: h5dump ends it with a newline on closing.
        if cmd.opts.ddl_dest == Dest::Null && cmd.opts.data_dest == Dest::Stdout {
            emit(&mut outcome, &sink, "\n");
        }
        outcome.files.append(&mut d.out.files);
        outcome.stderr.push_str(&d.err);
        if d.status != 0 {
            outcome.status = d.status;
        }
    }
    outcome
}

/// The first option that XML output refuses, as h5dump names it.
fn xml_conflict(cmd: &Command) -> Option<&'static str> {
    if !cmd.handlers.is_empty() {
        Some("to display selected objects")
    } else if cmd.opts.display_bb {
        Some("--boot-block")
    } else if cmd.opts.display_oid {
        Some("--object-ids")
    } else if cmd.opts.display_char {
        Some("--string")
    } else if cmd.output.is_some() {
        Some("--output")
    } else {
        None
    }
}

fn dump_superblock(d: &mut Dumper<'_>) {
    let sb = match d.file.superblock() {
        Ok(s) => s,
        Err(e) => {
            d.error_msg(&e);
            d.status = 1;
            return;
        }
    };
    let ind = |n: usize| " ".repeat(n);
    let mut s = String::new();
    s.push_str("\nSUPER_BLOCK {\n");
    let lines = [
        format!("SUPERBLOCK_VERSION {}", sb.super_version),
        format!("FREELIST_VERSION {}", sb.freelist_version),
        format!("SYMBOLTABLE_VERSION {}", sb.symboltable_version),
        format!("OBJECTHEADER_VERSION {}", sb.objectheader_version),
        format!("OFFSET_SIZE {}", sb.offset_size),
        format!("LENGTH_SIZE {}", sb.length_size),
        format!("BTREE_RANK {}", sb.btree_rank),
        format!("BTREE_LEAF {}", sb.btree_leaf),
        format!("ISTORE_K {}", sb.istore_k),
        format!("FILE_SPACE_STRATEGY {}", sb.fs_strategy),
        format!(
            "FREE_SPACE_PERSIST {}",
            if sb.fs_persist { "TRUE" } else { "FALSE" }
        ),
        format!("FREE_SPACE_SECTION_THRESHOLD {}", sb.fs_threshold),
        format!("FILE_SPACE_PAGE_SIZE {}", sb.fs_page_size),
    ];
    for l in lines {
        s.push_str(&ind(COL));
        s.push_str(&l);
        s.push('\n');
    }
    s.push_str(&ind(COL));
    s.push_str("USER_BLOCK {\n");
    s.push_str(&ind(2 * COL));
    s.push_str(&format!("USERBLOCK_SIZE {}\n", sb.userblock_size));
    s.push_str(&ind(COL));
    s.push_str("}\n}");
    d.out.put(&s);
}

fn run_handler(d: &mut Dumper<'_>, h: &Handler) {
    match h {
        Handler::Dataset(name, sub) => handle_dataset(d, name, sub.as_ref()),
        Handler::Group(name) => match resolve(d.file, name)
            .filter(|id| d.file.object_info(*id).map(|o| o.kind) == Ok(ObjKind::Group))
        {
            Some(id) => {
                d.prefix = name.clone();
                d.dump_indent += COL;
                d.dump_group(id, name);
                d.dump_indent -= COL;
            }
            None => {
                d.out.put(&format!("\nGROUP \"{}\" {{\n", name));
                d.out.put(&" ".repeat(COL));
                d.error_msg(&format!("unable to open group \"{}\"", name));
                d.out.put("}");
                d.status = 1;
            }
        },
        Handler::Attribute(a) => handle_attribute(d, a),
        Handler::Datatype(name) => handle_datatype(d, name),
        Handler::Link(name) => handle_link(d, name),
        Handler::AnyPath(p) => handle_any_path(d, p),
    }
}

fn handle_dataset(d: &mut Dumper<'_>, name: &str, sub: Option<&Subset>) {
    let id = resolve(d.file, name)
        .filter(|id| d.file.object_info(*id).map(|o| o.kind) == Ok(ObjKind::Dataset));
    let Some(id) = id else {
        let (func, why) = resolve_failure(d.file, name);
        d.diag(&[("H5Dopen2", "unable to open dataset"), (func, &why)]);
        handle_link(d, name);
        return;
    };
    // `handle_datasets` opens the dataset before anything else.
    let oid = d.ids.open(ObjKind::Dataset);
    // A subset with some of its four parts missing gets the defaults for those: start 0,
    // stride 1, count 1, block 1 (`handle_datasets`).
    let filled;
    let sub = match sub {
        Some(s) => {
            let ndims = d
                .file
                .dataset(id)
                .map(|i| i.space.dims().len())
                .unwrap_or(0);
            let mut s = s.clone();
            s.start.get_or_insert_with(|| vec![0; ndims]);
            s.stride.get_or_insert_with(|| vec![1; ndims]);
            s.count.get_or_insert_with(|| vec![1; ndims]);
            s.block.get_or_insert_with(|| vec![1; ndims]);
            filled = s;
            Some(&filled)
        }
        None => None,
    };
    if let Some(s) = sub {
        let ndims = d
            .file
            .dataset(id)
            .map(|i| i.space.dims().len())
            .unwrap_or(0);
        let checks = [
            ("start", &s.start),
            ("stride", &s.stride),
            ("count", &s.count),
            ("block", &s.block),
        ];
        for (what, v) in checks {
            if let Some(v) = v {
                if v.len() > ndims {
                    d.error_msg(&format!(
                        "number of {} dims ({}) exceed dataset dims ({})",
                        what,
                        v.len(),
                        ndims
                    ));
                    d.status = 1;
                    return;
                }
            }
        }
        let get = |v: &Option<Vec<u64>>, i: usize| v.as_ref().and_then(|v| v.get(i)).copied();
        for i in 0..ndims {
            if get(&s.count, i).unwrap_or(1) > 1
                && get(&s.stride, i).unwrap_or(1) < get(&s.block, i).unwrap_or(1)
            {
                d.error_msg("wrong subset selection; blocks overlap");
                d.status = 1;
                return;
            }
        }
    }
    let refcount = d.file.object_info(id).map(|o| o.refcount).unwrap_or(1);
    if refcount > 1 {
        if let Some(n) = d.displayed_dataset(id) {
            let ind = " ".repeat(d.dump_indent);
            d.out.put(&format!(
                "\n{}DATASET \"{}\" {{\n{}HARDLINK \"{}\"\n{}}}",
                ind,
                name,
                " ".repeat(d.dump_indent + COL),
                n,
                ind
            ));
            return;
        }
    }
    d.dump_indent += COL;
    d.pending_oid = oid;
    d.dump_dataset(id, name, sub);
    d.dump_indent -= COL;
}

fn handle_link(d: &mut Dumper<'_>, name: &str) {
    match find_link(d.file, name) {
        None => {
            d.error_msg(&format!("unable to get link info from \"{}\"", name));
            d.status = 1;
        }
        Some(l) => match l.target {
            LinkTarget::Hard(_) => {
                d.error_msg(&format!("\"{}\" is a hard link", name));
                d.status = 1;
            }
            LinkTarget::Soft(t) => {
                d.out.put(&format!(
                    "\nSOFTLINK \"{}\" {{\n{}LINKTARGET \"{}\"\n}}",
                    name,
                    " ".repeat(COL),
                    t
                ));
            }
            LinkTarget::External { file, path } => {
                d.out.put(&format!(
                    "\nEXTERNAL_LINK \"{}\" {{\n{}TARGETFILE \"{}\"\n{}TARGETPATH \"{}\"\n}}",
                    name,
                    " ".repeat(COL),
                    file,
                    " ".repeat(COL),
                    path
                ));
            }
            LinkTarget::UserDefined(c) => {
                d.out.put(&format!(
                    "\nUSERDEFINED_LINK \"{}\" {{\n{}LINKCLASS {}\n}}",
                    name,
                    " ".repeat(COL),
                    c
                ));
            }
        },
    }
}

fn handle_datatype(d: &mut Dumper<'_>, name: &str) {
    let id = resolve(d.file, name)
        .filter(|id| d.file.object_info(*id).map(|o| o.kind) == Ok(ObjKind::NamedDatatype));
    if id.is_none() {
        let (func, why) = resolve_failure(d.file, name);
        d.diag(&[("H5Topen2", "unable to open named datatype"), (func, &why)]);
    }
    let id = id.or_else(|| d.anonymous_type(name));
    match id {
        Some(id) => {
            d.dump_indent += COL;
            d.dump_named_datatype(id, name);
            d.dump_indent -= COL;
        }
        None => {
            d.out
                .put(&format!("\nDATATYPE \"{}\" {{\n{}", name, " ".repeat(COL)));
            d.error_msg(&format!("unable to open datatype \"{}\"", name));
            d.out.put("}");
            d.status = 1;
        }
    }
}

fn handle_attribute(d: &mut Dumper<'_>, attr: &str) {
    let b = attr.as_bytes();
    let mut j = b.len() as isize - 1;
    while j >= 0 {
        let ju = j as usize;
        if b[ju] == b'/' && (ju == 0 || b[ju - 1] != b'\\') {
            break;
        }
        j -= 1;
    }
    let obj_name = if j < 0 {
        "/".to_string()
    } else {
        attr[..=(j as usize)].to_string()
    };
    let attr_name = attr[((j + 1) as usize)..].replace("\\/", "/");
    d.dump_indent += COL;
    let info = d.format();
    let mut ctx = render::Ctx::at(d.dump_indent);
    ctx.display_index = d.opts.display_ai;
    ctx.display_char = d.opts.display_char;
    match resolve(d.file, &obj_name) {
        None => {
            d.out
                .line(&info, &mut ctx, &format!("ATTRIBUTE \"{}\" {{", attr));
            d.error_msg(&format!("unable to open object \"{}\"", obj_name));
            d.out.line(&info, &mut ctx, "}");
            d.status = 1;
        }
        Some(oid) => {
            let attrs = d.file.attributes(oid, IndexOrder::Name).unwrap_or_default();
            match attrs.into_iter().find(|a| a.name == attr_name) {
                Some(a) => d.dump_attribute(&info, &mut ctx, oid, &a),
                None => {
                    d.out
                        .line(&info, &mut ctx, &format!("ATTRIBUTE \"{}\" {{", attr_name));
                    d.error_msg(&format!("unable to open attribute \"{}\"", attr_name));
                    d.out.line(&info, &mut ctx, "}");
                    d.status = 1;
                }
            }
        }
    }
    d.dump_indent -= COL;
}

fn handle_any_path(d: &mut Dumper<'_>, op_name: &str) {
    // `handle_paths`: visit every object from the root; print attributes named like the last
    // component of the path, the object whose path is the path, and soft or external links
    // with that path.
    let root = d.file.root();
    // Identifiers (`-i`): the root group is opened and the walk registers its start, then
    // each object visited is opened to look at its attributes (`H5Aiterate_by_name`).
    d.ids.open(ObjKind::Group);
    d.ids.open(ObjKind::Group);
    let mut seen = std::collections::HashSet::new();
    seen.insert(root);
    any_path_obj(d, "/", root, op_name);
    any_path_walk(d, root, "", op_name, &mut seen);
}

fn any_path_obj(d: &mut Dumper<'_>, path: &str, id: ObjId, op_name: &str) {
    let b = op_name.as_bytes();
    let mut j = b.len() as isize - 1;
    while j >= 0 {
        let ju = j as usize;
        if b[ju] == b'/' && (ju == 0 || b[ju - 1] != b'\\') {
            break;
        }
        j -= 1;
    }
    let wanted = op_name[(j + 1) as usize..].replace("\\/", "/");
    if d.opts.display_oid {
        if let Ok(o) = d.file.object_info(id) {
            d.ids.open(o.kind);
        }
    }
    let attrs = d.file.attributes(id, IndexOrder::Name).unwrap_or_default();
    for a in attrs {
        if a.name == wanted {
            let obj_name = if op_name.starts_with('/') {
                op_name.to_string()
            } else if path.ends_with('/') {
                format!("{}{}", path, op_name)
            } else {
                format!("{}/{}", path, op_name)
            };
            handle_attribute(d, &obj_name);
        }
    }
    if path == op_name {
        match d.file.object_info(id).map(|o| o.kind) {
            Ok(ObjKind::Group) => run_handler(d, &Handler::Group(path.to_string())),
            Ok(ObjKind::Dataset) => handle_dataset(d, path, None),
            Ok(ObjKind::NamedDatatype) => handle_datatype(d, path),
            Err(_) => {
                d.error_msg("unknown object type value");
                d.status = 1;
            }
        }
    }
}

fn any_path_walk(
    d: &mut Dumper<'_>,
    group: ObjId,
    path: &str,
    op_name: &str,
    seen: &mut std::collections::HashSet<ObjId>,
) {
    let links = d.file.links(group, IndexOrder::Name).unwrap_or_default();
    let search = if op_name.starts_with('/') {
        op_name.to_string()
    } else {
        format!("/{}", op_name)
    };
    for l in links {
        let full = format!("{}/{}", path, l.name);
        match l.target {
            LinkTarget::Hard(id) => {
                any_path_obj(d, &full, id, op_name);
                let first = seen.insert(id);
                if first && d.file.object_info(id).map(|o| o.kind) == Ok(ObjKind::Group) {
                    any_path_walk(d, id, &full, op_name, seen);
                }
            }
            LinkTarget::Soft(_) | LinkTarget::External { .. } => {
                if full == search {
                    handle_link(d, op_name);
                }
            }
            LinkTarget::UserDefined(_) => {
                if full == search {
                    d.error_msg("unknown link type value");
                    d.status = 1;
                }
            }
        }
    }
}

impl Dumper<'_> {
    /// The first path of a dataset if it was already displayed; marks it displayed otherwise.
    fn displayed_dataset(&mut self, id: ObjId) -> Option<String> {
        self.dataset_seen(id)
    }
}

/// `h5 dump` with the real file reader.
pub fn run(args: &[String]) -> i32 {
    let settings = match parse(args) {
        Parsed::Run(c) => c.open.clone(),
        Parsed::Exit(..) => reader::OpenSettings::default(),
    };
    let open =
        |name: &str| -> Result<Box<dyn DumpFile>, String> { open_file_with(name, &settings) };
    let stdout: std::rc::Rc<std::cell::RefCell<dyn Write>> = std::rc::Rc::new(
        std::cell::RefCell::new(std::io::BufWriter::new(std::io::stdout())),
    );
    let files = render::FileSink::default();
    let o = run_streaming_to(
        args,
        &open,
        Some(render::Sink(stdout.clone())),
        Some(files.clone()),
    );
    for (name, data) in &o.files {
        if let Err(e) = std::fs::write(name, data) {
            eprintln!("h5dump error: cannot write {}: {}", name, e);
        }
    }
    for e in files.finish() {
        eprintln!("h5dump error: {e}");
    }
    let _ = stdout.borrow_mut().write_all(o.stdout.as_bytes());
    let _ = stdout.borrow_mut().flush();
    let _ = std::io::stderr().write_all(o.stderr.as_bytes());
    o.status
}

/// Open a file for dumping with the default settings.
pub fn open_file(name: &str) -> Result<Box<dyn DumpFile>, String> {
    open_file_with(name, &reader::OpenSettings::default())
}

/// Open a file for dumping with the reader.
pub fn open_file_with(
    name: &str,
    settings: &reader::OpenSettings,
) -> Result<Box<dyn DumpFile>, String> {
    Ok(Box::new(reader::open(name, settings)?))
}

#[cfg(test)]
mod tests;
