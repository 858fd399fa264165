//! `h5 ls [OPTIONS] FILE[/OBJECT]...`: list the objects of files the way h5ls 1.10.8 does,
//! byte for byte: its options (parsed by its own hand-written rules, which getopt-style
//! parsers do not reproduce), its listing, verbose details, data and exit statuses.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Write;
use std::rc::Rc;

use h5::types::{ByteOrder, CharSet, Datatype, Norm, Pad, ReferenceKind, StrPad};

use crate::dump::model::{
    DatasetInfo, DumpFile, IndexOrder, Layout, Link, LinkTarget, ObjId, ObjKind, RefTarget, Region,
    Space,
};
use crate::dump::render::{count_ncols, Ctx, Format, StripMine, OPTIONAL_LINE_BREAK};
use crate::dump::value::{memory_size, RefEnv, Values};
use crate::dump::Opener;

/// h5ls 1.10.8's usage text (printed on standard output by `-h` and on a bad command line).
pub const USAGE: &str = include_str!("ls/usage.txt");

/// The command-line switches (h5ls's globals).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `-v`: verbosity.
    pub verbose: u32,
    /// `-w N`: output width.
    pub width: usize,
    /// `-w 0`: no line wrapping of data.
    pub no_line_wrap: bool,
    /// `-a`: raw data addresses.
    pub address: bool,
    /// `-d`: dataset values.
    pub data: bool,
    /// `-l`: label compound members.
    pub label: bool,
    /// `-s`: 1-byte integers as ASCII.
    pub string: bool,
    /// `-f`: full path names.
    pub fullname: bool,
    /// `-r`: recursive listing.
    pub recursive: bool,
    /// `--follow-symlinks`.
    pub follow_symlinks: bool,
    /// `--no-dangling-links`.
    pub no_dangling: bool,
    /// `-E`: follow external links.
    pub follow_elinks: bool,
    /// `-g`: show a group, not its contents.
    pub group_literal: bool,
    /// `-x`: raw data in hexadecimal.
    pub hexdump: bool,
    /// `-S`: machine-readable output.
    pub simple: bool,
    /// `--vfd=DRIVER`.
    pub vfd: Option<String>,
}

/// What parsing the command line decided.
enum Parsed {
    /// List these arguments with these options.
    Run(Options, Vec<String>),
    /// Print this (stdout, stderr) and exit with this status.
    Exit(String, String, i32),
}

/// `strtol(s, &rest, 0)`: the value and whether the whole string was a number.
fn strtol(s: &str) -> (i64, bool) {
    let t = s.trim_start();
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (radix, digits) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (16, h)
    } else if t.len() > 1 && t.starts_with('0') {
        (8, &t[1..])
    } else {
        (10, t)
    };
    let end = digits
        .char_indices()
        .find(|(_, c)| !c.is_digit(radix))
        .map(|(i, _)| i)
        .unwrap_or(digits.len());
    let v =
        i64::from_str_radix(&digits[..end], radix).unwrap_or(if end == 0 { 0 } else { i64::MAX });
    (
        if neg { -v } else { v },
        end == digits.len() && (end > 0 || radix == 8),
    )
}

/// The default width: `COLUMNS` if it starts with a digit, else 80.
fn default_width() -> usize {
    match std::env::var("COLUMNS") {
        Ok(s) if s.bytes().next().is_some_and(|b| b.is_ascii_digit()) => {
            strtol(&s).0.max(1) as usize
        }
        _ => 80,
    }
}

fn parse(args: &[String]) -> Parsed {
    let usage_exit = |code| Parsed::Exit(USAGE.to_string(), String::new(), code);
    let mut o = Options {
        width: default_width(),
        ..Options::default()
    };
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') {
        let a = args[i].as_str();
        match a {
            "--" => {
                i += 1;
                break;
            }
            "--help" => return usage_exit(0),
            "--address" => o.address = true,
            "--data" => o.data = true,
            "--enable-error-stack" | "--errors" => {}
            "--follow-symlinks" => o.follow_symlinks = true,
            "--no-dangling-links" => o.no_dangling = true,
            "--external" => o.follow_elinks = true,
            "--full" => o.fullname = true,
            "--group" => o.group_literal = true,
            "--label" => o.label = true,
            "--recursive" => {
                o.recursive = true;
                o.fullname = true;
            }
            "--simple" => o.simple = true,
            "--string" => o.string = true,
            "--verbose" => o.verbose += 1,
            "--version" => return Parsed::Exit("h5ls: Version 1.10.8\n".into(), String::new(), 0),
            "--hexdump" => o.hexdump = true,
            "--width" => {
                let Some(s) = args.get(i + 1) else {
                    return usage_exit(1);
                };
                i += 1;
                let (w, whole) = strtol(s);
                if w <= 0 || !whole {
                    return usage_exit(1);
                }
                o.width = w as usize;
            }
            _ if a.starts_with("--vfd=") => o.vfd = Some(a[6..].to_string()),
            _ if a.starts_with("--s3-cred=") || a.starts_with("--hdfs-attrs=") => {}
            _ if a.starts_with("--width=") || a.starts_with("-w") => {
                let s = if let Some(v) = a.strip_prefix("--width=") {
                    v.to_string()
                } else if a.len() > 2 {
                    a[2..].to_string()
                } else if let Some(s) = args.get(i + 1) {
                    i += 1;
                    s.clone()
                } else {
                    return usage_exit(1);
                };
                let (w, whole) = strtol(&s);
                if w == 0 {
                    o.no_line_wrap = true;
                } else if w < 0 || !whole {
                    return usage_exit(1);
                }
                o.width = w.max(0) as usize;
            }
            _ if !a.starts_with("--") => {
                for c in a[1..].chars() {
                    match c {
                        '?' | 'h' => return usage_exit(0),
                        'a' => o.address = true,
                        'd' => o.data = true,
                        'e' => {}
                        'E' => o.follow_elinks = true,
                        'f' => o.fullname = true,
                        'g' => o.group_literal = true,
                        'l' => o.label = true,
                        'r' => {
                            o.recursive = true;
                            o.fullname = true;
                        }
                        'S' => o.simple = true,
                        's' => o.string = true,
                        'v' => o.verbose += 1,
                        'V' => {
                            return Parsed::Exit("h5ls: Version 1.10.8\n".into(), String::new(), 0)
                        }
                        'x' => o.hexdump = true,
                        _ => return usage_exit(1),
                    }
                }
            }
            _ => return Parsed::Exit(USAGE.to_string(), format!("Unknown argument: {}\n", a), 1),
        }
        i += 1;
    }
    if i >= args.len() {
        return usage_exit(1);
    }
    if o.recursive && o.group_literal {
        return Parsed::Exit(
            USAGE.to_string(),
            "Error: 'recursive' option not compatible with 'group info' option!\n\n".into(),
            1,
        );
    }
    if o.no_dangling && !o.follow_symlinks {
        return Parsed::Exit(
            USAGE.to_string(),
            "Error: --no-dangling-links must be used along with --follow-symlinks option!\n\n"
                .into(),
            1,
        );
    }
    Parsed::Run(o, args[i..].to_vec())
}

