//! The netCDF-4 data model over HDF5 (documented on [`NcFile`]).

use std::collections::HashMap;
use std::path::Path;

use h5_io::{Dataset, File, Group};
use h5_types::h5type::{ObjectRef, VarLenArray};
use h5_types::Datatype;

use crate::error::{Error, ErrorKind, Result};
use crate::types::{attribute_value, NcType, NcValue};
use crate::variable::Variable;

/// The start of the `NAME` attribute of a dataset that stands for a dimension without a
/// coordinate variable.
pub const NOT_A_VARIABLE: &str = "This is a netCDF dimension but not a netCDF variable";

/// The prefix of the dataset name of a variable that has a dimension's name but is not its
/// coordinate variable.
pub const NON_COORD_PREFIX: &str = "_nc4_non_coord_";

/// The attributes netcdf-c keeps for itself and never shows.
pub const HIDDEN_ATTRIBUTES: &[&str] = &[
    "CLASS",
    "NAME",
    "REFERENCE_LIST",
    "DIMENSION_LIST",
    "_Netcdf4Dimid",
    "_Netcdf4Coordinates",
    "_nc3_strict",
    "_NCProperties",
];

/// A dimension.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dimension {
    /// The dimension's name.
    pub name: String,
    /// Its current length (for an unlimited dimension, the longest of the variables using
    /// it).
    pub len: u64,
    /// Whether it is unlimited (a record dimension).
    pub unlimited: bool,
}

/// An attribute: its name and values.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    /// The attribute's name.
    pub name: String,
    /// Its values.
    pub value: NcValue,
}

#[derive(Clone, Debug)]
pub(crate) struct DimInfo {
    pub(crate) name: String,
    pub(crate) len: u64,
    pub(crate) unlimited: bool,
    /// The scale dataset's address, when the dimension has one.
    pub(crate) addr: Option<u64>,
}

#[derive(Clone, Debug)]
pub(crate) struct GroupInfo {
    pub(crate) path: String,
    pub(crate) parent: Option<usize>,
    pub(crate) children: Vec<usize>,
    pub(crate) dims: Vec<usize>,
    pub(crate) vars: Vec<usize>,
    pub(crate) attrs: Vec<Attribute>,
    /// The user-defined types (committed datatypes), in reading order.
    pub(crate) types: Vec<(String, Datatype)>,
}

#[derive(Clone, Debug)]
pub(crate) struct VarInfo {
    pub(crate) name: String,
    pub(crate) group: usize,
    pub(crate) ds: Dataset,
    /// The dimension ids, or why they could not be found.
    pub(crate) dims: std::result::Result<Vec<usize>, (ErrorKind, String)>,
    pub(crate) coordinate: bool,
}

/// A netCDF-4 file: the data model over HDF5, as netcdf-c builds it when it opens a file
/// (`libhdf5/hdf5open.c`): groups, dimensions, variables and their attributes.
///
/// * Every group is a netCDF group; its members are visited in link creation order when the
///   group tracks it (netcdf-c's files do), in name order otherwise.
/// * A dataset whose `CLASS` attribute is `DIMENSION_SCALE` is a dimension named after its
///   link, of the dataset's current length, unlimited when its maximum size is; its
///   `_Netcdf4Dimid` attribute, when present, is its dimension id. When its `NAME` starts
///   with "This is a netCDF dimension but not a netCDF variable" it is only a dimension,
///   otherwise it is also the dimension's coordinate variable.
/// * Every other dataset is a variable; a name starting with `_nc4_non_coord_` (a variable
///   with a dimension's name that is not its coordinate variable) loses that prefix.
/// * A variable's dimensions are the ids of its `_Netcdf4Coordinates` attribute, or else
///   the scales its `DIMENSION_LIST` refers to, or else (a plain HDF5 dataset) phony
///   dimensions `phony_dim_N`, one per distinct length in the group, `N` the dimension id.
/// * An unlimited dimension's length is shared: the largest current extent along it of the
///   scale and of every variable using it (in its group and the groups below), as
///   `nc_inq_dimlen` computes it; reads past a variable's own extent give its fill value.
/// * Attributes are those of the group or dataset in creation order (name order when not
///   tracked), less those netcdf-c hides: `CLASS`, `NAME`, `REFERENCE_LIST`,
///   `DIMENSION_LIST`, `_Netcdf4Dimid`, `_Netcdf4Coordinates`, `_nc3_strict` and (in the
///   root group) `_NCProperties`.
#[derive(Clone, Debug)]
pub struct NcFile {
    file: h5::File,
    pub(crate) reader: File,
    pub(crate) dims: Vec<DimInfo>,
    pub(crate) groups: Vec<GroupInfo>,
    pub(crate) vars: Vec<VarInfo>,
    /// Whether the file is of the classic model (`_nc3_strict` in the root group).
    classic: bool,
}

