//! Float to float, integer to float and float to integer conversions.
//!
//! Three families, chosen once per type pair by the plan:
//!
//! * **Hardware paths** for the native types (`f32`/`f64` little-endian and the native
//!   integers): the reference library uses C casts there, so these kernels round to nearest
//!   even and reproduce what x86-64 does where C leaves the result undefined (a NaN or an
//!   out-of-range float cast to an integer).
//! * **Fast software paths** for IEEE `f32`/`f64` and standard integers in any byte order that
//!   are not both native: they give the results of the reference library's general
//!   algorithms (`H5T__conv_i_f`, `H5T__conv_f_i`) with native arithmetic.
//! * **General paths** for every other layout (any size, field positions, exponent bias,
//!   normalization, VAX order): step-by-step bit-level versions of the reference library's
//!   algorithms, including their rounding (`H5T__conv_f_f` rounds half away from zero) and
//!   their quirks (see the module documentation of `convert`).

use super::bits::{self, Dir};
use super::except::{Action, Ctx, ExceptionKind, Special};
use super::int::{loader, storer, StdInt};
use super::Kernel;
use crate::{ByteOrder, Error, ErrorKind, FloatType, IntegerType, Norm, Pad, Result};

/// An IEEE binary32 or binary64 layout in little- or big-endian order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StdFloat {
    pub(crate) size: usize,
    pub(crate) be: bool,
}

impl StdFloat {
    pub(crate) fn of(t: &FloatType) -> Option<StdFloat> {
        let order = t.atomic.order;
        if !matches!(order, ByteOrder::LittleEndian | ByteOrder::BigEndian) {
            return None;
        }
        let size = t.atomic.size;
        let want = match size {
            4 => FloatType::ieee(4, order, 8, 23),
            8 => FloatType::ieee(8, order, 11, 52),
            _ => return None,
        };
        let same = t.sign_pos == want.sign_pos
            && t.exp_pos == want.exp_pos
            && t.exp_size == want.exp_size
            && t.mant_pos == want.mant_pos
            && t.mant_size == want.mant_size
            && t.exp_bias == want.exp_bias
            && t.norm == want.norm
            && t.atomic.precision == want.atomic.precision
            && t.atomic.offset == 0;
        same.then_some(StdFloat {
            size,
            be: order == ByteOrder::BigEndian,
        })
    }

    /// Mantissa bits (23 or 52).
    fn msize(self) -> u32 {
        if self.size == 4 {
            23
        } else {
            52
        }
    }

    /// Read one value as `f64` (exact for both sizes; a binary32 NaN is widened bit by bit,
    /// not quieted).
    #[inline(always)]
    fn load(self, b: &[u8]) -> f64 {
        if self.size == 4 {
            let mut a = [0u8; 4];
            a.copy_from_slice(&b[..4]);
            let bits = if self.be {
                u32::from_be_bytes(a)
            } else {
                u32::from_le_bytes(a)
            };
            f32_to_f64_bits(bits)
        } else {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[..8]);
            f64::from_bits(if self.be {
                u64::from_be_bytes(a)
            } else {
                u64::from_le_bytes(a)
            })
        }
    }

    /// Raw bits of one value, right-aligned.
    #[inline(always)]
    fn load_bits(self, b: &[u8]) -> u64 {
        if self.size == 4 {
            let mut a = [0u8; 4];
            a.copy_from_slice(&b[..4]);
            u64::from(if self.be {
                u32::from_be_bytes(a)
            } else {
                u32::from_le_bytes(a)
            })
        } else {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[..8]);
            if self.be {
                u64::from_be_bytes(a)
            } else {
                u64::from_le_bytes(a)
            }
        }
    }

    #[inline(always)]
    fn store_bits(self, b: &mut [u8], v: u64) {
        if self.size == 4 {
            let v = v as u32;
            b[..4].copy_from_slice(&if self.be {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            });
        } else {
            b[..8].copy_from_slice(&if self.be {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            });
        }
    }
}

/// Widen binary32 bits to an `f64` exactly; NaN payloads move to the top of the wider
/// mantissa unchanged (the quiet bit is not forced).
#[inline(always)]
fn f32_to_f64_bits(bits: u32) -> f64 {
    let f = f32::from_bits(bits);
    if f.is_nan() {
        let sign = u64::from(bits >> 31) << 63;
        let mant = u64::from(bits & 0x7f_ffff) << 29;
        f64::from_bits(sign | 0x7ff0_0000_0000_0000 | mant)
    } else {
        f64::from(f)
    }
}

