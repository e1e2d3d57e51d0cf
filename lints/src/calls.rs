//! Which entries run a function: the entry itself, or the entries whose calls reach it.

use phasegate_ptx::{Function, FunctionKind, Module, Opcode, Operand};
use std::collections::HashSet;

/// The entries of `module` that run function `name`: itself when it is one, and every entry
/// from which a chain of `call`s reaches it.
pub fn entries_running<'m>(module: &'m Module, name: &str) -> Vec<&'m Function> {
    module
        .entries()
        .filter(|e| e.name == name || reaches(module, e, name))
        .collect()
}

/// Whether a chain of calls from `from` reaches the function `target`.
fn reaches(module: &Module, from: &Function, target: &str) -> bool {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut work = vec![from];
    while let Some(f) = work.pop() {
        for callee in callees(f) {
            if callee == target {
                return true;
            }
            if seen.insert(callee)
                && let Some(g) = module.function(callee)
                && g.kind == FunctionKind::Func
            {
                work.push(g);
            }
        }
    }
    false
}

/// The names a function calls.
fn callees(f: &Function) -> impl Iterator<Item = &str> {
    f.body
        .iter()
        .flat_map(|b| b.instructions())
        .filter(|(_, i)| i.opcode == Opcode::Call)
        .flat_map(|(_, i)| {
            i.operands.iter().find_map(|o| match o {
                Operand::Symbol(s) => Some(s.as_str()),
                _ => None,
            })
        })
}
