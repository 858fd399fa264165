//! Virtual datasets: each mapping copies a selection of a source dataset (in this file or
//! another, relative to this file's directory) into a selection of the virtual dataset.
//! Sources that cannot be opened read as the fill value, as the reference library does.

use std::collections::HashMap;

use h5_format::vds::VirtualMappings;
use h5_format::{Addr, Cursor};

use crate::dataset::{byte_span, Dataset};
use crate::error::{Error, ErrorKind, Result};
use crate::file::File;
use crate::reference::selection_from_format;
use crate::selection::{MemoryMap, Selection};

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
    let mut opened: HashMap<Vec<u8>, Option<File>> = HashMap::new();
    for m in &maps.entries {
        let vsel = selection_from_format(&m.virtual_selection, space)?;
        let src_file = if m.source_file == b"." {
            Some(file.clone())
        } else {
            opened
                .entry(m.source_file.clone())
                .or_insert_with(|| {
                    let name = String::from_utf8_lossy(&m.source_file).into_owned();
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
        let Some(src_file) = src_file else { continue };
        let name = String::from_utf8_lossy(&m.source_dataset).into_owned();
        let Ok(src) = src_file.dataset(&name) else {
            continue;
        };
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