/// `f64` to `f32` as x86-64's `cvtsd2ss` does it: round to nearest even; a NaN keeps its
/// sign and the top of its payload and becomes quiet.
#[inline(always)]
fn f64_to_f32_hw(x: f64) -> u32 {
    if x.is_nan() {
        let b = x.to_bits();
        let sign = ((b >> 63) as u32) << 31;
        let mant = ((b >> 29) as u32) & 0x7f_ffff;
        sign | 0x7fc0_0000 | mant
    } else {
        (x as f32).to_bits()
    }
}

/// `f32` to `f64` as `cvtss2sd` does it: exact; a NaN becomes quiet.
#[inline(always)]
fn f32_to_f64_hw(bits: u32) -> u64 {
    let f = f32::from_bits(bits);
    if f.is_nan() {
        let sign = u64::from(bits >> 31) << 63;
        let mant = u64::from(bits & 0x7f_ffff) << 29;
        sign | 0x7ff8_0000_0000_0000 | mant
    } else {
        f64::from(f).to_bits()
    }
}

// ---------------------------------------------------------------------------------------
// Hardware paths (native types).
// ---------------------------------------------------------------------------------------

/// `float` <-> `double` (`H5T__conv_float_double`, `H5T__conv_double_float`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct HardFloatFloat {
    /// True for double to float.
    pub(crate) narrow: bool,
}

impl Kernel for HardFloatFloat {
    fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()> {
        if !self.narrow {
            if ss == 4 && ds == 8 {
                for (s, d) in src[..4 * n]
                    .chunks_exact(4)
                    .zip(dst[..8 * n].chunks_exact_mut(8))
                {
                    let b = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
                    d.copy_from_slice(&f32_to_f64_hw(b).to_le_bytes());
                }
            } else {
                for i in 0..n {
                    let s = &src[i * ss..i * ss + 4];
                    let b = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
                    dst[i * ds..i * ds + 8].copy_from_slice(&f32_to_f64_hw(b).to_le_bytes());
                }
            }
            return Ok(());
        }
        let max = f64::from(f32::MAX);
        let (mut hi, mut lo) = (0u64, 0u64);
        let conv = |x: f64| -> u32 {
            if x > max {
                f32::INFINITY.to_bits()
            } else if x < -max {
                f32::NEG_INFINITY.to_bits()
            } else {
                f64_to_f32_hw(x)
            }
        };
        for i in 0..n {
            let s = &src[i * ss..i * ss + 8];
            let mut a = [0u8; 8];
            a.copy_from_slice(s);
            let x = f64::from_le_bytes(a);
            hi += u64::from(x > max);
            lo += u64::from(x < -max);
            dst[i * ds..i * ds + 4].copy_from_slice(&conv(x).to_le_bytes());
        }
        if hi + lo > 0 {
            if ctx.per_element() {
                for i in 0..n {
                    let s = &src[i * ss..i * ss + 8];
                    let mut a = [0u8; 8];
                    a.copy_from_slice(s);
                    let x = f64::from_le_bytes(a);
                    let kind = if x > max {
                        ExceptionKind::RangeHi
                    } else if x < -max {
                        ExceptionKind::RangeLow
                    } else {
                        continue;
                    };
                    let d = &mut dst[i * ds..i * ds + 4];
                    if ctx.raise(kind, i, s, d, Special::of(x))? == Action::Unhandled {
                        d.copy_from_slice(&conv(x).to_le_bytes());
                    }
                }
            } else {
                ctx.count(ExceptionKind::RangeHi, hi);
                ctx.count(ExceptionKind::RangeLow, lo);
            }
        }
        Ok(())
    }
}

/// Native integer to `float`/`double` (`H5T__conv_int_float` and friends): a C cast, and a
/// precision exception when the source has more bits than the destination's mantissa and
/// the span from its highest to its lowest set bit (of the raw two's complement bits) does
/// not fit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HardIntFloat {
    pub(crate) src: StdInt,
    pub(crate) dst: StdFloat,
}

#[inline(always)]
fn int_to_float_bits(v: i128, dst: StdFloat) -> u64 {
    // Rust's integer to float casts round to nearest, ties to even, as the hardware does.
    if dst.size == 4 {
        u64::from((v as f32).to_bits())
    } else {
        (v as f64).to_bits()
    }
}

impl Kernel for HardIntFloat {
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
        let ld = loader(s);
        let sprec = 8 * s.size as u32;
        let dprec = d.msize() + 1;
        for i in 0..n {
            let se = &src[i * ss..i * ss + s.size];
            let v = ld(se);
            let out = int_to_float_bits(v, d);
            let de = &mut dst[i * ds..i * ds + d.size];
            if sprec > dprec {
                let raw = (v as u128) & (u128::MAX >> (128 - sprec));
                let (hi, lo) = if raw == 0 {
                    (0, 0)
                } else {
                    (127 - raw.leading_zeros(), raw.trailing_zeros())
                };
                if hi - lo >= dprec
                    && ctx.raise(ExceptionKind::Precision, i, se, de, Special::None)?
                        == Action::Handled
                {
                    continue;
                }
            }
            d.store_bits(de, out);
        }
        Ok(())
    }
}

