//! What the printer needs from a file: the [`DumpFile`] trait and the plain values it returns.
//!
//! The printer never touches bytes on disk. An adapter over the real reader implements
//! [`DumpFile`]; [`super::memory::MemoryFile`] implements it for tests. The contract, in short:
//!
//! - Objects are named by an [`ObjId`]: the address of their object header. Two links to the same
//!   object give the same id (h5dump's `HARDLINK` detection and its object tables key on it).
//! - Raw data (attribute values, dataset hyperslabs, fill values, vlen sequences) comes as bytes
//!   **in the file datatype** the object reports, elements packed back to back in row-major order.
//!   The printer converts to the native type itself (as h5dump does with `H5Tget_native_type`).
//! - A variable-length element (vlen sequence or vlen string) inside such bytes is an opaque
//!   descriptor of `Datatype::size()` bytes (16); the printer hands it back to
//!   [`DumpFile::vlen_data`], which returns the sequence's bytes in the vlen base type (for strings:
//!   the characters), or `None` for a null pointer.
//! - References inside such bytes are the file's encoded reference bytes; the printer hands them to
//!   [`DumpFile::dereference`].
//! - Errors are plain messages; the printer turns them into h5dump's `h5dump error: ...` lines.
//!
//! What each call must give, in the reference library's terms:
//!
//! - [`DumpFile::links`]: `H5Literate` over the group with `H5_INDEX_NAME` (byte order, as
//!   `strcmp`) or `H5_INDEX_CRT_ORDER`, increasing. Hard links give the target's header
//!   address; soft links their value; external links the unpacked file and object path;
//!   user-defined links their class. The printer reverses for `-z descending` itself.
//! - [`DumpFile::object_info`]: `H5Oget_info` (kind, address, `rc`), `H5Oget_comment`, and the
//!   creation-order tracking flags of the group/dataset/datatype creation property list.
//! - [`DumpFile::attributes`] / [`DumpFile::attribute_data`]: `H5Aiterate2` order as for links;
//!   data as `H5Aread` with the attribute's file type (then vlen descriptors as above).
//! - [`DumpFile::dataset`]: `H5Dget_type` (with the committed datatype's address if
//!   `H5Tcommitted`), `H5Dget_space`, and for `-p` the layout (`H5Pget_layout`,
//!   `H5Pget_chunk`, `H5Dget_offset`, the VDS mappings), `H5Pget_filter2` in pipeline order,
//!   `H5Pget_external`, `H5Dget_storage_size`, alloc time, fill time and fill value status.
//! - [`DumpFile::read`]: `H5Dread` of the hyperslab with the file type as memory type. A
//!   virtual dataset reads through its mappings in the view the file was opened with
//!   (h5dump's `--vds-view-first-missing` and `--vds-gap-size` are settings of the opener,
//!   [`super::reader::OpenSettings`]; the default is `H5D_VDS_LAST_AVAILABLE`, gap 0).
//! - [`DumpFile::dereference`]: `H5Rdereference2` + `H5Oget_info` for object references;
//!   for region references also `H5Rget_region` as blocks (`H5Sget_select_hyper_blocklist`) or
//!   points (`H5Sget_select_elem_pointlist`). Zero (null) references are never asked for.
//! - [`DumpFile::reference_info`]: a reference as HDF5 2.x reads it into an `H5R_ref_t`
//!   (`H5Rget_type`, `H5Rget_file_name` for references to other files, the object token,
//!   `H5Ropen_region`'s selection, `H5Rget_attr_name`), without opening its target.
//! - [`DumpFile::superblock`]: `H5Fget_info2` versions and the file creation property list.
//! - External link targets are opened through the same opener that opened the file
//!   ([`super::Opener`]).
//!
//! [`super::reader::ReaderFile`] implements the trait over the real reader (`h5::io`).

use h5::types::Datatype;

/// An object's identity: the address of its object header in the file.
pub type ObjId = u64;

/// Result of a model call: errors are messages for the user.
pub type ModelResult<T> = Result<T, String>;

/// What kind of object an object header describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjKind {
    /// A group.
    Group,
    /// A dataset.
    Dataset,
    /// A named (committed) datatype.
    NamedDatatype,
}

