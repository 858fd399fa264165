//! Object headers as the reader sees them: loaded with their continuation chunks, messages
//! decoded one by one (a bad message is an error only for whoever needs it), shared messages
//! resolved through committed datatypes or the shared object header message heap.

use h5_format::message::shared::{SharedLocation, SharedMessage};
use h5_format::message::{Message, MessageFlags, MessageType};
use h5_format::object_header::{ObjectHeader, RawMessage, OHDR};
use h5_format::{limits, Addr, Cursor, Sizes};
use std::sync::OnceLock;

use crate::error::{bail, ensure, Error, ErrorKind, Result};
use crate::file::File;
use crate::raw::RawFile;

/// How many bytes the first read of an object header asks for: the prefix and, for most
/// headers, all of chunk 0 (one read where two would be needed).
const HEADER_FIRST_READ: u64 = 512;

/// How deep shared messages may point to further shared messages.
const MAX_SHARED_DEPTH: usize = 8;

/// Read and parse the object header at `addr`, with its continuation chunks.
pub fn read_header(raw: &RawFile, addr: Addr) -> Result<ObjectHeader> {
    // Chunk 0's size is in the prefix: read enough for the prefix and most headers' chunk 0
    // at once, then the rest of a larger chunk 0.
    let mut head = raw.read_up_to(addr, HEADER_FIRST_READ)?;
    let total = if head.starts_with(&OHDR) {
        let flags = *head.get(5).unwrap_or(&0);
        let mut at = 6usize;
        if flags & 0x20 != 0 {
            at += 16;
        }
        if flags & 0x10 != 0 {
            at += 4;
        }
        let w = 1usize << (flags & 3);
        let mut size = 0u64;
        for i in 0..w {
            size |= u64::from(*head.get(at + i).unwrap_or(&0)) << (8 * i);
        }
        ensure!(
            size <= limits::MAX_METADATA_BLOCK,
            Format,
            "object header at {:#x}: chunk 0 of {size} bytes",
            addr.0
        );
        (at + w) as u64 + size + 4
    } else {
        let mut b = [0u8; 4];
        for (i, x) in b.iter_mut().enumerate() {
            *x = *head.get(8 + i).unwrap_or(&0);
        }
        16 + u64::from(u32::from_le_bytes(b))
    };
    let bytes = if total <= head.len() as u64 || (head.len() as u64) < HEADER_FIRST_READ {
        // All of chunk 0 is in the first read (or the file ends inside it).
        head.truncate(total.min(head.len() as u64) as usize);
        head
    } else {
        raw.read_up_to(addr, total)?
    };
    let mut c = raw.cursor(&bytes, addr);
    let h = ObjectHeader::parse(&mut c, |a, len| {
        raw.read(a, len).map_err(|e| {
            h5_format::Error::new(
                h5_format::ErrorKind::BadAddress,
                "object header continuation",
                a.0,
                e.to_string(),
            )
        })
    })?;
    Ok(h)
}

/// Whether HDF5 1.10 knows messages of this type (a release build does not know the bogus
/// message, 0x0009; 0x0018 is the metadata cache image message).
fn known_message(kind: MessageType) -> bool {
    kind.0 <= 0x18 && kind != MessageType::BOGUS
}

/// Datatypes the reference library refuses to decode: compounds without members
/// (`H5O_dtype_decode_helper`: "invalid number of members: 0").
pub(crate) fn check_datatype(dt: &h5_types::Datatype) -> std::result::Result<(), String> {
    use h5_types::Datatype;
    match dt {
        Datatype::Compound(c) => {
            if c.is_empty() {
                return Err("invalid number of compound members: 0".into());
            }
            c.members()
                .iter()
                .try_for_each(|m| check_datatype(m.datatype()))
        }
        Datatype::Array(a) => check_datatype(a.base()),
        Datatype::VarLen(v) => check_datatype(v.base()),
        _ => Ok(()),
    }
}

