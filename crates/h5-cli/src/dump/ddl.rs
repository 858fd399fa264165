//! The DDL printer: groups, datasets, named datatypes, attributes, links and data, laid out
//! exactly as h5dump 1.10.8 lays them out.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use h5::types::{ByteOrder, CharSet, Datatype, ReferenceKind, Sign, StrPad, StringSize};

use super::model::*;
use super::oid::Ids;
use super::render::{Ctx, Dest, Format, Out};
use super::value::{ExtFiles, Values};

mod refs;

/// Which h5dump to print like (`--compat`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Compat {
    /// h5dump 1.10.8 (the default).
    #[default]
    V1_10,
    /// The h5dump of HDF5 2.x: revised references printed and dereferenced as it does, the
    /// names of the half-precision, bfloat16 and FP8 float types.
    V2_0,
}

impl Compat {
    /// Parse `--compat`'s value: `1.10`, or `2`/`2.0`.
    pub fn parse(s: &str) -> Option<Compat> {
        match s {
            "1.10" => Some(Compat::V1_10),
            "2" | "2.0" => Some(Compat::V2_0),
            _ => None,
        }
    }
}

/// Indentation step in columns (h5dump's `COL`).
pub const COL: usize = 3;

/// A hyperslab subset for one dataset (`-s/-S/-c/-k` or `NAME[start;stride;count;block]`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Subset {
    /// Start per dimension.
    pub start: Option<Vec<u64>>,
    /// Stride per dimension.
    pub stride: Option<Vec<u64>>,
    /// Count per dimension.
    pub count: Option<Vec<u64>>,
    /// Block per dimension.
    pub block: Option<Vec<u64>>,
}

/// What to print (h5dump's `dump_opts` and globals).
#[derive(Clone, Debug)]
pub struct Opts {
    /// Print dataset data.
    pub display_data: bool,
    /// Print attribute data.
    pub display_attr_data: bool,
    /// Print attributes at all.
    pub include_attrs: bool,
    /// Print object ids (`-i`).
    pub display_oid: bool,
    /// Print dataset creation properties (`-p`).
    pub display_dcpl: bool,
    /// Print the superblock (`-B`).
    pub display_bb: bool,
    /// Print array indices (not `-y`).
    pub display_ai: bool,
    /// Print 1-byte integer data as strings (`-r`).
    pub display_char: bool,
    /// Escape non-printing characters (`-e`).
    pub display_escape: bool,
    /// Print region reference data (`-R`).
    pub display_region: bool,
    /// Link and attribute order (`-q`).
    pub sort_by: IndexOrder,
    /// Decreasing order (`-z descending`).
    pub sort_decreasing: bool,
    /// Float format (`-m`).
    pub fp_format: Option<String>,
    /// Line width (`-w`; 0 = unlimited).
    pub ncols: usize,
    /// Packed bits masks (`-M`): (offset, length) pairs.
    pub packed_bits: Vec<(u32, u32)>,
    /// Do not use the compact subset display (`--no-compact-subset`).
    pub disable_compact_subset: bool,
    /// Where the DDL goes (`-O`).
    pub ddl_dest: Dest,
    /// Where dataset values go (`-o`).
    pub data_dest: Dest,
    /// Where attribute values go (`-A -o`).
    pub attr_dest: Dest,
    /// Binary output form for dataset values (`-b`): NATIVE, FILE, LE or BE.
    pub binary: Option<String>,
    /// Print the library's error stack on failures (`--enable-error-stack`).
    pub error_stack: bool,
    /// Which h5dump to print like (`--compat`).
    pub compat: Compat,
}

impl Opts {
    /// Apply the options that shape every output (`-m`, `-w`, `-e`) to a format.
    pub fn apply_to(&self, f: &mut Format) {
        if let Some(fp) = &self.fp_format {
            f.fmt_float = fp.clone();
            f.fmt_double = fp.clone();
        }
        if self.ncols == 0 {
            f.line_ncols = 65535;
            f.line_per_line = 1;
        } else {
            f.line_ncols = self.ncols;
        }
        f.do_escape = self.display_escape;
    }
}

impl Default for Opts {
    fn default() -> Self {
        Opts {
            display_data: true,
            display_attr_data: true,
            include_attrs: true,
            display_oid: false,
            display_dcpl: false,
            display_bb: false,
            display_ai: true,
            display_char: false,
            display_escape: false,
            display_region: false,
            sort_by: IndexOrder::Name,
            sort_decreasing: false,
            fp_format: None,
            ncols: 80,
            packed_bits: Vec::new(),
            disable_compact_subset: false,
            ddl_dest: Dest::Stdout,
            data_dest: Dest::Stdout,
            attr_dest: Dest::Stdout,
            binary: None,
            error_stack: false,
            compat: Compat::V1_10,
        }
    }
}

/// One entry of h5dump's object tables.
#[derive(Clone, Debug)]
struct TableObj {
    name: String,
    displayed: bool,
    recorded: bool,
}

/// The object tables built by traversing the file before printing.
#[derive(Default, Debug)]
pub struct Tables {
    groups: HashMap<ObjId, TableObj>,
    dsets: HashMap<ObjId, TableObj>,
    types: Vec<(ObjId, TableObj)>,
    /// First path of each object (the reference path table).
    pub paths: Rc<HashMap<ObjId, (String, ObjKind)>>,
}

impl Tables {
    fn type_entry(&mut self, id: ObjId) -> Option<&mut TableObj> {
        self.types
            .iter_mut()
            .find(|(a, _)| *a == id)
            .map(|(_, o)| o)
    }
}

/// The printer state for one file.
pub struct Dumper<'a> {
    /// The file.
    pub file: &'a dyn DumpFile,
    /// Options.
    pub opts: Opts,
    /// The text written to standard output.
    pub out: Out,
    /// Error messages for standard error.
    pub err: String,
    /// Exit status.
    pub status: i32,
    /// Current indentation in columns (`dump_indent`).
    pub dump_indent: usize,
    /// Object tables.
    pub tables: Tables,
    /// Path prefix of the group being printed.
    pub prefix: String,
    next_arr: Cell<bool>,
    packed: Option<(u32, u64)>,
    /// Opens other files (the targets of external links).
    pub ext_open: Option<&'a super::Opener<'a>>,
    /// The file's identity (its canonical path): an external link back into the file first
    /// opened is not followed.
    pub file_key: String,
    /// The identity of the file first opened.
    pub root_key: String,
    /// Object tables of the files reached through external links, by identity.
    pub ext_tables: HashMap<String, Tables>,
    /// Printing objects reached through an external link: every object is checked for
    /// having been printed already (`hit_elink`).
    pub hit_elink: bool,
    /// The file's name as opened (what `H5Rget_file_name` gives for a reference into it).
    pub file_name: String,
    /// Files reached through references to other files.
    pub ext_ref_files: ExtFiles,
    /// How many references deep the printing is (a dataset of references referenced by
    /// another one is printed, up to a bound).
    ref_depth: usize,
    /// The datasets being printed because a reference names them (file and object), the
    /// outermost first: one already on the chain is not printed again, where HDF5 2.x
    /// h5dump would print a cycle of references without end.
    ref_chain: Rc<RefCell<Vec<(String, ObjId)>>>,
    /// The identifier counters of the run (`-i`), shared with the printers of the files
    /// external links reach.
    pub ids: Ids,
    /// The identifier the next `dump_group` or `dump_dataset` prints, when its caller opened
    /// the object (and maybe registered more identifiers) before the call.
    pub pending_oid: Option<u64>,
}

/// A file's identity for external link traversal: its canonical path, else its name.
pub fn file_key(name: &str) -> String {
    std::fs::canonicalize(name)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| name.to_string())
}

/// Open the file an external link in file `from` (its identity) names, where the reference
/// library looks (`H5F_prefix_open_file`): an absolute name as is; a relative one under each
/// directory of `HDF5_EXT_PREFIX`, then next to `from`, then from the working directory.
/// Returns the file and its identity.
pub(crate) fn open_external(
    open: &super::Opener<'_>,
    from: &str,
    name: &str,
) -> Option<(Box<dyn DumpFile>, String)> {
    let p = std::path::Path::new(name);
    let mut candidates = Vec::new();
    if p.is_absolute() {
        candidates.push(name.to_string());
    } else {
        let own_dir = std::path::Path::new(from)
            .parent()
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        if let Ok(list) = std::env::var("HDF5_EXT_PREFIX") {
            for prefix in list.split(':').filter(|x| !x.is_empty()) {
                let prefix = prefix.replace("${ORIGIN}", &own_dir);
                candidates.push(
                    std::path::Path::new(&prefix)
                        .join(name)
                        .display()
                        .to_string(),
                );
            }
        }
        if !own_dir.is_empty() {
            candidates.push(
                std::path::Path::new(&own_dir)
                    .join(name)
                    .display()
                    .to_string(),
            );
        }
        candidates.push(name.to_string());
    }
    candidates
        .into_iter()
        .filter(|c| crate::input::is_url(c) || std::path::Path::new(c).exists())
        .find_map(|c| open(&c).ok().map(|f| (f, file_key(&c))))
}

/// How many soft and external links one path may traverse (`H5L_NUM_LINKS`).
const MAX_LINK_HOPS: usize = 16;

/// Why an external link's target could not be reached.
enum Unreachable {
    /// More than [`MAX_LINK_HOPS`] soft or external links.
    TooManyLinks,
    /// A missing component, file or object.
    NotFound(String),
}

/// Resolve `path` in `file` (identity `key`), following hard, soft and external links:
/// the file holding the object, its identity and the object's id. `hops` counts the soft and
/// external links traversed, `external` the external ones the library's callback was called
/// for (each registers identifiers, see [`super::oid`]).
fn resolve_across(
    open: &super::Opener<'_>,
    file: Box<dyn DumpFile>,
    key: String,
    path: &str,
    hops: &mut usize,
    external: &mut usize,
) -> Result<(Box<dyn DumpFile>, String, ObjId), Unreachable> {
    let mut cur = file.root();
    let comps: Vec<String> = path
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .map(str::to_string)
        .collect();
    let mut file = file;
    let mut key = key;
    for (i, comp) in comps.iter().enumerate() {
        let links = file
            .links(cur, IndexOrder::Name)
            .map_err(Unreachable::NotFound)?;
        let l = links
            .into_iter()
            .find(|l| &l.name == comp)
            .ok_or_else(|| Unreachable::NotFound(format!("object '{}' doesn't exist", comp)))?;
        match l.target {
            LinkTarget::Hard(id) => cur = id,
            LinkTarget::Soft(t) => {
                *hops += 1;
                if *hops > MAX_LINK_HOPS {
                    return Err(Unreachable::TooManyLinks);
                }
                // A relative soft link is relative to the group holding it.
                let base: Vec<&str> = if t.starts_with('/') {
                    Vec::new()
                } else {
                    comps[..i].iter().map(String::as_str).collect()
                };
                let full = format!("/{}/{}", base.join("/"), t);
                let (f, k, id) = resolve_across(open, file, key, &full, hops, external)?;
                file = f;
                key = k;
                cur = id;
            }
            LinkTarget::External {
                file: fname,
                path: p,
            } => {
                *hops += 1;
                if *hops > MAX_LINK_HOPS {
                    return Err(Unreachable::TooManyLinks);
                }
                *external += 1;
                let (f, k) = open_external(open, &key, &fname).ok_or_else(|| {
                    Unreachable::NotFound(format!(
                        "unable to open external file, external link file name = '{}'",
                        fname
                    ))
                })?;
                let (f, k, id) = resolve_across(open, f, k, &p, hops, external)?;
                file = f;
                key = k;
                cur = id;
            }
            LinkTarget::UserDefined(_) => {
                return Err(Unreachable::NotFound(
                    "traversal callback returned invalid ID".into(),
                ))
            }
        }
    }
    Ok((file, key, cur))
}

