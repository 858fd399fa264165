//! Version 2 B-trees: header (`BTHD`), internal nodes (`BTIN`) and leaf nodes (`BTLF`), with
//! record types 1 to 11.
//!
//! Internal nodes cannot be parsed without the per-level arithmetic of the reference library
//! (`H5B2__hdr_init`): the most records a node of each depth holds, and from those the widths
//! of the "number of records in child" and "total records in child" fields. [`NodeInfo`]
//! computes it from the header's node size, record size and depth.
//!
//! [`Tree`] navigates a whole tree (records in order, lookup by key, every node).

use crate::bits::{check_count, limit_enc_size};
use crate::{limits, Addr, Cursor, ErrorKind, Result, Sizes, Writer};

mod navigate;
pub use navigate::{Node, NodeRef, Probe, Tree, Visitor};

/// Header signature.
pub const HEADER_SIGNATURE: [u8; 4] = *b"BTHD";
/// Internal node signature.
pub const INTERNAL_SIGNATURE: [u8; 4] = *b"BTIN";
/// Leaf node signature.
pub const LEAF_SIGNATURE: [u8; 4] = *b"BTLF";

/// Signature, version, type and checksum: the fixed overhead of every node.
const NODE_PREFIX: u64 = 4 + 1 + 1 + 4;

/// A version 2 B-tree header.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    /// "Type": the record type of the tree.
    pub record_type: u8,
    /// "Node Size" in bytes (all nodes).
    pub node_size: u32,
    /// "Record Size" in bytes.
    pub record_size: u16,
    /// "Depth" of the tree (0: the root is a leaf).
    pub depth: u16,
    /// "Split Percent".
    pub split_percent: u8,
    /// "Merge Percent".
    pub merge_percent: u8,
    /// "Root Node Address" (undefined for an empty tree).
    pub root: Addr,
    /// "Number of Records in Root Node".
    pub root_records: u16,
    /// "Total Number of Records in B-tree".
    pub total_records: u64,
}

impl Header {
    const STRUCTURE: &'static str = "v2 B-tree header";

    /// Encoded size for these sizes.
    pub fn encoded_size(sizes: Sizes) -> usize {
        4 + 1 + 1 + 4 + 2 + 2 + 1 + 1 + sizes.offset as usize + 2 + sizes.length as usize + 4
    }

    /// Parse a header and check its checksum.
    pub fn parse(c: &mut Cursor<'_>) -> Result<Header> {
        c.set_structure(Self::STRUCTURE);
        let start = c.pos();
        let at = c.offset();
        c.expect_signature(&HEADER_SIGNATURE)?;
        let version = c.read_u8()?;
        crate::ensure!(
            version == 0,
            UnsupportedVersion,
            Self::STRUCTURE,
            at + 4,
            "version {version}"
        );
        let record_type = c.read_u8()?;
        let node_size = c.read_u32()?;
        let record_size = c.read_u16()?;
        let depth = c.read_u16()?;
        let split_percent = c.read_u8()?;
        let merge_percent = c.read_u8()?;
        let root = c.read_addr()?;
        let root_records = c.read_u16()?;
        let total_records = c.read_len()?;
        c.verify_checksum(start)?;
        Ok(Header {
            record_type,
            node_size,
            record_size,
            depth,
            split_percent,
            merge_percent,
            root,
            root_records,
            total_records,
        })
    }

    /// Encode the header with its checksum.
    pub fn encode(&self, w: &mut Writer) {
        let start = w.len();
        w.put_bytes(&HEADER_SIGNATURE);
        w.put_u8(0);
        w.put_u8(self.record_type);
        w.put_u32(self.node_size);
        w.put_u16(self.record_size);
        w.put_u16(self.depth);
        w.put_u8(self.split_percent);
        w.put_u8(self.merge_percent);
        w.put_addr(self.root);
        w.put_u16(self.root_records);
        w.put_len(self.total_records);
        w.put_checksum(start);
    }

    /// The per-depth node arithmetic of this tree.
    pub fn node_info(&self, sizes: Sizes) -> Result<NodeInfo> {
        NodeInfo::new(self, sizes)
    }
}

/// What the reference library computes per depth from the header (`H5B2_node_info_t`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LevelInfo {
    /// Most records a node at this depth holds.
    pub max_records: u64,
    /// Most records in a node at this depth and all nodes below it.
    pub cumulative_max_records: u64,
    /// Bytes of the "total records in child" field of pointers to nodes at this depth (0 for
    /// leaves, where the field is absent).
    pub cumulative_size: usize,
}

