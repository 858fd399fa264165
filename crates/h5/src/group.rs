//! [`Group`]: links, navigation, and creating groups, datasets, attributes and links; also
//! [`CommittedType`] and [`Node`].

use h5_io::write::{CreationOrder, GroupOptions, LinkSpec};
use h5_types::h5type::ObjectRef;
use h5_types::{Datatype, H5Type};

use crate::attribute::{AttrBuilder, Attribute};
use crate::dataset::{Dataset, DatasetBuilder, DatasetBuilderUntyped};
use crate::error::{Error, ErrorKind, Result};
use crate::file::File;
use crate::object::{join, Obj, ObjectKind};

pub use h5_io::link::{Link, LinkStorage, LinkTarget};

/// An object of any kind, as found by path or reference.
#[derive(Clone, Debug)]
pub enum Node {
    /// A group.
    Group(Group),
    /// A dataset.
    Dataset(Dataset),
    /// A committed datatype.
    Datatype(CommittedType),
}

impl Node {
    /// The object's kind.
    pub fn kind(&self) -> ObjectKind {
        match self {
            Node::Group(_) => ObjectKind::Group,
            Node::Dataset(_) => ObjectKind::Dataset,
            Node::Datatype(_) => ObjectKind::Datatype,
        }
    }

    /// The path the object was reached by.
    pub fn path(&self) -> &str {
        match self {
            Node::Group(g) => g.path(),
            Node::Dataset(d) => d.path(),
            Node::Datatype(t) => t.path(),
        }
    }

    pub(crate) fn of(obj: Obj, kind: ObjectKind) -> Result<Node> {
        Ok(match kind {
            ObjectKind::Group => Node::Group(Group { obj }),
            ObjectKind::Dataset => Node::Dataset(Dataset::from_obj(obj)?),
            ObjectKind::Datatype => Node::Datatype(CommittedType { obj }),
            _ => {
                return Err(
                    Error::new(ErrorKind::Unsupported, "an object of unknown kind").at(obj.path),
                )
            }
        })
    }
}

/// A group: read its links and attributes, create objects in it.
///
/// Paths are relative to the group, or absolute (from the root); `"a/b/c"` walks links.
#[derive(Clone, Debug)]
pub struct Group {
    pub(crate) obj: Obj,
}

impl Group {
    pub(crate) fn at_root(file: &File, addr: u64) -> Group {
        Group {
            obj: Obj {
                file: file.clone(),
                addr,
                path: "/".to_owned(),
                foreign: None,
            },
        }
    }

    /// The group's path (the one it was reached by).
    pub fn path(&self) -> &str {
        &self.obj.path
    }

    /// The last component of the path (`"/"` for the root).
    pub fn name(&self) -> &str {
        self.obj.name()
    }

    /// The file the group was reached from.
    pub fn file(&self) -> &File {
        &self.obj.file
    }

    /// The low-level reader's group, as the file is now (see [`crate::low_level`]).
    pub fn inner(&self) -> Result<h5_io::Group> {
        self.io()
    }

    /// The low-level reader's group.
    pub(crate) fn io(&self) -> Result<h5_io::Group> {
        let (_, loc) = self.obj.location()?;
        Ok(h5_io::Group::at(loc)?)
    }

    /// Find the object at `path` and its kind.
    fn find(&self, path: &str) -> Result<(Obj, ObjectKind)> {
        if path.is_empty() {
            return Err(Error::new(ErrorKind::InvalidInput, "an empty path"));
        }
        if self.obj.is_writable() {
            // The writer's model first: no flush needed for objects it made or loaded.
            let r = self.obj.query(|w, id| {
                let t = w.open(id, path)?;
                Ok((w.address(t)?, w.kind(t)?))
            });
            match r {
                Ok((addr, kind)) => {
                    let obj = Obj {
                        file: self.obj.file.clone(),
                        addr,
                        path: join(&self.obj.path, path),
                        foreign: None,
                    };
                    return Ok((obj, kind));
                }
                Err(e) if e.kind() == ErrorKind::NotFound => {
                    return Err(
                        Error::new(ErrorKind::NotFound, format!("no object {path:?}"))
                            .at(join(&self.obj.path, path)),
                    )
                }
                // Soft or external links on the way: the reader follows them.
                Err(_) => {}
            }
        }
        let g = self.io()?;
        let loc = g.locate(path)?;
        let kind = loc.object()?.kind();
        Ok((Obj::from_location(&self.obj.file, g.file(), &loc), kind))
    }

