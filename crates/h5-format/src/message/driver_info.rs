//! The Driver Info message (0x0014): the driver information block of superblock versions 2
//! and 3, stored in the superblock extension.

use super::{read_version, scoped};
use crate::cursor::{Cursor, Writer};
use crate::driver_info::{decode_driver_data, encode_driver_data, DriverData};
use crate::{ErrorKind, Result};

/// The Driver Info message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DriverInfoMessage {
    /// "Driver Identification".
    pub driver_id: [u8; 8],
    /// "Driver Information".
    pub data: DriverData,
}

impl DriverInfoMessage {
    /// Parse the message (version 0).
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "driver info message", |c| {
            read_version(c, 0, 0)?;
            let driver_id: [u8; 8] = c.read_array()?;
            let size = c.read_u16()? as usize;
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
            Ok(DriverInfoMessage { driver_id, data })
        })
    }

    /// Encode the message.
    pub fn encode(&self, w: &mut Writer) {
        let mut body = Writer::new(w.sizes());
        encode_driver_data(&self.data, &mut body);
        w.put_u8(0);
        w.put_bytes(&self.driver_id);
        w.put_u16(body.len() as u16);
        w.put_bytes(body.as_slice());
    }
}