/// The node arithmetic of a tree: one [`LevelInfo`] per depth 0 (leaves) ..= tree depth.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NodeInfo {
    /// Per-depth information, index 0 = leaves.
    pub levels: Vec<LevelInfo>,
    /// Bytes of the "number of records in child" field (from the leaf maximum, the largest).
    pub max_records_size: usize,
    /// Size of Offsets.
    pub sizeof_addr: usize,
    /// Node size.
    pub node_size: u64,
    /// Record size.
    pub record_size: u64,
}

impl NodeInfo {
    /// Compute the arithmetic for a header (`H5B2__hdr_init`).
    pub fn new(h: &Header, sizes: Sizes) -> Result<NodeInfo> {
        let err =
            |m: String| crate::Error::without_offset(ErrorKind::InvalidValue, Header::STRUCTURE, m);
        let node_size = h.node_size as u64;
        let record_size = h.record_size as u64;
        if record_size == 0 {
            return Err(err("record size is 0".into()));
        }
        if node_size <= NODE_PREFIX || node_size > limits::MAX_METADATA_BLOCK {
            return Err(err(format!("node size {node_size} is out of range")));
        }
        if h.depth as usize > limits::MAX_BTREE_DEPTH {
            return Err(crate::Error::without_offset(
                ErrorKind::LimitExceeded,
                Header::STRUCTURE,
                format!("depth {} exceeds {}", h.depth, limits::MAX_BTREE_DEPTH),
            ));
        }
        let sizeof_addr = sizes.offset as usize;
        let leaf_max = (node_size - NODE_PREFIX) / record_size;
        if leaf_max == 0 {
            return Err(err(format!(
                "node size {node_size} holds no {record_size}-byte record"
            )));
        }
        let max_records_size = limit_enc_size(leaf_max);
        let mut levels = vec![LevelInfo {
            max_records: leaf_max,
            cumulative_max_records: leaf_max,
            cumulative_size: 0,
        }];
        for d in 1..=h.depth as usize {
            let below = &levels[d - 1];
            let pointer = (sizeof_addr
                + max_records_size
                + if d > 1 { below.cumulative_size } else { 0 }) as u64;
            let max = node_size
                .checked_sub(NODE_PREFIX + pointer)
                .map_or(0, |room| room / (record_size + pointer));
            if max == 0 {
                return Err(err(format!(
                    "an internal node at depth {d} holds no record (node size {node_size})"
                )));
            }
            let cum = (max + 1)
                .checked_mul(below.cumulative_max_records)
                .and_then(|v| v.checked_add(max))
                .ok_or_else(|| err(format!("record count overflows at depth {d}")))?;
            levels.push(LevelInfo {
                max_records: max,
                cumulative_max_records: cum,
                cumulative_size: limit_enc_size(cum),
            });
        }
        Ok(NodeInfo {
            levels,
            max_records_size,
            sizeof_addr,
            node_size,
            record_size,
        })
    }

    /// Size of one child pointer in an internal node at `depth` (>= 1).
    pub fn pointer_size(&self, depth: usize) -> usize {
        self.sizeof_addr
            + self.max_records_size
            + if depth > 1 {
                self.levels.get(depth - 1).map_or(0, |l| l.cumulative_size)
            } else {
                0
            }
    }
}

/// Record of a shared object header message index (type 7).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SharedMessageRecord {
    /// Location 0: the message is in the shared message fractal heap.
    InHeap {
        /// Hash of the message.
        hash: u32,
        /// Reference count.
        reference_count: u32,
        /// Fractal heap ID (8 bytes).
        heap_id: [u8; 8],
    },
    /// Location 1: the message is in an object header.
    InObjectHeader {
        /// Hash of the message.
        hash: u32,
        /// Message type.
        message_type: u8,
        /// "Object Header Index": the message is the nth of its type in that header.
        index: u16,
        /// Object header address.
        object_header: Addr,
    },
}

