//! Random valid datatypes for property tests and fuzzing (feature `arbitrary`).
//!
//! Every class and property appears: integers and bitfields with custom precision, offset,
//! padding and byte order; floats with IEEE, x87 and custom layouts, VAX order, biases,
//! normalizations and internal padding; fixed and variable strings with every padding and
//! character set; opaque types with tags; references; time types; nested compounds with gaps
//! and members inserted out of order; enums over various bases; arrays of up to three
//! dimensions; variable-length sequences; complex numbers. Depth and sizes are bounded. Types
//! are built through the public constructors and setters, so they are valid by construction
//! (a setter that refuses simply leaves the type as it was).

use arbitrary::{Arbitrary, Result, Unstructured};

use crate::datatype::*;
use crate::native::NATIVE_LDOUBLE;

/// How deep composite types nest.
const MAX_DEPTH: u32 = 3;

impl<'a> Arbitrary<'a> for Datatype {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        any_type(u, MAX_DEPTH)
    }
}

fn order(u: &mut Unstructured<'_>) -> Result<ByteOrder> {
    Ok(if u.arbitrary()? {
        ByteOrder::LittleEndian
    } else {
        ByteOrder::BigEndian
    })
}

fn pad(u: &mut Unstructured<'_>) -> Result<Pad> {
    Ok(*u.choose(&[Pad::Zero, Pad::One, Pad::Background])?)
}

/// An integer, possibly with a custom layout.
pub fn integer(u: &mut Unstructured<'_>) -> Result<IntegerType> {
    let size = *u.choose(&[1, 2, 4, 8, 1, 2, 3, 4, 5, 8, 16])?;
    let sign = if u.arbitrary()? {
        Sign::TwosComplement
    } else {
        Sign::None
    };
    let mut t = IntegerType::new(size, order(u)?, sign);
    if u.ratio(1, 3)? {
        let prec = u.int_in_range(1..=size * 8)?;
        let _ = t.set_precision(prec);
        let off = u.int_in_range(0..=size * 8 - t.precision())?;
        let _ = t.set_offset(off);
        t.set_pad(pad(u)?, pad(u)?);
    }
    Ok(t)
}

fn float(u: &mut Unstructured<'_>) -> Result<FloatType> {
    let mut t = match u.int_in_range(0..=5)? {
        0 => FloatType::ieee(2, order(u)?, 5, 10),
        1 | 2 => FloatType::ieee(4, order(u)?, 8, 23),
        3 => FloatType::ieee(8, order(u)?, 11, 52),
        4 => NATIVE_LDOUBLE,
        _ => {
            // A custom layout: sign on top, exponent below it, mantissa at bit 0, possibly
            // with unused bits between exponent and mantissa.
            let size = u.int_in_range(1..=8)?;
            let bits = size * 8;
            let esize = u.int_in_range(1..=(bits - 1).min(15))?;
            let msize = u.int_in_range(0..=bits - 1 - esize)?;
            FloatType {
                atomic: Atomic::full(size, order(u)?),
                sign_pos: bits - 1,
                exp_pos: bits - 1 - esize,
                exp_size: esize,
                mant_pos: 0,
                mant_size: msize,
                exp_bias: (1u64 << (esize - 1)) - 1,
                norm: Norm::Implied,
                inpad: Pad::Zero,
            }
        }
    };
    if u.ratio(1, 4)? {
        t.set_order(ByteOrder::Vax);
    }
    if u.ratio(1, 4)? {
        t.set_ebias(u.int_in_range(0..=1 << 15)?);
        t.set_norm(*u.choose(&[Norm::Implied, Norm::MsbSet, Norm::None])?);
        t.set_inpad(pad(u)?);
        t.set_pad(pad(u)?, pad(u)?);
    }
    if u.ratio(1, 5)? {
        let extra = u.int_in_range(0..=16)?;
        let _ = t.set_offset(extra);
    }
    Ok(t)
}

fn string(u: &mut Unstructured<'_>) -> Result<StringType> {
    let pad = *u.choose(&[StrPad::NullTerm, StrPad::NullPad, StrPad::SpacePad])?;
    let cset = if u.arbitrary()? {
        CharSet::Ascii
    } else {
        CharSet::Utf8
    };
    Ok(if u.ratio(1, 3)? {
        StringType::variable(pad, cset)
    } else {
        StringType::fixed(u.int_in_range(1..=20)?, pad, cset)
    })
}

