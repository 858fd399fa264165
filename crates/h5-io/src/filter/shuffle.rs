//! Shuffle (`H5Z_FILTER_SHUFFLE`): byte `j` of every element goes to plane `j`; client data 0
//! is the element size. Bytes past the last whole element stay at the end, unshuffled.

use super::{bail, FilterId, Result, Step};

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
    match size {
        2 => shuffle_fixed::<2>(&src[..body], &mut dst[..body]),
        4 => shuffle_fixed::<4>(&src[..body], &mut dst[..body]),
        8 => shuffle_fixed::<8>(&src[..body], &mut dst[..body]),
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
    match size {
        2 => unshuffle_fixed::<2>(&src[..body], &mut dst[..body]),
        4 => unshuffle_fixed::<4>(&src[..body], &mut dst[..body]),
        8 => unshuffle_fixed::<8>(&src[..body], &mut dst[..body]),
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
