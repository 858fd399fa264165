//! Writing files: [`WritableFile`] and the handles of its groups, datasets, attributes and
//! committed datatypes.
//!
//! ```
//! use h5::{File, H5Type};
//!
//! #[derive(H5Type, Clone, Copy)]
//! #[repr(C)]
//! struct S1 { a: i32, b: f32, c: f64 }
//!
//! # let dir = std::env::temp_dir().join(format!("h5-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! # let path = dir.join("doc.h5");
//! let file = File::create(&path)?;
//! let g = file.create_group("a/b")?;
//! let ds = g.new_dataset::<S1>().shape(&[2]).create("s1")?;
//! ds.write(&[S1 { a: 1, b: 2.0, c: 3.0 }, S1 { a: 4, b: 5.0, c: 6.0 }])?;
//! ds.new_attr::<f64>().shape(&[2]).create("scale")?.write(&[0.5, 2.0])?;
//! let ints = file.new_dataset::<i32>().shape(&[0]).max_shape(&[None]).chunk(&[16]).deflate(6).create("ints")?;
//! ints.resize(&[3])?;
//! ints.write(&[7, 8, 9])?;
//! file.close()?;
//! # Ok::<(), h5::WriteError>(())
//! ```

use std::marker::PhantomData;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use h5_io::filter::Filter;
use h5_io::selection::{nc_access, Dataspace, NcForm, NcMode, Selection, UNLIMITED};
use h5_io::write::{DatasetSpec, ErrorKind, FileWriter, ObjId, StorageSpec};
use h5_types::h5type::{encode_slice, ObjectRef, RegionRef, VarLenHeap};
use h5_types::{Datatype, H5Type};

pub use h5_io::write::{
    AllocTime, CreationOrder, Error as WriteError, FileFormat, FillTime, GroupOptions, LinkSpec,
    ObjectKind,
};

/// The writer's result type.
pub type WriteResult<T> = Result<T, WriteError>;

type Shared = Arc<Mutex<FileWriter>>;

fn lock(file: &Shared) -> WriteResult<MutexGuard<'_, FileWriter>> {
    file.lock()
        .map_err(|_| WriteError::new(ErrorKind::Closed, "the writer panicked in another thread"))
}

/// An object of a file being written: the file and the object's id.
#[derive(Clone, Debug)]
struct Loc {
    file: Shared,
    id: ObjId,
}

impl Loc {
    fn with<R>(&self, f: impl FnOnce(&mut FileWriter, ObjId) -> WriteResult<R>) -> WriteResult<R> {
        let mut w = lock(&self.file)?;
        f(&mut w, self.id)
    }

    fn reference(&self) -> WriteResult<ObjectRef> {
        self.with(|w, id| Ok(ObjectRef::new(w.address(id)?)))
    }

    fn child(&self, id: ObjId) -> Loc {
        Loc {
            file: self.file.clone(),
            id,
        }
    }
}

/// A file being written. Dropping the last handle of a file flushes it (errors are printed to
/// standard error); [`WritableFile::close`] flushes and reports errors.
#[derive(Clone, Debug)]
pub struct WritableFile {
    root: GroupWriter,
}

impl WritableFile {
    /// Create (or truncate) a file in the widest-compatible format
    /// ([`FileFormat::Compatible`]).
    pub fn create(path: impl AsRef<Path>) -> WriteResult<WritableFile> {
        Self::create_with(path, FileFormat::Compatible)
    }

    /// Create (or truncate) a file in the given format.
    pub fn create_with(path: impl AsRef<Path>, format: FileFormat) -> WriteResult<WritableFile> {
        let w = FileWriter::create(path, format)?;
        let id = w.root();
        Ok(WritableFile {
            root: GroupWriter {
                loc: Loc {
                    file: Arc::new(Mutex::new(w)),
                    id,
                },
            },
        })
    }

