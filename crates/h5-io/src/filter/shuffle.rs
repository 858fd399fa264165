//! Shuffle (`H5Z_FILTER_SHUFFLE`): byte `j` of every element goes to plane `j`; client data 0
//! is the element size. Bytes past the last whole element stay at the end, unshuffled.

use super::{bail, ensure, DecodeContext, Filter, FilterCodec, FilterId, LocalInfo, Result, Step};

const ID: FilterId = FilterId::SHUFFLE;

fn element_size(cd: &[u32]) -> Result<usize> {
    match cd {
        [0] => bail!(InvalidParameters, ID, "element size 0"),
        [size] => Ok(*size as usize),
        _ => bail!(
            InvalidParameters,
            ID,
            "expected 1 client data value, found {}",
            cd.len()
        ),
    }
}

/// Undo the shuffle (reading).
pub(super) fn decode(cd: &[u32], input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
    let size = element_size(cd)?;
    let n = input.len() / size;
    if size == 1 || n <= 1 {
        return Ok(Step::Unchanged);
    }
    out.clear();
    out.resize(input.len(), 0);
    unshuffle(input, out, size);
    Ok(Step::Replaced)
}

/// Undo the shuffle of `input` straight into `out` (reading into the caller's memory);
/// returns the bytes the stage produces, `input.len()` (nothing is written when that is more
/// than `out` holds: the pipeline reports the size).
pub(super) fn decode_into(cd: &[u32], input: &[u8], out: &mut [u8]) -> Result<usize> {
    let size = element_size(cd)?;
    let Some(out) = out.get_mut(..input.len()) else {
        return Ok(input.len());
    };
    if size == 1 || input.len() / size <= 1 {
        out.copy_from_slice(input);
    } else {
        unshuffle(input, out, size);
    }
    Ok(input.len())
}

/// Shuffle (writing).
pub(super) fn encode(cd: &[u32], input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
    let size = element_size(cd)?;
    let n = input.len() / size;
    if size == 1 || n <= 1 {
        return Ok(Step::Unchanged);
    }
    out.clear();
    out.resize(input.len(), 0);
    shuffle(input, out, size);
    Ok(Step::Replaced)
}

/// Shuffle `src` into `dst` (same length) for elements of `size` bytes.
pub(super) fn shuffle(src: &[u8], dst: &mut [u8], size: usize) {
    let n = src.len() / size;
    let body = n * size;
    if n == 0 {
        // No whole element (planes of no bytes).
        dst.copy_from_slice(src);
        return;
    }
    match size {
        2 => shuffle_fixed::<2>(&src[..body], &mut dst[..body]),
        4 => shuffle_fixed::<4>(&src[..body], &mut dst[..body]),
        8 => shuffle8(&src[..body], &mut dst[..body]),
        16 => shuffle_fixed::<16>(&src[..body], &mut dst[..body]),
        _ => {
            for (j, plane) in dst[..body].chunks_exact_mut(n).enumerate() {
                for (d, e) in plane.iter_mut().zip(src[..body].chunks_exact(size)) {
                    *d = e[j];
                }
            }
        }
    }
    dst[body..].copy_from_slice(&src[body..]);
}

/// Undo [`shuffle`].
pub(super) fn unshuffle(src: &[u8], dst: &mut [u8], size: usize) {
    let n = src.len() / size;
    let body = n * size;
    if n == 0 {
        // No whole element (planes of no bytes).
        dst.copy_from_slice(src);
        return;
    }
    match size {
        2 => unshuffle_fixed::<2>(&src[..body], &mut dst[..body]),
        4 => unshuffle_fixed::<4>(&src[..body], &mut dst[..body]),
        8 => unshuffle8(&src[..body], &mut dst[..body]),
        16 => unshuffle_fixed::<16>(&src[..body], &mut dst[..body]),
        _ => {
            for (j, plane) in src[..body].chunks_exact(n).enumerate() {
                for (e, s) in dst[..body].chunks_exact_mut(size).zip(plane) {
                    e[j] = *s;
                }
            }
        }
    }
    dst[body..].copy_from_slice(&src[body..]);
}

/// Shuffle whole elements of a compile-time size: blocks of 16 elements are transposed
/// through a small array so the inner loops have fixed trip counts and vectorize.
fn shuffle_fixed<const S: usize>(src: &[u8], dst: &mut [u8]) {
    let n = src.len() / S;
    const B: usize = 16;
    let blocks = n / B;
    for b in 0..blocks {
        let mut t = [[0u8; B]; S];
        let block = &src[b * B * S..(b + 1) * B * S];
        for (i, e) in block.chunks_exact(S).enumerate() {
            for j in 0..S {
                t[j][i] = e[j];
            }
        }
        for (j, row) in t.iter().enumerate() {
            dst[j * n + b * B..j * n + b * B + B].copy_from_slice(row);
        }
    }
    for i in blocks * B..n {
        for j in 0..S {
            dst[j * n + i] = src[i * S + j];
        }
    }
}

