use h5::H5Type;

#[derive(H5Type)]
#[repr(C)]
struct S {
    a: i32,
    #[h5(skip, name = "b")]
    b: u8,
}

fn main() {}
