use h5::H5Type;

#[derive(H5Type)]
#[repr(transparent)]
struct Meters(#[h5(name = "m")] f64);

fn main() {}
