//! The datatype model: one value type, [`Datatype`], with a variant per HDF5 class.
//!
//! Every property of the reference library's model is here (see the datatypes chapter,
//! tables 9 to 18). Values are plain data: `Clone`, `Eq`, `Hash`, `Debug`. Fields are private
//! to the crate so that every public way of changing a datatype goes through a setter that
//! keeps the class's invariants; read them with the getters.
//!
//! Equality is the reference library's `H5Tequal` (`H5T_cmp`): compound and enum members
//! compare as sets (insertion order does not matter), variable-length strings ignore padding
//! and character set, everything else field by field.

use std::hash::{Hash, Hasher};

/// The class of a datatype (`H5T_class_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// `H5T_INTEGER`
    Integer,
    /// `H5T_FLOAT`
    Float,
    /// `H5T_TIME`: decoded, but no operation is defined on it.
    Time,
    /// `H5T_STRING`
    String,
    /// `H5T_BITFIELD`
    Bitfield,
    /// `H5T_OPAQUE`
    Opaque,
    /// `H5T_COMPOUND`
    Compound,
    /// `H5T_REFERENCE`
    Reference,
    /// `H5T_ENUM`
    Enum,
    /// `H5T_VLEN`
    VarLen,
    /// `H5T_ARRAY`
    Array,
    /// `H5T_COMPLEX` (HDF5 2.0)
    Complex,
}

impl Class {
    /// The number the file format gives this class (datatype message, bits 0-3 of the
    /// class and version byte).
    pub const fn format_number(self) -> u8 {
        match self {
            Class::Integer => 0,
            Class::Float => 1,
            Class::Time => 2,
            Class::String => 3,
            Class::Bitfield => 4,
            Class::Opaque => 5,
            Class::Compound => 6,
            Class::Reference => 7,
            Class::Enum => 8,
            Class::VarLen => 9,
            Class::Array => 10,
            Class::Complex => 11,
        }
    }

    /// The reference library's name of the class, such as `H5T_INTEGER`.
    pub const fn name(self) -> &'static str {
        match self {
            Class::Integer => "H5T_INTEGER",
            Class::Float => "H5T_FLOAT",
            Class::Time => "H5T_TIME",
            Class::String => "H5T_STRING",
            Class::Bitfield => "H5T_BITFIELD",
            Class::Opaque => "H5T_OPAQUE",
            Class::Compound => "H5T_COMPOUND",
            Class::Reference => "H5T_REFERENCE",
            Class::Enum => "H5T_ENUM",
            Class::VarLen => "H5T_VLEN",
            Class::Array => "H5T_ARRAY",
            Class::Complex => "H5T_COMPLEX",
        }
    }
}

/// Byte order (`H5T_order_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ByteOrder {
    /// `H5T_ORDER_LE`: least significant byte first.
    LittleEndian,
    /// `H5T_ORDER_BE`: most significant byte first.
    BigEndian,
    /// `H5T_ORDER_VAX`: VAX floating point, 16-bit words little-endian, swapped in pairs.
    /// Floats only.
    Vax,
}

impl ByteOrder {
    /// The byte order of the machine this code runs on.
    pub const NATIVE: ByteOrder = if cfg!(target_endian = "little") {
        ByteOrder::LittleEndian
    } else {
        ByteOrder::BigEndian
    };
}

/// Padding of bits outside the significant ones (`H5T_pad_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pad {
    /// `H5T_PAD_ZERO`
    Zero,
    /// `H5T_PAD_ONE`
    One,
    /// `H5T_PAD_BACKGROUND`: the bits are left as they are in the destination.
    Background,
}

/// Integer sign scheme (`H5T_sign_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sign {
    /// `H5T_SGN_NONE`: unsigned.
    None,
    /// `H5T_SGN_2`: two's complement.
    TwosComplement,
}

/// Mantissa normalization (`H5T_norm_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Norm {
    /// `H5T_NORM_IMPLIED`: the leading 1 is not stored.
    Implied,
    /// `H5T_NORM_MSBSET`: the leading 1 is stored.
    MsbSet,
    /// `H5T_NORM_NONE`: the mantissa is not normalized.
    None,
}

