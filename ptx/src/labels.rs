//! Label resolution with PTX's scoping: a label declared inside a `{ }` block is visible in
//! that block and the blocks nested in it, and a branch names the label of the innermost
//! enclosing block that declares it (PTX ISA §4.4, scope of identifiers). Inline assembly
//! relies on this: Triton's spin wait `{ waitLoop: mbarrier.try_wait ...; @!p bra waitLoop; }`
//! stands several times in one function, each `bra` meaning its own block's `waitLoop`.

use crate::model::{Body, Statement, StmtId};
use std::collections::HashMap;

/// Where each label of a body stands, by scope.
#[derive(Clone, Debug, Default)]
pub struct Labels {
    /// Per statement: the scope it stands in (0 is the body's own).
    scope_of: Vec<u32>,
    /// Per scope: the scope around it (`u32::MAX` for the body's own).
    parent: Vec<u32>,
    /// (scope, name) → the label statement.
    declared: HashMap<(u32, String), StmtId>,
}

impl Labels {
    /// The scopes and labels of `body`, for [`Labels::resolve`] to look names up in.
    pub fn new(body: &Body) -> Labels {
        let mut labels = Labels {
            scope_of: Vec::with_capacity(body.len()),
            parent: vec![u32::MAX],
            declared: HashMap::new(),
        };
        let mut stack = vec![0u32];
        for (id, statement) in body.iter() {
            let current = *stack.last().unwrap_or(&0);
            match statement {
                Statement::ScopeOpen => {
                    let scope = labels.parent.len() as u32;
                    labels.parent.push(current);
                    stack.push(scope);
                    // The brace itself belongs to the scope it opens.
                    labels.scope_of.push(scope);
                    continue;
                }
                Statement::ScopeClose => {
                    labels.scope_of.push(current);
                    if stack.len() > 1 {
                        stack.pop();
                    }
                    continue;
                }
                Statement::Label(name) => {
                    // The first declaration in a scope wins; ptxas rejects a second one.
                    labels.declared.entry((current, name.clone())).or_insert(id);
                }
                _ => {}
            }
            labels.scope_of.push(current);
        }
        labels
    }

    /// The label statement that the name `name`, used at statement `at`, refers to.
    pub fn resolve(&self, at: StmtId, name: &str) -> Option<StmtId> {
        let mut scope = *self.scope_of.get(at.index())?;
        // Look up without allocating a key per scope.
        let mut key = (scope, name.to_string());
        loop {
            if let Some(&stmt) = self.declared.get(&key) {
                return Some(stmt);
            }
            scope = *self.parent.get(scope as usize)?;
            if scope == u32::MAX {
                return None;
            }
            key.0 = scope;
        }
    }

    /// Every label statement of the body (the targets an unknown or indirect branch may take).
    pub fn all(&self) -> impl Iterator<Item = StmtId> + '_ {
        self.declared.values().copied()
    }

    /// Whether `name` names a label anywhere in the body.
    pub fn is_label(&self, name: &str) -> bool {
        self.declared.keys().any(|(_, n)| n == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(ptx_body: &str) -> Body {
        let text = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n.reg .pred %p<3>;\n{ptx_body}ret;\n}}\n"
        );
        let module = crate::parse(&text).expect("parses");
        let f = module.entries().next().expect("entry");
        f.body.clone().expect("body")
    }

    fn branch_targets(b: &Body) -> Vec<Option<u32>> {
        let labels = Labels::new(b);
        b.iter()
            .filter_map(|(id, s)| match s {
                Statement::Instruction(i) if i.opcode == crate::Opcode::Bra => {
                    let name = i.operands.iter().find_map(|o| match o {
                        crate::Operand::Symbol(s) => Some(s.as_str()),
                        _ => None,
                    })?;
                    Some(labels.resolve(id, name).map(|s| b.span(s).line))
                }
                _ => None,
            })
            .collect()
    }

    /// Triton's repeated inline-assembly spin wait: each `bra` takes its own block's label.
    #[test]
    fn a_label_repeated_in_sibling_blocks_resolves_to_its_own_block() {
        let b = body(
            "{\nwaitLoop:\n@%p1 bra.uni waitLoop;\n}\n{\nwaitLoop:\n@%p2 bra.uni waitLoop;\n}\n",
        );
        assert_eq!(branch_targets(&b), vec![Some(8), Some(12)]);
    }

    /// An inner block sees the labels of the blocks around it; the innermost declaration wins.
    #[test]
    fn inner_blocks_see_outer_labels_and_shadow_them() {
        let b = body("L:\n{\n@%p1 bra L;\n{\nL:\n@%p2 bra L;\n}\n@%p1 bra L;\n}\n@%p1 bra M;\n");
        assert_eq!(branch_targets(&b), vec![Some(7), Some(11), Some(7), None]);
    }
}
