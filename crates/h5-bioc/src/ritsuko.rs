//! ritsuko's HDF5 rules (ArtifactDB/ritsuko, `include/ritsuko/hdf5/`), the rules the BioC
//! formats (takane, chihaya, alabaster, dolomite) are validated with since ritsuko replaced the
//! policy document. Each function names the ritsuko file and function it follows.
//!
//! Strings are byte strings here, as ritsuko's `std::string`: the character set only has to be
//! ASCII or UTF-8 (`is_utf8_string`), the bytes are not checked.

use h5_io::vlen::{decode_as, string_bytes};
use h5_io::{Attribute, Dataset, File};
use h5_types::{ByteOrder, Datatype, FloatType, Sign};

use crate::{AsDataset, Error, Result, Rule};

/// Whether integer datatype `dt` may hold values a two's-complement integer of `precision`
/// bits (signed or not) cannot: `true` for any other class. ritsuko
/// `hdf5/exceeds_limit.hpp`, `exceeds_integer_limit`: an unsigned datatype needs
/// `precision(dt) < precision` for a signed limit (one bit is the sign) and `<=` for an
/// unsigned one; a signed datatype never fits an unsigned limit, and needs `<=` for a signed
/// one. The datatype's precision counts, not its size.
pub fn exceeds_integer_limit(dt: &Datatype, precision: usize, signed: bool) -> bool {
    let Datatype::Integer(i) = dt else {
        return true;
    };
    let p = i.precision();
    match (i.sign(), signed) {
        (Sign::None, true) => p >= precision,
        (Sign::None, false) => p > precision,
        (Sign::TwosComplement, true) => p > precision,
        (Sign::TwosComplement, false) => true,
    }
}

/// The IEEE 754 binary32 and binary64 layouts, both byte orders (`H5T_IEEE_F32LE`...).
fn ieee(size: usize) -> [FloatType; 2] {
    let (e, m) = if size == 4 { (8, 23) } else { (11, 52) };
    [
        FloatType::ieee(size, ByteOrder::LittleEndian, e, m),
        FloatType::ieee(size, ByteOrder::BigEndian, e, m),
    ]
}

/// Whether datatype `dt` may hold values an IEEE 754 float of `precision` bits (32 or 64)
/// cannot hold exactly: `true` for classes other than integer and float. ritsuko
/// `hdf5/exceeds_limit.hpp`, `exceeds_float_limit` (with `exceeds_float_limit_by_integer` and
/// `_by_float`):
/// * floats: for a 64-bit limit the datatype must equal (`H5Tequal`) `H5T_IEEE_F64LE/BE` or
///   `H5T_IEEE_F32LE/BE`, for a 32-bit limit one of the F32 pair; anything else (half floats,
///   custom layouts, long doubles) exceeds, and every float exceeds a limit under 32 bits;
/// * integers: as [`exceeds_integer_limit`] against a signed limit of 52 bits (64-bit limit)
///   or 24 bits (32-bit limit); nothing fits under 32 bits. So an unsigned integer of 52 bits
///   of precision, or a signed one of 53, exceeds a double although a double holds it (the
///   deprecated policy accepted up to the mantissa, see [`crate::Rules`]).
pub fn exceeds_float_limit(dt: &Datatype, precision: usize) -> bool {
    match dt {
        Datatype::Integer(_) if precision >= 64 => exceeds_integer_limit(dt, 52, true),
        Datatype::Integer(_) if precision >= 32 => exceeds_integer_limit(dt, 24, true),
        Datatype::Float(f) if precision >= 64 => !ieee(8).contains(f) && !ieee(4).contains(f),
        Datatype::Float(f) if precision >= 32 => !ieee(4).contains(f),
        _ => true,
    }
}

/// Whether `dt` is a string datatype whose character set is UTF-8 compatible (ASCII or UTF-8,
/// the only two HDF5 has). ritsuko `hdf5/is_utf8_string.hpp`, `is_utf8_string`: the bytes
/// themselves are not checked.
pub fn is_utf8_string(dt: &Datatype) -> bool {
    matches!(dt, Datatype::String(_))
}

