//! Printer tests: hand-built files against expected h5dump output, and the whole h5dump corpus
//! through files loaded by the reference library (the `dump_export` oracle), so the printer is
//! judged byte for byte before the Rust reader exists.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::memory::MemoryFile;
use super::model::*;
use super::*;

fn args(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}

fn ty(s: &str) -> h5::types::Datatype {
    s.parse().expect("datatype text")
}

/// A part of tall.h5, built by hand.
fn tall_like() -> MemoryFile {
    let mut f = MemoryFile::new();
    let root = f.root;
    f.add_attr(
        root,
        "attr1",
        ty("H5T_STD_I8BE"),
        Space::simple(&[10]),
        b"abcdefghi\0".to_vec(),
    );
    let mut a2 = Vec::new();
    for v in 0..4i32 {
        a2.extend_from_slice(&v.to_be_bytes());
    }
    f.add_attr(
        root,
        "attr2",
        ty("H5T_STD_I32BE"),
        Space::simple(&[2, 2]),
        a2,
    );
    let g1 = f.add_group(root, "g1");
    let g11 = f.add_group(g1, "g1.1");
    let mut d = Vec::new();
    for v in 0..20i32 {
        d.extend_from_slice(&v.to_be_bytes());
    }
    f.add_dataset(
        g11,
        "dset1.1.2",
        ty("H5T_STD_I32BE"),
        Space::simple(&[20]),
        d,
    );
    let g12 = f.add_group(g1, "g1.2");
    f.link(
        g12,
        "extlink",
        LinkTarget::External {
            file: "somefile".into(),
            path: "somepath".into(),
        },
    );
    let g2 = f.add_group(root, "g2");
    let mut d = Vec::new();
    for v in [1.0f32, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9] {
        d.extend_from_slice(&v.to_be_bytes());
    }
    f.add_dataset(g2, "dset2.1", ty("H5T_IEEE_F32BE"), Space::simple(&[10]), d);
    f.link(g2, "udlink", LinkTarget::UserDefined(187));
    f
}

fn dump_mem(f: MemoryFile, a: &[&str]) -> Outcome {
    let cell = Mutex::new(Some(f));
    let open = |_: &str| -> Result<Box<dyn DumpFile>, String> {
        cell.lock()
            .ok()
            .and_then(|mut c| c.take())
            .map(|f| Box::new(f) as Box<dyn DumpFile>)
            .ok_or_else(|| "no file".to_string())
    };
    run_with(&args(a), &open)
}

#[test]
fn hand_built_file_prints_like_h5dump() {
    let o = dump_mem(tall_like(), &["tall.h5"]);
    let want = r#"HDF5 "tall.h5" {
GROUP "/" {
   ATTRIBUTE "attr1" {
      DATATYPE  H5T_STD_I8BE
      DATASPACE  SIMPLE { ( 10 ) / ( 10 ) }
      DATA {
      (0): 97, 98, 99, 100, 101, 102, 103, 104, 105, 0
      }
   }
   ATTRIBUTE "attr2" {
      DATATYPE  H5T_STD_I32BE
      DATASPACE  SIMPLE { ( 2, 2 ) / ( 2, 2 ) }
      DATA {
      (0,0): 0, 1,
      (1,0): 2, 3
      }
   }
   GROUP "g1" {
      GROUP "g1.1" {
         DATASET "dset1.1.2" {
            DATATYPE  H5T_STD_I32BE
            DATASPACE  SIMPLE { ( 20 ) / ( 20 ) }
            DATA {
            (0): 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
            (17): 17, 18, 19
            }
         }
      }
      GROUP "g1.2" {
         EXTERNAL_LINK "extlink" {
            TARGETFILE "somefile"
            TARGETPATH "somepath"
         }
      }
   }
   GROUP "g2" {
      DATASET "dset2.1" {
         DATATYPE  H5T_IEEE_F32BE
         DATASPACE  SIMPLE { ( 10 ) / ( 10 ) }
         DATA {
         (0): 1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9
         }
      }
      USERDEFINED_LINK "udlink" {
         LINKCLASS 187
      }
   }
}
}
"#;
    assert_eq!(o.stdout, want);
    assert_eq!(o.status, 0);
}

