//! `File::open_rw` on files h5py writes (libver "earliest" and "latest", so every chunk
//! index kind of both formats) and on our own: add datasets, groups, attributes and links,
//! append to chunked datasets, write into existing ones of every layout, overwrite
//! attributes; then h5py reads the expected values and h5dump exits 0.

use std::path::{Path, PathBuf};

use h5::read::LayoutClass;
use h5::types::h5type::{FixedAscii, NullPad};
use h5::FileFormat;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("h5-open-rw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn python(script: &str, path: &Path) -> Option<String> {
    let exe = h5_oracle::require("h5py", h5_oracle::h5py())?;
    let out = h5_oracle::run(&exe, &["-c", script, path.to_str().unwrap()], b"")
        .unwrap_or_else(|e| panic!("python failed on {}: {e}", path.display()));
    Some(String::from_utf8(out).unwrap())
}

fn h5dump_ok(path: &Path) -> Option<String> {
    let exe = h5_oracle::require("h5dump", h5_oracle::tool("h5dump"))?;
    let out = h5_oracle::run(&exe, &[path.to_str().unwrap()], b"")
        .unwrap_or_else(|e| panic!("h5dump failed on {}: {e}", path.display()));
    Some(String::from_utf8(out).unwrap())
}

/// What h5py writes: every layout and (with libver latest) every chunk index kind.
const MAKE: &str = r#"
import sys, h5py, numpy as np
path, libver = sys.argv[1], sys.argv[2]
f = h5py.File(path, 'w', libver=libver)
f.attrs['title'] = b'made by h5py'
f.attrs['scale'] = 1.5
f.create_dataset('contig', data=np.arange(10, dtype='<i4'))
dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
dcpl.set_layout(h5py.h5d.COMPACT)
sp = h5py.h5s.create_simple((4,))
h5py.h5d.create(f.id, b'compact', h5py.h5t.STD_I32LE, sp, dcpl=dcpl).write(
    h5py.h5s.ALL, h5py.h5s.ALL, np.array([1, 2, 3, 4], dtype='<i4'))
g = f.create_group('chunks')
g.create_dataset('single', data=np.arange(8, dtype='<i4'), chunks=(8,))
g.create_dataset('fixed', data=np.arange(40, dtype='<i4'), chunks=(8,), compression='gzip')
dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
dcpl.set_chunk((5,))
dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
sp = h5py.h5s.create_simple((20,))
h5py.h5d.create(g.id, b'implicit', h5py.h5t.STD_I32LE, sp, dcpl=dcpl).write(
    h5py.h5s.ALL, h5py.h5s.ALL, np.arange(20, dtype='<i4'))
g.create_dataset('fixed_grow', data=np.arange(10, dtype='<i4'), maxshape=(30,), chunks=(5,))
g.create_dataset('earray', data=np.arange(12, dtype='<i4'), maxshape=(None,), chunks=(4,))
g.create_dataset('btree2', data=np.arange(12, dtype='<i4').reshape(3, 4),
                 maxshape=(None, None), chunks=(2, 2), compression='gzip', shuffle=True)
many = f.create_group('many')
for i in range(12):
    many.create_dataset('d%02d' % i, data=np.array([i], dtype='<i4'))
f['vstr'] = np.array([b'one', b'two'], dtype=h5py.string_dtype('ascii'))
f.close()
"#;

/// What h5py must find after our changes.
const CHECK: &str = r#"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], 'r')
L = lambda d: np.asarray(d).tolist()
print(f.attrs['title'], float(f.attrs['scale']), L(f.attrs['added']))
print(L(f['contig'][:]))
print(L(f['compact'][:]))
for n in ['single', 'fixed', 'implicit', 'fixed_grow', 'earray']:
    print(n, L(f['chunks/' + n][:]))
