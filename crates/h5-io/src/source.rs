//! Byte sources: where a file's bytes come from.
//!
//! A [`ReadAt`] reads at an absolute position without moving a shared cursor, so any number of
//! threads can read one file at once with no lock: `pread` on a file descriptor, or a slice of
//! memory.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// Random-access reads, safe to share between threads.
pub trait ReadAt: Send + Sync + fmt::Debug {
    /// Fill `buf` from absolute position `pos`. Fewer bytes than asked (the end of the source)
    /// is an error of kind `UnexpectedEof`.
    fn read_exact_at(&self, pos: u64, buf: &mut [u8]) -> std::io::Result<()>;

    /// The source's length in bytes.
    fn len(&self) -> std::io::Result<u64>;

    /// Whether the source is empty.
    fn is_empty(&self) -> std::io::Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Read `n` bytes at `pos` into a new vector, checking first that they exist, so that a
    /// length read from a hostile file cannot make us allocate more than the file holds.
    fn read_vec(&self, pos: u64, n: usize) -> std::io::Result<Vec<u8>> {
        let len = self.len()?;
        let end = pos.checked_add(n as u64);
        if end.is_none_or(|e| e > len) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("{n} bytes at {pos:#x} extend past the end of the file ({len:#x})"),
            ));
        }
        let mut v = vec![0u8; n];
        self.read_exact_at(pos, &mut v)?;
        Ok(v)
    }
}

/// A file on disk, read with positioned reads (`pread`): no seek, no lock.
#[derive(Debug)]
pub struct FileSource {
    file: std::fs::File,
    len: u64,
}

impl FileSource {
    /// Open a file for reading.
    pub fn open(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        Ok(FileSource { file, len })
    }

    /// Wrap an open file.
    pub fn from_file(file: std::fs::File) -> std::io::Result<Self> {
        let len = file.metadata()?.len();
        Ok(FileSource { file, len })
    }
}

#[cfg(unix)]
fn pread(file: &std::fs::File, pos: u64, buf: &mut [u8]) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, pos)
}

#[cfg(windows)]
fn pread(file: &std::fs::File, mut pos: u64, mut buf: &mut [u8]) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, pos) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                pos += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

impl ReadAt for FileSource {
    fn read_exact_at(&self, pos: u64, buf: &mut [u8]) -> std::io::Result<()> {
        pread(&self.file, pos, buf)
    }

    fn len(&self) -> std::io::Result<u64> {
        Ok(self.len)
    }
}

/// Bytes in memory.
#[derive(Clone)]
pub struct MemSource {
    data: Arc<[u8]>,
}

impl MemSource {
    /// A source over these bytes.
    pub fn new(data: impl Into<Arc<[u8]>>) -> Self {
        MemSource { data: data.into() }
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }
}

impl fmt::Debug for MemSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MemSource({} bytes)", self.data.len())
    }
}

impl ReadAt for MemSource {
    fn read_exact_at(&self, pos: u64, buf: &mut [u8]) -> std::io::Result<()> {
        let start = usize::try_from(pos)
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))?;
        let src = start
            .checked_add(buf.len())
            .and_then(|end| self.data.get(start..end))
            .ok_or_else(|| {
                std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    format!(
                        "{} bytes at {pos:#x} extend past the end ({:#x})",
                        buf.len(),
                        self.data.len()
                    ),
                )
            })?;
        buf.copy_from_slice(src);
        Ok(())
    }

    fn len(&self) -> std::io::Result<u64> {
        Ok(self.data.len() as u64)
    }
}

/// Several sources laid end to end as one address space: the family driver's member files,
/// each `member_size` bytes except the last.
#[derive(Debug)]
pub struct FamilySource {
    members: Vec<Box<dyn ReadAt>>,
    member_size: u64,
}

impl FamilySource {
    /// Members in order; every member but the last covers exactly `member_size` bytes of the
    /// address space (a shorter member reads as zeros past its end, as the family driver does).
    pub fn new(members: Vec<Box<dyn ReadAt>>, member_size: u64) -> std::io::Result<Self> {
        if member_size == 0 || members.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a family needs members of a positive size",
            ));
        }
        Ok(FamilySource {
            members,
            member_size,
        })
    }
}

impl ReadAt for FamilySource {
    fn read_exact_at(&self, mut pos: u64, mut buf: &mut [u8]) -> std::io::Result<()> {
        while !buf.is_empty() {
            let idx = usize::try_from(pos / self.member_size)
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))?;
            let within = pos % self.member_size;
            let n = ((self.member_size - within) as usize).min(buf.len());
            let member = self
                .members
                .get(idx)
                .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))?;
            let (head, tail) = buf.split_at_mut(n);
            let mlen = member.len()?;
            if within >= mlen {
                head.fill(0);
            } else {
                let avail = ((mlen - within) as usize).min(n);
                member.read_exact_at(within, &mut head[..avail])?;
                head[avail..].fill(0);
            }
            buf = tail;
            pos += n as u64;
        }
        Ok(())
    }

    fn len(&self) -> std::io::Result<u64> {
        let last = self.members.len() as u64 - 1;
        let last_len = self.members.last().map_or(Ok(0), |m| m.len())?;
        Ok(last * self.member_size + last_len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_source_bounds() {
        let s = MemSource::new(vec![1u8, 2, 3, 4]);
        let mut b = [0u8; 2];
        s.read_exact_at(2, &mut b).unwrap();
        assert_eq!(b, [3, 4]);
        assert!(s.read_exact_at(3, &mut b).is_err());
        assert!(s.read_exact_at(u64::MAX, &mut b).is_err());
        assert!(s.read_vec(0, 1 << 40).is_err());
    }

    #[test]
    fn family_spans_members() {
        let a: Box<dyn ReadAt> = Box::new(MemSource::new(vec![1u8, 2, 3]));
        let b: Box<dyn ReadAt> = Box::new(MemSource::new(vec![5u8, 6]));
        let f = FamilySource::new(vec![a, b], 4).unwrap();
        assert_eq!(f.len().unwrap(), 6);
        let mut buf = [9u8; 6];
        f.read_exact_at(0, &mut buf).unwrap();
        assert_eq!(buf, [1, 2, 3, 0, 5, 6]);
    }

    #[test]
    fn file_source_reads_positionally() {
        let dir = std::env::temp_dir().join(format!("h5-io-source-{}", std::process::id()));
        std::fs::write(&dir, b"hello world").unwrap();
        let s = FileSource::open(&dir).unwrap();
        let mut b = [0u8; 5];
        s.read_exact_at(6, &mut b).unwrap();
        assert_eq!(&b, b"world");
        assert!(s.read_exact_at(8, &mut b).is_err());
        std::fs::remove_file(&dir).unwrap();
    }
}
