//! HDF5 files: groups, datasets, attributes, filters and selections.
#![forbid(unsafe_code)]

pub mod source;
pub mod selection;
pub mod filter;
