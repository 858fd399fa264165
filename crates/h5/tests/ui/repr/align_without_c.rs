use h5::H5Type;

#[derive(H5Type)]
#[repr(align(8))]
struct S {
    a: u8,
}

fn main() {}
