//! What the input means: the checks that need more than one attribute or field at a time.
//! Every failure is recorded in the context; nothing stops at the first.

use std::collections::HashMap;

use proc_macro2::Span;

use super::ast::{Container, Data, Field, Variant};
use super::ctxt::Ctxt;

/// Check the container; errors go to `cx`.
pub fn check(cx: &Ctxt, cont: &Container) {
    match &cont.data {
        Data::Struct(fields) => {
            check_struct_repr(cx, cont);
            check_struct_members(cx, cont, fields);
            check_zerocopy_struct(cx, cont, fields);
        }
        Data::Enum(variants) => {
            check_enum_repr(cx, cont);
            check_variants(cx, cont, variants);
            if let Some(z) = &cont.attrs.zerocopy {
                cx.error_at(
                    z.span,
                    "#[h5(zerocopy)] is for structs: an enum's values are a few bit patterns \
                     of its integer, so its bytes cannot be taken as they are (zerocopy's \
                     FromBytes)",
                );
            }
        }
    }
}

/// A `#[h5(zerocopy)]` struct is read straight from the file's bytes: every field is filled
/// from them, so none can be skipped (a skipped field would hold the bytes the file has
/// there, not `Default::default()`). A repr(transparent) struct's skipped fields are
/// zero-sized: they hold no bytes.
fn check_zerocopy_struct(cx: &Ctxt, cont: &Container, fields: &[Field]) {
    if cont.attrs.zerocopy.is_none() || cont.repr.transparent.is_some() {
        return;
    }
    for f in fields {
        if let Some(skip) = &f.attrs.skip {
            cx.error_at(
                skip.span,
                "a #[h5(zerocopy)] struct is filled straight from the file's bytes, so a \
                 field marked #[h5(skip)] would hold whatever bytes the file has there: make \
                 it a member, or drop #[h5(zerocopy)]",
            );
        }
    }
}

fn check_struct_repr(cx: &Ctxt, cont: &Container) {
    let r = &cont.repr;
    if r.c.is_some() || r.transparent.is_some() {
        return;
    }
    if let Some(span) = r.packed {
        cx.error_at(
            span,
            "#[derive(H5Type)] needs repr(C) as well: write #[repr(C, packed)], \
             or the compiler may reorder the fields",
        );
    } else if let Some(span) = r.align {
        cx.error_at(
            span,
            "#[derive(H5Type)] needs repr(C) as well: write #[repr(C, align(N))], \
             or the compiler may reorder the fields",
        );
    } else {
        cx.error_spanned_by(
            cont.ident,
            format!(
                "#[derive(H5Type)] needs #[repr(C)] on struct `{}` (or repr(C, packed), \
                 repr(C, align(N)), repr(transparent)): with the default layout the compiler \
                 may reorder the fields, and the HDF5 layout would change between builds",
                cont.ident
            ),
        );
    }
}

fn check_struct_members(cx: &Ctxt, cont: &Container, fields: &[Field]) {
    for f in fields {
        if let (Some(_), Some(name)) = (&f.attrs.skip, &f.attrs.name) {
            cx.error_at(
                name.span,
                "a field marked #[h5(skip)] is not a member and takes no `name`",
            );
        }
    }
    let members: Vec<&Field> = fields.iter().filter(|f| f.is_member()).collect();
    if cont.repr.transparent.is_some() {
        match members.as_slice() {
            [] => cx.error_spanned_by(
                cont.ident,
                format!(
                    "repr(transparent) struct `{}` needs one field that is not #[h5(skip)]: \
                     its datatype is that field's",
                    cont.ident
                ),
            ),
            [only] => {
                if let Some(name) = &only.attrs.name {
                    cx.error_at(
                        name.span,
                        "#[h5(name)] has no effect in a repr(transparent) struct: its datatype \
                         is the field's own, with no member names",
                    );
                }
            }
            [_, rest @ ..] => {
                for f in rest {
                    cx.error_spanned_by(
                        f.original,
                        "a repr(transparent) struct has the datatype of its one non-zero-sized \
                         field: mark the zero-sized fields #[h5(skip)]",
                    );
                }
            }
        }
        return;
    }
    if members.is_empty() {
        cx.error_spanned_by(
            cont.ident,
            format!(
                "struct `{}` has no members: an HDF5 compound needs at least one \
                 (fields marked #[h5(skip)] are not members)",
                cont.ident
            ),
        );
    }
    check_names(
        cx,
        "member",
        members
            .iter()
            .map(|f| (f.name(), f.name_span(), describe_field(f))),
    );
}

fn describe_field(f: &Field) -> String {
    match &f.member {
        syn::Member::Named(id) => format!("field `{id}`"),
        syn::Member::Unnamed(i) => format!("field {}", i.index),
    }
}

fn check_enum_repr(cx: &Ctxt, cont: &Container) {
    let r = &cont.repr;
    if r.int.is_some() {
        return;
    }
    let msg = format!(
        "#[derive(H5Type)] needs an integer repr on enum `{}`, such as #[repr(u8)] or \
         #[repr(i32)]: it is the HDF5 enum's base type",
        cont.ident
    );
    match r.c {
        Some(span) => cx.error_at(
            span,
            format!("{msg}; repr(C) alone leaves the size to the C compiler's choice of `int`"),
        ),
        None => cx.error_spanned_by(cont.ident, msg),
    }
}

fn check_variants(cx: &Ctxt, cont: &Container, variants: &[Variant]) {
    if variants.is_empty() {
        cx.error_spanned_by(
            cont.ident,
            format!(
                "enum `{}` has no variants: an HDF5 enum needs at least one value",
                cont.ident
            ),
        );
    }
    for v in variants {
        if !matches!(v.fields, syn::Fields::Unit) {
            cx.error_spanned_by(
                v.fields,
                format!(
                    "variant `{}` carries data: #[derive(H5Type)] supports unit-only enums, \
                     whose HDF5 type is an integer enum",
                    v.ident
                ),
            );
        }
    }
    check_names(
        cx,
        "enum member",
        variants
            .iter()
            .map(|v| (v.name(), v.name_span(), format!("variant `{}`", v.ident))),
    );
}

/// Names must be non-empty, free of NUL, and unique.
fn check_names(cx: &Ctxt, what: &str, names: impl Iterator<Item = (String, Span, String)>) {
    let mut seen: HashMap<String, String> = HashMap::new();
    for (name, span, who) in names {
        if name.is_empty() {
            cx.error_at(span, format!("{what} name is empty"));
        } else if name.contains('\0') {
            cx.error_at(span, format!("{what} name {name:?} contains a NUL byte"));
        } else if let Some(first) = seen.get(&name) {
            cx.error_at(
                span,
                format!("duplicate {what} name {name:?}: {first} already has it"),
            );
        } else {
            seen.insert(name, who);
        }
    }
}
