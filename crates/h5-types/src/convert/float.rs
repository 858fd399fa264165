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
use super::int::{with_int, Lane, StdInt};
use super::packed::{self, array};
use super::Kernel;
use crate::{ByteOrder, Error, ErrorKind, FloatType, IntegerType, Loss, Norm, Pad, Result};

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
}

impl StdFloat {
    fn fields(self) -> (u32, u32, i64) {
        if self.size == 4 {
            (8, 23, 127)
        } else {
            (11, 52, 1023)
        }
    }

    pub(crate) fn read(self, b: &[u8]) -> u64 {
        if self.size == 4 {
            u64::from(if self.be {
                u32::ld::<true>(b)
            } else {
                u32::ld::<false>(b)
            })
        } else if self.be {
            u64::ld::<true>(b)
        } else {
            u64::ld::<false>(b)
        }
    }

    pub(crate) fn write(self, b: &mut [u8], bits: u64) {
        match (self.size, self.be) {
            (4, true) => (bits as u32).st::<true>(b),
            (4, false) => (bits as u32).st::<false>(b),
            (_, true) => bits.st::<true>(b),
            _ => bits.st::<false>(b),
        }
    }
}

/// The general float algorithm's result for a normal IEEE value whose result is normal and
/// raises nothing (rounding half away from zero, never into infinity); `None` for every
/// other case, which the bit-level path handles.
#[inline]
fn ieee_normal(a: StdFloat, b: StdFloat, raw: u64) -> Option<u64> {
    let (se, sm, sbias) = a.fields();
    let (de, dm, dbias) = b.fields();
    let semax = (1u64 << se) - 1;
    let ef = (raw >> sm) & semax;
    if ef == 0 || ef == semax {
        return None;
    }
    let sign = raw >> (se + sm) & 1;
    let mant = raw & ((1u64 << sm) - 1);
    let expo_max = (1i64 << de) - 1;
    let mut expo = ef as i64 - sbias + dbias;
    if expo <= 0 || expo >= expo_max {
        return None;
    }
    let m = if dm >= sm {
        mant << (dm - sm)
    } else {
        let cut = sm - dm;
        let mut keep = mant >> cut;
        let all = (1u64 << dm) - 1;
        if mant >> (cut - 1) & 1 == 1 && (keep != all || expo < expo_max - 1) {
            keep += 1;
            if keep > all {
                keep = 0;
                expo += 1;
                if expo >= expo_max {
                    return None;
                }
            }
        }
        keep
    };
    Some(sign << (de + dm) | (expo as u64) << dm | m)
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

/// Run a per-element conversion `f` over all elements. `f` writes the default result and
/// says which exception, if any, the element raises. Exceptions are only counted in the
/// loop; when they must be raised one by one (a handler, the netCDF policy), a second pass
/// raises them in element order, after the defaults are in place.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn two_pass(
    src: &[u8],
    (ss, sn): (usize, usize),
    dst: &mut [u8],
    (ds, dn): (usize, usize),
    n: usize,
    ctx: &mut Ctx,
    f: impl Fn(&[u8], &mut [u8]) -> Option<(ExceptionKind, Special)>,
) -> Result<()> {
    let mut counts = [0u64; 7];
    if ss == sn && ds == dn {
        for (s, d) in src[..n * sn]
            .chunks_exact(sn)
            .zip(dst[..n * dn].chunks_exact_mut(dn))
        {
            if let Some((k, _)) = f(s, d) {
                counts[k.index()] += 1;
            }
        }
    } else {
        for i in 0..n {
            if let Some((k, _)) = f(&src[i * ss..i * ss + sn], &mut dst[i * ds..i * ds + dn]) {
                counts[k.index()] += 1;
            }
        }
    }
    if counts.iter().all(|&c| c == 0) {
        return Ok(());
    }
    if !ctx.per_element() {
        for k in ExceptionKind::ALL {
            ctx.count(k, counts[k.index()]);
        }
        return Ok(());
    }
    let mut scratch = vec![0u8; dn];
    for i in 0..n {
        let se = &src[i * ss..i * ss + sn];
        if let Some((k, special)) = f(se, &mut scratch) {
            // The default is already in place; a handler may overwrite it.
            ctx.raise(k, i, se, &mut dst[i * ds..i * ds + dn], special)?;
        }
    }
    Ok(())
}

