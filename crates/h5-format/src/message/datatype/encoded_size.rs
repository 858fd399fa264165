//! The size the reference library gives an encoded datatype (`H5Tencode`, `H5O_msg_raw_size`)
//! after reading it from a file: each nested type keeps the message version it was stored
//! with, raised only where the library's decoder raises it (`H5O__dtype_decode_helper`,
//! `H5T__upgrade_version`). A compound holding a version 1 compound member is therefore sized
//! with the version 1 member layout for that member's fields, which a single message-wide
//! version cannot express.

use super::{offset_width, parse_datatype};
use crate::cursor::Cursor;
use crate::{limits, ErrorKind, Result};

/// One datatype as stored: its (possibly raised) version, its size field and what its
/// encoding length depends on.
struct Node {
    version: u8,
    size: u64,
    shape: Shape,
}

enum Shape {
    /// Class properties of a fixed length (atomic classes, opaque tags).
    Fixed(u64),
    /// Member name lengths (without NUL) and types.
    Compound(Vec<(u64, Node)>),
    /// Base type, name lengths, value bytes.
    Enum(Box<Node>, Vec<u64>, u64),
    /// Rank and base type.
    Array(u64, Box<Node>),
    /// Variable-length sequences and strings, complex numbers: a base type only.
    Based(Box<Node>),
}

/// Bytes of the datatype message `raw` as the reference library encodes it once read: the
/// raw message size, without the 2 bytes `H5Tencode` prefixes. Fails as
/// [`parse_datatype`](super::parse_datatype) does on a malformed message.
pub fn library_encoded_size(c: &mut Cursor) -> Result<u64> {
    let mut check = c.clone();
    parse_datatype(&mut check, 0)?;
    let (node, _) = walk(c, 0)?;
    Ok(node_size(&node))
}

fn padded(len: u64, version: u8) -> u64 {
    if version >= 3 {
        len + 1
    } else {
        (len + 8) / 8 * 8
    }
}

fn name_len(c: &mut Cursor, version: u8) -> Result<u64> {
    let at = c.offset();
    let rest = c.clone().read_bytes(c.remaining())?;
    let len = rest.iter().position(|&b| b == 0).ok_or_else(|| {
        c.error_at(
            ErrorKind::UnexpectedEof,
            at,
            "datatype name without a terminating NUL",
        )
    })? as u64;
    c.skip(padded(len, version) as usize)?;
    Ok(len)
}

/// Raise `n` and what it holds to at least `version` (`H5T__upgrade_version_cb`: atomic
/// types keep theirs, a variable-length type takes its base's).
fn upgrade(n: &mut Node, version: u8) {
    match &mut n.shape {
        Shape::Fixed(_) => return,
        Shape::Compound(ms) => ms.iter_mut().for_each(|(_, m)| upgrade(m, version)),
        Shape::Enum(b, ..) | Shape::Array(_, b) => upgrade(b, version),
        Shape::Based(b) => {
            upgrade(b, version);
            n.version = n.version.max(b.version);
            return;
        }
    }
    n.version = n.version.max(version);
}

