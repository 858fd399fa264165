//! Level-1 structures in the conformance corpus: every file's bytes are searched for the
//! structures' signatures, and each structure found is parsed where it can be parsed without
//! the object headers (headers, and whatever is reachable from them: heap blocks, B-tree
//! nodes, section lists, array blocks). Parsing must succeed on the reference library's files
//! and must never panic, on them or on the malformed files of `bad/`.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use h5_format::btree::{v1, v2};
use h5_format::chunk_index::{extensible_array as ea, fixed_array as fa};
use h5_format::free_space::{FreeSpaceHeader, SectionClasses, SectionList, CLIENT_FILE};
use h5_format::heap::fractal::{Child, DirectBlock, FractalHeapHeader, IndirectBlock};
use h5_format::heap::global::GlobalHeapCollection;
use h5_format::heap::local::LocalHeap;
use h5_format::reference::RegionReferenceData;
use h5_format::symbol_table::SymbolTableNode;
use h5_format::vds::VirtualMappings;
use h5_format::{Addr, Cursor, Result, Sizes};

const SIGNATURES: [&[u8; 4]; 18] = [
    b"TREE", b"SNOD", b"HEAP", b"GCOL", b"FRHP", b"FHDB", b"FHIB", b"BTHD", b"BTIN", b"BTLF",
    b"FSHD", b"FSSE", b"FAHD", b"FADB", b"EAHD", b"EAIB", b"EASB", b"EADB",
];

use h5_oracle::corpus;

fn h5_files(dir: &str) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(corpus(dir)) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "h5"))
        .collect();
    v.sort();
    v
}

/// The superblock's sizes and base address, read directly (the superblock parser is not this
/// module's): signature at 0, 512, 1024, ...; sizes at bytes 13-14 (versions 0, 1) or 9-10.
fn superblock(bytes: &[u8]) -> Option<(Sizes, u64)> {
    let sig = b"\x89HDF\r\n\x1a\n";
    let mut at = 0usize;
    while at + 64 <= bytes.len() {
        if &bytes[at..at + 8] == sig {
            let version = bytes[at + 8];
            let (o, l) = match version {
                0 | 1 => (bytes[at + 13], bytes[at + 14]),
                _ => (bytes[at + 9], bytes[at + 10]),
            };
            let sizes = Sizes {
                offset: o,
                length: l,
            };
            if !sizes.is_valid() {
                return None;
            }
            let base_at = match version {
                0 => at + 24,
                1 => at + 28,
                _ => at + 12,
            };
            let mut c = Cursor::new(bytes.get(base_at..)?, base_at as u64, sizes);
            let base = c.read_addr().ok()?.get().unwrap_or(0);
            return Some((sizes, base));
        }
        at = if at == 0 { 512 } else { at * 2 };
    }
    None
}

struct File<'a> {
    name: String,
    bytes: &'a [u8],
    sizes: Sizes,
    base: u64,
    /// Whether failures are expected (a malformed file): then only "no panic" is checked.
    hostile: bool,
    failures: Vec<String>,
    parsed: BTreeMap<&'static str, usize>,
}

