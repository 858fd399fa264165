//! Choosing a conversion path once per type pair and compiling it into kernels.

use super::compound::{ArrayPlan, CompoundPlan};
use super::enumeration::EnumPlan;
use super::except::Ctx;
use super::float::{
    FloatGeneral, FloatIntGeneral, HardFloatFloat, HardFloatInt, HardIntFloat, IntFloatGeneral,
    SoftFloatInt, SoftIntFloat, StdFloat,
};
use super::int::{BitGeneral, IntFast, IntGeneral, StdInt};
use super::packed;
use super::string::StringPlan;
use super::vlen::{SeqPlan, StrVarPlan};
use super::x87::{is_native_ldouble, FloatToX87, IntToX87, X87ToFloat, X87ToInt};
use super::Kernel;
use crate::{
    Atomic, ByteOrder, Datatype, Error, ErrorKind, FloatType, IntegerType, Norm, Pad, Result,
    StringSize,
};

/// A compiled conversion path.
#[derive(Clone, Debug)]
pub(crate) enum Plan {
    /// Equal types: copy.
    Noop {
        size: usize,
    },
    /// Same layout, opposite byte order: reverse the bytes of each element.
    Swap {
        size: usize,
    },
    IntFast(IntFast),
    IntGeneral(Box<IntGeneral>),
    Bitfield(Box<BitGeneral>),
    HardFloatFloat(HardFloatFloat),
    HardIntFloat(HardIntFloat),
    HardFloatInt(HardFloatInt),
    SoftIntFloat(SoftIntFloat),
    SoftFloatInt(SoftFloatInt),
    FloatGeneral(Box<FloatGeneral>),
    IntFloatGeneral(Box<IntFloatGeneral>),
    FloatIntGeneral(Box<FloatIntGeneral>),
    /// Enum to enum by member name.
    Enum(Box<EnumPlan>),
    /// Enum to a number: the enum's base type converted to the destination.
    EnumNumeric(Box<Plan>),
    String(StringPlan),
    StrVar(Box<StrVarPlan>),
    Compound(Box<CompoundPlan>),
    Array(Box<ArrayPlan>),
    Seq(Box<SeqPlan>),
    X87ToInt(X87ToInt),
    IntToX87(IntToX87),
    X87ToFloat(X87ToFloat),
    FloatToX87(FloatToX87),
}

fn no_path(src: &Datatype, dst: &Datatype, why: &str) -> Error {
    Error::new(
        ErrorKind::NoConversionPath,
        format!(
            "no conversion path from {} to {}: {why}",
            describe(src),
            describe(dst)
        ),
    )
}

fn order_name(o: ByteOrder) -> &'static str {
    match o {
        ByteOrder::LittleEndian => "little-endian",
        ByteOrder::BigEndian => "big-endian",
        ByteOrder::Vax => "VAX-order",
    }
}

/// A short description of a type for error messages.
pub(crate) fn describe(t: &Datatype) -> String {
    match t {
        Datatype::Integer(i) => format!(
            "{} {}-bit {} integer{}",
            order_name(i.order()),
            i.precision(),
            if i.is_signed() { "signed" } else { "unsigned" },
            layout_note(&i.atomic)
        ),
        Datatype::Float(f) => format!(
            "{} {}-bit float{}",
            order_name(f.order()),
            f.precision(),
            layout_note(&f.atomic)
        ),
        Datatype::Bitfield(b) => format!(
            "{} {}-bit bitfield",
            order_name(b.order()),
            b.atomic.precision
        ),
        Datatype::String(s) => match s.size {
            StringSize::Fixed(n) => format!("{n}-byte {:?} {:?} string", s.cset, s.pad),
            StringSize::Variable => format!("variable-length {:?} string", s.cset),
        },
        Datatype::Opaque(o) => format!("{}-byte opaque {:?}", o.size, o.tag),
        Datatype::Compound(c) => format!("{}-byte compound of {} members", c.size, c.members.len()),
        Datatype::Enum(e) => format!(
            "enum of {} members over a {}-byte integer",
            e.members.len(),
            e.size()
        ),
        Datatype::Array(a) => format!("array {:?} of {}", a.dims, describe(&a.base)),
        Datatype::VarLen(v) => format!("variable-length sequence of {}", describe(&v.base)),
        Datatype::Reference(r) => format!("{:?} reference", r.kind),
        Datatype::Time(t) => format!("{}-byte time", t.size),
        Datatype::Complex(c) => format!("complex of {}", describe(&Datatype::Float(c.base))),
    }
}

