//! The values of two datasets or attributes compared as h5diff compares them
//! (`diff_datasetid`, `diff_array`, `diff_datum`, `diff_region`, `diff_can_type`): whether
//! they can be compared at all, then element by element down to the leaves of every
//! datatype class: numbers under the tolerances, strings character by character,
//! enumerations by name, variable-length sequences element by element, object references by
//! the datasets they point at, region references by their selections, bitfields and opaque
//! values byte by byte.

use h5_types::{Datatype, EnumType, ReferenceKind, StrPad};

use super::report::{ElementDifference, Event, NotComparable, Warning};
use super::source::{ObjectId, ObjectType, RefTarget, Region, Source};
use super::walk::{Engine, Target};
use super::{char_differences, compare_numbers, leaf_pairs, Number};
use crate::selection::Dataspace;

/// A regular hyperslab given after an object's name (`obj[START;STRIDE;COUNT;BLOCK]`,
/// h5diff's `subset_t`); an absent list defaults to 0 (START) or 1 in every dimension.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Subset {
    /// The first element in each dimension.
    pub start: Option<Vec<u64>>,
    /// The distance between blocks in each dimension.
    pub stride: Option<Vec<u64>>,
    /// The number of blocks in each dimension.
    pub count: Option<Vec<u64>>,
    /// The size of a block in each dimension.
    pub block: Option<Vec<u64>>,
}

/// `atoi`: the leading digits, 0 if none.
fn atoi(s: &str) -> u64 {
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap_or(0)
}

impl Subset {
    /// Split `name[...]` into the name and its subset (h5diff's `parse_subset_params`: from
    /// the last `[`; each `;`-separated field a comma-separated list of integers).
    pub fn split(name: &str) -> Option<(String, Subset)> {
        let at = name.rfind('[')?;
        let body = name[at + 1..].trim_end_matches(']');
        let mut fields = body.split(';');
        let mut list = || -> Option<Vec<u64>> {
            let f = fields.next()?.trim();
            if f.is_empty() {
                return None;
            }
            Some(f.split(',').map(|v| atoi(v.trim())).collect())
        };
        let subset = Subset {
            start: list(),
            stride: list(),
            count: list(),
            block: list(),
        };
        Some((name[..at].to_string(), subset))
    }

    /// The selected indices of each dimension of `dims`, in order (a regular hyperslab is the
    /// product of one set per dimension), or why the subset does not fit.
    pub fn indices(&self, dims: &[u64]) -> Result<Vec<Vec<u64>>, String> {
        let rank = dims.len();
        let get = |l: &Option<Vec<u64>>, what: &str, default: u64| -> Result<Vec<u64>, String> {
            match l {
                None => Ok(vec![default; rank]),
                Some(v) if v.len() == rank => Ok(v.clone()),
                Some(v) => Err(format!(
                    "{what} has {} dimensions, the dataset has {rank}",
                    v.len()
                )),
            }
        };
        let start = get(&self.start, "start", 0)?;
        let stride = get(&self.stride, "stride", 1)?;
        let count = get(&self.count, "count", 1)?;
        let block = get(&self.block, "block", 1)?;
        let mut out = Vec::with_capacity(rank);
        for d in 0..rank {
            let (st, sd, c, b) = (start[d], stride[d].max(1), count[d], block[d].max(1));
            let mut v: Vec<u64> = Vec::new();
            for i in 0..c {
                for j in 0..b {
                    let x = i
                        .checked_mul(sd)
                        .and_then(|o| o.checked_add(st))
                        .and_then(|o| o.checked_add(j))
                        .filter(|&x| x < dims[d])
                        .ok_or_else(|| {
                            format!("the subset extends past dimension {d} ({})", dims[d])
                        })?;
                    v.push(x);
                }
            }
            v.sort_unstable();
            v.dedup();
            out.push(v);
        }
        Ok(out)
    }
}

/// How many bytes of each dataset one strip reads at the most (unless one element is larger).
const STRIP_BYTES: u64 = 1 << 22;

/// One strip of a row-major array: a hyperslab whose elements are consecutive.
#[derive(Debug, PartialEq)]
struct Strip {
    start: Vec<u64>,
    count: Vec<u64>,
    /// The row-major index of its first element.
    first: u64,
}

