//! Compound to compound (`H5T__conv_struct`), arrays and complex numbers.
//!
//! Compound members are matched by name. Each matched pair is converted by its own compiled
//! path, directly from the source member's bytes to the destination member's bytes with the
//! compounds' strides (a gather/scatter over all elements per member). Destination bytes
//! that no matched member covers keep their previous contents: the destination buffer is the
//! background, so members absent from the source are kept.

use super::except::Ctx;
use super::plan::Plan;
use super::Kernel;
use crate::{CompoundType, Datatype, Error, ErrorKind, Loss, Result};

#[derive(Clone, Debug)]
pub(crate) struct MemberPlan {
    src_offset: usize,
    dst_offset: usize,
    dst_size: usize,
    plan: Plan,
}

#[derive(Clone, Debug)]
pub(crate) struct CompoundPlan {
    members: Vec<MemberPlan>,
    /// The destination members the source does not have (for strict conversions).
    missing: Vec<String>,
    /// When every matched member is copied unchanged (equal member types), the byte runs
    /// to copy, adjacent members merged: the compound is then converted element by
    /// element with no member kernel at all.
    copies: Option<Copies>,
    /// Whether the matched members write every byte of the destination (so that the
    /// destination's previous contents cannot show when no handler is installed).
    covers: bool,
}

/// One run of bytes copied from each source element to each destination element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    src: usize,
    dst: usize,
    len: usize,
}

/// The runs of a compound whose members are all copied.
#[derive(Clone, Debug)]
struct Copies {
    runs: Vec<Run>,
}

impl Copies {
    fn of(members: &[MemberPlan]) -> Option<Copies> {
        let mut runs = Vec::with_capacity(members.len());
        for m in members {
            let Plan::Noop { size } = m.plan else {
                return None;
            };
            if size > 0 {
                runs.push(Run {
                    src: m.src_offset,
                    dst: m.dst_offset,
                    len: size,
                });
            }
        }
        runs.sort_by_key(|r| r.dst);
        if runs.windows(2).any(|w| w[0].dst + w[0].len > w[1].dst) {
            // Overlapping destination members: the member order decides; not for here.
            return None;
        }
        let mut merged: Vec<Run> = Vec::with_capacity(runs.len());
        for r in runs {
            match merged.last_mut() {
                Some(last) if last.src + last.len == r.src && last.dst + last.len == r.dst => {
                    last.len += r.len;
                }
                _ => merged.push(r),
            }
        }
        Some(Copies { runs: merged })
    }

    /// Copy the runs of `n` elements, element `i` at `src[i * ss..]` and `dst[i * ds..]`
    /// (each run lies inside its element's stride), run by run: a strided loop whose copy
    /// has a fixed length for the common lengths, so each element is a load and a store.
    fn run(&self, src: &[u8], ss: usize, dst: &mut [u8], ds: usize, n: usize) {
        if n == 0 {
            return;
        }
        for r in &self.runs {
            let s = &src[r.src..r.src + (n - 1) * ss + r.len];
            let d = &mut dst[r.dst..r.dst + (n - 1) * ds + r.len];
            // All elements but the last as whole strides; the last is what follows.
            let (s_head, s_last) = s.split_at((n - 1) * ss);
            let (d_head, d_last) = d.split_at_mut((n - 1) * ds);
            d_last.copy_from_slice(s_last);
            if n == 1 {
                continue;
            }
            macro_rules! strided {
                ($l:expr) => {
                    for (a, b) in s_head.chunks_exact(ss).zip(d_head.chunks_exact_mut(ds)) {
                        b[..$l].copy_from_slice(&a[..$l]);
                    }
                };
            }
            match r.len {
                1 => strided!(1),
                2 => strided!(2),
                4 => strided!(4),
                8 => strided!(8),
                16 => strided!(16),
                len => strided!(len),
            }
        }
    }
}

/// Whether a member's path writes every byte of each destination element (then the
/// background cannot show through it).
fn writes_whole_element(p: &Plan) -> bool {
    match p {
        Plan::Noop { .. }
        | Plan::Swap { .. }
        | Plan::IntFast(_)
        | Plan::HardFloatFloat(_)
        | Plan::HardIntFloat(_)
        | Plan::HardFloatInt(_)
        | Plan::SoftIntFloat(_)
        | Plan::SoftFloatInt(_) => true,
        Plan::Compound(c) => c.covers,
        Plan::Array(a) => writes_whole_element(&a.base),
        _ => false,
    }
}

