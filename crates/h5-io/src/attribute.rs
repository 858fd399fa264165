//! Attributes: compact (attribute messages in the header) and dense (a fractal heap indexed by
//! name), with shared datatypes and dataspaces resolved.

use h5_format::btree::v2::Record;
use h5_format::message::attribute::{Attribute as AttrMessage, MaybeShared};
use h5_format::message::datatype::disk_size;
use h5_format::message::{Message, MessageFlags, MessageType};
use h5_types::{Datatype, H5Type};

use crate::error::{ensure, Error, ErrorKind, Result};
use crate::file::File;
use crate::group::Location;
use crate::object::{resolve_shared, Object};
use crate::reader::Conversion;
use crate::selection::Dataspace;

/// An attribute, read whole when its object is opened (attributes are small).
#[derive(Clone, Debug)]
pub struct Attribute {
    file: File,
    path: String,
    name: String,
    datatype: Datatype,
    space: Dataspace,
    data: Vec<u8>,
    creation_order: Option<u64>,
    committed: Option<h5_format::Addr>,
}

impl Attribute {
    /// The attribute's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The datatype as stored.
    pub fn datatype(&self) -> &Datatype {
        &self.datatype
    }

    /// The dataspace.
    pub fn dataspace(&self) -> &Dataspace {
        &self.space
    }

    /// The dimension sizes (empty for a scalar).
    pub fn shape(&self) -> Vec<u64> {
        self.space.dims().to_vec()
    }

    /// The creation order, when the object tracks it.
    pub fn creation_order(&self) -> Option<u64> {
        self.creation_order
    }

    /// The header address of the committed (named) datatype the attribute's datatype is,
    /// when it is one.
    pub fn committed_type(&self) -> Option<h5_format::Addr> {
        self.committed
    }

    /// The file holding the attribute (for variable-length data and references).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// The elements in the file's datatype, as stored.
    pub fn read_raw(&self) -> (Vec<u8>, Datatype) {
        (self.data.clone(), self.datatype.clone())
    }

    /// The elements converted to `T`.
    pub fn read<T: H5Type>(&self) -> Result<Vec<T>> {
        self.read_with(Conversion::DEFAULT)
    }

    pub(crate) fn read_with<T: H5Type>(&self, cv: Conversion) -> Result<Vec<T>> {
        crate::vlen::decode_as_with::<T>(&self.file, &self.datatype, &self.data, cv)
            .map_err(|e| e.at(format!("{}: attribute {:?}", self.path, self.name)))
    }

    /// The one element of a scalar (or one-element) attribute, converted to `T`.
    pub fn read_scalar<T: H5Type>(&self) -> Result<T> {
        self.read_scalar_with(Conversion::DEFAULT)
    }

    pub(crate) fn read_scalar_with<T: H5Type>(&self, cv: Conversion) -> Result<T> {
        let mut v = self.read_with::<T>(cv)?;
        ensure!(
            v.len() == 1,
            InvalidArgument,
            "attribute {:?} has {} elements, not one",
            self.name,
            v.len()
        );
        v.pop()
            .ok_or_else(|| Error::new(ErrorKind::InvalidArgument, "empty attribute"))
    }
}

fn build(file: &File, path: &str, m: &AttrMessage, order: Option<u64>) -> Result<Attribute> {
    let name = String::from_utf8_lossy(&m.name).into_owned();
    let committed = match &m.datatype {
        MaybeShared::Shared(s) => match s.location {
            h5_format::message::shared::SharedLocation::Committed(a) => Some(a),
            h5_format::message::shared::SharedLocation::Heap(_) => None,
        },
        MaybeShared::Inline(_) => None,
    };
    let datatype = match &m.datatype {
        MaybeShared::Inline(d) => d.datatype.clone(),
        MaybeShared::Shared(s) => match resolve_shared(file, MessageType::DATATYPE, s, 0)? {
            Message::Datatype(d) => d.datatype,
            _ => return Err(Error::new(ErrorKind::Format, "shared datatype is not one")),
        },
    };
    crate::object::check_datatype(&datatype)
        .map_err(|e| Error::new(ErrorKind::Format, format!("attribute {name:?}: {e}")))?;
    let fspace = match &m.dataspace {
        MaybeShared::Inline(d) => d.clone(),
        MaybeShared::Shared(s) => match resolve_shared(file, MessageType::DATASPACE, s, 0)? {
            Message::Dataspace(d) => d,
            _ => return Err(Error::new(ErrorKind::Format, "shared dataspace is not one")),
        },
    };
    let space = Dataspace::from_message(&fspace)?;
    let need = space
        .npoints()
        .checked_mul(disk_size(&datatype, file.sizes()))
        .ok_or_else(|| Error::new(ErrorKind::Format, "attribute size overflows"))?;
    ensure!(
        need <= m.data.len() as u64,
        Format,
        "attribute {name:?} needs {need} bytes of data, the message has {}",
        m.data.len()
    );
    Ok(Attribute {
        file: file.clone(),
        path: path.to_string(),
        name,
        datatype,
        space,
        data: m.data[..need as usize].to_vec(),
        creation_order: order,
        committed,
    })
}

