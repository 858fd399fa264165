//! The byte level of HDF5: every on-disk structure, parsed from and encoded to byte slices.
#![forbid(unsafe_code)]
