//! The validation pass: a whole-file walk over every structure reachable from the superblock.
//!
//! Parsing (the rest of this crate) checks structure and checksums; this walk checks meaning:
//! addresses inside the end of file, ordered B-tree keys, consistent node levels, heap offsets
//! inside their blocks, and datasets whose dataspace, datatype and layout agree. It visits the
//! superblock (and its extension and driver information), then every object header reachable
//! through groups (symbol tables, compact and dense links), each header's messages and
//! continuation chunks, attributes (compact and dense), datasets' storage (compact data,
//! contiguous blocks, every chunk of every chunk index) and committed datatypes; the
//! free-space managers of the file (File Space Info message) and of fractal heaps; the shared
//! message table with every record of its lists and B-trees; and what the data refers to:
//! global heap collections behind variable-length values and region references, and the
//! object headers that object references point at.
//!
//! The file is a byte slice ([`walk`]) or any [`Storage`] ([`walk_storage`]).
//! Every problem is collected as a [`Problem`] (the structure, its address, what is wrong)
//! instead of stopping at the first; a structure that fails to parse is one problem and what
//! hangs below it is skipped. Each structure is visited once: loops are reported, not followed.
//! The work is bounded by [`limits::MAX_WALK_OBJECTS`], [`limits::MAX_WALK_STRUCTURES`],
//! [`limits::MAX_WALK_DEPTH`], [`limits::MAX_WALK_DATA_BYTES`] (raw data read to find heap IDs
//! and references) and [`limits::MAX_WALK_REFERENCES`] (heap IDs and references followed).

mod data;
mod dataset;
mod free_space;
mod group;
mod heap;
mod sohm;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::rc::Rc;

use crate::driver_info::{DriverData, DriverInfoBlock};
use crate::message::attribute::{Attribute, MaybeShared};
use crate::message::dataspace::{Dataspace, DataspaceKind};
use crate::message::datatype::{disk_size, DatatypeMessage};
use crate::message::filter_pipeline::FilterPipeline;
use crate::message::shared::SharedLocation;
use crate::message::{Message, MessageType};
use crate::object_header::{ObjectHeader, RawMessage, OHDR};
use crate::storage::{Fetch, Storage};
use crate::superblock::{self, Superblock, SuperblockExtension};
use crate::{limits, Addr, Cursor, Error, ErrorKind, Result, Sizes};
use h5_types::Datatype;

/// One thing wrong in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The structure at fault ("object header", "v1 B-tree node", "data layout message"...).
    pub structure: &'static str,
    /// Its address (relative to the base address, as addresses in the file are).
    pub address: u64,
    /// What is wrong, with the object's path when known.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at {:#x}: {}",
            self.structure, self.address, self.message
        )
    }
}

/// What a walk found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Everything wrong, in the order found (at most [`limits::MAX_WALK_PROBLEMS`]).
    pub problems: Vec<Problem>,
    /// Problems found beyond those kept.
    pub dropped_problems: usize,
    /// Object headers visited.
    pub objects: usize,
    /// Other structures visited (B-tree nodes, heap blocks, chunk index blocks, chunks...).
    pub structures: usize,
    /// Remarks that are not problems: parts of the file the walk did not check, and why.
    pub notes: Vec<String>,
    /// Absolute offset of the superblock's signature, when found.
    pub superblock_offset: Option<u64>,
}

impl Report {
    /// Whether no problem was found.
    pub fn is_sound(&self) -> bool {
        self.problems.is_empty() && self.dropped_problems == 0
    }
}

/// Caps on the work of a walk, and how to decode filtered chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Most object headers visited.
    pub max_objects: usize,
    /// Most other structures visited.
    pub max_structures: usize,
    /// Deepest group nesting followed.
    pub max_depth: usize,
    /// Most bytes of raw data (compact, contiguous and chunked storage, attributes) read to
    /// find variable-length values and references.
    pub max_data_bytes: u64,
    /// Most heap IDs and references followed.
    pub max_references: usize,
    /// Decodes filtered chunks, so the variable-length values and references inside them are
    /// checked too (filters are not part of this crate). Without it, filtered chunks of such
    /// datasets are only checked to lie inside the file.
    pub decode_chunk: Option<ChunkDecoder>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_objects: limits::MAX_WALK_OBJECTS,
            max_structures: limits::MAX_WALK_STRUCTURES,
            max_depth: limits::MAX_WALK_DEPTH,
            max_data_bytes: limits::MAX_WALK_DATA_BYTES,
            max_references: limits::MAX_WALK_REFERENCES,
            decode_chunk: None,
        }
    }
}

