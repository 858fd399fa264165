//! The storage boundary: where a file's bytes live.
//!
//! Every byte the reader, the writer and the validation walk see goes through a
//! [`Storage`] (positioned reads, with a batched [`Storage::read_ranges`]) or a
//! [`WritableStorage`] (positioned writes on top, through `&self`, so one storage serves a
//! reader and a writer at once). Reads move no shared cursor, so any number of threads read
//! one storage with no lock.
//!
//! Implementations: [`FileStorage`] (a file on disk: `pread`/`pwrite`), [`MemStorage`]
//! (shared bytes), [`VecStorage`] (growable bytes in memory, writable), and adapters that
//! stack on any storage: [`OffsetStorage`] (the HDF5 data after a user block),
//! [`FamilyStorage`] and [`MultiStorage`] (the family and multi/split drivers' members as one
//! address space), [`CachedStorage`] (a page-aligned, byte-bounded block cache for storage
//! whose requests are costly), [`CountingStorage`] (requests and bytes, for tests and `--stats`),
//! [`FaultyStorage`] (fails the N-th modifying call, for crash tests), [`LatencyStorage`] (an
//! object store's round trips and bandwidth as a deterministic model, for tests and
//! benchmarks). The onion driver's
//! revision view lives with its history format in `h5-io`'s `onion` module.
//!
//! The [`Resolver`] opens every other file a file names (external links, virtual dataset
//! sources, external raw data, family and multi members, onion histories); [`FsResolver`]
//! is the file system's. This module and its children are the only code that opens files.
//!
//! [`Fetch`] is the same boundary seen from a file's structures: reads by address (relative
//! to the base address), with the reader's, the writer's or the validation walk's own error
//! type. The navigators ([`crate::btree::v2::Tree`], [`crate::heap::fractal::Heap`]) read
//! through it, so one traversal serves all three.
//!
//! The shape follows zarrs' storage traits (`ReadableStorageTraits` with `get_partial_many`)
//! and object_store's `get_ranges`: a range list in, one buffer per range out.

mod cache;
mod counting;
mod faulty;
mod file;
mod latency;
mod memory;
mod multi;
mod offset;
mod resolve;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::fmt;
use std::io;
use std::ops::Range;
use std::sync::Arc;

pub use cache::{CachedStorage, DEFAULT_CACHE_BYTES, DEFAULT_PAGE_SIZE};
pub use counting::{CountingStorage, Counts};
pub use faulty::FaultyStorage;
pub use file::FileStorage;
pub use latency::LatencyStorage;
pub use memory::{MemStorage, VecStorage};
pub use multi::{FamilyStorage, MultiStorage};
pub use offset::OffsetStorage;
pub use resolve::{FsResolver, Resolver};

/// Reads of a file's structures by address (relative to the base address, as the addresses
/// stored in the file are): what the navigators read through. The reader's file, the
/// writer's file and the validation walk each implement it, with their own error type, so a
/// navigator's failure reaches each caller in the caller's terms.
pub trait Fetch {
    /// The caller's error; a navigator's own findings (a malformed node, a loop, a limit)
    /// convert into it.
    type Error: From<crate::Error>;

    /// The superblock's size of offsets and size of lengths.
    fn sizes(&self) -> crate::Sizes;

    /// Exactly `len` bytes of `structure` at `addr`.
    fn fetch(
        &self,
        structure: &'static str,
        addr: crate::Addr,
        len: u64,
    ) -> Result<Cow<'_, [u8]>, Self::Error>;

    /// Up to `max` bytes of `structure` at `addr`: fewer at the end of the file (for
    /// structures whose size is known only once parsed).
    fn fetch_up_to(
        &self,
        structure: &'static str,
        addr: crate::Addr,
        max: u64,
    ) -> Result<Cow<'_, [u8]>, Self::Error>;
}

/// Positioned reads, safe to share between threads.
pub trait Storage: Send + Sync + fmt::Debug {
    /// The storage's length in bytes.
    fn len(&self) -> io::Result<u64>;

