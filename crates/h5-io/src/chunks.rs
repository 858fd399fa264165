//! Finding a dataset's chunks: every chunk index (version 1 B-tree, single chunk, implicit,
//! fixed array, extensible array, version 2 B-tree) answers "where is the chunk at these
//! scaled coordinates, how many bytes is it stored in, and which filters were skipped".

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use h5_format::btree::v1::{Keys, NodeType};
use h5_format::btree::v2::Record;
use h5_format::chunk_index::extensible_array::{
    DataBlock, ElementLocation, ExtensibleArrayHeader, Geometry, IndexBlock, SecondaryBlock,
};
use h5_format::chunk_index::fixed_array::{FixedArrayDataBlock, FixedArrayHeader};
use h5_format::chunk_index::{BlockElements, ChunkElement};
use h5_format::message::layout::ChunkIndex;
use h5_format::{limits, Addr};

use h5_format::message::layout::LayoutClass;

use crate::dataset::Dataset;
use crate::error::{bail, ensure, Error, ErrorKind, Result};
use crate::file::File;
use crate::link::read_v1_node;
use crate::selection::UNLIMITED;

/// Where one stored chunk is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChunkLocation {
    /// The chunk's address.
    pub addr: Addr,
    /// Bytes stored (after filters).
    pub size: u64,
    /// Filters skipped for this chunk.
    pub filter_mask: u32,
}

/// One allocated chunk of a dataset, as [`Dataset::chunks`] lists it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StoredChunk {
    /// The chunk's first element (its scaled coordinates times the chunk dimensions).
    pub offset: Vec<u64>,
    /// Where it is: its address (relative to the base address), stored size and filter mask.
    pub location: ChunkLocation,
    /// Its absolute position in the file's storage (the address plus the base address): the
    /// byte offset a reader without HDF5 (kerchunk references) fetches.
    pub file_offset: u64,
}

impl Dataset {
    /// Every allocated chunk of a chunked dataset, in row-major order of their positions;
    /// empty for other layouts. The stored size of a chunk of an unfiltered dataset is the
    /// whole chunk's. Unallocated chunks (read as the fill value) are not listed.
    pub fn chunks(&self) -> Result<Vec<StoredChunk>> {
        self.chunks_impl().map_err(|e| e.at(self.path()))
    }

    fn chunks_impl(&self) -> Result<Vec<StoredChunk>> {
        let LayoutClass::Chunked {
            dims,
            index,
            address,
            ..
        } = &self.layout().class
        else {
            return Ok(Vec::new());
        };
        let space = self.dataspace();
        let rank = space.rank();
        let (chunk, chunk_bytes) = geometry(dims, rank, self.element_size() as u64)?;
        let chunk = &chunk[..];
        ensure!(
            chunk_bytes <= limits::MAX_CHUNK_BYTES,
            LimitExceeded,
            "chunk too large"
        );
        let file = self.file();
        let filtered = !self.filters().is_empty();
        let idx = Index::open(
            file,
            *index,
            *address,
            space.dims(),
            space.maxdims(),
            chunk,
            chunk_bytes,
            filtered,
        )?;
        let base = file.raw().base();
        idx.locations(file, space.dims(), chunk)?
            .into_iter()
            .map(|(scaled, mut loc)| {
                if !filtered {
                    loc.size = chunk_bytes;
                }
                let file_offset = loc
                    .addr
                    .get()
                    .and_then(|a| a.checked_add(base))
                    .ok_or_else(|| Error::new(ErrorKind::Format, "chunk address"))?;
                Ok(StoredChunk {
                    offset: scaled.iter().zip(chunk).map(|(s, c)| s * c).collect(),
                    location: loc,
                    file_offset,
                })
            })
            .collect()
    }
}

/// The chunk dimensions of a dataset of rank `rank` (the layout's `dims` may carry the
/// element size as one more) and the bytes of one chunk of `esize`-byte elements.
pub(crate) fn geometry(dims: &[u64], rank: usize, esize: u64) -> Result<(Vec<u64>, u64)> {
    ensure!(
        dims.len() >= rank,
        Format,
        "chunk rank {} for a dataspace of rank {rank}",
        dims.len()
    );
    let chunk: Vec<u64> = dims[..rank].to_vec();
    ensure!(
        chunk.iter().all(|&c| c > 0),
        Format,
        "chunk dimension of size 0"
    );
    let bytes = chunk
        .iter()
        .try_fold(esize, |a, &c| a.checked_mul(c))
        .ok_or_else(|| Error::new(ErrorKind::Format, "chunk size overflows"))?;
    Ok((chunk, bytes))
}

