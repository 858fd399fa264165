//! Setters of datatype properties (`H5Tset_*`) with the reference library's rules, and
//! [`Datatype::validate`], which checks every invariant those setters keep.
//!
//! The setters on [`Datatype`] dispatch like the reference library: an array, a
//! variable-length sequence, an enum and a complex type defer to their base type ("parent"),
//! so `set_precision` on an array of integers changes the integers (and thereby the array's
//! size). The adjustments are the reference library's (datatypes chapter, table 15):
//!
//! * `set_size` of an atomic type moves the offset down, then cuts the precision, so that the
//!   significant bits stay inside the new size; a float fails if its sign, exponent or
//!   mantissa would fall outside. A compound may grow, and shrink only down to the end of its
//!   last member.
//! * `set_precision` moves the offset down, then grows the size.
//! * `set_offset` grows the size.
//!
//! Every setter is atomic: on `Err` the datatype is unchanged. An error says what and where.
//!
//! Where libhdf5 (checked against 1.10.8 by `tests/properties.rs`) differs:
//!
//! * It keeps state this model has no place for, and the setters here refuse or ignore it:
//!   the padding of a string (`set_pad` fails), the byte order of strings, opaque and
//!   reference types (`set_order` accepts and keeps nothing, so a compound holding them can
//!   still be reordered), the precision of a reference (`set_precision` fails), and the
//!   hidden character type inside a variable-length string, which libhdf5 resizes, shifts or
//!   re-signs when asked for the size, precision, offset or sign of such a string (those
//!   fail here; `set_variable_size` on one does nothing).
//! * It accepts VAX byte order for integers and bitfields; the file format cannot encode that,
//!   so it fails here.
//! * It reads or writes out of bounds when resizing an enum that has members through an
//!   array or sequence, or when setting the offset of a compound or opaque type through an
//!   array; those fail here.
//! * Its setters are not atomic (a compound's `set_order` may fail half way); here a failed
//!   setter leaves the type unchanged.

use crate::compose::{MAX_ARRAY_RANK, MAX_COMPOUND_MEMBERS, MAX_OPAQUE_TAG};
use crate::datatype::*;
use crate::{bail, ensure, Error, ErrorKind, Result};

// ---------------------------------------------------------------------------------------------
// Bit layouts

impl Atomic {
    /// `H5T__set_size` for an atomic type: the offset moves down and then the precision is
    /// cut so the significant bits fit in `size` bytes.
    fn resized(&self, size: usize) -> Result<Atomic> {
        ensure!(size > 0, InvalidArgument, "size must be positive");
        let bits = size.checked_mul(8).ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidArgument,
                format!("size {size} is too large"),
            )
        })?;
        let mut a = *self;
        if a.precision > bits {
            a.offset = 0;
            a.precision = bits;
        } else if a.offset + a.precision > bits {
            a.offset = bits - a.precision;
        }
        a.size = size;
        Ok(a)
    }

    /// `H5T__set_precision` for an atomic type: the offset moves down, then the size grows.
    fn with_precision(&self, prec: usize) -> Result<Atomic> {
        ensure!(prec > 0, InvalidArgument, "precision must be positive");
        let mut a = *self;
        let bits = a.size.saturating_mul(8);
        if prec > bits {
            a.offset = 0;
            a.size = prec.div_ceil(8);
        } else if a.offset + prec > bits {
            a.offset = bits - prec;
        }
        a.precision = prec;
        Ok(a)
    }

    /// `H5T__set_offset` for an atomic type: the size grows when the significant bits would
    /// hang over the end.
    fn with_offset(&self, offset: usize) -> Result<Atomic> {
        let end = offset.checked_add(self.precision).ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidArgument,
                format!("offset {offset} is too large"),
            )
        })?;
        let mut a = *self;
        if end > a.size.saturating_mul(8) {
            a.size = end.div_ceil(8);
        }
        a.offset = offset;
        Ok(a)
    }

    fn validate(&self, what: &str) -> Result<()> {
        ensure!(self.size > 0, InvalidArgument, "{what}: size is 0");
        ensure!(
            self.precision > 0,
            InvalidArgument,
            "{what}: precision is 0"
        );
        let bits = self.size.checked_mul(8);
        let end = self.offset.checked_add(self.precision);
        match (bits, end) {
            (Some(b), Some(e)) if e <= b => Ok(()),
            _ => bail!(
                InvalidArgument,
                "{what}: offset {} + precision {} exceeds the size of {} bytes",
                self.offset,
                self.precision,
                self.size
            ),
        }
    }
}

fn check_not_vax(order: ByteOrder, what: &str) -> Result<()> {
    ensure!(
        order != ByteOrder::Vax,
        InvalidArgument,
        "VAX byte order applies to floating-point types only, not to {what}"
    );
    Ok(())
}

