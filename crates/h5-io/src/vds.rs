//! Virtual datasets: each mapping copies a selection of a source dataset (in this file or
//! another, relative to this file's directory) into a selection of the virtual dataset.
//! Sources that cannot be opened read as the fill value, as the reference library does.

use std::collections::HashMap;

use h5_format::selection::{RegularDim, Selection as FormatSelection};
use h5_format::vds::{VirtualMapping, VirtualMappings};
use h5_format::{Addr, Cursor};

use crate::dataset::{byte_span, Dataset};
use crate::error::{Error, ErrorKind, Result};
use crate::file::File;
use crate::reference::selection_from_format;
use crate::selection::{Dataspace, MemoryMap, Selection, UNLIMITED};

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
    let bytes = file.global_heap_object(heap, index)?;
    let maps = VirtualMappings::parse(&mut Cursor::new(&bytes, 0, file.sizes()))?;
    let space = ds.dataspace();
    let esize = ds.element_size();
    let n = sel.npoints(space);
    // Where each selected element of the virtual dataset goes: (virtual offset, out offset,
    // length), sorted by virtual offset.
    let mut targets: Vec<(u64, u64, u64)> = mem
        .transfer(n, sel.runs(space)?)?
        .map(|p| (p.file, p.mem, p.len))
        .collect();
    targets.sort_unstable();
    for (m, src) in resolve(file, &maps)? {
        let Some(src) = src else { continue };
        let name = String::from_utf8_lossy(&m.source_dataset).into_owned();
        let vsel = selection_from_format(&m.virtual_selection, space)?;
        if src.element_size() != esize {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!("virtual source {name} has another element size"),
            ));
        }
        let ssel = selection_from_format(&m.source_selection, src.dataspace())?;
        let count = ssel.npoints(src.dataspace());
        if count != vsel.npoints(space) {
            return Err(Error::new(
                ErrorKind::Format,
                format!("virtual mapping to {name}: selections of different sizes"),
            ));
        }
        let data = src.read_raw_selection(&ssel, &MemoryMap::packed(count))?;
        for r in vsel.runs(space)? {
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

/// The mappings of a virtual dataset with their source datasets opened (`None` when the
/// source cannot be opened) and unlimited selections clipped to the sources' extents.
pub(crate) fn resolve(
    file: &File,
    maps: &VirtualMappings,
) -> Result<Vec<(VirtualMapping, Option<Dataset>)>> {
    let mut opened: HashMap<Vec<u8>, Option<File>> = HashMap::new();
    let mut open = |name: &[u8]| -> Option<File> {
        if name == b"." {
            return Some(file.clone());
        }
        opened
            .entry(name.to_vec())
            .or_insert_with(|| {
                let name = String::from_utf8_lossy(name).into_owned();
                let p = std::path::PathBuf::from(&name);
                let p = if p.is_absolute() {
                    p
                } else {
                    file.path()
                        .and_then(|f| f.parent())
                        .map_or(p.clone(), |d| d.join(&p))
                };
                File::open_with(&p, file.options().clone()).ok()
            })
            .clone()
    };
    let mut out = Vec::new();
    for m in &maps.entries {
        if has_printf(&m.source_file) || has_printf(&m.source_dataset) {
            // One source per block of the virtual selection's unlimited dimension, named by
            // the block number, until the first that does not exist.
            for i in 0..MAX_PRINTF_SOURCES {
                let sf = substitute(&m.source_file, i);
                let sd = substitute(&m.source_dataset, i);
                let Some(src) =
                    open(&sf).and_then(|f| f.dataset(&String::from_utf8_lossy(&sd)).ok())
                else {
                    break;
                };
                let mut vsel = m.virtual_selection.clone();
                let vd = regular_mut(&mut vsel).ok_or_else(|| {
                    Error::new(
                        ErrorKind::Unsupported,
                        "printf-style mapping without a regular hyperslab",
                    )
                })?;
                for d in vd.iter_mut() {
                    if d.count == u64::MAX {
                        d.start = d.start.saturating_add(i.saturating_mul(d.stride));
                        d.count = 1;
                    }
                }
                let mut ssel = m.source_selection.clone();
                if unlimited(&ssel) {
                    let dims = src.dataspace().dims().to_vec();
                    let mut dummy = vsel.clone();
                    clip(&mut ssel, &mut dummy, &dims)?;
                }
                out.push((
                    VirtualMapping {
                        source_file: sf,
                        source_dataset: sd,
                        source_selection: ssel,
                        virtual_selection: vsel,
                    },
                    Some(src),
                ));
            }
            continue;
        }
        let name = String::from_utf8_lossy(&m.source_dataset).into_owned();
        let src = open(&m.source_file).and_then(|f| f.dataset(&name).ok());
        let mut m = m.clone();
        if unlimited(&m.source_selection) || unlimited(&m.virtual_selection) {
            match &src {
                Some(d) => {
                    let dims = d.dataspace().dims().to_vec();
                    clip(&mut m.source_selection, &mut m.virtual_selection, &dims)?;
                }
                None => continue,
            }
        }
        out.push((m, src));
    }
    Ok(out)
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

fn regular_mut(s: &mut FormatSelection) -> Option<&mut Vec<RegularDim>> {
    match s {
        FormatSelection::HyperslabV2 { dims }
        | FormatSelection::HyperslabV3Regular { dims, .. } => Some(dims),
        _ => None,
    }
}

fn unlimited(s: &FormatSelection) -> bool {
    match s {
        FormatSelection::HyperslabV2 { dims }
        | FormatSelection::HyperslabV3Regular { dims, .. } => dims
            .iter()
            .any(|d| d.count == u64::MAX || d.block == u64::MAX),
        _ => false,
    }
}

/// Clip unlimited counts or blocks of the source selection to the source extent `dims`, and
/// the virtual selection's to match.
fn clip(src: &mut FormatSelection, virt: &mut FormatSelection, dims: &[u64]) -> Result<()> {
    let unsupported = || Error::new(ErrorKind::Unsupported, "this unlimited virtual mapping");
    let sd = regular_mut(src).ok_or_else(unsupported)?;
    let mut n_per_dim = Vec::with_capacity(sd.len());
    for (k, d) in sd.iter_mut().enumerate() {
        let ext = dims.get(k).copied().unwrap_or(0);
        if d.block == u64::MAX {
            let b = ext.saturating_sub(d.start);
            d.block = b;
            n_per_dim.push((k, None, Some(b)));
        } else if d.count == u64::MAX {
            let n = if ext >= d.start.saturating_add(d.block) {
                (ext - d.start - d.block) / d.stride.max(1) + 1
            } else {
                0
            };
            d.count = n;
            n_per_dim.push((k, Some(n), None));
        }
    }
    let vd = regular_mut(virt).ok_or_else(unsupported)?;
    let src_has = |k: usize| n_per_dim.iter().find(|x| x.0 == k).copied();
    // The virtual selection's unlimited dimension takes the source's count (or block).
    let src_unlim: Vec<_> = n_per_dim.clone();
    for (k, d) in vd.iter_mut().enumerate() {
        if d.block == u64::MAX || d.count == u64::MAX {
            let (_, n, b) = src_has(k)
                .or_else(|| src_unlim.first().copied())
                .ok_or_else(unsupported)?;
            if d.block == u64::MAX {
                d.block = b.or(n).unwrap_or(0);
            } else {
                d.count = n.or(b).unwrap_or(0);
            }
        }
    }
    Ok(())
}

/// The current extent of a virtual dataset whose dataspace has unlimited dimensions: the
/// stored sizes grown to hold every mapping's (clipped) virtual selection.
pub(crate) fn virtual_extent(
    file: &File,
    heap: Addr,
    index: u32,
    space: &Dataspace,
) -> Result<Dataspace> {
    let bytes = file.global_heap_object(heap, index)?;
    let maps = VirtualMappings::parse(&mut Cursor::new(&bytes, 0, file.sizes()))?;
    // Unlimited dimensions take their size from the mappings alone.
    let mut dims: Vec<u64> = space
        .dims()
        .iter()
        .zip(space.maxdims())
        .map(|(&d, &m)| if m == UNLIMITED { 0 } else { d })
        .collect();
    for (m, _) in resolve(file, &maps)? {
        if let Some(vd) = match &m.virtual_selection {
            FormatSelection::HyperslabV2 { dims }
            | FormatSelection::HyperslabV3Regular { dims, .. } => Some(dims),
            _ => None,
        } {
            for (k, d) in vd.iter().enumerate() {
                if d.count == 0 || d.block == 0 {
                    continue;
                }
                let end = d
                    .start
                    .saturating_add((d.count - 1).saturating_mul(d.stride))
                    .saturating_add(d.block);
                if let Some(x) = dims.get_mut(k) {
                    if space.maxdims().get(k) == Some(&UNLIMITED) {
                        *x = (*x).max(end);
                    }
                }
            }
        }
    }
    Ok(Dataspace::with_max(&dims, space.maxdims())?)
}