fn name(u: &mut Unstructured<'_>, i: usize) -> Result<String> {
    let stems = ["a", "b", "x", "value", "name with space", "é", "n"];
    Ok(format!("{}{i}", u.choose(&stems)?))
}

fn atomic_type(u: &mut Unstructured<'_>) -> Result<Datatype> {
    Ok(match u.int_in_range(0..=9)? {
        0..=2 => Datatype::Integer(integer(u)?),
        3 | 4 => Datatype::Float(float(u)?),
        5 => Datatype::String(string(u)?),
        6 => {
            let mut b = BitfieldType::new(*u.choose(&[1, 2, 4, 8])?, order(u)?);
            if u.arbitrary()? {
                let p = u.int_in_range(1..=b.size() * 8)?;
                let _ = b.set_precision(p);
            }
            Datatype::Bitfield(b)
        }
        7 => {
            let len = u.int_in_range(0..=12)?;
            let tag: String = (0..len)
                .map(|i| char::from(b'a' + (i as u8 % 26)))
                .collect();
            Datatype::Opaque(
                OpaqueType::new(u.int_in_range(1..=16)?, &tag)
                    .map_err(|_| arbitrary::Error::IncorrectFormat)?,
            )
        }
        8 => Datatype::Reference(ReferenceType::new(
            *u.choose(&[ReferenceKind::Object, ReferenceKind::DatasetRegion])?,
        )),
        _ => {
            if u.arbitrary()? {
                let size = *u.choose(&[4usize, 8])?;
                Datatype::Time(TimeType::new(size, order(u)?, size * 8))
            } else {
                Datatype::Complex(ComplexType::new(FloatType::ieee(
                    4,
                    ByteOrder::LittleEndian,
                    8,
                    23,
                )))
            }
        }
    })
}

fn any_type(u: &mut Unstructured<'_>, depth: u32) -> Result<Datatype> {
    if depth == 0 || u.ratio(1, 2)? {
        return atomic_type(u);
    }
    Ok(match u.int_in_range(0..=3)? {
        0 => {
            // Members at increasing offsets with gaps, inserted in a shuffled order.
            let n = u.int_in_range(0..=4)?;
            let mut placed = Vec::with_capacity(n);
            let mut offset = 0usize;
            for i in 0..n {
                offset += u.int_in_range(0..=3)?;
                let t = any_type(u, depth - 1)?;
                let size = t.size();
                placed.push((name(u, i)?, offset, t));
                offset += size;
            }
            let size = (offset + u.int_in_range(0..=4)?).max(1);
            let mut c = CompoundType::new(size).map_err(|_| arbitrary::Error::IncorrectFormat)?;
            while !placed.is_empty() {
                let k = u.choose_index(placed.len())?;
                let (name, offset, t) = placed.swap_remove(k);
                c.insert(&name, offset, t)
                    .map_err(|_| arbitrary::Error::IncorrectFormat)?;
            }
            Datatype::Compound(c)
        }
        1 => {
            let base = integer(u)?;
            let mut e = EnumType::new(base);
            let n = u.int_in_range(0..=5)?;
            let step = u.int_in_range(1..=3)?;
            for i in 0..n {
                let v = if base.is_signed() {
                    i as i128 * step - 2
                } else {
                    i as i128 * step
                };
                // Values that do not fit a narrow base are skipped.
                let _ = e.insert(&name(u, i)?, v);
            }
            Datatype::Enum(e)
        }
        2 => {
            let rank = u.int_in_range(1..=3)?;
            let dims: Vec<u64> = (0..rank)
                .map(|_| u.int_in_range(1..=4))
                .collect::<Result<_>>()?;
            let base = any_type(u, depth - 1)?;
            Datatype::Array(
                ArrayType::new(base, &dims).map_err(|_| arbitrary::Error::IncorrectFormat)?,
            )
        }
        _ => Datatype::VarLen(VarLenType::new(any_type(u, depth - 1)?)),
    })
}
