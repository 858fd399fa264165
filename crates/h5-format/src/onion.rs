//! The onion file: the revision history that HDF5 2.x's onion virtual file driver keeps beside
//! an HDF5 file (`NAME.h5.onion` next to `NAME.h5`).
//!
//! The original file stays untouched; every revision is a set of amended pages stored in the
//! onion file. Its structures, all little-endian and each closed by a Fletcher-32 checksum
//! (`H5_checksum_fletcher32`, not lookup3):
//!
//! - the **history header** at offset 0 (signature `OHDH`, 40 bytes): page size, size of the
//!   original file, where the history is;
//! - the **history** (`OWHS`): one record pointer (address, size, checksum) per revision;
//! - one **revision record** per revision (`ORRS`): revision number, parent, creation time,
//!   logical end of file, page size, the *archival index* (logical page address to address of
//!   the page's bytes in the onion file, each entry with its own checksum) and a comment.
//!
//! Parsing checks signatures, versions, checksums and that every count fits the bytes given;
//! nothing is allocated from a count before that check.

pub use crate::checksum::fletcher32;
use crate::cursor::{Cursor, Writer};
use crate::{limits, Error, ErrorKind, Result, Sizes};

/// Signature of the history header.
pub const HEADER_SIGNATURE: [u8; 4] = *b"OHDH";
/// Signature of the history.
pub const HISTORY_SIGNATURE: [u8; 4] = *b"OWHS";
/// Signature of a revision record.
pub const RECORD_SIGNATURE: [u8; 4] = *b"ORRS";
/// The version of each structure this implementation reads and writes.
pub const VERSION: u8 = 1;

/// Encoded size of the history header.
pub const HEADER_SIZE: usize = 40;
/// Encoded size of a history with no record pointers.
pub const HISTORY_FIXED_SIZE: usize = 20;
/// Encoded size of one record pointer in the history.
pub const RECORD_POINTER_SIZE: usize = 20;
/// Encoded size of a revision record with no index entries and no comment.
pub const RECORD_FIXED_SIZE: usize = 68;
/// Encoded size of one archival index entry.
pub const INDEX_ENTRY_SIZE: usize = 20;

/// Header flag: the file is open for writing (a writer crashed, or is still writing).
pub const FLAG_WRITE_LOCK: u32 = 0x1;
/// Header flag: revisions may branch from any earlier revision.
pub const FLAG_DIVERGENT_HISTORY: u32 = 0x2;
/// Header flag: history structures are aligned to pages.
pub const FLAG_PAGE_ALIGNMENT: u32 = 0x4;

fn cursor<'a>(data: &'a [u8], base: u64, structure: &'static str) -> Cursor<'a> {
    Cursor::new(data, base, Sizes::DEFAULT).in_structure(structure)
}

/// Read the 4-byte checksum at the cursor and compare it with the Fletcher-32 of `covered`.
fn verify_fletcher(c: &mut Cursor, covered: &[u8], what: &str) -> Result<()> {
    let at = c.offset();
    let stored = c.read_u32()?;
    let computed = fletcher32(covered);
    if stored != computed {
        return Err(c.error_at(
            ErrorKind::ChecksumMismatch,
            at,
            format!("{what}: stored {stored:#010x}, computed {computed:#010x}"),
        ));
    }
    Ok(())
}

/// Read signature and version (one byte, then `reserved` reserved bytes).
fn read_prefix(c: &mut Cursor, sig: &[u8; 4], reserved: usize) -> Result<()> {
    c.expect_signature(sig)?;
    let at = c.offset();
    let v = c.read_u8()?;
    if v != VERSION {
        return Err(c.error_at(
            ErrorKind::UnsupportedVersion,
            at,
            format!("version {v}, only version {VERSION} is known"),
        ));
    }
    c.skip(reserved)
}

