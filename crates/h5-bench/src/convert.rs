//! The conversion group: `h5_types::convert` against the reference library's `H5Tconvert`.
//!
//! Both sides generate the same input from the same seed (splitmix64; the reference side is
//! `crates/h5-oracle/c/bench_convert.c`), convert it once to warm up, then a few times under
//! the clock (each time after copying the input into the buffer that is converted: both
//! sides convert in place, ours with `Converter::convert_in_place`), and hash the converted
//! bytes so the runner can check that they agree. Each
//! benchmark converts `N = MiB / max(source size, destination size)` elements, so its larger
//! buffer is the requested size.

use crate::runner::{Group, Measurement, Side};
use crate::Result;
use h5_types::convert::{ConversionOptions, Converter};
use h5_types::predefined::{
    NATIVE_DOUBLE, NATIVE_FLOAT, NATIVE_INT, NATIVE_LLONG, NATIVE_SHORT, NATIVE_UCHAR, STD_I32BE,
};
use h5_types::{CompoundType, Datatype};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// How a benchmark's input is drawn (the same in the C program).
#[derive(Clone, Copy, Debug)]
enum Fill {
    /// Random bytes, eight per draw.
    Bytes,
    /// Doubles of magnitude 2^-64 to 2^63, one in 256 near 2^200 (above the `f32` range).
    F64,
    /// 64-bit integers of every magnitude.
    I64,
}

/// One conversion benchmark.
#[derive(Clone, Copy, Debug)]
pub struct Bench {
    /// The name shared with the C program.
    pub name: &'static str,
    /// What it converts, for the table.
    pub what: &'static str,
    seed: u64,
    fill: Fill,
}

/// The benchmarks, in the order of the C program's list.
pub const BENCHES: [Bench; 5] = [
    Bench {
        name: "i32be_to_native",
        what: "i32 big-endian to native",
        seed: 1,
        fill: Fill::Bytes,
    },
    Bench {
        name: "f64_to_f32",
        what: "f64 to f32",
        seed: 2,
        fill: Fill::F64,
    },
    Bench {
        name: "u8_to_f64",
        what: "u8 to f64",
        seed: 3,
        fill: Fill::Bytes,
    },
    Bench {
        name: "i64_to_i16",
        what: "i64 to i16, clamping",
        seed: 4,
        fill: Fill::I64,
    },
    Bench {
        name: "compound5_to_subset2",
        what: "5-member compound to a 2-member subset",
        seed: 5,
        fill: Fill::Bytes,
    },
];

impl Bench {
    /// The source and destination types (the C program builds the same ones from the
    /// reference library's native types; the compounds have C struct layouts).
    pub fn types(&self) -> Result<(Datatype, Datatype)> {
        let t = |a: Datatype, b: Datatype| Ok((a, b));
        match self.name {
            "i32be_to_native" => t(STD_I32BE.into(), NATIVE_INT.into()),
            "f64_to_f32" => t(NATIVE_DOUBLE.into(), NATIVE_FLOAT.into()),
            "u8_to_f64" => t(NATIVE_UCHAR.into(), NATIVE_DOUBLE.into()),
            "i64_to_i16" => t(NATIVE_LLONG.into(), NATIVE_SHORT.into()),
            "compound5_to_subset2" => {
                // struct { int a; double b; short c; float d; long long e; }
                let src = CompoundType::from_members(
                    32,
                    [
                        ("a", 0, NATIVE_INT.into()),
                        ("b", 8, NATIVE_DOUBLE.into()),
                        ("c", 16, NATIVE_SHORT.into()),
                        ("d", 20, NATIVE_FLOAT.into()),
                        ("e", 24, NATIVE_LLONG.into()),
                    ],
                )
                .map_err(|e| e.to_string())?;
                // struct { double b; long long e; }
                let dst = CompoundType::from_members(
                    16,
                    [
                        ("b", 0, NATIVE_DOUBLE.into()),
                        ("e", 8, NATIVE_LLONG.into()),
                    ],
                )
                .map_err(|e| e.to_string())?;
                t(src.into(), dst.into())
            }
            other => Err(format!("unknown conversion benchmark {other:?}")),
        }
    }

    /// The input of `n` source elements of `size` bytes.
    pub fn input(&self, n: usize, size: usize) -> Vec<u8> {
        let mut rng = SplitMix64(self.seed);
        let mut v = vec![0u8; n * size];
        match self.fill {
            Fill::Bytes => {
                let mut chunks = v.chunks_exact_mut(8);
                for c in &mut chunks {
                    c.copy_from_slice(&rng.next().to_le_bytes());
                }
                let tail = chunks.into_remainder();
                let len = tail.len();
                if len > 0 {
                    tail.copy_from_slice(&rng.next().to_le_bytes()[..len]);
                }
            }
            Fill::F64 => {
                for c in v.chunks_exact_mut(8) {
                    let r = rng.next();
                    let e = if r & 0xff == 0 {
                        1023 + 200
                    } else {
                        1023 - 64 + ((r >> 52) & 127)
                    };
                    let bits = (r & (1 << 63)) | (e << 52) | (r & ((1 << 52) - 1));
                    c.copy_from_slice(&bits.to_le_bytes());
                }
            }
            Fill::I64 => {
                for c in v.chunks_exact_mut(8) {
                    let r = rng.next();
                    let v = (r as i64) >> (r >> 58);
                    c.copy_from_slice(&v.to_le_bytes());
                }
            }
        }
        v
    }
}

