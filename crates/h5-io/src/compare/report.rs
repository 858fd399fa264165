//! What a deep compare tells as it goes ([`Event`], received by a [`Reporter`]) and what it
//! finds in the end ([`Summary`]): per-object outcomes and h5diff's exit status.

use h5_types::Datatype;

use super::source::{ObjectId, ObjectType};
use super::{Number, NumberDifference};

/// Why a pair of objects (or attributes, or referenced objects) is not compared.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum NotComparable {
    /// The two objects are of different kinds.
    ObjectTypes {
        /// The first object's kind.
        first: ObjectType,
        /// The second object's kind.
        second: ObjectType,
    },
    /// The datatypes are of different classes; `member`: found in compound members.
    Classes {
        /// The first datatype.
        first: Datatype,
        /// The second datatype.
        second: Datatype,
        /// Whether the two are members of compounds being compared.
        member: bool,
    },
    /// Time values are not compared.
    Time(Datatype),
    /// The dataspaces differ in rank or dimensions.
    Dimensions {
        /// The first dimensions.
        first: Vec<u64>,
        /// The first maximum dimensions (the dimensions, for attributes).
        first_max: Vec<u64>,
        /// The second dimensions.
        second: Vec<u64>,
        /// The second maximum dimensions (the dimensions, for attributes).
        second_max: Vec<u64>,
    },
    /// One string type is of variable length and the other fixed.
    MixedStrings,
    /// The compounds have different numbers of members.
    Members {
        /// The first compound's number of members.
        first: usize,
        /// The second compound's number of members.
        second: usize,
    },
    /// One integer type is signed and the other is not.
    Signs {
        /// Whether the first is signed.
        first: bool,
        /// Whether the second is signed.
        second: bool,
    },
    /// One of the datasets has no storage.
    Empty,
    /// Two object references point at objects of different kinds.
    ReferencedTypes,
    /// Two object references point at objects other than datasets.
    ReferencedObjects,
    /// Two region references select different numbers of blocks, points or dimensions.
    Regions,
    /// The subsets of the two named datasets select different shapes.
    Subsets,
}

impl std::fmt::Display for NotComparable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotComparable::ObjectTypes { first, second } => {
                write!(f, "objects of different kinds ({first:?} and {second:?})")
            }
            NotComparable::Classes { first, second, .. } => {
                write!(f, "datatypes of different classes ({first} and {second})")
            }
            NotComparable::Time(_) => f.write_str("time values are not compared"),
            NotComparable::Dimensions { first, second, .. } => {
                write!(f, "different dimensions {first:?} and {second:?}")
            }
            NotComparable::MixedStrings => {
                f.write_str("one string type is of variable length and the other fixed")
            }
            NotComparable::Members { first, second } => {
                write!(f, "compounds of {first} and {second} members")
            }
            NotComparable::Signs { .. } => {
                f.write_str("one integer type is signed and the other is not")
            }
            NotComparable::Empty => f.write_str("a dataset without storage"),
            NotComparable::ReferencedTypes => {
                f.write_str("references to objects of different kinds")
            }
            NotComparable::ReferencedObjects => {
                f.write_str("references to objects other than datasets")
            }
            NotComparable::Regions => f.write_str("region references of different shapes"),
            NotComparable::Subsets => f.write_str("subsets of different shapes"),
        }
    }
}

/// Something to report that does not stop the comparison.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Warning {
    /// One of the datasets is virtual (and without storage of its own).
    Virtual,
    /// The two are stored with different datatypes (compared all the same).
    StorageTypes {
        /// The first datatype.
        first: Datatype,
        /// The second datatype.
        second: Datatype,
    },
    /// The two datasets have different maximum dimensions.
    MaxDimensions {
        /// The first maximum dimensions.
        first: Vec<u64>,
        /// The second maximum dimensions.
        second: Vec<u64>,
    },
}

