//! Conversion exceptions, the handler that may take them, and the two policies.

use super::VarLenHeap;
use crate::{Error, ErrorKind, Loss, Result};

/// An exception raised while converting one element (`H5T_conv_except_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ExceptionKind {
    /// `H5T_CONV_EXCEPT_RANGE_HI`: the value is above the destination's range.
    RangeHi,
    /// `H5T_CONV_EXCEPT_RANGE_LOW`: the value is below the destination's range.
    RangeLow,
    /// `H5T_CONV_EXCEPT_PRECISION`: the destination keeps fewer significant bits.
    Precision,
    /// `H5T_CONV_EXCEPT_TRUNCATE`: a fractional part is dropped (float to integer).
    Truncate,
    /// `H5T_CONV_EXCEPT_PINF`: the source is positive infinity.
    PosInf,
    /// `H5T_CONV_EXCEPT_NINF`: the source is negative infinity.
    NegInf,
    /// `H5T_CONV_EXCEPT_NAN`: the source is not a number.
    NaN,
}

impl ExceptionKind {
    /// All kinds, in the reference library's numbering.
    pub const ALL: [ExceptionKind; 7] = [
        ExceptionKind::RangeHi,
        ExceptionKind::RangeLow,
        ExceptionKind::Precision,
        ExceptionKind::Truncate,
        ExceptionKind::PosInf,
        ExceptionKind::NegInf,
        ExceptionKind::NaN,
    ];

    /// The reference library's number for the kind (0 to 6).
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// What a handler did with an exception (`H5T_conv_ret_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// The handler did nothing: the default action applies.
    Unhandled,
    /// The handler wrote the destination element itself; it is left as written.
    Handled,
    /// Stop converting: the conversion returns an error.
    Abort,
}

/// One exception, as shown to a handler.
#[derive(Debug)]
pub struct Exception<'a> {
    /// What happened.
    pub kind: ExceptionKind,
    /// The index of the element (of the outermost type being converted).
    pub index: usize,
    /// The source element's bytes in the source type's byte order.
    pub src: &'a [u8],
}

/// How exceptions turn into results and errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Policy {
    /// The reference library's behaviour: every exception goes to the handler, if any, and
    /// otherwise takes the default action (clamping to the destination's range, infinities for
    /// float overflow, all bits set for an enum value without a name, truncation of strings).
    /// The conversion never fails because of a value.
    #[default]
    Reference,
    /// netCDF's behaviour: values the destination cannot represent (out of range, and NaN or
    /// infinities converted to integers) are range errors. Every element is still converted
    /// (the out-of-range ones hold the default action's value) and the conversion then
    /// returns an error of kind [`ErrorKind::ConversionException`] naming the elements; the
    /// indices are also in [`ConversionReport::range_errors`]. Loss of precision alone is not
    /// an error, and floats convert to integers by truncation toward zero.
    NetCdf,
}

/// A handler for conversion exceptions: it sees the exception and the destination element's
/// bytes (in the destination's byte order) and says what it did.
pub type Handler<'h> = dyn FnMut(&Exception<'_>, &mut [u8]) -> Action + 'h;

/// Options of one conversion: the policy and an optional exception handler.
#[derive(Default)]
pub struct ConversionOptions<'h> {
    /// The policy for exceptions.
    pub policy: Policy,
    /// A handler that sees every exception before the default action. As in the reference
    /// library, having a handler changes a few results: some default actions differ when a
    /// handler is present and returns [`Action::Unhandled`] (see the module documentation).
    pub handler: Option<Box<Handler<'h>>>,
    /// The contents of variable-length values, for conversions that involve them.
    pub heap: Option<&'h mut VarLenHeap>,
    /// Refuse lossy conversions: the conversion returns an error of kind
    /// [`ErrorKind::Lossy`] naming the first element (the lowest index) that cannot be
    /// converted exactly. See [`ConversionOptions::with_strict`].
    pub strict: bool,
    /// What happened during the last conversion (reset by each call).
    pub report: ConversionReport,
}

impl std::fmt::Debug for ConversionOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConversionOptions")
            .field("policy", &self.policy)
            .field("handler", &self.handler.as_ref().map(|_| "..."))
            .field("heap", &self.heap)
            .field("strict", &self.strict)
            .field("report", &self.report)
            .finish()
    }
}

impl<'h> ConversionOptions<'h> {
    /// The reference policy with no handler (the reference library's defaults).
    pub fn new() -> Self {
        Self::default()
    }

