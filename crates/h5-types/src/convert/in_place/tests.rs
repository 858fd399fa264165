//! In-place conversion: against the reference library's `H5Tconvert` (which converts in
//! place) and against [`Converter::convert`] on random types, with exception counts,
//! handler indices and netCDF range errors.

// The same helpers as the engine's unit tests (convert/tests.rs) use.
#[allow(clippy::duplicate_mod)]
#[path = "../../../tests/support/oracle_convert.rs"]
mod support;

use crate as h5t;

use super::super::*;
use super::{block_order, BLOCK_BYTES};
use crate::*;
use support::{oracle, significant, values, Job, Outcome, Rng};

const LE: ByteOrder = ByteOrder::LittleEndian;
const BE: ByteOrder = ByteOrder::BigEndian;

fn int(size: usize, order: ByteOrder, sign: Sign) -> Datatype {
    IntegerType::new(size, order, sign).into()
}

fn ieee(size: usize, order: ByteOrder) -> Datatype {
    match size {
        2 => FloatType::ieee(2, order, 5, 10).into(),
        4 => FloatType::ieee(4, order, 8, 23).into(),
        _ => FloatType::ieee(8, order, 11, 52).into(),
    }
}

/// An integer with a random layout (precision, offset, padding).
fn random_int(rng: &mut Rng) -> Datatype {
    let size = 1 + rng.below(9) as usize;
    let sign = if rng.bit() {
        Sign::TwosComplement
    } else {
        Sign::None
    };
    let order = if rng.bit() { LE } else { BE };
    if rng.below(3) > 0 {
        let size = [1, 2, 4, 8][rng.below(4) as usize];
        return int(size, order, sign);
    }
    let precision = (2 + rng.below(8 * size as u64 - 1) as usize).min(8 * size);
    let offset = rng.below((8 * size - precision + 1) as u64) as usize;
    let pad = |r: &mut Rng| if r.bit() { Pad::One } else { Pad::Zero };
    Datatype::Integer(IntegerType {
        atomic: Atomic {
            size,
            order,
            precision,
            offset,
            lsb_pad: pad(rng),
            msb_pad: pad(rng),
        },
        sign,
    })
}

/// An IEEE float of 2, 4 or 8 bytes in either order (the 2-byte one takes the general
/// paths, which carry state from element to element).
fn random_float(rng: &mut Rng) -> Datatype {
    let order = if rng.bit() { LE } else { BE };
    ieee([2, 4, 8][rng.below(3) as usize], order)
}

fn random_number(rng: &mut Rng) -> Datatype {
    if rng.bit() {
        random_int(rng)
    } else {
        random_float(rng)
    }
}

