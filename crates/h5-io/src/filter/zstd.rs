//! Zstandard (filter 32015, the HDF5 Zstandard plugin): the chunk is one Zstandard frame
//! (or several, concatenated); client data 0 is the compression level.
//!
//! `rusty_zstd` decodes and encodes: it has the reference's strategies for every level
//! (-7 to 22), so a level gives about the reference's ratio and speed. Its frames are read
//! by any Zstandard decoder, but they need not be the reference encoder's bytes (the format
//! does not fix them). As the plugin's `ZSTD_compress` does, frames carry the content size
//! (the plugin's decoder sizes its output by it) and no checksum.

use std::cell::RefCell;

use rusty_zstd::CompressOptions;
use structured_zstd::decoding::errors::FrameDecoderError;
use structured_zstd::decoding::{ContentChecksum, FrameDecoder};

use super::{bail, ensure, DecodeContext, Filter, FilterCodec, FilterId, Result, Step};

const ID: FilterId = FilterId::ZSTD;

/// The level the plugin uses for 0 or no client data (`ZSTD_CLEVEL_DEFAULT`).
pub(super) const DEFAULT_LEVEL: i32 = rusty_zstd::DEFAULT_CLEVEL;

thread_local! {
    /// Each thread's decoder, kept from one chunk to the next (its tables and scratch
    /// are allocated once).
    static DECODER: RefCell<Option<FrameDecoder>> = const { RefCell::new(None) };
}

fn new_decoder() -> FrameDecoder {
    let mut d = FrameDecoder::new();
    // Frames that carry a content checksum have it checked (the plugin's frames carry none).
    d.set_content_checksum(ContentChecksum::Verify);
    d
}

/// Decode the frames of `input` into the start of `out`, returning the bytes written;
/// output that does not fit in `out` is [`ErrorKind::LimitExceeded`](super::ErrorKind).
/// The decoder writes into `out` only: no buffer of the frames' declared or window size
/// is allocated.
fn decode_slice(id: FilterId, input: &[u8], out: &mut [u8]) -> Result<usize> {
    let mut run = |d: &mut FrameDecoder| d.decode_all(input, out);
    let got = DECODER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => run(slot.get_or_insert_with(new_decoder)),
        // Not reached (nothing decodes Zstandard inside a decode), but a fresh decoder is
        // always right.
        Err(_) => run(&mut new_decoder()),
    });
    match got {
        Ok(n) => Ok(n),
        Err(FrameDecoderError::TargetTooSmall) => bail!(
            LimitExceeded,
            id,
            "decompressed data exceeds {} bytes",
            out.len()
        ),
        Err(e) => bail!(Corrupt, id, "zstd: {e}"),
    }
}

/// Decode the frames of `input` into `out` (cleared first), failing past `limit` bytes.
pub(super) fn decompress(
    id: FilterId,
    input: &[u8],
    out: &mut Vec<u8>,
    limit: usize,
) -> Result<()> {
    out.clear();
    // Sized by the first frame's declared content size when it has one within the limit
    // (the plugin's one frame per chunk), else by the limit.
    let declared = rusty_zstd::content_size(input)
        .ok()
        .flatten()
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| n <= limit);
    out.resize(declared.unwrap_or(limit), 0);
    let mut got = decode_slice(id, input, out);
    if let (Err(e), true) = (&got, out.len() < limit) {
        if e.kind() == super::ErrorKind::LimitExceeded {
            // Several frames: the first one's size was not all of it.
            out.resize(limit, 0);
            got = decode_slice(id, input, out);
        }
    }
    match got {
        Ok(n) => {
            out.truncate(n);
            Ok(())
        }
        Err(e) => {
            out.clear();
            Err(e)
        }
    }
}

/// Decode the frames of `input` into exactly `out` (the size the caller knows). The
/// decoder writes into `out` itself.
pub(super) fn decompress_exact(id: FilterId, input: &[u8], out: &mut [u8]) -> Result<()> {
    let n = decode_slice(id, input, out)?;
    if n != out.len() {
        bail!(
            Corrupt,
            id,
            "zstd data decodes to {n} bytes, expected {}",
            out.len()
        );
    }
    Ok(())
}

/// The encoder's level for a client-data level: 0 is the default, as for the plugin, and
/// levels under the encoder's least (`-7`) encode at it.
pub(super) fn level(cd: Option<u32>) -> i32 {
    match cd.map(|l| l as i32) {
        None | Some(0) => DEFAULT_LEVEL,
        Some(l) => l.clamp(rusty_zstd::MIN_CLEVEL, rusty_zstd::MAX_CLEVEL),
    }
}

/// One Zstandard frame of `input` at `level` (-7 to 22), its header declaring the content
/// size, without a checksum.
pub(super) fn compress(id: FilterId, input: &[u8], level: i32) -> Result<Vec<u8>> {
    let opts = CompressOptions {
        level,
        checksum: false,
    };
    rusty_zstd::compress_with(input, opts).map_err(|e| {
        super::Error::new(
            super::ErrorKind::EncodeFailed,
            id,
            format!("zstd level {level}: {e}"),
        )
    })
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
    fn decode_into(
        &self,
        _: &Filter,
        input: &[u8],
        out: &mut [u8],
        _: &DecodeContext,
    ) -> Result<Option<usize>> {
        decode_slice(ID, input, out).map(Some)
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
        *out = compress(ID, input, level(f.client_data.first().copied()))?;
        Ok(Step::Replaced)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_declare_their_size_and_no_checksum() {
        let data: Vec<u8> = (0..100_000u32)
            .flat_map(|i| (i / 7).to_le_bytes())
            .collect();
        let frame = compress(ID, &data, DEFAULT_LEVEL).unwrap();
        assert_eq!(
            rusty_zstd::content_size(&frame).unwrap(),
            Some(data.len() as u64)
        );
        // Frame_Header_Descriptor bit 2: Content_Checksum_flag.
        assert_eq!(frame[4] & 4, 0);
        let mut out = Vec::new();
        decompress(ID, &frame, &mut out, data.len()).unwrap();
        assert_eq!(out, data);
        let err = decompress(ID, &frame, &mut out, data.len() - 1).unwrap_err();
        assert_eq!(err.kind(), super::super::ErrorKind::LimitExceeded);
        assert!(out.is_empty());
        let mut exact = vec![0u8; data.len() + 1];
        let err = decompress_exact(ID, &frame, &mut exact).unwrap_err();
        assert_eq!(err.kind(), super::super::ErrorKind::Corrupt);
    }

    #[test]
    fn levels_map_as_the_plugin_reads_them() {
        assert_eq!(level(None), 3);
        assert_eq!(level(Some(0)), 3);
        assert_eq!(level(Some(19)), 19);
        assert_eq!(level(Some(-5i32 as u32)), -5);
        assert_eq!(level(Some(-1000i32 as u32)), -7);
        for l in [-7, -1, 1, 3, 9, 19, 22] {
            let data = vec![7u8; 10_000];
            let frame = compress(ID, &data, l).unwrap();
            let mut out = Vec::new();
            decompress(ID, &frame, &mut out, data.len()).unwrap();
            assert_eq!(out, data, "level {l}");
        }
    }
}
