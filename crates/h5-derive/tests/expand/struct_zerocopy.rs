#[repr(C)]
#[h5(zerocopy)]
struct Point {
    x: f64,
    y: f64,
    id: u64,
}
