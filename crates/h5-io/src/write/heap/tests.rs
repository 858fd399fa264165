//! Fractal heaps written here parse back with h5-format: every heap ID resolves to its
//! object, through nested indirect blocks.

use h5_format::btree::v2::Record;
use h5_format::heap::fractal::{
    DirectBlock, FractalHeapHeader, HeapId, HeapIdLayout, IndirectBlock,
};
use h5_format::{Cursor, Sizes};

use super::{HeapParams, ATTR_HEAP, FHEAP_MAX_MANAGED, LINK_HEAP};
use crate::write::{FileFormat, FileWriter};

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("h5-io-heap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Write `objects` into a heap of a new file and check each ID against the bytes on disk;
/// return the header.
fn roundtrip(name: &str, objects: &[Vec<u8>], p: HeapParams) -> FractalHeapHeader {
    let path = tmp(name);
    let mut w = FileWriter::create(&path, FileFormat::Latest).unwrap();
    let (addr, ids) = w.write_fractal_heap(objects, p).unwrap();
    w.close().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let sizes = Sizes::DEFAULT;
    let at = |a: u64| Cursor::new(&bytes[a as usize..], a, sizes);
    let h = FractalHeapHeader::parse(&mut at(addr)).unwrap();
    assert_eq!(h.heap_id_length, p.id_len);
    assert_eq!(h.starting_block_size, p.start_block);
    assert_eq!(h.max_heap_size, p.max_heap_bits);
    let dt = h.doubling_table().unwrap();
    let layout = HeapIdLayout::new(&h, sizes).unwrap();
    // Huge objects: from the type 1 B-tree's records.
    let huge: Vec<Record> = if h.huge_btree.is_undef() {
        Vec::new()
    } else {
        let tree = crate::File::from_bytes(bytes.clone()).unwrap();
        tree.v2_records(h.huge_btree).unwrap()
    };
    let mut direct_seen = std::collections::BTreeSet::new();
    for (o, id) in objects.iter().zip(&ids) {
        assert_eq!(id.len(), p.id_len as usize);
        match HeapId::parse(&mut Cursor::new(id, 0, sizes), &layout).unwrap() {
            HeapId::Managed { offset, length } => {
                assert!(o.len() <= FHEAP_MAX_MANAGED as usize);
                assert_eq!(length, o.len() as u64);
                let loc = h
                    .locate_managed(offset, length, |a, nrows| {
                        IndirectBlock::parse(&mut at(a.0), &h, nrows)
                    })
                    .unwrap();
                if direct_seen.insert(loc.block_address.0) {
                    // Every direct block parses, checksum included.
                    let b = DirectBlock::parse(&mut at(loc.block_address.0), &h, loc.block_size)
                        .unwrap();
                    assert_eq!(b.block_offset, loc.block_offset);
                }
                let s = (loc.block_address.0 + loc.offset_in_block) as usize;
                assert_eq!(&bytes[s..s + o.len()], &o[..]);
            }
            HeapId::HugeIndirect { id } => {
                assert!(o.len() > FHEAP_MAX_MANAGED as usize);
                let Some(Record::HugeIndirect {
                    address, length, ..
                }) = huge
                    .iter()
                    .find(|r| matches!(r, Record::HugeIndirect { id: i, .. } if *i == id))
                else {
                    panic!("no huge record {id}");
                };
                let s = address.0 as usize;
                assert_eq!(&bytes[s..s + *length as usize], &o[..]);
            }
            other => panic!("unexpected heap ID {other:?}"),
        }
    }
    assert_eq!(h.managed_objects + h.huge_objects, objects.len() as u64);
    if h.current_root_rows > 0 {
        // The heap covers what the root's rows address; the iterator ends a block.
        assert_eq!(
            h.managed_space,
            dt.row_block_offset(u32::from(h.current_root_rows)).unwrap()
        );
        assert!(h.direct_block_iterator_offset <= h.managed_space);
    }
    h
}

fn objects(n: usize, len: impl Fn(usize) -> usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| (0..len(i)).map(|k| (i * 31 + k) as u8).collect())
        .collect()
}

#[test]
fn small_heaps_have_a_root_direct_block_of_the_starting_size() {
    let h = roundtrip("small.h5", &objects(9, |_| 40), LINK_HEAP);
    assert_eq!(h.current_root_rows, 0);
    assert_eq!(h.managed_space, 512);
    assert_eq!(h.direct_block_iterator_offset, 0);
    let h = roundtrip("small-attr.h5", &objects(9, |_| 100), ATTR_HEAP);
    assert_eq!(h.current_root_rows, 0);
    assert_eq!(h.managed_space, 1024);
}

#[test]
fn root_indirect_block_rows_double() {
    // 10 KiB: two rows of 512-byte blocks, then 1 KiB and 2 KiB blocks: 4 rows.
    let h = roundtrip("rows.h5", &objects(100, |_| 100), LINK_HEAP);
    assert_eq!(h.current_root_rows, 4);
    // 20 KiB needs a fifth row: the root doubles to 8.
    let h = roundtrip("rows1.h5", &objects(200, |_| 100), LINK_HEAP);
    assert_eq!(h.current_root_rows, 8);
    let h = roundtrip("rows2.h5", &objects(1000, |_| 100), LINK_HEAP);
    assert_eq!(h.current_root_rows, 8);
}

#[test]
fn big_heaps_nest_indirect_blocks() {
    // 6 MB of 210-byte link messages: past the 512 KiB of direct rows, into rows of
    // indirect blocks (128 KiB, 256 KiB... each with its own rows).
    let h = roundtrip("nested.h5", &objects(30_000, |i| 200 + i % 20), LINK_HEAP);
    let dt = h.doubling_table().unwrap();
    assert!(u32::from(h.current_root_rows) > dt.max_direct_rows);
    assert_eq!(h.current_root_rows, 16);
    // Attributes: 1 KiB starting blocks, 40-bit heap.
    let h = roundtrip("nested-attr.h5", &objects(20_000, |_| 150), ATTR_HEAP);
    assert!(u32::from(h.current_root_rows) > h.doubling_table().unwrap().max_direct_rows);
}

#[test]
fn large_objects_skip_small_blocks_and_huge_ones_go_to_the_btree() {
    // Mixed sizes: objects that need 2 KiB, 4 KiB and 8 KiB blocks between small ones, and
    // objects over 4 KiB stored as huge objects.
    let sizes = [30, 1500, 40, 4000, 3000, 5000, 60_000, 20, 4096, 4097];
    let objs = objects(400, |i| sizes[i % sizes.len()]);
    let h = roundtrip("mixed.h5", &objs, LINK_HEAP);
    assert_eq!(h.huge_objects, 120);
    assert_eq!(h.next_huge_id, 120);
    let h = roundtrip("mixed-attr.h5", &objs, ATTR_HEAP);
    assert_eq!(h.huge_objects, 120);
    // Only huge objects: no managed block at all.
    let h = roundtrip("huge-only.h5", &objects(3, |_| 10_000), ATTR_HEAP);
    assert!(h.root_block.is_undef());
    assert_eq!(h.managed_objects, 0);
}
