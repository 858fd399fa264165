//! Chunks decoded straight into the caller's buffer (the last filter undone writes there)
//! against what h5py reads from the same files (`support/chunk_in_place.py`): whole chunks of
//! 1-D datasets and chunks spanning the trailing dimensions go in place, partial edge chunks,
//! chunks a selection straddles and chunks whose elements are not contiguous in the output go
//! through a buffer; filter masks, checksum errors and chunks that decode to the wrong size
//! behave the same on both paths. Counting codecs wrapped around the built-in ones tell which
//! path each chunk took.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use h5_io::filter::{DecodeContext, Filter, FilterCodec, FilterId, FilterRegistry, Step};
use h5_io::selection::{Dataspace, MemoryMap, Selection};
use h5_io::{File, OpenOptions};

fn files() -> Option<&'static PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        h5_oracle::h5py_files(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/chunk_in_place.py"),
            std::env::temp_dir().join(format!("h5-io-in-place-{}", std::process::id())),
        )
    })
    .as_ref()
}

/// A built-in codec with its calls counted: `decode_into` (in place) and `decode` (through a
/// buffer).
struct Counting {
    inner: Arc<dyn FilterCodec>,
    into: AtomicUsize,
    buffered: AtomicUsize,
}

impl FilterCodec for Counting {
    fn id(&self) -> FilterId {
        self.inner.id()
    }
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn decode(
        &self,
        f: &Filter,
        input: &[u8],
        out: &mut Vec<u8>,
        ctx: &DecodeContext,
    ) -> h5_io::filter::Result<Step> {
        self.buffered.fetch_add(1, Ordering::Relaxed);
        self.inner.decode(f, input, out, ctx)
    }
    fn decode_into(
        &self,
        f: &Filter,
        input: &[u8],
        out: &mut [u8],
        ctx: &DecodeContext,
    ) -> h5_io::filter::Result<Option<usize>> {
        let r = self.inner.decode_into(f, input, out, ctx);
        if matches!(r, Ok(Some(_))) {
            self.into.fetch_add(1, Ordering::Relaxed);
        }
        r
    }
    fn encode(&self, f: &Filter, input: &[u8], out: &mut Vec<u8>) -> h5_io::filter::Result<Step> {
        self.inner.encode(f, input, out)
    }
}

/// A file opened with counting deflate, shuffle and fletcher32 codecs.
struct Counted {
    file: File,
    codecs: Vec<Arc<Counting>>,
}

impl Counted {
    fn open(p: &Path) -> Counted {
        let mut registry = FilterRegistry::builtin();
        let mut codecs = Vec::new();
        for id in [FilterId::DEFLATE, FilterId::SHUFFLE, FilterId::FLETCHER32] {
            let inner = registry.unregister(id).expect("built-in codec");
            let c = Arc::new(Counting {
                inner,
                into: AtomicUsize::new(0),
                buffered: AtomicUsize::new(0),
            });
            registry.register_arc(c.clone());
            codecs.push(c);
        }
        let options = OpenOptions {
            filters: registry,
            ..OpenOptions::default()
        };
        Counted {
            file: File::open_with(p, options).expect("open"),
            codecs,
        }
    }

    /// The calls (in place, through a buffer) of the codec of `id` since the last take.
    fn take(&self, id: FilterId) -> (usize, usize) {
        let c = self.codecs.iter().find(|c| c.id() == id).expect("counted");
        (
            c.into.swap(0, Ordering::Relaxed),
            c.buffered.swap(0, Ordering::Relaxed),
        )
    }
}

fn expected(dir: &Path, format: &str, name: &str) -> Vec<u8> {
    std::fs::read(
        dir.join(format!("in_place-{format}"))
            .join(format!("{name}.bin")),
    )
    .unwrap_or_else(|e| panic!("{name}.bin: {e}"))
}

fn bytes_of<T: h5_types::H5Type + Clone>(v: &[T]) -> Vec<u8> {
    let mut v = v.to_vec();
    T::image_bytes_mut(&mut v).expect("a byte image").to_vec()
}

const FORMATS: [&str; 2] = ["earliest", "latest"];

