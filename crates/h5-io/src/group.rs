//! Groups: their links, and paths resolved through them (hard links, soft links with a depth
//! limit, external links when the file's options allow them; user-defined links are reported,
//! never followed).

use std::collections::HashSet;
use std::sync::Arc;

use h5_format::Addr;

use crate::attribute::{self, Attribute};
use crate::dataset::Dataset;
use crate::error::{bail, ensure, Error, ErrorKind, Result};
use crate::file::File;
use crate::link::{self, Link, LinkStorage, LinkTarget};
use crate::object::{Object, ObjectKind};

/// How many soft or external links one path resolution may follow (`H5L_NUM_LINKS`).
pub const MAX_LINK_HOPS: usize = 16;

/// An object found by path: the file it is in (another one for external links), its
/// address and the path it was found by.
#[derive(Clone, Debug)]
pub struct Location {
    /// The file holding the object.
    pub file: File,
    /// The object header's address.
    pub addr: Addr,
    /// The path the object was reached by (absolute in its file).
    pub path: String,
}

impl Location {
    /// The object's decoded header.
    pub fn object(&self) -> Result<Arc<Object>> {
        self.file.object(self.addr).map_err(|e| e.at(&self.path))
    }
}

/// An opened object of any kind.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Node {
    /// A group.
    Group(Group),
    /// A dataset.
    Dataset(Dataset),
    /// A committed datatype.
    Datatype(NamedDatatype),
}

/// A committed (named) datatype.
#[derive(Clone, Debug)]
pub struct NamedDatatype {
    loc: Location,
    datatype: h5_types::Datatype,
}

impl NamedDatatype {
    /// The committed datatype at a location (checks that it is one).
    pub(crate) fn at(loc: Location) -> Result<NamedDatatype> {
        let obj = loc.object()?;
        match obj.kind() {
            ObjectKind::Datatype => {
                let datatype = crate::dataset::datatype_of(&obj).map_err(|e| e.at(&loc.path))?;
                Ok(NamedDatatype { loc, datatype })
            }
            k => Err(Error::new(
                ErrorKind::WrongKind,
                format!("a {k:?}, not a committed datatype"),
            )
            .at(loc.path)),
        }
    }

    /// The datatype.
    pub fn datatype(&self) -> &h5_types::Datatype {
        &self.datatype
    }

    /// Where it is.
    pub fn location(&self) -> &Location {
        &self.loc
    }

    /// Its attributes.
    pub fn attrs(&self) -> Result<Vec<Attribute>> {
        attribute::attributes(&self.loc)
    }
}

/// A group.
#[derive(Clone, Debug)]
pub struct Group {
    loc: Location,
    obj: Arc<Object>,
}

/// The path of member `name` of the group at path `base`.
pub fn join(base: &str, name: &str) -> String {
    if base.ends_with('/') {
        format!("{base}{name}")
    } else {
        format!("{base}/{name}")
    }
}

impl File {
    /// The root group.
    pub fn root(&self) -> Result<Group> {
        Group::at(Location {
            file: self.clone(),
            addr: self.root_address(),
            path: "/".into(),
        })
    }

    /// Resolve an absolute path (or relative to the root).
    pub fn locate(&self, path: &str) -> Result<Location> {
        self.root()?.locate(path)
    }

    /// Open the object at `path`, whatever it is.
    pub fn node(&self, path: &str) -> Result<Node> {
        self.root()?.node(path)
    }

    /// The group at `path`.
    pub fn group(&self, path: &str) -> Result<Group> {
        self.root()?.group(path)
    }

    /// The dataset at `path`.
    pub fn dataset(&self, path: &str) -> Result<Dataset> {
        self.root()?.dataset(path)
    }

    /// The committed datatype at `path`.
    pub fn datatype(&self, path: &str) -> Result<NamedDatatype> {
        self.root()?.datatype(path)
    }

    /// An attribute of the root group.
    pub fn attr(&self, name: &str) -> Result<Attribute> {
        self.root()?.attr(name)
    }

