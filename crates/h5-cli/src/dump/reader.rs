//! The [`DumpFile`] adapter over the real file reader (`h5::io`).
//!
//! What the printer sees is what libhdf5 hands h5dump: datatypes as `H5Dget_type` returns
//! them (located in memory: a variable-length sequence is 16 bytes, a variable-length string
//! 8, references 8 or 12, compound members after them moved accordingly), and data in that
//! type. A variable-length element is a self-describing descriptor of the global heap object
//! that holds it:
//!
//! - a string (8 bytes): the collection address in the low 48 bits and the object index in the
//!   high 16; all zeros is a null string, all ones an empty one;
//! - a sequence (16 bytes): the collection address (8 bytes, zero for a null sequence), the
//!   object index (4), and the index of the base file datatype in this adapter's type table (4),
//!   so [`DumpFile::vlen_data`] can turn the stored elements into the memory form in turn.
//!
//! References keep the file's encoding, widened to 8 (object) and 12 (region) bytes.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;

use h5::format::message::datatype::disk_size;
use h5::format::message::fill_value::{alloc_time, fill_time};
use h5::format::message::fs_info::FileSpaceInfo;
use h5::format::message::layout::LayoutClass;
use h5::format::message::shared::SharedLocation;
use h5::format::message::{Message, MessageType};
use h5::format::object_header::Prefix;
use h5::format::reference::RegionReferenceData;
use h5::format::selection::Selection as FormatSelection;
use h5::format::vds::VirtualMappings;
use h5::format::{Addr, Cursor, Sizes};
use h5::io::group::Location;
use h5::io::selection::{Dataspace, MemoryMap, Selection};
use h5::io::{Dataset, File, Group, ObjectKind};
use h5::types::{ArrayType, CompoundType, Datatype, ReferenceKind, ReferenceType, VarLenType};

use super::model::*;

/// How a file is opened: the driver named by h5dump's `--filedriver` and the VDS view.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpenSettings {
    /// `--filedriver`: `sec2`, `family`, `split`, `multi` (or `None`: try them in turn).
    pub driver: Option<String>,
    /// `--vds-view-first-missing`.
    pub vds_first_missing: bool,
    /// `--vds-gap-size`.
    pub vds_gap: u64,
    /// The onion driver's revision (`--vfd-info N`; `None`: revision 0).
    pub onion_revision: Option<u64>,
    /// `--vfd-info revision_count` with the onion driver.
    pub onion_revision_count: bool,
}

/// The number of revisions of the onion-driver file `name` (its history is `name.onion`).
pub fn onion_revision_count(name: &str) -> Result<u64, String> {
    h5::io::onion::revision_count(name).map_err(msg)
}

/// An HDF5 file opened with the reader, seen through [`DumpFile`].
pub struct ReaderFile {
    file: File,
    /// Base file datatypes of variable-length sequences handed out in descriptors.
    types: RefCell<Vec<Datatype>>,
    datasets: RefCell<HashMap<u64, Dataset>>,
    infos: RefCell<HashMap<u64, DatasetInfo>>,
}

/// How many opened datasets the adapter keeps.
const MAX_OPEN_DATASETS: usize = 64;

fn msg<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Open `name` as h5dump would with these settings.
pub fn open(name: &str, settings: &OpenSettings) -> Result<ReaderFile, String> {
    let mut opts = h5::io::OpenOptions::new().external_links(true);
    opts.vds_first_missing = settings.vds_first_missing;
    opts.vds_gap = settings.vds_gap;
    let path = Path::new(name);
    let file = match settings.driver.as_deref() {
        Some("split") | Some("multi") => {
            // The metadata member: "NAME-m.h5" (split) or "NAME-s.h5" (multi).
            let suffix = if settings.driver.as_deref() == Some("split") {
                "-m.h5"
            } else {
                "-s.h5"
            };
            let member = format!("{}{}", name, suffix);
            File::open_with(&member, opts).map_err(msg)?
        }
        Some("onion") => {
            File::open_onion(path, settings.onion_revision.unwrap_or(0), opts).map_err(msg)?
        }
        _ => crate::input::open(name, opts)?,
    };
    Ok(ReaderFile::new(file))
}

impl ReaderFile {
    /// Wrap an open file.
    pub fn new(file: File) -> Self {
        ReaderFile {
            file,
            types: RefCell::new(Vec::new()),
            datasets: RefCell::new(HashMap::new()),
            infos: RefCell::new(HashMap::new()),
        }
    }

    fn sizes(&self) -> Sizes {
        self.file.sizes()
    }

