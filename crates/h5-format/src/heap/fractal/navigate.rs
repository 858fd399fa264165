//! Navigating a fractal heap through a [`Fetch`]: its header ([`FractalHeapHeader::read`]),
//! where the object of a heap ID is stored ([`FractalHeapHeader::locate`]: tiny, managed,
//! huge, filtered or not), and a visit of every direct and indirect block with its address
//! and size ([`FractalHeapHeader::visit_blocks`]). The reader, the writer (the extents of a
//! heap it retires), the space accounting of `h5 stat` and the validation walk all go
//! through it. Filters are not part of this crate: a filtered object comes back as the
//! stored bytes' location and what decoding them gives, for the caller to decode.

use std::collections::HashSet;
use std::ops::Range;

use super::{
    Child, FilteredBlock, FractalHeapHeader, HeapId, HeapIdLayout, IndirectBlock, HEADER, HEAP_ID,
    INDIRECT,
};
use crate::btree::v2::{Probe, Record, Tree};
use crate::storage::Fetch;
use crate::{limits, Addr, Cursor, Error, ErrorKind};

/// The first read of a header: enough unless its filter pipeline is long.
const HEADER_WINDOW: u64 = 1024;
/// The most a header takes (its "I/O Filters' Encoded Length" is 16 bits).
const HEADER_MAX: u64 = 1 << 17;

/// Where a heap object's bytes are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A tiny object: the bytes, from the heap ID itself.
    Tiny(Vec<u8>),
    /// `length` bytes at `address`, stored as they are.
    Plain {
        /// Where the object starts.
        address: Addr,
        /// Its length.
        length: u64,
    },
    /// Stored through the heap's filter pipeline: `stored` bytes at `address`, which the
    /// pipeline (less the filters `filter_mask` marks skipped) decodes to `memory_size`
    /// bytes.
    Filtered {
        /// The stored bytes' address.
        address: Addr,
        /// Their length.
        stored: u64,
        /// Bit `i` set: filter `i` skipped.
        filter_mask: u32,
        /// The decoded length.
        memory_size: u64,
        /// The object inside the decoded bytes, for an object of a filtered direct block;
        /// `None`: all of them (a huge object).
        object: Option<Range<u64>>,
    },
}

impl Location {
    /// The huge object a record of a heap's B-tree of huge objects (types 1 to 4) points
    /// to, with its ID (types 1 and 2, keyed by ID; types 3 and 4 are keyed by address).
    pub fn of_huge_record(r: &Record) -> Option<(Option<u64>, Location)> {
        Some(match *r {
            Record::HugeIndirect {
                address,
                length,
                id,
            } => (Some(id), Location::Plain { address, length }),
            Record::HugeDirect { address, length } => (None, Location::Plain { address, length }),
            Record::HugeIndirectFiltered {
                address,
                length,
                filter_mask,
                memory_size,
                id,
            } => (
                Some(id),
                Location::filtered_huge(address, length, filter_mask, memory_size),
            ),
            Record::HugeDirectFiltered {
                address,
                length,
                filter_mask,
                memory_size,
            } => (
                None,
                Location::filtered_huge(address, length, filter_mask, memory_size),
            ),
            _ => return None,
        })
    }

    fn filtered_huge(address: Addr, stored: u64, filter_mask: u32, memory_size: u64) -> Self {
        Location::Filtered {
            address,
            stored,
            filter_mask,
            memory_size,
            object: None,
        }
    }
}

/// An indirect block as its parent (or the header) points to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndirectRef {
    /// Its address.
    pub address: Addr,
    /// Its rows.
    pub rows: u32,
    /// Its offset in the heap's address space.
    pub offset: u64,
    /// Indirect blocks above it (0 for the root).
    pub nesting: usize,
}

/// A direct block as its parent (or the header) points to it; the visit does not read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DirectRef {
    /// Its address.
    pub address: Addr,
    /// Its size (unfiltered).
    pub size: u64,
    /// Its offset in the heap's address space.
    pub offset: u64,
    /// The stored size and filter mask of a filtered block.
    pub filtered: Option<FilteredBlock>,
}

/// What a visit of a heap's blocks ([`FractalHeapHeader::visit_blocks`]) tells its caller.
pub trait BlockVisitor<E> {
    /// Before indirect block `block` (of `size` bytes) is read: `Ok(false)` skips it and
    /// what it points to.
    fn enter(&mut self, block: &IndirectRef, size: u64) -> Result<bool, E> {
        let _ = (block, size);
        Ok(true)
    }

    /// Indirect block `block` as read.
    fn indirect(&mut self, block: &IndirectRef, parsed: &IndirectBlock) -> Result<(), E> {
        let _ = (block, parsed);
        Ok(())
    }

    /// A direct block (in the order its parent lists it).
    fn direct(&mut self, block: &DirectRef) -> Result<(), E>;

