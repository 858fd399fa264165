//! Byte-literal tests of the codecs' edge cases and a corruption smoke test.

use super::*;

fn f(id: FilterId, cd: &[u32]) -> Filter {
    Filter::new(id, cd.to_vec())
}

#[test]
fn fletcher32_literals() {
    // Words 0x0102, then the odd byte as 0x0300.
    assert_eq!(fletcher32(&[1, 2, 3]), 0x0504_0402);
    assert_eq!(fletcher32(&[1, 2]), 0x0102_0102);
    assert_eq!(fletcher32(&[]), 0);
    // 0xffff words reduce to 0xffff, not 0.
    assert_eq!(fletcher32(&[0xff, 0xff]), 0xffff_ffff);
}

#[test]
fn fletcher32_filter_accepts_swapped_and_rejects_wrong() {
    let fl = Filter::fletcher32();
    let stored = encode_stage(&fl, &[1, 2, 3]).unwrap();
    assert_eq!(stored, [1, 2, 3, 0x02, 0x04, 0x04, 0x05]);
    assert_eq!(decode_stage(&fl, &stored, 3).unwrap(), [1, 2, 3]);
    // Pre-1.6.3 byte order within each half.
    assert_eq!(
        decode_stage(&fl, &[1, 2, 3, 0x04, 0x02, 0x05, 0x04], 3).unwrap(),
        [1, 2, 3]
    );
    let e = decode_stage(&fl, &[1, 2, 3, 0, 0, 0, 0], 3).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ChecksumMismatch);
    assert_eq!(
        decode_stage(&fl, &[1, 2, 3], 3).unwrap_err().kind(),
        ErrorKind::Corrupt
    );
    // Skipping the check strips the checksum unverified.
    let ctx = ChunkInfo {
        expected_size: 3,
        skip_checksum: true,
    };
    assert_eq!(
        decode_chunk(&[fl], 0, vec![1, 2, 3, 0, 0, 0, 0], &ctx).unwrap(),
        [1, 2, 3]
    );
}

#[test]
fn shuffle_remainder_and_trivial_cases() {
    let sh = f(FilterId::SHUFFLE, &[4]);
    // Two whole elements and two leftover bytes, which stay at the end.
    let data = [0, 1, 2, 3, 10, 11, 12, 13, 98, 99];
    let s = encode_stage(&sh, &data).unwrap();
    assert_eq!(s, [0, 10, 1, 11, 2, 12, 3, 13, 98, 99]);
    assert_eq!(decode_stage(&sh, &s, 10).unwrap(), data);
    // One element, or one-byte elements: unchanged.
    assert_eq!(
        encode_stage(&sh, &[1, 2, 3, 4, 5]).unwrap(),
        [1, 2, 3, 4, 5]
    );
    let one = f(FilterId::SHUFFLE, &[1]);
    assert_eq!(encode_stage(&one, &[1, 2, 3]).unwrap(), [1, 2, 3]);
    assert_eq!(encode_stage(&sh, &[]).unwrap(), Vec::<u8>::new());
    // Sizes with and without a specialised path, many elements (blocked transpose).
    for size in [2u32, 3, 4, 5, 8, 16, 24] {
        let n = 53 * size as usize + 3;
        let data: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
        let s = encode_stage(&f(FilterId::SHUFFLE, &[size]), &data).unwrap();
        let elems = n / size as usize;
        for i in 0..elems {
            for j in 0..size as usize {
                assert_eq!(s[j * elems + i], data[i * size as usize + j]);
            }
        }
        assert_eq!(
            decode_stage(&f(FilterId::SHUFFLE, &[size]), &s, n).unwrap(),
            data
        );
    }
    assert_eq!(
        encode_stage(&f(FilterId::SHUFFLE, &[0]), &[1])
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidParameters
    );
}

