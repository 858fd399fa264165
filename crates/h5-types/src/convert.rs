//! Converting data between datatypes (the datatypes chapter's "Data Transfer: Datatype
//! Conversion and Selection").
//!
//! A [`Converter`] is built once per pair of types: it checks that a conversion path exists
//! and compiles the path into a tree of kernels (byte swaps, clamping integer loops, float
//! casts, member gather/scatter for compounds...). Converting a buffer then runs those
//! kernels over all elements, with no decision per element.
//!
//! ```
//! use h5_types::{ByteOrder, Datatype, IntegerType, Sign};
//! use h5_types::convert::{ConversionOptions, Converter};
//!
//! let src: Datatype = IntegerType::new(4, ByteOrder::BigEndian, Sign::TwosComplement).into();
//! let dst: Datatype = IntegerType::new(1, ByteOrder::LittleEndian, Sign::None).into();
//! let conv = Converter::new(&src, &dst)?;
//! let input = [0, 0, 0, 7, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0xff];
//! let mut out = [0u8; 3];
//! let mut opts = ConversionOptions::new();
//! conv.convert(&input, &mut out, 3, &mut opts)?;
//! assert_eq!(out, [7, 255, 0]); // 256 clamps to 255, -1 to 0
//! assert_eq!(opts.report.total(), 2);
//! # Ok::<(), h5_types::Error>(())
//! ```
//!
//! [`Converter::convert_in_place`] converts in one buffer, as `H5Tconvert` does: the buffer
//! holds the source elements and receives the destination elements, with the same results.
//!
//! # Agreement with the reference library
//!
//! Results are those of the reference library's `H5Tconvert` (version 1.10 on x86-64), bit for
//! bit, and so are the exceptions it raises. That library picks one of several algorithms
//! for a pair of types, and they do not all agree, so the converter makes the same choice:
//!
//! * equal types are copied unchanged;
//! * integers or floats of the same size and layout in opposite byte orders are byte-swapped
//!   only: for integers the sign and precision are then not looked at, so a big-endian `-1`
//!   converts to a little-endian unsigned `0xffffffff`;
//! * pairs of native types (`i8`...`u64`, `f32`, `f64`, little-endian, and the x87 80-bit
//!   `long double` in 16 bytes) follow C casts: round to nearest even, and for a NaN or an
//!   out-of-range float cast to an integer the x86-64 result (the "integer indefinite"
//!   value) when no handler is installed; the six padding bytes of a `long double`
//!   destination are written as zero (the hardware leaves them as they were);
//! * every other pair follows the library's general algorithms: float to float rounds half
//!   away from zero and never rounds a finite value into infinity; after a denormalized
//!   value has been seen, later elements of the same call round without carrying into the
//!   exponent; integer to float raises a precision exception whenever the magnitude has more
//!   significant bits than the mantissa, and with a handler that returns
//!   [`Action::Unhandled`] an overflow keeps the low bits of the oversized exponent.
//!
//! With a handler installed, results are those of `H5Tconvert` with a conversion callback
//! (`H5Pset_type_conv_cb`) that behaves the same way; without one, those of `H5Tconvert`
//! without a callback. [`ConversionReport::counts`] counts exceptions either way.
//!
//! # Paths
//!
//! | source | destination | how |
//! |---|---|---|
//! | integer | integer | any size (beyond the reference library's 64 bytes), precision, offset, padding, order, sign; clamping |
//! | float | float | any layout: IEEE sizes, custom fields, exponent bias, implied or explicit leading bit, VAX order |
//! | integer | float, and back | any layouts; float to integer truncates toward zero |
//! | enum | enum | by member name; every source name must exist in the destination |
//! | enum | integer, float | through the enum's base type |
//! | string | string | fixed sizes and paddings; fixed to variable-length and back (an extension: the reference library has no such path); same character set only |
//! | bitfield | bitfield | low bits copied |
//! | compound | compound | members matched by name, converted recursively |
//! | array | array | same dimensions, elements converted |
//! | sequence | sequence | elements converted |
//! | complex | complex | both parts converted |
//! | any type | an equal type | copied (the only path for opaque, reference and time types) |
//!
//! Floats normalized with the most significant bit set have no general path (the reference
//! library fails on them at run time).
//!
//! Known differences from the reference library, all where it reads or writes memory it
//! does not own: bits inside a float's precision that no field covers are written as zero;
//! a float-to-integer conversion whose mantissa is wider than the library's scratch integer
//! and an integer-to-float conversion that drops more than 65 bits are computed as the
//! algorithm intends. An exception handler that returns [`Action::Handled`] leaves the
//! destination element exactly as it wrote it.
//!
//! # The netCDF policy
//!
//! [`Policy::NetCdf`] reports as range errors: values above or below the destination's
//! range, and NaN or infinities converted to integers (and enum values without a name).
//! Infinities and NaN converted to floats, loss of precision, and truncation of fractions
//! are not errors. Every element is converted; out-of-range ones hold the reference
//! default (clamped).
//!
//! # Strict conversions
//!
//! [`ConversionOptions::with_strict`] refuses lossy steps: every element is converted as
//! the reference library does with a conversion callback installed, and the call then fails
//! with an error of kind [`ErrorKind::Lossy`] naming the lowest element that lost more than
//! precision ([`Error::element`]) and what it lost ([`Error::loss`], a [`crate::Loss`]):
//! overflow, a dropped fraction, NaN or infinity to an integer, a compound member the
//! source lacks, a string that does not fit, an enum value without a member. Conversions
//! that raise no exception run the same kernels as the default ones.
//!
//! ```
//! use h5_types::{Datatype, ErrorKind, Loss};
//! use h5_types::convert::{ConversionOptions, Converter};
//!
//! let conv = Converter::new(&"H5T_IEEE_F64LE".parse()?, &"H5T_STD_I8LE".parse()?)?;
//! let input: Vec<u8> = [1.0f64, 300.5].iter().flat_map(|x| x.to_le_bytes()).collect();
//! let mut out = [0u8; 2];
//! conv.convert(&input, &mut out, 2, &mut ConversionOptions::new())?;
//! assert_eq!(out, [1, 127]); // clamped, as the reference library does
//! let e = conv
//!     .convert(&input, &mut out, 2, &mut ConversionOptions::new().with_strict(true))
//!     .unwrap_err();
//! assert_eq!((e.kind(), e.element(), e.loss()), (ErrorKind::Lossy, Some(1), Some(Loss::Overflow)));
//! # Ok::<(), h5_types::Error>(())
//! ```
//!
//! # Variable-length data
//!
//! Variable-length strings and sequences are not pointers here. A [`VarLenHeap`] holds their
//! contents, and a buffer element refers to an entry of the heap by a handle (see
//! [`VarLenHeap`] for the exact bytes). Conversions that involve variable-length data take
//! the heap in [`ConversionOptions::heap`], read the source entries from it and add the
//! converted destination entries to it.

