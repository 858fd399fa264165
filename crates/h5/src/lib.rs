//! HDF5 in pure Rust.
//!
//! This crate is the facade: it re-exports the datatype model ([`types`]), the on-disk format
//! ([`format`](crate::format)), files ([`io`]) and `#[derive(H5Type)]`.
#![forbid(unsafe_code)]

pub mod bioc;
mod file;
pub mod netcdf;
pub mod read;
mod remote;

pub use h5_format as format;
pub use h5_io as io;
#[cfg(feature = "object-store")]
pub use h5_object_store as object_store;
pub use h5_types as types;
pub use h5_types::{Datatype, Error, ErrorKind, Result};

pub mod write;
pub use write::{
    AttrBuilder, AttrWriter, CommittedType, DatasetBuilder, DatasetWriter, FileFormat, GroupWriter,
    WritableFile, WriteError, WriteResult,
};

/// `#[derive(H5Type)]` and the trait it implements: `use h5::H5Type;` brings both.
///
/// ```
/// use h5::H5Type;
///
/// #[derive(H5Type)]
/// #[repr(C)]
/// struct S1 {
///     a: i32,
///     b: i8,
///     #[h5(name = "c_value")]
///     c: f64,
/// }
///
/// // What H5Tcreate(H5T_COMPOUND, sizeof(s1_t)) + H5Tinsert(.., HOFFSET(s1_t, a), ..) build.
/// let t = S1::h5_type();
/// let c = t.as_compound().unwrap();
/// assert_eq!(c.size(), 16);
/// let layout: Vec<(&str, usize)> = c.members().iter().map(|m| (m.name(), m.offset())).collect();
/// assert_eq!(layout, [("a", 0), ("b", 4), ("c_value", 8)]);
/// // The packed variant (H5Tpack) for compact storage.
/// assert_eq!(S1::h5_type_packed().size(), 13);
/// ```
pub use h5_derive::H5Type;
pub use h5_types::H5Type;

#[doc(hidden)]
pub use h5_types::__private;

pub use file::File;
pub use read::{Attribute, Dataset, Group, Link, LinkTarget, Node, OpenOptions};
