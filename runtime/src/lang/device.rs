//! How rustc sees `#[device]` functions and their calls.
//!
//! A `#[device]` function's Rust copy returns its value wrapped in [`Device`], and a kernel's
//! (or device function's) copy unwraps every call of a function that is not a kernel-language
//! builtin with [`device_result`]. A call of an ordinary Rust function then fails the
//! [`DeviceReturn`] bound, and rustc says so on the call: the wrapper is what tells "not a
//! `#[device]` function" apart from a device function rustc can type-check across the call
//! (handles moved in and returned keep their typestate).

use super::outside_kernel;

/// The value a `#[device]` function returns, as rustc sees it.
#[doc(hidden)]
pub struct Device<T>(T);

impl<T> Device<T> {
    /// What the Rust copy of a `#[device]` function returns its body's value as.
    #[doc(hidden)]
    pub fn of(value: T) -> Device<T> {
        Device(value)
    }
}

/// The results of `#[device]` functions (`T` being the function's own return type): what a
/// kernel may call besides the kernel language.
#[diagnostic::on_unimplemented(
    message = "this call is not to a `#[device]` function: a kernel calls the kernel language's functions and `#[device]` functions",
    label = "not a `#[device]` function",
    note = "the kernel language's functions are `phasegate::lang`'s: `thread_idx_x()`, `block_dim_x()`, `sync_threads()`, `shared_array::<T, N>()`, `min`, `max`, `sqrt`, the barrier vocabulary, ...",
    note = "mark the function `#[device]` to call it from a kernel: it is then inlined into the kernel's PTX"
)]
pub trait DeviceReturn<T> {}

impl<T> DeviceReturn<T> for Device<T> {}

/// What `#[kernel]` and `#[device]` turn a call of a `#[device]` function `f(args)` into for
/// rustc: `device_result(f(args))`.
#[doc(hidden)]
pub fn device_result<T, R: DeviceReturn<T>>(_result: R) -> T {
    outside_kernel("a #[device] function")
}