    /// Whether the storage is empty.
    fn is_empty(&self) -> io::Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Fill `buf` from absolute position `pos`. Fewer bytes than asked (the end of the
    /// storage) is an error of kind `UnexpectedEof`.
    fn read_exact_at(&self, pos: u64, buf: &mut [u8]) -> io::Result<()>;

    /// Read what exists of `buf.len()` bytes at `pos`: fewer where the storage ends first.
    /// Returns the number of bytes read.
    fn read_at(&self, pos: u64, buf: &mut [u8]) -> io::Result<usize> {
        let avail = self.len()?.saturating_sub(pos);
        let n = usize::try_from(avail).unwrap_or(usize::MAX).min(buf.len());
        if n > 0 {
            self.read_exact_at(pos, &mut buf[..n])?;
        }
        Ok(n)
    }

    /// Read `n` bytes at `pos` into a new vector, checking first that they exist, so that a
    /// length read from a hostile file cannot make us allocate more than the storage holds.
    fn read_vec(&self, pos: u64, n: usize) -> io::Result<Vec<u8>> {
        check_range(pos, n as u64, self.len()?)?;
        let mut v = vec![0u8; n];
        self.read_exact_at(pos, &mut v)?;
        Ok(v)
    }

    /// Read each range, in one batch where the storage can (an object store merges nearby
    /// ranges and fetches them concurrently). One buffer per range, in the order given. Every
    /// range must lie inside the storage; the default reads them one after the other.
    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Vec<u8>>> {
        let mut bufs = vec![Vec::new(); ranges.len()];
        read_ranges_in_place(self, ranges, &mut bufs)?;
        Ok(bufs)
    }

    /// [`Storage::read_ranges`] into buffers the caller hands over and may reuse: `bufs`
    /// has one buffer per range (of any length and contents), each left holding its range's
    /// bytes. The default goes through [`Storage::read_ranges`], so a storage that batches
    /// keeps its batching (and the buffers handed over are replaced); a storage that reads
    /// range by range fills them in place ([`read_ranges_in_place`]), which saves the
    /// caller fresh memory for every range.
    fn read_ranges_into(&self, ranges: &[Range<u64>], bufs: &mut [Vec<u8>]) -> io::Result<()> {
        check_buffers(ranges, bufs)?;
        let got = self.read_ranges(ranges)?;
        check_buffers(ranges, &got)?;
        for (b, r) in bufs.iter_mut().zip(got) {
            *b = r;
        }
        Ok(())
    }

    /// Whether reads are cheap (a local file or memory). Non-local storage is worth a block
    /// cache and batched reads; local storage is read as asked.
    fn is_local(&self) -> bool {
        true
    }
}

fn check_buffers(ranges: &[Range<u64>], bufs: &[Vec<u8>]) -> io::Result<()> {
    if ranges.len() == bufs.len() {
        Ok(())
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} buffers for {} ranges", bufs.len(), ranges.len()),
        ))
    }
}

/// [`Storage::read_ranges_into`] for a storage that reads range by range (and the default
/// [`Storage::read_ranges`]): every range is checked against the storage's end first, then
/// each buffer is sized to its range (zeroed only where it grows) and filled.
pub fn read_ranges_in_place<S: Storage + ?Sized>(
    storage: &S,
    ranges: &[Range<u64>],
    bufs: &mut [Vec<u8>],
) -> io::Result<()> {
    check_buffers(ranges, bufs)?;
    let len = storage.len()?;
    let mut lens = Vec::with_capacity(ranges.len());
    for r in ranges {
        let n = range_len(r)?;
        check_range(r.start, n as u64, len)?;
        lens.push(n);
    }
    for ((b, r), n) in bufs.iter_mut().zip(ranges).zip(lens) {
        // What the buffer holds already is overwritten whole by the read; a buffer without
        // memory gets fresh zeroed memory (which costs no pass of its own), one with some
        // grows (in place where the allocator can).
        if b.len() >= n {
            b.truncate(n);
        } else if b.capacity() == 0 {
            *b = vec![0u8; n];
        } else {
            b.resize(n, 0);
        }
        storage.read_exact_at(r.start, b)?;
    }
    Ok(())
}