    /// Every object reachable from the root through hard links, each once, with the first
    /// path it was found by, in depth-first name order. Loops in the graph are visited once;
    /// soft, external and user-defined links are not followed.
    pub fn walk(&self) -> Result<Vec<(String, Addr, ObjectKind)>> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let root = self.root()?;
        seen.insert(root.loc.addr.0);
        out.push(("/".to_string(), root.loc.addr, ObjectKind::Group));
        let mut stack = vec![root];
        while let Some(g) = stack.pop() {
            let mut children = Vec::new();
            for l in g.links()? {
                let LinkTarget::Hard(a) = l.target else {
                    continue;
                };
                if !seen.insert(a.0) {
                    continue;
                }
                let path = join(&g.loc.path, &l.name);
                let obj = self.object(a).map_err(|e| e.at(&path))?;
                let kind = obj.kind();
                out.push((path.clone(), a, kind));
                if kind == ObjectKind::Group {
                    children.push(Group {
                        loc: Location {
                            file: self.clone(),
                            addr: a,
                            path,
                        },
                        obj,
                    });
                }
            }
            stack.extend(children.into_iter().rev());
        }
        Ok(out)
    }
}

impl Group {
    /// The group at a location (checks that it is one).
    pub fn at(loc: Location) -> Result<Group> {
        let obj = loc.object()?;
        match obj.kind() {
            ObjectKind::Group => Ok(Group { loc, obj }),
            k => {
                Err(Error::new(ErrorKind::WrongKind, format!("a {k:?}, not a group")).at(loc.path))
            }
        }
    }

    /// Where the group is.
    pub fn location(&self) -> &Location {
        &self.loc
    }

    /// The group's path.
    pub fn path(&self) -> &str {
        &self.loc.path
    }

    /// The file holding the group.
    pub fn file(&self) -> &File {
        &self.loc.file
    }

    /// The decoded object header.
    pub fn object(&self) -> &Object {
        &self.obj
    }

    /// How the links are stored.
    pub fn storage(&self) -> Result<LinkStorage> {
        link::storage(&self.obj).map_err(|e| e.at(&self.loc.path))
    }

    /// The links in name order (byte order of the names, as the reference library's name
    /// index).
    pub fn links(&self) -> Result<Vec<Link>> {
        let mut v = link::links(&self.loc.file, &self.obj).map_err(|e| e.at(&self.loc.path))?;
        in_name_order(&mut v, |l| l.name.as_bytes());
        Ok(v)
    }

    /// The names of the links in name order (as [`Group::links`] orders them); a symbol
    /// table's without making its links.
    pub fn member_names(&self) -> Result<Vec<String>> {
        let mut v = link::names(&self.loc.file, &self.obj).map_err(|e| e.at(&self.loc.path))?;
        in_name_order(&mut v, |n| n.as_bytes());
        Ok(v)
    }

    /// The links in creation order; an error when the group does not track it.
    pub fn links_by_creation_order(&self) -> Result<Vec<Link>> {
        let mut v = link::links(&self.loc.file, &self.obj).map_err(|e| e.at(&self.loc.path))?;
        if v.iter().any(|l| l.creation_order.is_none()) {
            return Err(Error::new(
                ErrorKind::NotFound,
                "the group does not track link creation order",
            )
            .at(&self.loc.path));
        }
        v.sort_by_key(|l| l.creation_order);
        Ok(v)
    }

    /// The link called `name`.
    /// Found through the group's B-tree or name index (O(log n) reads), not a listing.
    pub fn link(&self, name: &str) -> Result<Link> {
        link::find(&self.loc.file, &self.obj, name)
            .map_err(|e| e.at(&self.loc.path))?
            .ok_or_else(|| {
                Error::new(ErrorKind::NotFound, format!("no link {name:?}")).at(&self.loc.path)
            })
    }

    /// Resolve `path`: absolute (from the file's root) or relative to this group.
    pub fn locate(&self, path: &str) -> Result<Location> {
        let mut hops = 0;
        resolve(&self.loc, path, &mut hops).map_err(|e| e.at(path))
    }

    /// Open the object at `path`.
    pub fn node(&self, path: &str) -> Result<Node> {
        let loc = self.locate(path)?;
        let obj = loc.object()?;
        match obj.kind() {
            ObjectKind::Group => Ok(Node::Group(Group { loc, obj })),
            ObjectKind::Dataset => Ok(Node::Dataset(Dataset::at(loc)?)),
            ObjectKind::Datatype => {
                let datatype = crate::dataset::datatype_of(&obj).map_err(|e| e.at(&loc.path))?;
                Ok(Node::Datatype(NamedDatatype { loc, datatype }))
            }
            ObjectKind::Unknown => {
                Err(Error::new(ErrorKind::WrongKind, "an object of unknown kind").at(loc.path))
            }
        }
    }

