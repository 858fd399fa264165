//! Enum to enum conversion (`H5T__conv_enum`): by member name.
//!
//! Every source member must have a destination member of the same name (otherwise there
//! is no path). A source value that is no member's value raises `RangeHi`; the default
//! action sets every byte of the destination element to `0xff`.

use super::except::{Action, Ctx, ExceptionKind, Special};
use super::Kernel;
use crate::{EnumType, Loss, Result};

#[derive(Clone, Debug)]
pub(crate) struct EnumPlan {
    src_size: usize,
    dst_size: usize,
    /// (source raw value, destination raw value), sorted by source value bytes.
    map: Vec<(Vec<u8>, Vec<u8>)>,
}

impl EnumPlan {
    pub(crate) fn new(src: &EnumType, dst: &EnumType) -> std::result::Result<EnumPlan, String> {
        let mut map = Vec::with_capacity(src.members.len());
        for m in &src.members {
            let Some(d) = dst.members.iter().find(|d| d.name == m.name) else {
                return Err(format!(
                    "source member {:?} has no destination member of that name",
                    m.name
                ));
            };
            map.push((m.value.clone(), d.value.clone()));
        }
        map.sort();
        Ok(EnumPlan {
            src_size: src.size(),
            dst_size: dst.size(),
            map,
        })
    }
}

impl Kernel for EnumPlan {
    fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()> {
        for i in 0..n {
            let se = &src[i * ss..i * ss + self.src_size];
            let de = &mut dst[i * ds..i * ds + self.dst_size];
            match self.map.binary_search_by(|(k, _)| k.as_slice().cmp(se)) {
                Ok(j) => de.copy_from_slice(&self.map[j].1),
                Err(_) => {
                    let loss = Some(Loss::NoEnumMember);
                    if ctx.raise_as(ExceptionKind::RangeHi, i, se, de, Special::None, loss)?
                        == Action::Unhandled
                    {
                        de.fill(0xff);
                    }
                }
            }
        }
        Ok(())
    }
}
