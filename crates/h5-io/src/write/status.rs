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
    if sb.flags == 0 {
        return Ok(None);
    }
    let old = sb.flags;
    let n = sb.encoded_len();
    sb.flags = 0;
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
    Ok(Some(old))
}
