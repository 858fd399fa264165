//! Crash safety of flushes: a scripted sequence of changes and flushes runs with its N-th
//! write failing (and every later one), for every N; the file left behind must open with the
//! reference library (h5dump exits 0, h5py reads every dataset and attribute) and hold each
//! object as the last completed flush left it or as the failed one would have.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use h5_types::h5type::VarLenHeap;
use h5_types::{Datatype, H5Type};
use serde_json::Value;

use super::*;
use crate::selection::{Dataspace, Selection, UNLIMITED};

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("h5-io-crash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn i32t() -> Datatype {
    <i32 as H5Type>::h5_type()
}

fn bytes(v: impl IntoIterator<Item = i32>) -> Vec<u8> {
    v.into_iter().flat_map(i32::to_le_bytes).collect()
}

fn dataset(
    w: &mut FileWriter,
    path: &str,
    space: Dataspace,
    storage: StorageSpec,
    values: impl IntoIterator<Item = i32>,
) -> Result<ObjId> {
    let mut spec = DatasetSpec::new(i32t(), space);
    spec.storage = storage;
    let id = w.create_dataset(w.root(), path, spec)?;
    w.write_dataset(id, None, &i32t(), &bytes(values), &VarLenHeap::new())?;
    Ok(id)
}

fn attr(w: &mut FileWriter, obj: ObjId, name: &str, values: &[i32]) -> Result<()> {
    let space = Dataspace::simple(&[values.len() as u64]).map_err(crate::write::Error::from)?;
    w.create_attribute(obj, name, &i32t(), None, space)?;
    w.write_attribute(
        obj,
        name,
        &i32t(),
        &bytes(values.iter().copied()),
        &VarLenHeap::new(),
    )
}

fn write_part(w: &mut FileWriter, path: &str, start: &[u64], count: &[u64], v: i32) -> Result<()> {
    let id = w.open(w.root(), path)?;
    let space = w.dataset_space(id)?.clone();
    let sel = Selection::hyperslab(&space, start, None, count, None)?;
    let n: u64 = count.iter().product();
    w.write_dataset(
        id,
        Some(&sel),
        &i32t(),
        &bytes((0..n as i32).map(|i| v + i)),
        &VarLenHeap::new(),
    )
}

/// The changes of phase `k` (0: the starting file); each phase ends with a flush.
fn phase(w: &mut FileWriter, k: usize) -> Result<()> {
    let root = w.root();
    match k {
        0 => {
            attr(w, root, "a0", &[1])?;
            attr(w, root, "a1", &[2, 3])?;
            w.create_group(root, "g")?;
            dataset(
                w,
                "g/chunk",
                Dataspace::with_max(&[16], &[UNLIMITED])?,
                StorageSpec::Chunked(vec![4]),
                0..16,
            )?;
            dataset(
                w,
                "g/fixed",
                Dataspace::simple(&[16])?,
                StorageSpec::Chunked(vec![4]),
                100..116,
            )?;
            dataset(
                w,
                "g/bt2",
                Dataspace::with_max(&[4, 4], &[UNLIMITED, UNLIMITED])?,
                StorageSpec::Chunked(vec![2, 2]),
                300..316,
            )?;
            dataset(
                w,
                "contig",
                Dataspace::simple(&[8])?,
                StorageSpec::Contiguous,
                500..508,
            )?;
            for i in 0..10 {
                w.create_group(root, &format!("many/m{i:02}"))?;
            }
        }
        1 => {
            write_part(w, "g/chunk", &[0], &[8], 1000)?;
            dataset(
                w,
                "g/new1",
                Dataspace::simple(&[4])?,
                StorageSpec::Contiguous,
                600..604,
            )?;
            let g = w.open(root, "g")?;
            for i in 0..10 {
                attr(w, g, &format!("b{i}"), &[i])?;
            }
            w.create_group(root, "many/m10")?;
            let c = w.open(root, "g/chunk")?;
            w.resize(c, &[24])?;
            write_part(w, "g/chunk", &[16], &[8], 2000)?;
        }
        2 => {
            write_part(w, "g/fixed", &[0], &[16], 200)?;
            write_part(w, "g/bt2", &[1, 1], &[2, 3], 400)?;
            w.create_group(root, "h/deep/er")?;
            dataset(
                w,
                "h/deep/d",
                Dataspace::simple(&[6])?,
                StorageSpec::Chunked(vec![3]),
                700..706,
            )?;
            let c = w.open(root, "contig")?;
            let big: Vec<i32> = (0..300).collect();
            attr(w, c, "big", &big)?;
            attr(w, root, "a2", &[4])?;
        }
        _ => {
            write_part(w, "g/chunk", &[0], &[4], 3000)?;
            let g = w.open(root, "g")?;
            attr(w, g, "c0", &[7])?;
            w.create_group(root, "many/m11")?;
            write_part(w, "h/deep/d", &[3], &[3], 800)?;
        }
    }
    w.flush()
}