/// Padding of a fixed-length string (`H5T_str_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StrPad {
    /// `H5T_STR_NULLTERM`: a NUL ends the string unless it fills the whole size.
    NullTerm,
    /// `H5T_STR_NULLPAD`: padded with NULs, not necessarily terminated.
    NullPad,
    /// `H5T_STR_SPACEPAD`: padded with spaces (Fortran).
    SpacePad,
}

/// Character set of a string (`H5T_cset_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CharSet {
    /// `H5T_CSET_ASCII`
    Ascii,
    /// `H5T_CSET_UTF8`
    Utf8,
}

/// The bit layout shared by the fixed-point classes (integer, bitfield) and floats:
/// total size in bytes, byte order, and where the significant bits sit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Atomic {
    pub(crate) size: usize,
    pub(crate) order: ByteOrder,
    pub(crate) precision: usize,
    pub(crate) offset: usize,
    pub(crate) lsb_pad: Pad,
    pub(crate) msb_pad: Pad,
}

impl Atomic {
    /// A layout with all `8 * size` bits significant, offset 0 and zero padding.
    pub const fn full(size: usize, order: ByteOrder) -> Self {
        Atomic {
            size,
            order,
            precision: size * 8,
            offset: 0,
            lsb_pad: Pad::Zero,
            msb_pad: Pad::Zero,
        }
    }

    /// Total size in bytes, padding included (`H5Tget_size`).
    pub const fn size(&self) -> usize {
        self.size
    }

    /// Byte order (`H5Tget_order`).
    pub const fn order(&self) -> ByteOrder {
        self.order
    }

    /// Number of significant bits (`H5Tget_precision`).
    pub const fn precision(&self) -> usize {
        self.precision
    }

    /// Bit position of the least significant significant bit (`H5Tget_offset`).
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// Padding below the significant bits (`H5Tget_pad`, lsb).
    pub const fn lsb_pad(&self) -> Pad {
        self.lsb_pad
    }

    /// Padding above the significant bits (`H5Tget_pad`, msb).
    pub const fn msb_pad(&self) -> Pad {
        self.msb_pad
    }
}

/// An integer type (`H5T_INTEGER`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntegerType {
    pub(crate) atomic: Atomic,
    pub(crate) sign: Sign,
}

impl IntegerType {
    /// A full-precision integer of `size` bytes.
    pub const fn new(size: usize, order: ByteOrder, sign: Sign) -> Self {
        IntegerType {
            atomic: Atomic::full(size, order),
            sign,
        }
    }

    /// The bit layout (size, order, precision, offset, padding).
    pub const fn atomic(&self) -> &Atomic {
        &self.atomic
    }

    /// Sign scheme (`H5Tget_sign`).
    pub const fn sign(&self) -> Sign {
        self.sign
    }

    /// Whether the integer is signed two's complement.
    pub const fn is_signed(&self) -> bool {
        matches!(self.sign, Sign::TwosComplement)
    }

    /// Size in bytes.
    pub const fn size(&self) -> usize {
        self.atomic.size
    }

    /// Byte order.
    pub const fn order(&self) -> ByteOrder {
        self.atomic.order
    }

    /// Precision in bits.
    pub const fn precision(&self) -> usize {
        self.atomic.precision
    }

    /// Bit offset.
    pub const fn offset(&self) -> usize {
        self.atomic.offset
    }
}

/// A floating-point type (`H5T_FLOAT`): the bit layout plus where sign, exponent and mantissa
/// sit within it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatType {
    pub(crate) atomic: Atomic,
    pub(crate) sign_pos: usize,
    pub(crate) exp_pos: usize,
    pub(crate) exp_size: usize,
    pub(crate) mant_pos: usize,
    pub(crate) mant_size: usize,
    pub(crate) exp_bias: u64,
    pub(crate) norm: Norm,
    pub(crate) inpad: Pad,
}

