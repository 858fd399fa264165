//! The driver information block (format spec III.B) of superblocks version 0 and 1, with the
//! multi and family drivers' contents decoded; also the body of the driver info message.

use crate::cursor::{Cursor, Writer};
use crate::message::scoped;
use crate::{limits, ErrorKind, Result};

/// "Driver Identification" of the multi driver.
pub const MULTI_ID: [u8; 8] = *b"NCSAmult";
/// "Driver Identification" of the family driver.
pub const FAMILY_ID: [u8; 8] = *b"NCSAfami";

/// One member file of the multi driver.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MultiMember {
    /// "Address of Member File N": where the member's addresses start.
    pub address: u64,
    /// "End of Address for Member File N".
    pub end_of_address: u64,
    /// "Name of Member File N" (without the terminating NUL).
    pub name: Vec<u8>,
}

/// The driver-specific contents.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DriverData {
    /// The multi driver ("NCSAmult").
    Multi {
        /// "Member Mapping" for the six memory types super, B-tree, raw data, global heap,
        /// local heap, object header (0 means "the type itself").
        map: [u8; 6],
        /// The distinct member files, in order of first use by the mapping.
        members: Vec<MultiMember>,
    },
    /// The family driver ("NCSAfami").
    Family {
        /// Size of each member file in bytes.
        member_size: u64,
    },
    /// Any other driver: its bytes as stored.
    Other(Vec<u8>),
}

/// Decode driver-specific bytes according to the driver identification.
pub fn decode_driver_data(c: &mut Cursor, id: &[u8; 8], len: usize) -> Result<DriverData> {
    let mut d = c.sub(len)?;
    if *id == FAMILY_ID && len == 8 {
        return Ok(DriverData::Family {
            member_size: d.read_u64()?,
        });
    }
    if *id == MULTI_ID {
        let map: [u8; 6] = d.read_array()?;
        d.skip(2)?;
        let unique = multi_unique(&map);
        let n = limits::check_count(unique.len() as u64, 16, d.remaining() as u64, 6)
            .map_err(|m| d.error(ErrorKind::LimitExceeded, m))?;
        let mut addrs = Vec::with_capacity(n);
        for _ in 0..n {
            addrs.push((d.read_u64()?, d.read_u64()?));
        }
        let mut members = Vec::with_capacity(n);
        for (address, end_of_address) in addrs {
            let start = d.pos();
            let name = d.read_cstr(limits::MAX_NAME_LEN)?.to_vec();
            let used = d.pos() - start;
            d.skip((8 - used % 8) % 8)?;
            members.push(MultiMember {
                address,
                end_of_address,
                name,
            });
        }
        return Ok(DriverData::Multi { map, members });
    }
    Ok(DriverData::Other(d.rest().to_vec()))
}

/// The distinct member indices (1..=6) of a multi mapping, in order of first use.
fn multi_unique(map: &[u8; 6]) -> Vec<u8> {
    let mut seen = Vec::new();
    for (i, &m) in map.iter().enumerate() {
        let t = if m == 0 { i as u8 + 1 } else { m };
        if !seen.contains(&t) {
            seen.push(t);
        }
    }
    seen
}

/// Encode driver-specific bytes.
pub fn encode_driver_data(data: &DriverData, w: &mut Writer) {
    match data {
        DriverData::Family { member_size } => w.put_u64(*member_size),
        DriverData::Multi { map, members } => {
            w.put_bytes(map);
            w.put_zeros(2);
            for m in members {
                w.put_u64(m.address);
                w.put_u64(m.end_of_address);
            }
            for m in members {
                w.put_bytes(&m.name);
                w.put_u8(0);
                let used = m.name.len() + 1;
                w.put_zeros((8 - used % 8) % 8);
            }
        }
        DriverData::Other(b) => w.put_bytes(b),
    }
}

