//! The native (in-memory, C layout) counterpart of a datatype (`H5Tget_native_type` with
//! `H5T_DIR_DEFAULT`), for x86-64 Linux, as the reference library computes it
//! (`H5T__get_native_type`):
//!
//! * integers map to the smallest C integer type whose precision is enough (`signed char`,
//!   `short`, `int`, `long`; beyond 64 bits `long long`), with the same sign;
//! * bitfields likewise to the native 8-, 16-, 32- or 64-bit bitfield;
//! * floats by size to `float` (up to 4 bytes), `double` (up to 8) or `long double`;
//! * strings, opaque and reference types are copied;
//! * compounds are rebuilt with native members laid out in member-index order with C
//!   alignment (each member aligned to its own alignment; a nested compound's alignment is the
//!   largest of its members'; the size rounded up to the alignment);
//! * enums get the native base and their values converted to it (as the reference library's
//!   conversion path does: a byte swap when only the byte order differs, otherwise an integer
//!   conversion of the significant bits); arrays and sequences get a native base.
//!
//! Time types have no native type (the reference library reports "not supported yet"); empty
//! compounds and enums fail as in the reference library.

use crate::datatype::*;
use crate::{bail, ensure, Error, ErrorKind, Result};

/// `long double` on x86-64: the 80-bit x87 extended format in 16 bytes, explicit leading
/// mantissa bit (as `H5T_NATIVE_LDOUBLE` reports it: precision 80, normalization none).
pub const NATIVE_LDOUBLE: FloatType = FloatType {
    atomic: Atomic {
        size: 16,
        order: ByteOrder::LittleEndian,
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

/// Alignment of `long double` on x86-64.
const LDOUBLE_ALIGN: usize = 16;
/// Alignment of pointers, `hvl_t` and `hobj_ref_t` on x86-64.
const POINTER_ALIGN: usize = 8;

/// The running layout of a compound being rebuilt (`H5T__cmp_offset`'s arguments).
#[derive(Default)]
struct Layout {
    /// Bytes used so far.
    size: usize,
    /// Largest member alignment so far.
    align: usize,
}

impl Layout {
    /// Place `count` elements of `elem` bytes aligned to `align`; return their offset.
    fn place(&mut self, elem: usize, count: usize, align: usize) -> Result<usize> {
        if align > 1 && !self.size.is_multiple_of(align) {
            self.size += align - self.size % align;
        }
        let offset = self.size;
        let bytes = elem.checked_mul(count);
        self.size = bytes
            .and_then(|b| self.size.checked_add(b))
            .ok_or_else(|| Error::new(ErrorKind::InvalidArgument, "native type is too large"))?;
        self.align = self.align.max(align);
        Ok(offset)
    }
}

fn native_integer(prec: usize, sign: Sign) -> (IntegerType, usize) {
    let size = match prec {
        0..=8 => 1,
        9..=16 => 2,
        17..=32 => 4,
        _ => 8,
    };
    (IntegerType::new(size, ByteOrder::LittleEndian, sign), size)
}

fn native_float(size: usize) -> (FloatType, usize) {
    if size <= 4 {
        (FloatType::ieee(4, ByteOrder::LittleEndian, 8, 23), 4)
    } else if size <= 8 {
        (FloatType::ieee(8, ByteOrder::LittleEndian, 11, 52), 8)
    } else {
        (NATIVE_LDOUBLE, LDOUBLE_ALIGN)
    }
}

impl Datatype {
    /// The native type of this datatype (`H5Tget_native_type(type, H5T_DIR_DEFAULT)`) on
    /// x86-64 Linux. See the module documentation for the rules.
    pub fn native_type(&self) -> Result<Datatype> {
        let mut top = Layout::default();
        Ok(self.native_in(&mut top)?.0)
    }

    /// The native type, with its space and alignment accounted in `layout` (the enclosing
    /// compound's, or a scratch one), and the offset it was given there.
    fn native_in(&self, layout: &mut Layout) -> Result<(Datatype, usize)> {
        let at;
        let t = match self {
            Datatype::Integer(t) => {
                let (n, align) = native_integer(t.precision(), t.sign());
                at = layout.place(n.size(), 1, align)?;
                Datatype::Integer(n)
            }
            Datatype::Bitfield(t) => {
                // Aligned like the unsigned integer of the same size (libhdf5 1.10 placed
                // bitfield members unaligned, reading the wrong alignment table; later
                // versions align them).
                let (n, _) = native_integer(t.atomic.precision, Sign::None);
                let size = n.size();
                at = layout.place(size, 1, size)?;
                Datatype::Bitfield(BitfieldType::new(size, ByteOrder::LittleEndian))
            }
            Datatype::Float(t) => {
                let (n, align) = native_float(t.size());
                at = layout.place(n.size(), 1, align)?;
                Datatype::Float(n)
            }
            Datatype::String(s) => {
                match s.string_size() {
                    StringSize::Variable => {
                        at = layout.place(VLEN_STRING_MEMORY_SIZE, 1, POINTER_ALIGN)?;
                    }
                    StringSize::Fixed(n) => at = layout.place(1, n, 1)?,
                }
                self.clone()
            }
            Datatype::Opaque(o) => {
                at = layout.place(1, o.size, 1)?;
                self.clone()
            }
            Datatype::Reference(r) => {
                let (size, align) = match (r.kind, r.size) {
                    (ReferenceKind::Object, 8) => (8, POINTER_ALIGN),
                    (ReferenceKind::DatasetRegion, 12) => (12, 1),
                    // H5R_ref_t: 64 bytes, aligned like its 64-bit fields.
                    _ => (64, POINTER_ALIGN),
                };
                at = layout.place(size, 1, align)?;
                self.clone()
            }
            Datatype::Time(_) => bail!(
                Unsupported,
                "native_type: time types have no native type (not supported by the reference library)"
            ),
            Datatype::Compound(c) => {
                ensure!(
                    !c.members.is_empty(),
                    InvalidArgument,
                    "native_type: the compound has no members"
                );
                let mut inner = Layout::default();
                let mut members = Vec::with_capacity(c.members.len());
                for m in &c.members {
                    let (t, offset) = m.datatype.native_in(&mut inner).map_err(|e| {
                        Error::new(e.kind(), format!("member {:?}: {}", m.name, e.message()))
                    })?;
                    members.push((m.name.clone(), offset, t));
                }
                if inner.align > 1 && inner.size % inner.align != 0 {
                    inner.size += inner.align - inner.size % inner.align;
                }
                let mut out = CompoundType::new(inner.size.max(1))?;
                for (name, offset, t) in members {
                    out.insert(&name, offset, t)?;
                }
                at = layout.place(inner.size, 1, inner.align)?;
                Datatype::Compound(out)
            }
            Datatype::Enum(e) => {
                ensure!(
                    !e.members.is_empty(),
                    InvalidArgument,
                    "native_type: the enum has no members"
                );
                let (base, align) = native_integer(e.base.precision(), e.base.sign());
                at = layout.place(base.size(), 1, align)?;
                let mut out = EnumType::new(base);
                // The reference library converts the values with its conversion path from the
                // base to the native base: a plain byte swap (padding bits included) when the
                // two differ only in byte order at offset 0 and have the same size, otherwise
                // the general integer conversion (significant bits only, saturating).
                let swap_only = e.base.offset() == 0
                    && e.base.size() == base.size()
                    && e.base.order() != base.order();
                for m in &e.members {
                    let raw = if swap_only {
                        m.value.iter().rev().copied().collect()
                    } else {
                        let v = clamp(&base, enum_value(&e.base, &m.value));
                        crate::compose::encode_int(&base, v).ok_or_else(|| {
                            Error::new(
                                ErrorKind::InvalidArgument,
                                format!("native_type: enum value of {:?} does not fit", m.name),
                            )
                        })?
                    };
                    out.insert_raw(&m.name, raw).map_err(|err| {
                        Error::new(
                            err.kind(),
                            format!("native_type: converting the enum values: {}", err.message()),
                        )
                    })?;
                }
                Datatype::Enum(out)
            }
            Datatype::Array(a) => {
                let mut inner = Layout::default();
                let (base, _) = a.base.native_in(&mut inner)?;
                let count = usize::try_from(a.len()).map_err(|_| {
                    Error::new(ErrorKind::InvalidArgument, "native_type: array is too large")
                })?;
                at = layout.place(inner.size, count, inner.align)?;
                Datatype::Array(ArrayType::new(base, &a.dims)?)
            }
            Datatype::VarLen(v) => {
                let mut scratch = Layout::default();
                let (base, _) = v.base.native_in(&mut scratch)?;
                at = layout.place(VLEN_MEMORY_SIZE, 1, POINTER_ALIGN)?;
                Datatype::VarLen(VarLenType::new(base))
            }
            Datatype::Complex(c) => {
                let (n, align) = native_float(c.base.size());
                at = layout.place(n.size(), 2, align)?;
                Datatype::Complex(ComplexType::new(n))
            }
        };
        Ok((t, at))
    }
}

/// An enum member's value as an integer of unbounded range, saturated to `i128`.
fn enum_value(base: &IntegerType, raw: &[u8]) -> i128 {
    if let Some(v) = crate::compose::decode_int(base, raw) {
        return v;
    }
    // Wider than i128: saturate by sign.
    let mut le = raw.to_vec();
    if base.order() == ByteOrder::BigEndian {
        le.reverse();
    }
    let top = (base.offset() + base.precision()).saturating_sub(1);
    let negative = base.is_signed() && le.get(top / 8).is_some_and(|b| b & (1 << (top % 8)) != 0);
    if negative {
        i128::MIN
    } else {
        i128::MAX
    }
}

/// Saturate `v` to the range of `t` (the reference library's integer conversion clamps on
/// overflow by default).
fn clamp(t: &IntegerType, v: i128) -> i128 {
    let prec = t.precision().clamp(1, 127);
    let (min, max) = if t.is_signed() {
        (-(1i128 << (prec - 1)), (1i128 << (prec - 1)) - 1)
    } else {
        (0, (1i128 << prec) - 1)
    };
    v.clamp(min, max)
}