print('btree2', f['chunks/btree2'].shape, L(f['chunks/btree2'][:]))
print(L(f['new/ds'][:]), f['new/ds'].attrs['units'])
print(L(f['soft'][:]), L(f['hard'][:]), int(f['many/d11'][0]), len(f['many']))
print(f.get('ext', getlink=True).filename, f.get('ext', getlink=True).path)
print([s.decode() for s in f['vstr'][:]])
"#;

const EXPECTED: &str = "made by h5py 2.5 [7, 8, 9]
[0, 1, 2, 100, 101, 5, 6, 7, 8, 9]
[1, -2, 3, 4]
single [0, 1, 2, 3, 4, 5, 6, 77]
fixed [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, -39]
implicit [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 55]
fixed_grow [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114]
earray [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21]
btree2 (4, 5) [[0, 1, 2, 3, 0], [4, 5, 6, 7, 0], [8, 9, 10, 11, 0], [90, 91, 92, 93, 94]]
[3.5, 4.5] b'm/s'
[0, 1, 2, 100, 101, 5, 6, 7, 8, 9] [1, -2, 3, 4] 11 13
other.h5 /x
['one', 'two']
";

fn modify(path: &Path) {
    let f = h5::File::open_rw(path).unwrap();
    // Attributes: overwrite two of the file's, add one.
    f.attr("scale").unwrap().write(&[2.5]).unwrap();
    f.new_attr::<i32>()
        .shape(&[3])
        .create("added")
        .unwrap()
        .write(&[7, 8, 9])
        .unwrap();
    // Writes into existing datasets of every layout.
    f.dataset("contig")
        .unwrap()
        .write_slab(&[3], &[2], &[100i32, 101])
        .unwrap();
    f.dataset("compact")
        .unwrap()
        .write_slab(&[1], &[1], &[-2i32])
        .unwrap();
    f.dataset("chunks/single")
        .unwrap()
        .write_slab(&[7], &[1], &[77i32])
        .unwrap();
    f.dataset("chunks/fixed")
        .unwrap()
        .write_slab(&[39], &[1], &[-39i32])
        .unwrap();
    // The implicit index's dataset is not extendible: a write into it, then an error for a
    // resize (nothing changes).
    let imp = f.dataset("chunks/implicit").unwrap();
    assert!(imp.resize(&[30]).is_err());
    let mut v: Vec<i32> = (0..20).collect();
    v[19] = 55;
    imp.write(&v).unwrap();
    // A fixed array (fixed maximum dimensions) grows within them.
    let fg = f.dataset("chunks/fixed_grow").unwrap();
    fg.append(&(100..115).collect::<Vec<i32>>()).unwrap();
    assert!(fg.resize(&[31]).is_err());
    // Appends: new chunks in the extensible array and the version 2 B-tree.
    f.dataset("chunks/earray")
        .unwrap()
        .append(&(12..22).collect::<Vec<i32>>())
        .unwrap();
    let b2 = f.dataset("chunks/btree2").unwrap();
    b2.resize(&[4, 5]).unwrap();
    b2.write_slab(&[3, 0], &[1, 5], &[90i32, 91, 92, 93, 94])
        .unwrap();
    // New objects and links.
    let ds = f
        .new_dataset::<f64>()
        .shape(&[2])
        .chunk(&[1])
        .deflate(4)
        .create("new/ds")
        .unwrap();
    ds.write(&[3.5, 4.5]).unwrap();
    type Units = FixedAscii<3, NullPad>;
    ds.new_attr::<Units>()
        .create("units")
        .unwrap()
        .write(&[Units::from_str_padded("m/s").unwrap()])
        .unwrap();
    f.link_soft("/contig", "soft").unwrap();
    f.link_hard("/compact", "hard").unwrap();
    f.link_external("other.h5", "/x", "ext").unwrap();
    f.new_dataset::<i32>()
        .scalar()
        .create("many/d12")
        .unwrap()
        .write(&[12])
        .unwrap();
    f.close().unwrap();
}

