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
fn storage_gives_the_same_report() {
    use crate::storage::{CountingStorage, MemStorage};
    let Some(d) = large_group() else { return };
    let a = walk(&d);
    let counted = CountingStorage::new(MemStorage::new(d.clone()));
    let b = walk_storage(&counted, &Options::default());
    assert_eq!(a, b);
    // Read structure by structure, never whole.
    let c = counted.counts();
    assert!(c.reads > 10 && c.bytes < 4 * d.len() as u64, "{c:?}");
    let mut bad = d.clone();
    bad.truncate(0x3000);
    assert_eq!(
        walk(&bad),
        walk_storage(&MemStorage::new(bad.clone()), &Options::default())
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

// ---- free-space managers, global heaps, references, shared message lists ----------------

/// The files of the `walk_files` oracle (`h5-oracle/c/walk_files.c`) in a directory of this
/// test process, with the addresses of some contiguous datasets; `None` without the oracle.
struct WalkFiles {
    dir: PathBuf,
    offsets: std::collections::HashMap<String, usize>,
}

impl WalkFiles {
    fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.dir.join(name)).expect("oracle file")
    }

    fn offset(&self, file: &str, dataset: &str) -> usize {
        self.offsets[&format!("{file} {dataset}")]
    }
}

fn walk_files() -> Option<&'static WalkFiles> {
    static FILES: std::sync::OnceLock<Option<WalkFiles>> = std::sync::OnceLock::new();
    FILES
        .get_or_init(|| {
            let exe = h5_oracle::require("walk_files oracle", h5_oracle::c_program("walk_files"))?;
            let dir = std::env::temp_dir().join(format!("h5-walk-files-{}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("temporary directory");
            let out = h5_oracle::run(&exe, &[dir.to_str().expect("utf-8 path")], b"")
                .expect("walk_files ran");
            let mut offsets = std::collections::HashMap::new();
            for line in String::from_utf8_lossy(&out).lines() {
                let w: Vec<&str> = line.split(' ').collect();
                if let ["offset", file, name, addr] = w[..] {
                    offsets.insert(format!("{file} {name}"), addr.parse().expect("address"));
                }
            }
            Some(WalkFiles { dir, offsets })
        })
        .as_ref()
}

fn all_positions(d: &[u8], sig: &[u8; 4]) -> Vec<usize> {
    d.windows(4)
        .enumerate()
        .filter(|(_, w)| w == sig)
        .map(|(i, _)| i)
        .collect()
}

fn problems_with(r: &Report, structure: &str) -> Vec<String> {
    r.problems
        .iter()
        .filter(|p| p.structure == structure)
        .map(|p| p.to_string())
        .collect()
}

#[test]
fn walk_files_are_sound() {
    let Some(w) = walk_files() else { return };
    for name in [
        "vlen.h5",
        "sohm_list.h5",
        "paged.h5",
        "fsm.h5",
        "vlen_filtered.h5",
    ] {
        let r = walk(&w.read(name));
        assert!(r.is_sound(), "{name}: {:#?}", r.problems);
    }
    // Without a decoder, the filtered chunks of strings are noted, not read.
    let r = walk(&w.read("vlen_filtered.h5"));
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("filtered chunks are not decoded")),
        "{:?}",
        r.notes
    );
}

/// The free-space managers of a file and their section lists: (header offset, header, list).
fn managers(d: &[u8]) -> Vec<(usize, FreeSpaceHeader, SectionList)> {
    let s = Sizes::DEFAULT;
    let mut out = Vec::new();
    for at in all_positions(d, b"FSHD") {
        let Ok(h) = FreeSpaceHeader::parse(&mut Cursor::new(&d[at..], at as u64, s)) else {
            continue;
        };
        let Some(l) = h.section_list.get() else {
            continue;
        };
        let classes = if h.client == crate::free_space::CLIENT_FILE {
            SectionClasses::File
        } else {
            // Heaps of the test files address at most 4 GiB (heap offsets of 4 bytes).
            SectionClasses::FractalHeap {
                heap_offset_size: 4,
            }
        };
        let l = l as usize;
        if let Ok(list) = SectionList::parse(&mut Cursor::new(&d[l..], l as u64, s), &h, classes) {
            out.push((at, h, list));
        }
    }
    out
}

use crate::free_space::{FreeSpaceHeader, SectionClasses, SectionList};

/// Write section list `l` of header `h` back in place.
fn put_list(d: &mut [u8], h: &FreeSpaceHeader, l: &SectionList, classes: SectionClasses) {
    let mut w = crate::Writer::new(Sizes::DEFAULT);
    l.encode(&mut w, h, classes);
    let at = h.section_list.0 as usize;
    assert_eq!(w.len() as u64, h.section_list_used);
    d[at..at + w.len()].copy_from_slice(w.as_slice());
}