/// A chunk a read needs, planned before anything is fetched: where it is and how many
/// bytes to fetch (the stored size, or the whole chunk where its filters are skipped).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PlannedChunk {
    /// Where the index says the chunk is.
    pub(crate) loc: ChunkLocation,
    /// Bytes to fetch.
    pub(crate) stored: u64,
    /// Whether the filter pipeline applies (else the bytes are the chunk as is).
    pub(crate) filtered: bool,
}

/// Fetch the bytes of a batch of planned chunks (`None`: not allocated) with one batched
/// read of the storage ([`crate::raw::RawFile::read_batch_with`], into the stored-bytes
/// buffers of chunks `pool` got back from earlier decodes); one result per chunk, in order.
pub(crate) fn fetch(
    file: &File,
    plan: &[Option<PlannedChunk>],
    pool: &crate::filter::BufferPool,
) -> Vec<Result<Option<Vec<u8>>>> {
    let requests: Vec<(Addr, u64)> = plan
        .iter()
        .flatten()
        .map(|p| (p.loc.addr, p.stored))
        .collect();
    let mut fetched = file
        .raw()
        .read_batch_with(&requests, || pool.take_stored())
        .into_iter();
    plan.iter()
        .map(|p| match p {
            None => Ok(None),
            Some(_) => match fetched.next() {
                Some(r) => Ok(Some(r?)),
                None => Err(Error::new(ErrorKind::Io, "a chunk was not fetched")),
            },
        })
        .collect()
}

/// A dataset's chunk index, opened.
#[derive(Debug)]
pub(crate) enum Index {
    /// Every chunk by scaled coordinates (version 2 B-trees, read whole once).
    Map(HashMap<Vec<u64>, ChunkLocation>),
    /// A version 1 B-tree, descended per lookup: only the nodes on the paths to the
    /// chunks asked for are read (and kept, in the tree's own node cache).
    BTreeV1(Box<V1Tree>),
    /// One chunk.
    Single(Option<ChunkLocation>),
    /// Chunks laid out in order from `base`.
    Implicit {
        base: Addr,
        down: Vec<u64>,
        chunk_bytes: u64,
        nchunks: u64,
    },
    /// A fixed array's elements.
    Fixed {
        elements: Vec<Option<ChunkElement>>,
        down: Vec<u64>,
        chunk_bytes: u64,
    },
    /// An extensible array, blocks read as needed.
    Extensible(Box<Extensible>),
}

#[derive(Debug)]
pub(crate) struct Extensible {
    header: ExtensibleArrayHeader,
    geometry: Geometry,
    index: IndexBlock,
    unlim: usize,
    down: Vec<u64>,
    chunk_bytes: u64,
    blocks: Mutex<HashMap<u64, Arc<BlockElements>>>,
    secondary: Mutex<HashMap<u64, Arc<SecondaryBlock>>>,
}

/// Row-major "down" products of `counts` (element k = product of counts after k).
fn down(counts: &[u64]) -> Result<Vec<u64>> {
    let mut d = vec![1u64; counts.len()];
    for k in (0..counts.len().saturating_sub(1)).rev() {
        d[k] = d[k + 1]
            .checked_mul(counts[k + 1])
            .ok_or_else(|| Error::new(ErrorKind::LimitExceeded, "chunk grid overflows"))?;
    }
    Ok(d)
}

fn linear(scaled: &[u64], down: &[u64]) -> u64 {
    scaled
        .iter()
        .zip(down)
        .fold(0u64, |a, (s, d)| a.saturating_add(s.saturating_mul(*d)))
}

