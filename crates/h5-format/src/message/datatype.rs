//! The Datatype message (0x0003), versions 1 to 5, decoded into and encoded from
//! [`h5_types::Datatype`] for every class.

use super::scoped;
use crate::cursor::{Cursor, Writer};
use crate::{limits, Error, ErrorKind, Result, Sizes};
use h5_types::raw::FloatFields;
use h5_types::{
    ArrayType, Atomic, BitfieldType, ByteOrder, CharSet, ComplexType, CompoundType, Datatype,
    EnumType, FloatType, IntegerType, Norm, OpaqueType, Pad, ReferenceKind, ReferenceType, Sign,
    StrPad, StringSize, StringType, TimeType, VarLenType,
};

/// The newest datatype message version this implementation reads and writes.
pub const LATEST_VERSION: u8 = 5;

/// "Encoding version" of revised references (bits 4-7 of the class bit field). The
/// specification ties revised references to datatype version 4, but the reference library
/// writes them with version 1 messages too; both are read.
pub const REFERENCE_ENCODING_VERSION: u8 = 1;

/// The Datatype message: a datatype and the message version it is (to be) encoded with.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DatatypeMessage {
    /// "Version" (1 to 5). Encoding raises it to [`min_version`] of the type when lower.
    pub version: u8,
    /// The datatype.
    pub datatype: Datatype,
}

impl DatatypeMessage {
    /// A message with the lowest version able to describe `datatype`.
    pub fn new(datatype: Datatype) -> Self {
        DatatypeMessage {
            version: min_version(&datatype),
            datatype,
        }
    }

    /// Parse the message.
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "datatype message", |c| {
            let (datatype, version) = parse_datatype(c, 0)?;
            Ok(DatatypeMessage { version, datatype })
        })
    }

    /// Encode the message.
    pub fn encode(&self, w: &mut Writer) {
        encode_datatype(&self.datatype, self.version, w);
    }
}

/// The lowest message version that can describe `dt`: 3 for VAX floats, 5 for complex
/// numbers, 2 for arrays (except compound members of rank 4 or
/// less, which version 1 stores in its member array fields), 1 otherwise.
pub fn min_version(dt: &Datatype) -> u8 {
    min_version_in(dt, false)
}

fn min_version_in(dt: &Datatype, compound_member: bool) -> u8 {
    match dt {
        Datatype::Float(f) if f.order() == ByteOrder::Vax => 3,
        Datatype::Complex(c) => 5u8.max(min_version_in(&Datatype::Float(*c.base()), false)),
        Datatype::Compound(c) => c
            .members()
            .iter()
            .map(|m| min_version_in(m.datatype(), true))
            .max()
            .unwrap_or(1),
        Datatype::Enum(_) => 1,
        Datatype::VarLen(v) => min_version_in(v.base(), false),
        Datatype::Array(a) => {
            let base = min_version_in(a.base(), false);
            let old_style = compound_member
                && a.rank() <= 4
                && !matches!(a.base(), Datatype::Array(_))
                && a.dims().iter().all(|&d| d <= u64::from(u32::MAX));
            if old_style {
                base
            } else {
                base.max(2)
            }
        }
        _ => 1,
    }
}

/// The size in bytes of one element of `dt` as stored in a file with these sizes (the
/// "Size" field of its datatype message): variable-length values are global heap
/// references (4 + size of offsets + 4 bytes).
pub fn disk_size(dt: &Datatype, sizes: Sizes) -> u64 {
    match dt {
        Datatype::String(s) if s.is_variable() => vlen_disk_size(sizes),
        Datatype::VarLen(_) => vlen_disk_size(sizes),
        Datatype::Array(a) => a.len().saturating_mul(disk_size(a.base(), sizes)),
        Datatype::Reference(r) if r.kind() == ReferenceKind::Revised => {
            revised_ref_disk_size(sizes)
        }
        other => other.size() as u64,
    }
}

fn vlen_disk_size(sizes: Sizes) -> u64 {
    4 + u64::from(sizes.offset) + 4
}

fn revised_ref_disk_size(sizes: Sizes) -> u64 {
    4 + u64::from(sizes.offset) + 4
}

fn dt_err(c: &Cursor, at: u64, e: h5_types::Error) -> Error {
    c.error_at(ErrorKind::Datatype, at, e.to_string())
}

