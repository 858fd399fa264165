//! A hand-written little-endian cursor over file bytes that knows its absolute file offset and
//! the superblock's field sizes, and its encoding counterpart [`Writer`].

use crate::addr::{Addr, Sizes};
use crate::checksum::checksum;
use crate::{Error, ErrorKind, Result};

/// A read position in a byte slice that starts at absolute file offset `base`.
///
/// Every read checks bounds and returns an [`Error`] naming the structure being parsed and
/// the absolute offset; nothing here panics on any input.
#[derive(Clone, Debug)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    sizes: Sizes,
    structure: &'static str,
}

impl<'a> Cursor<'a> {
    /// A cursor over `data`, whose first byte is at absolute file offset `base`.
    pub fn new(data: &'a [u8], base: u64, sizes: Sizes) -> Self {
        Cursor {
            data,
            pos: 0,
            base,
            sizes,
            structure: "",
        }
    }

    /// The same cursor, naming `structure` in the errors it returns.
    #[must_use]
    pub fn in_structure(mut self, structure: &'static str) -> Self {
        self.structure = structure;
        self
    }

    /// Set the structure name used in errors from now on.
    pub fn set_structure(&mut self, structure: &'static str) {
        self.structure = structure;
    }

    /// The structure name used in errors.
    pub fn structure(&self) -> &'static str {
        self.structure
    }

    /// The superblock's sizes.
    pub fn sizes(&self) -> Sizes {
        self.sizes
    }

    /// Absolute file offset of the next byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Position relative to the start of the slice.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Absolute file offset of the first byte of the slice.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Whether no bytes are left.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The whole underlying slice.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The bytes not yet read.
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    /// An error of `kind` at the current offset in the current structure.
    #[cold]
    pub fn error(&self, kind: ErrorKind, message: impl Into<String>) -> Error {
        Error::new(kind, self.structure, self.offset(), message)
    }

    /// An error of `kind` at `offset` in the current structure.
    #[cold]
    pub fn error_at(&self, kind: ErrorKind, offset: u64, message: impl Into<String>) -> Error {
        Error::new(kind, self.structure, offset, message)
    }

    /// Move to relative position `pos` (0 ..= len).
    pub fn set_pos(&mut self, pos: usize) -> Result<()> {
        if pos > self.data.len() {
            return Err(self.error(
                ErrorKind::UnexpectedEof,
                format!("position {pos} is past the end ({} bytes)", self.data.len()),
            ));
        }
        self.pos = pos;
        Ok(())
    }

    /// Skip `n` bytes.
    #[inline]
    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.read_bytes(n).map(|_| ())
    }

    /// Read `n` bytes.
    #[inline]
    pub fn read_bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.error(
                ErrorKind::UnexpectedEof,
                format!("need {n} bytes, {} left", self.remaining()),
            ));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Read a fixed-size array.
    #[inline]
    pub fn read_array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let s = self.read_bytes(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    /// Read one byte.
    #[inline]
    pub fn read_u8(&mut self) -> Result<u8> {
        Ok(self.read_array::<1>()?[0])
    }

    /// Read a little-endian u16.
    #[inline]
    pub fn read_u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.read_array()?))
    }

    /// Read a little-endian u32.
    #[inline]
    pub fn read_u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.read_array()?))
    }

    /// Read a little-endian u64.
    #[inline]
    pub fn read_u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.read_array()?))
    }

    /// Read a little-endian unsigned integer of `n` bytes (0 ..= 8).
    #[inline]
    pub fn read_uint(&mut self, n: usize) -> Result<u64> {
        if n > 8 {
            return Err(self.error(
                ErrorKind::InvalidValue,
                format!("integer field of {n} bytes is wider than 8"),
            ));
        }
        // The common widths as fixed-size loads (no variable-length copy).
        match n {
            8 => return self.read_array::<8>().map(u64::from_le_bytes),
            4 => {
                return self
                    .read_array::<4>()
                    .map(|b| u64::from(u32::from_le_bytes(b)))
            }
            _ => {}
        }
        let s = self.read_bytes(n)?;
        let mut v = [0u8; 8];
        v[..n].copy_from_slice(s);
        Ok(u64::from_le_bytes(v))
    }

    /// Read an address of "Size of Offsets" bytes; all bits set is [`Addr::UNDEF`].
    #[inline]
    pub fn read_addr(&mut self) -> Result<Addr> {
        let n = self.sizes.offset as usize;
        let v = self.read_uint(n)?;
        Ok(if n < 8 && v == (1u64 << (8 * n)) - 1 || v == u64::MAX {
            Addr::UNDEF
        } else {
            Addr(v)
        })
    }

    /// Read a length of "Size of Lengths" bytes.
    #[inline]
    pub fn read_len(&mut self) -> Result<u64> {
        self.read_uint(self.sizes.length as usize)
    }

    /// Read a length of "Size of Lengths" bytes where all bits set means "undefined"
    /// (returned as `u64::MAX`).
    pub fn read_len_or_undef(&mut self) -> Result<u64> {
        let n = self.sizes.length as usize;
        let v = self.read_uint(n)?;
        Ok(if n < 8 && v == (1u64 << (8 * n)) - 1 {
            u64::MAX
        } else {
            v
        })
    }

    /// Read and check a 4-byte signature.
    pub fn expect_signature(&mut self, sig: &[u8; 4]) -> Result<()> {
        let at = self.offset();
        let got = self.read_array::<4>()?;
        if &got != sig {
            return Err(self.error_at(
                ErrorKind::BadSignature,
                at,
                format!(
                    "expected {:?}, found {:?}",
                    String::from_utf8_lossy(sig),
                    String::from_utf8_lossy(&got)
                ),
            ));
        }
        Ok(())
    }

    /// Read a 4-byte checksum and compare it with the lookup3 checksum of the slice's bytes from
    /// relative position `start` up to the checksum.
    pub fn verify_checksum(&mut self, start: usize) -> Result<()> {
        let end = self.pos;
        let at = self.offset();
        let stored = self.read_u32()?;
        let covered = self.data.get(start..end).ok_or_else(|| {
            self.error(
                ErrorKind::InvalidValue,
                "checksum range is outside the structure",
            )
        })?;
        let computed = checksum(covered);
        if stored != computed {
            return Err(self.error_at(
                ErrorKind::ChecksumMismatch,
                at,
                format!(
                    "stored {stored:#010x}, computed {computed:#010x} over {} bytes from {:#x}",
                    covered.len(),
                    self.base + start as u64
                ),
            ));
        }
        Ok(())
    }

    /// A sub-cursor over the next `n` bytes (and skip them here).
    #[inline]
    pub fn sub(&mut self, n: usize) -> Result<Cursor<'a>> {
        let base = self.offset();
        let data = self.read_bytes(n)?;
        Ok(Cursor {
            data,
            pos: 0,
            base,
            sizes: self.sizes,
            structure: self.structure,
        })
    }

    /// Read bytes up to (not including) a NUL, consuming the NUL; at most `max` bytes.
    pub fn read_cstr(&mut self, max: usize) -> Result<&'a [u8]> {
        let rest = self.rest();
        let lim = rest.len().min(max.saturating_add(1));
        match rest[..lim].iter().position(|&b| b == 0) {
            Some(n) => {
                let s = &rest[..n];
                self.pos += n + 1;
                Ok(s)
            }
            None => Err(self.error(
                ErrorKind::InvalidValue,
                format!("string is not NUL-terminated within {max} bytes"),
            )),
        }
    }

    /// Skip to the next multiple of `align` relative to the slice start.
    pub fn align(&mut self, align: usize) -> Result<()> {
        let pad = (align - self.pos % align) % align;
        self.skip(pad)
    }
}