#[test]
fn header_only_and_dataset_selection() {
    let o = dump_mem(tall_like(), &["-H", "-d", "/g2/dset2.1", "tall.h5"]);
    let want = r#"HDF5 "tall.h5" {
DATASET "/g2/dset2.1" {
   DATATYPE  H5T_IEEE_F32BE
   DATASPACE  SIMPLE { ( 10 ) / ( 10 ) }
}
}
"#;
    assert_eq!(o.stdout, want);
    let o = dump_mem(tall_like(), &["-d", "/nope", "tall.h5"]);
    assert_eq!(o.stdout, "HDF5 \"tall.h5\" {\n}\n");
    assert_eq!(o.status, 1);
    assert!(o
        .stderr
        .contains("h5dump error: unable to get link info from \"/nope\""));
}

#[test]
fn usage_and_missing_file() {
    let o = run_with(&args(&["-h"]), &|_| Err("none".into()));
    assert_eq!(o.stdout, USAGE);
    assert_eq!(o.status, 0);
    let o = run_with(&args(&["--enable-error-stack"]), &|_| Err("none".into()));
    assert_eq!(o.status, 1);
    assert!(o.stderr.contains("missing file name"));
    let o = run_with(&args(&["x.h5"]), &|_| Err("none".into()));
    assert_eq!(o.stderr, "h5dump error: unable to open file \"x.h5\"\n");
}

#[test]
fn file_drivers_h5dump_cannot_set_up_are_refused_as_it_refuses_them() {
    // What the reference h5dump 1.10.8 prints for `-f NAME` with each driver name.
    let run = |d: &str| dump_mem(tall_like(), &["-f", d, "tall.h5"]);
    for d in ["sec2", "stdio", "core", "log"] {
        let o = run(d);
        assert_eq!((o.status, o.stderr.as_str()), (0, ""), "{d}");
    }
    for d in ["direct", "windows", "mpio", "SEC2", "nonsense"] {
        let o = run(d);
        assert_eq!(o.status, 1, "{d}");
        assert_eq!(
            o.stderr,
            "h5dump error: unable to create FAPL for file access\n"
        );
        assert_eq!(o.stdout, "");
    }
    let o = run("ros3");
    assert_eq!(o.stderr, "h5dump error: unable to open file \"tall.h5\"\n");
    let o = run("hdfs");
    assert_eq!(o.stderr, "h5dump error: The HDFS VFD is not enabled.\n");
    assert_eq!(o.status, 1);
}

#[test]
fn getopt_follows_h5dump() {
    let Parsed::Run(c) = parse(&args(&[
        "-Hp",
        "-w0",
        "--dataset=/a[1,2;;3,3;]",
        "-d",
        "b",
        "-s",
        "1",
        "-c",
        "2",
        "f.h5",
    ])) else {
        panic!("parse failed");
    };
    assert!(!c.opts.display_data && c.opts.display_dcpl);
    assert_eq!(c.opts.ncols, 65535);
    assert_eq!(
        c.handlers[0],
        Handler::Dataset(
            "/a".into(),
            Some(Subset {
                start: Some(vec![1, 2]),
                stride: None,
                count: Some(vec![3, 3]),
                block: None
            })
        )
    );
    assert_eq!(
        c.handlers[1],
        Handler::Dataset(
            "b".into(),
            Some(Subset {
                start: Some(vec![1]),
                stride: None,
                count: Some(vec![2]),
                block: None
            })
        )
    );
    assert_eq!(c.files, vec!["f.h5".to_string()]);
}

// ----- the corpus, through the reference library ------------------------------------------

/// The shared corpus directory, if present.
pub(crate) fn corpus_dir() -> Option<PathBuf> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    for up in [
        "../../../shared/corpus/h5dump",
        "../../../../shared/corpus/h5dump",
    ] {
        let p = base.join(up);
        if p.join("INDEX.tsv").exists() {
            return Some(p);
        }
    }
    None
}

/// POSIX shell word splitting (quotes and backslashes), enough for INDEX.tsv.
pub(crate) fn shell_split(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut have = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                have = true;
                for d in chars.by_ref() {
                    if d == '\'' {
                        break;
                    }
                    cur.push(d);
                }
            }
            '"' => {
                have = true;
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '\\' => {
                            if let Some(&n) = chars.peek() {
                                if matches!(n, '"' | '\\' | '$' | '`') {
                                    cur.push(n);
                                    chars.next();
                                    continue;
                                }
                            }
                            cur.push('\\');
                        }
                        _ => cur.push(d),
                    }
                }
            }
            '\\' => {
                have = true;
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            c if c.is_whitespace() => {
                if have {
                    out.push(std::mem::take(&mut cur));
                    have = false;
                }
            }
            c => {
                have = true;
                cur.push(c);
            }
        }
    }
    if have {
        out.push(cur);
    }
    out
}

