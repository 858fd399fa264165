//! The File Space Info message (0x0017), versions 0 and 1, in the superblock extension.

use super::{read_version, scoped};
use crate::cursor::{Cursor, Writer};
use crate::{Addr, ErrorKind, Result};

/// Number of free-space manager addresses of version 1 (one per paged memory type, small and
/// large, `H5F_MEM_PAGE_NTYPES - 1`).
pub const V1_MANAGERS: usize = 12;
/// Number of free-space manager addresses of version 0 (`H5FD_MEM_NTYPES - 1`).
pub const V0_MANAGERS: usize = 6;
/// Version 0 strategy `H5F_FILE_SPACE_ALL_PERSIST`: manager addresses follow.
pub const V0_ALL_PERSIST: u8 = 1;

/// The File Space Info message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FileSpaceInfo {
    /// Version 0 (HDF5 1.10.0 only, deprecated).
    V0 {
        /// "File space strategy" (`H5F_file_space_type_t`, 1 to 4).
        strategy: u8,
        /// "Free-space section threshold".
        threshold: u64,
        /// With strategy 1 (all persist): the six free-space manager addresses.
        managers: Option<Vec<Addr>>,
    },
    /// Version 1.
    V1 {
        /// "File space strategy" (`H5F_fspace_strategy_t`).
        strategy: u8,
        /// "Persisting free-space": whether free space is tracked across opens.
        persist: bool,
        /// "Free-space section threshold".
        threshold: u64,
        /// "File space page size".
        page_size: u64,
        /// "Page end metadata threshold".
        page_end_meta_threshold: u16,
        /// "EOA before free-space header and section info allocation".
        eoa_pre_fsm_alloc: Addr,
        /// When persisting: the twelve free-space manager addresses.
        managers: Vec<Addr>,
    },
}

impl FileSpaceInfo {
    /// Parse the message.
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "file space info message", |c| {
            let version = read_version(c, 0, 1)?;
            let at = c.offset();
            let strategy = c.read_u8()?;
            if version == 0 {
                if !(1..=4).contains(&strategy) {
                    return Err(c.error_at(
                        ErrorKind::InvalidValue,
                        at,
                        format!("strategy {strategy}"),
                    ));
                }
                let threshold = c.read_len()?;
                let managers = if strategy == V0_ALL_PERSIST {
                    let mut m = Vec::with_capacity(V0_MANAGERS);
                    for _ in 0..V0_MANAGERS {
                        m.push(c.read_addr()?);
                    }
                    Some(m)
                } else {
                    None
                };
                return Ok(FileSpaceInfo::V0 {
                    strategy,
                    threshold,
                    managers,
                });
            }
            let persist = c.read_u8()? != 0;
            let threshold = c.read_len()?;
            let page_size = c.read_len()?;
            let page_end_meta_threshold = c.read_u16()?;
            let eoa_pre_fsm_alloc = c.read_addr()?;
            let mut managers = Vec::new();
            if persist {
                for _ in 0..V1_MANAGERS {
                    managers.push(c.read_addr()?);
                }
            }
            Ok(FileSpaceInfo::V1 {
                strategy,
                persist,
                threshold,
                page_size,
                page_end_meta_threshold,
                eoa_pre_fsm_alloc,
                managers,
            })
        })
    }

    /// Encode the message.
    pub fn encode(&self, w: &mut Writer) {
        match self {
            FileSpaceInfo::V0 {
                strategy,
                threshold,
                managers,
            } => {
                w.put_u8(0);
                w.put_u8(*strategy);
                w.put_len(*threshold);
                if *strategy == V0_ALL_PERSIST {
                    for i in 0..V0_MANAGERS {
                        let a = managers.as_ref().and_then(|m| m.get(i).copied());
                        w.put_addr(a.unwrap_or(Addr::UNDEF));
                    }
                }
            }
            FileSpaceInfo::V1 {
                strategy,
                persist,
                threshold,
                page_size,
                page_end_meta_threshold,
                eoa_pre_fsm_alloc,
                managers,
            } => {
                w.put_u8(1);
                w.put_u8(*strategy);
                w.put_u8(u8::from(*persist));
                w.put_len(*threshold);
                w.put_len(*page_size);
                w.put_u16(*page_end_meta_threshold);
                w.put_addr(*eoa_pre_fsm_alloc);
                if *persist {
                    for i in 0..V1_MANAGERS {
                        w.put_addr(managers.get(i).copied().unwrap_or(Addr::UNDEF));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Sizes;

    #[test]
    fn version_1_from_bytes() {
        // Paged strategy (2), not persisting, threshold 1, page size 4096, 0, EOA undefined.
        let mut b = vec![1u8, 2, 0];
        b.extend_from_slice(&1u64.to_le_bytes());
        b.extend_from_slice(&4096u64.to_le_bytes());
        b.extend_from_slice(&[0, 0]);
        b.extend_from_slice(&[0xff; 8]);
        let m = FileSpaceInfo::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(
            m,
            FileSpaceInfo::V1 {
                strategy: 2,
                persist: false,
                threshold: 1,
                page_size: 4096,
                page_end_meta_threshold: 0,
                eoa_pre_fsm_alloc: Addr::UNDEF,
                managers: vec![],
            }
        );
        let mut w = Writer::new(Sizes::DEFAULT);
        m.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn persisting_and_version_0_round_trip() {
        let sizes = Sizes {
            offset: 4,
            length: 2,
        };
        for m in [
            FileSpaceInfo::V1 {
                strategy: 0,
                persist: true,
                threshold: 10,
                page_size: 512,
                page_end_meta_threshold: 3,
                eoa_pre_fsm_alloc: Addr(0x900),
                managers: (0..12).map(Addr).collect(),
            },
            FileSpaceInfo::V0 {
                strategy: 1,
                threshold: 1,
                managers: Some((0..6).map(Addr).collect()),
            },
            FileSpaceInfo::V0 {
                strategy: 3,
                threshold: 1,
                managers: None,
            },
        ] {
            let mut w = Writer::new(sizes);
            m.encode(&mut w);
            assert_eq!(
                FileSpaceInfo::parse(&mut Cursor::new(w.as_slice(), 0, sizes)).unwrap(),
                m
            );
        }
        assert!(FileSpaceInfo::parse(&mut Cursor::new(&[0, 9, 0, 0], 0, sizes)).is_err());
    }
}
