//! The DDL reader: a hand-written lexer and a recursive-descent parser with a depth limit.

use super::syntax;
use crate::compose::encode_int;
use crate::datatype::*;
use crate::predefined;
use crate::{Error, ErrorKind, Result};

/// The deepest nesting of composite types the reader accepts.
pub const MAX_DEPTH: usize = 64;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok<'a> {
    /// A keyword or name: `[A-Za-z_][A-Za-z0-9_]*`.
    Ident(&'a str),
    /// An integer literal: `-?[0-9]+` or `0x[0-9a-fA-F]+`, kept as text.
    Number(&'a str),
    /// A quoted string, unescaped.
    Str(String),
    /// One of `{ } [ ] : ; ,`.
    Punct(char),
    Eof,
}

fn describe(t: &Tok<'_>) -> String {
    match t {
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Number(s) => format!("number {s}"),
        Tok::Str(s) => format!("string {s:?}"),
        Tok::Punct(c) => format!("`{c}`"),
        Tok::Eof => "end of text".to_owned(),
    }
}

fn lex(src: &str) -> Result<Vec<(Tok<'_>, usize)>> {
    let bytes = src.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let start = i;
        match b {
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c' => {
                i += 1;
                continue;
            }
            b'{' | b'}' | b'[' | b']' | b':' | b';' | b',' => {
                toks.push((Tok::Punct(b as char), start));
                i += 1;
            }
            b'"' => {
                i += 1;
                let mut s = String::new();
                let mut run = i;
                loop {
                    match bytes.get(i) {
                        None => return Err(syntax(start, "unterminated string")),
                        Some(b'"') => {
                            s.push_str(src.get(run..i).unwrap_or_default());
                            i += 1;
                            break;
                        }
                        Some(b'\\') if matches!(bytes.get(i + 1), Some(b'"') | Some(b'\\')) => {
                            s.push_str(src.get(run..i).unwrap_or_default());
                            s.push(bytes.get(i + 1).map_or('\\', |&c| c as char));
                            i += 2;
                            run = i;
                        }
                        Some(_) => i += 1,
                    }
                }
                toks.push((Tok::Str(s), start));
            }
            b'-' | b'0'..=b'9' => {
                i += 1;
                if b == b'0' && matches!(bytes.get(i), Some(b'x') | Some(b'X')) {
                    i += 1;
                    while bytes.get(i).is_some_and(u8::is_ascii_hexdigit) {
                        i += 1;
                    }
                    if i == start + 2 {
                        return Err(syntax(start, "`0x` without hexadecimal digits"));
                    }
                } else {
                    while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                        i += 1;
                    }
                    if i == start + 1 && b == b'-' {
                        return Err(syntax(start, "`-` without digits"));
                    }
                }
                if bytes
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                {
                    return Err(syntax(i, "unexpected character in a number"));
                }
                toks.push((Tok::Number(src.get(start..i).unwrap_or_default()), start));
            }
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => {
                while bytes
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                {
                    i += 1;
                }
                toks.push((Tok::Ident(src.get(start..i).unwrap_or_default()), start));
            }
            _ => {
                let c = src
                    .get(start..)
                    .and_then(|s| s.chars().next())
                    .unwrap_or('?');
                return Err(syntax(start, format!("unexpected character {c:?}")));
            }
        }
    }
    toks.push((Tok::Eof, src.len()));
    Ok(toks)
}

struct Parser<'a> {
    toks: Vec<(Tok<'a>, usize)>,
    at: usize,
    depth: usize,
}

/// Parse one datatype filling the whole text.
pub(super) fn parse(src: &str) -> Result<Datatype> {
    let mut p = Parser {
        toks: lex(src)?,
        at: 0,
        depth: 0,
    };
    let t = p.ty()?;
    match p.peek() {
        Tok::Eof => Ok(t),
        other => Err(syntax(
            p.pos(),
            format!("unexpected {} after the datatype", describe(other)),
        )),
    }
}

