use super::*;
use h5_types::{EnumType, Pad};

fn parse(b: &[u8]) -> Result<DatatypeMessage> {
    DatatypeMessage::parse(&mut Cursor::new(b, 0x100, Sizes::DEFAULT))
}

fn enc(m: &DatatypeMessage) -> Vec<u8> {
    let mut w = Writer::new(Sizes::DEFAULT);
    m.encode(&mut w);
    w.into_vec()
}

/// Parse the bytes, check the datatype and version, and that encoding gives the bytes back.
fn check(b: &[u8], version: u8, want: Datatype) {
    let m = parse(b).unwrap();
    assert_eq!(m.datatype, want);
    assert_eq!(m.version, version);
    assert_eq!(enc(&m), b, "{want:?}");
}

fn i32le() -> Datatype {
    IntegerType::new(4, ByteOrder::LittleEndian, Sign::TwosComplement).into()
}

fn f64le() -> FloatType {
    FloatType::ieee(8, ByteOrder::LittleEndian, 11, 52)
}

#[test]
fn integer_from_bytes() {
    // Version 1, class 0; big-endian, unsigned; size 2; offset 0, precision 16.
    check(
        &[0x10, 0x01, 0, 0, 2, 0, 0, 0, 0, 0, 16, 0],
        1,
        IntegerType::new(2, ByteOrder::BigEndian, Sign::None).into(),
    );
    // Signed, 12 significant bits at offset 2 with one-padding on both sides.
    let a = Atomic::from_parts(2, ByteOrder::LittleEndian, 12, 2, Pad::One, Pad::One).unwrap();
    check(
        &[0x10, 0x0e, 0, 0, 2, 0, 0, 0, 2, 0, 12, 0],
        1,
        IntegerType::from_parts(a, Sign::TwosComplement)
            .unwrap()
            .into(),
    );
}

#[test]
fn float_from_bytes() {
    // IEEE double LE: norm implied (2 << 4), sign at bit 63, exponent 52/11, mantissa 0/52,
    // bias 1023.
    check(
        &[
            0x11, 0x20, 0x3f, 0, 8, 0, 0, 0, 0, 0, 64, 0, 52, 11, 0, 52, 0xff, 3, 0, 0,
        ],
        1,
        f64le().into(),
    );
    // Half precision big-endian.
    check(
        &[
            0x11, 0x21, 0x0f, 0, 2, 0, 0, 0, 0, 0, 16, 0, 10, 5, 0, 10, 15, 0, 0, 0,
        ],
        1,
        FloatType::ieee(2, ByteOrder::BigEndian, 5, 10).into(),
    );
    // VAX order (bits 0 and 6) needs version 3.
    let b = [
        0x31, 0x61, 0x1f, 0, 4, 0, 0, 0, 0, 0, 32, 0, 23, 8, 0, 23, 0x81, 0, 0, 0,
    ];
    let m = parse(&b).unwrap();
    assert_eq!(m.datatype.order(), Some(ByteOrder::Vax));
    assert_eq!(enc(&m), b);
    let mut v1 = b;
    v1[0] = 0x11;
    assert_eq!(parse(&v1).unwrap_err().kind(), ErrorKind::InvalidValue);
    // A custom float: 3 bytes, 1 sign, 7 exponent, 16 mantissa, no normalization.
    let a = Atomic::from_parts(3, ByteOrder::LittleEndian, 24, 0, Pad::Zero, Pad::Zero).unwrap();
    let f = FloatType::from_parts(
        a,
        FloatFields {
            sign_pos: 23,
            exp_pos: 16,
            exp_size: 7,
            mant_pos: 0,
            mant_size: 16,
            exp_bias: 63,
            norm: Norm::None,
            inpad: Pad::Zero,
        },
    )
    .unwrap();
    check(
        &[
            0x11, 0x00, 23, 0, 3, 0, 0, 0, 0, 0, 24, 0, 16, 7, 0, 16, 63, 0, 0, 0,
        ],
        1,
        f.into(),
    );
}

#[test]
fn time_string_bitfield_opaque_from_bytes() {
    check(
        &[0x12, 0, 0, 0, 4, 0, 0, 0, 32, 0],
        1,
        TimeType::new(4, ByteOrder::LittleEndian, 32).into(),
    );
    // Null-padded UTF-8 string of 10 bytes.
    check(
        &[0x13, 0x11, 0, 0, 10, 0, 0, 0],
        1,
        StringType::fixed(10, StrPad::NullPad, CharSet::Utf8).into(),
    );
    check(
        &[0x14, 0x00, 0, 0, 1, 0, 0, 0, 0, 0, 8, 0],
        1,
        BitfieldType::new(1, ByteOrder::LittleEndian).into(),
    );
    let mut b = vec![0x15, 8, 0, 0, 4, 0, 0, 0];
    b.extend_from_slice(b"tag\0\0\0\0\0");
    check(&b, 1, OpaqueType::new(4, "tag").unwrap().into());
}