impl FloatType {
    /// An IEEE-style binary float of `size` bytes with the given exponent and mantissa
    /// widths (sign at the top bit, exponent below it, mantissa at bit 0, implied leading 1,
    /// bias `2^(exp_size-1) - 1`). `exp_size + mant_size + 1` must equal `8 * size` and
    /// `exp_size` must be in 1..=63.
    pub const fn ieee(size: usize, order: ByteOrder, exp_size: usize, mant_size: usize) -> Self {
        FloatType {
            atomic: Atomic::full(size, order),
            sign_pos: size * 8 - 1,
            exp_pos: mant_size,
            exp_size,
            mant_pos: 0,
            mant_size,
            exp_bias: (1u64 << (exp_size - 1)) - 1,
            norm: Norm::Implied,
            inpad: Pad::Zero,
        }
    }

    /// The bit layout (size, order, precision, offset, padding).
    pub const fn atomic(&self) -> &Atomic {
        &self.atomic
    }

    /// Size in bytes.
    pub const fn size(&self) -> usize {
        self.atomic.size
    }

    /// Byte order (LE, BE or VAX).
    pub const fn order(&self) -> ByteOrder {
        self.atomic.order
    }

    /// Precision in bits.
    pub const fn precision(&self) -> usize {
        self.atomic.precision
    }

    /// Bit offset.
    pub const fn offset(&self) -> usize {
        self.atomic.offset
    }

    /// Bit position of the sign bit (`H5Tget_fields` spos).
    pub const fn sign_pos(&self) -> usize {
        self.sign_pos
    }

    /// Bit position of the exponent's least significant bit (`epos`).
    pub const fn exp_pos(&self) -> usize {
        self.exp_pos
    }

    /// Exponent width in bits (`esize`).
    pub const fn exp_size(&self) -> usize {
        self.exp_size
    }

    /// Bit position of the mantissa's least significant bit (`mpos`).
    pub const fn mant_pos(&self) -> usize {
        self.mant_pos
    }

    /// Mantissa width in bits (`msize`).
    pub const fn mant_size(&self) -> usize {
        self.mant_size
    }

    /// Exponent bias (`H5Tget_ebias`).
    pub const fn exp_bias(&self) -> u64 {
        self.exp_bias
    }

    /// Mantissa normalization (`H5Tget_norm`).
    pub const fn norm(&self) -> Norm {
        self.norm
    }

    /// Padding of unused bits inside the precision (`H5Tget_inpad`).
    pub const fn inpad(&self) -> Pad {
        self.inpad
    }
}

/// The size of a string: a fixed number of bytes, or variable-length (`H5T_VARIABLE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StringSize {
    /// A fixed number of bytes, at least 1.
    Fixed(usize),
    /// Variable length: stored through the global heap in files; in memory a pointer.
    Variable,
}

/// A string type (`H5T_STRING`), fixed or variable length.
///
/// Equality is `H5Tequal`'s: fixed-length strings compare size, padding and character set;
/// variable-length strings are all equal to each other whatever their padding and character
/// set (the reference library compares them as sequences of characters only).
#[derive(Clone, Copy, Debug)]
pub struct StringType {
    pub(crate) size: StringSize,
    pub(crate) pad: StrPad,
    pub(crate) cset: CharSet,
}

impl PartialEq for StringType {
    fn eq(&self, other: &Self) -> bool {
        match (self.size, other.size) {
            (StringSize::Variable, StringSize::Variable) => true,
            (a, b) => a == b && self.pad == other.pad && self.cset == other.cset,
        }
    }
}

impl Eq for StringType {}

impl Hash for StringType {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.size.hash(state);
        if !self.is_variable() {
            self.pad.hash(state);
            self.cset.hash(state);
        }
    }
}

impl StringType {
    /// A fixed-length string of `size` bytes (`size >= 1`).
    pub const fn fixed(size: usize, pad: StrPad, cset: CharSet) -> Self {
        StringType {
            size: StringSize::Fixed(size),
            pad,
            cset,
        }
    }

    /// A variable-length string.
    pub const fn variable(pad: StrPad, cset: CharSet) -> Self {
        StringType {
            size: StringSize::Variable,
            pad,
            cset,
        }
    }

    /// Fixed or variable size.
    pub const fn string_size(&self) -> StringSize {
        self.size
    }

