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
//! chunk's expected size. [`FilterRegistry::set_local`] computes those parameters from a datatype and the
//! chunk's shape when a dataset is created.
//!
//! Hostile input: every decoder returns `Err` on corrupt data, never panics, and never
//! produces (or allocates for) more than a bound derived from [`ChunkInfo::expected_size`].
//!
//! The codecs are values implementing [`FilterCodec`], collected in a [`FilterRegistry`]
//! passed through the open options and the writer; a user registers codecs of their own
//! for any id. The free functions ([`decode_chunk`], [`encode_chunk`], [`set_local`], ...)
//! use the built-in registry.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use h5_types::Datatype;

mod bits;
#[cfg(feature = "bitshuffle")]
mod bitshuffle;
#[cfg(feature = "blosc")]
mod blosc;
#[cfg(feature = "blosc2")]
mod blosc2;
#[cfg(feature = "blosc")]
mod blosclz;
#[cfg(feature = "bzip2")]
mod bzip2;
mod deflate;
mod fletcher32;
mod local;
#[cfg(feature = "lz4")]
mod lz4;
mod lzf;
mod nbit;
mod scaleoffset;
#[cfg(any(feature = "bitshuffle", feature = "blosc"))]
mod scratch;
mod shuffle;
mod szip;
#[cfg(feature = "zstd")]
mod zstd;

pub use fletcher32::fletcher32;
pub use h5_format::message::filter_pipeline::{
    BitshuffleCompression, Blosc2Filter, BloscCodec, BloscShuffle, Filter, FilterId,
    SZIP_ALLOW_K13, SZIP_CHIP, SZIP_EC, SZIP_LSB, SZIP_MSB, SZIP_NN, SZIP_RAW,
};
pub use local::FillValue;

/// What a filter's `set_local` sees of the dataset being created.
#[derive(Clone, Copy, Debug)]
pub struct LocalInfo<'a> {
    /// The dataset's datatype (as stored).
    pub datatype: &'a Datatype,
    /// The chunk dimensions, in elements.
    pub chunk_dims: &'a [u64],
    /// The dataset's fill value.
    pub fill: FillValue<'a>,
}

/// What a decoder may produce: its output must not exceed [`DecodeContext::limit`] bytes,
/// and it must check that before allocating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeContext {
    /// The most bytes this stage may produce (the chunk size plus an allowance for the
    /// headers of the stages before it).
    pub limit: usize,
    /// Skip verifying checksums.
    pub skip_checksum: bool,
}

/// A filter codec: one filter id's `set_local`, decoder and encoder. Register one in a
/// [`FilterRegistry`] to read and write datasets that use its id.
///
/// Decoders are hostile-input code: they return `Err` for corrupt input, never panic, and
/// never produce (or allocate for) more than [`DecodeContext::limit`] bytes.
pub trait FilterCodec: Send + Sync {
    /// The filter id the codec implements.
    fn id(&self) -> FilterId;

    /// The filter's name (used in messages and stored in the pipeline of datasets created
    /// with a filter description that has none).
    fn name(&self) -> &str;

    /// The filter with the client data its `set_local` callback stores for a dataset: the
    /// parameters that depend on the datatype and the chunk shape. The default keeps the
    /// filter as it is.
    fn set_local(&self, filter: &Filter, local: &LocalInfo<'_>) -> Result<Filter> {
        let _ = local;
        Ok(filter.clone())
    }

    /// Undo the filter (reading): `input` is what the filter produced when writing. Write
    /// the result into `out` (which may hold anything; clear it first) and return
    /// [`Step::Replaced`], or return one of the steps that keep the input.
    fn decode(
        &self,
        filter: &Filter,
        input: &[u8],
        out: &mut Vec<u8>,
        ctx: &DecodeContext,
    ) -> Result<Step>;