/// Chunk counts per dimension for dims `d` and chunk dims `c` (unlimited stays unlimited).
fn chunk_counts(d: &[u64], c: &[u64]) -> Vec<u64> {
    d.iter()
        .zip(c)
        .map(|(&d, &c)| {
            if d == UNLIMITED {
                UNLIMITED
            } else {
                d.div_ceil(c.max(1))
            }
        })
        .collect()
}

impl Index {
    /// Open the index of a chunked dataset.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn open(
        file: &File,
        index: Option<ChunkIndex>,
        address: Addr,
        dims: &[u64],
        maxdims: &[u64],
        chunk: &[u64],
        chunk_bytes: u64,
        filtered: bool,
    ) -> Result<Index> {
        let rank = dims.len();
        match index {
            None => {
                if address.is_undef() {
                    return Ok(Index::Map(HashMap::new()));
                }
                Ok(Index::BTreeV1(Box::new(V1Tree {
                    root: address,
                    rank,
                    chunk: chunk.to_vec(),
                    nodes: Mutex::new(HashMap::new()),
                })))
            }
            Some(ChunkIndex::BTreeV2 { .. }) => {
                let mut map = HashMap::new();
                if !address.is_undef() {
                    for r in file.v2_records(address)? {
                        let (addr, size, mask, scaled) = match r {
                            Record::Chunk { address, scaled } => (address, chunk_bytes, 0, scaled),
                            Record::FilteredChunk {
                                address,
                                chunk_size,
                                filter_mask,
                                scaled,
                                ..
                            } => (address, chunk_size, filter_mask, scaled),
                            _ => bail!(Format, "a v2 B-tree chunk index holds a non-chunk record"),
                        };
                        map.insert(
                            scaled,
                            ChunkLocation {
                                addr,
                                size,
                                filter_mask: mask,
                            },
                        );
                    }
                }
                Ok(Index::Map(map))
            }
            Some(ChunkIndex::SingleChunk { filtered: f }) => {
                if address.is_undef() {
                    return Ok(Index::Single(None));
                }
                let (size, filter_mask) = f.unwrap_or((chunk_bytes, 0));
                Ok(Index::Single(Some(ChunkLocation {
                    addr: address,
                    size,
                    filter_mask,
                })))
            }
            Some(ChunkIndex::Implicit) => {
                let counts = chunk_counts(maxdims, chunk);
                ensure!(
                    !counts.contains(&UNLIMITED),
                    Format,
                    "implicit chunk index on an unlimited dataset"
                );
                let nchunks = counts
                    .iter()
                    .try_fold(1u64, |a, &c| a.checked_mul(c))
                    .ok_or_else(|| Error::new(ErrorKind::LimitExceeded, "chunk count"))?;
                Ok(Index::Implicit {
                    base: address,
                    down: down(&counts)?,
                    chunk_bytes,
                    nchunks,
                })
            }
            Some(ChunkIndex::FixedArray { .. }) => {
                let counts = chunk_counts(maxdims, chunk);
                ensure!(
                    !counts.contains(&UNLIMITED),
                    Format,
                    "fixed array chunk index on an unlimited dataset"
                );
                let mut elements = Vec::new();
                if !address.is_undef() {
                    let raw = file.raw();
                    let hb =
                        raw.read(address, FixedArrayHeader::encoded_size(raw.sizes()) as u64)?;
                    let h = FixedArrayHeader::parse(&mut raw.cursor(&hb, address))?;
                    if !h.data_block.is_undef() {
                        let bound = h.data_block_prefix_size(raw.sizes()) as u64
                            + h.nelements.saturating_mul(h.element_size as u64)
                            + h.npages().saturating_add(1).saturating_mul(4)
                            + 16;
                        let b = raw.read_up_to(h.data_block, bound)?;
                        let db = FixedArrayDataBlock::parse(&mut raw.cursor(&b, h.data_block), &h)?;
                        elements = flatten(&db.elements, h.page_elements().unwrap_or(u64::MAX));
                    }
                }
                Ok(Index::Fixed {
                    elements,
                    down: down(&counts)?,
                    chunk_bytes,
                })
            }
            Some(ChunkIndex::ExtensibleArray { .. }) => {
                let unlim = maxdims.iter().position(|&m| m == UNLIMITED).unwrap_or(0);
                let mut counts = chunk_counts(maxdims, chunk);
                let u = counts.remove(unlim);
                counts.insert(0, u);
                // The slowest (unlimited) dimension's own count never enters the products.
                let d = down(&counts)?;
                let raw = file.raw();
                if address.is_undef() {
                    return Ok(Index::Map(HashMap::new()));
                }
                let hb = raw.read(
                    address,
                    ExtensibleArrayHeader::encoded_size(raw.sizes()) as u64,
                )?;
                let header = ExtensibleArrayHeader::parse(&mut raw.cursor(&hb, address))?;
                let geometry = header.geometry()?;
                if header.index_block.is_undef() {
                    return Ok(Index::Map(HashMap::new()));
                }
                let o = raw.sizes().offset as u64;
                let bound = 64
                    + header.index_block_elements as u64 * header.element_size as u64
                    + (geometry.index_block_data_blocks as u64
                        + geometry.index_block_secondary_blocks as u64)
                        * o;
                let b = raw.read_up_to(header.index_block, bound)?;
                let index = IndexBlock::parse(&mut raw.cursor(&b, header.index_block), &header)?;
                let _ = filtered;
                Ok(Index::Extensible(Box::new(Extensible {
                    header,
                    geometry,
                    index,
                    unlim,
                    down: d,
                    chunk_bytes,
                    blocks: Mutex::new(HashMap::new()),
                    secondary: Mutex::new(HashMap::new()),
                })))
            }
        }
    }

    /// The sum of the stored sizes of the chunks of a dataset of extent `dims`.
    pub(crate) fn total_size(&self, file: &File, dims: &[u64], chunk: &[u64]) -> Result<u64> {
        if let Index::Map(m) = self {
            return Ok(m.values().map(|c| c.size).fold(0u64, u64::saturating_add));
        }
        if let Index::BTreeV1(t) = self {
            return Ok(t
                .all(file)?
                .values()
                .map(|c| c.size)
                .fold(0u64, u64::saturating_add));
        }
        match self {
            Index::Single(c) => return Ok(c.map_or(0, |c| c.size)),
            Index::Fixed {
                elements,
                chunk_bytes,
                ..
            } => {
                return Ok(elements
                    .iter()
                    .filter_map(|e| e.and_then(|e| element_location(e, *chunk_bytes)))
                    .map(|c| c.size)
                    .fold(0u64, u64::saturating_add))
            }
            Index::Implicit {
                base,
                chunk_bytes,
                nchunks,
                ..
            } => {
                return Ok(if base.is_undef() {
                    0
                } else {
                    nchunks.saturating_mul(*chunk_bytes)
                })
            }
            _ => {}
        }
        Ok(self
            .locations(file, dims, chunk)?
            .iter()
            .map(|(_, c)| c.size)
            .fold(0u64, u64::saturating_add))
    }

    /// Every allocated chunk of a dataset of extent `dims`, by scaled coordinates in
    /// row-major order (at most 2^24 chunks in the grid, else an error).
    pub(crate) fn locations(
        &self,
        file: &File,
        dims: &[u64],
        chunk: &[u64],
    ) -> Result<Vec<(Vec<u64>, ChunkLocation)>> {
        let sorted = |m: &HashMap<Vec<u64>, ChunkLocation>| {
            let mut v: Vec<_> = m.iter().map(|(k, c)| (k.clone(), *c)).collect();
            v.sort_by(|a, b| a.0.cmp(&b.0));
            v
        };
        match self {
            Index::Map(m) => return Ok(sorted(m)),
            Index::BTreeV1(t) => return Ok(sorted(&t.all(file)?)),
            _ => {}
        }
        let counts = chunk_counts(dims, chunk);
        if counts.contains(&0) {
            return Ok(Vec::new());
        }
        let n = counts
            .iter()
            .try_fold(1u64, |a, &c| a.checked_mul(c))
            .filter(|&n| n <= 1 << 24)
            .ok_or_else(|| Error::new(ErrorKind::LimitExceeded, "too many chunks to list"))?;
        let mut scaled = vec![0u64; counts.len()];
        let mut out = Vec::new();
        for _ in 0..n {
            if let Some(c) = self.lookup(file, &scaled)? {
                out.push((scaled.clone(), c));
            }
            for k in (0..scaled.len()).rev() {
                scaled[k] += 1;
                if scaled[k] < counts[k] {
                    break;
                }
                scaled[k] = 0;
            }
        }
        Ok(out)
    }

    /// The chunk at scaled coordinates `scaled`, `None` when it was never written.
    pub(crate) fn lookup(&self, file: &File, scaled: &[u64]) -> Result<Option<ChunkLocation>> {
        match self {
            Index::Map(m) => Ok(m.get(scaled).copied()),
            Index::BTreeV1(t) => t.lookup(file, scaled),
            Index::Single(c) => Ok(if scaled.iter().all(|&s| s == 0) {
                *c
            } else {
                None
            }),
            Index::Implicit {
                base,
                down,
                chunk_bytes,
                nchunks,
            } => {
                let Some(b) = base.get() else { return Ok(None) };
                let i = linear(scaled, down);
                ensure!(
                    i < *nchunks,
                    Format,
                    "chunk {scaled:?} outside the implicit index"
                );
                let addr = i
                    .checked_mul(*chunk_bytes)
                    .and_then(|o| o.checked_add(b))
                    .ok_or_else(|| Error::new(ErrorKind::Format, "implicit chunk address"))?;
                Ok(Some(ChunkLocation {
                    addr: Addr(addr),
                    size: *chunk_bytes,
                    filter_mask: 0,
                }))
            }
            Index::Fixed {
                elements,
                down,
                chunk_bytes,
            } => {
                let i = linear(scaled, down);
                let e = usize::try_from(i)
                    .ok()
                    .and_then(|i| elements.get(i))
                    .copied();
                Ok(e.flatten().and_then(|e| element_location(e, *chunk_bytes)))
            }
            Index::Extensible(ea) => ea.lookup(file, scaled),
        }
    }
}