/// The first manager of the file client with at least two sections.
fn file_manager(d: &[u8]) -> (usize, FreeSpaceHeader, SectionList) {
    managers(d)
        .into_iter()
        .find(|(_, h, l)| {
            h.client == crate::free_space::CLIENT_FILE
                && l.sets.iter().map(|s| s.sections.len()).sum::<usize>() >= 2
        })
        .expect("a file free-space manager with two sections")
}

#[test]
fn free_space_section_past_the_end_of_file() {
    let Some(w) = walk_files() else { return };
    let mut d = w.read("paged.h5");
    let (_, h, mut l) = file_manager(&d);
    l.sets[0].sections[0].offset = d.len() as u64 + 0x10000;
    put_list(&mut d, &h, &l, SectionClasses::File);
    let r = walk(&d);
    let p = problems_with(&r, "free-space section list");
    assert_eq!(p.len(), 1, "{:#?}", r.problems);
    assert!(
        p[0].contains("runs past the end of its address space"),
        "{p:?}"
    );
    assert!(
        p[0].contains(&format!("at {:#x}:", h.section_list.0)),
        "{p:?}"
    );
}

#[test]
fn free_space_must_not_hold_structures_in_use() {
    let Some(w) = walk_files() else { return };
    let mut d = w.read("paged.h5");
    let (at, h, mut l) = file_manager(&d);
    // A free section over the manager's own header.
    l.sets[0].sections[0].offset = at as u64;
    put_list(&mut d, &h, &l, SectionClasses::File);
    let r = walk(&d);
    assert!(
        has(
            &r,
            "free-space section list",
            &format!("holds the free-space manager header at {at:#x}, which is in use")
        ),
        "{:#?}",
        r.problems
    );
    // And over a global heap collection in use.
    let Some(w) = walk_files() else { return };
    let d = w.read("vlen.h5");
    let gcol = all_positions(&d, b"GCOL")[0] as u64;
    let mut walker = Walker::new(Source::Slice(&d), Options::default());
    walker.free_sections.push((gcol - 8, 64, 0x1234));
    let r = walker.run();
    let p = problems_with(&r, "free-space section list");
    assert_eq!(p.len(), 1, "{:#?}", r.problems);
    assert!(p[0].contains(&format!("holds the global heap collection at {gcol:#x}")));
}

#[test]
fn free_space_sections_overlap() {
    let Some(w) = walk_files() else { return };
    let mut d = w.read("paged.h5");
    let (_, h, mut l) = file_manager(&d);
    // Move the second section onto the first.
    let first = l.sets[0].sections[0].offset;
    let second = if l.sets[0].sections.len() > 1 {
        &mut l.sets[0].sections[1]
    } else {
        &mut l.sets[1].sections[0]
    };
    second.offset = first + 1;
    put_list(&mut d, &h, &l, SectionClasses::File);
    let r = walk(&d);
    assert!(
        has(&r, "free-space section list", "overlaps the section"),
        "{:#?}",
        r.problems
    );
}

#[test]
fn free_space_header_and_list_disagree() {
    let Some(w) = walk_files() else { return };
    let d0 = w.read("paged.h5");
    let (at, h, _) = file_manager(&d0);
    // One more section tracked than the list holds (the field widths stay the same).
    let mut d = d0.clone();
    let mut h2 = h.clone();
    h2.total_sections += 1;
    h2.serialized_sections += 1;
    let mut wr = crate::Writer::new(Sizes::DEFAULT);
    h2.encode(&mut wr);
    d[at..at + wr.len()].copy_from_slice(wr.as_slice());
    let r = walk(&d);
    assert!(
        has(&r, "free-space section list", "where the header counts"),
        "{:#?}",
        r.problems
    );
    // A byte of the list changed: its checksum no longer matches.
    let mut d = d0.clone();
    d[h.section_list.0 as usize + 14] ^= 0x40;
    let r = walk(&d);
    assert!(
        has(&r, "free-space section list", "checksum"),
        "{:#?}",
        r.problems
    );
}