fn pad_of(bit: bool) -> Pad {
    if bit {
        Pad::One
    } else {
        Pad::Zero
    }
}

fn pad_bit(p: Pad) -> u32 {
    u32::from(p == Pad::One)
}

fn order_of(bit: bool) -> ByteOrder {
    if bit {
        ByteOrder::BigEndian
    } else {
        ByteOrder::LittleEndian
    }
}

/// Bytes to encode a compound member offset in version 3: the fewest that hold `size`.
fn offset_width(size: u64) -> usize {
    let bits = 64 - size.leading_zeros() as usize;
    (bits.saturating_sub(1) / 8) + 1
}

/// Read a NUL-terminated name; in versions 1 and 2 it is padded to a multiple of 8 bytes.
fn read_name(c: &mut Cursor, version: u8) -> Result<String> {
    let start = c.pos();
    let at = c.offset();
    let raw = c.read_cstr(limits::MAX_NAME_LEN)?;
    if version < 3 {
        let used = c.pos() - start;
        c.skip((8 - used % 8) % 8)?;
    }
    String::from_utf8(raw.to_vec())
        .map_err(|_| c.error_at(ErrorKind::InvalidValue, at, "name is not valid UTF-8"))
}

fn write_name(w: &mut Writer, name: &str, version: u8) {
    w.put_bytes(name.as_bytes());
    w.put_u8(0);
    if version < 3 {
        let used = name.len() + 1;
        w.put_zeros((8 - used % 8) % 8);
    }
}

