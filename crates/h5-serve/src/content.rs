//! h5grove's contents: the entity at a path (links resolved or not, as `resolve_links`
//! says), its metadata as h5grove's JSON, its attributes and data as h5py reads them.

use h5::low_level::io::vlen;
use h5::types::convert::VarLenHeap;
use h5::types::datatype::{ByteOrder, CharSet, Sign, StrPad, StringSize};
use h5::{Datatype, Group, LinkTarget, Node};

use crate::error::{ApiError, Result};
use crate::selection::Applied;
use crate::values::{dtype_str, is_bool_enum, numeric, Json, Values};

/// h5grove's `resolve_links`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkResolution {
    /// Links are reported, never followed.
    None,
    /// Links are followed when they resolve, else reported.
    OnlyValid,
    /// Links are followed; one that does not resolve is a 404.
    All,
}

impl LinkResolution {
    /// h5grove's `parse_link_resolution_arg`.
    pub fn parse(raw: Option<&str>) -> Result<LinkResolution> {
        let Some(raw) = raw else {
            return Ok(LinkResolution::OnlyValid);
        };
        match raw.to_lowercase().as_str() {
            "true" | "all" => Ok(LinkResolution::All),
            "false" | "none" => Ok(LinkResolution::None),
            "only_valid" => Ok(LinkResolution::OnlyValid),
            _ => Err(ApiError::query(format!(
                "{raw} is not a valid value for link resolution. Accepted values are: \
                 LinkResolution.ALL, LinkResolution.NONE or LinkResolution.ONLY_VALID"
            ))),
        }
    }
}

/// An entity: a link not followed, or an object.
pub enum Entity {
    /// A soft link.
    Soft {
        /// The path it was reached by.
        path: String,
        /// Its target.
        target: String,
    },
    /// An external link.
    External {
        /// The path it was reached by.
        path: String,
        /// The file it names.
        file: String,
        /// The path in that file.
        target: String,
    },
    /// An object.
    Object {
        /// The path it was reached by.
        path: String,
        /// The object.
        node: Node,
    },
}

/// The last segment of a path (h5grove's `name`).
fn name_of(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or("")
}

impl Entity {
    /// The path it was reached by.
    pub fn path(&self) -> &str {
        match self {
            Entity::Soft { path, .. }
            | Entity::External { path, .. }
            | Entity::Object { path, .. } => path,
        }
    }
}

/// h5grove's `get_entity_from_file`.
pub fn entity(f: &h5::File, basename: &str, path: &str, res: LinkResolution) -> Result<Entity> {
    let root = f.root()?;
    if path == "/" {
        return Ok(Entity::Object {
            path: path.into(),
            node: Node::Group(root),
        });
    }
    let missing = || ApiError::not_found(format!("{path} is not a valid path in {basename}"));
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (last, dirs) = parts.split_last().ok_or_else(missing)?;
    if last.is_empty() {
        return Err(missing());
    }
    let mut g: Group = root;
    for d in dirs {
        if d.is_empty() {
            continue;
        }
        g = g.group(d).map_err(|_| missing())?;
    }
    let link = g.link(last).map_err(|_| missing())?;
    let resolve = |p: &str| -> Result<Entity> {
        Ok(Entity::Object {
            path: p.into(),
            node: f.node(path)?,
        })
    };
    let (described, repr) = match &link.target {
        LinkTarget::Soft(t) => (
            Entity::Soft {
                path: path.into(),
                target: t.clone(),
            },
            format!("<SoftLink to \"{t}\">"),
        ),
        LinkTarget::External { file, path: t } => (
            Entity::External {
                path: path.into(),
                file: file.clone(),
                target: t.clone(),
            },
            format!("<ExternalLink to \"{t}\" in file \"{file}\""),
        ),
        _ => return resolve(path),
    };
    if res == LinkResolution::None {
        return Ok(described);
    }
    match f.node(path) {
        Ok(node) => Ok(Entity::Object {
            path: path.into(),
            node,
        }),
        Err(_) if res == LinkResolution::OnlyValid => Ok(described),
        Err(_) => Err(ApiError::not_found(format!(
            "Cannot resolve {repr} at {path} of {basename}"
        ))),
    }
}

