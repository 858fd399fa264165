//! Free-space managers: the header (`FSHD`) and the serialized section list (`FSSE`), with the
//! section classes of both clients (fractal heap and file).

use crate::bits::{bytes_for_bits, limit_enc_size, log2_gen};
use crate::{limits, Addr, Cursor, ErrorKind, Result, Sizes, Writer};

/// Header signature.
pub const HEADER_SIGNATURE: [u8; 4] = *b"FSHD";
/// Section list signature.
pub const SECTIONS_SIGNATURE: [u8; 4] = *b"FSSE";
const HEADER: &str = "free-space manager header";
const SECTIONS: &str = "free-space section list";

/// "Client ID" 0: a fractal heap.
pub const CLIENT_FRACTAL_HEAP: u8 = 0;
/// "Client ID" 1: the file.
pub const CLIENT_FILE: u8 = 1;

/// A free-space manager header.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FreeSpaceHeader {
    /// "Client ID".
    pub client: u8,
    /// "Total Space Tracked".
    pub total_space: u64,
    /// "Total Number of Sections".
    pub total_sections: u64,
    /// "Number of Serialized Sections".
    pub serialized_sections: u64,
    /// "Number of Un-Serialized Sections".
    pub ghost_sections: u64,
    /// "Number of Section Classes".
    pub section_classes: u16,
    /// "Shrink Percent".
    pub shrink_percent: u16,
    /// "Expand Percent".
    pub expand_percent: u16,
    /// "Size of Address Space": log2 of the space the sections are in.
    pub address_space_bits: u16,
    /// "Maximum Section Size".
    pub max_section_size: u64,
    /// "Address of Serialized Section List".
    pub section_list: Addr,
    /// "Size of Serialized Section List Used".
    pub section_list_used: u64,
    /// "Allocated Size of Serialized Section List".
    pub section_list_allocated: u64,
}

impl FreeSpaceHeader {
    /// Encoded size.
    pub fn encoded_size(sizes: Sizes) -> usize {
        6 + 7 * sizes.length as usize + 8 + sizes.offset as usize + 4
    }

    /// Parse a header and check its checksum.
    pub fn parse(c: &mut Cursor<'_>) -> Result<FreeSpaceHeader> {
        c.set_structure(HEADER);
        let start = c.pos();
        let at = c.offset();
        c.expect_signature(&HEADER_SIGNATURE)?;
        let version = c.read_u8()?;
        crate::ensure!(
            version == 0,
            UnsupportedVersion,
            HEADER,
            at + 4,
            "version {version}"
        );
        let h = FreeSpaceHeader {
            client: c.read_u8()?,
            total_space: c.read_len()?,
            total_sections: c.read_len()?,
            serialized_sections: c.read_len()?,
            ghost_sections: c.read_len()?,
            section_classes: c.read_u16()?,
            shrink_percent: c.read_u16()?,
            expand_percent: c.read_u16()?,
            address_space_bits: c.read_u16()?,
            max_section_size: c.read_len()?,
            section_list: c.read_addr()?,
            section_list_used: c.read_len()?,
            section_list_allocated: c.read_len()?,
        };
        c.verify_checksum(start)?;
        crate::ensure!(
            h.address_space_bits <= 64,
            InvalidValue,
            HEADER,
            at,
            "address space of {} bits",
            h.address_space_bits
        );
        Ok(h)
    }

    /// Encode the header with its checksum.
    pub fn encode(&self, w: &mut Writer) {
        let start = w.len();
        w.put_bytes(&HEADER_SIGNATURE);
        w.put_u8(0);
        w.put_u8(self.client);
        w.put_len(self.total_space);
        w.put_len(self.total_sections);
        w.put_len(self.serialized_sections);
        w.put_len(self.ghost_sections);
        w.put_u16(self.section_classes);
        w.put_u16(self.shrink_percent);
        w.put_u16(self.expand_percent);
        w.put_u16(self.address_space_bits);
        w.put_len(self.max_section_size);
        w.put_addr(self.section_list);
        w.put_len(self.section_list_used);
        w.put_len(self.section_list_allocated);
        w.put_checksum(start);
    }

    /// Widths of the section list's fields: (count, size, offset). `legacy` selects the
    /// widths early 1.8 libraries wrote: `(log2(n) + 7) / 8` instead of `log2(n) / 8 + 1`
    /// (they differ when log2(n) is a multiple of 8).
    fn widths(&self, legacy: bool) -> (usize, usize, usize) {
        let old = |n: u64| (log2_gen(n) as usize).div_ceil(8);
        let off = bytes_for_bits(self.address_space_bits as u32).min(8);
        if legacy {
            (
                old(self.serialized_sections).max(1),
                old(self.max_section_size),
                off,
            )
        } else {
            (
                limit_enc_size(self.serialized_sections),
                limit_enc_size(self.max_section_size),
                off,
            )
        }
    }
}

