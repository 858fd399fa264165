use h5::zerocopy::{FromBytes, Immutable, IntoBytes};
use h5::H5Type;

#[derive(H5Type, FromBytes, IntoBytes, Immutable)]
#[zerocopy(crate = "h5::zerocopy")]
#[h5(zerocopy)]
#[repr(C)]
struct S {
    a: u32,
    #[h5(skip)]
    b: u32,
}

fn main() {}
