//! The read API on files the reference library writes (through h5py): typed reads with
//! conversion, compound subsets by member name, selections, netCDF mapped access,
//! variable-length data, fill values, links (soft, external, loops, creation order),
//! references, attributes, and reads from many threads at once.

use std::path::PathBuf;
use std::sync::OnceLock;

use h5::read::{LinkTarget, NcForm, Node, OpenOptions, Selection};
use h5::types::h5type::{FixedAscii, ObjectRef, RegionRef, VarLenArray, VarLenUnicode};
use h5::{File, H5Type};

/// The directory of files written by `support/make_read_files.py`, once per test run;
/// `None` (test skipped) without h5py.
fn files() -> Option<&'static PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        h5_oracle::h5py_files(
            &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/make_read_files.py"),
            std::env::temp_dir().join(format!("h5-read-api-{}", std::process::id())),
        )
    })
    .as_ref()
}

fn main_file() -> Option<File> {
    Some(File::open(files()?.join("main.h5")).expect("open main.h5"))
}

fn big(i: u64, j: u64) -> f32 {
    (i * 200 + j) as f32
}

#[derive(H5Type, Debug, Clone, PartialEq)]
#[repr(C)]
struct Subset {
    d: u32,
    a: i64,
    c: FixedAscii<8>,
}

#[derive(H5Type, Debug, Clone, PartialEq)]
#[repr(C)]
struct Full {
    a: i32,
    b: f64,
    c: FixedAscii<8>,
    d: u16,
}

#[test]
fn compound_subset_by_member_name_in_another_order() {
    let Some(f) = main_file() else { return };
    let ds = f.dataset("/cmp").unwrap();
    let v: Vec<Subset> = ds.read().unwrap();
    assert_eq!(v.len(), 10);
    for (i, s) in v.iter().enumerate() {
        assert_eq!(s.a, -3 * i as i64);
        assert_eq!(s.d, 1000 + i as u32);
        assert_eq!(s.c.as_str(), format!("s{i}"));
    }
    let full: Vec<Full> = ds.read().unwrap();
    assert_eq!(full[3].b, 0.75);
    assert_eq!(full[3].d, 1003);
}

#[test]
fn numeric_conversions_and_metadata() {
    let Some(f) = main_file() else { return };
    let be = f.dataset("/be").unwrap();
    assert_eq!(be.shape(), vec![3, 4]);
    assert_eq!(be.read::<i64>().unwrap(), (0..12).collect::<Vec<i64>>());
    assert_eq!(be.read::<f32>().unwrap()[11], 11.0);
    assert_eq!(be.read::<u8>().unwrap()[5], 5);
    let (raw, dt) = be.read_raw().unwrap();
    assert_eq!(dt.to_string(), "H5T_STD_I64BE");
    assert_eq!(&raw[8..16], &1i64.to_be_bytes());
    let b = f.dataset("/big").unwrap();
    assert_eq!(b.chunk_dims(), Some(vec![10, 20]));
    let ids: Vec<u16> = b.filters().iter().map(|f| f.id.0).collect();
    assert_eq!(ids, vec![2, 1, 3]); // shuffle, deflate, fletcher32
    let all: Vec<f32> = b.read().unwrap();
    assert_eq!(all.len(), 20000);
    assert!(all
        .iter()
        .enumerate()
        .all(|(k, &x)| x == big(k as u64 / 200, k as u64 % 200)));
    assert_eq!(b.attr("scale").unwrap().read::<f64>().unwrap(), vec![0.5]);
    assert_eq!(
        f.attr("title").unwrap().read::<VarLenUnicode>().unwrap()[0].as_str(),
        "read tests"
    );
}

#[test]
fn selections() {
    let Some(f) = main_file() else { return };
    let b = f.dataset("/big").unwrap();
    // start/count
    let v: Vec<f32> = b.read_hyperslab(&[5, 7], None, &[3, 4], None).unwrap();
    let want: Vec<f32> = (5..8)
        .flat_map(|i| (7..11).map(move |j| big(i, j)))
        .collect();
    assert_eq!(v, want);
    // start/count/stride/block across chunk boundaries
    let v: Vec<f64> = b
        .read_hyperslab(&[1, 3], Some(&[17, 30]), &[5, 6], Some(&[2, 3]))
        .unwrap();
    // Hyperslab elements come in row-major order.
    let mut order: Vec<(u64, u64)> = Vec::new();
    for ci in 0..5u64 {
        for bi in 0..2u64 {
            for cj in 0..6u64 {
                for bj in 0..3u64 {
                    order.push((1 + ci * 17 + bi, 3 + cj * 30 + bj));
                }
            }
        }
    }
    order.sort();
    let want: Vec<f64> = order.iter().map(|&(i, j)| big(i, j) as f64).collect();
    assert_eq!(v, want);
    // points, in the given order; one element
    let space = b.dataspace().clone();
    let pts = Selection::points(&space, &[[99u64, 199], [0, 0], [42, 17]]).unwrap();
    assert_eq!(
        b.read_selection::<f32>(&pts).unwrap(),
        vec![big(99, 199), big(0, 0), big(42, 17)]
    );
    let one = Selection::element(&space, &[7, 8]).unwrap();
    assert_eq!(b.read_selection::<f32>(&one).unwrap(), vec![big(7, 8)]);
    // out of bounds is an error, not a panic
    assert!(b
        .read_hyperslab::<f32>(&[99, 0], None, &[2, 1], None)
        .is_err());
}

