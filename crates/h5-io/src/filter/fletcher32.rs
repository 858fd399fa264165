//! Fletcher-32 (`H5Z_FILTER_FLETCHER32`): a checksum of the chunk appended to it, stored
//! little-endian.

use super::{ensure, DecodeContext, Filter, FilterCodec, FilterId, Result, Step};

const ID: FilterId = FilterId::FLETCHER32;

pub use h5_format::checksum::fletcher32;

/// Verify and strip the checksum. Like the reference library, the checksum with the bytes
/// of each 16-bit half swapped (written by releases before 1.6.3) is accepted too.
pub(super) fn decode(input: &[u8], skip_check: bool) -> Result<Step> {
    ensure!(
        input.len() >= 4,
        Corrupt,
        ID,
        "chunk of {} bytes is too short to hold a checksum",
        input.len()
    );
    let n = input.len() - 4;
    if !skip_check {
        let stored = u32::from_le_bytes([input[n], input[n + 1], input[n + 2], input[n + 3]]);
        let computed = fletcher32(&input[..n]);
        let swapped = ((computed & 0x00ff_00ff) << 8) | ((computed >> 8) & 0x00ff_00ff);
        ensure!(
            stored == computed || stored == swapped,
            ChecksumMismatch,
            ID,
            "stored checksum {stored:#010x}, computed {computed:#010x}"
        );
    }
    Ok(Step::Truncated(n))
}

/// Append the checksum.
pub(super) fn encode(input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
    out.clear();
    out.reserve_exact(input.len() + 4);
    out.extend_from_slice(input);
    out.extend_from_slice(&fletcher32(input).to_le_bytes());
    Ok(Step::Replaced)
}

/// The fletcher32 codec.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fletcher32;

impl FilterCodec for Fletcher32 {
    fn id(&self) -> FilterId {
        ID
    }
    fn name(&self) -> &str {
        "fletcher32"
    }
    fn decode(
        &self,
        _: &Filter,
        input: &[u8],
        _: &mut Vec<u8>,
        ctx: &DecodeContext,
    ) -> Result<Step> {
        decode(input, ctx.skip_checksum)
    }
    fn decode_into(
        &self,
        _: &Filter,
        input: &[u8],
        out: &mut [u8],
        ctx: &DecodeContext,
    ) -> Result<Option<usize>> {
        // Checked where it lies; only the data before the checksum is copied.
        let Step::Truncated(n) = decode(input, ctx.skip_checksum)? else {
            return Ok(None);
        };
        if let (Some(o), Some(i)) = (out.get_mut(..n), input.get(..n)) {
            o.copy_from_slice(i);
        }
        Ok(Some(n))
    }
    fn encode(&self, _: &Filter, input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
        encode(input, out)
    }
}
