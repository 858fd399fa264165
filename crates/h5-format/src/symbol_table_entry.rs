//! The symbol table entry (format spec III.C, "Symbol Table Entry"): one link of a group stored
//! as a symbol table, and the root group's entry inside superblocks version 0 and 1.

use crate::cursor::{Cursor, Writer};
use crate::message::scoped;
use crate::{Addr, ErrorKind, Result, Sizes};

/// The "Scratch-pad Space" of a symbol table entry, interpreted by its "Cache Type".
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ScratchPad {
    /// Cache type 0: nothing cached. The 16 bytes are kept as stored (normally zero).
    None([u8; 16]),
    /// Cache type 1: the object is a group; the addresses of its v1 B-tree and local heap.
    Group {
        /// "Address of B-tree".
        btree_address: Addr,
        /// "Address of Name Heap".
        heap_address: Addr,
    },
    /// Cache type 2: the entry is a symbolic link; the link value's offset in the local heap.
    SymbolicLink {
        /// "Offset to Link Value".
        link_value_offset: u32,
    },
    /// Any other cache type, with the scratch-pad bytes as stored.
    Other {
        /// The cache type.
        cache_type: u32,
        /// The 16 scratch-pad bytes.
        raw: [u8; 16],
    },
}

impl ScratchPad {
    /// The "Cache Type" field for this scratch-pad.
    pub fn cache_type(&self) -> u32 {
        match self {
            ScratchPad::None(_) => 0,
            ScratchPad::Group { .. } => 1,
            ScratchPad::SymbolicLink { .. } => 2,
            ScratchPad::Other { cache_type, .. } => *cache_type,
        }
    }
}

/// A symbol table entry.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SymbolTableEntry {
    /// "Link Name Offset": offset of the NUL-terminated name in the group's local heap.
    pub link_name_offset: u64,
    /// "Object Header Address".
    pub object_header_address: Addr,
    /// "Cache Type" and "Scratch-pad Space".
    pub scratch: ScratchPad,
}

impl SymbolTableEntry {
    /// Encoded size: two offsets, 8 bytes of cache type and reserved, 16 bytes of scratch-pad.
    pub fn encoded_size(sizes: Sizes) -> usize {
        2 * sizes.offset as usize + 24
    }

    /// Parse one entry.
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "symbol table entry", |c| {
            let link_name_offset = c.read_uint(c.sizes().offset as usize)?;
            let object_header_address = c.read_addr()?;
            let cache_type = c.read_u32()?;
            let _reserved = c.read_u32()?;
            let mut pad = c.sub(16)?;
            let raw: [u8; 16] = pad.read_array()?;
            pad.set_pos(0)?;
            let scratch = match cache_type {
                0 => ScratchPad::None(raw),
                1 => {
                    if 2 * c.sizes().offset as usize > 16 {
                        return Err(c.error(
                            ErrorKind::InvalidValue,
                            "scratch-pad cannot hold two addresses",
                        ));
                    }
                    ScratchPad::Group {
                        btree_address: pad.read_addr()?,
                        heap_address: pad.read_addr()?,
                    }
                }
                2 => ScratchPad::SymbolicLink {
                    link_value_offset: pad.read_u32()?,
                },
                other => ScratchPad::Other {
                    cache_type: other,
                    raw,
                },
            };
            Ok(SymbolTableEntry {
                link_name_offset,
                object_header_address,
                scratch,
            })
        })
    }

    /// Encode the entry.
    pub fn encode(&self, w: &mut Writer) {
        w.put_uint(self.link_name_offset, w.sizes().offset as usize);
        w.put_addr(self.object_header_address);
        w.put_u32(self.scratch.cache_type());
        w.put_u32(0);
        let start = w.len();
        match &self.scratch {
            ScratchPad::None(raw) | ScratchPad::Other { raw, .. } => w.put_bytes(raw),
            ScratchPad::Group {
                btree_address,
                heap_address,
            } => {
                w.put_addr(*btree_address);
                w.put_addr(*heap_address);
            }
            ScratchPad::SymbolicLink { link_value_offset } => w.put_u32(*link_value_offset),
        }
        let used = w.len() - start;
        w.put_zeros(16usize.saturating_sub(used));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_entry_from_bytes() {
        let mut b = vec![0u8; 40];
        b[8..16].copy_from_slice(&0x60u64.to_le_bytes());
        b[16] = 1; // cache type 1
        b[24..32].copy_from_slice(&0x88u64.to_le_bytes());
        b[32..40].copy_from_slice(&0x2a8u64.to_le_bytes());
        let e = SymbolTableEntry::parse(&mut Cursor::new(&b, 0x38, Sizes::DEFAULT)).unwrap();
        assert_eq!(e.link_name_offset, 0);
        assert_eq!(e.object_header_address, Addr(0x60));
        assert_eq!(
            e.scratch,
            ScratchPad::Group {
                btree_address: Addr(0x88),
                heap_address: Addr(0x2a8)
            }
        );
        let mut w = Writer::new(Sizes::DEFAULT);
        e.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn round_trip_small_offsets() {
        let sizes = Sizes {
            offset: 4,
            length: 2,
        };
        for scratch in [
            ScratchPad::None([0; 16]),
            ScratchPad::Group {
                btree_address: Addr(10),
                heap_address: Addr::UNDEF,
            },
            ScratchPad::SymbolicLink {
                link_value_offset: 9,
            },
            ScratchPad::Other {
                cache_type: 7,
                raw: [3; 16],
            },
        ] {
            let e = SymbolTableEntry {
                link_name_offset: 8,
                object_header_address: Addr(0x100),
                scratch,
            };
            let mut w = Writer::new(sizes);
            e.encode(&mut w);
            assert_eq!(w.len(), SymbolTableEntry::encoded_size(sizes));
            let got = SymbolTableEntry::parse(&mut Cursor::new(w.as_slice(), 0, sizes)).unwrap();
            assert_eq!(got, e);
        }
    }

    #[test]
    fn truncated_entry_is_an_error() {
        let b = [0u8; 30];
        let e = SymbolTableEntry::parse(&mut Cursor::new(&b, 0x10, Sizes::DEFAULT)).unwrap_err();
        assert_eq!(e.structure(), "symbol table entry");
    }
}