/// Two compounds over the same member names (some only on one side), at shuffled offsets.
fn random_compounds(rng: &mut Rng) -> (Datatype, Datatype) {
    let k = 1 + rng.below(5) as usize;
    let (mut sm, mut dm) = (Vec::new(), Vec::new());
    for m in 0..k {
        let name = format!("m{m}");
        let (a, b) = if rng.bit() {
            (random_int(rng), random_int(rng))
        } else {
            (random_float(rng), random_float(rng))
        };
        match rng.below(5) {
            0 if m > 0 => sm.push((name, a)),
            1 if m > 0 => dm.push((name, b)),
            _ => {
                sm.push((name.clone(), a));
                dm.push((name, b));
            }
        }
    }
    let place = |members: Vec<(String, Datatype)>, rng: &mut Rng| -> Datatype {
        let mut order: Vec<usize> = (0..members.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut off = 0;
        let mut placed = Vec::new();
        for &i in &order {
            off += rng.below(3) as usize;
            placed.push((members[i].0.clone(), off, members[i].1.clone()));
            off += members[i].1.size();
        }
        CompoundType::from_members(off + rng.below(4) as usize, placed)
            .unwrap()
            .into()
    };
    (place(sm, rng), place(dm, rng))
}

/// Elements of a number or compound type: edge patterns for numbers, random bytes for
/// compounds.
fn input_for(t: &Datatype, n: usize, rng: &mut Rng) -> Vec<u8> {
    match t {
        Datatype::Compound(_) => (0..n * t.size()).map(|_| rng.next() as u8).collect(),
        _ => values(t, n, rng),
    }
}

/// Our in-place conversion of a job, as the oracle runs it.
fn in_place(j: &Job) -> Outcome {
    let Ok(conv) = Converter::new(&j.src, &j.dst) else {
        return Outcome::Err;
    };
    let mut buf = vec![0xa5u8; j.n * j.src.size().max(j.dst.size())];
    buf[..j.input.len()].copy_from_slice(&j.input);
    let mut opts = ConversionOptions::new();
    if j.cb {
        opts = opts.with_handler(|_, _| Action::Unhandled);
    }
    let r = match &j.bkg {
        Some(b) => conv.convert_in_place_with_background(&mut buf, j.n, b, &mut opts),
        None => conv.convert_in_place(&mut buf, j.n, &mut opts),
    };
    match r {
        Ok(()) => Outcome::Ok {
            bytes: buf[..j.n * j.dst.size()].to_vec(),
            counts: opts.report.counts,
        },
        Err(_) => Outcome::Err,
    }
}

fn check_jobs(jobs: &[Job]) {
    let Some(expected) = oracle(jobs) else { return };
    let mut bad = Vec::new();
    for (j, want) in jobs.iter().zip(&expected) {
        let got = in_place(j);
        let same = match (&got, want) {
            (
                Outcome::Ok {
                    bytes: a,
                    counts: ca,
                },
                Outcome::Ok {
                    bytes: b,
                    counts: cb,
                },
            ) => {
                let (ds, sig) = (j.dst.size(), significant(&j.dst));
                (0..j.n).all(|i| a[i * ds..i * ds + sig] == b[i * ds..i * ds + sig])
                    && (!j.cb || ca == cb)
            }
            (Outcome::Err, Outcome::Err) => true,
            _ => false,
        };
        if !same {
            bad.push(format!(
                "{} -> {} (n {}, cb {}): got {:?}, want {:?}",
                support::describe(&j.src),
                support::describe(&j.dst),
                j.n,
                j.cb,
                matches!(got, Outcome::Ok { .. }),
                matches!(want, Outcome::Ok { .. })
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} jobs differ:\n{}",
        bad.len(),
        jobs.len(),
        bad.iter().take(12).cloned().collect::<Vec<_>>().join("\n")
    );
}

fn push_both(jobs: &mut Vec<Job>, s: &Datatype, d: &Datatype, n: usize, input: Vec<u8>) {
    let bkg = matches!(d, Datatype::Compound(_)).then(|| {
        let mut r = Rng(n as u64 + 17);
        (0..n * d.size())
            .map(|_| r.next() as u8)
            .collect::<Vec<u8>>()
    });
    for cb in [true, false] {
        jobs.push(Job {
            src: s.clone(),
            dst: d.clone(),
            n,
            input: input.clone(),
            cb,
            bkg: bkg.clone(),
        });
    }
}

#[test]
fn predefined_numeric_pairs_in_place_match_reference() {
    let mut types = Vec::new();
    for order in [LE, BE] {
        for size in [1, 2, 4, 8] {
            types.push(int(size, order, Sign::TwosComplement));
            types.push(int(size, order, Sign::None));
        }
        types.push(ieee(4, order));
        types.push(ieee(8, order));
    }
    let mut rng = Rng(0x1f_1ace);
    let mut jobs = Vec::new();
    for s in &types {
        for d in &types {
            let n = 150 + rng.below(100) as usize;
            let input = values(s, n, &mut rng);
            push_both(&mut jobs, s, d, n, input);
        }
    }
    check_jobs(&jobs);
}

/// Buffers of many blocks, growing, shrinking and of equal sizes, through the block-wise
/// loop (both directions), the whole-buffer fallback (2-byte floats) and compounds.
#[test]
fn long_buffers_in_place_match_reference() {
    let mut rng = Rng(0xb1_0c);
    let pairs = [
        (ieee(8, LE), ieee(4, LE)),
        (ieee(4, LE), ieee(8, LE)),
        (int(1, LE, Sign::None), ieee(8, LE)),
        (
            int(8, LE, Sign::TwosComplement),
            int(2, LE, Sign::TwosComplement),
        ),
        (int(2, BE, Sign::TwosComplement), int(8, LE, Sign::None)),
        (
            int(4, BE, Sign::TwosComplement),
            int(4, LE, Sign::TwosComplement),
        ),
        (int(4, LE, Sign::TwosComplement), int(4, LE, Sign::None)),
        (ieee(8, BE), ieee(4, LE)),
        (ieee(2, LE), ieee(8, BE)),
        (ieee(8, LE), ieee(2, BE)),
        (ieee(4, LE), int(4, LE, Sign::TwosComplement)),
    ];
    let mut jobs = Vec::new();
    for (s, d) in &pairs {
        let n = 9000 + rng.below(3000) as usize;
        let input = values(s, n, &mut rng);
        push_both(&mut jobs, s, d, n, input);
    }
    for _ in 0..12 {
        let (s, d) = random_compounds(&mut rng);
        let n = 3000 + rng.below(3000) as usize;
        let input = input_for(&s, n, &mut rng);
        push_both(&mut jobs, &s, &d, n, input);
    }
    check_jobs(&jobs);
}

/// What one conversion reported: bytes, counts, the handler's (index, kind) list in
/// increasing order, netCDF range errors, and the error message.
type Seen = (
    Vec<u8>,
    [u64; 7],
    Vec<(usize, usize)>,
    Vec<usize>,
    Option<String>,
);

fn run(
    conv: &Converter,
    input: &[u8],
    bkg: Option<&[u8]>,
    n: usize,
    mode: u64,
    in_place: bool,
) -> Seen {
    let (ss, ds) = (conv.src().size(), conv.dst().size());
    let mut seen = Vec::new();
    let mut opts = match mode {
        0 => ConversionOptions::new(),
        1 => ConversionOptions::netcdf(),
        _ => ConversionOptions::new().with_handler(|e, _| {
            seen.push((e.index, e.kind.index()));
            Action::Unhandled
        }),
    };
    let (bytes, r) = if in_place {
        let mut buf = vec![0x5au8; n * ss.max(ds)];
        buf[..n * ss].copy_from_slice(&input[..n * ss]);
        let r = match bkg {
            Some(b) => conv.convert_in_place_with_background(&mut buf, n, b, &mut opts),
            None => conv.convert_in_place(&mut buf, n, &mut opts),
        };
        buf.truncate(n * ds);
        (buf, r)
    } else {
        let mut out = bkg.map_or_else(|| vec![0u8; n * ds], <[u8]>::to_vec);
        let r = conv.convert(input, &mut out, n, &mut opts);
        (out, r)
    };
    let report = std::mem::take(&mut opts.report);
    drop(opts);
    seen.sort_unstable();
    (
        bytes,
        report.counts,
        seen,
        report.range_errors,
        r.err().map(|e| e.to_string()),
    )
}

#[test]
fn in_place_matches_convert_on_random_types() {
    let mut rng = Rng(0x00c0_ffee);
    let mut multi_block = 0;
    for case in 0..160 {
        let (s, d) = if case % 4 == 3 {
            random_compounds(&mut rng)
        } else {
            (random_number(&mut rng), random_number(&mut rng))
        };
        let Ok(conv) = Converter::new(&s, &d) else {
            continue;
        };
        let n = match rng.below(4) {
            0 => rng.below(4) as usize,
            1 => rng.below(300) as usize,
            _ => 4000 + rng.below(12000) as usize,
        };
        if n * s.size().max(d.size()) > 2 * BLOCK_BYTES {
            multi_block += 1;
        }
        let input = input_for(&s, n, &mut rng);
        let bkg: Option<Vec<u8>> = rng
            .bit()
            .then(|| (0..n * d.size()).map(|_| rng.next() as u8).collect());
        for mode in 0..3 {
            let want = run(&conv, &input, bkg.as_deref(), n, mode, false);
            let got = run(&conv, &input, bkg.as_deref(), n, mode, true);
            assert!(
                got == want,
                "case {case}: {s} -> {d}, n {n}, mode {mode}: counts {:?} vs {:?}, \
                 error {:?} vs {:?}, bytes equal {}, handler lists equal {}, \
                 range errors equal {}",
                got.1,
                want.1,
                got.4,
                want.4,
                got.0 == want.0,
                got.2 == want.2,
                got.3 == want.3
            );
        }
    }
    assert!(multi_block > 25, "{multi_block} multi-block cases");
}

#[test]
fn netcdf_range_errors_index_the_whole_buffer() {
    // i64 to i16 runs front to back, i8 to u64 back to front; both over several blocks.
    let i64le = int(8, LE, Sign::TwosComplement);
    let i16le = int(2, LE, Sign::TwosComplement);
    let n = 20_000;
    let mut input = vec![0u8; n * 8];
    let bad = [3usize, 4095, 4096, 9999, 19_999];
    for &i in &bad {
        input[i * 8..i * 8 + 8].copy_from_slice(&(1i64 << 40).to_le_bytes());
    }
    let conv = Converter::new(&i64le, &i16le).unwrap();
    let mut opts = ConversionOptions::netcdf();
    let err = conv.convert_in_place(&mut input, n, &mut opts).unwrap_err();
    assert_eq!(opts.report.range_errors, bad);
    assert_eq!(err.kind(), ErrorKind::ConversionException);
    assert!(err.to_string().contains("19999"), "{err}");
    let out: Vec<i16> = input[..n * 2]
        .chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect();
    for (i, v) in out.iter().enumerate() {
        assert_eq!(*v, if bad.contains(&i) { i16::MAX } else { 0 }, "{i}");
    }

    let i8le = int(1, LE, Sign::TwosComplement);
    let u64le = int(8, LE, Sign::None);
    let mut buf = vec![0u8; n * 8];
    for &i in &bad {
        buf[i] = 0xff;
    }
    let conv = Converter::new(&i8le, &u64le).unwrap();
    let mut opts = ConversionOptions::netcdf();
    assert!(conv.convert_in_place(&mut buf, n, &mut opts).is_err());
    assert_eq!(opts.report.range_errors, bad);
}

#[test]
fn byte_swaps_in_place() {
    let mut rng = Rng(7);
    for size in [2usize, 3, 4, 8, 16] {
        for n in [0usize, 1, 2, 5, 1001] {
            let be = int(size, BE, Sign::TwosComplement);
            let le = int(size, LE, Sign::None);
            let conv = Converter::new(&be, &le).unwrap();
            let input: Vec<u8> = (0..n * size).map(|_| rng.next() as u8).collect();
            let mut buf = input.clone();
            let mut opts = ConversionOptions::new();
            conv.convert_in_place(&mut buf, n, &mut opts).unwrap();
            assert_eq!(
                buf,
                convert(&be, &le, &input).unwrap(),
                "size {size}, n {n}"
            );
            assert_eq!(opts.report.total(), 0);
        }
    }
}

#[test]
fn buffers_too_small_are_errors() {
    let conv = Converter::new(&int(2, LE, Sign::None), &int(8, LE, Sign::None)).unwrap();
    let mut buf = vec![0u8; 79];
    let mut opts = ConversionOptions::new();
    let e = conv.convert_in_place(&mut buf, 10, &mut opts).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BufferSize);
    let e = conv
        .convert_in_place(&mut buf, usize::MAX, &mut opts)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BufferSize);
    let mut buf = vec![0u8; 80];
    let e = conv
        .convert_in_place_with_background(&mut buf, 10, &[0; 79], &mut opts)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BufferSize);
    conv.convert_in_place(&mut buf, 10, &mut opts).unwrap();
}

