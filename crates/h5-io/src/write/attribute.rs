//! Attributes: attribute messages in the object's header (compact storage), or in a fractal
//! heap indexed by version 2 B-trees of names and, when indexed, creation order (dense
//! storage, version 2 headers with more than eight attributes or one too big for a header
//! message); creation-order tracking.
//!
//! The compatible format keeps attributes in version 1 headers, where one attribute message
//! cannot exceed 65535 bytes (the reference library fails on such an attribute too); an
//! object that tracks attribute creation order gets a version 2 header in either format (as
//! the reference library does) and then has dense storage as in the latest format.

use h5_format::message::attribute::{Attribute, MaybeShared};
use h5_format::message::attribute_info::AttributeInfo;
use h5_format::message::dataspace::{self as ds_msg, DataspaceKind};
use h5_format::message::datatype::DatatypeMessage;
use h5_format::message::{Message, MessageFlags};
use h5_format::Addr;
use h5_types::h5type::VarLenHeap;
use h5_types::Datatype;

use super::file::{FileFormat, FileWriter, ObjId, MAX_COMPACT_ATTRS};
use super::group::CreationOrder;
use super::heap::{DenseAddrs, DenseKind};
use super::value::{disk_type, file_size};
use super::{bail, ensure, Result};
use crate::selection::Dataspace;

/// One attribute: its name, file datatype (or committed datatype), dataspace and data in the
/// file representation.
#[derive(Debug)]
pub(crate) struct Attr {
    pub(crate) name: String,
    pub(crate) datatype: Datatype,
    pub(crate) committed: Option<ObjId>,
    pub(crate) space: Dataspace,
    pub(crate) data: Vec<u8>,
    /// The creation index (written when the object tracks attribute creation order).
    pub(crate) crt_idx: u16,
}

/// Fewest attributes an object in dense attribute storage keeps there when attributes are
/// deleted (the reference library's default "min dense"); with fewer they go back to the
/// header.
const MIN_DENSE_ATTRS: usize = 6;

/// The reference library's creation index of attributes of objects that do not track
/// creation order (`H5O_MAX_CRT_ORDER_IDX`), as stored in dense storage's name index.
const UNTRACKED_CRT_IDX: u16 = u16::MAX;

/// The dataspace message for an extent (of a dataset or an attribute).
pub(crate) fn dataspace_message(space: &Dataspace, format: FileFormat) -> ds_msg::Dataspace {
    let version = if format == FileFormat::Compatible {
        1
    } else {
        2
    };
    let mut m = match space {
        Dataspace::Scalar => ds_msg::Dataspace::scalar(),
        Dataspace::Null => ds_msg::Dataspace {
            version: 2,
            kind: DataspaceKind::Null,
            dims: Vec::new(),
            max_dims: None,
            permutation: None,
        },
        // The maximum dimensions are always stored, equal to the dimensions or not, as the
        // reference library stores them (its extents always have them).
        Dataspace::Simple { dims, maxdims } => ds_msg::Dataspace::simple(dims, Some(&maxdims[..])),
    };
    m.version = m.version.max(version);
    m
}

/// Number of elements of an extent.
pub(crate) fn npoints(space: &Dataspace) -> u64 {
    match space {
        Dataspace::Scalar => 1,
        Dataspace::Null => 0,
        Dataspace::Simple { dims, .. } => dims.iter().product(),
    }
}

impl Attr {
    /// The attribute message.
    pub(crate) fn message(&self, w: &FileWriter) -> Result<Attribute> {
        let datatype = match self.committed {
            Some(c) => match w.shared_type_message(c)? {
                Message::Shared { shared, .. } => MaybeShared::Shared(shared),
                _ => bail!(Format, "committed datatype message"),
            },
            None => MaybeShared::Inline(DatatypeMessage::new(self.datatype.clone())),
        };
        let latest = w.format == FileFormat::Latest;
        Ok(Attribute {
            version: if latest { 3 } else { 1 },
            charset: u8::from(!self.name.is_ascii()),
            name: self.name.as_bytes().to_vec(),
            datatype,
            dataspace: MaybeShared::Inline(dataspace_message(&self.space, w.format)),
            data: self.data.clone(),
        })
    }
}

