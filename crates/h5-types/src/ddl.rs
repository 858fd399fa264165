//! The DDL text form of datatypes: `Display` and `FromStr` for [`Datatype`].
//!
//! # Printing
//!
//! `Display` prints what the reference library's `H5LTdtype_to_text(.., H5LT_DDL, ..)` prints,
//! byte for byte: the same names, the same odd indentation (a type's body 6 columns in from
//! where it started, its closing brace 3), compound members with their offsets
//! (`H5T_STD_I32LE "a" : 8;`), enum values aligned at column 19 from the member's quote,
//! `OPQ_SIZE`/`OPQ_TAG`, the leading space of ` H5T_REFERENCE { H5T_STD_REF_OBJECT }`, and
//! the HDF5 2.0 names where 2.0 has one (`H5T_IEEE_F16LE`, `H5T_FLOAT_BFLOAT16LE`,
//! `H5T_FLOAT_F8E4M3`, `H5T_COMPLEX { .. }`).
//!
//! Where the reference prints something unparseable, `Display` prints an extended form
//! instead, which [`FromStr`] reads. The alternate form `{:#}` is lossless: print then parse
//! is the identity for every type. The plain form `{}` equals it except for compounds whose
//! layout the reference's own text loses (trailing padding, a later member at offset 0):
//! there `{}` prints the reference's text, byte for byte (so a `#[derive(H5Type)]` struct
//! prints what `H5LTdtype_to_text` prints for the same C struct), and `{:#}` adds the size.
//! The extended forms:
//!
//! * Integers, floats and bitfields with a layout that has no name (the reference prints
//!   `undefined integer` / `undefined float`) print braced, one property a line:
//!   ```text
//!   H5T_INTEGER {
//!         SIZE 4;
//!         ORDER H5T_ORDER_LE;
//!         PRECISION 31;
//!         OFFSET 1;
//!         LSB_PAD H5T_PAD_ZERO;
//!         MSB_PAD H5T_PAD_ONE;
//!         SIGN H5T_SGN_2;
//!      }
//!   ```
//!   `H5T_BITFIELD { .. }` has the same lines but `SIGN`; `H5T_FLOAT { .. }` replaces `SIGN` by
//!   `SIGN_POS`, `EXP_POS`, `EXP_SIZE`, `MANT_POS`, `MANT_SIZE`, `EXP_BIAS`, `NORM`
//!   (`H5T_NORM_IMPLIED`, `H5T_NORM_MSBSET`, `H5T_NORM_NONE`) and `INPAD`. `ORDER` may be
//!   `H5T_ORDER_VAX` for floats. When parsing, every line but `SIZE` is optional (defaults:
//!   little-endian, all bits significant, zero padding, signed, IEEE fields for the size).
//! * Bitfields and times with a standard layout print by name: `H5T_STD_B8LE`,
//!   `H5T_UNIX_D32BE`. Other times print `H5T_TIME { SIZE n; ORDER ..; PRECISION n; }`.
//! * References print as the reference does for `H5T_STD_REF_OBJ` and `H5T_STD_REF_DSETREG`;
//!   the revised reference prints `H5T_REFERENCE { H5T_STD_REF }`, the file encodings
//!   `H5T_REFERENCE { H5R_OBJECT2 }`, `{ H5R_DATASET_REGION2 }`, `{ H5R_ATTR }`, and a size
//!   other than the kind's natural one is added as `H5T_REFERENCE { H5R_OBJECT2 SIZE 17; }`.
//! * In the alternate form `{:#}`, a compound whose layout the reference's text would not
//!   rebuild (trailing padding, a later member at offset 0, or no members and a size other
//!   than 1) gets a first line `SIZE n;`; with it, offsets are taken literally.
//! * Names (compound members, enum members, opaque tags) containing `"` are escaped: `\"`
//!   stands for `"`, and `\\` for a backslash that is followed by `"`, by `\` or by the closing
//!   quote; any other backslash stands for itself, as in the reference.
//! * Enum values print as their true value even outside `int`/`unsigned` (the reference clamps
//!   them); a value that does not fit 128 bits prints as `0x` and its raw bytes in stored
//!   order.
//! * Array dimensions and string sizes past `i32::MAX` print as they are (the reference casts
//!   them to `int`); indentation past 79 columns prints as spaces (the reference prints an
//!   error message in the text).
//!
//! [`Datatype::to_reference_text`] prints what the reference really prints, quirks included.
//!
//! # Parsing
//!
//! `FromStr` reads everything `H5LTtext_to_dtype` reads, with the same meaning:
//! whitespace-insensitive; `H5T_STD_*`, `H5T_IEEE_*` and `H5T_NATIVE_*` names; strings with
//! `H5T_VARIABLE`; opaque types; enums; arrays, vlens and compounds nested to any depth up to
//! [`MAX_DEPTH`]; compound members with or without `: offset`. It follows the reference's
//! layout rules for compounds: the first member sits at its offset (0 without one) and sets the
//! size to its end; a later member without an offset, or with offset 0, is appended at the
//! current size; a later member with an offset sits there and the size grows to cover it.
//!
//! It also reads more: every predefined name of [`crate::predefined`] (bitfields, references,
//! HDF5 2.0 floats and complex types, architecture aliases), `H5T_COMPLEX { float }`,
//! `H5T_REFERENCE { .. }`, the extended forms above, string fields in any order and with
//! `STRPAD`/`CSET`/`CTYPE` optional, the opaque fields in either order and under the older
//! keywords `OPAQUE_SIZE` / `OPAQUE_TAG`, member names and enum symbols without quotes when
//! they are identifiers, and negative enum values (the reference's lexer drops the minus
//! sign). An enum value that does not fit the base type is an error (the reference truncates
//! it), and so is any character outside the grammar (the reference's lexer echoes such
//! characters to standard output and skips them). `H5T_COMPOUND { }` is a one-byte compound
//! without members (the reference crashes on it).
//!
//! Like `H5Tvlen_create` (through `H5T_set_loc`), the reader sorts by offset the members of
//! every compound under a `H5T_VLEN` that holds variable-length data or references, and the
//! printer prints such members in that order, so the text is the reference's for any member
//! order.
//!
//! Errors carry the byte position of the offending token. Grammar errors have
//! [`ErrorKind::Syntax`]; a well-formed text describing an invalid type keeps the kind of the
//! check that refused it (overlapping members are [`ErrorKind::Overlap`], duplicate names
//! [`ErrorKind::DuplicateName`], a zero dimension [`ErrorKind::InvalidArgument`]).

