//! Rendering one data element as text (the reference tools' `h5tools_str_sprint`), and C
//! `printf` float formatting for `%g` and `-m FORMAT`.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use h5::types::compose::decode_int;
use h5::types::{ByteOrder, Datatype, ReferenceKind, StrPad};

pub use h5::io::compare::decode_float;

use super::model::{DumpFile, IndexOrder, LinkTarget, ObjId, ObjKind, RefInfo, RefKind};
use super::render::{Ctx, Format, Out};

/// What the element renderer needs beside the format: the file (for vlen data and
/// references) and the object path table.
pub struct Values<'a> {
    /// The file.
    pub file: &'a dyn DumpFile,
    /// First path of each object, from the traversal.
    pub paths: Rc<HashMap<ObjId, (String, ObjKind)>>,
    /// The reference's static "next array element" flag.
    pub next_arr: Cell<bool>,
    /// Packed-bits extraction: (offset, mask) applied to integers (`-M`).
    pub packed: Option<(u32, u64)>,
    /// The identifier counters (`-i`): dereferencing a reference registers its target.
    pub ids: super::oid::Ids,
    /// What the names of revised references need.
    pub refs: RefEnv<'a>,
}

/// A file reached through a reference to another file, with the first path of each object.
pub struct ExtFile {
    /// The file.
    pub file: Box<dyn DumpFile>,
    /// Its identity (canonical path).
    pub key: String,
    /// First path of each object.
    pub paths: Rc<HashMap<ObjId, (String, ObjKind)>>,
}

/// Files reached through references to other files, by the name the reference stores
/// (`None`: it could not be opened).
pub type ExtFiles = Rc<RefCell<HashMap<String, Option<Rc<ExtFile>>>>>;

/// What the name of a revised reference needs (`h5tools_str_sprint_reference` of HDF5 2.x):
/// the name the file was opened as and a way to reach the files other references name.
pub struct RefEnv<'a> {
    /// The file's name as opened (`H5Rget_file_name` of a reference into it).
    pub file_name: String,
    /// The file's identity: other files are looked for next to it.
    pub file_key: String,
    /// Opens other files.
    pub open: Option<&'a super::Opener<'a>>,
    /// Files already reached.
    pub ext: ExtFiles,
}

impl RefEnv<'_> {
    /// The file a reference to another file names, opened where the reference library
    /// looks for it, with its object paths.
    pub fn external(&self, name: &str) -> Option<Rc<ExtFile>> {
        if let Some(e) = self.ext.borrow().get(name) {
            return e.clone();
        }
        let opened = self.open.and_then(|open| {
            let (file, key) = super::ddl::open_external(open, &self.file_key, name)?;
            let paths = Rc::new(first_paths(file.as_ref()));
            Some(Rc::new(ExtFile { file, key, paths }))
        });
        self.ext
            .borrow_mut()
            .insert(name.to_string(), opened.clone());
        opened
    }
}

/// The first path of each object reachable from the root by hard links, visiting links in
/// name order depth first (the path `H5Rget_obj_name` finds).
pub fn first_paths(file: &dyn DumpFile) -> HashMap<ObjId, (String, ObjKind)> {
    fn walk(
        file: &dyn DumpFile,
        group: ObjId,
        path: &str,
        out: &mut HashMap<ObjId, (String, ObjKind)>,
    ) {
        let Ok(links) = file.links(group, IndexOrder::Name) else {
            return;
        };
        for l in links {
            let LinkTarget::Hard(id) = l.target else {
                continue;
            };
            if out.contains_key(&id) {
                continue;
            }
            let Ok(kind) = file.object_kind(id) else {
                continue;
            };
            let full = format!("{}/{}", path, l.name);
            out.insert(id, (full.clone(), kind));
            if kind == ObjKind::Group {
                walk(file, id, &full, out);
            }
        }
    }
    let mut out = HashMap::new();
    let root = file.root();
    out.insert(root, ("/".to_string(), ObjKind::Group));
    walk(file, root, "", &mut out);
    out
}