/// A group of a netCDF-4 file.
#[derive(Clone, Copy, Debug)]
pub struct NcGroup<'a> {
    nc: &'a NcFile,
    id: usize,
}

fn text_attr(ds: &Dataset, name: &str) -> Option<String> {
    let a = ds.attr(name).ok()?;
    attribute_value(&a).ok()?.as_text()
}

fn attributes(list: Vec<h5_io::Attribute>, root: bool) -> Result<Vec<Attribute>> {
    let mut out = Vec::new();
    for a in list {
        let name = a.name().to_string();
        if HIDDEN_ATTRIBUTES.contains(&name.as_str()) && (root || name != "_NCProperties") {
            continue;
        }
        out.push(Attribute {
            value: attribute_value(&a)?,
            name,
        });
    }
    Ok(out)
}

fn group_links(g: &Group) -> Result<Vec<h5_io::Link>> {
    match g.links_by_creation_order() {
        Ok(l) => Ok(l),
        Err(_) => Ok(g.links()?),
    }
}

fn join(parent: &str, name: &str) -> String {
    if parent == "/" {
        format!("/{name}")
    } else {
        format!("{parent}/{name}")
    }
}

impl NcFile {
    /// Open a netCDF-4 file.
    pub fn open(path: impl AsRef<Path>) -> Result<NcFile> {
        NcFile::new(h5::File::open(path)?)
    }

    /// A netCDF view of an open HDF5 file, as it is now (what is written to `file` later is
    /// not seen).
    pub fn new(file: h5::File) -> Result<NcFile> {
        let reader = file.inner()?;
        let mut nc = NcFile {
            file,
            reader,
            dims: Vec::new(),
            groups: Vec::new(),
            vars: Vec::new(),
            classic: false,
        };
        nc.classic = nc.reader.root()?.attr("_nc3_strict").is_ok();
        nc.load()?;
        Ok(nc)
    }

