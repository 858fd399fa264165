//! The XML printer (`h5dump --xml` / `--use-dtd`): the HDF5-File document h5dump 1.10.8 writes,
//! element for element and byte for byte.
//!
//! Every element is one line, rendered through the same engine as the DDL ([`Out::line`]) with
//! the XML format: no index prefixes, three spaces per level, one value per line. Objects get
//! ids (`OBJ-XID`) from their header addresses (`xid_ADDR`), found by resolving a path in the
//! file; a path that does not resolve to an object (a dangling soft link, an external or
//! user-defined link, a name with escaped characters) gets a fresh id counting down from
//! `HADDR_MAX` (2^64 - 2). A second hard link to a group or dataset prints a pointer to the
//! first (`GroupPtr`, `DatasetPtr`), with a serial number (`xid_ADDR-N`) counting up from 1.

use std::cell::Cell;
use std::collections::HashMap;
use std::rc::Rc;

use h5::types::compose::decode_int;
use h5::types::{ByteOrder, CharSet, Datatype, ReferenceKind, Sign, StrPad};

use super::ddl::{Opts, COL};
use super::model::*;
use super::render::{Ctx, Format, Out};
use super::value::Values;

/// The schema h5dump names by default (`-x`).
pub const DEFAULT_XSD: &str = "http://www.hdfgroup.org/HDF5/XML/schema/HDF5-File.xsd";
/// The DTD h5dump names by default (`-u`).
pub const DEFAULT_DTD: &str = "http://www.hdfgroup.org/HDF5/XML/DTD/HDF5-File.dtd";

/// The XML options of the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XmlSettings {
    /// Describe the document with the XML schema (`-x`) rather than the DTD (`-u`).
    pub use_schema: bool,
    /// The schema or DTD location (`-D URI`).
    pub dtd_uri: Option<String>,
    /// The namespace prefix of every element, `hdf5:` by default (`-X PREFIX`; `-X :` and
    /// `-u` give none).
    pub ns: String,
}

impl Default for XmlSettings {
    fn default() -> Self {
        XmlSettings {
            use_schema: true,
            dtd_uri: None,
            ns: "hdf5:".into(),
        }
    }
}

/// Escape a name for an XML attribute value (`xml_escape_the_name`): `"`, `'`, `<`, `>` and
/// `&` become entities.
pub fn escape_name(s: &str) -> String {
    escape(s, false)
}

/// Escape string data for element content (`xml_escape_the_string`): a backslash or double
/// quote gets a backslash before it; `'`, `<`, `>` and `&` become entities.
pub fn escape_string(s: &str) -> String {
    escape(s, true)
}

/// The two escapes differ only in backslashes and double quotes.
fn escape(s: &str, string: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' if string => out.push_str("\\\\"),
            '"' if string => out.push_str("\\\""),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            c => out.push(c),
        }
    }
    out
}

/// The document's opening lines for these settings (the XML declaration and the root
/// element, or the `DOCTYPE` and the root element for the DTD). `settings.dtd_uri` must be
/// filled in.
pub fn header(settings: &XmlSettings, uri: &str) -> String {
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    if settings.use_schema {
        if settings.ns.is_empty() {
            s.push_str(&format!(
                "<HDF5-File xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
                 xsi:noNamespaceSchemaLocation=\"{}\">\n",
                uri
            ));
        } else {
            // The namespace name is the prefix up to its last colon.
            let name = match settings.ns.rfind(':') {
                Some(i) => &settings.ns[..i],
                None => settings.ns.as_str(),
            };
            s.push_str(&format!(
                "<{}HDF5-File xmlns:{}=\"http://hdfgroup.org/HDF5/XML/schema/HDF5-File.xsd\" \
                 xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
                 xsi:schemaLocation=\"http://hdfgroup.org/HDF5/XML/schema/HDF5-File \
                 http://www.hdfgroup.org/HDF5/XML/schema/HDF5-File.xsd\">\n",
                settings.ns, name
            ));
        }
    } else {
        s.push_str(&format!(
            "<!DOCTYPE HDF5-File PUBLIC \"HDF5-File.dtd\" \"{}\">\n<HDF5-File>\n",
            uri
        ));
    }
    s
}

/// What one file's XML run produced.
#[derive(Debug, Default)]
pub struct XmlOutcome {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Exit status (0 or 1).
    pub status: i32,
    /// Files written (`-O FILE`): name and contents.
    pub files: Vec<(String, Vec<u8>)>,
}

/// Print `file` as an HDF5-File XML document.
///
/// The schema or DTD location chosen for the first file stays in `settings` for the files
/// after it, as h5dump keeps it (so a second file with the default schema and namespace
/// is refused, as h5dump refuses it).
///
/// With `sink`, the document's standard output is written there as it is rendered (the
/// outcome's `stdout` holds only what was not yet written); with `files`, output files are
/// streamed to it.
pub fn dump_file(
    file: &dyn DumpFile,
    opts: &Opts,
    settings: &mut XmlSettings,
    sink: Option<super::render::Sink>,
    files: Option<super::render::FileSink>,
) -> XmlOutcome {
    let mut outcome = XmlOutcome::default();
    let uri = match &settings.dtd_uri {
        None if settings.use_schema => DEFAULT_XSD.to_string(),
        None => {
            settings.ns.clear();
            DEFAULT_DTD.to_string()
        }
        Some(u) => {
            if settings.use_schema && !settings.ns.is_empty() {
                outcome.stderr.push_str(
                    "h5dump error: Cannot set Schema URL for a qualified namespace--use -X or -U \
                     option with -D \n",
                );
                outcome.status = 1;
                return outcome;
            }
            u.clone()
        }
    };
    settings.dtd_uri = Some(uri.clone());
    let mut x = Xml::new(file, opts, settings.ns.clone());
    x.out.sink = sink;
    x.out.file_sink = files;
    if let Err(e) = x.build_tables() {
        outcome.stderr.push_str(&format!("h5dump error: {}\n", e));
        outcome.stderr.push_str("h5dump error: internal error\n");
        outcome.status = 1;
        return outcome;
    }
    x.out.put(&header(settings, &uri));
    let root = file.root();
    x.dump_group(root, "/");
    x.out.put("\n");
    x.out.put(&format!("</{}HDF5-File>\n", settings.ns));
    // With the document going nowhere (`-O` without a file), h5dump ends the data on
    // standard output with a newline.
    if opts.ddl_dest == super::render::Dest::Null && opts.data_dest == super::render::Dest::Stdout {
        x.out.text.push('\n');
    }
    outcome.files = std::mem::take(&mut x.out.files);
    outcome.stdout = std::mem::take(&mut x.out.text);
    outcome.stderr = std::mem::take(&mut x.err);
    outcome.status = x.status;
    outcome
}

/// One entry of the object tables (`obj_t`).
#[derive(Clone, Debug)]
struct Entry {
    name: String,
    displayed: bool,
    recorded: bool,
}

/// Where data comes from.
#[derive(Clone, Copy)]
enum Source<'s> {
    /// A dataset.
    Dataset(ObjId),
    /// An attribute of an object, by name.
    Attr(ObjId, &'s str),
}

/// The printer state for one file.
struct Xml<'a> {
    file: &'a dyn DumpFile,
    opts: &'a Opts,
    ns: String,
    out: Out,
    err: String,
    status: i32,
    dump_indent: usize,
    prefix: String,
    groups: HashMap<ObjId, Entry>,
    dsets: HashMap<ObjId, Entry>,
    types: Vec<(ObjId, Entry)>,
    /// First path of each object (the reference path table).
    paths: Rc<HashMap<ObjId, (String, ObjKind)>>,
    /// Serial numbers of pointers to objects already printed (`get_next_xid`).
    next_xid: u64,
    /// Ids for paths that do not name an object (`get_fake_xid`).
    fake_xid: u64,
    next_arr: Cell<bool>,
}

/// Class numbers of `H5T_class_t`, printed in comments about unsupported types.
fn class_number(dt: &Datatype) -> i32 {
    match dt {
        Datatype::Integer(_) => 0,
        Datatype::Float(_) => 1,
        Datatype::Time(_) => 2,
        Datatype::String(_) => 3,
        Datatype::Bitfield(_) => 4,
        Datatype::Opaque(_) => 5,
        Datatype::Compound(_) => 6,
        Datatype::Reference(_) => 7,
        Datatype::Enum(_) => 8,
        Datatype::VarLen(_) => 9,
        Datatype::Array(_) => 10,
        Datatype::Complex(_) => 11,
    }
}

fn order_name(o: ByteOrder, vax: bool) -> &'static str {
    match o {
        ByteOrder::LittleEndian => "LE",
        ByteOrder::BigEndian => "BE",
        ByteOrder::Vax if vax => "VAX",
        ByteOrder::Vax => "ERROR_UNKNOWN",
    }
}

/// Bytes as text: UTF-8 where valid, replacement characters elsewhere.
fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The first four bytes as a little-endian `u32` (missing bytes are zero).
fn first_u32(b: &[u8]) -> u32 {
    let mut a = [0u8; 4];
    for (d, s) in a.iter_mut().zip(b) {
        *d = *s;
    }
    u32::from_le_bytes(a)
}

