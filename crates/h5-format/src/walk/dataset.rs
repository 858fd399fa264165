//! Datasets: the layout against the dataspace and datatype, and every chunk of every chunk
//! index (version 1 B-tree, single chunk, implicit, fixed array, extensible array, version 2
//! B-tree): each chunk's address and size inside the end of file, its coordinates inside
//! the dataspace.

use std::cell::Cell;

use super::data::{element_refs, ElementRefs, Place};
use super::{check_dataspace, Decoded, Walker};
use crate::btree::v1::Keys;
use crate::btree::v2::Record;
use crate::chunk_index::extensible_array::{
    DataBlock, ExtensibleArrayHeader, IndexBlock, SecondaryBlock,
};
use crate::chunk_index::fixed_array::{FixedArrayDataBlock, FixedArrayHeader};
use crate::chunk_index::{btree_v2, BlockElements, ChunkElement};
use crate::message::dataspace::{Dataspace, DataspaceKind, UNLIMITED};
use crate::message::datatype::{disk_size, DatatypeMessage};
use crate::message::filter_pipeline::FilterPipeline;
use crate::message::layout::{ChunkIndex, Layout, LayoutClass};
use crate::message::Message;
use crate::vds::VirtualMappings;
use crate::{limits, Addr, Cursor};

const LAYOUT: &str = "data layout message";
const CHUNK: &str = "chunk";
const TREE: &str = "v1 B-tree node";
const FAHD: &str = "fixed array header";
const FADB: &str = "fixed array data block";
const EAHD: &str = "extensible array header";
const EAIB: &str = "extensible array index block";
const EASB: &str = "extensible array secondary block";
const EADB: &str = "extensible array data block";

/// What the chunks of one dataset must satisfy.
struct Chunks<'p> {
    path: &'p str,
    /// Current dimensions.
    dims: Vec<u64>,
    /// Chunk dimensions (without the element size).
    chunk: Vec<u64>,
    /// Bytes of an unfiltered chunk.
    chunk_bytes: u64,
    filtered: bool,
    /// Where an element holds heap IDs or references, when it does: the chunks are read.
    refs: Option<&'p ElementRefs<'p>>,
    /// The filters, to decode filtered chunks.
    pipeline: Option<&'p FilterPipeline>,
    /// Set once a note said the filtered chunks are not read.
    noted: Cell<bool>,
}

impl Chunks<'_> {
    /// Chunks per dimension over the maximum dimensions (current ones where unlimited).
    fn grid(&self, max: &[u64]) -> Option<Vec<u64>> {
        self.dims
            .iter()
            .zip(&self.chunk)
            .enumerate()
            .map(|(i, (&d, &c))| {
                let m = max.get(i).copied().filter(|&m| m != UNLIMITED).unwrap_or(d);
                (c > 0).then(|| m.max(d).div_ceil(c))
            })
            .collect()
    }
}

