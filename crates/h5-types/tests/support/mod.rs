//! Shared by the DDL tests: a seeded generator of datatypes and a reader of the `ddl` oracle's
//! records.
#![allow(dead_code)]

use h5_types::compose::encode_int;
use h5_types::predefined::{self, *};
use h5_types::*;

/// SplitMix64: small, seeded, good enough to spread test cases.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// What the generator may produce.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Types whose text the reference library 1.10 both reads and prints back unchanged.
    Reference,
    /// Everything the model can hold.
    All,
}

const STD_INTS: [IntegerType; 16] = [
    STD_I8BE, STD_I8LE, STD_I16BE, STD_I16LE, STD_I32BE, STD_I32LE, STD_I64BE, STD_I64LE, STD_U8BE,
    STD_U8LE, STD_U16BE, STD_U16LE, STD_U32BE, STD_U32LE, STD_U64BE, STD_U64LE,
];

pub struct Gen {
    pub rng: Rng,
    pub scope: Scope,
    names: u64,
}

impl Gen {
    pub fn new(seed: u64, scope: Scope) -> Self {
        Gen {
            rng: Rng::new(seed),
            scope,
            names: 0,
        }
    }

    fn all(&self) -> bool {
        self.scope == Scope::All
    }

    /// A fresh member name: mostly plain, sometimes with spaces, punctuation and (in the
    /// full scope) quotes and backslashes.
    pub fn name(&mut self) -> String {
        self.names += 1;
        let n = self.names;
        let mut s = match self.rng.below(6) {
            0 => format!("m{n}"),
            1 => format!("field_{n}_x"),
            2 => format!("Name With Spaces {n}"),
            3 => format!("p.{n}/q-r+{{x}}[{n}]"),
            4 => format!("{}{n}", "long".repeat(self.rng.range(1, 8) as usize)),
            _ => format!("é{n}ü"),
        };
        if self.all() && self.rng.chance(15) {
            let extra = self.rng.pick(&["\"", "\\", "\\\"", "\\\\", "a\\b", "\"\""]);
            let at = if self.rng.chance(50) { 0 } else { s.len() };
            s.insert_str(at, extra);
        }
        s
    }

    pub fn integer(&mut self) -> IntegerType {
        if self.all() && self.rng.chance(20) {
            let size = self.rng.range(1, 16) as usize;
            let prec = self.rng.range(1, 8 * size as u64) as usize;
            let off = self.rng.range(0, (8 * size - prec) as u64) as usize;
            let d: Datatype = format!(
                "H5T_INTEGER {{ SIZE {size}; ORDER {}; PRECISION {prec}; OFFSET {off}; LSB_PAD {}; MSB_PAD {}; SIGN {}; }}",
                self.rng.pick(&["H5T_ORDER_LE", "H5T_ORDER_BE"]),
                self.rng.pick(&["H5T_PAD_ZERO", "H5T_PAD_ONE", "H5T_PAD_BACKGROUND"]),
                self.rng.pick(&["H5T_PAD_ZERO", "H5T_PAD_ONE", "H5T_PAD_BACKGROUND"]),
                self.rng.pick(&["H5T_SGN_2", "H5T_SGN_NONE"]),
            )
            .parse()
            .expect("generated integer");
            return *d.as_integer().expect("integer");
        }
        *self.rng.pick(&STD_INTS)
    }

    fn float(&mut self) -> FloatType {
        let named = [
            IEEE_F32BE,
            IEEE_F32LE,
            IEEE_F64BE,
            IEEE_F64LE,
            NATIVE_LDOUBLE,
        ];
        if !self.all() {
            return *self.rng.pick(&named);
        }
        match self.rng.below(4) {
            0 => *self.rng.pick(&named),
            1 => *self.rng.pick(&[
                IEEE_F16BE,
                IEEE_F16LE,
                FLOAT_BFLOAT16BE,
                FLOAT_BFLOAT16LE,
                FLOAT_F8E4M3,
                FLOAT_F8E5M2,
                VAX_F32,
                VAX_F64,
            ]),
            _ => {
                let size = self.rng.range(1, 16) as usize;
                let prec = self.rng.range(3, 8 * size as u64) as usize;
                let off = self.rng.range(0, (8 * size - prec) as u64) as usize;
                let esize = self.rng.range(1, (prec - 2).min(20) as u64) as usize;
                let msize = prec - 1 - esize;
                let d: Datatype = format!(
                    "H5T_FLOAT {{ SIZE {size}; ORDER {}; PRECISION {prec}; OFFSET {off}; \
                     SIGN_POS {}; EXP_POS {}; EXP_SIZE {esize}; MANT_POS {off}; MANT_SIZE {msize}; \
                     EXP_BIAS {}; NORM {}; INPAD {}; }}",
                    self.rng
                        .pick(&["H5T_ORDER_LE", "H5T_ORDER_BE", "H5T_ORDER_VAX"]),
                    off + prec - 1,
                    off + msize,
                    self.rng.range(0, 1 << 20),
                    self.rng
                        .pick(&["H5T_NORM_IMPLIED", "H5T_NORM_MSBSET", "H5T_NORM_NONE"]),
                    self.rng
                        .pick(&["H5T_PAD_ZERO", "H5T_PAD_ONE", "H5T_PAD_BACKGROUND"]),
                )
                .parse()
                .expect("generated float");
                *d.as_float().expect("float")
            }
        }
    }

