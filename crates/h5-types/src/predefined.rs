//! The reference library's predefined datatypes, as Rust values and by name.
//!
//! Every predefined type of HDF5 2.0 is here: the standard integers and bitfields
//! (`H5T_STD_*`), the IEEE floats including half precision (`H5T_IEEE_F16*`), the alternative
//! floats of 2.0 (`H5T_FLOAT_BFLOAT16*`, `H5T_FLOAT_F8E4M3`, `H5T_FLOAT_F8E5M2`), the complex
//! types (`H5T_COMPLEX_IEEE_*`), the strings `H5T_C_S1` and `H5T_FORTRAN_S1`, the references,
//! the UNIX time types, the VAX floats, the architecture aliases (`H5T_INTEL_*`, `H5T_ALPHA_*`,
//! `H5T_MIPS_*`) and the `H5T_NATIVE_*` types of this platform (x86-64 Linux: `char` is signed,
//! `long` is 8 bytes, `long double` is the 80-bit x87 format in 16 bytes, the `FAST` integers of
//! 16 bits and more are 8 bytes).
//!
//! [`by_name`] finds any of them by its C name; [`ddl_name`] gives the name the DDL text uses
//! for an atomic type (what `H5LTdtype_to_text` prints for it), if it has one.
//!
//! The FP8 types carry no flag of their own: `H5T_FLOAT_F8E4M3` (OCP E4M3) is the 8-bit layout
//! sign 7, exponent 3..7 (bias 7), mantissa 0..3 with an implied leading bit; in that format the
//! all-ones exponent holds normal numbers too (it has no infinities, only NaN at
//! `S.1111.111`), which matters to conversions, not to the layout described here.

use crate::datatype::*;

const LE: ByteOrder = ByteOrder::LittleEndian;
const BE: ByteOrder = ByteOrder::BigEndian;
const S2: Sign = Sign::TwosComplement;
const UN: Sign = Sign::None;

macro_rules! ints {
    ($($name:ident = $size:expr, $order:expr, $sign:expr;)*) => {
        $(
            #[doc = concat!("`H5T_", stringify!($name), "`")]
            pub const $name: IntegerType = IntegerType::new($size, $order, $sign);
        )*
    };
}

macro_rules! bits {
    ($($name:ident = $size:expr, $order:expr;)*) => {
        $(
            #[doc = concat!("`H5T_", stringify!($name), "`")]
            pub const $name: BitfieldType = BitfieldType::new($size, $order);
        )*
    };
}

ints! {
    STD_I8BE = 1, BE, S2; STD_I8LE = 1, LE, S2;
    STD_I16BE = 2, BE, S2; STD_I16LE = 2, LE, S2;
    STD_I32BE = 4, BE, S2; STD_I32LE = 4, LE, S2;
    STD_I64BE = 8, BE, S2; STD_I64LE = 8, LE, S2;
    STD_U8BE = 1, BE, UN; STD_U8LE = 1, LE, UN;
    STD_U16BE = 2, BE, UN; STD_U16LE = 2, LE, UN;
    STD_U32BE = 4, BE, UN; STD_U32LE = 4, LE, UN;
    STD_U64BE = 8, BE, UN; STD_U64LE = 8, LE, UN;
}

bits! {
    STD_B8BE = 1, BE; STD_B8LE = 1, LE;
    STD_B16BE = 2, BE; STD_B16LE = 2, LE;
    STD_B32BE = 4, BE; STD_B32LE = 4, LE;
    STD_B64BE = 8, BE; STD_B64LE = 8, LE;
}

