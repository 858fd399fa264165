//! The format signature and superblock (format spec III.A), versions 0 to 3, the search for
//! the signature past a user block, and the superblock extension (III.C).

use crate::cursor::{Cursor, Writer};
use crate::message::{scoped, Message};
use crate::object_header::ObjectHeader;
use crate::symbol_table_entry::SymbolTableEntry;
use crate::{Addr, Error, ErrorKind, Result, Sizes};

/// The format signature: `\x89HDF\r\n\x1a\n`.
pub const SIGNATURE: [u8; 8] = [0x89, b'H', b'D', b'F', b'\r', b'\n', 0x1a, b'\n'];

/// Superblock "File Consistency Flags" bit: file opened for write access.
pub const FLAG_WRITE_ACCESS: u32 = 0x1;
/// Superblock "File Consistency Flags" bit: file opened for single-writer/multi-reader.
pub const FLAG_SWMR_WRITE_ACCESS: u32 = 0x4;

/// The offsets at which the signature may appear: 0, then 512 and every power of two above.
/// Yields offsets below `file_len` only, so it is bounded by the file's size.
pub fn signature_offsets(file_len: u64) -> impl Iterator<Item = u64> {
    std::iter::once(0u64)
        .chain((9..64).map(|s| 1u64 << s))
        .take_while(move |&o| o < file_len)
}

/// Find the superblock: the first offset of [`signature_offsets`] where `read(offset, 8)`
/// returns the signature. `read` returns the bytes at an offset (fewer at the end of file).
/// `Ok(None)` when no signature is found.
pub fn find_signature(
    file_len: u64,
    mut read: impl FnMut(u64, usize) -> Result<Vec<u8>>,
) -> Result<Option<u64>> {
    for off in signature_offsets(file_len) {
        let b = read(off, SIGNATURE.len())?;
        if b == SIGNATURE {
            return Ok(Some(off));
        }
    }
    Ok(None)
}

/// [`find_signature`] over a file held in memory.
pub fn find_signature_in(data: &[u8]) -> Option<u64> {
    signature_offsets(data.len() as u64).find(|&o| {
        let o = o as usize;
        data.get(o..o + SIGNATURE.len()) == Some(&SIGNATURE[..])
    })
}

/// The fields of superblocks version 0 and 1 that later versions moved elsewhere.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SuperblockV0 {
    /// "Group Leaf Node K".
    pub group_leaf_node_k: u16,
    /// "Group Internal Node K".
    pub group_internal_node_k: u16,
    /// "Indexed Storage Internal Node K" (version 1 only; `None` in version 0).
    pub indexed_storage_internal_node_k: Option<u16>,
    /// "Address of File Free-space Info" (always undefined in practice).
    pub free_space_address: Addr,
    /// "Driver Information Block Address".
    pub driver_info_address: Addr,
    /// "Root Group Symbol Table Entry".
    pub root_group: SymbolTableEntry,
}

/// The superblock.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Superblock {
    /// "Version Number of the Superblock": 0, 1, 2 or 3.
    pub version: u8,
    /// "Size of Offsets" and "Size of Lengths".
    pub sizes: Sizes,
    /// "File Consistency Flags" (4 bytes in versions 0 and 1, 1 byte in 2 and 3).
    pub flags: u32,
    /// "Base Address": absolute offset that every address is relative to (the user block
    /// size when the superblock follows a user block).
    pub base_address: Addr,
    /// "End of File Address", relative to the base address.
    pub eof_address: Addr,
    /// Versions 2 and 3: "Superblock Extension Address".
    pub extension_address: Addr,
    /// Versions 2 and 3: "Root Group Object Header Address". For versions 0 and 1 it is the
    /// root group entry's object header address (see [`Superblock::root_object_header`]).
    pub root_object_header_address: Addr,
    /// Versions 0 and 1 only.
    pub v0: Option<SuperblockV0>,
}

const STRUCT: &str = "superblock";

impl Superblock {
    /// The address of the root group's object header, whatever the version.
    pub fn root_object_header(&self) -> Addr {
        match &self.v0 {
            Some(v0) => v0.root_group.object_header_address,
            None => self.root_object_header_address,
        }
    }

