//! Dataset-specific ("local") client data, as the reference library's `set_local`
//! callbacks compute it when a dataset is created (used by the codecs' `set_local`).

use h5_types::{ByteOrder, Datatype, Sign, StringSize};

use super::{bail, ensure, nbit, scaleoffset, szip, Filter, FilterId, LocalInfo, Result};

/// The dataset's fill value, as scale-offset records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FillValue<'a> {
    /// No fill value (`H5D_FILL_VALUE_UNDEFINED`).
    Undefined,
    /// The library's default fill value (zero bytes).
    Default,
    /// A user fill value: one element in the dataset's datatype (its byte order).
    User(&'a [u8]),
}

fn order_code(order: Option<ByteOrder>, id: FilterId) -> Result<u32> {
    match order {
        Some(ByteOrder::LittleEndian) => Ok(0),
        Some(ByteOrder::BigEndian) => Ok(1),
        other => bail!(InvalidParameters, id, "datatype byte order {other:?}"),
    }
}

pub(super) fn to_u32(v: usize, id: FilterId, what: &str) -> Result<u32> {
    match u32::try_from(v) {
        Ok(x) => Ok(x),
        Err(_) => bail!(InvalidParameters, id, "{what} {v} does not fit 32 bits"),
    }
}

/// The number of elements in a chunk of `chunk_dims`, as the 32-bit value the client data
/// of several filters holds.
pub(super) fn npoints(id: FilterId, chunk_dims: &[u64]) -> Result<u32> {
    let n = chunk_dims
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d))
        .and_then(|n| u32::try_from(n).ok());
    match n {
        Some(n) => Ok(n),
        None => bail!(InvalidParameters, id, "chunk has too many elements"),
    }
}

/// The chunk size in bytes, as a 32-bit client data value.
pub(super) fn chunk_bytes(id: FilterId, local: &LocalInfo<'_>) -> Result<u32> {
    let n = npoints(id, local.chunk_dims)?;
    to_u32(
        (n as usize).saturating_mul(local.datatype.size()),
        id,
        "chunk size",
    )
}

pub(super) fn szip_local(
    filter: &Filter,
    datatype: &Datatype,
    chunk_dims: &[u64],
    npoints: u32,
) -> Result<Vec<u32>> {
    let id = FilterId::SZIP;
    let (&mask, &ppb) = match filter.client_data.as_slice() {
        [m, p, ..] => (m, p),
        _ => bail!(
            InvalidParameters,
            id,
            "expected options mask and pixels per block"
        ),
    };
    ensure!(
        (2..=32).contains(&ppb) && ppb % 2 == 0,
        InvalidParameters,
        id,
        "pixels per block {ppb} (must be even, 2 to 32)"
    );
    let bits = datatype.size() * 8;
    ensure!(
        bits > 0 && (bits <= 32 || bits == 64),
        InvalidParameters,
        id,
        "datatype size {} is not 1 to 4 or 8 bytes",
        datatype.size()
    );
    let order = order_code(datatype.order(), id)?;
    let (mut precision, offset) = match datatype.atomic() {
        Some(a) => (a.precision(), a.offset()),
        None => (bits, 0),
    };
    ensure!(precision > 0, InvalidParameters, id, "datatype precision 0");
    if precision < bits && offset != 0 {
        precision = bits;
    }
    if precision > 24 {
        precision = if precision <= 32 { 32 } else { 64 };
    }
    let Some(&scanline) = chunk_dims.last() else {
        bail!(InvalidParameters, id, "chunk has no dimensions");
    };
    // SZ_MAX_PIXELS_PER_SCANLINE and SZ_MAX_BLOCKS_PER_SCANLINE.
    const MAX_PIXELS_PER_SCANLINE: u64 = 4096;
    const MAX_BLOCKS_PER_SCANLINE: u64 = 128;
    let ppb64 = u64::from(ppb);
    let scanline = if scanline < ppb64 {
        ensure!(
            u64::from(npoints) >= ppb64,
            InvalidParameters,
            id,
            "pixels per block greater than the number of elements in the chunk"
        );
        (ppb64 * MAX_BLOCKS_PER_SCANLINE).min(u64::from(npoints))
    } else if scanline <= MAX_PIXELS_PER_SCANLINE {
        (ppb64 * MAX_BLOCKS_PER_SCANLINE).min(scanline)
    } else {
        ppb64 * MAX_BLOCKS_PER_SCANLINE
    };
    let mut mask = mask & !(szip::OPTION_LSB | szip::OPTION_MSB);
    mask |= if order == 0 {
        szip::OPTION_LSB
    } else {
        szip::OPTION_MSB
    };
    Ok(vec![
        mask,
        ppb,
        precision as u32,
        to_u32(scanline as usize, id, "pixels per scanline")?,
    ])
}

