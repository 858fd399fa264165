//! What the block decoders (Blosc, Blosc2, Bitshuffle) decode into: their output, a
//! vector or the caller's memory ([`Out`]), and scratch memory, two buffers per thread
//! kept from one chunk to the next, so decoding a chunk neither allocates nor zeroes a
//! block's worth of memory.

use std::cell::RefCell;

/// Buffers grown past this are given back after use rather than kept by the thread.
const KEEP: usize = 8 << 20;

thread_local! {
    static SCRATCH: RefCell<[Vec<u8>; 2]> = const { RefCell::new([Vec::new(), Vec::new()]) };
}

/// Run `f` with two buffers of `a` and `b` bytes. Their contents are whatever an earlier
/// use left there: `f` must write every byte it reads. The sizes come from a decoder that
/// checked them against its limit.
pub(super) fn with<R>(a: usize, b: usize, f: impl FnOnce(&mut [u8], &mut [u8]) -> R) -> R {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut bufs) => {
            let [x, y] = &mut *bufs;
            for (v, n) in [(&mut *x, a), (&mut *y, b)] {
                if v.len() < n {
                    // Fresh zeroed memory (no pass writing zeros), not a resize.
                    *v = vec![0; n];
                }
            }
            let r = f(&mut x[..a], &mut y[..b]);
            for v in [x, y] {
                if v.len() > KEEP {
                    *v = Vec::new();
                }
            }
            r
        }
        // Only when `f` itself decodes a chunk: fresh buffers for the inner one.
        Err(_) => f(&mut vec![0; a], &mut vec![0; b]),
    })
}

/// Where a decoder writes: a vector it sizes, or the caller's memory, of a fixed size.
pub(super) enum Out<'a> {
    /// Cleared and resized to the decoded size.
    Vec(&'a mut Vec<u8>),
    /// Written only when the decoded size is its length.
    Slice(&'a mut [u8]),
}

impl<'a> Out<'a> {
    /// The memory for `n` decoded bytes, `None` when the caller's is of another size. Its
    /// contents are unspecified (zeros in a vector): decoders write every byte.
    pub(super) fn sized(self, n: usize) -> Option<&'a mut [u8]> {
        match self {
            Out::Vec(v) => {
                if v.capacity() < n {
                    // Fresh zeroed memory rather than zeros written into a new allocation.
                    *v = vec![0; n];
                } else {
                    v.clear();
                    v.resize(n, 0);
                }
                Some(v)
            }
            Out::Slice(s) => (s.len() == n).then_some(s),
        }
    }
}