/// A filtered chunk decoder: given the dataset's filter pipeline, the chunk's filter mask
/// (bit `i` set: filter `i` skipped), the stored bytes and the size of the unfiltered chunk,
/// it returns the unfiltered bytes, or why it cannot.
pub type DecodeFn =
    fn(&FilterPipeline, u32, Vec<u8>, usize) -> std::result::Result<Vec<u8>, String>;

/// A [`DecodeFn`] for [`Options::decode_chunk`].
#[derive(Clone, Copy)]
pub struct ChunkDecoder(pub DecodeFn);

impl fmt::Debug for ChunkDecoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ChunkDecoder")
    }
}

impl PartialEq for ChunkDecoder {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::fn_addr_eq(self.0, other.0)
    }
}

impl Eq for ChunkDecoder {}

/// Walk a file held in memory with the default [`Options`].
pub fn walk(data: &[u8]) -> Report {
    walk_with(data, &Options::default())
}

/// Walk a file held in memory.
pub fn walk_with(data: &[u8], opts: &Options) -> Report {
    Walker::new(Source::Slice(data), *opts).run()
}

/// Walk a file read through a [`Storage`] (a file on disk, an object store...), positioned
/// reads of what each structure needs: the file is never read whole.
pub fn walk_storage(storage: &dyn Storage, opts: &Options) -> Report {
    match storage.len() {
        Ok(len) => Walker::new(Source::Storage { storage, len }, *opts).run(),
        Err(e) => Report {
            problems: vec![Problem {
                structure: "file",
                address: 0,
                message: format!("cannot read the file's length: {e}"),
            }],
            ..Report::default()
        },
    }
}

/// Where the walk reads: borrowed bytes (no copy) or a storage.
#[derive(Clone, Copy)]
enum Source<'a> {
    Slice(&'a [u8]),
    Storage { storage: &'a dyn Storage, len: u64 },
}

impl<'a> Source<'a> {
    fn len(&self) -> u64 {
        match self {
            Source::Slice(d) => d.len() as u64,
            Source::Storage { len, .. } => *len,
        }
    }

    /// Bytes `off..off+len` (absolute), which the caller has checked lie inside the file.
    fn get(&self, off: u64, len: usize) -> Result<Cow<'a, [u8]>> {
        match self {
            Source::Slice(d) => {
                let s = usize::try_from(off).ok();
                s.and_then(|s| d.get(s..s.checked_add(len)?))
                    .map(Cow::Borrowed)
                    .ok_or_else(|| {
                        Error::new(ErrorKind::UnexpectedEof, "file", off, "read past the end")
                    })
            }
            Source::Storage { storage, .. } => storage
                .read_vec(off, len)
                .map(Cow::Owned)
                .map_err(|e| Error::new(ErrorKind::UnexpectedEof, "file", off, e.to_string())),
        }
    }
}

/// The walk's reads by address: inside the end of file address and the file's data.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    src: Source<'a>,
    base: u64,
    sizes: Sizes,
    eoa: u64,
    data_end: u64,
}

