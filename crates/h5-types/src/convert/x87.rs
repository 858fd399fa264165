//! The reference library's hardware paths for `long double` on x86-64: the 80-bit x87
//! extended format (sign, 15-bit exponent, 64-bit mantissa with an explicit leading bit) in
//! 16 bytes. Conversions follow what C casts compile to there: exact widening, rounding to
//! nearest even when narrowing, and the x87 "integer indefinite" for NaN or out-of-range
//! values cast to integers. The six bytes above the 80 significant bits are written as zero
//! (the hardware leaves them untouched).

use super::except::{Ctx, ExceptionKind, Special};
use super::float::two_pass;
use super::float::StdFloat;
use super::int::StdInt;
use super::Kernel;
use crate::{ByteOrder, FloatType, Norm, Pad, Result};

/// The x87 layout of `H5T_NATIVE_LDOUBLE` on x86-64.
pub(crate) fn is_native_ldouble(t: &FloatType) -> bool {
    let a = &t.atomic;
    ByteOrder::NATIVE == ByteOrder::LittleEndian
        && a.size == 16
        && a.order == ByteOrder::LittleEndian
        && a.precision == 80
        && a.offset == 0
        && a.lsb_pad == Pad::Zero
        && a.msb_pad == Pad::Zero
        && t.sign_pos == 79
        && t.exp_pos == 64
        && t.exp_size == 15
        && t.mant_pos == 0
        && t.mant_size == 64
        && t.exp_bias == 16383
        && t.norm == Norm::None
        && t.inpad == Pad::Zero
}

/// A decoded x87 value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum X87 {
    /// NaN, or an encoding the FPU rejects (unnormal, pseudo-NaN, pseudo-infinity): both
    /// compare unordered and convert as invalid operands.
    NaN {
        sign: bool,
        payload: u64,
        valid: bool,
    },
    Inf {
        sign: bool,
    },
    /// `(-1)^sign * mant * 2^exp` (mant may be zero).
    Finite {
        sign: bool,
        mant: u64,
        exp: i32,
    },
}

fn decode(b: &[u8]) -> X87 {
    let mut m = [0u8; 8];
    m.copy_from_slice(&b[..8]);
    let mant = u64::from_le_bytes(m);
    let se = u16::from_le_bytes([b[8], b[9]]);
    let sign = se >> 15 == 1;
    let e = i32::from(se & 0x7fff);
    let explicit = mant >> 63 == 1;
    if e == 0x7fff {
        if mant << 1 == 0 && explicit {
            X87::Inf { sign }
        } else {
            X87::NaN {
                sign,
                payload: mant,
                valid: explicit,
            }
        }
    } else if e == 0 {
        // Denormals and pseudo-denormals: mant * 2^(1 - 16383 - 63).
        X87::Finite {
            sign,
            mant,
            exp: 1 - 16383 - 63,
        }
    } else if !explicit {
        // Unnormal: rejected by the FPU.
        X87::NaN {
            sign,
            payload: mant,
            valid: false,
        }
    } else {
        X87::Finite {
            sign,
            mant,
            exp: e - 16383 - 63,
        }
    }
}

fn encode(d: &mut [u8], sign: bool, exp_field: u16, mant: u64) {
    d[..8].copy_from_slice(&mant.to_le_bytes());
    let se = (u16::from(sign) << 15) | exp_field;
    d[8..10].copy_from_slice(&se.to_le_bytes());
    d[10..16].fill(0);
}

/// Encode an exact value `(-1)^sign * mant * 2^exp` (it always fits: used for widening).
fn encode_exact(d: &mut [u8], sign: bool, mant: u64, exp: i32) {
    if mant == 0 {
        return encode(d, sign, 0, 0);
    }
    let lz = mant.leading_zeros() as i32;
    let m = mant << lz;
    let e = exp - lz + 63 + 16383;
    encode(d, sign, e as u16, m);
}