/// A version 2 B-tree record.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Record {
    /// Type 1: indirectly accessed, non-filtered huge fractal heap object.
    HugeIndirect {
        /// Object address.
        address: Addr,
        /// Object length.
        length: u64,
        /// Heap object ID.
        id: u64,
    },
    /// Type 2: indirectly accessed, filtered huge object.
    HugeIndirectFiltered {
        /// Filtered object address.
        address: Addr,
        /// Filtered object length.
        length: u64,
        /// Filter mask.
        filter_mask: u32,
        /// De-filtered object size.
        memory_size: u64,
        /// Heap object ID.
        id: u64,
    },
    /// Type 3: directly accessed, non-filtered huge object.
    HugeDirect {
        /// Object address.
        address: Addr,
        /// Object length.
        length: u64,
    },
    /// Type 4: directly accessed, filtered huge object.
    HugeDirectFiltered {
        /// Filtered object address.
        address: Addr,
        /// Filtered object length.
        length: u64,
        /// Filter mask.
        filter_mask: u32,
        /// De-filtered object size.
        memory_size: u64,
    },
    /// Type 5: link name for an indexed group.
    LinkName {
        /// lookup3 hash of the name.
        hash: u32,
        /// Fractal heap ID of the link (7 bytes).
        heap_id: [u8; 7],
    },
    /// Type 6: creation order for an indexed group.
    LinkCreationOrder {
        /// Creation order.
        creation_order: u64,
        /// Fractal heap ID of the link (7 bytes).
        heap_id: [u8; 7],
    },
    /// Type 7: shared object header message index.
    SharedMessage(SharedMessageRecord),
    /// Type 8: attribute name (dense attribute storage).
    AttributeName {
        /// Fractal heap ID of the attribute (8 bytes).
        heap_id: [u8; 8],
        /// Message flags.
        message_flags: u8,
        /// Creation order.
        creation_order: u32,
        /// lookup3 hash of the name.
        hash: u32,
    },
    /// Type 9: attribute creation order.
    AttributeCreationOrder {
        /// Fractal heap ID of the attribute (8 bytes).
        heap_id: [u8; 8],
        /// Message flags.
        message_flags: u8,
        /// Creation order.
        creation_order: u32,
    },
    /// Type 10: a chunk of a non-filtered dataset.
    Chunk {
        /// Chunk address.
        address: Addr,
        /// Scaled offset per dataset dimension (chunk offset / chunk size).
        scaled: Vec<u64>,
    },
    /// Type 11: a chunk of a filtered dataset.
    FilteredChunk {
        /// Chunk address.
        address: Addr,
        /// Chunk size after filters.
        chunk_size: u64,
        /// Width of the chunk size field (1..=8).
        chunk_size_len: u8,
        /// Filter mask.
        filter_mask: u32,
        /// Scaled offset per dataset dimension.
        scaled: Vec<u64>,
    },
    /// A record of another type (0, testing, or unknown), or one whose size does not fit its
    /// type: the raw bytes.
    Unknown {
        /// The record type.
        record_type: u8,
        /// The record's bytes.
        raw: Vec<u8>,
    },
}

impl Record {
    /// The record type this record is encoded as.
    pub fn record_type(&self) -> u8 {
        match self {
            Record::HugeIndirect { .. } => 1,
            Record::HugeIndirectFiltered { .. } => 2,
            Record::HugeDirect { .. } => 3,
            Record::HugeDirectFiltered { .. } => 4,
            Record::LinkName { .. } => 5,
            Record::LinkCreationOrder { .. } => 6,
            Record::SharedMessage(_) => 7,
            Record::AttributeName { .. } => 8,
            Record::AttributeCreationOrder { .. } => 9,
            Record::Chunk { .. } => 10,
            Record::FilteredChunk { .. } => 11,
            Record::Unknown { record_type, .. } => *record_type,
        }
    }

    /// Parse one record of `record_type` from exactly `record_size` bytes. A known type whose
    /// fields do not fit the record size becomes [`Record::Unknown`].
    pub fn parse(c: &mut Cursor<'_>, record_type: u8, record_size: usize) -> Result<Record> {
        let mut r = c.sub(record_size)?;
        let raw = r.data();
        match Self::parse_known(&mut r, record_type, record_size) {
            Some(Ok(rec)) => Ok(rec),
            Some(Err(e)) if e.kind() != ErrorKind::UnexpectedEof => Err(e),
            _ => Ok(Record::Unknown {
                record_type,
                raw: raw.to_vec(),
            }),
        }
    }