/// Most client data values n-bit may use (`H5Z_NBIT_MAX_NPARMS`).
const NBIT_MAX_NPARMS: usize = 4096;

pub(super) fn nbit_local(datatype: &Datatype, npoints: u32) -> Result<Vec<u32>> {
    let id = FilterId::NBIT;
    let mut cd = vec![0, 0, npoints];
    let mut need_not_compress = true;
    match datatype {
        Datatype::Integer(_) | Datatype::Float(_) => {
            nbit_atomic(datatype, &mut cd, &mut need_not_compress)?;
        }
        Datatype::Array(_) => nbit_array(datatype, &mut cd, &mut need_not_compress, 0)?,
        Datatype::Compound(_) => nbit_compound(datatype, &mut cd, &mut need_not_compress, 0)?,
        _ => {}
    }
    ensure!(
        cd.len() <= NBIT_MAX_NPARMS,
        InvalidParameters,
        id,
        "datatype needs {} n-bit parameters, at most {NBIT_MAX_NPARMS} are allowed",
        cd.len()
    );
    cd[0] = cd.len() as u32;
    cd[1] = u32::from(need_not_compress);
    Ok(cd)
}

fn nbit_atomic(t: &Datatype, cd: &mut Vec<u32>, need_not_compress: &mut bool) -> Result<()> {
    let id = FilterId::NBIT;
    let Some(a) = t.atomic() else {
        bail!(InvalidParameters, id, "not an atomic datatype");
    };
    let order = order_code(Some(a.order()), id)?;
    ensure!(
        a.precision() > 0,
        InvalidParameters,
        id,
        "datatype precision 0"
    );
    ensure!(
        a.precision() + a.offset() <= a.size() * 8,
        InvalidParameters,
        id,
        "invalid datatype precision/offset"
    );
    cd.push(nbit::CLASS_ATOMIC);
    cd.push(to_u32(a.size(), id, "datatype size")?);
    cd.push(order);
    cd.push(a.precision() as u32);
    cd.push(a.offset() as u32);
    if a.offset() != 0 || a.precision() != a.size() * 8 {
        *need_not_compress = false;
    }
    Ok(())
}

fn nbit_noop(size: usize, cd: &mut Vec<u32>) -> Result<()> {
    cd.push(nbit::CLASS_NOOPTYPE);
    cd.push(to_u32(size, FilterId::NBIT, "datatype size")?);
    Ok(())
}

fn is_vlen(t: &Datatype) -> bool {
    match t {
        Datatype::VarLen(_) => true,
        Datatype::String(s) => s.string_size() == StringSize::Variable,
        _ => false,
    }
}

fn nbit_array(
    t: &Datatype,
    cd: &mut Vec<u32>,
    need_not_compress: &mut bool,
    depth: usize,
) -> Result<()> {
    let id = FilterId::NBIT;
    ensure!(
        depth < 64,
        InvalidParameters,
        id,
        "datatype nested too deeply"
    );
    let Some(arr) = t.as_array() else {
        bail!(InvalidParameters, id, "not an array datatype");
    };
    cd.push(nbit::CLASS_ARRAY);
    cd.push(to_u32(t.size(), id, "datatype size")?);
    let base = arr.base();
    match base {
        Datatype::Integer(_) | Datatype::Float(_) => nbit_atomic(base, cd, need_not_compress)?,
        Datatype::Array(_) => nbit_array(base, cd, need_not_compress, depth + 1)?,
        Datatype::Compound(_) => nbit_compound(base, cd, need_not_compress, depth + 1)?,
        b if is_vlen(b) => bail!(InvalidParameters, id, "datatype not supported by nbit"),
        b => nbit_noop(b.size(), cd)?,
    }
    Ok(())
}