struct Row {
    expected: String,
    args: String,
    rc: String,
    checks: String,
    env: String,
}

fn rows(dir: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(dir.join("INDEX.tsv")).unwrap_or_default();
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let g = |i: usize| f.get(i).copied().unwrap_or("").to_string();
            Row {
                expected: g(0),
                args: g(2),
                rc: g(3),
                checks: g(4),
                env: g(5),
            }
        })
        .collect()
}

fn reference_passes(dir: &Path) -> BTreeSet<(String, String)> {
    let text = std::fs::read_to_string(dir.join("VERIFY_h5dump-1.10.8.tsv")).unwrap_or_default();
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.get(2) == Some(&"PASS")).then(|| (f[0].to_string(), f[1].to_string()))
        })
        .collect()
}

/// Run one corpus row through the printer with files exported by the reference library.
fn run_row(
    dir: &Path,
    row: &Row,
    cache: &Mutex<HashMap<String, Result<String, String>>>,
) -> Result<(), String> {
    let argv = shell_split(&row.args);
    let open = |name: &str| -> Result<Box<dyn DumpFile>, String> {
        let path = dir.join(name);
        if !path.exists() {
            return Err("no such file".into());
        }
        let key = path.display().to_string();
        let text = {
            let mut c = cache.lock().map_err(|_| "poisoned")?;
            c.entry(key.clone())
                .or_insert_with(|| {
                    h5_oracle::run_c("dump_export", &[&key], b"")
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                })
                .clone()
        }?;
        Ok(Box::new(MemoryFile::from_text(&text)?))
    };
    let o = run_with(&argv, &open);
    let mut notes = Vec::new();
    if !row.expected.is_empty() {
        let want = std::fs::read(dir.join(&row.expected)).unwrap_or_default();
        if o.stdout.as_bytes() != want.as_slice() {
            let w = String::from_utf8_lossy(&want);
            let first = w
                .lines()
                .zip(o.stdout.lines())
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .map(|(i, (a, b))| format!("line {}: want {:?} got {:?}", i + 1, a, b))
                .unwrap_or_else(|| format!("lengths {} vs {}", want.len(), o.stdout.len()));
            notes.push(format!("stdout: {}", first));
        }
    }
    if o.status.to_string() != row.rc {
        notes.push(format!("rc={} want {}", o.status, row.rc));
    }
    if let Some(n) = row.checks.split("stderr must contain: ").nth(1) {
        let needle = n.replace("\\\"", "\"");
        if !o.stderr.contains(&needle) {
            notes.push(format!("stderr lacks {:?}", needle));
        }
    }
    // "X.exp (vs F)" / "X.exp (compare to -o file F)": output file F must equal X.exp.
    for part in row
        .checks
        .split(".exp (")
        .skip(1)
        .zip(row.checks.split(".exp ("))
    {
        let (after, before) = part;
        let exp = format!("{}.exp", before.rsplit([' ', ';']).next().unwrap_or(""));
        let name = after
            .trim_start_matches("vs ")
            .trim_start_matches("compare to -o file ")
            .split([')', ';'])
            .next()
            .unwrap_or("");
        let want = std::fs::read(dir.join(&exp)).unwrap_or_default();
        match o.files.iter().find(|(n, _)| n == name) {
            Some((_, got)) if *got == want => {}
            Some(_) => notes.push(format!("{} differs from {}", name, exp)),
            None => notes.push(format!("no output file {}", name)),
        }
    }
    if notes.is_empty() {
        Ok(())
    } else {
        Err(notes.join("; "))
    }
}

