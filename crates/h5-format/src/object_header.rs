//! Object headers (format spec IV.A.1): the version 1 and version 2 prefixes, header chunks
//! and continuation chunks, split into raw messages with their type, flags and creation
//! order. Following continuations goes through a caller-supplied function that returns the
//! bytes of a chunk, so this stays free of I/O.

use crate::cursor::{Cursor, Writer};
use crate::message::continuation::Continuation;
use crate::message::{scoped, Message, MessageFlags, MessageType};
use crate::{limits, Addr, Error, ErrorKind, Result, Sizes};

/// Signature of a version 2 object header.
pub const OHDR: [u8; 4] = *b"OHDR";
/// Signature of a version 2 continuation chunk.
pub const OCHK: [u8; 4] = *b"OCHK";

/// Version 2 header "Flags" bit 2: attribute creation order is tracked (messages carry a
/// creation order field).
pub const FLAG_ATTR_CREATION_ORDER_TRACKED: u8 = 0x04;
/// Version 2 header "Flags" bit 3: attribute creation order is indexed.
pub const FLAG_ATTR_CREATION_ORDER_INDEXED: u8 = 0x08;
/// Version 2 header "Flags" bit 4: non-default attribute storage phase change values stored.
pub const FLAG_ATTR_PHASE_CHANGE_STORED: u8 = 0x10;
/// Version 2 header "Flags" bit 5: access, modification, change and birth times stored.
pub const FLAG_TIMES_STORED: u8 = 0x20;

const STRUCT: &str = "object header";

/// One message as stored in a header chunk.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RawMessage {
    /// "Header Message Type".
    pub kind: MessageType,
    /// "Header Message Flags".
    pub flags: MessageFlags,
    /// Version 2 headers tracking creation order: the message's "Creation Order".
    pub creation_order: Option<u16>,
    /// The message body ("Header Message Data"), padding included.
    pub data: Vec<u8>,
    /// Absolute file offset of the body.
    pub offset: u64,
}

impl RawMessage {
    /// A raw message holding `msg`'s encoding. `v1` pads the body to a multiple of 8 bytes,
    /// as version 1 headers need. The offset is set when the header is encoded and parsed.
    pub fn from_message(msg: &Message, flags: MessageFlags, sizes: Sizes, v1: bool) -> Self {
        let mut data = msg.to_bytes(sizes);
        if v1 {
            data.resize(data.len().div_ceil(8) * 8, 0);
        }
        let mut flags = flags;
        if msg.is_shared() {
            flags.0 |= MessageFlags::SHARED;
        }
        RawMessage {
            kind: msg.kind(),
            flags,
            creation_order: None,
            data,
            offset: 0,
        }
    }

    /// A NIL message of `n` zero bytes.
    pub fn nil(n: usize) -> Self {
        RawMessage {
            kind: MessageType::NIL,
            flags: MessageFlags(0),
            creation_order: None,
            data: vec![0; n],
            offset: 0,
        }
    }

    /// Decode the body.
    pub fn decode(&self, sizes: Sizes) -> Result<Message> {
        Message::parse_bytes(self.kind, self.flags, &self.data, self.offset, sizes)
    }
}

/// The access, modification, change and birth times of a version 2 header (seconds since
/// the UNIX epoch).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Times {
    /// "Access time".
    pub access: u32,
    /// "Modification Time".
    pub modification: u32,
    /// "Change Time".
    pub change: u32,
    /// "Birth Time".
    pub birth: u32,
}

/// The header prefix.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Prefix {
    /// Version 1.
    V1 {
        /// "Total Number of Header Messages" as stored (all chunks, NIL included).
        num_messages: u16,
        /// "Object Reference Count".
        refcount: u32,
    },
    /// Version 2.
    V2 {
        /// "Flags" (bits 0-1, the width of the chunk 0 size, are recomputed on encode).
        flags: u8,
        /// The times (flag bit 5).
        times: Option<Times>,
        /// "Maximum # of compact attributes" and "Minimum # of dense attributes" (flag bit 4).
        attr_phase_change: Option<(u16, u16)>,
    },
}

