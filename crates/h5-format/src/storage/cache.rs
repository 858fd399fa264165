//! A page-aligned, byte-bounded block cache in front of a storage whose requests are costly
//! (an object store): small reads (metadata) are served from whole pages, fetched in one
//! batch per call; large reads (raw data) pass through without evicting the metadata.

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::{check_range, range_len, Storage};

/// The default page: 64 KiB (the reference library's default page size for paged
/// aggregation is 4 KiB; object stores favour fewer, larger requests).
pub const DEFAULT_PAGE_SIZE: u64 = 64 * 1024;

/// The default bound on cached bytes: 64 MiB.
pub const DEFAULT_CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// Caches pages of `page_size` bytes (aligned on multiples of it), at most `capacity` bytes,
/// dropping the least recently used page first. A read larger than a quarter of the capacity
/// or than 2 pages (raw data) bypasses the cache.
#[derive(Debug)]
pub struct CachedStorage<S> {
    inner: S,
    capacity: u64,
    state: Mutex<State>,
    hits: AtomicU64,
    misses: AtomicU64,
}

#[derive(Debug, Default)]
struct State {
    /// The page size (changed only with the cache emptied).
    page: u64,
    /// Page number -> (bytes, last use).
    pages: HashMap<u64, (Arc<[u8]>, u64)>,
    /// Last use -> page number.
    lru: BTreeMap<u64, u64>,
    bytes: u64,
    tick: u64,
}

impl State {
    fn get(&mut self, page: u64) -> Option<Arc<[u8]>> {
        self.tick += 1;
        let tick = self.tick;
        let (data, used) = self.pages.get_mut(&page)?;
        self.lru.remove(used);
        *used = tick;
        self.lru.insert(tick, page);
        Some(data.clone())
    }

    fn insert(&mut self, page: u64, data: Arc<[u8]>, capacity: u64) {
        self.tick += 1;
        let n = data.len() as u64;
        if let Some((old, used)) = self.pages.insert(page, (data, self.tick)) {
            self.lru.remove(&used);
            self.bytes -= old.len() as u64;
        }
        self.lru.insert(self.tick, page);
        self.bytes += n;
        while self.bytes > capacity {
            let Some((_, victim)) = self.lru.pop_first() else {
                break;
            };
            if let Some((d, _)) = self.pages.remove(&victim) {
                self.bytes -= d.len() as u64;
            }
        }
    }
}

impl<S: Storage> CachedStorage<S> {
    /// A cache of [`DEFAULT_CACHE_BYTES`] in pages of [`DEFAULT_PAGE_SIZE`].
    pub fn new(inner: S) -> Self {
        Self::with_sizes(inner, DEFAULT_PAGE_SIZE, DEFAULT_CACHE_BYTES)
    }