fn element_location(e: ChunkElement, chunk_bytes: u64) -> Option<ChunkLocation> {
    match e {
        ChunkElement::Chunk(a) if !a.is_undef() => Some(ChunkLocation {
            addr: a,
            size: chunk_bytes,
            filter_mask: 0,
        }),
        ChunkElement::Filtered {
            address,
            chunk_size,
            filter_mask,
        } if !address.is_undef() => Some(ChunkLocation {
            addr: address,
            size: chunk_size,
            filter_mask,
        }),
        _ => None,
    }
}

fn flatten(e: &BlockElements, page: u64) -> Vec<Option<ChunkElement>> {
    match e {
        BlockElements::Inline(v) => v.iter().copied().map(Some).collect(),
        BlockElements::Paged(pages) => {
            let mut out = Vec::new();
            for p in pages {
                match p {
                    Some(v) => out.extend(v.iter().copied().map(Some)),
                    None => out.extend(std::iter::repeat_n(None, page as usize)),
                }
            }
            out
        }
    }
}

fn block_element(e: &BlockElements, page: u64, i: u64) -> Option<ChunkElement> {
    match e {
        BlockElements::Inline(v) => v.get(usize::try_from(i).ok()?).copied(),
        BlockElements::Paged(pages) => {
            let p = pages
                .get(usize::try_from(i / page.max(1)).ok()?)?
                .as_ref()?;
            p.get(usize::try_from(i % page.max(1)).ok()?).copied()
        }
    }
}