/// The strips of an array of dimensions `dims`, in order, each of at most `budget` elements
/// (at least one): the axis `split` is the outermost whose inner axes fit in the budget
/// whole; a strip is a run along it (of whole inner hyperslabs) at one index of the outer
/// axes. A scalar array is one strip; an array with an empty dimension has none.
struct Strips {
    dims: Vec<u64>,
    split: usize,
    /// How many indices along `split` a strip takes.
    step: u64,
    /// The start of the next strip (`None` when done).
    next: Option<Vec<u64>>,
}

impl Strips {
    fn new(dims: &[u64], budget: u64) -> Strips {
        let mut split = dims.len().saturating_sub(1);
        let mut inner = 1u64;
        while split > 0 {
            let wider = inner.saturating_mul(dims[split]);
            if wider > budget {
                break;
            }
            inner = wider;
            split -= 1;
        }
        let step = (budget / inner.max(1)).max(1);
        let next = (!dims.contains(&0)).then(|| vec![0u64; dims.len()]);
        Strips {
            dims: dims.to_vec(),
            split,
            step,
            next,
        }
    }
}

impl Iterator for Strips {
    type Item = Strip;

    fn next(&mut self) -> Option<Strip> {
        let start = self.next.take()?;
        if self.dims.is_empty() {
            return Some(Strip {
                start: Vec::new(),
                count: Vec::new(),
                first: 0,
            });
        }
        let s = self.split;
        let mut count = vec![1u64; self.dims.len()];
        count[s] = self.step.min(self.dims[s] - start[s]);
        count[s + 1..].copy_from_slice(&self.dims[s + 1..]);
        let first = start.iter().zip(&self.dims).fold(0u64, |acc, (&i, &d)| {
            acc.saturating_mul(d).saturating_add(i)
        });
        // The next start: further along `split`, else the next index of the outer axes.
        let mut next = start.clone();
        next[s] += count[s];
        let mut axis = s;
        while next[axis] >= self.dims[axis] {
            if axis == 0 {
                return Some(Strip {
                    start,
                    count,
                    first,
                });
            }
            next[axis] = 0;
            axis -= 1;
            next[axis] += 1;
        }
        self.next = Some(next);
        Some(Strip {
            start,
            count,
            first,
        })
    }
}

/// The running count of one comparison of values (`diff_array`'s).
pub(super) struct Elements {
    nfound: u64,
    max: Option<u64>,
}

impl Elements {
    fn new(max: Option<u64>) -> Self {
        Elements { nfound: 0, max }
    }

    fn full(&self) -> bool {
        self.max.is_some_and(|c| self.nfound >= c)
    }
}

pub(super) fn is_atomic(dt: &Datatype) -> bool {
    !matches!(
        dt,
        Datatype::Reference(_)
            | Datatype::Compound(_)
            | Datatype::String(_)
            | Datatype::VarLen(_)
            | Datatype::Array(_)
    )
}

/// The dimensions and maximum dimensions of a dataspace (none for scalar and null ones).
fn extent(s: &Dataspace) -> (&[u64], &[u64]) {
    match s {
        Dataspace::Simple { dims, maxdims } => (dims, maxdims),
        _ => (&[], &[]),
    }
}

/// The bytes of a variable-length value (empty for a null one or one that does not read).
fn vlen(s: &dyn Source<'_>, dt: &Datatype, x: &[u8]) -> Vec<u8> {
    s.vlen_data(dt, x).ok().flatten().unwrap_or_default()
}

impl Engine<'_, '_> {
    fn number(&mut self, e: &mut Elements, idx: u64, a: Number, b: Number) {
        if let Some(kind) = compare_numbers(a, b, &self.o.values) {
            e.nfound += 1;
            self.r.event(Event::Difference {
                index: idx,
                difference: ElementDifference::Number {
                    first: a,
                    second: b,
                    kind,
                },
            });
        }
    }

