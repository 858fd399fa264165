//! [`Attribute`]: read and write an attribute of a group, dataset or committed datatype;
//! [`AttrBuilder`] creates one.

use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use h5_io::selection::Dataspace;
use h5_io::write::ObjId;
use h5_types::h5type::encode_slice;
use h5_types::{Datatype, H5Type};

use crate::error::{Error, ErrorKind, Result};
use crate::file::poisoned;
use crate::group::CommittedType;
use crate::object::Obj;

/// An attribute.
#[derive(Clone, Debug)]
pub struct Attribute {
    parent: Obj,
    name: String,
    datatype: Datatype,
    space: Dataspace,
    /// What the reader decoded, and the reader's generation.
    cache: Arc<Mutex<Option<(u64, h5_io::Attribute)>>>,
}

impl Attribute {
    pub(crate) fn open(parent: &Obj, name: &str) -> Result<Attribute> {
        if parent.is_writable() {
            let names = parent.query(|w, id| w.attribute_names(id))?;
            if !names.iter().any(|n| n == name) {
                return Err(
                    Error::new(ErrorKind::NotFound, format!("no attribute {name:?}"))
                        .at(&parent.path),
                );
            }
        }
        let (generation, loc) = parent.location()?;
        let a = h5_io::attribute::attribute(&loc, name)?;
        Ok(Attribute::loaded(parent, generation, a))
    }

    fn loaded(parent: &Obj, generation: u64, a: h5_io::Attribute) -> Attribute {
        Attribute {
            parent: parent.clone(),
            name: a.name().to_owned(),
            datatype: a.datatype().clone(),
            space: a.dataspace().clone(),
            cache: Arc::new(Mutex::new(Some((generation, a)))),
        }
    }

    pub(crate) fn all(parent: &Obj, by_creation_order: bool) -> Result<Vec<Attribute>> {
        let (generation, loc) = parent.location()?;
        let v = if by_creation_order {
            h5_io::attribute::attributes_by_creation_order(&loc)?
        } else {
            h5_io::attribute::attributes(&loc)?
        };
        Ok(v.into_iter()
            .map(|a| Attribute::loaded(parent, generation, a))
            .collect())
    }

    pub(crate) fn names(parent: &Obj) -> Result<Vec<String>> {
        if parent.is_writable() {
            let mut v = parent.query(|w, id| w.attribute_names(id))?;
            v.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
            return Ok(v);
        }
        let (_, loc) = parent.location()?;
        Ok(h5_io::attribute::attribute_names(&loc)?)
    }

    /// The low-level reader's attribute, as the file is now.
    fn io(&self) -> Result<h5_io::Attribute> {
        let (generation, loc) = self.parent.location()?;
        let mut c = self.cache.lock().map_err(poisoned)?;
        if let Some((g, a)) = &*c {
            if *g == generation {
                return Ok(a.clone());
            }
        }
        let a = h5_io::attribute::attribute(&loc, &self.name)?;
        *c = Some((generation, a.clone()));
        Ok(a)
    }

    /// The attribute's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The path of the object it belongs to.
    pub fn parent_path(&self) -> &str {
        &self.parent.path
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

    /// The creation order, when the object tracks it (`None` too when the file can no
    /// longer be read).
    pub fn creation_order(&self) -> Option<u64> {
        self.io().ok()?.creation_order()
    }

    /// The elements in the file's datatype, as stored.
    pub fn read_raw(&self) -> Result<(Vec<u8>, Datatype)> {
        Ok(self.io()?.read_raw())
    }

    /// The elements converted to `T`.
    pub fn read<T: H5Type>(&self) -> Result<Vec<T>> {
        Ok(self.io()?.read::<T>()?)
    }

    /// The one element of a scalar (or one-element) attribute, converted to `T`.
    pub fn read_scalar<T: H5Type>(&self) -> Result<T> {
        Ok(self.io()?.read_scalar::<T>()?)
    }

    /// The elements converted to `T`, shaped as the attribute.
    #[cfg(feature = "ndarray")]
    #[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
    pub fn read_array<T: H5Type, D: ndarray::Dimension>(&self) -> Result<ndarray::Array<T, D>> {
        Ok(self.io()?.read_array::<T, D>()?)
    }

    /// A read with options: [`AttributeReader::strict`] makes every lossy conversion an
    /// error of kind [`ErrorKind::Conversion`] (see [`crate::DatasetReader`]).
    pub fn reader(&self) -> AttributeReader<'_> {
        AttributeReader {
            attr: self,
            strict: false,
        }
    }

