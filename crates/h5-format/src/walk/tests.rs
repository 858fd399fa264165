//! Unit tests of the walk: sound files from the corpus are sound, and small hand-made
//! corruptions of them (keys out of order, addresses past the end of file, loops among
//! B-tree nodes) are each reported, naming the structure.

use super::*;
use std::path::{Path, PathBuf};

/// `shared/corpus/<sub>/<name>` from the first ancestor of the crate that has it.
fn corpus_file(sub: &str, name: &str) -> Option<Vec<u8>> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir: PathBuf = here
        .ancestors()
        .map(|a| a.join("shared/corpus"))
        .find(|p| p.is_dir())?;
    std::fs::read(dir.join(sub).join(name)).ok()
}

/// A version 0 file whose root group has 51 entries: a symbol table B-tree leaf at 0x408
/// holding 11 symbol table nodes.
fn large_group() -> Option<Vec<u8>> {
    let d = corpus_file("h5dump", "tlarge_objname.h5");
    if d.is_none() {
        eprintln!("corpus not found; skipping");
    }
    d
}

const NODE: usize = 0x408;

fn u64_at(d: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(d[at..at + 8].try_into().unwrap())
}

fn put_u64(d: &mut [u8], at: usize, v: u64) {
    d[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// Offset of key `i` and of child `i` of the group node at [`NODE`] (8-byte offsets).
fn key(i: usize) -> usize {
    NODE + 24 + 16 * i
}
fn child(i: usize) -> usize {
    key(i) + 8
}

fn has(r: &Report, structure: &str, text: &str) -> bool {
    r.problems
        .iter()
        .any(|p| p.structure == structure && p.message.contains(text))
}

#[test]
fn sound_file_is_sound() {
    let Some(d) = large_group() else { return };
    assert_eq!(&d[NODE..NODE + 4], b"TREE");
    let r = walk(&d);
    assert!(r.is_sound(), "{:#?}", r.problems);
    assert_eq!(r.objects, 52);
    assert!(r.structures >= 12, "{}", r.structures);
}

#[test]
fn read_function_gives_the_same_report() {
    let Some(d) = large_group() else { return };
    let read = |off: u64, len: usize| -> Result<Vec<u8>> {
        let s = off as usize;
        Ok(d[s..(s + len).min(d.len())].to_vec())
    };
    let a = walk(&d);
    let b = walk_read(&read, d.len() as u64, &Options::default());
    assert_eq!(a, b);
    let mut bad = d.clone();
    bad.truncate(0x3000);
    let read = |off: u64, len: usize| -> Result<Vec<u8>> {
        let s = off as usize;
        Ok(bad[s..(s + len).min(bad.len())].to_vec())
    };
    assert_eq!(
        walk(&bad),
        walk_read(&read, bad.len() as u64, &Options::default())
    );
}

#[test]
fn group_keys_out_of_order() {
    let Some(mut d) = large_group() else { return };
    let (k1, k2) = (u64_at(&d, key(1)), u64_at(&d, key(2)));
    put_u64(&mut d, key(1), k2);
    put_u64(&mut d, key(2), k1);
    let r = walk(&d);
    assert!(
        has(&r, "v1 B-tree node", "keys out of order"),
        "{:#?}",
        r.problems
    );
    // The names of the nodes around the swapped keys now fall outside them.
    assert!(
        has(&r, "symbol table node", "outside its B-tree keys"),
        "{:#?}",
        r.problems
    );
}

#[test]
fn symbol_table_nodes_reached_twice() {
    let Some(mut d) = large_group() else { return };
    let c0 = u64_at(&d, child(0));
    put_u64(&mut d, child(1), c0);
    let r = walk(&d);
    assert!(
        r.problems.iter().any(|p| p.structure == "symbol table node"
            && p.address == c0
            && p.message.contains("second time")),
        "{:#?}",
        r.problems
    );
}

#[test]
fn btree_node_pointing_to_itself() {
    let Some(mut d) = large_group() else { return };
    // Level 1, first child the node itself: a loop, not an endless walk.
    d[NODE + 5] = 1;
    put_u64(&mut d, child(0), NODE as u64);
    let r = walk(&d);
    assert!(
        r.problems
            .iter()
            .any(|p| p.structure == "v1 B-tree node" && p.address == NODE as u64),
        "{:#?}",
        r.problems
    );
}

#[test]
fn addresses_past_the_end_of_file() {
    let Some(mut d) = large_group() else { return };
    // A symbol table node past the end of file.
    let far = d.len() as u64 + 0x1000;
    put_u64(&mut d, child(3), far);
    // The first entry of the first symbol table node: its object header far away.
    let snod = u64_at(&d, child(0)) as usize;
    assert_eq!(&d[snod..snod + 4], b"SNOD");
    put_u64(&mut d, snod + 8 + 8, 0xffff_0000);
    let r = walk(&d);
    assert!(
        has(&r, "symbol table node", "past the end of file"),
        "{:#?}",
        r.problems
    );
    assert!(
        has(
            &r,
            "symbol table entry",
            "runs past the end of file address"
        ),
        "{:#?}",
        r.problems
    );
}

#[test]
fn name_offset_outside_the_local_heap() {
    let Some(mut d) = large_group() else { return };
    let snod = u64_at(&d, child(0)) as usize;
    put_u64(&mut d, snod + 8, 1 << 40);
    let r = walk(&d);
    assert!(
        has(&r, "symbol table entry", "link name offset"),
        "{:#?}",
        r.problems
    );
}

#[test]
fn truncated_file() {
    let Some(d) = large_group() else { return };
    let r = walk(&d[..d.len() / 2]);
    assert!(has(&r, "superblock", "truncated"), "{:#?}", r.problems);
    assert!(r.problems.len() > 1);
}

#[test]
fn not_an_hdf5_file() {
    for d in [&b""[..], b"hello", &[0u8; 4096]] {
        let r = walk(d);
        assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
        assert_eq!(r.problems[0].structure, "superblock");
        assert_eq!(r.objects, 0);
    }
}

#[test]
fn caps_bound_the_work() {
    let Some(d) = large_group() else { return };
    let opts = Options {
        max_objects: 3,
        max_structures: 5,
        max_depth: 1,

        ..Options::default()
    };
    let r = walk_with(&d, &opts);
    assert!(r.objects <= 3);
    assert!(!r.notes.is_empty());
}

#[test]
fn every_single_byte_corruption_of_the_header_region_is_survived() {
    // Flip each byte of the first 4 KiB in turn: the walk never panics and stays bounded.
    let Some(d) = large_group() else { return };
    for i in (0..d.len().min(4096)).step_by(3) {
        let mut b = d.clone();
        b[i] ^= 0x5a;
        let r = walk(&b);
        assert!(r.objects <= 52 + 1 || !r.problems.is_empty());
    }
}

/// An h5py fixture of the h5-io crate.
fn fixture(name: &str) -> Option<Vec<u8>> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../h5-io/tests/fixtures/h5py")
        .join(name);
    std::fs::read(p).ok()
}

#[test]
fn chunk_past_the_end_of_file_in_a_fixed_array() {
    let Some(mut d) = fixture("chunk_index_fixed_array.h5") else {
        eprintln!("fixture not found; skipping");
        return;
    };
    assert!(walk(&d).is_sound());
    // The data block: signature, version, client, header address, then 8-byte chunk
    // addresses, then its checksum, which is recomputed so only the meaning is wrong.
    let at = d.windows(4).position(|w| w == b"FADB").unwrap();
    let fahd = d.windows(4).position(|w| w == b"FAHD").unwrap();
    let n = u64_at(&d, fahd + 8) as usize;
    let first = at + 14;
    let far = d.len() as u64 + 0x10000;
    put_u64(&mut d, first, far);
    let end = first + 8 * n;
    let sum = crate::checksum::checksum(&d[at..end]);
    d[end..end + 4].copy_from_slice(&sum.to_le_bytes());
    let r = walk(&d);
    assert_eq!(r.problems.len(), 1, "{:#?}", r.problems);
    assert_eq!(r.problems[0].structure, "chunk");
    assert_eq!(r.problems[0].address, far);
    assert!(r.problems[0].message.contains("past the end of file"));
    // Without the new checksum, the block itself is reported.
    d[end] ^= 1;
    let r = walk(&d);
    assert!(
        has(&r, "fixed array data block", "checksum"),
        "{:#?}",
        r.problems
    );
}

#[test]
fn compact_data_and_dataspace_disagree() {
    // Every h5py fixture is sound; shrinking a dataspace dimension of a compact dataset
    // (the layouts fixture has one) is reported by the layout check.
    let Some(mut d) = fixture("layouts.h5") else {
        eprintln!("fixture not found; skipping");
        return;
    };
    assert!(walk(&d).is_sound(), "{:#?}", walk(&d).problems);
    // The version 1 header message of "compact_layout" (6 elements of 2 bytes): type 8,
    // a 16-byte body; the body is version 3, class 0 (compact), size 12.
    let at = (0..d.len() - 12)
        .find(|&i| d[i..i + 4] == [8, 0, 16, 0] && d[i + 8..i + 12] == [3, 0, 12, 0])
        .expect("the compact layout message");
    d[at + 10] = 10;
    let r = walk(&d);
    assert_eq!(r.problems.len(), 1, "{:#?}", r.problems);
    let p = &r.problems[0];
    assert_eq!(p.structure, "data layout message");
    assert_eq!(p.address, at as u64 + 8);
    assert!(
        p.message
            .contains("compact data of 10 bytes for 6 elements of 2 bytes")
            && p.message.contains("/compact_layout"),
        "{p}"
    );
}

/// The latest-format files the reference library writes for the level-1 test
/// (`h5-oracle/c/level1_files.c`: every chunk index, paged array blocks, dense groups and
/// attributes with indirect heap blocks and huge objects, v2 B-trees with internal nodes, a
/// shared message index, free-space managers) are sound.
#[test]
fn reference_library_latest_format_files_are_sound() {
    let Some(exe) = h5_oracle::require("level1_files oracle", h5_oracle::c_program("level1_files"))
    else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("h5-format-walk-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let out =
        h5_oracle::run(&exe, &[dir.to_str().expect("utf-8 path")], b"").expect("level1_files ran");
    let names = String::from_utf8_lossy(&out).into_owned();
    let mut structures = 0;
    let mut count = 0;
    for name in names.lines() {
        let d = std::fs::read(dir.join(name)).expect("oracle file");
        let r = walk(&d);
        assert!(r.is_sound(), "{name}: {:#?}", r.problems);
        structures += r.structures;
        count += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(count > 0);
    assert!(structures > 100, "{structures}");
}