/// An IEEE float as a Rust type.
pub(crate) trait FLane: Copy + 'static {
    const N: usize;
    const ESIZE: u32;
    const MSIZE: u32;
    const BIAS: i64;
    /// Raw bits, right-aligned.
    fn bits<const BE: bool>(b: &[u8]) -> u64;
    fn put<const BE: bool>(bits: u64, b: &mut [u8]);
    /// The value as `f64`, exactly (NaN payloads moved bit for bit, not quieted).
    fn value(bits: u64) -> f64;
    /// An integer converted to this type, rounding to nearest even; the bits.
    fn from_int<L: Lane>(v: L) -> u64;
    /// A wide integer converted to this type (nearest even), as `f64`.
    fn round(v: i128) -> f64;
    /// An integer converted to this type (nearest even), as `f64`.
    fn round_lane<L: Lane>(v: L) -> f64;
}

#[inline(always)]
fn rounded<F: FLane>(v: i128) -> f64 {
    F::round(v)
}

#[derive(Clone, Copy)]
pub(crate) struct F32;
#[derive(Clone, Copy)]
pub(crate) struct F64;

impl FLane for F32 {
    const N: usize = 4;
    const ESIZE: u32 = 8;
    const MSIZE: u32 = 23;
    const BIAS: i64 = 127;
    #[inline(always)]
    fn bits<const BE: bool>(b: &[u8]) -> u64 {
        u64::from(u32::ld::<BE>(b))
    }
    #[inline(always)]
    fn put<const BE: bool>(bits: u64, b: &mut [u8]) {
        (bits as u32).st::<BE>(b)
    }
    #[inline(always)]
    fn value(bits: u64) -> f64 {
        f32_to_f64_bits(bits as u32)
    }
    #[inline(always)]
    fn from_int<L: Lane>(v: L) -> u64 {
        u64::from(v.to_f32().to_bits())
    }
    #[inline(always)]
    fn round(v: i128) -> f64 {
        f64::from(v as f32)
    }
    #[inline(always)]
    fn round_lane<L: Lane>(v: L) -> f64 {
        f64::from(v.to_f32())
    }
}

impl FLane for F64 {
    const N: usize = 8;
    const ESIZE: u32 = 11;
    const MSIZE: u32 = 52;
    const BIAS: i64 = 1023;
    #[inline(always)]
    fn bits<const BE: bool>(b: &[u8]) -> u64 {
        u64::ld::<BE>(b)
    }
    #[inline(always)]
    fn put<const BE: bool>(bits: u64, b: &mut [u8]) {
        bits.st::<BE>(b)
    }
    #[inline(always)]
    fn value(bits: u64) -> f64 {
        f64::from_bits(bits)
    }
    #[inline(always)]
    fn from_int<L: Lane>(v: L) -> u64 {
        v.to_f64().to_bits()
    }
    #[inline(always)]
    fn round(v: i128) -> f64 {
        v as f64
    }
    #[inline(always)]
    fn round_lane<L: Lane>(v: L) -> f64 {
        v.to_f64()
    }
}

/// Run `$body` with `$F` bound to the float lane of a standard float and `$BE` to its order.
macro_rules! with_float {
    ($t:expr, $F:ident, $BE:ident, $body:expr) => {{
        let t: StdFloat = $t;
        macro_rules! order {
            ($ty:ty) => {{
                type $F = $ty;
                if t.be {
                    const $BE: bool = true;
                    $body
                } else {
                    const $BE: bool = false;
                    $body
                }
            }};
        }
        if t.size == 4 {
            order!(F32)
        } else {
            order!(F64)
        }
    }};
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
                widen_f32_f64(src, dst, n);
                return Ok(());
            }
            return two_pass(src, (ss, 4), dst, (ds, 8), n, ctx, |s, d| {
                f32_to_f64_hw(u32::ld::<false>(s)).st::<false>(d);
                None
            });
        }
        if ss == 8 && ds == 4 && !ctx.per_element() {
            let (hi, lo) = narrow_f64_f32(src, dst, n);
            ctx.count(ExceptionKind::RangeHi, hi);
            ctx.count(ExceptionKind::RangeLow, lo);
            return Ok(());
        }
        let max = f64::from(f32::MAX);
        two_pass(src, (ss, 8), dst, (ds, 4), n, ctx, |s, d| {
            let x = f64::from_bits(u64::ld::<false>(s));
            let (bits, exc) = if x > max {
                (
                    f32::INFINITY.to_bits(),
                    Some((ExceptionKind::RangeHi, Special::of(x))),
                )
            } else if x < -max {
                (
                    f32::NEG_INFINITY.to_bits(),
                    Some((ExceptionKind::RangeLow, Special::of(x))),
                )
            } else {
                (f64_to_f32_hw(x), None)
            };
            bits.st::<false>(d);
            exc
        })
    }
}

