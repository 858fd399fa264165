//! Unit tests of the conversion engine, and differential tests of custom layouts (built
//! with struct literals) against the reference library.

#[path = "../../tests/support/oracle_convert.rs"]
mod support;

use crate as h5t;

use super::*;
use crate::*;
use support::{compare, oracle, values, Job, Rng};

fn int(
    size: usize,
    order: ByteOrder,
    sign: Sign,
    precision: usize,
    offset: usize,
    pads: (Pad, Pad),
) -> Datatype {
    Datatype::Integer(IntegerType {
        atomic: Atomic {
            size,
            order,
            precision,
            offset,
            lsb_pad: pads.0,
            msb_pad: pads.1,
        },
        sign,
    })
}

/// A float whose mantissa sits at bit `offset`, the exponent right above it and the sign
/// on top, in `size` bytes.
#[allow(clippy::too_many_arguments)]
fn float(
    size: usize,
    order: ByteOrder,
    offset: usize,
    esize: usize,
    msize: usize,
    bias: u64,
    norm: Norm,
    pads: (Pad, Pad),
) -> Datatype {
    Datatype::Float(FloatType {
        atomic: Atomic {
            size,
            order,
            precision: 1 + esize + msize,
            offset,
            lsb_pad: pads.0,
            msb_pad: pads.1,
        },
        sign_pos: offset + esize + msize,
        exp_pos: offset + msize,
        exp_size: esize,
        mant_pos: offset,
        mant_size: msize,
        exp_bias: bias,
        norm,
        inpad: Pad::Zero,
    })
}

const LE: ByteOrder = ByteOrder::LittleEndian;
const BE: ByteOrder = ByteOrder::BigEndian;
const Z: (Pad, Pad) = (Pad::Zero, Pad::Zero);

fn f16() -> Datatype {
    FloatType::ieee(2, LE, 5, 10).into()
}
fn bf16() -> Datatype {
    FloatType::ieee(2, LE, 8, 7).into()
}
fn e4m3() -> Datatype {
    float(1, LE, 0, 4, 3, 7, Norm::Implied, Z)
}
fn e5m2() -> Datatype {
    float(1, LE, 0, 5, 2, 15, Norm::Implied, Z)
}
fn f32le() -> Datatype {
    FloatType::ieee(4, LE, 8, 23).into()
}
fn f64le() -> Datatype {
    FloatType::ieee(8, LE, 11, 52).into()
}
fn f64be() -> Datatype {
    FloatType::ieee(8, BE, 11, 52).into()
}
fn i32le() -> Datatype {
    IntegerType::new(4, LE, Sign::TwosComplement).into()
}
fn u8le() -> Datatype {
    IntegerType::new(1, LE, Sign::None).into()
}

fn random_int(rng: &mut Rng) -> Datatype {
    let size = 1 + rng.below(12) as usize;
    let precision = 1 + rng.below(8 * size as u64) as usize;
    let offset = rng.below((8 * size - precision + 1) as u64) as usize;
    let pad = |r: &mut Rng| if r.bit() { Pad::One } else { Pad::Zero };
    let pads = (pad(rng), pad(rng));
    let order = if rng.bit() { LE } else { BE };
    let sign = if rng.bit() {
        Sign::TwosComplement
    } else {
        Sign::None
    };
    // Precision 1 signed integers are degenerate; keep at least two bits for them.
    let precision = if sign == Sign::TwosComplement {
        precision.max(2.min(8 * size))
    } else {
        precision
    };
    let offset = offset.min(8 * size - precision);
    int(size, order, sign, precision, offset, pads)
}

fn random_float(rng: &mut Rng) -> Datatype {
    match rng.below(8) {
        0 => f16(),
        1 => bf16(),
        2 => e4m3(),
        3 => e5m2(),
        4 => {
            // VAX-order f32/f64 layouts
            let wide = rng.bit();
            if wide {
                Datatype::Float(FloatType::ieee(8, ByteOrder::Vax, 11, 52))
            } else {
                Datatype::Float(FloatType::ieee(4, ByteOrder::Vax, 8, 23))
            }
        }
        _ => {
            let esize = 2 + rng.below(10) as usize;
            let msize = 1 + rng.below(40) as usize;
            let bits = 1 + esize + msize;
            let size = bits.div_ceil(8) + rng.below(2) as usize;
            let offset = rng.below((8 * size - bits + 1) as u64) as usize;
            let bias = if rng.below(4) == 0 {
                rng.below(1 << (esize - 1))
            } else {
                (1u64 << (esize - 1)) - 1
            };
            let norm = if rng.below(5) == 0 {
                Norm::None
            } else {
                Norm::Implied
            };
            let pad = |r: &mut Rng| if r.bit() { Pad::One } else { Pad::Zero };
            let pads = (pad(rng), pad(rng));
            let order = if rng.bit() { LE } else { BE };
            float(size, order, offset, esize, msize, bias, norm, pads)
        }
    }
}

fn jobs_for(pairs: &[(Datatype, Datatype)], rng: &mut Rng, count: usize) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (s, d) in pairs {
        let input = values(s, count, rng);
        for cb in [true, false] {
            jobs.push(Job {
                src: s.clone(),
                dst: d.clone(),
                n: count,
                input: input.clone(),
                cb,
                bkg: None,
            });
        }
    }
    jobs
}

/// Compare engine and oracle on every job, and check that exactly `errors` jobs have no
/// conversion path (in both).
fn check_against_oracle_errors(jobs: &[Job], errors: usize) {
    let Some(expected) = oracle(jobs) else { return };
    let failed = expected
        .iter()
        .filter(|o| **o == support::Outcome::Err)
        .count();
    assert_eq!(
        failed,
        errors,
        "the reference library failed {failed} of {} jobs",
        jobs.len()
    );
    let bad = compare(jobs, &expected);
    assert!(
        bad.is_empty(),
        "{} of {} jobs differ:\n{}",
        bad.len(),
        jobs.len(),
        bad.iter().take(12).cloned().collect::<Vec<_>>().join("\n")
    );
}

fn check_against_oracle(jobs: &[Job]) {
    check_against_oracle_errors(jobs, 0)
}