    fn load(&mut self) -> Result<()> {
        let root = self.reader.root()?;
        // Pass 1: groups, dimension scales and variables, depth first as netcdf-c reads.
        let mut ids: Vec<(usize, Option<i64>)> = Vec::new(); // per dim: _Netcdf4Dimid
        let mut stack = vec![(root, None::<usize>)];
        let mut seen = std::collections::HashSet::new();
        while let Some((g, parent)) = stack.pop() {
            let gid = self.groups.len();
            let attrs = attributes(
                g.attrs_by_creation_order().or_else(|_| g.attrs())?,
                parent.is_none(),
            )
            .map_err(|e| e.at(g.path()))?;
            self.groups.push(GroupInfo {
                path: g.path().to_string(),
                parent,
                children: Vec::new(),
                dims: Vec::new(),
                vars: Vec::new(),
                attrs,
                types: Vec::new(),
            });
            if let Some(p) = parent {
                self.groups[p].children.push(gid);
            }
            let mut subgroups = Vec::new();
            for l in group_links(&g).map_err(|e| e.at(g.path()))? {
                let h5_io::LinkTarget::Hard(addr) = l.target else {
                    continue;
                };
                let path = join(g.path(), &l.name);
                let loc = h5_io::Location {
                    file: self.reader.clone(),
                    addr,
                    path: path.clone(),
                };
                let obj = loc.object()?;
                match obj.kind() {
                    h5_io::ObjectKind::Group if seen.insert(addr.0) => {
                        subgroups.push(Group::at(loc)?);
                    }
                    h5_io::ObjectKind::Dataset => {
                        let ds = Dataset::at(loc)?;
                        let scale = text_attr(&ds, "CLASS")
                            .is_some_and(|c| c.starts_with("DIMENSION_SCALE"));
                        let mut coordinate = false;
                        // A scale of rank 2 or more is netcdf-c's multidimensional
                        // coordinate variable: the dimension is its first.
                        if scale {
                            let did = self.dims.len();
                            let dimid = ds
                                .attr("_Netcdf4Dimid")
                                .ok()
                                .and_then(|a| a.read::<i64>().ok())
                                .and_then(|v| v.first().copied());
                            self.dims.push(DimInfo {
                                name: l.name.clone(),
                                len: ds.shape().first().copied().unwrap_or(0),
                                unlimited: ds.dataspace().is_unlimited(0),
                                addr: Some(addr.0),
                            });
                            ids.push((did, dimid));
                            self.groups[gid].dims.push(did);
                            if text_attr(&ds, "NAME").is_some_and(|n| n.starts_with(NOT_A_VARIABLE))
                            {
                                continue;
                            }
                            coordinate = true;
                        }
                        let name = l
                            .name
                            .strip_prefix(NON_COORD_PREFIX)
                            .unwrap_or(&l.name)
                            .to_string();
                        let vid = self.vars.len();
                        self.vars.push(VarInfo {
                            name,
                            group: gid,
                            ds,
                            dims: Ok(Vec::new()),
                            coordinate,
                        });
                        self.groups[gid].vars.push(vid);
                    }
                    h5_io::ObjectKind::Datatype => {
                        let dt = g.datatype(&l.name)?.datatype().clone();
                        self.groups[gid].types.push((l.name.clone(), dt));
                    }
                    _ => {}
                }
            }
            stack.extend(subgroups.into_iter().rev().map(|s| (s, Some(gid))));
        }
        // Dimension ids: `_Netcdf4Dimid` where present and unique, else the next free one
        // in reading order. Dimensions are kept in id order.
        let mut used = std::collections::HashSet::new();
        let mut assigned = vec![usize::MAX; self.dims.len()];
        for &(d, id) in &ids {
            if let Some(id) = id.and_then(|i| usize::try_from(i).ok()) {
                if id < self.dims.len() * 2 + 16 && used.insert(id) {
                    assigned[d] = id;
                }
            }
        }
        let mut next = 0;
        for a in assigned.iter_mut() {
            if *a == usize::MAX {
                while used.contains(&next) {
                    next += 1;
                }
                *a = next;
                used.insert(next);
            }
        }
        // Renumber densely in id order, remembering each file id.
        let mut order: Vec<usize> = (0..self.dims.len()).collect();
        order.sort_by_key(|&d| assigned[d]);
        let mut file_id_of = HashMap::new(); // _Netcdf4Dimid value -> index
        let mut new_index = vec![0; self.dims.len()];
        for (i, &d) in order.iter().enumerate() {
            new_index[d] = i;
            file_id_of.insert(assigned[d], i);
        }
        self.dims = order.iter().map(|&d| self.dims[d].clone()).collect();
        for g in &mut self.groups {
            for d in &mut g.dims {
                *d = new_index[*d];
            }
            g.dims.sort_unstable();
        }
        let by_addr: HashMap<u64, usize> = self
            .dims
            .iter()
            .enumerate()
            .filter_map(|(i, d)| d.addr.map(|a| (a, i)))
            .collect();
        // Pass 2: each variable's dimensions.
        for v in 0..self.vars.len() {
            let dims = self.var_dims(v, &file_id_of, &by_addr);
            let dims = match dims {
                Ok(Some(d)) => Ok(d),
                Ok(None) => Ok(self.phony_dims(v)),
                Err(e) => Err((e.kind(), e.to_string())),
            };
            self.vars[v].dims = dims;
        }
        // Shared lengths of unlimited dimensions.
        for d in 0..self.dims.len() {
            if !self.dims[d].unlimited {
                continue;
            }
            let mut len = self.dims[d].len;
            for v in &self.vars {
                if let Ok(ids) = &v.dims {
                    let shape = v.ds.shape();
                    for (k, &id) in ids.iter().enumerate() {
                        if id == d {
                            len = len.max(shape.get(k).copied().unwrap_or(0));
                        }
                    }
                }
            }
            self.dims[d].len = len;
        }
        Ok(())
    }

