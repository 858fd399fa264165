//! `h5 convert` against the reference library's `H5Tconvert` (with a callback that counts
//! exceptions and leaves the default action): the same bytes and the same exception count for
//! pairs of predefined numeric types on buffers with extremes, zeros, infinities, NaN and
//! random values.

use std::io::Write;
use std::process::{Command, Stdio};

const TYPES: &[&str] = &[
    "STD_I8LE",
    "STD_U8BE",
    "STD_I16BE",
    "STD_U16LE",
    "STD_I32LE",
    "STD_U32BE",
    "STD_I64BE",
    "STD_U64LE",
    "IEEE_F32LE",
    "IEEE_F32BE",
    "IEEE_F64LE",
    "IEEE_F64BE",
];

fn size_of(name: &str) -> usize {
    let bits: usize = name
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .trim_end_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .expect("a size in the name");
    bits / 8
}

/// Source bytes: every byte pattern family that exercises the exceptions, then pseudo-random.
fn input(name: &str, n: usize) -> Vec<u8> {
    let size = size_of(name);
    let mut out = Vec::with_capacity(n * size);
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let specials: Vec<Vec<u8>> = if name.starts_with("IEEE") {
        let le: Vec<Vec<u8>> = if size == 4 {
            [
                0.0f32,
                -0.0,
                1.5,
                -2.5,
                1e30,
                -1e30,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                1e-40,
                127.4,
                255.6,
            ]
            .iter()
            .map(|v| v.to_le_bytes().to_vec())
            .collect()
        } else {
            [
                0.0f64,
                -0.0,
                1.5,
                -2.5,
                1e300,
                -1e300,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                1e-310,
                127.4,
                3e9,
            ]
            .iter()
            .map(|v| v.to_le_bytes().to_vec())
            .collect()
        };
        le.into_iter()
            .map(|mut b| {
                if name.ends_with("BE") {
                    b.reverse();
                }
                b
            })
            .collect()
    } else {
        vec![
            vec![0u8; size],
            vec![0xff; size],
            {
                let mut v = vec![0u8; size];
                v[0] = 0x80;
                v
            },
            {
                let mut v = vec![0xffu8; size];
                v[0] = 0x7f;
                v
            },
        ]
    };
    for s in &specials {
        out.extend_from_slice(s);
    }
    while out.len() < n * size {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.push(x as u8);
    }
    out.truncate(n * size);
    out
}

fn h5_convert(src: &str, dst: &str, n: usize, data: &[u8]) -> (Vec<u8>, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_h5"))
        .args([
            "convert",
            &format!("H5T_{src}"),
            &format!("H5T_{dst}"),
            &n.to_string(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run h5");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(data)
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "h5 convert {src} {dst}: {err}");
    let k = err
        .lines()
        .find_map(|l| l.strip_prefix("exceptions "))
        .and_then(|k| k.trim().parse().ok())
        .unwrap_or_else(|| panic!("no exception count in {err:?}"));
    (out.stdout, k)
}

#[test]
fn matches_h5tconvert_on_predefined_pairs() {
    let n = 64;
    let mut jobs = Vec::new();
    let mut cases = Vec::new();
    for src in TYPES {
        for dst in TYPES {
            let data = input(src, n);
            jobs.extend_from_slice(format!("n {src}\nn {dst}\n{n} cb 0\n").as_bytes());
            jobs.extend_from_slice(&data);
            cases.push((*src, *dst, data));
        }
    }
    let Some(out) = h5_oracle::require("convert (C)", h5_oracle::run_c("convert", &[], &jobs))
    else {
        return;
    };
    let text = String::from_utf8(out).expect("oracle output is text");
    let mut lines = text.lines();
    for (src, dst, data) in &cases {
        let ok = lines.next().expect("an oracle line");
        let hex = ok
            .strip_prefix("ok ")
            .unwrap_or_else(|| panic!("{src}->{dst}: {ok}"));
        let counts = lines.next().expect("a counts line");
        let total: u64 = counts
            .strip_prefix("counts ")
            .expect("counts")
            .split_whitespace()
            .map(|c| c.parse::<u64>().expect("a count"))
            .sum();
        let expected: Vec<u8> = (0..hex.len() / 2)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("hex"))
            .collect();
        let (got, k) = h5_convert(src, dst, n, data);
        assert_eq!(got, expected, "{src} -> {dst}: bytes differ");
        assert_eq!(k, total, "{src} -> {dst}: exception counts differ");
    }
}
