//! `phasegate-ptx`: the typed model of PTX that every part of phasegate shares.
//!
//! - [`model`]: modules, functions, declarations, instructions, operands, spans;
//! - [`write`]: the model to PTX text ([`write_string`]);
//! - [`features`]: the minimum PTX ISA `.version` and `.target` of each instruction, modifier,
//!   special register and directive;
//! - [`validate`]: a module's `.version`/`.target` against the features it uses;

pub mod model;
pub mod write;
pub mod features;
pub mod validate;
pub mod ptxas;
pub mod read;

pub use model::*;
pub use write::write_string;
pub use read::{parse, ReadError};
pub use features::{directive_features, instruction_features, target_min_version, Feature, FeatureRow, FEATURE_TABLE};
pub use validate::{check_features, required_version, FeatureError};
