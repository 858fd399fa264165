//! Scale-offset (`H5Z_FILTER_SCALEOFFSET`): each value minus the chunk minimum, packed in the
//! fewest bits that hold the chunk's range; floats are first scaled by `10^D` and rounded
//! (D-scaling, lossy).
//!
//! Client data (20 values): `[0]` scale type (0 float D-scale, 1 float E-scale
//! (unsupported by the reference library too), 2 integer), `[1]` scale factor (D, or the
//! integer minimum bits, 0 meaning "compute"), `[2]` elements in a chunk, `[3]` class (0
//! integer, 1 float), `[4]` size, `[5]` sign (0 unsigned, 1 two's complement), `[6]` byte
//! order (0 LE, 1 BE), `[7]` fill value defined (1), `[8..]` the fill value, little-endian,
//! four bytes per value.
//!
//! Stored chunk: minimum bits (u32 LE), the size of the minimum (1 byte, 8), the minimum (8
//! bytes LE), 8 zero bytes, then the packed values (most significant bit first), or the
//! values themselves when the minimum bits equal the full width.

use super::bits::{mask64, BitReader, BitWriter};
use super::{bail, ensure, DecodeContext, Filter, FilterCodec, FilterId, LocalInfo, Result, Step};

const ID: FilterId = FilterId::SCALEOFFSET;

pub(super) const TOTAL_NPARMS: usize = 20;
pub(super) const SCALE_FLOAT_DSCALE: u32 = 0;
pub(super) const SCALE_FLOAT_ESCALE: u32 = 1;
pub(super) const SCALE_INT: u32 = 2;
pub(super) const CLS_INTEGER: u32 = 0;
pub(super) const CLS_FLOAT: u32 = 1;
pub(super) const SGN_NONE: u32 = 0;
pub(super) const SGN_2: u32 = 1;
pub(super) const ORDER_BE: u32 = 1;
pub(super) const FILL_DEFINED: u32 = 1;
const PARM_FILVAL: usize = 8;
const HEADER: usize = 21;

/// The memory type the reference library picks for the dataset's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Unsigned,
    Signed,
    F32,
    F64,
}

struct Params {
    nelmts: usize,
    size: usize,
    kind: Kind,
    /// Fill value bits, when defined.
    fill: Option<u64>,
    /// Minimum bits fixed by the user (integers), 0 to compute.
    minbits: u32,
    /// Decimal scale factor (floats).
    d: f64,
    /// Whether the data is big-endian (converted to little-endian around the filter).
    convert: bool,
}

enum Mode {
    /// Integer minimum bits equal to the full width: the filter does nothing.
    Passthrough,
    Process(Params),
}

fn mode(cd: &[u32]) -> Result<Mode> {
    ensure!(
        cd.len() == TOTAL_NPARMS,
        InvalidParameters,
        ID,
        "expected {TOTAL_NPARMS} client data values, found {}",
        cd.len()
    );
    let scale_type = cd[0];
    let mut scale_factor = cd[1] as i32;
    let class = cd[3];
    let size = cd[4] as usize;
    if class == CLS_FLOAT {
        ensure!(
            scale_type == SCALE_FLOAT_DSCALE || scale_type == SCALE_FLOAT_ESCALE,
            InvalidParameters,
            ID,
            "scale type {scale_type} for a float"
        );
    }
    if class == CLS_INTEGER {
        ensure!(
            scale_type == SCALE_INT,
            InvalidParameters,
            ID,
            "scale type {scale_type} for an integer"
        );
        scale_factor = scale_factor.max(0);
    }
    ensure!(
        scale_type != SCALE_FLOAT_ESCALE,
        InvalidParameters,
        ID,
        "E-scaling is not supported"
    );
    let (minbits, d) = if scale_type == SCALE_FLOAT_DSCALE {
        (0, f64::from(scale_factor))
    } else {
        let full = size.saturating_mul(8);
        ensure!(
            i64::from(scale_factor) <= full as i64,
            InvalidParameters,
            ID,
            "minimum bits {scale_factor} exceed the {size}-byte type"
        );
        if scale_factor as usize == full {
            return Ok(Mode::Passthrough);
        }
        (scale_factor as u32, 0.0)
    };
    let kind = match (class, cd[5], size) {
        (CLS_INTEGER, SGN_NONE, 1 | 2 | 4 | 8) => Kind::Unsigned,
        (CLS_INTEGER, SGN_2, 1 | 2 | 4 | 8) => Kind::Signed,
        (CLS_FLOAT, _, 4) => Kind::F32,
        (CLS_FLOAT, _, 8) => Kind::F64,
        _ => bail!(
            InvalidParameters,
            ID,
            "no memory type for class {class}, sign {}, size {size}",
            cd[5]
        ),
    };
    let fill = (cd[7] == FILL_DEFINED).then(|| {
        let lo = u64::from(cd[PARM_FILVAL]);
        let hi = u64::from(cd[PARM_FILVAL + 1]);
        (lo | hi << 32) & mask64(size as u32 * 8)
    });
    Ok(Mode::Process(Params {
        nelmts: cd[2] as usize,
        size,
        kind,
        fill,
        minbits,
        d,
        convert: cd[6] == ORDER_BE,
    }))
}

