//! The extensible array chunk index (one unlimited dimension), built whole from the chunk
//! map at each flush: header, index block, secondary blocks and data blocks (paged when
//! large), with the reference library's default parameters.

use std::collections::BTreeMap;

use h5_format::chunk_index::extensible_array::{
    DataBlock, ExtensibleArrayHeader, IndexBlock, SecondaryBlock,
};
use h5_format::chunk_index::{BlockElements, ChunkElement};
use h5_format::{Addr, Writer};

use super::file::FileWriter;
use super::{bail, Result};

/// "Max Nelmts Bits".
pub(crate) const EA_MAX_BITS: u8 = 32;
/// "Index Block Elements".
pub(crate) const EA_INDEX_ELEMENTS: u8 = 4;
/// "Secondary Block Min Data Ptrs".
pub(crate) const EA_MIN_POINTERS: u8 = 4;
/// "Data Block Min Elements".
pub(crate) const EA_MIN_ELEMENTS: u8 = 16;
/// "Max Dblk Page Nelmts Bits".
pub(crate) const EA_PAGE_BITS: u8 = 10;

/// The array index of a chunk (`H5D__earray` with swizzled coordinates): the unlimited
/// dimension moves first, then row-major over the chunk counts of the maximum dimensions.
pub(crate) fn ea_index(scaled: &[u64], max_chunks: &[u64], unlim: usize) -> u64 {
    let mut s = scaled.to_vec();
    let mut m = max_chunks.to_vec();
    if unlim < s.len() {
        let v = s.remove(unlim);
        s.insert(0, v);
        let v = m.remove(unlim);
        m.insert(0, v);
    }
    let mut idx = 0u64;
    let mut down = 1u64;
    for k in (0..s.len()).rev() {
        idx += s[k] * down;
        down = down.saturating_mul(m[k].max(1));
    }
    idx
}

impl FileWriter {
    /// Write an extensible array over `elements` (array index → element) and return the
    /// header's address.
    pub(crate) fn write_extensible_array(
        &mut self,
        client: u8,
        element_size: u8,
        elements: &BTreeMap<u64, ChunkElement>,
        undefined: ChunkElement,
    ) -> Result<u64> {
        let mut h = ExtensibleArrayHeader {
            client,
            element_size,
            max_nelmts_bits: EA_MAX_BITS,
            index_block_elements: EA_INDEX_ELEMENTS,
            data_block_min_elements: EA_MIN_ELEMENTS,
            secondary_block_min_data_pointers: EA_MIN_POINTERS,
            max_data_block_page_bits: EA_PAGE_BITS,
            secondary_blocks: 0,
            secondary_blocks_size: 0,
            data_blocks: 0,
            data_blocks_size: 0,
            max_index_set: elements.keys().next_back().map_or(0, |&i| i + 1),
            elements_realized: u64::from(EA_INDEX_ELEMENTS),
            index_block: Addr::UNDEF,
        };
        let g = h.geometry()?;
        let sizes = self.sizes;
        let hsize = ExtensibleArrayHeader::encoded_size(sizes) as u64;
        let haddr = self.alloc(hsize);
        let get = |i: u64| elements.get(&i).copied().unwrap_or(undefined);
        let ib = u64::from(EA_INDEX_ELEMENTS);
        let mut iblock = IndexBlock {
            header: Addr(haddr),
            elements: (0..ib).map(get).collect(),
            data_blocks: vec![Addr::UNDEF; g.index_block_data_blocks],
            secondary_blocks: vec![Addr::UNDEF; g.index_block_secondary_blocks],
        };
        let top = h.max_index_set;
        // Data blocks (and secondary blocks) holding any element below `top`.
        for (s, sb) in g.super_blocks.iter().enumerate() {
            let first = ib + sb.start_index;
            if first >= top {
                break;
            }
            let pages = g.pages_per_data_block(s);
            let mut sblock = (s >= g.index_block_super_blocks).then(|| SecondaryBlock {
                header: Addr(haddr),
                block_offset: sb.start_index,
                page_bitmap: if pages > 0 {
                    vec![0u8; (sb.data_blocks * pages.div_ceil(8)) as usize]
                } else {
                    Vec::new()
                },
                data_blocks: vec![Addr::UNDEF; sb.data_blocks as usize],
            });
            for d in 0..sb.data_blocks {
                let off = sb.start_index + d * sb.data_block_elements;
                if ib + off >= top {
                    break;
                }
                let elems: Vec<ChunkElement> = (0..sb.data_block_elements)
                    .map(|k| get(ib + off + k))
                    .collect();
                let blk_elements = if pages > 0 {
                    BlockElements::Paged(
                        elems
                            .chunks(g.page_elements as usize)
                            .map(|p| Some(p.to_vec()))
                            .collect(),
                    )
                } else {
                    BlockElements::Inline(elems)
                };
                let block = DataBlock {
                    header: Addr(haddr),
                    block_offset: off,
                    elements: blk_elements,
                };
                let mut w = Writer::new(sizes);
                block.encode(&mut w, &h);
                let at = self.alloc(w.len() as u64);
                self.put(at, w.as_slice())?;
                h.data_blocks += 1;
                h.data_blocks_size += w.len() as u64;
                h.elements_realized += sb.data_block_elements;
                match &mut sblock {
                    None => {
                        let i = (sb.start_data_block + d) as usize;
                        match iblock.data_blocks.get_mut(i) {
                            Some(slot) => *slot = Addr(at),
                            None => bail!(Format, "extensible array data block {i}"),
                        }
                    }
                    Some(sec) => {
                        sec.data_blocks[d as usize] = Addr(at);
                        let bits = pages.div_ceil(8) * 8;
                        for p in 0..pages {
                            let bit = (d * bits + p) as usize;
                            sec.page_bitmap[bit / 8] |= 0x80u8 >> (bit % 8);
                        }
                    }
                }
            }
            if let Some(sec) = sblock {
                let mut w = Writer::new(sizes);
                sec.encode(&mut w, &h);
                let at = self.alloc(w.len() as u64);
                self.put(at, w.as_slice())?;
                h.secondary_blocks += 1;
                h.secondary_blocks_size += w.len() as u64;
                let i = s - g.index_block_super_blocks;
                match iblock.secondary_blocks.get_mut(i) {
                    Some(slot) => *slot = Addr(at),
                    None => bail!(Format, "extensible array secondary block {i}"),
                }
            }
        }
        let mut w = Writer::new(sizes);
        iblock.encode(&mut w, &h);
        let at = self.alloc(w.len() as u64);
        self.put(at, w.as_slice())?;
        h.index_block = Addr(at);
        let mut w = Writer::new(sizes);
        h.encode(&mut w);
        self.put(haddr, w.as_slice())?;
        Ok(haddr)
    }
}
