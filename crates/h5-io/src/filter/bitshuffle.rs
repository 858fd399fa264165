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

use super::scratch::Out;
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

/// Transpose the 8×8 byte matrix whose row `r` is `m[r]` (little-endian: byte `c` is
/// column `c`), in three rounds of block swaps (4×4, 2×2, 1×1).
fn transpose_bytes(m: &mut [u64; 8]) {
    for (b, mask) in [
        (4, 0x0000_0000_FFFF_FFFF_u64),
        (2, 0x0000_FFFF_0000_FFFF),
        (1, 0x00FF_00FF_00FF_00FF),
    ] {
        let shift = 8 * b as u32;
        for i in (0..8).filter(|i| i & b == 0) {
            let t = ((m[i] >> shift) ^ m[i + b]) & mask;
            m[i] ^= t << shift;
            m[i + b] ^= t;
        }
    }
}

fn le64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}

/// Bit-shuffle `src` (`n` elements of `elem` bytes, `n` a multiple of 8) into `dst`: bit
/// `k` of byte `j` of element `i` goes to bit `(j * 8 + k) * n + i` (least significant
/// first in each byte). For each byte position `j`, the `n / 8` groups of 8 elements are
/// 8×8 bit transposes whose rows go to 8 output rows ("planes"); 8 groups at a time, the
/// 8 rows of 8 bytes each are then one 8×8 byte transpose, stored as 8 words.
pub(super) fn shuffle_bits(src: &[u8], dst: &mut [u8], elem: usize) {
    let n = src.len() / elem.max(1);
    let row = n / 8;
    if row == 0 {
        return;
    }
    let wide = row / 8 * 8;
    for j in 0..elem {
        let planes = &mut dst[j * 8 * row..(j + 1) * 8 * row];
        let gather = |g: usize| {
            let mut b = [0u8; 8];
            for (m, v) in b.iter_mut().enumerate() {
                *v = src[(8 * g + m) * elem + j];
            }
            transpose8(u64::from_le_bytes(b))
        };
        for g in (0..wide).step_by(8) {
            let mut m = [0u64; 8];
            for (gg, v) in m.iter_mut().enumerate() {
                *v = gather(g + gg);
            }
            transpose_bytes(&mut m);
            for (k, v) in m.iter().enumerate() {
                planes[k * row + g..k * row + g + 8].copy_from_slice(&v.to_le_bytes());
            }
        }
        for g in wide..row {
            for (k, v) in gather(g).to_le_bytes().into_iter().enumerate() {
                planes[k * row + g] = v;
            }
        }
    }
}

/// [`transpose8`] of 8 words at once, step by step over the 8 (so it vectorizes).
fn transpose8_x8(a: &mut [u64; 8]) {
    for (s, mask) in [
        (7, 0x00AA_00AA_00AA_00AA_u64),
        (14, 0x0000_CCCC_0000_CCCC),
        (28, 0x0000_0000_F0F0_F0F0),
    ] {
        for x in a.iter_mut() {
            let t = (*x ^ (*x >> s)) & mask;
            *x ^= t ^ (t << s);
        }
    }
}

/// [`transpose_bytes`] of 8 matrices at once: `m[r][l]` is row `r` of matrix `l`. Each
/// step works on the 8 matrices lane by lane, so it compiles to vector instructions (two
/// words at a time with SSE2) where one matrix at a time spills its words to the stack.
fn transpose_bytes_x8(m: &mut [[u64; 8]; 8]) {
    /// One round: rows `i` and `i + b` of each pair swap their blocks of `b` bytes.
    #[inline(always)]
    fn round(m: &mut [[u64; 8]; 8], pairs: [usize; 4], b: usize, mask: u64) {
        let shift = 8 * b as u32;
        for i in pairs {
            let (x, y) = (m[i], m[i + b]);
            let mut nx = [0u64; 8];
            let mut ny = [0u64; 8];
            for l in 0..8 {
                let t = ((x[l] >> shift) ^ y[l]) & mask;
                nx[l] = x[l] ^ (t << shift);
                ny[l] = y[l] ^ t;
            }
            m[i] = nx;
            m[i + b] = ny;
        }
    }
    round(m, [0, 1, 2, 3], 4, 0x0000_0000_FFFF_FFFF);
    round(m, [0, 1, 4, 5], 2, 0x0000_FFFF_0000_FFFF);
    round(m, [0, 2, 4, 6], 1, 0x00FF_00FF_00FF_00FF);
}