#[test]
fn deflate_levels_and_limits() {
    let data: Vec<u8> = (0..1000u32).flat_map(|i| (i / 10).to_le_bytes()).collect();
    for level in 0..=9 {
        let d = Filter::deflate(level);
        let c = encode_stage(&d, &data).unwrap();
        if level == 0 {
            // Stored blocks are larger than the input; the reference library keeps them.
            assert!(c.len() > data.len());
            assert_eq!(decode_stage(&d, &c, data.len()).unwrap(), data);
            continue;
        }
        assert!(c.len() < data.len());
        assert_eq!(decode_stage(&d, &c, data.len()).unwrap(), data);
        // One byte less room than needed.
        assert_eq!(
            decode_stage(&d, &c, data.len() - 1).unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
        // Truncated stream.
        assert!(decode_stage(&d, &c[..c.len() / 2], data.len()).is_err());
    }
    assert_eq!(
        encode_stage(&Filter::deflate(10), &data)
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidParameters
    );
}

#[test]
fn nbit_literals() {
    // u16 little-endian, 4 significant bits at offset 2: values 0b1011 and 0b0110.
    let cd = [8, 0, 2, 1, 2, 0, 4, 2];
    let nb = f(FilterId::NBIT, &cd);
    let data = [0b1011 << 2, 0, 0b0110 << 2, 0];
    let packed = encode_stage(&nb, &data).unwrap();
    // 8 bits: 1011 0110, then the trailing byte the reference library always adds.
    assert_eq!(packed, [0b1011_0110, 0]);
    assert_eq!(decode_stage(&nb, &packed, 4).unwrap(), data);
    // Big-endian, 12 bits at offset 0 of a u16: 0xABC, 0x123.
    let cd = [8, 0, 2, 1, 2, 1, 12, 0];
    let nb = f(FilterId::NBIT, &cd);
    let data = [0x0A, 0xBC, 0x01, 0x23];
    let packed = encode_stage(&nb, &data).unwrap();
    assert_eq!(packed, [0xAB, 0xC1, 0x23, 0]);
    assert_eq!(decode_stage(&nb, &packed, 4).unwrap(), data);
    // Padding bits are dropped on the way in and zero on the way out.
    let cd = [8, 0, 1, 1, 1, 0, 3, 2];
    let nb = f(FilterId::NBIT, &cd);
    let packed = encode_stage(&nb, &[0xFF]).unwrap();
    assert_eq!(packed, [0b1110_0000]);
    assert_eq!(decode_stage(&nb, &packed, 1).unwrap(), [0b0001_1100]);
    // "No need to compress" passes data through.
    let nb = f(FilterId::NBIT, &[8, 1, 1, 1, 4, 0, 32, 0]);
    assert_eq!(encode_stage(&nb, &[1, 2, 3, 4]).unwrap(), [1, 2, 3, 4]);
    // Short packed data, wrong parameter count, truncated parameter lists.
    let nb = f(FilterId::NBIT, &[8, 0, 2, 1, 2, 0, 4, 2]);
    assert_eq!(
        decode_stage(&nb, &[], 4).unwrap_err().kind(),
        ErrorKind::Corrupt
    );
    let bad = f(FilterId::NBIT, &[9, 0, 2, 1, 2, 0, 4, 2]);
    assert_eq!(
        decode_stage(&bad, &[0, 0], 4).unwrap_err().kind(),
        ErrorKind::InvalidParameters
    );
    let short = f(FilterId::NBIT, &[6, 0, 2, 2, 4, 1]);
    assert_eq!(
        decode_stage(&short, &[0, 0], 8).unwrap_err().kind(),
        ErrorKind::InvalidParameters
    );
}

#[test]
fn nbit_compound_and_array_round_trip() {
    // Compound of 8 bytes: u16 (10 bits at 3) at 0, a 3-byte no-op member at 2, and an
    // array of 3 bytes (2 bits at offset 6) at 5.
    let cd = vec![
        0, 0, 3, 3, 8, 3, // header: class compound, size 8, 3 members
        0, 1, 2, 0, 10, 3, // member 0: atomic
        2, 4, 3, // member 1: no-op of 3 bytes
        5, 2, 3, 1, 1, 0, 2, 6, // member 2: array of 3 atomic bytes
    ];
    let mut cd = cd;
    cd[0] = cd.len() as u32;
    let nb = f(FilterId::NBIT, &cd);
    let mut data = Vec::new();
    for e in 0..3u16 {
        data.extend_from_slice(&(((e * 300) & 0x3ff) << 3).to_le_bytes());
        data.extend_from_slice(&[e as u8, 0xAA, 0x55]);
        data.extend_from_slice(&[(e as u8 & 3) << 6, 0x80, 0x40]);
    }
    let packed = encode_stage(&nb, &data).unwrap();
    // 3 × (10 + 24 + 6) bits = 120 bits = 15 bytes, + 1.
    assert_eq!(packed.len(), 16);
    assert_eq!(decode_stage(&nb, &packed, data.len()).unwrap(), data);
}

#[test]
fn scaleoffset_literals() {
    // i32 LE, minimum bits computed, fill value defined (0).
    let mut cd = vec![0u32; 20];
    cd[0] = 2;
    cd[2] = 4;
    cd[4] = 4;
    cd[5] = 1;
    cd[7] = 1;
    let so = f(FilterId::SCALEOFFSET, &cd);
    let vals: [i32; 4] = [-5, -3, 0, 2];
    let data: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let packed = encode_stage(&so, &data).unwrap();
    // Fill value 0 is excluded: min -5, max 2, span 8, minbits = log2(8 + 1) rounded up = 4.
    assert_eq!(&packed[..4], &4u32.to_le_bytes());
    assert_eq!(packed[4], 8);
    assert_eq!(&packed[5..13], &(-5i64).to_le_bytes());
    assert_eq!(&packed[13..21], &[0; 8]);
    // Values minus min: 0, 2, fill (15), 7 in 4 bits each.
    assert_eq!(&packed[21..], &[0x02, 0xF7, 0x00]);
    assert_eq!(decode_stage(&so, &packed, 16).unwrap(), data);
    // All values equal, no fill value: minimum bits 0, only the header (and one byte).
    cd[7] = 0;
    let so = f(FilterId::SCALEOFFSET, &cd);
    let data: Vec<u8> = [7i32; 4].iter().flat_map(|v| v.to_le_bytes()).collect();
    let packed = encode_stage(&so, &data).unwrap();
    assert_eq!(packed.len(), 22);
    assert_eq!(&packed[..4], &[0, 0, 0, 0]);
    assert_eq!(decode_stage(&so, &packed, 16).unwrap(), data);
    // Minimum bits equal to the width: the filter does nothing.
    cd[1] = 32;
    let so = f(FilterId::SCALEOFFSET, &cd);
    assert_eq!(encode_stage(&so, &data).unwrap(), data);
    // Corrupt headers.
    cd[1] = 0;
    let so = f(FilterId::SCALEOFFSET, &cd);
    assert_eq!(
        decode_stage(&so, &[0; 10], 16).unwrap_err().kind(),
        ErrorKind::Corrupt
    );
    let mut bad = [0u8; 22];
    bad[0] = 33;
    assert_eq!(
        decode_stage(&so, &bad, 16).unwrap_err().kind(),
        ErrorKind::Corrupt
    );
    bad[0] = 9;
    assert_eq!(
        decode_stage(&so, &bad, 16).unwrap_err().kind(),
        ErrorKind::Corrupt
    );
    // E-scaling is refused, as by the reference library.
    let mut cd = vec![0u32; 20];
    cd[0] = 1;
    cd[3] = 1;
    cd[4] = 8;
    assert_eq!(
        encode_stage(&f(FilterId::SCALEOFFSET, &cd), &[0; 8])
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidParameters
    );
}

#[test]
fn lzf_literals_and_round_trip() {
    // A literal run of 3 bytes, then a back reference of length 5 at distance 3.
    let stream = [2, b'a', b'b', b'c', (3 << 5), 2];
    assert_eq!(lzf::decompress_for_test(&stream, 100).unwrap(), b"abcabcab");
    // Reference before the start.
    assert!(lzf::decompress_for_test(&[0x20, 5], 100).is_err());
    // Output limit.
    assert_eq!(
        lzf::decompress_for_test(&stream, 7).unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );
    let l = Filter::lzf();
    let data: Vec<u8> = (0..5000u32).flat_map(|i| (i % 300).to_le_bytes()).collect();
    let c = encode_stage(&l, &data).unwrap();
    assert!(c.len() < data.len() / 2);
    assert_eq!(decode_stage(&l, &c, data.len()).unwrap(), data);
    // Incompressible data fails (and an optional filter is then skipped).
    assert_eq!(
        encode_stage(&l, &[1, 2, 3, 4]).unwrap_err().kind(),
        ErrorKind::EncodeFailed
    );
}

#[test]
fn szip_round_trips() {
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for &(bpp, size) in &[(8u32, 1usize), (12, 2), (16, 2), (24, 4), (32, 4), (64, 8)] {
        for &mask in &[SZIP_NN | SZIP_LSB, SZIP_EC | SZIP_MSB] {
            for &(ppb, pps, n) in &[(8u32, 8u32, 64usize), (16, 100, 1000), (32, 1000, 777)] {
                let mut data = Vec::new();
                let mut v = 0u64;
                for i in 0..n {
                    v = v.wrapping_add(rnd() % 5);
                    if i % 50 == 7 {
                        v = rnd();
                    }
                    if i % 200 < 70 {
                        v = 0;
                    }
                    let masked = if bpp >= 64 {
                        v
                    } else {
                        v & ((1u64 << bpp) - 1)
                    };
                    let bytes = masked.to_le_bytes();
                    if mask & SZIP_MSB != 0 {
                        data.extend(bytes[..size].iter().rev());
                    } else {
                        data.extend_from_slice(&bytes[..size]);
                    }
                }
                let sz = f(FilterId::SZIP, &[mask, ppb, bpp, pps]);
                match encode_stage(&sz, &data) {
                    Ok(c) => {
                        assert_eq!(&c[..4], &(data.len() as u32).to_le_bytes());
                        assert_eq!(decode_stage(&sz, &c, data.len()).unwrap(), data);
                        // A truncated stream is an error, not a short chunk.
                        assert!(decode_stage(&sz, &c[..c.len() - 3], data.len()).is_err());
                    }
                    Err(e) => assert_eq!(e.kind(), ErrorKind::EncodeFailed),
                }
            }
        }
    }
    assert_eq!(
        encode_stage(&f(FilterId::SZIP, &[SZIP_NN, 7, 8, 8]), &[0; 8])
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidParameters
    );
}

#[test]
fn pipeline_mask_and_optional_failures() {
    let data: Vec<u8> = (0..64u8).map(|i| i / 16).collect();
    let ctx = ChunkInfo::new(64);
    let pipeline = [Filter::shuffle(), Filter::deflate(6), Filter::fletcher32()];
    let pipeline: Vec<Filter> = pipeline
        .iter()
        .map(|p| {
            set_local(
                p,
                &h5_types::Datatype::Integer(h5_types::IntegerType::new(
                    4,
                    h5_types::ByteOrder::LittleEndian,
                    h5_types::Sign::None,
                )),
                &[16],
                FillValue::Default,
            )
            .unwrap()
        })
        .collect();
    assert_eq!(pipeline[0].client_data, [4]);
    // Excluding the shuffle by mask: it stays excluded.
    let (enc, mask) = encode_chunk(&pipeline, 0b001, data.clone(), &ctx).unwrap();
    assert_eq!(mask, 0b001);
    assert_eq!(
        decode_chunk(&pipeline, mask, enc.clone(), &ctx).unwrap(),
        data
    );
    // Decoding with the wrong mask runs the unshuffle too: other bytes.
    assert_ne!(decode_chunk(&pipeline, 0, enc, &ctx).unwrap(), data);
    // An unavailable optional filter is skipped; a mandatory one is an error.
    let bz = Filter::new(FilterId(32013), vec![9]).optional();
    let (enc, mask) = encode_chunk(std::slice::from_ref(&bz), 0, data.clone(), &ctx).unwrap();
    assert_eq!((enc.as_slice(), mask), (data.as_slice(), 1));
    let e = decode_chunk(std::slice::from_ref(&bz), 0, data.clone(), &ctx).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unavailable);
    assert_eq!(
        e.to_string(),
        "filter 32013 (zfp) is not available: client data [9]"
    );
    let mut named = Filter::new(FilterId(40000), vec![]);
    named.name = Some("mything".into());
    assert_eq!(
        encode_chunk(&[named], 0, data.clone(), &ctx)
            .unwrap_err()
            .to_string(),
        "filter 40000 (mything) is not available: client data []"
    );
    // Skipped by mask on read: an unknown filter does not matter.
    assert_eq!(decode_chunk(&[bz], 1, data.clone(), &ctx).unwrap(), data);
    // Wrong final size.
    assert_eq!(
        decode_chunk(&[], 0, data.clone(), &ChunkInfo::new(63))
            .unwrap_err()
            .kind(),
        ErrorKind::Corrupt
    );
    assert_eq!(format!("{}", FilterId(6)), "6 (scaleoffset)");
    assert_eq!(format!("{:?}", FilterId(12345)), "FilterId(12345)");
}