/// Parse one datatype; returns it and whether its parent may raise its own version to it.
fn walk(c: &mut Cursor, depth: usize) -> Result<(Node, bool)> {
    if depth > limits::MAX_DATATYPE_DEPTH {
        return Err(c.error_at(ErrorKind::LimitExceeded, c.offset(), "datatype nesting"));
    }
    let cv = c.read_u8()?;
    let bits =
        u32::from(c.read_u8()?) | (u32::from(c.read_u8()?) << 8) | (u32::from(c.read_u8()?) << 16);
    let size = u64::from(c.read_u32()?);
    let mut version = cv >> 4;
    let mut can_upgrade = false;
    // Class properties of a fixed length: integer, bitfield, float, time, string,
    // reference, opaque (its tag).
    let fixed = match cv & 0x0f {
        0 | 4 => Some(4),
        1 => Some(12),
        2 => Some(2),
        3 | 7 => Some(0),
        5 => Some(u64::from(bits & 0xff)),
        _ => None,
    };
    let shape = match (cv & 0x0f, fixed) {
        (_, Some(k)) => {
            c.skip(k as usize)?;
            Shape::Fixed(k)
        }
        (6, _) => {
            let mut members = Vec::new();
            let mut upgrade_to = 0;
            let mut max_version = 0;
            for _ in 0..(bits & 0xffff) {
                let len = name_len(c, version)?;
                c.skip(if version >= 3 { offset_width(size) } else { 4 })?;
                let mut rank = 0;
                let mut elements = 1;
                if version == 1 {
                    rank = c.read_u8()?.min(4);
                    c.skip(3 + 4 + 4)?;
                    for i in 0..4 {
                        let d = u64::from(c.read_u32()?);
                        if i < rank {
                            elements *= d;
                        }
                    }
                }
                let (mut m, up) = walk(c, depth + 1)?;
                if up && m.version > version {
                    upgrade_to = m.version;
                    can_upgrade = true;
                }
                if rank > 0 {
                    // `H5T__array_create`: an array is at least version 2.
                    m = Node {
                        version: m.version.max(2),
                        size: m.size.saturating_mul(elements),
                        shape: Shape::Array(u64::from(rank), Box::new(m)),
                    };
                    upgrade_to = upgrade_to.max(m.version);
                    can_upgrade = true;
                }
                max_version = max_version.max(m.version);
                members.push((len, m));
            }
            let mut n = Node {
                version,
                size,
                shape: Shape::Compound(members),
            };
            if version < upgrade_to {
                version = upgrade_to;
                upgrade(&mut n, version);
            }
            if version < max_version {
                upgrade(&mut n, max_version);
            }
            return Ok((n, can_upgrade));
        }
        (8, _) => {
            let (base, _) = walk(c, depth + 1)?;
            let mut names = Vec::new();
            for _ in 0..(bits & 0xffff) {
                names.push(name_len(c, version)?);
            }
            let values = names.len() as u64 * base.size;
            c.skip(values as usize)?;
            Shape::Enum(Box::new(base), names, values)
        }
        (9 | 11, _) => Shape::Based(Box::new(walk(c, depth + 1)?.0)),
        (10, _) => {
            let rank = u64::from(c.read_u8()?);
            let per_dim = if version < 3 { 8 } else { 4 };
            c.skip(if version < 3 { 3 } else { 0 } + (rank * per_dim) as usize)?;
            let (base, _) = walk(c, depth + 1)?;
            let mut n = Node {
                version,
                size,
                shape: Shape::Array(rank, Box::new(base)),
            };
            raise_to_base(&mut n);
            upgrade_min(&mut n, 2);
            return Ok((n, false));
        }
        (k, _) => {
            return Err(c.error_at(
                ErrorKind::Unsupported,
                c.offset(),
                format!("datatype class {k}"),
            ))
        }
    };
    let mut n = Node {
        version,
        size,
        shape,
    };
    raise_to_base(&mut n);
    Ok((n, can_upgrade))
}

/// `H5O_DTYPE_CHECK_VERSION` against the base type's version.
fn raise_to_base(n: &mut Node) {
    let base = match &n.shape {
        Shape::Enum(b, ..) | Shape::Array(_, b) | Shape::Based(b) => b.version,
        _ => return,
    };
    upgrade_min(n, base);
}

fn upgrade_min(n: &mut Node, version: u8) {
    if n.version < version {
        upgrade(n, version);
    }
}

/// `H5O__dtype_size` with each node's own version: the 8-byte header and the properties.
fn node_size(n: &Node) -> u64 {
    let v = n.version;
    8 + match &n.shape {
        Shape::Fixed(k) => *k,
        Shape::Compound(ms) => ms
            .iter()
            .map(|(len, m)| {
                let offset = match v {
                    1 => 4 + 1 + 3 + 4 + 4 + 16,
                    2 => 4,
                    _ => offset_width(n.size) as u64,
                };
                padded(*len, v) + offset + node_size(m)
            })
            .sum(),
        Shape::Enum(b, names, values) => {
            node_size(b) + names.iter().map(|&l| padded(l, v)).sum::<u64>() + values
        }
        Shape::Array(rank, b) => {
            let dims = if v < 3 { 4 + 8 * rank } else { 1 + 4 * rank };
            dims + node_size(b)
        }
        Shape::Based(b) => node_size(b),
    }
}
