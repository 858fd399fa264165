//! Values as h5py hands them to h5grove, and h5grove's encodings of them: JSON as orjson
//! writes numpy values, the raw bytes (`bin`), `npy` (`numpy.save`) and `csv`
//! (`numpy.savetxt`).
//!
//! h5py maps file types to numpy dtypes (an array datatype's dimensions join the dataset's
//! shape; an enum of `FALSE`/`TRUE` is `bool`; a compound of two floats `r`, `i` is complex);
//! the JSON follows orjson: numpy arrays and scalars of native byte order are written
//! natively (a `float32` with its shortest `float32` digits), everything else through
//! `tolist()` (Python floats, so `float64` digits), bytes decoded as UTF-8, references as
//! their `repr`, and NaN and infinities as `null`.

use h5::types::convert::VarLenHeap;
use h5::types::datatype::{ByteOrder, ReferenceKind, StringSize};
use h5::Datatype;

use crate::error::{ApiError, Result};

/// Selected elements in memory: the element datatype (variable-length parts as handles into
/// `heap`), their bytes, and the shape of the result.
#[derive(Debug)]
pub struct Values {
    /// The element type (an array datatype's base when its dimensions joined the shape).
    pub dtype: Datatype,
    /// The elements, packed.
    pub bytes: Vec<u8>,
    /// Variable-length contents.
    pub heap: VarLenHeap,
    /// The shape (empty for a scalar).
    pub shape: Vec<u64>,
    /// A null dataspace: h5py's `Empty`.
    pub empty: bool,
}

/// What a numeric numpy dtype is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numeric {
    /// `b1`
    Bool,
    /// `iN`
    Int(usize, ByteOrder),
    /// `uN`
    UInt(usize, ByteOrder),
    /// `fN`
    Float(usize, ByteOrder),
    /// `cN` (two floats of N/2 bytes)
    Complex(usize, ByteOrder),
}

impl Numeric {
    /// The element size in bytes.
    pub fn size(self) -> usize {
        match self {
            Numeric::Bool => 1,
            Numeric::Int(n, _) | Numeric::UInt(n, _) | Numeric::Float(n, _) => n,
            Numeric::Complex(n, _) => n,
        }
    }

    pub(crate) fn order(self) -> ByteOrder {
        match self {
            Numeric::Bool => ByteOrder::LittleEndian,
            Numeric::Int(_, o) | Numeric::UInt(_, o) | Numeric::Float(_, o) => o,
            Numeric::Complex(_, o) => o,
        }
    }

    /// numpy's `dtype.str`.
    pub fn dtype_str(self) -> String {
        let (k, n) = match self {
            Numeric::Bool => ('b', 1),
            Numeric::Int(n, _) => ('i', n),
            Numeric::UInt(n, _) => ('u', n),
            Numeric::Float(n, _) => ('f', n),
            Numeric::Complex(n, _) => ('c', n),
        };
        format!("{}{k}{n}", order_char(n, self.order()))
    }

    /// h5grove's `dtype=safe` (`_sanitize_dtype`): float16 to float32, floats wider than 8
    /// bytes to float64, then little-endian.
    pub fn safe(self) -> Numeric {
        use ByteOrder::LittleEndian as Le;
        match self {
            Numeric::Float(n, _) if n < 4 => Numeric::Float(4, Le),
            Numeric::Float(n, _) if n > 8 => Numeric::Float(8, Le),
            Numeric::Float(n, _) => Numeric::Float(n, Le),
            Numeric::Int(n, _) => Numeric::Int(n, Le),
            Numeric::UInt(n, _) => Numeric::UInt(n, Le),
            Numeric::Complex(n, _) => Numeric::Complex(n, Le),
            Numeric::Bool => Numeric::Bool,
        }
    }
}

fn order_char(size: usize, order: ByteOrder) -> char {
    if size == 1 {
        '|'
    } else if order == ByteOrder::BigEndian {
        '>'
    } else {
        '<'
    }
}

/// Whether an enum is h5py's `bool` (members `FALSE` = 0 and `TRUE` = 1).
pub fn is_bool_enum(dt: &Datatype) -> bool {
    let Datatype::Enum(e) = dt else { return false };
    let value =
        |m: &h5::types::datatype::EnumMember| int_of(m.raw_value(), e.base().order(), false);
    let names: Vec<(&str, Option<i128>)> =
        e.members().iter().map(|m| (m.name(), value(m))).collect();
    names.len() == 2 && names.contains(&("FALSE", Some(0))) && names.contains(&("TRUE", Some(1)))
}