const PHASES: usize = 4;

/// How a scripted run starts (the file it opens, ready for phase 1) and its phases.
struct Script<'a> {
    open: &'a dyn Fn(&Path) -> FileWriter,
    phase: &'a dyn Fn(&mut FileWriter, usize) -> Result<()>,
    phases: usize,
}

/// Run the script with the `fail_at`-th write failing (none: no fault; the file as opened
/// and after each phase is copied to `snapshots`). Returns the phases completed and whether
/// a write failed.
fn run(
    path: &Path,
    script: &Script<'_>,
    fail_at: Option<u64>,
    snapshots: &[PathBuf],
) -> (usize, bool) {
    let mut w = (script.open)(path);
    if let Some(s) = snapshots.first() {
        std::fs::copy(path, s).unwrap();
    }
    if let Some(n) = fail_at {
        w.inject_fault(n);
    }
    let mut done = 0;
    for k in 1..script.phases {
        if (script.phase)(&mut w, k).is_err() {
            drop(w);
            return (done, true);
        }
        done += 1;
        if let Some(s) = snapshots.get(k) {
            std::fs::copy(path, s).unwrap();
        }
    }
    if fail_at.is_none() {
        assert_eq!(
            w.inplace_other, 0,
            "a block the file references was overwritten"
        );
        assert!(w.space.reused > 0, "no space freed by a flush was reused");
    }
    let failed = w.close().is_err();
    (done, failed)
}

const DUMP: &str = r#"
import sys, json, h5py, numpy as np
for p in sys.argv[1:]:
    try:
        out = {}
        with h5py.File(p, 'r') as f:
            def visit(name, obj):
                if isinstance(obj, h5py.Dataset) and h5py.check_ref_dtype(obj.dtype):
                    out[name] = [f[r].name for r in obj[()]]
                elif isinstance(obj, h5py.Dataset):
                    out[name] = np.asarray(obj[()]).tolist()
                else:
                    out[name + '/'] = sorted(obj.keys())
                for k in obj.attrs:
                    out[name + '@' + k] = np.asarray(obj.attrs[k]).tolist()
            visit('', f)
            f.visititems(visit)
        print(json.dumps({"ok": True, "objects": out}))
    except Exception as e:
        print(json.dumps({"ok": False, "error": repr(e)}))
"#;

/// What h5py reads of each file: every object's value by path (or the error).
fn dump(files: &[PathBuf]) -> Option<Vec<Result<BTreeMap<String, Value>, String>>> {
    let exe = h5_oracle::require("h5py", h5_oracle::h5py())?;
    let mut args = vec!["-c", DUMP];
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    args.extend(names.iter().map(String::as_str));
    let out = h5_oracle::run(&exe, &args, b"").expect("python runs");
    let text = String::from_utf8(out).unwrap();
    let rows: Vec<_> = text
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            if v["ok"] == Value::Bool(true) {
                let m = v["objects"].as_object().unwrap();
                Ok(m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            } else {
                Err(v["error"].to_string())
            }
        })
        .collect();
    assert_eq!(rows.len(), files.len());
    Some(rows)
}

