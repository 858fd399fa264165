//! Datasets: compact, contiguous and chunked storage, filters, fill values, allocation
//! times, writes by selection, resize, and committed datatypes.

use rayon::prelude::*;
use std::collections::BTreeMap;

use h5_format::btree::v1::{self as btree, ChunkKey, Keys, NodeType};
use h5_format::btree::v2::Record;
use h5_format::chunk_index::btree_v2::{self as bt2_chunk, ChunkRecord};
use h5_format::chunk_index::fixed_array::{FixedArrayDataBlock, FixedArrayHeader};
use h5_format::chunk_index::{self as ci, BlockElements, ChunkElement};
use h5_format::message::datatype::DatatypeMessage;
use h5_format::message::fill_value::FillValue as FillMsg;
use h5_format::message::filter_pipeline::{self as fp, FilterPipeline};
use h5_format::message::layout::{ChunkIndex, Layout, LayoutClass};
use h5_format::message::{Message, MessageFlags};
use h5_format::{Addr, Writer};
use h5_types::h5type::VarLenHeap;
use h5_types::Datatype;

use super::attribute::{dataspace_message, npoints};
use super::btree2::Btree2Params;
use super::chunk_index as ea;
use super::file::{Body, FileFormat, FileWriter, ObjId, CHUNK_K};
use super::group::{btree_levels, build_btree_at};
use super::value::{disk_type, file_size};
use super::{bail, ensure, Error, ErrorKind, Result};
use crate::filter::{self, ChunkInfo, Filter};
use crate::selection::{Dataspace, Selection, UNLIMITED};

/// How a dataset's raw data is stored.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StorageSpec {
    /// One block in the file, allocated when first written (or at creation with
    /// [`AllocTime::Early`]).
    Contiguous,
    /// In the object header (at most 64 KiB).
    Compact,
    /// Chunks of these dimensions, found through a chunk index.
    Chunked(Vec<u64>),
}

pub use crate::dataset::{AllocTime, FillTime};

/// Everything a new dataset needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatasetSpec {
    /// The datatype in the file.
    pub datatype: Datatype,
    /// A committed datatype to use (and share) instead of `datatype`.
    pub committed: Option<ObjId>,
    /// The extent.
    pub space: Dataspace,
    /// The storage layout.
    pub storage: StorageSpec,
    /// The filter pipeline (chunked storage only), before the filters' `set_local`.
    pub filters: Vec<Filter>,
    /// The fill value: one element in the file datatype's representation.
    pub fill_value: Option<Vec<u8>>,
    /// When space is allocated.
    pub alloc_time: AllocTime,
    /// When fill values are written.
    pub fill_time: FillTime,
}