    /// Open an existing file for writing, whatever format it uses (files the reference
    /// library wrote in the compatible or the latest format, and ours): groups, datasets,
    /// attributes and links can then be added, datasets written (every layout) and chunked
    /// ones resized, attributes overwritten.
    ///
    /// The file is modified where it is: objects keep their addresses (references stored in
    /// it stay valid), only what changes is written, the user block is kept. Changes the
    /// writer cannot make in place (writes into a virtual dataset or into raw data in external
    /// files...) are errors that leave the file as it was; creation order, where tracked, is
    /// kept and continued; files
    /// with sizes or B-tree parameters the writer does not write are rewritten whole
    /// instead. See `h5_io::write::FileWriter::open_rw`.
    pub fn open_rw(path: impl AsRef<Path>) -> WriteResult<WritableFile> {
        let w = FileWriter::open_rw(path)?;
        let id = w.root();
        Ok(WritableFile {
            root: GroupWriter {
                loc: Loc {
                    file: Arc::new(Mutex::new(w)),
                    id,
                },
            },
        })
    }

    /// The root group.
    pub fn root(&self) -> &GroupWriter {
        &self.root
    }

    /// Write everything so far: the file on disk is then complete.
    pub fn flush(&self) -> WriteResult<()> {
        lock(&self.root.loc.file)?.flush()
    }

    /// Flush and close the file. Other handles of it fail afterwards.
    pub fn close(self) -> WriteResult<()> {
        lock(&self.root.loc.file)?.shutdown()
    }
}

impl std::ops::Deref for WritableFile {
    type Target = GroupWriter;
    fn deref(&self) -> &GroupWriter {
        &self.root
    }
}

/// A group of a file being written.
#[derive(Clone, Debug)]
pub struct GroupWriter {
    loc: Loc,
}

impl GroupWriter {
    /// Create a group at `path` (relative to this group, or absolute), with any missing
    /// intermediate groups.
    pub fn create_group(&self, path: &str) -> WriteResult<GroupWriter> {
        let id = self.loc.with(|w, id| w.create_group(id, path))?;
        Ok(GroupWriter {
            loc: self.loc.child(id),
        })
    }

    /// Create a group at `path` with `options`: link and attribute creation-order tracking
    /// (`H5Pset_link_creation_order`, `H5Pset_attr_creation_order`). Missing intermediate
    /// groups get the default options.
    ///
    /// ```
    /// use h5::write::GroupOptions;
    /// # let dir = std::env::temp_dir().join(format!("h5-doc-order-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// let file = h5::File::create(dir.join("order.h5"))?;
    /// // h5py's `track_order=True`: links and attributes tracked and indexed.
    /// let g = file.create_group_with("g", GroupOptions::track_order())?;
    /// g.create_group("zebra")?;
    /// g.create_group("apple")?;
    /// assert_eq!(g.member_names_by_creation_order()?, ["zebra", "apple"]);
    /// file.close()?;
    /// # Ok::<(), h5::WriteError>(())
    /// ```
    pub fn create_group_with(&self, path: &str, options: GroupOptions) -> WriteResult<GroupWriter> {
        let id = self
            .loc
            .with(|w, id| w.create_group_with(id, path, &options))?;
        Ok(GroupWriter {
            loc: self.loc.child(id),
        })
    }

    /// Track (and index) the creation order of this group's links; only while it has none
    /// (for the root group: right after the file is created).
    pub fn set_link_order(&self, order: CreationOrder) -> WriteResult<()> {
        self.loc.with(|w, id| w.set_link_order(id, order))
    }

    /// Track (and index) the creation order of this group's attributes; only before its
    /// first attribute.
    pub fn set_attr_order(&self, order: CreationOrder) -> WriteResult<()> {
        self.loc.with(|w, id| w.set_attribute_order(id, order))
    }

    /// An existing group at `path`.
    pub fn group(&self, path: &str) -> WriteResult<GroupWriter> {
        let id = self.loc.with(|w, id| {
            let g = w.open(id, path)?;
            match w.kind(g)? {
                ObjectKind::Group => Ok(g),
                _ => Err(WriteError::new(
                    ErrorKind::InvalidArgument,
                    format!("{path} is not a group"),
                )),
            }
        })?;
        Ok(GroupWriter {
            loc: self.loc.child(id),
        })
    }