/// `H5T_IEEE_F16BE` (HDF5 2.0): IEEE 754 binary16, big-endian.
pub const IEEE_F16BE: FloatType = FloatType::ieee(2, BE, 5, 10);
/// `H5T_IEEE_F16LE` (HDF5 2.0): IEEE 754 binary16, little-endian.
pub const IEEE_F16LE: FloatType = FloatType::ieee(2, LE, 5, 10);
/// `H5T_IEEE_F32BE`: IEEE 754 binary32, big-endian.
pub const IEEE_F32BE: FloatType = FloatType::ieee(4, BE, 8, 23);
/// `H5T_IEEE_F32LE`: IEEE 754 binary32, little-endian.
pub const IEEE_F32LE: FloatType = FloatType::ieee(4, LE, 8, 23);
/// `H5T_IEEE_F64BE`: IEEE 754 binary64, big-endian.
pub const IEEE_F64BE: FloatType = FloatType::ieee(8, BE, 11, 52);
/// `H5T_IEEE_F64LE`: IEEE 754 binary64, little-endian.
pub const IEEE_F64LE: FloatType = FloatType::ieee(8, LE, 11, 52);
/// `H5T_FLOAT_BFLOAT16BE` (HDF5 2.0): bfloat16 (8 exponent bits, bias 127, 7 mantissa bits).
pub const FLOAT_BFLOAT16BE: FloatType = FloatType::ieee(2, BE, 8, 7);
/// `H5T_FLOAT_BFLOAT16LE` (HDF5 2.0): bfloat16, little-endian.
pub const FLOAT_BFLOAT16LE: FloatType = FloatType::ieee(2, LE, 8, 7);
/// `H5T_FLOAT_F8E4M3` (HDF5 2.0): OCP FP8 E4M3 (4 exponent bits, bias 7, 3 mantissa bits; no
/// infinities).
pub const FLOAT_F8E4M3: FloatType = FloatType::ieee(1, LE, 4, 3);
/// `H5T_FLOAT_F8E5M2` (HDF5 2.0): OCP FP8 E5M2 (5 exponent bits, bias 15, 2 mantissa bits).
pub const FLOAT_F8E5M2: FloatType = FloatType::ieee(1, LE, 5, 2);

/// `H5T_VAX_F32`: VAX F floating point (bias 129, VAX byte order).
pub const VAX_F32: FloatType = FloatType {
    atomic: Atomic::full(4, ByteOrder::Vax),
    sign_pos: 31,
    exp_pos: 23,
    exp_size: 8,
    mant_pos: 0,
    mant_size: 23,
    exp_bias: 129,
    norm: Norm::Implied,
    inpad: Pad::Zero,
};

/// `H5T_VAX_F64`: VAX G floating point (bias 1025, VAX byte order).
pub const VAX_F64: FloatType = FloatType {
    atomic: Atomic::full(8, ByteOrder::Vax),
    sign_pos: 63,
    exp_pos: 52,
    exp_size: 11,
    mant_pos: 0,
    mant_size: 52,
    exp_bias: 1025,
    norm: Norm::Implied,
    inpad: Pad::Zero,
};

/// `H5T_NATIVE_LDOUBLE` on x86-64: the x87 80-bit extended format (explicit leading mantissa
/// bit, so no normalization is implied) stored in 16 bytes.
pub const NATIVE_LDOUBLE: FloatType = FloatType {
    atomic: Atomic {
        size: 16,
        order: LE,
        precision: 80,
        offset: 0,
        lsb_pad: Pad::Zero,
        msb_pad: Pad::Zero,
    },
    sign_pos: 79,
    exp_pos: 64,
    exp_size: 15,
    mant_pos: 0,
    mant_size: 64,
    exp_bias: 16383,
    norm: Norm::None,
    inpad: Pad::Zero,
};

/// `H5T_UNIX_D32BE`: a 32-bit big-endian time.
pub const UNIX_D32BE: TimeType = TimeType::new(4, BE, 32);
/// `H5T_UNIX_D32LE`: a 32-bit little-endian time.
pub const UNIX_D32LE: TimeType = TimeType::new(4, LE, 32);
/// `H5T_UNIX_D64BE`: a 64-bit big-endian time.
pub const UNIX_D64BE: TimeType = TimeType::new(8, BE, 64);
/// `H5T_UNIX_D64LE`: a 64-bit little-endian time.
pub const UNIX_D64LE: TimeType = TimeType::new(8, LE, 64);

/// `H5T_C_S1`: a one-byte NUL-terminated ASCII string (resize it for longer strings).
pub const C_S1: StringType = StringType::fixed(1, StrPad::NullTerm, CharSet::Ascii);
/// `H5T_FORTRAN_S1`: a one-byte space-padded ASCII string.
pub const FORTRAN_S1: StringType = StringType::fixed(1, StrPad::SpacePad, CharSet::Ascii);

/// `H5T_STD_REF_OBJ`: an object reference (8 bytes).
pub const STD_REF_OBJ: ReferenceType = ReferenceType::new(ReferenceKind::Object);
/// `H5T_STD_REF_DSETREG`: a dataset region reference (12 bytes).
pub const STD_REF_DSETREG: ReferenceType = ReferenceType::new(ReferenceKind::DatasetRegion);
/// `H5T_STD_REF` (HDF5 1.12+): the revised reference, 64 bytes in memory.
pub const STD_REF: ReferenceType = ReferenceType::new(ReferenceKind::Revised);

