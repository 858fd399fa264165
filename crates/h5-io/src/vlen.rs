//! From the file's bytes to Rust values.
//!
//! Fixed-size data converts directly from the file datatype to the memory type with the
//! conversion engine. Variable-length data is first turned into the *memory image* of the
//! file type: each variable-length value (stored as a length and a global heap ID) is read
//! from its global heap collection into a [`VarLenHeap`] entry, and compound members move as
//! the reference library moves them when variable-length members change size in memory.
//! The conversion engine then converts that image, and [`H5Type::decode`] builds the values.

use h5_format::message::datatype::disk_size;
use h5_format::{Addr, Cursor};
use h5_types::convert::{Converter, VarLenHeap};
use h5_types::h5type::decode_slice;

use crate::reader::Conversion;
use h5_types::{ArrayType, CompoundType, Datatype, H5Type, VarLenType};

use crate::error::{bail, ensure, Error, ErrorKind, Result};
use crate::file::File;

/// How deep variable-length values may nest.
const MAX_VLEN_DEPTH: usize = 32;

/// The datatype of the memory image of file type `dt`: variable-length parts take their
/// in-memory size, and compound members after them move by the difference (`H5T_set_loc`).
pub fn memory_type(dt: &Datatype, sizes: h5_format::Sizes) -> Result<Datatype> {
    Ok(match dt {
        Datatype::VarLen(v) => VarLenType::new(memory_type(v.base(), sizes)?).into(),
        Datatype::Array(a) => ArrayType::new(memory_type(a.base(), sizes)?, a.dims())?.into(),
        Datatype::Compound(c) if dt.has_variable_length() => {
            let mut order: Vec<usize> = (0..c.len()).collect();
            order.sort_by_key(|&i| c.members()[i].offset());
            let mut offsets = vec![0usize; c.len()];
            let mut types = vec![None; c.len()];
            let mut accum: i64 = 0;
            for &i in &order {
                let m = &c.members()[i];
                let old = disk_size(m.datatype(), sizes) as i64;
                let t = memory_type(m.datatype(), sizes)?;
                let new = t.size() as i64;
                offsets[i] = (m.offset() as i64 + accum).max(0) as usize;
                accum += new - old;
                types[i] = Some(t);
            }
            let size = (c.size() as i64 + accum).max(1) as usize;
            let mut out = CompoundType::new(size)?;
            for (i, m) in c.members().iter().enumerate() {
                let t = types[i]
                    .take()
                    .ok_or_else(|| Error::new(ErrorKind::Datatype, "compound member"))?;
                out.insert(m.name(), offsets[i], t)?;
            }
            out.into()
        }
        other => other.clone(),
    })
}

/// The memory image of `n` elements stored as `raw` in file type `dt`, with the heap holding
/// their variable-length values. Returns the image's datatype too.
pub fn memory_image(
    file: &File,
    dt: &Datatype,
    raw: &[u8],
) -> Result<(Datatype, Vec<u8>, VarLenHeap)> {
    let sizes = file.sizes();
    let esize = disk_size(dt, sizes) as usize;
    ensure!(esize > 0, Datatype, "datatype of size 0");
    ensure!(
        raw.len().is_multiple_of(esize),
        Datatype,
        "{} bytes are not a whole number of {esize}-byte elements",
        raw.len()
    );
    let n = raw.len() / esize;
    let mdt = memory_type(dt, sizes)?;
    let msize = mdt.size();
    let mut image = vec![0u8; n.saturating_mul(msize)];
    let mut heap = VarLenHeap::new();
    for i in 0..n {
        to_memory(
            file,
            dt,
            &raw[i * esize..(i + 1) * esize],
            &mdt,
            &mut image[i * msize..(i + 1) * msize],
            &mut heap,
            0,
        )?;
    }
    Ok((mdt, image, heap))
}

fn put_usize(dst: &mut [u8], at: usize, v: usize) -> Result<()> {
    const W: usize = std::mem::size_of::<usize>();
    let d = dst
        .get_mut(at..at + W)
        .ok_or_else(|| Error::new(ErrorKind::Datatype, "memory image too short"))?;
    d.copy_from_slice(&v.to_le_bytes());
    Ok(())
}

