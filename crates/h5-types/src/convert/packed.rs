//! Loops over packed elements, shaped for the compiler's vectorizer.
//!
//! The fast kernels (byte swaps, integer clamping, float casts) run their per-element step
//! through [`map`] or [`map_in_place`]: the elements go [`STEP`] at a time through an inner
//! loop of constant length over exact chunks, so that after inlining each step is a
//! straight-line block of independent lanes with no bounds checks, which LLVM turns into
//! SSE2 vector code (the x86-64 baseline: no target feature is assumed and nothing is
//! chosen at run time). The per-element step returns an accumulator (a flag or counts), so
//! that a kernel notes exceptions without a branch per element.

/// The elements of one step of the unrolled loops.
pub(crate) const STEP: usize = 16;

/// Apply `f` to `n` packed elements: element `i` of the source at `src[i * sn..][..sn]`,
/// of the destination at `dst[i * dn..][..dn]`, threading the accumulator `acc` through
/// the calls. `src` and `dst` must hold `n` elements.
#[inline(always)]
pub(crate) fn map<A: Copy>(
    src: &[u8],
    sn: usize,
    dst: &mut [u8],
    dn: usize,
    n: usize,
    mut acc: A,
    mut f: impl FnMut(&[u8], &mut [u8], A) -> A,
) -> A {
    let (src, dst) = (&src[..n * sn], &mut dst[..n * dn]);
    let mut s_steps = src.chunks_exact(STEP * sn);
    let mut d_steps = dst.chunks_exact_mut(STEP * dn);
    for (sb, db) in (&mut s_steps).zip(&mut d_steps) {
        for (s, d) in sb.chunks_exact(sn).zip(db.chunks_exact_mut(dn)) {
            acc = f(s, d, acc);
        }
    }
    let (s_rest, d_rest) = (s_steps.remainder(), d_steps.into_remainder());
    for (s, d) in s_rest.chunks_exact(sn).zip(d_rest.chunks_exact_mut(dn)) {
        acc = f(s, d, acc);
    }
    acc
}

/// Call `f` on the steps of `n` packed elements: slices of [`STEP`] source and destination
/// elements (the last step may be shorter), for kernels that look at a whole step at once
/// (a vectorized pass, then a second look at the rare step that needs one).
#[inline(always)]
pub(crate) fn steps(
    src: &[u8],
    sn: usize,
    dst: &mut [u8],
    dn: usize,
    n: usize,
    mut f: impl FnMut(&[u8], &mut [u8]),
) {
    let (src, dst) = (&src[..n * sn], &mut dst[..n * dn]);
    let mut s_steps = src.chunks_exact(STEP * sn);
    let mut d_steps = dst.chunks_exact_mut(STEP * dn);
    for (sb, db) in (&mut s_steps).zip(&mut d_steps) {
        f(sb, db);
    }
    let (s_rest, d_rest) = (s_steps.remainder(), d_steps.into_remainder());
    if !s_rest.is_empty() {
        f(s_rest, d_rest);
    }
}

/// Write the `2 * H` bytes of `s` into `d` in reverse order. The element is read as 16-bit
/// halves, each rotated by 8 bits, and written back in reverse order: the form LLVM
/// lowers to five SSE2 instructions per 16 bytes (`psrlw`, `psllw`, `por`, `pshuflw`,
/// `pshufhw`), where a byte reversal written otherwise (`swap_bytes`, or through a copy of
/// the element) unpacks to 16-bit lanes and packs back, twice the work.
#[inline(always)]
pub(crate) fn reverse<const H: usize>(s: &[u8], d: &mut [u8]) {
    let h: [u16; H] = std::array::from_fn(|k| half(s, k));
    for (k, w) in h.iter().rev().enumerate() {
        d[2 * k..2 * k + 2].copy_from_slice(&w.to_le_bytes());
    }
}

/// [`reverse`] of an element where it lies.
#[inline(always)]
pub(crate) fn reverse_in_place<const H: usize>(e: &mut [u8]) {
    let h: [u16; H] = std::array::from_fn(|k| half(e, k));
    for (k, w) in h.iter().rev().enumerate() {
        e[2 * k..2 * k + 2].copy_from_slice(&w.to_le_bytes());
    }
}

/// The 16-bit half `k` of an element with its two bytes exchanged.
#[inline(always)]
fn half(e: &[u8], k: usize) -> u16 {
    u16::from_le_bytes([e[2 * k], e[2 * k + 1]]).rotate_left(8)
}

/// Apply `f` to each `size`-byte element of `buf` where it lies.
#[inline(always)]
pub(crate) fn map_in_place(buf: &mut [u8], size: usize, mut f: impl FnMut(&mut [u8])) {
    let mut steps = buf.chunks_exact_mut(STEP * size);
    for b in &mut steps {
        b.chunks_exact_mut(size).for_each(&mut f);
    }
    steps.into_remainder().chunks_exact_mut(size).for_each(f);
}

/// The first `N` bytes of `b` as an array.
#[inline(always)]
pub(crate) fn array<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&b[..N]);
    a
}
