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
        assert_eq!(o.superblock().version >= 2, latest);
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
            o.dataset("c").unwrap().layout().class,
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
}