/// h5grove's `get_type_metadata` of a file datatype.
pub fn type_meta(j: &mut Json, dt: &Datatype) {
    let order = |o: ByteOrder| if o == ByteOrder::BigEndian { "1" } else { "0" };
    let key = |j: &mut Json, k: &str| {
        j.raw(",");
        j.string(k);
        j.raw(":");
    };
    j.raw("{\"class\":");
    let class = match dt {
        Datatype::Integer(_) => 0,
        Datatype::Float(_) => 1,
        Datatype::Time(_) => 2,
        Datatype::String(_) => 3,
        Datatype::Bitfield(_) => 4,
        Datatype::Opaque(_) => 5,
        Datatype::Compound(_) => 6,
        Datatype::Reference(_) => 7,
        Datatype::Enum(_) => 8,
        Datatype::VarLen(_) => 9,
        Datatype::Array(_) => 10,
        Datatype::Complex(_) => 11,
    };
    j.raw(&class.to_string());
    key(j, "dtype");
    stringify_dtype(j, dt);
    key(j, "size");
    j.raw(&dt.size().to_string());
    match dt {
        Datatype::Integer(i) => {
            key(j, "order");
            j.raw(order(i.order()));
            key(j, "sign");
            j.raw(if i.sign() == Sign::None { "0" } else { "1" });
        }
        Datatype::Float(f) => {
            key(j, "order");
            j.raw(order(f.atomic().order()));
        }
        Datatype::Bitfield(b) => {
            key(j, "order");
            j.raw(order(b.order()));
        }
        Datatype::String(s) => {
            key(j, "cset");
            j.raw(if s.cset() == CharSet::Utf8 { "1" } else { "0" });
            key(j, "strpad");
            j.raw(match s.pad() {
                StrPad::NullTerm => "0",
                StrPad::NullPad => "1",
                StrPad::SpacePad => "2",
            });
            key(j, "vlen");
            j.raw(if s.string_size() == StringSize::Variable {
                "true"
            } else {
                "false"
            });
        }
        Datatype::Opaque(o) => {
            key(j, "tag");
            j.string(o.tag());
        }
        Datatype::Compound(c) => {
            key(j, "members");
            j.raw("[");
            for (k, m) in c.members().iter().enumerate() {
                if k > 0 {
                    j.raw(",");
                }
                let mut inner = Json::new();
                type_meta(&mut inner, m.datatype());
                j.raw("{\"name\":");
                j.string(m.name());
                j.raw(",");
                j.raw(&inner.out[1..]);
            }
            j.raw("]");
        }
        Datatype::Enum(e) => {
            key(j, "members");
            j.raw("{");
            let b = e.base();
            for (k, m) in e.members().iter().enumerate() {
                if k > 0 {
                    j.raw(",");
                }
                j.string(m.name());
                j.raw(":");
                let mut v = Json::new();
                let _ = crate::values::element(
                    &mut v,
                    &Datatype::Integer(*b),
                    m.raw_value(),
                    &VarLenHeap::new(),
                    true,
                );
                j.raw(&v.out);
            }
            j.raw("}");
            key(j, "base");
            type_meta(j, &Datatype::Integer(*b));
        }
        Datatype::VarLen(v) => {
            key(j, "base");
            type_meta(j, v.base());
        }
        Datatype::Array(a) => {
            key(j, "dims");
            list(j, a.dims());
            key(j, "base");
            type_meta(j, a.base());
        }
        _ => {}
    }
    j.raw("}");
}

/// h5grove's `stringify_dtype`: a compound's fields as an object, else numpy's `dtype.str`.
fn stringify_dtype(j: &mut Json, dt: &Datatype) {
    match dt {
        Datatype::Compound(c) if numeric(dt).is_none() => {
            j.raw("{");
            for (k, m) in c.members().iter().enumerate() {
                if k > 0 {
                    j.raw(",");
                }
                j.string(m.name());
                j.raw(":");
                stringify_dtype(j, m.datatype());
            }
            j.raw("}");
        }
        Datatype::Enum(_) if is_bool_enum(dt) => j.string("|b1"),
        _ => j.string(&dtype_str(dt)),
    }
}

