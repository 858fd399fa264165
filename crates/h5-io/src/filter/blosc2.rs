//! Blosc2 (filter 32026, the hdf5-blosc2 plugin hdf5plugin builds): each stored chunk is a
//! Blosc2 contiguous frame ("cframe") holding a super-chunk of Blosc2 chunks.
//!
//! Client data (after `set_local`): `[0]` filter revision (1), `[1]` block size in bytes
//! (0: chosen by Blosc2), `[2]` type size, `[3]` chunk size in bytes, `[4]` compression
//! level (0 to 9), `[5]` filter (0 none, 1 byte shuffle, 2 bit shuffle, 3 delta, 4
//! truncate precision), `[6]` compressor (0 blosclz, 1 lz4, 2 lz4hc, 4 zlib, 5 zstd), and
//! for chunks of rank 2 to 16, `[7]` the rank and `[8..]` the chunk dimensions.
//!
//! Frame (`README_CFRAME_FORMAT`): a msgpack header of fixed layout (header and frame
//! lengths, flags, sizes, the filter pipeline) followed by metalayers, the chunks, an
//! index chunk (a Blosc2 chunk of 64-bit offsets from the header's end; the top byte's
//! bit 7 marks a chunk of zeros, NaNs or uninitialized values that is not stored), and a
//! msgpack trailer. The plugin writes one chunk per frame; for ranks 2 and more it
//! writes a B2ND array (metalayer `b2nd`: shape, chunk shape and block shape) whose
//! chunk holds the blocks one after the other, each in C order and padded to the block
//! shape, which reading puts back in the array's C order.
//!
//! Chunk (`README_CHUNK_FORMAT`): a 32-byte header (version, codec format version, flags,
//! type size, then i32 LE: uncompressed size, block size, compressed size, then six
//! filter codes, the user codec, the codec's metadata, six filter metadata bytes and two
//! flag bytes: special values, dictionary, lazy, variable-length blocks), the start of
//! every block (i32 LE), and the blocks: one stream, or one per byte of the type when
//! split, each its size (i32 LE; 0: all zeros; negative: a run of one byte value) and its
//! data, stored as it is when that size is the stream's length. Filters run over each
//! block in slot order when writing and backwards when reading.
//!
//! Writing stores a plain (non-B2ND) frame of one chunk, which the plugin reads for any
//! rank; block sizes and the split follow Blosc2's defaults, the codecs' output is ours.
//! Truncate precision fails, as the plugin's does (its precision cannot be given through
//! the client data), so the optional filter is skipped for that chunk.

use h5_format::message::filter_pipeline::BloscCodec;

use super::blosc::{base_type_size, codec_and_level, decode_stream, push_stream, Format, Out};
use super::{bail, ensure, DecodeContext, Filter, FilterCodec, FilterId, LocalInfo, Result, Step};

const ID: FilterId = FilterId::BLOSC2;

/// `FILTER_BLOSC2_VERSION`.
const FILTER_REVISION: u32 = 1;
/// The largest chunk rank stored as B2ND (`BLOSC2_MAX_DIM` of the plugin's build).
const MAX_DIM: usize = 16;
/// Blosc's largest type size (larger types are compressed as bytes).
const MAX_TYPESIZE: usize = 255;

// Chunk header.
const HEADER: usize = 32;
const MIN_HEADER: usize = 16;
/// `BLOSC2_VERSION_FORMAT_STABLE`: the chunk format version written.
const VERSION: u8 = 5;
/// `BLOSC2_VERSION_FORMAT_ALPHA`: the first with the extended header.
const FIRST_VERSION: u8 = 3;
/// `BLOSC2_VERSION_FORMAT`: later versions must not use unknown features.
const LAST_VERSION: u8 = 6;
const DOSHUFFLE: u8 = 0x1;
const MEMCPYED: u8 = 0x2;
const DOBITSHUFFLE: u8 = 0x4;
const DONT_SPLIT: u8 = 0x10;
/// `blosc2_flags2` bit 0: variable-length blocks.
const VL_BLOCKS: u8 = 0x1;
/// `blosc2_flags` bits.
const USE_DICT: u8 = 0x1;
const LAZY: u8 = 0x8;
/// Filter codes.
const SHUFFLE: u8 = 1;
const BITSHUFFLE: u8 = 2;
const DELTA: u8 = 3;
const TRUNC_PREC: u8 = 4;
/// `BLOSC_MIN_BUFFERSIZE`: smaller buffers are stored as they are.
const MIN_BUFFER: usize = 32;
/// `MAX_STREAMS`: the largest type size split into streams.
const MAX_STREAMS: usize = 16;
/// `L1`: the block size unit of Blosc2's tuning.
const L1: usize = 32 * 1024;
/// `BLOSC2_MAXBLOCKSIZE`.
const MAX_BLOCKSIZE: usize = 536_866_816;
/// `BLOSC_UDCODEC_FORMAT`: the codec is in the user-defined codec byte.
const UDCODEC_FORMAT: u8 = 6;

