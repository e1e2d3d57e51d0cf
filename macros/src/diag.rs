//! Accumulated errors: the user sees every problem of a kernel at once, each on its tokens.

use proc_macro2::{Span, TokenStream};

#[derive(Default)]
pub struct Diagnostics {
    errors: Vec<syn::Error>,
}

impl Diagnostics {
    pub fn error(&mut self, span: Span, message: impl std::fmt::Display) {
        self.push(syn::Error::new(span, message));
    }
    /// Adds an error; the same message at the same place is reported once (a device
    /// function's body is checked at each of its calls).
    pub fn push(&mut self, error: syn::Error) {
        let same = |e: &syn::Error| {
            let (a, b) = (e.span().start(), error.span().start());
            e.to_string() == error.to_string()
                && (a.line, a.column) == (b.line, b.column)
                && a.line > 0
                && e.span().file() == error.span().file()
        };
        if !self.errors.iter().any(same) {
            self.errors.push(error);
        }
    }
    /// How many errors so far.
    pub fn count(&self) -> usize {
        self.errors.len()
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
