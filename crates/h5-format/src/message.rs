//! Object header messages (format spec IV.A.2): the open set of message types, and a
//! [`Message`] enum with one variant per message the specification defines.

use crate::cursor::{Cursor, Writer};
use crate::{ErrorKind, Result, Sizes};
use std::fmt;

pub mod attribute;
pub mod attribute_info;
pub mod bogus;
pub mod btree_k;
pub mod comment;
pub mod continuation;
pub mod dataspace;
pub mod datatype;
pub mod driver_info;
pub mod external_files;
pub mod fill_value;
pub mod filter_pipeline;
pub mod fs_info;
pub mod group_info;
pub mod layout;
pub mod link;
pub mod link_info;
pub mod mtime;
pub mod refcount;
pub mod shared;
pub mod shared_table;
pub mod symbol_table;

#[cfg(test)]
mod tests;

/// Run `f` with the cursor's structure name set to `name`, restoring it afterwards.
pub(crate) fn scoped<'a, T>(
    c: &mut Cursor<'a>,
    name: &'static str,
    f: impl FnOnce(&mut Cursor<'a>) -> Result<T>,
) -> Result<T> {
    let prev = c.structure();
    c.set_structure(name);
    let r = f(c);
    c.set_structure(prev);
    r
}

/// Read a one-byte version and check it is in `lo..=hi`.
pub(crate) fn read_version(c: &mut Cursor, lo: u8, hi: u8) -> Result<u8> {
    let at = c.offset();
    let v = c.read_u8()?;
    if v < lo || v > hi {
        return Err(c.error_at(
            ErrorKind::UnsupportedVersion,
            at,
            format!("version {v} (known: {lo} to {hi})"),
        ));
    }
    Ok(v)
}

/// A header message type (the "Header Message Type" field). Unknown values are kept.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MessageType(pub u16);

impl MessageType {
    /// 0x0000: NIL (free space in the header).
    pub const NIL: MessageType = MessageType(0x00);
    /// 0x0001: Dataspace.
    pub const DATASPACE: MessageType = MessageType(0x01);
    /// 0x0002: Link Info.
    pub const LINK_INFO: MessageType = MessageType(0x02);
    /// 0x0003: Datatype.
    pub const DATATYPE: MessageType = MessageType(0x03);
    /// 0x0004: Fill Value (old).
    pub const FILL_VALUE_OLD: MessageType = MessageType(0x04);
    /// 0x0005: Fill Value.
    pub const FILL_VALUE: MessageType = MessageType(0x05);
    /// 0x0006: Link.
    pub const LINK: MessageType = MessageType(0x06);
    /// 0x0007: External Data Files.
    pub const EXTERNAL_FILES: MessageType = MessageType(0x07);
    /// 0x0008: Data Layout.
    pub const LAYOUT: MessageType = MessageType(0x08);
    /// 0x0009: Bogus (testing only).
    pub const BOGUS: MessageType = MessageType(0x09);
    /// 0x000A: Group Info.
    pub const GROUP_INFO: MessageType = MessageType(0x0a);
    /// 0x000B: Filter Pipeline.
    pub const FILTER_PIPELINE: MessageType = MessageType(0x0b);
    /// 0x000C: Attribute.
    pub const ATTRIBUTE: MessageType = MessageType(0x0c);
    /// 0x000D: Object Comment.
    pub const COMMENT: MessageType = MessageType(0x0d);
    /// 0x000E: Object Modification Time (old).
    pub const MTIME_OLD: MessageType = MessageType(0x0e);
    /// 0x000F: Shared Message Table.
    pub const SHARED_TABLE: MessageType = MessageType(0x0f);
    /// 0x0010: Object Header Continuation.
    pub const CONTINUATION: MessageType = MessageType(0x10);
    /// 0x0011: Symbol Table.
    pub const SYMBOL_TABLE: MessageType = MessageType(0x11);
    /// 0x0012: Object Modification Time.
    pub const MTIME: MessageType = MessageType(0x12);
    /// 0x0013: B-tree 'K' Values.
    pub const BTREE_K: MessageType = MessageType(0x13);
    /// 0x0014: Driver Info.
    pub const DRIVER_INFO: MessageType = MessageType(0x14);
    /// 0x0015: Attribute Info.
    pub const ATTRIBUTE_INFO: MessageType = MessageType(0x15);
    /// 0x0016: Object Reference Count.
    pub const REFCOUNT: MessageType = MessageType(0x16);
    /// 0x0017: File Space Info.
    pub const FILE_SPACE_INFO: MessageType = MessageType(0x17);