/// The first eight bytes as a little-endian `u64` (missing bytes are zero).
fn first_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    for (d, s) in a.iter_mut().zip(b) {
        *d = *s;
    }
    u64::from_le_bytes(a)
}

/// How many soft links one path may follow.
const MAX_SOFT_HOPS: usize = 16;

impl<'a> Xml<'a> {
    fn new(file: &'a dyn DumpFile, opts: &'a Opts, ns: String) -> Self {
        Xml {
            file,
            opts,
            ns,
            // The document goes where `-O` says; data values go to standard output.
            out: Out {
                dest: opts.ddl_dest.clone(),
                ..Out::default()
            },
            err: String::new(),
            status: 0,
            dump_indent: 0,
            prefix: String::new(),
            groups: HashMap::new(),
            dsets: HashMap::new(),
            types: Vec::new(),
            paths: Rc::new(HashMap::new()),
            next_xid: 1,
            fake_xid: u64::MAX - 1,
            next_arr: Cell::new(false),
        }
    }

    // ----- formats and lines --------------------------------------------------------------

    /// The XML element format with the options applied.
    fn format(&self) -> Format {
        let mut f = Format {
            arr_pre: "",
            arr_sep: Some(""),
            arr_suf: "",
            arr_linebreak: true,
            cmpd_sep: "",
            cmpd_pre: "",
            cmpd_suf: "",
            cmpd_end: "",
            vlen_sep: " ",
            vlen_pre: " ",
            vlen_suf: "",
            elmt_suf1: "",
            elmt_suf2: " ",
            pindex: false,
            ..Format::default()
        };
        self.opts.apply_to(&mut f);
        f
    }

    /// The format data values are printed with (`xml_dump_data`).
    fn data_format(&self) -> Format {
        let mut f = self.format();
        f.do_escape = false;
        f.cmpd_sep = " ";
        f.arr_linebreak = false;
        f
    }

    /// A fresh print context at the current indentation.
    fn ctx(&self) -> Ctx {
        Ctx::at(self.dump_indent)
    }

    /// Render one element line.
    fn line(&mut self, ctx: &mut Ctx, s: &str) {
        let f = self.format();
        self.out.line(&f, ctx, s);
    }

    fn error_msg(&mut self, msg: &str) {
        self.err.push_str("h5dump error: ");
        self.err.push_str(msg);
        self.err.push('\n');
        self.status = 1;
    }