    /// Indirect block `block` could not be read or parsed, or was reached a second time:
    /// `Err` ends the visit (the default), `Ok` skips it and goes on.
    fn failed(&mut self, block: &IndirectRef, error: E) -> Result<(), E> {
        let _ = block;
        Err(error)
    }
}

impl FractalHeapHeader {
    /// The header at `addr` and its encoded length.
    pub fn read<F: Fetch + ?Sized>(src: &F, addr: Addr) -> Result<(Self, u64), F::Error> {
        let sizes = src.sizes();
        let b = src.fetch_up_to(HEADER, addr, HEADER_WINDOW)?;
        let mut c = Cursor::new(&b, addr.0, sizes);
        match Self::parse(&mut c) {
            Ok(h) => return Ok((h, c.pos() as u64)),
            Err(e) if e.kind() != ErrorKind::UnexpectedEof || b.len() as u64 != HEADER_WINDOW => {
                return Err(e.into())
            }
            Err(_) => {}
        }
        // A long filter pipeline: read the rest.
        let b = src.fetch_up_to(HEADER, addr, HEADER_MAX)?;
        let mut c = Cursor::new(&b, addr.0, sizes);
        let h = Self::parse(&mut c)?;
        Ok((h, c.pos() as u64))
    }

    /// The bytes of indirect block `a` of `nrows` rows, parsed.
    pub fn read_indirect<F: Fetch + ?Sized>(
        &self,
        src: &F,
        a: Addr,
        nrows: u32,
    ) -> Result<IndirectBlock, F::Error> {
        let sizes = src.sizes();
        let len = IndirectBlock::encoded_size(self, nrows, sizes)?;
        let b = src.fetch(INDIRECT, a, len)?;
        Ok(IndirectBlock::parse(
            &mut Cursor::new(&b, a.0, sizes),
            self,
            nrows,
        )?)
    }

    /// Where the object of heap ID `id` is. `at` is the ID's own address when known (for
    /// errors). A huge object behind the heap's B-tree is found with one node read per
    /// level ([`FractalHeapHeader::huge_object`]).
    pub fn locate<F: Fetch + ?Sized>(
        &self,
        src: &F,
        id: &[u8],
        at: Option<u64>,
    ) -> Result<Location, F::Error> {
        self.locate_with(src, id, at, |huge| self.huge_object(src, huge))
    }

    /// [`FractalHeapHeader::locate`], with the huge objects behind the B-tree found by
    /// `huge` (from the object's ID: `None` when there is no such object).
    pub fn locate_with<F, H>(
        &self,
        src: &F,
        id: &[u8],
        at: Option<u64>,
        huge: H,
    ) -> Result<Location, F::Error>
    where
        F: Fetch + ?Sized,
        H: FnOnce(u64) -> Result<Option<Location>, F::Error>,
    {
        let sizes = src.sizes();
        let err = |m: String| match at {
            Some(a) => Error::new(ErrorKind::InvalidValue, HEAP_ID, a, m),
            None => Error::without_offset(ErrorKind::InvalidValue, HEAP_ID, m),
        };
        let layout = HeapIdLayout::new(self, sizes)?;
        if id.len() < layout.id_len {
            return Err(err(format!(
                "heap ID of {} bytes, the heap uses {}",
                id.len(),
                layout.id_len
            ))
            .into());
        }
        let hid = HeapId::parse(&mut Cursor::new(id, at.unwrap_or(0), sizes), &layout)?;
        Ok(match hid {
            HeapId::Tiny { data } => Location::Tiny(data),
            HeapId::Managed { offset, length } => {
                // The blocks are read through the caller's storage: a failed read is the
                // caller's error, kept aside while the descent (which knows only this
                // crate's errors) stops.
                let mut failed = None;
                let r = self.locate_managed(offset, length, |a, nrows| {
                    self.read_indirect(src, a, nrows).map_err(|e| {
                        failed = Some(e);
                        Error::without_offset(ErrorKind::BadAddress, INDIRECT, "unreadable")
                    })
                });
                let loc = match (r, failed) {
                    (Ok(l), _) => l,
                    (Err(_), Some(e)) => return Err(e),
                    (Err(e), None) => return Err(e.into()),
                };
                let overhead = self
                    .doubling_table()?
                    .direct_block_overhead(sizes, self.checksums_direct_blocks())
                    as u64;
                if loc.offset_in_block < overhead {
                    return Err(err(format!(
                        "object at heap offset {offset} overlaps its block's prefix"
                    ))
                    .into());
                }
                match loc.filtered {
                    Some(f) => Location::Filtered {
                        address: loc.block_address,
                        stored: f.size,
                        filter_mask: f.filter_mask,
                        memory_size: loc.block_size,
                        object: Some(
                            loc.offset_in_block..loc.offset_in_block.saturating_add(length),
                        ),
                    },
                    None => Location::Plain {
                        address: loc
                            .block_address
                            .get()
                            .and_then(|b| b.checked_add(loc.offset_in_block))
                            .map(Addr)
                            .ok_or_else(|| err("heap object address overflows".into()))?,
                        length,
                    },
                }
            }
            HeapId::HugeDirect { address, length } => Location::Plain { address, length },
            HeapId::HugeDirectFiltered {
                address,
                length,
                filter_mask,
                memory_size,
            } => Location::filtered_huge(address, length, filter_mask, memory_size),
            HeapId::HugeIndirect { id } => match huge(id)? {
                Some(l) => l,
                None => {
                    return Err(err(format!("huge object {id} is not in the heap's B-tree")).into())
                }
            },
        })
    }

