//! The filter pipeline: the codecs HDF5 applies to each chunk of a chunked dataset.
//!
//! A dataset's filter pipeline message lists filters in the order they are applied when
//! writing. Reading runs them backwards. Each stored chunk carries a *filter mask*: bit `i`
//! set means filter `i` of the pipeline was not applied to that chunk (it was excluded, or it
//! was optional and failed when the chunk was written), so reading skips it too.
//!
//! Codecs (all pure Rust, decode and encode):
//!
//! | id | name | what |
//! |---|---|---|
//! | 1 | deflate | a zlib stream (`flate2` with the pure-Rust `zlib-rs` backend) |
//! | 2 | shuffle | byte shuffle by element size |
//! | 3 | fletcher32 | checksum appended to the chunk |
//! | 4 | szip | CCSDS 121.0 adaptive entropy coding, framed as libaec's szip emulation |
//! | 5 | nbit | packing of the significant bits of each element |
//! | 6 | scaleoffset | integer and D-scaled floating-point min/offset packing |
//! | 32000 | lzf | the LZF format of h5py's filter |
//!
//! Encoding is byte-identical to the reference library for shuffle, fletcher32, szip, nbit,
//! scale-offset and LZF (h5py's build); deflate output depends on the zlib implementation
//! and differs, but any zlib reads it.
//!
//! The parameters ("client data", `cd_values` in the reference library) of nbit and
//! scale-offset carry everything decoding needs (the reference library's `set_local`
//! callbacks store datatype class, size, order, precision, offset, sign, the number of
//! elements in a chunk and the fill value there), so decoding needs only the pipeline and the
//! chunk's expected size. [`set_local`] computes those parameters from a datatype and the
//! chunk's shape when a dataset is created.
//!
//! Hostile input: every decoder returns `Err` on corrupt data, never panics, and never
//! produces (or allocates for) more than a bound derived from [`ChunkInfo::expected_size`].

use std::fmt;

mod bits;
mod deflate;
mod fletcher32;
mod local;
mod lzf;
mod nbit;
mod scaleoffset;
mod shuffle;
mod szip;

pub use fletcher32::fletcher32;
pub use local::{set_local, FillValue};
pub use szip::{
    OPTION_ALLOW_K13 as SZIP_ALLOW_K13, OPTION_CHIP as SZIP_CHIP, OPTION_EC as SZIP_EC,
    OPTION_LSB as SZIP_LSB, OPTION_MSB as SZIP_MSB, OPTION_NN as SZIP_NN, OPTION_RAW as SZIP_RAW,
};

/// A filter identification number, as stored in the filter pipeline message. Unknown values
/// are kept (and printed) as they are.
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
    /// The LZF filter registered by h5py.
    pub const LZF: FilterId = FilterId(32000);

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

    /// Whether this crate implements the filter (both directions).
    pub fn is_available(self) -> bool {
        matches!(self.0, 1..=6 | 32000)
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

/// One filter of a pipeline: what the filter pipeline message says about it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Filter {
    /// Filter identification value.
    pub id: FilterId,
    /// Flags; bit 0 ([`Filter::FLAG_OPTIONAL`]) marks an optional filter.
    pub flags: u16,
    /// The filter's name, when the message stores one.
    pub name: Option<String>,
    /// Client data (`cd_values`).
    pub client_data: Vec<u32>,
}

impl Filter {
    /// Flag bit: the filter is optional (`H5Z_FLAG_OPTIONAL`). A write that fails in an
    /// optional filter stores the chunk without it and sets its bit in the chunk's mask.
    pub const FLAG_OPTIONAL: u16 = 0x0001;

    /// A filter description with the given id and client data, no name, not optional.
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

    fn describe(&self) -> String {
        match (&self.name, self.id.name()) {
            (Some(n), _) if !n.is_empty() => format!("{} ({n})", self.id.0),
            _ => self.id.to_string(),
        }
    }
}

/// What the pipeline needs to know about the chunk being filtered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkInfo {
    /// Size in bytes of the unfiltered chunk (chunk dimensions × element size). Decoding
    /// fails unless the pipeline produces exactly this many bytes, and no stage may produce
    /// more than this plus a small allowance for filter headers.
    pub expected_size: usize,
    /// Skip verifying checksums (fletcher32) when reading (`H5Pset_edc_check` disabled).
    pub skip_checksum: bool,
}

impl ChunkInfo {
    /// A chunk of `expected_size` bytes, with checksums verified.
    pub fn new(expected_size: usize) -> Self {
        ChunkInfo {
            expected_size,
            skip_checksum: false,
        }
    }
}

