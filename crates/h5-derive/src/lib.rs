//! `#[derive(H5Type)]`: the HDF5 datatype of a Rust type, computed at compile time.
#![forbid(unsafe_code)]
