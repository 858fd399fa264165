//! Parse the superblock and object headers of every file of the conformance corpus.
//!
//! For each `.h5` file of `corpus/h5dump` (and `corpus/h5dump-develop`): find and parse the
//! superblock, the superblock extension, the root object header, and every object header
//! reachable from it through symbol-table groups (a small v1 B-tree walk here in the test)
//! and compact links; decode every message, check that re-encoding each message parses back
//! to the same value and that re-encoding each header chunk gives back its bytes. Every file
//! of `corpus/bad` goes through the same walk, where errors are fine and panics are not.

use h5_format::driver_info::{DriverData, DriverInfoBlock};
use h5_format::message::link::LinkTarget;
use h5_format::message::Message;
use h5_format::object_header::ObjectHeader;
use h5_format::superblock::{parse_file_superblock, Superblock, SuperblockExtension};
use h5_format::symbol_table_entry::SymbolTableEntry;
use h5_format::{Addr, Cursor, Error, ErrorKind, Result, Sizes, Writer};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// `shared/corpus/<sub>` next to the checkout: `../../../shared/corpus` from the crate in
/// the main checkout, one level more from a worktree; the first ancestor that has it.
fn corpus_dir(sub: &str) -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .map(|a| a.join("shared/corpus"))
        .find(|p| p.is_dir())
        .unwrap_or_else(|| here.join("../../../shared/corpus"))
        .join(sub)
}

fn h5_files(sub: &str) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(corpus_dir(sub)) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "h5"))
        .collect();
    v.sort();
    v
}

struct Walk<'a> {
    file: &'a [u8],
    base: u64,
    sizes: Sizes,
    seen: HashSet<u64>,
    headers: usize,
    messages: usize,
    /// Chunks whose re-encoding differs from the file's bytes.
    chunk_mismatches: Vec<String>,
    strict: bool,
    kinds: std::collections::BTreeMap<String, usize>,
    /// B-tree and symbol table nodes visited (a budget against corrupt cycles).
    nodes: std::cell::Cell<usize>,
}

