//! Datasets: metadata (datatype, dataspace, layout, filters, fill value) and reading their
//! data by selection from every storage layout (compact, contiguous, external files, chunked
//! through every chunk index, virtual), in the file's datatype ([`Dataset::read_raw`]) or
//! converted to a Rust type ([`Dataset::read`]).
//!
//! Only the chunks a selection touches are read; decoding runs on all cores (rayon) when a
//! read touches several filtered chunks, and a chunk the read holds whole that lies
//! contiguously in the output is decoded straight into it.

use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use h5_format::message::datatype::disk_size;
use h5_format::message::external_files::ExternalFiles;
use h5_format::message::fill_value::{alloc_time, fill_time};
use h5_format::message::layout::{
    ChunkIndex, Layout, LayoutClass, CHUNK_DONT_FILTER_PARTIAL_BOUND_CHUNKS,
};
use h5_format::message::{Message, MessageType};
use h5_format::{limits, Addr};
use h5_types::convert::{Converter, VarLenHeap};

use crate::reader::Conversion;
use h5_types::h5type::decode_slice;
use h5_types::{Datatype, H5Type};

use crate::attribute::{self, Attribute};
use crate::chunks::Index;
use crate::error::{bail, ensure, Error, ErrorKind, Result};
use crate::file::File;
use crate::filter::{ChunkInfo, Filter};
use crate::group::Location;
use crate::object::Object;
use crate::selection::{
    copy_to_memory, nc_access, Dataspace, MemoryMap, NcForm, NcMode, Selection,
};

/// The bytes (of the larger of the file's and the memory's element size) converted per
/// block when a read converts as it reads.
const CONVERT_BLOCK_BYTES: usize = 256 * 1024;

/// The smallest piece a large contiguous read is split into, to be read by several threads
/// at once: the copies out of the page cache (and the page faults of a freshly allocated
/// output) then run on every core.
const PARALLEL_READ_PIECE: usize = 4 << 20;

/// The largest buffer one read allocates.
pub const MAX_READ_BYTES: u64 = 1 << 36;

/// The datatype of an object's Datatype message.
pub fn datatype_of(obj: &Object) -> Result<Datatype> {
    match obj.message(MessageType::DATATYPE)? {
        Some(Message::Datatype(d)) => Ok(d.datatype.clone()),
        _ => bail!(Format, "no datatype message"),
    }
}

/// When a dataset's storage is allocated (`H5D_alloc_time_t`, `H5Pset_alloc_time`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AllocTime {
    /// When the dataset is created.
    Early,
    /// When data is first written.
    Late,
    /// Chunk by chunk, as written.
    Incremental,
    /// The layout's default: early for compact storage, late for contiguous, incremental
    /// for chunked (also what an old fill value message, which does not say, means).
    #[default]
    Default,
}

/// When the fill value is written (`H5D_fill_time_t`, `H5Pset_fill_time`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FillTime {
    /// When storage is allocated.
    OnAlloc,
    /// Never: unwritten elements are undefined (read here as zeros).
    Never,
    /// When storage is allocated, if the user set a fill value.
    #[default]
    IfSet,
}

/// A dataset's fill value properties.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FillValue {
    /// Allocation time.
    pub alloc_time: AllocTime,
    /// Fill time.
    pub fill_time: FillTime,
    /// Whether a value is defined (`false`: the library default, zeros).
    pub defined: bool,
    /// The user-defined value, in the dataset's file datatype.
    pub value: Option<Vec<u8>>,
}

/// A dataset.
#[derive(Clone, Debug)]
pub struct Dataset {
    loc: Location,
    obj: Arc<Object>,
    datatype: Datatype,
    space: Dataspace,
    layout: Layout,
    filters: Vec<Filter>,
    fill: FillValue,
    external: Option<ExternalFiles>,
    index: Arc<OnceLock<std::result::Result<Index, String>>>,
    /// Decoded chunks kept for the next read ([`crate::chunk_cache`]); with `index`, all
    /// the state a dataset keeps of its raw data.
    chunk_cache: Arc<crate::chunk_cache::ChunkCache>,
}

impl Dataset {
    /// The dataset at a location.
    pub fn at(loc: Location) -> Result<Dataset> {
        Self::load(&loc).map_err(|e| e.at(&loc.path))
    }

    fn load(loc: &Location) -> Result<Dataset> {
        let obj = loc.object()?;
        let datatype = datatype_of(&obj)?;
        let space = match obj.message(MessageType::DATASPACE)? {
            Some(Message::Dataspace(s)) => Dataspace::from_message(s)?,
            _ => bail!(Format, "no dataspace message"),
        };
        let layout = match obj.message(MessageType::LAYOUT)? {
            Some(Message::Layout(l)) => l.clone(),
            _ => bail!(WrongKind, "not a dataset (no layout message)"),
        };
        let filters = match obj.message(MessageType::FILTER_PIPELINE)? {
            Some(Message::FilterPipeline(p)) => p.filters.clone(),
            _ => Vec::new(),
        };
        // A fill value message that does not decode makes the dataset unopenable, as in the
        // reference library (`H5D__open_oid`: "can't retrieve message").
        let fill = match obj.message(MessageType::FILL_VALUE)? {
            Some(Message::FillValue(f)) => FillValue {
                alloc_time: match f.alloc_time {
                    alloc_time::EARLY => AllocTime::Early,
                    alloc_time::LATE => AllocTime::Late,
                    alloc_time::INCREMENTAL => AllocTime::Incremental,
                    _ => AllocTime::Default,
                },
                fill_time: match f.fill_time {
                    fill_time::NEVER => FillTime::Never,
                    fill_time::IF_SET => FillTime::IfSet,
                    _ => FillTime::OnAlloc,
                },
                defined: f.defined,
                value: f.value.clone().filter(|v| !v.is_empty()),
            },
            _ => {
                let old = match obj.message(MessageType::FILL_VALUE_OLD)? {
                    Some(Message::FillValueOld(f)) if !f.value.is_empty() => {
                        ensure!(
                            f.value.len() as u64 == disk_size(&datatype, loc.file.sizes()),
                            Format,
                            "old fill value of {} bytes for a datatype of {}",
                            f.value.len(),
                            disk_size(&datatype, loc.file.sizes())
                        );
                        Some(f.value.clone())
                    }
                    _ => None,
                };
                FillValue {
                    alloc_time: AllocTime::Default,
                    fill_time: FillTime::IfSet,
                    defined: old.is_some(),
                    value: old,
                }
            }
        };
        let space = match &layout.class {
            LayoutClass::Virtual {
                heap_address,
                heap_index,
            } if space.maxdims().contains(&crate::selection::UNLIMITED) => {
                crate::vds::virtual_extent(&loc.file, *heap_address, *heap_index, &space)?
            }
            _ => space,
        };
        let external = match obj.message(MessageType::EXTERNAL_FILES)? {
            Some(Message::ExternalFiles(e)) => Some(e.clone()),
            _ => None,
        };
        Ok(Dataset {
            loc: loc.clone(),
            obj,
            datatype,
            space,
            layout,
            filters,
            fill,
            external,
            index: Arc::new(OnceLock::new()),
            chunk_cache: Arc::default(),
        })
    }

