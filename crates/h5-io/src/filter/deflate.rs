//! Deflate (`H5Z_FILTER_DEFLATE`): a zlib stream; client data 0 is the compression level.

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

use super::{bail, ensure, DecodeContext, Filter, FilterCodec, FilterId, Result, Step};

const ID: FilterId = FilterId::DEFLATE;

/// The compression level, checked as the reference library does in both directions.
fn level(cd: &[u32]) -> Result<u32> {
    match cd {
        [level] if *level <= 9 => Ok(*level),
        [level] => bail!(InvalidParameters, ID, "invalid deflate level {level}"),
        _ => bail!(
            InvalidParameters,
            ID,
            "expected 1 client data value, found {}",
            cd.len()
        ),
    }
}

/// Inflate `input` into `out`, producing at most `limit` bytes. The level is not needed to
/// read, so unlike the reference library any client data is accepted here.
pub(super) fn decode(input: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<Step> {
    inflate(input, out, limit)?;
    Ok(Step::Replaced)
}

/// Inflate a zlib stream into `out` (cleared first), failing past `limit` bytes.
pub(super) fn inflate(input: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<()> {
    out.clear();
    // One byte past the limit tells "exactly at the limit" from "over it".
    let ceiling = limit.saturating_add(1);
    let first = input.len().saturating_mul(4).max(4096).min(ceiling);
    out.reserve_exact(first);
    let mut z = Decompress::new(true);
    loop {
        let consumed = usize::try_from(z.total_in()).unwrap_or(usize::MAX);
        let rest = input.get(consumed..).unwrap_or(&[]);
        let before_out = out.len();
        let status = z
            .decompress_vec(rest, out, FlushDecompress::None)
            .map_err(|e| super::Error::new(super::ErrorKind::Corrupt, ID, e.to_string()))?;
        ensure!(
            out.len() <= limit,
            LimitExceeded,
            ID,
            "inflated data exceeds {limit} bytes"
        );
        if status == Status::StreamEnd {
            return Ok(());
        }
        let progressed = out.len() != before_out
            || usize::try_from(z.total_in()).unwrap_or(usize::MAX) != consumed;
        if out.len() == out.capacity() {
            let grow = out.capacity().max(4096).min(ceiling - out.len());
            out.reserve_exact(grow);
        } else if !progressed {
            bail!(Corrupt, ID, "truncated deflate stream");
        }
    }
}

/// Inflate a zlib stream into `out`, which must hold all it inflates to; returns the bytes
/// written. A stream inflating to more than `out` holds is an error.
pub(super) fn inflate_into(input: &[u8], out: &mut [u8]) -> Result<usize> {
    let mut z = Decompress::new(true);
    let total = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    loop {
        let (consumed, written) = (total(z.total_in()), total(z.total_out()));
        let rest = input.get(consumed..).unwrap_or(&[]);
        let corrupt = |e: flate2::DecompressError| {
            super::Error::new(super::ErrorKind::Corrupt, ID, e.to_string())
        };
        let status = match out.get_mut(written..) {
            Some(room) if !room.is_empty() => z
                .decompress(rest, room, FlushDecompress::None)
                .map_err(corrupt)?,
            _ => {
                // `out` is full: what is left of the stream may be its end (the checksum),
                // not more data.
                let mut probe = [0u8; 1];
                let s = z
                    .decompress(rest, &mut probe, FlushDecompress::None)
                    .map_err(corrupt)?;
                ensure!(
                    total(z.total_out()) == written,
                    LimitExceeded,
                    ID,
                    "inflated data exceeds {} bytes",
                    out.len()
                );
                s
            }
        };
        if status == Status::StreamEnd {
            return Ok(total(z.total_out()));
        }
        if total(z.total_in()) == consumed && total(z.total_out()) == written {
            bail!(Corrupt, ID, "truncated deflate stream");
        }
    }
}

/// Deflate `input` into `out`. Like the reference library (which sizes its buffer with
/// zlib's `compressBound`), the result may be larger than the input.
pub(super) fn encode(cd: &[u32], input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
    let level = level(cd)?;
    out.clear();
    let n = input.len();
    // zlib's compressBound.
    out.reserve_exact(n + (n >> 12) + (n >> 14) + (n >> 25) + 13);
    let mut z = Compress::new(Compression::new(level), true);
    loop {
        let consumed = usize::try_from(z.total_in()).unwrap_or(usize::MAX);
        let rest = input.get(consumed..).unwrap_or(&[]);
        let status = z
            .compress_vec(rest, out, FlushCompress::Finish)
            .map_err(|e| super::Error::new(super::ErrorKind::EncodeFailed, ID, e.to_string()))?;
        if status == Status::StreamEnd {
            return Ok(Step::Replaced);
        }
        ensure!(
            out.len() < n.saturating_mul(2).saturating_add(1024),
            EncodeFailed,
            ID,
            "deflate does not finish"
        );
        out.reserve(out.capacity().max(64));
    }
}

/// The deflate codec.
#[derive(Clone, Copy, Debug, Default)]
pub struct Deflate;

impl FilterCodec for Deflate {
    fn id(&self) -> FilterId {
        ID
    }
    fn name(&self) -> &str {
        "deflate"
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
    fn decode_into(
        &self,
        _: &Filter,
        input: &[u8],
        out: &mut [u8],
        _: &DecodeContext,
    ) -> Result<Option<usize>> {
        inflate_into(input, out).map(Some)
    }
    fn encode(&self, f: &Filter, input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
        encode(&f.client_data, input, out)
    }
}