/// `H5T_COMPLEX_IEEE_F16BE` (HDF5 2.0).
pub const COMPLEX_IEEE_F16BE: ComplexType = ComplexType::new(IEEE_F16BE);
/// `H5T_COMPLEX_IEEE_F16LE` (HDF5 2.0).
pub const COMPLEX_IEEE_F16LE: ComplexType = ComplexType::new(IEEE_F16LE);
/// `H5T_COMPLEX_IEEE_F32BE` (HDF5 2.0).
pub const COMPLEX_IEEE_F32BE: ComplexType = ComplexType::new(IEEE_F32BE);
/// `H5T_COMPLEX_IEEE_F32LE` (HDF5 2.0).
pub const COMPLEX_IEEE_F32LE: ComplexType = ComplexType::new(IEEE_F32LE);
/// `H5T_COMPLEX_IEEE_F64BE` (HDF5 2.0).
pub const COMPLEX_IEEE_F64BE: ComplexType = ComplexType::new(IEEE_F64BE);
/// `H5T_COMPLEX_IEEE_F64LE` (HDF5 2.0).
pub const COMPLEX_IEEE_F64LE: ComplexType = ComplexType::new(IEEE_F64LE);

/// `H5T_NATIVE_CHAR`: `char`, signed on this platform.
pub const NATIVE_CHAR: IntegerType = STD_I8LE;
/// `H5T_NATIVE_SCHAR`: `signed char`.
pub const NATIVE_SCHAR: IntegerType = STD_I8LE;
/// `H5T_NATIVE_UCHAR`: `unsigned char`.
pub const NATIVE_UCHAR: IntegerType = STD_U8LE;
/// `H5T_NATIVE_SHORT`: `short`.
pub const NATIVE_SHORT: IntegerType = STD_I16LE;
/// `H5T_NATIVE_USHORT`: `unsigned short`.
pub const NATIVE_USHORT: IntegerType = STD_U16LE;
/// `H5T_NATIVE_INT`: `int`.
pub const NATIVE_INT: IntegerType = STD_I32LE;
/// `H5T_NATIVE_UINT`: `unsigned int`.
pub const NATIVE_UINT: IntegerType = STD_U32LE;
/// `H5T_NATIVE_LONG`: `long` (8 bytes on x86-64 Linux).
pub const NATIVE_LONG: IntegerType = STD_I64LE;
/// `H5T_NATIVE_ULONG`: `unsigned long`.
pub const NATIVE_ULONG: IntegerType = STD_U64LE;
/// `H5T_NATIVE_LLONG`: `long long`.
pub const NATIVE_LLONG: IntegerType = STD_I64LE;
/// `H5T_NATIVE_ULLONG`: `unsigned long long`.
pub const NATIVE_ULLONG: IntegerType = STD_U64LE;
/// `H5T_NATIVE_FLOAT16` (HDF5 2.0): `_Float16`.
pub const NATIVE_FLOAT16: FloatType = IEEE_F16LE;
/// `H5T_NATIVE_FLOAT`: `float`.
pub const NATIVE_FLOAT: FloatType = IEEE_F32LE;
/// `H5T_NATIVE_DOUBLE`: `double`.
pub const NATIVE_DOUBLE: FloatType = IEEE_F64LE;
/// `H5T_NATIVE_FLOAT_COMPLEX` (HDF5 2.0): `float _Complex`.
pub const NATIVE_FLOAT_COMPLEX: ComplexType = COMPLEX_IEEE_F32LE;
/// `H5T_NATIVE_DOUBLE_COMPLEX` (HDF5 2.0): `double _Complex`.
pub const NATIVE_DOUBLE_COMPLEX: ComplexType = COMPLEX_IEEE_F64LE;
/// `H5T_NATIVE_LDOUBLE_COMPLEX` (HDF5 2.0): `long double _Complex`.
pub const NATIVE_LDOUBLE_COMPLEX: ComplexType = ComplexType::new(NATIVE_LDOUBLE);
/// `H5T_NATIVE_B8`: an 8-bit native bitfield.
pub const NATIVE_B8: BitfieldType = STD_B8LE;
/// `H5T_NATIVE_B16`: a 16-bit native bitfield.
pub const NATIVE_B16: BitfieldType = STD_B16LE;
/// `H5T_NATIVE_B32`: a 32-bit native bitfield.
pub const NATIVE_B32: BitfieldType = STD_B32LE;
/// `H5T_NATIVE_B64`: a 64-bit native bitfield.
pub const NATIVE_B64: BitfieldType = STD_B64LE;
/// `H5T_NATIVE_HADDR`: `haddr_t`.
pub const NATIVE_HADDR: IntegerType = STD_U64LE;
/// `H5T_NATIVE_HSIZE`: `hsize_t`.
pub const NATIVE_HSIZE: IntegerType = STD_U64LE;
/// `H5T_NATIVE_HSSIZE`: `hssize_t`.
pub const NATIVE_HSSIZE: IntegerType = STD_I64LE;
/// `H5T_NATIVE_HERR`: `herr_t`.
pub const NATIVE_HERR: IntegerType = STD_I32LE;
/// `H5T_NATIVE_HBOOL`: `hbool_t` (`bool`, one unsigned byte).
pub const NATIVE_HBOOL: IntegerType = STD_U8LE;

