//! `h5 repack` over the reference library's h5dump test files: every file our reader reads is
//! repacked (in the compatible format, in the latest format, and with filters that chunk
//! every dataset), and the reference `h5dump` prints the same text for OUT as for IN: the
//! same objects, attributes, types and DATA. Only what legitimately differs is normalized:
//! the file name in the first line and object addresses (`DATASET 1234 "/path"` in reference
//! output, `"#1234"` names of unlinked committed datatypes). A last run compares
//! `h5dump -p -H` (layouts, chunk shapes, filters, fill values, allocation times) with the
//! `SIZE` and `OFFSET` lines of storage layouts normalized; virtual datasets are left out of
//! it (the writer stores their data instead).
//!
//! Each run happens in two scratch folders holding symbolic links to every corpus file: IN is
//! dumped in the first, OUT is written over its name in the second and dumped there, so
//! external links (to other corpus files or to the file itself) resolve alike.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Files that are not compared, and why. Each is a file the reference h5dump itself cannot
/// print whole with no options (so there is nothing to compare against), or one our reader
/// does not read. Every other corpus file must repack to an identical dump.
const EXCEPTIONS: &[(&str, &str)] = &[
    // h5dump needs driver options (--filedriver) for these family, multi and split members.
    (
        "tfamily00000.h5",
        "family member: h5dump needs --filedriver=family",
    ),
    ("tfamily00001.h5", "family member"),
    ("tfamily00002.h5", "family member"),
    ("tfamily00003.h5", "family member"),
    ("tfamily00004.h5", "family member"),
    ("tfamily00005.h5", "family member"),
    ("tfamily00006.h5", "family member"),
    ("tfamily00007.h5", "family member"),
    ("tfamily00008.h5", "family member"),
    ("tfamily00009.h5", "family member"),
    ("tfamily00010.h5", "family member"),
    (
        "tmulti-b.h5",
        "multi-file member: h5dump needs --filedriver=multi",
    ),
    ("tmulti-g.h5", "multi-file member"),
    ("tmulti-l.h5", "multi-file member"),
    ("tmulti-o.h5", "multi-file member"),
    ("tmulti-r.h5", "multi-file member"),
    ("tmulti-s.h5", "multi-file member"),
    (
        "tsplit_file-m.h5",
        "split-file member: h5dump needs --filedriver=split",
    ),
    ("tsplit_file-r.h5", "split-file member"),
    // Files the reference h5dump fails on (exit status 1): bad data by design.
    (
        "filter_fail.h5",
        "h5dump fails: the data needs a filter that fails by design",
    ),
    (
        "tCVE_2018_11206_fill_new.h5",
        "h5dump fails: a malformed fill value (CVE reproducer)",
    ),
    (
        "tCVE_2018_11206_fill_old.h5",
        "h5dump fails: a malformed fill value (CVE reproducer)",
    ),
    (
        "tfilters.h5",
        "h5dump fails: two datasets need filters it lacks (szip, a test filter)",
    ),
    (
        "tudfilter.h5",
        "h5dump fails: the data needs the library's test plugin filter",
    ),
    // Too big to compare as text.
    (
        "tbigdims.h5",
        "h5dump prints gigabytes (a dataset of huge dimensions)",
    ),
    // Our reader cannot read it: it stops at link names longer than its local-heap string
    // limit (64 KiB), so the file is not one "we read".
    (
        "tlonglinks.h5",
        "our reader rejects its local heap strings longer than 64 KiB",
    ),
];

fn corpus() -> Option<PathBuf> {
    let p = std::env::var_os("H5_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/corpus/h5dump"));
    if p.is_dir() {
        Some(p)
    } else if h5_oracle::oracles_required() {
        panic!("the h5dump corpus is missing at {}", p.display());
    } else {
        eprintln!("skipped: no corpus at {}", p.display());
        None
    }
}

/// A scratch folder with symbolic links to every corpus file.
fn scratch(corpus: &Path, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("h5-repack-corpus-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for e in std::fs::read_dir(corpus).unwrap() {
        let e = e.unwrap();
        std::os::unix::fs::symlink(e.path(), d.join(e.file_name())).unwrap();
    }
    d
}