    /// The netCDF policy.
    pub fn netcdf() -> Self {
        ConversionOptions {
            policy: Policy::NetCdf,
            ..Self::default()
        }
    }

    /// These options with a handler.
    pub fn with_handler(
        mut self,
        handler: impl FnMut(&Exception<'_>, &mut [u8]) -> Action + 'h,
    ) -> Self {
        self.handler = Some(Box::new(handler));
        self
    }

    /// These options, strict or not. A strict conversion converts every element as the
    /// reference library does when a conversion callback is installed (`H5Pset_type_conv_cb`),
    /// and then fails with an error of kind [`ErrorKind::Lossy`] if a value lost more than
    /// precision: the error's [`Error::element`] is the lowest such element and its
    /// [`Error::loss`] the reason:
    ///
    /// * [`Loss::Overflow`]: an integer out of the destination's range, a float beyond an
    ///   integer's range, a finite float that would become infinity (`1e300` as `f32`);
    /// * [`Loss::Fraction`]: a float with a fractional part converted to an integer;
    /// * [`Loss::NotFinite`]: a NaN or an infinity converted to an integer;
    /// * [`Loss::MissingMember`]: a compound member of the destination that the source
    ///   lacks (element 0 is named, as no element has it);
    /// * [`Loss::StringTooLong`]: a string longer than a fixed-size destination holds (for a
    ///   null-terminated destination, its size less one);
    /// * [`Loss::NoEnumMember`]: an enum value without a member;
    /// * [`Loss::BitsDropped`]: a bitfield with set bits beyond the destination's precision.
    ///
    /// Rounding to the nearest representable value (`0.1` as `f32`, a 64-bit integer above
    /// 2^53 as `f64`) is not refused, nor are infinities and NaN converted to floats. A
    /// handler that returns [`Action::Handled`] for an exception resolves it. Conversions
    /// without exceptions run the same kernels as non-strict ones.
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// These options with a heap for variable-length values.
    pub fn with_heap(mut self, heap: &'h mut VarLenHeap) -> Self {
        self.heap = Some(heap);
        self
    }
}

/// What happened during a conversion.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConversionReport {
    /// The number of exceptions of each kind, indexed by [`ExceptionKind::index`].
    pub counts: [u64; 7],
    /// Under [`Policy::NetCdf`], the indices of the elements that were out of range, in
    /// increasing order without repeats.
    pub range_errors: Vec<usize>,
}

impl ConversionReport {
    /// The total number of exceptions.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The number of exceptions of one kind.
    pub fn count(&self, kind: ExceptionKind) -> u64 {
        self.counts[kind.index()]
    }
}

/// What the source value of an exception is, when the exception's kind does not say it
/// (the reference library's hardware paths report a NaN cast to an integer as a
/// truncation, and an infinity cast to a narrower float as out of range).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Special {
    None,
    NaN,
    Inf,
    /// A truncation exception for a value that has no fractional part (the reference
    /// library's general float-to-integer algorithm raises them for every value below
    /// 2^mantissa bits): nothing is lost.
    Exact,
}

impl Special {
    pub(crate) fn of(x: f64) -> Special {
        if x.is_nan() {
            Special::NaN
        } else if x.is_infinite() {
            Special::Inf
        } else {
            Special::None
        }
    }
}

/// The state a conversion carries through its kernels: the options, the counts, and how
/// element numbers of a nested conversion map to outer elements.
pub(crate) struct Ctx<'o, 'h> {
    pub(crate) policy: Policy,
    pub(crate) handler: Option<&'o mut Box<Handler<'h>>>,
    pub(crate) heap: Option<&'o mut VarLenHeap>,
    pub(crate) report: ConversionReport,
    /// Outer element index = (`base` + inner index) / `div`.
    pub(crate) base: usize,
    pub(crate) div: usize,
    /// Whether the destination of the current kernel is an integer (for netCDF's rule that
    /// NaN and infinities are out of range only for integers).
    pub(crate) dst_int: bool,
    /// Whether lossy steps are errors.
    pub(crate) strict: bool,
    /// Under `strict`, the lowest element found lossy so far, what it lost and details.
    pub(crate) loss: Option<(usize, Loss, String)>,
}

impl<'o, 'h> Ctx<'o, 'h> {
    pub(crate) fn new(opts: &'o mut ConversionOptions<'h>) -> Self {
        let ConversionOptions {
            policy,
            handler,
            heap,
            strict,
            ..
        } = opts;
        Ctx {
            policy: *policy,
            handler: handler.as_mut(),
            heap: heap.as_deref_mut(),
            report: ConversionReport::default(),
            base: 0,
            div: 1,
            dst_int: false,
            strict: *strict,
            loss: None,
        }
    }

