use super::*;

/// The history header of `tst_onion_objs.h5.onion` (HDF5's onion test file): page size 32,
/// original file of 6064 bytes, a history of 140 bytes at 24855.
const OBJS_HEADER: [u8; 40] = [
    0x4f, 0x48, 0x44, 0x48, 0x01, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0xb0, 0x17, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x17, 0x61, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x8c, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x0a, 0x08, 0x0b, 0x18,
];

fn record(n_entries: u64, comment: &[u8]) -> RevisionRecord {
    RevisionRecord {
        revision_num: 3,
        parent_revision_num: 2,
        time_of_creation: *b"20220506T054529\0",
        logical_eof: 9016,
        page_size: 32,
        entries: (0..n_entries)
            .map(|i| IndexEntry {
                logical_page: i * 3,
                phys_addr: 100 + 32 * i,
            })
            .collect(),
        comment: comment.to_vec(),
    }
}

fn encoded<F: Fn(&mut Writer)>(f: F) -> Vec<u8> {
    let mut w = Writer::new(Sizes::DEFAULT);
    f(&mut w);
    w.into_vec()
}

/// Recompute the trailing checksum of a structure after a test changed its bytes.
fn reseal(b: &mut [u8]) {
    let n = b.len() - 4;
    let s = fletcher32(&b[..n]);
    b[n..].copy_from_slice(&s.to_le_bytes());
}

#[test]
fn fletcher32_matches_the_reference_checksums() {
    // The stored checksum of the header above, and small literals (odd lengths included).
    assert_eq!(fletcher32(&OBJS_HEADER[..36]), 0x180b_080a);
    assert_eq!(fletcher32(&[]), 0);
    assert_eq!(fletcher32(&[0x01]), 0x0100_0100);
    assert_eq!(fletcher32(&[0x01, 0x02]), 0x0102_0102);
    assert_eq!(fletcher32(&[0x01, 0x02, 0x03]), 0x0504_0402);
    // Long input: folds happen every 360 words without overflow.
    let big = vec![0xffu8; 100_001];
    assert_eq!(fletcher32(&big), 0xff00_ff00);
}

#[test]
fn header_parses_the_reference_bytes_and_round_trips() {
    let h = HistoryHeader::parse(&OBJS_HEADER).unwrap();
    assert_eq!(
        h,
        HistoryHeader {
            flags: 0,
            page_size: 32,
            origin_eof: 6064,
            history_addr: 24855,
            history_size: 140,
        }
    );
    assert_eq!(encoded(|w| h.encode(w)), OBJS_HEADER);
}

#[test]
fn header_rejects_bad_bytes() {
    let mut b = OBJS_HEADER;
    b[0] = b'X';
    assert_eq!(
        HistoryHeader::parse(&b).unwrap_err().kind(),
        ErrorKind::BadSignature
    );
    let mut b = OBJS_HEADER;
    b[4] = 2;
    assert_eq!(
        HistoryHeader::parse(&b).unwrap_err().kind(),
        ErrorKind::UnsupportedVersion
    );
    let mut b = OBJS_HEADER;
    b[20] ^= 1;
    let e = HistoryHeader::parse(&b).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ChecksumMismatch);
    assert_eq!(e.offset(), Some(36));
    let mut b = OBJS_HEADER;
    b[8] = 33;
    reseal(&mut b);
    let e = HistoryHeader::parse(&b).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidValue);
    assert!(e.to_string().contains("power of two"), "{e}");
    for n in 0..40 {
        assert_eq!(
            HistoryHeader::parse(&OBJS_HEADER[..n]).unwrap_err().kind(),
            ErrorKind::UnexpectedEof,
            "{n} bytes"
        );
    }
}

