//! Accumulated errors: the user sees every problem of a kernel at once, each on its tokens.

use proc_macro2::{Span, TokenStream};

#[derive(Default)]
pub struct Diagnostics {
    errors: Vec<syn::Error>,
}

impl Diagnostics {
    pub fn error(&mut self, span: Span, message: impl std::fmt::Display) {
        self.errors.push(syn::Error::new(span, message));
    }
    pub fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }
    /// All errors as `compile_error!` invocations.
    pub fn to_compile_errors(&self) -> TokenStream {
        self.errors
            .iter()
            .map(syn::Error::to_compile_error)
            .collect()
    }
}