/// The bytes of a variable-length value stored as (length, global heap ID) in `src`.
fn vlen_bytes(file: &File, src: &[u8]) -> Result<(u32, Vec<u8>)> {
    let sizes = file.sizes();
    let mut c = Cursor::new(src, 0, sizes);
    let len = c.read_u32()?;
    let addr = c.read_addr()?;
    let index = c.read_u32()?;
    if len == 0 || addr.is_undef() || addr == Addr(0) {
        return Ok((0, Vec::new()));
    }
    Ok((len, file.global_heap_object(addr, index)?))
}

/// Whether a stored variable-length value has a null heap ID (the nil value).
fn vlen_is_null(file: &File, src: &[u8]) -> bool {
    let mut c = Cursor::new(src, 0, file.sizes());
    let addr = c.read_u32().and_then(|_| c.read_addr());
    matches!(addr, Ok(a) if a.is_undef() || a == Addr(0))
}

fn to_memory(
    file: &File,
    fdt: &Datatype,
    src: &[u8],
    mdt: &Datatype,
    dst: &mut [u8],
    heap: &mut VarLenHeap,
    depth: usize,
) -> Result<()> {
    ensure!(
        depth < MAX_VLEN_DEPTH,
        LimitExceeded,
        "variable-length values nest deeper than {MAX_VLEN_DEPTH}"
    );
    let sizes = file.sizes();
    match (fdt, mdt) {
        (Datatype::String(s), _) if s.is_variable() => {
            let (len, bytes) = vlen_bytes(file, src)?;
            // A null heap ID is the nil string (a null pointer in memory); any other, even of
            // length 0, is a string (the empty one).
            let h = if len == 0 && bytes.is_empty() && vlen_is_null(file, src) {
                0
            } else {
                let l = (len as usize).min(bytes.len());
                heap.insert(bytes[..l].to_vec())
            };
            put_usize(dst, 0, h)
        }
        (Datatype::VarLen(fv), Datatype::VarLen(mv)) => {
            let (count, bytes) = vlen_bytes(file, src)?;
            let fb = disk_size(fv.base(), sizes) as usize;
            let mb = mv.base().size();
            let count = count as usize;
            ensure!(
                count.saturating_mul(fb) <= bytes.len(),
                Format,
                "variable-length sequence of {count} elements of {fb} bytes in a heap object of {}",
                bytes.len()
            );
            let h = if count == 0 {
                0
            } else {
                let mut payload = vec![0u8; count * mb];
                for i in 0..count {
                    to_memory(
                        file,
                        fv.base(),
                        &bytes[i * fb..(i + 1) * fb],
                        mv.base(),
                        &mut payload[i * mb..(i + 1) * mb],
                        heap,
                        depth + 1,
                    )?;
                }
                heap.insert(payload)
            };
            put_usize(dst, 0, count)?;
            put_usize(dst, std::mem::size_of::<usize>(), h)
        }
        (Datatype::Compound(fc), Datatype::Compound(mc)) if fdt.has_variable_length() => {
            for (fm, mm) in fc.members().iter().zip(mc.members()) {
                let fs = disk_size(fm.datatype(), sizes) as usize;
                let ms = mm.datatype().size();
                let s = src
                    .get(fm.offset()..fm.offset() + fs)
                    .ok_or_else(|| Error::new(ErrorKind::Format, "compound member past element"))?;
                let d = dst
                    .get_mut(mm.offset()..mm.offset() + ms)
                    .ok_or_else(|| Error::new(ErrorKind::Datatype, "memory member"))?;
                to_memory(file, fm.datatype(), s, mm.datatype(), d, heap, depth + 1)?;
            }
            Ok(())
        }
        (Datatype::Array(fa), Datatype::Array(ma)) if fdt.has_variable_length() => {
            let fs = disk_size(fa.base(), sizes) as usize;
            let ms = ma.base().size();
            for i in 0..fa.len() as usize {
                let s = src
                    .get(i * fs..(i + 1) * fs)
                    .ok_or_else(|| Error::new(ErrorKind::Format, "array element"))?;
                let d = dst
                    .get_mut(i * ms..(i + 1) * ms)
                    .ok_or_else(|| Error::new(ErrorKind::Datatype, "array element"))?;
                to_memory(file, fa.base(), s, ma.base(), d, heap, depth + 1)?;
            }
            Ok(())
        }
        _ => {
            let n = dst.len().min(src.len());
            dst[..n].copy_from_slice(&src[..n]);
            Ok(())
        }
    }
}

