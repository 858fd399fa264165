//! A writer of netCDF-4 files laid out as netcdf-c lays them out (`libhdf5/nc4hdf.c`), so that
//! `ncdump` and netCDF4-python read them exactly as a file netcdf-c wrote.
//!
//! As in netcdf-c, a file is first defined (groups, dimensions, variables, attributes), then
//! written: [`NcWriter::enddef`] (implied by the first data write or by
//! [`NcWriter::close`]) creates the HDF5 objects, after which attributes may still be added
//! and data written.
//!
//! The layout, as netcdf-c's:
//!
//! * every group tracks and indexes the creation order of its links and attributes (the
//!   order netcdf-c reads variables and attributes in), every dataset that of its
//!   attributes; the root has `_NCProperties`;
//! * a dimension with a coordinate variable (a one-dimensional variable of the dimension's
//!   name over it) is that variable's dataset (netcdf-c also makes a multidimensional
//!   variable whose first dimension has its name a scale; here it is a `_nc4_non_coord_`
//!   variable, which reads the same); any other is a dataset of the dimension's
//!   name, big-endian `float`, unallocated, whose `NAME` is "This is a netCDF dimension but
//!   not a netCDF variable" and the length in ten places (an unlimited one chunked by 1 and
//!   of length 0, never extended: readers take the longest variable); a variable with a
//!   dimension's name that is not its coordinate variable is stored as `_nc4_non_coord_NAME`;
//! * scales carry `CLASS`, `NAME`, `_Netcdf4Dimid` and the `REFERENCE_LIST` of the variables
//!   attached; variables their `DIMENSION_LIST` and `_Netcdf4Coordinates` (dimension ids);
//! * a variable is contiguous unless it has an unlimited dimension, filters or chunk sizes;
//!   default chunk sizes are netcdf-c's (`nc4_find_default_chunksizes2`, with its default
//!   chunk size of 16 MiB, and 4 KiB for a one-dimensional record variable); shuffle comes
//!   before deflate;
//! * the HDF5 fill value is the `_FillValue` attribute or the type's default fill value, with
//!   fill time "if set"; without fill (`def_var_fill(.., None)`) the fill time is "never";
//! * `char` attributes are fixed-length null-terminated ASCII strings of exactly the text's
//!   length (one NUL for the empty text), scalar; other attributes one-dimensional arrays of
//!   the little-endian type, `string` ones variable-length UTF-8.
//!
//! Deliberate differences from netcdf-c's files: the superblock is version 3 (netcdf-c writes
//! 2; `ncdump -s` shows `_SuperblockVersion`), and `_NCProperties` names this crate. Not
//! written: user-defined types, quantization, filters other than shuffle and deflate,
//! fletcher32, endianness other than little.

use h5_io::filter::Filter;
use h5_io::selection::{Dataspace, Selection, UNLIMITED};
use h5_io::write::{
    CreationOrder, DatasetSpec, FileFormat, FileWriter, FillTime, GroupOptions, ObjId, StorageSpec,
};
use h5_types::convert::VarLenHeap;
use h5_types::h5type::{encode_slice, ObjectRef, VarLenArray};
use h5_types::{ByteOrder, CharSet, Datatype, FloatType, StrPad, StringType};

use crate::convert::{convert, Numeric, Rules, Src};
use crate::error::{Error, ErrorKind, Result};
use crate::model::{NON_COORD_PREFIX, NOT_A_VARIABLE};
use crate::types::{NcType, NcValue};

/// netcdf-c's default chunk size (`DEFAULT_CHUNK_SIZE`), in bytes.
const DEFAULT_CHUNK_SIZE: f64 = 16_777_216.0;
/// netcdf-c's chunk size for a one-dimensional record variable (`DEFAULT_1D_UNLIM_SIZE`).
const DEFAULT_1D_UNLIM_SIZE: u64 = 4096;

/// A group of a file being written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupId(usize);

/// A dimension of a file being written (its index is its netCDF dimension id).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DimId(usize);

/// A variable of a file being written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VarId(usize);

/// What an attribute belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// A group (the root's are the global attributes).
    Group(GroupId),
    /// A variable.
    Var(VarId),
}

#[derive(Debug)]
struct WGroup {
    name: String,
    parent: Option<usize>,
    children: Vec<usize>,
    dims: Vec<usize>,
    vars: Vec<usize>,
    attrs: Vec<(String, NcValue)>,
    id: Option<ObjId>,
}

#[derive(Debug)]
struct WDim {
    name: String,
    group: usize,
    /// `None`: unlimited.
    len: Option<u64>,
    coord: Option<usize>,
    /// The dimension-only scale dataset.
    id: Option<ObjId>,
}

