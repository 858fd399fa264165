//! netCDF's external types and attribute values, and how they sit on HDF5 datatypes.

use h5_io::vlen::string_bytes;
use h5_types::convert::Converter;
use h5_types::h5type::decode_slice;
use h5_types::{
    ByteOrder, CharSet, Datatype, FloatType, H5Type, IntegerType, Sign, StrPad, StringType,
};

use crate::convert::Src;
use crate::error::{Error, ErrorKind, Result};

/// A netCDF-4 external type (`nc_type`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NcType {
    /// `NC_BYTE`: 8-bit signed integer.
    Byte,
    /// `NC_CHAR`: 8-bit character (text).
    Char,
    /// `NC_SHORT`: 16-bit signed integer.
    Short,
    /// `NC_INT`: 32-bit signed integer.
    Int,
    /// `NC_FLOAT`: 32-bit IEEE float.
    Float,
    /// `NC_DOUBLE`: 64-bit IEEE float.
    Double,
    /// `NC_UBYTE`: 8-bit unsigned integer.
    UByte,
    /// `NC_USHORT`: 16-bit unsigned integer.
    UShort,
    /// `NC_UINT`: 32-bit unsigned integer.
    UInt,
    /// `NC_INT64`: 64-bit signed integer.
    Int64,
    /// `NC_UINT64`: 64-bit unsigned integer.
    UInt64,
    /// `NC_STRING`: variable-length string.
    String,
    /// A user-defined type (enum, compound, opaque, variable-length), as stored.
    User(Datatype),
}

impl NcType {
    /// The type of an HDF5 datatype, as netcdf-c maps it: integers and floats by size and
    /// sign (other float sizes, e.g. half floats, are not netCDF types), a one-byte fixed
    /// string is `char`, any other string is `string`, everything else a user type.
    pub fn of(dt: &Datatype) -> NcType {
        match dt {
            Datatype::Integer(i) => match (i.size(), i.is_signed()) {
                (1, true) => NcType::Byte,
                (1, false) => NcType::UByte,
                (2, true) => NcType::Short,
                (2, false) => NcType::UShort,
                (4, true) => NcType::Int,
                (4, false) => NcType::UInt,
                (8, true) => NcType::Int64,
                (8, false) => NcType::UInt64,
                _ => NcType::User(dt.clone()),
            },
            Datatype::Float(f) => match f.size() {
                4 => NcType::Float,
                8 => NcType::Double,
                _ => NcType::User(dt.clone()),
            },
            Datatype::String(s) if !s.is_variable() && dt.size() == 1 => NcType::Char,
            Datatype::String(_) => NcType::String,
            _ => NcType::User(dt.clone()),
        }
    }

    /// The CDL name (`byte`, `char`, ..., `string`; a user type's class).
    pub fn name(&self) -> &str {
        match self {
            NcType::Byte => "byte",
            NcType::Char => "char",
            NcType::Short => "short",
            NcType::Int => "int",
            NcType::Float => "float",
            NcType::Double => "double",
            NcType::UByte => "ubyte",
            NcType::UShort => "ushort",
            NcType::UInt => "uint",
            NcType::Int64 => "int64",
            NcType::UInt64 => "uint64",
            NcType::String => "string",
            NcType::User(dt) => match dt {
                Datatype::Enum(_) => "enum",
                Datatype::Compound(_) => "compound",
                Datatype::Opaque(_) => "opaque",
                Datatype::VarLen(_) => "vlen",
                _ => "user",
            },
        }
    }

    /// Whether values of this type convert to numbers.
    pub fn is_numeric(&self) -> bool {
        !matches!(self, NcType::Char | NcType::String | NcType::User(_))
    }

    /// The HDF5 datatype netcdf-c writes for this type (little-endian, as on the machines
    /// netCDF4-python runs on; `char` a one-byte null-terminated ASCII string; `string` a
    /// variable-length UTF-8 string).
    pub fn h5_type(&self) -> Datatype {
        let int = |size, sign| IntegerType::new(size, ByteOrder::LittleEndian, sign).into();
        match self {
            NcType::Byte => int(1, Sign::TwosComplement),
            NcType::UByte => int(1, Sign::None),
            NcType::Short => int(2, Sign::TwosComplement),
            NcType::UShort => int(2, Sign::None),
            NcType::Int => int(4, Sign::TwosComplement),
            NcType::UInt => int(4, Sign::None),
            NcType::Int64 => int(8, Sign::TwosComplement),
            NcType::UInt64 => int(8, Sign::None),
            NcType::Float => FloatType::ieee(4, ByteOrder::LittleEndian, 8, 23).into(),
            NcType::Double => FloatType::ieee(8, ByteOrder::LittleEndian, 11, 52).into(),
            NcType::Char => StringType::fixed(1, StrPad::NullTerm, CharSet::Ascii).into(),
            NcType::String => StringType::variable(StrPad::NullTerm, CharSet::Utf8).into(),
            NcType::User(dt) => dt.clone(),
        }
    }

