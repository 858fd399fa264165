//! Differential tests against the reference library's `H5LTtext_to_dtype` and
//! `H5LTdtype_to_text` (the `ddl` oracle). Skipped when the reference library is absent.

mod support;

use h5_types::ddl::RefVersion;
use h5_types::predefined;
use h5_types::*;
use support::{oracle, oracle_names, Gen, Scope};

/// The properties line the oracle prints for an atomic type, computed from our model.
fn props(t: &Datatype) -> String {
    let order = |o: ByteOrder| match o {
        ByteOrder::LittleEndian => 0,
        ByteOrder::BigEndian => 1,
        ByteOrder::Vax => 2,
    };
    let pad = |p: Pad| match p {
        Pad::Zero => 0,
        Pad::One => 1,
        Pad::Background => 2,
    };
    let class = match t.class() {
        Class::Integer => 0,
        Class::Float => 1,
        Class::Time => 2,
        Class::String => 3,
        Class::Bitfield => 4,
        Class::Opaque => 5,
        Class::Compound => 6,
        Class::Reference => 7,
        Class::Enum => 8,
        Class::VarLen => 9,
        Class::Array => 10,
        Class::Complex => 11,
    };
    let mut s = format!("class={class} size={}", t.size());
    let layout = |a: &Atomic| {
        format!(
            " order={} prec={} off={} pad={},{}",
            order(a.order()),
            a.precision(),
            a.offset(),
            pad(a.lsb_pad()),
            pad(a.msb_pad())
        )
    };
    match t {
        Datatype::Integer(i) => {
            s += &layout(i.atomic());
            s += &format!(" sign={}", i32::from(i.is_signed()));
        }
        Datatype::Bitfield(b) => s += &layout(b.atomic()),
        Datatype::Time(tt) => {
            s += &format!(
                " order={} prec={} off=0 pad=0,0",
                order(tt.order()),
                tt.precision()
            )
        }
        Datatype::Float(f) => {
            s += &layout(f.atomic());
            let norm = match f.norm() {
                Norm::Implied => 0,
                Norm::MsbSet => 1,
                Norm::None => 2,
            };
            s += &format!(
                " fields={},{},{},{},{} ebias={} norm={norm} inpad={}",
                f.sign_pos(),
                f.exp_pos(),
                f.exp_size(),
                f.mant_pos(),
                f.mant_size(),
                f.exp_bias(),
                pad(f.inpad())
            );
        }
        Datatype::String(st) => {
            let strpad = match st.pad() {
                StrPad::NullTerm => 0,
                StrPad::NullPad => 1,
                StrPad::SpacePad => 2,
            };
            let cset = match st.cset() {
                CharSet::Ascii => 0,
                CharSet::Utf8 => 1,
            };
            s += &format!(
                " strpad={strpad} cset={cset} var={}",
                i32::from(st.is_variable())
            );
        }
        Datatype::Opaque(o) => s += &format!(" tag={}", o.tag()),
        _ => {}
    }
    s
}

/// Every predefined type 1.10 has: same properties, and our reference-flavor text equals its
/// `H5LTdtype_to_text` byte for byte; where that text is a name or a readable form, `Display`
/// prints it too.
#[test]
fn predefined_types_match_the_reference() {
    // The names HDF5 1.10 defines (no 2.0 floats, complex types or H5T_STD_REF).
    let names: Vec<&str> = predefined::NAMES
        .iter()
        .copied()
        .filter(|n| {
            !n.contains("F16")
                && !n.contains("FLOAT16")
                && !n.contains("BFLOAT")
                && !n.contains("F8E")
                && !n.contains("COMPLEX")
                && *n != "H5T_STD_REF"
        })
        .collect();
    let Some(recs) = oracle_names(&names) else {
        return;
    };
    let mut named = 0;
    for (name, rec) in names.iter().zip(&recs) {
        assert!(!rec.error, "{name} unknown to the oracle");
        let t = predefined::by_name(name).unwrap();
        assert_eq!(rec.size, Some(t.size()), "{name}");
        assert_eq!(rec.props.as_deref(), Some(props(&t).as_str()), "{name}");
        let theirs = rec.text.as_deref().expect("text");
        assert_eq!(
            t.to_reference_text(RefVersion::V1_10).as_deref(),
            Some(theirs),
            "{name}"
        );
        if !theirs.starts_with("undefined") && !theirs.starts_with("H5T_TIME") {
            assert_eq!(t.to_string(), theirs, "{name}");
            named += 1;
        }
    }
    assert!(named > 60, "{named}");
}