impl IntegerType {
    /// Set the size in bytes (`H5Tset_size`): the offset, then the precision shrink to fit.
    pub fn set_size(&mut self, size: usize) -> Result<()> {
        self.atomic = self.atomic.resized(size)?;
        Ok(())
    }

    /// Set the precision in bits (`H5Tset_precision`): the offset shrinks, then the size
    /// grows to fit.
    pub fn set_precision(&mut self, precision: usize) -> Result<()> {
        self.atomic = self.atomic.with_precision(precision)?;
        Ok(())
    }

    /// Set the bit offset (`H5Tset_offset`); the size grows to fit.
    pub fn set_offset(&mut self, offset: usize) -> Result<()> {
        self.atomic = self.atomic.with_offset(offset)?;
        Ok(())
    }

    /// Set the padding below and above the significant bits (`H5Tset_pad`).
    pub fn set_pad(&mut self, lsb: Pad, msb: Pad) {
        self.atomic.lsb_pad = lsb;
        self.atomic.msb_pad = msb;
    }

    /// Set the byte order (`H5Tset_order`); VAX order is for floats only.
    pub fn set_order(&mut self, order: ByteOrder) -> Result<()> {
        check_not_vax(order, "an integer")?;
        self.atomic.order = order;
        Ok(())
    }

    /// Set the sign scheme (`H5Tset_sign`).
    pub fn set_sign(&mut self, sign: Sign) {
        self.sign = sign;
    }

    /// Check the invariants: positive size and precision, significant bits inside the size,
    /// no VAX order.
    pub fn validate(&self) -> Result<()> {
        self.atomic.validate("integer")?;
        check_not_vax(self.atomic.order, "an integer")
    }
}

impl BitfieldType {
    /// Set the size in bytes (`H5Tset_size`), as for integers.
    pub fn set_size(&mut self, size: usize) -> Result<()> {
        self.atomic = self.atomic.resized(size)?;
        Ok(())
    }

    /// Set the precision in bits (`H5Tset_precision`), as for integers.
    pub fn set_precision(&mut self, precision: usize) -> Result<()> {
        self.atomic = self.atomic.with_precision(precision)?;
        Ok(())
    }

    /// Set the bit offset (`H5Tset_offset`), as for integers.
    pub fn set_offset(&mut self, offset: usize) -> Result<()> {
        self.atomic = self.atomic.with_offset(offset)?;
        Ok(())
    }

    /// Set the padding (`H5Tset_pad`).
    pub fn set_pad(&mut self, lsb: Pad, msb: Pad) {
        self.atomic.lsb_pad = lsb;
        self.atomic.msb_pad = msb;
    }

    /// Set the byte order (`H5Tset_order`); VAX order is for floats only.
    pub fn set_order(&mut self, order: ByteOrder) -> Result<()> {
        check_not_vax(order, "a bitfield")?;
        self.atomic.order = order;
        Ok(())
    }

    /// Check the invariants, as for integers.
    pub fn validate(&self) -> Result<()> {
        self.atomic.validate("bitfield")?;
        check_not_vax(self.atomic.order, "a bitfield")
    }
}

impl FloatType {
    /// Whether the sign, exponent and mantissa fields lie below bit `end`.
    fn fields_below(&self, end: usize) -> bool {
        self.sign_pos < end
            && self.exp_pos.saturating_add(self.exp_size) <= end
            && self.mant_pos.saturating_add(self.mant_size) <= end
    }

    fn check_fields_fit(&self, a: &Atomic, op: &str) -> Result<()> {
        ensure!(
            self.fields_below(a.offset.saturating_add(a.precision)),
            InvalidArgument,
            "{op}: the sign (bit {}), exponent (bits {}..{}) or mantissa (bits {}..{}) would \
             lie outside offset {} + precision {}; adjust the fields first",
            self.sign_pos,
            self.exp_pos,
            self.exp_pos.saturating_add(self.exp_size),
            self.mant_pos,
            self.mant_pos.saturating_add(self.mant_size),
            a.offset,
            a.precision
        );
        Ok(())
    }

    /// Set the size in bytes (`H5Tset_size`). Fails when the fields would no longer fit
    /// inside the (adjusted) offset and precision.
    pub fn set_size(&mut self, size: usize) -> Result<()> {
        let a = self.atomic.resized(size)?;
        self.check_fields_fit(&a, "set_size")?;
        self.atomic = a;
        Ok(())
    }

    /// Set the precision in bits (`H5Tset_precision`). When decreasing it, move the fields
    /// first.
    pub fn set_precision(&mut self, precision: usize) -> Result<()> {
        let a = self.atomic.with_precision(precision)?;
        self.check_fields_fit(&a, "set_precision")?;
        self.atomic = a;
        Ok(())
    }

    /// Set the bit offset (`H5Tset_offset`); the size grows to fit. The field positions are
    /// not moved (as in the reference library).
    pub fn set_offset(&mut self, offset: usize) -> Result<()> {
        self.atomic = self.atomic.with_offset(offset)?;
        Ok(())
    }