#[test]
fn set_local_matches_the_reference_layouts() {
    use h5_types::{ByteOrder, Datatype, FloatType, IntegerType, Sign};
    let i32le = Datatype::Integer(IntegerType::new(
        4,
        ByteOrder::LittleEndian,
        Sign::TwosComplement,
    ));
    let f64le = Datatype::Float(FloatType::ieee(8, ByteOrder::LittleEndian, 11, 52));
    // The fixtures' parameters (see tests/fixtures/h5py/filters.h5).
    let so = set_local(
        &Filter::scaleoffset(2, 0),
        &i32le,
        &[10, 10],
        FillValue::Default,
    )
    .unwrap();
    assert_eq!(
        so.client_data,
        [2, 0, 100, 0, 4, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    let so = set_local(
        &Filter::scaleoffset(0, 3),
        &f64le,
        &[10, 10],
        FillValue::Default,
    )
    .unwrap();
    assert_eq!(
        so.client_data,
        [0, 3, 100, 1, 8, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    let fill = (-2.5f64).to_le_bytes();
    let so = set_local(
        &Filter::scaleoffset(0, 3),
        &f64le,
        &[10],
        FillValue::User(&fill),
    )
    .unwrap();
    let bits = (-2.5f64).to_bits();
    assert_eq!(
        &so.client_data[7..10],
        &[1, bits as u32, (bits >> 32) as u32]
    );
    let sz = set_local(
        &Filter::szip(SZIP_NN, 8),
        &i32le,
        &[10, 10],
        FillValue::Default,
    )
    .unwrap();
    assert_eq!(sz.client_data, [169, 8, 32, 10]);
    let lz = set_local(&Filter::lzf(), &i32le, &[10, 10], FillValue::Default).unwrap();
    assert_eq!(lz.client_data, [4, 261, 400]);
    let nb = set_local(&Filter::nbit(), &i32le, &[10, 10], FillValue::Default).unwrap();
    assert_eq!(nb.client_data, [8, 1, 100, 1, 4, 0, 32, 0]);
    assert!(nb.is_optional() && !Filter::fletcher32().is_optional());
}

/// Corrupt inputs to every decoder: errors, never panics, output within the limit.
#[test]
fn corrupt_chunks_never_panic() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut so_int = vec![2u32, 0, 64, 0, 4, 1, 0, 1];
    so_int.resize(20, 0);
    let mut so_f = vec![0u32, 3, 32, 1, 8, 0, 0, 1];
    so_f.resize(20, 0);
    let filters = [
        Filter::deflate(6),
        f(FilterId::SHUFFLE, &[4]),
        Filter::fletcher32(),
        f(FilterId::SZIP, &[SZIP_NN | SZIP_LSB, 8, 32, 10]),
        f(FilterId::SZIP, &[SZIP_EC | SZIP_MSB, 16, 16, 64]),
        f(FilterId::SZIP, &[SZIP_NN, 32, 8, 20]),
        f(FilterId::NBIT, &[8, 0, 64, 1, 4, 0, 12, 3]),
        f(
            FilterId::NBIT,
            &[16, 0, 16, 3, 16, 3, 0, 1, 4, 0, 12, 3, 4, 2, 8, 4],
        ),
        f(FilterId::SCALEOFFSET, &so_int),
        f(FilterId::SCALEOFFSET, &so_f),
        Filter::lzf(),
    ];
    let plain: Vec<u8> = (0..256u32).map(|i| (i * i / 7) as u8).collect();
    for fl in &filters {
        let good = encode_stage(fl, &plain).unwrap_or_else(|_| plain.clone());
        for round in 0..300 {
            let mut bad = good.clone();
            match round % 4 {
                0 => {
                    let n = (rnd() as usize) % (bad.len() + 1);
                    bad.truncate(n);
                }
                1 => {
                    for _ in 0..1 + rnd() % 8 {
                        if !bad.is_empty() {
                            let i = (rnd() as usize) % bad.len();
                            bad[i] ^= 1 << (rnd() % 8);
                        }
                    }
                }
                2 => {
                    let n = (rnd() % 300) as usize;
                    bad = (0..n).map(|_| rnd() as u8).collect();
                }
                _ => bad.extend((0..rnd() % 40).map(|_| rnd() as u8)),
            }
            if let Ok(out) = decode_stage(fl, &bad, 256) {
                assert!(
                    out.len() <= stage_limit(256),
                    "{:?}: {} bytes",
                    fl.id,
                    out.len()
                );
            }
        }
        // Hostile parameters on good data.
        for _ in 0..200 {
            let mut cd = fl.client_data.clone();
            if cd.is_empty() {
                continue;
            }
            let i = (rnd() as usize) % cd.len();
            cd[i] = match rnd() % 4 {
                0 => 0,
                1 => u32::MAX,
                2 => (rnd() % 70) as u32,
                _ => rnd() as u32,
            };
            let hostile = Filter::new(fl.id, cd);
            let _ = decode_stage(&hostile, &good, 256);
            let _ = encode_stage(&hostile, &plain);
        }
    }
}

#[test]
fn codecs_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Filter>();
    check::<Error>();
    check::<ChunkInfo>();
}

#[test]
fn empty_chunks_round_trip_through_every_codec() {
    let mut so = vec![2u32, 0, 0, 0, 4, 1, 0, 1];
    so.resize(20, 0);
    let pipelines = [
        vec![Filter::deflate(4)],
        vec![f(FilterId::SHUFFLE, &[4])],
        vec![Filter::fletcher32()],
        // The coded stream (1 byte) does not fit in 0 bytes: skipped as optional.
        vec![f(FilterId::SZIP, &[SZIP_NN, 8, 32, 16]).optional()],
        vec![f(FilterId::NBIT, &[8, 0, 0, 1, 4, 0, 12, 0])],
        vec![f(FilterId::SCALEOFFSET, &so)],
    ];
    let ctx = ChunkInfo::new(0);
    for p in &pipelines {
        let (enc, mask) = encode_chunk(p, 0, Vec::new(), &ctx).unwrap();
        assert_eq!(decode_chunk(p, mask, enc, &ctx).unwrap(), Vec::<u8>::new());
    }
    // LZF cannot compress nothing: the optional filter is skipped.
    let (enc, mask) = encode_chunk(&[Filter::lzf()], 0, Vec::new(), &ctx).unwrap();
    assert_eq!((enc.len(), mask), (0, 1));
    // A chunk of the wrong size is refused before filtering.
    assert_eq!(
        encode_chunk(&[Filter::deflate(1)], 0, vec![1], &ctx)
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidParameters
    );
}

/// Random parameter lists (from a small alphabet, so class codes and sizes line up often)
/// and random data: never a panic.
#[test]
fn random_parameters_never_panic() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let alphabet = [
        0u32, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 31, 32, 33, 64, 100, 255,
    ];
    for i in 0..6000 {
        let id = [FilterId::NBIT, FilterId::SCALEOFFSET, FilterId::SZIP][i % 3];
        let len = match id {
            FilterId::SCALEOFFSET => 20,
            FilterId::SZIP => 4,
            _ => 5 + (rnd() % 30) as usize,
        };
        let mut cd: Vec<u32> = (0..len)
            .map(|_| alphabet[(rnd() % alphabet.len() as u64) as usize])
            .collect();
        if id == FilterId::NBIT {
            cd[0] = len as u32;
            cd[1] = 0;
        }
        let fl = Filter::new(id, cd);
        let data: Vec<u8> = (0..rnd() % 600).map(|_| rnd() as u8).collect();
        if let Ok(out) = decode_stage(&fl, &data, 512) {
            // A filter that does nothing passes its input through.
            assert!(out.len() <= 512 || out == data);
        }
        if let Ok(enc) = encode_stage(&fl, &data) {
            let _ = decode_stage(&fl, &enc, data.len());
        }
    }
}

/// The plugin filters: every option over several datatypes and chunk shapes round-trips
/// through `set_local`, the encoder and the decoder; corrupt data never panics.
#[cfg(all(
    feature = "zstd",
    feature = "lz4",
    feature = "bzip2",
    feature = "bitshuffle",
    feature = "blosc"
))]
#[test]
fn plugin_filters_round_trip_and_survive_corruption() {
    use h5_types::H5Type;
    let mut filters = vec![
        Filter::zstd(1),
        Filter::zstd(19),
        Filter::lz4(),
        Filter::new(FilterId::LZ4, vec![100]),
        Filter::bzip2(1),
        Filter::bzip2(9),
        Filter::bitshuffle(BitshuffleCompression::None),
        Filter::bitshuffle(BitshuffleCompression::Lz4),
        Filter::bitshuffle(BitshuffleCompression::Zstd(3)),
        Filter::new(FilterId::BITSHUFFLE, vec![16, 2]),
    ];
    for codec in [
        BloscCodec::BloscLz,
        BloscCodec::Lz4,
        BloscCodec::Lz4Hc,
        BloscCodec::Zlib,
        BloscCodec::Zstd,
    ] {
        for shuffle in [BloscShuffle::None, BloscShuffle::Byte, BloscShuffle::Bit] {
            filters.push(Filter::blosc(codec, 5, shuffle));
        }
    }
    filters.push(Filter::blosc(BloscCodec::Lz4, 0, BloscShuffle::Byte));
    let types = [
        u8::h5_type(),
        i32::h5_type(),
        f64::h5_type(),
        i16::h5_type(),
    ];
    let shapes: [&[u64]; 4] = [&[1], &[37], &[20, 30], &[4, 100, 30]];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for fl in &filters {
        for dt in &types {
            for shape in shapes {
                let local = set_local(fl, dt, shape, FillValue::Default).unwrap();
                let n = shape.iter().product::<u64>() as usize * dt.size();
                let plain: Vec<u8> = (0..n).map(|i| ((i / 3) % 17 + i % 5) as u8).collect();
                let ctx = ChunkInfo::new(n);
                let pipeline = std::slice::from_ref(&local);
                let (enc, mask) = encode_chunk(pipeline, 0, plain.clone(), &ctx).unwrap();
                let back = decode_chunk(pipeline, mask, enc.clone(), &ctx)
                    .unwrap_or_else(|e| panic!("{local:?} {dt} {shape:?}: {e}"));
                assert_eq!(back, plain, "{local:?} {dt} {shape:?}");
                if mask != 0 {
                    continue;
                }
                for round in 0..40 {
                    let mut bad = enc.clone();
                    match round % 3 {
                        0 => bad.truncate(rnd() as usize % (bad.len() + 1)),
                        1 => {
                            if !bad.is_empty() {
                                let i = rnd() as usize % bad.len();
                                bad[i] ^= 1 << (rnd() % 8);
                            }
                        }
                        _ => bad = (0..rnd() % 200).map(|_| rnd() as u8).collect(),
                    }
                    if let Ok(out) = decode_stage(&local, &bad, n) {
                        assert!(out.len() <= n, "{:?}: {} bytes", local.id, out.len());
                    }
                }
            }
        }
    }
}

