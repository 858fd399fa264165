//! The Symbol Table message (0x0011): a group stored as a v1 B-tree and a local heap.

use super::scoped;
use crate::cursor::{Cursor, Writer};
use crate::{Addr, Result};

/// The Symbol Table message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SymbolTableMessage {
    /// "v1 B-tree Address".
    pub btree_address: Addr,
    /// "Local Heap Address".
    pub heap_address: Addr,
}

impl SymbolTableMessage {
    /// Parse the message.
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "symbol table message", |c| {
            Ok(SymbolTableMessage {
                btree_address: c.read_addr()?,
                heap_address: c.read_addr()?,
            })
        })
    }

    /// Encode the message.
    pub fn encode(&self, w: &mut Writer) {
        w.put_addr(self.btree_address);
        w.put_addr(self.heap_address);
    }
}
