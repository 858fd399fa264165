//! `h5 repack -S STRATEGY -G PAGESIZE`: the file-space strategy and page size of the output
//! are what the reference h5repack writes for the same options (h5dump -B, h5stat -S), the
//! contents are those of a plain repack (h5dump), paged files end on a page boundary and
//! read through the reference library's page buffer (h5py `page_buf_size`) as the source
//! reads, and `h5 check` finds them sound.

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(exe: &Path, args: &[&str]) -> String {
    let out = Command::new(exe).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{} {args:?}: {}",
        exe.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn body(s: &str) -> &str {
    s.split_once('\n').map_or("", |(_, b)| b)
}

/// The superblock lines of h5dump -B that name the file-space settings.
fn fs_lines(h5dump: &Path, f: &str) -> Vec<String> {
    run(h5dump, &["-B", "-H", f])
        .lines()
        .filter(|l| {
            ["SUPERBLOCK_VERSION", "FILE_SPACE_", "FREE_SPACE_"]
                .iter()
                .any(|k| l.trim_start().starts_with(k))
        })
        .map(str::to_owned)
        .collect()
}

/// h5stat -S's strategy and page size lines.
fn stat_lines(h5stat: &Path, f: &str) -> Vec<String> {
    run(h5stat, &["-S", f])
        .lines()
        .filter(|l| l.starts_with("File space management strategy") || l.contains("page size"))
        .map(str::to_owned)
        .collect()
}

/// A digest of every dataset's values as h5py reads them, through a page buffer when asked.
fn h5py_values(py: &Path, f: &str, page_buffer: bool) -> String {
    let script = r#"
import sys, h5py, hashlib
kw = {"page_buf_size": 1 << 20} if sys.argv[2] == "1" else {}
out = []
with h5py.File(sys.argv[1], "r", **kw) as f:
    def visit(name, o):
        if isinstance(o, h5py.Dataset) and o.dtype.kind not in "OV" and o.shape is not None:
            out.append(name + " " + hashlib.sha1(o[()].tobytes()).hexdigest())
    f.visititems(visit)
print("\n".join(sorted(out)))
"#;
    run(py, &["-c", script, f, if page_buffer { "1" } else { "0" }])
}

#[test]
fn strategy_and_page_size_as_the_reference_h5repack_writes_them() {
    let (Some(h5dump), Some(h5stat), Some(h5repack), Some(py)) = (
        h5_oracle::require("h5dump", h5_oracle::tool("h5dump")),
        h5_oracle::require("h5stat", h5_oracle::tool("h5stat")),
        h5_oracle::require("h5repack", h5_oracle::tool("h5repack")),
        h5_oracle::require("h5py", h5_oracle::h5py()),
    ) else {
        return;
    };
    let h5 = Path::new(env!("CARGO_BIN_EXE_h5"));
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("repack_paged");
    std::fs::create_dir_all(&d).unwrap();
    let out = |name: &str| -> PathBuf {
        let p = d.join(name);
        let _ = std::fs::remove_file(&p);
        p
    };
    let corpus = h5_oracle::corpus("h5dump");
    for file in [
        "tgroup.h5",
        "tdset.h5",
        "tlarge_objname.h5",
        "tvldtypes1.h5",
        "tattr.h5",
    ] {
        let src = corpus.join(file);
        let s = src.to_str().unwrap();
        let source_values = h5py_values(&py, s, false);
        for opts in [
            &["-S", "PAGE", "-G", "4096"][..],
            &["-S", "PAGE", "-G", "512"][..],
            &["-S", "PAGE"][..],
            &["--latest", "-S", "PAGE", "-G", "8192"][..],
            &["-G", "8192"][..],
            &["-S", "AGGR"][..],
            &["-S", "NONE"][..],
            &["-S", "FSM_AGGR", "-G", "4096"][..],
        ] {
            let what = format!("{file} {opts:?}");
            let (ours, theirs, plain) = (out("ours.h5"), out("theirs.h5"), out("plain.h5"));
            let (o, t, p) = (
                ours.to_str().unwrap(),
                theirs.to_str().unwrap(),
                plain.to_str().unwrap(),
            );
            run(h5, &[&["repack"][..], opts, &[s, o]].concat());
            run(&h5repack, &[opts, &[s, t]].concat());
            let latest: &[&str] = if opts.contains(&"--latest") {
                &["--latest"]
            } else {
                &[]
            };
            run(h5, &[&["repack"][..], latest, &[s, p]].concat());
            assert_eq!(fs_lines(&h5dump, o), fs_lines(&h5dump, t), "{what}");
            assert_eq!(stat_lines(&h5stat, o), stat_lines(&h5stat, t), "{what}");
            assert_eq!(
                body(&run(&h5dump, &[o])),
                body(&run(&h5dump, &[p])),
                "{what}"
            );
            if opts.contains(&"PAGE") {
                let page: u64 = opts
                    .iter()
                    .position(|a| *a == "-G")
                    .map_or(4096, |i| opts[i + 1].parse().unwrap());
                let len = std::fs::metadata(&ours).unwrap().len();
                assert_eq!(len % page, 0, "{what}: {len} bytes");
                assert_eq!(h5py_values(&py, o, true), source_values, "{what}");
            }
            let check = Command::new(h5).args(["check", o]).output().unwrap();
            assert!(
                check.status.success(),
                "{what}: {}",
                String::from_utf8_lossy(&check.stdout)
            );
        }
    }
}

/// Structures our writer keeps together in one block (a symbol table's nodes and B-tree, a
/// chunk B-tree's nodes, a fixed array's header and data block) never cross a page: files
/// with many of them, repacked with small pages in both formats, read through the reference
/// library's page buffer as h5py reads the source.
#[test]
fn page_buffer_reads_many_nodes() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("repack_paged_nodes");
    std::fs::create_dir_all(&d).unwrap();
    let src = d.join("src.h5");
    let script = r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w", libver="earliest") as f:
    g = f.create_group("many")
    for i in range(300):
        g["d%03d" % i] = np.arange(i % 7 + 1, dtype="<i2")
    f.create_dataset("chunked", data=np.arange(40000, dtype="<f4").reshape(200, 200),
                     chunks=(10, 10))
    f.create_dataset("grow", data=np.arange(5000, dtype="<i8"), chunks=(16,), maxshape=(None,))
    f.create_dataset("deflated", data=np.arange(30000, dtype="<i4"), chunks=(100,),
                     compression="gzip")
"#;
    run(&py, &["-c", script, src.to_str().unwrap()]);
    let s = src.to_str().unwrap();
    let want = h5py_values(&py, s, false);
    let h5 = Path::new(env!("CARGO_BIN_EXE_h5"));
    for (i, opts) in [
        &["-S", "PAGE", "-G", "512"][..],
        &["--latest", "-S", "PAGE", "-G", "512"][..],
        &["-S", "PAGE", "-G", "1024"][..],
    ]
    .iter()
    .enumerate()
    {
        let out = d.join(format!("out{i}.h5"));
        let _ = std::fs::remove_file(&out);
        let o = out.to_str().unwrap();
        run(h5, &[&["repack"][..], opts, &[s, o]].concat());
        assert_eq!(h5py_values(&py, o, true), want, "{opts:?}");
    }
}