/// Packed `f64` to `f32` without a handler: the results of [`HardFloatFloat`]'s general
/// loop. Steps of [`packed::STEP`] elements are cast in straight-line vector code
/// (`cvtpd2ps`) that only notes whether the step holds a NaN, an infinity or a value beyond
/// the `f32` range; such elements are then redone one by one. Returns the numbers of values above and below the
/// `f32` range.
#[inline(never)]
fn narrow_f64_f32(src: &[u8], dst: &mut [u8], n: usize) -> (u64, u64) {
    let max = f64::from(f32::MAX);
    let load = |s: &[u8]| f64::from_le_bytes(array::<8>(s));
    let (mut hi, mut lo) = (0u64, 0u64);
    packed::steps(src, 8, dst, 4, n, |sb, db| {
        let mut special = false;
        for (s, d) in sb.chunks_exact(8).zip(db.chunks_exact_mut(4)) {
            let x = load(s);
            d.copy_from_slice(&(x as f32).to_le_bytes());
            // False for NaN as well as for infinities and values beyond the range.
            let finite_in_range = x.abs() <= max;
            special |= !finite_in_range;
        }
        if !special {
            return;
        }
        for (s, d) in sb.chunks_exact(8).zip(db.chunks_exact_mut(4)) {
            let x = load(s);
            let r = if x > max {
                hi += 1;
                f32::INFINITY.to_bits()
            } else if x < -max {
                lo += 1;
                f32::NEG_INFINITY.to_bits()
            } else if x.is_nan() {
                f64_to_f32_hw(x)
            } else {
                continue;
            };
            d.copy_from_slice(&r.to_le_bytes());
        }
    });
    (hi, lo)
}

/// Packed `f32` to `f64` (`cvtss2sd`, exact, raising nothing): blocks are cast in a loop
/// that vectorizes (`cvtps2pd`) and notes whether a block holds a NaN, whose quiet form
/// is then written one by one.
#[inline(never)]
fn widen_f32_f64(src: &[u8], dst: &mut [u8], n: usize) {
    for (sb, db) in src[..n * 4]
        .chunks(BLOCK * 4)
        .zip(dst[..n * 8].chunks_mut(BLOCK * 8))
    {
        let m = sb.len() / 4;
        let nan = packed::map(sb, 4, db, 8, m, false, |s, d, nan| {
            let x = f32::from_le_bytes(array::<4>(s));
            d.copy_from_slice(&f64::from(x).to_le_bytes());
            nan | x.is_nan()
        });
        if nan {
            for (s, d) in sb.chunks_exact(4).zip(db.chunks_exact_mut(8)) {
                d.copy_from_slice(&f32_to_f64_hw(u32::from_le_bytes(array::<4>(s))).to_le_bytes());
            }
        }
    }
}

/// The elements of a block of the float casts: the vectorized loop notes whether a block
/// needs a second look (rarely: NaN), and a block stays in the first-level cache for it.
const BLOCK: usize = 256;

/// Native integer to `float`/`double` (`H5T__conv_int_float` and friends): a C cast, and a
/// precision exception when the source has more bits than the destination's mantissa and
/// the span from its highest to its lowest set bit (of the raw two's complement bits) does
/// not fit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HardIntFloat {
    pub(crate) src: StdInt,
    pub(crate) dst: StdFloat,
}

#[inline(never)]
fn hard_int_float<S: Lane, F: FLane>(
    src: &[u8],
    ss: usize,
    dst: &mut [u8],
    ds: usize,
    n: usize,
    ctx: &mut Ctx,
) -> Result<()> {
    let sprec = 8 * S::N as u32;
    let dprec = F::MSIZE + 1;
    let mask = u128::MAX >> (128 - sprec);
    if sprec <= dprec && ss == S::N && ds == F::N {
        // Every value is exact: a plain cast (`cvtdq2pd` and friends), nothing to raise.
        packed::map(src, S::N, dst, F::N, n, (), |s, d, ()| {
            F::put::<false>(F::from_int(S::ld::<false>(s)), d)
        });
        return Ok(());
    }
    two_pass(src, (ss, S::N), dst, (ds, F::N), n, ctx, |s, d| {
        let v = S::ld::<false>(s);
        F::put::<false>(F::from_int(v), d);
        if sprec > dprec {
            let raw = (v.wide() as u128) & mask;
            if raw != 0 && (127 - raw.leading_zeros()) - raw.trailing_zeros() >= dprec {
                return Some((ExceptionKind::Precision, Special::None));
            }
        }
        None
    })
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
        with_int!(
            self.src,
            S,
            _SBE,
            with_float!(
                self.dst,
                F,
                _DBE,
                hard_int_float::<S, F>(src, ss, dst, ds, n, ctx)
            )
        )
    }
}