fn layout_note(a: &Atomic) -> String {
    if a.precision == 8 * a.size && a.offset == 0 {
        String::new()
    } else {
        format!(" in {} bytes at bit offset {}", a.size, a.offset)
    }
}

fn native_int(t: &IntegerType) -> Option<StdInt> {
    (matches!(t.size(), 1 | 2 | 4 | 8)
        && *t == IntegerType::new(t.size(), ByteOrder::NATIVE, t.sign()))
    .then(|| StdInt::of(t))
    .flatten()
}

fn native_float(t: &FloatType) -> Option<StdFloat> {
    let is = *t == FloatType::ieee(4, ByteOrder::NATIVE, 8, 23)
        || *t == FloatType::ieee(8, ByteOrder::NATIVE, 11, 52);
    is.then(|| StdFloat::of(t)).flatten()
}

fn opposite(a: ByteOrder, b: ByteOrder) -> bool {
    matches!(
        (a, b),
        (ByteOrder::LittleEndian, ByteOrder::BigEndian)
            | (ByteOrder::BigEndian, ByteOrder::LittleEndian)
    )
}

fn check_atomic(t: &Datatype, a: &Atomic, src: &Datatype, dst: &Datatype) -> Result<()> {
    let ok = a.size > 0
        && a.precision > 0
        && a.offset
            .checked_add(a.precision)
            .is_some_and(|e| e <= 8 * a.size);
    if !ok {
        return Err(no_path(
            src,
            dst,
            &format!("{} has an invalid bit layout", describe(t)),
        ));
    }
    Ok(())
}

fn check_float(t: &FloatType, src: &Datatype, dst: &Datatype) -> Result<()> {
    let bits = 8 * t.atomic.size;
    let ok = t.mant_size > 0
        && t.exp_size > 0
        && t.exp_size <= 63
        && t.sign_pos < bits
        && t.exp_pos + t.exp_size <= bits
        && t.mant_pos + t.mant_size <= bits;
    if !ok {
        return Err(no_path(
            src,
            dst,
            "a float needs a mantissa, an exponent of 1 to 63 bits and fields inside its size",
        ));
    }
    if t.atomic.order == ByteOrder::Vax && !t.atomic.size.is_multiple_of(2) {
        return Err(no_path(
            src,
            dst,
            "a VAX-order float must have an even size",
        ));
    }
    Ok(())
}

/// The general float algorithms stop with "normalization method not implemented yet" on
/// floats normalized with the most significant bit set; no path is offered for them.
fn check_norm(t: &FloatType, src: &Datatype, dst: &Datatype) -> Result<()> {
    if t.norm == Norm::MsbSet {
        return Err(no_path(
            src,
            dst,
            "floats normalized with the most significant bit set are not converted",
        ));
    }
    Ok(())
}