/// The section classes of the manager's client, which fix each section type's extra data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SectionClasses {
    /// The file's free space (types 0 simple, 1 small, 2 large; no extra data).
    File,
    /// A fractal heap's free space: types 0 single, 1 first row, 2 normal row, 3 indirect;
    /// rows and indirect sections carry the indirect block data.
    FractalHeap {
        /// The heap's `heap_off_size` (bytes of a block offset).
        heap_offset_size: usize,
    },
}

impl SectionClasses {
    fn extra_size(self, kind: u8) -> Option<usize> {
        match self {
            SectionClasses::File => (kind <= 2).then_some(0),
            SectionClasses::FractalHeap { heap_offset_size } => match kind {
                0 | 2 => Some(0),
                1 | 3 => Some(heap_offset_size + 6),
                _ => None,
            },
        }
    }
}

/// Extra data of fractal heap row and indirect sections.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IndirectSectionData {
    /// Offset of the indirect block in the heap's address space.
    pub block_offset: u64,
    /// Start row.
    pub row: u16,
    /// Start column.
    pub column: u16,
    /// Number of entries.
    pub entries: u16,
}

/// One free section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Section {
    /// "Section Offset" in the client's address space.
    pub offset: u64,
    /// "Section Type" (the class).
    pub kind: u8,
    /// Class-specific data, for fractal heap first-row (1) and indirect (3) sections.
    pub data: Option<IndirectSectionData>,
}

/// Sections of one size.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SectionSet {
    /// "Section Size" shared by the set.
    pub size: u64,
    /// The sections.
    pub sections: Vec<Section>,
}

/// A serialized section list.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SectionList {
    /// "Free Space Manager Header Address".
    pub header: Addr,
    /// Sets of equal-size sections.
    pub sets: Vec<SectionSet>,
    /// Whether the count and size fields have the widths early 1.8 libraries wrote
    /// (`(log2(n) + 7) / 8` bytes); parsing falls back to them when the current widths do not
    /// fit the list.
    pub legacy_widths: bool,
}

impl SectionList {
    /// Parse the list described by header `h` ("Size of Serialized Section List Used" bytes
    /// from the cursor) and check its checksum.
    pub fn parse(
        c: &mut Cursor<'_>,
        h: &FreeSpaceHeader,
        classes: SectionClasses,
    ) -> Result<SectionList> {
        let mut first = c.clone();
        match Self::parse_with(&mut first, h, classes, false) {
            Ok(l) => {
                *c = first;
                Ok(l)
            }
            Err(e) if h.widths(true) != h.widths(false) => {
                let mut second = c.clone();
                let l = Self::parse_with(&mut second, h, classes, true).map_err(|_| e)?;
                *c = second;
                Ok(l)
            }
            Err(e) => Err(e),
        }
    }

    fn parse_with(
        c: &mut Cursor<'_>,
        h: &FreeSpaceHeader,
        classes: SectionClasses,
        legacy: bool,
    ) -> Result<SectionList> {
        c.set_structure(SECTIONS);
        let at = c.offset();
        let sizes = c.sizes();
        let prefix = 5 + sizes.offset as u64 + 4;
        let used = h.section_list_used;
        crate::ensure!(
            used >= prefix && used <= limits::MAX_METADATA_BLOCK,
            InvalidValue,
            SECTIONS,
            at,
            "section list size {used} is out of range"
        );
        crate::ensure!(
            used <= c.remaining() as u64,
            UnexpectedEof,
            SECTIONS,
            at,
            "section list of {used} bytes runs past the end of the data"
        );
        let mut s = c.sub(used as usize)?;
        s.expect_signature(&SECTIONS_SIGNATURE)?;
        let version = s.read_u8()?;
        crate::ensure!(
            version == 0,
            UnsupportedVersion,
            SECTIONS,
            at + 4,
            "version {version}"
        );
        let header = s.read_addr()?;
        let end = used as usize - 4;
        let (count_w, size_w, off_w) = h.widths(legacy);
        let mut sets = Vec::new();
        let mut total = 0u64;
        while s.pos() < end {
            let mut body = s.clone();
            let count = body.read_uint(count_w)?;
            let size = body.read_uint(size_w)?;
            total = total.saturating_add(count);
            crate::ensure!(
                total <= h.serialized_sections && count <= end.saturating_sub(body.pos()) as u64,
                InvalidValue,
                SECTIONS,
                s.offset(),
                "section set of {count} sections exceeds the {} serialized sections",
                h.serialized_sections
            );
            let mut sections = Vec::with_capacity(count as usize);
            for _ in 0..count {
                let offset = body.read_uint(off_w)?;
                let kind_at = body.offset();
                let kind = body.read_u8()?;
                let extra = classes.extra_size(kind).ok_or_else(|| {
                    body.error_at(
                        ErrorKind::InvalidValue,
                        kind_at,
                        format!("section type {kind} is not a class of this client"),
                    )
                })?;
                let data = if extra > 0 {
                    Some(IndirectSectionData {
                        block_offset: body.read_uint(extra - 6)?,
                        row: body.read_u16()?,
                        column: body.read_u16()?,
                        entries: body.read_u16()?,
                    })
                } else {
                    None
                };
                sections.push(Section { offset, kind, data });
            }
            crate::ensure!(
                body.pos() <= end,
                UnexpectedEof,
                SECTIONS,
                body.offset(),
                "sections run into the checksum"
            );
            s = body;
            sets.push(SectionSet { size, sections });
        }
        crate::ensure!(
            s.pos() == end,
            InvalidValue,
            SECTIONS,
            s.offset(),
            "sections end past the checksum"
        );
        s.verify_checksum(0)?;
        Ok(SectionList {
            header,
            sets,
            legacy_widths: legacy,
        })
    }