/// `H5T_NATIVE_OPAQUE`: one opaque byte with an empty tag.
pub fn native_opaque() -> OpaqueType {
    OpaqueType {
        size: 1,
        tag: String::new(),
    }
}

/// The names of every predefined type and alias of the reference library (HDF5 2.0), with
/// their values on this platform, in a stable order.
pub fn all() -> impl Iterator<Item = (&'static str, Datatype)> {
    NAMES
        .iter()
        .filter_map(|&name| by_name(name).map(|t| (name, t)))
}

/// Every name [`by_name`] knows.
pub const NAMES: &[&str] = &[
    "H5T_STD_I8BE",
    "H5T_STD_I8LE",
    "H5T_STD_I16BE",
    "H5T_STD_I16LE",
    "H5T_STD_I32BE",
    "H5T_STD_I32LE",
    "H5T_STD_I64BE",
    "H5T_STD_I64LE",
    "H5T_STD_U8BE",
    "H5T_STD_U8LE",
    "H5T_STD_U16BE",
    "H5T_STD_U16LE",
    "H5T_STD_U32BE",
    "H5T_STD_U32LE",
    "H5T_STD_U64BE",
    "H5T_STD_U64LE",
    "H5T_STD_B8BE",
    "H5T_STD_B8LE",
    "H5T_STD_B16BE",
    "H5T_STD_B16LE",
    "H5T_STD_B32BE",
    "H5T_STD_B32LE",
    "H5T_STD_B64BE",
    "H5T_STD_B64LE",
    "H5T_IEEE_F16BE",
    "H5T_IEEE_F16LE",
    "H5T_IEEE_F32BE",
    "H5T_IEEE_F32LE",
    "H5T_IEEE_F64BE",
    "H5T_IEEE_F64LE",
    "H5T_FLOAT_BFLOAT16BE",
    "H5T_FLOAT_BFLOAT16LE",
    "H5T_FLOAT_F8E4M3",
    "H5T_FLOAT_F8E5M2",
    "H5T_VAX_F32",
    "H5T_VAX_F64",
    "H5T_UNIX_D32BE",
    "H5T_UNIX_D32LE",
    "H5T_UNIX_D64BE",
    "H5T_UNIX_D64LE",
    "H5T_C_S1",
    "H5T_FORTRAN_S1",
    "H5T_STD_REF_OBJ",
    "H5T_STD_REF_DSETREG",
    "H5T_STD_REF",
    "H5T_COMPLEX_IEEE_F16BE",
    "H5T_COMPLEX_IEEE_F16LE",
    "H5T_COMPLEX_IEEE_F32BE",
    "H5T_COMPLEX_IEEE_F32LE",
    "H5T_COMPLEX_IEEE_F64BE",
    "H5T_COMPLEX_IEEE_F64LE",
    "H5T_INTEL_I8",
    "H5T_INTEL_I16",
    "H5T_INTEL_I32",
    "H5T_INTEL_I64",
    "H5T_INTEL_U8",
    "H5T_INTEL_U16",
    "H5T_INTEL_U32",
    "H5T_INTEL_U64",
    "H5T_INTEL_B8",
    "H5T_INTEL_B16",
    "H5T_INTEL_B32",
    "H5T_INTEL_B64",
    "H5T_INTEL_F32",
    "H5T_INTEL_F64",
    "H5T_ALPHA_I8",
    "H5T_ALPHA_I16",
    "H5T_ALPHA_I32",
    "H5T_ALPHA_I64",
    "H5T_ALPHA_U8",
    "H5T_ALPHA_U16",
    "H5T_ALPHA_U32",
    "H5T_ALPHA_U64",
    "H5T_ALPHA_B8",
    "H5T_ALPHA_B16",
    "H5T_ALPHA_B32",
    "H5T_ALPHA_B64",
    "H5T_ALPHA_F32",
    "H5T_ALPHA_F64",
    "H5T_MIPS_I8",
    "H5T_MIPS_I16",
    "H5T_MIPS_I32",
    "H5T_MIPS_I64",
    "H5T_MIPS_U8",
    "H5T_MIPS_U16",
    "H5T_MIPS_U32",
    "H5T_MIPS_U64",
    "H5T_MIPS_B8",
    "H5T_MIPS_B16",
    "H5T_MIPS_B32",
    "H5T_MIPS_B64",
    "H5T_MIPS_F32",
    "H5T_MIPS_F64",
    "H5T_NATIVE_CHAR",
    "H5T_NATIVE_SCHAR",
    "H5T_NATIVE_UCHAR",
    "H5T_NATIVE_SHORT",
    "H5T_NATIVE_USHORT",
    "H5T_NATIVE_INT",
    "H5T_NATIVE_UINT",
    "H5T_NATIVE_LONG",
    "H5T_NATIVE_ULONG",
    "H5T_NATIVE_LLONG",
    "H5T_NATIVE_ULLONG",
    "H5T_NATIVE_FLOAT16",
    "H5T_NATIVE_FLOAT",
    "H5T_NATIVE_DOUBLE",
    "H5T_NATIVE_LDOUBLE",
    "H5T_NATIVE_FLOAT_COMPLEX",
    "H5T_NATIVE_DOUBLE_COMPLEX",
    "H5T_NATIVE_LDOUBLE_COMPLEX",
    "H5T_NATIVE_B8",
    "H5T_NATIVE_B16",
    "H5T_NATIVE_B32",
    "H5T_NATIVE_B64",
    "H5T_NATIVE_OPAQUE",
    "H5T_NATIVE_HADDR",
    "H5T_NATIVE_HSIZE",
    "H5T_NATIVE_HSSIZE",
    "H5T_NATIVE_HERR",
    "H5T_NATIVE_HBOOL",
    "H5T_NATIVE_INT8",
    "H5T_NATIVE_UINT8",
    "H5T_NATIVE_INT_LEAST8",
    "H5T_NATIVE_UINT_LEAST8",
    "H5T_NATIVE_INT_FAST8",
    "H5T_NATIVE_UINT_FAST8",
    "H5T_NATIVE_INT16",
    "H5T_NATIVE_UINT16",
    "H5T_NATIVE_INT_LEAST16",
    "H5T_NATIVE_UINT_LEAST16",
    "H5T_NATIVE_INT_FAST16",
    "H5T_NATIVE_UINT_FAST16",
    "H5T_NATIVE_INT32",
    "H5T_NATIVE_UINT32",
    "H5T_NATIVE_INT_LEAST32",
    "H5T_NATIVE_UINT_LEAST32",
    "H5T_NATIVE_INT_FAST32",
    "H5T_NATIVE_UINT_FAST32",
    "H5T_NATIVE_INT64",
    "H5T_NATIVE_UINT64",
    "H5T_NATIVE_INT_LEAST64",
    "H5T_NATIVE_UINT_LEAST64",
    "H5T_NATIVE_INT_FAST64",
    "H5T_NATIVE_UINT_FAST64",
];