impl Plan {
    pub(crate) fn new(src: &Datatype, dst: &Datatype) -> Result<Plan> {
        use Datatype as D;
        if src == dst {
            return Ok(Plan::Noop { size: src.size() });
        }
        match (src, dst) {
            (D::Integer(s), D::Integer(d)) => {
                check_atomic(src, &s.atomic, src, dst)?;
                check_atomic(dst, &d.atomic, src, dst)?;
                if s.order() == ByteOrder::Vax || d.order() == ByteOrder::Vax {
                    return Err(no_path(src, dst, "integers have no VAX byte order"));
                }
                if s.size() == d.size()
                    && s.offset() == 0
                    && d.offset() == 0
                    && opposite(s.order(), d.order())
                {
                    return Ok(Plan::Swap { size: s.size() });
                }
                match (StdInt::of(s), StdInt::of(d)) {
                    (Some(a), Some(b)) => Ok(Plan::IntFast(IntFast { src: a, dst: b })),
                    _ => Ok(Plan::IntGeneral(Box::new(IntGeneral { src: *s, dst: *d }))),
                }
            }
            (D::Float(s), D::Float(d)) => {
                check_atomic(src, &s.atomic, src, dst)?;
                check_atomic(dst, &d.atomic, src, dst)?;
                check_float(s, src, dst)?;
                check_float(d, src, dst)?;
                if let (Some(a), Some(b)) = (native_float(s), native_float(d)) {
                    if a.size != b.size {
                        return Ok(Plan::HardFloatFloat(HardFloatFloat {
                            narrow: a.size > b.size,
                        }));
                    }
                }
                if let (true, Some(b)) = (is_native_ldouble(s), native_float(d)) {
                    return Ok(Plan::X87ToFloat(X87ToFloat { dst: b }));
                }
                if let (Some(a), true) = (native_float(s), is_native_ldouble(d)) {
                    return Ok(Plan::FloatToX87(FloatToX87 { src: a }));
                }
                let same_fields = s.sign_pos == d.sign_pos
                    && s.exp_pos == d.exp_pos
                    && s.exp_size == d.exp_size
                    && s.exp_bias == d.exp_bias
                    && s.mant_pos == d.mant_pos
                    && s.mant_size == d.mant_size
                    && s.norm == d.norm
                    && s.inpad == d.inpad;
                if s.size() == d.size()
                    && s.offset() == 0
                    && d.offset() == 0
                    && opposite(s.order(), d.order())
                    && same_fields
                {
                    return Ok(Plan::Swap { size: s.size() });
                }
                check_norm(s, src, dst)?;
                check_norm(d, src, dst)?;
                Ok(Plan::FloatGeneral(Box::new(FloatGeneral {
                    src: *s,
                    dst: *d,
                })))
            }
            (D::Integer(s), D::Float(d)) => {
                check_atomic(src, &s.atomic, src, dst)?;
                check_atomic(dst, &d.atomic, src, dst)?;
                check_float(d, src, dst)?;
                if s.order() == ByteOrder::Vax {
                    return Err(no_path(src, dst, "integers have no VAX byte order"));
                }
                if let (Some(a), Some(b)) = (native_int(s), native_float(d)) {
                    return Ok(Plan::HardIntFloat(HardIntFloat { src: a, dst: b }));
                }
                if let (Some(a), true) = (native_int(s), is_native_ldouble(d)) {
                    return Ok(Plan::IntToX87(IntToX87 { src: a }));
                }
                if let (Some(a), Some(b)) = (StdInt::of(s), StdFloat::of(d)) {
                    return Ok(Plan::SoftIntFloat(SoftIntFloat { src: a, dst: b }));
                }
                check_norm(d, src, dst)?;
                Ok(Plan::IntFloatGeneral(Box::new(IntFloatGeneral {
                    src: *s,
                    dst: *d,
                })))
            }
            (D::Float(s), D::Integer(d)) => {
                check_atomic(src, &s.atomic, src, dst)?;
                check_atomic(dst, &d.atomic, src, dst)?;
                check_float(s, src, dst)?;
                if d.order() == ByteOrder::Vax {
                    return Err(no_path(src, dst, "integers have no VAX byte order"));
                }
                if let (Some(a), Some(b)) = (native_float(s), native_int(d)) {
                    return Ok(Plan::HardFloatInt(HardFloatInt { src: a, dst: b }));
                }
                if let (true, Some(b)) = (is_native_ldouble(s), native_int(d)) {
                    return Ok(Plan::X87ToInt(X87ToInt { dst: b }));
                }
                if let (Some(a), Some(b)) = (StdFloat::of(s), StdInt::of(d)) {
                    return Ok(Plan::SoftFloatInt(SoftFloatInt { src: a, dst: b }));
                }
                check_norm(s, src, dst)?;
                Ok(Plan::FloatIntGeneral(Box::new(FloatIntGeneral {
                    src: *s,
                    dst: *d,
                })))
            }
            (D::Bitfield(s), D::Bitfield(d)) => {
                check_atomic(src, &s.atomic, src, dst)?;
                check_atomic(dst, &d.atomic, src, dst)?;
                if s.order() == ByteOrder::Vax || d.order() == ByteOrder::Vax {
                    return Err(no_path(src, dst, "bitfields have no VAX byte order"));
                }
                if d.atomic.lsb_pad == Pad::Background || d.atomic.msb_pad == Pad::Background {
                    return Err(no_path(
                        src,
                        dst,
                        "background padding of a bitfield is not supported",
                    ));
                }
                Ok(Plan::Bitfield(Box::new(BitGeneral { src: *s, dst: *d })))
            }
            (D::Enum(s), D::Enum(d)) => Ok(Plan::Enum(Box::new(
                EnumPlan::new(s, d).map_err(|why| no_path(src, dst, &why))?,
            ))),
            (D::Enum(s), D::Integer(_) | D::Float(_)) => {
                let base = Datatype::Integer(s.base);
                Ok(Plan::EnumNumeric(Box::new(Plan::new(&base, dst)?)))
            }
            (D::String(s), D::String(d)) => {
                if s.cset != d.cset {
                    return Err(no_path(
                        src,
                        dst,
                        "strings of different character sets are not converted",
                    ));
                }
                match (s.size, d.size) {
                    (StringSize::Fixed(a), StringSize::Fixed(b)) => {
                        if a == 0 || b == 0 {
                            return Err(no_path(src, dst, "a fixed-length string has size 0"));
                        }
                        Ok(Plan::String(StringPlan { src: *s, dst: *d }))
                    }
                    _ => Ok(Plan::StrVar(Box::new(StrVarPlan::new(*s, *d)))),
                }
            }
            (D::Compound(s), D::Compound(d)) => {
                Ok(Plan::Compound(Box::new(CompoundPlan::new(s, d, src, dst)?)))
            }
            (D::Array(s), D::Array(d)) => {
                if s.dims != d.dims {
                    return Err(no_path(src, dst, "array dimensions differ"));
                }
                let base = Plan::new(&s.base, &d.base)?;
                Ok(Plan::Array(Box::new(ArrayPlan {
                    count: usize::try_from(s.len())
                        .map_err(|_| no_path(src, dst, "array too large"))?,
                    src_base: s.base.size(),
                    dst_base: d.base.size(),
                    base,
                })))
            }
            (D::Complex(s), D::Complex(d)) => {
                let (sb, db) = (Datatype::Float(s.base), Datatype::Float(d.base));
                let base = Plan::new(&sb, &db)?;
                Ok(Plan::Array(Box::new(ArrayPlan {
                    count: 2,
                    src_base: sb.size(),
                    dst_base: db.size(),
                    base,
                })))
            }
            (D::VarLen(s), D::VarLen(d)) => {
                let base = Plan::new(&s.base, &d.base)?;
                Ok(Plan::Seq(Box::new(SeqPlan {
                    src_base: s.base.size(),
                    dst_base: d.base.size(),
                    base,
                })))
            }
            (D::Reference(s), D::Reference(d)) => {
                // Equal references were copied above; the reference library converts no
                // other pair.
                Err(no_path(
                    src,
                    dst,
                    if s.kind == d.kind {
                        "references of different sizes"
                    } else {
                        "references of different kinds"
                    },
                ))
            }
            (D::Opaque(_), D::Opaque(_)) => Err(no_path(
                src,
                dst,
                "opaque types convert only to an equal opaque type (same size and tag)",
            )),
            (D::Time(_), D::Time(_)) => Err(no_path(
                src,
                dst,
                "time types convert only to an equal time type",
            )),
            _ => Err(no_path(
                src,
                dst,
                &format!(
                    "no conversion from class {} to {}",
                    src.class().name(),
                    dst.class().name()
                ),
            )),
        }
    }

