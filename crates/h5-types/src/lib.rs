//! The HDF5 datatype model.
//!
//! [`Datatype`] is a plain value describing one HDF5 datatype: its class and every property the
//! reference library gives it. It prints as the reference library's DDL text and parses from
//! it, derives new types with the reference library's rules, and converts data between types.
//! Nothing here does I/O.
#![forbid(unsafe_code)]

pub mod compose;
pub mod convert;
pub mod datatype;
pub mod error;

pub use datatype::*;
pub use error::{Error, ErrorKind, Result};