    /// Compare the elements of two buffers of the same shape and type (element `first` on).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn elements(
        &mut self,
        f1: &dyn Source<'_>,
        f2: &dyn Source<'_>,
        dt1: &Datatype,
        dt2: &Datatype,
        b1: &[u8],
        b2: &[u8],
        first: u64,
        e: &mut Elements,
    ) {
        let (s1, s2) = (dt1.size().max(1), dt2.size().max(1));
        let n = (b1.len() / s1).min(b2.len() / s2);
        // Equal values of the same atomic type differ in no way: skip equal runs of
        // elements with one comparison of their bytes.
        let skip_equal = is_atomic(dt1) && dt1 == dt2;
        const RUN: usize = 4096;
        let mut i = 0;
        while i < n {
            if e.full() {
                break;
            }
            if skip_equal && i % RUN == 0 {
                let end = (i + RUN).min(n);
                if b1[i * s1..end * s1] == b2[i * s2..end * s2] {
                    i = end;
                    continue;
                }
            }
            let x = &b1[i * s1..(i + 1) * s1];
            let y = &b2[i * s2..(i + 1) * s2];
            if !(skip_equal && x == y) {
                self.datum(f1, f2, dt1, dt2, x, y, first + i as u64, e);
            }
            i += 1;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn datum(
        &mut self,
        f1: &dyn Source<'_>,
        f2: &dyn Source<'_>,
        dt1: &Datatype,
        dt2: &Datatype,
        x: &[u8],
        y: &[u8],
        idx: u64,
        e: &mut Elements,
    ) {
        if e.full() {
            return;
        }
        match (dt1, dt2) {
            (Datatype::Compound(_), Datatype::Compound(_))
            | (Datatype::Array(_), Datatype::Array(_)) => {
                leaf_pairs(dt1, dt2, x, y, &mut |d1, d2, a, b| {
                    self.datum(f1, f2, d1, d2, a, b, idx, e)
                });
            }
            (Datatype::VarLen(v1), Datatype::VarLen(v2)) => {
                let (a, b) = (vlen(f1, dt1, x), vlen(f2, dt2, y));
                let (s1, s2) = (v1.base().size().max(1), v2.base().size().max(1));
                let n = (a.len() / s1).min(b.len() / s2);
                for k in 0..n {
                    self.datum(
                        f1,
                        f2,
                        v1.base(),
                        v2.base(),
                        &a[k * s1..(k + 1) * s1],
                        &b[k * s2..(k + 1) * s2],
                        idx,
                        e,
                    );
                }
            }
            (Datatype::String(t1), Datatype::String(_)) => {
                let (a, b) = if t1.is_variable() {
                    (vlen(f1, dt1, x), vlen(f2, dt2, y))
                } else {
                    (x.to_vec(), y.to_vec())
                };
                // Null-terminated strings end at their first NUL.
                let cut = |v: Vec<u8>| -> Vec<u8> {
                    if t1.is_variable() || t1.pad() == StrPad::NullTerm {
                        v.into_iter().take_while(|&c| c != 0).collect()
                    } else {
                        v
                    }
                };
                let (a, b) = (cut(a), cut(b));
                let second_longer = a.len() < b.len();
                for (ca, cb) in char_differences(&a, &b) {
                    if e.full() {
                        break;
                    }
                    e.nfound += 1;
                    self.r.event(Event::Difference {
                        index: idx,
                        difference: ElementDifference::Char {
                            first: ca,
                            second: cb,
                            second_longer,
                        },
                    });
                }
            }
            (Datatype::Enum(en1), Datatype::Enum(en2)) => {
                let name = |en: &'_ EnumType, v: &[u8]| {
                    en.members()
                        .iter()
                        .find(|m| m.raw_value() == v)
                        .map(|m| m.name().to_string())
                };
                let (a, b) = (name(en1, x), name(en2, y));
                if (a.is_none() || b.is_none() || a != b) && x != y {
                    e.nfound += 1;
                    let value = |en: &EnumType, v: &[u8]| {
                        h5_types::compose::decode_int(en.base(), v)
                            .map_or(Number::Int(0), Number::Int)
                    };
                    self.r.event(Event::Difference {
                        index: idx,
                        difference: ElementDifference::Enum {
                            first: a.as_deref(),
                            second: b.as_deref(),
                            values: (value(en1, x), value(en2, y)),
                        },
                    });
                }
            }
            (Datatype::Bitfield(_), Datatype::Bitfield(_))
            | (Datatype::Opaque(_), Datatype::Opaque(_)) => {
                for (a, b) in x.iter().zip(y) {
                    self.number(
                        e,
                        idx,
                        Number::Int(i128::from(*a)),
                        Number::Int(i128::from(*b)),
                    );
                }
            }
            (Datatype::Reference(r1), Datatype::Reference(_)) => {
                let (z1, z2) = (x.iter().all(|&c| c == 0), y.iter().all(|&c| c == 0));
                if z1 != z2 {
                    e.nfound += 1;
                    self.r.event(Event::Difference {
                        index: idx,
                        difference: ElementDifference::NullReference,
                    });
                    return;
                }
                if z1 {
                    return;
                }
                let t1 = f1.dereference(dt1, x).ok().flatten();
                let t2 = f2.dereference(dt2, y).ok().flatten();
                // What the references point at not being comparable makes the whole
                // comparison "some objects are not comparable", not this pair.
                let own = self.reason.take();
                e.nfound += self.reference(f1, f2, r1.kind(), t1, t2);
                self.reason = own;
            }
            _ => {
                if let (Some(a), Some(b)) = (Number::decode(dt1, x), Number::decode(dt2, y)) {
                    self.number(e, idx, a, b);
                }
            }
        }
    }

    /// Two references compared by what they point at: the datasets two object references
    /// name, value by value; the selections of two region references.
    fn reference(
        &mut self,
        f1: &dyn Source<'_>,
        f2: &dyn Source<'_>,
        kind: ReferenceKind,
        t1: Option<RefTarget>,
        t2: Option<RefTarget>,
    ) -> u64 {
        let (n1, n2) = self.names.clone();
        match (kind, t1, t2) {
            (ReferenceKind::Object, Some(RefTarget::Object(a)), Some(RefTarget::Object(b))) => {
                let k1 = f1.object_type(a);
                let k2 = f2.object_type(b);
                if k1 != k2 {
                    self.not_comparable(&n1, &n2, NotComparable::ReferencedTypes);
                    0
                } else if k1 == Some(ObjectType::Dataset) {
                    let names = (n1.clone(), n2.clone());
                    self.dataset_values(f1, f2, a, b, (&n1, &n2), &names)
                } else {
                    self.not_comparable(&n1, &n2, NotComparable::ReferencedObjects);
                    0
                }
            }
            (
                ReferenceKind::DatasetRegion,
                Some(RefTarget::Region {
                    dataset: a,
                    selection: s1,
                }),
                Some(RefTarget::Region {
                    dataset: b,
                    selection: s2,
                }),
            ) => self.region(a, b, &s1, &s2),
            _ => 0,
        }
    }

    /// `diff_region`: two dataset regions, block by block and point by point; a difference
    /// per block or point that differs in any coordinate.
    fn region(&mut self, a: ObjectId, b: ObjectId, s1: &Region, s2: &Region) -> u64 {
        let blocks = |s: &Region| match s {
            Region::Blocks(v) => Some(v.clone()),
            _ => None,
        };
        let points = |s: &Region| match s {
            Region::Points(v) => Some(v.clone()),
            _ => None,
        };
        let (b1, b2, p1, p2) = (blocks(s1), blocks(s2), points(s1), points(s2));
        let ndims = |s: &Region| match s {
            Region::Blocks(v) => v.first().map_or(0, |x| x.0.len()),
            Region::Points(v) => v.first().map_or(0, Vec::len),
            Region::Other => 0,
        };
        let nd = ndims(s1);
        if b1.as_ref().map(Vec::len) != b2.as_ref().map(Vec::len)
            || p1.as_ref().map(Vec::len) != p2.as_ref().map(Vec::len)
            || nd != ndims(s2)
        {
            let (n1, n2) = self.names.clone();
            self.not_comparable(&n1, &n2, NotComparable::Regions);
            return 0;
        }
        let (mut nb, mut np) = (0u64, 0u64);
        if let (Some(b1), Some(b2)) = (&b1, &b2) {
            for (x, y) in b1.iter().zip(b2) {
                for j in 0..nd {
                    if x.0.get(j) != y.0.get(j) || x.1.get(j) != y.1.get(j) {
                        nb += 1;
                    }
                }
            }
            if nb > 0 {
                self.r.event(Event::RegionBlocks {
                    first: a,
                    second: b,
                    first_blocks: b1,
                    second_blocks: b2,
                });
            }
        }
        if let (Some(p1), Some(p2)) = (&p1, &p2) {
            for (x, y) in p1.iter().zip(p2) {
                np += x.iter().zip(y).filter(|(u, v)| u != v).count() as u64;
            }
            if np > 0 {
                self.r.event(Event::RegionPoints {
                    first_points: p1,
                    second_points: p2,
                });
            }
        }
        let nd = nd.max(1) as u64;
        nb / nd + np / nd
    }

    /// `diff_can_type`: whether two datasets (or attributes) can be compared; tells why not.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn can_compare(
        &mut self,
        dt1: &Datatype,
        dt2: &Datatype,
        s1: &Dataspace,
        s2: &Dataspace,
        n1: &str,
        n2: &str,
        attribute: bool,
        member: bool,
    ) -> bool {
        if std::mem::discriminant(dt1) != std::mem::discriminant(dt2) {
            let why = NotComparable::Classes {
                first: dt1.clone(),
                second: dt2.clone(),
                member,
            };
            self.not_comparable(n1, n2, why);
            return false;
        }
        if matches!(dt1, Datatype::Time(_)) {
            self.not_comparable(n1, n2, NotComparable::Time(dt2.clone()));
            return false;
        }
        if dt1 != dt2 {
            let what = Warning::StorageTypes {
                first: dt1.clone(),
                second: dt2.clone(),
            };
            self.r.event(Event::Warning {
                first: n1,
                second: n2,
                what: &what,
            });
        }
        let ((d1, m1), (d2, m2)) = (extent(s1), extent(s2));
        if d1 != d2 {
            let (m1s, m2s) = if attribute { (d1, d2) } else { (m1, m2) };
            let why = NotComparable::Dimensions {
                first: d1.to_vec(),
                first_max: m1s.to_vec(),
                second: d2.to_vec(),
                second_max: m2s.to_vec(),
            };
            self.not_comparable(n1, n2, why);
            return false;
        }
        if !attribute && m1 != m2 {
            let what = Warning::MaxDimensions {
                first: m1.to_vec(),
                second: m2.to_vec(),
            };
            self.r.event(Event::Warning {
                first: n1,
                second: n2,
                what: &what,
            });
        }
        if let (Datatype::String(a), Datatype::String(b)) = (dt1, dt2) {
            if a.is_variable() != b.is_variable() {
                self.not_comparable(n1, n2, NotComparable::MixedStrings);
                return false;
            }
        }
        if let (Datatype::Compound(a), Datatype::Compound(b)) = (dt1, dt2) {
            if a.members().len() != b.members().len() {
                let why = NotComparable::Members {
                    first: a.members().len(),
                    second: b.members().len(),
                };
                self.not_comparable(n1, n2, why);
                return false;
            }
            for (x, y) in a.members().iter().zip(b.members()) {
                if !self.can_compare(x.datatype(), y.datatype(), s1, s2, n1, n2, attribute, true) {
                    self.st.not_cmp = true;
                    return false;
                }
            }
        }
        true
    }

    /// `diff_datasetid` of the datasets two targets name.
    pub(super) fn dataset_ids(
        &mut self,
        t1: &Target<'_>,
        t2: &Target<'_>,
        paths: (&str, &str),
        names: &(String, String),
    ) -> u64 {
        self.dataset_values(
            t1.source.as_ref(),
            t2.source.as_ref(),
            t1.id,
            t2.id,
            paths,
            names,
        )
    }

    /// `diff_datasetid`: compare two datasets' values (`paths` name them in messages,
    /// `names` in the element report).
    pub(super) fn dataset_values(
        &mut self,
        f1: &dyn Source<'_>,
        f2: &dyn Source<'_>,
        id1: ObjectId,
        id2: ObjectId,
        paths: (&str, &str),
        names: &(String, String),
    ) -> u64 {
        let (Ok(d1), Ok(d2)) = (f1.dataset(id1), f2.dataset(id2)) else {
            self.st.error = true;
            return 0;
        };
        let (p1, p2) = paths;
        let mut can = true;
        if d1.storage_size == 0 || d2.storage_size == 0 {
            if d1.is_virtual || d2.is_virtual {
                self.r.event(Event::Warning {
                    first: p1,
                    second: p2,
                    what: &Warning::Virtual,
                });
            } else {
                self.not_comparable(p1, p2, NotComparable::Empty);
                can = false;
            }
        }
        let (dt1, dt2) = (&d1.datatype, &d2.datatype);
        if !self.can_compare(dt1, dt2, &d1.space, &d2.space, p1, p2, false, false) {
            can = false;
        }
        if can {
            if let (Datatype::Integer(a), Datatype::Integer(b)) = (dt1, dt2) {
                if a.is_signed() != b.is_signed() {
                    let why = NotComparable::Signs {
                        first: a.is_signed(),
                        second: b.is_signed(),
                    };
                    self.not_comparable(p1, p2, why);
                    can = false;
                }
            }
        }
        if !can {
            return 0;
        }
        let dims = extent(&d1.space).0.to_vec();
        let dims2 = extent(&d2.space).0.to_vec();
        let subsets = match &self.subset_at {
            Some((a, b)) if a == p1 && b == p2 && !dims.is_empty() => {
                let full = Subset::default();
                let s1 = self.o.subsets[0].as_ref().unwrap_or(&full);
                let s2 = self.o.subsets[1].as_ref().unwrap_or(s1);
                match (s1.indices(&dims), s2.indices(&dims2)) {
                    (Ok(a), Ok(b)) => Some((a, b)),
                    (Err(why), _) | (_, Err(why)) => {
                        self.r.event(Event::BadSubset {
                            path: p1,
                            why: &why,
                        });
                        self.st.error = true;
                        return 0;
                    }
                }
            }
            _ => None,
        };
        let mut e = Elements::new(self.o.values.max_differences);
        let outer = std::mem::replace(&mut self.names, names.clone());
        self.r.event(Event::ValuesBegin {
            first: &names.0,
            second: &names.1,
            dims: &dims,
        });
        if let Some((a, b)) = subsets {
            self.subset_elements(f1, f2, (id1, id2), (dt1, dt2), (&a, &b), &dims, &mut e);
        } else {
            self.strips(f1, f2, (id1, id2), (dt1, dt2), &dims, &mut e);
        }
        self.r.event(Event::ValuesEnd);
        self.names = outer;
        e.nfound
    }

    /// All the elements of two datasets of shape `dims`, strip by strip (a run of rows of
    /// the first dimension at a time), so a dataset of any size is compared in bounded
    /// memory.
    #[allow(clippy::too_many_arguments)]
    fn strips(
        &mut self,
        f1: &dyn Source<'_>,
        f2: &dyn Source<'_>,
        (id1, id2): (ObjectId, ObjectId),
        (dt1, dt2): (&Datatype, &Datatype),
        dims: &[u64],
        e: &mut Elements,
    ) {
        // Arrays of different sizes: both buffers are walked as arrays of the smaller type
        // (h5diff compares the smaller array).
        let (cmp1, cmp2) = match (dt1, dt2) {
            (Datatype::Array(_), Datatype::Array(_)) if dt1.size() != dt2.size() => {
                let small = if dt1.size() <= dt2.size() { dt1 } else { dt2 };
                (small, small)
            }
            _ => (dt1, dt2),
        };
        let esize = dt1.size().max(dt2.size()).max(1) as u64;
        for strip in Strips::new(dims, (STRIP_BYTES / esize).max(1)) {
            if e.full() {
                break;
            }
            let (Ok(b1), Ok(b2)) = (
                f1.read(id1, &strip.start, &strip.count),
                f2.read(id2, &strip.start, &strip.count),
            ) else {
                self.st.error = true;
                return;
            };
            if is_atomic(dt1) && dt1 == dt2 && b1 == b2 {
                continue;
            }
            self.elements(f1, f2, cmp1, cmp2, &b1, &b2, strip.first, e);
        }
    }

    /// Compare the elements two subsets select (`a` and `b`: the selected indices of each
    /// dimension), in order, run by run along the last dimension; positions are those of
    /// the first dataset.
    #[allow(clippy::too_many_arguments)]
    fn subset_elements(
        &mut self,
        f1: &dyn Source<'_>,
        f2: &dyn Source<'_>,
        (id1, id2): (ObjectId, ObjectId),
        (dt1, dt2): (&Datatype, &Datatype),
        (a, b): (&[Vec<u64>], &[Vec<u64>]),
        dims: &[u64],
        e: &mut Elements,
    ) {
        let shape = |v: &[Vec<u64>]| v.iter().map(Vec::len).collect::<Vec<_>>();
        if shape(a) != shape(b) {
            self.st.not_cmp = true;
            self.reason = Some(NotComparable::Subsets);
            return;
        }
        let rank = a.len();
        let (Some(last1), Some(last2)) = (a.last(), b.last()) else {
            return;
        };
        if a.iter().any(Vec::is_empty) {
            return;
        }
        // Runs along the last dimension contiguous in both selections.
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for k in 0..last1.len() {
            match runs.last_mut() {
                Some((s, n))
                    if last1[k] == last1[*s] + *n as u64 && last2[k] == last2[*s] + *n as u64 =>
                {
                    *n += 1
                }
                _ => runs.push((k, 1)),
            }
        }
        let mut pos = vec![0usize; rank - 1];
        loop {
            for &(k, n) in &runs {
                if e.full() {
                    return;
                }
                let mut o1: Vec<u64> = pos.iter().enumerate().map(|(d, &i)| a[d][i]).collect();
                let mut o2: Vec<u64> = pos.iter().enumerate().map(|(d, &i)| b[d][i]).collect();
                o1.push(last1[k]);
                o2.push(last2[k]);
                let mut count = vec![1u64; rank - 1];
                count.push(n as u64);
                let (Ok(b1), Ok(b2)) = (f1.read(id1, &o1, &count), f2.read(id2, &o2, &count))
                else {
                    self.st.error = true;
                    return;
                };
                let first = o1.iter().zip(dims).fold(0u64, |acc, (&i, &d)| {
                    acc.saturating_mul(d).saturating_add(i)
                });
                self.elements(f1, f2, dt1, dt2, &b1, &b2, first, e);
            }
            // The next index tuple of the outer dimensions, row-major.
            let mut d = rank - 1;
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                pos[d] += 1;
                if pos[d] < a[d].len() {
                    break;
                }
                pos[d] = 0;
            }
        }
    }

    /// The count of a fresh comparison of values.
    pub(super) fn counter(&self) -> Elements {
        Elements::new(self.o.values.max_differences)
    }
}

