use super::*;

fn header() -> FractalHeapHeader {
    // What a dense link storage heap of the reference library looks like.
    FractalHeapHeader {
        heap_id_length: 7,
        flags: FLAG_CHECKSUM_DIRECT_BLOCKS,
        max_managed_object_size: 4096,
        next_huge_id: 0,
        huge_btree: Addr::UNDEF,
        managed_free_space: 400,
        free_space_manager: Addr(0x900),
        managed_space: 512,
        allocated_managed_space: 512,
        direct_block_iterator_offset: 512,
        managed_objects: 3,
        huge_objects_size: 0,
        huge_objects: 0,
        tiny_objects_size: 0,
        tiny_objects: 0,
        table_width: 4,
        starting_block_size: 512,
        max_direct_block_size: 65536,
        max_heap_size: 32,
        starting_root_rows: 0,
        root_block: Addr(0x600),
        current_root_rows: 0,
        filters: None,
    }
}

#[test]
fn header_from_bytes() {
    let mut b = b"FRHP\x00".to_vec();
    b.extend_from_slice(&7u16.to_le_bytes());
    b.extend_from_slice(&0u16.to_le_bytes());
    b.push(2);
    b.extend_from_slice(&4096u32.to_le_bytes());
    b.extend_from_slice(&0u64.to_le_bytes()); // next huge id
    b.extend_from_slice(&[0xff; 8]); // huge btree
    b.extend_from_slice(&400u64.to_le_bytes());
    b.extend_from_slice(&0x900u64.to_le_bytes());
    for v in [512u64, 512, 512, 3, 0, 0, 0, 0] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&4u16.to_le_bytes());
    b.extend_from_slice(&512u64.to_le_bytes());
    b.extend_from_slice(&65536u64.to_le_bytes());
    b.extend_from_slice(&32u16.to_le_bytes());
    b.extend_from_slice(&0u16.to_le_bytes());
    b.extend_from_slice(&0x600u64.to_le_bytes());
    b.extend_from_slice(&0u16.to_le_bytes());
    let sum = crate::checksum::checksum(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    let h = FractalHeapHeader::parse(&mut Cursor::new(&b, 0x200, Sizes::DEFAULT)).unwrap();
    assert_eq!(h, header());
    let mut w = Writer::new(Sizes::DEFAULT);
    h.encode(&mut w);
    assert_eq!(w.as_slice(), &b[..]);
    b[10] ^= 0x40;
    let e = FractalHeapHeader::parse(&mut Cursor::new(&b, 0x200, Sizes::DEFAULT)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ChecksumMismatch);
    assert_eq!(e.structure(), "fractal heap header");
}

#[test]
fn filtered_header_round_trips() {
    let mut h = header();
    h.filters = Some(HeapFilters {
        root_direct_block_size: 300,
        filter_mask: 0,
        pipeline: vec![2, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 6, 0, 0, 0],
    });
    let mut w = Writer::new(Sizes::DEFAULT);
    h.encode(&mut w);
    let back = FractalHeapHeader::parse(&mut Cursor::new(w.as_slice(), 0, Sizes::DEFAULT)).unwrap();
    assert_eq!(back, h);
}