    /// Where the dataset is.
    pub fn location(&self) -> &Location {
        &self.loc
    }

    /// The dataset's path.
    pub fn path(&self) -> &str {
        &self.loc.path
    }

    /// The file holding it.
    pub fn file(&self) -> &File {
        &self.loc.file
    }

    /// The decoded object header.
    pub fn object(&self) -> &Object {
        &self.obj
    }

    /// The datatype as stored.
    pub fn datatype(&self) -> &Datatype {
        &self.datatype
    }

    /// The dataspace.
    pub fn dataspace(&self) -> &Dataspace {
        &self.space
    }

    /// The current dimension sizes (empty for a scalar).
    pub fn shape(&self) -> Vec<u64> {
        self.space.dims().to_vec()
    }

    /// The number of elements.
    pub fn len(&self) -> u64 {
        self.space.npoints()
    }

    /// Whether the dataset has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The storage layout message.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The chunk dimensions of a chunked dataset.
    pub fn chunk_dims(&self) -> Option<Vec<u64>> {
        match &self.layout.class {
            LayoutClass::Chunked { dims, .. } => {
                Some(dims.iter().take(self.space.rank()).copied().collect())
            }
            _ => None,
        }
    }

    /// The filter pipeline (empty when unfiltered).
    pub fn filters(&self) -> &[Filter] {
        &self.filters
    }

    /// The fill value properties.
    pub fn fill_value(&self) -> &FillValue {
        &self.fill
    }

    /// The external files of external storage, if any.
    pub fn external_files(&self) -> Option<&ExternalFiles> {
        self.external.as_ref()
    }

    /// The size in bytes of one element as stored.
    pub fn element_size(&self) -> usize {
        disk_size(&self.datatype, self.loc.file.sizes()) as usize
    }

    /// The attribute `name`.
    pub fn attr(&self, name: &str) -> Result<Attribute> {
        attribute::attribute(&self.loc, name)
    }

    /// Every attribute, in name order.
    pub fn attrs(&self) -> Result<Vec<Attribute>> {
        attribute::attributes(&self.loc)
    }

    /// Every attribute, in creation order (when the object tracks it).
    pub fn attrs_by_creation_order(&self) -> Result<Vec<Attribute>> {
        attribute::attributes_by_creation_order(&self.loc)
    }

    /// Every element in the file's datatype (variable-length values as global heap
    /// references, as stored), with that datatype.
    pub fn read_raw(&self) -> Result<(Vec<u8>, Datatype)> {
        let n = self.space.npoints();
        let b = self.read_raw_selection(&Selection::All, &MemoryMap::packed(n))?;
        Ok((b, self.datatype.clone()))
    }

    /// The selected elements in the file's datatype, placed in a buffer as `mem` says
    /// (elements of the buffer not selected hold the fill value).
    pub fn read_raw_selection(&self, sel: &Selection, mem: &MemoryMap) -> Result<Vec<u8>> {
        self.read_raw_impl(sel, mem)
            .map_err(|e| e.at(&self.loc.path))
    }

    /// Whether reads of this dataset as `T` fill the result's memory straight from the
    /// stored bytes (`pread` into it, chunks copied into it) with nothing converted or
    /// decoded per element: `T`'s memory is its byte image ([`H5Type::has_byte_image`]: the
    /// primitive numbers, derived structs marked `#[h5(zerocopy)]`) and the file's datatype
    /// is `T`'s memory type byte for byte (same members at the same offsets, same sizes,
    /// byte order and padding). Otherwise the elements are converted (inside the result's
    /// memory when `T` has a byte image, through a buffer and decoded value by value when
    /// not).
    pub fn reads_directly<T: H5Type>(&self) -> bool {
        T::has_byte_image()
            && !self.datatype.has_variable_length()
            && self.element_size() == self.datatype.size()
            && self.element_size() == T::IMAGE_SIZE
            && T::read_type(&self.datatype) == self.datatype
    }

    /// Every element converted to `T`.
    pub fn read<T: H5Type>(&self) -> Result<Vec<T>> {
        self.read_all(Conversion::DEFAULT)
            .map_err(|e| e.at(&self.loc.path))
    }

    pub(crate) fn read_all<T: H5Type>(&self, cv: Conversion) -> Result<Vec<T>> {
        let n = self.space.npoints();
        if self.reads_directly::<T>() {
            return self.read_directly(&Selection::All, &MemoryMap::packed(n));
        }
        let esize = self.element_size();
        let plain = !self.datatype.has_variable_length() && esize == self.datatype.size();
        if let (true, LayoutClass::Contiguous { address, .. }, None) =
            (plain, &self.layout.class, &self.external)
        {
            if !address.is_undef() && esize > 0 {
                let conv = Converter::new(&self.datatype, &T::read_type(&self.datatype))?;
                if !conv.is_noop() && conv.is_elementwise() && conv.dst().size() > 0 {
                    let n = usize::try_from(n)
                        .map_err(|_| Error::new(ErrorKind::LimitExceeded, "read too large"))?;
                    return self.read_contiguous_converted(address.0, n, esize, &conv, cv);
                }
            }
        }
        self.read_as_with(&Selection::All, &MemoryMap::packed(n), cv)
    }

