use h5::H5Type;

#[derive(H5Type)]
enum E {
    A,
    B,
}

fn main() {}