#[test]
fn decoding_into_the_callers_buffer_agrees_with_decoding_through_one() {
    let reg = FilterRegistry::builtin();
    let pool = BufferPool::new(4);
    let data: Vec<u8> = (0..4096u32).flat_map(|i| (i / 7).to_le_bytes()).collect();
    let info = ChunkInfo::new(data.len());
    let pipelines = [
        vec![
            f(FilterId::SHUFFLE, &[4]),
            Filter::deflate(4),
            Filter::fletcher32(),
        ],
        vec![Filter::deflate(1)],
        vec![f(FilterId::SHUFFLE, &[4])],
        vec![Filter::fletcher32()],
        vec![Filter::deflate(6), Filter::fletcher32()],
        vec![Filter::lzf()],
        vec![f(FilterId::SHUFFLE, &[4]), Filter::lzf()],
        vec![],
    ];
    // The plugin codecs that decode into the caller's buffer too.
    #[allow(unused_mut)]
    let mut plugins: Vec<Vec<Filter>> = Vec::new();
    #[cfg(feature = "lz4")]
    plugins.extend([
        vec![Filter::lz4()],
        vec![Filter::new(FilterId::LZ4, vec![1000])],
        vec![f(FilterId::SHUFFLE, &[4]), Filter::lz4()],
    ]);
    #[cfg(feature = "zstd")]
    plugins.extend([
        vec![Filter::zstd(3)],
        vec![f(FilterId::SHUFFLE, &[4]), Filter::zstd(1)],
    ]);
    for filters in pipelines.iter().chain(&plugins) {
        // Every filter mask: skipped filters are skipped on both paths.
        for mask in 0..(1u32 << filters.len()) {
            let (stored, m) = reg
                .encode_chunk(filters, mask, data.clone(), &info)
                .unwrap();
            let want = reg.decode_chunk(filters, m, stored.clone(), &info).unwrap();
            assert_eq!(want, data);
            let mut out = vec![0xAAu8; data.len()];
            reg.decode_chunk_into(filters, m, stored.clone(), &info, &pool, &mut out)
                .unwrap_or_else(|e| panic!("{filters:?} mask {m}: {e}"));
            assert!(out == data, "{filters:?} mask {m}");
            // A buffer of another size is refused.
            let mut short = vec![0u8; data.len() - 1];
            assert!(reg
                .decode_chunk_into(filters, m, stored, &info, &pool, &mut short)
                .is_err());
        }
    }
    // A chunk that decodes short, or long, is an error on both paths.
    for filters in pipelines[..4].iter().chain(&plugins) {
        for len in [data.len() - 8, data.len() + 8] {
            let other = ChunkInfo::new(len);
            let mut d = data.clone();
            d.resize(len, 1);
            let (stored, m) = reg.encode_chunk(filters, 0, d, &other).unwrap();
            let e = reg
                .decode_chunk(filters, m, stored.clone(), &info)
                .unwrap_err();
            assert!(
                matches!(e.kind(), ErrorKind::Corrupt | ErrorKind::LimitExceeded),
                "{filters:?} {len}: {e}"
            );
            let mut out = vec![0u8; data.len()];
            let e = reg
                .decode_chunk_into(filters, m, stored, &info, &pool, &mut out)
                .unwrap_err();
            assert!(
                matches!(e.kind(), ErrorKind::Corrupt | ErrorKind::LimitExceeded),
                "{filters:?} {len}: {e}"
            );
        }
    }
    // A bad checksum is reported, and skipped when asked.
    let filters = [Filter::deflate(4), Filter::fletcher32()];
    let (mut stored, _) = reg.encode_chunk(&filters, 0, data.clone(), &info).unwrap();
    let last = stored.len() - 1;
    stored[last] ^= 1;
    let mut out = vec![0u8; data.len()];
    let e = reg
        .decode_chunk_into(&filters, 0, stored.clone(), &info, &pool, &mut out)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ChecksumMismatch);
    let skip = ChunkInfo {
        skip_checksum: true,
        ..info
    };
    reg.decode_chunk_into(&filters, 0, stored, &skip, &pool, &mut out)
        .unwrap();
    assert!(out == data);
}

