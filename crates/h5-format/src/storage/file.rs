//! A file on disk, read and written with positioned I/O (`pread`/`pwrite`): no seek, no lock.

use std::fs;
use std::io;
use std::path::Path;

use super::{Storage, WritableStorage};

/// A file on disk. Opened for reading, its length is taken once at open (a reader needs
/// no system call per read); opened for writing, it is asked of the operating system at each
/// call, so a writer and a reader sharing one `FileStorage` agree on it.
#[derive(Debug)]
pub struct FileStorage {
    file: fs::File,
    /// The length, for a file opened read-only.
    fixed_len: Option<u64>,
}

impl FileStorage {
    /// Open a file for reading.
    pub fn open(path: impl AsRef<Path>) -> io::Result<Self> {
        Self::from_file(fs::File::open(path)?)
    }

    /// Open an existing file for reading and writing.
    pub fn open_rw(path: impl AsRef<Path>) -> io::Result<Self> {
        let file = fs::OpenOptions::new().read(true).write(true).open(path)?;
        Ok(FileStorage {
            file,
            fixed_len: None,
        })
    }

    /// Create a file for reading and writing, truncating it when it exists.
    pub fn create(path: impl AsRef<Path>) -> io::Result<Self> {
        let file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        Ok(FileStorage {
            file,
            fixed_len: None,
        })
    }

    /// Create a file for reading and writing, failing (`io::ErrorKind::AlreadyExists`) when
    /// one exists: the name is reserved atomically (`O_EXCL`).
    pub fn create_new(path: impl AsRef<Path>) -> io::Result<Self> {
        let file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)?;
        Ok(FileStorage {
            file,
            fixed_len: None,
        })
    }

    /// Wrap a file open for reading (its length is taken now).
    pub fn from_file(file: fs::File) -> io::Result<Self> {
        let len = file.metadata()?.len();
        Ok(FileStorage {
            file,
            fixed_len: Some(len),
        })
    }

    /// Opens the local file `path` for reading, as a plain handle: the caller may hold its
    /// lock on it and then wrap it ([`FileStorage::from_file_with_len`]), so a file is
    /// opened once.
    pub fn open_file(path: impl AsRef<Path>) -> io::Result<fs::File> {
        fs::File::open(path)
    }

    /// Wrap a file open for reading whose length the caller has just taken (its metadata:
    /// no second system call to ask it).
    pub fn from_file_with_len(file: fs::File, len: u64) -> Self {
        FileStorage {
            file,
            fixed_len: Some(len),
        }
    }

    fn writable(&self) -> io::Result<()> {
        match self.fixed_len {
            Some(_) => Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "the file was opened for reading only",
            )),
            None => Ok(()),
        }
    }

    /// Opens the local file `path` only to hold an advisory lock on it (`flock`, as the
    /// reference library locks the files it opens): no data is read or written through the
    /// handle, which stays open as long as the lock is held.
    pub fn open_for_lock(path: impl AsRef<Path>) -> io::Result<fs::File> {
        fs::File::open(path)
    }

    /// Whether `path` names a regular file (a candidate a [`super::FsResolver`] may open).
    pub fn is_file(path: impl AsRef<Path>) -> bool {
        path.as_ref().is_file()
    }
}

impl Storage for FileStorage {
    fn len(&self) -> io::Result<u64> {
        match self.fixed_len {
            Some(n) => Ok(n),
            None => Ok(self.file.metadata()?.len()),
        }
    }

    fn read_exact_at(&self, pos: u64, buf: &mut [u8]) -> io::Result<()> {
        pread(&self.file, pos, buf)
    }

    fn read_ranges_into(
        &self,
        ranges: &[std::ops::Range<u64>],
        bufs: &mut [Vec<u8>],
    ) -> io::Result<()> {
        super::read_ranges_in_place(self, ranges, bufs)
    }
}

impl WritableStorage for FileStorage {
    fn write_all_at(&self, pos: u64, bytes: &[u8]) -> io::Result<()> {
        self.writable()?;
        pwrite(&self.file, pos, bytes)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.writable()?;
        self.file.set_len(len)
    }

    fn sync_data(&self) -> io::Result<()> {
        self.file.sync_data()
    }
}

#[cfg(unix)]
fn pread(file: &fs::File, pos: u64, buf: &mut [u8]) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, pos)
}

#[cfg(unix)]
fn pwrite(file: &fs::File, pos: u64, bytes: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.write_all_at(bytes, pos)
}

#[cfg(windows)]
fn pread(file: &fs::File, mut pos: u64, mut buf: &mut [u8]) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, pos) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                pos += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(windows)]
fn pwrite(file: &fs::File, mut pos: u64, mut bytes: &[u8]) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !bytes.is_empty() {
        match file.seek_write(bytes, pos) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => {
                bytes = &bytes[n..];
                pos += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