#[test]
fn fractal_heap_free_space_manager_is_checked() {
    let Some(w) = walk_files() else { return };
    let d0 = w.read("fsm.h5");
    let (at, h, _) = managers(&d0)
        .into_iter()
        .find(|(_, h, _)| h.client == crate::free_space::CLIENT_FRACTAL_HEAP)
        .expect("a fractal heap's free-space manager");
    // The dense group's heap points at a manager of the file client.
    let mut d = d0.clone();
    let mut h2 = h.clone();
    h2.client = crate::free_space::CLIENT_FILE;
    let mut wr = crate::Writer::new(Sizes::DEFAULT);
    h2.encode(&mut wr);
    d[at..at + wr.len()].copy_from_slice(wr.as_slice());
    let r = walk(&d);
    let p = problems_with(&r, "free-space manager header");
    assert_eq!(p.len(), 1, "{:#?}", r.problems);
    assert!(p[0].contains("client 1 where 0 is expected") && p[0].contains("/dense"));
    // A section of the heap past the heap's address space.
    let mut d = d0.clone();
    let (_, h, mut l) = managers(&d)
        .into_iter()
        .find(|(_, h, _)| h.client == crate::free_space::CLIENT_FRACTAL_HEAP)
        .unwrap();
    l.sets[0].sections[0].offset = (1u64 << h.address_space_bits) - 1;
    let classes = SectionClasses::FractalHeap {
        heap_offset_size: 4,
    };
    put_list(&mut d, &h, &l, classes);
    let r = walk(&d);
    assert!(
        has(
            &r,
            "free-space section list",
            "past the end of its address space"
        ),
        "{:#?}",
        r.problems
    );
}

/// Rewrite every object index of the global heap collection at `at` (adding 1000).
fn renumber_collection(d: &mut [u8], at: usize) {
    let size = u64_at(d, at + 8) as usize;
    let mut p = at + 16;
    while p + 16 <= at + size {
        let index = u16::from_le_bytes([d[p], d[p + 1]]);
        let len = u64_at(d, p + 8) as usize;
        if index == 0 {
            break;
        }
        d[p..p + 2].copy_from_slice(&(index + 1000).to_le_bytes());
        p += 16 + len.div_ceil(8) * 8;
    }
}

#[test]
fn every_reference_to_a_global_heap_collection_is_followed() {
    let Some(w) = walk_files() else { return };
    let mut d = w.read("vlen.h5");
    let gcol = all_positions(&d, b"GCOL");
    assert_eq!(gcol.len(), 1);
    renumber_collection(&mut d, gcol[0]);
    let r = walk(&d);
    let p = problems_with(&r, "global heap collection");
    for path in [
        "/strings_contiguous",
        "/strings_compact",
        "/strings_chunked",
        "/sequences",
        "/records",
        "/nested",
        "/region_refs",
        "/, attribute \"labels\"",
        "/sequences, attribute \"named_labels\"",
    ] {
        assert!(
            p.iter()
                .any(|m| m.contains("no object") && m.contains(&format!("(in {path}"))),
            "{path}: {p:#?}"
        );
    }
    assert!(r
        .problems
        .iter()
        .all(|p| p.structure == "global heap collection" && p.address == gcol[0] as u64));
    // A bad signature is one problem for the collection, however many values use it.
    let mut d = w.read("vlen.h5");
    d[gcol[0]] = b'X';
    let r = walk(&d);
    let p = problems_with(&r, "global heap collection");
    assert_eq!(p.len(), 1, "{:#?}", r.problems);
    assert!(p[0].contains("signature"), "{p:?}");
}

#[test]
fn variable_length_values_are_checked() {
    let Some(w) = walk_files() else { return };
    let d0 = w.read("vlen.h5");
    let at = w.offset("vlen.h5", "strings_contiguous");
    // Element 0: length 5 ("alpha"), collection address, object index.
    assert_eq!(&d0[at..at + 4], &5u32.to_le_bytes());
    let mut d = d0.clone();
    d[at..at + 4].copy_from_slice(&500u32.to_le_bytes());
    let r = walk(&d);
    assert_eq!(r.problems.len(), 1, "{:#?}", r.problems);
    let p = &r.problems[0];
    assert_eq!(
        (p.structure, p.address),
        ("variable-length data", at as u64)
    );
    assert!(p.message.contains("500 items") && p.message.contains("holds 5 bytes"));
    // The problem names the element's own address (element 2: "gamma").
    let mut d = d0.clone();
    d[at + 32..at + 36].copy_from_slice(&600u32.to_le_bytes());
    let r = walk(&d);
    assert_eq!(r.problems.len(), 1, "{:#?}", r.problems);
    assert_eq!(r.problems[0].address, at as u64 + 32);
    // A collection past the end of file.
    let mut d = d0.clone();
    put_u64(&mut d, at + 4, 1 << 40);
    let r = walk(&d);
    assert!(
        has(&r, "global heap ID", "past the end of file"),
        "{:#?}",
        r.problems
    );
    // A nil heap ID for a value of 5 bytes.
    let mut d = d0.clone();
    put_u64(&mut d, at + 4, 0);
    let r = walk(&d);
    assert!(
        has(&r, "variable-length data", "nil global heap ID"),
        "{:#?}",
        r.problems
    );
    // An object index the collection lacks, in the sequences.
    let seq = w.offset("vlen.h5", "sequences");
    let mut d = d0.clone();
    d[seq + 12..seq + 16].copy_from_slice(&77u32.to_le_bytes());
    let r = walk(&d);
    assert!(
        has(&r, "global heap collection", "no object 77"),
        "{:#?}",
        r.problems
    );
}

