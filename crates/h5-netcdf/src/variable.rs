//! Variables: the five access forms with netcdf-c's conversion, text and strings, masking
//! and unpacking.

use h5_io::selection::{nc_access, Dataspace, MemoryMap, NcMode, Selection};
use h5_io::vlen::string_bytes;
use h5_io::Dataset;
use h5_types::Datatype;

use crate::convert::{convert, Numeric, Rules, Src};
use crate::error::{Error, ErrorKind, Result};
use crate::model::{Attribute, Dimension};
use crate::types::NcType;
use crate::NcForm;

/// The values of a read with the netCDF conversion, and those out of range.
#[derive(Clone, Debug, PartialEq)]
pub struct Converted<T> {
    /// Every value read. Out-of-range ones hold what C's cast gives where it is defined (an
    /// integer wraps into a narrower integer, a double beyond `float` becomes infinity), and
    /// Rust's saturating `as` where C's is undefined (a float beyond an integer's range gives
    /// the nearest bound, NaN gives 0).
    pub values: Vec<T>,
    /// The positions in `values` of the values out of range, increasing.
    pub out_of_range: Vec<usize>,
    /// The index vectors in the variable of the values out of range, in the same order.
    pub out_of_range_at: Vec<Vec<u64>>,
}

impl<T: Numeric> Converted<T> {
    /// The values, or a range error naming the offending ones.
    pub fn into_result(self) -> Result<Vec<T>> {
        if self.out_of_range.is_empty() {
            return Ok(self.values);
        }
        let shown: Vec<String> = self
            .out_of_range_at
            .iter()
            .take(8)
            .map(|c| {
                let c: Vec<String> = c.iter().map(u64::to_string).collect();
                format!("[{}]", c.join(", "))
            })
            .collect();
        let more = if self.out_of_range.len() > 8 {
            ", ..."
        } else {
            ""
        };
        let mut e = Error::new(
            ErrorKind::Range,
            format!(
                "{} value(s) out of range of {} ({}), at {}{more} (the other values were converted)",
                self.out_of_range.len(),
                T::NC_NAME,
                std::any::type_name::<T>(),
                shown.join(", ")
            ),
        );
        e.positions = self.out_of_range;
        Err(e)
    }
}

/// A variable of a netCDF-4 file.
#[derive(Clone, Debug)]
pub struct Variable {
    pub(crate) ds: Dataset,
    name: String,
    pub(crate) dims: Vec<Dimension>,
    dimids: Vec<usize>,
    attrs: Vec<Attribute>,
    coordinate: bool,
    classic: bool,
}

/// The corner, edge lengths and strides of an access, on a variable of shape `shape`.
fn section(form: &NcForm<'_>, shape: &[u64]) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
    let r = shape.len();
    match *form {
        NcForm::Whole => (vec![0; r], shape.to_vec(), vec![1; r]),
        NcForm::Element { index } => (index.to_vec(), vec![1; r], vec![1; r]),
        NcForm::Section { start, count } => (start.to_vec(), count.to_vec(), vec![1; r]),
        NcForm::Subsampled {
            start,
            count,
            stride,
        } => (start.to_vec(), count.to_vec(), stride.to_vec()),
        NcForm::Mapped {
            start,
            count,
            stride,
            ..
        } => (
            start.to_vec(),
            count.to_vec(),
            stride.map_or_else(|| vec![1; r], <[u64]>::to_vec),
        ),
    }
}

impl Variable {
    pub(crate) fn new(
        ds: Dataset,
        name: String,
        dims: Vec<Dimension>,
        dimids: Vec<usize>,
        attrs: Vec<Attribute>,
        coordinate: bool,
        classic: bool,
    ) -> Variable {
        Variable {
            ds,
            name,
            dims,
            dimids,
            attrs,
            coordinate,
            classic,
        }
    }

    /// The variable's path in the file.
    pub fn path(&self) -> &str {
        self.ds.path()
    }

    /// The variable's netCDF name (without the `_nc4_non_coord_` prefix of its dataset).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The HDF5 dataset.
    pub fn dataset(&self) -> &Dataset {
        &self.ds
    }

    /// The dimensions, slowest varying first.
    pub fn dims(&self) -> &[Dimension] {
        &self.dims
    }

