//! The links of a group, whatever their storage: a symbol table (v1 B-tree of symbol table
//! nodes + local heap), link messages in the header (compact), or a fractal heap indexed by
//! version 2 B-trees (dense).

use std::collections::HashSet;

use h5_format::btree::v1;
use h5_format::btree::v2::Record;
use h5_format::heap::local::{string_at, LocalHeap};
use h5_format::message::link::LinkTarget as FormatTarget;
use h5_format::message::{Message, MessageFlags, MessageType};
use h5_format::symbol_table::{CachedInfo, SymbolTableEntry, SymbolTableNode};
use h5_format::{limits, Addr, Cursor};

use crate::error::{ensure, Error, ErrorKind, Result};
use crate::file::File;
use crate::object::Object;

/// Where a link points.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LinkTarget {
    /// A hard link: the object header's address.
    Hard(Addr),
    /// A soft link: a path in the same file (possibly dangling).
    Soft(String),
    /// An external link: a path in another file.
    External {
        /// The other file's name (relative to this file's directory unless absolute).
        file: String,
        /// The object's path in that file.
        path: String,
    },
    /// A user-defined link (type 65 to 255): reported, never followed.
    UserDefined {
        /// The link type.
        link_type: u8,
        /// The link's data.
        data: Vec<u8>,
    },
}

/// One link of a group.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Link {
    /// The link name.
    pub name: String,
    /// Where it points.
    pub target: LinkTarget,
    /// The creation order, when the group tracks it.
    pub creation_order: Option<u64>,
    /// The name's character set: 0 ASCII, 1 UTF-8.
    pub charset: u8,
}

/// How a group stores its links.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkStorage {
    /// A symbol table (old-style group).
    SymbolTable,
    /// Link messages in the object header.
    Compact,
    /// A fractal heap with a name index.
    Dense,
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn from_format(l: h5_format::message::link::Link) -> Link {
    let target = match l.target {
        FormatTarget::Hard(a) => LinkTarget::Hard(a),
        FormatTarget::Soft(p) => LinkTarget::Soft(lossy(&p)),
        FormatTarget::External { file, path, .. } => LinkTarget::External {
            file: lossy(&file),
            path: lossy(&path),
        },
        FormatTarget::UserDefined { link_type, data } => {
            LinkTarget::UserDefined { link_type, data }
        }
    };
    Link {
        name: lossy(&l.name),
        target,
        creation_order: l.creation_order,
        charset: l.charset.unwrap_or(0),
    }
}

/// The storage kind of a group object.
pub fn storage(obj: &Object) -> Result<LinkStorage> {
    if obj.has(MessageType::SYMBOL_TABLE) {
        return Ok(LinkStorage::SymbolTable);
    }
    if let Some(Message::LinkInfo(li)) = obj.message(MessageType::LINK_INFO)? {
        if !li.fractal_heap_address.is_undef() {
            return Ok(LinkStorage::Dense);
        }
    }
    Ok(LinkStorage::Compact)
}

/// Every link of the group `obj`, in storage order (name order for symbol tables and dense
/// storage, header order for compact storage).
pub fn links(file: &File, obj: &Object) -> Result<Vec<Link>> {
    match storage(obj)? {
        LinkStorage::SymbolTable => {
            let Some(Message::SymbolTable(st)) = obj.message(MessageType::SYMBOL_TABLE)? else {
                return Ok(Vec::new());
            };
            symbol_table_links(file, st.btree_address, st.heap_address)
        }
        LinkStorage::Compact => {
            let mut v = Vec::new();
            for m in obj.messages_of(MessageType::LINK) {
                match m {
                    Ok(Message::Link(l)) => v.push(from_format(l.clone())),
                    Ok(_) => {}
                    Err(e) => {
                        return Err(Error::new(ErrorKind::Format, format!("link message: {e}")))
                    }
                }
            }
            Ok(v)
        }
        LinkStorage::Dense => {
            let Some(Message::LinkInfo(li)) = obj.message(MessageType::LINK_INFO)? else {
                return Ok(Vec::new());
            };
            let mut v = Vec::new();
            for r in file.v2_records(li.name_btree_address)? {
                let id: &[u8] = match &r {
                    Record::LinkName { heap_id, .. } => heap_id,
                    Record::LinkCreationOrder { heap_id, .. } => heap_id,
                    _ => continue,
                };
                let bytes = file.fractal_heap_object(li.fractal_heap_address, id)?;
                match Message::parse_bytes(
                    MessageType::LINK,
                    MessageFlags(0),
                    &bytes,
                    0,
                    file.sizes(),
                )? {
                    Message::Link(l) => v.push(from_format(l)),
                    _ => {
                        return Err(Error::new(
                            ErrorKind::Format,
                            "dense link storage holds something else than a link",
                        ))
                    }
                }
            }
            Ok(v)
        }
    }
}

