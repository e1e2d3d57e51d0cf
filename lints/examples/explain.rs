//! Prints what the analyses found in a PTX file: per function, the uniformity of every branch
//! and the control level of every barrier and mbarrier operation.
//! `cargo run -p phasegate-lints --example explain -- FILE.ptx`

use phasegate_lints::analysis::FunctionAnalysis;
use phasegate_lints::mbar::mbar_op;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: explain FILE.ptx");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let module = match phasegate_ptx::parse(&text) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{path}:{}:{}: {}", e.line, e.col, e.message);
            std::process::exit(1);
        }
    };
    for f in module.functions() {
        let Some(fa) = FunctionAnalysis::new(&module, f) else {
            continue;
        };
        println!(
            "== {} ({} blocks, {} loops)",
            f.name,
            fa.cfg.len(),
            fa.loops.loops.len()
        );
        for b in 0..fa.cfg.len() {
            if let Some((level, stmt, _)) = fa.uni.branch(b) {
                println!("  branch line {}: {}", fa.line(stmt), level.describe());
                for (_, why) in fa.uni.explain_branch(b, fa.body, &fa.vars, &fa.cfg) {
                    println!("      {why}");
                }
            }
        }
        for (li, l) in fa.loops.loops.iter().enumerate() {
            let ind: Vec<String> = fa.inductions[li]
                .iter()
                .map(|i| format!("{} = {} + {}k", fa.vars.name(i.var), i.init, i.step))
                .collect();
            println!(
                "  loop header line {}: {} blocks, inductions [{}]",
                fa.line(fa.cfg.blocks[l.header].stmts().next().unwrap()),
                l.body.len(),
                ind.join(", ")
            );
        }
        for (stmt, inst) in fa.instructions() {
            let interesting = phasegate_lints::barriers::is_cta_barrier(inst)
                || phasegate_lints::barriers::cluster_barrier(inst).is_some();
            let op = mbar_op(&fa, stmt, inst);
            if interesting || op.is_some() {
                let (lvl, _) = fa.uni.control(fa.block(stmt));
                let obj = op
                    .map(|o| format!(" obj {} {:?}", o.obj.describe(&fa), o.kind))
                    .unwrap_or_default();
                println!(
                    "  line {}: {} under {}{}",
                    fa.line(stmt),
                    inst.full_name(),
                    lvl.describe(),
                    obj
                );
            }
        }
    }
}
