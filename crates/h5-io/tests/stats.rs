//! Storage statistics against what the reference h5stat 1.10.8 prints for files of its own
//! test suite (the numbers are from the corpus's expected outputs).

use h5_io::stats::{file_stats, object_stats, HeaderSpace, IndexHeap};
use h5_io::{File, ObjectKind};

fn open(name: &str) -> Option<File> {
    let p = h5_oracle::corpus("h5stat").join(name);
    if !p.exists() {
        eprintln!("{} not found; skipped", p.display());
        return None;
    }
    Some(File::open(p).expect("open"))
}

#[test]
fn old_style_group_and_file_structures() {
    // h5stat_filters.ddl: superblock 96, root group header 48/8, group B-tree and symbol
    // table nodes 1200, local heap 288.
    let Some(f) = open("h5stat_filters.h5") else {
        return;
    };
    let fs = file_stats(&f).unwrap();
    assert_eq!(
        (fs.superblock, fs.superblock_extension, fs.user_block),
        (96, 0, 0)
    );
    assert_eq!(fs.file_size, 46272);
    let root = object_stats(&f, f.root_address()).unwrap();
    assert_eq!(root.kind, ObjectKind::Group);
    assert_eq!(root.header, HeaderSpace { total: 48, free: 8 });
    assert_eq!(
        root.storage,
        IndexHeap {
            index: 1200,
            heap: 288
        }
    );
}

#[test]
fn shared_messages_and_fractal_heaps() {
    // h5stat_tsohm.ddl: superblock 48 + extension 40, table 38, B-tree 550, heap 1279.
    let Some(f) = open("h5stat_tsohm.h5") else {
        return;
    };
    let fs = file_stats(&f).unwrap();
    assert_eq!((fs.superblock, fs.superblock_extension), (48, 40));
    assert_eq!(fs.sohm_header, 38);
    assert_eq!(
        fs.sohm,
        IndexHeap {
            index: 550,
            heap: 1279
        }
    );
}

#[test]
fn persistent_free_space() {
    // h5stat_newgrat.ddl: free-space managers 180 bytes tracking 132, one section of 1 byte.
    let Some(f) = open("h5stat_newgrat.h5") else {
        return;
    };
    let fs = file_stats(&f).unwrap();
    assert_eq!((fs.free_space_meta, fs.free_space), (180, 132));
    assert!(fs.free_sections.contains(&1));
}

#[test]
fn extensible_array_chunk_index_as_the_library_reckons_it() {
    // h5stat 1.10.8 on the h5py fixture: "Chunked datasets: Index: 51412". Each index is the
    // 72-byte header, the index block as `H5EA__cache_hdr_deserialize` sizes it (66 bytes, 90
    // for the filtered class with its 14-byte elements: the 4 first secondary block
    // addresses taken off, not the 25 real ones added) and the stored super/data block bytes.
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/h5py/chunk_index_extensible_array.h5");
    let f = File::open(p).expect("open");
    let root = f.object(f.root_address()).unwrap();
    let mut sizes = Vec::new();
    for name in ["d", "filtered", "many", "sparse"] {
        let link = h5_io::link::lookup(&f, &root, name).unwrap().expect(name);
        let h5_io::LinkTarget::Hard(addr) = link.target else {
            panic!("{name} is not a hard link");
        };
        sizes.push(object_stats(&f, addr).unwrap().storage.index);
    }
    assert_eq!(
        sizes,
        [
            72 + 66 + 150,
            72 + 90 + 246,
            72 + 66 + 430 + 49860,
            72 + 66 + 150
        ]
    );
    assert_eq!(sizes.iter().sum::<u64>(), 51412);
}