    /// The dimension ids of variable `v`, `None` when it names none.
    fn var_dims(
        &self,
        v: usize,
        file_id_of: &HashMap<usize, usize>,
        by_addr: &HashMap<u64, usize>,
    ) -> Result<Option<Vec<usize>>> {
        let var = &self.vars[v];
        let rank = var.ds.shape().len();
        let visible = self.visible_dims(var.group);
        if let Ok(a) = var.ds.attr("_Netcdf4Coordinates") {
            if let Ok(ids) = a.read::<i64>() {
                let mapped: Option<Vec<usize>> = ids
                    .iter()
                    .map(|&i| {
                        usize::try_from(i)
                            .ok()
                            .and_then(|i| file_id_of.get(&i).copied())
                    })
                    .collect();
                if let Some(m) = mapped.filter(|m| m.len() == rank) {
                    return Ok(Some(m));
                }
            }
        }
        match var.ds.attr("DIMENSION_LIST") {
            Ok(a) => {
                let lists: Vec<VarLenArray<ObjectRef>> = a.read()?;
                if lists.len() != rank {
                    return Err(Error::new(
                        ErrorKind::Convention,
                        format!(
                            "DIMENSION_LIST has {} entries for {rank} dimensions",
                            lists.len()
                        ),
                    ));
                }
                let mut out = Vec::with_capacity(rank);
                for (k, refs) in lists.iter().enumerate() {
                    let r = refs.first().ok_or_else(|| {
                        Error::new(
                            ErrorKind::Convention,
                            format!("DIMENSION_LIST entry {k} is empty"),
                        )
                    })?;
                    let d = by_addr.get(&r.addr()).copied().ok_or_else(|| {
                        Error::new(
                            ErrorKind::Convention,
                            format!(
                                "DIMENSION_LIST entry {k} refers to an object at {:#x} that is not a dimension scale reachable from the root",
                                r.addr()
                            ),
                        )
                    })?;
                    out.push(d);
                }
                let _ = visible;
                Ok(Some(out))
            }
            Err(e) if e.kind() == h5_io::ErrorKind::NotFound => {
                if var.coordinate && rank == 1 {
                    let addr = var.ds.location().addr.0;
                    if let Some(&d) = by_addr.get(&addr) {
                        return Ok(Some(vec![d]));
                    }
                }
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Phony dimensions for a dataset without dimension scales: netcdf-c reuses a phony
    /// dimension of the group with the same length, else makes `phony_dim_N`.
    fn phony_dims(&mut self, v: usize) -> Vec<usize> {
        let shape = self.vars[v].ds.shape();
        let group = self.vars[v].group;
        let mut out = Vec::with_capacity(shape.len());
        for &len in &shape {
            let found = self.groups[group].dims.iter().copied().find(|&d| {
                let dim = &self.dims[d];
                dim.addr.is_none() && dim.len == len && dim.name.starts_with("phony_dim_")
            });
            let d = match found {
                Some(d) => d,
                None => {
                    let d = self.dims.len();
                    self.dims.push(DimInfo {
                        name: format!("phony_dim_{d}"),
                        len,
                        unlimited: false,
                        addr: None,
                    });
                    self.groups[group].dims.push(d);
                    d
                }
            };
            out.push(d);
        }
        out
    }

    /// The ids of the dimensions visible in a group: its own, then its ancestors'.
    fn visible_dims(&self, group: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut g = Some(group);
        while let Some(i) = g {
            out.extend(&self.groups[i].dims);
            g = self.groups[i].parent;
        }
        out
    }

    pub(crate) fn dimension_of(&self, id: usize) -> Dimension {
        let d = &self.dims[id];
        Dimension {
            name: d.name.clone(),
            len: d.len,
            unlimited: d.unlimited,
        }
    }

    /// The HDF5 file.
    pub fn file(&self) -> &h5::File {
        &self.file
    }

    /// The root group.
    pub fn root(&self) -> NcGroup<'_> {
        NcGroup { nc: self, id: 0 }
    }

    /// The group at `path` ("/" or "" is the root; "a/b" or "/a/b").
    pub fn group(&self, path: &str) -> Result<NcGroup<'_>> {
        let want = if path.starts_with('/') {
            path.to_string()
        } else {
            format!("/{path}")
        };
        let want = if want.len() > 1 {
            want.trim_end_matches('/').to_string()
        } else {
            want
        };
        self.groups
            .iter()
            .position(|g| g.path == want)
            .map(|id| NcGroup { nc: self, id })
            .ok_or_else(|| Error::new(ErrorKind::NotFound, format!("no group {path:?}")))
    }

    /// The root group's dimensions, in dimension id order (`nc_inq_dimids` of the root).
    pub fn dimensions(&self) -> Vec<Dimension> {
        self.root().dimensions()
    }

    /// The dimension `name` visible in the root group.
    pub fn dimension(&self, name: &str) -> Result<Dimension> {
        self.root().dimension(name)
    }

    /// The root group's `_NCProperties` (the library versions that wrote the file), when
    /// present.
    pub fn properties(&self) -> Option<String> {
        let a = self.reader.root().ok()?.attr("_NCProperties").ok()?;
        attribute_value(&a).ok()?.as_text()
    }

    /// The global attributes (the root group's).
    pub fn attributes(&self) -> &[Attribute] {
        &self.groups[0].attrs
    }

    /// The global attribute `name`.
    pub fn attribute(&self, name: &str) -> Option<&NcValue> {
        self.root().attribute(name)
    }

    /// The path of every variable of every group (groups in netcdf-c's order, variables by
    /// name), without the root's leading `/`.
    pub fn variables(&self) -> Result<Vec<String>> {
        let mut out: Vec<String> = self
            .vars
            .iter()
            .map(|v| {
                join(&self.groups[v.group].path, &v.name)
                    .trim_start_matches('/')
                    .to_string()
            })
            .collect();
        out.sort();
        Ok(out)
    }

    /// The variable at `path` (a name in the root group, or a path through groups), by its
    /// netCDF name (`y`, not the `_nc4_non_coord_y` it is stored as).
    pub fn variable(&self, path: &str) -> Result<Variable> {
        let (group, name) = match path.trim_start_matches('/').rsplit_once('/') {
            Some((g, n)) => (self.group(g)?, n),
            None => (self.root(), path.trim_start_matches('/')),
        };
        group.variable(name)
    }

    pub(crate) fn make_variable(&self, v: usize) -> Result<Variable> {
        let var = &self.vars[v];
        let ids = var
            .dims
            .clone()
            .map_err(|(k, m)| Error::new(k, m).at(var.ds.path()))?;
        let dims = ids.iter().map(|&d| self.dimension_of(d)).collect();
        let attrs = attributes(
            var.ds
                .attrs_by_creation_order()
                .or_else(|_| var.ds.attrs())?,
            false,
        )
        .map_err(|e| e.at(var.ds.path()))?;
        Ok(Variable::new(
            var.ds.clone(),
            var.name.clone(),
            dims,
            ids,
            attrs,
            var.coordinate,
            self.classic,
        ))
    }

    /// The coordinate variable of dimension `name` of the root group, if it has one.
    pub fn coordinate_variable(&self, name: &str) -> Result<Option<Variable>> {
        self.root().coordinate_variable(name)
    }

    /// The datatype a variable is stored with.
    pub fn datatype_of(&self, path: &str) -> Result<Datatype> {
        Ok(self.variable(path)?.datatype().clone())
    }
}

impl<'a> NcGroup<'a> {
    /// The group's path ("/" for the root).
    pub fn path(&self) -> &'a str {
        &self.nc.groups[self.id].path
    }