    /// netCDF's default fill value of the type (`NC_FILL_BYTE`...), none for user types.
    pub fn default_fill(&self) -> Option<NcValue> {
        Some(match self {
            NcType::Byte => NcValue::Byte(vec![-127]),
            NcType::Char => NcValue::Char(vec![0]),
            NcType::Short => NcValue::Short(vec![-32767]),
            NcType::Int => NcValue::Int(vec![-2147483647]),
            NcType::Float => NcValue::Float(vec![9.969_21e36]),
            NcType::Double => NcValue::Double(vec![9.969_209_968_386_869e36]),
            NcType::UByte => NcValue::UByte(vec![255]),
            NcType::UShort => NcValue::UShort(vec![65535]),
            NcType::UInt => NcValue::UInt(vec![4294967295]),
            NcType::Int64 => NcValue::Int64(vec![-9223372036854775806]),
            NcType::UInt64 => NcValue::UInt64(vec![18446744073709551614]),
            NcType::String => NcValue::Strings(vec![String::new()]),
            NcType::User(_) => return None,
        })
    }
}

/// The values of an attribute (or a fill value), in their netCDF type.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum NcValue {
    /// `byte` values.
    Byte(Vec<i8>),
    /// `ubyte` values.
    UByte(Vec<u8>),
    /// `short` values.
    Short(Vec<i16>),
    /// `ushort` values.
    UShort(Vec<u16>),
    /// `int` values.
    Int(Vec<i32>),
    /// `uint` values.
    UInt(Vec<u32>),
    /// `int64` values.
    Int64(Vec<i64>),
    /// `uint64` values.
    UInt64(Vec<u64>),
    /// `float` values.
    Float(Vec<f32>),
    /// `double` values.
    Double(Vec<f64>),
    /// `char` text, as bytes.
    Char(Vec<u8>),
    /// `string` values.
    Strings(Vec<String>),
    /// Values of a user type: the datatype and the raw bytes as stored.
    Other(Datatype, Vec<u8>),
}

impl NcValue {
    /// Text (`char`) from a string.
    pub fn text(s: &str) -> NcValue {
        NcValue::Char(s.as_bytes().to_vec())
    }

    /// The netCDF type of the values.
    pub fn nc_type(&self) -> NcType {
        match self {
            NcValue::Byte(_) => NcType::Byte,
            NcValue::UByte(_) => NcType::UByte,
            NcValue::Short(_) => NcType::Short,
            NcValue::UShort(_) => NcType::UShort,
            NcValue::Int(_) => NcType::Int,
            NcValue::UInt(_) => NcType::UInt,
            NcValue::Int64(_) => NcType::Int64,
            NcValue::UInt64(_) => NcType::UInt64,
            NcValue::Float(_) => NcType::Float,
            NcValue::Double(_) => NcType::Double,
            NcValue::Char(_) => NcType::Char,
            NcValue::Strings(_) => NcType::String,
            NcValue::Other(dt, _) => NcType::User(dt.clone()),
        }
    }