    fn parse_known(r: &mut Cursor<'_>, t: u8, size: usize) -> Option<Result<Record>> {
        let o = r.sizes().offset as usize;
        let read = |r: &mut Cursor<'_>| -> Result<Record> {
            Ok(match t {
                1 => Record::HugeIndirect {
                    address: r.read_addr()?,
                    length: r.read_len()?,
                    id: r.read_len()?,
                },
                2 => Record::HugeIndirectFiltered {
                    address: r.read_addr()?,
                    length: r.read_len()?,
                    filter_mask: r.read_u32()?,
                    memory_size: r.read_len()?,
                    id: r.read_len()?,
                },
                3 => Record::HugeDirect {
                    address: r.read_addr()?,
                    length: r.read_len()?,
                },
                4 => Record::HugeDirectFiltered {
                    address: r.read_addr()?,
                    length: r.read_len()?,
                    filter_mask: r.read_u32()?,
                    memory_size: r.read_len()?,
                },
                5 => Record::LinkName {
                    hash: r.read_u32()?,
                    heap_id: r.read_array()?,
                },
                6 => Record::LinkCreationOrder {
                    creation_order: r.read_u64()?,
                    heap_id: r.read_array()?,
                },
                7 => {
                    let at = r.offset();
                    match r.read_u8()? {
                        0 => Record::SharedMessage(SharedMessageRecord::InHeap {
                            hash: r.read_u32()?,
                            reference_count: r.read_u32()?,
                            heap_id: r.read_array()?,
                        }),
                        1 => {
                            let hash = r.read_u32()?;
                            r.skip(1)?;
                            Record::SharedMessage(SharedMessageRecord::InObjectHeader {
                                hash,
                                message_type: r.read_u8()?,
                                index: r.read_u16()?,
                                object_header: r.read_addr()?,
                            })
                        }
                        l => {
                            return Err(r.error_at(
                                ErrorKind::InvalidValue,
                                at,
                                format!("shared message location {l}"),
                            ))
                        }
                    }
                }
                8 => Record::AttributeName {
                    heap_id: r.read_array()?,
                    message_flags: r.read_u8()?,
                    creation_order: r.read_u32()?,
                    hash: r.read_u32()?,
                },
                9 => Record::AttributeCreationOrder {
                    heap_id: r.read_array()?,
                    message_flags: r.read_u8()?,
                    creation_order: r.read_u32()?,
                },
                10 => {
                    let rest = size.saturating_sub(o);
                    if !rest.is_multiple_of(8) || size < o || rest / 8 > limits::MAX_RANK {
                        return Err(r.error(ErrorKind::UnexpectedEof, "record size"));
                    }
                    let address = r.read_addr()?;
                    let mut scaled = Vec::with_capacity(rest / 8);
                    for _ in 0..rest / 8 {
                        scaled.push(r.read_u64()?);
                    }
                    Record::Chunk { address, scaled }
                }
                11 => {
                    // Address, chunk size (1..=8 bytes), filter mask (4), 8 bytes per
                    // dimension: the split of the remainder is unique.
                    let rest = size.checked_sub(o + 4).filter(|&n| n >= 1);
                    let Some(rest) = rest else {
                        return Err(r.error(ErrorKind::UnexpectedEof, "record size"));
                    };
                    let ndims = (rest - 1) / 8;
                    let csl = rest - 8 * ndims;
                    if ndims > limits::MAX_RANK {
                        return Err(r.error(ErrorKind::UnexpectedEof, "record size"));
                    }
                    let address = r.read_addr()?;
                    let chunk_size = r.read_uint(csl)?;
                    let filter_mask = r.read_u32()?;
                    let mut scaled = Vec::with_capacity(ndims);
                    for _ in 0..ndims {
                        scaled.push(r.read_u64()?);
                    }
                    Record::FilteredChunk {
                        address,
                        chunk_size,
                        chunk_size_len: csl as u8,
                        filter_mask,
                        scaled,
                    }
                }
                _ => return Err(r.error(ErrorKind::UnexpectedEof, "unknown type")),
            })
        };
        if !(1..=11).contains(&t) {
            return None;
        }
        Some(read(r))
    }

    /// Encode the record into exactly `record_size` bytes (zero padded, or cut when the
    /// record is larger).
    pub fn encode(&self, w: &mut Writer, record_size: usize) {
        let mut rw = Writer::new(w.sizes());
        match self {
            Record::HugeIndirect {
                address,
                length,
                id,
            } => {
                rw.put_addr(*address);
                rw.put_len(*length);
                rw.put_len(*id);
            }
            Record::HugeIndirectFiltered {
                address,
                length,
                filter_mask,
                memory_size,
                id,
            } => {
                rw.put_addr(*address);
                rw.put_len(*length);
                rw.put_u32(*filter_mask);
                rw.put_len(*memory_size);
                rw.put_len(*id);
            }
            Record::HugeDirect { address, length } => {
                rw.put_addr(*address);
                rw.put_len(*length);
            }
            Record::HugeDirectFiltered {
                address,
                length,
                filter_mask,
                memory_size,
            } => {
                rw.put_addr(*address);
                rw.put_len(*length);
                rw.put_u32(*filter_mask);
                rw.put_len(*memory_size);
            }
            Record::LinkName { hash, heap_id } => {
                rw.put_u32(*hash);
                rw.put_bytes(heap_id);
            }
            Record::LinkCreationOrder {
                creation_order,
                heap_id,
            } => {
                rw.put_u64(*creation_order);
                rw.put_bytes(heap_id);
            }
            Record::SharedMessage(SharedMessageRecord::InHeap {
                hash,
                reference_count,
                heap_id,
            }) => {
                rw.put_u8(0);
                rw.put_u32(*hash);
                rw.put_u32(*reference_count);
                rw.put_bytes(heap_id);
            }
            Record::SharedMessage(SharedMessageRecord::InObjectHeader {
                hash,
                message_type,
                index,
                object_header,
            }) => {
                rw.put_u8(1);
                rw.put_u32(*hash);
                rw.put_u8(0);
                rw.put_u8(*message_type);
                rw.put_u16(*index);
                rw.put_addr(*object_header);
            }
            Record::AttributeName {
                heap_id,
                message_flags,
                creation_order,
                hash,
            } => {
                rw.put_bytes(heap_id);
                rw.put_u8(*message_flags);
                rw.put_u32(*creation_order);
                rw.put_u32(*hash);
            }
            Record::AttributeCreationOrder {
                heap_id,
                message_flags,
                creation_order,
            } => {
                rw.put_bytes(heap_id);
                rw.put_u8(*message_flags);
                rw.put_u32(*creation_order);
            }
            Record::Chunk { address, scaled } => {
                rw.put_addr(*address);
                for &s in scaled {
                    rw.put_u64(s);
                }
            }
            Record::FilteredChunk {
                address,
                chunk_size,
                chunk_size_len,
                filter_mask,
                scaled,
            } => {
                rw.put_addr(*address);
                rw.put_uint(*chunk_size, (*chunk_size_len).clamp(1, 8) as usize);
                rw.put_u32(*filter_mask);
                for &s in scaled {
                    rw.put_u64(s);
                }
            }
            Record::Unknown { raw, .. } => rw.put_bytes(raw),
        }
        let bytes = rw.into_vec();
        let n = bytes.len().min(record_size);
        w.put_bytes(&bytes[..n]);
        w.put_zeros(record_size - n);
    }
}

