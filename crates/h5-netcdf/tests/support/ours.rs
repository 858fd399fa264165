//! The files of `nc4py_writer.py` (`write`, `write2`), written with h5-netcdf's writer (shared
//! by tests/netcdf_write.rs and tests/netcdf_c.rs).

use std::path::{Path, PathBuf};
use std::process::Command;

use h5_netcdf::write::{NcWriter, Target};
use h5_netcdf::{NcType, NcValue};

/// The file of `nc4py_writer.py`, written with h5-netcdf.
pub fn write_ours(path: &Path) -> h5_netcdf::Result<()> {
    let mut w = NcWriter::create(path)?;
    let root = w.root();
    let g = Target::Group(root);
    w.put_att(g, "title", NcValue::text("writer test"))?;
    w.put_att(g, "version", NcValue::Int(vec![2]))?;
    w.put_att(g, "factors", NcValue::Double(vec![1.5, -2.25]))?;
    w.put_att(
        g,
        "tags",
        NcValue::Strings(vec!["alpha".into(), "\u{e9}t\u{e9}".into()]),
    )?;
    let time = w.def_dim(root, "time", None)?;
    let y = w.def_dim(root, "y", Some(3))?;
    let x = w.def_dim(root, "x", Some(4))?;
    let nchar = w.def_dim(root, "nchar", Some(6))?;
    let t = w.def_var(root, "time", NcType::Double, &[time])?;
    w.put_att(
        Target::Var(t),
        "units",
        NcValue::text("hours since 2020-01-01"),
    )?;
    let lat = w.def_var(root, "y", NcType::Float, &[y])?;
    w.put_att(Target::Var(lat), "units", NcValue::text("degrees_north"))?;
    let temp = w.def_var(root, "temp", NcType::Float, &[time, y, x])?;
    w.def_var_fill(temp, Some(NcValue::Float(vec![-999.0])))?;
    w.def_var_deflate(temp, true, Some(4))?;
    w.def_var_chunking(temp, &[1, 3, 4])?;
    w.put_att(Target::Var(temp), "long_name", NcValue::text("temperature"))?;
    w.put_att(
        Target::Var(temp),
        "valid_range",
        NcValue::Float(vec![-50.0, 50.0]),
    )?;
    let count = w.def_var(root, "count", NcType::Int, &[time, x])?;
    let packed = w.def_var(root, "packed", NcType::Short, &[time, y])?;
    w.def_var_deflate(packed, true, Some(4))?;
    w.put_att(
        Target::Var(packed),
        "scale_factor",
        NcValue::Double(vec![0.1]),
    )?;
    w.put_att(
        Target::Var(packed),
        "add_offset",
        NcValue::Double(vec![5.0]),
    )?;
    w.put_att(
        Target::Var(packed),
        "missing_value",
        NcValue::Short(vec![-1]),
    )?;
    let xv = w.def_var(root, "x", NcType::Double, &[y])?;
    let types = [
        ("v_i1", NcType::Byte),
        ("v_u1", NcType::UByte),
        ("v_i2", NcType::Short),
        ("v_u2", NcType::UShort),
        ("v_u4", NcType::UInt),
        ("v_i8", NcType::Int64),
        ("v_u8", NcType::UInt64),
    ];
    let mut typed = Vec::new();
    for (n, ty) in types {
        typed.push(w.def_var(root, n, ty, &[x])?);
    }
    let nofill = w.def_var(root, "nofill", NcType::Short, &[x])?;
    w.def_var_fill(nofill, None)?;
    let name = w.def_var(root, "name", NcType::Char, &[y, nchar])?;
    let label = w.def_var(root, "label", NcType::String, &[y])?;
    let sc = w.def_var(root, "scalar", NcType::Double, &[])?;
    w.put_att(Target::Var(sc), "comment", NcValue::text("a scalar"))?;
    let obs = w.def_group(root, "obs")?;
    w.put_att(
        Target::Group(obs),
        "source",
        NcValue::text("station network"),
    )?;
    let station = w.def_dim(obs, "station", Some(2))?;
    let p = w.def_var(obs, "pressure", NcType::Double, &[time, station])?;
    w.put_att(Target::Var(p), "units", NcValue::text("hPa"))?;
    let detail = w.def_group(obs, "detail")?;
    let flag = w.def_var(detail, "flag", NcType::Byte, &[station, x])?;
    w.enddef()?;

    w.put_var(t, &[0.0f64, 6.0, 12.0])?;
    w.put_var(lat, &[10.0f32, 20.0, 30.0])?;
    let tv: Vec<f32> = (0..36).map(|i| (i as f32 - 10.0) / 2.0).collect();
    w.put_vara(temp, &[0, 0, 0], &[3, 3, 4], &tv)?;
    w.put_vara(count, &[0, 0], &[2, 4], &[1i32, 2, 3, 4, 5, 6, 7, 8])?;
    w.put_vara(packed, &[0, 0], &[1, 3], &[10i16, -1, 30])?;
    w.put_var(xv, &[0.5f64, 1.5, 2.5])?;
    w.put_var(typed[0], &[-128i64, -1, 0, 127])?;
    w.put_var(typed[1], &[0u8, 1, 254, 255])?;
    w.put_var(typed[2], &[-32768i32, 0, 1, 32767])?;
    w.put_var(typed[3], &[0u16, 1, 65534, 65535])?;
    w.put_var(typed[4], &[0u32, 1, 4294967294, 4294967295])?;
    w.put_var(typed[5], &[i64::MIN, -1, 0, i64::MAX])?;
    w.put_var(typed[6], &[0u64, 1, u64::MAX - 1, u64::MAX])?;
    w.put_var(nofill, &[1i16, 2, 3, 4])?;
    w.put_text(name, &[0, 0], &[3, 6], b"north\0centresouth\0")?;
    w.put_strings(label, &[0], &[3], &["one", "\u{e9}t\u{e9}", ""])?;
    w.put_var(sc, &[3.25f64])?;
    w.put_vara(
        p,
        &[0, 0],
        &[3, 2],
        &[1000.0f64, 1001.5, 999.0, 998.5, 1002.0, 1003.0],
    )?;
    w.put_var(flag, &[1i8, 0, 1, 0, 0, 1, 0, 1])?;
    w.close()
}

