//! The bytes of an open HDF5 file as its addresses see them.
//!
//! Every address in a file is relative to the superblock's base address (the user block, if
//! any, comes before it). [`RawFile`] turns addresses into positioned reads of the
//! [`Storage`], checks them against the end of the file first, and knows the
//! superblock's field sizes, so the layers above never deal with absolute positions.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use h5_format::{Addr, Cursor, Sizes};

use h5_format::storage::{Fetch, Storage};

/// An error reading the file's bytes: the address range and what went wrong.
#[derive(Debug)]
pub struct RawError {
    /// The address (relative to the base) of the read.
    pub addr: u64,
    /// The number of bytes asked for.
    pub len: u64,
    /// What went wrong.
    pub message: String,
}

impl std::fmt::Display for RawError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "reading {} bytes at {:#x}: {}",
            self.len, self.addr, self.message
        )
    }
}

impl std::error::Error for RawError {}

/// An open file's bytes, addressed as the file's structures address them. Cheap to clone and
/// safe to share between threads: reads are positioned, with no lock.
#[derive(Clone, Debug)]
pub struct RawFile {
    source: Arc<dyn Storage>,
    base: u64,
    sizes: Sizes,
    len: u64,
    path: Option<PathBuf>,
}

impl RawFile {
    /// Bytes of `source`; addresses are relative to absolute position `base`.
    pub fn new(
        source: Arc<dyn Storage>,
        base: u64,
        sizes: Sizes,
        path: Option<PathBuf>,
    ) -> std::io::Result<Self> {
        let len = source.len()?;
        Ok(RawFile {
            source,
            base,
            sizes,
            len,
            path,
        })
    }

    /// The superblock's size of offsets and size of lengths.
    pub fn sizes(&self) -> Sizes {
        self.sizes
    }

    /// The base address: the absolute position of address 0.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The highest address plus one that exists in the source (the source's length minus the
    /// base).
    pub fn end(&self) -> u64 {
        self.len.saturating_sub(self.base)
    }

    /// The path the file was opened from, if any (external storage and external links are
    /// resolved relative to it).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The storage.
    pub fn source(&self) -> &Arc<dyn Storage> {
        &self.source
    }

    fn check(&self, addr: Addr, len: u64) -> Result<u64, RawError> {
        let a = addr.get().ok_or_else(|| RawError {
            addr: addr.0,
            len,
            message: "the address is undefined".into(),
        })?;
        let end = a.checked_add(len);
        if end.is_none_or(|e| e > self.end()) {
            return Err(RawError {
                addr: a,
                len,
                message: format!(
                    "the range extends past the end of the file ({:#x})",
                    self.end()
                ),
            });
        }
        Ok(self.base + a)
    }

    /// Fill `buf` from address `addr`.
    pub fn read_into(&self, addr: Addr, buf: &mut [u8]) -> Result<(), RawError> {
        let pos = self.check(addr, buf.len() as u64)?;
        self.source.read_exact_at(pos, buf).map_err(|e| RawError {
            addr: addr.0,
            len: buf.len() as u64,
            message: e.to_string(),
        })
    }

    /// Read `len` bytes at `addr` into a new vector. The range is checked against the end of
    /// the file before anything is allocated.
    pub fn read(&self, addr: Addr, len: u64) -> Result<Vec<u8>, RawError> {
        self.check(addr, len)?;
        let n = usize::try_from(len).map_err(|_| RawError {
            addr: addr.0,
            len,
            message: "too large for memory".into(),
        })?;
        let mut v = vec![0u8; n];
        self.read_into(addr, &mut v)?;
        Ok(v)
    }

    /// Read each `(addr, len)` request with one batched read of the storage
    /// ([`Storage::read_ranges`]: an object store merges and fetches them concurrently).
    /// One result per request, in order: a request outside the file fails alone, as
    /// [`RawFile::read`] would; a failure of the batch fails every request in it.
    pub fn read_batch(&self, requests: &[(Addr, u64)]) -> Vec<Result<Vec<u8>, RawError>> {
        self.read_batch_with(requests, Vec::new)
    }

