//! The derive's attributes: `#[h5(...)]` on the container, fields and variants, and the
//! `#[repr(...)]` that fixes the layout.
//!
//! Unknown keys and keys given twice are errors; parsing goes on after an error so that every
//! mistake is reported at once.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{LitStr, Token};

use super::ctxt::Ctxt;

/// An attribute value together with the span of its key, for error messages.
pub struct Attr<T> {
    /// Where the key was written.
    pub span: Span,
    /// The value.
    pub value: T,
}

/// Container attributes: `#[h5(crate = "path")]`, `#[h5(zerocopy)]`.
#[derive(Default)]
pub struct Container {
    /// The path of the crate that re-exports `__private` (default `::h5`).
    pub krate: Option<Attr<syn::Path>>,
    /// The struct's memory is its byte image, through zerocopy's `FromBytes`, `IntoBytes`
    /// and `Immutable` (which the struct must implement).
    pub zerocopy: Option<Attr<()>>,
}

/// Field attributes: `#[h5(name = "...")]`, `#[h5(skip)]`.
#[derive(Default)]
pub struct Field {
    /// The member name (default: the field's name or index).
    pub name: Option<Attr<LitStr>>,
    /// The field is not a member; decoding fills it with `Default::default()`.
    pub skip: Option<Attr<()>>,
}

/// Variant attributes: `#[h5(name = "...")]`.
#[derive(Default)]
pub struct Variant {
    /// The enum member name (default: the variant's name).
    pub name: Option<Attr<LitStr>>,
}

/// What `#[repr(...)]` says.
#[derive(Default)]
pub struct Repr {
    /// `C`
    pub c: Option<Span>,
    /// `transparent`
    pub transparent: Option<Span>,
    /// `packed` or `packed(N)`
    pub packed: Option<Span>,
    /// `align(N)`
    pub align: Option<Span>,
    /// An integer type (`u8`, `i32`, ...).
    pub int: Option<syn::Ident>,
}

const INT_REPRS: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
];

impl Repr {
    /// Read every `#[repr(...)]` of an item. Malformed `repr`s are left to the compiler.
    pub fn from_attrs(attrs: &[syn::Attribute]) -> Repr {
        let mut r = Repr::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("repr")) {
            let _ = attr.parse_nested_meta(|meta| {
                let span = meta.path.span();
                if meta.path.is_ident("C") {
                    r.c = Some(span);
                } else if meta.path.is_ident("transparent") {
                    r.transparent = Some(span);
                } else if meta.path.is_ident("packed") {
                    r.packed = Some(span);
                    skip_value(&meta)?;
                } else if meta.path.is_ident("align") {
                    r.align = Some(span);
                    skip_value(&meta)?;
                } else if let Some(id) = meta.path.get_ident() {
                    if INT_REPRS.iter().any(|t| id == t) {
                        r.int = Some(id.clone());
                    }
                }
                Ok(())
            });
        }
        r
    }
}

/// Skip whatever follows a key: `= value` or `(...)`.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _content;
        syn::parenthesized!(_content in meta.input);
    }
    Ok(())
}

fn key_name(meta: &ParseNestedMeta) -> String {
    let p = &meta.path;
    quote::quote!(#p).to_string().replace(' ', "")
}

/// Parse the `#[h5(...)]` attributes, calling `each` for every key; `each` returns `false`
/// for a key it does not know, which is then reported with the `expected` list.
fn parse_h5(
    cx: &Ctxt,
    attrs: &[syn::Attribute],
    what: &str,
    expected: &str,
    mut each: impl FnMut(&ParseNestedMeta) -> syn::Result<bool>,
) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("h5")) {
        if let syn::Meta::Path(_) | syn::Meta::NameValue(_) = attr.meta {
            cx.error_spanned_by(
                attr,
                format!("expected a list of keys, as in #[h5({expected})]"),
            );
            continue;
        }
        let r = attr.parse_nested_meta(|meta| {
            if !each(&meta)? {
                cx.error_spanned_by(
                    &meta.path,
                    format!(
                        "unknown h5 attribute `{}` on {what}; expected {expected}",
                        key_name(&meta)
                    ),
                );
                skip_value(&meta)?;
            }
            Ok(())
        });
        if let Err(e) = r {
            cx.syn_error(e);
        }
    }
}

fn set_once<T>(cx: &Ctxt, slot: &mut Option<Attr<T>>, meta: &ParseNestedMeta, value: T) {
    let span = meta.path.span();
    if slot.is_some() {
        cx.error_at(span, format!("duplicate h5 attribute `{}`", key_name(meta)));
    } else {
        *slot = Some(Attr { span, value });
    }
}

impl Container {
    /// Parse the container's `#[h5(...)]` attributes.
    pub fn from_attrs(cx: &Ctxt, attrs: &[syn::Attribute]) -> Container {
        let mut c = Container::default();
        parse_h5(
            cx,
            attrs,
            "a type",
            "`crate = \"...\"` or `zerocopy`",
            |meta| {
                if meta.path.is_ident("crate") {
                    let lit: LitStr = meta.value()?.parse()?;
                    match lit.parse::<syn::Path>() {
                        Ok(path) => set_once(cx, &mut c.krate, meta, path),
                        Err(_) => cx.error_spanned_by(
                            &lit,
                            format!(
                                "`crate` must be a path, such as \"h5\" or \"::my_crate::h5\"; \
                             `{}` is not one",
                                lit.value()
                            ),
                        ),
                    }
                    Ok(true)
                } else if meta.path.is_ident("zerocopy") {
                    set_once(cx, &mut c.zerocopy, meta, ());
                    Ok(true)
                } else {
                    Ok(false)
                }
            },
        );
        c
    }
}

impl Field {
    /// Parse a field's `#[h5(...)]` attributes.
    pub fn from_attrs(cx: &Ctxt, attrs: &[syn::Attribute]) -> Field {
        let mut f = Field::default();
        parse_h5(cx, attrs, "a field", "`name = \"...\"` or `skip`", |meta| {
            if meta.path.is_ident("name") {
                let lit: LitStr = meta.value()?.parse()?;
                set_once(cx, &mut f.name, meta, lit);
                Ok(true)
            } else if meta.path.is_ident("skip") {
                set_once(cx, &mut f.skip, meta, ());
                Ok(true)
            } else {
                Ok(false)
            }
        });
        f
    }
}

impl Variant {
    /// Parse a variant's `#[h5(...)]` attributes.
    pub fn from_attrs(cx: &Ctxt, attrs: &[syn::Attribute]) -> Variant {
        let mut v = Variant::default();
        parse_h5(cx, attrs, "an enum variant", "`name = \"...\"`", |meta| {
            if meta.path.is_ident("name") {
                let lit: LitStr = meta.value()?.parse()?;
                set_once(cx, &mut v.name, meta, lit);
                Ok(true)
            } else {
                Ok(false)
            }
        });
        v
    }
}
