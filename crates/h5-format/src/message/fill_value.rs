//! The Fill Value messages: old (0x0004) and new (0x0005, versions 1 to 3).

use super::{read_version, scoped};
use crate::cursor::{Cursor, Writer};
use crate::{ErrorKind, Result};

fn read_sized(c: &mut Cursor) -> Result<Vec<u8>> {
    let at = c.offset();
    let size = c.read_u32()? as usize;
    if size > c.remaining() {
        return Err(c.error_at(
            ErrorKind::UnexpectedEof,
            at,
            format!(
                "fill value size {size} exceeds the {} bytes left",
                c.remaining()
            ),
        ));
    }
    Ok(c.read_bytes(size)?.to_vec())
}

/// The old Fill Value message: "Size" and "Fill Value".
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FillValueOld {
    /// The fill value, in the dataset's datatype.
    pub value: Vec<u8>,
}

impl FillValueOld {
    /// Parse the message.
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "old fill value message", |c| {
            Ok(FillValueOld {
                value: read_sized(c)?,
            })
        })
    }

    /// Encode the message.
    pub fn encode(&self, w: &mut Writer) {
        w.put_u32(self.value.len() as u32);
        w.put_bytes(&self.value);
    }
}

/// "Space Allocation Time": 1 early, 2 late, 3 incremental.
pub mod alloc_time {
    /// Allocate when the dataset is created.
    pub const EARLY: u8 = 1;
    /// Allocate when data is first written.
    pub const LATE: u8 = 2;
    /// Allocate chunks as they are written.
    pub const INCREMENTAL: u8 = 3;
}

/// "Fill Value Write Time": 0 on allocation, 1 never, 2 if set by the user.
pub mod fill_time {
    /// Write fill values when space is allocated.
    pub const ON_ALLOC: u8 = 0;
    /// Never write fill values.
    pub const NEVER: u8 = 1;
    /// Write fill values on allocation only when the user set one.
    pub const IF_SET: u8 = 2;
}

/// The Fill Value message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FillValue {
    /// "Version": 1, 2 or 3.
    pub version: u8,
    /// "Space Allocation Time" (see [`alloc_time`]).
    pub alloc_time: u8,
    /// "Fill Value Write Time" (see [`fill_time`]).
    pub fill_time: u8,
    /// Versions 1 and 2: "Fill Value Defined". Version 3: the negation of flag bit 4
    /// ("fill value is undefined").
    pub defined: bool,
    /// "Fill Value" when stored: versions 1 (always), 2 (when defined) and 3 (flag bit 5).
    pub value: Option<Vec<u8>>,
}

impl FillValue {
    /// Parse the message.
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "fill value message", |c| {
            let version = read_version(c, 1, 3)?;
            if version < 3 {
                let alloc_time = c.read_u8()?;
                let fill_time = c.read_u8()?;
                let defined = c.read_u8()? != 0;
                // Version 1 always has the size (absent in files that end the message
                // early, which the reference library also accepts); version 2 only when
                // the value is defined.
                let value = if defined || (version == 1 && c.remaining() >= 4) {
                    Some(read_sized(c)?)
                } else {
                    None
                };
                Ok(FillValue {
                    version,
                    alloc_time,
                    fill_time,
                    defined,
                    value,
                })
            } else {
                let at = c.offset();
                let flags = c.read_u8()?;
                if flags & 0xc0 != 0 || (flags & 0x10 != 0 && flags & 0x20 != 0) {
                    return Err(c.error_at(
                        ErrorKind::InvalidValue,
                        at,
                        format!("flags {flags:#x}"),
                    ));
                }
                let value = if flags & 0x20 != 0 {
                    Some(read_sized(c)?)
                } else {
                    None
                };
                Ok(FillValue {
                    version,
                    alloc_time: flags & 3,
                    fill_time: (flags >> 2) & 3,
                    defined: flags & 0x10 == 0,
                    value,
                })
            }
        })
    }

    /// Encode the message.
    pub fn encode(&self, w: &mut Writer) {
        let version = self.version.clamp(1, 3);
        w.put_u8(version);
        if version < 3 {
            w.put_u8(self.alloc_time);
            w.put_u8(self.fill_time);
            w.put_u8(u8::from(self.defined));
            // Version 1 ends early when it has no value (as parsed from such a message).
            if self.defined || (version == 1 && self.value.is_some()) {
                let v = self.value.as_deref().unwrap_or(&[]);
                w.put_u32(v.len() as u32);
                w.put_bytes(v);
            }
        } else {
            let value = self.value.as_deref().filter(|_| self.defined);
            w.put_u8(
                (self.alloc_time & 3)
                    | ((self.fill_time & 3) << 2)
                    | if self.defined { 0 } else { 0x10 }
                    | if value.is_some() { 0x20 } else { 0 },
            );
            if let Some(v) = value {
                w.put_u32(v.len() as u32);
                w.put_bytes(v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Sizes;

    #[test]
    fn version_2_and_3_from_bytes() {
        // v2: late allocation, write if set, defined, 4-byte value 7.
        let b = [2u8, 2, 2, 1, 4, 0, 0, 0, 7, 0, 0, 0];
        let f = FillValue::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(f.alloc_time, alloc_time::LATE);
        assert_eq!(f.fill_time, fill_time::IF_SET);
        assert_eq!(f.value, Some(vec![7, 0, 0, 0]));
        let mut w = Writer::new(Sizes::DEFAULT);
        f.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
        // v3: flags = late (2) | if-set (2 << 2) | have value.
        let b = [3u8, 0x2a, 2, 0, 0, 0, 0xff, 0x7f];
        let f = FillValue::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        assert_eq!((f.alloc_time, f.fill_time), (2, 2));
        assert_eq!(f.value, Some(vec![0xff, 0x7f]));
        let mut w = Writer::new(Sizes::DEFAULT);
        f.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
        // v3: undefined.
        let b = [3u8, 0x12];
        let f = FillValue::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        assert!(!f.defined);
        assert_eq!(f.value, None);
    }

    #[test]
    fn version_1_ending_early_round_trips() {
        // Version 1, undefined, no size field: parses to no value and encodes back the same.
        let b = [1u8, 2, 1, 0];
        let f = FillValue::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(f.value, None);
        let mut w = Writer::new(Sizes::DEFAULT);
        f.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
        // With its size field, the (empty) value is kept.
        let b = [1u8, 2, 1, 0, 0, 0, 0, 0];
        let f = FillValue::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(f.value, Some(vec![]));
        let mut w = Writer::new(Sizes::DEFAULT);
        f.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn old_and_errors() {
        let b = [2u8, 0, 0, 0, 1, 2];
        let f = FillValueOld::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(f.value, vec![1, 2]);
        let b = [9u8, 0, 0, 0, 1, 2];
        let e = FillValueOld::parse(&mut Cursor::new(&b, 0x20, Sizes::DEFAULT)).unwrap_err();
        assert_eq!(e.offset(), Some(0x20));
        assert_eq!(e.structure(), "old fill value message");
        let b = [3u8, 0x30];
        assert!(FillValue::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).is_err());
    }
}
