//! Target `object_header`: object headers (both versions, with continuation chunks found in
//! the same input) and every header message type.

use arbitrary::Unstructured;
use h5_format::message::attribute::MaybeShared;
use h5_format::message::datatype::{self, DatatypeMessage};
use h5_format::message::{Message, MessageFlags, MessageType};
use h5_format::object_header::{ObjectHeader, Prefix};
use h5_format::{Addr, Cursor, Error, ErrorKind, Sizes, Writer};

/// A datatype message as encoding writes it: its version raised to the lowest that can
/// describe the type (documented on `DatatypeMessage::version`; a file may store a lower
/// outer version over a nested type of a higher one).
fn raise(t: &mut DatatypeMessage) {
    t.version = t.version.max(datatype::min_version(&t.datatype));
}

/// The message as its encoding parses back: datatype versions raised.
fn normalized(mut m: Message) -> Message {
    match &mut m {
        Message::Datatype(t) => raise(t),
        Message::Attribute(a) => {
            if let MaybeShared::Inline(t) = &mut a.datatype {
                raise(t);
            }
        }
        _ => {}
    }
    m
}

/// Decode one message body and round-trip it.
fn message(kind: MessageType, flags: MessageFlags, body: &[u8], sizes: Sizes) {
    let Ok(m) = Message::parse_bytes(kind, flags, body, 0, sizes) else {
        return;
    };
    let bytes = m.to_bytes(sizes);
    let flags = if m.is_shared() {
        MessageFlags(flags.0 | MessageFlags::SHARED)
    } else {
        flags
    };
    match Message::parse_bytes(kind, flags, &bytes, 0, sizes) {
        Ok(again) => assert_eq!(
            normalized(m),
            again,
            "{kind}: encode-then-parse changed the message"
        ),
        Err(e) => panic!("{kind}: the encoding of {m:?} does not parse: {e}"),
    }
}

/// Parse the input as an object header (its continuations read from the same input) and as
/// a message of the type the configuration selects; round-trip what parses.
pub fn run(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let (cfg, data) = crate::split(u)?;
    let sizes = crate::sizes_of(cfg);
    let fetch = |a: Addr, len: u64| -> h5_format::Result<Vec<u8>> {
        let s = usize::try_from(a.0).ok();
        let e = s.and_then(|s| s.checked_add(usize::try_from(len).ok()?));
        match (s, e) {
            (Some(s), Some(e)) if e <= data.len() => Ok(data[s..e].to_vec()),
            _ => Err(Error::new(
                ErrorKind::BadAddress,
                "fuzz",
                a.0,
                "outside the input",
            )),
        }
    };
    if let Ok(h) = ObjectHeader::parse(&mut Cursor::new(data, 0, sizes), fetch) {
        for raw in h.messages() {
            message(raw.kind, raw.flags, &raw.data, sizes);
        }
        // A single-chunk header without continuation messages encodes to bytes that parse
        // back to the same header.
        let single =
            h.chunks.len() == 1 && h.messages().all(|m| m.kind != MessageType::CONTINUATION);
        let mut w = Writer::new(sizes);
        if single && h.encode_chunk(0, &mut w).is_ok() {
            let bytes = w.into_vec();
            let again = ObjectHeader::parse(&mut Cursor::new(&bytes, 0, sizes), |a, _| {
                Err(Error::new(
                    ErrorKind::BadAddress,
                    "fuzz",
                    a.0,
                    "no continuation",
                ))
            });
            match again {
                Ok(mut g) => {
                    // Encoding recomputes what it derives: the version 1 message count and
                    // the version 2 width bits of the chunk size (documented on `Prefix`).
                    match (&mut g.prefix, &h.prefix) {
                        (
                            Prefix::V1 { num_messages, .. },
                            Prefix::V1 {
                                num_messages: n, ..
                            },
                        ) => *num_messages = *n,
                        (Prefix::V2 { flags, .. }, Prefix::V2 { flags: f, .. }) => {
                            *flags = (*flags & !3) | (f & 3)
                        }
                        _ => {}
                    }
                    // Message offsets are positions in the new encoding.
                    for (a, b) in g.chunks.iter_mut().zip(&h.chunks) {
                        for (ma, mb) in a.messages.iter_mut().zip(&b.messages) {
                            ma.offset = mb.offset;
                        }
                    }
                    assert_eq!(g, h, "object header: encode-then-parse changed the header");
                }
                Err(e) => panic!("object header: the encoding of {h:?} does not parse: {e}"),
            }
        }
    }
    // One message of the selected type (0x00-0x18, and an unknown one), with the flags of
    // the second configuration nibble.
    let kind = MessageType(u16::from(cfg >> 3) % 0x1a);
    let flags = MessageFlags(if cfg & 0x80 != 0 {
        MessageFlags::SHARED
    } else {
        0
    });
    message(kind, flags, data, sizes);
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn smoke() {
        let mut seeds = crate::smoke::signature_seeds(&[b"OHDR"], 1024);
        // Version 1 headers: the corpus's root object headers at their usual places.
        for f in crate::smoke::corpus_files(1 << 16) {
            for at in [0x60usize, 0x30, 0x320, 0x3a0] {
                if f.get(at) == Some(&1) {
                    let mut s = vec![0u8];
                    s.extend_from_slice(&f[at..(at + 1024).min(f.len())]);
                    seeds.push(s);
                }
            }
        }
        crate::smoke::run("object_header", super::run, &seeds, 6000);
    }
}
