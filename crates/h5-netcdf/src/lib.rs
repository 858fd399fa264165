//! netCDF-4 files read and written the netCDF way ("The NetCDF Users' Guide", chapter 3
//! "Data"), as netcdf-c (4.10) reads and writes them.
//!
//! **The data model** ([`NcFile`], [`NcGroup`], [`Variable`]) is the one netcdf-c builds
//! over HDF5 (every rule is on [`NcFile`]): groups (visited in link creation order),
//! dimensions from dimension scales with their `_Netcdf4Dimid` ids (file-level dimensions by
//! name: [`NcFile::dimension`], [`NcGroup::dimension`] also finds those of enclosing groups),
//! variables named without the `_nc4_non_coord_` prefix, their dimensions from
//! `_Netcdf4Coordinates` or `DIMENSION_LIST` (phony dimensions for a plain HDF5 dataset),
//! coordinate variables ([`NcFile::coordinate_variable`]), variable and group attributes in
//! creation order without the ones netcdf-c hides ([`HIDDEN_ATTRIBUTES`]), and the length of
//! an unlimited dimension shared by every variable using it (the longest), reads past a
//! variable's own extent giving its fill value.
//!
//! **Access** ([`Variable::read`], section 3.2.1): the whole variable, one element by its
//! index vector, an array section (`start`, `count`), a subsampled section (with `stride`)
//! and a mapped section (with `imap`, the memory distance between neighbours along each
//! dimension), as [`NcForm`] values, checked in netcdf-c's order and with its statuses
//! ([`Error::nc_status`]): `NC_ECHAR` (text read as numbers), `NC_EMAPTYPE` (a mapped read
//! of a user type), then `NC_EINVALCOORDS`, `NC_EEDGE` and `NC_ESTRIDE` against the
//! dimensions, then `NC_EBADTYPE` (a numeric read of an enum, compound, opaque,
//! variable-length or string variable).
//!
//! **Conversion** (section 3.3): any numeric variable reads into any numeric type
//! ([`Numeric`]): `i8`..`i64`, `u8`..`u64`, `f32`, `f64`, with netcdf-c's range checks by
//! default ([`Rules::NetcdfC`]): the source value is compared with the destination's bounds
//! as C compares them, so `NC_ERANGE` for ±infinity read as `float`, for 255.5 or -0.5 read
//! as `ubyte`, but not for a NaN read as an integer (C's comparisons with NaN are false) nor
//! for 2^63 read as `int64` (`(double)INT64_MAX` is 2^63); byte and unsigned byte do not
//! range-check each other in a classic-model file (`_nc3_strict`). A range error keeps every
//! value converted: [`Variable::read_converted`] returns them with the positions and index
//! vectors of the offending ones, [`Variable::read`] makes them an [`Error`] of kind
//! [`ErrorKind::Range`]. [`Rules::Strict`] (earlier versions' reading) also refuses NaN and
//! infinities as integers and 2^63 as `int64`, and accepts ±infinity as `float`.
//! [`Variable::read_text`] reads `char` variables, [`Variable::read_strings`] `string`
//! ones, by the same forms and with the same fill past a variable's own extent.
//!
//! **Masking and unpacking** on request ([`Variable::read_masked`], [`MaskScale`]):
//! netCDF4-python's automatic mask (`_FillValue`, `missing_value`, `valid_min`, `valid_max`,
//! `valid_range`, the default fill value) and scale (`scale_factor`, `add_offset`); off in
//! every other read, as in netcdf-c.
//!
//! **Writing** ([`write::NcWriter`]): dimensions (unlimited too), variables of every atomic
//! type, coordinate variables, attributes, fill values, chunking (netcdf-c's default chunk
//! sizes), shuffle and deflate, groups; laid out as netcdf-c lays its files out, so that
//! `ncdump` prints them as it prints the same file written by netCDF4-python.
//!
//! **Deliberate differences from netcdf-c** (each checked by the differential tests, which
//! count them apart):
//!
//! * where C's cast is undefined (a NaN, or a float whose truncation is outside the
//!   destination, read as an integer) netcdf-c's value is whatever the processor gives (on
//!   x86-64 the "integer indefinite", e.g. `i32::MIN`); ours is Rust's saturating `as`
//!   (NaN gives 0). The status is the same;
//! * a read past a variable's own extent along an unlimited dimension that is not its first
//!   dimension: netcdf-c stores the values it read first and the fill values after them,
//!   which misplaces both (netCDF4-python shows the same); we put each value at its index;
//! * a variable never written whose HDF5 fill time is "never" reads as zeros (netcdf-c
//!   returns uninitialised memory);
//! * a string never written, which netcdf-c returns as a NULL pointer, reads as "";
//! * the writer writes superblock version 3 (netcdf-c 2), an `_NCProperties` that names this
//!   crate, and a string variable's fill value as the HDF5 default (h5-io's writer has no
//!   variable-length fill values), which `ncdump -s` shows as `_NoFill = "true"`; it does
//!   not write user-defined types.
//!
//! **Ragged arrays** (section 3.4): [`NcFile::ragged_rows`] follows the guide's convention,
//! a `row_index` attribute on the data variable naming the integer variable that holds each
//! row's start (row `i` spans `[start[i], start[i+1])`, the last row ends at the data
//! variable's end; starts must be non-decreasing and within the data).
//! [`NcFile::cf_contiguous_rows`] follows the CF conventions' "contiguous ragged array": a
//! count variable whose `sample_dimension` attribute names the data variable's dimension
//! holds each row's length, rows being stored one after another.
//!
//! ```no_run
//! use h5_netcdf::{NcFile, NcForm};
//! # fn main() -> Result<(), h5_netcdf::Error> {
//! let nc = NcFile::open("weather.nc")?;
//! let temp = nc.variable("temp")?; // temp(time, level, lat, lon)
//! // The second level, every time, latitude and longitude (the guide's section 3.2.2).
//! let shape = temp.shape();
//! let v: Vec<f64> = temp.read(NcForm::Section {
//!     start: &[0, 1, 0, 0],
//!     count: &[shape[0], 1, shape[2], shape[3]],
//! })?;
//! // Read as bytes: out-of-range values are reported, the others converted.
//! let c = temp.read_converted::<i8>(NcForm::Whole)?;
//! println!("{} values, {} out of range", c.values.len(), c.out_of_range.len());
//! # let _ = v;
//! # Ok(())
//! # }
//! ```
//!
//! Writing:
//!
//! ```no_run
//! use h5_netcdf::write::{NcWriter, Target};
//! use h5_netcdf::{NcType, NcValue};
//! # fn main() -> Result<(), h5_netcdf::Error> {
//! let mut w = NcWriter::create("out.nc")?;
//! let root = w.root();
//! let time = w.def_dim(root, "time", None)?; // unlimited
//! let x = w.def_dim(root, "x", Some(3))?;
//! let t = w.def_var(root, "time", NcType::Double, &[time])?; // a coordinate variable
//! let v = w.def_var(root, "v", NcType::Short, &[time, x])?;
//! w.def_var_fill(v, Some(NcValue::Short(vec![-99])))?;
//! w.def_var_deflate(v, true, Some(4))?;
//! w.put_att(Target::Var(v), "scale_factor", NcValue::Double(vec![0.5]))?;
//! w.put_att(Target::Group(root), "title", NcValue::text("example"))?;
//! w.put_var(t, &[0.0f64, 1.0])?;
//! w.put_vara(v, &[0, 0], &[2, 3], &[1i16, 2, 3, 4, 5, 6])?;
//! w.close()?;
//! # Ok(())
//! # }
//! ```

mod convert;
mod error;
mod model;
mod ragged;
mod types;
mod variable;
pub mod write;

pub use convert::{Numeric, Rules};
pub use error::{Error, ErrorKind, Result};
pub use h5_io::selection::NcForm;
pub use model::{
    Attribute, Dimension, NcFile, NcGroup, HIDDEN_ATTRIBUTES, NON_COORD_PREFIX, NOT_A_VARIABLE,
};
pub use ragged::{ROW_INDEX, SAMPLE_DIMENSION};
pub use types::{NcType, NcValue};
pub use variable::{Converted, MaskScale, Masked, Variable};
