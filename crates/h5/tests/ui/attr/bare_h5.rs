use h5::H5Type;

#[derive(H5Type)]
#[repr(C)]
struct S {
    #[h5]
    a: i32,
    #[h5 = "x"]
    b: i32,
}

fn main() {}