/// The predefined type with this C name (`"H5T_STD_I32LE"`, `"H5T_NATIVE_INT"`,
/// `"H5T_INTEL_F64"`, ...), with its value on this platform.
pub fn by_name(name: &str) -> Option<Datatype> {
    let rest = name.strip_prefix("H5T_")?;
    if let Some(arch) = ["INTEL_", "ALPHA_", "MIPS_"]
        .iter()
        .find_map(|p| rest.strip_prefix(p).map(|r| (*p, r)))
    {
        return arch_alias(arch.0, arch.1);
    }
    if let Some(t) = std_atomic(rest) {
        return Some(t);
    }
    if let Some(n) = rest.strip_prefix("NATIVE_") {
        return native(n);
    }
    Some(match rest {
        "IEEE_F16BE" => IEEE_F16BE.into(),
        "IEEE_F16LE" => IEEE_F16LE.into(),
        "IEEE_F32BE" => IEEE_F32BE.into(),
        "IEEE_F32LE" => IEEE_F32LE.into(),
        "IEEE_F64BE" => IEEE_F64BE.into(),
        "IEEE_F64LE" => IEEE_F64LE.into(),
        "FLOAT_BFLOAT16BE" => FLOAT_BFLOAT16BE.into(),
        "FLOAT_BFLOAT16LE" => FLOAT_BFLOAT16LE.into(),
        "FLOAT_F8E4M3" => FLOAT_F8E4M3.into(),
        "FLOAT_F8E5M2" => FLOAT_F8E5M2.into(),
        "VAX_F32" => VAX_F32.into(),
        "VAX_F64" => VAX_F64.into(),
        "UNIX_D32BE" => UNIX_D32BE.into(),
        "UNIX_D32LE" => UNIX_D32LE.into(),
        "UNIX_D64BE" => UNIX_D64BE.into(),
        "UNIX_D64LE" => UNIX_D64LE.into(),
        "C_S1" => C_S1.into(),
        "FORTRAN_S1" => FORTRAN_S1.into(),
        "STD_REF_OBJ" => STD_REF_OBJ.into(),
        "STD_REF_DSETREG" => STD_REF_DSETREG.into(),
        "STD_REF" => STD_REF.into(),
        "COMPLEX_IEEE_F16BE" => COMPLEX_IEEE_F16BE.into(),
        "COMPLEX_IEEE_F16LE" => COMPLEX_IEEE_F16LE.into(),
        "COMPLEX_IEEE_F32BE" => COMPLEX_IEEE_F32BE.into(),
        "COMPLEX_IEEE_F32LE" => COMPLEX_IEEE_F32LE.into(),
        "COMPLEX_IEEE_F64BE" => COMPLEX_IEEE_F64BE.into(),
        "COMPLEX_IEEE_F64LE" => COMPLEX_IEEE_F64LE.into(),
        _ => return None,
    })
}