    /// The current shape as netCDF sees it: the lengths of the variable's dimensions (an
    /// unlimited dimension's length is shared, so it may exceed what is stored).
    pub fn shape(&self) -> Vec<u64> {
        self.dims.iter().map(|d| d.len).collect()
    }

    /// The shape of the stored dataset.
    pub fn stored_shape(&self) -> Vec<u64> {
        self.ds.shape()
    }

    /// The ids of the variable's dimensions (netcdf-c's `dimids`).
    pub fn dimids(&self) -> &[usize] {
        &self.dimids
    }

    /// Whether the variable is its dimension's coordinate variable.
    pub fn is_coordinate(&self) -> bool {
        self.coordinate
    }

    /// The netCDF type.
    pub fn nc_type(&self) -> NcType {
        NcType::of(self.ds.datatype())
    }

    /// The variable's attributes, in creation order (without those netcdf-c hides).
    pub fn attributes(&self) -> &[Attribute] {
        &self.attrs
    }

    /// The attribute `name`.
    pub fn attribute(&self, name: &str) -> Option<&crate::NcValue> {
        self.attrs.iter().find(|a| a.name == name).map(|a| &a.value)
    }

    /// The fill value netcdf-c uses for this variable: its `_FillValue` attribute, else the
    /// type's default fill value.
    pub fn fill_value(&self) -> Option<crate::NcValue> {
        match self.attribute("_FillValue") {
            Some(v) if v.nc_type() == self.nc_type() && v.len() == 1 => Some(v.clone()),
            _ => self.nc_type().default_fill(),
        }
    }

    /// The datatype as stored.
    pub fn datatype(&self) -> &Datatype {
        self.ds.datatype()
    }

    /// Whether the variable is text (netCDF `char`: one-byte fixed strings).
    pub fn is_text(&self) -> bool {
        matches!(self.ds.datatype(), Datatype::String(s) if !s.is_variable() && self.ds.datatype().size() == 1)
    }

    /// Read with netcdf-c's conversion ([`Rules::NetcdfC`]), failing with a range error
    /// ([`ErrorKind::Range`], naming the offending values) when values are out of the range
    /// of `T`.
    pub fn read<T: Numeric>(&self, form: NcForm<'_>) -> Result<Vec<T>> {
        self.read_with(form, Rules::NetcdfC)
    }

    /// Read with the conversion `rules`, failing with a range error when values are out of
    /// the range of `T`.
    pub fn read_with<T: Numeric>(&self, form: NcForm<'_>, rules: Rules) -> Result<Vec<T>> {
        self.read_converted_with(form, rules)?
            .into_result()
            .map_err(|e| e.at(self.path()))
    }

    /// Read with netcdf-c's conversion: every value converted, those out of the range of
    /// `T` listed.
    pub fn read_converted<T: Numeric>(&self, form: NcForm<'_>) -> Result<Converted<T>> {
        self.read_converted_with(form, Rules::NetcdfC)
    }

    /// Read with the conversion `rules`: every value converted, those out of the range of
    /// `T` listed.
    pub fn read_converted_with<T: Numeric>(
        &self,
        form: NcForm<'_>,
        rules: Rules,
    ) -> Result<Converted<T>> {
        self.read_converted_impl(form, rules)
            .map_err(|e| e.at(self.path()))
    }

    fn read_converted_impl<T: Numeric>(
        &self,
        form: NcForm<'_>,
        rules: Rules,
    ) -> Result<Converted<T>> {
        let (block, plan) = self.read_block(form, T::NC_NAME)?;
        // A classic-model file (`_nc3_strict`) follows netCDF-3: bytes read as unsigned
        // bytes and back are never range errors.
        let byte_pair = self.classic
            && matches!(self.nc_type(), NcType::Byte | NcType::UByte)
            && matches!(T::NC_NAME, "byte" | "ubyte");
        let mut values = Vec::with_capacity(block.len());
        let mut bad = Vec::new();
        for (seq, &v) in block.iter().enumerate() {
            let (x, b) = convert::<T>(v, rules);
            values.push(x);
            if b && !byte_pair {
                bad.push(seq);
            }
        }
        let gap = match self.fill_src() {
            Some(f) => convert::<T>(f, rules).0,
            None => convert::<T>(crate::convert::Src::I(0), rules).0,
        };
        let (values, positions) = plan.place(values, gap);
        let mut out_of_range = Vec::with_capacity(bad.len());
        let mut out_of_range_at = Vec::with_capacity(bad.len());
        for seq in bad {
            out_of_range.push(positions.as_ref().map_or(seq, |p| p[seq]));
            out_of_range_at.push(plan.coords(seq));
        }
        let mut order: Vec<usize> = (0..out_of_range.len()).collect();
        order.sort_by_key(|&i| out_of_range[i]);
        Ok(Converted {
            values,
            out_of_range: order.iter().map(|&i| out_of_range[i]).collect(),
            out_of_range_at: order.iter().map(|&i| out_of_range_at[i].clone()).collect(),
        })
    }

