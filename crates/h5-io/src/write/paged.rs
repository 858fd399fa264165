//! File-space settings of a new file (`H5Pset_file_space_strategy` and
//! `H5Pset_file_space_page_size`, h5repack's `-S` and `-G`): a File Space Info message in a
//! superblock extension and, with the paged strategy, paged aggregation of the file's space.
//!
//! Paged aggregation as the reference library lays it out (`H5MF__alloc_pagefs`): metadata
//! and raw data never share a page. A request smaller than a page is placed in the current
//! page of its kind (metadata or raw data), a new page at the end of the file when it does
//! not fit; a request of a page or more starts on a page boundary at the end of the file.
//! The end of file is a page boundary. Cloud readers fetch such a file page by page, the
//! metadata in few requests.

use h5_format::message::fs_info::FileSpaceInfo;
use h5_format::message::{Message, MessageFlags};
use h5_format::object_header::{Chunk, ObjectHeader, Prefix, RawMessage};
use h5_format::{Addr, Sizes, Writer};

use super::{ensure, Result};

/// How the library manages a file's free space (`H5F_fspace_strategy_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileSpaceStrategy {
    /// Free-space managers, aggregators and the file driver (the default).
    FsmAggr,
    /// Paged aggregation: space in pages of the page size, metadata and raw data apart.
    Page,
    /// Aggregators and the file driver.
    Aggr,
    /// The file driver only.
    None,
}

impl FileSpaceStrategy {
    /// The "File space strategy" value of the File Space Info message.
    pub fn code(self) -> u8 {
        match self {
            FileSpaceStrategy::FsmAggr => 0,
            FileSpaceStrategy::Page => 1,
            FileSpaceStrategy::Aggr => 2,
            FileSpaceStrategy::None => 3,
        }
    }

    /// The strategy named as h5repack's `-S` names it (`FSM_AGGR`, `PAGE`, `AGGR`, `NONE`).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "FSM_AGGR" => FileSpaceStrategy::FsmAggr,
            "PAGE" => FileSpaceStrategy::Page,
            "AGGR" => FileSpaceStrategy::Aggr,
            "NONE" => FileSpaceStrategy::None,
            _ => return None,
        })
    }
}

/// The file-space settings of a new file: not persisting free space, free-space section
/// threshold 1 (the reference library's defaults).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileSpace {
    /// The strategy.
    pub strategy: FileSpaceStrategy,
    /// "File space page size": the page of paged aggregation (512 bytes at least).
    pub page_size: u64,
}

/// The reference library's default page size (`H5F_FILE_SPACE_PAGE_SIZE_DEF`).
pub const DEFAULT_PAGE_SIZE: u64 = 4096;
/// The smallest page size the reference library accepts (`H5F_FILE_SPACE_PAGE_SIZE_MIN`).
pub const MIN_PAGE_SIZE: u64 = 512;

impl Default for FileSpace {
    fn default() -> Self {
        FileSpace {
            strategy: FileSpaceStrategy::FsmAggr,
            page_size: DEFAULT_PAGE_SIZE,
        }
    }
}

impl FileSpace {
    /// Check the settings as `H5Pset_file_space_page_size` does.
    pub(crate) fn validate(&self) -> Result<()> {
        ensure!(
            self.page_size >= MIN_PAGE_SIZE,
            InvalidArgument,
            "file space page size {} is below the minimum of {MIN_PAGE_SIZE} bytes",
            self.page_size
        );
        Ok(())
    }

    /// The File Space Info message (version 1).
    pub(crate) fn message(&self) -> FileSpaceInfo {
        FileSpaceInfo::V1 {
            strategy: self.strategy.code(),
            persist: false,
            threshold: 1,
            page_size: self.page_size,
            page_end_meta_threshold: 0,
            eoa_pre_fsm_alloc: Addr::UNDEF,
            managers: Vec::new(),
        }
    }

    /// The superblock extension holding the message: a version 1 object header for files
    /// of the compatible format (superblock 2), version 2 for the latest (superblock 3).
    pub(crate) fn extension(&self, sizes: Sizes, v1: bool) -> ObjectHeader {
        let msg = Message::FileSpaceInfo(self.message());
        ObjectHeader {
            prefix: if v1 {
                Prefix::V1 {
                    num_messages: 1,
                    refcount: 1,
                }
            } else {
                Prefix::V2 {
                    flags: 0,
                    times: None,
                    attr_phase_change: None,
                }
            },
            chunks: vec![Chunk {
                address: Addr::UNDEF,
                messages: vec![RawMessage::from_message(&msg, MessageFlags(0), sizes, v1)],
                gap: 0,
            }],
        }
    }

    /// The encoded extension.
    pub(crate) fn extension_bytes(&self, sizes: Sizes, v1: bool) -> Result<Vec<u8>> {
        let mut w = Writer::new(sizes);
        self.extension(sizes, v1).encode_chunk(0, &mut w)?;
        Ok(w.as_slice().to_vec())
    }
}

