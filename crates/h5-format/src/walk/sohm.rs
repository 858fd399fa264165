//! The shared object header message table (`SMTB`): its indexes (lists `SMLI` or version 2
//! B-trees of record type 7) and their fractal heaps, every record of them (a message in the
//! heap whose hash is the lookup3 hash of its encoding seeded with its type, and which
//! decodes; or a message in an object header), and the messages shared through them.

use super::heap::Heap;
use super::Walker;
use crate::btree::v2::{Record, SharedMessageRecord};
use crate::checksum::lookup3;
use crate::message::{Message, MessageFlags, MessageType};
use crate::{Addr, Cursor, Error, ErrorKind, Result};

const SMTB: &str = "shared message table";
const SMLI: &str = "shared message list";

/// One index of the table, with its heap when it could be walked.
pub(crate) struct SohmIndex {
    /// "Message Types" bit field: bit `n` set for message type `n`.
    pub(crate) types: u16,
    pub(crate) heap: Option<Heap>,
}

/// One index entry of the table.
struct IndexEntry {
    at: u64,
    version: u8,
    kind: u8,
    types: u16,
    list_max: u16,
    count: u16,
    index: Addr,
    heap: Addr,
}

/// Message types whose bit is set in an index's "Message Types" field.
fn kinds(types: u16) -> impl Iterator<Item = u16> {
    (0..16u16).filter(move |k| types & (1 << k) != 0)
}

