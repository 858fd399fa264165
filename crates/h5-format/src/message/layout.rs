//! The Data Layout message (0x0008), versions 1 to 5: compact, contiguous, chunked (with the
//! chunk index parameters of versions 4 and 5) and virtual storage.

use super::{read_version, scoped};
use crate::cursor::{Cursor, Writer};
use crate::{limits, Addr, ErrorKind, Result};

/// Chunked layout "Flags" bit 0: do not filter partial edge chunks.
pub const CHUNK_DONT_FILTER_PARTIAL_BOUND_CHUNKS: u8 = 0x1;
/// Chunked layout "Flags" bit 1: the single chunk index stores the filtered chunk's size.
pub const CHUNK_SINGLE_INDEX_WITH_FILTER: u8 = 0x2;

/// The chunk index of a version 4/5 chunked layout, with its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChunkIndex {
    /// Type 1: single chunk. The filtered size and mask are stored when flag bit 1 is set.
    SingleChunk {
        /// "Size of filtered chunk" and "Filters for chunk" (flag bit 1).
        filtered: Option<(u64, u32)>,
    },
    /// Type 2: implicit index (no filters, fixed dimensions, space allocated early).
    Implicit,
    /// Type 3: fixed array.
    FixedArray {
        /// "Page Bits".
        page_bits: u8,
    },
    /// Type 4: extensible array.
    ExtensibleArray {
        /// "Max Bits".
        max_bits: u8,
        /// "Index Elements".
        index_elements: u8,
        /// "Min Pointers".
        min_pointers: u8,
        /// "Min Elements".
        min_elements: u8,
        /// "Page Bits".
        page_bits: u8,
    },
    /// Type 5: version 2 B-tree.
    BTreeV2 {
        /// "Node Size".
        node_size: u32,
        /// "Split Percent".
        split_percent: u8,
        /// "Merge Percent".
        merge_percent: u8,
    },
}

impl ChunkIndex {
    /// The "Chunk Indexing Type" value.
    pub fn index_type(&self) -> u8 {
        match self {
            ChunkIndex::SingleChunk { .. } => 1,
            ChunkIndex::Implicit => 2,
            ChunkIndex::FixedArray { .. } => 3,
            ChunkIndex::ExtensibleArray { .. } => 4,
            ChunkIndex::BTreeV2 { .. } => 5,
        }
    }
}

/// The storage of a dataset's raw data.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LayoutClass {
    /// Class 0: the data is in the message.
    Compact {
        /// Versions 1 and 2: the "Dimension Sizes" (32-bit) stored before the data.
        dims: Vec<u32>,
        /// "Raw Data".
        data: Vec<u8>,
    },
    /// Class 1: one contiguous block.
    Contiguous {
        /// "Address" (undefined until allocated).
        address: Addr,
        /// Version 3 and later: "Size". Versions 1 and 2 store the "Dimension Sizes" instead.
        size: Option<u64>,
        /// Versions 1 and 2: the "Dimension Sizes" (32-bit).
        dims: Vec<u32>,
    },
    /// Class 2: chunks found through an index.
    Chunked {
        /// Versions 4 and 5: "Flags".
        flags: u8,
        /// "Dimension #n Size of a chunk", in elements. Versions 1 to 3 add one last
        /// dimension: the datatype's size in bytes.
        dims: Vec<u64>,
        /// Versions 4 and 5: the index type and parameters. `None` for the v1 B-tree of
        /// versions 1 to 3.
        index: Option<ChunkIndex>,
        /// "Address" of the index (B-tree or chunk index structure, or the single chunk).
        address: Addr,
        /// Versions 4 and 5: "Dimensionality Encoding Size" (bytes per chunk dimension)
        /// when stored; encoding uses the fewest bytes that hold every dimension if larger.
        dim_size_bytes: u8,
    },
    /// Class 3: virtual dataset mappings, stored in the global heap.
    Virtual {
        /// "Address" of the global heap collection.
        heap_address: Addr,
        /// "Index" of the heap object.
        heap_index: u32,
    },
}

