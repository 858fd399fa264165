//! `h5 diff [OPTIONS] FILE1 FILE2 [OBJ1 [OBJ2]]`: compare two files, groups or datasets the
//! way h5diff 1.10.8 does: its options (its own getopt rules) and its report: the object
//! lists of `-v`, the per-element report of `-r`/`-v`, the messages of `-c`, and its exit
//! statuses (0 same, 1 different, 2 error). What is compared and counted is the library's
//! deep compare ([`h5::io::compare`]); this module parses the options and prints the
//! comparison's events as h5diff prints them.

use std::io::Write;
use std::rc::Rc;

use crate::getopt::{self, Arg, Rules, Scanner};
use h5::format::Addr;
use h5::io::compare::{
    compare_sources, AttributeInfo, DatasetInfo, DiffOptions, ElementDifference, Event,
    NotComparable, Number as Num, NumberDifference, ObjectId, ObjectType, PairRow,
    RefTarget as CmpTarget, Region as CmpRegion, Reporter, Source, SourceRef, Subset, Warning,
};
use h5::io::link::{Link, LinkTarget as Target};
use h5::io::selection::Dataspace;
use h5::types::{ByteOrder, Datatype};

use crate::dump::model::{
    DumpFile, IndexOrder, Layout, LinkTarget, ObjKind, RefTarget, Region, Space,
};

use crate::dump::value::printf_float;

/// h5diff 1.10.8's usage text.
pub const USAGE: &str = include_str!("diff/usage.txt");

/// The options `h5diff` takes that [`USAGE`] does not show (`h5 help diff` prints them after
/// it; `--help` prints [`USAGE`] alone, as h5diff does).
pub const USAGE_OURS: &str = include_str!("diff/usage_ours.txt");

/// The command-line switches (h5diff's `diff_opt_t`): how the report is printed, and what
/// the comparison compares and counts.
#[derive(Clone, Debug, Default)]
struct Opts {
    verbose: bool,
    level: i64,
    quiet: bool,
    report: bool,
    list_not_cmp: bool,
    no_compact_subset: bool,
    /// What is compared and counted: the library's options.
    diff: DiffOptions,
}

enum Parsed {
    Run(Box<Opts>, Vec<String>),
    /// Stop: what goes to standard output, what to standard error, the status.
    Exit(String, String, i32),
}

/// `-d`/`-p` arguments: no hexadecimal, not negative.
fn valid_real(s: &str) -> bool {
    !(s.len() > 2 && s.starts_with("0x")) && atof(s) >= 0.0
}

/// `-n` arguments: digits only, positive.
fn valid_count(s: &str) -> bool {
    !(s.is_empty() || s.len() > 2 && s.starts_with("0x"))
        && s.bytes().all(|b| b.is_ascii_digit())
        && s.parse::<u64>().is_ok_and(|n| n > 0)
}

/// `atof`: the longest numeric prefix, 0 if none.
fn atof(s: &str) -> f64 {
    let t = s.trim_start();
    (1..=t.len())
        .rev()
        .filter(|&n| t.is_char_boundary(n))
        .find_map(|n| t[..n].parse::<f64>().ok())
        .unwrap_or(0.0)
}

fn atoi(s: &str) -> i64 {
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap_or(0)
}

/// h5diff's long options: name, argument, the short option it stands for.
const LONG: &[(&str, Arg, char)] = &[
    ("compare", Arg::No, 'c'),
    ("delta", Arg::Required, 'd'),
    ("use-system-epsilon", Arg::No, 'e'),
    ("help", Arg::No, 'h'),
    ("follow-symlinks", Arg::No, 'l'),
    ("count", Arg::Required, 'n'),
    ("relative", Arg::Required, 'p'),
    ("quiet", Arg::No, 'q'),
    ("report", Arg::No, 'r'),
    ("verbose", Arg::Optional, 'v'),
    ("no-dangling-links", Arg::No, 'x'),
    ("exclude-attribute", Arg::Required, 'A'),
    ("no-compact-subset", Arg::No, 'C'),
    ("exclude-path", Arg::Required, 'E'),
    ("nan", Arg::No, 'N'),
    ("enable-error-stack", Arg::Optional, 'S'),
    ("version", Arg::No, 'V'),
];

/// h5diff's `get_option` rules: `-v` and `-S` take only an attached value (h5diff gives back a
/// word `get_option` took for `-v`, and reads its level from the option's own word).
const RULES: Rules = Rules {
    short: |c| match c {
        'd' | 'n' | 'p' | 'A' | 'E' => Some(Arg::Required),
        'v' | 'S' => Some(Arg::Optional),
        'c' | 'e' | 'h' | 'l' | 'q' | 'r' | 'x' | 'C' | 'N' | 'V' => Some(Arg::No),
        _ => None,
    },
    // h5diff takes long options by their whole names only.
    long: |name| getopt::whole_name(LONG, name),
    missing_is_error: true,
    get_option: true,
};

