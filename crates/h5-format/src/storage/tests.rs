#![allow(clippy::single_range_in_vec_init)]

use super::*;

#[test]
fn slices_and_memory_check_bounds() {
    let s = MemStorage::new(vec![1u8, 2, 3, 4]);
    let mut b = [0u8; 2];
    s.read_exact_at(2, &mut b).unwrap();
    assert_eq!(b, [3, 4]);
    assert!(s.read_exact_at(3, &mut b).is_err());
    assert!(s.read_exact_at(u64::MAX, &mut b).is_err());
    assert!(s.read_vec(0, 1 << 40).is_err());
    let mut big = [0u8; 8];
    assert_eq!(s.read_at(1, &mut big).unwrap(), 3);
    assert_eq!(&big[..3], &[2, 3, 4]);
    let slice = SliceStorage(&[9, 8, 7]);
    assert_eq!(slice.read_vec(1, 2).unwrap(), vec![8, 7]);
}

#[test]
fn read_ranges_defaults_to_a_loop_and_checks_every_range() {
    let s = MemStorage::new((0u8..16).collect::<Vec<_>>());
    let got = s.read_ranges(&[0..2, 10..13, 4..4]).unwrap();
    assert_eq!(got, vec![vec![0, 1], vec![10, 11, 12], vec![]]);
    assert!(s.read_ranges(&[0..2, 15..17]).is_err());
    #[allow(clippy::reversed_empty_ranges)]
    let backwards = [3..2];
    assert!(s.read_ranges(&backwards).is_err());
}

