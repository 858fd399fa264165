//! Fletcher-32 (`H5Z_FILTER_FLETCHER32`): a checksum of the chunk appended to it, stored
//! little-endian.

use super::{ensure, FilterId, Result, Step};

const ID: FilterId = FilterId::FLETCHER32;

/// The reference library's `H5_checksum_fletcher32`: sums of big-endian 16-bit words
/// (starting from 0, not 0xffff), an odd last byte counting as the high byte of a word.
pub fn fletcher32(data: &[u8]) -> u32 {
    let mut sum1: u32 = 0;
    let mut sum2: u32 = 0;
    let even = data.len() & !1;
    // 360 words is the most that can be summed without overflowing 32 bits.
    for block in data[..even].chunks(720) {
        for w in block.chunks_exact(2) {
            sum1 = sum1.wrapping_add(u32::from(w[0]) << 8 | u32::from(w[1]));
            sum2 = sum2.wrapping_add(sum1);
        }
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    if let Some(&last) = data.get(even) {
        sum1 = sum1.wrapping_add(u32::from(last) << 8);
        sum2 = sum2.wrapping_add(sum1);
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    (sum2 << 16) | sum1
}

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
