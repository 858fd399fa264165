//! Bitshuffle (filter 32008, the bitshuffle plugin): the elements of each block are
//! transposed bit by bit (bit `k` of byte `j` of every element, for each `j` and `k`), and
//! with compression each block is then compressed on its own (LZ4 or Zstandard).
//!
//! Client data (after `set_local`): `[0]` format major, `[1]` minor version, `[2]` element
//! size, `[3]` block size in elements (0: the default, about 8 kB, a multiple of 8), `[4]`
//! compression (0 none, 2 LZ4, 3 Zstandard), `[5]` Zstandard level. Compressed chunks start
//! with the uncompressed size (u64, big-endian) and the block size in bytes (u32,
//! big-endian); each block is its compressed size (u32, big-endian) and its data. A last
//! partial block is cut to a multiple of 8 elements; the remaining (fewer than 8) elements
//! are stored as they are at the end.

use h5_format::message::filter_pipeline::{BITSHUFFLE_LZ4, BITSHUFFLE_ZSTD};

use super::{bail, ensure, DecodeContext, Filter, FilterCodec, FilterId, LocalInfo, Result, Step};

const ID: FilterId = FilterId::BITSHUFFLE;

/// `BSHUF_VERSION_MAJOR` and `BSHUF_VERSION_MINOR` of the plugin hdf5plugin ships.
const VERSION: [u32; 2] = [0, 4];
/// `BSHUF_TARGET_BLOCK_SIZE_B`.
const TARGET_BLOCK_BYTES: usize = 8192;
/// `BSHUF_MIN_RECOMMEND_BLOCK`.
const MIN_BLOCK: usize = 128;
/// `BSHUF_BLOCKED_MULT`.
const BLOCKED_MULT: usize = 8;

/// `bshuf_default_block_size`.
fn default_block(elem: usize) -> usize {
    let b = TARGET_BLOCK_BYTES / elem.max(1);
    (b / BLOCKED_MULT * BLOCKED_MULT).max(MIN_BLOCK)
}

/// Transpose the 8×8 bit matrix whose row `m` is byte `m` of `x` (little-endian).
fn transpose8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x = x ^ t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x = x ^ t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^ t ^ (t << 28)
}

/// Bit-shuffle `src` (`n` elements of `elem` bytes, `n` a multiple of 8) into `dst`: bit
/// `k` of byte `j` of element `i` goes to bit `(j * 8 + k) * n + i` (least significant
/// first in each byte). Groups of 8 elements are read in order; each byte position of the
/// group is an 8×8 bit transpose whose rows go to 8 output rows.
pub(super) fn shuffle_bits(src: &[u8], dst: &mut [u8], elem: usize) {
    let n = src.len() / elem.max(1);
    let row = n / 8;
    if row == 0 {
        return;
    }
    let mut rows: Vec<&mut [u8]> = dst[..n * elem].chunks_exact_mut(row).collect();
    for (g, group) in src.chunks_exact(8 * elem).enumerate() {
        for j in 0..elem {
            let mut b = [0u8; 8];
            for (m, v) in b.iter_mut().enumerate() {
                *v = group[m * elem + j];
            }
            let x = transpose8(u64::from_le_bytes(b)).to_le_bytes();
            for (k, v) in x.into_iter().enumerate() {
                rows[j * 8 + k][g] = v;
            }
        }
    }
}

