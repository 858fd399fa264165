//! The BioC policy on `bioc.h5` (written by h5py, `cargo xtask gen-fixtures`): values and
//! missing-value masks against the same rules computed with h5py and numpy at test time
//! (`support/bioc_oracle.py`), the NaN-payload and full-precision rules, errors naming the
//! broken rule, and placeholders chosen here written back by h5py.

use std::collections::HashMap;
use std::path::PathBuf;

use h5_bioc::{Reader, Rule, Rules};

fn support(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/support")
        .join(name)
}

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../h5-io/tests/fixtures/h5py/bioc.h5")
}

fn file() -> h5::File {
    h5::File::open(fixture()).expect("open bioc.h5")
}

/// One dataset as the oracle sees it.
#[derive(Debug)]
struct Expected {
    kind: String,
    mask: Option<Vec<bool>>,
    mask_f32: Option<Vec<bool>>,
    values: Vec<String>,
}

fn parse_mask(s: &str) -> Option<Vec<bool>> {
    (s != "-").then(|| s.chars().map(|c| c == '1').collect())
}

/// The oracle's view of `paths`; `None` (test skipped) without h5py.
fn oracle(paths: &[&str], attr: Option<&str>) -> Option<HashMap<String, Expected>> {
    let py = h5_oracle::require("h5py", h5_oracle::h5py())?;
    let script = support("bioc_oracle.py");
    let fx = fixture();
    let mut args = vec![script.to_str().unwrap(), fx.to_str().unwrap()];
    if let Some(a) = attr {
        args.push(a);
    }
    let input = paths.join("\n");
    let out = h5_oracle::run(&py, &args, input.as_bytes()).expect("bioc_oracle.py");
    let text = String::from_utf8(out).unwrap();
    let mut m = HashMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 5, "{line}");
        let values = if f[4].is_empty() && f[1] != "str" {
            Vec::new()
        } else {
            f[4].split(',').map(str::to_string).collect()
        };
        m.insert(
            f[0].to_string(),
            Expected {
                kind: f[1].to_string(),
                mask: parse_mask(f[2]),
                mask_f32: parse_mask(f[3]),
                values,
            },
        );
    }
    assert_eq!(m.len(), paths.len());
    Some(m)
}

fn mask_or_none(e: &Expected, n: usize) -> Vec<bool> {
    e.mask.clone().unwrap_or_else(|| vec![false; n])
}

const INT_I32: &[&str] = &[
    "/int/i8",
    "/int/u8",
    "/int/i16",
    "/int/u16",
    "/int/i32",
    "/int/i32_be",
    "/int/i32_none",
    "/int/i32_2d",
];

#[test]
fn integers_as_i32_with_placeholders() {
    let Some(exp) = oracle(INT_I32, None) else {
        return;
    };
    let f = file();
    for &p in INT_I32 {
        let ds = f.dataset(p).unwrap();
        h5_bioc::check::<i32>(&ds).unwrap();
        let m = h5_bioc::read::<i32>(&ds).unwrap();
        let e = &exp[p];
        assert_eq!(e.kind, "int");
        let want: Vec<i32> = e.values.iter().map(|v| v.parse().unwrap()).collect();
        assert_eq!(m.values(), &want[..], "{p}");
        assert_eq!(m.missing(), &mask_or_none(e, want.len())[..], "{p}");
        assert_eq!(m.shape(), &ds.shape()[..]);
        let opts = h5_bioc::read_options::<i32>(&ds).unwrap();
        for (i, o) in opts.iter().enumerate() {
            assert_eq!(o.is_none(), m.is_missing(i));
        }
    }
}

