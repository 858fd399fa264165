use h5::H5Type;

#[derive(H5Type)]
#[repr(C)]
struct S {
    #[h5(name = "")]
    a: i32,
    #[h5(name = "b\0c")]
    b: u8,
}

fn main() {}
