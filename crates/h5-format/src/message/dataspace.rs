//! The Dataspace message (0x0001), versions 1 and 2: scalar, null and simple dataspaces.

use super::{read_version, scoped};
use crate::cursor::{Cursor, Writer};
use crate::{limits, ErrorKind, Result};

/// The maximum dimension size meaning "unlimited" (all bits set in the file).
pub const UNLIMITED: u64 = u64::MAX;

/// The kind of dataspace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataspaceKind {
    /// One element, rank 0.
    Scalar,
    /// A rectangular array of rank 1 or more.
    Simple,
    /// No elements (version 2 only).
    Null,
}

/// The Dataspace message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dataspace {
    /// "Version": 1 or 2 (a null dataspace needs 2).
    pub version: u8,
    /// Scalar, simple or null.
    pub kind: DataspaceKind,
    /// "Dimension #n Size" (empty unless simple).
    pub dims: Vec<u64>,
    /// "Dimension #n Maximum Size" when stored (flag bit 0); [`UNLIMITED`] for unlimited.
    pub max_dims: Option<Vec<u64>>,
    /// "Permutation Index #n" when stored (version 1, flag bit 1; never used by the library).
    pub permutation: Option<Vec<u64>>,
}

impl Dataspace {
    /// A scalar dataspace (version 1, what the reference library writes by default).
    pub fn scalar() -> Self {
        Dataspace {
            version: 1,
            kind: DataspaceKind::Scalar,
            dims: Vec::new(),
            max_dims: None,
            permutation: None,
        }
    }

    /// A simple dataspace.
    pub fn simple(dims: &[u64], max_dims: Option<&[u64]>) -> Self {
        Dataspace {
            version: 1,
            kind: DataspaceKind::Simple,
            dims: dims.to_vec(),
            max_dims: max_dims.map(<[u64]>::to_vec),
            permutation: None,
        }
    }

    /// The number of elements (`None` when the product overflows).
    pub fn num_elements(&self) -> Option<u64> {
        match self.kind {
            DataspaceKind::Scalar => Some(1),
            DataspaceKind::Null => Some(0),
            DataspaceKind::Simple => self.dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d)),
        }
    }

    /// Parse the message.
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "dataspace message", |c| {
            let version = read_version(c, 1, 2)?;
            let rank_at = c.offset();
            let rank = c.read_u8()? as usize;
            if rank > limits::MAX_RANK {
                return Err(c.error_at(
                    ErrorKind::LimitExceeded,
                    rank_at,
                    format!("rank {rank} exceeds {}", limits::MAX_RANK),
                ));
            }
            let flags = c.read_u8()?;
            let kind = if version == 1 {
                c.skip(5)?;
                if rank > 0 {
                    DataspaceKind::Simple
                } else {
                    DataspaceKind::Scalar
                }
            } else {
                let at = c.offset();
                match c.read_u8()? {
                    0 => DataspaceKind::Scalar,
                    1 => DataspaceKind::Simple,
                    2 => DataspaceKind::Null,
                    t => {
                        return Err(c.error_at(
                            ErrorKind::InvalidValue,
                            at,
                            format!("dataspace type {t}"),
                        ))
                    }
                }
            };
            if kind != DataspaceKind::Simple && rank != 0 {
                return Err(c.error_at(
                    ErrorKind::InvalidValue,
                    rank_at,
                    format!("{kind:?} dataspace with rank {rank}"),
                ));
            }
            let mut dims = Vec::with_capacity(rank);
            for _ in 0..rank {
                dims.push(c.read_len()?);
            }
            let max_dims = if flags & 1 != 0 {
                let mut m = Vec::with_capacity(rank);
                for _ in 0..rank {
                    m.push(c.read_len_or_undef()?);
                }
                Some(m)
            } else {
                None
            };
            let permutation = if version == 1 && flags & 2 != 0 {
                let mut p = Vec::with_capacity(rank);
                for _ in 0..rank {
                    p.push(c.read_len()?);
                }
                Some(p)
            } else {
                None
            };
            Ok(Dataspace {
                version,
                kind,
                dims,
                max_dims,
                permutation,
            })
        })
    }

    /// Encode the message. A null dataspace is written as version 2 whatever `version` says;
    /// the permutation is written only in version 1.
    pub fn encode(&self, w: &mut Writer) {
        let version = if self.kind == DataspaceKind::Null {
            2
        } else {
            self.version.clamp(1, 2)
        };
        let rank = if self.kind == DataspaceKind::Simple {
            self.dims.len()
        } else {
            0
        };
        w.put_u8(version);
        w.put_u8(rank as u8);
        let perm = self.permutation.as_ref().filter(|_| version == 1);
        w.put_u8(u8::from(self.max_dims.is_some()) | (u8::from(perm.is_some()) << 1));
        if version == 1 {
            w.put_zeros(5);
        } else {
            w.put_u8(match self.kind {
                DataspaceKind::Scalar => 0,
                DataspaceKind::Simple => 1,
                DataspaceKind::Null => 2,
            });
        }
        for &d in self.dims.iter().take(rank) {
            w.put_len(d);
        }
        for list in [self.max_dims.as_ref(), perm].into_iter().flatten() {
            for i in 0..rank {
                w.put_len(list.get(i).copied().unwrap_or(0));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Sizes;

    #[test]
    fn version_1_simple_unlimited_from_bytes() {
        // version 1, rank 2, max dims present, 5 reserved; dims 10 x 3; max unlimited x 3.
        let mut b = vec![1u8, 2, 1, 0, 0, 0, 0, 0];
        for v in [10u64, 3, u64::MAX, 3] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        let d = Dataspace::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(d.kind, DataspaceKind::Simple);
        assert_eq!(d.dims, vec![10, 3]);
        assert_eq!(d.max_dims, Some(vec![UNLIMITED, 3]));
        assert_eq!(d.num_elements(), Some(30));
        let mut w = Writer::new(Sizes::DEFAULT);
        d.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn version_2_scalar_null_and_small_lengths() {
        let sizes = Sizes {
            offset: 4,
            length: 2,
        };
        let b = [2u8, 0, 0, 2];
        let d = Dataspace::parse(&mut Cursor::new(&b, 0, sizes)).unwrap();
        assert_eq!(d.kind, DataspaceKind::Null);
        assert_eq!(d.num_elements(), Some(0));
        let b = [2u8, 1, 1, 1, 5, 0, 0xff, 0xff];
        let d = Dataspace::parse(&mut Cursor::new(&b, 0, sizes)).unwrap();
        assert_eq!(d.max_dims, Some(vec![UNLIMITED]));
        let mut w = Writer::new(sizes);
        d.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
        let b = [2u8, 1, 0, 7];
        assert!(Dataspace::parse(&mut Cursor::new(&b, 0, sizes)).is_err());
        let b = [1u8, 40, 0, 0, 0, 0, 0, 0];
        let e = Dataspace::parse(&mut Cursor::new(&b, 0x10, sizes)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded);
        assert_eq!(e.offset(), Some(0x11));
    }
}
