//! Blosc (filter 32001, the hdf5-blosc plugin): a Blosc 1 frame (format version 2).
//!
//! Client data (after `set_local`): `[0]` filter revision (2), `[1]` Blosc format version
//! (2), `[2]` type size, `[3]` chunk size in bytes, `[4]` compression level (0 to 9), `[5]`
//! shuffle (0 none, 1 byte, 2 bit), `[6]` compressor (0 blosclz, 1 lz4, 2 lz4hc, 4 zlib,
//! 5 zstd).
//!
//! Frame: a 16-byte header (version, compressor version, flags, type size, then u32 LE:
//! uncompressed size, block size, frame size), the start offset of every block (u32 LE),
//! and the blocks. Flags: bit 0 byte shuffle, bit 1 stored uncompressed ("memcpyed"),
//! bit 2 bit shuffle, bit 4 blocks not split, bits 5 to 7 the compressor's format. A block
//! is shuffled as a whole, then compressed as one stream or as one stream per byte of the
//! type ("split"); each stream is its size (u32 LE) and its bytes, stored as they are when
//! that size is the stream's uncompressed size.
//!
//! The format leaves the block size and the compressors' output free: ours are not the
//! reference encoder's bytes, but every Blosc reader reads them. LZ4HC is written as LZ4
//! (the same block format).

use h5_format::message::filter_pipeline::BloscCodec;

pub(super) use super::scratch::Out;
use super::{bail, ensure, DecodeContext, Filter, FilterCodec, FilterId, LocalInfo, Result, Step};

const ID: FilterId = FilterId::BLOSC;

/// `FILTER_BLOSC_VERSION`.
const FILTER_REVISION: u32 = 2;
/// `BLOSC_VERSION_FORMAT`.
const FORMAT: u8 = 2;
const HEADER: usize = 16;
const DOSHUFFLE: u8 = 0x1;
const MEMCPYED: u8 = 0x2;
const DOBITSHUFFLE: u8 = 0x4;
const DONT_SPLIT: u8 = 0x10;
/// `MIN_BUFFERSIZE` and `MAX_SPLITS`.
const MIN_BUFFER: usize = 128;
const MAX_SPLITS: usize = 16;
/// `BLOSC_MAX_TYPESIZE`.
const MAX_TYPESIZE: usize = 255;
/// The block size written (the reference's L1-based choice for mid levels).
const BLOCK: usize = 32 * 1024;

/// The compressor formats of the flags (`BLOSC_*_FORMAT`), shared with Blosc2.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Format {
    BloscLz = 0,
    Lz4 = 1,
    Zlib = 3,
    Zstd = 4,
}

fn le32(b: &[u8], at: usize) -> Option<usize> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as usize)
}

impl Format {
    /// The format of the flags' bits 5 to 7, `None` for snappy, user-defined or unknown.
    pub(super) fn from_flags(flags: u8) -> Option<Format> {
        Some(match flags >> 5 {
            0 => Format::BloscLz,
            1 => Format::Lz4,
            3 => Format::Zlib,
            4 => Format::Zstd,
            _ => return None,
        })
    }

    /// The format `codec` writes.
    pub(super) fn of(codec: BloscCodec) -> Format {
        match codec {
            BloscCodec::BloscLz => Format::BloscLz,
            BloscCodec::Lz4 | BloscCodec::Lz4Hc => Format::Lz4,
            BloscCodec::Zlib => Format::Zlib,
            BloscCodec::Zstd => Format::Zstd,
        }
    }
}

/// Decode one stream of a block into `out` (exactly its length).
pub(super) fn decode_stream(id: FilterId, fmt: Format, src: &[u8], out: &mut [u8]) -> Result<()> {
    let want = out.len();
    let got = match fmt {
        Format::BloscLz => super::blosclz::decompress(id, src, out)?,
        Format::Lz4 => {
            super::lz4::decompress_block(id, src, out)?;
            want
        }
        Format::Zlib => {
            let mut v = Vec::new();
            super::deflate::inflate(src, &mut v, want)?;
            let n = v.len();
            out.get_mut(..n)
                .ok_or_else(|| {
                    super::Error::new(super::ErrorKind::Corrupt, id, "zlib stream too long")
                })?
                .copy_from_slice(&v);
            n
        }
        Format::Zstd => {
            super::zstd::decompress_exact(id, src, out)?;
            want
        }
    };
    ensure!(
        got == want,
        Corrupt,
        id,
        "a stream decodes to {got} bytes, expected {want}"
    );
    Ok(())
}

