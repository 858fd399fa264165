//! Dataset region references: the dataset's address and an encoded selection in a global
//! heap object, named by 12 bytes (collection address and object index).

use h5_format::reference::RegionReferenceData;
use h5_format::selection::{Block, Selection as FormatSelection};
use h5_format::{Addr, Writer};

use super::file::{FileWriter, ObjId, ObjectKind};
use super::{ensure, Result};
use crate::selection::{Dataspace, Selection};

/// The blocks of a selection on `space`: regular hyperslabs by their axes, anything else by
/// its runs cut at row ends.
fn blocks(sel: &Selection, space: &Dataspace) -> Result<Vec<Block>> {
    let dims = space.dims().to_vec();
    let rank = dims.len();
    if let Some(axes) = sel.as_hyperslab().and_then(|h| h.regular()) {
        let mut out = Vec::new();
        let counts: Vec<u64> = axes.iter().map(|a| a.count).collect();
        let total: u64 = counts.iter().product();
        for i in 0..total {
            let mut rem = i;
            let mut start = vec![0u64; rank];
            let mut end = vec![0u64; rank];
            for k in (0..rank).rev() {
                let j = rem % counts[k];
                rem /= counts[k];
                start[k] = axes[k].start + j * axes[k].stride;
                end[k] = start[k] + axes[k].block - 1;
            }
            out.push(Block { start, end });
        }
        return Ok(out);
    }
    let last = dims.last().copied().unwrap_or(1).max(1);
    let mut out = Vec::new();
    for r in sel.runs(space)? {
        let mut off = r.offset;
        let mut left = r.len;
        while left > 0 {
            let col = off % last;
            let n = left.min(last - col);
            let mut start = vec![0u64; rank];
            let mut rem = off;
            for k in (0..rank).rev() {
                start[k] = rem % dims[k];
                rem /= dims[k];
            }
            let mut end = start.clone();
            if let Some(e) = end.last_mut() {
                *e += n - 1;
            }
            out.push(Block { start, end });
            off += n;
            left -= n;
        }
    }
    Ok(out)
}

impl FileWriter {
    /// A dataset region reference (`H5R_DATASET_REGION`) to the elements of `selection` of
    /// dataset `ds`: its 12 stored bytes.
    pub fn region_reference(&mut self, ds: ObjId, selection: &Selection) -> Result<[u8; 12]> {
        ensure!(
            self.kind(ds)? == ObjectKind::Dataset,
            InvalidArgument,
            "{} is not a dataset",
            self.object_path(ds)?
        );
        let space = self.dataset_space(ds)?.clone();
        selection.validate(&space)?;
        let rank = space.dims().len() as u32;
        let encoded = match selection {
            Selection::All => FormatSelection::All,
            Selection::None => FormatSelection::None,
            Selection::Points(p) => FormatSelection::PointsV1 {
                rank,
                points: p.iter().map(<[u64]>::to_vec).collect(),
            },
            Selection::Hyperslab(_) => FormatSelection::HyperslabV1 {
                rank,
                blocks: blocks(selection, &space)?,
            },
        };
        let data = RegionReferenceData {
            object: Addr(self.address(ds)?),
            selection: encoded,
        };
        let mut w = Writer::new(self.sizes);
        data.encode(&mut w);
        let id = self.gheap_insert(w.into_vec())?;
        let mut w = Writer::new(self.sizes);
        id.encode(&mut w);
        let mut out = [0u8; 12];
        out.copy_from_slice(w.as_slice());
        Ok(out)
    }
}
