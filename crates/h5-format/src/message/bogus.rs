//! The Bogus message (0x0009), used only to test unknown-message handling.

use super::scoped;
use crate::cursor::{Cursor, Writer};
use crate::{ErrorKind, Result};

/// The value the Bogus message holds.
pub const BOGUS_VALUE: u32 = 0xdead_beef;

/// The Bogus message: "Bogus Value" (4 bytes, 0xdeadbeef).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bogus;

impl Bogus {
    /// Parse the message.
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "bogus message", |c| {
            let at = c.offset();
            let v = c.read_u32()?;
            if v != BOGUS_VALUE {
                return Err(c.error_at(ErrorKind::InvalidValue, at, format!("bogus value {v:#x}")));
            }
            Ok(Bogus)
        })
    }

    /// Encode the message.
    pub fn encode(&self, w: &mut Writer) {
        w.put_u32(BOGUS_VALUE);
    }
}