    /// Encoded size for header `h` and client classes.
    pub fn encoded_size(
        &self,
        sizes: Sizes,
        h: &FreeSpaceHeader,
        classes: SectionClasses,
    ) -> usize {
        let (count_w, size_w, off_w) = h.widths(self.legacy_widths);
        let mut n = 5 + sizes.offset as usize + 4;
        for set in &self.sets {
            n += count_w + size_w;
            for s in &set.sections {
                n += off_w + 1 + classes.extra_size(s.kind).unwrap_or(0);
            }
        }
        n
    }

    /// Encode the list with its checksum. The field widths follow header `h` (its serialized
    /// section count, maximum section size and address space size).
    pub fn encode(&self, w: &mut Writer, h: &FreeSpaceHeader, classes: SectionClasses) {
        let (count_w, size_w, off_w) = h.widths(self.legacy_widths);
        let start = w.len();
        w.put_bytes(&SECTIONS_SIGNATURE);
        w.put_u8(0);
        w.put_addr(self.header);
        for set in &self.sets {
            w.put_uint(set.sections.len() as u64, count_w);
            w.put_uint(set.size, size_w);
            for s in &set.sections {
                w.put_uint(s.offset, off_w);
                w.put_u8(s.kind);
                let extra = classes.extra_size(s.kind).unwrap_or(0);
                if extra > 0 {
                    let d = s.data.unwrap_or(IndirectSectionData {
                        block_offset: 0,
                        row: 0,
                        column: 0,
                        entries: 0,
                    });
                    w.put_uint(d.block_offset, extra - 6);
                    w.put_u16(d.row);
                    w.put_u16(d.column);
                    w.put_u16(d.entries);
                }
            }
        }
        w.put_checksum(start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> FreeSpaceHeader {
        FreeSpaceHeader {
            client: CLIENT_FRACTAL_HEAP,
            total_space: 900,
            total_sections: 3,
            serialized_sections: 3,
            ghost_sections: 0,
            section_classes: 4,
            shrink_percent: 80,
            expand_percent: 120,
            address_space_bits: 32,
            max_section_size: 65536,
            section_list: Addr(0x1200),
            section_list_used: 0,
            section_list_allocated: 64,
        }
    }

    #[test]
    fn header_from_bytes() {
        let mut b = b"FSHD\x00\x00".to_vec();
        for v in [900u64, 3, 3, 0] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for v in [4u16, 80, 120, 32] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&65536u64.to_le_bytes());
        b.extend_from_slice(&0x1200u64.to_le_bytes());
        b.extend_from_slice(&0u64.to_le_bytes());
        b.extend_from_slice(&64u64.to_le_bytes());
        let sum = crate::checksum::checksum(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        assert_eq!(b.len(), FreeSpaceHeader::encoded_size(Sizes::DEFAULT));
        let h = FreeSpaceHeader::parse(&mut Cursor::new(&b, 0x1100, Sizes::DEFAULT)).unwrap();
        assert_eq!(h, header());
        let mut w = Writer::new(Sizes::DEFAULT);
        h.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn section_list_from_bytes() {
        // Fractal heap client, heap offsets of 4 bytes; widths: count 1 (3 sections), size 3
        // (65536 needs 17 bits), offset 4 (32 bits).
        let mut h = header();
        let classes = SectionClasses::FractalHeap {
            heap_offset_size: 4,
        };
        let mut b = b"FSSE\x00".to_vec();
        b.extend_from_slice(&0x1100u64.to_le_bytes());
        // Set 1: two single sections of 100 bytes.
        b.push(2);
        b.extend_from_slice(&[100, 0, 0]);
        b.extend_from_slice(&[0x10, 0, 0, 0, 0]);
        b.extend_from_slice(&[0x80, 0, 0, 0, 0]);
        // Set 2: one indirect section of 700 bytes.
        b.push(1);
        b.extend_from_slice(&[0xbc, 0x02, 0]);
        b.extend_from_slice(&[0x00, 0x08, 0, 0, 3]);
        b.extend_from_slice(&[0x00, 0x08, 0, 0, 1, 0, 2, 0, 6, 0]);
        let sum = crate::checksum::checksum(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        h.section_list_used = b.len() as u64;
        let l =
            SectionList::parse(&mut Cursor::new(&b, 0x1200, Sizes::DEFAULT), &h, classes).unwrap();
        assert_eq!(l.header, Addr(0x1100));
        assert_eq!(l.sets.len(), 2);
        assert_eq!(l.sets[0].size, 100);
        assert_eq!(l.sets[0].sections[1].offset, 0x80);
        assert_eq!(
            l.sets[1].sections[0],
            Section {
                offset: 0x800,
                kind: 3,
                data: Some(IndirectSectionData {
                    block_offset: 0x800,
                    row: 1,
                    column: 2,
                    entries: 6
                })
            }
        );
        assert_eq!(l.encoded_size(Sizes::DEFAULT, &h, classes), b.len());
        let mut w = Writer::new(Sizes::DEFAULT);
        l.encode(&mut w, &h, classes);
        assert_eq!(w.as_slice(), &b[..]);

        // Unknown section type for the file client.
        let e = SectionList::parse(
            &mut Cursor::new(&b, 0x1200, Sizes::DEFAULT),
            &h,
            SectionClasses::File,
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        // More sections than the header serialized.
        h.serialized_sections = 1;
        assert!(
            SectionList::parse(&mut Cursor::new(&b, 0x1200, Sizes::DEFAULT), &h, classes).is_err()
        );
    }

    #[test]
    fn legacy_widths_of_early_files() {
        // The section list of tfcontents1.h5 (written by an early 1.8 library): 65536 as the
        // maximum section size, but 2-byte section sizes.
        let b = [
            0x46, 0x53, 0x53, 0x45, 0x00, 0x60, 0x17, 0, 0, 0, 0, 0, 0, 0x01, 0x12, 0x00, 0xba, 0,
            0, 0, 0x00, 0x01, 0x1e, 0x01, 0xe2, 0, 0, 0, 0x00, 0x12, 0x79, 0x87, 0xe3,
        ];
        let mut h = header();
        h.total_space = 304;
        h.total_sections = 2;
        h.serialized_sections = 2;
        h.section_list = Addr(0x17b2);
        h.section_list_used = 33;
        let classes = SectionClasses::FractalHeap {
            heap_offset_size: 4,
        };
        let l =
            SectionList::parse(&mut Cursor::new(&b, 0x17b2, Sizes::DEFAULT), &h, classes).unwrap();
        assert!(l.legacy_widths);
        assert_eq!(l.sets.len(), 2);
        assert_eq!((l.sets[0].size, l.sets[0].sections[0].offset), (18, 0xba));
        assert_eq!((l.sets[1].size, l.sets[1].sections[0].offset), (286, 0xe2));
        let mut w = Writer::new(Sizes::DEFAULT);
        l.encode(&mut w, &h, classes);
        assert_eq!(w.as_slice(), &b);
    }

    #[test]
    fn file_client_round_trip() {
        let mut h = header();
        h.client = CLIENT_FILE;
        h.address_space_bits = 64;
        h.max_section_size = u64::MAX;
        let l = SectionList {
            header: Addr(0x1100),
            sets: vec![
                SectionSet {
                    size: 4096,
                    sections: vec![Section {
                        offset: 0x10000,
                        kind: 0,
                        data: None,
                    }],
                },
                SectionSet {
                    size: 1 << 40,
                    sections: vec![
                        Section {
                            offset: 0x20000,
                            kind: 1,
                            data: None,
                        },
                        Section {
                            offset: 0x30000,
                            kind: 2,
                            data: None,
                        },
                    ],
                },
            ],
            legacy_widths: false,
        };
        let mut w = Writer::new(Sizes::DEFAULT);
        l.encode(&mut w, &h, SectionClasses::File);
        h.section_list_used = w.len() as u64;
        let back = SectionList::parse(
            &mut Cursor::new(w.as_slice(), 0, Sizes::DEFAULT),
            &h,
            SectionClasses::File,
        )
        .unwrap();
        assert_eq!(back, l);
    }
}
