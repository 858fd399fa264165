//! One object of an object store as a [`Storage`].

use std::fmt;
use std::io;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use futures::stream::{self, StreamExt, TryStreamExt};
use h5_format::storage::Storage;
use object_store::path::Path;
use object_store::{GetOptions, GetRange, ObjectStore};

use crate::runtime::Runtime;

/// How an object is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteOptions {
    /// Bytes fetched at open with the object's size and ETag (the superblock and, in most
    /// files, the root group and the first objects' headers).
    pub head_bytes: u64,
    /// Ranges of one batch closer than this are fetched as one request (the bytes between
    /// are read and dropped).
    pub merge_gap: u64,
    /// A merged request grows no larger than this (a single larger range is not split).
    pub merge_cap: u64,
    /// Requests of one batch in flight at once.
    pub concurrency: usize,
    /// The page cache's page size.
    pub page_size: u64,
    /// The page cache's bound in bytes.
    pub cache_bytes: u64,
    /// Read a file written with paged aggregation (file space strategy PAGE) in pages of its
    /// own page size instead of `page_size`, once its superblock extension says so (its
    /// metadata is gathered in those pages).
    pub file_page_size: bool,
}

impl Default for RemoteOptions {
    fn default() -> Self {
        RemoteOptions {
            head_bytes: 64 * 1024,
            merge_gap: 1024 * 1024,
            merge_cap: 16 * 1024 * 1024,
            concurrency: 8,
            page_size: h5_format::storage::DEFAULT_PAGE_SIZE,
            cache_bytes: h5_format::storage::DEFAULT_CACHE_BYTES,
            file_page_size: true,
        }
    }
}

/// What reading an object cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Requests made of the store (the `HEAD` at open included).
    pub requests: u64,
    /// Bytes received.
    pub bytes: u64,
    /// Pages the cache served ([`crate::Remote::stats`]; zero from [`ObjectStorage`]).
    pub cache_hits: u64,
    /// Pages the cache fetched.
    pub cache_misses: u64,
}

/// One object: its size and ETag pinned at open, its head in memory.
pub struct ObjectStorage {
    store: Arc<dyn ObjectStore>,
    path: Path,
    url: String,
    len: u64,
    etag: Option<String>,
    head: Vec<u8>,
    rt: Runtime,
    options: RemoteOptions,
    requests: Arc<AtomicU64>,
    bytes: Arc<AtomicU64>,
}

impl fmt::Debug for ObjectStorage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObjectStorage")
            .field("url", &self.url)
            .field("len", &self.len)
            .field("etag", &self.etag)
            .finish_non_exhaustive()
    }
}

/// An `object_store` error as an I/O error of the right kind.
pub(crate) fn store_error(url: &str, e: object_store::Error) -> io::Error {
    let kind = match &e {
        object_store::Error::NotFound { .. } => io::ErrorKind::NotFound,
        object_store::Error::Precondition { .. } => {
            return io::Error::other(format!(
                "{url}: the object changed since it was opened (its ETag differs)"
            ))
        }
        object_store::Error::PermissionDenied { .. }
        | object_store::Error::Unauthenticated { .. } => io::ErrorKind::PermissionDenied,
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, format!("{url}: {e}"))
}

impl ObjectStorage {
    /// Open the object at `path` of `store` (known as `url` in messages): a `HEAD` for its
    /// size and ETag, then a read of its head. Requests and bytes are added to the counters
    /// given (shared by the objects of one [`crate::ObjectStoreResolver`]).
    pub(crate) fn open(
        store: Arc<dyn ObjectStore>,
        path: Path,
        url: String,
        rt: Runtime,
        options: RemoteOptions,
        counters: (Arc<AtomicU64>, Arc<AtomicU64>),
    ) -> io::Result<ObjectStorage> {
        let (requests, bytes) = counters;
        requests.fetch_add(1, Ordering::Relaxed);
        let meta = rt
            .block_on(store.get_opts(&path, GetOptions::new().with_head(true)))?
            .map_err(|e| store_error(&url, e))?
            .meta;
        let mut s = ObjectStorage {
            store,
            path,
            url,
            len: meta.size,
            etag: meta.e_tag,
            head: Vec::new(),
            rt,
            options,
            requests,
            bytes,
        };
        let n = s.options.head_bytes.min(s.len);
        if n > 0 {
            s.head = s
                .fetch(std::slice::from_ref(&(0..n)))?
                .pop()
                .unwrap_or_default();
        }
        Ok(s)
    }

    /// The object's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The ETag pinned at open, if the store gives one.
    pub fn etag(&self) -> Option<&str> {
        self.etag.as_deref()
    }

    /// Requests made and bytes received so far (by every object of the same resolver).
    pub fn stats(&self) -> Stats {
        Stats {
            requests: self.requests.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            ..Stats::default()
        }
    }

