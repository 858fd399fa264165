//! Symbol table nodes (`SNOD`): the leaves of a group's version 1 B-tree, each holding up to
//! 2K symbol table entries (K = "Group Leaf Node K").
//!
//! The entry is parsed here by a private-to-this-structure type [`SymbolTableEntry`]; the
//! superblock's root group entry uses the same 40-byte (with 8-byte offsets) layout.

use crate::bits::check_count;
#[cfg(test)]
use crate::ErrorKind;
use crate::{limits, Addr, Cursor, Result, Sizes, Writer};

/// The node signature.
pub const SIGNATURE: [u8; 4] = *b"SNOD";
const STRUCTURE: &str = "symbol table node";
const ENTRY: &str = "symbol table entry";

/// What an entry caches in its scratch-pad space ("Cache Type").
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CachedInfo {
    /// Cache type 0: nothing cached.
    None,
    /// Cache type 1: the object is a group; its B-tree and local heap addresses.
    Group {
        /// "Address of B-tree".
        btree: Addr,
        /// "Address of Name Heap".
        heap: Addr,
    },
    /// Cache type 2: the object is a symbolic link; the offset of its value in the local heap.
    SymbolicLink {
        /// "Offset to Link Value".
        link_value_offset: u32,
    },
    /// Another cache type, with the raw 16-byte scratch-pad.
    Unknown {
        /// The cache type.
        cache_type: u32,
        /// The scratch-pad bytes.
        scratch: [u8; 16],
    },
}

/// A symbol table entry.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SymbolTableEntry {
    /// "Link Name Offset" into the group's local heap.
    pub link_name_offset: u64,
    /// "Object Header Address" (undefined for a symbolic link).
    pub object_header: Addr,
    /// The cache type and scratch-pad.
    pub cache: CachedInfo,
}

impl SymbolTableEntry {
    /// Encoded size: two offsets, cache type, reserved, 16-byte scratch-pad.
    pub fn encoded_size(sizes: Sizes) -> usize {
        2 * sizes.offset as usize + 24
    }

    /// Parse one entry.
    pub fn parse(c: &mut Cursor<'_>) -> Result<SymbolTableEntry> {
        if c.sizes().offset == 8 {
            return Self::parse_8(c);
        }
        let outer = c.structure();
        c.set_structure(ENTRY);
        let link_name_offset = c.read_uint(c.sizes().offset as usize)?;
        let object_header = c.read_addr()?;
        let cache_type = c.read_u32()?;
        c.skip(4)?;
        let mut scratch = c.sub(16)?;
        let cache = match cache_type {
            0 => CachedInfo::None,
            1 => CachedInfo::Group {
                btree: scratch.read_addr()?,
                heap: scratch.read_addr()?,
            },
            2 => CachedInfo::SymbolicLink {
                link_value_offset: scratch.read_u32()?,
            },
            t => CachedInfo::Unknown {
                cache_type: t,
                scratch: scratch.read_array()?,
            },
        };
        if !outer.is_empty() {
            c.set_structure(outer);
        }
        Ok(SymbolTableEntry {
            link_name_offset,
            object_header,
            cache,
        })
    }

    /// [`SymbolTableEntry::parse`] with 8-byte offsets (nearly every file): the 40 bytes
    /// taken at once and decoded at fixed positions.
    fn parse_8(c: &mut Cursor<'_>) -> Result<SymbolTableEntry> {
        let outer = c.structure();
        c.set_structure(ENTRY);
        let b: [u8; 40] = c.read_array()?;
        if !outer.is_empty() {
            c.set_structure(outer);
        }
        let u64_at = |i: usize| {
            let mut v = [0u8; 8];
            v.copy_from_slice(&b[i..i + 8]);
            u64::from_le_bytes(v)
        };
        let addr_at = |i: usize| match u64_at(i) {
            u64::MAX => Addr::UNDEF,
            v => Addr(v),
        };
        let cache = match u32::from_le_bytes([b[16], b[17], b[18], b[19]]) {
            0 => CachedInfo::None,
            1 => CachedInfo::Group {
                btree: addr_at(24),
                heap: addr_at(32),
            },
            2 => CachedInfo::SymbolicLink {
                link_value_offset: u32::from_le_bytes([b[24], b[25], b[26], b[27]]),
            },
            t => {
                let mut scratch = [0u8; 16];
                scratch.copy_from_slice(&b[24..40]);
                CachedInfo::Unknown {
                    cache_type: t,
                    scratch,
                }
            }
        };
        Ok(SymbolTableEntry {
            link_name_offset: u64_at(0),
            object_header: addr_at(8),
            cache,
        })
    }

    /// Encode one entry (scratch-pad bytes not used by the cache type are zero).
    pub fn encode(&self, w: &mut Writer) {
        w.put_uint(self.link_name_offset, w.sizes().offset as usize);
        w.put_addr(self.object_header);
        let mut s = Writer::new(w.sizes());
        let t = match &self.cache {
            CachedInfo::None => 0,
            CachedInfo::Group { btree, heap } => {
                s.put_addr(*btree);
                s.put_addr(*heap);
                1
            }
            CachedInfo::SymbolicLink { link_value_offset } => {
                s.put_u32(*link_value_offset);
                2
            }
            CachedInfo::Unknown {
                cache_type,
                scratch,
            } => {
                s.put_bytes(scratch);
                *cache_type
            }
        };
        w.put_u32(t);
        w.put_u32(0);
        let s = s.into_vec();
        w.put_bytes(&s[..s.len().min(16)]);
        w.put_zeros(16 - s.len().min(16));
    }
}