    /// Undo the filter straight into `out`, the caller's memory for the whole decoded chunk
    /// (what a read asks of the last stage it undoes, when the chunk lands in the caller's
    /// buffer as it is), and return the bytes the stage produces: the pipeline then checks
    /// that they are exactly `out.len()`. Output that would not fit in `out` is an error.
    /// `None`: the codec cannot, and the pipeline decodes through [`FilterCodec::decode`]
    /// and copies the result. The default returns `None`.
    fn decode_into(
        &self,
        filter: &Filter,
        input: &[u8],
        out: &mut [u8],
        ctx: &DecodeContext,
    ) -> Result<Option<usize>> {
        let _ = (filter, input, out, ctx);
        Ok(None)
    }

    /// Apply the filter (writing), as [`FilterCodec::decode`] does the reverse. An `Err`
    /// of an optional filter makes the pipeline store the chunk without it.
    fn encode(&self, filter: &Filter, input: &[u8], out: &mut Vec<u8>) -> Result<Step>;
}

/// The filter codecs a file is read or written with, by id. [`FilterRegistry::default`]
/// holds every built-in codec (those of the cargo features enabled); users add their own
/// with [`FilterRegistry::register`]. A value, passed through the open options and the
/// writer: there is no global registry to change.
#[derive(Clone)]
pub struct FilterRegistry {
    /// Shared between clones (every open's options hold one) until one of them changes.
    /// `None`: the built-in codecs, built the first time a filter is looked up (an open
    /// that decodes nothing filtered never builds them).
    codecs: Option<Arc<Codecs>>,
}

type Codecs = BTreeMap<FilterId, Arc<dyn FilterCodec>>;

impl FilterRegistry {
    /// A registry with no codecs at all.
    pub fn empty() -> Self {
        FilterRegistry {
            codecs: Some(Arc::new(BTreeMap::new())),
        }
    }

    /// The built-in codecs: deflate, shuffle, fletcher32, szip, nbit, scale-offset, LZF
    /// and those of the plugin filters whose cargo features are enabled (Zstandard, LZ4,
    /// BZip2, Bitshuffle, Blosc, Blosc2).
    pub fn builtin() -> Self {
        let mut r = Self::empty();
        r.register(deflate::Deflate);
        r.register(shuffle::Shuffle);
        r.register(fletcher32::Fletcher32);
        r.register(szip::Szip);
        r.register(nbit::Nbit);
        r.register(scaleoffset::ScaleOffset);
        r.register(lzf::Lzf);
        #[cfg(feature = "zstd")]
        r.register(zstd::Zstd);
        #[cfg(feature = "lz4")]
        r.register(lz4::Lz4);
        #[cfg(feature = "bzip2")]
        r.register(bzip2::Bzip2);
        #[cfg(feature = "bitshuffle")]
        r.register(bitshuffle::Bitshuffle);
        #[cfg(feature = "blosc")]
        r.register(blosc::Blosc);
        #[cfg(feature = "blosc2")]
        r.register(blosc2::Blosc2);
        r
    }

