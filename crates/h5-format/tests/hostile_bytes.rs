//! Hostile input: valid encodings of every level-1 structure, mutated at random (and, for
//! checksummed structures, with the checksum recomputed so the mutation reaches the fields),
//! fed to every parser and to the arithmetic that follows from a parsed header. Nothing may
//! panic, loop forever or allocate without bound; errors are the expected outcome.

use h5_format::btree::{v1, v2};
use h5_format::chunk_index::{
    extensible_array as ea, fixed_array as fa, BlockElements, ChunkElement,
};
use h5_format::free_space::{FreeSpaceHeader, Section, SectionClasses, SectionList, SectionSet};
use h5_format::heap::fractal::{
    DirectBlock, DirectEntry, FractalHeapHeader, HeapId, HeapIdLayout, IndirectBlock,
};
use h5_format::heap::global::{GlobalHeapCollection, GlobalHeapObject};
use h5_format::heap::local::LocalHeap;
use h5_format::reference::{Reference, ReferenceTarget};
use h5_format::selection::{Block, EncodeSize, RegularDim, Selection};
use h5_format::symbol_table::{CachedInfo, SymbolTableEntry, SymbolTableNode};
use h5_format::vds::{VirtualMapping, VirtualMappings};
use h5_format::{checksum::checksum, Addr, Cursor, Sizes, Writer};

const S: Sizes = Sizes::DEFAULT;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn enc(f: impl FnOnce(&mut Writer)) -> Vec<u8> {
    let mut w = Writer::new(S);
    f(&mut w);
    w.into_vec()
}

struct Context {
    heap: FractalHeapHeader,
    bt2: v2::Header,
    fs: FreeSpaceHeader,
    fa: fa::FixedArrayHeader,
    ea: ea::ExtensibleArrayHeader,
}

fn context() -> Context {
    Context {
        heap: FractalHeapHeader {
            heap_id_length: 8,
            flags: 2,
            max_managed_object_size: 4096,
            next_huge_id: 0,
            huge_btree: Addr::UNDEF,
            managed_free_space: 0,
            free_space_manager: Addr::UNDEF,
            managed_space: 4096,
            allocated_managed_space: 4096,
            direct_block_iterator_offset: 0,
            managed_objects: 1,
            huge_objects_size: 0,
            huge_objects: 0,
            tiny_objects_size: 0,
            tiny_objects: 0,
            table_width: 4,
            starting_block_size: 64,
            max_direct_block_size: 256,
            max_heap_size: 16,
            starting_root_rows: 0,
            root_block: Addr(0),
            current_root_rows: 5,
            filters: None,
        },
        bt2: v2::Header {
            record_type: 8,
            node_size: 128,
            record_size: 17,
            depth: 1,
            split_percent: 100,
            merge_percent: 40,
            root: Addr(0),
            root_records: 2,
            total_records: 10,
        },
        fs: FreeSpaceHeader {
            client: 0,
            total_space: 10,
            total_sections: 3,
            serialized_sections: 3,
            ghost_sections: 0,
            section_classes: 4,
            shrink_percent: 80,
            expand_percent: 120,
            address_space_bits: 16,
            max_section_size: 256,
            section_list: Addr(0),
            section_list_used: 0,
            section_list_allocated: 0,
        },
        fa: fa::FixedArrayHeader {
            client: 0,
            element_size: 8,
            page_bits: 2,
            nelements: 10,
            data_block: Addr(0),
        },
        ea: ea::ExtensibleArrayHeader {
            client: 0,
            element_size: 8,
            max_nelmts_bits: 16,
            index_block_elements: 2,
            data_block_min_elements: 2,
            secondary_block_min_data_pointers: 2,
            max_data_block_page_bits: 2,
            secondary_blocks: 0,
            secondary_blocks_size: 0,
            data_blocks: 0,
            data_blocks_size: 0,
            max_index_set: 0,
            elements_realized: 0,
            index_block: Addr(0),
        },
    }
}

