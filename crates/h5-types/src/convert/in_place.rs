//! Converting in one buffer, as the reference library's `H5Tconvert` does.
//!
//! The buffer holds `n` source elements at its start and receives `n` destination elements
//! at its start. A pure byte swap reverses each element where it lies. Other paths that keep
//! no state from one element to the next convert block by block: front to back when the
//! destination elements are not larger than the source ones (a block's destination then
//! never reaches a later block's source); when they are larger, first the blocks whose
//! destination lies past every source byte, front to back, then the same over the elements
//! below them, and the last few blocks back to front (see `block_order`). A block whose
//! destination bytes overlap its own source bytes is first copied into a small scratch
//! buffer; the others are
//! converted directly between the two parts of the buffer. Paths that do carry state
//! across elements (the general float algorithms, variable-length data) copy the whole
//! source aside and convert once, so that they see the elements exactly as
//! [`Converter::convert`] does.

use super::packed::{map_in_place, reverse_in_place};
use super::plan::Plan;
use super::{with_ctx, ConversionOptions, Converter};
use crate::Result;

/// The bytes of the larger element size converted per block.
const BLOCK_BYTES: usize = 32 * 1024;

impl Converter {
    /// Convert `n` elements in place: `buf` holds `n` source elements at its start and must
    /// have room for the larger of the two, at least `n * max(source size, destination
    /// size)` bytes; afterwards its first `n * destination size` bytes are the `n`
    /// converted elements (the bytes after them are unspecified).
    ///
    /// Results, exception counts, netCDF range errors (element indices over the whole
    /// buffer) and errors are those of [`Converter::convert`]; a handler may see the
    /// exceptions in another order (blocks out of element order when the destination is
    /// larger, as the reference library also converts). Compound members absent from the
    /// source become zero bytes (a zero background; see
    /// [`Converter::convert_in_place_with_background`]). When the
    /// conversion fails part way (a handler aborts), the buffer holds a mix of converted
    /// and unconverted bytes.
    pub fn convert_in_place(
        &self,
        buf: &mut [u8],
        n: usize,
        opts: &mut ConversionOptions<'_>,
    ) -> Result<()> {
        self.in_place(buf, n, None, opts)
    }

    /// [`Converter::convert_in_place`] with a background: `background` holds `n`
    /// destination elements (at least `n * destination size` bytes) whose bytes the
    /// conversion keeps where no source member is converted into them (compound members
    /// absent from the source), like the background buffer of `H5Tconvert`. Conversions
    /// that need no background ([`Converter::needs_background`] is false) ignore it.
    pub fn convert_in_place_with_background(
        &self,
        buf: &mut [u8],
        n: usize,
        background: &[u8],
        opts: &mut ConversionOptions<'_>,
    ) -> Result<()> {
        let ds = self.dst.size();
        match n.checked_mul(ds) {
            Some(b) if b <= background.len() => {}
            _ => crate::bail!(
                BufferSize,
                "background buffer of {} bytes is too small for {n} elements of {ds} bytes",
                background.len()
            ),
        }
        self.in_place(buf, n, Some(background), opts)
    }