    /// The object at `path`, whatever its kind.
    pub fn node(&self, path: &str) -> Result<Node> {
        let (obj, kind) = self.find(path)?;
        Node::of(obj, kind)
    }

    /// The group at `path`; an error of kind [`ErrorKind::WrongKind`] for another kind of
    /// object.
    pub fn group(&self, path: &str) -> Result<Group> {
        match self.node(path)? {
            Node::Group(g) => Ok(g),
            n => Err(wrong_kind(&n, "a group")),
        }
    }

    /// The dataset at `path`; an error of kind [`ErrorKind::WrongKind`] for another kind of
    /// object.
    pub fn dataset(&self, path: &str) -> Result<Dataset> {
        match self.node(path)? {
            Node::Dataset(d) => Ok(d),
            n => Err(wrong_kind(&n, "a dataset")),
        }
    }

    /// The committed datatype at `path`.
    pub fn datatype(&self, path: &str) -> Result<CommittedType> {
        match self.node(path)? {
            Node::Datatype(t) => Ok(t),
            n => Err(wrong_kind(&n, "a committed datatype")),
        }
    }

    /// Whether a link at `path` exists (`H5Lexists` on each component: the last one may be
    /// a dangling soft link). Intermediate components must be groups.
    pub fn exists(&self, path: &str) -> Result<bool> {
        if path.is_empty() {
            return Err(Error::new(ErrorKind::InvalidInput, "an empty path"));
        }
        if self.obj.is_writable() {
            let r = self.obj.query(|w, id| {
                let (dir, last) = split_last(path);
                let g = match dir {
                    Some(d) => match w.open(id, d) {
                        Ok(g) => g,
                        Err(e) if e.kind() == h5_io::write::ErrorKind::NotFound => {
                            return Ok(Some(false))
                        }
                        Err(_) => return Ok(None),
                    },
                    None => id,
                };
                match last {
                    None => Ok(Some(true)),
                    Some(n) => Ok(Some(w.exists(g, n))),
                }
            });
            match r {
                Ok(Some(b)) => return Ok(b),
                Ok(None) => {}
                Err(e) if e.kind() == ErrorKind::WrongKind => return Ok(false),
                Err(_) => {}
            }
        }
        let (dir, last) = split_last(path);
        let Some(last) = last else {
            return Ok(true);
        };
        let g = match dir {
            Some(d) => match self.group(d) {
                Ok(g) => g,
                Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::WrongKind) => {
                    return Ok(false)
                }
                Err(e) => return Err(e),
            },
            None => self.clone(),
        };
        // One lookup through the group's name index, not a listing of every link.
        match g.io()?.link(last) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == h5_io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// How the links are stored.
    pub fn storage(&self) -> Result<LinkStorage> {
        Ok(self.io()?.storage()?)
    }

    /// The links, in name order.
    pub fn links(&self) -> Result<Vec<Link>> {
        Ok(self.io()?.links()?)
    }

    /// The links in creation order; an error when the group does not track it.
    pub fn links_by_creation_order(&self) -> Result<Vec<Link>> {
        Ok(self.io()?.links_by_creation_order()?)
    }

    /// The link called `name`.
    pub fn link(&self, name: &str) -> Result<Link> {
        Ok(self.io()?.link(name)?)
    }