#[test]
fn ranges_into_handed_buffers_fill_a_file_in_place_and_others_through_read_ranges() {
    let path = std::env::temp_dir().join(format!("h5-format-ranges-into-{}", std::process::id()));
    std::fs::write(&path, (0u8..32).collect::<Vec<_>>()).unwrap();
    let f = FileStorage::open(&path).unwrap();
    // A buffer longer than its range, one shorter, one empty: each left holding its range.
    let mut bufs = vec![vec![0xAA; 64], vec![0xBB; 1], Vec::with_capacity(8)];
    let long_at = bufs[0].as_ptr();
    f.read_ranges_into(&[2..5, 10..14, 30..30], &mut bufs)
        .unwrap();
    assert_eq!(bufs, vec![vec![2, 3, 4], vec![10, 11, 12, 13], vec![]]);
    // Filled in place: the long buffer is the same memory.
    assert_eq!(bufs[0].as_ptr(), long_at);
    // Every range is checked before anything is read; the count must match.
    let mut two = vec![vec![7u8; 2], vec![7u8; 2]];
    assert!(f.read_ranges_into(&[0..2, 31..33], &mut two).is_err());
    assert_eq!(two, vec![vec![7, 7], vec![7, 7]]);
    assert!(f.read_ranges_into(&[0..2], &mut two).is_err());
    // A storage that batches is read through its `read_ranges` (one batch counted).
    let c = CountingStorage::new(MemStorage::new((0u8..16).collect::<Vec<_>>()));
    let mut bufs = vec![vec![9u8; 5], Vec::new()];
    c.read_ranges_into(&[1..3, 4..7], &mut bufs).unwrap();
    assert_eq!(bufs, vec![vec![1, 2], vec![4, 5, 6]]);
    assert_eq!(c.counts().batches, 1);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn family_spans_members() {
    let a: Box<dyn Storage> = Box::new(MemStorage::new(vec![1u8, 2, 3]));
    let b: Box<dyn Storage> = Box::new(MemStorage::new(vec![5u8, 6]));
    let f = FamilyStorage::new(vec![a, b], 4).unwrap();
    assert_eq!(f.len().unwrap(), 6);
    let mut buf = [9u8; 6];
    f.read_exact_at(0, &mut buf).unwrap();
    assert_eq!(buf, [1, 2, 3, 0, 5, 6]);
    assert!(FamilyStorage::new(Vec::new(), 4).is_err());
}

#[test]
fn multi_members_hold_address_ranges() {
    let a: Box<dyn Storage> = Box::new(MemStorage::new(vec![1u8, 2]));
    let b: Box<dyn Storage> = Box::new(MemStorage::new(vec![7u8, 8, 9]));
    let m = MultiStorage::new(vec![(100, b), (0, a)]);
    assert_eq!(m.len().unwrap(), 103);
    assert_eq!(m.read_vec(101, 2).unwrap(), vec![8, 9]);
    assert_eq!(m.read_vec(0, 2).unwrap(), vec![1, 2]);
}

#[test]
fn offset_shifts_reads_writes_and_length() {
    let v = VecStorage::new(vec![0u8; 4]);
    let o = OffsetStorage::new(&v, 2);
    assert_eq!(o.len().unwrap(), 2);
    o.write_all_at(1, &[5, 6, 7]).unwrap();
    assert_eq!(v.to_vec(), vec![0, 0, 0, 5, 6, 7]);
    assert_eq!(o.read_ranges(&[1..3]).unwrap(), vec![vec![5, 6]]);
    o.set_len(1).unwrap();
    assert_eq!(v.len().unwrap(), 3);
}

#[test]
fn counting_counts_requests_and_bytes() {
    let c = CountingStorage::new(MemStorage::new(vec![0u8; 64]));
    c.read_vec(0, 8).unwrap();
    c.read_ranges(&[0..4, 10..20]).unwrap();
    assert_eq!(
        c.counts(),
        Counts {
            reads: 3,
            batches: 1,
            bytes: 22,
            ..Counts::default()
        }
    );
    c.reset();
    assert_eq!(c.counts(), Counts::default());
}

#[test]
fn faulty_fails_from_the_nth_write_on() {
    let f = FaultyStorage::new(VecStorage::default(), 2);
    f.write_all_at(0, &[1]).unwrap();
    assert!(f.write_all_at(1, &[2]).is_err());
    assert!(f.set_len(10).is_err());
    assert_eq!(f.read_vec(0, 1).unwrap(), vec![1]);
    assert_eq!(f.len().unwrap(), 1);
    assert_eq!(f.calls(), 3);
}

#[test]
fn files_read_and_write_positionally() {
    let p = std::env::temp_dir().join(format!("h5-format-storage-{}", std::process::id()));
    let w = FileStorage::create(&p).unwrap();
    w.write_all_at(6, b"world").unwrap();
    w.write_all_at(0, b"hello ").unwrap();
    w.sync_data().unwrap();
    let r = FileStorage::open(&p).unwrap();
    assert_eq!(r.len().unwrap(), 11);
    assert_eq!(r.read_vec(6, 5).unwrap(), b"world");
    assert!(r.read_vec(8, 5).is_err());
    assert!(r.write_all_at(0, b"x").is_err());
    assert!(FsResolver.exists(&p));
    assert_eq!(FsResolver.open(&p).unwrap().len().unwrap(), 11);
    drop((w, r));
    std::fs::remove_file(&p).unwrap();
    assert!(!FsResolver.exists(&p));
}

#[test]
fn the_block_cache_serves_small_reads_from_pages_and_passes_large_ones() {
    let data: Vec<u8> = (0..10_000u32).map(|i| i as u8).collect();
    let counted = CountingStorage::new(MemStorage::new(data.clone()));
    let c = CachedStorage::with_sizes(&counted, 1024, 4096);
    assert_eq!(c.read_vec(10, 20).unwrap(), data[10..30]);
    assert_eq!(c.read_vec(1000, 100).unwrap(), data[1000..1100]);
    // Pages 0 and 1 fetched in one request of the first read's batch and the second's.
    assert_eq!(counted.counts().batches, 2);
    assert_eq!(c.hits_and_misses(), (1, 2));
    // Cached: no request.
    assert_eq!(c.read_vec(500, 600).unwrap(), data[500..1100]);
    assert_eq!(counted.counts().batches, 2);
    // A batch: missing pages in runs, the large range passed through, one inner batch.
    let got = c.read_ranges(&[9990..10_000, 0..5000, 5000..5010]).unwrap();
    assert_eq!(
        got,
        vec![
            data[9990..].to_vec(),
            data[..5000].to_vec(),
            data[5000..5010].to_vec()
        ]
    );
    let k = counted.counts();
    assert_eq!(k.batches, 3);
    // Bounded: at most 4 pages are kept.
    for p in 0..9 {
        c.read_vec(p * 1024, 1).unwrap();
    }
    assert!(c.read_vec(9999, 2).is_err());
    let before = counted.counts().batches;
    c.read_vec(0, 1).unwrap();
    assert_eq!(counted.counts().batches, before + 1, "page 0 was evicted");
}

#[test]
fn the_block_cache_takes_a_new_page_size_empty() {
    let data: Vec<u8> = (0..20_000u32).map(|i| (i % 251) as u8).collect();
    let counted = CountingStorage::new(MemStorage::new(data.clone()));
    let c = CachedStorage::with_sizes(&counted, 1024, 1 << 20);
    assert_eq!(c.page_size(), 1024);
    assert_eq!(c.read_vec(100, 10).unwrap(), data[100..110]);
    assert_eq!(counted.counts().bytes, 1024);
    // The same size keeps the pages.
    c.set_page_size(1024).unwrap();
    assert_eq!(c.read_vec(200, 10).unwrap(), data[200..210]);
    assert_eq!(counted.counts().batches, 1);
    // A new size drops them and fetches whole pages of that size.
    c.set_page_size(4096).unwrap();
    assert_eq!(c.page_size(), 4096);
    assert_eq!(c.read_vec(5000, 10).unwrap(), data[5000..5010]);
    let k = counted.counts();
    assert_eq!((k.batches, k.bytes), (2, 1024 + 4096));
    assert_eq!(c.read_vec(4096, 4096).unwrap(), data[4096..8192]);
    assert_eq!(counted.counts().batches, 2, "served from the 4 KiB page");
    // Never below 512 bytes.
    c.set_page_size(1).unwrap();
    assert_eq!(c.page_size(), 512);
}

#[test]
fn the_latency_model_charges_a_round_trip_per_request_and_one_per_batch() {
    use std::time::Duration;
    let data: Vec<u8> = (0..4096u32).map(|i| i as u8).collect();
    let s = LatencyStorage::new(MemStorage::new(data.clone()), Duration::from_millis(20))
        .with_bandwidth(1_000_000);
    assert!(!s.is_local());
    assert_eq!(s.read_vec(0, 1000).unwrap(), data[..1000]);
    // 20 ms + 1000 bytes at 1 MB/s.
    assert_eq!(s.elapsed(), Duration::from_millis(21));
    let got = s.read_ranges(&[0..500, 1000..1500, 2000..3000]).unwrap();
    assert_eq!(got[2], data[2000..3000]);
    assert_eq!(s.round_trips(), 2);
    assert_eq!(s.elapsed(), Duration::from_millis(21 + 22));
    // An empty batch costs nothing.
    s.read_ranges(&[]).unwrap();
    assert_eq!(s.round_trips(), 2);
    assert_eq!(s.cost(0), Duration::from_millis(20));
    s.reset();
    assert_eq!((s.round_trips(), s.elapsed()), (0, Duration::ZERO));
    // Behind the block cache: one round trip for the metadata pages, none for hits.
    let lat = LatencyStorage::new(MemStorage::new(data.clone()), Duration::from_millis(30));
    let c = CachedStorage::with_sizes(&lat, 1024, 1 << 20);
    for pos in [0u64, 100, 900, 1100, 2000, 3000] {
        c.read_vec(pos, 16).unwrap();
    }
    assert_eq!(lat.round_trips(), 3);
    assert_eq!(lat.elapsed(), Duration::from_millis(90));
}