    /// Decode a revised reference as stored in raw data (`H5T_STD_REF` on disk): the
    /// reference type and flags, then the encoded block inline (an object reference to this
    /// file) or the block's length and the global heap ID of the object holding it.
    fn revised_reference(&self, bytes: &[u8]) -> Option<RefInfo> {
        use h5::format::heap::global::GlobalHeapId;
        use h5::format::reference::{Reference, ReferenceTarget, FLAG_EXTERNAL, TYPE_OBJECT};
        let sizes = self.sizes();
        let mut c = Cursor::new(bytes, 0, sizes);
        let ref_type = c.read_u8().ok()?;
        let flags = c.read_u8().ok()?;
        let r = if ref_type == TYPE_OBJECT && flags & FLAG_EXTERNAL == 0 {
            Reference::parse_block(&mut c, ref_type, flags).ok()?
        } else {
            let _len = c.read_u32().ok()?;
            let id = GlobalHeapId::parse(&mut c).ok()?;
            let data = self.file.global_heap_object(id.collection, id.index).ok()?;
            Reference::parse_block(&mut Cursor::new(&data, 0, sizes), ref_type, flags)
                .or_else(|_| Reference::parse(&mut Cursor::new(&data, 0, sizes)))
                .ok()?
        };
        let object = r.token_address(sizes)?.0;
        let external = r
            .external_file
            .as_ref()
            .map(|f| String::from_utf8_lossy(f).into_owned());
        let (kind, region, attr_name) = match &r.target {
            ReferenceTarget::Object => (RefKind::Object, None, None),
            ReferenceTarget::Region { selection, .. } => {
                (RefKind::Region, Some(region_of(selection)), None)
            }
            ReferenceTarget::Attribute { name } => (
                RefKind::Attribute,
                None,
                Some(String::from_utf8_lossy(name).into_owned()),
            ),
        };
        Some(RefInfo {
            kind,
            external,
            object,
            region,
            attr_name,
        })
    }

    fn loc(&self, id: ObjId) -> Location {
        Location {
            file: self.file.clone(),
            addr: Addr(id),
            path: format!("<object at {:#x}>", id),
        }
    }

    fn dataset_obj(&self, id: ObjId) -> ModelResult<Dataset> {
        if let Some(d) = self.datasets.borrow().get(&id) {
            return Ok(d.clone());
        }
        let d = Dataset::at(self.loc(id)).map_err(msg)?;
        let mut cache = self.datasets.borrow_mut();
        // Opened datasets keep their chunk indexes: bound what stays open.
        if cache.len() >= MAX_OPEN_DATASETS {
            cache.clear();
        }
        cache.insert(id, d.clone());
        Ok(d)
    }

    fn type_index(&self, t: &Datatype) -> u32 {
        let mut types = self.types.borrow_mut();
        if let Some(i) = types.iter().position(|x| x == t) {
            return i as u32;
        }
        types.push(t.clone());
        (types.len() - 1) as u32
    }

    /// The datatype of the memory form of file datatype `dt`.
    fn model_type(&self, dt: &Datatype) -> ModelResult<Datatype> {
        model_type(dt, self.sizes())
    }

    /// `n` elements of file type `dt` (as stored) in their memory form.
    fn to_model(&self, dt: &Datatype, raw: &[u8]) -> ModelResult<Vec<u8>> {
        let sizes = self.sizes();
        let fsize = disk_size(dt, sizes) as usize;
        if fsize == 0 {
            return Ok(Vec::new());
        }
        let mdt = self.model_type(dt)?;
        if !needs_conversion(dt, sizes) {
            return Ok(raw.to_vec());
        }
        let msize = mdt.size();
        let n = raw.len() / fsize;
        let mut out = vec![0u8; n * msize];
        for i in 0..n {
            self.element(
                dt,
                &raw[i * fsize..(i + 1) * fsize],
                &mdt,
                &mut out[i * msize..(i + 1) * msize],
            )?;
        }
        Ok(out)
    }

    fn element(
        &self,
        fdt: &Datatype,
        src: &[u8],
        mdt: &Datatype,
        dst: &mut [u8],
    ) -> ModelResult<()> {
        let sizes = self.sizes();
        match (fdt, mdt) {
            (Datatype::String(s), _) if s.is_variable() => {
                let (len, addr, index) = vlen_id(src, sizes)?;
                let d: u64 = if addr == 0 {
                    0
                } else if len == 0 {
                    u64::MAX
                } else {
                    if addr >= 1 << 48 || index > 0xffff {
                        return Err(format!(
                            "variable-length string at {:#x} out of range",
                            addr
                        ));
                    }
                    addr | (u64::from(index) << 48)
                };
                put(dst, 0, &d.to_le_bytes())
            }
            (Datatype::VarLen(v), _) => {
                let (_len, addr, index) = vlen_id(src, sizes)?;
                let t = self.type_index(v.base());
                put(dst, 0, &addr.to_le_bytes())?;
                put(dst, 8, &index.to_le_bytes())?;
                put(dst, 12, &t.to_le_bytes())
            }
            (Datatype::Reference(r), _) => match r.kind() {
                ReferenceKind::Object | ReferenceKind::DatasetRegion => {
                    let o = sizes.offset as usize;
                    let mut c = Cursor::new(src, 0, sizes);
                    let a = c.read_addr().map_err(msg)?;
                    let a = if a.is_undef() { 0 } else { a.0 };
                    put(dst, 0, &a.to_le_bytes())?;
                    if r.kind() == ReferenceKind::DatasetRegion {
                        put(dst, 8, src.get(o..o + 4).unwrap_or(&[0; 4]))?;
                    }
                    Ok(())
                }
                _ => {
                    let n = dst.len().min(src.len());
                    dst[..n].copy_from_slice(&src[..n]);
                    Ok(())
                }
            },
            (Datatype::Compound(fc), Datatype::Compound(mc)) => {
                for (fm, mm) in fc.members().iter().zip(mc.members()) {
                    let fs = disk_size(fm.datatype(), sizes) as usize;
                    let ms = mm.datatype().size();
                    let s = src
                        .get(fm.offset()..fm.offset() + fs)
                        .ok_or("compound member past its element")?;
                    let d = dst
                        .get_mut(mm.offset()..mm.offset() + ms)
                        .ok_or("compound member past its element")?;
                    self.element(fm.datatype(), s, mm.datatype(), d)?;
                }
                Ok(())
            }
            (Datatype::Array(fa), Datatype::Array(ma)) => {
                let fs = disk_size(fa.base(), sizes) as usize;
                let ms = ma.base().size();
                for i in 0..fa.len() as usize {
                    let s = src.get(i * fs..(i + 1) * fs).ok_or("array element")?;
                    let d = dst.get_mut(i * ms..(i + 1) * ms).ok_or("array element")?;
                    self.element(fa.base(), s, ma.base(), d)?;
                }
                Ok(())
            }
            _ => {
                let n = dst.len().min(src.len());
                dst[..n].copy_from_slice(&src[..n]);
                Ok(())
            }
        }
    }

