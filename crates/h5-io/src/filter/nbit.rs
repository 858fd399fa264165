//! N-bit (`H5Z_FILTER_NBIT`): only the significant bits (precision at offset) of each integer
//! or float are stored, packed most significant bit first; other classes are copied whole.
//!
//! Client data, as the reference library's `set_local` stores it:
//! `[0]` number of values, `[1]` 1 when no element has padding bits (the filter then does
//! nothing), `[2]` number of elements in a chunk, then the datatype, recursively:
//! atomic `1, size, order (0 LE / 1 BE), precision, offset`; array `2, size, <base>`;
//! compound `3, size, nmembers, {member offset, <member>}*`; other `4, size`.

use super::bits::{BitReader, BitWriter};
use super::{
    bail, ensure, DecodeContext, Error, ErrorKind, Filter, FilterCodec, FilterId, LocalInfo,
    Result, Step,
};

const ID: FilterId = FilterId::NBIT;

pub(super) const CLASS_ATOMIC: u32 = 1;
pub(super) const CLASS_ARRAY: u32 = 2;
pub(super) const CLASS_COMPOUND: u32 = 3;
pub(super) const CLASS_NOOPTYPE: u32 = 4;
pub(super) const ORDER_LE: u32 = 0;
pub(super) const ORDER_BE: u32 = 1;

/// Nesting depth of array/compound parameters accepted (the walk recurses).
const MAX_DEPTH: usize = 64;

/// Parameters of one integer or float.
#[derive(Clone, Copy, Debug)]
struct Atomic {
    size: usize,
    order: u32,
    precision: usize,
    offset: usize,
}

impl Atomic {
    fn check(&self) -> Result<()> {
        ensure!(self.size > 0, InvalidParameters, ID, "atomic size 0");
        let bits = self.size.saturating_mul(8);
        ensure!(
            self.precision <= bits && self.precision + self.offset <= bits,
            InvalidParameters,
            ID,
            "precision {} at offset {} does not fit {} bytes",
            self.precision,
            self.offset,
            self.size
        );
        ensure!(
            self.order == ORDER_LE || self.order == ORDER_BE,
            InvalidParameters,
            ID,
            "byte order {}",
            self.order
        );
        Ok(())
    }

    /// Call `f(byte index, bit count, shift)` for each byte holding significant bits, most
    /// significant byte first.
    #[inline]
    fn for_each_byte(&self, mut f: impl FnMut(usize, u32, u32) -> Result<()>) -> Result<()> {
        if self.precision == 0 {
            return Ok(());
        }
        let (p, o, len) = (self.precision, self.offset, self.size * 8);
        let top_bits = (8 - (len - p - o) % 8) as u32;
        let low_shift = (o % 8) as u32;
        let one = |k: usize, begin: usize, end: usize| -> (u32, u32) {
            if begin == end {
                (p as u32, low_shift)
            } else if k == begin {
                (top_bits, 0)
            } else if k == end {
                (8 - low_shift, low_shift)
            } else {
                (8, 0)
            }
        };
        if self.order == ORDER_LE {
            let (begin, end) = ((p + o - 1) / 8, o / 8);
            for k in (end..=begin).rev() {
                let (n, s) = one(k, begin, end);
                f(k, n, s)?;
            }
        } else {
            let (begin, end) = ((len - p - o) / 8, (len - o - 1) / 8);
            for k in begin..=end {
                let (n, s) = one(k, begin, end);
                f(k, n, s)?;
            }
        }
        Ok(())
    }
}

/// Client data, read with bounds checks.
struct Parms<'a> {
    v: &'a [u32],
}

impl Parms<'_> {
    fn get(&self, i: usize) -> Result<u32> {
        match self.v.get(i) {
            Some(&x) => Ok(x),
            None => bail!(
                InvalidParameters,
                ID,
                "parameter list is shorter than the datatype it describes"
            ),
        }
    }
}

/// What the datatype walk does at each leaf.
trait Visit {
    fn atomic(&mut self, at: usize, p: &Atomic) -> Result<()>;
    fn noop(&mut self, at: usize, size: usize) -> Result<()>;
    /// Length of the unpacked buffer, for range checks.
    fn len(&self) -> usize;
}

fn check_range(v: &impl Visit, at: usize, size: usize) -> Result<()> {
    ensure!(
        at.checked_add(size).is_some_and(|end| end <= v.len()),
        InvalidParameters,
        ID,
        "datatype of {size} bytes at {at} exceeds the {}-byte chunk",
        v.len()
    );
    Ok(())
}

