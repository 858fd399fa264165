//! What the data refers to: variable-length values (strings and sequences, at any depth of
//! compounds and arrays) and old-style dataset region references, whose bytes live in global
//! heap collections; object references (old addresses and revised tokens), which must point at
//! object headers. The data is read from compact and contiguous storage, unfiltered chunks
//! (filtered ones through [`super::Options::decode_chunk`]) and attribute values.

use std::collections::HashMap;
use std::rc::Rc;

use super::Walker;
use crate::heap::global::{GlobalHeapCollection, GlobalHeapId};
use crate::message::datatype::disk_size;
use crate::reference::{self, Reference, RegionReferenceData};
use crate::{limits, Addr, Cursor, Sizes};
use h5_types::{Datatype, ReferenceKind};

const GCOL: &str = "global heap collection";
const VLEN: &str = "variable-length data";
const OREF: &str = "object reference";
const RREF: &str = "region reference";
const REF: &str = "reference";

/// What one place of an element holds.
#[derive(Clone, Copy)]
enum Slot<'t> {
    /// A variable-length sequence of the base type (length, global heap ID).
    Sequence(&'t Datatype),
    /// A variable-length string (length in bytes, global heap ID).
    String,
    /// `H5R_OBJECT1`: an object header address.
    Object,
    /// `H5R_DATASET_REGION1`: a global heap ID of an address and a selection.
    Region,
    /// A revised reference (type, flags, then a token or a length and global heap ID).
    Revised,
}

/// The places of one element of a datatype that hold heap IDs or references.
pub(crate) struct ElementRefs<'t> {
    /// Bytes of one element on disk.
    size: u64,
    slots: Vec<(u64, Slot<'t>)>,
}

/// The heap IDs and references of one element of `dt`; `None` when it has none.
pub(crate) fn element_refs(dt: &Datatype, sizes: Sizes) -> Option<ElementRefs<'_>> {
    let mut slots = Vec::new();
    collect(dt, sizes, 0, &mut slots, 0);
    (!slots.is_empty()).then(|| ElementRefs {
        size: disk_size(dt, sizes),
        slots,
    })
}

fn collect<'t>(
    dt: &'t Datatype,
    sizes: Sizes,
    at: u64,
    out: &mut Vec<(u64, Slot<'t>)>,
    depth: usize,
) {
    if depth > limits::MAX_DATATYPE_DEPTH || out.len() >= limits::MAX_WALK_ELEMENT_SLOTS {
        return;
    }
    match dt {
        Datatype::String(s) if s.is_variable() => out.push((at, Slot::String)),
        Datatype::VarLen(v) => out.push((at, Slot::Sequence(v.base()))),
        Datatype::Reference(r) => out.push((
            at,
            match r.kind() {
                ReferenceKind::Object => Slot::Object,
                ReferenceKind::DatasetRegion => Slot::Region,
                _ => Slot::Revised,
            },
        )),
        Datatype::Compound(c) => {
            for m in c.members() {
                collect(m.datatype(), sizes, at + m.offset() as u64, out, depth + 1);
            }
        }
        Datatype::Array(a) => {
            let mut inner = Vec::new();
            collect(a.base(), sizes, 0, &mut inner, depth + 1);
            if inner.is_empty() {
                return;
            }
            let step = disk_size(a.base(), sizes);
            for i in 0..a.len() {
                for &(off, s) in &inner {
                    if out.len() >= limits::MAX_WALK_ELEMENT_SLOTS {
                        return;
                    }
                    out.push((at + i.saturating_mul(step).saturating_add(off), s));
                }
            }
        }
        _ => {}
    }
}

/// A checked global heap collection with its objects by index.
pub(crate) struct Gcol {
    objects: HashMap<u16, Vec<u8>>,
}

/// Where scanned data lies, for problems: the address to name and the object's path.
#[derive(Clone, Copy)]
pub(crate) struct Place<'p> {
    pub(crate) at: u64,
    pub(crate) path: &'p str,
    /// Whether the data itself starts at `at` (raw data in the file), so each element's own
    /// address can be named; otherwise `at` is the message or element that holds it.
    pub(crate) in_file: bool,
}

impl ElementRefs<'_> {
    /// Bytes of one element on disk.
    pub(crate) fn size(&self) -> u64 {
        self.size
    }
}

