use super::*;

fn round_trip<T: H5Type + PartialEq + fmt::Debug>(values: &[T]) {
    assert_eq!(T::h5_type().size(), size_of::<T>(), "size contract");
    let (bytes, heap) = encode_slice(values).unwrap();
    assert_eq!(bytes.len(), core::mem::size_of_val(values));
    if T::IS_POD {
        assert!(heap.is_empty());
    }
    let back: Vec<T> = decode_slice(&bytes, &heap).unwrap();
    assert_eq!(back, values);
}

#[test]
fn primitives_round_trip() {
    round_trip(&[i8::MIN, -1, 0, i8::MAX]);
    round_trip(&[u16::MAX, 7]);
    round_trip(&[i128::MIN, i128::MAX]);
    round_trip(&[u128::MAX]);
    round_trip(&[1.5f32, -0.0]);
    round_trip(&[f64::MAX, 1e-300]);
    round_trip(&[true, false]);
    round_trip(&[[1u8, 2, 3], [4, 5, 6]]);
}

#[test]
fn primitive_types() {
    let t = i32::h5_type();
    let i = t.as_integer().unwrap();
    assert_eq!(
        (i.size(), i.is_signed(), i.order()),
        (4, true, ByteOrder::NATIVE)
    );
    assert!(!u64::h5_type().as_integer().unwrap().is_signed());
    assert_eq!(u128::h5_type().as_integer().unwrap().precision(), 128);
    let f = f64::h5_type();
    let f = f.as_float().unwrap();
    assert_eq!(
        (
            f.sign_pos(),
            f.exp_pos(),
            f.exp_size(),
            f.mant_size(),
            f.exp_bias()
        ),
        (63, 52, 11, 52, 1023)
    );
    let f = f32::h5_type();
    let f = f.as_float().unwrap();
    assert_eq!((f.exp_pos(), f.exp_size(), f.exp_bias()), (23, 8, 127));
}

#[test]
fn bool_is_false_true_enum_over_int8() {
    let t = bool::h5_type();
    let e = t.as_enum().unwrap();
    assert_eq!(e.base().size(), 1);
    assert!(e.base().is_signed());
    assert_eq!(e.value_of("FALSE"), Some(0));
    assert_eq!(e.value_of("TRUE"), Some(1));
    let err = bool::decode(&[2], &VarLenHeap::new()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ConversionException);
}

#[test]
fn nested_arrays_flatten() {
    let t = <[[[u16; 4]; 3]; 2]>::h5_type();
    let a = t.as_array().unwrap();
    assert_eq!(a.dims(), &[2, 3, 4]);
    assert_eq!(a.base(), &u16::h5_type());
    assert_eq!(t.size(), 48);
    // An array of sequences keeps the sequence as its base.
    let t = <[VarLenArray<u8>; 2]>::h5_type();
    assert_eq!(t.as_array().unwrap().dims(), &[2]);
    assert_eq!(t.size(), 2 * VLEN_MEMORY_SIZE);
}

#[test]
fn fixed_strings() {
    type S = FixedAscii<5>;
    let s = S::from_str_padded("abc").unwrap();
    assert_eq!(s.as_str(), "abc");
    assert_eq!(s.as_padded_bytes(), b"abc\0\0");
    assert!(S::from_str_padded("abcdef").is_err());
    assert!(S::from_str_padded("é").is_err());
    assert!(S::from_str_padded("a\0b").is_err());
    round_trip(&[s, S::new(), S::from_str_padded("12345").unwrap()]);
    let t = S::h5_type();
    let st = t.as_string().unwrap();
    assert_eq!(
        (st.string_size(), st.pad(), st.cset()),
        (StringSize::Fixed(5), StrPad::NullTerm, CharSet::Ascii)
    );

    type U = FixedUnicode<6, SpacePad>;
    let u = U::from_str_padded("héé").unwrap();
    assert_eq!(u.as_padded_bytes(), "héé ".as_bytes());
    assert_eq!(u.as_str(), "héé");
    round_trip(&[u]);
    assert_eq!(U::h5_type().as_string().unwrap().pad(), StrPad::SpacePad);
    assert_eq!(U::h5_type().as_string().unwrap().cset(), CharSet::Utf8);
    // Invalid UTF-8 and garbage after the terminator.
    let heap = VarLenHeap::new();
    assert!(U::decode(&[0xff, b' ', b' ', b' ', b' ', b' '], &heap).is_err());
    let v = FixedAscii::<4, NullTerm>::decode(b"ab\0z", &heap).unwrap();
    assert_eq!(v.as_padded_bytes(), b"ab\0\0");
    let v = FixedAscii::<4, NullPad>::decode(b"ab\0\0", &heap).unwrap();
    assert_eq!(v.as_str(), "ab");
}

