//! Checks a module's `.version` and `.target` against the features it uses.
//!
//! ptxas stops at the first feature the module's `.version` or `.target` does not allow and
//! names only that one; [`check_features`] reports all of them, each with the statement that
//! uses it, and [`required_version`] says which `.version` would cover them.

use crate::features::{Feature, directive_features, instruction_features, target_feature};
use crate::model::{Module, SmVersion, Span, Statement, StmtId, Version};
use std::fmt;

/// A use of a feature that the module's `.version` or `.target` does not allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeatureError {
    /// The function that uses the feature; empty for the module's own `.target` directive.
    pub function: String,
    /// The statement that uses it; `None` for a directive in a function's header (between its
    /// parameters and its body) and for the `.target` directive.
    pub stmt: Option<StmtId>,
    /// Where that statement stood in the text; [`Span::NONE`] when not from text.
    pub span: Span,
    /// The feature, with the `.version` and `.target` it needs.
    pub feature: Feature,
    /// The module's `.version`.
    pub have_ptx: Version,
    /// The module's `.target`.
    pub have_sm: SmVersion,
}

impl FeatureError {
    /// Whether the module's `.target` lacks the feature.
    pub fn target_too_low(&self) -> bool {
        !self.feature.available_on(self.have_sm)
    }

    /// Whether the module's `.version` is older than the feature on the module's `.target`.
    pub fn version_too_low(&self) -> bool {
        self.have_ptx < self.feature.ptx_on(self.have_sm)
    }
}

impl fmt::Display for FeatureError {
    /// "`mbarrier.try_wait.parity` requires .target sm_90 or higher (module targets sm_80;
    /// PTX ISA 9.7.13.15.16)", or "... requires PTX ISA .version 7.8 or later (module has
    /// .version 7.0; ...)", or both joined with "and".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let target = format!(".target {}", self.feature.target_text());
        let version = format!(
            "PTX ISA .version {} or later",
            self.feature.ptx_on(self.have_sm)
        );
        let (needs, has) = match (self.target_too_low(), self.version_too_low()) {
            (true, true) => (
                format!("{target} and {version}"),
                format!(
                    "module targets {} with .version {}",
                    self.have_sm, self.have_ptx
                ),
            ),
            (true, false) => (target, format!("module targets {}", self.have_sm)),
            _ => (version, format!("module has .version {}", self.have_ptx)),
        };
        write!(
            f,
            "`{}` requires {needs} ({has}; PTX ISA {})",
            self.feature.name, self.feature.spec
        )
    }
}

impl std::error::Error for FeatureError {}

/// One use of a feature: the function, statement and span it comes from.
struct Use {
    function: String,
    stmt: Option<StmtId>,
    span: Span,
    feature: Feature,
}

/// Every feature the module uses, in text order; the `.target` directive first.
fn uses(module: &Module) -> Vec<Use> {
    let mut out = Vec::new();
    if let Some(feature) = target_feature(module.target.sm) {
        out.push(Use {
            function: String::new(),
            stmt: None,
            span: Span::NONE,
            feature,
        });
    }
    for function in module.functions() {
        for d in &function.directives {
            for feature in directive_features(d) {
                out.push(Use {
                    function: function.name.clone(),
                    stmt: None,
                    span: Span::NONE,
                    feature,
                });
            }
        }
        let Some(body) = &function.body else { continue };
        for (id, statement) in body.iter() {
            let features = match statement {
                Statement::Instruction(inst) => instruction_features(inst),
                Statement::Directive(d) => directive_features(d),
                _ => continue,
            };
            for feature in features {
                out.push(Use {
                    function: function.name.clone(),
                    stmt: Some(id),
                    span: body.span(id),
                    feature,
                });
            }
        }
    }
    out
}

/// The lowest `.version` that covers the module's `.target` and every feature it uses.
///
/// A target the table does not know adds nothing; with neither a known target nor a feature the
/// answer is PTX ISA 1.0. The `.target` a feature needs is not this function's business: a module
/// that uses `mbarrier.try_wait` on `sm_80` needs a higher target, which [`check_features`]
/// reports.
pub fn required_version(module: &Module) -> Version {
    let target = module.target.sm;
    uses(module)
        .iter()
        .map(|u| u.feature.ptx_on(target))
        .max()
        .unwrap_or(Version::new(1, 0))
}

