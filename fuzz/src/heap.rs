//! Target `heap`: local heaps (header, free list, names), global heap collections and heap
//! IDs, fractal heaps (header, direct and indirect blocks, heap IDs), symbol table nodes
//! and free-space managers (header and section lists).

use arbitrary::Unstructured;
use h5_format::free_space::{FreeSpaceHeader, SectionClasses, SectionList};
use h5_format::heap::fractal::{
    DirectBlock, FractalHeapHeader, HeapId, HeapIdLayout, IndirectBlock,
};
use h5_format::heap::global::{GlobalHeapCollection, GlobalHeapId};
use h5_format::heap::local::{self, LocalHeap};
use h5_format::symbol_table::SymbolTableNode;
use h5_format::Cursor;

/// Parse the input as the heap structure the configuration selects; round-trip it.
pub fn run(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let (cfg, data) = crate::split(u)?;
    let sizes = crate::sizes_of(cfg);
    let c = || Cursor::new(data, 0, sizes);
    match (cfg >> 4) % 6 {
        0 => {
            if let Ok(h) = LocalHeap::parse(&mut c()) {
                crate::roundtrip(
                    "local heap",
                    &h,
                    sizes,
                    |h, w| h.encode(w),
                    LocalHeap::parse,
                );
                // The rest of the input as the data segment.
                let seg = data.get(LocalHeap::encoded_size(sizes)..).unwrap_or(&[]);
                let seg = Cursor::new(seg, 0, sizes);
                let _ = h.free_list(&seg);
                let _ = local::string_at(&seg, h.data_segment_size % 64);
            }
        }
        1 => {
            if let Ok(g) = GlobalHeapCollection::parse(&mut c()) {
                crate::roundtrip(
                    "global heap collection",
                    &g,
                    sizes,
                    |g, w| g.encode(w),
                    GlobalHeapCollection::parse,
                );
                let _ = g.free_space(sizes);
            }
            if let Ok(id) = GlobalHeapId::parse(&mut c()) {
                crate::roundtrip(
                    "global heap ID",
                    &id,
                    sizes,
                    |i, w| i.encode(w),
                    GlobalHeapId::parse,
                );
            }
        }
        2 => {
            let Ok(h) = FractalHeapHeader::parse(&mut c()) else {
                return Ok(());
            };
            crate::roundtrip(
                "fractal heap header",
                &h,
                sizes,
                |h, w| h.encode(w),
                FractalHeapHeader::parse,
            );
            let Ok(dt) = h.doubling_table() else {
                return Ok(());
            };
            // The bytes after the header: an indirect block of the root's rows, a direct
            // block of the starting size, and heap IDs.
            let mut at = Cursor::new(data, 0, sizes);
            let _ = FractalHeapHeader::parse(&mut at);
            let rest = at.rest();
            let rows = u32::from(h.current_root_rows).max(1);
            if let Ok(ib) = IndirectBlock::parse(&mut Cursor::new(rest, 0, sizes), &h, rows) {
                crate::roundtrip(
                    "fractal heap indirect block",
                    &ib,
                    sizes,
                    |b, w| b.encode(w, &h),
                    |c| IndirectBlock::parse(c, &h, rows),
                );
            }
            let size = dt.start_block_size;
            if let Ok(db) = DirectBlock::parse(&mut Cursor::new(rest, 0, sizes), &h, size) {
                crate::roundtrip(
                    "fractal heap direct block",
                    &db,
                    sizes,
                    |b, w| b.encode(w, &h),
                    |c| DirectBlock::parse(c, &h, size),
                );
            }
            if let Ok(layout) = HeapIdLayout::new(&h, sizes) {
                if let Ok(id) = HeapId::parse(&mut Cursor::new(rest, 0, sizes), &layout) {
                    crate::roundtrip(
                        "fractal heap ID",
                        &id,
                        sizes,
                        |i, w| i.encode(w, &layout),
                        |c| HeapId::parse(c, &layout),
                    );
                    if let HeapId::Managed { offset, length } = id {
                        let _ = h.locate_managed(offset, length, |_, n| {
                            IndirectBlock::parse(&mut Cursor::new(rest, 0, sizes), &h, n)
                        });
                    }
                }
            }
        }
        3 => {
            if let Ok(n) = SymbolTableNode::parse(&mut c()) {
                let k = n.entries.len().div_ceil(2).max(1) as u16;
                crate::roundtrip(
                    "symbol table node",
                    &n,
                    sizes,
                    |n, w| n.encode(w, k),
                    SymbolTableNode::parse,
                );
            }
        }
        _ => {
            let Ok(h) = FreeSpaceHeader::parse(&mut c()) else {
                return Ok(());
            };
            crate::roundtrip(
                "free-space header",
                &h,
                sizes,
                |h, w| h.encode(w),
                FreeSpaceHeader::parse,
            );
            let rest = data
                .get(FreeSpaceHeader::encoded_size(sizes)..)
                .unwrap_or(&[]);
            let classes = if cfg & 0x10 != 0 {
                SectionClasses::File
            } else {
                SectionClasses::FractalHeap {
                    heap_offset_size: 1 + (cfg as usize >> 5) % 8,
                }
            };
            if let Ok(l) = SectionList::parse(&mut Cursor::new(rest, 0, sizes), &h, classes) {
                crate::roundtrip(
                    "free-space section list",
                    &l,
                    sizes,
                    |l, w| l.encode(w, &h, classes),
                    |c| SectionList::parse(c, &h, classes),
                );
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
        for (cfg, sig) in [
            (0x00u8, &b"HEAP"[..]),
            (0x10, b"GCOL"),
            (0x20, b"FRHP"),
            (0x30, b"SNOD"),
            (0x40, b"FSHD"),
        ] {
            for mut s in crate::smoke::signature_seeds(&[sig], 4096) {
                s[0] = cfg;
                seeds.push(s);
            }
        }
        crate::smoke::run("heap", super::run, &seeds, 6000);
    }
}