/// Format a float with a C printf format such as `%g`, `%.3f` or `x=%10.4e`.
pub fn printf_float(fmt: &str, v: f64) -> String {
    let mut out = String::new();
    let b = fmt.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'%' {
            let ch = fmt[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
            continue;
        }
        if b.get(i + 1) == Some(&b'%') {
            out.push('%');
            i += 2;
            continue;
        }
        let mut j = i + 1;
        let (mut left, mut plus, mut space, mut alt, mut zero) =
            (false, false, false, false, false);
        while let Some(&c) = b.get(j) {
            match c {
                b'-' => left = true,
                b'+' => plus = true,
                b' ' => space = true,
                b'#' => alt = true,
                b'0' => zero = true,
                _ => break,
            }
            j += 1;
        }
        let mut width = 0usize;
        while let Some(c) = b.get(j).filter(|c| c.is_ascii_digit()) {
            width = width * 10 + (c - b'0') as usize;
            j += 1;
        }
        let mut prec = None;
        if b.get(j) == Some(&b'.') {
            j += 1;
            let mut p = 0usize;
            while let Some(c) = b.get(j).filter(|c| c.is_ascii_digit()) {
                p = p * 10 + (c - b'0') as usize;
                j += 1;
            }
            prec = Some(p);
        }
        while let Some(c) = b.get(j).filter(|c| matches!(c, b'l' | b'L' | b'h')) {
            let _ = c;
            j += 1;
        }
        let conv = b.get(j).copied().unwrap_or(b'g');
        j += 1;
        let body = format_conv(v, conv, prec, alt);
        let neg = body.starts_with('-');
        let mut digits = if neg { body[1..].to_string() } else { body };
        let sign = if neg {
            "-"
        } else if plus {
            "+"
        } else if space {
            " "
        } else {
            ""
        };
        let len = sign.len() + digits.len();
        if len < width {
            let pad = width - len;
            if left {
                out.push_str(sign);
                out.push_str(&digits);
                out.push_str(&" ".repeat(pad));
            } else if zero && v.is_finite() {
                digits = format!("{}{}", "0".repeat(pad), digits);
                out.push_str(sign);
                out.push_str(&digits);
            } else {
                out.push_str(&" ".repeat(pad));
                out.push_str(sign);
                out.push_str(&digits);
            }
        } else {
            out.push_str(sign);
            out.push_str(&digits);
        }
        i = j;
    }
    out
}

fn exp_form(v: f64, prec: usize, upper: bool) -> String {
    let s = format!("{:.*e}", prec, v);
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    let es = if e < 0 {
        format!("-{:02}", -e)
    } else {
        format!("+{:02}", e)
    };
    let r = format!("{}e{}", mant, es);
    if upper {
        r.to_uppercase()
    } else {
        r
    }
}

fn format_conv(v: f64, conv: u8, prec: Option<usize>, alt: bool) -> String {
    let upper = conv.is_ascii_uppercase();
    if v.is_nan() {
        let s = if v.is_sign_negative() { "-nan" } else { "nan" };
        return if upper { s.to_uppercase() } else { s.into() };
    }
    if v.is_infinite() {
        let s = if v < 0.0 { "-inf" } else { "inf" };
        return if upper { s.to_uppercase() } else { s.into() };
    }
    match conv.to_ascii_lowercase() {
        b'f' => format!("{:.*}", prec.unwrap_or(6), v),
        b'e' => exp_form(v, prec.unwrap_or(6), upper),
        b'd' | b'i' => format!("{}", v as i64),
        _ => {
            let p = match prec {
                Some(0) => 1,
                Some(p) => p,
                None => 6,
            };
            if v == 0.0 {
                let z = if v.is_sign_negative() { "-0" } else { "0" };
                return if alt {
                    format!("{}.{}", z, "0".repeat(p - 1))
                } else {
                    z.into()
                };
            }
            let e = exp_form(v, p - 1, false);
            let x: i32 = e
                .rsplit_once('e')
                .and_then(|(_, x)| x.parse().ok())
                .unwrap_or(0);
            let mut s = if x < -4 || x >= p as i32 {
                e
            } else {
                format!("{:.*}", (p as i32 - 1 - x).max(0) as usize, v)
            };
            if !alt {
                let (m, ex) = match s.find('e') {
                    Some(k) => (s[..k].to_string(), s[k..].to_string()),
                    None => (s.clone(), String::new()),
                };
                let m = if m.contains('.') {
                    m.trim_end_matches('0').trim_end_matches('.').to_string()
                } else {
                    m
                };
                s = m + &ex;
            }
            if upper {
                s.to_uppercase()
            } else {
                s
            }
        }
    }
}

