use h5::types::h5type::VarLenUnicode;
use h5::H5Type;

#[derive(H5Type)]
#[repr(C, packed)]
struct S {
    a: u8,
    label: VarLenUnicode,
}

fn main() {}