impl Elements {
    /// The differences counted.
    pub(super) fn found(&self) -> u64 {
        self.nfound
    }
}

#[cfg(test)]
mod tests {
    use super::{Strip, Strips};

    #[test]
    fn strips_cover_an_array_in_order_within_the_budget() {
        // Rows of 10 fit a budget of 25 twice: runs of two rows.
        let s: Vec<Strip> = Strips::new(&[5, 10], 25).collect();
        let got: Vec<(Vec<u64>, Vec<u64>, u64)> =
            s.into_iter().map(|s| (s.start, s.count, s.first)).collect();
        assert_eq!(
            got,
            vec![
                (vec![0, 0], vec![2, 10], 0),
                (vec![2, 0], vec![2, 10], 20),
                (vec![4, 0], vec![1, 10], 40),
            ]
        );
        // A row larger than the budget: runs along the last axis, row by row.
        let s: Vec<Strip> = Strips::new(&[2, 3, 7], 4).collect();
        assert_eq!(s.len(), 12);
        assert_eq!(
            (s[1].start.clone(), s[1].count.clone()),
            (vec![0, 0, 4], vec![1, 1, 3])
        );
        assert_eq!((s[2].start.clone(), s[2].first), (vec![0, 1, 0], 7));
        let total: u64 = s.iter().map(|s| s.count.iter().product::<u64>()).sum();
        assert_eq!(total, 42);
        assert!(s
            .windows(2)
            .all(|w| w[0].first + w[0].count.iter().product::<u64>() == w[1].first));
        // Scalar: one strip; an empty dimension: none; all of it within the budget: one.
        assert_eq!(Strips::new(&[], 4).count(), 1);
        assert_eq!(Strips::new(&[3, 0], 4).count(), 0);
        assert_eq!(Strips::new(&[3, 4], 100).count(), 1);
    }
}