#[test]
fn custom_integer_layouts_match_reference() {
    let mut rng = Rng(0x1001);
    let mut pairs = Vec::new();
    for _ in 0..300 {
        pairs.push((random_int(&mut rng), random_int(&mut rng)));
    }
    // Standard types against custom ones.
    for _ in 0..40 {
        pairs.push((i32le(), random_int(&mut rng)));
        pairs.push((random_int(&mut rng), u8le()));
    }
    check_against_oracle(&jobs_for(&pairs, &mut rng, 80));
}

#[test]
fn custom_float_layouts_match_reference() {
    let mut rng = Rng(0x2002);
    let mut pairs = Vec::new();
    let named = [f16(), bf16(), e4m3(), e5m2(), f32le(), f64le(), f64be()];
    for a in &named {
        for b in &named {
            pairs.push((a.clone(), b.clone()));
        }
    }
    for _ in 0..250 {
        pairs.push((random_float(&mut rng), random_float(&mut rng)));
    }
    for _ in 0..40 {
        pairs.push((f64le(), random_float(&mut rng)));
        pairs.push((random_float(&mut rng), f32le()));
    }
    check_against_oracle(&jobs_for(&pairs, &mut rng, 100));
}

#[test]
fn custom_int_float_layouts_match_reference() {
    let mut rng = Rng(0x3003);
    let mut pairs = Vec::new();
    for _ in 0..200 {
        // The reference library's integer-to-float path overruns a 64-bit stack variable
        // when more than 65 bits below the mantissa are dropped: skip those pairs.
        let (i, f) = loop {
            let (i, f) = (random_int(&mut rng), random_float(&mut rng));
            if i.atomic().unwrap().precision() <= f.as_float().unwrap().mant_size() + 65 {
                break (i, f);
            }
        };
        pairs.push((i, f));
        // The reference library's float-to-integer path overruns its buffer when the
        // mantissa has more bits than 2^esize (its scratch integer size): skip those.
        let f = loop {
            let f = random_float(&mut rng);
            let t = f.as_float().unwrap();
            if t.mant_size() + 1 < 8 * ((1usize << t.exp_size()) / 8 + 1) {
                break f;
            }
        };
        pairs.push((f, random_int(&mut rng)));
    }
    for f in [f16(), bf16(), e4m3(), e5m2()] {
        pairs.push((i32le(), f.clone()));
        pairs.push((f.clone(), i32le()));
        pairs.push((u8le(), f.clone()));
        pairs.push((f, u8le()));
    }
    check_against_oracle(&jobs_for(&pairs, &mut rng, 100));
}

fn job(src: &Datatype, dst: &Datatype, input: Vec<u8>, cb: bool, bkg: Option<Vec<u8>>) -> Job {
    let n = input.len() / src.size();
    Job {
        src: src.clone(),
        dst: dst.clone(),
        n,
        input,
        cb,
        bkg,
    }
}

fn both(src: &Datatype, dst: &Datatype, input: Vec<u8>, bkg: Option<Vec<u8>>) -> [Job; 2] {
    [
        job(src, dst, input.clone(), true, bkg.clone()),
        job(src, dst, input, false, bkg),
    ]
}

fn enum_of(base: IntegerType, members: &[(&str, i128)]) -> Datatype {
    let mut e = EnumType::new(base);
    for (n, v) in members {
        e.insert(n, *v).unwrap();
    }
    e.into()
}

#[test]
fn enums_match_reference() {
    let i16be = IntegerType::new(2, BE, Sign::TwosComplement);
    let u8t = IntegerType::new(1, LE, Sign::None);
    let i32t = IntegerType::new(4, LE, Sign::TwosComplement);
    let src = enum_of(i16be, &[("RED", -3), ("GREEN", 7), ("BLUE", 300)]);
    let dst = enum_of(u8t, &[("BLUE", 1), ("RED", 2), ("GREEN", 3), ("EXTRA", 9)]);
    let dst_wide = enum_of(i32t, &[("GREEN", -1), ("BLUE", 100_000), ("RED", 5)]);
    let mut input = Vec::new();
    for v in [-3i16, 7, 300, 5, -3, 0, 300, i16::MIN] {
        input.extend(v.to_be_bytes());
    }
    let mut jobs = Vec::new();
    jobs.extend(both(&src, &dst, input.clone(), None));
    jobs.extend(both(&src, &dst_wide, input.clone(), None));
    // To integers and floats through the base type.
    jobs.extend(both(&src, &u8le(), input.clone(), None));
    jobs.extend(both(&src, &i32le(), input.clone(), None));
    jobs.extend(both(&src, &f32le(), input.clone(), None));
    jobs.extend(both(&src, &f64be(), input.clone(), None));
    // Not a subset by name: no path.
    jobs.extend(both(&dst, &src, vec![1, 2, 3, 9], None));
    check_against_oracle_errors(&jobs, 2);
}

#[test]
fn strings_match_reference() {
    let pads = [StrPad::NullTerm, StrPad::NullPad, StrPad::SpacePad];
    let samples: [&[u8]; 6] = [b"hello", b"", b"a b  ", b"exactly8", b"x\0yz", b"  lead"];
    let mut jobs = Vec::new();
    for sp in pads {
        for dp in pads {
            for (ssz, dsz) in [(8, 8), (8, 3), (3, 8), (8, 1), (1, 5)] {
                let s: Datatype = StringType::fixed(ssz, sp, CharSet::Ascii).into();
                let d: Datatype = StringType::fixed(dsz, dp, CharSet::Ascii).into();
                let mut input = Vec::new();
                for t in samples {
                    let mut e = vec![if sp == StrPad::SpacePad { b' ' } else { 0 }; ssz];
                    let k = t.len().min(ssz);
                    e[..k].copy_from_slice(&t[..k]);
                    input.extend(e);
                }
                jobs.extend(both(&s, &d, input, None));
            }
        }
    }
    // Different character sets: no path.
    let a: Datatype = StringType::fixed(4, StrPad::NullTerm, CharSet::Ascii).into();
    let u: Datatype = StringType::fixed(4, StrPad::NullTerm, CharSet::Utf8).into();
    jobs.extend(both(&a, &u, b"abc\0".to_vec(), None));
    check_against_oracle_errors(&jobs, 2);
}

fn random_bitfield(rng: &mut Rng) -> Datatype {
    match random_int(rng) {
        Datatype::Integer(i) => Datatype::Bitfield(BitfieldType { atomic: i.atomic }),
        _ => unreachable!(),
    }
}

