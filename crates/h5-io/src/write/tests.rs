//! Unit tests of the writer: what it writes parses back with h5-format.

use super::*;
use h5_format::superblock::parse_file_superblock;

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("h5-io-write-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn empty_file_has_a_superblock_and_root() {
    for format in [FileFormat::Compatible, FileFormat::Latest] {
        let p = tmp(&format!("empty-{format:?}.h5"));
        let w = FileWriter::create(&p, format).unwrap();
        w.close().unwrap();
        let bytes = std::fs::read(&p).unwrap();
        let (sb, at) = parse_file_superblock(&bytes).unwrap();
        assert_eq!(at, 0);
        assert_eq!(sb.eof_address.0, bytes.len() as u64);
        assert_eq!(
            sb.version,
            if format == FileFormat::Compatible {
                0
            } else {
                3
            }
        );
    }
}

/// The messages of the object header at `addr` in the file `bytes`.
fn messages_at(bytes: &[u8], addr: u64) -> Vec<h5_format::message::Message> {
    use h5_format::object_header::ObjectHeader;
    use h5_format::{Addr, Cursor, Sizes};
    let mut c = Cursor::new(&bytes[addr as usize..], addr, Sizes::DEFAULT);
    let h = ObjectHeader::parse(&mut c, |a: Addr, n: u64| {
        Ok(bytes[a.0 as usize..(a.0 + n) as usize].to_vec())
    })
    .unwrap();
    h.decode_messages(Sizes::DEFAULT).unwrap()
}

fn layout_of(bytes: &[u8], addr: u64) -> h5_format::message::layout::Layout {
    messages_at(bytes, addr)
        .into_iter()
        .find_map(|m| match m {
            h5_format::message::Message::Layout(l) => Some(l),
            _ => None,
        })
        .unwrap()
}

#[test]
fn chunk_index_kinds_follow_the_reference_library_choices() {
    use crate::selection::{Dataspace, UNLIMITED};
    use h5_format::message::layout::{ChunkIndex, LayoutClass};
    let i32t = <i32 as h5_types::H5Type>::h5_type();
    type Case = (
        &'static str,
        Dataspace,
        Vec<u64>,
        AllocTime,
        bool,
        Option<u8>,
    );
    let cases: Vec<Case> = vec![
        (
            "single",
            Dataspace::simple(&[4, 4]).unwrap(),
            vec![4, 4],
            AllocTime::Default,
            false,
            Some(1),
        ),
        (
            "implicit",
            Dataspace::simple(&[8]).unwrap(),
            vec![2],
            AllocTime::Early,
            false,
            Some(2),
        ),
        (
            "fixed",
            Dataspace::simple(&[8]).unwrap(),
            vec![2],
            AllocTime::Default,
            false,
            Some(3),
        ),
        (
            "fixed_filtered",
            Dataspace::simple(&[8]).unwrap(),
            vec![2],
            AllocTime::Early,
            true,
            Some(3),
        ),
        (
            "earray",
            Dataspace::with_max(&[8, 2], &[8, UNLIMITED]).unwrap(),
            vec![2, 2],
            AllocTime::Default,
            false,
            Some(4),
        ),
        (
            "btree2",
            Dataspace::with_max(&[2, 2], &[UNLIMITED, UNLIMITED]).unwrap(),
            vec![1, 1],
            AllocTime::Default,
            false,
            Some(5),
        ),
    ];
    for format in [FileFormat::Compatible, FileFormat::Latest] {
        let p = tmp(&format!("indexes-{format:?}.h5"));
        let mut w = FileWriter::create(&p, format).unwrap();
        let root = w.root();
        let mut ids = Vec::new();
        for (name, space, chunk, alloc, filtered, _) in &cases {
            let mut spec = DatasetSpec::new(i32t.clone(), space.clone());
            spec.storage = StorageSpec::Chunked(chunk.clone());
            spec.alloc_time = *alloc;
            if *filtered {
                spec.filters = vec![crate::filter::Filter::deflate(1)];
            }
            let id = w.create_dataset(root, name, spec).unwrap();
            let n = crate::write::attribute::npoints(space) as usize;
            let data: Vec<u8> = (0..n as i32).flat_map(|v| v.to_le_bytes()).collect();
            w.write_dataset(id, None, &i32t, &data, &Default::default())
                .unwrap();
            ids.push(w.address(id).unwrap());
        }
        w.flush().unwrap();
        let bytes = std::fs::read(&p).unwrap();
        for ((name, .., expected), addr) in cases.iter().zip(&ids) {
            let l = layout_of(&bytes, *addr);
            let LayoutClass::Chunked { index, address, .. } = l.class else {
                panic!("{name}: not chunked");
            };
            assert!(!address.is_undef(), "{name}: no index address");
            match format {
                FileFormat::Compatible => assert_eq!(index, None, "{name}"),
                FileFormat::Latest => {
                    assert_eq!(index.map(|i| i.index_type()), *expected, "{name}");
                    if let Some(ChunkIndex::SingleChunk { filtered }) = index {
                        assert_eq!(filtered, None);
                    }
                }
            }
        }
        w.close().unwrap();
    }
}