    fn string(&mut self) -> StringType {
        let pad = *self
            .rng
            .pick(&[StrPad::NullTerm, StrPad::NullPad, StrPad::SpacePad]);
        let cset = *self.rng.pick(&[CharSet::Ascii, CharSet::Utf8]);
        if self.rng.chance(30) {
            StringType::variable(pad, cset)
        } else {
            StringType::fixed(self.rng.range(1, 40) as usize, pad, cset)
        }
    }

    fn opaque(&mut self) -> OpaqueType {
        let size = self.rng.range(1, 64) as usize;
        let tag = if self.all() && self.rng.chance(20) {
            self.rng
                .pick(&["", "with \"quotes\"", "back\\", "\\\\"])
                .to_string()
        } else {
            format!("tag {}", self.rng.next() % 1000)
        };
        OpaqueType::new(size, &tag).expect("opaque")
    }

    fn enumeration(&mut self) -> EnumType {
        let base = self.integer();
        let mut e = EnumType::new(base);
        let n = if self.all() {
            self.rng.range(0, 6)
        } else {
            self.rng.range(1, 6)
        };
        for _ in 0..n {
            let name = self.name();
            // The reference reads only non-negative `int`s and truncates them to the base.
            let max: i128 = match (base.is_signed(), base.precision()) {
                (true, p) if p <= 32 => (1i128 << (p - 1)) - 1,
                (false, p) if p < 31 => (1i128 << p) - 1,
                _ => i32::MAX.into(),
            };
            let v = if self.all() && self.rng.chance(50) {
                let p = base.precision().min(100) as u32;
                let span = 1i128 << p;
                let raw =
                    (self.rng.next() as i128 | ((self.rng.next() as i128) << 64)).rem_euclid(span);
                if base.is_signed() {
                    raw - span / 2
                } else {
                    raw
                }
            } else if self.rng.chance(30) {
                max
            } else {
                (self.rng.next() as i128).rem_euclid(max + 1)
            };
            if encode_int(&base, v).is_none() {
                continue;
            }
            // Duplicate names or values are refused; skip them.
            let _ = e.insert(&name, v);
        }
        e
    }

    /// A compound following the layout the reference's text gives (Reference scope), or any
    /// valid layout (All scope).
    fn compound(&mut self, depth: usize) -> CompoundType {
        let n = if self.all() {
            self.rng.range(0, 5)
        } else {
            self.rng.range(1, 5)
        } as usize;
        let members: Vec<(String, Datatype)> =
            (0..n).map(|_| (self.name(), self.ty(depth + 1))).collect();
        if self.all() && self.rng.chance(50) {
            // Any layout: place members in a shuffled order with random gaps, then pad.
            let mut order: Vec<usize> = (0..members.len()).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, self.rng.below(i + 1));
            }
            let mut offsets = vec![0usize; members.len()];
            let mut at = 0usize;
            for &i in &order {
                at += self.rng.range(0, 4) as usize;
                offsets[i] = at;
                at += members[i].1.size();
            }
            let size = (at + self.rng.range(0, 8) as usize).max(1);
            let mut c = CompoundType::new(size).expect("compound size");
            for (i, (name, t)) in members.into_iter().enumerate() {
                c.insert(&name, offsets[i], t).expect("member");
            }
            return c;
        }
        // The reference's rules: first member at o0; later ones at positive offsets at or
        // past the current end, or in a hole before it.
        let mut placed: Vec<(usize, usize)> = Vec::new();
        let mut list = Vec::new();
        let mut size = 0usize;
        for (k, (name, t)) in members.into_iter().enumerate() {
            let s = t.size();
            let off = if k == 0 {
                self.rng.range(0, 3) as usize
            } else {
                // Try a hole first.
                let hole = if self.rng.chance(30) {
                    let mut cands = Vec::new();
                    let mut sorted = placed.clone();
                    sorted.sort();
                    let mut prev = 0usize;
                    for &(o, e) in &sorted {
                        if o >= prev + s && prev > 0 {
                            cands.push(prev);
                        }
                        prev = prev.max(e);
                    }
                    cands.first().copied()
                } else {
                    None
                };
                hole.unwrap_or(size + self.rng.range(0, 6) as usize)
            };
            placed.push((off, off + s));
            size = size.max(off + s);
            list.push((name, off, t));
        }
        CompoundType::from_members(size.max(1), list).expect("compound")
    }

    pub fn ty(&mut self, depth: usize) -> Datatype {
        let leaf = depth >= 4 || self.rng.chance(35 + 10 * depth as u64);
        let choice = if leaf {
            self.rng.below(if self.all() { 10 } else { 5 })
        } else {
            10 + self.rng.below(if self.all() { 5 } else { 4 })
        };
        match choice {
            0 => self.integer().into(),
            1 => self.float().into(),
            2 => self.string().into(),
            3 => self.opaque().into(),
            4 => self.enumeration().into(),
            5 => {
                let mut b = *self.rng.pick(&[STD_B8LE, STD_B16BE, STD_B32LE, STD_B64BE]);
                if self.rng.chance(30) {
                    let text = format!(
                        "H5T_BITFIELD {{ SIZE 3; PRECISION {}; OFFSET 1; }}",
                        self.rng.range(1, 23)
                    );
                    b = match text.parse::<Datatype>().expect("bitfield") {
                        Datatype::Bitfield(b) => b,
                        _ => unreachable!(),
                    };
                }
                b.into()
            }
            6 => (*self.rng.pick(&[
                UNIX_D32BE,
                UNIX_D64LE,
                TimeType::new(2, ByteOrder::BigEndian, 9),
            ]))
            .into(),
            7 => (*self.rng.pick(&[
                STD_REF_OBJ,
                STD_REF_DSETREG,
                STD_REF,
                ReferenceType::new(ReferenceKind::Attribute),
                ReferenceType::with_size(ReferenceKind::Object, 4),
            ]))
            .into(),
            8 => ComplexType::new(self.float()).into(),
            9 => {
                predefined::all()
                    .nth(self.rng.below(predefined::NAMES.len()))
                    .expect("predefined")
                    .1
            }
            10 => self.compound(depth).into(),
            11 | 14 => {
                let rank = self.rng.range(1, 3) as usize;
                let dims: Vec<u64> = (0..rank).map(|_| self.rng.range(1, 4)).collect();
                ArrayType::new(self.ty(depth + 1), &dims)
                    .expect("array")
                    .into()
            }
            12 => VarLenType::new(self.ty(depth + 1)).into(),
            _ => self.compound(depth).into(),
        }
    }
}

