//! What the deep compare reads from each side: a [`Source`] of objects (groups, datasets,
//! named datatypes), their links and attributes, and their values in the *memory form* the
//! comparison walks (fixed-size values as stored, variable-length values and references as
//! descriptors the same source resolves). [`FileSource`](super::FileSource) is the source
//! over an open [`File`](crate::File); another reader (an in-memory model, a cache) can
//! provide its own.

use std::rc::Rc;

use h5_types::Datatype;

use crate::link::Link;
use crate::selection::Dataspace;
use crate::Result;

/// An object of a source: the address of its object header (two links to one object give
/// the same id).
pub type ObjectId = u64;

/// A shared handle to a source, as the traversal keeps it (external links open others).
pub type SourceRef<'a> = Rc<dyn Source<'a> + 'a>;

/// The kind of an object or link as h5diff's traversal names them (`h5trav_type_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObjectType {
    /// A group (`H5G_GROUP`).
    Group,
    /// A dataset (`H5G_DATASET`).
    Dataset,
    /// A named datatype (`H5G_TYPE`).
    Datatype,
    /// A soft link (`H5G_LINK`).
    Link,
    /// An external or user-defined link (`H5G_UDLINK`).
    UdLink,
}

/// An attribute's name, datatype (memory form) and dataspace.
#[derive(Clone, Debug, PartialEq)]
pub struct AttributeInfo {
    /// The attribute name.
    pub name: String,
    /// Its datatype in the source's memory form.
    pub datatype: Datatype,
    /// Its dataspace.
    pub space: Dataspace,
}

/// What the comparison needs to know of a dataset.
#[derive(Clone, Debug, PartialEq)]
pub struct DatasetInfo {
    /// Its datatype in the source's memory form.
    pub datatype: Datatype,
    /// Its dataspace.
    pub space: Dataspace,
    /// Whether its layout is virtual (a virtual dataset may hold values without storage).
    pub is_virtual: bool,
    /// Its allocated storage in bytes (`H5Dget_storage_size`).
    pub storage_size: u64,
}

/// A selection of a dataset, as a region reference holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Region {
    /// Blocks, each as (start corner, opposite corner), in `H5Sget_select_hyper_blocklist`
    /// order.
    Blocks(Vec<(Vec<u64>, Vec<u64>)>),
    /// Points, in `H5Sget_select_elem_pointlist` order.
    Points(Vec<Vec<u64>>),
    /// The whole extent, nothing, or blocks that cannot be listed.
    Other,
}

/// What a reference points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefTarget {
    /// An object.
    Object(ObjectId),
    /// A selection of a dataset.
    Region {
        /// The dataset.
        dataset: ObjectId,
        /// The selection in it.
        selection: Region,
    },
}

/// One side of a comparison: a file (or anything read like one).
///
/// Datatypes and values are in the source's *memory form*: every element of datatype `dt`
/// takes `dt.size()` bytes, compound members sit at their datatype's offsets, and a
/// variable-length string or sequence is a descriptor that [`Source::vlen_data`] resolves.
pub trait Source<'a> {
    /// What identifies the file (two sources with the same identity are one file): objects
    /// of one identity and id are the same object.
    fn identity(&self) -> &str;
    /// The root group's id.
    fn root(&self) -> ObjectId;
    /// The kind of an object (a group, dataset or named datatype); `None` when it cannot say.
    fn object_type(&self, id: ObjectId) -> Option<ObjectType>;
    /// The links of a group, in increasing order of name (user-defined links with the
    /// data they hold, when the source has it: two differ when it does).
    fn links(&self, group: ObjectId) -> Result<Vec<Link>>;
    /// The attributes of an object, in increasing order of name.
    fn attributes(&self, obj: ObjectId) -> Result<Vec<AttributeInfo>>;
    /// All the values of an attribute, in its memory form.
    fn attribute_data(&self, obj: ObjectId, name: &str) -> Result<Vec<u8>>;
    /// A dataset's datatype, dataspace and storage.
    fn dataset(&self, id: ObjectId) -> Result<DatasetInfo>;
    /// The elements of the hyperslab `start`/`count` (one entry per dimension, both empty
    /// for a scalar dataspace), row-major, in the memory form.
    fn read(&self, id: ObjectId, start: &[u64], count: &[u64]) -> Result<Vec<u8>>;
    /// A named datatype's type.
    fn named_datatype(&self, id: ObjectId) -> Result<Datatype>;
    /// The elements of a variable-length string or sequence (`dt`, in memory form) given
    /// its descriptor; `None` for a null one.
    fn vlen_data(&self, dt: &Datatype, descriptor: &[u8]) -> Result<Option<Vec<u8>>>;
    /// What a reference of reference type `dt` points at; `None` for one that does not
    /// resolve.
    fn dereference(&self, dt: &Datatype, reference: &[u8]) -> Result<Option<RefTarget>>;
    /// Open the file an external link of this file names, where the reference library
    /// looks for it; `None` when it does not open.
    fn open_external(&self, name: &str) -> Option<SourceRef<'a>>;
}