fn list(j: &mut Json, v: &[u64]) {
    j.raw("[");
    for (k, x) in v.iter().enumerate() {
        if k > 0 {
            j.raw(",");
        }
        j.raw(&x.to_string());
    }
    j.raw("]");
}

fn attrs_of(node: &Node) -> Result<Vec<h5::Attribute>> {
    Ok(match node {
        Node::Group(g) => g.attrs()?,
        Node::Dataset(d) => d.attrs()?,
        Node::Datatype(t) => t.attrs()?,
    })
}

/// An attribute's shape as h5py's `AttrID.shape`.
fn attr_shape(a: &h5::Attribute) -> Vec<u64> {
    a.shape()
}

/// h5grove's `metadata(depth)` of an entity.
pub fn metadata(j: &mut Json, f: &h5::File, e: &Entity, depth: u32) -> Result<()> {
    let path = e.path();
    match e {
        Entity::Soft { target, .. } => {
            j.raw("{\"kind\":\"soft_link\",\"name\":");
            j.string(name_of(path));
            j.raw(",\"target_path\":");
            j.string(target);
            j.raw("}");
        }
        Entity::External { file, target, .. } => {
            j.raw("{\"kind\":\"external_link\",\"name\":");
            j.string(name_of(path));
            j.raw(",\"target_file\":");
            j.string(file);
            j.raw(",\"target_path\":");
            j.string(target);
            j.raw("}");
        }
        Entity::Object { node, .. } => {
            let mut attrs = attrs_of(node)?;
            attrs.sort_by(|a, b| a.name().cmp(b.name()));
            j.raw("{\"attributes\":[");
            for (k, a) in attrs.iter().enumerate() {
                if k > 0 {
                    j.raw(",");
                }
                j.raw("{\"name\":");
                j.string(a.name());
                j.raw(",\"shape\":");
                if matches!(a.dataspace(), h5::Dataspace::Null) {
                    j.raw("null");
                } else {
                    list(j, &attr_shape(a));
                }
                j.raw(",\"type\":");
                type_meta(j, a.datatype());
                j.raw("}");
            }
            j.raw("]");
            match node {
                Node::Group(g) => {
                    if depth > 0 {
                        j.raw(",\"children\":[");
                        // h5py's keys(): creation order when the group tracks it.
                        let names = g
                            .member_names_by_creation_order()
                            .or_else(|_| g.member_names())?;
                        for (k, name) in names.iter().enumerate() {
                            if k > 0 {
                                j.raw(",");
                            }
                            let child = join(path, name);
                            let c = entity(f, "", &child, LinkResolution::OnlyValid)?;
                            metadata(j, f, &c, depth - 1)?;
                        }
                        j.raw("]");
                    }
                    j.raw(",\"kind\":\"group\"");
                }
                Node::Dataset(d) => {
                    j.raw(",\"chunks\":");
                    match d.chunk_dims() {
                        Some(c) => list(j, &c),
                        None => j.raw("null"),
                    }
                    j.raw(",\"filters\":");
                    let filters = d.filters();
                    if filters.is_empty() {
                        j.raw("null");
                    } else {
                        j.raw("[");
                        for (k, fl) in filters.iter().enumerate() {
                            if k > 0 {
                                j.raw(",");
                            }
                            j.raw(&format!("{{\"id\":{},\"name\":", fl.id.0));
                            let name = fl
                                .name_text()
                                .or_else(|| fl.id.name().map(str::to_string))
                                .unwrap_or_default();
                            j.string(&name);
                            j.raw("}");
                        }
                        j.raw("]");
                    }
                    j.raw(",\"kind\":\"dataset\"");
                }
                Node::Datatype(_) => j.raw(",\"kind\":\"datatype\""),
            }
            j.raw(",\"name\":");
            j.string(name_of(path));
            match node {
                Node::Dataset(d) => {
                    j.raw(",\"shape\":");
                    if matches!(d.dataspace(), h5::Dataspace::Null) {
                        j.raw("null");
                    } else {
                        list(j, &d.shape());
                    }
                    j.raw(",\"type\":");
                    type_meta(j, &d.datatype());
                }
                Node::Datatype(t) => {
                    j.raw(",\"type\":");
                    type_meta(j, &t.datatype()?);
                }
                Node::Group(_) => {}
            }
            j.raw("}");
        }
    }
    Ok(())
}

