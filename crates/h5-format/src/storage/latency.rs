//! Adds the cost of a remote store to any storage, as a model: each request a round trip,
//! each byte a share of a bandwidth. Tests read the modelled time ([`LatencyStorage::elapsed`])
//! and assert on it exactly, with no clock involved; benchmarks can have the wrapper also
//! sleep for that time ([`LatencyStorage::sleeping`]) to feel an object store's latency on
//! a local file.
//!
//! A batch ([`Storage::read_ranges`]) costs one round trip for all of its ranges, as a
//! client that sends them concurrently pays (the object-store storage does), plus its bytes'
//! transfer time; every positioned read costs a round trip of its own.

use std::io;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::{Storage, WritableStorage};

/// A storage with a modelled latency and bandwidth.
#[derive(Debug)]
pub struct LatencyStorage<S> {
    inner: S,
    round_trip: Duration,
    /// Bytes per second; 0 for no transfer cost.
    bandwidth: u64,
    sleep: bool,
    nanos: AtomicU64,
    round_trips: AtomicU64,
}

impl<S> LatencyStorage<S> {
    /// `inner` with `round_trip` per request and no transfer cost.
    pub fn new(inner: S, round_trip: Duration) -> Self {
        LatencyStorage {
            inner,
            round_trip,
            bandwidth: 0,
            sleep: false,
            nanos: AtomicU64::new(0),
            round_trips: AtomicU64::new(0),
        }
    }

    /// Bytes move at `bytes_per_second` (0: instantly).
    pub fn with_bandwidth(mut self, bytes_per_second: u64) -> Self {
        self.bandwidth = bytes_per_second;
        self
    }

    /// Also sleep for each request's modelled time (for benchmarks; tests should read
    /// [`LatencyStorage::elapsed`] instead).
    pub fn sleeping(mut self, sleep: bool) -> Self {
        self.sleep = sleep;
        self
    }

    /// The modelled time of every request so far.
    pub fn elapsed(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::Relaxed))
    }

    /// The round trips so far (one per positioned read, one per batch).
    pub fn round_trips(&self) -> u64 {
        self.round_trips.load(Ordering::Relaxed)
    }

    /// Start the model's clock and count again from zero.
    pub fn reset(&self) {
        self.nanos.store(0, Ordering::Relaxed);
        self.round_trips.store(0, Ordering::Relaxed);
    }

    /// The inner storage.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// The modelled time of one round trip moving `bytes`.
    pub fn cost(&self, bytes: u64) -> Duration {
        let transfer = if self.bandwidth == 0 {
            0
        } else {
            (u128::from(bytes) * 1_000_000_000 / u128::from(self.bandwidth)) as u64
        };
        self.round_trip + Duration::from_nanos(transfer)
    }

    fn charge(&self, bytes: u64) {
        let d = self.cost(bytes);
        self.round_trips.fetch_add(1, Ordering::Relaxed);
        self.nanos.fetch_add(
            u64::try_from(d.as_nanos()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
        if self.sleep {
            std::thread::sleep(d);
        }
    }
}

impl<S: Storage> Storage for LatencyStorage<S> {
    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }

    fn read_exact_at(&self, pos: u64, buf: &mut [u8]) -> io::Result<()> {
        self.charge(buf.len() as u64);
        self.inner.read_exact_at(pos, buf)
    }

    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Vec<u8>>> {
        if !ranges.is_empty() {
            self.charge(ranges.iter().map(|r| r.end.saturating_sub(r.start)).sum());
        }
        self.inner.read_ranges(ranges)
    }

    fn is_local(&self) -> bool {
        // The point of the wrapper is to behave as a remote store (block cache included).
        false
    }
}

impl<S: WritableStorage> WritableStorage for LatencyStorage<S> {
    fn write_all_at(&self, pos: u64, bytes: &[u8]) -> io::Result<()> {
        self.charge(bytes.len() as u64);
        self.inner.write_all_at(pos, bytes)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.charge(0);
        self.inner.set_len(len)
    }

    fn sync_data(&self) -> io::Result<()> {
        self.inner.sync_data()
    }
}