#[test]
fn compound_versions_from_bytes() {
    // Version 1: member "a" int32 at 0; member "b" an old-style array of 3 doubles at 8.
    let mut b = vec![0x16, 2, 0, 0, 32, 0, 0, 0];
    b.extend_from_slice(b"a\0\0\0\0\0\0\0");
    b.extend_from_slice(&[0, 0, 0, 0]); // offset 0
    b.extend_from_slice(&[0; 28]); // rank 0, reserved, permutation, reserved, 4 dims
    b.extend_from_slice(&[0x10, 0x08, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0]);
    b.extend_from_slice(b"b\0\0\0\0\0\0\0");
    b.extend_from_slice(&[8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    b.extend_from_slice(&[3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    b.extend_from_slice(&[
        0x11, 0x20, 0x3f, 0, 8, 0, 0, 0, 0, 0, 64, 0, 52, 11, 0, 52, 0xff, 3, 0, 0,
    ]);
    let arr = ArrayType::new(f64le().into(), &[3]).unwrap();
    let want: Datatype = CompoundType::from_members(32, [("a", 0, i32le()), ("b", 8, arr.into())])
        .unwrap()
        .into();
    check(&b, 1, want.clone());
    // Version 3: names not padded, offsets in one byte (size 32 < 256), array of version 3.
    let m = DatatypeMessage {
        version: 3,
        datatype: want,
    };
    let b3 = enc(&m);
    assert_eq!(&b3[..10], &[0x36, 2, 0, 0, 32, 0, 0, 0, b'a', 0]);
    assert_eq!(b3[10], 0); // offset of "a"
    assert_eq!(parse(&b3).unwrap(), m);
}

#[test]
fn reference_enum_vlen_array_complex_from_bytes() {
    check(
        &[0x17, 0, 0, 0, 8, 0, 0, 0],
        1,
        ReferenceType::with_size(ReferenceKind::Object, 8).into(),
    );
    check(
        &[0x17, 1, 0, 0, 12, 0, 0, 0],
        1,
        ReferenceType::with_size(ReferenceKind::DatasetRegion, 12).into(),
    );
    // Revised attribute reference (type 4, encoding version 1) in a version 4 message.
    check(
        &[0x47, 0x14, 0, 0, 16, 0, 0, 0],
        4,
        ReferenceType::with_size(ReferenceKind::Attribute, 16).into(),
    );
    assert!(parse(&[0x47, 0x24, 0, 0, 16, 0, 0, 0]).is_err());
    // Enum (version 3: unpadded names) over uint8 with A=0, B=1.
    let mut e = EnumType::new(IntegerType::new(1, ByteOrder::LittleEndian, Sign::None));
    e.insert("A", 0).unwrap();
    e.insert("B", 1).unwrap();
    let mut b = vec![0x38, 2, 0, 0, 1, 0, 0, 0];
    b.extend_from_slice(&[0x30, 0, 0, 0, 1, 0, 0, 0, 0, 0, 8, 0]);
    b.extend_from_slice(b"A\0B\0");
    b.extend_from_slice(&[0, 1]);
    check(&b, 3, e.into());
    // Variable-length sequence of int32: size 16 (4 + 8 + 4).
    let mut b = vec![0x19, 0, 0, 0, 16, 0, 0, 0];
    b.extend_from_slice(&[0x10, 0x08, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0]);
    check(&b, 1, VarLenType::new(i32le()).into());
    // Variable-length UTF-8 string, null-terminated, over an unsigned byte.
    let mut b = vec![0x19, 0x01, 0x01, 0, 16, 0, 0, 0];
    b.extend_from_slice(&[0x10, 0, 0, 0, 1, 0, 0, 0, 0, 0, 8, 0]);
    check(
        &b,
        1,
        StringType::variable(StrPad::NullTerm, CharSet::Utf8).into(),
    );
    // Array version 2 (with permutation) and version 3 of 2x3 int32.
    let arr: Datatype = ArrayType::new(i32le(), &[2, 3]).unwrap().into();
    let mut b = vec![0x2a, 0, 0, 0, 24, 0, 0, 0, 2, 0, 0, 0];
    b.extend_from_slice(&[2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]);
    b.extend_from_slice(&[0x20, 0x08, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0]);
    check(&b, 2, arr.clone());
    let mut b = vec![0x3a, 0, 0, 0, 24, 0, 0, 0, 2];
    b.extend_from_slice(&[2, 0, 0, 0, 3, 0, 0, 0]);
    b.extend_from_slice(&[0x30, 0x08, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0]);
    check(&b, 3, arr);
    // Complex of two doubles (version 5, homogeneous rectangular).
    let mut b = vec![0x5b, 1, 0, 0, 16, 0, 0, 0];
    b.extend_from_slice(&[
        0x51, 0x20, 0x3f, 0, 8, 0, 0, 0, 0, 0, 64, 0, 52, 11, 0, 52, 0xff, 3, 0, 0,
    ]);
    check(&b, 5, ComplexType::new(f64le()).into());
    let mut bad = b.clone();
    bad[0] = 0x4b;
    assert!(parse(&bad).is_err());
}

fn samples() -> Vec<Datatype> {
    let mut e = EnumType::new(IntegerType::new(
        2,
        ByteOrder::BigEndian,
        Sign::TwosComplement,
    ));
    e.insert("neg", -1).unwrap();
    e.insert("big", 300).unwrap();
    let inner = CompoundType::from_members(
        24,
        [
            ("x", 0, i32le()),
            (
                "s",
                4,
                StringType::fixed(4, StrPad::SpacePad, CharSet::Ascii).into(),
            ),
            ("v", 8, VarLenType::new(Datatype::from(f64le())).into()),
        ],
    )
    .unwrap();
    let arr4 = ArrayType::new(Datatype::from(inner.clone()), &[2, 2]).unwrap();
    let outer = CompoundType::from_members(
        200,
        [
            ("inner", 0, Datatype::from(inner.clone())),
            ("arr", 24, arr4.clone().into()),
            ("e", 120, e.clone().into()),
            (
                "r",
                128,
                ReferenceType::with_size(ReferenceKind::Object, 8).into(),
            ),
            (
                "vs",
                136,
                StringType::variable(StrPad::NullPad, CharSet::Ascii).into(),
            ),
        ],
    )
    .unwrap();
    vec![
        i32le(),
        f64le().into(),
        BitfieldType::new(8, ByteOrder::BigEndian).into(),
        OpaqueType::new(7, "a longer tag than eight")
            .unwrap()
            .into(),
        e.into(),
        inner.into(),
        outer.into(),
        arr4.into(),
        VarLenType::new(VarLenType::new(i32le()).into()).into(),
        ReferenceType::with_size(ReferenceKind::DatasetRegion2, 16).into(),
        ReferenceType::with_size(ReferenceKind::Object2, 18).into(),
        ComplexType::new(FloatType::ieee(4, ByteOrder::BigEndian, 8, 23)).into(),
        TimeType::new(8, ByteOrder::BigEndian, 64).into(),
    ]
}

#[test]
fn every_sample_round_trips_at_every_version() {
    for dt in samples() {
        for v in 1..=LATEST_VERSION {
            let m = DatatypeMessage {
                version: v.max(min_version(&dt)),
                datatype: dt.clone(),
            };
            let b = enc(&m);
            let got = parse(&b).unwrap_or_else(|e| panic!("{dt:?} v{v}: {e}"));
            assert_eq!(got, m, "version {v}");
            // Every strict prefix is an error, never a panic.
            for n in 0..b.len() {
                assert!(parse(&b[..n]).is_err() || n == b.len());
            }
        }
    }
}

#[test]
fn revised_memory_reference_is_stored_as_object2() {
    let m = DatatypeMessage::new(ReferenceType::new(ReferenceKind::Revised).into());
    let got = parse(&enc(&m)).unwrap();
    assert_eq!(
        got.datatype,
        ReferenceType::with_size(ReferenceKind::Object2, 16).into()
    );
}

#[test]
fn hostile_input_is_an_error() {
    // Unknown class 12, version 0 and 6.
    for b in [
        [0x1c, 0, 0, 0, 1, 0, 0, 0],
        [0x00, 0, 0, 0, 1, 0, 0, 0],
        [0x60, 0, 0, 0, 1, 0, 0, 0],
    ] {
        let e = parse(&b).unwrap_err();
        assert_eq!(e.structure(), "datatype message");
        assert_eq!(e.offset(), Some(0x100));
    }
    // A compound claiming 65535 members in a few bytes.
    let e = parse(&[0x16, 0xff, 0xff, 0, 8, 0, 0, 0, b'a', 0]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    // An enum claiming many members.
    let mut b = vec![0x38, 0xff, 0xff, 0, 1, 0, 0, 0];
    b.extend_from_slice(&[0x30, 0, 0, 0, 1, 0, 0, 0, 0, 0, 8, 0]);
    assert_eq!(parse(&b).unwrap_err().kind(), ErrorKind::LimitExceeded);
    // Arrays nested past the depth limit.
    let mut b = Vec::new();
    for _ in 0..200 {
        b.extend_from_slice(&[0x3a, 0, 0, 0, 4, 0, 0, 0, 1, 1, 0, 0, 0]);
    }
    b.extend_from_slice(&[0x30, 0, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0]);
    assert_eq!(parse(&b).unwrap_err().kind(), ErrorKind::LimitExceeded);
    // Precision past the size.
    assert_eq!(
        parse(&[0x10, 0, 0, 0, 1, 0, 0, 0, 0, 0, 9, 0])
            .unwrap_err()
            .kind(),
        ErrorKind::Datatype
    );
    // Overlapping compound members.
    let mut b = vec![0x36, 2, 0, 0, 4, 0, 0, 0];
    for name in [b'a', b'b'] {
        b.extend_from_slice(&[name, 0, 0]);
        b.extend_from_slice(&[0x30, 0, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0]);
    }
    assert_eq!(parse(&b).unwrap_err().kind(), ErrorKind::Datatype);
}

#[test]
fn disk_sizes() {
    let s4 = Sizes {
        offset: 4,
        length: 4,
    };
    assert_eq!(disk_size(&VarLenType::new(i32le()).into(), s4), 12);
    assert_eq!(
        disk_size(
            &StringType::variable(StrPad::NullTerm, CharSet::Ascii).into(),
            Sizes::DEFAULT
        ),
        16
    );
    let arr = ArrayType::new(VarLenType::new(i32le()).into(), &[3]).unwrap();
    assert_eq!(disk_size(&arr.into(), Sizes::DEFAULT), 48);
}

fn library_size(b: &[u8]) -> Result<u64> {
    library_encoded_size(&mut Cursor::new(b, 0x100, Sizes::DEFAULT))
}

#[test]
fn library_encoded_size_keeps_nested_versions() {
    // Version 1 compound {int32 a; double b[3]} with an old-style array member: the library
    // makes "b" a version 2 array and raises the compound to 2 (8 + 8+4+12 + 8+4+(8+4+8+20)).
    let mut v1 = vec![0x16, 2, 0, 0, 32, 0, 0, 0];
    v1.extend_from_slice(b"a\0\0\0\0\0\0\0");
    v1.extend_from_slice(&[0; 32]); // offset 0, rank 0, reserved, permutation, reserved, dims
    v1.extend_from_slice(&[0x10, 0x08, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0]);
    v1.extend_from_slice(b"b\0\0\0\0\0\0\0");
    v1.extend_from_slice(&[8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    v1.extend_from_slice(&[3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    let f64_v1 = [
        0x11, 0x20, 0x3f, 0, 8, 0, 0, 0, 0, 0, 64, 0, 52, 11, 0, 52, 0xff, 3, 0, 0,
    ];
    v1.extend_from_slice(&f64_v1);
    assert_eq!(library_size(&v1).unwrap(), 8 + 24 + 52);
    // Without array members a version 1 compound keeps its layout: the stored size.
    let mut plain = vec![0x16, 1, 0, 0, 4, 0, 0, 0];
    plain.extend_from_slice(b"a\0\0\0\0\0\0\0");
    plain.extend_from_slice(&[0; 32]);
    plain.extend_from_slice(&[0x10, 0x08, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0]);
    assert_eq!(library_size(&plain).unwrap(), plain.len() as u64);
    // A version 2 compound {int32 x[2]; plain c}: the array makes it version 2, but the
    // nested version 1 compound keeps its 28 extra bytes per member (as h5stat -T counts
    // tnestedcmpddt.h5).
    let mut v2 = vec![0x26, 2, 0, 0, 12, 0, 0, 0];
    v2.extend_from_slice(b"x\0\0\0\0\0\0\0");
    v2.extend_from_slice(&[0, 0, 0, 0]);
    v2.extend_from_slice(&[
        0x2a, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,
    ]);
    v2.extend_from_slice(&[0x10, 0x08, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0]);
    v2.extend_from_slice(b"c\0\0\0\0\0\0\0");
    v2.extend_from_slice(&[8, 0, 0, 0]);
    v2.extend_from_slice(&plain);
    assert_eq!(library_size(&v2).unwrap(), v2.len() as u64);
    // Malformed input is an error, never a panic.
    for n in 0..v2.len() {
        assert!(library_size(&v2[..n]).is_err(), "{n} bytes");
    }
}