mod bits;
mod compound;
mod enumeration;
mod except;
mod float;
mod in_place;
mod int;
mod packed;
mod plan;
mod string;
mod vlen;
mod x87;

#[cfg(test)]
mod tests;

use crate::{Datatype, Error, ErrorKind, Result};

pub use except::{
    Action, ConversionOptions, ConversionReport, Exception, ExceptionKind, Handler, Policy,
};
pub use vlen::VarLenHeap;

use except::Ctx;

/// One kernel of a compiled conversion: converts `n` elements, element `i` of the source at
/// `src[i * ss..]` and of the destination at `dst[i * ds..]`.
pub(crate) trait Kernel {
    fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()>;
}

/// A compiled conversion from one datatype to another, reusable for any number of buffers.
#[derive(Debug, Clone)]
pub struct Converter {
    src: Datatype,
    dst: Datatype,
    plan: plan::Plan,
}

impl Converter {
    /// Find the conversion path from `src` to `dst` and compile it. Fails with
    /// [`ErrorKind::NoConversionPath`], naming both types, when there is none.
    pub fn new(src: &Datatype, dst: &Datatype) -> Result<Converter> {
        let plan = plan::Plan::new(src, dst)?;
        Ok(Converter {
            src: src.clone(),
            dst: dst.clone(),
            plan,
        })
    }

    /// The source type.
    pub fn src(&self) -> &Datatype {
        &self.src
    }

    /// The destination type.
    pub fn dst(&self) -> &Datatype {
        &self.dst
    }

    /// Whether the conversion copies bytes unchanged (the types are equal).
    pub fn is_noop(&self) -> bool {
        matches!(self.plan, plan::Plan::Noop { .. })
    }