#[test]
fn compound_background_is_kept_in_place() {
    let src: Datatype = CompoundType::from_members(4, [("a", 0, int(4, BE, Sign::None))])
        .unwrap()
        .into();
    let dst: Datatype = CompoundType::from_members(
        16,
        [
            ("x", 0, int(8, LE, Sign::None)),
            ("a", 8, int(8, LE, Sign::None)),
        ],
    )
    .unwrap()
    .into();
    let conv = Converter::new(&src, &dst).unwrap();
    let n = 3;
    let mut buf = vec![0u8; n * 16];
    for i in 0..n {
        buf[i * 4..i * 4 + 4].copy_from_slice(&(i as u32 + 1).to_be_bytes());
    }
    let bkg: Vec<u8> = (0..n * 16).map(|i| i as u8).collect();
    let mut zero = buf.clone();
    let mut opts = ConversionOptions::new();
    conv.convert_in_place_with_background(&mut buf, n, &bkg, &mut opts)
        .unwrap();
    conv.convert_in_place(&mut zero, n, &mut opts).unwrap();
    for i in 0..n {
        let e = &buf[i * 16..i * 16 + 16];
        assert_eq!(e[..8], bkg[i * 16..i * 16 + 8]);
        assert_eq!(e[8..], (i as u64 + 1).to_le_bytes());
        let z = &zero[i * 16..i * 16 + 16];
        assert_eq!(z[..8], [0; 8]);
        assert_eq!(z[8..], (i as u64 + 1).to_le_bytes());
    }
}

