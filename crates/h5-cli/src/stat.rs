//! `h5 stat [OPTIONS] FILE`: the statistics h5stat 1.10.8 prints, byte for byte: object
//! counts, group, dataset and attribute bins, datatypes, filters, layouts, and where the
//! file's bytes go (from [`h5::io::stats`]).

use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::Write;

use crate::getopt::{self, Arg, Rules, Scanner};
use h5::format::message::datatype::disk_size;
use h5::format::message::shared::SharedLocation;
use h5::format::message::{Message, MessageFlags, MessageType};
use h5::format::Addr;
use h5::io::dataset::Dataset;
use h5::io::group::Location;
use h5::io::stats::{self, FileStats, HeaderSpace};
use h5::io::{File, LinkTarget, ObjectKind};
use h5::types::Datatype;

/// h5stat 1.10.8's usage text.
pub const USAGE: &str = include_str!("stat/usage.txt");

/// The options `h5stat` takes that [`USAGE`] does not show (`h5 help stat` prints them after
/// it; `--help` prints [`USAGE`] alone, as h5stat does).
pub const USAGE_OURS: &str = include_str!("stat/usage_ours.txt");

/// What to print (h5stat's `display_*` switches) and the thresholds.
#[derive(Clone, Debug)]
struct Options {
    all: bool,
    file: bool,
    file_metadata: bool,
    group: bool,
    group_metadata: bool,
    dset: bool,
    dset_metadata: bool,
    dtype_metadata: bool,
    attr: bool,
    free_sections: bool,
    summary: bool,
    small_groups: usize,
    small_dsets: usize,
    small_attrs: usize,
    /// `-O NAME` (the last one given) and how many words the command line had, program name
    /// included: h5stat 1.10.8 keeps that many copies of the name.
    object: Option<(String, usize)>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            all: true,
            file: false,
            file_metadata: false,
            group: false,
            group_metadata: false,
            dset: false,
            dset_metadata: false,
            dtype_metadata: false,
            attr: false,
            free_sections: false,
            summary: false,
            small_groups: 10,
            small_dsets: 10,
            small_attrs: 10,
            object: None,
        }
    }
}

/// h5stat 1.10.8's short options, as a `get_option` specification ([`getopt::spec_arg`]):
/// `-w` and `-H` are the short forms of `--s3-cred` and `--hdfs-attrs`.
const SHORT: &str = "Aa:Ddm:EFfhGgl:sSTO:Vw:H:";

/// h5stat 1.10.8's long options (whole names only; `-f`, `-g` and `-d` have none): name,
/// argument, the short option it stands for.
const LONG: &[(&str, Arg, char)] = &[
    ("help", Arg::No, 'h'),
    ("filemetadata", Arg::No, 'F'),
    ("groupmetadata", Arg::No, 'G'),
    ("links", Arg::Required, 'l'),
    ("dsetmetadata", Arg::No, 'D'),
    ("dims", Arg::Required, 'm'),
    ("dtypemetadata", Arg::No, 'T'),
    ("object", Arg::Required, 'O'),
    ("version", Arg::No, 'V'),
    ("attribute", Arg::No, 'A'),
    ("enable-error-stack", Arg::No, 'E'),
    ("numattrs", Arg::Required, 'a'),
    ("freespace", Arg::No, 's'),
    ("summary", Arg::No, 'S'),
    ("s3-cred", Arg::Required, 'w'),
    ("hdfs-attrs", Arg::Required, 'H'),
];

/// h5stat's `get_option` rules.
const RULES: Rules = Rules {
    short: |c| getopt::spec_arg(SHORT, c),
    long: |name| getopt::whole_name(LONG, name),
    missing_is_error: true,
    get_option: true,
};

enum Parsed {
    /// Run on this file, after printing these messages on standard error.
    Run(Options, String, String),
    Exit(String, String, i32),
}

/// `atoi`.
fn atoi(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    let v = digits.parse::<i64>().unwrap_or(0);
    if neg {
        -v
    } else {
        v
    }
}

