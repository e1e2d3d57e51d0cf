//! `phasegate-ptx`: the typed model of PTX that every part of phasegate shares.
//!
//! - [`model`]: modules, functions, declarations, instructions, operands, spans;
//! - [`mod@write`]: the model to PTX text ([`write_string`]);
//! - [`features`]: the minimum PTX ISA `.version` and `.target` of each instruction, modifier,
//!   special register and directive;
//! - [`validate`]: a module's `.version`/`.target` against the features it uses;

pub mod features;
pub mod labels;
pub mod model;
pub mod ptxas;
pub mod read;
pub mod validate;
pub mod write;

pub use features::{
    FEATURE_TABLE, Feature, FeatureRow, directive_features, instruction_features,
    target_min_version,
};
pub use labels::Labels;
pub use model::*;
pub use read::{ReadError, parse};
pub use validate::{FeatureError, check_features, required_version};
pub use write::write_string;
