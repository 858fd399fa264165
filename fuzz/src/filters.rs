//! Targets `filter_*`: one per filter decoder (szip, nbit, scale-offset, LZF, Zstd, LZ4,
//! BZip2, Bitshuffle, Blosc with BloscLZ, Blosc2). Each input picks a datatype, a chunk length and
//! the filter's options, then either decodes the rest of the input as a stored chunk (which
//! must fail cleanly or stay within the chunk's bound) or encodes the rest as a chunk and
//! decodes it again (which must give the chunk back).

use arbitrary::Unstructured;
use h5_format::message::filter_pipeline::{
    BitshuffleCompression, Blosc2Filter, BloscCodec, BloscShuffle, Filter, FilterId, SZIP_EC,
    SZIP_NN,
};
use h5_io::filter::{ChunkInfo, DecodeContext, FillValue, FilterRegistry, Step};
use h5_types::Datatype;

/// The datatypes a chunk may have: every integer width in both byte orders, and floats.
fn datatype(u: &mut Unstructured<'_>) -> arbitrary::Result<Datatype> {
    use h5_types::datatype::{ByteOrder, IntegerType, Sign};
    use h5_types::predefined::{IEEE_F32BE, IEEE_F32LE, IEEE_F64BE, IEEE_F64LE};
    Ok(match u.int_in_range(0..=4u8)? {
        0 => Datatype::Float(*u.choose(&[IEEE_F32LE, IEEE_F32BE, IEEE_F64LE, IEEE_F64BE])?),
        _ => {
            let size = *u.choose(&[1usize, 2, 4, 8])?;
            let order = if u.arbitrary()? {
                ByteOrder::BigEndian
            } else {
                ByteOrder::LittleEndian
            };
            let sign = if u.arbitrary()? {
                Sign::TwosComplement
            } else {
                Sign::None
            };
            Datatype::Integer(IntegerType::new(size, order, sign))
        }
    })
}

/// The filter description of `id` with options drawn from the input (before `set_local`),
/// and whether encoding then decoding must be the identity.
fn filter(
    u: &mut Unstructured<'_>,
    id: FilterId,
    dt: &Datatype,
) -> arbitrary::Result<(Filter, bool)> {
    let float = matches!(dt, Datatype::Float(_));
    Ok(match id {
        FilterId::SZIP => {
            let mask = if u.arbitrary()? { SZIP_NN } else { SZIP_EC };
            (Filter::szip(mask, 2 * u.int_in_range(1..=16)?), true)
        }
        FilterId::NBIT => (Filter::nbit(), true),
        FilterId::SCALEOFFSET => {
            if float {
                // D-scaling rounds: no identity.
                (Filter::scaleoffset(0, u.int_in_range(0..=6)?), false)
            } else {
                (Filter::scaleoffset(2, 0), true)
            }
        }
        FilterId::LZF => (Filter::lzf(), true),
        FilterId::ZSTD => (Filter::zstd(u.int_in_range(1..=22)?), true),
        FilterId::LZ4 => (
            Filter::new(FilterId::LZ4, vec![u.int_in_range(0..=4096)?]),
            true,
        ),
        FilterId::BZIP2 => (Filter::bzip2(u.int_in_range(1..=9)?), true),
        FilterId::BITSHUFFLE => {
            let c = *u.choose(&[
                BitshuffleCompression::None,
                BitshuffleCompression::Lz4,
                BitshuffleCompression::Zstd(3),
            ])?;
            let mut f = Filter::bitshuffle(c);
            f.client_data[0] = 8 * u.int_in_range(0..=64)?;
            (f, true)
        }
        FilterId::BLOSC2 => {
            let codec = *u.choose(&BLOSC_CODECS)?;
            let filter = *u.choose(&[
                Blosc2Filter::None,
                Blosc2Filter::Shuffle,
                Blosc2Filter::Bitshuffle,
                Blosc2Filter::Delta,
                Blosc2Filter::TruncPrec,
            ])?;
            let mut f = Filter::blosc2(codec, u.int_in_range(0..=9)?, filter);
            // The block size, now and then (0 lets Blosc2 choose).
            if u.ratio(1, 4)? {
                f.client_data[1] = u.int_in_range(1..=5000)?;
            }
            (f, true)
        }
        _ => {
            let codec = *u.choose(&BLOSC_CODECS)?;
            let shuffle =
                *u.choose(&[BloscShuffle::None, BloscShuffle::Byte, BloscShuffle::Bit])?;
            (Filter::blosc(codec, u.int_in_range(0..=9)?, shuffle), true)
        }
    })
}

