use h5::H5Type;

#[derive(H5Type)]
#[h5(crate = "h5", crate = "h5")]
#[repr(C)]
struct S {
    a: i32,
}

fn main() {}
