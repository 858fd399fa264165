//! Code generation: the `impl H5Type` for a checked container.
//!
//! The output sits in `const _: () = { ... };`, names nothing but `::core` and the
//! `__private` module of the crate given by `#[h5(crate = "...")]` (default `::h5`), and has
//! no `unsafe`, so it compiles under `#![forbid(unsafe_code)]` and `#![no_implicit_prelude]`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::internals::ast::{Container, Data, Field, Variant};
use crate::internals::{check, ctxt::Ctxt};

/// Expand `#[derive(H5Type)]` on `input`; every error in the input at once.
pub fn derive(input: &syn::DeriveInput) -> syn::Result<TokenStream> {
    let cx = Ctxt::new();
    let Some(cont) = Container::from_ast(&cx, input) else {
        cx.check()?;
        return Ok(TokenStream::new());
    };
    check::check(&cx, &cont);
    cx.check()?;

    let krate = match &cont.attrs.krate {
        Some(k) => {
            let p = &k.value;
            quote!(#p)
        }
        None => quote!(::h5),
    };
    let p = quote!(#krate::__private);
    let mut body = match &cont.data {
        Data::Struct(fields) if cont.repr.transparent.is_some() => transparent_body(fields, &p),
        Data::Struct(fields) => struct_body(&cont, fields, &p),
        Data::Enum(variants) => enum_body(&cont, variants, &p),
    };

    let ident = cont.ident;
    let (impl_generics, ty_generics, where_clause) = cont.generics.split_for_impl();
    let mut predicates: Vec<TokenStream> = where_clause
        .map(|w| w.predicates.iter().map(|p| quote!(#p)).collect())
        .unwrap_or_default();
    if let Data::Struct(fields) = &cont.data {
        predicates.extend(field_bounds(&cont, fields, &p));
    }
    if let Some(z) = &cont.attrs.zerocopy {
        // Spanned at the attribute, so that a struct without the zerocopy derives is
        // reported there.
        predicates.push(quote_spanned! {z.span=>
            #ident #ty_generics: #p::zerocopy::FromBytes
                + #p::zerocopy::IntoBytes
                + #p::zerocopy::Immutable
        });
        body.extend(zerocopy_body(&p));
    }
    let where_clause = if predicates.is_empty() {
        quote!()
    } else {
        quote!(where #(#predicates,)*)
    };
    // For a type without generics, evaluate the constants now, so that a member type's
    // compile-time checks (such as an array of zero elements) fail `cargo check` too, not only
    // a build.
    // (Not for a `#[h5(zerocopy)]` struct: without the zerocopy derives the impl does not
    // apply, and that is reported at the attribute already.)
    let evaluate = (cont.generics.params.is_empty() && cont.attrs.zerocopy.is_none())
        .then(|| quote!(const _: bool = <#ident as #p::H5Type>::IS_POD;));
    Ok(quote! {
        #[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #p::H5Type for #ident #ty_generics #where_clause {
                #body
            }
            #evaluate
        };
    })
}

/// The bounds a struct's fields need: `H5Type` for members (spanned at the field's type, so
/// a missing implementation points there), `Default` for skipped fields, and `Copy` for the
/// members of a packed struct (they are read by value, never by reference). Bounds are added
/// only for field types that mention a type parameter; for the others the compiler checks
/// the uses directly.
fn field_bounds(cont: &Container, fields: &[Field], p: &TokenStream) -> Vec<TokenStream> {
    let params: Vec<&syn::Ident> = cont.generics.type_params().map(|t| &t.ident).collect();
    let packed = cont.repr.packed.is_some();
    fields
        .iter()
        .filter(|f| mentions_any(f.ty, &params))
        .map(|f| {
            let ty = f.ty;
            if f.is_member() {
                let copy = packed.then(|| quote!(+ ::core::marker::Copy));
                quote_spanned!(ty.span()=> #ty: #p::H5Type #copy)
            } else {
                quote_spanned!(ty.span()=> #ty: ::core::default::Default)
            }
        })
        .collect()
}

/// Whether a type's tokens mention one of the type parameters.
fn mentions_any(ty: &syn::Type, params: &[&syn::Ident]) -> bool {
    fn walk(ts: TokenStream, params: &[&syn::Ident]) -> bool {
        ts.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(id) => params.iter().any(|p| **p == id),
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), params),
            _ => false,
        })
    }
    walk(quote!(#ty), params)
}

fn struct_body(cont: &Container, fields: &[Field], p: &TokenStream) -> TokenStream {
    let type_name = cont.ident.to_string();
    let packed = cont.repr.packed.is_some();
    let members: Vec<&Field> = fields.iter().filter(|f| f.is_member()).collect();

    let is_pod = members.iter().map(|f| {
        let ty = f.ty;
        quote_spanned!(ty.span()=> <#ty as #p::H5Type>::IS_POD)
    });
    let entries = members.iter().map(|f| {
        let ty = f.ty;
        let member = &f.member;
        let name = f.name();
        quote_spanned! {ty.span()=>
            (#name, ::core::mem::offset_of!(Self, #member), <#ty as #p::H5Type>::h5_type())
        }
    });
    let encodes = members.iter().map(|f| {
        let ty = f.ty;
        let member = &f.member;
        // A packed struct's fields may be misaligned: copy them out instead of borrowing.
        // Spanned at the field's type, so that a member that is not `Copy` is reported there.
        let value = if packed {
            quote_spanned!(ty.span()=> &{ self.#member })
        } else {
            quote_spanned!(ty.span()=> &self.#member)
        };
        quote_spanned! {ty.span()=>
            <#ty as #p::H5Type>::encode(
                #value,
                #p::field_mut(
                    __out,
                    ::core::mem::offset_of!(Self, #member),
                    ::core::mem::size_of::<#ty>(),
                )?,
                __heap,
            )?;
        }
    });
    let inits = fields.iter().map(|f| {
        let ty = f.ty;
        let member = &f.member;
        if f.is_member() {
            quote_spanned! {ty.span()=>
                #member: <#ty as #p::H5Type>::decode(
                    #p::field(
                        __bytes,
                        ::core::mem::offset_of!(Self, #member),
                        ::core::mem::size_of::<#ty>(),
                    )?,
                    __heap,
                )?
            }
        } else {
            quote_spanned!(ty.span()=> #member: ::core::default::Default::default())
        }
    });

    quote! {
        const IS_POD: bool = true #(&& #is_pod)*;

        fn h5_type() -> #p::Datatype {
            #p::compound(
                #type_name,
                ::core::mem::size_of::<Self>(),
                [#(#entries),*],
            )
        }

        fn encode(&self, __out: &mut [u8], __heap: &mut #p::VarLenHeap) -> #p::Result<()> {
            #(#encodes)*
            ::core::result::Result::Ok(())
        }

        fn decode(__bytes: &[u8], __heap: &#p::VarLenHeap) -> #p::Result<Self> {
            ::core::result::Result::Ok(Self { #(#inits),* })
        }
    }
}

/// `#[h5(zerocopy)]`: the struct's memory is its byte image (zerocopy proves it: every bit
/// pattern is a value, no padding, no interior mutability), so readers fill it and writers
/// take it as it is.
fn zerocopy_body(p: &TokenStream) -> TokenStream {
    quote! {
        fn image_bytes_mut(__values: &mut [Self]) -> ::core::option::Option<&mut [u8]> {
            ::core::option::Option::Some(#p::zerocopy::IntoBytes::as_mut_bytes(__values))
        }

        fn image_bytes(__values: &[Self]) -> ::core::option::Option<&[u8]> {
            ::core::option::Option::Some(#p::zerocopy::IntoBytes::as_bytes(__values))
        }

        fn zeroed_vec(__n: usize) -> ::core::option::Option<#p::Vec<Self>> {
            ::core::result::Result::ok(#p::zerocopy::FromZeros::new_vec_zeroed(__n))
        }
    }
}

fn transparent_body(fields: &[Field], p: &TokenStream) -> TokenStream {
    let Some(inner) = fields.iter().find(|f| f.is_member()) else {
        // check() reported it.
        return TokenStream::new();
    };
    let ty = inner.ty;
    let member = &inner.member;
    let inits = fields.iter().map(|f| {
        let fty = f.ty;
        let m = &f.member;
        if f.is_member() {
            quote_spanned!(fty.span()=> #m: <#fty as #p::H5Type>::decode(__bytes, __heap)?)
        } else {
            quote_spanned!(fty.span()=> #m: ::core::default::Default::default())
        }
    });
    quote_spanned! {ty.span()=>
        const IS_POD: bool = <#ty as #p::H5Type>::IS_POD;

        fn h5_type() -> #p::Datatype {
            <#ty as #p::H5Type>::h5_type()
        }

        fn h5_type_packed() -> #p::Datatype {
            <#ty as #p::H5Type>::h5_type_packed()
        }

        fn encode(&self, __out: &mut [u8], __heap: &mut #p::VarLenHeap) -> #p::Result<()> {
            <#ty as #p::H5Type>::encode(&self.#member, __out, __heap)
        }

        fn decode(__bytes: &[u8], __heap: &#p::VarLenHeap) -> #p::Result<Self> {
            ::core::result::Result::Ok(Self { #(#inits),* })
        }
    }
}

fn enum_body(cont: &Container, variants: &[Variant], p: &TokenStream) -> TokenStream {
    let Some(repr) = &cont.repr.int else {
        return TokenStream::new();
    };
    let type_name = cont.ident.to_string();
    let entries = variants.iter().map(|v| {
        let id = v.ident;
        let name = v.name();
        quote!((#name, Self::#id as #repr))
    });
    let arms = variants.iter().map(|v| {
        let id = v.ident;
        quote!(Self::#id => Self::#id as #repr)
    });
    let tests = variants.iter().map(|v| {
        let id = v.ident;
        quote! {
            if __v == Self::#id as #repr {
                return ::core::result::Result::Ok(Self::#id);
            }
        }
    });
    quote! {
        const IS_POD: bool = true;

        fn h5_type() -> #p::Datatype {
            #p::enumeration(#type_name, [#(#entries),*])
        }

        fn encode(&self, __out: &mut [u8], __heap: &mut #p::VarLenHeap) -> #p::Result<()> {
            let __v: #repr = match self {
                #(#arms,)*
            };
            <#repr as #p::H5Type>::encode(&__v, __out, __heap)
        }

        fn decode(__bytes: &[u8], __heap: &#p::VarLenHeap) -> #p::Result<Self> {
            let __v = <#repr as #p::H5Type>::decode(__bytes, __heap)?;
            #(#tests)*
            ::core::result::Result::Err(#p::unknown_variant(#type_name, __v))
        }
    }
}