    /// The fill value in the variable's own type.
    fn fill_src(&self) -> Option<crate::convert::Src> {
        self.fill_value()?.srcs()?.first().copied()
    }

    /// The values an access reaches, in the variable's type, in packed order (slowest
    /// dimension first), with the fill value where the access goes past the variable's own
    /// extent along an unlimited dimension; and the plan that places them.
    fn read_block(&self, form: NcForm<'_>, want: &str) -> Result<(Vec<crate::convert::Src>, Plan)> {
        // netcdf-c's order of checks: text against numbers, a map on a user type, the access
        // against the dimensions, then the other types.
        let ty = self.nc_type();
        if ty == NcType::Char {
            return Err(Error::new(
                ErrorKind::Char,
                format!(
                    "the variable is text ({}), read as {want}",
                    self.ds.datatype()
                ),
            ));
        }
        if matches!(ty, NcType::User(_)) && matches!(form, NcForm::Mapped { .. }) {
            return Err(Error::new(
                ErrorKind::MapType,
                format!(
                    "a mapped read of {}, not an atomic type",
                    self.ds.datatype()
                ),
            ));
        }
        let logical = self.check_access(form)?;
        match &ty {
            NcType::String => {
                return Err(Error::new(
                    ErrorKind::BadType,
                    format!(
                        "the variable holds strings ({}), read as {want}",
                        self.ds.datatype()
                    ),
                ))
            }
            NcType::User(dt) => {
                return Err(Error::new(
                    ErrorKind::BadType,
                    format!("the variable's type {dt} is not numeric, read as {want}"),
                ))
            }
            _ => {}
        }
        let (plan, raw, inside) = self.read_inside(form, &logical)?;
        let read = crate::types::decode_srcs(&ty, self.ds.datatype(), &raw)?;
        let fill = self.fill_src().unwrap_or(crate::convert::Src::I(0));
        Ok((expand(read, fill, &inside, &plan.count), plan))
    }

    /// The plan of a checked access on the netCDF shape `logical`, the raw bytes of the
    /// part inside the stored dataset (packed), and how many steps along each dimension that
    /// part has (a scalar: the whole of it).
    fn read_inside(&self, form: NcForm<'_>, logical: &[u64]) -> Result<(Plan, Vec<u8>, Vec<u64>)> {
        let rank = logical.len();
        let (start, count, stride) = section(&form, logical);
        let imap = match form {
            NcForm::Mapped { imap: Some(m), .. } => Some(m.to_vec()),
            _ => None,
        };
        // The values an access returns (and, mapped, the memory it spans) are bounded like
        // any selection, before anything is allocated.
        let limit = h5::low_level::format::limits::MAX_SELECTION_ELEMENTS;
        let total = count
            .iter()
            .try_fold(1u64, |a, &c| a.checked_mul(c))
            .filter(|&t| t <= limit);
        let span = match &imap {
            Some(m) => count
                .iter()
                .zip(m)
                .try_fold(1u64, |a, (&c, &m)| {
                    c.saturating_sub(1)
                        .checked_mul(m)
                        .and_then(|x| x.checked_add(a))
                })
                .filter(|&t| t <= limit),
            None => total,
        };
        if total.is_none() || span.is_none() {
            return Err(Error::new(
                ErrorKind::Invalid,
                format!("the access reaches more than {limit} elements"),
            ));
        }
        let plan = Plan {
            start: start.clone(),
            count: count.clone(),
            stride: stride.clone(),
            imap,
        };
        if rank == 0 {
            let (raw, _) = self.ds.read_raw()?;
            return Ok((plan, raw, Vec::new()));
        }
        let stored = self.ds.shape();
        // Along each dimension, how many of the strided steps land inside the dataset.
        let inside: Vec<u64> = (0..rank)
            .map(|d| {
                let ext = stored.get(d).copied().unwrap_or(0);
                if start[d] >= ext {
                    0
                } else {
                    count[d].min((ext - start[d]).div_ceil(stride[d].max(1)))
                }
            })
            .collect();
        let n: u64 = inside.iter().product();
        let raw = if n == 0 {
            Vec::new()
        } else {
            let sel =
                Selection::hyperslab(self.ds.dataspace(), &start, Some(&stride), &inside, None)
                    .map_err(Error::selection)?;
            self.ds.read_raw_selection(&sel, &MemoryMap::packed(n))?
        };
        Ok((plan, raw, inside))
    }