    /// Whether each element converts independently of the others, so that converting a
    /// buffer in pieces gives the same results as one call (the general float algorithms,
    /// for one, carry state from element to element within a call).
    pub fn is_elementwise(&self) -> bool {
        self.plan.is_stateless()
    }

    /// Whether the destination buffer's previous contents matter: compound conversions keep
    /// the destination members that the source does not have (the background).
    pub fn needs_background(&self) -> bool {
        self.plan.needs_background()
    }

    /// Convert `n` elements of `src` (at least `n * src.size()` bytes) into `dst` (at least
    /// `n * dst.size()` bytes). The previous contents of `dst` are the background for
    /// compound members absent from the source. After the call, `opts.report` tells which
    /// exceptions occurred. Under [`Policy::NetCdf`], out-of-range values make the call
    /// return an error after every element has been converted.
    pub fn convert(
        &self,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        opts: &mut ConversionOptions<'_>,
    ) -> Result<()> {
        let (ssize, dsize) = (self.src.size(), self.dst.size());
        let need_src = n.checked_mul(ssize);
        let need_dst = n.checked_mul(dsize);
        match need_src {
            Some(b) if b <= src.len() => {}
            _ => crate::bail!(
                BufferSize,
                "source buffer of {} bytes is too small for {n} elements of {ssize} bytes",
                src.len()
            ),
        }
        match need_dst {
            Some(b) if b <= dst.len() => {}
            _ => crate::bail!(
                BufferSize,
                "destination buffer of {} bytes is too small for {n} elements of {dsize} bytes",
                dst.len()
            ),
        }
        with_ctx(self, opts, |ctx| {
            self.plan.run(src, ssize, dst, dsize, n, ctx)
        })
    }
}

/// Run a conversion of `conv` with a fresh context over `opts`, then fill in `opts.report`
/// and turn a strict mode's loss and netCDF range errors into the call's error.
fn with_ctx(
    conv: &Converter,
    opts: &mut ConversionOptions<'_>,
    f: impl FnOnce(&mut Ctx) -> Result<()>,
) -> Result<()> {
    opts.report = ConversionReport::default();
    let mut ctx = Ctx::new(opts);
    let result = f(&mut ctx);
    let mut report = std::mem::take(&mut ctx.report);
    let loss = ctx.loss.take();
    drop(ctx);
    report.range_errors.sort_unstable();
    report.range_errors.dedup();
    let netcdf_error = (opts.policy == Policy::NetCdf && !report.range_errors.is_empty())
        .then(|| range_error(&report.range_errors));
    opts.report = report;
    result?;
    if let Some((index, loss, what)) = loss {
        let what = if what.is_empty() {
            what
        } else {
            format!(" ({what})")
        };
        return Err(Error::lossy(
            index,
            loss,
            format!(
                "{}{what} converting {} to {}",
                loss.describe(),
                plan::describe(&conv.src),
                plan::describe(&conv.dst)
            ),
        ));
    }
    match netcdf_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn range_error(idx: &[usize]) -> Error {
    let shown: Vec<String> = idx.iter().take(16).map(|i| i.to_string()).collect();
    let more = if idx.len() > 16 { ", ..." } else { "" };
    Error::new(
        ErrorKind::ConversionException,
        format!(
            "{} value(s) out of range of the destination type at element(s) [{}{more}]",
            idx.len(),
            shown.join(", ")
        ),
    )
}

/// Whether a conversion path exists from `src` to `dst` (then [`Converter::new`] succeeds).
pub fn can_convert(src: &Datatype, dst: &Datatype) -> bool {
    plan::Plan::new(src, dst).is_ok()
}

/// Convert a whole buffer of `src` elements to `dst` with the reference library's defaults
/// (no handler; compound members absent from the source become zero bytes).
pub fn convert(src: &Datatype, dst: &Datatype, bytes: &[u8]) -> Result<Vec<u8>> {
    let conv = Converter::new(src, dst)?;
    let ssize = src.size();
    crate::ensure!(
        ssize > 0 && bytes.len().is_multiple_of(ssize),
        BufferSize,
        "buffer of {} bytes is not a whole number of {ssize}-byte elements",
        bytes.len()
    );
    let n = bytes.len() / ssize;
    let mut out = vec![0u8; n * dst.size()];
    conv.convert(bytes, &mut out, n, &mut ConversionOptions::new())?;
    Ok(out)
}
