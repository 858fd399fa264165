//! LZ4 (filter 32004, the HDF5 LZ4 plugin): the chunk is split into blocks, each compressed
//! as an LZ4 block (compressed by `lz4_flex`, decoded by [`block`]).
//!
//! Stored chunk: the uncompressed size (u64, big-endian), the block size (u32, big-endian),
//! then per block its stored size (u32, big-endian) and its bytes: LZ4 block data, or the
//! block as it is when its stored size equals the block size (compression saved nothing).
//! Client data 0 is the block size in bytes, 0 for the default (1 GiB); the last block may
//! be shorter.

use super::{bail, ensure, DecodeContext, Filter, FilterCodec, FilterId, Result, Step};

mod block;

const ID: FilterId = FilterId::LZ4;

/// The plugin's default block size (`DEFAULT_BLOCK_SIZE`).
const DEFAULT_BLOCK: usize = 1 << 30;

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// Decompress one LZ4 block of exactly `out.len()` bytes.
pub(super) fn decompress_block(id: FilterId, input: &[u8], out: &mut [u8]) -> Result<()> {
    match block::decompress_into(input, out) {
        Ok(n) if n == out.len() => Ok(()),
        Ok(n) => bail!(
            Corrupt,
            id,
            "lz4 block decodes to {n} bytes, expected {}",
            out.len()
        ),
        Err(e) => bail!(Corrupt, id, "lz4 block: {e}"),
    }
}

/// Compress one LZ4 block.
pub(super) fn compress_block(input: &[u8]) -> Vec<u8> {
    lz4_flex::block::compress(input)
}

/// The chunk's header: its uncompressed size (at most `limit`) and block size.
fn header(input: &[u8], limit: usize) -> Result<(usize, usize)> {
    ensure!(input.len() >= 12, Corrupt, ID, "lz4 header is truncated");
    let mut head = [0u8; 8];
    head.copy_from_slice(&input[..8]);
    let orig = u64::from_be_bytes(head);
    ensure!(
        orig <= limit as u64,
        LimitExceeded,
        ID,
        "lz4 chunk declares {orig} bytes, more than {limit}"
    );
    let orig = orig as usize;
    let block = (be32(input, 8).unwrap_or(0) as usize).min(orig);
    ensure!(
        block > 0 || orig == 0,
        Corrupt,
        ID,
        "lz4 block size 0 for {orig} bytes"
    );
    Ok((orig, block))
}

/// Decode the blocks after the header into `out` (the uncompressed size), `block` bytes
/// each but the last.
fn decode_blocks(input: &[u8], block: usize, out: &mut [u8]) -> Result<()> {
    let mut pos = 12;
    for dst in out.chunks_mut(block.max(1)) {
        let n = dst.len();
        let Some(stored) = be32(input, pos) else {
            bail!(Corrupt, ID, "lz4 block header at {pos} is truncated");
        };
        pos += 4;
        let stored = stored as usize;
        let Some(src) = input.get(pos..pos.saturating_add(stored)) else {
            bail!(Corrupt, ID, "lz4 block at {pos} passes the end of the data");
        };
        if stored == n {
            dst.copy_from_slice(src);
        } else {
            decompress_block(ID, src, dst)?;
        }
        pos += stored;
    }
    Ok(())
}

fn decode(input: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<()> {
    let (orig, block) = header(input, limit)?;
    out.clear();
    out.resize(orig, 0);
    decode_blocks(input, block, out)
}

/// [`decode`] straight into `out`, the caller's memory for the whole chunk: a chunk that
/// declares more than `out` holds is an error; one that declares less is decoded into the
/// start of `out`, its size returned for the pipeline to reject.
fn decode_into(input: &[u8], out: &mut [u8]) -> Result<usize> {
    let (orig, block) = header(input, out.len())?;
    decode_blocks(input, block, &mut out[..orig])?;
    Ok(orig)
}

fn encode(cd: &[u32], input: &[u8], out: &mut Vec<u8>) -> Result<()> {
    ensure!(
        input.len() <= i32::MAX as usize,
        EncodeFailed,
        ID,
        "lz4 compresses chunks of at most 2 GiB"
    );
    let block = match cd.first() {
        Some(&b) if b > 0 => b as usize,
        _ => DEFAULT_BLOCK,
    }
    .min(input.len());
    out.clear();
    out.extend_from_slice(&(input.len() as u64).to_be_bytes());
    out.extend_from_slice(&(block as u32).to_be_bytes());
    if block == 0 {
        return Ok(());
    }
    for src in input.chunks(block) {
        let c = compress_block(src);
        if c.len() >= src.len() {
            out.extend_from_slice(&(src.len() as u32).to_be_bytes());
            out.extend_from_slice(src);
        } else {
            out.extend_from_slice(&(c.len() as u32).to_be_bytes());
            out.extend_from_slice(&c);
        }
    }
    Ok(())
}

/// The LZ4 codec.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lz4;

impl FilterCodec for Lz4 {
    fn id(&self) -> FilterId {
        ID
    }
    fn name(&self) -> &str {
        "lz4"
    }
    fn decode(
        &self,
        _: &Filter,
        input: &[u8],
        out: &mut Vec<u8>,
        ctx: &DecodeContext,
    ) -> Result<Step> {
        decode(input, out, ctx.limit)?;
        Ok(Step::Replaced)
    }
    fn decode_into(
        &self,
        _: &Filter,
        input: &[u8],
        out: &mut [u8],
        _: &DecodeContext,
    ) -> Result<Option<usize>> {
        decode_into(input, out).map(Some)
    }
    fn encode(&self, f: &Filter, input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
        encode(&f.client_data, input, out)?;
        Ok(Step::Replaced)
    }
}
