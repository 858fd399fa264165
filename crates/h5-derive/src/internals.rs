//! The derive's front end: parse the input into an [`ast::Container`] with its attributes,
//! collecting every error in a [`ctxt::Ctxt`], then [`check`] what the input means.

pub mod ast;
pub mod attr;
pub mod check;
pub mod ctxt;
