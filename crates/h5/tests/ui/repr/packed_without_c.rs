use h5::H5Type;

#[derive(H5Type)]
#[repr(packed)]
struct S {
    a: u8,
    b: u32,
}

fn main() {}
