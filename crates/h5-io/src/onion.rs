//! Files written with HDF5 2.x's onion driver: an original HDF5 file `NAME` and its revision
//! history `NAME.onion` (see [`h5_format::onion`]).
//!
//! Revision 0 is the original file. Revision `r` (1 ..= the number of revisions) is the file
//! as the revision record with revision number `r - 1` describes it: its logical end of file,
//! and for every page its archival index lists, the page's bytes from the onion file; every
//! other byte comes from the original file (zeros past the original's size). [`OnionSource`]
//! presents one revision as a [`Storage`], so a [`crate::File`] opens it like any file
//! ([`crate::File::open_onion`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use h5_format::onion::{
    check_extent, History, HistoryHeader, IndexEntry, RevisionRecord, FLAG_WRITE_LOCK, HEADER_SIZE,
};

use crate::error::{bail, ensure, Error, ErrorKind, Result};
use h5_format::storage::{FsResolver, Resolver, Storage};

/// The revision number that selects the most recent revision
/// (`H5FD_ONION_FAPL_INFO_REVISION_ID_LATEST`).
pub const LATEST_REVISION: u64 = u64::MAX;

/// The name of the onion file of the HDF5 file at `path`: `path` with `.onion` appended.
pub fn onion_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(".onion");
    PathBuf::from(s)
}

/// The history header and the history of an onion file.
#[derive(Clone, Debug)]
pub struct OnionHistory {
    header: HistoryHeader,
    history: History,
    onion_len: u64,
}

impl OnionHistory {
    /// Read and check the history header and the history of an onion file.
    pub fn read(onion: &dyn Storage) -> Result<Self> {
        let onion_len = onion.len()?;
        let n = check_extent("onion history header", 0, HEADER_SIZE as u64, onion_len)?;
        let header = HistoryHeader::parse(&onion.read_vec(0, n)?)?;
        let size = check_extent(
            "onion history",
            header.history_addr,
            header.history_size,
            onion_len,
        )?;
        let bytes = onion.read_vec(header.history_addr, size)?;
        let history = History::parse(&bytes, header.history_addr)?;
        Ok(OnionHistory {
            header,
            history,
            onion_len,
        })
    }

    /// The history header.
    pub fn header(&self) -> &HistoryHeader {
        &self.header
    }

    /// The history (one record pointer per revision).
    pub fn history(&self) -> &History {
        &self.history
    }

    /// The number of revisions (what `h5dump --vfd-info revision_count` prints).
    pub fn revision_count(&self) -> u64 {
        self.history.records.len() as u64
    }