/// The links of a symbol-table group: walk the v1 B-tree (each node once), read every symbol
/// table node, and name the entries from the local heap.
pub fn symbol_table_links(file: &File, btree: Addr, heap: Addr) -> Result<Vec<Link>> {
    let raw = file.raw();
    let sizes = raw.sizes();
    let hb = raw.read(heap, LocalHeap::encoded_size(sizes) as u64)?;
    let lh = LocalHeap::parse(&mut raw.cursor(&hb, heap))?;
    let seg = raw.read(lh.data_segment, lh.data_segment_size)?;
    let segc = raw.cursor(&seg, lh.data_segment);
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![(btree, None::<u8>)];
    while let Some((addr, expect_level)) = stack.pop() {
        ensure!(
            seen.insert(addr.0),
            Format,
            "group B-tree node at {:#x} visited twice (a loop)",
            addr.0
        );
        ensure!(
            seen.len() <= 1 << 20,
            LimitExceeded,
            "group B-tree with more than 2^20 nodes"
        );
        let node = read_v1_node(file, addr, None)?;
        ensure!(
            node.node_type() == v1::NodeType::Group,
            Format,
            "group B-tree node at {:#x} is a chunk node",
            addr.0
        );
        if let Some(l) = expect_level {
            ensure!(
                node.level == l,
                Format,
                "group B-tree node at {:#x} has level {}, expected {l}",
                addr.0,
                node.level
            );
        }
        if node.level == 0 {
            for &snod in &node.children {
                ensure!(
                    seen.insert(snod.0 ^ (1 << 63)),
                    Format,
                    "symbol table node at {:#x} referenced twice",
                    snod.0
                );
                for e in read_snod(file, snod)?.entries {
                    out.push(entry_link(&segc, &e)?);
                }
            }
        } else {
            // Push in reverse so children are visited left to right.
            for &c in node.children.iter().rev() {
                stack.push((c, Some(node.level - 1)));
            }
        }
    }
    Ok(out)
}

fn entry_link(segc: &Cursor, e: &SymbolTableEntry) -> Result<Link> {
    let name = lossy(string_at(segc, e.link_name_offset)?);
    let target = match &e.cache {
        CachedInfo::SymbolicLink { link_value_offset } => {
            LinkTarget::Soft(lossy(string_at(segc, u64::from(*link_value_offset))?))
        }
        _ => LinkTarget::Hard(e.object_header),
    };
    Ok(Link {
        name,
        target,
        creation_order: None,
        charset: 0,
    })
}

fn read_snod(file: &File, addr: Addr) -> Result<SymbolTableNode> {
    let raw = file.raw();
    let head = raw.read(addr, 8)?;
    let n = u64::from(u16::from_le_bytes([head[6], head[7]]));
    let size = 8 + n * SymbolTableEntry::encoded_size(raw.sizes()) as u64;
    let b = raw.read(addr, size)?;
    Ok(SymbolTableNode::parse(&mut raw.cursor(&b, addr))?)
}

/// Read a version 1 B-tree node at `addr`: its header first, then exactly its used entries.
pub fn read_v1_node(file: &File, addr: Addr, chunk_rank: Option<usize>) -> Result<v1::Node> {
    let raw = file.raw();
    let sizes = raw.sizes();
    let head = raw.read(addr, 8)?;
    let ty = match head[4] {
        1 => v1::NodeType::Chunk,
        _ => v1::NodeType::Group,
    };
    let used = u64::from(u16::from_le_bytes([head[6], head[7]]));
    let o = sizes.offset as u64;
    let ks = v1::key_size(sizes, ty, chunk_rank.unwrap_or(0)) as u64;
    let size = 8 + 2 * o + (used + 1) * ks + used * o;
    ensure!(
        size <= limits::MAX_METADATA_BLOCK,
        LimitExceeded,
        "v1 B-tree node of {size} bytes"
    );
    let b = raw.read(addr, size)?;
    Ok(v1::Node::parse(&mut raw.cursor(&b, addr), chunk_rank)?)
}
