//! Object management: removing links ([`FileWriter::unlink`], `H5Ldelete`) and freeing the
//! objects whose last hard link goes, moving links ([`FileWriter::rename`], `H5Lmove`),
//! deleting and renaming attributes (`H5Adelete`, `H5Arename`), and finding an object by
//! the address of its header ([`FileWriter::object_at`]).
//!
//! The model changes at once; the file follows at the next flush, in its crash-safe order:
//! the groups that lost or gained a link are rebuilt in new space, and what a freed object
//! held is retired, so its space is reused once the flush that stops referencing it has
//! completed (never earlier: until then the file on disk may still reference it).

use std::collections::{HashMap, HashSet};

use super::file::{align8, Body, FileWriter, ObjId};
use super::group::{split_path, LinkSpec};
use super::{bail, ensure, Result};

/// What removing a hard link does: the objects it frees, and the reference counts that
/// drop on objects that live on.
struct Release {
    /// Objects whose last reference goes, in the order found.
    freed: Vec<ObjId>,
    /// Objects that live on, with the number of stored references (hard links, and the
    /// datasets of a file modified in place that share a committed datatype) they lose.
    stored: HashMap<ObjId, u32>,
    /// Objects that live on whose header changes (a stored count or a sharer less).
    touched: Vec<ObjId>,
}

impl FileWriter {
    /// The live object whose header is at `addr` (what an object reference stores), if
    /// any: an index lookup.
    pub fn object_at(&self, addr: u64) -> Option<ObjId> {
        self.by_addr
            .get(&addr)
            .copied()
            .filter(|&id| self.object(id).is_ok())
    }

    /// The absolute path `path` (relative to `base`, or absolute) names, from the path
    /// `base` was created at.
    pub(crate) fn full_path(&self, base: ObjId, path: &str) -> Result<String> {
        let (abs, names) = split_path(path)?;
        let mut s = if abs {
            String::new()
        } else {
            self.object(base)?.path.trim_end_matches('/').to_owned()
        };
        for n in names {
            s.push('/');
            s.push_str(n);
        }
        if s.is_empty() {
            s.push('/');
        }
        Ok(s)
    }

    /// The group holding the last name of `path` (which must exist, reached by hard links)
    /// and that name.
    fn link_location(&self, base: ObjId, path: &str) -> Result<(ObjId, String)> {
        let (abs, mut names) = split_path(path)?;
        let Some(last) = names.pop() else {
            bail!(InvalidArgument, "{path:?}: names no link (the root group)");
        };
        let dir = names.join("/");
        let dir = if abs { format!("/{dir}") } else { dir };
        let g = self.open(base, &dir)?;
        self.group(g)?;
        Ok((g, last.to_owned()))
    }

    /// Remove the link at `path` (relative to `base`, or absolute): a hard, soft, external
    /// or user-defined link, from its group in whatever storage the group has (symbol
    /// table, link messages, dense storage with its name and creation-order indexes; a
    /// dense group with fewer than six links left goes back to link messages, as in the
    /// reference library). The object of a hard link loses a reference; one whose last
    /// reference goes is freed with everything it holds (header, raw data and chunks, chunk
    /// index, symbol table or dense link storage, dense attribute storage), and the objects
    /// a freed group links to lose one each in turn, as `H5Ldelete` does. A committed
    /// datatype lives while datasets or attributes share it. Freed space is reused by
    /// later writes once the next flush has completed. An object that keeps other links
    /// lives on, its reference count one less. Ids of freed objects name nothing after
    /// this ([`ErrorKind::NotFound`](super::ErrorKind::NotFound)).
    ///
    /// Not returned to the free list (left unused in the file): variable-length values of
    /// a freed object in global heaps, and, in a file modified in place, the structures
    /// [`FileWriter::open_rw`] lists as not reused. Groups that link to each other in a
    /// cycle keep each other alive, as in the reference library. Object references to a
    /// freed object dangle (as in the reference library); its space may hold another
    /// object later.
    ///
    /// Errors: [`NotFound`](super::ErrorKind::NotFound) when there is no such link (or a
    /// group on the way is missing), [`Unsupported`](super::ErrorKind::Unsupported) when an
    /// object whose reference count would change cannot be modified (see
    /// [`FileWriter::open_rw`]; such an object that is freed instead leaves its raw data
    /// unused in the file); the writer is then as before.
    pub fn unlink(&mut self, base: ObjId, path: &str) -> Result<()> {
        self.swmr_forbids("deleting links and objects")?;
        let (g, name) = self
            .link_location(base, path)
            .map_err(|e| e.at_path(path))?;
        let Some(link) = self.group(g)?.links.get(&name).cloned() else {
            bail!(NotFound, "{path}: no link {name:?}");
        };
        let plan = match &link {
            LinkSpec::Hard(id) => Some(self.release_plan(*id).map_err(|e| e.at_path(path))?),
            _ => None,
        };
        // What can fail comes first: the group and the objects whose headers change are
        // taken into the model (a file modified in place), chunks of freed datasets read.
        self.group_mut(g).map_err(|e| e.at_path(path))?;
        if let Some(p) = &plan {
            for &id in &p.touched {
                self.object_mut(id).map_err(|e| e.at_path(path))?;
            }
            for &id in &p.freed {
                if self.is_pristine(id) {
                    // Its chunks enter the model (to be freed); an object the model cannot
                    // rewrite is freed without them.
                    let _ = self.adopt(id);
                }
            }
        }
        self.group_mut(g)?.remove_link(&name);
        if let Some(p) = plan {
            for (id, n) in p.stored {
                let o = self.object_mut(id)?;
                o.refcount = o.refcount.saturating_sub(n);
            }
            for id in p.freed {
                self.free_object(id);
            }
        }
        Ok(())
    }