fn parse(args: &[String]) -> Parsed {
    // What h5stat says and goes on after (a threshold option without its value).
    let mut said = String::new();
    let mut o = Options::default();
    let mut scan = Scanner::new(&RULES, args);
    for next in scan.by_ref() {
        let (c, v) = match next {
            Ok(o) => o,
            Err(bad) => return Parsed::Exit(USAGE.into(), said + &bad.message("h5stat"), 1),
        };
        let err = |m: &str| Parsed::Exit(String::new(), format!("{said}h5stat error: {m}\n"), 1);
        match c {
            'h' => return Parsed::Exit(USAGE.into(), said, 0),
            'V' => return Parsed::Exit("h5stat: Version 1.10.8\n".into(), said, 0),
            'F' => o.file_metadata = true,
            'f' => o.file = true,
            'G' => o.group_metadata = true,
            'g' => o.group = true,
            'D' => o.dset_metadata = true,
            'd' => o.dset = true,
            'T' => o.dtype_metadata = true,
            'A' => o.attr = true,
            's' => o.free_sections = true,
            'S' => o.summary = true,
            'l' | 'm' | 'a' => {
                let n = v.as_deref().map(atoi);
                let what = match c {
                    'l' => "small groups",
                    'm' => "small datasets",
                    _ => "small # of attributes",
                };
                match n {
                    Some(n) if n >= 1 => {
                        let n = n as usize;
                        match c {
                            'l' => o.small_groups = n,
                            'm' => o.small_dsets = n,
                            _ => o.small_attrs = n,
                        }
                    }
                    Some(_) => return err(&format!("Invalid threshold for {what}")),
                    None => {
                        let _ = writeln!(said, "h5stat error: Missing threshold for {what}");
                    }
                }
                continue;
            }
            'O' => {
                o.object = Some((v.unwrap_or_default(), args.len() + 1));
                continue;
            }
            // The drivers h5stat 1.10.8 is built without.
            'w' => return err("failed to parse S3 VFD credential info"),
            'H' => return err("HDFS VFD not enabled."),
            _ => continue,
        }
        o.all = false;
    }
    match args.get(scan.index) {
        Some(f) => Parsed::Run(o, f.clone(), said),
        None => Parsed::Exit(USAGE.into(), said + "h5stat error: missing file name\n", 1),
    }
}

/// What h5stat 1.10.8 does with `-O NAME`: it fills one slot per word of the command line with
/// the name, then for each slot traverses the object and prints `Object name NAME` (or an
/// error when the name does not resolve), and no statistics.
fn object_names(file: &File, name: &str, copies: usize) -> i32 {
    let mut out = std::io::stdout();
    let mut status = 0;
    for _ in 0..copies {
        if file.locate(name).is_ok() {
            let _ = writeln!(out, "Object name {name}");
        } else {
            let _ = out.flush();
            eprintln!("h5stat error: unable to traverse object \"{name}\"");
            status = 1;
        }
    }
    status
}

/// Counts per bin of `ceil(log10(n))`, as h5stat grows its bin arrays.
#[derive(Default)]
struct Bins(Vec<u64>);

impl Bins {
    fn add(&mut self, n: u64) {
        let mut bin = 0usize;
        let mut pow = 1u64;
        while n >= pow {
            bin += 1;
            match pow.checked_mul(10) {
                Some(p) => pow = p,
                None => break,
            }
        }
        if self.0.len() <= bin {
            self.0.resize(bin + 1, 0);
        }
        self.0[bin] += 1;
    }
}

/// One datatype datasets use, with its counts.
struct TypeCount {
    datatype: Datatype,
    encoded: u64,
    size: u64,
    count: u64,
    named: u64,
}

