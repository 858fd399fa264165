use h5::H5Type;

// The opt-in needs zerocopy's FromBytes, IntoBytes and Immutable.
#[derive(H5Type)]
#[h5(zerocopy)]
#[repr(C)]
struct S {
    a: u32,
    b: f32,
}

fn main() {}
