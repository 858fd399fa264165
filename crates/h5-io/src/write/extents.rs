//! The extents of the structures a file modified in place holds on disk (symbol tables,
//! version 1 and 2 B-trees, fractal heaps, fixed and extensible arrays), read with
//! h5-format's parsers, so that the writer retires them when it rebuilds or frees what they
//! belong to (see [`FileWriter::open_rw`]).
//!
//! All or nothing: a structure that cannot be read whole, or that holds what is not listed
//! here (huge objects or filtered blocks of a fractal heap, a paged fixed array), gives an
//! error, and the caller keeps its space out of use rather than risk reusing space that is
//! still referenced.

use std::borrow::Cow;
use std::collections::HashSet;

use h5_format::btree::v1::{self as bt1, NodeType};
use h5_format::btree::v2 as bt2;
use h5_format::chunk_index::extensible_array::{ExtensibleArrayHeader, IndexBlock, SecondaryBlock};
use h5_format::chunk_index::fixed_array::FixedArrayHeader;
use h5_format::free_space::FreeSpaceHeader;
use h5_format::heap::fractal::{BlockVisitor, DirectRef, FractalHeapHeader, IndirectRef};
use h5_format::heap::local::LocalHeap;
use h5_format::storage::Fetch;
use h5_format::symbol_table::SymbolTableNode;
use h5_format::{Addr, Cursor, Sizes, Writer};

use super::file::{FileWriter, CHUNK_K, GROUP_INTERNAL_K, GROUP_LEAF_K};
use super::{bail, ensure, Result};

/// Blocks of file space: (address, length).
pub(crate) type Blocks = Vec<(u64, u64)>;

/// Most blocks listed for one structure.
const MAX_BLOCKS: usize = 1 << 20;

/// The blocks found so far, (address, length), and the addresses seen (loops).
#[derive(Default)]
pub(crate) struct Extents {
    pub(crate) blocks: Blocks,
    seen: HashSet<u64>,
}

impl Extents {
    /// Record a block; false when it was recorded before.
    fn add(&mut self, at: u64, len: u64) -> Result<bool> {
        ensure!(
            self.blocks.len() < MAX_BLOCKS,
            LimitExceeded,
            "more than {MAX_BLOCKS} blocks in one structure"
        );
        if !self.seen.insert(at) {
            return Ok(false);
        }
        self.blocks.push((at, len));
        Ok(true)
    }
}

/// The navigators of h5-format ([`bt2::Tree`], [`FractalHeapHeader::visit_blocks`]) read
/// the file being modified through this.
impl Fetch for FileWriter {
    type Error = super::Error;

    fn sizes(&self) -> Sizes {
        self.sizes
    }

    fn fetch(&self, _structure: &'static str, addr: Addr, len: u64) -> Result<Cow<'_, [u8]>> {
        Ok(Cow::Owned(self.get(addr.0, len)?))
    }

    fn fetch_up_to(&self, _structure: &'static str, addr: Addr, max: u64) -> Result<Cow<'_, [u8]>> {
        Ok(Cow::Owned(self.bytes_upto(addr.0, max)?))
    }
}

impl FileWriter {
    /// At most `len` bytes at `at` (fewer at the end of the allocated space).
    fn bytes_upto(&self, at: u64, len: u64) -> Result<Vec<u8>> {
        let n = len.min(self.eoa_now().saturating_sub(at));
        self.get(at, n)
    }

    /// A symbol table: the local heap (header and data segment), the B-tree nodes and the
    /// symbol table nodes.
    pub(crate) fn symbol_table_extents(
        &self,
        btree: u64,
        heap: u64,
        out: &mut Extents,
    ) -> Result<()> {
        let sizes = self.sizes;
        let len = LocalHeap::encoded_size(sizes) as u64;
        let bytes = self.get(heap, len)?;
        let h = LocalHeap::parse(&mut Cursor::new(&bytes, heap, sizes))?;
        out.add(heap, len)?;
        out.add(h.data_segment.0, h.data_segment_size)?;
        let snod = SymbolTableNode::encoded_size(sizes, GROUP_LEAF_K) as u64;
        self.v1_btree_extents(btree, NodeType::Group, 0, Some(snod), out)
    }

    /// A version 1 B-tree's nodes (group trees: with the symbol table nodes of `leaf`
    /// bytes their leaves point to; chunk trees: the chunks are not listed).
    pub(crate) fn v1_btree_extents(
        &self,
        root: u64,
        node_type: NodeType,
        rank: usize,
        leaf: Option<u64>,
        out: &mut Extents,
    ) -> Result<()> {
        let sizes = self.sizes;
        let k = match node_type {
            NodeType::Group => GROUP_INTERNAL_K,
            NodeType::Chunk => CHUNK_K,
        };
        let size = bt1::node_size(sizes, node_type, rank, k) as u64;
        let mut stack = vec![root];
        while let Some(a) = stack.pop() {
            let bytes = self.get(a, size)?;
            let node = bt1::Node::parse(&mut Cursor::new(&bytes, a, sizes), Some(rank))?;
            if !out.add(a, size)? {
                continue;
            }
            if node.level > 0 {
                stack.extend(node.children.iter().map(|c| c.0));
            } else if let Some(snod) = leaf {
                for c in &node.children {
                    out.add(c.0, snod)?;
                }
            }
        }
        Ok(())
    }

    /// A fractal heap: its header, direct and indirect blocks.
    pub(crate) fn fractal_heap_extents(&self, addr: u64, out: &mut Extents) -> Result<()> {
        let sizes = self.sizes;
        let (h, len) = FractalHeapHeader::read(self, Addr(addr))?;
        ensure!(
            h.filters.is_none() && h.huge_objects == 0,
            Unsupported,
            "a fractal heap with filters or huge objects"
        );
        out.add(addr, len)?;
        if !h.free_space_manager.is_undef() {
            // The free-space manager of its managed blocks: header and section list.
            let at = h.free_space_manager.0;
            let len = FreeSpaceHeader::encoded_size(sizes) as u64;
            let bytes = self.get(at, len)?;
            let fs = FreeSpaceHeader::parse(&mut Cursor::new(&bytes, at, sizes))?;
            out.add(at, len)?;
            if !fs.section_list.is_undef() && fs.section_list_allocated > 0 {
                out.add(fs.section_list.0, fs.section_list_allocated)?;
            }
        }
        /// Each block of the heap, with its size.
        struct Blocks<'o>(&'o mut Extents);
        impl BlockVisitor<super::Error> for Blocks<'_> {
            fn enter(&mut self, b: &IndirectRef, size: u64) -> Result<bool> {
                self.0.add(b.address.0, size)
            }
            fn direct(&mut self, d: &DirectRef) -> Result<()> {
                self.0.add(d.address.0, d.size).map(|_| ())
            }
        }
        h.visit_blocks(self, &mut Blocks(out))
    }