    /// The built-in registry, shared (built once; immutable).
    pub fn shared() -> &'static FilterRegistry {
        static BUILTIN: OnceLock<FilterRegistry> = OnceLock::new();
        BUILTIN.get_or_init(FilterRegistry::builtin)
    }

    /// The codecs: this registry's, or the built-in ones it stands for.
    fn map(&self) -> &Codecs {
        match &self.codecs {
            Some(c) => c,
            None => FilterRegistry::shared().map(),
        }
    }

    /// The codecs to change, this registry's own from now on.
    fn map_mut(&mut self) -> &mut Codecs {
        let codecs = self
            .codecs
            .get_or_insert_with(|| FilterRegistry::shared().codecs.clone().unwrap_or_default());
        Arc::make_mut(codecs)
    }

    /// Add `codec` for its id, replacing (and returning) the one registered before.
    pub fn register(&mut self, codec: impl FilterCodec + 'static) -> Option<Arc<dyn FilterCodec>> {
        self.register_arc(Arc::new(codec))
    }

    /// [`FilterRegistry::register`] for a codec already shared.
    pub fn register_arc(&mut self, codec: Arc<dyn FilterCodec>) -> Option<Arc<dyn FilterCodec>> {
        self.map_mut().insert(codec.id(), codec)
    }

    /// Remove the codec of `id`.
    pub fn unregister(&mut self, id: FilterId) -> Option<Arc<dyn FilterCodec>> {
        self.map_mut().remove(&id)
    }

    /// The codec of `id`, if registered.
    pub fn get(&self, id: FilterId) -> Option<&dyn FilterCodec> {
        self.map().get(&id).map(|c| &**c)
    }

    /// Whether a codec is registered for `id`.
    pub fn contains(&self, id: FilterId) -> bool {
        self.map().contains_key(&id)
    }

    /// The registered ids, in order.
    pub fn ids(&self) -> impl Iterator<Item = FilterId> + '_ {
        self.map().keys().copied()
    }

    fn codec(&self, f: &Filter) -> Result<&dyn FilterCodec> {
        self.get(f.id).ok_or_else(|| Error::unavailable(f))
    }

    /// The filter with the client data its `set_local` stores for a dataset of `datatype`
    /// with chunks of `chunk_dims`. Filters without a registered codec come back
    /// unchanged (an optional one is then skipped when writing).
    pub fn set_local(
        &self,
        filter: &Filter,
        datatype: &Datatype,
        chunk_dims: &[u64],
        fill: FillValue<'_>,
    ) -> Result<Filter> {
        match self.get(filter.id) {
            Some(c) => c.set_local(
                filter,
                &LocalInfo {
                    datatype,
                    chunk_dims,
                    fill,
                },
            ),
            None => Ok(filter.clone()),
        }
    }

    /// Run the pipeline backwards over one stored chunk (reading): filters whose bit is
    /// set in `filter_mask` are skipped. The result has exactly `ctx.expected_size` bytes.
    pub fn decode_chunk(
        &self,
        filters: &[Filter],
        filter_mask: u32,
        data: Vec<u8>,
        ctx: &ChunkInfo,
    ) -> Result<Vec<u8>> {
        self.decode_chunk_in(filters, filter_mask, data, ctx, &BufferPool::new(0))
    }

    /// [`FilterRegistry::decode_chunk`] with the stages' spare buffer taken from `pool`
    /// and given back to it.
    pub(crate) fn decode_chunk_in(
        &self,
        filters: &[Filter],
        filter_mask: u32,
        data: Vec<u8>,
        ctx: &ChunkInfo,
        pool: &BufferPool,
    ) -> Result<Vec<u8>> {
        check_pipeline_len(filters)?;
        let dctx = DecodeContext {
            limit: stage_limit(ctx.expected_size),
            skip_checksum: ctx.skip_checksum,
        };
        let mut cur = data;
        let mut spare = Vec::new();
        let mut last = None;
        for idx in active(filters, filter_mask) {
            last = Some(self.undo(
                &filters[idx],
                &mut cur,
                &mut spare,
                ctx.expected_size,
                &dctx,
                pool,
            )?);
        }
        pool.give_for(spare, ctx.expected_size);
        check_decoded(cur.len(), ctx.expected_size, last)?;
        Ok(cur)
    }

    /// [`FilterRegistry::decode_chunk_in`] with the decoded chunk written into `out`, which
    /// must be `ctx.expected_size` bytes (the caller's memory for the chunk). The last stage
    /// undone writes there itself when its codec can ([`FilterCodec::decode_into`]: deflate
    /// inflates into it, shuffle unshuffles into it), so the decoded chunk is never held in
    /// a buffer of its own; otherwise it is decoded as usual and copied. `data` and the
    /// stages' buffers go back to `pool`.
    pub(crate) fn decode_chunk_into(
        &self,
        filters: &[Filter],
        filter_mask: u32,
        data: Vec<u8>,
        ctx: &ChunkInfo,
        pool: &BufferPool,
        out: &mut [u8],
    ) -> Result<()> {
        check_pipeline_len(filters)?;
        let expected = ctx.expected_size;
        if out.len() != expected {
            let id = filters.first().map_or(FilterId(0), |f| f.id);
            bail!(
                InvalidParameters,
                id,
                "a buffer of {} bytes for a chunk of {expected}",
                out.len()
            );
        }
        let dctx = DecodeContext {
            limit: stage_limit(expected),
            skip_checksum: ctx.skip_checksum,
        };
        let stages: Vec<usize> = active(filters, filter_mask).collect();
        let mut cur = data;
        let mut spare = Vec::new();
        let result = (|| {
            let Some((&final_stage, before)) = stages.split_last() else {
                // Every filter skipped: the chunk is stored as it is.
                check_decoded(cur.len(), expected, None)?;
                out.copy_from_slice(&cur);
                return Ok(());
            };
            for &idx in before {
                self.undo(
                    &filters[idx],
                    &mut cur,
                    &mut spare,
                    ctx.expected_size,
                    &dctx,
                    pool,
                )?;
            }
            let f = &filters[final_stage];
            let into = DecodeContext {
                limit: expected,
                ..dctx
            };
            match self.codec(f)?.decode_into(f, &cur, out, &into)? {
                Some(n) => check_decoded(n, expected, Some(f.id)),
                None => {
                    self.undo(f, &mut cur, &mut spare, expected, &dctx, pool)?;
                    check_decoded(cur.len(), expected, Some(f.id))?;
                    out.copy_from_slice(&cur);
                    Ok(())
                }
            }
        })();
        pool.give_for(spare, expected);
        pool.give_for(cur, expected);
        result
    }

    /// Undo one stage: `cur` becomes its output (`spare` holds what is left over, a buffer
    /// for the next stage, first made one of `need` bytes from `pool` when it is smaller).
    /// Returns the filter's id.
    fn undo(
        &self,
        f: &Filter,
        cur: &mut Vec<u8>,
        spare: &mut Vec<u8>,
        need: usize,
        dctx: &DecodeContext,
        pool: &BufferPool,
    ) -> Result<FilterId> {
        pool.replace_if_smaller(spare, need);
        let step = self.codec(f)?.decode(f, cur, spare, dctx)?;
        apply(step, cur, spare);
        Ok(f.id)
    }

    /// Run the pipeline forwards over one chunk (writing). `filter_mask` has the bits of
    /// filters to exclude; an optional filter that fails (or is unavailable) is skipped and
    /// its bit set, as the reference library does. Returns the stored bytes and the
    /// chunk's filter mask.
    pub fn encode_chunk(
        &self,
        filters: &[Filter],
        filter_mask: u32,
        data: Vec<u8>,
        ctx: &ChunkInfo,
    ) -> Result<(Vec<u8>, u32)> {
        self.encode_chunk_in(filters, filter_mask, data, ctx, &BufferPool::new(0))
    }

    /// [`FilterRegistry::encode_chunk`] with the stages' spare buffer taken from `pool` and
    /// given back to it, as is `data`'s buffer once a stage has replaced it. When `pool`
    /// keeps buffers, a result much smaller than the buffer holding it (a compressed chunk
    /// in a chunk-sized buffer) is copied out and the buffer goes back to `pool` too, so a
    /// write that keeps every encoded chunk until it has encoded them all keeps only their
    /// bytes.
    pub(crate) fn encode_chunk_in(
        &self,
        filters: &[Filter],
        filter_mask: u32,
        data: Vec<u8>,
        ctx: &ChunkInfo,
        pool: &BufferPool,
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
        let mut spare = pool.take();
        for (idx, f) in filters.iter().enumerate() {
            let bit = 1u32 << idx;
            if filter_mask & bit != 0 {
                failed |= bit;
                continue;
            }
            match self.codec(f).and_then(|c| c.encode(f, &cur, &mut spare)) {
                Ok(step) => apply(step, &mut cur, &mut spare),
                Err(_) if f.is_optional() => failed |= bit,
                Err(e) => {
                    pool.give(spare);
                    pool.give(cur);
                    return Err(e);
                }
            }
        }
        pool.give(spare);
        if pool.keeps_buffers() && cur.capacity() / 2 > cur.len() {
            let exact = cur.to_vec();
            pool.give(cur);
            cur = exact;
        }
        Ok((cur, failed))
    }

    /// Decode one filter stage on its own (no mask, no final size check): `input` is what
    /// the filter produced when writing; the result is what it was given. `limit` caps the
    /// output.
    pub fn decode_stage(&self, filter: &Filter, input: &[u8], limit: usize) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        let ctx = DecodeContext {
            limit,
            skip_checksum: false,
        };
        let step = self.codec(filter)?.decode(filter, input, &mut out, &ctx)?;
        Ok(step.resolve(input, out))
    }

    /// Encode one filter stage on its own: an `Err` is a failure the pipeline would treat
    /// as "skip if optional".
    pub fn encode_stage(&self, filter: &Filter, input: &[u8]) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        let step = self.codec(filter)?.encode(filter, input, &mut out)?;
        Ok(step.resolve(input, out))
    }
}