#[test]
fn bitfields_match_reference() {
    let mut rng = Rng(0x4004);
    let mut pairs = Vec::new();
    for _ in 0..120 {
        pairs.push((random_bitfield(&mut rng), random_bitfield(&mut rng)));
    }
    pairs.push((
        BitfieldType::new(4, BE).into(),
        BitfieldType::new(4, LE).into(),
    ));
    pairs.push((
        BitfieldType::new(2, LE).into(),
        BitfieldType::new(8, BE).into(),
    ));
    check_against_oracle(&jobs_for(&pairs, &mut rng, 40));
}

fn compound(size: usize, members: Vec<(&str, usize, Datatype)>) -> Datatype {
    CompoundType::from_members(size, members).unwrap().into()
}

#[test]
fn compounds_and_arrays_match_reference() {
    let mut rng = Rng(0x5005);
    let i16be: Datatype = IntegerType::new(2, BE, Sign::TwosComplement).into();
    let inner_src = compound(12, vec![("p", 0, f64be()), ("q", 8, i16be.clone())]);
    let inner_dst = compound(8, vec![("q", 0, i32le()), ("p", 4, f32le())]);
    let arr_src: Datatype = ArrayType::new(i16be.clone(), &[2, 3]).unwrap().into();
    let arr_dst: Datatype = ArrayType::new(f64le(), &[2, 3]).unwrap().into();
    let src = compound(
        40,
        vec![
            ("a", 0, i32le()),
            ("b", 4, f64be()),
            ("dropped", 12, u8le()),
            ("in", 13, inner_src),
            ("arr", 25, arr_src.clone()),
        ],
    );
    // Reordered, a subset of the source plus a member of its own, nested, with gaps.
    let dst = compound(
        96,
        vec![
            ("arr", 0, arr_dst.clone()),
            ("own", 48, f64le()),
            ("b", 56, f32le()),
            ("in", 60, inner_dst),
            ("a", 72, IntegerType::new(1, LE, Sign::None).into()),
        ],
    );
    let n = 40;
    let input = values(
        &IntegerType::new(1, LE, Sign::None).into(),
        n * src.size(),
        &mut rng,
    );
    let bkg: Vec<u8> = (0..n * dst.size()).map(|_| rng.next() as u8).collect();
    let mut jobs = Vec::new();
    jobs.extend(both(&src, &dst, input.clone(), Some(bkg)));
    // Members of every fixed-size class.
    let e1 = enum_of(
        IntegerType::new(2, BE, Sign::TwosComplement),
        &[("X", 1), ("Y", -1)],
    );
    let e2 = enum_of(
        IntegerType::new(1, LE, Sign::None),
        &[("Y", 7), ("X", 9), ("Z", 3)],
    );
    let s1: Datatype = StringType::fixed(6, StrPad::SpacePad, CharSet::Ascii).into();
    let s2: Datatype = StringType::fixed(4, StrPad::NullTerm, CharSet::Ascii).into();
    let b1: Datatype = BitfieldType::new(2, BE).into();
    let b2: Datatype = BitfieldType::new(1, LE).into();
    let o: Datatype = OpaqueType::new(3, "blob").unwrap().into();
    let src2 = compound(
        20,
        vec![
            ("e", 0, e1),
            ("s", 2, s1),
            ("b", 8, b1),
            ("o", 10, o.clone()),
            ("f", 13, f32le()),
        ],
    );
    let dst2 = compound(
        16,
        vec![
            ("o", 0, o),
            ("b", 3, b2),
            ("s", 4, s2),
            ("e", 8, e2),
            ("f", 9, f16()),
        ],
    );
    let mut input2 = Vec::new();
    for k in 0..10u8 {
        let mut e = vec![0u8; 20];
        e[0..2].copy_from_slice(
            &(if k % 3 == 0 {
                1i16
            } else if k % 3 == 1 {
                -1
            } else {
                5
            })
            .to_be_bytes(),
        );
        e[2..8].copy_from_slice(&[b'a' + k, b'b', b' ', b'c', b' ', b' ']);
        e[8..10].copy_from_slice(&[k, 0x80 | k]);
        e[10..13].copy_from_slice(&[k, k, k]);
        e[13..17].copy_from_slice(&(f32::from(k) * 1000.5).to_le_bytes());
        input2.extend(e);
    }
    let bkg2: Vec<u8> = (0..10 * 16).map(|_| rng.next() as u8).collect();
    jobs.extend(both(&src2, &dst2, input2, Some(bkg2)));
    // Arrays on their own.
    let arr_in = values(&i16be, 6 * 30, &mut rng);
    jobs.extend(both(&arr_src, &arr_dst, arr_in, None));
    // Arrays of different shapes: no path.
    let other: Datatype = ArrayType::new(f64le(), &[3, 2]).unwrap().into();
    jobs.extend(both(&arr_src, &other, vec![0; 12], None));
    check_against_oracle_errors(&jobs, 2);
}

/// One or two sample types of every class.
fn samples() -> Vec<Datatype> {
    let mut e = EnumType::new(IntegerType::new(1, LE, Sign::None));
    e.insert("A", 1).unwrap();
    e.insert("B", 2).unwrap();
    let mut e2 = EnumType::new(IntegerType::new(2, BE, Sign::TwosComplement));
    e2.insert("B", -2).unwrap();
    e2.insert("A", 5).unwrap();
    e2.insert("C", 7).unwrap();
    vec![
        i32le(),
        IntegerType::new(2, BE, Sign::None).into(),
        f64be(),
        f16(),
        TimeType::new(4, LE, 32).into(),
        TimeType::new(8, LE, 64).into(),
        StringType::fixed(8, StrPad::NullTerm, CharSet::Ascii).into(),
        StringType::variable(StrPad::NullTerm, CharSet::Ascii).into(),
        BitfieldType::new(2, LE).into(),
        BitfieldType::new(4, BE).into(),
        OpaqueType::new(4, "tag").unwrap().into(),
        OpaqueType::new(4, "other").unwrap().into(),
        compound(8, vec![("x", 0, i32le()), ("y", 4, f32le())]),
        compound(16, vec![("y", 0, f64le()), ("z", 8, u8le())]),
        ReferenceType::new(ReferenceKind::Object).into(),
        ReferenceType::new(ReferenceKind::DatasetRegion).into(),
        e.into(),
        e2.into(),
        VarLenType::new(i32le()).into(),
        VarLenType::new(f64be()).into(),
        ArrayType::new(i32le(), &[3]).unwrap().into(),
        ArrayType::new(f32le(), &[3]).unwrap().into(),
        ComplexType::new(FloatType::ieee(4, LE, 8, 23)).into(),
        ComplexType::new(FloatType::ieee(8, BE, 11, 52)).into(),
    ]
}

