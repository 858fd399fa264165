//! Dereferencing references: old object references (an address), old region references (a
//! global heap object holding the dataset's address and a selection), and the revised
//! references (object, region and attribute, stored through the global heap).

use h5_format::reference::{Reference as Revised, ReferenceTarget, RegionReferenceData};
use h5_format::selection::Selection as FormatSelection;
use h5_format::{Addr, Cursor};

use crate::error::{bail, Error, ErrorKind, Result};
use crate::file::File;
use crate::group::{Location, Node};
use crate::object::ObjectKind;
use crate::selection::{Dataspace, SelectOp, Selection};

/// What a reference points at.
#[derive(Clone, Debug)]
pub enum Target {
    /// An object.
    Object(Location),
    /// A selection of a dataset.
    Region {
        /// The dataset.
        dataset: Location,
        /// The selection, in the dataset's dataspace.
        selection: Selection,
    },
    /// An attribute of an object.
    Attribute {
        /// The object.
        object: Location,
        /// The attribute's name.
        name: String,
    },
}

/// The location of a referenced object: its path is [`path_of`]'s, or `<object at 0x…>` when
/// no link reaches it (the reference library's `H5Iget_name` gives no name then).
fn loc(file: &File, addr: Addr) -> Result<Location> {
    let mut l = unnamed_loc(file, addr)?;
    if let Some(p) = path_of(file, addr)? {
        l.path = p;
    }
    Ok(l)
}

/// The location of a referenced object without looking for its path (`<object at 0x…>`).
fn unnamed_loc(file: &File, addr: Addr) -> Result<Location> {
    if addr.is_undef() || addr == Addr(0) {
        bail!(NotFound, "null reference");
    }
    file.object(addr)?;
    Ok(Location {
        file: file.clone(),
        addr,
        path: format!("<object at {:#x}>", addr.0),
    })
}

/// The path the reference library gives an object opened without one (through a reference:
/// `H5Iget_name` -> `H5G_get_name_by_addr`): the first path that reaches it in a depth-first,
/// pre-order visit of the hard links from the root group, each group's links in name order,
/// each group entered once; `/` for the root group; `None` when no link reaches it.
pub fn path_of(file: &File, addr: Addr) -> Result<Option<String>> {
    if addr == file.root_address() {
        return Ok(Some("/".into()));
    }
    let mut seen = std::collections::HashSet::from([file.root_address().0]);
    // A stack of groups being visited, each with its links and the next to look at.
    let root = file.root()?;
    let mut stack = vec![("/".to_owned(), root.links()?, 0usize)];
    while let Some((path, links, next)) = stack.last_mut() {
        let Some(l) = links.get(*next) else {
            stack.pop();
            continue;
        };
        *next += 1;
        let crate::link::LinkTarget::Hard(a) = l.target else {
            continue;
        };
        let child = if path.ends_with('/') {
            format!("{path}{}", l.name)
        } else {
            format!("{path}/{}", l.name)
        };
        if a == addr {
            return Ok(Some(child));
        }
        if !seen.insert(a.0) {
            continue;
        }
        if !matches!(file.object(a).map(|o| o.kind()), Ok(ObjectKind::Group)) {
            continue;
        }
        // A group that does not read hides nothing the reference library would find.
        let links = crate::group::Group::at(Location {
            file: file.clone(),
            addr: a,
            path: child.clone(),
        })
        .and_then(|g| g.links());
        if let Ok(links) = links {
            stack.push((child, links, 0));
        }
    }
    Ok(None)
}

/// Dereference an old object reference (`H5R_OBJECT1`: the address, size of offsets bytes).
pub fn object_reference(file: &File, bytes: &[u8]) -> Result<Location> {
    let mut c = Cursor::new(bytes, 0, file.sizes());
    let a = c.read_addr()?;
    loc(file, a)
}

/// Dereference an old dataset region reference (`H5R_DATASET_REGION1`: a global heap ID).
pub fn region_reference(file: &File, bytes: &[u8]) -> Result<Target> {
    region_target(file, bytes, loc)
}

/// [`region_reference`] without looking for the dataset's path (a walk of the file's
/// groups): for copies, which need only its address.
pub(crate) fn region_reference_unnamed(file: &File, bytes: &[u8]) -> Result<Target> {
    region_target(file, bytes, unnamed_loc)
}