fn walk(cd: &Parms<'_>, v: &mut impl Visit, nelmts: usize, size: usize) -> Result<()> {
    match cd.get(3)? {
        CLASS_ATOMIC => {
            let p = Atomic {
                size: cd.get(4)? as usize,
                order: cd.get(5)?,
                precision: cd.get(6)? as usize,
                offset: cd.get(7)? as usize,
            };
            p.check()?;
            for i in 0..nelmts {
                v.atomic(i * size, &p)?;
            }
        }
        CLASS_ARRAY => {
            for i in 0..nelmts {
                let mut idx = 4;
                walk_array(cd, &mut idx, v, i * size, 0)?;
            }
        }
        CLASS_COMPOUND => {
            for i in 0..nelmts {
                let mut idx = 4;
                walk_compound(cd, &mut idx, v, i * size, 0)?;
            }
        }
        other => bail!(InvalidParameters, ID, "datatype class code {other}"),
    }
    Ok(())
}

fn walk_array(
    cd: &Parms<'_>,
    idx: &mut usize,
    v: &mut impl Visit,
    at: usize,
    depth: usize,
) -> Result<()> {
    ensure!(
        depth < MAX_DEPTH,
        InvalidParameters,
        ID,
        "datatype nested too deeply"
    );
    let total = cd.get(*idx)? as usize;
    let base_class = cd.get(*idx + 1)?;
    *idx += 2;
    check_range(v, at, total)?;
    match base_class {
        CLASS_ATOMIC => {
            let p = Atomic {
                size: cd.get(*idx)? as usize,
                order: cd.get(*idx + 1)?,
                precision: cd.get(*idx + 2)? as usize,
                offset: cd.get(*idx + 3)? as usize,
            };
            *idx += 4;
            p.check()?;
            for i in 0..total / p.size {
                v.atomic(at + i * p.size, &p)?;
            }
        }
        CLASS_ARRAY | CLASS_COMPOUND => {
            let base_size = cd.get(*idx)? as usize;
            ensure!(base_size > 0, InvalidParameters, ID, "array base size 0");
            let begin = *idx;
            // As in the reference library, the index is left at the base type's parameters.
            for i in 0..total / base_size {
                if base_class == CLASS_ARRAY {
                    walk_array(cd, idx, v, at + i * base_size, depth + 1)?;
                } else {
                    walk_compound(cd, idx, v, at + i * base_size, depth + 1)?;
                }
                *idx = begin;
            }
        }
        CLASS_NOOPTYPE => {
            cd.get(*idx)?;
            *idx += 1;
            v.noop(at, total)?;
        }
        other => bail!(InvalidParameters, ID, "array base class code {other}"),
    }
    Ok(())
}

fn walk_compound(
    cd: &Parms<'_>,
    idx: &mut usize,
    v: &mut impl Visit,
    at: usize,
    depth: usize,
) -> Result<()> {
    ensure!(
        depth < MAX_DEPTH,
        InvalidParameters,
        ID,
        "datatype nested too deeply"
    );
    let size = u64::from(cd.get(*idx)?);
    let nmembers = cd.get(*idx + 1)?;
    *idx += 2;
    check_range(v, at, size as usize)?;
    let mut used: u64 = 0;
    for _ in 0..nmembers {
        let member_offset = u64::from(cd.get(*idx)?);
        let member_class = cd.get(*idx + 1)?;
        *idx += 2;
        let member_size = u64::from(cd.get(*idx)?);
        ensure!(
            member_size > 0 && used + member_size <= size,
            InvalidParameters,
            ID,
            "compound member size overflowed compound size"
        );
        used += member_size;
        ensure!(
            member_offset + member_size <= size,
            InvalidParameters,
            ID,
            "compound member offset overflowed compound size"
        );
        let mat = at + member_offset as usize;
        match member_class {
            CLASS_ATOMIC => {
                let p = Atomic {
                    size: member_size as usize,
                    order: cd.get(*idx + 1)?,
                    precision: cd.get(*idx + 2)? as usize,
                    offset: cd.get(*idx + 3)? as usize,
                };
                *idx += 4;
                p.check()?;
                v.atomic(mat, &p)?;
            }
            CLASS_ARRAY => walk_array(cd, idx, v, mat, depth + 1)?,
            CLASS_COMPOUND => walk_compound(cd, idx, v, mat, depth + 1)?,
            CLASS_NOOPTYPE => {
                *idx += 1;
                v.noop(mat, member_size as usize)?;
            }
            other => bail!(InvalidParameters, ID, "member class code {other}"),
        }
    }
    Ok(())
}