/// The float size of a compound h5py reads as complex: two members `r` (offset 0) and `i`
/// (offset size/2) of one float type.
fn complex_part(dt: &Datatype) -> Option<(usize, ByteOrder)> {
    let c = dt.as_compound()?;
    let [r, i] = c.members() else { return None };
    let (Datatype::Float(fr), Datatype::Float(fi)) = (r.datatype(), i.datatype()) else {
        return None;
    };
    let n = fr.atomic().size();
    (r.name() == "r"
        && i.name() == "i"
        && fr == fi
        && r.offset() == 0
        && i.offset() == n
        && c.size() == 2 * n
        && matches!(n, 4 | 8))
    .then_some((n, fr.atomic().order()))
}

/// The numeric numpy dtype h5py gives elements of `dt`, if numeric.
pub fn numeric(dt: &Datatype) -> Option<Numeric> {
    Some(match dt {
        Datatype::Integer(i) if i.is_signed() => Numeric::Int(i.size(), i.order()),
        Datatype::Integer(i) => Numeric::UInt(i.size(), i.order()),
        Datatype::Float(f) => Numeric::Float(f.atomic().size(), f.atomic().order()),
        Datatype::Bitfield(b) => Numeric::UInt(b.size(), b.order()),
        Datatype::Enum(_) if is_bool_enum(dt) => Numeric::Bool,
        Datatype::Enum(e) => {
            let b = e.base();
            if b.is_signed() {
                Numeric::Int(b.size(), b.order())
            } else {
                Numeric::UInt(b.size(), b.order())
            }
        }
        Datatype::Compound(_) => {
            let (n, o) = complex_part(dt)?;
            Numeric::Complex(2 * n, o)
        }
        _ => return None,
    })
}

/// numpy's `dtype.str` of the dtype h5py maps `dt` to (h5grove's `stringify_dtype` for
/// types without fields).
pub fn dtype_str(dt: &Datatype) -> String {
    if let Some(n) = numeric(dt) {
        return n.dtype_str();
    }
    match dt {
        Datatype::String(s) => match s.string_size() {
            StringSize::Fixed(n) => format!("|S{n}"),
            StringSize::Variable => "|O".into(),
        },
        Datatype::Reference(_) | Datatype::VarLen(_) => "|O".into(),
        Datatype::Complex(c) => {
            let a = c.base().atomic();
            format!("{}c{}", order_char(2 * a.size(), a.order()), 2 * a.size())
        }
        other => format!("|V{}", other.size()),
    }
}

fn int_of(b: &[u8], order: ByteOrder, signed: bool) -> Option<i128> {
    if b.is_empty() || b.len() > 8 {
        return None;
    }
    let mut a = [0u8; 8];
    let n = b.len();
    if order == ByteOrder::BigEndian {
        for (k, &x) in b.iter().rev().enumerate() {
            a[k] = x;
        }
    } else {
        a[..n].copy_from_slice(b);
    }
    let u = u64::from_le_bytes(a);
    if signed && n < 8 && (u >> (8 * n - 1)) & 1 == 1 {
        Some(u as i128 - (1i128 << (8 * n)))
    } else if signed && n == 8 {
        Some(u as i64 as i128)
    } else {
        Some(u as i128)
    }
}

fn le_bytes<const N: usize>(b: &[u8], order: ByteOrder) -> Option<[u8; N]> {
    let mut a: [u8; N] = b.get(..N)?.try_into().ok()?;
    if order == ByteOrder::BigEndian {
        a.reverse();
    }
    Some(a)
}

/// A float element as `f64`, and whether it is a `float32`'s (or `float16`'s) value.
fn float_of(b: &[u8], n: usize, order: ByteOrder) -> Option<(f64, bool)> {
    Some(match n {
        2 => (
            f16_to_f32(u16::from_le_bytes(le_bytes(b, order)?)) as f64,
            true,
        ),
        4 => (f32::from_le_bytes(le_bytes(b, order)?) as f64, true),
        8 => (f64::from_le_bytes(le_bytes(b, order)?), false),
        _ => return None,
    })
}

