//! Global heap collections (`GCOL`), their objects, the free-space object 0, and global heap
//! IDs.

#[cfg(test)]
use crate::ErrorKind;
use crate::{limits, Addr, Cursor, Result, Sizes, Writer};

/// The collection signature.
pub const SIGNATURE: [u8; 4] = *b"GCOL";
const STRUCTURE: &str = "global heap collection";

/// Collection header: signature, version, reserved, collection size.
pub fn header_size(sizes: Sizes) -> usize {
    8 + sizes.length as usize
}

/// Object header: index, reference count, reserved, object size.
pub fn object_header_size(sizes: Sizes) -> usize {
    8 + sizes.length as usize
}

/// The default and minimum collection size.
pub const MIN_COLLECTION_SIZE: u64 = 4096;

/// A global heap object (index 1 and up).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GlobalHeapObject {
    /// "Heap Object Index".
    pub index: u16,
    /// "Reference Count".
    pub reference_count: u16,
    /// "Object Data" ("Object Size" bytes; padding to 8 bytes is not included).
    pub data: Vec<u8>,
}

/// A global heap collection.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GlobalHeapCollection {
    /// "Collection Size": the whole collection, header included.
    pub collection_size: u64,
    /// The objects, in file order.
    pub objects: Vec<GlobalHeapObject>,
}

fn align8(n: u64) -> u64 {
    n.div_ceil(8) * 8
}

impl GlobalHeapCollection {
    /// Parse a collection; the cursor must hold the whole collection.
    pub fn parse(c: &mut Cursor<'_>) -> Result<GlobalHeapCollection> {
        c.set_structure(STRUCTURE);
        let at = c.offset();
        c.expect_signature(&SIGNATURE)?;
        let version = c.read_u8()?;
        crate::ensure!(
            version == 1,
            UnsupportedVersion,
            STRUCTURE,
            at + 4,
            "version {version}"
        );
        c.skip(3)?;
        let collection_size = c.read_len()?;
        let sizes = c.sizes();
        let hdr = header_size(sizes) as u64;
        let ohdr = object_header_size(sizes) as u64;
        crate::ensure!(
            collection_size >= hdr && collection_size <= limits::MAX_METADATA_BLOCK,
            InvalidValue,
            STRUCTURE,
            at + 8,
            "collection size {collection_size} is out of range"
        );
        crate::ensure!(
            c.remaining() as u64 >= collection_size - hdr,
            UnexpectedEof,
            STRUCTURE,
            at + 8,
            "collection of {collection_size} bytes runs past the end of the data"
        );
        let mut body = c.sub((collection_size - hdr) as usize)?;
        let mut objects: Vec<GlobalHeapObject> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        while !body.is_empty() {
            let obj_at = body.offset();
            if (body.remaining() as u64) < ohdr {
                // Too small for an object header: implied free space.
                break;
            }
            let index = body.read_u16()?;
            let reference_count = body.read_u16()?;
            body.skip(4)?;
            let size = body.read_len()?;
            if index == 0 {
                // Object 0: the free space, its size counting its own header.
                crate::ensure!(
                    size >= ohdr && size - ohdr <= body.remaining() as u64,
                    InvalidValue,
                    STRUCTURE,
                    obj_at,
                    "free space object of {size} bytes does not fit the collection"
                );
                body.skip((size - ohdr) as usize)?;
                continue;
            }
            crate::ensure!(
                seen.insert(index),
                InvalidValue,
                STRUCTURE,
                obj_at,
                "object index {index} appears twice"
            );
            let padded = align8(size.min(u64::MAX - 8));
            crate::ensure!(
                padded <= body.remaining() as u64,
                InvalidValue,
                STRUCTURE,
                obj_at,
                "object {index} of {size} bytes does not fit the collection"
            );
            let data = body.read_bytes(size as usize)?.to_vec();
            body.skip((padded - size) as usize)?;
            objects.push(GlobalHeapObject {
                index,
                reference_count,
                data,
            });
        }
        Ok(GlobalHeapCollection {
            collection_size,
            objects,
        })
    }

    /// Bytes of the collection not used by its header and objects: object 0 (its header
    /// included), or a gap too small for a header.
    pub fn free_space(&self, sizes: Sizes) -> u64 {
        let used: u64 = header_size(sizes) as u64
            + self
                .objects
                .iter()
                .map(|o| object_header_size(sizes) as u64 + align8(o.data.len() as u64))
                .sum::<u64>();
        self.collection_size.saturating_sub(used)
    }

    /// The object with heap object index `index`.
    pub fn object(&self, index: u16) -> Option<&GlobalHeapObject> {
        self.objects.iter().find(|o| o.index == index)
    }