/// A name as h5ls prints it (`print_string`): quotes, backslashes and control characters
/// escaped, spaces too if `escape_spaces`, other bytes that are not printable ASCII in octal.
fn escape(name: &str, escape_spaces: bool) -> String {
    let mut s = String::new();
    for &b in name.as_bytes() {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            8 => s.push_str("\\b"),
            12 => s.push_str("\\f"),
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            b'\t' => s.push_str("\\t"),
            b' ' if escape_spaces => s.push_str("\\ "),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\{:03o}", b)),
        }
    }
    s
}

/// A modification time as h5ls prints it (`strftime("%Y-%m-%d %H:%M:%S %Z")`), in UTC: h5ls
/// uses the local time zone except with `-S`; this prints UTC either way.
fn utc_text(t: u64) -> String {
    let days = (t / 86400) as i64;
    let secs = t % 86400;
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
        y,
        m,
        d,
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// The `{dims}` text after a dataset's name (`dataset_list1`).
fn dims_text(s: &Space, verbose: bool) -> String {
    let mut t = String::from(" {");
    match s {
        Space::Null => t.push_str("NULL"),
        Space::Scalar => t.push_str("SCALAR"),
        Space::Simple { dims, maxdims } => {
            for (i, &d) in dims.iter().enumerate() {
                if i > 0 {
                    t.push_str(", ");
                }
                t.push_str(&d.to_string());
                let m = maxdims.get(i).copied().unwrap_or(d);
                if m == u64::MAX {
                    t.push_str("/Inf");
                } else if m != d || verbose {
                    t.push_str(&format!("/{}", m));
                }
            }
        }
    }
    t.push('}');
    t
}

fn order_text(o: ByteOrder) -> &'static str {
    match o {
        ByteOrder::LittleEndian => " little-endian",
        ByteOrder::BigEndian => " big-endian",
        ByteOrder::Vax => " mixed-endian",
    }
}

