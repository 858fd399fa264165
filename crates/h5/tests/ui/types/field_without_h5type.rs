use h5::H5Type;

struct NotH5;

#[derive(H5Type)]
#[repr(C)]
struct S {
    a: i32,
    b: NotH5,
}

fn main() {}
