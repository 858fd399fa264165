//! ritsuko itself as the oracle: its HDF5 test cases (ArtifactDB/ritsuko `tests/src/hdf5`,
//! `tests/src/choose_missing_placeholder.cpp`) rewritten as one h5py-made file
//! (`support/ritsuko_cases.py`), plus the cases where ritsuko and the deprecated policy differ,
//! each run through ritsuko (`support/ritsuko_driver.cpp`, built here against ritsuko's headers
//! from the `assorthead` PyPI package and libhdf5's C++ library) and through h5-bioc.
//!
//! Every case must agree (same outcome, same values, and for errors ritsuko's test's message
//! substring in ours); ritsuko must meet every expectation of its own tests; and the
//! deprecated policy's reading ([`Rules::DeprecatedPolicy`]) must differ from ritsuko's on
//! exactly the cases marked so.

use std::path::{Path, PathBuf};
use std::process::Command;

use h5_bioc::ritsuko::{self, vls};
use h5_bioc::{check_datatype_with, Choice, Placeholder, Reader, Rules};
use h5_io::{Attribute, Dataset, File};
use h5_types::{Datatype, H5Type};

/// The assorthead release carrying the ritsuko headers (v0.6.1) the driver builds against
/// (installed by `cargo xtask install-oracles`, `xtask/src/oracle_bioc.rs`).
const ASSORTHEAD_VERSION: &str = "0.2.2";

fn support(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/support")
        .join(name)
}

fn output(cmd: &mut Command) -> Result<String, String> {
    let o = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "{cmd:?}: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&o.stdout).into_owned())
}

/// ritsuko's include directory, from assorthead.
fn ritsuko_headers(py: &Path) -> Result<PathBuf, String> {
    let out = output(Command::new(py).args([
        "-c",
        "import importlib.metadata as m, assorthead; print(m.version('assorthead')); print(assorthead.includes())",
    ]))?;
    let mut lines = out.lines();
    let version = lines.next().unwrap_or_default();
    if version != ASSORTHEAD_VERSION {
        return Err(format!(
            "assorthead {version} installed, {ASSORTHEAD_VERSION} wanted"
        ));
    }
    let dir = PathBuf::from(lines.next().unwrap_or_default());
    if !dir.join("ritsuko/hdf5/hdf5.hpp").is_file() {
        return Err(format!("no ritsuko headers under {}", dir.display()));
    }
    Ok(dir)
}