fn pad_text(p: Pad) -> &'static str {
    match p {
        Pad::Zero => "zero",
        Pad::One => "one",
        Pad::Background => "bkg",
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The name of a native C type equal to `dt` (`print_native_type`), on this (little-endian
/// LP64) host.
fn native_name(dt: &Datatype) -> Option<&'static str> {
    match dt {
        Datatype::Integer(t) => {
            let a = t.atomic();
            if a.order() != ByteOrder::NATIVE
                || a.precision() != 8 * a.size()
                || a.offset() != 0
                || a.lsb_pad() != Pad::Zero
                || a.msb_pad() != Pad::Zero
            {
                return None;
            }
            Some(match (a.size(), t.is_signed()) {
                (1, true) => "native signed char",
                (1, false) => "native unsigned char",
                (2, true) => "native short",
                (2, false) => "native unsigned short",
                (4, true) => "native int",
                (4, false) => "native unsigned int",
                (8, true) => "native long",
                (8, false) => "native unsigned long",
                _ => return None,
            })
        }
        Datatype::Float(t) => {
            let native = match t.size() {
                4 => h5::types::FloatType::ieee(4, ByteOrder::NATIVE, 8, 23),
                8 => h5::types::FloatType::ieee(8, ByteOrder::NATIVE, 11, 52),
                _ => return None,
            };
            (*t == native).then_some(if t.size() == 4 {
                "native float"
            } else {
                "native double"
            })
        }
        Datatype::Bitfield(t) => {
            let a = t.atomic();
            if a.order() != ByteOrder::NATIVE
                || a.precision() != 8 * a.size()
                || a.offset() != 0
                || a.lsb_pad() != Pad::Zero
                || a.msb_pad() != Pad::Zero
            {
                return None;
            }
            Some(match a.size() {
                1 => "native 8-bit field",
                2 => "native 16-bit field",
                4 => "native 32-bit field",
                8 => "native 64-bit field",
                _ => return None,
            })
        }
        _ => None,
    }
}

/// Precision and padding lines (`print_precision`).
fn precision_text(s: &mut String, a: &h5::types::Atomic, ind: usize) {
    let (size, prec, off) = (a.size(), a.precision(), a.offset());
    if 8 * size == prec {
        return;
    }
    s.push_str(&format!(
        "\n{:ind$}({} bit{} of precision beginning at bit {})",
        "",
        prec,
        plural(prec as u64),
        off
    ));
    let lsb = (off > 0).then(|| pad_text(a.lsb_pad()));
    let msb = (off + prec < 8 * size).then(|| pad_text(a.msb_pad()));
    if lsb.is_some() || msb.is_some() {
        s.push_str(&format!("\n{:ind$}(", ""));
        if let Some(p) = lsb {
            s.push_str(&format!("{} {} bit{} at bit 0", off, p, plural(off as u64)));
        }
        if lsb.is_some() && msb.is_some() {
            s.push_str(", ");
        }
        if let Some(p) = msb {
            let n = 8 * size - (off + prec);
            s.push_str(&format!(
                "{} {} bit{} at bit {}",
                n,
                p,
                plural(n as u64),
                8 * size - n
            ));
        }
        s.push(')');
    }
}

/// A datatype as h5ls describes it (`print_type`); `ind` is the column the first line starts
/// at, `committed` the address of the named datatype it is, `simple` the `-S` switch.
fn type_text(s: &mut String, dt: &Datatype, ind: usize, committed: Option<ObjId>, simple: bool) {
    if let Some(addr) = committed {
        s.push_str(&format!("shared-1:{} ", addr));
    }
    if !simple {
        if let Some(n) = native_name(dt) {
            s.push_str(n);
            return;
        }
    }
    match dt {
        Datatype::Integer(t) => {
            let order = if t.size() > 1 {
                order_text(t.order())
            } else {
                ""
            };
            let sign = if t.is_signed() { "" } else { " unsigned" };
            s.push_str(&format!("{}-bit{}{} integer", 8 * t.size(), order, sign));
            precision_text(s, t.atomic(), ind);
        }
        Datatype::Float(t) => {
            let ieee = |size, order, e, m| *t == h5::types::FloatType::ieee(size, order, e, m);
            let name = [
                (
                    4,
                    ByteOrder::BigEndian,
                    8,
                    23,
                    "IEEE 32-bit big-endian float",
                ),
                (
                    4,
                    ByteOrder::LittleEndian,
                    8,
                    23,
                    "IEEE 32-bit little-endian float",
                ),
                (
                    8,
                    ByteOrder::BigEndian,
                    11,
                    52,
                    "IEEE 64-bit big-endian float",
                ),
                (
                    8,
                    ByteOrder::LittleEndian,
                    11,
                    52,
                    "IEEE 64-bit little-endian float",
                ),
            ]
            .into_iter()
            .find(|&(size, o, e, m, _)| ieee(size, o, e, m))
            .map(|x| x.4);
            if let Some(n) = name {
                s.push_str(n);
                return;
            }
            let order = if t.size() > 1 {
                order_text(t.order())
            } else {
                ""
            };
            s.push_str(&format!("{}-bit{} floating-point", 8 * t.size(), order));
            precision_text(s, t.atomic(), ind);
            let norm = match t.norm() {
                Norm::Implied => ", msb implied",
                Norm::MsbSet => ", msb always set",
                Norm::None => ", no normalization",
            };
            let (ms, mp) = (t.mant_size(), t.mant_pos());
            s.push_str(&format!(
                "\n{:ind$}(significant for {} bit{} at bit {}{})",
                "",
                ms,
                plural(ms as u64),
                mp,
                norm
            ));
            let (es, ep) = (t.exp_size(), t.exp_pos());
            s.push_str(&format!(
                "\n{:ind$}(exponent for {} bit{} at bit {}, bias is 0x{:x})",
                "",
                es,
                plural(es as u64),
                ep,
                t.exp_bias()
            ));
            s.push_str(&format!("\n{:ind$}(sign bit at {})", "", t.sign_pos()));
            if 1 + es + ms < t.precision() {
                s.push_str(&format!(
                    "\n{:ind$}(internal padding bits are {})",
                    "",
                    pad_text(t.inpad())
                ));
            }
        }
        Datatype::Compound(c) => {
            s.push_str("struct {");
            for m in c.members() {
                let name = escape(m.name(), false);
                s.push_str(&format!("\n{:w$}\"{}", "", name, w = ind + 4));
                let n = count_ncols(&name);
                s.push_str(&format!(
                    "\"{:w$} +{:<4} ",
                    "",
                    m.offset(),
                    w = 16usize.saturating_sub(n)
                ));
                type_text(s, m.datatype(), ind + 4, None, simple);
            }
            let size = dt.size();
            s.push_str(&format!(
                "\n{:ind$}}} {} byte{}",
                "",
                size,
                plural(size as u64)
            ));
        }
        Datatype::Enum(e) => {
            s.push_str("enum ");
            type_text(s, &Datatype::Integer(*e.base()), ind + 4, None, simple);
            s.push_str(" {");
            if e.members().is_empty() {
                s.push_str(&format!("\n{:w$} <empty>", "", w = ind + 4));
            }
            for m in e.members() {
                let name = escape(m.name(), true);
                s.push_str(&format!(
                    "\n{:w$}{}{:p$} = ",
                    "",
                    name,
                    "",
                    w = ind + 4,
                    p = 16usize.saturating_sub(count_ncols(&name))
                ));
                let v = h5::types::compose::decode_int(e.base(), m.raw_value()).unwrap_or(0);
                if e.base().is_signed() {
                    s.push_str(&(v as i64).to_string());
                } else {
                    s.push_str(&(v as u64).to_string());
                }
            }
            s.push_str(&format!("\n{:ind$}}}", ""));
        }
        Datatype::String(t) => {
            let pad = match t.pad() {
                StrPad::NullTerm => "null-terminated",
                StrPad::NullPad => "null-padded",
                StrPad::SpacePad => "space-padded",
            };
            let cset = match t.cset() {
                CharSet::Ascii => "ASCII",
                CharSet::Utf8 => "UTF-8",
            };
            if t.is_variable() {
                s.push_str("variable-length");
            } else {
                s.push_str(&format!("{}-byte", dt.size()));
            }
            s.push_str(&format!(" {} {} string", pad, cset));
        }
        Datatype::Reference(r) => match r.kind() {
            ReferenceKind::Object => s.push_str("object reference"),
            ReferenceKind::DatasetRegion => s.push_str("dataset region reference"),
            _ => s.push_str(&format!("{}-byte unknown reference", r.size())),
        },
        Datatype::VarLen(v) => {
            s.push_str(&format!("variable length of\n{:w$}", "", w = ind + 4));
            type_text(s, v.base(), ind + 4, None, simple);
        }
        Datatype::Array(a) => {
            for (i, d) in a.dims().iter().enumerate() {
                s.push_str(if i > 0 { "," } else { "[" });
                s.push_str(&d.to_string());
            }
            if a.dims().is_empty() {
                s.push_str(" [SCALAR]\n");
            } else {
                s.push(']');
            }
            s.push(' ');
            type_text(s, a.base(), ind + 4, None, simple);
        }
        Datatype::Opaque(t) => {
            s.push_str(&format!("{}-byte opaque type", dt.size()));
            s.push_str(&format!(
                "\n{:ind$}(tag = \"{}\")",
                "",
                escape(t.tag(), false)
            ));
        }
        Datatype::Bitfield(t) => {
            let order = if t.size() > 1 {
                order_text(t.order())
            } else {
                ""
            };
            s.push_str(&format!("{}-bit{} bitfield", 8 * t.size(), order));
            precision_text(s, t.atomic(), ind);
        }
        Datatype::Time(_) => s.push_str(&format!("{}-byte class-2 unknown", dt.size())),
        Datatype::Complex(_) => s.push_str(&format!("{}-byte class-11 unknown", dt.size())),
    }
}

/// The width h5ls wraps a region's blocks or points at (not `-w`'s: measured against h5ls
/// 1.10.8 at widths 40 to 120).
const REGION_NCOLS: usize = 77;

/// Whether h5ls prints the values of `dt` reference by reference, with what they point at
/// (object and dataset region references of the 1.8 format).
fn is_old_reference(dt: &Datatype) -> bool {
    matches!(dt, Datatype::Reference(r)
        if matches!(r.kind(), ReferenceKind::DatasetRegion | ReferenceKind::Object))
}

/// Reads the elements of a hyperslab (start, count) in the file datatype.
type ReadFn<'a> = dyn Fn(&[u64], &[u64]) -> Result<Vec<u8>, String> + 'a;

/// The line prefixes of one data listing (`line_1st`, `line_pre`, `line_cont`).
struct Prefixes {
    first: String,
    pre: String,
    cont: String,
}

/// Line wrapping of data (`h5tools_render_element` with h5ls's prefixes).
struct Wrap<'a> {
    out: &'a mut String,
    ctx: Ctx,
    p: Prefixes,
    ncols: usize,
}

impl Wrap<'_> {
    fn prefix(&mut self, info: &Format, elmtno: u64, secnum: usize) {
        if !self.ctx.need_prefix {
            return;
        }
        if self.ctx.cur_column > 0 {
            self.out.push_str(info.line_suf);
            self.out.push('\n');
        }
        let p = if elmtno == 0 && secnum == 0 {
            &self.p.first
        } else if secnum > 0 {
            &self.p.cont
        } else {
            &self.p.pre
        };
        self.out.push_str(p);
        self.ctx.cur_column = p.len();
        self.ctx.prev_prefix_len = p.len();
        self.ctx.cur_elmt = 0;
        self.ctx.need_prefix = false;
    }

    fn element(&mut self, info: &Format, s: &str, elmtno: u64, local: u64) {
        let ncols = self.ncols;
        let suf2 = info.elmt_suf2.len();
        let lsuf = info.line_suf.len();
        let n = count_ncols(s);
        let ctx = &mut self.ctx;
        if info.line_multi_new
            && ctx.cur_column + n + suf2 + lsuf > ncols
            && (ctx.prev_multiline || ctx.prev_prefix_len + n + suf2 + lsuf <= ncols)
        {
            ctx.need_prefix = true;
        }
        if info.line_multi_new && ctx.prev_multiline && ctx.cur_column + n + suf2 + lsuf > ncols {
            ctx.need_prefix = true;
        }
        if info.line_per_line > 0 && ctx.cur_elmt >= info.line_per_line {
            ctx.need_prefix = true;
        }
        let mut multiline = 0;
        for (secnum, section) in s
            .split(OPTIONAL_LINE_BREAK)
            .filter(|p| !p.is_empty())
            .enumerate()
        {
            if self.ctx.cur_column + section.len() + suf2 + lsuf > ncols {
                self.ctx.need_prefix = true;
            }
            if self.ctx.need_prefix {
                if secnum > 0 {
                    multiline += 1;
                }
                self.prefix(info, elmtno, secnum);
            } else if (local > 0 || self.ctx.continuation > 0) && secnum == 0 {
                self.out.push_str(info.elmt_suf2);
                self.ctx.cur_column += suf2;
            }
            self.out.push_str(section);
            self.ctx.cur_column += section.len();
        }
        self.ctx.prev_multiline = multiline > 0;
        self.ctx.cur_elmt += 1;
    }
}