/// Undo a block's shuffle (`flags`) from `tmp` into `dst`.
fn unshuffle_block(flags: u8, typesize: usize, tmp: &[u8], dst: &mut [u8]) {
    let n = tmp.len();
    if flags & DOSHUFFLE != 0 && typesize > 1 {
        super::shuffle::unshuffle(tmp, dst, typesize);
    } else if flags & DOBITSHUFFLE != 0 && n >= typesize && (n / typesize).is_multiple_of(8) {
        let body = n / typesize * typesize;
        super::bitshuffle::unshuffle_bits(&tmp[..body], &mut dst[..body], typesize);
        dst[body..].copy_from_slice(&tmp[body..]);
    } else {
        dst.copy_from_slice(tmp);
    }
}

fn shuffle_block(shuffle: u32, typesize: usize, src: &[u8], dst: &mut [u8]) -> u8 {
    let n = src.len();
    match shuffle {
        1 if typesize > 1 => {
            super::shuffle::shuffle(src, dst, typesize);
        }
        2 if n >= typesize && (n / typesize).is_multiple_of(8) => {
            let body = n / typesize * typesize;
            super::bitshuffle::shuffle_bits(&src[..body], &mut dst[..body], typesize);
            dst[body..].copy_from_slice(&src[body..]);
        }
        _ => dst.copy_from_slice(src),
    }
    match shuffle {
        1 => DOSHUFFLE,
        2 => DOBITSHUFFLE,
        _ => 0,
    }
}

/// A Blosc 1 frame's header, checked.
struct Frame<'a> {
    flags: u8,
    typesize: usize,
    /// The uncompressed size.
    nbytes: usize,
    blocksize: usize,
    /// The frame (its compressed size).
    src: &'a [u8],
}

/// Parse the header of a Blosc 1 frame that decodes to at most `limit` bytes.
fn parse_frame(id: FilterId, input: &[u8], limit: usize) -> Result<Frame<'_>> {
    ensure!(
        input.len() >= HEADER,
        Corrupt,
        id,
        "blosc header is truncated"
    );
    let flags = input[2];
    let typesize = usize::from(input[3]);
    let nbytes = le32(input, 4).unwrap_or(0);
    let blocksize = le32(input, 8).unwrap_or(0);
    let cbytes = le32(input, 12).unwrap_or(0);
    let frame = Frame {
        flags,
        typesize,
        nbytes,
        blocksize,
        src: input,
    };
    if nbytes == 0 {
        return Ok(frame);
    }
    ensure!(
        input[0] == FORMAT,
        Corrupt,
        id,
        "blosc format version {} (only {FORMAT} is known)",
        input[0]
    );
    ensure!(
        flags & 0x08 == 0,
        Corrupt,
        id,
        "blosc flags {flags:#x} from a later version"
    );
    ensure!(
        nbytes <= limit,
        LimitExceeded,
        id,
        "blosc frame declares {nbytes} bytes, more than {limit}"
    );
    ensure!(
        blocksize > 0 && typesize > 0,
        Corrupt,
        id,
        "blosc block size {blocksize}, type size {typesize}"
    );
    ensure!(
        cbytes <= input.len(),
        Corrupt,
        id,
        "blosc frame of {cbytes} bytes in {} bytes",
        input.len()
    );
    Ok(Frame {
        src: &input[..cbytes],
        ..frame
    })
}

/// Decode a Blosc 1 frame (`blosc_decompress`) into `out`, at most `limit` bytes; returns
/// the frame's uncompressed size.
pub(super) fn decode_frame(
    id: FilterId,
    input: &[u8],
    out: Out<'_>,
    limit: usize,
) -> Result<usize> {
    let frame = parse_frame(id, input, limit)?;
    if let Some(out) = out.sized(frame.nbytes) {
        decode_blocks(id, &frame, out)?;
    }
    Ok(frame.nbytes)
}

