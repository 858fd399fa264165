use h5::H5Type;

struct NotH5;

#[derive(H5Type)]
#[repr(C)]
struct Wrap<T> {
    value: T,
}

fn main() {
    let _ = Wrap::<NotH5>::h5_type();
}