/// The history header, at offset 0 of the onion file (`H5FD_onion_header_t`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HistoryHeader {
    /// "Flags" (24 bits): [`FLAG_WRITE_LOCK`], [`FLAG_DIVERGENT_HISTORY`],
    /// [`FLAG_PAGE_ALIGNMENT`].
    pub flags: u32,
    /// "Page Size": the size of the amended pages, a power of two.
    pub page_size: u32,
    /// "Origin EOF": the size of the original file when it was first onionized.
    pub origin_eof: u64,
    /// "History Address": where the history is in the onion file.
    pub history_addr: u64,
    /// "History Size": the history's encoded size.
    pub history_size: u64,
}

impl HistoryHeader {
    /// Parse the header from the first [`HEADER_SIZE`] bytes of the onion file.
    pub fn parse(data: &[u8]) -> Result<Self> {
        let mut c = cursor(data, 0, "onion history header");
        read_prefix(&mut c, &HEADER_SIGNATURE, 0)?;
        let f = c.read_array::<3>()?;
        let flags = u32::from_le_bytes([f[0], f[1], f[2], 0]);
        let ps_at = c.offset();
        let page_size = c.read_u32()?;
        let origin_eof = c.read_u64()?;
        let history_addr = c.read_u64()?;
        let history_size = c.read_u64()?;
        let covered = &data[..c.pos()];
        verify_fletcher(&mut c, covered, "history header")?;
        if !page_size.is_power_of_two() {
            return Err(c.error_at(
                ErrorKind::InvalidValue,
                ps_at,
                format!("page size {page_size} is not a power of two"),
            ));
        }
        Ok(HistoryHeader {
            flags,
            page_size,
            origin_eof,
            history_addr,
            history_size,
        })
    }

    /// Append the encoded header ([`HEADER_SIZE`] bytes).
    pub fn encode(&self, w: &mut Writer) {
        let start = w.len();
        w.put_bytes(&HEADER_SIGNATURE);
        w.put_u8(VERSION);
        w.put_bytes(&self.flags.to_le_bytes()[..3]);
        w.put_u32(self.page_size);
        w.put_u64(self.origin_eof);
        w.put_u64(self.history_addr);
        w.put_u64(self.history_size);
        let sum = fletcher32(&w.as_slice()[start..]);
        w.put_u32(sum);
    }
}

/// Where one revision record is in the onion file (`H5FD_onion_record_loc_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecordPointer {
    /// "Physical Address" of the revision record.
    pub phys_addr: u64,
    /// "Record Size": the record's encoded size.
    pub record_size: u64,
}

/// The history: the record pointers of every revision, in order of creation
/// (`H5FD_onion_history_t`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct History {
    /// One pointer per revision.
    pub records: Vec<RecordPointer>,
}

impl History {
    /// The encoded size of a history with `n` revisions.
    pub fn encoded_size(n: usize) -> usize {
        HISTORY_FIXED_SIZE + RECORD_POINTER_SIZE * n
    }

    /// Parse a history occupying exactly `data`, which starts at onion file offset `base`.
    /// Each record pointer's own checksum is verified too.
    pub fn parse(data: &[u8], base: u64) -> Result<Self> {
        let mut c = cursor(data, base, "onion history");
        read_prefix(&mut c, &HISTORY_SIGNATURE, 3)?;
        let n_at = c.offset();
        let n = c.read_u64()?;
        let avail = c.remaining().saturating_sub(4) as u64;
        let n = limits::check_count(n, RECORD_POINTER_SIZE as u64, avail, u64::MAX)
            .map_err(|m| c.error_at(ErrorKind::LimitExceeded, n_at, format!("revisions: {m}")))?;
        let mut records = Vec::with_capacity(n);
        for i in 0..n {
            let start = c.pos();
            let phys_addr = c.read_u64()?;
            let record_size = c.read_u64()?;
            let covered = &data[start..c.pos()];
            verify_fletcher(&mut c, covered, &format!("record pointer {i}"))?;
            records.push(RecordPointer {
                phys_addr,
                record_size,
            });
        }
        let covered = &data[..c.pos()];
        verify_fletcher(&mut c, covered, "history")?;
        if !c.is_empty() {
            return Err(c.error(
                ErrorKind::InvalidValue,
                format!(
                    "history of {n} revisions is {} bytes, the header says {}",
                    c.pos(),
                    data.len()
                ),
            ));
        }
        Ok(History { records })
    }