impl CompoundPlan {
    pub(crate) fn new(
        s: &CompoundType,
        d: &CompoundType,
        src: &Datatype,
        dst: &Datatype,
    ) -> Result<CompoundPlan> {
        let mut members = Vec::new();
        for sm in &s.members {
            let Some(dm) = d.members.iter().find(|m| m.name == sm.name) else {
                continue;
            };
            let plan = Plan::new(&sm.datatype, &dm.datatype).map_err(|e| {
                Error::new(
                    ErrorKind::NoConversionPath,
                    format!(
                        "no conversion path from {} to {}: member {:?}: {}",
                        super::plan::describe(src),
                        super::plan::describe(dst),
                        sm.name,
                        e.message()
                    ),
                )
            })?;
            let fits = sm.offset + sm.datatype.size() <= s.size
                && dm.offset + dm.datatype.size() <= d.size;
            if !fits {
                return Err(Error::new(
                    ErrorKind::NoConversionPath,
                    format!("compound member {:?} extends past its compound", sm.name),
                ));
            }
            members.push(MemberPlan {
                src_offset: sm.offset,
                dst_offset: dm.offset,
                dst_size: dm.datatype.size(),
                plan,
            });
        }
        let missing = d
            .members
            .iter()
            .filter(|dm| !s.members.iter().any(|sm| sm.name == dm.name))
            .map(|dm| dm.name.clone())
            .collect();
        // Covered: the matched members' destination ranges, sorted, leave no gap.
        let mut ranges: Vec<(usize, usize)> = members
            .iter()
            .filter(|m| writes_whole_element(&m.plan))
            .map(|m| (m.dst_offset, m.dst_offset + m.dst_size))
            .collect();
        ranges.sort_unstable();
        let mut end = 0;
        for (a, b) in ranges {
            if a <= end {
                end = end.max(b);
            }
        }
        let covers = end >= d.size;
        let copies = Copies::of(&members);
        Ok(CompoundPlan {
            members,
            missing,
            copies,
            covers,
        })
    }

    pub(crate) fn is_stateless(&self) -> bool {
        self.members.iter().all(|m| m.plan.is_stateless())
    }

    /// Whether every byte of each destination element is written (see
    /// [`Plan::overwrites_dst`]).
    pub(crate) fn covers(&self) -> bool {
        self.covers
    }
}

impl Kernel for CompoundPlan {
    fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        if ctx.strict {
            if let Some(name) = self.missing.first() {
                ctx.lossy(0, Loss::MissingMember, || format!("member {name:?}"));
            }
        }
        if let Some(copies) = &self.copies {
            copies.run(src, ss, dst, ds, n);
            return Ok(());
        }
        // The reference converts member by member over all elements. When nothing can see
        // the order in which elements are visited (no handler, no netCDF bookkeeping) and
        // no member path carries state from one element to the next, the same results come
        // block by block, with each block of the source read from cache by every member.
        let block = if !ctx.per_element() && self.is_stateless() {
            (BLOCK_BYTES / ss.max(ds).max(1)).max(1)
        } else {
            n
        };
        let base = ctx.base;
        let mut result = Ok(());
        let mut start = 0;
        'blocks: while start < n {
            let len = block.min(n - start);
            ctx.base = base + start;
            for m in &self.members {
                result = m.plan.run(
                    &src[start * ss + m.src_offset..],
                    ss,
                    &mut dst[start * ds + m.dst_offset..],
                    ds,
                    len,
                    ctx,
                );
                if result.is_err() {
                    break 'blocks;
                }
            }
            start += len;
        }
        ctx.base = base;
        result
    }
}

/// The bytes of source or destination elements converted per block of a compound.
const BLOCK_BYTES: usize = 64 * 1024;

/// Arrays of the same shape (and complex numbers as arrays of two parts): the base path,
/// once per array element, as the reference library does it.
#[derive(Clone, Debug)]
pub(crate) struct ArrayPlan {
    pub(crate) count: usize,
    pub(crate) src_base: usize,
    pub(crate) dst_base: usize,
    pub(crate) base: Plan,
}

impl Kernel for ArrayPlan {
    fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()> {
        let (b0, d0) = (ctx.base, ctx.div);
        let mut result = Ok(());
        for i in 0..n {
            ctx.base = ctx_outer(b0, d0, i) * self.count;
            ctx.div = self.count;
            result = self.base.run(
                &src[i * ss..],
                self.src_base,
                &mut dst[i * ds..],
                self.dst_base,
                self.count,
                ctx,
            );
            if result.is_err() {
                break;
            }
        }
        ctx.base = b0;
        ctx.div = d0;
        result
    }
}

pub(crate) fn ctx_outer(base: usize, div: usize, i: usize) -> usize {
    (base + i) / div.max(1)
}
