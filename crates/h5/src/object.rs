//! What every handle holds: its file, the object's address and path, and where the object
//! lives when that is another file (reached through an external link: read only).

use h5_format::Addr;
use h5_io::group::Location;
use h5_io::write::ObjId;

use crate::error::{Error, ErrorKind, Result};
use crate::file::File;

/// The kind of an object (`H5O_type_t`).
pub use h5_io::object::ObjectKind;

#[derive(Clone, Debug)]
pub(crate) struct Obj {
    pub(crate) file: File,
    pub(crate) addr: u64,
    pub(crate) path: String,
    /// The other file's reader, for an object reached through an external link.
    pub(crate) foreign: Option<h5_io::File>,
}

impl Obj {
    /// A handle of the object found at `loc` by this file's reader.
    pub(crate) fn from_location(file: &File, reader: &h5_io::File, loc: &Location) -> Obj {
        Obj {
            file: file.clone(),
            addr: loc.addr.0,
            path: loc.path.clone(),
            foreign: (!loc.file.same_file(reader)).then(|| loc.file.clone()),
        }
    }

    /// The object's location for the reader as the file is now, and the reader's
    /// generation.
    pub(crate) fn location(&self) -> Result<(u64, Location)> {
        let (generation, file) = match &self.foreign {
            Some(f) => (0, f.clone()),
            None => self.file.snapshot()?,
        };
        Ok((
            generation,
            Location {
                file,
                addr: Addr(self.addr),
                path: self.path.clone(),
            },
        ))
    }

    /// The writer's id of the object (an error for read-only files and for objects of other
    /// files).
    pub(crate) fn wid(&self) -> Result<ObjId> {
        if self.foreign.is_some() {
            return Err(Error::new(
                ErrorKind::ReadOnly,
                "the object is in another file (reached through an external link)",
            )
            .at(&self.path));
        }
        self.file.writer_id(self.addr).map_err(|e| e.at(&self.path))
    }

    /// Whether the object can be changed through this handle.
    pub(crate) fn is_writable(&self) -> bool {
        self.foreign.is_none() && self.file.is_writable()
    }

    /// Run `f` on the writer with the object's id.
    pub(crate) fn write<R>(
        &self,
        f: impl FnOnce(&mut h5_io::write::FileWriter, ObjId) -> h5_io::write::Result<R>,
    ) -> Result<R> {
        let id = self.wid()?;
        self.file.write(|w| f(w, id)).map_err(|e| e.at(&self.path))
    }

    /// Query the writer's model of the object.
    pub(crate) fn query<R>(
        &self,
        f: impl FnOnce(&h5_io::write::FileWriter, ObjId) -> h5_io::write::Result<R>,
    ) -> Result<R> {
        let id = self.wid()?;
        self.file.query(|w| f(w, id)).map_err(|e| e.at(&self.path))
    }

    /// The object's comment (`H5Oget_comment`).
    pub(crate) fn comment(&self) -> Result<Option<String>> {
        if self.is_writable() {
            return self.query(|w, id| w.comment(id));
        }
        let (_, loc) = self.location()?;
        let obj = loc.object()?;
        Ok(
            match obj.message(h5_format::message::MessageType::COMMENT)? {
                Some(h5_format::message::Message::Comment(c)) => {
                    Some(String::from_utf8_lossy(&c.comment).into_owned())
                }
                _ => None,
            },
        )
    }

    /// The last component of the path.
    pub(crate) fn name(&self) -> &str {
        match self.path.rfind('/') {
            Some(i) if self.path.len() > 1 => &self.path[i + 1..],
            _ => &self.path,
        }
    }
}

/// `parent` + `/` + `name`.
pub(crate) fn join(parent: &str, name: &str) -> String {
    if name.starts_with('/') {
        name.to_owned()
    } else {
        h5_io::group::join(parent, name)
    }
}
