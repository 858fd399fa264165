//! Filter descriptions as the reference library's `H5Pset_*` calls and the plugins' Python
//! helpers (h5py, hdf5plugin) add them to a pipeline, before any `set_local` fills in what
//! depends on the dataset.

use super::{Filter, FilterId};

/// Szip option mask bit `H5_SZIP_ALLOW_K13_OPTION_MASK`.
pub const SZIP_ALLOW_K13: u32 = 1;
/// Szip option mask bit `H5_SZIP_CHIP_OPTION_MASK`.
pub const SZIP_CHIP: u32 = 2;
/// Szip option mask bit `H5_SZIP_EC_OPTION_MASK`: entropy coding.
pub const SZIP_EC: u32 = 4;
/// Szip option mask bit `H5_SZIP_LSB_OPTION_MASK`.
pub const SZIP_LSB: u32 = 8;
/// Szip option mask bit `H5_SZIP_MSB_OPTION_MASK`.
pub const SZIP_MSB: u32 = 16;
/// Szip option mask bit `H5_SZIP_NN_OPTION_MASK`: nearest-neighbour preprocessing.
pub const SZIP_NN: u32 = 32;
/// Szip option mask bit `H5_SZIP_RAW_OPTION_MASK`.
pub const SZIP_RAW: u32 = 128;

/// Client data 0 of h5py's LZF filter (`H5PY_FILTER_LZF_VERSION`).
pub const LZF_FILTER_VERSION: u32 = 4;
/// Client data 1 of h5py's LZF filter (`LZF_VERSION`).
pub const LZF_VERSION: u32 = 0x0105;

/// The compressor inside a Blosc (or Blosc2) chunk: client data 6, the codes of
/// `blosc_compcode_to_compname`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum BloscCodec {
    /// BloscLZ, Blosc's own LZ77 variant.
    BloscLz = 0,
    /// LZ4.
    Lz4 = 1,
    /// LZ4 with the high-compression encoder (LZ4 blocks).
    Lz4Hc = 2,
    /// Zlib (deflate).
    Zlib = 4,
    /// Zstandard.
    Zstd = 5,
}

impl BloscCodec {
    /// The codec of client data value `code`.
    pub fn from_code(code: u32) -> Option<Self> {
        Some(match code {
            0 => BloscCodec::BloscLz,
            1 => BloscCodec::Lz4,
            2 => BloscCodec::Lz4Hc,
            4 => BloscCodec::Zlib,
            5 => BloscCodec::Zstd,
            _ => return None,
        })
    }

    /// The codec's name as Blosc spells it (`blosclz`, `lz4`, `lz4hc`, `zlib`, `zstd`).
    pub fn name(self) -> &'static str {
        match self {
            BloscCodec::BloscLz => "blosclz",
            BloscCodec::Lz4 => "lz4",
            BloscCodec::Lz4Hc => "lz4hc",
            BloscCodec::Zlib => "zlib",
            BloscCodec::Zstd => "zstd",
        }
    }

    /// The codec named `name` (as [`BloscCodec::name`] spells it).
    pub fn from_name(name: &str) -> Option<Self> {
        [
            BloscCodec::BloscLz,
            BloscCodec::Lz4,
            BloscCodec::Lz4Hc,
            BloscCodec::Zlib,
            BloscCodec::Zstd,
        ]
        .into_iter()
        .find(|c| c.name() == name)
    }
}

/// The shuffle Blosc applies before compressing: client data 5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum BloscShuffle {
    /// No shuffle (`BLOSC_NOSHUFFLE`).
    None = 0,
    /// Byte shuffle (`BLOSC_SHUFFLE`).
    Byte = 1,
    /// Bit shuffle (`BLOSC_BITSHUFFLE`).
    Bit = 2,
}

/// The filter Blosc2 applies to each block before compressing: client data 5
/// (hdf5plugin's `Blosc2(filters=...)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Blosc2Filter {
    /// No filter (`BLOSC_NOFILTER`).
    None = 0,
    /// Byte shuffle (`BLOSC_SHUFFLE`).
    Shuffle = 1,
    /// Bit shuffle (`BLOSC_BITSHUFFLE`).
    Bitshuffle = 2,
    /// Each block XORed with the first one, the first with itself shifted by an element
    /// (`BLOSC_DELTA`).
    Delta = 3,
    /// Zero the low mantissa bits of floats (`BLOSC_TRUNC_PREC`); lossy.
    TruncPrec = 4,
}

impl Blosc2Filter {
    /// The filter of client data value `code`.
    pub fn from_code(code: u32) -> Option<Self> {
        Some(match code {
            0 => Blosc2Filter::None,
            1 => Blosc2Filter::Shuffle,
            2 => Blosc2Filter::Bitshuffle,
            3 => Blosc2Filter::Delta,
            4 => Blosc2Filter::TruncPrec,
            _ => return None,
        })
    }
}

/// The compression inside a Bitshuffle chunk: client data 4 (and 5, the Zstd level).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitshuffleCompression {
    /// Bit shuffle only.
    None,
    /// Bit shuffle, then LZ4 per block (`BSHUF_H5_COMPRESS_LZ4`).
    Lz4,
    /// Bit shuffle, then Zstandard of this level per block (`BSHUF_H5_COMPRESS_ZSTD`).
    Zstd(u32),
}

