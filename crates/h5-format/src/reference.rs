//! Reference encodings: the revised references of `H5T_STD_REF` (object, dataset region and
//! attribute, optionally to an external file) and the backward compatible `H5R_OBJECT1`
//! (an address) and `H5R_DATASET_REGION1` (a global heap ID whose object holds an address and
//! a selection).

use crate::heap::global::GlobalHeapId;
use crate::selection::Selection;
use crate::{Addr, Cursor, Result, Sizes, Writer};

const STRUCTURE: &str = "reference";

/// Reference type `H5R_OBJECT2`.
pub const TYPE_OBJECT: u8 = 2;
/// Reference type `H5R_DATASET_REGION2`.
pub const TYPE_DATASET_REGION: u8 = 3;
/// Reference type `H5R_ATTR`.
pub const TYPE_ATTRIBUTE: u8 = 4;
/// Flag bit 0: the reference points into another file.
pub const FLAG_EXTERNAL: u8 = 0x01;
/// Largest object token (`H5O_MAX_TOKEN_SIZE`).
pub const MAX_TOKEN_SIZE: usize = 16;

/// What a revised reference points at.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ReferenceTarget {
    /// `H5R_OBJECT2`: the object itself.
    Object,
    /// `H5R_DATASET_REGION2`: a selection in a dataset.
    Region {
        /// "Rank of dataspace selection" (the dataset's rank).
        rank: u32,
        /// The selection.
        selection: Selection,
    },
    /// `H5R_ATTR`: an attribute of the object.
    Attribute {
        /// "Attribute name" (not NUL-terminated).
        name: Vec<u8>,
    },
}

/// A revised reference (`H5R_ref_t` encoding).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Reference {
    /// "Token": the object token (for the native format, the object header address).
    pub token: Vec<u8>,
    /// "External file name", when the reference is to another file.
    pub external_file: Option<Vec<u8>>,
    /// The target.
    pub target: ReferenceTarget,
}

fn read_string(c: &mut Cursor<'_>) -> Result<Vec<u8>> {
    let n = c.read_u16()? as usize;
    Ok(c.read_bytes(n)?.to_vec())
}

fn put_string(w: &mut Writer, s: &[u8]) {
    let n = s.len().min(u16::MAX as usize);
    w.put_u16(n as u16);
    w.put_bytes(&s[..n]);
}

impl Reference {
    /// "Reference type".
    pub fn ref_type(&self) -> u8 {
        match self.target {
            ReferenceTarget::Object => TYPE_OBJECT,
            ReferenceTarget::Region { .. } => TYPE_DATASET_REGION,
            ReferenceTarget::Attribute { .. } => TYPE_ATTRIBUTE,
        }
    }

    /// "Flags".
    pub fn flags(&self) -> u8 {
        if self.external_file.is_some() {
            FLAG_EXTERNAL
        } else {
            0
        }
    }

    /// Parse a whole encoding: header (type, flags) and block.
    pub fn parse(c: &mut Cursor<'_>) -> Result<Reference> {
        if c.structure().is_empty() {
            c.set_structure(STRUCTURE);
        }
        let ref_type = c.read_u8()?;
        let flags = c.read_u8()?;
        Self::parse_block(c, ref_type, flags)
    }

    /// Parse the block that follows a header of `ref_type` and `flags` (what a global heap
    /// object holds for references stored through the heap).
    pub fn parse_block(c: &mut Cursor<'_>, ref_type: u8, flags: u8) -> Result<Reference> {
        if c.structure().is_empty() {
            c.set_structure(STRUCTURE);
        }
        let at = c.offset();
        crate::ensure!(
            (TYPE_OBJECT..=TYPE_ATTRIBUTE).contains(&ref_type),
            InvalidValue,
            STRUCTURE,
            at,
            "reference type {ref_type}"
        );
        let tat = c.offset();
        let token_size = c.read_u8()? as usize;
        crate::ensure!(
            token_size <= MAX_TOKEN_SIZE,
            InvalidValue,
            STRUCTURE,
            tat,
            "token size {token_size} exceeds {MAX_TOKEN_SIZE}"
        );
        let token = c.read_bytes(token_size)?.to_vec();
        let external_file = if flags & FLAG_EXTERNAL != 0 {
            Some(read_string(c)?)
        } else {
            None
        };
        let target = match ref_type {
            TYPE_OBJECT => ReferenceTarget::Object,
            TYPE_DATASET_REGION => {
                let size = c.read_u32()? as usize;
                let rank = c.read_u32()?;
                let mut s = c.sub(size)?;
                let selection = Selection::parse(&mut s)?;
                ReferenceTarget::Region { rank, selection }
            }
            _ => ReferenceTarget::Attribute {
                name: read_string(c)?,
            },
        };
        Ok(Reference {
            token,
            external_file,
            target,
        })
    }

