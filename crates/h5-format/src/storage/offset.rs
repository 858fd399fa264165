//! A window of another storage starting `base` bytes in: the HDF5 data after a user block.

use std::io;
use std::ops::Range;

use super::{Storage, WritableStorage};

/// Position `p` of this storage is position `base + p` of the inner one.
#[derive(Debug)]
pub struct OffsetStorage<S> {
    inner: S,
    base: u64,
}

impl<S> OffsetStorage<S> {
    /// The bytes of `inner` from `base` on.
    pub fn new(inner: S, base: u64) -> Self {
        OffsetStorage { inner, base }
    }

    /// The offset of position 0 in the inner storage.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The inner storage.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    fn at(&self, pos: u64) -> io::Result<u64> {
        pos.checked_add(self.base).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "position past the address space",
            )
        })
    }
}

impl<S: Storage> Storage for OffsetStorage<S> {
    fn len(&self) -> io::Result<u64> {
        Ok(self.inner.len()?.saturating_sub(self.base))
    }

    fn read_exact_at(&self, pos: u64, buf: &mut [u8]) -> io::Result<()> {
        self.inner.read_exact_at(self.at(pos)?, buf)
    }

    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Vec<u8>>> {
        let shifted = ranges
            .iter()
            .map(|r| Ok(self.at(r.start)?..self.at(r.end)?))
            .collect::<io::Result<Vec<_>>>()?;
        self.inner.read_ranges(&shifted)
    }

    fn is_local(&self) -> bool {
        self.inner.is_local()
    }
}

impl<S: WritableStorage> WritableStorage for OffsetStorage<S> {
    fn write_all_at(&self, pos: u64, bytes: &[u8]) -> io::Result<()> {
        self.inner.write_all_at(self.at(pos)?, bytes)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.inner.set_len(self.at(len)?)
    }

    fn sync_data(&self) -> io::Result<()> {
        self.inner.sync_data()
    }
}