/// Whether each stored element of `raw` (file datatype `dt`) is a NULL variable-length string:
/// a heap ID whose collection address is 0 (what the reference library reads back as a NULL
/// `char*`, `H5T__vlen_disk_isnull`), as a dataset created without data holds. Fixed-length
/// strings are never NULL.
pub(crate) fn null_strings(file: &File, dt: &Datatype, raw: &[u8]) -> Result<Vec<bool>> {
    let Datatype::String(s) = dt else {
        return Ok(Vec::new());
    };
    if !s.is_variable() {
        let w = dt.size().max(1);
        return Ok(vec![false; raw.len() / w]);
    }
    // (length u32, collection address, object index u32), little-endian.
    let a = usize::from(file.sizes().offset);
    let w = 4 + a + 4;
    if !raw.len().is_multiple_of(w) {
        return Err(Error::from(h5_io::Error::new(
            h5_io::ErrorKind::Datatype,
            format!(
                "{} bytes of variable-length strings are not whole {w}-byte heap IDs",
                raw.len()
            ),
        )));
    }
    Ok(raw
        .chunks_exact(w)
        .map(|e| {
            let addr = &e[4..4 + a];
            addr.iter().all(|&b| b == 0) || addr.iter().all(|&b| b == 0xff)
        })
        .collect())
}

fn null_error(what: &str, i: usize) -> Error {
    Error::rule(
        Rule::NullString,
        format!("detected a NULL pointer for a variable length string {what} (element {i})"),
    )
}

/// The strings stored as `raw` in datatype `dt`, each up to its first NUL or its full length
/// (`find_string_length`), rejecting NULL variable-length strings.
pub(crate) fn strings(file: &File, dt: &Datatype, raw: &[u8], what: &str) -> Result<Vec<Vec<u8>>> {
    if !matches!(dt, Datatype::String(_)) {
        return Err(Error::rule(
            Rule::String,
            format!("the datatype {dt} is not a string datatype"),
        ));
    }
    if let Some(i) = null_strings(file, dt, raw)?.iter().position(|&n| n) {
        return Err(null_error(what, i));
    }
    Ok(string_bytes(file, dt, raw)?)
}

/// Every string of a string dataset (scalar, 1-D or N-D, row-major), as bytes. ritsuko
/// `hdf5/load_dataset.hpp` (`load_scalar_string_dataset`, `load_1d_string_dataset` through
/// `Stream1dStringDataset`) and `hdf5/validate_string.hpp` (`validate_*_string_dataset`): a
/// fixed-length string ends at its first NUL or its full length whatever its padding; a NULL
/// variable-length string is an error ([`Rule::NullString`]), not an empty string.
pub fn load_string_dataset(ds: &impl AsDataset) -> Result<Vec<Vec<u8>>> {
    let ds = &*ds.low()?;
    let (raw, dt) = ds.read_raw()?;
    strings(ds.file(), &dt, &raw, &format!("in '{}'", ds.path())).map_err(|e| e.at(ds.path()))
}

/// Every string of a string attribute (scalar or 1-D), as bytes. ritsuko
/// `hdf5/load_attribute.hpp`, `load_scalar_string_attribute` and `load_1d_string_attribute`
/// (with `validate_scalar_string_attribute`, `validate_1d_string_attribute`): as
/// [`load_string_dataset`], NULL variable-length strings rejected.
pub fn load_string_attribute(attr: &Attribute) -> Result<Vec<Vec<u8>>> {
    let (raw, dt) = attr.read_raw();
    strings(attr.file(), &dt, &raw, "attribute")
}

fn is_scalar(a: &Attribute) -> bool {
    matches!(a.dataspace(), h5_io::selection::Dataspace::Scalar)
}

/// Check a numeric placeholder attribute against its dataset. ritsuko
/// `hdf5/missing_placeholder.hpp`, `check_numeric_missing_placeholder_attribute`: a scalar
/// ([`Rule::PlaceholderScalar`]) of the dataset's exact datatype (`H5Tequal`), or of its class
/// only when `type_class_only` ([`Rule::PlaceholderType`]).
pub fn check_numeric_placeholder(
    ds: &impl AsDataset,
    attr: &Attribute,
    type_class_only: bool,
) -> Result<()> {
    let ds = &*ds.low()?;
    let name = attr.name();
    if !is_scalar(attr) {
        return Err(Error::rule(
            Rule::PlaceholderScalar,
            format!("expected the '{name}' attribute to be a scalar"),
        ));
    }
    let (p, d) = (attr.datatype(), ds.datatype());
    if type_class_only {
        if p.class() != d.class() {
            return Err(Error::rule(
                Rule::PlaceholderType,
                format!("expected the '{name}' attribute to have the same type class as its dataset ({p}, the dataset is {d})"),
            ));
        }
    } else if p != d {
        return Err(Error::rule(
            Rule::PlaceholderType,
            format!("expected the '{name}' attribute to have the same type as its dataset ({p}, the dataset is {d})"),
        ));
    }
    Ok(())
}

