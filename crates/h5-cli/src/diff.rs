//! `h5 diff [OPTIONS] FILE1 FILE2 [OBJ1 [OBJ2]]`: compare two files, groups or datasets the
//! way h5diff 1.10.8 does: its options (its own getopt rules), the object lists of `-v`, the
//! per-element report of `-r`/`-v`, attributes, symbolic links, tolerances (`-d`, `-p`,
//! `--use-system-epsilon`), NaN handling, and its exit statuses (0 same, 1 different, 2 error).

use std::io::Write;
use std::rc::Rc;

use crate::getopt::{Arg, Rules, Scanned};
use h5::types::{ByteOrder, Datatype, ReferenceKind};

use crate::dump::model::{
    DumpFile, IndexOrder, Layout, LinkTarget, ObjId, ObjKind, RefTarget, Region, Space,
};
use h5::io::compare::{
    char_differences, compare_numbers, leaf_pairs, CompareOptions, Number as Num, NumberDifference,
};

use crate::dump::value::printf_float;

/// h5diff 1.10.8's usage text.
pub const USAGE: &str = include_str!("diff/usage.txt");

/// The command-line switches (h5diff's `diff_opt_t`).
#[derive(Clone, Debug, Default)]
struct Opts {
    verbose: bool,
    level: i64,
    quiet: bool,
    report: bool,
    follow: bool,
    no_dangle: bool,
    list_not_cmp: bool,
    /// The tolerances, NaN rule and count (`-d`, `-p`, `--use-system-epsilon`, `--nan`,
    /// `-n`): the library's comparison options.
    compare: CompareOptions,
    exclude: Vec<String>,
    exclude_attr: Vec<String>,
    no_compact_subset: bool,
    /// The `[START;STRIDE;COUNT;BLOCK]` subsets of the two named objects.
    subset: [Option<Subset>; 2],
}

/// A regular hyperslab given after an object's name (`obj[START;STRIDE;COUNT;BLOCK]`,
/// h5diff's `subset_t`); an absent list defaults to 0 (START) or 1 in every dimension.
#[derive(Clone, Debug, Default, PartialEq)]
struct Subset {
    start: Option<Vec<u64>>,
    stride: Option<Vec<u64>>,
    count: Option<Vec<u64>>,
    block: Option<Vec<u64>>,
}

impl Subset {
    /// Split `name[...]` into the name and its subset (`parse_subset_params`: from the last
    /// `[`; each `;`-separated field a comma-separated list of integers).
    fn split(name: &str) -> Option<(String, Subset)> {
        let at = name.rfind('[')?;
        let body = name[at + 1..].trim_end_matches(']');
        let mut fields = body.split(';');
        let mut list = || -> Option<Vec<u64>> {
            let f = fields.next()?.trim();
            if f.is_empty() {
                return None;
            }
            Some(f.split(',').map(|v| atoi(v.trim()).max(0) as u64).collect())
        };
        let subset = Subset {
            start: list(),
            stride: list(),
            count: list(),
            block: list(),
        };
        Some((name[..at].to_string(), subset))
    }

    /// The selected indices of each dimension of `dims`, in order (a regular hyperslab is the
    /// product of one set per dimension), or why the subset does not fit.
    fn indices(&self, dims: &[u64]) -> Result<Vec<Vec<u64>>, String> {
        let rank = dims.len();
        let get = |l: &Option<Vec<u64>>, what: &str, default: u64| -> Result<Vec<u64>, String> {
            match l {
                None => Ok(vec![default; rank]),
                Some(v) if v.len() == rank => Ok(v.clone()),
                Some(v) => Err(format!(
                    "{what} has {} dimensions, the dataset has {rank}",
                    v.len()
                )),
            }
        };
        let start = get(&self.start, "start", 0)?;
        let stride = get(&self.stride, "stride", 1)?;
        let count = get(&self.count, "count", 1)?;
        let block = get(&self.block, "block", 1)?;
        let mut out = Vec::with_capacity(rank);
        for d in 0..rank {
            let (st, sd, c, b) = (start[d], stride[d].max(1), count[d], block[d].max(1));
            let mut v: Vec<u64> = Vec::new();
            for i in 0..c {
                for j in 0..b {
                    let x = i
                        .checked_mul(sd)
                        .and_then(|o| o.checked_add(st))
                        .and_then(|o| o.checked_add(j))
                        .filter(|&x| x < dims[d])
                        .ok_or_else(|| {
                            format!("the subset extends past dimension {d} ({})", dims[d])
                        })?;
                    v.push(x);
                }
            }
            v.sort_unstable();
            v.dedup();
            out.push(v);
        }
        Ok(out)
    }
}

/// What the comparison found besides the difference count.
#[derive(Default)]
struct Status {
    not_cmp: bool,
    different_contents: bool,
    error: bool,
}

/// Object kinds as h5diff's traversal names them (`h5trav_type_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Group,
    Dataset,
    Datatype,
    Link,
    UdLink,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Group => "H5G_GROUP",
            Kind::Dataset => "H5G_DATASET",
            Kind::Datatype => "H5G_TYPE",
            Kind::Link => "H5G_LINK",
            Kind::UdLink => "H5G_UDLINK",
        }
    }
    fn of(k: ObjKind) -> Kind {
        match k {
            ObjKind::Group => Kind::Group,
            ObjKind::Dataset => Kind::Dataset,
            ObjKind::NamedDatatype => Kind::Datatype,
        }
    }
}