    /// Check an access against the variable's netCDF shape (shared unlimited lengths).
    fn check_access(&self, form: NcForm<'_>) -> Result<Vec<u64>> {
        let logical = self.shape();
        let space = if logical.is_empty() {
            self.ds.dataspace().clone()
        } else {
            Dataspace::simple(&logical).map_err(Error::selection)?
        };
        nc_access(&space, form, NcMode::Read).map_err(Error::selection)?;
        Ok(logical)
    }

    /// Read as doubles with netCDF4-python's automatic masking and unpacking, each on
    /// request ([`MaskScale`]); the values a mapped section skips are masked.
    ///
    /// Masking (netCDF4-python's `set_auto_mask`): a value is masked when it equals one of
    /// the `missing_value` values, or the `_FillValue` (else, unless the variable is a byte
    /// type stored without fill, the type's default fill value), NaN matching NaN; or when
    /// it is below `valid_min` or above `valid_max` (`valid_range`, when it has two values,
    /// giving both). Unpacking (`set_auto_scale`): `value * scale_factor + add_offset`,
    /// either attribute optional. Masked values keep their (unpacked) value in
    /// [`Masked::values`]. Deliberate differences: the result is always `f64` (netCDF4-python
    /// returns the type of the packing attributes); `_Unsigned` is not applied; attribute
    /// values compare exactly with the values (integers as integers), where netCDF4-python
    /// first casts them to the variable's type.
    pub fn read_masked(&self, form: NcForm<'_>, opts: MaskScale) -> Result<Masked> {
        let f = || -> Result<Masked> {
            let (block, plan) = self.read_block(form, "double")?;
            let raw: Vec<f64> = block.iter().map(|v| v.as_f64()).collect();
            let mut mask = vec![false; raw.len()];
            if opts.mask {
                let m = self.mask_rule();
                for (i, &x) in block.iter().enumerate() {
                    mask[i] = m.masks(x);
                }
            }
            let values: Vec<f64> = if opts.scale {
                let num = |n: &str| {
                    self.attribute(n)
                        .and_then(|v| v.as_f64s())
                        .and_then(|v| v.first().copied())
                };
                let (sf, ao) = (num("scale_factor"), num("add_offset"));
                // Each attribute only when present (so -0.0 stays -0.0, as in numpy).
                raw.iter()
                    .map(|&x| {
                        let x = sf.map_or(x, |s| x * s);
                        ao.map_or(x, |a| x + a)
                    })
                    .collect()
            } else {
                raw
            };
            let (values, _) = plan.place(values, f64::NAN);
            let (mask, _) = plan.place(mask, true);
            Ok(Masked { values, mask })
        };
        f().map_err(|e| e.at(self.path()))
    }

    fn mask_rule(&self) -> MaskRule {
        let nums = |n: &str| self.attribute(n).and_then(|v| v.srcs());
        let mut equal = nums("missing_value").unwrap_or_default();
        match nums("_FillValue") {
            Some(f) => equal.extend(f.first()),
            None => {
                let no_fill = self.ds.fill_value().fill_time == h5_io::dataset::FillTime::Never;
                let byte = matches!(self.nc_type(), NcType::Byte | NcType::UByte);
                if !(no_fill && byte) {
                    if let Some(f) = self.nc_type().default_fill().and_then(|v| v.srcs()) {
                        equal.extend(f.first());
                    }
                }
            }
        }
        let (min, max) = match nums("valid_range") {
            Some(r) if r.len() == 2 => (Some(r[0]), Some(r[1])),
            _ => (
                nums("valid_min").and_then(|v| v.first().copied()),
                nums("valid_max").and_then(|v| v.first().copied()),
            ),
        };
        MaskRule { equal, min, max }
    }