    /// The group's name ("/" for the root).
    pub fn name(&self) -> &'a str {
        let p = self.path();
        if p == "/" {
            p
        } else {
            p.rsplit('/').next().unwrap_or(p)
        }
    }

    /// The parent group.
    pub fn parent(&self) -> Option<NcGroup<'a>> {
        self.nc.groups[self.id]
            .parent
            .map(|id| NcGroup { nc: self.nc, id })
    }

    /// The groups in this group, in netcdf-c's order.
    pub fn groups(&self) -> Vec<NcGroup<'a>> {
        self.nc.groups[self.id]
            .children
            .iter()
            .map(|&id| NcGroup { nc: self.nc, id })
            .collect()
    }

    /// The dimensions defined in this group, in id order.
    pub fn dimensions(&self) -> Vec<Dimension> {
        self.nc.groups[self.id]
            .dims
            .iter()
            .map(|&d| self.nc.dimension_of(d))
            .collect()
    }

    /// The dimension `name` defined here or inherited from an enclosing group (the
    /// nearest).
    pub fn dimension(&self, name: &str) -> Result<Dimension> {
        self.nc
            .visible_dims(self.id)
            .into_iter()
            .find(|&d| self.nc.dims[d].name == name)
            .map(|d| self.nc.dimension_of(d))
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::NotFound,
                    format!("no dimension {name:?} in group {}", self.path()),
                )
            })
    }

    /// The names of the group's variables, in variable id order.
    pub fn variable_names(&self) -> Vec<&'a str> {
        self.nc.groups[self.id]
            .vars
            .iter()
            .map(|&v| self.nc.vars[v].name.as_str())
            .collect()
    }

    /// The variable `name` of this group.
    pub fn variable(&self, name: &str) -> Result<Variable> {
        let v = self.nc.groups[self.id]
            .vars
            .iter()
            .copied()
            .find(|&v| self.nc.vars[v].name == name)
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::NotFound,
                    format!("no variable {name:?} in group {}", self.path()),
                )
            })?;
        self.nc.make_variable(v)
    }

    /// The coordinate variable of the dimension `name` visible here, if it has one.
    pub fn coordinate_variable(&self, name: &str) -> Result<Option<Variable>> {
        let Some(d) = self
            .nc
            .visible_dims(self.id)
            .into_iter()
            .find(|&d| self.nc.dims[d].name == name)
        else {
            return Err(Error::new(
                ErrorKind::NotFound,
                format!("no dimension {name:?} in group {}", self.path()),
            ));
        };
        let addr = self.nc.dims[d].addr;
        match self
            .nc
            .vars
            .iter()
            .position(|v| v.coordinate && Some(v.ds.location().addr.0) == addr)
        {
            Some(v) => Ok(Some(self.nc.make_variable(v)?)),
            None => Ok(None),
        }
    }

    /// The group's attributes, in creation order.
    pub fn attributes(&self) -> &'a [Attribute] {
        &self.nc.groups[self.id].attrs
    }

    /// The attribute `name`.
    pub fn attribute(&self, name: &str) -> Option<&'a NcValue> {
        self.attributes()
            .iter()
            .find(|a| a.name == name)
            .map(|a| &a.value)
    }

    /// The user-defined types of the group (enum, compound, opaque, variable-length: its
    /// committed datatypes), by name, in netcdf-c's order.
    pub fn types(&self) -> &'a [(String, Datatype)] {
        &self.nc.groups[self.id].types
    }

    /// The variable types netCDF would report (`NcType`) for each variable, in id order.
    pub fn variable_types(&self) -> Vec<NcType> {
        self.nc.groups[self.id]
            .vars
            .iter()
            .map(|&v| NcType::of(self.nc.vars[v].ds.datatype()))
            .collect()
    }
}