impl Extensible {
    fn lookup(&self, file: &File, scaled: &[u64]) -> Result<Option<ChunkLocation>> {
        let mut s = scaled.to_vec();
        if self.unlim < s.len() {
            let u = s.remove(self.unlim);
            s.insert(0, u);
        }
        let idx = linear(&s, &self.down);
        if idx >= self.header.max_index_set {
            return Ok(None);
        }
        let Some(loc) = self.geometry.locate(&self.header, idx) else {
            return Ok(None);
        };
        let cb = self.chunk_bytes;
        let page = self.geometry.page_elements;
        Ok(match loc {
            ElementLocation::IndexBlock(i) => self
                .index
                .elements
                .get(i)
                .copied()
                .and_then(|e| element_location(e, cb)),
            ElementLocation::DataBlock {
                data_block,
                data_block_elements,
                element,
            } => {
                let Some(&a) = self.index.data_blocks.get(data_block) else {
                    return Ok(None);
                };
                if a.is_undef() {
                    return Ok(None);
                }
                let b = self.data_block(file, a, data_block_elements, &|_| true)?;
                block_element(&b, page, element).and_then(|e| element_location(e, cb))
            }
            ElementLocation::SecondaryBlock {
                secondary_block,
                super_block,
                data_block,
                data_block_elements,
                element,
            } => {
                let Some(&sa) = self.index.secondary_blocks.get(secondary_block) else {
                    return Ok(None);
                };
                if sa.is_undef() {
                    return Ok(None);
                }
                let sb = self.secondary_block(file, sa, super_block)?;
                let Some(&a) = sb.data_blocks.get(data_block) else {
                    return Ok(None);
                };
                if a.is_undef() {
                    return Ok(None);
                }
                let pages = self.geometry.pages_per_data_block(super_block);
                let init = |p: usize| sb.page_initialized(data_block, p, pages);
                let b = self.data_block(file, a, data_block_elements, &init)?;
                block_element(&b, page, element).and_then(|e| element_location(e, cb))
            }
        })
    }

