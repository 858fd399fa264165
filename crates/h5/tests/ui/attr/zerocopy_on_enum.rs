use h5::H5Type;

#[derive(H5Type)]
#[h5(zerocopy)]
#[repr(u8)]
enum E {
    A,
    B,
}

fn main() {}