    /// A cache of `capacity` bytes in pages of `page_size` bytes (at least 512; a file
    /// written with paged aggregation is best read with its own page size).
    pub fn with_sizes(inner: S, page_size: u64, capacity: u64) -> Self {
        let page = page_size.max(512);
        CachedStorage {
            inner,
            capacity: capacity.max(page),
            state: Mutex::new(State {
                page,
                ..State::default()
            }),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// Pages found in the cache and pages fetched, so far.
    pub fn hits_and_misses(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    /// The inner storage.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// The page size.
    pub fn page_size(&self) -> u64 {
        self.state().map_or(0, |st| st.page)
    }

    /// Use pages of `page_size` bytes (at least 512) from now on, emptying the cache if that
    /// changes the size: a file written with paged aggregation is best read in its own pages
    /// (its metadata is gathered in them), which are known only once its superblock
    /// extension is read.
    pub fn set_page_size(&self, page_size: u64) -> io::Result<()> {
        let page = page_size.max(512);
        let mut st = self.state()?;
        if st.page != page {
            st.pages.clear();
            st.lru.clear();
            st.bytes = 0;
            st.page = page;
        }
        Ok(())
    }

    fn bypass(&self, n: u64, page: u64) -> bool {
        n > self.capacity.max(page) / 4 || n > 2 * page
    }

    fn state(&self) -> io::Result<std::sync::MutexGuard<'_, State>> {
        self.state
            .lock()
            .map_err(|_| io::Error::other("the block cache's lock is poisoned"))
    }

    /// Serve every range: the small ones from pages (missing pages and the large ranges
    /// fetched in one batch of the inner storage), in order.
    fn serve(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Vec<u8>>> {
        let len = self.inner.len()?;
        let mut missing: Vec<u64> = Vec::new();
        let mut have: HashMap<u64, Arc<[u8]>> = HashMap::new();
        let page = {
            let mut st = self.state()?;
            let page = st.page;
            for r in ranges {
                let n = range_len(r)? as u64;
                check_range(r.start, n, len)?;
                if n == 0 || self.bypass(n, page) {
                    continue;
                }
                for p in r.start / page..=(r.end - 1) / page {
                    if have.contains_key(&p) || missing.contains(&p) {
                        continue;
                    }
                    match st.get(p) {
                        Some(d) => {
                            self.hits.fetch_add(1, Ordering::Relaxed);
                            have.insert(p, d);
                        }
                        None => missing.push(p),
                    }
                }
            }
            page
        };
        missing.sort_unstable();
        // One batch: runs of consecutive missing pages, then the large ranges.
        let mut fetch: Vec<Range<u64>> = Vec::new();
        for &p in &missing {
            let start = p * page;
            let end = (start + page).min(len);
            match fetch.last_mut() {
                Some(last) if last.end == start => last.end = end,
                _ => fetch.push(start..end),
            }
        }
        let runs = fetch.len();
        fetch.extend(
            ranges
                .iter()
                .filter(|r| r.end > r.start && self.bypass(r.end - r.start, page))
                .cloned(),
        );
        let mut got = if fetch.is_empty() {
            Vec::new()
        } else {
            self.inner.read_ranges(&fetch)?
        };
        let mut large = got.split_off(runs.min(got.len())).into_iter();
        if !missing.is_empty() {
            self.misses
                .fetch_add(missing.len() as u64, Ordering::Relaxed);
            let mut st = self.state()?;
            // Pages of a size changed meanwhile serve this call only.
            let keep = st.page == page;
            for (run, bytes) in fetch.iter().zip(got) {
                for (i, chunk) in bytes.chunks(page as usize).enumerate() {
                    let p = run.start / page + i as u64;
                    let data: Arc<[u8]> = chunk.into();
                    if keep {
                        st.insert(p, data.clone(), self.capacity);
                    }
                    have.insert(p, data);
                }
            }
        }
        let mut out = Vec::with_capacity(ranges.len());
        for r in ranges {
            let n = (r.end - r.start) as usize;
            if n > 0 && self.bypass(n as u64, page) {
                out.push(
                    large
                        .next()
                        .ok_or_else(|| io::Error::other("a range was not fetched"))?,
                );
                continue;
            }
            let mut v = Vec::with_capacity(n);
            let mut pos = r.start;
            while pos < r.end {
                let p = pos / page;
                let bytes = have
                    .get(&p)
                    .ok_or_else(|| io::Error::other("a cached page was not fetched"))?;
                let within = (pos - p * page) as usize;
                let take = ((r.end - pos) as usize).min(bytes.len().saturating_sub(within));
                if take == 0 {
                    return Err(io::Error::from(io::ErrorKind::UnexpectedEof));
                }
                v.extend_from_slice(&bytes[within..within + take]);
                pos += take as u64;
            }
            out.push(v);
        }
        Ok(out)
    }
}

impl<S: Storage> Storage for CachedStorage<S> {
    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }

    fn read_exact_at(&self, pos: u64, buf: &mut [u8]) -> io::Result<()> {
        if self.bypass(buf.len() as u64, self.page_size()) {
            return self.inner.read_exact_at(pos, buf);
        }
        let end = pos
            .checked_add(buf.len() as u64)
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        let got = self.serve(std::slice::from_ref(&(pos..end)))?;
        if let Some(b) = got.first() {
            buf.copy_from_slice(b);
        }
        Ok(())
    }

    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Vec<u8>>> {
        self.serve(ranges)
    }

    fn is_local(&self) -> bool {
        self.inner.is_local()
    }
}
