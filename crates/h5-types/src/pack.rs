//! Removing the padding from compound types (`H5Tpack`).
//!
//! As in the reference library (`H5T__pack`): a compound that is already packed (its members
//! fill its size exactly and are packed themselves) is left alone, member order included.
//! Otherwise its members are packed first, then sorted by offset (this changes the member
//! indexes, as `H5Tpack` does), laid end to end from offset 0, and the size becomes the sum of
//! the member sizes (at least 1). Arrays, sequences and enums pack their base, so compounds
//! inside arrays and variable-length sequences are packed too.

use crate::datatype::*;
use crate::{bail, Result};

impl CompoundType {
    /// Whether the compound has no padding: its members fill the size exactly and are packed
    /// themselves (`H5T__is_packed`). An empty compound is packed when its size is 1 (the size
    /// packing gives it).
    pub fn is_packed(&self) -> bool {
        let used = self
            .members
            .iter()
            .fold(0usize, |n, m| n.saturating_add(m.datatype.size()));
        let tight = if self.members.is_empty() {
            self.size == 1
        } else {
            used == self.size
        };
        tight && self.members.iter().all(|m| m.datatype.is_packed())
    }

    /// Remove the padding (`H5Tpack` on a compound), recursively.
    pub fn pack(&mut self) {
        if self.is_packed() {
            return;
        }
        for m in &mut self.members {
            m.datatype.pack_inner();
        }
        // Offsets are unique among members of non-zero size, so the order is total.
        self.members.sort_by_key(|m| m.offset);
        let mut offset = 0usize;
        for m in &mut self.members {
            m.offset = offset;
            offset = offset.saturating_add(m.datatype.size());
        }
        self.size = offset.max(1);
    }
}

impl Datatype {
    /// Whether no compound inside this type has padding to remove (`H5T__is_packed`; types
    /// without compounds are packed).
    pub fn is_packed(&self) -> bool {
        match self {
            Datatype::Compound(c) => c.is_packed(),
            Datatype::Array(a) => a.base.is_packed(),
            Datatype::VarLen(v) => v.base.is_packed(),
            _ => true,
        }
    }

    /// Recursively remove the padding from every compound in this type (`H5Tpack`). Like the
    /// reference library, this fails when the type contains no compound at all.
    pub fn pack(&mut self) -> Result<()> {
        if !self.detect_class(Class::Compound) {
            bail!(
                WrongClass,
                "pack: {} contains no compound type",
                self.class().name()
            );
        }
        self.pack_inner();
        Ok(())
    }

    /// A packed copy of this type (the type itself when it holds no compound).
    #[must_use]
    pub fn packed(&self) -> Datatype {
        let mut t = self.clone();
        t.pack_inner();
        t
    }

    fn pack_inner(&mut self) {
        match self {
            Datatype::Compound(c) => c.pack(),
            Datatype::Array(a) => a.base.pack_inner(),
            Datatype::VarLen(v) => v.base.pack_inner(),
            _ => {}
        }
    }
}
