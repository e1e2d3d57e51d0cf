//! A device function in a file of its own: the `.loc` lines of its inlined code name this file.
use phasegate::prelude::*;

#[device]
pub fn square(v: f32) -> f32 {
    v * v
}