    /// Whether the string is variable-length (`H5Tis_variable_str`).
    pub const fn is_variable(&self) -> bool {
        matches!(self.size, StringSize::Variable)
    }

    /// Padding (`H5Tget_strpad`).
    pub const fn pad(&self) -> StrPad {
        self.pad
    }

    /// Character set (`H5Tget_cset`).
    pub const fn cset(&self) -> CharSet {
        self.cset
    }
}

/// A bitfield type (`H5T_BITFIELD`): like an unsigned integer with no arithmetic meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BitfieldType {
    pub(crate) atomic: Atomic,
}

impl BitfieldType {
    /// A full-precision bitfield of `size` bytes.
    pub const fn new(size: usize, order: ByteOrder) -> Self {
        BitfieldType {
            atomic: Atomic::full(size, order),
        }
    }

    /// The bit layout.
    pub const fn atomic(&self) -> &Atomic {
        &self.atomic
    }

    /// Size in bytes.
    pub const fn size(&self) -> usize {
        self.atomic.size
    }

    /// Byte order.
    pub const fn order(&self) -> ByteOrder {
        self.atomic.order
    }
}

/// An opaque type (`H5T_OPAQUE`): `size` uninterpreted bytes with an ASCII tag.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OpaqueType {
    pub(crate) size: usize,
    pub(crate) tag: String,
}

impl OpaqueType {
    /// Size in bytes.
    pub const fn size(&self) -> usize {
        self.size
    }

    /// The tag (`H5Tget_tag`).
    pub fn tag(&self) -> &str {
        &self.tag
    }
}

/// A member of a compound type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Member {
    pub(crate) name: String,
    pub(crate) offset: usize,
    pub(crate) datatype: Datatype,
}

impl Member {
    /// The member's name (`H5Tget_member_name`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Byte offset within the compound (`H5Tget_member_offset`).
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// The member's datatype (`H5Tget_member_type`).
    pub const fn datatype(&self) -> &Datatype {
        &self.datatype
    }
}

/// A compound type (`H5T_COMPOUND`): named members at byte offsets inside a total size.
/// Members are kept in insertion order (the order `H5Tget_member_*` indexes them).
#[derive(Clone, Debug)]
pub struct CompoundType {
    pub(crate) size: usize,
    pub(crate) members: Vec<Member>,
}

impl CompoundType {
    /// Total size in bytes.
    pub const fn size(&self) -> usize {
        self.size
    }

    /// The members in insertion order.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// Number of members (`H5Tget_nmembers`).
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether there are no members yet.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The member with the given name.
    pub fn member(&self, name: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.name == name)
    }

    /// The index of the member with the given name (`H5Tget_member_index`).
    pub fn member_index(&self, name: &str) -> Option<usize> {
        self.members.iter().position(|m| m.name == name)
    }

    fn sorted(&self) -> Vec<&Member> {
        let mut v: Vec<&Member> = self.members.iter().collect();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v
    }
}

impl PartialEq for CompoundType {
    fn eq(&self, other: &Self) -> bool {
        self.size == other.size
            && self.members.len() == other.members.len()
            && self.sorted() == other.sorted()
    }
}

impl Eq for CompoundType {}

impl Hash for CompoundType {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.size.hash(state);
        self.sorted().hash(state);
    }
}

/// The kind of a reference type (`H5R_type_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReferenceKind {
    /// `H5T_STD_REF_OBJ` / `H5R_OBJECT1`: the address of an object header (size of offsets).
    Object,
    /// `H5T_STD_REF_DSETREG` / `H5R_DATASET_REGION1`: a global heap ID of a dataset region
    /// (size of offsets + 4).
    DatasetRegion,
    /// `H5T_STD_REF`: the revised reference (`H5R_ref_t`, 64 bytes in memory) that can hold
    /// any of the three revised kinds.
    Revised,
    /// `H5R_OBJECT2` as stored in a file (datatype message version 4).
    Object2,
    /// `H5R_DATASET_REGION2` as stored in a file.
    DatasetRegion2,
    /// `H5R_ATTR` as stored in a file.
    Attribute,
}

/// A reference type (`H5T_REFERENCE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReferenceType {
    pub(crate) kind: ReferenceKind,
    pub(crate) size: usize,
}