    /// What removing one hard link to `id` frees, without changing anything.
    fn release_plan(&self, id: ObjId) -> Result<Release> {
        // References lost by each object: all of them, and the stored ones.
        let mut lost: HashMap<ObjId, u32> = HashMap::new();
        let mut stored: HashMap<ObjId, u32> = HashMap::new();
        let mut freed = Vec::new();
        let mut gone = HashSet::new();
        let mut stack = vec![(id, true)];
        while let Some((x, is_stored)) = stack.pop() {
            if gone.contains(&x) {
                continue;
            }
            let n = lost.entry(x).or_default();
            *n += 1;
            let n = *n;
            if is_stored {
                *stored.entry(x).or_default() += 1;
            }
            // The root group is never freed.
            if x == self.root() || self.refcount(x)? > n {
                continue;
            }
            gone.insert(x);
            freed.push(x);
            let o = self.object(x)?;
            match &o.body {
                Body::Group(g) => {
                    for l in g.links.values() {
                        if let LinkSpec::Hard(c) = l {
                            stack.push((*c, true));
                        }
                    }
                }
                Body::Dataset(d) => {
                    if let Some(c) = d.committed_type() {
                        stack.push((c, false));
                    }
                }
                Body::Datatype(_) => {}
            }
            for a in &o.attrs {
                if let Some(c) = a.committed {
                    stack.push((c, false));
                }
            }
            if let Some(c) = self.loaded_shared_type(x) {
                stack.push((c, true));
            }
        }
        stored.retain(|k, _| !gone.contains(k));
        let touched = lost.keys().filter(|k| !gone.contains(k)).copied().collect();
        Ok(Release {
            freed,
            stored,
            touched,
        })
    }

    /// Free an object no reference reaches any more: every block it holds is retired.
    fn free_object(&mut self, id: ObjId) {
        let Some(o) = self.objects.get(id.0) else {
            return;
        };
        if o.freed {
            return;
        }
        let (addr, cap0, cont) = (o.addr, o.cap0, o.cont);
        // This writer's blocks take whole multiples of 8 bytes; a file another writer made
        // has its structures' exact extents.
        let mine = self.loaded_v1(id).is_none();
        let extent = |len: u64| if mine { align8(len) } else { len };
        self.retire(addr, extent(cap0));
        if let Some((a, c)) = cont {
            self.retire(a, c);
        }
        for (a, c) in self.take_original_conts(id) {
            self.retire(a, c);
        }
        self.drop_structure((id.0, 0));
        self.drop_structure((id.0, 1));
        let o = &mut self.objects[id.0];
        let body = std::mem::replace(
            &mut o.body,
            Body::Datatype(<u8 as h5_types::H5Type>::h5_type()),
        );
        o.set_attrs(Vec::new());
        o.dense_attrs = None;
        o.freed = true;
        o.refcount = 0;
        if let Body::Dataset(d) = body {
            for (a, l) in d.storage_blocks() {
                self.retire(a, extent(l));
            }
        }
        if self.by_addr.get(&addr) == Some(&id) {
            self.by_addr.remove(&addr);
        }
    }