    /// Every value (`nc_get_var`).
    pub fn get_var<T: Numeric>(&self) -> Result<Vec<T>> {
        self.read(NcForm::Whole)
    }

    /// One value by its index vector (`nc_get_var1`).
    pub fn get_var1<T: Numeric>(&self, index: &[u64]) -> Result<T> {
        let mut v = self.read::<T>(NcForm::Element { index })?;
        v.pop()
            .ok_or_else(|| Error::new(ErrorKind::Io, "no value at that index").at(self.path()))
    }

    /// An array section (`nc_get_vara`).
    pub fn get_vara<T: Numeric>(&self, start: &[u64], count: &[u64]) -> Result<Vec<T>> {
        self.read(NcForm::Section { start, count })
    }

    /// A subsampled array section (`nc_get_vars`).
    pub fn get_vars<T: Numeric>(
        &self,
        start: &[u64],
        count: &[u64],
        stride: &[u64],
    ) -> Result<Vec<T>> {
        self.read(NcForm::Subsampled {
            start,
            count,
            stride,
        })
    }

    /// A mapped array section (`nc_get_varm`): the result has as many elements as the map
    /// reaches (the largest offset plus one); elements the map skips hold the fill value.
    pub fn get_varm<T: Numeric>(
        &self,
        start: &[u64],
        count: &[u64],
        stride: Option<&[u64]>,
        imap: &[u64],
    ) -> Result<Vec<T>> {
        self.read(NcForm::Mapped {
            start,
            count,
            stride,
            imap: Some(imap),
        })
    }

    /// The strings of a variable-length string variable (netCDF-4 `string`), by any access
    /// form (elements a mapped section skips are empty).
    pub fn read_strings(&self, form: NcForm<'_>) -> Result<Vec<String>> {
        let f = || -> Result<Vec<String>> {
            let dt = self.ds.datatype();
            if !matches!(dt, Datatype::String(s) if s.is_variable()) {
                return Err(Error::new(
                    ErrorKind::Char,
                    format!("the variable is {dt}, not a string variable"),
                ));
            }
            let logical = self.check_access(form)?;
            let (plan, raw, inside) = self.read_inside(form, &logical)?;
            let bytes = string_bytes(self.ds.file(), dt, &raw)
                .map_err(|e| Error::new(ErrorKind::Io, e.to_string()))?;
            let read = bytes
                .into_iter()
                .enumerate()
                .map(|(i, b)| {
                    String::from_utf8(b).map_err(|_| {
                        Error::new(
                            ErrorKind::Convention,
                            format!("string {i} is not UTF-8 (netCDF strings are)"),
                        )
                    })
                })
                .collect::<Result<Vec<String>>>()?;
            let fill = match self.attribute("_FillValue") {
                Some(crate::NcValue::Strings(s)) if s.len() == 1 => s[0].clone(),
                _ => String::new(),
            };
            let all = expand(read, fill, &inside, &plan.count);
            Ok(plan.place(all, String::new()).0)
        };
        f().map_err(|e| e.at(self.path()))
    }

    /// The characters of a text variable (netCDF `char`), by any access form.
    pub fn read_text(&self, form: NcForm<'_>) -> Result<Vec<u8>> {
        let f = || -> Result<Vec<u8>> {
            if !self.is_text() {
                return Err(Error::new(
                    ErrorKind::Char,
                    format!("the variable is {}, not text", self.ds.datatype()),
                ));
            }
            let logical = self.check_access(form)?;
            let (plan, raw, inside) = self.read_inside(form, &logical)?;
            let fill = match self.attribute("_FillValue") {
                Some(crate::NcValue::Char(b)) => b.first().copied().unwrap_or(0),
                _ => 0,
            };
            let all = expand(raw, fill, &inside, &plan.count);
            Ok(plan.place(all, fill).0)
        };
        f().map_err(|e| e.at(self.path()))
    }
}

