//! The Filter Pipeline message (0x000B), versions 1 and 2.

use super::{read_version, scoped};
use crate::cursor::{Cursor, Writer};
use crate::{limits, ErrorKind, Result};
use std::fmt;

mod constructors;

pub use constructors::{
    BitshuffleCompression, Blosc2Filter, BloscCodec, BloscShuffle, BITSHUFFLE_LZ4, BITSHUFFLE_ZSTD,
    LZF_FILTER_VERSION, LZF_VERSION, SZIP_ALLOW_K13, SZIP_CHIP, SZIP_EC, SZIP_LSB, SZIP_MSB,
    SZIP_NN, SZIP_RAW,
};

/// A filter identification value ("Filter Identification Value"). Values below 256 are
/// reserved for the library's filters; others are registered third-party filters. Unknown
/// values are kept (and printed) as they are.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FilterId(pub u16);

impl FilterId {
    /// `H5Z_FILTER_DEFLATE`: zlib deflate, level in client data 0.
    pub const DEFLATE: FilterId = FilterId(1);
    /// `H5Z_FILTER_SHUFFLE`: byte shuffle, element size in client data 0.
    pub const SHUFFLE: FilterId = FilterId(2);
    /// `H5Z_FILTER_FLETCHER32`: Fletcher-32 checksum appended to the chunk.
    pub const FLETCHER32: FilterId = FilterId(3);
    /// `H5Z_FILTER_SZIP`: szip (CCSDS 121.0 adaptive entropy coding).
    pub const SZIP: FilterId = FilterId(4);
    /// `H5Z_FILTER_NBIT`: n-bit packing.
    pub const NBIT: FilterId = FilterId(5);
    /// `H5Z_FILTER_SCALEOFFSET`: scale-offset packing.
    pub const SCALEOFFSET: FilterId = FilterId(6);
    /// BZip2 (registered filter 307).
    pub const BZIP2: FilterId = FilterId(307);
    /// The LZF filter registered by h5py.
    pub const LZF: FilterId = FilterId(32000);
    /// Blosc (registered filter 32001).
    pub const BLOSC: FilterId = FilterId(32001);
    /// LZ4 (registered filter 32004).
    pub const LZ4: FilterId = FilterId(32004);
    /// Bitshuffle (registered filter 32008), optionally with LZ4 or Zstd inside.
    pub const BITSHUFFLE: FilterId = FilterId(32008);
    /// Zstandard (registered filter 32015).
    pub const ZSTD: FilterId = FilterId(32015);
    /// Blosc2 (registered filter 32026).
    pub const BLOSC2: FilterId = FilterId(32026);

    /// The filter's conventional name: the reference library's for its own filters, the
    /// registered name for a few well-known third-party ones, `None` otherwise.
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            1 => "deflate",
            2 => "shuffle",
            3 => "fletcher32",
            4 => "szip",
            5 => "nbit",
            6 => "scaleoffset",
            307 => "bzip2",
            32000 => "lzf",
            32001 => "blosc",
            32004 => "lz4",
            32008 => "bitshuffle",
            32013 => "zfp",
            32015 => "zstd",
            32017 => "sz",
            32026 => "blosc2",
            _ => return None,
        })
    }
}

impl fmt::Display for FilterId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{} ({n})", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}

impl fmt::Debug for FilterId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FilterId({self})")
    }
}

/// "Flags" bit 0: the filter is optional (its failure does not fail the write).
pub const FILTER_FLAG_OPTIONAL: u16 = 0x1;

/// One filter of the pipeline.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Filter {
    /// "Filter Identification Value".
    pub id: FilterId,
    /// "Flags"; bit 0 ([`Filter::FLAG_OPTIONAL`]) marks an optional filter.
    pub flags: u16,
    /// "Name", without NUL or padding (version 2 stores it only for ids of 256 and up).
    pub name: Option<Vec<u8>>,
    /// "Client Data" (`cd_values` in the reference library).
    pub client_data: Vec<u32>,
}

impl Filter {
    /// Flag bit: the filter is optional (`H5Z_FLAG_OPTIONAL`). A write that fails in an
    /// optional filter stores the chunk without it and sets its bit in the chunk's mask.
    pub const FLAG_OPTIONAL: u16 = FILTER_FLAG_OPTIONAL;

    /// A filter with the given id and client data, no name, not optional.
    pub fn new(id: FilterId, client_data: Vec<u32>) -> Self {
        Filter {
            id,
            flags: 0,
            name: None,
            client_data,
        }
    }

    /// The same filter marked optional.
    #[must_use]
    pub fn optional(mut self) -> Self {
        self.flags |= Self::FLAG_OPTIONAL;
        self
    }

    /// Whether the optional bit is set.
    pub fn is_optional(&self) -> bool {
        self.flags & Self::FLAG_OPTIONAL != 0
    }

    /// The stored name as text (lossy for bytes that are not UTF-8), when there is one.
    pub fn name_text(&self) -> Option<String> {
        self.name
            .as_deref()
            .map(|n| {
                String::from_utf8_lossy(n)
                    .trim_end_matches('\0')
                    .to_string()
            })
            .filter(|n| !n.is_empty())
    }
}

