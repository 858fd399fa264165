//! [`FileSource`]: the [`Source`] over an open [`File`].
//!
//! Values are handed out in their memory form: fixed-size values as stored; compounds with
//! variable-length members laid out as [`vlen::memory_type`] lays them out; a
//! variable-length string as one word (the global heap collection's address in the low 48
//! bits, the object's index in the high 16; zero for a null or empty string); a
//! variable-length sequence as the collection's address (8 bytes), the object's index (4)
//! and the index of its base file datatype in this source's type table (4), so
//! [`Source::vlen_data`] turns the stored elements into their memory form in turn.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use h5_format::message::datatype::disk_size;
use h5_format::message::layout::LayoutClass;
use h5_format::reference::RegionReferenceData;
use h5_format::selection::Selection as FormatSelection;
use h5_format::{Addr, Cursor};
use h5_types::{Datatype, ReferenceKind};

use super::source::{
    AttributeInfo, DatasetInfo, ObjectId, ObjectType, RefTarget, Region, Source, SourceRef,
};
use crate::error::{bail, ensure, Error, ErrorKind};
use crate::file::File;
use crate::group::{Group, Location};
use crate::link::Link;
use crate::object::ObjectKind;
use crate::selection::{MemoryMap, Selection};
use crate::{vlen, Dataset, Result};

/// The most blocks a regular hyperslab of a region reference is listed with.
const MAX_REGION_BLOCKS: u64 = 1 << 20;

/// An open file as one side of a comparison.
pub struct FileSource {
    file: File,
    identity: String,
    /// The base file datatypes of the variable-length sequences handed out in descriptors.
    types: RefCell<Vec<Datatype>>,
    /// The dataset read last (a comparison reads one dataset strip by strip).
    last: RefCell<Option<(ObjectId, Dataset)>>,
}

impl std::fmt::Debug for FileSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileSource")
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

impl FileSource {
    /// The source over `file`. Its identity is the file's canonical path (a file without
    /// one is a file of its own).
    pub fn new(file: File) -> FileSource {
        static UNNAMED: AtomicU64 = AtomicU64::new(0);
        let identity = match file.path() {
            Some(p) => std::fs::canonicalize(p)
                .unwrap_or_else(|_| p.to_path_buf())
                .display()
                .to_string(),
            None => format!("<file {}>", UNNAMED.fetch_add(1, Ordering::Relaxed)),
        };
        FileSource {
            file,
            identity,
            types: RefCell::new(Vec::new()),
            last: RefCell::new(None),
        }
    }

    /// The source over `file`, shared as the comparison keeps it.
    pub fn shared<'a>(file: File) -> SourceRef<'a> {
        Rc::new(FileSource::new(file))
    }

    fn loc(&self, id: ObjectId) -> Location {
        Location {
            file: self.file.clone(),
            addr: Addr(id),
            path: String::new(),
        }
    }

    fn with_dataset<T>(&self, id: ObjectId, f: impl FnOnce(&Dataset) -> Result<T>) -> Result<T> {
        let mut last = self.last.borrow_mut();
        if !matches!(&*last, Some((at, _)) if *at == id) {
            *last = Some((id, Dataset::at(self.loc(id))?));
        }
        match &*last {
            Some((_, d)) => f(d),
            None => bail!(NotFound, "dataset at {id:#x}"),
        }
    }

    /// Values stored as `raw` in file type `dt`, in memory form.
    fn memory(&self, dt: &Datatype, raw: Vec<u8>) -> Result<Vec<u8>> {
        if !dt.has_variable_length() {
            return Ok(raw);
        }
        let sizes = self.file.sizes();
        let esize = disk_size(dt, sizes) as usize;
        ensure!(esize > 0, Datatype, "datatype of size 0");
        let mdt = vlen::memory_type(dt, sizes)?;
        let (n, msize) = (raw.len() / esize, mdt.size());
        let mut out = vec![0u8; n * msize];
        for (src, dst) in raw.chunks_exact(esize).zip(out.chunks_exact_mut(msize)) {
            self.element(dt, &mdt, src, dst)?;
        }
        Ok(out)
    }