// Frame header offsets (`frame.h`).
const FRAME_HEADER_LEN: usize = 11;
const FRAME_LEN: usize = 16;
const FRAME_FLAGS: usize = 25;
const FRAME_TYPE: usize = 26;
const FRAME_NBYTES: usize = 30;
const FRAME_CBYTES: usize = 39;
const FRAME_TYPESIZE: usize = 48;
const FRAME_CHUNKSIZE: usize = 58;
const FRAME_HEADER_MINLEN: usize = 87;
const MAGIC: &[u8; 8] = b"b2frame\0";
/// `BLOSC2_VERSION_FRAME_FORMAT`.
const FRAME_LAST_VERSION: u8 = 3;
/// `BLOSC2_VERSION_FRAME_FORMAT_RC1`: the frame format version written.
const FRAME_VERSION: u8 = 2;
/// The trailer of a frame without variable-length metalayers or fingerprint.
const TRAILER: [u8; 35] = {
    let mut t = [0u8; 35];
    let head = [
        0x94, 0x01, 0x93, 0xcd, 0x00, 0x06, 0xde, 0x00, 0x00, 0xdc, 0x00, 0x00, 0xce, 0x00, 0x00,
        0x00, 35, 0xd8, 0x00,
    ];
    let mut i = 0;
    while i < head.len() {
        t[i] = head[i];
        i += 1;
    }
    t
};

