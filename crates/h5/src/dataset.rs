//! [`Dataset`]: read (whole, by selection, numpy-style slices, into buffers) and write
//! (whole, by selection or slice, resize, append); [`DatasetBuilder`] creates one.

use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use h5_io::filter::{Filter, FilterId};
use h5_io::selection::{nc_access, Dataspace, MemoryMap, NcForm, NcMode, Selection, UNLIMITED};
use h5_io::write::{CreationOrder, DatasetSpec, StorageSpec};
use h5_types::h5type::{encode_slice, ObjectRef, RegionRef, VarLenHeap};
use h5_types::{Datatype, H5Type};

use crate::attribute::{AttrBuilder, Attribute};
use crate::error::{bail, ensure, Error, ErrorKind, Result};
use crate::file::poisoned;
use crate::group::CommittedType;
use crate::object::Obj;

pub use h5_format::message::layout::{ChunkIndex, Layout, LayoutClass};
pub use h5_io::dataset::FillValue;
pub use h5_io::dataset::{AllocTime, FillTime};

/// A dataset.
#[derive(Clone, Debug)]
pub struct Dataset {
    obj: Obj,
    /// What the reader decoded, and the reader's generation.
    cache: Arc<Mutex<Option<(u64, h5_io::Dataset)>>>,
    /// The datatype and extent as last seen (what the getters fall back to once the file is
    /// closed).
    last: Arc<Mutex<(Datatype, Dataspace)>>,
}

/// A data image ready to write: the memory type, the bytes, their variable-length parts.
/// The bytes are the caller's own memory where `T`'s memory is its image (no copy of the
/// data before it is written), else an encoding of it.
struct Image<'a> {
    mem: Datatype,
    bytes: std::borrow::Cow<'a, [u8]>,
    heap: VarLenHeap,
}

impl<'a> Image<'a> {
    fn of<T: H5Type>(data: &'a [T]) -> Result<Image<'a>> {
        let (bytes, heap) = match T::image_bytes(data) {
            Some(b) => (std::borrow::Cow::Borrowed(b), VarLenHeap::new()),
            None => {
                let (b, heap) = encode_slice(data)?;
                (std::borrow::Cow::Owned(b), heap)
            }
        };
        Ok(Image {
            mem: T::h5_type(),
            bytes,
            heap,
        })
    }

    /// The image holding its own bytes (kept by a builder past the caller's borrow).
    fn into_owned(self) -> Image<'static> {
        Image {
            mem: self.mem,
            bytes: std::borrow::Cow::Owned(self.bytes.into_owned()),
            heap: self.heap,
        }
    }

    /// Encode the elements `items` yields, in order (views that are not contiguous).
    fn of_iter<'b, T: H5Type + 'b>(
        n: usize,
        items: impl Iterator<Item = &'b T>,
    ) -> Result<Image<'static>> {
        let size = std::mem::size_of::<T>();
        let mut bytes = vec![0u8; n.checked_mul(size).ok_or_else(too_big)?];
        let mut heap = VarLenHeap::new();
        if size > 0 {
            for (v, out) in items.zip(bytes.chunks_exact_mut(size)) {
                v.encode(out, &mut heap)?;
            }
        }
        Ok(Image {
            mem: T::h5_type(),
            bytes: std::borrow::Cow::Owned(bytes),
            heap,
        })
    }
}

#[cold]
fn too_big() -> Error {
    Error::new(ErrorKind::LimitExceeded, "the data is too large")
}

impl Dataset {
    /// The handle of the dataset `obj`: a writable file's from the writer's model, a
    /// read-only file's decoded by the reader now.
    pub(crate) fn from_obj(obj: Obj) -> Result<Dataset> {
        if obj.is_writable() {
            let last =
                obj.query(|w, id| Ok((w.dataset_type(id)?.clone(), w.dataset_space(id)?.clone())))?;
            return Ok(Dataset {
                obj,
                cache: Arc::new(Mutex::new(None)),
                last: Arc::new(Mutex::new(last)),
            });
        }
        let (generation, loc) = obj.location()?;
        let d = h5_io::Dataset::at(loc)?;
        Ok(Self::from_reader(obj, generation, d))
    }

    pub(crate) fn from_reader(obj: Obj, generation: u64, d: h5_io::Dataset) -> Dataset {
        let last = (d.datatype().clone(), d.dataspace().clone());
        Dataset {
            obj,
            cache: Arc::new(Mutex::new(Some((generation, d)))),
            last: Arc::new(Mutex::new(last)),
        }
    }

    /// The low-level reader's dataset, as the file is now.
    pub(crate) fn io(&self) -> Result<h5_io::Dataset> {
        let (generation, loc) = self.obj.location()?;
        let mut c = self.cache.lock().map_err(poisoned)?;
        if let Some((g, d)) = &*c {
            if *g == generation {
                return Ok(d.clone());
            }
        }
        let d = h5_io::Dataset::at(loc)?;
        *c = Some((generation, d.clone()));
        if let Ok(mut l) = self.last.lock() {
            *l = (d.datatype().clone(), d.dataspace().clone());
        }
        Ok(d)
    }

    /// `f` on the reader's dataset; for a SWMR reader, a read that fails to decode (a
    /// structure the writer was rewriting) is tried again on the file read anew, a bounded
    /// number of times (see [`crate::SWMR_READ_ATTEMPTS`]).
    fn reading<R>(&self, f: impl Fn(&h5_io::Dataset) -> h5_io::Result<R>) -> Result<R> {
        let file = &self.obj.file;
        let once = || Ok(f(&self.io()?)?);
        if file.is_swmr_reader() {
            crate::file::with_retry(once, || file.refresh())
        } else {
            once()
        }
    }

    /// Read the dataset again as the file is on disk now (a SWMR reader's `H5Drefresh`):
    /// its extent, chunk index and header as the writer last flushed them. (The file is read
    /// anew, see [`crate::File::refresh`]; other handles see the new state too.)
    pub fn refresh(&self) -> Result<()> {
        let file = &self.obj.file;
        file.refresh()?;
        if !self.obj.is_writable() {
            if file.is_swmr_reader() {
                crate::file::with_retry(|| self.io().map(drop), || file.refresh())?;
            } else {
                self.io()?;
            }
        }
        Ok(())
    }

    /// The low-level reader's dataset, as the file is now.
    pub fn inner(&self) -> Result<h5_io::Dataset> {
        self.io()
    }

    /// The dataset's path (the one it was reached by).
    pub fn path(&self) -> &str {
        &self.obj.path
    }

