//! Small integer helpers shared by the level-1 structures: base-2 logarithms, the
//! "fewest bytes that hold a value" widths the reference library computes, page bitmaps and
//! file-checked counts.

use crate::{limits, Cursor, ErrorKind, Result};

/// Floor of log2 of `n`; 0 for 0 (the reference library's `H5VM_log2_gen`).
pub(crate) fn log2_gen(n: u64) -> u32 {
    if n == 0 {
        0
    } else {
        63 - n.leading_zeros()
    }
}

/// Bytes needed to encode values up to `n` (`H5VM_limit_enc_size`): `log2(n) / 8 + 1`.
pub(crate) fn limit_enc_size(n: u64) -> usize {
    (log2_gen(n) / 8 + 1) as usize
}

/// Bytes needed for an offset of `bits` bits: `(bits + 7) / 8`.
pub(crate) fn bytes_for_bits(bits: u32) -> usize {
    bits.div_ceil(8) as usize
}

/// Whether bit `i` of an MSB-first bitmap is set (`H5VM_bit_get`).
pub(crate) fn bit_get(bitmap: &[u8], i: usize) -> bool {
    bitmap
        .get(i / 8)
        .is_some_and(|b| b & (0x80u8 >> (i % 8)) != 0)
}

/// Set bit `i` of an MSB-first bitmap (`H5VM_bit_set`); out-of-range bits are ignored.
pub(crate) fn bit_set(bitmap: &mut [u8], i: usize) {
    if let Some(b) = bitmap.get_mut(i / 8) {
        *b |= 0x80u8 >> (i % 8);
    }
}

/// Check that `count` items of `item_size` bytes can still come from the cursor and stay under
/// `cap`; the count as `usize`, or a `LimitExceeded` error naming `what`.
pub(crate) fn check_count(
    c: &Cursor<'_>,
    count: u64,
    item_size: u64,
    cap: u64,
    what: &str,
) -> Result<usize> {
    limits::check_count(count, item_size, c.remaining() as u64, cap)
        .map_err(|m| c.error(ErrorKind::LimitExceeded, format!("{what}: {m}")))
}

/// Read the lookup3 checksum stored at relative position `at` of the cursor's slice and
/// compare it with the checksum of the whole slice with those four bytes taken as zero (how
/// fractal heap direct blocks are checksummed). The cursor position does not move.
pub(crate) fn verify_zeroed_checksum(c: &Cursor<'_>, at: usize) -> Result<()> {
    let data = c.data();
    let stored = data
        .get(at..at + 4)
        .ok_or_else(|| c.error(ErrorKind::UnexpectedEof, "checksum field is past the end"))?;
    let stored = u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]);
    let mut copy = data.to_vec();
    copy[at..at + 4].fill(0);
    let computed = crate::checksum::checksum(&copy);
    if stored != computed {
        return Err(c.error_at(
            ErrorKind::ChecksumMismatch,
            c.base() + at as u64,
            format!(
                "stored {stored:#010x}, computed {computed:#010x} over {} bytes from {:#x}",
                data.len(),
                c.base()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths() {
        assert_eq!(log2_gen(0), 0);
        assert_eq!(log2_gen(1), 0);
        assert_eq!(log2_gen(255), 7);
        assert_eq!(log2_gen(256), 8);
        assert_eq!(limit_enc_size(0), 1);
        assert_eq!(limit_enc_size(255), 1);
        assert_eq!(limit_enc_size(256), 2);
        assert_eq!(limit_enc_size(u64::MAX), 8);
        assert_eq!(bytes_for_bits(32), 4);
        assert_eq!(bytes_for_bits(33), 5);
    }

    #[test]
    fn bitmap_is_msb_first() {
        let mut b = [0u8; 2];
        bit_set(&mut b, 0);
        bit_set(&mut b, 9);
        assert_eq!(b, [0x80, 0x40]);
        assert!(bit_get(&b, 0) && bit_get(&b, 9) && !bit_get(&b, 1) && !bit_get(&b, 100));
    }
}