fn parse(args: &[String]) -> Parsed {
    let usage = |err: String, code| Parsed::Exit(USAGE.to_string(), err, code);
    let invalid = |c: char, v: &str| {
        Parsed::Exit(
            format!("<-{c} {v}> is not a valid option\n{USAGE}"),
            String::new(),
            1,
        )
    };
    let mut o = Opts::default();
    // As `get_option`: the options end at the first word that is not one (or after `--`);
    // the words from there on are the file and object names.
    let mut scan = Scanner::new(&RULES, args);
    for next in scan.by_ref() {
        let (c, v) = match next {
            Ok(opt) => opt,
            Err(bad) => return usage(bad.message("h5diff"), 1),
        };
        match c {
            'h' => return usage(String::new(), 0),
            'V' => return Parsed::Exit("h5diff: Version 1.10.8\n".into(), String::new(), 0),
            'v' => {
                o.verbose = true;
                o.level = v.as_deref().map_or(0, atoi);
            }
            'q' => o.quiet = true,
            'r' => o.report = true,
            'l' => o.diff.follow_symlinks = true,
            'x' => o.diff.no_dangling_links = true,
            'c' => o.list_not_cmp = true,
            'N' => o.diff.values.no_nans = true,
            'C' => o.no_compact_subset = true,
            'e' => o.diff.values.use_system_epsilon = true,
            'E' => o.diff.exclude_paths.extend(v),
            'A' => o.diff.exclude_attributes.extend(v),
            'd' => {
                let v = v.unwrap_or_default();
                if !valid_real(&v) {
                    return invalid('d', &v);
                }
                o.diff.values.delta = Some(atof(&v));
            }
            'p' => {
                let v = v.unwrap_or_default();
                if !valid_real(&v) {
                    return invalid('p', &v);
                }
                let p = atof(&v);
                o.diff.values.relative = (p != 0.0).then_some(p);
            }
            'n' => {
                let v = v.unwrap_or_default();
                if !valid_count(&v) {
                    return invalid('n', &v);
                }
                o.diff.values.max_differences = v.parse().ok();
            }
            _ => {}
        }
    }
    let mut files: Vec<String> = args[scan.index.min(args.len())..].to_vec();
    let exclusive = usize::from(o.diff.values.delta.is_some())
        + usize::from(o.diff.values.relative.is_some())
        + usize::from(o.diff.values.use_system_epsilon);
    if exclusive > 1 {
        return Parsed::Exit(
            "h5diff error: -d, -p and --use-system-epsilon options are mutually-exclusive;\n\
             use no more than one.\n\
             Try '-h' or '--help' option for more information or see the h5diff entry in the \
             'HDF5 Reference Manual'.\n"
                .into(),
            String::new(),
            1,
        );
    }
    if files.len() < 2 {
        return usage("h5diff error: missing file names\n".into(), 1);
    }
    if !o.no_compact_subset {
        for (k, name) in files.iter_mut().skip(2).take(2).enumerate() {
            if let Some((n, s)) = Subset::split(name) {
                *name = n;
                o.diff.subsets[k] = Some(s);
            }
        }
    }
    o.diff.visit_identical = o.verbose || o.report;
    Parsed::Run(Box::new(o), files)
}

/// One file of the comparison, seen by the library's deep compare, with the files its
/// external links reach.
struct DumpSource<'a> {
    file: Rc<dyn DumpFile>,
    key: String,
    open: &'a crate::dump::Opener<'a>,
}

fn err(e: String) -> h5::io::Error {
    h5::io::Error::new(h5::io::ErrorKind::Format, e)
}

fn dataspace(s: &Space) -> Dataspace {
    match s {
        Space::Null => Dataspace::Null,
        Space::Scalar => Dataspace::Scalar,
        Space::Simple { dims, maxdims } => Dataspace::Simple {
            dims: dims.clone(),
            maxdims: maxdims.clone(),
        },
    }
}

