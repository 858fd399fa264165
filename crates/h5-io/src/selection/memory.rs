//! The memory side of a transfer: where the `i`-th selected element lives in a memory buffer,
//! and the pairing of file runs with memory runs for gather/scatter.

use std::sync::Arc;

use super::extent::{element_count, row_major_strides};
use super::hyperslab::{Axis, Repr};
use super::runs::Run;
use super::spans::SpanList;
use super::{bail, Dataspace, Error, ErrorKind, Points, Result, Selection};

/// Where selected elements go in memory: element number `i` of the file selection's order
/// is stored at [`MemoryMap::locate`]`(i)`.
#[derive(Clone, Debug)]
pub struct MemoryMap {
    repr: MemRepr,
    n: u64,
    extent: u64,
}

#[derive(Clone, Debug)]
enum MemRepr {
    Packed,
    Product {
        axes: Vec<Axis>,
        lstride: Vec<u64>,
        rstride: Vec<u64>,
        m: usize,
    },
    Tree {
        list: Arc<SpanList>,
        lstride: Vec<u64>,
    },
    Points {
        points: Points,
        lstride: Vec<u64>,
    },
    Strided {
        offset: u64,
        counts: Vec<u64>,
        strides: Vec<u64>,
    },
}

impl MemoryMap {
    /// A buffer holding exactly `n` elements, in the file selection's order (the default
    /// memory dataspace of a read or write).
    pub fn packed(n: u64) -> MemoryMap {
        MemoryMap {
            repr: MemRepr::Packed,
            n,
            extent: n,
        }
    }

    /// A buffer shaped as the memory dataspace `space`, with the elements at `selection`
    /// (visited in its order: row-major for hyperslabs, given order for points).
    pub fn selection(space: &Dataspace, selection: &Selection) -> Result<MemoryMap> {
        selection.validate(space)?;
        let n = selection.npoints(space);
        let extent = space.npoints();
        let dims = space.dims();
        let lstride = row_major_strides(dims);
        let repr = match selection {
            _ if n == 0 || space.rank() == 0 => MemRepr::Packed,
            Selection::None => MemRepr::Packed,
            Selection::All => MemRepr::Packed,
            Selection::Points(p) => MemRepr::Points {
                points: p.clone(),
                lstride,
            },
            Selection::Hyperslab(h) => match &h.repr {
                Repr::Regular(axes) => {
                    let rank = axes.len();
                    let m = (0..rank)
                        .rev()
                        .find(|&k| !(axes[k].start == 0 && axes[k].len() == dims[k]))
                        .unwrap_or(0);
                    let mut rstride = vec![1u64; rank];
                    for k in (0..rank.saturating_sub(1)).rev() {
                        rstride[k] = rstride[k + 1] * axes[k + 1].len();
                    }
                    MemRepr::Product {
                        axes: axes.clone(),
                        lstride,
                        rstride,
                        m,
                    }
                }
                Repr::Spans(list) => MemRepr::Tree {
                    list: list.clone(),
                    lstride,
                },
            },
        };
        Ok(MemoryMap { repr, n, extent })
    }

    /// Element `(i_0, .., i_{r-1})` of the row-major index space `counts` goes to
    /// `offset + sum(i_k * strides_k)` (netCDF's mapped access: `strides` is the index map,
    /// in elements; it may permute dimensions).
    pub fn strided(offset: u64, counts: &[u64], strides: &[u64]) -> Result<MemoryMap> {
        if counts.len() != strides.len() {
            bail!(
                RankMismatch,
                "counts have rank {} but strides have rank {}",
                counts.len(),
                strides.len()
            );
        }
        let n = element_count(counts)?;
        let mut last = offset;
        if n > 0 {
            for (k, (&c, &s)) in counts.iter().zip(strides).enumerate() {
                last = (c - 1)
                    .checked_mul(s)
                    .and_then(|x| x.checked_add(last))
                    .ok_or_else(|| {
                        Error::new(
                            ErrorKind::Overflow,
                            format!("memory offset overflows 64 bits in dim {k}"),
                        )
                    })?;
            }
        }
        // Normalize: drop dimensions of count 1, merge a dimension into the next faster one
        // when they are laid out contiguously.
        let mut nc: Vec<u64> = Vec::new();
        let mut ns: Vec<u64> = Vec::new();
        for (&c, &s) in counts.iter().zip(strides) {
            if c == 1 {
                continue;
            }
            nc.push(c);
            ns.push(s);
        }
        let mut k = nc.len();
        while k >= 2 {
            k -= 1;
            if ns[k - 1] == nc[k] * ns[k] {
                nc[k - 1] *= nc[k];
                ns[k - 1] = ns[k];
                nc.remove(k);
                ns.remove(k);
            }
        }
        Ok(MemoryMap {
            repr: MemRepr::Strided {
                offset,
                counts: nc,
                strides: ns,
            },
            n,
            extent: if n == 0 { 0 } else { last + 1 },
        })
    }

