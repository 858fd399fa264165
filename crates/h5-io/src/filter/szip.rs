//! Szip (`H5Z_FILTER_SZIP`): CCSDS 121.0 adaptive entropy coding (Rice coding with
//! optional unit-delay prediction), as libaec's szip emulation (`SZ_BufftoBuffCompress`)
//! frames it.
//!
//! Client data: `[0]` options mask (NN = preprocessing, MSB = big-endian samples; the
//! other bits do not change the stream), `[1]` pixels per block, `[2]` bits per pixel, `[3]`
//! pixels per scanline. The stored chunk is the uncompressed size (u32 LE) followed by the
//! coded stream. 32- and 64-bit pixels are coded as bytes, the bytes of all pixels
//! interleaved (byte 0 of every pixel, then byte 1, ...). Each scanline is padded to a
//! whole number of blocks, a *reference sample interval* (RSI).

use std::borrow::Cow;

use super::bits::{mask64, BitWriter};
use super::{bail, ensure, DecodeContext, Filter, FilterCodec, FilterId, LocalInfo, Result, Step};

const ID: FilterId = FilterId::SZIP;

pub(super) use h5_format::message::filter_pipeline::{
    SZIP_LSB as OPTION_LSB, SZIP_MSB as OPTION_MSB, SZIP_NN as OPTION_NN,
};

/// Most blocks per scanline accepted (libaec's RSI limit).
const MAX_RSI: usize = 4096;
/// Largest second-extension code libaec accepts.
const SE_TABLE_SIZE: u64 = 90;

/// The szip parameters, checked.
struct Sz {
    msb: bool,
    nn: bool,
    ppb: usize,
    bpp: u32,
    pps: usize,
    rsi: usize,
}

fn params(cd: &[u32]) -> Result<Sz> {
    let &[mask, ppb, bpp, pps] = cd else {
        bail!(
            InvalidParameters,
            ID,
            "expected 4 client data values, found {}",
            cd.len()
        );
    };
    ensure!(
        (2..=32).contains(&ppb) && ppb % 2 == 0,
        InvalidParameters,
        ID,
        "pixels per block {ppb} (must be even, 2 to 32)"
    );
    ensure!(
        (1..=32).contains(&bpp) || bpp == 64,
        InvalidParameters,
        ID,
        "bits per pixel {bpp}"
    );
    ensure!(pps >= 1, InvalidParameters, ID, "pixels per scanline 0");
    let rsi = (pps as usize).div_ceil(ppb as usize);
    ensure!(
        rsi <= MAX_RSI,
        InvalidParameters,
        ID,
        "{pps} pixels per scanline make {rsi} blocks, at most {MAX_RSI} are allowed"
    );
    Ok(Sz {
        msb: mask & OPTION_MSB != 0,
        nn: mask & OPTION_NN != 0,
        ppb: ppb as usize,
        bpp,
        pps: pps as usize,
        rsi,
    })
}

/// The coder's settings for one stream.
#[derive(Clone, Copy)]
struct Aec {
    bps: u32,
    block: usize,
    rsi: usize,
    msb: bool,
    pp: bool,
}

impl Aec {
    fn bytes_per_sample(&self) -> usize {
        match self.bps {
            17.. => 4,
            9..=16 => 2,
            _ => 1,
        }
    }

    fn id_len(&self) -> u32 {
        match self.bps {
            17.. => 5,
            9..=16 => 4,
            _ => 3,
        }
    }

    fn xmax(&self) -> u32 {
        mask64(self.bps) as u32
    }
}

fn settings(sz: &Sz) -> (Aec, bool, usize) {
    let interleave = sz.bpp == 32 || sz.bpp == 64;
    let bps = if interleave { 8 } else { sz.bpp };
    let aec = Aec {
        bps,
        block: sz.ppb,
        rsi: sz.rsi,
        msb: sz.msb,
        pp: sz.nn,
    };
    let pixel = aec.bytes_per_sample();
    (aec, interleave, pixel)
}

// ---------------------------------------------------------------------------------------
// Decoding