    /// The committed datatype address of a datatype message stored shared in `obj`.
    fn committed_type(&self, id: ObjId) -> Option<ObjId> {
        let obj = self.file.object(Addr(id)).ok()?;
        let raw = obj
            .header
            .messages()
            .find(|m| m.kind == MessageType::DATATYPE)?;
        match raw.decode(self.sizes()).ok()? {
            Message::Shared { shared, .. } => match shared.location {
                SharedLocation::Committed(a) => Some(a.0),
                SharedLocation::Heap(_) => None,
            },
            _ => None,
        }
    }

    fn fill_info(&self, d: &Dataset, mdt: &Datatype) -> ModelResult<FillInfo> {
        let obj = d.object();
        let layout_default = match &d.layout().class {
            LayoutClass::Compact { .. } => 1,
            LayoutClass::Contiguous { .. } => 2,
            _ => 3,
        };
        let convert = |v: &[u8]| -> ModelResult<Option<Option<Vec<u8>>>> {
            if v.is_empty() {
                return Ok(Some(None));
            }
            let b = self.to_model(d.datatype(), v)?;
            if b.len() < mdt.size() {
                return Ok(Some(None));
            }
            Ok(Some(Some(b)))
        };
        if let Ok(Some(Message::FillValue(f))) = obj.message(MessageType::FILL_VALUE) {
            let value = if f.version < 3 {
                if f.defined {
                    convert(f.value.as_deref().unwrap_or(&[]))?
                } else {
                    None
                }
            } else if !f.defined {
                None
            } else {
                convert(f.value.as_deref().unwrap_or(&[]))?
            };
            let at = match f.alloc_time {
                alloc_time::EARLY | alloc_time::LATE | alloc_time::INCREMENTAL => f.alloc_time,
                _ => layout_default,
            };
            let ft = match f.fill_time {
                fill_time::ON_ALLOC | fill_time::NEVER | fill_time::IF_SET => f.fill_time,
                _ => fill_time::IF_SET,
            };
            return Ok(FillInfo {
                alloc_time: at,
                fill_time: ft,
                value,
            });
        }
        if let Ok(Some(Message::FillValueOld(f))) = obj.message(MessageType::FILL_VALUE_OLD) {
            let value = if f.value.is_empty() {
                None
            } else {
                convert(&f.value)?
            };
            return Ok(FillInfo {
                alloc_time: 2,
                fill_time: 2,
                value,
            });
        }
        Ok(FillInfo {
            alloc_time: layout_default,
            fill_time: 2,
            value: None,
        })
    }

    fn dataset_info(&self, id: ObjId) -> ModelResult<DatasetInfo> {
        let d = self.dataset_obj(id)?;
        let mdt = self.model_type(d.datatype())?;
        let external = self.external(&d)?;
        let layout = match &d.layout().class {
            LayoutClass::Compact { .. } => Layout::Compact,
            LayoutClass::Contiguous { address, .. } => Layout::Contiguous {
                offset: if external.is_empty() {
                    address.get()
                } else {
                    None
                },
            },
            LayoutClass::Chunked { .. } => Layout::Chunked {
                dims: d.chunk_dims().unwrap_or_default(),
            },
            LayoutClass::Virtual {
                heap_address,
                heap_index,
            } => Layout::Virtual {
                mappings: self.vds_mappings(*heap_address, *heap_index)?,
            },
        };
        let filters = d
            .filters()
            .iter()
            .map(|f| Filter {
                id: f.id.0,
                name: f
                    .name_text()
                    .or_else(|| filter_name(f.id.0).map(str::to_string)),
                cd_values: f.client_data.clone(),
                optional: f.flags & 1 != 0,
            })
            .collect();
        let fill = self.fill_info(&d, &mdt)?;
        let storage_size = d.storage_size().map_err(msg)?;
        Ok(DatasetInfo {
            datatype: TypeRef {
                datatype: mdt,
                committed: self.committed_type(id),
            },
            space: space_of(d.dataspace()),
            layout,
            filters,
            fill,
            storage_size,
            external,
        })
    }