/// Follows links from a file's root across files, caching the files external links open.
struct Files<'a> {
    open: &'a Opener<'a>,
    main: Rc<dyn DumpFile>,
    main_key: String,
    cache: RefCell<HashMap<String, Option<Rc<dyn DumpFile>>>>,
}

/// Where a path leads: the file, its identity and the object.
#[derive(Clone)]
struct Place {
    file: Rc<dyn DumpFile>,
    key: String,
    id: ObjId,
    external: bool,
}

/// Why a path does not resolve.
enum Miss {
    /// A component (or a link's target) does not exist.
    Dangling,
    /// A file could not be opened or read, or too many links were followed.
    Error,
}

impl Files<'_> {
    fn external(&self, from: &str, name: &str) -> Option<(Rc<dyn DumpFile>, String)> {
        let cache_key = format!("{}\0{}", from, name);
        if let Some(f) = self.cache.borrow().get(&cache_key) {
            return f.clone().map(|f| (f, name.to_string()));
        }
        let opened = crate::dump::ddl::open_external(self.open, from, name);
        let (f, key) = match opened {
            Some((f, key)) => (Some(Rc::<dyn DumpFile>::from(f)), key),
            None => (None, String::new()),
        };
        self.cache.borrow_mut().insert(cache_key, f.clone());
        f.map(|f| (f, key))
    }

    fn root(&self) -> Place {
        Place {
            file: Rc::clone(&self.main),
            key: self.main_key.clone(),
            id: self.main.root(),
            external: false,
        }
    }

    /// Resolve `path` from `at`'s file root, following every link.
    fn resolve_in(&self, at: &Place, path: &str, hops: &mut usize) -> Result<Place, Miss> {
        let comps: Vec<&str> = path
            .split('/')
            .filter(|c| !c.is_empty() && *c != ".")
            .collect();
        let mut cur = Place {
            id: at.file.root(),
            ..at.clone()
        };
        for (i, comp) in comps.iter().enumerate() {
            let links = cur
                .file
                .links(cur.id, IndexOrder::Name)
                .map_err(|_| Miss::Error)?;
            let Some(l) = links.into_iter().find(|l| l.name == *comp) else {
                return Err(Miss::Dangling);
            };
            cur = match l.target {
                LinkTarget::Hard(id) => Place { id, ..cur },
                LinkTarget::Soft(t) => {
                    *hops += 1;
                    if *hops > 16 {
                        return Err(Miss::Error);
                    }
                    let full = if t.starts_with('/') {
                        t
                    } else {
                        format!("/{}/{}", comps[..i].join("/"), t)
                    };
                    self.resolve_in(&cur, &full, hops)?
                }
                LinkTarget::External { file, path } => {
                    *hops += 1;
                    if *hops > 16 {
                        return Err(Miss::Error);
                    }
                    let (f, key) = self.external(&cur.key, &file).ok_or(Miss::Error)?;
                    let start = Place {
                        id: f.root(),
                        file: f,
                        key,
                        external: true,
                    };
                    self.resolve_in(&start, &path, hops)?
                }
                LinkTarget::UserDefined(_) => return Err(Miss::Error),
            };
        }
        Ok(cur)
    }

    fn resolve(&self, path: &str) -> Result<Place, Miss> {
        self.resolve_in(&self.root(), path, &mut 0)
    }

    /// The link `path` names (`H5Lget_info`).
    fn link(&self, path: &str) -> Option<Link> {
        let trimmed = path.trim_end_matches('/');
        let (parent, name) = match trimmed.rfind('/') {
            Some(i) => (&trimmed[..i], &trimmed[i + 1..]),
            None => ("", trimmed),
        };
        let p = self.resolve(parent).ok()?;
        p.file
            .links(p.id, IndexOrder::Name)
            .ok()?
            .into_iter()
            .find(|l| l.name == name)
    }
}

/// The kind of a visited symbolic link and its value (`symlink_trav_t`).
#[derive(PartialEq, Eq)]
enum Visited {
    Soft(String),
    External(String, String),
}

/// One file argument's listing state (h5ls's `iter_t` and globals).
struct Lister<'a> {
    o: &'a Options,
    sink: &'a mut dyn Write,
    files: Files<'a>,
    out: String,
    fname: String,
    show_file_name: bool,
    base_len: usize,
    name_start: usize,
    symlink_target: bool,
    grp_literal: bool,
    display_root: bool,
    visited: Vec<Visited>,
    dangling: bool,
    /// How many times the library opened a file through an external link (the file number
    /// objects in such files are shown with).
    ext_opens: u64,
}