fn check_types(m: &Message) -> std::result::Result<(), String> {
    match m {
        Message::Datatype(d) => check_datatype(&d.datatype),
        Message::Attribute(a) => match &a.datatype {
            h5_format::message::attribute::MaybeShared::Inline(d) => check_datatype(&d.datatype),
            h5_format::message::attribute::MaybeShared::Shared(_) => Ok(()),
        },
        _ => Ok(()),
    }
}

/// What an object is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObjectKind {
    /// A group.
    Group,
    /// A dataset.
    Dataset,
    /// A committed (named) datatype.
    Datatype,
    /// Something else (no message says what it is).
    Unknown,
}

/// One message of an object header (not NIL, not a continuation), decoded at its first
/// use: a header of many attributes costs only the messages that are asked for.
#[derive(Debug)]
struct Entry {
    kind: MessageType,
    /// Where the message is in the header: chunk and index in the chunk.
    chunk: u32,
    index: u32,
    creation_order: Option<u16>,
    /// Boxed: a header of many messages keeps a small vector (a `Message` is large).
    decoded: OnceLock<Box<std::result::Result<Message, String>>>,
}

/// A loaded object header. Messages are decoded when first asked for (shared ones,
/// resolved through the file, at load), and each decoding is kept; a message that failed
/// to decode keeps its error.
#[derive(Debug)]
pub struct Object {
    /// The header's address.
    pub addr: Addr,
    /// The header as parsed.
    pub header: ObjectHeader,
    sizes: Sizes,
    entries: Vec<Entry>,
}

/// Decode a message that is not shared (a shared one is resolved at load), checking its
/// datatypes as the reference library does.
fn decode_unshared(m: &RawMessage, sizes: Sizes) -> std::result::Result<Message, String> {
    let msg = m.decode(sizes).map_err(|e| e.to_string())?;
    check_types(&msg)?;
    Ok(msg)
}

impl Object {
    /// Load the header at `addr`; its messages are decoded when first used.
    pub fn load(file: &File, addr: Addr) -> Result<Object> {
        let header = read_header(file.raw(), addr)?;
        let sizes = file.sizes();
        let mut entries = Vec::with_capacity(header.chunks.iter().map(|c| c.messages.len()).sum());
        let v1 = header.version() == 1;
        for (ci, chunk) in header.chunks.iter().enumerate() {
            for (mi, m) in chunk.messages.iter().enumerate() {
                if m.kind == MessageType::NIL || m.kind == MessageType::CONTINUATION {
                    continue;
                }
                // What the reference library refuses while loading a header
                // (`H5O__chunk_deserialize`).
                ensure!(
                    !(v1 && m.kind == MessageType::REFCOUNT),
                    Format,
                    "object header at {:#x}: a version 1 header cannot hold a reference count message",
                    addr.0
                );
                if m.flags.has(MessageFlags::FAIL_IF_UNKNOWN_ALWAYS) && !known_message(m.kind) {
                    bail!(
                        Format,
                        "object header at {:#x}: unknown message type {} with the 'fail if unknown' flag",
                        addr.0,
                        m.kind
                    );
                }
                let (chunk, index) = match (u32::try_from(ci), u32::try_from(mi)) {
                    (Ok(c), Ok(i)) => (c, i),
                    _ => bail!(
                        LimitExceeded,
                        "object header at {:#x}: too many messages",
                        addr.0
                    ),
                };
                let decoded = OnceLock::new();
                // A shared message is resolved now: its decoding needs the file.
                if m.flags.has(MessageFlags::SHARED) {
                    let msg = m
                        .decode(sizes)
                        .map_err(|e| e.to_string())
                        .and_then(|msg| match msg {
                            Message::Shared { kind, shared } => {
                                resolve_shared(file, kind, &shared, 0).map_err(|e| e.to_string())
                            }
                            other => Ok(other),
                        })
                        .and_then(|msg| {
                            check_types(&msg)?;
                            Ok(msg)
                        });
                    let _ = decoded.set(Box::new(msg));
                }
                entries.push(Entry {
                    kind: m.kind,
                    chunk,
                    index,
                    creation_order: m.creation_order,
                    decoded,
                });
            }
        }
        Ok(Object {
            addr,
            header,
            sizes,
            entries,
        })
    }