fn sort_links(mut v: Vec<Link>, decreasing: bool) -> Vec<Link> {
    if decreasing {
        v.reverse();
    }
    v
}

impl<'a> Dumper<'a> {
    /// A printer over `file`.
    pub fn new(file: &'a dyn DumpFile, opts: Opts) -> Self {
        Dumper {
            file,
            opts: opts.clone(),
            out: Out {
                dest: opts.ddl_dest.clone(),
                ..Out::default()
            },
            err: String::new(),
            status: 0,
            dump_indent: 0,
            tables: Tables::default(),
            prefix: String::new(),
            next_arr: Cell::new(false),
            packed: None,
            ext_open: None,
            file_key: String::new(),
            root_key: String::new(),
            ext_tables: HashMap::new(),
            hit_elink: false,
            file_name: String::new(),
            ext_ref_files: ExtFiles::default(),
            ref_depth: 0,
            ref_chain: Rc::default(),
            ids: Ids::default(),
            pending_oid: None,
        }
    }

    /// `dump_extlink`: print the object an external link points at, one level further in,
    /// with the object tables of its file (an external link into the file first opened is
    /// not followed; targets that cannot be reached are errors on the library's stack only).
    ///
    /// Identifiers (`-i`): `H5Oopen` reaches the target through `H5G__traverse_ud`, which
    /// registers the group holding each external link on the way for the link class's
    /// callback; `H5L_extern_traverse` registers the object each one reaches
    /// (`H5O_open_name`), and `H5Oopen` the target. `handle_groups` or `handle_datasets`
    /// then open the target through the link again, and print that identifier.
    fn dump_extlink(&mut self, file: &str, path: &str) {
        let Some(open) = self.ext_open else {
            self.ids.open(ObjKind::Group);
            return;
        };
        let Some((target, target_key)) = open_external(open, &self.file_key, file) else {
            self.ids.open(ObjKind::Group);
            self.diag(&[
                ("H5Oopen", "unable to open object"),
                (
                    "H5L__extern_traverse",
                    &format!(
                        "unable to open external file, external link file name = '{}'",
                        file
                    ),
                ),
            ]);
            return;
        };
        let mut hops = 1;
        let mut external = 1;
        let resolved = resolve_across(open, target, target_key, path, &mut hops, &mut external);
        for _ in 0..external {
            self.ids.open(ObjKind::Group);
        }
        let (tfile, key, id) = match resolved {
            Ok(r) => r,
            Err(Unreachable::TooManyLinks) => {
                if self.opts.error_stack {
                    self.diag(&[
                        ("H5Oopen", "unable to open object"),
                        ("H5O__open_name", "object not found"),
                        ("H5G_loc_find", "can't find object"),
                        ("H5G_traverse", "internal path traversal failed"),
                        ("H5G__traverse_special", "too many links"),
                    ]);
                    self.err
                        .push_str("    major: Links\n    minor: Too many soft links in path\n");
                }
                return;
            }
            Err(Unreachable::NotFound(why)) => {
                self.diag(&[
                    ("H5Oopen", "unable to open object"),
                    ("H5G_loc_find", "can't find object"),
                    ("H5G__traverse_real", &why),
                ]);
                return;
            }
        };
        let Ok(kind) = tfile.object_info(id).map(|o| o.kind) else {
            return;
        };
        // The objects `H5L_extern_traverse` reached, then the target `H5Oopen` opened.
        for _ in 0..=external {
            self.ids.open(kind);
        }
        if key == self.root_key {
            return;
        }
        // This file's tables go where a link back into it finds them.
        let own = std::mem::take(&mut self.tables);
        self.ext_tables.insert(self.file_key.clone(), own);
        self.dump_extlink_into(tfile.as_ref(), key, id, kind, path, external);
        self.tables = self.ext_tables.remove(&self.file_key).unwrap_or_default();
    }