    /// All `n` elements of contiguous storage at `a`, converted to `T` a block at a time as
    /// they are read (as the reference library converts through its type conversion
    /// buffer): neither the file's bytes nor the converted image are ever held whole.
    fn read_contiguous_converted<T: H5Type>(
        &self,
        a: u64,
        n: usize,
        esize: usize,
        conv: &Converter,
        cv: Conversion,
    ) -> Result<Vec<T>> {
        let tsize = conv.dst().size();
        ensure!(
            tsize == T::IMAGE_SIZE,
            Datatype,
            "the memory type's size {tsize} differs from the Rust type's"
        );
        let raw = self.loc.file.raw();
        let need = (n as u64).saturating_mul(esize as u64);
        ensure!(
            a.checked_add(need).is_some_and(|e| e <= raw.end()),
            Format,
            "contiguous storage of {need} bytes at {a:#x} extends past the end of the file ({:#x})",
            raw.end()
        );
        let total = n
            .checked_mul(tsize)
            .filter(|&t| t as u64 <= MAX_READ_BYTES)
            .ok_or_else(|| too_large(n as u64, tsize))?;
        check_alloc(total)?;
        let block = (CONVERT_BLOCK_BYTES / esize.max(tsize)).max(1);
        // Read and convert elements `first..` into `bytes` (a whole number of converted
        // elements), a block at a time on all cores. Blocks are independent: each is read
        // and converted straight into its place (the reads are positioned, so they overlap
        // with the conversions of other blocks). A strict read's loss is kept for the lowest
        // element of all blocks, whichever block finds its loss first.
        // `zeroed`: `bytes` holds zeros (a fresh vector), the background of members the
        // file lacks, so no block needs clearing first.
        // The blocks' input buffers: one per worker thread, for the whole read.
        let threads = rayon::current_num_threads().max(1);
        let buffers: Vec<std::sync::Mutex<Vec<u8>>> = (0..threads)
            .map(|_| std::sync::Mutex::new(Vec::new()))
            .collect();
        let convert_range = |bytes: &mut [u8], first: usize, zeroed: bool| -> Result<()> {
            let lowest_loss = std::sync::Mutex::new(None::<h5_types::Error>);
            // One task per block (the pool balances them across busy cores), each read
            // into its worker's buffer (a block of records, cache-sized: L2 holds it while
            // its members are gathered) and converted from there into its place. The
            // buffers are one per worker thread for the whole read (`try_for_each_init`
            // would make one per split of the work: a fresh, zeroed block each time).
            bytes
                .par_chunks_mut(block * tsize)
                .enumerate()
                .try_for_each(|(k, out)| -> Result<()> {
                    let slot = rayon::current_thread_index().unwrap_or(0) % threads;
                    let mut input = buffers[slot].lock().unwrap_or_else(|p| p.into_inner());
                    let len = out.len() / tsize;
                    let at = first + k * block;
                    // A strict read that lost a value before this block fails with it.
                    if lowest_loss
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .as_ref()
                        .is_some_and(|l| l.element().is_some_and(|e| e < at))
                    {
                        return Ok(());
                    }
                    if input.len() < len * esize {
                        input.resize(len * esize, 0);
                    }
                    let input = &mut input[..len * esize];
                    raw.read_into(Addr(a + (at * esize) as u64), input)?;
                    if !zeroed && conv.needs_background() {
                        // Members the file lacks read as zeros.
                        out.fill(0);
                    }
                    match conv.convert(input, out, len, &mut cv.options()) {
                        Err(e) if e.kind() == h5_types::ErrorKind::Lossy => {
                            let e = e.offset_element(at);
                            let mut lowest = lowest_loss.lock().unwrap_or_else(|p| p.into_inner());
                            if lowest.as_ref().is_none_or(|l| e.element() < l.element()) {
                                *lowest = Some(e);
                            }
                            Ok(())
                        }
                        r => r.map_err(|e| e.offset_element(at).into()),
                    }
                })?;
            match lowest_loss.into_inner().unwrap_or_else(|p| p.into_inner()) {
                Some(e) => Err(e.into()),
                None => Ok(()),
            }
        };
        if let Some(mut values) = fresh_values::<T>(n) {
            if let Some(bytes) = T::image_bytes_mut(&mut values) {
                convert_range(bytes, 0, true)?;
                return Ok(values);
            }
        }
        // Types decoded value by value (derived structs, say): converted a stretch of
        // blocks at a time in parallel, each stretch decoded before the next (a bounded
        // working set beside the result).
        let stretch = block * (rayon::current_num_threads() * 16).max(16);
        let mut values = Vec::new();
        values.try_reserve_exact(n).map_err(|_| {
            Error::new(
                ErrorKind::LimitExceeded,
                format!("cannot allocate {total} bytes"),
            )
        })?;
        let mut out = vec![0u8; stretch.min(n) * tsize];
        let heap = VarLenHeap::new();
        for i in (0..n).step_by(stretch) {
            let len = stretch.min(n - i);
            let out = &mut out[..len * tsize];
            convert_range(out, i, false)?;
            for (j, e) in out.chunks_exact(tsize).enumerate() {
                values.push(T::decode(e, &heap).map_err(|e| e.with_element(i + j))?);
            }
        }
        Ok(values)
    }

    /// The selected elements converted to `T`, in the selection's order.
    pub fn read_selection<T: H5Type>(&self, sel: &Selection) -> Result<Vec<T>> {
        self.read_selection_with(sel, Conversion::DEFAULT)
    }

    pub(crate) fn read_selection_with<T: H5Type>(
        &self,
        sel: &Selection,
        cv: Conversion,
    ) -> Result<Vec<T>> {
        let n = sel.npoints(&self.space);
        self.read_as_with(sel, &MemoryMap::packed(n), cv)
            .map_err(|e| e.at(&self.loc.path))
    }

    /// The selected elements converted to `T`, in the selection's order, into `out` (whose
    /// length must be the number of selected elements). For the primitive numbers read where
    /// the file's elements are no larger than `T`'s, the bytes land in `out` and are
    /// converted there: nothing is allocated for the values.
    pub fn read_selection_into<T: H5Type>(&self, sel: &Selection, out: &mut [T]) -> Result<()> {
        self.read_selection_into_impl(sel, out)
            .map_err(|e| e.at(&self.loc.path))
    }

    fn read_selection_into_impl<T: H5Type>(&self, sel: &Selection, out: &mut [T]) -> Result<()> {
        let n = sel.npoints(&self.space);
        ensure!(
            n == out.len() as u64,
            InvalidArgument,
            "the selection has {n} elements, the buffer {}",
            out.len()
        );
        let esize = self.element_size();
        let target = T::h5_type();
        let tsize = target.size();
        let plain = !self.datatype.has_variable_length() && esize == self.datatype.size();
        if plain && esize <= tsize && tsize == std::mem::size_of::<T>() && n > 0 {
            if let Some(bytes) = T::image_bytes_mut(out) {
                let conv = Converter::new(&self.datatype, &target)?;
                let n = out_len(n)?;
                let mem = MemoryMap::packed(n as u64);
                if !self.storage_covers(sel, &mem) {
                    let fill = self.fill_bytes(esize);
                    fill_elements(&mut bytes[..n * esize], &fill);
                }
                self.read_into(sel, &mem, &mut bytes[..n * esize], esize)?;
                if !conv.is_noop() {
                    conv.convert_in_place(bytes, n, &mut Conversion::DEFAULT.options())?;
                }
                return Ok(());
            }
        }
        let values = self.read_as_with::<T>(sel, &MemoryMap::packed(n), Conversion::DEFAULT)?;
        for (o, v) in out.iter_mut().zip(values) {
            *o = v;
        }
        Ok(())
    }

    /// A hyperslab `start`/`count` (with optional `stride` and `block`) converted to `T`.
    pub fn read_slice<T: H5Type>(
        &self,
        start: &[u64],
        stride: Option<&[u64]>,
        count: &[u64],
        block: Option<&[u64]>,
    ) -> Result<Vec<T>> {
        let sel = self.hyperslab(start, stride, count, block)?;
        self.read_selection(&sel)
    }

