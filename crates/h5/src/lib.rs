//! HDF5 in pure Rust: read and write HDF5 files with no C library.
//!
//! One [`File`] handle for every mode, one [`Error`], handles for [`Group`]s, [`Dataset`]s
//! and [`Attribute`]s that read and write, `ndarray` arrays and numpy-style slices, and
//! `#[derive(H5Type)]` for Rust types. A tour:
//!
//! # Open
//!
//! | h5py mode | call |
//! |---|---|
//! | `"r"` | [`File::open`] (read only; a write is an error of kind [`ErrorKind::ReadOnly`]) |
//! | `"r+"` | [`File::open_rw`] (an existing file, read and write, modified in place) |
//! | `"w"` | [`File::create`] (create or truncate); [`File::create_with`] chooses the [`FileFormat`] |
//! | `"w-"` / `"x"` | [`File::create_new`] (fail if it exists) |
//! | `"a"` | [`File::append`] (read and write, create if missing) |
//!
//! [`File::open_with`] takes [`OpenOptions`] (following external links, checksums, virtual
//! dataset options). [`File::close`] flushes and reports errors; dropping the last handle
//! flushes too. Everything written is readable at once through the same handles.
//!
//! # Walk
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("h5-tour-walk-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! # let path = dir.join("walk.h5");
//! let f = h5::File::create(&path)?;
//! f.create_group("entry/data")?;
//! f.new_dataset::<f32>().shape(&[4]).create("entry/data/x")?;
//! f.link_soft("/entry/data/x", "entry/x_alias")?;
//! assert!(f.exists("entry/data/x")?);
//! assert_eq!(f.group("entry")?.member_names()?, ["data", "x_alias"]);
//! for (path, _addr, kind) in f.walk()? {
//!     println!("{path}: {kind:?}");
//! }
//! match f.node("entry/x_alias")? {
//!     h5::Node::Dataset(d) => assert_eq!(d.shape(), [4]),
//!     other => panic!("{other:?}"),
//! }
//! # Ok::<(), h5::Error>(())
//! ```
//!
//! # Read
//!
//! Reads convert from the file's datatype to the Rust type's, as the reference library
//! does (integers clamp, floats round). A struct deriving [`H5Type`] may hold a subset of a
//! compound's members, in any order. `Vec<String>` reads any string dataset.
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("h5-tour-read-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! # let path = dir.join("read.h5");
//! # let f = h5::File::create(&path)?;
//! # f.new_dataset::<f64>().shape(&[2, 3]).create("grid")?.write(&[0., 1., 2., 3., 4., 5.])?;
//! # f.close()?;
//! let f = h5::File::open(&path)?;
//! let d = f.dataset("grid")?;
//! let v: Vec<f64> = d.read()?;                   // row-major
//! let a: ndarray::Array2<f32> = d.read_array()?; // converted to f32
//! let mut buf = vec![0i64; 6];
//! d.read_into(&mut buf)?;                        // no allocation
//! assert_eq!(v[4], 4.0);
//! assert_eq!(a[[1, 1]], 4.0);
//! assert_eq!(buf[5], 5);
//! # Ok::<(), h5::Error>(())
//! ```
//!
//! # Slice
//!
//! [`s!`] is ndarray's slice macro with numpy's meaning: `d[5, :, 100:200:2]` is
//! `d.read_slice(s![5, .., 100..200;2])` (an integer drops its dimension; negative indices
//! count from the end). [`Dataset::write_slice`] writes one.
//!
//! ```
//! use h5::s;
//! # let dir = std::env::temp_dir().join(format!("h5-tour-slice-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! let f = h5::File::create(dir.join("slice.h5"))?;
//! let d = f.new_dataset::<i32>().shape(&[3, 4]).create("m")?;
//! d.write_slice(&ndarray::arr1(&[1, 2, 3, 4]), s![1, ..])?;
//! let row: ndarray::Array1<i32> = d.read_slice(s![-2, ..])?;
//! assert_eq!(row.to_vec(), [1, 2, 3, 4]);
//! let col: ndarray::Array1<i32> = d.read_slice(s![.., 1])?;
//! assert_eq!(col.to_vec(), [0, 2, 0]);
//! # Ok::<(), h5::Error>(())
//! ```
//!
//! # Write
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("h5-tour-write-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! let f = h5::File::create(dir.join("write.h5"))?;
//! let a = ndarray::Array2::<f32>::from_shape_fn((64, 64), |(i, j)| (i * j) as f32);
//! // Type and shape from the data; chunks, shuffle (placed before the compressor), gzip.
//! let d = f.new_dataset_builder().with_data(&a).chunk(&[16, 16]).shuffle().deflate(6).create("img")?;
//! assert_eq!(d.read_array::<f32, ndarray::Ix2>()?, a);
//! // An unlimited dataset, appended to.
//! let log = f.new_dataset::<u32>().shape(&[0]).max_shape(&[None]).chunk(&[1024]).create("log")?;
//! log.append(&[1, 2, 3])?;
//! log.append(&[4])?;
//! assert_eq!(log.read::<u32>()?, [1, 2, 3, 4]);
//! // Mistakes are refused: a deflate level above 9.
//! let e = f.new_dataset::<u8>().shape(&[8]).deflate(12).create("bad").unwrap_err();
//! assert_eq!(e.kind(), h5::ErrorKind::InvalidInput);
//! f.close()?;
//! # Ok::<(), h5::Error>(())
//! ```
//!
//! # Attributes
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("h5-tour-attr-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! let f = h5::File::create(dir.join("attrs.h5"))?;
//! let d = f.new_dataset::<f64>().shape(&[3]).create("t")?;
//! d.new_attr::<f64>().create("scale")?.write_scalar(&0.5)?;
//! d.new_attr::<String>().create("units")?.write(&["kelvin"])?; // variable-length UTF-8
//! d.new_attr::<i32>().shape(&[2]).create("range")?.write(&[-10, 10])?;
//! assert_eq!(d.attr_names()?, ["range", "scale", "units"]);
//! assert_eq!(d.attr("scale")?.read_scalar::<f64>()?, 0.5);
//! assert_eq!(d.attr("units")?.read::<String>()?, ["kelvin"]);
//! // Strict reads refuse what would be lost: 0.5 does not fit an integer.
//! let e = d.attr("scale")?.reader().strict().read_scalar::<i32>().unwrap_err();
//! assert_eq!(e.kind(), h5::ErrorKind::Conversion);
//! // Renamed, deleted.
//! d.rename_attr("range", "valid_range")?;
//! d.delete_attr("units")?;
//! assert_eq!(d.attr_names()?, ["scale", "valid_range"]);
//! # Ok::<(), h5::Error>(())
//! ```
//!
//! # Derive
//!
//! ```
//! use h5::H5Type;
//!
//! #[derive(H5Type, Clone, Copy, Debug, PartialEq)]
//! #[repr(C)]
//! struct Hit { channel: u16, energy: f32, time: f64 }
//!
//! #[derive(H5Type, Debug, PartialEq)]
//! #[repr(C)]
//! struct Energy { energy: f32 } // a subset of the members, by name
//!
//! # let dir = std::env::temp_dir().join(format!("h5-tour-derive-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! let f = h5::File::create(dir.join("hits.h5"))?;
//! let hits = [Hit { channel: 3, energy: 1.5, time: 0.25 }, Hit { channel: 7, energy: 2.5, time: 0.5 }];
//! let d = f.new_dataset::<Hit>().shape(&[2]).create("hits")?;
//! d.write(&hits)?;
//! assert_eq!(d.read::<Hit>()?, hits);
//! assert_eq!(d.read::<Energy>()?, [Energy { energy: 1.5 }, Energy { energy: 2.5 }]);
//! # Ok::<(), h5::Error>(())
//! ```
//!
//! # Errors
//!
//! Every call returns [`Result`]: an [`Error`] with a matchable [`ErrorKind`], the object
//! path, the file offset of a malformed structure ([`Error::offset`]), and the lower
//! layer's error as its [`source`](std::error::Error::source). The datatype layer's own
//! error is [`types::Error`].
//!
//! # Threads
//!
//! [`File`] and every handle are `Send + Sync` and cheap to clone. Reads take no lock
//! during I/O and run in parallel (chunks decode on all cores); writes to a file are
//! serialized.
//!
//! # Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `ndarray` | yes | arrays and slices: [`Dataset::read_array`], [`Dataset::read_slice`], [`Dataset::write_slice`], [`s!`], writes from any array view |
//! | `half` | no | [`H5Type`] for `half::f16` |
//! | `num-complex` | no | [`H5Type`] for `num_complex::Complex<f32 / f64>` |
//! | `zstd`, `lz4`, `bzip2`, `bitshuffle`, `blosc` | yes | the hdf5plugin filters in pure Rust, read and write ([`DatasetBuilder::zstd`], ...) |
//! | `object-store` | no | `File::open_url` (S3, GCS, Azure, HTTP) and `File::open_storage` |
//! | `refs` | no | `refs::kerchunk`: kerchunk references to a file's chunks (fsspec, zarr, xarray) |
//!
//! The byte layer (the format's structures, the reader and writer beneath the handles) is
//! under [`low_level`]. A page maps h5py's and hdf5-metno's calls to these:
//! [`guide::from_h5py`].
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod attribute;
/// h5diff's deep compare of two files, groups or datasets as library API (the low-level
/// reader's `compare` module, also reachable as [`low_level::io::compare`]):
/// [`compare::diff_files`] with files' readers ([`File::inner`]), the options h5diff's
/// command line sets ([`compare::DiffOptions`]), each finding as a [`compare::Event`] and a
/// [`compare::Summary`] with per-object outcomes and the exit status.
pub mod compare {
    pub use h5_io::compare::*;
}
mod dataset;
mod error;
mod file;
mod group;
pub mod guide;
mod object;
#[cfg(feature = "refs")]
#[cfg_attr(docsrs, doc(cfg(feature = "refs")))]
pub mod refs;
#[cfg(feature = "object-store")]
mod remote;
#[cfg(feature = "ndarray")]
pub(crate) mod slice;

pub use attribute::{AttrBuilder, Attribute, AttributeReader};
pub use dataset::{
    AllocTime, ChunkIndex, Dataset, DatasetBuilder, DatasetBuilderUntyped, DatasetReader, FillTime,
    FillValue, Layout, LayoutClass,
};
pub use error::{Error, ErrorKind, Result};
pub use file::{File, Mode, OpenOptions, SWMR_READ_ATTEMPTS};
pub use group::{CommittedType, Group, Link, LinkStorage, LinkTarget, Node};
pub use h5_io::filter::{Filter, FilterId};
pub use h5_io::selection::{Dataspace, MemoryMap, NcForm, SelectOp, Selection, UNLIMITED};
pub use h5_io::write::{CreationOrder, FileFormat, GroupOptions};
pub use h5_types::h5type::{ObjectRef, RegionRef};
pub use h5_types::Datatype;
pub use object::ObjectKind;

#[cfg(feature = "ndarray")]
#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
pub use slice::SliceArg;

#[cfg(feature = "ndarray")]
#[doc(hidden)]
pub mod __private_slice {
    pub use crate::slice::elem;
}

/// The `ndarray` crate, as this crate uses it.
#[cfg(feature = "ndarray")]
#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
pub use ndarray;

/// The datatype model: [`Datatype`], its DDL text, conversions and the [`H5Type`] trait.
pub use h5_types as types;

/// `#[derive(H5Type)]` and the trait it implements: `use h5::H5Type;` brings both.
///
/// ```
/// use h5::H5Type;
///
/// #[derive(H5Type)]
/// #[repr(C)]
/// struct S1 {
///     a: i32,
///     b: i8,
///     #[h5(name = "c_value")]
///     c: f64,
/// }
///
/// // What H5Tcreate(H5T_COMPOUND, sizeof(s1_t)) + H5Tinsert(.., HOFFSET(s1_t, a), ..) build.
/// let t = S1::h5_type();
/// let c = t.as_compound().unwrap();
/// assert_eq!(c.size(), 16);
/// let layout: Vec<(&str, usize)> = c.members().iter().map(|m| (m.name(), m.offset())).collect();
/// assert_eq!(layout, [("a", 0), ("b", 4), ("c_value", 8)]);
/// // The packed variant (H5Tpack) for compact storage.
/// assert_eq!(S1::h5_type_packed().size(), 13);
/// ```
pub use h5_derive::H5Type;
/// The `zerocopy` crate (0.8), for the structs marked `#[h5(zerocopy)]`: derive its
/// `FromBytes`, `IntoBytes` and `Immutable` with `#[zerocopy(crate = "h5::zerocopy")]`.
pub use h5_types::zerocopy;
pub use h5_types::H5Type;

#[doc(hidden)]
pub use h5_types::__private;

/// The byte layer beneath the handles: the format's structures ([`format`](mod@format):
/// superblock, object headers, heaps, B-trees, chunk indexes, a whole-file checker) and the
/// low-level reader and writer ([`io`]) the handles are built on.
/// [`File::inner`] and [`Dataset::inner`] give the reader's objects.
pub mod low_level {
    pub use h5_format as format;
    pub use h5_io as io;
}

/// Storage in object stores (S3, GCS, Azure, HTTP), the `h5-object-store` crate.
#[cfg(feature = "object-store")]
#[cfg_attr(docsrs, doc(cfg(feature = "object-store")))]
pub use h5_object_store as object_store;

#[doc(hidden)]
pub use h5_format as format;
#[doc(hidden)]
pub use h5_io as io;

/// Earlier names of the reading API, kept so programs written against them still build.
#[doc(hidden)]
pub mod read {
    pub use crate::{
        Attribute, ChunkIndex, CommittedType as NamedDatatype, Dataset, Dataspace, Error,
        ErrorKind, File, FillValue, Filter, FilterId, Group, Layout, LayoutClass, Link,
        LinkStorage, LinkTarget, MemoryMap, NcForm, Node, ObjectKind, OpenOptions, Result,
        SelectOp, Selection,
    };
    pub use h5_io::reference::Target as ReferenceTarget;
}

/// Earlier names of the writing API, kept so programs written against them still build.
#[doc(hidden)]
pub mod write {
    pub use crate::{
        AllocTime, AttrBuilder, CommittedType, CreationOrder, DatasetBuilder, FileFormat, FillTime,
        GroupOptions,
    };
    pub use h5_io::write::LinkSpec;
    /// The file handle.
    pub type WritableFile = crate::File;
    /// The group handle.
    pub type GroupWriter = crate::Group;
    /// The dataset handle.
    pub type DatasetWriter = crate::Dataset;
    /// The error type.
    pub type WriteError = crate::Error;
    /// The result type.
    pub type WriteResult<T> = crate::Result<T>;
    /// The kind of an object.
    pub use crate::ObjectKind;
}
#[doc(hidden)]
pub use write::{DatasetWriter, GroupWriter, WritableFile, WriteError, WriteResult};