#[test]
fn whole_reads_match_h5py_and_decode_whole_chunks_in_place() {
    let Some(dir) = files() else { return };
    for format in FORMATS {
        let f = Counted::open(&dir.join(format!("in_place-{format}.h5")));
        let read = |name: &str| -> Vec<u8> {
            let d = f.file.dataset(name).expect(name);
            let (raw, _) = d.read_raw().expect(name);
            raw
        };
        // Shuffle + deflate + fletcher32: nine whole chunks unshuffled into the output, the
        // partial tenth through a buffer.
        assert_eq!(read("d1"), expected(dir, format, "d1"), "{format} d1");
        assert_eq!(f.take(FilterId::SHUFFLE), (9, 1), "{format} d1");
        assert_eq!(f.take(FilterId::DEFLATE), (0, 10), "{format} d1");
        assert_eq!(f.take(FilterId::FLETCHER32), (0, 10), "{format} d1");
        let d1: Vec<f64> = f.file.dataset("d1").unwrap().read().unwrap();
        assert_eq!(
            bytes_of(&d1),
            expected(dir, format, "d1"),
            "{format} d1 as f64"
        );
        assert_eq!(f.take(FilterId::SHUFFLE), (9, 1));
        assert_eq!(f.take(FilterId::DEFLATE), (0, 10));
        assert_eq!(f.take(FilterId::FLETCHER32), (0, 10));
        // Deflate alone inflates into the output (5000 = 9 * 512 + 392).
        assert_eq!(read("d1_deflate"), expected(dir, format, "d1_deflate"));
        assert_eq!(f.take(FilterId::DEFLATE), (9, 1), "{format} d1_deflate");
        assert_eq!(read("d1_shuffle"), expected(dir, format, "d1_shuffle"));
        assert_eq!(f.take(FilterId::SHUFFLE), (11, 1), "{format} d1_shuffle");
        // Fletcher32 alone: checked where it lies, the data copied out.
        assert_eq!(read("d1_fletcher"), expected(dir, format, "d1_fletcher"));
        assert_eq!(f.take(FilterId::FLETCHER32), (3, 0), "{format} d1_fletcher");
        // Chunks spanning the rows (and the trailing two dimensions) land contiguously.
        assert_eq!(read("d2_rows"), expected(dir, format, "d2_rows"));
        assert_eq!(f.take(FilterId::SHUFFLE), (5, 0), "{format} d2_rows");
        assert_eq!(f.take(FilterId::DEFLATE), (0, 5), "{format} d2_rows");
        assert_eq!(read("d3"), expected(dir, format, "d3"));
        assert_eq!(f.take(FilterId::DEFLATE), (3, 0), "{format} d3");
        // Tiles are not contiguous in the output: every one through a buffer.
        assert_eq!(read("d2_tiles"), expected(dir, format, "d2_tiles"));
        assert_eq!(f.take(FilterId::SHUFFLE), (0, 20), "{format} d2_tiles");
    }
}

#[test]
fn selections_straddling_chunks() {
    let Some(dir) = files() else { return };
    for format in FORMATS {
        let f = Counted::open(&dir.join(format!("in_place-{format}.h5")));
        let d1 = f.file.dataset("d1").unwrap();
        let all = expected(dir, format, "d1");
        // Elements 1000..9000: chunks 1..=7 whole, 0 and 8 straddled.
        let sel = Selection::hyperslab(d1.dataspace(), &[1000], None, &[8000], None).unwrap();
        let v: Vec<f64> = d1.read_selection(&sel).unwrap();
        assert_eq!(bytes_of(&v), all[1000 * 8..9000 * 8], "{format}");
        assert_eq!(f.take(FilterId::SHUFFLE), (7, 2), "{format}");
        // Into a caller's buffer (a touched one: every element is overwritten).
        let mut buf = vec![-1.0f64; 8000];
        d1.read_selection_into(&sel, &mut buf).unwrap();
        assert_eq!(bytes_of(&buf), all[1000 * 8..9000 * 8], "{format} into");
        // The two straddled chunks were kept by the chunk cache (used in part), the whole
        // ones were not: this read decodes only those again.
        assert_eq!(f.take(FilterId::SHUFFLE), (7, 0), "{format} cached");
        // A strided selection: no chunk is read whole.
        let sel = Selection::hyperslab(d1.dataspace(), &[0], Some(&[2]), &[5000], None).unwrap();
        let v: Vec<f64> = d1.read_selection(&sel).unwrap();
        let want: Vec<u8> = all.chunks(8).step_by(2).flatten().copied().collect();
        assert_eq!(bytes_of(&v), want, "{format} strided");
        assert_eq!(f.take(FilterId::SHUFFLE).0, 0, "{format} strided");

        // Rows 3..29 of 40 x 64 in row chunks of 8: rows 8..24 are two whole chunks.
        let rows = f.file.dataset("d2_rows").unwrap();
        let grid = expected(dir, format, "d2_rows");
        let sel = Selection::hyperslab(rows.dataspace(), &[3, 0], None, &[26, 64], None).unwrap();
        let v: Vec<f32> = rows.read_selection(&sel).unwrap();
        assert_eq!(bytes_of(&v), grid[3 * 64 * 4..29 * 64 * 4], "{format} rows");
        assert_eq!(f.take(FilterId::SHUFFLE), (2, 2), "{format} rows");
        // Half the columns: no chunk's elements are contiguous in the output.
        let sel = Selection::hyperslab(rows.dataspace(), &[0, 0], None, &[40, 32], None).unwrap();
        let v: Vec<f32> = rows.read_selection(&sel).unwrap();
        let want: Vec<u8> = grid
            .chunks(64 * 4)
            .flat_map(|r| r[..32 * 4].to_vec())
            .collect();
        assert_eq!(bytes_of(&v), want, "{format} columns");
        assert_eq!(f.take(FilterId::SHUFFLE).0, 0, "{format} columns");
        // Into a memory dataspace whose rows are wider than the chunk's: the whole chunks'
        // elements are not contiguous there. (A dataset opened again: an empty chunk cache.)
        let rows = f.file.dataset("d2_rows").unwrap();
        let space = Dataspace::simple(&[40, 80]).unwrap();
        let msel = Selection::hyperslab(&space, &[0, 8], None, &[40, 64], None).unwrap();
        let mem = MemoryMap::selection(&space, &msel).unwrap();
        let got = rows.read_raw_selection(&Selection::All, &mem).unwrap();
        for r in 0..40 {
            assert_eq!(
                got[(r * 80 + 8) * 4..(r * 80 + 72) * 4],
                grid[r * 64 * 4..(r + 1) * 64 * 4],
                "{format} row {r}"
            );
        }
        assert_eq!(f.take(FilterId::SHUFFLE), (0, 5), "{format} wide rows");
        let rows = f.file.dataset("d2_rows").unwrap();
        // And into the same memory dataspace's rows 0..40 of 64 at the start of a larger
        // buffer: contiguous again, in place.
        let space = Dataspace::simple(&[50, 64]).unwrap();
        let msel = Selection::hyperslab(&space, &[5, 0], None, &[40, 64], None).unwrap();
        let mem = MemoryMap::selection(&space, &msel).unwrap();
        let got = rows.read_raw_selection(&Selection::All, &mem).unwrap();
        assert_eq!(
            got[5 * 64 * 4..45 * 64 * 4],
            grid[..],
            "{format} offset rows"
        );
        assert_eq!(f.take(FilterId::SHUFFLE), (5, 0), "{format} offset rows");
    }
}