/// The corpus rows this printer passes with reference-loaded files; the baseline file lists
/// rows that must keep passing (`H5_BLESS=1` rewrites it).
#[test]
fn corpus_through_reference_loader() {
    let Some(dir) = corpus_dir() else {
        eprintln!("corpus not found; skipped");
        return;
    };
    if h5_oracle::require("dump_export oracle", h5_oracle::c_program("dump_export")).is_none() {
        return;
    }
    let passes_ref = reference_passes(&dir);
    let cache = Mutex::new(HashMap::new());
    let mut passed = BTreeSet::new();
    let mut report = String::new();
    let mut total = 0;
    for row in rows(&dir) {
        let xml = shell_split(&row.args).iter().any(|a| {
            matches!(a.as_str(), "-x" | "-u" | "--xml" | "--use-dtd") || a.starts_with("--xml")
        });
        if xml
            || !row.env.is_empty()
            || !passes_ref.contains(&(row.expected.clone(), row.args.clone()))
        {
            continue;
        }
        total += 1;
        let key = format!("{}\t{}", row.expected, row.args);
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_row(&dir, &row, &cache)))
        {
            Ok(Ok(())) => {
                passed.insert(key);
            }
            Ok(Err(e)) => report.push_str(&format!("FAIL\t{}\t{}\n", key, e)),
            Err(_) => report.push_str(&format!("PANIC\t{}\n", key)),
        }
    }
    let out_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/h5-cli-reports");
    let _ = std::fs::create_dir_all(&out_dir);
    let _ = std::fs::write(out_dir.join("corpus_oracle_report.tsv"), &report);
    eprintln!(
        "corpus via reference loader: {} of {} rows pass",
        passed.len(),
        total
    );
    let baseline_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle_baseline.txt");
    if std::env::var_os("H5_BLESS").is_some() {
        let text: String = passed.iter().map(|k| format!("{}\n", k)).collect();
        std::fs::write(&baseline_path, text).expect("write baseline");
        return;
    }
    let baseline = std::fs::read_to_string(&baseline_path).unwrap_or_default();
    let lost: Vec<&str> = baseline
        .lines()
        .filter(|l| !l.is_empty() && !passed.contains(*l))
        .collect();
    assert!(
        lost.is_empty(),
        "rows that passed before now fail:\n{}",
        lost.join("\n")
    );
}

/// Print what one corpus command gives (`H5_DUMP_ARGS="-p tfilters.h5" cargo test debug_one`).
#[test]
fn debug_one() {
    let (Some(a), Some(dir)) = (std::env::var_os("H5_DUMP_ARGS"), corpus_dir()) else {
        return;
    };
    let row = Row {
        expected: String::new(),
        args: a.to_string_lossy().into_owned(),
        rc: String::new(),
        checks: String::new(),
        env: String::new(),
    };
    let argv = shell_split(&row.args);
    let open = |name: &str| -> Result<Box<dyn DumpFile>, String> {
        let key = dir.join(name).display().to_string();
        let text = h5_oracle::run_c("dump_export", &[&key], b"")
            .map(|b| String::from_utf8_lossy(&b).into_owned())?;
        Ok(Box::new(MemoryFile::from_text(&text)?))
    };
    match open(argv.last().map(String::as_str).unwrap_or("")) {
        Ok(_) => {}
        Err(e) => eprintln!("open error: {e}"),
    }
    let o = run_with(&argv, &open);
    print!("{}", o.stdout);
    eprint!("{}", o.stderr);
    eprintln!("status {}", o.status);
}

/// HDF5 2.x types as the 2.x h5dump prints them (h5dump-develop/tfloat16.ddl, tcomplex.ddl)
/// with `--compat=2.0`; by default the half float is described as 1.10.8 describes a float it
/// has no name for, and complex numbers (which 1.10.8 cannot read) keep the 2.x form.
#[test]
fn float16_and_complex_like_h5dump_2() {
    let mut f = MemoryFile::new();
    let root = f.root;
    let mut d = Vec::new();
    for v in [0x4c00u16, 0x3800, 0x3c00, 0x3e00] {
        d.extend_from_slice(&v.to_le_bytes());
    }
    f.add_dataset(root, "h", ty("H5T_IEEE_F16LE"), Space::simple(&[4]), d);
    let mut c = Vec::new();
    for (re, im) in [(10.0f32, 0.0f32), (1.1, -2.5)] {
        c.extend_from_slice(&re.to_le_bytes());
        c.extend_from_slice(&im.to_le_bytes());
    }
    f.add_dataset(
        root,
        "z",
        ty("H5T_COMPLEX { H5T_IEEE_F32LE }"),
        Space::simple(&[2]),
        c,
    );
    let o = dump_mem(f.clone(), &["--compat=2.0", "-m", "%.6f", "-w80", "t.h5"]);
    let want = r#"HDF5 "t.h5" {
GROUP "/" {
   DATASET "h" {
      DATATYPE  H5T_IEEE_F16LE
      DATASPACE  SIMPLE { ( 4 ) / ( 4 ) }
      DATA {
      (0): 16.000000, 0.500000, 1.000000, 1.500000
      }
   }
   DATASET "z" {
      DATATYPE  H5T_COMPLEX_IEEE_F32LE
      DATASPACE  SIMPLE { ( 2 ) / ( 2 ) }
      DATA {
      (0): 10.000000+0.000000i, 1.100000-2.500000i
      }
   }
}
}
"#;
    assert_eq!(o.stdout, want);
    let o = dump_mem(f, &["-m", "%.6f", "-w80", "t.h5"]);
    let want = want.replace(
        "H5T_IEEE_F16LE",
        "16-bit little-endian floating-point 16-bit precision",
    );
    assert_eq!(o.stdout, want);
}

