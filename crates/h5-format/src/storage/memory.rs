//! Bytes in memory: shared and read-only ([`MemStorage`]) or growable and writable
//! ([`VecStorage`]).

use std::fmt;
use std::io;
use std::sync::{Arc, RwLock};

use super::{eof, read_slice, Storage, WritableStorage};

/// Shared bytes in memory, read-only; cheap to clone.
#[derive(Clone)]
pub struct MemStorage {
    data: Arc<[u8]>,
}

impl MemStorage {
    /// A storage over these bytes.
    pub fn new(data: impl Into<Arc<[u8]>>) -> Self {
        MemStorage { data: data.into() }
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }
}

impl fmt::Debug for MemStorage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MemStorage({} bytes)", self.data.len())
    }
}

impl Storage for MemStorage {
    fn len(&self) -> io::Result<u64> {
        Ok(self.data.len() as u64)
    }

    fn read_exact_at(&self, pos: u64, buf: &mut [u8]) -> io::Result<()> {
        read_slice(&self.data, pos, buf)
    }
}

/// Growable bytes in memory behind a lock, readable and writable: a file built in memory.
#[derive(Default)]
pub struct VecStorage {
    data: RwLock<Vec<u8>>,
}

impl VecStorage {
    /// A storage holding `data`.
    pub fn new(data: Vec<u8>) -> Self {
        VecStorage {
            data: RwLock::new(data),
        }
    }

    /// A copy of the bytes.
    pub fn to_vec(&self) -> Vec<u8> {
        self.data.read().map(|d| d.clone()).unwrap_or_default()
    }

    fn poisoned() -> io::Error {
        io::Error::other("the in-memory storage's lock is poisoned")
    }
}

impl fmt::Debug for VecStorage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.data.read().map(|d| d.len()).unwrap_or(0);
        write!(f, "VecStorage({n} bytes)")
    }
}

impl Storage for VecStorage {
    fn len(&self) -> io::Result<u64> {
        Ok(self.data.read().map_err(|_| Self::poisoned())?.len() as u64)
    }

    fn read_exact_at(&self, pos: u64, buf: &mut [u8]) -> io::Result<()> {
        let d = self.data.read().map_err(|_| Self::poisoned())?;
        read_slice(&d, pos, buf)
    }
}

impl WritableStorage for VecStorage {
    fn write_all_at(&self, pos: u64, bytes: &[u8]) -> io::Result<()> {
        let mut d = self.data.write().map_err(|_| Self::poisoned())?;
        let start = usize::try_from(pos).map_err(|_| eof(pos, bytes.len(), d.len() as u64))?;
        let end = start
            .checked_add(bytes.len())
            .ok_or_else(|| eof(pos, bytes.len(), d.len() as u64))?;
        if d.len() < end {
            d.resize(end, 0);
        }
        d[start..end].copy_from_slice(bytes);
        Ok(())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let n = usize::try_from(len)
            .map_err(|_| io::Error::new(io::ErrorKind::OutOfMemory, "length too large"))?;
        self.data
            .write()
            .map_err(|_| Self::poisoned())?
            .resize(n, 0);
        Ok(())
    }

    fn sync_data(&self) -> io::Result<()> {
        Ok(())
    }
}
