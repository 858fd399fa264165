use h5::H5Type;

#[derive(H5Type)]
#[repr(C)]
struct S {
    a: i32,
    b: [f64; 0],
}

fn main() {
    let _ = S::h5_type();
}