    fn secondary_block(&self, file: &File, a: Addr, s: usize) -> Result<Arc<SecondaryBlock>> {
        if let Some(b) = self
            .secondary
            .lock()
            .ok()
            .and_then(|m| m.get(&a.0).cloned())
        {
            return Ok(b);
        }
        let raw = file.raw();
        let bound = 64u64
            + self.geometry.super_blocks.get(s).map_or(0, |sb| {
                sb.data_blocks.saturating_mul(raw.sizes().offset as u64 + 8)
            });
        let bytes = raw.read_up_to(a, bound)?;
        let b = Arc::new(SecondaryBlock::parse(
            &mut raw.cursor(&bytes, a),
            &self.header,
            s,
        )?);
        if let Ok(mut m) = self.secondary.lock() {
            m.insert(a.0, b.clone());
        }
        Ok(b)
    }

    fn data_block(
        &self,
        file: &File,
        a: Addr,
        n: u64,
        init: &dyn Fn(usize) -> bool,
    ) -> Result<Arc<BlockElements>> {
        if let Some(b) = self.blocks.lock().ok().and_then(|m| m.get(&a.0).cloned()) {
            return Ok(b);
        }
        let raw = file.raw();
        let es = self.header.element_size as u64;
        let npages = n / self.geometry.page_elements.max(1) + 1;
        let bound = 64u64
            .saturating_add(n.saturating_mul(es))
            .saturating_add(npages.saturating_mul(4));
        let bytes = raw.read_up_to(a, bound.min(limits::MAX_METADATA_BLOCK))?;
        let db = DataBlock::parse(&mut raw.cursor(&bytes, a), &self.header, n, init)?;
        let b = Arc::new(db.elements);
        if let Ok(mut m) = self.blocks.lock() {
            m.insert(a.0, b.clone());
        }
        Ok(b)
    }
}

/// A version 1 B-tree chunk index, read node by node as lookups need.
#[derive(Debug)]
pub(crate) struct V1Tree {
    root: Addr,
    rank: usize,
    chunk: Vec<u64>,
    /// The nodes read so far, by address (at most the tree's nodes; dropped with the index).
    nodes: Mutex<HashMap<u64, Arc<h5_format::btree::v1::Node>>>,
}

impl V1Tree {
    /// The node at `addr`, read once; it must be a chunk node of level `level` (the root's
    /// level is whatever it says).
    fn node(
        &self,
        file: &File,
        addr: Addr,
        level: Option<u8>,
    ) -> Result<Arc<h5_format::btree::v1::Node>> {
        let cached = self
            .nodes
            .lock()
            .map_err(|_| Error::new(ErrorKind::Io, "chunk B-tree cache poisoned"))?
            .get(&addr.0)
            .cloned();
        let node = match cached {
            Some(n) => n,
            None => {
                let n = Arc::new(read_v1_node(file, addr, Some(self.rank))?);
                ensure!(
                    n.node_type() == NodeType::Chunk,
                    Format,
                    "chunk B-tree node at {:#x} is a group node",
                    addr.0
                );
                self.nodes
                    .lock()
                    .map_err(|_| Error::new(ErrorKind::Io, "chunk B-tree cache poisoned"))?
                    .insert(addr.0, n.clone());
                n
            }
        };
        if let Some(l) = level {
            ensure!(
                node.level == l,
                Format,
                "chunk B-tree node at {:#x} has level {}, expected {l}",
                addr.0,
                node.level
            );
        }
        Ok(node)
    }