#[test]
fn h5py_files_modified_in_place() {
    for libver in ["earliest", "latest"] {
        let p = tmp(&format!("h5py-{libver}.h5"));
        let exe = match h5_oracle::require("h5py", h5_oracle::h5py()) {
            Some(e) => e,
            None => return,
        };
        h5_oracle::run(&exe, &["-c", MAKE, p.to_str().unwrap(), libver], b"").unwrap();
        modify(&p);
        let out = python(CHECK, &p).unwrap();
        assert_eq!(out, EXPECTED, "{libver}");
        h5dump_ok(&p).unwrap();
        // Our reader agrees.
        let f = h5::File::open(&p).unwrap();
        assert_eq!(
            f.dataset("chunks/earray").unwrap().read::<i32>().unwrap(),
            (0..22).collect::<Vec<_>>()
        );
        assert_eq!(
            f.dataset("new/ds").unwrap().read::<f64>().unwrap(),
            [3.5, 4.5]
        );
        // The chunk index kinds, before and after: h5py's choices, kept by the rewrite.
        for (name, kind) in [
            ("single", "SingleChunk"),
            ("fixed", "FixedArray"),
            ("implicit", "Implicit"),
            ("fixed_grow", "FixedArray"),
            ("earray", "ExtensibleArray"),
            ("btree2", "BTreeV2"),
        ] {
            let ds = f.dataset(&format!("chunks/{name}")).unwrap();
            let got = match &ds.layout().unwrap().class {
                LayoutClass::Chunked { index: None, .. } => "BTreeV1".to_owned(),
                LayoutClass::Chunked { index: Some(i), .. } => format!("{i:?}")
                    .split([' ', '{'])
                    .next()
                    .unwrap()
                    .to_owned(),
                other => panic!("{name}: {other:?}"),
            };
            let want = if libver == "latest" { kind } else { "BTreeV1" };
            assert_eq!(got, want, "{libver} {name}");
        }
        // The format is kept.
        let v = f.inner().unwrap().superblock().version;
        assert_eq!(v >= 2, libver == "latest", "superblock version {v}");
    }
}

#[test]
fn our_files_reopened_twice() {
    for format in [FileFormat::Compatible, FileFormat::Latest] {
        let p = tmp(&format!("ours-{format:?}.h5"));
        let f = h5::File::create_with(&p, format).unwrap();
        let d = f
            .new_dataset::<u16>()
            .shape(&[0])
            .max_shape(&[None])
            .chunk(&[3])
            .create("log")
            .unwrap();
        d.append(&[1, 2]).unwrap();
        f.close().unwrap();
        for round in 0..2u16 {
            let f = h5::File::open_rw(&p).unwrap();
            f.dataset("log")
                .unwrap()
                .append(&[10 + round, 20 + round])
                .unwrap();
            f.create_group(&format!("g{round}")).unwrap();
            f.close().unwrap();
        }
        let f = h5::File::open(&p).unwrap();
        assert_eq!(
            f.dataset("log").unwrap().read::<u16>().unwrap(),
            [1, 2, 10, 20, 11, 21]
        );
        assert!(f.group("g0").is_ok() && f.group("g1").is_ok());
        let out = python(
            "import sys,h5py\nprint(h5py.File(sys.argv[1])['log'][:].tolist())",
            &p,
        );
        if let Some(out) = out {
            assert_eq!(out.trim(), "[1, 2, 10, 20, 11, 21]");
        }
    }
}

fn corpus_file(name: &str) -> Option<PathBuf> {
    let p = std::env::var_os("H5_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/corpus/h5dump"))
        .join(name);
    p.is_file().then_some(p)
}