fn le32(b: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_le_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

fn be_bytes<const N: usize>(b: &[u8], at: usize) -> Option<[u8; N]> {
    b.get(at..at.checked_add(N)?)?.try_into().ok()
}

fn be32(b: &[u8], at: usize) -> Option<i32> {
    be_bytes::<4>(b, at).map(i32::from_be_bytes)
}

fn be64(b: &[u8], at: usize) -> Option<i64> {
    be_bytes::<8>(b, at).map(i64::from_be_bytes)
}

fn corrupt(what: &str) -> super::Error {
    super::Error::new(super::ErrorKind::Corrupt, ID, what.to_string())
}

/// A size field of a chunk or frame: non-negative and fitting `usize`.
fn size(v: Option<i64>, what: &str) -> Result<usize> {
    match v.map(usize::try_from) {
        Some(Ok(n)) => Ok(n),
        _ => Err(corrupt(&format!("blosc2 {what} is missing or negative"))),
    }
}

/// The unit delta coding works in: the element for 1, 2, 4 and 8 bytes, 8 bytes for other
/// multiples of 8, else bytes.
fn delta_unit(typesize: usize) -> usize {
    match typesize {
        1 | 2 | 4 | 8 => typesize,
        t if t % 8 == 0 => 8,
        _ => 1,
    }
}

/// Undo delta coding in place: block 0 (`dref` `None`) against its own previous unit,
/// other blocks against the decoded block 0.
fn undelta(block: &mut [u8], dref: Option<&[u8]>, typesize: usize) {
    let unit = delta_unit(typesize);
    let body = block.len() / unit * unit;
    match dref {
        None => {
            for i in unit..body {
                block[i] ^= block[i - unit];
            }
        }
        Some(r) => {
            for (b, r) in block[..body].iter_mut().zip(r) {
                *b ^= *r;
            }
        }
    }
}

/// Delta coding of `src` into `dst` (the inverse of [`undelta`]); `dref` is block 0.
fn delta(src: &[u8], dst: &mut [u8], dref: &[u8], first: bool, typesize: usize) {
    let unit = delta_unit(typesize);
    let body = src.len() / unit * unit;
    if first {
        dst[..unit.min(body)].copy_from_slice(&src[..unit.min(body)]);
        for i in unit..body {
            dst[i] = src[i] ^ dref[i - unit];
        }
    } else {
        for ((d, s), r) in dst[..body].iter_mut().zip(src).zip(dref) {
            *d = s ^ r;
        }
    }
    dst[body..].copy_from_slice(&src[body..]);
}

/// Bit-unshuffle a block as Blosc2 (format 3 and later) does: whole groups of 8
/// elements, the rest copied.
fn unbitshuffle(src: &[u8], dst: &mut [u8], typesize: usize) {
    let n = src.len() / typesize;
    let body = (n - n % 8) * typesize;
    super::bitshuffle::unshuffle_bits(&src[..body], &mut dst[..body], typesize);
    dst[body..].copy_from_slice(&src[body..]);
}

fn bitshuffle(src: &[u8], dst: &mut [u8], typesize: usize) {
    let n = src.len() / typesize;
    let body = (n - n % 8) * typesize;
    super::bitshuffle::shuffle_bits(&src[..body], &mut dst[..body], typesize);
    dst[body..].copy_from_slice(&src[body..]);
}

/// Decode one Blosc2 chunk (`blosc2_decompress`) into `out`, at most `limit` bytes;
/// returns its uncompressed size. Blosc 1 chunks (no extended header) are read as the
/// Blosc filter reads them.
pub(super) fn decode_chunk(src: &[u8], out: Out<'_>, limit: usize) -> Result<usize> {
    ensure!(
        src.len() >= MIN_HEADER,
        Corrupt,
        ID,
        "blosc2 chunk header is truncated"
    );
    let flags = src[2];
    if flags & (DOSHUFFLE | DOBITSHUFFLE) != DOSHUFFLE | DOBITSHUFFLE {
        return super::blosc::decode_frame(ID, src, out, limit);
    }
    ensure!(
        src.len() >= HEADER,
        Corrupt,
        ID,
        "blosc2 extended header is truncated"
    );
    let version = src[0];
    let typesize = usize::from(src[3]);
    let nbytes = size(le32(src, 4).map(i64::from), "chunk size")?;
    let mut blocksize = size(le32(src, 8).map(i64::from), "block size")?;
    let cbytes = size(le32(src, 12).map(i64::from), "compressed size")?;
    let mut filters = [0u8; 6];
    filters.copy_from_slice(&src[16..22]);
    let udcodec = src[22];
    let mut meta = [0u8; 6];
    meta.copy_from_slice(&src[24..30]);
    let (flags2, bflags) = (src[30], src[31]);
    ensure!(
        version >= FIRST_VERSION,
        Corrupt,
        ID,
        "blosc2 chunk format version {version}"
    );
    if version == FIRST_VERSION {
        filters[5] = 0;
        meta[5] = 0;
    }
    ensure!(
        version <= LAST_VERSION || flags2 & !VL_BLOCKS == 0,
        Unavailable,
        ID,
        "blosc2 chunk format version {version} with flags {flags2:#x}"
    );
    ensure!(
        cbytes >= HEADER && cbytes <= src.len(),
        Corrupt,
        ID,
        "blosc2 chunk of {cbytes} bytes in {} bytes",
        src.len()
    );
    ensure!(
        nbytes <= limit,
        LimitExceeded,
        ID,
        "blosc2 chunk declares {nbytes} bytes, more than {limit}"
    );
    ensure!(
        flags2 & VL_BLOCKS == 0,
        Unavailable,
        ID,
        "blosc2 chunks of variable-length blocks"
    );
    let src = &src[..cbytes];
    let Some(out) = out.sized(nbytes) else {
        return Ok(nbytes);
    };
    if nbytes == 0 {
        return Ok(0);
    }
    match (bflags >> 4) & 7 {
        0 => {}
        // Zeros, and uninitialized values (which the reference leaves as they are).
        1 | 4 => {
            out.fill(0);
            return Ok(nbytes);
        }
        2 => {
            let nan: &[u8] = match typesize {
                4 => &f32::NAN.to_le_bytes(),
                8 => &f64::NAN.to_le_bytes(),
                t => bail!(Corrupt, ID, "blosc2 NaN chunk of type size {t}"),
            };
            ensure!(
                nbytes % typesize == 0,
                Corrupt,
                ID,
                "blosc2 NaN chunk of {nbytes} bytes"
            );
            for e in out.chunks_exact_mut(typesize) {
                e.copy_from_slice(nan);
            }
            return Ok(nbytes);
        }
        3 => {
            let ts = cbytes - HEADER;
            ensure!(
                ts > 0 && ts <= nbytes && nbytes % ts == 0,
                Corrupt,
                ID,
                "blosc2 repeated value of {ts} bytes for {nbytes} bytes"
            );
            let value = &src[HEADER..];
            for e in out.chunks_exact_mut(ts) {
                e.copy_from_slice(value);
            }
            return Ok(nbytes);
        }
        s => bail!(Corrupt, ID, "blosc2 special value kind {s}"),
    }
    ensure!(
        bflags & LAZY == 0,
        Corrupt,
        ID,
        "lazy blosc2 chunk inside a frame in memory"
    );
    ensure!(typesize > 0, Corrupt, ID, "blosc2 type size 0");
    ensure!(
        blocksize > 0 && blocksize <= MAX_BLOCKSIZE,
        Corrupt,
        ID,
        "blosc2 block size {blocksize}"
    );
    blocksize = blocksize.min(nbytes);
    if flags & MEMCPYED != 0 {
        ensure!(
            cbytes == nbytes + HEADER,
            Corrupt,
            ID,
            "stored blosc2 chunk of {cbytes} bytes for {nbytes}"
        );
        out.copy_from_slice(&src[HEADER..]);
        return Ok(nbytes);
    }
    ensure!(
        bflags & USE_DICT == 0,
        Unavailable,
        ID,
        "blosc2 chunks compressed with a dictionary"
    );
    let fmt = match Format::from_flags(flags) {
        Some(f) => f,
        None if flags >> 5 == UDCODEC_FORMAT => {
            bail!(Unavailable, ID, "blosc2 user-defined codec {udcodec}")
        }
        None => bail!(Unavailable, ID, "blosc2 codec format {}", flags >> 5),
    };
    for &f in &filters {
        ensure!(
            f <= TRUNC_PREC,
            Unavailable,
            ID,
            "blosc2 user-defined filter {f}"
        );
    }
    let nblocks = nbytes.div_ceil(blocksize);
    let leftover = nbytes % blocksize;
    ensure!(
        nblocks.checked_mul(4).is_some_and(|n| HEADER + n <= cbytes),
        Corrupt,
        ID,
        "blosc2 block starts are truncated"
    );
    // The filters undone, last applied first: those that move bytes (shuffles) go from
    // one buffer to another, the last of them into the block's place in `out`; the
    // streams go there directly when no filter moves bytes.
    let undo: Vec<(u8, usize)> = (0..6)
        .rev()
        .filter_map(|i| match filters[i] {
            SHUFFLE => {
                let group = if meta[i] == 0 {
                    typesize
                } else {
                    usize::from(meta[i])
                };
                (group > 1).then_some((SHUFFLE, group))
            }
            BITSHUFFLE => Some((BITSHUFFLE, typesize)),
            DELTA => Some((DELTA, typesize)),
            // Truncating precision is not undone.
            _ => None,
        })
        .collect();
    let moves = undo.iter().filter(|(f, _)| *f != DELTA).count();
    let scratch = if moves == 0 { 0 } else { blocksize };
    let ping = if moves > 1 { blocksize } else { 0 };
    super::scratch::with(scratch, ping, |a, b| {
        for j in 0..nblocks {
            let start = le32(src, HEADER + 4 * j).unwrap_or(0);
            ensure!(
                start > 0 && (start as usize) < cbytes,
                Corrupt,
                ID,
                "blosc2 block {j} starts at {start}"
            );
            let partial = j == nblocks - 1 && leftover > 0;
            let bsize = if partial { leftover } else { blocksize };
            let nstreams = if flags & DONT_SPLIT == 0 && !partial {
                typesize
            } else {
                1
            };
            ensure!(
                bsize % nstreams == 0,
                Corrupt,
                ID,
                "blosc2 block of {bsize} bytes in {nstreams} streams"
            );
            let neblock = bsize / nstreams;
            // Block 0, decoded already, is what delta coding refers to.
            let at = j * blocksize;
            let (done, rest) = out.split_at_mut(at);
            let dref = (j > 0).then_some(&done[..]);
            let place = &mut rest[..bsize];
            let streams: &mut [u8] = if moves == 0 {
                &mut *place
            } else {
                &mut a[..bsize]
            };
            decode_streams(src, start as usize, fmt, streams, neblock)?;
            let (mut cur, mut other) = (&mut a[..], &mut b[..]);
            let mut left = moves;
            for &(f, group) in &undo {
                if f == DELTA {
                    let x = if left == 0 {
                        &mut *place
                    } else {
                        &mut cur[..bsize]
                    };
                    undelta(x, dref, typesize);
                    continue;
                }
                left -= 1;
                let y = if left == 0 {
                    &mut *place
                } else {
                    &mut other[..bsize]
                };
                if f == SHUFFLE {
                    super::shuffle::unshuffle(&cur[..bsize], y, group);
                } else {
                    unbitshuffle(&cur[..bsize], y, group);
                }
                std::mem::swap(&mut cur, &mut other);
            }
        }
        Ok(())
    })?;
    Ok(nbytes)
}

/// Decode the streams of a block starting at `pos` of `src` into `dst`, each `neblock`
/// bytes.
fn decode_streams(
    src: &[u8],
    mut pos: usize,
    fmt: Format,
    dst: &mut [u8],
    neblock: usize,
) -> Result<()> {
    for dst in dst.chunks_exact_mut(neblock) {
        let Some(csize) = le32(src, pos) else {
            bail!(Corrupt, ID, "blosc2 stream header at {pos} is truncated");
        };
        pos += 4;
        if csize == 0 {
            dst.fill(0);
        } else if csize < 0 {
            let Some(&token) = src.get(pos) else {
                bail!(Corrupt, ID, "blosc2 stream token at {pos} is truncated");
            };
            pos += 1;
            ensure!(
                token & 1 != 0 && csize >= -255,
                Corrupt,
                ID,
                "blosc2 stream token {token:#x} with size {csize}"
            );
            dst.fill((-csize) as u8);
        } else {
            let n = csize as usize;
            let Some(stream) = src.get(pos..pos + n) else {
                bail!(
                    Corrupt,
                    ID,
                    "blosc2 stream at {pos} passes the end of the chunk"
                );
            };
            if n == neblock {
                dst.copy_from_slice(stream);
            } else {
                decode_stream(ID, fmt, stream, dst)?;
            }
            pos += n;
        }
    }
    Ok(())
}

/// A B2ND array's layout (the `b2nd` metalayer).
struct NdLayout {
    shape: Vec<usize>,
    chunk: Vec<usize>,
    block: Vec<usize>,
}

/// Parse the `b2nd` (or older `caterva`) metalayer content.
fn parse_nd(m: &[u8]) -> Result<NdLayout> {
    let bad = || corrupt("blosc2 b2nd metalayer is malformed");
    let ndim = usize::from(*m.get(2).ok_or_else(bad)?);
    ensure!(
        (1..=MAX_DIM).contains(&ndim),
        Corrupt,
        ID,
        "b2nd array of rank {ndim}"
    );
    let mut pos = 3;
    let mut list = |marker: u8, width: usize| -> Result<Vec<usize>> {
        // The array marker is `0x90 + ndim`, whatever msgpack would say past 15.
        ensure!(
            m.get(pos) == Some(&0x90u8.wrapping_add(ndim as u8)),
            Corrupt,
            ID,
            "b2nd metalayer array at {pos}"
        );
        pos += 1;
        let mut v = Vec::with_capacity(ndim);
        for _ in 0..ndim {
            ensure!(
                m.get(pos) == Some(&marker),
                Corrupt,
                ID,
                "b2nd metalayer value at {pos}"
            );
            let x = if width == 8 {
                be64(m, pos + 1)
            } else {
                be32(m, pos + 1).map(i64::from)
            };
            v.push(size(x, "b2nd dimension")?);
            pos += 1 + width;
        }
        Ok(v)
    };
    let shape = list(0xd3, 8)?;
    let chunk = list(0xd2, 4)?;
    let block = list(0xd2, 4)?;
    for i in 0..ndim {
        ensure!(
            chunk[i] > 0 && block[i] > 0 && block[i] <= chunk[i],
            Corrupt,
            ID,
            "b2nd dimension {i}: chunk {}, block {}",
            chunk[i],
            block[i]
        );
    }
    Ok(NdLayout {
        shape,
        chunk,
        block,
    })
}

/// The content of metalayer `b2nd` (or `caterva`) of the header, if any.
fn nd_meta(frame: &[u8], header_len: usize) -> Result<Option<&[u8]>> {
    let h = &frame[..header_len];
    let bad = || corrupt("blosc2 frame metalayers are malformed");
    let at = FRAME_HEADER_MINLEN;
    if h.len() < at + 7 {
        return Ok(None);
    }
    ensure!(
        h[at] == 0x93 && h[at + 1] == 0xcd && h[at + 4] == 0xde,
        Corrupt,
        ID,
        "blosc2 frame metalayers at {at}"
    );
    let n = usize::from(u16::from_be_bytes([h[at + 5], h[at + 6]]));
    let mut pos = at + 7;
    for _ in 0..n {
        let marker = *h.get(pos).ok_or_else(bad)?;
        ensure!(
            marker & 0xe0 == 0xa0,
            Corrupt,
            ID,
            "blosc2 metalayer name at {pos}"
        );
        let len = usize::from(marker & 0x1f);
        let name = h.get(pos + 1..pos + 1 + len).ok_or_else(bad)?;
        pos += 1 + len;
        ensure!(
            h.get(pos) == Some(&0xd2),
            Corrupt,
            ID,
            "blosc2 metalayer offset at {pos}"
        );
        let off = size(be32(h, pos + 1).map(i64::from), "metalayer offset")?;
        pos += 5;
        if name == b"b2nd" || name == b"caterva" {
            ensure!(
                h.get(off) == Some(&0xc6),
                Corrupt,
                ID,
                "blosc2 metalayer content at {off}"
            );
            let clen = size(be32(h, off + 1).map(i64::from), "metalayer length")?;
            let content = h.get(off + 5..off + 5 + clen).ok_or_else(bad)?;
            return Ok(Some(content));
        }
    }
    Ok(None)
}

/// Decode a Blosc2 frame as the plugin does into `out`, at most `limit` bytes: a B2ND
/// array in C order, or else the frame's first chunk. Returns the decoded size.
pub(super) fn decode_frame(input: &[u8], out: Out<'_>, limit: usize) -> Result<usize> {
    ensure!(
        input.len() >= FRAME_HEADER_MINLEN
            && input[0] & 0xf0 == 0x90
            && input[1] == 0xa8
            && &input[2..10] == MAGIC,
        Corrupt,
        ID,
        "not a blosc2 frame"
    );
    let header_len = size(
        be32(input, FRAME_HEADER_LEN).map(i64::from),
        "header length",
    )?;
    let frame_len = size(be64(input, FRAME_LEN), "frame length")?;
    ensure!(
        header_len >= FRAME_HEADER_MINLEN && header_len <= frame_len && frame_len <= input.len(),
        Corrupt,
        ID,
        "blosc2 frame of {frame_len} bytes (header {header_len}) in {} bytes",
        input.len()
    );
    let frame = &input[..frame_len];
    let general = frame[FRAME_FLAGS];
    ensure!(
        general & 0x0f <= FRAME_LAST_VERSION,
        Unavailable,
        ID,
        "blosc2 frame format version {}",
        general & 0x0f
    );
    ensure!(
        (general >> 4) & 3 == 1,
        Unavailable,
        ID,
        "blosc2 frame offsets of other than 64 bits"
    );
    ensure!(
        frame[FRAME_TYPE] & 0x0f == 0,
        Unavailable,
        ID,
        "blosc2 frame type {} (only contiguous frames)",
        frame[FRAME_TYPE]
    );
    let nbytes = size(be64(frame, FRAME_NBYTES), "frame size")?;
    let cbytes = size(be64(frame, FRAME_CBYTES), "compressed frame size")?;
    let typesize = size(be32(frame, FRAME_TYPESIZE).map(i64::from), "type size")?;
    let chunksize = size(be32(frame, FRAME_CHUNKSIZE).map(i64::from), "chunk size")?;
    let data_end = header_len
        .checked_add(cbytes)
        .filter(|&e| e <= frame_len)
        .ok_or_else(|| corrupt("blosc2 chunks pass the end of the frame"))?;
    // The index: one offset per chunk.
    let declared = if nbytes == 0 {
        0
    } else if chunksize > 0 {
        nbytes.div_ceil(chunksize)
    } else {
        usize::MAX
    };
    let mut index = Vec::new();
    if declared > 0 {
        let bound = declared.min(limit.saturating_add(1)).saturating_mul(8);
        decode_chunk(&frame[data_end..], Out::Vec(&mut index), bound)?;
        ensure!(
            index.len() % 8 == 0 && (declared == usize::MAX || index.len() == declared * 8),
            Corrupt,
            ID,
            "blosc2 index of {} bytes for {declared} chunks",
            index.len()
        );
    }
    let offsets: Vec<i64> = index
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect();
    let chunk = |i: usize, out: Out<'_>, limit: usize| -> Result<usize> {
        let off = offsets[i];
        if off < 0 {
            let kind = (off as u64 >> 56) & 0x7;
            let n = if chunksize == 0 {
                bail!(Corrupt, ID, "special blosc2 chunk without a chunk size");
            } else if i == offsets.len() - 1 && nbytes % chunksize != 0 {
                nbytes % chunksize
            } else {
                chunksize
            };
            ensure!(
                n <= limit,
                LimitExceeded,
                ID,
                "blosc2 chunk of {n} bytes, more than {limit}"
            );
            let Some(out) = out.sized(n) else {
                return Ok(n);
            };
            match kind {
                1 | 4 => out.fill(0),
                2 => {
                    let nan: &[u8] = match typesize {
                        4 => &f32::NAN.to_le_bytes(),
                        8 => &f64::NAN.to_le_bytes(),
                        t => bail!(Corrupt, ID, "blosc2 NaN chunk of type size {t}"),
                    };
                    for e in out.chunks_exact_mut(typesize) {
                        e.copy_from_slice(nan);
                    }
                }
                k => bail!(Corrupt, ID, "blosc2 special chunk kind {k}"),
            }
            return Ok(n);
        }
        let at = (off as usize).checked_add(header_len);
        let Some(data) = at.and_then(|a| frame.get(a..data_end)) else {
            bail!(
                Corrupt,
                ID,
                "blosc2 chunk {i} at offset {off} is outside the frame"
            );
        };
        decode_chunk(data, out, limit)
    };
    let Some(meta) = nd_meta(frame, header_len)? else {
        if offsets.is_empty() {
            out.sized(0);
            return Ok(0);
        }
        return chunk(0, out, limit);
    };
    let nd = parse_nd(meta)?;
    ensure!(typesize > 0, Corrupt, ID, "blosc2 type size 0");
    let total = nd
        .shape
        .iter()
        .try_fold(typesize, |a, &d| a.checked_mul(d))
        .filter(|&t| t <= limit);
    let Some(total) = total else {
        bail!(LimitExceeded, ID, "b2nd array larger than {limit} bytes");
    };
    let Some(out) = out.sized(total) else {
        return Ok(total);
    };
    if total == 0 {
        return Ok(0);
    }
    let ndim = nd.shape.len();
    let grid: Vec<usize> = (0..ndim)
        .map(|i| nd.shape[i].div_ceil(nd.chunk[i]))
        .collect();
    let ext: Vec<usize> = (0..ndim)
        .map(|i| nd.chunk[i].div_ceil(nd.block[i]) * nd.block[i])
        .collect();
    let bgrid: Vec<usize> = (0..ndim).map(|i| ext[i] / nd.block[i]).collect();
    let block_items: usize = nd.block.iter().product();
    let ext_bytes = ext
        .iter()
        .try_fold(typesize, |a, &d| a.checked_mul(d))
        .filter(|&t| t <= limit.saturating_mul(2).saturating_add(1 << 20));
    let Some(ext_bytes) = ext_bytes else {
        bail!(LimitExceeded, ID, "b2nd chunk larger than the array allows");
    };
    let nchunks: usize = grid.iter().product();
    ensure!(
        nchunks <= offsets.len(),
        Corrupt,
        ID,
        "b2nd array of {nchunks} chunks in a frame of {}",
        offsets.len()
    );
    // C-order strides of the array, in bytes.
    let mut stride = vec![typesize; ndim];
    for i in (0..ndim - 1).rev() {
        stride[i] = stride[i + 1] * nd.shape[i + 1];
    }
    let mut buf = Vec::new();
    let last = ndim - 1;
    for c in 0..nchunks {
        chunk(c, Out::Vec(&mut buf), ext_bytes)?;
        ensure!(
            buf.len() == ext_bytes,
            Corrupt,
            ID,
            "b2nd chunk {c} has {} bytes, expected {ext_bytes}",
            buf.len()
        );
        let corner = unravel(c, &grid);
        for (bi, block) in buf.chunks_exact(block_items * typesize).enumerate() {
            let bpos = unravel(bi, &bgrid);
            // Each row along the last dimension of the block.
            let rows = block_items / nd.block[last];
            for r in 0..rows {
                let mut rpos = unravel(r, &nd.block[..last]);
                rpos.push(0);
                let mut at = 0;
                let mut inside = true;
                for i in 0..ndim {
                    let in_chunk = bpos[i] * nd.block[i] + rpos[i];
                    let g = corner[i] * nd.chunk[i] + in_chunk;
                    if in_chunk >= nd.chunk[i] || g >= nd.shape[i] {
                        inside = false;
                        break;
                    }
                    at += g * stride[i];
                }
                if !inside {
                    continue;
                }
                let start_last = bpos[last] * nd.block[last];
                let g_last = corner[last] * nd.chunk[last] + start_last;
                let n = nd.block[last]
                    .min(nd.chunk[last] - start_last)
                    .min(nd.shape[last] - g_last);
                let from = r * nd.block[last] * typesize;
                out[at..at + n * typesize].copy_from_slice(&block[from..from + n * typesize]);
            }
        }
    }
    Ok(total)
}