#[test]
fn block_order_never_overwrites_a_source_still_to_be_read() {
    for (n, ss, ds, block) in [
        (2_000_000, 1, 8, 4096),
        (100_000, 4, 8, 1000),
        (77_777, 7, 8, 333),
        (5000, 8, 4, 512),
        (1, 1, 8, 1),
        (9, 3, 5, 2),
        (4096, 2, 16, 4096),
        (10_000, 1000, 1001, 7),
    ] {
        let order = block_order(n, ss, ds, block);
        let mut seen = vec![false; n];
        // Which source bytes have been read (their element converted).
        for (k, &(start, len)) in order.iter().enumerate() {
            assert!(len > 0 && len <= block && start + len <= n);
            for e in &mut seen[start..start + len] {
                assert!(!*e, "element converted twice");
                *e = true;
            }
            let (d0, d1) = (start * ds, (start + len) * ds);
            // Every element of a later block still has its source bytes to be read.
            for &(s, l) in &order[k + 1..] {
                let (s0, s1) = (s * ss, (s + l) * ss);
                assert!(
                    d1 <= s0 || s1 <= d0,
                    "n {n}, {ss} -> {ds}: block at {start} overwrites the source of block at {s}"
                );
            }
        }
        assert!(seen.iter().all(|&e| e), "every element converted");
    }
}
