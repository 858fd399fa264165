//! Quickstart: build a compound datatype and print its DDL text.

use h5::types::{ByteOrder, CompoundType, Datatype, FloatType, IntegerType, Sign};

fn main() -> h5::Result<()> {
    let mut c = CompoundType::new(16)?;
    c.insert(
        "a",
        0,
        IntegerType::new(4, ByteOrder::NATIVE, Sign::TwosComplement).into(),
    )?;
    c.insert(
        "b",
        4,
        IntegerType::new(1, ByteOrder::NATIVE, Sign::TwosComplement).into(),
    )?;
    c.insert("c", 8, FloatType::ieee(8, ByteOrder::NATIVE, 11, 52).into())?;
    let t = Datatype::Compound(c);
    println!("{t:?}");
    Ok(())
}