/// Values in the byte order of a `-b` form (`NATIVE`/`MEMORY`: little-endian here, `LE`,
/// `BE`; `FILE`: as stored).
pub fn binary_form(dt: &Datatype, bytes: &[u8], form: &str) -> Vec<u8> {
    let size = dt.size().max(1);
    let file_order = dt.order();
    let want = match form {
        "FILE" => file_order,
        "BE" => Some(ByteOrder::BigEndian),
        _ => Some(ByteOrder::LittleEndian),
    };
    let swap = matches!(
        dt,
        Datatype::Integer(_) | Datatype::Float(_) | Datatype::Bitfield(_)
    ) && file_order.is_some()
        && want.is_some()
        && file_order != want;
    if let Datatype::String(t) = dt {
        if !t.is_variable() && t.pad() == StrPad::NullTerm {
            // A null-terminated string is written up to its terminator
            // (`render_bin_output`).
            let mut out = Vec::with_capacity(bytes.len());
            for e in bytes.chunks(size) {
                let n = e.iter().position(|&c| c == 0).unwrap_or(e.len());
                out.extend_from_slice(&e[..n]);
            }
            return out;
        }
    }
    let mut out = bytes.to_vec();
    if swap {
        for chunk in out.chunks_mut(size) {
            chunk.reverse();
        }
    }
    out
}

/// Append one character the way `h5tools_print_char` does.
pub fn print_char(out: &mut String, info: &Format, ch: u8) {
    if info.html_escape {
        if (0x21..0x7f).contains(&ch) {
            out.push(ch as char);
        } else {
            // `%%%02x` of a (signed) char promoted to int.
            out.push_str(&format!("%{:02x}", ch as i8 as i32 as u32));
        }
        return;
    }
    let esc = info.do_escape;
    match ch {
        b'"' => out.push_str(if esc { "\\\"" } else { "\"" }),
        b'\\' => out.push_str(if esc { "\\\\" } else { "\\" }),
        8 => out.push_str(if esc { "\\b" } else { "\u{8}" }),
        12 => out.push_str(if esc { "\\f" } else { "\u{c}" }),
        b'\n' => out.push_str(if esc { "\\n" } else { "\n           " }),
        b'\r' => out.push_str(if esc { "\\r" } else { "\r           " }),
        b'\t' => out.push_str(if esc { "\\t" } else { "\t" }),
        c if (0x20..0x7f).contains(&c) => out.push(c as char),
        c => {
            // `%03o` of a (signed) char promoted to int.
            let v = c as i8 as i32 as u32;
            out.push_str(&format!("\\{:03o}", v));
        }
    }
}