#[test]
fn wide_integers_as_i64_and_f64() {
    let paths = ["/int/u32", "/int/i64", "/int/u64"];
    let Some(exp) = oracle(&paths, None) else {
        return;
    };
    let f = file();
    // u32 and i64 fit an i64; u32 fits an f64, i64 does not (64 bits of precision).
    for p in ["/int/u32", "/int/i64"] {
        let m = h5_bioc::read::<i64>(&f.dataset(p).unwrap()).unwrap();
        let want: Vec<i64> = exp[p].values.iter().map(|v| v.parse().unwrap()).collect();
        assert_eq!(m.values(), &want[..], "{p}");
        assert_eq!(Some(m.missing().to_vec()), exp[p].mask, "{p}");
    }
    let m = h5_bioc::read::<f64>(&f.dataset("/int/u32").unwrap()).unwrap();
    assert_eq!(Some(m.missing().to_vec()), exp["/int/u32"].mask);
    assert_eq!(m.values()[0], 4294967295.0);
    let m = h5_bioc::read::<u64>(&f.dataset("/int/u64").unwrap()).unwrap();
    let want: Vec<u64> = exp["/int/u64"]
        .values
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(m.values(), &want[..]);
    assert_eq!(Some(m.missing().to_vec()), exp["/int/u64"].mask);
    let e = h5_bioc::check::<f64>(&f.dataset("/int/i64").unwrap()).unwrap_err();
    assert_eq!(e.broken_rule(), Some(Rule::Float));
}

const FLOATS: &[&str] = &[
    "/float/f16",
    "/float/f32",
    "/float/f64",
    "/float/f64_nan",
    "/float/f32_nan",
    "/float/f64_nan_not_missing",
    "/float/f64_point_one",
    "/float/f64_zero",
    "/float/f64_be",
    "/float/f64_2d",
    "/float/f64_none",
];

/// The deprecated policy's reading (the oracle computes it): half floats fit, a NaN
/// placeholder makes every NaN missing. ritsuko's reading of the same datasets follows.
#[test]
fn floats_as_f64_with_placeholders_and_nan_payloads() {
    let Some(exp) = oracle(FLOATS, None) else {
        return;
    };
    let f = file();
    let policy = Reader::new().rules(Rules::DeprecatedPolicy);
    for &p in FLOATS {
        let ds = f.dataset(p).unwrap();
        h5_bioc::check_with::<f64>(&ds, Rules::DeprecatedPolicy).unwrap();
        let m = policy.read::<f64>(&ds).unwrap();
        let e = &exp[p];
        assert_eq!(e.kind, "float");
        assert_eq!(m.len(), e.values.len(), "{p}");
        for (i, (v, w)) in m.values().iter().zip(&e.values).enumerate() {
            if w == "nan" {
                assert!(v.is_nan(), "{p}[{i}]");
            } else {
                assert_eq!(format!("{:016x}", v.to_bits()), *w, "{p}[{i}]");
            }
        }
        assert_eq!(m.missing(), &mask_or_none(e, m.len())[..], "{p}");
    }
    // The NaN rule: NaNs of different payloads, all missing under a NaN placeholder of yet
    // another payload.
    let ds = f.dataset("/float/f64_nan").unwrap();
    let (raw, _) = ds.read_raw().unwrap();
    let payloads: std::collections::HashSet<u64> = raw
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .filter(|b| f64::from_bits(*b).is_nan())
        .collect();
    // Five NaNs, five payloads (quiet, signalling, negative), and the placeholder's differs.
    assert_eq!(payloads.len(), 5, "{payloads:x?}");
    let pl = ds
        .attr("missing-value-placeholder")
        .unwrap()
        .read_raw()
        .unwrap()
        .0;
    assert!(!payloads.contains(&u64::from_le_bytes(pl[..8].try_into().unwrap())));
    let m = policy.read::<f64>(&ds).unwrap();
    assert_eq!(m.missing_count(), 5);
    assert!(m
        .values()
        .iter()
        .zip(m.missing())
        .all(|(v, &mi)| v.is_nan() == mi));
    assert!(m.placeholder().unwrap().is_nan());
    // Float32 NaNs (quiet, signalling, negative) likewise.
    let m = policy
        .read::<f32>(&f.dataset("/float/f32_nan").unwrap())
        .unwrap();
    assert_eq!(
        m.missing(),
        &exp["/float/f32_nan"].mask.clone().unwrap()[..]
    );
    assert_eq!(m.missing_count(), 4);
    // ritsuko: a NaN placeholder matches identical bits only (none here), and a half float
    // does not fit an f64.
    let m = h5_bioc::read::<f64>(&ds).unwrap();
    assert_eq!(m.missing_count(), 0);
    let e = h5_bioc::check::<f64>(&f.dataset("/float/f16").unwrap()).unwrap_err();
    assert_eq!(e.broken_rule(), Some(Rule::Float));
    // With a finite placeholder NaNs are values.
    let m = h5_bioc::read::<f64>(&f.dataset("/float/f64_nan_not_missing").unwrap()).unwrap();
    assert_eq!(m.missing(), [false, true, false, true]);
    assert!(m.values()[0].is_nan() && m.values()[2].is_nan());
}