/// Build the driver (once per source and header set) and return its path.
fn driver(py: &Path) -> Result<PathBuf, String> {
    let include = ritsuko_headers(py)?;
    let src = support("ritsuko_driver.cpp");
    let text = std::fs::read(&src).map_err(|e| format!("{}: {e}", src.display()))?;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in text.iter().chain(include.to_string_lossy().as_bytes()) {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let exe = dir.join(format!("ritsuko_driver-{hash:016x}"));
    if exe.exists() {
        return Ok(exe);
    }
    let flags = output(Command::new("pkg-config").args(["--cflags", "--libs", "hdf5"]))
        .map_err(|e| format!("libhdf5 not found by pkg-config (install libhdf5-dev): {e}"))?;
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let tmp = dir.join(format!(
        "ritsuko_driver-{hash:016x}.tmp{}",
        std::process::id()
    ));
    output(
        Command::new(&cxx)
            .args(["-std=c++17", "-O1", "-o"])
            .arg(&tmp)
            .arg(&src)
            .arg(format!("-I{}", include.display()))
            .args(flags.split_whitespace())
            .arg("-lhdf5_cpp")
            .args(flags.split_whitespace().filter(|f| f.starts_with("-l"))),
    )
    .map_err(|e| format!("building the ritsuko driver: {e}"))?;
    std::fs::rename(&tmp, &exe).map_err(|e| format!("{}: {e}", exe.display()))?;
    Ok(exe)
}

/// One case of `ritsuko_cases.py`.
struct Case {
    name: String,
    /// ritsuko's test's expectation: `Some(Ok(result))`, `Some(Err(substring))`, or `None`.
    expect: Option<Result<String, String>>,
    policy_differs: bool,
    query: Vec<String>,
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn hex_list(v: &[Vec<u8>]) -> String {
    v.iter().map(|s| hex(s)).collect::<Vec<_>>().join(",")
}

fn truth(b: bool) -> String {
    b.to_string()
}

type Answer = Result<String, String>;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Our numbers, formatted as the driver formats them.
trait Format {
    fn format(&self) -> String;
}
macro_rules! format_int {
    ($($t:ty),*) => {$(impl Format for $t {
        fn format(&self) -> String {
            self.to_string()
        }
    })*};
}
format_int!(i8, u8, i16, u16, i32, u32, i64, u64);
impl Format for f64 {
    fn format(&self) -> String {
        format!("{:016x}", self.to_bits())
    }
}
impl Format for f32 {
    fn format(&self) -> String {
        f64::from(*self).format()
    }
}

fn join<T: Format>(v: &[T]) -> String {
    v.iter().map(Format::format).collect::<Vec<_>>().join(",")
}

struct Ours {
    file: File,
}

enum Obj {
    Dataset(Dataset),
    Attribute(Attribute),
}

impl Ours {
    fn dataset(&self, path: &str) -> Result<Dataset, String> {
        self.file.dataset(path).map_err(err)
    }

    fn obj(&self, path: &str, attr: &str) -> Result<Obj, String> {
        if attr == "-" {
            return self.dataset(path).map(Obj::Dataset);
        }
        let a = match self.file.dataset(path) {
            Ok(d) => d.attr(attr),
            Err(_) => self.file.group(path).and_then(|g| g.attr(attr)),
        };
        a.map(Obj::Attribute).map_err(err)
    }

    fn datatype(&self, path: &str, attr: &str) -> Result<Datatype, String> {
        Ok(match self.obj(path, attr)? {
            Obj::Dataset(d) => d.datatype().clone(),
            Obj::Attribute(a) => a.datatype().clone(),
        })
    }

    fn numbers<T: H5Type + Format>(&self, path: &str, attr: &str) -> Answer {
        let v: Vec<T> = match self.obj(path, attr)? {
            Obj::Dataset(d) => d.read::<T>().map_err(err)?,
            Obj::Attribute(a) => a.read::<T>().map_err(err)?,
        };
        Ok(join(&v))
    }

    fn choose<T: H5Type + Placeholder + Format>(
        &self,
        path: &str,
        rules: Rules,
        skip_nan: bool,
    ) -> Answer {
        let v: Vec<T> = self.dataset(path)?.read::<T>().map_err(err)?;
        Ok(T::choose_with(&v, Choice { rules, skip_nan })
            .map_or_else(|| "none".to_string(), |p| p.format()))
    }

    /// ritsuko's masked choice: the values whose mask is 0.
    fn choose_masked<T: H5Type + Placeholder + Format>(
        &self,
        path: &str,
        mask: &str,
        rules: Rules,
        skip_nan: bool,
    ) -> Answer {
        let v: Vec<T> = self.dataset(path)?.read::<T>().map_err(err)?;
        let m: Vec<u8> = self.dataset(mask)?.read::<u8>().map_err(err)?;
        let kept: Vec<T> = v
            .into_iter()
            .zip(m)
            .filter(|(_, m)| *m == 0)
            .map(|(x, _)| x)
            .collect();
        Ok(T::choose_with(&kept, Choice { rules, skip_nan })
            .map_or_else(|| "none".to_string(), |p| p.format()))
    }

    fn answer(&self, q: &[String], rules: Rules) -> Answer {
        let arg = |i: usize| q.get(i).map(String::as_str).unwrap_or("");
        let num = |i: usize| arg(i).parse::<u64>().map_err(err);
        let reader = Reader::new().rules(rules);
        match arg(0) {
            "int_limit" => {
                let dt = self.datatype(arg(1), arg(2))?;
                let (p, signed) = (num(3)? as usize, arg(4) == "1");
                let ours = match (p, signed) {
                    (8, true) => check_datatype_with::<i8>(&dt, rules),
                    (16, true) => check_datatype_with::<i16>(&dt, rules),
                    (32, true) => check_datatype_with::<i32>(&dt, rules),
                    (64, true) => check_datatype_with::<i64>(&dt, rules),
                    (8, false) => check_datatype_with::<u8>(&dt, rules),
                    (16, false) => check_datatype_with::<u16>(&dt, rules),
                    (32, false) => check_datatype_with::<u32>(&dt, rules),
                    (64, false) => check_datatype_with::<u64>(&dt, rules),
                    _ => return Err(format!("no Rust integer of {p} bits")),
                };
                if rules == Rules::Ritsuko {
                    assert_eq!(
                        ours.is_err(),
                        ritsuko::exceeds_integer_limit(&dt, p, signed),
                        "{q:?}"
                    );
                }
                Ok(truth(ours.is_err()))
            }
            "float_limit" => {
                let dt = self.datatype(arg(1), arg(2))?;
                let p = num(3)? as usize;
                let ours = match p {
                    32 => check_datatype_with::<f32>(&dt, rules).is_err(),
                    64 => check_datatype_with::<f64>(&dt, rules).is_err(),
                    // No Rust float type under 32 bits: ritsuko's function alone.
                    _ => ritsuko::exceeds_float_limit(&dt, p),
                };
                if rules == Rules::Ritsuko {
                    assert_eq!(ours, ritsuko::exceeds_float_limit(&dt, p), "{q:?}");
                }
                Ok(truth(ours))
            }
            "utf8" => Ok(truth(ritsuko::is_utf8_string(
                &self.datatype(arg(1), arg(2))?,
            ))),
            "load_str" => match self.obj(arg(1), arg(2))? {
                Obj::Dataset(d) => {
                    let m = reader.read::<Vec<u8>>(&d).map_err(err)?;
                    Ok(hex_list(m.values()))
                }
                Obj::Attribute(a) => ritsuko::load_string_attribute(&a)
                    .map(|v| hex_list(&v))
                    .map_err(err),
            },
            "validate_str" => match self.obj(arg(1), arg(2))? {
                Obj::Dataset(d) => ritsuko::load_string_dataset(&d).map(|_| "valid".into()),
                Obj::Attribute(a) => ritsuko::load_string_attribute(&a).map(|_| "valid".into()),
            }
            .map_err(err),
            "load_num" => match arg(3) {
                "i8" => self.numbers::<i8>(arg(1), arg(2)),
                "u8" => self.numbers::<u8>(arg(1), arg(2)),
                "i16" => self.numbers::<i16>(arg(1), arg(2)),
                "i32" => self.numbers::<i32>(arg(1), arg(2)),
                "f64" => self.numbers::<f64>(arg(1), arg(2)),
                t => Err(format!("unknown type {t}")),
            },
            "num_ph" => {
                let d = self.dataset(arg(1))?;
                let a = d.attr(arg(2)).map_err(err)?;
                ritsuko::check_numeric_placeholder(&d, &a, arg(3) == "1")
                    .map(|_| "valid".into())
                    .map_err(err)
            }
            "load_num_ph" => {
                let d = self.dataset(arg(1))?;
                let Ok(a) = d.attr(arg(2)) else {
                    return Ok("none".into());
                };
                ritsuko::check_numeric_placeholder(&d, &a, false).map_err(err)?;
                match arg(3) {
                    "i32" => a.read::<i32>().map(|v| join(&v)).map_err(err),
                    "f64" => a.read::<f64>().map(|v| join(&v)).map_err(err),
                    t => Err(format!("unknown type {t}")),
                }
            }
            "str_ph" => {
                let a = self.dataset(arg(1))?.attr(arg(2)).map_err(err)?;
                ritsuko::check_string_placeholder(&a)
                    .map(|_| "valid".into())
                    .map_err(err)
            }
            "load_str_ph" => ritsuko::string_placeholder(&self.dataset(arg(1))?, arg(2))
                .map(|p| p.map_or_else(|| "none".into(), |p| hex(&p)))
                .map_err(err),
            "float_mask" | "str_mask" => {
                let d = self.dataset(arg(1))?;
                let r = reader.placeholder_name(arg(2));
                let mask = if arg(0) == "float_mask" {
                    r.read::<f64>(&d).map(|m| m.missing().to_vec())
                } else {
                    r.read::<Vec<u8>>(&d).map(|m| m.missing().to_vec())
                };
                mask.map(|m| m.iter().map(|&b| if b { '1' } else { '0' }).collect())
                    .map_err(err)
            }
            "vls_pointers" => {
                let d = self.dataset(&format!("{}/{}", arg(1), arg(2)))?;
                vls::check_pointers(&d, num(3)? as usize, num(4)? as usize)
                    .map(|_| "valid".into())
                    .map_err(err)
            }
            "vls_heap" => vls::check_heap(&self.dataset(&format!("{}/{}", arg(1), arg(2)))?)
                .map(|_| "valid".into())
                .map_err(err),
            "vls_read" => {
                let p = self.dataset(&format!("{}/{}", arg(1), arg(2)))?;
                let h = self.dataset(&format!("{}/{}", arg(1), arg(3)))?;
                vls::read(&p, &h).map(|v| hex_list(&v)).map_err(err)
            }
            "vls_validate" => {
                let p = self.dataset(&format!("{}/{}", arg(1), arg(2)))?;
                vls::validate(&p, num(3)?)
                    .map(|_| "valid".into())
                    .map_err(err)
            }
            "choose_int" => match arg(2) {
                "i8" => self.choose::<i8>(arg(1), rules, false),
                "u8" => self.choose::<u8>(arg(1), rules, false),
                "u16" => self.choose::<u16>(arg(1), rules, false),
                "i32" => self.choose::<i32>(arg(1), rules, false),
                t => Err(format!("unknown type {t}")),
            },
            "choose_float" => match arg(2) {
                "f32" => self.choose::<f32>(arg(1), rules, arg(3) == "1"),
                _ => self.choose::<f64>(arg(1), rules, arg(3) == "1"),
            },
            "choose_int_mask" => self.choose_masked::<i32>(arg(1), arg(2), rules, false),
            "choose_float_mask" => self.choose_masked::<f64>(arg(1), arg(2), rules, arg(3) == "1"),
            c => Err(format!("unknown command {c}")),
        }
    }
}

/// Whether two answers agree: same outcome, same result; errors both carrying the substring
/// ritsuko's test looks for.
fn agree(theirs: &Answer, ours: &Answer, substring: Option<&str>) -> bool {
    match (theirs, ours) {
        (Ok(a), Ok(b)) => a == b,
        (Err(a), Err(b)) => substring.is_none_or(|s| a.contains(s) && b.contains(s)),
        _ => false,
    }
}

fn short(a: &Answer) -> String {
    let s = match a {
        Ok(v) => format!("ok {v}"),
        Err(e) => format!("err {e}"),
    };
    s.chars().take(160).collect()
}

#[test]
fn ritsuko_test_cases_agree() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let Some(exe) = h5_oracle::require("ritsuko (assorthead + libhdf5_cpp)", driver(&py)) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("h5-bioc-ritsuko-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cases.h5");
    let script = support("ritsuko_cases.py");
    let listing = h5_oracle::run(
        &py,
        &[script.to_str().unwrap(), path.to_str().unwrap()],
        b"",
    )
    .expect("ritsuko_cases.py");
    let cases: Vec<Case> = String::from_utf8(listing)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert!(f.len() >= 4, "{l}");
            let expect = match f[1].split_once(':') {
                Some(("ok", v)) => Some(Ok(v.to_string())),
                Some(("err", v)) => Some(Err(v.to_string())),
                _ => None,
            };
            Case {
                name: f[0].to_string(),
                expect,
                policy_differs: f[2] == "diff",
                query: f[3..].iter().map(|s| s.to_string()).collect(),
            }
        })
        .collect();
    let queries: String = cases.iter().map(|c| c.query.join("\t") + "\n").collect();
    let out = h5_oracle::run(&exe, &[path.to_str().unwrap()], queries.as_bytes())
        .expect("ritsuko driver");
    let theirs: Vec<Answer> = String::from_utf8_lossy(&out)
        .lines()
        .map(|l| match l.split_once('\t') {
            Some(("ok", v)) => Ok(v.to_string()),
            Some((_, e)) => Err(e.to_string()),
            None => Err(l.to_string()),
        })
        .collect();
    assert_eq!(theirs.len(), cases.len(), "one answer a case");

    let ours = Ours {
        file: File::open(&path).unwrap(),
    };
    let (mut expected, mut met, mut agreeing, mut policy_as_marked) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for (c, t) in cases.iter().zip(&theirs) {
        let substring = match &c.expect {
            Some(Err(s)) if !s.is_empty() => Some(s.as_str()),
            _ => None,
        };
        if let Some(e) = &c.expect {
            expected += 1;
            let ok = match (e, t) {
                (Ok(a), Ok(b)) => a == b,
                (Err(s), Err(m)) => m.contains(s.as_str()),
                _ => false,
            };
            if ok {
                met += 1;
            } else {
                failures.push(format!(
                    "{}: ritsuko's test expects {:?}, ritsuko says {}",
                    c.name,
                    e.as_ref().map(|s| &s[..s.len().min(80)]),
                    short(t)
                ));
            }
        }
        let mine = ours.answer(&c.query, Rules::Ritsuko);
        if agree(t, &mine, substring) {
            agreeing += 1;
        } else {
            failures.push(format!(
                "{}: ritsuko {} / h5-bioc {}",
                c.name,
                short(t),
                short(&mine)
            ));
        }
        let policy = ours.answer(&c.query, Rules::DeprecatedPolicy);
        let differs = !agree(&mine, &policy, None);
        if differs == c.policy_differs {
            policy_as_marked += 1;
        } else {
            failures.push(format!(
                "{}: the deprecated policy {} ritsuko's reading (ritsuko {} / policy {})",
                c.name,
                if differs {
                    "unexpectedly differs from"
                } else {
                    "was expected to differ from"
                },
                short(&mine),
                short(&policy)
            ));
        }
    }
    let n = cases.len();
    let marked = cases.iter().filter(|c| c.policy_differs).count();
    println!("ritsuko's own test expectations met by ritsuko: {met} of {expected}");
    println!("cases where h5-bioc (Rules::Ritsuko) agrees with ritsuko: {agreeing} of {n}");
    println!(
        "cases where Rules::DeprecatedPolicy differs exactly as marked: {policy_as_marked} of {n} ({marked} marked as differing)"
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
