//! How many requests the reader makes of its storage for common operations, counted with
//! `CountingStorage` (no server, no timing): a regression test on the number of reads, which
//! is what costs on an object store (20-60 ms a request).
//!
//! The files are written by this crate's writer: a group of 10,000 links in each group
//! format (a symbol table: v1 B-tree + local heap; dense: fractal heap + v2 B-tree name
//! index), and 40 chunked variables.
//!
//! The same operations on the same files through libhdf5 2.0 (h5py over a Python file
//! object counting `readinto` calls), and what this reader did before lookups used the
//! group's index and chunk reads were batched:
//!
//! | operation                                 | libhdf5 2.0 | before | then         | now         |
//! |-------------------------------------------|-------------|--------|--------------|-------------|
//! | open + list root, symbol table            | 7           | 10     | 8            | 6           |
//! | open + list root, dense                   | 3           | 4      | 4            | 2           |
//! | `link("l07777")` in 10,000, symbol table  | 6 (82 KB)   | 2,588  | 6 (82 KB)    | 6 (82 KB)   |
//! | `link("l07777")` in 10,000, dense         | 7           | 20,237 | 7            | 7           |
//! | `dataset("/v17")` + read (8 chunks)       | 17          | 97     | 11 + 1 batch | 9 + 1 batch |
//!
//! ("now": the open's first read is of 4 KiB at offset 0, signature and superblock at
//! once, and an object header's first read of 512 bytes holds all of a small header.)
//!
//! Behind a `CachedStorage` (64 KiB pages), open + listing the 40 variables + reading one
//! costs 4 requests of the storage.
//!
//! The case, a 40-variable file of 42 MB opened and one 1 MiB variable (8 chunks)
//! read, counted from the open: libhdf5 2.0.0 (h5py 3.16 over a counting file object) makes
//! 19 reads of this file, one after the other (11 of metadata, then each chunk); this reader
//! 18 (10 of metadata, the 8 chunks in one batch), so 11 round trips, which `LatencyStorage`
//! turns into a modelled wait (220 ms at 20 ms a request, against 380 ms for 19 sequential
//! reads).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use h5_format::storage::{CachedStorage, CountingStorage, Counts, FileStorage, LatencyStorage};
use h5_io::selection::Dataspace;
use h5_io::write::{DatasetSpec, FileFormat, FileWriter, LinkSpec, StorageSpec};
use h5_io::{File, OpenOptions};
use h5_types::H5Type;

const LINKS: usize = 10_000;
const VARS: usize = 40;
const VAR_LEN: u64 = 32 * 1024;
const CHUNK: u64 = 4096;

fn dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("h5-io-request-counts-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        for format in [FileFormat::Compatible, FileFormat::Latest] {
            let mut w = FileWriter::create(d.join(format!("links-{format:?}.h5")), format).unwrap();
            let root = w.root();
            let g = w.create_group(root, "big").unwrap();
            let target = w.create_group(root, "target").unwrap();
            for i in 0..LINKS {
                w.create_link(g, &format!("l{i:05}"), LinkSpec::Hard(target))
                    .unwrap();
            }
            w.close().unwrap();
        }
        let f64t = f64::h5_type();
        let mut w = FileWriter::create(d.join("vars.h5"), FileFormat::Latest).unwrap();
        let root = w.root();
        for v in 0..VARS {
            let mut spec = DatasetSpec::new(f64t.clone(), Dataspace::simple(&[VAR_LEN]).unwrap());
            spec.storage = StorageSpec::Chunked(vec![CHUNK]);
            let id = w.create_dataset(root, &format!("v{v:02}"), spec).unwrap();
            let data: Vec<u8> = (0..VAR_LEN)
                .flat_map(|i| (i as f64 + v as f64).to_le_bytes())
                .collect();
            w.write_dataset(id, None, &f64t, &data, &Default::default())
                .unwrap();
        }
        w.close().unwrap();
        d
    })
}