struct Unpack<'a> {
    out: &'a mut [u8],
    r: BitReader<'a>,
}

fn truncated() -> Error {
    Error::new(ErrorKind::Corrupt, ID, "packed data ends early")
}

impl Visit for Unpack<'_> {
    fn atomic(&mut self, at: usize, p: &Atomic) -> Result<()> {
        check_range(self, at, p.size)?;
        let (out, r) = (&mut *self.out, &mut self.r);
        p.for_each_byte(|k, n, shift| {
            let bits = r.get(n).ok_or_else(truncated)?;
            out[at + k] = (bits << shift) as u8;
            Ok(())
        })
    }

    fn noop(&mut self, at: usize, size: usize) -> Result<()> {
        check_range(self, at, size)?;
        for b in &mut self.out[at..at + size] {
            *b = self.r.get(8).ok_or_else(truncated)? as u8;
        }
        Ok(())
    }

    fn len(&self) -> usize {
        self.out.len()
    }
}

struct Pack<'a> {
    data: &'a [u8],
    w: BitWriter,
}

impl Visit for Pack<'_> {
    fn atomic(&mut self, at: usize, p: &Atomic) -> Result<()> {
        check_range(self, at, p.size)?;
        let (data, w) = (self.data, &mut self.w);
        p.for_each_byte(|k, n, shift| {
            w.put(u64::from(data[at + k] >> shift), n);
            Ok(())
        })
    }

    fn noop(&mut self, at: usize, size: usize) -> Result<()> {
        check_range(self, at, size)?;
        for &b in &self.data[at..at + size] {
            self.w.put(u64::from(b), 8);
        }
        Ok(())
    }

    fn len(&self) -> usize {
        self.data.len()
    }
}

/// Checks shared by both directions: returns (elements, element size, unpacked size), or
/// `None` when the parameters say there is nothing to do.
fn header(cd: &[u32]) -> Result<Option<(usize, usize, usize)>> {
    ensure!(
        cd.len() >= 5,
        InvalidParameters,
        ID,
        "expected at least 5 client data values, found {}",
        cd.len()
    );
    ensure!(
        cd[0] as usize == cd.len(),
        InvalidParameters,
        ID,
        "client data says {} values, found {}",
        cd[0],
        cd.len()
    );
    if cd[1] != 0 {
        return Ok(None);
    }
    let nelmts = cd[2] as usize;
    let size = cd[4] as usize;
    ensure!(size > 0, InvalidParameters, ID, "datatype size 0");
    match nelmts.checked_mul(size) {
        Some(total) => Ok(Some((nelmts, size, total))),
        None => bail!(InvalidParameters, ID, "chunk size overflows"),
    }
}

/// Unpack (reading).
pub(super) fn decode(cd: &[u32], input: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<Step> {
    let Some((nelmts, size, total)) = header(cd)? else {
        return Ok(Step::Unchanged);
    };
    ensure!(
        total <= limit,
        LimitExceeded,
        ID,
        "{nelmts} elements of {size} bytes exceed the chunk size {limit}"
    );
    out.clear();
    out.resize(total, 0);
    let mut v = Unpack {
        out: &mut out[..],
        r: BitReader::new(input),
    };
    walk(&Parms { v: cd }, &mut v, nelmts, size)?;
    Ok(Step::Replaced)
}

/// Pack (writing).
pub(super) fn encode(cd: &[u32], input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
    let Some((nelmts, size, total)) = header(cd)? else {
        return Ok(Step::Unchanged);
    };
    ensure!(
        input.len() == total,
        InvalidParameters,
        ID,
        "chunk has {} bytes, parameters say {nelmts} elements of {size} bytes",
        input.len()
    );
    let mut v = Pack {
        data: input,
        w: BitWriter::reuse(std::mem::take(out), total + 1),
    };
    walk(&Parms { v: cd }, &mut v, nelmts, size)?;
    *out = v.w.finish();
    Ok(Step::Replaced)
}

/// The nbit codec; `set_local` stores the parameters the datatype and chunk shape give.
#[derive(Clone, Copy, Debug, Default)]
pub struct Nbit;

impl FilterCodec for Nbit {
    fn id(&self) -> FilterId {
        ID
    }
    fn name(&self) -> &str {
        "nbit"
    }
    fn set_local(&self, filter: &Filter, local: &LocalInfo<'_>) -> Result<Filter> {
        let mut f = filter.clone();
        f.client_data =
            super::local::nbit_local(local.datatype, super::local::npoints(ID, local.chunk_dims)?)?;
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