#[test]
fn placeholder_compared_at_full_precision() {
    let Some(exp) = oracle(&["/float/f64_point_one"], None) else {
        return;
    };
    let e = &exp["/float/f64_point_one"];
    let full = e.mask.clone().unwrap();
    let rounded = e.mask_f32.clone().unwrap();
    // float32(0.1) is not 0.1 in double precision, but is after rounding to float.
    assert_ne!(full, rounded);
    let f = file();
    let ds = f.dataset("/float/f64_point_one").unwrap();
    // Reading into f32 is not allowed by default (f64 does not fit)...
    let err = h5_bioc::read::<f32>(&ds).unwrap_err();
    assert_eq!(err.broken_rule(), Some(Rule::Float));
    // ...and when narrowing is allowed, missing values are still found in double precision.
    let m = Reader::new()
        .allow_narrowing(true)
        .read::<f32>(&ds)
        .unwrap();
    assert_eq!(m.missing(), &full[..]);
    assert_ne!(m.missing(), &rounded[..]);
    assert_eq!(m.values()[0], m.values()[1]); // equal once rounded, one missing, one not
    assert!(m.is_missing(0) && !m.is_missing(1));
    // Narrowing integers the same way: i16 data, the placeholder found before clamping.
    let ds = f.dataset("/int/i16").unwrap();
    let m = Reader::new().allow_narrowing(true).read::<i8>(&ds).unwrap();
    let want = h5_bioc::read::<i32>(&ds).unwrap();
    assert_eq!(m.missing(), want.missing());
    assert_eq!(m.values()[0], i8::MIN); // -32768 clamps
}

const STRINGS: &[&str] = &[
    "/str/fixed_nullpad",
    "/str/fixed_nullterm",
    "/str/fixed_spacepad",
    "/str/fixed_utf8",
    "/str/fixed_ascii_holding_utf8",
    "/str/fixed_vlen_placeholder",
    "/str/vlen_utf8",
    "/str/vlen_ascii",
];

#[test]
fn strings_fixed_and_variable_nul_or_full_length_spaces_kept() {
    let Some(exp) = oracle(STRINGS, None) else {
        return;
    };
    let f = file();
    for &p in STRINGS {
        let ds = f.dataset(p).unwrap();
        h5_bioc::check::<String>(&ds).unwrap();
        let m = h5_bioc::read::<String>(&ds).unwrap();
        let e = &exp[p];
        assert_eq!(e.kind, "str");
        let hex: Vec<String> = m
            .values()
            .iter()
            .map(|s| s.bytes().map(|b| format!("{b:02x}")).collect())
            .collect();
        assert_eq!(hex, e.values, "{p}");
        assert_eq!(m.missing(), &mask_or_none(e, m.len())[..], "{p}");
    }
    let m = h5_bioc::read::<String>(&f.dataset("/str/fixed_spacepad").unwrap()).unwrap();
    assert_eq!(m.values()[1], "ab    ");
    assert_eq!(m.missing(), [true, false, false, false]);
    let m = h5_bioc::read::<String>(&f.dataset("/str/fixed_nullpad").unwrap()).unwrap();
    assert_eq!(m.values()[3], "full8chr");
    assert_eq!(m.values()[4], "ab");
    let m = h5_bioc::read::<String>(&f.dataset("/str/fixed_ascii_holding_utf8").unwrap()).unwrap();
    assert_eq!(m.values()[0], "gr\u{fc}\u{df}e");
}