/// Bit reader for the coded stream: most significant bit first.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    acc: u64,
    bits: u32,
}

impl<'a> Reader<'a> {
    fn new(data: &'a [u8]) -> Self {
        Reader {
            data,
            pos: 0,
            acc: 0,
            bits: 0,
        }
    }

    #[inline]
    fn refill(&mut self) {
        while self.bits <= 56 {
            let Some(&b) = self.data.get(self.pos) else {
                break;
            };
            self.acc = (self.acc << 8) | u64::from(b);
            self.pos += 1;
            self.bits += 8;
        }
    }

    /// `n` bits (at most 32), or `None` at the end of the data.
    #[inline]
    fn get(&mut self, n: u32) -> Option<u32> {
        if n == 0 {
            return Some(0);
        }
        if self.bits < n {
            self.refill();
            if self.bits < n {
                return None;
            }
        }
        self.bits -= n;
        Some(((self.acc >> self.bits) & mask64(n)) as u32)
    }

    /// A fundamental sequence: the number of 0 bits before the next 1 bit.
    #[inline]
    fn get_fs(&mut self) -> Option<u64> {
        let mut fs = 0u64;
        loop {
            if self.bits == 0 {
                self.refill();
                if self.bits == 0 {
                    return None;
                }
            }
            let v = self.acc & mask64(self.bits);
            if v == 0 {
                fs += u64::from(self.bits);
                self.bits = 0;
                continue;
            }
            let top = 63 - v.leading_zeros();
            fs += u64::from(self.bits - 1 - top);
            self.bits = top;
            return Some(fs);
        }
    }
}

fn truncated() -> super::Error {
    super::Error::new(
        super::ErrorKind::Corrupt,
        ID,
        "coded stream ends inside a block",
    )
}

/// Write samples to `out`, undoing the prediction when `pp` (the first sample of an RSI is
/// its reference).
fn flush(a: &Aec, rsi_buf: &[u32], out: &mut Vec<u8>, max_samples: usize, written: &mut usize) {
    let take = rsi_buf.len().min(max_samples - *written);
    let bytes = a.bytes_per_sample();
    let mut put = |v: u32| match (bytes, a.msb) {
        (1, _) => out.push(v as u8),
        (2, false) => out.extend_from_slice(&(v as u16).to_le_bytes()),
        (2, true) => out.extend_from_slice(&(v as u16).to_be_bytes()),
        (_, false) => out.extend_from_slice(&v.to_le_bytes()),
        (_, true) => out.extend_from_slice(&v.to_be_bytes()),
    };
    if a.pp {
        let xmax = a.xmax();
        let med = xmax / 2 + 1;
        let mut data = 0u32;
        for (i, &d) in rsi_buf[..take].iter().enumerate() {
            if i == 0 {
                data = d;
            } else {
                let half_d = (d >> 1) + (d & 1);
                let m = if data & med != 0 { xmax } else { 0 };
                if half_d <= (m ^ data) {
                    data = data.wrapping_add((d >> 1) ^ !((d & 1).wrapping_sub(1)));
                } else {
                    data = m ^ d;
                }
            }
            put(data);
        }
    } else {
        for &d in &rsi_buf[..take] {
            put(d);
        }
    }
    *written += take;
}

