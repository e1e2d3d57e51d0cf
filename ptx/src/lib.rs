//! `phasegate-ptx`: the typed model of PTX that every part of phasegate shares.
//!
//! - [`model`]: modules, functions, declarations, instructions, operands, spans;
//! - [`write`]: the model to PTX text ([`write_string`]);

pub mod model;
pub mod write;

pub use model::*;
pub use write::write_string;
