//! The Attribute message (0x000C), versions 1 to 3, with shared datatypes and dataspaces.

use super::dataspace::Dataspace;
use super::datatype::{disk_size, DatatypeMessage};
use super::shared::SharedMessage;
use super::{read_version, scoped};
use crate::cursor::{Cursor, Writer};
use crate::{limits, ErrorKind, Result};

/// A message stored inline or, when its flag is set, as a shared message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MaybeShared<T> {
    /// The message itself.
    Inline(T),
    /// Where the shared message is.
    Shared(SharedMessage),
}

/// The Attribute message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Attribute {
    /// "Version": 1, 2 or 3.
    pub version: u8,
    /// Version 3: "Name Character Set Encoding" (0 ASCII, 1 UTF-8).
    pub charset: u8,
    /// "Name", without its NUL.
    pub name: Vec<u8>,
    /// "Datatype" (shared when flag bit 0 is set; versions 2 and 3).
    pub datatype: MaybeShared<DatatypeMessage>,
    /// "Dataspace" (shared when flag bit 1 is set; versions 2 and 3).
    pub dataspace: MaybeShared<Dataspace>,
    /// "Data": the elements in the datatype's file representation. When the datatype or
    /// dataspace is shared its size is unknown here and this holds the rest of the message.
    pub data: Vec<u8>,
}

fn align8(n: usize) -> usize {
    n.div_ceil(8) * 8
}

