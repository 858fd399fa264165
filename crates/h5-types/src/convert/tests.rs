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
    // Arrays on their own.
    let arr_in = values(&i16be, 6 * 30, &mut rng);
    jobs.extend(both(&arr_src, &arr_dst, arr_in, None));
    // Arrays of different shapes: no path.
    let other: Datatype = ArrayType::new(f64le(), &[3, 2]).unwrap().into();
    jobs.extend(both(&arr_src, &other, vec![0; 12], None));
    check_against_oracle_errors(&jobs, 2);
}