    /// The last component of the path.
    pub fn name(&self) -> &str {
        self.obj.name()
    }

    /// The file the dataset was reached from.
    pub fn file(&self) -> &crate::File {
        &self.obj.file
    }

    // ----- what it is -----
    //
    // The extent, datatype, chunks and filters of a writable file's dataset come from the
    // writer's model (no flush); a read-only file's from what the reader decoded when the
    // handle was made. (Were the file closed meanwhile, the last values decoded, or none.)

    /// The datatype and extent last seen (a read-only file's as its reader now decodes
    /// them: after [`crate::File::refresh`], the new extent).
    fn last(&self) -> (Datatype, Dataspace) {
        if !self.obj.is_writable() {
            if let Ok(d) = self.io() {
                return (d.datatype().clone(), d.dataspace().clone());
            }
        }
        match self.last.lock() {
            Ok(l) => l.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    /// The decoded dataset, when the reader decoded it already (a read-only file's always).
    fn cached(&self) -> Option<h5_io::Dataset> {
        if !self.obj.is_writable() {
            if let Ok(d) = self.io() {
                return Some(d);
            }
        }
        self.cache.lock().ok()?.as_ref().map(|(_, d)| d.clone())
    }

    /// The datatype in the file.
    pub fn datatype(&self) -> Datatype {
        if self.obj.is_writable() {
            if let Ok(t) = self.obj.query(|w, id| Ok(w.dataset_type(id)?.clone())) {
                return t;
            }
        }
        self.last().0
    }

    /// The extent.
    pub fn dataspace(&self) -> Dataspace {
        if self.obj.is_writable() {
            if let Ok(s) = self.obj.query(|w, id| Ok(w.dataset_space(id)?.clone())) {
                return s;
            }
        }
        self.last().1
    }

    /// The current dimensions (empty for a scalar or null dataspace).
    pub fn shape(&self) -> Vec<u64> {
        self.dataspace().dims().to_vec()
    }

    /// The maximum dimensions ([`UNLIMITED`] for unlimited ones).
    pub fn max_shape(&self) -> Vec<u64> {
        self.dataspace().maxdims().to_vec()
    }

    /// The rank.
    pub fn ndim(&self) -> usize {
        self.dataspace().dims().len()
    }

    /// The number of elements.
    pub fn len(&self) -> u64 {
        self.dataspace().npoints()
    }

    /// Whether the dataset has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The chunk dimensions of a chunked dataset.
    pub fn chunk_dims(&self) -> Option<Vec<u64>> {
        if self.obj.is_writable() {
            if let Ok(c) = self.obj.query(|w, id| w.dataset_chunk_dims(id)) {
                return c;
            }
        }
        self.cached()?.chunk_dims()
    }

    /// The filter pipeline.
    pub fn filters(&self) -> Vec<Filter> {
        if self.obj.is_writable() {
            if let Ok(f) = self.obj.query(|w, id| Ok(w.dataset_filters(id)?.to_vec())) {
                return f;
            }
        }
        self.cached()
            .map(|d| d.filters().to_vec())
            .unwrap_or_default()
    }

    /// The storage layout as stored.
    pub fn layout(&self) -> Result<Layout> {
        Ok(self.io()?.layout().clone())
    }

    /// The fill value properties.
    pub fn fill_value(&self) -> Result<FillValue> {
        Ok(self.io()?.fill_value().clone())
    }

    /// The bytes of storage allocated for the raw data (`H5Dget_storage_size`).
    pub fn storage_size(&self) -> Result<u64> {
        Ok(self.io()?.storage_size()?)
    }

    /// The stored bytes of the chunk at `scaled` (chunk coordinates), as its filters left
    /// them, with its filter mask; `None` when the chunk is not allocated.
    pub fn raw_chunk(&self, scaled: &[u64]) -> Result<Option<(Vec<u8>, u32)>> {
        Ok(self.io()?.raw_chunk(scaled)?)
    }

    // ----- reading -----

    /// Whether reading as `T` fills the result straight from the stored bytes, with nothing
    /// converted or decoded per element: `T`'s memory is its byte image (the primitive
    /// numbers, or a derived struct marked `#[h5(zerocopy)]`) and the file's datatype equals
    /// `T`'s memory type byte for byte (same members, offsets, sizes, byte order and
    /// padding). When it is `false` the read converts as usual.
    pub fn reads_directly<T: H5Type>(&self) -> Result<bool> {
        Ok(self.io()?.reads_directly::<T>())
    }

    /// Every element converted to `T`, in row-major order.
    pub fn read<T: H5Type>(&self) -> Result<Vec<T>> {
        self.reading(|d| d.read::<T>())
    }

    /// Every element in the file's own datatype, as stored.
    pub fn read_raw(&self) -> Result<(Vec<u8>, Datatype)> {
        self.reading(|d| d.read_raw())
    }

    /// The one element of a scalar (or one-element) dataset.
    pub fn read_scalar<T: H5Type>(&self) -> Result<T> {
        let mut v = self.read::<T>()?;
        ensure!(
            v.len() == 1,
            InvalidInput,
            "{}: {} elements, not one",
            self.obj.path,
            v.len()
        );
        v.pop()
            .ok_or_else(|| Error::new(ErrorKind::InvalidInput, "no element"))
    }

    /// The elements of `selection`, converted to `T`, in the selection's order.
    pub fn read_selection<T: H5Type>(&self, selection: &Selection) -> Result<Vec<T>> {
        self.reading(|d| d.read_selection::<T>(selection))
    }

    /// The selected elements in the file's datatype, placed in a buffer as `mem` says.
    pub fn read_raw_selection(&self, selection: &Selection, mem: &MemoryMap) -> Result<Vec<u8>> {
        self.reading(|d| d.read_raw_selection(selection, mem))
    }

    /// A regular hyperslab (`start`, `count`, optional `stride` and `block`; what
    /// `H5Sselect_hyperslab` takes) converted to `T`.
    pub fn read_hyperslab<T: H5Type>(
        &self,
        start: &[u64],
        stride: Option<&[u64]>,
        count: &[u64],
        block: Option<&[u64]>,
    ) -> Result<Vec<T>> {
        self.reading(|d| d.read_slice::<T>(start, stride, count, block))
    }

    /// A netCDF-style access (whole, element, section, subsampled or mapped) converted to
    /// `T`.
    pub fn read_nc<T: H5Type>(&self, form: NcForm<'_>) -> Result<Vec<T>> {
        self.reading(|d| d.read_nc::<T>(form))
    }

    /// Every element converted to `T`, into `buf` (of exactly [`Dataset::len`] elements):
    /// for repeated reads, nothing is allocated for the values.
    pub fn read_into<T: H5Type>(&self, buf: &mut [T]) -> Result<()> {
        Ok(self.io()?.read_selection_into(&Selection::All, buf)?)
    }

    /// The elements of `selection` converted to `T`, into `buf` (of exactly as many
    /// elements as selected).
    pub fn read_selection_into<T: H5Type>(
        &self,
        selection: &Selection,
        buf: &mut [T],
    ) -> Result<()> {
        Ok(self.io()?.read_selection_into(selection, buf)?)
    }

    /// An object reference to this dataset.
    pub fn reference(&self) -> Result<ObjectRef> {
        Ok(ObjectRef::new(self.obj.addr))
    }

    // ----- attributes -----

    /// The attribute `name`.
    pub fn attr(&self, name: &str) -> Result<Attribute> {
        Attribute::open(&self.obj, name)
    }

    /// Every attribute, in name order.
    pub fn attrs(&self) -> Result<Vec<Attribute>> {
        Attribute::all(&self.obj, false)
    }

    /// Every attribute, in creation order (when the object tracks it).
    pub fn attrs_by_creation_order(&self) -> Result<Vec<Attribute>> {
        Attribute::all(&self.obj, true)
    }

    /// The attribute names, in name order.
    pub fn attr_names(&self) -> Result<Vec<String>> {
        Attribute::names(&self.obj)
    }

    /// Whether the dataset has an attribute `name`.
    pub fn has_attr(&self, name: &str) -> Result<bool> {
        Ok(self.attr_names()?.iter().any(|n| n == name))
    }

    /// Start building an attribute of `T` on this dataset.
    pub fn new_attr<T: H5Type>(&self) -> AttrBuilder<T> {
        AttrBuilder::new(self.obj.clone())
    }

    /// Delete the attribute `name`.
    pub fn delete_attr(&self, name: &str) -> Result<()> {
        self.obj.write(|w, id| w.delete_attribute(id, name))
    }

    /// The object's comment (`H5Oget_comment`), if it has one.
    pub fn comment(&self) -> Result<Option<String>> {
        self.obj.comment()
    }

    /// Set (or with `None` remove) the object's comment (`H5Oset_comment`).
    pub fn set_comment(&self, comment: Option<&str>) -> Result<()> {
        self.obj.write(|w, id| w.set_comment(id, comment))
    }

    /// Rename the attribute `from` to `to`.
    pub fn rename_attr(&self, from: &str, to: &str) -> Result<()> {
        self.obj.write(|w, id| w.rename_attribute(id, from, to))
    }

    /// Track (and index) the creation order of the dataset's attributes; only before its
    /// first attribute.
    pub fn set_attr_order(&self, order: CreationOrder) -> Result<()> {
        self.obj.write(|w, id| w.set_attribute_order(id, order))
    }

    // ----- writing -----

    /// Write every element from `data`, in row-major order, converted from `T`'s datatype
    /// to the file's (compound members `T` lacks keep their values).
    #[cfg(not(feature = "ndarray"))]
    pub fn write<T: H5Type>(&self, data: &[T]) -> Result<()> {
        let n = self.len();
        ensure!(
            data.len() as u64 == n,
            InvalidInput,
            "{}: {} values for {n} elements",
            self.obj.path,
            data.len()
        );
        self.write_image(None, &Image::of(data)?)
    }

    /// Write every element from `data`: anything that converts into an `ndarray` view (a
    /// slice, a `Vec`, an array, an `Array`, a view that is not contiguous such as
    /// `a.t()`), of the dataset's shape (or one-dimensional, with one value per element
    /// in row-major order), converted from `T`'s datatype to the file's (compound members
    /// `T` lacks keep their values).
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("h5-write-doc-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// let f = h5::File::create(dir.join("w.h5"))?;
    /// let a = ndarray::arr2(&[[1, 2, 3], [4, 5, 6]]);
    /// let d = f.new_dataset::<i32>().shape(&[3, 2]).create("t")?;
    /// d.write(&a.t())?; // the transpose, a view that is not contiguous
    /// assert_eq!(d.read::<i32>()?, [1, 4, 2, 5, 3, 6]);
    /// # Ok::<(), h5::Error>(())
    /// ```
    #[cfg(feature = "ndarray")]
    pub fn write<'a, T, A, D>(&self, data: A) -> Result<()>
    where
        T: H5Type + 'a,
        A: ndarray::AsArray<'a, T, D>,
        D: ndarray::Dimension,
    {
        let view = data.into();
        let space = self.dataspace();
        let dims = space.dims();
        let shape: Vec<u64> = view.shape().iter().map(|&d| d as u64).collect();
        let n = space.npoints();
        let fits = shape == dims
            || (shape.len() == 1 && shape[0] == n)
            || (dims.is_empty() && view.len() as u64 == n);
        ensure!(
            fits,
            InvalidInput,
            "{}: data of shape {shape:?} for a dataset of shape {dims:?}",
            self.obj.path
        );
        self.write_image(None, &view_image(&view)?)
    }

    /// Write the elements of `selection` from `data`, in the selection's order.
    pub fn write_selection<T: H5Type>(&self, selection: &Selection, data: &[T]) -> Result<()> {
        self.write_image(Some(selection), &Image::of(data)?)
    }

    /// Write a regular hyperslab (`start`, `count`; unit stride and block) from `data`.
    pub fn write_slab<T: H5Type>(&self, start: &[u64], count: &[u64], data: &[T]) -> Result<()> {
        let space = self.dataspace();
        let sel = Selection::hyperslab(&space, start, None, count, None)?;
        self.write_selection(&sel, data)
    }

    /// Write by one of netCDF's access forms: `data` is the memory array the form's index
    /// map (or packed row-major order) places the values in. A write past the end of an
    /// unlimited dimension grows the dataset first.
    pub fn write_nc<T: H5Type>(&self, form: NcForm<'_>, data: &[T]) -> Result<()> {
        let space = self.dataspace();
        let access = nc_access(&space, form, NcMode::Write)?;
        ensure!(
            access.memory.extent() <= data.len() as u64,
            InvalidInput,
            "the access places values in {} elements, the buffer has {}",
            access.memory.extent(),
            data.len()
        );
        let n = usize::try_from(access.memory.len()).map_err(|_| too_big())?;
        let mut refs = Vec::with_capacity(n);
        let mut i = 0u64;
        while i < access.memory.len() {
            let (off, run) = access.memory.locate(i);
            let run = run.min(access.memory.len() - i);
            for k in 0..run {
                let v = data.get((off + k) as usize).ok_or_else(|| {
                    Error::new(ErrorKind::InvalidInput, "index map outside the buffer")
                })?;
                refs.push(v);
            }
            i += run;
        }
        let img = Image::of_iter(n, refs.into_iter())?;
        if access.extent != space {
            if let Dataspace::Simple { dims, .. } = &access.extent {
                self.resize(dims)?;
            }
        }
        self.write_image(Some(&access.file), &img)
    }

    /// Write a memory image of type `mem` (variable-length parts in `heap`) to the selected
    /// elements (all when `None`).
    pub fn write_raw(
        &self,
        selection: Option<&Selection>,
        mem: &Datatype,
        image: &[u8],
        heap: &VarLenHeap,
    ) -> Result<()> {
        self.obj
            .write(|w, id| w.write_dataset(id, selection, mem, image, heap))
    }

    fn write_image(&self, selection: Option<&Selection>, img: &Image<'_>) -> Result<()> {
        self.write_raw(selection, &img.mem, &img.bytes, &img.heap)
    }

    /// Change the dimensions of a chunked dataset (within its maximum dimensions).
    pub fn resize(&self, dims: &[u64]) -> Result<()> {
        self.obj.write(|w, id| w.resize(id, dims))
    }

    /// Append `data` along the first dimension (a 1-D dataset grows by `data.len()`; a
    /// higher-rank one by `data.len()` / (product of the other dimensions) rows).
    pub fn append<T: H5Type>(&self, data: &[T]) -> Result<()> {
        let dims = self.shape();
        let row: u64 = dims.iter().skip(1).product();
        let n = data.len() as u64;
        if dims.is_empty() || row == 0 || !n.is_multiple_of(row) {
            bail!(
                InvalidInput,
                "{}: {n} elements do not make whole rows of {row}",
                self.obj.path
            );
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

    /// A region reference to the elements of `selection` of this dataset.
    pub fn region_reference(&self, selection: &Selection) -> Result<RegionRef> {
        let bytes = self.obj.write(|w, id| w.region_reference(id, selection))?;
        Ok(RegionRef::from_bytes(bytes))
    }
}

/// The image of a view's elements in logical (row-major) order.
#[cfg(feature = "ndarray")]
fn view_image<'a, T: H5Type, D: ndarray::Dimension>(
    view: &'a ndarray::ArrayView<'_, T, D>,
) -> Result<Image<'a>> {
    match view.as_slice() {
        Some(s) => Image::of(s),
        None => Image::of_iter(view.len(), view.iter()),
    }
}

#[cfg(feature = "ndarray")]
mod nd {
    //! The `ndarray` forms: arrays, numpy-style slices.

    use ndarray::{Array, ArrayViewMut, Dimension, IxDyn, SliceInfoElem};

    use super::*;
    use crate::slice::{resolve, Resolved};

    fn shaped<T, D: Dimension>(v: Vec<T>, shape: &[usize], path: &str) -> Result<Array<T, D>> {
        let a = Array::from_shape_vec(IxDyn(shape), v)
            .map_err(|e| Error::new(ErrorKind::InvalidInput, e.to_string()).at(path))?;
        a.into_dimensionality::<D>().map_err(|_| {
            Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "the result has rank {}, the array type another ({shape:?})",
                    shape.len()
                ),
            )
            .at(path)
        })
    }

    impl Dataset {
        /// Every element converted to `T`, shaped as the dataset (`D` = `IxDyn` for any
        /// rank, `Ix0` for scalars).
        ///
        /// ```
        /// # let dir = std::env::temp_dir().join(format!("h5-arr-doc-{}", std::process::id()));
        /// # std::fs::create_dir_all(&dir).unwrap();
        /// let f = h5::File::create(dir.join("a.h5"))?;
        /// let d = f.new_dataset_builder().with_data(&ndarray::arr2(&[[1.0f32, 2.0], [3.0, 4.0]])).create("a")?;
        /// let a: ndarray::Array2<f32> = d.read_array()?;
        /// let any: ndarray::ArrayD<f32> = d.read_array()?;
        /// assert_eq!(a[[1, 0]], 3.0);
        /// assert_eq!(any.shape(), [2, 2]);
        /// # Ok::<(), h5::Error>(())
        /// ```
        pub fn read_array<T: H5Type, D: Dimension>(&self) -> Result<Array<T, D>> {
            let d = self.io()?;
            let shape: Vec<usize> = d
                .shape()
                .iter()
                .map(|&x| usize::try_from(x).map_err(|_| too_big()))
                .collect::<Result<_>>()?;
            shaped(d.read::<T>()?, &shape, self.path())
        }

        fn resolve(&self, slice: &[SliceInfoElem]) -> Result<(Resolved, Dataspace)> {
            let space = self.dataspace();
            let r = resolve(slice, space.dims()).map_err(|e| e.at(self.path()))?;
            Ok((r, space))
        }

        fn selection(r: &Resolved, space: &Dataspace) -> Result<Selection> {
            if space.dims().is_empty() {
                return Ok(Selection::All);
            }
            Ok(Selection::hyperslab(
                space,
                &r.start,
                Some(&r.stride),
                &r.count,
                None,
            )?)
        }

        /// A numpy-style slice (`ds[5, :, 100:200:2]` is `ds.read_slice(s![5, .., 100..200;2])`)
        /// converted to `T`: an integer index drops its dimension, negative indices and
        /// ends count from the end, ranges are clamped, steps may be negative (ndarray's
        /// meaning), unnamed trailing dimensions are whole. See the [`s!`](crate::s) macro.
        ///
        /// ```
        /// use h5::s;
        /// # let dir = std::env::temp_dir().join(format!("h5-slice-doc-{}", std::process::id()));
        /// # std::fs::create_dir_all(&dir).unwrap();
        /// let f = h5::File::create(dir.join("s.h5"))?;
        /// let a = ndarray::Array::from_shape_fn((4, 5, 6), |(i, j, k)| (i * 100 + j * 10 + k) as i32);
        /// let d = f.new_dataset_builder().with_data(&a).create("cube")?;
        /// let b: ndarray::Array2<i32> = d.read_slice(s![2, .., 1..6;2])?;
        /// assert_eq!(b, a.slice(ndarray::s![2, .., 1..6;2]));
        /// let last: ndarray::Array1<i32> = d.read_slice(s![-1, -1])?;
        /// assert_eq!(last.to_vec(), [340, 341, 342, 343, 344, 345]);
        /// # Ok::<(), h5::Error>(())
        /// ```
        pub fn read_slice<T, S, D>(&self, slice: S) -> Result<Array<T, D>>
        where
            T: H5Type,
            S: AsRef<[SliceInfoElem]>,
            D: Dimension,
        {
            self.read_slice_with(slice, false)
        }

        pub(crate) fn read_slice_with<T, S, D>(&self, slice: S, strict: bool) -> Result<Array<T, D>>
        where
            T: H5Type,
            S: AsRef<[SliceInfoElem]>,
            D: Dimension,
        {
            let (r, space) = self.resolve(slice.as_ref())?;
            let v = if r.len() == 0 {
                Vec::new()
            } else {
                self.reader()
                    .with_strict(strict)
                    .read_selection::<T>(&Self::selection(&r, &space)?)?
            };
            let mut a = shaped::<T, IxDyn>(v, &r.shape, self.path())?;
            for &ax in &r.reversed {
                a.invert_axis(ndarray::Axis(ax));
            }
            shaped_dim(a, self.path())
        }

        /// A numpy-style slice converted to `T`, into `out` (whose shape must be the
        /// slice's): for repeated reads, nothing is allocated for the values when `out` is
        /// contiguous and the slice has no negative step.
        pub fn read_slice_into<T, S, D>(
            &self,
            slice: S,
            out: &mut ArrayViewMut<'_, T, D>,
        ) -> Result<()>
        where
            T: H5Type,
            S: AsRef<[SliceInfoElem]>,
            D: Dimension,
        {
            let (r, space) = self.resolve(slice.as_ref())?;
            ensure!(
                out.shape() == r.shape.as_slice(),
                InvalidInput,
                "{}: a buffer of shape {:?} for a slice of shape {:?}",
                self.path(),
                out.shape(),
                r.shape
            );
            if r.len() == 0 {
                return Ok(());
            }
            let sel = Self::selection(&r, &space)?;
            if r.reversed.is_empty() {
                if let Some(buf) = out.as_slice_mut() {
                    return self.read_selection_into(&sel, buf);
                }
            }
            let a = self.read_slice::<T, _, IxDyn>(slice)?;
            for (o, v) in out.iter_mut().zip(a) {
                *o = v;
            }
            Ok(())
        }

        /// Write `data` (any array or view, of the slice's shape) to a numpy-style slice of
        /// the dataset (see [`Dataset::read_slice`]).
        pub fn write_slice<'a, T, A, D, S>(&self, data: A, slice: S) -> Result<()>
        where
            T: H5Type + 'a,
            A: ndarray::AsArray<'a, T, D>,
            D: Dimension,
            S: AsRef<[SliceInfoElem]>,
        {
            let mut view = data.into();
            let (r, space) = self.resolve(slice.as_ref())?;
            ensure!(
                view.shape() == r.shape.as_slice(),
                InvalidInput,
                "{}: data of shape {:?} for a slice of shape {:?}",
                self.path(),
                view.shape(),
                r.shape
            );
            if r.len() == 0 {
                return Ok(());
            }
            for &ax in &r.reversed {
                view.invert_axis(ndarray::Axis(ax));
            }
            let img = view_image(&view)?;
            self.write_image(Some(&Self::selection(&r, &space)?), &img)
        }
    }

    fn shaped_dim<T, D: Dimension>(a: Array<T, IxDyn>, path: &str) -> Result<Array<T, D>> {
        let rank = a.ndim();
        a.into_dimensionality::<D>().map_err(|_| {
            Error::new(
                ErrorKind::InvalidInput,
                format!("the slice has rank {rank}, the array type another"),
            )
            .at(path)
        })
    }
}

// ----- building -----

/// Builds a dataset whose type and shape come from its data: [`Group::new_dataset_builder`]
/// (hdf5-metno's form).
///
/// [`Group::new_dataset_builder`]: crate::Group::new_dataset_builder
#[derive(Debug)]
#[must_use]
pub struct DatasetBuilderUntyped {
    parent: Obj,
}

impl DatasetBuilderUntyped {
    pub(crate) fn new(parent: Obj) -> Self {
        DatasetBuilderUntyped { parent }
    }

