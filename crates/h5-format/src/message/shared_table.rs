//! The Shared Message Table message (0x000F), in the superblock extension.

use super::{read_version, scoped};
use crate::cursor::{Cursor, Writer};
use crate::{Addr, Result};

/// Where the shared object header message table is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SharedMessageTable {
    /// "Shared Object Header Message Table Address".
    pub table_address: Addr,
    /// "Number of Indices".
    pub num_indices: u8,
}

impl SharedMessageTable {
    /// Parse the message (version 0).
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "shared message table message", |c| {
            read_version(c, 0, 0)?;
            Ok(SharedMessageTable {
                table_address: c.read_addr()?,
                num_indices: c.read_u8()?,
            })
        })
    }

    /// Encode the message.
    pub fn encode(&self, w: &mut Writer) {
        w.put_u8(0);
        w.put_addr(self.table_address);
        w.put_u8(self.num_indices);
    }
}
