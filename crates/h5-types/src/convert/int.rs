//! Integer to integer conversions, and bitfield to bitfield.
//!
//! The reference library clamps: a value above the destination's range becomes its maximum
//! (`RangeHi`), one below becomes its minimum (`RangeLow`, zero for unsigned). Its hardware
//! paths for native integers and its general path (`H5T__conv_i_i`) agree on this, so one
//! fast kernel serves every pair of standard integers (1, 2, 4 or 8 bytes, full precision, any
//! byte order) and a bit-level kernel serves every other layout, of any size.

use super::bits::{self, Dir};
use super::except::{Action, Ctx, ExceptionKind, Special};
use super::packed;
use super::Kernel;
use crate::{BitfieldType, ByteOrder, IntegerType, Loss, Pad, Result};

/// A standard integer: 1, 2, 4 or 8 bytes, every bit significant, little- or big-endian.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StdInt {
    pub(crate) size: usize,
    pub(crate) signed: bool,
    pub(crate) be: bool,
}

impl StdInt {
    pub(crate) fn of(t: &IntegerType) -> Option<StdInt> {
        let a = &t.atomic;
        let ok = matches!(a.size, 1 | 2 | 4 | 8)
            && a.precision == 8 * a.size
            && a.offset == 0
            && matches!(a.order, ByteOrder::LittleEndian | ByteOrder::BigEndian);
        ok.then_some(StdInt {
            size: a.size,
            signed: t.is_signed(),
            be: a.order == ByteOrder::BigEndian,
        })
    }

    #[inline(always)]
    pub(crate) fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (8 * self.size - 1))
        } else {
            0
        }
    }

    #[inline(always)]
    pub(crate) fn max(self) -> i128 {
        if self.signed {
            (1i128 << (8 * self.size - 1)) - 1
        } else {
            (1i128 << (8 * self.size)) - 1
        }
    }

    /// Read one value (slow path: exceptions).
    pub(crate) fn load(self, b: &[u8]) -> i128 {
        let mut raw = [0u8; 8];
        raw[..self.size].copy_from_slice(&b[..self.size]);
        if self.be {
            raw[..self.size].reverse();
        }
        let u = u64::from_le_bytes(raw);
        if self.signed {
            let sh = 64 - 8 * self.size as u32;
            i128::from(((u << sh) as i64) >> sh)
        } else {
            i128::from(u)
        }
    }

    /// Write the low `8 * size` bits of a value (slow path: exceptions).
    pub(crate) fn store(self, b: &mut [u8], v: i128) {
        let raw = (v as u64).to_le_bytes();
        b[..self.size].copy_from_slice(&raw[..self.size]);
        if self.be {
            b[..self.size].reverse();
        }
    }
}

/// A standard integer as a Rust type, so that kernels are monomorphized per type and byte
/// order and their loops carry no per-element dispatch.
pub(crate) trait Lane: Copy + 'static {
    const N: usize;
    const MIN: i128;
    const MAX: i128;
    fn ld<const BE: bool>(b: &[u8]) -> Self;
    fn st<const BE: bool>(self, b: &mut [u8]);
    fn wide(self) -> i128;
    /// The low bits of a wide value (wrapping).
    fn narrow(w: i128) -> Self;
    /// The value as a 64-bit integer (wrapping for `u64`), for the fast clamp loops.
    fn to_i64(self) -> i64;
    /// The low bits of a 64-bit value (wrapping).
    fn from_i64(w: i64) -> Self;
    fn to_f32(self) -> f32;
    fn to_f64(self) -> f64;
    /// Rust's saturating float-to-integer cast (NaN to zero).
    fn sat(x: f64) -> Self;
}

