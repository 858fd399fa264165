//! Constructors of the composite classes (`H5Tcreate`, `H5Tinsert`, `H5Tenum_create`,
//! `H5Tenum_insert`, `H5Tarray_create`, `H5Tvlen_create`) with the reference library's checks.

use crate::datatype::*;
use crate::{bail, ensure, Result};

/// The most members a compound type may have (the member count is 16 bits in the file).
pub const MAX_COMPOUND_MEMBERS: usize = u16::MAX as usize;
/// The most dimensions an array type may have (`H5S_MAX_RANK`).
pub const MAX_ARRAY_RANK: usize = 32;
/// The longest opaque tag in bytes, terminator excluded (`H5T_OPAQUE_TAG_MAX` - 1).
pub const MAX_OPAQUE_TAG: usize = 255;

impl CompoundType {
    /// An empty compound of `size` bytes (`H5Tcreate(H5T_COMPOUND, size)`); `size > 0`.
    pub fn new(size: usize) -> Result<Self> {
        ensure!(size > 0, InvalidArgument, "compound size must be positive");
        Ok(CompoundType {
            size,
            members: Vec::new(),
        })
    }

    /// Add a member at byte `offset` (`H5Tinsert`). The name must be new and non-empty, the
    /// member must fit inside the total size and must not overlap another member.
    pub fn insert(&mut self, name: &str, offset: usize, datatype: Datatype) -> Result<()> {
        ensure!(
            !name.is_empty(),
            InvalidArgument,
            "compound member name is empty"
        );
        ensure!(
            self.members.len() < MAX_COMPOUND_MEMBERS,
            InvalidArgument,
            "compound already has {} members",
            MAX_COMPOUND_MEMBERS
        );
        if self.members.iter().any(|m| m.name == name) {
            bail!(DuplicateName, "compound member {name:?} already exists");
        }
        let size = datatype.size();
        ensure!(size > 0, InvalidArgument, "member {name:?} has size 0");
        let end = offset.checked_add(size);
        match end {
            Some(end) if end <= self.size => {}
            _ => bail!(
                Overlap,
                "member {name:?} at offset {offset} with size {size} extends past the compound's size {}",
                self.size
            ),
        }
        let end = offset + size;
        for m in &self.members {
            let m_end = m.offset + m.datatype.size();
            if offset < m_end && m.offset < end {
                bail!(
                    Overlap,
                    "member {name:?} at bytes {offset}..{end} overlaps member {:?} at bytes {}..{m_end}",
                    m.name,
                    m.offset
                );
            }
        }
        self.members.push(Member {
            name: name.to_owned(),
            offset,
            datatype,
        });
        Ok(())
    }

    /// Build a compound from `(name, offset, type)` triples, checking each as [`insert`].
    ///
    /// [`insert`]: CompoundType::insert
    pub fn from_members<S: AsRef<str>>(
        size: usize,
        members: impl IntoIterator<Item = (S, usize, Datatype)>,
    ) -> Result<Self> {
        let members: Vec<(S, usize, Datatype)> = members.into_iter().collect();
        Self::try_from_members(size, members).map_err(|(_, e)| e)
    }

    /// [`from_members`](CompoundType::from_members) in O(n log n) instead of one linear scan
    /// per [`insert`](CompoundType::insert) (a file's compound may have 65,535 members). On
    /// failure, the index of the first member `insert` would refuse, and exactly its error.
    pub fn try_from_members<S: AsRef<str>>(
        size: usize,
        members: Vec<(S, usize, Datatype)>,
    ) -> std::result::Result<Self, (usize, crate::Error)> {
        let mut c = CompoundType::new(size).map_err(|e| (0, e))?;
        let bad = first_refused(size, &members);
        let mut members = members.into_iter();
        for (name, offset, datatype) in members.by_ref().take(bad.unwrap_or(usize::MAX)) {
            // Valid by the checks of `first_refused`, which are `insert`'s.
            c.members.push(Member {
                name: name.as_ref().to_owned(),
                offset,
                datatype,
            });
        }
        if let (Some(i), Some((name, offset, t))) = (bad, members.next()) {
            return Err(c.insert(name.as_ref(), offset, t).map_or_else(
                |e| (i, e),
                |()| {
                    (
                        i,
                        crate::Error::new(
                            crate::ErrorKind::InvalidArgument,
                            "compound member check disagrees",
                        ),
                    )
                },
            ));
        }
        Ok(c)
    }
}

