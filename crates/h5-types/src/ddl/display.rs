//! The DDL printer: the reference library's `H5LT_dtype_to_text` layout, in two flavors.
//!
//! The reference printer keeps a global indentation `I` (0 at the top). Each composite class
//! prints its lead-in (`H5T_STRING {\n`), raises `I` by 3, prints its body lines at `I + 3`
//! (the raised `I`, so 6 more than at entry) and its closing brace at the entry `I + 3`. Bases
//! of arrays, vlens, enums and complex types are printed inline with the raised `I`; compound
//! members are printed at `I + 3` with `I` raised once more for a member that is itself a
//! compound. [`Printer::ty`] takes the entry `I` and follows these rules.

use super::{needs_escape, Flavor, RefVersion};
use crate::compose::decode_int;
use crate::datatype::*;
use crate::predefined;

/// The reference's column step.
const COL: usize = 3;
/// The reference's `TMP_LEN`: its formatted pieces are cut to `TMP_LEN - 1` bytes.
const TMP_LEN: usize = 256;

pub(super) struct Printer {
    pub(super) flavor: Flavor,
    pub(super) out: String,
    /// Set when the reference printer would fail (it returns an error, no text).
    pub(super) failed: bool,
}

impl Printer {
    pub(super) fn new(flavor: Flavor) -> Self {
        Printer {
            flavor,
            out: String::new(),
            failed: false,
        }
    }

    fn reference(&self) -> Option<RefVersion> {
        match self.flavor {
            Flavor::Canonical { .. } => None,
            Flavor::Reference(v) => Some(v),
        }
    }