/// The names `H5LTtext_to_dtype` reads as texts give the same types here.
#[test]
fn predefined_names_as_text() {
    let names = [
        "H5T_STD_I8BE",
        "H5T_STD_I8LE",
        "H5T_STD_I16BE",
        "H5T_STD_I16LE",
        "H5T_STD_I32BE",
        "H5T_STD_I32LE",
        "H5T_STD_I64BE",
        "H5T_STD_I64LE",
        "H5T_STD_U8BE",
        "H5T_STD_U8LE",
        "H5T_STD_U16BE",
        "H5T_STD_U16LE",
        "H5T_STD_U32BE",
        "H5T_STD_U32LE",
        "H5T_STD_U64BE",
        "H5T_STD_U64LE",
        "H5T_NATIVE_CHAR",
        "H5T_NATIVE_SCHAR",
        "H5T_NATIVE_UCHAR",
        "H5T_NATIVE_SHORT",
        "H5T_NATIVE_USHORT",
        "H5T_NATIVE_INT",
        "H5T_NATIVE_UINT",
        "H5T_NATIVE_LONG",
        "H5T_NATIVE_ULONG",
        "H5T_NATIVE_LLONG",
        "H5T_NATIVE_ULLONG",
        "H5T_IEEE_F32BE",
        "H5T_IEEE_F32LE",
        "H5T_IEEE_F64BE",
        "H5T_IEEE_F64LE",
        "H5T_NATIVE_FLOAT",
        "H5T_NATIVE_DOUBLE",
        "H5T_NATIVE_LDOUBLE",
    ];
    let texts: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let Some(recs) = oracle(&texts) else {
        return;
    };
    for (name, rec) in names.iter().zip(&recs) {
        assert!(!rec.error, "{name}");
        let ours: Datatype = name.parse().unwrap();
        assert_eq!(rec.size, Some(ours.size()), "{name}");
        assert_eq!(
            rec.text.as_deref(),
            Some(ours.to_string().as_str()),
            "{name}"
        );
        assert_eq!(rec.props.as_deref(), Some(props(&ours).as_str()), "{name}");
    }
}

fn check_against_oracle(types: &[Datatype], inputs: &[String]) {
    let Some(recs) = oracle(inputs) else {
        return;
    };
    for ((t, input), rec) in types.iter().zip(inputs).zip(&recs) {
        assert!(!rec.error, "the reference refused:\n{input}");
        let theirs = rec.text.as_deref().expect("the reference printed nothing");
        // Display equals H5LTdtype_to_text byte for byte.
        assert_eq!(t.to_string(), theirs, "input:\n{input}");
        // Sizes agree.
        assert_eq!(rec.size, Some(t.size()), "{theirs}");
        // What the reference prints reads back to the same type.
        let back: Datatype = theirs.parse().unwrap();
        assert_eq!(&back, t, "{theirs}");
        // Reading the input here gives the type the reference built from it.
        let ours: Datatype = input.parse().unwrap();
        assert_eq!(&ours, t, "{input}");
        assert_eq!(
            t.to_reference_text(RefVersion::V1_10).as_deref(),
            Some(theirs)
        );
    }
}

/// Generated nested types (compounds with offsets and holes, arrays, vlens, enums of every
/// standard base, strings of every pad and character set, opaque types): our text is the
/// reference's, and the sizes agree.
#[test]
fn generated_types_match_the_reference() {
    let mut g = Gen::new(0xd_d100_0001, Scope::Reference);
    let types: Vec<Datatype> = (0..1500).map(|_| g.ty(0)).collect();
    let inputs: Vec<String> = types.iter().map(|t| t.to_string()).collect();
    check_against_oracle(&types, &inputs);
}

/// The same types written loosely (one line, no member offsets where the reference's
/// placement rules give them anyway): both readers build the same type.
#[test]
fn loose_texts_read_the_same() {
    let mut g = Gen::new(0x10_05e, Scope::Reference);
    let types: Vec<Datatype> = (0..600).map(|_| g.ty(0)).collect();
    let inputs: Vec<String> = types
        .iter()
        .map(|t| {
            let text = t.to_string();
            let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
            // Compact punctuation spacing as well.
            one_line
                .replace(" {", "{")
                .replace(" ;", ";")
                .replace("; ", ";")
        })
        .collect();
    check_against_oracle(&types, &inputs);
}

