//! The netCDF-4 writer against netCDF4-python: the same file written by both
//! (`support/nc4py_writer.py write`) prints the same in `ncdump` (and in `ncdump -s`, less
//! the two lines that name the writing library and the superblock version), netCDF4-python
//! reads ours back equal to its own (values with and without auto mask/scale, attributes,
//! dimensions, chunking and filters), and h5-netcdf reads it back.

use std::path::{Path, PathBuf};

use h5_netcdf::write::NcWriter;
use h5_netcdf::{MaskScale, NcFile, NcForm, NcType, NcValue};

#[path = "support/ours.rs"]
mod ours;
use ours::{netcdf4, write_ours, write_ours2};

fn ncdump() -> Option<PathBuf> {
    h5_oracle::require("ncdump", h5_oracle::tool("ncdump"))
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/nc4py_writer.py")
}

fn dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("h5-netcdf-write")
        .join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(exe: &Path, args: &[&str]) -> String {
    String::from_utf8(h5_oracle::run(exe, args, b"").expect("run")).unwrap()
}

/// `ncdump -s` without the lines that name the writer or the superblock version.
fn special(text: &str) -> String {
    text.lines()
        .filter(|l| !l.contains(":_NCProperties") && !l.contains(":_SuperblockVersion"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn ncdump_and_netcdf4_python_read_our_file_as_their_own() {
    let (Some(py), Some(dump)) = (netcdf4(), ncdump()) else {
        return;
    };
    let (a, b) = (dir("python"), dir("ours"));
    let theirs = a.join("w.nc");
    let ours = b.join("w.nc");
    run(
        &py,
        &[
            script().to_str().unwrap(),
            "write",
            theirs.to_str().unwrap(),
        ],
    );
    write_ours(&ours).unwrap();
    let (dt, d_ours) = (
        run(&dump, &[theirs.to_str().unwrap()]),
        run(&dump, &[ours.to_str().unwrap()]),
    );
    assert_eq!(d_ours, dt, "ncdump differs");
    let (st, s_ours) = (
        run(&dump, &["-s", theirs.to_str().unwrap()]),
        run(&dump, &["-s", ours.to_str().unwrap()]),
    );
    // The one documented difference of `ncdump -s`: h5-io's writer has no variable-length
    // fill values, so a string variable's fill value is the library default, which netcdf-c
    // reports as `_NoFill` (plain `ncdump` and the values read are the same).
    let known = ["\t\tlabel:_NoFill = \"true\" ;"];
    let ours_s = special(&s_ours);
    let filtered: Vec<&str> = ours_s.lines().filter(|l| !known.contains(l)).collect();
    assert_eq!(
        ours_s.lines().count() - filtered.len(),
        known.len(),
        "the known difference is there"
    );
    assert_eq!(filtered.join("\n"), special(&st), "ncdump -s differs");
    let cmp = run(
        &py,
        &[
            script().to_str().unwrap(),
            "compare",
            theirs.to_str().unwrap(),
            ours.to_str().unwrap(),
        ],
    );
    assert_eq!(cmp.trim(), "equal", "{cmp}");
    eprintln!(
        "ncdump: {} lines identical; ncdump -s: {} lines identical",
        dt.lines().count(),
        special(&st).lines().count()
    );
}

#[test]
fn second_file_default_chunks_every_attribute_type_and_fill() {
    let (Some(py), Some(dump)) = (netcdf4(), ncdump()) else {
        return;
    };
    let (a, b) = (dir("python2"), dir("ours2"));
    let theirs = a.join("w2.nc");
    let ours = b.join("w2.nc");
    run(
        &py,
        &[
            script().to_str().unwrap(),
            "write2",
            theirs.to_str().unwrap(),
        ],
    );
    write_ours2(&ours).unwrap();
    for flags in [&[][..], &["-s"][..]] {
        let args = |f: &Path| -> Vec<String> {
            flags
                .iter()
                .map(|s| s.to_string())
                .chain([f.to_str().unwrap().to_string()])
                .collect()
        };
        let t = args(&theirs);
        let o = args(&ours);
        let dt = run(&dump, &t.iter().map(String::as_str).collect::<Vec<_>>());
        let d_ours = run(&dump, &o.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(special(&d_ours), special(&dt), "ncdump {flags:?} differs");
        eprintln!(
            "ncdump {flags:?}: {} lines identical",
            special(&dt).lines().count()
        );
    }
    let cmp = run(
        &py,
        &[
            script().to_str().unwrap(),
            "compare",
            theirs.to_str().unwrap(),
            ours.to_str().unwrap(),
        ],
    );
    assert_eq!(cmp.trim(), "equal", "{cmp}");
}

#[test]
fn our_file_reads_back() {
    let d = dir("readback");
    let path = d.join("w.nc");
    write_ours(&path).unwrap();
    let nc = NcFile::open(&path).unwrap();
    let dims: Vec<String> = nc
        .dimensions()
        .iter()
        .map(|d| format!("{}:{}:{}", d.name, d.len, d.unlimited))
        .collect();
    assert_eq!(
        dims,
        ["time:3:true", "y:3:false", "x:4:false", "nchar:6:false"]
    );
    assert_eq!(
        nc.attribute("title").unwrap().as_text().unwrap(),
        "writer test"
    );
    // The record variable written for two of the three times reads fill past its extent.
    let count = nc.variable("count").unwrap();
    assert_eq!(count.shape(), [3, 4]);
    let v: Vec<i32> = count.get_var().unwrap();
    assert_eq!(&v[8..], [-2147483647; 4]);
    // A variable with a dimension's name that is not its coordinate variable.
    let x = nc.variable("x").unwrap();
    assert!(!x.is_coordinate());
    assert_eq!(x.dims()[0].name, "y");
    assert_eq!(x.get_var::<f64>().unwrap(), [0.5, 1.5, 2.5]);
    assert!(nc.variable("y").unwrap().is_coordinate());
    let packed = nc.variable("packed").unwrap();
    let m = packed
        .read_masked(NcForm::Whole, MaskScale::both())
        .unwrap();
    assert_eq!(m.options()[0], Some(6.0));
    assert_eq!(m.options()[1], None); // missing_value
    assert_eq!(m.options()[3], None); // past the variable's extent: the default fill
                                      // Groups inherit dimensions.
    let obs = nc.group("obs").unwrap();
    assert_eq!(obs.dimension("time").unwrap().len, 3);
    let p = nc.variable("obs/pressure").unwrap();
    assert_eq!(p.get_vara::<f64>(&[2, 1], &[1, 1]).unwrap(), [1003.0]);
    let flag = nc.variable("obs/detail/flag").unwrap();
    let names: Vec<&str> = flag.dims().iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["station", "x"]);
}

#[test]
fn writer_errors() {
    let d = dir("errors");
    let mut w = NcWriter::create(d.join("e.nc")).unwrap();
    let root = w.root();
    let x = w.def_dim(root, "x", Some(2)).unwrap();
    assert!(w.def_dim(root, "x", Some(3)).is_err());
    let v = w.def_var(root, "v", NcType::Byte, &[x]).unwrap();
    assert!(w.def_var(root, "v", NcType::Int, &[x]).is_err());
    let e = w.def_var_fill(v, Some(NcValue::Int(vec![1]))).unwrap_err();
    assert_eq!(e.kind(), h5_netcdf::ErrorKind::BadType);
    let e = w.put_vara(v, &[1], &[2], &[1i32, 2]).unwrap_err();
    assert_eq!(e.nc_status(), Some(-57), "{e}");
    let e = w.put_var(v, &[1i32, 300]).unwrap_err();
    assert_eq!(e.nc_status(), Some(-60), "{e}");
    let e = w.put_text(v, &[0], &[2], b"ab").unwrap_err();
    assert_eq!(e.nc_status(), Some(-56), "{e}");
    w.close().unwrap();
}