#[test]
fn doubling_table_arithmetic() {
    let dt = header().doubling_table().unwrap();
    assert_eq!(dt.start_bits, 9);
    assert_eq!(dt.first_row_bits, 11);
    assert_eq!(dt.max_root_rows, 22);
    assert_eq!(dt.max_direct_rows, 9);
    assert_eq!(dt.heap_off_size, 4);
    assert_eq!(dt.heap_len_size, 2);
    let sizes: Vec<u64> = (0..5).map(|r| dt.row_block_size(r).unwrap()).collect();
    assert_eq!(sizes, [512, 512, 1024, 2048, 4096]);
    let offs: Vec<u64> = (0..5).map(|r| dt.row_block_offset(r).unwrap()).collect();
    assert_eq!(offs, [0, 2048, 4096, 8192, 16384]);
    assert_eq!(dt.lookup(0), Some((0, 0)));
    assert_eq!(dt.lookup(600), Some((0, 1)));
    assert_eq!(dt.lookup(2048), Some((1, 0)));
    assert_eq!(dt.lookup(2600), Some((1, 1)));
    assert_eq!(dt.lookup(4096 + 1500), Some((2, 1)));
    assert_eq!(dt.indirect_entries(10), (36, 4));
    assert_eq!(dt.indirect_entries(3), (12, 0));
    assert_eq!(dt.rows_for_size(1 << 17), 7);
    assert_eq!(dt.row_block_size(200), None);

    let mut bad = header();
    bad.table_width = 3;
    assert!(bad.doubling_table().is_err());
    bad.table_width = 4;
    bad.max_heap_size = 5;
    assert!(bad.doubling_table().is_err());
    bad.max_heap_size = 32;
    bad.max_direct_block_size = 256;
    assert!(bad.doubling_table().is_err());
}

#[test]
fn direct_block_checksum() {
    let mut h = header();
    h.starting_block_size = 64;
    h.max_direct_block_size = 1024;
    h.max_managed_object_size = 512;
    let dt = h.doubling_table().unwrap();
    let overhead = dt.direct_block_overhead(Sizes::DEFAULT, true);
    assert_eq!(overhead, 5 + 8 + 4 + 4);
    let mut data = vec![0u8; 64 - overhead];
    data[..5].copy_from_slice(b"hello");
    let block = DirectBlock {
        heap_header: Addr(0x200),
        block_offset: 0,
        checksummed: true,
        data,
    };
    let mut w = Writer::new(Sizes::DEFAULT);
    block.encode(&mut w, &h);
    let mut b = w.into_vec();
    assert_eq!(b.len(), 64);
    assert_eq!(&b[..5], b"FHDB\x00");
    // The checksum covers the whole block with its own field zeroed.
    let mut z = b.clone();
    z[17..21].fill(0);
    assert_eq!(&b[17..21], &crate::checksum::checksum(&z).to_le_bytes());
    let back = DirectBlock::parse(&mut Cursor::new(&b, 0x600, Sizes::DEFAULT), &h, 64).unwrap();
    assert_eq!(back, block);
    b[40] = 1;
    let e = DirectBlock::parse(&mut Cursor::new(&b, 0x600, Sizes::DEFAULT), &h, 64).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ChecksumMismatch);
    assert_eq!(e.offset(), Some(0x600 + 17));
    // Without the flag there is no checksum.
    h.flags = 0;
    let plain = DirectBlock {
        checksummed: false,
        data: vec![7; 64 - 17],
        ..block
    };
    let mut w = Writer::new(Sizes::DEFAULT);
    plain.encode(&mut w, &h);
    let back =
        DirectBlock::parse(&mut Cursor::new(w.as_slice(), 0, Sizes::DEFAULT), &h, 64).unwrap();
    assert_eq!(back, plain);
}

#[test]
fn indirect_block_round_trip() {
    let mut h = header();
    h.current_root_rows = 10;
    let ib = IndirectBlock {
        heap_header: Addr(0x200),
        block_offset: 0,
        nrows: 10,
        direct: (0..36)
            .map(|i| DirectEntry {
                address: if i < 5 {
                    Addr(0x1000 + i * 512)
                } else {
                    Addr::UNDEF
                },
                filtered: None,
            })
            .collect(),
        indirect: vec![Addr::UNDEF; 4],
    };
    let mut w = Writer::new(Sizes::DEFAULT);
    ib.encode(&mut w, &h);
    assert_eq!(w.len(), 5 + 8 + 4 + 40 * 8 + 4);
    assert_eq!(
        IndirectBlock::encoded_size(&h, 10, Sizes::DEFAULT).unwrap(),
        w.len() as u64
    );
    let back =
        IndirectBlock::parse(&mut Cursor::new(w.as_slice(), 0, Sizes::DEFAULT), &h, 10).unwrap();
    assert_eq!(back, ib);

    h.filters = Some(HeapFilters {
        root_direct_block_size: 0,
        filter_mask: 0,
        pipeline: vec![0; 8],
    });
    let fb = IndirectBlock {
        nrows: 1,
        direct: (0..4)
            .map(|i| DirectEntry {
                address: Addr(0x1000 + i * 512),
                filtered: Some(FilteredBlock {
                    size: 100 + i,
                    filter_mask: 0,
                }),
            })
            .collect(),
        indirect: vec![],
        ..ib
    };
    let mut w = Writer::new(Sizes::DEFAULT);
    fb.encode(&mut w, &h);
    assert_eq!(w.len(), 5 + 8 + 4 + 4 * 20 + 4);
    assert_eq!(
        IndirectBlock::encoded_size(&h, 1, Sizes::DEFAULT).unwrap(),
        w.len() as u64
    );
    let back =
        IndirectBlock::parse(&mut Cursor::new(w.as_slice(), 0, Sizes::DEFAULT), &h, 1).unwrap();
    assert_eq!(back, fb);
    let e = IndirectBlock::parse(&mut Cursor::new(w.as_slice(), 0, Sizes::DEFAULT), &h, 60)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
}