/// What x86-64 code compiled from a C cast of a float to an integer type produces, including
/// for NaN and out-of-range values (the "integer indefinite" value and its truncations).
#[inline(always)]
fn x86_float_to_int(x: f64, dst: StdInt) -> i128 {
    const INDEF32: i128 = -(1 << 31);
    const INDEF64: i128 = -(1 << 63);
    let cvt32 = |x: f64| -> i128 {
        let t = x.trunc();
        if x.is_nan() || !(-2147483648.0..2147483648.0).contains(&t) {
            INDEF32
        } else {
            t as i128
        }
    };
    let cvt64 = |x: f64| -> i128 {
        let t = x.trunc();
        if x.is_nan() || !(-9223372036854775808.0..9223372036854775808.0).contains(&t) {
            INDEF64
        } else {
            t as i128
        }
    };
    match (dst.size, dst.signed) {
        (1 | 2, _) | (4, true) => cvt32(x),
        (4, false) | (8, true) => cvt64(x),
        _ => {
            // Unsigned 64-bit: values from 2^63 up are reduced by 2^63 and the top bit
            // flipped back; the comparison is false for NaN.
            if x >= 9223372036854775808.0 {
                cvt64(x - 9223372036854775808.0) ^ INDEF64
            } else {
                cvt64(x)
            }
        }
    }
}

/// Native `float`/`double` to a native integer (`H5T__conv_float_int` and friends).
#[derive(Clone, Copy, Debug)]
pub(crate) struct HardFloatInt {
    pub(crate) src: StdFloat,
    pub(crate) dst: StdInt,
}

impl Kernel for HardFloatInt {
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
        let st = storer(d);
        // The bounds as the source type sees them: D_MAX and D_MIN cast to the float type.
        let round = |v: i128| -> f64 {
            if s.size == 4 {
                f64::from(v as f32)
            } else {
                v as f64
            }
        };
        let (maxf, minf) = (round(d.max()), round(d.min()));
        let sprec = s.msize() + 1;
        let dprec = 8 * d.size as u32;
        let cb = ctx.has_cb();
        for i in 0..n {
            let se = &src[i * ss..i * ss + s.size];
            let x = s.load(se);
            let de = &mut dst[i * ds..i * ds + d.size];
            if cb {
                let (kind, value) = if x > maxf || (sprec < dprec && x == maxf) {
                    (Some(ExceptionKind::RangeHi), d.max())
                } else if x < minf {
                    (Some(ExceptionKind::RangeLow), d.min())
                } else {
                    let v = x86_float_to_int(x, d);
                    // The value cast back must equal the source (never for NaN).
                    let back = round(wrap(v, d));
                    if back != x {
                        (Some(ExceptionKind::Truncate), v)
                    } else {
                        (None, v)
                    }
                };
                if let Some(kind) = kind {
                    if ctx.raise(kind, i, se, de, Special::of(x))? == Action::Handled {
                        continue;
                    }
                }
                st(de, value);
            } else {
                let value = if x > maxf {
                    ctx.count(ExceptionKind::RangeHi, 1);
                    d.max()
                } else if x < minf {
                    ctx.count(ExceptionKind::RangeLow, 1);
                    d.min()
                } else {
                    x86_float_to_int(x, d)
                };
                st(de, value);
            }
        }
        Ok(())
    }
}

/// The value of the low bits of `v` as the destination integer type holds them.
#[inline(always)]
fn wrap(v: i128, d: StdInt) -> i128 {
    let bits = 8 * d.size as u32;
    let m = (v as u128) & (u128::MAX >> (128 - bits));
    if d.signed && m >> (bits - 1) & 1 == 1 {
        m as i128 - (1i128 << bits)
    } else {
        m as i128
    }
}

// ---------------------------------------------------------------------------------------
// Fast software paths (IEEE and standard integers, any byte order).
// ---------------------------------------------------------------------------------------

/// Standard integer to IEEE float (`H5T__conv_i_f` on standard layouts): round to nearest
/// even; a precision exception whenever the magnitude's highest set bit is above the
/// mantissa, even if the value is exact.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SoftIntFloat {
    pub(crate) src: StdInt,
    pub(crate) dst: StdFloat,
}

impl Kernel for SoftIntFloat {
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
        let ld = loader(s);
        let msize = d.msize();
        for i in 0..n {
            let se = &src[i * ss..i * ss + s.size];
            let v = ld(se);
            let de = &mut dst[i * ds..i * ds + d.size];
            let mag = v.unsigned_abs();
            if mag != 0
                && 127 - mag.leading_zeros() > msize
                && ctx.raise(ExceptionKind::Precision, i, se, de, Special::None)? == Action::Handled
            {
                continue;
            }
            d.store_bits(de, int_to_float_bits(v, d));
        }
        Ok(())
    }
}