#[test]
fn placeholder_attribute_name_is_configurable() {
    let Some(exp) = oracle(&["/int/i16_other_name"], Some("missing_placeholder")) else {
        return;
    };
    let f = file();
    let ds = f.dataset("/int/i16_other_name").unwrap();
    let m = Reader::new()
        .placeholder_name("missing_placeholder")
        .read::<i32>(&ds)
        .unwrap();
    assert_eq!(Some(m.missing().to_vec()), exp["/int/i16_other_name"].mask);
    assert_eq!(m.missing_count(), 2);
    // Under the default name the dataset has no placeholder.
    assert_eq!(h5_bioc::read::<i32>(&ds).unwrap().missing_count(), 0);
}

fn broken(path: &str, result: Result<(), h5_bioc::Error>, rule: Rule) {
    let e = result.expect_err(path);
    assert_eq!(e.broken_rule(), Some(rule), "{path}: {e}");
    let text = e.to_string();
    assert!(text.starts_with(path), "{text}");
    assert!(
        text.contains(&format!("breaks the BioC rule \"{}\"", rule.name())),
        "{text}"
    );
}

#[test]
fn errors_name_the_broken_rule() {
    let f = file();
    let ds = |p: &str| f.dataset(p).unwrap();
    let r = |p: &str| h5_bioc::read::<i32>(&ds(p)).map(|_| ());
    broken("/int/u32", r("/int/u32"), Rule::Integer);
    broken("/int/i64", r("/int/i64"), Rule::Integer);
    broken("/float/f32", r("/float/f32"), Rule::Integer);
    broken("/str/vlen_utf8", r("/str/vlen_utf8"), Rule::Integer);
    broken("/other/bool", r("/other/bool"), Rule::Integer);
    broken(
        "/other/compound",
        h5_bioc::check::<f64>(&ds("/other/compound")),
        Rule::Float,
    );
    broken(
        "/float/longdouble",
        h5_bioc::check::<f64>(&ds("/float/longdouble")),
        Rule::Float,
    );
    broken(
        "/int/i8",
        h5_bioc::read::<String>(&ds("/int/i8")).map(|_| ()),
        Rule::String,
    );
    broken(
        "/str/fixed_invalid_utf8",
        h5_bioc::read::<String>(&ds("/str/fixed_invalid_utf8")).map(|_| ()),
        Rule::Utf8,
    );
    broken(
        "/int/i16_wrong_type",
        r("/int/i16_wrong_type"),
        Rule::PlaceholderType,
    );
    broken(
        "/int/i16_float_placeholder",
        r("/int/i16_float_placeholder"),
        Rule::PlaceholderType,
    );
    broken(
        "/float/f64_int_placeholder",
        h5_bioc::read::<f64>(&ds("/float/f64_int_placeholder")).map(|_| ()),
        Rule::PlaceholderType,
    );
    broken(
        "/str/int_placeholder",
        h5_bioc::read::<String>(&ds("/str/int_placeholder")).map(|_| ()),
        Rule::PlaceholderType,
    );
    broken(
        "/int/i32_vector_placeholder",
        r("/int/i32_vector_placeholder"),
        Rule::PlaceholderScalar,
    );
    // The UTF-8 error says which element.
    let e = h5_bioc::read::<String>(&ds("/str/fixed_invalid_utf8")).unwrap_err();
    assert!(e.to_string().contains("element 1"), "{e}");
    // A placeholder of the same class but not the exact type is accepted on request, and
    // compared at full precision; another class never is.
    let m = Reader::new()
        .exact_placeholder_type(false)
        .read::<i32>(&ds("/int/i16_wrong_type"))
        .unwrap();
    assert_eq!(m.missing(), [false, true, false]);
    let e = Reader::new()
        .exact_placeholder_type(false)
        .read::<i32>(&ds("/int/i16_float_placeholder"))
        .unwrap_err();
    assert_eq!(e.broken_rule(), Some(Rule::PlaceholderType));
}

