//! Shared by the conversion oracle tests: describing types for the `convert` C oracle,
//! generating test values, and running batches of jobs through the oracle and the engine.
#![allow(dead_code)]

// The including module names the datatype crate `h5t` (the crate itself in unit tests).
use super::h5t::convert::VarLenHeap;
use super::h5t::convert::{Action, ConversionOptions, Converter};
use super::h5t::{
    ByteOrder, CharSet, Datatype, Norm, Pad, Sign, StrPad, StringSize, VLEN_STRING_MEMORY_SIZE,
};

/// The oracle's line description of a type (see `crates/h5-oracle/c/convert.c`).
pub fn describe(t: &Datatype) -> String {
    fn order(o: ByteOrder) -> &'static str {
        match o {
            ByteOrder::LittleEndian => "le",
            ByteOrder::BigEndian => "be",
            ByteOrder::Vax => "vax",
        }
    }
    fn pad(p: Pad) -> &'static str {
        if p == Pad::One {
            "1"
        } else {
            "0"
        }
    }
    match t {
        Datatype::Integer(i) => {
            let a = i.atomic();
            format!(
                "i {} {} {} {} {} {} {}",
                a.size(),
                order(a.order()),
                if i.sign() == Sign::TwosComplement {
                    "s"
                } else {
                    "u"
                },
                a.precision(),
                a.offset(),
                pad(a.lsb_pad()),
                pad(a.msb_pad())
            )
        }
        Datatype::Float(f) => {
            let a = f.atomic();
            format!(
                "f {} {} {} {} {} {} {} {} {} {} {} {} {} {}",
                a.size(),
                order(a.order()),
                a.precision(),
                a.offset(),
                pad(a.lsb_pad()),
                pad(a.msb_pad()),
                pad(f.inpad()),
                f.sign_pos(),
                f.exp_pos(),
                f.exp_size(),
                f.mant_pos(),
                f.mant_size(),
                f.exp_bias(),
                match f.norm() {
                    Norm::Implied => "i",
                    Norm::MsbSet => "m",
                    Norm::None => "n",
                }
            )
        }
        Datatype::Bitfield(b) => {
            let a = b.atomic();
            format!(
                "b {} {} {} {} {} {}",
                a.size(),
                order(a.order()),
                a.precision(),
                a.offset(),
                pad(a.lsb_pad()),
                pad(a.msb_pad())
            )
        }
        Datatype::String(s) => format!(
            "s {} {} {}",
            match s.string_size() {
                StringSize::Fixed(n) => n,
                StringSize::Variable => 0,
            },
            match s.pad() {
                StrPad::NullTerm => "t",
                StrPad::NullPad => "p",
                StrPad::SpacePad => "s",
            },
            if s.cset() == CharSet::Utf8 { "u" } else { "a" }
        ),
        Datatype::Opaque(o) => format!("o {} {}", o.size(), o.tag()),
        Datatype::Enum(e) => {
            let mut s = format!("e {} {}", describe(&Datatype::Integer(*e.base())), e.len());
            for m in e.members() {
                s.push_str(&format!(" {} {}", m.name(), hex(m.raw_value())));
            }
            s
        }
        Datatype::Compound(c) => {
            let mut s = format!("c {} {}", c.size(), c.len());
            for m in c.members() {
                s.push_str(&format!(
                    " {} {} {}",
                    m.name(),
                    m.offset(),
                    describe(m.datatype())
                ));
            }
            s
        }
        Datatype::Array(a) => {
            let dims: Vec<String> = a.dims().iter().map(|d| d.to_string()).collect();
            format!("a {} {} {}", a.rank(), dims.join(" "), describe(a.base()))
        }
        Datatype::VarLen(v) => format!("v {}", describe(v.base())),
        other => panic!("no oracle description for {other:?}"),
    }
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// A small deterministic generator (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub fn bit(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

fn set_bit(b: &mut [u8], pos: usize, v: bool) {
    if v {
        b[pos / 8] |= 1 << (pos % 8);
    } else {
        b[pos / 8] &= !(1 << (pos % 8));
    }
}