macro_rules! lanes {
    ($($t:ty),*) => {
        $(
            impl Lane for $t {
                const N: usize = std::mem::size_of::<$t>();
                const MIN: i128 = <$t>::MIN as i128;
                const MAX: i128 = <$t>::MAX as i128;
                #[inline(always)]
                fn ld<const BE: bool>(b: &[u8]) -> Self {
                    let mut a = [0u8; std::mem::size_of::<$t>()];
                    a.copy_from_slice(&b[..std::mem::size_of::<$t>()]);
                    if BE { <$t>::from_be_bytes(a) } else { <$t>::from_le_bytes(a) }
                }
                #[inline(always)]
                fn st<const BE: bool>(self, b: &mut [u8]) {
                    b[..std::mem::size_of::<$t>()]
                        .copy_from_slice(&if BE { self.to_be_bytes() } else { self.to_le_bytes() });
                }
                #[inline(always)]
                fn wide(self) -> i128 {
                    self as i128
                }
                #[inline(always)]
                fn narrow(w: i128) -> Self {
                    w as $t
                }
                #[inline(always)]
                fn to_i64(self) -> i64 {
                    self as i64
                }
                #[inline(always)]
                fn from_i64(w: i64) -> Self {
                    w as $t
                }
                #[inline(always)]
                fn to_f32(self) -> f32 {
                    self as f32
                }
                #[inline(always)]
                fn to_f64(self) -> f64 {
                    self as f64
                }
                #[inline(always)]
                fn sat(x: f64) -> Self {
                    x as $t
                }
            }
        )*
    };
}
lanes!(i8, u8, i16, u16, i32, u32, i64, u64);

/// Run `$body` with `$L` bound to the Rust type of a standard integer and `$BE` to its byte
/// order as a constant.
macro_rules! with_int {
    ($t:expr, $L:ident, $BE:ident, $body:expr) => {{
        let t: $crate::convert::int::StdInt = $t;
        macro_rules! order {
            ($ty:ty) => {{
                #[allow(dead_code)]
                type $L = $ty;
                if t.be {
                    const $BE: bool = true;
                    $body
                } else {
                    const $BE: bool = false;
                    $body
                }
            }};
        }
        match (t.size, t.signed) {
            (1, true) => order!(i8),
            (1, false) => order!(u8),
            (2, true) => order!(i16),
            (2, false) => order!(u16),
            (4, true) => order!(i32),
            (4, false) => order!(u32),
            (8, true) => order!(i64),
            _ => order!(u64),
        }
    }};
}
pub(crate) use with_int;

/// Standard integer to standard integer, clamping.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IntFast {
    pub(crate) src: StdInt,
    pub(crate) dst: StdInt,
}

/// The clamp loop for one pair of types and orders; returns the numbers of values above and
/// below the destination's range.
#[inline(never)]
fn clamp_loop<S: Lane, D: Lane, const SBE: bool, const DBE: bool>(
    src: &[u8],
    ss: usize,
    dst: &mut [u8],
    ds: usize,
    n: usize,
) -> (u64, u64) {
    if ss == S::N && ds == D::N {
        return clamp_packed::<S, D, SBE, DBE>(src, dst, n);
    }
    // Strided (compound members): blocks of elements go through a short loop that only
    // notes whether anything was clamped; the values out of range in a block where
    // something was are then counted while the block is in cache.
    const BLOCK: usize = 256;
    // Clamp in 64-bit arithmetic unless an unsigned 64-bit type is involved.
    let narrow_math = S::MAX <= i128::from(i64::MAX) && D::MAX <= i128::from(i64::MAX);
    let clamp = |s: &[u8], d: &mut [u8]| -> bool {
        if narrow_math {
            let v = S::ld::<SBE>(s).to_i64();
            let c = v.clamp(D::MIN as i64, D::MAX as i64);
            D::from_i64(c).st::<DBE>(d);
            c != v
        } else {
            let v = S::ld::<SBE>(s).wide();
            let c = v.clamp(D::MIN, D::MAX);
            D::narrow(c).st::<DBE>(d);
            c != v
        }
    };
    let (mut hi, mut lo) = (0u64, 0u64);
    let mut count = |s: &[u8]| {
        let v = S::ld::<SBE>(s).wide();
        hi += u64::from(v > D::MAX);
        lo += u64::from(v < D::MIN);
    };
    let mut start = 0;
    while start < n {
        let end = n.min(start + BLOCK);
        let mut clamped = false;
        for i in start..end {
            clamped |= clamp(&src[i * ss..i * ss + S::N], &mut dst[i * ds..i * ds + D::N]);
        }
        if clamped {
            (start..end).for_each(|i| count(&src[i * ss..i * ss + S::N]));
        }
        start = end;
    }
    (hi, lo)
}