/// A small deterministic generator for test data.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

#[test]
fn chosen_placeholders_are_absent_from_the_data() {
    let mut g = Lcg(7);
    for round in 0..200 {
        let n = (g.next() % 300) as usize;
        // Small ranges so that the minimum and maximum are often taken.
        let v: Vec<i8> = (0..n).map(|_| (g.next() % 256) as u8 as i8).collect();
        match h5_bioc::choose_placeholder(&v) {
            Some(p) => assert!(!v.contains(&p), "round {round}"),
            None => assert_eq!(
                v.iter().collect::<std::collections::HashSet<_>>().len(),
                256
            ),
        }
        let v: Vec<f64> = (0..n)
            .map(|_| match g.next() % 5 {
                0 => f64::NAN,
                1 => f64::MIN,
                2 => f64::NEG_INFINITY,
                3 => 0.0,
                _ => (g.next() as f64) / 7.0,
            })
            .collect();
        let p = h5_bioc::choose_placeholder(&v).unwrap();
        if p.is_nan() {
            assert!(!v.iter().any(|x| x.is_nan()));
        } else {
            assert!(!v.contains(&p), "round {round}: {p}");
        }
    }
}

#[test]
fn placeholders_chosen_here_round_trip_through_h5py() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let ints = [
        Some(1),
        None,
        Some(i32::MIN),
        Some(-7),
        None,
        Some(i32::MAX),
    ];
    let floats = [
        Some(0.5),
        Some(f64::NAN),
        None,
        Some(f64::NEG_INFINITY),
        None,
    ];
    let strs = [
        Some("NA".to_string()),
        None,
        Some("\u{e9}t\u{e9}".to_string()),
        Some(String::new()),
    ];
    let wi = h5_bioc::with_placeholder(&ints).unwrap();
    let wf = h5_bioc::with_placeholder(&floats).unwrap();
    let ws = h5_bioc::with_placeholder(&strs).unwrap();
    let none = h5_bioc::with_placeholder(&[Some(3i32), Some(4)]).unwrap();
    assert_eq!(none.placeholder, None);
    let hex = |s: &str| -> String { s.bytes().map(|b| format!("{b:02x}")).collect() };
    let join = |v: Vec<String>| v.join(",");
    let mut input = String::new();
    input += &format!(
        "ints\ti4\t{}\t{}\n",
        wi.placeholder.unwrap(),
        join(wi.values.iter().map(i32::to_string).collect())
    );
    input += &format!(
        "floats\tf8\t{:x}\t{}\n",
        wf.placeholder.unwrap().to_bits(),
        join(
            wf.values
                .iter()
                .map(|x| format!("{:x}", x.to_bits()))
                .collect()
        )
    );
    input += &format!(
        "strs\tstr\t{}\t{}\n",
        hex(ws.placeholder.as_deref().unwrap()),
        join(ws.values.iter().map(|s| hex(s)).collect())
    );
    input += &format!(
        "complete\ti4\t-\t{}\n",
        join(none.values.iter().map(i32::to_string).collect())
    );
    let dir = std::env::temp_dir().join(format!("h5-bioc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("written.h5");
    let script = support("bioc_write.py");
    h5_oracle::run(
        &py,
        &[script.to_str().unwrap(), out.to_str().unwrap()],
        input.as_bytes(),
    )
    .expect("bioc_write.py");
    let f = h5::File::open(&out).unwrap();
    let back = h5_bioc::read_options::<i32>(&f.dataset("ints").unwrap()).unwrap();
    assert_eq!(back, ints);
    let back = h5_bioc::read_options::<f64>(&f.dataset("floats").unwrap()).unwrap();
    assert_eq!(back.len(), floats.len());
    for (b, w) in back.iter().zip(&floats) {
        match (b, w) {
            (Some(b), Some(w)) if w.is_nan() => assert!(b.is_nan()),
            _ => assert_eq!(b, w),
        }
    }
    let back = h5_bioc::read_options::<String>(&f.dataset("strs").unwrap()).unwrap();
    assert_eq!(back, strs);
    let back = h5_bioc::read::<i32>(&f.dataset("complete").unwrap()).unwrap();
    assert_eq!(back.placeholder(), None);
    assert_eq!(back.missing_count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Our writer writes under the policy (`h5_bioc::write`): our reader gives the `None`s back, and
/// h5py sees the placeholder attribute with the dataset's own datatype and the placeholder in
/// the missing places.
#[test]
fn written_here_with_placeholders() {
    let dir = std::env::temp_dir().join(format!("h5-bioc-write-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ours.h5");
    let ints = [Some(5i16), None, Some(i16::MIN), Some(-3)];
    let floats = [Some(1.5f32), None, Some(f32::INFINITY)];
    let strs = [Some("a".to_string()), None, Some("NA".to_string())];
    let complete = [Some(1u8), Some(2)];
    {
        let f = h5::WritableFile::create(&path).unwrap();
        h5_bioc::write(&f.root().unwrap(), "ints", &ints).unwrap();
        h5_bioc::write(&f.root().unwrap(), "floats", &floats).unwrap();
        h5_bioc::write_strings(&f.root().unwrap(), "strs", &strs).unwrap();
        h5_bioc::write(&f.root().unwrap(), "complete", &complete).unwrap();
        f.close().unwrap();
    }
    let f = h5::File::open(&path).unwrap();
    assert_eq!(
        h5_bioc::read_options::<i16>(&f.dataset("ints").unwrap()).unwrap(),
        ints
    );
    let back = h5_bioc::read_options::<f32>(&f.dataset("floats").unwrap()).unwrap();
    assert_eq!(back, floats);
    assert_eq!(
        h5_bioc::read_options::<String>(&f.dataset("strs").unwrap()).unwrap(),
        strs
    );
    let c = h5_bioc::read::<u8>(&f.dataset("complete").unwrap()).unwrap();
    assert_eq!(c.placeholder(), None);

    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let script = r#"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
for name in ["ints", "floats", "strs", "complete"]:
    d = f[name]
    a = d.attrs.get("missing-value-placeholder")
    if a is None:
        print(name, "none")
        continue
    same = d.attrs.get_id("missing-value-placeholder").get_type().get_class() == d.id.get_type().get_class()
    v = d[...]
    if isinstance(a, bytes) or isinstance(a, str):
        a = a.decode() if isinstance(a, bytes) else a
        v = [x.decode() if isinstance(x, bytes) else x for x in v]
        idx = [i for i, x in enumerate(v) if x == a]
    elif np.isnan(a):
        idx = list(np.nonzero(np.isnan(v))[0])
    else:
        idx = list(np.nonzero(v == a)[0])
    print(name, int(same), a.dtype.str if hasattr(a, "dtype") else "str", ",".join(str(int(i)) for i in idx))
"#;
    let out =
        h5_oracle::run(&py, &["-c", script, path.to_str().unwrap()], b"").expect("h5py reads");
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "ints 1 <i2 1", "{text}");
    assert_eq!(lines[1], "floats 1 <f4 1", "{text}");
    assert_eq!(lines[2], "strs 1 str 1", "{text}");
    assert_eq!(lines[3], "complete none", "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
