//! `h5::refs::kerchunk` on files our writer makes (no oracle needed; the readers' side is
//! `crates/h5-cli/tests/refs_interop.rs`): every chunk key names the range the chunk index
//! gives, the bytes there are the chunk's stored bytes, metadata says what the dataset is,
//! small data is inlined, and the object filter keeps what is asked for.
#![cfg(feature = "refs")]

use h5::refs::{kerchunk, Reference, RefsOptions};
use serde_json::{json, Value};

fn zjson(r: &Reference) -> Value {
    match r {
        Reference::Inline(b) => serde_json::from_slice(b).unwrap(),
        other => panic!("metadata as {other:?}"),
    }
}

#[test]
fn references_name_the_chunks_the_index_lists() {
    let path = std::env::temp_dir().join(format!("h5-refs-{}.h5", std::process::id()));
    {
        let f = h5::File::create(&path).unwrap();
        let data: Vec<i32> = (0..100 * 100).collect();
        f.new_dataset::<i32>()
            .shape(&[100, 100])
            .chunk(&[32, 32])
            .shuffle()
            .deflate(5)
            .create("grid")
            .unwrap()
            .write(&data)
            .unwrap();
        let g = f.create_group("g").unwrap();
        g.new_dataset::<f64>()
            .shape(&[1000])
            .contiguous()
            .create("line")
            .unwrap()
            .write(&(0..1000).map(f64::from).collect::<Vec<_>>())
            .unwrap();
        g.new_dataset::<u8>()
            .shape(&[3])
            .compact()
            .create("tiny")
            .unwrap()
            .write(&[1u8, 2, 3])
            .unwrap();
        g.new_attr::<i32>().create_with("n", &[7]).unwrap();
    }
    let f = h5::File::open(&path).unwrap();
    let refs = kerchunk(&f, &RefsOptions::new("data.h5")).unwrap();
    assert!(refs.skipped.is_empty(), "{:?}", refs.skipped);

    let grid = f.dataset("/grid").unwrap();
    let z = zjson(&refs.refs["grid/.zarray"]);
    assert_eq!(z["shape"], json!([100, 100]));
    assert_eq!(z["chunks"], json!([32, 32]));
    assert_eq!(z["dtype"], json!("<i4"));
    assert_eq!(z["fill_value"], json!(0));
    assert_eq!(
        z["filters"],
        json!([{"id": "shuffle", "elementsize": 4}, {"id": "zlib", "level": 5}])
    );
    assert_eq!(z["compressor"], Value::Null);
    let attrs = zjson(&refs.refs["grid/.zattrs"]);
    assert_eq!(
        attrs["_ARRAY_DIMENSIONS"],
        json!(["phony_dim_0", "phony_dim_1"])
    );
    let bytes = std::fs::read(&path).unwrap();
    let chunks = grid.inner().unwrap().chunks().unwrap();
    assert_eq!(chunks.len(), 16);
    for c in &chunks {
        let scaled: Vec<u64> = c.offset.iter().map(|o| o / 32).collect();
        let key = format!("grid/{}.{}", scaled[0], scaled[1]);
        let (stored, _) = grid.raw_chunk(&scaled).unwrap().unwrap();
        match &refs.refs[&key] {
            Reference::Range {
                url,
                offset,
                length,
            } => {
                assert_eq!(url, "data.h5");
                assert_eq!((*offset, *length), (c.file_offset, c.location.size));
                assert_eq!(&bytes[*offset as usize..(offset + length) as usize], stored);
            }
            // Chunks compressed under the threshold are inlined.
            Reference::Inline(b) => {
                assert!(c.location.size < 500);
                assert_eq!(b, &stored);
            }
        }
    }

    // Contiguous: one chunk, the whole data.
    let Reference::Range { offset, length, .. } = &refs.refs["g/line/0"] else {
        panic!("{:?}", refs.refs["g/line/0"]);
    };
    assert_eq!(*length, 8000);
    let line: Vec<f64> = bytes[*offset as usize..(*offset + *length) as usize]
        .chunks(8)
        .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(line, (0..1000).map(f64::from).collect::<Vec<_>>());
    // Compact: inline, no fill value.
    assert_eq!(refs.refs["g/tiny/0"], Reference::Inline(vec![1, 2, 3]));
    assert_eq!(
        zjson(&refs.refs["g/tiny/.zarray"])["fill_value"],
        Value::Null
    );
    assert_eq!(zjson(&refs.refs["g/.zattrs"]), json!({"n": 7}));
    assert_eq!(zjson(&refs.refs[".zgroup"]), json!({"zarr_format": 2}));

    // The JSON document: version 1, bytes that are not UTF-8 as base64.
    let doc = refs.to_json();
    assert_eq!(doc["version"], json!(1));
    assert_eq!(doc["refs"]["g/line/0"], json!(["data.h5", offset, 8000]));
    assert_eq!(doc["refs"]["g/tiny/0"], json!("\u{1}\u{2}\u{3}"));

    // Only what is asked for, with the groups above it.
    let some = kerchunk(&f, &RefsOptions::new("data.h5").objects(["g/tiny"])).unwrap();
    let keys: Vec<&str> = some.refs.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            ".zgroup",
            "g/.zgroup",
            "g/tiny/.zarray",
            "g/tiny/.zattrs",
            "g/tiny/0"
        ]
    );
    // Nothing inline with a threshold of 0, but compact data.
    let none = kerchunk(&f, &RefsOptions::new("u").inline_threshold(0)).unwrap();
    assert!(none
        .refs
        .iter()
        .filter(|(k, _)| k.starts_with("grid/") && !k.contains(".z"))
        .all(|(_, r)| matches!(r, Reference::Range { .. })));
    let e = kerchunk(&f, &RefsOptions::new("u").objects(["/nope"])).unwrap_err();
    assert_eq!(e.kind(), h5::ErrorKind::NotFound);
    let _ = std::fs::remove_file(&path);
}
