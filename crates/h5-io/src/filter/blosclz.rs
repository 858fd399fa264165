//! BloscLZ, Blosc's own LZ77 codec (a FastLZ variant), on its own: no crate implements it.
//!
//! Stream: the first byte's low 5 bits and every later control byte `c < 32` start a
//! literal run of `c + 1` bytes. Otherwise `c >> 5` is a match length code (7: extension
//! bytes follow, each added, until one is not 255), then a distance byte; the distance is
//! `(c & 31) << 8 | byte` plus 1, or, when that field is all ones, 8192 plus a big-endian
//! 16-bit value that follows. A match is only copied when a control byte follows it, so a
//! stream always ends with literals.

use super::{bail, ensure, FilterId, Result};

/// `MAX_DISTANCE`: the farthest match the short distance form reaches.
const MAX_DISTANCE: usize = 8191;
/// The farthest match the 16-bit form reaches.
const MAX_FAR_DISTANCE: usize = 65535 + MAX_DISTANCE + 1;
/// The most literals one control byte announces.
const MAX_COPY: usize = 32;

/// Decompress `input` into `out` (exactly `out.len()` bytes expected, never more).
/// Returns the number of bytes written.
pub(super) fn decompress(id: FilterId, input: &[u8], out: &mut [u8]) -> Result<usize> {
    if input.is_empty() {
        return Ok(0);
    }
    let end = input.len();
    let mut ip = 1;
    let mut op = 0usize;
    let mut ctrl = usize::from(input[0] & 31);
    loop {
        if ctrl >= 32 {
            let mut len = (ctrl >> 5) - 1;
            let mut ofs = (ctrl & 31) << 8;
            if len == 6 {
                loop {
                    ensure!(ip + 1 < end, Corrupt, id, "blosclz match passes the end");
                    let code = usize::from(input[ip]);
                    ip += 1;
                    len += code;
                    if code != 255 {
                        break;
                    }
                }
            } else {
                ensure!(ip + 1 < end, Corrupt, id, "blosclz match passes the end");
            }
            let code = usize::from(input[ip]);
            ip += 1;
            len += 3;
            let mut dist = ofs + code + 1;
            if code == 255 && ofs == 31 << 8 {
                ensure!(ip + 1 < end, Corrupt, id, "blosclz match passes the end");
                ofs = usize::from(input[ip]) << 8 | usize::from(input[ip + 1]);
                ip += 2;
                dist = ofs + MAX_DISTANCE + 1;
            }
            ensure!(
                op + len <= out.len(),
                LimitExceeded,
                id,
                "blosclz output exceeds {} bytes",
                out.len()
            );
            ensure!(dist <= op, Corrupt, id, "blosclz match before the start");
            if ip >= end {
                break;
            }
            ctrl = usize::from(input[ip]);
            ip += 1;
            let from = op - dist;
            if dist >= len {
                out.copy_within(from..from + len, op);
            } else {
                for i in 0..len {
                    out[op + i] = out[from + i];
                }
            }
            op += len;
        } else {
            let n = ctrl + 1;
            ensure!(
                op + n <= out.len(),
                LimitExceeded,
                id,
                "blosclz output exceeds {} bytes",
                out.len()
            );
            let Some(lit) = input.get(ip..ip + n) else {
                bail!(Corrupt, id, "blosclz literal run passes the end");
            };
            out[op..op + n].copy_from_slice(lit);
            op += n;
            ip += n;
            if ip >= end {
                break;
            }
            ctrl = usize::from(input[ip]);
            ip += 1;
        }
    }
    Ok(op)
}

fn hash(v: u32) -> usize {
    (v.wrapping_mul(2_654_435_761) >> 18) as usize
}

fn flush_literals(out: &mut Vec<u8>, lit: &[u8]) {
    for run in lit.chunks(MAX_COPY) {
        out.push((run.len() - 1) as u8);
        out.extend_from_slice(run);
    }
}

/// Compress `input` greedily (hash of 4 bytes, last position only). Any BloscLZ decoder
/// reads the result; it is not the reference encoder's byte stream.
pub(super) fn compress(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() + input.len() / MAX_COPY + 1);
    let n = input.len();
    if n == 0 {
        return out;
    }
    let mut table = vec![usize::MAX; 1 << 14];
    let mut lit_start = 0;
    let mut i = 0;
    // The first byte is always a literal, and the last 12 bytes too (a stream ends with
    // literals, and a match needs bytes after it).
    let stop = n.saturating_sub(12);
    while i < stop {
        let v = u32::from_le_bytes([input[i], input[i + 1], input[i + 2], input[i + 3]]);
        let h = hash(v);
        let cand = table[h];
        table[h] = i;
        if i == 0
            || cand == usize::MAX
            || i - cand > MAX_FAR_DISTANCE
            || input[cand..cand + 4] != input[i..i + 4]
        {
            i += 1;
            continue;
        }
        let dist = i - cand;
        let mut len = 4;
        while i + len < stop && input[cand + len] == input[i + len] {
            len += 1;
        }
        // The far form needs at least 3 + 2 bytes of header; skip short far matches.
        if dist > MAX_DISTANCE && len < 8 {
            i += 1;
            continue;
        }
        flush_literals(&mut out, &input[lit_start..i]);
        let d = dist - 1;
        let (hi, code, far) = if d < MAX_DISTANCE {
            (d >> 8, d & 255, None)
        } else {
            (31, 255, Some(d - MAX_DISTANCE))
        };
        let l = len - 3;
        if l < 6 {
            out.push((((l + 1) << 5) | hi) as u8);
        } else {
            out.push(((7 << 5) | hi) as u8);
            let mut rest = l - 6;
            while rest >= 255 {
                out.push(255);
                rest -= 255;
            }
            out.push(rest as u8);
        }
        out.push(code as u8);
        if let Some(f) = far {
            out.extend_from_slice(&(f as u16).to_be_bytes());
        }
        i += len;
        lit_start = i;
    }
    flush_literals(&mut out, &input[lit_start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_literals() {
        let id = FilterId::BLOSC;
        // Two literals, then a run: "ab" + match length 5 at distance 2 ("ababa"), then "z".
        let s = [1, b'a', b'b', (3 << 5), 1, 0, b'z'];
        let mut out = [0u8; 8];
        assert_eq!(decompress(id, &s, &mut out).unwrap(), 8);
        assert_eq!(&out, b"abababaz");
        let mut data = Vec::new();
        for i in 0..20000u32 {
            data.extend_from_slice(&(i / 7).to_le_bytes());
        }
        data.extend((0..9000u32).map(|i| (i * 7 % 251) as u8));
        data.extend_from_within(100..5000);
        let c = compress(&data);
        assert!(c.len() < data.len() / 2, "{}", c.len());
        let mut back = vec![0u8; data.len()];
        assert_eq!(decompress(id, &c, &mut back).unwrap(), data.len());
        assert_eq!(back, data);
        let mut small = vec![0u8; data.len() - 1];
        assert!(decompress(id, &c, &mut small).is_err());
    }
}