/// One record of the `ddl` oracle.
#[derive(Debug, Default, Clone)]
pub struct Record {
    pub error: bool,
    pub size: Option<usize>,
    pub text: Option<String>,
    pub props: Option<String>,
    pub pack_size: Option<usize>,
    pub pack_text: Option<String>,
    pub native_size: Option<usize>,
    pub native_text: Option<String>,
}

/// Split the oracle's output into records.
pub fn records(out: &[u8]) -> Vec<Record> {
    let mut recs = Vec::new();
    let mut cur: Option<Record> = None;
    let mut i = 0;
    let line = |i: &mut usize| -> String {
        let start = *i;
        while *i < out.len() && out[*i] != b'\n' {
            *i += 1;
        }
        let s = String::from_utf8_lossy(&out[start..*i]).into_owned();
        *i += 1;
        s
    };
    while i < out.len() {
        let l = line(&mut i);
        let (key, val) = l.split_once(' ').unwrap_or((l.as_str(), ""));
        let num = || {
            val.trim()
                .parse::<i64>()
                .ok()
                .and_then(|v| usize::try_from(v).ok())
        };
        match key {
            "ITEM" => {
                if let Some(r) = cur.take() {
                    recs.push(r);
                }
                cur = Some(Record::default());
            }
            "END" => {
                if let Some(r) = cur.take() {
                    recs.push(r);
                }
            }
            "ERROR" | "CRASH" => cur.as_mut().expect("record").error = true,
            "SIZE" => cur.as_mut().expect("record").size = num(),
            "PACKSIZE" => cur.as_mut().expect("record").pack_size = num(),
            "NATIVESIZE" => cur.as_mut().expect("record").native_size = num(),
            "PROPS" => cur.as_mut().expect("record").props = Some(val.to_owned()),
            "TEXT" | "PACKTEXT" | "NATIVETEXT" => {
                let text = num().map(|n| {
                    let s = String::from_utf8_lossy(&out[i..i + n]).into_owned();
                    i += n + 1;
                    s
                });
                let r = cur.as_mut().expect("record");
                match key {
                    "TEXT" => r.text = text,
                    "PACKTEXT" => r.pack_text = text,
                    _ => r.native_text = text,
                }
            }
            other => panic!("unexpected oracle line {other:?}"),
        }
    }
    recs
}

/// Run the `ddl` oracle over texts (one record each), or `None` when it is unavailable.
pub fn oracle(texts: &[String]) -> Option<Vec<Record>> {
    let mut input = String::new();
    for t in texts {
        input.push_str(t);
        input.push_str("\n%%\n");
    }
    let out = h5_oracle::require(
        "ddl (libhdf5_hl)",
        h5_oracle::run_c("ddl", &[], input.as_bytes()),
    )?;
    let recs = records(&out);
    assert_eq!(recs.len(), texts.len(), "one record per text");
    Some(recs)
}

/// Run the `ddl` oracle over predefined type names.
pub fn oracle_names(names: &[&str]) -> Option<Vec<Record>> {
    let input: String = names.iter().map(|n| format!("{n}\n")).collect();
    let out = h5_oracle::require(
        "ddl (libhdf5_hl)",
        h5_oracle::run_c("ddl", &["names"], input.as_bytes()),
    )?;
    let recs = records(&out);
    assert_eq!(recs.len(), names.len(), "one record per name");
    Some(recs)
}