    /// The revision record the `index`th record pointer points to.
    pub fn record_at(&self, onion: &dyn Storage, index: usize) -> Result<RevisionRecord> {
        let p = self.history.records.get(index).ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidArgument,
                format!("no revision record {index} in the onion history"),
            )
        })?;
        let size = check_extent(
            "onion revision record",
            p.phys_addr,
            p.record_size,
            self.onion_len,
        )?;
        let bytes = onion.read_vec(p.phys_addr, size)?;
        Ok(RevisionRecord::parse(&bytes, p.phys_addr)?)
    }

    /// The revision record with revision number `num`. Records are kept in order of their
    /// numbers, normally record `num` itself; otherwise a binary search, as the reference
    /// library does.
    pub fn record(&self, onion: &dyn Storage, num: u64) -> Result<RevisionRecord> {
        let n = self.history.records.len();
        if let Ok(i) = usize::try_from(num) {
            if i < n {
                let r = self.record_at(onion, i)?;
                if r.revision_num == num {
                    return Ok(r);
                }
            }
        }
        let (mut lo, mut hi) = (0usize, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let r = self.record_at(onion, mid)?;
            match r.revision_num.cmp(&num) {
                std::cmp::Ordering::Equal => return Ok(r),
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        bail!(
            Format,
            "the onion history has no revision record with revision number {num}"
        )
    }
}

/// One revision of an onion-driver file, as one address space.
#[derive(Debug)]
pub struct OnionSource {
    original: Arc<dyn Storage>,
    onion: Arc<dyn Storage>,
    history: OnionHistory,
    /// The selected revision (0: the original file).
    revision: u64,
    /// The revision record (none for revision 0).
    record: Option<RevisionRecord>,
    /// Bytes of the original file that show through ("Origin EOF"); zeros past them.
    origin_eof: u64,
    /// log2 of the page size.
    shift: u32,
    /// The logical file's size.
    logical_eof: u64,
    /// The end of the bytes that back the logical file (the original's bytes that show
    /// through, the last amended page): what [`Storage::len`] reports, so that a record
    /// claiming a vast logical size does not widen the reader's bounds beyond real bytes
    /// (as a truncated plain file does not).
    backed_eof: u64,
}

impl OnionSource {
    /// Revision `revision` of the file whose original bytes are `original` and whose onion
    /// file is `onion`: 0 is the original file, 1 ..= [`Self::revision_count`] a revision,
    /// [`LATEST_REVISION`] the latest one. Like the reference library, a history whose
    /// header says it is open for writing is refused.
    pub fn new(original: Arc<dyn Storage>, onion: Arc<dyn Storage>, revision: u64) -> Result<Self> {
        let history = OnionHistory::read(&*onion)?;
        let h = history.header().clone();
        ensure!(
            h.flags & FLAG_WRITE_LOCK == 0,
            Unsupported,
            "the onion file is write-locked (open for writing, or its writer did not finish)"
        );
        let count = history.revision_count();
        ensure!(
            revision <= count || revision == LATEST_REVISION,
            InvalidArgument,
            "revision {revision} is out of range: the onion file has {count} revisions"
        );
        let shift = h.page_size.trailing_zeros();
        let mut record = None;
        let logical_eof = if revision == 0 {
            original.len()?
        } else {
            ensure!(count > 0, Format, "the onion file has no revisions");
            let r = history.record(&*onion, revision.min(count) - 1)?;
            ensure!(
                r.page_size == h.page_size,
                Format,
                "revision record {} has page size {}, the history header {}",
                r.revision_num,
                r.page_size,
                h.page_size
            );
            let onion_len = onion.len()?;
            for (i, e) in r.entries.iter().enumerate() {
                let fits = e
                    .phys_addr
                    .checked_add(u64::from(h.page_size))
                    .is_some_and(|end| end <= onion_len);
                ensure!(
                    fits,
                    Format,
                    "revision record {}: page {} of archival index entry {i} at {:#x} extends \
                     past the end of the onion file ({onion_len:#x})",
                    r.revision_num,
                    e.logical_page,
                    e.phys_addr
                );
            }
            let eof = r.logical_eof;
            record = Some(r);
            eof
        };
        let last_page = record
            .as_ref()
            .and_then(|r| r.entries.last())
            .map_or(0, |e| {
                e.logical_page
                    .saturating_add(1)
                    .saturating_mul(u64::from(h.page_size))
            });
        let shown = h.origin_eof.min(original.len()?);
        let backed_eof = logical_eof.min(shown.max(last_page));
        Ok(OnionSource {
            backed_eof,
            original,
            onion,
            origin_eof: h.origin_eof,
            history,
            revision,
            record,
            shift,
            logical_eof,
        })
    }

    /// Open revision `revision` of the HDF5 file at `path` and its onion file beside it
    /// ([`onion_path`]).
    pub fn open(path: impl AsRef<Path>, revision: u64) -> Result<Self> {
        Self::open_in(&FsResolver, path.as_ref(), revision)
    }

    /// [`OnionSource::open`] with both files opened through `resolver`.
    pub fn open_in(resolver: &dyn Resolver, path: &Path, revision: u64) -> Result<Self> {
        let original = resolver.open(path).map_err(|e| {
            Error::with_source(ErrorKind::Io, format!("opening {}", path.display()), e)
        })?;
        let op = onion_path(path);
        let onion = resolver.open(&op).map_err(|e| {
            Error::with_source(ErrorKind::Io, format!("opening {}", op.display()), e)
        })?;
        Self::new(original, onion, revision).map_err(|e| e.at(op.display().to_string()))
    }

    /// The selected revision as asked ([`LATEST_REVISION`] stays as is).
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The number of revisions in the history.
    pub fn revision_count(&self) -> u64 {
        self.history.revision_count()
    }

    /// The history header and history.
    pub fn history(&self) -> &OnionHistory {
        &self.history
    }

    /// The selected revision's record (none for revision 0).
    pub fn record(&self) -> Option<&RevisionRecord> {
        self.record.as_ref()
    }

    /// The size of the logical file.
    pub fn logical_eof(&self) -> u64 {
        self.logical_eof
    }

    fn entries(&self) -> &[IndexEntry] {
        self.record.as_ref().map_or(&[], |r| &r.entries)
    }

    /// Fill `buf` from the original file at `pos`, zeros past "Origin EOF".
    fn read_original(&self, pos: u64, buf: &mut [u8]) -> std::io::Result<()> {
        let avail = self.origin_eof.saturating_sub(pos).min(buf.len() as u64) as usize;
        let (head, tail) = buf.split_at_mut(avail);
        if !head.is_empty() {
            self.original.read_exact_at(pos, head)?;
        }
        tail.fill(0);
        Ok(())
    }
}

impl Storage for OnionSource {
    fn read_exact_at(&self, mut pos: u64, mut buf: &mut [u8]) -> std::io::Result<()> {
        let end = pos.checked_add(buf.len() as u64);
        if end.is_none_or(|e| e > self.logical_eof) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!(
                    "{} bytes at {pos:#x} extend past the end of onion revision {} ({:#x})",
                    buf.len(),
                    self.revision,
                    self.logical_eof
                ),
            ));
        }
        let entries = self.entries();
        let page_size = 1u64 << self.shift;
        while !buf.is_empty() {
            let page = pos >> self.shift;
            let within = pos & (page_size - 1);
            // The first amended page at or after this one.
            let i = entries.partition_point(|e| e.logical_page < page);
            let n = match entries.get(i) {
                Some(e) if e.logical_page == page => {
                    // Amended pages stored one after the other are read at once.
                    let mut last = i;
                    while let (Some(a), Some(b)) = (entries.get(last), entries.get(last + 1)) {
                        if a.logical_page.checked_add(1) == Some(b.logical_page)
                            && a.phys_addr.checked_add(page_size) == Some(b.phys_addr)
                        {
                            last += 1;
                        } else {
                            break;
                        }
                    }
                    let run = (last - i + 1) as u64 * page_size - within;
                    let n = run.min(buf.len() as u64) as usize;
                    self.onion
                        .read_exact_at(e.phys_addr + within, &mut buf[..n])?;
                    n
                }
                next => {
                    // Original bytes up to the next amended page.
                    let run = match next {
                        Some(e) => (e.logical_page - page) * page_size - within,
                        None => u64::MAX,
                    };
                    let n = run.min(buf.len() as u64) as usize;
                    self.read_original(pos, &mut buf[..n])?;
                    n
                }
            };
            buf = &mut buf[n..];
            pos += n as u64;
        }
        Ok(())
    }

    fn len(&self) -> std::io::Result<u64> {
        Ok(self.backed_eof)
    }
}

