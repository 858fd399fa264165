//! Attributes: stored as attribute messages in the object's header.

use h5_format::message::attribute::{Attribute, MaybeShared};
use h5_format::message::dataspace::{self as ds_msg, DataspaceKind};
use h5_format::message::datatype::DatatypeMessage;
use h5_format::message::Message;
use h5_types::h5type::VarLenHeap;
use h5_types::Datatype;

use super::file::{FileFormat, FileWriter, ObjId};
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
}

/// The dataspace message for an extent.
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
        Dataspace::Simple { dims, maxdims } => {
            ds_msg::Dataspace::simple(dims, (maxdims != dims).then_some(&maxdims[..]))
        }
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
        self.check_attrs_writable(obj)?;
        let datatype = match committed {
            Some(c) => self.committed_type(c)?.clone(),
            None if exact => datatype.clone(),
            None => disk_type(datatype)?,
        };
        let n = npoints(&space) as usize;
        let latest = self.format == FileFormat::Latest;
        let size = n
            .checked_mul(file_size(&datatype))
            .filter(|&s| s <= 0xffff || (latest && s <= 1 << 32))
            .ok_or_else(|| {
                super::Error::new(
                    super::ErrorKind::LimitExceeded,
                    format!(
                        "attribute {name:?} of {n} elements of {} bytes exceeds the 64 KiB an \
                         object header message can hold in the compatible format",
                        file_size(&datatype)
                    ),
                )
            })?;
        let o = self.object_mut(obj)?;
        ensure!(
            !o.attrs.iter().any(|a| a.name == name),
            AlreadyExists,
            "{}: attribute {name:?} already exists",
            o.path
        );
        o.attrs_dirty = true;
        o.attrs.push(Attr {
            name: name.to_owned(),
            datatype,
            committed,
            space,
            data: vec![0; size],
        });
        // The message must fit a header (or a dense storage heap object): check now, so a
        // later flush cannot fail on it.
        if let Err(e) = self.check_attribute(obj) {
            self.object_mut(obj)?.attrs.pop();
            return Err(e);
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
        self.check_attrs_writable(obj)?;
        let o = self.object(obj)?;
        let Some(i) = o.attrs.iter().position(|a| a.name == name) else {
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
                len <= 0xffff - 8 || self.format == FileFormat::Latest,
                LimitExceeded,
                "{}: attribute {:?} needs a {len}-byte message; a header message holds \
                 65535 bytes at most",
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