/// Basic object information (`H5Oget_info` with `H5O_INFO_BASIC`, plus the comment).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjInfo {
    /// The kind of object.
    pub kind: ObjKind,
    /// Object header address (the same value as the object's [`ObjId`]).
    pub addr: u64,
    /// Hard link reference count.
    pub refcount: u32,
    /// The object comment (`H5Oget_comment`), if any.
    pub comment: Option<String>,
    /// Whether link creation order is tracked (groups; `H5P_CRT_ORDER_TRACKED`).
    pub links_order_tracked: bool,
    /// Whether attribute creation order is tracked.
    pub attrs_order_tracked: bool,
    /// Modification time in seconds since the UNIX epoch (`H5O_info_t.mtime`; 0: none).
    pub mtime: u64,
}

/// The order in which links or attributes are listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexOrder {
    /// By name, comparing bytes (`strcmp`), increasing.
    Name,
    /// By creation order, increasing. Only asked for when the object tracks creation order.
    Creation,
}

/// Where a link points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkTarget {
    /// A hard link to an object in this file.
    Hard(ObjId),
    /// A soft link with its target path.
    Soft(String),
    /// An external link: file name and object path in that file.
    External {
        /// The target file name as stored.
        file: String,
        /// The object path inside the target file.
        path: String,
    },
    /// A user-defined link of this link class (64..=255).
    UserDefined(u8),
}

/// One link of a group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// The link name.
    pub name: String,
    /// The link value.
    pub target: LinkTarget,
}

/// A dataspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Space {
    /// `H5S_NULL`: no elements.
    Null,
    /// `H5S_SCALAR`: one element.
    Scalar,
    /// `H5S_SIMPLE`: current and maximum dimensions (`u64::MAX` is `H5S_UNLIMITED`).
    Simple {
        /// Current dimension sizes.
        dims: Vec<u64>,
        /// Maximum dimension sizes.
        maxdims: Vec<u64>,
    },
}

impl Space {
    /// A simple dataspace whose maximum dimensions equal its dimensions.
    pub fn simple(dims: &[u64]) -> Space {
        Space::Simple {
            dims: dims.to_vec(),
            maxdims: dims.to_vec(),
        }
    }

    /// The current dimensions (empty for scalar and null).
    pub fn dims(&self) -> &[u64] {
        match self {
            Space::Simple { dims, .. } => dims,
            _ => &[],
        }
    }

    /// The number of elements.
    pub fn npoints(&self) -> u64 {
        match self {
            Space::Null => 0,
            Space::Scalar => 1,
            Space::Simple { dims, .. } => dims.iter().product(),
        }
    }
}

/// A datatype as an object carries it: the type and, if it is a named (committed) datatype,
/// the id of that named datatype object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeRef {
    /// The datatype (as stored in the file: byte order, padding, and so on).
    pub datatype: Datatype,
    /// The named datatype object this type is, if it is committed.
    pub committed: Option<ObjId>,
}

impl From<Datatype> for TypeRef {
    fn from(datatype: Datatype) -> Self {
        TypeRef {
            datatype,
            committed: None,
        }
    }
}

/// An attribute's header information.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttrInfo {
    /// The attribute name.
    pub name: String,
    /// Its datatype.
    pub datatype: TypeRef,
    /// Its dataspace.
    pub space: Space,
}

/// Storage layout of a dataset (`-p`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Compact: data in the object header.
    Compact,
    /// Contiguous; `offset` is the data address (`None` if not allocated).
    Contiguous {
        /// Address of the data in the file.
        offset: Option<u64>,
    },
    /// Chunked with these chunk dimensions (without the element-size dimension).
    Chunked {
        /// Chunk dimensions.
        dims: Vec<u64>,
    },
    /// Virtual (VDS), with its mappings in order.
    Virtual {
        /// Source mappings.
        mappings: Vec<VirtualMapping>,
    },
}

/// A selection as the VDS layout stores it (`u64::MAX` is `H5S_UNLIMITED` in counts and blocks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VdsSelection {
    /// Nothing selected.
    None,
    /// The whole extent.
    All,
    /// A regular hyperslab.
    Regular {
        /// Start per dimension.
        start: Vec<u64>,
        /// Stride per dimension.
        stride: Vec<u64>,
        /// Count per dimension.
        count: Vec<u64>,
        /// Block per dimension.
        block: Vec<u64>,
    },
    /// An irregular hyperslab as its blocks (start corner, opposite corner).
    Blocks(Vec<(Vec<u64>, Vec<u64>)>),
    /// Points.
    Points(Vec<Vec<u64>>),
}

