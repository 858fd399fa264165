//! netCDF-4 files read the netCDF way ("The NetCDF Users' Guide", chapter 3 "Data").
//!
//! **Variables and dimensions.** A netCDF-4 file is an HDF5 file whose datasets are variables.
//! Dimensions are dimension scales: a coordinate variable is a dataset of the dimension's name
//! made a scale; a dimension without one is a dataset whose `NAME` attribute starts with
//! "This is a netCDF dimension but not a netCDF variable". A variable's `DIMENSION_LIST`
//! attribute names its dimensions; an unlimited dimension is one whose maximum size is
//! unlimited.
//!
//! **Access** ([`Variable::read`], section 3.2.1): the whole variable, one element by its
//! index vector, an array section (`start`, `count`), a subsampled section (with `stride`)
//! and a mapped section (with `imap`, the memory distance between neighbours along each
//! dimension), as [`NcForm`] values, with netCDF's errors (`NC_EINVALCOORDS`, `NC_EEDGE`,
//! `NC_ESTRIDE`).
//!
//! **Conversion** (section 3.3): any numeric variable reads into any numeric type ([`Numeric`]):
//! `i8`..`i64`, `u8`..`u64`, `f32`, `f64`. Floats convert to integers by truncation toward
//! zero; loss of precision is not an error. A value the destination cannot represent (out of
//! range, or a NaN or infinity read as an integer) is a range error (`NC_ERANGE`), but every
//! other value is still converted: [`Variable::read_converted`] returns the values together
//! with the positions and index vectors of the offending ones, and [`Variable::read`] turns
//! them into an [`Error`] of kind [`ErrorKind::Range`]. Byte variables are signed or
//! unsigned as their HDF5 datatype says. Text (`char`) variables do not convert to numbers
//! (`NC_ECHAR`); [`Variable::read_text`] reads them, and [`Variable::read_strings`] reads
//! netCDF-4 `string` variables.
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
