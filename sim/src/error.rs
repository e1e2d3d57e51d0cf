//! Why the simulator could not run a kernel: [`SimError`], the error of every entry point.

use std::fmt;

/// Why the simulator could not run a kernel (not the kernel's fault).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// The PTX text does not parse.
    Parse {
        /// 1-based line of the offending token.
        line: u32,
        /// 1-based column (in characters) of the offending token.
        col: u32,
        /// What was found and what was expected, lowercase.
        message: String,
    },
    /// A thread reached an instruction (or form of one) the simulator does not implement.
    Unsupported {
        /// The function (entry or `.func`) the instruction is in.
        function: String,
        /// Its PTX line (0 when the module was not read from text).
        line: u32,
        /// The instruction as the PTX writes it.
        instruction: String,
        /// What the simulator lacks to run it.
        reason: String,
    },
    /// The launch does not fit the kernel or the simulator's limits.
    Launch(String),
    /// The arguments do not fit the kernel's parameters.
    Args(String),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Parse { line, col, message } => write!(
                f,
                "cannot read the PTX: line {line}, column {col}: {message}"
            ),
            SimError::Unsupported {
                function,
                line,
                instruction,
                reason,
            } => {
                write!(
                    f,
                    "the simulator cannot run line {line} of `{function}`: {reason} (instruction `{instruction}`)"
                )
            }
            SimError::Launch(m) => write!(f, "bad launch: {m}"),
            SimError::Args(m) => write!(f, "bad arguments: {m}"),
        }
    }
}

impl std::error::Error for SimError {}