/// The C-order coordinates of linear index `i` in a grid of `dims`.
fn unravel(mut i: usize, dims: &[usize]) -> Vec<usize> {
    let mut v = vec![0; dims.len()];
    for k in (0..dims.len()).rev() {
        v[k] = i % dims[k];
        i /= dims[k];
    }
    v
}

/// The compression parameters of the client data.
struct Params {
    blocksize: usize,
    typesize: usize,
    level: u32,
    filter: u8,
    codec: BloscCodec,
}

fn params(cd: &[u32]) -> Result<Params> {
    let typesize = cd.get(2).copied().unwrap_or(1).max(1) as usize;
    let (codec, level) = codec_and_level(ID, cd)?;
    let filter = cd.get(5).copied().unwrap_or(1);
    ensure!(
        filter <= u32::from(TRUNC_PREC),
        InvalidParameters,
        ID,
        "blosc2 filter {filter} (0 to 4)"
    );
    Ok(Params {
        blocksize: cd.get(1).copied().unwrap_or(0) as usize,
        typesize: if typesize > MAX_TYPESIZE { 1 } else { typesize },
        level,
        filter: filter as u8,
        codec,
    })
}

impl Params {
    /// `split_block` in its forward-compatible mode.
    fn split(&self, blocksize: usize) -> bool {
        let fast = match self.codec {
            BloscCodec::BloscLz | BloscCodec::Lz4 => true,
            BloscCodec::Zstd => self.level <= 5,
            _ => false,
        };
        fast && self.filter == SHUFFLE
            && self.typesize <= MAX_STREAMS
            && blocksize / self.typesize >= MIN_BUFFER
    }