impl<'a> Reader<'a> {
    /// Exactly `len` bytes at address `addr` (inside the end of file and the file's data).
    fn bytes(&self, structure: &'static str, addr: Addr, len: u64) -> Result<Cow<'a, [u8]>> {
        let a = addr.get().ok_or_else(|| {
            Error::without_offset(ErrorKind::BadAddress, structure, "the undefined address")
        })?;
        let end = a
            .checked_add(len)
            .filter(|&e| e <= self.eoa && e <= self.data_end);
        let Some(_) = end else {
            return Err(Error::new(
                ErrorKind::BadAddress,
                structure,
                a,
                format!(
                    "{len} bytes at {a:#x} run past the end of file ({:#x})",
                    self.eoa.min(self.data_end)
                ),
            ));
        };
        let len = usize::try_from(len).map_err(|_| {
            Error::new(
                ErrorKind::LimitExceeded,
                structure,
                a,
                "length does not fit in memory",
            )
        })?;
        self.src.get(self.base + a, len)
    }

    /// Up to `max` bytes at `addr`, fewer at the end of file; an error when `addr` itself is
    /// undefined or past the end.
    fn window(&self, structure: &'static str, addr: Addr, max: u64) -> Result<Cow<'a, [u8]>> {
        let a = addr.get().ok_or_else(|| {
            Error::without_offset(ErrorKind::BadAddress, structure, "the undefined address")
        })?;
        let limit = self.eoa.min(self.data_end);
        if a >= limit {
            return Err(Error::new(
                ErrorKind::BadAddress,
                structure,
                a,
                format!("address {a:#x} is past the end of file ({limit:#x})"),
            ));
        }
        let len = max.min(limit - a);
        self.bytes(structure, addr, len)
    }
}

impl Fetch for Reader<'_> {
    type Error = Error;

    fn sizes(&self) -> Sizes {
        self.sizes
    }

    fn fetch(&self, structure: &'static str, addr: Addr, len: u64) -> Result<Cow<'_, [u8]>> {
        self.bytes(structure, addr, len)
    }

    fn fetch_up_to(&self, structure: &'static str, addr: Addr, max: u64) -> Result<Cow<'_, [u8]>> {
        self.window(structure, addr, max)
    }
}

/// An object header waiting to be visited.
struct Pending {
    addr: u64,
    path: String,
    depth: usize,
    /// The B-tree and heap a symbol table entry caches for this group, to compare with its
    /// symbol table message.
    cached_stab: Option<(Addr, Addr)>,
}

/// The v1 B-tree 'K' values in force.
#[derive(Clone, Copy)]
struct BtreeK {
    group_leaf: u16,
    group_internal: u16,
    chunk_internal: u16,
}

pub(crate) struct Walker<'a> {
    src: Source<'a>,
    opts: Options,
    /// Absolute offset of address 0.
    base: u64,
    sizes: Sizes,
    /// The superblock's "End of File Address": every structure must end at or before it.
    eoa: u64,
    /// Bytes of the file from the base address on.
    data_end: u64,
    k: BtreeK,
    report: Report,
    headers: HashSet<u64>,
    /// Structures visited, by (kind, address): a second visit is a loop or a shared node.
    seen: HashSet<(&'static str, u64)>,
    queue: Vec<Pending>,
    /// The indexes of the shared message table.
    sohm: Vec<sohm::SohmIndex>,
    /// Set when a cap was reached (reported once).
    exhausted: bool,
    /// Global heap collections checked, by address: `None` for one that failed (already a
    /// problem), `Some(None)` for a sound one dropped from the cache.
    gcols: HashMap<u64, Option<Option<Rc<data::Gcol>>>>,
    /// Bytes of the collections cached in `gcols`.
    gcol_bytes: u64,
    /// Reference targets checked, by address: whether an object header parses there.
    targets: HashMap<u64, bool>,
    /// Raw data bytes read, and heap IDs and references followed, against their caps.
    data_bytes: u64,
    references: usize,
    /// Set when the data caps were reached (noted once).
    data_exhausted: bool,
    /// The file's free sections (address, size, section list), to compare with the
    /// structures in use once the walk is over.
    free_sections: Vec<(u64, u64, u64)>,
}

/// Decoded messages of one header, with the raw message each came from.
pub(crate) struct Decoded {
    pub(crate) addr: u64,
    pub(crate) path: String,
    pub(crate) depth: usize,
    pub(crate) messages: Vec<(RawMessage, Message)>,
    /// Types of the messages that failed to decode (each already a problem).
    pub(crate) failed: Vec<MessageType>,
}

impl Decoded {
    fn first<T>(&self, f: impl Fn(&Message) -> Option<&T>) -> Option<(&RawMessage, &T)> {
        self.messages.iter().find_map(|(r, m)| f(m).map(|t| (r, t)))
    }
}

impl<'a> Walker<'a> {
    fn new(src: Source<'a>, opts: Options) -> Self {
        Walker {
            src,
            opts,
            base: 0,
            sizes: Sizes::DEFAULT,
            eoa: src.len(),
            data_end: src.len(),
            k: BtreeK {
                group_leaf: 4,
                group_internal: 16,
                chunk_internal: 32,
            },
            report: Report::default(),
            headers: HashSet::new(),
            seen: HashSet::new(),
            queue: Vec::new(),
            sohm: Vec::new(),
            exhausted: false,
            gcols: HashMap::new(),
            gcol_bytes: 0,
            targets: HashMap::new(),
            data_bytes: 0,
            references: 0,
            data_exhausted: false,
            free_sections: Vec::new(),
        }
    }

    // ---- problems -------------------------------------------------------------------------

    pub(crate) fn problem(&mut self, structure: &'static str, address: u64, message: String) {
        if self.report.problems.len() >= limits::MAX_WALK_PROBLEMS {
            self.report.dropped_problems += 1;
            return;
        }
        self.report.problems.push(Problem {
            structure,
            address,
            message,
        });
    }

    /// Record a parse error; `structure` and `address` stand in when the error has none.
    pub(crate) fn error(&mut self, e: Error, structure: &'static str, address: u64, path: &str) {
        let s = if e.structure().is_empty() {
            structure
        } else {
            e.structure()
        };
        let mut message = format!("{}: {}", e.kind().describe(), e.message());
        if !path.is_empty() {
            message.push_str(&format!(" (in {path})"));
        }
        self.problem(s, e.offset().unwrap_or(address), message);
    }

    /// Count one structure against the cap; false (reported once) when the cap is reached.
    pub(crate) fn budget(&mut self) -> bool {
        self.report.structures += 1;
        if self.report.structures > self.opts.max_structures {
            if !self.exhausted {
                self.exhausted = true;
                self.report.notes.push(format!(
                    "stopped after {} structures (the walk's limit); the rest is not checked",
                    self.opts.max_structures
                ));
            }
            return false;
        }
        true
    }

    /// Mark a structure visited; report and return false when it already was.
    pub(crate) fn first_visit(&mut self, structure: &'static str, addr: u64, path: &str) -> bool {
        if self.seen.insert((structure, addr)) {
            return true;
        }
        self.problem(
            structure,
            addr,
            format!("reached a second time (a loop or a shared node) (in {path})"),
        );
        false
    }

    // ---- reading --------------------------------------------------------------------------

    /// Check that `len` bytes at `addr` lie inside the end of file; report when not.
    pub(crate) fn check_range(
        &mut self,
        structure: &'static str,
        addr: Addr,
        len: u64,
        what: &str,
        path: &str,
    ) -> bool {
        let Some(a) = addr.get() else {
            self.problem(
                structure,
                0,
                format!("{what} has the undefined address (in {path})"),
            );
            return false;
        };
        match a.checked_add(len) {
            Some(end) if end <= self.eoa => true,
            _ => {
                self.problem(
                    structure,
                    a,
                    format!(
                        "{what} of {len} bytes at {a:#x} runs past the end of file address {:#x} (in {path})",
                        self.eoa
                    ),
                );
                false
            }
        }
    }

    /// Exactly `len` bytes at address `addr` (inside the end of file and the file's data).
    pub(crate) fn bytes(
        &self,
        structure: &'static str,
        addr: Addr,
        len: u64,
    ) -> Result<Cow<'a, [u8]>> {
        self.reader().bytes(structure, addr, len)
    }

    /// Up to `max` bytes at `addr`, fewer at the end of file; an error when `addr` itself is
    /// undefined or past the end.
    pub(crate) fn window(
        &self,
        structure: &'static str,
        addr: Addr,
        max: u64,
    ) -> Result<Cow<'a, [u8]>> {
        self.reader().window(structure, addr, max)
    }

    /// The file as the navigators read it (a copy, so the walk can report while they read).
    pub(crate) fn reader(&self) -> Reader<'a> {
        Reader {
            src: self.src,
            base: self.base,
            sizes: self.sizes,
            eoa: self.eoa,
            data_end: self.data_end,
        }
    }