    /// An existing dataset at `path`.
    pub fn dataset(&self, path: &str) -> WriteResult<DatasetWriter> {
        let id = self.loc.with(|w, id| {
            let d = w.open(id, path)?;
            match w.kind(d)? {
                ObjectKind::Dataset => Ok(d),
                _ => Err(WriteError::new(
                    ErrorKind::InvalidArgument,
                    format!("{path} is not a dataset"),
                )),
            }
        })?;
        Ok(DatasetWriter {
            loc: self.loc.child(id),
        })
    }

    /// Start building a dataset of `T` (the file type is `T`'s datatype unless
    /// [`DatasetBuilder::dtype`] says otherwise).
    pub fn new_dataset<T: H5Type>(&self) -> DatasetBuilder<T> {
        DatasetBuilder {
            loc: self.loc.clone(),
            spec: DatasetSpec::new(T::h5_type(), Dataspace::Scalar),
            shape: None,
            max: None,
            fill: None,
            filters: Vec::new(),
            committed: None,
            attr_order: CreationOrder::Untracked,
            error: None,
            _t: PhantomData,
        }
    }

    /// Commit (name) a datatype at `path`; datasets and attributes created with
    /// [`DatasetBuilder::committed`] share it.
    pub fn commit_datatype(&self, path: &str, datatype: &Datatype) -> WriteResult<CommittedType> {
        let id = self
            .loc
            .with(|w, id| w.commit_datatype(id, path, datatype))?;
        Ok(CommittedType {
            loc: self.loc.child(id),
        })
    }

    /// A soft link at `path` to `target` (may dangle).
    pub fn link_soft(&self, target: &str, path: &str) -> WriteResult<()> {
        self.loc
            .with(|w, id| w.create_link(id, path, LinkSpec::Soft(target.to_owned())))
    }

    /// An external link at `path` to `object` in `file`.
    pub fn link_external(&self, file: &str, object: &str, path: &str) -> WriteResult<()> {
        self.loc.with(|w, id| {
            w.create_link(
                id,
                path,
                LinkSpec::External {
                    file: file.to_owned(),
                    path: object.to_owned(),
                },
            )
        })
    }

    /// A hard link at `path` to an existing object (given by a path).
    pub fn link_hard(&self, target: &str, path: &str) -> WriteResult<()> {
        self.loc.with(|w, id| {
            let t = w.open(id, target)?;
            w.create_link(id, path, LinkSpec::Hard(t))
        })
    }

    /// The names of the group's links, in name order.
    pub fn member_names(&self) -> WriteResult<Vec<String>> {
        self.loc.with(|w, id| w.link_names(id))
    }

    /// The names of the group's links, in creation order.
    pub fn member_names_by_creation_order(&self) -> WriteResult<Vec<String>> {
        self.loc.with(|w, id| w.link_names_by_creation_order(id))
    }

    /// An object reference to this group.
    pub fn reference(&self) -> WriteResult<ObjectRef> {
        self.loc.reference()
    }

    /// Start building an attribute of `T` on this group.
    pub fn new_attr<T: H5Type>(&self) -> AttrBuilder<T> {
        AttrBuilder::new(self.loc.clone())
    }

    /// An existing attribute of this group, to write values of `T` to.
    pub fn attr<T: H5Type>(&self, name: &str) -> WriteResult<AttrWriter<T>> {
        AttrWriter::open(&self.loc, name)
    }
}

/// A committed datatype of a file being written.
#[derive(Clone, Debug)]
pub struct CommittedType {
    loc: Loc,
}

impl CommittedType {
    /// An object reference to the committed datatype.
    pub fn reference(&self) -> WriteResult<ObjectRef> {
        self.loc.reference()
    }

    /// Start building an attribute of `T` on the committed datatype.
    pub fn new_attr<T: H5Type>(&self) -> AttrBuilder<T> {
        AttrBuilder::new(self.loc.clone())
    }
}

