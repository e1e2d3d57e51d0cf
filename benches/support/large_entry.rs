//! One very large PTX entry for the analyzer's scaling benchmark: the bodies of nvcc's
//! fixture kernels stitched one after another into a single `.entry`, each copy in its own
//! `{ }` scope with its labels renamed, and every `ret`/`exit` turned into a branch to the
//! next copy, so that the result has the loops, barriers and mbarrier pipelines of real
//! kernels at any size. Include it beside `large_module.rs` as `mod support`.

use phasegate::ptx::{self, Function, FunctionKind, Item, Opcode, Operand, Statement};
use std::collections::HashSet;

/// A module holding one entry of at least `statements` statements.
pub fn large_entry(statements: usize) -> String {
    let sources = crate::support::fixtures(&[
        "mbarrier_pipeline.ptx",
        "named_barriers.ptx",
        "block_reduce.ptx",
        "bulk_store.ptx",
        "ampere_cp_async.ptx",
        "transpose_ref.ptx",
        "pipeline_ref.ptx",
    ]);
    let mut module = sources[0].clone();
    module.items.retain(|i| matches!(i, Item::File(_)));
    let mut seen_vars = HashSet::new();
    let mut entry: Option<Function> = None;
    let mut body = ptx::Body::new();
    for source in &sources {
        for item in &source.items {
            if let Item::Var(v) = item
                && seen_vars.insert(v.name.clone())
            {
                module.items.push(item.clone());
            }
        }
    }
    let mut copy = 0usize;
    while body.len() < statements {
        for source in &sources {
            for f in source.entries() {
                let e = entry.get_or_insert_with(|| Function {
                    name: "large".into(),
                    params: Vec::new(),
                    directives: Vec::new(),
                    body: None,
                    ..f.clone()
                });
                for p in &f.params {
                    if !e.params.iter().any(|q| q.name == p.name) {
                        e.params.push(p.clone());
                    }
                }
                let Some(src) = &f.body else { continue };
                let labels: HashSet<&str> = src
                    .statements()
                    .iter()
                    .filter_map(|s| match s {
                        Statement::Label(l) => Some(l.as_str()),
                        _ => None,
                    })
                    .collect();
                let rename = |l: &str| format!("{l}_c{copy}");
                let next = format!("$L__next_c{copy}");
                body.push(Statement::ScopeOpen, ptx::Span::NONE);
                for (id, s) in src.iter() {
                    let span = src.span(id);
                    let s = match s {
                        Statement::Label(l) => Statement::Label(rename(l)),
                        Statement::Instruction(i) => {
                            let mut i = i.clone();
                            if matches!(i.opcode, Opcode::Ret | Opcode::Exit) {
                                i.opcode = Opcode::Bra;
                                i.modifiers = vec!["uni".into()];
                                i.operands = vec![Operand::Symbol(next.clone())];
                            }
                            for op in &mut i.operands {
                                if let Operand::Symbol(s) = op
                                    && labels.contains(s.as_str())
                                {
                                    *op = Operand::Symbol(rename(s));
                                }
                            }
                            Statement::Instruction(i)
                        }
                        other => other.clone(),
                    };
                    body.push(s, span);
                }
                body.push(Statement::ScopeClose, ptx::Span::NONE);
                body.push(Statement::Label(next), ptx::Span::NONE);
                copy += 1;
            }
        }
    }
    let mut e = entry.expect("the fixtures have entries");
    let ret = ptx::Instruction::new(Opcode::Ret, &[], Vec::new());
    body.push(Statement::Instruction(ret), ptx::Span::NONE);
    e.kind = FunctionKind::Entry;
    e.body = Some(body);
    module.items.push(Item::Function(e));
    ptx::write_string(&module)
}