#[test]
fn netcdf_mapped_access_transposes() {
    let Some(f) = main_file() else { return };
    let b = f.dataset("/big").unwrap();
    // A 3x4 section starting at (10, 20), stored transposed: imap = (1, 3).
    let v: Vec<f32> = b
        .read_nc(NcForm::Mapped {
            start: &[10, 20],
            count: &[3, 4],
            stride: None,
            imap: Some(&[1, 3]),
        })
        .unwrap();
    assert_eq!(v.len(), 12);
    for i in 0..3u64 {
        for j in 0..4u64 {
            assert_eq!(v[(i + j * 3) as usize], big(10 + i, 20 + j));
        }
    }
    let v: Vec<f32> = b
        .read_nc(NcForm::Subsampled {
            start: &[0, 0],
            count: &[2, 2],
            stride: &[50, 100],
        })
        .unwrap();
    assert_eq!(v, vec![big(0, 0), big(0, 100), big(50, 0), big(50, 100)]);
    assert!(b
        .read_nc::<f32>(NcForm::Element { index: &[100, 0] })
        .is_err());
}

#[test]
fn variable_length_data_and_fill_values() {
    let Some(f) = main_file() else { return };
    let s: Vec<String> = f
        .dataset("/vstr")
        .unwrap()
        .read::<VarLenUnicode>()
        .unwrap()
        .iter()
        .map(|s| s.as_str().to_string())
        .collect();
    assert_eq!(s, ["alpha", "", "gamma delta", "\u{e9}t\u{e9}"]);
    let v: Vec<Vec<i64>> = f
        .dataset("/vint")
        .unwrap()
        .read::<VarLenArray<i64>>()
        .unwrap()
        .into_iter()
        .map(|a| a.into_vec())
        .collect();
    assert_eq!(v, vec![vec![1, 2, 3], vec![], vec![7]]);
    let fill = f.dataset("/fill").unwrap();
    assert_eq!(
        fill.fill_value().unwrap().value,
        Some((-7i32).to_le_bytes().to_vec())
    );
    let v: Vec<i32> = fill.read().unwrap();
    let want: Vec<i32> = (0..40)
        .map(|i| if (10..20).contains(&i) { i - 10 } else { -7 })
        .collect();
    assert_eq!(v, want);
}

#[test]
fn links_loops_and_creation_order() {
    let Some(f) = main_file() else { return };
    let g = f.group("/g").unwrap();
    let by_name: Vec<String> = g.links().unwrap().into_iter().map(|l| l.name).collect();
    assert_eq!(by_name, ["alpha", "loop", "mid", "zeta"]);
    let by_order: Vec<String> = g
        .links_by_creation_order()
        .unwrap()
        .into_iter()
        .map(|l| l.name)
        .collect();
    assert_eq!(by_order, ["zeta", "alpha", "mid", "loop"]);
    // The loop: reachable by arbitrarily long paths; the walk visits each object once.
    assert!(f.group("/g/loop/g/loop/g/mid").is_ok());
    let walk = f.walk().unwrap();
    assert_eq!(
        walk.iter().filter(|(p, _, _)| p.ends_with("/mid")).count(),
        1
    );
    // Soft links, dangling ones, external links (refused unless allowed).
    let s: Vec<f32> = f.dataset("/soft").unwrap().read().unwrap();
    assert_eq!(s[201], big(1, 1));
    let root = f.root().unwrap();
    assert!(
        matches!(root.link("dangling").unwrap().target, LinkTarget::Soft(ref p) if p == "/nowhere")
    );
    assert!(f.dataset("/dangling").is_err());
    assert!(matches!(
        root.link("ext").unwrap().target,
        LinkTarget::External { .. }
    ));
    let e = f.dataset("/ext").unwrap_err();
    assert!(e.to_string().contains("external"), "{e}");
    let f2 = File::open_with(
        files().unwrap().join("main.h5"),
        OpenOptions::new().external_links(true),
    )
    .unwrap();
    assert_eq!(
        f2.dataset("/ext").unwrap().read::<i32>().unwrap(),
        vec![0, 1, 2, 3, 4]
    );
    // Dense attribute storage (20 attributes), in name order.
    let attrs = g.attrs().unwrap();
    assert_eq!(attrs.len(), 20);
    assert_eq!(attrs[19].name(), "a19");
    assert_eq!(attrs[19].read::<i64>().unwrap().len(), 20);
}