    /// `blosc_stune_next_blocksize`.
    fn blocksize(&self, nbytes: usize) -> usize {
        let ts = self.typesize;
        if nbytes < ts {
            return 1;
        }
        let mut bs = nbytes;
        if self.blocksize > 0 {
            bs = self.blocksize;
        } else {
            let hcr = matches!(
                self.codec,
                BloscCodec::Lz4Hc | BloscCodec::Zlib | BloscCodec::Zstd
            );
            if nbytes >= L1 {
                bs = if hcr { 2 * L1 } else { L1 };
                bs = match self.level {
                    0 => bs / 4,
                    1 => bs / 2,
                    2 => bs,
                    3 => bs * 2,
                    4 | 5 => bs * 4,
                    6..=8 => bs * 8,
                    _ => bs * if hcr { 16 } else { 8 },
                };
            }
            if self.level > 0 && self.split(nbytes) {
                let k = match self.level {
                    1..=3 => 32,
                    4..=6 => 64,
                    7 => 128,
                    8 => 256,
                    _ => 512,
                };
                bs = (k * 1024 * ts).clamp(32 * 1024, 4 * 1024 * 1024);
            }
        }
        bs = bs.min(nbytes);
        if bs > ts {
            bs = bs / ts * ts;
        }
        bs.max(1)
    }
}