/// `BSHUF_H5_COMPRESS_LZ4`.
pub const BITSHUFFLE_LZ4: u32 = 2;
/// `BSHUF_H5_COMPRESS_ZSTD`.
pub const BITSHUFFLE_ZSTD: u32 = 3;

impl Filter {
    /// `H5Pset_deflate(level)`: optional.
    pub fn deflate(level: u32) -> Self {
        Filter::new(FilterId::DEFLATE, vec![level]).optional()
    }

    /// `H5Pset_shuffle`: optional; the element size comes from `set_local`.
    pub fn shuffle() -> Self {
        Filter::new(FilterId::SHUFFLE, Vec::new()).optional()
    }

    /// `H5Pset_fletcher32`: mandatory.
    pub fn fletcher32() -> Self {
        Filter::new(FilterId::FLETCHER32, Vec::new())
    }

    /// `H5Pset_szip(options_mask, pixels_per_block)`: optional. As the reference library
    /// does, the chip option and byte-order bits are cleared and the K13 and raw options
    /// set; `set_local` adds byte order, bits per pixel and pixels per scanline.
    pub fn szip(options_mask: u32, pixels_per_block: u32) -> Self {
        let mask = (options_mask & !(SZIP_CHIP | SZIP_LSB | SZIP_MSB)) | SZIP_ALLOW_K13 | SZIP_RAW;
        Filter::new(FilterId::SZIP, vec![mask, pixels_per_block]).optional()
    }

    /// `H5Pset_nbit`: optional; all parameters come from `set_local`.
    pub fn nbit() -> Self {
        Filter::new(FilterId::NBIT, Vec::new()).optional()
    }

    /// `H5Pset_scaleoffset(scale_type, scale_factor)`: optional; `scale_type` 0 is float
    /// D-scaling (factor = decimal digits), 2 integer (factor = minimum bits, 0 to compute).
    pub fn scaleoffset(scale_type: u32, scale_factor: i32) -> Self {
        Filter::new(FilterId::SCALEOFFSET, vec![scale_type, scale_factor as u32]).optional()
    }

    /// h5py's LZF filter: optional; the chunk size comes from `set_local`.
    pub fn lzf() -> Self {
        Filter::new(FilterId::LZF, vec![LZF_FILTER_VERSION, LZF_VERSION, 0]).optional()
    }

    /// Zstandard at `level` (hdf5plugin's `Zstd(clevel)`, 1 to 22): optional, as h5py adds
    /// plugin filters.
    pub fn zstd(level: u32) -> Self {
        Filter::new(FilterId::ZSTD, vec![level]).optional()
    }

    /// LZ4 in the HDF5 LZ4 plugin's framing with its default block size (hdf5plugin's
    /// `LZ4()`): optional.
    pub fn lz4() -> Self {
        Filter::new(FilterId::LZ4, vec![0]).optional()
    }

    /// BZip2 with blocks of `level` × 100 kB, 1 to 9 (hdf5plugin's `BZip2(blocksize)`):
    /// optional.
    pub fn bzip2(level: u32) -> Self {
        Filter::new(FilterId::BZIP2, vec![level]).optional()
    }

    /// Bitshuffle with the default block size and `compression` inside (hdf5plugin's
    /// `Bitshuffle(nelems=0, cname)`): optional. `set_local` puts the format version and
    /// the element size in front.
    pub fn bitshuffle(compression: BitshuffleCompression) -> Self {
        let cd = match compression {
            BitshuffleCompression::None => vec![0, 0],
            BitshuffleCompression::Lz4 => vec![0, BITSHUFFLE_LZ4],
            BitshuffleCompression::Zstd(level) => vec![0, BITSHUFFLE_ZSTD, level],
        };
        Filter::new(FilterId::BITSHUFFLE, cd).optional()
    }

    /// Blosc with `codec` at `level` (0 to 9) after `shuffle` (hdf5plugin's
    /// `Blosc(cname, clevel, shuffle)`): optional. `set_local` fills in the filter and
    /// format versions, the type size and the chunk size.
    pub fn blosc(codec: BloscCodec, level: u32, shuffle: BloscShuffle) -> Self {
        Filter::new(
            FilterId::BLOSC,
            vec![0, 0, 0, 0, level, shuffle as u32, codec as u32],
        )
        .optional()
    }

    /// Blosc2 with `codec` at `level` (0 to 9) after `filter` (hdf5plugin's
    /// `Blosc2(cname, clevel, filters)`): optional. `set_local` fills in the filter
    /// revision, the type size, the chunk size and (for chunks of rank 2 and more) the
    /// chunk's rank and dimensions.
    pub fn blosc2(codec: BloscCodec, level: u32, filter: Blosc2Filter) -> Self {
        Filter::new(
            FilterId::BLOSC2,
            vec![0, 0, 0, 0, level, filter as u32, codec as u32],
        )
        .optional()
    }
}