/// The current pages of paged aggregation: where the next small metadata and raw data
/// requests go (`start..end` of the page's unused part).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pages {
    page: u64,
    meta: (u64, u64),
    raw: (u64, u64),
}

impl Pages {
    pub(crate) fn new(page: u64) -> Pages {
        Pages {
            page,
            meta: (0, 0),
            raw: (0, 0),
        }
    }

    /// The page size.
    pub(crate) fn page_size(&self) -> u64 {
        self.page
    }

    /// The end of file rounded up to a page boundary.
    pub(crate) fn align(&self, eoa: u64) -> u64 {
        eoa.div_ceil(self.page) * self.page
    }

    /// Place `size` bytes of metadata (`raw` false) or raw data, 8-byte aligned inside a
    /// page; `eoa` is the end of file, moved when a page or a large block is added.
    pub(crate) fn place(&mut self, eoa: &mut u64, size: u64, raw: bool) -> u64 {
        let size = size.max(1);
        if size >= self.page {
            let at = self.align(*eoa);
            *eoa = at + size;
            return at;
        }
        let page = self.page;
        let cur = if raw { &mut self.raw } else { &mut self.meta };
        let at = cur.0.div_ceil(8) * 8;
        if cur.1 > 0 && at + size <= cur.1 {
            cur.0 = at + size;
            return at;
        }
        let at = eoa.div_ceil(page) * page;
        *eoa = at + page;
        *cur = (at + size, at + page);
        at
    }
}

/// Offsets of structures of `sizes` bytes kept one after the other in one block, and the
/// block's size. Without paging (`page` none) they follow each other; with paged aggregation
/// a structure smaller than a page that would cross a page boundary, and any structure of a
/// page or more, starts the next page, as the reference library places each one on its own
/// (its page buffer reads a structure smaller than a page from one page). Such a block of a page or more starts on a page
/// boundary ([`Pages::place`]); a smaller one lies in one page.
pub(crate) fn block_layout(page: Option<u64>, sizes: &[u64]) -> (Vec<u64>, u64) {
    let mut offsets = Vec::with_capacity(sizes.len());
    let mut end = 0u64;
    for &n in sizes {
        let mut at = end;
        if let Some(p) = page {
            // A large structure starts a page too, as a large allocation does.
            if n >= p || at / p != (at + n.max(1) - 1) / p {
                at = at.div_ceil(p) * p;
            }
        }
        offsets.push(at);
        end = at + n;
    }
    (offsets, end)
}

/// A block of `total` zero bytes with each part's bytes at its offset.
pub(crate) fn assemble(total: u64, parts: impl IntoIterator<Item = (u64, Vec<u8>)>) -> Vec<u8> {
    let mut out = vec![0u8; total as usize];
    for (at, bytes) in parts {
        let at = at as usize;
        if let Some(dst) = out.get_mut(at..at + bytes.len()) {
            dst.copy_from_slice(&bytes);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_and_raw_data_keep_to_their_pages() {
        let mut p = Pages::new(512);
        let mut eoa = 48;
        assert_eq!(p.place(&mut eoa, 100, false), 512);
        assert_eq!(eoa, 1024);
        assert_eq!(p.place(&mut eoa, 10, true), 1024);
        assert_eq!(p.place(&mut eoa, 10, false), 616);
        assert_eq!(p.place(&mut eoa, 3, true), 1040);
        // A large block starts on a page boundary; the pages in use go on.
        assert_eq!(p.place(&mut eoa, 600, true), 1536);
        assert_eq!(eoa, 2136);
        assert_eq!(p.place(&mut eoa, 8, true), 1048);
        // A page's end: the next small request opens a new page.
        assert_eq!(p.place(&mut eoa, 400, false), 2560);
        assert_eq!(p.align(eoa), 3072);
    }

    #[test]
    fn structures_of_a_block_do_not_cross_pages() {
        assert_eq!(
            block_layout(None, &[328, 328, 328]),
            (vec![0, 328, 656], 984)
        );
        assert_eq!(
            block_layout(Some(512), &[328, 328, 328, 600, 8]),
            (vec![0, 512, 1024, 1536, 2136], 2144)
        );
        assert_eq!(
            assemble(6, [(0, vec![1, 2]), (4, vec![3, 4])]),
            vec![1, 2, 0, 0, 3, 4]
        );
    }

    #[test]
    fn extension_holds_the_message() {
        let fs = FileSpace {
            strategy: FileSpaceStrategy::Page,
            page_size: 8192,
        };
        for v1 in [true, false] {
            let b = fs.extension_bytes(Sizes::DEFAULT, v1).unwrap();
            let h = ObjectHeader::parse(
                &mut h5_format::Cursor::new(&b, 0x30, Sizes::DEFAULT),
                |_, _| unreachable!(),
            )
            .unwrap();
            assert_eq!(
                h.decode_messages(Sizes::DEFAULT).unwrap(),
                vec![Message::FileSpaceInfo(fs.message())]
            );
        }
        assert!(FileSpace {
            strategy: FileSpaceStrategy::Page,
            page_size: 511
        }
        .validate()
        .is_err());
    }
}
