//! Byte-literal tests of the small messages and a round trip of every message variant.

use super::attribute::MaybeShared;
use super::external_files::ExternalFileSlot;
use super::filter_pipeline::{Filter, FilterId};
use super::layout::{ChunkIndex, LayoutClass};
use super::shared::SharedLocation;
use super::*;
use crate::driver_info::DriverData;
use crate::object_header::{Chunk, ObjectHeader, Prefix, RawMessage};
use crate::superblock::SuperblockExtension;
use crate::Addr;
use h5_types::{ByteOrder, IntegerType, Sign};

fn parse(kind: MessageType, flags: u8, b: &[u8], sizes: Sizes) -> Result<Message> {
    Message::parse_bytes(kind, MessageFlags(flags), b, 0x200, sizes)
}

fn check(kind: MessageType, b: &[u8], want: Message) {
    let m = parse(kind, 0, b, Sizes::DEFAULT).unwrap();
    assert_eq!(m, want);
    assert_eq!(m.to_bytes(Sizes::DEFAULT), b, "{kind}");
}

fn le64(v: u64) -> [u8; 8] {
    v.to_le_bytes()
}

#[test]
fn small_messages_from_bytes() {
    let mut b = vec![0u8, 3];
    b.extend_from_slice(&le64(9));
    b.extend_from_slice(&le64(0x1000));
    b.extend_from_slice(&le64(0x2000));
    b.extend_from_slice(&le64(0x3000));
    check(
        MessageType::LINK_INFO,
        &b,
        Message::LinkInfo(link_info::LinkInfo {
            max_creation_index: Some(9),
            fractal_heap_address: Addr(0x1000),
            name_btree_address: Addr(0x2000),
            creation_order_btree_address: Some(Addr(0x3000)),
        }),
    );
    let mut b = vec![0u8, 0];
    b.extend_from_slice(&le64(0x1000));
    b.extend_from_slice(&[0xff; 8]);
    check(
        MessageType::ATTRIBUTE_INFO,
        &b,
        Message::AttributeInfo(attribute_info::AttributeInfo {
            max_creation_index: None,
            fractal_heap_address: Addr(0x1000),
            name_btree_address: Addr::UNDEF,
            creation_order_btree_address: None,
        }),
    );
    check(
        MessageType::GROUP_INFO,
        &[0, 3, 8, 0, 6, 0, 4, 0, 8, 0],
        Message::GroupInfo(group_info::GroupInfo {
            link_phase_change: Some((8, 6)),
            estimated_entry_info: Some((4, 8)),
        }),
    );
    check(
        MessageType::BTREE_K,
        &[0, 32, 0, 16, 0, 4, 0],
        Message::BtreeK(btree_k::BtreeK {
            indexed_storage_internal_k: 32,
            group_internal_k: 16,
            group_leaf_k: 4,
        }),
    );
    check(
        MessageType::REFCOUNT,
        &[0, 2, 0, 0, 0],
        Message::RefCount(refcount::RefCount { count: 2 }),
    );
    check(
        MessageType::MTIME,
        &[1, 0, 0, 0, 0x00, 0xf1, 0x53, 0x65],
        Message::Mtime(mtime::Mtime {
            seconds: 1_700_000_000,
        }),
    );
    let mut b = b"20240229235959".to_vec();
    b.extend_from_slice(&[0, 0]);
    let m = parse(MessageType::MTIME_OLD, 0, &b, Sizes::DEFAULT).unwrap();
    let Message::MtimeOld(t) = &m else {
        panic!("{m:?}")
    };
    assert_eq!(t.fields(), (2024, 2, 29, 23, 59, 59));
    assert_eq!(m.to_bytes(Sizes::DEFAULT), b);
    check(
        MessageType::COMMENT,
        b"hello\0",
        Message::Comment(comment::Comment {
            comment: b"hello".to_vec(),
        }),
    );
    let mut b = le64(0x88).to_vec();
    b.extend_from_slice(&le64(0x2a8));
    check(
        MessageType::SYMBOL_TABLE,
        &b,
        Message::SymbolTable(symbol_table::SymbolTableMessage {
            btree_address: Addr(0x88),
            heap_address: Addr(0x2a8),
        }),
    );
    let mut b = le64(0x900).to_vec();
    b.extend_from_slice(&le64(0x100));
    check(
        MessageType::CONTINUATION,
        &b,
        Message::Continuation(continuation::Continuation {
            offset: Addr(0x900),
            length: 0x100,
        }),
    );
    let mut b = vec![0u8];
    b.extend_from_slice(&le64(0x500));
    b.push(3);
    check(
        MessageType::SHARED_TABLE,
        &b,
        Message::SharedTable(shared_table::SharedMessageTable {
            table_address: Addr(0x500),
            num_indices: 3,
        }),
    );
    check(
        MessageType::BOGUS,
        &[0xef, 0xbe, 0xad, 0xde],
        Message::Bogus(bogus::Bogus),
    );
    assert!(parse(MessageType::BOGUS, 0, &[1, 2, 3, 4], Sizes::DEFAULT).is_err());
    let mut b = vec![0u8];
    b.extend_from_slice(b"NCSAfami");
    b.extend_from_slice(&[8, 0]);
    b.extend_from_slice(&le64(1 << 20));
    check(
        MessageType::DRIVER_INFO,
        &b,
        Message::DriverInfo(driver_info::DriverInfoMessage {
            driver_id: *b"NCSAfami",
            data: DriverData::Family {
                member_size: 1 << 20,
            },
        }),
    );
    // External files: 2 allocated, 1 used, heap at 0x40; name offset 8, offset 0, size 400.
    let mut b = vec![1u8, 0, 0, 0, 2, 0, 1, 0];
    b.extend_from_slice(&le64(0x40));
    for v in [8u64, 0, 400] {
        b.extend_from_slice(&le64(v));
    }
    check(
        MessageType::EXTERNAL_FILES,
        &b,
        Message::ExternalFiles(external_files::ExternalFiles {
            allocated_slots: 2,
            heap_address: Addr(0x40),
            slots: vec![ExternalFileSlot {
                name_offset: 8,
                file_offset: 0,
                size: 400,
            }],
        }),
    );
    b[6] = 3; // more used than allocated
    assert!(parse(MessageType::EXTERNAL_FILES, 0, &b, Sizes::DEFAULT).is_err());
}