    fn push(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// A piece the reference formats into its `TMP_LEN` buffer: cut in reference flavor.
    fn push_tmp(&mut self, s: &str) {
        if self.reference().is_some() && s.len() >= TMP_LEN {
            let mut end = TMP_LEN - 1;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            self.out.push_str(&s[..end]);
        } else {
            self.out.push_str(s);
        }
    }

    fn indent(&mut self, n: usize) {
        if n >= 80 && self.reference().is_some() {
            self.push("error: the indentation exceeds the number of cols.");
        } else {
            self.out.extend(std::iter::repeat_n(' ', n));
        }
    }

    /// A quoted name: raw in reference flavor, escaped where needed in canonical flavor.
    fn quoted(&self, name: &str) -> String {
        let mut s = String::with_capacity(name.len() + 2);
        s.push('"');
        if self.reference().is_none() && needs_escape(name) {
            let bytes: Vec<char> = name.chars().collect();
            for (i, &c) in bytes.iter().enumerate() {
                match c {
                    '"' => s.push_str("\\\""),
                    '\\' => {
                        let next = bytes.get(i + 1);
                        if matches!(next, None | Some('"') | Some('\\')) {
                            s.push_str("\\\\");
                        } else {
                            s.push('\\');
                        }
                    }
                    c => s.push(c),
                }
            }
        } else {
            s.push_str(name);
        }
        s.push('"');
        s
    }

    /// Print `t` with the reference's global indentation `i` at entry.
    pub(super) fn ty(&mut self, t: &Datatype, i: usize) {
        match t {
            Datatype::Integer(it) => self.integer(it, i),
            Datatype::Float(f) => self.float(f, i),
            Datatype::Bitfield(b) => match self.reference() {
                Some(_) => self.push("undefined integer"),
                None => match predefined::ddl_name(t) {
                    Some(n) => self.push(n),
                    None => self.atomic_ext("H5T_BITFIELD", &b.atomic, &[], i),
                },
            },
            Datatype::Time(tt) => match self.reference() {
                Some(_) => self.push("H5T_TIME: not yet implemented"),
                None => match predefined::ddl_name(t) {
                    Some(n) => self.push(n),
                    None => {
                        let lines = [
                            format!("SIZE {};", tt.size),
                            format!("ORDER {};", order_name(tt.order)),
                            format!("PRECISION {};", tt.precision),
                        ];
                        self.braced("H5T_TIME", &lines, i);
                    }
                },
            },
            Datatype::String(s) => self.string(s, i),
            Datatype::Opaque(o) => {
                let lines = [
                    format!("OPQ_SIZE {};", o.size),
                    format!("OPQ_TAG {};", self.quoted(&o.tag)),
                ];
                self.braced("H5T_OPAQUE", &lines, i);
            }
            Datatype::Reference(r) => self.reference_type(r, i),
            Datatype::Enum(e) => self.enumeration(e, i),
            Datatype::VarLen(v) => {
                // The reference library orders the base's members as H5T_set_loc leaves them.
                let mut base = (*v.base).clone();
                super::sort_like_set_loc(&mut base);
                self.wrapped("H5T_VLEN", "", &base, i);
            }
            Datatype::Array(a) => {
                let mut dims = String::new();
                for &d in &a.dims {
                    if self.reference().is_some() {
                        // The reference prints each dimension through `(int)`.
                        dims.push_str(&format!("[{}]", d as i32));
                    } else {
                        dims.push_str(&format!("[{d}]"));
                    }
                }
                dims.push(' ');
                self.wrapped("H5T_ARRAY", &dims, &a.base, i);
            }
            Datatype::Complex(c) => {
                let base = Datatype::Float(c.base);
                self.wrapped("H5T_COMPLEX", "", &base, i);
            }
            Datatype::Compound(c) => self.compound(c, i),
        }
    }

    fn integer(&mut self, it: &IntegerType, i: usize) {
        match predefined::ddl_name(&Datatype::Integer(*it)) {
            Some(n) => self.push(n),
            None if self.reference().is_some() => self.push("undefined integer"),
            None => {
                let sign = match it.sign {
                    Sign::None => "H5T_SGN_NONE",
                    Sign::TwosComplement => "H5T_SGN_2",
                };
                self.atomic_ext("H5T_INTEGER", &it.atomic, &[format!("SIGN {sign};")], i);
            }
        }
    }

    fn float(&mut self, f: &FloatType, i: usize) {
        let name = predefined::float_name(f).filter(|_| match self.reference() {
            Some(RefVersion::V1_10) => predefined::float_known_to_1_10(f),
            _ => true,
        });
        match name {
            Some(n) => self.push(n),
            None if self.reference().is_some() => self.push("undefined float"),
            None => {
                let norm = match f.norm {
                    Norm::Implied => "H5T_NORM_IMPLIED",
                    Norm::MsbSet => "H5T_NORM_MSBSET",
                    Norm::None => "H5T_NORM_NONE",
                };
                let extra = [
                    format!("SIGN_POS {};", f.sign_pos),
                    format!("EXP_POS {};", f.exp_pos),
                    format!("EXP_SIZE {};", f.exp_size),
                    format!("MANT_POS {};", f.mant_pos),
                    format!("MANT_SIZE {};", f.mant_size),
                    format!("EXP_BIAS {};", f.exp_bias),
                    format!("NORM {norm};"),
                    format!("INPAD {};", pad_name(f.inpad)),
                ];
                self.atomic_ext("H5T_FLOAT", &f.atomic, &extra, i);
            }
        }
    }

    /// The extended braced form of an atomic layout plus class-specific lines.
    fn atomic_ext(&mut self, class: &str, a: &Atomic, extra: &[String], i: usize) {
        let mut lines = vec![
            format!("SIZE {};", a.size),
            format!("ORDER {};", order_name(a.order)),
            format!("PRECISION {};", a.precision),
            format!("OFFSET {};", a.offset),
            format!("LSB_PAD {};", pad_name(a.lsb_pad)),
            format!("MSB_PAD {};", pad_name(a.msb_pad)),
        ];
        lines.extend(extra.iter().cloned());
        self.braced(class, &lines, i);
    }

    /// `CLASS {\n` + each line at `i + 6` + `\n` + `}` at `i + 3`.
    fn braced(&mut self, class: &str, lines: &[String], i: usize) {
        self.push(class);
        self.push(" {\n");
        for l in lines {
            self.indent(i + 2 * COL);
            self.push_tmp(&format!("{l}\n"));
        }
        self.indent(i + COL);
        self.push("}");
    }

    /// `CLASS {\n` + prefix + base (printed with `I = i + 3`) + `\n` + `}` at `i + 3`.
    fn wrapped(&mut self, class: &str, prefix: &str, base: &Datatype, i: usize) {
        self.push(class);
        self.push(" {\n");
        self.indent(i + 2 * COL);
        self.push_tmp(prefix);
        self.ty(base, i + COL);
        self.push("\n");
        self.indent(i + COL);
        self.push("}");
    }

    fn string(&mut self, s: &StringType, i: usize) {
        let size = match s.size {
            StringSize::Variable => "STRSIZE H5T_VARIABLE;".to_owned(),
            StringSize::Fixed(n) if self.reference().is_some() => format!("STRSIZE {};", n as i32),
            StringSize::Fixed(n) => format!("STRSIZE {n};"),
        };
        let pad = match s.pad {
            StrPad::NullTerm => "STRPAD H5T_STR_NULLTERM;",
            StrPad::NullPad => "STRPAD H5T_STR_NULLPAD;",
            StrPad::SpacePad => "STRPAD H5T_STR_SPACEPAD;",
        };
        let cset = match s.cset {
            CharSet::Ascii => "CSET H5T_CSET_ASCII;",
            CharSet::Utf8 => "CSET H5T_CSET_UTF8;",
        };
        // The reference compares the type with a resized H5T_C_S1 first, and padding and
        // character set are copied over, so it always names the C type.
        let lines = [
            size,
            pad.to_owned(),
            cset.to_owned(),
            "CTYPE H5T_C_S1;".to_owned(),
        ];
        self.braced("H5T_STRING", &lines, i);
    }

    fn reference_type(&mut self, r: &ReferenceType, i: usize) {
        let natural = ReferenceType::new(r.kind) == *r;
        if let Some(version) = self.reference() {
            let _ = version;
            if *r == predefined::STD_REF_DSETREG {
                self.push(" H5T_REFERENCE { H5T_STD_REF_DSETREG }");
            } else {
                self.push(" H5T_REFERENCE { H5T_STD_REF_OBJECT }");
            }
            return;
        }
        let kind = match r.kind {
            ReferenceKind::Object => "H5T_STD_REF_OBJECT",
            ReferenceKind::DatasetRegion => "H5T_STD_REF_DSETREG",
            ReferenceKind::Revised => "H5T_STD_REF",
            ReferenceKind::Object2 => "H5R_OBJECT2",
            ReferenceKind::DatasetRegion2 => "H5R_DATASET_REGION2",
            ReferenceKind::Attribute => "H5R_ATTR",
        };
        let _ = i;
        if natural && matches!(r.kind, ReferenceKind::Object | ReferenceKind::DatasetRegion) {
            // Byte for byte the reference, leading space included.
            self.push(" H5T_REFERENCE { ");
            self.push(kind);
            self.push(" }");
        } else if natural {
            self.push("H5T_REFERENCE { ");
            self.push(kind);
            self.push(" }");
        } else {
            self.push(&format!("H5T_REFERENCE {{ {kind} SIZE {}; }}", r.size));
        }
    }

    fn enumeration(&mut self, e: &EnumType, i: usize) {
        if self.reference().is_some() && e.members.is_empty() {
            // The reference's print_enum fails on an enum without members.
            self.failed = true;
        }
        self.push("H5T_ENUM {\n");
        let inner = i + COL;
        self.indent(inner + COL);
        self.ty(&Datatype::Integer(e.base), inner);
        self.push(";\n");
        for m in &e.members {
            self.indent(inner + COL);
            let q = self.quoted(&m.name);
            self.push_tmp(&q);
            let nchars = q.len();
            let gap = if nchars + 3 >= 19 { 3 } else { 19 - nchars };
            self.out.extend(std::iter::repeat_n(' ', gap));
            let value = decode_int(&e.base, &m.value);
            let text = match (self.reference(), value) {
                (Some(_), v) => {
                    // Converted to native `int` / `unsigned` with the library's clamping.
                    if e.base.is_signed() {
                        let v = v.unwrap_or_else(|| {
                            if negative_raw(&e.base, &m.value) {
                                i128::MIN
                            } else {
                                i128::MAX
                            }
                        });
                        v.clamp(i32::MIN.into(), i32::MAX.into()).to_string()
                    } else {
                        v.unwrap_or(i128::MAX).clamp(0, u32::MAX.into()).to_string()
                    }
                }
                (None, Some(v)) => v.to_string(),
                (None, None) => {
                    let mut s = String::from("0x");
                    for b in &m.value {
                        s.push_str(&format!("{b:02x}"));
                    }
                    s
                }
            };
            self.push_tmp(&text);
            self.push(";\n");
        }
        self.indent(inner);
        self.push("}");
    }

    fn compound(&mut self, c: &CompoundType, i: usize) {
        self.push("H5T_COMPOUND {\n");
        let inner = i + COL;
        if self.flavor == (Flavor::Canonical { lossless: true }) && !super::compound_is_plain(c) {
            self.indent(inner + COL);
            self.push(&format!("SIZE {};\n", c.size));
        }
        for m in &c.members {
            self.indent(inner + COL);
            let member_i = if matches!(m.datatype, Datatype::Compound(_)) {
                inner + COL
            } else {
                inner
            };
            self.ty(&m.datatype, member_i);
            let q = format!(" {}", self.quoted(&m.name));
            self.push_tmp(&q);
            self.push_tmp(&format!(" : {};\n", m.offset));
        }
        self.indent(inner);
        self.push("}");
    }
}

/// Whether the sign bit of a raw integer value is set.
fn negative_raw(t: &IntegerType, raw: &[u8]) -> bool {
    let bit = t.offset() + t.precision().saturating_sub(1);
    let byte = match t.order() {
        ByteOrder::BigEndian => raw.len().checked_sub(1 + bit / 8),
        _ => Some(bit / 8),
    };
    byte.and_then(|b| raw.get(b))
        .is_some_and(|b| b & (1 << (bit % 8)) != 0)
}

pub(super) fn order_name(o: ByteOrder) -> &'static str {
    match o {
        ByteOrder::LittleEndian => "H5T_ORDER_LE",
        ByteOrder::BigEndian => "H5T_ORDER_BE",
        ByteOrder::Vax => "H5T_ORDER_VAX",
    }
}

pub(super) fn pad_name(p: Pad) -> &'static str {
    match p {
        Pad::Zero => "H5T_PAD_ZERO",
        Pad::One => "H5T_PAD_ONE",
        Pad::Background => "H5T_PAD_BACKGROUND",
    }
}