    /// Parse a superblock. The cursor starts at the signature; its sizes are ignored (the
    /// superblock defines them).
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, STRUCT, |c| {
            let start = c.pos();
            let at = c.offset();
            let sig: [u8; 8] = c.read_array()?;
            if sig != SIGNATURE {
                return Err(c.error_at(
                    ErrorKind::BadSignature,
                    at,
                    format!("expected the HDF5 format signature, found {sig:02x?}"),
                ));
            }
            let version = c.read_u8()?;
            match version {
                0 | 1 => Self::parse_v0(c, version),
                2 | 3 => Self::parse_v2(c, start, version),
                v => Err(c.error_at(
                    ErrorKind::UnsupportedVersion,
                    at + 8,
                    format!("superblock version {v}"),
                )),
            }
        })
    }

    fn read_sizes(c: &mut Cursor) -> Result<Sizes> {
        let at = c.offset();
        let offset = c.read_u8()?;
        let length = c.read_u8()?;
        let sizes = Sizes { offset, length };
        if !sizes.is_valid() {
            return Err(c.error_at(
                ErrorKind::InvalidValue,
                at,
                format!("size of offsets {offset} / size of lengths {length} (allowed: 2, 4, 8)"),
            ));
        }
        Ok(sizes)
    }

    fn parse_v0(c: &mut Cursor, version: u8) -> Result<Self> {
        for what in ["free-space storage", "root group symbol table entry"] {
            let at = c.offset();
            let v = c.read_u8()?;
            if v != 0 {
                return Err(c.error_at(
                    ErrorKind::UnsupportedVersion,
                    at,
                    format!("version of {what} format is {v}, expected 0"),
                ));
            }
        }
        c.skip(1)?;
        let at = c.offset();
        let v = c.read_u8()?;
        if v != 0 {
            return Err(c.error_at(
                ErrorKind::UnsupportedVersion,
                at,
                format!("version of shared header message format is {v}, expected 0"),
            ));
        }
        let sizes = Self::read_sizes(c)?;
        c.skip(1)?;
        let mut sub = Cursor::new(c.rest(), c.offset(), sizes).in_structure(STRUCT);
        let k_at = sub.offset();
        let group_leaf_node_k = sub.read_u16()?;
        let group_internal_node_k = sub.read_u16()?;
        if group_leaf_node_k == 0 || group_internal_node_k == 0 {
            return Err(sub.error_at(ErrorKind::InvalidValue, k_at, "a B-tree K value is 0"));
        }
        let flags = sub.read_u32()?;
        let indexed_storage_internal_node_k = if version == 1 {
            let k = sub.read_u16()?;
            sub.skip(2)?;
            if k == 0 {
                return Err(sub.error(ErrorKind::InvalidValue, "indexed storage K is 0"));
            }
            Some(k)
        } else {
            None
        };
        let base_address = sub.read_addr()?;
        let free_space_address = sub.read_addr()?;
        let eof_address = sub.read_addr()?;
        let driver_info_address = sub.read_addr()?;
        let root_group = SymbolTableEntry::parse(&mut sub)?;
        c.skip(sub.pos())?;
        Ok(Superblock {
            version,
            sizes,
            flags,
            base_address,
            eof_address,
            extension_address: Addr::UNDEF,
            root_object_header_address: root_group.object_header_address,
            v0: Some(SuperblockV0 {
                group_leaf_node_k,
                group_internal_node_k,
                indexed_storage_internal_node_k,
                free_space_address,
                driver_info_address,
                root_group,
            }),
        })
    }

    fn parse_v2(c: &mut Cursor, start: usize, version: u8) -> Result<Self> {
        let sizes = Self::read_sizes(c)?;
        let flags = u32::from(c.read_u8()?);
        let body_len = 4 * sizes.offset as usize;
        let mut sub = Cursor::new(c.rest(), c.offset(), sizes).in_structure(STRUCT);
        let base_address = sub.read_addr()?;
        let extension_address = sub.read_addr()?;
        let eof_address = sub.read_addr()?;
        let root_object_header_address = sub.read_addr()?;
        c.skip(body_len)?;
        c.verify_checksum(start)?;
        Ok(Superblock {
            version,
            sizes,
            flags,
            base_address,
            eof_address,
            extension_address,
            root_object_header_address,
            v0: None,
        })
    }

    /// The encoded size in bytes (signature included).
    pub fn encoded_len(&self) -> usize {
        let o = self.sizes.offset as usize;
        match &self.v0 {
            Some(_) if self.version < 2 => {
                24 + if self.version == 1 { 4 } else { 0 }
                    + 4 * o
                    + SymbolTableEntry::encoded_size(self.sizes)
            }
            _ => 12 + 4 * o + 4,
        }
    }

    /// Encode the superblock (signature first). Versions 0/1 need [`Superblock::v0`];
    /// without it the version-2 layout is written for version numbers below 2.
    pub fn encode(&self, w: &mut Writer) {
        let mut w2 = Writer::new(self.sizes);
        w2.put_bytes(&SIGNATURE);
        match &self.v0 {
            Some(v0) if self.version < 2 => {
                w2.put_u8(self.version);
                w2.put_bytes(&[0, 0, 0, 0]);
                w2.put_u8(self.sizes.offset);
                w2.put_u8(self.sizes.length);
                w2.put_u8(0);
                w2.put_u16(v0.group_leaf_node_k);
                w2.put_u16(v0.group_internal_node_k);
                w2.put_u32(self.flags);
                if self.version == 1 {
                    w2.put_u16(v0.indexed_storage_internal_node_k.unwrap_or(32));
                    w2.put_u16(0);
                }
                w2.put_addr(self.base_address);
                w2.put_addr(v0.free_space_address);
                w2.put_addr(self.eof_address);
                w2.put_addr(v0.driver_info_address);
                v0.root_group.encode(&mut w2);
            }
            _ => {
                w2.put_u8(self.version.max(2));
                w2.put_u8(self.sizes.offset);
                w2.put_u8(self.sizes.length);
                w2.put_u8(self.flags as u8);
                w2.put_addr(self.base_address);
                w2.put_addr(self.extension_address);
                w2.put_addr(self.eof_address);
                w2.put_addr(self.root_object_header_address);
                w2.put_checksum(0);
            }
        }
        w.put_bytes(w2.as_slice());
    }
}

