use h5::H5Type;

#[derive(H5Type)]
#[repr(C)]
struct S {
    #[h5(name = 3)]
    a: i32,
}

fn main() {}
