//! Zstandard (filter 32015, the HDF5 Zstandard plugin): the chunk is one Zstandard frame
//! (or several, concatenated); client data 0 is the compression level.
//!
//! `ruzstd` decodes every frame the reference encoder writes. Its encoder implements one
//! strategy (about the reference's level 1) for every level: the level is stored as given
//! and any Zstandard decoder reads the frames, but they are not the bytes the plugin's
//! encoder writes at that level (the format does not fix them).

use ruzstd::decoding::FrameDecoder;
use ruzstd::encoding::CompressionLevel;

use super::{bail, ensure, DecodeContext, Filter, FilterCodec, FilterId, Result, Step};

const ID: FilterId = FilterId::ZSTD;

/// Decode the frames of `input` into `out` (cleared first), failing past `limit` bytes.
pub(super) fn decompress(
    id: FilterId,
    input: &[u8],
    out: &mut Vec<u8>,
    limit: usize,
) -> Result<()> {
    out.clear();
    // The decoder writes into a buffer of the bound (allocated before decoding) and stops
    // with an error where the data would pass it.
    let cap = limit;
    out.resize(cap, 0);
    let mut dec = FrameDecoder::new();
    match dec.decode_all(input, out) {
        Ok(n) => {
            out.truncate(n);
            Ok(())
        }
        Err(ruzstd::decoding::errors::FrameDecoderError::TargetTooSmall) => {
            out.clear();
            bail!(LimitExceeded, id, "decompressed data exceeds {limit} bytes")
        }
        Err(e) => {
            out.clear();
            bail!(Corrupt, id, "zstd: {e}")
        }
    }
}

/// One Zstandard frame of `input` (the level does not change the encoder; see the module
/// documentation), its header declaring the content size: the plugin's decoder sizes its
/// output by it (`ZSTD_getDecompressedSize`), which `ruzstd`'s encoder leaves out.
pub(super) fn compress(input: &[u8]) -> Vec<u8> {
    let frame = ruzstd::encoding::compress_to_vec(input, CompressionLevel::Fastest);
    with_content_size(frame, input.len() as u64)
}

/// Add "Frame_Content_Size" to a frame header that has none: its descriptor gets the
/// 4- or 8-byte size flag, and the size follows the window descriptor.
fn with_content_size(frame: Vec<u8>, size: u64) -> Vec<u8> {
    let Some(&fhd) = frame.get(4) else {
        return frame;
    };
    let (fcs_flag, single_segment, dict_flag) = (fhd >> 6, fhd & 0x20 != 0, fhd & 3);
    if fcs_flag != 0 || single_segment || dict_flag != 0 {
        return frame;
    }
    let (flag, bytes) = match u32::try_from(size) {
        Ok(n) => (2u8, n.to_le_bytes().to_vec()),
        Err(_) => (3u8, size.to_le_bytes().to_vec()),
    };
    // Magic, descriptor, window descriptor, then the size.
    let mut out = Vec::with_capacity(frame.len() + bytes.len());
    out.extend_from_slice(&frame[..4]);
    out.push(fhd | flag << 6);
    out.extend_from_slice(frame.get(5..6).unwrap_or_default());
    out.extend_from_slice(&bytes);
    out.extend_from_slice(frame.get(6..).unwrap_or_default());
    out
}

/// The Zstandard codec.
#[derive(Clone, Copy, Debug, Default)]
pub struct Zstd;

impl FilterCodec for Zstd {
    fn id(&self) -> FilterId {
        ID
    }
    fn name(&self) -> &str {
        "zstd"
    }
    fn decode(
        &self,
        _: &Filter,
        input: &[u8],
        out: &mut Vec<u8>,
        ctx: &DecodeContext,
    ) -> Result<Step> {
        decompress(ID, input, out, ctx.limit)?;
        Ok(Step::Replaced)
    }
    fn encode(&self, f: &Filter, input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
        if let Some(&level) = f.client_data.first() {
            ensure!(
                level as i32 <= 22,
                InvalidParameters,
                ID,
                "zstd level {level} (the most is 22)"
            );
        }
        *out = compress(input);
        Ok(Step::Replaced)
    }
}