fn nbit_compound(
    t: &Datatype,
    cd: &mut Vec<u32>,
    need_not_compress: &mut bool,
    depth: usize,
) -> Result<()> {
    let id = FilterId::NBIT;
    ensure!(
        depth < 64,
        InvalidParameters,
        id,
        "datatype nested too deeply"
    );
    let Some(c) = t.as_compound() else {
        bail!(InvalidParameters, id, "not a compound datatype");
    };
    cd.push(nbit::CLASS_COMPOUND);
    cd.push(to_u32(c.size(), id, "datatype size")?);
    cd.push(to_u32(c.len(), id, "member count")?);
    let members = c.members();
    for (u, m) in members.iter().enumerate() {
        cd.push(to_u32(m.offset(), id, "member offset")?);
        let mt = m.datatype();
        match mt {
            Datatype::Integer(_) | Datatype::Float(_) => nbit_atomic(mt, cd, need_not_compress)?,
            Datatype::Array(_) => nbit_array(mt, cd, need_not_compress, depth + 1)?,
            Datatype::Compound(_) => nbit_compound(mt, cd, need_not_compress, depth + 1)?,
            v if is_vlen(v) => {
                // The in-memory size of a variable-length member is not its stored size;
                // the reference library uses the distance to the next member.
                let next = members.get(u + 1).map_or(c.size(), |n| n.offset());
                cd.push(nbit::CLASS_NOOPTYPE);
                cd.push(to_u32(next.saturating_sub(m.offset()), id, "member size")?);
            }
            other => nbit_noop(other.size(), cd)?,
        }
    }
    Ok(())
}

pub(super) fn scaleoffset_local(
    filter: &Filter,
    datatype: &Datatype,
    npoints: u32,
    fill: FillValue<'_>,
) -> Result<Vec<u32>> {
    let id = FilterId::SCALEOFFSET;
    let mut cd = vec![0u32; scaleoffset::TOTAL_NPARMS];
    for (d, s) in cd.iter_mut().zip(filter.client_data.iter().take(2)) {
        *d = *s;
    }
    cd[2] = npoints;
    let (class, sign) = match datatype {
        Datatype::Integer(t) => (
            scaleoffset::CLS_INTEGER,
            if t.sign() == Sign::TwosComplement {
                scaleoffset::SGN_2
            } else {
                scaleoffset::SGN_NONE
            },
        ),
        Datatype::Float(_) => (scaleoffset::CLS_FLOAT, 0),
        _ => bail!(
            InvalidParameters,
            id,
            "datatype class not supported by scaleoffset"
        ),
    };
    let size = datatype.size();
    cd[3] = class;
    cd[4] = to_u32(size, id, "datatype size")?;
    cd[5] = sign;
    cd[6] = order_code(datatype.order(), id)?;
    match fill {
        FillValue::Undefined => cd[7] = 0,
        FillValue::Default | FillValue::User(_) => {
            cd[7] = scaleoffset::FILL_DEFINED;
            let supported = match class {
                scaleoffset::CLS_INTEGER => matches!(size, 1 | 2 | 4 | 8),
                _ => matches!(size, 4 | 8),
            };
            ensure!(
                supported,
                InvalidParameters,
                id,
                "cannot use a C type of {size} bytes for the fill value"
            );
            let mut le = [0u8; 8];
            if let FillValue::User(bytes) = fill {
                ensure!(
                    bytes.len() == size,
                    InvalidParameters,
                    id,
                    "fill value has {} bytes, the datatype {size}",
                    bytes.len()
                );
                le[..size].copy_from_slice(bytes);
                if cd[6] == scaleoffset::ORDER_BE {
                    le[..size].reverse();
                }
            }
            cd[8] = u32::from_le_bytes([le[0], le[1], le[2], le[3]]);
            if size > 4 {
                cd[9] = u32::from_le_bytes([le[4], le[5], le[6], le[7]]);
            }
        }
    }
    Ok(cd)
}
