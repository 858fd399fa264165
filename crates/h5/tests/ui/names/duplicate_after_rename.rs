use h5::H5Type;

#[derive(H5Type)]
#[repr(C)]
struct S {
    a: i32,
    #[h5(name = "a")]
    b: u8,
}

fn main() {}
