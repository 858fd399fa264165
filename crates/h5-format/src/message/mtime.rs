//! The Object Modification Time messages: old (0x000E, ASCII) and new (0x0012, seconds).

use super::{read_version, scoped};
use crate::cursor::{Cursor, Writer};
use crate::{ErrorKind, Result};

/// The old modification time: "Year" (4 ASCII digits), "Month", "Day of Month", "Hour",
/// "Minute", "Second" (2 ASCII digits each), UTC, then 2 reserved bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MtimeOld {
    /// The 14 ASCII digits `YYYYMMDDhhmmss`.
    pub digits: [u8; 14],
}

impl MtimeOld {
    /// Parse the message.
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "old modification time message", |c| {
            let at = c.offset();
            let digits: [u8; 14] = c.read_array()?;
            if !digits.iter().all(u8::is_ascii_digit) {
                return Err(c.error_at(ErrorKind::InvalidValue, at, "time is not 14 ASCII digits"));
            }
            c.skip(2)?;
            Ok(MtimeOld { digits })
        })
    }

    /// Encode the message.
    pub fn encode(&self, w: &mut Writer) {
        w.put_bytes(&self.digits);
        w.put_zeros(2);
    }

    /// The fields (year, month, day, hour, minute, second).
    pub fn fields(&self) -> (u32, u32, u32, u32, u32, u32) {
        let n = |r: std::ops::Range<usize>| {
            self.digits[r]
                .iter()
                .fold(0u32, |a, &d| a * 10 + u32::from(d.wrapping_sub(b'0') % 10))
        };
        (n(0..4), n(4..6), n(6..8), n(8..10), n(10..12), n(12..14))
    }
}

/// The new modification time: seconds since the UNIX epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mtime {
    /// "Seconds After UNIX Epoch".
    pub seconds: u32,
}

impl Mtime {
    /// Parse the message (version 1).
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "modification time message", |c| {
            read_version(c, 1, 1)?;
            c.skip(3)?;
            Ok(Mtime {
                seconds: c.read_u32()?,
            })
        })
    }

    /// Encode the message.
    pub fn encode(&self, w: &mut Writer) {
        w.put_u8(1);
        w.put_zeros(3);
        w.put_u32(self.seconds);
    }
}