#[test]
fn symbol_table_nodes_hold_sorted_names_and_the_btree_keys_bound_them() {
    use h5_format::btree::v1::{Keys, Node};
    use h5_format::heap::local::{string_at, LocalHeap};
    use h5_format::message::Message;
    use h5_format::symbol_table::SymbolTableNode;
    use h5_format::{Cursor, Sizes};
    let p = tmp("symtab.h5");
    let mut w = FileWriter::create(&p, FileFormat::Compatible).unwrap();
    let root = w.root();
    let names: Vec<String> = (0..50).rev().map(|i| format!("n{i:03}")).collect();
    for n in &names {
        w.create_group(root, n).unwrap();
    }
    let root_addr = w.address(root).unwrap();
    w.close().unwrap();
    let bytes = std::fs::read(&p).unwrap();
    let s = Sizes::DEFAULT;
    let at = |a: u64| Cursor::new(&bytes[a as usize..], a, s);
    let stab = messages_at(&bytes, root_addr)
        .into_iter()
        .find_map(|m| match m {
            Message::SymbolTable(t) => Some(t),
            _ => None,
        })
        .unwrap();
    let heap = LocalHeap::parse(&mut at(stab.heap_address.0)).unwrap();
    let seg = at(heap.data_segment.0);
    let name = |off: u64| String::from_utf8(string_at(&seg, off).unwrap().to_vec()).unwrap();
    let node = Node::parse(&mut at(stab.btree_address.0), None).unwrap();
    assert_eq!(node.level, 0);
    let Keys::Group(keys) = &node.keys else {
        panic!("not a group node")
    };
    assert_eq!(keys.len(), node.children.len() + 1);
    assert_eq!(name(keys[0]), "");
    let mut all = Vec::new();
    for (i, child) in node.children.iter().enumerate() {
        let snod = SymbolTableNode::parse(&mut at(child.0)).unwrap();
        let got: Vec<String> = snod
            .entries
            .iter()
            .map(|e| name(e.link_name_offset))
            .collect();
        assert!(got
            .iter()
            .all(|n| *n > name(keys[i]) && *n <= name(keys[i + 1])));
        all.extend(got);
    }
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(all, sorted);
}