#[test]
fn object_references_must_point_at_object_headers() {
    let Some(w) = walk_files() else { return };
    let d0 = w.read("vlen.h5");
    let at = w.offset("vlen.h5", "object_refs");
    let mut d = d0.clone();
    // The superblock's second half is no object header.
    put_u64(&mut d, at, 0x10);
    let r = walk(&d);
    assert_eq!(r.problems.len(), 1, "{:#?}", r.problems);
    assert_eq!(r.problems[0].structure, "object reference");
    assert!(r.problems[0]
        .message
        .contains("points to 0x10, which is not an object header"));
    // Past the end of file.
    put_u64(&mut d, at + 8, 1 << 40);
    let r = walk(&d);
    assert!(
        has(&r, "object reference", "past the end of file"),
        "{:#?}",
        r.problems
    );
    // A region reference's heap object names its dataset: point it elsewhere.
    let reg = w.offset("vlen.h5", "region_refs");
    let gcol = u64_at(&d0, reg) as usize;
    let index = u32::from_le_bytes(d0[reg + 8..reg + 12].try_into().unwrap());
    // Find the object in the collection and overwrite the dataset address it holds.
    let mut d = d0.clone();
    let mut p = gcol + 16;
    loop {
        let i = u16::from_le_bytes([d[p], d[p + 1]]);
        let len = u64_at(&d, p + 8) as usize;
        if u32::from(i) == index {
            put_u64(&mut d, p + 16, 0x18);
            break;
        }
        assert_ne!(i, 0, "region object not found");
        p += 16 + len.div_ceil(8) * 8;
    }
    let r = walk(&d);
    assert!(
        has(&r, "region reference", "points to 0x18"),
        "{:#?}",
        r.problems
    );
}

#[test]
fn data_caps_bound_the_work() {
    let Some(w) = walk_files() else { return };
    let d = w.read("vlen.h5");
    let opts = Options {
        max_references: 3,
        ..Options::default()
    };
    let r = walk_with(&d, &opts);
    assert!(r.is_sound());
    assert!(r.notes.iter().any(|n| n.contains("stopped reading data")));
    let opts = Options {
        max_data_bytes: 16,
        ..Options::default()
    };
    let r = walk_with(&d, &opts);
    assert!(r.notes.iter().any(|n| n.contains("stopped reading data")));
}

#[test]
fn filtered_chunks_go_through_the_decoder() {
    let Some(w) = walk_files() else { return };
    let d = w.read("vlen_filtered.h5");
    // A decoder that fails: noted, not a problem.
    fn failing(
        _: &crate::message::filter_pipeline::FilterPipeline,
        _: u32,
        _: Vec<u8>,
        _: usize,
    ) -> std::result::Result<Vec<u8>, String> {
        Err("no codec here".into())
    }
    let opts = Options {
        decode_chunk: Some(ChunkDecoder(failing)),
        ..Options::default()
    };
    let r = walk_with(&d, &opts);
    assert!(r.is_sound());
    assert!(
        r.notes.iter().any(|n| n.contains("no codec here")),
        "{:?}",
        r.notes
    );
    // A decoder that yields values with a bad heap ID: reported.
    fn bad_values(
        _: &crate::message::filter_pipeline::FilterPipeline,
        _: u32,
        _: Vec<u8>,
        n: usize,
    ) -> std::result::Result<Vec<u8>, String> {
        let mut v = vec![0u8; n];
        v[0] = 3;
        v[4] = 0x10;
        Ok(v)
    }
    let opts = Options {
        decode_chunk: Some(ChunkDecoder(bad_values)),
        ..Options::default()
    };
    let r = walk_with(&d, &opts);
    assert!(
        has(&r, "global heap collection", "signature"),
        "{:#?}",
        r.problems
    );
}