impl<'a> Source<'a> for DumpSource<'a> {
    fn identity(&self) -> &str {
        &self.key
    }
    fn root(&self) -> ObjectId {
        self.file.root()
    }
    fn object_type(&self, id: ObjectId) -> Option<ObjectType> {
        Some(match self.file.object_kind(id).ok()? {
            ObjKind::Group => ObjectType::Group,
            ObjKind::Dataset => ObjectType::Dataset,
            ObjKind::NamedDatatype => ObjectType::Datatype,
        })
    }
    fn links(&self, group: ObjectId) -> h5::io::Result<Vec<Link>> {
        let links = self.file.links(group, IndexOrder::Name).map_err(err)?;
        Ok(links
            .into_iter()
            .map(|l| Link {
                name: l.name,
                target: match l.target {
                    LinkTarget::Hard(id) => Target::Hard(Addr(id)),
                    LinkTarget::Soft(p) => Target::Soft(p),
                    LinkTarget::External { file, path } => Target::External { file, path },
                    LinkTarget::UserDefined(link_type) => Target::UserDefined {
                        link_type,
                        data: Vec::new(),
                    },
                },
                creation_order: None,
                charset: 0,
            })
            .collect())
    }
    fn attributes(&self, obj: ObjectId) -> h5::io::Result<Vec<AttributeInfo>> {
        let attrs = self.file.attributes(obj, IndexOrder::Name).map_err(err)?;
        Ok(attrs
            .into_iter()
            .map(|a| AttributeInfo {
                name: a.name,
                datatype: a.datatype.datatype,
                space: dataspace(&a.space),
            })
            .collect())
    }
    fn attribute_data(&self, obj: ObjectId, name: &str) -> h5::io::Result<Vec<u8>> {
        self.file.attribute_data(obj, name).map_err(err)
    }
    fn dataset(&self, id: ObjectId) -> h5::io::Result<DatasetInfo> {
        let d = self.file.dataset(id).map_err(err)?;
        Ok(DatasetInfo {
            is_virtual: matches!(d.layout, Layout::Virtual { .. }),
            datatype: d.datatype.datatype,
            space: dataspace(&d.space),
            storage_size: d.storage_size,
        })
    }
    fn read(&self, id: ObjectId, start: &[u64], count: &[u64]) -> h5::io::Result<Vec<u8>> {
        self.file.read(id, start, count).map_err(err)
    }
    fn named_datatype(&self, id: ObjectId) -> h5::io::Result<Datatype> {
        self.file.named_datatype(id).map_err(err)
    }
    fn vlen_data(&self, _: &Datatype, descriptor: &[u8]) -> h5::io::Result<Option<Vec<u8>>> {
        self.file.vlen_data(descriptor).map_err(err)
    }
    fn dereference(&self, _: &Datatype, reference: &[u8]) -> h5::io::Result<Option<CmpTarget>> {
        let region = |r: Region| match r {
            Region::Blocks(b) => CmpRegion::Blocks(b),
            Region::Points(p) => CmpRegion::Points(p),
            Region::All | Region::None | Region::Unlimited => CmpRegion::Other,
        };
        Ok(self
            .file
            .dereference(reference)
            .map_err(err)?
            .map(|t| match t {
                RefTarget::Object(id) => CmpTarget::Object(id),
                RefTarget::Region { dataset, selection } => CmpTarget::Region {
                    dataset,
                    selection: region(selection),
                },
            }))
    }
    fn open_external(&self, name: &str) -> Option<SourceRef<'a>> {
        let (f, key) = crate::dump::ddl::open_external(self.open, &self.key, name)?;
        Some(Rc::new(DumpSource {
            file: Rc::from(f),
            key,
            open: self.open,
        }))
    }
}

/// `print_dimensions`.
fn dims_text(dims: &[u64]) -> String {
    if dims.is_empty() {
        return "H5S_SCALAR".into();
    }
    let d: Vec<String> = dims.iter().map(u64::to_string).collect();
    format!("[{}]", d.join("x"))
}

fn class_name(dt: &Datatype) -> &'static str {
    match dt {
        Datatype::Integer(_) => "H5T_INTEGER",
        Datatype::Float(_) => "H5T_FLOAT",
        Datatype::Time(_) => "H5T_TIME",
        Datatype::String(_) => "H5T_STRING",
        Datatype::Bitfield(_) => "H5T_BITFIELD",
        Datatype::Opaque(_) => "H5T_OPAQUE",
        Datatype::Compound(_) => "H5T_COMPOUND",
        Datatype::Reference(_) => "H5T_REFERENCE",
        Datatype::Enum(_) => "H5T_ENUM",
        Datatype::VarLen(_) => "H5T_VLEN",
        Datatype::Array(_) => "H5T_ARRAY",
        Datatype::Complex(_) => "H5T_COMPLEX",
    }
}

/// The name h5diff gives an object kind (`h5trav_type_t`).
fn kind_name(k: ObjectType) -> &'static str {
    match k {
        ObjectType::Group => "H5G_GROUP",
        ObjectType::Dataset => "H5G_DATASET",
        ObjectType::Datatype => "H5G_TYPE",
        ObjectType::Link => "H5G_LINK",
        ObjectType::UdLink => "H5G_UDLINK",
    }
}

/// `%-15g`-style cell.
fn cell(fmt: &str, v: f64) -> String {
    printf_float(fmt, v)
}

/// A character as h5diff prints it in string differences.
fn char_text(c: u8) -> String {
    match c {
        b'\\' => "\\\\".into(),
        b'"' => "\\\"".into(),
        b'\n' => "\\n".into(),
        b'\r' => "\\r".into(),
        b'\t' => "\\t".into(),
        8 => "\\b".into(),
        12 => "\\f".into(),
        0 => "\\000".into(),
        c if c.is_ascii_graphic() || c == b' ' => (c as char).to_string(),
        c => format!("\\{:03o}", c),
    }
}