fn open(name: &str) -> (File, Arc<CountingStorage<FileStorage>>) {
    let p = dir().join(name);
    let s = Arc::new(CountingStorage::new(FileStorage::open(&p).unwrap()));
    let f = File::open_storage_at(s.clone(), p, OpenOptions::default()).unwrap();
    (f, s)
}

/// The counts of `op` alone (what opening cost is not counted).
fn cost(s: &CountingStorage<FileStorage>, op: impl FnOnce()) -> Counts {
    s.reset();
    op();
    s.counts()
}

#[test]
fn open_and_list_root() {
    for format in ["Compatible", "Latest"] {
        let p = dir().join(format!("links-{format}.h5"));
        let s = Arc::new(CountingStorage::new(FileStorage::open(&p).unwrap()));
        let f = File::open_storage_at(s.clone(), &p, OpenOptions::default()).unwrap();
        let names: Vec<String> = f
            .root()
            .unwrap()
            .links()
            .unwrap()
            .into_iter()
            .map(|l| l.name)
            .collect();
        assert_eq!(names, ["big", "target"]);
        let c = s.counts();
        eprintln!("open + list root ({format}): {c:?}");
        assert!(
            c.reads <= if format == "Latest" { 2 } else { 6 },
            "{format}: {c:?}"
        );
    }
}

#[test]
fn lookup_by_name_in_a_large_group() {
    for format in ["Compatible", "Latest"] {
        let (f, s) = open(&format!("links-{format}.h5"));
        let big = f.group("/big").unwrap();
        assert_eq!(
            big.storage().unwrap(),
            if format == "Latest" {
                h5_io::LinkStorage::Dense
            } else {
                h5_io::LinkStorage::SymbolTable
            }
        );
        let c = cost(&s, || {
            let l = big.link("l07777").unwrap();
            assert_eq!(l.name, "l07777");
        });
        eprintln!("lookup by name in {LINKS} links ({format}): {c:?}");
        assert!(
            c.reads <= if format == "Latest" { 7 } else { 6 },
            "{format}: {c:?}"
        );
        let c2 = cost(&s, || {
            assert!(f.group("/big/l01234").is_ok());
        });
        eprintln!("path lookup /big/l01234 ({format}): {c2:?}");
        assert!(c2.reads <= 11, "{format}: {c2:?}");
        let c3 = cost(&s, || {
            assert_eq!(
                big.link("nope").unwrap_err().kind(),
                h5_io::ErrorKind::NotFound
            );
        });
        eprintln!("missing name ({format}): {c3:?}");
        assert!(c3.reads <= 4, "{format}: {c3:?}");
    }
}

#[test]
fn read_one_chunked_variable() {
    let (f, s) = open("vars.h5");
    let c = cost(&s, || {
        let d = f.dataset("/v17").unwrap();
        let v: Vec<f64> = d.read().unwrap();
        assert_eq!(v.len() as u64, VAR_LEN);
        assert_eq!(v[5], 5.0 + 17.0);
    });
    let chunks = VAR_LEN / CHUNK;
    eprintln!("read one chunked variable of {chunks} chunks: {c:?}");
    // The chunks in one batch; the metadata (the name in a dense root of 40 links, the
    // header, the fixed array index) in a few reads.
    assert_eq!(c.batches, 1, "{c:?}");
    assert!(c.reads - chunks <= 9, "{c:?}");
    assert!(c.bytes < VAR_LEN * 8 + 8192, "{c:?}");
}

#[test]
fn a_block_cache_serves_the_metadata_of_a_costly_storage() {
    // What an object store sees behind the block cache: the metadata of open, lookups and
    // the chunk index come from a few pages; the chunks pass through in one batch.
    let p = dir().join("vars.h5");
    let counted = Arc::new(CountingStorage::new(FileStorage::open(&p).unwrap()));
    let cached = Arc::new(CachedStorage::new(counted.clone()));
    let f = File::open_storage_at(cached.clone(), &p, OpenOptions::default()).unwrap();
    let names = f.root().unwrap().links().unwrap();
    assert_eq!(names.len(), VARS);
    let v: Vec<f64> = f.dataset("/v03").unwrap().read().unwrap();
    assert_eq!(v[1], 4.0);
    let c = counted.counts();
    let (hits, misses) = cached.hits_and_misses();
    eprintln!(
        "open + list + read one variable through the cache: {c:?}, {hits} hits, {misses} misses"
    );
    assert!(c.batches <= 12, "{c:?}");
    assert!(hits > misses, "{hits} hits, {misses} misses");
}