/// One mapping of a virtual dataset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VirtualMapping {
    /// The selection in the virtual dataset.
    pub virtual_selection: VdsSelection,
    /// Source file name as stored (`.` is the same file).
    pub file: String,
    /// Source dataset path.
    pub dataset: String,
    /// The selection in the source dataset.
    pub source_selection: VdsSelection,
}

/// One filter of a dataset's pipeline (`-p`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    /// Filter identification value (1 deflate, 2 shuffle, 3 fletcher32, 4 szip, 5 nbit,
    /// 6 scaleoffset, others user-defined).
    pub id: u16,
    /// The name stored with the filter, if any.
    pub name: Option<String>,
    /// Client data values.
    pub cd_values: Vec<u32>,
    /// Whether the filter is optional (flag bit 0, `H5Z_FLAG_OPTIONAL`).
    pub optional: bool,
}

/// Fill value allocation and write times and the value (`-p`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FillInfo {
    /// `H5D_ALLOC_TIME_*`: 1 early, 2 late, 3 incremental.
    pub alloc_time: u8,
    /// `H5D_FILL_TIME_*`: 0 on allocation, 1 never, 2 if set.
    pub fill_time: u8,
    /// `None`: undefined; `Some(None)`: the library default; `Some(Some(bytes))`: a user value in
    /// the dataset's file datatype.
    pub value: Option<Option<Vec<u8>>>,
}

/// An external raw data file entry (`-p`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalFile {
    /// File name.
    pub name: String,
    /// Offset in that file.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
}

/// A chunked dataset's chunk index (`h5ls -a`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkIndex {
    /// The index's address.
    pub address: u64,
    /// The allocated chunks, in index order.
    pub chunks: Vec<ChunkEntry>,
}

/// One allocated chunk as the chunk index lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkEntry {
    /// Filters skipped for this chunk.
    pub filter_mask: u32,
    /// Bytes stored.
    pub size: u64,
    /// Its address.
    pub address: u64,
    /// Its first element (one offset per dimension).
    pub offset: Vec<u64>,
}

/// A dataset's header information.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatasetInfo {
    /// Its datatype.
    pub datatype: TypeRef,
    /// Its dataspace.
    pub space: Space,
    /// Storage layout.
    pub layout: Layout,
    /// Filter pipeline in order.
    pub filters: Vec<Filter>,
    /// Fill value information.
    pub fill: FillInfo,
    /// Allocated storage size in bytes (`H5Dget_storage_size`).
    pub storage_size: u64,
    /// External file list (empty if none).
    pub external: Vec<ExternalFile>,
}

/// The superblock and file creation properties shown by `-B`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SuperblockInfo {
    /// Superblock version.
    pub super_version: u32,
    /// Free-space manager version.
    pub freelist_version: u32,
    /// Root symbol table entry version.
    pub symboltable_version: u32,
    /// Shared object header message version.
    pub objectheader_version: u32,
    /// Size of offsets.
    pub offset_size: u32,
    /// Size of lengths.
    pub length_size: u32,
    /// Group leaf node K.
    pub btree_rank: u32,
    /// Group internal node K.
    pub btree_leaf: u32,
    /// Indexed storage internal node K.
    pub istore_k: u32,
    /// File space strategy name (e.g. `H5F_FSPACE_STRATEGY_FSM_AGGR`).
    pub fs_strategy: String,
    /// Whether free space persists.
    pub fs_persist: bool,
    /// Free-space section threshold.
    pub fs_threshold: u64,
    /// File space page size.
    pub fs_page_size: u64,
    /// User block size.
    pub userblock_size: u64,
}

/// What a reference points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefTarget {
    /// An object reference.
    Object(ObjId),
    /// A dataset region reference: the dataset and the selection in it.
    Region {
        /// The dataset.
        dataset: ObjId,
        /// The selected region.
        selection: Region,
    },
}

/// A selection in a dataset's dataspace, for region references.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Region {
    /// Blocks, each as (start corner, opposite corner), in the order of `H5Sget_select_hyper_blocklist`.
    Blocks(Vec<(Vec<u64>, Vec<u64>)>),
    /// Points, in the order of `H5Sget_select_elem_pointlist`.
    Points(Vec<Vec<u64>>),
    /// The whole extent (`H5S_SEL_ALL`): h5dump prints no region for it.
    All,
    /// Nothing (`H5S_SEL_NONE`): h5dump prints no region for it.
    None,
    /// A hyperslab with an unlimited count or block: its blocks cannot be listed
    /// (`H5Sget_select_hyper_nblocks` fails) and h5dump prints no region for it.
    Unlimited,
}