    /// Encode the whole reference (header and block).
    pub fn encode(&self, w: &mut Writer) {
        w.put_u8(self.ref_type());
        w.put_u8(self.flags());
        self.encode_block(w);
    }

    /// Encode the block only.
    pub fn encode_block(&self, w: &mut Writer) {
        let n = self.token.len().min(MAX_TOKEN_SIZE);
        w.put_u8(n as u8);
        w.put_bytes(&self.token[..n]);
        if let Some(f) = &self.external_file {
            put_string(w, f);
        }
        match &self.target {
            ReferenceTarget::Object => {}
            ReferenceTarget::Region { rank, selection } => {
                w.put_u32(selection.encoded_size() as u32);
                w.put_u32(*rank);
                selection.encode(w);
            }
            ReferenceTarget::Attribute { name } => put_string(w, name),
        }
    }

    /// The object address of a native token (its first Size of Offsets bytes).
    pub fn token_address(&self, sizes: Sizes) -> Option<Addr> {
        let n = sizes.offset as usize;
        let b = self.token.get(..n)?;
        Cursor::new(b, 0, sizes).read_addr().ok()
    }
}

/// How a revised reference is stored in a dataset's raw data: its header and the global heap
/// ID of the object that holds its block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StoredReference {
    /// "Reference type".
    pub ref_type: u8,
    /// "Flags".
    pub flags: u8,
    /// The global heap object holding the block ([`Reference::parse_block`]).
    pub heap_id: GlobalHeapId,
}

impl StoredReference {
    /// Encoded size: 2 + Size of Offsets + 4.
    pub fn encoded_size(sizes: Sizes) -> usize {
        2 + GlobalHeapId::encoded_size(sizes)
    }

    /// Parse.
    pub fn parse(c: &mut Cursor<'_>) -> Result<StoredReference> {
        if c.structure().is_empty() {
            c.set_structure(STRUCTURE);
        }
        Ok(StoredReference {
            ref_type: c.read_u8()?,
            flags: c.read_u8()?,
            heap_id: GlobalHeapId::parse(c)?,
        })
    }

    /// Encode.
    pub fn encode(&self, w: &mut Writer) {
        w.put_u8(self.ref_type);
        w.put_u8(self.flags);
        self.heap_id.encode(w);
    }
}

/// `H5R_OBJECT1`: the referenced object's header address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ObjectReference(pub Addr);

impl ObjectReference {
    /// Parse.
    pub fn parse(c: &mut Cursor<'_>) -> Result<ObjectReference> {
        Ok(ObjectReference(c.read_addr()?))
    }

    /// Encode.
    pub fn encode(&self, w: &mut Writer) {
        w.put_addr(self.0);
    }
}

/// `H5R_DATASET_REGION1` as stored in a dataset: a global heap ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegionReference(pub GlobalHeapId);

impl RegionReference {
    /// Parse.
    pub fn parse(c: &mut Cursor<'_>) -> Result<RegionReference> {
        Ok(RegionReference(GlobalHeapId::parse(c)?))
    }

    /// Encode.
    pub fn encode(&self, w: &mut Writer) {
        self.0.encode(w);
    }
}

/// The global heap object of an `H5R_DATASET_REGION1` reference: the dataset's address and
/// the selection.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RegionReferenceData {
    /// "Object Address" of the dataset.
    pub object: Addr,
    /// The selection.
    pub selection: Selection,
}