/// The index of the first member that [`CompoundType::insert`] would refuse when the members
/// are inserted in order into an empty compound of `size` bytes, or `None`.
fn first_refused<S: AsRef<str>>(size: usize, members: &[(S, usize, Datatype)]) -> Option<usize> {
    // Checks that concern one member and the names before it.
    let mut names = std::collections::HashSet::new();
    let basic = members
        .iter()
        .enumerate()
        .position(|(i, (name, offset, t))| {
            let name = name.as_ref();
            name.is_empty()
                || i >= MAX_COMPOUND_MEMBERS
                || !names.insert(name)
                || t.size() == 0
                || offset.checked_add(t.size()).is_none_or(|end| end > size)
        });
    let valid = basic.unwrap_or(members.len());
    // Overlaps among the valid prefix: whether the first k members overlap is monotone in k,
    // so a binary search finds the first member that overlaps an earlier one.
    let overlaps = |k: usize| {
        let mut spans: Vec<(usize, usize)> = members[..k]
            .iter()
            .map(|(_, o, t)| (*o, *o + t.size()))
            .collect();
        spans.sort_unstable();
        spans.windows(2).any(|w| w[0].1 > w[1].0)
    };
    if !overlaps(valid) {
        return basic;
    }
    let (mut lo, mut hi) = (1, valid); // overlaps(lo - 1) is false, overlaps(hi) is true
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if overlaps(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(hi - 1)
}

impl OpaqueType {
    /// An opaque type of `size` bytes (`> 0`) with an ASCII `tag` of at most 255 bytes.
    pub fn new(size: usize, tag: &str) -> Result<Self> {
        ensure!(size > 0, InvalidArgument, "opaque size must be positive");
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
        Ok(OpaqueType {
            size,
            tag: tag.to_owned(),
        })
    }
}

impl EnumType {
    /// An enum with no members over an integer base (`H5Tenum_create`).
    pub fn new(base: IntegerType) -> Self {
        EnumType {
            base,
            members: Vec::new(),
        }
    }

    /// Add a member whose value is given as a mathematical integer; it must be representable
    /// by the base type (`H5Tenum_insert` from a native value).
    pub fn insert(&mut self, name: &str, value: i128) -> Result<()> {
        let raw = encode_int(&self.base, value).ok_or_else(|| {
            crate::Error::new(
                crate::ErrorKind::InvalidArgument,
                format!("enum value {value} of {name:?} does not fit the base type"),
            )
        })?;
        self.insert_raw(name, raw)
    }

    /// Add a member whose value is given in the base type's own representation
    /// (`base.size()` bytes in its byte order).
    pub fn insert_raw(&mut self, name: &str, value: Vec<u8>) -> Result<()> {
        ensure!(
            !name.is_empty(),
            InvalidArgument,
            "enum member name is empty"
        );
        ensure!(
            value.len() == self.base.size(),
            InvalidArgument,
            "enum value of {name:?} is {} bytes, the base type has {}",
            value.len(),
            self.base.size()
        );
        if self.members.iter().any(|m| m.name == name) {
            bail!(DuplicateName, "enum member {name:?} already exists");
        }
        if let Some(m) = self.members.iter().find(|m| m.value == value) {
            bail!(
                DuplicateValue,
                "enum member {name:?} has the same value as {:?}",
                m.name
            );
        }
        self.members.push(EnumMember {
            name: name.to_owned(),
            value,
        });
        Ok(())
    }

    /// The value of a member as a mathematical integer, when it fits in `i128`
    /// (`H5Tenum_valueof`).
    pub fn value_of(&self, name: &str) -> Option<i128> {
        let m = self.members.iter().find(|m| m.name == name)?;
        decode_int(&self.base, &m.value)
    }

    /// The name of the member with this value (`H5Tenum_nameof`).
    pub fn name_of(&self, value: i128) -> Option<&str> {
        let raw = encode_int(&self.base, value)?;
        self.name_of_raw(&raw)
    }

    /// The name of the member with this raw value.
    pub fn name_of_raw(&self, raw: &[u8]) -> Option<&str> {
        self.members
            .iter()
            .find(|m| m.value == raw)
            .map(|m| m.name.as_str())
    }
}

impl EnumMember {
    /// The value as a mathematical integer, given the enum's base type.
    pub fn value(&self, base: &IntegerType) -> Option<i128> {
        decode_int(base, &self.value)
    }
}

impl ArrayType {
    /// An array of `base` with the given dimensions (`H5Tarray_create`): rank 1 to 32, every
    /// dimension positive, total size addressable.
    pub fn new(base: Datatype, dims: &[u64]) -> Result<Self> {
        ensure!(
            !dims.is_empty(),
            InvalidArgument,
            "array rank must be at least 1"
        );
        ensure!(
            dims.len() <= MAX_ARRAY_RANK,
            InvalidArgument,
            "array rank {} exceeds {MAX_ARRAY_RANK}",
            dims.len()
        );
        ensure!(
            dims.iter().all(|&d| d > 0),
            InvalidArgument,
            "array dimensions must be positive: {dims:?}"
        );
        let mut n: u64 = 1;
        for &d in dims {
            n = n.checked_mul(d).ok_or_else(|| {
                crate::Error::new(
                    crate::ErrorKind::InvalidArgument,
                    "array element count overflows",
                )
            })?;
        }
        let bytes = (base.size() as u64).checked_mul(n);
        ensure!(
            matches!(bytes, Some(b) if b <= u32::MAX as u64),
            InvalidArgument,
            "array of {n} elements of {} bytes is too large",
            base.size()
        );
        Ok(ArrayType {
            dims: dims.to_vec(),
            base: Box::new(base),
        })
    }
}

impl VarLenType {
    /// A variable-length sequence of `base` (`H5Tvlen_create`).
    ///
    /// Like the reference library (which sets the new type's memory location, `H5T_set_loc`),
    /// this sorts by offset the members of every compound inside `base` that holds
    /// variable-length data or references, so member indexes change as they do there.
    pub fn new(mut base: Datatype) -> Self {
        sort_for_location(&mut base);
        VarLenType {
            base: Box::new(base),
        }
    }
}

/// Whether a type needs conversion even to itself (`force_conv`): it holds variable-length
/// data or references.
fn forces_conversion(t: &Datatype) -> bool {
    match t {
        Datatype::String(s) => s.is_variable(),
        Datatype::VarLen(_) | Datatype::Reference(_) => true,
        Datatype::Array(a) => forces_conversion(&a.base),
        Datatype::Compound(c) => c.members.iter().any(|m| forces_conversion(&m.datatype)),
        _ => false,
    }
}

/// What `H5T_set_loc` does to member order: compounds that force conversion are sorted by
/// member offset, recursively through members, arrays and sequences.
fn sort_for_location(t: &mut Datatype) {
    if !forces_conversion(t) {
        return;
    }
    match t {
        Datatype::Compound(c) => {
            c.members.sort_by_key(|m| m.offset);
            for m in &mut c.members {
                sort_for_location(&mut m.datatype);
            }
        }
        Datatype::Array(a) => sort_for_location(&mut a.base),
        Datatype::VarLen(v) => sort_for_location(&mut v.base),
        _ => {}
    }
}

/// Encode a mathematical integer into an integer type's representation (size, order,
/// precision, offset; padding bits zero). `None` if it does not fit in the precision.
pub fn encode_int(t: &IntegerType, value: i128) -> Option<Vec<u8>> {
    let prec = t.precision();
    if prec < 128 {
        if t.is_signed() {
            let min = -(1i128 << (prec - 1));
            let max = (1i128 << (prec - 1)) - 1;
            if value < min || value > max {
                return None;
            }
        } else if value < 0 || value >= (1i128 << prec) {
            return None;
        }
    } else if !t.is_signed() && value < 0 {
        return None;
    }
    let mut le = vec![0u8; t.size()];
    // Write the value's bits, sign-extended to the precision, starting at the offset.
    for bit in 0..prec {
        let v = if bit < 128 {
            (value >> bit) & 1
        } else {
            (value >> 127) & 1
        };
        if v != 0 {
            let pos = t.offset() + bit;
            if pos / 8 >= le.len() {
                return None;
            }
            le[pos / 8] |= 1 << (pos % 8);
        }
    }
    if t.order() == ByteOrder::BigEndian {
        le.reverse();
    }
    Some(le)
}

/// Decode an integer type's representation into a mathematical integer; `None` if the value
/// does not fit in `i128` or the bytes have the wrong length.
pub fn decode_int(t: &IntegerType, raw: &[u8]) -> Option<i128> {
    if raw.len() != t.size() {
        return None;
    }
    let mut le = raw.to_vec();
    if t.order() == ByteOrder::BigEndian {
        le.reverse();
    }
    let prec = t.precision();
    let bit = |i: usize| {
        let pos = t.offset() + i;
        le.get(pos / 8).is_some_and(|b| b & (1 << (pos % 8)) != 0)
    };
    let negative = t.is_signed() && prec > 0 && bit(prec - 1);
    if t.is_signed() {
        // Bits 127 and above must all equal the sign bit.
        if (127..prec).any(|i| bit(i) != negative) {
            return None;
        }
    } else if (127..prec).any(bit) {
        return None;
    }
    let mut v: i128 = 0;
    for i in 0..prec.min(128) {
        if bit(i) {
            v |= 1i128 << i;
        }
    }
    if negative && prec < 128 {
        v |= -1i128 << prec;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(size: usize) -> Datatype {
        IntegerType::new(size, ByteOrder::LittleEndian, Sign::None).into()
    }

    /// The bulk check refuses the same member, with the same error, as inserting one by one.
    #[test]
    fn bulk_check_agrees_with_insert() {
        let mut x: u64 = 0x1234_5678_9abc_def1;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for _ in 0..3000 {
            let size = 1 + next(40) as usize;
            let n = next(8) as usize;
            let members: Vec<(String, usize, Datatype)> = (0..n)
                .map(|_| {
                    (
                        format!("m{}", next(6)),
                        next(44) as usize,
                        int(1 << next(3)),
                    )
                })
                .collect();
            let mut one = CompoundType::new(size).unwrap();
            let sequential = members
                .iter()
                .position(|(name, o, t)| one.insert(name, *o, t.clone()).is_err())
                .map(|i| {
                    (
                        i,
                        one.insert(&members[i].0, members[i].1, members[i].2.clone())
                            .unwrap_err(),
                    )
                });
            let bulk = CompoundType::try_from_members(size, members.clone());
            match (sequential, bulk) {
                (None, Ok(c)) => assert_eq!(c.members, one.members),
                (Some((i, e)), Err((j, f))) => assert_eq!((i, e), (j, f), "{members:?}"),
                (s, b) => panic!(
                    "insert {s:?}, bulk {:?} for {members:?}",
                    b.map(|c| c.members)
                ),
            }
        }
    }

    /// 65,535 members are checked without a quadratic scan.
    #[test]
    fn many_members_are_cheap() {
        let n = MAX_COMPOUND_MEMBERS;
        let members: Vec<(String, usize, Datatype)> =
            (0..n).map(|i| (format!("m{i}"), i, int(1))).collect();
        let c = CompoundType::from_members(n, members).unwrap();
        assert_eq!(c.len(), n);
    }
}