impl<'a> File<'a> {
    fn cursor(&self, addr: Addr) -> Option<Cursor<'a>> {
        let off = self.base.checked_add(addr.get()?)?;
        let s = self.bytes.get(usize::try_from(off).ok()?..)?;
        Some(Cursor::new(s, off, self.sizes))
    }

    fn at(&self, off: usize) -> Cursor<'a> {
        Cursor::new(&self.bytes[off..], off as u64, self.sizes)
    }

    fn check<T>(&mut self, what: &'static str, r: Result<T>) -> Option<T> {
        match r {
            Ok(v) => {
                *self.parsed.entry(what).or_default() += 1;
                Some(v)
            }
            Err(e) => {
                self.failures.push(format!("{}: {what}: {e}", self.name));
                None
            }
        }
    }

    fn walk_fractal_heap(&mut self, h: &FractalHeapHeader) {
        if h.root_block.is_undef() {
            return;
        }
        let Ok(dt) = h.doubling_table() else { return };
        if h.current_root_rows == 0 {
            if h.filters.is_none() {
                if let Some(mut c) = self.cursor(h.root_block) {
                    let r = DirectBlock::parse(&mut c, h, dt.start_block_size);
                    self.check("FHDB (root)", r);
                }
            }
            return;
        }
        let mut stack = vec![(h.root_block, h.current_root_rows as u32, 0usize)];
        let mut seen = HashSet::new();
        while let Some((addr, nrows, depth)) = stack.pop() {
            if depth > 16 || !seen.insert(addr) {
                continue;
            }
            let Some(mut c) = self.cursor(addr) else {
                self.failures
                    .push(format!("{}: FHIB at {addr} outside file", self.name));
                continue;
            };
            let Some(ib) = self.check("FHIB", IndirectBlock::parse(&mut c, h, nrows)) else {
                continue;
            };
            for row in 0..nrows {
                for col in 0..dt.width {
                    match ib.child(&dt, row, col) {
                        Some(Child::Direct(e)) if !e.address.is_undef() && h.filters.is_none() => {
                            let size = dt.row_block_size(row).unwrap_or(0);
                            if let Some(mut c) = self.cursor(e.address) {
                                let r = DirectBlock::parse(&mut c, h, size);
                                self.check("FHDB", r);
                            }
                        }
                        Some(Child::Indirect(a)) if !a.is_undef() => {
                            let size = dt.row_block_size(row).unwrap_or(0);
                            stack.push((a, dt.rows_for_size(size), depth + 1));
                        }
                        _ => {}
                    }
                }
            }
        }
    }

    fn walk_v2_btree(&mut self, h: &v2::Header) {
        let Some(info) = self.check("v2 node info", h.node_info(self.sizes)) else {
            return;
        };
        if h.root.is_undef() {
            return;
        }
        let mut stack = vec![(h.root, h.depth as usize, h.root_records as u64)];
        let mut visited = 0usize;
        while let Some((addr, depth, n)) = stack.pop() {
            visited += 1;
            if visited > 100_000 {
                self.failures
                    .push(format!("{}: v2 B-tree too large", self.name));
                return;
            }
            let Some(mut c) = self.cursor(addr) else {
                self.failures
                    .push(format!("{}: v2 node at {addr} outside file", self.name));
                continue;
            };
            if depth == 0 {
                self.check("BTLF", v2::LeafNode::parse(&mut c, h, &info, n));
            } else if let Some(node) =
                self.check("BTIN", v2::InternalNode::parse(&mut c, h, &info, depth, n))
            {
                for p in node.children {
                    stack.push((p.address, depth - 1, p.records));
                }
            }
        }
    }

    fn walk_fixed_array(&mut self, h: &fa::FixedArrayHeader) {
        if let Some(mut c) = self.cursor(h.data_block) {
            self.check("FADB", fa::FixedArrayDataBlock::parse(&mut c, h));
        }
    }

    fn walk_extensible_array(&mut self, h: &ea::ExtensibleArrayHeader) {
        let Ok(g) = h.geometry() else { return };
        let Some(mut c) = self.cursor(h.index_block) else {
            return;
        };
        let Some(ib) = self.check("EAIB", ea::IndexBlock::parse(&mut c, h)) else {
            return;
        };
        for (i, &a) in ib.data_blocks.iter().enumerate() {
            let (Some(mut c), Some(n)) = (self.cursor(a), g.index_data_block_elements(i)) else {
                continue;
            };
            self.check("EADB", ea::DataBlock::parse(&mut c, h, n, &|_| true));
        }
        for (i, &a) in ib.secondary_blocks.iter().enumerate() {
            let s = g.index_block_super_blocks + i;
            let Some(mut c) = self.cursor(a) else {
                continue;
            };
            let Some(sb) = self.check("EASB", ea::SecondaryBlock::parse(&mut c, h, s)) else {
                continue;
            };
            let n = g.super_blocks[s].data_block_elements;
            let pages = g.pages_per_data_block(s);
            for (d, &da) in sb.data_blocks.iter().enumerate() {
                let Some(mut c) = self.cursor(da) else {
                    continue;
                };
                let init = |p: usize| sb.page_initialized(d, p, pages);
                self.check("EADB", ea::DataBlock::parse(&mut c, h, n, &init));
            }
        }
    }
}

fn find_all(bytes: &[u8], sig: &[u8; 4]) -> Vec<usize> {
    bytes
        .windows(4)
        .enumerate()
        .filter(|(_, w)| w == sig)
        .map(|(i, _)| i)
        .collect()
}