#[test]
fn member_names_are_h5pys_listing_in_name_order() {
    let Some(dir) = files() else { return };
    let listed = std::fs::read_to_string(dir.join("names.txt")).unwrap();
    let mut want: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for line in listed.lines() {
        let (group, name) = line.split_once('\t').unwrap();
        want.entry(group).or_default().push(name);
    }
    assert_eq!(want.len(), 4);
    for (at, names) in want {
        let (file, group) = at.split_once('/').unwrap();
        let f = File::open(dir.join(file)).unwrap();
        let g = f.group(group).unwrap();
        let got = g.member_names().unwrap();
        assert_eq!(got, names, "{at}");
        let from_links: Vec<String> = g.links().unwrap().into_iter().map(|l| l.name).collect();
        assert_eq!(got, from_links, "{at}");
    }
}

#[test]
fn references() {
    let Some(f) = main_file() else { return };
    let refs: Vec<ObjectRef> = f.dataset("/refs").unwrap().read().unwrap();
    match f.deref_object(refs[0]).unwrap() {
        Node::Dataset(d) => assert_eq!(d.shape(), vec![100, 200]),
        _ => panic!("not a dataset"),
    }
    assert!(matches!(f.deref_object(refs[1]).unwrap(), Node::Group(_)));
    let rr: Vec<RegionRef> = f.dataset("/regrefs").unwrap().read().unwrap();
    let (d, sel) = f.deref_region(&rr[0]).unwrap();
    let v: Vec<f32> = d.read_selection(&sel).unwrap();
    let want: Vec<f32> = (2..4)
        .flat_map(|i| (5..8).map(move |j| big(i, j)))
        .collect();
    assert_eq!(v, want);
}

#[test]
fn many_threads_read_one_file() {
    let Some(f) = main_file() else { return };
    let handles: Vec<_> = (0..8)
        .map(|t| {
            let f = f.clone();
            std::thread::spawn(move || {
                for k in 0..20u64 {
                    let i = (t * 7 + k * 3) % 95;
                    let d = f.dataset("/big").unwrap();
                    let v: Vec<f32> = d.read_hyperslab(&[i, 0], None, &[5, 200], None).unwrap();
                    assert_eq!(v[0], big(i, 0));
                    assert_eq!(v[999], big(i + 4, 199));
                    let s: Vec<VarLenUnicode> = f.dataset("/vstr").unwrap().read().unwrap();
                    assert_eq!(s[2].as_str(), "gamma delta");
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn user_block_and_latest_format() {
    let Some(dir) = files() else { return };
    let f = File::open(dir.join("userblock.h5")).unwrap();
    assert_eq!(f.inner().unwrap().raw().base(), 1024);
    assert_eq!(
        f.dataset("/x").unwrap().read::<u32>().unwrap(),
        (0..7).collect::<Vec<u32>>()
    );
    let f = File::open(dir.join("latest.h5")).unwrap();
    assert!(f.inner().unwrap().superblock().version >= 2);
    assert_eq!(
        f.dataset("/ea").unwrap().read::<i32>().unwrap(),
        (0..50).collect::<Vec<_>>()
    );
    assert_eq!(
        f.dataset("/fa").unwrap().read::<i32>().unwrap(),
        (0..30).collect::<Vec<_>>()
    );
    let bt2 = f.dataset("/bt2").unwrap();
    assert_eq!(bt2.read::<i32>().unwrap(), (0..60).collect::<Vec<_>>());
    assert_eq!(
        bt2.read_hyperslab::<i32>(&[1, 2], None, &[3, 5], None)
            .unwrap(),
        (1..4)
            .flat_map(|i| (2..7).map(move |j| i * 10 + j))
            .collect::<Vec<_>>()
    );
    let g = f.group("/dense").unwrap();
    assert_eq!(g.storage().unwrap(), h5::read::LinkStorage::Dense);
    let names: Vec<String> = g.links().unwrap().into_iter().map(|l| l.name).collect();
    assert_eq!(names.len(), 40);
    assert_eq!(names[0], "child00");
    assert!(f.group("/dense/child39").is_ok());
}

#[test]
fn a_huge_sparse_dataset_is_read_by_selection() {
    let Some(f) = main_file() else { return };
    let d = f.dataset("/sparse").unwrap();
    assert_eq!(d.shape(), vec![1_000_000, 1_000_000]); // 2 TB of i16
    let v: Vec<i16> = d
        .read_hyperslab(&[500_050, 699_995], None, &[2, 10], None)
        .unwrap();
    let mut want = Vec::new();
    for i in 50..52 {
        for j in 699_995..700_005u64 {
            want.push(if j >= 700_000 {
                (i * 100 + (j - 700_000)) as i16
            } else {
                3
            });
        }
    }
    assert_eq!(v, want);
    // Reading all of it is refused, not attempted.
    assert!(d.read::<i16>().is_err());
}