/// The kind of a reference as HDF5 2.x sees it (`H5Rget_type`); old references are
/// converted to the revised kinds when read as `H5T_STD_REF`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefKind {
    /// `H5R_OBJECT1` or `H5R_OBJECT2`.
    Object,
    /// `H5R_DATASET_REGION1` or `H5R_DATASET_REGION2`.
    Region,
    /// `H5R_ATTR`.
    Attribute,
}

/// What a non-null reference holds, undereferenced (an `H5R_ref_t`): its kind, the file it
/// points into, the object's address there and the region or attribute name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefInfo {
    /// The reference kind.
    pub kind: RefKind,
    /// The file name stored in a reference to another file (`None`: this file).
    pub external: Option<String>,
    /// The address of the referenced object's header in that file.
    pub object: ObjId,
    /// The selection of a region reference (`None` if it could not be decoded).
    pub region: Option<Region>,
    /// The attribute name of an attribute reference.
    pub attr_name: Option<String>,
}

/// Everything `h5 dump` and `h5 ls` read from a file.
pub trait DumpFile {
    /// The root group's id.
    fn root(&self) -> ObjId;
    /// Basic information about an object.
    fn object_info(&self, id: ObjId) -> ModelResult<ObjInfo>;
    /// What kind of object this is, from its header alone (`H5Oget_info`), even when the object
    /// cannot be opened.
    fn object_kind(&self, id: ObjId) -> ModelResult<ObjKind> {
        self.object_info(id).map(|i| i.kind)
    }
    /// The links of a group, in the given order.
    fn links(&self, group: ObjId, order: IndexOrder) -> ModelResult<Vec<Link>>;
    /// The attributes of an object, in the given order.
    fn attributes(&self, obj: ObjId, order: IndexOrder) -> ModelResult<Vec<AttrInfo>>;
    /// All the values of an attribute, in its file datatype.
    fn attribute_data(&self, obj: ObjId, name: &str) -> ModelResult<Vec<u8>>;
    /// A dataset's header information.
    fn dataset(&self, id: ObjId) -> ModelResult<DatasetInfo>;
    /// The elements of the hyperslab `start`/`count` (one entry per dimension; both empty for a
    /// scalar dataspace) in the dataset's file datatype, row-major.
    fn read(&self, id: ObjId, start: &[u64], count: &[u64]) -> ModelResult<Vec<u8>>;
    /// A named datatype's type.
    fn named_datatype(&self, id: ObjId) -> ModelResult<Datatype>;
    /// The data of a variable-length element given its descriptor bytes; `None` for a null one.
    fn vlen_data(&self, descriptor: &[u8]) -> ModelResult<Option<Vec<u8>>>;
    /// The chunk index of a chunked dataset (`H5D__chunk_dump_index`, h5ls `-a`): `None`
    /// when the dataset is not chunked or the file cannot say.
    fn chunk_index(&self, _id: ObjId) -> ModelResult<Option<ChunkIndex>> {
        Ok(None)
    }
    /// What an encoded reference points at; `None` for an unresolvable one.
    fn dereference(&self, reference: &[u8]) -> ModelResult<Option<RefTarget>>;
    /// A reference element of reference type `dt` decoded as HDF5 2.x reads it into an
    /// `H5R_ref_t` (old references converted), without opening what it points at; `None` for
    /// a reference that cannot be decoded. Zero (null) references are never asked for.
    ///
    /// The default decodes old references through [`DumpFile::dereference`].
    fn reference_info(&self, dt: &Datatype, reference: &[u8]) -> ModelResult<Option<RefInfo>> {
        let _ = dt;
        Ok(self.dereference(reference)?.map(|t| match t {
            RefTarget::Object(object) => RefInfo {
                kind: RefKind::Object,
                external: None,
                object,
                region: None,
                attr_name: None,
            },
            RefTarget::Region { dataset, selection } => RefInfo {
                kind: RefKind::Region,
                external: None,
                object: dataset,
                region: Some(selection),
                attr_name: None,
            },
        }))
    }
    /// Superblock information for `-B`.
    fn superblock(&self) -> ModelResult<SuperblockInfo>;
}