/// Write `len` bits of a pattern into `b` at `pos`: 0 zeros, 1 ones, 2 only the lowest, 3
/// only the highest, 4 all but the highest, 5 all but the lowest, otherwise random.
fn field(b: &mut [u8], pos: usize, len: usize, pattern: u64, rng: &mut Rng) {
    for i in 0..len {
        let v = match pattern {
            0 => false,
            1 => true,
            2 => i == 0,
            3 => i + 1 == len,
            4 => i + 1 != len,
            5 => i != 0,
            6 => i + 2 >= len,
            _ => rng.bit(),
        };
        set_bit(b, pos + i, v);
    }
}

fn to_order(mut le: Vec<u8>, order: ByteOrder) -> Vec<u8> {
    match order {
        ByteOrder::LittleEndian => le,
        ByteOrder::BigEndian => {
            le.reverse();
            le
        }
        ByteOrder::Vax => {
            let n = le.len();
            let mut i = 0;
            while i + 2 <= n {
                let j = n - 2 - i;
                le.swap(i, j);
                le.swap(i + 1, j + 1);
                i += 4;
            }
            le
        }
    }
}

/// `count` elements of an integer, float or bitfield type: edge patterns first, then random
/// ones; padding bits are random so conversions must ignore them.
pub fn values(t: &Datatype, count: usize, rng: &mut Rng) -> Vec<u8> {
    let size = t.size();
    let mut out = Vec::with_capacity(count * size);
    for k in 0..count {
        let mut le: Vec<u8> = (0..size).map(|_| rng.next() as u8).collect();
        match t {
            Datatype::Integer(_) | Datatype::Bitfield(_) => {
                let a = t.atomic().unwrap();
                let pattern = if k < 8 { k as u64 } else { 7 + rng.below(3) };
                field(&mut le, a.offset(), a.precision(), pattern, rng);
            }
            Datatype::Float(f) => {
                // Sign, exponent and mantissa patterns cycle through the edge cases.
                let (ep, mp) = if k < 64 {
                    ((k / 8) as u64, (k % 8) as u64)
                } else {
                    (7 + rng.below(2), 7)
                };
                field(&mut le, f.exp_pos(), f.exp_size(), ep, rng);
                field(&mut le, f.mant_pos(), f.mant_size(), mp, rng);
                set_bit(&mut le, f.sign_pos(), rng.bit());
            }
            other => panic!("no value generator for {other:?}"),
        }
        out.extend(to_order(le, t.order().unwrap()));
    }
    out
}

/// Encode f64 values into IEEE binary32 or binary64 of either order.
pub fn floats(t: &Datatype, xs: &[f64]) -> Vec<u8> {
    let f = t.as_float().unwrap();
    let be = f.order() == ByteOrder::BigEndian;
    let mut out = Vec::new();
    for &x in xs {
        if f.size() == 4 {
            let b = (x as f32).to_bits();
            out.extend(if be { b.to_be_bytes() } else { b.to_le_bytes() });
        } else {
            let b = x.to_bits();
            out.extend(if be { b.to_be_bytes() } else { b.to_le_bytes() });
        }
    }
    out
}

/// One conversion job.
pub struct Job {
    pub src: Datatype,
    pub dst: Datatype,
    pub n: usize,
    pub input: Vec<u8>,
    /// With the counting callback (true) or without (false).
    pub cb: bool,
    /// Background bytes, for compounds.
    pub bkg: Option<Vec<u8>>,
}

/// What the oracle said about a job.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Ok { bytes: Vec<u8>, counts: [u64; 7] },
    Err,
}