/// The predefined name of an integer or float type (h5diff's `print_type`).
fn type_name(dt: &Datatype) -> String {
    let order = |o: ByteOrder| {
        if o == ByteOrder::BigEndian {
            "BE"
        } else {
            "LE"
        }
    };
    match dt {
        Datatype::Integer(t) => format!(
            "H5T_STD_{}{}{}",
            if t.is_signed() { "I" } else { "U" },
            8 * t.size(),
            order(t.order())
        ),
        Datatype::Float(t) => format!("H5T_IEEE_F{}{}", 8 * t.size(), order(t.order())),
        _ => "unknown".into(),
    }
}

/// The values being compared: their names and shape, and whether the table's header is out.
struct Values {
    name1: String,
    name2: String,
    dims: Vec<u64>,
    header_printed: bool,
}

/// h5diff's report, printed from the comparison's events.
struct Printer<'a> {
    o: &'a Opts,
    /// The two file names.
    files: [&'a str; 2],
    out: String,
    /// The values being compared, innermost last (a reference's dataset inside a dataset).
    values: Vec<Values>,
    /// The text before each attribute being compared (its report goes first).
    before: Vec<String>,
    progress: Option<crate::progress::Progress>,
}

impl Printer<'_> {
    fn show(&self) -> bool {
        self.o.verbose || self.o.report
    }

    fn tell(&self) -> bool {
        self.o.verbose || self.o.list_not_cmp
    }

    fn print_objname(&self, nfound: u64) -> bool {
        (self.o.verbose || nfound > 0) && !self.o.quiet
    }

    fn objname(&mut self, what: &str, p1: &str, p2: &str) {
        if self.o.level >= 1 {
            self.out.push('\n');
        }
        self.out
            .push_str(&format!("{:<7}: <{}> and <{}>\n", what, p1, p2));
    }

    fn found(&mut self, n: u64) {
        self.out.push_str(&format!("{} differences found\n", n));
    }

    fn end(&mut self, kind: ObjectType, p1: &str, p2: &str, n: u64, external: bool) {
        let what = match kind {
            ObjectType::Dataset => {
                if self.show() {
                    self.found(n);
                } else if n > 0 && !self.o.quiet {
                    self.objname("dataset", p1, p2);
                    self.found(n);
                }
                return;
            }
            ObjectType::Datatype => "datatype",
            ObjectType::Group => "group",
            ObjectType::Link => "link",
            ObjectType::UdLink if external => "external link",
            ObjectType::UdLink => "user defined link",
        };
        if self.print_objname(n) {
            self.objname(what, p1, p2);
        }
        if self.o.verbose {
            self.found(n);
        }
    }

    /// The position of a difference (after the table's header the first time).
    fn pos(&mut self, idx: u64) {
        let relative = self.o.diff.values.relative.is_some();
        let Some(v) = self.values.last_mut() else {
            return;
        };
        let out = &mut self.out;
        if !v.header_printed {
            v.header_printed = true;
            out.push_str(&format!(
                "{:<16}{}{:<11}{}\n",
                "size:",
                dims_text(&v.dims),
                "",
                dims_text(&v.dims)
            ));
            if relative {
                out.push_str(&format!(
                    "{:<15} {:<15} {:<15} {:<15} {:<15}\n",
                    "position", v.name1, v.name2, "difference", "relative"
                ));
                out.push_str(
                    "------------------------------------------------------------------------\n",
                );
            } else {
                out.push_str(&format!(
                    "{:<15} {:<15} {:<15} {:<20}\n",
                    "position", v.name1, v.name2, "difference"
                ));
                out.push_str("------------------------------------------------------------\n");
            }
        }
        if v.dims.is_empty() {
            out.push_str("      ");
        } else {
            out.push_str("[ ");
            for p in h5::io::compare::position(idx, &v.dims) {
                out.push_str(&format!("{} ", p));
            }
            out.push(']');
        }
    }

    fn difference(&mut self, idx: u64, d: ElementDifference<'_>) {
        if !self.show() || d == ElementDifference::NullReference {
            return;
        }
        self.pos(idx);
        let out = &mut self.out;
        match d {
            ElementDifference::Number {
                first: Num::Int(x),
                second: Num::Int(y),
                kind,
            } => {
                let diff = (x - y).unsigned_abs();
                out.push_str("          ");
                match kind {
                    NumberDifference::Absolute => {
                        out.push_str(&format!("{:<15} {:<15} {:<15}\n", x, y, diff))
                    }
                    NumberDifference::NotComparable => out.push_str(&format!(
                        "{:<15} {:<15} {:<15} not comparable\n",
                        x, y, diff
                    )),
                    NumberDifference::Relative(per) => {
                        out.push_str(&format!("{:<15} {:<15} {:<15} {:<14.6}\n", x, y, diff, per))
                    }
                }
            }
            ElementDifference::Number {
                first: Num::Float { value: x, .. },
                second: Num::Float { value: y, .. },
                kind,
            } => {
                out.push_str("          ");
                let diff = (x - y).abs();
                let extra = match kind {
                    NumberDifference::Absolute => None,
                    NumberDifference::NotComparable => Some("not comparable".to_string()),
                    NumberDifference::Relative(per) => Some(cell("%-14.10g", per)),
                };
                match extra {
                    None => out.push_str(&format!(
                        "{} {} {}\n",
                        cell("%-15g", x),
                        cell("%-15g", y),
                        cell("%-15g", diff)
                    )),
                    Some(e) => out.push_str(&format!(
                        "{} {} {} {}\n",
                        cell("%-15.10g", x),
                        cell("%-15.10g", y),
                        cell("%-15.10g", diff),
                        e
                    )),
                }
            }
            ElementDifference::Number { .. } => out.push_str("          "),
            ElementDifference::Char {
                first,
                second,
                second_longer,
            } => {
                // h5diff prints the shorter string's character first (the second's when
                // they are as long).
                let (p, q) = if second_longer {
                    (first, second)
                } else {
                    (second, first)
                };
                out.push_str(&format!(
                    "            {}            {}\n",
                    char_text(p),
                    char_text(q)
                ));
            }
            ElementDifference::Enum { first, second, .. } => {
                let a = first.unwrap_or("**INVALID VALUE**");
                let b = second.unwrap_or("**INVALID VALUE**");
                out.push_str(&format!("          {:<16} {:<17}\n", a, b));
            }
            ElementDifference::NullReference => {}
        }
    }

    fn not_comparable(&mut self, n1: &str, n2: &str, why: &NotComparable) {
        let text = match why {
            NotComparable::ObjectTypes { first, second } => format!(
                "Not comparable: <{}> is of type {} and <{}> is of type {}\n",
                n1,
                kind_name(*first),
                n2,
                kind_name(*second)
            ),
            NotComparable::Classes {
                first,
                second,
                member,
            } => format!(
                "Not comparable: <{}> {} {} and <{}> {} {}\n",
                n1,
                if *member {
                    "has a class"
                } else {
                    "is of class"
                },
                class_name(first),
                n2,
                if *member {
                    "has a class"
                } else {
                    "is of class"
                },
                class_name(second)
            ),
            NotComparable::Time(dt) => format!(
                "Not comparable: <{}> and <{}> are of class {}\n",
                n1,
                n2,
                class_name(dt)
            ),
            NotComparable::Dimensions {
                first,
                first_max,
                second,
                second_max,
            } => {
                let rank_text = |n: &str, d: &[u64], m: &[u64]| {
                    format!(
                        "<{}> has rank {}, dimensions {}, max dimensions {}",
                        n,
                        d.len(),
                        dims_text(d),
                        dims_text(m)
                    )
                };
                format!(
                    "Not comparable: {}\nand {}\n",
                    rank_text(n1, first, first_max),
                    rank_text(n2, second, second_max)
                )
            }
            NotComparable::MixedStrings => format!(
                "Not comparable: <{}> or <{}> is of mixed string type\n",
                n1, n2
            ),
            NotComparable::Members { first, second } => format!(
                "Not comparable: <{}> has {} members <{}> has {} members \n",
                n1, first, n2, second
            ),
            NotComparable::Signs { first, second } => {
                let sign = |s: bool| if s { "H5T_SGN_2" } else { "H5T_SGN_NONE" };
                format!(
                    "Not comparable: <{}> has sign {} and <{}> has sign {}\n",
                    n1,
                    sign(*first),
                    n2,
                    sign(*second)
                )
            }
            NotComparable::Empty => {
                format!("Not comparable: <{}> or <{}> is an empty dataset\n", n1, n2)
            }
            NotComparable::ReferencedTypes => {
                // Always printed, without a line end (as h5diff does).
                self.out.push_str(&format!(
                    "Different object types referenced: <{}> and <{}>",
                    n1, n2
                ));
                return;
            }
            NotComparable::ReferencedObjects => {
                if self.o.verbose {
                    self.out.push_str(&format!(
                        "Warning: Comparison not possible of object types referenced: <{}> and <{}>\n",
                        n1, n2
                    ));
                }
                return;
            }
            NotComparable::Regions | NotComparable::Subsets => return,
            _ => return,
        };
        if self.tell() {
            self.out.push_str(&text);
        }
    }

    fn warning(&mut self, n1: &str, n2: &str, what: &Warning) {
        match what {
            Warning::Virtual if self.tell() => {
                self.out.push_str(&format!(
                    "Warning: <{}> or <{}> is a virtual dataset\n",
                    n1, n2
                ));
            }
            Warning::StorageTypes { first, second } if self.o.verbose => {
                self.out.push_str("Warning: different storage datatype\n");
                if matches!(first, Datatype::Integer(_) | Datatype::Float(_)) {
                    self.out.push_str(&format!(
                        "<{}> has file datatype {}\n<{}> has file datatype {}\n",
                        n1,
                        type_name(first),
                        n2,
                        type_name(second)
                    ));
                }
            }
            Warning::MaxDimensions { first, second } if self.o.verbose => {
                self.out.push_str(&format!(
                        "Warning: different maximum dimensions\n<{}> has max dimensions {}\n<{}> has max dimensions {}\n",
                        n1,
                        dims_text(first),
                        n2,
                        dims_text(second)
                    ));
            }
            _ => {}
        }
    }

    fn pairs(&mut self, named: bool, rows: &[PairRow]) {
        if !self.o.verbose {
            return;
        }
        if self.o.level > 2 {
            self.out.push_str(&format!(
                "file1: {}\nfile2: {}\n",
                self.files[0], self.files[1]
            ));
        }
        self.out.push('\n');
        if named {
            self.out.push_str("group1   group2\n");
        } else {
            self.out.push_str("file1     file2\n");
        }
        self.out
            .push_str("---------------------------------------\n");
        self.rows(rows);
        self.out.push('\n');
    }

    fn rows(&mut self, rows: &[PairRow]) {
        for r in rows {
            let c1 = if r.in_first { 'x' } else { ' ' };
            let c2 = if r.in_second { 'x' } else { ' ' };
            self.out
                .push_str(&format!("{:>5} {:>6}    {:<15}\n", c1, c2, r.name));
        }
    }

    fn attributes(&mut self, rows: &[PairRow]) {
        if self.o.verbose && self.o.level == 2 {
            self.out
                .push_str("   obj1   obj2\n --------------------------------------\n");
            self.rows(rows);
        }
        if self.o.verbose && self.o.level >= 1 {
            let common = rows.iter().filter(|r| r.in_first && r.in_second).count();
            let only1 = rows.iter().filter(|r| !r.in_second).count();
            let only2 = rows.iter().filter(|r| !r.in_first).count();
            self.out.push_str(&format!(
                "Attributes status:  {} common, {} only in obj1, {} only in obj2\n",
                common, only1, only2
            ));
        }
    }

    fn region_blocks(
        &mut self,
        a: ObjectId,
        b: ObjectId,
        b1: &[(Vec<u64>, Vec<u64>)],
        b2: &[(Vec<u64>, Vec<u64>)],
    ) {
        if !self.o.verbose {
            return;
        }
        self.out
            .push_str(&format!("Referenced dataset      {}            {}\n", a, b));
        self.out
            .push_str("------------------------------------------------------------\n");
        self.out.push_str("Region blocks\n");
        for (i, (x, y)) in b1.iter().zip(b2).enumerate() {
            self.out.push_str(&format!(
                "block #{}        {})-{})        {})-{})\n",
                i,
                coords(&x.0, "   ("),
                coords(&x.1, "("),
                coords(&y.0, "   ("),
                coords(&y.1, "(")
            ));
        }
    }

    fn region_points(&mut self, p1: &[Vec<u64>], p2: &[Vec<u64>]) {
        if !self.o.verbose {
            return;
        }
        self.out.push_str("Region points\n");
        for (i, (x, y)) in p1.iter().zip(p2).enumerate() {
            if x != y {
                self.out.push_str(&format!(
                    "point #{}              {})              {})\n",
                    i,
                    coords(x, "("),
                    coords(y, "(")
                ));
            }
        }
    }
}