    /// Write every value (converted to the attribute's datatype).
    pub fn write<T: H5Type>(&self, data: &[T]) -> Result<()> {
        let (img, heap) = encode_slice(data)?;
        let name = self.name.clone();
        self.parent
            .write(|w, id| w.write_attribute(id, &name, &T::h5_type(), &img, &heap))
            .map_err(|e| e.at(format!("{}: attribute {:?}", self.parent.path, self.name)))
    }

    /// Write the one value of a scalar attribute.
    pub fn write_scalar<T: H5Type>(&self, value: &T) -> Result<()> {
        self.write(std::slice::from_ref(value))
    }
}

/// Builds an attribute: its shape and file datatype.
#[derive(Debug)]
#[must_use]
pub struct AttrBuilder<T> {
    parent: Obj,
    datatype: Datatype,
    committed: Option<Result<ObjId>>,
    space: Dataspace,
    error: Option<Error>,
    _t: PhantomData<fn(T)>,
}

impl<T: H5Type> AttrBuilder<T> {
    pub(crate) fn new(parent: Obj) -> Self {
        AttrBuilder {
            parent,
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

    /// A scalar attribute (the default).
    pub fn scalar(mut self) -> Self {
        self.space = Dataspace::Scalar;
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
        self.committed = Some(t.id());
        self
    }

    /// Create the attribute `name` (values zero until written).
    pub fn create(self, name: &str) -> Result<Attribute> {
        if let Some(e) = self.error {
            return Err(e.at(&self.parent.path));
        }
        let committed = self.committed.transpose()?;
        let (dt, space) = (self.datatype, self.space);
        let datatype = match committed {
            Some(c) => self
                .parent
                .file
                .query(|w| Ok(w.committed_type(c)?.clone()))?,
            None => dt.clone(),
        };
        let s2 = space.clone();
        self.parent
            .write(|w, id| w.create_attribute(id, name, &dt, committed, s2))?;
        Ok(Attribute {
            parent: self.parent.clone(),
            name: name.to_owned(),
            datatype,
            space,
            cache: Arc::new(Mutex::new(None)),
        })
    }

    /// Create the attribute `name`, shaped as `data` (one-dimensional), and write it.
    pub fn create_with(self, name: &str, data: &[T]) -> Result<Attribute> {
        let a = self.shape(&[data.len() as u64]).create(name)?;
        a.write(data)?;
        Ok(a)
    }
}

/// A read of an attribute with options, made by [`Attribute::reader`].
#[derive(Clone, Copy, Debug)]
#[must_use = "a reader does nothing until one of its read methods is called"]
pub struct AttributeReader<'a> {
    attr: &'a Attribute,
    strict: bool,
}

impl<'a> AttributeReader<'a> {
    /// Make every lossy conversion step an error.
    pub fn strict(self) -> Self {
        self.with_strict(true)
    }

    /// Strict conversions or not.
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// The attribute read.
    pub fn attribute(&self) -> &'a Attribute {
        self.attr
    }

    /// Every element converted to `T`.
    pub fn read<T: H5Type>(self) -> Result<Vec<T>> {
        let a = self.attr.io()?;
        Ok(a.reader().with_strict(self.strict).read::<T>()?)
    }

    /// The one element converted to `T`.
    pub fn read_scalar<T: H5Type>(self) -> Result<T> {
        let a = self.attr.io()?;
        Ok(a.reader().with_strict(self.strict).read_scalar::<T>()?)
    }

    /// Every element converted to `T`, shaped as the attribute.
    #[cfg(feature = "ndarray")]
    #[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
    pub fn read_array<T: H5Type, D: ndarray::Dimension>(self) -> Result<ndarray::Array<T, D>> {
        let a = self.attr.io()?;
        Ok(a.reader().with_strict(self.strict).read_array::<T, D>()?)
    }
}
