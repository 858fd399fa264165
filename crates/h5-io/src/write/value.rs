//! From memory images to file images: datatype conversion, with variable-length data moved
//! into the global heap.

use core::mem::size_of;

use h5_format::message::datatype::disk_size;
use h5_format::{Sizes, Writer};
use h5_types::convert::{ConversionOptions, Converter};
use h5_types::h5type::VarLenHeap;
use h5_types::{CompoundType, Datatype};

use super::file::FileWriter;
use super::{bail, ensure, Result};

fn read_usize(b: &[u8], at: usize) -> Result<usize> {
    let mut a = [0u8; size_of::<usize>()];
    match b.get(at..at + size_of::<usize>()) {
        Some(s) => {
            a.copy_from_slice(s);
            Ok(usize::from_ne_bytes(a))
        }
        None => bail!(
            BufferSize,
            "memory image too short for a variable-length slot"
        ),
    }
}

fn slice(b: &[u8], at: usize, len: usize) -> Result<&[u8]> {
    match b.get(at..at.saturating_add(len)) {
        Some(s) => Ok(s),
        None => bail!(BufferSize, "memory image of {} bytes too short", b.len()),
    }
}

fn slice_mut(b: &mut [u8], at: usize, len: usize) -> Result<&mut [u8]> {
    let n = b.len();
    match b.get_mut(at..at.saturating_add(len)) {
        Some(s) => Ok(s),
        None => bail!(BufferSize, "file image of {n} bytes too short"),
    }
}

/// Bytes of one element of `dt` in the file.
pub(crate) fn file_size(dt: &Datatype) -> usize {
    disk_size(dt, Sizes::DEFAULT) as usize
}

/// The datatype as stored in a file: compound members after a variable-length string (8
/// bytes in memory, 16 on disk) move up so none overlap, as the reference library's
/// `H5T_set_loc` does.
pub(crate) fn disk_type(dt: &Datatype) -> Result<Datatype> {
    Ok(match dt {
        Datatype::Compound(c) => {
            let mut members: Vec<_> = c.members().iter().collect();
            members.sort_by_key(|m| m.offset());
            let mut shift = 0usize;
            let mut placed = Vec::with_capacity(members.len());
            for m in members {
                let t = disk_type(m.datatype())?;
                let grow = file_size(&t).saturating_sub(m.datatype().size());
                placed.push((m.name().to_owned(), m.offset() + shift, t));
                shift += grow;
            }
            let mut out = CompoundType::new(c.size() + shift)?;
            for (name, offset, t) in placed {
                out.insert(&name, offset, t)?;
            }
            out.into()
        }
        Datatype::Array(a) if a.base().has_variable_length() => {
            h5_types::ArrayType::new(disk_type(a.base())?, a.dims())?.into()
        }
        Datatype::VarLen(v) => h5_types::VarLenType::new(disk_type(v.base())?).into(),
        other => other.clone(),
    })
}

impl FileWriter {
    /// Convert `n` elements of the memory type `mem` (image `src`, variable-length payloads
    /// in `heap`) to the file type `file` into `dst`. `dst` holds the background: compound
    /// members the memory type lacks keep their bytes. Variable-length data is written to the
    /// global heap.
    pub(crate) fn convert_to_file(
        &mut self,
        mem: &Datatype,
        file: &Datatype,
        src: &[u8],
        heap: &VarLenHeap,
        dst: &mut [u8],
        n: usize,
    ) -> Result<()> {
        let (ms, fs) = (mem.size(), file_size(file));
        ensure!(
            src.len() >= n * ms && dst.len() >= n * fs,
            BufferSize,
            "{n} elements need {} bytes of memory type and {} of file type, got {} and {}",
            n * ms,
            n * fs,
            src.len(),
            dst.len()
        );
        if !mem.has_variable_length() && !file.has_variable_length() {
            if mem == file {
                dst[..n * fs].copy_from_slice(&src[..n * ms]);
            } else {
                let conv = Converter::new(mem, file)?;
                conv.convert(src, dst, n, &mut ConversionOptions::new())?;
            }
            return Ok(());
        }
        for i in 0..n {
            let s = slice(src, i * ms, ms)?;
            let d = slice_mut(dst, i * fs, fs)?;
            self.element_to_file(mem, file, s, heap, d)?;
        }
        Ok(())
    }

