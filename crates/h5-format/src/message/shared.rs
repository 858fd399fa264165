//! The shared message encoding (format spec IV.A.2, "Shared Messages"): the body of a
//! message whose header flag bit 1 is set, versions 1 to 3.

use super::{read_version, scoped};
use crate::cursor::{Cursor, Writer};
use crate::{Addr, ErrorKind, Result};

/// Where a shared message is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SharedLocation {
    /// In another object's header (a committed datatype): that header's address.
    Committed(Addr),
    /// In the shared object header message heap: the 8-byte fractal heap ID.
    Heap([u8; 8]),
}

/// A shared message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SharedMessage {
    /// "Version": 1, 2 or 3.
    pub version: u8,
    /// Where the message is.
    pub location: SharedLocation,
}

impl SharedMessage {
    /// Parse a shared message.
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "shared message", |c| {
            let version = read_version(c, 1, 3)?;
            let type_at = c.offset();
            let ty = c.read_u8()?;
            let location = match version {
                1 => {
                    c.skip(6)?;
                    // A version 1 body is a symbol-table-entry-like pair; the first field
                    // (a length-sized reserved word) is skipped, as the reference library does.
                    c.skip(c.sizes().length as usize)?;
                    SharedLocation::Committed(c.read_addr()?)
                }
                2 => SharedLocation::Committed(c.read_addr()?),
                _ => match ty {
                    1 => SharedLocation::Heap(c.read_array()?),
                    2 => SharedLocation::Committed(c.read_addr()?),
                    t => {
                        return Err(c.error_at(
                            ErrorKind::InvalidValue,
                            type_at,
                            format!("shared message type {t}"),
                        ))
                    }
                },
            };
            Ok(SharedMessage { version, location })
        })
    }

    /// Encode the shared message. A heap location is written as version 3 whatever
    /// `version` says, since earlier versions cannot express it.
    pub fn encode(&self, w: &mut Writer) {
        match (self.version, self.location) {
            (1, SharedLocation::Committed(a)) => {
                w.put_u8(1);
                w.put_u8(0);
                w.put_zeros(6);
                w.put_len(0);
                w.put_addr(a);
            }
            (2, SharedLocation::Committed(a)) => {
                w.put_u8(2);
                w.put_u8(0);
                w.put_addr(a);
            }
            (_, SharedLocation::Committed(a)) => {
                w.put_u8(3);
                w.put_u8(2);
                w.put_addr(a);
            }
            (_, SharedLocation::Heap(id)) => {
                w.put_u8(3);
                w.put_u8(1);
                w.put_bytes(&id);
            }
        }
    }
}
