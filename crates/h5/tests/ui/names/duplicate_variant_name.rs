use h5::H5Type;

#[derive(H5Type)]
#[repr(u8)]
enum E {
    #[h5(name = "ONE")]
    A,
    #[h5(name = "ONE")]
    B,
}

fn main() {}
