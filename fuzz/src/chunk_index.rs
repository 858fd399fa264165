//! Target `chunk_index`: the chunk indexes of the version 4 layout: fixed array (header and
//! data block with its pages), extensible array (header, index, secondary and data blocks),
//! chunk elements, single chunk and implicit index arithmetic, version 2 B-tree chunk records.

use arbitrary::Unstructured;
use h5_format::btree::v2::Record;
use h5_format::chunk_index::btree_v2::{self, ChunkRecord};
use h5_format::chunk_index::extensible_array::{
    DataBlock, ExtensibleArrayHeader, IndexBlock, SecondaryBlock,
};
use h5_format::chunk_index::fixed_array::{FixedArrayDataBlock, FixedArrayHeader};
use h5_format::chunk_index::implicit::ImplicitIndex;
use h5_format::chunk_index::single::SingleChunkIndex;
use h5_format::chunk_index::{ChunkElement, CLIENT_CHUNK, CLIENT_FILTERED_CHUNK};
use h5_format::{Addr, Cursor};

/// Parse the input as the chunk index structure the configuration selects; round-trip it.
pub fn run(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let (cfg, data) = crate::split(u)?;
    let sizes = crate::sizes_of(cfg);
    let c = || Cursor::new(data, 0, sizes);
    match (cfg >> 4) % 5 {
        0 => {
            let Ok(h) = FixedArrayHeader::parse(&mut c()) else {
                return Ok(());
            };
            crate::roundtrip(
                "fixed array header",
                &h,
                sizes,
                |h, w| h.encode(w),
                FixedArrayHeader::parse,
            );
            let rest = data
                .get(FixedArrayHeader::encoded_size(sizes)..)
                .unwrap_or(&[]);
            if let Ok(b) = FixedArrayDataBlock::parse(&mut Cursor::new(rest, 0, sizes), &h) {
                crate::roundtrip(
                    "fixed array data block",
                    &b,
                    sizes,
                    |b, w| b.encode(w, &h),
                    |c| FixedArrayDataBlock::parse(c, &h),
                );
                for i in 0..h.nelements.min(64) {
                    let _ = b.element(&h, i);
                }
            }
        }
        1 => {
            let Ok(h) = ExtensibleArrayHeader::parse(&mut c()) else {
                return Ok(());
            };
            crate::roundtrip(
                "extensible array header",
                &h,
                sizes,
                |h, w| h.encode(w),
                ExtensibleArrayHeader::parse,
            );
            let Ok(g) = h.geometry() else {
                return Ok(());
            };
            for i in [0, 1, 2, 7, 100, 1 << 20, u64::MAX] {
                let _ = g.locate(&h, i);
            }
            let rest = data
                .get(ExtensibleArrayHeader::encoded_size(sizes)..)
                .unwrap_or(&[]);
            let rc = || Cursor::new(rest, 0, sizes);
            if let Ok(b) = IndexBlock::parse(&mut rc(), &h) {
                crate::roundtrip(
                    "extensible array index block",
                    &b,
                    sizes,
                    |b, w| b.encode(w, &h),
                    |c| IndexBlock::parse(c, &h),
                );
            }
            let s = g.index_block_super_blocks;
            if let Ok(b) = SecondaryBlock::parse(&mut rc(), &h, s) {
                crate::roundtrip(
                    "extensible array secondary block",
                    &b,
                    sizes,
                    |b, w| b.encode(w, &h),
                    |c| SecondaryBlock::parse(c, &h, s),
                );
            }
            if let Some(n) = g.super_blocks.get(s).map(|i| i.data_block_elements) {
                if let Ok(b) = DataBlock::parse(&mut rc(), &h, n, &|_| true) {
                    crate::roundtrip(
                        "extensible array data block",
                        &b,
                        sizes,
                        |b, w| b.encode(w, &h),
                        |c| DataBlock::parse(c, &h, n, &|_| true),
                    );
                }
            }
        }
        2 => {
            let client = if cfg & 0x80 != 0 {
                CLIENT_FILTERED_CHUNK
            } else {
                CLIENT_CHUNK
            };
            let Some((&es, rest)) = data.split_first() else {
                return Ok(());
            };
            if let Ok(e) = ChunkElement::parse(&mut Cursor::new(rest, 0, sizes), client, es) {
                crate::roundtrip(
                    "chunk element",
                    &e,
                    sizes,
                    |e, w| e.encode(w, es),
                    |c| ChunkElement::parse(c, client, es),
                );
            }
            let filtered = cfg & 0x80 != 0;
            if let Ok(s) = SingleChunkIndex::parse(&mut c(), filtered) {
                crate::roundtrip(
                    "single chunk index",
                    &s,
                    sizes,
                    |s, w| s.encode(w),
                    |c| SingleChunkIndex::parse(c, filtered),
                );
                let _ = s.chunk(Addr(0x800));
            }
        }
        3 => {
            // Implicit index arithmetic over dimensions read from the input.
            let mut cur = c();
            let rank = cur.read_u8().unwrap_or(0) as usize % 5;
            let mut dims = Vec::new();
            let mut chunk_dims = Vec::new();
            for _ in 0..rank {
                dims.push(cur.read_u32().map(u64::from).unwrap_or(1));
                chunk_dims.push(cur.read_u16().map(u64::from).unwrap_or(1));
            }
            let idx = ImplicitIndex {
                base: Addr(cur.read_u32().map(u64::from).unwrap_or(0)),
                chunk_bytes: cur.read_u32().map(u64::from).unwrap_or(1),
                dims: dims.clone(),
                chunk_dims,
            };
            let _ = idx.nchunks();
            let _ = idx.chunk_index(&dims);
            let _ = idx.chunk_address(&vec![0; rank]);
            if let Some(last) = dims
                .iter()
                .map(|d| d.saturating_sub(1))
                .collect::<Vec<_>>()
                .into()
            {
                let _ = idx.chunk_address(&last);
            }
        }
        _ => {
            // Version 2 B-tree chunk records of a dataset of rank 1..=4.
            let rank = 1 + (cfg as usize >> 6);
            let filtered = cfg & 0x20 != 0;
            let chunk_bytes = 1u64 << (cfg & 0x1f);
            let size = btree_v2::record_size(sizes, rank, filtered, chunk_bytes);
            let t = if filtered {
                btree_v2::RECORD_FILTERED_CHUNK
            } else {
                btree_v2::RECORD_CHUNK
            };
            if let Ok(r) = Record::parse(&mut c(), t, size) {
                if let Ok(cr) = ChunkRecord::from_record(&r) {
                    let back = cr.to_record(chunk_bytes);
                    assert_eq!(
                        ChunkRecord::from_record(&back).ok().as_ref(),
                        Some(&cr),
                        "chunk record: to_record then from_record changed it"
                    );
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn smoke() {
        let mut seeds = Vec::new();
        for (cfg, sig) in [(0x00u8, &b"FAHD"[..]), (0x10, b"EAHD")] {
            for mut s in crate::smoke::signature_seeds(&[sig], 8192) {
                s[0] = cfg;
                seeds.push(s);
            }
        }
        crate::smoke::run("chunk_index", super::run, &seeds, 6000);
    }
}
