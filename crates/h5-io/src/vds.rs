//! Virtual datasets: each mapping copies a selection of a source dataset (in this file or
//! another) into a selection of the virtual dataset. Sources that cannot be opened read as the
//! fill value, as the reference library does.
//!
//! Source files are found as the reference library finds them (`H5F_prefix_open_file`, see
//! [`File::open_prefixed`]). Mappings whose selections are unlimited are clipped to the
//! sources' extents, and printf-style mappings (`%b` in the names) expand to one source per
//! block, under the file's view options: [`OpenOptions::vds_first_missing`] and
//! [`OpenOptions::vds_gap`] (`H5Pset_virtual_view`, `H5Pset_virtual_printf_gap`).
//!
//! [`OpenOptions::vds_first_missing`]: crate::file::OpenOptions::vds_first_missing
//! [`OpenOptions::vds_gap`]: crate::file::OpenOptions::vds_gap

use std::collections::HashMap;

use h5_format::selection::{RegularDim, Selection as FormatSelection};
use h5_format::vds::VirtualMappings;
use h5_format::{Addr, Cursor};
use h5_types::convert::{ConversionOptions, Converter};

use crate::dataset::{byte_span, Dataset};
use crate::error::{Error, ErrorKind, Result};
use crate::file::File;
use crate::reference::selection_from_format;
use crate::selection::{Dataspace, MemoryMap, SelectOp, Selection, UNLIMITED};

/// Read the part of a virtual dataset that `sel` selects into `out` (placed by `mem`).
pub(crate) fn read_virtual(
    ds: &Dataset,
    heap: Addr,
    index: u32,
    sel: &Selection,
    mem: &MemoryMap,
    out: &mut [u8],
) -> Result<()> {
    let file = ds.file();
    let space = ds.dataspace();
    let (_, parts) = plan(file, heap, index, space)?;
    let esize = ds.element_size();
    let n = sel.npoints(space);
    // Where each selected element of the virtual dataset goes: (virtual offset, out offset,
    // length), sorted by virtual offset.
    let mut targets: Vec<(u64, u64, u64)> = mem
        .transfer(n, sel.runs(space)?)?
        .map(|p| (p.file, p.mem, p.len))
        .collect();
    targets.sort_unstable();
    for part in parts {
        let src = &part.source;
        let same_type = src.datatype() == ds.datatype();
        if !same_type
            && (src.datatype().has_variable_length() || ds.datatype().has_variable_length())
        {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!(
                    "virtual source {} of another variable-length type",
                    src.path()
                ),
            ));
        }
        let count = part.source_selection.npoints(src.dataspace());
        if count != part.virtual_selection.npoints(space) {
            return Err(Error::new(
                ErrorKind::Format,
                format!(
                    "virtual mapping to {}: selections of different sizes",
                    src.path()
                ),
            ));
        }
        if count == 0 {
            continue;
        }
        let mut data = src.read_raw_selection(&part.source_selection, &MemoryMap::packed(count))?;
        if !same_type {
            // The source's elements converted to the virtual dataset's type.
            let conv = Converter::new(src.datatype(), ds.datatype())?;
            let n = usize::try_from(count)
                .map_err(|_| Error::new(ErrorKind::LimitExceeded, "virtual read too large"))?;
            let mut conv_out = vec![0u8; n.saturating_mul(esize)];
            conv.convert(&data, &mut conv_out, n, &mut ConversionOptions::new())?;
            data = conv_out;
        }
        for r in part.virtual_selection.runs(space)? {
            // Overlap of virtual run [r.offset, r.offset + r.len) with the targets.
            let first = targets.partition_point(|t| t.0 + t.2 <= r.offset);
            for t in &targets[first..] {
                if t.0 >= r.offset + r.len {
                    break;
                }
                let lo = t.0.max(r.offset);
                let hi = (t.0 + t.2).min(r.offset + r.len);
                let src_at = r.rank + (lo - r.offset);
                let dst_at = t.1 + (lo - t.0);
                let (s, l) = byte_span(src_at, hi - lo, esize, data.len())?;
                let (d, _) = byte_span(dst_at, hi - lo, esize, out.len())?;
                out[d..d + l].copy_from_slice(&data[s..s + l]);
            }
        }
    }
    Ok(())
}