    fn dump_extlink_into(
        &mut self,
        tfile: &dyn DumpFile,
        key: String,
        id: ObjId,
        kind: ObjKind,
        path: &str,
        external: usize,
    ) {
        let mut child = Dumper::new(tfile, self.opts.clone());
        child.ids = self.ids.clone();
        child.ext_open = self.ext_open;
        child.hit_elink = true;
        child.file_key = key.clone();
        child.root_key = self.root_key.clone();
        // The name the library opened the file as is not kept; its base name is what a
        // target found next to the linking file or in the working directory was opened as.
        child.file_name = std::path::Path::new(&key)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| key.clone());
        child.ext_ref_files = Rc::clone(&self.ext_ref_files);
        child.ext_tables = std::mem::take(&mut self.ext_tables);
        match child.ext_tables.remove(&key) {
            Some(t) => child.tables = t,
            None => {
                if child.build_tables().is_err() {
                    self.ext_tables = std::mem::take(&mut child.ext_tables);
                    return;
                }
            }
        }
        // `handle_groups` / `handle_datasets` open the target through the link once more.
        for _ in 0..external {
            self.ids.open(ObjKind::Group);
            self.ids.open(kind);
        }
        let oid = self.ids.open(kind);
        child.dump_indent = self.dump_indent + COL;
        match kind {
            ObjKind::Group => {
                child.prefix = path.to_string();
                child.dump_indent += COL;
                child.pending_oid = oid;
                child.dump_group(id, path);
                child.dump_indent -= COL;
            }
            ObjKind::Dataset => {
                let shared = true;
                match shared.then(|| child.dataset_seen(id)).flatten() {
                    Some(first) => {
                        let ind = " ".repeat(child.dump_indent);
                        child.out.put(&format!(
                            "\n{}DATASET \"{}\" {{\n{}HARDLINK \"{}\"\n{}}}",
                            ind,
                            path,
                            " ".repeat(child.dump_indent + COL),
                            first,
                            ind
                        ));
                    }
                    None => {
                        child.dump_indent += COL;
                        child.pending_oid = oid;
                        child.dump_dataset(id, path, None);
                        child.dump_indent -= COL;
                    }
                }
            }
            ObjKind::NamedDatatype => {
                child.dump_indent += COL;
                child.dump_named_datatype(id, path);
                child.dump_indent -= COL;
            }
        }
        let text = std::mem::take(&mut child.out.text);
        self.out.put(&text);
        let files = std::mem::take(&mut child.out.files);
        self.out.absorb_files(files);
        self.err.push_str(&child.err);
        if child.status != 0 {
            self.status = child.status;
        }
        let tables = std::mem::take(&mut child.tables);
        self.ext_tables = std::mem::take(&mut child.ext_tables);
        self.ext_tables.insert(key, tables);
    }

    /// The library's error stack for a failed call, printed only with `--enable-error-stack`:
    /// (function, message) from the outermost call inwards.
    pub fn diag(&mut self, frames: &[(&str, &str)]) {
        if !self.opts.error_stack {
            return;
        }
        self.err
            .push_str("HDF5-DIAG: Error detected in HDF5 (1.10.8) thread 1:\n");
        for (i, (func, msg)) in frames.iter().enumerate() {
            self.err
                .push_str(&format!("  #{:03}: {}(): {}\n", i, func, msg));
        }
    }

    /// Print `h5dump error: MSG` to standard error.
    pub fn error_msg(&mut self, msg: &str) {
        self.err.push_str("h5dump error: ");
        self.err.push_str(msg);
        self.err.push('\n');
    }

    /// The base format with the options applied.
    pub fn format(&self) -> Format {
        let mut f = Format::default();
        self.opts.apply_to(&mut f);
        f
    }

    fn ncols(info: &Format) -> usize {
        if info.line_ncols > 0 {
            info.line_ncols
        } else {
            80
        }
    }

    fn order_for(&self, tracked: bool) -> IndexOrder {
        if self.opts.sort_by == IndexOrder::Creation && tracked {
            IndexOrder::Creation
        } else {
            IndexOrder::Name
        }
    }

    /// Traverse the file from the root and fill the group, dataset and named datatype tables
    /// (`init_objs`), in the order h5dump's traversal visits objects.
    pub fn build_tables(&mut self) -> ModelResult<()> {
        // `H5G_visit` registers the group the walk starts from.
        self.ids.open(ObjKind::Group);
        let root = self.file.root();
        let mut seen: HashMap<ObjId, ()> = HashMap::new();
        self.tables.groups.insert(
            root,
            TableObj {
                name: "/".into(),
                displayed: false,
                recorded: true,
            },
        );
        Rc::make_mut(&mut self.tables.paths).insert(root, ("/".into(), ObjKind::Group));
        seen.insert(root, ());
        self.visit(root, "", &mut seen)
    }

    fn visit(
        &mut self,
        group: ObjId,
        path: &str,
        seen: &mut HashMap<ObjId, ()>,
    ) -> ModelResult<()> {
        let info = self.file.object_info(group)?;
        let order = self.order_for(info.links_order_tracked);
        let links = sort_links(self.file.links(group, order)?, self.opts.sort_decreasing);
        for l in links {
            let LinkTarget::Hard(id) = l.target else {
                continue;
            };
            let full = format!("{}/{}", path, l.name);
            // An object that cannot be opened makes the traversal fail, as `H5Lvisit` with
            // h5dump's `find_objs_cb` does.
            let oi = self
                .file
                .object_info(id)
                .map_err(|e| format!("unable to open \"{}\": {}", full, e))?;
            let already = seen.contains_key(&id);
            if already {
                continue;
            }
            seen.insert(id, ());
            Rc::make_mut(&mut self.tables.paths).insert(id, (full.clone(), oi.kind));
            let entry = TableObj {
                name: full.clone(),
                displayed: false,
                recorded: true,
            };
            match oi.kind {
                ObjKind::Group => {
                    self.tables.groups.insert(id, entry);
                    self.visit(id, &full, seen)?;
                }
                ObjKind::Dataset => {
                    self.tables.dsets.insert(id, entry);
                    if let Ok(d) = self.file.dataset(id) {
                        // `find_objs_cb` opens the dataset to look at its datatype.
                        self.ids.open(ObjKind::Dataset);
                        if let Some(t) = d.datatype.committed {
                            if self.tables.type_entry(t).is_none() {
                                self.tables.types.push((
                                    t,
                                    TableObj {
                                        name: full.clone(),
                                        displayed: false,
                                        recorded: false,
                                    },
                                ));
                            }
                        }
                    }
                }
                ObjKind::NamedDatatype => match self.tables.type_entry(id) {
                    Some(e) => {
                        e.name = full.clone();
                        e.recorded = true;
                    }
                    None => self.tables.types.push((id, entry)),
                },
            }
        }
        Ok(())
    }

    /// If dataset `id` was displayed already, its first path; otherwise mark it displayed.
    pub fn dataset_seen(&mut self, id: ObjId) -> Option<String> {
        match self.tables.dsets.get_mut(&id) {
            Some(o) if o.displayed => Some(o.name.clone()),
            Some(o) => {
                o.displayed = true;
                None
            }
            None => None,
        }
    }

    /// The anonymous committed datatype h5dump calls `/#ADDR`.
    pub fn anonymous_type(&self, name: &str) -> Option<ObjId> {
        self.tables
            .types
            .iter()
            .find(|(a, o)| !o.recorded && format!("/#{}", a) == name)
            .map(|(a, _)| *a)
    }

    fn values(&self) -> Values<'a> {
        Values {
            file: self.file,
            paths: Rc::clone(&self.tables.paths),
            next_arr: Cell::new(self.next_arr.get()),
            packed: self.packed,
            ids: self.ids.clone(),
            refs: super::value::RefEnv {
                file_name: self.file_name.clone(),
                file_key: self.file_key.clone(),
                open: self.ext_open,
                ext: Rc::clone(&self.ext_ref_files),
            },
        }
    }

    // ----- datatypes and dataspaces -------------------------------------------------------

    /// `h5tools_print_datatype`: append the datatype text to `buf`, flushing lines through the
    /// renderer for multi-line types.
    pub fn print_datatype(
        &mut self,
        buf: &mut String,
        info: &Format,
        ctx: &mut Ctx,
        t: &TypeRef,
        object_search: bool,
    ) {
        if object_search {
            if let Some(addr) = t.committed {
                let found = self
                    .tables
                    .types
                    .iter()
                    .find(|(a, _)| *a == addr)
                    .map(|(_, o)| o.clone());
                match found {
                    Some(o) if !o.recorded => buf.push_str(&format!("\"/#{}\"", addr)),
                    Some(o) => buf.push_str(&format!("\"{}\"", o.name)),
                    None => {
                        self.error_msg("unknown committed type.");
                        self.status = 1;
                    }
                }
                return;
            }
        }
        let ncols = Self::ncols(info);
        let dt = &t.datatype;
        match dt {
            Datatype::Integer(_) | Datatype::Float(_) | Datatype::Bitfield(_) => {
                buf.push_str(&atomic_name(dt, self.opts.compat));
            }
            Datatype::Time(_) => buf.push_str("H5T_TIME: not yet implemented"),
            Datatype::String(s) => {
                buf.push_str("H5T_STRING {");
                self.out.render_element(info, ctx, buf, ncols, 0, 0);
                ctx.indent_level += 1;
                let lines = [
                    match s.string_size() {
                        StringSize::Variable => "STRSIZE H5T_VARIABLE;".to_string(),
                        StringSize::Fixed(n) => format!("STRSIZE {};", n),
                    },
                    format!(
                        "STRPAD {};",
                        match s.pad() {
                            StrPad::NullTerm => "H5T_STR_NULLTERM",
                            StrPad::NullPad => "H5T_STR_NULLPAD",
                            StrPad::SpacePad => "H5T_STR_SPACEPAD",
                        }
                    ),
                    format!(
                        "CSET {};",
                        match s.cset() {
                            CharSet::Ascii => "H5T_CSET_ASCII",
                            CharSet::Utf8 => "H5T_CSET_UTF8",
                        }
                    ),
                    "CTYPE H5T_C_S1;".to_string(),
                ];
                for l in lines {
                    ctx.need_prefix = true;
                    buf.clear();
                    buf.push_str(&l);
                    self.out.render_element(info, ctx, buf, ncols, 0, 0);
                }
                ctx.indent_level -= 1;
                ctx.need_prefix = true;
                buf.clear();
                buf.push('}');
            }
            Datatype::Opaque(o) => {
                buf.push_str("H5T_OPAQUE {");
                self.out.render_element(info, ctx, buf, ncols, 0, 0);
                ctx.indent_level += 1;
                ctx.need_prefix = true;
                buf.clear();
                buf.push_str(&format!("OPAQUE_TAG \"{}\";", o.tag()));
                self.out.render_element(info, ctx, buf, ncols, 0, 0);
                ctx.indent_level -= 1;
                ctx.need_prefix = true;
                buf.clear();
                buf.push('}');
            }
            Datatype::Compound(c) => {
                buf.push_str("H5T_COMPOUND {");
                self.out.render_element(info, ctx, buf, ncols, 0, 0);
                ctx.indent_level += 1;
                for m in c.members() {
                    ctx.need_prefix = true;
                    buf.clear();
                    self.print_datatype(buf, info, ctx, &m.datatype().clone().into(), true);
                    buf.push_str(&format!(" \"{}\";", m.name()));
                    self.out.render_element(info, ctx, buf, ncols, 0, 0);
                }
                ctx.indent_level -= 1;
                ctx.need_prefix = true;
                buf.clear();
                buf.push('}');
            }
            Datatype::Reference(r) => {
                buf.push_str("H5T_REFERENCE");
                buf.push_str(match r.kind() {
                    ReferenceKind::DatasetRegion => " { H5T_STD_REF_DSETREG }",
                    ReferenceKind::Object => " { H5T_STD_REF_OBJECT }",
                    // Revised references (`H5T_STD_REF`, whatever kind the file's
                    // datatype message names): 1.10.8 cannot read them and printed
                    // UNDEFINED; both modes print what 2.x prints.
                    ReferenceKind::Revised
                    | ReferenceKind::Object2
                    | ReferenceKind::DatasetRegion2
                    | ReferenceKind::Attribute => " { H5T_STD_REF }",
                });
            }
            Datatype::Enum(e) => {
                buf.push_str("H5T_ENUM {");
                self.out.render_element(info, ctx, buf, ncols, 0, 0);
                ctx.indent_level += 1;
                ctx.need_prefix = true;
                buf.clear();
                buf.push_str(&atomic_name(
                    &Datatype::Integer(*e.base()),
                    self.opts.compat,
                ));
                buf.push(';');
                self.out.render_element(info, ctx, buf, ncols, 0, 0);
                for m in e.members() {
                    ctx.need_prefix = true;
                    self.out.simple_prefix(info, ctx, 0, 0);
                    buf.clear();
                    buf.push_str(&format!("\"{}\"", m.name()));
                    let n = m.name().len();
                    buf.push_str(&" ".repeat(16usize.saturating_sub(n)));
                    buf.push(' ');
                    let v = h5::types::compose::decode_int(e.base(), m.raw_value()).unwrap_or(0);
                    if e.base().size() > 8 {
                        buf.push_str("0x");
                        for b in m.raw_value() {
                            buf.push_str(&format!("{:02x}", b));
                        }
                    } else if e.base().sign() == Sign::None {
                        buf.push_str(&(v as u64).to_string());
                    } else {
                        buf.push_str(&(v as i64).to_string());
                    }
                    buf.push(';');
                    self.out.render_element(info, ctx, buf, ncols, 0, 0);
                }
                ctx.indent_level -= 1;
                ctx.need_prefix = true;
                buf.clear();
                buf.push('}');
            }
            Datatype::VarLen(v) => {
                buf.push_str("H5T_VLEN { ");
                self.print_datatype(buf, info, ctx, &v.base().clone().into(), true);
                // HDF5 2.x closes a sequence of complex numbers with " }".
                if matches!(v.base(), Datatype::Complex(_)) {
                    buf.push(' ');
                }
                buf.push('}');
            }
            Datatype::Array(a) => {
                buf.push_str("H5T_ARRAY { ");
                for d in a.dims() {
                    buf.push_str(&format!("[{}]", d));
                }
                buf.push(' ');
                self.print_datatype(buf, info, ctx, &a.base().clone().into(), true);
                buf.push_str(" }");
            }
            Datatype::Complex(c) => {
                // HDF5 2.x names complex types after their IEEE base type.
                // (1.10.8 cannot read complex numbers: both modes print the 2.x form.)
                let base = atomic_name(&Datatype::Float(*c.base()), Compat::V2_0);
                match base.strip_prefix("H5T_IEEE_") {
                    Some(rest) => buf.push_str(&format!("H5T_COMPLEX_IEEE_{}", rest)),
                    None => buf.push_str(&format!("H5T_COMPLEX {{ {} }}", base)),
                }
            }
        }
    }

    /// `h5tools_dump_datatype`: the `DATATYPE  ...` line(s).
    pub fn dump_datatype(&mut self, info: &Format, ctx: &mut Ctx, t: &TypeRef) {
        ctx.need_prefix = true;
        let mut buf = String::from("DATATYPE  ");
        self.print_datatype(&mut buf, info, ctx, t, true);
        let ncols = Self::ncols(info);
        self.out.render_element(info, ctx, &buf, ncols, 0, 0);
    }

    /// `h5tools_dump_oid` (`-i`): `OBJECTID { N }`.
    pub fn dump_oid(&mut self, info: &Format, ctx: &mut Ctx, oid: Option<u64>) {
        if let (true, Some(n)) = (self.opts.display_oid, oid) {
            self.out.line(info, ctx, &format!("OBJECTID {{ {} }}", n));
        }
    }

    /// `h5tools_dump_dataspace`: the `DATASPACE  ...` line.
    pub fn dump_dataspace(&mut self, info: &Format, ctx: &mut Ctx, s: &Space) {
        let text = format!("DATASPACE {}", dataspace_text(s));
        self.out.line(info, ctx, &text);
    }

    // ----- attributes ---------------------------------------------------------------------

    /// Print every attribute of `obj` (`attr_iteration`).
    pub fn attr_iteration(&mut self, obj: ObjId, tracked: bool) {
        if !self.opts.include_attrs {
            return;
        }
        let order = self.order_for(tracked);
        match self.file.attributes(obj, order) {
            Ok(mut attrs) => {
                if self.opts.sort_decreasing {
                    attrs.reverse();
                }
                for a in attrs {
                    let mut ctx = Ctx::at(self.dump_indent);
                    ctx.display_index = self.opts.display_ai;
                    ctx.display_char = self.opts.display_char;
                    let info = self.format();
                    self.dump_attribute(&info, &mut ctx, obj, &a);
                }
            }
            Err(_) => {
                self.error_msg("error getting attribute information");
                self.status = 1;
            }
        }
    }

    /// `h5tools_dump_attribute`.
    pub fn dump_attribute(&mut self, info: &Format, ctx: &mut Ctx, obj: ObjId, a: &AttrInfo) {
        // `dump_attr_cb` (and `handle_attributes`) open the attribute first.
        let aid = self.ids.open_attribute();
        self.out
            .line(info, ctx, &format!("ATTRIBUTE \"{}\" {{", a.name));
        ctx.indent_level += 1;
        self.dump_datatype(info, ctx, &a.datatype);
        self.dump_dataspace(info, ctx, &a.space);
        self.dump_oid(info, ctx, Some(aid));
        if self.opts.display_data || self.opts.display_attr_data {
            let data = self.file.attribute_data(obj, &a.name);
            self.dump_data(
                info,
                ctx,
                &a.datatype.datatype,
                &a.space,
                DataSource::Attr(data),
            );
        }
        ctx.indent_level -= 1;
        self.out.line(info, ctx, "}");
    }

    // ----- data ---------------------------------------------------------------------------

    /// `h5tools_dump_data` for an attribute or a whole dataset.
    fn dump_data(
        &mut self,
        info: &Format,
        ctx: &mut Ctx,
        dt: &Datatype,
        space: &Space,
        src: DataSource,
    ) {
        self.dump_data_sub(info, ctx, dt, space, src, None)
    }

    /// `h5tools_dump_data` with an optional subset (datasets only).
    fn dump_data_sub(
        &mut self,
        info: &Format,
        ctx: &mut Ctx,
        dt: &Datatype,
        space: &Space,
        src: DataSource,
        sset: Option<&Subset>,
    ) {
        let ncols = Self::ncols(info);
        let outputformat = info.clone();
        let mut sformat = info.with_indices(ctx.display_index);
        let sset = if matches!(src, DataSource::Dataset(_)) {
            sset
        } else {
            None
        };
        if let Some(sub) = sset {
            let r = space.dims().len();
            let l = |v: &Option<Vec<u64>>| -> String {
                match v {
                    Some(v) => pad_to_rank(v, r)
                        .iter()
                        .map(|x| x.to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    None => "DEFAULT".into(),
                }
            };
            self.out.line(&outputformat, ctx, "SUBSET {");
            ctx.indent_level += 1;
            self.out
                .line(&outputformat, ctx, &format!("START ( {} );", l(&sub.start)));
            self.out.line(
                &outputformat,
                ctx,
                &format!("STRIDE ( {} );", l(&sub.stride)),
            );
            self.out
                .line(&outputformat, ctx, &format!("COUNT ( {} );", l(&sub.count)));
            self.out
                .line(&outputformat, ctx, &format!("BLOCK ( {} );", l(&sub.block)));
            ctx.indent_level -= 1;
            ctx.indent_level += 1;
        }
        ctx.need_prefix = true;
        self.out
            .render_element(&outputformat, ctx, "DATA {", ncols, 0, 0);
        let is_ref = matches!(dt, Datatype::Reference(_));
        if is_ref {
            ctx.indent_level += 1;
            let mut dctx = ctx.clone();
            if let Datatype::Reference(r) = dt {
                let old = matches!(
                    r.kind(),
                    ReferenceKind::Object | ReferenceKind::DatasetRegion
                );
                dctx.init_acc_pos(space.dims());
                dctx.need_prefix = true;
                match src.all_bytes(self.file, space) {
                    Ok(bytes) if old && self.opts.compat == Compat::V1_10 => {
                        self.dump_reference(&outputformat, &mut dctx, dt, &bytes, space)
                    }
                    // Revised references in both modes (1.10.8 cannot read them), old ones
                    // in 2.0 mode: read as `H5T_STD_REF` and dereferenced as 2.x does.
                    Ok(bytes) => {
                        self.dump_reference_v2(&outputformat, &mut dctx, dt, &bytes, space)
                    }
                    Err(e) => self.error_msg(&e),
                }
            }
            ctx.indent_level -= 1;
        } else {
            let mut dctx = ctx.clone();
            let char_mode =
                dctx.display_char && dt.size() == 1 && dt.class() == h5::types::Class::Integer;
            if char_mode {
                sformat.idx_fmt = "\"";
                dctx.indent_level += 1;
                dctx.need_prefix = true;
                self.out.simple_prefix(&sformat, &mut dctx, 0, 0);
                sformat.line_multi_new = true;
                sformat.str_repeat = 8;
                sformat.ascii = true;
                sformat.elmt_suf1 = "";
                sformat.elmt_suf2 = "";
                sformat.line_suf = "\"";
            } else {
                dctx.need_prefix = true;
            }
            let ok = match (&src, space) {
                (_, Space::Null) => Ok(()),
                (DataSource::Attr(d), _) => match d {
                    Ok(bytes) => {
                        let bytes = bytes.clone();
                        let saved =
                            std::mem::replace(&mut self.out.dest, self.opts.attr_dest.clone());
                        self.dump_mem(&sformat, &mut dctx, dt, space, &bytes);
                        self.out.dest = saved;
                        Ok(())
                    }
                    Err(e) => Err(e.clone()),
                },
                (DataSource::Dataset(id), _) => {
                    let saved = std::mem::replace(&mut self.out.dest, self.opts.data_dest.clone());
                    let r = match sset {
                        Some(sub) => {
                            self.dump_simple_subset(&sformat, &mut dctx, *id, dt, space, sub)
                        }
                        None => self.dump_simple_dset(&sformat, &mut dctx, *id, dt, space),
                    };
                    self.out.dest = saved;
                    r
                }
            };
            if char_mode {
                dctx.need_prefix = false;
                sformat.arr_linebreak = false;
                sformat.idx_fmt = "";
                sformat.line_multi_new = false;
                sformat.line_suf = "";
                self.out
                    .render_element(&sformat, &mut dctx, "\"", ncols, 0, 0);
            }
            if let Err(e) = &ok {
                if let Some(name) = unavailable_filter(e) {
                    // The reference library's stack for a filter it has no code for: the
                    // plugin search fails (all plugins off with HDF5_PLUGIN_PRELOAD="::").
                    let plugins_off = std::env::var("HDF5_PLUGIN_PRELOAD").is_ok_and(|v| v == "::");
                    let pipeline = format!("required filter '{}' is not registered", name);
                    self.diag(&[
                        ("H5Dread", "can't read data"),
                        ("H5D__read", "can't read data"),
                        ("H5D__chunk_read", "unable to read raw data chunk"),
                        ("H5D__chunk_lock", "data pipeline read failed"),
                        ("H5Z_pipeline", &pipeline),
                        (
                            "H5PL_load",
                            if plugins_off {
                                "filter plugins disabled"
                            } else {
                                "search in paths failed"
                            },
                        ),
                    ]);
                }
                self.error_msg("unable to print data");
                self.status = 1;
            }
        }
        ctx.need_prefix = true;
        self.out.simple_prefix(&outputformat, ctx, 0, 0);
        self.out
            .render_element(&outputformat, ctx, "}", ncols, 0, 0);
        if sset.is_some() {
            ctx.indent_level -= 1;
            ctx.need_prefix = true;
            self.out.simple_prefix(&outputformat, ctx, 0, 0);
            self.out
                .render_element(&outputformat, ctx, "}", ncols, 0, 0);
        }
    }

    /// Read the elements at `coords` (row-major list of coordinates), in runs along the last
    /// dimension.
    fn read_points(&self, id: ObjId, coords: &[Vec<u64>]) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < coords.len() {
            let start = &coords[i];
            let r = start.len();
            let mut j = i + 1;
            while j < coords.len()
                && r > 0
                && coords[j][..r - 1] == start[..r - 1]
                && coords[j][r - 1] == start[r - 1] + (j - i) as u64
            {
                j += 1;
            }
            let mut count = vec![1u64; r];
            if r > 0 {
                count[r - 1] = (j - i) as u64;
            }
            out.extend(self.file.read(id, start, &count)?);
            i = j;
        }
        Ok(out)
    }

    /// `h5tools_dump_simple_subset` with `h5tools_display_simple_subset` and
    /// `h5tools_print_simple_subset`: one strip per row of the subset.
    fn dump_simple_subset(
        &mut self,
        info: &Format,
        ctx: &mut Ctx,
        id: ObjId,
        dt: &Datatype,
        space: &Space,
        sub: &Subset,
    ) -> Result<(), String> {
        let total = space.dims().to_vec();
        let nd = total.len();
        if nd == 0 {
            return self.dump_simple_dset(info, ctx, id, dt, space);
        }
        ctx.init_acc_pos(&total);
        ctx.size_last_dim = total.last().copied().unwrap_or(0);
        let get = |v: &Option<Vec<u64>>, d: u64| -> Vec<u64> {
            match v {
                Some(v) => pad_to_rank(v, nd),
                None => vec![d; nd],
            }
        };
        let (start, stride, count, block) = (
            get(&sub.start, 0),
            get(&sub.stride, 1),
            get(&sub.count, 1),
            get(&sub.block, 1),
        );
        let row_dim = if nd == 1 { 0 } else { nd - 2 };
        let outer_count: u64 = count.iter().take(nd.saturating_sub(2)).product();
        let mut ts = start.clone();
        let mut tc = count.clone();
        let mut tb = block.clone();
        let mut tst = stride.clone();
        let mut max_start = vec![0u64; nd];
        for i in 0..nd.saturating_sub(2) {
            max_start[i] = ts[i] + count[i] * stride[i];
            tc[i] = 1;
        }
        for _ in 0..outer_count {
            let mut hcount = if nd > 1 {
                tc[row_dim] = 1;
                tb[row_dim] = 1;
                if block[row_dim] > 1 {
                    tst[row_dim] = 1;
                }
                count[row_dim] * block[row_dim]
            } else {
                1
            };
            let size_row_block = block[row_dim];
            let mut row_counter = 0u64;
            while hcount > 0 {
                if size_row_block > 1
                    && row_counter == size_row_block
                    && stride[row_dim] > block[row_dim]
                {
                    ts[row_dim] += stride[row_dim] - block[row_dim];
                    row_counter = 0;
                }
                row_counter += 1;
                let per_dim: Vec<Vec<u64>> = (0..nd)
                    .map(|d| {
                        let mut v = Vec::new();
                        for k in 0..tc[d] {
                            for b in 0..tb[d] {
                                v.push(ts[d] + k * tst[d] + b);
                            }
                        }
                        v
                    })
                    .collect();
                let n: u64 = per_dim.iter().map(|v| v.len() as u64).product();
                if n == 0 {
                    return Ok(());
                }
                if per_dim
                    .iter()
                    .zip(&total)
                    .any(|(v, &t)| v.iter().any(|&x| x >= t))
                {
                    return Err("selection outside the dataspace".into());
                }
                let mut coords = Vec::with_capacity(n as usize);
                let mut idx = vec![0usize; nd];
                for _ in 0..n {
                    coords.push((0..nd).map(|d| per_dim[d][idx[d]]).collect::<Vec<u64>>());
                    for d in (0..nd).rev() {
                        idx[d] += 1;
                        if idx[d] < per_dim[d].len() {
                            break;
                        }
                        idx[d] = 0;
                    }
                }
                let bytes = self.read_points(id, &coords)?;
                let mut sm_pos = 0u64;
                for i in 0..nd {
                    let low = per_dim[i].first().copied().unwrap_or(0);
                    let offset: u64 = total[i + 1..].iter().product();
                    sm_pos += low * offset;
                }
                ctx.sm_pos = sm_pos;
                ctx.need_prefix = true;
                self.dump_simple_data(info, ctx, hcount == 1, dt, &bytes, n);
                ctx.continuation += 1;
                ts[row_dim] += tst[row_dim];
                hcount -= 1;
            }
            if nd > 2 {
                let mut cur = nd as isize - 3;
                for t in ts.iter_mut().zip(&start).skip((cur + 1) as usize) {
                    *t.0 = *t.1;
                }
                while cur >= 0 {
                    let c = cur as usize;
                    ts[c] += stride[c];
                    if ts[c] >= max_start[c] {
                        ts[c] = start[c];
                        cur -= 1;
                    } else {
                        break;
                    }
                }
            }
        }
        Ok(())
    }

    /// `h5tools_dump_simple_data`: render `nelmts` elements.
    fn dump_simple_data(
        &mut self,
        info: &Format,
        ctx: &mut Ctx,
        end_of_data: bool,
        dt: &Datatype,
        bytes: &[u8],
        nelmts: u64,
    ) {
        let size = dt.size();
        let ncols = Self::ncols(info);
        if let (Some(form), Dest::File(name)) = (self.opts.binary.clone(), self.out.dest.clone()) {
            let n = (nelmts as usize).saturating_mul(size).min(bytes.len());
            let data = super::value::binary_form(dt, &bytes[..n], &form);
            self.out.put_file(&name, &data);
            return;
        }
        let mut elmt_counter = 0u64;
        let values = self.values();
        for i in 0..nelmts {
            let start = (i as usize).saturating_mul(size);
            let eb = bytes.get(start..start + size).unwrap_or(&[]);
            let mut s = String::new();
            values.sprint(&mut s, info, ctx, dt, eb);
            if i + 1 < nelmts || !end_of_data {
                s.push_str(info.elmt_suf1);
            }
            let brk = self
                .out
                .render_element(info, ctx, &s, ncols, i, elmt_counter);
            if !brk {
                elmt_counter = 0;
            }
            ctx.cur_elmt += 1;
            elmt_counter += 1;
        }
        self.next_arr.set(values.next_arr.get());
    }

    fn dump_mem(
        &mut self,
        info: &Format,
        ctx: &mut Ctx,
        dt: &Datatype,
        space: &Space,
        bytes: &[u8],
    ) {
        let dims = space.dims().to_vec();
        ctx.init_acc_pos(&dims);
        ctx.size_last_dim = dims.last().copied().unwrap_or(0);
        let n = space.npoints();
        if n == 0 {
            return;
        }
        self.dump_simple_data(info, ctx, true, dt, bytes, n);
    }

    fn dump_simple_dset(
        &mut self,
        info: &Format,
        ctx: &mut Ctx,
        id: ObjId,
        dt: &Datatype,
        space: &Space,
    ) -> Result<(), String> {
        let dims = space.dims().to_vec();
        ctx.init_acc_pos(&dims);
        let total: u64 = dims.iter().product();
        ctx.size_last_dim = dims.last().copied().unwrap_or(0);
        if total == 0 && !dims.is_empty() {
            return Ok(());
        }
        let nsize = dt.native_type().map(|t| t.size()).unwrap_or(dt.size()) as u64;
        for strip in super::render::StripMine::new(&dims, nsize) {
            let bytes = self.file.read(id, &strip.offset, &strip.count)?;
            ctx.sm_pos = strip.elmtno;
            self.dump_simple_data(info, ctx, strip.end, dt, &bytes, strip.n);
            ctx.continuation += 1;
        }
        Ok(())
    }

    /// `h5tools_dump_reference`: object and region references at the top level of a dataset or
    /// attribute.
    fn dump_reference(
        &mut self,
        info: &Format,
        ctx: &mut Ctx,
        dt: &Datatype,
        bytes: &[u8],
        space: &Space,
    ) {
        let n = space.npoints();
        let size = dt.size();
        let ncols = Self::ncols(info);
        let values = self.values();
        let mut strs = Vec::new();
        for i in 0..n as usize {
            let eb = bytes.get(i * size..(i + 1) * size).unwrap_or(&[]);
            let mut s = String::new();
            values.sprint(&mut s, info, ctx, dt, eb);
            strs.push((s, eb.to_vec()));
        }
        drop(values);
        for (i, (s, eb)) in strs.into_iter().enumerate() {
            ctx.need_prefix = true;
            self.out.render_element(info, ctx, &s, ncols, i as u64, n);
            if eb.iter().all(|&b| b == 0) {
                ctx.cur_elmt += 1;
                continue;
            }
            let target = self.file.dereference(&eb).ok().flatten();
            match target {
                Some(RefTarget::Object(id)) => {
                    if let Ok(oi) = self.file.object_info(id) {
                        // The target is dereferenced again to print what it holds.
                        self.ids.open(oi.kind);
                        if oi.kind == ObjKind::Dataset {
                            if let Ok(d) = self.file.dataset(id) {
                                ctx.indent_level += 1;
                                let dt2 = d.datatype.datatype.clone();
                                self.dump_data(info, ctx, &dt2, &d.space, DataSource::Dataset(id));
                                ctx.indent_level -= 1;
                            }
                        } else {
                            // `h5tools_dump_data` on a group or named datatype: an empty
                            // DATA block (it has no dataspace to print).
                            ctx.indent_level += 1;
                            let dt2 = dt.clone();
                            self.dump_data(
                                info,
                                ctx,
                                &dt2,
                                &Space::Null,
                                DataSource::Attr(Ok(Vec::new())),
                            );
                            ctx.indent_level -= 1;
                        }
                    }
                }
                Some(RefTarget::Region { dataset, selection }) => {
                    self.dump_region(info, ctx, dataset, &selection, (i as u64, i as u64));
                }
                None => {}
            }
            ctx.cur_elmt += 1;
        }
    }

    /// The region part of a dataset region reference (`h5tools_dump_region_data_blocks` and
    /// `h5tools_dump_region_data_points` without `-R` data).
    fn dump_region(
        &mut self,
        info: &Format,
        ctx: &mut Ctx,
        dataset: ObjId,
        sel: &Region,
        counters: (u64, u64),
    ) {
        let ncols = Self::ncols(info);
        let (i, elmt_counter) = counters;
        let Ok(d) = self.file.dataset(dataset) else {
            return;
        };
        // `H5Rdereference2` of the region's dataset.
        self.ids.open(ObjKind::Dataset);
        let mut noidx = info.clone();
        noidx.idx_n = false;
        noidx.idx_fmt = "";
        noidx.idx_sep = "";
        noidx.line_pre = false;
        let (open, mut text) = match sel {
            Region::Blocks(_) => (" {", String::from("REGION_TYPE BLOCK  ")),
            Region::Points(_) => ("{", String::from("REGION_TYPE POINT  ")),
            // "invalid region type": nothing is printed.
            Region::All | Region::None | Region::Unlimited => return,
        };
        self.out
            .render_element(&noidx, ctx, open, ncols, i, elmt_counter);
        ctx.indent_level += 1;
        ctx.need_prefix = true;
        let coords = |v: &[u64]| {
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        match sel {
            Region::Blocks(blocks) => {
                for (k, (a, b)) in blocks.iter().enumerate() {
                    if k > 0 {
                        text.push_str(",\u{1} ");
                    }
                    text.push_str(&format!("({})-({})", coords(a), coords(b)));
                }
            }
            Region::Points(points) => {
                for (k, p) in points.iter().enumerate() {
                    if k > 0 {
                        text.push_str(",\u{1} ");
                    }
                    text.push_str(&format!("({})", coords(p)));
                }
            }
            Region::All | Region::None | Region::Unlimited => {}
        }
        self.out
            .render_element(info, ctx, &text, ncols, i, elmt_counter);
        ctx.need_prefix = true;
        let mut buf = String::from("DATATYPE  ");
        ctx.indent_level += 1;
        self.print_datatype(&mut buf, info, ctx, &d.datatype, true);
        ctx.indent_level -= 1;
        self.out
            .render_element(info, ctx, &buf, ncols, i, elmt_counter);
        ctx.need_prefix = true;
        let sp = format!("DATASPACE {}", dataspace_text(&d.space));
        self.out
            .render_element(info, ctx, &sp, ncols, i, elmt_counter);
        if self.opts.display_region {
            ctx.need_prefix = true;
            self.out
                .render_element(info, ctx, "DATA {", ncols, i, elmt_counter);
            ctx.need_prefix = true;
            // The region's values go where data goes (`-o`); its header stays in the DDL.
            let saved = std::mem::replace(&mut self.out.dest, self.opts.data_dest.clone());
            self.region_data(info, ctx, dataset, &d, sel);
            self.out.dest = saved;
            ctx.need_prefix = true;
            self.out
                .render_element(&noidx, ctx, "}", ncols, i, elmt_counter);
        }
        ctx.indent_level -= 1;
        ctx.need_prefix = true;
        self.out
            .render_element(info, ctx, "}", ncols, i, elmt_counter);
    }

    /// `h5tools_print_virtual_selection`.
    fn virtual_selection(&mut self, info: &Format, ctx: &mut Ctx, sel: &VdsSelection) {
        let ncols = Self::ncols(info);
        let list = |v: &[u64]| -> String {
            v.iter()
                .map(|&x| {
                    if x == u64::MAX {
                        "H5S_UNLIMITED".to_string()
                    } else {
                        x.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        match sel {
            VdsSelection::None => self.out.line(info, ctx, "SELECTION NONE"),
            VdsSelection::All => self.out.line(info, ctx, "SELECTION ALL"),
            VdsSelection::Points(points) => {
                let mut s = String::from("POINT { ");
                for (k, p) in points.iter().enumerate() {
                    if k > 0 {
                        s.push_str(",\u{1} ");
                    }
                    s.push_str(&format!("({})", list(p)));
                }
                s.push_str(" }");
                self.out.render_element(info, ctx, &s, ncols, 0, 0);
            }
            VdsSelection::Regular {
                start,
                stride,
                count,
                block,
            } => {
                ctx.need_prefix = true;
                self.out
                    .render_element(info, ctx, "SELECTION REGULAR_HYPERSLAB { ", ncols, 0, 0);
                let ind = Out::indent_str(info, ctx);
                let s = format!(
                    "{}START ({})\n{}STRIDE ({})\n{}COUNT ({})\n{}BLOCK ({})",
                    info.line_indent,
                    list(start),
                    ind,
                    list(stride),
                    ind,
                    list(count),
                    ind,
                    list(block)
                );
                self.out.render_element(info, ctx, &s, ncols, 0, 0);
                self.out.line(info, ctx, "}");
            }
            VdsSelection::Blocks(blocks) => {
                ctx.need_prefix = true;
                self.out
                    .render_element(info, ctx, "SELECTION IRREGULAR_HYPERSLAB { ", ncols, 0, 0);
                ctx.indent_level += 1;
                ctx.need_prefix = true;
                self.out.simple_prefix(info, ctx, 0, 0);
                let mut s = String::new();
                for (k, (a, b)) in blocks.iter().enumerate() {
                    if k > 0 {
                        s.push_str(",\u{1} ");
                    }
                    s.push_str(&format!("({})-({})", list(a), list(b)));
                }
                ctx.indent_level -= 1;
                self.out.render_element(info, ctx, &s, ncols, 0, 0);
                self.out.line(info, ctx, "}");
            }
        }
    }

    /// `h5tools_print_region_data_blocks` / `_points`: the values a region selects (`-R`).
    fn region_data(
        &mut self,
        info: &Format,
        cur: &Ctx,
        dataset: ObjId,
        d: &DatasetInfo,
        sel: &Region,
    ) {
        let ncols = Self::ncols(info);
        let dt = d.datatype.datatype.clone();
        let size = dt.size();
        let mut ctx = Ctx {
            indent_level: cur.indent_level,
            cur_column: cur.cur_column,
            prev_multiline: cur.prev_multiline,
            ..Ctx::default()
        };
        let values = self.values();
        match sel {
            Region::Blocks(blocks) => {
                let nblocks = blocks.len();
                for (k, (a, b)) in blocks.iter().enumerate() {
                    let dims1: Vec<u64> = a.iter().zip(b).map(|(x, y)| y - x + 1).collect();
                    ctx.need_prefix = true;
                    ctx.cur_elmt = 0;
                    let Ok(bytes) = self.file.read(dataset, a, &dims1) else {
                        continue;
                    };
                    ctx.indent_level += 1;
                    ctx.init_acc_pos(&dims1);
                    ctx.sm_pos = 0;
                    ctx.size_last_dim = dims1.last().copied().unwrap_or(0);
                    self.out.prefix_with(info, &mut ctx, "");
                    let numelem: u64 = dims1.iter().product();
                    let mut elmtno = 0u64;
                    for n in 0..numelem {
                        let mut s = String::new();
                        if n > 0 {
                            s.push('\u{1}');
                        }
                        let eb = bytes
                            .get(n as usize * size..(n as usize + 1) * size)
                            .unwrap_or(&[]);
                        values.sprint(&mut s, info, &mut ctx, &dt, eb);
                        if n + 1 < numelem || k + 1 < nblocks {
                            s.push_str(info.elmt_suf1);
                        }
                        let brk = self
                            .out
                            .render_region_element(info, &mut ctx, &s, ncols, n, elmtno);
                        elmtno = if brk { elmtno + 1 } else { 1 };
                        ctx.cur_elmt += 1;
                    }
                    ctx.indent_level -= 1;
                }
            }
            Region::Points(points) => {
                let npoints = points.len();
                let mut elmtno = 0u64;
                for (j, p) in points.iter().enumerate() {
                    ctx.need_prefix = true;
                    ctx.cur_elmt = 0;
                    ctx.indent_level += 1;
                    ctx.size_last_dim = 0;
                    let count = vec![1u64; p.len()];
                    let eb = self.file.read(dataset, p, &count).unwrap_or_default();
                    self.out.prefix_with(info, &mut ctx, "");
                    let mut s = String::new();
                    if j > 0 {
                        s.push('\u{1}');
                    }
                    values.sprint(&mut s, info, &mut ctx, &dt, &eb);
                    if j + 1 < npoints {
                        s.push_str(info.elmt_suf1);
                    }
                    let brk = self
                        .out
                        .render_region_element(info, &mut ctx, &s, ncols, 0, elmtno);
                    elmtno = if brk { elmtno + 1 } else { 1 };
                    ctx.indent_level -= 1;
                }
            }
            Region::All | Region::None | Region::Unlimited => {}
        }
    }

    // ----- contents (-n) -------------------------------------------------------------------

    /// `dump_fcontents`: the `FILE_CONTENTS` list (`-n`, with attributes if `with_attrs`).
    pub fn dump_fcontents(&mut self, with_attrs: bool) {
        let mut text = String::from("FILE_CONTENTS {\n");
        for (addr, o) in &self.tables.types {
            if !o.recorded {
                text.push_str(&format!(" {:<10} /#{}\n", "datatype", addr));
            }
        }
        let root = self.file.root();
        text.push_str(&format!(" {:<10} {}\n", "group", "/"));
        if with_attrs {
            self.contents_attrs(&mut text, root, "/");
        }
        let mut seen: HashMap<ObjId, String> = HashMap::new();
        seen.insert(root, "/".into());
        self.contents_walk(&mut text, root, "", &mut seen, with_attrs);
        text.push_str(" }\n");
        self.out.put(&text);
    }

    fn contents_attrs(&self, text: &mut String, obj: ObjId, path: &str) {
        let tracked = self
            .file
            .object_info(obj)
            .map(|o| o.attrs_order_tracked)
            .unwrap_or(false);
        let mut attrs = self
            .file
            .attributes(obj, self.order_for(tracked))
            .unwrap_or_default();
        if self.opts.sort_decreasing {
            attrs.reverse();
        }
        for a in attrs {
            if path == "/" {
                text.push_str(&format!(" {:<10} /{}\n", "attribute", a.name));
            } else {
                text.push_str(&format!(" {:<10} {}/{}\n", "attribute", path, a.name));
            }
        }
    }

    fn contents_walk(
        &self,
        text: &mut String,
        group: ObjId,
        path: &str,
        seen: &mut HashMap<ObjId, String>,
        with_attrs: bool,
    ) {
        let tracked = self
            .file
            .object_info(group)
            .map(|o| o.links_order_tracked)
            .unwrap_or(false);
        let links = match self.file.links(group, self.order_for(tracked)) {
            Ok(l) => sort_links(l, self.opts.sort_decreasing),
            Err(_) => return,
        };
        for l in links {
            let full = format!("{}/{}", path, l.name);
            match &l.target {
                LinkTarget::Hard(id) => {
                    let Ok(oi) = self.file.object_info(*id) else {
                        continue;
                    };
                    let kind = match oi.kind {
                        ObjKind::Group => "group",
                        ObjKind::Dataset => "dataset",
                        ObjKind::NamedDatatype => "datatype",
                    };
                    if let Some(first) = seen.get(id) {
                        text.push_str(&format!(" {:<10} {} -> {}\n", kind, full, first));
                        continue;
                    }
                    seen.insert(*id, full.clone());
                    text.push_str(&format!(" {:<10} {}\n", kind, full));
                    if with_attrs {
                        self.contents_attrs(text, *id, &full);
                    }
                    if oi.kind == ObjKind::Group {
                        self.contents_walk(text, *id, &full, seen, with_attrs);
                    }
                }
                LinkTarget::Soft(t) => {
                    text.push_str(&format!(" {:<10} {} -> {}\n", "link", full, t));
                }
                LinkTarget::External { file, path: p } => {
                    text.push_str(&format!(" {:<10} {} -> {} {}\n", "ext link", full, file, p));
                }
                LinkTarget::UserDefined(_) => {
                    text.push_str(&format!(" unknown type of UD link {} -> ???\n", full));
                }
            }
        }
    }

    // ----- objects ------------------------------------------------------------------------

    /// `dump_group`.
    pub fn dump_group(&mut self, gid: ObjId, name: &str) {
        // The caller's `H5Gopen2` (or `H5Oopen` through an external link).
        let oid = self
            .pending_oid
            .take()
            .or_else(|| self.ids.open(ObjKind::Group));
        let info = self.format();
        let oi = match self.file.object_info(gid) {
            Ok(o) => o,
            Err(e) => {
                self.error_msg(&e);
                self.status = 1;
                return;
            }
        };
        let mut ctx = Ctx::at(self.dump_indent);
        self.out
            .line(&info, &mut ctx, &format!("GROUP \"{}\" {{", name));
        ctx.indent_level += 1;
        self.dump_indent += COL;
        if name == "/" {
            let anon: Vec<ObjId> = self
                .tables
                .types
                .iter()
                .filter(|(_, o)| !o.recorded)
                .map(|(a, _)| *a)
                .collect();
            for a in anon {
                // h5dump gets the type from the dataset that uses it (`H5Dopen2`).
                self.ids.open(ObjKind::Dataset);
                self.dump_named_datatype(a, &format!("#{}", a));
            }
        }
        self.dump_oid(&info, &mut ctx, oid);
        if let Some(c) = &oi.comment {
            self.out
                .line(&info, &mut ctx, &format!("COMMENT \"{}\"", c));
        }
        let mut proceed = true;
        if oi.refcount > 1 || self.hit_elink {
            match self.tables.groups.get_mut(&gid) {
                None => {
                    self.error_msg("internal error");
                    self.status = 1;
                    proceed = false;
                }
                Some(o) if o.displayed => {
                    let n = o.name.clone();
                    self.out
                        .line(&info, &mut ctx, &format!("HARDLINK \"{}\"", n));
                    proceed = false;
                }
                Some(o) => o.displayed = true,
            }
        }
        if proceed {
            self.attr_iteration(gid, oi.attrs_order_tracked);
            self.link_iteration(gid, oi.links_order_tracked);
        }
        self.dump_indent -= COL;
        ctx.indent_level -= 1;
        self.out.line(&info, &mut ctx, "}");
    }

    fn link_iteration(&mut self, gid: ObjId, tracked: bool) {
        // `H5Literate2` registers the group for its callbacks.
        self.ids.open(ObjKind::Group);
        let order = self.order_for(tracked);
        let links = match self.file.links(gid, order) {
            Ok(l) => sort_links(l, self.opts.sort_decreasing),
            Err(e) => {
                self.error_msg(&e);
                self.status = 1;
                return;
            }
        };
        for l in links {
            self.dump_link(&l);
        }
    }

    /// `dump_all_cb`: one link of the group being printed.
    pub fn dump_link(&mut self, l: &Link) {
        let info = self.format();
        let mut ctx = Ctx::at(self.dump_indent);
        match &l.target {
            LinkTarget::Hard(id) => {
                let oi = match self.file.object_info(*id) {
                    Ok(o) => o,
                    Err(_) => {
                        self.error_msg(&format!(
                            "unable to get object information for \"{}\"",
                            l.name
                        ));
                        self.status = 1;
                        return;
                    }
                };
                match oi.kind {
                    ObjKind::Group => {
                        let old = self.prefix.clone();
                        self.prefix = format!("{}/{}", self.prefix, l.name);
                        self.dump_group(*id, &l.name);
                        self.prefix = old;
                    }
                    ObjKind::Dataset => {
                        // `dump_all_cb` opens the dataset before it looks for a hard link.
                        let oid = self.ids.open(ObjKind::Dataset);
                        if oi.refcount > 1 || self.hit_elink {
                            match self.tables.dsets.get_mut(id) {
                                None => {
                                    self.error_msg("internal error");
                                    self.status = 1;
                                    return;
                                }
                                Some(o) if o.displayed => {
                                    let n = o.name.clone();
                                    self.out.line(
                                        &info,
                                        &mut ctx,
                                        &format!("DATASET \"{}\" {{", l.name),
                                    );
                                    ctx.indent_level += 1;
                                    self.out
                                        .line(&info, &mut ctx, &format!("HARDLINK \"{}\"", n));
                                    ctx.indent_level -= 1;
                                    self.out.line(&info, &mut ctx, "}");
                                    return;
                                }
                                Some(o) => o.displayed = true,
                            }
                        }
                        self.pending_oid = oid;
                        self.dump_dataset(*id, &l.name, None);
                    }
                    ObjKind::NamedDatatype => self.dump_named_datatype(*id, &l.name),
                }
            }
            LinkTarget::Soft(t) => {
                self.out
                    .line(&info, &mut ctx, &format!("SOFTLINK \"{}\" {{", l.name));
                ctx.indent_level += 1;
                self.out
                    .line(&info, &mut ctx, &format!("LINKTARGET \"{}\"", t));
                ctx.indent_level -= 1;
                self.out.line(&info, &mut ctx, "}");
            }
            LinkTarget::External { file, path } => {
                self.out
                    .line(&info, &mut ctx, &format!("EXTERNAL_LINK \"{}\" {{", l.name));
                ctx.indent_level += 1;
                self.out
                    .line(&info, &mut ctx, &format!("TARGETFILE \"{}\"", file));
                self.out
                    .line(&info, &mut ctx, &format!("TARGETPATH \"{}\"", path));
                self.dump_extlink(file, path);
                ctx.indent_level -= 1;
                self.out.line(&info, &mut ctx, "}");
            }
            LinkTarget::UserDefined(class) => {
                self.out.line(
                    &info,
                    &mut ctx,
                    &format!("USERDEFINED_LINK \"{}\" {{", l.name),
                );
                ctx.indent_level += 1;
                self.out
                    .line(&info, &mut ctx, &format!("LINKCLASS {}", class));
                ctx.indent_level -= 1;
                self.out.line(&info, &mut ctx, "}");
            }
        }
    }

    /// `dump_named_datatype`.
    pub fn dump_named_datatype(&mut self, id: ObjId, name: &str) {
        let info = self.format();
        let ncols = Self::ncols(&info);
        let mut ctx = Ctx::at(self.dump_indent);
        let oi = self.file.object_info(id).ok();
        ctx.need_prefix = true;
        let mut buf = format!("DATATYPE \"{}\" ", name);
        self.out.render_element(&info, &mut ctx, &buf, ncols, 0, 0);
        buf.clear();
        let mut show = true;
        if self.hit_elink || oi.as_ref().is_some_and(|o| o.refcount > 1) {
            match self.tables.type_entry(id) {
                None => {
                    self.error_msg("internal error");
                    self.status = 1;
                    show = false;
                }
                Some(o) if o.displayed => {
                    let n = o.name.clone();
                    self.out.render_element(
                        &info,
                        &mut ctx,
                        &format!("HARDLINK \"{}\"", n),
                        ncols,
                        0,
                        0,
                    );
                    show = false;
                }
                Some(o) => o.displayed = true,
            }
        }
        if show {
            match self.file.named_datatype(id) {
                Ok(t) => {
                    let is_compound = matches!(t, Datatype::Compound(_));
                    self.print_datatype(&mut buf, &info, &mut ctx, &t.into(), false);
                    if !is_compound {
                        buf.push(';');
                    }
                    self.out.render_element(&info, &mut ctx, &buf, ncols, 0, 0);
                }
                Err(e) => {
                    self.error_msg(&e);
                    self.status = 1;
                }
            }
            self.dump_indent += COL;
            let tracked = oi.as_ref().is_some_and(|o| o.attrs_order_tracked);
            self.attr_iteration(id, tracked);
            self.dump_indent -= COL;
        }
        // The datatype block end is empty in the DDL format: nothing more is printed.
        ctx.need_prefix = true;
        self.out.render_element(&info, &mut ctx, "", ncols, 0, 0);
    }

    /// `dump_dataset`.
    pub fn dump_dataset(&mut self, id: ObjId, name: &str, sset: Option<&Subset>) {
        let oid = self
            .pending_oid
            .take()
            .or_else(|| self.ids.open(ObjKind::Dataset));
        if let Some(p) = &self.out.progress {
            p.step();
        }
        let info = self.format();
        let mut ctx = Ctx::at(self.dump_indent);
        let oi = self.file.object_info(id).ok();
        ctx.need_prefix = true;
        self.out.simple_prefix(&info, &mut ctx, 0, 0);
        let ncols = Self::ncols(&info);
        self.out.render_element(
            &info,
            &mut ctx,
            &format!("DATASET \"{}\" {{", name),
            ncols,
            0,
            0,
        );
        if let Some(c) = oi.as_ref().and_then(|o| o.comment.clone()) {
            self.out
                .line(&info, &mut ctx, &format!("COMMENT \"{}\"", c));
        }
        self.dump_indent += COL;
        ctx.indent_level += 1;
        match self.file.dataset(id) {
            Ok(d) => {
                self.dump_datatype(&info, &mut ctx, &d.datatype);
                self.dump_dataspace(&info, &mut ctx, &d.space);
                self.dump_oid(&info, &mut ctx, oid);
                if self.opts.display_dcpl {
                    self.dump_dcpl(&info, &mut ctx, &d);
                }
                ctx.display_index = self.opts.display_ai;
                ctx.display_char = self.opts.display_char;
                if self.opts.display_data {
                    let dt = d.datatype.datatype.clone();
                    let masks: Vec<(u32, u32)> = self.opts.packed_bits.clone();
                    let loops: Vec<Option<(u32, u32)>> = if masks.is_empty() {
                        vec![None]
                    } else {
                        masks.into_iter().map(Some).collect()
                    };
                    for m in loops {
                        if let Some((off, len)) = m {
                            ctx.need_prefix = true;
                            self.out.simple_prefix(&info, &mut ctx, 0, 0);
                            let text = packed_bits_text(&dt, off, len);
                            self.out.render_element(&info, &mut ctx, &text, ncols, 0, 0);
                            let mut mask = if len >= 64 {
                                u64::MAX
                            } else {
                                (1u64 << len) - 1
                            };
                            // Bits beyond the native type: an error and a zero mask.
                            if let Ok(n) = dt.native_type() {
                                let bits = 8 * n.size() as u32;
                                if matches!(n, Datatype::Integer(_)) && off + len > bits {
                                    self.error_msg(&format!(
                                        "Packed Bit offset+length value({}) too large. Max is {}",
                                        off + len,
                                        bits
                                    ));
                                    mask = 0;
                                }
                            }
                            self.packed = Some((off, mask));
                        }
                        if let Datatype::Time(_) = dt {
                            ctx.indent_level += 1;
                            ctx.need_prefix = true;
                            self.out.simple_prefix(&info, &mut ctx, 0, 0);
                            self.out.render_element(
                                &info,
                                &mut ctx,
                                "DATA{ not yet implemented.}",
                                ncols,
                                0,
                                0,
                            );
                            ctx.indent_level -= 1;
                        } else {
                            self.dump_data_sub(
                                &info,
                                &mut ctx,
                                &dt,
                                &d.space,
                                DataSource::Dataset(id),
                                sset,
                            );
                        }
                    }
                    self.packed = None;
                }
            }
            Err(e) => {
                self.error_msg(&e);
                self.status = 1;
            }
        }
        // With binary output (-b) a dataset's attributes are not printed.
        if self.opts.binary.is_none() {
            let tracked = oi.as_ref().is_some_and(|o| o.attrs_order_tracked);
            self.attr_iteration(id, tracked);
        }
        ctx.indent_level -= 1;
        self.dump_indent -= COL;
        ctx.need_prefix = true;
        self.out.simple_prefix(&info, &mut ctx, 0, 0);
        self.out.render_element(&info, &mut ctx, "}", ncols, 0, 0);
    }

    /// `h5tools_dump_dcpl`: storage layout, filters, fill value and allocation time (`-p`).
    fn dump_dcpl(&mut self, info: &Format, ctx: &mut Ctx, d: &DatasetInfo) {
        let tsize = d.datatype.datatype.size() as u64;
        let npoints = d.space.npoints();
        self.out.line(info, ctx, "STORAGE_LAYOUT {");
        ctx.indent_level += 1;
        match &d.layout {
            Layout::Chunked { dims } => {
                let ds: Vec<String> = dims.iter().map(|x| x.to_string()).collect();
                self.out
                    .line(info, ctx, &format!("CHUNKED ( {} )", ds.join(", ")));
                let raw = npoints * tsize;
                if d.filters.is_empty() || d.storage_size == 0 {
                    self.out
                        .line(info, ctx, &format!("SIZE {}", d.storage_size));
                } else {
                    let ratio = raw as f64 / d.storage_size as f64;
                    self.out.line(
                        info,
                        ctx,
                        &format!("SIZE {} ({:.3}:1 COMPRESSION)", d.storage_size, ratio),
                    );
                }
            }
            Layout::Compact => {
                self.out.line(info, ctx, "COMPACT");
                self.out
                    .line(info, ctx, &format!("SIZE {}", d.storage_size));
            }
            Layout::Contiguous { offset } => {
                self.out.line(info, ctx, "CONTIGUOUS");
                if !d.external.is_empty() {
                    self.out.line(info, ctx, "EXTERNAL {");
                    ctx.indent_level += 1;
                    for e in &d.external {
                        self.out.line(
                            info,
                            ctx,
                            &format!("FILENAME {} SIZE {} OFFSET {}", e.name, e.size, e.offset),
                        );
                    }
                    ctx.indent_level -= 1;
                    self.out.line(info, ctx, "}");
                } else {
                    self.out
                        .line(info, ctx, &format!("SIZE {}", d.storage_size));
                    match offset {
                        Some(o) => self.out.line(info, ctx, &format!("OFFSET {}", o)),
                        None => self.out.line(info, ctx, &format!("OFFSET {}", u64::MAX)),
                    }
                }
            }
            Layout::Virtual { mappings } => {
                for (k, m) in mappings.iter().enumerate() {
                    self.out.line(info, ctx, &format!("MAPPING {} {{ ", k));
                    ctx.indent_level += 1;
                    self.out.line(info, ctx, "VIRTUAL {");
                    ctx.indent_level += 1;
                    self.virtual_selection(info, ctx, &m.virtual_selection);
                    ctx.indent_level -= 1;
                    self.out.line(info, ctx, "}");
                    self.out.line(info, ctx, "SOURCE {");
                    ctx.indent_level += 1;
                    self.out.line(info, ctx, &format!("FILE \"{}\"", m.file));
                    self.out
                        .line(info, ctx, &format!("DATASET \"{}\"", m.dataset));
                    self.virtual_selection(info, ctx, &m.source_selection);
                    ctx.indent_level -= 1;
                    self.out.line(info, ctx, "}");
                    ctx.indent_level -= 1;
                    self.out.line(info, ctx, "}");
                }
            }
        }
        ctx.indent_level -= 1;
        self.out.line(info, ctx, "}");
        let is_virtual = matches!(d.layout, Layout::Virtual { .. });
        if !is_virtual {
            self.out.line(info, ctx, "FILTERS {");
            ctx.indent_level += 1;
            if d.filters.is_empty() {
                self.out.line(info, ctx, "NONE");
            }
            for f in &d.filters {
                match f.id {
                    1 => {
                        let lvl = f.cd_values.first().copied().unwrap_or(0);
                        self.out.line(
                            info,
                            ctx,
                            &format!("COMPRESSION DEFLATE {{ LEVEL {} }}", lvl),
                        );
                    }
                    2 => self.out.line(info, ctx, "PREPROCESSING SHUFFLE"),
                    3 => self.out.line(info, ctx, "CHECKSUM FLETCHER32"),
                    4 => {
                        self.out.line(info, ctx, "COMPRESSION SZIP {");
                        ctx.indent_level += 1;
                        let mask = f.cd_values.first().copied().unwrap_or(0);
                        let ppb = f.cd_values.get(1).copied().unwrap_or(0);
                        self.out
                            .line(info, ctx, &format!("PIXELS_PER_BLOCK {}", ppb));
                        // The option mask bits (H5_SZIP_*_OPTION_MASK); a line whose bits are
                        // all clear renders empty, which prints nothing.
                        let mode = if mask & 2 != 0 {
                            "MODE HARDWARE"
                        } else if mask & 1 != 0 {
                            "MODE K13"
                        } else {
                            ""
                        };
                        self.out.line(info, ctx, mode);
                        let coding = if mask & 4 != 0 {
                            "CODING ENTROPY"
                        } else if mask & 32 != 0 {
                            "CODING NEAREST NEIGHBOUR"
                        } else {
                            ""
                        };
                        self.out.line(info, ctx, coding);
                        let order = if mask & 8 != 0 {
                            "BYTE_ORDER LSB"
                        } else if mask & 16 != 0 {
                            "BYTE_ORDER MSB"
                        } else {
                            ""
                        };
                        self.out.line(info, ctx, order);
                        if mask & 128 != 0 {
                            self.out.line(info, ctx, "HEADER RAW");
                        }
                        ctx.indent_level -= 1;
                        self.out.line(info, ctx, "}");
                    }
                    5 => self.out.line(info, ctx, "COMPRESSION NBIT"),
                    6 => {
                        let v = f.cd_values.first().copied().unwrap_or(0);
                        self.out.line(
                            info,
                            ctx,
                            &format!("COMPRESSION SCALEOFFSET {{ MIN BITS {} }}", v),
                        );
                    }
                    id => {
                        self.out.line(info, ctx, "USER_DEFINED_FILTER {");
                        ctx.indent_level += 1;
                        self.out.line(info, ctx, &format!("FILTER_ID {}", id));
                        if let Some(n) = &f.name {
                            self.out.line(info, ctx, &format!("COMMENT {}", n));
                        }
                        if !f.cd_values.is_empty() {
                            let p: Vec<String> =
                                f.cd_values.iter().map(|x| x.to_string()).collect();
                            self.out
                                .line(info, ctx, &format!("PARAMS {{ {} }}", p.join(" ")));
                        }
                        ctx.indent_level -= 1;
                        self.out.line(info, ctx, "}");
                    }
                }
            }
            ctx.indent_level -= 1;
            self.out.line(info, ctx, "}");
        }
        self.out.line(info, ctx, "FILLVALUE {");
        ctx.indent_level += 1;
        let ft = match d.fill.fill_time {
            0 => "FILL_TIME H5D_FILL_TIME_ALLOC",
            1 => "FILL_TIME H5D_FILL_TIME_NEVER",
            _ => "FILL_TIME H5D_FILL_TIME_IFSET",
        };
        self.out.line(info, ctx, ft);
        match &d.fill.value {
            None => self.out.line(info, ctx, "VALUE  H5D_FILL_VALUE_UNDEFINED"),
            Some(None) => self.out.line(info, ctx, "VALUE  H5D_FILL_VALUE_DEFAULT"),
            Some(Some(bytes)) => {
                let dt = d.datatype.datatype.clone();
                let values = self.values();
                let mut s = String::from("VALUE  ");
                let mut vctx = ctx.clone();
                vctx.indent_level -= 1;
                values.sprint(&mut s, info, &mut vctx, &dt, bytes);
                drop(values);
                self.out.line(info, ctx, &s);
            }
        }
        ctx.indent_level -= 1;
        self.out.line(info, ctx, "}");
        if !is_virtual {
            self.out.line(info, ctx, "ALLOCATION_TIME {");
            ctx.indent_level += 1;
            let at = match d.fill.alloc_time {
                1 => "H5D_ALLOC_TIME_EARLY",
                2 => "H5D_ALLOC_TIME_LATE",
                _ => "H5D_ALLOC_TIME_INCR",
            };
            self.out.line(info, ctx, at);
            ctx.indent_level -= 1;
            self.out.line(info, ctx, "}");
        }
    }
}

/// Where data comes from.
enum DataSource {
    /// An attribute's values (already read).
    Attr(Result<Vec<u8>, String>),
    /// A dataset, read by hyperslabs.
    Dataset(ObjId),
}

impl DataSource {
    fn all_bytes(&self, file: &dyn DumpFile, space: &Space) -> Result<Vec<u8>, String> {
        match self {
            DataSource::Attr(r) => r.clone(),
            DataSource::Dataset(id) => {
                let dims = space.dims().to_vec();
                let zero = vec![0u64; dims.len()];
                file.read(*id, &zero, &dims)
            }
        }
    }
}

/// The name of the filter a read error says is not available ("filter 257 (name) is not
/// available"), if that is the error.
fn unavailable_filter(e: &str) -> Option<String> {
    let at = e.find("filter ")?;
    let rest = &e[at + 7..];
    let end = rest.find(" is not available")?;
    let what = &rest[..end];
    Some(match (what.find('('), what.rfind(')')) {
        (Some(a), Some(b)) if a < b => what[a + 1..b].to_string(),
        _ => what.to_string(),
    })
}

/// `PACKED_BITS OFFSET=n LENGTH=m`.
fn packed_bits_text(_dt: &Datatype, off: u32, len: u32) -> String {
    format!("PACKED_BITS OFFSET={} LENGTH={}", off, len)
}

/// The DATASPACE text after the keyword.
pub fn dataspace_text(s: &Space) -> String {
    match s {
        Space::Scalar => " SCALAR".into(),
        Space::Null => " NULL".into(),
        Space::Simple { dims, maxdims } => {
            let d: Vec<String> = dims.iter().map(|x| x.to_string()).collect();
            let m: Vec<String> = maxdims
                .iter()
                .map(|&x| {
                    if x == u64::MAX {
                        "H5S_UNLIMITED".to_string()
                    } else {
                        x.to_string()
                    }
                })
                .collect();
            format!(" SIMPLE {{ ( {} ) / ( {} ) }}", d.join(", "), m.join(", "))
        }
    }
}

/// The name h5dump gives an integer, float or bitfield type. h5dump 1.10.8 names only the
/// 32- and 64-bit IEEE and VAX floats and describes the others; 2.x also names the half
/// precision, bfloat16 and FP8 types.
pub fn atomic_name(dt: &Datatype, compat: Compat) -> String {
    if let Datatype::Float(f) = dt {
        if *f == h5::types::predefined::VAX_F32 {
            return "H5T_VAX_F32".into();
        }
        if *f == h5::types::predefined::VAX_F64 {
            return "H5T_VAX_F64".into();
        }
    }
    if let Some(n) = h5::types::predefined::ddl_name(dt) {
        if n.starts_with("H5T_STD_")
            || n.starts_with("H5T_IEEE_F32")
            || n.starts_with("H5T_IEEE_F64")
            || n.starts_with("H5T_VAX_")
            || (compat == Compat::V2_0
                && (n.starts_with("H5T_IEEE_F16") || n.starts_with("H5T_FLOAT_")))
        {
            return n.to_string();
        }
    }
    let order = |o: ByteOrder| match o {
        ByteOrder::LittleEndian => " little-endian",
        ByteOrder::BigEndian => " big-endian",
        ByteOrder::Vax => " mixed-endian",
    };
    match dt {
        Datatype::Integer(t) => {
            let o = if t.size() > 1 { order(t.order()) } else { "" };
            let s = if t.is_signed() { "" } else { " unsigned" };
            format!(
                "{}-bit{}{} integer {}-bit precision",
                8 * t.size(),
                o,
                s,
                t.precision()
            )
        }
        Datatype::Float(t) => {
            let o = if t.size() > 1 { order(t.order()) } else { "" };
            format!(
                "{}-bit{} floating-point {}-bit precision",
                8 * t.size(),
                o,
                t.precision()
            )
        }
        Datatype::Bitfield(_) => "undefined bitfield".into(),
        _ => "unknown datatype".into(),
    }
}

/// A subset list given with fewer values than the dataset has dimensions, as h5dump 1.10.8
/// uses it: it reads the list for every dimension, the missing values being 0 (so a short
/// `-c` selects nothing); values past the rank are ignored.
fn pad_to_rank(v: &[u64], rank: usize) -> Vec<u64> {
    v.iter()
        .copied()
        .chain(std::iter::repeat(0))
        .take(rank)
        .collect()
}