    /// Append the encoded history.
    pub fn encode(&self, w: &mut Writer) {
        let start = w.len();
        w.put_bytes(&HISTORY_SIGNATURE);
        w.put_u32(u32::from(VERSION));
        w.put_u64(self.records.len() as u64);
        for r in &self.records {
            let s = w.len();
            w.put_u64(r.phys_addr);
            w.put_u64(r.record_size);
            let sum = fletcher32(&w.as_slice()[s..]);
            w.put_u32(sum);
        }
        let sum = fletcher32(&w.as_slice()[start..]);
        w.put_u32(sum);
    }
}

/// One entry of a revision's archival index: a page of the logical file stored in the onion
/// file (`H5FD_onion_index_entry_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IndexEntry {
    /// The page number in the logical file (stored as its address, a multiple of the page
    /// size).
    pub logical_page: u64,
    /// "Physical Address" of the page's bytes in the onion file.
    pub phys_addr: u64,
}

/// A revision record (`H5FD_onion_revision_record_t`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RevisionRecord {
    /// "Revision Number" (the first revision is 0).
    pub revision_num: u64,
    /// "Parent Revision Number".
    pub parent_revision_num: u64,
    /// "Time of Creation": `YYYYMMDDThhmmssZ`, NUL-padded to 16 bytes.
    pub time_of_creation: [u8; 16],
    /// "Logical EOF": the size of the file as this revision presents it.
    pub logical_eof: u64,
    /// "Page Size" of the archival index, a power of two.
    pub page_size: u32,
    /// The archival index, sorted by logical page, without duplicates.
    pub entries: Vec<IndexEntry>,
    /// "Comment" as stored (normally NUL-terminated).
    pub comment: Vec<u8>,
}

impl RevisionRecord {
    /// The encoded size of this record.
    pub fn encoded_size(&self) -> usize {
        RECORD_FIXED_SIZE + INDEX_ENTRY_SIZE * self.entries.len() + self.comment.len()
    }

    /// Parse a revision record occupying exactly `data`, which starts at onion file offset
    /// `base`.
    pub fn parse(data: &[u8], base: u64) -> Result<Self> {
        let mut c = cursor(data, base, "onion revision record");
        read_prefix(&mut c, &RECORD_SIGNATURE, 3)?;
        let revision_num = c.read_u64()?;
        let parent_revision_num = c.read_u64()?;
        let time_of_creation = c.read_array::<16>()?;
        let logical_eof = c.read_u64()?;
        let ps_at = c.offset();
        let page_size = c.read_u32()?;
        if !page_size.is_power_of_two() {
            return Err(c.error_at(
                ErrorKind::InvalidValue,
                ps_at,
                format!("page size {page_size} is not a power of two"),
            ));
        }
        let shift = page_size.trailing_zeros();
        let n_at = c.offset();
        let n = c.read_u64()?;
        let comment_size = u64::from(c.read_u32()?);
        let avail = (c.remaining().saturating_sub(4) as u64).saturating_sub(comment_size);
        let n = limits::check_count(n, INDEX_ENTRY_SIZE as u64, avail, u64::MAX).map_err(|m| {
            c.error_at(
                ErrorKind::LimitExceeded,
                n_at,
                format!("archival index entries: {m}"),
            )
        })?;
        let mut entries: Vec<IndexEntry> = Vec::with_capacity(n);
        for i in 0..n {
            let start = c.pos();
            let at = c.offset();
            let logical_addr = c.read_u64()?;
            let phys_addr = c.read_u64()?;
            let covered = &data[start..c.pos()];
            verify_fletcher(&mut c, covered, &format!("archival index entry {i}"))?;
            if logical_addr & (u64::from(page_size) - 1) != 0 {
                return Err(c.error_at(
                    ErrorKind::InvalidValue,
                    at,
                    format!(
                        "archival index entry {i}: logical address {logical_addr:#x} is not a \
                         multiple of the page size {page_size}"
                    ),
                ));
            }
            let logical_page = logical_addr >> shift;
            if entries
                .last()
                .is_some_and(|p| p.logical_page >= logical_page)
            {
                return Err(c.error_at(
                    ErrorKind::InvalidValue,
                    at,
                    format!(
                        "archival index entry {i}: logical address {logical_addr:#x} is not \
                         after the previous entry's"
                    ),
                ));
            }
            entries.push(IndexEntry {
                logical_page,
                phys_addr,
            });
        }
        // The available-bytes check above bounds the comment too.
        let comment = c.read_bytes(comment_size as usize)?.to_vec();
        let covered = &data[..c.pos()];
        verify_fletcher(&mut c, covered, "revision record")?;
        if !c.is_empty() {
            return Err(c.error(
                ErrorKind::InvalidValue,
                format!(
                    "revision record is {} bytes, the history says {}",
                    c.pos(),
                    data.len()
                ),
            ));
        }
        Ok(RevisionRecord {
            revision_num,
            parent_revision_num,
            time_of_creation,
            logical_eof,
            page_size,
            entries,
            comment,
        })
    }

