//! LZF (filter 32000, registered by h5py): liblzf's format with no header; the client data
//! (filter version, LZF version, chunk size) is informational only.
//!
//! Format: a control byte `c < 32` starts a literal run of `c + 1` bytes; otherwise
//! `c >> 5` is a match length minus 2 (7: an extra length byte follows) and the low 5 bits
//! with the next byte are the back-reference distance minus 1.

use super::{bail, ensure, DecodeContext, Filter, FilterCodec, FilterId, LocalInfo, Result, Step};

const ID: FilterId = FilterId::LZF;

/// Client data h5py stores: filter version 4 and LZF version 1.5 (`0x105`).
use h5_format::message::filter_pipeline::{LZF_FILTER_VERSION as FILTER_VERSION, LZF_VERSION};

/// Decompress (reading), producing at most `limit` bytes.
pub(super) fn decode(input: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<Step> {
    decompress(input, out, limit)?;
    Ok(Step::Replaced)
}

/// Decompress `input` into `out` (cleared first).
pub(super) fn decompress(input: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<()> {
    out.clear();
    out.reserve(input.len().saturating_mul(4).min(limit));
    let mut ip = 0;
    while ip < input.len() {
        let ctrl = usize::from(input[ip]);
        ip += 1;
        if ctrl < 32 {
            let len = ctrl + 1;
            ensure!(
                out.len() + len <= limit,
                LimitExceeded,
                ID,
                "decompressed data exceeds {limit} bytes"
            );
            let Some(lit) = input.get(ip..ip + len) else {
                bail!(Corrupt, ID, "literal run passes the end of the data");
            };
            out.extend_from_slice(lit);
            ip += len;
        } else {
            let mut len = ctrl >> 5;
            let mut dist = (ctrl & 0x1f) << 8;
            if len == 7 {
                let Some(&extra) = input.get(ip) else {
                    bail!(Corrupt, ID, "back reference passes the end of the data");
                };
                len += usize::from(extra);
                ip += 1;
            }
            let Some(&low) = input.get(ip) else {
                bail!(Corrupt, ID, "back reference passes the end of the data");
            };
            ip += 1;
            dist += usize::from(low) + 1;
            len += 2;
            ensure!(
                out.len() + len <= limit,
                LimitExceeded,
                ID,
                "decompressed data exceeds {limit} bytes"
            );
            ensure!(
                dist <= out.len(),
                Corrupt,
                ID,
                "back reference {dist} bytes before the start of the data"
            );
            let start = out.len() - dist;
            if dist >= len {
                out.extend_from_within(start..start + len);
            } else {
                for i in 0..len {
                    let b = out[start + i];
                    out.push(b);
                }
            }
        }
    }
    Ok(())
}

/// `log2` of the hash table size (liblzf's `HLOG`; h5py's build uses 17, and with it our
/// output matches h5py's byte for byte).
const HLOG: u32 = 17;
const HSIZE: usize = 1 << HLOG;
const MAX_LIT: usize = 1 << 5;
const MAX_OFF: usize = 1 << 13;
const MAX_REF: usize = (1 << 8) + (1 << 3);

#[inline]
fn idx(h: u32) -> usize {
    (((h >> (3 * 8 - HLOG)).wrapping_sub(h)) as usize) & (HSIZE - 1)
}

/// Compress (writing) with liblzf's algorithm ("ultra fast" hashing, a hash table that
/// starts empty); fails when the result would not fit in the input's size, as h5py's
/// filter does.
pub(super) fn encode(input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
    match compress(input, input.len()) {
        Some(v) => {
            *out = v;
            Ok(Step::Replaced)
        }
        None => bail!(
            EncodeFailed,
            ID,
            "compressed data would be larger than the {} input bytes",
            input.len()
        ),
    }
}

/// liblzf's `lzf_compress` into at most `out_len` bytes.
pub(super) fn compress(input: &[u8], out_len: usize) -> Option<Vec<u8>> {
    let in_len = input.len();
    if in_len == 0 || out_len == 0 {
        return None;
    }
    // Positions + 1 (0 = empty slot).
    let mut htab = vec![0u32; HSIZE];
    let mut out: Vec<u8> = Vec::with_capacity(out_len);
    let mut ip = 0usize;
    let mut lit: usize = 0;
    // `run` is the index of the current literal run's control byte.
    let mut run = 0usize;
    out.push(0);
    let frst = |p: usize| (u32::from(input[p]) << 8) | u32::from(input[p + 1]);
    let mut hval = if in_len >= 2 { frst(0) } else { 0 };
    while ip + 2 < in_len {
        hval = (hval << 8) | u32::from(input[ip + 2]);
        let slot = idx(hval);
        let r = htab[slot] as usize;
        htab[slot] = ip as u32 + 1;
        // Slots hold earlier positions + 1 (0 = empty); position 0 never matches.
        let matched = r > 1 && {
            let rp = r - 1;
            rp < ip
                && ip - rp - 1 < MAX_OFF
                && ip + 4 < in_len
                && input[rp] == input[ip]
                && input[rp + 1] == input[ip + 1]
                && input[rp + 2] == input[ip + 2]
        };
        if matched {
            let rp = r - 1;
            let off = ip - rp - 1;
            let mut len = 2;
            let maxlen = (in_len - ip - len).min(MAX_REF);
            // Room for the match (up to 3 bytes) plus the next run's control byte.
            let op = out.len();
            if op + 3 + 1 >= out_len && op - usize::from(lit == 0) + 3 + 1 >= out_len {
                return None;
            }
            out[run] = (lit as u8).wrapping_sub(1);
            if lit == 0 {
                out.pop();
            }
            // liblzf first compares 16 bytes unrolled (which can run up to two bytes past
            // `maxlen`, still inside the input), then byte by byte.
            let mut done = false;
            if maxlen > 16 {
                for _ in 0..16 {
                    len += 1;
                    if input[rp + len] != input[ip + len] {
                        done = true;
                        break;
                    }
                }
            }
            while !done {
                len += 1;
                done = !(len < maxlen && input[rp + len] == input[ip + len]);
            }
            len -= 2;
            ip += 1;
            if len < 7 {
                out.push(((off >> 8) + (len << 5)) as u8);
            } else {
                out.push(((off >> 8) + (7 << 5)) as u8);
                out.push((len - 7) as u8);
            }
            out.push(off as u8);
            lit = 0;
            run = out.len();
            out.push(0);
            ip += len + 1;
            if ip + 2 >= in_len {
                break;
            }
            ip -= 1;
            hval = frst(ip);
            hval = (hval << 8) | u32::from(input[ip + 2]);
            htab[idx(hval)] = ip as u32 + 1;
            ip += 1;
        } else {
            if out.len() >= out_len {
                return None;
            }
            lit += 1;
            out.push(input[ip]);
            ip += 1;
            if lit == MAX_LIT {
                out[run] = (MAX_LIT - 1) as u8;
                lit = 0;
                run = out.len();
                out.push(0);
            }
        }
    }
    if out.len() + 3 > out_len {
        return None;
    }
    while ip < in_len {
        lit += 1;
        out.push(input[ip]);
        ip += 1;
        if lit == MAX_LIT {
            out[run] = (MAX_LIT - 1) as u8;
            lit = 0;
            run = out.len();
            out.push(0);
        }
    }
    out[run] = (lit as u8).wrapping_sub(1);
    if lit == 0 {
        out.pop();
    }
    (out.len() <= out_len).then_some(out)
}

/// [`decompress`] returning the bytes, for unit tests.
#[cfg(test)]
pub(super) fn decompress_for_test(input: &[u8], limit: usize) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    decompress(input, &mut out, limit)?;
    Ok(out)
}

/// The LZF codec; `set_local` stores the chunk size.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lzf;

impl FilterCodec for Lzf {
    fn id(&self) -> FilterId {
        ID
    }
    fn name(&self) -> &str {
        "lzf"
    }
    fn set_local(&self, filter: &Filter, local: &LocalInfo<'_>) -> Result<Filter> {
        let mut f = filter.clone();
        f.client_data = vec![
            FILTER_VERSION,
            LZF_VERSION,
            super::local::chunk_bytes(ID, local)?,
        ];
        Ok(f)
    }
    fn decode(
        &self,
        _: &Filter,
        input: &[u8],
        out: &mut Vec<u8>,
        ctx: &DecodeContext,
    ) -> Result<Step> {
        decode(input, out, ctx.limit)
    }
    fn encode(&self, _: &Filter, input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
        encode(input, out)
    }
}