/// What x86-64 code compiled from a C cast of a float to an integer type produces, including
/// for NaN and out-of-range values (the "integer indefinite" value and its truncations).
#[inline(always)]
fn x86_float_to_int(x: f64, size: usize, signed: bool) -> i128 {
    const INDEF32: i128 = -(1 << 31);
    const INDEF64: i128 = -(1 << 63);
    // `cvttsd2si`: truncation when the truncated value fits, the indefinite value otherwise
    // (and for NaN, for which the comparisons are false).
    let cvt32 = |x: f64| -> i128 {
        if x > -2147483649.0 && x < 2147483648.0 {
            i128::from(x as i64)
        } else {
            INDEF32
        }
    };
    let cvt64 = |x: f64| -> i128 {
        if (-9223372036854775808.0..9223372036854775808.0).contains(&x) {
            i128::from(x as i64)
        } else {
            INDEF64
        }
    };
    match (size, signed) {
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

#[inline(never)]
fn hard_float_int<F: FLane, D: Lane>(
    src: &[u8],
    ss: usize,
    dst: &mut [u8],
    ds: usize,
    n: usize,
    ctx: &mut Ctx,
) -> Result<()> {
    // The bounds as the source type sees them: D_MAX and D_MIN cast to the float type.
    let maxf = rounded::<F>(D::MAX);
    let minf = rounded::<F>(D::MIN);
    let sprec = F::MSIZE + 1;
    let dprec = 8 * D::N as u32;
    let signed = D::MIN < 0;
    let cb = ctx.has_cb();
    two_pass(src, (ss, F::N), dst, (ds, D::N), n, ctx, |s, d| {
        let x = F::value(F::bits::<false>(s));
        if cb {
            let (value, exc) = if x > maxf || (sprec < dprec && x == maxf) {
                (D::MAX, Some(ExceptionKind::RangeHi))
            } else if x < minf {
                (D::MIN, Some(ExceptionKind::RangeLow))
            } else {
                let v = x86_float_to_int(x, D::N, signed);
                // The value cast back must equal the source (never for NaN).
                let back = F::round_lane(D::narrow(v));
                (v, (back != x).then_some(ExceptionKind::Truncate))
            };
            D::narrow(value).st::<false>(d);
            exc.map(|k| (k, Special::of(x)))
        } else {
            let (value, exc) = if x > maxf {
                (D::MAX, Some(ExceptionKind::RangeHi))
            } else if x < minf {
                (D::MIN, Some(ExceptionKind::RangeLow))
            } else {
                (x86_float_to_int(x, D::N, signed), None)
            };
            D::narrow(value).st::<false>(d);
            exc.map(|k| (k, Special::of(x)))
        }
    })
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
        with_float!(
            self.src,
            F,
            _SBE,
            with_int!(
                self.dst,
                D,
                _DBE,
                hard_float_int::<F, D>(src, ss, dst, ds, n, ctx)
            )
        )
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

#[inline(never)]
fn soft_int_float<S: Lane, F: FLane, const SBE: bool, const DBE: bool>(
    src: &[u8],
    ss: usize,
    dst: &mut [u8],
    ds: usize,
    n: usize,
    ctx: &mut Ctx,
) -> Result<()> {
    two_pass(src, (ss, S::N), dst, (ds, F::N), n, ctx, |s, d| {
        let v = S::ld::<SBE>(s);
        F::put::<DBE>(F::from_int(v), d);
        let mag = v.wide().unsigned_abs();
        (mag != 0 && 127 - mag.leading_zeros() > F::MSIZE)
            .then_some((ExceptionKind::Precision, Special::None))
    })
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
        with_int!(
            self.src,
            S,
            SBE,
            with_float!(
                self.dst,
                F,
                DBE,
                soft_int_float::<S, F, SBE, DBE>(src, ss, dst, ds, n, ctx)
            )
        )
    }
}

/// IEEE float to standard integer (`H5T__conv_f_i` on standard layouts): truncation toward
/// zero, clamping, NaN to zero.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SoftFloatInt {
    pub(crate) src: StdFloat,
    pub(crate) dst: StdInt,
}

#[inline(never)]
fn soft_float_int<F: FLane, D: Lane, const SBE: bool, const DBE: bool, const STRICT: bool>(
    src: &[u8],
    ss: usize,
    dst: &mut [u8],
    ds: usize,
    n: usize,
    ctx: &mut Ctx,
) -> Result<()> {
    let cb = ctx.has_cb();
    let prec = 8 * D::N as i64;
    let signed = D::MIN < 0;
    let limit = if signed { prec - 1 } else { prec };
    two_pass(src, (ss, F::N), dst, (ds, D::N), n, ctx, |s, d| {
        let raw = F::bits::<SBE>(s);
        // Saturating casts give the reference library's default results.
        D::sat(F::value(raw)).st::<DBE>(d);
        let sign = raw >> (F::ESIZE + F::MSIZE) & 1 == 1;
        let efield = (raw >> F::MSIZE) & ((1 << F::ESIZE) - 1);
        let mant = raw & ((1 << F::MSIZE) - 1);
        let kind = if efield == (1 << F::ESIZE) - 1 {
            if mant == 0 {
                Some(if sign {
                    ExceptionKind::NegInf
                } else {
                    ExceptionKind::PosInf
                })
            } else {
                Some(ExceptionKind::NaN)
            }
        } else if efield == 0 {
            // Zero or denormalized: the integer part is zero, silently.
            None
        } else {
            let expo = efield as i64 - F::BIAS;
            if expo < 0 {
                None
            } else {
                let truncated = cb && expo < i64::from(F::MSIZE);
                if sign && !signed {
                    Some(ExceptionKind::RangeLow)
                } else if sign {
                    if expo < limit {
                        truncated.then_some(ExceptionKind::Truncate)
                    } else {
                        Some(ExceptionKind::RangeLow)
                    }
                } else if expo >= limit {
                    Some(ExceptionKind::RangeHi)
                } else {
                    truncated.then_some(ExceptionKind::Truncate)
                }
            }
        };
        if STRICT && matches!(kind, None | Some(ExceptionKind::Truncate)) {
            // Whether a fraction is really dropped (the reference raises truncations for
            // every value below 2^mantissa bits, and none for values below 1).
            return strict_truncation(kind, F::value(raw).fract() != 0.0);
        }
        kind.map(|k| (k, Special::None))
    })
}

/// Under strict options, the exception of a float-to-integer element whose value is in
/// range, given the reference's `kind` (`None` or a truncation) and whether the value has a
/// fractional part: a truncation that drops nothing is marked exact, and a dropped fraction
/// the reference does not report (a value below 1) is raised as a truncation.
fn strict_truncation(
    kind: Option<ExceptionKind>,
    fraction: bool,
) -> Option<(ExceptionKind, Special)> {
    match (kind, fraction) {
        (_, true) => Some((ExceptionKind::Truncate, Special::None)),
        (Some(k), false) => Some((k, Special::Exact)),
        (None, false) => None,
    }
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
        with_float!(
            self.src,
            F,
            SBE,
            with_int!(
                self.dst,
                D,
                DBE,
                if ctx.strict {
                    soft_float_int::<F, D, SBE, DBE, true>(src, ss, dst, ds, n, ctx)
                } else {
                    soft_float_int::<F, D, SBE, DBE, false>(src, ss, dst, ds, n, ctx)
                }
            )
        )
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
        let fast = match (StdFloat::of(sf), StdFloat::of(df)) {
            (Some(a), Some(b)) => Some((a, b)),
            _ => None,
        };
        'elements: for k in 0..n {
            let i = if backwards { n - 1 - k } else { k };
            let se = &src[i * ss..i * ss + ssize];
            // IEEE to IEEE, a normal value to a normal value, before any denormalized value:
            // the same result without walking bits.
            // (Widening never rounds, so the state does not matter then.)
            if let Some((a, b)) = fast.filter(|(a, b)| !denormalized || b.size >= a.size) {
                if let Some(bits) = ieee_normal(a, b, a.read(se)) {
                    b.write(&mut dst[i * ds..i * ds + dsize], bits);
                    continue 'elements;
                }
            }
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
                } else if expo == expo_max {
                    // The reference raises nothing here and writes an infinity or a NaN.
                    ctx.lossy(i, Loss::Overflow, String::new);
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
                let mut special = Special::None;
                if ctx.strict && matches!(exc, None | Some(ExceptionKind::Truncate)) {
                    // The bits of the mantissa below the binary point.
                    let below = usize::try_from(-shift).unwrap_or(0).min(sm + 1);
                    let fraction = bits::find(&mant, 0, below, Dir::Lsb, true).is_some();
                    if let Some((k, sp)) = strict_truncation(exc, fraction) {
                        exc = Some(k);
                        special = sp;
                    }
                }
                if let Some(kind) = exc {
                    let de = &mut dst[i * ds..i * ds + dsize];
                    if ctx.raise(kind, i, se, de, special)? == Action::Handled {
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