/// A paged file (h5py, `fs_strategy="page"`) modified in place keeps its strategy and reads
/// through the reference library's page buffer: new space is taken in whole pages, metadata
/// and raw data apart, as in a new paged file.
#[test]
fn paged_file_modified_in_place() {
    let (Some(py), Some(h5stat)) = (
        h5_oracle::require("h5py", h5_oracle::h5py()),
        h5_oracle::require("h5stat", h5_oracle::tool("h5stat")),
    ) else {
        return;
    };
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("repack_paged_inplace");
    std::fs::create_dir_all(&d).unwrap();
    let file = d.join("paged.h5");
    let f = file.to_str().unwrap();
    for persist in ["False", "True"] {
        let script = r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w", fs_strategy="page", fs_page_size=1024,
               fs_persist=sys.argv[2] == "True") as f:
    f["a"] = np.arange(100, dtype="<i4")
    f["gone"] = np.arange(300, dtype="<i4")
    g = f.create_group("g")
    for i in range(40):
        g["x%02d" % i] = np.arange(i + 1, dtype="<f8")
    del f["gone"]
"#;
        run(&py, &["-c", script, f, persist]);
        let before = stat_lines(&h5stat, f);
        {
            let w = h5::File::open_rw(&file).unwrap();
            w.new_dataset::<i64>()
                .shape(&[3000])
                .create("new")
                .unwrap()
                .write(&(0..3000).collect::<Vec<i64>>())
                .unwrap();
            let g = w.group("g").unwrap();
            for i in 40..60 {
                g.new_dataset::<f64>()
                    .shape(&[4])
                    .create(&format!("x{i:02}"))
                    .unwrap()
                    .write(&[1.0, 2.0, 3.0, 4.0])
                    .unwrap();
            }
            w.close().unwrap();
        }
        assert_eq!(stat_lines(&h5stat, f), before);
        assert_eq!(std::fs::metadata(&file).unwrap().len() % 1024, 0);
        assert_eq!(h5py_values(&py, f, true), h5py_values(&py, f, false));
        assert!(h5py_values(&py, f, true).contains("g/x59 "));
        // The reference library modifies it after us (using what it persisted of free space).
        h5_oracle::run_c("add_dataset", &[f, "theirs", "a"], b"").unwrap();
        assert_eq!(stat_lines(&h5stat, f), before);
        let v = h5py_values(&py, f, true);
        assert_eq!(v, h5py_values(&py, f, false));
        assert!(
            v.contains("theirs ") && v.contains("new ") && !v.contains("\na "),
            "{v}"
        );
        let check = Command::new(env!("CARGO_BIN_EXE_h5"))
            .args(["check", f])
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "{}",
            String::from_utf8_lossy(&check.stdout)
        );
    }
}