    /// [`RawFile::read_batch`] into buffers from `buffer` (one per request inside the file,
    /// of any length and contents), which a storage that reads range by range fills in place
    /// ([`Storage::read_ranges_into`]): a caller reading batch after batch hands back the
    /// buffers of the last one.
    pub fn read_batch_with(
        &self,
        requests: &[(Addr, u64)],
        mut buffer: impl FnMut() -> Vec<u8>,
    ) -> Vec<Result<Vec<u8>, RawError>> {
        let mut out: Vec<Result<Vec<u8>, RawError>> = Vec::with_capacity(requests.len());
        let mut ranges = Vec::new();
        for &(addr, len) in requests {
            match self.check(addr, len).and_then(|pos| {
                usize::try_from(len).map(|_| pos).map_err(|_| RawError {
                    addr: addr.0,
                    len,
                    message: "too large for memory".into(),
                })
            }) {
                Ok(pos) => {
                    ranges.push(pos..pos + len);
                    out.push(Ok(Vec::new()));
                }
                Err(e) => out.push(Err(e)),
            }
        }
        if ranges.is_empty() {
            return out;
        }
        let mut bufs: Vec<Vec<u8>> = ranges.iter().map(|_| buffer()).collect();
        match self.source.read_ranges_into(&ranges, &mut bufs) {
            Ok(()) => {
                let mut bufs = bufs.into_iter();
                for slot in out.iter_mut().filter(|r| r.is_ok()) {
                    if let Some(b) = bufs.next() {
                        *slot = Ok(b);
                    }
                }
            }
            Err(e) => {
                let message = e.to_string();
                for (slot, &(addr, len)) in out.iter_mut().zip(requests) {
                    if slot.is_ok() {
                        *slot = Err(RawError {
                            addr: addr.0,
                            len,
                            message: message.clone(),
                        });
                    }
                }
            }
        }
        out
    }

    /// Read up to `max` bytes at `addr`, fewer where the file ends first: for structures whose
    /// length is only known after parsing their start.
    pub fn read_up_to(&self, addr: Addr, max: u64) -> Result<Vec<u8>, RawError> {
        let a = addr.get().ok_or_else(|| RawError {
            addr: addr.0,
            len: max,
            message: "the address is undefined".into(),
        })?;
        let avail = self.end().saturating_sub(a);
        if avail == 0 {
            return Err(RawError {
                addr: a,
                len: max,
                message: format!(
                    "the address is at or past the end of the file ({:#x})",
                    self.end()
                ),
            });
        }
        self.read(addr, max.min(avail))
    }

    /// A cursor over bytes read from `addr`, reporting absolute offsets as file addresses.
    pub fn cursor<'a>(&self, bytes: &'a [u8], addr: Addr) -> Cursor<'a> {
        Cursor::new(bytes, addr.0, self.sizes)
    }
}

/// The navigators of h5-format ([`h5_format::btree::v2::Tree`],
/// [`h5_format::heap::fractal::FractalHeapHeader::locate`]) read the file through this.
impl Fetch for RawFile {
    type Error = crate::Error;

    fn sizes(&self) -> Sizes {
        self.sizes
    }

    fn fetch(
        &self,
        _structure: &'static str,
        addr: Addr,
        len: u64,
    ) -> crate::Result<Cow<'_, [u8]>> {
        Ok(Cow::Owned(self.read(addr, len)?))
    }

    fn fetch_up_to(
        &self,
        _structure: &'static str,
        addr: Addr,
        max: u64,
    ) -> crate::Result<Cow<'_, [u8]>> {
        Ok(Cow::Owned(self.read_up_to(addr, max)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use h5_format::storage::MemStorage as MemSource;

    #[test]
    fn addresses_are_relative_to_the_base_and_checked() {
        let src: Arc<dyn Storage> = Arc::new(MemSource::new((0u8..32).collect::<Vec<_>>()));
        let f = RawFile::new(src, 8, Sizes::DEFAULT, None).unwrap();
        assert_eq!(f.end(), 24);
        assert_eq!(f.read(Addr(0), 2).unwrap(), vec![8, 9]);
        assert!(f.read(Addr(23), 2).is_err());
        assert!(f.read(Addr::UNDEF, 1).is_err());
        assert!(f.read(Addr(0), u64::MAX).is_err());
        assert_eq!(f.read_up_to(Addr(20), 100).unwrap(), vec![28, 29, 30, 31]);
        let b = f.read_batch(&[(Addr(0), 2), (Addr(23), 2), (Addr(22), 2)]);
        assert_eq!(b[0].as_ref().unwrap(), &vec![8, 9]);
        assert!(b[1].as_ref().unwrap_err().message.contains("past the end"));
        assert_eq!(b[2].as_ref().unwrap(), &vec![30, 31]);
    }
}
