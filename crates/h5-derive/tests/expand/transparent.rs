#[repr(transparent)]
struct Meters<T>(T, #[h5(skip)] core::marker::PhantomData<T>);