    /// The specification's name of the message type, if it is a known one.
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0x00 => "NIL",
            0x01 => "Dataspace",
            0x02 => "Link Info",
            0x03 => "Datatype",
            0x04 => "Fill Value (old)",
            0x05 => "Fill Value",
            0x06 => "Link",
            0x07 => "External Data Files",
            0x08 => "Data Layout",
            0x09 => "Bogus",
            0x0a => "Group Info",
            0x0b => "Filter Pipeline",
            0x0c => "Attribute",
            0x0d => "Object Comment",
            0x0e => "Object Modification Time (old)",
            0x0f => "Shared Message Table",
            0x10 => "Object Header Continuation",
            0x11 => "Symbol Table",
            0x12 => "Object Modification Time",
            0x13 => "B-tree 'K' Values",
            0x14 => "Driver Info",
            0x15 => "Attribute Info",
            0x16 => "Object Reference Count",
            0x17 => "File Space Info",
            _ => return None,
        })
    }

    /// Whether this implementation decodes the message type into a typed variant.
    pub fn is_decoded(self) -> bool {
        self.0 <= 0x17
    }
}

impl fmt::Debug for MessageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "MessageType({:#06x} {n})", self.0),
            None => write!(f, "MessageType({:#06x})", self.0),
        }
    }
}

impl fmt::Display for MessageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "unknown message {:#06x}", self.0),
        }
    }
}

/// The "Header Message Flags" byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MessageFlags(pub u8);

impl MessageFlags {
    /// Bit 0: the message data is constant.
    pub const CONSTANT: u8 = 0x01;
    /// Bit 1: the message is shared and stored elsewhere (the body is a shared message).
    pub const SHARED: u8 = 0x02;
    /// Bit 2: the message must not be shared.
    pub const DONT_SHARE: u8 = 0x04;
    /// Bit 3: fail to open for writing if the type is unknown.
    pub const FAIL_IF_UNKNOWN_WRITE: u8 = 0x08;
    /// Bit 4: set bit 5 if the type is unknown and the object is modified.
    pub const MARK_IF_UNKNOWN: u8 = 0x10;
    /// Bit 5: the object was modified by software that did not know the type.
    pub const WAS_UNKNOWN: u8 = 0x20;
    /// Bit 6: the message is shareable.
    pub const SHAREABLE: u8 = 0x40;
    /// Bit 7: always fail to open if the type is unknown.
    pub const FAIL_IF_UNKNOWN_ALWAYS: u8 = 0x80;

    /// Whether `bit` (one of the constants) is set.
    pub const fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }
}

use self::attribute::Attribute;
use self::attribute_info::AttributeInfo;
use self::bogus::Bogus;
use self::btree_k::BtreeK;
use self::comment::Comment;
use self::continuation::Continuation;
use self::dataspace::Dataspace;
use self::datatype::DatatypeMessage;
use self::driver_info::DriverInfoMessage;
use self::external_files::ExternalFiles;
use self::fill_value::{FillValue, FillValueOld};
use self::filter_pipeline::FilterPipeline;
use self::fs_info::FileSpaceInfo;
use self::group_info::GroupInfo;
use self::layout::Layout;
use self::link::Link;
use self::link_info::LinkInfo;
use self::mtime::{Mtime, MtimeOld};
use self::refcount::RefCount;
use self::shared::SharedMessage;
use self::shared_table::SharedMessageTable;
use self::symbol_table::SymbolTableMessage;