/// `h5dump NAME` in `dir`: its text, or `None` when it fails, takes over a minute or prints
/// more than 20 MB.
fn dump(h5dump: &Path, args: &[&str], dir: &Path, name: &str) -> Option<String> {
    let out_path = dir.join(format!(".{name}.dump"));
    let out = std::fs::File::create(&out_path).unwrap();
    let status = Command::new("timeout")
        .arg("60")
        .arg(h5dump)
        .args(args)
        .arg(name)
        .current_dir(dir)
        .stdout(out)
        .stderr(Stdio::null())
        .status()
        .ok()?;
    let len = std::fs::metadata(&out_path).ok()?.len();
    let text = (status.success() && len < 20_000_000)
        .then(|| String::from_utf8_lossy(&std::fs::read(&out_path).unwrap()).into_owned());
    let _ = std::fs::remove_file(&out_path);
    text
}

/// The dump without its first line, object addresses replaced, and (under `-p`) the
/// `SIZE` and `OFFSET` lines of storage layouts (where the data is and how well it
/// compressed) replaced.
fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines().skip(1) {
        let mut l = line.to_owned();
        let t = l.trim_start();
        if t.starts_with("SIZE ") || t.starts_with("OFFSET ") {
            let indent = l.len() - t.len();
            let word = t.split(' ').next().unwrap_or_default().to_owned();
            l = format!("{}{word} X", &l[..indent]);
        }
        // Reference output: `DATASET 1234 "/path"`, `GROUP 800 "/g"`, ...
        for kw in ["DATASET ", "GROUP ", "DATATYPE ", "OBJECT "] {
            let mut from = 0;
            while let Some(i) = l[from..].find(kw) {
                let s = from + i + kw.len();
                let digits = l[s..].bytes().take_while(u8::is_ascii_digit).count();
                if digits > 0 && l[s + digits..].starts_with(' ') {
                    l.replace_range(s..s + digits, "ADDR");
                }
                from = s;
            }
        }
        // Unlinked committed datatypes are named by address: "#1234" or "/#1234".
        let mut from = 0;
        while let Some(i) = l[from..].find('#') {
            let s = from + i + 1;
            let digits = l[s..].bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0 {
                l.replace_range(s..s + digits, "ADDR");
            }
            from = s;
        }
        out.push_str(&l);
        out.push('\n');
    }
    out
}

fn first_difference(a: &str, b: &str) -> String {
    let (la, lb): (Vec<_>, Vec<_>) = (a.lines().collect(), b.lines().collect());
    for i in 0..la.len().max(lb.len()) {
        let (x, y) = (la.get(i), lb.get(i));
        if x != y {
            return format!("line {}: IN {:?} / OUT {:?}", i + 2, x, y);
        }
    }
    String::new()
}

fn run(label: &str, options: &[&str]) {
    run_with(label, options, &[], &[]);
}

/// Repack every corpus file with `options` and compare `h5dump DUMP_ARGS` of IN and OUT,
/// skipping [`EXCEPTIONS`] and `more_exceptions`.
fn run_with(label: &str, options: &[&str], dump_args: &[&str], more_exceptions: &[(&str, &str)]) {
    let Some(corpus) = corpus() else { return };
    let Some(h5dump) = h5_oracle::require("h5dump", h5_oracle::tool("h5dump")) else {
        return;
    };
    let h5 = PathBuf::from(env!("CARGO_BIN_EXE_h5"));
    let din = scratch(&corpus, &format!("{label}-in"));
    let dout = scratch(&corpus, &format!("{label}-out"));
    let mut names: Vec<String> = std::fs::read_dir(&corpus)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".h5"))
        .collect();
    names.sort();
    let exceptions: BTreeMap<&str, &str> =
        EXCEPTIONS.iter().chain(more_exceptions).copied().collect();
    let mut failures = Vec::new();
    let mut compared = 0;
    for name in &names {
        if exceptions.contains_key(name.as_str()) {
            continue;
        }
        let Some(a) = dump(&h5dump, dump_args, &din, name) else {
            failures.push(format!(
                "{name}: h5dump fails on IN but the file is not in EXCEPTIONS"
            ));
            continue;
        };
        let out = dout.join(name);
        std::fs::remove_file(&out).unwrap();
        let r = Command::new(&h5)
            .arg("repack")
            .args(options)
            .arg(din.join(name))
            .arg(&out)
            .current_dir(&din)
            .output()
            .unwrap();
        if !r.status.success() {
            failures.push(format!(
                "{name}: h5 repack failed: {}",
                String::from_utf8_lossy(&r.stderr).trim()
            ));
            continue;
        }
        let Some(b) = dump(&h5dump, dump_args, &dout, name) else {
            failures.push(format!("{name}: h5dump fails on OUT"));
            continue;
        };
        let (na, nb) = (normalize(&a), normalize(&b));
        if na != nb {
            failures.push(format!("{name}: {}", first_difference(&na, &nb)));
            continue;
        }
        compared += 1;
    }
    let _ = std::fs::remove_dir_all(&din);
    let _ = std::fs::remove_dir_all(&dout);
    assert!(
        failures.is_empty(),
        "{label}: {} of {} files differ:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
    assert!(compared > 100, "{label}: only {compared} files compared");
    eprintln!("{label}: {compared} files repacked and dumped alike");
}