impl FileWriter {
    /// Create an attribute `name` on `obj` of file datatype `datatype` (or the committed
    /// datatype `committed`, whose type is then used) and extent `space`, its values zero
    /// (the reference library's default fill) until written.
    pub fn create_attribute(
        &mut self,
        obj: ObjId,
        name: &str,
        datatype: &Datatype,
        committed: Option<ObjId>,
        space: Dataspace,
    ) -> Result<()> {
        self.swmr_forbids("creating attributes")?;
        self.create_attribute_as(obj, name, datatype, committed, space, false)
    }

    /// [`FileWriter::create_attribute`]; with `exact`, `datatype` already is a file datatype
    /// (compound members keep their offsets).
    pub(crate) fn create_attribute_as(
        &mut self,
        obj: ObjId,
        name: &str,
        datatype: &Datatype,
        committed: Option<ObjId>,
        space: Dataspace,
        exact: bool,
    ) -> Result<()> {
        ensure!(!name.is_empty(), InvalidArgument, "empty attribute name");
        let datatype = match committed {
            Some(c) => self.committed_type(c)?.clone(),
            None if exact => datatype.clone(),
            None => disk_type(datatype)?,
        };
        let n = npoints(&space) as usize;
        let v2 = !self.v1_header(obj);
        let size = n
            .checked_mul(file_size(&datatype))
            .filter(|&s| s <= 0xffff || (v2 && s <= 1 << 32))
            .ok_or_else(|| {
                super::Error::new(
                    super::ErrorKind::LimitExceeded,
                    format!(
                        "attribute {name:?} of {n} elements of {} bytes exceeds the 64 KiB a \
                         version 1 object header message can hold (the compatible format; \
                         the latest format or tracking attribute creation order allows it)",
                        file_size(&datatype)
                    ),
                )
            })?;
        let o = self.object_mut(obj)?;
        ensure!(
            o.attr_position(name).is_none(),
            AlreadyExists,
            "{}: attribute {name:?} already exists",
            o.path
        );
        let crt_idx = if o.attr_order == CreationOrder::Untracked {
            UNTRACKED_CRT_IDX
        } else {
            ensure!(
                o.attr_next < u32::from(u16::MAX),
                LimitExceeded,
                "{}: attribute creation index cannot exceed {}",
                o.path,
                u16::MAX - 1
            );
            o.attr_next as u16
        };
        o.attrs_dirty = true;
        o.push_attr(Attr {
            name: name.to_owned(),
            datatype,
            committed,
            space,
            data: vec![0; size],
            crt_idx,
        });
        // The message must fit a header (or a dense storage heap object): check now, so a
        // later flush cannot fail on it.
        if let Err(e) = self.check_attribute(obj) {
            self.object_mut(obj)?.pop_attr();
            return Err(e);
        }
        let o = self.object_mut(obj)?;
        if o.attr_order != CreationOrder::Untracked {
            o.attr_next += 1;
        }
        Ok(())
    }

    /// Write all values of attribute `name` of `obj` from a memory image of type `mem`.
    pub fn write_attribute(
        &mut self,
        obj: ObjId,
        name: &str,
        mem: &Datatype,
        image: &[u8],
        heap: &VarLenHeap,
    ) -> Result<()> {
        let o = self.object(obj)?;
        let Some(i) = o.attr_position(name) else {
            bail!(NotFound, "{}: no attribute {name:?}", o.path);
        };
        let a = &o.attrs[i];
        let n = npoints(&a.space) as usize;
        ensure!(
            image.len() == n * mem.size(),
            BufferSize,
            "{}: attribute {name:?} has {n} elements: {} bytes of memory type expected, got {}",
            o.path,
            n * mem.size(),
            image.len()
        );
        let file = a.datatype.clone();
        let mut data = a.data.clone();
        self.convert_to_file(mem, &file, image, heap, &mut data, n)?;
        let o = self.object_mut(obj)?;
        o.attrs[i].data = data;
        o.attrs_dirty = true;
        Ok(())
    }

