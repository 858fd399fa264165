//! netCDF access on `netcdf4.h5` (a netCDF-4-style file written by h5py, `cargo xtask
//! gen-fixtures`): every access form and every numeric destination type against numpy slicing
//! and netCDF's conversion rules computed at test time (`support/netcdf_oracle.py`), range
//! errors that keep the other values, dimensions, text, ragged arrays, and netCDF's errors.

use std::path::PathBuf;

use h5_netcdf::{ErrorKind, NcFile, NcForm, Numeric, Rules};

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../h5-io/tests/fixtures/h5py/netcdf4.h5")
}

fn nc() -> NcFile {
    NcFile::open(fixture()).expect("open netcdf4.h5")
}

/// The oracle's answer to each request, one line each; `None` (test skipped) without h5py.
fn oracle(requests: &[String]) -> Option<Vec<String>> {
    let py = h5_oracle::require("h5py", h5_oracle::h5py())?;
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/netcdf_oracle.py");
    let fx = fixture();
    let input = requests.join("\n");
    let out = h5_oracle::run(
        &py,
        &[script.to_str().unwrap(), fx.to_str().unwrap()],
        input.as_bytes(),
    )
    .expect("netcdf_oracle.py");
    let lines: Vec<String> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), requests.len());
    Some(lines)
}

/// A value as the oracle prints it, compared exactly.
#[derive(Debug, PartialEq)]
enum Num {
    Int(i128),
    Float(f64),
}

trait AsNum: Numeric {
    const NP: &'static str;
    fn num(&self) -> Num;
}

macro_rules! as_num {
    ($($t:ty => $np:literal, $v:ident),*) => {$(
        impl AsNum for $t {
            const NP: &'static str = $np;
            fn num(&self) -> Num {
                Num::$v((*self).into())
            }
        }
    )*};
}

as_num!(i8 => "i1", Int, u8 => "u1", Int, i16 => "i2", Int, u16 => "u2", Int, i32 => "i4", Int,
    u32 => "u4", Int, i64 => "i8", Int, u64 => "u8", Int, f32 => "f4", Float, f64 => "f8", Float);

fn parse(s: &str, float: bool) -> Num {
    if float {
        Num::Float(s.parse().unwrap_or_else(|_| panic!("float {s:?}")))
    } else {
        Num::Int(s.parse().unwrap_or_else(|_| panic!("int {s:?}")))
    }
}

fn csv(v: &[u64]) -> String {
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

/// One access: the form's vectors (all `None` for the whole variable).
#[derive(Clone, Debug)]
struct Access {
    var: &'static str,
    start: Option<Vec<u64>>,
    count: Vec<u64>,
    stride: Option<Vec<u64>>,
    imap: Option<Vec<u64>>,
    element: bool,
}

impl Access {
    fn whole(var: &'static str) -> Self {
        Access {
            var,
            start: None,
            count: Vec::new(),
            stride: None,
            imap: None,
            element: false,
        }
    }

    fn form(&self) -> NcForm<'_> {
        match (&self.start, &self.stride, &self.imap) {
            (None, _, _) => NcForm::Whole,
            (Some(s), _, _) if self.element => NcForm::Element { index: s },
            (Some(s), None, None) => NcForm::Section {
                start: s,
                count: &self.count,
            },
            (Some(s), Some(st), None) => NcForm::Subsampled {
                start: s,
                count: &self.count,
                stride: st,
            },
            (Some(s), st, Some(m)) => NcForm::Mapped {
                start: s,
                count: &self.count,
                stride: st.as_deref(),
                imap: Some(m),
            },
        }
    }

    fn request(&self, np: &str) -> String {
        match &self.start {
            None => format!("get {} all - - - {np}", self.var),
            Some(s) => {
                let ones = vec![1u64; s.len()];
                let count = if self.element { &ones } else { &self.count };
                format!(
                    "get {} {} {} {} {} {np}",
                    self.var,
                    csv(s),
                    csv(count),
                    csv(self.stride.as_deref().unwrap_or(&ones)),
                    self.imap.as_deref().map_or_else(|| "-".to_string(), csv),
                )
            }
        }
    }
}