/// Decode the blocks of `frame` into `out` (`frame.nbytes` bytes): each block's streams
/// straight into its place in `out` when the block is not shuffled, else into a scratch
/// buffer that is unshuffled into place.
fn decode_blocks(id: FilterId, frame: &Frame<'_>, out: &mut [u8]) -> Result<()> {
    let Frame {
        flags,
        typesize,
        nbytes,
        blocksize,
        src,
    } = *frame;
    if nbytes == 0 {
        return Ok(());
    }
    if flags & MEMCPYED != 0 {
        let Some(body) = src.get(HEADER..HEADER + nbytes) else {
            bail!(Corrupt, id, "stored blosc data is truncated");
        };
        out.copy_from_slice(body);
        return Ok(());
    }
    let Some(fmt) = Format::from_flags(flags) else {
        bail!(
            Unavailable,
            id,
            "blosc compressor format {} (snappy or unknown)",
            flags >> 5
        );
    };
    let nblocks = nbytes.div_ceil(blocksize);
    let leftover = nbytes % blocksize;
    let shuffled = (flags & DOSHUFFLE != 0 && typesize > 1) || flags & DOBITSHUFFLE != 0;
    let tmp_len = if shuffled { blocksize.min(nbytes) } else { 0 };
    super::scratch::with(tmp_len, 0, |tmp, _| {
        for (b, dst) in out.chunks_mut(blocksize).enumerate() {
            let Some(start) = le32(src, HEADER + 4 * b) else {
                bail!(Corrupt, id, "blosc block starts are truncated");
            };
            let last = b == nblocks - 1 && leftover > 0;
            let bsize = dst.len();
            let split = flags & DONT_SPLIT == 0
                && typesize <= MAX_SPLITS
                && blocksize / typesize >= MIN_BUFFER
                && !last;
            let nsplits = if split { typesize } else { 1 };
            ensure!(
                bsize % nsplits == 0,
                Corrupt,
                id,
                "block of {bsize} bytes in {nsplits} streams"
            );
            let neblock = bsize / nsplits;
            let t: &mut [u8] = if shuffled { &mut tmp[..bsize] } else { dst };
            let mut pos = start;
            for part in t.chunks_exact_mut(neblock) {
                let Some(n) = le32(src, pos) else {
                    bail!(Corrupt, id, "blosc stream header at {pos} is truncated");
                };
                pos += 4;
                let Some(stream) = src.get(pos..pos.saturating_add(n)) else {
                    bail!(
                        Corrupt,
                        id,
                        "blosc stream at {pos} passes the end of the frame"
                    );
                };
                if n == neblock {
                    part.copy_from_slice(stream);
                } else {
                    decode_stream(id, fmt, stream, part)?;
                }
                pos += n;
            }
            if shuffled {
                unshuffle_block(flags, typesize, &tmp[..bsize], dst);
            }
        }
        Ok(())
    })
}

struct Params {
    typesize: usize,
    level: u32,
    shuffle: u32,
    codec: BloscCodec,
}

fn params(cd: &[u32]) -> Result<Params> {
    let typesize = cd.get(2).copied().unwrap_or(1).max(1) as usize;
    let (codec, level) = codec_and_level(ID, cd)?;
    let shuffle = cd.get(5).copied().unwrap_or(1);
    ensure!(
        shuffle <= 2,
        InvalidParameters,
        ID,
        "blosc shuffle {shuffle} (0 to 2)"
    );
    Ok(Params {
        typesize: typesize.min(MAX_TYPESIZE),
        level,
        shuffle,
        codec,
    })
}

/// The compressor (client data 6, default BloscLZ) and level (4, default 5) of Blosc and
/// Blosc2.
pub(super) fn codec_and_level(id: FilterId, cd: &[u32]) -> Result<(BloscCodec, u32)> {
    let level = cd.get(4).copied().unwrap_or(5);
    let code = cd.get(6).copied().unwrap_or(0);
    let Some(codec) = BloscCodec::from_code(code) else {
        bail!(InvalidParameters, id, "compressor {code} is not available");
    };
    ensure!(level <= 9, InvalidParameters, id, "level {level} (0 to 9)");
    Ok((codec, level))
}

/// The type size Blosc and Blosc2 store: of an array's base type.
pub(super) fn base_type_size(id: FilterId, local: &LocalInfo<'_>) -> Result<usize> {
    let base = match local.datatype.as_array() {
        Some(a) => a.base().size(),
        None => local.datatype.size(),
    };
    ensure!(base > 0, InvalidParameters, id, "datatype size 0");
    Ok(base)
}

/// Compress stream `s` with `codec` at `level` and append it to `out`: its size (u32 LE)
/// and its bytes, stored as they are when compressing saves nothing.
pub(super) fn push_stream(
    codec: BloscCodec,
    level: u32,
    s: &[u8],
    out: &mut Vec<u8>,
) -> Result<()> {
    let c = compress_with(codec, level, s)?;
    let kept: &[u8] = if c.is_empty() || c.len() >= s.len() {
        s
    } else {
        &c
    };
    out.extend_from_slice(&(kept.len() as u32).to_le_bytes());
    out.extend_from_slice(kept);
    Ok(())
}

/// Compress one stream with `codec` at `level` (0 to 9: zlib's level, mapped for
/// Zstandard as Blosc maps it; the other codecs' output does not depend on it).
pub(super) fn compress_with(codec: BloscCodec, level: u32, src: &[u8]) -> Result<Vec<u8>> {
    Ok(match codec {
        BloscCodec::BloscLz => super::blosclz::compress(src),
        BloscCodec::Lz4 | BloscCodec::Lz4Hc => super::lz4::compress_block(src),
        BloscCodec::Zlib => {
            let mut v = Vec::new();
            super::deflate::encode(&[level], src, &mut v)?;
            v
        }
        // Blosc's Zstandard level for its own 0 to 9 (`zstd_wrap_compress`).
        BloscCodec::Zstd => {
            let zl = if level < 9 { level as i32 * 2 - 1 } else { 22 };
            super::zstd::compress(FilterId::BLOSC, src, zl)?
        }
    })
}