/// Coordinates as h5diff lists them in region differences.
fn coords(v: &[u64], open: &str) -> String {
    v.iter()
        .enumerate()
        .map(|(j, c)| format!("{}{}", if j > 0 { "," } else { open }, c))
        .collect::<String>()
}

impl Reporter for Printer<'_> {
    fn event(&mut self, e: Event<'_>) {
        match e {
            Event::ObjectNotFound { side, path } => {
                let file = self.files[side.min(1)];
                self.out.push_str(&format!(
                    "Object <{}> could not be found in <{}>\n",
                    path, file
                ));
            }
            Event::DanglingRefused { path } if self.o.verbose => {
                self.out
                    .push_str(&format!("Warning: <{}> is a dangling link.\n", path));
            }
            Event::Dangling { side, path } if self.o.verbose => {
                self.out
                    .push_str(&format!("obj{} <{}> is a dangling link.\n", side + 1, path));
            }
            Event::NamedDangling => self.found(1),
            Event::Pairs { named, rows } => self.pairs(named, rows),
            Event::Comparing(n) => {
                self.progress = Some(crate::progress::Progress::new(n, "objects"));
            }
            Event::Compared => {
                if let Some(p) = &self.progress {
                    p.step();
                }
            }
            Event::BothDangling { first, second } if self.print_objname(0) => {
                self.objname("dangling link", first, second);
                self.found(0);
            }
            Event::OneDangling if self.print_objname(1) => {
                self.found(1);
            }
            Event::SameObject {
                kind,
                first,
                second,
            } if self.show() => {
                let what = match kind {
                    ObjectType::Dataset => "dataset",
                    ObjectType::Datatype => "datatype",
                    ObjectType::Group => "group",
                    ObjectType::Link => "link",
                    ObjectType::UdLink => "external link",
                };
                self.objname(what, first, second);
                self.found(0);
            }
            Event::Begin {
                kind: ObjectType::Dataset,
                first,
                second,
            } if self.show() => {
                self.objname("dataset", first, second);
            }
            Event::Begin { .. } => {}
            Event::End {
                kind,
                first,
                second,
                differences,
                external,
            } => self.end(kind, first, second, differences, external),
            Event::NotComparable { first, second, why } => self.not_comparable(first, second, why),
            Event::Warning {
                first,
                second,
                what,
            } => self.warning(first, second, what),
            Event::BadSubset { path, why } => {
                self.out.push_str(&format!("h5diff: <{}>: {why}\n", path));
            }
            Event::ValuesBegin {
                first,
                second,
                dims,
            } => self.values.push(Values {
                name1: first.to_string(),
                name2: second.to_string(),
                dims: dims.to_vec(),
                header_printed: false,
            }),
            Event::Difference { index, difference } => self.difference(index, difference),
            Event::ValuesEnd => {
                self.values.pop();
            }
            Event::RegionBlocks {
                first,
                second,
                first_blocks,
                second_blocks,
            } => self.region_blocks(first, second, first_blocks, second_blocks),
            Event::RegionPoints {
                first_points,
                second_points,
            } => self.region_points(first_points, second_points),
            Event::Attributes { rows } => self.attributes(rows),
            Event::AttributeBegin { .. } => {
                let before = std::mem::take(&mut self.out);
                self.before.push(before);
            }
            Event::AttributeEnd {
                first,
                second,
                differences,
            } => {
                let before = self.before.pop().unwrap_or_default();
                let body = std::mem::replace(&mut self.out, before);
                if self.show() {
                    self.out
                        .push_str(&format!("attribute: <{}> and <{}>\n", first, second));
                    self.out.push_str(&body);
                    self.found(differences);
                } else if differences > 0 && !self.o.quiet {
                    self.out
                        .push_str(&format!("attribute: <{}> and <{}>\n", first, second));
                    self.found(differences);
                }
            }
            _ => {}
        }
    }
}