    /// Set the padding (`H5Tset_pad`).
    pub fn set_pad(&mut self, lsb: Pad, msb: Pad) {
        self.atomic.lsb_pad = lsb;
        self.atomic.msb_pad = msb;
    }

    /// Set the byte order (`H5Tset_order`), VAX included.
    pub fn set_order(&mut self, order: ByteOrder) {
        self.atomic.order = order;
    }

    /// Set the positions and widths of the fields (`H5Tset_fields`): each must lie below the
    /// precision, and they must not overlap.
    pub fn set_fields(
        &mut self,
        sign_pos: usize,
        exp_pos: usize,
        exp_size: usize,
        mant_pos: usize,
        mant_size: usize,
    ) -> Result<()> {
        let prec = self.atomic.precision;
        let exp_end = exp_pos.checked_add(exp_size);
        let mant_end = mant_pos.checked_add(mant_size);
        ensure!(
            matches!(exp_end, Some(e) if e <= prec),
            InvalidArgument,
            "exponent bits {exp_pos}..+{exp_size} exceed the precision {prec}"
        );
        ensure!(
            matches!(mant_end, Some(e) if e <= prec),
            InvalidArgument,
            "mantissa bits {mant_pos}..+{mant_size} exceed the precision {prec}"
        );
        ensure!(
            sign_pos < prec,
            InvalidArgument,
            "sign bit {sign_pos} is not below the precision {prec}"
        );
        let (exp_end, mant_end) = (exp_pos + exp_size, mant_pos + mant_size);
        ensure!(
            !(sign_pos >= exp_pos && sign_pos < exp_end),
            InvalidArgument,
            "sign bit {sign_pos} lies inside the exponent bits {exp_pos}..{exp_end}"
        );
        ensure!(
            !(sign_pos >= mant_pos && sign_pos < mant_end),
            InvalidArgument,
            "sign bit {sign_pos} lies inside the mantissa bits {mant_pos}..{mant_end}"
        );
        ensure!(
            !((mant_pos < exp_pos && mant_end > exp_pos)
                || (exp_pos < mant_pos && exp_end > mant_pos)),
            InvalidArgument,
            "exponent bits {exp_pos}..{exp_end} and mantissa bits {mant_pos}..{mant_end} overlap"
        );
        self.sign_pos = sign_pos;
        self.exp_pos = exp_pos;
        self.exp_size = exp_size;
        self.mant_pos = mant_pos;
        self.mant_size = mant_size;
        Ok(())
    }

    /// Set the exponent bias (`H5Tset_ebias`).
    pub fn set_ebias(&mut self, bias: u64) {
        self.exp_bias = bias;
    }

    /// Set the mantissa normalization (`H5Tset_norm`).
    pub fn set_norm(&mut self, norm: Norm) {
        self.norm = norm;
    }

    /// Set the padding of unused bits inside the precision (`H5Tset_inpad`).
    pub fn set_inpad(&mut self, pad: Pad) {
        self.inpad = pad;
    }

    /// Check the invariants: the bit layout, the fields inside the size and apart from each
    /// other (the reference library keeps no stronger relation between fields and precision).
    pub fn validate(&self) -> Result<()> {
        self.atomic.validate("float")?;
        let bits = self.atomic.size * 8;
        ensure!(
            self.fields_below(bits),
            InvalidArgument,
            "float: a field lies outside the {} bits of the type",
            bits
        );
        let (e0, e1) = (self.exp_pos, self.exp_pos + self.exp_size);
        let (m0, m1) = (self.mant_pos, self.mant_pos + self.mant_size);
        let s = self.sign_pos;
        ensure!(
            !((e0..e1).contains(&s) || (m0..m1).contains(&s)),
            InvalidArgument,
            "float: the sign bit {s} lies inside the exponent or mantissa"
        );
        ensure!(
            !((m0 < e0 && m1 > e0) || (e0 < m0 && e1 > m0)),
            InvalidArgument,
            "float: exponent bits {e0}..{e1} and mantissa bits {m0}..{m1} overlap"
        );
        Ok(())
    }
}

impl TimeType {
    fn validate(&self) -> Result<()> {
        ensure!(self.size > 0, InvalidArgument, "time: size is 0");
        ensure!(
            self.precision > 0 && self.precision <= self.size.saturating_mul(8),
            InvalidArgument,
            "time: precision {} does not fit {} bytes",
            self.precision,
            self.size
        );
        check_not_vax(self.order, "a time type")
    }
}

// ---------------------------------------------------------------------------------------------
// Strings, opaque, compound