fn accesses() -> Vec<Access> {
    let a =
        |var, start: &[u64], count: &[u64], stride: Option<&[u64]>, imap: Option<&[u64]>| Access {
            var,
            start: Some(start.to_vec()),
            count: count.to_vec(),
            stride: stride.map(<[u64]>::to_vec),
            imap: imap.map(<[u64]>::to_vec),
            element: false,
        };
    let mut e1 = a("temp", &[1, 2, 0, 3], &[], None, None);
    e1.element = true;
    let mut e2 = a("temp", &[2, 0, 0, 9], &[], None, None);
    e2.element = true;
    vec![
        Access::whole("temp"),
        Access::whole("elev"),
        Access::whole("level"),
        Access::whole("time_bnds"),
        e1,
        e2,
        // The guide's example: the second level, every time, latitude and longitude.
        a("temp", &[0, 1, 0, 0], &[3, 1, 5, 10], None, None),
        a("temp", &[1, 0, 2, 3], &[2, 4, 3, 7], None, None),
        // Subsampled.
        a(
            "temp",
            &[0, 0, 1, 1],
            &[2, 2, 2, 3],
            Some(&[2, 3, 2, 4]),
            None,
        ),
        a("elev", &[0, 0], &[3, 4], Some(&[2, 3]), None),
        // Mapped: (level, lat, lon) transposed so that lon varies slowest.
        a(
            "temp",
            &[1, 0, 0, 0],
            &[1, 2, 5, 10],
            None,
            Some(&[0, 1, 2, 10]),
        ),
        // Mapped, subsampled, with gaps in memory.
        a(
            "temp",
            &[0, 0, 0, 0],
            &[3, 1, 2, 3],
            Some(&[1, 2, 3, 4]),
            Some(&[20, 0, 8, 2]),
        ),
        a("elev", &[1, 2], &[4, 2], Some(&[1, 4]), Some(&[1, 4])),
    ]
}

fn check_all<T: AsNum>(exp: &mut impl Iterator<Item = String>, nc: &NcFile) -> usize {
    let float = matches!(T::NP, "f4" | "f8");
    let mut compared = 0;
    for acc in accesses() {
        let line = exp.next().unwrap();
        let (vals, oor) = line.split_once('\t').unwrap();
        let want_oor: Vec<usize> = if oor.is_empty() {
            Vec::new()
        } else {
            oor.split(',').map(|x| x.parse().unwrap()).collect()
        };
        let var = nc.variable(acc.var).unwrap();
        let what = format!("{} {:?} as {}", acc.var, acc.form(), T::NC_NAME);
        let got = var
            .read_converted_with::<T>(acc.form(), Rules::Strict)
            .expect(&what);
        let want: Vec<&str> = vals.split(',').collect();
        assert_eq!(got.values.len(), want.len(), "{what}");
        for (i, (g, w)) in got.values.iter().zip(&want).enumerate() {
            if *w == "x" {
                continue; // out of range, or not reached by the map
            }
            match (g.num(), parse(w, float)) {
                (Num::Float(a), Num::Float(b)) if a.is_nan() && b.is_nan() => {}
                (a, b) => assert_eq!(a, b, "{what}: value {i}"),
            }
            compared += 1;
        }
        assert_eq!(got.out_of_range, want_oor, "{what}: out-of-range positions");
        assert_eq!(got.out_of_range.len(), got.out_of_range_at.len());
        // The strict read fails exactly when something is out of range, and names it.
        match var.read_with::<T>(acc.form(), Rules::Strict) {
            Ok(v) => {
                assert!(want_oor.is_empty(), "{what}");
                let same = |a: &T, b: &T| match (a.num(), b.num()) {
                    (Num::Float(x), Num::Float(y)) => x.to_bits() == y.to_bits(),
                    (x, y) => x == y,
                };
                assert!(v.iter().zip(&got.values).all(|(a, b)| same(a, b)), "{what}");
                assert_eq!(v.len(), got.values.len());
            }
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::Range, "{what}: {e}");
                assert_eq!(e.out_of_range(), &want_oor[..]);
                let text = e.to_string();
                assert!(text.contains("NC_ERANGE"), "{text}");
                assert!(text.contains(T::NC_NAME), "{text}");
                let first: Vec<String> =
                    got.out_of_range_at[0].iter().map(u64::to_string).collect();
                assert!(text.contains(&format!("[{}]", first.join(", "))), "{text}");
            }
        }
    }
    compared
}