    /// The chunk at `scaled`: descend from the root through the child whose key (the
    /// offset of its first chunk) is the last not after the chunk's offset, in row-major
    /// order; at a leaf the key must be the chunk's offset itself. At most one node per
    /// level is read, and the levels strictly decrease, so a malformed tree cannot loop.
    fn lookup(&self, file: &File, scaled: &[u64]) -> Result<Option<ChunkLocation>> {
        let target: Vec<u64> = scaled
            .iter()
            .take(self.rank)
            .enumerate()
            .map(|(d, &s)| s.saturating_mul(self.chunk.get(d).copied().unwrap_or(1).max(1)))
            .collect();
        let mut node = self.node(file, self.root, None)?;
        loop {
            let Keys::Chunk(keys) = &node.keys else {
                return Ok(None);
            };
            let n = node.children.len().min(keys.len());
            // The children whose first offset is at or before the target.
            let at_or_before = keys[..n]
                .partition_point(|k| k.offsets[..self.rank.min(k.offsets.len())] <= target[..]);
            if at_or_before == 0 {
                return Ok(None);
            }
            let i = at_or_before - 1;
            if node.level == 0 {
                let k = &keys[i];
                return Ok((k.offsets.get(..self.rank) == Some(&target[..])).then_some(
                    ChunkLocation {
                        addr: node.children[i],
                        size: u64::from(k.chunk_size),
                        filter_mask: k.filter_mask,
                    },
                ));
            }
            let child = node.children[i];
            let level = node.level - 1;
            node = self.node(file, child, Some(level))?;
        }
    }

    /// Every chunk (a walk of the whole tree, checked as it goes).
    fn all(&self, file: &File) -> Result<HashMap<Vec<u64>, ChunkLocation>> {
        let mut map = HashMap::new();
        v1_chunks(file, self.root, self.rank, &self.chunk, &mut map)?;
        Ok(map)
    }
}

/// Every chunk of a version 1 B-tree chunk index.
fn v1_chunks(
    file: &File,
    root: Addr,
    rank: usize,
    chunk: &[u64],
    map: &mut HashMap<Vec<u64>, ChunkLocation>,
) -> Result<()> {
    let mut seen = HashSet::new();
    let mut stack = vec![(root, None::<u8>)];
    while let Some((addr, level)) = stack.pop() {
        ensure!(
            seen.insert(addr.0),
            Format,
            "chunk B-tree node at {:#x} visited twice (a loop)",
            addr.0
        );
        let node = read_v1_node(file, addr, Some(rank))?;
        ensure!(
            node.node_type() == NodeType::Chunk,
            Format,
            "chunk B-tree node at {:#x} is a group node",
            addr.0
        );
        if let Some(l) = level {
            ensure!(
                node.level == l,
                Format,
                "chunk B-tree node at {:#x} has level {}, expected {l}",
                addr.0,
                node.level
            );
        }
        let Keys::Chunk(keys) = &node.keys else {
            continue;
        };
        if node.level == 0 {
            for (k, &child) in keys.iter().zip(&node.children) {
                let mut scaled = Vec::with_capacity(rank);
                for (d, &off) in k.offsets.iter().take(rank).enumerate() {
                    let c = chunk.get(d).copied().unwrap_or(1).max(1);
                    ensure!(
                        off % c == 0,
                        Format,
                        "chunk offset {:?} is not on the chunk grid",
                        k.offsets
                    );
                    scaled.push(off / c);
                }
                map.insert(
                    scaled,
                    ChunkLocation {
                        addr: child,
                        size: u64::from(k.chunk_size),
                        filter_mask: k.filter_mask,
                    },
                );
            }
        } else {
            for &c in node.children.iter().rev() {
                stack.push((c, Some(node.level - 1)));
            }
        }
    }
    Ok(())
}