/// Whether a conversion between different types of these classes exists.
fn class_pair_converts(s: Class, d: Class) -> bool {
    use Class::*;
    matches!(
        (s, d),
        (Integer | Float, Integer | Float)
            | (Enum, Enum | Integer | Float)
            | (String, String)
            | (Bitfield, Bitfield)
            | (Compound, Compound)
            | (Array, Array)
            | (VarLen, VarLen)
            | (Complex, Complex)
    )
}

#[test]
fn can_convert_and_convert_agree_for_every_pair_of_classes() {
    let types = samples();
    let mut classes_seen = std::collections::BTreeSet::new();
    for s in &types {
        for d in &types {
            classes_seen.insert((s.class(), d.class()));
            let can = can_convert(s, d);
            let conv = Converter::new(s, d);
            assert_eq!(can, conv.is_ok(), "{s:?} -> {d:?}");
            let names_subset = match (s, d) {
                (Datatype::Enum(a), Datatype::Enum(b)) => a
                    .members()
                    .iter()
                    .all(|m| b.members().iter().any(|n| n.name() == m.name())),
                _ => true,
            };
            let expected = s == d || (class_pair_converts(s.class(), d.class()) && names_subset);
            assert_eq!(
                can,
                expected,
                "can_convert({:?} -> {:?})",
                s.class(),
                d.class()
            );
            match conv {
                Ok(conv) => {
                    // A zero buffer is valid for every type (null variable-length handles).
                    let n = 3;
                    let input = vec![0u8; n * s.size()];
                    let mut out = vec![0u8; n * d.size()];
                    let mut heap = VarLenHeap::new();
                    let mut opts = ConversionOptions::new().with_heap(&mut heap);
                    conv.convert(&input, &mut out, n, &mut opts)
                        .unwrap_or_else(|e| panic!("{s:?} -> {d:?}: {e}"));
                }
                Err(e) => {
                    assert_eq!(e.kind(), ErrorKind::NoConversionPath);
                    let msg = e.to_string();
                    assert!(
                        msg.contains(&plan::describe(s)),
                        "{msg} does not name the source"
                    );
                    assert!(
                        msg.contains(&plan::describe(d)),
                        "{msg} does not name the destination"
                    );
                }
            }
        }
    }
    assert_eq!(
        classes_seen.len(),
        12 * 12,
        "every pair of the twelve classes"
    );
}

fn f64s(xs: &[f64]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn netcdf_policy_reports_out_of_range_elements_and_converts_the_rest() {
    let conv = Converter::new(&f64le(), &u8le()).unwrap();
    let input = f64s(&[1.5, 300.0, -1.0, f64::NAN, 2.9, f64::INFINITY, 255.0]);
    let mut out = [7u8; 7];
    let mut opts = ConversionOptions::netcdf();
    let err = conv.convert(&input, &mut out, 7, &mut opts).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ConversionException);
    assert!(err.to_string().contains("[1, 2, 3, 5]"), "{err}");
    assert_eq!(opts.report.range_errors, vec![1, 2, 3, 5]);
    // Truncation toward zero; out-of-range elements hold the clamped default.
    assert_eq!(out, [1, 255, 0, 0, 2, 255, 255]);

    // The same through the general (software) path: big-endian source.
    let conv = Converter::new(
        &f64be(),
        &IntegerType::new(2, BE, Sign::TwosComplement).into(),
    )
    .unwrap();
    let input: Vec<u8> = [f64::NAN, 40000.0, -7.9, f64::NEG_INFINITY]
        .iter()
        .flat_map(|x| x.to_be_bytes())
        .collect();
    let mut out = [0u8; 8];
    let mut opts = ConversionOptions::netcdf();
    assert!(conv.convert(&input, &mut out, 4, &mut opts).is_err());
    assert_eq!(opts.report.range_errors, vec![0, 1, 3]);
    assert_eq!(&out[4..6], &(-7i16).to_be_bytes());
}

#[test]
fn netcdf_policy_ignores_precision_loss_and_float_specials() {
    // Integer to float losing precision: not an error.
    let conv = Converter::new(&i32le(), &f32le()).unwrap();
    let mut out = [0u8; 4];
    let mut opts = ConversionOptions::netcdf();
    conv.convert(&16_777_217i32.to_le_bytes(), &mut out, 1, &mut opts)
        .unwrap();
    assert_eq!(f32::from_le_bytes(out), 16_777_216.0);
    assert!(opts.report.count(ExceptionKind::Precision) > 0);
    // Double to float: overflow is a range error, infinity and NaN are not.
    let conv = Converter::new(&f64le(), &f32le()).unwrap();
    let mut out = [0u8; 16];
    let mut opts = ConversionOptions::netcdf();
    let err = conv.convert(
        &f64s(&[1e300, f64::INFINITY, f64::NAN, 0.1]),
        &mut out,
        4,
        &mut opts,
    );
    assert!(err.is_err());
    assert_eq!(opts.report.range_errors, vec![0]);
    assert_eq!(f32::from_le_bytes(out[12..16].try_into().unwrap()), 0.1f32);
}

#[test]
fn handler_can_handle_or_abort() {
    let conv = Converter::new(&i32le(), &u8le()).unwrap();
    let input: Vec<u8> = [5i32, 1000, -4]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let mut seen = Vec::new();
    let mut out = [0u8; 3];
    {
        let mut opts =
            ConversionOptions::new().with_handler(|e: &Exception<'_>, dst: &mut [u8]| {
                seen.push((e.kind, e.index, e.src.to_vec()));
                if e.kind == ExceptionKind::RangeHi {
                    dst[0] = 42;
                    Action::Handled
                } else {
                    Action::Unhandled
                }
            });
        conv.convert(&input, &mut out, 3, &mut opts).unwrap();
        assert_eq!(opts.report.total(), 2);
    }
    assert_eq!(out, [5, 42, 0]);
    assert_eq!(
        seen,
        vec![
            (ExceptionKind::RangeHi, 1, 1000i32.to_le_bytes().to_vec()),
            (ExceptionKind::RangeLow, 2, (-4i32).to_le_bytes().to_vec())
        ]
    );
    let mut opts =
        ConversionOptions::new().with_handler(|_: &Exception<'_>, _: &mut [u8]| Action::Abort);
    let err = conv.convert(&input, &mut out, 3, &mut opts).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ConversionException);
}

