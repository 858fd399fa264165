//! Fault injection for tests: a storage that fails from the N-th modifying call on, as a full
//! disk or a lost device would.

use std::io;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Storage, WritableStorage};

/// Fails the `fail_at`-th modifying call (writes and length changes, counted from 1) and
/// every later one, without performing it: what the inner storage holds afterwards is
/// exactly the prefix of writes that succeeded. Reads pass through.
#[derive(Debug)]
pub struct FaultyStorage<S> {
    inner: S,
    fail_at: u64,
    done: AtomicU64,
}

impl<S> FaultyStorage<S> {
    /// Fail from the `fail_at`-th modifying call on.
    pub fn new(inner: S, fail_at: u64) -> Self {
        FaultyStorage {
            inner,
            fail_at,
            done: AtomicU64::new(0),
        }
    }

    /// Modifying calls made so far (failed ones included).
    pub fn calls(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    fn step(&self) -> io::Result<()> {
        let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if n >= self.fail_at {
            return Err(io::Error::other(format!("injected fault at write {n}")));
        }
        Ok(())
    }
}

impl<S: Storage> Storage for FaultyStorage<S> {
    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }

    fn read_exact_at(&self, pos: u64, buf: &mut [u8]) -> io::Result<()> {
        self.inner.read_exact_at(pos, buf)
    }

    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Vec<u8>>> {
        self.inner.read_ranges(ranges)
    }

    fn is_local(&self) -> bool {
        self.inner.is_local()
    }
}

impl<S: WritableStorage> WritableStorage for FaultyStorage<S> {
    fn write_all_at(&self, pos: u64, bytes: &[u8]) -> io::Result<()> {
        self.step()?;
        self.inner.write_all_at(pos, bytes)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.step()?;
        self.inner.set_len(len)
    }

    fn sync_data(&self) -> io::Result<()> {
        self.inner.sync_data()
    }
}