/// Builds a dataset: shape, storage, filters, fill value. Errors in the settings surface at
/// [`DatasetBuilder::create`].
#[derive(Debug)]
#[must_use]
pub struct DatasetBuilder<T> {
    loc: Loc,
    spec: DatasetSpec,
    shape: Option<Vec<u64>>,
    max: Option<Vec<Option<u64>>>,
    fill: Option<Vec<u8>>,
    filters: Vec<Filter>,
    committed: Option<ObjId>,
    attr_order: CreationOrder,
    error: Option<WriteError>,
    _t: PhantomData<fn(T)>,
}

impl<T: H5Type> DatasetBuilder<T> {
    /// Track (and index) the creation order of the dataset's attributes
    /// (`H5Pset_attr_creation_order`; h5py's `track_order=True` is
    /// [`CreationOrder::Indexed`]). The dataset then has a version 2 object header, in the
    /// compatible format too.
    pub fn attr_order(mut self, order: CreationOrder) -> Self {
        self.attr_order = order;
        self
    }

    /// The dimensions (no call: a scalar dataset).
    pub fn shape(mut self, dims: &[u64]) -> Self {
        self.shape = Some(dims.to_vec());
        self
    }

    /// A null dataspace (no elements).
    pub fn null(mut self) -> Self {
        self.spec.space = Dataspace::Null;
        self.shape = None;
        self
    }

    /// The maximum dimensions; `None` is unlimited. Needs chunks when they differ from the
    /// shape.
    pub fn max_shape(mut self, max: &[Option<u64>]) -> Self {
        self.max = Some(max.to_vec());
        self
    }

    /// The file datatype, when it differs from `T`'s (values are converted on write).
    pub fn dtype(mut self, datatype: Datatype) -> Self {
        self.spec.datatype = datatype;
        self
    }

    /// Store `T`'s packed datatype (`H5Tpack`: compound members without padding).
    pub fn packed(mut self) -> Self {
        self.spec.datatype = T::h5_type_packed();
        self
    }

    /// Use (and share) a committed datatype as the file type.
    pub fn committed(mut self, t: &CommittedType) -> Self {
        self.committed = Some(t.loc.id);
        self
    }

    /// Chunked storage with these chunk dimensions.
    pub fn chunk(mut self, dims: &[u64]) -> Self {
        self.spec.storage = StorageSpec::Chunked(dims.to_vec());
        self
    }

    /// Compact storage (data in the object header).
    pub fn compact(mut self) -> Self {
        self.spec.storage = StorageSpec::Compact;
        self
    }

    /// Contiguous storage (the default).
    pub fn contiguous(mut self) -> Self {
        self.spec.storage = StorageSpec::Contiguous;
        self
    }

    /// Add the deflate (gzip) filter at `level` (0 to 9).
    pub fn deflate(mut self, level: u32) -> Self {
        self.filters.push(Filter::deflate(level));
        self
    }

    /// Add the shuffle filter.
    pub fn shuffle(mut self) -> Self {
        self.filters.push(Filter::shuffle());
        self
    }

    /// Add the Fletcher-32 checksum filter.
    pub fn fletcher32(mut self) -> Self {
        self.filters.push(Filter::fletcher32());
        self
    }

    /// Add the N-bit filter.
    pub fn nbit(mut self) -> Self {
        self.filters.push(Filter::nbit());
        self
    }

    /// Add the scale-offset filter (`scale_type` 0: float D-scale, 2: integer).
    pub fn scale_offset(mut self, scale_type: u32, scale_factor: i32) -> Self {
        self.filters
            .push(Filter::scaleoffset(scale_type, scale_factor));
        self
    }

    /// Add the LZF filter.
    pub fn lzf(mut self) -> Self {
        self.filters.push(Filter::lzf());
        self
    }

    /// Add any filter.
    pub fn filter(mut self, f: Filter) -> Self {
        self.filters.push(f);
        self
    }

    /// The fill value.
    pub fn fill_value(mut self, value: T) -> Self {
        match encode_slice(std::slice::from_ref(&value)) {
            Ok((img, heap)) if heap.is_empty() => self.fill = Some(img),
            Ok(_) => {
                self.error = Some(WriteError::new(
                    ErrorKind::Unsupported,
                    "fill values with variable-length parts",
                ))
            }
            Err(e) => self.error = Some(e.into()),
        }
        self
    }