/// Every attribute message of the object at `loc` (compact and dense), unsorted.
fn raw_attributes(loc: &Location) -> Result<Vec<(AttrMessage, Option<u64>)>> {
    let obj = loc.object()?;
    let mut out = Vec::new();
    for (a, order) in obj.attribute_entries() {
        match a.decoded() {
            Ok(Message::Attribute(a)) => out.push((a.clone(), order.map(u64::from))),
            Ok(_) => {}
            Err(e) => return Err(attribute_message_error(e)),
        }
    }
    dense_attributes(loc, &obj, &mut out)?;
    Ok(out)
}

#[cold]
fn attribute_message_error(e: &str) -> Error {
    Error::new(ErrorKind::Format, format!("attribute message: {e}"))
}

/// The attribute messages of the object's dense storage (fractal heap and name index),
/// appended to `out` in the index's order.
fn dense_attributes(
    loc: &Location,
    obj: &Object,
    out: &mut Vec<(AttrMessage, Option<u64>)>,
) -> Result<()> {
    let file = &loc.file;
    if let Some(Message::AttributeInfo(ai)) = obj.message(MessageType::ATTRIBUTE_INFO)? {
        if !ai.fractal_heap_address.is_undef() && !ai.name_btree_address.is_undef() {
            for r in file.v2_records(ai.name_btree_address)? {
                let Record::AttributeName {
                    heap_id,
                    message_flags,
                    creation_order,
                    ..
                } = r
                else {
                    continue;
                };
                let bytes = file.fractal_heap_object(ai.fractal_heap_address, &heap_id)?;
                let msg = Message::parse_bytes(
                    MessageType::ATTRIBUTE,
                    MessageFlags(message_flags),
                    &bytes,
                    0,
                    file.sizes(),
                )?;
                let msg = match msg {
                    Message::Shared { kind, shared } => resolve_shared(file, kind, &shared, 0)?,
                    m => m,
                };
                if let Message::Attribute(a) = msg {
                    out.push((a, Some(u64::from(creation_order))));
                }
            }
        }
    }
    Ok(())
}

/// Every attribute of the object at `loc`, in name order.
pub fn attributes(loc: &Location) -> Result<Vec<Attribute>> {
    let f = || -> Result<Vec<Attribute>> {
        let mut v = raw_attributes(loc)?
            .iter()
            .map(|(m, o)| build(&loc.file, &loc.path, m, *o))
            .collect::<Result<Vec<_>>>()?;
        v.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        Ok(v)
    };
    f().map_err(|e| e.at(&loc.path))
}

/// Every attribute of the object at `loc`, in creation order; an error when the object does
/// not track it.
pub fn attributes_by_creation_order(loc: &Location) -> Result<Vec<Attribute>> {
    let mut v = attributes(loc)?;
    if v.iter().any(|a| a.creation_order.is_none()) {
        return Err(Error::new(
            ErrorKind::NotFound,
            "the object does not track attribute creation order",
        )
        .at(&loc.path));
    }
    v.sort_by_key(|a| a.creation_order);
    Ok(v)
}

/// The names of the attributes of the object at `loc`, in name order (without decoding
/// their values).
pub fn attribute_names(loc: &Location) -> Result<Vec<String>> {
    let mut v: Vec<String> = raw_attributes(loc)
        .map_err(|e| e.at(&loc.path))?
        .iter()
        .map(|(m, _)| String::from_utf8_lossy(&m.name).into_owned())
        .collect();
    v.sort();
    Ok(v)
}

/// The attribute `name` of the object at `loc`. The header's attribute messages are looked
/// through by name, and only the one found is decoded (as the reference library's
/// `H5O__attr_open_by_name` stops at it); a message whose name cannot be read is decoded,
/// and its error returned. Dense storage is looked through when the header holds none of
/// that name.
pub fn attribute(loc: &Location, name: &str) -> Result<Attribute> {
    let f = || -> Result<Attribute> {
        let obj = loc.object()?;
        for (a, order) in obj.attribute_entries() {
            match a.name() {
                Some(n) if n != name.as_bytes() => continue,
                _ => {}
            }
            match a.decoded() {
                Ok(Message::Attribute(m)) if m.name == name.as_bytes() => {
                    return build(&loc.file, &loc.path, m, order.map(u64::from));
                }
                Ok(_) => {}
                Err(e) => return Err(attribute_message_error(e)),
            }
        }
        let mut dense = Vec::new();
        dense_attributes(loc, &obj, &mut dense)?;
        let (m, o) = dense
            .iter()
            .find(|(m, _)| m.name == name.as_bytes())
            .ok_or_else(|| Error::new(ErrorKind::NotFound, format!("no attribute {name:?}")))?;
        build(&loc.file, &loc.path, m, *o)
    };
    f().map_err(|e| e.at(&loc.path))
}