/// A pointer from an internal node to a child node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ChildPointer {
    /// Child node address.
    pub address: Addr,
    /// "Number of Records" in the child node.
    pub records: u64,
    /// "Total Number of Records" in the child and below; present only for children that are
    /// themselves internal nodes (node depth > 1).
    pub total_records: Option<u64>,
}

fn check_node_header(
    c: &mut Cursor<'_>,
    sig: &[u8; 4],
    structure: &'static str,
    h: &Header,
) -> Result<()> {
    let at = c.offset();
    c.expect_signature(sig)?;
    let version = c.read_u8()?;
    crate::ensure!(
        version == 0,
        UnsupportedVersion,
        structure,
        at + 4,
        "version {version}"
    );
    let t = c.read_u8()?;
    crate::ensure!(
        t == h.record_type,
        InvalidValue,
        structure,
        at + 5,
        "record type {t}, the header says {}",
        h.record_type
    );
    Ok(())
}

/// An internal node (`BTIN`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InternalNode {
    /// The records, in key order.
    pub records: Vec<Record>,
    /// The child pointers, one more than the records.
    pub children: Vec<ChildPointer>,
}

impl InternalNode {
    const STRUCTURE: &'static str = "v2 B-tree internal node";

    /// Parse an internal node at `depth` (>= 1; the root is at the header's depth) holding
    /// `nrecords` records (from the parent pointer or the header).
    pub fn parse(
        c: &mut Cursor<'_>,
        h: &Header,
        info: &NodeInfo,
        depth: usize,
        nrecords: u64,
    ) -> Result<InternalNode> {
        c.set_structure(Self::STRUCTURE);
        let at = c.offset();
        let start = c.pos();
        let level = info
            .levels
            .get(depth)
            .filter(|_| depth >= 1)
            .ok_or_else(|| {
                c.error(
                    ErrorKind::InvalidValue,
                    format!("depth {depth} is not an internal level of this tree"),
                )
            })?;
        crate::ensure!(
            nrecords <= level.max_records,
            InvalidValue,
            Self::STRUCTURE,
            at,
            "{nrecords} records, at most {} fit",
            level.max_records
        );
        let node = c.sub((info.node_size as usize).min(c.remaining()))?;
        let mut n = node.in_structure(Self::STRUCTURE);
        check_node_header(&mut n, &INTERNAL_SIGNATURE, Self::STRUCTURE, h)?;
        let rs = info.record_size as usize;
        let count = check_count(
            &n,
            nrecords,
            rs as u64,
            limits::MAX_BTREE_ENTRIES as u64,
            "records",
        )?;
        let mut records = Vec::with_capacity(count);
        for _ in 0..count {
            records.push(Record::parse(&mut n, h.record_type, rs)?);
        }
        let psize = info.pointer_size(depth);
        let total_size = if depth > 1 {
            info.levels[depth - 1].cumulative_size
        } else {
            0
        };
        check_count(&n, nrecords + 1, psize as u64, u64::MAX, "child pointers")?;
        let mut children = Vec::with_capacity(count + 1);
        for _ in 0..=count {
            let address = n.read_addr()?;
            let records = n.read_uint(info.max_records_size)?;
            let total_records = if depth > 1 {
                Some(n.read_uint(total_size)?)
            } else {
                None
            };
            children.push(ChildPointer {
                address,
                records,
                total_records,
            });
        }
        n.verify_checksum(0)?;
        let _ = start;
        Ok(InternalNode { records, children })
    }