#[test]
fn virtual_datasets_are_kept_and_refuse_changes() {
    // A virtual dataset is modified in place only around it: the writer has no model of
    // its mappings, so writes into it are refused (and change nothing); the rest of the
    // file can change, the dataset stays as it was.
    let Some(src) = corpus_file("1_vds.h5") else {
        return;
    };
    let p = tmp("1_vds.h5");
    std::fs::copy(&src, &p).unwrap();
    let before = h5dump_ok(&p);
    let f = h5::File::open_rw(&p).unwrap();
    let e = f
        .dataset("vds_dset")
        .unwrap()
        .new_attr::<i32>()
        .create("a")
        .unwrap_err();
    assert!(e.to_string().contains("virtual dataset"), "{e}");
    f.create_group("added").unwrap();
    f.close().unwrap();
    if let (Some(before), Some(after)) = (before, h5dump_ok(&p)) {
        let added = "   GROUP \"added\" {\n   }\n";
        assert!(after.contains(added), "{after}");
        let src_name = src.display().to_string();
        let dst_name = p.display().to_string();
        assert_eq!(
            after.replace(added, "").replace(&dst_name, &src_name),
            before.replace(&dst_name, &src_name)
        );
    }
    let leftovers: Vec<_> = std::fs::read_dir(p.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("h5rw"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn chunks_behind_an_unknown_filter_are_carried_over() {
    // tudfilter.h5: a dataset behind the library's test plugin filter (id 300), which this
    // crate cannot decode or encode. open_rw keeps its stored chunks byte for byte; a write
    // into it is a clear error and the file stays valid.
    let Some(src) = corpus_file("tudfilter.h5") else {
        return;
    };
    let p = tmp("tudfilter.h5");
    std::fs::copy(&src, &p).unwrap();
    let f = h5::File::open_rw(&p).unwrap();
    let e = f
        .dataset("dynlibud")
        .unwrap()
        .write(&[0i32; 200])
        .unwrap_err();
    assert!(e.to_string().contains("300"), "{e}");
    f.new_attr::<u8>()
        .create("touched")
        .unwrap()
        .write(&[1])
        .unwrap();
    f.close().unwrap();
    let (a, b) = (h5::File::open(&src).unwrap(), h5::File::open(&p).unwrap());
    let (da, db) = (
        a.dataset("dynlibud").unwrap(),
        b.dataset("dynlibud").unwrap(),
    );
    assert_eq!(da.filters(), db.filters());
    assert_eq!(db.chunk_dims(), Some(vec![10, 5]));
    let mut n = 0;
    for i in 0..2 {
        for j in 0..2 {
            let ca = da.raw_chunk(&[i, j]).unwrap().unwrap();
            assert_eq!(db.raw_chunk(&[i, j]).unwrap(), Some(ca));
            n += 1;
        }
    }
    assert_eq!(n, 4);
    if let Some(exe) = h5_oracle::require("h5dump", h5_oracle::tool("h5dump")) {
        h5_oracle::run(&exe, &["-H", p.to_str().unwrap()], b"").unwrap();
    }
}

#[test]
fn user_block_files_keep_their_user_block() {
    let p = tmp("userblock.h5");
    let script = "import sys, h5py\nwith h5py.File(sys.argv[1], 'w', userblock_size=512) as f:\n    f['x'] = [1, 2]\nwith open(sys.argv[1], 'r+b') as f:\n    f.write(b'my user block')\n";
    if python(script, &p).is_none() {
        return;
    }
    let before = std::fs::read(&p).unwrap();
    let f = h5::File::open_rw(&p).unwrap();
    f.new_dataset::<i32>()
        .shape(&[2])
        .create("y")
        .unwrap()
        .write(&[3, 4])
        .unwrap();
    f.close().unwrap();
    let after = std::fs::read(&p).unwrap();
    assert!(after[..512] == before[..512], "the user block changed");
    let out = python(
        "import sys,h5py\nf=h5py.File(sys.argv[1])\nprint(f['x'][:].tolist(), f['y'][:].tolist(), f.userblock_size)",
        &p,
    )
    .unwrap();
    assert_eq!(out.trim(), "[1, 2] [3, 4] 512");
    h5dump_ok(&p).unwrap();
}

#[test]
fn reference_library_file_with_every_link_kind() {
    // tall.h5 (superblock 0): soft, external and user-defined links, references, vlen data,
    // a comment; modified in place, everything else stays as h5dump printed it.
    let Some(src) = corpus_file("tall.h5") else {
        return;
    };
    let p = tmp("tall.h5");
    std::fs::copy(&src, &p).unwrap();
    let before = h5dump_ok(&p);
    let f = h5::File::open_rw(&p).unwrap();
    f.create_group("added").unwrap();
    f.close().unwrap();
    if let (Some(before), Some(after)) = (before, h5dump_ok(&p)) {
        let added = "   GROUP \"added\" {\n   }\n";
        let before: String = before.lines().skip(1).map(|l| format!("{l}\n")).collect();
        let after: String = after.lines().skip(1).map(|l| format!("{l}\n")).collect();
        assert!(after.contains(added), "{after}");
        assert_eq!(after.replacen(added, "", 1), before);
        assert!(after.contains("USERDEFINED_LINK \"udlink\""));
    }
}

/// The shared corpus folder `sub`, if present.
fn corpus(sub: &str) -> Option<PathBuf> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|a| a.join("shared/corpus").join(sub))
        .find(|p| p.is_dir())
}

/// Every file of the reference corpus and every malformed file, opened for writing and
/// closed without a change: no panic; a file opened in place is left byte for byte as it
/// was, a file rewritten whole (or refused) still opens with our reader as before.
#[test]
fn corpus_files_opened_and_closed_without_a_change() {
    let mut counts = [0usize; 3]; // unchanged, rewritten, refused
    for sub in ["h5dump", "bad"] {
        let Some(dir) = corpus(sub) else {
            eprintln!("shared corpus not found; skipped");
            return;
        };
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "h5"))
            .collect();
        files.sort();
        for src in files {
            let name = src.file_name().unwrap().to_string_lossy().into_owned();
            let p = tmp(&format!("corpus-{sub}-{name}"));
            std::fs::copy(&src, &p).unwrap();
            let before = std::fs::read(&p).unwrap();
            let readable = h5::File::open(&p).is_ok();
            match h5::File::open_rw(&p) {
                Ok(f) => {
                    if let Err(e) = f.close() {
                        panic!("{sub}/{name}: closing without a change failed: {e}");
                    }
                    let after = std::fs::read(&p).unwrap();
                    if after == before {
                        counts[0] += 1;
                    } else {
                        counts[1] += 1;
                        assert!(
                            h5::File::open(&p).is_ok() || !readable,
                            "{sub}/{name}: rewritten, and no longer opens"
                        );
                    }
                }
                Err(_) => {
                    counts[2] += 1;
                    assert_eq!(
                        std::fs::read(&p).unwrap(),
                        before,
                        "{sub}/{name}: refused, yet changed"
                    );
                }
            }
            let _ = std::fs::remove_file(&p);
        }
    }
    eprintln!(
        "open_rw + close: {} unchanged, {} rewritten whole, {} refused",
        counts[0], counts[1], counts[2]
    );
    assert!(counts[0] > 100, "{counts:?}");
}