    /// Check that the last attribute of `obj` encodes within the 65535 bytes of a header
    /// message.
    fn check_attribute(&self, obj: ObjId) -> Result<()> {
        let o = self.object(obj)?;
        if let Some(a) = o.attrs.last() {
            let len = Message::Attribute(a.message(self)?)
                .to_bytes(self.sizes)
                .len();
            ensure!(
                len <= 0xffff - 8 || !self.v1_header(obj),
                LimitExceeded,
                "{}: attribute {:?} needs a {len}-byte message; a version 1 object header \
                 message holds 65535 bytes at most (the compatible format; the reference \
                 library refuses it too): use the latest format or track attribute creation \
                 order for dense attribute storage",
                o.path,
                a.name
            );
        }
        Ok(())
    }

    /// Names of the attributes of `obj`, in creation order.
    pub fn attribute_names(&self, obj: ObjId) -> Result<Vec<String>> {
        Ok(self
            .object(obj)?
            .attrs
            .iter()
            .map(|a| a.name.clone())
            .collect())
    }
}

impl FileWriter {
    /// Track (and index) the creation order of the attributes of `obj`
    /// (`H5Pset_attr_creation_order`): their messages carry creation indexes, the Attribute
    /// Info message the next index and, when indexed, dense storage a creation-order index
    /// (version 2 B-tree of record type 9). The object gets a version 2 header, in the
    /// compatible format too. Only before its first attribute.
    pub fn set_attribute_order(&mut self, obj: ObjId, order: CreationOrder) -> Result<()> {
        self.swmr_forbids("changing attribute order")?;
        let o = self.object_mut(obj)?;
        if o.attr_order == order {
            return Ok(());
        }
        ensure!(
            o.attrs.is_empty(),
            InvalidArgument,
            "{}: attribute creation order can only be set before the first attribute",
            o.path
        );
        o.attr_order = order;
        o.attr_next = 0;
        o.attrs_dirty = true;
        Ok(())
    }

    /// Whether the attributes of `obj` track (and index) their creation order.
    pub fn attribute_order(&self, obj: ObjId) -> Result<CreationOrder> {
        Ok(self.object(obj)?.attr_order)
    }

    /// Set the creation index of attribute `name` of `obj` (an object that tracks attribute
    /// creation order): what a copy does to keep the source's indexes. Later attributes get
    /// indexes after the largest one.
    pub fn set_attribute_creation_index(
        &mut self,
        obj: ObjId,
        name: &str,
        index: u16,
    ) -> Result<()> {
        self.swmr_forbids("changing attribute creation indexes")?;
        let o = self.object_mut(obj)?;
        ensure!(
            o.attr_order != CreationOrder::Untracked,
            InvalidArgument,
            "{}: the object does not track attribute creation order",
            o.path
        );
        ensure!(
            index < u16::MAX,
            LimitExceeded,
            "{}: attribute creation index cannot exceed {}",
            o.path,
            u16::MAX - 1
        );
        let Some(a) = o.attr_position(name).and_then(|i| o.attrs.get_mut(i)) else {
            bail!(NotFound, "{}: no attribute {name:?}", o.path);
        };
        a.crt_idx = index;
        o.attr_next = o.attr_next.max(u32::from(index) + 1);
        o.attrs_dirty = true;
        Ok(())
    }

    /// Names of the attributes of `obj` in creation-index order (creation order when
    /// tracked).
    pub fn attribute_names_by_creation_order(&self, obj: ObjId) -> Result<Vec<String>> {
        Ok(self
            .attrs_in_order(obj)?
            .into_iter()
            .map(|a| a.name.clone())
            .collect())
    }

    /// The attributes of `obj` by creation index (the order they were created in when the
    /// indexes were not set explicitly).
    fn attrs_in_order(&self, obj: ObjId) -> Result<Vec<&Attr>> {
        let o = self.object(obj)?;
        let mut v: Vec<&Attr> = o.attrs.iter().collect();
        if o.attr_order != CreationOrder::Untracked {
            v.sort_by_key(|a| a.crt_idx);
        }
        Ok(v)
    }