/// What went wrong in a filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The filter is not implemented here (a third-party or unknown filter).
    Unavailable,
    /// The client data (or the pipeline itself) is malformed or not supported.
    InvalidParameters,
    /// The filtered data is malformed: truncated, inconsistent, or decodes to the wrong size.
    Corrupt,
    /// A stored checksum does not match the data.
    ChecksumMismatch,
    /// Decoded data would exceed the chunk's expected size.
    LimitExceeded,
    /// Encoding did not succeed (for example the compressed data would be larger than the
    /// input); an optional filter is then skipped.
    EncodeFailed,
}

impl ErrorKind {
    fn describe(self) -> &'static str {
        match self {
            ErrorKind::Unavailable => "not available",
            ErrorKind::InvalidParameters => "invalid parameters",
            ErrorKind::Corrupt => "corrupt data",
            ErrorKind::ChecksumMismatch => "checksum mismatch",
            ErrorKind::LimitExceeded => "limit exceeded",
            ErrorKind::EncodeFailed => "encoding failed",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    filter: FilterId,
    filter_text: Option<String>,
    message: String,
}

/// An error from a filter of the pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(Box<Inner>);

/// Result with a filter [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of `kind` in `filter`.
    #[cold]
    pub fn new(kind: ErrorKind, filter: FilterId, message: impl Into<String>) -> Self {
        Error(Box::new(Inner {
            kind,
            filter,
            filter_text: None,
            message: message.into(),
        }))
    }

    #[cold]
    fn unavailable(filter: &Filter) -> Self {
        let mut e = Error::new(ErrorKind::Unavailable, filter.id, String::new());
        e.0.filter_text = Some(filter.describe());
        e
    }

    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The filter in which the error happened.
    pub fn filter(&self) -> FilterId {
        self.0.filter
    }

    /// The message, without kind or filter.
    pub fn message(&self) -> &str {
        &self.0.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match &self.0.filter_text {
            Some(t) => t.clone(),
            None => self.0.filter.to_string(),
        };
        if self.0.kind == ErrorKind::Unavailable {
            write!(f, "filter {text} is not available")?;
            if !self.0.message.is_empty() {
                write!(f, ": {}", self.0.message)?;
            }
            return Ok(());
        }
        write!(
            f,
            "filter {text}: {}: {}",
            self.0.kind.describe(),
            self.0.message
        )
    }
}

impl std::error::Error for Error {}

/// Return early with a filter [`Error`]: `bail!(Kind, FILTER_ID, "fmt", args..)`.
macro_rules! bail {
    ($kind:ident, $id:expr, $($arg:tt)+) => {
        return ::core::result::Result::Err($crate::filter::Error::new(
            $crate::filter::ErrorKind::$kind, $id, format!($($arg)+)))
    };
}
/// Return early with a filter [`Error`] unless the condition holds.
macro_rules! ensure {
    ($cond:expr, $kind:ident, $id:expr, $($arg:tt)+) => {
        if !$cond {
            $crate::filter::bail!($kind, $id, $($arg)+);
        }
    };
}
pub(crate) use {bail, ensure};

/// The most filters a pipeline can hold (`H5Z_MAX_NFILTERS`).
pub const MAX_FILTERS: usize = 32;

/// How far intermediate results may exceed the chunk size: a stage adds at most a few bytes
/// (fletcher32 4, szip 4, nbit 1, scale-offset 22) or, for deflate of incompressible data,
/// zlib's `compressBound` overhead (about n/3000 + 13).
fn stage_limit(expected: usize) -> usize {
    expected.saturating_add(expected / 8).saturating_add(1024)
}

/// The result of one stage: the output is in the spare buffer, or is the input cut short.
enum Step {
    /// The stage wrote its output into the spare buffer.
    Replaced,
    /// The output is the first `n` bytes of the input.
    Truncated(usize),
    /// The output equals the input.
    Unchanged,
}

fn check_pipeline_len(filters: &[Filter]) -> Result<()> {
    if filters.len() > MAX_FILTERS {
        let id = filters.first().map_or(FilterId(0), |f| f.id);
        bail!(
            InvalidParameters,
            id,
            "pipeline has {} filters, at most {MAX_FILTERS} are allowed",
            filters.len()
        );
    }
    Ok(())
}

fn apply(step: Step, cur: &mut Vec<u8>, spare: &mut Vec<u8>) {
    match step {
        Step::Replaced => std::mem::swap(cur, spare),
        Step::Truncated(n) => cur.truncate(n),
        Step::Unchanged => {}
    }
}

