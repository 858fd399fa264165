use super::*;
use crate::message::dataspace::Dataspace;
use crate::message::mtime::Mtime;

fn no_fetch(a: Addr, _: u64) -> Result<Vec<u8>> {
    Err(Error::new(
        ErrorKind::BadAddress,
        "test",
        a.0,
        "no continuation expected",
    ))
}

fn v1_bytes() -> Vec<u8> {
    // Prefix: version 1, reserved, 2 messages, refcount 1, header size 40, 4 bytes padding.
    let mut b = vec![1u8, 0, 2, 0, 1, 0, 0, 0, 40, 0, 0, 0, 0, 0, 0, 0];
    // Dataspace message (type 1, 16 bytes, constant flag): scalar version 1 padded to 16.
    b.extend_from_slice(&[1, 0, 16, 0, 1, 0, 0, 0]);
    b.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    // NIL message of 8 bytes.
    b.extend_from_slice(&[0, 0, 8, 0, 0, 0, 0, 0]);
    b.extend_from_slice(&[0; 8]);
    b
}

#[test]
fn version_1_from_bytes() {
    let b = v1_bytes();
    let h = ObjectHeader::parse(&mut Cursor::new(&b, 0x60, Sizes::DEFAULT), no_fetch).unwrap();
    assert_eq!(h.version(), 1);
    assert_eq!(
        h.prefix,
        Prefix::V1 {
            num_messages: 2,
            refcount: 1
        }
    );
    let msgs: Vec<_> = h.messages().collect();
    assert_eq!(msgs.len(), 2);
    assert_eq!(msgs[0].kind, MessageType::DATASPACE);
    assert_eq!(msgs[0].flags, MessageFlags(MessageFlags::CONSTANT));
    assert_eq!(msgs[0].offset, 0x60 + 24);
    assert_eq!(msgs[1].kind, MessageType::NIL);
    assert_eq!(
        h.decode_messages(Sizes::DEFAULT).unwrap(),
        vec![Message::Dataspace(Dataspace::scalar())]
    );
    let mut w = Writer::new(Sizes::DEFAULT);
    h.encode_chunk(0, &mut w).unwrap();
    assert_eq!(w.as_slice(), &b[..]);
    assert_eq!(h.chunk_size(0), b.len());
}

/// A version 2 header at 0x100 with creation order tracked, times and phase change
/// values, whose chunk 0 continues at 0x400 (an OCHK chunk with a gap).
fn v2_header() -> ObjectHeader {
    let sizes = Sizes::DEFAULT;
    let mut mtime = RawMessage::from_message(
        &Message::Mtime(Mtime {
            seconds: 1_700_000_000,
        }),
        MessageFlags(0),
        sizes,
        false,
    );
    mtime.creation_order = Some(0);
    let mut h = ObjectHeader {
        prefix: Prefix::V2 {
            flags: FLAG_ATTR_CREATION_ORDER_TRACKED
                | FLAG_TIMES_STORED
                | FLAG_ATTR_PHASE_CHANGE_STORED,
            times: Some(Times {
                access: 1,
                modification: 2,
                change: 3,
                birth: 4,
            }),
            attr_phase_change: Some((8, 6)),
        },
        chunks: vec![
            Chunk {
                address: Addr(0x100),
                messages: vec![mtime],
                gap: 0,
            },
            Chunk {
                address: Addr(0x400),
                messages: vec![RawMessage {
                    creation_order: Some(0),
                    ..RawMessage::nil(10)
                }],
                gap: 3,
            },
        ],
    };
    // The continuation message, whose length is the second chunk's size.
    let len = h.chunk_size(1) as u64;
    let mut cont = RawMessage::from_message(
        &Message::Continuation(Continuation {
            offset: Addr(0x400),
            length: len,
        }),
        MessageFlags(0),
        sizes,
        false,
    );
    cont.creation_order = Some(1);
    h.chunks[0].messages.push(cont);
    h
}

#[test]
fn version_2_with_continuation_round_trips() {
    let h = v2_header();
    let mut c0 = Writer::new(Sizes::DEFAULT);
    h.encode_chunk(0, &mut c0).unwrap();
    let mut c1 = Writer::new(Sizes::DEFAULT);
    h.encode_chunk(1, &mut c1).unwrap();
    assert_eq!(&c0.as_slice()[..6], b"OHDR\x02\x34");
    assert_eq!(c0.len(), h.chunk_size(0));
    assert_eq!(&c1.as_slice()[..4], b"OCHK");
    assert_eq!(c1.len(), h.chunk_size(1));
    let chunk1 = c1.as_slice().to_vec();
    let mut fetched = Vec::new();
    let got = ObjectHeader::parse(
        &mut Cursor::new(c0.as_slice(), 0x100, Sizes::DEFAULT),
        |a, n| {
            fetched.push((a, n));
            Ok(chunk1.clone())
        },
    )
    .unwrap();
    assert_eq!(fetched, vec![(Addr(0x400), chunk1.len() as u64)]);
    // Offsets are where the bodies landed; compare the rest.
    let mut want = h.clone();
    for (wc, gc) in want.chunks.iter_mut().zip(&got.chunks) {
        for (wm, gm) in wc.messages.iter_mut().zip(&gc.messages) {
            wm.offset = gm.offset;
        }
    }
    assert_eq!(got, want);
    assert_eq!(got.chunks[1].gap, 3);
    assert_eq!(got.chunks[0].messages[0].creation_order, Some(0));
    // A corrupted continuation chunk is a checksum error at the chunk's checksum.
    let mut bad = chunk1.clone();
    bad[5] ^= 0xff;
    let e = ObjectHeader::parse(
        &mut Cursor::new(c0.as_slice(), 0x100, Sizes::DEFAULT),
        |_, _| Ok(bad.clone()),
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ChecksumMismatch);
    assert_eq!(e.structure(), "object header");
    assert_eq!(e.offset(), Some(0x400 + chunk1.len() as u64 - 4));
    // A corrupted chunk 0 too.
    let mut bad0 = c0.as_slice().to_vec();
    bad0[8] ^= 1;
    let e =
        ObjectHeader::parse(&mut Cursor::new(&bad0, 0x100, Sizes::DEFAULT), no_fetch).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ChecksumMismatch);
}

