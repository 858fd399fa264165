//! The writer's file I/O: positioned reads and writes, the file's length, and a
//! fault-injecting wrapper for tests (fail the N-th write and every one after it, as a full
//! disk or a lost device would).

use std::fmt;
use std::fs;
use std::io::{self, Read, Seek, SeekFrom, Write};

/// What the writer needs of a file. Every write is one `write_at`; a flush orders them so
/// that each prefix of its writes leaves a readable file (see `FileWriter::flush`).
pub(crate) trait WriteIo: fmt::Debug + Send {
    /// Write all of `bytes` at `offset` (extending the file when past its end).
    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()>;
    /// Fill `buf` from `offset`; the caller keeps the range inside the file.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()>;
    /// The file's length.
    fn len(&self) -> io::Result<u64>;
    /// Set the file's length (the writer only ever extends it).
    fn set_len(&mut self, len: u64) -> io::Result<()>;
    /// Hand buffered writes to the operating system.
    fn flush(&mut self) -> io::Result<()>;
}

/// A plain file.
#[derive(Debug)]
pub(crate) struct FsIo(pub(crate) fs::File);

impl WriteIo for FsIo {
    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        self.0.seek(SeekFrom::Start(offset))?;
        self.0.write_all(bytes)
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let mut f = &self.0;
        f.seek(SeekFrom::Start(offset))?;
        f.read_exact(buf)
    }

    fn len(&self) -> io::Result<u64> {
        Ok(self.0.metadata()?.len())
    }

    fn set_len(&mut self, len: u64) -> io::Result<()> {
        self.0.set_len(len)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// A file whose HDF5 data starts `base` bytes in (after a user block): every offset is
/// relative to `base`.
#[derive(Debug)]
pub(crate) struct OffsetIo {
    pub(crate) inner: FsIo,
    pub(crate) base: u64,
}

impl WriteIo for OffsetIo {
    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        self.inner.write_at(self.base + offset, bytes)
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.inner.read_at(self.base + offset, buf)
    }

    fn len(&self) -> io::Result<u64> {
        Ok(self.inner.len()?.saturating_sub(self.base))
    }

    fn set_len(&mut self, len: u64) -> io::Result<()> {
        self.inner.set_len(self.base + len)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Fails the `fail_at`-th modifying call (writes and length changes, counted from 1) and
/// every later one, without performing it: what is on disk afterwards is exactly the
/// prefix of writes that succeeded.
#[cfg(test)]
#[derive(Debug)]
pub(crate) struct FaultyIo {
    pub(crate) inner: Box<dyn WriteIo>,
    pub(crate) fail_at: u64,
    pub(crate) done: u64,
}

#[cfg(test)]
impl FaultyIo {
    fn step(&mut self) -> io::Result<()> {
        self.done += 1;
        if self.done >= self.fail_at {
            return Err(io::Error::other(format!(
                "injected fault at write {}",
                self.done
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
impl WriteIo for FaultyIo {
    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        self.step()?;
        self.inner.write_at(offset, bytes)
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.inner.read_at(offset, buf)
    }

    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }

    fn set_len(&mut self, len: u64) -> io::Result<()> {
        self.step()?;
        self.inner.set_len(len)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