    /// The hyperslab selection `start`/`stride`/`count`/`block` of the dataspace.
    pub(crate) fn hyperslab(
        &self,
        start: &[u64],
        stride: Option<&[u64]>,
        count: &[u64],
        block: Option<&[u64]>,
    ) -> Result<Selection> {
        Selection::hyperslab(&self.space, start, stride, count, block)
            .map_err(|e| Error::from(e).at(&self.loc.path))
    }

    /// A netCDF-style access (whole, one element, section, subsampled or mapped section)
    /// converted to `T`. For a mapped section the result is laid out as the map says (its
    /// length is the map's extent; elements the map skips are the fill value).
    pub fn read_nc<T: H5Type>(&self, form: NcForm<'_>) -> Result<Vec<T>> {
        self.read_nc_with(form, Conversion::DEFAULT)
    }

    pub(crate) fn read_nc_with<T: H5Type>(
        &self,
        form: NcForm<'_>,
        cv: Conversion,
    ) -> Result<Vec<T>> {
        let acc = nc_access(&self.space, form, NcMode::Read)
            .map_err(|e| Error::from(e).at(&self.loc.path))?;
        self.read_as_with(&acc.file, &acc.memory, cv)
            .map_err(|e| e.at(&self.loc.path))
    }

    /// The chunk index, opened on first use (for chunks of `chunk` dimensions and
    /// `chunk_bytes` bytes) and kept; the reason when it cannot be opened.
    fn chunk_index(
        &self,
        index: Option<ChunkIndex>,
        address: Addr,
        chunk: &[u64],
        chunk_bytes: u64,
    ) -> std::result::Result<&Index, &str> {
        self.index
            .get_or_init(|| {
                Index::open(
                    &self.loc.file,
                    index,
                    address,
                    self.space.dims(),
                    self.space.maxdims(),
                    chunk,
                    chunk_bytes,
                    !self.filters.is_empty(),
                )
                .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(String::as_str)
    }

    /// The bytes of storage allocated for the raw data (`H5Dget_storage_size`): the compact
    /// data, the contiguous block when allocated (external storage counts as allocated), the sum of the
    /// stored (filtered) chunk sizes, zero for a virtual dataset.
    pub fn storage_size(&self) -> Result<u64> {
        self.storage_size_impl().map_err(|e| e.at(&self.loc.path))
    }

    fn storage_size_impl(&self) -> Result<u64> {
        let esize = self.element_size() as u64;
        match &self.layout.class {
            LayoutClass::Compact { data, .. } => Ok(data.len() as u64),
            // The reference library counts external storage as allocated, whether or not
            // its files exist (its external-file layout reports space as always allocated).
            LayoutClass::Contiguous { address, size, .. } => Ok(if self.external.is_some() {
                size.unwrap_or_else(|| self.space.npoints().saturating_mul(esize))
            } else if address.is_undef() {
                0
            } else {
                size.unwrap_or_else(|| self.space.npoints().saturating_mul(esize))
            }),
            LayoutClass::Virtual { .. } => Ok(0),
            LayoutClass::Chunked {
                dims,
                index,
                address,
                ..
            } => {
                let (chunk, chunk_bytes) = crate::chunks::geometry(dims, self.space.rank(), esize)?;
                let idx = self.chunk_index(*index, *address, &chunk, chunk_bytes);
                let idx = match idx {
                    Ok(i) => i,
                    Err(e) => bail!(Format, "chunk index: {e}"),
                };
                idx.total_size(&self.loc.file, self.space.dims(), &chunk)
            }
        }
    }

    /// The selected elements placed as `mem` says, converted to `T`. The elements are read
    /// into one buffer and converted there: for the primitive numbers (see
    /// [`H5Type::image_bytes_mut`]) that buffer is the returned vector itself when the file's
    /// elements are not larger than `T`; otherwise the read buffer is converted in place
    /// when `T` is not larger, then decoded.
    fn read_as_with<T: H5Type>(
        &self,
        sel: &Selection,
        mem: &MemoryMap,
        cv: Conversion,
    ) -> Result<Vec<T>> {
        if self.reads_directly::<T>() {
            return self.read_directly(sel, mem);
        }
        let esize = self.element_size();
        if self.datatype.has_variable_length() || esize != self.datatype.size() {
            let b = self.read_raw_impl(sel, mem)?;
            return crate::vlen::decode_as_with::<T>(&self.loc.file, &self.datatype, &b, cv);
        }
        let target = T::read_type(&self.datatype);
        let tsize = target.size();
        ensure!(
            tsize == T::IMAGE_SIZE,
            Datatype,
            "the memory type's size {tsize} differs from the Rust type's"
        );
        let conv = Converter::new(&self.datatype, &target)?;
        let n = usize::try_from(mem.extent())
            .map_err(|_| Error::new(ErrorKind::LimitExceeded, "read too large"))?;
        if esize <= tsize && tsize > 0 {
            // Allocation of a size computed from the file: checked first, and fallible.
            let total = n
                .checked_mul(tsize)
                .filter(|&t| t as u64 <= MAX_READ_BYTES)
                .ok_or_else(|| too_large(mem.extent(), tsize))?;
            check_alloc(total)?;
            if let Some(mut values) = fresh_values::<T>(n) {
                if let Some(bytes) = T::image_bytes_mut(&mut values) {
                    let fill = self.fill_bytes(esize);
                    if fill.iter().any(|&b| b != 0) && !self.storage_covers(sel, mem) {
                        fill_elements(&mut bytes[..n * esize], &fill);
                    }
                    self.read_into(sel, mem, &mut bytes[..n * esize], esize)?;
                    if !conv.is_noop() {
                        conv.convert_in_place(bytes, n, &mut cv.options())?;
                    }
                    return Ok(values);
                }
            }
        }
        if esize > tsize
            && tsize > 0
            && !cv.strict
            && T::has_byte_image()
            && conv.is_elementwise()
            && matches!(self.layout.class, LayoutClass::Chunked { .. })
        {
            return self.read_chunks_converted(sel, mem, &conv, cv);
        }
        let mut raw = self.read_raw_impl(sel, mem)?;
        // For fixed-length strings read as variable-length ones.
        let mut heap = VarLenHeap::new();
        let mut opts = cv.options().with_heap(&mut heap);
        let out = if tsize <= esize {
            conv.convert_in_place(&mut raw, n, &mut opts)?;
            raw.truncate(n * tsize);
            raw
        } else {
            let mut out = vec![0u8; n.saturating_mul(tsize)];
            conv.convert(&raw, &mut out, n, &mut opts)?;
            out
        };
        drop(opts);
        Ok(decode_slice::<T>(&out, &heap)?)
    }

    /// The selected elements of a chunked dataset placed as `mem` says, each chunk converted
    /// into the memory of a `Vec<T>` as it is decoded (a compound's member subset, say: the
    /// members gathered from the records in one pass, with no buffer of whole records for
    /// the selection). For types with a byte image and elementwise, non-strict conversions.
    fn read_chunks_converted<T: H5Type>(
        &self,
        sel: &Selection,
        mem: &MemoryMap,
        conv: &Converter,
        cv: Conversion,
    ) -> Result<Vec<T>> {
        let esize = self.element_size();
        let tsize = conv.dst().size();
        let n = out_len(mem.extent())?;
        let total = n
            .checked_mul(tsize)
            .filter(|&t| t as u64 <= MAX_READ_BYTES)
            .ok_or_else(|| too_large(mem.extent(), tsize))?;
        check_alloc(total)?;
        let mut values = fresh_values::<T>(n).ok_or_else(no_byte_image::<T>)?;
        let out = T::image_bytes_mut(&mut values).ok_or_else(no_byte_image::<T>)?;
        // Elements no chunk holds: the fill value, converted once (over zeros, as the
        // members the file lacks read everywhere).
        let fill = self.fill_bytes(esize);
        if fill.iter().any(|&b| b != 0) {
            let mut one = vec![0u8; tsize];
            conv.convert(&fill, &mut one, 1, &mut cv.options())?;
            fill_elements(out, &one);
        }
        sel.validate(&self.space)?;
        let selected = sel.npoints(&self.space);
        if matches!(self.space, Dataspace::Null) || selected == 0 {
            return Ok(values);
        }
        let mut opts = cv.options();
        self.read_chunks(sel, esize, out, None, |c, data, out| {
            for p in mem.transfer(selected, c.runs())? {
                let (fs, fl) = byte_span(p.file, p.len, esize, data.len())?;
                let (ms, ml) = byte_span(p.mem, p.len, tsize, out.len())?;
                conv.convert(
                    &data[fs..fs + fl],
                    &mut out[ms..ms + ml],
                    p.len as usize,
                    &mut opts,
                )
                .map_err(|e| e.offset_element(p.mem as usize))?;
            }
            Ok(())
        })?;
        Ok(values)
    }

    /// The selected elements placed as `mem` says, read straight into the memory of a
    /// `Vec<T>` (for the types and datatypes of [`Dataset::reads_directly`]).
    fn read_directly<T: H5Type>(&self, sel: &Selection, mem: &MemoryMap) -> Result<Vec<T>> {
        let esize = self.element_size();
        let n = out_len(mem.extent())?;
        // Allocation of a size computed from the file: checked first, and fallible.
        let total = n
            .checked_mul(esize)
            .filter(|&t| t as u64 <= MAX_READ_BYTES)
            .ok_or_else(|| too_large(mem.extent(), esize))?;
        check_alloc(total)?;
        let mut values = fresh_values::<T>(n).ok_or_else(|| no_byte_image::<T>())?;
        let bytes = T::image_bytes_mut(&mut values).ok_or_else(|| no_byte_image::<T>())?;
        let fill = self.fill_bytes(esize);
        if fill.iter().any(|&b| b != 0) && !self.storage_covers(sel, mem) {
            fill_elements(bytes, &fill);
        }
        self.read_into(sel, mem, bytes, esize)?;
        Ok(values)
    }

    /// Whether a read of `sel` into `mem` writes every element of the buffer from storage,
    /// so the fill value need not be put there first: contiguous data stored in the file
    /// (whose whole extent [`Dataset::read_into`] checks lies inside it before reading), with
    /// the memory map's every element selected.
    fn storage_covers(&self, sel: &Selection, mem: &MemoryMap) -> bool {
        matches!(&self.layout.class, LayoutClass::Contiguous { address, .. } if !address.is_undef())
            && self.external.is_none()
            && mem.extent() == sel.npoints(&self.space)
    }

    /// The fill value's bytes for one element (zeros when none is defined).
    fn fill_bytes(&self, esize: usize) -> Vec<u8> {
        match &self.fill.value {
            Some(v) if v.len() == esize && !self.datatype.has_variable_length() => v.clone(),
            _ => vec![0u8; esize],
        }
    }

    /// The stored bytes of one chunk, as its filters left them, with its filter mask; `None`
    /// when the chunk is not allocated (or the dataset is not chunked). `scaled` are the
    /// chunk's coordinates in chunks (element offset / chunk dimension). A partial edge
    /// chunk of a dataset that does not filter them is returned as stored (unfiltered).
    pub fn raw_chunk(&self, scaled: &[u64]) -> Result<Option<(Vec<u8>, u32)>> {
        let LayoutClass::Chunked {
            dims,
            index,
            address,
            ..
        } = &self.layout.class
        else {
            return Ok(None);
        };
        let rank = self.space.rank();
        ensure!(
            scaled.len() == rank && dims.len() >= rank,
            InvalidArgument,
            "{}: chunk coordinates of rank {} for a dataset of rank {rank}",
            self.loc.path,
            scaled.len()
        );
        let chunk: Vec<u64> = dims[..rank].to_vec();
        let chunk_bytes = chunk
            .iter()
            .try_fold(self.element_size() as u64, |a, &c| a.checked_mul(c))
            .filter(|&b| b <= limits::MAX_CHUNK_BYTES)
            .ok_or_else(|| Error::new(ErrorKind::LimitExceeded, "chunk too large"))?;
        let idx = self.chunk_index(*index, *address, &chunk, chunk_bytes);
        let idx = match idx {
            Ok(i) => i,
            Err(e) => bail!(Format, "{}: chunk index: {e}", self.loc.path),
        };
        let Some(cl) = idx.lookup(&self.loc.file, scaled)? else {
            return Ok(None);
        };
        let stored = if self.filters.is_empty() {
            chunk_bytes
        } else {
            cl.size
        };
        ensure!(
            stored <= limits::MAX_CHUNK_BYTES,
            LimitExceeded,
            "chunk of {stored} bytes"
        );
        let data = self.loc.file.raw().read(cl.addr, stored)?;
        Ok(Some((data, cl.filter_mask)))
    }

    fn read_raw_impl(&self, sel: &Selection, mem: &MemoryMap) -> Result<Vec<u8>> {
        let esize = self.element_size();
        ensure!(esize > 0, Format, "datatype of size 0");
        let total = mem
            .extent()
            .checked_mul(esize as u64)
            .filter(|&t| t <= MAX_READ_BYTES)
            .ok_or_else(|| too_large(mem.extent(), esize))?;
        let total = usize::try_from(total)
            .map_err(|_| Error::new(ErrorKind::LimitExceeded, "read too large"))?;
        check_alloc(total)?;
        // Zeroed memory from the allocator: no pass over it when the fill value is zero.
        let mut out = vec![0u8; total];
        let fill = self.fill_bytes(esize);
        if fill.iter().any(|&b| b != 0) && !self.storage_covers(sel, mem) {
            fill_elements(&mut out, &fill);
        }
        self.read_into(sel, mem, &mut out, esize)?;
        Ok(out)
    }

    /// Read the selected elements into `out` (the elements of `mem`'s extent, `esize` bytes
    /// each, already holding the fill value).
    fn read_into(
        &self,
        sel: &Selection,
        mem: &MemoryMap,
        out: &mut [u8],
        esize: usize,
    ) -> Result<()> {
        ensure!(esize > 0, Format, "datatype of size 0");
        if matches!(self.space, Dataspace::Null) {
            return Ok(());
        }
        sel.validate(&self.space)?;
        let n = sel.npoints(&self.space);
        if n == 0 {
            return Ok(());
        }
        match &self.layout.class {
            LayoutClass::Compact { data, .. } => {
                let need = self.space.npoints().saturating_mul(esize as u64);
                ensure!(
                    data.len() as u64 >= need,
                    Format,
                    "compact data of {} bytes, the dataspace needs {need}",
                    data.len()
                );
                let pairs = mem.transfer(n, sel.runs(&self.space)?)?;
                copy_to_memory(pairs, data, out, esize)?;
            }
            LayoutClass::Contiguous { address, .. } => {
                if let Some(ext) = &self.external {
                    let files = crate::external::ExternalStorage::open(&self.loc.file, ext)?;
                    for p in mem.transfer(n, sel.runs(&self.space)?)? {
                        let (s, l) = byte_span(p.mem, p.len, esize, out.len())?;
                        files.read(p.file * esize as u64, &mut out[s..s + l])?;
                    }
                } else if !address.is_undef() {
                    let a = address.0;
                    let raw = self.loc.file.raw();
                    // The whole extent must lie inside the file (a hostile dataspace cannot
                    // make a read allocate for data that is not there).
                    let need = self.space.npoints().saturating_mul(esize as u64);
                    ensure!(
                        a.checked_add(need).is_some_and(|e| e <= raw.end()),
                        Format,
                        "contiguous storage of {need} bytes at {a:#x} extends past the end of the file ({:#x})",
                        raw.end()
                    );
                    let threads = rayon::current_num_threads();
                    for p in mem.transfer(n, sel.runs(&self.space)?)? {
                        let (s, l) = byte_span(p.mem, p.len, esize, out.len())?;
                        let at = p
                            .file
                            .checked_mul(esize as u64)
                            .and_then(|o| o.checked_add(a))
                            .ok_or_else(|| Error::new(ErrorKind::Format, "address overflow"))?;
                        let pieces = (l / PARALLEL_READ_PIECE).min(threads * 2);
                        if threads > 1 && pieces > 1 {
                            // Positioned reads of disjoint pieces: no shared cursor.
                            let piece = l.div_ceil(pieces);
                            out[s..s + l]
                                .par_chunks_mut(piece)
                                .enumerate()
                                .try_for_each(|(k, b)| {
                                    raw.read_into(Addr(at + (k * piece) as u64), b)
                                })?;
                        } else {
                            raw.read_into(Addr(at), &mut out[s..s + l])?;
                        }
                    }
                }
            }
            LayoutClass::Chunked { .. } => {
                let in_place = mem.places_once().then_some((mem, n));
                self.read_chunks(sel, esize, out, in_place, |c, data, out| {
                    Ok(copy_to_memory(
                        mem.transfer(n, c.runs())?,
                        data,
                        out,
                        esize,
                    )?)
                })?;
            }
            LayoutClass::Virtual {
                heap_address,
                heap_index,
            } => {
                crate::vds::read_virtual(self, *heap_address, *heap_index, sel, mem, out)?;
            }
        }
        Ok(())
    }

    /// Read the chunks the selection `sel` touches (elements of `esize` bytes), a batch at a
    /// time: index lookups in order, one batched fetch, filters decoded in parallel; then
    /// `place` receives each allocated chunk with its decoded bytes and `out`, in order
    /// (chunks not allocated are skipped: `out` holds the fill value there).
    ///
    /// With `in_place` (the memory map `out` is laid out by, placing each element once, and
    /// the number of selected elements), a filtered chunk the selection holds whole whose
    /// elements are contiguous in `out`, in the chunk's own order, is decoded straight
    /// there (its last filter writes into `out`) instead of through a buffer and `place`.
    fn read_chunks(
        &self,
        sel: &Selection,
        esize: usize,
        out: &mut [u8],
        in_place: Option<(&MemoryMap, u64)>,
        mut place: impl FnMut(&crate::selection::Chunk<'_>, &[u8], &mut [u8]) -> Result<()>,
    ) -> Result<()> {
        let LayoutClass::Chunked {
            flags,
            dims,
            index,
            address,
            ..
        } = &self.layout.class
        else {
            bail!(Format, "not a chunked layout");
        };
        let rank = self.space.rank();
        ensure!(
            dims.len() == rank + 1 || dims.len() == rank,
            Format,
            "chunk rank {} for a dataspace of rank {rank}",
            dims.len().saturating_sub(1)
        );
        let chunk: Vec<u64> = dims[..rank].to_vec();
        ensure!(
            chunk.iter().all(|&c| c > 0),
            Format,
            "chunk dimension of size 0"
        );
        let chunk_elems = chunk
            .iter()
            .try_fold(1u64, |a, &c| a.checked_mul(c))
            .ok_or_else(|| Error::new(ErrorKind::Format, "chunk size overflows"))?;
        let chunk_bytes = chunk_elems.saturating_mul(esize as u64);
        ensure!(
            chunk_bytes <= limits::MAX_CHUNK_BYTES,
            LimitExceeded,
            "chunk of {chunk_bytes} bytes"
        );
        let idx = self.chunk_index(*index, *address, &chunk, chunk_bytes);
        let idx = match idx {
            Ok(i) => i,
            Err(e) => bail!(Format, "chunk index: {e}"),
        };
        let dont_filter_edges = flags & CHUNK_DONT_FILTER_PARTIAL_BOUND_CHUNKS != 0;
        let chunks: Vec<_> = sel.chunks(&self.space, &chunk)?.collect();
        let dims_now = self.space.dims();
        let filters = &self.loc.file.options().filters;
        let mut info = ChunkInfo::new(chunk_bytes as usize);
        info.skip_checksum = self.loc.file.options().skip_checksums;
        let batch = (rayon::current_num_threads() * 4).max(4);
        // Decode buffers handed from chunk to chunk: a batch's decoded chunks and each
        // stage's spare.
        let pool = crate::filter::BufferPool::new(2 * batch);
        let cache = &self.chunk_cache;
        let key = |p: &crate::chunks::PlannedChunk| (p.loc.addr.0, p.loc.filter_mask);
        // Plan (index lookups, in order, up to the first failure) and fetch (one batched
        // read) a batch.
        let prepare = |group: &[crate::selection::Chunk<'_>]| -> Fetched {
            let plan = |c: &crate::selection::Chunk<'_>| -> Result<_> {
                let Some(cl) = idx.lookup(&self.loc.file, c.coords())? else {
                    return Ok(None);
                };
                let partial = c
                    .origin()
                    .iter()
                    .zip(&chunk)
                    .zip(dims_now)
                    .any(|((o, c), d)| o.saturating_add(*c) > *d);
                let skip_filters = self.filters.is_empty() || (dont_filter_edges && partial);
                let stored = if skip_filters { chunk_bytes } else { cl.size };
                ensure!(
                    stored <= limits::MAX_CHUNK_BYTES,
                    LimitExceeded,
                    "chunk of {stored} bytes"
                );
                Ok(Some(crate::chunks::PlannedChunk {
                    loc: cl,
                    stored,
                    filtered: !skip_filters,
                }))
            };
            let mut planned = Vec::with_capacity(group.len());
            let mut failed = None;
            for c in group {
                match plan(c) {
                    Ok(p) => planned.push(p),
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            // Filtered chunks decoded by an earlier read are not fetched again.
            let cached: Vec<Option<Arc<Vec<u8>>>> = planned
                .iter()
                .map(|p| p.filter(|p| p.filtered).and_then(|p| cache.get(key(&p))))
                .collect();
            let to_fetch: Vec<_> = planned
                .iter()
                .zip(&cached)
                .map(|(p, c)| if c.is_some() { None } else { *p })
                .collect();
            let fetched = crate::chunks::fetch(&self.loc.file, &to_fetch, &pool);
            Fetched {
                planned,
                failed,
                cached,
                to_fetch,
                fetched,
            }
        };
        let groups: Vec<&[crate::selection::Chunk<'_>]> = chunks.chunks(batch).collect();
        let mut next = groups.first().map(|g| prepare(g));
        for (gi, group) in groups.iter().enumerate() {
            let Some(Fetched {
                planned,
                failed,
                cached,
                to_fetch,
                fetched,
            }) = next.take()
            else {
                break;
            };
            // Where in `out` each chunk decoded in place goes (used whole, so it is not
            // kept in the chunk cache either, as a chunk a read uses whole is not).
            let spans: Vec<Option<usize>> = match in_place {
                Some((mem, n)) => group
                    .iter()
                    .zip(&to_fetch)
                    .map(|(c, p)| {
                        p.filter(|p| p.filtered)
                            .and_then(|_| whole_chunk_span(c, mem, n, chunk_elems, esize))
                    })
                    .collect(),
                None => Vec::new(),
            };
            let targets = carve(out, &spans, chunk_bytes as usize, group.len());
            let decode = |(c, (((p, hit), data), target)): (
                &crate::selection::Chunk<'_>,
                Work<'_, '_>,
            )|
             -> Result<Decoded> {
                if let Some(hit) = hit {
                    return Ok(Decoded::Bytes(hit));
                }
                let (Some(p), Some(data)) = (p, data?) else {
                    return Ok(Decoded::Absent);
                };
                if !p.filtered {
                    return Ok(Decoded::Bytes(Arc::new(data)));
                }
                let at = |e: crate::filter::Error| {
                    Error::from(e).at(format!("{}: chunk {:?}", self.loc.path, c.origin()))
                };
                if let Some(target) = target {
                    filters
                        .decode_chunk_into(
                            &self.filters,
                            p.loc.filter_mask,
                            data,
                            &info,
                            &pool,
                            target,
                        )
                        .map_err(at)?;
                    return Ok(Decoded::Placed);
                }
                let d = filters
                    .decode_chunk_in(&self.filters, p.loc.filter_mask, data, &info, &pool)
                    .map_err(at)?;
                let d = Arc::new(d);
                // Kept when this read used only part of it (a later read nearby
                // may want the rest).
                if d.len() <= crate::chunk_cache::CACHE_BYTES
                    && c.runs().map(|r| r.len).sum::<u64>() < chunk_elems
                {
                    cache.insert(key(p), d.clone());
                }
                Ok(Decoded::Bytes(d))
            };
            let work: Vec<_> = group
                .iter()
                .zip(planned.iter().zip(cached).zip(fetched).zip(targets))
                .collect();
            // The next batch is fetched while this one decodes (unless this one failed to
            // plan: nothing after it is read).
            let following = groups.get(gi + 1).filter(|_| failed.is_none());
            let (decoded, prepared) = rayon::join(
                || -> Vec<Result<Decoded>> {
                    if work.len() > 1 && !self.filters.is_empty() {
                        work.into_par_iter().map(decode).collect()
                    } else {
                        work.into_iter().map(decode).collect()
                    }
                },
                || following.map(|g| prepare(g)),
            );
            next = prepared;
            for (c, d) in group.iter().zip(decoded) {
                if let Decoded::Bytes(data) = d? {
                    place(c, &data, out)?;
                    if let Ok(buf) = Arc::try_unwrap(data) {
                        pool.give(buf);
                    }
                }
            }
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(())
    }
}

/// One chunk's share of a batch in [`Dataset::read_chunks`]: its plan, its decoded bytes if
/// the chunk cache had them, its fetched bytes, and its place in the output when it is
/// decoded there.
type Work<'p, 'o> = (
    (
        (
            &'p Option<crate::chunks::PlannedChunk>,
            Option<Arc<Vec<u8>>>,
        ),
        Result<Option<Vec<u8>>>,
    ),
    Option<&'o mut [u8]>,
);

/// A batch of chunks planned and fetched in [`Dataset::read_chunks`]: per chunk its plan,
/// its decoded bytes if the chunk cache had them, what was fetched (the plan less the cache
/// hits) and the fetched bytes; `failed`: the error of the first chunk that could not be
/// planned (the chunks before it are read, none after).
struct Fetched {
    planned: Vec<Option<crate::chunks::PlannedChunk>>,
    failed: Option<Error>,
    cached: Vec<Option<Arc<Vec<u8>>>>,
    to_fetch: Vec<Option<crate::chunks::PlannedChunk>>,
    fetched: Vec<Result<Option<Vec<u8>>>>,
}

/// A chunk after decoding.
enum Decoded {
    /// Not allocated (the output keeps the fill value).
    Absent,
    /// Decoded straight into the output.
    Placed,
    /// Decoded bytes, to place.
    Bytes(Arc<Vec<u8>>),
}

/// The byte offset in the output of chunk `c` when the selection holds all its
/// `chunk_elems` elements and `mem` (for `n` selected elements) places them contiguously in
/// the chunk's own order (a read of whole chunks of a 1-D dataset, or of chunks spanning the
/// trailing dimensions); `None` otherwise.
fn whole_chunk_span(
    c: &crate::selection::Chunk<'_>,
    mem: &MemoryMap,
    n: u64,
    chunk_elems: u64,
    esize: usize,
) -> Option<usize> {
    let mut pairs = mem.transfer(n, c.runs()).ok()?;
    let first = pairs.next()?;
    if first.file != 0 || first.len != chunk_elems || pairs.next().is_some() {
        return None;
    }
    usize::try_from(first.mem).ok()?.checked_mul(esize)
}

/// Split `out` into the disjoint slices of `len` bytes at `spans` (one per chunk of a batch
/// of `count`; `None`: not decoded in place). A span that overlaps one before it or leaves
/// `out` gets no slice (its chunk is decoded through a buffer).
fn carve<'o>(
    out: &'o mut [u8],
    spans: &[Option<usize>],
    len: usize,
    count: usize,
) -> Vec<Option<&'o mut [u8]>> {
    let mut targets: Vec<Option<&mut [u8]>> = (0..count).map(|_| None).collect();
    let mut order: Vec<(usize, usize)> = spans
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.map(|s| (s, i)))
        .collect();
    order.sort_unstable();
    let mut rest = out;
    let mut at = 0usize;
    for (start, i) in order {
        let Some(skip) = start.checked_sub(at) else {
            continue;
        };
        if skip.checked_add(len).is_none_or(|e| e > rest.len()) {
            continue;
        }
        let (_, tail) = std::mem::take(&mut rest).split_at_mut(skip);
        let (mine, tail) = tail.split_at_mut(len);
        if let Some(t) = targets.get_mut(i) {
            *t = Some(mine);
        }
        rest = tail;
        at = start + len;
    }
    targets
}

#[cold]
fn too_large(elements: u64, esize: usize) -> Error {
    Error::new(
        ErrorKind::LimitExceeded,
        format!("a read of {elements} elements of {esize} bytes is too large"),
    )
}

/// The zeroed vector of a type with a byte image could not be made (the allocation failed,
/// or a hand-written `H5Type` gives a byte view but no zeroed vector or the other way round).
#[cold]
fn no_byte_image<T>() -> Error {
    Error::new(
        ErrorKind::LimitExceeded,
        format!(
            "cannot make the zeroed vector of {} to read into",
            std::any::type_name::<T>()
        ),
    )
}

/// The zeroed result vector of a read (`T::zeroed_vec`), its pages advised for transparent
/// huge pages when it is large ([`h5_mem::advise_huge_pages`], as numpy advises its arrays),
/// before anything writes it: one page fault per 2 MiB instead of one per 4 KiB.
fn fresh_values<T: H5Type>(n: usize) -> Option<Vec<T>> {
    let mut values = T::zeroed_vec(n)?;
    h5_mem::advise_huge_pages(&mut values);
    Some(values)
}

/// Fail cleanly, rather than abort, when `total` bytes cannot be allocated. (The probe's
/// memory is not touched, so it costs no page faults; the buffer itself is then allocated
/// zeroed, which costs none either until written.)
fn check_alloc(total: usize) -> Result<()> {
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(total).map_err(|_| {
        Error::new(
            ErrorKind::LimitExceeded,
            format!("cannot allocate {total} bytes"),
        )
    })
}

/// Write the element `fill` over every element of `buf` in bulk (a `memset` when the fill
/// value is one repeated byte, doubling copies otherwise), so an absent chunk or an
/// unallocated dataset costs no loop per element.
fn fill_elements(buf: &mut [u8], fill: &[u8]) {
    let Some(&first) = fill.first() else {
        return;
    };
    if fill.iter().all(|&b| b == first) {
        buf.fill(first);
        return;
    }
    let whole = buf.len() - buf.len() % fill.len();
    let buf = &mut buf[..whole];
    if buf.is_empty() {
        return;
    }
    buf[..fill.len()].copy_from_slice(fill);
    let mut done = fill.len();
    while done < buf.len() {
        let n = done.min(buf.len() - done);
        buf.copy_within(..n, done);
        done += n;
    }
}

/// The byte range of `len` elements at element `off` of a buffer of `total` bytes.
pub(crate) fn byte_span(off: u64, len: u64, esize: usize, total: usize) -> Result<(usize, usize)> {
    let s = off.checked_mul(esize as u64);
    let l = len.checked_mul(esize as u64);
    match (s, l) {
        (Some(s), Some(l)) if s.checked_add(l).is_some_and(|e| e <= total as u64) => {
            Ok((s as usize, l as usize))
        }
        _ => bail!(Selection, "element range outside the buffer"),
    }
}

/// A count of elements as a `usize`.
fn out_len(n: u64) -> Result<usize> {
    usize::try_from(n).map_err(|_| Error::new(ErrorKind::LimitExceeded, "read too large"))
}

#[cfg(test)]
mod fill_tests {
    use super::fill_elements;

    #[test]
    fn fills_every_element_in_bulk() {
        let mut one = vec![0u8; 7];
        fill_elements(&mut one, &[0xff]);
        assert_eq!(one, [0xff; 7]);
        let mut pat = vec![9u8; 3 * 5];
        fill_elements(&mut pat, &[1, 2, 3]);
        assert_eq!(pat, [1, 2, 3].repeat(5));
        // A user buffer is overwritten even by a zero fill.
        let mut zero = vec![5u8; 8];
        fill_elements(&mut zero, &[0, 0]);
        assert_eq!(zero, [0; 8]);
    }
}

#[cfg(test)]
mod carve_tests {
    use super::carve;

    #[test]
    fn disjoint_slices_in_any_order_and_none_for_overlaps_or_overruns() {
        let mut out: Vec<u8> = (0..20).collect();
        // A batch of five chunks at bytes 8, 0, 2 (overlapping 0..4), 16 (the last four), none.
        let spans = [Some(8), Some(0), Some(2), Some(16), None];
        let targets = carve(&mut out, &spans, 4, spans.len());
        let got: Vec<Option<Vec<u8>>> = targets
            .iter()
            .map(|t| t.as_deref().map(<[u8]>::to_vec))
            .collect();
        assert_eq!(
            got,
            [
                Some(vec![8, 9, 10, 11]),
                Some(vec![0, 1, 2, 3]),
                None,
                Some(vec![16, 17, 18, 19]),
                None
            ]
        );
        let targets = carve(&mut out, &[Some(17)], 4, 1);
        assert!(targets[0].is_none(), "past the end");
        let targets = carve(&mut out, &[], 4, 2);
        assert!(targets.iter().all(Option::is_none));
    }
}