/// The current extent of a virtual dataset whose dataspace has unlimited dimensions.
pub(crate) fn virtual_extent(
    file: &File,
    heap: Addr,
    index: u32,
    space: &Dataspace,
) -> Result<Dataspace> {
    Ok(plan(file, heap, index, space)?.0)
}

/// One source of a virtual dataset as read: the opened source and the two selections (the
/// virtual one on the virtual dataset's extent, the source one on the source's).
struct Part {
    source: Dataset,
    virtual_selection: Selection,
    source_selection: Selection,
}

/// A mapping once its sources are looked for.
enum Resolved {
    /// No unlimited selection.
    Fixed(Option<Dataset>, FormatSelection, FormatSelection),
    /// An unlimited selection in virtual dimension `vdim`: the source's extent in its own
    /// unlimited dimension, the clip size it asks for the virtual one.
    Unlimited {
        source: Option<Dataset>,
        vsel: Vec<RegularDim>,
        ssel: Vec<RegularDim>,
        vdim: usize,
        sdim: usize,
        clip: u64,
    },
    /// A printf-style mapping: the sources found, by block number.
    Printf {
        found: Vec<(u64, Dataset)>,
        vsel: Vec<RegularDim>,
        ssel: FormatSelection,
        vdim: usize,
        clip: u64,
    },
}