/// splitmix64, as in the C program.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// FNV-1a over little-endian 64-bit words, then the tail bytes (as in the C program).
pub fn hash(bytes: &[u8]) -> u64 {
    const PRIME: u64 = 0x100_0000_01b3;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        h = (h ^ u64::from_le_bytes(a)).wrapping_mul(PRIME);
    }
    for &b in words.remainder() {
        h = (h ^ u64::from(b)).wrapping_mul(PRIME);
    }
    h
}

/// The timed call: compile the path and convert `n` elements in place. Never inlined, so
/// that an instruction count (`valgrind --tool=callgrind
/// --toggle-collect='*convert_call*'`) can take exactly this call.
#[inline(never)]
fn convert_call(name: &str, src: &Datatype, dst: &Datatype, buf: &mut [u8], n: usize) -> Result {
    let conv = Converter::new(src, dst).map_err(|e| format!("{name}: {e}"))?;
    conv.convert_in_place(buf, n, &mut ConversionOptions::new())
        .map_err(|e| format!("{name}: {e}"))
}

/// Our side of one benchmark: convert the input once to warm up, then `reps` times under the
/// clock, printing a measurement each time.
fn run_one(b: &Bench, mib: usize, reps: usize, dump: Option<&Path>) -> Result {
    let (src, dst) = b.types()?;
    let (ss, ds) = (src.size(), dst.size());
    let bytes = mib << 20;
    let n = bytes / ss.max(ds);
    let input = b.input(n, ss);
    // As on the reference side, where H5Tconvert converts in one buffer of the larger
    // size: before each call the input is copied (untimed) into that buffer, which is
    // converted in place. (The compound's destination members all come from the source,
    // so the background, zero here and the previous result there, does not show.)
    let mut buf = vec![0u8; n * ss.max(ds)];
    let convert = |buf: &mut [u8]| convert_call(b.name, &src, &dst, buf, n);
    buf[..n * ss].copy_from_slice(&input);
    convert(&mut buf)?; // warm-up: faults the pages in
    for _ in 0..reps {
        buf[..n * ss].copy_from_slice(&input);
        let t0 = Instant::now();
        convert(&mut buf)?;
        let seconds = t0.elapsed().as_secs_f64();
        let m = Measurement {
            name: b.name.to_owned(),
            bytes: bytes as u64,
            seconds,
            hash: hash(&buf[..n * ds]),
            peak_kib: None,
        };
        println!("{}", m.line());
    }
    if let Some(path) = dump {
        std::fs::write(path, &buf[..n * ds]).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// The worker: our side of the benchmarks named by `only` (or all), `reps` measurements of
/// each, printed in the runner's line format.
pub fn worker(mib: usize, reps: usize, only: &str, dump: Option<&Path>) -> Result {
    let mut found = false;
    for b in BENCHES.iter().filter(|b| only == "all" || b.name == only) {
        found = true;
        run_one(b, mib, reps, dump)?;
    }
    if found {
        Ok(())
    } else {
        Err(format!("unknown conversion benchmark {only:?}"))
    }
}

/// The conversion group for the runner.
pub struct ConvertGroup;

impl Group for ConvertGroup {
    fn name(&self) -> &'static str {
        "convert"
    }

    fn benchmarks(&self) -> Vec<(&'static str, &'static str)> {
        BENCHES.iter().map(|b| (b.name, b.what)).collect()
    }

    fn reference_label(&self) -> &'static str {
        "the reference library's H5Tconvert"
    }

    fn command(
        &self,
        side: Side,
        our_exe: &Path,
        mib: usize,
        reps: usize,
        only: Option<&str>,
        dump: Option<&Path>,
    ) -> Result<Command> {
        let mut c = match side {
            Side::Ours => {
                let mut c = Command::new(our_exe);
                c.args(["worker", "convert"]);
                c
            }
            Side::Reference => Command::new(
                h5_oracle::c_program_with("bench_convert", &["-O2"]).map_err(|e| {
                    format!("building the reference side: {e} (`cargo xtask install-oracles`)")
                })?,
            ),
        };
        c.arg(mib.to_string())
            .arg(reps.to_string())
            .arg(only.unwrap_or("all"));
        if let Some(d) = dump {
            c.arg(d);
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_the_published_sequence() {
        // The first outputs of splitmix64 seeded with 1234567 (from its reference code).
        let mut r = SplitMix64(1_234_567);
        assert_eq!(r.next(), 6_457_827_717_110_365_317);
        assert_eq!(r.next(), 3_203_168_211_198_807_973);
    }

    #[test]
    fn inputs_cover_the_exceptional_cases() {
        let b = &BENCHES[3];
        let v = b.input(4096, 8);
        let vals: Vec<i64> = v
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert!(vals.iter().any(|&x| x > i64::from(i16::MAX)));
        assert!(vals.iter().any(|&x| x < i64::from(i16::MIN)));
        assert!(vals.iter().any(|&x| i16::try_from(x).is_ok()));
        let f = BENCHES[1].input(4096, 8);
        let big = f
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .filter(|x| x.abs() > f64::from(f32::MAX))
            .count();
        assert!(big > 0 && big < 4096 / 64);
    }

    #[test]
    fn types_have_the_c_sizes() {
        for b in &BENCHES {
            let (s, d) = b.types().unwrap();
            assert!(Converter::new(&s, &d).is_ok(), "{}", b.name);
        }
        let (s, d) = BENCHES[4].types().unwrap();
        assert_eq!((s.size(), d.size()), (32, 16));
    }
}