    pub(crate) fn cursor<'b>(&self, bytes: &'b [u8], addr: Addr) -> Cursor<'b> {
        Cursor::new(bytes, addr.0, self.sizes)
    }

    // ---- the walk -------------------------------------------------------------------------

    fn run(mut self) -> Report {
        self.superblock();
        while let Some(p) = self.queue.pop() {
            if self.report.objects >= self.opts.max_objects {
                self.report.notes.push(format!(
                    "stopped after {} objects (the walk's limit); the rest is not checked",
                    self.opts.max_objects
                ));
                break;
            }
            self.object(p);
        }
        self.free_space_in_use();
        self.report
    }

    fn superblock(&mut self) {
        let src = self.src;
        let found = superblock::find_signature(src.len(), |off, n| {
            let n = n.min(usize::try_from(src.len().saturating_sub(off)).unwrap_or(n));
            src.get(off, n).map(Cow::into_owned)
        });
        let at = match found {
            Ok(Some(at)) => at,
            Ok(None) => {
                self.problem(
                    "superblock",
                    0,
                    "no HDF5 format signature at 0, 512, 1024, 2048, ...".into(),
                );
                return;
            }
            Err(e) => return self.error(e, "superblock", 0, ""),
        };
        self.report.superblock_offset = Some(at);
        let n = 1024.min(src.len() - at) as usize;
        let bytes = match src.get(at, n) {
            Ok(b) => b,
            Err(e) => return self.error(e, "superblock", at, ""),
        };
        let sb = match Superblock::parse(&mut Cursor::new(&bytes, at, Sizes::DEFAULT)) {
            Ok(sb) => sb,
            Err(e) => return self.error(e, "superblock", at, ""),
        };
        self.sizes = sb.sizes;
        let base = sb.base_address.get().unwrap_or(at);
        if base > src.len() {
            self.problem(
                "superblock",
                at,
                format!("base address {base:#x} is past the end of the file"),
            );
            return;
        }
        if base != at {
            self.problem(
                "superblock",
                at,
                format!("base address {base:#x} differs from the superblock's offset {at:#x}"),
            );
        }
        self.base = base;
        self.data_end = src.len() - base;
        match sb.eof_address.get() {
            Some(eoa) => self.eoa = eoa,
            None => self.problem("superblock", at, "end of file address is undefined".into()),
        }
        if let Some(v0) = &sb.v0 {
            self.k.group_leaf = v0.group_leaf_node_k;
            self.k.group_internal = v0.group_internal_node_k;
            if let Some(k) = v0.indexed_storage_internal_node_k {
                self.k.chunk_internal = k;
            }
            if self.k.group_leaf == 0 || self.k.group_internal == 0 || self.k.chunk_internal == 0 {
                self.problem("superblock", at, "a B-tree K value is 0".into());
            }
            if let Some(d) = v0.driver_info_address.get() {
                if self.driver_info(Addr(d)) {
                    return;
                }
            }
        }
        if self.data_end < self.eoa {
            self.problem(
                "superblock",
                at,
                format!(
                    "the file is truncated: end of file address {:#x}, the file has {:#x} bytes after the base address",
                    self.eoa, self.data_end
                ),
            );
        }
        if let Some(ext) = sb.extension_address.get() {
            self.extension(Addr(ext));
        }
        let root = sb.root_object_header();
        let cached = sb.v0.as_ref().and_then(|v| match v.root_group.scratch {
            crate::symbol_table_entry::ScratchPad::Group {
                btree_address,
                heap_address,
            } => Some((btree_address, heap_address)),
            _ => None,
        });
        match root.get() {
            Some(r) => self.queue.push(Pending {
                addr: r,
                path: "/".into(),
                depth: 0,
                cached_stab: cached,
            }),
            None => self.problem(
                "superblock",
                at,
                "the root group's object header address is undefined".into(),
            ),
        }
    }

    /// The driver information block; true when the file is one member of a family or multi
    /// set, which this walk cannot follow.
    fn driver_info(&mut self, addr: Addr) -> bool {
        const S: &str = "driver information block";
        let r = self
            .window(S, addr, 4096)
            .and_then(|b| DriverInfoBlock::parse(&mut self.cursor(&b, addr)));
        match r {
            Ok(d) => match d.data {
                DriverData::Family { .. } | DriverData::Multi { .. } => {
                    self.report.notes.push(format!(
                        "the file is a member of a {} file set (driver {:?}); addresses span other files, so only the superblock was checked",
                        if matches!(d.data, DriverData::Family { .. }) { "family" } else { "multi" },
                        String::from_utf8_lossy(&d.driver_id)
                    ));
                    true
                }
                _ => false,
            },
            Err(e) => {
                self.error(e, S, addr.0, "");
                false
            }
        }
    }

    fn extension(&mut self, addr: Addr) {
        let Some(h) = self.header(addr.0, "superblock extension") else {
            return;
        };
        for raw in h.messages() {
            if raw.kind == MessageType(MDCI) {
                self.cache_image(raw);
            }
        }
        match SuperblockExtension::from_header(&h, self.sizes) {
            Ok(ext) => {
                if let Some(k) = ext.btree_k {
                    self.k = BtreeK {
                        group_leaf: k.group_leaf_k,
                        group_internal: k.group_internal_k,
                        chunk_internal: k.indexed_storage_internal_k,
                    };
                }
                if let Some(t) = ext.shared_table {
                    if !t.table_address.is_undef() {
                        self.sohm_table(t.table_address, t.num_indices);
                    }
                }
                if let Some(fs) = &ext.file_space_info {
                    let at = h
                        .messages()
                        .find(|m| m.kind == MessageType::FILE_SPACE_INFO)
                        .map_or(addr.0, |m| m.offset);
                    self.file_space_info(at, fs);
                }
            }
            Err(e) => self.error(e, "superblock extension", addr.0, "superblock extension"),
        }
    }

    /// The metadata cache image message (0x0018: version, address, length): the image must
    /// lie inside the file.
    fn cache_image(&mut self, raw: &RawMessage) {
        const S: &str = "metadata cache image message";
        let mut c = Cursor::new(&raw.data, raw.offset, self.sizes).in_structure(S);
        let r = (|| -> Result<(Addr, u64)> {
            c.read_u8()?;
            Ok((c.read_addr()?, c.read_len()?))
        })();
        match r {
            Ok((a, len)) => {
                if !a.is_undef() {
                    self.check_range(S, a, len, "metadata cache image", "superblock extension");
                }
            }
            Err(e) => self.error(e, S, raw.offset, "superblock extension"),
        }
    }

    /// Read and parse the object header at `addr`; a problem and `None` when it fails.
    fn header(&mut self, addr: u64, path: &str) -> Option<ObjectHeader> {
        const S: &str = "object header";
        let a = Addr(addr);
        let head = match self.window(S, a, 64) {
            Ok(b) => b,
            Err(e) => {
                self.error(e, S, addr, path);
                return None;
            }
        };
        let total = chunk0_len(&head).unwrap_or(head.len() as u64);
        let bytes = match self.window(S, a, total) {
            Ok(b) => b,
            Err(e) => {
                self.error(e, S, addr, path);
                return None;
            }
        };
        let me = &*self;
        let r = ObjectHeader::parse(&mut me.cursor(&bytes, a), |ca, len| {
            me.bytes(S, ca, len).map(Cow::into_owned)
        });
        match r {
            Ok(h) => Some(h),
            Err(e) => {
                self.error(e, S, addr, path);
                None
            }
        }
    }

    fn object(&mut self, p: Pending) {
        if !self.headers.insert(p.addr) {
            return;
        }
        self.report.objects += 1;
        let Some(h) = self.header(p.addr, &p.path) else {
            return;
        };
        let version = h.version();
        let mut messages = Vec::new();
        let mut failed = Vec::new();
        for raw in h.messages() {
            if raw.kind == MessageType::NIL {
                continue;
            }
            match raw.decode(self.sizes) {
                Ok(m) => messages.push((raw.clone(), m)),
                Err(e) => {
                    failed.push(raw.kind);
                    let path = format!("the {} message of {}", raw.kind, p.path);
                    self.error(e, "header message", raw.offset, &path)
                }
            }
            if version == 1 && raw.kind == MessageType::REFCOUNT {
                self.problem(
                    "object header",
                    p.addr,
                    format!(
                        "a version 1 object header holds a reference count message (in {})",
                        p.path
                    ),
                );
            }
        }
        // (A version 1 header whose stored message count is wrong is accepted, as the
        // reference library accepts it: old library versions wrote wrong counts.)
        let d = Decoded {
            addr: p.addr,
            path: p.path,
            depth: p.depth,
            messages,
            failed,
        };
        self.messages(&d, p.cached_stab);
    }

    /// The meaning of one header's messages.
    fn messages(&mut self, d: &Decoded, cached_stab: Option<(Addr, Addr)>) {
        for (raw, m) in &d.messages {
            match m {
                Message::Shared { kind, shared } => self.shared(raw, *kind, shared.location, d),
                Message::Attribute(a) => self.attribute(raw.offset, a, &d.path),
                Message::Datatype(t) => {
                    check_datatype(self, "datatype message", raw.offset, &t.datatype, &d.path)
                }
                _ => {}
            }
        }
        self.group(d, cached_stab);
        let dspace = d.first(|m| match m {
            Message::Dataspace(s) => Some(s),
            _ => None,
        });
        let layout = d.first(|m| match m {
            Message::Layout(l) => Some(l),
            _ => None,
        });
        let dtype = self.datatype_of(d);
        if let Some((lraw, layout)) = layout {
            // A message present in the header, decoded or not (shared in the shared message
            // heap, or failed to decode, which is already a problem).
            let present = |k: MessageType| {
                d.failed.contains(&k) || d.messages.iter().any(|(r, _)| r.kind == k)
            };
            match (dspace, &dtype) {
                (Some((_, space)), Some(dt)) => {
                    self.dataset(d, lraw.offset, layout, space, dt);
                }
                _ => {
                    for (k, name) in [
                        (MessageType::DATASPACE, "dataspace"),
                        (MessageType::DATATYPE, "datatype"),
                    ] {
                        if !present(k) {
                            self.problem(
                                "object header",
                                d.addr,
                                format!(
                                    "a dataset's header lacks its {name} message (in {})",
                                    d.path
                                ),
                            );
                        }
                    }
                }
            }
        }
        // Fill values: their size is the datatype's.
        if let Some(dt) = dtype {
            let size = disk_size(&dt.datatype, self.sizes);
            for (raw, m) in &d.messages {
                let v = match m {
                    Message::FillValue(f) => f.value.as_ref(),
                    Message::FillValueOld(f) if !f.value.is_empty() => Some(&f.value),
                    _ => None,
                };
                if let Some(v) = v {
                    if v.len() as u64 != size && !v.is_empty() {
                        self.problem(
                            "fill value message",
                            raw.offset,
                            format!(
                                "fill value of {} bytes for a datatype of {size} bytes (in {})",
                                v.len(),
                                d.path
                            ),
                        );
                    }
                }
            }
        }
    }

    /// The header's datatype, inline or committed (shared in another header).
    fn datatype_of(&mut self, d: &Decoded) -> Option<DatatypeMessage> {
        for (_, m) in &d.messages {
            match m {
                Message::Datatype(t) => return Some(t.clone()),
                Message::Shared {
                    kind: MessageType::DATATYPE,
                    shared,
                } => {
                    return match shared.location {
                        SharedLocation::Committed(a) => self.committed_datatype(a),
                        SharedLocation::Heap(id) => {
                            match self.sohm_message(MessageType::DATATYPE, &id, 0, &d.path) {
                                Some(Ok(Message::Datatype(t))) => Some(t),
                                _ => None,
                            }
                        }
                    };
                }
                _ => {}
            }
        }
        None
    }

    /// Parse the object header at `a` without reporting (the header itself is checked when
    /// visited).
    pub(crate) fn parse_header_quietly(&self, a: Addr) -> Result<ObjectHeader> {
        let bytes = self.window("object header", a, 64)?;
        let total = chunk0_len(&bytes).ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidValue,
                "object header",
                a.0,
                "neither a version 1 nor a version 2 object header prefix",
            )
        })?;
        let bytes = self.window("object header", a, total)?;
        ObjectHeader::parse(&mut self.cursor(&bytes, a), |ca, len| {
            self.bytes("object header", ca, len).map(Cow::into_owned)
        })
    }

    /// The datatype message of a committed datatype's header (parsed quietly: the header
    /// itself is checked when visited).
    fn committed_datatype(&mut self, a: Addr) -> Option<DatatypeMessage> {
        let h = self.parse_header_quietly(a).ok()?;
        let found = h
            .messages()
            .filter(|m| {
                m.kind == MessageType::DATATYPE
                    && !m.flags.has(crate::message::MessageFlags::SHARED)
            })
            .find_map(|m| match m.decode(self.sizes) {
                Ok(Message::Datatype(t)) => Some(t),
                _ => None,
            });
        found
    }

    /// A message stored elsewhere: in a committed object's header (visited) or in the shared
    /// message heap (whose address must be inside the file).
    fn shared(&mut self, raw: &RawMessage, kind: MessageType, loc: SharedLocation, d: &Decoded) {
        match loc {
            SharedLocation::Committed(a) => {
                if !self.check_range(
                    "shared message",
                    a,
                    1,
                    &format!("{kind} object header"),
                    &d.path,
                ) {
                    return;
                }
                self.enqueue(
                    a.0,
                    format!("{} (committed {kind})", d.path),
                    d.depth + 1,
                    None,
                    raw.offset,
                );
            }
            SharedLocation::Heap(id) => match self.sohm_message(kind, &id, raw.offset, &d.path) {
                Some(Ok(Message::Datatype(t))) => {
                    check_datatype(self, "datatype message", raw.offset, &t.datatype, &d.path);
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => self.error(e, "shared message", raw.offset, &d.path),
                None => {}
            },
        }
    }

    pub(crate) fn enqueue(
        &mut self,
        addr: u64,
        path: String,
        depth: usize,
        cached_stab: Option<(Addr, Addr)>,
        from: u64,
    ) {
        if depth > self.opts.max_depth {
            self.problem(
                "link",
                from,
                format!(
                    "groups nest deeper than {} (in {path})",
                    self.opts.max_depth
                ),
            );
            return;
        }
        if self.headers.contains(&addr) {
            return;
        }
        self.queue.push(Pending {
            addr,
            path,
            depth,
            cached_stab,
        });
    }

    /// An attribute: its data is as large as its dataspace times its datatype.
    pub(crate) fn attribute(&mut self, at: u64, a: &Attribute, path: &str) {
        // A datatype or dataspace shared elsewhere is resolved quietly: its own problems are
        // reported where it is stored.
        let dt = match &a.datatype {
            MaybeShared::Inline(dt) => Cow::Borrowed(dt),
            MaybeShared::Shared(s) => match s.location {
                SharedLocation::Committed(c) => match self.committed_datatype(c) {
                    Some(t) => Cow::Owned(t),
                    None => return,
                },
                SharedLocation::Heap(id) => {
                    match self.sohm_message(MessageType::DATATYPE, &id, at, path) {
                        Some(Ok(Message::Datatype(t))) => Cow::Owned(t),
                        _ => return,
                    }
                }
            },
        };
        let space = match &a.dataspace {
            MaybeShared::Inline(s) => Cow::Borrowed(s),
            MaybeShared::Shared(s) => match s.location {
                SharedLocation::Heap(id) => {
                    match self.sohm_message(MessageType::DATASPACE, &id, at, path) {
                        Some(Ok(Message::Dataspace(d))) => Cow::Owned(d),
                        _ => return,
                    }
                }
                SharedLocation::Committed(_) => return,
            },
        };
        let name = String::from_utf8_lossy(&a.name);
        check_datatype(self, "attribute message", at, &dt.datatype, path);
        let Some(n) = space.num_elements() else {
            self.problem(
                "attribute message",
                at,
                format!("attribute {name:?}: element count overflows (in {path})"),
            );
            return;
        };
        let need = n.checked_mul(disk_size(&dt.datatype, self.sizes));
        if need.is_none_or(|need| (a.data.len() as u64) < need) {
            self.problem(
                "attribute message",
                at,
                format!(
                    "attribute {name:?}: {} bytes of data for {n} elements of {} bytes (in {path})",
                    a.data.len(),
                    disk_size(&dt.datatype, self.sizes)
                ),
            );
        }
        check_dataspace(self, "attribute message", at, &space, path);
        if let Some(er) = data::element_refs(&dt.datatype, self.sizes) {
            if self.data_budget(a.data.len() as u64) {
                let where_ = format!("{path}, attribute {name:?}");
                let place = data::Place {
                    at,
                    path: &where_,
                    in_file: false,
                };
                self.scan_elements(&a.data, n, &er, place, 0);
            }
        }
    }
}