#[derive(Debug)]
struct WVar {
    name: String,
    group: usize,
    ty: NcType,
    dims: Vec<usize>,
    attrs: Vec<(String, NcValue)>,
    chunks: Option<Vec<u64>>,
    contiguous: bool,
    shuffle: bool,
    deflate: Option<u32>,
    no_fill: bool,
    id: Option<ObjId>,
    /// The current extent of the dataset.
    shape: Vec<u64>,
}

/// A netCDF-4 file being written.
#[derive(Debug)]
pub struct NcWriter {
    w: FileWriter,
    groups: Vec<WGroup>,
    dims: Vec<WDim>,
    vars: Vec<WVar>,
    defined: bool,
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Invalid, message)
}

fn werr(e: h5_io::write::Error) -> Error {
    Error::from(h5::Error::from(e))
}

fn fixed_ascii(size: usize) -> Datatype {
    StringType::fixed(size.max(1), StrPad::NullTerm, CharSet::Ascii).into()
}

/// One element of `value` as bytes of `ty` (for the HDF5 fill value).
fn one_element(ty: &NcType, value: &NcValue) -> Result<Vec<u8>> {
    let srcs = value
        .srcs()
        .ok_or_else(|| invalid("a fill value of a numeric variable must be numeric"))?;
    let first = *srcs
        .first()
        .ok_or_else(|| invalid("a fill value needs one value"))?;
    Ok(encode_as(ty, &[first])?.0)
}

/// Values converted to `ty` with netcdf-c's rules, little-endian; `true` when a value was
/// out of range (netcdf-c's `NC_ERANGE`; the value is still written).
fn encode_as(ty: &NcType, values: &[Src]) -> Result<(Vec<u8>, bool)> {
    let mut out = Vec::with_capacity(values.len() * 8);
    let mut bad = false;
    macro_rules! go {
        ($t:ty) => {
            for &v in values {
                let (x, b) = convert::<$t>(v, Rules::NetcdfC);
                bad |= b;
                out.extend_from_slice(&x.to_le_bytes());
            }
        };
    }
    match ty {
        NcType::Byte => go!(i8),
        NcType::UByte => go!(u8),
        NcType::Short => go!(i16),
        NcType::UShort => go!(u16),
        NcType::Int => go!(i32),
        NcType::UInt => go!(u32),
        NcType::Int64 => go!(i64),
        NcType::UInt64 => go!(u64),
        NcType::Float => go!(f32),
        NcType::Double => go!(f64),
        other => {
            return Err(Error::new(
                ErrorKind::Char,
                format!("numbers written to a variable of type {}", other.name()),
            ))
        }
    }
    Ok((out, bad))
}

/// The file datatype, image and heap of an attribute value.
fn attribute_image(value: &NcValue) -> Result<(Datatype, Dataspace, Vec<u8>, VarLenHeap)> {
    Ok(match value {
        NcValue::Char(b) => {
            let mut img = b.clone();
            if img.is_empty() {
                img.push(0);
            }
            (
                fixed_ascii(b.len()),
                Dataspace::Scalar,
                img,
                VarLenHeap::new(),
            )
        }
        NcValue::Strings(s) => {
            let (img, heap) = encode_slice(s)?;
            (
                NcType::String.h5_type(),
                Dataspace::simple(&[s.len() as u64]).map_err(Error::selection)?,
                img,
                heap,
            )
        }
        NcValue::Other(..) => return Err(invalid("attributes of user types are not written")),
        v => {
            let img = v.image().unwrap_or_default();
            (
                v.nc_type().h5_type(),
                Dataspace::simple(&[v.len() as u64]).map_err(Error::selection)?,
                img,
                VarLenHeap::new(),
            )
        }
    })
}

impl NcWriter {
    /// Create (or truncate) a netCDF-4 file.
    pub fn create(path: impl AsRef<std::path::Path>) -> Result<NcWriter> {
        let mut w = FileWriter::create(path, FileFormat::Latest).map_err(werr)?;
        let root = w.root();
        w.set_link_order(root, CreationOrder::Indexed)
            .map_err(werr)?;
        w.set_attribute_order(root, CreationOrder::Indexed)
            .map_err(werr)?;
        Ok(NcWriter {
            w,
            groups: vec![WGroup {
                name: String::new(),
                parent: None,
                children: Vec::new(),
                dims: Vec::new(),
                vars: Vec::new(),
                attrs: Vec::new(),
                id: Some(root),
            }],
            dims: Vec::new(),
            vars: Vec::new(),
            defined: false,
        })
    }

    /// The root group.
    pub fn root(&self) -> GroupId {
        GroupId(0)
    }

    fn in_define(&self, what: &str) -> Result<()> {
        if self.defined {
            Err(invalid(format!(
                "{what} after the definitions were written (NC_ENOTINDEFINE)"
            )))
        } else {
            Ok(())
        }
    }