/// h5grove's `hdf_path_join`.
pub fn join(prefix: &str, suffix: &str) -> String {
    if prefix == "/" {
        format!("/{suffix}")
    } else {
        format!("{}/{suffix}", prefix.trim_end_matches('/'))
    }
}

/// Values in memory from raw elements of file type `dt`: variable-length parts read into a
/// heap, a top-level array type's dimensions added to the shape (as h5py does).
pub fn to_values(
    f: &h5::File,
    dt: &Datatype,
    raw: Vec<u8>,
    mut shape: Vec<u64>,
    empty: bool,
) -> Result<Values> {
    let (mut dtype, bytes, heap) = if dt.has_variable_length() {
        let io = f.inner()?;
        vlen::memory_image(&io, dt, &raw).map_err(|e| ApiError::internal(e.to_string()))?
    } else {
        (dt.clone(), raw, VarLenHeap::new())
    };
    if let Datatype::Array(a) = &dtype {
        shape.extend_from_slice(a.dims());
        let base = a.base().clone();
        dtype = base;
    }
    Ok(Values {
        dtype,
        bytes,
        heap,
        shape,
        empty,
    })
}

/// The bytes a selection of `d` takes in memory (what the limit bounds).
pub fn selection_bytes(d: &h5::Dataset, a: &Applied) -> u64 {
    a.len().saturating_mul(d.datatype().size() as u64)
}

/// The selected elements of a dataset as h5py reads `dataset[selection]`.
pub fn read(f: &h5::File, d: &h5::Dataset, a: &Applied) -> Result<Values> {
    let dt = d.datatype();
    let space = d.dataspace();
    if matches!(space, h5::Dataspace::Null) {
        return to_values(f, &dt, Vec::new(), Vec::new(), true);
    }
    let n = a.len();
    let raw = if n == 0 {
        Vec::new()
    } else if a.is_all(&d.shape()) {
        d.read_raw()?.0
    } else {
        let sel = h5::Selection::hyperslab(&space, &a.start, Some(&a.stride), &a.count, None)
            .map_err(|e| ApiError::internal(e.to_string()))?;
        d.read_raw_selection(&sel, &h5::MemoryMap::packed(n))?
    };
    to_values(f, &dt, raw, a.shape.clone(), false)
}

/// An attribute's value as h5py reads it.
pub fn attr_values(f: &h5::File, a: &h5::Attribute) -> Result<Values> {
    let (raw, dt) = a.read_raw()?;
    let empty = matches!(a.dataspace(), h5::Dataspace::Null);
    to_values(f, &dt, raw, a.shape(), empty)
}

/// The most groups `/paths` walks (bounds time and depth on hostile files).
const MAX_GROUPS: usize = 100_000;
/// The deepest `/paths` descends.
const MAX_DEPTH: usize = 512;

/// Every link below `base` (h5py's `links.visit`: depth first, in name order, each group
/// once), as paths from `base`.
pub fn visit(
    g: &Group,
    prefix: &str,
    seen: &mut std::collections::HashSet<u64>,
    out: &mut Vec<String>,
) -> Result<()> {
    let depth = prefix.split('/').count();
    if seen.len() > MAX_GROUPS || depth > MAX_DEPTH {
        return Err(ApiError::internal(format!(
            "more than {MAX_GROUPS} groups or {MAX_DEPTH} levels below the path"
        )));
    }
    for l in g.links()? {
        let rel = if prefix.is_empty() {
            l.name.clone()
        } else {
            format!("{prefix}/{}", l.name)
        };
        out.push(rel.clone());
        if let LinkTarget::Hard(addr) = l.target {
            if seen.contains(&addr.0) {
                continue;
            }
            if let Ok(Node::Group(child)) = g.node(&l.name) {
                seen.insert(addr.0);
                visit(&child, &rel, seen, out)?;
            }
        }
    }
    Ok(())
}