    /// Append the encoded record ([`Self::encoded_size`] bytes). Entries are written as given
    /// (they should be sorted by logical page).
    pub fn encode(&self, w: &mut Writer) {
        let start = w.len();
        let shift = self.page_size.trailing_zeros();
        w.put_bytes(&RECORD_SIGNATURE);
        w.put_u32(u32::from(VERSION));
        w.put_u64(self.revision_num);
        w.put_u64(self.parent_revision_num);
        w.put_bytes(&self.time_of_creation);
        w.put_u64(self.logical_eof);
        w.put_u32(self.page_size);
        w.put_u64(self.entries.len() as u64);
        w.put_u32(self.comment.len() as u32);
        for e in &self.entries {
            let s = w.len();
            w.put_u64(e.logical_page << shift);
            w.put_u64(e.phys_addr);
            let sum = fletcher32(&w.as_slice()[s..]);
            w.put_u32(sum);
        }
        w.put_bytes(&self.comment);
        let sum = fletcher32(&w.as_slice()[start..]);
        w.put_u32(sum);
    }

    /// The archival index entry of logical page `page`, if the revision amended it.
    pub fn find_page(&self, page: u64) -> Option<&IndexEntry> {
        self.entries
            .binary_search_by_key(&page, |e| e.logical_page)
            .ok()
            .and_then(|i| self.entries.get(i))
    }
}

/// Check that `size` bytes at `addr` lie inside an onion file of `file_len` bytes and are
/// small enough to read at once; the size as `usize`.
pub fn check_extent(structure: &'static str, addr: u64, size: u64, file_len: u64) -> Result<usize> {
    let end = addr.checked_add(size);
    if end.is_none_or(|e| e > file_len) {
        return Err(Error::new(
            ErrorKind::BadAddress,
            structure,
            addr,
            format!("{size} bytes extend past the end of the onion file ({file_len:#x})"),
        ));
    }
    if size > limits::MAX_METADATA_BLOCK {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            structure,
            addr,
            format!(
                "{size} bytes exceed the limit {}",
                limits::MAX_METADATA_BLOCK
            ),
        ));
    }
    usize::try_from(size).map_err(|_| {
        Error::new(
            ErrorKind::LimitExceeded,
            structure,
            addr,
            format!("{size} bytes do not fit in memory"),
        )
    })
}

#[cfg(test)]
#[path = "onion/tests.rs"]
mod tests;