impl Default for FilterRegistry {
    /// The built-in codecs ([`FilterRegistry::builtin`]), shared, and built only when a
    /// filter is first looked up.
    fn default() -> Self {
        FilterRegistry { codecs: None }
    }
}

impl fmt::Debug for FilterRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.map().keys()).finish()
    }
}

/// [`FilterRegistry::set_local`] with the built-in codecs.
pub fn set_local(
    filter: &Filter,
    datatype: &Datatype,
    chunk_dims: &[u64],
    fill: FillValue<'_>,
) -> Result<Filter> {
    FilterRegistry::shared().set_local(filter, datatype, chunk_dims, fill)
}

/// [`FilterRegistry::decode_chunk`] with the built-in codecs.
pub fn decode_chunk(
    filters: &[Filter],
    filter_mask: u32,
    data: Vec<u8>,
    ctx: &ChunkInfo,
) -> Result<Vec<u8>> {
    FilterRegistry::shared().decode_chunk(filters, filter_mask, data, ctx)
}

/// [`FilterRegistry::encode_chunk`] with the built-in codecs.
pub fn encode_chunk(
    filters: &[Filter],
    filter_mask: u32,
    data: Vec<u8>,
    ctx: &ChunkInfo,
) -> Result<(Vec<u8>, u32)> {
    FilterRegistry::shared().encode_chunk(filters, filter_mask, data, ctx)
}