impl ReferenceType {
    /// A reference of `kind` with its natural size (8 for object, 12 for region, 64 for
    /// revised references in memory, 16 for the revised encoding stored in files as a
    /// global heap ID (size of offsets 8 + 4 + 4)).
    pub const fn new(kind: ReferenceKind) -> Self {
        let size = match kind {
            ReferenceKind::Object => 8,
            ReferenceKind::DatasetRegion => 12,
            ReferenceKind::Revised => 64,
            ReferenceKind::Object2 | ReferenceKind::DatasetRegion2 | ReferenceKind::Attribute => 16,
        };
        ReferenceType { kind, size }
    }

    /// A reference of `kind` with an explicit size (files with size of offsets other than 8).
    pub const fn with_size(kind: ReferenceKind, size: usize) -> Self {
        ReferenceType { kind, size }
    }

    /// The reference kind.
    pub const fn kind(&self) -> ReferenceKind {
        self.kind
    }

    /// Size in bytes.
    pub const fn size(&self) -> usize {
        self.size
    }
}

/// A member of an enum type: a name and a value in the base type's representation.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EnumMember {
    pub(crate) name: String,
    /// The value as stored: `base.size()` bytes in the base type's byte order.
    pub(crate) value: Vec<u8>,
}

impl EnumMember {
    /// The member's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The raw value: exactly `base.size()` bytes in the base type's byte order.
    pub fn raw_value(&self) -> &[u8] {
        &self.value
    }
}

/// An enumeration type (`H5T_ENUM`): an integer base type and named values.
#[derive(Clone, Debug)]
pub struct EnumType {
    pub(crate) base: IntegerType,
    pub(crate) members: Vec<EnumMember>,
}

impl EnumType {
    /// The base integer type (`H5Tget_super`).
    pub const fn base(&self) -> &IntegerType {
        &self.base
    }

    /// The members in insertion order.
    pub fn members(&self) -> &[EnumMember] {
        &self.members
    }

    /// Size in bytes (the base's).
    pub const fn size(&self) -> usize {
        self.base.atomic.size
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether there are no members.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    fn sorted(&self) -> Vec<&EnumMember> {
        let mut v: Vec<&EnumMember> = self.members.iter().collect();
        v.sort();
        v
    }
}

impl PartialEq for EnumType {
    fn eq(&self, other: &Self) -> bool {
        self.base == other.base
            && self.members.len() == other.members.len()
            && self.sorted() == other.sorted()
    }
}

impl Eq for EnumType {}

impl Hash for EnumType {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.base.hash(state);
        self.sorted().hash(state);
    }
}

/// A variable-length sequence type (`H5T_VLEN`) of a base type. Variable-length strings are
/// [`StringType`]s with [`StringSize::Variable`], as in the reference library's API.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct VarLenType {
    pub(crate) base: Box<Datatype>,
}

impl VarLenType {
    /// The element type (`H5Tget_super`).
    pub fn base(&self) -> &Datatype {
        &self.base
    }
}

/// An array type (`H5T_ARRAY`): a fixed-shape array of a base type, rank 1 to 32.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArrayType {
    pub(crate) dims: Vec<u64>,
    pub(crate) base: Box<Datatype>,
}

impl ArrayType {
    /// The dimension sizes (`H5Tget_array_dims`), each > 0.
    pub fn dims(&self) -> &[u64] {
        &self.dims
    }

    /// The rank (`H5Tget_array_ndims`).
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// The element type (`H5Tget_super`).
    pub fn base(&self) -> &Datatype {
        &self.base
    }

    /// The number of base elements.
    pub fn len(&self) -> u64 {
        self.dims.iter().product()
    }

    /// Whether the array has no elements (never true for a valid array type).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A complex number type (`H5T_COMPLEX`, HDF5 2.0): a real and an imaginary part of the same
/// float type, real first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ComplexType {
    pub(crate) base: FloatType,
}

impl ComplexType {
    /// A complex type with parts of type `base`.
    pub const fn new(base: FloatType) -> Self {
        ComplexType { base }
    }