/// Hand-picked texts of the seed's DDL and the reference's own output forms.
#[test]
fn seed_examples() {
    let inputs: Vec<String> = [
        "H5T_STRING {\n   STRSIZE H5T_VARIABLE;\n   STRPAD H5T_STR_NULLPAD;\n   CSET H5T_CSET_ASCII;\n   CTYPE H5T_C_S1;\n}",
        "H5T_ARRAY { [5][7][13] H5T_ARRAY\n { [17][19] H5T_COMPOUND\n {\n H5T_STD_I8BE \"arr_compound_1\";\n H5T_STD_I32BE \"arr_compound_2\";\n }\n }\n }",
        "H5T_OPAQUE { OPQ_SIZE 7; OPQ_TAG \"some tag\"; }",
        "H5T_ENUM { H5T_NATIVE_SHORT; \"RED\" 0; \"GREEN\" 1; \"BLUE\" 2; }",
        "H5T_COMPOUND { H5T_NATIVE_CHAR \"c\" : 1; H5T_NATIVE_DOUBLE \"d\" : 8; H5T_NATIVE_INT \"i\"; }",
        "H5T_VLEN { H5T_COMPOUND { H5T_NATIVE_INT \"a\"; H5T_VLEN { H5T_NATIVE_FLOAT } \"b\"; } }",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let types: Vec<Datatype> = inputs.iter().map(|s| s.parse().unwrap()).collect();
    check_against_oracle(&types, &inputs);
}

/// The reference library 2.0 bundled with h5py, through ctypes: reads each text (separated by
/// `%%` lines) and prints the same records as the C oracle (SIZE and TEXT only).
const PY_ORACLE_20: &str = r#"
import ctypes, glob, os, sys
import h5py
libs = os.path.join(os.path.dirname(h5py.__file__), os.pardir, "h5py.libs")
core = glob.glob(os.path.join(libs, "libhdf5-*.so*"))
hl = glob.glob(os.path.join(libs, "libhdf5_hl-*.so*"))
if not core or not hl:
    sys.exit("h5py has no bundled libhdf5_hl")
h5 = ctypes.CDLL(core[0], mode=ctypes.RTLD_GLOBAL)
hl = ctypes.CDLL(hl[0])
h5.H5open()
ver = (ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint())
h5.H5get_libversion(*[ctypes.byref(v) for v in ver])
if ver[0].value < 2:
    sys.exit("h5py bundles HDF5 %d.%d, not 2.x" % (ver[0].value, ver[1].value))
h5.H5Eset_auto2(ctypes.c_int64(0), None, None)
hl.H5LTtext_to_dtype.restype = ctypes.c_int64
hl.H5LTdtype_to_text.argtypes = [ctypes.c_int64, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_size_t)]
h5.H5Tget_size.argtypes = [ctypes.c_int64]
h5.H5Tget_size.restype = ctypes.c_size_t
texts = sys.stdin.buffer.read().split(b"\n%%\n")[:-1]
out = os.fdopen(os.dup(1), "wb")
null = os.open(os.devnull, os.O_WRONLY)
os.dup2(null, 1)
def one(text):
    t = hl.H5LTtext_to_dtype(text, 0)
    if t < 0:
        out.write(b"ERROR\n")
        return
    out.write(b"SIZE %d\n" % h5.H5Tget_size(t))
    n = ctypes.c_size_t(0)
    if hl.H5LTdtype_to_text(t, None, 0, ctypes.byref(n)) < 0:
        out.write(b"TEXT -1\n")
        return
    buf = ctypes.create_string_buffer(n.value)
    hl.H5LTdtype_to_text(t, buf, 0, ctypes.byref(n))
    out.write(b"TEXT %d\n%s\n" % (len(buf.value), buf.value))
# One child process per text: the reference parser keeps global state between calls.
for i, text in enumerate(texts):
    out.write(b"ITEM %d\n" % i)
    out.flush()
    pid = os.fork()
    if pid == 0:
        one(text)
        out.write(b"END\n")
        out.flush()
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        out.write(b"CRASH\nEND\n")
out.flush()
"#;