impl fmt::Display for Filter {
    /// The id and the stored name, else the conventional one: `32015 (zstd)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name_text() {
            Some(n) => write!(f, "{} ({n})", self.id.0),
            None => write!(f, "{}", self.id),
        }
    }
}

/// The Filter Pipeline message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FilterPipeline {
    /// "Version": 1 or 2.
    pub version: u8,
    /// The filters in the order applied on write.
    pub filters: Vec<Filter>,
}

impl FilterPipeline {
    /// Parse the message.
    pub fn parse(c: &mut Cursor) -> Result<Self> {
        scoped(c, "filter pipeline message", |c| {
            let version = read_version(c, 1, 2)?;
            let at = c.offset();
            let n = c.read_u8()? as usize;
            if n > limits::MAX_FILTERS {
                return Err(c.error_at(
                    ErrorKind::LimitExceeded,
                    at,
                    format!("{n} filters (the most is {})", limits::MAX_FILTERS),
                ));
            }
            if version == 1 {
                c.skip(6)?;
            }
            let mut filters = Vec::with_capacity(n);
            for _ in 0..n {
                let id = FilterId(c.read_u16()?);
                let name_len = if version == 1 || id.0 >= 256 {
                    c.read_u16()? as usize
                } else {
                    0
                };
                let flags = c.read_u16()?;
                let nvalues_at = c.offset();
                let nvalues = c.read_u16()? as u64;
                let name = if name_len > 0 {
                    let raw = c.read_bytes(name_len)?;
                    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
                    Some(raw[..end].to_vec())
                } else {
                    None
                };
                let count = limits::check_count(
                    nvalues,
                    4,
                    c.remaining() as u64,
                    limits::MAX_FILTER_CLIENT_VALUES as u64,
                )
                .map_err(|m| c.error_at(ErrorKind::LimitExceeded, nvalues_at, m))?;
                let mut client_data = Vec::with_capacity(count);
                for _ in 0..count {
                    client_data.push(c.read_u32()?);
                }
                if version == 1 && count % 2 == 1 {
                    c.skip(4)?;
                }
                filters.push(Filter {
                    id,
                    flags,
                    name,
                    client_data,
                });
            }
            Ok(FilterPipeline { version, filters })
        })
    }

    /// Encode the message.
    pub fn encode(&self, w: &mut Writer) {
        let version = self.version.clamp(1, 2);
        w.put_u8(version);
        w.put_u8(self.filters.len() as u8);
        if version == 1 {
            w.put_zeros(6);
        }
        for f in &self.filters {
            w.put_u16(f.id.0);
            let name = f.name.as_deref().filter(|_| version == 1 || f.id.0 >= 256);
            let stored_len = match name {
                Some(n) if version == 1 => (n.len() + 1).div_ceil(8) * 8,
                Some(n) => n.len() + 1,
                None => 0,
            };
            if version == 1 || f.id.0 >= 256 {
                w.put_u16(stored_len as u16);
            }
            w.put_u16(f.flags);
            w.put_u16(f.client_data.len() as u16);
            if let Some(n) = name {
                w.put_bytes(n);
                w.put_zeros(stored_len - n.len());
            }
            for &v in &f.client_data {
                w.put_u32(v);
            }
            if version == 1 && f.client_data.len() % 2 == 1 {
                w.put_zeros(4);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Sizes;

    #[test]
    fn version_1_deflate_from_bytes() {
        // version 1, 1 filter, 6 reserved; deflate, name "deflate" (8 bytes), 1 value: 6.
        let mut b = vec![1u8, 1, 0, 0, 0, 0, 0, 0];
        b.extend_from_slice(&[1, 0, 8, 0, 0, 0, 1, 0]);
        b.extend_from_slice(b"deflate\0");
        b.extend_from_slice(&[6, 0, 0, 0, 0, 0, 0, 0]);
        let p = FilterPipeline::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(p.filters.len(), 1);
        assert_eq!(p.filters[0].id, FilterId::DEFLATE);
        assert_eq!(p.filters[0].name.as_deref(), Some(&b"deflate"[..]));
        assert_eq!(p.filters[0].client_data, vec![6]);
        let mut w = Writer::new(Sizes::DEFAULT);
        p.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn version_2_from_bytes_and_round_trip() {
        // version 2, 2 filters: shuffle (no name) with 1 value; id 307 named "bzip2".
        let mut b = vec![2u8, 2];
        b.extend_from_slice(&[2, 0, 1, 0, 1, 0, 4, 0, 0, 0]);
        b.extend_from_slice(&[0x33, 1, 6, 0, 0, 0, 2, 0]);
        b.extend_from_slice(b"bzip2\0");
        b.extend_from_slice(&[9, 0, 0, 0, 1, 0, 0, 0]);
        let p = FilterPipeline::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap();
        assert_eq!(p.filters[0].flags, FILTER_FLAG_OPTIONAL);
        assert_eq!(p.filters[1].id, FilterId(307));
        assert_eq!(p.filters[1].client_data, vec![9, 1]);
        let mut w = Writer::new(Sizes::DEFAULT);
        p.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..]);
    }

    #[test]
    fn too_many_values_is_an_error() {
        let b = [2u8, 1, 2, 0, 0, 0, 0xff, 0xff];
        let e = FilterPipeline::parse(&mut Cursor::new(&b, 0, Sizes::DEFAULT)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    }
}
