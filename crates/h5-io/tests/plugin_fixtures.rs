//! The plugin-filter fixtures (`tests/fixtures/plugins`, written by h5py with hdf5plugin's
//! reference encoders): every stored chunk decodes, and where the format fixes the bytes
//! (BZip2 at a given block size, Bitshuffle without compression, the LZ4 and Bitshuffle
//! framing around blocks stored raw) our encoder writes exactly the plugin's bytes.

use std::path::Path;

use h5_io::filter::{ChunkInfo, FilterId, FilterRegistry};
use h5_io::File;

fn fixtures() -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/plugins");
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "h5"));
    v.sort();
    v
}

#[test]
fn every_chunk_decodes_and_fixed_formats_encode_to_the_plugins_bytes() {
    let files = fixtures();
    assert!(files.len() >= 55, "{} fixtures", files.len());
    let registry = FilterRegistry::default();
    let (mut chunks, mut identical) = (0, 0);
    for p in &files {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let f = File::open(p).unwrap();
        for d in ["u1", "i4", "f8", "i2be"] {
            let ds = f.dataset(d).unwrap();
            let pipeline = ds.filters().to_vec();
            let chunk = ds.chunk_dims().unwrap();
            let shape = ds.shape();
            let bytes = chunk.iter().product::<u64>() as usize * ds.element_size();
            let grid: Vec<u64> = shape
                .iter()
                .zip(&chunk)
                .map(|(s, c)| s.div_ceil(*c))
                .collect();
            let total: u64 = grid.iter().product();
            // The dataset as the chunks decoded one by one put it together (C order).
            let esize = ds.element_size();
            let mut whole = vec![0u8; shape.iter().product::<u64>() as usize * esize];
            let fixed = matches!(pipeline[0].id, FilterId::BZIP2)
                || (pipeline[0].id == FilterId::BITSHUFFLE
                    && pipeline[0].client_data.get(4).copied().unwrap_or(0) == 0);
            for i in 0..total {
                let mut rem = i;
                let mut scaled = vec![0u64; grid.len()];
                for k in (0..grid.len()).rev() {
                    scaled[k] = rem % grid[k];
                    rem /= grid[k];
                }
                let (raw, mask) = ds.raw_chunk(&scaled).unwrap().expect("chunk stored");
                let plain = registry
                    .decode_chunk(&pipeline, mask, raw.clone(), &ChunkInfo::new(bytes))
                    .unwrap_or_else(|e| panic!("{name} {d} {scaled:?}: {e}"));
                chunks += 1;
                place(&plain, &scaled, &chunk, &shape, esize, &mut whole);
                if fixed && mask == 0 {
                    let (ours, m) = registry
                        .encode_chunk(&pipeline, 0, plain, &ChunkInfo::new(bytes))
                        .unwrap();
                    assert_eq!(m, 0);
                    assert_eq!(ours, raw, "{name} {d} {scaled:?}: not the plugin's bytes");
                    identical += 1;
                }
            }
            // A read of the whole dataset decodes chunks straight into its memory where
            // they lie there whole (the decoders' `decode_into`): the same bytes.
            let (read, _) = ds.read_raw().unwrap();
            assert!(read == whole, "{name} {d}: read differs from its chunks");
        }
    }
    eprintln!("{chunks} chunks decoded, {identical} re-encoded byte-identical");
    assert!(identical > 0);
}

/// Copy the decoded chunk at `scaled` (chunk coordinates) into `whole`, the dataset of
/// `shape` in C order, leaving out the chunk's part past the dataset's edge.
fn place(
    plain: &[u8],
    scaled: &[u64],
    chunk: &[u64],
    shape: &[u64],
    esize: usize,
    whole: &mut [u8],
) {
    let rank = chunk.len();
    for (e, bytes) in plain.chunks_exact(esize).enumerate() {
        let mut rem = e as u64;
        let mut at = 0u64;
        let mut stride = 1u64;
        let mut inside = true;
        for k in (0..rank).rev() {
            let g = scaled[k] * chunk[k] + rem % chunk[k];
            rem /= chunk[k];
            inside &= g < shape[k];
            at += g * stride;
            stride *= shape[k];
        }
        if inside {
            let at = at as usize * esize;
            whole[at..at + esize].copy_from_slice(bytes);
        }
    }
}