    fn vds_mappings(&self, heap: Addr, index: u32) -> ModelResult<Vec<VirtualMapping>> {
        let bytes = self.file.global_heap_object(heap, index).map_err(msg)?;
        let maps =
            VirtualMappings::parse(&mut Cursor::new(&bytes, 0, self.sizes())).map_err(msg)?;
        Ok(maps
            .entries
            .iter()
            .map(|m| VirtualMapping {
                virtual_selection: vds_selection(&m.virtual_selection),
                file: String::from_utf8_lossy(&m.source_file).into_owned(),
                dataset: String::from_utf8_lossy(&m.source_dataset).into_owned(),
                source_selection: vds_selection(&m.source_selection),
            })
            .collect())
    }

    fn external(&self, d: &Dataset) -> ModelResult<Vec<ExternalFile>> {
        let Some(ext) = d.external_files() else {
            return Ok(Vec::new());
        };
        let raw = self.file.raw();
        let hb = raw
            .read(
                ext.heap_address,
                h5::format::heap::local::LocalHeap::encoded_size(raw.sizes()) as u64,
            )
            .map_err(msg)?;
        let lh = h5::format::heap::local::LocalHeap::parse(&mut raw.cursor(&hb, ext.heap_address))
            .map_err(msg)?;
        let seg = raw
            .read(lh.data_segment, lh.data_segment_size)
            .map_err(msg)?;
        let segc = raw.cursor(&seg, lh.data_segment);
        let mut out = Vec::new();
        for s in &ext.slots {
            let name = h5::format::heap::local::string_at(&segc, s.name_offset).map_err(msg)?;
            out.push(ExternalFile {
                name: String::from_utf8_lossy(name).into_owned(),
                offset: s.file_offset,
                size: s.size,
            });
        }
        Ok(out)
    }
}

fn put(dst: &mut [u8], at: usize, b: &[u8]) -> ModelResult<()> {
    dst.get_mut(at..at + b.len())
        .ok_or_else(|| "element too short".to_string())?
        .copy_from_slice(b);
    Ok(())
}

/// (length, collection address, object index) of a stored variable-length element.
fn vlen_id(src: &[u8], sizes: Sizes) -> ModelResult<(u32, u64, u32)> {
    let mut c = Cursor::new(src, 0, sizes);
    let len = c.read_u32().map_err(msg)?;
    let a = c.read_addr().map_err(msg)?;
    let index = c.read_u32().map_err(msg)?;
    let a = if a.is_undef() { 0 } else { a.0 };
    Ok((len, a, index))
}

/// Whether the memory form of `dt` differs from its stored form.
fn needs_conversion(dt: &Datatype, sizes: Sizes) -> bool {
    match dt {
        Datatype::String(s) => s.is_variable(),
        Datatype::VarLen(_) => true,
        Datatype::Reference(r) => {
            sizes.offset != 8
                && matches!(
                    r.kind(),
                    ReferenceKind::Object | ReferenceKind::DatasetRegion
                )
        }
        Datatype::Compound(c) => c
            .members()
            .iter()
            .any(|m| needs_conversion(m.datatype(), sizes)),
        Datatype::Array(a) => needs_conversion(a.base(), sizes),
        _ => false,
    }
}

/// The memory form of file datatype `dt` (`H5T_set_loc(.., H5T_LOC_MEMORY)`).
pub fn model_type(dt: &Datatype, sizes: Sizes) -> ModelResult<Datatype> {
    if !needs_conversion(dt, sizes) {
        return Ok(dt.clone());
    }
    Ok(match dt {
        Datatype::VarLen(v) => VarLenType::new(model_type(v.base(), sizes)?).into(),
        Datatype::Array(a) => ArrayType::new(model_type(a.base(), sizes)?, a.dims())
            .map_err(msg)?
            .into(),
        Datatype::Reference(r) => match r.kind() {
            ReferenceKind::Object => ReferenceType::new(ReferenceKind::Object).into(),
            _ => ReferenceType::new(ReferenceKind::DatasetRegion).into(),
        },
        Datatype::Compound(c) => {
            let mut order: Vec<usize> = (0..c.len()).collect();
            order.sort_by_key(|&i| c.members()[i].offset());
            let mut offsets = vec![0usize; c.len()];
            let mut types = vec![None; c.len()];
            let mut accum: i64 = 0;
            for &i in &order {
                let m = &c.members()[i];
                let old = disk_size(m.datatype(), sizes) as i64;
                let t = model_type(m.datatype(), sizes)?;
                let new = t.size() as i64;
                offsets[i] = (m.offset() as i64 + accum).max(0) as usize;
                accum += new - old;
                types[i] = Some(t);
            }
            let size = (c.size() as i64 + accum).max(1) as usize;
            let mut out = CompoundType::new(size).map_err(msg)?;
            for (i, m) in c.members().iter().enumerate() {
                let t = types[i].take().ok_or("compound member")?;
                out.insert(m.name(), offsets[i], t).map_err(msg)?;
            }
            out.into()
        }
        other => other.clone(),
    })
}

