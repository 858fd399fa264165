//! Whole-file features on the conformance corpus: the family, multi and split drivers, user
//! blocks, external and user-defined links, creation order, loops, and the revised
//! references.

use std::path::Path;

use h5_io::reference::{revised_reference, Target};
use h5_io::{File, LinkTarget, OpenOptions};

use h5_oracle::corpus;

fn present(p: &Path) -> bool {
    if p.exists() {
        return true;
    }
    eprintln!("skipping: {} not present", p.display());
    false
}

/// `dset1` of tfamily/tmulti/tsplit_file: 10x15 big-endian i32, element (i, j) = i + j.
fn check_dset1(f: &File) {
    let d = f.dataset("/dset1").unwrap();
    assert_eq!(d.shape(), vec![10, 15]);
    let v: Vec<i32> = d.read().unwrap();
    for i in 0..10 {
        for j in 0..15 {
            assert_eq!(v[i * 15 + j], (i + j) as i32);
        }
    }
}

#[test]
fn family_multi_and_split_drivers() {
    let dir = corpus("h5dump");
    if !present(&dir.join("tfamily00000.h5")) {
        return;
    }
    check_dset1(&File::open(dir.join("tfamily00000.h5")).unwrap());
    check_dset1(&File::open(dir.join("tfamily%05d.h5")).unwrap());
    check_dset1(&File::open(dir.join("tmulti-s.h5")).unwrap());
    check_dset1(&File::open(dir.join("tmulti")).unwrap());
    check_dset1(&File::open(dir.join("tsplit_file-m.h5")).unwrap());
    check_dset1(&File::open(dir.join("tsplit_file")).unwrap());
}

#[test]
fn external_and_user_defined_links() {
    let dir = corpus("h5dump");
    if !present(&dir.join("textlinksrc.h5")) {
        return;
    }
    let f = File::open(dir.join("textlinksrc.h5")).unwrap();
    let root = f.root().unwrap();
    match root.link("ext_link1").unwrap().target {
        LinkTarget::External { file, path } => {
            assert_eq!(file, "textlinktar.h5");
            assert_eq!(path, "group");
        }
        t => panic!("{t:?}"),
    }
    assert!(f.dataset("/ext_link1/dset").is_err());
    let f = File::open_with(
        dir.join("textlinksrc.h5"),
        OpenOptions::new().external_links(true),
    )
    .unwrap();
    let d = f.dataset("/ext_link1/dset").unwrap();
    assert_eq!(d.shape(), vec![6]);
    assert_eq!(d.read::<i32>().unwrap().len(), 6);
    // An external link to a soft link in the other file.
    assert_eq!(f.dataset("/ext2soft_link1").unwrap().shape(), vec![4, 2]);
    // Links that point back at the source file form a loop: a depth limit stops it.
    let e = f.group("/ext_link1/elink_t1/ext_link1/elink_t1/ext_link1/elink_t1/ext_link1/elink_t1/ext_link1/elink_t1/ext_link1/elink_t1/ext_link1/elink_t1/ext_link1/elink_t1/ext_link1/elink_t1");
    assert!(e.is_err());
    let u = File::open(dir.join("tudlink.h5")).unwrap();
    let links = u.root().unwrap().links().unwrap();
    assert!(links
        .iter()
        .all(|l| matches!(l.target, LinkTarget::UserDefined { link_type: 187, .. })));
    assert!(u.node("/udlink1").is_err());
}

#[test]
fn loops_and_creation_order() {
    let dir = corpus("h5dump");
    if !present(&dir.join("tloop.h5")) {
        return;
    }
    for name in [
        "tloop.h5",
        "tloop2.h5",
        "thlink.h5",
        "tordergr.h5",
        "tfcontents1.h5",
    ] {
        let f = File::open(dir.join(name)).unwrap();
        let w = f.walk().unwrap();
        let mut addrs: Vec<u64> = w.iter().map(|x| x.1 .0).collect();
        addrs.sort();
        addrs.dedup();
        assert_eq!(addrs.len(), w.len(), "{name}: each object once");
    }
    let f = File::open(dir.join("tordergr.h5")).unwrap();
    let g = f.root().unwrap();
    let names: Vec<String> = g
        .links_by_creation_order()
        .unwrap()
        .into_iter()
        .map(|l| l.name)
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names.len(), sorted.len());
    assert_ne!(
        names, sorted,
        "creation order differs from name order in tordergr.h5"
    );
}