/// Parse one datatype (header and properties); returns it and its message version.
/// `depth` counts the enclosing datatypes, checked against [`limits::MAX_DATATYPE_DEPTH`].
pub fn parse_datatype(c: &mut Cursor, depth: usize) -> Result<(Datatype, u8)> {
    let at = c.offset();
    if depth > limits::MAX_DATATYPE_DEPTH {
        return Err(c.error(
            ErrorKind::LimitExceeded,
            format!(
                "datatypes nested deeper than {}",
                limits::MAX_DATATYPE_DEPTH
            ),
        ));
    }
    let cv = c.read_u8()?;
    let version = cv >> 4;
    let class = cv & 0x0f;
    if !(1..=LATEST_VERSION).contains(&version) {
        return Err(c.error_at(
            ErrorKind::UnsupportedVersion,
            at,
            format!("datatype version {version}"),
        ));
    }
    let b: [u8; 3] = c.read_array()?;
    let bits = u32::from(b[0]) | (u32::from(b[1]) << 8) | (u32::from(b[2]) << 16);
    let size = c.read_u32()? as usize;
    let bit = |n: u32| bits & (1 << n) != 0;
    let dt: Datatype = match class {
        0 | 4 => {
            let offset = c.read_u16()? as usize;
            let precision = c.read_u16()? as usize;
            let atomic = Atomic::from_parts(
                size,
                order_of(bit(0)),
                precision,
                offset,
                pad_of(bit(1)),
                pad_of(bit(2)),
            )
            .map_err(|e| dt_err(c, at, e))?;
            if class == 0 {
                let sign = if bit(3) {
                    Sign::TwosComplement
                } else {
                    Sign::None
                };
                IntegerType::from_parts(atomic, sign)
                    .map_err(|e| dt_err(c, at, e))?
                    .into()
            } else {
                BitfieldType::from_parts(atomic)
                    .map_err(|e| dt_err(c, at, e))?
                    .into()
            }
        }
        1 => {
            let order = match (bit(0), bit(6)) {
                (false, false) => ByteOrder::LittleEndian,
                (true, false) => ByteOrder::BigEndian,
                (true, true) => ByteOrder::Vax,
                (false, true) => {
                    return Err(c.error_at(
                        ErrorKind::InvalidValue,
                        at,
                        "float byte order bits 0,6 = 0,1",
                    ))
                }
            };
            if order == ByteOrder::Vax && version < 3 {
                return Err(c.error_at(
                    ErrorKind::InvalidValue,
                    at,
                    format!("VAX byte order in datatype version {version}"),
                ));
            }
            let norm = match (bits >> 4) & 3 {
                0 => Norm::None,
                1 => Norm::MsbSet,
                2 => Norm::Implied,
                _ => return Err(c.error_at(ErrorKind::InvalidValue, at, "float normalization 3")),
            };
            let sign_pos = ((bits >> 8) & 0xff) as usize;
            let offset = c.read_u16()? as usize;
            let precision = c.read_u16()? as usize;
            let exp_pos = c.read_u8()? as usize;
            let exp_size = c.read_u8()? as usize;
            let mant_pos = c.read_u8()? as usize;
            let mant_size = c.read_u8()? as usize;
            let exp_bias = u64::from(c.read_u32()?);
            let atomic = Atomic::from_parts(
                size,
                order,
                precision,
                offset,
                pad_of(bit(1)),
                pad_of(bit(2)),
            )
            .map_err(|e| dt_err(c, at, e))?;
            let fields = FloatFields {
                sign_pos,
                exp_pos,
                exp_size,
                mant_pos,
                mant_size,
                exp_bias,
                norm,
                inpad: pad_of(bit(3)),
            };
            FloatType::from_parts(atomic, fields)
                .map_err(|e| dt_err(c, at, e))?
                .into()
        }
        2 => {
            let precision = c.read_u16()? as usize;
            TimeType::new(size, order_of(bit(0)), precision).into()
        }
        3 => {
            if size == 0 {
                return Err(c.error_at(ErrorKind::InvalidValue, at, "string of size 0"));
            }
            let pad = str_pad(c, at, bits & 0xf)?;
            let cset = char_set(c, at, (bits >> 4) & 0xf)?;
            StringType::fixed(size, pad, cset).into()
        }
        5 => {
            let tag_len = (bits & 0xff) as usize;
            let raw = c.read_bytes(tag_len)?;
            let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
            let tag = std::str::from_utf8(&raw[..end])
                .map_err(|_| c.error_at(ErrorKind::InvalidValue, at, "opaque tag is not UTF-8"))?;
            OpaqueType::new(size, tag)
                .map_err(|e| dt_err(c, at, e))?
                .into()
        }
        6 => parse_compound(c, at, version, bits, size, depth)?,
        7 => {
            let kind = match bits & 0xf {
                0 => ReferenceKind::Object,
                1 => ReferenceKind::DatasetRegion,
                2 => ReferenceKind::Object2,
                3 => ReferenceKind::DatasetRegion2,
                4 => ReferenceKind::Attribute,
                t => {
                    return Err(c.error_at(
                        ErrorKind::InvalidValue,
                        at,
                        format!("reference type {t}"),
                    ))
                }
            };
            // The revised kinds carry their encoding version in bits 4-7. The reference
            // library writes them with any message version (1 included), so the message
            // version is not checked.
            if (bits & 0xf) >= 2 {
                let enc = ((bits >> 4) & 0xf) as u8;
                if enc != REFERENCE_ENCODING_VERSION {
                    return Err(c.error_at(
                        ErrorKind::UnsupportedVersion,
                        at,
                        format!("reference encoding version {enc}"),
                    ));
                }
            }
            ReferenceType::with_size(kind, size).into()
        }
        8 => {
            let n = (bits & 0xffff) as u64;
            let (base, _) = parse_datatype(c, depth + 1)?;
            let Datatype::Integer(base) = base else {
                return Err(c.error_at(
                    ErrorKind::Unsupported,
                    at,
                    format!("enum over a {} base", base.class().name()),
                ));
            };
            let bsize = base.size() as u64;
            let count = limits::check_count(
                n,
                bsize.saturating_add(2),
                c.remaining() as u64,
                limits::MAX_MEMBERS as u64,
            )
            .map_err(|m| c.error_at(ErrorKind::LimitExceeded, at, m))?;
            let mut names = Vec::with_capacity(count);
            for _ in 0..count {
                names.push(read_name(c, version)?);
            }
            let mut e = EnumType::new(base);
            for name in names {
                let value = c.read_bytes(bsize as usize)?.to_vec();
                e.insert_raw(&name, value).map_err(|er| dt_err(c, at, er))?;
            }
            e.into()
        }
        9 => {
            let (base, _) = parse_datatype(c, depth + 1)?;
            match bits & 0xf {
                0 => VarLenType::new(base).into(),
                1 => {
                    let pad = str_pad(c, at, (bits >> 4) & 0xf)?;
                    let cset = char_set(c, at, (bits >> 8) & 0xf)?;
                    StringType::variable(pad, cset).into()
                }
                t => return Err(c.error_at(ErrorKind::InvalidValue, at, format!("vlen type {t}"))),
            }
        }
        10 => {
            if version < 2 {
                return Err(c.error_at(ErrorKind::InvalidValue, at, "array in datatype version 1"));
            }
            let rank_at = c.offset();
            let rank = c.read_u8()? as usize;
            if rank == 0 || rank > limits::MAX_RANK {
                return Err(c.error_at(
                    ErrorKind::InvalidValue,
                    rank_at,
                    format!("array rank {rank}"),
                ));
            }
            if version == 2 {
                c.skip(3)?;
            }
            let mut dims = Vec::with_capacity(rank);
            for _ in 0..rank {
                dims.push(u64::from(c.read_u32()?));
            }
            if version == 2 {
                c.skip(4 * rank)?;
            }
            let (base, _) = parse_datatype(c, depth + 1)?;
            ArrayType::new(base, &dims)
                .map_err(|e| dt_err(c, at, e))?
                .into()
        }
        11 => {
            if version < 5 {
                return Err(c.error_at(
                    ErrorKind::InvalidValue,
                    at,
                    format!("complex class in datatype version {version}"),
                ));
            }
            if !bit(0) || (bits >> 1) & 3 != 0 {
                return Err(c.error_at(
                    ErrorKind::Unsupported,
                    at,
                    format!("complex datatype flags {bits:#x} (only homogeneous rectangular)"),
                ));
            }
            let (base, _) = parse_datatype(c, depth + 1)?;
            let Datatype::Float(f) = base else {
                return Err(c.error_at(
                    ErrorKind::InvalidValue,
                    at,
                    format!("complex over a {} base", base.class().name()),
                ));
            };
            if size != 2 * f.size() {
                return Err(c.error_at(
                    ErrorKind::InvalidValue,
                    at,
                    format!("complex size {size} is not twice its base's {}", f.size()),
                ));
            }
            ComplexType::new(f).into()
        }
        other => {
            return Err(c.error_at(
                ErrorKind::InvalidValue,
                at,
                format!("datatype class {other}"),
            ))
        }
    };
    Ok((dt, version))
}

