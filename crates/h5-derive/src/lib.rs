//! `#[derive(H5Type)]`: the HDF5 datatype of a Rust type, computed at compile time.
//!
//! Use it through the `h5` crate (`use h5::H5Type;` brings both the trait and the derive).
//!
//! ```ignore
//! use h5::H5Type;
//!
//! #[derive(H5Type)]
//! #[repr(C)]
//! struct S1 {
//!     a: i32,
//!     b: i8,
//!     #[h5(name = "c_value")]
//!     c: f64,
//! }
//! // The datatype H5Tcreate + H5Tinsert(.., HOFFSET(s1_t, a), ..) builds in C:
//! // a compound of 16 bytes with members a@0, b@4, c_value@8.
//! let t = S1::h5_type();
//! ```
//!
//! # What it accepts
//!
//! * structs with named or tuple fields and `#[repr(C)]`, `#[repr(C, align(N))]`,
//!   `#[repr(C, packed)]` / `#[repr(C, packed(N))]` (members must then be `Copy`), or
//!   `#[repr(transparent)]` (the datatype of the one non-skipped field);
//! * unit-only enums with an integer repr (`#[repr(u8)]`, ..., explicit or implicit
//!   discriminants): an HDF5 enum over that integer;
//! * generics: `H5Type` bounds are added for the fields that use a type parameter.
//!
//! Member offsets come from `core::mem::offset_of!` and sizes from `size_of`, so they are the
//! compiler's own. Tuple fields are named `0`, `1`, ...
//!
//! # Attributes
//!
//! * `#[h5(name = "...")]` on a field or variant: the member name;
//! * `#[h5(skip)]` on a field: not a member (decoding fills it with `Default::default()`), for
//!   a struct that reads a subset of a file's compound members;
//! * `#[h5(crate = "path")]` on the type: where the `h5` crate is (default `::h5`);
//! * `#[h5(zerocopy)]` on a struct that also derives zerocopy's `FromBytes`, `IntoBytes` and
//!   `Immutable` (`KnownLayout` too, if you like): its memory is its byte image
//!   (`H5Type::image_bytes_mut` and the others), so a read whose file datatype equals the
//!   struct's byte for byte fills the `Vec` straight from the file's bytes, one whose layout
//!   differs converts inside the `Vec`'s memory, and a write takes the values' memory as it
//!   is: nothing is encoded or decoded value by value. zerocopy's derives refuse a struct
//!   with padding or with a field whose bit patterns are not all values (`bool`, an enum);
//!   skipped fields are refused here (they would hold the file's bytes).
//!
//! ```ignore
//! use h5::zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};
//!
//! #[derive(h5::H5Type, FromBytes, IntoBytes, Immutable, KnownLayout)]
//! #[zerocopy(crate = "h5::zerocopy")] // or a dependency on zerocopy 0.8
//! #[h5(zerocopy)]
//! #[repr(C)]
//! struct Sample {
//!     t: f64,
//!     channel: u32,
//!     value: f32,
//! }
//! ```
//!
//! Every rejected input (unions, data-carrying enums, a missing or unsupported repr, duplicate
//! member names, unknown or duplicate attribute keys) is a compile error at the offending
//! token, all of them at once.
#![forbid(unsafe_code)]

mod expand;
mod internals;

use proc_macro::TokenStream;

/// Derive `H5Type` (see the crate documentation).
#[proc_macro_derive(H5Type, attributes(h5))]
pub fn derive_h5type(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

#[cfg(test)]
mod snapshots;