/// The extent of the virtual dataset (stored in `space`, with unlimited dimensions sized by
/// the mappings) and the parts to read from.
fn plan(file: &File, heap: Addr, index: u32, space: &Dataspace) -> Result<(Dataspace, Vec<Part>)> {
    let bytes = file.global_heap_object(heap, index)?;
    let maps = VirtualMappings::parse(&mut Cursor::new(&bytes, 0, file.sizes()))?;
    let first_missing = file.options().vds_first_missing;
    let gap = file.options().vds_gap;
    let mut opened: HashMap<Vec<u8>, Option<File>> = HashMap::new();
    let mut open_dataset = |fname: &[u8], dname: &[u8]| -> Option<Dataset> {
        let f = if fname == b"." {
            Some(file.clone())
        } else {
            opened
                .entry(fname.to_vec())
                .or_insert_with(|| {
                    let name = String::from_utf8_lossy(fname).into_owned();
                    file.open_prefixed(&name, "HDF5_VDS_PREFIX")
                })
                .clone()
        };
        f.and_then(|f| f.dataset(&String::from_utf8_lossy(dname)).ok())
    };
    let rank = space.rank();
    let mut min_dims = vec![0u64; rank];
    let mut resolved = Vec::new();
    for m in &maps.entries {
        let vdim = unlimited_dim(&m.virtual_selection);
        // The fixed extent every mapping needs (`H5D__virtual_update_min_dims`).
        if let Some((_, end)) = format_bounds(&m.virtual_selection, space) {
            for (k, e) in end.iter().enumerate() {
                if Some(k) != vdim {
                    if let Some(x) = min_dims.get_mut(k) {
                        *x = (*x).max(e.saturating_add(1));
                    }
                }
            }
        }
        let Some(vdim) = vdim else {
            let src = open_dataset(&m.source_file, &m.source_dataset);
            resolved.push(Resolved::Fixed(
                src,
                m.virtual_selection.clone(),
                m.source_selection.clone(),
            ));
            continue;
        };
        let vsel = regular(&m.virtual_selection)
            .ok_or_else(unsupported)?
            .to_vec();
        let vd = vsel.get(vdim).copied().ok_or_else(unsupported)?;
        if has_printf(&m.source_file) || has_printf(&m.source_dataset) {
            let mut found = Vec::new();
            let mut next_missing = 0u64;
            let mut j = 0u64;
            while j <= gap.saturating_add(next_missing) && j < MAX_PRINTF_SOURCES {
                let sf = substitute(&m.source_file, j);
                let sd = substitute(&m.source_dataset, j);
                if let Some(d) = open_dataset(&sf, &sd) {
                    found.push((j, d));
                    next_missing = j + 1;
                }
                j += 1;
            }
            let clip = if next_missing == 0 {
                0
            } else if first_missing {
                vd.start
                    .saturating_add(next_missing.saturating_mul(vd.stride))
            } else {
                vd.start
                    .saturating_add((next_missing - 1).saturating_mul(vd.stride))
                    .saturating_add(vd.block)
            };
            resolved.push(Resolved::Printf {
                found,
                vsel,
                ssel: m.source_selection.clone(),
                vdim,
                clip,
            });
            continue;
        }
        let ssel = regular(&m.source_selection)
            .ok_or_else(unsupported)?
            .to_vec();
        let sdim = ssel
            .iter()
            .position(|d| d.count == UNLIMITED || d.block == UNLIMITED)
            .ok_or_else(unsupported)?;
        let src = open_dataset(&m.source_file, &m.source_dataset);
        let clip = match &src {
            None => 0,
            Some(d) => {
                let ext = d.dataspace().dims().get(sdim).copied().unwrap_or(0);
                let slices = match_slices(&ssel[sdim], ext);
                clip_extent(&vd, slices, first_missing)
            }
        };
        resolved.push(Resolved::Unlimited {
            source: src,
            vsel,
            ssel,
            vdim,
            sdim,
            clip,
        });
    }
    // The extent: unlimited dimensions take the largest (last available) or smallest (first
    // missing) clip size of the mappings unlimited in them, and at least the fixed extent.
    let mut dims = space.dims().to_vec();
    let mut sized: Vec<Option<u64>> = vec![None; rank];
    for r in &resolved {
        let (k, clip) = match r {
            Resolved::Unlimited { vdim, clip, .. } | Resolved::Printf { vdim, clip, .. } => {
                (*vdim, *clip)
            }
            Resolved::Fixed(..) => continue,
        };
        if let Some(s) = sized.get_mut(k) {
            *s = Some(match *s {
                None => clip,
                Some(x) if first_missing => x.min(clip),
                Some(x) => x.max(clip),
            });
        }
    }
    for k in 0..rank {
        if space.maxdims().get(k) == Some(&UNLIMITED) {
            if let (Some(s), Some(d)) = (sized[k], dims.get_mut(k)) {
                *d = s.max(min_dims[k]);
            }
        }
    }
    let vspace = if space.maxdims().contains(&UNLIMITED) {
        Dataspace::with_max(&dims, space.maxdims())?
    } else {
        space.clone()
    };
    let mut parts = Vec::new();
    for r in resolved {
        match r {
            Resolved::Fixed(src, v, s) => {
                let Some(src) = src else { continue };
                let vs = selection_from_format(&v, &vspace)?;
                let ss = selection_from_format(&s, src.dataspace())?;
                parts.push(Part {
                    source: src,
                    virtual_selection: vs,
                    source_selection: ss,
                });
            }
            Resolved::Unlimited {
                source,
                vsel,
                ssel,
                vdim,
                sdim,
                clip,
            } => {
                let Some(src) = source else { continue };
                let ext = src.dataspace().dims().get(sdim).copied().unwrap_or(0);
                let (vs, ss) = if first_missing {
                    let vclip = vspace.dims().get(vdim).copied().unwrap_or(0);
                    let vs = clipped(&vsel, vdim, vclip, &vspace)?;
                    let non_unlim: u64 = vsel
                        .iter()
                        .enumerate()
                        .filter(|(k, _)| *k != vdim)
                        .map(|(_, d)| d.count.saturating_mul(d.block))
                        .product();
                    let slices = vs.npoints(&vspace).checked_div(non_unlim).unwrap_or(0);
                    let sclip = clip_extent(&ssel[sdim], slices, false).min(ext);
                    (vs, clipped(&ssel, sdim, sclip, src.dataspace())?)
                } else {
                    (
                        clipped(&vsel, vdim, clip, &vspace)?,
                        clipped(&ssel, sdim, ext, src.dataspace())?,
                    )
                };
                parts.push(Part {
                    source: src,
                    virtual_selection: vs,
                    source_selection: ss,
                });
            }
            Resolved::Printf {
                found,
                vsel,
                ssel,
                vdim,
                ..
            } => {
                let vext = vspace.dims().get(vdim).copied().unwrap_or(0);
                for (j, src) in found {
                    let mut b = vsel.clone();
                    let d = &mut b[vdim];
                    d.start = d.start.saturating_add(j.saturating_mul(d.stride));
                    d.count = 1;
                    if d.start.saturating_add(d.block) > vext {
                        continue;
                    }
                    let vs = clipped(&b, vdim, vext, &vspace)?;
                    let ss = match unlimited_dim(&ssel) {
                        Some(sd) => {
                            let ext = src.dataspace().dims().get(sd).copied().unwrap_or(0);
                            let dims = regular(&ssel).ok_or_else(unsupported)?;
                            clipped(dims, sd, ext, src.dataspace())?
                        }
                        None => selection_from_format(&ssel, src.dataspace())?,
                    };
                    parts.push(Part {
                        source: src,
                        virtual_selection: vs,
                        source_selection: ss,
                    });
                }
            }
        }
    }
    Ok((vspace, parts))
}

