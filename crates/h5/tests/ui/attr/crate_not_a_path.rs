use h5::H5Type;

#[derive(H5Type)]
#[h5(crate = "not a path")]
#[repr(C)]
struct S {
    a: i32,
}

fn main() {}
