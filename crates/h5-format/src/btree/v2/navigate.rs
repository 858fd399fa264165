//! Navigating a version 2 B-tree through a [`Fetch`]: every record in key order
//! ([`Tree::records`]), a lookup by key that reads one node per level ([`Tree::find`]), and a
//! depth-first visit of every node ([`Tree::visit`], [`Tree::each_node`]) with each node's
//! address and size. The reader, the writer (the extents of a tree it retires), the space
//! accounting of `h5 stat` and the validation walk all go through it.
//!
//! Bounds: the header's depth is at most [`limits::MAX_BTREE_DEPTH`] (the recursion follows
//! it), a node reached twice is a loop (an error, not followed), and at most
//! [`limits::MAX_WALK_STRUCTURES`] nodes are visited.

use std::collections::HashSet;

use super::{Header, InternalNode, LeafNode, NodeInfo, Record};
use crate::storage::Fetch;
use crate::{limits, Addr, Cursor, Error, ErrorKind, Result, Sizes};

const HEADER: &str = "v2 B-tree header";
const NODE: &str = "v2 B-tree node";

/// An open version 2 B-tree: its header and the per-depth arithmetic its nodes need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tree {
    /// The header's address.
    pub address: Addr,
    /// The header.
    pub header: Header,
    /// Node sizes and pointer widths per depth ([`Header::node_info`]).
    pub info: NodeInfo,
}

/// A node as its parent (or the header) points to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeRef {
    /// The node's address.
    pub address: Addr,
    /// Its depth: 0 for a leaf, the header's depth for the root.
    pub depth: usize,
    /// "Number of Records" in the node.
    pub records: u64,
    /// "Total Number of Records" in the node and below, as the parent counts them (children
    /// that are internal nodes only).
    pub total_records: Option<u64>,
    /// The parent's address and this node's index among its children (`None` for the root).
    pub parent: Option<(Addr, usize)>,
}

/// A node read whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// A leaf node.
    Leaf(LeafNode),
    /// An internal node.
    Internal(InternalNode),
}

/// What a depth-first visit ([`Tree::visit`]) tells its caller, and what the caller decides.
/// Every method has a default: read everything, fail on the first error.
pub trait Visitor<E> {
    /// Before node `node` (of `size` bytes) is read: `Ok(false)` skips it and its subtree.
    fn enter(&mut self, node: &NodeRef, size: u64) -> std::result::Result<bool, E> {
        let _ = (node, size);
        Ok(true)
    }

    /// Whether leaves are read (their records wanted); when not, a leaf is entered only.
    fn reads_leaves(&self) -> bool {
        true
    }

    /// The next record in key order.
    fn record(&mut self, record: Record) -> std::result::Result<(), E> {
        let _ = record;
        Ok(())
    }

    /// Node `node` could not be read or parsed, or it was reached a second time (a loop):
    /// `Err` ends the visit (the default), `Ok` skips the node and goes on.
    fn failed(&mut self, node: &NodeRef, error: E) -> std::result::Result<(), E> {
        let _ = node;
        Err(error)
    }

    /// The subtree of `node` was visited whole and holds `records` records.
    fn subtree(&mut self, node: &NodeRef, records: u64) -> std::result::Result<(), E> {
        let _ = (node, records);
        Ok(())
    }
}

/// What [`Tree::find`]'s probe says of one record, compared with the key sought.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Probe<T> {
    /// The record sorts before the key.
    Less,
    /// The record sorts after the key.
    Greater,
    /// The record is the one sought; `T` is what the probe made of it.
    Found(T),
}

impl Tree {
    /// The header at `addr`.
    pub fn read_header<F: Fetch + ?Sized>(
        src: &F,
        addr: Addr,
    ) -> std::result::Result<Header, F::Error> {
        let sizes = src.sizes();
        let b = src.fetch(HEADER, addr, Header::encoded_size(sizes) as u64)?;
        Ok(Header::parse(&mut Cursor::new(&b, addr.0, sizes))?)
    }