/// A file with old object and region references: a dataset `g/d`, object references to it,
/// to its group and a null one, and a point region of `d`.
fn refs_file() -> MemoryFile {
    let mut f = MemoryFile::new();
    let root = f.root;
    let g = f.add_group(root, "g");
    let d = f.add_dataset(g, "d", ty("H5T_STD_U8LE"), Space::simple(&[2]), vec![1, 2]);
    let mut r = Vec::new();
    for id in [d, g, 0] {
        r.extend_from_slice(&id.to_le_bytes());
    }
    f.refs
        .insert(d.to_le_bytes().to_vec(), RefTarget::Object(d));
    f.refs
        .insert(g.to_le_bytes().to_vec(), RefTarget::Object(g));
    f.add_dataset(
        root,
        "refs",
        ty("H5T_REFERENCE { H5T_STD_REF_OBJECT }"),
        Space::simple(&[3]),
        r,
    );
    let key = [7u8; 12].to_vec();
    f.refs.insert(
        key.clone(),
        RefTarget::Region {
            dataset: d,
            selection: Region::Points(vec![vec![1]]),
        },
    );
    f.add_dataset(
        root,
        "regs",
        ty("H5T_REFERENCE { H5T_STD_REF_DSETREG }"),
        Space::simple(&[1]),
        key,
    );
    f
}

