//! The B-tree 'K' Values message (0x0013), in the superblock extension.

use super::{read_version, scoped};
use crate::cursor::{Cursor, Writer};
use crate::Result;

/// B-tree 'K' values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BtreeK {
    /// "Indexed Storage Internal Node K".
    pub indexed_storage_internal_k: u16,
    /// "Group Internal Node K".
    pub group_internal_k: u16,
    /// "Group Leaf Node K".
    pub group_leaf_k: u16,
}

impl BtreeK {
    /// Parse the message (version 0).
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "B-tree 'K' values message", |c| {
            read_version(c, 0, 0)?;
            Ok(BtreeK {
                indexed_storage_internal_k: c.read_u16()?,
                group_internal_k: c.read_u16()?,
                group_leaf_k: c.read_u16()?,
            })
        })
    }

    /// Encode the message.
    pub fn encode(&self, w: &mut Writer) {
        w.put_u8(0);
        w.put_u16(self.indexed_storage_internal_k);
        w.put_u16(self.group_internal_k);
        w.put_u16(self.group_leaf_k);
    }
}