    fn values(&self) -> Values<'a> {
        Values {
            file: self.file,
            paths: Rc::clone(&self.paths),
            next_arr: Cell::new(self.next_arr.get()),
            packed: None,
            // XML refuses `-i`: the counters are not printed.
            ids: Default::default(),
            // XML names references by path itself; revised references found inside values
            // are named within this file only.
            refs: super::value::RefEnv {
                file_name: String::new(),
                file_key: String::new(),
                open: None,
                ext: Rc::default(),
            },
        }
    }

    // ----- tables and ids -----------------------------------------------------------------

    fn order_for(&self, tracked: bool) -> IndexOrder {
        if self.opts.sort_by == IndexOrder::Creation && tracked {
            IndexOrder::Creation
        } else {
            IndexOrder::Name
        }
    }

    fn sorted_links(&self, group: ObjId) -> ModelResult<Vec<Link>> {
        let info = self.file.object_info(group)?;
        let mut v = self
            .file
            .links(group, self.order_for(info.links_order_tracked))?;
        if self.opts.sort_decreasing {
            v.reverse();
        }
        Ok(v)
    }

    fn sorted_attrs(&self, obj: ObjId) -> ModelResult<Vec<AttrInfo>> {
        let info = self.file.object_info(obj)?;
        let mut v = self
            .file
            .attributes(obj, self.order_for(info.attrs_order_tracked))?;
        if self.opts.sort_decreasing {
            v.reverse();
        }
        Ok(v)
    }

    /// Traverse the file and fill the object tables and the path table (`init_objs`,
    /// `init_ref_path_table`).
    fn build_tables(&mut self) -> ModelResult<()> {
        let root = self.file.root();
        self.groups.insert(
            root,
            Entry {
                name: "/".into(),
                displayed: false,
                recorded: true,
            },
        );
        let mut paths = HashMap::new();
        paths.insert(root, ("/".to_string(), ObjKind::Group));
        self.visit(root, "", &mut paths)?;
        self.paths = Rc::new(paths);
        Ok(())
    }

    fn visit(
        &mut self,
        group: ObjId,
        path: &str,
        paths: &mut HashMap<ObjId, (String, ObjKind)>,
    ) -> ModelResult<()> {
        for l in self.sorted_links(group)? {
            let LinkTarget::Hard(id) = l.target else {
                continue;
            };
            let full = format!("{}/{}", path, l.name);
            let oi = self
                .file
                .object_info(id)
                .map_err(|e| format!("unable to open \"{}\": {}", full, e))?;
            if paths.contains_key(&id) {
                continue;
            }
            paths.insert(id, (full.clone(), oi.kind));
            let entry = Entry {
                name: full.clone(),
                displayed: false,
                recorded: true,
            };
            match oi.kind {
                ObjKind::Group => {
                    self.groups.insert(id, entry);
                    self.visit(id, &full, paths)?;
                }
                ObjKind::Dataset => {
                    self.dsets.insert(id, entry);
                    if let Ok(d) = self.file.dataset(id) {
                        if let Some(t) = d.datatype.committed {
                            if !self.types.iter().any(|(a, _)| *a == t) {
                                self.types.push((
                                    t,
                                    Entry {
                                        name: full.clone(),
                                        displayed: false,
                                        recorded: false,
                                    },
                                ));
                            }
                        }
                    }
                }
                ObjKind::NamedDatatype => match self.types.iter_mut().find(|(a, _)| *a == id) {
                    Some((_, e)) => {
                        e.name = full.clone();
                        e.recorded = true;
                    }
                    None => self.types.push((id, entry)),
                },
            }
        }
        Ok(())
    }

    /// Resolve a path from the root as the library does for `H5Lget_info` followed by
    /// `H5Oget_info_by_name` (`ref_path_table_lookup`): the last link must exist and not be an
    /// external or user-defined link; soft links are followed.
    fn lookup(&self, path: &str) -> Option<ObjId> {
        if path.is_empty() {
            return None;
        }
        self.resolve_from(self.file.root(), path, 0)
    }

    fn resolve_from(&self, start: ObjId, path: &str, hops: usize) -> Option<ObjId> {
        if hops > MAX_SOFT_HOPS {
            return None;
        }
        let mut cur = if path.starts_with('/') {
            self.file.root()
        } else {
            start
        };
        for comp in path.split('/').filter(|c| !c.is_empty() && *c != ".") {
            let links = self.file.links(cur, IndexOrder::Name).ok()?;
            let l = links.into_iter().find(|l| l.name == comp)?;
            cur = match l.target {
                LinkTarget::Hard(id) => id,
                LinkTarget::Soft(t) => self.resolve_from(cur, &t, hops + 1)?,
                LinkTarget::External { .. } | LinkTarget::UserDefined(_) => return None,
            };
        }
        Some(cur)
    }

    /// The `OBJ-XID` for a path (`xml_name_to_XID`): the object's address, or with `gen` a
    /// fresh id when the path names no object; `None` without `gen`.
    fn xid(&mut self, path: &str, gen: bool) -> Option<String> {
        let found = self.lookup(path).or_else(|| {
            if path.is_empty() {
                self.lookup("/")
            } else {
                None
            }
        });
        match found {
            Some(a) => Some(format!("xid_{}", a)),
            None if gen => {
                let f = self.fake_xid;
                self.fake_xid = self.fake_xid.wrapping_sub(1);
                Some(format!("xid_{}", f))
            }
            None => None,
        }
    }

    fn xid_gen(&mut self, path: &str) -> String {
        self.xid(path, true).unwrap_or_default()
    }

    fn serial(&mut self) -> u64 {
        let n = self.next_xid;
        self.next_xid += 1;
        n
    }

    fn type_entry(&self, id: ObjId) -> Option<&Entry> {
        self.types.iter().find(|(a, _)| *a == id).map(|(_, e)| e)
    }

    /// The `H5ParentPaths` text of the current prefix.
    fn parent_paths(&self) -> String {
        if self.prefix.is_empty() {
            "/".into()
        } else {
            escape_name(&self.prefix)
        }
    }

    // ----- groups and links ---------------------------------------------------------------

    /// `xml_dump_group`.
    fn dump_group(&mut self, gid: ObjId, name: &str) {
        let ns = self.ns.clone();
        let is_root = name == "/";
        let (tmp, par) = if is_root {
            ("/".to_string(), String::new())
        } else {
            let tmp = self.prefix.clone();
            let par = match tmp.rfind('/') {
                Some(0) if tmp.len() > 1 => "/".to_string(),
                Some(i) => tmp[..i].to_string(),
                None => tmp.clone(),
            };
            (tmp, par)
        };
        let mut ctx = self.ctx();
        let info = match self.file.object_info(gid) {
            Ok(i) => i,
            Err(e) => {
                self.error_msg(&e);
                return;
            }
        };
        let t_name = escape_name(name);
        let open_tag = |x: &mut Self| -> String {
            if is_root {
                let id = x.xid_gen("/");
                format!("<{}RootGroup OBJ-XID=\"{}\" H5Path=\"/\">", ns, id)
            } else {
                let id = x.xid_gen(&tmp);
                let pid = x.xid_gen(&par);
                format!(
                    "<{}Group Name=\"{}\" OBJ-XID=\"{}\" H5Path=\"{}\" Parents=\"{}\" \
                     H5ParentPaths=\"{}\" >",
                    ns,
                    t_name,
                    id,
                    escape_name(&tmp),
                    pid,
                    escape_name(&par)
                )
            }
        };
        if info.refcount > 1 {
            let found = self.groups.get(&gid).cloned();
            match found {
                None => {
                    self.out.put(&" ".repeat(self.dump_indent));
                    self.error_msg("internal error (file h5dump_xml.c)");
                }
                Some(e) if e.displayed => {
                    if is_root {
                        let id = self.xid_gen("/");
                        let s = format!("<{}RootGroup OBJ-XID=\"{}\" H5Path=\"/\">", ns, id);
                        self.line(&mut ctx, &s);
                    } else {
                        let id = self.xid_gen(&tmp);
                        let pid = self.xid_gen(&par);
                        let n = self.serial();
                        let s = format!(
                            "<{}Group Name=\"{}\" OBJ-XID=\"{}-{}\" H5Path=\"{}\" Parents=\"{}\" \
                             H5ParentPaths=\"{}\">",
                            ns,
                            t_name,
                            id,
                            n,
                            escape_name(&e.name),
                            pid,
                            escape_name(&par)
                        );
                        self.line(&mut ctx, &s);
                        ctx.indent_level += 1;
                        let ptr = self.xid_gen(&e.name);
                        let pid = self.xid_gen(&par);
                        let s = format!(
                            "<{}GroupPtr OBJ-XID=\"{}\" H5Path=\"{}\" Parents=\"{}\" \
                             H5ParentPaths=\"{}\" />",
                            ns,
                            ptr,
                            escape_name(&e.name),
                            pid,
                            escape_name(&par)
                        );
                        self.line(&mut ctx, &s);
                        ctx.indent_level -= 1;
                    }
                }
                Some(_) => {
                    let s = open_tag(self);
                    self.line(&mut ctx, &s);
                    if let Some(e) = self.groups.get_mut(&gid) {
                        e.displayed = true;
                    }
                    self.group_members(&mut ctx, gid, is_root);
                }
            }
        } else {
            let s = open_tag(self);
            self.line(&mut ctx, &s);
            self.group_members(&mut ctx, gid, is_root);
        }
        let close = if is_root {
            format!("</{}RootGroup>", ns)
        } else {
            format!("</{}Group>", ns)
        };
        self.line(&mut ctx, &close);
    }

    /// A group's attributes, the anonymous committed types (root only) and its links.
    fn group_members(&mut self, ctx: &mut Ctx, gid: ObjId, is_root: bool) {
        ctx.indent_level += 1;
        self.dump_indent += COL;
        self.dump_attrs(gid);
        if is_root {
            let anonymous: Vec<(ObjId, String)> = self
                .types
                .iter()
                .filter(|(_, e)| !e.recorded)
                .map(|(a, e)| (*a, e.name.clone()))
                .collect();
            for (addr, _) in anonymous {
                self.dump_named_datatype(addr, &format!("#{}", addr));
            }
        }
        match self.sorted_links(gid) {
            Ok(links) => {
                for l in links {
                    self.dump_link(&l);
                }
            }
            Err(e) => self.error_msg(&e),
        }
        self.dump_indent -= COL;
        ctx.indent_level -= 1;
    }

    fn dump_attrs(&mut self, obj: ObjId) {
        match self.sorted_attrs(obj) {
            Ok(attrs) => {
                for a in attrs {
                    self.dump_attr(obj, &a);
                }
            }
            Err(e) => self.error_msg(&format!("error getting attribute information: {}", e)),
        }
    }

    /// `xml_dump_all_cb`: one link of a group.
    fn dump_link(&mut self, l: &Link) {
        let ns = self.ns.clone();
        let mut ctx = self.ctx();
        let name = l.name.as_str();
        let obj_path = format!("{}/{}", self.prefix, name);
        match &l.target {
            LinkTarget::Hard(id) => {
                let info = match self.file.object_info(*id) {
                    Ok(i) => i,
                    Err(_) => {
                        self.error_msg(&format!(
                            "unable to get object information for \"{}\"",
                            name
                        ));
                        return;
                    }
                };
                match info.kind {
                    ObjKind::Group => {
                        let old = self.prefix.clone();
                        self.prefix = format!("{}/{}", self.prefix, name);
                        self.dump_group(*id, name);
                        self.prefix = old;
                    }
                    ObjKind::Dataset => {
                        if info.refcount > 1 {
                            let found = self.dsets.get(id).cloned();
                            if let Some(e) = found {
                                if e.displayed {
                                    let dxid = self.xid_gen(&obj_path);
                                    let pxid = self.xid_gen(&self.prefix.clone());
                                    let n = self.serial();
                                    let s = format!(
                                        "<{}Dataset Name=\"{}\" OBJ-XID=\"{}-{}\" H5Path=\"{}\" \
                                         Parents=\"{}\" H5ParentPaths=\"{}\">",
                                        ns,
                                        escape_name(name),
                                        dxid,
                                        n,
                                        escape_name(&obj_path),
                                        pxid,
                                        self.parent_paths()
                                    );
                                    self.line(&mut ctx, &s);
                                    let ptr = self.xid_gen(&e.name);
                                    ctx.indent_level += 1;
                                    let s = format!(
                                        "<{}DatasetPtr OBJ-XID=\"{}\" H5Path=\"{}\"/>",
                                        ns,
                                        ptr,
                                        escape_name(&e.name)
                                    );
                                    self.line(&mut ctx, &s);
                                    ctx.indent_level -= 1;
                                    let s = format!("</{}Dataset>", ns);
                                    self.line(&mut ctx, &s);
                                    return;
                                }
                                if let Some(e) = self.dsets.get_mut(id) {
                                    e.displayed = true;
                                }
                            }
                        }
                        self.dump_dataset(*id, name);
                    }
                    ObjKind::NamedDatatype => self.dump_named_datatype(*id, name),
                }
            }
            LinkTarget::Soft(target) => {
                let t_obj_path = escape_name(&obj_path);
                let link_path = if target.starts_with('/') {
                    target.clone()
                } else {
                    format!("{}/{}", self.prefix, target)
                };
                let lxid = self.xid_gen(&t_obj_path);
                let pxid = self.xid_gen(&self.prefix.clone());
                let s = match self.xid(&link_path, false) {
                    Some(txid) => format!(
                        "<{}SoftLink LinkName=\"{}\" OBJ-XID=\"{}\" H5SourcePath=\"{}\" \
                         TargetPath=\"{}\" TargetObj=\"{}\" Parents=\"{}\" H5ParentPaths=\"{}\" />",
                        ns,
                        escape_name(name),
                        lxid,
                        t_obj_path,
                        escape_name(target),
                        txid,
                        pxid,
                        self.parent_paths()
                    ),
                    None => format!(
                        "<{}SoftLink LinkName=\"{}\" OBJ-XID=\"{}\" H5SourcePath=\"{}\" \
                         TargetPath=\"{}\"  Parents=\"{}\" H5ParentPaths=\"{}\" />",
                        ns,
                        escape_name(name),
                        lxid,
                        t_obj_path,
                        escape_name(target),
                        pxid,
                        self.parent_paths()
                    ),
                };
                self.line(&mut ctx, &s);
            }
            LinkTarget::External { file, path } => {
                let t_obj_path = escape_name(&obj_path);
                let lxid = self.xid_gen(&t_obj_path);
                let pxid = self.xid_gen(&self.prefix.clone());
                let s = format!(
                    "<{}ExternalLink LinkName=\"{}\" OBJ-XID=\"{}\" H5SourcePath=\"{}\" \
                     TargetFilename=\"{}\"  TargetPath=\"{}\"  Parents=\"{}\" H5ParentPaths=\"{}\" />",
                    ns,
                    escape_name(name),
                    lxid,
                    t_obj_path,
                    file,
                    path,
                    pxid,
                    self.parent_paths()
                );
                self.line(&mut ctx, &s);
            }
            LinkTarget::UserDefined(class) => {
                let t_obj_path = escape_name(&obj_path);
                let lxid = self.xid_gen(&t_obj_path);
                let pxid = self.xid_gen(&self.prefix.clone());
                let s = format!(
                    "<{}UserDefined LinkName=\"{}\" OBJ-XID=\"{}\" H5SourcePath=\"{}\" \
                     LinkClass=\"{}\"  Parents=\"{}\" H5ParentPaths=\"{}\" />",
                    ns,
                    escape_name(name),
                    lxid,
                    t_obj_path,
                    class,
                    pxid,
                    self.parent_paths()
                );
                self.line(&mut ctx, &s);
            }
        }
    }

    // ----- named datatypes and datatypes --------------------------------------------------

    /// `xml_dump_named_datatype`: a committed datatype linked as `name` (or `#ADDR` for one
    /// that only datasets use).
    fn dump_named_datatype(&mut self, id: ObjId, name: &str) {
        let ns = self.ns.clone();
        let tmp = format!("{}/{}", self.prefix, name);
        let mut ctx = self.ctx();
        let dtxid = self.xid_gen(&tmp);
        let pxid = self.xid_gen(&self.prefix.clone());
        if name.starts_with('#') {
            let s = format!(
                "<{}NamedDataType Name=\"{}\" OBJ-XID=\"{}\" Parents=\"{}\" H5ParentPaths=\"{}\">",
                ns,
                name,
                dtxid,
                pxid,
                self.parent_paths()
            );
            self.line(&mut ctx, &s);
        } else {
            let s = format!(
                "<{}NamedDataType Name=\"{}\" OBJ-XID=\"{}\" H5Path=\"{}\" Parents=\"{}\" \
                 H5ParentPaths=\"{}\">",
                ns,
                escape_name(name),
                dtxid,
                escape_name(&tmp),
                pxid,
                self.parent_paths()
            );
            self.line(&mut ctx, &s);
            let rc = self.file.object_info(id).map(|i| i.refcount).unwrap_or(1);
            if rc > 1 {
                match self.type_entry(id).cloned() {
                    None => {
                        self.out.put(&" ".repeat(self.dump_indent));
                        self.error_msg("internal error (file h5dump_xml.c)");
                        return;
                    }
                    Some(e) if e.displayed => {
                        ctx.indent_level += 1;
                        let ptr = self.xid_gen(&e.name);
                        let s = format!(
                            "<{}NamedDatatypePtr OBJ-XID=\"{}\" H5Path=\"{}\"/>",
                            ns,
                            ptr,
                            escape_name(&e.name)
                        );
                        self.line(&mut ctx, &s);
                        ctx.indent_level -= 1;
                        let s = format!("</{}NamedDataType>", ns);
                        self.line(&mut ctx, &s);
                        return;
                    }
                    Some(_) => {
                        if let Some((_, e)) = self.types.iter_mut().find(|(a, _)| *a == id) {
                            e.displayed = true;
                        }
                    }
                }
            }
        }
        let dt = match self.file.named_datatype(id) {
            Ok(t) => Some(t),
            Err(e) => {
                self.error_msg(&e);
                None
            }
        };
        ctx.indent_level += 1;
        self.dump_indent += COL;
        let s = format!("<{}DataType>", ns);
        self.line(&mut ctx, &s);
        ctx.indent_level += 1;
        self.dump_indent += COL;
        if let Some(dt) = dt {
            self.print_datatype(&dt, None, true);
        }
        ctx.indent_level -= 1;
        self.dump_indent -= COL;
        let s = format!("</{}DataType>", ns);
        self.line(&mut ctx, &s);
        ctx.indent_level -= 1;
        self.dump_indent -= COL;
        let s = format!("</{}NamedDataType>", ns);
        self.line(&mut ctx, &s);
    }

    /// `xml_dump_datatype`: the type of a dataset or attribute.
    fn dump_datatype(&mut self, t: &TypeRef) {
        let ns = self.ns.clone();
        let mut ctx = self.ctx();
        ctx.indent_level += 1;
        self.dump_indent += COL;
        if let Some(addr) = t.committed {
            match self.type_entry(addr).cloned() {
                Some(e) => {
                    let dtxid = self.xid_gen(&e.name);
                    let s = if !e.recorded {
                        format!("<{}NamedDataTypePtr OBJ-XID=\"{}\"/>", ns, dtxid)
                    } else {
                        format!(
                            "<{}NamedDataTypePtr OBJ-XID=\"{}\" H5Path=\"{}\" />",
                            ns,
                            dtxid,
                            escape_name(&e.name)
                        )
                    };
                    self.line(&mut ctx, &s);
                }
                None => self.line(&mut ctx, "<!-- h5dump error: unknown committed type. -->"),
            }
        } else {
            let s = format!("<{}DataType>", ns);
            self.line(&mut ctx, &s);
            ctx.indent_level += 1;
            self.dump_indent += COL;
            self.print_datatype(&t.datatype, None, false);
            ctx.indent_level -= 1;
            self.dump_indent -= COL;
            let s = format!("</{}DataType>", ns);
            self.line(&mut ctx, &s);
        }
        ctx.indent_level -= 1;
        self.dump_indent -= COL;
    }

    /// Print an atomic type: `<AtomicType>`, the element, `</AtomicType>`.
    fn atomic(&mut self, ctx: &mut Ctx, element: &str) {
        let ns = self.ns.clone();
        self.line(ctx, &format!("<{}AtomicType>", ns));
        ctx.indent_level += 1;
        self.line(ctx, element);
        ctx.indent_level -= 1;
        self.line(ctx, &format!("</{}AtomicType>", ns));
    }

    /// A nested `<DataType>` around `base`, one level in (vlen and array base types).
    fn nested_datatype(&mut self, ctx: &mut Ctx, base: &Datatype) {
        let ns = self.ns.clone();
        self.dump_indent += COL;
        ctx.indent_level += 1;
        self.line(ctx, &format!("<{}DataType>", ns));
        self.dump_indent += COL;
        ctx.indent_level += 1;
        self.print_datatype(base, None, false);
        self.dump_indent -= COL;
        ctx.indent_level -= 1;
        self.line(ctx, &format!("</{}DataType>", ns));
        self.dump_indent -= COL;
        ctx.indent_level -= 1;
    }

    /// `xml_print_datatype`: describe a datatype inside a `<DataType>` element.
    fn print_datatype(&mut self, dt: &Datatype, committed: Option<ObjId>, in_group: bool) {
        let ns = self.ns.clone();
        let mut ctx = self.ctx();
        if let (false, Some(addr)) = (in_group, committed) {
            match self.type_entry(addr).cloned() {
                Some(e) => {
                    let dtxid = self.xid_gen(&e.name);
                    let s = if !e.recorded {
                        format!("<{}NamedDataTypePtr OBJ-XID=\"/{}\"/>", ns, dtxid)
                    } else {
                        format!(
                            "<{}NamedDataTypePtr OBJ-XID=\"{}\" H5Path=\"{}\"/>",
                            ns,
                            dtxid,
                            escape_name(&e.name)
                        )
                    };
                    self.line(&mut ctx, &s);
                }
                None => {
                    self.line(&mut ctx, "<!-- h5dump error: unknown committed type. -->");
                    self.status = 1;
                }
            }
            return;
        }
        match dt {
            Datatype::Integer(t) => {
                let s = format!(
                    "<{}IntegerType ByteOrder=\"{}\" Sign=\"{}\" Size=\"{}\" />",
                    ns,
                    order_name(t.order(), false),
                    if t.sign() == Sign::None {
                        "false"
                    } else {
                        "true"
                    },
                    t.size()
                );
                self.atomic(&mut ctx, &s);
            }
            Datatype::Float(t) => {
                let s = format!(
                    "<{}FloatType ByteOrder=\"{}\" Size=\"{}\" SignBitLocation=\"{}\" \
                     ExponentBits=\"{}\" ExponentLocation=\"{}\" MantissaBits=\"{}\" \
                     MantissaLocation=\"{}\" />",
                    ns,
                    order_name(t.order(), true),
                    t.size(),
                    t.sign_pos(),
                    t.exp_size(),
                    t.exp_pos(),
                    t.mant_size(),
                    t.mant_pos()
                );
                self.atomic(&mut ctx, &s);
            }
            Datatype::Time(_) => {
                let s = format!("<{}TimeType />", ns);
                self.atomic(&mut ctx, &s);
            }
            Datatype::String(t) => {
                let cset = if t.cset() == CharSet::Ascii {
                    "H5T_CSET_ASCII"
                } else {
                    "unknown_cset"
                };
                let size = if t.is_variable() {
                    "H5T_VARIABLE".to_string()
                } else {
                    dt.size().to_string()
                };
                let pad = match t.pad() {
                    StrPad::NullTerm => "H5T_STR_NULLTERM",
                    StrPad::NullPad => "H5T_STR_NULLPAD",
                    StrPad::SpacePad => "H5T_STR_SPACEPAD",
                };
                let s = format!(
                    "<{}StringType Cset=\"{}\" StrSize=\"{}\" StrPad=\"{}\"/>",
                    ns, cset, size, pad
                );
                self.atomic(&mut ctx, &s);
            }
            Datatype::Bitfield(t) => {
                let s = format!(
                    "<{}BitfieldType ByteOrder=\"{}\" Size=\"{}\"/>",
                    ns,
                    order_name(t.order(), false),
                    t.size()
                );
                self.atomic(&mut ctx, &s);
            }
            Datatype::Opaque(t) => {
                let s = format!(
                    "<{}OpaqueType Tag=\"{}\" Size=\"{}\"/>",
                    ns,
                    t.tag(),
                    t.size()
                );
                self.atomic(&mut ctx, &s);
            }
            Datatype::Compound(c) => {
                self.line(&mut ctx, &format!("<{}CompoundType>", ns));
                ctx.indent_level += 1;
                self.dump_indent += COL;
                for m in c.members() {
                    let s = format!("<{}Field FieldName=\"{}\">", ns, escape_name(m.name()));
                    self.line(&mut ctx, &s);
                    self.dump_indent += COL;
                    ctx.indent_level += 1;
                    self.line(&mut ctx, &format!("<{}DataType>", ns));
                    ctx.indent_level += 1;
                    self.dump_indent += COL;
                    self.print_datatype(m.datatype(), None, false);
                    self.dump_indent -= COL;
                    ctx.indent_level -= 1;
                    self.line(&mut ctx, &format!("</{}DataType>", ns));
                    self.dump_indent -= COL;
                    ctx.indent_level -= 1;
                    self.line(&mut ctx, &format!("</{}Field>", ns));
                }
                self.dump_indent -= COL;
                ctx.indent_level -= 1;
                self.line(&mut ctx, &format!("</{}CompoundType>", ns));
            }
            Datatype::Reference(_) => {
                self.line(&mut ctx, &format!("<{}AtomicType>", ns));
                ctx.indent_level += 1;
                self.line(&mut ctx, &format!("<{}ReferenceType>", ns));
                ctx.indent_level += 1;
                self.line(&mut ctx, &format!("<{}ObjectReferenceType />", ns));
                ctx.indent_level -= 1;
                self.line(&mut ctx, &format!("</{}ReferenceType>", ns));
                ctx.indent_level -= 1;
                self.line(&mut ctx, &format!("</{}AtomicType>", ns));
            }
            Datatype::Enum(e) => {
                self.line(&mut ctx, &format!("<{}AtomicType>", ns));
                self.dump_indent += COL;
                ctx.indent_level += 1;
                let s = format!("<{}EnumType Nelems=\"{}\">", ns, e.members().len());
                self.line(&mut ctx, &s);
                self.print_enum(e);
                self.line(&mut ctx, &format!("</{}EnumType>", ns));
                self.dump_indent -= COL;
                ctx.indent_level -= 1;
                self.line(&mut ctx, &format!("</{}AtomicType>", ns));
            }
            Datatype::VarLen(v) => {
                self.line(&mut ctx, &format!("<{}VLType>", ns));
                self.nested_datatype(&mut ctx, v.base());
                self.line(&mut ctx, &format!("</{}VLType>", ns));
            }
            Datatype::Array(a) => {
                let s = format!("<{}ArrayType Ndims=\"{}\">", ns, a.rank());
                self.line(&mut ctx, &s);
                ctx.indent_level += 1;
                for d in a.dims() {
                    // `%u` of the dimension cast to int.
                    let s = format!("<{}ArrayDimension DimSize=\"{}\"/>", ns, *d as u32);
                    self.line(&mut ctx, &s);
                }
                ctx.indent_level -= 1;
                self.nested_datatype(&mut ctx, a.base());
                self.line(&mut ctx, &format!("</{}ArrayType>", ns));
            }
            Datatype::Complex(_) => {
                self.line(&mut ctx, "<!-- unknown datatype -->");
                self.status = 1;
            }
        }
    }

    /// `xml_print_enum`: the base type, then each member's name and value.
    fn print_enum(&mut self, e: &h5::types::EnumType) {
        let ns = self.ns.clone();
        let mut ctx = self.ctx();
        self.line(&mut ctx, &format!("<{}DataType>", ns));
        self.print_datatype(&Datatype::Integer(*e.base()), None, false);
        self.line(&mut ctx, &format!("</{}DataType>", ns));
        let base = e.base();
        ctx.indent_level += 1;
        self.dump_indent += COL;
        for m in e.members() {
            self.line(&mut ctx, &format!("<{}EnumElement>", ns));
            ctx.indent_level += 1;
            self.line(&mut ctx, &escape_name(m.name()));
            ctx.indent_level -= 1;
            self.line(&mut ctx, &format!("</{}EnumElement>", ns));
            self.line(&mut ctx, &format!("<{}EnumValue>", ns));
            ctx.indent_level += 1;
            let value = if base.size() <= 8 {
                let v = decode_int(base, m.raw_value()).unwrap_or(0);
                if base.sign() == Sign::None {
                    (v as u64).to_string()
                } else {
                    (v as i64).to_string()
                }
            } else {
                let mut s = String::from("0x");
                for b in m.raw_value() {
                    s.push_str(&format!("{:02x}", b));
                }
                s
            };
            self.line(&mut ctx, &value);
            ctx.indent_level -= 1;
            self.line(&mut ctx, &format!("</{}EnumValue>", ns));
        }
        ctx.indent_level -= 1;
        self.dump_indent -= COL;
    }

    /// `xml_dump_dataspace`.
    fn dump_dataspace(&mut self, space: &Space) {
        let ns = self.ns.clone();
        let mut ctx = self.ctx();
        ctx.indent_level += 1;
        self.line(&mut ctx, &format!("<{}Dataspace>", ns));
        ctx.indent_level += 1;
        match space {
            Space::Scalar => self.line(&mut ctx, &format!("<{}ScalarDataspace />", ns)),
            Space::Simple { dims, maxdims } => {
                let s = format!("<{}SimpleDataspace Ndims=\"{}\">", ns, dims.len());
                self.line(&mut ctx, &s);
                ctx.indent_level += 1;
                for (i, d) in dims.iter().enumerate() {
                    let m = maxdims.get(i).copied().unwrap_or(*d);
                    let max = if m == u64::MAX {
                        "UNLIMITED".to_string()
                    } else if m == 0 {
                        d.to_string()
                    } else {
                        m.to_string()
                    };
                    let s = format!(
                        "<{}Dimension  DimSize=\"{}\" MaxDimSize=\"{}\"/>",
                        ns, d, max
                    );
                    self.line(&mut ctx, &s);
                }
                ctx.indent_level -= 1;
                self.line(&mut ctx, &format!("</{}SimpleDataspace>", ns));
            }
            Space::Null => self.line(&mut ctx, "<!-- unknown dataspace -->"),
        }
        ctx.indent_level -= 1;
        self.line(&mut ctx, &format!("</{}Dataspace>", ns));
    }

    // ----- attributes ---------------------------------------------------------------------

    /// `xml_dump_attr`.
    fn dump_attr(&mut self, obj: ObjId, a: &AttrInfo) {
        let ns = self.ns.clone();
        let mut ctx = self.ctx();
        let s = format!("<{}Attribute Name=\"{}\">", ns, escape_name(&a.name));
        self.line(&mut ctx, &s);
        self.dump_dataspace(&a.space);
        self.dump_datatype(&a.datatype);
        ctx.indent_level += 1;
        self.dump_indent += COL;
        let dt = &a.datatype.datatype;
        if self.opts.display_attr_data && a.space != Space::Null {
            let src = Source::Attr(obj, &a.name);
            match dt {
                Datatype::Integer(_)
                | Datatype::Float(_)
                | Datatype::String(_)
                | Datatype::Bitfield(_)
                | Datatype::Opaque(_)
                | Datatype::Enum(_)
                | Datatype::Array(_) => self.dump_data(src, dt, &a.space),
                Datatype::Time(_) => {
                    ctx.indent_level += 1;
                    self.dump_indent += COL;
                    self.line(&mut ctx, &format!("<{}Data>", ns));
                    self.line(&mut ctx, "<!-- Time data not yet implemented. -->");
                    self.line(&mut ctx, &format!("<{}NoData/>", ns));
                    self.line(&mut ctx, "<hdf5:Data>");
                    self.line(&mut ctx, &format!("</{}Data>", ns));
                    ctx.indent_level -= 1;
                    self.dump_indent -= COL;
                }
                Datatype::Compound(_) => {
                    self.line(
                        &mut ctx,
                        "<!-- Note: format of compound data not specified -->",
                    );
                    self.dump_data(src, dt, &a.space);
                }
                Datatype::Reference(r) => {
                    self.line(&mut ctx, &format!("<{}Data>", ns));
                    if r.kind() != ReferenceKind::Object {
                        self.line(&mut ctx, "<!-- Note: Region references not supported -->");
                        self.line(&mut ctx, &format!("<{}NoData />", ns));
                    } else {
                        self.line(&mut ctx, &format!("<{}DataFromFile>", ns));
                        let _ = self.print_refs(src, dt, &a.space);
                        self.line(&mut ctx, &format!("</{}DataFromFile>", ns));
                    }
                    self.line(&mut ctx, &format!("</{}Data>", ns));
                }
                Datatype::VarLen(_) => {
                    self.line(&mut ctx, "<!-- Note: format of VL data not specified -->");
                    self.dump_data(src, dt, &a.space);
                }
                Datatype::Complex(_) => {
                    self.line(&mut ctx, &format!("<{}Data>", ns));
                    let s = format!("<!-- Unknown datatype: {} -->", class_number(dt));
                    self.line(&mut ctx, &s);
                    self.line(&mut ctx, &format!("<{}NoData/>", ns));
                    self.line(&mut ctx, &format!("</{}Data>", ns));
                }
            }
        } else {
            self.line(&mut ctx, &format!("<{}Data>", ns));
            ctx.indent_level += 1;
            self.line(&mut ctx, &format!("<{}NoData/>", ns));
            ctx.indent_level -= 1;
            self.line(&mut ctx, &format!("</{}Data>", ns));
        }
        ctx.indent_level -= 1;
        self.dump_indent -= COL;
        self.line(&mut ctx, &format!("</{}Attribute>", ns));
    }

    // ----- datasets -----------------------------------------------------------------------

    /// `xml_dump_dataset`.
    fn dump_dataset(&mut self, id: ObjId, name: &str) {
        let ns = self.ns.clone();
        let tmp = format!("{}/{}", self.prefix, name);
        let mut ctx = self.ctx();
        let rxid = self.xid_gen(&tmp);
        let pxid = self.xid_gen(&self.prefix.clone());
        let s = format!(
            "<{}Dataset Name=\"{}\" OBJ-XID=\"{}\" H5Path= \"{}\" Parents=\"{}\" \
             H5ParentPaths=\"{}\">",
            ns,
            escape_name(name),
            rxid,
            escape_name(&tmp),
            pxid,
            self.parent_paths()
        );
        self.line(&mut ctx, &s);
        let info = match self.file.dataset(id) {
            Ok(i) => i,
            Err(e) => {
                self.error_msg(&e);
                let s = format!("</{}Dataset>", ns);
                self.line(&mut ctx, &s);
                return;
            }
        };
        match &info.layout {
            Layout::Chunked { dims } => {
                ctx.indent_level += 1;
                self.dump_indent += COL;
                self.line(&mut ctx, &format!("<{}StorageLayout>", ns));
                ctx.indent_level += 1;
                self.dump_indent += COL;
                let s = format!("<{}ChunkedLayout Ndims=\"{}\">", ns, dims.len());
                self.line(&mut ctx, &s);
                ctx.indent_level += 1;
                self.dump_indent += COL;
                for d in dims {
                    let s = format!("<{}ChunkDimension DimSize=\"{}\" />", ns, d);
                    self.line(&mut ctx, &s);
                }
                self.line(&mut ctx, &format!("<{}RequiredFilter>", ns));
                ctx.indent_level += 1;
                self.dump_indent += COL;
                self.check_filters(&info.filters);
                ctx.indent_level -= 1;
                self.dump_indent -= COL;
                self.line(&mut ctx, &format!("</{}RequiredFilter>", ns));
                ctx.indent_level -= 1;
                self.dump_indent -= COL;
                self.line(&mut ctx, &format!("</{}ChunkedLayout>", ns));
                ctx.indent_level -= 1;
                self.dump_indent -= COL;
                self.line(&mut ctx, &format!("</{}StorageLayout>", ns));
                ctx.indent_level -= 1;
                self.dump_indent -= COL;
            }
            Layout::Contiguous { .. } | Layout::Compact => {
                let kind = if info.layout == Layout::Compact {
                    "CompactLayout"
                } else {
                    "ContiguousLayout"
                };
                ctx.indent_level += 1;
                self.line(&mut ctx, &format!("<{}StorageLayout>", ns));
                ctx.indent_level += 1;
                self.line(&mut ctx, &format!("<{}{}/>", ns, kind));
                ctx.indent_level -= 1;
                self.line(&mut ctx, &format!("</{}StorageLayout>", ns));
                ctx.indent_level -= 1;
            }
            Layout::Virtual { .. } => {}
        }
        // Fill value.
        ctx.indent_level += 1;
        self.dump_indent += COL;
        let fill_time = match info.fill.fill_time {
            0 => "FillOnAlloc",
            1 => "FillNever",
            2 => "FillIfSet",
            _ => "?",
        };
        let alloc_time = match info.fill.alloc_time {
            1 => "Early",
            2 => "Late",
            3 => "Incremental",
            _ => "?",
        };
        let s = format!(
            "<{}FillValueInfo FillTime=\"{}\" AllocationTime=\"{}\">",
            ns, fill_time, alloc_time
        );
        self.line(&mut ctx, &s);
        ctx.indent_level += 1;
        self.dump_indent += COL;
        self.line(&mut ctx, &format!("<{}FillValue>", ns));
        let no_fill = match &info.fill.value {
            None => true,
            Some(None) => info.fill.fill_time == 2,
            Some(Some(_)) => false,
        };
        if no_fill {
            ctx.indent_level += 1;
            self.line(&mut ctx, &format!("<{}NoFill/>", ns));
            ctx.indent_level -= 1;
        } else {
            let dt = &info.datatype.datatype;
            let bytes = match &info.fill.value {
                Some(Some(b)) => b.clone(),
                _ => vec![0; dt.size()],
            };
            self.dump_fill_value(dt, &bytes);
        }
        self.line(&mut ctx, &format!("</{}FillValue>", ns));
        ctx.indent_level -= 1;
        self.dump_indent -= COL;
        self.line(&mut ctx, &format!("</{}FillValueInfo>", ns));
        ctx.indent_level -= 1;
        self.dump_indent -= COL;

        self.dump_dataspace(&info.space);
        self.dump_datatype(&info.datatype);

        ctx.indent_level += 1;
        self.dump_indent += COL;
        self.dump_attrs(id);
        ctx.indent_level -= 1;
        self.dump_indent -= COL;

        let dt = &info.datatype.datatype;
        let src = Source::Dataset(id);
        let storage = info.storage_size;
        if self.opts.display_data && storage > 0 {
            match dt {
                Datatype::Integer(_)
                | Datatype::Float(_)
                | Datatype::String(_)
                | Datatype::Bitfield(_)
                | Datatype::Opaque(_)
                | Datatype::Enum(_)
                | Datatype::Array(_) => {
                    ctx.indent_level += 1;
                    self.dump_indent += COL;
                    self.dump_data(src, dt, &info.space);
                    ctx.indent_level -= 1;
                    self.dump_indent -= COL;
                }
                Datatype::Time(_) => {
                    ctx.indent_level += 1;
                    self.line(&mut ctx, &format!("<{}Data>", ns));
                    self.line(&mut ctx, "<!-- Time data not yet implemented. -->");
                    self.line(&mut ctx, &format!("<{}NoData />", ns));
                    self.line(&mut ctx, &format!("<{}Data>", ns));
                    ctx.indent_level -= 1;
                }
                Datatype::Compound(_) => {
                    self.line(
                        &mut ctx,
                        "<!-- Note: format of compound data not specified -->",
                    );
                    ctx.indent_level += 1;
                    self.dump_indent += COL;
                    self.dump_data(src, dt, &info.space);
                    ctx.indent_level -= 1;
                    self.dump_indent -= COL;
                }
                Datatype::Reference(r) => {
                    self.line(&mut ctx, &format!("<{}Data>", ns));
                    if r.kind() != ReferenceKind::Object {
                        self.line(&mut ctx, "<!-- Note: Region references not supported -->");
                        self.line(&mut ctx, &format!("<{}NoData />", ns));
                    } else {
                        self.line(&mut ctx, &format!("<{}DataFromFile>", ns));
                        let _ = self.print_refs(src, dt, &info.space);
                        self.line(&mut ctx, &format!("</{}DataFromFile>", ns));
                    }
                    self.line(&mut ctx, &format!("</{}Data>", ns));
                }
                Datatype::VarLen(_) => {
                    ctx.indent_level -= 1;
                    self.dump_indent -= COL;
                    self.line(&mut ctx, "<!-- Note: format of VL data not specified -->");
                    ctx.indent_level += 1;
                    self.dump_indent += COL;
                    ctx.indent_level += 1;
                    self.dump_indent += COL;
                    self.dump_data(src, dt, &info.space);
                    ctx.indent_level -= 1;
                    self.dump_indent -= COL;
                }
                Datatype::Complex(_) => {
                    self.line(&mut ctx, &format!("<{}Data>", ns));
                    let s = format!("<!-- Unknown datatype: {} -->", class_number(dt));
                    self.line(&mut ctx, &s);
                    self.line(&mut ctx, &format!("<{}NoData/>", ns));
                    self.line(&mut ctx, &format!("</{}Data>", ns));
                }
            }
        } else {
            ctx.indent_level += 1;
            self.line(&mut ctx, &format!("<{}Data>", ns));
            ctx.indent_level += 1;
            self.line(&mut ctx, &format!("<{}NoData/>", ns));
            ctx.indent_level -= 1;
            self.line(&mut ctx, &format!("</{}Data>", ns));
            ctx.indent_level -= 1;
        }
        self.line(&mut ctx, &format!("</{}Dataset>", ns));
    }

    /// `check_filters`: the filters h5dump describes in XML (deflate, fletcher32, shuffle,
    /// szip). The client data array and its capacity carry over from one filter to the
    /// next, as in the reference (`cd_nelmts` is both the capacity and the count).
    fn check_filters(&mut self, filters: &[Filter]) {
        let ns = self.ns.clone();
        let mut ctx = self.ctx();
        let mut cd = [0u32; 20];
        let mut cap = 20usize;
        for f in filters {
            for (i, v) in f.cd_values.iter().take(cap).enumerate() {
                cd[i] = *v;
            }
            cap = f.cd_values.len();
            let n = cap;
            let s = match f.id {
                1 => {
                    let level = if n < 1 {
                        "6".to_string()
                    } else {
                        cd[0].to_string()
                    };
                    format!("<{}Deflate Level=\"{}\"/>", ns, level)
                }
                3 => format!("<{}Fletcher32 />", ns),
                2 => format!("<{}Shuffle />", ns),
                4 => {
                    let mut s = format!("<{}SZIP ", ns);
                    if n < 2 {
                        s.push_str("Pixels_per_block=\"-1\" ");
                    } else {
                        s.push_str(&format!("Pixels_per_block=\"{}\" ", cd[1] as i32));
                    }
                    let mask = cd[0];
                    if mask & 2 != 0 {
                        s.push_str("Mode =\"Hardware\" ");
                    } else if mask & 1 != 0 {
                        s.push_str("Mode =\"K13\" ");
                    }
                    s.push_str("Coding=\"");
                    if mask & 4 != 0 {
                        s.push_str("Entropy");
                    } else if mask & 32 != 0 {
                        s.push_str("NN");
                    }
                    s.push_str("\" ByteOrder=\"");
                    if mask & 8 != 0 {
                        s.push_str("LSB");
                    } else if mask & 16 != 0 {
                        s.push_str("MSB");
                    }
                    s.push_str("\" ");
                    if mask & 128 != 0 {
                        s.push_str("Header=\"Raw\"");
                    }
                    s.push_str("/>");
                    s
                }
                _ => continue,
            };
            ctx.indent_level += 1;
            self.line(&mut ctx, &s);
            ctx.indent_level -= 1;
        }
    }

    /// `xml_dump_fill_value`: the fill value as the reference prints it, which reads the
    /// value's first bytes as a native `int`, `float` or `unsigned` whatever the type's size
    /// and byte order.
    fn dump_fill_value(&mut self, dt: &Datatype, bytes: &[u8]) {
        let ns = self.ns.clone();
        let mut ctx = self.ctx();
        ctx.indent_level += 1;
        self.dump_indent += COL;
        self.line(&mut ctx, &format!("<{}Data>", ns));
        ctx.indent_level += 1;
        self.dump_indent += COL;
        let from_file = |x: &mut Self, ctx: &mut Ctx, value: &str| {
            x.line(ctx, &format!("<{}DataFromFile>", ns));
            x.line(ctx, value);
            x.line(ctx, &format!("</{}DataFromFile>", ns));
        };
        let not_yet = |x: &mut Self, ctx: &mut Ctx, what: &str| {
            x.line(ctx, &format!("<!-- {} not yet implemented. -->", what));
            x.line(ctx, &format!("<{}NoData />", ns));
        };
        match dt {
            Datatype::Reference(_) => {
                let addr = first_u64(bytes);
                let value = match self.paths.get(&addr) {
                    Some((p, _)) => format!("\"{}\"", escape_string(p)),
                    None => "\"NULL\"".to_string(),
                };
                from_file(self, &mut ctx, &value);
            }
            Datatype::String(_) => not_yet(self, &mut ctx, "String fill values"),
            Datatype::Integer(_) => {
                let v = first_u32(bytes) as i32;
                from_file(self, &mut ctx, &format!("\"{}\"", v));
            }
            Datatype::Float(_) => {
                let v = f32::from_bits(first_u32(bytes)) as f64;
                let s = format!("\"{}\"", super::value::printf_float("%f", v));
                from_file(self, &mut ctx, &s);
            }
            Datatype::Bitfield(_) | Datatype::Opaque(_) => {
                let base = first_u32(bytes);
                let mut s = String::from("\"");
                for i in 0..dt.size() {
                    let v = base.wrapping_add((i as u32).wrapping_mul(4));
                    s.push_str(&format!("{:x} ", v));
                }
                s.push('"');
                from_file(self, &mut ctx, &s);
            }
            Datatype::Enum(e) => {
                let idx = first_u32(bytes) as usize;
                let name = e
                    .members()
                    .get(idx)
                    .map(|m| m.name().to_string())
                    .unwrap_or_else(|| "(null)".into());
                from_file(self, &mut ctx, &format!("\"{}\"", name));
            }
            Datatype::Array(_) => not_yet(self, &mut ctx, "Array fill values"),
            Datatype::Time(_) => not_yet(self, &mut ctx, "Time fill"),
            Datatype::Compound(_) => not_yet(self, &mut ctx, "Compound fill"),
            Datatype::VarLen(_) => not_yet(self, &mut ctx, "VL fill"),
            Datatype::Complex(_) => {
                let s = format!("<!-- Unknown fill datatype: {} -->", class_number(dt));
                self.line(&mut ctx, &s);
                self.line(&mut ctx, &format!("<{}NoData/>", ns));
            }
        }
        ctx.indent_level -= 1;
        self.dump_indent -= COL;
        self.line(&mut ctx, &format!("</{}Data>", ns));
        ctx.indent_level -= 1;
        self.dump_indent -= COL;
    }

    // ----- data ---------------------------------------------------------------------------

    /// All the elements of a dataset or attribute, in the file datatype.
    fn all_bytes(&self, src: Source<'_>, space: &Space) -> ModelResult<Vec<u8>> {
        match src {
            Source::Attr(obj, name) => self.file.attribute_data(obj, name),
            Source::Dataset(id) => {
                let dims = space.dims();
                if matches!(space, Space::Null) {
                    return Ok(Vec::new());
                }
                self.file.read(id, &vec![0; dims.len()], dims)
            }
        }
    }

    /// `xml_dump_data`: `<Data><DataFromFile>` with the values.
    fn dump_data(&mut self, src: Source<'_>, dt: &Datatype, space: &Space) {
        let ns = self.ns.clone();
        let info = self.data_format();
        let mut ctx = self.ctx();
        self.out.line(&info, &mut ctx, &format!("<{}Data>", ns));
        ctx.indent_level += 1;
        self.out
            .line(&info, &mut ctx, &format!("<{}DataFromFile>", ns));
        ctx.indent_level -= 1;
        self.dump_indent += COL;
        ctx.indent_level += 1;
        let ok = if let Datatype::String(_) = dt {
            self.print_strs(src, dt, space)
        } else {
            let mut dctx = Ctx {
                need_prefix: true,
                indent_level: ctx.indent_level,
                cur_column: ctx.cur_column,
                ..Ctx::default()
            };
            match src {
                Source::Dataset(id) => {
                    if matches!(space, Space::Null) {
                        Ok(())
                    } else {
                        self.dump_simple_dset(&info, &mut dctx, id, dt, space)
                    }
                }
                Source::Attr(..) => self.all_bytes(src, space).map(|bytes| {
                    self.dump_mem(&info, &mut dctx, dt, space, &bytes);
                }),
            }
        };
        if ok.is_err() {
            ctx.indent_level += 1;
            self.out.line(&info, &mut ctx, "Unable to print data.");
            ctx.indent_level -= 1;
        }
        ctx.indent_level -= 1;
        self.dump_indent -= COL;
        ctx.indent_level += 1;
        self.out
            .line(&info, &mut ctx, &format!("</{}DataFromFile>", ns));
        ctx.indent_level -= 1;
        self.out.line(&info, &mut ctx, &format!("</{}Data>", ns));
    }

    /// `xml_print_refs`: the path of each referenced object, quoted.
    fn print_refs(&mut self, src: Source<'_>, dt: &Datatype, space: &Space) -> ModelResult<()> {
        let bytes = self.all_bytes(src, space)?;
        let size = dt.size().max(1);
        let mut ctx = self.ctx();
        for r in bytes.chunks(size).take(space.npoints() as usize) {
            let path = if r.iter().all(|&b| b == 0) {
                None
            } else {
                match self.file.dereference(r) {
                    Ok(Some(RefTarget::Object(id))) => self.paths.get(&id).map(|p| p.0.clone()),
                    Ok(Some(RefTarget::Region { dataset, .. })) => {
                        self.paths.get(&dataset).map(|p| p.0.clone())
                    }
                    _ => None,
                }
            };
            ctx.indent_level += 1;
            let s = match path {
                Some(p) => format!("\"{}\"", escape_string(&p)),
                None => "\"NULL\"".to_string(),
            };
            self.line(&mut ctx, &s);
            ctx.indent_level -= 1;
        }
        Ok(())
    }

    /// `xml_print_strs`: each string quoted and escaped, up to its first NUL; `NULL` for a
    /// null variable-length string.
    fn print_strs(&mut self, src: Source<'_>, dt: &Datatype, space: &Space) -> ModelResult<()> {
        let bytes = self.all_bytes(src, space)?;
        let Datatype::String(t) = dt else {
            return Err("not a string type".into());
        };
        let size = dt.size().max(1);
        let mut ctx = self.ctx();
        for e in bytes.chunks(size).take(space.npoints() as usize) {
            let data = if t.is_variable() {
                self.file.vlen_data(e)?
            } else {
                Some(e.to_vec())
            };
            let s = match data {
                None => "NULL".to_string(),
                Some(d) => {
                    let n = d.iter().position(|&c| c == 0).unwrap_or(d.len());
                    format!("\"{}\"", escape_string(&text(&d[..n])))
                }
            };
            self.line(&mut ctx, &s);
        }
        Ok(())
    }

    /// `h5tools_dump_simple_data`: render `nelmts` elements.
    fn simple_data(
        &mut self,
        info: &Format,
        ctx: &mut Ctx,
        end_of_data: bool,
        dt: &Datatype,
        bytes: &[u8],
        nelmts: u64,
    ) {
        let size = dt.size();
        let ncols = info.line_ncols;
        let values = self.values();
        let mut elmt_counter = 0u64;
        for i in 0..nelmts {
            let start = (i as usize).saturating_mul(size);
            let eb = bytes.get(start..start + size).unwrap_or(&[]);
            let mut s = String::new();
            values.sprint(&mut s, info, ctx, dt, eb);
            if i + 1 < nelmts || !end_of_data {
                s.push_str(info.elmt_suf1);
            }
            if !self
                .out
                .render_element(info, ctx, &s, ncols, i, elmt_counter)
            {
                elmt_counter = 0;
            }
            ctx.cur_elmt += 1;
            elmt_counter += 1;
        }
        self.next_arr.set(values.next_arr.get());
    }

    /// `h5tools_dump_simple_mem`: an attribute's values.
    fn dump_mem(&mut self, info: &Format, ctx: &mut Ctx, dt: &Datatype, space: &Space, b: &[u8]) {
        let dims = space.dims().to_vec();
        ctx.init_acc_pos(&dims);
        ctx.size_last_dim = dims.last().copied().unwrap_or(0);
        let n = space.npoints();
        if n > 0 {
            let saved = std::mem::replace(&mut self.out.dest, self.opts.attr_dest.clone());
            self.simple_data(info, ctx, true, dt, b, n);
            self.out.dest = saved;
        }
    }

    /// `h5tools_dump_simple_dset`: a dataset's values, read in blocks of at most 32 MiB of
    /// native elements.
    fn dump_simple_dset(
        &mut self,
        info: &Format,
        ctx: &mut Ctx,
        id: ObjId,
        dt: &Datatype,
        space: &Space,
    ) -> ModelResult<()> {
        let dims = space.dims().to_vec();
        ctx.init_acc_pos(&dims);
        ctx.size_last_dim = dims.last().copied().unwrap_or(0);
        let total: u64 = dims.iter().product();
        if total == 0 && !dims.is_empty() {
            return Ok(());
        }
        let nsize = dt.native_type().map(|t| t.size()).unwrap_or(dt.size()) as u64;
        for strip in super::render::StripMine::new(&dims, nsize) {
            let bytes = self.file.read(id, &strip.offset, &strip.count)?;
            ctx.sm_pos = strip.elmtno;
            let saved = std::mem::replace(&mut self.out.dest, self.opts.data_dest.clone());
            self.simple_data(info, ctx, strip.end, dt, &bytes, strip.n);
            self.out.dest = saved;
            ctx.continuation += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_escape_the_five_markup_characters() {
        assert_eq!(escape_name("a&b"), "a&amp;b");
        assert_eq!(escape_name("<x>"), "&lt;x&gt;");
        assert_eq!(escape_name("it's \"q\""), "it&apos;s &quot;q&quot;");
        assert_eq!(escape_name("plain/path 1"), "plain/path 1");
        // Backslashes are left alone in names.
        assert_eq!(escape_name("a\\b"), "a\\b");
    }

    #[test]
    fn strings_backslash_quotes_and_entity_the_rest() {
        assert_eq!(escape_string("say \"hi\""), "say \\\"hi\\\"");
        assert_eq!(escape_string("a\\b"), "a\\\\b");
        assert_eq!(escape_string("it's"), "it&apos;s");
        assert_eq!(escape_string("<&>"), "&lt;&amp;&gt;");
    }

    #[test]
    fn headers_for_schema_namespace_and_dtd() {
        let schema = XmlSettings::default();
        let h = header(&schema, DEFAULT_XSD);
        assert!(h.starts_with(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<hdf5:HDF5-File xmlns:hdf5="
        ));
        let none = XmlSettings {
            ns: String::new(),
            ..XmlSettings::default()
        };
        assert_eq!(
            header(&none, "http://somewhere.net"),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HDF5-File \
             xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
             xsi:noNamespaceSchemaLocation=\"http://somewhere.net\">\n"
        );
        let thing = XmlSettings {
            ns: "thing:".into(),
            ..XmlSettings::default()
        };
        assert!(header(&thing, DEFAULT_XSD).contains("<thing:HDF5-File xmlns:thing=\""));
        let dtd = XmlSettings {
            use_schema: false,
            dtd_uri: None,
            ns: String::new(),
        };
        assert_eq!(
            header(&dtd, DEFAULT_DTD),
            format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE HDF5-File PUBLIC \
                 \"HDF5-File.dtd\" \"{}\">\n<HDF5-File>\n",
                DEFAULT_DTD
            )
        );
    }

    fn ty(s: &str) -> Datatype {
        s.parse().expect("datatype text")
    }

    /// A dataset linked twice, soft links (resolving and dangling) and an external link.
    fn links_file() -> super::super::memory::MemoryFile {
        let mut f = super::super::memory::MemoryFile::new();
        let root = f.root;
        let mut data = Vec::new();
        for v in [1i32, 2] {
            data.extend_from_slice(&v.to_le_bytes());
        }
        let d = f.add_dataset(root, "d", ty("H5T_STD_I32LE"), Space::simple(&[2]), data);
        let g = f.add_group(root, "g");
        f.link(g, "d2", LinkTarget::Hard(d));
        f.link(root, "s", LinkTarget::Soft("/d".into()));
        f.link(root, "dangling", LinkTarget::Soft("nowhere".into()));
        f.link(
            root,
            "e",
            LinkTarget::External {
                file: "other.h5".into(),
                path: "/x".into(),
            },
        );
        f
    }

    #[test]
    fn second_links_point_to_the_first_and_dangling_links_get_fake_ids() {
        let f = links_file();
        let mut settings = XmlSettings::default();
        // `-x` sets the line width to 0: one value per line.
        let opts = Opts {
            ncols: 0,
            ..Opts::default()
        };
        let out = dump_file(&f, &opts, &mut settings, None, None);
        assert_eq!(out.status, 0, "{}", out.stderr);
        let text = out.stdout;
        let d = text
            .lines()
            .find(|l| l.contains("Name=\"d\""))
            .expect("dataset d");
        let xid = d
            .split("OBJ-XID=\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .expect("its id")
            .to_string();
        assert_eq!(
            d,
            format!(
                "   <hdf5:Dataset Name=\"d\" OBJ-XID=\"{xid}\" H5Path= \"/d\" Parents=\"xid_96\" \
                 H5ParentPaths=\"/\">"
            )
        );
        assert!(text.contains(&format!(
            "      <hdf5:Dataset Name=\"d2\" OBJ-XID=\"{xid}-1\" H5Path=\"/g/d2\""
        )));
        assert!(text.contains(&format!(
            "         <hdf5:DatasetPtr OBJ-XID=\"{xid}\" H5Path=\"/d\"/>"
        )));
        // Fake ids count down from HADDR_MAX in the order the links are printed.
        assert!(text.contains(
            "<hdf5:SoftLink LinkName=\"dangling\" OBJ-XID=\"xid_18446744073709551614\" \
             H5SourcePath=\"/dangling\" TargetPath=\"nowhere\"  Parents=\"xid_96\""
        ));
        assert!(text.contains(
            "<hdf5:ExternalLink LinkName=\"e\" OBJ-XID=\"xid_18446744073709551613\" \
             H5SourcePath=\"/e\" TargetFilename=\"other.h5\"  TargetPath=\"/x\"  "
        ));
        // A soft link that resolves takes its target's id.
        assert!(text.contains(&format!(
            "<hdf5:SoftLink LinkName=\"s\" OBJ-XID=\"{xid}\" H5SourcePath=\"/s\" \
             TargetPath=\"/d\" TargetObj=\"{xid}\" Parents=\"xid_96\" H5ParentPaths=\"/\" />"
        )));
        assert!(
            text.contains("         <hdf5:DataFromFile>\n         1\n         2\n"),
            "{text}"
        );
        assert!(text.ends_with("</hdf5:RootGroup>\n</hdf5:HDF5-File>\n"));
    }

    #[test]
    fn a_schema_location_with_a_qualified_namespace_is_refused() {
        let f = links_file();
        let mut settings = XmlSettings {
            dtd_uri: Some("http://somewhere.net".into()),
            ..XmlSettings::default()
        };
        let out = dump_file(&f, &Opts::default(), &mut settings, None, None);
        assert_eq!(out.status, 1);
        assert!(out.stdout.is_empty());
        assert!(out
            .stderr
            .starts_with("h5dump error: Cannot set Schema URL"));
        // The default location chosen for one file is kept for the next (as h5dump does).
        let mut settings = XmlSettings::default();
        assert_eq!(
            dump_file(&f, &Opts::default(), &mut settings, None, None).status,
            0
        );
        assert_eq!(settings.dtd_uri.as_deref(), Some(DEFAULT_XSD));
        assert_eq!(
            dump_file(&f, &Opts::default(), &mut settings, None, None).status,
            1
        );
    }

    #[test]
    fn fill_value_words_read_like_the_reference() {
        assert_eq!(first_u32(&[2]), 2);
        assert_eq!(first_u32(&[0, 0, 0, 2]), 0x0200_0000);
        assert_eq!(first_u64(&[1, 0, 0, 0, 0, 0, 0, 0, 9]), 1);
    }
}