/// The inverse of [`shuffle_bits`].
pub(super) fn unshuffle_bits(src: &[u8], dst: &mut [u8], elem: usize) {
    let n = src.len() / elem.max(1);
    let row = n / 8;
    if row == 0 {
        return;
    }
    let rows: Vec<&[u8]> = src[..n * elem].chunks_exact(row).collect();
    for (g, group) in dst.chunks_exact_mut(8 * elem).enumerate() {
        for j in 0..elem {
            let mut b = [0u8; 8];
            for (k, v) in b.iter_mut().enumerate() {
                *v = rows[j * 8 + k][g];
            }
            let x = transpose8(u64::from_le_bytes(b)).to_le_bytes();
            for (m, v) in x.into_iter().enumerate() {
                group[m * elem + j] = v;
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Inner {
    None,
    Lz4,
    Zstd,
}

struct Params {
    elem: usize,
    block: usize,
    inner: Inner,
}

fn params(cd: &[u32]) -> Result<Params> {
    ensure!(
        cd.len() >= 3,
        InvalidParameters,
        ID,
        "expected at least 3 client data values, found {}",
        cd.len()
    );
    let elem = cd[2] as usize;
    ensure!(elem > 0, InvalidParameters, ID, "element size 0");
    let block = match cd.get(3) {
        Some(&b) if b > 0 => b as usize,
        _ => default_block(elem),
    };
    ensure!(
        block % BLOCKED_MULT == 0,
        InvalidParameters,
        ID,
        "block size {block} is not a multiple of {BLOCKED_MULT}"
    );
    let inner = match cd.get(4) {
        None | Some(0) => Inner::None,
        Some(&BITSHUFFLE_LZ4) => Inner::Lz4,
        Some(&BITSHUFFLE_ZSTD) => Inner::Zstd,
        Some(c) => bail!(InvalidParameters, ID, "unknown bitshuffle compression {c}"),
    };
    Ok(Params { elem, block, inner })
}

/// The blocks of a chunk of `n` elements: full blocks, then the last one cut to a multiple
/// of 8 elements (each as a range of elements); the rest stays as it is.
fn blocks(n: usize, block: usize) -> impl Iterator<Item = (usize, usize)> {
    let full = n / block;
    let last = n % block / BLOCKED_MULT * BLOCKED_MULT;
    (0..full)
        .map(move |b| (b * block, block))
        .chain((last > 0).then_some((full * block, last)))
}

fn decode(cd: &[u32], input: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<()> {
    let p = params(cd)?;
    let (total, body, block) = if p.inner == Inner::None {
        (input.len(), input, p.block)
    } else {
        ensure!(
            input.len() >= 12,
            Corrupt,
            ID,
            "bitshuffle header is truncated"
        );
        let mut h = [0u8; 8];
        h.copy_from_slice(&input[..8]);
        let total = u64::from_be_bytes(h);
        ensure!(
            total <= limit as u64,
            LimitExceeded,
            ID,
            "bitshuffle chunk declares {total} bytes, more than {limit}"
        );
        let bytes = u32::from_be_bytes([input[8], input[9], input[10], input[11]]) as usize;
        let block = bytes / p.elem;
        ensure!(
            block > 0 && block % BLOCKED_MULT == 0,
            Corrupt,
            ID,
            "bitshuffle block of {bytes} bytes"
        );
        (total as usize, &input[12..], block)
    };
    ensure!(
        total <= limit,
        LimitExceeded,
        ID,
        "decompressed data exceeds {limit} bytes"
    );
    ensure!(
        total % p.elem == 0,
        Corrupt,
        ID,
        "{total} bytes are not a whole number of {}-byte elements",
        p.elem
    );
    let n = total / p.elem;
    out.clear();
    out.resize(total, 0);
    let mut tmp = Vec::new();
    let mut pos = 0usize;
    let mut end = 0usize;
    for (first, count) in blocks(n, block) {
        let bytes = count * p.elem;
        let dst = &mut out[first * p.elem..first * p.elem + bytes];
        match p.inner {
            Inner::None => {
                unshuffle_bits(&body[pos..pos + bytes], dst, p.elem);
                pos += bytes;
            }
            Inner::Lz4 | Inner::Zstd => {
                let Some(h) = body.get(pos..pos + 4) else {
                    bail!(Corrupt, ID, "block header at {pos} is truncated");
                };
                let stored = u32::from_be_bytes([h[0], h[1], h[2], h[3]]) as usize;
                pos += 4;
                let Some(src) = body.get(pos..pos.saturating_add(stored)) else {
                    bail!(Corrupt, ID, "block at {pos} passes the end of the data");
                };
                tmp.clear();
                tmp.resize(bytes, 0);
                if p.inner == Inner::Lz4 {
                    super::lz4::decompress_block(ID, src, &mut tmp)?;
                } else {
                    let mut z = Vec::new();
                    super::zstd::decompress(ID, src, &mut z, bytes)?;
                    ensure!(
                        z.len() == bytes,
                        Corrupt,
                        ID,
                        "zstd block decodes to {} bytes, expected {bytes}",
                        z.len()
                    );
                    tmp = z;
                }
                unshuffle_bits(&tmp, dst, p.elem);
                pos += stored;
            }
        }
        end = first * p.elem + bytes;
    }
    let rest = total - end;
    let Some(src) = body.get(pos..pos + rest) else {
        bail!(Corrupt, ID, "the {rest} trailing bytes are missing");
    };
    out[end..].copy_from_slice(src);
    pos += rest;
    ensure!(
        p.inner != Inner::None || pos == body.len(),
        Corrupt,
        ID,
        "{} bytes after the data",
        body.len() - pos
    );
    Ok(())
}

fn encode(cd: &[u32], input: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let p = params(cd)?;
    ensure!(
        input.len() % p.elem == 0,
        EncodeFailed,
        ID,
        "{} bytes are not a whole number of {}-byte elements",
        input.len(),
        p.elem
    );
    let n = input.len() / p.elem;
    out.clear();
    if p.inner != Inner::None {
        ensure!(
            p.block * p.elem <= u32::MAX as usize,
            InvalidParameters,
            ID,
            "block of {} bytes",
            p.block * p.elem
        );
        out.extend_from_slice(&(input.len() as u64).to_be_bytes());
        out.extend_from_slice(&((p.block * p.elem) as u32).to_be_bytes());
    }
    let mut tmp = Vec::new();
    let mut end = 0;
    for (first, count) in blocks(n, p.block) {
        let bytes = count * p.elem;
        let src = &input[first * p.elem..first * p.elem + bytes];
        tmp.clear();
        tmp.resize(bytes, 0);
        shuffle_bits(src, &mut tmp, p.elem);
        match p.inner {
            Inner::None => out.extend_from_slice(&tmp),
            Inner::Lz4 | Inner::Zstd => {
                let c = if p.inner == Inner::Lz4 {
                    super::lz4::compress_block(&tmp)
                } else {
                    super::zstd::compress(&tmp)
                };
                out.extend_from_slice(&(c.len() as u32).to_be_bytes());
                out.extend_from_slice(&c);
            }
        }
        end = first * p.elem + bytes;
    }
    out.extend_from_slice(&input[end..]);
    Ok(())
}

/// The Bitshuffle codec; `set_local` puts the format version and the element size in
/// front of the client data given.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bitshuffle;

impl FilterCodec for Bitshuffle {
    fn id(&self) -> FilterId {
        ID
    }
    fn name(&self) -> &str {
        "bitshuffle"
    }
    fn set_local(&self, filter: &Filter, local: &LocalInfo<'_>) -> Result<Filter> {
        let size = local.datatype.size();
        ensure!(size > 0, InvalidParameters, ID, "datatype size 0");
        let mut cd = vec![
            VERSION[0],
            VERSION[1],
            super::local::to_u32(size, ID, "datatype size")?,
        ];
        cd.extend(filter.client_data.iter().take(8));
        let mut f = filter.clone();
        f.client_data = cd;
        params(&f.client_data)?;
        Ok(f)
    }
    fn decode(
        &self,
        f: &Filter,
        input: &[u8],
        out: &mut Vec<u8>,
        ctx: &DecodeContext,
    ) -> Result<Step> {
        decode(&f.client_data, input, out, ctx.limit)?;
        Ok(Step::Replaced)
    }
    fn encode(&self, f: &Filter, input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
        encode(&f.client_data, input, out)?;
        Ok(Step::Replaced)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_transpose_matches_its_definition() {
        for elem in [1usize, 2, 3, 4, 8] {
            let n = 24;
            let src: Vec<u8> = (0..n * elem).map(|i| (i * 37 + 11) as u8).collect();
            let mut dst = vec![0u8; src.len()];
            shuffle_bits(&src, &mut dst, elem);
            for i in 0..n {
                for j in 0..elem {
                    for k in 0..8 {
                        let bit = (src[i * elem + j] >> k) & 1;
                        let at = (j * 8 + k) * n + i;
                        assert_eq!((dst[at / 8] >> (at % 8)) & 1, bit, "{elem} {i} {j} {k}");
                    }
                }
            }
            let mut back = vec![0u8; src.len()];
            unshuffle_bits(&dst, &mut back, elem);
            assert_eq!(back, src);
        }
    }
}
