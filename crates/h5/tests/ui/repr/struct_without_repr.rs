use h5::H5Type;

#[derive(H5Type)]
struct S {
    a: i32,
}

fn main() {}