/// `STD_{I,U,B}{8,16,32,64}{LE,BE}`.
fn std_atomic(rest: &str) -> Option<Datatype> {
    let r = rest.strip_prefix("STD_")?;
    let mut chars = r.chars();
    let kind = chars.next()?;
    let r = chars.as_str();
    let (bits, order) = if let Some(b) = r.strip_suffix("LE") {
        (b, LE)
    } else {
        (r.strip_suffix("BE")?, BE)
    };
    let size = match bits {
        "8" => 1,
        "16" => 2,
        "32" => 4,
        "64" => 8,
        _ => return None,
    };
    Some(match kind {
        'I' => IntegerType::new(size, order, S2).into(),
        'U' => IntegerType::new(size, order, UN).into(),
        'B' => BitfieldType::new(size, order).into(),
        _ => return None,
    })
}

/// `INTEL_*` (little-endian), `ALPHA_*` (little-endian) and `MIPS_*` (big-endian) aliases.
fn arch_alias(arch: &str, rest: &str) -> Option<Datatype> {
    let suffix = if arch == "MIPS_" { "BE" } else { "LE" };
    match rest {
        "F32" => by_name(&format!("H5T_IEEE_F32{suffix}")),
        "F64" => by_name(&format!("H5T_IEEE_F64{suffix}")),
        _ => {
            let kind = rest.chars().next()?;
            if !matches!(kind, 'I' | 'U' | 'B') {
                return None;
            }
            std_atomic(&format!("STD_{rest}{suffix}"))
        }
    }
}

