use h5::H5Type;

// Every mistake in one item is reported, not only the first.
#[derive(H5Type)]
#[h5(crat = "h5")]
struct S {
    #[h5(name = "x")]
    a: i32,
    #[h5(name = "x", nmae = "y")]
    b: u8,
    #[h5(skip, skip)]
    c: u8,
}

fn main() {}
