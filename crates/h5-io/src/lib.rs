//! HDF5 files: groups, datasets, attributes, filters and selections.
#![forbid(unsafe_code)]

pub mod filter;
pub mod raw;
pub mod selection;
pub mod source;
pub mod write;
