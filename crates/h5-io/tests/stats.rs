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
