//! The input as the derive sees it: a struct with fields or an enum with variants, each with
//! its parsed attributes.

use proc_macro2::Span;
use syn::spanned::Spanned;

use super::attr;
use super::ctxt::Ctxt;

/// The type the derive is applied to.
pub struct Container<'a> {
    /// The type's name.
    pub ident: &'a syn::Ident,
    /// Its generics.
    pub generics: &'a syn::Generics,
    /// `#[h5(...)]` on the type.
    pub attrs: attr::Container,
    /// `#[repr(...)]` on the type.
    pub repr: attr::Repr,
    /// Fields or variants.
    pub data: Data<'a>,
}

/// The body of the type.
pub enum Data<'a> {
    /// A struct (named, tuple or unit) and its fields.
    Struct(Vec<Field<'a>>),
    /// An enum and its variants.
    Enum(Vec<Variant<'a>>),
}

/// A struct field.
pub struct Field<'a> {
    /// How the field is named in code: `a` or `0`.
    pub member: syn::Member,
    /// The field's type.
    pub ty: &'a syn::Type,
    /// `#[h5(...)]` on the field.
    pub attrs: attr::Field,
    /// The field as written, for error spans.
    pub original: &'a syn::Field,
}

/// An enum variant.
pub struct Variant<'a> {
    /// The variant's name.
    pub ident: &'a syn::Ident,
    /// `#[h5(...)]` on the variant.
    pub attrs: attr::Variant,
    /// The variant's fields (must be none).
    pub fields: &'a syn::Fields,
}

impl<'a> Container<'a> {
    /// Read the input; `None` (with an error recorded) for a union.
    pub fn from_ast(cx: &Ctxt, input: &'a syn::DeriveInput) -> Option<Container<'a>> {
        let attrs = attr::Container::from_attrs(cx, &input.attrs);
        let repr = attr::Repr::from_attrs(&input.attrs);
        let data = match &input.data {
            syn::Data::Struct(s) => Data::Struct(
                s.fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| Field {
                        member: match &f.ident {
                            Some(id) => syn::Member::Named(id.clone()),
                            None => syn::Member::Unnamed(syn::Index {
                                index: i as u32,
                                span: f.ty.span(),
                            }),
                        },
                        ty: &f.ty,
                        attrs: attr::Field::from_attrs(cx, &f.attrs),
                        original: f,
                    })
                    .collect(),
            ),
            syn::Data::Enum(e) => Data::Enum(
                e.variants
                    .iter()
                    .map(|v| Variant {
                        ident: &v.ident,
                        attrs: attr::Variant::from_attrs(cx, &v.attrs),
                        fields: &v.fields,
                    })
                    .collect(),
            ),
            syn::Data::Union(u) => {
                cx.error_spanned_by(
                    u.union_token,
                    "#[derive(H5Type)] does not support unions: HDF5 has no union datatype",
                );
                return None;
            }
        };
        Some(Container {
            ident: &input.ident,
            generics: &input.generics,
            attrs,
            repr,
            data,
        })
    }
}

impl Field<'_> {
    /// The member name: `#[h5(name)]`, else the field's name, else its index.
    pub fn name(&self) -> String {
        match (&self.attrs.name, &self.member) {
            (Some(n), _) => n.value.value(),
            (None, syn::Member::Named(id)) => unraw(id),
            (None, syn::Member::Unnamed(i)) => i.index.to_string(),
        }
    }

    /// Where to point errors about the member name.
    pub fn name_span(&self) -> Span {
        match &self.attrs.name {
            Some(n) => n.value.span(),
            None => match &self.member {
                syn::Member::Named(id) => id.span(),
                syn::Member::Unnamed(_) => self.ty.span(),
            },
        }
    }

    /// Whether the field is a member of the datatype.
    pub fn is_member(&self) -> bool {
        self.attrs.skip.is_none()
    }
}

impl Variant<'_> {
    /// The enum member name: `#[h5(name)]`, else the variant's name.
    pub fn name(&self) -> String {
        match &self.attrs.name {
            Some(n) => n.value.value(),
            None => unraw(self.ident),
        }
    }

    /// Where to point errors about the member name.
    pub fn name_span(&self) -> Span {
        match &self.attrs.name {
            Some(n) => n.value.span(),
            None => self.ident.span(),
        }
    }
}

/// An identifier without its `r#` prefix.
pub fn unraw(id: &syn::Ident) -> String {
    let s = id.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}