/// The size `H5Tget_size` reports for a datatype read from a file: the library gives its
/// variable-length parts their memory form (a string is a pointer, a sequence an `hvl_t`), and
/// a compound or array holding them grows or shrinks by as much.
pub fn memory_size(dt: &Datatype) -> u64 {
    match dt {
        Datatype::String(t) if t.is_variable() => 8,
        Datatype::VarLen(_) => 16,
        Datatype::Array(a) => a.len().saturating_mul(memory_size(a.base())),
        Datatype::Compound(c) => c.members().iter().fold(c.size() as u64, |size, m| {
            (size + memory_size(m.datatype())).saturating_sub(m.datatype().size() as u64)
        }),
        _ => dt.size() as u64,
    }
}

fn hex_bytes(out: &mut String, bytes: &[u8]) {
    if bytes.len() == 1 {
        out.push_str(&format!("0x{:02x}", bytes[0]));
    } else {
        for (i, b) in bytes.iter().enumerate() {
            if i > 0 {
                out.push(':');
            }
            out.push_str(&format!("{:02x}", b));
        }
    }
}

/// The native (little-endian) bytes of an integer value of `size` bytes.
fn native_int_bytes(v: i128, size: usize) -> Vec<u8> {
    (0..size).map(|i| (v >> (8 * i.min(15))) as u8).collect()
}