impl Lister<'_> {
    fn flush(&mut self) {
        if self.out.len() > 1 << 16 {
            self.flush_all();
        }
    }

    fn flush_all(&mut self) {
        let _ = self.sink.write_all(self.out.as_bytes());
        self.out.clear();
    }

    /// The object's name and padding (`print_obj_name`).
    fn obj_name(&mut self, oname: &str, s: &str) {
        let rest = oname.get(self.name_start..).unwrap_or("");
        let name = if self.show_file_name {
            format!("{}/{}", self.fname, rest)
        } else {
            rest.to_string()
        };
        let shown = if self.o.fullname {
            name.as_str()
        } else {
            match name.rfind('/') {
                Some(i) => &name[i + 1..],
                None => name.as_str(),
            }
        };
        let e = escape(shown, true);
        let n = e.len();
        self.out.push_str(&e);
        self.out
            .push_str(&format!("{:>w$} ", s, w = 24usize.saturating_sub(n)));
    }

    fn values<'f>(&self, file: &'f dyn DumpFile) -> Values<'f> {
        Values {
            file,
            paths: Rc::new(HashMap::new()),
            next_arr: std::cell::Cell::new(false),
            packed: None,
            ids: Default::default(),
            refs: RefEnv {
                file_name: self.fname.clone(),
                file_key: String::new(),
                open: None,
                ext: Rc::new(RefCell::new(HashMap::new())),
            },
        }
    }

    /// The data format (`ls_dataformat` with `dump_dataset_values`' changes).
    fn data_format(&self, dt: &Datatype, attribute: bool) -> Format {
        let mut f = Format {
            raw: self.o.hexdump,
            fmt_float: "%1.6g".into(),
            fmt_double: "%1.15g".into(),
            str_repeat: 0,
            arr_pre: "[",
            arr_sep: None,
            arr_suf: "]",
            arr_linebreak: false,
            cmpd_sep: ", \u{1}",
            cmpd_pre: "{",
            cmpd_suf: "}",
            cmpd_end: "",
            cmpd_name: self.o.label,
            vlen_sep: ",\u{1}",
            vlen_pre: "(",
            vlen_suf: ")",
            elmt_suf1: ",",
            elmt_suf2: " ",
            idx_n: false,
            line_ncols: self.o.width,
            line_per_line: 0,
            line_suf: "",
            line_multi_new: true,
            line_indent: "",
            pindex: true,
            do_escape: true,
            obj_fileno: true,
            ..Format::default()
        };
        if self.o.simple && !attribute {
            f.html_escape = true;
            f.line_per_line = 1;
            f.line_multi_new = false;
            f.arr_pre = "";
            f.arr_suf = "";
            f.arr_sep = Some(" ");
            if !self.o.label {
                f.cmpd_pre = "";
                f.cmpd_suf = "";
            }
            f.cmpd_sep = " ";
            f.elmt_suf1 = " ";
        } else {
            f.str_repeat = 8;
            if self.o.no_line_wrap && !attribute {
                f.line_per_line = 1;
            }
        }
        if !self.o.hexdump && self.o.string && dt.size() == 1 && matches!(dt, Datatype::Integer(_))
        {
            f.ascii = true;
            f.elmt_suf1 = "";
            f.elmt_suf2 = "";
            f.line_suf = "\"";
        }
        f
    }

    /// Render `n` elements of `dt` from the bytes `read(start, count)` yields, strip by strip.
    #[allow(clippy::too_many_arguments)]
    fn render_data(
        &mut self,
        file: &dyn DumpFile,
        dt: &Datatype,
        dims: &[u64],
        info: &Format,
        p: Prefixes,
        ncols: usize,
        read: &ReadFn<'_>,
    ) -> Result<(), String> {
        let values = self.values(file);
        let size = dt.size();
        let mut out = std::mem::take(&mut self.out);
        let mut w = Wrap {
            out: &mut out,
            ctx: Ctx {
                need_prefix: true,
                ..Ctx::default()
            },
            p,
            ncols,
        };
        let mut result = Ok(());
        let total: u64 = dims.iter().product();
        for strip in StripMine::new(dims, size as u64) {
            let bytes = match read(&strip.offset, &strip.count) {
                Ok(b) => b,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            for (k, chunk) in bytes.chunks(size.max(1)).take(strip.n as usize).enumerate() {
                let elmtno = strip.elmtno + k as u64;
                let mut s = String::new();
                let mut ctx = Ctx::default();
                values.sprint(&mut s, info, &mut ctx, dt, chunk);
                if elmtno + 1 < total.max(1) {
                    s.push_str(info.elmt_suf1);
                }
                w.element(info, &s, elmtno, k as u64);
            }
            w.ctx.continuation += 1;
            if w.out.len() > 1 << 16 {
                let _ = self.sink.write_all(w.out.as_bytes());
                w.out.clear();
            }
        }
        self.out = out;
        result
    }

    /// `dump_dataset_values`.
    fn dataset_values(&mut self, file: &dyn DumpFile, id: ObjId, d: &DatasetInfo) {
        self.out.push_str("    Data:\n");
        let dt = &d.datatype.datatype;
        let info = self.data_format(dt, false);
        let pre = if self.o.simple {
            "        ".to_string()
        } else {
            "         ".to_string()
        };
        let pre = if info.ascii {
            format!("{}\"", pre)
        } else {
            pre
        };
        let p = Prefixes {
            first: pre.clone(),
            cont: pre.clone(),
            pre,
        };
        let ncols = if self.o.simple || self.o.no_line_wrap {
            65535
        } else {
            self.o.width
        };
        if !matches!(d.space, Space::Null) && is_old_reference(dt) && !self.o.hexdump {
            let dims = d.space.dims().to_vec();
            let zeros = vec![0u64; dims.len()];
            match file.read(id, &zeros, &dims) {
                Ok(bytes) => {
                    let width = self.o.width;
                    // At the data's own indentation (one less with `-S`).
                    let indent = if self.o.simple { 8 } else { 9 };
                    self.refs(file, &bytes, dt.size().max(1), indent, width);
                }
                Err(_) => self.out.push_str("        Unable to print data."),
            }
        } else if !matches!(d.space, Space::Null) {
            let dims = d.space.dims().to_vec();
            let read = |start: &[u64], count: &[u64]| file.read(id, start, count);
            let before = self.out.len();
            let first = p.first.clone();
            if self
                .render_data(file, dt, &dims, &info, p, ncols, &read)
                .is_err()
            {
                // A read that fails before any value: the line's prefix, then the message.
                if self.out.len() == before {
                    self.out.push_str(&first);
                }
                self.out.push_str("        Unable to print data.");
            }
        }
        self.out.push('\n');
    }

    /// `list_attr`.
    fn list_attrs(&mut self, file: &dyn DumpFile, id: ObjId) {
        let Ok(attrs) = file.attributes(id, IndexOrder::Name) else {
            return;
        };
        for a in attrs {
            self.out.push_str("    Attribute: ");
            self.out.push_str(&escape(&a.name, true));
            match &a.space {
                Space::Scalar => self.out.push_str(" scalar\n"),
                Space::Null => self.out.push_str(" null\n"),
                Space::Simple { dims, .. } => {
                    let d: Vec<String> = dims.iter().map(u64::to_string).collect();
                    self.out.push_str(&format!(" {{{}}}\n", d.join(", ")));
                }
            }
            self.out.push_str("        Type:      ");
            let mut t = String::new();
            type_text(
                &mut t,
                &a.datatype.datatype,
                15,
                a.datatype.committed,
                self.o.simple,
            );
            self.out.push_str(&t);
            self.out.push('\n');
            if self.o.data && matches!(a.space, Space::Null) {
                // h5ls cannot read an attribute of no dataspace.
                self.out.push_str("        Data:\n");
                self.out.push_str(&" ".repeat(15));
                self.out.push_str("        Unable to print data.\n");
            } else if self.o.data {
                self.out.push_str("        Data:\n");
                let dt = a.datatype.datatype.clone();
                let info = self.data_format(&dt, true);
                let pre = if info.ascii {
                    "               \"".to_string()
                } else {
                    " ".repeat(15)
                };
                let p = Prefixes {
                    first: pre.clone(),
                    pre,
                    cont: " ".repeat(16),
                };
                let dims = a.space.dims().to_vec();
                let name = a.name.clone();
                let data = file.attribute_data(id, &name);
                let region = is_old_reference(&dt);
                if let (true, Ok(bytes)) = (region && !self.o.hexdump, &data) {
                    let width = self.o.width.saturating_sub(3);
                    self.refs(file, bytes, dt.size().max(1), 15, width);
                } else if let Ok(bytes) = data {
                    let read = |_: &[u64], _: &[u64]| Ok(bytes.clone());
                    // h5ls wraps attribute data three columns before the width (measured
                    // against h5ls 1.10.8 at widths 50 to 120).
                    let width = self.o.width.saturating_sub(3);
                    // The attribute is read whole: one strip.
                    let n: u64 = dims.iter().product();
                    let one = [n];
                    let shape: &[u64] = if dims.is_empty() { &[] } else { &one };
                    let _ = self.render_data(file, &dt, shape, &info, p, width, &read);
                }
                self.out.push('\n');
            }
        }
    }

    /// The values of a dataset region reference attribute, as h5ls prints them (each
    /// region in the DDL form of `h5tools_dump_region_data_blocks`/`_points`, its blocks and
    /// points labelled `Blk`/`Pt`; `NULL` for a null reference).
    fn refs(
        &mut self,
        file: &dyn DumpFile,
        bytes: &[u8],
        size: usize,
        indent: usize,
        ncols: usize,
    ) {
        let paths = crate::dump::value::first_paths(file);
        let pre = " ".repeat(indent);
        let inner = " ".repeat(indent + 3);
        // Attribute data continues its lines one column further in.
        let cont_extra = usize::from(indent > 9);
        for (i, r) in bytes.chunks_exact(size).enumerate() {
            let target = if r.iter().all(|&b| b == 0) {
                None
            } else {
                file.dereference(r).ok().flatten()
            };
            let (dataset, selection) = match target {
                Some(RefTarget::Region { dataset, selection }) => (dataset, selection),
                Some(RefTarget::Object(id)) => {
                    self.object_ref(file, id, indent, ncols);
                    continue;
                }
                None => {
                    self.out.push_str(&pre);
                    self.out.push_str("NULL\n");
                    continue;
                }
            };
            let coords = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
            let (head, items): (&str, Vec<String>) = match &selection {
                Region::Blocks(b) => (
                    "REGION_TYPE BLOCK  ",
                    b.iter()
                        .enumerate()
                        .map(|(k, (x, y))| format!("Blk{k}: ({})-({})", coords(x), coords(y)))
                        .collect(),
                ),
                Region::Points(p) => (
                    "REGION_TYPE POINT  ",
                    p.iter()
                        .enumerate()
                        .map(|(k, x)| format!("Pt{k}: ({})", coords(x)))
                        .collect(),
                ),
                Region::All | Region::None | Region::Unlimited => ("", Vec::new()),
            };
            let path = paths.get(&dataset).map_or("", |(p, _)| p.as_str());
            // The opening brace is rendered as an element of its own (" {" for blocks, "{"
            // for points), after the element separator " " from the second reference on, as
            // in `h5tools_dump_region_data_blocks`/`_points`.
            let open = match (&selection, i) {
                (Region::Points(_), 0) => "{",
                (Region::Blocks(_), 1..) => "  {",
                _ => " {",
            };
            self.out
                .push_str(&format!("{pre}DATASET \"{}\"{open}\n", escape(path, false)));
            if !head.is_empty() {
                // One line, wrapped at a fixed width whatever `-w` says (as h5ls 1.10.8).
                let mut line = format!("{inner}{head}");
                let n = items.len();
                for (k, item) in items.into_iter().enumerate() {
                    let item = if k + 1 < n { format!("{item},") } else { item };
                    if k == 0 {
                        line.push_str(&item);
                    } else if line.len() + item.len() + 2 > REGION_NCOLS {
                        self.out.push_str(&line);
                        self.out.push('\n');
                        line = format!("{} {item}", " ".repeat(indent + 3 + cont_extra));
                    } else {
                        line.push(' ');
                        line.push_str(&item);
                    }
                }
                self.out.push_str(&line);
                self.out.push('\n');
            }
            if let Ok(d) = file.dataset(dataset) {
                self.out.push_str(&format!(
                    "{inner}DATATYPE  {}\n{inner}DATASPACE {}\n",
                    d.datatype.datatype,
                    crate::dump::ddl::dataspace_text(&d.space)
                ));
            }
            self.out.push_str(&pre);
            self.out.push_str("}\n");
        }
    }

    /// An object reference as h5ls prints it: the kind and address of the object (its path
    /// unknown to h5ls: `""`), then the data of a dataset (nothing for other objects) in a
    /// `DATA { }` block.
    fn object_ref(&mut self, file: &dyn DumpFile, id: ObjId, indent: usize, ncols: usize) {
        let pre = " ".repeat(indent);
        let inner = " ".repeat(indent + 3);
        let kind = file.object_kind(id).ok();
        let name = match kind {
            Some(ObjKind::Group) => "GROUP",
            Some(ObjKind::Dataset) => "DATASET",
            Some(ObjKind::NamedDatatype) => "DATATYPE",
            None => "UNKNOWN",
        };
        self.out
            .push_str(&format!("{pre}{name}-1:{id} \"\"\n{inner}DATA {{\n"));
        if kind == Some(ObjKind::Dataset) {
            if let Ok(d) = file.dataset(id) {
                let dt = d.datatype.datatype.clone();
                if !matches!(d.space, Space::Null) && !matches!(dt, Datatype::Reference(_)) {
                    let info = self.data_format(&dt, false);
                    let first = " ".repeat(indent + 6);
                    let p = Prefixes {
                        pre: first.clone(),
                        cont: " ".repeat(indent + 7),
                        first,
                    };
                    let dims = d.space.dims().to_vec();
                    let read = |start: &[u64], count: &[u64]| file.read(id, start, count);
                    let _ = self.render_data(file, &dt, &dims, &info, p, ncols, &read);
                    self.out.push('\n');
                }
            }
        }
        self.out.push_str(&format!("{inner}}}\n"));
    }

    /// `dataset_list2`: the verbose details of a dataset, then its data.
    fn dataset_details(&mut self, file: &dyn DumpFile, id: ObjId, d: &DatasetInfo) {
        let dt = &d.datatype.datatype;
        if self.o.verbose > 0 {
            let mut b = String::new();
            match &d.layout {
                Layout::Chunked { dims } => {
                    let total: u64 = dims.iter().product::<u64>() * memory_size(dt);
                    let t: Vec<String> = dims.iter().map(u64::to_string).collect();
                    b.push_str(&format!(
                        "    {:<10} {{{}}} {} bytes\n",
                        "Chunks:",
                        t.join(", "),
                        total
                    ));
                }
                Layout::Contiguous { .. } if !d.external.is_empty() => {
                    let nf = d.external.len();
                    let max_len = d
                        .external
                        .iter()
                        .map(|e| escape(&e.name, true).len())
                        .max()
                        .unwrap_or(0);
                    b.push_str(&format!(
                        "    {:<10} {} external file{}\n",
                        "Extern:",
                        nf,
                        plural(nf as u64)
                    ));
                    b.push_str(&format!(
                        "        {:>4} {:>10} {:>10} {:>10} {}\n",
                        "ID", "DSet-Addr", "File-Addr", "Bytes", "File"
                    ));
                    let rule = format!(
                        "        {:>4} {:>10} {:>10} {:>10} {}\n",
                        "----",
                        "----------",
                        "----------",
                        "----------",
                        "-".repeat(max_len)
                    );
                    b.push_str(&rule);
                    let mut total = 0u64;
                    for (i, e) in d.external.iter().enumerate() {
                        let bytes = if e.size == u64::MAX {
                            "INF".to_string()
                        } else {
                            e.size.to_string()
                        };
                        b.push_str(&format!(
                            "        #{:03} {:>10} {:>10} {:>10} {}\n",
                            i,
                            total,
                            e.offset,
                            bytes,
                            escape(&e.name, true)
                        ));
                        total = total.wrapping_add(e.size);
                    }
                    b.push_str(&rule);
                }
                Layout::Virtual { mappings } if !mappings.is_empty() => {
                    b.push_str(&format!(
                        "    {:<10} {{{}}} Source {{\n",
                        "Maps:",
                        mappings.len()
                    ));
                    for m in mappings {
                        b.push_str(&format!(
                            "    {:<10}        {}   {}\n",
                            " ",
                            escape(&m.file, true),
                            escape(&m.dataset, true)
                        ));
                    }
                    b.push_str(&format!("     {:<10}}}\n", " "));
                }
                _ => {}
            }
            let total = d.space.npoints() * memory_size(dt);
            let used = d.storage_size;
            b.push_str(&format!("    {:<10} ", "Storage:"));
            match dt {
                Datatype::VarLen(_) | Datatype::Reference(_) => {
                    b.push_str("information not available")
                }
                _ => {
                    b.push_str(&format!(
                        "{} logical byte{}, {} allocated byte{}",
                        total,
                        plural(total),
                        used,
                        plural(used)
                    ));
                    if used > 0 {
                        let u = (total as f64 * 100.0) / used as f64;
                        b.push_str(&format!(", {:.2}% utilization", u));
                    }
                }
            }
            b.push('\n');
            for (i, f) in d.filters.iter().enumerate() {
                let name = match f.name.as_deref() {
                    Some(n) if !n.is_empty() => n.to_string(),
                    _ => match f.id {
                        1 => "deflate",
                        2 => "shuffle",
                        3 => "fletcher32",
                        4 => "szip",
                        5 => "nbit",
                        6 => "scaleoffset",
                        _ => "method",
                    }
                    .to_string(),
                };
                let cd: Vec<String> = f.cd_values.iter().map(u32::to_string).collect();
                b.push_str(&format!(
                    "    {:<10} {}-{} {} {{{}}}\n",
                    format!("Filter-{}:", i),
                    name,
                    f.id,
                    if f.optional { "OPT" } else { "" },
                    cd.join(", ")
                ));
            }
            b.push_str(&format!("    {:<10} ", "Type:"));
            type_text(&mut b, dt, 15, d.datatype.committed, self.o.simple);
            b.push('\n');
            self.out.push_str(&b);
            if self.o.address {
                if let Layout::Contiguous { offset } = d.layout {
                    // `H5Dget_offset`: HADDR_UNDEF when unallocated or external.
                    self.out.push_str(&format!(
                        "    {:<10} {}\n",
                        "Address:",
                        offset.unwrap_or(u64::MAX)
                    ));
                } else if let Ok(Some(ix)) = file.chunk_index(id) {
                    // `H5D__chunk_dump_index`: the index, then each allocated chunk.
                    self.out.push_str(&format!(
                        "    Address: {}\n           Flags    Bytes     Address          Logical Offset\n        ========== ======== ========== ==============================\n",
                        ix.address
                    ));
                    for c in &ix.chunks {
                        let offs: Vec<String> = c
                            .offset
                            .iter()
                            .chain(std::iter::once(&0))
                            .map(u64::to_string)
                            .collect();
                        self.out.push_str(&format!(
                            "        0x{:08x} {:>8} {:>10} [{}]\n",
                            c.filter_mask,
                            c.size,
                            c.address,
                            offs.join(", ")
                        ));
                    }
                }
            }
        }
        if self.o.data {
            self.dataset_values(file, id, d);
        }
    }

    /// `list_obj`: one object's line and details.
    fn list_obj(&mut self, name: &str, at: &Place, first_seen: Option<&str>) {
        let file = Rc::clone(&at.file);
        let id = at.id;
        if !self.symlink_target {
            self.obj_name(name, "");
        }
        let kind = file.object_kind(id).ok();
        if self.symlink_target {
            self.out.push('{');
        }
        self.out.push_str(match kind {
            Some(ObjKind::Group) => "Group",
            Some(ObjKind::Dataset) => "Dataset",
            Some(ObjKind::NamedDatatype) => "Type",
            None => "",
        });
        if let Some(first) = first_seen {
            self.out.push_str(", same as ");
            self.out.push_str(&escape(first, true));
            if !self.symlink_target {
                self.out.push('\n');
            }
        } else {
            match file.object_info(id) {
                Err(_) => self.out.push_str(" *ERROR*\n"),
                Ok(info) => {
                    let dset = if kind == Some(ObjKind::Dataset) {
                        match file.dataset(id) {
                            Ok(d) => Some(d),
                            Err(_) => {
                                self.out.push_str(" *ERROR*\n");
                                return self.end_symlink();
                            }
                        }
                    } else {
                        None
                    };
                    if let Some(d) = &dset {
                        let t = dims_text(&d.space, self.o.verbose > 0);
                        self.out.push_str(&t);
                    }
                    if !self.symlink_target || self.o.verbose > 0 {
                        self.out.push('\n');
                    }
                    if self.o.verbose > 0 {
                        self.list_attrs(file.as_ref(), id);
                        let fileno = if at.external { 1 + self.ext_opens } else { 1 };
                        self.out.push_str(&format!(
                            "    {:<10} {}:{}\n    {:<10} {}\n",
                            "Location:", fileno, info.addr, "Links:", info.refcount
                        ));
                        if info.mtime > 0 {
                            self.out.push_str(&format!(
                                "    {:<10} {}\n",
                                "Modified:",
                                utc_text(info.mtime)
                            ));
                        }
                        if let Some(c) = info.comment.as_deref().filter(|c| !c.is_empty()) {
                            self.out.push_str(&format!(
                                "    {:<10} \"{}\"\n",
                                "Comment:",
                                escape(c, false)
                            ));
                        }
                    }
                    match kind {
                        Some(ObjKind::Dataset) => {
                            if let Some(d) = dset {
                                self.dataset_details(file.as_ref(), id, &d);
                            }
                        }
                        Some(ObjKind::NamedDatatype) if self.o.verbose > 0 => {
                            if let Ok(t) = file.named_datatype(id) {
                                let mut b = format!("    {:<10} ", "Type:");
                                type_text(&mut b, &t, 15, Some(id), self.o.simple);
                                b.push('\n');
                                self.out.push_str(&b);
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        self.end_symlink();
        self.flush();
    }

    fn end_symlink(&mut self) {
        if self.symlink_target {
            self.out.push_str("}\n");
            self.symlink_target = false;
        }
    }

    /// `list_lnk`: a symbolic link, and with `--follow-symlinks` what it points at.
    fn list_lnk(&mut self, name: &str, target: &LinkTarget) {
        self.obj_name(name, "");
        match target {
            LinkTarget::Soft(value) => {
                let exists = !self.o.follow_symlinks || self.exists(name, false);
                if self.o.no_dangling && !exists {
                    self.dangling = true;
                }
                self.out.push_str(&format!("Soft Link {{{}}}", value));
                if self.o.follow_symlinks {
                    self.follow(name, Visited::Soft(value.clone()));
                } else {
                    self.out.push('\n');
                }
            }
            LinkTarget::External { file, path } => {
                let follow = self.o.follow_symlinks || self.o.follow_elinks;
                let exists = !follow || self.exists(name, true);
                if self.o.no_dangling && !exists {
                    self.dangling = true;
                }
                let sep = if path.starts_with('/') { "/" } else { "//" };
                self.out
                    .push_str(&format!("External Link {{{}{}{}}}", file, sep, path));
                if follow {
                    self.follow(name, Visited::External(file.clone(), path.clone()));
                } else {
                    self.out.push('\n');
                }
            }
            _ => self.out.push_str("UD Link {cannot follow UD links}\n"),
        }
    }

    /// Whether a link's target exists (`H5Oexists_by_name`, then `H5Oget_info_by_name` if it
    /// does: each opens a file an external link names anew). A target that cannot be reached
    /// (a file that cannot be opened, a cycle of links) does not exist.
    fn exists(&mut self, name: &str, external: bool) -> bool {
        let found = self.files.resolve(name).is_ok();
        if external {
            self.ext_opens += 1 + u64::from(found);
        }
        found
    }

    fn follow(&mut self, name: &str, v: Visited) {
        self.out.push(' ');
        if self.visited.contains(&v) {
            self.out.push_str("{Already Visited}\n");
            return;
        }
        self.visited.push(v);
        self.symlink_target = true;
        let orig = self.grp_literal;
        if !self.o.recursive {
            self.grp_literal = true;
        }
        let _ = self.visit_obj(name);
        self.grp_literal = orig;
    }

    /// `visit_obj`: list an object, or a group's contents. Err if it does not exist.
    fn visit_obj(&mut self, oname: &str) -> Result<(), ()> {
        let at = match self.files.resolve(oname) {
            Ok(at) => at,
            Err(_) => {
                if self.symlink_target {
                    self.out.push_str("{**NOT FOUND**}\n");
                    self.symlink_target = false;
                } else {
                    self.obj_name(oname, "**NOT FOUND**");
                }
                return Err(());
            }
        };
        if at.external {
            self.ext_opens += 1;
        }
        let kind = at.file.object_kind(at.id).ok();
        if kind == Some(ObjKind::Group) && !self.grp_literal {
            self.name_start = self.base_len;
            let visit_start = self.display_root || self.symlink_target;
            if at.external {
                self.ext_opens += 1;
            }
            self.traverse(oname, &at, visit_start);
        } else {
            self.list_obj(oname, &at, None);
        }
        Ok(())
    }

    /// `h5trav_visit`: the links of a group (recursively with `-r`), each object listed once
    /// and later links to it as "same as".
    fn traverse(&mut self, start: &str, at: &Place, visit_start: bool) {
        let mut seen: HashMap<ObjId, String> = HashMap::new();
        seen.insert(at.id, start.to_string());
        if visit_start {
            self.list_obj(start, at, None);
        }
        self.walk(start, at, &mut seen);
    }

    fn walk(&mut self, path: &str, group: &Place, seen: &mut HashMap<ObjId, String>) {
        let Ok(links) = group.file.links(group.id, IndexOrder::Name) else {
            return;
        };
        for l in links {
            let full = if path == "/" {
                format!("/{}", l.name)
            } else {
                format!("{}/{}", path, l.name)
            };
            match l.target {
                LinkTarget::Hard(id) => {
                    let here = Place {
                        id,
                        ..group.clone()
                    };
                    if let Some(first) = seen.get(&id).cloned() {
                        self.list_obj(&full, &here, Some(&first));
                        continue;
                    }
                    seen.insert(id, full.clone());
                    self.list_obj(&full, &here, None);
                    if self.o.recursive && here.file.object_kind(id).ok() == Some(ObjKind::Group) {
                        self.walk(&full, &here, seen);
                    }
                }
                ref t => self.list_lnk(&full, t),
            }
        }
    }
}

/// `h5 ls` with files opened by `open`: writes the listing to `out` and errors to `err`, and
/// returns the exit status.
pub fn run_with(
    args: &[String],
    open: &Opener<'_>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let (o, names) = match parse(args) {
        Parsed::Run(o, names) => (o, names),
        Parsed::Exit(o, e, code) => {
            let _ = err.write_all(e.as_bytes());
            let _ = out.write_all(o.as_bytes());
            return code;
        }
    };
    let show_file_name = names.len() > 1;
    let mut err_exit = false;
    let mut display_root = false;
    for arg in &names {
        // Open the longest prefix of the argument that is a file; the rest names an object.
        let mut fname = arg.clone();
        let mut oname: Option<String> = None;
        let file = loop {
            if fname.is_empty() {
                break None;
            }
            if let Ok(f) = open(&fname) {
                break Some(f);
            }
            match fname.rfind('/') {
                Some(i) => {
                    let rest = fname[i..].to_string();
                    oname = Some(match oname {
                        Some(o) => format!("{}{}", rest, o),
                        None => rest,
                    });
                    fname.truncate(i);
                }
                None => break None,
            }
        };
        let Some(file) = file else {
            let _ = out.flush();
            let _ = writeln!(err, "{}: unable to open file", arg);
            err_exit = true;
            continue;
        };
        let mut base_len = 0;
        let mut name_start = 0;
        let oname = match oname {
            Some(o) if o != "/" => {
                base_len = o.len() - usize::from(o.ends_with('/'));
                name_start = 1;
                o
            }
            _ => {
                if o.recursive {
                    display_root = true;
                }
                "/".to_string()
            }
        };
        let mut l = Lister {
            o: &o,
            sink: &mut *out,
            files: Files {
                open,
                main: Rc::from(file),
                main_key: crate::dump::ddl::file_key(&fname),
                cache: RefCell::new(HashMap::new()),
            },
            out: String::new(),
            fname: fname.clone(),
            show_file_name,
            base_len,
            name_start,
            symlink_target: false,
            grp_literal: o.group_literal,
            display_root,
            visited: Vec::new(),
            dangling: false,
            ext_opens: 0,
        };
        if o.verbose > 0 {
            let driver = o.vfd.clone().unwrap_or_else(|| "sec2".into());
            l.out
                .push_str(&format!("Opened \"{}\" with {} driver.\n", fname, driver));
        }
        let link = if oname == "/" {
            Some(LinkTarget::Hard(l.files.main.root()))
        } else {
            match l.files.link(&oname) {
                Some(link) => Some(link.target),
                None => {
                    l.obj_name(&oname, "**NOT FOUND**");
                    l.flush_all();
                    return 1;
                }
            }
        };
        let fatal = match link {
            Some(LinkTarget::Hard(_)) | None => l.visit_obj(&oname).is_err(),
            Some(t) => {
                l.list_lnk(&oname, &t);
                false
            }
        };
        l.flush_all();
        let dangling = l.dangling;
        if fatal {
            return 1;
        }
        if o.no_dangling && dangling {
            err_exit = true;
        }
    }
    i32::from(err_exit)
}

/// `h5 ls` with the real file reader.
pub fn run(args: &[String]) -> i32 {
    let open = |name: &str| crate::dump::open_file(name);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let status = run_with(args, &open, &mut out, &mut std::io::stderr());
    let _ = out.flush();
    status
}

#[cfg(test)]
mod tests;
