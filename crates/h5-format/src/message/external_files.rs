//! The External Data Files message (0x0007): raw data stored in other files.

use super::{read_version, scoped};
use crate::cursor::{Cursor, Writer};
use crate::{limits, Addr, ErrorKind, Result};

/// One slot of the external file list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExternalFileSlot {
    /// "Name Offset in Local Heap" of the file name.
    pub name_offset: u64,
    /// "Offset in External Data File" where this piece of data starts.
    pub file_offset: u64,
    /// "Data Size" in bytes (the last slot may say "unlimited", all bits set).
    pub size: u64,
}

/// The External Data Files message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExternalFiles {
    /// "Allocated Slots" (at least the number used).
    pub allocated_slots: u16,
    /// "Heap Address" of the local heap holding the names.
    pub heap_address: Addr,
    /// The used slots.
    pub slots: Vec<ExternalFileSlot>,
}

impl ExternalFiles {
    /// Parse the message (version 1).
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "external data files message", |c| {
            read_version(c, 1, 1)?;
            c.skip(3)?;
            let allocated_slots = c.read_u16()?;
            let at = c.offset();
            let used = c.read_u16()?;
            if used > allocated_slots {
                return Err(c.error_at(
                    ErrorKind::InvalidValue,
                    at,
                    format!("{used} used slots of {allocated_slots} allocated"),
                ));
            }
            let heap_address = c.read_addr()?;
            let l = c.sizes().length as u64;
            let n = limits::check_count(u64::from(used), 3 * l, c.remaining() as u64, u64::MAX)
                .map_err(|m| c.error(ErrorKind::LimitExceeded, m))?;
            let mut slots = Vec::with_capacity(n);
            for _ in 0..n {
                slots.push(ExternalFileSlot {
                    name_offset: c.read_len()?,
                    file_offset: c.read_len()?,
                    size: c.read_len_or_undef()?,
                });
            }
            Ok(ExternalFiles {
                allocated_slots,
                heap_address,
                slots,
            })
        })
    }

    /// Encode the message.
    pub fn encode(&self, w: &mut Writer) {
        w.put_u8(1);
        w.put_zeros(3);
        w.put_u16(self.allocated_slots.max(self.slots.len() as u16));
        w.put_u16(self.slots.len() as u16);
        w.put_addr(self.heap_address);
        for s in &self.slots {
            w.put_len(s.name_offset);
            w.put_len(s.file_offset);
            w.put_len(s.size);
        }
    }
}
