//! Target `onion`: the onion driver's history header, history and revision record (the
//! structures of a `.onion` file).

use arbitrary::Unstructured;
use h5_format::onion::{History, HistoryHeader, RevisionRecord};
use h5_format::Writer;

/// Parse the input as each onion structure (the record and the history taking the whole
/// input, at a base address from the configuration byte); re-encode whatever parses and
/// require the same value back.
pub fn run(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let (cfg, data) = crate::split(u)?;
    let base = u64::from(cfg) << 12;
    let sizes = h5_format::Sizes::DEFAULT;
    if let Ok(h) = HistoryHeader::parse(data) {
        let mut w = Writer::new(sizes);
        h.encode(&mut w);
        let again = HistoryHeader::parse(w.as_slice()).expect("encoded header parses");
        assert_eq!(
            h, again,
            "onion header: encode-then-parse changed the value"
        );
    }
    if let Ok(h) = History::parse(data, base) {
        let mut w = Writer::new(sizes);
        h.encode(&mut w);
        let again = History::parse(w.as_slice(), base).expect("encoded history parses");
        assert_eq!(
            h, again,
            "onion history: encode-then-parse changed the value"
        );
    }
    if let Ok(r) = RevisionRecord::parse(data, base) {
        let mut w = Writer::new(sizes);
        r.encode(&mut w);
        assert_eq!(w.len(), r.encoded_size(), "onion record: encoded size");
        let again = RevisionRecord::parse(w.as_slice(), base).expect("encoded record parses");
        assert_eq!(
            r, again,
            "onion record: encode-then-parse changed the value"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use h5_format::onion::{History, HistoryHeader, RevisionRecord};

    #[test]
    fn smoke() {
        // Every structure of the corpus's onion files, cut at each signature to the end of
        // the file and to its exact size.
        let mut seeds = Vec::new();
        let dir = crate::smoke::shared_corpus("h5dump-develop");
        let files = dir
            .and_then(|d| std::fs::read_dir(d).ok())
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "onion"));
        let mut exact = 0;
        for p in files {
            let Ok(f) = std::fs::read(&p) else { continue };
            for sig in [&b"OHDH"[..], b"OWHS", b"ORRS"] {
                for (i, w) in f.windows(4).enumerate() {
                    if w == sig {
                        let mut s = vec![0u8];
                        s.extend_from_slice(&f[i..]);
                        seeds.push(s);
                    }
                }
            }
            // The history and each record at their exact extents (as the driver reads them),
            // found through the header; base 0 (configuration byte 0).
            let h = HistoryHeader::parse(&f).expect("corpus onion header parses");
            let (a, n) = (h.history_addr as usize, h.history_size as usize);
            let hist = History::parse(&f[a..a + n], h.history_addr).expect("history parses");
            let mut s = vec![0u8];
            s.extend_from_slice(&f[a..a + n]);
            seeds.push(s);
            for r in &hist.records {
                let (a, n) = (r.phys_addr as usize, r.record_size as usize);
                RevisionRecord::parse(&f[a..a + n], 0).expect("record parses");
                let mut s = vec![0u8];
                s.extend_from_slice(&f[a..a + n]);
                seeds.push(s);
                exact += 1;
            }
        }
        if crate::smoke::shared_corpus("h5dump-develop").is_some() {
            assert!(
                exact >= 3,
                "the corpus's onion records were found ({exact})"
            );
        }
        crate::smoke::run("onion", super::run, &seeds, 4000);
    }
}