const BLOSC_CODECS: [BloscCodec; 5] = [
    BloscCodec::BloscLz,
    BloscCodec::Lz4,
    BloscCodec::Lz4Hc,
    BloscCodec::Zlib,
    BloscCodec::Zstd,
];

/// Run one input against the decoder of `id`.
pub fn run_filter(u: &mut Unstructured<'_>, id: FilterId) -> arbitrary::Result<()> {
    let registry = FilterRegistry::shared();
    let dt = datatype(u)?;
    let n: u64 = u.int_in_range(1..=4096)?;
    let (f, identity) = filter(u, id, &dt)?;
    let Ok(mut local) = registry.set_local(&f, &dt, &[n], FillValue::Default) else {
        return Ok(());
    };
    let bytes = n as usize * dt.size();
    let encode: bool = u.arbitrary()?;
    if !encode {
        // Hostile client data too, now and then.
        if u.ratio(1, 8)? && !local.client_data.is_empty() {
            let i = u.choose_index(local.client_data.len())?;
            local.client_data[i] = u.arbitrary()?;
        }
        let stored = u.bytes(u.len())?;
        let codec = registry.get(id).expect("a built-in codec");
        let ctx = DecodeContext {
            limit: bytes,
            skip_checksum: false,
        };
        let mut out = Vec::new();
        // A stage that passes its input through (`Unchanged`, `Truncated`) allocates
        // nothing; one that writes must stay within the bound.
        if let Ok(Step::Replaced) = codec.decode(&local, stored, &mut out, &ctx) {
            assert!(
                out.len() <= bytes,
                "{id}: {} bytes out, bound {bytes}",
                out.len()
            );
        }
        return Ok(());
    }
    let mut plain = u.bytes(u.len().min(bytes))?.to_vec();
    // Short inputs: repeat them (compressible chunks reach the codecs' match paths).
    let seed = if plain.is_empty() {
        vec![0u8]
    } else {
        plain.clone()
    };
    while plain.len() < bytes {
        plain.push(seed[plain.len() % seed.len()]);
    }
    let ctx = ChunkInfo::new(bytes);
    let pipeline = std::slice::from_ref(&local);
    let Ok((enc, mask)) = registry.encode_chunk(pipeline, 0, plain.clone(), &ctx) else {
        return Ok(());
    };
    let back = registry
        .decode_chunk(pipeline, mask, enc, &ctx)
        .unwrap_or_else(|e| panic!("{id}: our own encoding does not decode: {e}"));
    if identity {
        assert_eq!(back, plain, "{id}: encode-then-decode changed the chunk");
    }
    Ok(())
}

macro_rules! targets {
    ($($name:ident => $id:expr),* $(,)?) => {$(
        #[doc = concat!("Target `filter_", stringify!($name), "`.")]
        pub mod $name {
            /// Decode or round-trip one input (see [`super::run_filter`]).
            pub fn run(u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<()> {
                super::run_filter(u, $id)
            }

            #[cfg(test)]
            #[test]
            fn smoke() {
                crate::smoke::run(concat!("filter_", stringify!($name)), run, &[], 600);
            }
        }
    )*};
}

targets! {
    szip => super::FilterId::SZIP,
    nbit => super::FilterId::NBIT,
    scaleoffset => super::FilterId::SCALEOFFSET,
    lzf => super::FilterId::LZF,
    zstd => super::FilterId::ZSTD,
    lz4 => super::FilterId::LZ4,
    bzip2 => super::FilterId::BZIP2,
    bitshuffle => super::FilterId::BITSHUFFLE,
    blosc => super::FilterId::BLOSC,
    blosc2 => super::FilterId::BLOSC2,
}
