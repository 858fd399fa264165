//! HDF5 in pure Rust.
//!
//! This crate is the facade: it re-exports the datatype model ([`types`]), the on-disk format
//! ([`format`]), files ([`io`]) and `#[derive(H5Type)]`.
#![forbid(unsafe_code)]

pub use h5_format as format;
pub use h5_io as io;
pub use h5_types as types;
pub use h5_types::{Datatype, Error, ErrorKind, Result};