/// IEEE half to single precision (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let mant = (h & 0x3ff) as u32;
    let bits = match (exp, mant) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: value m * 2^-24.
            let v = m as f32 * (1.0 / 16_777_216.0);
            return if sign != 0 { -v } else { v };
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, m) => sign | 0x7fc0_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// Single to half precision, rounding to nearest even (numpy's `npy_float_to_half`).
pub fn f32_to_f16(v: f32) -> u16 {
    let x = v.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let mant = x & 0x007f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if mant != 0 { 0x0200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = mant | 0x0080_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rem = m & ((1u32 << shift) - 1);
        let mut h = m >> shift;
        if rem > half || (rem == half && h & 1 == 1) {
            h += 1;
        }
        return sign | h as u16;
    }
    let rem = mant & 0x1fff;
    let mut h = ((e as u32) << 10) | (mant >> 13);
    if rem > 0x1000 || (rem == 0x1000 && h & 1 == 1) {
        h += 1;
    }
    sign | h as u16
}

/// A JSON writer with orjson's number forms.
pub struct Json {
    /// The text so far.
    pub out: String,
}

impl Json {
    /// An empty writer.
    pub fn new() -> Json {
        Json { out: String::new() }
    }

    /// A string, escaped as orjson does.
    pub fn string(&mut self, s: &str) {
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\t' => self.out.push_str("\\t"),
                '\u{8}' => self.out.push_str("\\b"),
                '\u{c}' => self.out.push_str("\\f"),
                c if (c as u32) < 0x20 => self.out.push_str(&format!("\\u{:04x}", c as u32)),
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    /// A float: `null` when not finite, else the shortest digits of its own width.
    pub fn float(&mut self, v: f64, single: bool) {
        if !v.is_finite() {
            self.out.push_str("null");
        } else if single {
            self.push_float(format!("{:?}", v as f32));
        } else {
            self.push_float(format!("{v:?}"));
        }
    }

    fn push_float(&mut self, s: String) {
        self.out.push_str(&s);
    }

    /// Raw text (a number, `null`, punctuation).
    pub fn raw(&mut self, s: &str) {
        self.out.push_str(s);
    }
}

impl Default for Json {
    fn default() -> Self {
        Json::new()
    }
}

/// Bytes as h5grove's `bytes.decode()` (UTF-8, strict).
fn decode_utf8(b: &[u8]) -> Result<&str> {
    std::str::from_utf8(b).map_err(|e| {
        ApiError::internal(format!(
            "'utf-8' codec can't decode byte 0x{:02x} in position {}: invalid start byte",
            b.get(e.valid_up_to()).copied().unwrap_or(0),
            e.valid_up_to()
        ))
    })
}

/// numpy's `S` items: trailing NULs dropped.
fn trim_nul(b: &[u8]) -> &[u8] {
    let end = b.iter().rposition(|&c| c != 0).map_or(0, |p| p + 1);
    &b[..end]
}

/// Write one element of memory type `dt` from `b`. `native` says orjson writes it as part of
/// a numpy array or scalar (rather than a Python value from `tolist()`).
pub fn element(
    j: &mut Json,
    dt: &Datatype,
    b: &[u8],
    heap: &VarLenHeap,
    native: bool,
) -> Result<()> {
    let short = || ApiError::internal("element shorter than its datatype");
    if let Some(n) = numeric(dt) {
        match n {
            Numeric::Bool => j.raw(if b.first().copied().unwrap_or(0) != 0 {
                "true"
            } else {
                "false"
            }),
            Numeric::Int(s, o) | Numeric::UInt(s, o) => {
                let v = int_of(
                    b.get(..s).ok_or_else(short)?,
                    o,
                    matches!(n, Numeric::Int(..)),
                )
                .ok_or_else(|| ApiError::internal(format!("integers of {s} bytes")))?;
                j.raw(&v.to_string());
            }
            Numeric::Float(s, o) => {
                let (v, single) = float_of(b, s, o)
                    .ok_or_else(|| ApiError::internal(format!("floats of {s} bytes")))?;
                // orjson writes native-order arrays itself; others go through Python floats.
                j.float(v, single && native && o == ByteOrder::LittleEndian);
            }
            Numeric::Complex(s, o) => {
                let h = s / 2;
                let (re, _) = float_of(b, h, o).ok_or_else(short)?;
                let (im, _) = float_of(b.get(h..).ok_or_else(short)?, h, o).ok_or_else(short)?;
                j.raw("[");
                j.float(re, false);
                j.raw(",");
                j.float(im, false);
                j.raw("]");
            }
        }
        return Ok(());
    }
    match dt {
        Datatype::String(s) => {
            let bytes = match s.string_size() {
                StringSize::Fixed(n) => trim_nul(b.get(..n).ok_or_else(short)?),
                StringSize::Variable => heap
                    .string_of(b)
                    .map_err(|e| ApiError::internal(e.to_string()))?,
            };
            j.string(decode_utf8(bytes)?);
        }
        Datatype::Opaque(o) => j.string(decode_utf8(b.get(..o.size()).ok_or_else(short)?)?),
        Datatype::Reference(r) => {
            let null = b.iter().take(r.size()).all(|&x| x == 0);
            let kind = match r.kind() {
                ReferenceKind::DatasetRegion | ReferenceKind::DatasetRegion2 => "region",
                _ => "object",
            };
            let tail = if null { " (null)" } else { "" };
            j.string(&format!("<HDF5 {kind} reference{tail}>"));
        }
        Datatype::Compound(c) => {
            j.raw("[");
            for (k, m) in c.members().iter().enumerate() {
                if k > 0 {
                    j.raw(",");
                }
                let at = b.get(m.offset()..).ok_or_else(short)?;
                // tolist() of a structured array: fields become Python values.
                element(j, m.datatype(), at, heap, false)?;
            }
            j.raw("]");
        }
        Datatype::Array(a) => {
            let base = a.base();
            let n = base.size();
            let dims: Vec<u64> = a.dims().to_vec();
            nested(j, &dims, &mut b.chunks(n.max(1)), &mut |j, e| {
                element(j, base, e, heap, true)
            })?;
        }
        Datatype::VarLen(v) => {
            let (count, bytes) = heap
                .sequence_of(b)
                .map_err(|e| ApiError::internal(e.to_string()))?;
            let base = v.base();
            let n = base.size().max(1);
            j.raw("[");
            for (k, e) in bytes.chunks(n).take(count).enumerate() {
                if k > 0 {
                    j.raw(",");
                }
                element(j, base, e, heap, true)?;
            }
            j.raw("]");
        }
        other => {
            return Err(ApiError::internal(format!(
                "Object of type {} is not JSON serializable",
                dtype_str(other)
            )))
        }
    }
    Ok(())
}

/// Write elements from `items` as nested lists of `shape`.
fn nested<'a>(
    j: &mut Json,
    shape: &[u64],
    items: &mut dyn Iterator<Item = &'a [u8]>,
    each: &mut dyn FnMut(&mut Json, &'a [u8]) -> Result<()>,
) -> Result<()> {
    match shape.split_first() {
        None => {
            let e = items
                .next()
                .ok_or_else(|| ApiError::internal("fewer elements than the shape"))?;
            each(j, e)
        }
        Some((&n, rest)) => {
            j.raw("[");
            for k in 0..n {
                if k > 0 {
                    j.raw(",");
                }
                nested(j, rest, items, each)?;
            }
            j.raw("]");
            Ok(())
        }
    }
}

impl Values {
    /// The element size in bytes.
    pub fn esize(&self) -> usize {
        self.dtype.size()
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        let n = self.shape.iter().fold(1u64, |a, &d| a.saturating_mul(d));
        usize::try_from(n).unwrap_or(usize::MAX)
    }

