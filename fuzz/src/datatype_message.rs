//! Target `datatype_message`: the datatype message, every class and version, from bytes and
//! from generated datatypes.

use arbitrary::Unstructured;
use h5_format::message::datatype::{self, DatatypeMessage};
use h5_format::{Cursor, Writer};
use h5_types::Datatype;

/// Parse the input as a datatype message and round-trip it; with the configuration's top
/// bit set, also generate a datatype, encode it, and require the parse to give it back.
pub fn run(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let cfg: u8 = u.arbitrary()?;
    let sizes = crate::sizes_of(cfg);
    if cfg & 0x80 != 0 {
        let dt: Datatype = u.arbitrary()?;
        let m = DatatypeMessage::new(dt);
        let mut w = Writer::new(sizes);
        m.encode(&mut w);
        let bytes = w.into_vec();
        match DatatypeMessage::parse(&mut Cursor::new(&bytes, 0, sizes)) {
            Ok(p) => {
                // The message stores one bit per padding (zero or one), as the reference
                // library does: a background padding is written as zero. Such types come
                // back with zero padding; all others come back unchanged, and the encoding
                // of what was parsed is the same bytes either way.
                if !format!("{:?}", m.datatype).contains("Background") {
                    assert_eq!(
                        p.datatype, m.datatype,
                        "datatype message: a generated datatype did not survive encode-then-parse"
                    );
                }
                let mut w2 = Writer::new(sizes);
                p.encode(&mut w2);
                assert_eq!(
                    w2.as_slice(),
                    &bytes[..],
                    "datatype message: re-encoding differs"
                );
            }
            Err(e) => panic!("datatype message: the encoding of {m:?} does not parse: {e}"),
        }
        let _ = datatype::disk_size(&m.datatype, sizes);
        return Ok(());
    }
    let n = u.len();
    let data = u.bytes(n)?;
    if let Ok(m) = DatatypeMessage::parse(&mut Cursor::new(data, 0, sizes)) {
        let _ = datatype::disk_size(&m.datatype, sizes);
        let _ = m.datatype.to_string();
        // Encoding raises the version to the lowest that describes the type (a file may
        // store a lower outer version over a nested type of a higher one).
        let mut m = m;
        m.version = m.version.max(datatype::min_version(&m.datatype));
        crate::roundtrip(
            "datatype message",
            &m,
            sizes,
            |m, w| m.encode(w),
            DatatypeMessage::parse,
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn smoke() {
        let mut rng = crate::smoke::Rng::new(7);
        // Generated datatypes (top bit set) and byte inputs.
        let mut seeds = Vec::new();
        for _ in 0..1500 {
            let raw = rng.bytes(256);
            let mut s = vec![0x80 | (rng.next() as u8 & 0x0f)];
            s.extend_from_slice(&raw);
            seeds.push(s);
            // The encoding of a generated type, as bytes to parse (and mutate).
            let mut u = arbitrary::Unstructured::new(&raw);
            if let Ok(dt) = u.arbitrary::<h5_types::Datatype>() {
                let mut w = h5_format::Writer::new(h5_format::Sizes::DEFAULT);
                h5_format::message::datatype::DatatypeMessage::new(dt).encode(&mut w);
                let mut s = vec![0u8];
                s.extend(w.into_vec());
                seeds.push(s);
            }
        }
        crate::smoke::run("datatype_message", super::run, &seeds, 4000);
    }

    /// Float layouts the setters allow and the reference decoder reads (fields below the
    /// offset, an empty mantissa) parse and round-trip; the parser once refused them.
    #[test]
    fn float_regressions_parse() {
        let r = crate::smoke::regressions("datatype_message");
        assert!(r.len() >= 2);
        for input in r {
            let sizes = crate::sizes_of(input[0]);
            let m = super::DatatypeMessage::parse(&mut super::Cursor::new(&input[1..], 0, sizes));
            assert!(m.is_ok(), "{m:?}");
        }
    }
}