enum Parsed {
    Run(Box<Opts>, Vec<String>),
    Exit(String, i32),
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

fn parse(args: &[String]) -> Parsed {
    let usage = |code| Parsed::Exit(USAGE.to_string(), code);
    let mut o = Opts::default();
    let mut i = 0;
    let mut files = Vec::new();
    let rules = Rules {
        short: |c| match c {
            'd' | 'n' | 'p' | 'A' | 'E' => Some(Arg::Required),
            'v' | 'S' => Some(Arg::Optional),
            'c' | 'e' | 'h' | 'l' | 'q' | 'r' | 'x' | 'C' | 'N' | 'V' => Some(Arg::No),
            _ => None,
        },
        // h5diff takes long options by their whole names only.
        long: |name| {
            LONG.iter()
                .find(|(n, _, _)| *n == name)
                .map(|&(_, arg, c)| (arg, c))
        },
        missing_is_error: true,
        get_option: false,
    };
    while i < args.len() {
        let opts = match rules.scan(args, &mut i) {
            Ok(Scanned::Options(opts)) => opts,
            Ok(Scanned::EndOfOptions) => {
                files.extend(args[i + 1..].iter().cloned());
                break;
            }
            Ok(Scanned::Operand) => {
                files.push(args[i].clone());
                Vec::new()
            }
            Err(_) => return usage(1),
        };
        i += 1;
        for (c, v) in opts {
            match c {
                'h' => return usage(0),
                'V' => return Parsed::Exit("h5diff: Version 1.10.8\n".into(), 0),
                'v' => {
                    o.verbose = true;
                    o.level = v.as_deref().map_or(0, atoi);
                }
                'q' => o.quiet = true,
                'r' => o.report = true,
                'l' => o.follow = true,
                'x' => o.no_dangle = true,
                'c' => o.list_not_cmp = true,
                'N' => o.compare.no_nans = true,
                'C' => o.no_compact_subset = true,
                'e' => o.compare.use_system_epsilon = true,
                'E' => o.exclude.extend(v),
                'A' => o.exclude_attr.extend(v),
                'd' => {
                    let v = v.unwrap_or_default();
                    if !valid_real(&v) {
                        return Parsed::Exit(format!("<-d {v}> is not a valid option\n{USAGE}"), 1);
                    }
                    o.compare.delta = Some(atof(&v));
                }
                'p' => {
                    let v = v.unwrap_or_default();
                    if !valid_real(&v) {
                        return Parsed::Exit(format!("<-p {v}> is not a valid option\n{USAGE}"), 1);
                    }
                    let p = atof(&v);
                    o.compare.relative = (p != 0.0).then_some(p);
                }
                'n' => {
                    let v = v.unwrap_or_default();
                    if !valid_count(&v) {
                        return Parsed::Exit(format!("<-n {v}> is not a valid option\n{USAGE}"), 1);
                    }
                    o.compare.max_differences = v.parse().ok();
                }
                _ => {}
            }
        }
    }
    let exclusive = usize::from(o.compare.delta.is_some())
        + usize::from(o.compare.relative.is_some())
        + usize::from(o.compare.use_system_epsilon);
    if exclusive > 1 {
        return Parsed::Exit(
            "h5diff error: -d, -p and --use-system-epsilon options are mutually-exclusive;\n\
             use no more than one.\n\
             Try '-h' or '--help' option for more information or see the h5diff entry in the \
             'HDF5 Reference Manual'.\n"
                .into(),
            1,
        );
    }
    if files.len() < 2 {
        return usage(1);
    }
    if !o.no_compact_subset {
        for (k, name) in files.iter_mut().skip(2).take(2).enumerate() {
            if let Some((n, s)) = Subset::split(name) {
                *name = n;
                o.subset[k] = Some(s);
            }
        }
    }
    Parsed::Run(Box::new(o), files)
}

/// One file of the comparison with the files its external links reach.
struct Side<'a> {
    name: String,
    file: Rc<dyn DumpFile>,
    key: String,
    open: &'a crate::dump::Opener<'a>,
}

/// Where a path leads in one file (following links as the library does).
#[derive(Clone)]
struct Target {
    file: Rc<dyn DumpFile>,
    key: String,
    id: ObjId,
}

/// A symbolic link's state (`H5tools_get_symlink_info`).
enum LinkState {
    /// Not a symbolic link (a hard link or the root).
    Hard,
    /// A symbolic link whose target exists.
    Found(Target),
    /// A dangling symbolic link.
    Dangling,
}

impl Side<'_> {
    fn root(&self) -> Target {
        Target {
            file: Rc::clone(&self.file),
            key: self.key.clone(),
            id: self.file.root(),
        }
    }

    /// Resolve `path` from the root, following every link.
    fn resolve(&self, path: &str) -> Option<Target> {
        self.resolve_in(self.root(), path, 0)
    }

    fn resolve_in(&self, at: Target, path: &str, depth: usize) -> Option<Target> {
        if depth > 16 {
            return None;
        }
        let comps: Vec<&str> = path
            .split('/')
            .filter(|c| !c.is_empty() && *c != ".")
            .collect();
        let mut cur = Target {
            id: at.file.root(),
            ..at
        };
        for (i, comp) in comps.iter().enumerate() {
            let l = cur
                .file
                .links(cur.id, IndexOrder::Name)
                .ok()?
                .into_iter()
                .find(|l| l.name == *comp)?;
            cur = match l.target {
                LinkTarget::Hard(id) => Target { id, ..cur },
                LinkTarget::Soft(t) => {
                    let full = if t.starts_with('/') {
                        t
                    } else {
                        format!("/{}/{}", comps[..i].join("/"), t)
                    };
                    self.resolve_in(cur, &full, depth + 1)?
                }
                LinkTarget::External { file, path } => {
                    let (f, key) = crate::dump::ddl::open_external(self.open, &cur.key, &file)?;
                    let f: Rc<dyn DumpFile> = Rc::from(f);
                    let start = Target {
                        id: f.root(),
                        file: f,
                        key,
                    };
                    self.resolve_in(start, &path, depth + 1)?
                }
                LinkTarget::UserDefined(_) => return None,
            };
        }
        Some(cur)
    }

    /// The link `path` names.
    fn link(&self, path: &str) -> Option<LinkTarget> {
        let trimmed = path.trim_end_matches('/');
        let (parent, name) = trimmed.rsplit_once('/')?;
        let p = self.resolve(parent)?;
        p.file
            .links(p.id, IndexOrder::Name)
            .ok()?
            .into_iter()
            .find(|l| l.name == name)
            .map(|l| l.target)
    }

    fn symlink_state(&self, path: &str) -> LinkState {
        match self.link(path) {
            Some(LinkTarget::Soft(_)) | Some(LinkTarget::External { .. }) => {
                match self.resolve(path) {
                    Some(t) => LinkState::Found(t),
                    None => LinkState::Dangling,
                }
            }
            _ => LinkState::Hard,
        }
    }

    fn kind_of(&self, t: &Target) -> Option<Kind> {
        t.file.object_kind(t.id).ok().map(Kind::of)
    }
}

/// One entry of a traversal (`trav_path_t`).
#[derive(Clone)]
struct Entry {
    path: String,
    kind: Kind,
    obj: Option<(String, ObjId)>,
}

/// `h5trav_visit` of `start` (visiting the start object), with h5diff's symbolic-link
/// handling (`trav_grp_symlinks`).
fn traverse(side: &Side<'_>, start: &str, o: &Opts, st: &mut Status) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut visited_links: Vec<(Option<String>, String)> = Vec::new();
    let Some(t) = side.resolve(start) else {
        return out;
    };
    visit(side, start, t, o, st, &mut out, &mut visited_links);
    out
}

fn visit(
    side: &Side<'_>,
    start: &str,
    t: Target,
    o: &Opts,
    st: &mut Status,
    out: &mut Vec<Entry>,
    visited_links: &mut Vec<(Option<String>, String)>,
) {
    let Some(kind) = side.kind_of(&t) else {
        return;
    };
    out.push(Entry {
        path: start.to_string(),
        kind,
        obj: Some((t.key.clone(), t.id)),
    });
    if kind != Kind::Group {
        return;
    }
    // H5Lvisit: depth first by name, each group once.
    let mut seen = std::collections::HashSet::new();
    seen.insert(t.id);
    let mut stack: Vec<(String, Target, Vec<crate::dump::model::Link>, usize)> = Vec::new();
    let links = t.file.links(t.id, IndexOrder::Name).unwrap_or_default();
    stack.push((start.to_string(), t, links, 0));
    while let Some((path, group, links, next)) = stack.last_mut() {
        let Some(l) = links.get(*next).cloned() else {
            stack.pop();
            continue;
        };
        *next += 1;
        let full = if path == "/" {
            format!("/{}", l.name)
        } else {
            format!("{}/{}", path, l.name)
        };
        let group = group.clone();
        match &l.target {
            LinkTarget::Hard(id) => {
                let here = Target {
                    id: *id,
                    ..group.clone()
                };
                let Some(kind) = side.kind_of(&here) else {
                    continue;
                };
                out.push(Entry {
                    path: full.clone(),
                    kind,
                    obj: Some((here.key.clone(), *id)),
                });
                if kind == Kind::Group && seen.insert(*id) {
                    let links = here.file.links(*id, IndexOrder::Name).unwrap_or_default();
                    stack.push((full, here, links, 0));
                }
            }
            target => {
                let kind = if matches!(target, LinkTarget::Soft(_)) {
                    Kind::Link
                } else {
                    Kind::UdLink
                };
                let key = match target {
                    LinkTarget::Soft(v) => (None, v.clone()),
                    LinkTarget::External { file, path } => (Some(file.clone()), path.clone()),
                    _ => (Some(String::new()), String::new()),
                };
                if !o.follow || matches!(target, LinkTarget::UserDefined(_)) {
                    out.push(Entry {
                        path: full,
                        kind,
                        obj: None,
                    });
                    continue;
                }
                match side.resolve(&full) {
                    None => {
                        if o.no_dangle {
                            st.error = true;
                        }
                        out.push(Entry {
                            path: full,
                            kind,
                            obj: None,
                        });
                    }
                    Some(t) => {
                        if visited_links.contains(&key) {
                            continue;
                        }
                        visited_links.push(key);
                        let mut inner = Vec::new();
                        visit(side, &full, t, o, st, &mut inner, visited_links);
                        out.extend(inner);
                    }
                }
            }
        }
    }
}

