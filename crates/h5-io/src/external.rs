//! External storage: a contiguous dataset's bytes in a list of other files (the External
//! Data Files message), named in a local heap.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use h5_format::heap::local::{string_at, LocalHeap};
use h5_format::message::external_files::ExternalFiles;

use crate::error::{Error, ErrorKind, Result};
use crate::file::File;
use h5_format::storage::Storage;

/// The opened files of external storage.
#[derive(Debug)]
pub struct ExternalStorage {
    /// (file, offset in it, bytes of the dataset it holds).
    slots: Vec<(Option<Opened>, String, u64, u64)>,
}

/// An external file, opened through the file's resolver.
type Opened = Arc<dyn Storage>;

impl ExternalStorage {
    /// Open the files of an External Data Files message through the file's resolver; names
    /// are relative to the directory of the HDF5 file, or to the working directory.
    pub fn open(file: &File, ext: &ExternalFiles) -> Result<ExternalStorage> {
        let raw = file.raw();
        let hb = raw.read(
            ext.heap_address,
            LocalHeap::encoded_size(raw.sizes()) as u64,
        )?;
        let lh = LocalHeap::parse(&mut raw.cursor(&hb, ext.heap_address))?;
        let seg = raw.read(lh.data_segment, lh.data_segment_size)?;
        let segc = raw.cursor(&seg, lh.data_segment);
        let dir = file.path().and_then(|p| p.parent()).map(PathBuf::from);
        let resolver = file.options().resolve();
        let mut slots = Vec::new();
        for s in &ext.slots {
            let name = String::from_utf8_lossy(string_at(&segc, s.name_offset)?).into_owned();
            let mut src = None;
            if let Some(d) = &dir {
                src = resolver.open(&d.join(&name)).ok();
            }
            if src.is_none() {
                src = resolver.open(Path::new(&name)).ok();
            }
            slots.push((src, name, s.file_offset, s.size));
        }
        Ok(ExternalStorage { slots })
    }

    /// Fill `buf` with the dataset's bytes starting at byte `offset`. Bytes past the end of a
    /// file read as zeros; a missing file is an error.
    pub fn read(&self, mut offset: u64, mut buf: &mut [u8]) -> Result<()> {
        for (src, name, foff, size) in &self.slots {
            if buf.is_empty() {
                return Ok(());
            }
            if offset >= *size {
                offset -= size;
                continue;
            }
            let n = ((size - offset).min(buf.len() as u64)) as usize;
            let (head, tail) = buf.split_at_mut(n);
            let src = src.as_ref().ok_or_else(|| {
                Error::new(
                    ErrorKind::Io,
                    format!("external file {name:?} cannot be opened"),
                )
            })?;
            let pos = foff.saturating_add(offset);
            let len = src.len()?;
            let avail = len.saturating_sub(pos).min(n as u64) as usize;
            if avail > 0 {
                src.read_exact_at(pos, &mut head[..avail])?;
            }
            head[avail..].fill(0);
            buf = tail;
            offset = 0;
        }
        if !buf.is_empty() {
            return Err(Error::new(
                ErrorKind::Format,
                "the external files hold fewer bytes than the dataset",
            ));
        }
        Ok(())
    }
}