/// `H5Z__scaleoffset_log2`: ceiling of log2 (1 for 0).
fn log2_ceil(num: u64) -> u32 {
    let mut v = 0;
    let mut lower: u64 = 1;
    let mut val = num;
    loop {
        val >>= 1;
        if val == 0 {
            break;
        }
        v += 1;
        lower <<= 1;
    }
    if num == lower {
        v
    } else {
        v + 1
    }
}

fn read_elem(b: &[u8], convert: bool) -> u64 {
    let mut x = 0u64;
    if convert {
        for &byte in b {
            x = x << 8 | u64::from(byte);
        }
    } else {
        for &byte in b.iter().rev() {
            x = x << 8 | u64::from(byte);
        }
    }
    x
}

fn write_elem(b: &mut [u8], v: u64, convert: bool) {
    let n = b.len();
    for (i, byte) in b.iter_mut().enumerate() {
        let shift = if convert { n - 1 - i } else { i };
        *byte = (v >> (8 * shift)) as u8;
    }
}

/// Unpack (reading).
pub(super) fn decode(cd: &[u32], input: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<Step> {
    let p = match mode(cd)? {
        Mode::Passthrough => return Ok(Step::Unchanged),
        Mode::Process(p) => p,
    };
    ensure!(
        input.len() >= HEADER,
        Corrupt,
        ID,
        "chunk of {} bytes is shorter than the {HEADER}-byte header",
        input.len()
    );
    let minbits = u32::from_le_bytes([input[0], input[1], input[2], input[3]]);
    let minval_size = usize::from(input[4]).min(8);
    let mut minval = 0u64;
    for (i, &b) in input[5..5 + minval_size].iter().enumerate() {
        minval |= u64::from(b) << (8 * i);
    }
    let width = p.size as u32 * 8;
    ensure!(
        minbits <= width,
        Corrupt,
        ID,
        "minimum bits {minbits} exceed the {width}-bit type"
    );
    let total = match p.nelmts.checked_mul(p.size) {
        Some(t) if t <= limit => t,
        _ => bail!(
            LimitExceeded,
            ID,
            "{} elements of {} bytes exceed the chunk size {limit}",
            p.nelmts,
            p.size
        ),
    };
    out.clear();
    out.resize(total, 0);
    let body = &input[HEADER..];
    if minbits == width {
        ensure!(
            body.len() >= total,
            Corrupt,
            ID,
            "chunk holds {} of {total} data bytes",
            body.len()
        );
        for (o, i) in out.chunks_exact_mut(p.size).zip(body.chunks_exact(p.size)) {
            o.copy_from_slice(i);
            if p.convert {
                o.reverse();
            }
        }
        return Ok(Step::Replaced);
    }
    let needed = (p.nelmts as u64 * u64::from(minbits)).div_ceil(8);
    ensure!(
        body.len() as u64 >= needed,
        Corrupt,
        ID,
        "packed data has {} bytes, {needed} needed",
        body.len()
    );
    let mut r = BitReader::new(body);
    let fill_code = mask64(minbits);
    let wmask = mask64(width);
    let pow_f32 = 10f32.powf(p.d as f32);
    let pow_f64 = 10f64.powf(p.d);
    for o in out.chunks_exact_mut(p.size) {
        let v = if minbits == 0 {
            0
        } else {
            r.get(minbits).unwrap_or(0)
        };
        let x = match (p.kind, p.fill) {
            (Kind::Unsigned | Kind::Signed, Some(f)) if v == fill_code => f,
            (Kind::Unsigned | Kind::Signed, _) => v.wrapping_add(minval) & wmask,
            (Kind::F32, fill) => {
                let iv = v as u32 as i32;
                match fill {
                    Some(f) if iv == fill_code as u32 as i32 => f,
                    _ => {
                        let min = f32::from_bits(minval as u32);
                        u64::from((iv as f32 / pow_f32 + min).to_bits())
                    }
                }
            }
            (Kind::F64, fill) => {
                let iv = v as i64;
                match fill {
                    Some(f) if iv == fill_code as i64 => f,
                    _ => {
                        let min = f64::from_bits(minval);
                        (iv as f64 / pow_f64 + min).to_bits()
                    }
                }
            }
        };
        write_elem(o, x, p.convert);
    }
    Ok(Step::Replaced)
}

/// C's `lround`/`llround` on x86-64: out of range and NaN give `i64::MIN`.
fn lround(x: f64) -> i64 {
    const LIM: f64 = 9_223_372_036_854_775_808.0;
    if !(-LIM..LIM).contains(&x) {
        i64::MIN
    } else {
        x.round() as i64
    }
}

fn lroundf(x: f32) -> i64 {
    lround(f64::from(x.round()))
}

/// `(minbits, minval)` and the values rewritten in place, for integers.
fn precompress_int(p: &Params, vals: &mut [u64]) -> (u32, u64) {
    let width = p.size as u32 * 8;
    let wmask = mask64(width);
    let signed = p.kind == Kind::Signed;
    let sx = |v: u64| -> i64 {
        let s = 64 - width;
        ((v << s) as i64) >> s
    };
    let less = |a: u64, b: u64| if signed { sx(a) < sx(b) } else { a < b };
    let extend = |v: u64| if signed { sx(v) as u64 } else { v };
    let is_fill = |v: u64| p.fill == Some(v);
    let mut minbits = p.minbits;
    let candidates = || vals.iter().copied().filter(|&v| !is_fill(v));
    let (mut min, mut max) = match (p.fill.is_some(), vals.first()) {
        (true, _) => {
            let first = candidates().next().unwrap_or(0);
            (first, first)
        }
        (false, Some(&v)) => (v, v),
        (false, None) => (0, 0),
    };
    for v in candidates() {
        if less(max, v) {
            max = v;
        }
        if less(v, min) {
            min = v;
        }
    }
    if minbits == 0 {
        let range = max.wrapping_sub(min) & wmask;
        if range > wmask - 2 {
            // The reference library returns before recording the minimum, except for
            // signed chars without a fill value.
            let minval = if signed && width == 8 && p.fill.is_none() {
                extend(min)
            } else {
                0
            };
            return (width, minval);
        }
        let span = range + 1;
        minbits = if p.fill.is_some() {
            log2_ceil(span + 1)
        } else {
            log2_ceil(span)
        };
    }
    if minbits != width {
        let fill_code = mask64(minbits);
        for v in vals.iter_mut() {
            *v = if is_fill(*v) {
                fill_code
            } else {
                v.wrapping_sub(min) & wmask
            };
        }
    }
    (minbits, extend(min))
}

/// `(minbits, minval)` and the values rewritten in place (as integers), for floats.
fn precompress_float(p: &Params, vals: &mut [u64]) -> (u32, u64) {
    let d = p.d;
    let thresh = 10f64.powf(-d);
    if p.kind == Kind::F32 {
        let f = |v: u64| f32::from_bits(v as u32);
        let fill = p.fill.map(f);
        let near_fill = |x: f32| fill.is_some_and(|fv| f64::from((x - fv).abs()) < thresh);
        let (mut min, mut max) = match (fill.is_some(), vals.first()) {
            (true, _) => {
                let first = vals.iter().map(|&v| f(v)).find(|&x| !near_fill(x));
                (first.unwrap_or(0.0), first.unwrap_or(0.0))
            }
            (false, Some(&v)) => (f(v), f(v)),
            (false, None) => (0.0, 0.0),
        };
        for x in vals.iter().map(|&v| f(v)).filter(|&x| !near_fill(x)) {
            if x > max {
                max = x;
            }
            if x < min {
                min = x;
            }
        }
        let pw = 10f32.powf(d as f32);
        if (max * pw - min * pw).round() > 2f32.powf(31.0) {
            return (32, 0);
        }
        let span = lroundf(max * pw - min * pw).wrapping_add(1) as u64;
        let minbits = if fill.is_some() {
            log2_ceil(span.wrapping_add(1))
        } else {
            log2_ceil(span)
        };
        if minbits != 32 {
            let thresh_f = 10f32.powf(-d as f32);
            for v in vals.iter_mut() {
                let x = f(*v);
                let iv = match fill {
                    Some(fv) if (x - fv).abs() < thresh_f => mask64(minbits) as u32 as i32,
                    _ => lroundf(x * pw - min * pw) as i32,
                };
                *v = u64::from(iv as u32);
            }
        }
        (minbits, u64::from(min.to_bits()))
    } else {
        let f = f64::from_bits;
        let fill = p.fill.map(f);
        let near_fill = |x: f64| fill.is_some_and(|fv| (x - fv).abs() < thresh);
        let (mut min, mut max) = match (fill.is_some(), vals.first()) {
            (true, _) => {
                let first = vals.iter().map(|&v| f(v)).find(|&x| !near_fill(x));
                (first.unwrap_or(0.0), first.unwrap_or(0.0))
            }
            (false, Some(&v)) => (f(v), f(v)),
            (false, None) => (0.0, 0.0),
        };
        for x in vals.iter().map(|&v| f(v)).filter(|&x| !near_fill(x)) {
            if x > max {
                max = x;
            }
            if x < min {
                min = x;
            }
        }
        let pw = 10f64.powf(d);
        if (max * pw - min * pw).round() > 2f64.powf(63.0) {
            return (64, 0);
        }
        let span = lround(max * pw - min * pw).wrapping_add(1) as u64;
        let minbits = if fill.is_some() {
            log2_ceil(span.wrapping_add(1))
        } else {
            log2_ceil(span)
        };
        if minbits != 64 {
            for v in vals.iter_mut() {
                let x = f(*v);
                let iv = match fill {
                    Some(fv) if (x - fv).abs() < thresh => mask64(minbits) as i64,
                    _ => lround(x * pw - min * pw),
                };
                *v = iv as u64;
            }
        }
        (minbits, min.to_bits())
    }
}

/// Pack (writing).
pub(super) fn encode(cd: &[u32], input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
    let p = match mode(cd)? {
        Mode::Passthrough => return Ok(Step::Unchanged),
        Mode::Process(p) => p,
    };
    ensure!(
        p.nelmts.checked_mul(p.size) == Some(input.len()),
        InvalidParameters,
        ID,
        "chunk has {} bytes, parameters say {} elements of {} bytes",
        input.len(),
        p.nelmts,
        p.size
    );
    let width = p.size as u32 * 8;
    let mut vals: Vec<u64> = input
        .chunks_exact(p.size)
        .map(|b| read_elem(b, p.convert))
        .collect();
    let (minbits, minval) = match p.kind {
        Kind::Unsigned | Kind::Signed => precompress_int(&p, &mut vals),
        Kind::F32 | Kind::F64 => precompress_float(&p, &mut vals),
    };
    ensure!(
        minbits <= width,
        EncodeFailed,
        ID,
        "minimum bits {minbits} exceed the {width}-bit type"
    );
    let mut buf = std::mem::take(out);
    buf.clear();
    buf.extend_from_slice(&minbits.to_le_bytes());
    buf.push(8);
    buf.extend_from_slice(&minval.to_le_bytes());
    buf.extend_from_slice(&[0u8; 8]);
    if minbits == width {
        // The values as they were, in little-endian order.
        buf.reserve(input.len());
        for &v in &vals {
            let start = buf.len();
            buf.resize(start + p.size, 0);
            write_elem(&mut buf[start..], v, false);
        }
        *out = buf;
        return Ok(Step::Replaced);
    }
    let packed_len = (p.nelmts as u64 * u64::from(minbits) / 8) as usize + 1;
    let mut w = BitWriter::reuse(Vec::new(), packed_len);
    if minbits != 0 {
        for &v in &vals {
            w.put(v, minbits);
        }
    }
    buf.extend_from_slice(&w.finish());
    *out = buf;
    Ok(Step::Replaced)
}

/// The scaleoffset codec; `set_local` stores the parameters the datatype and chunk shape give.
#[derive(Clone, Copy, Debug, Default)]
pub struct ScaleOffset;

impl FilterCodec for ScaleOffset {
    fn id(&self) -> FilterId {
        ID
    }
    fn name(&self) -> &str {
        "scaleoffset"
    }
    fn set_local(&self, filter: &Filter, local: &LocalInfo<'_>) -> Result<Filter> {
        let mut f = filter.clone();
        f.client_data = super::local::scaleoffset_local(
            filter,
            local.datatype,
            super::local::npoints(ID, local.chunk_dims)?,
            local.fill,
        )?;
        Ok(f)
    }
    fn decode(
        &self,
        f: &Filter,
        input: &[u8],
        out: &mut Vec<u8>,
        ctx: &DecodeContext,
    ) -> Result<Step> {
        decode(&f.client_data, input, out, ctx.limit)
    }
    fn encode(&self, f: &Filter, input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
        encode(&f.client_data, input, out)
    }
}