#[test]
fn every_access_form_into_every_numeric_type_against_numpy() {
    let types = ["f8", "f4", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"];
    let mut requests = Vec::new();
    for t in types {
        for a in accesses() {
            requests.push(a.request(t));
        }
    }
    let Some(lines) = oracle(&requests) else {
        return;
    };
    let nc = nc();
    let mut it = lines.into_iter();
    let mut n = 0;
    n += check_all::<f64>(&mut it, &nc);
    n += check_all::<f32>(&mut it, &nc);
    n += check_all::<i8>(&mut it, &nc);
    n += check_all::<u8>(&mut it, &nc);
    n += check_all::<i16>(&mut it, &nc);
    n += check_all::<u16>(&mut it, &nc);
    n += check_all::<i32>(&mut it, &nc);
    n += check_all::<u32>(&mut it, &nc);
    n += check_all::<i64>(&mut it, &nc);
    n += check_all::<u64>(&mut it, &nc);
    assert!(n > 5000, "{n} values compared");
}

#[test]
fn range_errors_keep_the_other_values() {
    let nc = nc();
    let temp = nc.variable("temp").unwrap();
    // Row temp[2, 0, 0, :]: 170, 154.875, ..., and 1e20 at the end.
    let form = NcForm::Section {
        start: &[2, 0, 0, 0],
        count: &[1, 1, 1, 10],
    };
    let all: Vec<f64> = temp.read(form).unwrap();
    let c = temp.read_converted::<i8>(form).unwrap();
    assert_eq!(c.values.len(), 10);
    for (i, (&v, &x)) in c.values.iter().zip(&all).enumerate() {
        let bad = !(-128.0..=127.0).contains(&x);
        assert_eq!(c.out_of_range.contains(&i), bad, "{i}: {x}");
        if !bad {
            assert_eq!(f64::from(v), x.trunc(), "{i}");
        }
    }
    assert!(c.out_of_range.contains(&9));
    assert_eq!(c.out_of_range_at.last().unwrap(), &[2, 0, 0, 9]);
    // The NaN at temp[1, 2, 3, 4] is out of range of an integer, not of a float.
    let nan_at = NcForm::Element {
        index: &[1, 2, 3, 4],
    };
    let e = temp.read_with::<i32>(nan_at, Rules::Strict).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Range);
    // netcdf-c's comparisons are false for NaN: no range error by default.
    assert!(temp.read::<i32>(nan_at).is_ok());
    assert!(e.to_string().contains("[1, 2, 3, 4]"), "{e}");
    assert!(temp.read::<f32>(nan_at).unwrap()[0].is_nan());
    // 1e20 fits a float but not an int64.
    let big = NcForm::Element {
        index: &[2, 0, 0, 9],
    };
    assert_eq!(temp.read::<f32>(big).unwrap(), [1e20f32]);
    assert_eq!(temp.read::<i64>(big).unwrap_err().kind(), ErrorKind::Range);
    // Negative values read as unsigned.
    let elev = nc.variable("elev").unwrap();
    let c = elev.read_converted::<u16>(NcForm::Whole).unwrap();
    let v: Vec<i16> = elev.get_var().unwrap();
    let neg: Vec<usize> = (0..v.len()).filter(|&i| v[i] < 0).collect();
    assert_eq!(c.out_of_range, neg);
}

#[test]
fn dimensions_and_variables_against_h5py() {
    let names = [
        "temp",
        "elev",
        "time_bnds",
        "ragged_mat",
        "lat",
        "time",
        "station_name",
    ];
    let requests: Vec<String> = names.iter().map(|n| format!("dims {n}")).collect();
    let Some(lines) = oracle(&requests) else {
        return;
    };
    let nc = nc();
    for (n, line) in names.iter().zip(lines) {
        let v = nc.variable(n).unwrap();
        let got: Vec<String> = v
            .dims()
            .iter()
            .map(|d| format!("{}:{}:{}", d.name, d.len, u8::from(d.unlimited)))
            .collect();
        assert_eq!(got.join(" "), line, "{n}");
    }
    let temp = nc.variable("temp").unwrap();
    let dims: Vec<&str> = temp.dims().iter().map(|d| d.name.as_str()).collect();
    assert_eq!(dims, ["time", "level", "lat", "lon"]);
    assert!(temp.dims()[0].unlimited);
    let vars = nc.variables().unwrap();
    assert!(vars.iter().any(|v| v == "temp") && vars.iter().any(|v| v == "lat"));
    // Dimensions without a coordinate variable are not variables.
    for d in ["bnds", "max_elements", "obs", "name_strlen"] {
        assert!(!vars.iter().any(|v| v == d), "{d} listed in {vars:?}");
    }
    // A scalar variable.
    let s = nc.variable("scale_factor_var").unwrap();
    assert!(s.dims().is_empty());
    assert_eq!(s.get_var1::<f64>(&[]).unwrap(), 0.5);
    assert_eq!(s.get_var::<i32>().unwrap(), [0]);
}