fn vds_selection(s: &FormatSelection) -> VdsSelection {
    match s {
        FormatSelection::None => VdsSelection::None,
        FormatSelection::All => VdsSelection::All,
        FormatSelection::PointsV1 { points, .. } | FormatSelection::PointsV2 { points, .. } => {
            VdsSelection::Points(points.clone())
        }
        FormatSelection::HyperslabV1 { blocks, .. }
        | FormatSelection::HyperslabV3Blocks { blocks, .. } => {
            if let [b] = blocks.as_slice() {
                VdsSelection::Regular {
                    start: b.start.clone(),
                    stride: vec![1; b.start.len()],
                    count: vec![1; b.start.len()],
                    block: b
                        .start
                        .iter()
                        .zip(&b.end)
                        .map(|(s, e)| e.saturating_sub(*s).saturating_add(1))
                        .collect(),
                }
            } else {
                VdsSelection::Blocks(
                    blocks
                        .iter()
                        .map(|b| (b.start.clone(), b.end.clone()))
                        .collect(),
                )
            }
        }
        FormatSelection::HyperslabV2 { dims }
        | FormatSelection::HyperslabV3Regular { dims, .. } => VdsSelection::Regular {
            start: dims.iter().map(|d| d.start).collect(),
            stride: dims.iter().map(|d| d.stride).collect(),
            count: dims.iter().map(|d| d.count).collect(),
            block: dims.iter().map(|d| d.block).collect(),
        },
    }
}

/// A region reference's selection as blocks or points.
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
        | FormatSelection::HyperslabV3Regular { dims, .. }
            if dims
                .iter()
                .any(|d| d.count == u64::MAX || d.block == u64::MAX) =>
        {
            Region::Unlimited
        }
        FormatSelection::HyperslabV2 { dims }
        | FormatSelection::HyperslabV3Regular { dims, .. } => {
            let mut out = Vec::new();
            let counts: Vec<u64> = dims.iter().map(|d| d.count.min(1 << 20)).collect();
            let total: u64 = counts.iter().product();
            let mut idx = vec![0u64; dims.len()];
            for _ in 0..total.min(1 << 20) {
                let start: Vec<u64> = dims
                    .iter()
                    .zip(&idx)
                    .map(|(d, &i)| d.start + i * d.stride)
                    .collect();
                let end: Vec<u64> = start
                    .iter()
                    .zip(dims)
                    .map(|(s, d)| s + d.block.saturating_sub(1))
                    .collect();
                out.push((start, end));
                for k in (0..idx.len()).rev() {
                    idx[k] += 1;
                    if idx[k] < counts[k] {
                        break;
                    }
                    idx[k] = 0;
                }
            }
            Region::Blocks(out)
        }
        FormatSelection::All => Region::All,
        FormatSelection::None => Region::None,
    }
}

fn space_of(s: &Dataspace) -> Space {
    match s {
        Dataspace::Null => Space::Null,
        Dataspace::Scalar => Space::Scalar,
        _ => Space::Simple {
            dims: s.dims().to_vec(),
            maxdims: s.maxdims().to_vec(),
        },
    }
}

fn filter_name(id: u16) -> Option<&'static str> {
    Some(match id {
        1 => "deflate",
        2 => "shuffle",
        3 => "fletcher32",
        4 => "szip",
        5 => "nbit",
        6 => "scaleoffset",
        _ => return None,
    })
}

impl DumpFile for ReaderFile {
    fn root(&self) -> ObjId {
        self.file.root_address().0
    }

    fn object_info(&self, id: ObjId) -> ModelResult<ObjInfo> {
        let obj = self.file.object(Addr(id)).map_err(msg)?;
        let kind = match obj.kind() {
            ObjectKind::Group => ObjKind::Group,
            ObjectKind::Dataset => ObjKind::Dataset,
            ObjectKind::Datatype => ObjKind::NamedDatatype,
            ObjectKind::Unknown => return Err(format!("object at {:#x} of unknown kind", id)),
        };
        let (refcount, attrs_tracked) = match &obj.header.prefix {
            Prefix::V1 { refcount, .. } => (*refcount, false),
            Prefix::V2 { flags, .. } => {
                let rc = match obj.message(MessageType::REFCOUNT) {
                    Ok(Some(Message::RefCount(r))) => r.count,
                    _ => 1,
                };
                (rc, flags & 0x04 != 0)
            }
        };
        if kind == ObjKind::Dataset {
            // Opening an object opens a dataset fully (`H5Oopen` -> `H5D_open`).
            self.dataset_obj(id)?;
        }
        if kind == ObjKind::NamedDatatype {
            h5::io::dataset::datatype_of(&obj).map_err(msg)?;
        }
        let comment = match obj.message(MessageType::COMMENT) {
            Ok(Some(Message::Comment(c))) => {
                let b = &c.comment;
                let n = b.iter().position(|&x| x == 0).unwrap_or(b.len());
                Some(String::from_utf8_lossy(&b[..n]).into_owned())
            }
            _ => None,
        };
        let links_tracked = match obj.message(MessageType::LINK_INFO) {
            Ok(Some(Message::LinkInfo(li))) => li.max_creation_index.is_some(),
            _ => false,
        };
        // `H5O_get_info`: a version 2 header's modification time; a version 1 header has
        // none (its modification time message is reported as the change time).
        let mtime = match &obj.header.prefix {
            Prefix::V2 { times, .. } => times.map_or(0, |t| u64::from(t.modification)),
            Prefix::V1 { .. } => 0,
        };
        Ok(ObjInfo {
            kind,
            addr: id,
            refcount,
            comment,
            links_order_tracked: links_tracked,
            attrs_order_tracked: attrs_tracked,
            mtime,
        })
    }

