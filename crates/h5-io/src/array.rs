//! Reading into `ndarray` arrays (feature `ndarray`).

use ndarray::{Array, Dimension, IxDyn};

use h5_types::H5Type;

use crate::attribute::Attribute;
use crate::dataset::Dataset;
use crate::error::{Error, ErrorKind, Result};

fn shaped<T, D: Dimension>(v: Vec<T>, shape: &[u64]) -> Result<Array<T, D>> {
    let dims: Vec<usize> = shape
        .iter()
        .map(|&d| usize::try_from(d))
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| Error::new(ErrorKind::LimitExceeded, "dimension too large"))?;
    let a = Array::from_shape_vec(IxDyn(&dims), v)
        .map_err(|e| Error::new(ErrorKind::InvalidArgument, e.to_string()))?;
    a.into_dimensionality::<D>().map_err(|e| {
        Error::new(
            ErrorKind::InvalidArgument,
            format!("the data has rank {}: {e}", dims.len()),
        )
    })
}

impl Dataset {
    /// Every element converted to `T`, shaped as the dataset (`D` = `IxDyn` for any rank,
    /// `Ix0` for scalars).
    pub fn read_array<T: H5Type, D: Dimension>(&self) -> Result<Array<T, D>> {
        shaped(self.read::<T>()?, &self.shape()).map_err(|e| e.at(self.path()))
    }

    /// A hyperslab `start`/`count` (optional `stride`, `block`) shaped as the selection's
    /// bounding counts (`count[k] * block[k]` per dimension).
    pub fn read_slice_array<T: H5Type, D: Dimension>(
        &self,
        start: &[u64],
        stride: Option<&[u64]>,
        count: &[u64],
        block: Option<&[u64]>,
    ) -> Result<Array<T, D>> {
        let v = self.read_slice::<T>(start, stride, count, block)?;
        let shape: Vec<u64> = match block {
            Some(b) => count.iter().zip(b).map(|(c, b)| c * b).collect(),
            None => count.to_vec(),
        };
        shaped(v, &shape).map_err(|e| e.at(self.path()))
    }
}

impl Attribute {
    /// Every element converted to `T`, shaped as the attribute.
    pub fn read_array<T: H5Type, D: Dimension>(&self) -> Result<Array<T, D>> {
        shaped(self.read::<T>()?, &self.shape())
    }
}

impl crate::reader::DatasetReader<'_> {
    /// Every element converted to `T` with these options, shaped as the dataset
    /// ([`Dataset::read_array`] with these options).
    pub fn read_array<T: H5Type, D: Dimension>(self) -> Result<Array<T, D>> {
        let ds = self.dataset();
        shaped(self.read::<T>()?, &ds.shape()).map_err(|e| e.at(ds.path()))
    }
}

impl crate::reader::AttributeReader<'_> {
    /// Every element converted to `T` with these options, shaped as the attribute
    /// ([`Attribute::read_array`] with these options).
    pub fn read_array<T: H5Type, D: Dimension>(self) -> Result<Array<T, D>> {
        let shape = self.attribute().shape();
        shaped(self.read::<T>()?, &shape)
    }
}