/// The encoding counterpart of [`Cursor`]: appends little-endian fields to a buffer.
#[derive(Clone, Debug, Default)]
pub struct Writer {
    buf: Vec<u8>,
    sizes: Sizes,
}

impl Writer {
    /// An empty writer for a file with these sizes.
    pub fn new(sizes: Sizes) -> Self {
        Writer {
            buf: Vec::new(),
            sizes,
        }
    }

    /// The superblock's sizes.
    pub fn sizes(&self) -> Sizes {
        self.sizes
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The bytes written.
    pub fn as_slice(&self) -> &[u8] {
        &self.buf
    }

    /// The bytes written, mutably (to patch a field written earlier).
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.buf
    }

    /// The finished buffer.
    pub fn into_vec(self) -> Vec<u8> {
        self.buf
    }

    /// Append bytes.
    pub fn put_bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Append `n` zero bytes.
    pub fn put_zeros(&mut self, n: usize) {
        self.buf.resize(self.buf.len() + n, 0);
    }

    /// Append one byte.
    pub fn put_u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    /// Append a little-endian u16.
    pub fn put_u16(&mut self, v: u16) {
        self.put_bytes(&v.to_le_bytes());
    }

    /// Append a little-endian u32.
    pub fn put_u32(&mut self, v: u32) {
        self.put_bytes(&v.to_le_bytes());
    }