    /// The tree of header `header` (at `address`): checks its depth and computes its node
    /// arithmetic.
    pub fn new(address: Addr, header: Header, sizes: Sizes) -> Result<Tree> {
        if usize::from(header.depth) > limits::MAX_BTREE_DEPTH {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                HEADER,
                address.0,
                format!(
                    "depth {} is more than {}",
                    header.depth,
                    limits::MAX_BTREE_DEPTH
                ),
            ));
        }
        let info = header.node_info(sizes)?;
        Ok(Tree {
            address,
            header,
            info,
        })
    }

    /// Read the header at `addr` and open the tree.
    pub fn open<F: Fetch + ?Sized>(src: &F, addr: Addr) -> std::result::Result<Tree, F::Error> {
        let header = Self::read_header(src, addr)?;
        Ok(Tree::new(addr, header, src.sizes())?)
    }

    /// The root as the header points to it; `None` for an empty tree.
    pub fn root(&self) -> Option<NodeRef> {
        (!self.header.root.is_undef()).then_some(NodeRef {
            address: self.header.root,
            depth: usize::from(self.header.depth),
            records: u64::from(self.header.root_records),
            total_records: None,
            parent: None,
        })
    }

    /// The bytes of a node (every node has the header's node size).
    pub fn node_size(&self) -> u64 {
        u64::from(self.header.node_size)
    }

    /// Read and parse node `node`.
    pub fn read_node<F: Fetch + ?Sized>(
        &self,
        src: &F,
        node: &NodeRef,
    ) -> std::result::Result<Node, F::Error> {
        let a = node.address;
        let b = src.fetch(NODE, a, self.node_size())?;
        let mut c = Cursor::new(&b, a.0, src.sizes());
        Ok(if node.depth == 0 {
            Node::Leaf(LeafNode::parse(
                &mut c,
                &self.header,
                &self.info,
                node.records,
            )?)
        } else {
            Node::Internal(InternalNode::parse(
                &mut c,
                &self.header,
                &self.info,
                node.depth,
                node.records,
            )?)
        })
    }

    /// Visit every node depth first, the records in key order. `Some(count)` when the whole
    /// tree was visited (nothing skipped or failed), with the records it holds.
    pub fn visit<F, V>(&self, src: &F, v: &mut V) -> std::result::Result<Option<u64>, F::Error>
    where
        F: Fetch + ?Sized,
        V: Visitor<F::Error>,
    {
        let Some(root) = self.root() else {
            return Ok(Some(0));
        };
        let mut seen = HashSet::new();
        self.visit_node(src, v, &root, &mut seen)
    }

    fn visit_node<F, V>(
        &self,
        src: &F,
        v: &mut V,
        node: &NodeRef,
        seen: &mut HashSet<u64>,
    ) -> std::result::Result<Option<u64>, F::Error>
    where
        F: Fetch + ?Sized,
        V: Visitor<F::Error>,
    {
        if !v.enter(node, self.node_size())? {
            return Ok(None);
        }
        let a = node.address.0;
        let bad = if !seen.insert(a) {
            Some(Error::new(
                ErrorKind::InvalidValue,
                NODE,
                a,
                format!("node at {a:#x} reached a second time (a loop)"),
            ))
        } else if seen.len() > limits::MAX_WALK_STRUCTURES {
            Some(Error::new(
                ErrorKind::LimitExceeded,
                NODE,
                a,
                format!(
                    "more than {} nodes in the tree at {:#x}",
                    limits::MAX_WALK_STRUCTURES,
                    self.address.0
                ),
            ))
        } else {
            None
        };
        if let Some(e) = bad {
            v.failed(node, e.into())?;
            return Ok(None);
        }
        if node.depth == 0 && !v.reads_leaves() {
            v.subtree(node, node.records)?;
            return Ok(Some(node.records));
        }
        let parsed = match self.read_node(src, node) {
            Ok(n) => n,
            Err(e) => {
                v.failed(node, e)?;
                return Ok(None);
            }
        };
        match parsed {
            Node::Leaf(leaf) => {
                for r in leaf.records {
                    v.record(r)?;
                }
                v.subtree(node, node.records)?;
                Ok(Some(node.records))
            }
            Node::Internal(inode) => {
                let mut total = Some(node.records);
                let mut records = inode.records.into_iter();
                for (i, c) in inode.children.iter().enumerate() {
                    let child = NodeRef {
                        address: c.address,
                        depth: node.depth - 1,
                        records: c.records,
                        total_records: c.total_records,
                        parent: Some((node.address, i)),
                    };
                    let below = self.visit_node(src, v, &child, seen)?;
                    total = total.zip(below).map(|(t, b)| t.saturating_add(b));
                    if let Some(r) = records.next() {
                        v.record(r)?;
                    }
                }
                if let Some(t) = total {
                    v.subtree(node, t)?;
                }
                Ok(total)
            }
        }
    }

    /// Every node's reference and size, depth first, leaves not read; `f` returning `false`
    /// skips a node's subtree.
    pub fn each_node<F, G>(&self, src: &F, f: G) -> std::result::Result<(), F::Error>
    where
        F: Fetch + ?Sized,
        G: FnMut(&NodeRef, u64) -> std::result::Result<bool, F::Error>,
    {
        struct Nodes<G>(G);
        impl<E, G: FnMut(&NodeRef, u64) -> std::result::Result<bool, E>> Visitor<E> for Nodes<G> {
            fn enter(&mut self, node: &NodeRef, size: u64) -> std::result::Result<bool, E> {
                (self.0)(node, size)
            }
            fn reads_leaves(&self) -> bool {
                false
            }
        }
        self.visit(src, &mut Nodes(f)).map(|_| ())
    }

    /// Every record in key order: at most the header's "Total Number of Records", each node
    /// read once.
    pub fn records<F: Fetch + ?Sized>(
        &self,
        src: &F,
    ) -> std::result::Result<Vec<Record>, F::Error> {
        struct Collect {
            out: Vec<Record>,
            max: u64,
            at: u64,
        }
        impl<E: From<Error>> Visitor<E> for Collect {
            fn record(&mut self, record: Record) -> std::result::Result<(), E> {
                if self.out.len() as u64 >= self.max {
                    return Err(Error::new(
                        ErrorKind::LimitExceeded,
                        HEADER,
                        self.at,
                        format!("the nodes hold more than the {} records counted", self.max),
                    )
                    .into());
                }
                self.out.push(record);
                Ok(())
            }
        }
        if self.header.total_records == 0 {
            return Ok(Vec::new());
        }
        let mut c = Collect {
            out: Vec::new(),
            max: self.header.total_records,
            at: self.address.0,
        };
        self.visit(src, &mut c)?;
        Ok(c.out)
    }

    /// The record the probe finds, descending from the root: a binary search of each node's
    /// records with `probe`, one node read per level (the reference library's
    /// `H5B2_find`). `probe` compares a record with the key sought and may read what it needs
    /// to break a tie (a name behind a hash).
    pub fn find<F, T, P>(&self, src: &F, mut probe: P) -> std::result::Result<Option<T>, F::Error>
    where
        F: Fetch + ?Sized,
        P: FnMut(&Record) -> std::result::Result<Probe<T>, F::Error>,
    {
        if self.header.total_records == 0 {
            return Ok(None);
        }
        let Some(mut node) = self.root() else {
            return Ok(None);
        };
        loop {
            let (records, children) = match self.read_node(src, &node)? {
                Node::Leaf(l) => (l.records, Vec::new()),
                Node::Internal(n) => (n.records, n.children),
            };
            let (mut lo, mut hi) = (0usize, records.len());
            while lo < hi {
                let i = (lo + hi) / 2;
                match probe(&records[i])? {
                    Probe::Found(t) => return Ok(Some(t)),
                    Probe::Less => lo = i + 1,
                    Probe::Greater => hi = i,
                }
            }
            if node.depth == 0 {
                return Ok(None);
            }
            let Some(c) = children.get(lo) else {
                let a = node.address.0;
                return Err(Error::new(
                    ErrorKind::InvalidValue,
                    NODE,
                    a,
                    format!("node at {a:#x} lacks child {lo}"),
                )
                .into());
            };
            node = NodeRef {
                address: c.address,
                depth: node.depth - 1,
                records: c.records,
                total_records: c.total_records,
                parent: Some((node.address, lo)),
            };
        }
    }
}