/// The `H5T_NATIVE_*` types of this platform.
fn native(n: &str) -> Option<Datatype> {
    let int = |t: IntegerType| Some(Datatype::Integer(t));
    match n {
        "CHAR" => int(NATIVE_CHAR),
        "SCHAR" => int(NATIVE_SCHAR),
        "UCHAR" => int(NATIVE_UCHAR),
        "SHORT" => int(NATIVE_SHORT),
        "USHORT" => int(NATIVE_USHORT),
        "INT" => int(NATIVE_INT),
        "UINT" => int(NATIVE_UINT),
        "LONG" => int(NATIVE_LONG),
        "ULONG" => int(NATIVE_ULONG),
        "LLONG" => int(NATIVE_LLONG),
        "ULLONG" => int(NATIVE_ULLONG),
        "HADDR" => int(NATIVE_HADDR),
        "HSIZE" => int(NATIVE_HSIZE),
        "HSSIZE" => int(NATIVE_HSSIZE),
        "HERR" => int(NATIVE_HERR),
        "HBOOL" => int(NATIVE_HBOOL),
        "FLOAT16" => Some(NATIVE_FLOAT16.into()),
        "FLOAT" => Some(NATIVE_FLOAT.into()),
        "DOUBLE" => Some(NATIVE_DOUBLE.into()),
        "LDOUBLE" => Some(NATIVE_LDOUBLE.into()),
        "FLOAT_COMPLEX" => Some(NATIVE_FLOAT_COMPLEX.into()),
        "DOUBLE_COMPLEX" => Some(NATIVE_DOUBLE_COMPLEX.into()),
        "LDOUBLE_COMPLEX" => Some(NATIVE_LDOUBLE_COMPLEX.into()),
        "B8" => Some(NATIVE_B8.into()),
        "B16" => Some(NATIVE_B16.into()),
        "B32" => Some(NATIVE_B32.into()),
        "B64" => Some(NATIVE_B64.into()),
        "OPAQUE" => Some(native_opaque().into()),
        _ => {
            // INT8..UINT64 and the LEAST/FAST variants.
            let (unsigned, r) = match n.strip_prefix('U') {
                Some(r) => (true, r),
                None => (false, n),
            };
            let r = r.strip_prefix("INT")?;
            let (fast, bits) = if let Some(b) = r.strip_prefix("_LEAST") {
                (false, b)
            } else if let Some(b) = r.strip_prefix("_FAST") {
                (true, b)
            } else {
                (false, r)
            };
            let size = match bits {
                "8" => 1,
                "16" => 2,
                "32" => 4,
                "64" => 8,
                _ => return None,
            };
            // glibc on x86-64: int_fast16_t and int_fast32_t are `long`.
            let size = if fast && size > 1 { 8 } else { size };
            int(IntegerType::new(size, LE, if unsigned { UN } else { S2 }))
        }
    }
}

/// The name the DDL text uses for an atomic type, if it has one: the standard integers,
/// bitfields, IEEE and alternative floats, `H5T_NATIVE_LDOUBLE` and the UNIX times. This is
/// what `H5LTdtype_to_text` prints for integers and floats (HDF5 2.0 names included); bitfield
/// and time names are this crate's extension (the reference prints "undefined integer" and
/// "H5T_TIME: not yet implemented").
pub fn ddl_name(t: &Datatype) -> Option<&'static str> {
    match t {
        Datatype::Integer(i) => {
            if i.atomic != Atomic::full(i.size(), i.order()) {
                return None;
            }
            let signed = i.is_signed();
            let le = i.order() == LE;
            Some(match (i.size(), signed, le) {
                (1, true, false) => "H5T_STD_I8BE",
                (1, true, true) => "H5T_STD_I8LE",
                (2, true, false) => "H5T_STD_I16BE",
                (2, true, true) => "H5T_STD_I16LE",
                (4, true, false) => "H5T_STD_I32BE",
                (4, true, true) => "H5T_STD_I32LE",
                (8, true, false) => "H5T_STD_I64BE",
                (8, true, true) => "H5T_STD_I64LE",
                (1, false, false) => "H5T_STD_U8BE",
                (1, false, true) => "H5T_STD_U8LE",
                (2, false, false) => "H5T_STD_U16BE",
                (2, false, true) => "H5T_STD_U16LE",
                (4, false, false) => "H5T_STD_U32BE",
                (4, false, true) => "H5T_STD_U32LE",
                (8, false, false) => "H5T_STD_U64BE",
                (8, false, true) => "H5T_STD_U64LE",
                _ => return None,
            })
        }
        Datatype::Bitfield(b) => {
            if b.atomic != Atomic::full(b.size(), b.order()) {
                return None;
            }
            Some(match (b.size(), b.order() == LE) {
                (1, false) => "H5T_STD_B8BE",
                (1, true) => "H5T_STD_B8LE",
                (2, false) => "H5T_STD_B16BE",
                (2, true) => "H5T_STD_B16LE",
                (4, false) => "H5T_STD_B32BE",
                (4, true) => "H5T_STD_B32LE",
                (8, false) => "H5T_STD_B64BE",
                (8, true) => "H5T_STD_B64LE",
                _ => return None,
            })
        }
        Datatype::Float(f) => float_name(f),
        Datatype::Time(t) => Some(match *t {
            UNIX_D32BE => "H5T_UNIX_D32BE",
            UNIX_D32LE => "H5T_UNIX_D32LE",
            UNIX_D64BE => "H5T_UNIX_D64BE",
            UNIX_D64LE => "H5T_UNIX_D64LE",
            _ => return None,
        }),
        _ => None,
    }
}