/// A decoded header message.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// NIL: `n` bytes of free space.
    Nil(usize),
    /// Dataspace.
    Dataspace(Dataspace),
    /// Link Info.
    LinkInfo(LinkInfo),
    /// Datatype.
    Datatype(DatatypeMessage),
    /// Fill Value (old).
    FillValueOld(FillValueOld),
    /// Fill Value.
    FillValue(FillValue),
    /// Link.
    Link(Link),
    /// External Data Files.
    ExternalFiles(ExternalFiles),
    /// Data Layout.
    Layout(Layout),
    /// Bogus.
    Bogus(Bogus),
    /// Group Info.
    GroupInfo(GroupInfo),
    /// Filter Pipeline.
    FilterPipeline(FilterPipeline),
    /// Attribute.
    Attribute(Attribute),
    /// Object Comment.
    Comment(Comment),
    /// Object Modification Time (old).
    MtimeOld(MtimeOld),
    /// Shared Message Table.
    SharedTable(SharedMessageTable),
    /// Object Header Continuation.
    Continuation(Continuation),
    /// Symbol Table.
    SymbolTable(SymbolTableMessage),
    /// Object Modification Time.
    Mtime(Mtime),
    /// B-tree 'K' Values.
    BtreeK(BtreeK),
    /// Driver Info.
    DriverInfo(DriverInfoMessage),
    /// Attribute Info.
    AttributeInfo(AttributeInfo),
    /// Object Reference Count.
    RefCount(RefCount),
    /// File Space Info.
    FileSpaceInfo(FileSpaceInfo),
    /// A message of type `kind` stored elsewhere (header flag bit 1): where to find it.
    Shared {
        /// The type of the shared message.
        kind: MessageType,
        /// Where it is stored.
        shared: SharedMessage,
    },
    /// A message type this implementation does not decode, with its body as stored.
    Unknown {
        /// The message type.
        kind: MessageType,
        /// The message body.
        raw: Vec<u8>,
    },
}

impl Message {
    /// Decode a message body of type `kind` with header flags `flags`. The cursor spans
    /// exactly the body; bytes after the message's own fields (padding) are ignored.
    pub fn parse(kind: MessageType, flags: MessageFlags, c: &mut Cursor) -> Result<Message> {
        if flags.has(MessageFlags::SHARED) && kind != MessageType::NIL {
            let shared = SharedMessage::parse(c)?;
            return Ok(Message::Shared { kind, shared });
        }
        Ok(match kind {
            MessageType::NIL => {
                let n = c.remaining();
                c.skip(n)?;
                Message::Nil(n)
            }
            MessageType::DATASPACE => Message::Dataspace(Dataspace::parse(c)?),
            MessageType::LINK_INFO => Message::LinkInfo(LinkInfo::parse(c)?),
            MessageType::DATATYPE => Message::Datatype(DatatypeMessage::parse(c)?),
            MessageType::FILL_VALUE_OLD => Message::FillValueOld(FillValueOld::parse(c)?),
            MessageType::FILL_VALUE => Message::FillValue(FillValue::parse(c)?),
            MessageType::LINK => Message::Link(Link::parse(c)?),
            MessageType::EXTERNAL_FILES => Message::ExternalFiles(ExternalFiles::parse(c)?),
            MessageType::LAYOUT => Message::Layout(Layout::parse(c)?),
            MessageType::BOGUS => Message::Bogus(Bogus::parse(c)?),
            MessageType::GROUP_INFO => Message::GroupInfo(GroupInfo::parse(c)?),
            MessageType::FILTER_PIPELINE => Message::FilterPipeline(FilterPipeline::parse(c)?),
            MessageType::ATTRIBUTE => Message::Attribute(Attribute::parse(c)?),
            MessageType::COMMENT => Message::Comment(Comment::parse(c)?),
            MessageType::MTIME_OLD => Message::MtimeOld(MtimeOld::parse(c)?),
            MessageType::SHARED_TABLE => Message::SharedTable(SharedMessageTable::parse(c)?),
            MessageType::CONTINUATION => Message::Continuation(Continuation::parse(c)?),
            MessageType::SYMBOL_TABLE => Message::SymbolTable(SymbolTableMessage::parse(c)?),
            MessageType::MTIME => Message::Mtime(Mtime::parse(c)?),
            MessageType::BTREE_K => Message::BtreeK(BtreeK::parse(c)?),
            MessageType::DRIVER_INFO => Message::DriverInfo(DriverInfoMessage::parse(c)?),
            MessageType::ATTRIBUTE_INFO => Message::AttributeInfo(AttributeInfo::parse(c)?),
            MessageType::REFCOUNT => Message::RefCount(RefCount::parse(c)?),
            MessageType::FILE_SPACE_INFO => Message::FileSpaceInfo(FileSpaceInfo::parse(c)?),
            other => {
                if flags.has(MessageFlags::FAIL_IF_UNKNOWN_ALWAYS) {
                    return Err(c.error(
                        ErrorKind::Unsupported,
                        format!("{other} is marked \"fail if unknown\""),
                    ));
                }
                let raw = c.rest().to_vec();
                c.skip(raw.len())?;
                Message::Unknown { kind: other, raw }
            }
        })
    }