/// Check a string placeholder attribute. ritsuko `hdf5/missing_placeholder.hpp`,
/// `check_string_missing_placeholder_attribute`: a scalar of a string datatype, not a NULL
/// variable-length string.
pub fn check_string_placeholder(attr: &Attribute) -> Result<()> {
    string_placeholder_value(attr).map(|_| ())
}

pub(crate) fn string_placeholder_value(attr: &Attribute) -> Result<Vec<u8>> {
    let name = attr.name();
    if !is_scalar(attr) {
        return Err(Error::rule(
            Rule::PlaceholderScalar,
            format!("expected the '{name}' attribute to be a scalar"),
        ));
    }
    if !matches!(attr.datatype(), Datatype::String(_)) {
        return Err(Error::rule(
            Rule::PlaceholderType,
            format!("expected the '{name}' attribute to have a string datatype"),
        ));
    }
    let mut v = load_string_attribute(attr)?;
    Ok(v.pop().unwrap_or_default())
}

fn optional_attr(ds: &Dataset, name: &str) -> Result<Option<Attribute>> {
    match ds.attr(name) {
        Ok(a) => Ok(Some(a)),
        Err(e) if e.kind() == h5_io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The string placeholder of a dataset, when it has attribute `name`. ritsuko
/// `hdf5/missing_placeholder.hpp`, `open_and_load_optional_string_missing_placeholder`.
pub fn string_placeholder(ds: &impl AsDataset, name: &str) -> Result<Option<Vec<u8>>> {
    let ds = &*ds.low()?;
    optional_attr(ds, name)?
        .map(|a| string_placeholder_value(&a))
        .transpose()
        .map_err(|e| e.at(ds.path()))
}

/// ritsuko's VLS ("variable length string") arrays: a compound dataset of (`offset`, `length`)
/// pointers into a 1-D heap dataset of bytes (ritsuko `hdf5/vls/`).
pub mod vls {
    use super::*;

    fn vls_error(message: String) -> Error {
        Error::rule(Rule::Vls, message)
    }

    fn member_fits(m: &h5_types::Member, which: &str, precision: usize) -> Result<()> {
        if !matches!(m.datatype(), Datatype::Integer(_)) {
            return Err(vls_error(format!(
                "{which} member of a VLS compound datatype should have integer type"
            )));
        }
        if exceeds_integer_limit(m.datatype(), precision, false) {
            return Err(vls_error(format!(
                "{which} member of a VLS compound datatype should not exceed a {precision}-bit unsigned integer"
            )));
        }
        Ok(())
    }

    /// Check a pointer datatype. ritsuko `hdf5/vls/Pointer.hpp`, `validate_pointer_datatype`:
    /// a compound of two members, the first named `offset`, the second `length`, both
    /// integers no wider than unsigned integers of `offset_precision` and `length_precision`
    /// bits, each member's name checked before its class and width.
    pub fn check_pointer_datatype(
        dt: &Datatype,
        offset_precision: usize,
        length_precision: usize,
    ) -> Result<()> {
        let Datatype::Compound(c) = dt else {
            return Err(vls_error(format!(
                "expected a compound datatype for a VLS pointer dataset, not {dt}"
            )));
        };
        let [offset, length] = c.members() else {
            return Err(vls_error(
                "expected VLS compound datatype to have two members".into(),
            ));
        };
        // Names first, as ritsuko does for each member.
        if offset.name() != "offset" {
            return Err(vls_error(
                "first member of a VLS compound datatype should be named 'offset'".into(),
            ));
        }
        member_fits(offset, "first", offset_precision)?;
        if length.name() != "length" {
            return Err(vls_error(
                "second member of a VLS compound datatype should be named 'length'".into(),
            ));
        }
        member_fits(length, "second", length_precision)
    }

    /// Check a VLS pointer dataset. ritsuko `hdf5/vls/open.hpp`, `open_pointers`.
    pub fn check_pointers(
        ds: &impl AsDataset,
        offset_precision: usize,
        length_precision: usize,
    ) -> Result<()> {
        let ds = &*ds.low()?;
        check_pointer_datatype(ds.datatype(), offset_precision, length_precision).map_err(|e| {
            Error::rule(
                Rule::Vls,
                format!(
                    "incorrect type for VLS pointer dataset at '{}'; {}",
                    ds.path(),
                    e.message()
                ),
            )
            .at(ds.path())
        })
    }

    /// Check a VLS heap dataset. ritsuko `hdf5/vls/open.hpp`, `open_heap`: integers no wider
    /// than 8-bit unsigned, one dimension.
    pub fn check_heap(ds: &impl AsDataset) -> Result<()> {
        let ds = &*ds.low()?;
        let dt = ds.datatype();
        let fail = |m: String| Err(vls_error(m).at(ds.path()));
        if !matches!(dt, Datatype::Integer(_)) {
            return fail(format!(
                "expected an integer datatype for the VLS heap at '{}'",
                ds.path()
            ));
        }
        if exceeds_integer_limit(dt, 8, false) {
            return fail(format!(
                "expected 8-bit unsigned integers for the VLS heap at '{}'",
                ds.path()
            ));
        }
        if ds.shape().len() != 1 {
            return fail(format!(
                "expected a 1-dimensional dataset for the VLS heap at '{}'",
                ds.path()
            ));
        }
        Ok(())
    }

    /// The (offset, length) pairs of a pointer dataset (checked with [`check_pointers`] for
    /// 64-bit members), row-major.
    pub fn pointers(ds: &impl AsDataset) -> Result<Vec<(u64, u64)>> {
        let ds = &*ds.low()?;
        check_pointers(ds, 64, 64)?;
        let Datatype::Compound(c) = ds.datatype() else {
            return Err(vls_error(format!(
                "expected a compound datatype for a VLS pointer dataset at '{}'",
                ds.path()
            )));
        };
        let (raw, _) = ds.read_raw()?;
        let size = c.size().max(1);
        let n = raw.len() / size;
        let member = |m: &h5_types::Member| -> Result<Vec<u64>> {
            let w = m.datatype().size();
            let mut bytes = Vec::with_capacity(n * w);
            for e in raw.chunks_exact(size) {
                let b = e.get(m.offset()..m.offset() + w).ok_or_else(|| {
                    Error::from(h5_io::Error::new(
                        h5_io::ErrorKind::Datatype,
                        "a compound member lies past the end of its compound",
                    ))
                })?;
                bytes.extend_from_slice(b);
            }
            Ok(decode_as::<u64>(ds.file(), m.datatype(), &bytes)?)
        };
        let offsets = member(&c.members()[0])?;
        let lengths = member(&c.members()[1])?;
        Ok(offsets.into_iter().zip(lengths).collect())
    }

    fn out_of_range(ds: &Dataset, i: usize) -> Error {
        vls_error(format!(
            "VLS array pointers at '{}' are out of range of the heap (element {i})",
            ds.path()
        ))
        .at(ds.path())
    }

    /// Check that every pointer lies within a heap of `heap_length` bytes. ritsuko
    /// `hdf5/vls/validate.hpp`, `validate_1d_array` and `validate_nd_array`.
    pub fn validate(ds: &impl AsDataset, heap_length: u64) -> Result<()> {
        let ds = &*ds.low()?;
        for (i, (start, count)) in pointers(ds)?.into_iter().enumerate() {
            if start.checked_add(count).is_none_or(|end| end > heap_length) {
                return Err(out_of_range(ds, i));
            }
        }
        Ok(())
    }

    /// The strings of a VLS array: each pointer's slice of the heap up to its first NUL.
    /// ritsuko `hdf5/vls/Stream1dArray.hpp` (with `open_pointers(64, 64)` and `open_heap`):
    /// a slice past the heap's end is an error. Any shape of pointers (row-major).
    pub fn read(pointers_ds: &impl AsDataset, heap: &impl AsDataset) -> Result<Vec<Vec<u8>>> {
        let (pointers_ds, heap) = (&*pointers_ds.low()?, &*heap.low()?);
        let ptrs = pointers(pointers_ds)?;
        check_heap(heap)?;
        let (raw, dt) = heap.read_raw()?;
        let bytes = decode_as::<u8>(heap.file(), &dt, &raw)?;
        ptrs.into_iter()
            .enumerate()
            .map(|(i, (start, count))| {
                let end = start
                    .checked_add(count)
                    .filter(|&e| e <= bytes.len() as u64)
                    .ok_or_else(|| out_of_range(pointers_ds, i))?;
                let s = &bytes[start as usize..end as usize];
                let nul = s.iter().position(|&b| b == 0).unwrap_or(s.len());
                Ok(s[..nul].to_vec())
            })
            .collect()
    }
}