/// The `.h5` files of the reference corpus and of the h5py fixtures, sorted; `None` without
/// the shared corpus.
fn corpus_and_fixture_files() -> Option<Vec<PathBuf>> {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../h5-io/tests/fixtures/h5py");
    let mut files: Vec<PathBuf> = [corpus("h5dump")?, fixtures]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap())
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "h5"))
        .collect();
    files.sort();
    Some(files)
}

/// h5dump's output of `path` without its first line, or `None` when it fails, takes more
/// than 20 seconds or prints more than 16 MiB (a dump of billions of fill values).
fn dump_body(h5dump: &Path, path: &Path) -> Option<String> {
    dump_body_args(h5dump, &[], path)
}

/// [`dump_body`] with h5dump options.
fn dump_body_args(h5dump: &Path, args: &[&str], path: &Path) -> Option<String> {
    use std::io::Read;
    let mut child = std::process::Command::new(h5dump)
        .args(args)
        .arg(path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = stdout.take(16 << 20).read_to_end(&mut v);
        v
    });
    let start = std::time::Instant::now();
    let status = loop {
        match child.try_wait().ok()? {
            Some(s) => break s,
            None if start.elapsed() > std::time::Duration::from_secs(20) => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            None => std::thread::sleep(std::time::Duration::from_millis(10)),
        }
    };
    let out = reader.join().ok()?;
    if !status.success() || out.len() >= 16 << 20 {
        return None;
    }
    let text = String::from_utf8_lossy(&out).into_owned();
    Some(text.lines().skip(1).collect::<Vec<_>>().join("\n"))
}

