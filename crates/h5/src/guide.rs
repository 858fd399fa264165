//! Guides.

pub mod from_h5py;