/// Run every parser at every signature hit, ignoring the results: nothing may panic.
fn parse_everything_blindly(f: &File<'_>, off: usize, sig: &[u8; 4]) {
    let data = &f.bytes[off..];
    // Also with the structure cut short.
    for cut in [
        data.len(),
        data.len().min(64),
        data.len().min(16),
        data.len().min(7),
    ] {
        let d = &data[..cut];
        let c = || Cursor::new(d, off as u64, f.sizes);
        let _ = v1::Node::parse(&mut c(), None);
        let _ = v1::Node::parse(&mut c(), Some(3));
        let _ = SymbolTableNode::parse(&mut c());
        let _ = LocalHeap::parse(&mut c());
        let _ = GlobalHeapCollection::parse(&mut c());
        let _ = FreeSpaceHeader::parse(&mut c());
        let _ = fa::FixedArrayHeader::parse(&mut c());
        let _ = ea::ExtensibleArrayHeader::parse(&mut c());
        let _ = h5_format::selection::Selection::parse(&mut c());
        let _ = h5_format::reference::Reference::parse(&mut c());
        let _ = h5_format::vds::VirtualMappings::parse(&mut c());
        if let Ok(h) = v2::Header::parse(&mut c()) {
            if let Ok(info) = h.node_info(f.sizes) {
                let _ = v2::LeafNode::parse(&mut c(), &h, &info, h.root_records as u64);
            }
        }
        if let Ok(h) = FractalHeapHeader::parse(&mut c()) {
            let _ = IndirectBlock::parse(&mut c(), &h, h.current_root_rows as u32);
            let _ = DirectBlock::parse(&mut c(), &h, h.starting_block_size);
        }
    }
    let _ = sig;
}

fn check_file(path: &Path, hostile: bool) -> (Vec<String>, BTreeMap<&'static str, usize>) {
    let bytes = std::fs::read(path).expect("read corpus file");
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let Some((sizes, base)) = superblock(&bytes) else {
        return (Vec::new(), BTreeMap::new());
    };
    let mut f = File {
        name,
        bytes: &bytes,
        sizes,
        base,
        hostile,
        failures: Vec::new(),
        parsed: BTreeMap::new(),
    };
    let mut heaps = Vec::new();
    let mut free_space = Vec::new();
    for sig in SIGNATURES {
        for off in find_all(&bytes, sig) {
            parse_everything_blindly(&f, off, sig);
            let version = bytes.get(off + 4).copied();
            match sig {
                b"TREE" => {
                    // Group trees parse alone; chunk trees need the dataset rank, which only
                    // the layout message knows: some rank must give keys whose last offset
                    // (the element offset) is 0.
                    match bytes.get(off + 4) {
                        Some(0) => {
                            let r = v1::Node::parse(&mut f.at(off), None);
                            f.check("TREE (group)", r);
                        }
                        Some(1) => {
                            let ok = (0..=32).any(|rank| {
                                matches!(v1::Node::parse(&mut f.at(off), Some(rank)),
                                    Ok(n) if matches!(&n.keys, v1::Keys::Chunk(k)
                                        if k.iter().all(|k| k.offsets.last() == Some(&0))))
                            });
                            if ok {
                                *f.parsed.entry("TREE (chunk)").or_default() += 1;
                            } else {
                                f.failures.push(format!(
                                    "{}: TREE (chunk) at {off:#x}: no rank fits",
                                    f.name
                                ));
                            }
                        }
                        _ => {}
                    }
                }
                b"SNOD" if version == Some(1) => {
                    let r = SymbolTableNode::parse(&mut f.at(off));
                    f.check("SNOD", r);
                }
                b"HEAP" if version == Some(0) => {
                    let r = LocalHeap::parse(&mut f.at(off));
                    if let Some(h) = f.check("HEAP", r) {
                        // (A family member file may hold only part of the segment.)
                        match f.cursor(h.data_segment) {
                            Some(seg) if seg.remaining() as u64 >= h.data_segment_size => {
                                let n = h.data_segment_size as usize;
                                let seg = Cursor::new(&seg.data()[..n], seg.base(), sizes);
                                let r = h.free_list(&seg);
                                f.check("HEAP free list", r);
                            }
                            _ => {}
                        }
                    }
                }
                b"GCOL" if version == Some(1) => {
                    let r = GlobalHeapCollection::parse(&mut f.at(off));
                    if let Some(g) = f.check("GCOL", r) {
                        // Heap objects that are virtual dataset mappings (checksummed, so
                        // recognisable) or old-style region references (an address and a
                        // selection filling the object exactly).
                        for o in &g.objects {
                            let mut c = Cursor::new(&o.data, 0, sizes);
                            if VirtualMappings::parse(&mut c).is_ok() && c.is_empty() {
                                *f.parsed.entry("VDS heap block").or_default() += 1;
                            }
                            let mut c = Cursor::new(&o.data, 0, sizes);
                            if RegionReferenceData::parse(&mut c).is_ok() && c.is_empty() {
                                *f.parsed.entry("region reference").or_default() += 1;
                            }
                        }
                    }
                }
                b"FRHP" => {
                    let r = FractalHeapHeader::parse(&mut f.at(off));
                    if let Some(h) = f.check("FRHP", r) {
                        f.walk_fractal_heap(&h);
                        heaps.push(h);
                    }
                }
                b"BTHD" => {
                    let r = v2::Header::parse(&mut f.at(off));
                    if let Some(h) = f.check("BTHD", r) {
                        f.walk_v2_btree(&h);
                    }
                }
                b"FSHD" => {
                    let r = FreeSpaceHeader::parse(&mut f.at(off));
                    if let Some(h) = f.check("FSHD", r) {
                        free_space.push((off as u64, h));
                    }
                }
                b"FAHD" => {
                    let r = fa::FixedArrayHeader::parse(&mut f.at(off));
                    if let Some(h) = f.check("FAHD", r) {
                        f.walk_fixed_array(&h);
                    }
                }
                b"EAHD" => {
                    let r = ea::ExtensibleArrayHeader::parse(&mut f.at(off));
                    if let Some(h) = f.check("EAHD", r) {
                        f.walk_extensible_array(&h);
                    }
                }
                _ => {}
            }
        }
    }
    // Section lists: file managers alone; fractal heap managers with their heap's offsets.
    for (at, h) in free_space {
        if h.section_list.is_undef() || h.serialized_sections == 0 {
            continue;
        }
        let classes = if h.client == CLIENT_FILE {
            SectionClasses::File
        } else {
            let heap = heaps
                .iter()
                .find(|fh| fh.free_space_manager.get().map(|a| a + base) == Some(at));
            match heap.and_then(|fh| fh.doubling_table().ok()) {
                Some(dt) => SectionClasses::FractalHeap {
                    heap_offset_size: dt.heap_off_size,
                },
                None => continue,
            }
        };
        if let Some(mut c) = f.cursor(h.section_list) {
            let r = SectionList::parse(&mut c, &h, classes);
            f.check("FSSE", r);
        }
    }
    let _ = f.hostile;
    (f.failures, f.parsed)
}

