#[repr(C)]
struct S1 {
    a: i32,
    b: i8,
    #[h5(name = "c_value")]
    c: f64,
}