fn every_prefix_of_writes_leaves_a_readable_file(tag: &str, script: &Script<'_>) {
    let Some(h5dump) = h5_oracle::require("h5dump", h5_oracle::tool("h5dump")) else {
        return;
    };
    let snaps: Vec<PathBuf> = (0..script.phases)
        .map(|k| tmp(&format!("{tag}-state{k}.h5")))
        .collect();
    run(&tmp(&format!("{tag}-ref.h5")), script, None, &snaps);
    let Some(states) = dump(&snaps) else {
        return;
    };
    let states: Vec<BTreeMap<String, Value>> = states
        .into_iter()
        .map(|s| s.expect("reference states read"))
        .collect();
    // Every N until the script runs through without failing.
    let mut cases = Vec::new();
    for n in 1.. {
        let p = tmp(&format!("{tag}-fail{n}.h5"));
        let (done, failed) = run(&p, script, Some(n), &[]);
        if !failed {
            std::fs::remove_file(&p).ok();
            break;
        }
        cases.push((n, p, done));
        assert!(n < 10_000, "the script never stops failing");
    }
    assert!(
        cases.len() > 20,
        "only {} writes in the script",
        cases.len()
    );
    eprintln!("{tag}: {} fault points checked", cases.len());
    for (n, p, _) in &cases {
        let out = std::process::Command::new(&h5dump).arg(p).output().unwrap();
        assert!(
            out.status.success(),
            "{tag}: h5dump fails on the file left by a fault at write {n}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let files: Vec<PathBuf> = cases.iter().map(|c| c.1.clone()).collect();
    let Some(rows) = dump(&files) else {
        return;
    };
    for ((n, _, done), row) in cases.iter().zip(rows) {
        let got =
            row.unwrap_or_else(|e| panic!("{tag}: h5py fails after a fault at write {n}: {e}"));
        let old = &states[*done];
        let new = states.get(done + 1).unwrap_or(old);
        let keys: std::collections::BTreeSet<&String> =
            got.keys().chain(old.keys()).chain(new.keys()).collect();
        for k in keys {
            let g = got.get(k);
            assert!(
                g == old.get(k) || g == new.get(k),
                "{tag}: fault at write {n} (after {done} flushes): {k} is {g:?}, neither {:?} \
                 nor {:?}",
                old.get(k),
                new.get(k)
            );
        }
    }
    for (_, p, _) in cases {
        std::fs::remove_file(p).ok();
    }
}

fn created(format: FileFormat) -> impl Fn(&Path) -> FileWriter {
    move |p: &Path| {
        let mut w = FileWriter::create(p, format).unwrap();
        phase(&mut w, 0).unwrap();
        w
    }
}

#[test]
fn flush_prefixes_are_readable_compatible() {
    let open = created(FileFormat::Compatible);
    let script = Script {
        open: &open,
        phase: &phase,
        phases: PHASES,
    };
    every_prefix_of_writes_leaves_a_readable_file("Compatible", &script);
}

#[test]
fn flush_prefixes_are_readable_latest() {
    let open = created(FileFormat::Latest);
    let script = Script {
        open: &open,
        phase: &phase,
        phases: PHASES,
    };
    every_prefix_of_writes_leaves_a_readable_file("Latest", &script);
}

/// A file h5py writes: chunked datasets of its index kinds, a group with more links than a
/// compact group holds, an object with more attributes than compact storage holds, a
/// contiguous dataset, object references.
const MAKE: &str = r#"
import sys, h5py, numpy as np
path, libver = sys.argv[1], sys.argv[2]
f = h5py.File(path, 'w', libver=libver)
f.attrs['a0'] = np.array([1], dtype='<i4')
g = f.create_group('g')
g.create_dataset('chunk', data=np.arange(16, dtype='<i4'), maxshape=(None,), chunks=(4,))
g.create_dataset('fixed', data=np.arange(100, 116, dtype='<i4'), chunks=(4,))
f.create_dataset('contig', data=np.arange(500, 508, dtype='<i4'))
many = f.create_group('many')
for i in range(10):
    many.create_group('m%02d' % i)
a = f.create_dataset('attrs', data=np.zeros(2, dtype='<i4'))
for i in range(10):
    a.attrs['b%d' % i] = np.array([i], dtype='<i4')
refs = f.create_dataset('refs', (2,), dtype=h5py.ref_dtype)
refs[0] = f['g/fixed'].ref
refs[1] = f['many'].ref
f.close()
"#;

/// Changes of a file h5py wrote, opened in place.
fn inplace_phase(w: &mut FileWriter, k: usize) -> Result<()> {
    let root = w.root();
    match k {
        1 => {
            write_part(w, "g/chunk", &[0], &[4], 1000)?;
            w.create_group(root, "many/m10")?;
            let a = w.open(root, "attrs")?;
            attr(w, a, "b10", &[10])?;
            dataset(
                w,
                "new/d",
                Dataspace::simple(&[4])?,
                StorageSpec::Chunked(vec![2]),
                600..604,
            )?;
        }
        2 => {
            let c = w.open(root, "g/chunk")?;
            w.resize(c, &[20])?;
            write_part(w, "g/chunk", &[16], &[4], 2000)?;
            write_part(w, "g/fixed", &[0], &[16], 200)?;
            let c = w.open(root, "contig")?;
            let big: Vec<i32> = (0..300).collect();
            attr(w, c, "big", &big)?;
            attr(w, root, "a1", &[4])?;
        }
        _ => {
            write_part(w, "g/chunk", &[4], &[4], 3000)?;
            w.create_group(root, "many/m11")?;
            write_part(w, "new/d", &[0], &[2], 700)?;
        }
    }
    w.flush()
}

fn inplace_prefixes(libver: &str) {
    let original = tmp(&format!("h5py-{libver}.h5"));
    let Some(exe) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    h5_oracle::run(&exe, &["-c", MAKE, original.to_str().unwrap(), libver], b"").unwrap();
    let open = |p: &Path| {
        std::fs::copy(&original, p).unwrap();
        FileWriter::open_rw(p).unwrap()
    };
    let script = Script {
        open: &open,
        phase: &inplace_phase,
        phases: 4,
    };
    every_prefix_of_writes_leaves_a_readable_file(&format!("inplace-{libver}"), &script);
}

#[test]
fn in_place_flush_prefixes_are_readable_compatible() {
    inplace_prefixes("earliest");
}

#[test]
fn in_place_flush_prefixes_are_readable_latest() {
    inplace_prefixes("latest");
}

/// Object management between flushes: links removed (objects freed, their space reused by
/// what comes next) and moved, attributes deleted and renamed, a group copied within the
/// file; on a file this writer made (phase 0 of [`phase`]).
fn manage_phase(w: &mut FileWriter, k: usize) -> Result<()> {
    let root = w.root();
    match k {
        0 => return phase(w, 0),
        1 => {
            w.unlink(root, "g/fixed")?;
            w.rename(root, "contig", "g/contig2")?;
            for i in 3..8 {
                w.unlink(root, &format!("many/m{i:02}"))?;
            }
            w.delete_attribute(root, "a1")?;
            w.rename_attribute(root, "a0", "first")?;
            dataset(
                w,
                "g/again",
                Dataspace::simple(&[16])?,
                StorageSpec::Chunked(vec![4]),
                900..916,
            )?;
        }
        2 => {
            // (flushes, then copies)
            w.copy_within(root, "g", root, "gcopy")?;
            w.unlink(root, "g/chunk")?;
            w.create_group(root, "h")?;
            w.rename(root, "many", "h/many")?;
        }
        _ => {
            w.unlink(root, "gcopy")?;
            let c = w.open(root, "g/contig2")?;
            attr(w, c, "x", &[1, 2])?;
            dataset(
                w,
                "d",
                Dataspace::simple(&[8])?,
                StorageSpec::Contiguous,
                50..58,
            )?;
        }
    }
    w.flush()
}

#[test]
fn object_management_flush_prefixes_are_readable() {
    for format in [FileFormat::Compatible, FileFormat::Latest] {
        let open = |p: &Path| {
            let mut w = FileWriter::create(p, format).unwrap();
            manage_phase(&mut w, 0).unwrap();
            w
        };
        let script = Script {
            open: &open,
            phase: &manage_phase,
            phases: PHASES,
        };
        every_prefix_of_writes_leaves_a_readable_file(&format!("manage-{format:?}"), &script);
    }
}

/// Object management on a file h5py wrote ([`MAKE`]), opened in place (the objects its
/// references point to stay).
fn inplace_manage_phase(w: &mut FileWriter, k: usize) -> Result<()> {
    let root = w.root();
    match k {
        1 => {
            w.unlink(root, "contig")?;
            w.rename(root, "g/chunk", "moved")?;
            for i in 0..5 {
                w.unlink(root, &format!("many/m{i:02}"))?;
            }
            let a = w.open(root, "attrs")?;
            for i in 0..6 {
                w.delete_attribute(a, &format!("b{i}"))?;
            }
            w.rename_attribute(a, "b9", "nine")?;
            dataset(
                w,
                "again",
                Dataspace::simple(&[8])?,
                StorageSpec::Contiguous,
                10..18,
            )?;
        }
        2 => {
            w.copy_within(root, "g", root, "gcopy")?;
            w.delete_attribute(root, "a0")?;
            w.rename(root, "many", "g/many")?;
        }
        _ => {
            w.unlink(root, "gcopy")?;
            w.unlink(root, "moved")?;
            write_part(w, "g/fixed", &[0], &[4], 70)?;
        }
    }
    w.flush()
}

fn inplace_manage_prefixes(libver: &str) {
    let original = tmp(&format!("h5py-manage-{libver}.h5"));
    let Some(exe) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    h5_oracle::run(&exe, &["-c", MAKE, original.to_str().unwrap(), libver], b"").unwrap();
    let open = |p: &Path| {
        std::fs::copy(&original, p).unwrap();
        FileWriter::open_rw(p).unwrap()
    };
    let script = Script {
        open: &open,
        phase: &inplace_manage_phase,
        phases: 4,
    };
    every_prefix_of_writes_leaves_a_readable_file(&format!("inplace-manage-{libver}"), &script);
}

#[test]
fn in_place_object_management_flush_prefixes_are_readable() {
    inplace_manage_prefixes("earliest");
    inplace_manage_prefixes("latest");
}

/// SWMR appends (extensible array, fixed array and version 2 B-tree indexes) with the N-th
/// write failing, for every N, as a writer killed there: the file left marked open for SWMR
/// writing opens for SWMR reading with every record of the last completed flush (and each
/// value right); once `clear_status_flags` reset the marks (`h5 clear`), the reference
/// h5dump reads it and our reader opens it plainly.
#[test]
fn swmr_appends_cut_short_keep_every_record_of_the_last_completed_flush() {
    const PER: u64 = 4;
    const FLUSHES: u64 = 12;
    const N: u64 = PER * FLUSHES;
    fn run(path: &Path, fail_at: Option<u64>) -> (u64, bool) {
        let mut w = FileWriter::create(path, FileFormat::Latest).unwrap();
        let unlimited =
            |dims: &[u64]| Dataspace::with_max(dims, &vec![UNLIMITED; dims.len()]).unwrap();
        let chunked = |dims: &[u64]| StorageSpec::Chunked(dims.to_vec());
        let ea = dataset(&mut w, "ea", unlimited(&[0]), chunked(&[4]), []).unwrap();
        let mut spec = DatasetSpec::new(i32t(), Dataspace::simple(&[N]).unwrap());
        spec.storage = chunked(&[4]);
        spec.fill_value = Some(bytes([-1]));
        let fa = w.create_dataset(w.root(), "fa", spec).unwrap();
        let bt = dataset(&mut w, "bt", unlimited(&[0, 2]), chunked(&[4, 2]), []).unwrap();
        w.start_swmr().unwrap();
        if let Some(n) = fail_at {
            w.inject_fault(n);
        }
        let mut done = 0;
        let mut failed = false;
        for k in 0..FLUSHES {
            let (lo, hi) = (k * PER, (k + 1) * PER);
            let step = (|| -> Result<()> {
                w.resize(ea, &[hi])?;
                write_part(&mut w, "ea", &[lo], &[PER], lo as i32)?;
                write_part(&mut w, "fa", &[lo], &[PER], lo as i32)?;
                w.resize(bt, &[hi, 2])?;
                write_part(&mut w, "bt", &[lo, 0], &[PER, 2], 2 * lo as i32)?;
                w.flush()
            })();
            if step.is_err() {
                failed = true;
                break;
            }
            done = hi;
        }
        let _ = fa;
        if failed {
            // Killed: nothing more reaches the file (the faulty storage fails every later
            // write, so dropping cannot clear the marks either).
            drop(w);
        } else {
            failed = w.close().is_err();
        }
        (done, failed)
    }
    let check = |p: &Path, done: u64, n: u64| {
        let f = crate::File::open_with(p, crate::OpenOptions::new().swmr(true))
            .unwrap_or_else(|e| panic!("fault at write {n}: SWMR open: {e}"));
        let read = |name: &str| -> Vec<i32> {
            let d = f.root().unwrap().dataset(name).unwrap();
            d.read::<i32>()
                .unwrap_or_else(|e| panic!("fault at write {n}: {name}: {e}"))
        };
        let ea = read("ea");
        assert!(
            ea.len() as u64 >= done,
            "fault at write {n}: /ea has {} of {done}",
            ea.len()
        );
        assert!(ea.len() as u64 <= done + PER);
        for (i, v) in ea.iter().enumerate() {
            assert_eq!(*v, i as i32, "fault at write {n}: /ea[{i}]");
        }
        let bt = read("bt");
        assert!(bt.len() as u64 >= 2 * done, "fault at write {n}: /bt");
        for (i, v) in bt.iter().enumerate() {
            assert_eq!(*v, i as i32, "fault at write {n}: /bt[{i}]");
        }
        let fa = read("fa");
        for (i, v) in fa.iter().enumerate() {
            if (i as u64) < done {
                assert_eq!(*v, i as i32, "fault at write {n}: /fa[{i}]");
            } else {
                assert!(
                    *v == i as i32 || *v == -1,
                    "fault at write {n}: /fa[{i}] = {v}"
                );
            }
        }
    };
    let h5dump = h5_oracle::require("h5dump", h5_oracle::tool("h5dump"));
    let mut cases = 0;
    for n in 1.. {
        let p = tmp(&format!("swmr-fail{n}.h5"));
        let (done, failed) = run(&p, Some(n));
        if !failed {
            check(&p, N, n);
            std::fs::remove_file(&p).ok();
            break;
        }
        assert!(n < 10_000, "the script never stops failing");
        cases += 1;
        let marked = crate::File::open(&p);
        assert_eq!(
            marked.map(drop).unwrap_err().kind(),
            crate::ErrorKind::InUse,
            "fault at write {n}: the file is not reported as left open"
        );
        check(&p, done, n);
        assert_eq!(clear_status_flags(&p).unwrap(), Some(0x5));
        crate::File::open(&p).unwrap();
        if let Some(h5dump) = &h5dump {
            let out = std::process::Command::new(h5dump).arg(&p).output().unwrap();
            assert!(
                out.status.success(),
                "h5dump fails on the file left by a fault at write {n} (after clearing): {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::fs::remove_file(&p).ok();
    }
    assert!(cases > 50, "only {cases} writes in the script");
    eprintln!("swmr: {cases} fault points checked");
}