    fn object_kind(&self, id: ObjId) -> ModelResult<ObjKind> {
        let obj = self.file.object(Addr(id)).map_err(msg)?;
        match obj.kind() {
            ObjectKind::Group => Ok(ObjKind::Group),
            ObjectKind::Dataset => Ok(ObjKind::Dataset),
            ObjectKind::Datatype => Ok(ObjKind::NamedDatatype),
            ObjectKind::Unknown => Err(format!("object at {:#x} of unknown kind", id)),
        }
    }

    fn links(&self, group: ObjId, order: IndexOrder) -> ModelResult<Vec<Link>> {
        let g = Group::at(self.loc(group)).map_err(msg)?;
        let links = match order {
            IndexOrder::Name => g.links(),
            IndexOrder::Creation => g.links_by_creation_order().or_else(|_| g.links()),
        }
        .map_err(msg)?;
        Ok(links
            .into_iter()
            .map(|l| Link {
                name: l.name,
                target: match l.target {
                    h5::io::LinkTarget::Hard(a) => LinkTarget::Hard(a.0),
                    h5::io::LinkTarget::Soft(s) => LinkTarget::Soft(s),
                    h5::io::LinkTarget::External { file, path } => {
                        LinkTarget::External { file, path }
                    }
                    h5::io::LinkTarget::UserDefined { link_type, .. } => {
                        LinkTarget::UserDefined(link_type)
                    }
                },
            })
            .collect())
    }

    fn attributes(&self, obj: ObjId, order: IndexOrder) -> ModelResult<Vec<AttrInfo>> {
        let loc = self.loc(obj);
        let attrs = match order {
            IndexOrder::Name => h5::io::attribute::attributes(&loc),
            IndexOrder::Creation => h5::io::attribute::attributes_by_creation_order(&loc)
                .or_else(|_| h5::io::attribute::attributes(&loc)),
        }
        .map_err(msg)?;
        attrs
            .iter()
            .map(|a| {
                Ok(AttrInfo {
                    name: a.name().to_string(),
                    datatype: TypeRef {
                        datatype: self.model_type(a.datatype())?,
                        committed: a.committed_type().map(|x| x.0),
                    },
                    space: space_of(a.dataspace()),
                })
            })
            .collect()
    }

    fn attribute_data(&self, obj: ObjId, name: &str) -> ModelResult<Vec<u8>> {
        let a = h5::io::attribute::attribute(&self.loc(obj), name).map_err(msg)?;
        let (raw, dt) = a.read_raw();
        self.to_model(&dt, &raw)
    }

    fn dataset(&self, id: ObjId) -> ModelResult<DatasetInfo> {
        if let Some(i) = self.infos.borrow().get(&id) {
            return Ok(i.clone());
        }
        let info = self.dataset_info(id)?;
        self.infos.borrow_mut().insert(id, info.clone());
        Ok(info)
    }

    fn chunk_index(&self, id: ObjId) -> ModelResult<Option<super::model::ChunkIndex>> {
        let d = self.dataset_obj(id)?;
        let LayoutClass::Chunked { address, .. } = &d.layout().class else {
            return Ok(None);
        };
        let chunks = d
            .chunks()
            .map_err(msg)?
            .into_iter()
            .map(|c| super::model::ChunkEntry {
                filter_mask: c.location.filter_mask,
                size: c.location.size,
                address: c.location.addr.0,
                offset: c.offset,
            })
            .collect();
        Ok(Some(super::model::ChunkIndex {
            address: address.0,
            chunks,
        }))
    }

    fn read(&self, id: ObjId, start: &[u64], count: &[u64]) -> ModelResult<Vec<u8>> {
        let d = self.dataset_obj(id)?;
        let space = d.dataspace();
        let (sel, n) = if start.is_empty() || matches!(space, Dataspace::Scalar | Dataspace::Null) {
            (Selection::All, space.npoints())
        } else {
            let sel = Selection::hyperslab(space, start, None, count, None).map_err(msg)?;
            (sel, count.iter().product())
        };
        let raw = d
            .read_raw_selection(&sel, &MemoryMap::packed(n))
            .map_err(msg)?;
        self.to_model(d.datatype(), &raw)
    }

    fn named_datatype(&self, id: ObjId) -> ModelResult<Datatype> {
        let obj = self.file.object(Addr(id)).map_err(msg)?;
        let dt = h5::io::dataset::datatype_of(&obj).map_err(msg)?;
        self.model_type(&dt)
    }

