//! The onion files of the conformance corpus (written by HDF5's own onion tests): every
//! structure parses, re-encodes to the same bytes, and no mutation of their bytes makes a
//! parser panic.

use h5_format::onion::{
    check_extent, fletcher32, History, HistoryHeader, RevisionRecord, HEADER_SIZE,
    INDEX_ENTRY_SIZE, RECORD_FIXED_SIZE,
};
use h5_format::{Result, Sizes, Writer};
use std::path::{Path, PathBuf};

fn corpus_dir(sub: &str) -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .map(|a| a.join("shared/corpus"))
        .find(|p| p.is_dir())
        .unwrap_or_else(|| here.join("../../../shared/corpus"))
        .join(sub)
}

/// The corpus onion files with their revision counts.
const FILES: [(&str, usize); 3] = [
    ("tst_onion_objs.h5.onion", 6),
    ("tst_onion_dset_ext.h5.onion", 2),
    ("tst_onion_dset_1d.h5.onion", 3),
];

fn load(name: &str) -> Option<Vec<u8>> {
    let p = corpus_dir("h5dump-develop").join(name);
    match std::fs::read(&p) {
        Ok(b) => Some(b),
        Err(e) => {
            eprintln!("skipping {}: {e}", p.display());
            None
        }
    }
}

struct Parsed {
    header: HistoryHeader,
    history: History,
    records: Vec<RevisionRecord>,
}

/// Header, history and every revision record of an onion file's bytes.
fn parse_all(b: &[u8]) -> Result<Parsed> {
    let len = b.len() as u64;
    let n = check_extent("onion history header", 0, HEADER_SIZE as u64, len)?;
    let header = HistoryHeader::parse(&b[..n])?;
    let size = check_extent(
        "onion history",
        header.history_addr,
        header.history_size,
        len,
    )?;
    let at = header.history_addr as usize;
    let history = History::parse(&b[at..at + size], header.history_addr)?;
    let mut records = Vec::new();
    for p in &history.records {
        let size = check_extent("onion revision record", p.phys_addr, p.record_size, len)?;
        let at = p.phys_addr as usize;
        records.push(RevisionRecord::parse(&b[at..at + size], p.phys_addr)?);
    }
    Ok(Parsed {
        header,
        history,
        records,
    })
}

#[test]
fn corpus_onion_files_parse_and_reencode() {
    for (name, revisions) in FILES {
        let Some(b) = load(name) else { continue };
        let p = parse_all(&b).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(p.header.page_size, 32, "{name}");
        assert_eq!(p.header.flags, 0, "{name}");
        assert_eq!(p.history.records.len(), revisions, "{name}");
        let mut w = Writer::new(Sizes::DEFAULT);
        p.header.encode(&mut w);
        assert_eq!(w.as_slice(), &b[..HEADER_SIZE], "{name}: header");
        let mut w = Writer::new(Sizes::DEFAULT);
        p.history.encode(&mut w);
        let at = p.header.history_addr as usize;
        assert_eq!(w.as_slice(), &b[at..at + w.len()], "{name}: history");
        for (i, (r, ptr)) in p.records.iter().zip(&p.history.records).enumerate() {
            assert_eq!(r.revision_num, i as u64, "{name}");
            assert_eq!(r.page_size, 32, "{name}");
            assert_eq!(r.comment, b"initial commit\0", "{name}");
            assert!(!r.entries.is_empty(), "{name}");
            let mut w = Writer::new(Sizes::DEFAULT);
            r.encode(&mut w);
            assert_eq!(w.len() as u64, ptr.record_size, "{name}");
            let at = ptr.phys_addr as usize;
            assert_eq!(w.as_slice(), &b[at..at + w.len()], "{name}: record {i}");
        }
    }
    // What the dumps of revision 1 rely on: revision 0's logical file is the one of the
    // record with revision number 0.
    if let Some(b) = load("tst_onion_objs.h5.onion") {
        let p = parse_all(&b).unwrap();
        assert_eq!(p.header.origin_eof, 6064);
        assert_eq!(p.records[0].logical_eof, 9016);
        assert_eq!(p.records[2].parent_revision_num, 1);
    }
}