    /// The names of the links, in name order.
    pub fn member_names(&self) -> Result<Vec<String>> {
        if self.obj.is_writable() {
            return self.obj.query(|w, id| w.link_names(id));
        }
        Ok(self.io()?.member_names()?)
    }

    /// The names of the links, in creation order (when the group tracks it).
    pub fn member_names_by_creation_order(&self) -> Result<Vec<String>> {
        if self.obj.is_writable() {
            return self.obj.query(|w, id| w.link_names_by_creation_order(id));
        }
        Ok(self
            .links_by_creation_order()?
            .into_iter()
            .map(|l| l.name)
            .collect())
    }

    /// The number of links.
    pub fn len(&self) -> Result<usize> {
        Ok(self.member_names()?.len())
    }

    /// Whether the group has no links.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// The groups linked from this one (hard links), in name order.
    pub fn groups(&self) -> Result<Vec<Group>> {
        self.children(|n| match n {
            Node::Group(g) => Some(g),
            _ => None,
        })
    }

    /// The datasets linked from this one (hard links), in name order.
    pub fn datasets(&self) -> Result<Vec<Dataset>> {
        self.children(|n| match n {
            Node::Dataset(d) => Some(d),
            _ => None,
        })
    }

    fn children<T>(&self, pick: impl Fn(Node) -> Option<T>) -> Result<Vec<T>> {
        let mut out = Vec::new();
        for l in self.links()? {
            if let LinkTarget::Hard(_) = l.target {
                if let Some(t) = pick(self.node(&l.name)?) {
                    out.push(t);
                }
            }
        }
        Ok(out)
    }

    /// The attribute `name`.
    pub fn attr(&self, name: &str) -> Result<Attribute> {
        Attribute::open(&self.obj, name)
    }

    /// Every attribute, in name order.
    pub fn attrs(&self) -> Result<Vec<Attribute>> {
        Attribute::all(&self.obj, false)
    }

    /// Every attribute, in creation order (when the object tracks it).
    pub fn attrs_by_creation_order(&self) -> Result<Vec<Attribute>> {
        Attribute::all(&self.obj, true)
    }

    /// The attribute names, in name order.
    pub fn attr_names(&self) -> Result<Vec<String>> {
        Attribute::names(&self.obj)
    }

    /// Whether the group has an attribute `name`.
    pub fn has_attr(&self, name: &str) -> Result<bool> {
        Ok(self.attr_names()?.iter().any(|n| n == name))
    }

    /// An object reference to this group.
    pub fn reference(&self) -> Result<ObjectRef> {
        Ok(ObjectRef::new(self.obj.addr))
    }

    // ----- writing -----

    /// Create a group at `path` (relative or absolute), with any missing intermediate
    /// groups.
    pub fn create_group(&self, path: &str) -> Result<Group> {
        let id = self.obj.write(|w, id| w.create_group(id, path))?;
        self.child(id, path)
    }

    /// Create a group at `path` with `options`: link and attribute creation-order tracking
    /// (h5py's `track_order=True` is [`GroupOptions::track_order`]). Missing intermediate
    /// groups get the default options.
    pub fn create_group_with(&self, path: &str, options: GroupOptions) -> Result<Group> {
        let id = self
            .obj
            .write(|w, id| w.create_group_with(id, path, &options))?;
        self.child(id, path)
    }

    pub(crate) fn child(&self, id: h5_io::write::ObjId, path: &str) -> Result<Group> {
        let addr = self.obj.file.query(|w| w.address(id))?;
        Ok(Group {
            obj: Obj {
                file: self.obj.file.clone(),
                addr,
                path: join(&self.obj.path, path),
                foreign: None,
            },
        })
    }

    /// Track (and index) the creation order of this group's links; only while it has none.
    pub fn set_link_order(&self, order: CreationOrder) -> Result<()> {
        self.obj.write(|w, id| w.set_link_order(id, order))
    }