/// Convert `raw` (elements in file type `dt`, as stored) to values of `T`.
pub fn decode_as<T: H5Type>(file: &File, dt: &Datatype, raw: &[u8]) -> Result<Vec<T>> {
    decode_as_with(file, dt, raw, Conversion::DEFAULT)
}

/// [`decode_as`] converting as `cv` says.
pub(crate) fn decode_as_with<T: H5Type>(
    file: &File,
    dt: &Datatype,
    raw: &[u8],
    cv: Conversion,
) -> Result<Vec<T>> {
    let target = T::read_type(dt);
    let tsize = target.size();
    ensure!(
        tsize == T::IMAGE_SIZE,
        Datatype,
        "the memory type's size {tsize} differs from the Rust type's"
    );
    if !dt.has_variable_length() {
        let esize = dt.size();
        ensure!(esize > 0, Datatype, "datatype of size 0");
        let n = raw.len() / esize;
        let conv = Converter::new(dt, &target)?;
        let mut out = vec![0u8; n.saturating_mul(tsize)];
        // For fixed-length strings read as variable-length ones.
        let mut heap = VarLenHeap::new();
        conv.convert(raw, &mut out, n, &mut cv.options().with_heap(&mut heap))?;
        return Ok(decode_slice::<T>(&out, &heap)?);
    }
    let (mdt, image, mut heap) = memory_image(file, dt, raw)?;
    let n = if mdt.size() == 0 {
        bail!(Datatype, "datatype of size 0")
    } else {
        image.len() / mdt.size()
    };
    let conv = Converter::new(&mdt, &target)?;
    let mut out = vec![0u8; n.saturating_mul(tsize)];
    {
        let mut opts = cv.options().with_heap(&mut heap);
        conv.convert(&image, &mut out, n, &mut opts)?;
    }
    // The converter and `H5Type` share one heap: the converted handles decode directly.
    Ok(decode_slice::<T>(&out, &heap)?)
}

/// The bytes of each string element of `raw` (elements in file type `dt`, a fixed- or
/// variable-length string datatype, as stored), each ending at its first NUL or at its full
/// length, whatever the padding and character set.
pub fn string_bytes(file: &File, dt: &Datatype, raw: &[u8]) -> Result<Vec<Vec<u8>>> {
    let s = match dt {
        Datatype::String(s) => s,
        other => bail!(Datatype, "the datatype {other} is not a string datatype"),
    };
    let until_nul = |b: &[u8]| -> Vec<u8> {
        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        b[..end].to_vec()
    };
    if s.is_variable() {
        let (mdt, image, heap) = memory_image(file, dt, raw)?;
        let w = mdt.size();
        if w == 0 {
            return Ok(Vec::new());
        }
        image
            .chunks_exact(w)
            .map(|e| heap.string_of(e).map(until_nul).map_err(Error::from))
            .collect()
    } else {
        let w = dt.size();
        if w == 0 {
            return Ok(Vec::new());
        }
        Ok(raw.chunks_exact(w).map(until_nul).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use h5_types::{ByteOrder, CharSet, IntegerType, Sign, StrPad, StringType};

    #[test]
    fn compound_members_move_after_variable_length_ones() {
        let sizes = h5_format::Sizes::DEFAULT;
        let i4: Datatype =
            IntegerType::new(4, ByteOrder::LittleEndian, Sign::TwosComplement).into();
        let vs: Datatype = StringType::variable(StrPad::NullTerm, CharSet::Ascii).into();
        // On disk: a (4) | s (16: length, heap address, index) | b (4) = 24 bytes.
        let mut c = CompoundType::new(24).unwrap();
        c.insert("a", 0, i4.clone()).unwrap();
        c.insert("s", 4, vs).unwrap();
        c.insert("b", 20, i4).unwrap();
        let m = memory_type(&c.into(), sizes).unwrap();
        let m = m.as_compound().unwrap();
        // In memory the string is a pointer (8 bytes): b moves 8 bytes down.
        assert_eq!(m.size(), 16);
        let offs: Vec<usize> = m.members().iter().map(|x| x.offset()).collect();
        assert_eq!(offs, [0, 4, 12]);
    }
}