    fn in_place(
        &self,
        buf: &mut [u8],
        n: usize,
        background: Option<&[u8]>,
        opts: &mut ConversionOptions<'_>,
    ) -> Result<()> {
        let (ss, ds) = (self.src.size(), self.dst.size());
        let big = ss.max(ds);
        match n.checked_mul(big) {
            Some(b) if b <= buf.len() => {}
            _ => crate::bail!(
                BufferSize,
                "buffer of {} bytes is too small to convert {n} elements of {ss} bytes \
                 into elements of {ds} bytes in place",
                buf.len()
            ),
        }
        // Only the compound paths read the destination's previous bytes, and only those
        // whose members leave some destination bytes unwritten, or where a handler may
        // see the destination element before it is written.
        let background_shows =
            self.plan.needs_background() && (opts.handler.is_some() || !self.plan.overwrites_dst());
        let background = background.filter(|_| background_shows);
        let zero_background = background.is_none() && background_shows;
        let init = |dst: &mut [u8], first: usize| {
            if let Some(b) = background {
                dst.copy_from_slice(&b[first * ds..first * ds + dst.len()]);
            } else if zero_background {
                dst.fill(0);
            }
        };
        with_ctx(self, opts, |ctx| {
            if n == 0 || big == 0 {
                return Ok(());
            }
            match &self.plan {
                // Equal types: the bytes are already the result.
                Plan::Noop { .. } if ss == ds => return Ok(()),
                Plan::Swap { size } if *size == ss && ss == ds => {
                    swap_in_place(&mut buf[..n * ss], ss);
                    return Ok(());
                }
                _ => {}
            }
            if !self.plan.is_stateless() {
                let src = buf[..n * ss].to_vec();
                let dst = &mut buf[..n * ds];
                init(dst, 0);
                return self.plan.run(&src, ss, dst, ds, n, ctx);
            }
            let block = (BLOCK_BYTES / big).max(1).min(n);
            let mut scratch = Vec::new();
            let mut result = Ok(());
            for (start, len) in block_order(n, ss, ds, block) {
                let (s0, s1) = (start * ss, (start + len) * ss);
                let (d0, d1) = (start * ds, (start + len) * ds);
                ctx.base = start;
                result = if d1 <= s0 {
                    let (lo, hi) = buf.split_at_mut(s0);
                    let dst = &mut lo[d0..d1];
                    init(dst, start);
                    self.plan.run(&hi[..s1 - s0], ss, dst, ds, len, ctx)
                } else if s1 <= d0 {
                    let (lo, hi) = buf.split_at_mut(d0);
                    let dst = &mut hi[..d1 - d0];
                    init(dst, start);
                    self.plan.run(&lo[s0..s1], ss, dst, ds, len, ctx)
                } else {
                    scratch.clear();
                    scratch.extend_from_slice(&buf[s0..s1]);
                    let dst = &mut buf[d0..d1];
                    init(dst, start);
                    self.plan.run(&scratch, ss, dst, ds, len, ctx)
                };
                if result.is_err() {
                    break;
                }
            }
            ctx.base = 0;
            result
        })
    }
}

/// The blocks of `n` elements, `(first element, elements)`, in an order in which no block's
/// destination bytes overwrite a source byte not yet converted (a block may still overlap
/// its own source). Destination elements not larger than the source ones: front to back.
/// Larger ones, as the reference library does it: first the elements from `a` on, where
/// `a * ds` is past every source byte (`n * ss`), front to back, then the same over the `a`
/// elements below, and so on; the last few blocks back to front. Long runs front to back
/// stream through memory as fast as a copy, where blocks taken back to front restart the
/// hardware prefetchers at every block.
fn block_order(n: usize, ss: usize, ds: usize, block: usize) -> Vec<(usize, usize)> {
    let blocks = |from: usize, to: usize| {
        (from..to)
            .step_by(block)
            .map(move |start| (start, block.min(to - start)))
    };
    if ds <= ss {
        return blocks(0, n).collect();
    }
    let mut order = Vec::with_capacity(n / block + 2);
    let mut top = n;
    loop {
        // The first element whose destination lies past every source byte below `top`.
        let a = (top * ss).div_ceil(ds);
        if top - a < block {
            break;
        }
        order.extend(blocks(a, top));
        top = a;
    }
    let rest: Vec<(usize, usize)> = blocks(0, top).collect();
    order.extend(rest.into_iter().rev());
    order
}

/// Reverse the bytes of each `size`-byte element of `buf`.
fn swap_in_place(buf: &mut [u8], size: usize) {
    macro_rules! words {
        ($n:expr) => {
            map_in_place(buf, $n, reverse_in_place::<{ $n / 2 }>)
        };
    }
    match size {
        2 => words!(2),
        4 => words!(4),
        8 => words!(8),
        16 => words!(16),
        _ => {
            for e in buf.chunks_exact_mut(size) {
                e.reverse();
            }
        }
    }
}

#[cfg(test)]
mod tests;