/// Put a position on an error from a constructor.
fn at(pos: usize) -> impl Fn(Error) -> Error {
    move |e| e.with_position(pos)
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &Tok<'a> {
        self.toks.get(self.at).map_or(&Tok::Eof, |(t, _)| t)
    }

    fn pos(&self) -> usize {
        self.toks
            .get(self.at)
            .or_else(|| self.toks.last())
            .map_or(0, |(_, p)| *p)
    }

    fn next(&mut self) -> (Tok<'a>, usize) {
        let pos = self.pos();
        let t = self.peek().clone();
        if self.at < self.toks.len() {
            self.at += 1;
        }
        (t, pos)
    }

    fn punct(&mut self, c: char) -> Result<usize> {
        let (t, pos) = self.next();
        if t == Tok::Punct(c) {
            Ok(pos)
        } else {
            Err(syntax(
                pos,
                format!("expected `{c}`, found {}", describe(&t)),
            ))
        }
    }

    fn eat(&mut self, c: char) -> bool {
        if *self.peek() == Tok::Punct(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn ident(&mut self, what: &str) -> Result<(&'a str, usize)> {
        match self.next() {
            (Tok::Ident(s), pos) => Ok((s, pos)),
            (t, pos) => Err(syntax(
                pos,
                format!("expected {what}, found {}", describe(&t)),
            )),
        }
    }

    /// A number as a signed 128-bit integer.
    fn int(&mut self, what: &str) -> Result<(i128, usize)> {
        match self.next() {
            (Tok::Number(s), pos) => {
                if s.starts_with("0x") || s.starts_with("0X") {
                    return Err(syntax(
                        pos,
                        format!("expected {what} in decimal, found {s}"),
                    ));
                }
                s.parse::<i128>()
                    .map(|v| (v, pos))
                    .map_err(|_| syntax(pos, format!("{what} {s} is out of range")))
            }
            (t, pos) => Err(syntax(
                pos,
                format!("expected {what}, found {}", describe(&t)),
            )),
        }
    }

    /// A non-negative number that fits `usize`.
    fn size(&mut self, what: &str) -> Result<(usize, usize)> {
        let (v, pos) = self.int(what)?;
        usize::try_from(v)
            .map(|v| (v, pos))
            .map_err(|_| syntax(pos, format!("{what} {v} is out of range")))
    }

    /// A quoted string, or an identifier where a name is expected.
    fn name(&mut self, what: &str) -> Result<(String, usize)> {
        match self.next() {
            (Tok::Str(s), pos) => Ok((s, pos)),
            (Tok::Ident(s), pos) => Ok((s.to_owned(), pos)),
            (t, pos) => Err(syntax(
                pos,
                format!("expected {what}, found {}", describe(&t)),
            )),
        }
    }

    fn ty(&mut self) -> Result<Datatype> {
        let (word, pos) = self.ident("a datatype")?;
        if self.depth >= MAX_DEPTH {
            return Err(syntax(
                pos,
                format!("datatype nesting is deeper than {MAX_DEPTH} levels"),
            ));
        }
        self.depth += 1;
        let r = self.ty_after(word, pos);
        self.depth -= 1;
        r
    }

    fn ty_after(&mut self, word: &'a str, pos: usize) -> Result<Datatype> {
        match word {
            "H5T_STRING" => self.string(),
            "H5T_OPAQUE" => self.opaque(pos),
            "H5T_ENUM" => self.enumeration(),
            "H5T_COMPOUND" => self.compound(),
            "H5T_ARRAY" => self.array(),
            "H5T_VLEN" => {
                self.punct('{')?;
                let mut base = self.ty()?;
                self.punct('}')?;
                // As H5Tvlen_create does through H5T_set_loc.
                super::sort_like_set_loc(&mut base);
                Ok(VarLenType::new(base).into())
            }
            "H5T_COMPLEX" => {
                self.punct('{')?;
                let base_pos = self.pos();
                let base = self.ty()?;
                self.punct('}')?;
                match base {
                    Datatype::Float(f) => Ok(ComplexType::new(f).into()),
                    other => Err(Error::at(
                        ErrorKind::WrongClass,
                        base_pos,
                        format!(
                            "the parts of a complex type must be floats, not {}",
                            other.class().name()
                        ),
                    )),
                }
            }
            "H5T_REFERENCE" => self.reference(),
            "H5T_INTEGER" | "H5T_FLOAT" | "H5T_BITFIELD" | "H5T_TIME" => self.extended(word, pos),
            name => predefined::by_name(name)
                .ok_or_else(|| syntax(pos, format!("unknown datatype `{name}`"))),
        }
    }

    fn string(&mut self) -> Result<Datatype> {
        self.punct('{')?;
        let mut size: Option<StringSize> = None;
        let mut pad: Option<StrPad> = None;
        let mut cset: Option<CharSet> = None;
        let mut ctype: Option<StringType> = None;
        let mut seen: Vec<&str> = Vec::new();
        while !self.eat('}') {
            let (key, kpos) = self.ident("a string property")?;
            if seen.contains(&key) {
                return Err(syntax(kpos, format!("{key} given twice")));
            }
            seen.push(key);
            match key {
                "STRSIZE" => {
                    if let Tok::Ident("H5T_VARIABLE") = self.peek() {
                        self.at += 1;
                        size = Some(StringSize::Variable);
                    } else {
                        let (n, npos) = self.size("string size")?;
                        if n == 0 {
                            return Err(Error::at(
                                ErrorKind::InvalidArgument,
                                npos,
                                "string size must be positive",
                            ));
                        }
                        size = Some(StringSize::Fixed(n));
                    }
                }
                "STRPAD" => {
                    let (v, vpos) = self.ident("a string padding")?;
                    pad = Some(match v {
                        "H5T_STR_NULLTERM" => StrPad::NullTerm,
                        "H5T_STR_NULLPAD" => StrPad::NullPad,
                        "H5T_STR_SPACEPAD" => StrPad::SpacePad,
                        _ => return Err(syntax(vpos, format!("unknown string padding `{v}`"))),
                    });
                }
                "CSET" => {
                    let (v, vpos) = self.ident("a character set")?;
                    cset = Some(match v {
                        "H5T_CSET_ASCII" => CharSet::Ascii,
                        "H5T_CSET_UTF8" => CharSet::Utf8,
                        _ => return Err(syntax(vpos, format!("unknown character set `{v}`"))),
                    });
                }
                "CTYPE" => {
                    let (v, vpos) = self.ident("a string type")?;
                    ctype = Some(match v {
                        "H5T_C_S1" => predefined::C_S1,
                        "H5T_FORTRAN_S1" => predefined::FORTRAN_S1,
                        _ => return Err(syntax(vpos, format!("unknown string type `{v}`"))),
                    });
                }
                _ => return Err(syntax(kpos, format!("unknown string property `{key}`"))),
            }
            self.punct(';')?;
        }
        let start = ctype.unwrap_or(predefined::C_S1);
        let Some(size) = size else {
            return Err(syntax(self.prev_pos(), "string type without STRSIZE"));
        };
        Ok(StringType {
            size,
            pad: pad.unwrap_or(start.pad),
            cset: cset.unwrap_or(start.cset),
        }
        .into())
    }

    /// Position of the token just consumed.
    fn prev_pos(&self) -> usize {
        self.at
            .checked_sub(1)
            .and_then(|i| self.toks.get(i))
            .map_or(0, |(_, p)| *p)
    }

    fn opaque(&mut self, pos: usize) -> Result<Datatype> {
        self.punct('{')?;
        let mut size: Option<(usize, usize)> = None;
        let mut tag: Option<String> = None;
        while !self.eat('}') {
            let kpos = self.pos();
            match self.peek().clone() {
                Tok::Ident(k @ ("OPQ_SIZE" | "OPAQUE_SIZE")) => {
                    self.at += 1;
                    if size.is_some() {
                        return Err(syntax(kpos, format!("{k} given twice")));
                    }
                    size = Some(self.size("opaque size")?);
                    self.punct(';')?;
                }
                Tok::Ident(k @ ("OPQ_TAG" | "OPAQUE_TAG")) => {
                    self.at += 1;
                    if tag.is_some() {
                        return Err(syntax(kpos, format!("{k} given twice")));
                    }
                    tag = Some(self.name("an opaque tag")?.0);
                    self.punct(';')?;
                }
                Tok::Str(s) if tag.is_none() => {
                    // The older form `H5T_OPAQUE { "tag" }`.
                    self.at += 1;
                    tag = Some(s);
                    self.eat(';');
                }
                t => {
                    return Err(syntax(
                        kpos,
                        format!("expected OPQ_SIZE or OPQ_TAG, found {}", describe(&t)),
                    ))
                }
            }
        }
        let Some((size, spos)) = size else {
            return Err(syntax(pos, "opaque type without a size (OPQ_SIZE)"));
        };
        OpaqueType::new(size, tag.as_deref().unwrap_or(""))
            .map(Datatype::from)
            .map_err(at(spos))
    }

    fn enumeration(&mut self) -> Result<Datatype> {
        self.punct('{')?;
        let base_pos = self.pos();
        let base = match self.ty()? {
            Datatype::Integer(i) => i,
            other => {
                return Err(Error::at(
                    ErrorKind::WrongClass,
                    base_pos,
                    format!(
                        "the base of an enum must be an integer, not {}",
                        other.class().name()
                    ),
                ))
            }
        };
        self.punct(';')?;
        let mut e = EnumType::new(base);
        while !self.eat('}') {
            let (name, npos) = self.name("an enum symbol")?;
            let value = match self.next() {
                (Tok::Number(s), vpos) if s.starts_with("0x") || s.starts_with("0X") => {
                    let raw = hex_bytes(s.get(2..).unwrap_or_default())
                        .filter(|r| r.len() == base.size())
                        .ok_or_else(|| {
                            syntax(
                                vpos,
                                format!(
                                    "a raw enum value needs exactly {} hexadecimal digits",
                                    2 * base.size()
                                ),
                            )
                        })?;
                    (raw, vpos)
                }
                (Tok::Number(s), vpos) => {
                    let v: i128 = s
                        .parse()
                        .map_err(|_| syntax(vpos, format!("enum value {s} is out of range")))?;
                    let raw = encode_int(&base, v).ok_or_else(|| {
                        Error::at(
                            ErrorKind::InvalidArgument,
                            vpos,
                            format!("enum value {v} of {name:?} does not fit the base type"),
                        )
                    })?;
                    (raw, vpos)
                }
                (t, vpos) => {
                    return Err(syntax(
                        vpos,
                        format!("expected an enum value, found {}", describe(&t)),
                    ))
                }
            };
            e.insert_raw(&name, value.0).map_err(at(npos))?;
            self.punct(';')?;
        }
        Ok(e.into())
    }

    fn compound(&mut self) -> Result<Datatype> {
        self.punct('{')?;
        let mut explicit: Option<usize> = None;
        if let Tok::Ident("SIZE") = self.peek() {
            self.at += 1;
            let (n, npos) = self.size("compound size")?;
            if n == 0 {
                return Err(Error::at(
                    ErrorKind::InvalidArgument,
                    npos,
                    "compound size must be positive",
                ));
            }
            explicit = Some(n);
            self.punct(';')?;
        }
        // (name, offset, type, position) after the layout rules.
        let mut members: Vec<(String, usize, Datatype, usize)> = Vec::new();
        let mut size = 0usize;
        while !self.eat('}') {
            let mpos = self.pos();
            let t = self.ty()?;
            let (name, npos) = self.name("a member name")?;
            let offset = if self.eat(':') {
                Some(self.size("member offset")?.0)
            } else {
                None
            };
            self.punct(';')?;
            let msize = t.size();
            let overflow = || {
                Error::at(
                    ErrorKind::InvalidArgument,
                    mpos,
                    format!("member {name:?} ends past the largest size"),
                )
            };
            let offset = match explicit {
                // Literal offsets; a member without one goes after the furthest member.
                Some(_) => offset.unwrap_or(size),
                // The reference's rules: the first member sits at its offset; a later one
                // without an offset or at offset 0 is appended at the current size.
                None if members.is_empty() => offset.unwrap_or(0),
                None => match offset {
                    Some(o) if o != 0 => o,
                    _ => size,
                },
            };
            let end = offset.checked_add(msize).ok_or_else(overflow)?;
            size = size.max(end);
            members.push((name, offset, t, npos));
        }
        let total = explicit.unwrap_or(if members.is_empty() { 1 } else { size });
        let mut c = CompoundType::new(total)?;
        for (name, offset, t, npos) in members {
            c.insert(&name, offset, t).map_err(at(npos))?;
        }
        Ok(c.into())
    }

    fn array(&mut self) -> Result<Datatype> {
        self.punct('{')?;
        let mut dims = Vec::new();
        let dims_pos = self.pos();
        while self.eat('[') {
            let (d, dpos) = self.int("array dimension")?;
            let d = u64::try_from(d)
                .map_err(|_| syntax(dpos, format!("array dimension {d} is out of range")))?;
            dims.push(d);
            self.punct(']')?;
            if dims.len() > crate::compose::MAX_ARRAY_RANK {
                return Err(Error::at(
                    ErrorKind::InvalidArgument,
                    dpos,
                    format!("array rank exceeds {}", crate::compose::MAX_ARRAY_RANK),
                ));
            }
        }
        if dims.is_empty() {
            return Err(syntax(dims_pos, "array type without dimensions"));
        }
        let base = self.ty()?;
        self.punct('}')?;
        ArrayType::new(base, &dims)
            .map(Datatype::from)
            .map_err(at(dims_pos))
    }

    fn reference(&mut self) -> Result<Datatype> {
        self.punct('{')?;
        let (k, kpos) = self.ident("a reference type")?;
        let kind = match k {
            "H5T_STD_REF_OBJECT" | "H5T_STD_REF_OBJ" | "H5R_OBJECT" | "H5R_OBJECT1" => {
                ReferenceKind::Object
            }
            "H5T_STD_REF_DSETREG" | "H5R_DATASET_REGION" | "H5R_DATASET_REGION1" => {
                ReferenceKind::DatasetRegion
            }
            "H5T_STD_REF" => ReferenceKind::Revised,
            "H5R_OBJECT2" => ReferenceKind::Object2,
            "H5R_DATASET_REGION2" => ReferenceKind::DatasetRegion2,
            "H5R_ATTR" => ReferenceKind::Attribute,
            _ => return Err(syntax(kpos, format!("unknown reference type `{k}`"))),
        };
        let mut r = ReferenceType::new(kind);
        if let Tok::Ident("SIZE") = self.peek() {
            self.at += 1;
            let (n, npos) = self.size("reference size")?;
            if n == 0 {
                return Err(Error::at(
                    ErrorKind::InvalidArgument,
                    npos,
                    "reference size must be positive",
                ));
            }
            r = ReferenceType::with_size(kind, n);
            self.punct(';')?;
        }
        self.punct('}')?;
        Ok(r.into())
    }

    /// `H5T_INTEGER { .. }`, `H5T_FLOAT { .. }`, `H5T_BITFIELD { .. }`, `H5T_TIME { .. }`.
    fn extended(&mut self, class: &str, pos: usize) -> Result<Datatype> {
        self.punct('{')?;
        let mut props: Vec<(&'a str, Tok<'a>, usize)> = Vec::new();
        while !self.eat('}') {
            let (key, kpos) = self.ident("a property name")?;
            if props.iter().any(|(k, _, _)| *k == key) {
                return Err(syntax(kpos, format!("{key} given twice")));
            }
            let (value, vpos) = self.next();
            if !matches!(value, Tok::Ident(_) | Tok::Number(_)) {
                return Err(syntax(
                    vpos,
                    format!("expected a value for {key}, found {}", describe(&value)),
                ));
            }
            props.push((key, value, vpos));
            self.punct(';')?;
        }
        let allowed: &[&str] = match class {
            "H5T_INTEGER" => &[
                "SIZE",
                "ORDER",
                "PRECISION",
                "OFFSET",
                "LSB_PAD",
                "MSB_PAD",
                "SIGN",
            ],
            "H5T_BITFIELD" => &["SIZE", "ORDER", "PRECISION", "OFFSET", "LSB_PAD", "MSB_PAD"],
            "H5T_TIME" => &["SIZE", "ORDER", "PRECISION"],
            _ => &[
                "SIZE",
                "ORDER",
                "PRECISION",
                "OFFSET",
                "LSB_PAD",
                "MSB_PAD",
                "SIGN_POS",
                "EXP_POS",
                "EXP_SIZE",
                "MANT_POS",
                "MANT_SIZE",
                "EXP_BIAS",
                "NORM",
                "INPAD",
            ],
        };
        let props = Props { list: props };
        for (k, _, p) in &props.list {
            if !allowed.contains(k) {
                return Err(syntax(*p, format!("{class} has no property {k}")));
            }
        }
        let Some(size) = props.num("SIZE")? else {
            return Err(syntax(pos, format!("{class} without SIZE")));
        };
        if size.0 == 0 {
            return Err(Error::at(
                ErrorKind::InvalidArgument,
                size.1,
                "size must be positive",
            ));
        }
        let size = size.0;
        let bits = size
            .checked_mul(8)
            .ok_or_else(|| Error::at(ErrorKind::InvalidArgument, pos, "size is too large"))?;
        let order = match props.word("ORDER")? {
            None => ByteOrder::LittleEndian,
            Some(("H5T_ORDER_LE", _)) => ByteOrder::LittleEndian,
            Some(("H5T_ORDER_BE", _)) => ByteOrder::BigEndian,
            Some(("H5T_ORDER_VAX", _)) if class == "H5T_FLOAT" => ByteOrder::Vax,
            Some((w, p)) => return Err(syntax(p, format!("invalid byte order `{w}`"))),
        };
        let precision = props.num("PRECISION")?.map_or(bits, |v| v.0);
        let offset = props.num("OFFSET")?.map_or(0, |v| v.0);
        let check = |ok: bool, msg: String| -> Result<()> {
            if ok {
                Ok(())
            } else {
                Err(Error::at(ErrorKind::InvalidArgument, pos, msg))
            }
        };
        check(
            precision > 0 && offset.checked_add(precision).is_some_and(|e| e <= bits),
            format!("precision {precision} at offset {offset} does not fit {size} bytes"),
        )?;
        let atomic = Atomic {
            size,
            order,
            precision,
            offset,
            lsb_pad: props.pad("LSB_PAD")?,
            msb_pad: props.pad("MSB_PAD")?,
        };
        match class {
            "H5T_INTEGER" => {
                let sign = match props.word("SIGN")? {
                    None | Some(("H5T_SGN_2", _)) => Sign::TwosComplement,
                    Some(("H5T_SGN_NONE", _)) => Sign::None,
                    Some((w, p)) => return Err(syntax(p, format!("invalid sign `{w}`"))),
                };
                Ok(IntegerType { atomic, sign }.into())
            }
            "H5T_BITFIELD" => Ok(BitfieldType { atomic }.into()),
            "H5T_TIME" => Ok(TimeType::new(size, order, precision).into()),
            _ => {
                // Defaults: an IEEE-like split of the precision.
                let default_esize = match precision {
                    0..=8 => 4,
                    9..=16 => 5,
                    17..=32 => 8,
                    33..=64 => 11,
                    _ => 15,
                }
                .min(precision.saturating_sub(2).max(1));
                let get = |k: &str, d: usize| props.num(k).map(|v| v.map_or(d, |v| v.0));
                let sign_pos = get("SIGN_POS", offset + precision - 1)?;
                let exp_size = get("EXP_SIZE", default_esize)?;
                let mant_pos = get("MANT_POS", offset)?;
                let mant_size = get(
                    "MANT_SIZE",
                    precision.saturating_sub(exp_size.saturating_add(1)),
                )?;
                let exp_pos = get("EXP_POS", mant_pos.saturating_add(mant_size))?;
                let exp_bias = match props.get("EXP_BIAS") {
                    None => {
                        if exp_size == 0 || exp_size > 64 {
                            0
                        } else {
                            (1u64 << (exp_size - 1)) - 1
                        }
                    }
                    Some((Tok::Number(s), p)) => s
                        .parse::<u64>()
                        .map_err(|_| syntax(*p, format!("invalid exponent bias {s}")))?,
                    Some((_, p)) => return Err(syntax(*p, "expected a number for EXP_BIAS")),
                };
                let norm = match props.word("NORM")? {
                    None | Some(("H5T_NORM_IMPLIED", _)) => Norm::Implied,
                    Some(("H5T_NORM_MSBSET", _)) => Norm::MsbSet,
                    Some(("H5T_NORM_NONE", _)) => Norm::None,
                    Some((w, p)) => return Err(syntax(p, format!("invalid normalization `{w}`"))),
                };
                let inpad = props.pad("INPAD")?;
                let t = FloatType {
                    atomic,
                    sign_pos,
                    exp_pos,
                    exp_size,
                    mant_pos,
                    mant_size,
                    exp_bias,
                    norm,
                    inpad,
                };
                // The model's own invariants decide (fields inside the type, no overlap).
                t.validate()
                    .map_err(|e| Error::at(e.kind(), pos, e.message()))?;
                Ok(t.into())
            }
        }
    }
}

struct Props<'a> {
    list: Vec<(&'a str, Tok<'a>, usize)>,
}