fn unsupported() -> Error {
    Error::new(ErrorKind::Unsupported, "this unlimited virtual mapping")
}

/// Most sources one printf-style mapping expands to.
const MAX_PRINTF_SOURCES: u64 = 1 << 16;

fn has_printf(s: &[u8]) -> bool {
    s.windows(2).any(|w| w == b"%b")
}

/// `%b` replaced by `i`, `%%` by `%`.
fn substitute(s: &[u8], i: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() + 8);
    let mut k = 0;
    while k < s.len() {
        match (s[k], s.get(k + 1)) {
            (b'%', Some(b'b')) => {
                out.extend_from_slice(i.to_string().as_bytes());
                k += 2;
            }
            (b'%', Some(b'%')) => {
                out.push(b'%');
                k += 2;
            }
            (c, _) => {
                out.push(c);
                k += 1;
            }
        }
    }
    out
}

fn regular(s: &FormatSelection) -> Option<&[RegularDim]> {
    match s {
        FormatSelection::HyperslabV2 { dims }
        | FormatSelection::HyperslabV3Regular { dims, .. } => Some(dims),
        _ => None,
    }
}

/// The dimension in which a regular selection is unlimited.
fn unlimited_dim(s: &FormatSelection) -> Option<usize> {
    regular(s)?
        .iter()
        .position(|d| d.count == UNLIMITED || d.block == UNLIMITED)
}

/// The bounds of a stored selection (unlimited dimensions bounded by their start).
fn format_bounds(s: &FormatSelection, space: &Dataspace) -> Option<(Vec<u64>, Vec<u64>)> {
    match s {
        FormatSelection::HyperslabV2 { dims }
        | FormatSelection::HyperslabV3Regular { dims, .. } => {
            let start = dims.iter().map(|d| d.start).collect();
            let end = dims
                .iter()
                .map(|d| {
                    if d.count == UNLIMITED || d.block == UNLIMITED || d.count == 0 || d.block == 0
                    {
                        d.start
                    } else {
                        d.start
                            .saturating_add((d.count - 1).saturating_mul(d.stride))
                            .saturating_add(d.block - 1)
                    }
                })
                .collect();
            Some((start, end))
        }
        other => selection_from_format(other, space).ok()?.bounds(space),
    }
}

/// `H5S__hyper_get_clip_diminfo`: count and block of one dimension clipped to `clip`.
fn clip_diminfo(d: &RegularDim, clip: u64) -> (u64, u64) {
    if d.start >= clip {
        if d.block == UNLIMITED {
            (d.count, 0)
        } else {
            (0, d.block)
        }
    } else if d.block == UNLIMITED || d.block == d.stride {
        (1, clip - d.start)
    } else {
        let count = (clip - d.start).saturating_add(d.stride - 1) / d.stride.max(1);
        (count, d.block)
    }
}

/// Slices of the unlimited dimension `d` of a selection clipped to `clip`
/// (`H5S_hyper_get_clip_extent_match`).
fn match_slices(d: &RegularDim, clip: u64) -> u64 {
    let (count, block) = clip_diminfo(d, clip);
    if block == 0 || count == 0 {
        0
    } else if count == 1 {
        block
    } else {
        let mut n = block.saturating_mul(count);
        let span = d.stride.saturating_mul(count - 1).saturating_add(block);
        let room = clip - d.start;
        if span > room {
            n = n.saturating_sub(span - room);
        }
        n
    }
}