    fn check_name(&self, group: usize, name: &str) -> Result<()> {
        if name.is_empty() || name.contains('/') || name.contains('\0') {
            return Err(invalid(format!("bad name {name:?} (NC_EBADNAME)")));
        }
        let g = &self.groups[group];
        let used = g.vars.iter().any(|&v| self.vars[v].name == name)
            || g.children.iter().any(|&c| self.groups[c].name == name);
        if used {
            return Err(invalid(format!("name {name:?} in use (NC_ENAMEINUSE)")));
        }
        Ok(())
    }

    /// Define a group in `parent`.
    pub fn def_group(&mut self, parent: GroupId, name: &str) -> Result<GroupId> {
        self.in_define("a group")?;
        self.check_name(parent.0, name)?;
        let id = self.groups.len();
        self.groups.push(WGroup {
            name: name.to_string(),
            parent: Some(parent.0),
            children: Vec::new(),
            dims: Vec::new(),
            vars: Vec::new(),
            attrs: Vec::new(),
            id: None,
        });
        self.groups[parent.0].children.push(id);
        Ok(GroupId(id))
    }

    /// Define a dimension of `group`: `Some(len)`, or `None` for an unlimited dimension.
    pub fn def_dim(&mut self, group: GroupId, name: &str, len: Option<u64>) -> Result<DimId> {
        self.in_define("a dimension")?;
        if name.is_empty() || name.contains('/') {
            return Err(invalid(format!(
                "bad dimension name {name:?} (NC_EBADNAME)"
            )));
        }
        if self.groups[group.0]
            .dims
            .iter()
            .any(|&d| self.dims[d].name == name)
        {
            return Err(invalid(format!(
                "dimension {name:?} already defined (NC_ENAMEINUSE)"
            )));
        }
        let id = self.dims.len();
        self.dims.push(WDim {
            name: name.to_string(),
            group: group.0,
            len,
            coord: None,
            id: None,
        });
        self.groups[group.0].dims.push(id);
        Ok(DimId(id))
    }

    /// Whether dimension `d` is visible from `group` (its own group or an ancestor).
    fn visible(&self, group: usize, d: usize) -> bool {
        let mut g = Some(group);
        while let Some(i) = g {
            if self.dims[d].group == i {
                return true;
            }
            g = self.groups[i].parent;
        }
        false
    }

    /// Define a variable of `ty` in `group` over `dims` (slowest first; none: a scalar).
    pub fn def_var(
        &mut self,
        group: GroupId,
        name: &str,
        ty: NcType,
        dims: &[DimId],
    ) -> Result<VarId> {
        self.in_define("a variable")?;
        self.check_name(group.0, name)?;
        if matches!(ty, NcType::User(_)) {
            return Err(invalid("variables of user types are not written"));
        }
        for d in dims {
            if d.0 >= self.dims.len() || !self.visible(group.0, d.0) {
                return Err(invalid(format!(
                    "dimension {} is not visible in the group (NC_EBADDIM)",
                    d.0
                )));
            }
        }
        let id = self.vars.len();
        // A coordinate variable: one-dimensional, over the group's dimension of its name.
        if let Some(&d) = self.groups[group.0]
            .dims
            .iter()
            .find(|&&d| self.dims[d].name == name)
        {
            if dims == [DimId(d)] {
                self.dims[d].coord = Some(id);
            }
        }
        self.vars.push(WVar {
            name: name.to_string(),
            group: group.0,
            ty,
            dims: dims.iter().map(|d| d.0).collect(),
            attrs: Vec::new(),
            chunks: None,
            contiguous: false,
            shuffle: false,
            deflate: None,
            no_fill: false,
            id: None,
            shape: Vec::new(),
        });
        self.groups[group.0].vars.push(id);
        Ok(VarId(id))
    }

    fn var_mut(&mut self, v: VarId) -> Result<&mut WVar> {
        if self.defined {
            return Err(invalid(
                "a variable's storage set after the definitions were written",
            ));
        }
        self.vars
            .get_mut(v.0)
            .ok_or_else(|| invalid(format!("no variable {} (NC_ENOTVAR)", v.0)))
    }

    /// Set the fill value (`Some`, written as the `_FillValue` attribute) or turn filling
    /// off (`None`: `NC_NOFILL`).
    pub fn def_var_fill(&mut self, v: VarId, fill: Option<NcValue>) -> Result<()> {
        match fill {
            Some(value) => {
                self.var_mut(v)?.no_fill = false;
                self.put_att(Target::Var(v), "_FillValue", value)
            }
            None => {
                self.var_mut(v)?.no_fill = true;
                Ok(())
            }
        }
    }

    /// Chunked storage with these chunk sizes.
    pub fn def_var_chunking(&mut self, v: VarId, chunks: &[u64]) -> Result<()> {
        let rank = self.vars.get(v.0).map_or(0, |x| x.dims.len());
        if chunks.len() != rank || chunks.contains(&0) {
            return Err(invalid(format!(
                "{} chunk sizes for {rank} dimensions, each at least 1 (NC_EBADCHUNK)",
                chunks.len()
            )));
        }
        let var = self.var_mut(v)?;
        var.chunks = Some(chunks.to_vec());
        var.contiguous = false;
        Ok(())
    }