/// The DDL name of a float type, in the order the reference printer tries them.
pub(crate) fn float_name(f: &FloatType) -> Option<&'static str> {
    const TABLE: &[(FloatType, &str)] = &[
        (IEEE_F32BE, "H5T_IEEE_F32BE"),
        (IEEE_F32LE, "H5T_IEEE_F32LE"),
        (IEEE_F64BE, "H5T_IEEE_F64BE"),
        (IEEE_F64LE, "H5T_IEEE_F64LE"),
        (NATIVE_LDOUBLE, "H5T_NATIVE_LDOUBLE"),
        (IEEE_F16BE, "H5T_IEEE_F16BE"),
        (IEEE_F16LE, "H5T_IEEE_F16LE"),
        (FLOAT_BFLOAT16BE, "H5T_FLOAT_BFLOAT16BE"),
        (FLOAT_BFLOAT16LE, "H5T_FLOAT_BFLOAT16LE"),
        (FLOAT_F8E4M3, "H5T_FLOAT_F8E4M3"),
        (FLOAT_F8E5M2, "H5T_FLOAT_F8E5M2"),
    ];
    TABLE.iter().find(|(t, _)| t == f).map(|&(_, n)| n)
}

/// Whether HDF5 1.10 (the version without half precision, alternative floats and complex
/// numbers) knows this float by name.
pub(crate) fn float_known_to_1_10(f: &FloatType) -> bool {
    [
        IEEE_F32BE,
        IEEE_F32LE,
        IEEE_F64BE,
        IEEE_F64LE,
        NATIVE_LDOUBLE,
    ]
    .contains(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_resolves() {
        for name in NAMES {
            assert!(by_name(name).is_some(), "{name}");
        }
        assert_eq!(all().count(), NAMES.len());
        assert!(by_name("H5T_STD_I24LE").is_none());
        assert!(by_name("H5T_NATIVE_INT128").is_none());
        assert!(by_name("STD_I8LE").is_none());
        assert!(by_name("H5T_INTEL_X8").is_none());
    }

    #[test]
    fn aliases() {
        assert_eq!(by_name("H5T_INTEL_I16"), Some(STD_I16LE.into()));
        assert_eq!(by_name("H5T_MIPS_U64"), Some(STD_U64BE.into()));
        assert_eq!(by_name("H5T_ALPHA_B32"), Some(STD_B32LE.into()));
        assert_eq!(by_name("H5T_MIPS_F32"), Some(IEEE_F32BE.into()));
        assert_eq!(by_name("H5T_NATIVE_INT_FAST16"), Some(STD_I64LE.into()));
        assert_eq!(by_name("H5T_NATIVE_UINT_LEAST16"), Some(STD_U16LE.into()));
        assert_eq!(by_name("H5T_NATIVE_UINT_FAST8"), Some(STD_U8LE.into()));
    }

    #[test]
    fn layouts() {
        let e4m3 = FLOAT_F8E4M3;
        assert_eq!(
            (
                e4m3.sign_pos(),
                e4m3.exp_pos(),
                e4m3.exp_size(),
                e4m3.mant_size(),
                e4m3.exp_bias()
            ),
            (7, 3, 4, 3, 7)
        );
        let bf = FLOAT_BFLOAT16LE;
        assert_eq!((bf.exp_pos(), bf.exp_size(), bf.exp_bias()), (7, 8, 127));
        assert_eq!(NATIVE_LDOUBLE.precision(), 80);
        assert_eq!(Datatype::from(NATIVE_LDOUBLE_COMPLEX).size(), 32);
        assert_eq!(ddl_name(&NATIVE_FLOAT16.into()), Some("H5T_IEEE_F16LE"));
        assert_eq!(ddl_name(&NATIVE_LONG.into()), Some("H5T_STD_I64LE"));
        assert_eq!(ddl_name(&NATIVE_B8.into()), Some("H5T_STD_B8LE"));
        assert_eq!(ddl_name(&VAX_F32.into()), None);
    }
}
