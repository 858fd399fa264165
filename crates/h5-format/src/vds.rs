//! The virtual dataset global heap block: the mappings of a virtual dataset's layout message,
//! stored as one global heap object (version 0, entry count, entries, checksum).

use crate::bits::check_count;
use crate::selection::Selection;
use crate::{limits, Cursor, Result, Writer};

const STRUCTURE: &str = "virtual dataset heap block";

/// One mapping of a virtual dataset.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct VirtualMapping {
    /// "Source Filename" (without its NUL; "." means the virtual dataset's own file).
    pub source_file: Vec<u8>,
    /// "Source Dataset" name (without its NUL).
    pub source_dataset: Vec<u8>,
    /// "Source Selection".
    pub source_selection: Selection,
    /// "Virtual Selection".
    pub virtual_selection: Selection,
}

/// The heap block of a virtual dataset.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct VirtualMappings {
    /// The mappings, in order.
    pub entries: Vec<VirtualMapping>,
}

impl VirtualMappings {
    /// Parse the block (the whole global heap object) and check its checksum.
    pub fn parse(c: &mut Cursor<'_>) -> Result<VirtualMappings> {
        c.set_structure(STRUCTURE);
        let start = c.pos();
        let at = c.offset();
        let version = c.read_u8()?;
        crate::ensure!(
            version == 0,
            UnsupportedVersion,
            STRUCTURE,
            at,
            "version {version}"
        );
        let n = c.read_len()?;
        // Each entry has at least two NULs and two 16-byte selections.
        let n = check_count(c, n, 34, limits::MAX_SELECTION_ELEMENTS, "entries")?;
        let mut entries = Vec::with_capacity(n);
        for _ in 0..n {
            let source_file = c.read_cstr(limits::MAX_NAME_LEN)?.to_vec();
            let source_dataset = c.read_cstr(limits::MAX_NAME_LEN)?.to_vec();
            let source_selection = Selection::parse(c)?;
            let virtual_selection = Selection::parse(c)?;
            c.set_structure(STRUCTURE);
            entries.push(VirtualMapping {
                source_file,
                source_dataset,
                source_selection,
                virtual_selection,
            });
        }
        c.verify_checksum(start)?;
        Ok(VirtualMappings { entries })
    }

    /// Encode the block with its checksum.
    pub fn encode(&self, w: &mut Writer) {
        let start = w.len();
        w.put_u8(0);
        w.put_len(self.entries.len() as u64);
        for e in &self.entries {
            w.put_bytes(&e.source_file);
            w.put_u8(0);
            w.put_bytes(&e.source_dataset);
            w.put_u8(0);
            e.source_selection.encode(w);
            e.virtual_selection.encode(w);
        }
        w.put_checksum(start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selection::{EncodeSize, RegularDim};
    use crate::{ErrorKind, Sizes};

    #[test]
    fn block_from_bytes() {
        let mut b = vec![0];
        b.extend_from_slice(&1u64.to_le_bytes());
        b.extend_from_slice(b"a.h5\0/src\0");
        // Source: all; virtual: all.
        for _ in 0..2 {
            b.extend_from_slice(&[3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        }
        let sum = crate::checksum::checksum(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        let v = VirtualMappings::parse(&mut Cursor::new(&b, 0x2000, Sizes::DEFAULT)).unwrap();
        assert_eq!(v.entries.len(), 1);
        assert_eq!(v.entries[0].source_file, b"a.h5");
        assert_eq!(v.entries[0].source_dataset, b"/src");
        assert_eq!(v.entries[0].virtual_selection, Selection::All);
        let mut w = Writer::new(Sizes::DEFAULT);
        v.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
        let n = b.len();
        b[n - 1] ^= 0xff;
        let e = VirtualMappings::parse(&mut Cursor::new(&b, 0x2000, Sizes::DEFAULT)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ChecksumMismatch);
        assert_eq!(e.structure(), "virtual dataset heap block");
        assert_eq!(e.offset(), Some(0x2000 + n as u64 - 4));
    }

    #[test]
    fn round_trip_and_hostile_count() {
        let v = VirtualMappings {
            entries: vec![
                VirtualMapping {
                    source_file: b".".to_vec(),
                    source_dataset: b"/a".to_vec(),
                    source_selection: Selection::All,
                    virtual_selection: Selection::HyperslabV3Regular {
                        size: EncodeSize::Four,
                        dims: vec![RegularDim {
                            start: 0,
                            stride: 10,
                            count: u64::MAX,
                            block: 5,
                        }],
                    },
                },
                VirtualMapping {
                    source_file: b"f-%b.h5".to_vec(),
                    source_dataset: b"/b".to_vec(),
                    source_selection: Selection::None,
                    virtual_selection: Selection::None,
                },
            ],
        };
        let mut w = Writer::new(Sizes::DEFAULT);
        v.encode(&mut w);
        assert_eq!(
            VirtualMappings::parse(&mut Cursor::new(w.as_slice(), 0, Sizes::DEFAULT)).unwrap(),
            v
        );
        let mut b = w.into_vec();
        b[1..9].copy_from_slice(&u64::MAX.to_le_bytes());
        let e = VirtualMappings::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    }
}