impl Walker<'_> {
    pub(crate) fn dataset(
        &mut self,
        d: &Decoded,
        at: u64,
        layout: &Layout,
        space: &Dataspace,
        dt: &DatatypeMessage,
    ) {
        let path = d.path.as_str();
        check_dataspace(self, "dataspace message", at, space, path);
        let elem = disk_size(&dt.datatype, self.sizes);
        let Some(n) = space.num_elements() else {
            self.problem(
                LAYOUT,
                at,
                format!("the dataspace's element count overflows (in {path})"),
            );
            return;
        };
        let need = n.checked_mul(elem);
        let refs = element_refs(&dt.datatype, self.sizes);
        let place = Place {
            at,
            path,
            in_file: false,
        };
        match &layout.class {
            LayoutClass::Compact { data, .. } => {
                if need != Some(data.len() as u64) {
                    self.problem(
                        LAYOUT,
                        at,
                        format!(
                            "compact data of {} bytes for {n} elements of {elem} bytes (in {path})",
                            data.len()
                        ),
                    );
                }
                if let Some(er) = &refs {
                    if self.data_budget(data.len() as u64) {
                        self.scan_elements(data, n, er, place, 0);
                    }
                }
            }
            LayoutClass::Contiguous {
                address,
                size,
                dims,
            } => {
                if address.is_undef() {
                    return;
                }
                let size = match size {
                    Some(s) => Some(*s),
                    None => dims
                        .iter()
                        .try_fold(1u64, |a, &x| a.checked_mul(u64::from(x))),
                };
                let Some(size) = size else {
                    self.problem(LAYOUT, at, format!("storage size overflows (in {path})"));
                    return;
                };
                if need.is_none_or(|need| size < need) {
                    self.problem(
                        LAYOUT,
                        at,
                        format!(
                            "contiguous storage of {size} bytes for {n} elements of {elem} bytes (in {path})"
                        ),
                    );
                }
                self.budget();
                if self.check_range(LAYOUT, *address, size, "contiguous data", path) {
                    if let (Some(er), Some(need)) = (&refs, need) {
                        self.scan_storage(*address, need.min(size), er, path);
                    }
                }
            }
            LayoutClass::Chunked {
                dims: cdims,
                index,
                address,
                ..
            } => {
                let rank = match space.kind {
                    DataspaceKind::Simple => space.dims.len(),
                    _ => 0,
                };
                if cdims.len() != rank + 1 {
                    self.problem(
                        LAYOUT,
                        at,
                        format!(
                            "chunks of rank {} for a dataspace of rank {rank} (in {path})",
                            cdims.len().saturating_sub(1)
                        ),
                    );
                    return;
                }
                let chunk = cdims[..rank].to_vec();
                if chunk.contains(&0) {
                    self.problem(LAYOUT, at, format!("a chunk dimension is 0 (in {path})"));
                    return;
                }
                let chunk_bytes = chunk
                    .iter()
                    .try_fold(elem, |a, &c| a.checked_mul(c))
                    .filter(|&b| b <= limits::MAX_CHUNK_BYTES);
                let Some(chunk_bytes) = chunk_bytes else {
                    self.problem(
                        LAYOUT,
                        at,
                        format!("chunks are larger than 4 GiB (in {path})"),
                    );
                    return;
                };
                let pipeline = d.messages.iter().find_map(|(_, m)| match m {
                    Message::FilterPipeline(p) if !p.filters.is_empty() => Some(p),
                    _ => None,
                });
                let c = Chunks {
                    path,
                    dims: space.dims.clone(),
                    chunk,
                    chunk_bytes,
                    filtered: pipeline.is_some(),
                    refs: refs.as_ref(),
                    pipeline,
                    noted: Cell::new(false),
                };
                if address.is_undef() {
                    return;
                }
                let max = space.max_dims.clone().unwrap_or_else(|| space.dims.clone());
                match index {
                    None => self.chunk_btree(*address, None, 0, &c),
                    Some(ChunkIndex::SingleChunk { filtered }) => {
                        let (size, mask) = filtered.unwrap_or((c.chunk_bytes, 0));
                        self.budget();
                        if self.check_range(CHUNK, *address, size, "single chunk", path) {
                            self.chunk_data(*address, size, mask, &c);
                        }
                    }
                    Some(ChunkIndex::Implicit) => {
                        let total = c
                            .grid(&max)
                            .and_then(|g| g.iter().try_fold(1u64, |a, &x| a.checked_mul(x)))
                            .and_then(|n| n.checked_mul(c.chunk_bytes));
                        match total {
                            Some(t) => {
                                self.budget();
                                let ok = self.check_range(
                                    CHUNK,
                                    *address,
                                    t,
                                    "implicitly indexed chunks",
                                    path,
                                );
                                if let (true, Some(er)) = (ok, &refs) {
                                    self.scan_storage(*address, t, er, path);
                                }
                            }
                            None => self.problem(
                                LAYOUT,
                                at,
                                format!("chunk storage size overflows (in {path})"),
                            ),
                        }
                    }
                    Some(ChunkIndex::FixedArray { .. }) => self.fixed_array(*address, &c, &max),
                    Some(ChunkIndex::ExtensibleArray { .. }) => self.extensible_array(*address, &c),
                    Some(ChunkIndex::BTreeV2 { .. }) => self.chunk_btree_v2(*address, &c),
                }
            }
            LayoutClass::Virtual {
                heap_address,
                heap_index,
            } => {
                if heap_address.is_undef() {
                    return;
                }
                let Some(obj) = self.global_heap_object(*heap_address, *heap_index, at, path)
                else {
                    return;
                };
                let mut cur = Cursor::new(&obj, heap_address.0, self.sizes);
                if let Err(e) = VirtualMappings::parse(&mut cur) {
                    self.error(e, "virtual dataset mappings", heap_address.0, path);
                }
            }
        }
    }

    /// One chunk: inside the end of file, and (when its offset is known) on the chunk grid
    /// and inside the dataspace.
    #[allow(clippy::too_many_arguments)]
    fn chunk(
        &mut self,
        structure: &'static str,
        from: u64,
        addr: Addr,
        size: u64,
        offset: Option<&[u64]>,
        filter_mask: u32,
        c: &Chunks,
    ) {
        if !self.budget() {
            return;
        }
        if addr.is_undef() {
            return;
        }
        if size == 0 {
            self.problem(
                structure,
                from,
                format!("chunk at {addr} has size 0 (in {})", c.path),
            );
        }
        if size > limits::MAX_CHUNK_BYTES {
            self.problem(
                structure,
                from,
                format!(
                    "chunk at {addr} has size {size}, above 4 GiB (in {})",
                    c.path
                ),
            );
        }
        if self.check_range(CHUNK, addr, size, "chunk", c.path) {
            self.chunk_data(addr, size, filter_mask, c);
        }
        if let Some(off) = offset {
            for (i, (&o, (&dim, &ch))) in off.iter().zip(c.dims.iter().zip(&c.chunk)).enumerate() {
                if o % ch != 0 || o >= dim.max(1).div_ceil(ch).saturating_mul(ch) {
                    self.problem(
                        structure,
                        from,
                        format!(
                            "chunk at {addr}: offset {o} in dimension {i} is not a chunk of the {dim}-element dimension (chunks of {ch}) (in {})",
                            c.path
                        ),
                    );
                    break;
                }
            }
        }
    }

    /// The heap IDs and references in one chunk (inside the file), decoding it first when
    /// the dataset has filters and the options say how.
    fn chunk_data(&mut self, addr: Addr, size: u64, filter_mask: u32, c: &Chunks) {
        let Some(er) = c.refs else { return };
        if self.data_exhausted {
            return;
        }
        let decoder = self.opts.decode_chunk;
        let (Some(p), Some(dec)) = (c.pipeline, decoder) else {
            if c.filtered {
                if !c.noted.replace(true) {
                    self.report.notes.push(format!(
                        "{}: filtered chunks are not decoded, so the variable-length values and references in them are not checked",
                        c.path
                    ));
                }
                return;
            }
            if !self.data_budget(size) {
                return;
            }
            if let Ok(b) = self.bytes(CHUNK, addr, size) {
                let n = c.chunk_bytes / er.size().max(1);
                self.scan_elements(
                    &b,
                    n,
                    er,
                    Place {
                        at: addr.0,
                        path: c.path,
                        in_file: true,
                    },
                    0,
                );
            }
            return;
        };
        if !self.data_budget(size.saturating_add(c.chunk_bytes)) {
            return;
        }
        let Ok(b) = self.bytes(CHUNK, addr, size) else {
            return;
        };
        match (dec.0)(p, filter_mask, b.into_owned(), c.chunk_bytes as usize) {
            Ok(data) => {
                let n = c.chunk_bytes / er.size().max(1);
                self.scan_elements(
                    &data,
                    n,
                    er,
                    Place {
                        at: addr.0,
                        path: c.path,
                        in_file: false,
                    },
                    0,
                );
            }
            Err(e) => {
                if !c.noted.replace(true) {
                    self.report.notes.push(format!(
                        "{}: the chunk at {addr} does not decode ({e}); the variable-length values and references in such chunks are not checked",
                        c.path
                    ));
                }
            }
        }
    }

    /// The heap IDs and references in `size` bytes of whole elements at `addr` (inside the
    /// file), read in pieces.
    fn scan_storage(&mut self, addr: Addr, size: u64, er: &ElementRefs<'_>, path: &str) {
        const PIECE: u64 = 1 << 20;
        let step = (PIECE / er.size().max(1)).max(1) * er.size();
        let mut off = 0u64;
        while off < size && !self.data_exhausted {
            let len = step.min(size - off);
            if !self.data_budget(len) {
                return;
            }
            let at = Addr(addr.0 + off);
            let Ok(b) = self.bytes(LAYOUT, at, len) else {
                return;
            };
            let n = len / er.size().max(1);
            self.scan_elements(
                &b,
                n,
                er,
                Place {
                    at: at.0,
                    path,
                    in_file: true,
                },
                0,
            );
            off += len;
        }
    }

    /// A version 1 B-tree of chunks: node levels, key order, every chunk.
    fn chunk_btree(&mut self, addr: Addr, level: Option<u8>, depth: usize, c: &Chunks) {
        if depth > limits::MAX_BTREE_DEPTH {
            self.problem(
                TREE,
                addr.0,
                format!(
                    "the B-tree is deeper than {} (in {})",
                    limits::MAX_BTREE_DEPTH,
                    c.path
                ),
            );
            return;
        }
        let rank = c.dims.len();
        let Some(node) = self.v1_node(addr, Some(rank), c.path) else {
            return;
        };
        let Keys::Chunk(keys) = &node.keys else {
            self.problem(
                TREE,
                addr.0,
                format!("a group node in a chunk B-tree (in {})", c.path),
            );
            return;
        };
        if let Some(l) = level {
            if node.level != l {
                self.problem(
                    TREE,
                    addr.0,
                    format!(
                        "level {} where its parent implies {l} (in {})",
                        node.level, c.path
                    ),
                );
                return;
            }
        }
        let used = node.children.len();
        for w in keys[..used.min(keys.len())].windows(2) {
            if w[0].offsets >= w[1].offsets {
                self.problem(
                    TREE,
                    addr.0,
                    format!(
                        "keys out of order: {:?} before {:?} (in {})",
                        w[0].offsets, w[1].offsets, c.path
                    ),
                );
                break;
            }
        }
        for (i, &child) in node.children.iter().enumerate() {
            if node.level > 0 {
                self.chunk_btree(child, Some(node.level - 1), depth + 1, c);
            } else if let Some(k) = keys.get(i) {
                if child.is_undef() {
                    self.problem(
                        TREE,
                        addr.0,
                        format!("chunk {i} has the undefined address (in {})", c.path),
                    );
                    continue;
                }
                if k.offsets.last() != Some(&0) {
                    self.problem(
                        TREE,
                        addr.0,
                        format!(
                            "chunk key {:?} has a non-zero element offset (in {})",
                            k.offsets, c.path
                        ),
                    );
                }
                let off = &k.offsets[..rank.min(k.offsets.len())];
                let size = u64::from(k.chunk_size);
                self.chunk(TREE, addr.0, child, size, Some(off), k.filter_mask, c);
            }
        }
    }

    fn element(&mut self, structure: &'static str, from: u64, e: &ChunkElement, c: &Chunks) {
        let (addr, size, mask) = match *e {
            ChunkElement::Chunk(a) => (a, c.chunk_bytes, 0),
            ChunkElement::Filtered {
                address,
                chunk_size,
                filter_mask,
            } => (address, chunk_size, filter_mask),
        };
        if c.filtered != matches!(e, ChunkElement::Filtered { .. }) && !addr.is_undef() {
            self.problem(
                structure,
                from,
                format!(
                    "{} chunk element for a dataset {} filters (in {})",
                    if c.filtered {
                        "an unfiltered"
                    } else {
                        "a filtered"
                    },
                    if c.filtered { "with" } else { "without" },
                    c.path
                ),
            );
        }
        self.chunk(structure, from, addr, size, None, mask, c);
    }

    fn elements(&mut self, structure: &'static str, from: u64, els: &BlockElements, c: &Chunks) {
        match els {
            BlockElements::Inline(v) => {
                for e in v {
                    self.element(structure, from, e, c);
                }
            }
            BlockElements::Paged(pages) => {
                for e in pages.iter().flatten().flatten() {
                    self.element(structure, from, e, c);
                }
            }
        }
    }

    fn fixed_array(&mut self, addr: Addr, c: &Chunks, max: &[u64]) {
        if !self.budget() || !self.first_visit(FAHD, addr.0, c.path) {
            return;
        }
        let r = self
            .bytes(
                FAHD,
                addr,
                FixedArrayHeader::encoded_size(self.sizes) as u64,
            )
            .and_then(|b| FixedArrayHeader::parse(&mut self.cursor(&b, addr)));
        let h = match r {
            Ok(h) => h,
            Err(e) => return self.error(e, FAHD, addr.0, c.path),
        };
        let expected = c
            .grid(max)
            .and_then(|g| g.iter().try_fold(1u64, |a, &x| a.checked_mul(x)));
        if expected.is_some_and(|n| n != h.nelements) {
            self.problem(
                FAHD,
                addr.0,
                format!(
                    "{} elements for a dataset of {} chunks (in {})",
                    h.nelements,
                    expected.unwrap_or(0),
                    c.path
                ),
            );
        }
        if h.data_block.is_undef()
            || !self.budget()
            || !self.first_visit(FADB, h.data_block.0, c.path)
        {
            return;
        }
        let page = h.page_elements().map_or(0, |p| {
            p.saturating_mul(u64::from(h.element_size))
                .saturating_add(4)
        });
        let bound = (h.data_block_prefix_size(self.sizes) as u64)
            .saturating_add(h.npages().saturating_mul(page));
        let r = self
            .window(FADB, h.data_block, bound)
            .and_then(|b| FixedArrayDataBlock::parse(&mut self.cursor(&b, h.data_block), &h));
        match r {
            Ok(db) => {
                if db.header != addr {
                    self.problem(
                        FADB,
                        h.data_block.0,
                        format!(
                            "header address {} instead of {addr} (in {})",
                            db.header, c.path
                        ),
                    );
                }
                self.elements(FADB, h.data_block.0, &db.elements, c);
            }
            Err(e) => self.error(e, FADB, h.data_block.0, c.path),
        }
    }

    fn extensible_array(&mut self, addr: Addr, c: &Chunks) {
        if !self.budget() || !self.first_visit(EAHD, addr.0, c.path) {
            return;
        }
        let r = self
            .bytes(
                EAHD,
                addr,
                ExtensibleArrayHeader::encoded_size(self.sizes) as u64,
            )
            .and_then(|b| ExtensibleArrayHeader::parse(&mut self.cursor(&b, addr)));
        let h = match r {
            Ok(h) => h,
            Err(e) => return self.error(e, EAHD, addr.0, c.path),
        };
        let g = match h.geometry() {
            Ok(g) => g,
            Err(e) => return self.error(e, EAHD, addr.0, c.path),
        };
        if h.index_block.is_undef()
            || !self.budget()
            || !self.first_visit(EAIB, h.index_block.0, c.path)
        {
            return;
        }
        let o = u64::from(self.sizes.offset);
        let es = u64::from(h.element_size);
        let blocks = (g.index_block_data_blocks as u64)
            .saturating_add(g.index_block_secondary_blocks as u64);
        let bound = (32 + o * 2 + u64::from(h.index_block_elements) * es)
            .saturating_add(blocks.saturating_mul(o));
        let r = self
            .window(EAIB, h.index_block, bound)
            .and_then(|b| IndexBlock::parse(&mut self.cursor(&b, h.index_block), &h));
        let ib = match r {
            Ok(ib) => ib,
            Err(e) => return self.error(e, EAIB, h.index_block.0, c.path),
        };
        if ib.header != addr {
            self.problem(
                EAIB,
                h.index_block.0,
                format!(
                    "header address {} instead of {addr} (in {})",
                    ib.header, c.path
                ),
            );
        }
        for e in &ib.elements {
            self.element(EAIB, h.index_block.0, e, c);
        }
        let block_bound = |n: u64| -> u64 {
            let pages = if n > g.page_elements {
                n / g.page_elements.max(1)
            } else {
                0
            };
            (32 + o * 2)
                .saturating_add(n.saturating_mul(es))
                .saturating_add(pages.saturating_mul(4))
        };
        for (i, &a) in ib.data_blocks.iter().enumerate() {
            let Some(n) = g.index_data_block_elements(i) else {
                continue;
            };
            if a.is_undef() || !self.budget() || !self.first_visit(EADB, a.0, c.path) {
                continue;
            }
            let r = self
                .window(EADB, a, block_bound(n))
                .and_then(|b| DataBlock::parse(&mut self.cursor(&b, a), &h, n, &|_| true));
            match r {
                Ok(db) => {
                    if db.header != addr {
                        self.problem(
                            EADB,
                            a.0,
                            format!(
                                "header address {} instead of {addr} (in {})",
                                db.header, c.path
                            ),
                        );
                    }
                    self.elements(EADB, a.0, &db.elements, c);
                }
                Err(e) => self.error(e, EADB, a.0, c.path),
            }
        }
        for (i, &a) in ib.secondary_blocks.iter().enumerate() {
            let s = g.index_block_super_blocks + i;
            let Some(info) = g.super_blocks.get(s).copied() else {
                continue;
            };
            if a.is_undef() || !self.budget() || !self.first_visit(EASB, a.0, c.path) {
                continue;
            }
            let sb_bound = (32 + o * 2).saturating_add(info.data_blocks.saturating_mul(o + 8));
            let r = self
                .window(EASB, a, sb_bound)
                .and_then(|b| SecondaryBlock::parse(&mut self.cursor(&b, a), &h, s));
            let sb = match r {
                Ok(sb) => sb,
                Err(e) => {
                    self.error(e, EASB, a.0, c.path);
                    continue;
                }
            };
            if sb.header != addr {
                self.problem(
                    EASB,
                    a.0,
                    format!(
                        "header address {} instead of {addr} (in {})",
                        sb.header, c.path
                    ),
                );
            }
            let n = info.data_block_elements;
            let pages = g.pages_per_data_block(s);
            for (di, &da) in sb.data_blocks.iter().enumerate() {
                if da.is_undef() || !self.budget() || !self.first_visit(EADB, da.0, c.path) {
                    continue;
                }
                let init = |p: usize| sb.page_initialized(di, p, pages);
                let r = self
                    .window(EADB, da, block_bound(n))
                    .and_then(|b| DataBlock::parse(&mut self.cursor(&b, da), &h, n, &init));
                match r {
                    Ok(db) => {
                        if db.header != addr {
                            self.problem(
                                EADB,
                                da.0,
                                format!(
                                    "header address {} instead of {addr} (in {})",
                                    db.header, c.path
                                ),
                            );
                        }
                        self.elements(EADB, da.0, &db.elements, c);
                    }
                    Err(e) => self.error(e, EADB, da.0, c.path),
                }
            }
        }
    }

    fn chunk_btree_v2(&mut self, addr: Addr, c: &Chunks) {
        let types = [btree_v2::RECORD_CHUNK, btree_v2::RECORD_FILTERED_CHUNK];
        let Some((h, records)) = self.v2_btree(addr, &types, c.path) else {
            return;
        };
        if let Err(e) = btree_v2::check_header(&h, self.sizes, c.dims.len()) {
            return self.error(e, "v2 B-tree header", addr.0, c.path);
        }
        if c.filtered != (h.record_type == btree_v2::RECORD_FILTERED_CHUNK) {
            self.problem(
                "v2 B-tree header",
                addr.0,
                format!(
                    "record type {} does not match the dataset's filters (in {})",
                    h.record_type, c.path
                ),
            );
        }
        for r in &records {
            let (a, size, mask, scaled) = match r {
                Record::Chunk { address, scaled } => (*address, c.chunk_bytes, 0, scaled),
                Record::FilteredChunk {
                    address,
                    chunk_size,
                    filter_mask,
                    scaled,
                    ..
                } => (*address, *chunk_size, *filter_mask, scaled),
                _ => continue,
            };
            let offsets: Vec<u64> = scaled
                .iter()
                .zip(&c.chunk)
                .map(|(&s, &ch)| s.saturating_mul(ch))
                .collect();
            self.chunk("v2 B-tree node", addr.0, a, size, Some(&offsets), mask, c);
        }
    }
}