/// The number of revisions of the onion file beside the HDF5 file at `path`, checking the
/// latest revision record as the reference library does when it opens the file for
/// `H5FDonion_get_revision_count`.
pub fn revision_count(path: impl AsRef<Path>) -> Result<u64> {
    revision_count_in(&FsResolver, path.as_ref())
}

/// [`revision_count`] with the files opened through `resolver`.
pub fn revision_count_in(resolver: &dyn Resolver, path: &Path) -> Result<u64> {
    let op = onion_path(path);
    let onion = resolver
        .open(&op)
        .map_err(|e| Error::with_source(ErrorKind::Io, format!("opening {}", op.display()), e))?;
    let history = OnionHistory::read(&*onion).map_err(|e| e.at(op.display().to_string()))?;
    if history.revision_count() > 0 {
        let original = resolver.open(path).map_err(|e| {
            Error::with_source(ErrorKind::Io, format!("opening {}", path.display()), e)
        })?;
        OnionSource::new(original, onion, LATEST_REVISION)
            .map_err(|e| e.at(op.display().to_string()))?;
    }
    Ok(history.revision_count())
}

#[cfg(test)]
mod tests {
    use super::*;
    use h5_format::onion::RecordPointer;
    use h5_format::storage::MemStorage as MemSource;
    use h5_format::{Sizes, Writer};

    /// An onion file with page size 4 over an original of 14 bytes: revision 1 amends pages
    /// 1 and 2 (stored one after the other) and page 5, past the original, with a logical
    /// size of 22.
    fn fixture(flags: u32) -> (Arc<dyn Storage>, Arc<dyn Storage>) {
        fixture_sized(flags, 22)
    }

