use h5::H5Type;
use std::marker::PhantomData;

#[derive(H5Type)]
#[repr(transparent)]
struct Meters<T>(f64, PhantomData<T>);

fn main() {}