/// Round `(-1)^sign * mant * 2^exp` to nearest even in an IEEE format; infinity on overflow.
fn round_ieee(sign: bool, mant: u64, exp: i32, esize: u32, msize: u32) -> u64 {
    let sbit = u64::from(sign) << (esize + msize);
    if mant == 0 {
        return sbit;
    }
    let bias = (1i32 << (esize - 1)) - 1;
    let emax = (1i32 << esize) - 1;
    let lz = mant.leading_zeros() as i32;
    let m = u128::from(mant << lz) << 64; // msb at bit 127
    let e = exp - lz + 63; // unbiased exponent of the value
    let mut biased = e + bias;
    // Number of bits of m below the kept mantissa (msize + 1 bits for normals).
    let shift = if biased >= 1 {
        127 - msize as i32
    } else {
        127 - msize as i32 + (1 - biased)
    };
    let (mut kept, rem, half) = if shift >= 128 {
        (0u128, m, 1u128 << 127)
    } else {
        let sh = shift as u32;
        (m >> sh, m & ((1u128 << sh) - 1), 1u128 << (sh - 1))
    };
    let round_up = if shift >= 129 {
        false
    } else {
        rem > half || (rem == half && kept & 1 == 1)
    };
    if round_up {
        kept += 1;
    }
    if biased >= 1 {
        if kept >> (msize + 1) != 0 {
            kept >>= 1;
            biased += 1;
        }
        if biased >= emax {
            return sbit | (((1u64 << esize) - 1) << msize);
        }
        sbit | ((biased as u64) << msize) | (kept as u64 & ((1u64 << msize) - 1))
    } else {
        // Subnormal (a carry into bit msize makes the smallest normal by itself).
        sbit | kept as u64
    }
}

/// The value truncated toward zero, when `|value| < 2^127`; `None` above.
fn trunc(sign: bool, mant: u64, exp: i32) -> Option<i128> {
    let mag: i128 = if exp >= 0 {
        // The value needs 64 - lz + exp bits; i128 holds up to 127 of them.
        if mant != 0 && exp > 63 + mant.leading_zeros() as i32 {
            return None;
        }
        if mant == 0 {
            return Some(0);
        }
        i128::from(mant) << exp
    } else if exp <= -64 {
        0
    } else {
        i128::from(mant >> (-exp))
    };
    Some(if sign { -mag } else { mag })
}

fn is_integral(mant: u64, exp: i32) -> bool {
    exp >= 0 || exp <= -64 && mant == 0 || (exp > -64 && mant & ((1u64 << (-exp)) - 1) == 0)
}

/// The x87 `fistp`/`fisttp` of `bits` width: the truncated value if it fits, else the
/// integer indefinite `-2^(bits - 1)`.
fn fist(v: Option<i128>, bits: u32) -> i128 {
    let lo = -(1i128 << (bits - 1));
    match v {
        Some(t) if t >= lo && t < -lo => t,
        _ => lo,
    }
}

/// The C cast of a long double to an integer type on x86-64 (gcc): the width of the store
/// instruction used for each destination type decides the result of NaN and overflow.
fn cast_to_int(x: X87, dst: StdInt) -> i128 {
    let v = match x {
        X87::Finite { sign, mant, exp } => trunc(sign, mant, exp),
        _ => None,
    };
    match (dst.size, dst.signed) {
        (1 | 2, true) | (1, false) => fist(v, 16),
        (2, false) | (4, true) => fist(v, 32),
        (4, false) | (8, true) => fist(v, 64),
        _ => {
            // Unsigned 64-bit: from 2^63 up, subtract 2^63 and flip the top bit back.
            match v {
                Some(t) if t >= 1i128 << 63 => fist(Some(t - (1i128 << 63)), 64) ^ -(1i128 << 63),
                _ => fist(v, 64),
            }
        }
    }
}

/// Compare a finite x87 value with an integer exactly.
fn cmp_int(sign: bool, mant: u64, exp: i32, k: i128) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match trunc(sign, mant, exp) {
        None => {
            if sign {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
        Some(t) => match t.cmp(&k) {
            Ordering::Equal if !is_integral(mant, exp) => {
                if sign {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            }
            o => o,
        },
    }
}

/// `long double` to a native integer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct X87ToInt {
    pub(crate) dst: StdInt,
}

impl Kernel for X87ToInt {
    fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()> {
        let d = self.dst;
        let (min, max) = (d.min(), d.max());
        let cb = ctx.has_cb();
        two_pass(src, (ss, 16), dst, (ds, d.size), n, ctx, |s, out| {
            let x = decode(s);
            let (above, below, integral) = match x {
                X87::Finite { sign, mant, exp } => (
                    cmp_int(sign, mant, exp, max).is_gt(),
                    cmp_int(sign, mant, exp, min).is_lt(),
                    is_integral(mant, exp),
                ),
                X87::Inf { sign } => (!sign, sign, true),
                X87::NaN { .. } => (false, false, false),
            };
            let special = match x {
                X87::NaN { .. } => Special::NaN,
                X87::Inf { .. } => Special::Inf,
                X87::Finite { .. } => Special::None,
            };
            let (value, kind) = if above {
                (max, Some(ExceptionKind::RangeHi))
            } else if below {
                (min, Some(ExceptionKind::RangeLow))
            } else {
                (
                    cast_to_int(x, d),
                    (cb && !integral).then_some(ExceptionKind::Truncate),
                )
            };
            d.store(out, value);
            kind.map(|k| (k, special))
        })
    }
}

/// A native integer to `long double`: exact.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IntToX87 {
    pub(crate) src: StdInt,
}