/// How two elements differ: what h5diff prints a line for.
#[derive(Clone, Debug, PartialEq)]
pub enum ElementDifference<'a> {
    /// Two numbers (integers, floats, bitfield and opaque bytes) that differ.
    Number {
        /// The first value.
        first: Number,
        /// The second value.
        second: Number,
        /// How they differ.
        kind: NumberDifference,
    },
    /// Characters of two strings that differ at one position (the shorter string padded
    /// with NULs); `second_longer` when the second string is the longer one.
    Char {
        /// The first string's character.
        first: u8,
        /// The second string's character.
        second: u8,
        /// Whether the second string is longer than the first.
        second_longer: bool,
    },
    /// Enumeration values that differ: their names (`None` for a value without one).
    Enum {
        /// The first value's name.
        first: Option<&'a str>,
        /// The second value's name.
        second: Option<&'a str>,
        /// The two values.
        values: (Number, Number),
    },
    /// One reference is null and the other is not.
    NullReference,
}

/// One row of a pairing table (objects of two groups, attributes of two objects).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairRow {
    /// The name (relative to the compared groups, for objects).
    pub name: String,
    /// Whether the first side has it.
    pub in_first: bool,
    /// Whether the second side has it.
    pub in_second: bool,
}

/// What the comparison tells as it goes, in order. Paths are those of the two sides; the
/// `side` of an event is 0 (first) or 1 (second).
#[derive(Debug)]
#[non_exhaustive]
pub enum Event<'e> {
    /// A named object is in neither form a link of its file (an error).
    ObjectNotFound {
        /// Which side.
        side: usize,
        /// The path.
        path: &'e str,
    },
    /// A dangling link met with `no_dangling_links` set (an error).
    DanglingRefused {
        /// Its path.
        path: &'e str,
    },
    /// A dangling link (with `follow_symlinks`).
    Dangling {
        /// Which side.
        side: usize,
        /// Its path.
        path: &'e str,
    },
    /// One of the two named objects is a dangling link: one difference, nothing more compared.
    NamedDangling,
    /// The objects of the two compared groups, paired by name (only when both named
    /// objects are groups).
    Pairs {
        /// Whether the compared groups are other than the two root groups.
        named: bool,
        /// The rows, in name order.
        rows: &'e [PairRow],
    },
    /// The number of pairs about to be compared.
    Comparing(u64),
    /// One pair compared.
    Compared,
    /// A pair of links that both dangle.
    BothDangling {
        /// The first path.
        first: &'e str,
        /// The second path.
        second: &'e str,
    },
    /// A pair of which one link dangles: one difference.
    OneDangling,
    /// The pair at these paths is the same object.
    SameObject {
        /// The kind.
        kind: ObjectType,
        /// The first path.
        first: &'e str,
        /// The second path.
        second: &'e str,
    },
    /// A pair of objects of this kind starts (datasets: before their values).
    Begin {
        /// The kind.
        kind: ObjectType,
        /// The first path.
        first: &'e str,
        /// The second path.
        second: &'e str,
    },
    /// A pair ends (before its attributes) with this many differences; `external`: both
    /// are external links.
    End {
        /// The kind.
        kind: ObjectType,
        /// The first path.
        first: &'e str,
        /// The second path.
        second: &'e str,
        /// The differences found (values, or 1 for links or types that differ).
        differences: u64,
        /// Whether both are external links.
        external: bool,
    },
    /// Two things named `first` and `second` are not compared.
    NotComparable {
        /// The first name.
        first: &'e str,
        /// The second name.
        second: &'e str,
        /// Why.
        why: &'e NotComparable,
    },
    /// A warning about `first` and `second`.
    Warning {
        /// The first name.
        first: &'e str,
        /// The second name.
        second: &'e str,
        /// What.
        what: &'e Warning,
    },
    /// A subset does not fit its dataset (an error).
    BadSubset {
        /// The dataset's path.
        path: &'e str,
        /// Why.
        why: &'e str,
    },
    /// The comparison of the values of two datasets or attributes (or of referenced
    /// datasets, nested) starts: `first` and `second` name them, `dims` is the shape.
    ValuesBegin {
        /// The first name.
        first: &'e str,
        /// The second name.
        second: &'e str,
        /// The dimensions.
        dims: &'e [u64],
    },
    /// Two elements differ; `index` is the element's row-major index in the first dataset
    /// (see [`position`]).
    Difference {
        /// The element index.
        index: u64,
        /// How they differ.
        difference: ElementDifference<'e>,
    },
    /// The values compared since the matching [`Event::ValuesBegin`] are done.
    ValuesEnd,
    /// The blocks of two region references differ (`Difference`s are not sent for them).
    RegionBlocks {
        /// The first referenced dataset.
        first: ObjectId,
        /// The second referenced dataset.
        second: ObjectId,
        /// The first region's blocks.
        first_blocks: &'e [(Vec<u64>, Vec<u64>)],
        /// The second region's blocks.
        second_blocks: &'e [(Vec<u64>, Vec<u64>)],
    },
    /// The points of two region references differ.
    RegionPoints {
        /// The first region's points.
        first_points: &'e [Vec<u64>],
        /// The second region's points.
        second_points: &'e [Vec<u64>],
    },
    /// The attributes of two objects, paired by name.
    Attributes {
        /// The rows, in name order.
        rows: &'e [PairRow],
    },
    /// The values of two attributes (named `first` and `second`) are about to be compared.
    AttributeBegin {
        /// The first attribute's name and object.
        first: &'e str,
        /// The second attribute's name and object.
        second: &'e str,
    },
    /// The attributes end with this many differences.
    AttributeEnd {
        /// The first attribute's name and object.
        first: &'e str,
        /// The second attribute's name and object.
        second: &'e str,
        /// The differences found.
        differences: u64,
    },
}

