//! Bit-vector helpers for the general conversion paths.
//!
//! A value is a little-endian byte slice; bit `i` is bit `i % 8` of byte `i / 8`. These are
//! the operations the reference library's general conversions are written in terms of
//! (copy, set, find, increment, decrement, negate, shift), so that the general paths can
//! follow its algorithms step by step. Callers keep offsets and sizes inside the slice.

/// Bit `pos` of `buf`.
#[inline]
pub(crate) fn get(buf: &[u8], pos: usize) -> bool {
    buf[pos / 8] >> (pos % 8) & 1 != 0
}

/// Set bit `pos` of `buf` to `v`.
#[inline]
pub(crate) fn put(buf: &mut [u8], pos: usize, v: bool) {
    let m = 1u8 << (pos % 8);
    if v {
        buf[pos / 8] |= m;
    } else {
        buf[pos / 8] &= !m;
    }
}

/// Set `size` bits starting at `offset` to `v`.
pub(crate) fn set(buf: &mut [u8], offset: usize, size: usize, v: bool) {
    let mut pos = offset;
    let end = offset + size;
    while pos < end && !pos.is_multiple_of(8) {
        put(buf, pos, v);
        pos += 1;
    }
    let fill = if v { 0xff } else { 0 };
    while pos + 8 <= end {
        buf[pos / 8] = fill;
        pos += 8;
    }
    while pos < end {
        put(buf, pos, v);
        pos += 1;
    }
}

/// Copy `size` bits from `src` at `src_off` to `dst` at `dst_off`.
pub(crate) fn copy(dst: &mut [u8], dst_off: usize, src: &[u8], src_off: usize, size: usize) {
    if size == 0 {
        return;
    }
    if dst_off.is_multiple_of(8) && src_off.is_multiple_of(8) {
        let whole = size / 8;
        let (d, s) = (dst_off / 8, src_off / 8);
        dst[d..d + whole].copy_from_slice(&src[s..s + whole]);
        for i in whole * 8..size {
            put(dst, dst_off + i, get(src, src_off + i));
        }
        return;
    }
    for i in 0..size {
        put(dst, dst_off + i, get(src, src_off + i));
    }
}

/// Up to 64 bits starting at `offset`, as a number.
pub(crate) fn get_u64(buf: &[u8], offset: usize, size: usize) -> u64 {
    let mut v = 0u64;
    for i in 0..size.min(64) {
        if get(buf, offset + i) {
            v |= 1 << i;
        }
    }
    v
}

/// Store the low `size` (at most 64) bits of `v` starting at `offset`.
pub(crate) fn set_u64(buf: &mut [u8], offset: usize, size: usize, v: u64) {
    for i in 0..size.min(64) {
        put(buf, offset + i, v >> i & 1 != 0);
    }
}

/// Which end [`find`] searches from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Dir {
    /// From the least significant bit up.
    Lsb,
    /// From the most significant bit down.
    Msb,
}

/// The position, relative to `offset`, of the first bit equal to `v` among `size` bits,
/// searching from `dir`; `None` if there is none.
pub(crate) fn find(buf: &[u8], offset: usize, size: usize, dir: Dir, v: bool) -> Option<usize> {
    match dir {
        Dir::Lsb => {
            let mut i = 0;
            while i < size {
                let pos = offset + i;
                if pos.is_multiple_of(8) && i + 8 <= size {
                    let skip = if v { 0x00 } else { 0xff };
                    if buf[pos / 8] == skip {
                        i += 8;
                        continue;
                    }
                }
                if get(buf, pos) == v {
                    return Some(i);
                }
                i += 1;
            }
            None
        }
        Dir::Msb => {
            let mut i = size;
            while i > 0 {
                let pos = offset + i - 1;
                if pos % 8 == 7 && i >= 8 {
                    let skip = if v { 0x00 } else { 0xff };
                    if buf[pos / 8] == skip {
                        i -= 8;
                        continue;
                    }
                }
                if get(buf, pos) == v {
                    return Some(i - 1);
                }
                i -= 1;
            }
            None
        }
    }
}

/// Add one to the `size`-bit number at `start`; true if it carried out of the top.
pub(crate) fn inc(buf: &mut [u8], start: usize, size: usize) -> bool {
    for i in 0..size {
        let pos = start + i;
        if get(buf, pos) {
            put(buf, pos, false);
        } else {
            put(buf, pos, true);
            return false;
        }
    }
    size > 0
}

/// Subtract one from the `size`-bit number at `start`; true if it borrowed.
pub(crate) fn dec(buf: &mut [u8], start: usize, size: usize) -> bool {
    for i in 0..size {
        let pos = start + i;
        if get(buf, pos) {
            put(buf, pos, false);
            return false;
        }
        put(buf, pos, true);
    }
    size > 0
}

/// Invert `size` bits at `start`.
pub(crate) fn neg(buf: &mut [u8], start: usize, size: usize) {
    for i in 0..size {
        let pos = start + i;
        put(buf, pos, !get(buf, pos));
    }
}

/// Shift the `size` bits at `offset` by `dist` (positive: towards the most significant end),
/// filling with zeros.
pub(crate) fn shift(buf: &mut [u8], dist: isize, offset: usize, size: usize) {
    if dist == 0 {
        return;
    }
    let abs = dist.unsigned_abs();
    if abs >= size {
        set(buf, offset, size, false);
        return;
    }
    if dist > 0 {
        for i in (0..size - abs).rev() {
            let b = get(buf, offset + i);
            put(buf, offset + i + abs, b);
        }
        set(buf, offset, abs, false);
    } else {
        for i in 0..size - abs {
            let b = get(buf, offset + i + abs);
            put(buf, offset + i, b);
        }
        set(buf, offset + size - abs, abs, false);
    }
}

/// Bring one element from its byte order into little-endian order in place (`vax`:
/// 16-bit words in reverse order, bytes inside a word little-endian).
pub(crate) fn to_le(buf: &mut [u8], order: crate::ByteOrder) {
    match order {
        crate::ByteOrder::LittleEndian => {}
        crate::ByteOrder::BigEndian => buf.reverse(),
        crate::ByteOrder::Vax => vax_swap(buf),
    }
}

/// The inverse of [`to_le`] (both swaps are their own inverse).
pub(crate) fn from_le(buf: &mut [u8], order: crate::ByteOrder) {
    to_le(buf, order)
}

fn vax_swap(buf: &mut [u8]) {
    // The reference library's VAX reordering: for every fourth byte position i, exchange the
    // 16-bit word at i with the word at size - 2 - i (for 4- and 8-byte floats this reverses
    // the order of the words; it is its own inverse for those sizes).
    let n = buf.len();
    let mut i = 0;
    while i + 2 <= n {
        let j = n - 2 - i;
        buf.swap(i, j);
        buf.swap(i + 1, j + 1);
        i += 4;
    }
}