/// The text h5diff prints, with what it found.
struct Diff<'a> {
    o: &'a Opts,
    st: Status,
    out: String,
    /// The paths of the two named objects when they carry subsets.
    subset_at: Option<(String, String)>,
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

/// `%-15g`-style cell.
fn cell(fmt: &str, v: f64) -> String {
    printf_float(fmt, v)
}

/// The comparison of one element pair (the counters and the printing of the position).
struct Elements<'a> {
    o: &'a Opts,
    name1: String,
    name2: String,
    dims: Vec<u64>,
    header_printed: bool,
    nfound: u64,
    show: bool,
}

impl Elements<'_> {
    fn full(&self) -> bool {
        self.o
            .compare
            .max_differences
            .is_some_and(|c| self.nfound >= c)
    }

    fn pos(&mut self, out: &mut String, idx: u64) {
        if !self.show {
            return;
        }
        if !self.header_printed {
            self.header_printed = true;
            out.push_str(&format!(
                "{:<16}{}{:<11}{}\n",
                "size:",
                dims_text(&self.dims),
                "",
                dims_text(&self.dims)
            ));
            if self.o.compare.relative.is_some() {
                out.push_str(&format!(
                    "{:<15} {:<15} {:<15} {:<15} {:<15}\n",
                    "position", self.name1, self.name2, "difference", "relative"
                ));
                out.push_str(
                    "------------------------------------------------------------------------\n",
                );
            } else {
                out.push_str(&format!(
                    "{:<15} {:<15} {:<15} {:<20}\n",
                    "position", self.name1, self.name2, "difference"
                ));
                out.push_str("------------------------------------------------------------\n");
            }
        }
        if self.dims.is_empty() {
            out.push_str("      ");
        } else {
            let mut acc = vec![1u64; self.dims.len()];
            for k in (0..self.dims.len().saturating_sub(1)).rev() {
                acc[k] = acc[k + 1].saturating_mul(self.dims[k + 1]);
            }
            let mut cur = idx;
            out.push_str("[ ");
            for a in &acc {
                let p = cur / a.max(&1);
                cur -= p * a.max(&1);
                out.push_str(&format!("{} ", p));
            }
            out.push(']');
        }
    }

    /// Compare two numbers under the tolerance options (the library's decision), and print
    /// the difference as h5diff does.
    fn number(&mut self, out: &mut String, idx: u64, a: Num, b: Num) {
        let Some(kind) = compare_numbers(a, b, &self.o.compare) else {
            return;
        };
        self.nfound += 1;
        if !self.show {
            return;
        }
        self.pos(out, idx);
        out.push_str("          ");
        match (a, b) {
            (Num::Int(x), Num::Int(y)) => {
                let diff = (x - y).unsigned_abs();
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
            (Num::Float { value: x, .. }, Num::Float { value: y, .. }) => {
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
            _ => {}
        }
    }
}

impl Diff<'_> {
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

    /// Compare the elements of two buffers of the same shape and type.
    #[allow(clippy::too_many_arguments)]
    fn elements(
        &mut self,
        f1: &dyn DumpFile,
        f2: &dyn DumpFile,
        dt1: &Datatype,
        dt2: &Datatype,
        b1: &[u8],
        b2: &[u8],
        first: u64,
        e: &mut Elements<'_>,
    ) {
        let (s1, s2) = (dt1.size().max(1), dt2.size().max(1));
        let n = (b1.len() / s1).min(b2.len() / s2);
        // Equal values of the same atomic type differ in no way: skip equal runs of
        // elements with one comparison of their bytes.
        let skip_equal = is_atomic(dt1) && dt1 == dt2;
        const RUN: usize = 4096;
        let mut i = 0;
        while i < n {
            if e.full() {
                break;
            }
            if skip_equal && i % RUN == 0 {
                let end = (i + RUN).min(n);
                if b1[i * s1..end * s1] == b2[i * s2..end * s2] {
                    i = end;
                    continue;
                }
            }
            let x = &b1[i * s1..(i + 1) * s1];
            let y = &b2[i * s2..(i + 1) * s2];
            if !(skip_equal && x == y) {
                self.datum(f1, f2, dt1, dt2, x, y, first + i as u64, e);
            }
            i += 1;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn datum(
        &mut self,
        f1: &dyn DumpFile,
        f2: &dyn DumpFile,
        dt1: &Datatype,
        dt2: &Datatype,
        x: &[u8],
        y: &[u8],
        idx: u64,
        e: &mut Elements<'_>,
    ) {
        if e.full() {
            return;
        }
        match (dt1, dt2) {
            (Datatype::Compound(_), Datatype::Compound(_))
            | (Datatype::Array(_), Datatype::Array(_)) => {
                leaf_pairs(dt1, dt2, x, y, &mut |d1, d2, a, b| {
                    self.datum(f1, f2, d1, d2, a, b, idx, e)
                });
            }
            (Datatype::VarLen(v1), Datatype::VarLen(v2)) => {
                let a = f1.vlen_data(x).ok().flatten().unwrap_or_default();
                let b = f2.vlen_data(y).ok().flatten().unwrap_or_default();
                let (s1, s2) = (v1.base().size().max(1), v2.base().size().max(1));
                let n = (a.len() / s1).min(b.len() / s2);
                for k in 0..n {
                    self.datum(
                        f1,
                        f2,
                        v1.base(),
                        v2.base(),
                        &a[k * s1..(k + 1) * s1],
                        &b[k * s2..(k + 1) * s2],
                        idx,
                        e,
                    );
                }
            }
            (Datatype::String(t1), Datatype::String(_)) => {
                let (a, b) = if t1.is_variable() {
                    let a = f1.vlen_data(x).ok().flatten().unwrap_or_default();
                    let b = f2.vlen_data(y).ok().flatten().unwrap_or_default();
                    (a, b)
                } else {
                    (x.to_vec(), y.to_vec())
                };
                // Null-terminated strings end at their first NUL.
                let cut = |v: Vec<u8>| -> Vec<u8> {
                    if t1.is_variable() || t1.pad() == h5::types::StrPad::NullTerm {
                        v.into_iter().take_while(|&c| c != 0).collect()
                    } else {
                        v
                    }
                };
                let (a, b) = (cut(a), cut(b));
                // h5diff prints the shorter string's character first (the second's when
                // they are as long).
                let swap = a.len() >= b.len();
                for (ca, cb) in char_differences(&a, &b) {
                    if e.full() {
                        break;
                    }
                    e.nfound += 1;
                    if e.show {
                        e.pos(&mut self.out, idx);
                        let (p, q) = if swap { (cb, ca) } else { (ca, cb) };
                        self.out.push_str(&format!(
                            "            {}            {}\n",
                            char_text(p),
                            char_text(q)
                        ));
                    }
                }
            }
            (Datatype::Enum(en1), Datatype::Enum(en2)) => {
                let name = |en: &h5::types::EnumType, v: &[u8]| {
                    en.members()
                        .iter()
                        .find(|m| m.raw_value() == v)
                        .map(|m| m.name().to_string())
                };
                let (a, b) = (name(en1, x), name(en2, y));
                if a.is_none() || b.is_none() || a != b {
                    if x == y {
                        return;
                    }
                    e.nfound += 1;
                    if e.show {
                        e.pos(&mut self.out, idx);
                        let a = a.unwrap_or_else(|| "**INVALID VALUE**".into());
                        let b = b.unwrap_or_else(|| "**INVALID VALUE**".into());
                        self.out
                            .push_str(&format!("          {:<16} {:<17}\n", a, b));
                    }
                }
            }
            (Datatype::Bitfield(_), Datatype::Bitfield(_))
            | (Datatype::Opaque(_), Datatype::Opaque(_)) => {
                for (a, b) in x.iter().zip(y) {
                    e.number(
                        &mut self.out,
                        idx,
                        Num::Int(i128::from(*a)),
                        Num::Int(i128::from(*b)),
                    );
                }
            }
            (Datatype::Reference(r1), Datatype::Reference(_)) => {
                let (z1, z2) = (x.iter().all(|&c| c == 0), y.iter().all(|&c| c == 0));
                if z1 != z2 {
                    e.nfound += 1;
                    return;
                }
                if z1 {
                    return;
                }
                let t1 = f1.dereference(x).ok().flatten();
                let t2 = f2.dereference(y).ok().flatten();
                match (r1.kind(), t1, t2) {
                    (
                        ReferenceKind::Object,
                        Some(RefTarget::Object(a)),
                        Some(RefTarget::Object(b)),
                    ) => {
                        let k1 = f1.object_kind(a).ok();
                        let k2 = f2.object_kind(b).ok();
                        if k1 != k2 {
                            self.out.push_str(&format!(
                                "Different object types referenced: <{}> and <{}>",
                                e.name1, e.name2
                            ));
                            self.st.not_cmp = true;
                        } else if k1 == Some(ObjKind::Dataset) {
                            let names = (e.name1.clone(), e.name2.clone());
                            let paths = (names.0.clone(), names.1.clone());
                            let n = self.dataset_ids(
                                f1,
                                f2,
                                a,
                                b,
                                Some((&paths.0, &paths.1)),
                                &names,
                                e.show,
                            );
                            e.nfound += n;
                        } else {
                            if self.o.verbose {
                                self.out.push_str(&format!(
                                    "Warning: Comparison not possible of object types referenced: <{}> and <{}>\n",
                                    e.name1, e.name2
                                ));
                            }
                            self.st.not_cmp = true;
                        }
                    }
                    (
                        ReferenceKind::DatasetRegion,
                        Some(RefTarget::Region {
                            dataset: a,
                            selection: s1,
                        }),
                        Some(RefTarget::Region {
                            dataset: b,
                            selection: s2,
                        }),
                    ) => {
                        e.nfound += self.region(a, b, &s1, &s2);
                    }
                    _ => {}
                }
            }
            _ => {
                if let (Some(a), Some(b)) = (Num::decode(dt1, x), Num::decode(dt2, y)) {
                    e.number(&mut self.out, idx, a, b);
                }
            }
        }
    }

    /// `diff_region`: two dataset regions, block by block and point by point; a difference
    /// per block or point that differs in any coordinate.
    fn region(&mut self, a: ObjId, b: ObjId, s1: &Region, s2: &Region) -> u64 {
        let blocks = |s: &Region| match s {
            Region::Blocks(v) => Some(v.clone()),
            _ => None,
        };
        let points = |s: &Region| match s {
            Region::Points(v) => Some(v.clone()),
            _ => None,
        };
        let (b1, b2, p1, p2) = (blocks(s1), blocks(s2), points(s1), points(s2));
        let ndims = |s: &Region| match s {
            Region::Blocks(v) => v.first().map_or(0, |x| x.0.len()),
            Region::Points(v) => v.first().map_or(0, Vec::len),
            _ => 0,
        };
        let nd = ndims(s1);
        if b1.as_ref().map(Vec::len) != b2.as_ref().map(Vec::len)
            || p1.as_ref().map(Vec::len) != p2.as_ref().map(Vec::len)
            || nd != ndims(s2)
        {
            self.st.not_cmp = true;
            return 0;
        }
        let coords = |v: &[u64], open: &str| {
            v.iter()
                .enumerate()
                .map(|(j, c)| format!("{}{}", if j > 0 { "," } else { open }, c))
                .collect::<String>()
        };
        let (mut nb, mut np) = (0u64, 0u64);
        if let (Some(b1), Some(b2)) = (&b1, &b2) {
            for (x, y) in b1.iter().zip(b2) {
                for j in 0..nd {
                    if x.0.get(j) != y.0.get(j) || x.1.get(j) != y.1.get(j) {
                        nb += 1;
                    }
                }
            }
            if nb > 0 && self.o.verbose {
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
        }
        if let (Some(p1), Some(p2)) = (&p1, &p2) {
            for (x, y) in p1.iter().zip(p2) {
                np += x.iter().zip(y).filter(|(u, v)| u != v).count() as u64;
            }
            if np > 0 && self.o.verbose {
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
        let nd = nd.max(1) as u64;
        nb / nd + np / nd
    }

    /// `diff_can_type`: whether two datasets (or attributes) can be compared; prints why not.
    #[allow(clippy::too_many_arguments)]
    fn can_compare(
        &mut self,
        dt1: &Datatype,
        dt2: &Datatype,
        s1: &Space,
        s2: &Space,
        n1: &str,
        n2: &str,
        attribute: bool,
        member: bool,
    ) -> bool {
        let tell = self.o.verbose || self.o.list_not_cmp;
        if std::mem::discriminant(dt1) != std::mem::discriminant(dt2) {
            if tell {
                if member {
                    self.out.push_str(&format!(
                        "Not comparable: <{}> has a class {} and <{}> has a class {}\n",
                        n1,
                        class_name(dt1),
                        n2,
                        class_name(dt2)
                    ));
                } else {
                    self.out.push_str(&format!(
                        "Not comparable: <{}> is of class {} and <{}> is of class {}\n",
                        n1,
                        class_name(dt1),
                        n2,
                        class_name(dt2)
                    ));
                }
            }
            self.st.not_cmp = true;
            return false;
        }
        if matches!(dt1, Datatype::Time(_)) {
            if tell {
                self.out.push_str(&format!(
                    "Not comparable: <{}> and <{}> are of class {}\n",
                    n1,
                    n2,
                    class_name(dt2)
                ));
            }
            self.st.not_cmp = true;
            return false;
        }
        if dt1 != dt2 && self.o.verbose {
            self.out.push_str("Warning: different storage datatype\n");
            if matches!(dt1, Datatype::Integer(_) | Datatype::Float(_)) {
                self.out.push_str(&format!(
                    "<{}> has file datatype {}\n<{}> has file datatype {}\n",
                    n1,
                    type_name(dt1),
                    n2,
                    type_name(dt2)
                ));
            }
        }
        let (d1, d2) = (s1.dims(), s2.dims());
        let max = |s: &Space| -> Vec<u64> {
            match s {
                Space::Simple { maxdims, .. } => maxdims.clone(),
                _ => Vec::new(),
            }
        };
        let (m1, m2) = (max(s1), max(s2));
        let rank_text = |n: &str, d: &[u64], m: &[u64]| {
            format!(
                "<{}> has rank {}, dimensions {}, max dimensions {}",
                n,
                d.len(),
                dims_text(d),
                dims_text(m)
            )
        };
        if d1.len() != d2.len() || d1 != d2 {
            if tell {
                let (m1s, m2s): (&[u64], &[u64]) = if attribute { (d1, d2) } else { (&m1, &m2) };
                self.out.push_str(&format!(
                    "Not comparable: {}\nand {}\n",
                    rank_text(n1, d1, m1s),
                    rank_text(n2, d2, m2s)
                ));
            }
            self.st.not_cmp = true;
            return false;
        }
        if !attribute && m1 != m2 && self.o.verbose {
            self.out.push_str(&format!(
                "Warning: different maximum dimensions\n<{}> has max dimensions {}\n<{}> has max dimensions {}\n",
                n1,
                dims_text(&m1),
                n2,
                dims_text(&m2)
            ));
        }
        if let (Datatype::String(a), Datatype::String(b)) = (dt1, dt2) {
            if a.is_variable() != b.is_variable() {
                if tell {
                    self.out.push_str(&format!(
                        "Not comparable: <{}> or <{}> is of mixed string type\n",
                        n1, n2
                    ));
                }
                self.st.not_cmp = true;
                return false;
            }
        }
        if let (Datatype::Compound(a), Datatype::Compound(b)) = (dt1, dt2) {
            if a.members().len() != b.members().len() {
                if tell {
                    self.out.push_str(&format!(
                        "Not comparable: <{}> has {} members <{}> has {} members \n",
                        n1,
                        a.members().len(),
                        n2,
                        b.members().len()
                    ));
                }
                self.st.not_cmp = true;
                return false;
            }
            for (x, y) in a.members().iter().zip(b.members()) {
                if !self.can_compare(x.datatype(), y.datatype(), s1, s2, n1, n2, attribute, true) {
                    self.st.not_cmp = true;
                    return false;
                }
            }
        }
        true
    }

    /// `diff_datasetid`: compare two datasets' values.
    #[allow(clippy::too_many_arguments)]
    fn dataset_ids(
        &mut self,
        f1: &dyn DumpFile,
        f2: &dyn DumpFile,
        id1: ObjId,
        id2: ObjId,
        paths: Option<(&str, &str)>,
        names: &(String, String),
        show: bool,
    ) -> u64 {
        let (Ok(d1), Ok(d2)) = (f1.dataset(id1), f2.dataset(id2)) else {
            self.st.error = true;
            return 0;
        };
        let tell = self.o.verbose || self.o.list_not_cmp;
        let mut can = true;
        if d1.storage_size == 0 || d2.storage_size == 0 {
            let virt = matches!(d1.layout, Layout::Virtual { .. })
                || matches!(d2.layout, Layout::Virtual { .. });
            if virt {
                if let (true, Some((p1, p2))) = (tell, paths) {
                    self.out.push_str(&format!(
                        "Warning: <{}> or <{}> is a virtual dataset\n",
                        p1, p2
                    ));
                }
            } else {
                if let (true, Some((p1, p2))) = (tell, paths) {
                    self.out.push_str(&format!(
                        "Not comparable: <{}> or <{}> is an empty dataset\n",
                        p1, p2
                    ));
                }
                can = false;
                self.st.not_cmp = true;
            }
        }
        let (dt1, dt2) = (&d1.datatype.datatype, &d2.datatype.datatype);
        if let Some((p1, p2)) = paths {
            if !self.can_compare(dt1, dt2, &d1.space, &d2.space, p1, p2, false, false) {
                can = false;
            }
        } else if std::mem::discriminant(dt1) != std::mem::discriminant(dt2)
            || d1.space.dims() != d2.space.dims()
        {
            can = false;
        }
        if can {
            if let (Datatype::Integer(a), Datatype::Integer(b)) = (dt1, dt2) {
                if a.is_signed() != b.is_signed() {
                    if let (true, Some((p1, p2))) = (tell, paths) {
                        let sign = |s: bool| if s { "H5T_SGN_2" } else { "H5T_SGN_NONE" };
                        self.out.push_str(&format!(
                            "Not comparable: <{}> has sign {} and <{}> has sign {}\n",
                            p1,
                            sign(a.is_signed()),
                            p2,
                            sign(b.is_signed())
                        ));
                    }
                    can = false;
                    self.st.not_cmp = true;
                }
            }
        }
        if !can {
            return 0;
        }
        let dims = d1.space.dims().to_vec();
        let mut e = Elements {
            o: self.o,
            name1: names.0.clone(),
            name2: names.1.clone(),
            dims: dims.clone(),
            header_printed: false,
            nfound: 0,
            show,
        };
        let subsets = match (&self.subset_at, paths) {
            (Some((a, b)), Some((p1, p2))) if a == p1 && b == p2 && !dims.is_empty() => {
                let full = Subset::default();
                let s1 = self.o.subset[0].as_ref().unwrap_or(&full);
                let s2 = self.o.subset[1].as_ref().unwrap_or(s1);
                match (s1.indices(&dims), s2.indices(d2.space.dims())) {
                    (Ok(a), Ok(b)) => Some((a, b)),
                    (Err(why), _) | (_, Err(why)) => {
                        self.out.push_str(&format!("h5diff: <{}>: {why}\n", p1));
                        self.st.error = true;
                        return 0;
                    }
                }
            }
            _ => None,
        };
        if let Some((a, b)) = subsets {
            self.subset_elements(f1, f2, id1, id2, dt1, dt2, &a, &b, &mut e);
            return e.nfound;
        }
        // Arrays of different sizes: both buffers are walked as arrays of the smaller type
        // (h5diff compares the smaller array).
        let (cmp1, cmp2) = match (dt1, dt2) {
            (Datatype::Array(_), Datatype::Array(_)) if dt1.size() != dt2.size() => {
                let small = if dt1.size() <= dt2.size() { dt1 } else { dt2 };
                (small, small)
            }
            _ => (dt1, dt2),
        };
        // Strip by strip, so a dataset of any size is compared in bounded memory.
        let esize = dt1.size().max(dt2.size()).max(1) as u64;
        for strip in crate::dump::render::StripMine::new(&dims, esize) {
            if e.full() {
                break;
            }
            let (Ok(b1), Ok(b2)) = (
                f1.read(id1, &strip.offset, &strip.count),
                f2.read(id2, &strip.offset, &strip.count),
            ) else {
                self.st.error = true;
                return e.nfound;
            };
            if is_atomic(dt1) && dt1 == dt2 && b1 == b2 {
                continue;
            }
            self.elements(f1, f2, cmp1, cmp2, &b1, &b2, strip.elmtno, &mut e);
        }
        e.nfound
    }

    /// Compare the elements two subsets select (`a` and `b`: the selected indices of each
    /// dimension), in order, run by run along the last dimension; positions are those of
    /// the first dataset.
    #[allow(clippy::too_many_arguments)]
    fn subset_elements(
        &mut self,
        f1: &dyn DumpFile,
        f2: &dyn DumpFile,
        id1: ObjId,
        id2: ObjId,
        dt1: &Datatype,
        dt2: &Datatype,
        a: &[Vec<u64>],
        b: &[Vec<u64>],
        e: &mut Elements<'_>,
    ) {
        let shape = |v: &[Vec<u64>]| v.iter().map(Vec::len).collect::<Vec<_>>();
        if shape(a) != shape(b) {
            self.st.not_cmp = true;
            return;
        }
        let rank = a.len();
        let (Some(last1), Some(last2)) = (a.last(), b.last()) else {
            return;
        };
        if a.iter().any(Vec::is_empty) {
            return;
        }
        // Runs along the last dimension contiguous in both selections.
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for k in 0..last1.len() {
            match runs.last_mut() {
                Some((s, n))
                    if last1[k] == last1[*s] + *n as u64 && last2[k] == last2[*s] + *n as u64 =>
                {
                    *n += 1
                }
                _ => runs.push((k, 1)),
            }
        }
        let dims = e.dims.clone();
        let mut pos = vec![0usize; rank - 1];
        loop {
            for &(k, n) in &runs {
                if e.full() {
                    return;
                }
                let mut o1: Vec<u64> = pos.iter().enumerate().map(|(d, &i)| a[d][i]).collect();
                let mut o2: Vec<u64> = pos.iter().enumerate().map(|(d, &i)| b[d][i]).collect();
                o1.push(last1[k]);
                o2.push(last2[k]);
                let mut count = vec![1u64; rank - 1];
                count.push(n as u64);
                let (Ok(b1), Ok(b2)) = (f1.read(id1, &o1, &count), f2.read(id2, &o2, &count))
                else {
                    self.st.error = true;
                    return;
                };
                let first = o1.iter().zip(&dims).fold(0u64, |acc, (&i, &d)| {
                    acc.saturating_mul(d).saturating_add(i)
                });
                self.elements(f1, f2, dt1, dt2, &b1, &b2, first, e);
            }
            // The next index tuple of the outer dimensions, row-major.
            let mut d = rank - 1;
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                pos[d] += 1;
                if pos[d] < a[d].len() {
                    break;
                }
                pos[d] = 0;
            }
        }
    }

    /// `diff_attr`: the attributes of two objects.
    fn attributes(&mut self, t1: &Target, t2: &Target, p1: &str, p2: &str) -> u64 {
        let a1 = t1
            .file
            .attributes(t1.id, IndexOrder::Name)
            .unwrap_or_default();
        let a2 = t2
            .file
            .attributes(t2.id, IndexOrder::Name)
            .unwrap_or_default();
        // Co-sequential match by name.
        let mut rows: Vec<(Option<usize>, Option<usize>, String)> = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < a1.len() || j < a2.len() {
            match (a1.get(i), a2.get(j)) {
                (Some(x), Some(y)) if x.name == y.name => {
                    rows.push((Some(i), Some(j), x.name.clone()));
                    i += 1;
                    j += 1;
                }
                (Some(x), Some(y)) if x.name.as_bytes() < y.name.as_bytes() => {
                    rows.push((Some(i), None, x.name.clone()));
                    i += 1;
                }
                (Some(x), None) => {
                    rows.push((Some(i), None, x.name.clone()));
                    i += 1;
                }
                (_, Some(y)) => {
                    rows.push((None, Some(j), y.name.clone()));
                    j += 1;
                }
                (None, None) => break,
            }
        }
        let common = rows
            .iter()
            .filter(|r| r.0.is_some() && r.1.is_some())
            .count();
        let only1 = rows.iter().filter(|r| r.1.is_none()).count();
        let only2 = rows.iter().filter(|r| r.0.is_none()).count();
        if self.o.verbose && self.o.level == 2 {
            self.out
                .push_str("   obj1   obj2\n --------------------------------------\n");
            for (x, y, name) in &rows {
                let c1 = if x.is_some() { 'x' } else { ' ' };
                let c2 = if y.is_some() { 'x' } else { ' ' };
                self.out
                    .push_str(&format!("{:>5} {:>6}    {:<15}\n", c1, c2, name));
            }
        }
        if self.o.verbose && self.o.level >= 1 {
            self.out.push_str(&format!(
                "Attributes status:  {} common, {} only in obj1, {} only in obj2\n",
                common, only1, only2
            ));
        }
        let mut nfound_total = 0;
        if only1 + only2 > 0 {
            self.st.different_contents = true;
        }
        for (x, y, name) in rows {
            let (Some(x), Some(y)) = (x, y) else { continue };
            let (x, y) = (&a1[x], &a2[y]);
            let np1 = format!("{} of <{}>", name, p1);
            let np2 = format!("{} of <{}>", name, p2);
            let (dt1, dt2) = (&x.datatype.datatype, &y.datatype.datatype);
            if !self.can_compare(dt1, dt2, &x.space, &y.space, &x.name, &y.name, true, false) {
                continue;
            }
            let (Ok(b1), Ok(b2)) = (
                t1.file.attribute_data(t1.id, &x.name),
                t2.file.attribute_data(t2.id, &y.name),
            ) else {
                self.st.error = true;
                continue;
            };
            let show = self.o.verbose || self.o.report;
            let mut text = String::new();
            std::mem::swap(&mut text, &mut self.out);
            let mut e = Elements {
                o: self.o,
                name1: np1.clone(),
                name2: np2.clone(),
                dims: x.space.dims().to_vec(),
                header_printed: false,
                nfound: 0,
                show,
            };
            if !(is_atomic(dt1) && dt1 == dt2 && b1 == b2) {
                self.elements(
                    t1.file.as_ref(),
                    t2.file.as_ref(),
                    dt1,
                    dt2,
                    &b1,
                    &b2,
                    0,
                    &mut e,
                );
            }
            let nfound = e.nfound;
            let body = std::mem::replace(&mut self.out, text);
            if show {
                self.out
                    .push_str(&format!("attribute: <{}> and <{}>\n", np1, np2));
                self.out.push_str(&body);
                self.found(nfound);
            } else if nfound > 0 && !self.o.quiet {
                self.out
                    .push_str(&format!("attribute: <{}> and <{}>\n", np1, np2));
                self.found(nfound);
            }
            nfound_total += nfound;
        }
        nfound_total
    }

    /// `diff`: compare the objects at `p1` and `p2` of kinds `k1` and `k2`.
    #[allow(clippy::too_many_arguments)]
    fn diff(
        &mut self,
        s1: &Side<'_>,
        s2: &Side<'_>,
        p1: &str,
        p2: &str,
        mut k1: Kind,
        mut k2: Kind,
        same_target: bool,
    ) -> u64 {
        let mut nfound = 0u64;
        let (mut dangle1, mut dangle2) = (false, false);
        let links =
            matches!(k1, Kind::Link | Kind::UdLink) || matches!(k2, Kind::Link | Kind::UdLink);
        let (mut l1, mut l2) = (None, None);
        if links {
            if self.o.follow {
                for (side, p, dangle, k) in [
                    (s1, p1, &mut dangle1, &mut k1),
                    (s2, p2, &mut dangle2, &mut k2),
                ] {
                    match side.symlink_state(p) {
                        LinkState::Dangling => {
                            if self.o.no_dangle {
                                if self.o.verbose {
                                    self.out.push_str(&format!(
                                        "Warning: <{}> is a dangling link.\n",
                                        p
                                    ));
                                }
                                self.st.error = true;
                                return 0;
                            }
                            *dangle = true;
                        }
                        LinkState::Found(t) => {
                            if let Some(kk) = side.kind_of(&t) {
                                *k = kk;
                            }
                        }
                        LinkState::Hard => {}
                    }
                }
            }
            l1 = s1.link(p1);
            l2 = s2.link(p2);
        }
        if dangle1 || dangle2 {
            if dangle1 && dangle2 {
                if self.print_objname(nfound) {
                    self.objname("dangling link", p1, p2);
                    self.found(nfound);
                }
            } else {
                let (which, p) = if dangle1 { ("obj1", p1) } else { ("obj2", p2) };
                if self.o.verbose {
                    self.out
                        .push_str(&format!("{} <{}> is a dangling link.\n", which, p));
                }
                nfound += 1;
                if self.print_objname(nfound) {
                    self.found(nfound);
                }
            }
            return nfound;
        }
        if k1 != k2 {
            if self.o.verbose || self.o.list_not_cmp {
                self.out.push_str(&format!(
                    "Not comparable: <{}> is of type {} and <{}> is of type {}\n",
                    p1,
                    k1.name(),
                    p2,
                    k2.name()
                ));
            }
            self.st.not_cmp = true;
            return 0;
        }
        let hard = matches!(k1, Kind::Dataset | Kind::Datatype | Kind::Group);
        if same_target && (self.o.follow || hard) {
            if self.o.verbose || self.o.report {
                let what = match k1 {
                    Kind::Dataset => "dataset",
                    Kind::Datatype => "datatype",
                    Kind::Group => "group",
                    Kind::Link => "link",
                    Kind::UdLink => "external link",
                };
                self.objname(what, p1, p2);
                self.found(0);
            }
            return 0;
        }
        let target = |s: &Side<'_>, p: &str| s.resolve(p);
        match k1 {
            Kind::Dataset => {
                let (Some(t1), Some(t2)) = (target(s1, p1), target(s2, p2)) else {
                    self.st.error = true;
                    return 0;
                };
                let names = (basename(p1).to_string(), basename(p2).to_string());
                let show = self.o.verbose || self.o.report;
                if show {
                    self.objname("dataset", p1, p2);
                    nfound = self.dataset_ids(
                        t1.file.as_ref(),
                        t2.file.as_ref(),
                        t1.id,
                        t2.id,
                        Some((p1, p2)),
                        &names,
                        true,
                    );
                    self.found(nfound);
                } else {
                    nfound = self.dataset_ids(
                        t1.file.as_ref(),
                        t2.file.as_ref(),
                        t1.id,
                        t2.id,
                        Some((p1, p2)),
                        &names,
                        false,
                    );
                    if nfound > 0 && !self.o.quiet {
                        self.objname("dataset", p1, p2);
                        self.found(nfound);
                    }
                }
                if !self.o.exclude_attr.iter().any(|x| x == p1) {
                    nfound += self.attributes(&t1, &t2, p1, p2);
                }
            }
            Kind::Datatype => {
                let (Some(t1), Some(t2)) = (target(s1, p1), target(s2, p2)) else {
                    self.st.error = true;
                    return 0;
                };
                let a = t1.file.named_datatype(t1.id).ok();
                let b = t2.file.named_datatype(t2.id).ok();
                nfound = u64::from(a.is_none() || a != b);
                if self.print_objname(nfound) {
                    self.objname("datatype", p1, p2);
                }
                if self.o.verbose {
                    self.found(nfound);
                }
                if !self.o.exclude_attr.iter().any(|x| x == p1) {
                    nfound += self.attributes(&t1, &t2, p1, p2);
                }
            }
            Kind::Group => {
                if self.print_objname(nfound) {
                    self.objname("group", p1, p2);
                }
                if self.o.verbose {
                    self.found(nfound);
                }
                let (Some(t1), Some(t2)) = (target(s1, p1), target(s2, p2)) else {
                    self.st.error = true;
                    return 0;
                };
                if !self.o.exclude_attr.iter().any(|x| x == p1) {
                    nfound += self.attributes(&t1, &t2, p1, p2);
                }
            }
            Kind::Link => {
                let v = |l: &Option<LinkTarget>| match l {
                    Some(LinkTarget::Soft(t)) => Some(t.clone()),
                    _ => None,
                };
                nfound = u64::from(v(&l1) != v(&l2));
                if self.print_objname(nfound) {
                    self.objname("link", p1, p2);
                }
                if self.o.verbose {
                    self.found(nfound);
                }
            }
            Kind::UdLink => {
                let ext = matches!(l1, Some(LinkTarget::External { .. }))
                    && matches!(l2, Some(LinkTarget::External { .. }));
                nfound = u64::from(l1 != l2);
                if self.print_objname(nfound) {
                    self.objname(
                        if ext {
                            "external link"
                        } else {
                            "user defined link"
                        },
                        p1,
                        p2,
                    );
                }
                if self.o.verbose {
                    self.found(nfound);
                }
            }
        }
        nfound
    }
}

fn is_atomic(dt: &Datatype) -> bool {
    !matches!(
        dt,
        Datatype::Reference(_)
            | Datatype::Compound(_)
            | Datatype::String(_)
            | Datatype::VarLen(_)
            | Datatype::Array(_)
    )
}

fn basename(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
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

/// `is_exclude_path`.
fn excluded(o: &Opts, path: &str, groups: &mut Vec<String>, kind: Kind) -> bool {
    if groups
        .iter()
        .any(|g| path.starts_with(g.as_str()) && path.as_bytes().get(g.len()) == Some(&b'/'))
    {
        return true;
    }
    if o.exclude.iter().any(|e| e == path) {
        if kind == Kind::Group {
            groups.push(path.to_string());
        }
        return true;
    }
    false
}

/// `h5 diff` with files opened by `open`: writes the report to `out`, returns the status.
pub fn run_with(args: &[String], open: &crate::dump::Opener<'_>, out: &mut dyn Write) -> i32 {
    let (o, names) = match parse(args) {
        Parsed::Run(o, n) => (*o, n),
        Parsed::Exit(text, code) => {
            let _ = out.write_all(text.as_bytes());
            return code;
        }
    };
    let mut d = Diff {
        o: &o,
        st: Status::default(),
        out: String::new(),
        subset_at: None,
    };
    let nfound = compare(&mut d, &names, open);
    let mut text = d.out;
    if !o.quiet && d.st.not_cmp && !o.list_not_cmp {
        text.push_str("--------------------------------\nSome objects are not comparable\n--------------------------------\n");
        if o.verbose {
            text.push_str("Use -c for a list of objects without details of differences.\n");
        } else {
            text.push_str("Use -c for a list of objects.\n");
        }
    }
    let _ = out.write_all(text.as_bytes());
    if d.st.error {
        2
    } else if nfound > 0 || d.st.different_contents {
        1
    } else {
        0
    }
}

fn compare(d: &mut Diff<'_>, names: &[String], open: &crate::dump::Opener<'_>) -> u64 {
    let o = d.o;
    if o.quiet && (o.verbose || o.report) {
        d.out
            .push_str("Error: -q (quiet mode) cannot be added to verbose or report modes\n");
        d.st.error = true;
        return 0;
    }
    if o.no_dangle && !o.follow {
        d.out.push_str(
            "Error: --no-dangling-links must be used along with --follow-symlinks option.\n",
        );
        d.st.error = true;
        return 0;
    }
    let mut sides = Vec::new();
    for name in &names[..2] {
        match open(name) {
            Ok(f) => sides.push(Side {
                name: name.clone(),
                file: Rc::from(f),
                key: crate::dump::ddl::file_key(name),
                open,
            }),
            Err(_) => {
                d.out
                    .push_str(&format!("h5diff: <{}>: unable to open file\n", name));
                d.st.error = true;
                return 0;
            }
        }
    }
    let (s1, s2) = (&sides[0], &sides[1]);
    let full = |p: &str| {
        if p.starts_with('/') {
            p.to_string()
        } else {
            format!("/{}", p)
        }
    };
    let (obj1, obj2) = match (names.get(2), names.get(3)) {
        (Some(a), Some(b)) => (full(a), full(b)),
        (Some(a), None) => (full(a), full(a)),
        _ => ("/".to_string(), "/".to_string()),
    };
    if o.subset.iter().any(Option::is_some) {
        d.subset_at = Some((obj1.clone(), obj2.clone()));
    }
    // The kind of each named object.
    let mut kinds = [Kind::Group; 2];
    for (k, (side, obj)) in [(s1, &obj1), (s2, &obj2)].into_iter().enumerate() {
        if obj == "/" {
            continue;
        }
        match side.link(obj) {
            None => {
                d.out.push_str(&format!(
                    "Object <{}> could not be found in <{}>\n",
                    obj, side.name
                ));
                d.st.error = true;
                return 0;
            }
            Some(LinkTarget::Hard(_)) => {
                kinds[k] = side
                    .resolve(obj)
                    .and_then(|t| side.kind_of(&t))
                    .unwrap_or(Kind::Dataset);
            }
            Some(LinkTarget::Soft(_)) => kinds[k] = Kind::Link,
            Some(_) => kinds[k] = Kind::UdLink,
        }
    }
    let mut nfound = 0u64;
    if o.follow {
        let states = [s1.symlink_state(&obj1), s2.symlink_state(&obj2)];
        let both =
            matches!(states[0], LinkState::Dangling) && matches!(states[1], LinkState::Dangling);
        for (k, (side, obj)) in [(s1, &obj1), (s2, &obj2)].into_iter().enumerate() {
            match &states[k] {
                LinkState::Dangling => {
                    if o.no_dangle {
                        if o.verbose {
                            d.out
                                .push_str(&format!("Warning: <{}> is a dangling link.\n", obj));
                        }
                        d.st.error = true;
                        return 0;
                    }
                    if o.verbose {
                        d.out
                            .push_str(&format!("obj{} <{}> is a dangling link.\n", k + 1, obj));
                    }
                    if !both {
                        nfound += 1;
                        d.found(nfound);
                        return nfound;
                    }
                }
                LinkState::Found(t) => {
                    if let Some(kk) = side.kind_of(t) {
                        kinds[k] = kk;
                    }
                }
                LinkState::Hard => {}
            }
        }
    }
    let t1 = s1.resolve(&obj1);
    let t2 = s2.resolve(&obj2);
    if !(o.verbose || o.report) {
        if let (Some(a), Some(b)) = (&t1, &t2) {
            if a.key == b.key && a.id == b.id {
                return 0;
            }
        }
    }
    let both_groups = kinds[0] == Kind::Group && kinds[1] == Kind::Group;
    let (list1, list2) = if both_groups {
        (
            traverse(s1, &obj1, o, &mut d.st),
            traverse(s2, &obj2, o, &mut d.st),
        )
    } else {
        let one = |kind: Kind, path: &str, t: &Option<Target>| Entry {
            path: path.to_string(),
            kind,
            obj: t.as_ref().map(|t| (t.key.clone(), t.id)),
        };
        (
            vec![one(kinds[0], &obj1, &t1)],
            vec![one(kinds[1], &obj2, &t2)],
        )
    };
    // Co-sequential match of the relative paths.
    let off1 = if obj1 == "/" { 0 } else { obj1.len() };
    let off2 = if obj2 == "/" { 0 } else { obj2.len() };
    let rel = |e: &Entry, off: usize| e.path.get(off..).unwrap_or("").to_string();
    let mut table: Vec<(String, Option<usize>, Option<usize>)> = Vec::new();
    let mut groups = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < list1.len() || j < list2.len() {
        let a = list1.get(i).map(|e| rel(e, off1));
        let b = list2.get(j).map(|e| rel(e, off2));
        let (name, x, y, kind) = match (&a, &b) {
            (Some(a), Some(b)) if a == b => {
                let r = (a.clone(), Some(i), Some(j), list1[i].kind);
                i += 1;
                j += 1;
                r
            }
            (Some(a), Some(b)) if a.as_bytes() < b.as_bytes() => {
                let r = (a.clone(), Some(i), None, list1[i].kind);
                i += 1;
                r
            }
            (Some(a), None) => {
                let r = (a.clone(), Some(i), None, list1[i].kind);
                i += 1;
                r
            }
            (_, Some(b)) => {
                let r = (b.clone(), None, Some(j), list2[j].kind);
                j += 1;
                r
            }
            (None, None) => break,
        };
        if !excluded(o, &name, &mut groups, kind) {
            table.push((name, x, y));
        }
    }
    if both_groups && o.verbose {
        if o.level > 2 {
            d.out
                .push_str(&format!("file1: {}\nfile2: {}\n", s1.name, s2.name));
        }
        d.out.push('\n');
        if obj1 != "/" || obj2 != "/" {
            d.out.push_str("group1   group2\n");
        } else {
            d.out.push_str("file1     file2\n");
        }
        d.out.push_str("---------------------------------------\n");
        for (name, x, y) in &table {
            let c1 = if x.is_some() { 'x' } else { ' ' };
            let c2 = if y.is_some() { 'x' } else { ' ' };
            d.out
                .push_str(&format!("{:>5} {:>6}    {:<15}\n", c1, c2, name));
        }
        d.out.push('\n');
    }
    if o.exclude.is_empty() && list1.len() != list2.len() {
        d.st.different_contents = true;
    }
    if table.iter().any(|(_, x, y)| x.is_some() != y.is_some()) {
        d.st.different_contents = true;
    }
    let g1 = if obj1 == "/" { "" } else { obj1.as_str() };
    let g2 = if obj2 == "/" { "" } else { obj2.as_str() };
    let progress = crate::progress::Progress::new(table.len() as u64, "objects");
    for (name, x, y) in &table {
        let (Some(x), Some(y)) = (x, y) else { continue };
        let p1 = format!("{}{}", g1, name);
        let p2 = format!("{}{}", g2, name);
        let (e1, e2) = (&list1[*x], &list2[*y]);
        let same = e1.obj.is_some() && e1.obj == e2.obj;
        let p1 = if p1.is_empty() { "/".to_string() } else { p1 };
        let p2 = if p2.is_empty() { "/".to_string() } else { p2 };
        nfound += d.diff(s1, s2, &p1, &p2, e1.kind, e2.kind, same);
        progress.step();
    }
    nfound
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