#[test]
fn reference_defaults_clamp_and_count() {
    let out = convert(
        &i32le(),
        &u8le(),
        &[1, 0, 0, 0, 0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff],
    )
    .unwrap();
    assert_eq!(out, [1, 255, 0]);
    // Enum value without a name: all bits set.
    let src = enum_of(IntegerType::new(1, LE, Sign::None), &[("A", 1)]);
    let dst = enum_of(IntegerType::new(2, LE, Sign::None), &[("A", 7)]);
    assert_eq!(convert(&src, &dst, &[1, 3]).unwrap(), [7, 0, 0xff, 0xff]);
    // String truncation keeps the terminator.
    let s8: Datatype = StringType::fixed(8, StrPad::NullPad, CharSet::Ascii).into();
    let s4: Datatype = StringType::fixed(4, StrPad::NullTerm, CharSet::Ascii).into();
    assert_eq!(convert(&s8, &s4, b"abcdefgh").unwrap(), b"abc\0");
}

#[test]
fn compound_members_absent_from_the_source_keep_the_background() {
    let src = compound(8, vec![("a", 0, i32le()), ("gone", 4, i32le())]);
    let dst = compound(
        12,
        vec![
            ("kept", 0, f64le()),
            ("a", 8, IntegerType::new(4, BE, Sign::TwosComplement).into()),
        ],
    );
    let conv = Converter::new(&src, &dst).unwrap();
    assert!(conv.needs_background());
    let mut out = vec![0xabu8; 12];
    conv.convert(
        &[9, 0, 0, 0, 1, 1, 1, 1],
        &mut out,
        1,
        &mut ConversionOptions::new(),
    )
    .unwrap();
    assert_eq!(
        out,
        [0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0, 0, 0, 9]
    );
}

#[test]
fn variable_length_strings_and_sequences() {
    let fixed: Datatype = StringType::fixed(6, StrPad::SpacePad, CharSet::Ascii).into();
    let var: Datatype = StringType::variable(StrPad::NullTerm, CharSet::Ascii).into();
    let short: Datatype = StringType::fixed(3, StrPad::NullTerm, CharSet::Ascii).into();
    let mut heap = VarLenHeap::new();
    let mut handles = vec![0u8; 2 * VLEN_STRING_MEMORY_SIZE];
    {
        let mut opts = ConversionOptions::new().with_heap(&mut heap);
        Converter::new(&fixed, &var)
            .unwrap()
            .convert(b"hi    hello!", &mut handles, 2, &mut opts)
            .unwrap();
    }
    assert_eq!(
        heap.string_of(&handles[..VLEN_STRING_MEMORY_SIZE]).unwrap(),
        b"hi"
    );
    assert_eq!(
        heap.string_of(&handles[VLEN_STRING_MEMORY_SIZE..]).unwrap(),
        b"hello!"
    );
    let mut back = [0u8; 6];
    let mut opts = ConversionOptions::new().with_heap(&mut heap);
    Converter::new(&var, &short)
        .unwrap()
        .convert(&handles, &mut back, 2, &mut opts)
        .unwrap();
    assert_eq!(&back, b"hi\0he\0");

    // Sequences of big-endian i16 to little-endian f64, with a null (empty) sequence.
    let src: Datatype =
        VarLenType::new(IntegerType::new(2, BE, Sign::TwosComplement).into()).into();
    let dst: Datatype = VarLenType::new(f64le()).into();
    let mut heap = VarLenHeap::new();
    let mut input = Vec::new();
    input.extend(heap.sequence_element(
        3,
        [1i16, 2, -3].iter().flat_map(|x| x.to_be_bytes()).collect(),
    ));
    input.extend([0u8; VLEN_MEMORY_SIZE]);
    let mut out = vec![0u8; 2 * VLEN_MEMORY_SIZE];
    {
        let mut opts = ConversionOptions::new().with_heap(&mut heap);
        Converter::new(&src, &dst)
            .unwrap()
            .convert(&input, &mut out, 2, &mut opts)
            .unwrap();
    }
    let (count, bytes) = heap.sequence_of(&out[..VLEN_MEMORY_SIZE]).unwrap();
    assert_eq!(count, 3);
    let vals: Vec<f64> = bytes
        .chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(vals, [1.0, 2.0, -3.0]);
    assert_eq!(
        heap.sequence_of(&out[VLEN_MEMORY_SIZE..]).unwrap(),
        (0, &[][..])
    );

    // Without a heap, variable-length data cannot be converted.
    let err = Converter::new(&src, &dst).unwrap().convert(
        &input,
        &mut out,
        2,
        &mut ConversionOptions::new(),
    );
    assert_eq!(err.unwrap_err().kind(), ErrorKind::InvalidArgument);
}

#[test]
fn buffers_too_small_are_errors() {
    let conv = Converter::new(&i32le(), &f64le()).unwrap();
    let mut out = [0u8; 8];
    let e = conv
        .convert(&[0; 4], &mut out, 2, &mut ConversionOptions::new())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BufferSize);
    let e = conv
        .convert(&[0; 8], &mut out, 2, &mut ConversionOptions::new())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BufferSize);
    assert_eq!(
        convert(&i32le(), &f64le(), &[0; 5]).unwrap_err().kind(),
        ErrorKind::BufferSize
    );
}

#[test]
fn byte_swaps_ignore_sign_and_precision_like_the_reference() {
    // Same size, opposite orders: a plain byte swap, as the reference library does it.
    let i32be: Datatype = IntegerType::new(4, BE, Sign::TwosComplement).into();
    let u32le: Datatype = IntegerType::new(4, LE, Sign::None).into();
    assert_eq!(
        convert(&i32be, &u32le, &[0xff, 0xff, 0xff, 0xfe]).unwrap(),
        [0xfe, 0xff, 0xff, 0xff]
    );
    // A different size clamps.
    let u16le: Datatype = IntegerType::new(2, LE, Sign::None).into();
    assert_eq!(
        convert(&i32be, &u16le, &[0xff, 0xff, 0xff, 0xfe]).unwrap(),
        [0, 0]
    );
}

