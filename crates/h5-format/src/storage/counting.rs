//! Counts the requests and bytes that reach a storage: regression tests on the number of
//! reads an operation costs, and `--stats`.

use std::io;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Storage, WritableStorage};

/// What a [`CountingStorage`] has seen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Read requests: each positioned read, and each range of a batch.
    pub reads: u64,
    /// Batches ([`Storage::read_ranges`] calls).
    pub batches: u64,
    /// Bytes read.
    pub bytes: u64,
    /// Write requests (writes and length changes).
    pub writes: u64,
    /// Bytes written.
    pub bytes_written: u64,
}

/// Passes every call to the inner storage and counts it.
#[derive(Debug, Default)]
pub struct CountingStorage<S> {
    inner: S,
    reads: AtomicU64,
    batches: AtomicU64,
    bytes: AtomicU64,
    writes: AtomicU64,
    bytes_written: AtomicU64,
}

impl<S> CountingStorage<S> {
    /// Count the calls reaching `inner`.
    pub fn new(inner: S) -> Self {
        CountingStorage {
            inner,
            reads: AtomicU64::new(0),
            batches: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            bytes_written: AtomicU64::new(0),
        }
    }

    /// The counts so far.
    pub fn counts(&self) -> Counts {
        Counts {
            reads: self.reads.load(Ordering::Relaxed),
            batches: self.batches.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
            bytes_written: self.bytes_written.load(Ordering::Relaxed),
        }
    }

    /// Start counting again from zero.
    pub fn reset(&self) {
        for c in [
            &self.reads,
            &self.batches,
            &self.bytes,
            &self.writes,
            &self.bytes_written,
        ] {
            c.store(0, Ordering::Relaxed);
        }
    }

    /// The inner storage.
    pub fn inner(&self) -> &S {
        &self.inner
    }
}

impl<S: Storage> Storage for CountingStorage<S> {
    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }

    fn read_exact_at(&self, pos: u64, buf: &mut [u8]) -> io::Result<()> {
        self.reads.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(buf.len() as u64, Ordering::Relaxed);
        self.inner.read_exact_at(pos, buf)
    }

    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Vec<u8>>> {
        self.batches.fetch_add(1, Ordering::Relaxed);
        self.reads.fetch_add(ranges.len() as u64, Ordering::Relaxed);
        let n: u64 = ranges.iter().map(|r| r.end.saturating_sub(r.start)).sum();
        self.bytes.fetch_add(n, Ordering::Relaxed);
        self.inner.read_ranges(ranges)
    }

    fn is_local(&self) -> bool {
        self.inner.is_local()
    }
}

impl<S: WritableStorage> WritableStorage for CountingStorage<S> {
    fn write_all_at(&self, pos: u64, bytes: &[u8]) -> io::Result<()> {
        self.writes.fetch_add(1, Ordering::Relaxed);
        self.bytes_written
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        self.inner.write_all_at(pos, bytes)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.writes.fetch_add(1, Ordering::Relaxed);
        self.inner.set_len(len)
    }

    fn sync_data(&self) -> io::Result<()> {
        self.inner.sync_data()
    }
}