/// [`FilterRegistry::decode_stage`] with the built-in codecs.
pub fn decode_stage(filter: &Filter, input: &[u8], limit: usize) -> Result<Vec<u8>> {
    FilterRegistry::shared().decode_stage(filter, input, limit)
}

/// [`FilterRegistry::encode_stage`] with the built-in codecs.
pub fn encode_stage(filter: &Filter, input: &[u8]) -> Result<Vec<u8>> {
    FilterRegistry::shared().encode_stage(filter, input)
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

    /// The error for a filter no codec is registered for: it names the filter's id, name
    /// and client data.
    #[cold]
    pub fn unavailable(filter: &Filter) -> Self {
        let mut e = Error::new(
            ErrorKind::Unavailable,
            filter.id,
            format!("client data {:?}", filter.client_data),
        );
        e.0.filter_text = Some(filter.to_string());
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The stage wrote its output into the spare buffer (`out`).
    Replaced,
    /// The output is the first `n` bytes of the input.
    Truncated(usize),
    /// The output equals the input.
    Unchanged,
}

impl Step {
    fn resolve(self, input: &[u8], out: Vec<u8>) -> Vec<u8> {
        match self {
            Step::Replaced => out,
            Step::Truncated(n) => input.get(..n).unwrap_or(input).to_vec(),
            Step::Unchanged => input.to_vec(),
        }
    }
}

/// The indices of the filters a chunk with `filter_mask` was filtered with, in the order
/// reading undoes them (last applied first).
fn active(filters: &[Filter], filter_mask: u32) -> impl Iterator<Item = usize> + '_ {
    (0..filters.len())
        .rev()
        .filter(move |&i| filter_mask & (1u32 << i) == 0)
}