    fn raw<'a>(&'a self, e: &Entry) -> Option<&'a RawMessage> {
        self.header
            .chunks
            .get(e.chunk as usize)?
            .messages
            .get(e.index as usize)
    }

    fn decoded<'a>(&'a self, e: &'a Entry) -> &'a std::result::Result<Message, String> {
        e.decoded.get_or_init(|| {
            Box::new(match self.raw(e) {
                Some(m) => decode_unshared(m, self.sizes),
                None => Err("the message is not in its header".into()),
            })
        })
    }

    /// Every message but NIL and continuation ones, in order, decoded (shared ones
    /// resolved); a message that failed to decode gives its error.
    pub fn messages(
        &self,
    ) -> impl Iterator<Item = (MessageType, &std::result::Result<Message, String>)> {
        self.entries.iter().map(|e| (e.kind, self.decoded(e)))
    }

    /// The number of messages of type `kind` (none is decoded).
    pub fn count(&self, kind: MessageType) -> usize {
        self.entries.iter().filter(|e| e.kind == kind).count()
    }

    /// The first message of type `kind`: `Ok(None)` when there is none, an error when it
    /// did not decode.
    pub fn message(&self, kind: MessageType) -> Result<Option<&Message>> {
        let Some(e) = self.entries.iter().find(|e| e.kind == kind) else {
            return Ok(None);
        };
        match self.decoded(e) {
            Ok(m) => Ok(Some(m)),
            Err(e) => Err(Error::new(
                ErrorKind::Format,
                format!("{kind} message: {e}"),
            )),
        }
    }

    /// Every decoded message of type `kind` (errors included).
    pub fn messages_of(
        &self,
        kind: MessageType,
    ) -> impl Iterator<Item = &std::result::Result<Message, String>> {
        self.entries
            .iter()
            .filter(move |e| e.kind == kind)
            .map(|e| self.decoded(e))
    }

    /// The attribute messages stored in the header, in order, each with its creation order
    /// (when the header tracks it) and a look at its name that decodes nothing else: the
    /// name when it can be read without decoding the message, `None` for a shared message
    /// or one whose start does not parse (decode it to know).
    pub(crate) fn attribute_entries(
        &self,
    ) -> impl Iterator<Item = (AttributeEntry<'_>, Option<u16>)> {
        self.entries
            .iter()
            .filter(|e| e.kind == MessageType::ATTRIBUTE)
            .map(move |e| (AttributeEntry { obj: self, e }, e.creation_order))
    }

    /// Whether there is a message of this type (decoded or not).
    pub fn has(&self, kind: MessageType) -> bool {
        self.entries.iter().any(|e| e.kind == kind)
    }

    /// What the object is.
    pub fn kind(&self) -> ObjectKind {
        if self.has(MessageType::LAYOUT) {
            ObjectKind::Dataset
        } else if self.has(MessageType::SYMBOL_TABLE)
            || self.has(MessageType::LINK_INFO)
            || self.has(MessageType::LINK)
            || self.has(MessageType::GROUP_INFO)
        {
            ObjectKind::Group
        } else if self.has(MessageType::DATATYPE) && !self.has(MessageType::DATASPACE) {
            ObjectKind::Datatype
        } else if self.header.version() == 2 && !self.has(MessageType::DATATYPE) {
            // An empty new-style group may hold nothing but NIL messages.
            ObjectKind::Group
        } else {
            ObjectKind::Unknown
        }
    }
}

/// One attribute message of an [`Object`], decoded when asked.
pub(crate) struct AttributeEntry<'a> {
    obj: &'a Object,
    e: &'a Entry,
}