/// Decode `input` into `out` until `cap` bytes are produced or the input ends.
fn aec_decode(a: &Aec, input: &[u8], out: &mut Vec<u8>, cap: usize) -> Result<()> {
    let bytes = a.bytes_per_sample();
    ensure!(
        cap.is_multiple_of(bytes),
        Corrupt,
        ID,
        "decoded size {cap} is not a whole number of {bytes}-byte samples"
    );
    let max_samples = cap / bytes;
    out.clear();
    out.reserve_exact(cap);
    let rsi_size = a.rsi * a.block;
    let mut rsi_buf: Vec<u32> = Vec::with_capacity(rsi_size);
    let mut r = Reader::new(input);
    let id_len = a.id_len();
    let uncomp_id = (1u32 << id_len) - 1;
    let mut written = 0usize;
    while written + rsi_buf.len() < max_samples {
        let reference = a.pp && rsi_buf.is_empty();
        let Some(id) = r.get(id_len) else {
            break;
        };
        if id == 0 {
            let se = r.get(1).ok_or_else(truncated)? == 1;
            if reference {
                rsi_buf.push(r.get(a.bps).ok_or_else(truncated)?);
            }
            if se {
                let mut i = usize::from(reference);
                while i < a.block {
                    let m = r.get_fs().ok_or_else(truncated)?;
                    ensure!(
                        m <= SE_TABLE_SIZE,
                        Corrupt,
                        ID,
                        "second-extension code {m} out of range"
                    );
                    // The pair sum d is the largest with d(d+1)/2 <= m.
                    let mut d = 0u64;
                    while (d + 1) * (d + 2) / 2 <= m {
                        d += 1;
                    }
                    let d1 = m - d * (d + 1) / 2;
                    if i % 2 == 0 {
                        rsi_buf.push((d - d1) as u32);
                        i += 1;
                    }
                    rsi_buf.push(d1 as u32);
                    i += 1;
                }
            } else {
                let fs = r.get_fs().ok_or_else(truncated)?;
                let mut zero_blocks = fs.saturating_add(1);
                if zero_blocks == 5 {
                    let b = rsi_buf.len() / a.block;
                    zero_blocks = ((a.rsi - b).min(64 - b % 64)) as u64;
                } else if zero_blocks > 5 {
                    zero_blocks -= 1;
                }
                let zero_samples = zero_blocks
                    .saturating_mul(a.block as u64)
                    .saturating_sub(u64::from(reference));
                ensure!(
                    (rsi_size - rsi_buf.len()) as u64 >= zero_samples,
                    Corrupt,
                    ID,
                    "zero-block run of {zero_blocks} blocks passes the end of the interval"
                );
                rsi_buf.resize(rsi_buf.len() + zero_samples as usize, 0);
            }
        } else if id == uncomp_id {
            for _ in 0..a.block {
                rsi_buf.push(r.get(a.bps).ok_or_else(truncated)?);
            }
        } else {
            let k = id - 1;
            if reference {
                rsi_buf.push(r.get(a.bps).ok_or_else(truncated)?);
            }
            let start = rsi_buf.len();
            for _ in usize::from(reference)..a.block {
                let fs = r.get_fs().ok_or_else(truncated)?;
                rsi_buf.push((fs as u32).wrapping_shl(k));
            }
            if k > 0 {
                for s in &mut rsi_buf[start..] {
                    *s = s.wrapping_add(r.get(k).ok_or_else(truncated)?);
                }
            }
        }
        if rsi_buf.len() >= rsi_size {
            flush(a, &rsi_buf, out, max_samples, &mut written);
            rsi_buf.clear();
        }
    }
    if !rsi_buf.is_empty() {
        flush(a, &rsi_buf, out, max_samples, &mut written);
    }
    Ok(())
}

fn deinterleave(src: &[u8], word: usize) -> Vec<u8> {
    let n = src.len() / word;
    let mut dst = vec![0u8; src.len()];
    for (j, plane) in src[..n * word]
        .chunks_exact(n.max(1))
        .enumerate()
        .take(word)
    {
        for (e, &s) in dst.chunks_exact_mut(word).zip(plane) {
            e[j] = s;
        }
    }
    dst[n * word..].copy_from_slice(&src[n * word..]);
    dst
}

fn interleave(src: &[u8], word: usize) -> Vec<u8> {
    let n = src.len() / word;
    let mut dst = vec![0u8; src.len()];
    for (j, plane) in dst[..n * word]
        .chunks_exact_mut(n.max(1))
        .enumerate()
        .take(word)
    {
        for (d, e) in plane.iter_mut().zip(src.chunks_exact(word)) {
            *d = e[j];
        }
    }
    dst[n * word..].copy_from_slice(&src[n * word..]);
    dst
}