/// Parse the superblock of a file held in memory: find the signature, parse there.
/// Returns the superblock and the absolute offset of its signature.
pub fn parse_file_superblock(data: &[u8]) -> Result<(Superblock, u64)> {
    let at = find_signature_in(data).ok_or_else(|| {
        Error::new(
            ErrorKind::BadSignature,
            STRUCT,
            0,
            "no HDF5 format signature at 0, 512, 1024, 2048, ...",
        )
    })?;
    let rest = data.get(at as usize..).unwrap_or(&[]);
    let sb = Superblock::parse(&mut Cursor::new(rest, at, Sizes::DEFAULT))?;
    Ok((sb, at))
}

/// The superblock extension (III.C): an object header whose messages hold file-wide
/// settings. This collects the messages it may hold.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SuperblockExtension {
    /// Shared message table message.
    pub shared_table: Option<crate::message::shared_table::SharedMessageTable>,
    /// B-tree 'K' values message.
    pub btree_k: Option<crate::message::btree_k::BtreeK>,
    /// Driver info message.
    pub driver_info: Option<crate::message::driver_info::DriverInfoMessage>,
    /// File space info message.
    pub file_space_info: Option<crate::message::fs_info::FileSpaceInfo>,
    /// Any other message (unknown messages...), decoded.
    pub other: Vec<Message>,
}

impl SuperblockExtension {
    /// Decode the messages of the extension's object header (NIL messages are skipped).
    pub fn from_header(h: &ObjectHeader, sizes: Sizes) -> Result<Self> {
        let mut ext = SuperblockExtension::default();
        for raw in h.messages() {
            match raw.decode(sizes)? {
                Message::Nil(_) => {}
                Message::SharedTable(m) => ext.shared_table = Some(m),
                Message::BtreeK(m) => ext.btree_k = Some(m),
                Message::DriverInfo(m) => ext.driver_info = Some(m),
                Message::FileSpaceInfo(m) => ext.file_space_info = Some(m),
                m => ext.other.push(m),
            }
        }
        Ok(ext)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbol_table_entry::ScratchPad;

    fn v0_bytes() -> Vec<u8> {
        // A version 0 superblock as the reference library writes it (8-byte sizes).
        let mut b = SIGNATURE.to_vec();
        b.extend_from_slice(&[0, 0, 0, 0, 0, 8, 8, 0]);
        b.extend_from_slice(&4u16.to_le_bytes());
        b.extend_from_slice(&16u16.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&0u64.to_le_bytes()); // base
        b.extend_from_slice(&u64::MAX.to_le_bytes()); // free space
        b.extend_from_slice(&0x320u64.to_le_bytes()); // eof
        b.extend_from_slice(&u64::MAX.to_le_bytes()); // driver info
        b.extend_from_slice(&0u64.to_le_bytes()); // link name offset
        b.extend_from_slice(&0x60u64.to_le_bytes()); // object header
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&0x88u64.to_le_bytes());
        b.extend_from_slice(&0x2a8u64.to_le_bytes());
        b
    }