/// IEEE float to standard integer (`H5T__conv_f_i` on standard layouts): truncation toward
/// zero, clamping, NaN to zero.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SoftFloatInt {
    pub(crate) src: StdFloat,
    pub(crate) dst: StdInt,
}

impl Kernel for SoftFloatInt {
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
        let st = storer(d);
        let (esize, msize, bias) = if s.size == 4 {
            (8u32, 23u32, 127i64)
        } else {
            (11, 52, 1023)
        };
        let prec = 8 * d.size as i64;
        let cb = ctx.has_cb();
        for i in 0..n {
            let se = &src[i * ss..i * ss + s.size];
            let raw = s.load_bits(se);
            let x = s.load(se);
            let de = &mut dst[i * ds..i * ds + d.size];
            let sign = raw >> (esize + msize) & 1 == 1;
            let efield = (raw >> msize) & ((1 << esize) - 1);
            let mant = raw & ((1 << msize) - 1);
            // Saturating casts give the reference library's default results.
            let value: i128 = if d.signed {
                match d.size {
                    1 => i128::from(x as i8),
                    2 => i128::from(x as i16),
                    4 => i128::from(x as i32),
                    _ => i128::from(x as i64),
                }
            } else {
                match d.size {
                    1 => i128::from(x as u8),
                    2 => i128::from(x as u16),
                    4 => i128::from(x as u32),
                    _ => i128::from(x as u64),
                }
            };
            let kind = if efield == (1 << esize) - 1 {
                if mant == 0 {
                    Some(if sign {
                        ExceptionKind::NegInf
                    } else {
                        ExceptionKind::PosInf
                    })
                } else {
                    Some(ExceptionKind::NaN)
                }
            } else if efield == 0 && mant == 0 {
                None
            } else {
                let expo = if efield == 0 {
                    1 - bias
                } else {
                    efield as i64 - bias
                };
                if expo < 0 {
                    // Below one: the integer part is zero, silently.
                    None
                } else {
                    let first = expo;
                    let truncated = cb && expo < i64::from(msize);
                    let limit = if d.signed { prec - 1 } else { prec };
                    if sign && !d.signed {
                        Some(ExceptionKind::RangeLow)
                    } else if sign {
                        if first < limit {
                            truncated.then_some(ExceptionKind::Truncate)
                        } else {
                            Some(ExceptionKind::RangeLow)
                        }
                    } else if first >= limit {
                        Some(ExceptionKind::RangeHi)
                    } else {
                        truncated.then_some(ExceptionKind::Truncate)
                    }
                }
            };
            if let Some(kind) = kind {
                if ctx.raise(kind, i, se, de, Special::None)? == Action::Handled {
                    continue;
                }
            }
            st(de, value);
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// General paths.
// ---------------------------------------------------------------------------------------

/// Scratch buffers larger than the element, so that the reference algorithms' two-bit
/// writes near the top of a field stay inside the buffer.
const SLACK: usize = 16;

fn pad_float(d: &mut [u8], size: usize, offset: usize, prec: usize, lsb: Pad, msb: Pad) {
    if offset > 0 {
        bits::set(d, 0, offset, lsb == Pad::One);
    }
    if offset + prec < 8 * size {
        bits::set(
            d,
            offset + prec,
            8 * size - (offset + prec),
            msb == Pad::One,
        );
    }
}

fn unsupported_norm() -> Error {
    Error::new(
        ErrorKind::Unsupported,
        "conversion from a float whose mantissa is normalized with the msb set is not implemented",
    )
}

/// Any float layout to any other (`H5T__conv_f_f`).
#[derive(Clone, Debug)]
pub(crate) struct FloatGeneral {
    pub(crate) src: FloatType,
    pub(crate) dst: FloatType,
}

impl Kernel for FloatGeneral {
    fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()> {
        let (sf, df) = (&self.src, &self.dst);
        let (ssize, dsize) = (sf.atomic.size, df.atomic.size);
        let expo_max: i128 = (1i128 << df.exp_size) - 1;
        let mut s = vec![0u8; ssize + SLACK];
        let mut d = vec![0u8; dsize + SLACK];
        // The reference algorithm keeps these three across elements of one call.
        let mut denormalized = false;
        let mut msize: usize = 0;
        let mut bitno: isize = 0;
        // The reference library walks a contiguous buffer backwards when the destination is
        // wider (it converts in place), which matters here because of the state above.
        let backwards = ss == ssize && ds == dsize && dsize > ssize;
        'elements: for k in 0..n {
            let i = if backwards { n - 1 - k } else { k };
            let se = &src[i * ss..i * ss + ssize];
            s[..ssize].copy_from_slice(se);
            s[ssize..].fill(0);
            bits::to_le(&mut s[..ssize], sf.atomic.order);
            d.fill(0);
            let sign = bits::get(&s, sf.sign_pos);
            let mant_zero = bits::find(&s, sf.mant_pos, sf.mant_size, Dir::Lsb, true).is_none();
            let exp_zero = bits::find(&s, sf.exp_pos, sf.exp_size, Dir::Lsb, true).is_none();
            let exp_ones = bits::find(&s, sf.exp_pos, sf.exp_size, Dir::Lsb, false).is_none();
            let none_inf = sf.norm == Norm::None
                && bits::find(&s, sf.mant_pos, sf.mant_size - 1, Dir::Lsb, true).is_none()
                && exp_ones;
            let special = if mant_zero && exp_zero {
                Some(None)
            } else if (mant_zero && exp_ones) || (!mant_zero && none_inf) {
                Some(Some(if sign {
                    ExceptionKind::NegInf
                } else {
                    ExceptionKind::PosInf
                }))
            } else if !mant_zero && exp_ones {
                Some(Some(ExceptionKind::NaN))
            } else {
                None
            };
            if let Some(kind) = special {
                if let Some(kind) = kind {
                    let de = &mut dst[i * ds..i * ds + dsize];
                    if ctx.raise(kind, i, se, de, Special::None)? == Action::Handled {
                        continue 'elements;
                    }
                }
                bits::put(&mut d, df.sign_pos, sign);
                match kind {
                    None => {
                        bits::set(&mut d, df.exp_pos, df.exp_size, false);
                        bits::set(&mut d, df.mant_pos, df.mant_size, false);
                    }
                    Some(ExceptionKind::NaN) => {
                        bits::set(&mut d, df.exp_pos, df.exp_size, true);
                        bits::set(&mut d, df.mant_pos, df.mant_size, true);
                    }
                    Some(_) => {
                        bits::set(&mut d, df.exp_pos, df.exp_size, true);
                        bits::set(&mut d, df.mant_pos, df.mant_size, false);
                        if df.norm == Norm::None {
                            bits::put(&mut d, df.mant_pos + df.mant_size - 1, true);
                        }
                    }
                }
            } else {
                let mut expo = i128::from(bits::get_u64(&s, sf.exp_pos, sf.exp_size));
                if expo == 0 {
                    denormalized = true;
                }
                let mut implied: u64 = 1;
                let mpos = sf.mant_pos;
                let mut mrsh: usize = 0;
                if expo == 0 || sf.norm == Norm::None {
                    bitno = bits::find(&s, sf.mant_pos, sf.mant_size, Dir::Msb, true)
                        .map_or(-1, |b| b as isize);
                    if bitno > 0 {
                        msize = bitno as usize;
                    } else if bitno == 0 {
                        msize = 1;
                        bits::put(&mut s, sf.mant_pos, false);
                    }
                } else if sf.norm == Norm::Implied {
                    msize = sf.mant_size;
                } else {
                    return Err(unsupported_norm());
                }
                bits::put(&mut d, df.sign_pos, sign);
                if expo == 0 || sf.norm == Norm::None {
                    expo -= (i128::from(sf.exp_bias) - 1) + (sf.mant_size as i128 - bitno as i128);
                } else {
                    expo -= i128::from(sf.exp_bias);
                }
                if df.norm == Norm::None {
                    mrsh += 1;
                }
                expo += i128::from(df.exp_bias);
                let dm = df.mant_size;
                if expo < -(dm as i128) {
                    expo = 0;
                    bits::set(&mut d, df.mant_pos, dm, false);
                    msize = 0;
                } else if expo <= 0 {
                    mrsh += (1 - expo) as usize;
                    expo = 0;
                    denormalized = true;
                } else if expo >= expo_max {
                    let de = &mut dst[i * ds..i * ds + dsize];
                    if ctx.raise(ExceptionKind::RangeHi, i, se, de, Special::None)?
                        == Action::Handled
                    {
                        continue 'elements;
                    }
                    expo = expo_max;
                    bits::set(&mut d, df.mant_pos, dm, false);
                    msize = 0;
                }
                // Round the mantissa when the destination keeps fewer bits: half away
                // from zero, never into infinity, and without a carry into the exponent
                // once a denormalized value has been seen.
                let mut carry = false;
                if msize > 0 && mrsh <= dm && mrsh + msize > dm {
                    let b = mrsh + msize - dm;
                    bitno = b as isize;
                    let cut = bits::get(&s, mpos + b - 1);
                    if cut && !denormalized {
                        if bits::find(&s, mpos + b, msize - b, Dir::Lsb, false).is_some()
                            || expo < expo_max - 1
                        {
                            carry = bits::inc(&mut s, mpos + b - 1, 1 + msize - b);
                            if carry {
                                implied = 2;
                            }
                        }
                    } else if cut && denormalized {
                        bits::inc(&mut s, mpos + b - 1, 1 + msize - b);
                    }
                }
                // Write the mantissa.
                if mrsh > dm + 1 {
                    bits::set(&mut d, df.mant_pos, dm, false);
                } else if mrsh == dm + 1 {
                    bits::set(&mut d, df.mant_pos + 1, dm - 1, false);
                    bits::set(&mut d, df.mant_pos, 1, true);
                } else if mrsh == dm {
                    bits::set(&mut d, df.mant_pos, dm, false);
                    bits::set_u64(&mut d, df.mant_pos, dm.min(2), implied);
                } else {
                    if mrsh > 0 {
                        bits::set(&mut d, df.mant_pos + dm - mrsh, mrsh, false);
                        bits::set_u64(&mut d, df.mant_pos + dm - mrsh, 2, implied);
                    }
                    if mrsh + msize >= dm {
                        bits::copy(&mut d, df.mant_pos, &s, mpos + msize + mrsh - dm, dm - mrsh);
                    } else {
                        bits::copy(&mut d, df.mant_pos + dm - (mrsh + msize), &s, mpos, msize);
                        bits::set(&mut d, df.mant_pos, dm - (mrsh + msize), false);
                    }
                }
                // Write the exponent.
                if carry {
                    expo += 1;
                    if expo >= expo_max {
                        let de = &mut dst[i * ds..i * ds + dsize];
                        if ctx.raise(ExceptionKind::RangeHi, i, se, de, Special::None)?
                            == Action::Handled
                        {
                            continue 'elements;
                        }
                        expo = expo_max;
                        bits::set(&mut d, df.mant_pos, dm, false);
                    }
                }
                bits::set_u64(&mut d, df.exp_pos, df.exp_size, expo as u64);
            }
            pad_float(
                &mut d,
                dsize,
                df.atomic.offset,
                df.atomic.precision,
                df.atomic.lsb_pad,
                df.atomic.msb_pad,
            );
            bits::from_le(&mut d[..dsize], df.atomic.order);
            dst[i * ds..i * ds + dsize].copy_from_slice(&d[..dsize]);
        }
        Ok(())
    }
}

/// Any integer layout to any float layout (`H5T__conv_i_f`).
#[derive(Clone, Debug)]
pub(crate) struct IntFloatGeneral {
    pub(crate) src: IntegerType,
    pub(crate) dst: FloatType,
}

impl Kernel for IntFloatGeneral {
    fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()> {
        let (si, df) = (&self.src, &self.dst);
        let (ssize, dsize) = (si.atomic.size, df.atomic.size);
        let sprec = si.atomic.precision;
        let dm = df.mant_size;
        let buf_size = sprec.max(dm) / 8 + 1;
        let nbits = 8 * buf_size;
        let mut s = vec![0u8; ssize];
        let mut d = vec![0u8; dsize + SLACK];
        let mut ib = vec![0u8; buf_size];
        let expo_max: i128 = (1i128 << df.exp_size) - 1;
        let signed = si.is_signed();
        'elements: for i in 0..n {
            let se = &src[i * ss..i * ss + ssize];
            s.copy_from_slice(se);
            bits::to_le(&mut s, si.atomic.order);
            d.fill(0);
            ib.fill(0);
            bits::copy(&mut ib, 0, &s, si.atomic.offset, sprec);
            let sign = signed && bits::get(&ib, sprec - 1);
            let mut sfirst = if signed {
                bits::find(&ib, 0, sprec - 1, Dir::Msb, true)
            } else {
                bits::find(&ib, 0, sprec, Dir::Msb, true)
            };
            let is_max_neg = sign && sfirst.is_none();
            let mut write = true;
            if !sign && sfirst.is_none() {
                write = false;
            }
            if write {
                if sign {
                    if !is_max_neg {
                        bits::dec(&mut ib, 0, nbits);
                        bits::neg(&mut ib, 0, nbits);
                        sfirst = bits::find(&ib, 0, sprec - 1, Dir::Msb, true);
                    } else {
                        sfirst = Some(sprec - 1);
                    }
                    bits::set(&mut ib, sprec, nbits - sprec, false);
                    bits::put(&mut d, df.sign_pos, true);
                }
                let Some(mut first) = sfirst else {
                    return Err(Error::new(
                        ErrorKind::ConversionException,
                        "zero bit not found",
                    ));
                };
                let mut expo: i128 = match df.norm {
                    Norm::None | Norm::Implied => first as i128 + i128::from(df.exp_bias),
                    Norm::MsbSet => return Err(unsupported_norm()),
                };
                if df.norm == Norm::Implied {
                    bits::put(&mut ib, first, false);
                } else {
                    first += 1;
                }
                if first > dm {
                    let de = &mut dst[i * ds..i * ds + dsize];
                    if ctx.raise(ExceptionKind::Precision, i, se, de, Special::None)?
                        == Action::Handled
                    {
                        continue 'elements;
                    }
                    let cut = first - dm;
                    // Round half to even; the reference library looks at no more than
                    // 64 of the bits below the first dropped one.
                    let do_round = bits::get(&ib, cut - 1)
                        && ((cut - 1 > 0 && bits::get_u64(&ib, 0, cut - 1) != 0)
                            || bits::get(&ib, cut));
                    bits::shift(&mut ib, -(cut as isize), 0, nbits);
                    if do_round {
                        bits::inc(&mut ib, 0, nbits);
                        if bits::get(&ib, dm) {
                            if df.norm == Norm::None {
                                bits::shift(&mut ib, -1, 0, nbits);
                            }
                            expo += 1;
                        }
                    }
                } else {
                    bits::shift(&mut ib, (dm - first) as isize, 0, dm);
                }
                if expo > expo_max {
                    let de = &mut dst[i * ds..i * ds + dsize];
                    if ctx.has_cb() {
                        if ctx.raise(ExceptionKind::RangeHi, i, se, de, Special::None)?
                            == Action::Handled
                        {
                            continue 'elements;
                        }
                        // With a handler that leaves the default, the reference library
                        // writes the oversized exponent's low bits and the mantissa.
                    } else {
                        ctx.count(ExceptionKind::RangeHi, 1);
                        expo = expo_max;
                        ib.fill(0);
                    }
                }
                bits::set_u64(&mut d, df.exp_pos, df.exp_size, expo as u64);
                bits::copy(&mut d, df.mant_pos, &ib, 0, nbits.min(dm));
            }
            pad_float(
                &mut d,
                dsize,
                df.atomic.offset,
                df.atomic.precision,
                df.atomic.lsb_pad,
                df.atomic.msb_pad,
            );
            bits::from_le(&mut d[..dsize], df.atomic.order);
            dst[i * ds..i * ds + dsize].copy_from_slice(&d[..dsize]);
        }
        Ok(())
    }
}