/// The 32-byte extended header of a chunk.
fn chunk_header(p: &Params, flags: u8, nbytes: usize, blocksize: usize) -> Vec<u8> {
    let mut h = Vec::with_capacity(HEADER);
    h.extend_from_slice(&[VERSION, 1, flags, p.typesize as u8]);
    h.extend_from_slice(&(nbytes as u32).to_le_bytes());
    h.extend_from_slice(&(blocksize as u32).to_le_bytes());
    h.extend_from_slice(&[0; 4]);
    h.extend_from_slice(&[0, 0, 0, 0, 0, p.filter, p.codec as u8, 0]);
    h.extend_from_slice(&[0; 8]);
    h
}

/// The chunk stored as it is (`BLOSC_MEMCPYED`).
fn stored_chunk(p: &Params, input: &[u8], blocksize: usize) -> Vec<u8> {
    let flags = DOSHUFFLE | DOBITSHUFFLE | MEMCPYED;
    let mut c = chunk_header(p, flags, input.len(), blocksize);
    c.extend_from_slice(input);
    let n = c.len() as u32;
    c[12..16].copy_from_slice(&n.to_le_bytes());
    c
}

/// Compress `input` as one Blosc2 chunk (`blosc2_compress_ctx`).
fn encode_chunk(p: &Params, input: &[u8]) -> Result<Vec<u8>> {
    let nbytes = input.len();
    ensure!(
        nbytes <= i32::MAX as usize - HEADER,
        EncodeFailed,
        ID,
        "blosc2 compresses at most 2 GiB"
    );
    ensure!(
        p.filter != TRUNC_PREC,
        EncodeFailed,
        ID,
        "truncating precision needs a precision the client data cannot give"
    );
    let blocksize = p.blocksize(nbytes);
    if p.level == 0 || nbytes < MIN_BUFFER {
        return Ok(stored_chunk(p, input, blocksize));
    }
    let split = p.split(blocksize);
    let fmt = Format::of(p.codec);
    let mut flags = DOSHUFFLE | DOBITSHUFFLE | (fmt as u8) << 5;
    if !split {
        flags |= DONT_SPLIT;
    }
    let ts = p.typesize;
    let nblocks = nbytes.div_ceil(blocksize);
    let mut out = chunk_header(p, flags, nbytes, blocksize);
    out.resize(HEADER + 4 * nblocks, 0);
    let mut tmp = vec![0u8; blocksize];
    for (j, src) in input.chunks(blocksize).enumerate() {
        let start = out.len() as u32;
        out[HEADER + 4 * j..HEADER + 4 * j + 4].copy_from_slice(&start.to_le_bytes());
        let t = &mut tmp[..src.len()];
        let data: &[u8] = match p.filter {
            SHUFFLE if ts > 1 => {
                super::shuffle::shuffle(src, t, ts);
                t
            }
            BITSHUFFLE => {
                bitshuffle(src, t, ts);
                t
            }
            DELTA => {
                delta(src, t, &input[..blocksize], j == 0, ts);
                t
            }
            _ => src,
        };
        let nstreams = if split && src.len() == blocksize {
            ts
        } else {
            1
        };
        for s in data.chunks_exact(src.len() / nstreams) {
            if let Some(&b0) = s.first().filter(|&&b0| s.iter().all(|&b| b == b0)) {
                if b0 == 0 {
                    out.extend_from_slice(&0i32.to_le_bytes());
                } else {
                    out.extend_from_slice(&(-i32::from(b0)).to_le_bytes());
                    out.push(1);
                }
                continue;
            }
            push_stream(p.codec, p.level, s, &mut out)?;
        }
        if out.len() > nbytes + HEADER {
            return Ok(stored_chunk(p, input, blocksize));
        }
    }
    let n = out.len() as u32;
    out[12..16].copy_from_slice(&n.to_le_bytes());
    Ok(out)
}