/// What the traversal gathers (h5stat's `iter_t`).
#[derive(Default)]
struct Gathered {
    groups: u64,
    dsets: u64,
    dtypes: u64,
    links: u64,
    others: u64,
    max_links: u64,
    max_fanout: u64,
    small_groups: Vec<u64>,
    group_bins: Bins,
    group_ohdr: HeaderSpace,
    max_attrs: u64,
    small_attrs: Vec<u64>,
    attr_bins: Bins,
    max_rank: usize,
    rank_count: Vec<u64>,
    max_dims: u64,
    small_dims: Vec<u64>,
    dim_bins: Bins,
    layouts: [u64; 4],
    filters: [u64; 8],
    types: Vec<TypeCount>,
    dset_ohdr: HeaderSpace,
    storage: u64,
    external_storage: u64,
    nexternal: u64,
    dtype_ohdr: HeaderSpace,
    group_index: u64,
    group_heap: u64,
    attr_index: u64,
    attr_heap: u64,
    dset_index: u64,
    dset_heap: u64,
}

/// The size `H5Tget_size` reports for a dataset's type (in memory: a variable-length
/// sequence is an `hvl_t`, a variable-length string a pointer).
fn mem_size(dt: &Datatype, sizes: h5::format::Sizes) -> u64 {
    match dt {
        Datatype::String(t) if t.is_variable() => 8,
        Datatype::VarLen(_) => 16,
        Datatype::Array(a) => mem_size(a.base(), sizes) * a.len(),
        // Members change size in place; the compound grows or shrinks by the difference
        // (`H5T__set_loc`).
        Datatype::Compound(c) => c.members().iter().fold(disk_size(dt, sizes), |acc, m| {
            (acc + mem_size(m.datatype(), sizes)).saturating_sub(disk_size(m.datatype(), sizes))
        }),
        _ => disk_size(dt, sizes),
    }
}

/// Whether the default (sec2) driver opens the file as the reference library does: no
/// driver information (family, multi and split files need their drivers) and an
/// end-of-file address within the file.
fn sec2_opens(file: &File, name: &str) -> bool {
    let sb = file.superblock();
    let driver = sb
        .v0
        .as_ref()
        .is_some_and(|v| !v.driver_info_address.is_undef())
        || file
            .superblock_extension()
            .is_some_and(|e| e.driver_info.is_some());
    let len = std::fs::metadata(name).map(|m| m.len()).unwrap_or(0);
    let eof = sb
        .eof_address
        .get()
        .map_or(0, |e| e.saturating_add(file.raw().base()));
    !driver && eof <= len
}

impl Gathered {
    fn new(o: &Options) -> Self {
        Gathered {
            small_groups: vec![0; o.small_groups],
            small_attrs: vec![0; o.small_attrs + 1],
            small_dims: vec![0; o.small_dsets],
            rank_count: vec![0; 33],
            ..Gathered::default()
        }
    }

    fn attributes(&mut self, s: &stats::ObjectStats) {
        self.attr_index += s.attributes.index;
        self.attr_heap += s.attributes.heap;
        if let Some(slot) = self.small_attrs.get_mut(s.num_attrs as usize) {
            *slot += 1;
        }
        self.max_attrs = self.max_attrs.max(s.num_attrs);
        self.attr_bins.add(s.num_attrs);
    }

    fn object(&mut self, file: &File, addr: Addr, path: &str) -> Result<(), String> {
        let s = stats::object_stats(file, addr).map_err(|e| e.to_string())?;
        self.max_links = self.max_links.max(u64::from(s.refcount));
        match s.kind {
            ObjectKind::Group => {
                self.groups += 1;
                self.group_ohdr.total += s.header.total;
                self.group_ohdr.free += s.header.free;
                let g = h5::io::Group::at(Location {
                    file: file.clone(),
                    addr,
                    path: path.to_string(),
                })
                .map_err(|e| e.to_string())?;
                let nlinks = g.links().map_err(|e| e.to_string())?.len() as u64;
                if let Some(slot) = self.small_groups.get_mut(nlinks as usize) {
                    *slot += 1;
                }
                self.max_fanout = self.max_fanout.max(nlinks);
                self.group_bins.add(nlinks);
                self.group_index += s.storage.index;
                self.group_heap += s.storage.heap;
                self.attributes(&s);
            }
            ObjectKind::Dataset => {
                self.dsets += 1;
                self.dset_ohdr.total += s.header.total;
                self.dset_ohdr.free += s.header.free;
                self.dset_index += s.storage.index;
                self.dset_heap += s.storage.heap;
                self.attributes(&s);
                self.dataset(file, addr, path)?;
            }
            ObjectKind::Datatype => {
                self.dtypes += 1;
                self.dtype_ohdr.total += s.header.total;
                self.dtype_ohdr.free += s.header.free;
                self.attributes(&s);
            }
            ObjectKind::Unknown => self.others += 1,
        }
        Ok(())
    }