/// The case: a 40-variable file of about 40 MB (1 MiB a variable, in 8 chunks of
/// 128 KiB), opened and one variable read, counted from the first byte of the open. libhdf5
/// 2.0.0 makes 19 reads of it, one after the other (11 of metadata, then each chunk); this
/// reader fetches the chunks in one batch, so what an object store waits for is the
/// metadata reads plus one round trip.
#[test]
fn open_and_read_one_variable_of_forty() {
    const LEN: u64 = 128 * 1024;
    const LIBHDF5_READS: u64 = 19;
    let p = dir().join("forty.h5");
    if !p.exists() {
        let f64t = f64::h5_type();
        let mut w = FileWriter::create(&p, FileFormat::Latest).unwrap();
        let root = w.root();
        for v in 0..VARS {
            let mut spec = DatasetSpec::new(f64t.clone(), Dataspace::simple(&[LEN]).unwrap());
            spec.storage = StorageSpec::Chunked(vec![LEN / 8]);
            let id = w.create_dataset(root, &format!("v{v:02}"), spec).unwrap();
            let data: Vec<u8> = (0..LEN)
                .flat_map(|i| (i as f64 * 0.5 + v as f64).to_le_bytes())
                .collect();
            w.write_dataset(id, None, &f64t, &data, &Default::default())
                .unwrap();
        }
        w.close().unwrap();
    }
    let latency = std::time::Duration::from_millis(20);
    let s = Arc::new(CountingStorage::new(LatencyStorage::new(
        FileStorage::open(&p).unwrap(),
        latency,
    )));
    let f = File::open_storage_at(s.clone(), &p, OpenOptions::default()).unwrap();
    let v: Vec<f64> = f.dataset("/v21").unwrap().read().unwrap();
    assert_eq!(v.len() as u64, LEN);
    assert_eq!(v[3], 1.5 + 21.0);
    let c = s.counts();
    let trips = s.inner().round_trips();
    eprintln!(
        "open + read one of {VARS} variables ({} bytes in the file): {c:?}, {trips} round trips \
         ({:?} at {latency:?} each); libhdf5 2.0: {LIBHDF5_READS} reads",
        std::fs::metadata(&p).unwrap().len(),
        s.inner().elapsed()
    );
    // The 8 chunks in one batch; the metadata in a few reads.
    assert_eq!(c.batches, 1, "{c:?}");
    assert!(c.reads - 8 <= 10, "{c:?}");
    // Round trips: every positioned read and the one batch, under libhdf5's reads.
    assert_eq!(trips, c.reads - 8 + c.batches);
    assert!(trips < LIBHDF5_READS, "{trips} round trips");
    // The model is exact: no clock.
    assert_eq!(s.inner().elapsed(), latency * trips as u32);
    assert!(c.bytes < LEN * 8 + 16384, "{c:?}");
    drop(f);
    let _ = std::fs::remove_file(&p);
}

#[test]
fn listing_a_large_symbol_table_fetches_nearby_nodes_together() {
    let (f, s) = open("links-Compatible.h5");
    let g = f.group("/big").unwrap();
    let c = cost(&s, || {
        let names: Vec<String> = g.links().unwrap().into_iter().map(|l| l.name).collect();
        let expect: Vec<String> = (0..LINKS).map(|i| format!("l{i:05}")).collect();
        assert_eq!(names, expect);
    });
    eprintln!("list {LINKS} links (symbol table): {c:?}");
    // At least LINKS / 8 symbol table nodes (leaf K 4): one request each before, now one
    // per run of nearby nodes of a B-tree leaf, plus the B-tree nodes and the heap.
    assert!(c.reads < (LINKS / 8 / 4) as u64, "{c:?}");
}