/// A symbol table node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SymbolTableNode {
    /// The valid entries ("Number of Symbols" of them), in name order.
    pub entries: Vec<SymbolTableEntry>,
}

impl SymbolTableNode {
    /// Size of a node with room for `2k` entries.
    pub fn encoded_size(sizes: Sizes, leaf_k: u16) -> usize {
        8 + 2 * leaf_k as usize * SymbolTableEntry::encoded_size(sizes)
    }

    /// Parse a node.
    pub fn parse(c: &mut Cursor<'_>) -> Result<SymbolTableNode> {
        let mut entries = Vec::new();
        SymbolTableNode::parse_entries(c, &mut entries)?;
        Ok(SymbolTableNode { entries })
    }

    /// Parse a node, appending its entries to `out` (a listing gathers many nodes' entries
    /// in one vector); returns how many. On an error `out` may hold some of them.
    pub fn parse_entries(c: &mut Cursor<'_>, out: &mut Vec<SymbolTableEntry>) -> Result<usize> {
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
        c.skip(1)?;
        let n = c.read_u16()? as u64;
        let esize = SymbolTableEntry::encoded_size(c.sizes()) as u64;
        let n = check_count(
            c,
            n,
            esize,
            limits::MAX_BTREE_ENTRIES as u64,
            "number of symbols",
        )?;
        out.reserve(n);
        for _ in 0..n {
            out.push(SymbolTableEntry::parse(c)?);
        }
        Ok(n)
    }

    /// Encode the node with room for `2 * leaf_k` entries (more if it holds more).
    pub fn encode(&self, w: &mut Writer, leaf_k: u16) {
        w.put_bytes(&SIGNATURE);
        w.put_u8(1);
        w.put_u8(0);
        w.put_u16(self.entries.len() as u16);
        for e in &self.entries {
            e.encode(w);
        }
        let room = 2 * leaf_k as usize;
        if room > self.entries.len() {
            w.put_zeros((room - self.entries.len()) * SymbolTableEntry::encoded_size(w.sizes()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_from_bytes() {
        let mut b = b"SNOD\x01\x00\x02\x00".to_vec();
        // Entry 1: a group, name at heap offset 8, header at 0x60, B-tree 0x88, heap 0x2a8.
        b.extend_from_slice(&8u64.to_le_bytes());
        b.extend_from_slice(&0x60u64.to_le_bytes());
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&[0; 4]);
        b.extend_from_slice(&0x88u64.to_le_bytes());
        b.extend_from_slice(&0x2a8u64.to_le_bytes());
        // Entry 2: a soft link, value at heap offset 24.
        b.extend_from_slice(&16u64.to_le_bytes());
        b.extend_from_slice(&[0xff; 8]);
        b.extend_from_slice(&2u32.to_le_bytes());
        b.extend_from_slice(&[0; 4]);
        b.extend_from_slice(&24u32.to_le_bytes());
        b.extend_from_slice(&[0; 12]);
        // Room for 2K = 4 entries.
        b.extend_from_slice(&[0; 80]);
        let n = SymbolTableNode::parse(&mut Cursor::new(&b, 0x400, Sizes::DEFAULT)).unwrap();
        assert_eq!(
            n.entries,
            vec![
                SymbolTableEntry {
                    link_name_offset: 8,
                    object_header: Addr(0x60),
                    cache: CachedInfo::Group {
                        btree: Addr(0x88),
                        heap: Addr(0x2a8)
                    }
                },
                SymbolTableEntry {
                    link_name_offset: 16,
                    object_header: Addr::UNDEF,
                    cache: CachedInfo::SymbolicLink {
                        link_value_offset: 24
                    }
                }
            ]
        );
        let mut w = Writer::new(Sizes::DEFAULT);
        n.encode(&mut w, 2);
        assert_eq!(w.as_slice(), &b[..]);
        assert_eq!(b.len(), SymbolTableNode::encoded_size(Sizes::DEFAULT, 2));
    }

    #[test]
    fn small_offsets_and_unknown_cache_round_trip() {
        let s = Sizes {
            offset: 4,
            length: 4,
        };
        let n = SymbolTableNode {
            entries: vec![
                SymbolTableEntry {
                    link_name_offset: 0,
                    object_header: Addr(0x10),
                    cache: CachedInfo::None,
                },
                SymbolTableEntry {
                    link_name_offset: 5,
                    object_header: Addr(0x20),
                    cache: CachedInfo::Unknown {
                        cache_type: 9,
                        scratch: [7; 16],
                    },
                },
            ],
        };
        let mut w = Writer::new(s);
        n.encode(&mut w, 1);
        let b = w.into_vec();
        assert_eq!(b.len(), 8 + 2 * 32);
        assert_eq!(
            SymbolTableNode::parse(&mut Cursor::new(&b, 0, s)).unwrap(),
            n
        );
    }

    #[test]
    fn bad_version_and_count() {
        let e = SymbolTableNode::parse(&mut Cursor::new(
            b"SNOD\x00\x00\x00\x00",
            0x10,
            Sizes::DEFAULT,
        ))
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::UnsupportedVersion);
        assert_eq!(e.offset(), Some(0x14));
        let e =
            SymbolTableNode::parse(&mut Cursor::new(b"SNOD\x01\x00\xff\xff", 0, Sizes::DEFAULT))
                .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    }
}