    /// Contiguous storage (refused with an unlimited dimension or filters).
    pub fn def_var_contiguous(&mut self, v: VarId) -> Result<()> {
        let var = self.var_mut(v)?;
        var.contiguous = true;
        var.chunks = None;
        Ok(())
    }

    /// The shuffle filter and deflate at `level` (0-9; `None`: no deflate).
    pub fn def_var_deflate(&mut self, v: VarId, shuffle: bool, level: Option<u32>) -> Result<()> {
        if level.is_some_and(|l| l > 9) {
            return Err(invalid("deflate level above 9 (NC_EINVAL)"));
        }
        let var = self.var_mut(v)?;
        var.shuffle = shuffle;
        var.deflate = level;
        Ok(())
    }

    /// Add or replace an attribute (after [`NcWriter::enddef`], written at once).
    pub fn put_att(&mut self, target: Target, name: &str, value: NcValue) -> Result<()> {
        if name.is_empty() || name.contains('\0') {
            return Err(invalid(format!(
                "bad attribute name {name:?} (NC_EBADNAME)"
            )));
        }
        if crate::model::HIDDEN_ATTRIBUTES.contains(&name) {
            return Err(invalid(format!(
                "attribute {name:?} is netCDF's own (NC_ENAMEINUSE)"
            )));
        }
        if name == "_FillValue" {
            let Target::Var(v) = target else {
                return Err(invalid("_FillValue belongs to a variable"));
            };
            self.in_define("_FillValue")?;
            let var = self
                .vars
                .get(v.0)
                .ok_or_else(|| invalid("no such variable (NC_ENOTVAR)"))?;
            if value.nc_type() != var.ty || value.len() != 1 {
                return Err(Error::new(
                    ErrorKind::BadType,
                    format!(
                        "_FillValue must be one value of the variable's type {}",
                        var.ty.name()
                    ),
                ));
            }
        }
        let list = match target {
            Target::Group(g) => {
                &mut self
                    .groups
                    .get_mut(g.0)
                    .ok_or_else(|| invalid("no such group (NC_EBADGRPID)"))?
                    .attrs
            }
            Target::Var(v) => {
                &mut self
                    .vars
                    .get_mut(v.0)
                    .ok_or_else(|| invalid("no such variable (NC_ENOTVAR)"))?
                    .attrs
            }
        };
        let replaced = match list.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => {
                slot.1 = value.clone();
                true
            }
            None => {
                list.push((name.to_string(), value.clone()));
                false
            }
        };
        if self.defined {
            let id = match target {
                Target::Group(g) => self.groups[g.0].id,
                Target::Var(v) => self.vars[v.0].id,
            }
            .ok_or_else(|| invalid("object not created"))?;
            if replaced {
                self.w.delete_attribute(id, name).map_err(werr)?;
            }
            self.write_attr(id, name, &value)?;
        }
        Ok(())
    }

    fn write_attr(&mut self, id: ObjId, name: &str, value: &NcValue) -> Result<()> {
        let (dt, space, img, heap) = attribute_image(value)?;
        self.w
            .create_attribute(id, name, &dt, None, space)
            .map_err(werr)?;
        self.w
            .write_attribute(id, name, &dt, &img, &heap)
            .map_err(werr)
    }

    fn write_text_attr(&mut self, id: ObjId, name: &str, text: &str, size: usize) -> Result<()> {
        let dt = fixed_ascii(size);
        let mut img = text.as_bytes().to_vec();
        img.resize(size.max(1), 0);
        self.w
            .create_attribute(id, name, &dt, None, Dataspace::Scalar)
            .map_err(werr)?;
        self.w
            .write_attribute(id, name, &dt, &img, &VarLenHeap::new())
            .map_err(werr)
    }

    fn write_i32_attr(
        &mut self,
        id: ObjId,
        name: &str,
        values: &[i32],
        scalar: bool,
    ) -> Result<()> {
        let dt = NcType::Int.h5_type();
        let space = if scalar {
            Dataspace::Scalar
        } else {
            Dataspace::simple(&[values.len() as u64]).map_err(Error::selection)?
        };
        let img: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.w
            .create_attribute(id, name, &dt, None, space)
            .map_err(werr)?;
        self.w
            .write_attribute(id, name, &dt, &img, &VarLenHeap::new())
            .map_err(werr)
    }

    /// netcdf-c's default chunk sizes (`nc4_find_default_chunksizes2`).
    fn default_chunks(&self, v: &WVar) -> Vec<u64> {
        let type_size = match v.ty {
            NcType::String => 8,
            ref t => t.h5_type().size() as u64,
        };
        let rank = v.dims.len();
        let mut chunks = vec![0u64; rank];
        let mut num_values: f32 = 1.0;
        let mut num_unlim = 0usize;
        for (k, &d) in v.dims.iter().enumerate() {
            match self.dims[d].len {
                Some(len) => num_values *= len as f32,
                None => {
                    num_unlim += 1;
                    chunks[k] = 1;
                }
            }
        }
        if rank == 1 && num_unlim == 1 {
            let per = (DEFAULT_CHUNK_SIZE as u64) / type_size;
            let suggested = if per == 0 {
                1
            } else if per > DEFAULT_1D_UNLIM_SIZE {
                DEFAULT_1D_UNLIM_SIZE
            } else {
                per
            };
            chunks[0] = (suggested / type_size).max(1);
        }
        if rank > 1 && num_unlim == rank {
            let s = (DEFAULT_CHUNK_SIZE / type_size as f64).powf(1.0 / rank as f64) as u64;
            chunks.iter_mut().for_each(|c| *c = s.max(1));
        }
        for (k, &d) in v.dims.iter().enumerate() {
            if chunks[k] == 0 {
                let len = self.dims[d].len.unwrap_or(0);
                let s = ((DEFAULT_CHUNK_SIZE / (f64::from(num_values) * type_size as f64))
                    .powf(1.0 / (rank - num_unlim) as f64)
                    * len as f64
                    - 0.5) as u64;
                chunks[k] = s.min(len).max(1);
            }
        }
        // Trim overhangs (lengths of unlimited dimensions are 0 here).
        for (k, &d) in v.dims.iter().enumerate() {
            let len = self.dims[d].len.unwrap_or(0);
            let n = len.div_ceil(chunks[k]);
            if n > 0 {
                let over = n * chunks[k] - len;
                chunks[k] -= over / n;
            }
        }
        chunks
    }

    /// Write the definitions: create every group, dimension scale and variable.
    pub fn enddef(&mut self) -> Result<()> {
        if self.defined {
            return Ok(());
        }
        self.defined = true;
        let root = self.w.root();
        let props = format!(
            "version=2,h5-netcdf={},hdf5=none",
            env!("CARGO_PKG_VERSION")
        );
        self.write_text_attr(root, "_NCProperties", &props, props.len())?;
        self.create_group(0)?;
        self.attach_scales()
    }

    fn create_group(&mut self, g: usize) -> Result<()> {
        let gid = match self.groups[g].id {
            Some(id) => id,
            None => {
                let parent = self.groups[self.groups[g].parent.unwrap_or(0)]
                    .id
                    .ok_or_else(|| invalid("parent group not created"))?;
                let name = self.groups[g].name.clone();
                let id = self
                    .w
                    .create_group_with(parent, &name, &GroupOptions::track_order())
                    .map_err(werr)?;
                self.groups[g].id = Some(id);
                id
            }
        };
        for (name, value) in self.groups[g].attrs.clone() {
            self.write_attr(gid, &name, &value)?;
        }
        // Dimensions without a coordinate variable first, then the variables.
        for d in self.groups[g].dims.clone() {
            if self.dims[d].coord.is_some() {
                continue;
            }
            let (name, len) = (self.dims[d].name.clone(), self.dims[d].len);
            let (space, storage) = match len {
                Some(n) => (
                    Dataspace::simple(&[n]).map_err(Error::selection)?,
                    StorageSpec::Contiguous,
                ),
                None => (
                    Dataspace::with_max(&[0], &[UNLIMITED]).map_err(Error::selection)?,
                    StorageSpec::Chunked(vec![1]),
                ),
            };
            let mut spec = DatasetSpec::new(
                FloatType::ieee(4, ByteOrder::BigEndian, 8, 23).into(),
                space,
            );
            spec.storage = storage;
            let id = self.w.create_dataset(gid, &name, spec).map_err(werr)?;
            self.w
                .set_attribute_order(id, CreationOrder::Indexed)
                .map_err(werr)?;
            self.write_text_attr(id, "CLASS", "DIMENSION_SCALE", 16)?;
            let text = format!("{NOT_A_VARIABLE}.{:>10}", len.unwrap_or(0));
            self.write_text_attr(id, "NAME", &text, 64)?;
            self.write_i32_attr(id, "_Netcdf4Dimid", &[d as i32], true)?;
            self.dims[d].id = Some(id);
        }
        for v in self.groups[g].vars.clone() {
            self.create_var(gid, v)?;
        }
        for c in self.groups[g].children.clone() {
            self.create_group(c)?;
        }
        Ok(())
    }

    fn create_var(&mut self, gid: ObjId, v: usize) -> Result<()> {
        let var = &self.vars[v];
        let coord = var
            .dims
            .first()
            .is_some_and(|&d| self.dims[d].coord == Some(v));
        let clashes = !coord
            && self.groups[var.group]
                .dims
                .iter()
                .any(|&d| self.dims[d].name == var.name);
        let h5name = if clashes {
            format!("{NON_COORD_PREFIX}{}", var.name)
        } else {
            var.name.clone()
        };
        let unlimited = var.dims.iter().any(|&d| self.dims[d].len.is_none());
        let shape: Vec<u64> = var
            .dims
            .iter()
            .map(|&d| self.dims[d].len.unwrap_or(0))
            .collect();
        let space = if var.dims.is_empty() {
            Dataspace::Scalar
        } else {
            let max: Vec<u64> = var
                .dims
                .iter()
                .map(|&d| self.dims[d].len.unwrap_or(UNLIMITED))
                .collect();
            Dataspace::with_max(&shape, &max).map_err(Error::selection)?
        };
        let filtered = var.shuffle || var.deflate.is_some();
        let chunked = !var.dims.is_empty() && (unlimited || filtered || var.chunks.is_some());
        if var.contiguous && (unlimited || filtered) {
            return Err(invalid(format!(
                "{}: contiguous storage with an unlimited dimension or filters (NC_EINVAL)",
                var.name
            )));
        }
        let mut spec = DatasetSpec::new(var.ty.h5_type(), space);
        if chunked {
            let chunks = match &var.chunks {
                Some(c) => c.clone(),
                None => self.default_chunks(var),
            };
            spec.storage = StorageSpec::Chunked(chunks);
            if var.shuffle {
                spec.filters.push(Filter::shuffle());
            }
            if let Some(l) = var.deflate {
                spec.filters.push(Filter::deflate(l));
            }
        }
        let fill = var
            .attrs
            .iter()
            .find(|(n, _)| n == "_FillValue")
            .map(|(_, v)| v.clone())
            .or_else(|| var.ty.default_fill());
        if var.no_fill {
            spec.fill_time = FillTime::Never;
        } else if var.ty.is_numeric() {
            if let Some(f) = &fill {
                spec.fill_value = Some(one_element(&var.ty, f)?);
            }
        } else if var.ty == NcType::Char {
            if let Some(NcValue::Char(b)) = &fill {
                spec.fill_value = Some(vec![b.first().copied().unwrap_or(0)]);
            }
        }
        let attrs = var.attrs.clone();
        let (name, dims) = (var.name.clone(), var.dims.clone());
        let id = self.w.create_dataset(gid, &h5name, spec).map_err(werr)?;
        self.w
            .set_attribute_order(id, CreationOrder::Indexed)
            .map_err(werr)?;
        if coord {
            self.write_text_attr(id, "CLASS", "DIMENSION_SCALE", 16)?;
            self.write_text_attr(id, "NAME", &name, name.len() + 1)?;
            self.dims[dims[0]].id = Some(id);
        }
        if !dims.is_empty() {
            let ids: Vec<i32> = dims.iter().map(|&d| d as i32).collect();
            self.write_i32_attr(id, "_Netcdf4Coordinates", &ids, false)?;
        }
        if coord {
            self.write_i32_attr(id, "_Netcdf4Dimid", &[dims[0] as i32], true)?;
        }
        for (n, value) in attrs {
            self.write_attr(id, &n, &value)?;
        }
        self.vars[v].id = Some(id);
        self.vars[v].shape = shape;
        Ok(())
    }

    /// `DIMENSION_LIST` on each variable, `REFERENCE_LIST` on each scale.
    fn attach_scales(&mut self) -> Result<()> {
        #[derive(h5::H5Type, Clone, Copy)]
        #[repr(C)]
        struct Entry {
            dataset: ObjectRef,
            dimension: i32,
        }
        let mut refs: Vec<Vec<Entry>> = (0..self.dims.len()).map(|_| Vec::new()).collect();
        for v in 0..self.vars.len() {
            let var = &self.vars[v];
            let coord = var
                .dims
                .first()
                .is_some_and(|&d| self.dims[d].coord == Some(v));
            if var.dims.is_empty() || coord {
                continue;
            }
            let id = var.id.ok_or_else(|| invalid("variable not created"))?;
            let addr = self.w.address(id).map_err(werr)?;
            let mut list = Vec::with_capacity(var.dims.len());
            for (k, &d) in var.dims.iter().enumerate() {
                let sid = self.dims[d]
                    .id
                    .ok_or_else(|| invalid("dimension scale not created"))?;
                let saddr = self.w.address(sid).map_err(werr)?;
                list.push(VarLenArray::from(vec![ObjectRef::new(saddr)]));
                refs[d].push(Entry {
                    dataset: ObjectRef::new(addr),
                    dimension: k as i32,
                });
            }
            let (img, heap) = encode_slice(&list)?;
            let dt = <VarLenArray<ObjectRef> as h5_types::H5Type>::h5_type();
            let space = Dataspace::simple(&[list.len() as u64]).map_err(Error::selection)?;
            self.w
                .create_attribute(id, "DIMENSION_LIST", &dt, None, space)
                .map_err(werr)?;
            self.w
                .write_attribute(id, "DIMENSION_LIST", &dt, &img, &heap)
                .map_err(werr)?;
        }
        for (d, entries) in refs.into_iter().enumerate() {
            if entries.is_empty() {
                continue;
            }
            let sid = self.dims[d]
                .id
                .ok_or_else(|| invalid("dimension scale not created"))?;
            let (img, heap) = encode_slice(&entries)?;
            let dt = <Entry as h5_types::H5Type>::h5_type();
            let space = Dataspace::simple(&[entries.len() as u64]).map_err(Error::selection)?;
            self.w
                .create_attribute(sid, "REFERENCE_LIST", &dt, None, space)
                .map_err(werr)?;
            self.w
                .write_attribute(sid, "REFERENCE_LIST", &dt, &img, &heap)
                .map_err(werr)?;
        }
        Ok(())
    }

    /// Grow the dataset of `v` along its unlimited dimensions to cover `[start, start+count)`
    /// and return the selection (checks the access like `nc_put_vara`).
    fn prepare_write(
        &mut self,
        v: VarId,
        start: &[u64],
        count: &[u64],
    ) -> Result<(ObjId, Option<Selection>, u64)> {
        self.enddef()?;
        let var = self
            .vars
            .get(v.0)
            .ok_or_else(|| invalid(format!("no variable {} (NC_ENOTVAR)", v.0)))?;
        let id = var.id.ok_or_else(|| invalid("variable not created"))?;
        let rank = var.dims.len();
        if start.len() != rank || count.len() != rank {
            return Err(invalid(format!(
                "start and count need {rank} entries (the variable's rank)"
            )));
        }
        if rank == 0 {
            return Ok((id, None, 1));
        }
        let mut shape = var.shape.clone();
        for k in 0..rank {
            let d = var.dims[k];
            let end = start[k]
                .checked_add(count[k])
                .ok_or_else(|| invalid("start + count overflows"))?;
            match self.dims[d].len {
                Some(len) => {
                    if start[k] > len || (start[k] == len && count[k] > 0) {
                        return Err(Error::selection(h5_io::selection::Error::new(
                            h5_io::selection::ErrorKind::InvalidCoords,
                            format!("start {} is beyond dimension {k} of length {len}", start[k]),
                        )));
                    }
                    if end > len {
                        return Err(Error::selection(h5_io::selection::Error::new(
                            h5_io::selection::ErrorKind::Edge,
                            format!("start + count {end} is beyond dimension {k} of length {len}"),
                        )));
                    }
                }
                None => shape[k] = shape[k].max(end),
            }
        }
        if shape != var.shape {
            self.w.resize(id, &shape).map_err(werr)?;
            self.vars[v.0].shape = shape.clone();
        }
        let n = count
            .iter()
            .try_fold(1u64, |a, &c| a.checked_mul(c))
            .ok_or_else(|| invalid("the section's element count overflows"))?;
        let space = Dataspace::simple(&shape).map_err(Error::selection)?;
        let sel =
            Selection::hyperslab(&space, start, None, count, None).map_err(Error::selection)?;
        Ok((id, Some(sel), n))
    }

    /// Write numbers into an array section (`nc_put_vara`), converted to the variable's
    /// type with netcdf-c's rules: values out of its range are written (as C's cast would
    /// leave them, saturated here) and reported as a range error afterwards.
    pub fn put_vara<T: Numeric>(
        &mut self,
        v: VarId,
        start: &[u64],
        count: &[u64],
        data: &[T],
    ) -> Result<()> {
        let ty = self
            .vars
            .get(v.0)
            .map(|x| x.ty.clone())
            .ok_or_else(|| invalid("no such variable (NC_ENOTVAR)"))?;
        if ty == NcType::Char {
            return Err(Error::new(
                ErrorKind::Char,
                "numbers written to a char variable (NC_ECHAR)",
            ));
        }
        if !ty.is_numeric() {
            return Err(Error::new(
                ErrorKind::BadType,
                format!("numbers written to a {} variable", ty.name()),
            ));
        }
        let (id, sel, n) = self.prepare_write(v, start, count)?;
        if data.len() as u64 != n {
            return Err(invalid(format!(
                "{} values for a section of {n}",
                data.len()
            )));
        }
        let srcs: Vec<Src> = data.iter().map(|x| x.to_src()).collect();
        let (img, bad) = encode_as(&ty, &srcs)?;
        if n > 0 {
            self.w
                .write_dataset(id, sel.as_ref(), &ty.h5_type(), &img, &VarLenHeap::new())
                .map_err(werr)?;
        }
        if bad {
            return Err(Error::new(
                ErrorKind::Range,
                format!("values out of the range of {} (written)", ty.name()),
            ));
        }
        Ok(())
    }

    /// Write every value of a variable of fixed shape, or the first records of a record
    /// variable (`data` a whole number of records).
    pub fn put_var<T: Numeric>(&mut self, v: VarId, data: &[T]) -> Result<()> {
        let count = self.whole_count(v, data.len())?;
        let start = vec![0; count.len()];
        self.put_vara(v, &start, &count, data)
    }

    fn whole_count(&self, v: VarId, n: usize) -> Result<Vec<u64>> {
        let var = self
            .vars
            .get(v.0)
            .ok_or_else(|| invalid("no such variable (NC_ENOTVAR)"))?;
        let mut count: Vec<u64> = var
            .dims
            .iter()
            .map(|&d| self.dims[d].len.unwrap_or(0))
            .collect();
        if let Some(k) = var.dims.iter().position(|&d| self.dims[d].len.is_none()) {
            let rest = count
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != k)
                .try_fold(1u64, |a, (_, &c)| a.checked_mul(c))
                .unwrap_or(0);
            if var
                .dims
                .iter()
                .filter(|&&d| self.dims[d].len.is_none())
                .count()
                > 1
                || rest == 0
                || !(n as u64).is_multiple_of(rest)
            {
                return Err(invalid("put_var of a record variable needs whole records of one unlimited dimension (use put_vara)"));
            }
            count[k] = n as u64 / rest;
        }
        Ok(count)
    }

    /// Write text into a `char` variable's section (`nc_put_vara_text`).
    pub fn put_text(&mut self, v: VarId, start: &[u64], count: &[u64], text: &[u8]) -> Result<()> {
        if self.vars.get(v.0).map(|x| &x.ty) != Some(&NcType::Char) {
            return Err(Error::new(
                ErrorKind::Char,
                "text written to a variable that is not char (NC_ECHAR)",
            ));
        }
        let (id, sel, n) = self.prepare_write(v, start, count)?;
        if text.len() as u64 != n {
            return Err(invalid(format!(
                "{} characters for a section of {n}",
                text.len()
            )));
        }
        if n > 0 {
            self.w
                .write_dataset(
                    id,
                    sel.as_ref(),
                    &NcType::Char.h5_type(),
                    text,
                    &VarLenHeap::new(),
                )
                .map_err(werr)?;
        }
        Ok(())
    }

    /// Write strings into a `string` variable's section (`nc_put_vara_string`).
    pub fn put_strings(
        &mut self,
        v: VarId,
        start: &[u64],
        count: &[u64],
        strings: &[&str],
    ) -> Result<()> {
        if self.vars.get(v.0).map(|x| &x.ty) != Some(&NcType::String) {
            return Err(Error::new(
                ErrorKind::BadType,
                "strings written to a variable that is not string",
            ));
        }
        let (id, sel, n) = self.prepare_write(v, start, count)?;
        if strings.len() as u64 != n {
            return Err(invalid(format!(
                "{} strings for a section of {n}",
                strings.len()
            )));
        }
        let owned: Vec<String> = strings.iter().map(|s| s.to_string()).collect();
        let (img, heap) = encode_slice(&owned)?;
        if n > 0 {
            self.w
                .write_dataset(id, sel.as_ref(), &NcType::String.h5_type(), &img, &heap)
                .map_err(werr)?;
        }
        Ok(())
    }

    /// Write the definitions if not yet done, and close the file.
    pub fn close(mut self) -> Result<()> {
        self.enddef()?;
        self.w.close().map_err(werr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Default chunk sizes netCDF4-python 1.7.5.1 (netcdf-c 4.10.1) reports through
    /// `Variable.chunking()` for these shapes.
    #[test]
    fn default_chunk_sizes_are_netcdf_c_s() {
        let dir = std::env::temp_dir().join(format!("h5-netcdf-chunks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut w = NcWriter::create(dir.join("c.nc")).unwrap();
        let root = w.root();
        let x = w.def_dim(root, "x", Some(3000)).unwrap();
        let y = w.def_dim(root, "y", Some(2500)).unwrap();
        let t = w.def_dim(root, "t", None).unwrap();
        let cases: [(NcType, Vec<DimId>, Vec<u64>); 6] = [
            (NcType::Double, vec![x, y], vec![1500, 1250]),
            (NcType::Short, vec![t, x, y], vec![1, 3000, 2500]),
            (NcType::Byte, vec![t], vec![4096]),
            (NcType::String, vec![t], vec![512]),
            (NcType::Float, vec![t, t], vec![2048, 2048]),
            (NcType::Float, vec![x], vec![3000]),
        ];
        for (i, (ty, dims, want)) in cases.into_iter().enumerate() {
            let v = w.def_var(root, &format!("v{i}"), ty, &dims).unwrap();
            assert_eq!(w.default_chunks(&w.vars[v.0]), want, "case {i}");
        }
        drop(w);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
