//! The Object Header Continuation message (0x0010).

use super::scoped;
use crate::cursor::{Cursor, Writer};
use crate::{Addr, Result};

/// Where the next chunk of an object header is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Continuation {
    /// "Offset": address of the continuation chunk.
    pub offset: Addr,
    /// "Length" of the chunk in bytes.
    pub length: u64,
}

impl Continuation {
    /// Parse the message.
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "continuation message", |c| {
            Ok(Continuation {
                offset: c.read_addr()?,
                length: c.read_len()?,
            })
        })
    }

    /// Encode the message.
    pub fn encode(&self, w: &mut Writer) {
        w.put_addr(self.offset);
        w.put_len(self.length);
    }
}
