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
    plan: Plan,
}

#[derive(Clone, Debug)]
pub(crate) struct CompoundPlan {
    members: Vec<MemberPlan>,
    /// The destination members the source does not have (for strict conversions).
    missing: Vec<String>,
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
                plan,
            });
        }
        let missing = d
            .members
            .iter()
            .filter(|dm| !s.members.iter().any(|sm| sm.name == dm.name))
            .map(|dm| dm.name.clone())
            .collect();
        Ok(CompoundPlan { members, missing })
    }

    pub(crate) fn is_stateless(&self) -> bool {
        self.members.iter().all(|m| m.plan.is_stateless())
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