    #[test]
    fn version_0_from_bytes() {
        let b = v0_bytes();
        assert_eq!(b.len(), 96);
        let sb = Superblock::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(sb.version, 0);
        assert_eq!(sb.sizes, Sizes::DEFAULT);
        assert_eq!(sb.eof_address, Addr(0x320));
        assert_eq!(sb.root_object_header(), Addr(0x60));
        let v0 = sb.v0.as_ref().unwrap();
        assert_eq!(v0.group_leaf_node_k, 4);
        assert_eq!(v0.group_internal_node_k, 16);
        assert!(v0.driver_info_address.is_undef());
        assert!(matches!(v0.root_group.scratch, ScratchPad::Group { .. }));
        let mut w = Writer::new(Sizes::DEFAULT);
        sb.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn version_2_from_bytes_and_checksum() {
        let mut b = SIGNATURE.to_vec();
        b.extend_from_slice(&[2, 4, 4, 0]);
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&u32::MAX.to_le_bytes());
        b.extend_from_slice(&0x400u32.to_le_bytes());
        b.extend_from_slice(&0x30u32.to_le_bytes());
        let sum = crate::checksum::checksum(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        let sb = Superblock::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(
            sb.sizes,
            Sizes {
                offset: 4,
                length: 4
            }
        );
        assert!(sb.extension_address.is_undef());
        assert_eq!(sb.root_object_header(), Addr(0x30));
        let mut w = Writer::new(sb.sizes);
        sb.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
        // Corrupt one byte: a checksum error naming the superblock and the checksum's offset.
        b[20] ^= 1;
        let e = Superblock::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ChecksumMismatch);
        assert_eq!(e.structure(), "superblock");
        assert_eq!(e.offset(), Some(28));
    }

    #[test]
    fn round_trip_all_versions_and_sizes() {
        for version in 0..=3u8 {
            for offset in [2u8, 4, 8] {
                for length in [2u8, 4, 8] {
                    let sizes = Sizes { offset, length };
                    let root = SymbolTableEntry {
                        link_name_offset: 0,
                        object_header_address: Addr(0x60),
                        scratch: ScratchPad::None([0; 16]),
                    };
                    let sb = Superblock {
                        version,
                        sizes,
                        flags: 0,
                        base_address: Addr(0),
                        eof_address: Addr(0x1000),
                        extension_address: if version >= 2 {
                            Addr(0x30)
                        } else {
                            Addr::UNDEF
                        },
                        root_object_header_address: Addr(0x60),
                        v0: (version < 2).then(|| SuperblockV0 {
                            group_leaf_node_k: 4,
                            group_internal_node_k: 16,
                            indexed_storage_internal_node_k: (version == 1).then_some(32),
                            free_space_address: Addr::UNDEF,
                            driver_info_address: Addr::UNDEF,
                            root_group: root,
                        }),
                    };
                    let mut w = Writer::new(sizes);
                    sb.encode(&mut w);
                    assert_eq!(w.len(), sb.encoded_len());
                    let got = Superblock::parse(&mut Cursor::new(w.as_slice(), 0, Sizes::DEFAULT))
                        .unwrap();
                    assert_eq!(got, sb);
                }
            }
        }
    }

    #[test]
    fn signature_search_after_user_block() {
        let mut file = vec![0u8; 1024];
        file.extend_from_slice(&v0_bytes());
        assert_eq!(find_signature_in(&file), Some(1024));
        let (sb, at) = parse_file_superblock(&file).unwrap();
        assert_eq!(at, 1024);
        assert_eq!(sb.version, 0);
        let found = find_signature(file.len() as u64, |o, n| {
            Ok(file[o as usize..(o as usize + n).min(file.len())].to_vec())
        })
        .unwrap();
        assert_eq!(found, Some(1024));
        assert!(find_signature_in(&[0u8; 100]).is_none());
        assert!(parse_file_superblock(&[0u8; 5000]).is_err());
    }

    #[test]
    fn bad_values_are_errors() {
        let mut b = v0_bytes();
        b[13] = 3; // size of offsets 3
        let e = Superblock::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert_eq!(e.offset(), Some(13));
        let mut b = v0_bytes();
        b[8] = 9;
        let e = Superblock::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::UnsupportedVersion);
        for n in 0..b.len() {
            assert!(Superblock::parse(&mut Cursor::new(&b[..n], 0, Sizes::DEFAULT)).is_err());
        }
    }
}