    fn vlen_data(&self, descriptor: &[u8]) -> ModelResult<Option<Vec<u8>>> {
        let word = |at: usize| -> u64 {
            let mut b = [0u8; 8];
            if let Some(s) = descriptor.get(at..at + 8) {
                b.copy_from_slice(s);
            }
            u64::from_le_bytes(b)
        };
        if descriptor.len() == 8 {
            let d = word(0);
            if d == 0 {
                return Ok(None);
            }
            if d == u64::MAX {
                return Ok(Some(Vec::new()));
            }
            let addr = d & ((1 << 48) - 1);
            let index = (d >> 48) as u32;
            return self
                .file
                .global_heap_object(Addr(addr), index)
                .map(Some)
                .map_err(msg);
        }
        let addr = word(0);
        if addr == 0 {
            return Ok(None);
        }
        let w2 = word(8);
        let index = w2 as u32;
        let t = (w2 >> 32) as usize;
        let base = self
            .types
            .borrow()
            .get(t)
            .cloned()
            .ok_or("unknown variable-length descriptor")?;
        let bytes = self
            .file
            .global_heap_object(Addr(addr), index)
            .map_err(msg)?;
        let fsize = disk_size(&base, self.sizes()) as usize;
        let n = bytes.len().checked_div(fsize).unwrap_or(0);
        self.to_model(&base, &bytes[..n * fsize]).map(Some)
    }

    fn dereference(&self, reference: &[u8]) -> ModelResult<Option<RefTarget>> {
        let mut a = [0u8; 8];
        let n = reference.len().min(8);
        a[..n].copy_from_slice(&reference[..n]);
        let addr = u64::from_le_bytes(a);
        if reference.len() == 8 {
            return Ok(match self.object_info(addr) {
                Ok(_) => Some(RefTarget::Object(addr)),
                Err(_) => None,
            });
        }
        if reference.len() != 12 {
            return Ok(None);
        }
        let mut ib = [0u8; 4];
        ib.copy_from_slice(&reference[8..12]);
        let index = u32::from_le_bytes(ib);
        let Ok(data) = self.file.global_heap_object(Addr(addr), index) else {
            return Ok(None);
        };
        let r =
            RegionReferenceData::parse(&mut Cursor::new(&data, 0, self.sizes())).map_err(msg)?;
        let ds = r.object.0;
        if self.dataset_obj(ds).is_err() {
            return Ok(None);
        }
        Ok(Some(RefTarget::Region {
            dataset: ds,
            selection: region_of(&r.selection),
        }))
    }

    fn reference_info(&self, dt: &Datatype, reference: &[u8]) -> ModelResult<Option<RefInfo>> {
        let kind = match dt {
            Datatype::Reference(r) => r.kind(),
            _ => return Ok(None),
        };
        let sizes = self.sizes();
        match kind {
            ReferenceKind::Object => {
                let mut a = [0u8; 8];
                let n = reference.len().min(8);
                a[..n].copy_from_slice(&reference[..n]);
                Ok(Some(RefInfo {
                    kind: RefKind::Object,
                    external: None,
                    object: u64::from_le_bytes(a),
                    region: None,
                    attr_name: None,
                }))
            }
            ReferenceKind::DatasetRegion => {
                let (Some(a), Some(i)) = (reference.get(..8), reference.get(8..12)) else {
                    return Ok(None);
                };
                let mut ab = [0u8; 8];
                ab.copy_from_slice(a);
                let mut ib = [0u8; 4];
                ib.copy_from_slice(i);
                let Ok(data) = self
                    .file
                    .global_heap_object(Addr(u64::from_le_bytes(ab)), u32::from_le_bytes(ib))
                else {
                    return Ok(None);
                };
                let Ok(r) = RegionReferenceData::parse(&mut Cursor::new(&data, 0, sizes)) else {
                    return Ok(None);
                };
                Ok(Some(RefInfo {
                    kind: RefKind::Region,
                    external: None,
                    object: r.object.0,
                    region: Some(region_of(&r.selection)),
                    attr_name: None,
                }))
            }
            _ => Ok(self.revised_reference(reference)),
        }
    }