impl Kernel for IntToX87 {
    fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()> {
        let s = self.src;
        two_pass(src, (ss, s.size), dst, (ds, 16), n, ctx, |se, out| {
            let v = s.load(se);
            encode_exact(out, v < 0, v.unsigned_abs() as u64, 0);
            None
        })
    }
}

/// `float`/`double` to `long double`: exact; NaNs become quiet.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FloatToX87 {
    pub(crate) src: StdFloat,
}

impl Kernel for FloatToX87 {
    fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()> {
        let (es, ms) = if self.src.size == 4 {
            (8u32, 23u32)
        } else {
            (11, 52)
        };
        let f = self.src;
        two_pass(src, (ss, f.size), dst, (ds, 16), n, ctx, |se, out| {
            let raw = f.read(se);
            let sign = raw >> (es + ms) & 1 == 1;
            let ef = ((raw >> ms) & ((1 << es) - 1)) as i32;
            let mant = raw & ((1u64 << ms) - 1);
            let bias = (1i32 << (es - 1)) - 1;
            if ef == (1 << es) - 1 {
                if mant == 0 {
                    encode(out, sign, 0x7fff, 1 << 63);
                } else {
                    // Quiet NaN, payload at the top of the mantissa.
                    encode(out, sign, 0x7fff, (3 << 62) | (mant << (63 - ms)));
                }
            } else if ef == 0 {
                encode_exact(out, sign, mant, 1 - bias - ms as i32);
            } else {
                encode_exact(out, sign, mant | (1 << ms), ef - bias - ms as i32);
            }
            None
        })
    }
}

/// `long double` to `float`/`double`: round to nearest even; above the destination's
/// largest value (infinities included) `RangeHi` and infinity, below its lowest `RangeLow`
/// and minus infinity.
#[derive(Clone, Copy, Debug)]
pub(crate) struct X87ToFloat {
    pub(crate) dst: StdFloat,
}

impl Kernel for X87ToFloat {
    fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()> {
        let f = self.dst;
        let (es, ms) = if f.size == 4 { (8u32, 23u32) } else { (11, 52) };
        let bias = (1i32 << (es - 1)) - 1;
        // The destination's largest finite value as mant * 2^exp.
        let max_m = (1u64 << (ms + 1)) - 1;
        let max_e = bias - ms as i32;
        let inf = ((1u64 << es) - 1) << ms;
        two_pass(src, (ss, 16), dst, (ds, f.size), n, ctx, |se, out| {
            let x = decode(se);
            let (bits, kind) = match x {
                X87::NaN {
                    sign,
                    payload,
                    valid,
                } => {
                    let b = if valid {
                        inf | (1 << (ms - 1)) | ((payload << 1) >> (64 - ms))
                    } else {
                        // The "real indefinite": a negative quiet NaN.
                        (1u64 << (es + ms)) | inf | (1 << (ms - 1))
                    };
                    (u64::from(sign && valid) << (es + ms) | b, None)
                }
                X87::Inf { sign } => (
                    u64::from(sign) << (es + ms) | inf,
                    Some((
                        if sign {
                            ExceptionKind::RangeLow
                        } else {
                            ExceptionKind::RangeHi
                        },
                        Special::Inf,
                    )),
                ),
                X87::Finite { sign, mant, exp } => {
                    if greater_mag(mant, exp, max_m, max_e) {
                        (
                            u64::from(sign) << (es + ms) | inf,
                            Some((
                                if sign {
                                    ExceptionKind::RangeLow
                                } else {
                                    ExceptionKind::RangeHi
                                },
                                Special::None,
                            )),
                        )
                    } else {
                        (round_ieee(sign, mant, exp, es, ms), None)
                    }
                }
            };
            f.write(out, bits);
            kind
        })
    }
}

/// Whether `a * 2^ea > b * 2^eb` for non-negative mantissas.
fn greater_mag(a: u64, ea: i32, b: u64, eb: i32) -> bool {
    if a == 0 {
        return false;
    }
    let (la, lb) = (
        63 - a.leading_zeros() as i32 + ea,
        63 - b.leading_zeros() as i32 + eb,
    );
    if la != lb {
        return la > lb;
    }
    // Same magnitude exponent: align and compare.
    let (na, nb) = (
        u128::from(a) << (a.leading_zeros() + 64),
        u128::from(b) << (b.leading_zeros() + 64),
    );
    na > nb
}