impl Attribute {
    /// Parse the message.
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "attribute message", |c| {
            let version = read_version(c, 1, 3)?;
            let flags_at = c.offset();
            // Version 1 has a reserved byte here, ignored as the reference library does.
            let flags = if version == 1 {
                c.read_u8()?;
                0
            } else {
                c.read_u8()?
            };
            if flags & !3 != 0 {
                return Err(c.error_at(
                    ErrorKind::InvalidValue,
                    flags_at,
                    format!("flags {flags:#x}"),
                ));
            }
            let name_size = c.read_u16()? as usize;
            let dt_size = c.read_u16()? as usize;
            let ds_size = c.read_u16()? as usize;
            let charset = if version >= 3 { c.read_u8()? } else { 0 };
            let field = |n: usize| if version == 1 { align8(n) } else { n };
            let name_at = c.offset();
            let mut name_c = c.sub(field(name_size))?;
            let raw = name_c.read_bytes(name_size)?;
            let name = match raw.iter().position(|&b| b == 0) {
                Some(end) => raw[..end].to_vec(),
                None => {
                    return Err(c.error_at(
                        ErrorKind::InvalidValue,
                        name_at,
                        "name is not NUL-terminated",
                    ))
                }
            };
            let mut dt_c = c.sub(field(dt_size))?;
            let mut dt_c = dt_c.sub(dt_size)?;
            let datatype = if flags & 1 != 0 {
                MaybeShared::Shared(SharedMessage::parse(&mut dt_c)?)
            } else {
                MaybeShared::Inline(DatatypeMessage::parse(&mut dt_c)?)
            };
            let mut ds_c = c.sub(field(ds_size))?;
            let mut ds_c = ds_c.sub(ds_size)?;
            let dataspace = if flags & 2 != 0 {
                MaybeShared::Shared(SharedMessage::parse(&mut ds_c)?)
            } else {
                MaybeShared::Inline(Dataspace::parse(&mut ds_c)?)
            };
            let data_at = c.offset();
            let data_len = match (&datatype, &dataspace) {
                (MaybeShared::Inline(t), MaybeShared::Inline(s)) => {
                    let n = s
                        .num_elements()
                        .and_then(|n| n.checked_mul(disk_size(&t.datatype, c.sizes())));
                    match n {
                        Some(n) if n <= c.remaining() as u64 && n <= limits::MAX_METADATA_BLOCK => {
                            n as usize
                        }
                        Some(n) => {
                            return Err(c.error_at(
                                ErrorKind::UnexpectedEof,
                                data_at,
                                format!("attribute data of {n} bytes, {} left", c.remaining()),
                            ))
                        }
                        None => {
                            return Err(c.error_at(
                                ErrorKind::InvalidValue,
                                data_at,
                                "attribute data size overflows (elements times element size)",
                            ))
                        }
                    }
                }
                _ => c.remaining(),
            };
            let data = c.read_bytes(data_len)?.to_vec();
            Ok(Attribute {
                version,
                charset,
                name,
                datatype,
                dataspace,
                data,
            })
        })
    }

    /// The "Name" of the message whose body is `data`, without its NUL, read as
    /// [`Attribute::parse`] reads it but decoding nothing after it (a look-up by name
    /// decodes only the attribute it finds). `None` when the fields before the name or the
    /// name itself would not parse.
    pub fn peek_name(data: &[u8]) -> Option<&[u8]> {
        let version = *data.first()?;
        if !(1..=3).contains(&version) {
            return None;
        }
        if version > 1 && data.get(1)? & !3 != 0 {
            return None;
        }
        let name_size = usize::from(u16::from_le_bytes([*data.get(2)?, *data.get(3)?]));
        let start: usize = if version >= 3 { 9 } else { 8 };
        let field = if version == 1 {
            align8(name_size)
        } else {
            name_size
        };
        // The name's field (padded in version 1) lies inside the message, as parsing checks.
        data.get(start..start.checked_add(field)?)?;
        let raw = data.get(start..start + name_size)?;
        let end = raw.iter().position(|&b| b == 0)?;
        Some(&raw[..end])
    }

    /// Encode the message. Shared parts need version 2 or later, and a non-ASCII character
    /// set needs version 3; the version is raised when needed.
    pub fn encode(&self, w: &mut Writer) {
        let sizes = w.sizes();
        let shared = matches!(self.datatype, MaybeShared::Shared(_))
            || matches!(self.dataspace, MaybeShared::Shared(_));
        let mut version = self.version.clamp(1, 3);
        if shared {
            version = version.max(2);
        }
        if self.charset != 0 {
            version = 3;
        }
        let mut dt = Writer::new(sizes);
        match &self.datatype {
            MaybeShared::Inline(t) => t.encode(&mut dt),
            MaybeShared::Shared(s) => s.encode(&mut dt),
        }
        let mut ds = Writer::new(sizes);
        match &self.dataspace {
            MaybeShared::Inline(s) => s.encode(&mut ds),
            MaybeShared::Shared(s) => s.encode(&mut ds),
        }
        let flags = u8::from(matches!(self.datatype, MaybeShared::Shared(_)))
            | (u8::from(matches!(self.dataspace, MaybeShared::Shared(_))) << 1);
        w.put_u8(version);
        w.put_u8(if version == 1 { 0 } else { flags });
        w.put_u16((self.name.len() + 1) as u16);
        w.put_u16(dt.len() as u16);
        w.put_u16(ds.len() as u16);
        if version >= 3 {
            w.put_u8(self.charset);
        }
        let pad = |w: &mut Writer, n: usize| {
            if version == 1 {
                w.put_zeros(align8(n) - n);
            }
        };
        w.put_bytes(&self.name);
        w.put_u8(0);
        pad(w, self.name.len() + 1);
        w.put_bytes(dt.as_slice());
        pad(w, dt.len());
        w.put_bytes(ds.as_slice());
        pad(w, ds.len());
        w.put_bytes(&self.data);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::shared::SharedLocation;
    use crate::{Addr, Sizes};
    use h5_types::{ByteOrder, Datatype, IntegerType, Sign};

    #[test]
    fn version_1_from_bytes() {
        // "a" (2 bytes, padded to 8), int32 LE (12 bytes, padded to 16), scalar v1 (8 bytes).
        let mut b = vec![1u8, 0, 2, 0, 12, 0, 8, 0];
        b.extend_from_slice(b"a\0\0\0\0\0\0\0");
        b.extend_from_slice(&[0x10, 0x08, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0, 0, 0, 0, 0]);
        b.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0]);
        b.extend_from_slice(&42i32.to_le_bytes());
        let a = Attribute::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(a.name, b"a");
        let int = Datatype::from(IntegerType::new(
            4,
            ByteOrder::LittleEndian,
            Sign::TwosComplement,
        ));
        assert_eq!(
            a.datatype,
            MaybeShared::Inline(DatatypeMessage {
                version: 1,
                datatype: int
            })
        );
        assert_eq!(a.data, 42i32.to_le_bytes());
        let mut w = Writer::new(Sizes::DEFAULT);
        a.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn short_data_names_the_sizes() {
        // The message of `version_1_from_bytes` with 2 of its 4 data bytes.
        let mut b = vec![1u8, 0, 2, 0, 12, 0, 8, 0];
        b.extend_from_slice(b"a\0\0\0\0\0\0\0");
        b.extend_from_slice(&[0x10, 0x08, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0, 0, 0, 0, 0]);
        b.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0]);
        b.extend_from_slice(&[42, 0]);
        let e = Attribute::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::UnexpectedEof);
        assert!(
            e.to_string().contains("attribute data of 4 bytes, 2 left"),
            "{e}"
        );
        // A dataspace of 2^62 elements of 4 bytes: the size does not fit 64 bits.
        let mut b = vec![1u8, 0, 2, 0, 12, 0, 16, 0];
        b.extend_from_slice(b"a\0\0\0\0\0\0\0");
        b.extend_from_slice(&[0x10, 0x08, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0, 0, 0, 0, 0]);
        b.extend_from_slice(&[1, 1, 0, 0, 0, 0, 0, 0]);
        b.extend_from_slice(&(1u64 << 62).to_le_bytes());
        let e = Attribute::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap_err();
        assert!(
            e.to_string().contains("attribute data size overflows"),
            "{e}"
        );
        assert!(!e.to_string().contains("None"), "{e}");
    }

    #[test]
    fn version_3_shared_datatype_round_trip() {
        let a = Attribute {
            version: 3,
            charset: 1,
            name: "é".as_bytes().to_vec(),
            datatype: MaybeShared::Shared(SharedMessage {
                version: 3,
                location: SharedLocation::Committed(Addr(0x400)),
            }),
            dataspace: MaybeShared::Inline(Dataspace::simple(&[3], None)),
            data: vec![1, 2, 3, 4, 5, 6],
        };
        let mut w = Writer::new(Sizes::DEFAULT);
        a.encode(&mut w);
        let got = Attribute::parse(&mut Cursor::new(w.as_slice(), 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(got, a);
    }

    #[test]
    fn data_past_the_end_is_an_error() {
        let a = Attribute {
            version: 2,
            charset: 0,
            name: b"x".to_vec(),
            datatype: MaybeShared::Inline(DatatypeMessage::new(
                IntegerType::new(8, ByteOrder::LittleEndian, Sign::None).into(),
            )),
            dataspace: MaybeShared::Inline(Dataspace::simple(&[4], None)),
            data: vec![0; 32],
        };
        let mut w = Writer::new(Sizes::DEFAULT);
        a.encode(&mut w);
        let b = w.into_vec();
        let e =
            Attribute::parse(&mut Cursor::new(&b[..b.len() - 1], 0, Sizes::DEFAULT)).unwrap_err();
        assert_eq!(e.structure(), "attribute message");
    }
}