/// Every corpus and fixture file that opens in place, given a new group holding a dataset
/// at its root:
/// h5dump prints every object the file had exactly as before, and the new ones as written;
/// the file walks clean.
#[test]
fn corpus_files_changed_in_place_keep_everything_else() {
    let Some(h5dump) = h5_oracle::require("h5dump", h5_oracle::tool("h5dump")) else {
        return;
    };
    // The reference corpus (mostly the compatible format) and the h5py fixtures (the latest
    // format: every chunk index, dense groups and attributes, superblocks 2 and 3).
    let Some(files) = corpus_and_fixture_files() else {
        eprintln!("shared corpus not found; skipped");
        return;
    };
    let new_block = "   GROUP \"zzzz_new\" {";
    let mut checked = 0;
    for src in files {
        let name = src.file_name().unwrap().to_string_lossy().into_owned();
        let p = tmp(&format!("changed-{name}"));
        std::fs::copy(&src, &p).unwrap();
        let Some(before) = dump_body(&h5dump, &p) else {
            continue;
        };
        let Ok(f) = h5::File::open_rw(&p) else {
            continue;
        };
        let added = f
            .new_dataset::<i32>()
            .shape(&[3])
            .create("zzzz_new/data")
            .and_then(|d| d.write(&[1, 2, 3]));
        if let Err(e) = added {
            panic!("{name}: {e}");
        }
        f.close().unwrap_or_else(|e| panic!("{name}: {e}"));
        let after = dump_body(&h5dump, &p)
            .unwrap_or_else(|| panic!("{name}: h5dump fails after the change"));
        // The new group sorts last at the root: cut its block out.
        let lines: Vec<&str> = after.lines().collect();
        let start = lines
            .iter()
            .position(|l| *l == new_block)
            .unwrap_or_else(|| panic!("{name}: the new group is missing:\n{after}"));
        let len = lines[start..]
            .iter()
            .position(|l| *l == "   }")
            .unwrap_or_else(|| panic!("{name}: the new group's block does not end"));
        let block = lines[start..=start + len].join("\n");
        assert!(block.contains("(0): 1, 2, 3"), "{name}: {block}");
        let mut rest: Vec<&str> = lines[..start].to_vec();
        rest.extend_from_slice(&lines[start + len + 1..]);
        assert_eq!(rest.join("\n"), before, "{name}: other objects changed");
        let report = h5::format::walk::walk(&std::fs::read(&p).unwrap());
        assert!(report.problems.is_empty(), "{name}: {:?}", report.problems);
        checked += 1;
        let _ = std::fs::remove_file(&p);
    }
    eprintln!("{checked} files changed in place and compared");
    assert!(checked > 120, "{checked}");
}

/// The datasets of a file (first path of each), found through hard links.
fn dataset_paths(f: &h5::File) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut queue = std::collections::VecDeque::from(["/".to_owned()]);
    while let Some(path) = queue.pop_front() {
        let Ok(g) = f.group(&path) else { continue };
        let Ok(links) = g.links() else { continue };
        for l in links {
            let h5::LinkTarget::Hard(a) = l.target else {
                continue;
            };
            if !seen.insert(a.0) {
                continue;
            }
            let child = if path == "/" {
                format!("/{}", l.name)
            } else {
                format!("{path}/{}", l.name)
            };
            match g.node(&l.name) {
                Ok(h5::Node::Group(_)) => queue.push_back(child),
                Ok(h5::Node::Dataset(_)) => out.push(child),
                _ => {}
            }
        }
    }
    out
}

