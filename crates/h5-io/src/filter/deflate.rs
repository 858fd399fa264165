//! Deflate (`H5Z_FILTER_DEFLATE`): a zlib stream; client data 0 is the compression level.

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

use super::{bail, ensure, FilterId, Result, Step};

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

/// Inflate `input` into `out`, producing at most `limit` bytes.
pub(super) fn decode(cd: &[u32], input: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<Step> {
    level(cd)?;
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

/// Deflate `input` into `out`; fails (so an optional filter is skipped) when the result
/// would be larger than the input, as the reference library does.
pub(super) fn encode(cd: &[u32], input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
    let level = level(cd)?;
    out.clear();
    out.reserve_exact(input.len());
    let mut z = Compress::new(Compression::new(level), true);
    let status = z
        .compress_vec(input, out, FlushCompress::Finish)
        .map_err(|e| super::Error::new(super::ErrorKind::EncodeFailed, ID, e.to_string()))?;
    ensure!(
        status == Status::StreamEnd && out.len() <= input.len(),
        EncodeFailed,
        ID,
        "deflated data would be larger than the {} input bytes",
        input.len()
    );
    Ok(Step::Replaced)
}
