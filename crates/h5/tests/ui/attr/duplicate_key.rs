use h5::H5Type;

#[derive(H5Type)]
#[repr(C)]
struct S {
    #[h5(name = "x", name = "y")]
    a: i32,
    #[h5(skip)]
    #[h5(skip)]
    b: u8,
}

fn main() {}