/// Run jobs through the oracle in one process. `None` when the oracle is unavailable.
pub fn oracle(jobs: &[Job]) -> Option<Vec<Outcome>> {
    let mut stdin = Vec::new();
    for j in jobs {
        stdin.extend(describe(&j.src).into_bytes());
        stdin.push(b'\n');
        stdin.extend(describe(&j.dst).into_bytes());
        stdin.push(b'\n');
        stdin.extend(
            format!(
                "{} {} {} {}\n",
                j.n,
                if j.cb { "cb" } else { "nocb" },
                u8::from(j.bkg.is_some()),
                j.input.len()
            )
            .into_bytes(),
        );
        stdin.extend(&j.input);
        if let Some(b) = &j.bkg {
            stdin.extend(b);
        }
    }
    let out = h5_oracle::require(
        "libhdf5 H5Tconvert",
        h5_oracle::run_c("convert", &[], &stdin),
    )?;
    let text = String::from_utf8(out).unwrap();
    let mut lines = text.lines();
    let mut res = Vec::new();
    for _ in jobs {
        let l = lines.next().expect("oracle output ended early");
        if let Some(h) = l.strip_prefix("ok ") {
            let c = lines.next().unwrap();
            let nums: Vec<u64> = c
                .split_whitespace()
                .skip(1)
                .map(|x| x.parse().unwrap())
                .collect();
            let mut counts = [0u64; 7];
            counts.copy_from_slice(&nums);
            res.push(Outcome::Ok {
                bytes: unhex(h),
                counts,
            });
        } else if l == "ok" {
            let c = lines.next().unwrap();
            let nums: Vec<u64> = c
                .split_whitespace()
                .skip(1)
                .map(|x| x.parse().unwrap())
                .collect();
            let mut counts = [0u64; 7];
            counts.copy_from_slice(&nums);
            res.push(Outcome::Ok {
                bytes: Vec::new(),
                counts,
            });
        } else {
            res.push(Outcome::Err);
        }
    }
    Some(res)
}

/// Whether a type is variable-length at the top level (serialized in jobs).
pub fn is_var(t: &Datatype) -> bool {
    match t {
        Datatype::VarLen(_) => true,
        Datatype::String(s) => s.is_variable(),
        _ => false,
    }
}

fn base_size(t: &Datatype) -> usize {
    match t {
        Datatype::VarLen(v) => v.base().size(),
        _ => 1,
    }
}

/// Serialized variable-length elements: a 32-bit little-endian count, then the elements;
/// `None` is a null string.
pub fn serialize(items: &[Option<Vec<u8>>], base: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for it in items {
        match it {
            None => out.extend(0xffff_ffffu32.to_le_bytes()),
            Some(b) => {
                out.extend(((b.len() / base) as u32).to_le_bytes());
                out.extend(b);
            }
        }
    }
    out
}

/// Build buffer elements in `heap` from the serialized form.
fn to_heap(t: &Datatype, ser: &[u8], n: usize, heap: &mut VarLenHeap) -> Vec<u8> {
    let esz = base_size(t);
    let mut pos = 0;
    let mut out = Vec::new();
    for _ in 0..n {
        let count = u32::from_le_bytes(ser[pos..pos + 4].try_into().unwrap());
        pos += 4;
        if matches!(t, Datatype::String(_)) {
            if count == u32::MAX {
                out.extend([0u8; VLEN_STRING_MEMORY_SIZE]);
            } else {
                let c = count as usize;
                out.extend(heap.string_element(&ser[pos..pos + c]));
                pos += c;
            }
        } else {
            let b = count as usize * esz;
            out.extend(heap.sequence_element(count as usize, ser[pos..pos + b].to_vec()));
            pos += b;
        }
    }
    out
}

/// Serialize buffer elements whose contents are in `heap`.
fn from_heap(t: &Datatype, buf: &[u8], n: usize, heap: &VarLenHeap) -> Vec<u8> {
    let esz = base_size(t);
    let size = t.size();
    let mut items = Vec::new();
    for i in 0..n {
        let e = &buf[i * size..(i + 1) * size];
        if matches!(t, Datatype::String(_)) {
            if e.iter().all(|&b| b == 0) {
                items.push(None);
            } else {
                items.push(Some(heap.string_of(e).unwrap().to_vec()));
            }
        } else {
            items.push(Some(heap.sequence_of(e).unwrap().1.to_vec()));
        }
    }
    serialize(&items, esz)
}

/// Run a job through the engine, with a counting handler in `cb` mode.
pub fn engine(j: &Job) -> Outcome {
    let Ok(conv) = Converter::new(&j.src, &j.dst) else {
        return Outcome::Err;
    };
    let mut heap = VarLenHeap::new();
    let input = if is_var(&j.src) {
        to_heap(&j.src, &j.input, j.n, &mut heap)
    } else {
        j.input.clone()
    };
    let mut out = j
        .bkg
        .clone()
        .unwrap_or_else(|| vec![0u8; j.n * j.dst.size()]);
    let (result, counts) = {
        let mut opts = ConversionOptions::new().with_heap(&mut heap);
        if j.cb {
            opts = opts.with_handler(|_, _| Action::Unhandled);
        }
        let r = conv.convert(&input, &mut out, j.n, &mut opts);
        (r, opts.report.counts)
    };
    match result {
        Ok(()) if is_var(&j.dst) => Outcome::Ok {
            bytes: from_heap(&j.dst, &out, j.n, &heap),
            counts,
        },
        Ok(()) => Outcome::Ok { bytes: out, counts },
        Err(_) => Outcome::Err,
    }
}