/// Every dataset of every corpus and fixture file that opens in place gets its first element
/// written again (the same value): its header and storage are rewritten by our writer, and
/// `h5dump -p` (layout, filters, fill value, data) prints the file exactly as before.
#[test]
fn corpus_datasets_rewritten_in_place_dump_the_same() {
    let Some(h5dump) = h5_oracle::require("h5dump", h5_oracle::tool("h5dump")) else {
        return;
    };
    let Some(files) = corpus_and_fixture_files() else {
        eprintln!("shared corpus not found; skipped");
        return;
    };
    let (mut rewritten, mut refused) = (0, 0);
    for src in files {
        let name = src.file_name().unwrap().to_string_lossy().into_owned();
        let p = tmp(&format!("rewritten-{name}"));
        std::fs::copy(&src, &p).unwrap();
        // A chunk compressed again need not take the same bytes: compressed sizes aside.
        let dump = |p: &Path| {
            dump_body_args(&h5dump, &["-p"], p).map(|t| {
                t.lines()
                    .map(|l| match l.find(":1 COMPRESSION)") {
                        Some(_) => "SIZE (compressed)",
                        None => l,
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        };
        let Some(before) = dump(&p) else { continue };
        let Ok(r) = h5::File::open(&p) else { continue };
        let mut firsts = Vec::new();
        for path in dataset_paths(&r) {
            let Ok(d) = r.dataset(&path) else { continue };
            let dt = d.datatype().clone();
            let space = d.dataspace().clone();
            if d.is_empty() || dt.has_variable_length() || space.rank() == 0 {
                continue;
            }
            // Writing where no storage is allocated allocates it (the size h5dump -p prints
            // changes, as with the reference library): only allocated elements are written.
            let allocated = match d.chunk_dims() {
                Some(_) => matches!(d.raw_chunk(&vec![0; space.rank()]), Ok(Some(_))),
                None => d.storage_size().is_ok_and(|n| n > 0),
            };
            if !allocated {
                continue;
            }
            let Ok(sel) = h5::read::Selection::element(&space, &vec![0; space.rank()]) else {
                continue;
            };
            let Ok(bytes) = d.read_raw_selection(&sel, &h5::read::MemoryMap::packed(1)) else {
                continue;
            };
            firsts.push((path, dt, sel, bytes));
        }
        drop(r);
        if firsts.is_empty() {
            continue;
        }
        let Ok(f) = h5::File::open_rw(&p) else {
            continue;
        };
        let heap = h5::types::convert::VarLenHeap::new();
        for (path, dt, sel, bytes) in &firsts {
            match f
                .dataset(path)
                .and_then(|d| d.write_raw(Some(sel), dt, bytes, &heap))
            {
                Ok(()) => rewritten += 1,
                // Refused changes (virtual datasets, external storage...) leave it as it was.
                Err(_) => refused += 1,
            }
        }
        f.close().unwrap_or_else(|e| panic!("{name}: {e}"));
        let after = dump(&p).unwrap_or_else(|| panic!("{name}: h5dump -p fails after the change"));
        assert_eq!(
            after, before,
            "{name}: h5dump -p differs after rewriting datasets in place"
        );
        let report = h5::format::walk::walk(&std::fs::read(&p).unwrap());
        assert!(report.problems.is_empty(), "{name}: {:?}", report.problems);
        let _ = std::fs::remove_file(&p);
    }
    eprintln!("{rewritten} datasets rewritten in place, {refused} refused");
    assert!(rewritten > 200, "{rewritten}");
}