    fn superblock(&self) -> ModelResult<SuperblockInfo> {
        let sb = self.file.superblock();
        let ext = self.file.superblock_extension();
        let (mut ik, mut lk, mut isk) = (16u32, 4u32, 32u32);
        if let Some(v0) = &sb.v0 {
            ik = u32::from(v0.group_internal_node_k);
            lk = u32::from(v0.group_leaf_node_k);
            if let Some(k) = v0.indexed_storage_internal_node_k {
                isk = u32::from(k);
            }
        }
        if let Some(k) = ext.and_then(|e| e.btree_k.as_ref()) {
            ik = u32::from(k.group_internal_k);
            lk = u32::from(k.group_leaf_k);
            isk = u32::from(k.indexed_storage_internal_k);
        }
        let (mut strategy, mut persist, mut threshold, mut page) = (0u8, false, 1u64, 4096u64);
        match ext.and_then(|e| e.file_space_info.as_ref()) {
            Some(FileSpaceInfo::V1 {
                strategy: s,
                persist: p,
                threshold: t,
                page_size,
                ..
            }) => {
                strategy = *s;
                persist = *p;
                threshold = *t;
                page = *page_size;
            }
            Some(FileSpaceInfo::V0 {
                strategy: s,
                threshold: t,
                ..
            }) => {
                (strategy, persist) = match s {
                    1 => (0, true),
                    2 => (0, false),
                    3 => (2, false),
                    _ => (3, false),
                };
                threshold = *t;
            }
            None => {}
        }
        Ok(SuperblockInfo {
            super_version: u32::from(sb.version),
            freelist_version: 0,
            symboltable_version: 0,
            objectheader_version: 0,
            offset_size: u32::from(sb.sizes.offset),
            length_size: u32::from(sb.sizes.length),
            btree_rank: ik,
            btree_leaf: lk,
            istore_k: isk,
            fs_strategy: match strategy {
                0 => "H5F_FSPACE_STRATEGY_FSM_AGGR",
                1 => "H5F_FSPACE_STRATEGY_PAGE",
                2 => "H5F_FSPACE_STRATEGY_AGGR",
                _ => "H5F_FSPACE_STRATEGY_NONE",
            }
            .into(),
            fs_persist: persist,
            fs_threshold: threshold,
            fs_page_size: page,
            userblock_size: self.file.raw().base(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use h5::types::{ByteOrder, CharSet, IntegerType, Sign, StrPad, StringType};

    fn fixture(name: &str) -> Option<ReaderFile> {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../h5-io/tests/fixtures/h5py")
            .join(name);
        open(p.to_str()?, &OpenSettings::default()).ok()
    }

    fn child(f: &ReaderFile, name: &str) -> ObjId {
        let l = f.links(f.root(), IndexOrder::Name).unwrap();
        match l.into_iter().find(|l| l.name == name).unwrap().target {
            LinkTarget::Hard(id) => id,
            other => panic!("{name} is {other:?}"),
        }
    }

    #[test]
    fn memory_form_of_compounds_with_variable_length_members() {
        let i4: Datatype =
            IntegerType::new(4, ByteOrder::LittleEndian, Sign::TwosComplement).into();
        let vs: Datatype = StringType::variable(StrPad::NullTerm, CharSet::Ascii).into();
        // On disk: a (4) | s (16) | b (4); in memory the string is a pointer of 8 bytes.
        let mut c = CompoundType::new(24).unwrap();
        c.insert("a", 0, i4.clone()).unwrap();
        c.insert("s", 4, vs).unwrap();
        c.insert("b", 20, i4).unwrap();
        let m = model_type(&c.into(), Sizes::DEFAULT).unwrap();
        let m = m.as_compound().unwrap();
        assert_eq!(m.size(), 16);
        let offs: Vec<usize> = m.members().iter().map(|x| x.offset()).collect();
        assert_eq!(offs, [0, 4, 12]);
    }

    #[test]
    fn variable_length_strings_and_sequences_through_descriptors() {
        let Some(f) = fixture("attributes_types.h5") else {
            return;
        };
        let root = f.root();
        let attrs = f.attributes(root, IndexOrder::Name).unwrap();
        let a = attrs.iter().find(|a| a.name == "vlen_strings").unwrap();
        assert_eq!(a.datatype.datatype.size(), 8);
        let data = f.attribute_data(root, "vlen_strings").unwrap();
        assert_eq!(data.len(), 3 * 8);
        let strings: Vec<Vec<u8>> = data
            .chunks(8)
            .map(|d| f.vlen_data(d).unwrap().unwrap())
            .collect();
        assert_eq!(strings, [b"a".to_vec(), b"bb".to_vec(), b"ccc".to_vec()]);

        let Some(f) = fixture("datatypes.h5") else {
            return;
        };
        let id = child(&f, "vlen_int");
        let info = f.dataset(id).unwrap();
        let n = info.space.npoints() as usize;
        let data = f
            .read(id, &vec![0; info.space.dims().len()], info.space.dims())
            .unwrap();
        assert_eq!(data.len(), n * 16);
        let first = f.vlen_data(&data[..16]).unwrap().unwrap();
        assert!(!first.is_empty() && first.len() % 4 == 0);
    }

    #[test]
    fn references_resolve_to_objects_and_regions() {
        let Some(f) = fixture("datatypes.h5") else {
            return;
        };
        let target = child(&f, "ref_target");
        let id = child(&f, "object_refs");
        let info = f.dataset(id).unwrap();
        let data = f.read(id, &[0], &info.space.dims()[..1]).unwrap();
        let t = f.dereference(&data[..8]).unwrap();
        assert!(matches!(t, Some(RefTarget::Object(_))));
        let id = child(&f, "region_refs");
        let info = f.dataset(id).unwrap();
        let data = f.read(id, &[0], &info.space.dims()[..1]).unwrap();
        match f.dereference(&data[..12]).unwrap() {
            Some(RefTarget::Region { dataset, .. }) => assert_eq!(dataset, target),
            other => panic!("{other:?}"),
        }
    }
}
