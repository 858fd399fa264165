use h5::H5Type;

#[derive(H5Type)]
#[repr(u8)]
enum E {
    A,
    B(i32),
    C { x: f64 },
}

fn main() {}