    /// When space is allocated.
    pub fn alloc_time(mut self, t: AllocTime) -> Self {
        self.spec.alloc_time = t;
        self
    }

    /// When fill values are written.
    pub fn fill_time(mut self, t: FillTime) -> Self {
        self.spec.fill_time = t;
        self
    }

    /// Create the dataset at `path` (relative to the group, or absolute).
    pub fn create(mut self, path: &str) -> WriteResult<DatasetWriter> {
        if let Some(e) = self.error {
            return Err(e.at_path(path));
        }
        if let Some(dims) = &self.shape {
            let max: Vec<u64> = match &self.max {
                Some(m) => m.iter().map(|d| d.unwrap_or(UNLIMITED)).collect(),
                None => dims.clone(),
            };
            self.spec.space =
                Dataspace::with_max(dims, &max).map_err(|e| WriteError::from(e).at_path(path))?;
        }
        self.spec.filters = self.filters;
        let mem = T::h5_type();
        let committed = self.committed;
        let fill = self.fill;
        let attr_order = self.attr_order;
        let mut spec = self.spec;
        let id = self.loc.with(|w, id| {
            if let Some(c) = committed {
                spec.committed = Some(c);
                spec.datatype = w.committed_type(c)?.clone();
            }
            if let Some(img) = fill {
                // The fill value in the file type.
                let conv = h5_types::convert::convert(&mem, &spec.datatype, &img)
                    .map_err(WriteError::from)?;
                spec.fill_value = Some(conv);
            }
            let d = w.create_dataset(id, path, spec)?;
            w.set_attribute_order(d, attr_order)?;
            Ok(d)
        })?;
        Ok(DatasetWriter {
            loc: self.loc.child(id),
        })
    }
}

/// A dataset of a file being written.
#[derive(Clone, Debug)]
pub struct DatasetWriter {
    loc: Loc,
}

impl DatasetWriter {
    /// Write every element from `data` (row-major, converted from `T`'s datatype to the
    /// file's; compound members `T` lacks keep their values).
    pub fn write<T: H5Type>(&self, data: &[T]) -> WriteResult<()> {
        self.write_values(None, data)
    }

    /// Write the elements of `selection` from `data`, in the selection's order.
    pub fn write_selection<T: H5Type>(&self, selection: &Selection, data: &[T]) -> WriteResult<()> {
        self.write_values(Some(selection), data)
    }

    /// The primitive numbers are their own memory image (no copy); other types are encoded.
    fn write_values<T: H5Type>(
        &self,
        selection: Option<&Selection>,
        data: &[T],
    ) -> WriteResult<()> {
        if let Some(bytes) = T::image_bytes(data) {
            return self.write_raw(selection, &T::h5_type(), bytes, &VarLenHeap::new());
        }
        let (img, heap) = encode_slice(data)?;
        self.write_raw(selection, &T::h5_type(), &img, &heap)
    }

    /// Write a regular hyperslab (`start`, `count`; unit stride and block) from `data`.
    pub fn write_slab<T: H5Type>(
        &self,
        start: &[u64],
        count: &[u64],
        data: &[T],
    ) -> WriteResult<()> {
        let space = self.space()?;
        let sel = Selection::hyperslab(&space, start, None, count, None)?;
        self.write_selection(&sel, data)
    }

