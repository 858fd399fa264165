#[repr(C, align(16))]
#[h5(crate = "my_h5")]
struct Reading<T, U: Clone>
where
    T: Copy,
{
    value: T,
    history: [T; 4],
    #[h5(skip)]
    cache: Option<U>,
    id: u64,
}