impl<'a> Props<'a> {
    fn get(&self, key: &str) -> Option<(&Tok<'a>, &usize)> {
        self.list
            .iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, v, p)| (v, p))
    }

    fn num(&self, key: &str) -> Result<Option<(usize, usize)>> {
        match self.get(key) {
            None => Ok(None),
            Some((Tok::Number(s), &p)) => s
                .parse::<usize>()
                .map(|v| Some((v, p)))
                .map_err(|_| syntax(p, format!("invalid {key} {s}"))),
            Some((_, &p)) => Err(syntax(p, format!("expected a number for {key}"))),
        }
    }

    fn word(&self, key: &str) -> Result<Option<(&'a str, usize)>> {
        match self.get(key) {
            None => Ok(None),
            Some((Tok::Ident(s), &p)) => Ok(Some((s, p))),
            Some((_, &p)) => Err(syntax(p, format!("expected a name for {key}"))),
        }
    }

    fn pad(&self, key: &str) -> Result<Pad> {
        Ok(match self.word(key)? {
            None | Some(("H5T_PAD_ZERO", _)) => Pad::Zero,
            Some(("H5T_PAD_ONE", _)) => Pad::One,
            Some(("H5T_PAD_BACKGROUND", _)) => Pad::Background,
            Some((w, p)) => return Err(syntax(p, format!("invalid padding `{w}`"))),
        })
    }
}

fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len() / 2)
        .map(|i| {
            s.get(2 * i..2 * i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        })
        .collect()
}