    /// The huge object `id` from the heap's B-tree of huge objects (records of types 1 and
    /// 2, ordered by ID), one node read per level.
    pub fn huge_object<F: Fetch + ?Sized>(
        &self,
        src: &F,
        id: u64,
    ) -> Result<Option<Location>, F::Error> {
        if self.huge_btree.is_undef() {
            return Ok(None);
        }
        let tree = Tree::open(src, self.huge_btree)?;
        tree.find(src, |r| {
            let Some((Some(rid), loc)) = Location::of_huge_record(r) else {
                return Err(Error::new(
                    ErrorKind::InvalidValue,
                    HEADER,
                    self.huge_btree.0,
                    "the huge object B-tree holds records not keyed by ID",
                )
                .into());
            };
            Ok(match rid.cmp(&id) {
                std::cmp::Ordering::Less => Probe::Less,
                std::cmp::Ordering::Greater => Probe::Greater,
                std::cmp::Ordering::Equal => Probe::Found(loc),
            })
        })
    }

    /// Visit every block of the managed space: the root, then each indirect block's direct
    /// blocks in row order as it is read, its indirect children after (depth first). Each
    /// indirect block is read once: a second visit is a loop, given to
    /// [`BlockVisitor::failed`].
    pub fn visit_blocks<F, V>(&self, src: &F, v: &mut V) -> Result<(), F::Error>
    where
        F: Fetch + ?Sized,
        V: BlockVisitor<F::Error>,
    {
        if self.root_block.is_undef() {
            return Ok(());
        }
        let dt = self.doubling_table()?;
        if self.current_root_rows == 0 {
            return v.direct(&DirectRef {
                address: self.root_block,
                size: dt.start_block_size,
                offset: 0,
                filtered: self.filters.as_ref().map(|f| FilteredBlock {
                    size: f.root_direct_block_size,
                    filter_mask: f.filter_mask,
                }),
            });
        }
        let sizes = src.sizes();
        let mut seen = HashSet::new();
        let mut stack = vec![IndirectRef {
            address: self.root_block,
            rows: u32::from(self.current_root_rows),
            offset: 0,
            nesting: 0,
        }];
        while let Some(b) = stack.pop() {
            let a = b.address.0;
            let bad = |m: String, kind| Error::new(kind, INDIRECT, a, m);
            let size = match IndirectBlock::encoded_size(self, b.rows, sizes) {
                Ok(s) => s,
                Err(e) => {
                    v.failed(&b, e.into())?;
                    continue;
                }
            };
            if !v.enter(&b, size)? {
                continue;
            }
            let problem = if !seen.insert(a) {
                Some(bad(
                    format!("block at {a:#x} reached a second time (a loop)"),
                    ErrorKind::InvalidValue,
                ))
            } else if b.nesting > limits::MAX_FRACTAL_HEAP_ROWS
                || seen.len() > limits::MAX_WALK_STRUCTURES
            {
                Some(bad(
                    "indirect blocks nest too deep or are too many".into(),
                    ErrorKind::LimitExceeded,
                ))
            } else {
                None
            };
            if let Some(e) = problem {
                v.failed(&b, e.into())?;
                continue;
            }
            let ib = match self.read_indirect(src, b.address, b.rows) {
                Ok(ib) => ib,
                Err(e) => {
                    v.failed(&b, e)?;
                    continue;
                }
            };
            v.indirect(&b, &ib)?;
            for row in 0..b.rows {
                let (Some(size), Some(row_off)) =
                    (dt.row_block_size(row), dt.row_block_offset(row))
                else {
                    v.failed(
                        &b,
                        bad(
                            format!("row {row} is outside the doubling table"),
                            ErrorKind::InvalidValue,
                        )
                        .into(),
                    )?;
                    break;
                };
                for col in 0..dt.width {
                    let offset = b
                        .offset
                        .saturating_add(row_off)
                        .saturating_add(size.saturating_mul(col));
                    match ib.child(&dt, row, col) {
                        Some(Child::Direct(e)) if !e.address.is_undef() => {
                            v.direct(&DirectRef {
                                address: e.address,
                                size,
                                offset,
                                filtered: e.filtered,
                            })?;
                        }
                        Some(Child::Indirect(c)) if !c.is_undef() => stack.push(IndirectRef {
                            address: c,
                            rows: dt.rows_for_size(size),
                            offset,
                            nesting: b.nesting + 1,
                        }),
                        _ => {}
                    }
                }
            }
        }
        Ok(())
    }
}
