//! The Attribute Info message (0x0015): where an object's densely stored attributes are.

use super::{read_version, scoped};
use crate::cursor::{Cursor, Writer};
use crate::{Addr, ErrorKind, Result};

/// The Attribute Info message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AttributeInfo {
    /// "Maximum Creation Index", present when flag bit 0 (creation order tracked) is set.
    pub max_creation_index: Option<u16>,
    /// "Fractal Heap Address".
    pub fractal_heap_address: Addr,
    /// "Attribute Name v2 B-tree Address".
    pub name_btree_address: Addr,
    /// "Attribute Creation Order v2 B-tree Address", present when flag bit 1 (creation order
    /// indexed) is set.
    pub creation_order_btree_address: Option<Addr>,
}

impl AttributeInfo {
    /// Parse the message (version 0).
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "attribute info message", |c| {
            read_version(c, 0, 0)?;
            let at = c.offset();
            let flags = c.read_u8()?;
            if flags & !3 != 0 {
                return Err(c.error_at(ErrorKind::InvalidValue, at, format!("flags {flags:#x}")));
            }
            let max_creation_index = if flags & 1 != 0 {
                Some(c.read_u16()?)
            } else {
                None
            };
            let fractal_heap_address = c.read_addr()?;
            let name_btree_address = c.read_addr()?;
            let creation_order_btree_address = if flags & 2 != 0 {
                Some(c.read_addr()?)
            } else {
                None
            };
            Ok(AttributeInfo {
                max_creation_index,
                fractal_heap_address,
                name_btree_address,
                creation_order_btree_address,
            })
        })
    }

    /// Encode the message.
    pub fn encode(&self, w: &mut Writer) {
        w.put_u8(0);
        let flags = u8::from(self.max_creation_index.is_some())
            | (u8::from(self.creation_order_btree_address.is_some()) << 1);
        w.put_u8(flags);
        if let Some(i) = self.max_creation_index {
            w.put_u16(i);
        }
        w.put_addr(self.fractal_heap_address);
        w.put_addr(self.name_btree_address);
        if let Some(a) = self.creation_order_btree_address {
            w.put_addr(a);
        }
    }
}
