//! `#[kernel]`: a Rust function in the kernel language becomes a PTX entry; `#[device]`
//! functions are inlined into it.
//!
//! The pipeline, one file each: `attr` reads the arguments, `check` decides what is in the
//! language and infers types, `lower` builds the PTX model, `target` settles `.target` and
//! `.version` from the features used, `lint` runs the analyzer on the PTX, `shadow` keeps the
//! body for rustc, `expand` emits it all.

mod attr;
mod builtins;
mod check;
mod device;
mod diag;
mod expand;
mod handles;
mod lint;
mod lower;
mod params;
mod shadow;
mod target;
mod types;

#[cfg(test)]
mod robustness;
// With the crate root, not in `device`: the expansion bench compiles `device` on its own.
#[cfg(test)]
#[path = "device/tests.rs"]
mod device_tests;

use proc_macro::TokenStream;

/// Compiles a kernel-language function to PTX. See the `phasegate` crate's documentation.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::kernel(attr.into(), item.into()).into()
}

/// Marks a function that kernels call: checked like a kernel's body and inlined into the PTX
/// of every kernel that calls it. See the `phasegate` crate's documentation.
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::device(attr.into(), item.into()).into()
}

/// Internal: one step of the chain that brings device functions' bodies to a kernel.
#[doc(hidden)]
#[proc_macro]
pub fn __phasegate_step(input: TokenStream) -> TokenStream {
    expand::step(input.into()).into()
}