    /// Fetch `ranges` (sorted or not, inside the object): merged where close, concurrently,
    /// each request conditional on the pinned ETag.
    fn fetch(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Vec<u8>>> {
        let plan = merge(ranges, self.options.merge_gap, self.options.merge_cap);
        let get = |r: Range<u64>| {
            let opts = GetOptions::new()
                .with_range(Some(GetRange::Bounded(r.clone())))
                .with_if_match(self.etag.clone());
            let store = self.store.clone();
            let path = self.path.clone();
            let url = self.url.clone();
            let etag = self.etag.clone();
            self.requests.fetch_add(1, Ordering::Relaxed);
            async move {
                let res = store
                    .get_opts(&path, opts)
                    .await
                    .map_err(|e| store_error(&url, e))?;
                if etag.is_some() && res.meta.e_tag.is_some() && res.meta.e_tag != etag {
                    return Err(io::Error::other(format!(
                        "{url}: the object changed since it was opened (its ETag differs)"
                    )));
                }
                let b = res.bytes().await.map_err(|e| store_error(&url, e))?;
                if b.len() as u64 != r.end - r.start {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        format!(
                            "{url}: {} bytes at {:#x} asked, {} received",
                            r.end - r.start,
                            r.start,
                            b.len()
                        ),
                    ));
                }
                Ok::<_, io::Error>(b)
            }
        };
        let requests: Vec<Range<u64>> = plan.iter().map(|m| m.range.clone()).collect();
        let concurrency = self.options.concurrency.max(1);
        let fetched: Vec<_> = self.rt.block_on(
            stream::iter(requests.into_iter().map(get))
                .buffered(concurrency)
                .try_collect::<Vec<_>>(),
        )??;
        let received: u64 = fetched.iter().map(|b| b.len() as u64).sum();
        self.bytes.fetch_add(received, Ordering::Relaxed);
        let mut out = vec![Vec::new(); ranges.len()];
        for (m, b) in plan.iter().zip(&fetched) {
            for &i in &m.members {
                let r = &ranges[i];
                let s = (r.start - m.range.start) as usize;
                let e = (r.end - m.range.start) as usize;
                out[i] = b[s..e].to_vec();
            }
        }
        Ok(out)
    }
}

/// One request of a batch: the range fetched and the batch's ranges it covers.
#[derive(Debug, PartialEq, Eq)]
struct Merged {
    range: Range<u64>,
    members: Vec<usize>,
}

/// Sort `ranges` and merge neighbours less than `gap` apart while the merged request stays
/// within `cap` bytes. Empty ranges need no request.
fn merge(ranges: &[Range<u64>], gap: u64, cap: u64) -> Vec<Merged> {
    let mut order: Vec<usize> = (0..ranges.len())
        .filter(|&i| ranges[i].end > ranges[i].start)
        .collect();
    order.sort_by_key(|&i| (ranges[i].start, ranges[i].end));
    let mut out: Vec<Merged> = Vec::new();
    for i in order {
        let r = &ranges[i];
        if let Some(m) = out.last_mut() {
            let end = m.range.end.max(r.end);
            if r.start <= m.range.end.saturating_add(gap) && end - m.range.start <= cap {
                m.range.end = end;
                m.members.push(i);
                continue;
            }
        }
        out.push(Merged {
            range: r.clone(),
            members: vec![i],
        });
    }
    out
}

impl Storage for ObjectStorage {
    fn len(&self) -> io::Result<u64> {
        Ok(self.len)
    }

    fn read_exact_at(&self, pos: u64, buf: &mut [u8]) -> io::Result<()> {
        let end = pos
            .checked_add(buf.len() as u64)
            .filter(|&e| e <= self.len)
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!(
                        "{}: {} bytes at {pos:#x} extend past the end ({:#x})",
                        self.url,
                        buf.len(),
                        self.len
                    ),
                )
            })?;
        if end <= self.head.len() as u64 {
            buf.copy_from_slice(&self.head[pos as usize..end as usize]);
            return Ok(());
        }
        if buf.is_empty() {
            return Ok(());
        }
        let got = self.fetch(std::slice::from_ref(&(pos..end)))?;
        buf.copy_from_slice(&got[0]);
        Ok(())
    }

    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Vec<u8>>> {
        for r in ranges {
            if r.start > r.end || r.end > self.len {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!(
                        "{}: range {:#x}..{:#x} outside the object ({:#x} bytes)",
                        self.url, r.start, r.end, self.len
                    ),
                ));
            }
        }
        let head = self.head.len() as u64;
        let (local, remote): (Vec<usize>, Vec<usize>) =
            (0..ranges.len()).partition(|&i| ranges[i].end <= head);
        let wanted: Vec<Range<u64>> = remote.iter().map(|&i| ranges[i].clone()).collect();
        let fetched = if wanted.is_empty() {
            Vec::new()
        } else {
            self.fetch(&wanted)?
        };
        let mut out = vec![Vec::new(); ranges.len()];
        for i in local {
            let r = &ranges[i];
            out[i] = self.head[r.start as usize..r.end as usize].to_vec();
        }
        for (i, b) in remote.into_iter().zip(fetched) {
            out[i] = b;
        }
        Ok(out)
    }

    fn is_local(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_within_the_gap_and_the_cap() {
        let m = merge(&[100..200, 0..10, 15..20, 5000..5001, 30..30], 10, 150);
        assert_eq!(
            m,
            vec![
                Merged {
                    range: 0..20,
                    members: vec![1, 2]
                },
                Merged {
                    range: 100..200,
                    members: vec![0]
                },
                Merged {
                    range: 5000..5001,
                    members: vec![3]
                },
            ]
        );
        // The cap stops a merge; a range larger than the cap stays whole.
        let m = merge(&[0..100, 100..300], 1000, 150);
        assert_eq!(m.len(), 2);
        assert_eq!(m[1].range, 100..300);
    }
}