impl StringType {
    /// Set the size (`H5Tset_size`, with `H5T_VARIABLE` as [`StringSize::Variable`]). A fixed
    /// size must be positive. The reference library cannot turn a variable-length string back
    /// into a fixed one (it silently resizes a hidden character type instead), so that is an
    /// error here; setting `Variable` on a variable-length string does nothing.
    pub fn set_size(&mut self, size: StringSize) -> Result<()> {
        match (self.size, size) {
            (_, StringSize::Fixed(0)) => bail!(InvalidArgument, "string size must be positive"),
            (StringSize::Variable, StringSize::Fixed(n)) => bail!(
                Unsupported,
                "a variable-length string cannot be given the fixed size {n}"
            ),
            (_, s) => self.size = s,
        }
        Ok(())
    }

    /// Set the character set (`H5Tset_cset`).
    pub fn set_cset(&mut self, cset: CharSet) {
        self.cset = cset;
    }

    /// Set the padding (`H5Tset_strpad`).
    pub fn set_strpad(&mut self, pad: StrPad) {
        self.pad = pad;
    }

    /// Check the invariants: a fixed size is positive.
    pub fn validate(&self) -> Result<()> {
        ensure!(
            self.size != StringSize::Fixed(0),
            InvalidArgument,
            "string: fixed size is 0"
        );
        Ok(())
    }
}

fn check_tag(tag: &str) -> Result<()> {
    ensure!(
        tag.len() <= MAX_OPAQUE_TAG,
        InvalidArgument,
        "opaque tag is {} bytes, the most is {MAX_OPAQUE_TAG}",
        tag.len()
    );
    ensure!(
        !tag.contains('\0'),
        InvalidArgument,
        "opaque tag contains a NUL byte"
    );
    Ok(())
}

impl OpaqueType {
    /// Set the size in bytes (`H5Tset_size`).
    pub fn set_size(&mut self, size: usize) -> Result<()> {
        ensure!(size > 0, InvalidArgument, "opaque size must be positive");
        self.size = size;
        Ok(())
    }

    /// Set the tag (`H5Tset_tag`): at most 255 bytes, no NUL.
    pub fn set_tag(&mut self, tag: &str) -> Result<()> {
        check_tag(tag)?;
        self.tag = tag.to_owned();
        Ok(())
    }

    /// Check the invariants: positive size, tag of at most 255 bytes without NUL.
    pub fn validate(&self) -> Result<()> {
        ensure!(self.size > 0, InvalidArgument, "opaque: size is 0");
        check_tag(&self.tag)
    }
}

impl CompoundType {
    /// Set the total size (`H5Tset_size`). Growing is always allowed; shrinking may not cut
    /// into the member that starts last.
    pub fn set_size(&mut self, size: usize) -> Result<()> {
        ensure!(size > 0, InvalidArgument, "compound size must be positive");
        if size < self.size {
            if let Some(last) = self.members.iter().max_by_key(|m| m.offset) {
                let end = last.offset.saturating_add(last.datatype.size());
                ensure!(
                    size >= end,
                    InvalidArgument,
                    "shrinking the compound to {size} bytes would cut member {:?} at bytes {}..{end}",
                    last.name,
                    last.offset
                );
            }
        }
        self.size = size;
        Ok(())
    }

    /// The member at `index` (`H5Tget_member_*` by index).
    pub fn member_at(&self, index: usize) -> Result<&Member> {
        self.members.get(index).ok_or_else(|| {
            Error::new(
                ErrorKind::NotFound,
                format!(
                    "member index {index} is out of range (the compound has {} members)",
                    self.members.len()
                ),
            )
        })
    }

    /// The member named `name`, or a `NotFound` error.
    pub fn member_named(&self, name: &str) -> Result<&Member> {
        self.member(name).ok_or_else(|| {
            Error::new(
                ErrorKind::NotFound,
                format!("the compound has no member {name:?}"),
            )
        })
    }

    /// Check the invariants recursively: positive size, at most 65535 members, unique
    /// non-empty names, members inside the size and not overlapping, valid member types.
    pub fn validate(&self) -> Result<()> {
        ensure!(self.size > 0, InvalidArgument, "compound: size is 0");
        ensure!(
            self.members.len() <= MAX_COMPOUND_MEMBERS,
            InvalidArgument,
            "compound: {} members, the most is {MAX_COMPOUND_MEMBERS}",
            self.members.len()
        );
        let mut spans: Vec<(usize, usize, &str)> = Vec::with_capacity(self.members.len());
        let mut names: Vec<&str> = Vec::with_capacity(self.members.len());
        for m in &self.members {
            ensure!(
                !m.name.is_empty(),
                InvalidArgument,
                "compound: a member has an empty name"
            );
            m.datatype.validate().map_err(|e| {
                Error::new(e.kind(), format!("member {:?}: {}", m.name, e.message()))
            })?;
            let size = m.datatype.size();
            ensure!(
                size > 0,
                InvalidArgument,
                "compound: member {:?} has size 0",
                m.name
            );
            let end = m.offset.checked_add(size);
            ensure!(
                matches!(end, Some(e) if e <= self.size),
                Overlap,
                "compound: member {:?} at offset {} with size {size} extends past the size {}",
                m.name,
                m.offset,
                self.size
            );
            spans.push((m.offset, m.offset + size, &m.name));
            names.push(&m.name);
        }
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            bail!(
                DuplicateName,
                "compound: member name {:?} is used twice",
                w[0]
            );
        }
        spans.sort_unstable();
        if let Some(w) = spans.windows(2).find(|w| w[1].0 < w[0].1) {
            bail!(
                Overlap,
                "compound: member {:?} at bytes {}..{} overlaps member {:?} at bytes {}..{}",
                w[1].2,
                w[1].0,
                w[1].1,
                w[0].2,
                w[0].0,
                w[0].1
            );
        }
        Ok(())
    }
}

