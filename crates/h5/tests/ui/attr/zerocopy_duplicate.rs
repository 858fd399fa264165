use h5::H5Type;

#[derive(H5Type)]
#[h5(zerocopy, zerocopy)]
#[repr(C)]
struct S {
    a: u32,
}

fn main() {}