#[test]
fn heap_ids() {
    let s = Sizes::DEFAULT;
    let h = header();
    let layout = HeapIdLayout::new(&h, s).unwrap();
    assert!(!layout.huge_direct);
    assert_eq!(layout.huge_id_size, 6);
    // Managed: offset 0x1234 (4 bytes), length 0x20 (2 bytes).
    let b = [0x00, 0x34, 0x12, 0, 0, 0x20, 0];
    let id = HeapId::parse(&mut Cursor::new(&b, 0, s), &layout).unwrap();
    assert_eq!(
        id,
        HeapId::Managed {
            offset: 0x1234,
            length: 0x20
        }
    );
    let mut w = Writer::new(s);
    id.encode(&mut w, &layout);
    assert_eq!(w.as_slice(), &b);
    // Tiny, normal form: length 3 stored as 2 in the low bits.
    let b = [0x22, b'a', b'b', b'c', 0, 0, 0];
    let id = HeapId::parse(&mut Cursor::new(&b, 0, s), &layout).unwrap();
    assert_eq!(
        id,
        HeapId::Tiny {
            data: b"abc".to_vec()
        }
    );
    let mut w = Writer::new(s);
    id.encode(&mut w, &layout);
    assert_eq!(w.as_slice(), &b);
    // Huge through the B-tree.
    let b = [0x10, 5, 0, 0, 0, 0, 0];
    assert_eq!(
        HeapId::parse(&mut Cursor::new(&b, 0, s), &layout).unwrap(),
        HeapId::HugeIndirect { id: 5 }
    );
    // Version bits and type 3 are refused.
    assert!(HeapId::parse(&mut Cursor::new(&[0x40, 0, 0, 0, 0, 0, 0], 0, s), &layout).is_err());
    assert!(HeapId::parse(&mut Cursor::new(&[0x30, 0, 0, 0, 0, 0, 0], 0, s), &layout).is_err());
    // A tiny length past the ID is an error, not a panic.
    assert!(HeapId::parse(&mut Cursor::new(&[0x2f, 0, 0, 0, 0, 0, 0], 0, s), &layout).is_err());

    // Longer IDs: huge objects direct, tiny objects extended.
    let mut h2 = header();
    h2.heap_id_length = 20;
    let layout = HeapIdLayout::new(&h2, s).unwrap();
    assert!(layout.huge_direct && layout.tiny_extended);
    let ids = [
        HeapId::HugeDirect {
            address: Addr(0x5000),
            length: 70000,
        },
        HeapId::Tiny { data: vec![9; 18] },
        HeapId::Managed {
            offset: 4096,
            length: 100,
        },
    ];
    for id in ids {
        let mut w = Writer::new(s);
        id.encode(&mut w, &layout);
        assert_eq!(w.len(), 20);
        assert_eq!(
            HeapId::parse(&mut Cursor::new(w.as_slice(), 0, s), &layout).unwrap(),
            id
        );
    }
    let mut w = Writer::new(s);
    HeapId::Tiny { data: vec![9; 18] }.encode(&mut w, &layout);
    assert_eq!(&w.as_slice()[..2], &[0x20, 17]);
    // 18-byte IDs: 17 bytes of room still use the short form, capped at 16 bytes.
    h2.heap_id_length = 18;
    assert!(!HeapIdLayout::new(&h2, s).unwrap().tiny_extended);
    // Filtered heap with room: direct filtered huge IDs.
    h2.heap_id_length = 29;
    h2.filters = Some(HeapFilters {
        root_direct_block_size: 0,
        filter_mask: 0,
        pipeline: vec![0; 8],
    });
    let layout = HeapIdLayout::new(&h2, s).unwrap();
    let id = HeapId::HugeDirectFiltered {
        address: Addr(0x10),
        length: 5,
        filter_mask: 1,
        memory_size: 50,
    };
    let mut w = Writer::new(s);
    id.encode(&mut w, &layout);
    assert_eq!(
        HeapId::parse(&mut Cursor::new(w.as_slice(), 0, s), &layout).unwrap(),
        id
    );
}

