//! The filter registry: a user codec round-trips through the writer and the reader, an
//! unregistered filter reads as an error naming it, and raw chunks move untouched.

use h5_io::filter::{
    DecodeContext, Error, ErrorKind, Filter, FilterCodec, FilterId, FilterRegistry, LocalInfo,
    Result, Step,
};
use h5_io::selection::Dataspace;
use h5_io::write::{DatasetSpec, FileFormat, FileWriter, StorageSpec};
use h5_io::{File, OpenOptions};

const XOR_ID: FilterId = FilterId(40123);

/// A test codec: XOR with a key byte from the client data, then a 4-byte length header
/// (so decoding checks its bound); `set_local` appends the element size.
struct Xor;

impl FilterCodec for Xor {
    fn id(&self) -> FilterId {
        XOR_ID
    }
    fn name(&self) -> &str {
        "xor-test"
    }
    fn set_local(&self, filter: &Filter, local: &LocalInfo<'_>) -> Result<Filter> {
        let mut f = filter.clone();
        f.client_data.truncate(1);
        f.client_data.push(local.datatype.size() as u32);
        Ok(f)
    }
    fn decode(
        &self,
        f: &Filter,
        input: &[u8],
        out: &mut Vec<u8>,
        ctx: &DecodeContext,
    ) -> Result<Step> {
        let key = f.client_data.first().copied().unwrap_or(0) as u8;
        let Some((head, body)) = input.split_first_chunk::<4>() else {
            return Err(Error::new(ErrorKind::Corrupt, XOR_ID, "no header"));
        };
        let n = u32::from_le_bytes(*head) as usize;
        if n > ctx.limit || n != body.len() {
            return Err(Error::new(
                ErrorKind::Corrupt,
                XOR_ID,
                format!("length {n}"),
            ));
        }
        out.clear();
        out.extend(body.iter().map(|b| b ^ key));
        Ok(Step::Replaced)
    }
    fn encode(&self, f: &Filter, input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
        let key = f.client_data.first().copied().unwrap_or(0) as u8;
        out.clear();
        out.extend_from_slice(&(input.len() as u32).to_le_bytes());
        out.extend(input.iter().map(|b| b ^ key));
        Ok(Step::Replaced)
    }
}

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("h5-io-registry-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn registry() -> FilterRegistry {
    let mut r = FilterRegistry::default();
    assert!(r.register(Xor).is_none());
    r
}

fn write(path: &std::path::Path, format: FileFormat) -> Vec<u8> {
    let i32t = <i32 as h5_types::H5Type>::h5_type();
    let mut w = FileWriter::create(path, format).unwrap();
    w.set_filters(registry());
    let root = w.root();
    let mut spec = DatasetSpec::new(i32t.clone(), Dataspace::simple(&[10, 6]).unwrap());
    spec.storage = StorageSpec::Chunked(vec![4, 3]);
    spec.filters = vec![Filter::new(XOR_ID, vec![0x5a]), Filter::deflate(4)];
    let id = w.create_dataset(root, "x", spec).unwrap();
    let data: Vec<u8> = (0..60i32)
        .flat_map(|v| (v * 7 - 100).to_le_bytes())
        .collect();
    w.write_dataset(id, None, &i32t, &data, &Default::default())
        .unwrap();
    w.close().unwrap();
    data
}

#[test]
fn a_user_codec_round_trips_through_writer_and_reader() {
    for format in [FileFormat::Compatible, FileFormat::Latest] {
        let p = tmp(&format!("xor-{format:?}.h5"));
        let data = write(&p, format);
        let f = File::open_with(&p, OpenOptions::new().filters(registry())).unwrap();
        let d = f.dataset("/x").unwrap();
        let pipeline = d.filters();
        assert_eq!(pipeline[0].id, XOR_ID);
        assert_eq!(pipeline[0].client_data, [0x5a, 4], "set_local ran");
        assert_eq!(pipeline[0].name_text().as_deref(), Some("xor-test"));
        assert_eq!(d.read_raw().unwrap().0, data, "{format:?}");

        // Without the codec: a clear error naming the filter and its client data.
        let plain = File::open(&p).unwrap();
        let e = plain
            .dataset("/x")
            .unwrap()
            .read_raw()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("filter 40123 (xor-test) is not available: client data [90, 4]"),
            "{e}"
        );
    }
}

#[test]
fn raw_chunks_move_untouched() {
    let src = tmp("raw-src.h5");
    let data = write(&src, FileFormat::Latest);
    let f = File::open_with(&src, OpenOptions::new().filters(registry())).unwrap();
    let d = f.dataset("/x").unwrap();
    // Copy every stored chunk into a dataset of the same pipeline, without the codec.
    let dst = tmp("raw-dst.h5");
    let i32t = <i32 as h5_types::H5Type>::h5_type();
    let mut w = FileWriter::create(&dst, FileFormat::Latest).unwrap();
    let root = w.root();
    let mut spec = DatasetSpec::new(i32t, Dataspace::simple(&[10, 6]).unwrap());
    spec.storage = StorageSpec::Chunked(vec![4, 3]);
    spec.filters = d.filters().to_vec();
    let id = w.create_dataset(root, "x", spec).unwrap();
    for a in 0..3 {
        for b in 0..2 {
            let (bytes, mask) = d.raw_chunk(&[a, b]).unwrap().expect("stored");
            w.write_raw_chunk(id, &[a, b], mask, &bytes).unwrap();
        }
    }
    let e = w.write_raw_chunk(id, &[3, 0], 0, &[1, 2, 3]).unwrap_err();
    assert!(e.to_string().contains("outside"), "{e}");
    w.close().unwrap();
    let g = File::open_with(&dst, OpenOptions::new().filters(registry())).unwrap();
    let e = g.dataset("/x").unwrap();
    assert_eq!(e.read_raw().unwrap().0, data);
    assert_eq!(e.raw_chunk(&[1, 1]).unwrap(), d.raw_chunk(&[1, 1]).unwrap());
}

#[test]
fn registries_are_values() {
    let mut r = FilterRegistry::builtin();
    assert!(r.contains(FilterId::DEFLATE));
    assert!(!r.contains(XOR_ID));
    r.register(Xor);
    assert!(r.contains(XOR_ID));
    assert!(
        !FilterRegistry::default().contains(XOR_ID),
        "no global state"
    );
    assert!(r.unregister(FilterId::DEFLATE).is_some());
    let e = r
        .decode_chunk(
            &[Filter::deflate(1)],
            0,
            vec![1, 2],
            &h5_io::filter::ChunkInfo::new(2),
        )
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unavailable);
    assert!(FilterRegistry::empty().ids().next().is_none());
}
