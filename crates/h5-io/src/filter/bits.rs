//! Most-significant-bit-first bit packing, as used by the n-bit and scale-offset filters:
//! values are appended high bit first; a byte that becomes full is followed by a fresh zero
//! byte, so a stream of `b` bits occupies `b / 8 + 1` bytes.

/// Low `n` bits set (`n` at most 64).
#[inline]
pub(super) fn mask64(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// Appends bit fields to a byte buffer.
pub(super) struct BitWriter {
    buf: Vec<u8>,
    /// Free bits in the last byte of `buf` (1 to 8).
    free: u32,
}

impl BitWriter {
    /// A writer reusing the allocation of `buf` (its contents are discarded).
    pub(super) fn reuse(mut buf: Vec<u8>, capacity: usize) -> Self {
        buf.clear();
        buf.reserve(capacity.max(1));
        buf.push(0);
        BitWriter { buf, free: 8 }
    }

    /// Append the low `n` bits of `v` (`n` at most 64), most significant first.
    #[inline]
    pub(super) fn put(&mut self, v: u64, mut n: u32) {
        while n > 0 {
            let take = n.min(self.free);
            let bits = (v >> (n - take)) & mask64(take);
            if let Some(last) = self.buf.last_mut() {
                *last |= (bits << (self.free - take)) as u8;
            }
            self.free -= take;
            n -= take;
            if self.free == 0 {
                self.buf.push(0);
                self.free = 8;
            }
        }
    }

    /// The bytes written, including the trailing partial (or fresh) byte.
    pub(super) fn finish(self) -> Vec<u8> {
        self.buf
    }
}

/// Reads bit fields from a byte buffer; `None` past its end.
pub(super) struct BitReader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Unread bits in `buf[pos]` (1 to 8).
    avail: u32,
}

impl<'a> BitReader<'a> {
    /// A reader at the start of `buf`.
    pub(super) fn new(buf: &'a [u8]) -> Self {
        BitReader {
            buf,
            pos: 0,
            avail: 8,
        }
    }

    /// Read `n` bits (at most 64), most significant first.
    #[inline]
    pub(super) fn get(&mut self, mut n: u32) -> Option<u64> {
        let mut v = 0u64;
        while n > 0 {
            let cur = u64::from(*self.buf.get(self.pos)?);
            let take = n.min(self.avail);
            let bits = (cur >> (self.avail - take)) & mask64(take);
            v = if take >= 64 { bits } else { (v << take) | bits };
            self.avail -= take;
            n -= take;
            if self.avail == 0 {
                self.pos += 1;
                self.avail = 8;
            }
        }
        Some(v)
    }
}