    /// Encode the collection: header, objects, then object 0 over the rest (or zeros when the
    /// rest cannot hold an object header). The output is `collection_size` bytes unless the
    /// objects need more.
    pub fn encode(&self, w: &mut Writer) {
        let sizes = w.sizes();
        let start = w.len();
        w.put_bytes(&SIGNATURE);
        w.put_u8(1);
        w.put_zeros(3);
        w.put_len(self.collection_size);
        for o in &self.objects {
            w.put_u16(o.index);
            w.put_u16(o.reference_count);
            w.put_zeros(4);
            w.put_len(o.data.len() as u64);
            w.put_bytes(&o.data);
            // The data is padded to a multiple of eight bytes (of its own length: with
            // lengths of 2 or 4 bytes the object header is not a multiple of eight).
            w.put_zeros((8 - o.data.len() % 8) % 8);
        }
        let used = (w.len() - start) as u64;
        let free = self.collection_size.saturating_sub(used);
        if free >= object_header_size(sizes) as u64 {
            w.put_u16(0);
            w.put_u16(0);
            w.put_zeros(4);
            w.put_len(free);
            w.put_zeros((free - object_header_size(sizes) as u64) as usize);
        } else {
            w.put_zeros(free as usize);
        }
    }
}

/// A global heap ID: the collection's address and the object's index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GlobalHeapId {
    /// "Collection Address".
    pub collection: Addr,
    /// "Object Index".
    pub index: u32,
}

impl GlobalHeapId {
    /// Encoded size: an offset and 4 bytes.
    pub fn encoded_size(sizes: Sizes) -> usize {
        sizes.offset as usize + 4
    }

    /// Parse an ID.
    pub fn parse(c: &mut Cursor<'_>) -> Result<GlobalHeapId> {
        if c.structure().is_empty() {
            c.set_structure("global heap ID");
        }
        Ok(GlobalHeapId {
            collection: c.read_addr()?,
            index: c.read_u32()?,
        })
    }

    /// Encode an ID.
    pub fn encode(&self, w: &mut Writer) {
        w.put_addr(self.collection);
        w.put_u32(self.index);
    }

    /// Whether the ID is the "nil" one (address 0 or undefined), used for null references and
    /// empty variable-length values.
    pub fn is_nil(&self) -> bool {
        self.collection.0 == 0 || self.collection.is_undef()
    }
}

impl From<GlobalHeapId> for (Addr, u32) {
    fn from(id: GlobalHeapId) -> Self {
        (id.collection, id.index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collection_from_bytes() {
        let s = Sizes::DEFAULT;
        let mut b = b"GCOL\x01\x00\x00\x00".to_vec();
        b.extend_from_slice(&4096u64.to_le_bytes());
        // Object 1: 5 bytes "hello", padded to 8.
        b.extend_from_slice(&[1, 0, 1, 0, 0, 0, 0, 0]);
        b.extend_from_slice(&5u64.to_le_bytes());
        b.extend_from_slice(b"hello\0\0\0");
        // Object 2: 8 bytes.
        b.extend_from_slice(&[2, 0, 0, 0, 0, 0, 0, 0]);
        b.extend_from_slice(&8u64.to_le_bytes());
        b.extend_from_slice(&[9; 8]);
        // Object 0: the rest.
        let free = 4096 - b.len() as u64;
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(&free.to_le_bytes());
        b.resize(4096, 0);
        let g = GlobalHeapCollection::parse(&mut Cursor::new(&b, 0x1000, s)).unwrap();
        assert_eq!(g.objects.len(), 2);
        assert_eq!(g.object(1).unwrap().data, b"hello");
        assert_eq!(g.object(1).unwrap().reference_count, 1);
        assert_eq!(g.object(2).unwrap().data, [9; 8]);
        assert_eq!(g.free_space(s), free);
        let mut w = Writer::new(s);
        g.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn round_trip_with_implied_free_space() {
        let s = Sizes {
            offset: 4,
            length: 4,
        };
        // 12 header + (12 + 8) object = 32; 4 bytes left: too small for an object header.
        let g = GlobalHeapCollection {
            collection_size: 36,
            objects: vec![GlobalHeapObject {
                index: 3,
                reference_count: 0,
                data: vec![1, 2, 3],
            }],
        };
        let mut w = Writer::new(s);
        g.encode(&mut w);
        assert_eq!(w.len(), 36);
        let back = GlobalHeapCollection::parse(&mut Cursor::new(w.as_slice(), 0, s)).unwrap();
        assert_eq!(back, g);
        assert_eq!(back.free_space(s), 4);
    }

    #[test]
    fn hostile_collections() {
        let s = Sizes::DEFAULT;
        // Object 0 with size 0 would never advance: refused.
        let mut b = b"GCOL\x01\x00\x00\x00".to_vec();
        b.extend_from_slice(&64u64.to_le_bytes());
        b.extend_from_slice(&[0; 16]);
        b.resize(64, 0);
        let e = GlobalHeapCollection::parse(&mut Cursor::new(&b, 0, s)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        // A collection larger than the data.
        b[8..16].copy_from_slice(&1_000_000u64.to_le_bytes());
        let e = GlobalHeapCollection::parse(&mut Cursor::new(&b, 0, s)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::UnexpectedEof);
        // An object larger than the collection.
        b[8..16].copy_from_slice(&64u64.to_le_bytes());
        b[16] = 1;
        b[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
        let e = GlobalHeapCollection::parse(&mut Cursor::new(&b, 0, s)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
    }

    #[test]
    fn heap_id() {
        let b = [0x00, 0x10, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0];
        let id = GlobalHeapId::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(
            id,
            GlobalHeapId {
                collection: Addr(0x1000),
                index: 3
            }
        );
        assert!(!id.is_nil());
        let mut w = Writer::new(Sizes::DEFAULT);
        id.encode(&mut w);
        assert_eq!(w.as_slice(), &b);
    }
}