/// A file h5py wrote, every link of its root removed in place: the space of everything
/// below the root (headers, raw data, chunks, symbol tables, dense link and attribute
/// storage, version 1 and 2 B-trees, fixed and extensible arrays) is free after a flush.
#[test]
fn freeing_everything_of_an_h5py_file_frees_its_space() {
    const MAKE: &str = r#"
import sys, h5py, numpy as np
path, libver = sys.argv[1], sys.argv[2]
f = h5py.File(path, 'w', libver=libver)
many = f.create_group('many')
for i in range(20):
    many.create_dataset('d%02d' % i, data=np.array([i], dtype='<i4'))
a = f.create_dataset('attrs', data=np.zeros(2, dtype='<i4'))
for i in range(12):
    a.attrs['a%02d' % i] = i
f.create_dataset('fa', data=np.arange(64, dtype='<i4'), chunks=(8,))
f.create_dataset('bt2', data=np.arange(64, dtype='<i4').reshape(8, 8), chunks=(2, 2),
                 maxshape=(None, None))
f.create_dataset('contig', data=np.arange(1000, dtype='<i4'))
f.create_dataset('ea_small', data=np.arange(12, dtype='<i4'), chunks=(4,), maxshape=(None,))
f.create_dataset('ea_big', data=np.arange(4000, dtype='<i4'), chunks=(4,), maxshape=(None,))
f.create_group('sub/deeper').create_dataset('x', data=np.arange(3, dtype='<i4'))
f.close()
"#;
    const CHECK: &str = r#"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], 'r')
assert (f['fa'][()] == np.arange(64)).all()
assert (f['contig'][()] == np.arange(1000)).all()
assert (f['ea_small'][()] == np.arange(12)).all()
assert (f['sub/deeper/x'][()] == np.arange(3)).all()
for i in range(40):
    assert (f['n%02d' % i][()] == np.arange(64) + i).all()
kept = ['fa', 'contig', 'ea_small', 'sub']
assert sorted(f.keys()) == sorted(kept + ['n%02d' % i for i in range(40)])
print('ok')
"#;
    let Some(exe) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    for libver in ["earliest", "latest"] {
        let p = tmp(&format!("free-everything-{libver}.h5"));
        h5_oracle::run(&exe, &["-c", MAKE, p.to_str().unwrap(), libver], b"").unwrap();
        // Half freed, the space filled again: what stays reads as before.
        let mut w = FileWriter::open_rw(&p).unwrap();
        let root = w.root();
        for name in ["ea_big", "many", "attrs", "bt2"] {
            w.unlink(root, name).unwrap();
        }
        w.flush().unwrap();
        let i32t = <i32 as h5_types::H5Type>::h5_type();
        for i in 0..40 {
            let mut spec = DatasetSpec::new(
                i32t.clone(),
                crate::selection::Dataspace::simple(&[64]).unwrap(),
            );
            spec.storage = StorageSpec::Chunked(vec![8]);
            let id = w.create_dataset(root, &format!("n{i:02}"), spec).unwrap();
            let v: Vec<u8> = (0..64).flat_map(|k: i32| (k + i).to_le_bytes()).collect();
            w.write_dataset(id, None, &i32t, &v, &Default::default())
                .unwrap();
        }
        assert!(w.space.reused > 0);
        w.close().unwrap();
        let report = h5_format::walk::walk(&std::fs::read(&p).unwrap());
        assert!(report.is_sound(), "{libver}: {:?}", report.problems);
        let out = h5_oracle::run(&exe, &["-c", CHECK, p.to_str().unwrap()], b"").unwrap();
        assert_eq!(String::from_utf8(out).unwrap().trim(), "ok", "{libver}");
        // Everything freed, in a file as h5py wrote it (space a writer freed and did not
        // reuse is not known to the next one: no free-space manager is kept in the file).
        let p = tmp(&format!("free-everything-{libver}-all.h5"));
        h5_oracle::run(&exe, &["-c", MAKE, p.to_str().unwrap(), libver], b"").unwrap();
        let mut w = FileWriter::open_rw(&p).unwrap();
        let root = w.root();
        for name in w.link_names(root).unwrap() {
            w.unlink(root, &name).unwrap();
        }
        w.flush().unwrap();
        let eoa = w.eoa_now();
        let free = w.space.free_bytes();
        let root_addr = w.address(root).unwrap();
        // What is in use: the superblock, the root group's header (and, in the compatible
        // format, its new symbol table), and what h5py left unused in the file (the tails
        // of the reference library's metadata aggregation blocks).
        let used = eoa - free;
        eprintln!("{libver}: {used} of {eoa} bytes in use after freeing (root at {root_addr:#x})");
        assert!(
            used < eoa / 8,
            "{libver}: {used} of {eoa} bytes still in use"
        );
        w.close().unwrap();
        let report = h5_format::walk::walk(&std::fs::read(&p).unwrap());
        assert!(report.is_sound(), "{:?}", report.problems);
    }
}
