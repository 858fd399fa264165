//! Reading HDF5 files.
//!
//! ```no_run
//! # fn main() -> Result<(), h5::read::Error> {
//! let f = h5::File::open("data.h5")?;
//! let ds = f.dataset("/g/d")?;
//! println!("{:?} {} {:?}", ds.shape(), ds.datatype(), ds.chunk_dims());
//! let v: Vec<f64> = ds.read()?;
//! let first_row: Vec<f64> = ds.read_slice(&[0, 0], None, &[1, 10], None)?;
//! let units: Vec<h5::types::h5type::VarLenUnicode> = ds.attr("units")?.read()?;
//! for l in f.group("/g")?.links()? {
//!     println!("{} -> {:?}", l.name, l.target);
//! }
//! # let _ = (v, first_row, units);
//! # Ok(())
//! # }
//! ```
//!
//! Reads convert from the file's datatype to the Rust type's (`H5Type`, also derived with
//! `#[derive(H5Type)]`): a struct holding a subset of a compound's members, in any order,
//! reads those members by name. [`Dataset::read_raw`] gives the bytes in the file's own
//! datatype. A [`File`] is cheap to clone and can be read from many threads at once.

pub use crate::file::File;
pub use h5_format::message::layout::{ChunkIndex, Layout, LayoutClass};
pub use h5_io::attribute::Attribute;
pub use h5_io::dataset::{AllocTime, Dataset, FillTime, FillValue};
pub use h5_io::error::{Error, ErrorKind, Result};
pub use h5_io::file::OpenOptions;
pub use h5_io::filter::{Filter, FilterId};
pub use h5_io::group::{Group, Location, NamedDatatype, Node};
pub use h5_io::link::{Link, LinkStorage, LinkTarget};
pub use h5_io::object::ObjectKind;
pub use h5_io::reference::Target as ReferenceTarget;
pub use h5_io::selection::{Dataspace, MemoryMap, NcForm, SelectOp, Selection};