    /// Track (and index) the creation order of this group's attributes; only before its
    /// first attribute.
    pub fn set_attr_order(&self, order: CreationOrder) -> Result<()> {
        self.obj.write(|w, id| w.set_attribute_order(id, order))
    }

    /// Start building a dataset of `T` (the file type is `T`'s datatype unless
    /// [`DatasetBuilder::dtype`] says otherwise). Give it a [`shape`](DatasetBuilder::shape),
    /// or ask for a [`scalar`](DatasetBuilder::scalar).
    pub fn new_dataset<T: H5Type>(&self) -> DatasetBuilder<T> {
        DatasetBuilder::new(self.obj.clone())
    }

    /// Start building a dataset whose type and shape come from its data
    /// ([`DatasetBuilderUntyped::with_data`]), hdf5-metno's form.
    pub fn new_dataset_builder(&self) -> DatasetBuilderUntyped {
        DatasetBuilderUntyped::new(self.obj.clone())
    }

    /// Commit (name) a datatype at `path`; datasets and attributes created with
    /// [`DatasetBuilder::committed`] share it.
    pub fn commit_datatype(&self, path: &str, datatype: &Datatype) -> Result<CommittedType> {
        let id = self
            .obj
            .write(|w, id| w.commit_datatype(id, path, datatype))?;
        let g = self.child(id, path)?;
        Ok(CommittedType { obj: g.obj })
    }

    /// A soft link at `path` to `target` (may dangle).
    pub fn link_soft(&self, target: &str, path: &str) -> Result<()> {
        self.obj
            .write(|w, id| w.create_link(id, path, LinkSpec::Soft(target.to_owned())))
    }

    /// An external link at `path` to `object` in `file`.
    pub fn link_external(&self, file: &str, object: &str, path: &str) -> Result<()> {
        self.obj.write(|w, id| {
            w.create_link(
                id,
                path,
                LinkSpec::External {
                    file: file.to_owned(),
                    path: object.to_owned(),
                },
            )
        })
    }

    /// A hard link at `path` to an existing object (given by a path).
    pub fn link_hard(&self, target: &str, path: &str) -> Result<()> {
        self.obj.write(|w, id| {
            let t = w.open(id, target)?;
            w.create_link(id, path, LinkSpec::Hard(t))
        })
    }

    /// Start building an attribute of `T` on this group.
    pub fn new_attr<T: H5Type>(&self) -> AttrBuilder<T> {
        AttrBuilder::new(self.obj.clone())
    }

    /// Remove the link at `path` (`H5Ldelete`): hard, soft or external. An object whose
    /// last hard link goes is freed with everything it owns, and its space is reused by
    /// later writes to the file.
    pub fn unlink(&self, path: &str) -> Result<()> {
        self.obj.write(|w, id| w.unlink(id, path))
    }

    /// Move the link at `from` to `to` (`H5Lmove`), within or across groups of the file;
    /// the object keeps its address (references to it stay valid). An error of kind
    /// [`ErrorKind::AlreadyExists`] if `to` exists.
    pub fn rename(&self, from: &str, to: &str) -> Result<()> {
        self.obj.write(|w, id| w.rename(id, from, to))
    }

    /// Copy the object at `src` (relative to this group) with everything below it into
    /// `dst` as `name` (`H5Ocopy`): `dst` may be in this file or another one.
    pub fn copy(&self, src: &str, dst: &Group, name: &str) -> Result<Node> {
        let id = if dst.obj.file.same_file(&self.obj.file) {
            let base = self.obj.wid()?;
            dst.obj.write(|w, d| w.copy_within(base, src, d, name))?
        } else {
            let (_, loc) = self.obj.location()?;
            let g = h5_io::Group::at(loc)?;
            let from = g.locate(src)?;
            dst.obj
                .write(|w, d| w.copy_object(&from.file, &from.path, d, name))?
        };
        let addr = dst.obj.file.query(|w| w.address(id))?;
        let kind = dst.obj.file.query(|w| w.kind(id))?;
        Node::of(
            Obj {
                file: dst.obj.file.clone(),
                addr,
                path: join(&dst.obj.path, name),
                foreign: None,
            },
            kind,
        )
    }