#[test]
fn shared_messages_from_bytes() {
    // Version 1: version, type, 6 reserved, a reserved length word, the address.
    let mut b = vec![1u8, 0, 0, 0, 0, 0, 0, 0];
    b.extend_from_slice(&le64(0));
    b.extend_from_slice(&le64(0x720));
    let committed = |v, a| Message::Shared {
        kind: MessageType::DATATYPE,
        shared: shared::SharedMessage {
            version: v,
            location: SharedLocation::Committed(Addr(a)),
        },
    };
    let m = parse(
        MessageType::DATATYPE,
        MessageFlags::SHARED,
        &b,
        Sizes::DEFAULT,
    )
    .unwrap();
    assert_eq!(m, committed(1, 0x720));
    assert_eq!(m.to_bytes(Sizes::DEFAULT), b);
    let mut b = vec![2u8, 0];
    b.extend_from_slice(&le64(0x720));
    let m = parse(
        MessageType::DATATYPE,
        MessageFlags::SHARED,
        &b,
        Sizes::DEFAULT,
    )
    .unwrap();
    assert_eq!(m, committed(2, 0x720));
    assert_eq!(m.to_bytes(Sizes::DEFAULT), b);
    // Version 3 in the shared message heap: an 8-byte heap ID.
    let b = [3u8, 1, 1, 2, 3, 4, 5, 6, 7, 8];
    let m = parse(
        MessageType::DATASPACE,
        MessageFlags::SHARED,
        &b,
        Sizes::DEFAULT,
    )
    .unwrap();
    assert_eq!(
        m,
        Message::Shared {
            kind: MessageType::DATASPACE,
            shared: shared::SharedMessage {
                version: 3,
                location: SharedLocation::Heap([1, 2, 3, 4, 5, 6, 7, 8]),
            },
        }
    );
    assert_eq!(m.to_bytes(Sizes::DEFAULT), b);
    assert!(parse(
        MessageType::DATASPACE,
        MessageFlags::SHARED,
        &[3, 7, 0, 0],
        Sizes::DEFAULT
    )
    .is_err());
    assert!(parse(
        MessageType::DATASPACE,
        MessageFlags::SHARED,
        &[4, 2],
        Sizes::DEFAULT
    )
    .is_err());
}