    /// One element of file type `dt` (`src`) into its memory form (`mdt`, `dst`).
    fn element(&self, dt: &Datatype, mdt: &Datatype, src: &[u8], dst: &mut [u8]) -> Result<()> {
        let sizes = self.file.sizes();
        let short = || Error::new(ErrorKind::Datatype, "element shorter than its datatype");
        match (dt, mdt) {
            (Datatype::VarLen(_), _) | (Datatype::String(_), _) if dt.has_variable_length() => {
                let mut c = Cursor::new(src, 0, sizes);
                let len = c.read_u32()?;
                let addr = c.read_addr()?;
                let index = c.read_u32()?;
                dst.fill(0);
                if len == 0 || addr.is_undef() || addr == Addr(0) {
                    return Ok(());
                }
                if let Datatype::VarLen(v) = dt {
                    let mut types = self.types.borrow_mut();
                    let t = match types.iter().position(|t| t == v.base()) {
                        Some(t) => t,
                        None => {
                            types.push(v.base().clone());
                            types.len() - 1
                        }
                    };
                    let d = dst.get_mut(..16).ok_or_else(short)?;
                    d[..8].copy_from_slice(&addr.0.to_le_bytes());
                    d[8..12].copy_from_slice(&index.to_le_bytes());
                    d[12..].copy_from_slice(&(t as u32).to_le_bytes());
                } else {
                    ensure!(
                        addr.0 < 1 << 48 && index < 1 << 16,
                        Format,
                        "global heap ID {:#x}/{index} out of range",
                        addr.0
                    );
                    let word = addr.0 | u64::from(index) << 48;
                    dst.get_mut(..8)
                        .ok_or_else(short)?
                        .copy_from_slice(&word.to_le_bytes());
                }
            }
            (Datatype::Compound(c), Datatype::Compound(m)) => {
                for (fm, mm) in c.members().iter().zip(m.members()) {
                    let (fs, ms) = (
                        disk_size(fm.datatype(), sizes) as usize,
                        mm.datatype().size(),
                    );
                    let s = src.get(fm.offset()..fm.offset() + fs).ok_or_else(short)?;
                    let d = dst
                        .get_mut(mm.offset()..mm.offset() + ms)
                        .ok_or_else(short)?;
                    self.element(fm.datatype(), mm.datatype(), s, d)?;
                }
            }
            (Datatype::Array(a), Datatype::Array(m)) => {
                let (fs, ms) = (disk_size(a.base(), sizes) as usize, m.base().size());
                for (s, d) in src
                    .chunks_exact(fs.max(1))
                    .zip(dst.chunks_exact_mut(ms.max(1)))
                {
                    self.element(a.base(), m.base(), s, d)?;
                }
            }
            _ => {
                let s = src.get(..dst.len()).ok_or_else(short)?;
                dst.copy_from_slice(s);
            }
        }
        Ok(())
    }
}

/// The blocks or points of a region reference's selection.
fn region_of(s: &FormatSelection) -> Region {
    match s {
        FormatSelection::PointsV1 { points, .. } | FormatSelection::PointsV2 { points, .. } => {
            Region::Points(points.clone())
        }
        FormatSelection::HyperslabV1 { blocks, .. }
        | FormatSelection::HyperslabV3Blocks { blocks, .. } => Region::Blocks(
            blocks
                .iter()
                .map(|b| (b.start.clone(), b.end.clone()))
                .collect(),
        ),
        FormatSelection::HyperslabV2 { dims }
        | FormatSelection::HyperslabV3Regular { dims, .. } => {
            let counts: Vec<u64> = dims.iter().map(|d| d.count).collect();
            let total = counts.iter().try_fold(1u64, |a, &c| a.checked_mul(c));
            let Some(total) = total.filter(|&t| t <= MAX_REGION_BLOCKS) else {
                return Region::Other;
            };
            if dims.iter().any(|d| d.block == u64::MAX) {
                return Region::Other;
            }
            // Block `k` in row-major order of the block grid.
            let block = |k: u64| {
                let mut rest = k;
                let mut start = vec![0u64; dims.len()];
                for (s, (d, &c)) in start.iter_mut().zip(dims.iter().zip(&counts)).rev() {
                    *s = d
                        .start
                        .saturating_add((rest % c.max(1)).saturating_mul(d.stride));
                    rest /= c.max(1);
                }
                let end = start
                    .iter()
                    .zip(dims)
                    .map(|(s, d)| s.saturating_add(d.block.saturating_sub(1)))
                    .collect();
                (start, end)
            };
            Region::Blocks((0..total).map(block).collect())
        }
        FormatSelection::All | FormatSelection::None => Region::Other,
    }
}

fn object_type(k: ObjectKind) -> Option<ObjectType> {
    match k {
        ObjectKind::Group => Some(ObjectType::Group),
        ObjectKind::Dataset => Some(ObjectType::Dataset),
        ObjectKind::Datatype => Some(ObjectType::Datatype),
        ObjectKind::Unknown => None,
    }
}

impl<'a> Source<'a> for FileSource {
    fn identity(&self) -> &str {
        &self.identity
    }

    fn root(&self) -> ObjectId {
        self.file.root_address().0
    }

    fn object_type(&self, id: ObjectId) -> Option<ObjectType> {
        object_type(self.file.object(Addr(id)).ok()?.kind())
    }