/// Encode `input` as a frame of one chunk (`blosc2_schunk_append_buffer` then
/// `blosc2_schunk_to_buffer`).
fn encode_frame(p: &Params, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let chunk = encode_chunk(p, input)?;
    let blocksize = le32(&chunk, 8).unwrap_or(0);
    let o = out;
    o.clear();
    o.push(0x9e);
    o.push(0xa8);
    o.extend_from_slice(MAGIC);
    o.push(0xd2);
    o.extend_from_slice(&[0; 4]);
    o.push(0xcf);
    o.extend_from_slice(&[0; 8]);
    o.push(0xa4);
    let code = p.codec as u8;
    // Version, 64-bit offsets; contiguous; codec and level; split mode (forward-compatible).
    o.extend_from_slice(&[FRAME_VERSION | 0x10, 0, code | (p.level as u8) << 4, 3]);
    o.push(0xd3);
    o.extend_from_slice(&(input.len() as i64).to_be_bytes());
    o.push(0xd3);
    o.extend_from_slice(&(chunk.len() as i64).to_be_bytes());
    o.push(0xd2);
    o.extend_from_slice(&(p.typesize as i32).to_be_bytes());
    o.push(0xd2);
    o.extend_from_slice(&blocksize.to_be_bytes());
    o.push(0xd2);
    o.extend_from_slice(&(input.len() as i32).to_be_bytes());
    o.extend_from_slice(&[0xd1, 0, 1, 0xd1, 0, 1, 0xc2, 0xd8, 6]);
    o.extend_from_slice(&[0, 0, 0, 0, 0, p.filter, code, 0]);
    o.extend_from_slice(&[0; 8]);
    debug_assert_eq!(o.len(), FRAME_HEADER_MINLEN);
    // No metalayers.
    o.extend_from_slice(&[0x93, 0xcd, 0x00, 0x07, 0xde, 0x00, 0x00, 0xdc, 0x00, 0x00]);
    let header_len = o.len() as i32;
    o[FRAME_HEADER_LEN..FRAME_HEADER_LEN + 4].copy_from_slice(&header_len.to_be_bytes());
    o.extend_from_slice(&chunk);
    // The index: chunk 0 at offset 0, a stored chunk of one 8-byte item.
    let index = Params {
        blocksize: 0,
        typesize: 8,
        level: 0,
        filter: SHUFFLE,
        codec: BloscCodec::BloscLz,
    };
    o.extend_from_slice(&stored_chunk(&index, &0u64.to_le_bytes(), 8));
    o.extend_from_slice(&TRAILER);
    let frame_len = o.len() as u64;
    o[FRAME_LEN..FRAME_LEN + 8].copy_from_slice(&frame_len.to_be_bytes());
    Ok(())
}