fn every_message() -> Vec<Message> {
    let int: h5_types::Datatype =
        IntegerType::new(4, ByteOrder::LittleEndian, Sign::TwosComplement).into();
    vec![
        Message::Nil(24),
        Message::Dataspace(dataspace::Dataspace::simple(
            &[4, 5],
            Some(&[dataspace::UNLIMITED, 5]),
        )),
        Message::LinkInfo(link_info::LinkInfo {
            max_creation_index: None,
            fractal_heap_address: Addr::UNDEF,
            name_btree_address: Addr::UNDEF,
            creation_order_btree_address: None,
        }),
        Message::Datatype(datatype::DatatypeMessage::new(int.clone())),
        Message::FillValueOld(fill_value::FillValueOld { value: vec![0; 4] }),
        Message::FillValue(fill_value::FillValue {
            version: 2,
            alloc_time: 2,
            fill_time: 2,
            defined: true,
            value: Some(vec![1, 0, 0, 0]),
        }),
        Message::Link(link::Link {
            creation_order: None,
            charset: None,
            name: b"x".to_vec(),
            target: link::LinkTarget::Hard(Addr(0x30)),
        }),
        Message::ExternalFiles(external_files::ExternalFiles {
            allocated_slots: 1,
            heap_address: Addr(0x10),
            slots: vec![ExternalFileSlot {
                name_offset: 0,
                file_offset: 0,
                size: u64::MAX,
            }],
        }),
        Message::Layout(layout::Layout {
            version: 4,
            class: LayoutClass::Chunked {
                flags: 0,
                dims: vec![4, 4],
                index: Some(ChunkIndex::FixedArray { page_bits: 10 }),
                address: Addr(0x77),
                dim_size_bytes: 1,
            },
        }),
        Message::Bogus(bogus::Bogus),
        Message::GroupInfo(group_info::GroupInfo::default()),
        Message::FilterPipeline(filter_pipeline::FilterPipeline {
            version: 2,
            filters: vec![Filter {
                id: FilterId::DEFLATE,
                flags: 0,
                name: None,
                client_data: vec![6],
            }],
        }),
        Message::Attribute(attribute::Attribute {
            version: 1,
            charset: 0,
            name: b"attr".to_vec(),
            datatype: MaybeShared::Inline(datatype::DatatypeMessage::new(int)),
            dataspace: MaybeShared::Inline(dataspace::Dataspace::scalar()),
            data: vec![1, 2, 3, 4],
        }),
        Message::Comment(comment::Comment {
            comment: b"c".to_vec(),
        }),
        Message::MtimeOld(mtime::MtimeOld {
            digits: *b"19991231000000",
        }),
        Message::SharedTable(shared_table::SharedMessageTable {
            table_address: Addr(0x99),
            num_indices: 1,
        }),
        Message::Continuation(continuation::Continuation {
            offset: Addr(0x1000),
            length: 64,
        }),
        Message::SymbolTable(symbol_table::SymbolTableMessage {
            btree_address: Addr(1),
            heap_address: Addr(2),
        }),
        Message::Mtime(mtime::Mtime { seconds: 5 }),
        Message::BtreeK(btree_k::BtreeK {
            indexed_storage_internal_k: 32,
            group_internal_k: 16,
            group_leaf_k: 4,
        }),
        Message::DriverInfo(driver_info::DriverInfoMessage {
            driver_id: *b"NCSAmult",
            data: DriverData::Multi {
                map: [1, 1, 3, 1, 1, 6],
                members: vec![
                    crate::driver_info::MultiMember {
                        address: 0,
                        end_of_address: 100,
                        name: b"%s-m.h5".to_vec(),
                    },
                    crate::driver_info::MultiMember {
                        address: 1 << 40,
                        end_of_address: (1 << 40) + 9,
                        name: b"%s-raw-data.h5".to_vec(),
                    },
                    crate::driver_info::MultiMember {
                        address: 1 << 50,
                        end_of_address: (1 << 50) + 9,
                        name: b"o".to_vec(),
                    },
                ],
            },
        }),
        Message::AttributeInfo(attribute_info::AttributeInfo {
            max_creation_index: Some(3),
            fractal_heap_address: Addr(5),
            name_btree_address: Addr(6),
            creation_order_btree_address: Some(Addr(7)),
        }),
        Message::RefCount(refcount::RefCount { count: 3 }),
        Message::FileSpaceInfo(fs_info::FileSpaceInfo::V1 {
            strategy: 1,
            persist: false,
            threshold: 1,
            page_size: 4096,
            page_end_meta_threshold: 0,
            eoa_pre_fsm_alloc: Addr::UNDEF,
            managers: vec![],
        }),
        Message::Shared {
            kind: MessageType::FILL_VALUE,
            shared: shared::SharedMessage {
                version: 3,
                location: SharedLocation::Committed(Addr(0x44)),
            },
        },
        Message::Unknown {
            kind: MessageType(0x42),
            raw: vec![9, 9],
        },
    ]
}

