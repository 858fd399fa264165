//! Strict conversions: each kind of lossy step fails with [`ErrorKind::Lossy`], the right
//! element index and reason, and converts as the reference library does (clamping,
//! truncating) by default.

use h5_types::convert::{ConversionOptions, Converter, VarLenHeap};
use h5_types::{Datatype, Error, ErrorKind, Loss};

fn dt(ddl: &str) -> Datatype {
    ddl.parse()
        .unwrap_or_else(|e| panic!("bad DDL {ddl:?}: {e}"))
}

fn f64s(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Convert `n` elements by default and strictly; the default result, and the strict error
/// if any. Both through a separate buffer and in place, which must agree.
fn both(src: &Datatype, dst: &Datatype, input: &[u8], n: usize) -> (Vec<u8>, Option<Error>) {
    let conv = Converter::new(src, dst).unwrap();
    let mut out = vec![0u8; n * dst.size()];
    conv.convert(input, &mut out, n, &mut ConversionOptions::new())
        .unwrap();
    let mut strict_out = vec![0u8; n * dst.size()];
    let strict = conv
        .convert(
            input,
            &mut strict_out,
            n,
            &mut ConversionOptions::new().with_strict(true),
        )
        .err();
    // In place, the same verdict.
    let mut buf = input.to_vec();
    buf.resize(n * src.size().max(dst.size()), 0);
    let in_place = conv
        .convert_in_place(&mut buf, n, &mut ConversionOptions::new().with_strict(true))
        .err();
    assert_eq!(
        strict.as_ref().map(|e| (e.element(), e.loss())),
        in_place.as_ref().map(|e| (e.element(), e.loss())),
        "convert and convert_in_place disagree"
    );
    if strict.is_none() {
        assert_eq!(
            strict_out, out,
            "a strict conversion that succeeds gives the default"
        );
    }
    (out, strict)
}

#[track_caller]
fn assert_lossy(e: Option<Error>, element: usize, loss: Loss) {
    let e = e.expect("the strict conversion should fail");
    assert_eq!(e.kind(), ErrorKind::Lossy, "{e}");
    assert_eq!(e.element(), Some(element), "{e}");
    assert_eq!(e.loss(), Some(loss), "{e}");
    assert!(
        e.to_string().ends_with(&format!("at element {element}")),
        "{e}"
    );
}

#[test]
fn float_to_int_overflow_clamps_by_default() {
    let (out, e) = both(
        &dt("H5T_IEEE_F64LE"),
        &dt("H5T_STD_I8LE"),
        &f64s(&[1.0, -7.0, 300.5, -1000.0]),
        4,
    );
    assert_eq!(out, [1, (-7i8) as u8, 127, 128]);
    assert_lossy(e, 2, Loss::Overflow);
}

#[test]
fn float_to_int_fraction_truncates_by_default() {
    let (out, e) = both(
        &dt("H5T_IEEE_F64LE"),
        &dt("H5T_STD_I32LE"),
        &f64s(&[1.0, 2.0, 2.5]),
        3,
    );
    assert_eq!(out, [1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0]);
    assert_lossy(e, 2, Loss::Fraction);
    // Big-endian source (the software path), the same verdict.
    let be: Vec<u8> = [4.0f64, -0.5]
        .iter()
        .flat_map(|x| x.to_be_bytes())
        .collect();
    let (out, e) = both(&dt("H5T_IEEE_F64BE"), &dt("H5T_STD_I16LE"), &be, 2);
    assert_eq!(out, [4, 0, 0, 0]);
    assert_lossy(e, 1, Loss::Fraction);
}

#[test]
fn nan_and_infinity_to_int() {
    let (_, e) = both(
        &dt("H5T_IEEE_F64LE"),
        &dt("H5T_STD_I32LE"),
        &f64s(&[0.0, 3.0, f64::NAN]),
        3,
    );
    assert_lossy(e, 2, Loss::NotFinite);
    let (out, e) = both(
        &dt("H5T_IEEE_F64LE"),
        &dt("H5T_STD_U8LE"),
        &f64s(&[f64::INFINITY]),
        1,
    );
    assert_eq!(out, [255]);
    assert_lossy(e, 0, Loss::NotFinite);
}

#[test]
fn float_to_float_overflow_only_from_finite_values() {
    let (out, e) = both(
        &dt("H5T_IEEE_F64LE"),
        &dt("H5T_IEEE_F32LE"),
        &f64s(&[0.1, f64::INFINITY, f64::NAN, -1e300]),
        4,
    );
    assert_eq!(&out[12..], f32::NEG_INFINITY.to_le_bytes());
    assert_lossy(e, 3, Loss::Overflow);
    // Rounding, infinities and NaN are not refused.
    let (_, e) = both(
        &dt("H5T_IEEE_F64LE"),
        &dt("H5T_IEEE_F32LE"),
        &f64s(&[0.1, f64::INFINITY, f64::NAN, 3e38]),
        4,
    );
    assert!(e.is_none(), "{e:?}");
    // The general algorithm (big-endian to little-endian of another size) too.
    let be: Vec<u8> = [1.5f64, 1e300]
        .iter()
        .flat_map(|x| x.to_be_bytes())
        .collect();
    let (out, e) = both(&dt("H5T_IEEE_F64BE"), &dt("H5T_IEEE_F32LE"), &be, 2);
    assert_eq!(&out[4..], f32::INFINITY.to_le_bytes());
    assert_lossy(e, 1, Loss::Overflow);
}

#[test]
fn integer_overflow() {
    let input: Vec<u8> = [5i32, 300, -1]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let (out, e) = both(&dt("H5T_STD_I32LE"), &dt("H5T_STD_U8LE"), &input, 3);
    assert_eq!(out, [5, 255, 0]);
    assert_lossy(e, 1, Loss::Overflow);
    // The lowest index is named, whatever the order of discovery.
    let input: Vec<u8> = [0u16, 0, 70, 255, 256]
        .iter()
        .flat_map(|x| x.to_be_bytes())
        .collect();
    let (_, e) = both(&dt("H5T_STD_U16BE"), &dt("H5T_STD_I8LE"), &input, 5);
    assert_lossy(e, 3, Loss::Overflow);
    // Odd layouts (the bit-level path).
    let (_, e) = both(&dt("H5T_STD_I32LE"), &dt("H5T_STD_I64BE"), &input[..8], 2);
    assert!(e.is_none());
}

#[test]
fn precision_alone_is_not_lossy() {
    let input: Vec<u8> = [(1i64 << 60) + 1, -1]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let (_, e) = both(&dt("H5T_STD_I64LE"), &dt("H5T_IEEE_F64LE"), &input, 2);
    assert!(e.is_none(), "{e:?}");
}

#[test]
fn compound_member_missing_from_the_source() {
    let src = dt(r#"H5T_COMPOUND { H5T_STD_I32LE "a" : 0; H5T_IEEE_F64LE "b" : 8; }"#);
    let dst = dt(
        r#"H5T_COMPOUND { H5T_STD_I32LE "a" : 0; H5T_IEEE_F64LE "b" : 8; H5T_STD_I16LE "c" : 16; }"#,
    );
    let mut input = Vec::new();
    for (a, b) in [(1i32, 2.0f64), (3, 4.0)] {
        input.extend(a.to_le_bytes());
        input.extend([0; 4]);
        input.extend(b.to_le_bytes());
    }
    let (out, e) = both(&src, &dst, &input, 2);
    assert_eq!(&out[16..18], [0, 0], "the missing member reads as zero");
    let e = e.unwrap();
    assert!(e.message().contains("\"c\""), "{e}");
    assert_lossy(Some(e), 0, Loss::MissingMember);
    // A lossy member converts with the element's index.
    let narrow = dt(r#"H5T_COMPOUND { H5T_STD_I8LE "a" : 0; }"#);
    let mut input = Vec::new();
    for (a, b) in [(1i32, 2.0f64), (300, 4.0)] {
        input.extend(a.to_le_bytes());
        input.extend([0; 4]);
        input.extend(b.to_le_bytes());
    }
    let (_, e) = both(&src, &narrow, &input, 2);
    assert_lossy(e, 1, Loss::Overflow);
}

#[test]
fn array_elements_name_the_outer_element() {
    let src = dt("H5T_ARRAY { [2] H5T_IEEE_F64LE }");
    let dst = dt("H5T_ARRAY { [2] H5T_STD_I8LE }");
    let (_, e) = both(&src, &dst, &f64s(&[1.0, 2.0, 3.0, 4.0, 5.0, 500.0]), 3);
    assert_lossy(e, 2, Loss::Overflow);
}

#[test]
fn fixed_strings_that_do_not_fit() {
    let src = dt(
        "H5T_STRING { STRSIZE 10; STRPAD H5T_STR_NULLPAD; CSET H5T_CSET_ASCII; CTYPE H5T_C_S1; }",
    );
    let dst = dt(
        "H5T_STRING { STRSIZE 4; STRPAD H5T_STR_NULLTERM; CSET H5T_CSET_ASCII; CTYPE H5T_C_S1; }",
    );
    let mut input = Vec::new();
    for s in ["abc", "abcdefghij", "abcd"] {
        let mut e = s.as_bytes().to_vec();
        e.resize(10, 0);
        input.extend(e);
    }
    let (out, e) = both(&src, &dst, &input, 3);
    assert_eq!(out, *b"abc\0abc\0abc\0");
    assert_lossy(e, 1, Loss::StringTooLong);
    // A null-padded destination holds all four bytes.
    let padded = dt(
        "H5T_STRING { STRSIZE 4; STRPAD H5T_STR_NULLPAD; CSET H5T_CSET_ASCII; CTYPE H5T_C_S1; }",
    );
    let (_, e) = both(&src, &padded, &input[..10], 1);
    assert!(e.is_none());
    let (_, e) = both(&src, &padded, &input, 3);
    assert_lossy(e, 1, Loss::StringTooLong);
}

#[test]
fn variable_length_strings_into_fixed() {
    let src = dt("H5T_STRING { STRSIZE H5T_VARIABLE; STRPAD H5T_STR_NULLTERM; CSET H5T_CSET_UTF8; CTYPE H5T_C_S1; }");
    let dst =
        dt("H5T_STRING { STRSIZE 4; STRPAD H5T_STR_NULLPAD; CSET H5T_CSET_UTF8; CTYPE H5T_C_S1; }");
    let mut heap = VarLenHeap::new();
    let mut input = Vec::new();
    for s in ["ab", "abcd", "abcdefghij"] {
        input.extend(heap.string_element(s.as_bytes()));
    }
    let conv = Converter::new(&src, &dst).unwrap();
    let mut out = vec![0u8; 12];
    conv.convert(
        &input,
        &mut out,
        3,
        &mut ConversionOptions::new().with_heap(&mut heap),
    )
    .unwrap();
    assert_eq!(out, *b"ab\0\0abcdabcd");
    let e = conv
        .convert(
            &input,
            &mut out,
            3,
            &mut ConversionOptions::new()
                .with_heap(&mut heap)
                .with_strict(true),
        )
        .err();
    assert_lossy(e, 2, Loss::StringTooLong);
}

#[test]
fn enum_values_without_a_member() {
    let src = dt(r#"H5T_ENUM { H5T_STD_I8LE; "A" 0; "B" 1; }"#);
    let dst = dt(r#"H5T_ENUM { H5T_STD_I16LE; "B" 10; "A" 20; "C" 30; }"#);
    let (out, e) = both(&src, &dst, &[1, 0, 7], 3);
    assert_eq!(out, [10, 0, 20, 0, 0xff, 0xff]);
    assert_lossy(e, 2, Loss::NoEnumMember);
}

#[test]
fn bitfields_lose_only_set_bits() {
    let src = dt("H5T_STD_B16LE");
    let dst = dt("H5T_STD_B8LE");
    let (out, e) = both(&src, &dst, &[0xff, 0x00, 0x12, 0x00], 2);
    assert_eq!(out, [0xff, 0x12]);
    assert!(e.is_none(), "{e:?}");
    let (_, e) = both(&src, &dst, &[0xff, 0x00, 0x12, 0x01], 2);
    assert_lossy(e, 1, Loss::BitsDropped);
}

#[test]
fn a_handler_that_handles_resolves_the_loss() {
    let conv = Converter::new(&dt("H5T_IEEE_F64LE"), &dt("H5T_STD_I8LE")).unwrap();
    let mut out = [0u8; 2];
    let mut opts = ConversionOptions::new()
        .with_strict(true)
        .with_handler(|_, d| {
            d[0] = 42;
            h5_types::convert::Action::Handled
        });
    conv.convert(&f64s(&[1.0, 300.0]), &mut out, 2, &mut opts)
        .unwrap();
    assert_eq!(out, [1, 42]);
}

#[test]
fn fractions_below_one_and_integral_values_on_every_path() {
    // Hardware (native), software (big-endian source) and bit-level (a 24-bit integer)
    // paths: 0.5 loses its fraction, 4.0 and -3.0 lose nothing.
    let mut i24 = dt("H5T_STD_I32LE");
    i24.set_precision(24).unwrap();
    let values = [4.0f64, -3.0, 0.0, 0.5];
    let le = f64s(&values);
    let be: Vec<u8> = values.iter().flat_map(|x| x.to_be_bytes()).collect();
    for (src, input, dst) in [
        ("H5T_IEEE_F64LE", &le, dt("H5T_STD_I16LE")),
        ("H5T_IEEE_F64BE", &be, dt("H5T_STD_I16LE")),
        ("H5T_IEEE_F64LE", &le, i24.clone()),
        ("H5T_IEEE_F64BE", &be, i24.clone()),
    ] {
        let (_, e) = both(&dt(src), &dst, &input[..24], 3);
        assert!(e.is_none(), "{src}: {e:?}");
        let (_, e) = both(&dt(src), &dst, input, 4);
        assert_lossy(e, 3, Loss::Fraction);
    }
    // And out-of-range values on the bit-level path.
    let (_, e) = both(&dt("H5T_IEEE_F64LE"), &i24, &f64s(&[1.0, 1e7, -1e7]), 3);
    assert_lossy(e, 1, Loss::Overflow);
}

#[test]
fn half_precision_destinations_on_the_general_paths() {
    let f16: Datatype =
        h5_types::FloatType::ieee(2, h5_types::ByteOrder::LittleEndian, 5, 10).into();
    // Integer to float (bit-level): 2049 rounds (precision, not refused), 70000 overflows.
    let ints: Vec<u8> = [1i32, 2049, -3]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let (_, e) = both(&dt("H5T_STD_I32LE"), &f16, &ints, 3);
    assert!(e.is_none(), "{e:?}");
    let ints: Vec<u8> = [1i32, 2049, 70_000]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let (_, e) = both(&dt("H5T_STD_I32LE"), &f16, &ints, 3);
    assert_lossy(e, 2, Loss::Overflow);
    // Float to float (bit-level): 0.1 rounds, infinities stay, 1e10 overflows.
    let (_, e) = both(
        &dt("H5T_IEEE_F64LE"),
        &f16,
        &f64s(&[0.1, f64::NEG_INFINITY, 3.0]),
        3,
    );
    assert!(e.is_none(), "{e:?}");
    let (out, e) = both(&dt("H5T_IEEE_F64LE"), &f16, &f64s(&[0.1, 1e10]), 2);
    assert_eq!(&out[2..], [0x00, 0x7c], "+inf by default");
    assert_lossy(e, 1, Loss::Overflow);
}