/// HDF5 2.0 names and forms (half precision, bfloat16, complex): `Display` equals 2.0's
/// `H5LTdtype_to_text` byte for byte, alone and nested, and the sizes agree.
#[test]
fn hdf5_2_0_types_match_the_reference() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let mut atoms: Vec<Datatype> = [
        "H5T_IEEE_F16LE",
        "H5T_IEEE_F16BE",
        "H5T_FLOAT_BFLOAT16LE",
        "H5T_FLOAT_BFLOAT16BE",
        "H5T_COMPLEX_IEEE_F16LE",
        "H5T_COMPLEX_IEEE_F16BE",
        "H5T_COMPLEX_IEEE_F32LE",
        "H5T_COMPLEX_IEEE_F32BE",
        "H5T_COMPLEX_IEEE_F64LE",
        "H5T_COMPLEX_IEEE_F64BE",
        "H5T_NATIVE_LDOUBLE_COMPLEX",
        "H5T_NATIVE_FLOAT16",
    ]
    .iter()
    .map(|n| predefined::by_name(n).unwrap())
    .collect();
    // The 1.10 kinds still print the same in 2.0.
    let mut g = Gen::new(0x2_0000, Scope::Reference);
    atoms.extend((0..100).map(|_| g.ty(0)));
    let mut types = Vec::new();
    for t in &atoms {
        types.push(t.clone());
        types.push(ArrayType::new(t.clone(), &[2, 3]).unwrap().into());
        types.push(VarLenType::new(t.clone()).into());
        let c = CompoundType::from_members(
            4 + t.size(),
            [
                ("n", 0, Datatype::from(predefined::STD_I32LE)),
                ("x", 4, t.clone()),
            ],
        )
        .unwrap();
        types.push(c.into());
    }
    let mut input = String::new();
    for t in &types {
        input.push_str(&t.to_string());
        input.push_str("\n%%\n");
    }
    let Some(out) = h5_oracle::require(
        "HDF5 2.0 (h5py's bundled libhdf5_hl)",
        h5_oracle::run(&py, &["-c", PY_ORACLE_20], input.as_bytes()),
    ) else {
        return;
    };
    let recs = support::records(&out);
    assert_eq!(recs.len(), types.len());
    for (t, rec) in types.iter().zip(&recs) {
        let ours = t.to_string();
        assert!(!rec.error, "HDF5 2.0 refused:\n{ours}");
        assert_eq!(rec.text.as_deref(), Some(ours.as_str()));
        assert_eq!(rec.size, Some(t.size()), "{ours}");
        assert_eq!(
            t.to_reference_text(RefVersion::V2_0).as_deref(),
            Some(ours.as_str())
        );
    }
}

/// `H5Tpack`, `H5Tget_native_type` and `H5Tget_size` through the text: for generated nested
/// types, our packed and native types print what the reference prints for its own, with the
/// same sizes (this is also what `h5 dtype --pack/--native/--size` prints).
#[test]
fn pack_and_native_match_the_reference() {
    let mut g = Gen::new(0xd_d100_0002, Scope::Reference);
    let types: Vec<Datatype> = (0..1000).map(|_| g.ty(0)).collect();
    let inputs: Vec<String> = types.iter().map(|t| t.to_string()).collect();
    let Some(recs) = oracle(&inputs) else {
        return;
    };
    let (mut packed_checked, mut native_checked) = (0, 0);
    for ((t, input), rec) in types.iter().zip(&inputs).zip(&recs) {
        assert!(!rec.error, "the reference refused:\n{input}");
        if let (Some(size), Some(text)) = (rec.pack_size, rec.pack_text.as_deref()) {
            let p = t.packed();
            assert_eq!(p.size(), size, "packed size of\n{input}");
            assert_eq!(p.to_string(), text, "packed text of\n{input}");
            packed_checked += 1;
        }
        if let (Some(size), Some(text)) = (rec.native_size, rec.native_text.as_deref()) {
            let n = t
                .native_type()
                .unwrap_or_else(|e| panic!("native_type of\n{input}\n{e}"));
            assert_eq!(n.size(), size, "native size of\n{input}");
            assert_eq!(n.to_string(), text, "native text of\n{input}");
            native_checked += 1;
        }
    }
    assert!(
        packed_checked > 100,
        "only {packed_checked} packed types compared"
    );
    assert!(
        native_checked > 500,
        "only {native_checked} native types compared"
    );
}