/// The list index of sohm_list.h5: (list offset, number of records).
fn sohm_list(d: &[u8]) -> (usize, usize) {
    let smli = all_positions(d, b"SMLI");
    let smtb = all_positions(d, b"SMTB")[0];
    // Entries of 30 bytes after the signature: "Number of Messages" at 12, index at 14.
    for i in 0..2 {
        let e = smtb + 4 + 30 * i;
        let index = u64_at(d, e + 14) as usize;
        if d[e + 1] == 0 && smli.contains(&index) {
            let count = u16::from_le_bytes([d[e + 12], d[e + 13]]) as usize;
            if count > 0 {
                return (index, count);
            }
        }
    }
    panic!("no list index with records");
}

#[test]
fn shared_message_list_records_are_checked() {
    let Some(w) = walk_files() else { return };
    let d0 = w.read("sohm_list.h5");
    let (at, count) = sohm_list(&d0);
    let e = 17; // location, hash, and 12 bytes
    let end = at + 4 + count * e;
    let resum = |d: &mut Vec<u8>| {
        let sum = crate::checksum::checksum(&d[at..end]);
        d[end..end + 4].copy_from_slice(&sum.to_le_bytes());
    };
    // A wrong hash.
    let mut d = d0.clone();
    assert_eq!(d[at + 4], 0, "a message in the heap");
    d[at + 5] ^= 0xff;
    resum(&mut d);
    let r = walk(&d);
    let p = problems_with(&r, "shared message record");
    assert_eq!(p.len(), 1, "{:#?}", r.problems);
    assert!(p[0].contains("is not the hash"), "{p:?}");
    assert!(p[0].contains(&format!("at {:#x}:", at + 4)), "{p:?}");
    // A reference count of 0.
    let mut d = d0.clone();
    d[at + 9..at + 13].copy_from_slice(&[0; 4]);
    resum(&mut d);
    let r = walk(&d);
    assert!(
        has(&r, "shared message record", "reference count 0"),
        "{:#?}",
        r.problems
    );
    // A heap ID outside the heap.
    let mut d = d0.clone();
    d[at + 13 + 1..at + 13 + 5].copy_from_slice(&[0xff, 0xff, 0xff, 0x7f]);
    resum(&mut d);
    let r = walk(&d);
    assert_eq!(r.problems.len(), 1, "{:#?}", r.problems);
    let p = &r.problems[0];
    assert_eq!((p.structure, p.address), ("fractal heap ID", at as u64 + 4));
    assert!(p.message.contains("past the"), "{p}");
    // The checksum.
    let mut d = d0.clone();
    d[end] ^= 1;
    let r = walk(&d);
    assert!(
        has(&r, "shared message list", "checksum"),
        "{:#?}",
        r.problems
    );
}

#[test]
fn corruptions_of_the_new_structures_are_survived() {
    // Flip bytes in and around the free-space managers, section lists, shared message lists,
    // global heap collections and data of the oracle files: the walk never panics.
    let Some(w) = walk_files() else { return };
    for name in ["vlen.h5", "sohm_list.h5", "paged.h5", "fsm.h5"] {
        let d = w.read(name);
        let mut starts: Vec<usize> = [b"FSHD", b"FSSE", b"SMLI", b"SMTB", b"GCOL"]
            .iter()
            .flat_map(|s| all_positions(&d, s))
            .collect();
        starts.extend(
            w.offsets
                .iter()
                .filter(|(k, _)| k.starts_with(name))
                .map(|(_, &v)| v),
        );
        for s in starts {
            for i in (s..(s + 200).min(d.len())).step_by(3) {
                for x in [0x01u8, 0x80, 0xff] {
                    let mut b = d.clone();
                    b[i] ^= x;
                    let _ = walk(&b);
                }
            }
        }
    }
}

#[test]
fn revised_references_are_followed() {
    // Revised attribute references keep their blocks in a global heap collection.
    let Some(mut d) = corpus_file("h5dump-develop", "trefer_attr.h5") else {
        eprintln!("corpus not found; skipping");
        return;
    };
    assert!(walk(&d).is_sound(), "{:#?}", walk(&d).problems);
    let at = all_positions(&d, b"GCOL")[0];
    renumber_collection(&mut d, at);
    let r = walk(&d);
    assert!(
        has(&r, "global heap collection", "no object"),
        "{:#?}",
        r.problems
    );
    // The reference library's test of a reference to a deleted object: the token of the
    // revised object reference points where the object's header was.
    let Some(d) = corpus_file("h5dump-develop", "trefer_obj_del.h5") else {
        return;
    };
    let r = walk(&d);
    assert_eq!(r.problems.len(), 1, "{:#?}", r.problems);
    assert_eq!(r.problems[0].structure, "reference");
    assert!(r.problems[0]
        .message
        .contains("points to 0x320, which is not an object header"));
}