#[test]
fn inflating_into_a_slice_checks_its_room() {
    let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
    let c = encode_stage(&Filter::deflate(6), &data).unwrap();
    let mut exact = vec![0u8; data.len()];
    assert_eq!(deflate::inflate_into(&c, &mut exact).unwrap(), data.len());
    assert_eq!(exact, data);
    // Room to spare: the length inflated.
    let mut more = vec![0u8; data.len() + 100];
    assert_eq!(deflate::inflate_into(&c, &mut more).unwrap(), data.len());
    // Too little room, a truncated stream, garbage.
    let mut less = vec![0u8; data.len() - 1];
    assert_eq!(
        deflate::inflate_into(&c, &mut less).unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );
    assert!(deflate::inflate_into(&c[..c.len() / 2], &mut exact).is_err());
    assert!(deflate::inflate_into(&c[..c.len() - 2], &mut exact).is_err());
    assert!(deflate::inflate_into(&[0x78, 0x9c, 0xff, 0xff], &mut exact).is_err());
    // Stored blocks (level 0) too.
    let s = encode_stage(&Filter::deflate(0), &data).unwrap();
    assert_eq!(deflate::inflate_into(&s, &mut exact).unwrap(), data.len());
    assert_eq!(exact, data);
}

/// Blosc, Blosc2 and Bitshuffle decode straight into the caller's buffer: every option,
/// several types and sizes (a partial last block, a tail of fewer than 8 elements), the
/// buffer's old contents overwritten, the same bytes as through a buffer of their own; a
/// buffer of another size is refused.
#[cfg(all(feature = "bitshuffle", feature = "blosc", feature = "blosc2"))]
#[test]
fn block_codecs_decode_into_the_callers_buffer() {
    use h5_types::H5Type;
    let mut filters = vec![
        Filter::bitshuffle(BitshuffleCompression::None),
        Filter::bitshuffle(BitshuffleCompression::Lz4),
        Filter::bitshuffle(BitshuffleCompression::Zstd(3)),
        Filter::new(FilterId::BITSHUFFLE, vec![16, 2]),
    ];
    for codec in [BloscCodec::BloscLz, BloscCodec::Lz4, BloscCodec::Zstd] {
        for shuffle in [BloscShuffle::None, BloscShuffle::Byte, BloscShuffle::Bit] {
            filters.push(Filter::blosc(codec, 5, shuffle));
        }
        for b2 in [
            Blosc2Filter::None,
            Blosc2Filter::Shuffle,
            Blosc2Filter::Bitshuffle,
            Blosc2Filter::Delta,
        ] {
            filters.push(Filter::blosc2(codec, 5, b2));
        }
    }
    let reg = FilterRegistry::builtin();
    let pool = BufferPool::new(4);
    let types = [u8::h5_type(), i16::h5_type(), f64::h5_type()];
    for fl in &filters {
        for dt in &types {
            for n in [1usize, 13, 4099, 70_001] {
                let local = set_local(fl, dt, &[n as u64], FillValue::Default).unwrap();
                let bytes = n * dt.size();
                let plain: Vec<u8> = (0..bytes).map(|i| ((i / 5) % 23 + i % 3) as u8).collect();
                let info = ChunkInfo::new(bytes);
                let pipeline = std::slice::from_ref(&local);
                let (stored, m) = reg.encode_chunk(pipeline, 0, plain.clone(), &info).unwrap();
                let want = reg
                    .decode_chunk(pipeline, m, stored.clone(), &info)
                    .unwrap();
                assert!(want == plain, "{local:?} {dt} {n}");
                let mut out = vec![0xAAu8; bytes];
                reg.decode_chunk_into(pipeline, m, stored.clone(), &info, &pool, &mut out)
                    .unwrap_or_else(|e| panic!("{local:?} {dt} {n}: {e}"));
                assert!(out == plain, "{local:?} {dt} {n}");
                let mut short = vec![0u8; bytes - 1];
                assert!(reg
                    .decode_chunk_into(pipeline, m, stored, &info, &pool, &mut short)
                    .is_err());
            }
        }
    }
}