/// The values of an access in packed order: those read (`inside` steps along each
/// dimension) where they are, `fill` past them.
fn expand<U: Clone>(read: Vec<U>, fill: U, inside: &[u64], count: &[u64]) -> Vec<U> {
    if inside == count || count.is_empty() {
        return read;
    }
    let rank = count.len();
    let total: u64 = count.iter().product();
    let mut out = Vec::with_capacity(usize::try_from(total).unwrap_or(0));
    let mut it = read.into_iter();
    let mut idx = vec![0u64; rank];
    for _ in 0..total {
        if idx.iter().zip(inside).all(|(i, k)| i < k) {
            out.push(it.next().unwrap_or_else(|| fill.clone()));
        } else {
            out.push(fill.clone());
        }
        for k in (0..rank).rev() {
            idx[k] += 1;
            if idx[k] < count[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    out
}

/// Which of netCDF4-python's automatic conversions [`Variable::read_masked`] applies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MaskScale {
    /// Mask missing values (`_FillValue`, `missing_value`, `valid_*`).
    pub mask: bool,
    /// Unpack with `scale_factor` and `add_offset`.
    pub scale: bool,
}

impl MaskScale {
    /// Both, as netCDF4-python does by default.
    pub fn both() -> MaskScale {
        MaskScale {
            mask: true,
            scale: true,
        }
    }
}

/// Values read with [`Variable::read_masked`].
#[derive(Clone, Debug, PartialEq)]
pub struct Masked {
    /// Every value, unpacked when asked.
    pub values: Vec<f64>,
    /// Whether each value is masked.
    pub mask: Vec<bool>,
}

impl Masked {
    /// The values, `None` where masked.
    pub fn options(&self) -> Vec<Option<f64>> {
        self.values
            .iter()
            .zip(&self.mask)
            .map(|(&v, &m)| (!m).then_some(v))
            .collect()
    }
}

struct MaskRule {
    equal: Vec<Src>,
    min: Option<Src>,
    max: Option<Src>,
}

/// Compare two values exactly: integers as integers, anything else as doubles.
fn compare(a: Src, b: Src) -> Option<std::cmp::Ordering> {
    let int = |s: Src| match s {
        Src::I(v) => Some(i128::from(v)),
        Src::U(v) => Some(i128::from(v)),
        _ => None,
    };
    match (int(a), int(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => a.as_f64().partial_cmp(&b.as_f64()),
    }
}

impl MaskRule {
    fn masks(&self, x: Src) -> bool {
        use std::cmp::Ordering::{Equal, Greater, Less};
        let nan = x.as_f64().is_nan();
        self.equal
            .iter()
            .any(|&e| compare(x, e) == Some(Equal) || (nan && e.as_f64().is_nan()))
            || self.min.is_some_and(|m| compare(x, m) == Some(Less))
            || self.max.is_some_and(|m| compare(x, m) == Some(Greater))
    }
}

/// Where the values of an access go in memory.
struct Plan {
    start: Vec<u64>,
    count: Vec<u64>,
    stride: Vec<u64>,
    imap: Option<Vec<u64>>,
}

impl Plan {
    /// The index vector in the variable of the `seq`-th value (packed order).
    fn coords(&self, seq: usize) -> Vec<u64> {
        let mut rest = seq as u64;
        let mut out = vec![0; self.count.len()];
        for k in (0..self.count.len()).rev() {
            let c = self.count[k].max(1);
            out[k] = self.start[k] + (rest % c) * self.stride[k];
            rest /= c;
        }
        out
    }

    /// Place packed values by the map (gaps hold `gap`); with the position of each value
    /// when it moved.
    fn place<U: Clone>(&self, values: Vec<U>, gap: U) -> (Vec<U>, Option<Vec<usize>>) {
        let Some(m) = &self.imap else {
            return (values, None);
        };
        if values.is_empty() {
            return (values, Some(Vec::new()));
        }
        let extent = self
            .count
            .iter()
            .zip(m)
            .map(|(c, m)| c.saturating_sub(1) * m)
            .sum::<u64>()
            + 1;
        let mut out = vec![gap; usize::try_from(extent).unwrap_or(0)];
        let mut positions = Vec::with_capacity(values.len());
        let rank = self.count.len();
        let mut idx = vec![0u64; rank];
        for v in values {
            let pos = idx.iter().zip(m).map(|(i, m)| i * m).sum::<u64>() as usize;
            if let Some(slot) = out.get_mut(pos) {
                *slot = v;
            }
            positions.push(pos);
            for k in (0..rank).rev() {
                idx[k] += 1;
                if idx[k] < self.count[k] {
                    break;
                }
                idx[k] = 0;
            }
        }
        (out, Some(positions))
    }
}