#[test]
fn corpus_repacked_compatible() {
    run("compatible", &[]);
}

#[test]
fn corpus_repacked_latest() {
    run("latest", &["--latest"]);
}

#[test]
fn corpus_repacked_with_filters() {
    // Every dataset that can be chunked is, with shuffle and deflate (h5repack -f SHUF
    // -f GZIP=1): the data prints the same.
    run("filtered", &["--latest", "-f", "SHUF", "-f", "GZIP=1"]);
}

#[test]
fn corpus_repacked_contiguous() {
    // Every dataset that can be contiguous is (h5repack -l CONTI), filters dropped with the
    // chunks: the data prints the same.
    run("contiguous", &["-l", "CONTI", "-f", "NONE"]);
}

/// Virtual datasets: the writer has no virtual layout, so their copies hold the data in
/// contiguous (or, for unlimited extents, chunked) storage; `-p` prints another layout.
const VIRTUAL: &[(&str, &str)] = &[
    ("1_vds.h5", "virtual dataset copied as its data"),
    ("2_vds.h5", "virtual dataset copied as its data"),
    ("3_1_vds.h5", "virtual dataset copied as its data"),
    ("3_2_vds.h5", "virtual dataset copied as its data"),
    ("4_vds.h5", "virtual dataset copied as its data"),
    ("5_vds.h5", "virtual dataset copied as its data"),
    ("vds-eiger.h5", "virtual dataset copied as its data"),
    (
        "vds-percival-unlim-maxmin.h5",
        "virtual dataset copied as its data",
    ),
];

#[test]
fn corpus_properties_kept() {
    // h5dump -p -H: storage layouts, chunk shapes, filter pipelines, fill values and
    // allocation times are the source's (only sizes and offsets of the data differ).
    run_with("properties", &[], &["-p", "-H"], VIRTUAL);
    run_with("properties-latest", &["--latest"], &["-p", "-H"], VIRTUAL);
}

#[test]
fn malformed_files_are_errors_not_panics() {
    // The corpus's bad/ files: each is repacked or refused with exit status 1, never a
    // panic (status 101), a signal or a hang.
    let Some(corpus) = corpus() else { return };
    let bad = corpus.join("../bad");
    let Ok(entries) = std::fs::read_dir(&bad) else {
        return;
    };
    let out = std::env::temp_dir().join(format!("h5-repack-bad-{}.h5", std::process::id()));
    let mut n = 0;
    for e in entries {
        let p = e.unwrap().path();
        if p.extension().and_then(|x| x.to_str()) != Some("h5") {
            continue;
        }
        let s = Command::new("timeout")
            .arg("60")
            .arg(env!("CARGO_BIN_EXE_h5"))
            .arg("repack")
            .arg(&p)
            .arg(&out)
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(matches!(s.code(), Some(0 | 1)), "{}: {s}", p.display());
        n += 1;
    }
    let _ = std::fs::remove_file(&out);
    assert!(n > 0);
}