    /// A dataset of `T` (shape and options to follow).
    pub fn empty<T: H5Type>(self) -> DatasetBuilder<T> {
        DatasetBuilder::new(self.parent)
    }

    /// A dataset of `data`'s type and shape, written with `data` when created.
    #[cfg(feature = "ndarray")]
    #[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
    pub fn with_data<'a, T, A, D>(self, data: A) -> DatasetBuilder<T>
    where
        T: H5Type + 'a,
        A: ndarray::AsArray<'a, T, D>,
        D: ndarray::Dimension,
    {
        let view = data.into();
        let shape: Vec<u64> = view.shape().iter().map(|&d| d as u64).collect();
        let mut b = DatasetBuilder::new(self.parent);
        match view_image(&view) {
            Ok(img) => b.data = Some(img.into_owned()),
            Err(e) => b.error = Some(e),
        }
        if shape.is_empty() {
            b.scalar = true;
        } else {
            b.shape = Some(shape);
        }
        b.data_shape = true;
        b
    }

    /// A one-dimensional dataset of `data`, written when created.
    #[cfg(not(feature = "ndarray"))]
    pub fn with_data<T: H5Type>(self, data: &[T]) -> DatasetBuilder<T> {
        let mut b = DatasetBuilder::new(self.parent);
        match Image::of(data) {
            Ok(img) => b.data = Some(img.into_owned()),
            Err(e) => b.error = Some(e),
        }
        b.shape = Some(vec![data.len() as u64]);
        b.data_shape = true;
        b
    }
}

/// Builds a dataset: shape, storage, filters, fill value. Every setting is checked at
/// [`DatasetBuilder::create`], with errors of kind [`ErrorKind::InvalidInput`].
#[must_use]
pub struct DatasetBuilder<T> {
    parent: Obj,
    spec: DatasetSpec,
    shape: Option<Vec<u64>>,
    scalar: bool,
    null: bool,
    max: Option<Vec<Option<u64>>>,
    chunk: Option<Vec<u64>>,
    storage: Option<StorageSpec>,
    fill: Option<Vec<u8>>,
    filters: Vec<Filter>,
    committed: Option<Result<h5_io::write::ObjId>>,
    attr_order: CreationOrder,
    data: Option<Image<'static>>,
    /// The shape came from the data (`with_data`): a later `shape` must agree.
    data_shape: bool,
    error: Option<Error>,
    _t: PhantomData<fn(T)>,
}

impl<T> std::fmt::Debug for DatasetBuilder<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DatasetBuilder")
            .field("parent", &self.parent.path)
            .field("datatype", &self.spec.datatype)
            .field("shape", &self.shape)
            .field("max", &self.max)
            .field("chunk", &self.chunk)
            .field("filters", &self.filters)
            .finish_non_exhaustive()
    }
}