impl<'a> Walk<'a> {
    fn bytes(&self, addr: Addr, len: u64) -> Result<&'a [u8]> {
        let start = addr
            .get()
            .and_then(|a| a.checked_add(self.base))
            .ok_or_else(|| Error::new(ErrorKind::BadAddress, "test", 0, "undefined address"))?;
        let end = start.saturating_add(len);
        if end > self.file.len() as u64 {
            return Err(Error::new(
                ErrorKind::BadAddress,
                "test",
                start,
                "past end of file",
            ));
        }
        Ok(&self.file[start as usize..end as usize])
    }

    fn header(&mut self, addr: Addr) -> Result<()> {
        let Some(a) = addr.get() else { return Ok(()) };
        if !self.seen.insert(a) || self.seen.len() > 10_000 {
            return Ok(());
        }
        let start = a
            .checked_add(self.base)
            .filter(|&s| s < self.file.len() as u64);
        let Some(start) = start else {
            return Err(Error::new(
                ErrorKind::BadAddress,
                "test",
                a,
                "header past end of file",
            ));
        };
        // Cursor offsets are addresses (relative to the base address), like the
        // continuation addresses the header holds.
        let mut c = Cursor::new(&self.file[start as usize..], a, self.sizes);
        let file = self.file;
        let base = self.base;
        let h = ObjectHeader::parse(&mut c, |addr, len| {
            let s = addr.0.saturating_add(base);
            let e = s.saturating_add(len);
            if e > file.len() as u64 {
                return Err(Error::new(
                    ErrorKind::BadAddress,
                    "test",
                    s,
                    "chunk past end of file",
                ));
            }
            Ok(file[s as usize..e as usize].to_vec())
        })?;
        self.headers += 1;
        // Re-encode every chunk and compare with the file's bytes.
        for i in 0..h.chunks.len() {
            let mut w = Writer::new(self.sizes);
            h.encode_chunk(i, &mut w)?;
            let orig = self.bytes(h.chunks[i].address, w.len() as u64)?;
            if orig != w.as_slice() {
                self.chunk_mismatches
                    .push(format!("header {addr} chunk {i}"));
            }
        }
        let mut children = Vec::new();
        for raw in h.messages() {
            let m = raw.decode(self.sizes)?;
            self.messages += 1;
            let label = match &m {
                Message::Datatype(t) => format!("datatype v{} {:?}", t.version, t.datatype.class()),
                Message::Layout(l) => format!("layout v{}", l.version),
                Message::Dataspace(d) => format!("dataspace v{} {:?}", d.version, d.kind),
                Message::FillValue(f) => format!("fill v{}", f.version),
                Message::Attribute(a) => format!("attribute v{}", a.version),
                Message::FilterPipeline(p) => format!("filters v{}", p.version),
                Message::Shared { kind, shared } => format!("shared v{} {kind}", shared.version),
                other => other.kind().to_string(),
            };
            *self.kinds.entry(label).or_default() += 1;
            // Encode-then-parse is the identity.
            let bytes = m.to_bytes(self.sizes);
            let again = Message::parse_bytes(raw.kind, raw.flags, &bytes, 0, self.sizes)?;
            if self.strict {
                assert_eq!(
                    again, m,
                    "message {} at {:#x} does not round-trip",
                    raw.kind, raw.offset
                );
            }
            match m {
                Message::SymbolTable(st) => {
                    children.extend(self.symbol_table(st.btree_address, 0)?)
                }
                Message::Link(l) => {
                    if let LinkTarget::Hard(a) = l.target {
                        children.push(a);
                    }
                }
                _ => {}
            }
        }
        for c in children {
            self.header(c)?;
        }
        Ok(())
    }

    /// Object header addresses of a group's v1 B-tree (type 0) and its symbol table nodes.
    fn symbol_table(&self, node: Addr, depth: usize) -> Result<Vec<Addr>> {
        let err = |m: &str| Error::new(ErrorKind::InvalidValue, "test", node.0, m);
        self.nodes.set(self.nodes.get() + 1);
        if depth > 64 || node.is_undef() || self.nodes.get() > 10_000 {
            return Ok(Vec::new());
        }
        let o = self.sizes.offset as u64;
        let l = self.sizes.length as u64;
        let head = self.bytes(node, 8 + 2 * o)?;
        let mut c = Cursor::new(head, 0, self.sizes);
        c.expect_signature(b"TREE")?;
        let _ty = c.read_u8()?;
        let level = c.read_u8()?;
        let used = u64::from(c.read_u16()?);
        let body = self.bytes(node, 8 + 2 * o + used * (l + o) + l)?;
        let mut c = Cursor::new(body, node.0, self.sizes);
        c.skip((8 + 2 * o) as usize)?;
        let mut out = Vec::new();
        for _ in 0..used {
            c.read_len()?;
            let child = c.read_addr()?;
            if level > 0 {
                out.extend(self.symbol_table(child, depth + 1)?);
            } else {
                let head = self.bytes(child, 8)?;
                if &head[..4] != b"SNOD" {
                    return Err(err("no SNOD"));
                }
                let n = u16::from_le_bytes([head[6], head[7]]) as u64;
                let size = SymbolTableEntry::encoded_size(self.sizes) as u64;
                let ents = self.bytes(Addr(child.0 + 8), n * size)?;
                let mut ec = Cursor::new(ents, child.0 + 8, self.sizes);
                for _ in 0..n {
                    out.push(SymbolTableEntry::parse(&mut ec)?.object_header_address);
                }
            }
        }
        Ok(out)
    }
}

struct Summary {
    headers: usize,
    messages: usize,
    mismatches: Vec<String>,
}

/// Files the reference library's own tests expect to fail to open.
const EXPECTED_BAD: &[&str] = &["tCVE_2018_11206_fill_new.h5", "tCVE_2018_11206_fill_old.h5"];

/// Member files of family, multi and split files other than the one with the superblock.
fn is_secondary_member(name: &str) -> bool {
    let family = name
        .strip_prefix("tfamily")
        .and_then(|r| r.strip_suffix(".h5"));
    if let Some(n) = family {
        return n != "00000";
    }
    ["-b.h5", "-g.h5", "-l.h5", "-o.h5", "-r.h5"]
        .iter()
        .any(|s| name.ends_with(s))
}

/// A family file's address space: its members, each padded to the member size.
fn family_image(first: &Path, member_size: u64) -> Vec<u8> {
    let mut image = Vec::new();
    for i in 0..1000 {
        let p = first.with_file_name(format!("tfamily{i:05}.h5"));
        let Ok(mut b) = std::fs::read(&p) else { break };
        b.resize(member_size as usize, 0);
        image.extend_from_slice(&b);
    }
    image
}

