use h5::H5Type;

#[derive(H5Type)]
#[repr(C)]
enum E {
    A,
    B,
}

fn main() {}