    /// [`fixture`] with the record claiming a logical size of `logical_eof`.
    fn fixture_sized(flags: u32, logical_eof: u64) -> (Arc<dyn Storage>, Arc<dyn Storage>) {
        let original: Vec<u8> = (0u8..14).collect();
        let mut w = Writer::new(Sizes::DEFAULT);
        w.put_zeros(HEADER_SIZE);
        let pages_at = w.len() as u64;
        w.put_bytes(b"AAAABBBBCCCC");
        let rec = RevisionRecord {
            revision_num: 0,
            parent_revision_num: 0,
            time_of_creation: *b"20260101T000000Z",
            logical_eof,
            page_size: 4,
            entries: vec![
                IndexEntry {
                    logical_page: 1,
                    phys_addr: pages_at,
                },
                IndexEntry {
                    logical_page: 2,
                    phys_addr: pages_at + 4,
                },
                IndexEntry {
                    logical_page: 5,
                    phys_addr: pages_at + 8,
                },
            ],
            comment: b"test\0".to_vec(),
        };
        let rec_at = w.len() as u64;
        rec.encode(&mut w);
        let history = History {
            records: vec![RecordPointer {
                phys_addr: rec_at,
                record_size: rec.encoded_size() as u64,
            }],
        };
        let hist_at = w.len() as u64;
        history.encode(&mut w);
        let header = HistoryHeader {
            flags,
            page_size: 4,
            origin_eof: 14,
            history_addr: hist_at,
            history_size: History::encoded_size(1) as u64,
        };
        let mut hw = Writer::new(Sizes::DEFAULT);
        header.encode(&mut hw);
        let mut bytes = w.into_vec();
        bytes[..HEADER_SIZE].copy_from_slice(hw.as_slice());
        (
            Arc::new(MemSource::new(original)),
            Arc::new(MemSource::new(bytes)),
        )
    }

    fn all(s: &OnionSource) -> Vec<u8> {
        let mut b = vec![0u8; s.len().unwrap() as usize];
        s.read_exact_at(0, &mut b).unwrap();
        b
    }

    #[test]
    fn revisions_present_their_pages() {
        let (o, x) = fixture(0);
        let r0 = OnionSource::new(o.clone(), x.clone(), 0).unwrap();
        assert_eq!(all(&r0), (0u8..14).collect::<Vec<_>>());
        assert_eq!(r0.revision_count(), 1);
        assert!(r0.record().is_none());
        let want = b"\x00\x01\x02\x03AAAABBBB\x0c\x0d\0\0\0\0\0\0CC";
        for rev in [1, LATEST_REVISION] {
            let r1 = OnionSource::new(o.clone(), x.clone(), rev).unwrap();
            assert_eq!(all(&r1), want);
            // Every sub-range, read piecewise, agrees with the whole.
            for a in 0..22 {
                for b in a..=22 {
                    let mut buf = vec![0xeeu8; b - a];
                    r1.read_exact_at(a as u64, &mut buf).unwrap();
                    assert_eq!(buf, &want[a..b], "{a}..{b}");
                }
            }
            let mut one = [0u8; 1];
            assert!(r1.read_exact_at(22, &mut one).is_err());
            assert!(r1.read_exact_at(u64::MAX, &mut one).is_err());
        }
    }

    #[test]
    fn bad_revisions_and_locks_are_refused() {
        let (o, x) = fixture(0);
        let e = OnionSource::new(o.clone(), x.clone(), 2).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(e.to_string().contains("out of range"), "{e}");
        let (o, x) = fixture(FLAG_WRITE_LOCK);
        let e = OnionSource::new(o, x, 1).unwrap_err();
        assert!(e.to_string().contains("write-locked"), "{e}");
    }

    #[test]
    fn truncated_onion_files_fail_cleanly() {
        let (o, x) = fixture(0);
        let mut bytes = vec![0u8; x.len().unwrap() as usize];
        x.read_exact_at(0, &mut bytes).unwrap();
        for n in 0..bytes.len() {
            let t: Arc<dyn Storage> = Arc::new(MemSource::new(bytes[..n].to_vec()));
            assert!(OnionSource::new(o.clone(), t, 1).is_err(), "{n} bytes");
        }
    }

    #[test]
    fn a_vast_claimed_size_does_not_widen_the_bounds() {
        let (o, x) = fixture_sized(0, 1 << 40);
        let src = OnionSource::new(o, x, 1).unwrap();
        assert_eq!(src.logical_eof(), 1 << 40);
        // The reader's bounds end with the last amended page...
        assert_eq!(src.len().unwrap(), 24);
        // ...while the logical file still reads as zeros up to its claimed size.
        let mut b = [7u8; 8];
        src.read_exact_at((1 << 40) - 8, &mut b).unwrap();
        assert_eq!(b, [0; 8]);
    }
}