#[test]
fn locate_managed_objects() {
    // Root direct block.
    let h = header();
    let loc = h.locate_managed(100, 20, |_, _| unreachable!()).unwrap();
    assert_eq!(loc.block_address, Addr(0x600));
    assert_eq!(loc.offset_in_block, 100);
    assert!(h.locate_managed(500, 20, |_, _| unreachable!()).is_err());

    // Width 2, blocks 512/512/1024 direct, row 3 (2048 bytes) indirect with 2 rows.
    let mut h = header();
    h.table_width = 2;
    h.max_direct_block_size = 1024;
    h.max_managed_object_size = 1000;
    h.current_root_rows = 4;
    let dt = h.doubling_table().unwrap();
    assert_eq!(dt.max_direct_rows, 3);
    assert_eq!(dt.indirect_entries(4), (6, 2));
    assert_eq!(dt.rows_for_size(2048), 2);
    let root = IndirectBlock {
        heap_header: Addr(0x200),
        block_offset: 0,
        nrows: 4,
        direct: (0..6)
            .map(|i| DirectEntry {
                address: Addr(0x10000 + 0x1000 * i),
                filtered: None,
            })
            .collect(),
        indirect: vec![Addr(0x50000), Addr::UNDEF],
    };
    let child = IndirectBlock {
        heap_header: Addr(0x200),
        block_offset: 4096,
        nrows: 2,
        direct: (0..4)
            .map(|i| DirectEntry {
                address: Addr(0x60000 + 0x1000 * i),
                filtered: None,
            })
            .collect(),
        indirect: vec![],
    };
    let fetched = std::cell::RefCell::new(Vec::new());
    let mut fetch = |a: Addr, nrows: u32| {
        fetched.borrow_mut().push((a, nrows));
        Ok(if a == Addr(0x600) {
            root.clone()
        } else {
            child.clone()
        })
    };
    // Row 1 column 1 of the root: offset 1536.
    let loc = h.locate_managed(1536 + 40, 8, &mut fetch).unwrap();
    assert_eq!(loc.block_address, Addr(0x13000));
    assert_eq!(loc.block_offset, 1536);
    assert_eq!(loc.offset_in_block, 40);
    // Through the child indirect block: 4096 + 1024 + 512 + 10.
    let loc = h.locate_managed(5642, 8, &mut fetch).unwrap();
    assert_eq!(loc.block_address, Addr(0x63000));
    assert_eq!(loc.block_offset, 5632);
    assert_eq!(loc.offset_in_block, 10);
    assert_eq!(loc.block_size, 512);
    assert_eq!(fetched.borrow().last(), Some(&(Addr(0x50000), 2)));
    // Unallocated second indirect block.
    assert!(h.locate_managed(6144 + 10, 8, &mut fetch).is_err());
    // Crossing a block end.
    assert!(h.locate_managed(1536 + 500, 100, &mut fetch).is_err());
}