    /// The group at `path`.
    pub fn group(&self, path: &str) -> Result<Group> {
        Group::at(self.locate(path)?)
    }

    /// The dataset at `path`.
    pub fn dataset(&self, path: &str) -> Result<Dataset> {
        Dataset::at(self.locate(path)?)
    }

    /// The committed datatype at `path`.
    pub fn datatype(&self, path: &str) -> Result<NamedDatatype> {
        match self.node(path)? {
            Node::Datatype(t) => Ok(t),
            _ => Err(Error::new(ErrorKind::WrongKind, "not a committed datatype").at(path)),
        }
    }

    /// The attribute `name` of this group.
    pub fn attr(&self, name: &str) -> Result<Attribute> {
        attribute::attribute(&self.loc, name)
    }

    /// Every attribute of this group, in name order.
    pub fn attrs(&self) -> Result<Vec<Attribute>> {
        attribute::attributes(&self.loc)
    }

    /// Every attribute, in creation order (when the object tracks it).
    pub fn attrs_by_creation_order(&self) -> Result<Vec<Attribute>> {
        attribute::attributes_by_creation_order(&self.loc)
    }
}

/// Resolve `path` from the group at `start`.
fn resolve(start: &Location, path: &str, hops: &mut usize) -> Result<Location> {
    let mut cur = if path.starts_with('/') {
        Location {
            file: start.file.clone(),
            addr: start.file.root_address(),
            path: "/".into(),
        }
    } else {
        start.clone()
    };
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    for name in parts {
        let obj = cur.object()?;
        ensure!(
            obj.kind() == ObjectKind::Group,
            WrongKind,
            "{} is not a group",
            cur.path
        );
        let l = link::find(&cur.file, &obj, name)
            .map_err(|e| e.at(&cur.path))?
            .ok_or_else(|| {
                Error::new(ErrorKind::NotFound, format!("no link {name:?}")).at(&cur.path)
            })?;
        let here = join(&cur.path, name);
        cur = follow(&cur, &l, here, hops)?;
    }
    Ok(cur)
}

/// Follow one link found in group `group`.
fn follow(group: &Location, l: &Link, here: String, hops: &mut usize) -> Result<Location> {
    match &l.target {
        LinkTarget::Hard(a) => Ok(Location {
            file: group.file.clone(),
            addr: *a,
            path: here,
        }),
        LinkTarget::Soft(p) => {
            *hops += 1;
            ensure!(
                *hops <= MAX_LINK_HOPS,
                Link,
                "{here}: more than {MAX_LINK_HOPS} soft or external links (a loop?)"
            );
            let mut loc = resolve(group, p, hops).map_err(|e| {
                Error::new(ErrorKind::Link, format!("soft link {here} -> {p}: {e}"))
            })?;
            // Keep the path the caller used.
            loc.path = here;
            Ok(loc)
        }
        LinkTarget::External { file, path } => {
            *hops += 1;
            ensure!(
                *hops <= MAX_LINK_HOPS,
                Link,
                "{here}: more than {MAX_LINK_HOPS} soft or external links (a loop?)"
            );
            if !group.file.options().external_links {
                bail!(
                    Link,
                    "{here} is an external link to {file}:{path}; external links are not followed unless allowed"
                );
            }
            let f = group
                .file
                .open_prefixed(file, "HDF5_EXT_PREFIX")
                .ok_or_else(|| {
                    Error::new(
                        ErrorKind::Link,
                        format!("external link {here} -> {file}: unable to open the file"),
                    )
                })?;
            let root = f.root()?;
            resolve(&root.loc, path, hops)
        }
        LinkTarget::UserDefined { link_type, .. } => bail!(
            Link,
            "{here} is a user-defined link of type {link_type}, which is not followed"
        ),
    }
}

/// Sort `v` by the bytes of each item's name (`name`), unless it is in that order already
/// (a symbol table lists in name order).
fn in_name_order<T>(v: &mut [T], name: fn(&T) -> &[u8]) {
    if !v.is_sorted_by(|a, b| name(a) <= name(b)) {
        v.sort_by(|a, b| name(a).cmp(name(b)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert_eq!(join("/", "a"), "/a");
        assert_eq!(join("/a", "b"), "/a/b");
    }
}
