//! Byte-literal tests of the printer and the reader. The expected texts are what the reference
//! library (1.10.8, `H5LTdtype_to_text`) printed for the same types.

use super::RefVersion;
use crate::datatype::*;
use crate::predefined::*;
use crate::ErrorKind;

fn parse(s: &str) -> Datatype {
    s.parse().unwrap_or_else(|e| panic!("{s:?}: {e}"))
}

fn roundtrip(t: &Datatype) {
    // The lossless form parses back to an equal type; the plain form does wherever the
    // reference's text keeps the layout.
    let text = format!("{t:#}");
    let back: Datatype = text.parse().unwrap_or_else(|e| panic!("{text}\n{e}"));
    assert_eq!(&back, t, "{text}");
    // Insertion order is part of the text, so it survives too.
    assert_eq!(format!("{back:#}"), text);
}

#[test]
fn enum_alignment() {
    let t = parse(
        r#"H5T_ENUM { H5T_STD_I32LE; "a" 5; "b" 7; "longer_name_here_xx" 100; "c" 2147483647; }"#,
    );
    let expected = "H5T_ENUM {\n      H5T_STD_I32LE;\n      \"a\"                5;\n      \"b\"                7;\n      \"longer_name_here_xx\"   100;\n      \"c\"                2147483647;\n   }";
    assert_eq!(t.to_string(), expected);
    // 16 characters of quoted name leave 3 spaces, as do 17 and more.
    let t = parse(r#"H5T_ENUM { H5T_STD_U8LE; "abcdefghijklmn" 1; "abcdefghijklmno" 2; }"#);
    assert_eq!(
        t.to_string(),
        "H5T_ENUM {\n      H5T_STD_U8LE;\n      \"abcdefghijklmn\"   1;\n      \"abcdefghijklmno\"   2;\n   }"
    );
    roundtrip(&t);
}

#[test]
fn nested_indentation() {
    let text = r#"H5T_COMPOUND { H5T_STD_I32LE "a"; H5T_COMPOUND { H5T_STRING { STRSIZE 3; STRPAD H5T_STR_SPACEPAD; CSET H5T_CSET_UTF8; CTYPE H5T_FORTRAN_S1; } "s"; H5T_ARRAY { [2][3] H5T_VLEN { H5T_NATIVE_LDOUBLE } } "arr"; } "inner"; H5T_ENUM { H5T_NATIVE_UCHAR; "x" 1; } "e"; }"#;
    let expected = r#"H5T_COMPOUND {
      H5T_STD_I32LE "a" : 0;
      H5T_COMPOUND {
            H5T_STRING {
               STRSIZE 3;
               STRPAD H5T_STR_SPACEPAD;
               CSET H5T_CSET_UTF8;
               CTYPE H5T_C_S1;
            } "s" : 0;
            H5T_ARRAY {
               [2][3] H5T_VLEN {
                  H5T_NATIVE_LDOUBLE
               }
            } "arr" : 3;
         } "inner" : 4;
      H5T_ENUM {
         H5T_STD_U8LE;
         "x"                1;
      } "e" : 103;
   }"#;
    let t = parse(text);
    assert_eq!(t.size(), 104);
    assert_eq!(t.to_string(), expected);
    assert_eq!(
        t.to_reference_text(RefVersion::V1_10).as_deref(),
        Some(expected)
    );
    roundtrip(&t);
}