    fn element_to_file(
        &mut self,
        mem: &Datatype,
        file: &Datatype,
        src: &[u8],
        heap: &VarLenHeap,
        dst: &mut [u8],
    ) -> Result<()> {
        match (mem, file) {
            (Datatype::String(m), Datatype::String(f)) if m.is_variable() && f.is_variable() => {
                // Handle 0 is a null pointer: the nil value. Any other string, the empty
                // one included, is a heap object (as the reference library writes it).
                let handle = read_usize(src, 0)?;
                if handle == 0 {
                    return self.put_vlen(dst, 0, None);
                }
                let bytes = heap.entry(handle)?.to_vec();
                self.put_vlen(dst, bytes.len(), Some(bytes))
            }
            (Datatype::VarLen(m), Datatype::VarLen(f)) => {
                let count = read_usize(src, 0)?;
                let handle = read_usize(src, size_of::<usize>())?;
                if handle == 0 {
                    return self.put_vlen(dst, 0, None);
                }
                let payload = heap.entry(handle)?;
                let need = count.checked_mul(m.base().size());
                ensure!(
                    need == Some(payload.len()),
                    BufferSize,
                    "variable-length sequence of {count} elements has {} bytes",
                    payload.len()
                );
                let payload = payload.to_vec();
                let mut out = vec![0u8; count * file_size(f.base())];
                self.convert_to_file(m.base(), f.base(), &payload, heap, &mut out, count)?;
                self.put_vlen(dst, count, Some(out))
            }
            (Datatype::Compound(m), Datatype::Compound(f)) => {
                for fm in f.members() {
                    let Some(mm) = m.member(fm.name()) else {
                        continue;
                    };
                    let s = slice(src, mm.offset(), mm.datatype().size())?;
                    let d = slice_mut(dst, fm.offset(), file_size(fm.datatype()))?;
                    self.element_to_file(mm.datatype(), fm.datatype(), s, heap, d)?;
                }
                Ok(())
            }
            (Datatype::Array(m), Datatype::Array(f)) => {
                ensure!(
                    m.len() == f.len(),
                    Conversion,
                    "arrays of {} and {} elements",
                    m.len(),
                    f.len()
                );
                self.convert_to_file(m.base(), f.base(), src, heap, dst, m.len() as usize)
            }
            _ if !mem.has_variable_length() && !file.has_variable_length() => {
                self.convert_to_file(mem, file, src, heap, dst, 1)
            }
            _ => bail!(
                Conversion,
                "no conversion from memory type {mem} to file type {file}"
            ),
        }
    }

    /// Store a variable-length value (`count` elements or bytes, `bytes` of file data; `None`
    /// for the nil value) and write its file form (length, heap collection address, object
    /// index) into `dst`.
    fn put_vlen(&mut self, dst: &mut [u8], count: usize, bytes: Option<Vec<u8>>) -> Result<()> {
        let mut w = Writer::new(self.sizes);
        let count = u32::try_from(count).map_err(|_| {
            super::Error::new(
                super::ErrorKind::LimitExceeded,
                "variable-length value of more than 2^32 elements",
            )
        })?;
        w.put_u32(count);
        match bytes {
            None => w.put_zeros(self.sizes.offset as usize + 4),
            Some(b) => self.gheap_insert(b)?.encode(&mut w),
        }
        let out = w.as_slice();
        let d = slice_mut(dst, 0, out.len())?;
        d.copy_from_slice(out);
        Ok(())
    }
}