/// [`clamp_loop`] on packed elements: each element is clamped and counted in one step
/// without a branch, so that the loop vectorizes. The arithmetic is the narrowest that
/// holds both ranges, as SSE2 compares 32-bit lanes directly but 64-bit ones only through
/// several instructions: a 64-bit source clamped to a destination of 8 or 16 bits is first
/// saturated to 32 bits from its two halves (strictly inside that range, the saturated
/// value tells the side of an overflow). Counts are kept per block in 32-bit
/// lanes.
#[inline(always)]
fn clamp_packed<S: Lane, D: Lane, const SBE: bool, const DBE: bool>(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
) -> (u64, u64) {
    const BLOCK: usize = 1 << 16;
    let in32 = |min: i128, max: i128| min >= i128::from(i32::MIN) && max <= i128::from(i32::MAX);
    let (dmin, dmax) = (D::MIN as i32, D::MAX as i32);
    let (mut hi, mut lo) = (0u64, 0u64);
    for (sb, db) in src[..n * S::N]
        .chunks(BLOCK * S::N)
        .zip(dst[..n * D::N].chunks_mut(BLOCK * D::N))
    {
        let m = sb.len() / S::N;
        let (h, l) = if in32(S::MIN, S::MAX) && in32(D::MIN, D::MAX) {
            packed::map(sb, S::N, db, D::N, m, (0u32, 0u32), |s, d, (h, l)| {
                let v = S::ld::<SBE>(s).to_i64() as i32;
                D::from_i64(i64::from(v.clamp(dmin, dmax))).st::<DBE>(d);
                (h + u32::from(v > dmax), l + u32::from(v < dmin))
            })
        } else if S::N == 8 && D::N < 4 {
            let signed = S::MIN < 0;
            packed::map(sb, 8, db, D::N, m, (0u32, 0u32), |s, d, (h, l)| {
                // The halves loaded apart: from one 64-bit load, LLVM folds the
                // saturation back into 64-bit compares, which SSE2 lacks, and the loop
                // stays scalar.
                let half = |b: &[u8]| i32::ld::<SBE>(b);
                let (low, high) = if SBE {
                    (half(&s[4..]), half(s))
                } else {
                    (half(s), half(&s[4..]))
                };
                // The value saturated to the 32-bit range: the low half when the high
                // half only extends its sign (or is zero, unsigned), else the bound on
                // the value's side.
                let v = if signed {
                    if high == low >> 31 {
                        low
                    } else {
                        (high >> 31) ^ i32::MAX
                    }
                } else if high | (low >> 31) == 0 {
                    low
                } else {
                    i32::MAX
                };
                D::from_i64(i64::from(v.clamp(dmin, dmax))).st::<DBE>(d);
                (h + u32::from(v > dmax), l + u32::from(v < dmin))
            })
        } else if S::MAX <= i128::from(i64::MAX) && D::MAX <= i128::from(i64::MAX) {
            let (dmin, dmax) = (D::MIN as i64, D::MAX as i64);
            packed::map(sb, S::N, db, D::N, m, (0u32, 0u32), |s, d, (h, l)| {
                let v = S::ld::<SBE>(s).to_i64();
                D::from_i64(v.clamp(dmin, dmax)).st::<DBE>(d);
                (h + u32::from(v > dmax), l + u32::from(v < dmin))
            })
        } else {
            packed::map(sb, S::N, db, D::N, m, (0u32, 0u32), |s, d, (h, l)| {
                let v = S::ld::<SBE>(s).wide();
                D::narrow(v.clamp(D::MIN, D::MAX)).st::<DBE>(d);
                (h + u32::from(v > D::MAX), l + u32::from(v < D::MIN))
            })
        };
        hi += u64::from(h);
        lo += u64::from(l);
    }
    (hi, lo)
}