    /// The numeric dtype of the elements, if numeric (and not h5py's `Empty`).
    pub fn numeric(&self) -> Option<Numeric> {
        if self.empty {
            return None;
        }
        numeric(&self.dtype)
    }

    /// The JSON h5grove sends (`flatten`: one list, except for scalars).
    pub fn json(&self, flatten: bool) -> Result<String> {
        let mut j = Json::new();
        if self.empty {
            j.raw("null");
            return Ok(j.out);
        }
        if let Some(n) = self.numeric() {
            // orjson refuses numpy arrays of non-native byte order.
            if !self.shape.is_empty() && n.size() > 1 && n.order() == ByteOrder::BigEndian {
                return Err(ApiError::internal("unsupported datatype in numpy array"));
            }
        }
        let shape: Vec<u64> = if flatten && !self.shape.is_empty() {
            vec![self.len() as u64]
        } else {
            self.shape.clone()
        };
        let n = self.esize().max(1);
        let mut items = self.bytes.chunks(n);
        nested(&mut j, &shape, &mut items, &mut |j, e| {
            element(j, &self.dtype, e, &self.heap, true)
        })?;
        Ok(j.out)
    }

    /// Convert numeric elements to `to` (`dtype=safe`): byte order and float width.
    pub fn convert(&mut self, from: Numeric, to: Numeric) -> Result<()> {
        if from == to {
            return Ok(());
        }
        let (fs, ts) = (from.size(), to.size());
        let mut out = Vec::with_capacity(self.len() * ts);
        for e in self.bytes.chunks(fs.max(1)) {
            match (from, to) {
                (Numeric::Float(s, o), Numeric::Float(t, _)) => {
                    let (v, _) = float_of(e, s, o)
                        .ok_or_else(|| ApiError::internal(format!("floats of {s} bytes")))?;
                    if t == 4 {
                        out.extend_from_slice(&(v as f32).to_le_bytes());
                    } else {
                        out.extend_from_slice(&v.to_le_bytes());
                    }
                }
                (Numeric::Complex(s, o), _) => {
                    let h = s / 2;
                    for part in e.chunks(h) {
                        let mut p = part.to_vec();
                        if o == ByteOrder::BigEndian {
                            p.reverse();
                        }
                        out.extend_from_slice(&p);
                    }
                }
                _ => {
                    let mut p = e.to_vec();
                    if from.order() == ByteOrder::BigEndian {
                        p.reverse();
                    }
                    out.extend_from_slice(&p);
                }
            }
        }
        self.bytes = out;
        self.dtype = datatype_of(to)?;
        Ok(())
    }
}

/// The datatype of a numeric dtype (for converted values).
fn datatype_of(n: Numeric) -> Result<Datatype> {
    use h5::types::datatype::{FloatType, IntegerType, Sign};
    Ok(match n {
        Numeric::Bool | Numeric::UInt(..) => {
            Datatype::Integer(IntegerType::new(n.size(), n.order(), Sign::None))
        }
        Numeric::Int(s, o) => Datatype::Integer(IntegerType::new(s, o, Sign::TwosComplement)),
        Numeric::Float(4, o) => Datatype::Float(FloatType::ieee(4, o, 8, 23)),
        Numeric::Float(_, o) => Datatype::Float(FloatType::ieee(8, o, 11, 52)),
        Numeric::Complex(s, o) => {
            let part = if s == 8 {
                FloatType::ieee(4, o, 8, 23)
            } else {
                FloatType::ieee(8, o, 11, 52)
            };
            let bad = |e: h5::types::Error| ApiError::internal(e.to_string());
            let mut c = h5::types::CompoundType::new(s).map_err(bad)?;
            c.insert("r", 0, Datatype::Float(part)).map_err(bad)?;
            c.insert("i", s / 2, Datatype::Float(part)).map_err(bad)?;
            Datatype::Compound(c)
        }
    })
}

/// `numpy.save` of numeric values: the version 1.0 header (with numpy's spare room for the
/// first dimension to grow) and the bytes.
pub fn npy(values: &Values, n: Numeric) -> Vec<u8> {
    let shape = match values.shape.as_slice() {
        [] => "()".to_string(),
        [d] => format!("({d},)"),
        dims => format!(
            "({})",
            dims.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}",
        n.dtype_str()
    );
    if let Some(first) = values.shape.first() {
        let digits = first.to_string().len();
        header.push_str(&" ".repeat(21usize.saturating_sub(digits)));
    }
    let used = 10 + header.len() + 1;
    let pad = (64 - used % 64) % 64;
    header.push_str(&" ".repeat(pad));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + values.bytes.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&values.bytes);
    out
}

