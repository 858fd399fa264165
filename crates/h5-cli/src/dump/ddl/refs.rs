//! References at the top level of a dataset or attribute as the h5dump of HDF5 2.x prints
//! them (`h5tools_dump_reference` over `H5R_ref_t` values): every element on its own line,
//! named by [`Values::ref_label`], then what it points at: a dataset's data, a region's
//! selection (with its values under `-R`), an attribute's type and space (with its values
//! under `-R`), or `NULL` for an attribute that cannot be opened. Old references are read as
//! `H5T_STD_REF` too, so they come out the same way.
//!
//! [`Values::ref_label`]: super::super::value::Values::ref_label

use std::rc::Rc;

use h5::types::Datatype;

use super::super::model::*;
use super::super::render::{Ctx, Format};
use super::super::value::ExtFile;
use super::{dataspace_text, DataSource, Dumper};

/// How deep references to datasets of references are followed (the reference tools follow
/// them without end; a cycle would never finish).
const MAX_REF_DEPTH: usize = 8;

impl Dumper<'_> {
    /// `h5tools_dump_reference` of HDF5 2.x over the `n` elements of `bytes`.
    pub(super) fn dump_reference_v2(
        &mut self,
        info: &Format,
        ctx: &mut Ctx,
        dt: &Datatype,
        bytes: &[u8],
        space: &Space,
    ) {
        let n = space.npoints();
        let size = dt.size();
        let ncols = Self::ncols(info);
        for i in 0..n {
            let start = (i as usize).saturating_mul(size);
            let eb = bytes.get(start..start + size).unwrap_or(&[]);
            let null = eb.iter().all(|&b| b == 0);
            let r = if null {
                None
            } else {
                self.file.reference_info(dt, eb).ok().flatten()
            };
            let label = if null {
                "NULL".to_string()
            } else {
                self.values().ref_label(r.as_ref())
            };
            ctx.need_prefix = true;
            self.out.render_element(info, ctx, &label, ncols, i, n);
            if let Some(r) = r {
                self.dump_ref_target(info, ctx, &r, i);
            }
            ctx.cur_elmt += 1;
        }
    }

    /// What follows a reference's name: in this file, or in the file it names.
    fn dump_ref_target(&mut self, info: &Format, ctx: &mut Ctx, r: &RefInfo, i: u64) {
        let Some(name) = &r.external else {
            self.dump_ref_target_here(info, ctx, r, i);
            return;
        };
        let ext = self.values().refs.external(name);
        match ext {
            Some(e) => self.dump_ref_target_in(&e, name, info, ctx, r, i),
            // The file cannot be opened: neither can the attribute.
            None if r.kind == RefKind::Attribute => self.null_attribute(info, ctx),
            None => {}
        }
    }

    /// [`Self::dump_ref_target_here`] with a printer over another file.
    fn dump_ref_target_in(
        &mut self,
        e: &Rc<ExtFile>,
        name: &str,
        info: &Format,
        ctx: &mut Ctx,
        r: &RefInfo,
        i: u64,
    ) {
        let mut child = Dumper::new(e.file.as_ref(), self.opts.clone());
        child.out.dest = self.out.dest.clone();
        child.ext_open = self.ext_open;
        child.file_key = e.key.clone();
        child.root_key = self.root_key.clone();
        child.file_name = name.to_string();
        child.ext_ref_files = Rc::clone(&self.ext_ref_files);
        child.ids = self.ids.clone();
        child.tables.paths = Rc::clone(&e.paths);
        child.ref_depth = self.ref_depth;
        child.ref_chain = Rc::clone(&self.ref_chain);
        let local = RefInfo {
            external: None,
            ..r.clone()
        };
        child.dump_ref_target_here(info, ctx, &local, i);
        self.out.text.push_str(&child.out.text);
        self.out.files.append(&mut child.out.files);
        self.err.push_str(&child.err);
        if child.status != 0 {
            self.status = child.status;
        }
    }

    /// What follows a reference's name, the object being in this file.
    fn dump_ref_target_here(&mut self, info: &Format, ctx: &mut Ctx, r: &RefInfo, i: u64) {
        match r.kind {
            RefKind::Object => {
                // Only datasets show something: their data.
                if self.file.object_kind(r.object) != Ok(ObjKind::Dataset)
                    || self.ref_depth >= MAX_REF_DEPTH
                {
                    return;
                }
                let key = (self.file_key.clone(), r.object);
                if self.ref_chain.borrow().contains(&key) {
                    return;
                }
                let Ok(d) = self.file.dataset(r.object) else {
                    return;
                };
                self.ref_depth += 1;
                self.ref_chain.borrow_mut().push(key);
                ctx.indent_level += 1;
                let dt = d.datatype.datatype.clone();
                self.dump_data(info, ctx, &dt, &d.space, DataSource::Dataset(r.object));
                ctx.indent_level -= 1;
                self.ref_chain.borrow_mut().pop();
                self.ref_depth -= 1;
            }
            RefKind::Region => {
                if self.file.object_kind(r.object) != Ok(ObjKind::Dataset) {
                    return;
                }
                if let Some(sel) = &r.region {
                    self.dump_region(info, ctx, r.object, sel, (i, i));
                }
            }
            RefKind::Attribute => {
                let a = r.attr_name.as_ref().and_then(|name| {
                    self.file
                        .attributes(r.object, IndexOrder::Name)
                        .ok()?
                        .into_iter()
                        .find(|a| &a.name == name)
                });
                match a {
                    Some(a) => self.region_attribute(info, ctx, r.object, &a),
                    None => self.null_attribute(info, ctx),
                }
            }
        }
    }

    /// `h5tools_dump_region_attribute`: ` {`, the attribute's type and space, its values
    /// with `-R`, then `}`.
    fn region_attribute(&mut self, info: &Format, ctx: &mut Ctx, obj: ObjId, a: &AttrInfo) {
        let ncols = Self::ncols(info);
        let mut noidx = info.clone();
        noidx.idx_n = false;
        noidx.idx_fmt = "";
        noidx.idx_sep = "";
        noidx.line_pre = false;
        self.out.render_element(&noidx, ctx, " {", ncols, 0, 0);
        ctx.indent_level += 1;
        ctx.need_prefix = true;
        let mut buf = String::from("DATATYPE  ");
        ctx.need_prefix = true;
        ctx.indent_level += 1;
        self.print_datatype(&mut buf, info, ctx, &a.datatype, true);
        ctx.indent_level -= 1;
        self.out.render_element(info, ctx, &buf, ncols, 0, 0);
        ctx.need_prefix = true;
        let sp = format!("DATASPACE {}", dataspace_text(&a.space));
        self.out.render_element(info, ctx, &sp, ncols, 0, 0);
        if self.opts.display_region && self.ref_depth < MAX_REF_DEPTH {
            ctx.need_prefix = true;
            let data = self.file.attribute_data(obj, &a.name);
            self.ref_depth += 1;
            self.dump_data(
                &noidx,
                ctx,
                &a.datatype.datatype,
                &a.space,
                DataSource::Attr(data),
            );
            self.ref_depth -= 1;
        }
        ctx.indent_level -= 1;
        ctx.need_prefix = true;
        self.out.render_element(info, ctx, "}", ncols, 0, 0);
    }

    /// An attribute reference that cannot be opened: ` {`, `NULL`, `}`.
    fn null_attribute(&mut self, info: &Format, ctx: &mut Ctx) {
        let ncols = Self::ncols(info);
        self.out.render_element(info, ctx, " {", ncols, 0, 0);
        ctx.need_prefix = true;
        ctx.indent_level += 1;
        self.out.render_element(info, ctx, "NULL", ncols, 0, 0);
        ctx.indent_level -= 1;
        ctx.need_prefix = true;
        self.out.render_element(info, ctx, "}", ncols, 0, 0);
    }
}
