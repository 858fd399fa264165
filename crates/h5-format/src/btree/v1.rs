//! Version 1 B-tree nodes (`TREE`), with group keys (node type 0) or chunk keys (node type 1).
//!
//! A node stores room for 2K children and 2K+1 keys; only the first "Entries Used" children and
//! one more key are valid. Parsing reads the valid ones; encoding pads to the full 2K size.

use crate::bits::check_count;
use crate::{limits, Addr, Cursor, ErrorKind, Result, Sizes, Writer};

/// The node signature.
pub const SIGNATURE: [u8; 4] = *b"TREE";
const STRUCTURE: &str = "v1 B-tree node";

/// "Node Type": what the tree indexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeType {
    /// 0: group nodes (children are symbol table nodes at level 0).
    Group,
    /// 1: raw data chunks.
    Chunk,
}

/// A key of a chunk tree (node type 1).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ChunkKey {
    /// "Size of Chunk in bytes" (after filters).
    pub chunk_size: u32,
    /// "Filter Mask": bit i set means filter i was skipped for this chunk.
    pub filter_mask: u32,
    /// The chunk's offset in the dataset: one entry per dataset dimension plus a last one for
    /// the offset within the element (always 0).
    pub offsets: Vec<u64>,
}

/// The keys of a node, by node type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Keys {
    /// Group keys: offsets into the group's local heap of the first name in each subtree.
    Group(Vec<u64>),
    /// Chunk keys.
    Chunk(Vec<ChunkKey>),
}

impl Keys {
    /// Number of keys.
    pub fn len(&self) -> usize {
        match self {
            Keys::Group(k) => k.len(),
            Keys::Chunk(k) => k.len(),
        }
    }

    /// Whether there are no keys.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A version 1 B-tree node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    /// "Node Level": 0 for a leaf.
    pub level: u8,
    /// "Address of Left Sibling" (undefined at the left end).
    pub left_sibling: Addr,
    /// "Address of Right Sibling" (undefined at the right end).
    pub right_sibling: Addr,
    /// The valid keys: one more than the children (or none when there are no children).
    pub keys: Keys,
    /// The valid child pointers ("Entries Used" of them).
    pub children: Vec<Addr>,
}

/// Size in bytes of one key of a node of this type (`chunk_rank` = dataset rank for chunk trees).
pub fn key_size(sizes: Sizes, node_type: NodeType, chunk_rank: usize) -> usize {
    match node_type {
        NodeType::Group => sizes.length as usize,
        NodeType::Chunk => 8 + 8 * (chunk_rank + 1),
    }
}

/// Size in bytes of a whole node with room for `2k` children.
pub fn node_size(sizes: Sizes, node_type: NodeType, chunk_rank: usize, k: u16) -> usize {
    let two_k = 2 * k as usize;
    8 + 2 * sizes.offset as usize
        + (two_k + 1) * key_size(sizes, node_type, chunk_rank)
        + two_k * sizes.offset as usize
}

impl Node {
    /// The node type, from the keys.
    pub fn node_type(&self) -> NodeType {
        match self.keys {
            Keys::Group(_) => NodeType::Group,
            Keys::Chunk(_) => NodeType::Chunk,
        }
    }

