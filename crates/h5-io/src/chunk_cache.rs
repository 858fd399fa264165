//! The per-dataset cache of decoded chunks, bounded like the reference library's default
//! raw-data chunk cache (1 MiB, 521 slots): a chunk that a read decoded but only partly
//! used stays here for the next read nearby (a sequence of hyperslabs through the same
//! chunks decompresses each once). Chunks larger than the budget are never kept.
//!
//! It is the only cache of raw data a [`crate::Dataset`] keeps (with the chunk index it
//! opens once); [`ChunkCache::invalidate`] drops every entry, for when the file may have
//! changed under the dataset (a refresh).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The byte budget (the reference library's `H5D_CHUNK_CACHE_NBYTES_DEFAULT`).
pub(crate) const CACHE_BYTES: usize = 1 << 20;
/// The entry budget (its `H5D_CHUNK_CACHE_NSLOTS_DEFAULT`).
pub(crate) const CACHE_SLOTS: usize = 521;

/// A chunk as stored: its address and the filters it skipped.
pub(crate) type ChunkKey = (u64, u32);

#[derive(Debug, Default)]
struct Entries {
    map: HashMap<ChunkKey, (Arc<Vec<u8>>, u64)>,
    bytes: usize,
    clock: u64,
}

/// Decoded chunks, least recently used evicted first.
#[derive(Debug, Default)]
pub(crate) struct ChunkCache {
    entries: Mutex<Entries>,
}

impl ChunkCache {
    /// The decoded chunk stored under `key`, if kept.
    pub(crate) fn get(&self, key: ChunkKey) -> Option<Arc<Vec<u8>>> {
        let mut e = self.entries.lock().ok()?;
        e.clock += 1;
        let now = e.clock;
        let (data, used) = e.map.get_mut(&key)?;
        *used = now;
        Some(data.clone())
    }

    /// Keep a decoded chunk (unless it alone exceeds the budget), evicting the least
    /// recently used entries to stay within [`CACHE_BYTES`] and [`CACHE_SLOTS`].
    pub(crate) fn insert(&self, key: ChunkKey, data: Arc<Vec<u8>>) {
        if data.len() > CACHE_BYTES {
            return;
        }
        let Ok(mut e) = self.entries.lock() else {
            return;
        };
        e.clock += 1;
        let now = e.clock;
        let len = data.len();
        if let Some((old, _)) = e.map.insert(key, (data, now)) {
            e.bytes -= old.len();
        }
        e.bytes += len;
        while e.bytes > CACHE_BYTES || e.map.len() > CACHE_SLOTS {
            let Some(oldest) = e.map.iter().min_by_key(|(_, (_, u))| *u).map(|(k, _)| *k) else {
                break;
            };
            if let Some((old, _)) = e.map.remove(&oldest) {
                e.bytes -= old.len();
            }
        }
    }

    /// Drop every entry (what a refresh of a dataset whose file may have changed calls).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn invalidate(&self) {
        if let Ok(mut e) = self.entries.lock() {
            *e = Entries::default();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_by_bytes_and_least_recently_used_goes_first() {
        let c = ChunkCache::default();
        let quarter = CACHE_BYTES / 4;
        for k in 0..4 {
            c.insert((k, 0), Arc::new(vec![k as u8; quarter]));
        }
        assert!(c.get((0, 0)).is_some()); // 0 is now the most recent
        c.insert((9, 0), Arc::new(vec![9; quarter]));
        assert!(c.get((1, 0)).is_none(), "the least recently used left");
        assert_eq!(c.get((0, 0)).map(|d| d[0]), Some(0));
        assert_eq!(c.get((9, 0)).map(|d| d.len()), Some(quarter));
        c.insert((10, 0), Arc::new(vec![0; CACHE_BYTES + 1]));
        assert!(c.get((10, 0)).is_none(), "too large to keep");
        c.invalidate();
        assert!(c.get((0, 0)).is_none() && c.get((9, 0)).is_none());
    }

    #[test]
    fn bounded_by_slots() {
        let c = ChunkCache::default();
        for k in 0..(CACHE_SLOTS as u64 + 10) {
            c.insert((k, 0), Arc::new(vec![1]));
        }
        let kept = (0..(CACHE_SLOTS as u64 + 10))
            .filter(|&k| c.get((k, 0)).is_some())
            .count();
        assert_eq!(kept, CACHE_SLOTS);
    }
}