    /// Move the link at `from` to `to` (each relative to `base`, or absolute), within a
    /// group or to another group of the file, as `H5Lmove` does: the object (if a hard
    /// link) keeps its address, attributes and reference count; in a group that tracks
    /// creation order the moved link gets the next creation index of its new group (within
    /// one group too), as in the reference library. The group of `to` must exist (no
    /// intermediate groups are created). Objects created at a path under `from` are named
    /// under `to` in error messages and [`FileWriter::object_path`] from then on.
    ///
    /// The next flush rewrites the header of the group the link moves to before the one it
    /// leaves, so that a flush cut short leaves the object linked at both places (never at
    /// neither).
    ///
    /// Errors: [`NotFound`](super::ErrorKind::NotFound) when `from` or the group of `to`
    /// does not exist, [`AlreadyExists`](super::ErrorKind::AlreadyExists) when `to` does,
    /// [`InvalidArgument`](super::ErrorKind::InvalidArgument) when a group would move into
    /// itself or a group below it (it would be reachable no more).
    pub fn rename(&mut self, base: ObjId, from: &str, to: &str) -> Result<()> {
        self.swmr_forbids("moving links")?;
        let (fg, fname) = self
            .link_location(base, from)
            .map_err(|e| e.at_path(from))?;
        let Some(link) = self.group(fg)?.links.get(&fname).cloned() else {
            bail!(NotFound, "{from}: no link {fname:?}");
        };
        let (tg, tname) = self.link_location(base, to).map_err(|e| e.at_path(to))?;
        ensure!(
            !self.group(tg)?.links.contains_key(&tname),
            AlreadyExists,
            "{to}: {tname:?} already exists"
        );
        if let LinkSpec::Hard(id) = &link {
            ensure!(
                !self.reaches(*id, tg),
                InvalidArgument,
                "{to}: a group cannot move into itself or a group below it"
            );
        }
        let old = self.full_path(base, from)?;
        let new = self.full_path(base, to)?;
        self.group_mut(fg).map_err(|e| e.at_path(from))?;
        self.group_mut(tg).map_err(|e| e.at_path(to))?;
        self.group_mut(fg)?.remove_link(&fname);
        self.insert_link(tg, &tname, link.clone())?;
        if fg != tg {
            let at = self.address(tg)?;
            self.headers_first.insert(at);
        }
        if let LinkSpec::Hard(id) = link {
            if self.kind(id)? != super::ObjectKind::Group {
                // (The path is the model's only: nothing of the object is rewritten.)
                if let Some(o) = self.objects.get_mut(id.0) {
                    if o.path == old {
                        o.path = new;
                    }
                }
                return Ok(());
            }
            // A group: the objects created under it too.
            let under = format!("{old}/");
            for o in self.objects.iter_mut().filter(|o| !o.freed) {
                if o.path == old {
                    o.path = new.clone();
                } else if let Some(rest) = o.path.strip_prefix(&under) {
                    o.path = format!("{new}/{rest}");
                }
            }
        }
        Ok(())
    }

    /// Whether `target` is `from` or reached from it by hard links.
    fn reaches(&self, from: ObjId, target: ObjId) -> bool {
        let mut seen = HashSet::from([from]);
        let mut stack = vec![from];
        while let Some(x) = stack.pop() {
            if x == target {
                return true;
            }
            if let Ok(g) = self.group(x) {
                for l in g.links.values() {
                    if let LinkSpec::Hard(c) = l {
                        if seen.insert(*c) {
                            stack.push(*c);
                        }
                    }
                }
            }
        }
        false
    }

    /// Delete the attribute `name` of `obj` (`H5Adelete`), in compact or dense storage
    /// (dense storage with fewer than six attributes left goes back to the header, as in
    /// the reference library). A committed datatype it shared loses a sharer.
    ///
    /// Not returned to the free list: variable-length values of the attribute in global
    /// heaps.
    pub fn delete_attribute(&mut self, obj: ObjId, name: &str) -> Result<()> {
        self.swmr_forbids("deleting attributes")?;
        let o = self.object(obj)?;
        let Some(i) = o.attr_position(name) else {
            bail!(NotFound, "{}: no attribute {name:?}", o.path);
        };
        if let Some(c) = o.attrs[i].committed {
            // Its reference count changes.
            self.object_mut(c)?;
        }
        let o = self.object_mut(obj)?;
        let mut attrs = std::mem::take(&mut o.attrs);
        attrs.remove(i);
        o.set_attrs(attrs);
        o.attrs_dirty = true;
        Ok(())
    }

    /// Rename the attribute `from` of `obj` to `to` (`H5Arename`): its value, datatype and
    /// creation index stay.
    ///
    /// Errors: [`NotFound`](super::ErrorKind::NotFound),
    /// [`AlreadyExists`](super::ErrorKind::AlreadyExists), and
    /// [`LimitExceeded`](super::ErrorKind::LimitExceeded) when the longer name makes the
    /// attribute's message too big for a version 1 header.
    pub fn rename_attribute(&mut self, obj: ObjId, from: &str, to: &str) -> Result<()> {
        self.swmr_forbids("renaming attributes")?;
        ensure!(!to.is_empty(), InvalidArgument, "empty attribute name");
        let o = self.object(obj)?;
        let Some(i) = o.attr_position(from) else {
            bail!(NotFound, "{}: no attribute {from:?}", o.path);
        };
        if from == to {
            return Ok(());
        }
        ensure!(
            o.attr_position(to).is_none(),
            AlreadyExists,
            "{}: attribute {to:?} already exists",
            o.path
        );
        let v1 = self.v1_header(obj);
        let renamed = super::attribute::Attr {
            name: to.to_owned(),
            datatype: o.attrs[i].datatype.clone(),
            committed: o.attrs[i].committed,
            space: o.attrs[i].space.clone(),
            data: o.attrs[i].data.clone(),
            crt_idx: o.attrs[i].crt_idx,
        };
        let len = h5_format::message::Message::Attribute(renamed.message(self)?)
            .to_bytes(self.sizes)
            .len();
        ensure!(
            len <= 0xffff - 8 || !v1,
            LimitExceeded,
            "{}: attribute {to:?} would need a {len}-byte message; a version 1 object header \
             message holds 65535 bytes at most",
            o.path
        );
        let o = self.object_mut(obj)?;
        let mut attrs = std::mem::take(&mut o.attrs);
        attrs[i] = renamed;
        o.set_attrs(attrs);
        o.attrs_dirty = true;
        Ok(())
    }
}
