//! Differential tests of the conversion engine against the reference library's
//! `H5Tconvert`, with and without a conversion callback that counts exceptions: the same
//! bytes, and (with the callback) the same exception counts.

#[path = "support/oracle_convert.rs"]
mod support;

use h5_types as h5t;

use h5_types::{ByteOrder, Datatype, FloatType, IntegerType, Sign};
use support::{compare, floats, oracle, values, Job, Rng};

/// The predefined numeric types: `STD_{I,U}{8,16,32,64}{LE,BE}` and `IEEE_F{32,64}{LE,BE}`
/// (the little-endian ones are the native types on x86-64).
fn predefined_numeric() -> Vec<Datatype> {
    let mut v = Vec::new();
    for order in [ByteOrder::LittleEndian, ByteOrder::BigEndian] {
        for size in [1, 2, 4, 8] {
            for sign in [Sign::TwosComplement, Sign::None] {
                v.push(IntegerType::new(size, order, sign).into());
            }
        }
        v.push(FloatType::ieee(4, order, 8, 23).into());
        v.push(FloatType::ieee(8, order, 11, 52).into());
    }
    v
}

/// Values every conversion should see: zeros, extremes, denormals, infinities, NaNs, the
/// integer range boundaries and rounding ties.
fn interesting_floats() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        0.99999,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7ff0_0000_0000_0001), // signalling NaN
        f64::from_bits(0x7ff4_0000_0000_1234),
        f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        f64::from_bits(0x000f_ffff_ffff_ffff), // largest denormal
        f64::MAX,
        f64::MIN,
        f64::from(f32::MAX),
        f64::from(f32::MIN_POSITIVE),
        1.401298464324817e-45, // smallest f32 denormal
        3.4028235677973366e38, // just above f32::MAX
        3.4028235e38 * 1.0000001,
        1.0 + 2f64.powi(-24), // f32 tie
        1.0 + 3.0 * 2f64.powi(-24),
        2.0 - 2f64.powi(-24),
        16777217.0,
        -16777217.0,
    ];
    for b in [7, 8, 15, 16, 31, 32, 53, 63, 64] {
        let p = 2f64.powi(b);
        v.extend([
            p,
            -p,
            p - 1.0,
            -p + 1.0,
            p + 1.0,
            p - 0.5,
            -p - 1.0,
            p * 1.5,
        ]);
    }
    v
}

fn interesting_ints(t: &Datatype) -> Vec<u8> {
    let it = t.as_integer().unwrap();
    let size = it.size();
    let be = it.order() == ByteOrder::BigEndian;
    let mut vals: Vec<i128> = vec![
        0, 1, -1, 2, 127, 128, 255, 256, -128, -129, 32767, 32768, 65535, 65536,
    ];
    for b in [15u32, 16, 23, 24, 25, 31, 32, 52, 53, 54, 63] {
        let p = 1i128 << b;
        vals.extend([p, p - 1, p + 1, -p, -p - 1, -p + 1, (p >> 1) * 3]);
    }
    vals.extend([
        i128::from(i64::MAX),
        i128::from(i64::MIN),
        i128::from(u64::MAX),
        0x0123_4567_89ab_cdef,
    ]);
    let mut out = Vec::new();
    for v in vals {
        let le = (v as u128).to_le_bytes();
        let mut e = le[..size].to_vec();
        if be {
            e.reverse();
        }
        out.extend(e);
    }
    out
}

#[test]
fn predefined_numeric_pairs_match_reference() {
    let types = predefined_numeric();
    let mut rng = Rng(0x5eed_0001);
    let mut jobs = Vec::new();
    for s in &types {
        for d in &types {
            let mut input = if s.as_float().is_some() {
                floats(s, &interesting_floats())
            } else {
                interesting_ints(s)
            };
            input.extend(values(s, 200, &mut rng));
            let n = input.len() / s.size();
            for cb in [true, false] {
                jobs.push(Job {
                    src: s.clone(),
                    dst: d.clone(),
                    n,
                    input: input.clone(),
                    cb,
                    bkg: None,
                });
            }
        }
    }
    let Some(expected) = oracle(&jobs) else {
        return;
    };
    let bad = compare(&jobs, &expected);
    assert!(
        bad.is_empty(),
        "{} of {} jobs differ:\n{}",
        bad.len(),
        jobs.len(),
        bad.join("\n")
    );
}
