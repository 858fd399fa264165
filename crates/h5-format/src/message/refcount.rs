//! The Object Reference Count message (0x0016).

use super::{read_version, scoped};
use crate::cursor::{Cursor, Writer};
use crate::Result;

/// The object's reference count (hard links to it), for version 2 object headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RefCount {
    /// "Reference count".
    pub count: u32,
}

impl RefCount {
    /// Parse the message (version 0).
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "reference count message", |c| {
            read_version(c, 0, 0)?;
            Ok(RefCount {
                count: c.read_u32()?,
            })
        })
    }

    /// Encode the message.
    pub fn encode(&self, w: &mut Writer) {
        w.put_u8(0);
        w.put_u32(self.count);
    }
}
