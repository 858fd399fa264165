//! Resetting the superblock's "File Consistency Flags" (what the reference library's
//! `h5clear -s` does): a file a writer left marked open for writing (or SWMR writing), when
//! the writer stopped without closing it, opens again afterwards.

use std::path::Path;

use h5_format::storage::{FileStorage, Storage, WritableStorage};
use h5_format::superblock::{self, Superblock};
use h5_format::{Cursor, Sizes, Writer};

use super::{ensure, Error, ErrorKind, Result};
use crate::lock::{Access, FileLock};

/// Clear the status flags of the superblock of the file at `path`, in place (the
/// superblock's checksum is recomputed; nothing else changes). Returns the flags that were
/// set, or `None` when none were (the file is not written then). The file is locked for
/// writing meanwhile, so a writer that still holds its lock is not disturbed (a SWMR writer
/// gave its lock up: its marks are cleared under it if asked).
pub fn clear_status_flags(path: impl AsRef<Path>) -> Result<Option<u32>> {
    clear_status_flags_with(path, None)
}

/// The default increment of `h5clear --increment` (1 MiB).
pub const DEFAULT_EOA_INCREMENT: u64 = 1 << 20;

/// [`clear_status_flags`], and with `increment` (`h5clear --increment=C`) also set the
/// superblock's end of file address to the larger of it and the file's size, plus
/// `increment` (the file is extended to it): a writer of the reference library that stopped in SWMR mode may have written
/// past the end of file its superblock stores, which the reference library then refuses to
/// read ("addr overflow"). The file is written whenever `increment` is given.
pub fn clear_status_flags_with(
    path: impl AsRef<Path>,
    increment: Option<u64>,
) -> Result<Option<u32>> {
    let path = path.as_ref();
    let _lock = FileLock::acquire(path, Access::Write).map_err(|e| {
        Error::new(
            match e.kind() {
                crate::ErrorKind::InUse => ErrorKind::InUse,
                _ => ErrorKind::Io,
            },
            e.to_string(),
        )
    })?;
    let file = FileStorage::open_rw(path).map_err(|e| {
        Error::new(
            ErrorKind::Io,
            format!("cannot open {} for writing: {e}", path.display()),
        )
    })?;
    let len = file.len()?;
    let at = superblock::find_signature(len, |off, n| {
        let n = n.min(len.saturating_sub(off) as usize);
        file.read_vec(off, n).map_err(|e| {
            h5_format::Error::new(
                h5_format::ErrorKind::UnexpectedEof,
                "superblock",
                off,
                e.to_string(),
            )
        })
    })?
    .ok_or_else(|| {
        Error::new(
            ErrorKind::Format,
            format!("{}: not an HDF5 file (no format signature)", path.display()),
        )
    })?;
    let head = file.read_vec(at, 4096.min(len - at) as usize)?;
    let mut sb = Superblock::parse(&mut Cursor::new(&head, at, Sizes::DEFAULT))?;
    if sb.flags == 0 && increment.is_none() {
        return Ok(None);
    }
    let old = sb.flags;
    let n = sb.encoded_len();
    sb.flags = 0;
    if let Some(c) = increment {
        let stored = sb.eof_address.get().unwrap_or(0);
        let eof = stored.max(len).checked_add(c).ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "end of file address {} + increment {c} overflows",
                    stored.max(len)
                ),
            )
        })?;
        sb.eof_address = h5_format::Addr(eof);
        // The file reaches its new end (as the reference library extends a file to its end
        // of allocation when it closes it).
        file.set_len(eof)?;
    }
    let mut w = Writer::new(sb.sizes);
    sb.encode(&mut w);
    ensure!(
        w.len() == n && head.get(..n).is_some(),
        Format,
        "{}: the superblock re-encodes to {} bytes where it had {n}",
        path.display(),
        w.len()
    );
    file.write_all_at(at, w.as_slice())?;
    file.sync_data()?;
    Ok((old != 0).then_some(old))
}