/// One chunk of a header: chunk 0 follows the prefix, others are continuation blocks.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Chunk {
    /// Address of the chunk: the header's address for chunk 0, the continuation
    /// message's offset for others.
    pub address: Addr,
    /// The messages in order, NIL messages included.
    pub messages: Vec<RawMessage>,
    /// Bytes at the end too few for a message header (version 2 "gap"; version 1 trailing
    /// bytes), written as zeros.
    pub gap: usize,
}

/// An object header.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ObjectHeader {
    /// The prefix.
    pub prefix: Prefix,
    /// The chunks, chunk 0 first, then continuation chunks in the order found.
    pub chunks: Vec<Chunk>,
}

impl ObjectHeader {
    /// The header version, 1 or 2.
    pub fn version(&self) -> u8 {
        match self.prefix {
            Prefix::V1 { .. } => 1,
            Prefix::V2 { .. } => 2,
        }
    }

    /// Every message of every chunk, in order.
    pub fn messages(&self) -> impl Iterator<Item = &RawMessage> {
        self.chunks.iter().flat_map(|c| c.messages.iter())
    }

    /// Decode every message except NIL ones.
    pub fn decode_messages(&self, sizes: Sizes) -> Result<Vec<Message>> {
        self.messages()
            .filter(|m| m.kind != MessageType::NIL)
            .map(|m| m.decode(sizes))
            .collect()
    }

    fn creation_order_tracked(&self) -> bool {
        matches!(self.prefix, Prefix::V2 { flags, .. } if flags & FLAG_ATTR_CREATION_ORDER_TRACKED != 0)
    }

    /// Parse an object header. `c` starts at the header and its offset is the header's
    /// *address* (relative to the superblock's base address, like the continuation addresses
    /// inside the header; equal to the file offset when there is no user block). It holds at
    /// least chunk 0. `fetch(address, length)` returns the bytes of a
    /// continuation chunk. Continuations are followed in order, at most
    /// [`limits::MAX_HEADER_CHUNKS`] and never the same address twice.
    pub fn parse(
        c: &mut Cursor,
        mut fetch: impl FnMut(Addr, u64) -> Result<Vec<u8>>,
    ) -> Result<Self> {
        scoped(c, STRUCT, |c| {
            let sizes = c.sizes();
            let header_addr = c.offset();
            let (prefix, chunk0) = Self::parse_prefix_and_chunk0(c)?;
            let mut h = ObjectHeader {
                prefix,
                chunks: Vec::new(),
            };
            let tracked = h.creation_order_tracked();
            let version = h.version();
            let mut pending = Vec::new();
            let mut count = 0usize;
            let first = Self::parse_messages(chunk0, version, tracked, &mut pending, &mut count)?;
            h.chunks.push(Chunk {
                address: Addr(header_addr),
                messages: first.0,
                gap: first.1,
            });
            let mut visited = vec![header_addr];
            let mut next = 0;
            while next < pending.len() {
                let cont: Continuation = pending[next];
                next += 1;
                let Some(addr) = cont.offset.get() else {
                    return Err(Error::new(
                        ErrorKind::BadAddress,
                        STRUCT,
                        header_addr,
                        "continuation to the undefined address",
                    ));
                };
                if visited.contains(&addr) {
                    return Err(Error::new(
                        ErrorKind::InvalidValue,
                        STRUCT,
                        addr,
                        "continuation chunk visited twice (a loop)",
                    ));
                }
                if visited.len() >= limits::MAX_HEADER_CHUNKS {
                    return Err(Error::new(
                        ErrorKind::LimitExceeded,
                        STRUCT,
                        addr,
                        format!("more than {} header chunks", limits::MAX_HEADER_CHUNKS),
                    ));
                }
                if cont.length > limits::MAX_METADATA_BLOCK || cont.length == 0 {
                    return Err(Error::new(
                        ErrorKind::LimitExceeded,
                        STRUCT,
                        addr,
                        format!("continuation chunk length {}", cont.length),
                    ));
                }
                visited.push(addr);
                let bytes = fetch(cont.offset, cont.length)?;
                if bytes.len() as u64 != cont.length {
                    return Err(Error::new(
                        ErrorKind::UnexpectedEof,
                        STRUCT,
                        addr,
                        format!(
                            "continuation chunk of {} bytes, got {}",
                            cont.length,
                            bytes.len()
                        ),
                    ));
                }
                let mut cc = Cursor::new(&bytes, addr, sizes).in_structure(STRUCT);
                let body = if version == 1 {
                    cc.sub(bytes.len())?
                } else {
                    cc.expect_signature(&OCHK)?;
                    let n = cc.remaining().checked_sub(4).ok_or_else(|| {
                        cc.error(
                            ErrorKind::UnexpectedEof,
                            "continuation chunk too short for its checksum",
                        )
                    })?;
                    let body = cc.sub(n)?;
                    cc.verify_checksum(0)?;
                    body
                };
                let (messages, gap) =
                    Self::parse_messages(body, version, tracked, &mut pending, &mut count)?;
                h.chunks.push(Chunk {
                    address: cont.offset,
                    messages,
                    gap,
                });
            }
            Ok(h)
        })
    }