impl Kernel for IntFast {
    fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()> {
        let (s, d) = (self.src, self.dst);
        let (hi, lo) = with_int!(
            s,
            S,
            SBE,
            with_int!(d, D, DBE, clamp_loop::<S, D, SBE, DBE>(src, ss, dst, ds, n))
        );
        if hi + lo == 0 {
            return Ok(());
        }
        if !ctx.per_element() {
            ctx.count(ExceptionKind::RangeHi, hi);
            ctx.count(ExceptionKind::RangeLow, lo);
            return Ok(());
        }
        // Rare: raise the exceptions one by one, in element order.
        let (min, max) = (d.min(), d.max());
        for i in 0..n {
            let se = &src[i * ss..i * ss + s.size];
            let v = s.load(se);
            let kind = if v > max {
                ExceptionKind::RangeHi
            } else if v < min {
                ExceptionKind::RangeLow
            } else {
                continue;
            };
            let de = &mut dst[i * ds..i * ds + d.size];
            if ctx.raise(kind, i, se, de, Special::None)? == Action::Unhandled {
                d.store(de, v.clamp(min, max));
            }
        }
        Ok(())
    }
}

/// Any integer layout to any other (`H5T__conv_i_i`), bit by bit.
#[derive(Clone, Debug)]
pub(crate) struct IntGeneral {
    pub(crate) src: IntegerType,
    pub(crate) dst: IntegerType,
}

pub(crate) fn pad_bits(d: &mut [u8], offset: usize, prec: usize, lsb: Pad, msb: Pad) {
    if offset > 0 {
        bits::set(d, 0, offset, lsb == Pad::One);
    }
    let total = 8 * d.len();
    if offset + prec < total {
        bits::set(d, offset + prec, total - (offset + prec), msb == Pad::One);
    }
}

impl Kernel for IntGeneral {
    fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()> {
        let (sa, da) = (&self.src.atomic, &self.dst.atomic);
        let (sp, so, dp, doff) = (sa.precision, sa.offset, da.precision, da.offset);
        let ssigned = self.src.is_signed();
        let dsigned = self.dst.is_signed();
        let mut s = vec![0u8; sa.size];
        let mut d = vec![0u8; da.size];
        'elements: for i in 0..n {
            let se = &src[i * ss..i * ss + sa.size];
            s.copy_from_slice(se);
            bits::to_le(&mut s, sa.order);
            d.fill(0);
            let first = bits::find(&s, so, sp, Dir::Msb, true);
            // Either an exception with its default, or a plain copy.
            let mut exc: Option<(ExceptionKind, Fill)> = None;
            match first {
                None => bits::set(&mut d, doff, dp, false),
                Some(first) => match (ssigned, dsigned) {
                    (false, false) => {
                        if sp <= dp {
                            bits::copy(&mut d, doff, &s, so, sp);
                            bits::set(&mut d, doff + sp, dp - sp, false);
                        } else if first >= dp {
                            exc = Some((ExceptionKind::RangeHi, Fill::AllOnes));
                        } else {
                            bits::copy(&mut d, doff, &s, so, dp);
                        }
                    }
                    (true, false) => {
                        if first + 1 == sp {
                            exc = Some((ExceptionKind::RangeLow, Fill::Zero));
                        } else if sp < dp {
                            bits::copy(&mut d, doff, &s, so, sp - 1);
                            bits::set(&mut d, doff + sp - 1, dp - sp + 1, false);
                        } else if first >= dp {
                            exc = Some((ExceptionKind::RangeHi, Fill::AllOnes));
                        } else {
                            bits::copy(&mut d, doff, &s, so, dp);
                        }
                    }
                    (false, true) => {
                        if first + 1 >= dp {
                            exc = Some((ExceptionKind::RangeHi, Fill::SignedMax));
                        } else if sp < dp {
                            bits::copy(&mut d, doff, &s, so, sp);
                            bits::set(&mut d, doff + sp, dp - sp, false);
                        } else {
                            bits::copy(&mut d, doff, &s, so, dp);
                        }
                    }
                    (true, true) => {
                        if first + 1 == sp {
                            // Negative: the most significant zero below the sign bit says
                            // how many bits the magnitude needs.
                            let fz = bits::find(&s, so, sp - 1, Dir::Msb, false);
                            if fz.is_some_and(|fz| fz + 1 >= dp) {
                                exc = Some((ExceptionKind::RangeLow, Fill::SignedMin));
                            } else if sp < dp {
                                bits::copy(&mut d, doff, &s, so, sp);
                                bits::set(&mut d, doff + sp, dp - sp, true);
                            } else {
                                bits::copy(&mut d, doff, &s, so, dp);
                            }
                        } else if first + 1 >= dp {
                            exc = Some((ExceptionKind::RangeHi, Fill::SignedMax));
                        } else if sp < dp {
                            bits::copy(&mut d, doff, &s, so, sp);
                            bits::set(&mut d, doff + sp, dp - sp, false);
                        } else {
                            bits::copy(&mut d, doff, &s, so, dp);
                        }
                    }
                },
            }
            if let Some((kind, fill)) = exc {
                let de = &mut dst[i * ds..i * ds + da.size];
                if ctx.raise(kind, i, se, de, Special::None)? == Action::Handled {
                    continue 'elements;
                }
                fill.apply(&mut d, doff, dp);
            }
            pad_bits(&mut d, doff, dp, da.lsb_pad, da.msb_pad);
            bits::from_le(&mut d, da.order);
            dst[i * ds..i * ds + da.size].copy_from_slice(&d);
        }
        Ok(())
    }
}