impl<'a> AttributeEntry<'a> {
    /// The attribute's name, read from the message's start alone (nothing else decoded);
    /// `None` when the message is shared or its start does not parse.
    pub(crate) fn name(&self) -> Option<&'a [u8]> {
        match self.e.decoded.get().map(|d| &**d) {
            Some(Ok(Message::Attribute(a))) => Some(&a.name),
            Some(_) => None,
            None => {
                let m = self.obj.raw(self.e)?;
                if m.flags.has(MessageFlags::SHARED) {
                    return None;
                }
                h5_format::message::attribute::Attribute::peek_name(&m.data)
            }
        }
    }

    /// The message, decoded (kept for the next use).
    pub(crate) fn decoded(&self) -> &'a std::result::Result<Message, String> {
        self.obj.decoded(self.e)
    }
}

/// Resolve a shared message of type `kind`: in a committed object's header, or in the shared
/// object header message heap.
pub fn resolve_shared(
    file: &File,
    kind: MessageType,
    shared: &SharedMessage,
    depth: usize,
) -> Result<Message> {
    let (flags, offset, bytes) = shared_bytes(file, kind, shared, depth)?;
    match Message::parse_bytes(kind, flags, &bytes, offset, file.sizes())? {
        Message::Shared { kind, shared } => resolve_shared(file, kind, &shared, depth + 1),
        m => Ok(m),
    }
}

/// The flags, absolute offset and body of the message a shared message of type `kind` points
/// at (which may itself be shared); a message in the shared message heap has offset 0.
pub fn shared_bytes(
    file: &File,
    kind: MessageType,
    shared: &SharedMessage,
    depth: usize,
) -> Result<(MessageFlags, u64, Vec<u8>)> {
    ensure!(
        depth < MAX_SHARED_DEPTH,
        LimitExceeded,
        "shared {kind} messages nest more than {MAX_SHARED_DEPTH} deep"
    );
    Ok(match shared.location {
        SharedLocation::Committed(addr) => {
            let h = read_header(file.raw(), addr)?;
            let m = h.messages().find(|m| m.kind == kind).ok_or_else(|| {
                Error::new(
                    ErrorKind::Format,
                    format!(
                        "shared {kind} message: the object at {:#x} has none",
                        addr.0
                    ),
                )
            })?;
            (m.flags, m.offset, m.data.clone())
        }
        SharedLocation::Heap(id) => {
            let heap = sohm_heap(file, kind)?;
            (MessageFlags(0), 0, file.fractal_heap_object(heap, &id)?)
        }
    })
}

/// The fractal heap of the shared message index that holds messages of type `kind`.
fn sohm_heap(file: &File, kind: MessageType) -> Result<Addr> {
    let table = file
        .inner
        .extension
        .as_ref()
        .and_then(|e| e.shared_table.as_ref())
        .ok_or_else(|| {
            Error::new(
                ErrorKind::Format,
                "a message in the shared message heap, but the file has no shared message table",
            )
        })?;
    let raw = file.raw();
    let o = raw.sizes().offset as u64;
    let entry = 16 + 2 * o;
    let n = u64::from(table.num_indices);
    let bytes = raw.read(table.table_address, 4 + n * entry + 4)?;
    let mut c = Cursor::new(&bytes, table.table_address.0, raw.sizes()).in_structure("SOHM table");
    c.expect_signature(b"SMTB")?;
    for _ in 0..n {
        let _version = c.read_u8()?;
        let _index_type = c.read_u8()?;
        let flags = c.read_u16()?;
        let _min_size = c.read_u32()?;
        let _list_max = c.read_u16()?;
        let _btree_min = c.read_u16()?;
        let _count = c.read_u16()?;
        let _index = c.read_addr()?;
        let heap = c.read_addr()?;
        if kind.0 < 16 && flags & (1 << kind.0) != 0 {
            return Ok(heap);
        }
    }
    bail!(Format, "no shared message index holds {kind} messages")
}
