use h5::H5Type;

#[derive(H5Type)]
#[repr(C)]
struct S {
    #[h5(skip)]
    a: i32,
    #[h5(skip)]
    b: u8,
}

fn main() {}