/// Any float layout to any integer layout (`H5T__conv_f_i`).
#[derive(Clone, Debug)]
pub(crate) struct FloatIntGeneral {
    pub(crate) src: FloatType,
    pub(crate) dst: IntegerType,
}

impl Kernel for FloatIntGeneral {
    fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()> {
        let (sf, di) = (&self.src, &self.dst);
        let (ssize, dsize) = (sf.atomic.size, di.atomic.size);
        let (doff, dprec) = (di.atomic.offset, di.atomic.precision);
        let dsigned = di.is_signed();
        let sm = sf.mant_size;
        // The integer part, when it fits the destination, needs at most dprec + 1 bits.
        let nbits = 8 * ((dprec.max(sm + 1) + 2) / 8 + 2);
        let mut s = vec![0u8; ssize];
        let mut d = vec![0u8; dsize + SLACK];
        let mut mant = vec![0u8; sm / 8 + 2];
        let mut ib = vec![0u8; nbits / 8];
        // The reference library negates within a scratch integer of 2^esize / 8 + 1 bytes
        // and reads zeros above it.
        let hbits = if sf.exp_size < 24 {
            8 * ((1usize << sf.exp_size) / 8 + 1)
        } else {
            usize::MAX
        };
        let neg_bits = hbits.min(nbits);
        let cb = ctx.has_cb();
        'elements: for i in 0..n {
            let se = &src[i * ss..i * ss + ssize];
            s.copy_from_slice(se);
            bits::to_le(&mut s, sf.atomic.order);
            d.fill(0);
            let sign = bits::get(&s, sf.sign_pos);
            let mant_zero = bits::find(&s, sf.mant_pos, sm, Dir::Lsb, true).is_none();
            let exp_zero = bits::find(&s, sf.exp_pos, sf.exp_size, Dir::Lsb, true).is_none();
            let exp_ones = bits::find(&s, sf.exp_pos, sf.exp_size, Dir::Lsb, false).is_none();
            let none_inf = sf.norm == Norm::None
                && bits::find(&s, sf.mant_pos, sm - 1, Dir::Lsb, true).is_none()
                && exp_ones;
            // Special values.
            let special = if mant_zero && exp_zero {
                Some(None)
            } else if (mant_zero && exp_ones) || (!mant_zero && none_inf) {
                Some(Some(if sign {
                    ExceptionKind::NegInf
                } else {
                    ExceptionKind::PosInf
                }))
            } else if !mant_zero && exp_ones {
                Some(Some(ExceptionKind::NaN))
            } else {
                None
            };
            if let Some(kind) = special {
                if let Some(kind) = kind {
                    let de = &mut dst[i * ds..i * ds + dsize];
                    if ctx.raise(kind, i, se, de, Special::None)? == Action::Handled {
                        continue 'elements;
                    }
                    match kind {
                        // The reference library sets bit prec - 1 without the offset.
                        ExceptionKind::NegInf if dsigned => bits::put(&mut d, dprec - 1, true),
                        ExceptionKind::PosInf => {
                            if dsigned {
                                bits::set(&mut d, doff, dprec - 1, true);
                            } else {
                                bits::set(&mut d, doff, dprec, true);
                            }
                        }
                        _ => {}
                    }
                }
            } else {
                let mut expo = i128::from(bits::get_u64(&s, sf.exp_pos, sf.exp_size));
                if expo == 0 || sf.norm == Norm::None {
                    expo -= i128::from(sf.exp_bias) - 1;
                } else if sf.norm == Norm::Implied {
                    expo -= i128::from(sf.exp_bias);
                } else {
                    return Err(unsupported_norm());
                }
                mant.fill(0);
                bits::copy(&mut mant, 0, &s, sf.mant_pos, sm);
                if sf.norm == Norm::Implied {
                    bits::put(&mut mant, sm, true);
                }
                let m_msb = bits::find(&mant, 0, sm + 1, Dir::Msb, true);
                let shift = expo - sm as i128;
                let first = m_msb.and_then(|m| {
                    let f = m as i128 + shift;
                    (f >= 0).then_some(f)
                });
                let truncated = cb && expo >= 0 && (expo as u128) < sm as u128;
                // Materialize the integer part when it can fit.
                let materialize = |ib: &mut Vec<u8>, mant: &[u8]| {
                    ib.fill(0);
                    for j in 0..=sm {
                        if bits::get(mant, j) {
                            let p = j as i128 + shift;
                            if p >= 0 && (p as usize) < nbits {
                                bits::put(ib, p as usize, true);
                            }
                        }
                    }
                };
                let mut exc: Option<ExceptionKind> = None;
                let mut fill = IntFill::Nothing;
                if let Some(first) = first {
                    let first = first as u128;
                    let dp = dprec as u128;
                    if !dsigned {
                        if sign {
                            exc = Some(ExceptionKind::RangeLow);
                        } else if first >= dp {
                            exc = Some(ExceptionKind::RangeHi);
                            fill = IntFill::AllOnes;
                        } else {
                            if truncated {
                                exc = Some(ExceptionKind::Truncate);
                            }
                            fill = IntFill::Copy(first as usize + 1);
                        }
                    } else if sign {
                        if first < dp - 1 {
                            if truncated {
                                exc = Some(ExceptionKind::Truncate);
                            }
                            fill = IntFill::Negated;
                        } else {
                            exc = Some(ExceptionKind::RangeLow);
                            fill = IntFill::SignBit;
                        }
                    } else if first >= dp - 1 {
                        exc = Some(ExceptionKind::RangeHi);
                        fill = IntFill::SignedMax;
                    } else {
                        if truncated {
                            exc = Some(ExceptionKind::Truncate);
                        }
                        fill = IntFill::Copy(first as usize + 1);
                    }
                }
                if let Some(kind) = exc {
                    let de = &mut dst[i * ds..i * ds + dsize];
                    if ctx.raise(kind, i, se, de, Special::None)? == Action::Handled {
                        continue 'elements;
                    }
                }
                match fill {
                    IntFill::Nothing => {}
                    IntFill::AllOnes => bits::set(&mut d, doff, dprec, true),
                    IntFill::SignedMax => bits::set(&mut d, doff, dprec - 1, true),
                    IntFill::SignBit => bits::put(&mut d, doff + dprec - 1, true),
                    IntFill::Copy(len) => {
                        materialize(&mut ib, &mant);
                        bits::copy(&mut d, doff, &ib, 0, len);
                    }
                    IntFill::Negated => {
                        materialize(&mut ib, &mant);
                        bits::dec(&mut ib, 0, neg_bits);
                        bits::neg(&mut ib, 0, neg_bits);
                        bits::copy(&mut d, doff, &ib, 0, dprec - 1);
                        bits::put(&mut d, doff + dprec - 1, true);
                    }
                }
            }
            pad_float(
                &mut d,
                dsize,
                doff,
                dprec,
                di.atomic.lsb_pad,
                di.atomic.msb_pad,
            );
            bits::from_le(&mut d[..dsize], di.atomic.order);
            dst[i * ds..i * ds + dsize].copy_from_slice(&d[..dsize]);
        }
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum IntFill {
    Nothing,
    AllOnes,
    SignedMax,
    SignBit,
    Copy(usize),
    Negated,
}