/// A baseline TIFF (little-endian, one uncompressed strip, `MinIsBlack`) of 2-D numeric
/// values, as `tifffile.imwrite(..., photometric="minisblack")` stores the pixels.
pub fn tiff(values: &Values, n: Numeric) -> Result<Vec<u8>> {
    let [rows, cols] = values.shape[..] else {
        return Err(ApiError::internal(format!(
            "tiff of {}-D data: h5 serve writes 2-D images only",
            values.shape.len()
        )));
    };
    let (format, bits) = match n {
        Numeric::Bool => (1u16, 1u16),
        Numeric::UInt(z, _) => (1, 8 * z as u16),
        Numeric::Int(z, _) => (2, 8 * z as u16),
        Numeric::Float(z, _) if z <= 8 => (3, 8 * z as u16),
        other => {
            return Err(ApiError::internal(format!(
                "tiff of {} data",
                other.dtype_str()
            )))
        }
    };
    let (rows, cols) = (
        u32::try_from(rows).map_err(|_| ApiError::internal("image too tall"))?,
        u32::try_from(cols).map_err(|_| ApiError::internal("image too wide"))?,
    );
    // Pixels little-endian, as the header says.
    let mut pixels = values.bytes.clone();
    if n == Numeric::Bool {
        // One bit per pixel, most significant first, each row padded to a byte (as
        // tifffile writes booleans).
        let c = cols as usize;
        let per_row = c.div_ceil(8);
        let mut packed = vec![0u8; per_row * rows as usize];
        for (k, &b) in values.bytes.iter().enumerate() {
            if b != 0 && c > 0 {
                let (r, col) = (k / c, k % c);
                if let Some(byte) = packed.get_mut(r * per_row + col / 8) {
                    *byte |= 0x80 >> (col % 8);
                }
            }
        }
        pixels = packed;
    }
    if n.size() > 1 && n.order() == ByteOrder::BigEndian {
        for e in pixels.chunks_mut(n.size()) {
            e.reverse();
        }
    }
    let data_len =
        u32::try_from(pixels.len()).map_err(|_| ApiError::internal("image over 4 GiB"))?;
    let tags: [(u16, u16, u32); 10] = [
        (256, 4, cols),              // ImageWidth, LONG
        (257, 4, rows),              // ImageLength
        (258, 3, u32::from(bits)),   // BitsPerSample, SHORT
        (259, 3, 1),                 // Compression: none
        (262, 3, 1),                 // PhotometricInterpretation: MinIsBlack
        (273, 4, 0),                 // StripOffsets (filled below)
        (277, 3, 1),                 // SamplesPerPixel
        (278, 4, rows),              // RowsPerStrip
        (279, 4, data_len),          // StripByteCounts
        (339, 3, u32::from(format)), // SampleFormat
    ];
    let ifd_len = 2 + 12 * tags.len() + 4;
    let data_at = 8 + ifd_len as u32;
    let mut out = Vec::with_capacity(data_at as usize + pixels.len());
    out.extend_from_slice(b"II*\0");
    out.extend_from_slice(&8u32.to_le_bytes());
    out.extend_from_slice(&(tags.len() as u16).to_le_bytes());
    for (tag, kind, value) in tags {
        let value = if tag == 273 { data_at } else { value };
        out.extend_from_slice(&tag.to_le_bytes());
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        if kind == 3 {
            out.extend_from_slice(&(value as u16).to_le_bytes());
            out.extend_from_slice(&[0, 0]);
        } else {
            out.extend_from_slice(&value.to_le_bytes());
        }
    }
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&pixels);
    Ok(out)
}