impl EnumType {
    /// The member at `index`.
    pub fn member_at(&self, index: usize) -> Result<&EnumMember> {
        self.members.get(index).ok_or_else(|| {
            Error::new(
                ErrorKind::NotFound,
                format!(
                    "member index {index} is out of range (the enum has {} members)",
                    self.members.len()
                ),
            )
        })
    }

    /// The index of the member named `name` (`H5Tget_member_index`).
    pub fn member_index(&self, name: &str) -> Option<usize> {
        self.members.iter().position(|m| m.name == name)
    }

    /// The raw value (base representation) of the member named `name` (`H5Tenum_valueof`).
    pub fn raw_value_of(&self, name: &str) -> Option<&[u8]> {
        self.members
            .iter()
            .find(|m| m.name == name)
            .map(|m| m.value.as_slice())
    }

    /// Check the invariants: a valid base, unique non-empty names, values of the base's size
    /// and unique.
    pub fn validate(&self) -> Result<()> {
        self.base
            .validate()
            .map_err(|e| Error::new(e.kind(), format!("enum base: {}", e.message())))?;
        let size = self.base.size();
        let mut names: Vec<&str> = Vec::with_capacity(self.members.len());
        let mut values: Vec<&[u8]> = Vec::with_capacity(self.members.len());
        for m in &self.members {
            ensure!(
                !m.name.is_empty(),
                InvalidArgument,
                "enum: a member has an empty name"
            );
            ensure!(
                m.value.len() == size,
                InvalidArgument,
                "enum: member {:?} has a {}-byte value, the base has {size} bytes",
                m.name,
                m.value.len()
            );
            names.push(&m.name);
            values.push(&m.value);
        }
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            bail!(DuplicateName, "enum: member name {:?} is used twice", w[0]);
        }
        values.sort_unstable();
        if values.windows(2).any(|w| w[0] == w[1]) {
            bail!(DuplicateValue, "enum: two members have the same value");
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Dispatch on Datatype

/// How a setter treats an enum that already has members.
#[derive(Clone, Copy, PartialEq, Eq)]
enum EnumRule {
    /// The reference library refuses the operation on such an enum at the top level only
    /// (deeper, through an array or sequence, it applies it to the base).
    RefuseAtTop,
    /// Also refuse deeper when the base's size would change (the reference library would
    /// leave the member values with the wrong size).
    RefuseAtTopAndResize,
    /// Enums are not special.
    Ignore,
}

fn enum_with_members(op: &str) -> Error {
    Error::new(
        ErrorKind::Immutable,
        format!("{op}: not allowed on an enum after its members are defined"),
    )
}

impl Datatype {
    /// Apply `f` to the type found by following array, sequence, enum and complex bases down
    /// from `self` (the reference library's "defer to parent").
    fn on_leaf(
        &mut self,
        op: &str,
        rule: EnumRule,
        top: bool,
        f: &mut dyn FnMut(&mut Datatype) -> Result<()>,
    ) -> Result<()> {
        match self {
            Datatype::Array(a) => a.base.on_leaf(op, rule, false, f),
            Datatype::VarLen(v) => v.base.on_leaf(op, rule, false, f),
            Datatype::Enum(e) => {
                if !e.members.is_empty() && top && rule != EnumRule::Ignore {
                    return Err(enum_with_members(op));
                }
                let mut base = Datatype::Integer(e.base);
                base.on_leaf(op, rule, false, f)?;
                let Datatype::Integer(b) = base else {
                    bail!(WrongClass, "{op}: the base of an enum must stay an integer");
                };
                if !e.members.is_empty()
                    && rule == EnumRule::RefuseAtTopAndResize
                    && b.size() != e.base.size()
                {
                    bail!(
                        Immutable,
                        "{op}: would change the size of an enum that has members from {} to {} bytes",
                        e.base.size(),
                        b.size()
                    );
                }
                e.base = b;
                Ok(())
            }
            Datatype::Complex(c) => {
                let mut base = Datatype::Float(c.base);
                base.on_leaf(op, rule, false, f)?;
                let Datatype::Float(b) = base else {
                    bail!(
                        WrongClass,
                        "{op}: the base of a complex type must stay a float"
                    );
                };
                c.base = b;
                Ok(())
            }
            leaf => f(leaf),
        }
    }

    /// Run `op` on a copy and keep the result only on success.
    fn atomically(&mut self, op: impl FnOnce(&mut Datatype) -> Result<()>) -> Result<()> {
        let mut copy = self.clone();
        op(&mut copy)?;
        copy.check_array_sizes()?;
        *self = copy;
        Ok(())
    }

    /// Whether every array inside still has an addressable size (a base may have grown).
    fn check_array_sizes(&self) -> Result<()> {
        match self {
            Datatype::Array(a) => {
                a.base.check_array_sizes()?;
                let bytes = (a.base.size() as u64).checked_mul(a.len());
                ensure!(
                    matches!(bytes, Some(b) if b <= u64::from(u32::MAX)),
                    InvalidArgument,
                    "an array of {} elements of {} bytes would be too large",
                    a.len(),
                    a.base.size()
                );
                Ok(())
            }
            Datatype::VarLen(v) => v.base.check_array_sizes(),
            Datatype::Compound(c) => c
                .members
                .iter()
                .try_for_each(|m| m.datatype.check_array_sizes()),
            _ => Ok(()),
        }
    }

    /// Set the size in bytes (`H5Tset_size`).
    ///
    /// Integers, floats, bitfields and time types adjust offset and precision (a float fails
    /// if its fields would be cut); fixed strings, opaque types and compounds (see
    /// [`CompoundType::set_size`]) take the new size; arrays, sequences and enums without
    /// members resize their base. References, enums with members and variable-length strings
    /// cannot be resized. Use [`Datatype::set_variable_size`] for `H5T_VARIABLE`.
    pub fn set_size(&mut self, size: usize) -> Result<()> {
        ensure!(size > 0, InvalidArgument, "set_size: size must be positive");
        if let Datatype::Reference(_) = self {
            bail!(
                WrongClass,
                "set_size: the size of a reference type cannot be set"
            );
        }
        self.atomically(|t| {
            t.on_leaf(
                "set_size",
                EnumRule::RefuseAtTopAndResize,
                true,
                &mut |leaf| match leaf {
                    Datatype::Integer(x) => x.set_size(size),
                    Datatype::Float(x) => x.set_size(size),
                    Datatype::Bitfield(x) => x.set_size(size),
                    Datatype::Time(x) => {
                        ensure!(size > 0, InvalidArgument, "size must be positive");
                        x.size = size;
                        x.precision = x.precision.min(size.saturating_mul(8));
                        Ok(())
                    }
                    Datatype::String(x) => x.set_size(StringSize::Fixed(size)),
                    Datatype::Opaque(x) => x.set_size(size),
                    Datatype::Compound(x) => x.set_size(size),
                    other => bail!(
                        WrongClass,
                        "set_size: not defined for {}",
                        other.class().name()
                    ),
                },
            )
        })
    }

    /// Make a string variable-length (`H5Tset_size(H5T_VARIABLE)`), keeping its padding and
    /// character set. Only strings (fixed or already variable) accept this.
    pub fn set_variable_size(&mut self) -> Result<()> {
        match self {
            Datatype::String(s) => s.set_size(StringSize::Variable),
            other => bail!(
                WrongClass,
                "set_size(H5T_VARIABLE): only strings may be variable length, not {}",
                other.class().name()
            ),
        }
    }

    /// Set the precision in bits (`H5Tset_precision`) of an integer, float, bitfield or time
    /// type, or of the base of an array, sequence or member-less enum. The offset moves down,
    /// then the size grows, to keep the significant bits inside. A string's precision is
    /// read-only; compounds, opaque and reference types have none.
    pub fn set_precision(&mut self, precision: usize) -> Result<()> {
        ensure!(
            precision > 0,
            InvalidArgument,
            "set_precision: precision must be positive"
        );
        match self {
            Datatype::String(_) => {
                bail!(
                    WrongClass,
                    "set_precision: the precision of a string is read-only"
                )
            }
            Datatype::Compound(_) | Datatype::Opaque(_) => bail!(
                WrongClass,
                "set_precision: not defined for {}",
                self.class().name()
            ),
            _ => {}
        }
        self.atomically(|t| {
            t.on_leaf(
                "set_precision",
                EnumRule::RefuseAtTopAndResize,
                true,
                &mut |leaf| match leaf {
                    Datatype::Integer(x) => x.set_precision(precision),
                    Datatype::Float(x) => x.set_precision(precision),
                    Datatype::Bitfield(x) => x.set_precision(precision),
                    Datatype::Time(x) => {
                        x.precision = precision;
                        x.size = x.size.max(precision.div_ceil(8));
                        Ok(())
                    }
                    other => bail!(
                        WrongClass,
                        "set_precision: not defined for {}",
                        other.class().name()
                    ),
                },
            )
        })
    }

    /// Set the bit offset (`H5Tset_offset`) of an integer, float or bitfield (or of the base
    /// of an array, sequence or member-less enum); the size grows to fit. A fixed string
    /// accepts only 0; compounds, opaque and reference types have no offset.
    pub fn set_offset(&mut self, offset: usize) -> Result<()> {
        match self {
            Datatype::String(_) if offset != 0 => {
                bail!(
                    InvalidArgument,
                    "set_offset: the offset of a string must be 0"
                )
            }
            Datatype::Compound(_) | Datatype::Opaque(_) | Datatype::Reference(_) => bail!(
                WrongClass,
                "set_offset: not defined for {}",
                self.class().name()
            ),
            _ => {}
        }
        self.atomically(|t| {
            t.on_leaf(
                "set_offset",
                EnumRule::RefuseAtTopAndResize,
                true,
                &mut |leaf| match leaf {
                    Datatype::Integer(x) => x.set_offset(offset),
                    Datatype::Float(x) => x.set_offset(offset),
                    Datatype::Bitfield(x) => x.set_offset(offset),
                    Datatype::String(_) if offset == 0 => Ok(()),
                    Datatype::Time(_) if offset == 0 => Ok(()),
                    other => bail!(
                        Unsupported,
                        "set_offset: offset {offset} cannot be set on {}",
                        other.class().name()
                    ),
                },
            )
        })
    }

    /// Set the padding below and above the significant bits (`H5Tset_pad`) of an integer,
    /// float or bitfield (or of a base). Strings have padding in the reference library but
    /// not in this model, so they refuse.
    pub fn set_pad(&mut self, lsb: Pad, msb: Pad) -> Result<()> {
        self.atomically(|t| {
            t.on_leaf(
                "set_pad",
                EnumRule::RefuseAtTop,
                true,
                &mut |leaf| match leaf {
                    Datatype::Integer(x) => {
                        x.set_pad(lsb, msb);
                        Ok(())
                    }
                    Datatype::Float(x) => {
                        x.set_pad(lsb, msb);
                        Ok(())
                    }
                    Datatype::Bitfield(x) => {
                        x.set_pad(lsb, msb);
                        Ok(())
                    }
                    Datatype::String(_) => bail!(
                        Unsupported,
                        "set_pad: this model keeps no bit padding for strings"
                    ),
                    other => bail!(
                        WrongClass,
                        "set_pad: not defined for {}",
                        other.class().name()
                    ),
                },
            )
        })
    }

    /// Set the byte order (`H5Tset_order`). Atomic types (and bases) take it; a compound
    /// sets it on every member (and fails when it has none, or a member refuses). Strings,
    /// opaque and reference types accept it and keep no order. VAX order is for floats only.
    pub fn set_order(&mut self, order: ByteOrder) -> Result<()> {
        self.atomically(|t| t.set_order_inner(order))
    }

    fn set_order_inner(&mut self, order: ByteOrder) -> Result<()> {
        self.on_leaf(
            "set_order",
            EnumRule::RefuseAtTop,
            true,
            &mut |leaf| match leaf {
                Datatype::Integer(x) => x.set_order(order),
                Datatype::Float(x) => {
                    x.set_order(order);
                    Ok(())
                }
                Datatype::Bitfield(x) => x.set_order(order),
                Datatype::Time(x) => {
                    check_not_vax(order, "a time type")?;
                    x.order = order;
                    Ok(())
                }
                Datatype::String(_) | Datatype::Opaque(_) | Datatype::Reference(_) => Ok(()),
                Datatype::Compound(c) => {
                    ensure!(
                        !c.members.is_empty(),
                        InvalidArgument,
                        "set_order: the compound has no members"
                    );
                    for m in &mut c.members {
                        m.datatype.set_order_inner(order).map_err(|e| {
                            Error::new(e.kind(), format!("member {:?}: {}", m.name, e.message()))
                        })?;
                    }
                    Ok(())
                }
                other => bail!(
                    WrongClass,
                    "set_order: not defined for {}",
                    other.class().name()
                ),
            },
        )
    }

    /// Set the sign scheme (`H5Tset_sign`) of an integer (or an integer base).
    pub fn set_sign(&mut self, sign: Sign) -> Result<()> {
        self.atomically(|t| {
            t.on_leaf(
                "set_sign",
                EnumRule::RefuseAtTop,
                true,
                &mut |leaf| match leaf {
                    Datatype::Integer(x) => {
                        x.set_sign(sign);
                        Ok(())
                    }
                    other => bail!(
                        WrongClass,
                        "set_sign: not defined for {}",
                        other.class().name()
                    ),
                },
            )
        })
    }

    fn on_float(
        &mut self,
        op: &str,
        f: &mut dyn FnMut(&mut FloatType) -> Result<()>,
    ) -> Result<()> {
        self.atomically(|t| {
            t.on_leaf(op, EnumRule::Ignore, true, &mut |leaf| match leaf {
                Datatype::Float(x) => f(x),
                other => bail!(WrongClass, "{op}: not defined for {}", other.class().name()),
            })
        })
    }

    /// Set the float fields (`H5Tset_fields`): sign bit, exponent position and width,
    /// mantissa position and width, all below the precision and not overlapping.
    pub fn set_fields(
        &mut self,
        sign_pos: usize,
        exp_pos: usize,
        exp_size: usize,
        mant_pos: usize,
        mant_size: usize,
    ) -> Result<()> {
        self.on_float("set_fields", &mut |f| {
            f.set_fields(sign_pos, exp_pos, exp_size, mant_pos, mant_size)
        })
    }

    /// Set the exponent bias of a float (`H5Tset_ebias`).
    pub fn set_ebias(&mut self, bias: u64) -> Result<()> {
        self.on_float("set_ebias", &mut |f| {
            f.set_ebias(bias);
            Ok(())
        })
    }

    /// Set the mantissa normalization of a float (`H5Tset_norm`).
    pub fn set_norm(&mut self, norm: Norm) -> Result<()> {
        self.on_float("set_norm", &mut |f| {
            f.set_norm(norm);
            Ok(())
        })
    }

    /// Set the internal padding of a float (`H5Tset_inpad`).
    pub fn set_inpad(&mut self, pad: Pad) -> Result<()> {
        self.on_float("set_inpad", &mut |f| {
            f.set_inpad(pad);
            Ok(())
        })
    }

    fn on_string(&mut self, op: &str, f: &mut dyn FnMut(&mut StringType)) -> Result<()> {
        self.atomically(|t| {
            t.on_leaf(op, EnumRule::Ignore, true, &mut |leaf| match leaf {
                Datatype::String(s) => {
                    f(s);
                    Ok(())
                }
                other => bail!(WrongClass, "{op}: not defined for {}", other.class().name()),
            })
        })
    }

    /// Set the character set of a string (or of the strings of an array or sequence)
    /// (`H5Tset_cset`).
    pub fn set_cset(&mut self, cset: CharSet) -> Result<()> {
        self.on_string("set_cset", &mut |s| s.set_cset(cset))
    }

    /// Set the padding of a string (or of the strings of an array or sequence)
    /// (`H5Tset_strpad`).
    pub fn set_strpad(&mut self, pad: StrPad) -> Result<()> {
        self.on_string("set_strpad", &mut |s| s.set_strpad(pad))
    }

    /// Set the tag of an opaque type (or of the opaque base of an array or sequence)
    /// (`H5Tset_tag`): at most 255 bytes, no NUL.
    pub fn set_tag(&mut self, tag: &str) -> Result<()> {
        check_tag(tag)?;
        self.atomically(|t| {
            t.on_leaf("set_tag", EnumRule::Ignore, true, &mut |leaf| match leaf {
                Datatype::Opaque(o) => o.set_tag(tag),
                other => bail!(
                    WrongClass,
                    "set_tag: not defined for {}",
                    other.class().name()
                ),
            })
        })
    }

    /// Check every invariant of the type, recursively: what the constructors and setters
    /// guarantee. Types built through this crate's API always pass; use it on types that come
    /// from elsewhere (files, generated values).
    pub fn validate(&self) -> Result<()> {
        match self {
            Datatype::Integer(t) => t.validate(),
            Datatype::Float(t) => t.validate(),
            Datatype::Time(t) => t.validate(),
            Datatype::String(t) => t.validate(),
            Datatype::Bitfield(t) => t.validate(),
            Datatype::Opaque(t) => t.validate(),
            Datatype::Compound(t) => t.validate(),
            Datatype::Reference(t) => {
                ensure!(t.size > 0, InvalidArgument, "reference: size is 0");
                Ok(())
            }
            Datatype::Enum(t) => t.validate(),
            Datatype::VarLen(t) => t
                .base
                .validate()
                .map_err(|e| Error::new(e.kind(), format!("sequence base: {}", e.message()))),
            Datatype::Array(t) => {
                ensure!(
                    !t.dims.is_empty() && t.dims.len() <= MAX_ARRAY_RANK,
                    InvalidArgument,
                    "array: rank {} is not in 1..={MAX_ARRAY_RANK}",
                    t.dims.len()
                );
                ensure!(
                    t.dims.iter().all(|&d| d > 0),
                    InvalidArgument,
                    "array: dimensions must be positive: {:?}",
                    t.dims
                );
                t.base
                    .validate()
                    .map_err(|e| Error::new(e.kind(), format!("array base: {}", e.message())))?;
                let n = t.dims.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
                let bytes = n.and_then(|n| n.checked_mul(t.base.size() as u64));
                ensure!(
                    matches!(bytes, Some(b) if b <= u64::from(u32::MAX)),
                    InvalidArgument,
                    "array: {:?} elements of {} bytes is too large",
                    t.dims,
                    t.base.size()
                );
                Ok(())
            }
            Datatype::Complex(t) => t
                .base
                .validate()
                .map_err(|e| Error::new(e.kind(), format!("complex base: {}", e.message()))),
        }
    }
}