#[test]
fn encoding_through_a_pool_agrees_with_encoding_alone() {
    let reg = FilterRegistry::builtin();
    let pool = BufferPool::new(4);
    let data: Vec<u8> = (0..65536u32).flat_map(|i| (i / 5).to_le_bytes()).collect();
    let info = ChunkInfo::new(data.len());
    let pipelines = [
        vec![f(FilterId::SHUFFLE, &[4]), Filter::deflate(4)],
        vec![
            f(FilterId::SHUFFLE, &[4]),
            Filter::deflate(1),
            Filter::fletcher32(),
        ],
        vec![Filter::lzf()],
        vec![f(FilterId::SHUFFLE, &[4])],
        vec![Filter::fletcher32()],
        vec![],
    ];
    for p in &pipelines {
        // Twice: the second time from the buffers the first gave back.
        for _ in 0..2 {
            let alone = reg.encode_chunk(p, 0, data.clone(), &info).unwrap();
            let pooled = reg
                .encode_chunk_in(p, 0, data.clone(), &info, &pool)
                .unwrap();
            assert_eq!(pooled, alone, "{p:?}");
            // A compressed chunk is not kept in a chunk-sized buffer.
            assert!(pooled.0.capacity() / 2 <= pooled.0.len(), "{p:?}");
            let back = reg.decode_chunk(p, pooled.1, pooled.0, &info).unwrap();
            assert_eq!(back, data, "{p:?}");
        }
    }
    // A required filter's failure is an error, as without a pool.
    let bad = [Filter::deflate(4), f(FilterId::SHUFFLE, &[0])];
    assert!(reg
        .encode_chunk_in(&bad, 0, data.clone(), &info, &pool)
        .is_err());
    assert_eq!(
        reg.encode_chunk(&bad, 0, data.clone(), &info).is_err(),
        reg.encode_chunk_in(&bad, 0, data.clone(), &info, &pool)
            .is_err()
    );
}
