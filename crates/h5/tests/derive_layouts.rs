//! `#[derive(H5Type)]` against the C compiler and the reference library.
//!
//! `crates/h5-oracle/c/derive_layouts.c` declares C structs of the same shapes as the Rust
//! types below, builds their datatypes with `H5Tcreate` + `H5Tinsert(.., HOFFSET(..), ..)`,
//! and prints for each a structural dump (class, size, member names and offsets, array dims,
//! enum names and values, string size/pad/cset, float fields), the same of its `H5Tpack`
//! variant, and the `H5LTdtype_to_text` text of both. This test prints the derived
//! `h5_type()` and `h5_type_packed()` in the same grammar and requires equality, so offsets
//! and sizes are the C compiler's, byte for byte.
//! The derived types' `Display` (DDL text) must also equal `H5LTdtype_to_text` of the C-built
//! types, byte for byte, for the type and its packed variant.
#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::fmt::Write;

use h5::types::ddl::RefVersion;
use h5::types::h5type::{
    FixedAscii, FixedUnicode, NullPad, ObjectRef, RegionRef, SpacePad, VarLenArray, VarLenAscii,
    VarLenUnicode,
};
use h5::types::{ByteOrder, CharSet, Datatype, Norm, ReferenceKind, Sign, StrPad, StringSize};
use h5::H5Type;

// ---- the Rust mirrors of the C structs ----

#[derive(H5Type, Clone, Copy)]
#[repr(C)]
struct S1 {
    a: i32,
    b: i8,
    c: f64,
}

#[derive(H5Type)]
#[repr(C)]
struct Nested {
    first: S1,
    tag: u16,
    pair: [S1; 2],
}

#[derive(H5Type)]
#[repr(C)]
struct Arrays {
    m: [[f32; 3]; 2],
    bytes: [u8; 5],
    z: i64,
}

#[derive(H5Type, Clone, Copy)]
#[repr(C, packed)]
struct Packed {
    a: u8,
    b: u32,
    c: u16,
    d: f64,
}

#[derive(H5Type, Clone, Copy)]
#[repr(C, packed(2))]
struct Packed2 {
    a: i8,
    b: i32,
    c: i8,
    d: f64,
}

#[derive(H5Type)]
#[repr(C, align(32))]
struct Aligned {
    a: i32,
    b: u8,
}

#[derive(H5Type)]
#[repr(C)]
struct HoldsAligned {
    x: i8,
    inner: Aligned,
    y: i16,
}

#[derive(H5Type, Clone, Copy, Debug, PartialEq)]
#[repr(u8)]
enum Color {
    Red,
    Green = 5,
    Blue,
}

#[derive(H5Type, Clone, Copy, Debug, PartialEq)]
#[repr(i32)]
enum Level {
    Low = -1,
    #[h5(name = "MID")]
    Mid,
    High = 10,
}

#[derive(H5Type, Debug)]
#[repr(C)]
struct Enums {
    color: Color,
    level: Level,
    flag: bool,
    colors: [Color; 3],
}

#[derive(H5Type)]
#[repr(C)]
struct Strings {
    name: FixedAscii<8>,
    code: FixedUnicode<6, SpacePad>,
    label: VarLenUnicode,
    samples: VarLenArray<i32>,
    ascii: VarLenAscii,
    tag: FixedAscii<3, NullPad>,
}

#[derive(H5Type)]
#[repr(C)]
struct Wide(i128, u128, u8);

#[derive(H5Type)]
#[repr(C)]
struct Refs {
    obj: ObjectRef,
    region: RegionRef,
    x: i32,
}

#[derive(H5Type)]
#[repr(C)]
struct Generic<T> {
    x: T,
    y: [T; 2],
}

#[derive(H5Type)]
#[repr(C)]
struct Subset {
    #[h5(name = "alpha")]
    a: f32,
    #[h5(skip)]
    _scratch: u64,
    b: u8,
}

#[derive(H5Type, Clone, Copy)]
#[repr(transparent)]
struct Meters(f64);

#[derive(H5Type)]
#[repr(C)]
struct Track {
    start: Meters,
    path: [Meters; 3],
}

#[derive(H5Type)]
#[repr(C)]
struct Inner {
    id: u32,
    tags: VarLenArray<VarLenUnicode>,
}

#[derive(H5Type)]
#[repr(C)]
struct Outer {
    items: VarLenArray<Inner>,
    name: VarLenUnicode,
}

/// The derived types, by the C program's case names.
fn derived() -> Vec<(&'static str, Datatype, Datatype)> {
    fn t<T: H5Type>(name: &'static str) -> (&'static str, Datatype, Datatype) {
        let dt = T::h5_type();
        assert_eq!(dt.size(), std::mem::size_of::<T>(), "{name}: size contract");
        (name, dt, T::h5_type_packed())
    }
    vec![
        t::<S1>("s1"),
        t::<Nested>("nested"),
        t::<Arrays>("arrays"),
        t::<Packed>("packed"),
        t::<Packed2>("packed2"),
        t::<Aligned>("aligned"),
        t::<HoldsAligned>("holds_aligned"),
        t::<Color>("color"),
        t::<bool>("bool"),
        t::<Enums>("enums"),
        t::<Strings>("strings"),
        t::<Wide>("wide"),
        t::<Refs>("refs"),
        t::<Generic<u16>>("generic_u16"),
        t::<Subset>("subset"),
        t::<Track>("transparent"),
        t::<Outer>("nested_vlen"),
    ]
}