    /// Parse a node. `chunk_rank` is the dataset's rank (the chunk key stores one more
    /// offset); it is required for chunk trees (node type 1) and ignored for group trees.
    pub fn parse(c: &mut Cursor<'_>, chunk_rank: Option<usize>) -> Result<Node> {
        c.set_structure(STRUCTURE);
        let start = c.offset();
        c.expect_signature(&SIGNATURE)?;
        let node_type = match c.read_u8()? {
            0 => NodeType::Group,
            1 => NodeType::Chunk,
            t => crate::bail!(InvalidValue, STRUCTURE, start + 4, "unknown node type {t}"),
        };
        let level = c.read_u8()?;
        let used = c.read_u16()? as u64;
        let left_sibling = c.read_addr()?;
        let right_sibling = c.read_addr()?;
        let sizes = c.sizes();
        let rank = match node_type {
            NodeType::Group => 0,
            NodeType::Chunk => {
                let r = chunk_rank.ok_or_else(|| {
                    c.error(
                        ErrorKind::InvalidValue,
                        "a chunk B-tree node needs the dataset rank to be parsed",
                    )
                })?;
                crate::ensure!(
                    r <= limits::MAX_RANK,
                    LimitExceeded,
                    STRUCTURE,
                    start,
                    "dataset rank {r} exceeds {}",
                    limits::MAX_RANK
                );
                r
            }
        };
        let ksize = key_size(sizes, node_type, rank) as u64;
        let entry = ksize + sizes.offset as u64;
        let n = check_count(
            c,
            used,
            entry,
            limits::MAX_BTREE_ENTRIES as u64,
            "entries used",
        )?;
        crate::ensure!(
            c.remaining() as u64 >= used * entry + ksize,
            UnexpectedEof,
            STRUCTURE,
            c.offset(),
            "{used} entries need {} bytes, {} left",
            used * entry + ksize,
            c.remaining()
        );
        let mut children = Vec::with_capacity(n);
        let keys = match node_type {
            NodeType::Group => {
                let mut keys = Vec::with_capacity(n + 1);
                for _ in 0..n {
                    keys.push(c.read_len()?);
                    children.push(c.read_addr()?);
                }
                if n > 0 {
                    keys.push(c.read_len()?);
                }
                Keys::Group(keys)
            }
            NodeType::Chunk => {
                let mut keys = Vec::with_capacity(n + 1);
                let read_key = |c: &mut Cursor<'_>| -> Result<ChunkKey> {
                    let chunk_size = c.read_u32()?;
                    let filter_mask = c.read_u32()?;
                    let mut offsets = Vec::with_capacity(rank + 1);
                    for _ in 0..=rank {
                        offsets.push(c.read_u64()?);
                    }
                    Ok(ChunkKey {
                        chunk_size,
                        filter_mask,
                        offsets,
                    })
                };
                for _ in 0..n {
                    keys.push(read_key(c)?);
                    children.push(c.read_addr()?);
                }
                if n > 0 {
                    keys.push(read_key(c)?);
                }
                Keys::Chunk(keys)
            }
        };
        Ok(Node {
            level,
            left_sibling,
            right_sibling,
            keys,
            children,
        })
    }

    /// Encode the node with room for `2k` children (unused entries are zero). A node holding
    /// more than 2k children is written without padding. Chunk keys are written with their
    /// own number of offsets.
    pub fn encode(&self, w: &mut Writer, k: u16) {
        w.put_bytes(&SIGNATURE);
        w.put_u8(match self.node_type() {
            NodeType::Group => 0,
            NodeType::Chunk => 1,
        });
        w.put_u8(self.level);
        w.put_u16(self.children.len() as u16);
        w.put_addr(self.left_sibling);
        w.put_addr(self.right_sibling);
        let n = self.children.len();
        let two_k = (2 * k as usize).max(n);
        let sizes = w.sizes();
        let rank = match &self.keys {
            Keys::Chunk(keys) => keys
                .first()
                .map_or(0, |k| k.offsets.len().saturating_sub(1)),
            Keys::Group(_) => 0,
        };
        let put_key = |w: &mut Writer, i: usize| match &self.keys {
            Keys::Group(keys) => w.put_len(keys.get(i).copied().unwrap_or(0)),
            Keys::Chunk(keys) => match keys.get(i) {
                Some(key) => {
                    w.put_u32(key.chunk_size);
                    w.put_u32(key.filter_mask);
                    for &o in &key.offsets {
                        w.put_u64(o);
                    }
                }
                None => w.put_zeros(key_size(sizes, NodeType::Chunk, rank)),
            },
        };
        for i in 0..two_k {
            put_key(w, i);
            match self.children.get(i) {
                Some(&a) => w.put_addr(a),
                None => w.put_zeros(sizes.offset as usize),
            }
        }
        put_key(w, two_k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S4: Sizes = Sizes {
        offset: 4,
        length: 4,
    };

    #[test]
    fn group_node_from_bytes() {
        // K = 1: room for 2 children and 3 keys; one child used.
        let mut b = Vec::new();
        b.extend_from_slice(b"TREE");
        b.extend_from_slice(&[0, 0, 1, 0]);
        b.extend_from_slice(&[0xff; 4]); // left
        b.extend_from_slice(&[0xff; 4]); // right
        b.extend_from_slice(&0u32.to_le_bytes()); // key 0
        b.extend_from_slice(&0x200u32.to_le_bytes()); // child 0
        b.extend_from_slice(&8u32.to_le_bytes()); // key 1
        b.extend_from_slice(&[0; 4 + 4]); // unused child 1, key 2
        let mut c = Cursor::new(&b, 0x100, S4);
        let n = Node::parse(&mut c, None).unwrap();
        assert_eq!(n.level, 0);
        assert!(n.left_sibling.is_undef() && n.right_sibling.is_undef());
        assert_eq!(n.keys, Keys::Group(vec![0, 8]));
        assert_eq!(n.children, vec![Addr(0x200)]);
        let mut w = Writer::new(S4);
        n.encode(&mut w, 1);
        assert_eq!(w.as_slice(), &b[..]);
        assert_eq!(b.len(), node_size(S4, NodeType::Group, 0, 1));
    }

    #[test]
    fn chunk_node_round_trip() {
        let key = |s, o: u64| ChunkKey {
            chunk_size: s,
            filter_mask: 0,
            offsets: vec![o, 0, 0],
        };
        let n = Node {
            level: 1,
            left_sibling: Addr(0x10),
            right_sibling: Addr::UNDEF,
            keys: Keys::Chunk(vec![key(40, 0), key(40, 10), key(0, 20)]),
            children: vec![Addr(0x400), Addr(0x800)],
        };
        let mut w = Writer::new(Sizes::DEFAULT);
        n.encode(&mut w, 2);
        let bytes = w.into_vec();
        assert_eq!(
            bytes.len(),
            node_size(Sizes::DEFAULT, NodeType::Chunk, 2, 2)
        );
        let back = Node::parse(&mut Cursor::new(&bytes, 0, Sizes::DEFAULT), Some(2)).unwrap();
        assert_eq!(back, n);
        // Without the rank a chunk node is refused, not guessed.
        let e = Node::parse(&mut Cursor::new(&bytes, 0, Sizes::DEFAULT), None).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
    }

    #[test]
    fn hostile_entry_count_is_an_error() {
        let mut b = b"TREE\x00\x00\xff\xff".to_vec();
        b.extend_from_slice(&[0xff; 16]);
        let e = Node::parse(&mut Cursor::new(&b, 0x40, Sizes::DEFAULT), None).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded);
        assert_eq!(e.structure(), "v1 B-tree node");
        let e = Node::parse(&mut Cursor::new(b"TREE\x07", 0, Sizes::DEFAULT), None).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
    }
}