/// (name, bytes, checksum at the end)
fn samples(cx: &mut Context) -> Vec<(&'static str, Vec<u8>, bool)> {
    let mut v = Vec::new();
    let node = v1::Node {
        level: 0,
        left_sibling: Addr::UNDEF,
        right_sibling: Addr(5),
        keys: v1::Keys::Group(vec![0, 8, 16]),
        children: vec![Addr(1), Addr(2)],
    };
    v.push(("TREE", enc(|w| node.encode(w, 2)), false));
    let chunk = v1::Node {
        level: 1,
        left_sibling: Addr::UNDEF,
        right_sibling: Addr::UNDEF,
        keys: v1::Keys::Chunk(vec![
            v1::ChunkKey {
                chunk_size: 4,
                filter_mask: 0,
                offsets: vec![0, 0, 0, 0],
            },
            v1::ChunkKey {
                chunk_size: 0,
                filter_mask: 0,
                offsets: vec![9, 9, 9, 0],
            },
        ]),
        children: vec![Addr(1)],
    };
    v.push(("TREE chunk", enc(|w| chunk.encode(w, 1)), false));
    let snod = SymbolTableNode {
        entries: vec![SymbolTableEntry {
            link_name_offset: 8,
            object_header: Addr(0x60),
            cache: CachedInfo::Group {
                btree: Addr(1),
                heap: Addr(2),
            },
        }],
    };
    v.push(("SNOD", enc(|w| snod.encode(w, 2)), false));
    let lh = LocalHeap {
        data_segment_size: 64,
        free_list_head: Some(16),
        data_segment: Addr(0),
    };
    let mut heap_bytes = enc(|w| lh.encode(w));
    heap_bytes.resize(heap_bytes.len() + 64, 0);
    v.push(("HEAP", heap_bytes, false));
    let gcol = GlobalHeapCollection {
        collection_size: 128,
        objects: vec![
            GlobalHeapObject {
                index: 1,
                reference_count: 1,
                data: b"abcdefghij".to_vec(),
            },
            GlobalHeapObject {
                index: 2,
                reference_count: 0,
                data: vec![0; 8],
            },
        ],
    };
    v.push(("GCOL", enc(|w| gcol.encode(w)), false));
    v.push(("FRHP", enc(|w| cx.heap.encode(w)), true));
    let db = DirectBlock {
        heap_header: Addr(0),
        block_offset: 0,
        checksummed: true,
        data: vec![7; 64 - 5 - 8 - 2 - 4],
    };
    v.push(("FHDB", enc(|w| db.encode(w, &cx.heap)), false));
    let (k, n) = cx.heap.doubling_table().unwrap().indirect_entries(5);
    let ib = IndirectBlock {
        heap_header: Addr(0),
        block_offset: 0,
        nrows: 5,
        direct: vec![
            DirectEntry {
                address: Addr(64),
                filtered: None
            };
            k as usize
        ],
        indirect: vec![Addr(0); n as usize],
    };
    v.push(("FHIB", enc(|w| ib.encode(w, &cx.heap)), true));
    v.push(("BTHD", enc(|w| cx.bt2.encode(w)), true));
    let info = cx.bt2.node_info(S).unwrap();
    let rec = |i: u32| v2::Record::AttributeName {
        heap_id: [i as u8; 8],
        message_flags: 0,
        creation_order: i,
        hash: i * 3,
    };
    let leaf = v2::LeafNode {
        records: vec![rec(1), rec(2)],
    };
    let mut leaf_bytes = enc(|w| leaf.encode(w, &cx.bt2, &info));
    leaf_bytes.truncate(6 + 2 * 17 + 4);
    v.push(("BTLF", leaf_bytes, true));
    let internal = v2::InternalNode {
        records: vec![rec(5), rec(6)],
        children: (0..3)
            .map(|i| v2::ChildPointer {
                address: Addr(i),
                records: 2,
                total_records: None,
            })
            .collect(),
    };
    let mut in_bytes = enc(|w| internal.encode(w, &cx.bt2, &info, 1));
    in_bytes.truncate(6 + 2 * 17 + 3 * (8 + info.max_records_size) + 4);
    v.push(("BTIN", in_bytes, true));
    v.push(("FSHD", enc(|w| cx.fs.encode(w)), true));
    let classes = SectionClasses::FractalHeap {
        heap_offset_size: 2,
    };
    let list = SectionList {
        header: Addr(0),
        sets: vec![SectionSet {
            size: 100,
            sections: vec![
                Section {
                    offset: 10,
                    kind: 0,
                    data: None,
                },
                Section {
                    offset: 20,
                    kind: 3,
                    data: Some(h5_format::free_space::IndirectSectionData {
                        block_offset: 0,
                        row: 1,
                        column: 2,
                        entries: 3,
                    }),
                },
            ],
        }],
        legacy_widths: false,
    };
    let fsse = enc(|w| list.encode(w, &cx.fs, classes));
    cx.fs.section_list_used = fsse.len() as u64;
    v.push(("FSSE", fsse, true));
    v.push(("FAHD", enc(|w| cx.fa.encode(w)), true));
    let fadb = fa::FixedArrayDataBlock {
        client: 0,
        header: Addr(0),
        elements: BlockElements::Paged(vec![
            Some(vec![ChunkElement::Chunk(Addr(1)); 4]),
            None,
            Some(vec![ChunkElement::Chunk(Addr(2)); 2]),
        ]),
    };
    v.push(("FADB", enc(|w| fadb.encode(w, &cx.fa)), false));
    v.push(("EAHD", enc(|w| cx.ea.encode(w)), true));
    let g = cx.ea.geometry().unwrap();
    let eaib = ea::IndexBlock {
        header: Addr(0),
        elements: vec![ChunkElement::Chunk(Addr(3)); 2],
        data_blocks: vec![Addr(4); g.index_block_data_blocks],
        secondary_blocks: vec![Addr::UNDEF; g.index_block_secondary_blocks],
    };
    v.push(("EAIB", enc(|w| eaib.encode(w, &cx.ea)), true));
    let easb = ea::SecondaryBlock {
        header: Addr(0),
        block_offset: 6,
        page_bitmap: vec![0x80, 0],
        data_blocks: vec![Addr(1), Addr(2)],
    };
    v.push(("EASB", enc(|w| easb.encode(w, &cx.ea)), true));
    let eadb = ea::DataBlock {
        header: Addr(0),
        block_offset: 0,
        elements: BlockElements::Paged(vec![Some(vec![ChunkElement::Chunk(Addr(9)); 4]), None]),
    };
    v.push(("EADB", enc(|w| eadb.encode(w, &cx.ea)), false));
    let sel = Selection::HyperslabV3Blocks {
        size: EncodeSize::Four,
        rank: 2,
        blocks: vec![Block {
            start: vec![1, 2],
            end: vec![3, 4],
        }],
    };
    v.push(("selection", enc(|w| sel.encode(w)), false));
    let sel2 = Selection::HyperslabV2 {
        dims: vec![RegularDim {
            start: 0,
            stride: 2,
            count: 3,
            block: 1,
        }],
    };
    let r = Reference {
        token: vec![1; 8],
        external_file: Some(b"x.h5".to_vec()),
        target: ReferenceTarget::Region {
            rank: 1,
            selection: sel2.clone(),
        },
    };
    v.push(("reference", enc(|w| r.encode(w)), false));
    let vds = VirtualMappings {
        entries: vec![VirtualMapping {
            source_file: b"a".to_vec(),
            source_dataset: b"/b".to_vec(),
            source_selection: sel2,
            virtual_selection: Selection::PointsV1 {
                rank: 1,
                points: vec![vec![1], vec![2]],
            },
        }],
    };
    v.push(("vds", enc(|w| vds.encode(w)), true));
    v
}