/// `h5 diff` with files opened by `open`: writes the report to `out`, returns the status.
pub fn run_with(args: &[String], open: &crate::dump::Opener<'_>, out: &mut dyn Write) -> i32 {
    let (o, names) = match parse(args) {
        Parsed::Run(o, n) => (*o, n),
        Parsed::Exit(text, err, code) => {
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
            eprint!("{err}");
            return code;
        }
    };
    let (text, status) = compare(&o, &names, open);
    let _ = out.write_all(text.as_bytes());
    status
}

/// The report and exit status of the comparison of the files and objects `names`.
fn compare(o: &Opts, names: &[String], open: &crate::dump::Opener<'_>) -> (String, i32) {
    if o.quiet && (o.verbose || o.report) {
        let text = "Error: -q (quiet mode) cannot be added to verbose or report modes\n";
        return (text.into(), 2);
    }
    if o.diff.no_dangling_links && !o.diff.follow_symlinks {
        let text = "Error: --no-dangling-links must be used along with --follow-symlinks option.\n";
        return (text.into(), 2);
    }
    let mut sides: Vec<SourceRef<'_>> = Vec::new();
    for name in &names[..2] {
        match open(name) {
            Ok(f) => sides.push(Rc::new(DumpSource {
                file: Rc::from(f),
                key: crate::dump::ddl::file_key(name),
                open,
            })),
            Err(_) => return (format!("h5diff: <{}>: unable to open file\n", name), 2),
        }
    }
    let mut p = Printer {
        o,
        files: [&names[0], &names[1]],
        out: String::new(),
        values: Vec::new(),
        before: Vec::new(),
        progress: None,
    };
    let second = sides.pop();
    let first = sides.pop();
    let (Some(first), Some(second)) = (first, second) else {
        return (String::new(), 2);
    };
    let objects = (
        names.get(2).map(String::as_str),
        names.get(3).map(String::as_str),
    );
    let summary = compare_sources(first, second, objects, &o.diff, &mut p);
    drop(p.progress.take());
    let mut text = p.out;
    if !o.quiet && summary.not_comparable && !o.list_not_cmp {
        text.push_str("--------------------------------\nSome objects are not comparable\n--------------------------------\n");
        if o.verbose {
            text.push_str("Use -c for a list of objects without details of differences.\n");
        } else {
            text.push_str("Use -c for a list of objects.\n");
        }
    }
    (text, summary.exit_status())
}