/// The Data Layout message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// "Version": 1 to 5.
    pub version: u8,
    /// The layout class and its properties.
    pub class: LayoutClass,
}

fn bytes_for(v: u64) -> u8 {
    (((64 - v.leading_zeros()).max(1)).div_ceil(8)) as u8
}

impl Layout {
    /// Parse the message.
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "data layout message", |c| {
            let version = read_version(c, 1, 5)?;
            let class = if version < 3 {
                Self::parse_v1(c)?
            } else {
                Self::parse_v3(c, version)?
            };
            Ok(Layout { version, class })
        })
    }

    fn parse_v1(c: &mut Cursor) -> Result<LayoutClass> {
        let at = c.offset();
        let ndims = c.read_u8()? as usize;
        if ndims == 0 || ndims > limits::MAX_RANK + 1 {
            return Err(c.error_at(
                ErrorKind::InvalidValue,
                at,
                format!("dimensionality {ndims}"),
            ));
        }
        let class_at = c.offset();
        let class = c.read_u8()?;
        c.skip(5)?;
        let address = if class == 1 || class == 2 {
            c.read_addr()?
        } else {
            Addr::UNDEF
        };
        let mut dims = Vec::with_capacity(ndims);
        for _ in 0..ndims {
            dims.push(c.read_u32()?);
        }
        Ok(match class {
            0 => {
                let size_at = c.offset();
                let n = c.read_u32()? as usize;
                if n > c.remaining() {
                    return Err(c.error_at(
                        ErrorKind::UnexpectedEof,
                        size_at,
                        format!(
                            "compact data size {n} exceeds the {} bytes left",
                            c.remaining()
                        ),
                    ));
                }
                LayoutClass::Compact {
                    dims,
                    data: c.read_bytes(n)?.to_vec(),
                }
            }
            1 => LayoutClass::Contiguous {
                address,
                size: None,
                dims,
            },
            2 => {
                if ndims < 2 {
                    return Err(c.error_at(
                        ErrorKind::InvalidValue,
                        at,
                        "chunked layout of dimensionality 1",
                    ));
                }
                LayoutClass::Chunked {
                    flags: 0,
                    dims: dims.into_iter().map(u64::from).collect(),
                    index: None,
                    address,
                    dim_size_bytes: 4,
                }
            }
            t => {
                return Err(c.error_at(
                    ErrorKind::InvalidValue,
                    class_at,
                    format!("layout class {t}"),
                ))
            }
        })
    }

    fn parse_v3(c: &mut Cursor, version: u8) -> Result<LayoutClass> {
        let class_at = c.offset();
        let class = c.read_u8()?;
        Ok(match class {
            0 => {
                let n = c.read_u16()? as usize;
                LayoutClass::Compact {
                    dims: Vec::new(),
                    data: c.read_bytes(n)?.to_vec(),
                }
            }
            1 => LayoutClass::Contiguous {
                address: c.read_addr()?,
                size: Some(c.read_len()?),
                dims: Vec::new(),
            },
            2 if version == 3 => {
                let at = c.offset();
                let ndims = c.read_u8()? as usize;
                if !(2..=limits::MAX_RANK + 1).contains(&ndims) {
                    return Err(c.error_at(
                        ErrorKind::InvalidValue,
                        at,
                        format!("dimensionality {ndims}"),
                    ));
                }
                let address = c.read_addr()?;
                let mut dims = Vec::with_capacity(ndims);
                for _ in 0..ndims {
                    dims.push(u64::from(c.read_u32()?));
                }
                LayoutClass::Chunked {
                    flags: 0,
                    dims,
                    index: None,
                    address,
                    dim_size_bytes: 4,
                }
            }
            2 => {
                let flags_at = c.offset();
                let flags = c.read_u8()?;
                if flags & !3 != 0 {
                    return Err(c.error_at(
                        ErrorKind::InvalidValue,
                        flags_at,
                        format!("chunk flags {flags:#x}"),
                    ));
                }
                let at = c.offset();
                let ndims = c.read_u8()? as usize;
                if !(1..=limits::MAX_RANK + 1).contains(&ndims) {
                    return Err(c.error_at(
                        ErrorKind::InvalidValue,
                        at,
                        format!("dimensionality {ndims}"),
                    ));
                }
                let enc_at = c.offset();
                let enc = c.read_u8()?;
                if !(1..=8).contains(&enc) {
                    return Err(c.error_at(
                        ErrorKind::InvalidValue,
                        enc_at,
                        format!("dimension encoding size {enc}"),
                    ));
                }
                let mut dims = Vec::with_capacity(ndims);
                for _ in 0..ndims {
                    dims.push(c.read_uint(enc as usize)?);
                }
                let it_at = c.offset();
                let index = match c.read_u8()? {
                    1 => ChunkIndex::SingleChunk {
                        filtered: if flags & CHUNK_SINGLE_INDEX_WITH_FILTER != 0 {
                            Some((c.read_len()?, c.read_u32()?))
                        } else {
                            None
                        },
                    },
                    2 => ChunkIndex::Implicit,
                    3 => ChunkIndex::FixedArray {
                        page_bits: c.read_u8()?,
                    },
                    4 => ChunkIndex::ExtensibleArray {
                        max_bits: c.read_u8()?,
                        index_elements: c.read_u8()?,
                        min_pointers: c.read_u8()?,
                        min_elements: c.read_u8()?,
                        page_bits: c.read_u8()?,
                    },
                    5 => ChunkIndex::BTreeV2 {
                        node_size: c.read_u32()?,
                        split_percent: c.read_u8()?,
                        merge_percent: c.read_u8()?,
                    },
                    t => {
                        return Err(c.error_at(
                            ErrorKind::InvalidValue,
                            it_at,
                            format!("chunk index type {t}"),
                        ))
                    }
                };
                LayoutClass::Chunked {
                    flags,
                    dims,
                    index: Some(index),
                    address: c.read_addr()?,
                    dim_size_bytes: enc,
                }
            }
            3 if version >= 4 => LayoutClass::Virtual {
                heap_address: c.read_addr()?,
                heap_index: c.read_u32()?,
            },
            t => {
                return Err(c.error_at(
                    ErrorKind::InvalidValue,
                    class_at,
                    format!("layout class {t} in version {version}"),
                ))
            }
        })
    }

    /// Encode the message. The version is raised when the class needs it (3 for a
    /// contiguous size without dimensions, 4 for a chunk index or virtual storage).
    pub fn encode(&self, w: &mut Writer) {
        let needed = match &self.class {
            LayoutClass::Chunked { index: Some(_), .. } | LayoutClass::Virtual { .. } => 4,
            LayoutClass::Chunked { index: None, .. } => 1,
            LayoutClass::Contiguous {
                size: Some(_),
                dims,
                ..
            } if dims.is_empty() => 3,
            LayoutClass::Contiguous { .. } => 1,
            LayoutClass::Compact { dims, .. } if dims.is_empty() => 3,
            LayoutClass::Compact { .. } => 1,
        };
        let mut version = self.version.clamp(1, 5).max(needed);
        if let LayoutClass::Chunked { index: None, .. } = &self.class {
            version = version.min(3);
        }
        w.put_u8(version);
        if version < 3 {
            self.encode_v1(w);
            return;
        }
        match &self.class {
            LayoutClass::Compact { data, .. } => {
                w.put_u8(0);
                w.put_u16(data.len() as u16);
                w.put_bytes(data);
            }
            LayoutClass::Contiguous { address, size, .. } => {
                w.put_u8(1);
                w.put_addr(*address);
                w.put_len(size.unwrap_or(0));
            }
            LayoutClass::Chunked {
                flags,
                dims,
                index,
                address,
                dim_size_bytes,
            } => {
                w.put_u8(2);
                match index {
                    None => {
                        w.put_u8(dims.len() as u8);
                        w.put_addr(*address);
                        for &d in dims {
                            w.put_u32(d as u32);
                        }
                    }
                    Some(index) => {
                        let need = dims.iter().map(|&d| bytes_for(d)).max().unwrap_or(1);
                        let enc = (*dim_size_bytes).clamp(1, 8).max(need);
                        let mut flags = *flags & 3;
                        if let ChunkIndex::SingleChunk { filtered } = index {
                            flags = (flags & !CHUNK_SINGLE_INDEX_WITH_FILTER)
                                | if filtered.is_some() {
                                    CHUNK_SINGLE_INDEX_WITH_FILTER
                                } else {
                                    0
                                };
                        }
                        w.put_u8(flags);
                        w.put_u8(dims.len() as u8);
                        w.put_u8(enc);
                        for &d in dims {
                            w.put_uint(d, enc as usize);
                        }
                        w.put_u8(index.index_type());
                        match *index {
                            ChunkIndex::SingleChunk { filtered } => {
                                if let Some((size, mask)) = filtered {
                                    w.put_len(size);
                                    w.put_u32(mask);
                                }
                            }
                            ChunkIndex::Implicit => {}
                            ChunkIndex::FixedArray { page_bits } => w.put_u8(page_bits),
                            ChunkIndex::ExtensibleArray {
                                max_bits,
                                index_elements,
                                min_pointers,
                                min_elements,
                                page_bits,
                            } => w.put_bytes(&[
                                max_bits,
                                index_elements,
                                min_pointers,
                                min_elements,
                                page_bits,
                            ]),
                            ChunkIndex::BTreeV2 {
                                node_size,
                                split_percent,
                                merge_percent,
                            } => {
                                w.put_u32(node_size);
                                w.put_u8(split_percent);
                                w.put_u8(merge_percent);
                            }
                        }
                        w.put_addr(*address);
                    }
                }
            }
            LayoutClass::Virtual {
                heap_address,
                heap_index,
            } => {
                w.put_u8(3);
                w.put_addr(*heap_address);
                w.put_u32(*heap_index);
            }
        }
    }

    fn encode_v1(&self, w: &mut Writer) {
        let (class, address, dims): (u8, Addr, Vec<u32>) = match &self.class {
            LayoutClass::Compact { dims, .. } => (0, Addr::UNDEF, dims.clone()),
            LayoutClass::Contiguous { address, dims, .. } => (1, *address, dims.clone()),
            LayoutClass::Chunked { dims, address, .. } => {
                (2, *address, dims.iter().map(|&d| d as u32).collect())
            }
            // Not reachable: virtual storage forces version 4.
            LayoutClass::Virtual { .. } => (3, Addr::UNDEF, Vec::new()),
        };
        w.put_u8(dims.len() as u8);
        w.put_u8(class);
        w.put_zeros(5);
        if class != 0 {
            w.put_addr(address);
        }
        for d in &dims {
            w.put_u32(*d);
        }
        if let LayoutClass::Compact { data, .. } = &self.class {
            w.put_u32(data.len() as u32);
            w.put_bytes(data);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Sizes;

    fn rt(l: &Layout, sizes: Sizes) -> Vec<u8> {
        let mut w = Writer::new(sizes);
        l.encode(&mut w);
        let got = Layout::parse(&mut Cursor::new(w.as_slice(), 0, sizes)).unwrap();
        assert_eq!(&got, l);
        w.into_vec()
    }

    #[test]
    fn version_3_contiguous_from_bytes() {
        let mut b = vec![3u8, 1];
        b.extend_from_slice(&0x800u64.to_le_bytes());
        b.extend_from_slice(&400u64.to_le_bytes());
        let l = Layout::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(
            l.class,
            LayoutClass::Contiguous {
                address: Addr(0x800),
                size: Some(400),
                dims: vec![]
            }
        );
        assert_eq!(rt(&l, Sizes::DEFAULT), b);
    }

    #[test]
    fn version_4_chunked_extensible_array_from_bytes() {
        // flags 0, 3 dims of 1 byte (10, 20, 4), index type 4 with 5 parameters, address.
        let mut b = vec![4u8, 2, 0, 3, 1, 10, 20, 4, 4, 32, 4, 4, 16, 10];
        b.extend_from_slice(&0x1234u64.to_le_bytes());
        let l = Layout::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        match &l.class {
            LayoutClass::Chunked {
                dims,
                index,
                address,
                ..
            } => {
                assert_eq!(dims, &vec![10, 20, 4]);
                assert_eq!(
                    *index,
                    Some(ChunkIndex::ExtensibleArray {
                        max_bits: 32,
                        index_elements: 4,
                        min_pointers: 4,
                        min_elements: 16,
                        page_bits: 10
                    })
                );
                assert_eq!(*address, Addr(0x1234));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(rt(&l, Sizes::DEFAULT), b);
    }

    #[test]
    fn every_class_and_version_round_trips() {
        let sizes = Sizes {
            offset: 4,
            length: 4,
        };
        let mut cases = vec![
            Layout {
                version: 1,
                class: LayoutClass::Compact {
                    dims: vec![4, 4],
                    data: vec![1, 2, 3],
                },
            },
            Layout {
                version: 2,
                class: LayoutClass::Contiguous {
                    address: Addr(64),
                    size: None,
                    dims: vec![10, 4],
                },
            },
            Layout {
                version: 1,
                class: LayoutClass::Chunked {
                    flags: 0,
                    dims: vec![5, 4],
                    index: None,
                    address: Addr(99),
                    dim_size_bytes: 4,
                },
            },
            Layout {
                version: 3,
                class: LayoutClass::Compact {
                    dims: vec![],
                    data: vec![9; 20],
                },
            },
            Layout {
                version: 3,
                class: LayoutClass::Chunked {
                    flags: 0,
                    dims: vec![5, 6, 8],
                    index: None,
                    address: Addr::UNDEF,
                    dim_size_bytes: 4,
                },
            },
            Layout {
                version: 4,
                class: LayoutClass::Virtual {
                    heap_address: Addr(0x500),
                    heap_index: 3,
                },
            },
        ];
        for (v, index) in [
            (
                4u8,
                ChunkIndex::SingleChunk {
                    filtered: Some((1000, 1)),
                },
            ),
            (4, ChunkIndex::SingleChunk { filtered: None }),
            (5, ChunkIndex::Implicit),
            (4, ChunkIndex::FixedArray { page_bits: 10 }),
            (
                5,
                ChunkIndex::BTreeV2 {
                    node_size: 2048,
                    split_percent: 100,
                    merge_percent: 40,
                },
            ),
        ] {
            let flags = if matches!(index, ChunkIndex::SingleChunk { filtered: Some(_) }) {
                2
            } else {
                1
            };
            cases.push(Layout {
                version: v,
                class: LayoutClass::Chunked {
                    flags,
                    dims: vec![100_000, 8],
                    index: Some(index),
                    address: Addr(0x40),
                    dim_size_bytes: 3,
                },
            });
        }
        for l in &cases {
            rt(l, sizes);
        }
    }

    #[test]
    fn bad_input_is_an_error() {
        for b in [
            &[6u8, 1][..],
            &[3, 7],
            &[4, 2, 0, 1, 9, 5],
            &[4, 2, 0, 1, 1, 5, 6],
            &[1, 0, 1],
        ] {
            assert!(
                Layout::parse(&mut Cursor::new(b, 0, Sizes::DEFAULT)).is_err(),
                "{b:?}"
            );
        }
    }
}