#[test]
fn history_round_trips_and_checks_sizes() {
    let h = History {
        records: vec![
            RecordPointer {
                phys_addr: 4125,
                record_size: 2623,
            },
            RecordPointer {
                phys_addr: 7908,
                record_size: 2623,
            },
        ],
    };
    let b = encoded(|w| h.encode(w));
    assert_eq!(b.len(), History::encoded_size(2));
    assert_eq!(History::parse(&b, 500).unwrap(), h);
    // The first record pointer as HDF5 wrote it in tst_onion_objs.h5.onion.
    assert_eq!(
        &b[16..36],
        &[0x1d, 0x10, 0, 0, 0, 0, 0, 0, 0x3f, 0x0a, 0, 0, 0, 0, 0, 0, 0x1a, 0x5c, 0xa9, 0xe4]
    );
    // An empty history.
    let e = encoded(|w| History::default().encode(w));
    assert_eq!(History::parse(&e, 0).unwrap(), History::default());
    // Trailing bytes: the header's size disagrees with the revision count.
    let mut long = b.clone();
    long.extend_from_slice(&[0; 4]);
    assert_eq!(
        History::parse(&long, 0).unwrap_err().kind(),
        ErrorKind::InvalidValue
    );
    // A huge revision count is refused before any allocation.
    let mut huge = b.clone();
    huge[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
    reseal(&mut huge);
    let err = History::parse(&huge, 500).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    assert_eq!(err.offset(), Some(508));
    // A damaged record pointer names itself.
    let mut bad = b.clone();
    bad[36 + 3] ^= 0x40;
    reseal(&mut bad);
    let err = History::parse(&bad, 0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ChecksumMismatch);
    assert!(err.to_string().contains("record pointer 1"), "{err}");
}

#[test]
fn record_round_trips() {
    for (n, comment) in [(0, &b""[..]), (1, b"initial commit\0"), (127, b"x")] {
        let r = record(n, comment);
        let b = encoded(|w| r.encode(w));
        assert_eq!(b.len(), r.encoded_size());
        let back = RevisionRecord::parse(&b, 1000).unwrap();
        assert_eq!(back, r);
        for i in 0..n {
            assert_eq!(back.find_page(i * 3).unwrap().phys_addr, 100 + 32 * i);
            assert!(back.find_page(i * 3 + 1).is_none());
        }
    }
}

#[test]
fn record_rejects_bad_indexes() {
    let r = record(3, b"c\0");
    let good = encoded(|w| r.encode(w));
    let entry = |i: usize| RECORD_FIXED_SIZE - 4 + INDEX_ENTRY_SIZE * i;

    // A logical address that is not a multiple of the page size.
    let mut b = good.clone();
    b[entry(1)] = 5;
    let s = fletcher32(&b[entry(1)..entry(1) + 16]);
    b[entry(1) + 16..entry(1) + 20].copy_from_slice(&s.to_le_bytes());
    reseal(&mut b);
    let e = RevisionRecord::parse(&b, 0).unwrap_err();
    assert!(e.to_string().contains("not a multiple"), "{e}");
    assert_eq!(e.offset(), Some(entry(1) as u64));

    // Entries out of order.
    let mut rr = record(3, b"");
    rr.entries.swap(0, 2);
    let b = encoded(|w| rr.encode(w));
    let e = RevisionRecord::parse(&b, 0).unwrap_err();
    assert!(e.to_string().contains("not after"), "{e}");

    // A damaged entry checksum.
    let mut b = good.clone();
    b[entry(2) + 17] ^= 1;
    reseal(&mut b);
    let e = RevisionRecord::parse(&b, 0).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ChecksumMismatch);
    assert!(e.to_string().contains("entry 2"), "{e}");

    // Entry count and comment size larger than the record.
    for (at, v) in [(52usize, u64::MAX), (52, 4)] {
        let mut b = good.clone();
        b[at..at + 8].copy_from_slice(&v.to_le_bytes());
        reseal(&mut b);
        assert!(RevisionRecord::parse(&b, 0).is_err());
    }
    let mut b = good.clone();
    b[60..64].copy_from_slice(&u32::MAX.to_le_bytes());
    reseal(&mut b);
    assert_eq!(
        RevisionRecord::parse(&b, 0).unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );

    // Zero and non-power-of-two page sizes.
    for ps in [0u32, 48] {
        let mut b = good.clone();
        b[48..52].copy_from_slice(&ps.to_le_bytes());
        reseal(&mut b);
        assert!(RevisionRecord::parse(&b, 0)
            .unwrap_err()
            .to_string()
            .contains("power of two"));
    }

    // Every truncation fails cleanly.
    for n in 0..good.len() {
        assert!(RevisionRecord::parse(&good[..n], 0).is_err());
    }
}

#[test]
fn extent_checks() {
    assert_eq!(check_extent("x", 10, 20, 30).unwrap(), 20);
    assert_eq!(
        check_extent("x", 11, 20, 30).unwrap_err().kind(),
        ErrorKind::BadAddress
    );
    assert!(check_extent("x", u64::MAX, 2, u64::MAX).is_err());
    assert_eq!(
        check_extent("x", 0, 1 << 40, u64::MAX).unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );
}
