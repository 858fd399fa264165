//! `h5 repack -l/-f`: the layouts and filters asked for (per object or for all) are what the
//! output has, by our reader and by h5dump -p; the data is unchanged.

use std::path::{Path, PathBuf};
use std::process::Command;

use h5::io::filter::FilterId;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("h5-repack-options-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn make(path: &Path) {
    let f = h5::File::create(path).unwrap();
    let a: Vec<i32> = (0..200).collect();
    f.new_dataset::<i32>()
        .shape(&[20, 10])
        .create("a")
        .unwrap()
        .write(&a)
        .unwrap();
    let b: Vec<f32> = (0..100).map(|i| i as f32 / 4.0).collect();
    f.new_dataset::<f32>()
        .shape(&[100])
        .chunk(&[10])
        .deflate(9)
        .create("g/b")
        .unwrap()
        .write(&b)
        .unwrap();
    let c: Vec<i16> = (0..50).map(|i| i * 3 - 70).collect();
    for name in ["c", "d", "e", "s"] {
        f.new_dataset::<i16>()
            .shape(&[50])
            .create(name)
            .unwrap()
            .write(&c)
            .unwrap();
    }
    f.new_dataset::<u8>()
        .shape(&[0])
        .max_shape(&[None])
        .chunk(&[4])
        .create("grow")
        .unwrap()
        .append(&[1, 2, 3])
        .unwrap();
    f.close().unwrap();
}

fn repack(args: &[&str], input: &Path, output: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_h5"))
        .arg("repack")
        .args(args)
        .arg(input)
        .arg(output)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stderr).unwrap()
}

fn filters(f: &h5::File, path: &str) -> Vec<FilterId> {
    f.dataset(path)
        .unwrap()
        .filters()
        .iter()
        .map(|x| x.id)
        .collect()
}

fn same_data(a: &h5::File, b: &h5::File) {
    for p in ["a", "g/b", "c", "d", "e", "s", "grow"] {
        let (x, _) = a.dataset(p).unwrap().read_raw().unwrap();
        let (y, _) = b.dataset(p).unwrap().read_raw().unwrap();
        assert_eq!(x, y, "{p}");
    }
}