fn walk_file(file: &[u8], strict: bool) -> Result<Summary> {
    let (sb, at): (Superblock, u64) = parse_file_superblock(file)?;
    // Encoding the superblock gives back its bytes.
    let mut w = Writer::new(sb.sizes);
    sb.encode(&mut w);
    if strict {
        assert_eq!(
            &file[at as usize..at as usize + w.len()],
            w.as_slice(),
            "superblock bytes"
        );
    }
    let mut walk = Walk {
        file,
        base: at,
        sizes: sb.sizes,
        seen: HashSet::new(),
        headers: 0,
        messages: 0,
        chunk_mismatches: Vec::new(),
        strict,
        kinds: Default::default(),
        nodes: Default::default(),
    };
    if let Some(v0) = &sb.v0 {
        if let Some(a) = v0.driver_info_address.get() {
            let rest = walk.bytes(Addr(a), 0).map(|_| &file[(a + at) as usize..])?;
            let d = DriverInfoBlock::parse(&mut Cursor::new(rest, a + at, sb.sizes))?;
            if let DriverData::Multi { .. } = d.data {
                // The headers are in the other member files: the superblock is all here.
                return Ok(Summary {
                    headers: 0,
                    messages: 0,
                    mismatches: Vec::new(),
                });
            }
        }
    }
    if let Some(ext) = sb.extension_address.get() {
        let start = (ext + at) as usize;
        let rest = file.get(start..).unwrap_or(&[]);
        let h = ObjectHeader::parse(&mut Cursor::new(rest, ext, sb.sizes), |a, n| {
            Ok(walk.bytes(a, n)?.to_vec())
        })?;
        SuperblockExtension::from_header(&h, sb.sizes)?;
    }
    walk.header(sb.root_object_header())?;
    if std::env::var_os("H5_CORPUS_STATS").is_some() {
        eprintln!("{:?}", walk.kinds);
    }
    Ok(Summary {
        headers: walk.headers,
        messages: walk.messages,
        mismatches: walk.chunk_mismatches,
    })
}