/// Checks of a dataspace's own fields: maximum dimensions at least the current ones.
pub(crate) fn check_dataspace(
    w: &mut Walker<'_>,
    s: &'static str,
    at: u64,
    d: &Dataspace,
    path: &str,
) {
    if d.kind != DataspaceKind::Simple {
        return;
    }
    if let Some(max) = &d.max_dims {
        for (i, (&cur, &m)) in d.dims.iter().zip(max).enumerate() {
            if m != crate::message::dataspace::UNLIMITED && m < cur {
                w.problem(
                    s,
                    at,
                    format!("dimension {i}: size {cur} exceeds its maximum {m} (in {path})"),
                );
            }
        }
    }
}

/// Message type 0x0018, the metadata cache image (not one of the typed messages).
const MDCI: u16 = 0x18;

/// Datatypes the reference library refuses although they parse: compounds without members,
/// at any depth.
fn check_datatype(w: &mut Walker<'_>, s: &'static str, at: u64, dt: &Datatype, path: &str) {
    match dt {
        Datatype::Compound(c) => {
            if c.members().is_empty() {
                w.problem(
                    s,
                    at,
                    format!("a compound datatype without members (in {path})"),
                );
            }
            for m in c.members() {
                check_datatype(w, s, at, m.datatype(), path);
            }
        }
        Datatype::Array(a) => check_datatype(w, s, at, a.base(), path),
        Datatype::VarLen(v) => check_datatype(w, s, at, v.base(), path),
        _ => {}
    }
}

/// The length of an object header's chunk 0 (prefix and checksum included) from its first
/// bytes, when they say.
fn chunk0_len(b: &[u8]) -> Option<u64> {
    if b.starts_with(&OHDR) {
        let flags = *b.get(5)?;
        let mut at = 6usize;
        if flags & crate::object_header::FLAG_TIMES_STORED != 0 {
            at += 16;
        }
        if flags & crate::object_header::FLAG_ATTR_PHASE_CHANGE_STORED != 0 {
            at += 4;
        }
        let w = 1usize << (flags & 3);
        let mut size = 0u64;
        for i in 0..w {
            size |= u64::from(*b.get(at + i)?) << (8 * i);
        }
        (at as u64 + w as u64).checked_add(size)?.checked_add(4)
    } else {
        let s = b.get(8..12)?;
        let size = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
        Some(16 + u64::from(size))
    }
}