fn str_pad(c: &Cursor, at: u64, v: u32) -> Result<StrPad> {
    Ok(match v {
        0 => StrPad::NullTerm,
        1 => StrPad::NullPad,
        2 => StrPad::SpacePad,
        p => return Err(c.error_at(ErrorKind::InvalidValue, at, format!("string padding {p}"))),
    })
}

fn char_set(c: &Cursor, at: u64, v: u32) -> Result<CharSet> {
    Ok(match v {
        0 => CharSet::Ascii,
        1 => CharSet::Utf8,
        p => return Err(c.error_at(ErrorKind::InvalidValue, at, format!("character set {p}"))),
    })
}

fn parse_compound(
    c: &mut Cursor,
    at: u64,
    version: u8,
    bits: u32,
    size: usize,
    depth: usize,
) -> Result<Datatype> {
    let n = u64::from(bits & 0xffff);
    // Every member takes at least a name byte, an offset byte and an 8-byte datatype header.
    let count = limits::check_count(n, 10, c.remaining() as u64, limits::MAX_MEMBERS as u64)
        .map_err(|m| c.error_at(ErrorKind::LimitExceeded, at, m))?;
    CompoundType::new(size).map_err(|e| dt_err(c, at, e))?;
    // Members are collected and checked together (O(n log n)); a parse error of member i is
    // reported only when members 0..i are sound, as when each was inserted as it was read.
    let mut members = Vec::with_capacity(count);
    let mut starts = Vec::with_capacity(count);
    let mut parse_error = None;
    for _ in 0..count {
        match parse_member(c, version, size, depth) {
            Ok((member_at, m)) => {
                starts.push(member_at);
                members.push(m);
            }
            Err(e) => {
                parse_error = Some(e);
                break;
            }
        }
    }
    let compound = CompoundType::try_from_members(size, members)
        .map_err(|(i, e)| dt_err(c, starts.get(i).copied().unwrap_or(at), e))?;
    if let Some(e) = parse_error {
        return Err(e);
    }
    Ok(compound.into())
}