/// The inverse of [`shuffle_bits`]. 64 elements and 8 byte positions at a time: the 8
/// rows of 8 bytes of each position are one byte transpose and 8 bit transposes, and the
/// 8 positions of each element one more byte transpose, stored as one word; the 8
/// positions' (and then the 8 groups') transposes run side by side as vector lanes.
pub(super) fn unshuffle_bits(src: &[u8], dst: &mut [u8], elem: usize) {
    // 16 bytes of each plane at a time with SSE2 where there is (the x86-64 baseline); the
    // rest (all of it elsewhere) 8 at a time.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    let start = {
        let n = src.len() / elem.max(1);
        sse2::unshuffle_bits(src, &mut dst[..n * elem], elem, n / 8)
    };
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    let start = 0;
    unshuffle_bits_from(src, dst, elem, start);
}

/// [`unshuffle_bits`] of the rows (bytes of each plane) from `start`, a multiple of 8, on.
fn unshuffle_bits_from(src: &[u8], dst: &mut [u8], elem: usize, start: usize) {
    let n = src.len() / elem.max(1);
    let row = n / 8;
    if row == 0 {
        return;
    }
    let wide = row / 8 * 8;
    let dst = &mut dst[..n * elem];
    for g in (start..wide).step_by(8) {
        for j0 in (0..elem).step_by(8) {
            let nj = (elem - j0).min(8);
            // m[k][jj]: bytes g..g + 8 of plane k of byte j0 + jj.
            let mut m = [[0u64; 8]; 8];
            for jj in 0..nj {
                let planes = &src[(j0 + jj) * 8 * row..];
                for (k, mk) in m.iter_mut().enumerate() {
                    mk[jj] = le64(&planes[k * row + g..]);
                }
            }
            transpose_bytes_x8(&mut m);
            // x[gg][jj]: byte `mm` is byte j0 + jj of element 8 * (g + gg) + mm.
            for mk in m.iter_mut() {
                transpose8_x8(mk);
            }
            let mut e = [[0u64; 8]; 8];
            for (gg, mg) in m.iter().enumerate() {
                for (ej, &w) in e.iter_mut().zip(mg) {
                    ej[gg] = w;
                }
            }
            // e[mm][gg]: bytes j0.. of element 8 * (g + gg) + mm.
            transpose_bytes_x8(&mut e);
            for gg in 0..8 {
                for (mm, em) in e.iter().enumerate() {
                    let at = (8 * (g + gg) + mm) * elem + j0;
                    let word = em[gg].to_le_bytes();
                    // A fixed-size copy is one store; a variable one calls memcpy.
                    if nj == 8 {
                        dst[at..at + 8].copy_from_slice(&word);
                    } else {
                        dst[at..at + nj].copy_from_slice(&word[..nj]);
                    }
                }
            }
        }
    }
    for j in 0..elem {
        let planes = &src[j * 8 * row..(j + 1) * 8 * row];
        for g in wide..row {
            let mut b = [0u8; 8];
            for (k, v) in b.iter_mut().enumerate() {
                *v = planes[k * row + g];
            }
            for (m, v) in transpose8(u64::from_le_bytes(b))
                .to_le_bytes()
                .into_iter()
                .enumerate()
            {
                dst[(8 * g + m) * elem + j] = v;
            }
        }
    }
}