#[test]
fn reference_library_files_parse() {
    let mut files = h5_files("h5dump");
    files.extend(h5_files("h5dump-develop"));
    if files.is_empty() {
        eprintln!("corpus not found; skipping");
        return;
    }
    let mut failures = Vec::new();
    let mut totals: BTreeMap<&'static str, usize> = BTreeMap::new();
    for p in &files {
        let (fail, parsed) = check_file(p, false);
        failures.extend(fail);
        for (k, v) in parsed {
            *totals.entry(k).or_default() += v;
        }
    }
    eprintln!("{} files; parsed: {totals:?}", files.len());
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
    // The corpus exercises these structures; make sure the search found them.
    for s in [
        "TREE (group)",
        "TREE (chunk)",
        "SNOD",
        "HEAP",
        "GCOL",
        "FRHP",
        "BTHD",
        "BTLF",
        "FSSE",
        "FADB",
        "VDS heap block",
        "region reference",
    ] {
        assert!(totals.get(s).copied().unwrap_or(0) > 0, "no {s} parsed");
    }
}

#[test]
fn malformed_files_do_not_panic() {
    let files = h5_files("bad");
    for p in &files {
        // Errors are expected; a panic fails the test.
        let _ = check_file(p, true);
    }
}

/// Files the reference library writes with the latest format (see
/// `h5-oracle/c/level1_files.c`): every chunk index, paged array blocks, dense groups and
/// attributes with indirect fractal heap blocks and huge objects, v2 B-trees with internal
/// nodes, a shared message index, and persistent free-space managers of both clients.
#[test]
fn latest_format_structures_from_the_reference_library() {
    let Some(exe) = h5_oracle::require("level1_files oracle", h5_oracle::c_program("level1_files"))
    else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("h5-format-level1-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let out =
        h5_oracle::run(&exe, &[dir.to_str().expect("utf-8 path")], b"").expect("level1_files ran");
    let names = String::from_utf8_lossy(&out).into_owned();
    let mut totals: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for name in names.lines() {
        let (fail, parsed) = check_file(&dir.join(name), false);
        failures.extend(fail);
        for (k, v) in parsed {
            *totals.entry(k).or_default() += v;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("parsed: {totals:?}");
    assert!(failures.is_empty(), "{failures:#?}");
    for s in [
        "EAHD", "EAIB", "EASB", "EADB", "FAHD", "FADB", "BTHD", "BTIN", "BTLF", "FRHP", "FHIB",
        "FHDB", "FSHD", "FSSE",
    ] {
        assert!(
            totals.get(s).copied().unwrap_or(0) > 0,
            "no {s} parsed: {totals:?}"
        );
    }
}