    fn links(&self, group: ObjectId) -> Result<Vec<Link>> {
        let mut links = Group::at(self.loc(group))?.links()?;
        links.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        Ok(links)
    }

    fn attributes(&self, obj: ObjectId) -> Result<Vec<AttributeInfo>> {
        let sizes = self.file.sizes();
        let mut out = crate::attribute::attributes(&self.loc(obj))?
            .into_iter()
            .map(|a| {
                Ok(AttributeInfo {
                    name: a.name().to_string(),
                    datatype: vlen::memory_type(a.datatype(), sizes)?,
                    space: a.dataspace().clone(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        out.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        Ok(out)
    }

    fn attribute_data(&self, obj: ObjectId, name: &str) -> Result<Vec<u8>> {
        let (raw, dt) = crate::attribute::attribute(&self.loc(obj), name)?.read_raw();
        self.memory(&dt, raw)
    }

    fn dataset(&self, id: ObjectId) -> Result<DatasetInfo> {
        let sizes = self.file.sizes();
        self.with_dataset(id, |d| {
            Ok(DatasetInfo {
                datatype: vlen::memory_type(d.datatype(), sizes)?,
                space: d.dataspace().clone(),
                is_virtual: matches!(d.layout().class, LayoutClass::Virtual { .. }),
                storage_size: d.storage_size()?,
            })
        })
    }

    fn read(&self, id: ObjectId, start: &[u64], count: &[u64]) -> Result<Vec<u8>> {
        let (raw, dt) = self.with_dataset(id, |d| {
            let (sel, n) = if start.is_empty() {
                (Selection::All, 1)
            } else {
                let sel = Selection::hyperslab(d.dataspace(), start, None, count, None)?;
                (sel, count.iter().product())
            };
            Ok((
                d.read_raw_selection(&sel, &MemoryMap::packed(n))?,
                d.datatype().clone(),
            ))
        })?;
        self.memory(&dt, raw)
    }

    fn named_datatype(&self, id: ObjectId) -> Result<Datatype> {
        crate::dataset::datatype_of(self.file.object(Addr(id))?.as_ref())
    }

    fn vlen_data(&self, dt: &Datatype, descriptor: &[u8]) -> Result<Option<Vec<u8>>> {
        let word = |at: usize| -> u64 {
            let mut b = [0u8; 8];
            if let Some(s) = descriptor.get(at..at + 8) {
                b.copy_from_slice(s);
            }
            u64::from_le_bytes(b)
        };
        let first = word(0);
        if first == 0 {
            return Ok(None);
        }
        let Datatype::VarLen(_) = dt else {
            let (addr, index) = (first & ((1 << 48) - 1), (first >> 48) as u32);
            return self.file.global_heap_object(Addr(addr), index).map(Some);
        };
        let rest = word(8);
        let (index, t) = (rest as u32, (rest >> 32) as usize);
        let base = self.types.borrow().get(t).cloned();
        let Some(base) = base else {
            bail!(Format, "unknown variable-length descriptor {t}");
        };
        let bytes = self.file.global_heap_object(Addr(first), index)?;
        let fsize = disk_size(&base, self.file.sizes()) as usize;
        let n = bytes.len().checked_div(fsize).unwrap_or(0);
        let mut bytes = bytes;
        bytes.truncate(n * fsize);
        self.memory(&base, bytes).map(Some)
    }

    fn dereference(&self, dt: &Datatype, reference: &[u8]) -> Result<Option<RefTarget>> {
        let Datatype::Reference(r) = dt else {
            return Ok(None);
        };
        let sizes = self.file.sizes();
        let mut c = Cursor::new(reference, 0, sizes);
        match r.kind() {
            ReferenceKind::Object => {
                let addr = c.read_addr()?;
                Ok(self
                    .file
                    .object(addr)
                    .is_ok()
                    .then_some(RefTarget::Object(addr.0)))
            }
            ReferenceKind::DatasetRegion => {
                let addr = c.read_addr()?;
                let index = c.read_u32()?;
                let Ok(data) = self.file.global_heap_object(addr, index) else {
                    return Ok(None);
                };
                let region = RegionReferenceData::parse(&mut Cursor::new(&data, 0, sizes))?;
                if Dataset::at(self.loc(region.object.0)).is_err() {
                    return Ok(None);
                }
                Ok(Some(RefTarget::Region {
                    dataset: region.object.0,
                    selection: region_of(&region.selection),
                }))
            }
            _ => Ok(None),
        }
    }

    fn open_external(&self, name: &str) -> Option<SourceRef<'a>> {
        let f = self.file.open_prefixed(name, "HDF5_EXT_PREFIX")?;
        Some(FileSource::shared(f))
    }
}
