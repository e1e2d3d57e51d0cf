//! Which entries run a function: the entry itself, or the entries whose calls reach it.

use phasegate_ptx::{Function, FunctionKind, Module, Opcode, Operand};
use std::collections::{HashMap, HashSet};

/// The entries of `module` that run function `name`: itself when it is one, and every entry
/// from which a chain of `call`s reaches it.
pub fn entries_running<'m>(module: &'m Module, name: &str) -> Vec<&'m Function> {
    module
        .entries()
        .filter(|e| e.name == name || reached_from(module, e).contains(name))
        .collect()
}

/// For every function of `module`, the entries that run it ([`entries_running`] of each), from
/// one walk of the call graph per entry: a module of thousands of functions asks for all of
/// them.
pub fn entries_by_function(module: &Module) -> HashMap<&str, Vec<&Function>> {
    let mut out: HashMap<&str, Vec<&Function>> = HashMap::new();
    for entry in module.entries() {
        out.entry(entry.name.as_str()).or_default().push(entry);
        for name in reached_from(module, entry) {
            if name != entry.name {
                out.entry(name).or_default().push(entry);
            }
        }
    }
    out
}

/// The names of the functions a chain of calls from `from` reaches.
fn reached_from<'m>(module: &'m Module, from: &'m Function) -> HashSet<&'m str> {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut work = vec![from];
    while let Some(f) = work.pop() {
        for callee in callees(f) {
            if seen.insert(callee)
                && let Some(g) = module.function(callee)
                && g.kind == FunctionKind::Func
            {
                work.push(g);
            }
        }
    }
    seen
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