    /// The number of values (bytes of text).
    pub fn len(&self) -> usize {
        match self {
            NcValue::Byte(v) => v.len(),
            NcValue::UByte(v) => v.len(),
            NcValue::Short(v) => v.len(),
            NcValue::UShort(v) => v.len(),
            NcValue::Int(v) => v.len(),
            NcValue::UInt(v) => v.len(),
            NcValue::Int64(v) => v.len(),
            NcValue::UInt64(v) => v.len(),
            NcValue::Float(v) => v.len(),
            NcValue::Double(v) => v.len(),
            NcValue::Char(v) => v.len(),
            NcValue::Strings(v) => v.len(),
            NcValue::Other(dt, raw) => raw.len().checked_div(dt.size()).unwrap_or(0),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The text of a `char` value (lossy UTF-8), or of a single `string`.
    pub fn as_text(&self) -> Option<String> {
        match self {
            NcValue::Char(b) => Some(String::from_utf8_lossy(b).into_owned()),
            NcValue::Strings(s) if s.len() == 1 => Some(s[0].clone()),
            _ => None,
        }
    }

    /// The numeric values as doubles (none for text and user types).
    pub fn as_f64s(&self) -> Option<Vec<f64>> {
        self.srcs()
            .map(|v| v.into_iter().map(Src::as_f64).collect())
    }

    /// The numeric values, in their own type.
    pub(crate) fn srcs(&self) -> Option<Vec<Src>> {
        fn m<T: Copy>(v: &[T], f: impl Fn(T) -> Src) -> Option<Vec<Src>> {
            Some(v.iter().map(|&x| f(x)).collect())
        }
        match self {
            NcValue::Byte(v) => m(v, |x| Src::I(x.into())),
            NcValue::UByte(v) => m(v, |x| Src::U(x.into())),
            NcValue::Short(v) => m(v, |x| Src::I(x.into())),
            NcValue::UShort(v) => m(v, |x| Src::U(x.into())),
            NcValue::Int(v) => m(v, |x| Src::I(x.into())),
            NcValue::UInt(v) => m(v, |x| Src::U(x.into())),
            NcValue::Int64(v) => m(v, Src::I),
            NcValue::UInt64(v) => m(v, Src::U),
            NcValue::Float(v) => m(v, Src::F32),
            NcValue::Double(v) => m(v, Src::F64),
            _ => None,
        }
    }

    /// The values' HDF5 datatype and little-endian image, and the heap of variable-length
    /// strings (written through the facade's typed writes instead).
    pub(crate) fn image(&self) -> Option<Vec<u8>> {
        fn le<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Option<Vec<u8>> {
            Some(v.iter().flat_map(|&x| f(x)).collect())
        }
        match self {
            NcValue::Byte(v) => le(v, i8::to_le_bytes),
            NcValue::UByte(v) => Some(v.clone()),
            NcValue::Short(v) => le(v, i16::to_le_bytes),
            NcValue::UShort(v) => le(v, u16::to_le_bytes),
            NcValue::Int(v) => le(v, i32::to_le_bytes),
            NcValue::UInt(v) => le(v, u32::to_le_bytes),
            NcValue::Int64(v) => le(v, i64::to_le_bytes),
            NcValue::UInt64(v) => le(v, u64::to_le_bytes),
            NcValue::Float(v) => le(v, f32::to_le_bytes),
            NcValue::Double(v) => le(v, f64::to_le_bytes),
            NcValue::Char(v) => Some(v.clone()),
            NcValue::Strings(_) => None,
            NcValue::Other(_, raw) => Some(raw.clone()),
        }
    }
}

/// Convert `n` values of `dt` in `raw` to `T` (lossless by the callers' choice of `T`).
fn typed<T: H5Type>(dt: &Datatype, raw: &[u8]) -> Result<Vec<T>> {
    let target = T::h5_type();
    let n = raw.len().checked_div(dt.size()).unwrap_or(0);
    let conv = Converter::new(dt, &target)?;
    let mut out = vec![0u8; n.saturating_mul(target.size())];
    conv.convert(
        raw,
        &mut out,
        n,
        &mut h5_types::convert::ConversionOptions::default(),
    )?;
    Ok(decode_slice::<T>(
        &out,
        &h5_types::convert::VarLenHeap::new(),
    )?)
}

/// The values of a numeric variable's raw data in their own type.
pub(crate) fn decode_srcs(ty: &NcType, dt: &Datatype, raw: &[u8]) -> Result<Vec<Src>> {
    Ok(match ty {
        NcType::Byte | NcType::Short | NcType::Int | NcType::Int64 => {
            typed::<i64>(dt, raw)?.into_iter().map(Src::I).collect()
        }
        NcType::UByte | NcType::UShort | NcType::UInt | NcType::UInt64 => {
            typed::<u64>(dt, raw)?.into_iter().map(Src::U).collect()
        }
        NcType::Float => typed::<f32>(dt, raw)?.into_iter().map(Src::F32).collect(),
        NcType::Double => typed::<f64>(dt, raw)?.into_iter().map(Src::F64).collect(),
        other => {
            return Err(Error::new(
                ErrorKind::BadType,
                format!("values of type {} are not numbers", other.name()),
            ))
        }
    })
}

/// Values of `ty` from their raw bytes in `dt` (`file` resolves variable-length strings).
pub(crate) fn decode_value(
    file: &h5_io::File,
    ty: &NcType,
    dt: &Datatype,
    raw: &[u8],
) -> Result<NcValue> {
    Ok(match ty {
        NcType::Byte => NcValue::Byte(typed(dt, raw)?),
        NcType::UByte => NcValue::UByte(typed(dt, raw)?),
        NcType::Short => NcValue::Short(typed(dt, raw)?),
        NcType::UShort => NcValue::UShort(typed(dt, raw)?),
        NcType::Int => NcValue::Int(typed(dt, raw)?),
        NcType::UInt => NcValue::UInt(typed(dt, raw)?),
        NcType::Int64 => NcValue::Int64(typed(dt, raw)?),
        NcType::UInt64 => NcValue::UInt64(typed(dt, raw)?),
        NcType::Float => NcValue::Float(typed(dt, raw)?),
        NcType::Double => NcValue::Double(typed(dt, raw)?),
        NcType::Char => NcValue::Char(raw.to_vec()),
        NcType::String => NcValue::Strings(
            string_bytes(file, dt, raw)?
                .into_iter()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .collect(),
        ),
        NcType::User(dt) => NcValue::Other(dt.clone(), raw.to_vec()),
    })
}

/// An attribute's value as netcdf-c reads it: a fixed-length string attribute with one
/// element is `char` text (all its bytes), other strings are `string`s.
pub(crate) fn attribute_value(a: &h5_io::Attribute) -> Result<NcValue> {
    let (raw, dt) = a.read_raw();
    match &dt {
        // Every byte of the string's size, as netcdf-c reads it (a NUL included).
        Datatype::String(s) if !s.is_variable() && a.dataspace().npoints() <= 1 => {
            Ok(NcValue::Char(raw))
        }
        _ => decode_value(a.file(), &NcType::of(&dt), &dt, &raw),
    }
}