    /// The type of each part (`H5Tget_super`).
    pub const fn base(&self) -> &FloatType {
        &self.base
    }

    /// Size in bytes: twice the base.
    pub const fn size(&self) -> usize {
        2 * self.base.atomic.size
    }
}

/// A time type (`H5T_TIME`). The file format defines it; the reference library implements
/// no operation on it. It is decoded so that files holding one can be listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeType {
    pub(crate) size: usize,
    pub(crate) order: ByteOrder,
    pub(crate) precision: usize,
}

impl TimeType {
    /// A time type as described by a datatype message.
    pub const fn new(size: usize, order: ByteOrder, precision: usize) -> Self {
        TimeType {
            size,
            order,
            precision,
        }
    }

    /// Size in bytes.
    pub const fn size(&self) -> usize {
        self.size
    }

    /// Byte order.
    pub const fn order(&self) -> ByteOrder {
        self.order
    }

    /// Precision in bits.
    pub const fn precision(&self) -> usize {
        self.precision
    }
}

/// An HDF5 datatype.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Datatype {
    /// `H5T_INTEGER`
    Integer(IntegerType),
    /// `H5T_FLOAT`
    Float(FloatType),
    /// `H5T_TIME`
    Time(TimeType),
    /// `H5T_STRING`, fixed or variable length.
    String(StringType),
    /// `H5T_BITFIELD`
    Bitfield(BitfieldType),
    /// `H5T_OPAQUE`
    Opaque(OpaqueType),
    /// `H5T_COMPOUND`
    Compound(CompoundType),
    /// `H5T_REFERENCE`
    Reference(ReferenceType),
    /// `H5T_ENUM`
    Enum(EnumType),
    /// `H5T_VLEN` sequence.
    VarLen(VarLenType),
    /// `H5T_ARRAY`
    Array(ArrayType),
    /// `H5T_COMPLEX`
    Complex(ComplexType),
}

/// Size in bytes of a variable-length element in memory (`hvl_t`: a length and a pointer).
pub const VLEN_MEMORY_SIZE: usize = 2 * core::mem::size_of::<usize>();

/// Size in bytes of a variable-length string in memory (`char *`).
pub const VLEN_STRING_MEMORY_SIZE: usize = core::mem::size_of::<usize>();

impl Datatype {
    /// The class (`H5Tget_class`).
    pub fn class(&self) -> Class {
        match self {
            Datatype::Integer(_) => Class::Integer,
            Datatype::Float(_) => Class::Float,
            Datatype::Time(_) => Class::Time,
            Datatype::String(_) => Class::String,
            Datatype::Bitfield(_) => Class::Bitfield,
            Datatype::Opaque(_) => Class::Opaque,
            Datatype::Compound(_) => Class::Compound,
            Datatype::Reference(_) => Class::Reference,
            Datatype::Enum(_) => Class::Enum,
            Datatype::VarLen(_) => Class::VarLen,
            Datatype::Array(_) => Class::Array,
            Datatype::Complex(_) => Class::Complex,
        }
    }

    /// Size in bytes of one element in memory (`H5Tget_size`). Variable-length strings and
    /// sequences report their in-memory handle size, as the reference library does.
    pub fn size(&self) -> usize {
        match self {
            Datatype::Integer(t) => t.atomic.size,
            Datatype::Float(t) => t.atomic.size,
            Datatype::Time(t) => t.size,
            Datatype::String(t) => match t.size {
                StringSize::Fixed(n) => n,
                StringSize::Variable => VLEN_STRING_MEMORY_SIZE,
            },
            Datatype::Bitfield(t) => t.atomic.size,
            Datatype::Opaque(t) => t.size,
            Datatype::Compound(t) => t.size,
            Datatype::Reference(t) => t.size,
            Datatype::Enum(t) => t.base.atomic.size,
            Datatype::VarLen(_) => VLEN_MEMORY_SIZE,
            Datatype::Array(t) => {
                let n: u64 = t.dims.iter().product();
                (n as usize).saturating_mul(t.base.size())
            }
            Datatype::Complex(t) => 2 * t.base.atomic.size,
        }
    }