/// Old references with `--compat=2.0`: read as `H5T_STD_REF`, named by file and path, a
/// dataset's data printed, a group's not; a region's values only with `-R`. (A point region
/// opens with `{` and no space when it is the first element: the renderer puts the element
/// separator only after the first element, as h5dump does.)
#[test]
fn references_like_h5dump_2() {
    let head = r#"HDF5 "t.h5" {
GROUP "/" {
   GROUP "g" {
      DATASET "d" {
         DATATYPE  H5T_STD_U8LE
         DATASPACE  SIMPLE { ( 2 ) / ( 2 ) }
         DATA {
         (0): 1, 2
         }
      }
   }
   DATASET "refs" {
      DATATYPE  H5T_REFERENCE { H5T_STD_REF_OBJECT }
      DATASPACE  SIMPLE { ( 3 ) / ( 3 ) }
      DATA {
         DATASET "t.h5/g/d"
            DATA {
            (0): 1, 2
            }
         GROUP "t.h5/g"
         NULL
      }
   }
   DATASET "regs" {
      DATATYPE  H5T_REFERENCE { H5T_STD_REF_DSETREG }
      DATASPACE  SIMPLE { ( 1 ) / ( 1 ) }
      DATA {
         DATASET "t.h5/g/d"{
            REGION_TYPE POINT  (1)
            DATATYPE  H5T_STD_U8LE
            DATASPACE  SIMPLE { ( 2 ) / ( 2 ) }
"#;
    let o = dump_mem(refs_file(), &["--compat=2.0", "t.h5"]);
    let want = format!("{head}         }}\n      }}\n   }}\n}}\n}}\n");
    assert_eq!(o.stdout, want);
    let o = dump_mem(refs_file(), &["--compat", "2", "-R", "t.h5"]);
    let data = "            DATA {\n               2\n            }\n";
    let want = format!("{head}{data}         }}\n      }}\n   }}\n}}\n}}\n");
    assert_eq!(o.stdout, want);
    // 1.10.8 names old references by kind, address and first path, without the file name.
    let o = dump_mem(refs_file(), &["--compat=1.10", "t.h5"]);
    assert!(o.stdout.contains(" \"/g\"\n"), "{}", o.stdout);
    assert!(o.stdout.contains("DATASET \"/g/d\"{\n"), "{}", o.stdout);
    assert!(!o.stdout.contains("t.h5/"), "{}", o.stdout);
}

/// `--compat` takes 1.10, 2 or 2.0; anything else is a usage error. `-h` prints h5dump's
/// usage alone, `--help` adds the options h5dump has not.
#[test]
fn compat_option_and_help() {
    let run = |a: &[&str]| dump_mem(tall_like(), a);
    assert_eq!(run(&["--compat=2.0", "t.h5"]).status, 0);
    assert_eq!(run(&["--compat", "1.10", "t.h5"]).status, 0);
    let bad = run(&["--compat=3", "t.h5"]);
    assert_eq!(bad.status, 1);
    assert_eq!(bad.stdout, USAGE);
    assert!(bad.stderr.contains("--compat"), "{}", bad.stderr);
    assert_eq!(run(&["-h"]).stdout, USAGE);
    let help = run(&["--help"]);
    assert_eq!(help.status, 0);
    assert_eq!(help.stdout, format!("{USAGE}{USAGE_OURS}"));
    assert!(USAGE_OURS.contains("--compat=VERSION"));
    assert!(!USAGE.contains("--compat"));
}

/// Names of the floats 1.10.8 does not know: described in 1.10 mode, named in 2.0 mode.
#[test]
fn float_names_by_compat() {
    use super::ddl::{atomic_name, Compat};
    use h5::types::predefined as p;
    let cases = [
        (
            p::IEEE_F16BE,
            "H5T_IEEE_F16BE",
            "16-bit big-endian floating-point 16-bit precision",
        ),
        (
            p::FLOAT_BFLOAT16LE,
            "H5T_FLOAT_BFLOAT16LE",
            "16-bit little-endian floating-point 16-bit precision",
        ),
        (
            p::FLOAT_F8E4M3,
            "H5T_FLOAT_F8E4M3",
            "8-bit floating-point 8-bit precision",
        ),
        (p::IEEE_F64LE, "H5T_IEEE_F64LE", "H5T_IEEE_F64LE"),
    ];
    for (t, v2, v110) in cases {
        let dt = h5::types::Datatype::Float(t);
        assert_eq!(atomic_name(&dt, Compat::V2_0), v2);
        assert_eq!(atomic_name(&dt, Compat::V1_10), v110);
    }
}

/// Revised references (`H5T_STD_REF`) print as HDF5 2.x prints them in both modes: at the top
/// level dereferenced, inside an array by name only.
#[test]
fn revised_references_in_both_modes() {
    let mut f = refs_file();
    let root = f.root;
    let g = crate::dump::resolve(&f, "g").expect("g");
    let d = crate::dump::resolve(&f, "g/d").expect("g/d");
    let key = |b: u8| vec![b; 64];
    f.refs.insert(key(1), RefTarget::Object(d));
    f.refs.insert(key(2), RefTarget::Object(g));
    let mut top = key(1);
    top.extend_from_slice(&[0; 64]);
    f.add_dataset(
        root,
        "rev",
        ty("H5T_REFERENCE { H5T_STD_REF }"),
        Space::simple(&[2]),
        top,
    );
    let mut arr = key(2);
    arr.extend_from_slice(&key(1));
    f.add_dataset(
        root,
        "revarr",
        ty("H5T_ARRAY { [2] H5T_REFERENCE { H5T_STD_REF } }"),
        Space::Scalar,
        arr,
    );
    let want = r#"   DATASET "rev" {
      DATATYPE  H5T_REFERENCE { H5T_STD_REF }
      DATASPACE  SIMPLE { ( 2 ) / ( 2 ) }
      DATA {
         DATASET "t.h5/g/d"
            DATA {
            (0): 1, 2
            }
         NULL
      }
   }
   DATASET "revarr" {
      DATATYPE  H5T_ARRAY { [2] H5T_REFERENCE { H5T_STD_REF } }
      DATASPACE  SCALAR
      DATA {
      (0): [ GROUP "t.h5/g", DATASET "t.h5/g/d" ]
      }
   }
"#;
    for mode in ["--compat=1.10", "--compat=2.0"] {
        let o = dump_mem(f.clone(), &[mode, "t.h5"]);
        assert!(o.stdout.contains(want), "{mode}:\n{}", o.stdout);
    }
}