/// The default value written for an integer overflow.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Fill {
    Zero,
    AllOnes,
    SignedMax,
    SignedMin,
}

impl Fill {
    pub(crate) fn apply(self, d: &mut [u8], off: usize, prec: usize) {
        match self {
            Fill::Zero => bits::set(d, off, prec, false),
            Fill::AllOnes => bits::set(d, off, prec, true),
            Fill::SignedMax => {
                bits::set(d, off, prec - 1, true);
                bits::set(d, off + prec - 1, 1, false);
            }
            Fill::SignedMin => {
                bits::set(d, off, prec - 1, false);
                bits::set(d, off + prec - 1, 1, true);
            }
        }
    }
}

/// Bitfield to bitfield (`H5T__conv_b_b`): the low bits are copied; a source with more
/// precision than the destination raises `RangeHi` for every element, whatever its value.
#[derive(Clone, Debug)]
pub(crate) struct BitGeneral {
    pub(crate) src: BitfieldType,
    pub(crate) dst: BitfieldType,
}

impl Kernel for BitGeneral {
    fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()> {
        let (sa, da) = (&self.src.atomic, &self.dst.atomic);
        let mut s = vec![0u8; sa.size];
        let mut d = vec![0u8; da.size];
        for i in 0..n {
            let se = &src[i * ss..i * ss + sa.size];
            s.copy_from_slice(se);
            bits::to_le(&mut s, sa.order);
            d.fill(0);
            if sa.precision > da.precision {
                let de = &mut dst[i * ds..i * ds + da.size];
                // Raised for every element; only set bits past the destination's are lost.
                let dropped = sa.offset + da.precision;
                let loss = bits::find(&s, dropped, sa.precision - da.precision, Dir::Lsb, true)
                    .map(|_| Loss::BitsDropped);
                if ctx.raise_as(ExceptionKind::RangeHi, i, se, de, Special::None, loss)?
                    == Action::Handled
                {
                    continue;
                }
                bits::copy(&mut d, da.offset, &s, sa.offset, da.precision);
            } else {
                bits::copy(&mut d, da.offset, &s, sa.offset, sa.precision);
                bits::set(
                    &mut d,
                    da.offset + sa.precision,
                    da.precision - sa.precision,
                    false,
                );
            }
            pad_bits(&mut d, da.offset, da.precision, da.lsb_pad, da.msb_pad);
            bits::from_le(&mut d, da.order);
            dst[i * ds..i * ds + da.size].copy_from_slice(&d);
        }
        Ok(())
    }
}
