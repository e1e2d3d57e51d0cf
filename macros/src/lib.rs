//! `#[kernel]`: a Rust function in the kernel language becomes a PTX entry; `#[device]`
//! functions are inlined into it.
//!
//! The macro is a pipeline of stages, a module each, that runs one way: a stage takes what
//! the stages before it produced and imports nothing of the stages after it, so a kernel can
//! be followed through it file by file.
//!
//! 1. `attr`: the arguments of `#[kernel(...)]` (`KernelArgs`, `LaunchBounds`).
//! 2. `device`: the `DeviceTable`, the `#[device]` functions a kernel calls, which a chain of
//!    macro calls (`device::chain`) brings to the kernel's expansion, since a proc macro sees
//!    only its own item.
//! 3. `check`: decides what is in the language and infers every expression's type, reading
//!    the callees from the table (`Types`).
//! 4. `lower`: the checked body, with its `Types`, to the PTX model (`Lowered`: the function,
//!    the Rust span of each statement, the Rust name of each register).
//! 5. `lint`: the analyzer on the lowered PTX; its findings become errors and warnings on the
//!    Rust tokens that `Lowered` says produced each instruction.
//! 6. `shadow`: the copy of the body that rustc type-checks, rewritten where ordinary Rust
//!    spells the kernel language differently (`Types` tells which `as` casts involve a
//!    storage float).
//! 7. `expand`: runs the stages for `#[kernel]`, `#[device]` and the chain's steps, and emits
//!    what they produced: the kernel's module with its PTX, the copies, the errors.
//!
//! Under the stages is a foundation that any stage may use and that uses no stage: `types`
//! (the language's types and their PTX forms), `builtins` and `handles` (its functions and
//! its barrier handles' methods, by name), `params` (types and constants as written in Rust),
//! `diag` (errors gathered on the user's tokens) and `target` (a module's `.target` and
//! `.version`, from the features it uses). `tests/module_order.rs` at the repository's root
//! fails when an import breaks this order.

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
