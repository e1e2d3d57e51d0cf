//! `phasegate-ptx`: the typed model of PTX that every part of phasegate shares.
//!
//! - [`model`]: modules, functions, declarations, instructions, operands, spans;
//! - [`mod@write`]: the model to PTX text ([`write_string`]);
//! - [`features`]: the minimum PTX ISA `.version` and `.target` of each instruction, modifier,
//!   special register and directive;
//! - [`validate`]: a module's `.version`/`.target` against the features it uses;
//! - [`mod@read`]: PTX text, ours or nvcc's, to the model ([`parse`]);
//! - [`labels`]: label names resolved with PTX's block scoping;
//! - [`ptxas`]: running NVIDIA's assembler on what phasegate writes.
//!
//! A module built by hand and written as PTX text; the reader gives the same model back:
//!
//! ```rust
//! use phasegate_ptx::*;
//!
//! let mut body = Body::new();
//! let bar = Instruction::new(Opcode::Bar, &["sync"], vec![Operand::int(0)]);
//! body.push(Statement::Instruction(bar), Span::NONE);
//! body.push(Statement::Instruction(Instruction::new(Opcode::Ret, &[], vec![])), Span::NONE);
//! let mut module = Module::new(Version::new(8, 0), SmVersion::new(90));
//! module.items.push(Item::Function(Function {
//!     kind: FunctionKind::Entry,
//!     linkage: Some(Linkage::Visible),
//!     name: "k".into(),
//!     returns: Vec::new(),
//!     params: Vec::new(),
//!     directives: Vec::new(),
//!     body: Some(body),
//! }));
//!
//! let text = write_string(&module);
//! assert!(text.starts_with(".version 8.0\n.target sm_90\n.address_size 64\n"));
//! assert!(text.contains("\tbar.sync \t0;\n"));
//! assert_eq!(parse(&text), Ok(module));
//! ```

#![warn(missing_docs)]

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