/// Undo [`shuffle_fixed`].
fn unshuffle_fixed<const S: usize>(src: &[u8], dst: &mut [u8]) {
    let n = src.len() / S;
    const B: usize = 16;
    let blocks = n / B;
    for b in 0..blocks {
        let mut t = [[0u8; B]; S];
        for (j, row) in t.iter_mut().enumerate() {
            row.copy_from_slice(&src[j * n + b * B..j * n + b * B + B]);
        }
        let block = &mut dst[b * B * S..(b + 1) * B * S];
        for (i, e) in block.chunks_exact_mut(S).enumerate() {
            for j in 0..S {
                e[j] = t[j][i];
            }
        }
    }
    for i in blocks * B..n {
        for j in 0..S {
            dst[i * S + j] = src[j * n + i];
        }
    }
}

/// Transpose the 8x8 byte matrix whose row `j` is `r[j]` (byte `k` of the row at bits
/// `8k..8k+8`): three rounds of swapping blocks of 4, 2 and 1 bytes.
fn transpose8(r: &mut [u64; 8]) {
    for j in 0..4 {
        let t = ((r[j] >> 32) ^ r[j + 4]) & 0x0000_0000_FFFF_FFFF;
        r[j] ^= t << 32;
        r[j + 4] ^= t;
    }
    for j in [0, 1, 4, 5] {
        let t = ((r[j] >> 16) ^ r[j + 2]) & 0x0000_FFFF_0000_FFFF;
        r[j] ^= t << 16;
        r[j + 2] ^= t;
    }
    for j in [0, 2, 4, 6] {
        let t = ((r[j] >> 8) ^ r[j + 1]) & 0x00FF_00FF_00FF_00FF;
        r[j] ^= t << 8;
        r[j + 1] ^= t;
    }
}

fn word(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}

/// [`shuffle_fixed`] for 8-byte elements, eight elements at a time through a word
/// transpose.
fn shuffle8(src: &[u8], dst: &mut [u8]) {
    let n = src.len() / 8;
    let blocks = n / 8;
    for b in 0..blocks {
        let e = &src[b * 64..b * 64 + 64];
        let mut r = [0u64; 8];
        for (k, w) in r.iter_mut().enumerate() {
            *w = word(&e[k * 8..]);
        }
        transpose8(&mut r);
        for (j, w) in r.iter().enumerate() {
            dst[j * n + b * 8..j * n + b * 8 + 8].copy_from_slice(&w.to_le_bytes());
        }
    }
    for i in blocks * 8..n {
        for j in 0..8 {
            dst[j * n + i] = src[i * 8 + j];
        }
    }
}

/// Undo [`shuffle8`].
fn unshuffle8(src: &[u8], dst: &mut [u8]) {
    let n = src.len() / 8;
    let blocks = n / 8;
    for b in 0..blocks {
        let mut r = [0u64; 8];
        for (j, w) in r.iter_mut().enumerate() {
            *w = word(&src[j * n + b * 8..]);
        }
        transpose8(&mut r);
        let e = &mut dst[b * 64..b * 64 + 64];
        for (k, w) in r.iter().enumerate() {
            e[k * 8..k * 8 + 8].copy_from_slice(&w.to_le_bytes());
        }
    }
    for i in blocks * 8..n {
        for j in 0..8 {
            dst[i * 8 + j] = src[j * n + i];
        }
    }
}

/// The shuffle codec; `set_local` stores the element size.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shuffle;

impl FilterCodec for Shuffle {
    fn id(&self) -> FilterId {
        ID
    }
    fn name(&self) -> &str {
        "shuffle"
    }
    fn set_local(&self, filter: &Filter, local: &LocalInfo<'_>) -> Result<Filter> {
        let size = local.datatype.size();
        ensure!(size > 0, InvalidParameters, ID, "datatype size 0");
        let mut f = filter.clone();
        f.client_data = vec![super::local::to_u32(size, ID, "datatype size")?];
        Ok(f)
    }
    fn decode(
        &self,
        f: &Filter,
        input: &[u8],
        out: &mut Vec<u8>,
        _: &DecodeContext,
    ) -> Result<Step> {
        decode(&f.client_data, input, out)
    }
    fn decode_into(
        &self,
        f: &Filter,
        input: &[u8],
        out: &mut [u8],
        _: &DecodeContext,
    ) -> Result<Option<usize>> {
        decode_into(&f.client_data, input, out).map(Some)
    }
    fn encode(&self, f: &Filter, input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
        encode(&f.client_data, input, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element size, and lengths around the fast paths' block sizes (16 and 32
    /// elements) with tails of whole elements and of stray bytes.
    #[test]
    fn shuffle_and_unshuffle_match_their_definition() {
        for size in 1..=20usize {
            for n in [
                0usize, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 257,
            ] {
                for extra in [0, size / 2] {
                    let len = n * size + extra;
                    let src: Vec<u8> = (0..len).map(|i| (i * 131 + 7) as u8).collect();
                    let mut want = src.clone();
                    for i in 0..n {
                        for j in 0..size {
                            want[j * n + i] = src[i * size + j];
                        }
                    }
                    let mut got = vec![0xAAu8; len];
                    shuffle(&src, &mut got, size);
                    assert_eq!(got, want, "size {size}, {n} elements, {extra} more");
                    let mut back = vec![0x55u8; len];
                    unshuffle(&got, &mut back, size);
                    assert_eq!(back, src, "size {size}, {n} elements, {extra} more");
                }
            }
        }
    }
}