/// One error per (statement, feature) that the module's `.version` or `.target` does not allow,
/// in text order, the module's `.target` directive first (a `.version` too old for the target).
///
/// ```rust
/// use phasegate_ptx::{Version, check_features, parse, required_version};
///
/// // `mbarrier.try_wait` arrived with PTX ISA 7.8 and sm_90.
/// let module = parse(".version 7.0\n.target sm_80\n.address_size 64\n\
///     .visible .entry k()\n{\n .reg .pred %p<2>;\n .reg .b64 %rd<2>;\n\
///     mbarrier.try_wait.parity.shared::cta.b64 %p1, [%rd1], 0;\n ret;\n}\n").unwrap();
/// let errors = check_features(&module);
/// let try_wait = errors.iter().find(|e| e.feature.name == "mbarrier.try_wait.parity");
/// assert!(try_wait.unwrap().target_too_low());
/// assert_eq!(required_version(&module), Version::new(7, 8));
/// ```
pub fn check_features(module: &Module) -> Vec<FeatureError> {
    let (have_ptx, have_sm) = (module.version, module.target.sm);
    uses(module)
        .into_iter()
        .filter(|u| !u.feature.available_with(have_ptx, have_sm))
        .map(|u| FeatureError {
            function: u.function,
            stmt: u.stmt,
            span: u.span,
            feature: u.feature,
            have_ptx,
            have_sm,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{
        Body, Directive, DirectiveArg, Function, FunctionKind, Instruction, Item, Opcode, Operand,
    };

    fn kernel(statements: Vec<Instruction>, directives: Vec<Directive>) -> Function {
        let mut body = Body::new();
        for (line, inst) in statements.into_iter().enumerate() {
            body.push(Statement::Instruction(inst), Span::new(10 + line as u32, 2));
        }
        Function {
            kind: FunctionKind::Entry,
            linkage: None,
            name: "k".into(),
            returns: vec![],
            params: vec![],
            directives,
            body: Some(body),
        }
    }

    fn module(version: Version, sm: SmVersion, f: Function) -> Module {
        let mut m = Module::new(version, sm);
        m.items.push(Item::Function(f));
        m
    }

    fn try_wait_parity() -> Instruction {
        Instruction::new(
            Opcode::Mbarrier,
            &["try_wait", "parity", "shared::cta", "b64"],
            vec![Operand::reg("%p1"), Operand::sym("bar0"), Operand::int(0)],
        )
    }

    fn relaxed_try_wait() -> Instruction {
        Instruction::new(
            Opcode::Mbarrier,
            &["try_wait", "parity", "relaxed", "cta", "shared::cta", "b64"],
            vec![Operand::reg("%p1"), Operand::sym("bar0"), Operand::int(0)],
        )
    }

    #[test]
    fn try_wait_parity_under_sm_80() {
        let m = module(
            Version::new(7, 8),
            SmVersion::new(80),
            kernel(vec![try_wait_parity()], vec![]),
        );
        let errors = check_features(&m);
        assert_eq!(errors.len(), 1, "{errors:?}");
        let e = &errors[0];
        assert_eq!(
            (e.function.as_str(), e.stmt, e.span),
            ("k", Some(StmtId(0)), Span::new(10, 2))
        );
        assert!(e.target_too_low() && !e.version_too_low());
        assert_eq!(
            e.to_string(),
            "`mbarrier.try_wait.parity` requires .target sm_90 or higher (module targets sm_80; PTX ISA 9.7.13.15.16)"
        );
    }

    #[test]
    fn try_wait_parity_under_sm_80_and_version_7_0() {
        let m = module(
            Version::new(7, 0),
            SmVersion::new(80),
            kernel(vec![try_wait_parity()], vec![]),
        );
        let text: Vec<String> = check_features(&m).iter().map(|e| e.to_string()).collect();
        assert_eq!(
            text,
            [
                "`mbarrier.shared::cta` requires PTX ISA .version 7.8 or later (module has .version 7.0; PTX ISA 9.7.13.15.13)",
                "`mbarrier.try_wait.parity` requires .target sm_90 or higher and PTX ISA .version 7.8 or later (module targets sm_80 with .version 7.0; PTX ISA 9.7.13.15.16)",
            ]
        );
    }

    #[test]
    fn relaxed_under_version_8_0() {
        let m = module(
            Version::new(8, 0),
            SmVersion::new(90),
            kernel(vec![relaxed_try_wait()], vec![]),
        );
        let errors = check_features(&m);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].version_too_low() && !errors[0].target_too_low());
        assert_eq!(
            errors[0].to_string(),
            "`mbarrier.{arrive,arrive_drop,test_wait,try_wait}.relaxed` requires PTX ISA .version 8.6 or later (module has .version 8.0; PTX ISA 9.7.13.15.16)"
        );
        assert_eq!(required_version(&m), Version::new(8, 6));
        let fixed = Module {
            version: Version::new(8, 6),
            ..m
        };
        assert!(check_features(&fixed).is_empty());
    }

    #[test]
    fn required_version_covers_target_directives_and_instructions() {
        let cluster = Directive {
            name: "reqnctapercluster".into(),
            args: vec![
                DirectiveArg::Int(2),
                DirectiveArg::Int(1),
                DirectiveArg::Int(1),
            ],
        };
        let add = Instruction::new(
            Opcode::Add,
            &["s32"],
            vec![
                Operand::reg("%r1"),
                Operand::reg("%r2"),
                Operand::reg("%r3"),
            ],
        );
        // Only the target: sm_80 needs 7.0.
        let plain = module(
            Version::new(8, 0),
            SmVersion::new(80),
            kernel(vec![add.clone()], vec![]),
        );
        assert_eq!(required_version(&plain), Version::new(7, 0));
        // sm_90a needs 8.0 whatever the body.
        let arch = module(
            Version::new(8, 0),
            SmVersion::arch_specific(90),
            kernel(vec![add.clone()], vec![]),
        );
        assert_eq!(required_version(&arch), Version::new(8, 0));
        // A cluster directive and try_wait on sm_90: 7.8; with .relaxed: 8.6.
        let with_cluster = module(
            Version::new(7, 8),
            SmVersion::new(90),
            kernel(vec![add, try_wait_parity()], vec![cluster.clone()]),
        );
        assert_eq!(required_version(&with_cluster), Version::new(7, 8));
        assert!(check_features(&with_cluster).is_empty());
        let relaxed = module(
            Version::new(7, 8),
            SmVersion::new(90),
            kernel(vec![relaxed_try_wait()], vec![cluster]),
        );
        assert_eq!(required_version(&relaxed), Version::new(8, 6));
    }

    #[test]
    fn header_directive_and_target_errors() {
        let cluster = Directive {
            name: "reqnctapercluster".into(),
            args: vec![
                DirectiveArg::Int(2),
                DirectiveArg::Int(1),
                DirectiveArg::Int(1),
            ],
        };
        let m = module(
            Version::new(7, 0),
            SmVersion::new(90),
            kernel(vec![], vec![cluster]),
        );
        let errors = check_features(&m);
        let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            text,
            [
                "`.target sm_90` requires PTX ISA .version 7.8 or later (module has .version 7.0; PTX ISA 11.1.2)",
                "`.reqnctapercluster` requires PTX ISA .version 7.8 or later (module has .version 7.0; PTX ISA 11.7.1)",
            ]
        );
        assert_eq!((errors[0].function.as_str(), errors[0].stmt), ("", None));
        assert_eq!((errors[1].function.as_str(), errors[1].stmt), ("k", None));
    }

    #[test]
    fn arch_specific_message() {
        let setmaxnreg = Instruction::new(
            Opcode::from_name("setmaxnreg"),
            &["inc", "sync", "aligned", "u32"],
            vec![Operand::int(64)],
        );
        let m = module(
            Version::new(8, 0),
            SmVersion::new(90),
            kernel(vec![setmaxnreg], vec![]),
        );
        let errors = check_features(&m);
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0]
                .to_string()
                .starts_with("`setmaxnreg` requires .target sm_90a, sm_100a,"),
            "{}",
            errors[0]
        );
        let on_90a = Module {
            target: crate::model::Target {
                sm: SmVersion::arch_specific(90),
                options: vec![],
            },
            ..m
        };
        assert!(check_features(&on_90a).is_empty());
    }
}