/// Positioned writes on top of [`Storage`], through `&self`: one storage serves a reader and
/// a writer at once. Writes past the end extend the storage.
pub trait WritableStorage: Storage {
    /// Write all of `bytes` at `pos`.
    fn write_all_at(&self, pos: u64, bytes: &[u8]) -> io::Result<()>;

    /// Set the storage's length (truncating or extending with zeros).
    fn set_len(&self, len: u64) -> io::Result<()>;

    /// Make the written bytes durable (`fdatasync` for a file).
    fn sync_data(&self) -> io::Result<()>;
}

/// The length of `r` as a buffer size.
fn range_len(r: &Range<u64>) -> io::Result<usize> {
    let n = r.end.checked_sub(r.start).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("range {:#x}..{:#x} ends before it starts", r.start, r.end),
        )
    })?;
    usize::try_from(n).map_err(|_| io::Error::new(io::ErrorKind::OutOfMemory, "range too large"))
}

/// `n` bytes at `pos` lie inside a storage of `len` bytes.
fn check_range(pos: u64, n: u64, len: u64) -> io::Result<()> {
    if pos.checked_add(n).is_none_or(|e| e > len) {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("{n} bytes at {pos:#x} extend past the end of the file ({len:#x})"),
        ));
    }
    Ok(())
}

/// An `UnexpectedEof` error for a read of `n` bytes at `pos` from `len` bytes.
fn eof(pos: u64, n: usize, len: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("{n} bytes at {pos:#x} extend past the end ({len:#x})"),
    )
}

macro_rules! forward_storage {
    ($($t:tt)*) => {
        impl<S: Storage + ?Sized> Storage for $($t)* {
            fn len(&self) -> io::Result<u64> {
                (**self).len()
            }
            fn read_exact_at(&self, pos: u64, buf: &mut [u8]) -> io::Result<()> {
                (**self).read_exact_at(pos, buf)
            }
            fn read_at(&self, pos: u64, buf: &mut [u8]) -> io::Result<usize> {
                (**self).read_at(pos, buf)
            }
            fn read_vec(&self, pos: u64, n: usize) -> io::Result<Vec<u8>> {
                (**self).read_vec(pos, n)
            }
            fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Vec<u8>>> {
                (**self).read_ranges(ranges)
            }
            fn read_ranges_into(
                &self,
                ranges: &[Range<u64>],
                bufs: &mut [Vec<u8>],
            ) -> io::Result<()> {
                (**self).read_ranges_into(ranges, bufs)
            }
            fn is_local(&self) -> bool {
                (**self).is_local()
            }
        }
        impl<S: WritableStorage + ?Sized> WritableStorage for $($t)* {
            fn write_all_at(&self, pos: u64, bytes: &[u8]) -> io::Result<()> {
                (**self).write_all_at(pos, bytes)
            }
            fn set_len(&self, len: u64) -> io::Result<()> {
                (**self).set_len(len)
            }
            fn sync_data(&self) -> io::Result<()> {
                (**self).sync_data()
            }
        }
    };
}

forward_storage!(&S);
forward_storage!(Box<S>);
forward_storage!(Arc<S>);

/// Borrowed bytes as read-only storage (the validation walk of a file held in memory).
#[derive(Clone, Copy)]
pub struct SliceStorage<'a>(pub &'a [u8]);

impl fmt::Debug for SliceStorage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SliceStorage({} bytes)", self.0.len())
    }
}

impl Storage for SliceStorage<'_> {
    fn len(&self) -> io::Result<u64> {
        Ok(self.0.len() as u64)
    }

    fn read_exact_at(&self, pos: u64, buf: &mut [u8]) -> io::Result<()> {
        read_slice(self.0, pos, buf)
    }
}

/// Fill `buf` from `data[pos..]`.
fn read_slice(data: &[u8], pos: u64, buf: &mut [u8]) -> io::Result<()> {
    let src = usize::try_from(pos)
        .ok()
        .and_then(|s| data.get(s..s.checked_add(buf.len())?))
        .ok_or_else(|| eof(pos, buf.len(), data.len() as u64))?;
    buf.copy_from_slice(src);
    Ok(())
}