/// One compound member: its start offset and `(name, offset, type)`.
fn parse_member(
    c: &mut Cursor,
    version: u8,
    size: usize,
    depth: usize,
) -> Result<(u64, (String, usize, Datatype))> {
    {
        let member_at = c.offset();
        let name = read_name(c, version)?;
        let offset = if version >= 3 {
            c.read_uint(offset_width(size as u64))? as usize
        } else {
            c.read_u32()? as usize
        };
        let mut old_dims = Vec::new();
        if version == 1 {
            let rank = c.read_u8()? as usize;
            c.skip(3 + 4 + 4)?;
            let mut all = [0u32; 4];
            for d in &mut all {
                *d = c.read_u32()?;
            }
            if rank > 4 {
                return Err(c.error_at(
                    ErrorKind::InvalidValue,
                    member_at,
                    format!("member {name:?} has array rank {rank} (at most 4)"),
                ));
            }
            old_dims = all[..rank].iter().map(|&d| u64::from(d)).collect();
        }
        let (mut mt, _) = parse_datatype(c, depth + 1)?;
        if !old_dims.is_empty() {
            mt = ArrayType::new(mt, &old_dims)
                .map_err(|e| dt_err(c, member_at, e))?
                .into();
        }
        Ok((member_at, (name, offset, mt)))
    }
}

/// Encode `dt` with message version `version`, raised to [`min_version`] when lower (and
/// capped at [`LATEST_VERSION`]). Nested datatypes use the same version.
pub fn encode_datatype(dt: &Datatype, version: u8, w: &mut Writer) {
    let v = version.max(min_version(dt)).min(LATEST_VERSION);
    encode_inner(dt, v, w);
}

fn header(w: &mut Writer, class: u8, version: u8, bits: u32, size: u64) {
    w.put_u8((version << 4) | class);
    w.put_u8(bits as u8);
    w.put_u8((bits >> 8) as u8);
    w.put_u8((bits >> 16) as u8);
    w.put_u32(size.min(u64::from(u32::MAX)) as u32);
}

fn order_bits(o: ByteOrder) -> u32 {
    match o {
        ByteOrder::LittleEndian => 0,
        ByteOrder::BigEndian => 1,
        ByteOrder::Vax => 1 | (1 << 6),
    }
}