    /// The header messages for the attributes of `obj` (with their creation indexes when
    /// tracked): the Attribute Info message of a version 2 header, and the attribute
    /// messages unless they are in dense storage.
    pub(crate) fn attribute_messages(
        &self,
        obj: ObjId,
        v1: bool,
    ) -> Result<Vec<(Message, u8, Option<u16>)>> {
        let o = self.object(obj)?;
        let tracked = o.attr_order != CreationOrder::Untracked;
        let indexed = o.attr_order == CreationOrder::Indexed;
        let mut out = Vec::new();
        let dense = o.dense_attrs.filter(|_| !v1);
        // Version 2 headers count their attributes through the Attribute Info message (the
        // reference library's H5O__attr_count_real): it must be there, with undefined dense
        // storage, for compact attributes too. The reference library adds it with the first
        // attribute.
        if !v1 && !o.attrs.is_empty() {
            out.push((
                Message::AttributeInfo(AttributeInfo {
                    max_creation_index: tracked.then_some(o.attr_next.min(0xffff) as u16),
                    fractal_heap_address: dense.map_or(Addr::UNDEF, |d| Addr(d.heap)),
                    name_btree_address: dense.map_or(Addr::UNDEF, |d| Addr(d.names)),
                    creation_order_btree_address: indexed
                        .then(|| dense.and_then(|d| d.order).map_or(Addr::UNDEF, Addr)),
                }),
                MessageFlags::DONT_SHARE,
                None,
            ));
        }
        if dense.is_none() {
            for a in self.attrs_in_order(obj)? {
                out.push((
                    Message::Attribute(a.message(self)?),
                    0,
                    tracked.then_some(a.crt_idx),
                ));
            }
        }
        Ok(out)
    }

    /// Decide where the attributes of `obj` go when they changed since the last flush, and
    /// write dense storage when a version 2 header has more than eight attributes or one too
    /// big for a header message: the attribute messages in a fractal heap (in
    /// creation order), indexed by a version 2 B-tree of name hashes (record type 8) and,
    /// when creation order is indexed, one of creation indexes (record type 9).
    pub(crate) fn prepare_attributes(&mut self, id: ObjId) -> Result<()> {
        let v1 = self.v1_header(id);
        let o = self.object(id)?;
        if !o.attrs_dirty {
            return Ok(());
        }
        // Compact (or version 1) storage: dense storage built earlier is retired.
        let compact = |w: &mut FileWriter| -> Result<()> {
            let o = w.object_mut(id)?;
            o.dense_attrs.take();
            o.attrs_dirty = false;
            // Dense storage built earlier, or read from the file modified in place.
            w.drop_structure((id.0, 1));
            Ok(())
        };
        if v1 {
            return compact(self);
        }
        let mut encoded = Vec::with_capacity(o.attrs.len());
        let mut big = false;
        for a in self.attrs_in_order(id)? {
            let bytes = Message::Attribute(a.message(self)?).to_bytes(self.sizes);
            big |= bytes.len() > 0xffff - 64;
            encoded.push((a.name.clone(), a.crt_idx, bytes));
        }
        // Back from dense storage only below "min dense", as the reference library does
        // when attributes are deleted.
        let was_dense = self.object(id)?.dense_attrs.is_some();
        if encoded.len() <= MAX_COMPACT_ATTRS
            && !big
            && !(was_dense && encoded.len() >= MIN_DENSE_ATTRS)
        {
            return compact(self);
        }
        // Dense storage goes to new space; the previous build's blocks are retired.
        let dense = self.rebuild((id.0, 1), |w| w.write_dense_attributes(id, encoded))?;
        let o = self.object_mut(id)?;
        o.dense_attrs = Some(dense);
        o.attrs_dirty = false;
        Ok(())
    }

    /// Dense attribute storage of `encoded` (name, creation index, attribute message) in
    /// creation order: the fractal heap, the name index and (when indexed) the
    /// creation-order index.
    fn write_dense_attributes(
        &mut self,
        id: ObjId,
        encoded: Vec<(String, u16, Vec<u8>)>,
    ) -> Result<DenseAddrs> {
        let o = self.object(id)?;
        let tracked = o.attr_order != CreationOrder::Untracked;
        let indexed = o.attr_order == CreationOrder::Indexed;
        // Untracked attributes store the reference library's "no index" value.
        let entries = encoded
            .into_iter()
            .map(|(name, crt, bytes)| {
                let c = if tracked { crt } else { UNTRACKED_CRT_IDX };
                (name, u64::from(c), bytes)
            })
            .collect();
        self.write_dense_storage(DenseKind::Attributes, entries, indexed)
    }
}