    fn dataset(&mut self, file: &File, addr: Addr, path: &str) -> Result<(), String> {
        let d = Dataset::at(Location {
            file: file.clone(),
            addr,
            path: path.to_string(),
        })
        .map_err(|e| e.to_string())?;
        let storage = d.storage_size().map_err(|e| e.to_string())?;
        let obj = d.object();
        let layout = match obj.message(MessageType::LAYOUT) {
            Ok(Some(Message::Layout(l))) => match l.class {
                h5::format::message::layout::LayoutClass::Compact { .. } => 0,
                h5::format::message::layout::LayoutClass::Contiguous { .. } => 1,
                h5::format::message::layout::LayoutClass::Chunked { .. } => 2,
                _ => 3,
            },
            _ => 1,
        };
        if layout == 0 {
            self.dset_ohdr.total = self.dset_ohdr.total.saturating_sub(storage);
        }
        self.layouts[layout] += 1;
        let next = d.external_files().map_or(0, |e| e.slots.len() as u64);
        if next > 0 {
            self.nexternal += next;
            self.external_storage += storage;
        } else {
            self.storage += storage;
        }
        let dims = d.shape();
        let rank = dims.len();
        self.max_rank = self.max_rank.max(rank);
        if let Some(c) = self.rank_count.get_mut(rank) {
            *c += 1;
        }
        if rank == 1 {
            self.max_dims = self.max_dims.max(dims[0]);
            if let Some(slot) = self.small_dims.get_mut(dims[0] as usize) {
                *slot += 1;
            }
            self.dim_bins.add(dims[0]);
        }
        let dt = d.datatype().clone();
        let mut committed = false;
        let sizes = file.sizes();
        for m in obj.header.messages() {
            if m.kind != MessageType::DATATYPE {
                continue;
            }
            if m.flags.has(MessageFlags::SHARED) {
                if let Ok(Message::Shared { shared, .. }) = m.decode(sizes) {
                    committed = matches!(shared.location, SharedLocation::Committed(_));
                }
            }
            break;
        }
        let encoded = stats::datatype_encoded_size(file, &obj.header)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("{path}: no datatype message"))?;
        let i = match self.types.iter().position(|t| t.datatype == dt) {
            Some(i) => i,
            None => {
                self.types.push(TypeCount {
                    size: mem_size(&dt, sizes),
                    datatype: dt,
                    encoded,
                    count: 0,
                    named: 0,
                });
                self.types.len() - 1
            }
        };
        self.types[i].count += 1;
        if committed {
            self.types[i].named += 1;
        }
        let filters = d.filters();
        if filters.is_empty() {
            self.filters[0] += 1;
        }
        for f in filters {
            let id = usize::from(f.id.0);
            self.filters[if id < 7 { id } else { 7 }] += 1;
        }
        Ok(())
    }

    /// `h5trav_visit` from the root, recursively (`H5Lvisit`: a group's links in name
    /// order, descending into each group the first time it is reached): every object once,
    /// every link counted.
    fn traverse(&mut self, file: &File) -> Result<(), String> {
        let root = file.root_address();
        let mut seen = HashSet::new();
        seen.insert(root.0);
        self.object(file, root, "/")?;
        let links_of = |addr: Addr, path: &str| -> Result<Vec<h5::io::Link>, String> {
            h5::io::Group::at(Location {
                file: file.clone(),
                addr,
                path: path.to_string(),
            })
            .and_then(|g| g.links())
            .map_err(|e| e.to_string())
        };
        // Each level: the group's path, its links and the next one to visit.
        let mut stack = vec![("/".to_string(), links_of(root, "/")?, 0usize)];
        while let Some((path, links, next)) = stack.last_mut() {
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
            match l.target {
                LinkTarget::Hard(a) => {
                    if !seen.insert(a.0) {
                        continue;
                    }
                    self.object(file, a, &full)?;
                    if file.object(a).map_err(|e| e.to_string())?.kind() == ObjectKind::Group {
                        let links = links_of(a, &full)?;
                        stack.push((full, links, 0));
                    }
                }
                LinkTarget::Soft(_) | LinkTarget::External { .. } => self.links += 1,
                LinkTarget::UserDefined { .. } => self.others += 1,
            }
        }
        Ok(())
    }
}

