//! From memory images to file images: datatype conversion, with variable-length data moved
//! into the global heap.

use core::mem::size_of;

use h5_format::Writer;
use h5_types::convert::{ConversionOptions, Converter};
use h5_types::h5type::VarLenHeap;
use h5_types::Datatype;

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
        let (ms, fs) = (mem.size(), file.size());
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
                let handle = read_usize(src, 0)?;
                let bytes = if handle == 0 {
                    Vec::new()
                } else {
                    heap.get(handle)?.to_vec()
                };
                let len = bytes.len();
                self.put_vlen(dst, len, bytes)
            }
            (Datatype::VarLen(m), Datatype::VarLen(f)) => {
                let count = read_usize(src, 0)?;
                let handle = read_usize(src, size_of::<usize>())?;
                if count == 0 {
                    return self.put_vlen(dst, 0, Vec::new());
                }
                let payload = heap.get(handle)?;
                let need = count.checked_mul(m.base().size());
                ensure!(
                    need == Some(payload.len()),
                    BufferSize,
                    "variable-length sequence of {count} elements has {} bytes",
                    payload.len()
                );
                let payload = payload.to_vec();
                let mut out = vec![0u8; count * f.base().size()];
                self.convert_to_file(m.base(), f.base(), &payload, heap, &mut out, count)?;
                self.put_vlen(dst, count, out)
            }
            (Datatype::Compound(m), Datatype::Compound(f)) => {
                for fm in f.members() {
                    let Some(mm) = m.member(fm.name()) else {
                        continue;
                    };
                    let s = slice(src, mm.offset(), mm.datatype().size())?;
                    let d = slice_mut(dst, fm.offset(), fm.datatype().size())?;
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

    /// Store a variable-length value (`count` elements or bytes, `bytes` of file data) and
    /// write its file form (length, heap collection address, object index) into `dst`.
    fn put_vlen(&mut self, dst: &mut [u8], count: usize, bytes: Vec<u8>) -> Result<()> {
        let mut w = Writer::new(self.sizes);
        let count = u32::try_from(count).map_err(|_| {
            super::Error::new(
                super::ErrorKind::LimitExceeded,
                "variable-length value of more than 2^32 elements",
            )
        })?;
        w.put_u32(count);
        if count == 0 {
            w.put_zeros(self.sizes.offset as usize + 4);
        } else {
            let id = self.gheap_insert(bytes)?;
            id.encode(&mut w);
        }
        let out = w.as_slice();
        let d = slice_mut(dst, 0, out.len())?;
        d.copy_from_slice(out);
        Ok(())
    }
}