    /// A version 2 B-tree: its header and nodes.
    pub(crate) fn btree2_extents(&self, addr: u64, out: &mut Extents) -> Result<()> {
        let tree = bt2::Tree::open(self, Addr(addr))?;
        out.add(addr, bt2::Header::encoded_size(self.sizes) as u64)?;
        tree.each_node(self, |n, size| out.add(n.address.0, size))
    }

    /// A fixed array chunk index: its header and (unpaged) data block.
    pub(crate) fn fixed_array_extents(&self, addr: u64, out: &mut Extents) -> Result<()> {
        let sizes = self.sizes;
        let len = FixedArrayHeader::encoded_size(sizes) as u64;
        let bytes = self.get(addr, len)?;
        let h = FixedArrayHeader::parse(&mut Cursor::new(&bytes, addr, sizes))?;
        ensure!(h.npages() == 0, Unsupported, "a paged fixed array");
        out.add(addr, len)?;
        if !h.data_block.is_undef() {
            out.add(h.data_block.0, h.data_block_prefix_size(sizes) as u64)?;
        }
        Ok(())
    }

    /// An extensible array chunk index: its header, index block, secondary blocks and data
    /// blocks (their sizes checked against the totals the header keeps).
    pub(crate) fn extensible_array_extents(&self, addr: u64, out: &mut Extents) -> Result<()> {
        let sizes = self.sizes;
        let len = ExtensibleArrayHeader::encoded_size(sizes) as u64;
        let bytes = self.get(addr, len)?;
        let h = ExtensibleArrayHeader::parse(&mut Cursor::new(&bytes, addr, sizes))?;
        out.add(addr, len)?;
        if h.index_block.is_undef() {
            return Ok(());
        }
        let g = h.geometry()?;
        let esize = u64::from(h.element_size);
        // A data block of super block `s`: its prefix (with the elements when not paged,
        // and the checksum), then its pages, each with a checksum.
        let data_block = |s: usize| -> Option<u64> {
            let sb = g.super_blocks.get(s)?;
            let prefix = 6 + u64::from(sizes.offset) + g.offset_size as u64 + 4;
            let pages = g.pages_per_data_block(s);
            Some(if pages > 0 {
                prefix + pages * (g.page_elements * esize + 4)
            } else {
                prefix + sb.data_block_elements * esize
            })
        };
        let at = h.index_block.0;
        let bytes = self.bytes_upto(at, 1 << 16)?;
        let ib = IndexBlock::parse(&mut Cursor::new(&bytes, at, sizes), &h)?;
        let mut w = Writer::new(sizes);
        ib.encode(&mut w, &h);
        out.add(at, w.len() as u64)?;
        let (mut data_total, mut secondary_total) = (0u64, 0u64);
        for (i, d) in ib.data_blocks.iter().enumerate() {
            if d.is_undef() {
                continue;
            }
            let s = g
                .super_blocks
                .iter()
                .position(|sb| {
                    (i as u64) >= sb.start_data_block
                        && (i as u64) < sb.start_data_block + sb.data_blocks
                })
                .and_then(data_block);
            let Some(len) = s else {
                bail!(Format, "extensible array data block {i} of no super block");
            };
            out.add(d.0, len)?;
            data_total += len;
        }
        for (j, sec) in ib.secondary_blocks.iter().enumerate() {
            if sec.is_undef() {
                continue;
            }
            let s = g.index_block_super_blocks + j;
            let bytes = self.bytes_upto(sec.0, 1 << 16)?;
            let sb = SecondaryBlock::parse(&mut Cursor::new(&bytes, sec.0, sizes), &h, s)?;
            let mut w = Writer::new(sizes);
            sb.encode(&mut w, &h);
            out.add(sec.0, w.len() as u64)?;
            secondary_total += w.len() as u64;
            let Some(len) = data_block(s) else {
                bail!(Format, "extensible array super block {s}");
            };
            for d in sb.data_blocks.iter().filter(|d| !d.is_undef()) {
                out.add(d.0, len)?;
                data_total += len;
            }
        }
        ensure!(
            data_total == h.data_blocks_size && secondary_total == h.secondary_blocks_size,
            Format,
            "extensible array blocks of {data_total} and {secondary_total} bytes where the \
             header counts {} and {}",
            h.data_blocks_size,
            h.secondary_blocks_size
        );
        Ok(())
    }
}
