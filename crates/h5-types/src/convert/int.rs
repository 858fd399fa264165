//! Integer to integer conversions, and bitfield to bitfield.
//!
//! The reference library clamps: a value above the destination's range becomes its maximum
//! (`RangeHi`), one below becomes its minimum (`RangeLow`, zero for unsigned). Its hardware
//! paths for native integers and its general path (`H5T__conv_i_i`) agree on this, so one
//! fast kernel serves every pair of standard integers (1, 2, 4 or 8 bytes, full precision, any
//! byte order) and a bit-level kernel serves every other layout, of any size.

use super::bits::{self, Dir};
use super::except::{Action, Ctx, ExceptionKind, Special};
use super::Kernel;
use crate::{BitfieldType, ByteOrder, IntegerType, Pad, Result};

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
}

/// Fixed-width kernels for standard integers, monomorphized per size, sign and order so the
/// loops carry no per-element dispatch.
macro_rules! std_int_kernels {
    ($($name:ident: $t:ty, $n:expr;)*) => {
        $(
            #[inline(always)]
            #[allow(clippy::unnecessary_cast)]
            fn $name<const BE: bool>(b: &[u8]) -> i128 {
                let mut a = [0u8; $n];
                a.copy_from_slice(&b[..$n]);
                (if BE { <$t>::from_be_bytes(a) } else { <$t>::from_le_bytes(a) }) as i128
            }
        )*
    };
}
std_int_kernels! {
    ld_i8: i8, 1; ld_u8: u8, 1; ld_i16: i16, 2; ld_u16: u16, 2;
    ld_i32: i32, 4; ld_u32: u32, 4; ld_i64: i64, 8; ld_u64: u64, 8;
}

macro_rules! std_int_stores {
    ($($name:ident: $t:ty, $n:expr;)*) => {
        $(
            #[inline(always)]
            fn $name<const BE: bool>(b: &mut [u8], v: i128) {
                let v = v as $t;
                b[..$n].copy_from_slice(&if BE { v.to_be_bytes() } else { v.to_le_bytes() });
            }
        )*
    };
}
std_int_stores! {
    st_i8: i8, 1; st_u8: u8, 1; st_i16: i16, 2; st_u16: u16, 2;
    st_i32: i32, 4; st_u32: u32, 4; st_i64: i64, 8; st_u64: u64, 8;
}

type Load = fn(&[u8]) -> i128;
type Store = fn(&mut [u8], i128);

pub(crate) fn loader(t: StdInt) -> Load {
    match (t.size, t.signed, t.be) {
        (1, true, false) => ld_i8::<false>,
        (1, true, true) => ld_i8::<true>,
        (1, false, false) => ld_u8::<false>,
        (1, false, true) => ld_u8::<true>,
        (2, true, false) => ld_i16::<false>,
        (2, true, true) => ld_i16::<true>,
        (2, false, false) => ld_u16::<false>,
        (2, false, true) => ld_u16::<true>,
        (4, true, false) => ld_i32::<false>,
        (4, true, true) => ld_i32::<true>,
        (4, false, false) => ld_u32::<false>,
        (4, false, true) => ld_u32::<true>,
        (8, true, false) => ld_i64::<false>,
        (8, true, true) => ld_i64::<true>,
        (8, false, false) => ld_u64::<false>,
        _ => ld_u64::<true>,
    }
}

pub(crate) fn storer(t: StdInt) -> Store {
    match (t.size, t.signed, t.be) {
        (1, true, false) => st_i8::<false>,
        (1, true, true) => st_i8::<true>,
        (1, false, false) => st_u8::<false>,
        (1, false, true) => st_u8::<true>,
        (2, true, false) => st_i16::<false>,
        (2, true, true) => st_i16::<true>,
        (2, false, false) => st_u16::<false>,
        (2, false, true) => st_u16::<true>,
        (4, true, false) => st_i32::<false>,
        (4, true, true) => st_i32::<true>,
        (4, false, false) => st_u32::<false>,
        (4, false, true) => st_u32::<true>,
        (8, true, false) => st_i64::<false>,
        (8, true, true) => st_i64::<true>,
        (8, false, false) => st_u64::<false>,
        _ => st_u64::<true>,
    }
}

/// Standard integer to standard integer, clamping.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IntFast {
    pub(crate) src: StdInt,
    pub(crate) dst: StdInt,
}

/// The fast clamp loop, generic over the element loaders so each pair gets its own code.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn clamp_loop(
    src: &[u8],
    ss: usize,
    dst: &mut [u8],
    ds: usize,
    n: usize,
    (sz, dz): (usize, usize),
    (min, max): (i128, i128),
    load: impl Fn(&[u8]) -> i128,
    store: impl Fn(&mut [u8], i128),
) -> (u64, u64) {
    let (mut hi, mut lo) = (0u64, 0u64);
    if ss == sz && ds == dz {
        for (s, d) in src[..n * sz]
            .chunks_exact(sz)
            .zip(dst[..n * dz].chunks_exact_mut(dz))
        {
            let v = load(s);
            hi += u64::from(v > max);
            lo += u64::from(v < min);
            store(d, v.clamp(min, max));
        }
    } else {
        for i in 0..n {
            let v = load(&src[i * ss..]);
            hi += u64::from(v > max);
            lo += u64::from(v < min);
            store(&mut dst[i * ds..], v.clamp(min, max));
        }
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
        let (min, max) = (d.min(), d.max());
        let ld = loader(s);
        let st = storer(d);
        let (hi, lo) = clamp_loop(src, ss, dst, ds, n, (s.size, d.size), (min, max), ld, st);
        if hi + lo == 0 {
            return Ok(());
        }
        if !ctx.per_element() {
            ctx.count(ExceptionKind::RangeHi, hi);
            ctx.count(ExceptionKind::RangeLow, lo);
            return Ok(());
        }
        // Rare: raise the exceptions one by one, in element order.
        for i in 0..n {
            let se = &src[i * ss..i * ss + s.size];
            let v = ld(se);
            let kind = if v > max {
                ExceptionKind::RangeHi
            } else if v < min {
                ExceptionKind::RangeLow
            } else {
                continue;
            };
            let de = &mut dst[i * ds..i * ds + d.size];
            if ctx.raise(kind, i, se, de, Special::None)? == Action::Unhandled {
                st(de, v.clamp(min, max));
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
                if ctx.raise(ExceptionKind::RangeHi, i, se, de, Special::None)? == Action::Handled {
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
