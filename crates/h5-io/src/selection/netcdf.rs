//! netCDF's forms of data access (whole variable, one element, array section, subsampled
//! array section, mapped array section) as a file selection plus a memory placement, checked
//! by netCDF's rules.
//!
//! An array section is a slab given by a corner (`start`) and edge lengths (`count`); a
//! subsampled section adds a `stride` per dimension; a mapped section adds an index map
//! (`imap`): the memory offset of the element with section indices `(i_0, .., i_{r-1})` is
//! `sum(i_k * imap_k)` in elements, so the memory array may be laid out differently from the
//! variable (transposed, padded). Without a map, values are packed in row-major (C) order.

use super::{bail, Dataspace, Error, ErrorKind, MemoryMap, Result, Selection};

/// One of netCDF's access forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NcForm<'a> {
    /// Every element of the variable (`nc_get_var`).
    Whole,
    /// One element, by its index vector (`nc_get_var1`).
    Element {
        /// The element's indices, slowest dimension first.
        index: &'a [u64],
    },
    /// An array section (`nc_get_vara`).
    Section {
        /// The corner nearest the origin.
        start: &'a [u64],
        /// Edge lengths.
        count: &'a [u64],
    },
    /// A subsampled array section (`nc_get_vars`).
    Subsampled {
        /// The corner nearest the origin.
        start: &'a [u64],
        /// Number of values along each dimension.
        count: &'a [u64],
        /// Sampling interval along each dimension (>= 1).
        stride: &'a [u64],
    },
    /// A mapped array section (`nc_get_varm`).
    Mapped {
        /// The corner nearest the origin.
        start: &'a [u64],
        /// Number of values along each dimension.
        count: &'a [u64],
        /// Sampling interval along each dimension (>= 1); ones when `None`.
        stride: Option<&'a [u64]>,
        /// Memory distance, in elements, between neighbours along each dimension; packed
        /// row-major when `None`.
        imap: Option<&'a [u64]>,
    },
}

/// Whether the access reads or writes: writes may extend unlimited dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NcMode {
    /// Reading: every dimension bounds the access.
    Read,
    /// Writing: unlimited dimensions grow to hold the section.
    Write,
}

/// A netCDF access turned into a selection and a memory placement.
#[derive(Clone, Debug)]
pub struct NcAccess {
    /// The dataspace the file selection applies to: the variable's own, or for a write past
    /// the end of an unlimited dimension the grown one (the caller extends the dataset to it
    /// first).
    pub extent: Dataspace,
    /// The elements of the variable accessed, in row-major order of the section indices.
    pub file: Selection,
    /// The edge lengths of the section (empty for a scalar).
    pub count: Vec<u64>,
    /// Where each accessed element sits in the memory array.
    pub memory: MemoryMap,
}

/// Turn a netCDF access on a variable of dataspace `space` into a file selection and a
/// memory placement. Errors follow netCDF: `NC_EINVALCOORDS` (a start or index beyond its
/// dimension), `NC_EEDGE` (the section's last index beyond its dimension), `NC_ESTRIDE`
/// (a stride of 0); dimensions are checked in order, stride before start before edge.
pub fn nc_access(space: &Dataspace, form: NcForm<'_>, mode: NcMode) -> Result<NcAccess> {
    space.check()?;
    let dims = space.dims();
    let rank = dims.len();
    if matches!(space, Dataspace::Null) {
        bail!(
            InvalidSelection,
            "a variable with a null dataspace has no data"
        );
    }
    let ones = vec![1u64; rank];
    let (start, count, stride, imap, element) = match form {
        NcForm::Whole => {
            let memory = MemoryMap::packed(space.npoints());
            return Ok(NcAccess {
                extent: space.clone(),
                file: Selection::All,
                count: dims.to_vec(),
                memory,
            });
        }
        NcForm::Element { index } => (index, &ones[..], &ones[..], None, true),
        NcForm::Section { start, count } => (start, count, &ones[..], None, false),
        NcForm::Subsampled {
            start,
            count,
            stride,
        } => (start, count, stride, None, false),
        NcForm::Mapped {
            start,
            count,
            stride,
            imap,
        } => (start, count, stride.unwrap_or(&ones), imap, false),
    };
    for (name, v) in [("start", start), ("count", count), ("stride", stride)] {
        if v.len() != rank {
            bail!(
                RankMismatch,
                "{name} has {} entries but the variable has {rank} dimensions",
                v.len()
            );
        }
    }
    if let Some(m) = imap {
        if m.len() != rank {
            bail!(
                RankMismatch,
                "imap has {} entries but the variable has {rank} dimensions",
                m.len()
            );
        }
    }
    if rank == 0 {
        return Ok(NcAccess {
            extent: space.clone(),
            file: Selection::All,
            count: Vec::new(),
            memory: MemoryMap::packed(1),
        });
    }
    let mut new_dims = dims.to_vec();
    let mut empty = false;
    for k in 0..rank {
        let (s, c, st, d) = (start[k], count[k], stride[k], dims[k]);
        if st == 0 {
            bail!(Stride, "stride 0 in dimension {k} (must be at least 1)");
        }
        let grows = mode == NcMode::Write && space.is_unlimited(k);
        if c == 0 {
            empty = true;
        }
        let last = (c.max(1) - 1)
            .checked_mul(st)
            .and_then(|x| x.checked_add(s))
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::Overflow,
                    format!("section end overflows 64 bits in dimension {k}"),
                )
            })?;
        if grows {
            if c > 0 {
                new_dims[k] = new_dims[k].max(last + 1);
            }
            continue;
        }
        if element && s >= d {
            bail!(
                InvalidCoords,
                "index {s} is beyond dimension {k} of length {d}"
            );
        }
        if s > d || (s == d && c > 0) {
            bail!(
                InvalidCoords,
                "start {s} is beyond dimension {k} of length {d}"
            );
        }
        if c > 0 && last >= d {
            bail!(
                Edge,
                "start {s} + count {c} (stride {st}) reaches index {last}, beyond dimension {k} of length {d}"
            );
        }
    }
    let extent = if new_dims == dims {
        space.clone()
    } else {
        space.resized(&new_dims)?
    };
    let file = if empty {
        Selection::None
    } else {
        Selection::hyperslab(&extent, start, Some(stride), count, None)?
    };
    let memory = match imap {
        None => MemoryMap::packed(file.npoints(&extent)),
        Some(m) => MemoryMap::strided(0, count, m)?,
    };
    Ok(NcAccess {
        extent,
        file,
        count: count.to_vec(),
        memory,
    })
}