impl DatasetSpec {
    /// A contiguous dataset of `datatype` and extent `space`, without filters or fill value.
    pub fn new(datatype: Datatype, space: Dataspace) -> Self {
        DatasetSpec {
            datatype,
            committed: None,
            space,
            storage: StorageSpec::Contiguous,
            filters: Vec::new(),
            fill_value: None,
            alloc_time: AllocTime::Default,
            fill_time: FillTime::IfSet,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct ChunkLoc {
    addr: u64,
    size: u64,
    cap: u64,
    mask: u32,
}

/// Which chunk index a chunked dataset uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IndexKind {
    /// Version 1 B-tree (layout version 3; the compatible format).
    BTreeV1,
    /// One chunk, its address in the layout message.
    Single,
    /// Fixed array (no unlimited dimension).
    FixedArray,
    /// Implicit: every chunk allocated at creation, in one block in chunk order (no
    /// filters, no unlimited dimension, early allocation).
    Implicit,
    /// Extensible array (exactly one unlimited dimension, the given one).
    ExtArray(usize),
    /// Version 2 B-tree (more than one unlimited dimension).
    BTreeV2,
}

#[derive(Debug)]
enum Storage {
    Compact(Vec<u8>),
    Contiguous(Option<u64>),
    Chunked {
        index: IndexKind,
        dims: Vec<u64>,
        chunks: BTreeMap<Vec<u64>, ChunkLoc>,
        root: Option<u64>,
        block: (u64, u64),
        dirty: bool,
    },
}

/// A dataset's state.
#[derive(Debug)]
pub(crate) struct Dataset {
    datatype: Datatype,
    committed: Option<ObjId>,
    space: Dataspace,
    storage: Storage,
    filters: Vec<Filter>,
    fill: Option<Vec<u8>>,
    /// `false`: the fill value is undefined (what files of old library versions say), not
    /// the default.
    fill_defined: bool,
    alloc_time: u8,
    fill_time: FillTime,
}

/// Page bits of fixed array indexes (the reference library's default).
const FA_PAGE_BITS: u8 = 10;
/// Node size of version 2 B-tree chunk indexes (the reference library's default).
const BT2_NODE_SIZE: u32 = 512;

const ALLOC_EARLY: u8 = 1;
const ALLOC_LATE: u8 = 2;
const ALLOC_INCR: u8 = 3;

impl Dataset {
    /// The committed datatype the dataset shares, if any.
    pub(crate) fn committed_type(&self) -> Option<ObjId> {
        self.committed
    }

    fn elem(&self) -> usize {
        file_size(&self.datatype)
    }

    /// The bytes a newly allocated element holds.
    fn fill_element(&self) -> Vec<u8> {
        match (&self.fill, self.fill_time) {
            (_, FillTime::Never) => vec![0; self.elem()],
            (Some(f), _) => f.clone(),
            (None, _) => vec![0; self.elem()],
        }
    }

    fn filled(&self, n: usize) -> Vec<u8> {
        let e = self.fill_element();
        if e.iter().all(|&b| b == 0) {
            return vec![0; n * self.elem()];
        }
        let mut out = Vec::with_capacity(n * e.len());
        for _ in 0..n {
            out.extend_from_slice(&e);
        }
        out
    }

    fn dims(&self) -> Vec<u64> {
        match &self.space {
            Dataspace::Simple { dims, .. } => dims.clone(),
            _ => Vec::new(),
        }
    }

    fn chunk_elems(dims: &[u64]) -> usize {
        dims.iter().product::<u64>() as usize
    }

    /// The header messages.
    pub(crate) fn messages(&self, w: &FileWriter) -> Result<Vec<(Message, u8)>> {
        let latest = w.format == FileFormat::Latest;
        let mut out = Vec::new();
        out.push((
            Message::Dataspace(dataspace_message(&self.space, w.format)),
            0,
        ));
        let dt = match self.committed {
            Some(c) => w.shared_type_message(c)?,
            None => Message::Datatype(DatatypeMessage::new(self.datatype.clone())),
        };
        out.push((dt, MessageFlags::CONSTANT));
        let fill_time = match self.fill_time {
            FillTime::OnAlloc => 0,
            FillTime::Never => 1,
            FillTime::IfSet => 2,
        };
        out.push((
            Message::FillValue(FillMsg {
                version: if latest { 3 } else { 2 },
                alloc_time: self.alloc_time,
                fill_time,
                defined: self.fill_defined,
                value: self.fill.clone().filter(|_| self.fill_defined),
            }),
            MessageFlags::CONSTANT,
        ));
        if !self.filters.is_empty() {
            out.push((
                Message::FilterPipeline(FilterPipeline {
                    version: if latest { 2 } else { 1 },
                    filters: self
                        .filters
                        .iter()
                        .map(|f| fp::Filter {
                            // The filter's own name (a copied pipeline keeps it), or
                            // the conventional one.
                            name: f
                                .name
                                .clone()
                                .or_else(|| f.id.name().map(|n| n.as_bytes().to_vec())),
                            ..f.clone()
                        })
                        .collect(),
                }),
                MessageFlags::CONSTANT,
            ));
        }
        let class = match &self.storage {
            Storage::Compact(data) => LayoutClass::Compact {
                dims: Vec::new(),
                data: data.clone(),
            },
            Storage::Contiguous(addr) => LayoutClass::Contiguous {
                address: addr.map_or(Addr::UNDEF, Addr),
                size: Some(npoints(&self.space) * self.elem() as u64),
                dims: Vec::new(),
            },
            Storage::Chunked {
                dims,
                root,
                index,
                chunks,
                ..
            } => {
                let mut d = dims.clone();
                d.push(self.elem() as u64);
                let filtered = !self.filters.is_empty();
                let index = match index {
                    IndexKind::BTreeV1 => None,
                    IndexKind::Single => Some(ChunkIndex::SingleChunk {
                        filtered: filtered
                            .then(|| chunks.values().next().map_or((0, 0), |l| (l.size, l.mask))),
                    }),
                    IndexKind::Implicit => Some(ChunkIndex::Implicit),
                    IndexKind::FixedArray => Some(ChunkIndex::FixedArray {
                        page_bits: FA_PAGE_BITS,
                    }),
                    IndexKind::ExtArray(_) => Some(ChunkIndex::ExtensibleArray {
                        max_bits: ea::EA_MAX_BITS,
                        index_elements: ea::EA_INDEX_ELEMENTS,
                        min_pointers: ea::EA_MIN_POINTERS,
                        min_elements: ea::EA_MIN_ELEMENTS,
                        page_bits: ea::EA_PAGE_BITS,
                    }),
                    IndexKind::BTreeV2 => Some(ChunkIndex::BTreeV2 {
                        node_size: BT2_NODE_SIZE,
                        split_percent: 100,
                        merge_percent: 40,
                    }),
                };
                LayoutClass::Chunked {
                    flags: 0,
                    dims: d,
                    index,
                    address: root.map_or(Addr::UNDEF, Addr),
                    dim_size_bytes: 1,
                }
            }
        };
        let version = match &class {
            LayoutClass::Chunked { index: Some(_), .. } => 4,
            _ => 3,
        };
        out.push((Message::Layout(Layout { version, class }), 0));
        Ok(out)
    }

    /// Rebuild the chunk index when chunks changed.
    pub(crate) fn prepare(&mut self, w: &mut FileWriter) -> Result<()> {
        let elem = self.elem() as u64;
        let filters = !self.filters.is_empty();
        let space_max = match &self.space {
            Dataspace::Simple { maxdims, .. } => maxdims.clone(),
            _ => Vec::new(),
        };
        let Storage::Chunked {
            index,
            dims,
            chunks,
            root,
            block,
            dirty,
        } = &mut self.storage
        else {
            return Ok(());
        };
        if !*dirty {
            return Ok(());
        }
        *dirty = false;
        if chunks.is_empty() {
            *root = None;
            return Ok(());
        }
        let chunk_bytes = elem * dims.iter().product::<u64>();
        match *index {
            IndexKind::BTreeV1 => {}
            IndexKind::Single => {
                *root = chunks.values().next().map(|l| l.addr);
                return Ok(());
            }
            IndexKind::Implicit => return Ok(()),
            IndexKind::FixedArray => {
                // Sized, and indexed, by the maximum dimensions (max_down_chunks).
                *root = Some(write_fixed_array(
                    w,
                    &space_max,
                    dims,
                    chunks,
                    filters,
                    chunk_bytes,
                    block,
                )?);
                return Ok(());
            }
            IndexKind::ExtArray(unlim) => {
                let max_chunks: Vec<u64> = space_max
                    .iter()
                    .zip(dims.iter())
                    .map(|(&m, &c)| if m == UNLIMITED { 1 } else { m.div_ceil(c) })
                    .collect();
                let mut elements = BTreeMap::new();
                for (c, l) in chunks.iter() {
                    let e = if filters {
                        ChunkElement::Filtered {
                            address: Addr(l.addr),
                            chunk_size: l.size,
                            filter_mask: l.mask,
                        }
                    } else {
                        ChunkElement::Chunk(Addr(l.addr))
                    };
                    elements.insert(ea::ea_index(c, &max_chunks, unlim), e);
                }
                let undefined = if filters {
                    ChunkElement::Filtered {
                        address: Addr::UNDEF,
                        chunk_size: 0,
                        filter_mask: 0,
                    }
                } else {
                    ChunkElement::Chunk(Addr::UNDEF)
                };
                let client = if filters {
                    ci::CLIENT_FILTERED_CHUNK
                } else {
                    ci::CLIENT_CHUNK
                };
                let esize = ci::element_size(w.sizes, filters, chunk_bytes);
                *root = Some(w.write_extensible_array(client, esize, &elements, undefined)?);
                return Ok(());
            }
            IndexKind::BTreeV2 => {
                let rank = dims.len();
                let records: Vec<Record> = chunks
                    .iter()
                    .map(|(c, l)| {
                        ChunkRecord {
                            address: Addr(l.addr),
                            filtered: filters.then_some((l.size, l.mask)),
                            scaled: c.clone(),
                        }
                        .to_record(chunk_bytes)
                    })
                    .collect();
                let params = Btree2Params {
                    record_type: if filters {
                        bt2_chunk::RECORD_FILTERED_CHUNK
                    } else {
                        bt2_chunk::RECORD_CHUNK
                    },
                    node_size: BT2_NODE_SIZE,
                    record_size: bt2_chunk::record_size(w.sizes, rank, filters, chunk_bytes) as u16,
                    split_percent: 100,
                    merge_percent: 40,
                };
                *root = Some(w.write_btree2(&params, &records)?);
                return Ok(());
            }
        }
        let rank = dims.len();
        let node_size = btree::node_size(w.sizes, NodeType::Chunk, rank, CHUNK_K) as u64;
        let levels = btree_levels(chunks.len(), CHUNK_K);
        let (offsets, total) = super::paged::block_layout(
            w.page_size(),
            &vec![node_size; levels.iter().sum::<usize>()],
        );
        let key = |scaled: &[u64], size: u64, mask: u32| {
            let mut offsets: Vec<u64> =
                scaled.iter().zip(dims.iter()).map(|(s, d)| s * d).collect();
            offsets.push(0);
            ChunkKey {
                chunk_size: size as u32,
                filter_mask: mask,
                offsets,
            }
        };
        let children: Vec<(ChunkKey, Addr)> = chunks
            .iter()
            .map(|(c, l)| (key(c, l.size, l.mask), Addr(l.addr)))
            .collect();
        let last = match chunks.keys().next_back() {
            Some(c) => {
                let next: Vec<u64> = c.iter().map(|s| s + 1).collect();
                key(&next, 0, 0)
            }
            None => bail!(Format, "no chunks"),
        };
        let _ = elem;
        let sizes = w.sizes;
        let image = |base: u64| {
            let addrs: Vec<u64> = offsets.iter().map(|o| base + o).collect();
            let (root, nodes) = build_btree_at(
                sizes,
                &addrs,
                &levels,
                node_size,
                CHUNK_K,
                children.clone(),
                last.clone(),
                Keys::Chunk,
            );
            (
                root,
                super::paged::assemble(total, offsets.iter().copied().zip(nodes)),
            )
        };
        // Unchanged where it is: kept. Otherwise new space (the flush retires the old nodes).
        if total == block.1 && root.is_some() {
            let (r, bytes) = image(block.0);
            if Some(r) == *root && w.same_bytes(block.0, &bytes)? {
                return Ok(());
            }
        }
        *block = (w.alloc(total), total);
        let (r, bytes) = image(block.0);
        w.put(block.0, &bytes)?;
        *root = Some(r);
        Ok(())
    }
}

impl FileWriter {
    fn dataset(&self, id: ObjId) -> Result<&Dataset> {
        let o = self.object(id)?;
        match &o.body {
            Body::Dataset(d) => Ok(d),
            _ => bail!(InvalidArgument, "{} is not a dataset", o.path),
        }
    }

    /// The type of a committed datatype.
    pub fn committed_type(&self, id: ObjId) -> Result<&Datatype> {
        let o = self.object(id)?;
        match &o.body {
            Body::Datatype(t) => Ok(t),
            _ => bail!(InvalidArgument, "{} is not a committed datatype", o.path),
        }
    }

    /// Commit (name) a datatype at `path` so datasets and attributes can share it.
    pub fn commit_datatype(
        &mut self,
        base: ObjId,
        path: &str,
        datatype: &Datatype,
    ) -> Result<ObjId> {
        self.swmr_forbids("committing datatypes")?;
        self.create_object(base, path, Body::Datatype(datatype.clone()))
    }

    /// Commit a datatype that no link names (what the reference library keeps when a
    /// committed datatype's links were removed but datasets still share it).
    pub(crate) fn commit_anonymous_datatype(&mut self, datatype: &Datatype) -> Result<ObjId> {
        let id = self.new_object(
            "<anonymous datatype>".to_owned(),
            Body::Datatype(datatype.clone()),
        )?;
        self.object_mut(id)?.refcount = 0;
        Ok(id)
    }

    /// Create a dataset at `path` (intermediate groups are created as needed).
    pub fn create_dataset(&mut self, base: ObjId, path: &str, spec: DatasetSpec) -> Result<ObjId> {
        self.swmr_forbids("creating datasets")?;
        let d = self.new_dataset(spec, false).map_err(|e| e.at_path(path))?;
        self.create_object(base, path, Body::Dataset(Box::new(d)))
    }

    /// Create a dataset whose `spec.datatype` already is a file datatype (as a reader
    /// returns it): compound members keep their offsets.
    /// With `fill_defined` false the fill value message says "undefined" (and `spec` must
    /// have no fill value).
    pub(crate) fn create_dataset_exact(
        &mut self,
        base: ObjId,
        path: &str,
        spec: DatasetSpec,
        fill_defined: bool,
    ) -> Result<ObjId> {
        ensure!(
            fill_defined || spec.fill_value.is_none(),
            InvalidArgument,
            "{path}: a fill value that is undefined"
        );
        let mut d = self.new_dataset(spec, true).map_err(|e| e.at_path(path))?;
        d.fill_defined = fill_defined;
        self.create_object(base, path, Body::Dataset(Box::new(d)))
    }

    fn new_dataset(&mut self, spec: DatasetSpec, exact: bool) -> Result<Dataset> {
        let datatype = match spec.committed {
            Some(c) => self.committed_type(c)?.clone(),
            None if exact => spec.datatype.clone(),
            None => disk_type(&spec.datatype)?,
        };
        let elem = file_size(&datatype);
        ensure!(elem > 0, InvalidArgument, "datatype of size 0");
        if let Some(f) = &spec.fill_value {
            ensure!(
                f.len() == elem,
                InvalidArgument,
                "fill value of {} bytes for a {elem}-byte datatype",
                f.len()
            );
            ensure!(
                !datatype.has_variable_length(),
                Unsupported,
                "fill values of variable-length types"
            );
        }
        let n = npoints(&spec.space);
        ensure!(
            n.checked_mul(elem as u64)
                .is_some_and(|b| b <= isize::MAX as u64),
            LimitExceeded,
            "{n} elements of {elem} bytes exceed the address space"
        );
        let unlimited =
            matches!(&spec.space, Dataspace::Simple { dims, maxdims } if maxdims != dims);
        let (storage, default_alloc) = match &spec.storage {
            StorageSpec::Compact => {
                ensure!(
                    !unlimited,
                    InvalidArgument,
                    "compact storage needs a fixed-size dataspace"
                );
                let size = n as usize * elem;
                ensure!(
                    size <= 0xffff - 64,
                    LimitExceeded,
                    "compact data of {size} bytes exceeds what an object header holds"
                );
                (Storage::Compact(Vec::new()), ALLOC_EARLY)
            }
            StorageSpec::Contiguous => {
                ensure!(
                    !unlimited,
                    InvalidArgument,
                    "contiguous storage needs a fixed-size dataspace (use chunks)"
                );
                (Storage::Contiguous(None), ALLOC_LATE)
            }
            StorageSpec::Chunked(cd) => {
                let rank = match &spec.space {
                    Dataspace::Simple { dims, .. } => dims.len(),
                    _ => 0,
                };
                ensure!(
                    rank > 0 && cd.len() == rank,
                    InvalidArgument,
                    "chunk dims of rank {} for a dataspace of rank {rank}",
                    cd.len()
                );
                ensure!(
                    cd.iter().all(|&c| c > 0 && c <= u64::from(u32::MAX)),
                    InvalidArgument,
                    "chunk dims must be positive 32-bit values: {cd:?}"
                );
                let bytes = cd.iter().try_fold(elem as u64, |a, &c| a.checked_mul(c));
                ensure!(
                    bytes.is_some_and(|b| b < 1 << 32),
                    LimitExceeded,
                    "chunks of {cd:?} elements of {elem} bytes exceed 4 GiB"
                );
                let index = if self.format == FileFormat::Compatible {
                    IndexKind::BTreeV1
                } else {
                    match &spec.space {
                        Dataspace::Simple { maxdims, .. } if maxdims.contains(&UNLIMITED) => {
                            let unlimited: Vec<usize> = maxdims
                                .iter()
                                .enumerate()
                                .filter(|(_, &m)| m == UNLIMITED)
                                .map(|(k, _)| k)
                                .collect();
                            match unlimited[..] {
                                [k] => IndexKind::ExtArray(k),
                                _ => IndexKind::BTreeV2,
                            }
                        }
                        // One chunk holds the whole extent, up to the maximum dimensions
                        // (the reference library's max_nchunks == 1).
                        Dataspace::Simple { maxdims, .. }
                            if maxdims.iter().zip(cd).all(|(&d, &c)| d <= c) =>
                        {
                            IndexKind::Single
                        }
                        _ => IndexKind::FixedArray,
                    }
                };
                (
                    Storage::Chunked {
                        index,
                        dims: cd.clone(),
                        chunks: BTreeMap::new(),
                        root: None,
                        block: (0, 0),
                        dirty: true,
                    },
                    ALLOC_INCR,
                )
            }
        };
        ensure!(
            spec.filters.is_empty() || matches!(storage, Storage::Chunked { .. }),
            InvalidArgument,
            "filters need chunked storage"
        );
        let mut filters = Vec::with_capacity(spec.filters.len());
        if let Storage::Chunked { dims, .. } = &storage {
            let fill = match &spec.fill_value {
                Some(f) => filter::FillValue::User(f),
                None => filter::FillValue::Default,
            };
            for f in &spec.filters {
                let mut local = self.filters.set_local(f, &datatype, dims, fill)?;
                if local.name.is_none() && f.id.name().is_none() {
                    // A user codec's name is stored, so the reference tools can print it.
                    local.name = self.filters.get(f.id).map(|c| c.name().as_bytes().to_vec());
                }
                filters.push(local);
            }
        }
        let alloc_time = match spec.alloc_time {
            AllocTime::Default => default_alloc,
            AllocTime::Early => ALLOC_EARLY,
            AllocTime::Late => ALLOC_LATE,
            AllocTime::Incremental => ALLOC_INCR,
        };
        let mut storage = storage;
        if let Storage::Chunked { index, .. } = &mut storage {
            if *index == IndexKind::FixedArray && filters.is_empty() && alloc_time == ALLOC_EARLY {
                *index = IndexKind::Implicit;
            }
        }
        ensure!(
            !(matches!(storage, Storage::Compact(_)) && alloc_time != ALLOC_EARLY),
            InvalidArgument,
            "compact storage is always allocated early"
        );
        let mut d = Dataset {
            datatype,
            committed: spec.committed,
            space: spec.space,
            storage,
            filters,
            fill: spec.fill_value,
            fill_defined: true,
            alloc_time,
            fill_time: spec.fill_time,
        };
        if alloc_time == ALLOC_EARLY {
            self.allocate_all(&mut d)?;
        }
        Ok(d)
    }

    /// Allocate (and fill) all storage of a dataset.
    fn allocate_all(&mut self, d: &mut Dataset) -> Result<()> {
        let n = npoints(&d.space) as usize;
        let fill = d.fill_element();
        let zero = fill.iter().all(|&b| b == 0);
        match &mut d.storage {
            Storage::Compact(data) => {
                *data = if zero {
                    vec![0; n * fill.len()]
                } else {
                    fill.repeat(n)
                }
            }
            Storage::Contiguous(addr) => {
                if addr.is_none() {
                    let size = (n * fill.len()) as u64;
                    let a = self.alloc_zeroed(size, zero)?;
                    // Unwritten space reads as zeros: only a non-zero fill value is written,
                    // a piece at a time.
                    if !zero {
                        let per = (1 << 20) / fill.len().max(1) + 1;
                        let piece = fill.repeat(per);
                        let mut at = 0u64;
                        while at < size {
                            let k = (size - at).min(piece.len() as u64) as usize;
                            self.put(a + at, &piece[..k])?;
                            at += k as u64;
                        }
                    }
                    *addr = Some(a);
                }
            }
            Storage::Chunked {
                index: IndexKind::Implicit,
                dims: cd,
                chunks,
                root,
                dirty,
                ..
            } => {
                // One block for every chunk up to the maximum dimensions, in row-major
                // order of chunk coordinates (the reference library's max_nchunks).
                if root.is_none() {
                    let dims = match &d.space {
                        Dataspace::Simple { maxdims, .. } => maxdims.clone(),
                        _ => Vec::new(),
                    };
                    let grid: Vec<u64> = dims
                        .iter()
                        .zip(cd.iter())
                        .map(|(&a, &c)| a.div_ceil(c))
                        .collect();
                    let total: u64 = grid.iter().product();
                    let cb = (Dataset::chunk_elems(cd) * file_size(&d.datatype)) as u64;
                    let one = {
                        let e = match (&d.fill, d.fill_time) {
                            (Some(f), t) if t != FillTime::Never => f.clone(),
                            _ => vec![0; file_size(&d.datatype)],
                        };
                        e.repeat(Dataset::chunk_elems(cd))
                    };
                    let base = self.alloc_written(cb * total);
                    let mut coords = vec![0u64; grid.len()];
                    for i in 0..total {
                        let addr = base + i * cb;
                        self.put(addr, &one)?;
                        chunks.insert(
                            coords.clone(),
                            ChunkLoc {
                                addr,
                                size: cb,
                                cap: cb,
                                mask: 0,
                            },
                        );
                        for k in (0..grid.len()).rev() {
                            coords[k] += 1;
                            if coords[k] < grid[k] {
                                break;
                            }
                            coords[k] = 0;
                        }
                    }
                    *root = Some(base);
                    *dirty = true;
                }
            }
            Storage::Chunked { .. } => {
                let dims = d.dims();
                if let Storage::Chunked { dims: cd, .. } = &d.storage {
                    let grid: Vec<u64> =
                        dims.iter().zip(cd).map(|(&a, &c)| a.div_ceil(c)).collect();
                    let total: u64 = grid.iter().product();
                    for i in 0..total {
                        let mut rem = i;
                        let mut coords = vec![0u64; grid.len()];
                        for k in (0..grid.len()).rev() {
                            coords[k] = rem % grid[k];
                            rem /= grid[k];
                        }
                        if let Storage::Chunked { chunks, .. } = &d.storage {
                            if chunks.contains_key(&coords) {
                                continue;
                            }
                        }
                        let cd = match &d.storage {
                            Storage::Chunked { dims, .. } => dims.clone(),
                            _ => Vec::new(),
                        };
                        let data = d.filled(Dataset::chunk_elems(&cd));
                        self.store_chunk(d, &coords, data)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Filter and store one chunk's bytes (the full chunk shape).
    fn store_chunk(&mut self, d: &mut Dataset, coords: &[u64], data: Vec<u8>) -> Result<()> {
        let ctx = ChunkInfo::new(data.len());
        let (bytes, mask) = if d.filters.is_empty() {
            (data, 0)
        } else {
            self.filters.encode_chunk(&d.filters, 0, data, &ctx)?
        };
        let Storage::Chunked {
            chunks,
            dirty,
            index,
            ..
        } = &mut d.storage
        else {
            bail!(Format, "not chunked");
        };
        let in_place = *index == IndexKind::Implicit;
        let size = bytes.len() as u64;
        let loc = self.place_chunk(chunks.get(coords), size, mask, in_place);
        self.put(loc.addr, &bytes)?;
        chunks.insert(coords.to_vec(), loc);
        *dirty = true;
        Ok(())
    }

    /// Where a chunk of `size` stored bytes goes: over its old copy when that has room and
    /// no index on disk references it yet (or always, `in_place`, for the implicit index,
    /// whose chunks cannot move), otherwise in new space (the old copy is retired, and
    /// reused once no index on disk references it).
    fn place_chunk(
        &mut self,
        old: Option<&ChunkLoc>,
        size: u64,
        mask: u32,
        in_place: bool,
    ) -> ChunkLoc {
        match old {
            Some(l) if l.cap >= size && (in_place || self.is_fresh(l.addr)) => ChunkLoc {
                addr: l.addr,
                size,
                cap: l.cap,
                mask,
            },
            _ => {
                if let Some(l) = old {
                    self.retire(l.addr, l.cap);
                }
                ChunkLoc {
                    addr: self.alloc_written(size),
                    size,
                    cap: size,
                    mask,
                }
            }
        }
    }

    /// The bytes of chunk `coords` with `runs` (chunk offset, offset in `src`, length, in
    /// bytes) written over them from `src`. A chunk the runs cover whole, in order, is built
    /// from them alone in a buffer from `pool`; any other starts from its stored bytes or
    /// the fill value.
    fn chunk_with(
        &self,
        d: &Dataset,
        coords: &[u64],
        runs: &[(usize, usize, usize)],
        src: &[u8],
        chunk_bytes: usize,
        pool: &crate::filter::BufferPool,
    ) -> Result<Vec<u8>> {
        // Whole and in order: each run starts where the one before ends, the last at the
        // chunk's end.
        let end = runs.iter().try_fold(0usize, |end, &(f, _, l)| {
            (f == end).then(|| f.checked_add(l)).flatten()
        });
        if end == Some(chunk_bytes) {
            let mut bytes = pool.take();
            bytes.reserve_exact(chunk_bytes);
            for &(_, m, l) in runs {
                match m.checked_add(l).and_then(|e| src.get(m..e)) {
                    Some(s) => bytes.extend_from_slice(s),
                    None => bail!(Format, "chunk run outside the data"),
                }
            }
            return Ok(bytes);
        }
        let mut bytes = self.load_chunk(d, coords)?;
        for &(f, m, l) in runs {
            match (bytes.get_mut(f..f + l), src.get(m..m + l)) {
                (Some(dst), Some(src)) => dst.copy_from_slice(src),
                _ => bail!(Format, "chunk run outside the chunk"),
            }
        }
        Ok(bytes)
    }

    /// The unfiltered bytes of a chunk: stored, or filled when absent.
    fn load_chunk(&self, d: &Dataset, coords: &[u64]) -> Result<Vec<u8>> {
        let Storage::Chunked { dims, chunks, .. } = &d.storage else {
            bail!(Format, "not chunked");
        };
        let n = Dataset::chunk_elems(dims);
        match chunks.get(coords) {
            None => Ok(d.filled(n)),
            Some(l) => {
                let raw = self.get(l.addr, l.size)?;
                if d.filters.is_empty() {
                    Ok(raw)
                } else {
                    Ok(self.filters.decode_chunk(
                        &d.filters,
                        l.mask,
                        raw,
                        &ChunkInfo::new(n * d.elem()),
                    )?)
                }
            }
        }
    }

    /// The filter pipeline and chunk dimensions of a chunked dataset (`None` otherwise), as
    /// its layout and filter pipeline messages will say.
    pub(crate) fn chunk_setup(&self, ds: ObjId) -> Result<Option<(&[Filter], &[u64])>> {
        let d = self.dataset(ds)?;
        Ok(match &d.storage {
            Storage::Chunked { dims, .. } => Some((&d.filters[..], &dims[..])),
            _ => None,
        })
    }

    /// Store one chunk's bytes as they are, already filtered by the dataset's pipeline
    /// (`H5Dwrite_chunk`): `scaled` are the chunk's coordinates in chunks (element offset /
    /// chunk dimension, as [`crate::dataset::Dataset::raw_chunk`] takes them) and bit `i` of
    /// `filter_mask` says filter `i` was not applied. The bytes are not checked against the
    /// pipeline; a reader decodes them with it.
    pub fn write_raw_chunk(
        &mut self,
        ds: ObjId,
        scaled: &[u64],
        filter_mask: u32,
        bytes: &[u8],
    ) -> Result<()> {
        let path = self.object(ds)?.path.clone();
        self.object_mut(ds).map_err(|e| e.at_path(&path))?;
        let inner = |w: &mut Self| -> Result<()> {
            let d = w.dataset(ds)?;
            if let Storage::Chunked { dims: cd, .. } = &d.storage {
                let dims = d.dims();
                let inside = scaled.len() == dims.len()
                    && scaled
                        .iter()
                        .zip(&dims)
                        .zip(cd)
                        .all(|((&s, &n), &c)| s < n.div_ceil(c).max(1));
                ensure!(
                    inside || scaled.len() != dims.len(),
                    InvalidArgument,
                    "chunk {scaled:?} lies outside the dataset's extent {dims:?}"
                );
            }
            w.put_raw_chunk(ds, scaled, bytes, filter_mask)
        };
        inner(self).map_err(|e| e.at_path(&path))
    }

    /// Store one chunk's bytes as a chunk index records them: already filtered by this
    /// dataset's pipeline (`mask` says which filters were skipped). For copies of stored
    /// chunks; the pipeline must be the one they were encoded with.
    pub(crate) fn put_raw_chunk(
        &mut self,
        ds: ObjId,
        scaled: &[u64],
        bytes: &[u8],
        mask: u32,
    ) -> Result<()> {
        let d = self.dataset(ds)?;
        let Storage::Chunked { dims, chunks, .. } = &d.storage else {
            bail!(InvalidArgument, "{} is not chunked", self.object(ds)?.path);
        };
        ensure!(
            scaled.len() == dims.len(),
            InvalidArgument,
            "chunk coordinates of rank {} for chunks of rank {}",
            scaled.len(),
            dims.len()
        );
        let full = (Dataset::chunk_elems(dims) * d.elem()) as u64;
        ensure!(
            !d.filters.is_empty() || bytes.len() as u64 == full,
            BufferSize,
            "an unfiltered chunk of {} bytes, not {full}",
            bytes.len()
        );
        let size = bytes.len() as u64;
        let old = chunks.get(scaled).copied();
        let in_place = matches!(
            d.storage,
            Storage::Chunked {
                index: IndexKind::Implicit,
                ..
            }
        );
        let loc = self.place_chunk(old.as_ref(), size, mask, in_place);
        self.put(loc.addr, bytes)?;
        let o = self.object_mut(ds)?;
        if let Body::Dataset(d) = &mut o.body {
            if let Storage::Chunked { chunks, dirty, .. } = &mut d.storage {
                chunks.insert(scaled.to_vec(), loc);
                *dirty = true;
            }
        }
        Ok(())
    }

    /// The extent of a dataset.
    pub fn dataset_space(&self, ds: ObjId) -> Result<&Dataspace> {
        Ok(&self.dataset(ds)?.space)
    }

    /// The file datatype of a dataset.
    pub fn dataset_type(&self, ds: ObjId) -> Result<&Datatype> {
        Ok(&self.dataset(ds)?.datatype)
    }

    /// The chunk dimensions of a chunked dataset.
    pub fn dataset_chunk_dims(&self, ds: ObjId) -> Result<Option<Vec<u64>>> {
        Ok(match &self.dataset(ds)?.storage {
            Storage::Chunked { dims, .. } => Some(dims.clone()),
            _ => None,
        })
    }

    /// The filter pipeline of a dataset.
    pub fn dataset_filters(&self, ds: ObjId) -> Result<&[Filter]> {
        Ok(&self.dataset(ds)?.filters)
    }

    /// Write the elements of `selection` (all when `None`) from a memory image of type
    /// `mem` holding them in the selection's order. Compound members the memory type lacks
    /// keep their values in the file. Nothing changes when an error is returned, except
    /// unreferenced global heap objects.
    pub fn write_dataset(
        &mut self,
        ds: ObjId,
        selection: Option<&Selection>,
        mem: &Datatype,
        image: &[u8],
        heap: &VarLenHeap,
    ) -> Result<()> {
        let path = self.object(ds)?.path.clone();
        // A dataset of a file modified in place enters the model whole first (its chunks
        // are read from and written to).
        self.object_mut(ds)?;
        self.write_dataset_inner(ds, selection, mem, image, heap)
            .map_err(|e| e.at_path(&path))
    }

    fn write_dataset_inner(
        &mut self,
        ds: ObjId,
        selection: Option<&Selection>,
        mem: &Datatype,
        image: &[u8],
        heap: &VarLenHeap,
    ) -> Result<()> {
        let all = Selection::All;
        let sel = selection.unwrap_or(&all);
        let (space, file_type) = {
            let d = self.dataset(ds)?;
            (d.space.clone(), d.datatype.clone())
        };
        if space == Dataspace::Null {
            ensure!(
                image.is_empty(),
                BufferSize,
                "a null dataspace holds no elements"
            );
            return Ok(());
        }
        sel.validate(&space)?;
        let n = sel.npoints(&space) as usize;
        ensure!(
            image.len() == n * mem.size(),
            BufferSize,
            "{n} selected elements need {} bytes of memory type, got {}",
            n * mem.size(),
            image.len()
        );
        if n == 0 {
            return Ok(());
        }
        let es = file_size(&file_type);
        if mem == &file_type && !mem.has_variable_length() && es == mem.size() {
            // The image is the file's bytes already.
            return self.scatter(ds, sel, &space, image);
        }
        // Background: the current values (needed when the memory type lacks members).
        let mut fbuf = if matches!(file_type, Datatype::Compound(_)) {
            self.read_selection(ds, sel, &space)?
        } else {
            vec![0u8; n * es]
        };
        self.convert_to_file(mem, &file_type, image, heap, &mut fbuf, n)?;
        self.scatter(ds, sel, &space, &fbuf)
    }

    /// The file bytes of the selected elements, in selection order.
    fn read_selection(&self, ds: ObjId, sel: &Selection, space: &Dataspace) -> Result<Vec<u8>> {
        let d = self.dataset(ds)?;
        let es = d.elem();
        let n = sel.npoints(space) as usize;
        let mut out = vec![0u8; n * es];
        let fill1 = d.filled(1);
        match &d.storage {
            Storage::Compact(_) | Storage::Contiguous(_) => {
                for r in sel.runs(space)? {
                    let (f, m, l) = (
                        r.offset as usize * es,
                        r.rank as usize * es,
                        r.len as usize * es,
                    );
                    let dst = &mut out[m..m + l];
                    match &d.storage {
                        Storage::Compact(v) if !v.is_empty() => match v.get(f..f + l) {
                            Some(b) => dst.copy_from_slice(b),
                            None => bail!(Format, "run outside the compact data"),
                        },
                        Storage::Contiguous(Some(a)) => {
                            dst.copy_from_slice(&self.get(a + f as u64, l as u64)?);
                        }
                        _ => {
                            for e in dst.chunks_exact_mut(es) {
                                e.copy_from_slice(&fill1);
                            }
                        }
                    }
                }
            }
            Storage::Chunked { dims, .. } => {
                for c in sel.chunks(space, dims)? {
                    let bytes = self.load_chunk(d, c.coords())?;
                    for r in c.runs() {
                        let (f, m, l) = (
                            r.offset as usize * es,
                            r.rank as usize * es,
                            r.len as usize * es,
                        );
                        match bytes.get(f..f + l) {
                            Some(b) => out[m..m + l].copy_from_slice(b),
                            None => bail!(Format, "chunk run outside the chunk"),
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// Store file bytes of the selected elements (in selection order).
    fn scatter(
        &mut self,
        ds: ObjId,
        sel: &Selection,
        space: &Dataspace,
        fbuf: &[u8],
    ) -> Result<()> {
        let mut d = match std::mem::replace(
            &mut self.object_mut(ds)?.body,
            Body::Datatype(<u8 as h5_types::H5Type>::h5_type()),
        ) {
            Body::Dataset(d) => d,
            other => {
                self.object_mut(ds)?.body = other;
                bail!(InvalidArgument, "not a dataset");
            }
        };
        let r = self.scatter_into(&mut d, sel, space, fbuf);
        self.object_mut(ds)?.body = Body::Dataset(d);
        r
    }

    fn scatter_into(
        &mut self,
        d: &mut Dataset,
        sel: &Selection,
        space: &Dataspace,
        fbuf: &[u8],
    ) -> Result<()> {
        let es = d.elem();
        // Compute everything that can fail before changing anything.
        match &d.storage {
            Storage::Compact(_) | Storage::Contiguous(_) => {
                let runs: Vec<_> = sel.runs(space)?.collect();
                let total = npoints(space) as usize;
                for r in &runs {
                    ensure!(
                        (r.offset + r.len) as usize <= total
                            && (r.rank + r.len) as usize * es <= fbuf.len(),
                        Format,
                        "run outside the dataset"
                    );
                }
                if matches!(d.storage, Storage::Compact(ref v) if v.is_empty())
                    || matches!(d.storage, Storage::Contiguous(None))
                {
                    self.allocate_all(d)?;
                }
                for r in runs {
                    let (f, m, l) = (
                        r.offset as usize * es,
                        r.rank as usize * es,
                        r.len as usize * es,
                    );
                    match &mut d.storage {
                        Storage::Compact(v) => v[f..f + l].copy_from_slice(&fbuf[m..m + l]),
                        Storage::Contiguous(Some(a)) => {
                            let a = *a;
                            self.put(a + f as u64, &fbuf[m..m + l])?;
                        }
                        _ => bail!(Format, "storage not allocated"),
                    }
                }
            }
            Storage::Chunked { dims, .. } => {
                let dims = dims.clone();
                let chunk_bytes = Dataset::chunk_elems(&dims) * es;
                // Each chunk the selection touches, with its runs in bytes (chunk offset,
                // offset in `fbuf`, length).
                let mut updates = Vec::new();
                for c in sel.chunks(space, &dims)? {
                    let runs: Vec<(usize, usize, usize)> = c
                        .runs()
                        .map(|r| {
                            (
                                r.offset as usize * es,
                                r.rank as usize * es,
                                r.len as usize * es,
                            )
                        })
                        .collect();
                    updates.push((c.coords().to_vec(), runs));
                }
                // Filter every chunk first so a filter error changes nothing; several chunks
                // are made and filtered in parallel (on all cores), each in buffers handed
                // from chunk to chunk (`pool`), so only the encoded bytes are kept.
                let pool = crate::filter::BufferPool::new(2 * rayon::current_num_threads() + 2);
                let this = &*self;
                let encode = |(coords, runs): (Vec<u64>, Vec<(usize, usize, usize)>)| {
                    let bytes = this.chunk_with(d, &coords, &runs, fbuf, chunk_bytes, &pool)?;
                    let ctx = ChunkInfo::new(bytes.len());
                    let enc = if d.filters.is_empty() {
                        (bytes, 0)
                    } else {
                        this.filters
                            .encode_chunk_in(&d.filters, 0, bytes, &ctx, &pool)?
                    };
                    Ok((coords, enc))
                };
                let encoded: Vec<_> = if updates.len() > 1 && !d.filters.is_empty() {
                    updates
                        .into_par_iter()
                        .map(encode)
                        .collect::<Result<Vec<_>>>()?
                } else {
                    updates
                        .into_iter()
                        .map(encode)
                        .collect::<Result<Vec<_>>>()?
                };
                let Storage::Chunked {
                    chunks,
                    dirty,
                    index,
                    ..
                } = &mut d.storage
                else {
                    bail!(Format, "not chunked");
                };
                let in_place = *index == IndexKind::Implicit;
                for (coords, (bytes, mask)) in encoded {
                    let size = bytes.len() as u64;
                    let loc = self.place_chunk(chunks.get(&coords), size, mask, in_place);
                    self.put(loc.addr, &bytes)?;
                    chunks.insert(coords, loc);
                    *dirty = true;
                }
            }
        }
        Ok(())
    }

    /// Change the current dimensions of a chunked dataset within its maximum dimensions.
    /// Chunks entirely outside the new extent are dropped; elements of kept chunks that fall
    /// outside it are reset to the fill value (so growing again shows fill values).
    pub fn resize(&mut self, ds: ObjId, new_dims: &[u64]) -> Result<()> {
        let path = self.object(ds)?.path.clone();
        self.object_mut(ds).map_err(|e| e.at_path(&path))?;
        let d = self.dataset(ds)?;
        let Dataspace::Simple { dims, maxdims } = &d.space else {
            bail!(
                InvalidArgument,
                "{path}: only simple dataspaces can be resized"
            );
        };
        let space = Dataspace::with_max(new_dims, maxdims)
            .map_err(|e| Error::new(ErrorKind::InvalidArgument, e.to_string()).at_path(&path))?;
        let old = dims.clone();
        let Storage::Chunked { dims: cd, .. } = &d.storage else {
            bail!(
                InvalidArgument,
                "{path}: only chunked datasets can be resized"
            );
        };
        ensure!(
            !matches!(
                d.storage,
                Storage::Chunked {
                    index: IndexKind::Implicit,
                    ..
                }
            ),
            Unsupported,
            "{path}: a dataset with an implicit chunk index cannot change size"
        );
        let cd = cd.clone();
        // Chunks to drop or to clear partly.
        let mut drop = Vec::new();
        let mut clear = Vec::new();
        if let Storage::Chunked { chunks, .. } = &d.storage {
            for coords in chunks.keys() {
                let start: Vec<u64> = coords.iter().zip(&cd).map(|(c, d)| c * d).collect();
                if start.iter().zip(new_dims).any(|(s, n)| s >= n) {
                    drop.push(coords.clone());
                } else if start
                    .iter()
                    .zip(&cd)
                    .zip(new_dims.iter().zip(&old))
                    .any(|((s, c), (n, o))| s + c > *n && n < o)
                {
                    clear.push(coords.clone());
                }
            }
        }
        let mut cleared = Vec::new();
        for coords in clear {
            let mut bytes = self.load_chunk(d, &coords)?;
            let es = d.elem();
            let fill = d.filled(1);
            let rank = cd.len();
            let n = Dataset::chunk_elems(&cd);
            for i in 0..n {
                let mut rem = i as u64;
                let mut outside = false;
                for k in (0..rank).rev() {
                    let x = coords[k] * cd[k] + rem % cd[k];
                    rem /= cd[k];
                    if x >= new_dims[k] {
                        outside = true;
                    }
                }
                if outside {
                    bytes[i * es..(i + 1) * es].copy_from_slice(&fill);
                }
            }
            cleared.push((coords, bytes));
        }
        let Body::Dataset(mut d) = std::mem::replace(
            &mut self.object_mut(ds)?.body,
            Body::Datatype(<u8 as h5_types::H5Type>::h5_type()),
        ) else {
            bail!(Format, "not a dataset");
        };
        let mut r = Ok(());
        for (coords, bytes) in cleared {
            r = self.store_chunk(&mut d, &coords, bytes);
            if r.is_err() {
                break;
            }
        }
        if r.is_ok() {
            if let Storage::Chunked { chunks, dirty, .. } = &mut d.storage {
                for c in &drop {
                    if let Some(l) = chunks.remove(c) {
                        self.retire(l.addr, l.cap);
                    }
                }
                *dirty = true;
            }
            d.space = space;
            if d.alloc_time == ALLOC_EARLY {
                r = self.allocate_all(&mut d);
            }
        }
        self.object_mut(ds)?.body = Body::Dataset(d);
        r.map_err(|e| e.at_path(&path))
    }
}

/// Write a fixed array chunk index (header and data block, paged when large) for a dataset of
/// `dims` with chunks of `cdims`; returns the header's address. Reuses `block` when it fits.
fn write_fixed_array(
    w: &mut FileWriter,
    dims: &[u64],
    cdims: &[u64],
    chunks: &BTreeMap<Vec<u64>, ChunkLoc>,
    filtered: bool,
    chunk_bytes: u64,
    block: &mut (u64, u64),
) -> Result<u64> {
    let grid: Vec<u64> = dims
        .iter()
        .zip(cdims)
        .map(|(&d, &c)| d.div_ceil(c))
        .collect();
    let n: u64 = grid.iter().product();
    let mut elements = Vec::with_capacity(n as usize);
    let mut coords = vec![0u64; grid.len()];
    for _ in 0..n {
        let e = match chunks.get(&coords) {
            Some(l) if filtered => ChunkElement::Filtered {
                address: Addr(l.addr),
                chunk_size: l.size,
                filter_mask: l.mask,
            },
            Some(l) => ChunkElement::Chunk(Addr(l.addr)),
            None if filtered => ChunkElement::Filtered {
                address: Addr::UNDEF,
                chunk_size: 0,
                filter_mask: 0,
            },
            None => ChunkElement::Chunk(Addr::UNDEF),
        };
        elements.push(e);
        for k in (0..grid.len()).rev() {
            coords[k] += 1;
            if coords[k] < grid[k] {
                break;
            }
            coords[k] = 0;
        }
    }
    let h = FixedArrayHeader {
        client: if filtered {
            ci::CLIENT_FILTERED_CHUNK
        } else {
            ci::CLIENT_CHUNK
        },
        element_size: ci::element_size(w.sizes, filtered, chunk_bytes),
        page_bits: FA_PAGE_BITS,
        nelements: n,
        data_block: Addr::UNDEF,
    };
    let per_page = 1usize << FA_PAGE_BITS;
    let block_elements = if h.npages() > 0 {
        BlockElements::Paged(
            elements
                .chunks(per_page)
                .map(|p| Some(p.to_vec()))
                .collect(),
        )
    } else {
        BlockElements::Inline(elements)
    };
    let hsize = FixedArrayHeader::encoded_size(w.sizes) as u64;
    let mut probe = Writer::new(w.sizes);
    FixedArrayDataBlock {
        client: h.client,
        header: Addr(0),
        elements: block_elements.clone(),
    }
    .encode(&mut probe, &h);
    // The header and the data block in one block (the data block on a page of its own when
    // it would cross one of paged aggregation).
    let (offsets, total) = super::paged::block_layout(w.page_size(), &[hsize, probe.len() as u64]);
    let data_at = offsets.get(1).copied().unwrap_or(hsize);
    let sizes = w.sizes;
    let image = |at: u64| {
        let mut h = h.clone();
        h.data_block = Addr(at + data_at);
        let mut head = Writer::new(sizes);
        h.encode(&mut head);
        let mut data = Writer::new(sizes);
        FixedArrayDataBlock {
            client: h.client,
            header: Addr(at),
            elements: block_elements.clone(),
        }
        .encode(&mut data, &h);
        super::paged::assemble(total, [(0, head.into_vec()), (data_at, data.into_vec())])
    };
    // Unchanged where it is: kept. Otherwise new space (the flush retires the old blocks).
    if total == block.1 && w.same_bytes(block.0, &image(block.0))? {
        return Ok(block.0);
    }
    *block = (w.alloc(total), total);
    let at = block.0;
    let bytes = image(at);
    w.put(at, &bytes)?;
    Ok(at)
}

impl Dataset {
    /// The model of a dataset read from a file, to modify it where it is: its file datatype,
    /// extent, storage, filters and fill value. Chunks are added with
    /// [`Dataset::set_loaded_chunk`]. Virtual datasets, external storage and chunks that skip
    /// filters on partial edge chunks are refused (the model has none of them).
    pub(crate) fn loaded(src: &crate::dataset::Dataset) -> Result<Dataset> {
        ensure!(
            src.external_files().is_none(),
            Unsupported,
            "raw data in external files cannot be modified in place"
        );
        let rank = src.dataspace().rank();
        let storage = match &src.layout().class {
            LayoutClass::Compact { data, .. } => Storage::Compact(data.clone()),
            LayoutClass::Contiguous { address, .. } => Storage::Contiguous(address.get()),
            LayoutClass::Chunked {
                flags,
                dims,
                index,
                address,
                ..
            } => {
                ensure!(
                    flags & h5_format::message::layout::CHUNK_DONT_FILTER_PARTIAL_BOUND_CHUNKS == 0,
                    Unsupported,
                    "chunks that leave partial edge chunks unfiltered cannot be modified in place"
                );
                ensure!(
                    dims.len() >= rank && rank > 0,
                    Format,
                    "chunk dimensions of rank {} for a dataset of rank {rank}",
                    dims.len()
                );
                let kind = match index {
                    None => IndexKind::BTreeV1,
                    Some(ChunkIndex::SingleChunk { .. }) => IndexKind::Single,
                    Some(ChunkIndex::Implicit) => IndexKind::Implicit,
                    Some(ChunkIndex::FixedArray { .. }) => IndexKind::FixedArray,
                    Some(ChunkIndex::ExtensibleArray { .. }) => {
                        let k = src
                            .dataspace()
                            .maxdims()
                            .iter()
                            .position(|&m| m == UNLIMITED)
                            .unwrap_or(0);
                        IndexKind::ExtArray(k)
                    }
                    Some(ChunkIndex::BTreeV2 { .. }) => IndexKind::BTreeV2,
                };
                Storage::Chunked {
                    index: kind,
                    dims: dims[..rank].to_vec(),
                    chunks: BTreeMap::new(),
                    root: address.get(),
                    block: (0, 0),
                    dirty: false,
                }
            }
            LayoutClass::Virtual { .. } => {
                bail!(Unsupported, "a virtual dataset cannot be modified in place")
            }
        };
        let fill = src.fill_value();
        Ok(Dataset {
            datatype: src.datatype().clone(),
            committed: None,
            space: src.dataspace().clone(),
            storage,
            filters: src.filters().to_vec(),
            fill: fill.value.clone(),
            fill_defined: fill.defined,
            alloc_time: match fill.alloc_time {
                crate::dataset::AllocTime::Early => ALLOC_EARLY,
                crate::dataset::AllocTime::Late => ALLOC_LATE,
                crate::dataset::AllocTime::Incremental => ALLOC_INCR,
                crate::dataset::AllocTime::Default => match &src.layout().class {
                    LayoutClass::Compact { .. } => ALLOC_EARLY,
                    LayoutClass::Contiguous { .. } => ALLOC_LATE,
                    _ => ALLOC_INCR,
                },
            },
            fill_time: fill.fill_time,
        })
    }

    /// A model of a dataset the writer cannot modify (kept as it is in the file): its type
    /// and extent only.
    pub(crate) fn stand_in(datatype: Datatype, space: Dataspace) -> Dataset {
        Dataset {
            datatype,
            committed: None,
            space,
            storage: Storage::Contiguous(None),
            filters: Vec::new(),
            fill: None,
            fill_defined: true,
            alloc_time: ALLOC_LATE,
            fill_time: FillTime::IfSet,
        }
    }

    /// The chunked storage's chunk dimensions, index address and whether it has filters,
    /// to find the chunks of a dataset read from a file.
    pub(crate) fn chunk_grid(&self) -> Option<(&[u64], Option<u64>)> {
        match &self.storage {
            Storage::Chunked { dims, root, .. } => Some((dims, *root)),
            _ => None,
        }
    }

    /// The raw data blocks the dataset owns (contiguous storage, its chunks, or the one
    /// block of an implicit index's chunks), as (address, length): what freeing it returns.
    pub(crate) fn storage_blocks(&self) -> Vec<(u64, u64)> {
        match &self.storage {
            Storage::Compact(_) | Storage::Contiguous(None) => Vec::new(),
            Storage::Contiguous(Some(a)) => vec![(*a, npoints(&self.space) * self.elem() as u64)],
            Storage::Chunked {
                index: IndexKind::Implicit,
                root: Some(base),
                dims,
                ..
            } => {
                // Every chunk up to the maximum dimensions, in one block.
                let max = match &self.space {
                    Dataspace::Simple { maxdims, .. } => maxdims.clone(),
                    _ => Vec::new(),
                };
                let total: u64 = max
                    .iter()
                    .zip(dims)
                    .map(|(&m, &c)| m.div_ceil(c.max(1)))
                    .product();
                let cb = Dataset::chunk_elems(dims) as u64 * self.elem() as u64;
                vec![(*base, cb * total)]
            }
            Storage::Chunked { chunks, .. } => chunks.values().map(|l| (l.addr, l.cap)).collect(),
        }
    }

    /// Record a stored chunk of a dataset read from a file.
    pub(crate) fn set_loaded_chunk(&mut self, scaled: Vec<u64>, addr: u64, size: u64, mask: u32) {
        if let Storage::Chunked { chunks, .. } = &mut self.storage {
            chunks.insert(
                scaled,
                ChunkLoc {
                    addr,
                    size,
                    cap: size,
                    mask,
                },
            );
        }
    }
}