/// Compare engine and oracle on every job; returns a list of mismatch descriptions.
pub fn compare(jobs: &[Job], expected: &[Outcome]) -> Vec<String> {
    let mut bad = Vec::new();
    for (j, want) in jobs.iter().zip(expected) {
        let got = engine(j);
        let same = match (&got, want) {
            (
                Outcome::Ok {
                    bytes: a,
                    counts: ca,
                },
                Outcome::Ok {
                    bytes: b,
                    counts: cb,
                },
            ) => {
                let (ds, sig) = (j.dst.size(), significant(&j.dst));
                let eq = if is_var(&j.dst) {
                    a == b
                } else {
                    (0..j.n).all(|i| a[i * ds..i * ds + sig] == b[i * ds..i * ds + sig])
                };
                eq && (!j.cb || ca == cb)
            }
            (Outcome::Err, Outcome::Err) => true,
            _ => false,
        };
        if !same {
            let mut msg = format!(
                "{} -> {} ({}):",
                describe(&j.src),
                describe(&j.dst),
                if j.cb { "cb" } else { "nocb" }
            );
            match (&got, want) {
                (
                    Outcome::Ok {
                        bytes: a,
                        counts: ca,
                    },
                    Outcome::Ok {
                        bytes: b,
                        counts: cb,
                    },
                ) => {
                    let (ss, ds) = (j.src.size(), j.dst.size());
                    let sig = significant(&j.dst);
                    if is_var(&j.src) || is_var(&j.dst) {
                        msg.push_str(&format!("\n  got {}\n  want {}", hex(a), hex(b)));
                    }
                    for i in (0..j.n).filter(|_| !is_var(&j.src) && !is_var(&j.dst)) {
                        let (x, y) = (&a[i * ds..i * ds + sig], &b[i * ds..i * ds + sig]);
                        if x != y {
                            msg.push_str(&format!(
                                "\n  element {i}: src {} got {} want {}",
                                hex(&j.input[i * ss..(i + 1) * ss]),
                                hex(x),
                                hex(y)
                            ));
                        }
                    }
                    if j.cb && ca != cb {
                        msg.push_str(&format!("\n  counts got {ca:?} want {cb:?}"));
                    }
                }
                (g, w) => msg.push_str(&format!(" got {:?} want {:?}", short(g), short(w))),
            }
            bad.push(msg);
        }
    }
    bad
}

fn short(o: &Outcome) -> &'static str {
    match o {
        Outcome::Ok { .. } => "ok",
        Outcome::Err => "error",
    }
}

/// The bytes of a destination element the reference library defines: all of them, except
/// for the x87 `long double`, whose hardware store leaves the six bytes above its 80 bits
/// untouched.
pub fn significant(t: &Datatype) -> usize {
    match t {
        Datatype::Float(f) if f.size() == 16 && f.precision() == 80 && f.offset() == 0 => 10,
        _ => t.size(),
    }
}

/// The x87 80-bit extended encoding (in 16 little-endian bytes) of an `f64`, exactly.
pub fn x87(x: f64) -> [u8; 16] {
    let b = x.to_bits();
    let sign = (b >> 63) as u16;
    let e = ((b >> 52) & 0x7ff) as i32;
    let m = b & ((1 << 52) - 1);
    let (exp, mant): (u16, u64) = if e == 0x7ff {
        (
            0x7fff,
            if m == 0 {
                1 << 63
            } else {
                (1 << 63) | (m << 11)
            },
        )
    } else if e == 0 {
        if m == 0 {
            (0, 0)
        } else {
            // value = m * 2^-1074; normalize the mantissa to bit 63.
            let lz = m.leading_zeros() as i32;
            ((-1074 + 63 - lz + 16383) as u16, m << lz)
        }
    } else {
        ((e - 1023 + 16383) as u16, (1 << 63) | (m << 11))
    };
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&mant.to_le_bytes());
    out[8..10].copy_from_slice(&((sign << 15) | exp).to_le_bytes());
    out
}