    /// Whether converting the elements in several calls gives the same results as one
    /// call (the path keeps no state from one element to the next; the general float
    /// paths do, for instance).
    pub(crate) fn is_stateless(&self) -> bool {
        match self {
            Plan::Noop { .. }
            | Plan::Swap { .. }
            | Plan::IntFast(_)
            | Plan::HardFloatFloat(_)
            | Plan::HardIntFloat(_)
            | Plan::HardFloatInt(_) => true,
            Plan::Compound(c) => c.is_stateless(),
            _ => false,
        }
    }

    pub(crate) fn needs_background(&self) -> bool {
        match self {
            Plan::Compound(_) => true,
            Plan::Array(a) => a.base.needs_background(),
            Plan::Seq(s) => s.base.needs_background(),
            _ => false,
        }
    }

    /// Whether the path writes every byte of every destination element, so that the
    /// destination's previous contents (the background) cannot show in the result when no
    /// handler is installed: compounds whose matched members cover the destination, and
    /// arrays of them.
    pub(crate) fn overwrites_dst(&self) -> bool {
        match self {
            Plan::Compound(c) => c.covers(),
            Plan::Array(a) => a.base.overwrites_dst(),
            _ => !self.needs_background(),
        }
    }

    pub(crate) fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()> {
        match self {
            Plan::Noop { size } => {
                copy_elements(src, ss, dst, ds, n, *size);
                Ok(())
            }
            Plan::Swap { size } => {
                swap_elements(src, ss, dst, ds, n, *size);
                Ok(())
            }
            Plan::IntFast(k) => k.run(src, ss, dst, ds, n, ctx),
            Plan::IntGeneral(k) => k.run(src, ss, dst, ds, n, ctx),
            Plan::Bitfield(k) => k.run(src, ss, dst, ds, n, ctx),
            Plan::HardFloatFloat(k) => k.run(src, ss, dst, ds, n, ctx),
            Plan::HardIntFloat(k) => k.run(src, ss, dst, ds, n, ctx),
            Plan::HardFloatInt(k) => with_int_dst(ctx, true, |ctx| k.run(src, ss, dst, ds, n, ctx)),
            Plan::SoftIntFloat(k) => k.run(src, ss, dst, ds, n, ctx),
            Plan::SoftFloatInt(k) => with_int_dst(ctx, true, |ctx| k.run(src, ss, dst, ds, n, ctx)),
            Plan::FloatGeneral(k) => {
                with_int_dst(ctx, false, |ctx| k.run(src, ss, dst, ds, n, ctx))
            }
            Plan::IntFloatGeneral(k) => k.run(src, ss, dst, ds, n, ctx),
            Plan::FloatIntGeneral(k) => {
                with_int_dst(ctx, true, |ctx| k.run(src, ss, dst, ds, n, ctx))
            }
            Plan::Enum(k) => k.run(src, ss, dst, ds, n, ctx),
            Plan::EnumNumeric(p) => p.run(src, ss, dst, ds, n, ctx),
            Plan::String(k) => k.run(src, ss, dst, ds, n, ctx),
            Plan::StrVar(k) => k.run(src, ss, dst, ds, n, ctx),
            Plan::Compound(k) => k.run(src, ss, dst, ds, n, ctx),
            Plan::Array(k) => k.run(src, ss, dst, ds, n, ctx),
            Plan::Seq(k) => k.run(src, ss, dst, ds, n, ctx),
            Plan::X87ToInt(k) => with_int_dst(ctx, true, |ctx| k.run(src, ss, dst, ds, n, ctx)),
            Plan::IntToX87(k) => k.run(src, ss, dst, ds, n, ctx),
            Plan::X87ToFloat(k) => k.run(src, ss, dst, ds, n, ctx),
            Plan::FloatToX87(k) => k.run(src, ss, dst, ds, n, ctx),
        }
    }
}