fn region_target(
    file: &File,
    bytes: &[u8],
    loc: fn(&File, Addr) -> Result<Location>,
) -> Result<Target> {
    let mut c = Cursor::new(bytes, 0, file.sizes());
    let addr = c.read_addr()?;
    let index = c.read_u32()?;
    if addr.is_undef() || addr == Addr(0) {
        bail!(NotFound, "null region reference");
    }
    let data = file.global_heap_object(addr, index)?;
    let r = RegionReferenceData::parse(&mut Cursor::new(&data, 0, file.sizes()))?;
    let dataset = loc(file, r.object)?;
    let space = match file.node_at(&dataset)? {
        Node::Dataset(d) => d.dataspace().clone(),
        _ => bail!(
            WrongKind,
            "a region reference to something else than a dataset"
        ),
    };
    let selection = selection_from_format(&r.selection, &space)?;
    Ok(Target::Region { dataset, selection })
}

/// Dereference a revised reference (`H5R_ref_t` as stored in a dataset or attribute: the
/// type and flags, then for an object reference the token inline, for region and attribute
/// references a length and the global heap ID of the encoded reference).
pub fn revised_reference(file: &File, bytes: &[u8]) -> Result<Target> {
    let sizes = file.sizes();
    let mut c = Cursor::new(bytes, 0, sizes);
    let ref_type = c.read_u8()?;
    let flags = c.read_u8()?;
    let r = if ref_type == h5_format::reference::TYPE_OBJECT
        && flags & h5_format::reference::FLAG_EXTERNAL == 0
    {
        Revised::parse_block(&mut c, ref_type, flags)?
    } else {
        let _len = c.read_u32()?;
        let id = h5_format::heap::global::GlobalHeapId::parse(&mut c)?;
        if id.is_nil() {
            bail!(NotFound, "null reference");
        }
        let data = file.global_heap_object(id.collection, id.index)?;
        match Revised::parse_block(&mut Cursor::new(&data, 0, sizes), ref_type, flags) {
            Ok(r) => r,
            Err(_) => Revised::parse(&mut Cursor::new(&data, 0, sizes))?,
        }
    };
    let addr = r
        .token_address(file.sizes())
        .ok_or_else(|| Error::new(ErrorKind::Format, "reference token"))?;
    let object = loc(file, addr)?;
    Ok(match r.target {
        ReferenceTarget::Object => Target::Object(object),
        ReferenceTarget::Attribute { name } => Target::Attribute {
            object,
            name: String::from_utf8_lossy(&name).into_owned(),
        },
        ReferenceTarget::Region { selection, .. } => {
            let space = match file.node_at(&object)? {
                Node::Dataset(d) => d.dataspace().clone(),
                _ => bail!(
                    WrongKind,
                    "a region reference to something else than a dataset"
                ),
            };
            Target::Region {
                selection: selection_from_format(&selection, &space)?,
                dataset: object,
            }
        }
    })
}

impl File {
    /// The object an old object reference (`hobj_ref_t`) points at: a group, a dataset or a
    /// committed datatype, with the path [`path_of`] finds (a walk of the groups until the
    /// object is found, the whole file for an object no link reaches).
    pub fn deref_object(&self, r: h5_types::h5type::ObjectRef) -> Result<Node> {
        let l = loc(self, Addr(r.addr()))?;
        self.node_at(&l)
    }

    /// The dataset and selection an old region reference (`hdset_reg_ref_t`) points at.
    pub fn deref_region(
        &self,
        r: &h5_types::h5type::RegionRef,
    ) -> Result<(crate::dataset::Dataset, Selection)> {
        match region_reference(self, r.as_bytes())? {
            Target::Region { dataset, selection } => {
                Ok((crate::dataset::Dataset::at(dataset)?, selection))
            }
            _ => bail!(Format, "a region reference to something else than a region"),
        }
    }

    /// Open the object at a location, whatever it is.
    pub fn node_at(&self, l: &Location) -> Result<Node> {
        let obj = l.object()?;
        Ok(match obj.kind() {
            ObjectKind::Group => Node::Group(crate::group::Group::at(l.clone())?),
            ObjectKind::Dataset => Node::Dataset(crate::dataset::Dataset::at(l.clone())?),
            ObjectKind::Datatype => Node::Datatype(crate::group::NamedDatatype::at(l.clone())?),
            ObjectKind::Unknown => bail!(WrongKind, "{}: an object of unknown kind", l.path),
        })
    }
}