/// `h5 diff` with the real file reader.
pub fn run(args: &[String]) -> i32 {
    let open = |name: &str| crate::dump::open_file(name);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let status = run_with(args, &open, &mut out);
    let _ = out.flush();
    status
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dump::memory::MemoryFile;

    fn file(values: &[i32]) -> MemoryFile {
        let mut f = MemoryFile::new();
        let root = f.root;
        let t: Datatype = "H5T_STD_I32LE".parse().unwrap();
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        f.add_dataset(root, "d", t, Space::simple(&[values.len() as u64]), bytes);
        f
    }

    fn diff(args: &[&str]) -> (String, i32) {
        let open = |name: &str| -> Result<Box<dyn DumpFile>, String> {
            match name {
                "a.h5" => Ok(Box::new(file(&[1, 2, 3, 100]))),
                "b.h5" => Ok(Box::new(file(&[1, 5, 3, 120]))),
                _ => Err("no such file".into()),
            }
        };
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let mut out = Vec::new();
        let status = run_with(&args, &open, &mut out);
        (String::from_utf8(out).unwrap(), status)
    }

    #[test]
    fn reports_differences_and_statuses() {
        assert_eq!(diff(&["a.h5", "a.h5"]), (String::new(), 0));
        let (out, status) = diff(&["a.h5", "b.h5"]);
        assert_eq!(out, "dataset: </d> and </d>\n2 differences found\n");
        assert_eq!(status, 1);
        let (out, _) = diff(&["-r", "a.h5", "b.h5", "d"]);
        assert!(
            out.contains("[ 1 ]          2               5               3"),
            "{out}"
        );
        // -d: only differences above the delta; -p: relative to the first value.
        assert_eq!(
            diff(&["-d", "5", "a.h5", "b.h5", "d"]).0,
            "dataset: </d> and </d>\n1 differences found\n"
        );
        assert_eq!(
            diff(&["-p", "0.5", "a.h5", "b.h5", "d"]).0,
            "dataset: </d> and </d>\n1 differences found\n"
        );
        assert_eq!(diff(&["-q", "a.h5", "b.h5"]), (String::new(), 1));
    }

    #[test]
    fn subsets_after_object_names() {
        let (name, s) = Subset::split("/g1/array3D[0,0,0;2,2,1;2,2,2;]").unwrap();
        assert_eq!(name, "/g1/array3D");
        assert_eq!(
            s.indices(&[4, 3, 2]).unwrap(),
            vec![vec![0, 2], vec![0, 2], vec![0, 1]]
        );
        // START only: one element; blocks widen each step.
        let (_, s) = Subset::split("d[1]").unwrap();
        assert_eq!(s.indices(&[4]).unwrap(), vec![vec![1]]);
        let (_, s) = Subset::split("d[0;3;2;2]").unwrap();
        assert_eq!(s.indices(&[6]).unwrap(), vec![vec![0, 1, 3, 4]]);
        // Past the extent, or of the wrong rank: an error.
        assert!(s.indices(&[4]).is_err());
        assert!(s.indices(&[6, 6]).is_err());
        assert_eq!(Subset::split("/plain"), None);
        // Through the command line: elements 1 and 2 of d compared, with their positions.
        let (out, status) = diff(&["-r", "a.h5", "b.h5", "d[1;;2]"]);
        assert_eq!(status, 1);
        assert!(out.contains("[ 1 ]          2               5"), "{out}");
        assert!(out.ends_with("1 differences found\n"), "{out}");
        // -C: the brackets are part of the name.
        assert_eq!(diff(&["-C", "a.h5", "b.h5", "d[1]"]).1, 2);
    }

    #[test]
    fn errors_exit_2_and_bad_options_1() {
        let (out, status) = diff(&["a.h5", "b.h5", "nosuch"]);
        assert_eq!(out, "Object </nosuch> could not be found in <a.h5>\n");
        assert_eq!(status, 2);
        assert_eq!(diff(&["a.h5", "c.h5"]).1, 2);
        assert_eq!(diff(&["-q", "-v", "a.h5", "b.h5"]).1, 2);
        let (out, status) = diff(&["-d", "-4", "a.h5", "b.h5"]);
        assert!(out.starts_with("<-d -4> is not a valid option\nusage: h5diff"));
        assert_eq!(status, 1);
        assert_eq!(diff(&["--bogus", "a.h5", "b.h5"]), (USAGE.to_string(), 1));
        assert_eq!(diff(&["a.h5"]).1, 1);
    }
}