    /// The bit layout, for the classes that have one (integer, float, bitfield, and enum
    /// through its base).
    pub fn atomic(&self) -> Option<&Atomic> {
        match self {
            Datatype::Integer(t) => Some(&t.atomic),
            Datatype::Float(t) => Some(&t.atomic),
            Datatype::Bitfield(t) => Some(&t.atomic),
            Datatype::Enum(t) => Some(&t.base.atomic),
            _ => None,
        }
    }

    /// Byte order, for the classes that have one (`H5Tget_order`); `None` for classes
    /// without a byte order (`H5T_ORDER_NONE`).
    pub fn order(&self) -> Option<ByteOrder> {
        match self {
            Datatype::Integer(t) => Some(t.atomic.order),
            Datatype::Float(t) => Some(t.atomic.order),
            Datatype::Time(t) => Some(t.order),
            Datatype::Bitfield(t) => Some(t.atomic.order),
            Datatype::Enum(t) => Some(t.base.atomic.order),
            Datatype::Complex(t) => Some(t.base.atomic.order),
            Datatype::Array(t) => t.base.order(),
            _ => None,
        }
    }

    /// Whether any part of this type is variable-length (`H5Tdetect_class(.., H5T_VLEN)`,
    /// counting variable-length strings).
    pub fn has_variable_length(&self) -> bool {
        match self {
            Datatype::String(s) => s.is_variable(),
            Datatype::VarLen(_) => true,
            Datatype::Array(a) => a.base.has_variable_length(),
            Datatype::Compound(c) => c.members.iter().any(|m| m.datatype.has_variable_length()),
            _ => false,
        }
    }

    /// Whether this type contains a member or base of class `class` (`H5Tdetect_class`).
    pub fn detect_class(&self, class: Class) -> bool {
        if self.class() == class {
            return true;
        }
        match self {
            Datatype::Array(a) => a.base.detect_class(class),
            Datatype::VarLen(v) => v.base.detect_class(class),
            Datatype::Compound(c) => c.members.iter().any(|m| m.datatype.detect_class(class)),
            Datatype::Enum(_) => class == Class::Integer,
            Datatype::Complex(_) => class == Class::Float,
            _ => false,
        }
    }

    /// The integer type, if this is one.
    pub fn as_integer(&self) -> Option<&IntegerType> {
        match self {
            Datatype::Integer(t) => Some(t),
            _ => None,
        }
    }

    /// The float type, if this is one.
    pub fn as_float(&self) -> Option<&FloatType> {
        match self {
            Datatype::Float(t) => Some(t),
            _ => None,
        }
    }

    /// The string type, if this is one.
    pub fn as_string(&self) -> Option<&StringType> {
        match self {
            Datatype::String(t) => Some(t),
            _ => None,
        }
    }

    /// The compound type, if this is one.
    pub fn as_compound(&self) -> Option<&CompoundType> {
        match self {
            Datatype::Compound(t) => Some(t),
            _ => None,
        }
    }

    /// The enum type, if this is one.
    pub fn as_enum(&self) -> Option<&EnumType> {
        match self {
            Datatype::Enum(t) => Some(t),
            _ => None,
        }
    }

    /// The array type, if this is one.
    pub fn as_array(&self) -> Option<&ArrayType> {
        match self {
            Datatype::Array(t) => Some(t),
            _ => None,
        }
    }

    /// The variable-length sequence type, if this is one.
    pub fn as_varlen(&self) -> Option<&VarLenType> {
        match self {
            Datatype::VarLen(t) => Some(t),
            _ => None,
        }
    }
}

macro_rules! impl_from {
    ($($t:ident => $v:ident),* $(,)?) => {
        $(impl From<$t> for Datatype {
            fn from(t: $t) -> Self {
                Datatype::$v(t)
            }
        })*
    };
}

impl_from! {
    IntegerType => Integer,
    FloatType => Float,
    TimeType => Time,
    StringType => String,
    BitfieldType => Bitfield,
    OpaqueType => Opaque,
    CompoundType => Compound,
    ReferenceType => Reference,
    EnumType => Enum,
    VarLenType => VarLen,
    ArrayType => Array,
    ComplexType => Complex,
}
