//! The derive's output assumes neither a prelude nor the crate's name, and needs no `unsafe`:
//! this file compiles under `#![no_implicit_prelude]` and `#![forbid(unsafe_code)]`, with
//! local items that shadow every name the output could have taken from a prelude, and with
//! the `h5` crate reached under another name through `#[h5(crate = "...")]`.
#![no_implicit_prelude]
#![forbid(unsafe_code)]

extern crate h5 as renamed_h5;
extern crate std as the_std;

// Shadows of prelude and trait names: the output must not pick them up.
#[allow(dead_code)]
struct Result;
#[allow(dead_code)]
struct Ok;
#[allow(dead_code)]
struct Err;
#[allow(dead_code)]
struct Default;
#[allow(dead_code)]
struct Copy;
#[allow(dead_code)]
struct Datatype;
#[allow(dead_code)]
struct VarLenHeap;
#[allow(dead_code)]
mod core {}
#[allow(dead_code)]
mod __private {}

mod renamed {
    use super::renamed_h5::types::h5type::VarLenUnicode;
    use super::renamed_h5::H5Type;

    #[derive(H5Type)]
    #[h5(crate = "::renamed_h5")]
    #[repr(C)]
    pub struct Point<T> {
        pub x: T,
        #[h5(name = "why")]
        pub y: [T; 2],
        #[h5(skip)]
        pub cache: ::the_std::option::Option<u8>,
        pub label: VarLenUnicode,
    }

    #[derive(H5Type, Clone, Copy)]
    #[h5(crate = "::renamed_h5")]
    #[repr(C, packed)]
    pub struct Packed(pub u8, pub u64);

    #[derive(H5Type)]
    #[h5(crate = "::renamed_h5")]
    #[repr(u16)]
    pub enum E {
        A = 3,
        B,
    }

    #[derive(H5Type)]
    #[h5(crate = "::renamed_h5")]
    #[repr(transparent)]
    pub struct Wrapper(pub f32);

    /// The zerocopy opt-in (zerocopy's own derives reached through the renamed crate).
    #[derive(H5Type, FromBytes, IntoBytes, Immutable)]
    #[zerocopy(crate = "::renamed_h5::zerocopy")]
    #[h5(crate = "::renamed_h5", zerocopy)]
    #[repr(C)]
    pub struct Bytes {
        pub a: u32,
        pub b: f32,
    }

    /// The opt-in on a generic type: the zerocopy bounds go into the impl's where clause.
    #[derive(H5Type, FromBytes, IntoBytes, Immutable)]
    #[zerocopy(crate = "::renamed_h5::zerocopy")]
    #[h5(crate = "::renamed_h5", zerocopy)]
    #[repr(transparent)]
    pub struct Same<T>(pub T);

    use super::renamed_h5::zerocopy::{FromBytes, Immutable, IntoBytes};
    use super::the_std::clone::Clone;
    use super::the_std::marker::Copy;
}

mod default_path {
    use super::renamed_h5::H5Type;

    #[derive(H5Type)]
    #[repr(C)]
    pub struct Plain {
        pub a: i32,
    }
}

#[test]
fn output_compiles_without_prelude_and_with_a_renamed_crate() {
    use renamed_h5::H5Type;
    use the_std::iter::Iterator;
    let t = <renamed::Point<i16> as H5Type>::h5_type();
    let c = t.as_compound().expect("a compound");
    let names: the_std::vec::Vec<&str> = c.members().iter().map(|m| m.name()).collect();
    the_std::assert_eq!(names, ["x", "why", "label"]);
    the_std::assert_eq!(<renamed::Packed as H5Type>::h5_type().size(), 9);
    the_std::assert_eq!(
        <renamed::E as H5Type>::h5_type().as_enum().map(|e| e.len()),
        the_std::option::Option::Some(2)
    );
    the_std::assert_eq!(
        <renamed::Wrapper as H5Type>::h5_type(),
        <f32 as H5Type>::h5_type()
    );
    the_std::assert_eq!(<default_path::Plain as H5Type>::h5_type().size(), 4);
    the_std::assert!(<renamed::Bytes as H5Type>::has_byte_image());
    the_std::assert!(<renamed::Same<u64> as H5Type>::has_byte_image());
    the_std::assert!(!<default_path::Plain as H5Type>::has_byte_image());
}
