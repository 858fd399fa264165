use super::*;

fn header() -> ExtensibleArrayHeader {
    // The reference library's defaults for a chunk index with one unlimited dimension,
    // except smaller pages (32 elements) to exercise paging.
    ExtensibleArrayHeader {
        client: 0,
        element_size: 8,
        max_nelmts_bits: 32,
        index_block_elements: 4,
        data_block_min_elements: 16,
        secondary_block_min_data_pointers: 4,
        max_data_block_page_bits: 5,
        secondary_blocks: 1,
        secondary_blocks_size: 100,
        data_blocks: 3,
        data_blocks_size: 600,
        max_index_set: 90,
        elements_realized: 96,
        index_block: Addr(0x900),
    }
}

#[test]
fn header_from_bytes() {
    let mut b = b"EAHD\x00\x00\x08\x20\x04\x10\x04\x05".to_vec();
    for v in [1u64, 100, 3, 600, 90, 96, 0x900] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    let sum = crate::checksum::checksum(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    assert_eq!(b.len(), ExtensibleArrayHeader::encoded_size(Sizes::DEFAULT));
    let h = ExtensibleArrayHeader::parse(&mut Cursor::new(&b, 0x800, Sizes::DEFAULT)).unwrap();
    assert_eq!(h, header());
    let mut w = Writer::new(Sizes::DEFAULT);
    h.encode(&mut w);
    assert_eq!(w.as_slice(), &b[..]);
    // Parameters that would break the arithmetic are refused at parse time.
    b[9] = 3; // data block min elements not a power of two
    let n = b.len() - 4;
    let sum = crate::checksum::checksum(&b[..n]);
    b[n..].copy_from_slice(&sum.to_le_bytes());
    let e = ExtensibleArrayHeader::parse(&mut Cursor::new(&b, 0x800, Sizes::DEFAULT)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidValue);
    assert_eq!(e.offset(), Some(0x800));
}

#[test]
fn super_block_arithmetic() {
    let h = header();
    let g = h.geometry().unwrap();
    assert_eq!(g.super_blocks.len(), 29);
    assert_eq!(g.offset_size, 4);
    assert_eq!(g.index_block_super_blocks, 4);
    assert_eq!(g.index_block_data_blocks, 6);
    assert_eq!(g.index_block_secondary_blocks, 25);
    let s: Vec<(u64, u64, u64, u64)> = g.super_blocks[..6]
        .iter()
        .map(|s| {
            (
                s.data_blocks,
                s.data_block_elements,
                s.start_index,
                s.start_data_block,
            )
        })
        .collect();
    assert_eq!(
        s,
        [
            (1, 16, 0, 0),
            (1, 32, 16, 1),
            (2, 32, 48, 2),
            (2, 64, 112, 4),
            (4, 64, 240, 6),
            (4, 128, 496, 10)
        ]
    );
    assert_eq!(g.index_data_block_elements(3), Some(32));
    assert_eq!(g.index_data_block_elements(5), Some(64));
    assert_eq!(g.pages_per_data_block(2), 0);
    assert_eq!(g.pages_per_data_block(3), 2);
    assert_eq!(g.locate(&h, 3), Some(ElementLocation::IndexBlock(3)));
    assert_eq!(
        g.locate(&h, 4 + 20),
        Some(ElementLocation::DataBlock {
            data_block: 1,
            data_block_elements: 32,
            element: 4
        })
    );
    assert_eq!(
        g.locate(&h, 4 + 48 + 33),
        Some(ElementLocation::DataBlock {
            data_block: 3,
            data_block_elements: 32,
            element: 1
        })
    );
    assert_eq!(
        g.locate(&h, 4 + 240 + 64 * 2 + 5),
        Some(ElementLocation::SecondaryBlock {
            secondary_block: 0,
            super_block: 4,
            data_block: 2,
            data_block_elements: 64,
            element: 5
        })
    );
}

#[test]
fn index_block_round_trip() {
    let h = header();
    let ib = IndexBlock {
        header: Addr(0x800),
        elements: (0..4)
            .map(|i| ChunkElement::Chunk(Addr(0x1000 + i)))
            .collect(),
        data_blocks: vec![
            Addr(0x2000),
            Addr(0x3000),
            Addr::UNDEF,
            Addr::UNDEF,
            Addr::UNDEF,
            Addr::UNDEF,
        ],
        secondary_blocks: vec![Addr::UNDEF; 25],
    };
    let mut w = Writer::new(Sizes::DEFAULT);
    ib.encode(&mut w, &h);
    assert_eq!(w.len(), 6 + 8 + 32 + 48 + 200 + 4);
    let back = IndexBlock::parse(&mut Cursor::new(w.as_slice(), 0, Sizes::DEFAULT), &h).unwrap();
    assert_eq!(back, ib);
    let mut bytes = w.into_vec();
    bytes[5] = 1;
    let e = IndexBlock::parse(&mut Cursor::new(&bytes, 0, Sizes::DEFAULT), &h).unwrap_err();
    assert_eq!(e.structure(), "extensible array index block");
}

#[test]
fn secondary_and_paged_data_blocks() {
    let h = header();
    let g = h.geometry().unwrap();
    // Super block 4: 4 data blocks of 64 elements, 2 pages each: one byte of bitmask per
    // data block (the reference library's `dblk_page_init_size`).
    let sb = SecondaryBlock {
        header: Addr(0x800),
        block_offset: 240,
        page_bitmap: vec![0b1100_0000, 0, 0, 0],
        data_blocks: vec![Addr(0x5000), Addr::UNDEF, Addr::UNDEF, Addr::UNDEF],
    };
    let mut w = Writer::new(Sizes::DEFAULT);
    sb.encode(&mut w, &h);
    assert_eq!(w.len(), 6 + 8 + 4 + 4 + 32 + 4);
    let back =
        SecondaryBlock::parse(&mut Cursor::new(w.as_slice(), 0, Sizes::DEFAULT), &h, 4).unwrap();
    assert_eq!(back, sb);
    assert!(back.page_initialized(0, 1, 2));
    assert!(!back.page_initialized(1, 0, 2));

    let db = DataBlock {
        header: Addr(0x800),
        block_offset: 240,
        elements: BlockElements::Paged(vec![
            Some(
                (0..32)
                    .map(|i| ChunkElement::Chunk(Addr(0x10000 + i)))
                    .collect(),
            ),
            None,
        ]),
    };
    let mut w = Writer::new(Sizes::DEFAULT);
    db.encode(&mut w, &h);
    assert_eq!(w.len(), 6 + 8 + 4 + 4 + 2 * (32 * 8 + 4));
    let back = DataBlock::parse(
        &mut Cursor::new(w.as_slice(), 0, Sizes::DEFAULT),
        &h,
        64,
        &|p| sb.page_initialized(0, p, g.pages_per_data_block(4)) && p == 0,
    )
    .unwrap();
    assert_eq!(back, db);

    // An unpaged data block of the index block.
    let small = DataBlock {
        header: Addr(0x800),
        block_offset: 0,
        elements: BlockElements::Inline((0..16).map(|i| ChunkElement::Chunk(Addr(i))).collect()),
    };
    let mut w = Writer::new(Sizes::DEFAULT);
    small.encode(&mut w, &h);
    let back = DataBlock::parse(
        &mut Cursor::new(w.as_slice(), 0, Sizes::DEFAULT),
        &h,
        16,
        &|_| true,
    )
    .unwrap();
    assert_eq!(back, small);
    // A data block with more elements than the data holds is an error.
    assert!(DataBlock::parse(
        &mut Cursor::new(w.as_slice(), 0, Sizes::DEFAULT),
        &h,
        1 << 30,
        &|_| true
    )
    .is_err());
}