fn print(o: &Options, g: &Gathered, f: &FileStats) -> String {
    let mut s = String::new();
    let all = o.all;
    let w = &mut s;
    if all || o.file {
        let _ = writeln!(w, "File information");
        let _ = writeln!(w, "\t# of unique groups: {}", g.groups);
        let _ = writeln!(w, "\t# of unique datasets: {}", g.dsets);
        let _ = writeln!(w, "\t# of unique named datatypes: {}", g.dtypes);
        let _ = writeln!(w, "\t# of unique links: {}", g.links);
        let _ = writeln!(w, "\t# of unique other: {}", g.others);
        let _ = writeln!(w, "\tMax. # of links to object: {}", g.max_links);
        let _ = writeln!(w, "\tMax. # of objects in group: {}", g.max_fanout);
    }
    if all || o.file_metadata {
        let _ = writeln!(w, "File space information for file metadata (in bytes):");
        let _ = writeln!(w, "\tSuperblock: {}", f.superblock);
        let _ = writeln!(w, "\tSuperblock extension: {}", f.superblock_extension);
        let _ = writeln!(w, "\tUser block: {}", f.user_block);
        let _ = writeln!(w, "\tObject headers: (total/unused)");
        let _ = writeln!(
            w,
            "\t\tGroups: {}/{}",
            g.group_ohdr.total, g.group_ohdr.free
        );
        let _ = writeln!(
            w,
            "\t\tDatasets(exclude compact data): {}/{}",
            g.dset_ohdr.total, g.dset_ohdr.free
        );
        let _ = writeln!(
            w,
            "\t\tDatatypes: {}/{}",
            g.dtype_ohdr.total, g.dtype_ohdr.free
        );
        let _ = writeln!(w, "\tGroups:");
        let _ = writeln!(w, "\t\tB-tree/List: {}", g.group_index);
        let _ = writeln!(w, "\t\tHeap: {}", g.group_heap);
        let _ = writeln!(w, "\tAttributes:");
        let _ = writeln!(w, "\t\tB-tree/List: {}", g.attr_index);
        let _ = writeln!(w, "\t\tHeap: {}", g.attr_heap);
        let _ = writeln!(w, "\tChunked datasets:");
        let _ = writeln!(w, "\t\tIndex: {}", g.dset_index);
        let _ = writeln!(w, "\tDatasets:");
        let _ = writeln!(w, "\t\tHeap: {}", g.dset_heap);
        let _ = writeln!(w, "\tShared Messages:");
        let _ = writeln!(w, "\t\tHeader: {}", f.sohm_header);
        let _ = writeln!(w, "\t\tB-tree/List: {}", f.sohm.index);
        let _ = writeln!(w, "\t\tHeap: {}", f.sohm.heap);
        let _ = writeln!(w, "\tFree-space managers:");
        let _ = writeln!(w, "\t\tHeader: {}", f.free_space_meta);
        let _ = writeln!(w, "\t\tAmount of free space: {}", f.free_space);
    }
    if all || o.group {
        let _ = writeln!(
            w,
            "Small groups (with 0 to {} links):",
            o.small_groups.saturating_sub(1)
        );
        let mut total = 0;
        for (u, &n) in g.small_groups.iter().enumerate() {
            if n > 0 {
                let _ = writeln!(w, "\t# of groups with {} link(s): {}", u, n);
                total += n;
            }
        }
        let _ = writeln!(w, "\tTotal # of small groups: {}", total);
        let _ = writeln!(w, "Group bins:");
        let mut total = 0;
        if g.group_bins.0.first().is_some_and(|&n| n > 0) {
            let _ = writeln!(w, "\t# of groups with 0 link: {}", g.group_bins.0[0]);
            total = g.group_bins.0[0];
        }
        bins(
            w,
            &g.group_bins,
            "\t# of groups with {} - {} links: {}",
            &mut total,
        );
        let _ = writeln!(w, "\tTotal # of groups: {}", total);
    }
    if !all && o.group_metadata {
        let _ = writeln!(w, "File space information for groups' metadata (in bytes):");
        let _ = writeln!(
            w,
            "\tObject headers (total/unused): {}/{}",
            g.group_ohdr.total, g.group_ohdr.free
        );
        let _ = writeln!(w, "\tB-tree/List: {}", g.group_index);
        let _ = writeln!(w, "\tHeap: {}", g.group_heap);
    }
    if (all || o.dset) && g.dsets > 0 {
        let _ = writeln!(w, "Dataset dimension information:");
        let _ = writeln!(w, "\tMax. rank of datasets: {}", g.max_rank);
        let _ = writeln!(w, "\tDataset ranks:");
        for (u, &n) in g.rank_count.iter().enumerate() {
            if n > 0 {
                let _ = writeln!(w, "\t\t# of dataset with rank {}: {}", u, n);
            }
        }
        let _ = writeln!(w, "1-D Dataset information:");
        let _ = writeln!(w, "\tMax. dimension size of 1-D datasets: {}", g.max_dims);
        let _ = writeln!(
            w,
            "\tSmall 1-D datasets (with dimension sizes 0 to {}):",
            o.small_dsets - 1
        );
        let mut total = 0;
        for (u, &n) in g.small_dims.iter().enumerate() {
            if n > 0 {
                let _ = writeln!(w, "\t\t# of datasets with dimension sizes {}: {}", u, n);
                total += n;
            }
        }
        let _ = writeln!(w, "\t\tTotal # of small datasets: {}", total);
        if !g.dim_bins.0.is_empty() {
            let _ = writeln!(w, "\t1-D Dataset dimension bins:");
            let mut total = 0;
            if g.dim_bins.0[0] > 0 {
                let _ = writeln!(
                    w,
                    "\t\t# of datasets with dimension size 0: {}",
                    g.dim_bins.0[0]
                );
                total = g.dim_bins.0[0];
            }
            bins(
                w,
                &g.dim_bins,
                "\t\t# of datasets with dimension size {} - {}: {}",
                &mut total,
            );
            let _ = writeln!(w, "\t\tTotal # of datasets: {}", total);
        }
        let _ = writeln!(w, "Dataset storage information:");
        let _ = writeln!(w, "\tTotal raw data size: {}", g.storage);
        let _ = writeln!(w, "\tTotal external raw data size: {}", g.external_storage);
        let _ = writeln!(w, "Dataset layout information:");
        for (u, name) in ["COMPACT", "CONTIG", "CHUNKED", "VIRTUAL"]
            .iter()
            .enumerate()
        {
            let _ = writeln!(w, "\tDataset layout counts[{}]: {}", name, g.layouts[u]);
        }
        let _ = writeln!(w, "\tNumber of external files : {}", g.nexternal);
        let _ = writeln!(w, "Dataset filters information:");
        let _ = writeln!(w, "\tNumber of datasets with:");
        for (i, name) in [
            "NO",
            "GZIP",
            "SHUFFLE",
            "FLETCHER32",
            "SZIP",
            "NBIT",
            "SCALEOFFSET",
            "USER-DEFINED",
        ]
        .iter()
        .enumerate()
        {
            let _ = writeln!(w, "\t\t{} filter: {}", name, g.filters[i]);
        }
    }
    if (all || o.dtype_metadata) && !g.types.is_empty() {
        let _ = writeln!(w, "Dataset datatype information:");
        let _ = writeln!(
            w,
            "\t# of unique datatypes used by datasets: {}",
            g.types.len()
        );
        let mut total = 0;
        for (u, t) in g.types.iter().enumerate() {
            let _ = writeln!(w, "\tDataset datatype #{}:", u);
            let _ = writeln!(w, "\t\tCount (total/named) = ({}/{})", t.count, t.named);
            let _ = writeln!(w, "\t\tSize (desc./elmt) = ({}/{})", t.encoded, t.size);
            total += t.count;
        }
        let _ = writeln!(w, "\tTotal dataset datatype count: {}", total);
    }
    if !all && o.dset_metadata {
        let _ = writeln!(
            w,
            "File space information for datasets' metadata (in bytes):"
        );
        let _ = writeln!(
            w,
            "\tObject headers (total/unused): {}/{}",
            g.dset_ohdr.total, g.dset_ohdr.free
        );
        let _ = writeln!(w, "\tIndex for Chunked datasets: {}", g.dset_index);
        let _ = writeln!(w, "\tHeap: {}", g.dset_heap);
    }
    if all || o.attr {
        let _ = writeln!(
            w,
            "Small # of attributes (objects with 1 to {} attributes):",
            o.small_attrs
        );
        let mut total = 0;
        for (u, &n) in g.small_attrs.iter().enumerate().skip(1) {
            if n > 0 {
                let _ = writeln!(w, "\t# of objects with {} attributes: {}", u, n);
                total += n;
            }
        }
        let _ = writeln!(
            w,
            "\tTotal # of objects with small # of attributes: {}",
            total
        );
        let _ = writeln!(w, "Attribute bins:");
        let mut total = 0;
        bins(
            w,
            &g.attr_bins,
            "\t# of objects with {} - {} attributes: {}",
            &mut total,
        );
        let _ = writeln!(w, "\tTotal # of objects with attributes: {}", total);
        let _ = writeln!(w, "\tMax. # of attributes to objects: {}", g.max_attrs);
    }
    if all || o.free_sections {
        let _ = writeln!(
            w,
            "Free-space persist: {}",
            if f.settings.persist { "TRUE" } else { "FALSE" }
        );
        let _ = writeln!(
            w,
            "Free-space section threshold: {} bytes",
            f.settings.threshold
        );
        let _ = writeln!(w, "Small size free-space sections (< 10 bytes):");
        let mut small = [0u64; 10];
        let mut sect_bins = Bins::default();
        for &size in &f.free_sections {
            if let Some(slot) = small.get_mut(size as usize) {
                *slot += 1;
            }
            sect_bins.add(size);
        }
        let mut total = 0;
        for (u, &n) in small.iter().enumerate() {
            if n > 0 {
                let _ = writeln!(w, "\t# of sections of size {}: {}", u, n);
                total += n;
            }
        }
        let _ = writeln!(w, "\tTotal # of small size sections: {}", total);
        let _ = writeln!(w, "Free-space section bins:");
        let mut total = 0;
        bins(
            w,
            &sect_bins,
            "\t# of sections of size {} - {}: {}",
            &mut total,
        );
        let _ = writeln!(w, "\tTotal # of sections: {}", total);
    }
    if all || o.summary {
        let strategy = [
            "H5F_FSPACE_STRATEGY_FSM_AGGR",
            "H5F_FSPACE_STRATEGY_PAGE",
            "H5F_FSPACE_STRATEGY_AGGR",
            "H5F_FSPACE_STRATEGY_NONE",
        ]
        .get(usize::from(f.settings.strategy))
        .copied()
        .unwrap_or("unknown");
        let _ = writeln!(w, "File space management strategy: {}", strategy);
        let _ = writeln!(w, "File space page size: {} bytes", f.settings.page_size);
        let _ = writeln!(w, "Summary of file space information:");
        let meta = f.superblock
            + f.superblock_extension
            + f.user_block
            + g.group_ohdr.total
            + g.dset_ohdr.total
            + g.dtype_ohdr.total
            + g.group_index
            + g.group_heap
            + g.attr_index
            + g.attr_heap
            + g.dset_index
            + g.dset_heap
            + f.sohm_header
            + f.sohm.index
            + f.sohm.heap
            + f.free_space_meta;
        let _ = writeln!(w, "  File metadata: {} bytes", meta);
        let _ = writeln!(w, "  Raw data: {} bytes", g.storage);
        let percent = f.free_space as f64 / f.file_size as f64 * 100.0;
        let _ = writeln!(
            w,
            "  Amount/Percent of tracked free space: {} bytes/{:.1}%",
            f.free_space, percent
        );
        let accounted = meta + g.storage + f.free_space;
        let unaccounted = if f.file_size < accounted {
            let u = accounted - f.file_size;
            let _ = writeln!(
                w,
                "  ??? File has {} more bytes accounted for than its size! ???",
                u
            );
            u
        } else {
            let u = f.file_size - accounted;
            let _ = writeln!(w, "  Unaccounted space: {} bytes", u);
            u
        };
        let _ = writeln!(w, "Total space: {} bytes", accounted + unaccounted);
        if g.nexternal > 0 {
            let _ = writeln!(w, "External raw data: {} bytes", g.external_storage);
        }
    }
    s
}

