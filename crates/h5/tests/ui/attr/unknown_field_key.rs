use h5::H5Type;

#[derive(H5Type)]
#[repr(C)]
struct S {
    #[h5(rename = "x")]
    a: i32,
}

fn main() {}
