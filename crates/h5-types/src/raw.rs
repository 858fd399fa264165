//! Constructors from raw field values, for decoders of the file format: every field of the
//! atomic classes as the datatype message stores it, checked for consistency.

use crate::datatype::*;
use crate::{ensure, Result};

impl Atomic {
    /// A bit layout from its parts: `size` bytes (> 0), `precision` significant bits (> 0)
    /// starting at bit `offset`, all inside the `8 * size` bits.
    pub fn from_parts(
        size: usize,
        order: ByteOrder,
        precision: usize,
        offset: usize,
        lsb_pad: Pad,
        msb_pad: Pad,
    ) -> Result<Self> {
        ensure!(size > 0, InvalidArgument, "atomic size must be positive");
        ensure!(precision > 0, InvalidArgument, "precision must be positive");
        let bits = size.checked_mul(8);
        let end = offset.checked_add(precision);
        ensure!(
            matches!((bits, end), (Some(b), Some(e)) if e <= b),
            InvalidArgument,
            "offset {offset} plus precision {precision} exceeds {size} bytes"
        );
        Ok(Atomic {
            size,
            order,
            precision,
            offset,
            lsb_pad,
            msb_pad,
        })
    }
}

impl IntegerType {
    /// An integer with an explicit bit layout; the order must be little or big endian.
    pub fn from_parts(atomic: Atomic, sign: Sign) -> Result<Self> {
        ensure!(
            atomic.order != ByteOrder::Vax,
            InvalidArgument,
            "an integer cannot have VAX byte order"
        );
        Ok(IntegerType { atomic, sign })
    }
}

impl BitfieldType {
    /// A bitfield with an explicit bit layout; the order must be little or big endian.
    pub fn from_parts(atomic: Atomic) -> Result<Self> {
        ensure!(
            atomic.order != ByteOrder::Vax,
            InvalidArgument,
            "a bitfield cannot have VAX byte order"
        );
        Ok(BitfieldType { atomic })
    }
}

/// The floating-point fields of a [`FloatType`] besides its bit layout (`H5Tset_fields`,
/// `H5Tset_ebias`, `H5Tset_norm`, `H5Tset_inpad`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatFields {
    /// Bit position of the sign bit.
    pub sign_pos: usize,
    /// Bit position of the exponent's least significant bit.
    pub exp_pos: usize,
    /// Exponent width in bits.
    pub exp_size: usize,
    /// Bit position of the mantissa's least significant bit.
    pub mant_pos: usize,
    /// Mantissa width in bits.
    pub mant_size: usize,
    /// Exponent bias.
    pub exp_bias: u64,
    /// Mantissa normalization.
    pub norm: Norm,
    /// Padding of unused bits inside the precision.
    pub inpad: Pad,
}

impl FloatType {
    /// A float with explicit fields. The exponent must be non-empty (the mantissa may be
    /// empty, as `H5Tset_fields` and the reference decoder allow), the fields must end within
    /// the significant bits (below offset + precision, the bound the setters keep), and not
    /// overlap each other or the sign bit.
    pub fn from_parts(atomic: Atomic, f: FloatFields) -> Result<Self> {
        let lo = 0;
        let hi = atomic.offset + atomic.precision;
        ensure!(
            f.exp_size > 0,
            InvalidArgument,
            "exponent size must be positive"
        );
        ensure!(
            f.exp_size <= 64,
            InvalidArgument,
            "exponent size {} exceeds 64 bits",
            f.exp_size
        );
        let inside =
            |pos: usize, len: usize| pos.checked_add(len).is_some_and(|e| pos >= lo && e <= hi);
        ensure!(
            inside(f.sign_pos, 1)
                && inside(f.exp_pos, f.exp_size)
                && inside(f.mant_pos, f.mant_size),
            InvalidArgument,
            "sign, exponent or mantissa lies outside the {} significant bits at offset {}",
            atomic.precision,
            atomic.offset
        );
        let overlap = |a: usize, al: usize, b: usize, bl: usize| a < b + bl && b < a + al;
        ensure!(
            !overlap(f.exp_pos, f.exp_size, f.mant_pos, f.mant_size)
                && !overlap(f.sign_pos, 1, f.exp_pos, f.exp_size)
                && !overlap(f.sign_pos, 1, f.mant_pos, f.mant_size),
            InvalidArgument,
            "sign, exponent and mantissa fields overlap"
        );
        Ok(FloatType {
            atomic,
            sign_pos: f.sign_pos,
            exp_pos: f.exp_pos,
            exp_size: f.exp_size,
            mant_pos: f.mant_pos,
            mant_size: f.mant_size,
            exp_bias: f.exp_bias,
            norm: f.norm,
            inpad: f.inpad,
        })
    }

    /// The floating-point fields besides the bit layout.
    pub const fn fields(&self) -> FloatFields {
        FloatFields {
            sign_pos: self.sign_pos,
            exp_pos: self.exp_pos,
            exp_size: self.exp_size,
            mant_pos: self.mant_pos,
            mant_size: self.mant_size,
            exp_bias: self.exp_bias,
            norm: self.norm,
            inpad: self.inpad,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ieee_double_from_parts_equals_builtin() {
        let ieee = FloatType::ieee(8, ByteOrder::LittleEndian, 11, 52);
        let a =
            Atomic::from_parts(8, ByteOrder::LittleEndian, 64, 0, Pad::Zero, Pad::Zero).unwrap();
        let f = FloatType::from_parts(a, ieee.fields()).unwrap();
        assert_eq!(f, ieee);
    }

    #[test]
    fn rejects_inconsistent_layouts() {
        assert!(
            Atomic::from_parts(4, ByteOrder::LittleEndian, 33, 0, Pad::Zero, Pad::Zero).is_err()
        );
        assert!(
            Atomic::from_parts(0, ByteOrder::LittleEndian, 1, 0, Pad::Zero, Pad::Zero).is_err()
        );
        let a = Atomic::from_parts(4, ByteOrder::Vax, 32, 0, Pad::Zero, Pad::Zero).unwrap();
        assert!(IntegerType::from_parts(a, Sign::None).is_err());
        let a =
            Atomic::from_parts(4, ByteOrder::LittleEndian, 32, 0, Pad::Zero, Pad::Zero).unwrap();
        let mut fields = FloatType::ieee(4, ByteOrder::LittleEndian, 8, 23).fields();
        fields.exp_pos = 20; // overlaps the mantissa
        assert!(FloatType::from_parts(a, fields).is_err());
    }
}
