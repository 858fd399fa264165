//! `Dataset::chunks`: every allocated chunk's position, address, stored size and filter
//! mask, for each chunk index the writer makes (v1 B-tree in the compatible format, fixed and
//! extensible arrays in the latest), filtered or not; the bytes at each chunk's file offset
//! are the chunk's stored bytes.

use h5_format::storage::{FileStorage, Storage};
use h5_io::filter::Filter;
use h5_io::selection::{Dataspace, Selection, UNLIMITED};
use h5_io::write::{DatasetSpec, FileFormat, FileWriter, StorageSpec};
use h5_io::File;
use h5_types::H5Type;

#[test]
fn chunks_lists_every_allocated_chunk() {
    let dir = std::env::temp_dir().join(format!("h5-io-chunk-list-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let i32t = i32::h5_type();
    for format in [FileFormat::Compatible, FileFormat::Latest] {
        let p = dir.join(format!("chunks-{format:?}.h5"));
        let mut w = FileWriter::create(&p, format).unwrap();
        let root = w.root();
        for (name, filtered, max) in [("plain", false, 100), ("deflate", true, UNLIMITED)] {
            let space = Dataspace::with_max(&[100], &[max]).unwrap();
            let mut spec = DatasetSpec::new(i32t.clone(), space.clone());
            spec.storage = StorageSpec::Chunked(vec![16]);
            if filtered {
                spec.filters = vec![Filter::deflate(6)];
            }
            let id = w.create_dataset(root, name, spec).unwrap();
            // Elements 0..40 and 80..100 only: chunks 0, 1, 2 and 5, 6; 3 and 4 unwritten.
            for (start, n) in [(0u64, 40u64), (80, 20)] {
                let sel = Selection::hyperslab(&space, &[start], None, &[n], None).unwrap();
                let data: Vec<u8> = (start..start + n)
                    .flat_map(|v| (v as i32).to_le_bytes())
                    .collect();
                w.write_dataset(id, Some(&sel), &i32t, &data, &Default::default())
                    .unwrap();
            }
        }
        w.close().unwrap();
        let f = File::open(&p).unwrap();
        let storage = FileStorage::open(&p).unwrap();
        for name in ["plain", "deflate"] {
            let d = f.dataset(name).unwrap();
            let chunks = d.chunks().unwrap();
            let offsets: Vec<u64> = chunks.iter().map(|c| c.offset[0]).collect();
            assert_eq!(offsets, [0, 16, 32, 80, 96], "{format:?} {name}");
            for c in &chunks {
                let (raw, mask) = d.raw_chunk(&[c.offset[0] / 16]).unwrap().unwrap();
                assert_eq!(mask, c.location.filter_mask);
                assert_eq!(raw.len() as u64, c.location.size, "{format:?} {name}");
                assert_eq!(storage.read_vec(c.file_offset, raw.len()).unwrap(), raw);
                if name == "plain" {
                    assert_eq!(c.location.size, 64);
                }
            }
        }
        assert!(f.dataset("plain").unwrap().chunks().is_ok());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
