//! The LZ4 block decoder (the block format of the LZ4 project's `lz4_Block_format.md`): a
//! sequence is a token (literal length in the high four bits, match length minus 4 in the
//! low four, 15 meaning that bytes follow, each added, until one below 255), the literals,
//! a 16-bit little-endian offset back into the output and the match; the last sequence has
//! literals only.
//!
//! Written here rather than taken from `lz4_flex` (which still compresses) for the copies of
//! a match that overlaps its own output: `lz4_flex` copies those a byte at a time, each byte
//! waiting for the store before it, and the byte planes of shuffled numbers (Blosc, and the
//! bit planes of Bitshuffle) are mostly such runs. Here a run of one byte is a fill, a
//! shorter period is copied in doubling pieces, and everything else in fixed 16- and 18-byte
//! copies where the buffers have room. Every index is checked: a malformed block is an
//! error, never a read or write out of bounds.

/// Why a block does not decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockError {
    /// The input ends inside a sequence (or is empty).
    Truncated,
    /// A match refers to before the start of the output, or has offset 0.
    Offset,
    /// The decoded data does not fit in the output.
    OutputTooSmall,
}

impl std::fmt::Display for BlockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BlockError::Truncated => "the block ends inside a sequence",
            BlockError::Offset => "a match offset points before the start of the output",
            BlockError::OutputTooSmall => "the block decodes to more than its output holds",
        })
    }
}

const MIN_MATCH: usize = 4;

/// A length's extension bytes at `*ip`: each byte is added, up to the first below 255.
#[inline]
fn extension(input: &[u8], ip: &mut usize) -> Result<usize, BlockError> {
    let mut n = 0usize;
    loop {
        let &b = input.get(*ip).ok_or(BlockError::Truncated)?;
        *ip += 1;
        // Saturating: a length past the address space is no block (the bounds checks
        // that follow refuse it) rather than an overflow on a 32-bit target.
        n = n.saturating_add(usize::from(b));
        if b != 255 {
            return Ok(n);
        }
    }
}

/// Copy the match of `len` bytes at `off` back from `op` (LZ4's forward semantics: a match
/// overlapping its own output repeats the last `off` bytes). The caller has checked
/// `0 < off <= op` and `op + len <= out.len()`.
#[inline]
fn copy_match(out: &mut [u8], op: usize, off: usize, len: usize) {
    let start = op - off;
    let end = op + len;
    if off >= 16 {
        // Each 16-byte piece lies wholly before the place it goes to.
        let (mut s, mut d) = (start, op);
        if end + 16 <= out.len() {
            // Whole pieces; the last may write past the match, into output not yet
            // produced (the next sequence overwrites it).
            while d < end {
                out.copy_within(s..s + 16, d);
                s += 16;
                d += 16;
            }
        } else {
            while end - d >= 16 {
                out.copy_within(s..s + 16, d);
                s += 16;
                d += 16;
            }
            out.copy_within(s..s + (end - d), d);
        }
    } else if off == 1 {
        let b = out[start];
        out[op..end].fill(b);
    } else {
        // The period `off` repeated: each copy doubles the stretch already written, whose
        // length stays a multiple of the period.
        let mut d = op;
        while d < end {
            let n = (d - start).min(end - d);
            out.copy_within(start..start + n, d);
            d += n;
        }
    }
}

