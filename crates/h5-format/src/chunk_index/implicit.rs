//! The implicit chunk index: every chunk allocated at creation, in one array starting at the
//! layout's index address, in row-major order of the chunk grid.

use crate::{Addr, Error, ErrorKind, Result};

const STRUCTURE: &str = "implicit chunk index";

/// The geometry of an implicitly indexed dataset.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ImplicitIndex {
    /// Base address of the chunk array.
    pub base: Addr,
    /// Bytes of one chunk.
    pub chunk_bytes: u64,
    /// Current dataset dimensions.
    pub dims: Vec<u64>,
    /// Chunk dimensions.
    pub chunk_dims: Vec<u64>,
}

fn err(m: String) -> Error {
    Error::without_offset(ErrorKind::InvalidValue, STRUCTURE, m)
}

impl ImplicitIndex {
    /// Chunks per dimension: `(dims + chunk_dims - 1) / chunk_dims`.
    pub fn chunks_per_dim(&self) -> Result<Vec<u64>> {
        if self.dims.len() != self.chunk_dims.len() {
            return Err(err("dataset and chunk ranks differ".into()));
        }
        self.dims
            .iter()
            .zip(&self.chunk_dims)
            .map(|(&d, &c)| {
                if c == 0 {
                    Err(err("a chunk dimension is 0".into()))
                } else {
                    Ok(d.div_ceil(c))
                }
            })
            .collect()
    }

    /// Total number of chunks.
    pub fn nchunks(&self) -> Result<u64> {
        self.chunks_per_dim()?
            .iter()
            .try_fold(1u64, |a, &n| a.checked_mul(n))
            .ok_or_else(|| err("chunk count overflows".into()))
    }

    /// Linear index of the chunk holding element `offset` (a chunk's own offset or any element
    /// in it): the sum over dimensions of scaled offset times the chunks of faster dimensions.
    pub fn chunk_index(&self, offset: &[u64]) -> Result<u64> {
        let n = self.chunks_per_dim()?;
        if offset.len() != n.len() {
            return Err(err("offset rank differs from the dataset rank".into()));
        }
        let mut index = 0u64;
        let mut down = 1u64;
        for i in (0..n.len()).rev() {
            let scaled = offset[i] / self.chunk_dims[i];
            if scaled >= n[i] {
                return Err(err(format!(
                    "offset {} is outside dimension {i}",
                    offset[i]
                )));
            }
            index = scaled
                .checked_mul(down)
                .and_then(|v| v.checked_add(index))
                .ok_or_else(|| err("chunk index overflows".into()))?;
            down = down
                .checked_mul(n[i])
                .ok_or_else(|| err("chunk count overflows".into()))?;
        }
        Ok(index)
    }

    /// Address of the chunk holding element `offset`: base + chunk bytes × index.
    pub fn chunk_address(&self, offset: &[u64]) -> Result<Addr> {
        let base = self
            .base
            .get()
            .ok_or_else(|| err("the chunks are not allocated".into()))?;
        let i = self.chunk_index(offset)?;
        i.checked_mul(self.chunk_bytes)
            .and_then(|o| o.checked_add(base))
            .map(Addr)
            .ok_or_else(|| err("chunk address overflows".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_example() {
        // Current dims [4,5], chunk dims [3,2]: offset [3,4] has index 5.
        let ix = ImplicitIndex {
            base: Addr(0x1000),
            chunk_bytes: 24,
            dims: vec![4, 5],
            chunk_dims: vec![3, 2],
        };
        assert_eq!(ix.chunks_per_dim().unwrap(), [2, 3]);
        assert_eq!(ix.nchunks().unwrap(), 6);
        assert_eq!(ix.chunk_index(&[3, 4]).unwrap(), 5);
        assert_eq!(ix.chunk_index(&[0, 2]).unwrap(), 1);
        assert_eq!(ix.chunk_address(&[3, 4]).unwrap(), Addr(0x1000 + 5 * 24));
        assert!(ix.chunk_index(&[6, 0]).is_err());
        assert!(ix.chunk_index(&[0]).is_err());
        let bad = ImplicitIndex {
            chunk_dims: vec![0, 2],
            ..ix
        };
        assert!(bad.nchunks().is_err());
    }
}