fn exercise(b: &[u8], cx: &Context) {
    let c = || Cursor::new(b, 0x1000, S);
    let _ = v1::Node::parse(&mut c(), None);
    let _ = v1::Node::parse(&mut c(), Some(3));
    let _ = SymbolTableNode::parse(&mut c());
    if let Ok(h) = LocalHeap::parse(&mut c()) {
        let n = LocalHeap::encoded_size(S).min(b.len());
        let _ = h.free_list(&Cursor::new(&b[n..], 0, S));
    }
    let _ = GlobalHeapCollection::parse(&mut c());
    for heap in [
        FractalHeapHeader::parse(&mut c()).ok(),
        Some(cx.heap.clone()),
    ]
    .into_iter()
    .flatten()
    {
        if let Ok(dt) = heap.doubling_table() {
            for r in 0..70 {
                let _ = (
                    dt.row_block_size(r),
                    dt.row_block_offset(r),
                    dt.indirect_entries(r),
                );
            }
            let _ = dt.lookup(b.len() as u64 * 977);
        }
        let _ = DirectBlock::parse(&mut c(), &heap, heap.starting_block_size);
        let _ = IndirectBlock::parse(&mut c(), &heap, heap.current_root_rows as u32);
        if let Ok(layout) = HeapIdLayout::new(&heap, S) {
            let _ = HeapId::parse(&mut c(), &layout);
        }
        let _ = heap.locate_managed(b.len() as u64 * 13, 4, |_, nrows| {
            IndirectBlock::parse(&mut c(), &heap, nrows)
        });
    }
    for h in [v2::Header::parse(&mut c()).ok(), Some(cx.bt2.clone())]
        .into_iter()
        .flatten()
    {
        if let Ok(info) = h.node_info(S) {
            let _ = v2::LeafNode::parse(&mut c(), &h, &info, 2);
            for d in 0..=h.depth as usize {
                let _ = v2::InternalNode::parse(&mut c(), &h, &info, d, 2);
            }
        }
    }
    for h in [FreeSpaceHeader::parse(&mut c()).ok(), Some(cx.fs.clone())]
        .into_iter()
        .flatten()
    {
        for classes in [
            SectionClasses::File,
            SectionClasses::FractalHeap {
                heap_offset_size: 2,
            },
        ] {
            let _ = SectionList::parse(&mut c(), &h, classes);
        }
    }
    for h in [
        fa::FixedArrayHeader::parse(&mut c()).ok(),
        Some(cx.fa.clone()),
    ]
    .into_iter()
    .flatten()
    {
        if let Ok(d) = fa::FixedArrayDataBlock::parse(&mut c(), &h) {
            let _ = d.element(&h, 7);
        }
    }
    for h in [
        ea::ExtensibleArrayHeader::parse(&mut c()).ok(),
        Some(cx.ea.clone()),
    ]
    .into_iter()
    .flatten()
    {
        if let Ok(g) = h.geometry() {
            for i in [0, 5, 100, 1 << 20, u64::MAX] {
                let _ = g.locate(&h, i);
            }
            let _ = ea::IndexBlock::parse(&mut c(), &h);
            for s in 0..g.super_blocks.len().min(8) {
                let _ = ea::SecondaryBlock::parse(&mut c(), &h, s);
            }
            let _ = ea::DataBlock::parse(&mut c(), &h, 8, &|_| true);
            let _ = ea::DataBlock::parse(&mut c(), &h, 1 << 40, &|_| true);
        }
    }
    let _ = Selection::parse(&mut c());
    let _ = Reference::parse(&mut c());
    let _ = VirtualMappings::parse(&mut c());
}