impl Values<'_> {
    /// Render one element of file datatype `dt` from its bytes (`h5tools_str_sprint`).
    pub fn sprint(&self, s: &mut String, info: &Format, ctx: &mut Ctx, dt: &Datatype, b: &[u8]) {
        if info.raw {
            // h5ls 1.10.8's `-x`: each byte of the element's memory image is printed in a
            // format that shows nothing, so only the `:` between bytes remain.
            let n = usize::try_from(memory_size(dt)).unwrap_or(usize::MAX);
            s.push_str(&":".repeat(n.saturating_sub(1)));
            return;
        }
        match dt {
            Datatype::Float(t) => {
                let native = dt.native_type().map(|n| n.size()).unwrap_or(8);
                match decode_float(t, b) {
                    Some(v) if native == 4 => {
                        s.push_str(&printf_float(&info.fmt_float, v as f32 as f64))
                    }
                    Some(v) if native == 8 => s.push_str(&printf_float(&info.fmt_double, v)),
                    Some(v) => s.push_str(&printf_float("%Lg", v)),
                    None => hex_bytes(s, b),
                }
            }
            Datatype::String(t) => {
                let owned;
                let data: Option<&[u8]> = if t.is_variable() {
                    match self.file.vlen_data(b) {
                        Ok(Some(d)) => {
                            owned = d;
                            // A vlen string stops at its first NUL like strlen.
                            let n = owned.iter().position(|&c| c == 0).unwrap_or(owned.len());
                            Some(&owned[..n])
                        }
                        _ => None,
                    }
                } else {
                    Some(b)
                };
                match data {
                    None => s.push_str("NULL"),
                    Some(d) => self.sprint_string(s, info, d, t.pad()),
                }
            }
            Datatype::Integer(t) => {
                let mut v = decode_int(t, b).unwrap_or(0);
                let native = dt.native_type().map(|n| n.size()).unwrap_or(8);
                if let Some((off, mask)) = self.packed {
                    let bits = native as u32 * 8;
                    v = if off >= bits {
                        0
                    } else {
                        let m = ((v >> off) as u64 & mask) as i128;
                        // The masked bits are stored back into the native type and printed
                        // with its signedness.
                        let shift = 128 - bits;
                        if t.is_signed() {
                            (m << shift) >> shift
                        } else {
                            m
                        }
                    };
                }
                if native == 1 && info.ascii {
                    print_char(s, info, v as u8);
                } else {
                    s.push_str(&v.to_string());
                }
            }
            Datatype::Compound(c) => {
                s.push_str(info.cmpd_pre);
                ctx.indent_level += 1;
                for (j, m) in c.members().iter().enumerate() {
                    s.push_str(if j > 0 { info.cmpd_sep } else { info.cmpd_end });
                    if info.arr_linebreak {
                        s.push_str(&Out::indent_str(info, ctx));
                    }
                    if info.cmpd_name {
                        s.push_str(m.name());
                        s.push('=');
                    }
                    let size = m.datatype().size();
                    let mb = b.get(m.offset()..m.offset() + size).unwrap_or(&[]);
                    self.sprint(s, info, ctx, m.datatype(), mb);
                }
                ctx.indent_level -= 1;
                if info.arr_linebreak {
                    s.push_str(info.cmpd_end);
                    s.push_str(&Out::indent_str(info, ctx));
                }
                s.push_str(info.cmpd_suf);
            }
            Datatype::Enum(e) => {
                let name = e.members().iter().find(|m| m.raw_value() == b);
                match name {
                    Some(m) => s.push_str(&escape_name(m.name())),
                    None => {
                        let v = decode_int(e.base(), b).unwrap_or(0);
                        let native = dt.native_type().map(|n| n.size()).unwrap_or(b.len());
                        hex_enum(s, &native_int_bytes(v, native));
                    }
                }
            }
            Datatype::Reference(r) => {
                if b.iter().all(|&x| x == 0) {
                    s.push_str("NULL");
                    return;
                }
                match r.kind() {
                    ReferenceKind::DatasetRegion => {
                        // `H5Rdereference2` of the region's dataset.
                        if let Ok(Some(_)) = self.file.dereference(b) {
                            self.ids.open(ObjKind::Dataset);
                        }
                        s.push_str("DATASET");
                        self.sprint_reference(s, b);
                    }
                    ReferenceKind::Revised
                    | ReferenceKind::Object2
                    | ReferenceKind::DatasetRegion2
                    | ReferenceKind::Attribute => {
                        let r = self.file.reference_info(dt, b).ok().flatten();
                        s.push_str(&self.ref_label(r.as_ref()));
                    }
                    ReferenceKind::Object => {
                        let target = self.file.dereference(b).ok().flatten();
                        let addr = match target {
                            Some(super::model::RefTarget::Object(a)) => a,
                            Some(super::model::RefTarget::Region { dataset, .. }) => dataset,
                            None => 0,
                        };
                        let kind = self.file.object_info(addr).map(|i| i.kind).ok();
                        // `H5Rdereference2`, then `lookup_ref_path` for the name.
                        if let Some(k) = kind {
                            self.ids.open(k);
                        }
                        self.ids.ref_path_lookup();
                        s.push_str(match kind {
                            Some(ObjKind::Group) => "GROUP",
                            Some(ObjKind::Dataset) => "DATASET",
                            Some(ObjKind::NamedDatatype) => "DATATYPE",
                            None => "-1-",
                        });
                        if info.obj_fileno {
                            s.push_str(&format!("-1:{}", addr));
                        } else {
                            s.push_str(&format!(" {}", addr));
                        }
                        self.sprint_reference(s, b);
                    }
                }
            }
            Datatype::Array(a) => {
                let base = a.base();
                let size = base.size();
                let n = a.len() as usize;
                let last = a.dims().last().copied().unwrap_or(1).max(1) as usize;
                s.push_str(info.arr_pre);
                ctx.indent_level += 1;
                for i in 0..n {
                    if i > 0 {
                        s.push_str(info.arr_sep.unwrap_or(",\u{1}"));
                    }
                    if info.arr_linebreak && i > 0 && i % last == 0 {
                        s.push('\n');
                        s.push_str(&Out::indent_str(info, ctx));
                    } else if i > 0 && info.arr_sep.is_some() {
                        if self.next_arr.get() {
                            self.next_arr.set(false);
                            s.push_str("\n ");
                            s.push_str(&Out::indent_str(info, ctx));
                        } else {
                            s.push(' ');
                        }
                    }
                    self.next_arr.set(false);
                    let eb = b.get(i * size..(i + 1) * size).unwrap_or(&[]);
                    self.sprint(s, info, ctx, base, eb);
                }
                ctx.indent_level -= 1;
                s.push_str(info.arr_suf);
                self.next_arr.set(true);
            }
            Datatype::VarLen(v) => {
                let base = v.base();
                let size = base.size();
                s.push_str(info.vlen_pre);
                if let Ok(Some(data)) = self.file.vlen_data(b) {
                    let n = data.len().checked_div(size).unwrap_or(0);
                    for i in 0..n {
                        if i > 0 {
                            s.push_str(info.vlen_sep);
                        }
                        ctx.indent_level += 1;
                        self.sprint(s, info, ctx, base, &data[i * size..(i + 1) * size]);
                        ctx.indent_level -= 1;
                    }
                }
                s.push_str(info.vlen_suf);
            }
            Datatype::Bitfield(t) => {
                let mut v = b.to_vec();
                if t.order() == ByteOrder::BigEndian {
                    v.reverse();
                }
                hex_bytes(s, &v);
            }
            Datatype::Time(_) | Datatype::Opaque(_) => hex_bytes(s, b),
            Datatype::Complex(c) => {
                let half = c.base().size();
                let re = decode_float(c.base(), b.get(..half).unwrap_or(&[])).unwrap_or(0.0);
                let im = decode_float(c.base(), b.get(half..).unwrap_or(&[])).unwrap_or(0.0);
                let f = if half <= 4 {
                    &info.fmt_float
                } else {
                    &info.fmt_double
                };
                let (re, im) = if half <= 4 {
                    (re as f32 as f64, im as f32 as f64)
                } else {
                    (re, im)
                };
                s.push_str(&printf_float(f, re));
                if im < 0.0 || (im == 0.0 && im.is_sign_negative()) {
                    s.push('-');
                    s.push_str(&printf_float(f, -im));
                } else {
                    s.push('+');
                    s.push_str(&printf_float(f, im));
                }
                s.push('i');
            }
        }
    }

    fn sprint_string(&self, s: &mut String, info: &Format, d: &[u8], pad: StrPad) {
        let size = d.len();
        let mut quote: Option<char> = None;
        let mut i = 0;
        while i < size && (d[i] != 0 || pad != StrPad::NullTerm) {
            let mut j = 1;
            if info.str_repeat > 0 {
                while i + j < size && d[i] == d[i + j] {
                    j += 1;
                }
            }
            if info.str_repeat > 0 && j > info.str_repeat {
                if let Some(q) = quote {
                    s.push(q);
                }
                quote = Some('\'');
                if i > 0 {
                    s.push(' ');
                }
                s.push('\'');
            } else if quote.is_none() {
                quote = Some('"');
                if i > 0 {
                    s.push(' ');
                }
                s.push('"');
            }
            print_char(s, info, d[i]);
            if info.str_repeat > 0 && j > info.str_repeat {
                s.push_str(&format!(
                    "{} repeats {} times",
                    quote.unwrap_or('\''),
                    j - 1
                ));
                quote = None;
                i += j - 1;
            }
            i += 1;
        }
        if let Some(q) = quote {
            s.push(q);
        }
        if i == 0 {
            s.push_str("\"\"");
        }
    }

    /// How HDF5 2.x names a non-null reference (`h5tools_str_sprint` of an `H5R_ref_t`): the
    /// kind of what it points at (`GROUP`, `DATASET`, `DATATYPE` or `UNKNOWN` for objects,
    /// `DATASET` for regions, `ATTRIBUTE`), then in quotes the file name, the object's path
    /// and for attributes `/NAME`. A part that cannot be found is left out.
    pub fn ref_label(&self, r: Option<&RefInfo>) -> String {
        // A reference that cannot be decoded has no type (`H5R_BADTYPE`): nothing.
        let Some(r) = r else {
            return String::new();
        };
        let ext = r.external.as_deref().map(|n| (n, self.refs.external(n)));
        let (fname, kind, path) = match &ext {
            None => (
                self.refs.file_name.as_str(),
                self.file.object_kind(r.object).ok(),
                self.paths.get(&r.object).map(|(p, _)| p.clone()),
            ),
            Some((n, Some(e))) => (
                *n,
                e.file.object_kind(r.object).ok(),
                e.paths.get(&r.object).map(|(p, _)| p.clone()),
            ),
            Some((n, None)) => (*n, None, None),
        };
        let word = match r.kind {
            RefKind::Object => match kind {
                Some(ObjKind::Group) => "GROUP",
                Some(ObjKind::Dataset) => "DATASET",
                Some(ObjKind::NamedDatatype) => "DATATYPE",
                None => "UNKNOWN",
            },
            RefKind::Region => "DATASET",
            RefKind::Attribute => "ATTRIBUTE",
        };
        let mut out = format!("{} \"{}{}", word, fname, path.unwrap_or_default());
        if let (RefKind::Attribute, Some(a)) = (r.kind, &r.attr_name) {
            out.push('/');
            out.push_str(a);
        }
        out.push('"');
        out
    }

    /// ` "path"` of a referenced object (`h5tools_str_sprint_reference`).
    fn sprint_reference(&self, s: &mut String, b: &[u8]) {
        s.push_str(" \"");
        if let Ok(Some(t)) = self.file.dereference(b) {
            let id = match t {
                super::model::RefTarget::Object(a) => a,
                super::model::RefTarget::Region { dataset, .. } => dataset,
            };
            if let Some((p, _)) = self.paths.get(&id) {
                s.push_str(p);
            }
        }
        s.push('"');
    }
}

