//! Version 2 B-trees built from sorted records: chunk indexes (record types 10 and 11),
//! dense link names (5) and dense attribute names (8).

use h5_format::btree::v2::{ChildPointer, Header, InternalNode, LeafNode, NodeInfo, Record};
use h5_format::{Addr, Writer};

use super::file::FileWriter;
use super::{bail, Result};

/// The shape of a tree to build.
pub(crate) struct Btree2Params {
    pub(crate) record_type: u8,
    pub(crate) node_size: u32,
    pub(crate) record_size: u16,
    pub(crate) split_percent: u8,
    pub(crate) merge_percent: u8,
}

impl FileWriter {
    /// Write a version 2 B-tree holding `records` (already in the tree's key order) and return
    /// its header's address.
    pub(crate) fn write_btree2(&mut self, p: &Btree2Params, records: &[Record]) -> Result<u64> {
        let mut h = Header {
            record_type: p.record_type,
            node_size: p.node_size,
            record_size: p.record_size,
            depth: 0,
            split_percent: p.split_percent,
            merge_percent: p.merge_percent,
            root: Addr::UNDEF,
            root_records: 0,
            total_records: records.len() as u64,
        };
        // The smallest depth whose root can hold every record.
        let info = loop {
            let info = NodeInfo::new(&h, self.sizes)?;
            let cap = info.levels.last().map_or(0, |l| l.cumulative_max_records);
            if cap >= records.len() as u64 {
                break info;
            }
            if h.depth >= 8 {
                bail!(
                    LimitExceeded,
                    "{} records need a v2 B-tree too deep",
                    records.len()
                );
            }
            h.depth += 1;
        };
        if !records.is_empty() {
            let root = self.btree2_node(&h, &info, records, h.depth as usize)?;
            h.root = root.address;
            h.root_records = root.records as u16;
        }
        let mut w = Writer::new(self.sizes);
        h.encode(&mut w);
        let at = self.alloc(w.len() as u64);
        self.put(at, w.as_slice())?;
        Ok(at)
    }

    fn btree2_node(
        &mut self,
        h: &Header,
        info: &NodeInfo,
        records: &[Record],
        depth: usize,
    ) -> Result<ChildPointer> {
        let mut w = Writer::new(self.sizes);
        if depth == 0 {
            LeafNode {
                records: records.to_vec(),
            }
            .encode(&mut w, h, info);
            let at = self.alloc(info.node_size);
            self.put(at, w.as_slice())?;
            return Ok(ChildPointer {
                address: Addr(at),
                records: records.len() as u64,
                total_records: None,
            });
        }
        let below = info.levels[depth - 1].cumulative_max_records;
        let n = records.len() as u64;
        // Children k: (k - 1) separators and k subtrees of at most `below` records each.
        let k = (n + 1).div_ceil(below + 1).max(1);
        if k - 1 > info.levels[depth].max_records {
            bail!(Format, "v2 B-tree node overflow");
        }
        let in_children = n - (k - 1);
        let base = in_children / k;
        let extra = in_children % k;
        let mut children = Vec::with_capacity(k as usize);
        let mut seps = Vec::with_capacity(k as usize - 1);
        let mut at = 0usize;
        for i in 0..k {
            let len = (base + u64::from(i < extra)) as usize;
            let sub = &records[at..at + len];
            let mut child = self.btree2_node(h, info, sub, depth - 1)?;
            if depth - 1 > 0 {
                child.total_records = Some(subtree_total(sub.len()));
            }
            children.push(child);
            at += len;
            if i + 1 < k {
                seps.push(records[at].clone());
                at += 1;
            }
        }
        InternalNode {
            records: seps.clone(),
            children,
        }
        .encode(&mut w, h, info, depth);
        let addr = self.alloc(info.node_size);
        self.put(addr, w.as_slice())?;
        Ok(ChildPointer {
            address: Addr(addr),
            records: seps.len() as u64,
            total_records: Some(n),
        })
    }
}

fn subtree_total(n: usize) -> u64 {
    n as u64
}