#[test]
fn user_block_is_skipped() {
    let dir = corpus("h5dump");
    // tall-2A.h5 and friends have none; any file with its superblock past 0 does.
    let mut found = false;
    for p in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let p = p.path();
        if p.extension().is_none_or(|e| e != "h5") {
            continue;
        }
        let Ok(b) = std::fs::read(&p) else { continue };
        if b.len() > 520 && !b.starts_with(b"\x89HDF") && b[512..].starts_with(b"\x89HDF") {
            let f = File::open(&p).unwrap();
            assert!(f.raw().base() >= 512);
            f.walk().unwrap();
            found = true;
        }
    }
    if !found {
        eprintln!("no file with a user block in the corpus");
    }
}

#[test]
fn revised_references() {
    let dir = corpus("h5dump-develop");
    if !present(&dir.join("trefer_obj.h5")) {
        return;
    }
    let f = File::open(dir.join("trefer_obj.h5")).unwrap();
    let (raw, dt) = f.dataset("/Dataset3").unwrap().read_raw().unwrap();
    let n = raw.len();
    assert!(n > 0, "{dt}");
    match revised_reference(&f, &raw).unwrap() {
        Target::Object(l) => assert_eq!(l.addr, f.locate("/Group1/Dataset1").unwrap().addr),
        t => panic!("{t:?}"),
    }
    let f = File::open(dir.join("trefer_attr.h5")).unwrap();
    let d = f.dataset("/Dataset3").unwrap();
    let (raw, _) = d.read_raw().unwrap();
    let es = d.element_size();
    match revised_reference(&f, &raw[..es]).unwrap() {
        Target::Attribute { object, name } => {
            assert_eq!(name, "Attr1");
            assert_eq!(object.addr, f.locate("/Group1/Dataset1").unwrap().addr);
            let a = f.dataset("/Group1/Dataset1").unwrap().attr(&name).unwrap();
            assert_eq!(a.read::<i32>().unwrap(), vec![0, 3, 6, 9]);
        }
        t => panic!("{t:?}"),
    }
}

/// The integers h5dump prints for dataset `name` of `file`.
fn h5dump_ints(h5dump: &Path, file: &Path, name: &str) -> Vec<i64> {
    let out = std::process::Command::new(h5dump)
        .args(["-d", name, "-y", "-w", "0"])
        .arg(file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let data = text.split("DATA {").nth(1).unwrap_or("");
    let data = data.split('}').next().unwrap_or("");
    data.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().unwrap())
        .collect()
}

#[test]
fn every_filter_decodes_as_h5dump_does() {
    let dir = corpus("h5dump");
    if !present(&dir.join("tfilters.h5")) {
        return;
    }
    let Some(h5dump) = h5_oracle::require("h5dump", h5_oracle::tool("h5dump")) else {
        return;
    };
    let path = dir.join("tfilters.h5");
    let f = File::open(&path).unwrap();
    for name in [
        "contiguous",
        "all",
        "alloc_time_early",
        "alloc_time_incr",
        "alloc_time_late",
        "chunked",
        "compact",
        "deflate",
        "fletcher32",
        "nbit",
        "scaleoffset",
        "shuffle",
        "szip",
    ] {
        let d = f.dataset(name).unwrap();
        let want = h5dump_ints(&h5dump, &path, name);
        assert_eq!(want.len(), 200, "{name}");
        assert_eq!(d.read::<i64>().unwrap(), want, "{name}");
    }
    // A filter this library does not have: a clear error naming it.
    let e = f.dataset("myfilter").unwrap().read_raw().unwrap_err();
    assert!(e.to_string().contains("filter 405"), "{e}");
    assert!(e.to_string().contains("/myfilter"), "{e}");
}