    /// Write by one of netCDF's access forms (whole, element, section, subsampled, mapped):
    /// `data` is the memory array the form's index map (or packed row-major order) places the
    /// values in. A write past the end of an unlimited dimension grows the dataset first.
    pub fn write_nc<T: H5Type + Clone>(&self, form: NcForm<'_>, data: &[T]) -> WriteResult<()> {
        let space = self.space()?;
        let access = nc_access(&space, form, NcMode::Write)?;
        if access.memory.extent() > data.len() as u64 {
            return Err(WriteError::new(
                ErrorKind::BufferSize,
                format!(
                    "the access places values in {} elements, the buffer has {}",
                    access.memory.extent(),
                    data.len()
                ),
            ));
        }
        let mut packed = Vec::with_capacity(access.memory.len() as usize);
        let mut i = 0u64;
        while i < access.memory.len() {
            let (off, run) = access.memory.locate(i);
            let run = run.min(access.memory.len() - i);
            for k in 0..run {
                let v = data.get((off + k) as usize).ok_or_else(|| {
                    WriteError::new(ErrorKind::BufferSize, "index map outside the buffer")
                })?;
                packed.push(v.clone());
            }
            i += run;
        }
        if access.extent != space {
            if let Dataspace::Simple { dims, .. } = &access.extent {
                self.resize(dims)?;
            }
        }
        self.write_selection(&access.file, &packed)
    }

    /// Write a memory image of type `mem` (variable-length parts in `heap`) to the selected
    /// elements (all when `None`).
    pub fn write_raw(
        &self,
        selection: Option<&Selection>,
        mem: &Datatype,
        image: &[u8],
        heap: &VarLenHeap,
    ) -> WriteResult<()> {
        self.loc
            .with(|w, id| w.write_dataset(id, selection, mem, image, heap))
    }

    /// The current extent.
    pub fn space(&self) -> WriteResult<Dataspace> {
        self.loc.with(|w, id| Ok(w.dataset_space(id)?.clone()))
    }

    /// The current dimensions.
    pub fn shape(&self) -> WriteResult<Vec<u64>> {
        Ok(match self.space()? {
            Dataspace::Simple { dims, .. } => dims,
            _ => Vec::new(),
        })
    }

    /// The file datatype.
    pub fn dtype(&self) -> WriteResult<Datatype> {
        self.loc.with(|w, id| Ok(w.dataset_type(id)?.clone()))
    }

    /// Change the dimensions of a chunked dataset (within its maximum dimensions).
    pub fn resize(&self, dims: &[u64]) -> WriteResult<()> {
        self.loc.with(|w, id| w.resize(id, dims))
    }

    /// Append `data` along the first dimension (a 1-D dataset grows by `data.len()`; a
    /// higher-rank one by `data.len()` / (product of the other dimensions) rows).
    pub fn append<T: H5Type>(&self, data: &[T]) -> WriteResult<()> {
        let dims = self.shape()?;
        let row: u64 = dims.iter().skip(1).product();
        let n = data.len() as u64;
        if dims.is_empty() || row == 0 || n % row != 0 {
            return Err(WriteError::new(
                ErrorKind::BufferSize,
                format!("{n} elements do not make whole rows of {row}"),
            ));
        }
        let mut new = dims.clone();
        new[0] += n / row;
        let mut start = vec![0u64; dims.len()];
        start[0] = dims[0];
        let mut count = dims.clone();
        count[0] = n / row;
        self.resize(&new)?;
        self.write_slab(&start, &count, data)
    }

    /// An object reference to this dataset.
    pub fn reference(&self) -> WriteResult<ObjectRef> {
        self.loc.reference()
    }

    /// A region reference to the elements of `selection` of this dataset.
    pub fn region_reference(&self, selection: &Selection) -> WriteResult<RegionRef> {
        let bytes = self.loc.with(|w, id| w.region_reference(id, selection))?;
        Ok(RegionRef::from_bytes(bytes))
    }

    /// Start building an attribute of `T` on this dataset.
    pub fn new_attr<T: H5Type>(&self) -> AttrBuilder<T> {
        AttrBuilder::new(self.loc.clone())
    }

    /// An existing attribute of this dataset, to write values of `T` to.
    pub fn attr<T: H5Type>(&self, name: &str) -> WriteResult<AttrWriter<T>> {
        AttrWriter::open(&self.loc, name)
    }

    /// The names of the dataset's attributes, in creation order.
    pub fn attr_names(&self) -> WriteResult<Vec<String>> {
        self.loc.with(|w, id| w.attribute_names(id))
    }

    /// Track (and index) the creation order of the dataset's attributes; only before its
    /// first attribute.
    pub fn set_attr_order(&self, order: CreationOrder) -> WriteResult<()> {
        self.loc.with(|w, id| w.set_attribute_order(id, order))
    }
}