    /// Parse the prefix; return it and a cursor over chunk 0's messages (checksum verified).
    fn parse_prefix_and_chunk0<'a>(c: &mut Cursor<'a>) -> Result<(Prefix, Cursor<'a>)> {
        let start = c.pos();
        if c.rest().starts_with(&OHDR) {
            c.skip(4)?;
            let at = c.offset();
            let version = c.read_u8()?;
            if version != 2 {
                return Err(c.error_at(
                    ErrorKind::UnsupportedVersion,
                    at,
                    format!("version {version}"),
                ));
            }
            let flags = c.read_u8()?;
            if flags & 0xc0 != 0 {
                return Err(c.error_at(
                    ErrorKind::InvalidValue,
                    at + 1,
                    format!("flags {flags:#x}"),
                ));
            }
            let times = if flags & FLAG_TIMES_STORED != 0 {
                Some(Times {
                    access: c.read_u32()?,
                    modification: c.read_u32()?,
                    change: c.read_u32()?,
                    birth: c.read_u32()?,
                })
            } else {
                None
            };
            let attr_phase_change = if flags & FLAG_ATTR_PHASE_CHANGE_STORED != 0 {
                Some((c.read_u16()?, c.read_u16()?))
            } else {
                None
            };
            let size_at = c.offset();
            let size = c.read_uint(1 << (flags & 3))?;
            if size > limits::MAX_METADATA_BLOCK || size > c.remaining() as u64 {
                return Err(c.error_at(
                    ErrorKind::UnexpectedEof,
                    size_at,
                    format!(
                        "chunk 0 size {size} exceeds the {} bytes available",
                        c.remaining()
                    ),
                ));
            }
            let body = c.sub(size as usize)?;
            c.verify_checksum(start)?;
            Ok((
                Prefix::V2 {
                    flags,
                    times,
                    attr_phase_change,
                },
                body,
            ))
        } else {
            let at = c.offset();
            let version = c.read_u8()?;
            if version != 1 {
                return Err(c.error_at(
                    ErrorKind::UnsupportedVersion,
                    at,
                    format!("object header version {version} (and no OHDR signature)"),
                ));
            }
            c.skip(1)?;
            let num_messages = c.read_u16()?;
            let refcount = c.read_u32()?;
            let size_at = c.offset();
            let size = c.read_u32()? as u64;
            c.skip(4)?;
            if size > limits::MAX_METADATA_BLOCK || size > c.remaining() as u64 {
                return Err(c.error_at(
                    ErrorKind::UnexpectedEof,
                    size_at,
                    format!(
                        "header size {size} exceeds the {} bytes available",
                        c.remaining()
                    ),
                ));
            }
            let body = c.sub(size as usize)?;
            Ok((
                Prefix::V1 {
                    num_messages,
                    refcount,
                },
                body,
            ))
        }
    }

    fn parse_messages(
        mut c: Cursor,
        version: u8,
        tracked: bool,
        pending: &mut Vec<Continuation>,
        count: &mut usize,
    ) -> Result<(Vec<RawMessage>, usize)> {
        let header_len = if version == 1 {
            8
        } else if tracked {
            6
        } else {
            4
        };
        let mut messages = Vec::with_capacity(
            count_messages(c.rest(), header_len).min(limits::MAX_HEADER_MESSAGES),
        );
        while c.remaining() >= header_len {
            let at = c.offset();
            let (kind, size, flags) = if version == 1 {
                let kind = c.read_u16()?;
                let size = c.read_u16()?;
                let flags = c.read_u8()?;
                c.skip(3)?;
                (kind, size, flags)
            } else {
                let kind = u16::from(c.read_u8()?);
                let size = c.read_u16()?;
                let flags = c.read_u8()?;
                (kind, size, flags)
            };
            let creation_order = if version == 2 && tracked {
                Some(c.read_u16()?)
            } else {
                None
            };
            *count += 1;
            if *count > limits::MAX_HEADER_MESSAGES {
                return Err(c.error_at(
                    ErrorKind::LimitExceeded,
                    at,
                    format!("more than {} header messages", limits::MAX_HEADER_MESSAGES),
                ));
            }
            let offset = c.offset();
            if size as usize > c.remaining() {
                return Err(c.error_at(
                    ErrorKind::UnexpectedEof,
                    at,
                    format!(
                        "message of {size} bytes, {} left in the chunk",
                        c.remaining()
                    ),
                ));
            }
            let data = c.read_bytes(size as usize)?;
            let kind = MessageType(kind);
            let flags = MessageFlags(flags);
            if kind == MessageType::CONTINUATION {
                let mut mc = Cursor::new(data, offset, c.sizes()).in_structure(STRUCT);
                pending.push(Continuation::parse(&mut mc)?);
            }
            messages.push(RawMessage {
                kind,
                flags,
                creation_order,
                data: data.to_vec(),
                offset,
            });
        }
        let gap = c.remaining();
        Ok((messages, gap))
    }

    fn chunk_body_len(&self, chunk: &Chunk) -> usize {
        let header_len = match self.prefix {
            Prefix::V1 { .. } => 8,
            Prefix::V2 { .. } if self.creation_order_tracked() => 6,
            Prefix::V2 { .. } => 4,
        };
        chunk
            .messages
            .iter()
            .map(|m| header_len + m.data.len())
            .sum::<usize>()
            + chunk.gap
    }

    /// The encoded size of chunk `index` in bytes: for chunk 0 the prefix included, for
    /// the others what the continuation message's "Length" must say.
    pub fn chunk_size(&self, index: usize) -> usize {
        let Some(chunk) = self.chunks.get(index) else {
            return 0;
        };
        let body = self.chunk_body_len(chunk);
        match &self.prefix {
            Prefix::V1 { .. } if index == 0 => 16 + body,
            Prefix::V1 { .. } => body,
            Prefix::V2 {
                flags,
                times,
                attr_phase_change,
            } if index == 0 => {
                6 + times.map_or(0, |_| 16)
                    + attr_phase_change.map_or(0, |_| 4)
                    + chunk0_width(*flags, body as u64)
                    + body
                    + 4
            }
            Prefix::V2 { .. } => 4 + body + 4,
        }
    }

    /// Encode chunk `index` (chunk 0 with the prefix). Message bodies longer than 65535
    /// bytes cannot be stored and are an error.
    pub fn encode_chunk(&self, index: usize, w: &mut Writer) -> Result<()> {
        let chunk = self.chunks.get(index).ok_or_else(|| {
            Error::without_offset(ErrorKind::InvalidValue, STRUCT, format!("no chunk {index}"))
        })?;
        let mut out = Writer::new(w.sizes());
        let body_len = self.chunk_body_len(chunk);
        match &self.prefix {
            Prefix::V1 {
                num_messages,
                refcount,
            } => {
                if index == 0 {
                    let total: usize = self.chunks.iter().map(|c| c.messages.len()).sum();
                    let n = if total > u16::MAX as usize {
                        *num_messages
                    } else {
                        total as u16
                    };
                    out.put_u8(1);
                    out.put_u8(0);
                    out.put_u16(n);
                    out.put_u32(*refcount);
                    out.put_u32(body_len as u32);
                    out.put_zeros(4);
                }
            }
            Prefix::V2 {
                flags,
                times,
                attr_phase_change,
            } => {
                if index == 0 {
                    let width = chunk0_width(*flags, body_len as u64);
                    let code = width.trailing_zeros() as u8;
                    let flags = (flags & !(3 | FLAG_TIMES_STORED | FLAG_ATTR_PHASE_CHANGE_STORED))
                        | code
                        | if times.is_some() {
                            FLAG_TIMES_STORED
                        } else {
                            0
                        }
                        | if attr_phase_change.is_some() {
                            FLAG_ATTR_PHASE_CHANGE_STORED
                        } else {
                            0
                        };
                    out.put_bytes(&OHDR);
                    out.put_u8(2);
                    out.put_u8(flags);
                    if let Some(t) = times {
                        out.put_u32(t.access);
                        out.put_u32(t.modification);
                        out.put_u32(t.change);
                        out.put_u32(t.birth);
                    }
                    if let Some((a, b)) = attr_phase_change {
                        out.put_u16(*a);
                        out.put_u16(*b);
                    }
                    out.put_uint(body_len as u64, width);
                } else {
                    out.put_bytes(&OCHK);
                }
            }
        }
        let tracked = self.creation_order_tracked();
        for m in &chunk.messages {
            let size = u16::try_from(m.data.len()).map_err(|_| {
                Error::without_offset(
                    ErrorKind::LimitExceeded,
                    STRUCT,
                    format!("{} body of {} bytes exceeds 65535", m.kind, m.data.len()),
                )
            })?;
            match self.prefix {
                Prefix::V1 { .. } => {
                    out.put_u16(m.kind.0);
                    out.put_u16(size);
                    out.put_u8(m.flags.0);
                    out.put_zeros(3);
                }
                Prefix::V2 { .. } => {
                    let kind = u8::try_from(m.kind.0).map_err(|_| {
                        Error::without_offset(
                            ErrorKind::InvalidValue,
                            STRUCT,
                            format!(
                                "message type {:#x} does not fit a version 2 header",
                                m.kind.0
                            ),
                        )
                    })?;
                    out.put_u8(kind);
                    out.put_u16(size);
                    out.put_u8(m.flags.0);
                    if tracked {
                        out.put_u16(m.creation_order.unwrap_or(0));
                    }
                }
            }
            out.put_bytes(&m.data);
        }
        out.put_zeros(chunk.gap);
        if let Prefix::V2 { .. } = self.prefix {
            out.put_checksum(0);
        }
        w.put_bytes(out.as_slice());
        Ok(())
    }
}

/// Bytes of the version 2 "Size of Chunk #0" field: the width the flags give, or the fewest
/// that hold `n` when that is more.
fn chunk0_width(flags: u8, n: u64) -> usize {
    (1usize << (flags & 3)).max(size_width(n))
}

/// The fewest bytes of a "Size of Chunk #0" field that hold `n`.
fn size_width(n: u64) -> usize {
    if n <= 0xff {
        1
    } else if n <= 0xffff {
        2
    } else if n <= 0xffff_ffff {
        4
    } else {
        8
    }
}

/// How many whole messages the chunk body `b` holds (messages with headers of `header_len`
/// bytes, the size at bytes 2..4 of each version 1 header and 1..3 of each version 2 one):
/// the capacity [`ObjectHeader::parse_messages`] reserves, so the list is allocated once.
fn count_messages(b: &[u8], header_len: usize) -> usize {
    let size_at = if header_len == 8 { 2 } else { 1 };
    let (mut at, mut n) = (0usize, 0usize);
    while let Some(h) = b.get(at..at + header_len) {
        let size = usize::from(u16::from_le_bytes([h[size_at], h[size_at + 1]]));
        at += header_len + size;
        if at > b.len() {
            break;
        }
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests;