#[test]
fn array_of_compound() {
    let t = parse(r#"H5T_ARRAY { [3] H5T_COMPOUND { H5T_STD_I8LE "q"; } }"#);
    assert_eq!(
        t.to_string(),
        "H5T_ARRAY {\n      [3] H5T_COMPOUND {\n         H5T_STD_I8LE \"q\" : 0;\n      }\n   }"
    );
}

#[test]
fn vlen_string() {
    let t = parse("H5T_VLEN { H5T_STRING { STRSIZE H5T_VARIABLE; STRPAD H5T_STR_NULLTERM; CSET H5T_CSET_ASCII; CTYPE H5T_C_S1; } }");
    assert_eq!(
        t.to_string(),
        "H5T_VLEN {\n      H5T_STRING {\n         STRSIZE H5T_VARIABLE;\n         STRPAD H5T_STR_NULLTERM;\n         CSET H5T_CSET_ASCII;\n         CTYPE H5T_C_S1;\n      }\n   }"
    );
    assert_eq!(t.size(), 16);
}

#[test]
fn compound_layout_rules() {
    // A later member at offset 0 is appended; one at a lower offset does not shrink.
    let t = parse(
        r#"H5T_COMPOUND { H5T_STD_I32LE "a" : 4; H5T_STD_I8LE "b" : 0; H5T_STD_I16LE "c" : 20; H5T_STD_I8LE "d" : 2; }"#,
    );
    assert_eq!(t.size(), 22);
    assert_eq!(
        t.to_string(),
        "H5T_COMPOUND {\n      H5T_STD_I32LE \"a\" : 4;\n      H5T_STD_I8LE \"b\" : 8;\n      H5T_STD_I16LE \"c\" : 20;\n      H5T_STD_I8LE \"d\" : 2;\n   }"
    );
    roundtrip(&t);
    // The first member's offset counts into the size.
    let t = parse(r#"H5T_COMPOUND { H5T_STD_I32LE "a b\c" : 3; }"#);
    assert_eq!(t.size(), 7);
    assert_eq!(
        t.to_string(),
        "H5T_COMPOUND {\n      H5T_STD_I32LE \"a b\\c\" : 3;\n   }"
    );
    roundtrip(&t);
}

#[test]
fn compound_extended_size() {
    // Trailing padding cannot be said in the reference's text: a SIZE line keeps it.
    let c = CompoundType::from_members(
        16,
        [
            ("x", 0, Datatype::from(IEEE_F64LE)),
            ("y", 8, Datatype::from(STD_I32LE)),
        ],
    )
    .unwrap();
    let t = Datatype::from(c);
    assert_eq!(
        format!("{t:#}"),
        "H5T_COMPOUND {\n      SIZE 16;\n      H5T_IEEE_F64LE \"x\" : 0;\n      H5T_STD_I32LE \"y\" : 8;\n   }"
    );
    // The plain form is the reference's text.
    assert_eq!(
        t.to_string(),
        "H5T_COMPOUND {\n      H5T_IEEE_F64LE \"x\" : 0;\n      H5T_STD_I32LE \"y\" : 8;\n   }"
    );
    assert_eq!(
        t.to_reference_text(RefVersion::V1_10).unwrap(),
        "H5T_COMPOUND {\n      H5T_IEEE_F64LE \"x\" : 0;\n      H5T_STD_I32LE \"y\" : 8;\n   }"
    );
    roundtrip(&t);
    // Members inserted out of offset order, the second at 0.
    let c = CompoundType::from_members(
        8,
        [
            ("hi", 4, Datatype::from(STD_I32LE)),
            ("lo", 0, Datatype::from(STD_I32LE)),
        ],
    )
    .unwrap();
    roundtrip(&c.into());
    // Empty compounds: size 1 is the reference's, others need SIZE.
    roundtrip(&CompoundType::new(1).unwrap().into());
    assert_eq!(
        Datatype::from(CompoundType::new(1).unwrap()).to_string(),
        "H5T_COMPOUND {\n   }"
    );
    roundtrip(&CompoundType::new(5).unwrap().into());
}

#[test]
fn atomic_names() {
    assert_eq!(Datatype::from(NATIVE_INT).to_string(), "H5T_STD_I32LE");
    assert_eq!(Datatype::from(IEEE_F16BE).to_string(), "H5T_IEEE_F16BE");
    assert_eq!(
        Datatype::from(IEEE_F16BE)
            .to_reference_text(RefVersion::V1_10)
            .unwrap(),
        "undefined float"
    );
    assert_eq!(Datatype::from(FLOAT_F8E5M2).to_string(), "H5T_FLOAT_F8E5M2");
    assert_eq!(Datatype::from(STD_B16BE).to_string(), "H5T_STD_B16BE");
    assert_eq!(
        Datatype::from(STD_B16BE)
            .to_reference_text(RefVersion::V2_0)
            .unwrap(),
        "undefined integer"
    );
    assert_eq!(
        Datatype::from(STD_REF_OBJ).to_string(),
        " H5T_REFERENCE { H5T_STD_REF_OBJECT }"
    );
    assert_eq!(
        Datatype::from(STD_REF_DSETREG).to_string(),
        " H5T_REFERENCE { H5T_STD_REF_DSETREG }"
    );
    assert_eq!(
        Datatype::from(UNIX_D32LE)
            .to_reference_text(RefVersion::V1_10)
            .unwrap(),
        "H5T_TIME: not yet implemented"
    );
    assert_eq!(
        Datatype::from(COMPLEX_IEEE_F16LE).to_string(),
        "H5T_COMPLEX {\n      H5T_IEEE_F16LE\n   }"
    );
    assert_eq!(
        Datatype::from(native_opaque()).to_string(),
        "H5T_OPAQUE {\n      OPQ_SIZE 1;\n      OPQ_TAG \"\";\n   }"
    );
    for (name, t) in all() {
        roundtrip(&t);
        assert_eq!(parse(name), t, "{name}");
    }
}

#[test]
fn extended_atomic_forms() {
    let mut i = STD_I32LE;
    i.atomic.precision = 31;
    i.atomic.offset = 1;
    i.atomic.msb_pad = Pad::One;
    let t = Datatype::from(i);
    assert_eq!(
        t.to_string(),
        "H5T_INTEGER {\n      SIZE 4;\n      ORDER H5T_ORDER_LE;\n      PRECISION 31;\n      OFFSET 1;\n      LSB_PAD H5T_PAD_ZERO;\n      MSB_PAD H5T_PAD_ONE;\n      SIGN H5T_SGN_2;\n   }"
    );
    assert_eq!(
        t.to_reference_text(RefVersion::V1_10).unwrap(),
        "undefined integer"
    );
    roundtrip(&t);
    roundtrip(&VAX_F64.into());
    roundtrip(&ComplexType::new(VAX_F32).into());
    roundtrip(&TimeType::new(3, ByteOrder::BigEndian, 20).into());
    let mut b = STD_B64BE;
    b.atomic.precision = 12;
    roundtrip(&b.into());
    assert_eq!(parse("H5T_INTEGER { SIZE 2; }"), Datatype::from(STD_I16LE));
    assert_eq!(parse("H5T_FLOAT { SIZE 4; }"), Datatype::from(IEEE_F32LE));
    assert_eq!(
        parse("H5T_FLOAT { SIZE 8; ORDER H5T_ORDER_BE; }"),
        Datatype::from(IEEE_F64BE)
    );
    for r in [
        ReferenceType::new(ReferenceKind::Revised),
        ReferenceType::new(ReferenceKind::Object2),
        ReferenceType::new(ReferenceKind::DatasetRegion2),
        ReferenceType::new(ReferenceKind::Attribute),
        ReferenceType::with_size(ReferenceKind::Object, 4),
    ] {
        roundtrip(&r.into());
    }
}

#[test]
fn enum_values() {
    let mut e = EnumType::new(STD_I64BE);
    e.insert("min", i64::MIN.into()).unwrap();
    e.insert("neg", -3).unwrap();
    e.insert("big", 1 << 40).unwrap();
    let t = Datatype::from(e);
    roundtrip(&t);
    let r = t.to_reference_text(RefVersion::V1_10).unwrap();
    assert!(r.contains("\"min\"              -2147483648;"), "{r}");
    assert!(r.contains("\"big\"              2147483647;"), "{r}");
    // A 16-byte unsigned value past i128 prints raw.
    let mut e = EnumType::new(IntegerType::new(16, ByteOrder::LittleEndian, Sign::None));
    e.insert_raw("top", vec![0xff; 16]).unwrap();
    e.insert("one", 1).unwrap();
    let t = Datatype::from(e);
    assert!(t.to_string().contains(&format!("0x{}", "ff".repeat(16))));
    roundtrip(&t);
    // An empty enum: the reference fails, the text still reads back.
    let t = Datatype::from(EnumType::new(STD_U8LE));
    assert_eq!(t.to_reference_text(RefVersion::V1_10), None);
    roundtrip(&t);
}

#[test]
fn escaped_names() {
    let mut c = CompoundType::new(8).unwrap();
    c.insert("say \"hi\"", 0, STD_I32LE.into()).unwrap();
    c.insert("back\\", 4, STD_I32LE.into()).unwrap();
    let t = Datatype::from(c);
    assert!(t.to_string().contains(r#""say \"hi\"" : 0;"#));
    assert!(t.to_string().contains(r#""back\\" : 4;"#));
    roundtrip(&t);
    let t = Datatype::from(OpaqueType::new(3, "a\\\"b").unwrap());
    roundtrip(&t);
}

#[test]
fn accepted_variants() {
    // Old opaque keywords, either order, and the tag-only form with a size.
    let want = Datatype::from(OpaqueType::new(3, "x").unwrap());
    assert_eq!(parse(r#"H5T_OPAQUE { OPQ_TAG "x"; OPQ_SIZE 3; }"#), want);
    assert_eq!(
        parse(r#"H5T_OPAQUE { OPAQUE_TAG "x"; OPAQUE_SIZE 3; }"#),
        want
    );
    assert_eq!(parse(r#"H5T_OPAQUE{OPQ_SIZE 3;OPQ_TAG"x";}"#), want);
    // Bare identifiers as names, negative values.
    let t = parse("H5T_ENUM { H5T_NATIVE_INT; RED -1; GREEN 0; }");
    assert_eq!(t.as_enum().unwrap().value_of("RED"), Some(-1));
    let t = parse("H5T_COMPOUND { H5T_NATIVE_INT a; H5T_NATIVE_B8 b; H5T_STD_REF_OBJ r; }");
    assert_eq!(t.size(), 13);
    // Strings with fields in another order or missing.
    let t = parse("H5T_STRING { CSET H5T_CSET_UTF8; STRSIZE 4; }");
    assert_eq!(
        t,
        StringType::fixed(4, StrPad::NullTerm, CharSet::Utf8).into()
    );
    let t = parse("H5T_STRING { STRSIZE 4; CTYPE H5T_FORTRAN_S1; }");
    assert_eq!(
        t,
        StringType::fixed(4, StrPad::SpacePad, CharSet::Ascii).into()
    );
    assert_eq!(
        parse("H5T_REFERENCE { H5T_STD_REF_OBJ }"),
        STD_REF_OBJ.into()
    );
    assert_eq!(
        parse("H5T_COMPLEX { H5T_NATIVE_DOUBLE }"),
        NATIVE_DOUBLE_COMPLEX.into()
    );
    assert_eq!(
        parse("H5T_COMPOUND { SIZE 12; H5T_STD_I32LE \"a\" : 0; H5T_STD_I32LE \"b\"; }")
            .as_compound()
            .unwrap()
            .member("b")
            .unwrap()
            .offset(),
        4
    );
}

#[test]
fn errors_have_positions() {
    let cases: &[(&str, usize, ErrorKind)] = &[
        ("", 0, ErrorKind::Syntax),
        ("H5T_STD_I33LE", 0, ErrorKind::Syntax),
        ("H5T_VLEN { H5T_STD_I8LE ", 24, ErrorKind::Syntax),
        ("H5T_VLEN { H5T_STD_I8LE } x", 26, ErrorKind::Syntax),
        (
            "H5T_ARRAY { [0] H5T_STD_I8LE }",
            12,
            ErrorKind::InvalidArgument,
        ),
        ("H5T_ARRAY { H5T_STD_I8LE }", 12, ErrorKind::Syntax),
        (
            "H5T_COMPOUND { H5T_STD_I8LE \"a\"; H5T_STD_I8LE \"a\"; }",
            46,
            ErrorKind::DuplicateName,
        ),
        (
            "H5T_COMPOUND { H5T_STD_I32LE \"a\" : 4; H5T_STD_I32LE \"b\" : 6; }",
            52,
            ErrorKind::Overlap,
        ),
        (
            "H5T_ENUM { H5T_STD_U8LE; \"a\" 256; }",
            29,
            ErrorKind::InvalidArgument,
        ),
        (
            "H5T_ENUM { H5T_STD_U8LE; \"a\" 1; \"b\" 1; }",
            32,
            ErrorKind::DuplicateValue,
        ),
        ("H5T_ENUM { H5T_IEEE_F32LE; }", 11, ErrorKind::WrongClass),
        ("H5T_STRING { STRSIZE 0; }", 21, ErrorKind::InvalidArgument),
        (
            "H5T_STRING { STRPAD H5T_STR_NULLTERM; }",
            38,
            ErrorKind::Syntax,
        ),
        ("H5T_OPAQUE { OPQ_TAG \"t\"; }", 0, ErrorKind::Syntax),
        (
            "H5T_COMPOUND { H5T_STD_I8LE \"a\" : -1; }",
            34,
            ErrorKind::Syntax,
        ),
        ("H5T_STD_I8LE @", 13, ErrorKind::Syntax),
        ("H5T_COMPOUND { H5T_STD_I8LE \"a ; }", 28, ErrorKind::Syntax),
    ];
    for &(text, pos, kind) in cases {
        let e = text.parse::<Datatype>().expect_err(text);
        assert_eq!((e.position(), e.kind()), (Some(pos), kind), "{text:?}: {e}");
    }
}

#[test]
fn depth_limit() {
    let deep = |n: usize| {
        let mut s = String::new();
        for _ in 0..n {
            s.push_str("H5T_VLEN { ");
        }
        s.push_str("H5T_STD_I8LE");
        for _ in 0..n {
            s.push_str(" }");
        }
        s
    };
    assert!(deep(super::MAX_DEPTH - 1).parse::<Datatype>().is_ok());
    let e = deep(100_000).parse::<Datatype>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Syntax);
    assert_eq!(e.position(), Some(11 * super::MAX_DEPTH));
}