fn with_int_dst<T>(ctx: &mut Ctx, int: bool, f: impl FnOnce(&mut Ctx) -> T) -> T {
    let saved = ctx.dst_int;
    ctx.dst_int = int;
    let r = f(ctx);
    ctx.dst_int = saved;
    r
}

fn copy_elements(src: &[u8], ss: usize, dst: &mut [u8], ds: usize, n: usize, size: usize) {
    if ss == size && ds == size {
        dst[..n * size].copy_from_slice(&src[..n * size]);
        return;
    }
    if n == 0 {
        return;
    }
    // Strided (compound members): fixed-size moves for the common sizes, so that each
    // element is a load and a store rather than a call to `memcpy`.
    macro_rules! fixed {
        ($n:expr) => {{
            for (s, d) in src.chunks(ss).zip(dst.chunks_mut(ds)).take(n) {
                d[..$n].copy_from_slice(&s[..$n]);
            }
        }};
    }
    match size {
        _ if ss < size || ds < size => {
            for i in 0..n {
                dst[i * ds..i * ds + size].copy_from_slice(&src[i * ss..i * ss + size]);
            }
        }
        1 => fixed!(1),
        2 => fixed!(2),
        4 => fixed!(4),
        8 => fixed!(8),
        16 => fixed!(16),
        _ => {
            for i in 0..n {
                dst[i * ds..i * ds + size].copy_from_slice(&src[i * ss..i * ss + size]);
            }
        }
    }
}

fn swap_elements(src: &[u8], ss: usize, dst: &mut [u8], ds: usize, n: usize, size: usize) {
    if n == 0 {
        return;
    }
    macro_rules! fixed {
        ($t:ty, $n:expr) => {{
            if ss == $n && ds == $n {
                packed::map(src, $n, dst, $n, n, (), |s, d, ()| {
                    packed::reverse::<{ $n / 2 }>(s, d)
                });
            } else if ss >= $n && ds >= $n {
                for (s, d) in src.chunks(ss).zip(dst.chunks_mut(ds)).take(n) {
                    let a = packed::array::<$n>(s);
                    d[..$n].copy_from_slice(&<$t>::from_be_bytes(a).to_le_bytes());
                }
            } else {
                for i in 0..n {
                    let d = &mut dst[i * ds..i * ds + $n];
                    d.copy_from_slice(&src[i * ss..i * ss + $n]);
                    d.reverse();
                }
            }
            return;
        }};
    }
    match size {
        2 => fixed!(u16, 2),
        4 => fixed!(u32, 4),
        8 => fixed!(u64, 8),
        16 => fixed!(u128, 16),
        _ => {}
    }
    for i in 0..n {
        let d = &mut dst[i * ds..i * ds + size];
        d.copy_from_slice(&src[i * ss..i * ss + size]);
        d.reverse();
    }
}