mod display;
mod parse;
#[cfg(test)]
mod tests;

use std::fmt;
use std::str::FromStr;

use crate::datatype::{CompoundType, Datatype};
use crate::{Error, ErrorKind};

pub use parse::MAX_DEPTH;

/// Which reference library's output [`Datatype::to_reference_text`] reproduces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RefVersion {
    /// HDF5 1.10: no half-precision, alternative or complex floats by name.
    V1_10,
    /// HDF5 2.0: names `H5T_IEEE_F16*`, `H5T_FLOAT_BFLOAT16*`, `H5T_FLOAT_F8*` and prints
    /// `H5T_COMPLEX { .. }`.
    V2_0,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flavor {
    /// Our text: the reference's wherever it prints a parseable text; `lossless` adds the
    /// `SIZE n;` line to compounds whose layout the reference's text would not rebuild.
    Canonical {
        lossless: bool,
    },
    Reference(RefVersion),
}

impl fmt::Display for Datatype {
    /// `{}` prints the reference's text (extended only where the reference's is unparseable);
    /// `{:#}` prints the lossless text, which always parses back to an equal type.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut p = display::Printer::new(Flavor::Canonical {
            lossless: f.alternate(),
        });
        p.ty(self, 0);
        f.write_str(&p.out)
    }
}

impl FromStr for Datatype {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        parse::parse(s)
    }
}

impl Datatype {
    /// Parse DDL text (the same as `text.parse()`).
    pub fn from_ddl(text: &str) -> crate::Result<Self> {
        parse::parse(text)
    }

    /// Exactly what the reference library's `H5LTdtype_to_text` prints for this type, quirks
    /// included: `undefined integer` for bitfields and unnamed layouts, `undefined float`,
    /// `H5T_TIME: not yet implemented`, enum values clamped to `int`/`unsigned`, array
    /// dimensions through `int`, names cut to fit its 256-byte buffer, and an error message in
    /// place of indentation past 79 columns. `None` where the reference fails (an enum without
    /// members).
    pub fn to_reference_text(&self, version: RefVersion) -> Option<String> {
        let mut p = display::Printer::new(Flavor::Reference(version));
        p.ty(self, 0);
        (!p.failed).then_some(p.out)
    }
}

/// Whether a quoted name must be escaped to read back: it contains `"`, or a backslash that
/// the reader would take as the start of an escape.
fn needs_escape(name: &str) -> bool {
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => return true,
            '\\' if matches!(chars.peek(), None | Some('"') | Some('\\')) => return true,
            _ => {}
        }
    }
    false
}

/// Whether the plain reference text of a compound (members with offsets, no size) parses back
/// to the same compound under the reference's layout rules.
fn compound_is_plain(c: &CompoundType) -> bool {
    let mut members = c.members.iter();
    let Some(first) = members.next() else {
        return c.size == 1;
    };
    let Some(mut size) = first.offset.checked_add(first.datatype.size()) else {
        return false;
    };
    for m in members {
        if m.offset == 0 {
            return false;
        }
        let Some(end) = m.offset.checked_add(m.datatype.size()) else {
            return false;
        };
        size = size.max(end);
    }
    size == c.size
}

/// Whether the reference library marks this type as needing conversion even between equal
/// layouts (`force_conv`): variable-length data and references, and anything containing them.
fn force_conv(t: &Datatype) -> bool {
    match t {
        Datatype::String(s) => s.is_variable(),
        Datatype::VarLen(_) | Datatype::Reference(_) => true,
        Datatype::Array(a) => force_conv(&a.base),
        Datatype::Compound(c) => c.members.iter().any(|m| force_conv(&m.datatype)),
        _ => false,
    }
}

/// What `H5T_set_loc` does to member order when `H5Tvlen_create` takes its base: every
/// compound that needs conversion, reached through arrays and compound members that need it
/// too, gets its members sorted by offset (a stable sort; offsets are distinct).
pub(crate) fn sort_like_set_loc(t: &mut Datatype) {
    if !force_conv(t) {
        return;
    }
    match t {
        Datatype::Array(a) => sort_like_set_loc(&mut a.base),
        Datatype::Compound(c) => {
            c.members.sort_by_key(|m| m.offset);
            for m in &mut c.members {
                sort_like_set_loc(&mut m.datatype);
            }
        }
        _ => {}
    }
}

/// A syntax error at a byte position.
#[cold]
fn syntax(pos: usize, msg: impl Into<String>) -> Error {
    Error::at(ErrorKind::Syntax, pos, msg)
}