/// Decode the LZ4 block `input` into the front of `out`; returns the number of bytes
/// written. Matches may refer only to what this block wrote.
pub(crate) fn decompress_into(input: &[u8], out: &mut [u8]) -> Result<usize, BlockError> {
    if input.is_empty() {
        return Err(BlockError::Truncated);
    }
    let (n_in, n_out) = (input.len(), out.len());
    let (mut ip, mut op) = (0usize, 0usize);
    loop {
        // The fast path: a token whose lengths need no extension bytes, with room for a
        // 16-byte literal copy, the offset and the next token in the input (19 bytes from
        // the token: at most 14 literals) and for 16 + 18 bytes of output; the indices
        // into the 19 bytes are known to fit.
        if ip + 19 <= n_in && op + 34 <= n_out {
            let w: &[u8; 19] = input[ip..ip + 19].try_into().expect("19 bytes");
            let token = w[0];
            let lit = usize::from(token >> 4);
            let m = usize::from(token & 15);
            if lit < 15 && m < 15 {
                out[op..op + 16].copy_from_slice(&w[1..17]);
                let off = usize::from(u16::from_le_bytes([w[1 + lit], w[2 + lit]]));
                ip += 3 + lit;
                op += lit;
                if off == 0 || off > op {
                    return Err(BlockError::Offset);
                }
                let len = m + MIN_MATCH;
                if off >= len {
                    // The 18 bytes are read before any is written (a memmove), and the
                    // first `len` of them lie before `op`.
                    out.copy_within(op - off..op - off + 18, op);
                } else {
                    copy_match(out, op, off, len);
                }
                op += len;
                continue;
            }
        }
        // In bounds: the loop continues only while input remains.
        let token = input[ip];
        ip += 1;
        let mut lit = usize::from(token >> 4);
        let m = usize::from(token & 15);
        if lit == 15 {
            lit = lit.saturating_add(extension(input, &mut ip)?);
        }
        if lit > 0 {
            let src = input
                .get(ip..ip.saturating_add(lit))
                .ok_or(BlockError::Truncated)?;
            if lit > n_out - op {
                return Err(BlockError::OutputTooSmall);
            }
            if lit <= 32 && ip + 32 <= n_in && op + 32 <= n_out {
                // A fixed 32-byte copy (past the literals: overwritten later) rather than
                // a call of `memcpy` for a few bytes.
                let w: &[u8; 32] = input[ip..ip + 32].try_into().expect("32 bytes");
                out[op..op + 32].copy_from_slice(w);
            } else {
                out[op..op + lit].copy_from_slice(src);
            }
            ip += lit;
            op += lit;
        }
        if ip >= n_in {
            return Ok(op);
        }
        let o = input.get(ip..ip + 2).ok_or(BlockError::Truncated)?;
        let off = usize::from(u16::from_le_bytes([o[0], o[1]]));
        ip += 2;
        let mut len = m + MIN_MATCH;
        if m == 15 {
            len = len.saturating_add(extension(input, &mut ip)?);
        }
        if off == 0 || off > op {
            return Err(BlockError::Offset);
        }
        if len > n_out - op {
            return Err(BlockError::OutputTooSmall);
        }
        if off >= len && len <= 18 && op + 18 <= n_out {
            out.copy_within(op - off..op - off + 18, op);
        } else {
            copy_match(out, op, off, len);
        }
        op += len;
        if ip >= n_in {
            // A block ends with literals, not with a match.
            return Err(BlockError::Truncated);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// Inputs with runs of every period from 1 to 40, of lengths around the fast path's
    /// bounds, mixed with random bytes and shuffled numbers.
    fn samples() -> Vec<Vec<u8>> {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut out = vec![Vec::new(), vec![7], vec![0; 1000], (0..=255).collect()];
        for size in [1usize, 5, 17, 33, 64, 100, 1000, 4096, 70_000] {
            for _ in 0..6 {
                let mut v = Vec::with_capacity(size);
                while v.len() < size {
                    match rng.below(4) {
                        0 => {
                            let period = 1 + rng.below(40);
                            let pat: Vec<u8> = (0..period).map(|_| rng.next() as u8).collect();
                            let n = rng.below(300);
                            v.extend((0..n).map(|i| pat[i % period]));
                        }
                        1 => {
                            let n = rng.below(40);
                            v.extend((0..n).map(|_| rng.next() as u8));
                        }
                        2 if v.len() > 2 => {
                            // Repeat an earlier stretch (an offset of up to 64 KiB).
                            let from = rng.below(v.len());
                            let n = rng.below(200).min(v.len() - from);
                            v.extend_from_within(from..from + n);
                        }
                        _ => {
                            let x = (v.len() as f64 / 7.0).sin() * 100.0;
                            v.extend_from_slice(&x.to_le_bytes()[..1 + rng.below(8)]);
                        }
                    }
                }
                v.truncate(size);
                out.push(v);
            }
        }
        out
    }

    #[test]
    fn decodes_what_lz4_flex_encodes() {
        for data in samples() {
            let enc = lz4_flex::block::compress(&data);
            let mut out = vec![0xA5u8; data.len()];
            assert_eq!(decompress_into(&enc, &mut out), Ok(data.len()));
            assert_eq!(out, data);
            // Room to spare: the same bytes, the same count.
            let mut big = vec![0u8; data.len() + 40];
            assert_eq!(decompress_into(&enc, &mut big), Ok(data.len()));
            assert_eq!(&big[..data.len()], &data[..]);
            if !data.is_empty() {
                let mut short = vec![0u8; data.len() - 1];
                assert_eq!(
                    decompress_into(&enc, &mut short),
                    Err(BlockError::OutputTooSmall)
                );
            }
        }
    }

    #[test]
    fn every_period_and_length_of_an_overlapping_match() {
        // Hand-made blocks: literals `pat` (the period), one match of `len` at offset
        // `period`, 5 final literals.
        for period in 1..=20usize {
            for len in [4usize, 5, 15, 18, 19, 20, 33, 100, 300] {
                let pat: Vec<u8> = (0..period as u8)
                    .map(|i| i.wrapping_mul(37) ^ 0x5A)
                    .collect();
                let mut block = Vec::new();
                let lit_nib = period.min(15) as u8;
                let m = len - MIN_MATCH;
                block.push(lit_nib << 4 | m.min(15) as u8);
                if period >= 15 {
                    block.push((period - 15) as u8);
                }
                block.extend_from_slice(&pat);
                block.extend_from_slice(&(period as u16).to_le_bytes());
                if m >= 15 {
                    let mut rest = m - 15;
                    while rest >= 255 {
                        block.push(255);
                        rest -= 255;
                    }
                    block.push(rest as u8);
                }
                block.push(0x50);
                block.extend_from_slice(b"tail!");
                let mut want: Vec<u8> = (0..period + len).map(|i| pat[i % period]).collect();
                want.extend_from_slice(b"tail!");
                for extra in [0usize, 1, 16, 40] {
                    let mut out = vec![0u8; want.len() + extra];
                    assert_eq!(decompress_into(&block, &mut out), Ok(want.len()));
                    assert_eq!(&out[..want.len()], &want[..], "{period} {len} {extra}");
                }
            }
        }
    }

    #[test]
    fn malformed_blocks_are_errors_and_agree_with_lz4_flex() {
        assert_eq!(
            decompress_into(&[], &mut [0u8; 4]),
            Err(BlockError::Truncated)
        );
        // Offset 0, an offset before the output's start, a block ending in a match.
        assert_eq!(
            decompress_into(&[0x10, 1, 0, 0, 0x00], &mut [0u8; 16]),
            Err(BlockError::Offset)
        );
        assert_eq!(
            decompress_into(&[0x10, 1, 2, 0, 0x00], &mut [0u8; 16]),
            Err(BlockError::Offset)
        );
        assert_eq!(
            decompress_into(&[0x10, 1, 1, 0], &mut [0u8; 16]),
            Err(BlockError::Truncated)
        );
        // Damaged copies of real blocks: never a panic, and whatever decodes is what
        // lz4_flex decodes.
        let mut rng = Rng(42);
        for data in samples().into_iter().filter(|d| d.len() > 16) {
            let enc = lz4_flex::block::compress(&data);
            for _ in 0..40 {
                let mut bad = enc.clone();
                for _ in 0..1 + rng.below(3) {
                    let at = rng.below(bad.len());
                    bad[at] = rng.next() as u8;
                }
                if rng.below(4) == 0 {
                    bad.truncate(rng.below(bad.len()));
                }
                let mut ours = vec![0u8; data.len()];
                let mut theirs = vec![0u8; data.len()];
                if let Ok(n) = decompress_into(&bad, &mut ours) {
                    let m = lz4_flex::block::decompress_into(&bad, &mut theirs);
                    assert_eq!(m.ok(), Some(n));
                    assert_eq!(ours[..n], theirs[..n]);
                }
            }
        }
    }
}