#[test]
fn corpus_files_parse() {
    let mut files = h5_files("h5dump");
    files.extend(h5_files("h5dump-develop"));
    // Extra files (for example written by h5py with the newest format versions).
    if let Some(dir) = std::env::var_os("H5_EXTRA_CORPUS") {
        if let Ok(rd) = std::fs::read_dir(dir) {
            files.extend(
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "h5")),
            );
        }
    }
    if files.is_empty() {
        eprintln!("corpus not found; skipping");
        return;
    }
    let mut failures = Vec::new();
    let (mut headers, mut messages, mut mismatches) = (0, 0, Vec::new());
    let mut skipped = 0;
    for path in &files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let mut data = std::fs::read(path).expect("read corpus file");
        if is_secondary_member(name) {
            skipped += 1;
            continue;
        }
        if EXPECTED_BAD.contains(&name) {
            assert!(walk_file(&data, true).is_err(), "{name} should fail");
            continue;
        }
        if name == "tfamily00000.h5" {
            let (sb, _) = parse_file_superblock(&data).expect("family superblock");
            // Without a driver info block the member size is the first member's size.
            let mut member_size = data.len() as u64;
            if let Some(a) = sb.v0.as_ref().and_then(|v| v.driver_info_address.get()) {
                let rest = &data[a as usize..];
                let d = DriverInfoBlock::parse(&mut Cursor::new(rest, a, sb.sizes))
                    .expect("driver info");
                if let DriverData::Family { member_size: m } = d.data {
                    member_size = m;
                }
            }
            data = family_image(path, member_size);
        }
        match walk_file(&data, true) {
            Ok(s) => {
                headers += s.headers;
                messages += s.messages;
                mismatches.extend(
                    s.mismatches
                        .into_iter()
                        .map(|m| format!("{}: {m}", path.display())),
                );
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    eprintln!(
        "{} files ({skipped} secondary members skipped), {headers} object headers, {messages} messages, {} chunk re-encodings differ",
        files.len(),
        mismatches.len()
    );
    for m in mismatches.iter().take(20) {
        eprintln!("  differs: {m}");
    }
    assert!(
        failures.is_empty(),
        "{} files failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(headers > files.len());
}

/// Truncations and single-byte corruptions of a file: errors are fine, panics are not.
fn corrupt_variants(data: &[u8]) {
    for n in (0..data.len().min(4096)).step_by(97) {
        let _ = walk_file(&data[..n], false);
    }
    let mut copy = data.to_vec();
    for i in (0..data.len().min(8192)).step_by(13) {
        for x in [0xffu8, 0x01] {
            copy[i] ^= x;
            let _ = walk_file(&copy, false);
            copy[i] ^= x;
        }
    }
}

#[test]
fn corrupted_corpus_files_do_not_panic() {
    for name in [
        "tattr.h5",
        "tcompound.h5",
        "tvldtypes1.h5",
        "tlayouto.h5",
        "tfilters.h5",
    ] {
        let path = corpus_dir("h5dump").join(name);
        if let Ok(data) = std::fs::read(&path) {
            corrupt_variants(&data);
        }
    }
}

#[test]
fn bad_files_do_not_panic() {
    let files = h5_files("bad");
    let mut errors = 0;
    for path in &files {
        let data = std::fs::read(path).expect("read bad file");
        if walk_file(&data, false).is_err() {
            errors += 1;
        }
        corrupt_variants(&data);
    }
    eprintln!("{} bad files, {errors} rejected with an error", files.len());
}

/// The script that writes files with every format version h5py's library (HDF5 2.0) can
/// write: superblocks 0 to 3, version 2 headers with creation order, attribute messages
/// version 3, layout version 5 with every chunk index, complex numbers, revised references,
/// a user block. Groups stay small so their links are in the header (compact storage).
const H5PY_SCRIPT: &str = r#"
import sys, h5py, numpy as np
out = sys.argv[1]
def fill(f, part):
    if part == 0:
        f.attrs["s"] = "h\u00e9llo"
        f.attrs.create("u", np.arange(5, dtype="u2"))
        f.create_dataset("c", data=np.arange(100.0).reshape(10, 10), chunks=(3, 3),
                         compression="gzip", shuffle=True, fletcher32=True)
        f.create_dataset("ea", shape=(10,), maxshape=(None,), dtype="i4", chunks=(2,))
        f.create_dataset("bt", shape=(10, 10), maxshape=(None, None), dtype="i4", chunks=(2, 2))
        f.create_dataset("single", data=np.arange(10), chunks=(10,), compression="gzip")
        f.create_dataset("fixed", data=np.arange(12).reshape(3, 4), chunks=(1, 4))
    elif part == 1:
        f.create_dataset("compact", data=np.arange(4), dtype="i8")
        f.create_dataset("vlen", data=np.array(["a", "bb"], dtype=object), dtype=h5py.string_dtype())
        f.create_dataset("cplx", data=np.arange(4) * (1 + 2j))
        f.create_dataset("null", data=h5py.Empty("f"))
        f["named"] = np.dtype([("a", "i4"), ("b", "f8", (3,))])
        f.create_dataset("usesnamed", shape=(2,), dtype=f["named"])
    else:
        f.create_dataset("e", data=np.arange(3, dtype="i2"),
                         dtype=h5py.enum_dtype({"A": 0, "B": 1, "C": 2}, basetype="i2"))
        f.create_dataset("f16", data=np.arange(3, dtype="f2"))
        f.create_dataset("ref", data=[f.ref], dtype=h5py.ref_dtype)
        g = f.create_group("g", track_order=True)
        g.attrs["x"] = 1
        g["soft"] = h5py.SoftLink("/e")
        g["ext"] = h5py.ExternalLink("other.h5", "/x")
for lv in ["earliest", "v108", "v110", "v114", "v200", "latest"]:
    for part in range(3):
        try:
            f = h5py.File(f"{out}/lib_{lv}_{part}.h5", "w",
                          libver=(lv, "latest") if lv != "earliest" else "earliest")
        except (ValueError, KeyError):
            break
        with f:
            fill(f, part)
with h5py.File(f"{out}/userblock.h5", "w", userblock_size=1024) as f:
    f["x"] = 1
"#;

#[test]
fn h5py_written_files_parse() {
    // h5py is an optional oracle (as in h5-oracle's policy): skip when it does not import,
    // fail when H5_REQUIRE_ORACLES=1.
    let py = PathBuf::from("python3");
    let ok = std::process::Command::new(&py)
        .args(["-c", "import h5py"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("H5_REQUIRE_ORACLES").is_none_or(|v| v != "1"),
            "h5py is required (H5_REQUIRE_ORACLES=1) but does not import"
        );
        eprintln!("h5py not available; skipping");
        return;
    }
    let dir = std::env::temp_dir().join(format!("h5-format-h5py-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let script = dir.join("write.py");
    std::fs::write(&script, H5PY_SCRIPT).expect("write script");
    let dir_s = dir.to_string_lossy().into_owned();
    let script_s = script.to_string_lossy().into_owned();
    let r = std::process::Command::new(&py)
        .args([&script_s, &dir_s])
        .output();
    match r {
        Ok(o) if o.status.success() => {}
        other => {
            let _ = std::fs::remove_dir_all(&dir);
            panic!("h5py script failed: {other:?}");
        }
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read temporary directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "h5"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    let mut headers = 0;
    for path in &files {
        let data = std::fs::read(path).expect("read written file");
        match walk_file(&data, true) {
            Ok(s) => {
                headers += s.headers;
                assert!(
                    s.mismatches.is_empty(),
                    "{}: {:?}",
                    path.display(),
                    s.mismatches
                );
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(files.len() >= 10, "only {} files written", files.len());
    assert!(headers > files.len());
}