    /// Encode the node at `depth`, padded to the node size.
    pub fn encode(&self, w: &mut Writer, h: &Header, info: &NodeInfo, depth: usize) {
        let start = w.len();
        w.put_bytes(&INTERNAL_SIGNATURE);
        w.put_u8(0);
        w.put_u8(h.record_type);
        for r in &self.records {
            r.encode(w, info.record_size as usize);
        }
        let total_size = if depth > 1 {
            info.levels.get(depth - 1).map_or(0, |l| l.cumulative_size)
        } else {
            0
        };
        for p in &self.children {
            w.put_addr(p.address);
            w.put_uint(p.records, info.max_records_size);
            if depth > 1 {
                w.put_uint(p.total_records.unwrap_or(p.records), total_size);
            }
        }
        w.put_checksum(start);
        let used = w.len() - start;
        w.put_zeros((info.node_size as usize).saturating_sub(used));
    }
}

/// A leaf node (`BTLF`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LeafNode {
    /// The records, in key order.
    pub records: Vec<Record>,
}

impl LeafNode {
    const STRUCTURE: &'static str = "v2 B-tree leaf node";

    /// Parse a leaf holding `nrecords` records.
    pub fn parse(
        c: &mut Cursor<'_>,
        h: &Header,
        info: &NodeInfo,
        nrecords: u64,
    ) -> Result<LeafNode> {
        c.set_structure(Self::STRUCTURE);
        let at = c.offset();
        crate::ensure!(
            nrecords <= info.levels[0].max_records,
            InvalidValue,
            Self::STRUCTURE,
            at,
            "{nrecords} records, at most {} fit",
            info.levels[0].max_records
        );
        let node = c.sub((info.node_size as usize).min(c.remaining()))?;
        let mut n = node.in_structure(Self::STRUCTURE);
        check_node_header(&mut n, &LEAF_SIGNATURE, Self::STRUCTURE, h)?;
        let rs = info.record_size as usize;
        let count = check_count(
            &n,
            nrecords,
            rs as u64,
            limits::MAX_BTREE_ENTRIES as u64,
            "records",
        )?;
        let mut records = Vec::with_capacity(count);
        for _ in 0..count {
            records.push(Record::parse(&mut n, h.record_type, rs)?);
        }
        n.verify_checksum(0)?;
        Ok(LeafNode { records })
    }