/// The Blosc2 codec; `set_local` stores what the plugin's does.
#[derive(Clone, Copy, Debug, Default)]
pub struct Blosc2;

impl FilterCodec for Blosc2 {
    fn id(&self) -> FilterId {
        ID
    }
    fn name(&self) -> &str {
        "blosc2"
    }
    fn set_local(&self, filter: &Filter, local: &LocalInfo<'_>) -> Result<Filter> {
        let mut cd = filter.client_data.clone();
        cd.truncate(8 + MAX_DIM);
        let given = cd.len().max(4);
        cd.resize(given, 0);
        let base = base_type_size(ID, local)?;
        cd[0] = FILTER_REVISION;
        cd[2] = super::local::to_u32(base, ID, "type size")?;
        cd[3] = super::local::chunk_bytes(ID, local)?;
        let rank = local.chunk_dims.len();
        if (2..=MAX_DIM).contains(&rank) {
            let defaults = [5, 1, 0];
            for (k, d) in defaults.into_iter().enumerate() {
                if given < 5 + k {
                    cd.resize(5 + k, 0);
                    cd[4 + k] = d;
                }
            }
            cd.truncate(7);
            cd.push(rank as u32);
            for &d in local.chunk_dims {
                cd.push(super::local::to_u32(d as usize, ID, "chunk dimension")?);
            }
        }
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
        decode_frame(input, Out::Vec(out), ctx.limit)?;
        Ok(Step::Replaced)
    }
    fn decode_into(
        &self,
        _: &Filter,
        input: &[u8],
        out: &mut [u8],
        ctx: &DecodeContext,
    ) -> Result<Option<usize>> {
        decode_frame(input, Out::Slice(out), ctx.limit).map(Some)
    }
    fn encode(&self, f: &Filter, input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
        let p = params(&f.client_data)?;
        encode_frame(&p, input, out)?;
        Ok(Step::Replaced)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(cd: &[u32], data: &[u8]) {
        let p = params(cd).unwrap();
        let mut frame = Vec::new();
        encode_frame(&p, data, &mut frame).unwrap();
        let mut back = Vec::new();
        decode_frame(&frame, Out::Vec(&mut back), data.len()).unwrap();
        assert_eq!(back, data, "{cd:?}");
    }

    #[test]
    fn every_codec_and_filter_round_trips() {
        let data: Vec<u8> = (0..70_000u32)
            .flat_map(|i| ((i * 7 / 3) % 251).to_le_bytes())
            .collect();
        for codec in [0, 1, 2, 4, 5] {
            for filter in 0..=3 {
                for level in [0, 1, 5, 9] {
                    for ts in [1, 4, 8] {
                        roundtrip(&[1, 0, ts, 0, level, filter, codec], &data);
                        roundtrip(&[1, 0, ts, 0, level, filter, codec], &data[..1001]);
                        roundtrip(&[1, 0, ts, 0, level, filter, codec], &data[..20]);
                    }
                }
            }
        }
        roundtrip(&[1, 4096, 4, 0, 5, 1, 1], &data);
        roundtrip(&[1, 0, 4, 0, 5, 1, 1], &[]);
    }

    #[test]
    fn truncating_precision_fails_to_encode() {
        let p = params(&[1, 0, 4, 0, 5, 4, 0]).unwrap();
        let e = encode_frame(&p, &[0; 400], &mut Vec::new()).unwrap_err();
        assert_eq!(e.kind(), super::super::ErrorKind::EncodeFailed);
    }

    #[test]
    fn declared_sizes_past_the_limit_fail_before_allocating() {
        let p = params(&[1, 0, 4, 0, 5, 1, 1]).unwrap();
        let mut frame = Vec::new();
        encode_frame(&p, &[7; 4000], &mut frame).unwrap();
        let e = decode_frame(&frame, Out::Vec(&mut Vec::new()), 100).unwrap_err();
        assert_eq!(e.kind(), super::super::ErrorKind::LimitExceeded);
        for cut in [0, 10, 90, 100, frame.len() - 1] {
            assert!(decode_frame(&frame[..cut], Out::Vec(&mut Vec::new()), 4000).is_err());
        }
    }
}