impl Walker<'_> {
    /// Count `n` bytes of raw data against the cap; false (noted once) when over it.
    pub(crate) fn data_budget(&mut self, n: u64) -> bool {
        self.data_bytes = self.data_bytes.saturating_add(n);
        if self.data_bytes > self.opts.max_data_bytes {
            self.data_exhausted_note();
            return false;
        }
        true
    }

    fn reference_budget(&mut self) -> bool {
        self.references += 1;
        if self.references > self.opts.max_references {
            self.data_exhausted_note();
            return false;
        }
        true
    }

    fn data_exhausted_note(&mut self) {
        if !self.data_exhausted {
            self.data_exhausted = true;
            self.report.notes.push(format!(
                "stopped reading data after {} bytes and {} heap IDs and references (the walk's limits); the rest of the variable-length values and references is not checked",
                self.opts.max_data_bytes, self.opts.max_references
            ));
        }
    }

    /// Check the heap IDs and references of `n` elements laid out in `data` (fewer when
    /// `data` is shorter: its size is checked elsewhere).
    pub(crate) fn scan_elements(
        &mut self,
        data: &[u8],
        n: u64,
        er: &ElementRefs<'_>,
        place: Place<'_>,
        depth: usize,
    ) {
        if er.size == 0 {
            return;
        }
        let n = n.min(data.len() as u64 / er.size);
        for i in 0..n {
            let base = i * er.size;
            for &(off, slot) in &er.slots {
                if self.data_exhausted {
                    return;
                }
                let Some(b) = usize::try_from(base + off).ok().and_then(|s| data.get(s..)) else {
                    continue;
                };
                let here = if place.in_file {
                    Place {
                        at: place.at.saturating_add(base + off),
                        in_file: false,
                        ..place
                    }
                } else {
                    place
                };
                self.slot(b, slot, here, depth);
            }
        }
    }

    fn slot(&mut self, b: &[u8], slot: Slot<'_>, place: Place<'_>, depth: usize) {
        let sizes = self.sizes;
        let Place { at, path, .. } = place;
        let mut c = Cursor::new(b, at, sizes);
        match slot {
            Slot::Sequence(_) | Slot::String => {
                let (Ok(len), Ok(id)) = (c.read_u32(), GlobalHeapId::parse(&mut c)) else {
                    return;
                };
                if len == 0 {
                    return;
                }
                if id.is_nil() {
                    self.problem(
                        VLEN,
                        at,
                        format!("a value of {len} items has a nil global heap ID (in {path})"),
                    );
                    return;
                }
                if !self.reference_budget() {
                    return;
                }
                let Some(obj) = self.global_heap_object(id.collection, id.index, at, path) else {
                    return;
                };
                let item = match slot {
                    Slot::Sequence(base) => disk_size(base, sizes),
                    _ => 1,
                };
                let need = u64::from(len).saturating_mul(item);
                if (obj.len() as u64) < need {
                    self.problem(
                        VLEN,
                        at,
                        format!(
                            "a value of {len} items of {item} bytes, but object {} of the global heap collection at {} holds {} bytes (in {path})",
                            id.index,
                            id.collection,
                            obj.len()
                        ),
                    );
                    return;
                }
                if let Slot::Sequence(base) = slot {
                    if depth < limits::MAX_DATATYPE_DEPTH {
                        if let Some(inner) = element_refs(base, sizes) {
                            self.scan_elements(&obj, u64::from(len), &inner, place, depth + 1);
                        }
                    }
                }
            }
            Slot::Object => {
                let Ok(a) = c.read_addr() else { return };
                if a.0 == 0 || a.is_undef() || !self.reference_budget() {
                    return;
                }
                self.reference_target(OREF, a, place);
            }
            Slot::Region => {
                let Ok(id) = GlobalHeapId::parse(&mut c) else {
                    return;
                };
                if id.is_nil() || !self.reference_budget() {
                    return;
                }
                let Some(obj) = self.global_heap_object(id.collection, id.index, at, path) else {
                    return;
                };
                match RegionReferenceData::parse(&mut Cursor::new(&obj, id.collection.0, sizes)) {
                    Ok(r) => self.reference_target(RREF, r.object, place),
                    Err(e) => self.problem(
                        RREF,
                        at,
                        format!(
                            "object {} of the global heap collection at {} is not a dataset region: {} (in {path})",
                            id.index,
                            id.collection,
                            e.message()
                        ),
                    ),
                }
            }
            Slot::Revised => self.revised_reference(&mut c, place),
        }
    }

    fn revised_reference(&mut self, c: &mut Cursor<'_>, place: Place<'_>) {
        let Place { at, path, .. } = place;
        let (Ok(ref_type), Ok(flags)) = (c.read_u8(), c.read_u8()) else {
            return;
        };
        if ref_type == 0 {
            // A null reference.
            return;
        }
        let external = flags & reference::FLAG_EXTERNAL != 0;
        let r = if ref_type == reference::TYPE_OBJECT && !external {
            Reference::parse_block(c, ref_type, flags)
        } else {
            let (Ok(_), Ok(id)) = (c.read_u32(), GlobalHeapId::parse(c)) else {
                return;
            };
            if id.is_nil() || !self.reference_budget() {
                return;
            }
            let Some(obj) = self.global_heap_object(id.collection, id.index, at, path) else {
                return;
            };
            let sizes = self.sizes;
            Reference::parse_block(
                &mut Cursor::new(&obj, id.collection.0, sizes),
                ref_type,
                flags,
            )
            .or_else(|_| Reference::parse(&mut Cursor::new(&obj, id.collection.0, sizes)))
        };
        match r {
            Ok(r) if r.external_file.is_none() => match r.token_address(self.sizes) {
                Some(a) => {
                    if self.reference_budget() {
                        self.reference_target(REF, a, place);
                    }
                }
                None => self.problem(
                    REF,
                    at,
                    format!(
                        "a token of {} bytes is not an address (in {path})",
                        r.token.len()
                    ),
                ),
            },
            Ok(_) => {}
            Err(e) => self.problem(
                REF,
                at,
                format!(
                    "a reference of type {ref_type} does not decode: {} (in {path})",
                    e.message()
                ),
            ),
        }
    }

    /// A reference's target: an object header must parse at `target` (checked once per
    /// target; the first reference to a bad one is reported).
    fn reference_target(&mut self, s: &'static str, target: Addr, place: Place<'_>) {
        let Place { at, path, .. } = place;
        if self.targets.contains_key(&target.0) {
            return;
        }
        let r = if target.0 >= self.eoa.min(self.data_end) {
            Err(format!("past the end of file ({:#x})", self.eoa))
        } else {
            self.parse_header_quietly(target)
                .map(|_| ())
                .map_err(|e| format!("not an object header: {}", e.message()))
        };
        self.targets.insert(target.0, r.is_ok());
        if let Err(why) = r {
            self.problem(
                s,
                at,
                format!("points to {target}, which is {why} (in {path})"),
            );
        }
    }

    /// The global heap collection at `addr`, checked (signature, version, size inside the
    /// end of file, objects inside the collection, no index twice) the first time it is
    /// reached; `None` for one that failed (a problem the first time).
    pub(crate) fn global_heap_collection(&mut self, addr: Addr, path: &str) -> Option<Rc<Gcol>> {
        let quiet = match self.gcols.get(&addr.0) {
            Some(None) => return None,
            Some(Some(Some(g))) => return Some(g.clone()),
            Some(Some(None)) => true,
            None => false,
        };
        if !quiet {
            self.budget();
        }
        let sizes = self.sizes;
        let r = self
            .window(GCOL, addr, 8 + u64::from(sizes.length))
            .and_then(|head| {
                let mut c = self.cursor(&head, addr).in_structure(GCOL);
                c.expect_signature(&crate::heap::global::SIGNATURE)?;
                c.skip(4)?;
                c.read_len()
            });
        let size = match r {
            Ok(s) => s,
            Err(e) => {
                self.error(e, GCOL, addr.0, path);
                self.gcols.insert(addr.0, None);
                return None;
            }
        };
        if !self.check_range(GCOL, addr, size, "global heap collection", path) {
            self.gcols.insert(addr.0, None);
            return None;
        }
        let r = self
            .bytes(GCOL, addr, size.min(limits::MAX_METADATA_BLOCK))
            .and_then(|b| GlobalHeapCollection::parse(&mut self.cursor(&b, addr)));
        match r {
            Ok(g) => {
                let g = Rc::new(Gcol {
                    objects: g.objects.into_iter().map(|o| (o.index, o.data)).collect(),
                });
                if self.gcol_bytes.saturating_add(size) > limits::MAX_WALK_GLOBAL_HEAP_CACHE {
                    for c in self.gcols.values_mut().flatten() {
                        *c = None;
                    }
                    self.gcol_bytes = 0;
                }
                self.gcol_bytes += size;
                self.gcols.insert(addr.0, Some(Some(g.clone())));
                Some(g)
            }
            Err(e) => {
                self.error(e, GCOL, addr.0, path);
                self.gcols.insert(addr.0, None);
                None
            }
        }
    }

    /// Object `index` of the global heap collection at `addr` (referenced at `at`); `None`
    /// with a problem when the collection is bad or lacks the object.
    pub(crate) fn global_heap_object(
        &mut self,
        addr: Addr,
        index: u32,
        at: u64,
        path: &str,
    ) -> Option<Vec<u8>> {
        if addr.0 >= self.eoa.min(self.data_end) && !addr.is_undef() {
            self.problem(
                "global heap ID",
                at,
                format!(
                    "collection address {addr} is past the end of file ({:#x}) (in {path})",
                    self.eoa
                ),
            );
            return None;
        }
        let g = self.global_heap_collection(addr, path)?;
        let found = u16::try_from(index).ok().and_then(|i| g.objects.get(&i));
        match found {
            Some(o) => Some(o.clone()),
            None => {
                self.problem(
                    GCOL,
                    addr.0,
                    format!(
                        "no object {index} in the collection (referenced at {at:#x}) (in {path})"
                    ),
                );
                None
            }
        }
    }
}