/// Decode (reading).
pub(super) fn decode(cd: &[u32], input: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<Step> {
    let sz = params(cd)?;
    ensure!(
        input.len() >= 4,
        Corrupt,
        ID,
        "chunk of {} bytes has no size header",
        input.len()
    );
    let nalloc = u32::from_le_bytes([input[0], input[1], input[2], input[3]]) as usize;
    ensure!(
        nalloc <= limit,
        LimitExceeded,
        ID,
        "stored size {nalloc} exceeds the chunk size {limit}"
    );
    let stream = &input[4..];
    let (aec, deinterleaved, pixel) = settings(&sz);
    let mut buf = Vec::new();
    if sz.pps % sz.ppb != 0 {
        // Scanlines were padded to whole blocks; decode them whole, then drop the padding.
        let scanlines = (nalloc / pixel).div_ceil(sz.pps);
        let line = sz.pps * pixel;
        let padded_line = sz.rsi * sz.ppb * pixel;
        let padded = padded_line.saturating_mul(scanlines);
        ensure!(
            padded <= nalloc.saturating_mul(2).saturating_add(padded_line),
            LimitExceeded,
            ID,
            "padded size {padded} is out of proportion to {nalloc}"
        );
        aec_decode(&aec, stream, &mut buf, padded)?;
        ensure!(
            buf.len() == padded,
            Corrupt,
            ID,
            "stream decodes to {} of {padded} bytes",
            buf.len()
        );
        let mut kept = Vec::with_capacity(scanlines * line);
        for l in buf.chunks_exact(padded_line) {
            kept.extend_from_slice(&l[..line]);
        }
        kept.truncate(nalloc);
        buf = kept;
    } else {
        aec_decode(&aec, stream, &mut buf, nalloc)?;
    }
    ensure!(
        buf.len() == nalloc,
        Corrupt,
        ID,
        "stream decodes to {} of {nalloc} bytes",
        buf.len()
    );
    *out = if deinterleaved {
        deinterleave(&buf, sz.bpp as usize / 8)
    } else {
        buf
    };
    Ok(Step::Replaced)
}

// ---------------------------------------------------------------------------------------
// Encoding

struct Encoder {
    a: Aec,
    w: BitWriter,
    bits: u64,
    id_len: u32,
    kmax: u32,
    /// Splitting position of the previous block (the search starts there).
    k: u32,
}

impl Encoder {
    fn put(&mut self, v: u64, n: u32) {
        self.w.put(v, n);
        self.bits += u64::from(n);
    }

    fn put_fs(&mut self, mut fs: u64) {
        while fs >= 32 {
            self.put(0, 32);
            fs -= 32;
        }
        self.put(1, fs as u32 + 1);
    }

    /// CDS length for the best splitting position, searched from the previous one.
    fn assess_splitting(&mut self, block: &[u32], reference: bool) -> u32 {
        let this_bs = (block.len() - usize::from(reference)) as u64;
        let mut len_min = u64::MAX;
        let mut k = self.k;
        let mut k_min = k;
        let mut no_turn = k == 0;
        let mut up = true;
        loop {
            let fs_len: u64 = block.iter().map(|&x| u64::from(x >> k)).sum();
            let len = fs_len + this_bs * u64::from(k + 1);
            if len < len_min {
                if len_min < u64::MAX {
                    no_turn = true;
                }
                len_min = len;
                k_min = k;
                if up {
                    if fs_len < this_bs || k >= self.kmax {
                        if no_turn {
                            break;
                        }
                        k = self.k - 1;
                        up = false;
                        no_turn = true;
                    } else {
                        k += 1;
                    }
                } else {
                    if fs_len >= this_bs || k == 0 {
                        break;
                    }
                    k -= 1;
                }
            } else {
                if no_turn {
                    break;
                }
                k = self.k - 1;
                up = false;
                no_turn = true;
            }
        }
        self.k = k_min;
        len_min as u32
    }

    fn assess_se(block: &[u32], uncomp_len: u32) -> u32 {
        let mut len: u64 = 1;
        for pair in block.chunks_exact(2) {
            let d = u64::from(pair[0]) + u64::from(pair[1]);
            len += d * (d + 1) / 2 + u64::from(pair[1]) + 1;
            if len > u64::from(uncomp_len) {
                return u32::MAX;
            }
        }
        len as u32
    }

    fn encode_block(&mut self, block: &[u32], reference: bool, ref_sample: u32) {
        let bps = self.a.bps;
        let uncomp_len = (block.len() - usize::from(reference)) as u32 * bps;
        let split_len = if self.id_len > 1 {
            self.assess_splitting(block, reference)
        } else {
            u32::MAX
        };
        let se_len = Self::assess_se(block, uncomp_len);
        let skip = usize::from(reference);
        if split_len < uncomp_len && split_len < se_len {
            let k = self.k;
            self.put(u64::from(k + 1), self.id_len);
            if reference {
                self.put(u64::from(ref_sample), bps);
            }
            for &x in &block[skip..] {
                self.put_fs(u64::from(x >> k));
            }
            if k > 0 {
                for &x in &block[skip..] {
                    self.put(u64::from(x), k);
                }
            }
        } else if split_len >= uncomp_len && uncomp_len <= se_len {
            self.put(mask64(self.id_len), self.id_len);
            for (i, &x) in block.iter().enumerate() {
                let v = if reference && i == 0 { ref_sample } else { x };
                self.put(u64::from(v), bps);
            }
        } else {
            self.put(1, self.id_len + 1);
            if reference {
                self.put(u64::from(ref_sample), bps);
            }
            for pair in block.chunks_exact(2) {
                let d = u64::from(pair[0]) + u64::from(pair[1]);
                self.put_fs(d * (d + 1) / 2 + u64::from(pair[1]));
            }
        }
    }

    fn encode_zero(&mut self, blocks: u32, ros: bool, reference: bool, ref_sample: u32) {
        self.put(0, self.id_len + 1);
        if reference {
            self.put(u64::from(ref_sample), self.a.bps);
        }
        let fs = if ros {
            4
        } else if blocks >= 5 {
            blocks
        } else {
            blocks - 1
        };
        self.put_fs(u64::from(fs));
    }

    /// Code one RSI of raw samples.
    fn encode_rsi(&mut self, x: &[u32], d: &mut Vec<u32>) {
        let a = self.a;
        let (reference, ref_sample) = if a.pp {
            let xmax = a.xmax();
            d.clear();
            d.push(0);
            for w in x.windows(2) {
                let (prev, cur) = (w[0], w[1]);
                d.push(if cur >= prev {
                    let delta = cur - prev;
                    if delta <= prev {
                        2 * delta
                    } else {
                        cur
                    }
                } else {
                    let delta = prev - cur;
                    if delta <= xmax - prev {
                        2 * delta - 1
                    } else {
                        xmax - cur
                    }
                });
            }
            (true, x[0])
        } else {
            d.clear();
            d.extend_from_slice(x);
            (false, 0)
        };
        let mut zero_blocks = 0u32;
        let mut zero_ref = false;
        let mut zero_ref_sample = 0;
        for (b, block) in d.chunks_exact(a.block).enumerate() {
            let this_ref = reference && b == 0;
            let dispensed = b + 1;
            let last = b + 1 == a.rsi;
            if block.iter().all(|&v| v == 0) {
                zero_blocks += 1;
                if zero_blocks == 1 {
                    zero_ref = this_ref;
                    zero_ref_sample = ref_sample;
                }
                if last || dispensed % 64 == 0 {
                    self.encode_zero(zero_blocks, zero_blocks > 4, zero_ref, zero_ref_sample);
                    zero_blocks = 0;
                }
            } else {
                if zero_blocks > 0 {
                    self.encode_zero(zero_blocks, false, zero_ref, zero_ref_sample);
                    zero_blocks = 0;
                }
                self.encode_block(block, this_ref, ref_sample);
            }
        }
    }
}

/// Code whole RSIs of samples (`bytes_per_sample` bytes each); `None` when the result
/// would exceed `max_out` bytes.
fn aec_encode(a: &Aec, input: &[u8], max_out: usize) -> Option<Vec<u8>> {
    let bytes = a.bytes_per_sample();
    let xmax = a.xmax();
    let id_len = a.id_len();
    let mut enc = Encoder {
        a: *a,
        w: BitWriter::reuse(Vec::new(), max_out.min(input.len()) + 1),
        bits: 0,
        id_len,
        kmax: (1 << id_len) - 3,
        k: 0,
    };
    let rsi_samples = a.rsi * a.block;
    let mut x = Vec::with_capacity(rsi_samples);
    let mut d = Vec::with_capacity(rsi_samples);
    for rsi in input.chunks_exact(rsi_samples * bytes) {
        x.clear();
        x.extend(rsi.chunks_exact(bytes).map(|s| {
            let v = match (bytes, a.msb) {
                (1, _) => u32::from(s[0]),
                (2, false) => u32::from(u16::from_le_bytes([s[0], s[1]])),
                (2, true) => u32::from(u16::from_be_bytes([s[0], s[1]])),
                (_, false) => u32::from_le_bytes([s[0], s[1], s[2], s[3]]),
                (_, true) => u32::from_be_bytes([s[0], s[1], s[2], s[3]]),
            };
            v & xmax
        }));
        enc.encode_rsi(&x, &mut d);
        if enc.bits.div_ceil(8) > max_out as u64 {
            return None;
        }
    }
    let bits = enc.bits;
    let mut out = enc.w.finish();
    if bits > 0 && bits.is_multiple_of(8) {
        out.pop();
    }
    (out.len() <= max_out).then_some(out)
}

/// Encode (writing); fails when the coded chunk would be larger than the input.
pub(super) fn encode(cd: &[u32], input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
    let sz = params(cd)?;
    let nbytes = u32::try_from(input.len()).map_err(|_| {
        super::Error::new(super::ErrorKind::EncodeFailed, ID, "chunk exceeds 4 GiB")
    })?;
    let (aec, interleaved, pixel) = settings(&sz);
    let data: Cow<'_, [u8]> = if interleaved {
        Cow::Owned(interleave(input, sz.bpp as usize / 8))
    } else {
        Cow::Borrowed(input)
    };
    // Pad every scanline to whole blocks, repeating its last pixel when preprocessing.
    let line = sz.pps * pixel;
    let padded_line = sz.rsi * sz.ppb * pixel;
    let scanlines = (data.len() / pixel).div_ceil(sz.pps);
    let mut padded = Vec::with_capacity(padded_line * scanlines);
    let mut i = 0;
    while i < data.len() {
        let ls = (data.len() - i).min(line);
        padded.extend_from_slice(&data[i..i + ls]);
        i += ls;
        let fill: Vec<u8> = if sz.nn && i >= pixel {
            data[i - pixel..i].to_vec()
        } else {
            vec![0; pixel]
        };
        let end = padded.len() + (padded_line - ls);
        while padded.len() < end {
            let n = (end - padded.len()).min(pixel);
            padded.extend_from_slice(&fill[..n]);
        }
    }
    let Some(coded) = aec_encode(&aec, &padded, input.len()) else {
        bail!(
            EncodeFailed,
            ID,
            "coded data would be larger than the {} input bytes",
            input.len()
        );
    };
    out.clear();
    out.reserve_exact(coded.len() + 4);
    out.extend_from_slice(&nbytes.to_le_bytes());
    out.extend_from_slice(&coded);
    Ok(Step::Replaced)
}

/// The szip codec; `set_local` stores the parameters the datatype and chunk shape give.
#[derive(Clone, Copy, Debug, Default)]
pub struct Szip;

impl FilterCodec for Szip {
    fn id(&self) -> FilterId {
        ID
    }
    fn name(&self) -> &str {
        "szip"
    }
    fn set_local(&self, filter: &Filter, local: &LocalInfo<'_>) -> Result<Filter> {
        let mut f = filter.clone();
        f.client_data = super::local::szip_local(
            filter,
            local.datatype,
            local.chunk_dims,
            super::local::npoints(ID, local.chunk_dims)?,
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