#[test]
fn ragged_arrays_and_text_against_h5py() {
    let requests = vec![
        "rows ragged_mat".to_string(),
        "cfrows humidity row_size".to_string(),
        "text station_name".to_string(),
    ];
    let Some(lines) = oracle(&requests) else {
        return;
    };
    let nc = nc();
    let rows = nc.ragged_rows::<i32>("ragged_mat").unwrap();
    let text: Vec<String> = rows
        .iter()
        .map(|r| r.iter().map(i32::to_string).collect::<Vec<_>>().join(","))
        .collect();
    assert_eq!(text.join("|"), lines[0]);
    assert_eq!(rows[0].len(), 12); // the guide: the first row has 12 elements,
    assert_eq!(rows[1].len(), 7); // the second 7 (19 - 12)
    let rows = nc.cf_contiguous_rows::<f64>("humidity").unwrap();
    let text: Vec<String> = rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|x| format!("{x:?}"))
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    assert_eq!(text.join("|"), lines[1]);
    let chars = nc
        .variable("station_name")
        .unwrap()
        .read_text(NcForm::Whole)
        .unwrap();
    let hex: String = chars.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, lines[2]);
    // Text by section: the second station's name.
    let row = nc
        .variable("station_name")
        .unwrap()
        .read_text(NcForm::Section {
            start: &[1, 0],
            count: &[1, 4],
        })
        .unwrap();
    assert_eq!(row, b"beta");
    // netCDF-4 strings (variable-length), by subsampled and mapped access; any HDF5 file
    // opens as netCDF: here the BioC fixture's strings.
    let bioc = NcFile::open(fixture().with_file_name("bioc.h5")).unwrap();
    let v = bioc.variable("str/vlen_utf8").unwrap();
    let all = v.read_strings(NcForm::Whole).unwrap();
    assert_eq!(all, ["\u{e9}", "NA", "", "NA", "\u{65e5}\u{672c}"]);
    let sub = v
        .read_strings(NcForm::Subsampled {
            start: &[0],
            count: &[3],
            stride: &[2],
        })
        .unwrap();
    assert_eq!(sub, ["\u{e9}", "", "\u{65e5}\u{672c}"]);
    let rev = v
        .read_strings(NcForm::Mapped {
            start: &[1],
            count: &[2],
            stride: None,
            imap: Some(&[2]),
        })
        .unwrap();
    assert_eq!(rev, ["NA", "", ""]);
    // netcdf-c: a numeric read of a string variable is NC_EBADTYPE (NC_ECHAR is for char).
    assert_eq!(
        v.read::<f64>(NcForm::Whole).unwrap_err().kind(),
        ErrorKind::BadType
    );
    assert_eq!(
        nc.variable("temp")
            .unwrap()
            .read_strings(NcForm::Whole)
            .unwrap_err()
            .kind(),
        ErrorKind::Char
    );
}

#[test]
fn netcdf_errors() {
    let nc = nc();
    let temp = nc.variable("temp").unwrap();
    let e = temp
        .read::<f64>(NcForm::Element {
            index: &[3, 0, 0, 0],
        })
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(e.to_string().contains("NC_EINVALCOORDS"), "{e}");
    let e = temp
        .read::<f64>(NcForm::Section {
            start: &[0, 0, 0, 5],
            count: &[1, 1, 1, 6],
        })
        .unwrap_err();
    assert!(e.to_string().contains("NC_EEDGE"), "{e}");
    let e = temp
        .read::<f64>(NcForm::Subsampled {
            start: &[0, 0, 0, 0],
            count: &[1, 1, 1, 2],
            stride: &[1, 1, 1, 0],
        })
        .unwrap_err();
    assert!(e.to_string().contains("NC_ESTRIDE"), "{e}");
    assert!(e.to_string().starts_with("/temp"), "{e}");
    // Text and numbers do not convert.
    let e = nc
        .variable("station_name")
        .unwrap()
        .read::<f64>(NcForm::Whole)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Char);
    assert!(e.to_string().contains("NC_ECHAR"), "{e}");
    let e = temp.read_text(NcForm::Whole).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Char);
    // Unknown variable.
    assert_eq!(
        nc.variable("no_such").unwrap_err().kind(),
        ErrorKind::NotFound
    );
    // Broken ragged arrays say what is wrong.
    let e = nc.ragged_rows::<i32>("ragged_missing_index").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Convention);
    assert!(e.to_string().contains("no_such_variable"), "{e}");
    let e = nc.ragged_rows::<i32>("ragged_decreasing").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Convention);
    assert!(e.to_string().contains("non-decreasing"), "{e}");
    let e = nc.ragged_rows::<i32>("temp").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Convention);
    let e = nc.cf_contiguous_rows::<f32>("elev").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Convention);
}