/// Python's `'%.18e' % v`.
fn percent_e18(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let s = format!("{v:.18e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    format!("{mant}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// `numpy.savetxt(..., delimiter=",")` of 1-D or 2-D numeric values.
pub fn csv(values: &Values, n: Numeric) -> Result<Vec<u8>> {
    let cols = match values.shape.as_slice() {
        [_] => 1,
        [_, c] => *c as usize,
        dims => {
            return Err(ApiError::internal(format!(
                "Expected 1D or 2D array, got {}D array instead",
                dims.len()
            )))
        }
    };
    let s = n.size().max(1);
    let mut out = String::new();
    if let Numeric::Complex(z, o) = n {
        // numpy.savetxt's complex form: ` (RE+IMj)` per column, `+-` written `-`.
        for (k, e) in values.bytes.chunks(s).enumerate() {
            let re = float_of(e, z / 2, o).map_or(f64::NAN, |p| p.0);
            let im = e
                .get(z / 2..)
                .and_then(|b| float_of(b, z / 2, o))
                .map_or(f64::NAN, |p| p.0);
            let cell = format!(" ({}+{}j)", percent_e18(re), percent_e18(im)).replace("+-", "-");
            out.push_str(&cell);
            out.push(if cols == 0 || (k + 1) % cols == 0 {
                '\n'
            } else {
                ','
            });
        }
        return Ok(out.into_bytes());
    }
    for (k, e) in values.bytes.chunks(s).enumerate() {
        let v = match n {
            Numeric::Bool => e.first().map_or(0.0, |&b| f64::from(u8::from(b != 0))),
            Numeric::Int(_, o) | Numeric::UInt(_, o) => {
                int_of(e, o, matches!(n, Numeric::Int(..))).unwrap_or(0) as f64
            }
            Numeric::Float(z, o) => float_of(e, z, o).map_or(f64::NAN, |p| p.0),
            Numeric::Complex(..) => 0.0,
        };
        out.push_str(&percent_e18(v));
        out.push(if cols == 0 || (k + 1) % cols == 0 {
            '\n'
        } else {
            ','
        });
    }
    Ok(out.into_bytes())
}

/// The numeric elements as `f64` (for statistics), and whether they are integers.
pub fn as_f64(values: &Values, n: Numeric) -> Vec<f64> {
    let s = n.size().max(1);
    values
        .bytes
        .chunks(s)
        .map(|e| match n {
            Numeric::Bool => e.first().map_or(0.0, |&b| f64::from(u8::from(b != 0))),
            Numeric::Int(_, o) => int_of(e, o, true).unwrap_or(0) as f64,
            Numeric::UInt(_, o) => int_of(e, o, false).unwrap_or(0) as f64,
            Numeric::Float(z, o) => float_of(e, z, o).map_or(f64::NAN, |p| p.0),
            Numeric::Complex(z, o) => float_of(e, z / 2, o).map_or(f64::NAN, |p| p.0),
        })
        .collect()
}

/// Complex elements as (real, imaginary) pairs.
pub fn as_complex(values: &Values, n: Numeric) -> Vec<(f64, f64)> {
    let Numeric::Complex(z, o) = n else {
        return Vec::new();
    };
    values
        .bytes
        .chunks(z.max(2))
        .map(|e| {
            let re = float_of(e, z / 2, o).map_or(f64::NAN, |p| p.0);
            let im = e
                .get(z / 2..)
                .and_then(|b| float_of(b, z / 2, o))
                .map_or(f64::NAN, |p| p.0);
            (re, im)
        })
        .collect()
}

/// The integer elements exactly.
pub fn as_i128(values: &Values, n: Numeric) -> Vec<i128> {
    let s = n.size().max(1);
    values
        .bytes
        .chunks(s)
        .map(|e| match n {
            Numeric::Bool => i128::from(e.first().is_some_and(|&b| b != 0)),
            Numeric::Int(_, o) => int_of(e, o, true).unwrap_or(0),
            Numeric::UInt(_, o) => int_of(e, o, false).unwrap_or(0),
            _ => 0,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_header_is_numpys() {
        let v = Values {
            dtype: datatype_of(Numeric::Float(8, ByteOrder::LittleEndian)).unwrap(),
            bytes: vec![0; 80],
            heap: VarLenHeap::new(),
            shape: vec![10],
            empty: false,
        };
        let b = npy(&v, Numeric::Float(8, ByteOrder::LittleEndian));
        assert_eq!((b.len() - 80) % 64, 0);
        assert!(String::from_utf8_lossy(&b[10..])
            .starts_with("{'descr': '<f8', 'fortran_order': False, 'shape': (10,), }"));
    }

    #[test]
    fn formats_as_python() {
        assert_eq!(percent_e18(1.0), "1.000000000000000000e+00");
        assert_eq!(percent_e18(-2.5e-7), "-2.499999999999999887e-07");
        assert_eq!(percent_e18(1e300), "1.000000000000000053e+300");
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        let mut j = Json::new();
        j.float(0.1f32 as f64, true);
        j.raw(",");
        j.float(0.1f32 as f64, false);
        j.raw(",");
        j.float(f64::NAN, false);
        assert_eq!(j.out, "0.1,0.10000000149011612,null");
    }
}