/// Builds an attribute.
#[derive(Debug)]
#[must_use]
pub struct AttrBuilder<T> {
    loc: Loc,
    datatype: Datatype,
    committed: Option<ObjId>,
    space: Dataspace,
    error: Option<WriteError>,
    _t: PhantomData<fn(T)>,
}

impl<T: H5Type> AttrBuilder<T> {
    fn new(loc: Loc) -> Self {
        AttrBuilder {
            loc,
            datatype: T::h5_type(),
            committed: None,
            space: Dataspace::Scalar,
            error: None,
            _t: PhantomData,
        }
    }

    /// The dimensions (no call: scalar).
    pub fn shape(mut self, dims: &[u64]) -> Self {
        match Dataspace::simple(dims) {
            Ok(s) => self.space = s,
            Err(e) => self.error = Some(e.into()),
        }
        self
    }

    /// A null dataspace.
    pub fn null(mut self) -> Self {
        self.space = Dataspace::Null;
        self
    }

    /// The file datatype, when it differs from `T`'s.
    pub fn dtype(mut self, datatype: Datatype) -> Self {
        self.datatype = datatype;
        self
    }

    /// Use (and share) a committed datatype.
    pub fn committed(mut self, t: &CommittedType) -> Self {
        self.committed = Some(t.loc.id);
        self
    }

    /// Create the attribute `name` (values zero until written).
    pub fn create(self, name: &str) -> WriteResult<AttrWriter<T>> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let (dt, committed, space) = (self.datatype, self.committed, self.space);
        self.loc
            .with(|w, id| w.create_attribute(id, name, &dt, committed, space))?;
        Ok(AttrWriter {
            loc: self.loc,
            name: name.to_owned(),
            _t: PhantomData,
        })
    }
}

/// An attribute being written.
#[derive(Debug)]
pub struct AttrWriter<T> {
    loc: Loc,
    name: String,
    _t: PhantomData<fn(T)>,
}

impl<T: H5Type> AttrWriter<T> {
    fn open(loc: &Loc, name: &str) -> WriteResult<Self> {
        let exists = loc.with(|w, id| Ok(w.attribute_names(id)?.iter().any(|n| n == name)))?;
        if !exists {
            return Err(WriteError::new(
                ErrorKind::NotFound,
                format!("no attribute {name:?}"),
            ));
        }
        Ok(AttrWriter {
            loc: loc.clone(),
            name: name.to_owned(),
            _t: PhantomData,
        })
    }

    /// Write all values.
    pub fn write(&self, data: &[T]) -> WriteResult<()> {
        let (img, heap) = encode_slice(data)?;
        self.loc
            .with(|w, id| w.write_attribute(id, &self.name, &T::h5_type(), &img, &heap))
    }
}

/// The plugin filters (hdf5plugin's set, pure Rust), one call each.
impl<T: H5Type> DatasetBuilder<T> {
    /// Add the Zstandard filter (32015) at `level` (1 to 22).
    pub fn zstd(self, level: u32) -> Self {
        self.filter(Filter::zstd(level))
    }

    /// Add the Blosc filter (32001): `codec` at `level` (0 to 9) after `shuffle`.
    pub fn blosc(
        self,
        codec: h5_io::filter::BloscCodec,
        level: u32,
        shuffle: h5_io::filter::BloscShuffle,
    ) -> Self {
        self.filter(Filter::blosc(codec, level, shuffle))
    }

    /// Add the Bitshuffle filter (32008) with `compression` inside.
    pub fn bitshuffle(self, compression: h5_io::filter::BitshuffleCompression) -> Self {
        self.filter(Filter::bitshuffle(compression))
    }

    /// Add the LZ4 filter (32004).
    pub fn lz4(self) -> Self {
        self.filter(Filter::lz4())
    }

    /// Add the BZip2 filter (307) with blocks of `level` × 100 kB (1 to 9).
    pub fn bzip2(self, level: u32) -> Self {
        self.filter(Filter::bzip2(level))
    }
}