#[test]
fn continuation_loops_and_bad_sizes_are_errors() {
    // A v1 header whose continuation points back at a chunk that points to itself.
    let sizes = Sizes::DEFAULT;
    let cont = |at: u64| {
        RawMessage::from_message(
            &Message::Continuation(Continuation {
                offset: Addr(at),
                length: 24,
            }),
            MessageFlags(0),
            sizes,
            true,
        )
    };
    let h = ObjectHeader {
        prefix: Prefix::V1 {
            num_messages: 1,
            refcount: 1,
        },
        chunks: vec![Chunk {
            address: Addr(0),
            messages: vec![cont(0x200)],
            gap: 0,
        }],
    };
    let mut w = Writer::new(sizes);
    h.encode_chunk(0, &mut w).unwrap();
    let mut looping = Writer::new(sizes);
    ObjectHeader {
        prefix: h.prefix.clone(),
        chunks: vec![
            h.chunks[0].clone(),
            Chunk {
                address: Addr(0x200),
                messages: vec![cont(0x200)],
                gap: 0,
            },
        ],
    }
    .encode_chunk(1, &mut looping)
    .unwrap();
    let chunk = looping.into_vec();
    let mut calls = 0;
    let e = ObjectHeader::parse(&mut Cursor::new(w.as_slice(), 0, sizes), |_, _| {
        calls += 1;
        Ok(chunk.clone())
    })
    .unwrap_err();
    assert_eq!(calls, 1);
    assert!(e.message().contains("loop"), "{e}");
    // A message longer than its chunk.
    let mut b = v1_bytes();
    b[18] = 200;
    let e = ObjectHeader::parse(&mut Cursor::new(&b, 0, sizes), no_fetch).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnexpectedEof);
    assert_eq!(e.offset(), Some(16));
    // A header size past the data.
    let mut b = v1_bytes();
    b[9] = 1;
    assert!(ObjectHeader::parse(&mut Cursor::new(&b, 0, sizes), no_fetch).is_err());
    // Every prefix of a valid header is an error, never a panic.
    let b = v1_bytes();
    for n in 0..b.len() {
        assert!(ObjectHeader::parse(&mut Cursor::new(&b[..n], 0, sizes), no_fetch).is_err());
    }
}

#[test]
fn unknown_messages_and_fail_flag() {
    let raw = RawMessage {
        kind: MessageType(0x55),
        flags: MessageFlags(0),
        creation_order: None,
        data: vec![1, 2, 3],
        offset: 0x80,
    };
    assert_eq!(
        raw.decode(Sizes::DEFAULT).unwrap(),
        Message::Unknown {
            kind: MessageType(0x55),
            raw: vec![1, 2, 3]
        }
    );
    let failing = RawMessage {
        flags: MessageFlags(MessageFlags::FAIL_IF_UNKNOWN_ALWAYS),
        ..raw
    };
    let e = failing.decode(Sizes::DEFAULT).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert_eq!(e.offset(), Some(0x80));
}

#[test]
fn a_chunks_messages_are_counted_before_they_are_parsed() {
    // Version 1: two whole messages; a third whose size runs past the body is not counted.
    let b = v1_bytes();
    assert_eq!(count_messages(&b[16..], 8), 2);
    let mut cut = b[16..].to_vec();
    cut.extend_from_slice(&[1, 0, 200, 0, 0, 0, 0, 0]);
    assert_eq!(count_messages(&cut, 8), 2);
    // A body shorter than one message header holds none.
    assert_eq!(count_messages(&[0, 0, 0], 4), 0);
    // The list is allocated once, at the size it ends with.
    let h = ObjectHeader::parse(&mut Cursor::new(&b, 0x60, Sizes::DEFAULT), no_fetch).unwrap();
    assert_eq!(h.chunks[0].messages.capacity(), h.chunks[0].messages.len());
    // Version 2 sizes (at bytes 1..3 of a 4- or 6-byte header) count the same way.
    let v2 = v2_header();
    let mut w = Writer::new(Sizes::DEFAULT);
    v2.encode_chunk(0, &mut w).unwrap();
    let parsed = ObjectHeader::parse(
        &mut Cursor::new(w.as_slice(), 0x100, Sizes::DEFAULT),
        |a, n| {
            let mut w = Writer::new(Sizes::DEFAULT);
            v2.encode_chunk(1, &mut w)?;
            assert_eq!((a.0, n as usize), (0x400, w.len()));
            Ok(w.into_vec())
        },
    )
    .unwrap();
    for c in &parsed.chunks {
        assert_eq!(c.messages.capacity(), c.messages.len());
    }
    let bodies = |h: &ObjectHeader| -> Vec<(MessageType, Vec<u8>)> {
        h.messages().map(|m| (m.kind, m.data.clone())).collect()
    };
    assert_eq!(bodies(&parsed), bodies(&v2));
}
