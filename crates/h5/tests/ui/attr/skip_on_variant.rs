use h5::H5Type;

#[derive(H5Type)]
#[repr(u8)]
enum E {
    A,
    #[h5(skip)]
    B,
}

fn main() {}