#[test]
fn wide_integers_up_to_1024_bits() {
    // 128-byte integers convert bit by bit (the reference library stops at 64 bytes).
    let wide: Datatype = IntegerType::new(128, BE, Sign::TwosComplement).into();
    let mut v = vec![0xffu8; 128];
    v[127] = 0xfe; // -2
    assert_eq!(convert(&wide, &i32le(), &v).unwrap(), (-2i32).to_le_bytes());
    let back = convert(&i32le(), &wide, &(-2i32).to_le_bytes()).unwrap();
    assert_eq!(back, v);
    let f = convert(&wide, &f64le(), &v).unwrap();
    assert_eq!(f64::from_le_bytes(f.try_into().unwrap()), -2.0);
}

fn ldouble() -> Datatype {
    Datatype::Float(FloatType {
        atomic: Atomic {
            size: 16,
            order: LE,
            precision: 80,
            offset: 0,
            lsb_pad: Pad::Zero,
            msb_pad: Pad::Zero,
        },
        sign_pos: 79,
        exp_pos: 64,
        exp_size: 15,
        mant_pos: 0,
        mant_size: 64,
        exp_bias: 16383,
        norm: Norm::None,
        inpad: Pad::Zero,
    })
}

#[test]
fn native_long_double_matches_reference() {
    let ld = ldouble();
    let mut natives: Vec<Datatype> = vec![f32le(), f64le()];
    for size in [1, 2, 4, 8] {
        for sign in [Sign::TwosComplement, Sign::None] {
            natives.push(IntegerType::new(size, LE, sign).into());
        }
    }
    let special = [
        0.0,
        -0.0,
        1.0,
        -1.5,
        2.5,
        0.1,
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        f64::from(f32::MAX),
        3.4028235677973366e38,
        1e-40,
        127.0,
        128.0,
        -129.0,
        255.5,
        32768.0,
        -32769.0,
        65536.0,
        2147483648.0,
        -2147483649.0,
        4294967296.0,
        9223372036854775808.0,
        -9223372036854775808.0,
        18446744073709551616.0,
        1e30,
        -1e30,
    ];
    let mut rng = Rng(0x6006);
    let mut jobs = Vec::new();
    for t in &natives {
        let mut input: Vec<u8> = special.iter().flat_map(|&x| support::x87(x)).collect();
        input.extend(values(&ld, 120, &mut rng));
        jobs.extend(both(&ld, t, input, None));
        let back = if t.as_float().is_some() {
            support::floats(t, &special)
        } else {
            values(t, 60, &mut rng)
        };
        jobs.extend(both(t, &ld, back, None));
    }
    check_against_oracle(&jobs);
}

#[test]
fn bit_helpers() {
    let mut b = [0u8; 4];
    bits::set(&mut b, 3, 10, true);
    assert_eq!(b, [0xf8, 0x1f, 0, 0]);
    assert_eq!(bits::find(&b, 0, 32, bits::Dir::Lsb, true), Some(3));
    assert_eq!(bits::find(&b, 0, 32, bits::Dir::Msb, true), Some(12));
    assert_eq!(bits::find(&b, 3, 10, bits::Dir::Lsb, false), None);
    assert_eq!(bits::get_u64(&b, 3, 10), 0x3ff);
    let mut c = [0u8; 4];
    bits::copy(&mut c, 1, &b, 3, 10);
    assert_eq!(c, [0xfe, 0x07, 0, 0]);
    assert!(bits::inc(&mut c, 1, 10));
    assert_eq!(c, [0, 0, 0, 0]);
    assert!(!bits::inc(&mut c, 1, 10));
    assert_eq!(c, [0x02, 0, 0, 0]);
    assert!(bits::inc(&mut [0xffu8], 0, 8));
    assert!(bits::dec(&mut [0u8], 0, 8));
    let mut d = [0x01u8, 0x80];
    bits::shift(&mut d, 3, 0, 16);
    assert_eq!(d, [0x08, 0x00]);
    bits::shift(&mut d, -2, 0, 16);
    assert_eq!(d, [0x02, 0x00]);
    bits::neg(&mut d, 0, 12);
    assert_eq!(d, [0xfd, 0x0f]);
    let mut v = [1u8, 2, 3, 4, 5, 6, 7, 8];
    bits::to_le(&mut v, ByteOrder::Vax);
    assert_eq!(v, [7, 8, 5, 6, 3, 4, 1, 2]);
}

#[test]
fn general_float_path_keeps_the_reference_state_across_elements() {
    // After a denormalized value, the reference algorithm stops carrying rounding into the
    // exponent for the rest of the call: 2 - 2^-24 becomes 1.0 instead of 2.0.
    let input: Vec<u8> = [5e-324, 2.0 - 2f64.powi(-24)]
        .iter()
        .flat_map(|x| x.to_be_bytes())
        .collect();
    let out = convert(&f64be(), &f32le(), &input).unwrap();
    assert_eq!(out, [0, 0, 0, 0, 0, 0, 0x80, 0x3f]);
    let out = convert(&f64be(), &f32le(), &input[8..]).unwrap();
    assert_eq!(out, 2.0f32.to_le_bytes());
    // Ties round away from zero on this path, to even on the hardware path.
    let tie = 1.0 + 2f64.powi(-24);
    assert_eq!(
        convert(&f64be(), &f32le(), &tie.to_be_bytes()).unwrap(),
        0x3f80_0001u32.to_le_bytes()
    );
    assert_eq!(
        convert(&f64le(), &f32le(), &tie.to_le_bytes()).unwrap(),
        1.0f32.to_le_bytes()
    );
}