// ---- the structural dump, in derive_layouts.c's grammar ----

fn order(o: ByteOrder) -> &'static str {
    match o {
        ByteOrder::BigEndian => "be",
        _ => "le",
    }
}

fn dump(t: &Datatype, out: &mut String) {
    match t {
        Datatype::Integer(i) => {
            let sign = match i.sign() {
                Sign::TwosComplement => "2",
                Sign::None => "none",
            };
            let _ = write!(
                out,
                "int(size={},order={},sign={sign},prec={},off={})",
                i.size(),
                order(i.order()),
                i.precision(),
                i.offset()
            );
        }
        Datatype::Float(f) => {
            let norm = match f.norm() {
                Norm::Implied => "implied",
                Norm::MsbSet => "msbset",
                Norm::None => "none",
            };
            let _ = write!(
                out,
                "float(size={},order={},prec={},off={},spos={},epos={},esize={},mpos={},\
                 msize={},ebias={},norm={norm})",
                f.size(),
                order(f.order()),
                f.precision(),
                f.offset(),
                f.sign_pos(),
                f.exp_pos(),
                f.exp_size(),
                f.mant_pos(),
                f.mant_size(),
                f.exp_bias()
            );
        }
        Datatype::String(s) => {
            match s.string_size() {
                StringSize::Variable => out.push_str("string(size=var,"),
                StringSize::Fixed(n) => {
                    let _ = write!(out, "string(size={n},");
                }
            }
            let pad = match s.pad() {
                StrPad::NullTerm => "nullterm",
                StrPad::NullPad => "nullpad",
                StrPad::SpacePad => "spacepad",
            };
            let cset = match s.cset() {
                CharSet::Ascii => "ascii",
                CharSet::Utf8 => "utf8",
            };
            let _ = write!(out, "pad={pad},cset={cset})");
        }
        Datatype::Enum(e) => {
            out.push_str("enum(");
            dump(&Datatype::Integer(*e.base()), out);
            out.push_str("){");
            for (i, m) in e.members().iter().enumerate() {
                let v = m.value(e.base()).expect("enum value fits i128");
                let _ = write!(out, "{}{}={v}", if i > 0 { "," } else { "" }, m.name());
            }
            out.push('}');
        }
        Datatype::Array(a) => {
            let dims: Vec<String> = a.dims().iter().map(u64::to_string).collect();
            let _ = write!(out, "array([{}]){{", dims.join(","));
            dump(a.base(), out);
            out.push('}');
        }
        Datatype::VarLen(v) => {
            out.push_str("vlen{");
            dump(v.base(), out);
            out.push('}');
        }
        Datatype::Reference(r) => {
            let kind = match r.kind() {
                ReferenceKind::Object => "obj",
                _ => "dsetreg",
            };
            let _ = write!(out, "ref({kind},size={})", r.size());
        }
        Datatype::Compound(c) => {
            let _ = write!(out, "compound(size={}){{", c.size());
            for (i, m) in c.members().iter().enumerate() {
                let _ = write!(
                    out,
                    "{}\"{}\"@{}:",
                    if i > 0 { ";" } else { "" },
                    m.name(),
                    m.offset()
                );
                dump(m.datatype(), out);
            }
            out.push('}');
        }
        other => {
            let _ = write!(out, "unsupported(class={:?})", other.class());
        }
    }
}

fn dumped(t: &Datatype) -> String {
    let mut s = String::new();
    dump(t, &mut s);
    s
}

/// One case as the C program printed it.
#[derive(Default, Debug)]
struct CCase {
    dump: String,
    packed: String,
    text: String,
    packed_text: String,
}

fn parse_oracle(out: &str) -> BTreeMap<String, CCase> {
    let mut cases = BTreeMap::new();
    let mut current: Option<(String, CCase)> = None;
    for line in out.lines() {
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "case" => {
                if let Some((n, c)) = current.take() {
                    cases.insert(n, c);
                }
                current = Some((rest.to_owned(), CCase::default()));
            }
            _ => {
                let (_, c) = current.as_mut().expect("a case line comes first");
                let slot = match key {
                    "dump" => &mut c.dump,
                    "packed" => &mut c.packed,
                    "text" => &mut c.text,
                    "packed_text" => &mut c.packed_text,
                    other => panic!("unexpected oracle line {other:?}"),
                };
                *slot = rest.to_owned();
            }
        }
    }
    if let Some((n, c)) = current {
        cases.insert(n, c);
    }
    cases
}

