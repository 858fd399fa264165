//! The Link message (0x0006): one link of a new-style group (hard, soft, external or
//! user-defined).

use super::{read_version, scoped};
use crate::cursor::{Cursor, Writer};
use crate::{Addr, ErrorKind, Result};

/// "Link Type" of an external link.
pub const LINK_TYPE_EXTERNAL: u8 = 64;

/// What a link points to ("Link Information").
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LinkTarget {
    /// Type 0: the address of the object header.
    Hard(Addr),
    /// Type 1: a path, possibly dangling.
    Soft(Vec<u8>),
    /// Type 64: an object in another file.
    External {
        /// The "Version" (bits 4-7, 0) and "Flags" (bits 0-3) byte of the external value.
        version_flags: u8,
        /// The file name, without its NUL.
        file: Vec<u8>,
        /// The object path in that file, without its NUL.
        path: Vec<u8>,
    },
    /// Types 65 to 255: user-defined links, with their data uninterpreted.
    UserDefined {
        /// "Link Type".
        link_type: u8,
        /// The link data.
        data: Vec<u8>,
    },
}

impl LinkTarget {
    /// The "Link Type" value.
    pub fn link_type(&self) -> u8 {
        match self {
            LinkTarget::Hard(_) => 0,
            LinkTarget::Soft(_) => 1,
            LinkTarget::External { .. } => LINK_TYPE_EXTERNAL,
            LinkTarget::UserDefined { link_type, .. } => *link_type,
        }
    }
}

/// The Link message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Link {
    /// "Creation Order" (flag bit 2).
    pub creation_order: Option<u64>,
    /// "Link Name Character Set" (flag bit 4): 0 ASCII, 1 UTF-8.
    pub charset: Option<u8>,
    /// "Link Name" (not NUL-terminated in the file).
    pub name: Vec<u8>,
    /// "Link Type" and "Link Information".
    pub target: LinkTarget,
}

impl Link {
    /// Parse the message (version 1).
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "link message", |c| {
            read_version(c, 1, 1)?;
            let flags_at = c.offset();
            let flags = c.read_u8()?;
            if flags & 0xe0 != 0 {
                return Err(c.error_at(
                    ErrorKind::InvalidValue,
                    flags_at,
                    format!("flags {flags:#x}"),
                ));
            }
            let link_type = if flags & 0x08 != 0 { c.read_u8()? } else { 0 };
            let creation_order = if flags & 0x04 != 0 {
                Some(c.read_u64()?)
            } else {
                None
            };
            let charset = if flags & 0x10 != 0 {
                Some(c.read_u8()?)
            } else {
                None
            };
            let len_at = c.offset();
            let name_len = c.read_uint(1 << (flags & 3))?;
            // A link message in dense storage (a fractal heap object) may hold a name longer
            // than a header message could: the bytes left bound it.
            if name_len == 0 || name_len > c.remaining() as u64 {
                return Err(c.error_at(
                    ErrorKind::InvalidValue,
                    len_at,
                    format!("link name length {name_len}"),
                ));
            }
            let name = c.read_bytes(name_len as usize)?.to_vec();
            let target = match link_type {
                0 => LinkTarget::Hard(c.read_addr()?),
                1 => {
                    let n = c.read_u16()? as usize;
                    LinkTarget::Soft(c.read_bytes(n)?.to_vec())
                }
                t if t >= LINK_TYPE_EXTERNAL => {
                    let n = c.read_u16()? as usize;
                    let mut v = c.sub(n)?;
                    if t == LINK_TYPE_EXTERNAL {
                        let version_flags = v.read_u8()?;
                        let file = v.read_cstr(n)?.to_vec();
                        let path = v.read_cstr(n)?.to_vec();
                        LinkTarget::External {
                            version_flags,
                            file,
                            path,
                        }
                    } else {
                        LinkTarget::UserDefined {
                            link_type: t,
                            data: v.rest().to_vec(),
                        }
                    }
                }
                t => {
                    return Err(c.error_at(
                        ErrorKind::InvalidValue,
                        flags_at + 1,
                        format!("link type {t}"),
                    ))
                }
            };
            Ok(Link {
                creation_order,
                charset,
                name,
                target,
            })
        })
    }

    /// Encode the message (the name length field takes the fewest bytes that hold it).
    pub fn encode(&self, w: &mut Writer) {
        let n = self.name.len() as u64;
        let width_code: u8 = if n <= 0xff {
            0
        } else if n <= 0xffff {
            1
        } else if n <= 0xffff_ffff {
            2
        } else {
            3
        };
        let ty = self.target.link_type();
        let flags = width_code
            | if self.creation_order.is_some() {
                0x04
            } else {
                0
            }
            | if ty != 0 { 0x08 } else { 0 }
            | if self.charset.is_some() { 0x10 } else { 0 };
        w.put_u8(1);
        w.put_u8(flags);
        if ty != 0 {
            w.put_u8(ty);
        }
        if let Some(o) = self.creation_order {
            w.put_u64(o);
        }
        if let Some(cs) = self.charset {
            w.put_u8(cs);
        }
        w.put_uint(n, 1 << width_code);
        w.put_bytes(&self.name);
        match &self.target {
            LinkTarget::Hard(a) => w.put_addr(*a),
            LinkTarget::Soft(p) => {
                w.put_u16(p.len() as u16);
                w.put_bytes(p);
            }
            LinkTarget::External {
                version_flags,
                file,
                path,
            } => {
                w.put_u16((file.len() + path.len() + 3) as u16);
                w.put_u8(*version_flags);
                w.put_bytes(file);
                w.put_u8(0);
                w.put_bytes(path);
                w.put_u8(0);
            }
            LinkTarget::UserDefined { data, .. } => {
                w.put_u16(data.len() as u16);
                w.put_bytes(data);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Sizes;

    #[test]
    fn hard_link_from_bytes() {
        // version 1, flags 0 (1-byte name length, no type: hard), name "dset", address.
        let mut b = vec![1u8, 0, 4];
        b.extend_from_slice(b"dset");
        b.extend_from_slice(&0x2a0u64.to_le_bytes());
        let l = Link::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(l.name, b"dset");
        assert_eq!(l.target, LinkTarget::Hard(Addr(0x2a0)));
        let mut w = Writer::new(Sizes::DEFAULT);
        l.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn soft_external_user_defined_round_trip() {
        for target in [
            LinkTarget::Soft(b"/a/b".to_vec()),
            LinkTarget::External {
                version_flags: 0,
                file: b"other.h5".to_vec(),
                path: b"/x".to_vec(),
            },
            LinkTarget::UserDefined {
                link_type: 99,
                data: vec![1, 2, 3],
            },
        ] {
            let l = Link {
                creation_order: Some(7),
                charset: Some(1),
                name: vec![b'n'; 300],
                target,
            };
            let mut w = Writer::new(Sizes::DEFAULT);
            l.encode(&mut w);
            let got = Link::parse(&mut Cursor::new(w.as_slice(), 0, Sizes::DEFAULT)).unwrap();
            assert_eq!(got, l);
        }
    }

    #[test]
    fn bad_link_type_is_an_error() {
        let b = [1u8, 0x08, 5, 1, b'a', 0, 0];
        let e = Link::parse(&mut Cursor::new(&b, 0x100, Sizes::DEFAULT)).unwrap_err();
        assert_eq!(e.structure(), "link message");
        assert_eq!(e.offset(), Some(0x102));
    }
}