    /// The number of elements placed.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// Whether no element is placed.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Whether no two elements go to the same place in memory: a packed buffer, a
    /// hyperslab of a memory dataspace, or a netCDF map whose strides nest (each at least
    /// the span of the faster dimensions). A point list or any other map may repeat a place.
    pub(crate) fn places_once(&self) -> bool {
        match &self.repr {
            MemRepr::Packed | MemRepr::Product { .. } | MemRepr::Tree { .. } => true,
            MemRepr::Points { .. } => false,
            MemRepr::Strided {
                counts, strides, ..
            } => {
                let mut span = 1u64;
                for (&c, &s) in counts.iter().zip(strides).rev() {
                    if s < span {
                        return false;
                    }
                    match c.checked_mul(s) {
                        Some(x) => span = x,
                        None => return false,
                    }
                }
                true
            }
        }
    }

    /// The buffer length in elements that the placement needs.
    pub fn extent(&self) -> u64 {
        self.extent
    }

    /// The memory offset of element `rank` (in the file selection's order) and how many
    /// elements from it on are contiguous in memory (at least 1). For `rank >= len()` the
    /// answer is meaningless but still has a length of at least 1.
    pub fn locate(&self, rank: u64) -> (u64, u64) {
        match &self.repr {
            MemRepr::Packed => (rank, self.n.saturating_sub(rank).max(1)),
            MemRepr::Product {
                axes,
                lstride,
                rstride,
                m,
            } => {
                let m = *m;
                let mut q = rank / rstride[m];
                let rem = rank % rstride[m];
                let mut off = rem;
                let mut contiguous = 1;
                for k in (0..=m).rev() {
                    let len = axes[k].len();
                    let rk = q % len;
                    q /= len;
                    let (c, left) = axes[k].coord_of_rank(rk);
                    off = off.saturating_add(c.saturating_mul(lstride[k]));
                    if k == m {
                        contiguous = (left * lstride[m]).saturating_sub(rem).max(1);
                    }
                }
                (off, contiguous)
            }
            MemRepr::Tree { list, lstride } => {
                let mut node: &SpanList = list;
                let mut r = rank;
                let mut off = 0u64;
                for &ls in lstride {
                    let idx = node
                        .spans
                        .partition_point(|s| s.prefix <= r)
                        .saturating_sub(1);
                    let Some(s) = node.spans.get(idx) else {
                        return (off, 1);
                    };
                    let within = r.saturating_sub(s.prefix);
                    let dn = s.down_count();
                    let c = s.low + within / dn;
                    r = within % dn;
                    off = off.saturating_add(c.saturating_mul(ls));
                    match &s.down {
                        Some(d) => node = d,
                        None => return (off, (s.high.saturating_sub(c) + 1).max(1)),
                    }
                }
                (off, 1)
            }
            MemRepr::Points { points, lstride } => {
                let off = usize::try_from(rank)
                    .ok()
                    .and_then(|i| points.get(i))
                    .map_or(u64::MAX, |pt| {
                        pt.iter().zip(lstride).map(|(c, s)| c * s).sum()
                    });
                (off, 1)
            }
            MemRepr::Strided {
                offset,
                counts,
                strides,
            } => {
                let mut q = rank;
                let mut off = *offset;
                let mut contiguous = 1;
                for k in (0..counts.len()).rev() {
                    let i = q % counts[k];
                    q /= counts[k];
                    off = off.saturating_add(i.saturating_mul(strides[k]));
                    if k + 1 == counts.len() && strides[k] == 1 {
                        contiguous = counts[k] - i;
                    }
                }
                (off, contiguous)
            }
        }
    }