    /// Whether the reference library would see an exception callback: a user handler, the
    /// netCDF policy (which is built as one), or strict mode (built as one that aborts).
    #[inline]
    pub(crate) fn has_cb(&self) -> bool {
        self.handler.is_some() || self.policy == Policy::NetCdf || self.strict
    }

    /// Whether exceptions must be raised one by one (a handler or netCDF bookkeeping);
    /// otherwise kernels may only count them.
    #[inline]
    pub(crate) fn per_element(&self) -> bool {
        self.has_cb()
    }

    #[inline]
    pub(crate) fn outer_index(&self, i: usize) -> usize {
        (self.base + i) / self.div.max(1)
    }

    /// Count exceptions without telling anyone (fast paths without a handler).
    #[inline]
    pub(crate) fn count(&mut self, kind: ExceptionKind, n: u64) {
        self.report.counts[kind.index()] += n;
    }

    /// Raise one exception for element `i`: count it, record a netCDF range error, and ask
    /// the handler. `src` is the source element in its own byte order; `dst` the destination
    /// element the handler may write. `special` marks a NaN or infinity reported under
    /// another kind.
    #[cold]
    pub(crate) fn raise(
        &mut self,
        kind: ExceptionKind,
        i: usize,
        src: &[u8],
        dst: &mut [u8],
        special: Special,
    ) -> Result<Action> {
        let loss = self.loss_of(kind, special);
        self.raise_as(kind, i, src, dst, special, loss)
    }

    /// What an exception loses, for strict mode: precision alone, and infinities and NaN
    /// that stay such in a float destination, lose nothing.
    fn loss_of(&self, kind: ExceptionKind, special: Special) -> Option<Loss> {
        match kind {
            ExceptionKind::RangeHi | ExceptionKind::RangeLow => match special {
                Special::None => Some(Loss::Overflow),
                _ if self.dst_int => Some(Loss::NotFinite),
                _ => None,
            },
            ExceptionKind::Truncate => match special {
                Special::NaN => Some(Loss::NotFinite),
                Special::Exact => None,
                _ => Some(Loss::Fraction),
            },
            ExceptionKind::PosInf | ExceptionKind::NegInf | ExceptionKind::NaN => {
                self.dst_int.then_some(Loss::NotFinite)
            }
            ExceptionKind::Precision => None,
        }
    }

    /// Note that element `i` (of the current kernel) loses what `loss` says, under strict
    /// mode; the lowest outer element is kept. `what` gives details for the message.
    #[cold]
    pub(crate) fn lossy(&mut self, i: usize, loss: Loss, what: impl FnOnce() -> String) {
        if !self.strict {
            return;
        }
        let index = self.outer_index(i);
        if self.loss.as_ref().is_none_or(|(j, _, _)| index < *j) {
            self.loss = Some((index, loss, what()));
        }
    }

    /// [`Ctx::raise`] with the loss said by the caller (`None`: nothing is lost).
    #[cold]
    pub(crate) fn raise_as(
        &mut self,
        kind: ExceptionKind,
        i: usize,
        src: &[u8],
        dst: &mut [u8],
        special: Special,
        loss: Option<Loss>,
    ) -> Result<Action> {
        self.report.counts[kind.index()] += 1;
        let index = self.outer_index(i);
        if self.policy == Policy::NetCdf {
            let out_of_range = match kind {
                // An infinity stays an infinity in a float destination.
                ExceptionKind::RangeHi | ExceptionKind::RangeLow => {
                    special != Special::Inf || self.dst_int
                }
                ExceptionKind::PosInf | ExceptionKind::NegInf | ExceptionKind::NaN => self.dst_int,
                ExceptionKind::Truncate => special == Special::NaN,
                ExceptionKind::Precision => false,
            };
            if out_of_range && self.report.range_errors.last() != Some(&index) {
                self.report.range_errors.push(index);
            }
        }
        let action = match self.handler.as_mut() {
            Some(h) => h(&Exception { kind, index, src }, dst),
            None => Action::Unhandled,
        };
        if action == Action::Abort {
            return Err(Error::new(
                ErrorKind::ConversionException,
                format!(
                    "conversion aborted by the exception handler at element {index} ({kind:?})"
                ),
            ));
        }
        if let (Some(loss), Action::Unhandled) = (loss, action) {
            self.lossy(i, loss, String::new);
        }
        Ok(action)
    }
}