/// The bins after the first: `fmt`'s three `{}` are the bin's range and count.
fn bins(w: &mut String, b: &Bins, fmt: &str, total: &mut u64) {
    let mut power = 1u64;
    for &n in b.0.iter().skip(1) {
        if n > 0 {
            let text = fmt
                .replacen("{}", &power.to_string(), 1)
                .replacen("{}", &(power * 10 - 1).to_string(), 1)
                .replacen("{}", &n.to_string(), 1);
            w.push_str(&text);
            w.push('\n');
            *total += n;
        }
        power = power.saturating_mul(10);
    }
}

/// `h5 stat`: returns the exit status.
pub fn run(args: &[String]) -> i32 {
    let (o, name) = match parse(args) {
        Parsed::Run(o, name, said) => {
            let _ = std::io::stderr().write_all(said.as_bytes());
            (o, name)
        }
        Parsed::Exit(out, err, code) => {
            let _ = std::io::stdout().write_all(out.as_bytes());
            let _ = std::io::stdout().flush();
            let _ = std::io::stderr().write_all(err.as_bytes());
            return code;
        }
    };
    let mut out = std::io::stdout();
    let _ = writeln!(out, "Filename: {}", name);
    let _ = out.flush();
    let file = match File::open(&name) {
        Ok(f) if sec2_opens(&f, &name) => f,
        _ => {
            eprintln!("h5stat error: unable to open file \"{}\"", name);
            return 1;
        }
    };
    if let Some((name, copies)) = &o.object {
        return object_names(&file, name, *copies);
    }
    let fstats = match stats::file_stats(&file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("h5stat error: unable to read the file-level structures: {e}");
            return 1;
        }
    };
    let mut g = Gathered::new(&o);
    if g.traverse(&file).is_err() {
        eprintln!(
            "h5stat error: unable to traverse objects/links in file \"{}\"",
            name
        );
        return 1;
    }
    let _ = out.write_all(print(&o, &g, &fstats).as_bytes());
    0
}
