use h5::H5Type;

#[derive(H5Type)]
#[repr(C)]
struct S;

fn main() {}
