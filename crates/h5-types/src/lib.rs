//! The HDF5 datatype model.
//!
//! [`Datatype`] is a plain value describing one HDF5 datatype: its class and every property the
//! reference library gives it. It prints as the reference library's DDL text and parses from
//! it, derives new types with the reference library's rules, and converts data between types.
//! Nothing here does I/O.
#![forbid(unsafe_code)]

#[cfg(feature = "arbitrary")]
pub mod arbitrary;
pub mod compose;
pub mod convert;
pub mod datatype;
pub mod ddl;
pub mod error;
pub mod h5type;
pub mod native;
pub mod pack;
pub mod predefined;
pub mod properties;
pub mod raw;

pub use datatype::*;
pub use error::{Error, ErrorKind, Loss, Result};
#[doc(hidden)]
pub use h5type::__private;
pub use h5type::H5Type;
/// The `zerocopy` crate, whose `FromBytes`, `IntoBytes` and `Immutable` a derived struct
/// marked `#[h5(zerocopy)]` needs (derive them with `#[zerocopy(crate = "h5::zerocopy")]`
/// to use this copy, or depend on `zerocopy` 0.8 directly).
pub use zerocopy;