/// The coordinates of element `index` of a row-major array of dimensions `dims`.
pub fn position(index: u64, dims: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; dims.len()];
    let mut rest = index;
    for (p, &d) in out.iter_mut().zip(dims).rev() {
        let d = d.max(1);
        *p = rest % d;
        rest /= d;
    }
    out
}

/// Receives the [`Event`]s of a comparison.
pub trait Reporter {
    /// One event.
    fn event(&mut self, event: Event<'_>);
}

/// A reporter that ignores everything (when only the [`Summary`] matters).
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Reporter for Silent {
    fn event(&mut self, _: Event<'_>) {}
}

impl<F: FnMut(Event<'_>)> Reporter for F {
    fn event(&mut self, event: Event<'_>) {
        self(event)
    }
}

/// The outcome of one pair of objects or attributes.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Compared, no difference.
    Same,
    /// Compared, with this many differences.
    Different(u64),
    /// Not compared, for this reason.
    NotComparable(NotComparable),
}

impl Outcome {
    /// The outcome of a pair not compared for `reason`, or compared with `differences`.
    pub fn of(reason: Option<NotComparable>, differences: u64) -> Outcome {
        match reason {
            Some(why) => Outcome::NotComparable(why),
            None if differences > 0 => Outcome::Different(differences),
            None => Outcome::Same,
        }
    }
}

/// The comparison of two attributes of a pair of objects.
#[derive(Clone, Debug, PartialEq)]
pub struct AttributeResult {
    /// The attribute name.
    pub name: String,
    /// What was found.
    pub outcome: Outcome,
}

/// The comparison of a pair of objects at the same relative path.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectResult {
    /// The first object's path.
    pub first: String,
    /// The second object's path.
    pub second: String,
    /// The kind (of the first, when they differ).
    pub kind: ObjectType,
    /// What was found in the object itself (values, link value, datatype).
    pub outcome: Outcome,
    /// The attributes both objects have, compared.
    pub attributes: Vec<AttributeResult>,
}

/// What a comparison found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// The number of differences found (values, attributes, links, dangling links).
    pub differences: u64,
    /// Whether some objects were not compared.
    pub not_comparable: bool,
    /// Whether the two sides hold different sets of objects or attributes.
    pub different_contents: bool,
    /// Whether something could not be read, or an option did not fit (h5diff's exit 2).
    pub error: bool,
    /// The pairs of objects compared, in order.
    pub objects: Vec<ObjectResult>,
}

impl Summary {
    /// h5diff's exit status: 0 when the two are the same, 1 when they differ, 2 on error.
    pub fn exit_status(&self) -> i32 {
        if self.error {
            2
        } else if self.differences > 0 || self.different_contents {
            1
        } else {
            0
        }
    }
}