#[test]
fn per_object_layouts_and_filters() {
    let input = tmp("in.h5");
    let output = tmp("out.h5");
    make(&input);
    for latest in [false, true] {
        let mut args = vec![
            "-l",
            "a:CHUNK=5x5",
            "-f",
            "a:GZIP=6",
            "-f",
            "/g/b:SHUF",
            "-f",
            "/g/b:FLET",
            "-l",
            "c:COMPA",
            "-f",
            "d:SZIP=8,NN",
            "-f",
            "e:NBIT",
            "-f",
            "s:SOFF=0,IN",
            "-l",
            "grow:CONTI",
        ];
        if latest {
            args.insert(0, "--latest");
        }
        let warnings = repack(&args, &input, &output);
        // The extendible dataset keeps its chunks (contiguous storage cannot grow).
        assert!(
            warnings.contains("grow: unlimited dimensions need chunks"),
            "{warnings}"
        );
        let (i, o) = (
            h5::File::open(&input).unwrap(),
            h5::File::open(&output).unwrap(),
        );
        assert_eq!(o.inner().unwrap().superblock().version >= 2, latest);
        same_data(&i, &o);
        assert_eq!(o.dataset("a").unwrap().chunk_dims(), Some(vec![5, 5]));
        assert_eq!(filters(&o, "a"), [FilterId::DEFLATE]);
        assert_eq!(o.dataset("a").unwrap().filters()[0].client_data, [6]);
        // -f replaces the pipeline (the deflate of /g/b is gone), in the order given.
        assert_eq!(
            filters(&o, "g/b"),
            [FilterId::SHUFFLE, FilterId::FLETCHER32]
        );
        assert_eq!(o.dataset("g/b").unwrap().chunk_dims(), Some(vec![10]));
        assert!(matches!(
            o.dataset("c").unwrap().layout().unwrap().class,
            h5::read::LayoutClass::Compact { .. }
        ));
        // A filter chunks a contiguous dataset: one chunk of the whole extent.
        assert_eq!(o.dataset("d").unwrap().chunk_dims(), Some(vec![50]));
        assert_eq!(filters(&o, "d"), [FilterId::SZIP]);
        assert_eq!(filters(&o, "e"), [FilterId::NBIT]);
        assert_eq!(filters(&o, "s"), [FilterId::SCALEOFFSET]);
        assert_eq!(o.dataset("grow").unwrap().chunk_dims(), Some(vec![4]));
        if let Some(h5dump) = h5_oracle::require("h5dump", h5_oracle::tool("h5dump")) {
            let p = h5_oracle::run(&h5dump, &["-p", "-H", output.to_str().unwrap()], b"").unwrap();
            let text = String::from_utf8(p).unwrap();
            for s in [
                "CHUNKED ( 5, 5 )",
                "COMPRESSION DEFLATE { LEVEL 6 }",
                "PREPROCESSING SHUFFLE",
                "CHECKSUM FLETCHER32",
                "COMPACT",
                "CHUNKED ( 50 )",
                "SZIP",
                "NBIT",
                "SCALEOFFSET",
            ] {
                assert!(text.contains(s), "missing {s:?} in\n{text}");
            }
            // The values print alike.
            let dump = |p: &Path| {
                let t = h5_oracle::run(&h5dump, &[p.to_str().unwrap()], b"").unwrap();
                String::from_utf8(t)
                    .unwrap()
                    .lines()
                    .skip(1)
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            assert_eq!(dump(&input), dump(&output));
        }
    }
}

#[test]
fn global_options_and_none() {
    let input = tmp("in2.h5");
    let mid = tmp("mid.h5");
    let output = tmp("out2.h5");
    make(&input);
    // Every dataset: gzip (chunked where needed).
    repack(&["-f", "GZIP=1"], &input, &mid);
    let m = h5::File::open(&mid).unwrap();
    for p in ["a", "g/b", "c", "d", "e", "s", "grow"] {
        assert_eq!(filters(&m, p), [FilterId::DEFLATE], "{p}");
    }
    // NONE takes every filter out again, and CONTI makes the fixed-size ones contiguous.
    repack(&["--latest", "-f", "NONE", "-l", "CONTI"], &mid, &output);
    let o = h5::File::open(&output).unwrap();
    for p in ["a", "g/b", "c", "d", "e", "s", "grow"] {
        assert!(filters(&o, p).is_empty(), "{p}");
        let chunked = o.dataset(p).unwrap().chunk_dims().is_some();
        assert_eq!(chunked, p == "grow", "{p}");
    }
    same_data(&h5::File::open(&input).unwrap(), &o);
}

#[test]
fn bad_usage_exits_2_and_missing_input_1() {
    let h5 = env!("CARGO_BIN_EXE_h5");
    let s = Command::new(h5)
        .args(["repack", "-l", "CHUNK=0", "a", "b"])
        .status()
        .unwrap();
    assert_eq!(s.code(), Some(2));
    let out = tmp("never.h5");
    let s = Command::new(h5)
        .args(["repack", "/nonexistent/in.h5", out.to_str().unwrap()])
        .status()
        .unwrap();
    assert_eq!(s.code(), Some(1));
    assert!(!out.exists());
    // IN and OUT the same file: refused, the file is left alone.
    let same = tmp("same.h5");
    make(&same);
    let before = std::fs::read(&same).unwrap();
    let s = Command::new(h5)
        .args(["repack", same.to_str().unwrap(), same.to_str().unwrap()])
        .status()
        .unwrap();
    assert_eq!(s.code(), Some(1));
    assert_eq!(std::fs::read(&same).unwrap(), before);
}

/// What h5py writes in both libver settings: dense attribute and link storage, creation
/// order tracking, variable-length strings and sequences, compounds, enums, object and
/// region references, every chunk index, deflate/shuffle/fletcher32.
const H5PY_FILE: &str = r#"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], 'w', libver=sys.argv[2], track_order=True)
g = f.create_group('many')
for i in range(20):
    g.create_dataset('d%02d' % i, data=np.arange(i, dtype='<i8'))
    g.attrs['a%02d' % i] = i * 1.5
f.attrs['note'] = 'ünïcode text'
f['vstr'] = np.array(['a', 'bb', ''], dtype=h5py.string_dtype())
vl = f.create_dataset('vlen', (3,), dtype=h5py.vlen_dtype('<i4'))
vl[0] = [1]; vl[1] = [1, 2]; vl[2] = []
ct = np.dtype([('x', '<f4'), ('n', '<i2'), ('s', 'S3')])
f.create_dataset('comp', data=np.array([(1.5, 2, b'ab'), (3.5, -4, b'xyz')], dtype=ct),
                 chunks=(1,), compression='gzip', shuffle=True, fletcher32=True)
f['e'] = np.array([0, 1, 1], dtype=h5py.enum_dtype({'RED': 0, 'GREEN': 1}, basetype='u1'))
f.create_dataset('grow', data=np.arange(12.).reshape(3, 4), maxshape=(None, None), chunks=(2, 2))
f.create_dataset('ea', data=np.arange(7), maxshape=(None,), chunks=(3,))
refs = f.create_dataset('refs', (2,), dtype=h5py.ref_dtype)
refs[0] = f['comp'].ref; refs[1] = f['many'].ref
rr = f.create_dataset('rrefs', (1,), dtype=h5py.regionref_dtype)
rr[0] = f['grow'].regionref[0:2, 1:3]
f['soft'] = h5py.SoftLink('/ea')
f['ext'] = h5py.ExternalLink('elsewhere.h5', '/x')
f['hard'] = f['ea']
f.close()
"#;

#[test]
fn h5py_files_repack_alike() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let Some(h5dump) = h5_oracle::require("h5dump", h5_oracle::tool("h5dump")) else {
        return;
    };
    let dump = |p: &Path| {
        let t = h5_oracle::run(&h5dump, &[p.to_str().unwrap()], b"").unwrap();
        let t = String::from_utf8(t).unwrap();
        // Object addresses in reference output are the only legitimate difference.
        t.lines()
            .skip(1)
            .map(|l| {
                let mut l = l.to_owned();
                for kw in ["DATASET ", "GROUP "] {
                    if let Some(i) = l.find(kw) {
                        let s = i + kw.len();
                        let n = l[s..].bytes().take_while(u8::is_ascii_digit).count();
                        if n > 0 {
                            l.replace_range(s..s + n, "ADDR");
                        }
                    }
                }
                l
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    // Both inputs hold the same objects; h5dump 1.10.8 cannot open the one h5py (libhdf5
    // 2.0) writes with libver "latest", so both repacks are compared to the dump of the
    // "earliest" one (and the repack of the "latest" one is readable by h5dump 1.10.8).
    let mut want = None;
    for libver in ["earliest", "latest"] {
        let input = tmp(&format!("h5py-{libver}.h5"));
        h5_oracle::run(
            &py,
            &["-c", H5PY_FILE, input.to_str().unwrap(), libver],
            b"",
        )
        .unwrap();
        let want = want.get_or_insert_with(|| dump(&input)).clone();
        for latest in [false, true] {
            let output = tmp(&format!("h5py-{libver}-{latest}.h5"));
            let args: &[&str] = if latest { &["--latest"] } else { &[] };
            repack(args, &input, &output);
            assert_eq!(dump(&output), want, "{libver} --latest={latest}");
            let o = h5::File::open(&output).unwrap();
            assert_eq!(o.inner().unwrap().superblock().version >= 2, latest);
        }
    }
}

#[test]
fn creation_order_is_kept() {
    let Some(h5dump) = h5_oracle::require("h5dump", h5_oracle::tool("h5dump")) else {
        return;
    };
    // h5py groups with `track_order=True`, compact and dense, with attributes in both orders.
    let input = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../h5-io/tests/fixtures/h5py/groups_creation_order.h5");
    let dump = |p: &Path| {
        let t = h5_oracle::run(
            &h5dump,
            &["-q", "creation_order", "-A", p.to_str().unwrap()],
            b"",
        )
        .unwrap();
        String::from_utf8(t)
            .unwrap()
            .lines()
            .skip(1)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let want = dump(&input);
    assert!(want.contains("\"zeta\""), "{want}");
    for latest in [false, true] {
        let output = tmp(&format!("corder-{latest}.h5"));
        let args: &[&str] = if latest { &["--latest"] } else { &[] };
        repack(args, &input, &output);
        assert_eq!(dump(&output), want, "--latest={latest}");
    }
}