/// Run the pipeline backwards over one stored chunk (reading): filters whose bit is set in
/// `filter_mask` are skipped. The result has exactly `ctx.expected_size` bytes.
pub fn decode_chunk(
    filters: &[Filter],
    filter_mask: u32,
    data: Vec<u8>,
    ctx: &ChunkInfo,
) -> Result<Vec<u8>> {
    check_pipeline_len(filters)?;
    let limit = stage_limit(ctx.expected_size);
    let mut cur = data;
    let mut spare = Vec::new();
    let mut last = None;
    for (idx, f) in filters.iter().enumerate().rev() {
        if filter_mask & (1u32 << idx) != 0 {
            continue;
        }
        let step = decode_one(f, &cur, &mut spare, limit, ctx)?;
        apply(step, &mut cur, &mut spare);
        last = Some(f.id);
    }
    if cur.len() != ctx.expected_size {
        let id = last.unwrap_or(FilterId(0));
        bail!(
            Corrupt,
            id,
            "chunk decodes to {} bytes, expected {}",
            cur.len(),
            ctx.expected_size
        );
    }
    Ok(cur)
}

fn decode_one(
    f: &Filter,
    input: &[u8],
    out: &mut Vec<u8>,
    limit: usize,
    ctx: &ChunkInfo,
) -> Result<Step> {
    let cd = &f.client_data[..];
    match f.id {
        FilterId::DEFLATE => deflate::decode(input, out, limit),
        FilterId::SHUFFLE => shuffle::decode(cd, input, out),
        FilterId::FLETCHER32 => fletcher32::decode(input, ctx.skip_checksum),
        FilterId::SZIP => szip::decode(cd, input, out, limit),
        FilterId::NBIT => nbit::decode(cd, input, out, limit),
        FilterId::SCALEOFFSET => scaleoffset::decode(cd, input, out, limit),
        FilterId::LZF => lzf::decode(input, out, limit),
        _ => Err(Error::unavailable(f)),
    }
}

/// Run the pipeline forwards over one chunk (writing). `filter_mask` has the bits of filters
/// to exclude; an optional filter that fails (or is unavailable) is skipped and its bit set,
/// as the reference library does. Returns the stored bytes and the chunk's filter mask.
pub fn encode_chunk(
    filters: &[Filter],
    filter_mask: u32,
    data: Vec<u8>,
    ctx: &ChunkInfo,
) -> Result<(Vec<u8>, u32)> {
    check_pipeline_len(filters)?;
    if data.len() != ctx.expected_size {
        let id = filters.first().map_or(FilterId(0), |f| f.id);
        bail!(
            InvalidParameters,
            id,
            "chunk has {} bytes, expected {}",
            data.len(),
            ctx.expected_size
        );
    }
    let mut failed = 0u32;
    let mut cur = data;
    let mut spare = Vec::new();
    for (idx, f) in filters.iter().enumerate() {
        let bit = 1u32 << idx;
        if filter_mask & bit != 0 {
            failed |= bit;
            continue;
        }
        match encode_one(f, &cur, &mut spare) {
            Ok(step) => apply(step, &mut cur, &mut spare),
            Err(_) if f.is_optional() => failed |= bit,
            Err(e) => return Err(e),
        }
    }
    Ok((cur, failed))
}

fn encode_one(f: &Filter, input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
    let cd = &f.client_data[..];
    match f.id {
        FilterId::DEFLATE => deflate::encode(cd, input, out),
        FilterId::SHUFFLE => shuffle::encode(cd, input, out),
        FilterId::FLETCHER32 => fletcher32::encode(input, out),
        FilterId::SZIP => szip::encode(cd, input, out),
        FilterId::NBIT => nbit::encode(cd, input, out),
        FilterId::SCALEOFFSET => scaleoffset::encode(cd, input, out),
        FilterId::LZF => lzf::encode(input, out),
        _ => Err(Error::unavailable(f)),
    }
}

/// Decode one filter stage on its own (no mask, no final size check): `input` is what the
/// filter produced when writing; the result is what it was given. `limit` caps the output.
pub fn decode_stage(filter: &Filter, input: &[u8], limit: usize) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let ctx = ChunkInfo::new(limit);
    match decode_one(filter, input, &mut out, limit, &ctx)? {
        Step::Replaced => Ok(out),
        Step::Truncated(n) => Ok(input.get(..n).unwrap_or(input).to_vec()),
        Step::Unchanged => Ok(input.to_vec()),
    }
}

/// Encode one filter stage on its own: an `Err` is a failure the pipeline would treat as
/// "skip if optional".
pub fn encode_stage(filter: &Filter, input: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    match encode_one(filter, input, &mut out)? {
        Step::Replaced => Ok(out),
        Step::Truncated(n) => Ok(input.get(..n).unwrap_or(input).to_vec()),
        Step::Unchanged => Ok(input.to_vec()),
    }
}

#[cfg(test)]
mod tests;
