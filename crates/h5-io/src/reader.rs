//! Read builders: [`Dataset::reader`] and [`Attribute::reader`] read with options, such as
//! [`DatasetReader::strict`], that the plain `read` methods leave at their defaults.
//!
//! ```no_run
//! # fn main() -> h5_io::Result<()> {
//! let file = h5_io::File::open("data.h5")?;
//! let ds = file.dataset("/temperatures")?;
//! // As the reference library converts: 300.5 reads as 127.
//! let clamped: Vec<i8> = ds.read()?;
//! // Refusing any lossy step: an error of kind `Datatype` naming the element.
//! match ds.reader().strict().read::<i8>() {
//!     Ok(v) => println!("{v:?}"),
//!     Err(e) => {
//!         let index = e.datatype_error().and_then(|t| t.element());
//!         println!("element {index:?} does not fit: {e}");
//!     }
//! }
//! # Ok(())
//! # }
//! ```

use h5_types::convert::ConversionOptions;
use h5_types::H5Type;

use crate::attribute::Attribute;
use crate::dataset::Dataset;
use crate::error::{Error, ErrorKind, Result};
use crate::selection::{NcForm, Selection};

/// How a read converts the file's elements to the memory type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Conversion {
    /// Refuse lossy conversions (see [`ConversionOptions::with_strict`]).
    pub(crate) strict: bool,
}

impl Conversion {
    /// The reference library's conversions.
    pub(crate) const DEFAULT: Conversion = Conversion { strict: false };

    /// Conversion options for one conversion call.
    pub(crate) fn options<'h>(self) -> ConversionOptions<'h> {
        ConversionOptions::new().with_strict(self.strict)
    }
}

/// A read of a [`Dataset`] with options; made by [`Dataset::reader`].
#[derive(Clone, Copy, Debug)]
#[must_use = "a reader does nothing until one of its read methods is called"]
pub struct DatasetReader<'a> {
    ds: &'a Dataset,
    cv: Conversion,
}

impl Dataset {
    /// A reader of this dataset, to read with options: `ds.reader().strict().read::<T>()`.
    pub fn reader(&self) -> DatasetReader<'_> {
        DatasetReader {
            ds: self,
            cv: Conversion::DEFAULT,
        }
    }
}

impl<'a> DatasetReader<'a> {
    /// Refuse lossy conversions: a value that does not fit `T` exactly (an overflow, a float
    /// with a fraction or a NaN read as an integer, a finite float that would become
    /// infinity, a compound member `T` has and the file lacks, a string longer than a
    /// fixed-size `T`, an enum value without a member) makes the read fail with an error of
    /// kind [`ErrorKind::Datatype`] whose
    /// [`datatype_error`](crate::Error::datatype_error) is of kind
    /// [`h5_types::ErrorKind::Lossy`] and names the element (its index in the read's
    /// result) and the [`h5_types::Loss`]. Rounding to the nearest float is allowed. The
    /// details are those of [`ConversionOptions::with_strict`].
    pub fn strict(self) -> Self {
        self.with_strict(true)
    }

    /// Strict or not, as `strict` says (not strict by default).
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.cv.strict = strict;
        self
    }

    /// The dataset read.
    pub fn dataset(&self) -> &'a Dataset {
        self.ds
    }

    /// Every element converted to `T` ([`Dataset::read`] with these options).
    pub fn read<T: H5Type>(self) -> Result<Vec<T>> {
        self.ds.read_all(self.cv).map_err(|e| e.at(self.ds.path()))
    }

    /// The one element of a scalar (or one-element) dataset converted to `T`.
    pub fn read_scalar<T: H5Type>(self) -> Result<T> {
        let mut v = self.read::<T>()?;
        match (v.len(), v.pop()) {
            (1, Some(x)) => Ok(x),
            (n, _) => Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("dataset has {n} elements, not one"),
            )
            .at(self.ds.path())),
        }
    }

    /// The selected elements converted to `T`, in the selection's order
    /// ([`Dataset::read_selection`] with these options); a lossy element is named by its
    /// index in the result.
    pub fn read_selection<T: H5Type>(self, sel: &Selection) -> Result<Vec<T>> {
        self.ds.read_selection_with(sel, self.cv)
    }

    /// A hyperslab converted to `T` ([`Dataset::read_slice`] with these options).
    pub fn read_slice<T: H5Type>(
        self,
        start: &[u64],
        stride: Option<&[u64]>,
        count: &[u64],
        block: Option<&[u64]>,
    ) -> Result<Vec<T>> {
        let sel = self.ds.hyperslab(start, stride, count, block)?;
        self.read_selection(&sel)
    }

    /// A netCDF-style access converted to `T` ([`Dataset::read_nc`] with these options).
    pub fn read_nc<T: H5Type>(self, form: NcForm<'_>) -> Result<Vec<T>> {
        self.ds.read_nc_with(form, self.cv)
    }
}

/// A read of an [`Attribute`] with options; made by [`Attribute::reader`].
#[derive(Clone, Copy, Debug)]
#[must_use = "a reader does nothing until one of its read methods is called"]
pub struct AttributeReader<'a> {
    attr: &'a Attribute,
    cv: Conversion,
}

impl Attribute {
    /// A reader of this attribute, to read with options: `a.reader().strict().read::<T>()`.
    pub fn reader(&self) -> AttributeReader<'_> {
        AttributeReader {
            attr: self,
            cv: Conversion::DEFAULT,
        }
    }
}

impl<'a> AttributeReader<'a> {
    /// Refuse lossy conversions, as [`DatasetReader::strict`] does.
    pub fn strict(self) -> Self {
        self.with_strict(true)
    }

    /// Strict or not, as `strict` says (not strict by default).
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.cv.strict = strict;
        self
    }

    /// The attribute read.
    pub fn attribute(&self) -> &'a Attribute {
        self.attr
    }

    /// The elements converted to `T` ([`Attribute::read`] with these options).
    pub fn read<T: H5Type>(self) -> Result<Vec<T>> {
        self.attr.read_with(self.cv)
    }

    /// The one element of a scalar (or one-element) attribute converted to `T`
    /// ([`Attribute::read_scalar`] with these options).
    pub fn read_scalar<T: H5Type>(self) -> Result<T> {
        self.attr.read_scalar_with(self.cv)
    }
}
