use h5::H5Type;

struct NoDefault;

#[derive(H5Type)]
#[repr(C)]
struct S {
    a: i32,
    #[h5(skip)]
    b: NoDefault,
}

fn main() {}