    /// Append a little-endian u64.
    pub fn put_u64(&mut self, v: u64) {
        self.put_bytes(&v.to_le_bytes());
    }

    /// Append the low `n` bytes (0 ..= 8) of `v`, little-endian.
    pub fn put_uint(&mut self, v: u64, n: usize) {
        let b = v.to_le_bytes();
        self.put_bytes(&b[..n.min(8)]);
        if n > 8 {
            self.put_zeros(n - 8);
        }
    }

    /// Append an address of "Size of Offsets" bytes ([`Addr::UNDEF`] as all bits set).
    pub fn put_addr(&mut self, a: Addr) {
        let n = self.sizes.offset as usize;
        if a.is_undef() {
            self.buf.extend(std::iter::repeat_n(0xff, n));
        } else {
            self.put_uint(a.0, n);
        }
    }

    /// Append a length of "Size of Lengths" bytes.
    pub fn put_len(&mut self, v: u64) {
        self.put_uint(v, self.sizes.length as usize);
    }

    /// Append the lookup3 checksum of the bytes from `start` to the current end.
    pub fn put_checksum(&mut self, start: usize) {
        let c = checksum(&self.buf[start.min(self.buf.len())..]);
        self.put_u32(c);
    }

    /// Pad with zeros to a multiple of `align` relative to the buffer start.
    pub fn align(&mut self, align: usize) {
        let pad = (align - self.buf.len() % align) % align;
        self.put_zeros(pad);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_fields_and_reports_offsets() {
        let data = [1u8, 2, 0, 3, 0, 0, 0, 0xff, 0xff, 0xff, 0xff];
        let mut c = Cursor::new(
            &data,
            0x100,
            Sizes {
                offset: 4,
                length: 4,
            },
        )
        .in_structure("test");
        assert_eq!(c.read_u8().unwrap(), 1);
        assert_eq!(c.read_u16().unwrap(), 2);
        assert_eq!(c.read_u32().unwrap(), 3);
        assert_eq!(c.offset(), 0x107);
        assert!(c.read_addr().unwrap().is_undef());
        let e = c.read_u8().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::UnexpectedEof);
        assert_eq!(e.offset(), Some(0x10b));
        assert!(e.to_string().ends_with("at 0x10b"), "{e}");
    }

    #[test]
    fn writer_round_trips_through_cursor() {
        let sizes = Sizes {
            offset: 8,
            length: 4,
        };
        let mut w = Writer::new(sizes);
        w.put_addr(Addr(0x1234));
        w.put_addr(Addr::UNDEF);
        w.put_len(77);
        w.put_checksum(0);
        let bytes = w.into_vec();
        let mut c = Cursor::new(&bytes, 0, sizes);
        assert_eq!(c.read_addr().unwrap(), Addr(0x1234));
        assert!(c.read_addr().unwrap().is_undef());
        assert_eq!(c.read_len().unwrap(), 77);
        c.verify_checksum(0).unwrap();
    }

    #[test]
    fn checksum_mismatch_is_reported() {
        let mut bytes = vec![1u8, 2, 3];
        bytes.extend_from_slice(&0u32.to_le_bytes());
        let mut c = Cursor::new(&bytes, 0x40, Sizes::DEFAULT).in_structure("thing");
        c.skip(3).unwrap();
        let e = c.verify_checksum(0).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ChecksumMismatch);
        assert_eq!(e.structure(), "thing");
        assert_eq!(e.offset(), Some(0x43));
    }
}