#[test]
fn every_message_round_trips_with_every_size() {
    let all = every_message();
    // One variant per message type of the specification (0x00 to 0x17) plus shared/unknown.
    let mut kinds: Vec<u16> = all.iter().map(|m| m.kind().0).collect();
    kinds.sort();
    kinds.dedup();
    assert!((0..=0x17).all(|k| kinds.contains(&k)), "{kinds:?}");
    for offset in [2u8, 4, 8] {
        for length in [2u8, 4, 8] {
            let sizes = Sizes { offset, length };
            for m in &all {
                let b = m.to_bytes(sizes);
                let flags = if m.is_shared() {
                    MessageFlags::SHARED
                } else {
                    0
                };
                let got = parse(m.kind(), flags, &b, sizes)
                    .unwrap_or_else(|e| panic!("{:?} with {sizes:?}: {e}", m.kind()));
                // Unlimited sizes become all-ones of the length's width and read back as such.
                assert_eq!(&got, m, "{sizes:?}");
                // Hostile truncation: errors only.
                for n in 0..b.len() {
                    let _ = parse(m.kind(), flags, &b[..n], sizes);
                }
            }
        }
    }
}

#[test]
fn superblock_extension_from_header() {
    let sizes = Sizes::DEFAULT;
    let msgs = [
        Message::BtreeK(btree_k::BtreeK {
            indexed_storage_internal_k: 64,
            group_internal_k: 16,
            group_leaf_k: 4,
        }),
        Message::SharedTable(shared_table::SharedMessageTable {
            table_address: Addr(0x99),
            num_indices: 2,
        }),
        Message::Nil(4),
        Message::FileSpaceInfo(fs_info::FileSpaceInfo::V0 {
            strategy: 2,
            threshold: 1,
            managers: None,
        }),
        Message::Unknown {
            kind: MessageType(0x30),
            raw: vec![1, 2],
        },
    ];
    let h = ObjectHeader {
        prefix: Prefix::V2 {
            flags: 0,
            times: None,
            attr_phase_change: None,
        },
        chunks: vec![Chunk {
            address: Addr(0x30),
            messages: msgs
                .iter()
                .map(|m| RawMessage::from_message(m, MessageFlags(0), sizes, false))
                .collect(),
            gap: 0,
        }],
    };
    let ext = SuperblockExtension::from_header(&h, sizes).unwrap();
    assert_eq!(ext.btree_k.map(|k| k.indexed_storage_internal_k), Some(64));
    assert_eq!(ext.shared_table.map(|t| t.num_indices), Some(2));
    assert!(ext.driver_info.is_none());
    assert!(ext.file_space_info.is_some());
    assert_eq!(ext.other.len(), 1);
}