    /// Encode the leaf, padded to the node size.
    pub fn encode(&self, w: &mut Writer, h: &Header, info: &NodeInfo) {
        let start = w.len();
        w.put_bytes(&LEAF_SIGNATURE);
        w.put_u8(0);
        w.put_u8(h.record_type);
        for r in &self.records {
            r.encode(w, info.record_size as usize);
        }
        w.put_checksum(start);
        let used = w.len() - start;
        w.put_zeros((info.node_size as usize).saturating_sub(used));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(record_type: u8, record_size: u16, depth: u16) -> Header {
        Header {
            record_type,
            node_size: 512,
            record_size,
            depth,
            split_percent: 100,
            merge_percent: 40,
            root: Addr(0x800),
            root_records: 2,
            total_records: 2,
        }
    }

    #[test]
    fn header_from_bytes() {
        let mut b = Vec::new();
        b.extend_from_slice(b"BTHD\x00\x05");
        b.extend_from_slice(&512u32.to_le_bytes());
        b.extend_from_slice(&11u16.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(&[100, 40]);
        b.extend_from_slice(&0x800u64.to_le_bytes());
        b.extend_from_slice(&2u16.to_le_bytes());
        b.extend_from_slice(&2u64.to_le_bytes());
        let sum = crate::checksum::checksum(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        let h = Header::parse(&mut Cursor::new(&b, 0x300, Sizes::DEFAULT)).unwrap();
        assert_eq!(h, header(5, 11, 0));
        assert_eq!(b.len(), Header::encoded_size(Sizes::DEFAULT));
        let mut w = Writer::new(Sizes::DEFAULT);
        h.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
        // A flipped byte is a checksum error naming the structure and the checksum's offset.
        b[8] ^= 1;
        let e = Header::parse(&mut Cursor::new(&b, 0x300, Sizes::DEFAULT)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ChecksumMismatch);
        assert_eq!(e.structure(), "v2 B-tree header");
        assert_eq!(e.offset(), Some(0x300 + b.len() as u64 - 4));
    }

    #[test]
    fn node_info_matches_reference_arithmetic() {
        // Link name index of a group: 512-byte nodes, 11-byte records, depth 2, 8-byte
        // addresses. Leaf: (512 - 10) / 11 = 45 records, so 1-byte record counts.
        let info = header(5, 11, 2).node_info(Sizes::DEFAULT).unwrap();
        assert_eq!(info.levels[0].max_records, 45);
        assert_eq!(info.max_records_size, 1);
        // Depth 1: pointer = 8 + 1 = 9; (512 - (10 + 9)) / (11 + 9) = 24.
        assert_eq!(info.levels[1].max_records, 24);
        assert_eq!(info.levels[1].cumulative_max_records, 25 * 45 + 24);
        assert_eq!(info.levels[1].cumulative_size, 2);
        // Depth 2: pointer = 8 + 1 + 2 = 11; (512 - 21) / 22 = 22.
        assert_eq!(info.levels[2].max_records, 22);
        assert_eq!(info.levels[2].cumulative_max_records, 23 * 1149 + 22);
        assert_eq!(info.pointer_size(2), 11);
    }

    #[test]
    fn leaf_and_internal_round_trip() {
        let h = header(5, 11, 2);
        let info = h.node_info(Sizes::DEFAULT).unwrap();
        let leaf = LeafNode {
            records: vec![
                Record::LinkName {
                    hash: 7,
                    heap_id: [0, 1, 2, 3, 4, 5, 6],
                },
                Record::LinkName {
                    hash: 9,
                    heap_id: [1; 7],
                },
            ],
        };
        let mut w = Writer::new(Sizes::DEFAULT);
        leaf.encode(&mut w, &h, &info);
        assert_eq!(w.len(), 512);
        let b = w.into_vec();
        let back = LeafNode::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT), &h, &info, 2).unwrap();
        assert_eq!(back, leaf);

        let node = InternalNode {
            records: vec![Record::LinkName {
                hash: 8,
                heap_id: [2; 7],
            }],
            children: vec![
                ChildPointer {
                    address: Addr(0x1000),
                    records: 20,
                    total_records: Some(500),
                },
                ChildPointer {
                    address: Addr(0x2000),
                    records: 21,
                    total_records: Some(600),
                },
            ],
        };
        let mut w = Writer::new(Sizes::DEFAULT);
        node.encode(&mut w, &h, &info, 2);
        let b = w.into_vec();
        // sig+ver+type, one record, two 11-byte pointers, checksum.
        assert_eq!(&b[..4], b"BTIN");
        assert_eq!(&b[6 + 11..6 + 11 + 8], &0x1000u64.to_le_bytes());
        assert_eq!(b[6 + 11 + 8], 20);
        assert_eq!(&b[6 + 11 + 9..6 + 11 + 11], &500u16.to_le_bytes());
        let back =
            InternalNode::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT), &h, &info, 2, 1).unwrap();
        assert_eq!(back, node);
    }

    #[test]
    fn every_record_type_round_trips() {
        let s = Sizes::DEFAULT;
        let cases: Vec<(Record, usize)> = vec![
            (
                Record::HugeIndirect {
                    address: Addr(1),
                    length: 2,
                    id: 3,
                },
                24,
            ),
            (
                Record::HugeIndirectFiltered {
                    address: Addr(1),
                    length: 2,
                    filter_mask: 4,
                    memory_size: 5,
                    id: 3,
                },
                36,
            ),
            (
                Record::HugeDirect {
                    address: Addr(1),
                    length: 2,
                },
                16,
            ),
            (
                Record::HugeDirectFiltered {
                    address: Addr(1),
                    length: 2,
                    filter_mask: 1,
                    memory_size: 9,
                },
                28,
            ),
            (
                Record::LinkCreationOrder {
                    creation_order: 5,
                    heap_id: [3; 7],
                },
                15,
            ),
            (
                Record::SharedMessage(SharedMessageRecord::InHeap {
                    hash: 1,
                    reference_count: 2,
                    heap_id: [4; 8],
                }),
                17,
            ),
            (
                Record::SharedMessage(SharedMessageRecord::InObjectHeader {
                    hash: 1,
                    message_type: 3,
                    index: 2,
                    object_header: Addr(0x99),
                }),
                17,
            ),
            (
                Record::AttributeName {
                    heap_id: [5; 8],
                    message_flags: 1,
                    creation_order: 3,
                    hash: 77,
                },
                17,
            ),
            (
                Record::AttributeCreationOrder {
                    heap_id: [5; 8],
                    message_flags: 0,
                    creation_order: 3,
                },
                13,
            ),
            (
                Record::Chunk {
                    address: Addr(0x40),
                    scaled: vec![1, 2],
                },
                24,
            ),
            (
                Record::FilteredChunk {
                    address: Addr(0x40),
                    chunk_size: 1000,
                    chunk_size_len: 2,
                    filter_mask: 0,
                    scaled: vec![3, 4, 5],
                },
                8 + 2 + 4 + 24,
            ),
            (
                Record::Unknown {
                    record_type: 0,
                    raw: vec![1, 2, 3],
                },
                3,
            ),
        ];
        for (rec, size) in cases {
            let mut w = Writer::new(s);
            rec.encode(&mut w, size);
            assert_eq!(w.len(), size, "{rec:?}");
            let b = w.into_vec();
            let back = Record::parse(&mut Cursor::new(&b, 0, s), rec.record_type(), size).unwrap();
            assert_eq!(back, rec);
        }
        // A record too small for its type falls back to Unknown.
        let back = Record::parse(&mut Cursor::new(&[1, 2, 3], 0, s), 3, 3).unwrap();
        assert!(matches!(back, Record::Unknown { record_type: 3, .. }));
    }

    #[test]
    fn hostile_headers_are_rejected() {
        let mut h = header(5, 0, 0);
        assert!(h.node_info(Sizes::DEFAULT).is_err());
        h.record_size = 600;
        assert!(h.node_info(Sizes::DEFAULT).is_err());
        h.record_size = 11;
        h.depth = 1000;
        assert!(h.node_info(Sizes::DEFAULT).is_err());
        h.depth = 0;
        let info = h.node_info(Sizes::DEFAULT).unwrap();
        let e = LeafNode::parse(&mut Cursor::new(b"BTLF", 0, Sizes::DEFAULT), &h, &info, 46)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
    }
}