/// A selection as encoded in a file, on dataspace `space`.
pub fn selection_from_format(s: &FormatSelection, space: &Dataspace) -> Result<Selection> {
    let sel = match s {
        FormatSelection::None => Selection::None,
        FormatSelection::All => Selection::All,
        FormatSelection::PointsV1 { points, .. } | FormatSelection::PointsV2 { points, .. } => {
            Selection::points(space, points)?
        }
        FormatSelection::HyperslabV1 { blocks, .. }
        | FormatSelection::HyperslabV3Blocks { blocks, .. } => {
            let mut sel = Selection::None;
            for b in blocks {
                let count: Vec<u64> = b
                    .start
                    .iter()
                    .zip(&b.end)
                    .map(|(s, e)| e.saturating_sub(*s).saturating_add(1))
                    .collect();
                let ones = vec![1u64; count.len()];
                sel.select_hyperslab(space, SelectOp::Or, &b.start, None, &ones, Some(&count))?;
            }
            sel
        }
        FormatSelection::HyperslabV2 { dims }
        | FormatSelection::HyperslabV3Regular { dims, .. } => {
            if dims
                .iter()
                .any(|d| d.count == u64::MAX || d.block == u64::MAX)
            {
                return unlimited_hyperslab(dims, space);
            }
            let start: Vec<u64> = dims.iter().map(|d| d.start).collect();
            let stride: Vec<u64> = dims.iter().map(|d| d.stride.max(1)).collect();
            let count: Vec<u64> = dims.iter().map(|d| d.count).collect();
            let block: Vec<u64> = dims.iter().map(|d| d.block).collect();
            Selection::hyperslab(space, &start, Some(&stride), &count, Some(&block))?
        }
    };
    sel.validate(space)?;
    Ok(sel)
}

/// An unlimited regular hyperslab (a count or block of `H5S_UNLIMITED` in one dimension, as
/// HDF5 1.10+ writes them in region references) on the dataset's current extent: the
/// reference library keeps such a selection unlimited and clips it to an extent where it
/// applies one (`H5S__hyper_clip_unlim`): an unlimited block reaches the end of the
/// dimension; an unlimited count takes every block that starts inside it, the last one cut
/// at the end.
fn unlimited_hyperslab(
    dims: &[h5_format::selection::RegularDim],
    space: &Dataspace,
) -> Result<Selection> {
    let extent = space.dims();
    let unlimited: Vec<usize> = (0..dims.len())
        .filter(|&i| dims[i].count == u64::MAX || dims[i].block == u64::MAX)
        .collect();
    let [u] = unlimited[..] else {
        bail!(
            Format,
            "a hyperslab unlimited in {} dimensions (one at most)",
            unlimited.len()
        );
    };
    if extent.len() != dims.len() {
        bail!(
            Format,
            "a hyperslab of rank {} on a dataspace of rank {}",
            dims.len(),
            extent.len()
        );
    }
    let n = extent[u];
    let d = dims[u];
    let mut start: Vec<u64> = dims.iter().map(|d| d.start).collect();
    let mut stride: Vec<u64> = dims.iter().map(|d| d.stride.max(1)).collect();
    let mut count: Vec<u64> = dims.iter().map(|d| d.count).collect();
    let mut block: Vec<u64> = dims.iter().map(|d| d.block).collect();
    if d.start >= n {
        return Ok(Selection::None);
    }
    let mut sel = Selection::None;
    if d.block == u64::MAX {
        // One block from the start to the end of the dimension.
        if d.count != 1 {
            bail!(Format, "an unlimited block repeated {} times", d.count);
        }
        block[u] = n - d.start;
        sel.select_hyperslab(
            space,
            SelectOp::Set,
            &start,
            Some(&stride),
            &count,
            Some(&block),
        )?;
    } else {
        let (s, b) = (d.start, d.block.max(1));
        let step = d.stride.max(1);
        // Blocks wholly inside the extent, then the one cut at its end.
        let whole = if n >= s + b {
            (n - s - b) / step + 1
        } else {
            0
        };
        if whole > 0 {
            count[u] = whole;
            sel.select_hyperslab(
                space,
                SelectOp::Or,
                &start,
                Some(&stride),
                &count,
                Some(&block),
            )?;
        }
        let next = s + whole * step;
        if next < n {
            start[u] = next;
            count[u] = 1;
            block[u] = (n - next).min(b);
            stride[u] = 1;
            sel.select_hyperslab(
                space,
                SelectOp::Or,
                &start,
                Some(&stride),
                &count,
                Some(&block),
            )?;
        }
    }
    Ok(sel)
}