    /// Decode a message body held in `data`, which starts at absolute offset `offset`.
    pub fn parse_bytes(
        kind: MessageType,
        flags: MessageFlags,
        data: &[u8],
        offset: u64,
        sizes: Sizes,
    ) -> Result<Message> {
        let mut c = Cursor::new(data, offset, sizes).in_structure("header message");
        Message::parse(kind, flags, &mut c)
    }

    /// The message type.
    pub fn kind(&self) -> MessageType {
        match self {
            Message::Nil(_) => MessageType::NIL,
            Message::Dataspace(_) => MessageType::DATASPACE,
            Message::LinkInfo(_) => MessageType::LINK_INFO,
            Message::Datatype(_) => MessageType::DATATYPE,
            Message::FillValueOld(_) => MessageType::FILL_VALUE_OLD,
            Message::FillValue(_) => MessageType::FILL_VALUE,
            Message::Link(_) => MessageType::LINK,
            Message::ExternalFiles(_) => MessageType::EXTERNAL_FILES,
            Message::Layout(_) => MessageType::LAYOUT,
            Message::Bogus(_) => MessageType::BOGUS,
            Message::GroupInfo(_) => MessageType::GROUP_INFO,
            Message::FilterPipeline(_) => MessageType::FILTER_PIPELINE,
            Message::Attribute(_) => MessageType::ATTRIBUTE,
            Message::Comment(_) => MessageType::COMMENT,
            Message::MtimeOld(_) => MessageType::MTIME_OLD,
            Message::SharedTable(_) => MessageType::SHARED_TABLE,
            Message::Continuation(_) => MessageType::CONTINUATION,
            Message::SymbolTable(_) => MessageType::SYMBOL_TABLE,
            Message::Mtime(_) => MessageType::MTIME,
            Message::BtreeK(_) => MessageType::BTREE_K,
            Message::DriverInfo(_) => MessageType::DRIVER_INFO,
            Message::AttributeInfo(_) => MessageType::ATTRIBUTE_INFO,
            Message::RefCount(_) => MessageType::REFCOUNT,
            Message::FileSpaceInfo(_) => MessageType::FILE_SPACE_INFO,
            Message::Shared { kind, .. } | Message::Unknown { kind, .. } => *kind,
        }
    }

    /// Whether the body is a shared message (header flag bit 1 must be set when stored).
    pub fn is_shared(&self) -> bool {
        matches!(self, Message::Shared { .. })
    }

    /// Encode the message body (without the message header).
    pub fn encode(&self, w: &mut Writer) {
        match self {
            Message::Nil(n) => w.put_zeros(*n),
            Message::Dataspace(m) => m.encode(w),
            Message::LinkInfo(m) => m.encode(w),
            Message::Datatype(m) => m.encode(w),
            Message::FillValueOld(m) => m.encode(w),
            Message::FillValue(m) => m.encode(w),
            Message::Link(m) => m.encode(w),
            Message::ExternalFiles(m) => m.encode(w),
            Message::Layout(m) => m.encode(w),
            Message::Bogus(m) => m.encode(w),
            Message::GroupInfo(m) => m.encode(w),
            Message::FilterPipeline(m) => m.encode(w),
            Message::Attribute(m) => m.encode(w),
            Message::Comment(m) => m.encode(w),
            Message::MtimeOld(m) => m.encode(w),
            Message::SharedTable(m) => m.encode(w),
            Message::Continuation(m) => m.encode(w),
            Message::SymbolTable(m) => m.encode(w),
            Message::Mtime(m) => m.encode(w),
            Message::BtreeK(m) => m.encode(w),
            Message::DriverInfo(m) => m.encode(w),
            Message::AttributeInfo(m) => m.encode(w),
            Message::RefCount(m) => m.encode(w),
            Message::FileSpaceInfo(m) => m.encode(w),
            Message::Shared { shared, .. } => shared.encode(w),
            Message::Unknown { raw, .. } => w.put_bytes(raw),
        }
    }

    /// The encoded body as a new buffer.
    pub fn to_bytes(&self, sizes: Sizes) -> Vec<u8> {
        let mut w = Writer::new(sizes);
        self.encode(&mut w);
        w.into_vec()
    }
}