/// The driver information block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DriverInfoBlock {
    /// "Driver Identification": eight ASCII bytes such as `NCSAmult`.
    pub driver_id: [u8; 8],
    /// "Driver Information".
    pub data: DriverData,
}

const STRUCT: &str = "driver information block";

impl DriverInfoBlock {
    /// Parse the block (version 0).
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, STRUCT, |c| {
            let at = c.offset();
            let version = c.read_u8()?;
            if version != 0 {
                return Err(c.error_at(
                    ErrorKind::UnsupportedVersion,
                    at,
                    format!("driver information block version {version}"),
                ));
            }
            c.skip(3)?;
            let size = c.read_u32()? as usize;
            let driver_id: [u8; 8] = c.read_array()?;
            if size > c.remaining() {
                return Err(c.error(
                    ErrorKind::UnexpectedEof,
                    format!(
                        "driver information size {size} exceeds the {} bytes left",
                        c.remaining()
                    ),
                ));
            }
            let data = decode_driver_data(c, &driver_id, size)?;
            Ok(DriverInfoBlock { driver_id, data })
        })
    }

    /// Encode the block.
    pub fn encode(&self, w: &mut Writer) {
        let mut body = Writer::new(w.sizes());
        encode_driver_data(&self.data, &mut body);
        w.put_u8(0);
        w.put_zeros(3);
        w.put_u32(body.len() as u32);
        w.put_bytes(&self.driver_id);
        w.put_bytes(body.as_slice());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Sizes;

    #[test]
    fn family_from_bytes() {
        let mut b = vec![0u8, 0, 0, 0, 8, 0, 0, 0];
        b.extend_from_slice(b"NCSAfami");
        b.extend_from_slice(&1024u64.to_le_bytes());
        let d = DriverInfoBlock::parse(&mut Cursor::new(&b, 0x60, Sizes::DEFAULT)).unwrap();
        assert_eq!(d.data, DriverData::Family { member_size: 1024 });
        let mut w = Writer::new(Sizes::DEFAULT);
        d.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn multi_from_bytes() {
        // The default multi mapping: every type its own file except default (0 = itself).
        let map = [1u8, 2, 3, 4, 5, 6];
        let mut body = map.to_vec();
        body.extend_from_slice(&[0, 0]);
        for i in 0..6u64 {
            body.extend_from_slice(&(i * 0x1000).to_le_bytes());
            body.extend_from_slice(&(i * 0x1000 + 0x800).to_le_bytes());
        }
        for n in [
            "%s-s.h5", "%s-b.h5", "%s-r.h5", "%s-g.h5", "%s-l.h5", "%s-o.h5",
        ] {
            body.extend_from_slice(n.as_bytes());
            body.push(0);
        }
        let mut b = vec![0u8, 0, 0, 0];
        b.extend_from_slice(&(body.len() as u32).to_le_bytes());
        b.extend_from_slice(b"NCSAmult");
        b.extend_from_slice(&body);
        let d = DriverInfoBlock::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        match &d.data {
            DriverData::Multi { map: m, members } => {
                assert_eq!(m, &map);
                assert_eq!(members.len(), 6);
                assert_eq!(members[2].name, b"%s-r.h5");
                assert_eq!(members[2].address, 0x2000);
            }
            other => panic!("{other:?}"),
        }
        let mut w = Writer::new(Sizes::DEFAULT);
        d.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn other_driver_and_errors() {
        let d = DriverInfoBlock {
            driver_id: *b"CUSTOMdr",
            data: DriverData::Other(vec![1, 2, 3]),
        };
        let mut w = Writer::new(Sizes::DEFAULT);
        d.encode(&mut w);
        let got =
            DriverInfoBlock::parse(&mut Cursor::new(w.as_slice(), 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(got, d);
        let mut b = w.into_vec();
        b[4] = 200; // size past the end
        let e = DriverInfoBlock::parse(&mut Cursor::new(&b, 0x40, Sizes::DEFAULT)).unwrap_err();
        assert_eq!(e.structure(), "driver information block");
    }
}