    /// Delete the attribute `name`.
    pub fn delete_attr(&self, name: &str) -> Result<()> {
        self.obj.write(|w, id| w.delete_attribute(id, name))
    }

    /// The object's comment (`H5Oget_comment`), if it has one.
    pub fn comment(&self) -> Result<Option<String>> {
        self.obj.comment()
    }

    /// Set (or with `None` remove) the object's comment (`H5Oset_comment`).
    pub fn set_comment(&self, comment: Option<&str>) -> Result<()> {
        self.obj.write(|w, id| w.set_comment(id, comment))
    }

    /// Rename the attribute `from` to `to`.
    pub fn rename_attr(&self, from: &str, to: &str) -> Result<()> {
        self.obj.write(|w, id| w.rename_attribute(id, from, to))
    }
}

/// The parent part and the last component of a path (`None` for a path of only slashes).
pub(crate) fn split_last(path: &str) -> (Option<&str>, Option<&str>) {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return (None, None);
    }
    match trimmed.rfind('/') {
        Some(0) => (Some("/"), Some(&trimmed[1..])),
        Some(i) => (Some(&trimmed[..i]), Some(&trimmed[i + 1..])),
        None => (None, Some(trimmed)),
    }
}

#[cold]
fn wrong_kind(n: &Node, wanted: &str) -> Error {
    let is = match n {
        Node::Group(_) => "a group",
        Node::Dataset(_) => "a dataset",
        Node::Datatype(_) => "a committed datatype",
    };
    Error::new(ErrorKind::WrongKind, format!("{is}, not {wanted}")).at(n.path())
}

/// A committed (named) datatype.
#[derive(Clone, Debug)]
pub struct CommittedType {
    pub(crate) obj: Obj,
}

impl CommittedType {
    /// The path it was reached by.
    pub fn path(&self) -> &str {
        &self.obj.path
    }

    /// The datatype.
    pub fn datatype(&self) -> Result<Datatype> {
        if self.obj.is_writable() {
            return self.obj.query(|w, id| Ok(w.committed_type(id)?.clone()));
        }
        let (_, loc) = self.obj.location()?;
        let obj = loc.object()?;
        Ok(h5_io::dataset::datatype_of(&obj).map_err(|e| e.at(&loc.path))?)
    }

    /// An object reference to the committed datatype.
    pub fn reference(&self) -> Result<ObjectRef> {
        Ok(ObjectRef::new(self.obj.addr))
    }

    /// The attribute `name`.
    pub fn attr(&self, name: &str) -> Result<Attribute> {
        Attribute::open(&self.obj, name)
    }

    /// Every attribute, in name order.
    pub fn attrs(&self) -> Result<Vec<Attribute>> {
        Attribute::all(&self.obj, false)
    }

    /// The attribute names, in name order.
    pub fn attr_names(&self) -> Result<Vec<String>> {
        Attribute::names(&self.obj)
    }

    /// Start building an attribute of `T` on the committed datatype.
    pub fn new_attr<T: H5Type>(&self) -> AttrBuilder<T> {
        AttrBuilder::new(self.obj.clone())
    }

    /// Delete the attribute `name`.
    pub fn delete_attr(&self, name: &str) -> Result<()> {
        self.obj.write(|w, id| w.delete_attribute(id, name))
    }

    /// Rename the attribute `from` to `to`.
    pub fn rename_attr(&self, from: &str, to: &str) -> Result<()> {
        self.obj.write(|w, id| w.rename_attribute(id, from, to))
    }

    pub(crate) fn id(&self) -> Result<h5_io::write::ObjId> {
        self.obj.wid()
    }
}
