//! The shared object header message table (`SMTB`): its indexes (lists `SMLI` or version 2
//! B-trees of record type 7) and their fractal heaps, and the messages shared through them.

use super::heap::Heap;
use super::Walker;
use crate::message::{Message, MessageFlags, MessageType};
use crate::{Addr, Cursor, Result};

const SMTB: &str = "shared message table";
const SMLI: &str = "shared message list";

/// One index of the table, with its heap when it could be walked.
pub(crate) struct SohmIndex {
    /// "Message Types" bit field: bit `n` set for message type `n`.
    pub(crate) types: u16,
    pub(crate) heap: Option<Heap>,
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
                c.skip(4 + 2 + 2)?;
                let count = c.read_u16()?;
                let index = c.read_addr()?;
                let heap = c.read_addr()?;
                out.push((at, version, kind, types, count, index, heap));
            }
            c.verify_checksum(0)?;
            Ok(out)
        });
        let indexes = match r {
            Ok(v) => v,
            Err(e) => return self.error(e, SMTB, addr.0, PATH),
        };
        for (at, version, kind, types, count, index, heap) in indexes {
            if version != 0 || kind > 1 {
                self.problem(
                    SMTB,
                    at,
                    format!(
                        "index version {version}, type {kind} (known: version 0, types 0 and 1)"
                    ),
                );
                continue;
            }
            let h = if heap.is_undef() {
                None
            } else {
                self.fractal_heap(heap, PATH)
            };
            if !index.is_undef() {
                if kind == 1 {
                    if let Some((_, recs)) = self.v2_btree(index, &[7], PATH) {
                        if recs.len() as u64 != u64::from(count) {
                            self.problem(
                                SMTB,
                                at,
                                format!(
                                    "the index counts {count} messages, its B-tree holds {}",
                                    recs.len()
                                ),
                            );
                        }
                    }
                } else {
                    // A list: signature, `count` entries (location, hash, and the larger of a
                    // heap ID and an object header location), checksum.
                    let e = 1 + 4 + 8u64.max(1 + 1 + 2 + o);
                    let r = self
                        .bytes(SMLI, index, 8 + u64::from(count) * e)
                        .and_then(|b| {
                            let mut c = self.cursor(&b, index).in_structure(SMLI);
                            c.expect_signature(b"SMLI")
                        });
                    if let Err(e) = r {
                        self.error(e, SMLI, index.0, PATH);
                    }
                }
            }
            self.sohm.push(SohmIndex { types, heap: h });
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