fn encode_inner(dt: &Datatype, v: u8, w: &mut Writer) {
    let sizes = w.sizes();
    match dt {
        Datatype::Integer(t) => {
            let a = t.atomic();
            let bits = order_bits(a.order())
                | (pad_bit(a.lsb_pad()) << 1)
                | (pad_bit(a.msb_pad()) << 2)
                | (u32::from(t.is_signed()) << 3);
            header(w, 0, v, bits, a.size() as u64);
            w.put_u16(a.offset() as u16);
            w.put_u16(a.precision() as u16);
        }
        Datatype::Bitfield(t) => {
            let a = t.atomic();
            let bits =
                order_bits(a.order()) | (pad_bit(a.lsb_pad()) << 1) | (pad_bit(a.msb_pad()) << 2);
            header(w, 4, v, bits, a.size() as u64);
            w.put_u16(a.offset() as u16);
            w.put_u16(a.precision() as u16);
        }
        Datatype::Float(t) => {
            let a = t.atomic();
            let norm = match t.norm() {
                Norm::None => 0,
                Norm::MsbSet => 1,
                Norm::Implied => 2,
            };
            let bits = order_bits(a.order())
                | (pad_bit(a.lsb_pad()) << 1)
                | (pad_bit(a.msb_pad()) << 2)
                | (pad_bit(t.inpad()) << 3)
                | (norm << 4)
                | (((t.sign_pos() as u32) & 0xff) << 8);
            header(w, 1, v, bits, a.size() as u64);
            w.put_u16(a.offset() as u16);
            w.put_u16(a.precision() as u16);
            w.put_u8(t.exp_pos() as u8);
            w.put_u8(t.exp_size() as u8);
            w.put_u8(t.mant_pos() as u8);
            w.put_u8(t.mant_size() as u8);
            w.put_u32(t.exp_bias() as u32);
        }
        Datatype::Time(t) => {
            header(w, 2, v, order_bits(t.order()) & 1, t.size() as u64);
            w.put_u16(t.precision() as u16);
        }
        Datatype::String(s) => {
            let pad = match s.pad() {
                StrPad::NullTerm => 0,
                StrPad::NullPad => 1,
                StrPad::SpacePad => 2,
            };
            let cset = match s.cset() {
                CharSet::Ascii => 0,
                CharSet::Utf8 => 1,
            };
            match s.string_size() {
                StringSize::Fixed(n) => header(w, 3, v, pad | (cset << 4), n as u64),
                StringSize::Variable => {
                    header(w, 9, v, 1 | (pad << 4) | (cset << 8), vlen_disk_size(sizes));
                    // The base of a variable-length string is an unsigned byte.
                    encode_inner(
                        &IntegerType::new(1, ByteOrder::LittleEndian, Sign::None).into(),
                        v,
                        w,
                    );
                }
            }
        }
        Datatype::Opaque(o) => {
            let tag = o.tag().as_bytes();
            let padded = (tag.len().div_ceil(8) * 8).min(248);
            header(w, 5, v, padded as u32, o.size() as u64);
            let n = tag.len().min(padded);
            w.put_bytes(&tag[..n]);
            w.put_zeros(padded - n);
        }
        Datatype::Compound(c) => {
            header(w, 6, v, c.len() as u32 & 0xffff, c.size() as u64);
            for m in c.members() {
                write_name(w, m.name(), v);
                if v >= 3 {
                    w.put_uint(m.offset() as u64, offset_width(c.size() as u64));
                } else {
                    w.put_u32(m.offset() as u32);
                }
                let mut member_type = m.datatype();
                if v == 1 {
                    let mut dims = [0u32; 4];
                    let mut rank = 0;
                    if let Datatype::Array(a) = m.datatype() {
                        rank = a.rank();
                        for (d, &s) in dims.iter_mut().zip(a.dims()) {
                            *d = s as u32;
                        }
                        member_type = a.base();
                    }
                    w.put_u8(rank as u8);
                    w.put_zeros(3 + 4 + 4);
                    for d in dims {
                        w.put_u32(d);
                    }
                }
                encode_inner(member_type, v, w);
            }
        }
        Datatype::Reference(r) => {
            let (ty, size) = match r.kind() {
                ReferenceKind::Object => (0, r.size() as u64),
                ReferenceKind::DatasetRegion => (1, r.size() as u64),
                // The in-memory revised reference is stored as an object reference of the
                // revised encoding, as the reference library does.
                ReferenceKind::Revised => (2, revised_ref_disk_size(sizes)),
                ReferenceKind::Object2 => (2, r.size() as u64),
                ReferenceKind::DatasetRegion2 => (3, r.size() as u64),
                ReferenceKind::Attribute => (4, r.size() as u64),
            };
            let bits = if ty >= 2 {
                ty | (u32::from(REFERENCE_ENCODING_VERSION) << 4)
            } else {
                ty
            };
            header(w, 7, v, bits, size);
        }
        Datatype::Enum(e) => {
            header(w, 8, v, e.len() as u32 & 0xffff, e.size() as u64);
            encode_inner(&Datatype::Integer(*e.base()), v, w);
            for m in e.members() {
                write_name(w, m.name(), v);
            }
            for m in e.members() {
                w.put_bytes(m.raw_value());
            }
        }
        Datatype::VarLen(t) => {
            header(w, 9, v, 0, vlen_disk_size(sizes));
            encode_inner(t.base(), v, w);
        }
        Datatype::Array(a) => {
            header(w, 10, v, 0, disk_size(dt, sizes));
            w.put_u8(a.rank() as u8);
            if v == 2 {
                w.put_zeros(3);
            }
            for &d in a.dims() {
                w.put_u32(d as u32);
            }
            if v == 2 {
                for i in 0..a.rank() {
                    w.put_u32(i as u32);
                }
            }
            encode_inner(a.base(), v, w);
        }
        Datatype::Complex(c) => {
            header(w, 11, v, 1, c.size() as u64);
            encode_inner(&Datatype::Float(*c.base()), v, w);
        }
    }
}

mod encoded_size;
pub use encoded_size::library_encoded_size;

#[cfg(test)]
mod tests;