    /// Pair the file-side `runs` of a selection of `file_npoints` elements with this
    /// placement. Errors when the counts differ.
    pub fn transfer<I: Iterator<Item = Run>>(
        &self,
        file_npoints: u64,
        runs: I,
    ) -> Result<Transfer<'_, I>> {
        if file_npoints != self.n {
            bail!(
                CountMismatch,
                "the file selection has {file_npoints} elements but memory has {}",
                self.n
            );
        }
        Ok(Transfer {
            runs,
            mem: self,
            cur: None,
            pending: None,
        })
    }
}

/// `len` elements contiguous both at element `file` of the file layout and at element
/// `mem` of the memory buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pair {
    /// Offset in elements in the file layout (dataset or chunk).
    pub file: u64,
    /// Offset in elements in the memory buffer.
    pub mem: u64,
    /// Number of elements.
    pub len: u64,
}

/// File runs paired with memory runs (see [`MemoryMap::transfer`]); maximal pairs.
#[derive(Debug)]
pub struct Transfer<'m, I> {
    runs: I,
    mem: &'m MemoryMap,
    cur: Option<Run>,
    pending: Option<Pair>,
}

impl<I: Iterator<Item = Run>> Iterator for Transfer<'_, I> {
    type Item = Pair;

    fn next(&mut self) -> Option<Pair> {
        loop {
            let run = match self.cur.take().filter(|r| r.len > 0) {
                Some(r) => r,
                None => match self.runs.next() {
                    Some(r) => {
                        self.cur = Some(r);
                        continue;
                    }
                    None => return self.pending.take(),
                },
            };
            let (m, c) = self.mem.locate(run.rank);
            let n = run.len.min(c.max(1));
            let pair = Pair {
                file: run.offset,
                mem: m,
                len: n,
            };
            if n < run.len {
                self.cur = Some(Run {
                    offset: run.offset + n,
                    rank: run.rank + n,
                    len: run.len - n,
                });
            }
            match &mut self.pending {
                Some(p) if p.file + p.len == pair.file && p.mem + p.len == pair.mem => {
                    p.len += pair.len;
                }
                Some(_) => return self.pending.replace(pair),
                None => self.pending = Some(pair),
            }
        }
    }
}

fn byte_range(
    off: u64,
    len: u64,
    total: usize,
    elem_size: usize,
    what: &str,
) -> Result<std::ops::Range<usize>> {
    let start = usize::try_from(off)
        .ok()
        .and_then(|o| o.checked_mul(elem_size));
    let n = usize::try_from(len)
        .ok()
        .and_then(|l| l.checked_mul(elem_size));
    match (start, n) {
        (Some(s), Some(n)) if s.checked_add(n).is_some_and(|e| e <= total) => Ok(s..s + n),
        _ => bail!(
            CountMismatch,
            "{what} buffer of {total} bytes is too short for {len} elements of {elem_size} bytes at element {off}"
        ),
    }
}

/// A read: copy elements of `elem_size` bytes along `pairs` from a file-side buffer (the
/// dataset's or one chunk's bytes) into a memory buffer. Errors when a pair reaches outside
/// either buffer (pairs before it are copied).
pub fn copy_to_memory(
    pairs: impl IntoIterator<Item = Pair>,
    file: &[u8],
    mem: &mut [u8],
    elem_size: usize,
) -> Result<()> {
    for p in pairs {
        let f = byte_range(p.file, p.len, file.len(), elem_size, "file-side")?;
        let m = byte_range(p.mem, p.len, mem.len(), elem_size, "memory")?;
        mem[m].copy_from_slice(&file[f]);
    }
    Ok(())
}

/// A write: copy elements of `elem_size` bytes along `pairs` from a memory buffer into a
/// file-side buffer. Errors when a pair reaches outside either buffer (pairs before it are
/// copied).
pub fn copy_to_file(
    pairs: impl IntoIterator<Item = Pair>,
    mem: &[u8],
    file: &mut [u8],
    elem_size: usize,
) -> Result<()> {
    for p in pairs {
        let f = byte_range(p.file, p.len, file.len(), elem_size, "file-side")?;
        let m = byte_range(p.mem, p.len, mem.len(), elem_size, "memory")?;
        file[f].copy_from_slice(&mem[m]);
    }
    Ok(())
}