#[test]
fn chunks_with_filters_skipped_by_their_mask() {
    let Some(dir) = files() else { return };
    for format in FORMATS {
        let f = Counted::open(&dir.join(format!("in_place-{format}.h5")));
        let d = f.file.dataset("masked").unwrap();
        let (raw, _) = d.read_raw().unwrap();
        assert_eq!(raw, expected(dir, format, "masked"), "{format}");
        // Chunk 0 and 1 end with shuffle, 2 with deflate, 3 (every filter skipped) is copied.
        assert_eq!(f.take(FilterId::SHUFFLE), (2, 0), "{format}");
        assert_eq!(f.take(FilterId::DEFLATE), (1, 1), "{format}");
    }
}

#[test]
fn checksum_errors_are_reported_in_place_too() {
    let Some(dir) = files() else { return };
    for format in FORMATS {
        let p = dir.join(format!("in_place-{format}.h5"));
        let f = File::open(&p).unwrap();
        let d = f.dataset("bad_sum").unwrap();
        let e = d.read_raw().unwrap_err().to_string();
        assert!(
            e.contains("checksum mismatch") && e.contains("chunk [1024]"),
            "{format}: {e}"
        );
        let e = d.read::<f64>().unwrap_err().to_string();
        assert!(e.contains("checksum mismatch"), "{format}: {e}");
        // The good chunk reads (h5py reads it too), whole and in part.
        let want = expected(dir, format, "bad_sum");
        let sel = Selection::hyperslab(d.dataspace(), &[0], None, &[1024], None).unwrap();
        let v: Vec<f64> = d.read_selection(&sel).unwrap();
        assert_eq!(bytes_of(&v), want, "{format}");
        // Without checksum verification the bad chunk reads as stored.
        let options = OpenOptions {
            skip_checksums: true,
            ..OpenOptions::default()
        };
        let f = File::open_with(&p, options).unwrap();
        let v: Vec<f64> = f.dataset("bad_sum").unwrap().read().unwrap();
        let want: Vec<f64> = (0..2048).map(f64::from).collect();
        assert_eq!(v, want, "{format} unchecked");
    }
}

#[test]
fn chunks_decoding_to_the_wrong_size_are_errors() {
    let Some(dir) = files() else { return };
    for format in FORMATS {
        let f = File::open(dir.join(format!("in_place-{format}.h5"))).unwrap();
        // (in place: the chunk read whole; through a buffer: the chunk straddled)
        for (name, whole, straddled) in [
            (
                "short",
                "decodes to 4000 bytes, expected 8192",
                "decodes to 4000 bytes",
            ),
            (
                "long",
                "inflated data exceeds 8192 bytes",
                "decodes to 9000 bytes",
            ),
            (
                "short_shuffle",
                "decodes to 4000 bytes, expected 4096",
                "decodes to 4000 bytes",
            ),
        ] {
            let d = f.dataset(name).unwrap();
            let e = d.read_raw().unwrap_err().to_string();
            assert!(
                e.contains(whole) && e.contains("chunk [1024]"),
                "{format} {name}: {e}"
            );
            let sel = Selection::hyperslab(d.dataspace(), &[512], None, &[1024], None).unwrap();
            let e = d
                .read_raw_selection(&sel, &MemoryMap::packed(1024))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(straddled) && e.contains("chunk [1024]"),
                "{format} {name}: {e}"
            );
            // The other chunk reads.
            let sel = Selection::hyperslab(d.dataspace(), &[0], None, &[1024], None).unwrap();
            assert!(d.read_raw_selection(&sel, &MemoryMap::packed(1024)).is_ok());
        }
    }
}