impl RegionReferenceData {
    /// Parse.
    pub fn parse(c: &mut Cursor<'_>) -> Result<RegionReferenceData> {
        if c.structure().is_empty() {
            c.set_structure("region reference");
        }
        let object = c.read_addr()?;
        let selection = Selection::parse(c)?;
        Ok(RegionReferenceData { object, selection })
    }

    /// Encode.
    pub fn encode(&self, w: &mut Writer) {
        w.put_addr(self.object);
        self.selection.encode(w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selection::{Block, EncodeSize};

    #[test]
    fn object_reference_from_bytes() {
        // H5R_OBJECT2, internal, 8-byte token = address 0x320.
        let b = [2, 0, 8, 0x20, 3, 0, 0, 0, 0, 0, 0];
        let r = Reference::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(r.target, ReferenceTarget::Object);
        assert_eq!(r.token_address(Sizes::DEFAULT), Some(Addr(0x320)));
        let mut w = Writer::new(Sizes::DEFAULT);
        r.encode(&mut w);
        assert_eq!(w.as_slice(), &b);
    }

    #[test]
    fn attribute_and_external_references_from_bytes() {
        let mut b = vec![4, 1, 8];
        b.extend_from_slice(&0x320u64.to_le_bytes());
        b.extend_from_slice(&[6, 0]);
        b.extend_from_slice(b"ext.h5");
        b.extend_from_slice(&[4, 0]);
        b.extend_from_slice(b"attr");
        let r = Reference::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(r.external_file.as_deref(), Some(&b"ext.h5"[..]));
        assert_eq!(
            r.target,
            ReferenceTarget::Attribute {
                name: b"attr".to_vec()
            }
        );
        let mut w = Writer::new(Sizes::DEFAULT);
        r.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn region_reference_round_trip() {
        let r = Reference {
            token: 0x800u64.to_le_bytes().to_vec(),
            external_file: None,
            target: ReferenceTarget::Region {
                rank: 2,
                selection: Selection::HyperslabV3Blocks {
                    size: EncodeSize::Two,
                    rank: 2,
                    blocks: vec![Block {
                        start: vec![0, 1],
                        end: vec![2, 3],
                    }],
                },
            },
        };
        let mut w = Writer::new(Sizes::DEFAULT);
        r.encode(&mut w);
        let back = Reference::parse(&mut Cursor::new(w.as_slice(), 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(back, r);
        // The size field bounds the selection: too small is an error.
        let mut b = w.into_vec();
        b[11] = 4;
        assert!(Reference::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).is_err());
        // Bad type and token size.
        assert!(Reference::parse(&mut Cursor::new(&[9, 0, 0], 0, Sizes::DEFAULT)).is_err());
        assert!(Reference::parse(&mut Cursor::new(&[2, 0, 200], 0, Sizes::DEFAULT)).is_err());
    }

    #[test]
    fn backward_compatible_forms() {
        let s = Sizes::DEFAULT;
        let mut w = Writer::new(s);
        ObjectReference(Addr(0x320)).encode(&mut w);
        assert_eq!(w.as_slice(), &0x320u64.to_le_bytes());
        let id = GlobalHeapId {
            collection: Addr(0x1000),
            index: 2,
        };
        let mut w = Writer::new(s);
        RegionReference(id).encode(&mut w);
        assert_eq!(
            RegionReference::parse(&mut Cursor::new(w.as_slice(), 0, s)).unwrap(),
            RegionReference(id)
        );
        let data = RegionReferenceData {
            object: Addr(0x320),
            selection: Selection::PointsV1 {
                rank: 1,
                points: vec![vec![4], vec![7]],
            },
        };
        let mut w = Writer::new(s);
        data.encode(&mut w);
        assert_eq!(&w.as_slice()[..8], &0x320u64.to_le_bytes());
        assert_eq!(
            RegionReferenceData::parse(&mut Cursor::new(w.as_slice(), 0, s)).unwrap(),
            data
        );
        let st = StoredReference {
            ref_type: TYPE_DATASET_REGION,
            flags: 0,
            heap_id: id,
        };
        let mut w = Writer::new(s);
        st.encode(&mut w);
        assert_eq!(w.len(), StoredReference::encoded_size(s));
        assert_eq!(
            StoredReference::parse(&mut Cursor::new(w.as_slice(), 0, s)).unwrap(),
            st
        );
    }
}