fn compare_case(name: &str, rust: &Datatype, rust_packed: &Datatype, c: &CCase) -> Vec<String> {
    let mut failures = Vec::new();
    let got = dumped(rust);
    if got != c.dump {
        failures.push(format!(
            "{name}: h5_type()\n  rust: {got}\n  C:    {}",
            c.dump
        ));
    }
    let got = dumped(rust_packed);
    if got != c.packed {
        failures.push(format!(
            "{name}: h5_type_packed()\n  rust: {got}\n  C:    {}",
            c.packed
        ));
    }
    for (what, t, theirs) in [
        ("h5_type()", rust, unescape(&c.text)),
        ("h5_type_packed()", rust_packed, unescape(&c.packed_text)),
    ] {
        let ours = t.to_string();
        // Where the reference prints an unparseable "undefined integer" (i128/u128), `Display`
        // prints the braced form instead; the reference's exact text is `to_reference_text`.
        let quirk = theirs.contains("undefined integer")
            && t.to_reference_text(RefVersion::V1_10).as_deref() == Some(theirs.as_str());
        if ours != theirs && !quirk {
            failures.push(format!(
                "{name}: {what} text\n  rust:\n{ours}\n  H5LTdtype_to_text:\n{theirs}"
            ));
        }
    }
    failures
}

/// Undo the oracle's one-line escaping (`\n` for a newline, `\\` for a backslash).
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn derived_layouts_match_c_hoffset_types() {
    let Some(out) = h5_oracle::require(
        "derive_layouts (C)",
        h5_oracle::run_c("derive_layouts", &[], b""),
    ) else {
        return;
    };
    let out = String::from_utf8(out).expect("oracle output is UTF-8");
    let cases = parse_oracle(&out);
    let derived = derived();
    let mut failures = Vec::new();
    for (name, t, p) in &derived {
        match cases.get(*name) {
            Some(c) => failures.extend(compare_case(name, t, p, c)),
            None => failures.push(format!("{name}: the C oracle has no such case")),
        }
    }
    for name in cases.keys() {
        if !derived.iter().any(|(n, _, _)| n == name) {
            failures.push(format!("{name}: no derived Rust type for this C case"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(cases.len(), 17, "every shape was compared");
}

/// The derived types' values survive the memory-image codec, nested variable-length data
/// included.
#[test]
fn derived_values_round_trip() {
    use h5::types::h5type::{decode_slice, encode_slice};
    let outer = Outer {
        items: VarLenArray::from(vec![
            Inner {
                id: 7,
                tags: ["a", "βγ"].iter().map(|s| s.parse().unwrap()).collect(),
            },
            Inner {
                id: 8,
                tags: VarLenArray::new(),
            },
        ]),
        name: "outer".parse().unwrap(),
    };
    const { assert!(!Outer::IS_POD) };
    const { assert!(Nested::IS_POD) };
    let (bytes, heap) = encode_slice(std::slice::from_ref(&outer)).unwrap();
    assert_eq!(bytes.len(), std::mem::size_of::<Outer>());
    let back: Vec<Outer> = decode_slice(&bytes, &heap).unwrap();
    assert_eq!(back.len(), 1);
    let b = &back[0];
    assert_eq!(b.name.as_str(), "outer");
    assert_eq!(b.items.len(), 2);
    assert_eq!(b.items[0].id, 7);
    assert_eq!(b.items[0].tags[1].as_str(), "βγ");
    assert!(b.items[1].tags.is_empty());

    let e = Enums {
        color: Color::Green,
        level: Level::Low,
        flag: true,
        colors: [Color::Blue, Color::Red, Color::Green],
    };
    let (bytes, heap) = encode_slice(std::slice::from_ref(&e)).unwrap();
    assert!(heap.is_empty());
    assert_eq!(bytes[0], 5);
    assert_eq!(&bytes[4..8], &(-1i32).to_ne_bytes());
    let back: Vec<Enums> = decode_slice(&bytes, &heap).unwrap();
    assert_eq!(back[0].colors, e.colors);
    assert_eq!(back[0].level, Level::Low);

    // A value no variant has is an error, not a panic.
    let mut bad = bytes.clone();
    bad[0] = 3;
    let err = decode_slice::<Enums>(&bad, &heap).unwrap_err();
    assert!(
        err.to_string().contains("not a variant of enum Color"),
        "{err}"
    );

    let p = Packed {
        a: 1,
        b: 0x0203_0405,
        c: 0x0607,
        d: 2.5,
    };
    let (bytes, heap) = encode_slice(&[p]).unwrap();
    assert_eq!(&bytes[1..5], &0x0203_0405u32.to_ne_bytes());
    let back: Vec<Packed> = decode_slice(&bytes, &heap).unwrap();
    let q = back[0];
    assert_eq!(({ q.b }, { q.c }, { q.d }), (0x0203_0405, 0x0607, 2.5));

    let s = Subset {
        a: 1.0,
        _scratch: 99,
        b: 3,
    };
    let (bytes, heap) = encode_slice(&[s]).unwrap();
    let back: Vec<Subset> = decode_slice(&bytes, &heap).unwrap();
    assert_eq!((back[0].a, back[0]._scratch, back[0].b), (1.0, 0, 3));
}
