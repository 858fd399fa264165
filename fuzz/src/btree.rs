//! Target `btree`: version 1 B-tree nodes (group and chunk), version 2 B-tree headers,
//! leaf and internal nodes, and every record type.

use arbitrary::Unstructured;
use h5_format::btree::v1;
use h5_format::btree::v2::{Header, InternalNode, LeafNode, Record};
use h5_format::{Cursor, Writer};

/// Parse the input as the B-tree structure the configuration selects; round-trip it.
pub fn run(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let (cfg, data) = crate::split(u)?;
    let sizes = crate::sizes_of(cfg);
    let c = || Cursor::new(data, 0, sizes);
    match cfg >> 4 {
        // Version 1 nodes, group or chunk of rank 0..=4.
        0..=5 => {
            let rank = match cfg >> 4 {
                0 => None,
                r => Some(r as usize - 1),
            };
            if let Ok(n) = v1::Node::parse(&mut c(), rank) {
                let k = (n.children.len().div_ceil(2)).max(1) as u16;
                crate::roundtrip(
                    "v1 B-tree node",
                    &n,
                    sizes,
                    |n, w| n.encode(w, k),
                    |c| v1::Node::parse(c, rank),
                );
            }
        }
        // A version 2 header, then a node of that tree from the bytes after it.
        6..=11 => {
            let Ok(h) = Header::parse(&mut c()) else {
                return Ok(());
            };
            crate::roundtrip(
                "v2 B-tree header",
                &h,
                sizes,
                |h, w| h.encode(w),
                Header::parse,
            );
            let Ok(info) = h.node_info(sizes) else {
                return Ok(());
            };
            let rest = data.get(Header::encoded_size(sizes)..).unwrap_or(&[]);
            let n = h.root_records as u64;
            if h.depth == 0 {
                if let Ok(leaf) = LeafNode::parse(&mut Cursor::new(rest, 0, sizes), &h, &info, n) {
                    crate::roundtrip(
                        "v2 B-tree leaf",
                        &leaf,
                        sizes,
                        |l, w| l.encode(w, &h, &info),
                        |c| LeafNode::parse(c, &h, &info, n),
                    );
                }
            } else {
                let depth = h.depth as usize;
                let r = InternalNode::parse(&mut Cursor::new(rest, 0, sizes), &h, &info, depth, n);
                if let Ok(node) = r {
                    crate::roundtrip(
                        "v2 B-tree internal node",
                        &node,
                        sizes,
                        |x, w| x.encode(w, &h, &info, depth),
                        |c| InternalNode::parse(c, &h, &info, depth, n),
                    );
                }
            }
        }
        // One record of any type and size.
        _ => {
            let Some((&t, rest)) = data.split_first() else {
                return Ok(());
            };
            let Some((&size, rest)) = rest.split_first() else {
                return Ok(());
            };
            let size = size as usize;
            if let Ok(r) = Record::parse(&mut Cursor::new(rest, 0, sizes), t, size) {
                let mut w = Writer::new(sizes);
                r.encode(&mut w, size);
                assert_eq!(w.len(), size, "v2 B-tree record: encoded size");
                crate::roundtrip(
                    "v2 B-tree record",
                    &r,
                    sizes,
                    |r, w| r.encode(w, size),
                    |c| Record::parse(c, t, size),
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
            (0u8, &b"TREE"[..]),
            (0x20, b"TREE"),
            (0x30, b"TREE"),
            (0x60, b"BTHD"),
        ] {
            for mut s in crate::smoke::signature_seeds(&[sig], 4096) {
                s[0] = cfg;
                seeds.push(s);
            }
        }
        crate::smoke::run("btree", super::run, &seeds, 6000);
    }
}