fn hex_enum(s: &mut String, bytes: &[u8]) {
    if bytes.len() == 1 {
        s.push_str(&format!("0x{:02x}", bytes[0]));
    } else {
        for (i, b) in bytes.iter().enumerate() {
            if i > 0 {
                s.push(':');
            }
            s.push_str(&format!("{:02x}", b));
        }
    }
}

/// Escape "funny" characters of an enum name (`h5tools_escape`).
pub fn escape_name(name: &str) -> String {
    // `h5tools_escape`, byte by byte (bytes that are not printable ASCII in octal).
    let mut out = String::new();
    for &b in name.as_bytes() {
        match b {
            b'\'' => out.push_str("\\'"),
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'?' => out.push_str("\\?"),
            7 => out.push_str("\\a"),
            8 => out.push_str("\\b"),
            12 => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            11 => out.push_str("\\v"),
            0x20..=0x7e => out.push(b as char),
            c => out.push_str(&format!("\\{:03o}", c)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_g_matches_c() {
        let cases = [
            (0.1f32 as f64, "0.1"),
            (1.0, "1"),
            (0.333333333, "0.333333"),
            (1e-5, "1e-05"),
            (123456789.0, "1.23457e+08"),
            (100000.0, "100000"),
            (1e6, "1e+06"),
            (-2.5, "-2.5"),
            (0.0001, "0.0001"),
        ];
        for (v, want) in cases {
            assert_eq!(printf_float("%g", v), want, "{v}");
        }
        assert_eq!(printf_float("%.3f", 1.23456), "1.235");
        assert_eq!(printf_float("%10.2e", 12345.0), "  1.23e+04");
        assert_eq!(printf_float("%-6.1f|", 1.0), "1.0   |");
        assert_eq!(printf_float("%g", f64::INFINITY), "inf");
    }

    #[test]
    fn float_layouts_decode() {
        let f = h5::types::predefined::IEEE_F32BE;
        assert_eq!(decode_float(&f, &1.5f32.to_be_bytes()), Some(1.5));
        let d = h5::types::predefined::IEEE_F64LE;
        assert_eq!(decode_float(&d, &(-0.1f64).to_le_bytes()), Some(-0.1));
        let h = h5::types::predefined::IEEE_F16LE;
        assert_eq!(decode_float(&h, &[0x00, 0x3c]), Some(1.0));
    }
}