/// Where a filter goes in the pipeline (h5py's order: value transforms, shuffles, the
/// compressor, the checksum), and whether it is a compressor.
fn filter_rank(id: FilterId) -> (u8, bool) {
    match id.0 {
        5 | 6 => (0, false), // N-bit, scale-offset
        2 => (1, false),     // shuffle
        3 => (3, false),     // Fletcher-32
        1 | 4 | 32000 | 307 | 32001 | 32004 | 32008 | 32015 | 32026 => (2, true),
        _ => (2, false),
    }
}

impl<T: H5Type> DatasetBuilder<T> {
    pub(crate) fn new(parent: Obj) -> Self {
        DatasetBuilder {
            parent,
            spec: DatasetSpec::new(T::h5_type(), Dataspace::Scalar),
            shape: None,
            scalar: false,
            null: false,
            max: None,
            chunk: None,
            storage: None,
            fill: None,
            filters: Vec::new(),
            committed: None,
            attr_order: CreationOrder::Untracked,
            data: None,
            data_shape: false,
            error: None,
            _t: PhantomData,
        }
    }

    /// The dimensions.
    pub fn shape(mut self, dims: &[u64]) -> Self {
        if self.data_shape && self.shape.as_deref() != Some(dims) {
            self.error.get_or_insert(Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "shape {dims:?} differs from the data's {:?}",
                    self.shape.as_deref().unwrap_or(&[])
                ),
            ));
        }
        self.shape = Some(dims.to_vec());
        self.scalar = false;
        self.null = false;
        self
    }

    /// A scalar dataset (one element, no dimensions).
    pub fn scalar(mut self) -> Self {
        self.scalar = true;
        self.shape = None;
        self.null = false;
        self
    }

    /// A null dataspace (no elements).
    pub fn null(mut self) -> Self {
        self.null = true;
        self.shape = None;
        self.scalar = false;
        self
    }

    /// The maximum dimensions; `None` is unlimited. Needs chunked storage when they differ
    /// from the shape (chunks are then chosen as h5py chooses them unless given).
    pub fn max_shape(mut self, max: &[Option<u64>]) -> Self {
        self.max = Some(max.to_vec());
        self
    }

    /// Every dimension unlimited (for appending).
    pub fn resizable(mut self) -> Self {
        if let Some(s) = &self.shape {
            self.max = Some(vec![None; s.len()]);
        }
        self
    }

    /// Track (and index) the creation order of the dataset's attributes
    /// (`H5Pset_attr_creation_order`; h5py's `track_order=True` is
    /// [`CreationOrder::Indexed`]).
    pub fn attr_order(mut self, order: CreationOrder) -> Self {
        self.attr_order = order;
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
        self.committed = Some(t.id());
        self
    }

    /// Chunked storage with these chunk dimensions.
    pub fn chunk(mut self, dims: &[u64]) -> Self {
        self.chunk = Some(dims.to_vec());
        self.storage = None;
        self
    }

    /// Compact storage (data in the object header).
    pub fn compact(mut self) -> Self {
        self.storage = Some(StorageSpec::Compact);
        self.chunk = None;
        self
    }

    /// Contiguous storage (the default).
    pub fn contiguous(mut self) -> Self {
        self.storage = Some(StorageSpec::Contiguous);
        self.chunk = None;
        self
    }

    /// The deflate (gzip) filter at `level` (0 to 9).
    pub fn deflate(self, level: u32) -> Self {
        self.filter(Filter::deflate(level))
    }

    /// The shuffle filter (placed before the compressor, whatever the call order).
    pub fn shuffle(self) -> Self {
        self.filter(Filter::shuffle())
    }

    /// The Fletcher-32 checksum filter (placed last).
    pub fn fletcher32(self) -> Self {
        self.filter(Filter::fletcher32())
    }

    /// The N-bit filter.
    pub fn nbit(self) -> Self {
        self.filter(Filter::nbit())
    }

    /// The scale-offset filter (`scale_type` 0: float D-scale, 1: float E-scale, 2:
    /// integer).
    pub fn scale_offset(self, scale_type: u32, scale_factor: i32) -> Self {
        self.filter(Filter::scaleoffset(scale_type, scale_factor))
    }

    /// The LZF filter.
    pub fn lzf(self) -> Self {
        self.filter(Filter::lzf())
    }

    /// Any filter.
    pub fn filter(mut self, f: Filter) -> Self {
        self.filters.push(f);
        self
    }

    /// The fill value.
    pub fn fill_value(mut self, value: T) -> Self {
        match encode_slice(std::slice::from_ref(&value)) {
            Ok((img, heap)) if heap.is_empty() => self.fill = Some(img),
            Ok(_) => {
                self.error.get_or_insert(Error::new(
                    ErrorKind::Unsupported,
                    "fill values with variable-length parts",
                ));
            }
            Err(e) => {
                self.error.get_or_insert(e.into());
            }
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

    /// Check every setting and make the dataset's spec.
    fn check(&mut self, datatype: &Datatype) -> Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let dims = match (&self.shape, self.scalar, self.null) {
            (Some(d), _, _) => Some(d.clone()),
            (None, true, _) | (None, _, true) => None,
            (None, false, false) => bail!(
                InvalidInput,
                "no shape: call .shape(..), or .scalar() for a scalar dataset"
            ),
        };
        let mut filters = std::mem::take(&mut self.filters);
        let mut compressors = 0;
        for f in &filters {
            let (_, is_compressor) = filter_rank(f.id);
            compressors += is_compressor as usize;
            match f.id {
                FilterId::DEFLATE => {
                    let level = f.client_data.first().copied().unwrap_or(0);
                    ensure!(level <= 9, InvalidInput, "deflate level {level} (0 to 9)");
                }
                FilterId::NBIT => ensure!(
                    matches!(
                        datatype,
                        Datatype::Integer(_)
                            | Datatype::Float(_)
                            | Datatype::Compound(_)
                            | Datatype::Array(_)
                            | Datatype::Enum(_)
                            | Datatype::Bitfield(_)
                            | Datatype::Opaque(_)
                            | Datatype::String(_)
                            | Datatype::Reference(_)
                    ) && !datatype.has_variable_length(),
                    InvalidInput,
                    "the N-bit filter does not apply to {datatype}"
                ),
                FilterId::SCALEOFFSET => ensure!(
                    matches!(datatype, Datatype::Integer(_) | Datatype::Float(_)),
                    InvalidInput,
                    "the scale-offset filter applies to integers and floats, not {datatype}"
                ),
                _ => {}
            }
            if f.id != FilterId::FLETCHER32 && f.id != FilterId::SHUFFLE {
                ensure!(
                    !datatype.has_variable_length() || f.is_optional(),
                    InvalidInput,
                    "filter {} on variable-length data (only the heap handles would be filtered)",
                    f.id.0
                );
            }
        }
        ensure!(
            compressors <= 1,
            InvalidInput,
            "{compressors} compressors in one pipeline (at most one)"
        );
        {
            let mut seen = std::collections::HashSet::new();
            for f in &filters {
                ensure!(
                    seen.insert(f.id.0),
                    InvalidInput,
                    "filter {} given twice",
                    f.id.0
                );
            }
        }
        filters.sort_by_key(|f| filter_rank(f.id).0);
        // The extent.
        let space = match &dims {
            None if self.null => Dataspace::Null,
            None => Dataspace::Scalar,
            Some(d) => {
                let max: Vec<u64> = match &self.max {
                    Some(m) => {
                        ensure!(
                            m.len() == d.len(),
                            InvalidInput,
                            "maximum shape of rank {} for a shape of rank {}",
                            m.len(),
                            d.len()
                        );
                        m.iter().map(|x| x.unwrap_or(UNLIMITED)).collect()
                    }
                    None => d.clone(),
                };
                for (k, (&n, &m)) in d.iter().zip(&max).enumerate() {
                    ensure!(
                        n <= m,
                        InvalidInput,
                        "dimension {k} of {n} exceeds its maximum {m}"
                    );
                }
                Dataspace::with_max(d, &max)?
            }
        };
        // The layout.
        let needs_chunks = !filters.is_empty() || space.maxdims() != space.dims();
        let storage = match (&self.chunk, &self.storage) {
            (Some(c), _) => {
                let Some(d) = &dims else {
                    bail!(InvalidInput, "a scalar or null dataset cannot be chunked");
                };
                ensure!(
                    c.len() == d.len(),
                    InvalidInput,
                    "chunk of rank {} for a dataset of rank {}",
                    c.len(),
                    d.len()
                );
                for (k, (&cd, &m)) in c.iter().zip(space.maxdims()).enumerate() {
                    ensure!(cd > 0, InvalidInput, "chunk dimension {k} is 0");
                    ensure!(
                        m == UNLIMITED || cd <= m,
                        InvalidInput,
                        "chunk dimension {k} of {cd} exceeds the maximum dimension {m}"
                    );
                }
                StorageSpec::Chunked(c.clone())
            }
            (None, Some(s)) => {
                ensure!(
                    !needs_chunks,
                    InvalidInput,
                    "filters and resizable extents need chunked storage"
                );
                s.clone()
            }
            (None, None) if needs_chunks => {
                let Some(d) = &dims else {
                    bail!(InvalidInput, "filters on a scalar or null dataset");
                };
                StorageSpec::Chunked(guess_chunk(d, space.maxdims(), datatype.size()))
            }
            (None, None) => StorageSpec::Contiguous,
        };
        self.spec.space = space;
        self.spec.storage = storage;
        self.spec.filters = filters;
        Ok(())
    }

    /// Create the dataset at `path` (relative to the group, or absolute), and write the data
    /// given to [`DatasetBuilderUntyped::with_data`].
    pub fn create(mut self, path: &str) -> Result<Dataset> {
        let full = crate::object::join(&self.parent.path, path);
        let committed = self.committed.take().transpose().map_err(|e| e.at(&full))?;
        let datatype = match committed {
            Some(c) => self
                .parent
                .file
                .query(|w| Ok(w.committed_type(c)?.clone()))?,
            None => self.spec.datatype.clone(),
        };
        self.check(&datatype).map_err(|e| e.at(&full))?;
        let mem = T::h5_type();
        let fill = self.fill.take();
        let attr_order = self.attr_order;
        let mut spec = self.spec;
        spec.committed = committed;
        spec.datatype = datatype;
        if let Some(img) = fill {
            spec.fill_value = Some(
                h5_types::convert::convert(&mem, &spec.datatype, &img)
                    .map_err(|e| Error::from(e).at(&full))?,
            );
        }
        let id = self.parent.write(|w, id| {
            let d = w.create_dataset(id, path, spec)?;
            w.set_attribute_order(d, attr_order)?;
            Ok(d)
        })?;
        let addr = self.parent.file.query(|w| w.address(id))?;
        let ds = Dataset::from_obj(Obj {
            file: self.parent.file.clone(),
            addr,
            path: full,
            foreign: None,
        })?;
        if let Some(img) = &self.data {
            ds.write_image(None, img)?;
        }
        Ok(ds)
    }
}

