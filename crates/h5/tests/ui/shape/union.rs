use h5::H5Type;

#[derive(H5Type)]
#[repr(C)]
union U {
    a: i32,
    b: f32,
}

fn main() {}
