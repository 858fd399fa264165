//! File space of the writer: what is free for reuse, what was allocated since the on-disk
//! state was last committed (and may be overwritten freely), and what was retired but may
//! still be referenced by the on-disk state (free once the flush in progress completes).
//!
//! The rule that keeps flushes crash-safe: a block the on-disk state references is never
//! overwritten (headers and the superblock excepted, each rewritten in one write at the end
//! of a flush); changed structures go to new space, and space they leave becomes reusable
//! only after the flush that stopped referencing it has completed.

use std::collections::{BTreeMap, BTreeSet};

use super::file::align8;

/// The free list and the allocation state of file space (this writer allocates at
/// multiples of 8; blocks of a file another writer wrote keep their exact extent).
#[derive(Debug, Default)]
pub(crate) struct Space {
    /// Free ranges available now: start -> length.
    free: BTreeMap<u64, u64>,
    /// The same ranges by (length, start), for best-fit allocation.
    by_size: BTreeSet<(u64, u64)>,
    /// Ranges allocated since the last commit point (no on-disk structure references them):
    /// start -> length.
    fresh: BTreeMap<u64, u64>,
    /// Ranges retired that the on-disk state may still reference (a set: a flush may
    /// retire many blocks, each once).
    pending: BTreeSet<(u64, u64)>,
    /// Bytes allocated from the free list so far.
    pub(crate) reused: u64,
}

impl Space {
    /// Take `len` bytes (rounded up to 8) from the free list, if a range has room: the
    /// smallest range that has (best fit, so that small blocks do not split the large
    /// ranges a freed dataset leaves), its lowest address among equals.
    pub(crate) fn take(&mut self, len: u64) -> Option<u64> {
        let len = align8(len.max(1));
        let &(have, at) = self.by_size.range((len, 0)..).next()?;
        self.remove_free(at, have);
        self.reused += len;
        if have > len {
            self.insert_free(at + len, have - len);
        }
        Some(at)
    }

    fn insert_free(&mut self, at: u64, len: u64) {
        self.free.insert(at, len);
        self.by_size.insert((len, at));
    }

    fn remove_free(&mut self, at: u64, len: u64) {
        self.free.remove(&at);
        self.by_size.remove(&(len, at));
    }

    /// Return a range to the free list, merging it with its neighbours.
    fn give(&mut self, at: u64, len: u64) {
        let (mut at, mut len) = (at, len);
        // Already free (in part): a block is given back once.
        if let Some((&p, &pl)) = self.free.range(..at + len).next_back() {
            if p + pl > at {
                return;
            }
        }
        if let Some((&p, &pl)) = self.free.range(..at).next_back() {
            if p + pl == at {
                self.remove_free(p, pl);
                at = p;
                len += pl;
            }
        }
        if let Some(&nl) = self.free.get(&(at + len)) {
            self.remove_free(at + len, nl);
            len += nl;
        }
        self.insert_free(at, len);
    }

    /// Record a new allocation.
    pub(crate) fn mark_fresh(&mut self, at: u64, len: u64) {
        self.fresh.insert(at, align8(len.max(1)));
    }

    /// Whether `at` lies in space allocated since the last commit point.
    pub(crate) fn is_fresh(&self, at: u64) -> bool {
        self.fresh
            .range(..=at)
            .next_back()
            .is_some_and(|(&s, &l)| at < s + l)
    }

    /// The block at `at..at + len` is no longer referenced by the state being built: free
    /// at once when fresh, otherwise once the flush in progress completes.
    pub(crate) fn retire(&mut self, at: u64, len: u64) {
        if at == 0 || len == 0 {
            return;
        }
        // Exactly the block: structures of files other writers wrote need not be aligned,
        // and the byte after one may start the next.
        if let Some(&l) = self.fresh.get(&at) {
            self.fresh.remove(&at);
            self.give(at, l.max(len));
        } else {
            self.pending.insert((at, len));
        }
    }

    /// The new state is about to be referenced from disk (the superblock is being written):
    /// nothing allocated so far is fresh any more.
    pub(crate) fn commit(&mut self) {
        self.fresh.clear();
    }

    /// A flush completed: the blocks it retired are free.
    pub(crate) fn complete(&mut self) {
        for (at, len) in std::mem::take(&mut self.pending) {
            self.give(at, len);
        }
    }

    /// A flush completed, but a reader may still follow the state it replaced (SWMR
    /// writing): the blocks it retired are never reused.
    pub(crate) fn abandon(&mut self) {
        self.pending.clear();
    }

    /// Bytes free for reuse now.
    #[cfg(test)]
    pub(crate) fn free_bytes(&self) -> u64 {
        self.free.values().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retired_fresh_space_is_free_at_once_and_committed_space_after_completion() {
        let mut s = Space::default();
        s.mark_fresh(64, 16);
        s.mark_fresh(80, 8);
        s.retire(64, 16);
        assert_eq!(s.take(16), Some(64));
        s.commit();
        s.retire(80, 8);
        assert_eq!(s.take(8), None);
        s.complete();
        assert_eq!(s.take(8), Some(80));
        // Neighbours merge.
        s.retire(200, 8);
        s.retire(208, 8);
        s.complete();
        assert_eq!(s.free_bytes(), 16);
        assert_eq!(s.take(12), Some(200));
        assert_eq!(s.take(8), None);
    }
}