#[test]
fn hardware_float_to_int_follows_x86() {
    let conv = Converter::new(&f32le(), &i32le()).unwrap();
    let input: Vec<u8> = [f32::NAN, 2147483648.0, -0.5]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let mut out = [0u8; 12];
    conv.convert(&input, &mut out, 3, &mut ConversionOptions::new())
        .unwrap();
    // Without a handler, 2^31 is not caught by the range check and casts to the
    // integer indefinite, like NaN.
    assert_eq!(out, [0, 0, 0, 0x80, 0, 0, 0, 0x80, 0, 0, 0, 0]);
    let mut opts =
        ConversionOptions::new().with_handler(|_: &Exception<'_>, _: &mut [u8]| Action::Unhandled);
    conv.convert(&input, &mut out, 3, &mut opts).unwrap();
    assert_eq!(out, [0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0]);
    assert_eq!(opts.report.counts, [1, 0, 0, 2, 0, 0, 0]);
}

fn arbitrary_float(rng: &mut Rng) -> Datatype {
    let size = 1 + rng.below(20) as usize;
    let bits = 8 * size as u64;
    let precision = 1 + rng.below(bits) as usize;
    let offset = rng.below(bits - precision as u64 + 1) as usize;
    let norm = [Norm::Implied, Norm::None, Norm::MsbSet][rng.below(3) as usize];
    let order = [LE, BE, ByteOrder::Vax][rng.below(3) as usize];
    Datatype::Float(FloatType {
        atomic: Atomic {
            size,
            order,
            precision,
            offset,
            lsb_pad: Pad::Zero,
            msb_pad: Pad::One,
        },
        sign_pos: rng.below(bits + 1) as usize,
        exp_pos: rng.below(bits / 2) as usize,
        exp_size: 1 + rng.below(bits / 2).min(64) as usize,
        mant_pos: rng.below(bits / 2) as usize,
        mant_size: 1 + rng.below(bits / 2) as usize,
        exp_bias: if rng.bit() {
            rng.next()
        } else {
            rng.below(300)
        },
        norm,
        inpad: Pad::Zero,
    })
}

#[test]
fn arbitrary_layouts_never_panic() {
    let mut rng = Rng(0x7007);
    let mut converted = 0;
    for _ in 0..3000 {
        let pick = |r: &mut Rng| match r.below(4) {
            0 => arbitrary_float(r),
            1 => random_int(r),
            2 => random_float(r),
            _ => random_bitfield(r),
        };
        let (s, d) = (pick(&mut rng), pick(&mut rng));
        let Ok(conv) = Converter::new(&s, &d) else {
            assert!(!can_convert(&s, &d));
            continue;
        };
        let n = 8;
        let input: Vec<u8> = (0..n * s.size()).map(|_| rng.next() as u8).collect();
        let mut out = vec![0u8; n * d.size()];
        for cb in [false, true] {
            let mut opts = ConversionOptions::new();
            if cb {
                opts = opts.with_handler(|_: &Exception<'_>, _: &mut [u8]| Action::Unhandled);
            }
            // Errors are allowed; panics are not.
            let _ = conv.convert(&input, &mut out, n, &mut opts);
        }
        converted += 1;
    }
    assert!(converted > 1000, "only {converted} pairs had a path");
}

#[test]
fn variable_length_data_matches_reference() {
    let mut rng = Rng(0x8008);
    let vstr = |pad| -> Datatype { StringType::variable(pad, CharSet::Ascii).into() };
    let strings = vec![
        Some(b"hello".to_vec()),
        None,
        Some(Vec::new()),
        Some(b"a longer string, with spaces  ".to_vec()),
    ];
    let mut jobs = Vec::new();
    jobs.extend(both(
        &vstr(StrPad::NullTerm),
        &vstr(StrPad::NullPad),
        support::serialize(&strings, 1),
        None,
    ));
    // Sequences of numbers, including empty ones.
    let i16be: Datatype = IntegerType::new(2, BE, Sign::TwosComplement).into();
    let pairs = [
        (i16be.clone(), f64le()),
        (f64be(), i32le()),
        (f64le(), f16()),
        (i32le(), u8le()),
    ];
    for (sb, db) in pairs {
        let items: Vec<Option<Vec<u8>>> = (0..12)
            .map(|k| Some(values(&sb, k % 5, &mut rng)))
            .collect();
        let n = items.len();
        let s: Datatype = VarLenType::new(sb.clone()).into();
        let d: Datatype = VarLenType::new(db).into();
        let mut j = both(&s, &d, support::serialize(&items, sb.size()), None);
        for job in &mut j {
            job.n = n;
        }
        jobs.extend(j);
    }
    for j in &mut jobs[..2] {
        j.n = strings.len();
    }
    check_against_oracle(&jobs);
}

/// A compound of the given members, packed in a random order with random gaps.
fn random_compound(members: Vec<(String, Datatype)>, rng: &mut Rng) -> Datatype {
    let mut order: Vec<usize> = (0..members.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut off = 0;
    let mut placed = Vec::new();
    for &k in &order {
        off += rng.below(3) as usize;
        placed.push((members[k].0.clone(), off, members[k].1.clone()));
        off += members[k].1.size();
    }
    let size = off + rng.below(4) as usize;
    CompoundType::from_members(size.max(1), placed)
        .unwrap()
        .into()
}

#[test]
fn random_compounds_match_reference() {
    let mut rng = Rng(0x9009);
    let mut jobs = Vec::new();
    for _ in 0..40 {
        let k = 1 + rng.below(5) as usize;
        let mut sm = Vec::new();
        let mut dm = Vec::new();
        for m in 0..k {
            let name = format!("m{m}");
            let (a, b) = match rng.below(3) {
                0 => (random_int(&mut rng), random_int(&mut rng)),
                1 => (random_float(&mut rng), random_float(&mut rng)),
                _ => loop {
                    // Avoid the pairs where the reference library overruns a stack
                    // variable (see custom_int_float_layouts_match_reference).
                    let (i, f) = (random_int(&mut rng), random_float(&mut rng));
                    if i.atomic().unwrap().precision() <= f.as_float().unwrap().mant_size() + 65 {
                        break (i, f);
                    }
                },
            };
            // Some members only in the source, some only in the destination.
            match rng.below(5) {
                0 => sm.push((name, a)),
                1 => dm.push((name, b)),
                _ => {
                    sm.push((name.clone(), a));
                    dm.push((name, b));
                }
            }
        }
        if sm.is_empty() || dm.is_empty() {
            continue;
        }
        let s = random_compound(sm, &mut rng);
        let d = random_compound(dm, &mut rng);
        let n = 20;
        let input: Vec<u8> = (0..n * s.size()).map(|_| rng.next() as u8).collect();
        let bkg: Vec<u8> = (0..n * d.size()).map(|_| rng.next() as u8).collect();
        jobs.extend(both(&s, &d, input, Some(bkg)));
    }
    assert!(jobs.len() >= 40, "{} jobs", jobs.len());
    check_against_oracle(&jobs);
}

/// Long packed and strided buffers through the block-wise fast paths (`f64` to `f32`,
/// strided copies and swaps of compound members), with special values scattered across
/// block boundaries.
#[test]
fn fast_paths_match_reference_on_long_buffers() {
    let mut rng = Rng(0xb10c);
    let specials = [
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7ff0_0000_0000_0001), // signalling NaN
        f64::from_bits(0xfff7_ffff_ffff_ffff),
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e300,
        -1e300,
        f64::from(f32::MAX),
        -f64::from(f32::MAX),
        f64::from_bits(f64::from(f32::MAX).to_bits() + 1),
        -f64::from_bits(f64::from(f32::MAX).to_bits() + 1),
        1e-310,
        1e-40,
    ];
    let n = 1000;
    let mut xs = Vec::with_capacity(n);
    for i in 0..n {
        if i % 37 == 5 || (300..340).contains(&i) {
            xs.push(specials[i % specials.len()]);
        } else {
            let e = 1023 - 60 + rng.below(120);
            xs.push(f64::from_bits(
                (rng.next() & (1 << 63)) | e << 52 | (rng.next() & ((1 << 52) - 1)),
            ));
        }
    }
    let input: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut jobs = Vec::new();
    jobs.extend(both(&f64le(), &f32le(), input, None));
    let i16be: Datatype = IntegerType::new(2, BE, Sign::TwosComplement).into();
    let i32be: Datatype = IntegerType::new(4, BE, Sign::TwosComplement).into();
    let i64be: Datatype = IntegerType::new(8, BE, Sign::TwosComplement).into();
    let s3: Datatype = StringType::fixed(3, StrPad::NullTerm, CharSet::Ascii).into();
    let src = compound(
        40,
        vec![
            ("u", 0, u8le()),
            ("s", 1, s3.clone()),
            ("h", 4, i16be.clone()),
            ("w", 8, i32be.clone()),
            ("x", 12, i32le()),
            ("d", 16, f64le()),
            ("q", 24, i64be.clone()),
            ("f", 32, f64le()),
        ],
    );
    let dst = compound(
        36,
        vec![
            ("f", 0, f32le()),
            ("q", 4, IntegerType::new(8, LE, Sign::TwosComplement).into()),
            ("d", 12, f64le()),
            ("x", 20, i32le()),
            ("w", 24, i32le()),
            ("h", 28, i16be),
            ("s", 30, s3),
            ("u", 33, u8le()),
        ],
    );
    // Several blocks of the compound path.
    let count = 5000;
    let mut input: Vec<u8> = (0..count * 40).map(|_| rng.next() as u8).collect();
    for (i, e) in input.chunks_exact_mut(40).enumerate() {
        e[32..].copy_from_slice(&xs[(i * 7) % n].to_le_bytes());
    }
    let bkg: Vec<u8> = (0..count * 36).map(|_| rng.next() as u8).collect();
    // Block by block without a handler, element order with one: the same bytes and counts.
    let conv = Converter::new(&src, &dst).unwrap();
    let mut plain = bkg.clone();
    let mut opts = ConversionOptions::new();
    conv.convert(&input, &mut plain, count, &mut opts).unwrap();
    let mut seen = Vec::new();
    let mut with_handler = bkg.clone();
    let mut hopts = ConversionOptions::new().with_handler(|e, _| {
        seen.push(e.index);
        Action::Unhandled
    });
    conv.convert(&input, &mut with_handler, count, &mut hopts)
        .unwrap();
    assert_eq!(plain, with_handler);
    assert_eq!(opts.report, hopts.report);
    assert!(opts.report.total() > 100, "{:?}", opts.report);
    drop(hopts);
    assert!(
        seen.iter().any(|&i| i > 4000),
        "element indices are those of the whole buffer"
    );
    jobs.extend(both(&src, &dst, input, Some(bkg)));
    // Packed byte swaps, two 32-bit elements at a time, with an odd element at the end.
    for size in [2usize, 4, 8] {
        let be: Datatype = IntegerType::new(size, BE, Sign::TwosComplement).into();
        let le: Datatype = IntegerType::new(size, LE, Sign::None).into();
        let input: Vec<u8> = (0..1001 * size).map(|_| rng.next() as u8).collect();
        let out = convert(&be, &le, &input).unwrap();
        for (s, d) in input.chunks_exact(size).zip(out.chunks_exact(size)) {
            assert!(s.iter().rev().eq(d.iter()), "{size}-byte swap");
        }
        jobs.extend(both(&be, &le, input, None));
    }
    // Clamping: the loop that only notes clamping and the pass that counts.
    let i64le: Datatype = IntegerType::new(8, LE, Sign::TwosComplement).into();
    let i16le: Datatype = IntegerType::new(2, LE, Sign::TwosComplement).into();
    let u16le: Datatype = IntegerType::new(2, LE, Sign::None).into();
    let mut wide: Vec<i64> = vec![32767, 32768, -32768, -32769, 0, -1, 65535, 65536, i64::MIN];
    wide.extend((0..2000).map(|_| (rng.next() as i64) >> rng.below(64)));
    let input: Vec<u8> = wide.iter().flat_map(|v| v.to_le_bytes()).collect();
    for d in [&i16le, &u16le] {
        let conv = Converter::new(&i64le, d).unwrap();
        let mut out = vec![0u8; wide.len() * 2];
        let mut opts = ConversionOptions::new();
        conv.convert(&input, &mut out, wide.len(), &mut opts)
            .unwrap();
        let (lo_lim, hi_lim) = if d == &i16le {
            (-32768, 32767)
        } else {
            (0, 65535)
        };
        let hi = wide.iter().filter(|&&v| v > hi_lim).count() as u64;
        let lo = wide.iter().filter(|&&v| v < lo_lim).count() as u64;
        assert_eq!(opts.report.count(ExceptionKind::RangeHi), hi);
        assert_eq!(opts.report.count(ExceptionKind::RangeLow), lo);
        jobs.extend(both(&i64le, d, input.clone(), None));
    }
    check_against_oracle(&jobs);
}
