//! HDF5 in pure Rust.
//!
//! This crate is the facade: it re-exports the datatype model ([`types`]), the on-disk format
//! ([`format`]), files ([`io`]) and `#[derive(H5Type)]`.
#![forbid(unsafe_code)]

pub use h5_format as format;
pub use h5_io as io;
pub use h5_types as types;
pub use h5_types::{Datatype, Error, ErrorKind, Result};

/// `#[derive(H5Type)]` and the trait it implements: `use h5::H5Type;` brings both.
pub use h5_derive::H5Type;
pub use h5_types::H5Type;

#[doc(hidden)]
pub use h5_types::__private;