/// A chunk decoded to `got` bytes must be exactly the `expected` bytes of a chunk (`last`:
/// the filter undone last).
fn check_decoded(got: usize, expected: usize, last: Option<FilterId>) -> Result<()> {
    if got != expected {
        bail!(
            Corrupt,
            last.unwrap_or(FilterId(0)),
            "chunk decodes to {got} bytes, expected {expected}"
        );
    }
    Ok(())
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

/// Buffers a read hands from one chunk decode to the next (the spare of each pipeline
/// stage, and decoded chunks their reader is done with): a read decoding chunk after chunk
/// then works in memory it has already touched instead of faulting in fresh pages for every
/// stage of every chunk. It holds at most a fixed number of buffers of at most
/// [`BufferPool::MAX_CAPACITY`] bytes each, and is dropped with the read.
#[derive(Debug)]
pub(crate) struct BufferPool {
    bufs: std::sync::Mutex<Vec<Vec<u8>>>,
    /// Buffers smaller than a stage needs (a chunk's stored bytes, once decoded), for the
    /// next chunks' stored bytes ([`BufferPool::take_stored`]).
    stored: std::sync::Mutex<Vec<Vec<u8>>>,
    max_buffers: usize,
}

impl BufferPool {
    /// Buffers larger than this go back to the allocator.
    const MAX_CAPACITY: usize = 16 << 20;

    /// A pool keeping at most `max_buffers` buffers.
    pub(crate) fn new(max_buffers: usize) -> Self {
        BufferPool {
            bufs: std::sync::Mutex::new(Vec::new()),
            stored: std::sync::Mutex::new(Vec::new()),
            max_buffers,
        }
    }

    /// An empty buffer, with the capacity of the largest recycled one when the pool has
    /// one.
    pub(crate) fn take(&self) -> Vec<u8> {
        Self::take_largest(&self.bufs)
    }

    /// The buffer of `list` with the largest capacity, or a new empty one.
    fn take_largest(list: &std::sync::Mutex<Vec<Vec<u8>>>) -> Vec<u8> {
        let mut bufs = list.lock().unwrap_or_else(|p| p.into_inner());
        match (0..bufs.len()).max_by_key(|&i| bufs[i].capacity()) {
            Some(i) => bufs.swap_remove(i),
            None => Vec::new(),
        }
    }

    /// Keep `buf` in `list` when it holds memory, is not too large and `list` has room.
    fn keep(&self, list: &std::sync::Mutex<Vec<Vec<u8>>>, buf: Vec<u8>) {
        if buf.capacity() == 0 || buf.capacity() > Self::MAX_CAPACITY {
            return;
        }
        let mut bufs = list.lock().unwrap_or_else(|p| p.into_inner());
        if bufs.len() < self.max_buffers {
            bufs.push(buf);
        }
    }

    /// Make `buf` (empty or not, its contents are dropped) one of at least `need` bytes of
    /// capacity when the pool has one, giving the smaller back.
    fn replace_if_smaller(&self, buf: &mut Vec<u8>, need: usize) {
        if buf.capacity() >= need {
            return;
        }
        let other = self.take();
        if other.capacity() > buf.capacity() {
            self.give(std::mem::replace(buf, other));
        } else {
            self.give(other);
        }
    }

    /// [`BufferPool::give`] a buffer that can hold a stage's output for a chunk of `need`
    /// bytes; a smaller one (a chunk's stored bytes, say) is kept apart for
    /// [`BufferPool::take_stored`], so the stages are not handed buffers they would grow.
    fn give_for(&self, buf: Vec<u8>, need: usize) {
        if buf.capacity() >= need {
            self.give(buf);
        } else {
            self.keep(&self.stored, buf);
        }
    }

    /// A buffer for a chunk's stored bytes (of any length and contents, for the storage to
    /// fill: [`h5_format::storage::Storage::read_ranges_into`]): the largest kept one, so
    /// reading chunk after chunk reuses memory it has touched, or a new empty one.
    pub(crate) fn take_stored(&self) -> Vec<u8> {
        Self::take_largest(&self.stored)
    }

    /// Whether the pool keeps any buffer at all.
    pub(crate) fn keeps_buffers(&self) -> bool {
        self.max_buffers > 0
    }

    /// Keep `buf` for a later [`BufferPool::take`] (dropped when the pool is full or it is
    /// too large).
    pub(crate) fn give(&self, mut buf: Vec<u8>) {
        buf.clear();
        self.keep(&self.bufs, buf);
    }
}

fn apply(step: Step, cur: &mut Vec<u8>, spare: &mut Vec<u8>) {
    match step {
        Step::Replaced => std::mem::swap(cur, spare),
        Step::Truncated(n) => cur.truncate(n),
        Step::Unchanged => {}
    }
}

#[cfg(test)]
mod tests;
