//! The Group Info message (0x000A): storage settings of a new-style group.

use super::{read_version, scoped};
use crate::cursor::{Cursor, Writer};
use crate::{ErrorKind, Result};

/// The Group Info message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GroupInfo {
    /// "Link Phase Change: Maximum Compact Value" and "Minimum Dense Value" (flag bit 0).
    pub link_phase_change: Option<(u16, u16)>,
    /// "Estimated Number of Entries" and "Estimated Link Name Length of Entries" (flag bit 1).
    pub estimated_entry_info: Option<(u16, u16)>,
}

impl GroupInfo {
    /// Parse the message (version 0).
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "group info message", |c| {
            read_version(c, 0, 0)?;
            let at = c.offset();
            let flags = c.read_u8()?;
            if flags & !3 != 0 {
                return Err(c.error_at(ErrorKind::InvalidValue, at, format!("flags {flags:#x}")));
            }
            let link_phase_change = if flags & 1 != 0 {
                Some((c.read_u16()?, c.read_u16()?))
            } else {
                None
            };
            let estimated_entry_info = if flags & 2 != 0 {
                Some((c.read_u16()?, c.read_u16()?))
            } else {
                None
            };
            Ok(GroupInfo {
                link_phase_change,
                estimated_entry_info,
            })
        })
    }

    /// Encode the message.
    pub fn encode(&self, w: &mut Writer) {
        w.put_u8(0);
        w.put_u8(
            u8::from(self.link_phase_change.is_some())
                | (u8::from(self.estimated_entry_info.is_some()) << 1),
        );
        for (a, b) in [self.link_phase_change, self.estimated_entry_info]
            .into_iter()
            .flatten()
        {
            w.put_u16(a);
            w.put_u16(b);
        }
    }
}