impl Walker<'_> {
    /// The table at `addr` holding `n` indexes.
    pub(crate) fn sohm_table(&mut self, addr: Addr, n: u8) {
        const PATH: &str = "shared message table";
        if !self.budget() || !self.first_visit(SMTB, addr.0, PATH) {
            return;
        }
        let o = u64::from(self.sizes.offset);
        let entry = 14 + 2 * o;
        let len = 8 + u64::from(n) * entry;
        let r = self.bytes(SMTB, addr, len).and_then(|b| {
            let mut c = self.cursor(&b, addr).in_structure(SMTB);
            c.expect_signature(b"SMTB")?;
            let mut out = Vec::new();
            for _ in 0..n {
                let at = c.offset();
                let version = c.read_u8()?;
                let kind = c.read_u8()?;
                let types = c.read_u16()?;
                c.skip(4)?;
                let list_max = c.read_u16()?;
                c.skip(2)?;
                let count = c.read_u16()?;
                let index = c.read_addr()?;
                let heap = c.read_addr()?;
                out.push(IndexEntry {
                    at,
                    version,
                    kind,
                    types,
                    list_max,
                    count,
                    index,
                    heap,
                });
            }
            c.verify_checksum(0)?;
            Ok(out)
        });
        let indexes = match r {
            Ok(v) => v,
            Err(e) => return self.error(e, SMTB, addr.0, PATH),
        };
        let mut taken = 0u16;
        for x in indexes {
            if x.version != 0 || x.kind > 1 {
                self.problem(
                    SMTB,
                    x.at,
                    format!(
                        "index version {}, type {} (known: version 0, types 0 and 1)",
                        x.version, x.kind
                    ),
                );
                continue;
            }
            if taken & x.types != 0 {
                self.problem(
                    SMTB,
                    x.at,
                    format!(
                        "message types {:?} are already in another index",
                        kinds(taken & x.types).collect::<Vec<_>>()
                    ),
                );
            }
            taken |= x.types;
            let h = if x.heap.is_undef() {
                None
            } else {
                self.fractal_heap(x.heap, PATH)
            };
            if !x.index.is_undef() {
                let records = if x.kind == 1 {
                    self.v2_btree(x.index, &[7], PATH).map(|(_, recs)| {
                        recs.into_iter()
                            .filter_map(|r| match r {
                                Record::SharedMessage(m) => Some((x.index.0, m)),
                                _ => None,
                            })
                            .collect::<Vec<_>>()
                    })
                } else {
                    self.sohm_list(&x)
                };
                if let Some(records) = records {
                    if records.len() as u64 != u64::from(x.count) {
                        self.problem(
                            SMTB,
                            x.at,
                            format!(
                                "the index counts {} messages, its {} holds {}",
                                x.count,
                                if x.kind == 1 { "B-tree" } else { "list" },
                                records.len()
                            ),
                        );
                    }
                    for (at, r) in &records {
                        if self.exhausted {
                            break;
                        }
                        self.sohm_record(*at, r, x.types, h.as_ref());
                    }
                }
            }
            self.sohm.push(SohmIndex {
                types: x.types,
                heap: h,
            });
        }
    }

    /// The records of a list index: signature, "Number of Messages" records, checksum, in a
    /// block allocated for "List Cutoff" records.
    fn sohm_list(&mut self, x: &IndexEntry) -> Option<Vec<(u64, SharedMessageRecord)>> {
        const PATH: &str = "shared message table";
        let o = u64::from(self.sizes.offset);
        // Location, hash, and the larger of (reference count, heap ID) and (reserved, type,
        // index, object header address).
        let e = 1 + 4 + 12u64.max(4 + o);
        if x.count > x.list_max {
            self.problem(
                SMLI,
                x.index.0,
                format!(
                    "{} messages in a list of at most {} (in {PATH})",
                    x.count, x.list_max
                ),
            );
        }
        let allocated = 8 + u64::from(x.list_max.max(x.count)) * e;
        if !self.budget()
            || !self.first_visit(SMLI, x.index.0, PATH)
            || !self.check_range(SMLI, x.index, allocated, "shared message list", PATH)
        {
            return None;
        }
        let r = self
            .bytes(SMLI, x.index, 8 + u64::from(x.count) * e)
            .and_then(|b| {
                let mut c = self.cursor(&b, x.index).in_structure(SMLI);
                c.expect_signature(b"SMLI")?;
                let mut out = Vec::new();
                for _ in 0..x.count {
                    let at = c.offset();
                    let r = Record::parse(&mut c, 7, e as usize)?;
                    match r {
                        Record::SharedMessage(m) => out.push((at, m)),
                        _ => {
                            return Err(Error::new(
                                ErrorKind::InvalidValue,
                                SMLI,
                                at,
                                "a record that is not a shared message",
                            ))
                        }
                    }
                }
                c.verify_checksum(0)?;
                Ok(out)
            });
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.error(e, SMLI, x.index.0, PATH);
                None
            }
        }
    }

    /// One record of an index (at `at`): a message in the index's heap whose hash and
    /// encoding fit one of the index's types, or a message in an object header.
    fn sohm_record(&mut self, at: u64, r: &SharedMessageRecord, types: u16, heap: Option<&Heap>) {
        const S: &str = "shared message record";
        const PATH: &str = "shared message table";
        if !self.budget() {
            return;
        }
        match *r {
            SharedMessageRecord::InHeap {
                hash,
                reference_count,
                heap_id,
            } => {
                if reference_count == 0 {
                    self.problem(S, at, "reference count 0".into());
                }
                let Some(heap) = heap else {
                    self.problem(
                        S,
                        at,
                        "a message in the heap of an index without a heap".into(),
                    );
                    return;
                };
                let Some(obj) = self.heap_object(heap, &heap_id, at, PATH) else {
                    return;
                };
                let Some(kind) = kinds(types).find(|&k| lookup3(&obj, u32::from(k)) == hash) else {
                    self.problem(
                        S,
                        at,
                        format!(
                            "hash {hash:#010x} is not the hash of the {}-byte message of any of the index's types {:?}",
                            obj.len(),
                            kinds(types).collect::<Vec<_>>()
                        ),
                    );
                    return;
                };
                let mut c = Cursor::new(&obj, heap.addr.0, self.sizes);
                if let Err(e) = Message::parse(MessageType(kind), MessageFlags(0), &mut c) {
                    self.error(e, S, at, PATH);
                }
            }
            SharedMessageRecord::InObjectHeader {
                message_type,
                object_header,
                ..
            } => {
                let kind = MessageType(u16::from(message_type));
                if message_type >= 16 || types & (1 << message_type) == 0 {
                    self.problem(
                        S,
                        at,
                        format!("message type {kind} is not one of the index's types"),
                    );
                    return;
                }
                let found = self
                    .parse_header_quietly(object_header)
                    .map(|h| h.messages().any(|m| m.kind == kind));
                match found {
                    Ok(true) => {}
                    Ok(false) => self.problem(
                        S,
                        at,
                        format!("the object header at {object_header} has no {kind} message"),
                    ),
                    Err(e) => self.problem(
                        S,
                        at,
                        format!(
                            "the object header at {object_header} does not parse: {}",
                            e.message()
                        ),
                    ),
                }
            }
        }
    }

    /// Decode a message of type `kind` shared in the table's heaps under heap ID `id`.
    /// `None` (quietly) when no index holds the type or the heap is unusable.
    pub(crate) fn sohm_message(
        &mut self,
        kind: MessageType,
        id: &[u8; 8],
        at: u64,
        path: &str,
    ) -> Option<Result<Message>> {
        let bit = 1u32.checked_shl(u32::from(kind.0)).unwrap_or(0);
        let i = self
            .sohm
            .iter()
            .position(|x| u32::from(x.types) & bit != 0 && x.heap.is_some())?;
        let index = self.sohm.swap_remove(i);
        let heap = index.heap.as_ref()?;
        let bytes = self.heap_object(heap, id, at, path);
        let heap_addr = heap.addr;
        self.sohm.push(index);
        let bytes = bytes?;
        let mut c = Cursor::new(&bytes, heap_addr.0, self.sizes);
        Some(Message::parse(kind, MessageFlags(0), &mut c))
    }
}