#[test]
fn mutated_structures_never_panic() {
    let mut cx = context();
    let samples = samples(&mut cx);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for (name, good, summed) in &samples {
        // The unmutated sample parses as itself somewhere in `exercise`; just run it.
        exercise(good, &cx);
        for _ in 0..3000 {
            let mut b = good.clone();
            for _ in 0..1 + rng.below(3) {
                match rng.below(6) {
                    0 if !b.is_empty() => {
                        let n = rng.below(b.len());
                        b.truncate(n);
                    }
                    1 => {
                        let i = rng.below(b.len() + 1);
                        b.insert(i, rng.next() as u8);
                    }
                    2 if !b.is_empty() => {
                        let i = rng.below(b.len());
                        b[i] = 0xff;
                    }
                    _ if !b.is_empty() => {
                        let i = rng.below(b.len());
                        b[i] = rng.next() as u8;
                    }
                    _ => {}
                }
            }
            if *summed && b.len() >= 4 {
                let n = b.len() - 4;
                let sum = checksum(&b[..n]);
                b[n..].copy_from_slice(&sum.to_le_bytes());
            }
            exercise(&b, &cx);
        }
        let _ = name;
    }
    // Pure noise, of every small length.
    for len in 0..200 {
        let b: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        exercise(&b, &cx);
    }
}