/// The byte ranges of every structure of a parsed file: (start, end, entry table start,
/// entry count) so a mutation can be resealed.
fn regions(p: &Parsed) -> Vec<(usize, usize, usize, usize)> {
    let mut v = vec![(0, HEADER_SIZE, 0, 0)];
    let h = p.header.history_addr as usize;
    v.push((
        h,
        h + p.header.history_size as usize,
        h + 16,
        p.records.len(),
    ));
    for (r, ptr) in p.records.iter().zip(&p.history.records) {
        let s = ptr.phys_addr as usize;
        v.push((
            s,
            s + ptr.record_size as usize,
            s + RECORD_FIXED_SIZE - 4,
            r.entries.len(),
        ));
    }
    v
}

/// Recompute every checksum of a structure (entry checksums, then the trailing one).
fn reseal(b: &mut [u8], (start, end, table, n): (usize, usize, usize, usize)) {
    for i in 0..n {
        let e = table + INDEX_ENTRY_SIZE * i;
        if e + 20 <= end {
            let s = fletcher32(&b[e..e + 16]);
            b[e + 16..e + 20].copy_from_slice(&s.to_le_bytes());
        }
    }
    let s = fletcher32(&b[start..end - 4]);
    b[end - 4..end].copy_from_slice(&s.to_le_bytes());
}

#[test]
fn mutated_corpus_onion_files_never_panic() {
    for (name, _) in FILES {
        let Some(b) = load(name) else { continue };
        let p = parse_all(&b).unwrap();
        let regs = regions(&p);
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rng = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        // Header and history changes go through the whole chain; a record's changes need
        // only that record parsed.
        let check = |m: &[u8], reg: (usize, usize, usize, usize), i: usize| -> bool {
            if i < 2 {
                parse_all(m).is_err()
            } else {
                RevisionRecord::parse(&m[reg.0..reg.1], reg.0 as u64).is_err()
            }
        };
        // One working copy: each mutation changes one structure, which is restored after.
        let mut m = b.clone();
        for (i, &reg) in regs.iter().enumerate() {
            let restore = |m: &mut Vec<u8>| m[reg.0..reg.1].copy_from_slice(&b[reg.0..reg.1]);
            // Index entries are alike: a record's fixed part, first entries and tail suffice.
            let positions: Vec<usize> = if i < 2 {
                (reg.0..reg.1).collect()
            } else {
                let head = (reg.0 + RECORD_FIXED_SIZE + 3 * INDEX_ENTRY_SIZE).min(reg.1);
                (reg.0..head)
                    .chain(reg.1.saturating_sub(24).max(head)..reg.1)
                    .collect()
            };
            for &at in &positions {
                // A raw change is always caught (by a checksum at least).
                m[at] ^= 0xff;
                assert!(check(&m, reg, i), "{name}: byte {at:#x} changed unnoticed");
                // Resealed changes reach the checks of meaning; they must not panic.
                for v in [0u8, 0xff, 0x80, (rng() & 0xff) as u8] {
                    m[at] = v;
                    reseal(&mut m, reg);
                    let _ = check(&m, reg, i);
                    restore(&mut m);
                }
            }
            // Large values in the size and count fields, resealed.
            for field in positions
                .iter()
                .copied()
                .filter(|&f| f + 8 <= reg.1)
                .step_by(4)
            {
                for v in [u64::MAX, 1 << 40, u32::MAX as u64, (rng() >> 40) | 1] {
                    m[field..field + 8].copy_from_slice(&v.to_le_bytes());
                    reseal(&mut m, reg);
                    let _ = check(&m, reg, i);
                    restore(&mut m);
                }
            }
        }
        // Every truncation.
        for n in 0..b.len() {
            let r = parse_all(&b[..n]);
            assert!(r.is_err(), "{name}: truncated to {n} bytes still parses");
        }
    }
}
