//! The Object Comment message (0x000D).

use super::scoped;
use crate::cursor::{Cursor, Writer};
use crate::{limits, Result};

/// An object comment: a NUL-terminated ASCII string.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Comment {
    /// "Comment" without its terminating NUL.
    pub comment: Vec<u8>,
}

impl Comment {
    /// Parse the message.
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "object comment message", |c| {
            let max = c.remaining().min(limits::MAX_METADATA_BLOCK as usize);
            Ok(Comment {
                comment: c.read_cstr(max)?.to_vec(),
            })
        })
    }

    /// Encode the message.
    pub fn encode(&self, w: &mut Writer) {
        w.put_bytes(&self.comment);
        w.put_u8(0);
    }
}