/// Encode `input` as a Blosc 1 frame no larger than the input (`blosc_compress` with the
/// output size of the input, as the plugin calls it); larger fails.
fn encode_frame(p: &Params, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let nbytes = input.len();
    ensure!(
        nbytes <= i32::MAX as usize - HEADER,
        EncodeFailed,
        ID,
        "blosc compresses at most 2 GiB"
    );
    // Small or level-0 buffers are stored, which never fits the input's size.
    ensure!(
        p.level > 0 && nbytes >= MIN_BUFFER,
        EncodeFailed,
        ID,
        "stored uncompressed, the frame is larger than the data"
    );
    let hcr = matches!(
        p.codec,
        BloscCodec::Lz4Hc | BloscCodec::Zlib | BloscCodec::Zstd
    );
    let mut blocksize = nbytes.min(if hcr { 2 * BLOCK } else { BLOCK });
    if blocksize > p.typesize {
        blocksize = blocksize / p.typesize * p.typesize;
    }
    let split = p.codec != BloscCodec::Zstd
        && p.typesize <= MAX_SPLITS
        && blocksize / p.typesize >= MIN_BUFFER;
    let (fmt, compversion) = (Format::of(p.codec), 1);
    let nblocks = nbytes.div_ceil(blocksize);
    out.clear();
    out.extend_from_slice(&[FORMAT, compversion, 0, p.typesize as u8]);
    out.extend_from_slice(&(nbytes as u32).to_le_bytes());
    out.extend_from_slice(&(blocksize as u32).to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.resize(HEADER + 4 * nblocks, 0);
    let mut flags = if split { 0 } else { DONT_SPLIT };
    flags |= (fmt as u8) << 5;
    let mut tmp = vec![0u8; blocksize];
    for (b, src) in input.chunks(blocksize).enumerate() {
        let start = out.len() as u32;
        out[HEADER + 4 * b..HEADER + 4 * b + 4].copy_from_slice(&start.to_le_bytes());
        let t = &mut tmp[..src.len()];
        flags |= shuffle_block(p.shuffle, p.typesize, src, t);
        let nsplits = if split && src.len() == blocksize {
            p.typesize
        } else {
            1
        };
        let neblock = src.len() / nsplits;
        for s in t.chunks_exact(neblock).take(nsplits) {
            push_stream(p.codec, p.level, s, out)?;
        }
        ensure!(
            out.len() <= nbytes,
            EncodeFailed,
            ID,
            "the blosc frame would be larger than the data"
        );
    }
    out[2] = flags;
    let total = out.len() as u32;
    out[12..16].copy_from_slice(&total.to_le_bytes());
    Ok(())
}

/// The Blosc codec; `set_local` stores the filter and format versions, the type size (of
/// an array's base type; 1 past 255 bytes) and the chunk size.
#[derive(Clone, Copy, Debug, Default)]
pub struct Blosc;

impl FilterCodec for Blosc {
    fn id(&self) -> FilterId {
        ID
    }
    fn name(&self) -> &str {
        "blosc"
    }
    fn set_local(&self, filter: &Filter, local: &LocalInfo<'_>) -> Result<Filter> {
        let mut cd = filter.client_data.clone();
        cd.truncate(8);
        if cd.len() < 4 {
            cd.resize(4, 0);
        }
        let base = base_type_size(ID, local)?;
        cd[0] = FILTER_REVISION;
        cd[1] = u32::from(FORMAT);
        cd[2] = if base > MAX_TYPESIZE { 1 } else { base as u32 };
        cd[3] = super::local::chunk_bytes(ID, local)?;
        params(&cd)?;
        let mut f = filter.clone();
        f.client_data = cd;
        Ok(f)
    }
    fn decode(
        &self,
        _: &Filter,
        input: &[u8],
        out: &mut Vec<u8>,
        ctx: &DecodeContext,
    ) -> Result<Step> {
        decode_frame(ID, input, Out::Vec(out), ctx.limit)?;
        Ok(Step::Replaced)
    }
    fn decode_into(
        &self,
        _: &Filter,
        input: &[u8],
        out: &mut [u8],
        ctx: &DecodeContext,
    ) -> Result<Option<usize>> {
        decode_frame(ID, input, Out::Slice(out), ctx.limit).map(Some)
    }
    fn encode(&self, f: &Filter, input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
        let p = params(&f.client_data)?;
        encode_frame(&p, input, out)?;
        Ok(Step::Replaced)
    }
}
