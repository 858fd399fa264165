//! Fixed-length string to fixed-length string (`H5T__conv_s_s`).
//!
//! The source's characters are read according to its padding (up to the first NUL for
//! null-terminated and null-padded strings, without trailing spaces for space-padded ones),
//! cut to the destination's size, and padded according to the destination's padding. A
//! null-terminated destination always ends with a NUL, so a string that fills it loses its
//! last character. Truncation raises no exception; under strict options it is an error.

use super::except::Ctx;
use super::Kernel;
use crate::{Loss, Result, StrPad, StringSize, StringType};

#[derive(Clone, Copy, Debug)]
pub(crate) struct StringPlan {
    pub(crate) src: StringType,
    pub(crate) dst: StringType,
}

pub(crate) fn fixed_size(t: &StringType) -> usize {
    match t.size {
        StringSize::Fixed(n) => n,
        StringSize::Variable => 0,
    }
}

/// The characters of a fixed-length string element, as its padding defines them.
pub(crate) fn content(pad: StrPad, s: &[u8]) -> &[u8] {
    match pad {
        StrPad::NullTerm | StrPad::NullPad => {
            let end = s.iter().position(|&c| c == 0).unwrap_or(s.len());
            &s[..end]
        }
        StrPad::SpacePad => {
            let end = s.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1);
            &s[..end]
        }
    }
}

/// The number of characters a fixed-length element of `size` bytes with padding `pad` holds.
pub(crate) fn capacity(pad: StrPad, size: usize) -> usize {
    if pad == StrPad::NullTerm {
        size.saturating_sub(1)
    } else {
        size
    }
}

/// Under strict options, note element `i` as lossy when its `len` characters do not fit a
/// fixed-length destination of `size` bytes with padding `pad`.
#[inline]
pub(crate) fn check_fits(ctx: &mut Ctx, i: usize, len: usize, pad: StrPad, size: usize) {
    let cap = capacity(pad, size);
    if ctx.strict && len > cap {
        ctx.lossy(i, Loss::StringTooLong, || {
            format!("{len} bytes into a string that holds {cap}")
        });
    }
}

/// Write `chars` into a fixed-length destination element with padding `pad`.
pub(crate) fn write_fixed(pad: StrPad, chars: &[u8], d: &mut [u8]) {
    let k = chars.len().min(d.len());
    d[..k].copy_from_slice(&chars[..k]);
    let fill = if pad == StrPad::SpacePad { b' ' } else { 0 };
    d[k..].fill(fill);
    if pad == StrPad::NullTerm {
        if let Some(last) = d.last_mut() {
            *last = 0;
        }
    }
}

impl Kernel for StringPlan {
    fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()> {
        let (a, b) = (fixed_size(&self.src), fixed_size(&self.dst));
        let strict = ctx.strict;
        for i in 0..n {
            let s = &src[i * ss..i * ss + a];
            let d = &mut dst[i * ds..i * ds + b];
            let chars = content(self.src.pad, s);
            if strict {
                check_fits(ctx, i, chars.len(), self.dst.pad, b);
            }
            write_fixed(self.dst.pad, chars, d);
        }
        Ok(())
    }
}