/// The bit transpose of [`unshuffle_bits`] in SSE2 through `safe_arch` (safe wrappers of
/// the intrinsics), with the Bitshuffle library's own SSE2 idea: a register holding the 8
/// bit planes' bytes of two byte positions of one row gives with `movemask` (the top bit of
/// each byte) those two bytes of one element, and a byte-wise doubling brings the next bit
/// up. Three rounds of unpacks put the same 16 bytes of a byte position's 8 planes side by
/// side, a fourth pairs two positions; four masks make an element's 8 bytes, one store.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    use safe_arch::{
        add_i8_m128i, load_unaligned_m128i, m128i, move_mask_i8_m128i, unpack_high_i16_m128i,
        unpack_high_i32_m128i, unpack_high_i64_m128i, unpack_high_i8_m128i, unpack_low_i16_m128i,
        unpack_low_i32_m128i, unpack_low_i64_m128i, unpack_low_i8_m128i, zeroed_m128i,
    };

    /// Bytes `r0..r0 + 16` of the 8 planes of one byte position (`planes`, `row` bytes
    /// each), interleaved: element `q` holds the 8 planes' bytes of rows `r0 + 2q` (low
    /// half, plane `k` in byte `k`) and `r0 + 2q + 1` (high half).
    #[inline(always)]
    fn gather(planes: &[u8], row: usize, r0: usize) -> [m128i; 8] {
        let p: [m128i; 8] = std::array::from_fn(|k| {
            let at = k * row + r0;
            load_unaligned_m128i(planes[at..at + 16].try_into().expect("16 bytes"))
        });
        // Planes k, k + 1 byte by byte: rows 0..8 (low), 8..16 (high).
        let lo = |k: usize| unpack_low_i8_m128i(p[k], p[k + 1]);
        let hi = |k: usize| unpack_high_i8_m128i(p[k], p[k + 1]);
        let (l0, l2, l4, l6) = (lo(0), lo(2), lo(4), lo(6));
        let (h0, h2, h4, h6) = (hi(0), hi(2), hi(4), hi(6));
        // Planes 0..4 (x) and 4..8 (y) of rows 4i..4i + 4.
        let x = [
            unpack_low_i16_m128i(l0, l2),
            unpack_high_i16_m128i(l0, l2),
            unpack_low_i16_m128i(h0, h2),
            unpack_high_i16_m128i(h0, h2),
        ];
        let y = [
            unpack_low_i16_m128i(l4, l6),
            unpack_high_i16_m128i(l4, l6),
            unpack_low_i16_m128i(h4, h6),
            unpack_high_i16_m128i(h4, h6),
        ];
        std::array::from_fn(|q| {
            let i = q / 2;
            if q % 2 == 0 {
                unpack_low_i32_m128i(x[i], y[i])
            } else {
                unpack_high_i32_m128i(x[i], y[i])
            }
        })
    }

    /// Unshuffle the rows (bytes of each plane) `0..r`, `r` the largest multiple of 16 up to
    /// `row` (`row` bytes per plane, `8 * row` elements of `elem` bytes); returns `r`.
    pub(super) fn unshuffle_bits(src: &[u8], dst: &mut [u8], elem: usize, row: usize) -> usize {
        let done = row / 16 * 16;
        for r0 in (0..done).step_by(16) {
            // The 128 elements of rows r0..r0 + 16.
            let tile = &mut dst[8 * r0 * elem..8 * (r0 + 16) * elem];
            for j0 in (0..elem).step_by(8) {
                let nj = (elem - j0).min(8);
                let mut v = [[zeroed_m128i(); 8]; 8];
                for (jj, vj) in v.iter_mut().enumerate().take(nj) {
                    let j = j0 + jj;
                    *vj = gather(&src[j * 8 * row..(j + 1) * 8 * row], row, r0);
                }
                for ra in 0..16 {
                    let q = ra / 2;
                    // Byte positions 2p and 2p + 1 of row ra, their 8 planes each.
                    let mut w: [m128i; 4] = std::array::from_fn(|p| {
                        let (a, b) = (v[2 * p][q], v[2 * p + 1][q]);
                        if ra % 2 == 0 {
                            unpack_low_i64_m128i(a, b)
                        } else {
                            unpack_high_i64_m128i(a, b)
                        }
                    });
                    // words[m]: bytes j0..j0 + 8 of element 8 * ra + m.
                    let mut words = [0u64; 8];
                    for m in (0..8).rev() {
                        for (p, x) in w.iter_mut().enumerate() {
                            words[m] |= u64::from(move_mask_i8_m128i(*x) as u16) << (16 * p);
                            *x = add_i8_m128i(*x, *x);
                        }
                    }
                    let elements = &mut tile[8 * ra * elem..8 * (ra + 1) * elem];
                    if elem == 8 {
                        // Whole words, where the compiler knows every length.
                        for (e, word) in elements.chunks_exact_mut(8).zip(words) {
                            e.copy_from_slice(&word.to_le_bytes());
                        }
                    } else {
                        for (e, word) in elements.chunks_exact_mut(elem).zip(words) {
                            e[j0..j0 + nj].copy_from_slice(&word.to_le_bytes()[..nj]);
                        }
                    }
                }
            }
        }
        done
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
    /// The Zstandard level (client data 5).
    zstd_level: i32,
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
    Ok(Params {
        elem,
        block,
        inner,
        zstd_level: super::zstd::level(cd.get(5).copied()),
    })
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

/// Decode a chunk into `out`; returns its decoded size (written only when `out` takes it).
fn decode(cd: &[u32], input: &[u8], out: Out<'_>, limit: usize) -> Result<usize> {
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
            block > 0 && block.is_multiple_of(BLOCKED_MULT),
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
    let Some(out) = out.sized(total) else {
        return Ok(total);
    };
    let tmp_len = if p.inner == Inner::None {
        0
    } else {
        (block * p.elem).min(total)
    };
    super::scratch::with(tmp_len, 0, |tmp, _| {
        decode_blocks(&p, body, block, out, tmp)
    })?;
    Ok(total)
}

/// Decode the blocks of `body` (the chunk after its header) into `out`, each compressed
/// block through `tmp` (room for one block).
fn decode_blocks(
    p: &Params,
    body: &[u8],
    block: usize,
    out: &mut [u8],
    tmp: &mut [u8],
) -> Result<()> {
    let total = out.len();
    let n = total / p.elem;
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
                let tmp = &mut tmp[..bytes];
                if p.inner == Inner::Lz4 {
                    super::lz4::decompress_block(ID, src, tmp)?;
                } else {
                    super::zstd::decompress_exact(ID, src, tmp)?;
                }
                unshuffle_bits(tmp, dst, p.elem);
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
        input.len().is_multiple_of(p.elem),
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
        tmp.resize(bytes, 0);
        let tmp = &mut tmp[..bytes];
        shuffle_bits(src, tmp, p.elem);
        match p.inner {
            Inner::None => out.extend_from_slice(tmp),
            Inner::Lz4 | Inner::Zstd => {
                let c = if p.inner == Inner::Lz4 {
                    super::lz4::compress_block(tmp)
                } else {
                    super::zstd::compress(ID, tmp, p.zstd_level)?
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
        decode(&f.client_data, input, Out::Vec(out), ctx.limit)?;
        Ok(Step::Replaced)
    }
    fn decode_into(
        &self,
        f: &Filter,
        input: &[u8],
        out: &mut [u8],
        ctx: &DecodeContext,
    ) -> Result<Option<usize>> {
        decode(&f.client_data, input, Out::Slice(out), ctx.limit).map(Some)
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
        for (elem, n) in [
            (1usize, 24),
            (2, 24),
            (3, 72),
            (4, 136),
            (8, 24),
            (1, 520),
            (8, 64),
            (11, 200),
            // Rows of 16 bytes and more (the SSE2 path), with and without a tail.
            (1, 8 * 16),
            (8, 8 * 16 * 3),
            (8, 8 * (16 * 3 + 5)),
            (4, 8 * 33),
            (2, 8 * 40),
            (3, 8 * (16 + 9)),
            (16, 8 * 32),
            (11, 8 * 19),
        ] {
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
            // The portable transpose alone (what targets without SSE2 run).
            let mut back = vec![0u8; src.len()];
            unshuffle_bits_from(&dst, &mut back, elem, 0);
            assert_eq!(back, src, "portable, {elem} {n}");
        }
    }
}

/// A workload for measuring (`valgrind --tool=callgrind` on the release test binary,
/// `--ignored bitshuffle_lz4_workload`): 8 MiB of f64 through Bitshuffle with LZ4, encoded
/// and decoded.
#[cfg(test)]
#[test]
#[ignore]
fn bitshuffle_lz4_workload() {
    use super::{ChunkInfo, FillValue, FilterRegistry};
    let n = 1 << 20;
    let data: Vec<u8> = (0..n)
        .flat_map(|i| ((i as f64 / 7.0).sin() * 100.0).to_le_bytes())
        .collect();
    let r = FilterRegistry::shared();
    let dt = h5_types::Datatype::Float(h5_types::predefined::IEEE_F64LE);
    let f = r
        .set_local(
            &Filter::bitshuffle(h5_format::message::filter_pipeline::BitshuffleCompression::Lz4),
            &dt,
            &[n as u64],
            FillValue::Default,
        )
        .unwrap();
    let ctx = ChunkInfo::new(data.len());
    let (enc, mask) = r
        .encode_chunk(std::slice::from_ref(&f), 0, data.clone(), &ctx)
        .unwrap();
    let back = r
        .decode_chunk(std::slice::from_ref(&f), mask, enc, &ctx)
        .unwrap();
    assert_eq!(back, data);
}
