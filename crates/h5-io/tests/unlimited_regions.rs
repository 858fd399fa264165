//! Region references to unlimited hyperslabs (a count or block of `H5S_UNLIMITED`), revised
//! (HDF5 2.x `H5R_ref_t`, written through the HDF5 2.0 library h5py bundles) and old
//! (`hdset_reg_ref_t`, written by h5py): they dereference, and the selection is the
//! reference library's hyperslab (read back with `H5Ropen_region`/`H5Rget_region` and
//! `H5Sget_regular_hyperslab`) on the dataset's current extent, the unlimited count or block
//! clipped at its end.

use std::path::{Path, PathBuf};
use std::process::Command;

use h5_io::reference::{revised_reference, Target};
use h5_io::File;

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("unlimited_regions");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn python(py: &Path, args: &[&str]) -> String {
    let out = Command::new(py).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A regular hyperslab as the reference library reports it: start, stride, count, block,
/// `None` for `H5S_UNLIMITED`.
type Slab = [Vec<Option<u64>>; 4];

fn parse_slab(line: &str) -> Slab {
    let v: Vec<Vec<Option<u64>>> = line
        .split_whitespace()
        .map(|f| f.split(',').map(|x| x.parse().ok()).collect())
        .collect();
    [v[0].clone(), v[1].clone(), v[2].clone(), v[3].clone()]
}

/// Row-major indexes of the elements of `slab` inside `extent`: every block that starts
/// inside the extent, cut at its end; an unlimited block reaches the end.
fn elements(slab: &Slab, extent: &[u64]) -> Vec<u64> {
    let rank = extent.len();
    let per_dim: Vec<Vec<u64>> = (0..rank)
        .map(|i| {
            let start = slab[0][i].unwrap();
            let stride = slab[1][i].unwrap().max(1);
            let n = extent[i];
            let mut out = Vec::new();
            let mut b = 0u64;
            while slab[2][i].is_none_or(|c| b < c) {
                let s = start + b * stride;
                if s >= n {
                    break;
                }
                let end = slab[3][i].map_or(n, |bl| (s + bl).min(n));
                out.extend(s..end);
                b += 1;
            }
            out
        })
        .collect();
    let mut idx: Vec<u64> = vec![0];
    for (i, coords) in per_dim.iter().enumerate() {
        let mut next = Vec::new();
        for &base in &idx {
            for &c in coords {
                next.push(base * extent[i] + c);
            }
        }
        idx = next;
    }
    idx.sort_unstable();
    idx
}

/// The selection's elements as row-major indexes (the datasets hold 0, 1, 2...).
fn selected(f: &File, t: Target) -> (String, Vec<u64>) {
    let Target::Region { dataset, selection } = t else {
        panic!("not a region: {t:?}")
    };
    let d = h5_io::Dataset::at(dataset).unwrap();
    let mut v: Vec<i32> = d.read_selection(&selection).unwrap();
    v.sort_unstable();
    let _ = f;
    (
        d.path().to_owned(),
        v.into_iter().map(|x| x as u64).collect(),
    )
}

#[test]
fn revised_unlimited_regions_dereference() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let file = tmp("revised.h5");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/unlimited_regions.py");
    let theirs = python(&py, &[script.to_str().unwrap(), file.to_str().unwrap()]);
    let slabs: Vec<Slab> = theirs.lines().map(parse_slab).collect();
    assert_eq!(slabs.len(), 4, "{theirs}");
    assert!(
        slabs[0][2][0].is_none() && slabs[1][3][0].is_none(),
        "{theirs}"
    );

    let f = File::open(&file).unwrap();
    let refs = f.dataset("/refs").unwrap();
    let (raw, _) = refs.read_raw().unwrap();
    let es = refs.element_size();
    let targets = ["/d", "/d", "/m", "/m"];
    for (i, slab) in slabs.iter().enumerate() {
        let t = revised_reference(&f, &raw[i * es..(i + 1) * es]).unwrap();
        let (path, got) = selected(&f, t);
        assert_eq!(path, targets[i]);
        let extent = f.dataset(targets[i]).unwrap().shape();
        assert_eq!(got, elements(slab, &extent), "reference {i}: {slab:?}");
        assert!(!got.is_empty());
    }
}

#[test]
fn old_unlimited_regions_dereference() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let file = tmp("old.h5");
    let script = r#"
import sys, h5py, numpy as np
from h5py import h5s, h5r
with h5py.File(sys.argv[1], "w") as f:
    d = f.create_dataset("d", data=np.arange(23, dtype="<i4"), maxshape=(None,), chunks=(4,))
    sp = d.id.get_space()
    sp.select_hyperslab((2,), (h5s.UNLIMITED,), (4,), (3,))
    refs = f.create_dataset("refs", (1,), dtype=h5py.regionref_dtype)
    refs[0] = h5r.create(f.id, b"d", h5r.DATASET_REGION, sp)
with h5py.File(sys.argv[1], "r") as f:
    sp = h5r.get_region(f["refs"][0], f["d"].id)
    print(" ".join(",".join("U" if x == h5s.UNLIMITED else str(x) for x in a)
                   for a in sp.get_regular_hyperslab()))
"#;
    let theirs = python(&py, &["-c", script, file.to_str().unwrap()]);
    let slab = parse_slab(theirs.trim());
    assert!(slab[2][0].is_none(), "{theirs}");
    let f = File::open(&file).unwrap();
    let rr: Vec<h5_types::h5type::RegionRef> = f.dataset("/refs").unwrap().read().unwrap();
    let (d, sel) = f.deref_region(&rr[0]).unwrap();
    let mut v: Vec<i32> = d.read_selection(&sel).unwrap();
    v.sort_unstable();
    let got: Vec<u64> = v.into_iter().map(|x| x as u64).collect();
    // Blocks of 3 at 2, 6, 10, 14, 18 and the one at 22 cut to 1 element.
    assert_eq!(got, elements(&slab, &[23]));
    assert_eq!(got.len(), 16);
}