/// The second file of `nc4py_writer.py` (`write2`), written with h5-netcdf.
pub fn write_ours2(path: &Path) -> h5_netcdf::Result<()> {
    let mut w = NcWriter::create(path)?;
    let root = w.root();
    let g = Target::Group(root);
    w.put_att(g, "empty", NcValue::text(""))?;
    w.put_att(g, "a_i1", NcValue::Byte(vec![1, 2, 3]))?;
    w.put_att(g, "a_u1", NcValue::UByte(vec![1, 2, 3]))?;
    w.put_att(g, "a_i2", NcValue::Short(vec![1, 2, 3]))?;
    w.put_att(g, "a_u2", NcValue::UShort(vec![1, 2, 3]))?;
    w.put_att(g, "a_i4", NcValue::Int(vec![1, 2, 3]))?;
    w.put_att(g, "a_u4", NcValue::UInt(vec![1, 2, 3]))?;
    w.put_att(g, "a_i8", NcValue::Int64(vec![1, 2, 3]))?;
    w.put_att(g, "a_u8", NcValue::UInt64(vec![1, 2, 3]))?;
    w.put_att(g, "a_f4", NcValue::Float(vec![1.0, 2.0, 3.0]))?;
    w.put_att(g, "a_f8", NcValue::Double(vec![1.0, 2.0, 3.0]))?;
    let rec = w.def_dim(root, "rec", None)?;
    let rec2 = w.def_dim(root, "rec2", None)?;
    let n = w.def_dim(root, "n", Some(1000))?;
    let m = w.def_dim(root, "m", Some(7))?;
    let big = w.def_var(root, "big", NcType::Double, &[n, m])?;
    w.def_var_deflate(big, true, Some(1))?;
    let both = w.def_var(root, "both", NcType::Float, &[rec, rec2])?;
    let r1 = w.def_var(root, "r1", NcType::UShort, &[rec])?;
    let fills = [
        ("f_i1", NcValue::Byte(vec![-3])),
        ("f_u1", NcValue::UByte(vec![3])),
        ("f_i2", NcValue::Short(vec![-300])),
        ("f_u2", NcValue::UShort(vec![300])),
        ("f_i4", NcValue::Int(vec![-70000])),
        ("f_u4", NcValue::UInt(vec![70000])),
        ("f_i8", NcValue::Int64(vec![-(1 << 40)])),
        ("f_u8", NcValue::UInt64(vec![1 << 40])),
        ("f_f4", NcValue::Float(vec![1.5])),
        ("f_f8", NcValue::Double(vec![-2.5])),
    ];
    let mut fv = Vec::new();
    for (name, f) in fills {
        let v = w.def_var(root, name, f.nc_type(), &[m])?;
        w.def_var_fill(v, Some(f))?;
        fv.push(v);
    }
    let mm = w.def_var(root, "m", NcType::Byte, &[m, m])?;
    let unwritten = w.def_var(root, "unwritten", NcType::Int, &[m])?;
    w.put_att(
        Target::Var(unwritten),
        "note",
        NcValue::text("never written"),
    )?;
    let sub = w.def_group(root, "sub")?;
    let k = w.def_dim(sub, "k", Some(3))?;
    let kv = w.def_var(sub, "k", NcType::Int, &[k])?;
    let gv = w.def_var(sub, "gv", NcType::Double, &[rec, k])?;
    w.def_var_deflate(gv, true, Some(4))?;
    let values: Vec<f64> = (0..7000).map(f64::from).collect();
    w.put_var(big, &values)?;
    w.put_vara(both, &[0, 0], &[2, 3], &[0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0])?;
    w.put_vara(r1, &[0], &[2], &[1u16, 2])?;
    for v in fv {
        w.put_vara(v, &[0], &[2], &[7i32, 8])?;
    }
    w.put_var(kv, &[10i32, 20, 30])?;
    let mv: Vec<i8> = (0..49).collect();
    w.put_var(mm, &mv)?;
    w.put_vara(gv, &[0, 0], &[1, 3], &[1.0f64, 2.0, 3.0])?;
    w.close()
}

/// python3 with netCDF4 importable (a missing oracle skips, or fails under
/// `H5_REQUIRE_ORACLES=1`).
pub fn netcdf4() -> Option<PathBuf> {
    let found = (|| {
        let py = h5_oracle::tool("python3")?;
        let out = Command::new(&py)
            .args(["-c", "import netCDF4"])
            .output()
            .map_err(|e| e.to_string())?;
        if out.status.success() {
            Ok(py)
        } else {
            Err(format!(
                "netCDF4 does not import (cargo xtask install-oracles): {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    })();
    h5_oracle::require("netCDF4-python", found)
}