/// Chunk dimensions as h5py guesses them (`h5py._hl.filters.guess_chunk`): start from the
/// shape (1024 for dimensions of length 0), then halve dimensions in turn until a
/// chunk is near a target size between 8 KiB and 1 MiB that grows with the dataset's size.
fn guess_chunk(shape: &[u64], max: &[u64], type_size: usize) -> Vec<u64> {
    const BASE: f64 = 16.0 * 1024.0;
    const MIN: f64 = 8.0 * 1024.0;
    const MAX: f64 = 1024.0 * 1024.0;
    let mut chunks: Vec<f64> = shape
        .iter()
        .zip(max)
        .map(|(&d, _)| if d == 0 { 1024.0 } else { d as f64 })
        .collect();
    let ts = type_size.max(1) as f64;
    let size = chunks.iter().product::<f64>() * ts;
    let target = (BASE * 2f64.powf((size / MAX).log10())).clamp(MIN, MAX);
    let n = chunks.len();
    let mut i = 0usize;
    loop {
        let bytes = chunks.iter().product::<f64>() * ts;
        if (bytes < target || (bytes - target).abs() / target < 0.5) && bytes < MAX {
            break;
        }
        if chunks.iter().product::<f64>() <= 1.0 {
            break;
        }
        chunks[i % n] = (chunks[i % n] / 2.0).ceil();
        i += 1;
    }
    chunks
        .iter()
        .zip(max)
        .map(|(&c, &m)| {
            if m == UNLIMITED {
                c as u64
            } else {
                (c as u64).min(m).max(1)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::guess_chunk;
    use h5_io::selection::UNLIMITED;

    #[test]
    fn chunks_as_h5py_guesses() {
        // Values h5py 3.16's guess_chunk gives for these.
        assert_eq!(guess_chunk(&[1000], &[1000], 4), [1000]);
        assert_eq!(guess_chunk(&[0], &[UNLIMITED], 8), [1024]);
        assert_eq!(guess_chunk(&[1000, 1000], &[1000, 1000], 8), [63, 63]);
        assert_eq!(
            guess_chunk(&[100, 100, 100], &[100, 100, 100], 4),
            [13, 25, 25]
        );
    }
}

/// A read with options, made by [`Dataset::reader`]: by default values convert as the
/// reference library converts them (integers clamp, floats round); [`strict`](Self::strict)
/// makes every lossy step (overflow, a fraction dropped, a finite value becoming infinite, a
/// member the file lacks, a string that does not fit, an enum value with no member) an error
/// of kind [`ErrorKind::Conversion`] naming the element ([`Error::element`]).
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("h5-strict-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// let f = h5::File::create(dir.join("strict.h5"))?;
/// let d = f.new_dataset::<f64>().shape(&[3]).create("x")?;
/// d.write(&[1.0, 300.5, -2.0])?;
/// assert_eq!(d.read::<i8>()?, [1, 127, -2]); // clamped, as libhdf5 does
/// let e = d.reader().strict().read::<i8>().unwrap_err();
/// assert_eq!(e.kind(), h5::ErrorKind::Conversion);
/// assert_eq!(e.element(), Some(1));
/// # Ok::<(), h5::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
#[must_use = "a reader does nothing until one of its read methods is called"]
pub struct DatasetReader<'a> {
    ds: &'a Dataset,
    strict: bool,
}

impl Dataset {
    /// A read with options (strict conversions).
    pub fn reader(&self) -> DatasetReader<'_> {
        DatasetReader {
            ds: self,
            strict: false,
        }
    }
}

impl<'a> DatasetReader<'a> {
    /// Make every lossy conversion step an error.
    pub fn strict(self) -> Self {
        self.with_strict(true)
    }

    /// Strict conversions or not.
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// The dataset read.
    pub fn dataset(&self) -> &'a Dataset {
        self.ds
    }

    /// Every element converted to `T`.
    pub fn read<T: H5Type>(self) -> Result<Vec<T>> {
        let d = self.ds.io()?;
        Ok(d.reader().with_strict(self.strict).read::<T>()?)
    }

    /// The one element of a scalar (or one-element) dataset.
    pub fn read_scalar<T: H5Type>(self) -> Result<T> {
        let d = self.ds.io()?;
        Ok(d.reader().with_strict(self.strict).read_scalar::<T>()?)
    }

    /// The elements of `selection` converted to `T`.
    pub fn read_selection<T: H5Type>(self, selection: &Selection) -> Result<Vec<T>> {
        let d = self.ds.io()?;
        Ok(d.reader()
            .with_strict(self.strict)
            .read_selection::<T>(selection)?)
    }

    /// A regular hyperslab converted to `T` (see [`Dataset::read_hyperslab`]).
    pub fn read_hyperslab<T: H5Type>(
        self,
        start: &[u64],
        stride: Option<&[u64]>,
        count: &[u64],
        block: Option<&[u64]>,
    ) -> Result<Vec<T>> {
        let d = self.ds.io()?;
        Ok(d.reader()
            .with_strict(self.strict)
            .read_slice::<T>(start, stride, count, block)?)
    }

    /// A netCDF-style access converted to `T`.
    pub fn read_nc<T: H5Type>(self, form: NcForm<'_>) -> Result<Vec<T>> {
        let d = self.ds.io()?;
        Ok(d.reader().with_strict(self.strict).read_nc::<T>(form)?)
    }

    /// Every element converted to `T`, shaped as the dataset.
    #[cfg(feature = "ndarray")]
    #[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
    pub fn read_array<T: H5Type, D: ndarray::Dimension>(self) -> Result<ndarray::Array<T, D>> {
        let d = self.ds.io()?;
        Ok(d.reader().with_strict(self.strict).read_array::<T, D>()?)
    }

    /// A numpy-style slice converted to `T` (see [`Dataset::read_slice`]).
    #[cfg(feature = "ndarray")]
    #[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
    pub fn read_slice<T, S, D>(self, slice: S) -> Result<ndarray::Array<T, D>>
    where
        T: H5Type,
        S: AsRef<[ndarray::SliceInfoElem]>,
        D: ndarray::Dimension,
    {
        self.ds.read_slice_with::<T, S, D>(slice, self.strict)
    }
}

/// The plugin filters (hdf5plugin's set, pure Rust), one call each.
impl<T: H5Type> DatasetBuilder<T> {
    /// The Zstandard filter (32015) at `level` (1 to 22).
    pub fn zstd(self, level: u32) -> Self {
        self.filter(Filter::zstd(level))
    }

    /// The Blosc filter (32001): `codec` at `level` (0 to 9) after `shuffle`.
    pub fn blosc(
        self,
        codec: h5_io::filter::BloscCodec,
        level: u32,
        shuffle: h5_io::filter::BloscShuffle,
    ) -> Self {
        self.filter(Filter::blosc(codec, level, shuffle))
    }

    /// The Blosc2 filter (32026): `codec` at `level` (0 to 9) after `filter`.
    pub fn blosc2(
        self,
        codec: h5_io::filter::BloscCodec,
        level: u32,
        filter: h5_io::filter::Blosc2Filter,
    ) -> Self {
        self.filter(Filter::blosc2(codec, level, filter))
    }

    /// The Bitshuffle filter (32008) with `compression` inside.
    pub fn bitshuffle(self, compression: h5_io::filter::BitshuffleCompression) -> Self {
        self.filter(Filter::bitshuffle(compression))
    }

    /// The LZ4 filter (32004).
    pub fn lz4(self) -> Self {
        self.filter(Filter::lz4())
    }

    /// The BZip2 filter (307) with blocks of `level` × 100 kB (1 to 9).
    pub fn bzip2(self, level: u32) -> Self {
        self.filter(Filter::bzip2(level))
    }
}