/// The extent a selection unlimited in `d` is clipped to so it holds `slices` slices
/// (`H5S__hyper_get_clip_extent_real`).
fn clip_extent(d: &RegularDim, slices: u64, incl_trail: bool) -> u64 {
    if slices == 0 {
        if incl_trail {
            d.start
        } else {
            0
        }
    } else if d.block == UNLIMITED || d.block == d.stride {
        d.start.saturating_add(slices)
    } else {
        let block = d.block.max(1);
        let count = slices / block;
        let rem = slices - count * block;
        if rem > 0 {
            d.start
                .saturating_add(count.saturating_mul(d.stride))
                .saturating_add(rem)
        } else if incl_trail {
            d.start.saturating_add(count.saturating_mul(d.stride))
        } else {
            d.start
                .saturating_add((count - 1).saturating_mul(d.stride))
                .saturating_add(d.block)
        }
    }
}

/// A regular selection unlimited in dimension `k`, clipped to extent `clip` there
/// (`H5S_hyper_clip_unlim`): the last block may be partial.
fn clipped(dims: &[RegularDim], k: usize, clip: u64, space: &Dataspace) -> Result<Selection> {
    let mut start: Vec<u64> = dims.iter().map(|d| d.start).collect();
    let stride: Vec<u64> = dims.iter().map(|d| d.stride.max(1)).collect();
    let mut count: Vec<u64> = dims.iter().map(|d| d.count).collect();
    let mut block: Vec<u64> = dims.iter().map(|d| d.block).collect();
    let d = dims.get(k).ok_or_else(unsupported)?;
    let (c, b) = if d.count == UNLIMITED || d.block == UNLIMITED {
        clip_diminfo(d, clip)
    } else {
        (d.count, d.block)
    };
    if c == 0 || b == 0 {
        return Ok(Selection::None);
    }
    count[k] = c;
    block[k] = b;
    if count.iter().chain(&block).any(|&x| x == UNLIMITED) {
        return Err(unsupported());
    }
    let span = stride[k].saturating_mul(c - 1).saturating_add(b);
    let room = clip.saturating_sub(d.start);
    if c > 1 && span > room {
        // Whole blocks, then the partial last one.
        let mut sel = Selection::None;
        count[k] = c - 1;
        sel.select_hyperslab(
            space,
            SelectOp::Or,
            &start,
            Some(&stride),
            &count,
            Some(&block),
        )?;
        start[k] = d.start + stride[k] * (c - 1);
        count[k] = 1;
        block[k] = room - stride[k] * (c - 1);
        sel.select_hyperslab(
            space,
            SelectOp::Or,
            &start,
            Some(&stride),
            &count,
            Some(&block),
        )?;
        return Ok(sel);
    }
    Ok(Selection::hyperslab(
        space,
        &start,
        Some(&stride),
        &count,
        Some(&block),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dim(start: u64, stride: u64, count: u64, block: u64) -> RegularDim {
        RegularDim {
            start,
            stride,
            count,
            block,
        }
    }

    #[test]
    fn clip_sizes_like_the_reference() {
        // Unlimited block: the extent is start + slices.
        assert_eq!(clip_extent(&dim(2, 1, 1, UNLIMITED), 5, false), 7);
        // Unlimited count of 1-slice blocks every 4: 5 slices end at 17 (or 20 with the
        // trailing gap).
        let d = dim(1, 4, UNLIMITED, 1);
        assert_eq!(clip_extent(&d, 5, false), 18);
        assert_eq!(clip_extent(&d, 5, true), 21);
        assert_eq!(match_slices(&dim(0, 1, 1, UNLIMITED), 9), 9);
        assert_eq!(match_slices(&dim(0, 4, UNLIMITED, 2), 9), 5);
    }

    #[test]
    fn printf_names() {
        assert_eq!(substitute(b"f-%b.h5", 12), b"f-12.h5");
        assert_eq!(substitute(b"100%%-%b", 3), b"100%-3");
        assert!(has_printf(b"a%b"));
    }
}