#[test]
fn varlen_strings_and_sequences() {
    assert_eq!(size_of::<VarLenUnicode>(), VLEN_STRING_MEMORY_SIZE);
    assert_eq!(size_of::<VarLenAscii>(), VLEN_STRING_MEMORY_SIZE);
    assert_eq!(size_of::<VarLenArray<u64>>(), VLEN_MEMORY_SIZE);
    let strs: Vec<VarLenUnicode> = ["", "α", "hello"]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
    round_trip(&strs);
    assert!(VarLenAscii::from_string("é".into()).is_err());
    let nested: Vec<VarLenArray<VarLenArray<VarLenUnicode>>> = vec![
        VarLenArray::from(vec![
            VarLenArray::from(vec![strs[1].clone(), strs[2].clone()]),
            VarLenArray::new(),
        ]),
        VarLenArray::new(),
    ];
    round_trip(&nested);
    let t = VarLenArray::<VarLenUnicode>::h5_type();
    assert!(t
        .as_varlen()
        .unwrap()
        .base()
        .as_string()
        .unwrap()
        .is_variable());
}

#[test]
fn decode_rejects_bad_images() {
    let heap = VarLenHeap::new();
    assert_eq!(
        i32::decode(&[1, 2], &heap).unwrap_err().kind(),
        ErrorKind::BufferSize
    );
    // A sequence whose handle is unknown.
    let mut img = [0u8; VLEN_MEMORY_SIZE];
    img[..size_of::<usize>()].copy_from_slice(&3usize.to_ne_bytes());
    img[size_of::<usize>()..].copy_from_slice(&9usize.to_ne_bytes());
    assert_eq!(
        VarLenArray::<u8>::decode(&img, &heap).unwrap_err().kind(),
        ErrorKind::NotFound
    );
    // A payload of the wrong length.
    let mut heap = VarLenHeap::new();
    let h = heap.insert(vec![1, 2]);
    img[size_of::<usize>()..].copy_from_slice(&h.to_ne_bytes());
    assert_eq!(
        VarLenArray::<u8>::decode(&img, &heap).unwrap_err().kind(),
        ErrorKind::BufferSize
    );
    assert!(decode_slice::<u32>(&[0; 7], &heap).is_err());
}

#[test]
fn references() {
    round_trip(&[ObjectRef::new(0x1234), ObjectRef::default()]);
    round_trip(&[RegionRef::from_bytes([7; 12])]);
    assert_eq!(ObjectRef::h5_type().size(), 8);
    assert_eq!(RegionRef::h5_type().size(), 12);
}

fn int(n: usize) -> Datatype {
    IntegerType::new(n, ByteOrder::LittleEndian, Sign::TwosComplement).into()
}

#[test]
fn pack_removes_padding_recursively() {
    let inner = CompoundType::from_members(16, [("x", 8, int(8)), ("y", 0, int(1))]).unwrap();
    let arr = Datatype::Array(ArrayType::new(inner.clone().into(), &[2]).unwrap());
    let outer =
        CompoundType::from_members(64, [("a", 0, int(4)), ("arr", 8, arr), ("z", 48, int(2))])
            .unwrap();
    let p = pack(&outer.into());
    let c = p.as_compound().unwrap();
    assert_eq!(c.size(), 4 + 2 * 9 + 2);
    let offs: Vec<(&str, usize)> = c.members().iter().map(|m| (m.name(), m.offset())).collect();
    assert_eq!(offs, [("a", 0), ("arr", 4), ("z", 22)]);
    let arr = c.member("arr").unwrap().datatype().as_array().unwrap();
    let inner = arr.base().as_compound().unwrap();
    // Sorted by offset: y (was 0) comes first.
    let offs: Vec<(&str, usize)> = inner
        .members()
        .iter()
        .map(|m| (m.name(), m.offset()))
        .collect();
    assert_eq!(offs, [("y", 0), ("x", 1)]);
    // A packed compound keeps its member order.
    let already = CompoundType::from_members(3, [("b", 1, int(2)), ("a", 0, int(1))]).unwrap();
    let t: Datatype = already.into();
    assert_eq!(pack(&t), t);
    assert_eq!(pack(&t).as_compound().unwrap().members()[0].name(), "b");
    // Types without a compound are unchanged.
    assert_eq!(pack(&int(4)), int(4));
}

#[cfg(feature = "half")]
#[test]
fn half_f16_is_a_2_byte_ieee_float() {
    let t = half::f16::h5_type();
    let f = t.as_float().unwrap();
    assert_eq!(
        (
            f.size(),
            f.sign_pos(),
            f.exp_pos(),
            f.exp_size(),
            f.mant_size(),
            f.exp_bias()
        ),
        (2, 15, 10, 5, 10, 15)
    );
    round_trip(&[half::f16::from_f32(1.5), half::f16::MAX]);
}

#[cfg(feature = "num-complex")]
#[test]
fn complex_is_an_r_i_compound() {
    use num_complex::Complex;
    let t = Complex::<f64>::h5_type();
    let c = t.as_compound().unwrap();
    assert_eq!(c.size(), 16);
    let m: Vec<(&str, usize)> = c.members().iter().map(|m| (m.name(), m.offset())).collect();
    assert_eq!(m, [("r", 0), ("i", 8)]);
    assert_eq!(c.member("i").unwrap().datatype(), &f64::h5_type());
    round_trip(&[Complex::new(1.0f32, -2.0), Complex::new(0.5, 0.25)]);
    round_trip(&[Complex::new(1.0f64, -2.0)]);
}
