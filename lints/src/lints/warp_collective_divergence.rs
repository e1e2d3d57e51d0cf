// This lint's documentation is `lints/explain/warp_collective_divergence.md`: the one text that rustdoc shows here,
// `phasegate lint --explain warp_collective_divergence` prints and the book's page on the lint includes.
#![doc = include_str!("../../explain/warp_collective_divergence.md")]

use super::control::{Leaving, Requirement, Rule, divergence, report, report_exits};
use super::{Context, LintInfo, Sink};
use crate::diagnostic::Level;
use crate::uniformity::Level as U;
use phasegate_ptx::{Instruction, Opcode, StmtId};

/// `warp_collective_divergence`: its name, default level (deny) and summary, as
/// [`crate::LINTS`] lists it.
pub const LINT: LintInfo = LintInfo {
    name: "warp_collective_divergence",
    default: Level::Deny,
    summary: "a warp-collective .sync.aligned instruction (mma, ldmatrix, wgmma, setmaxnreg) under lane-divergent control",
    explanation: include_str!("../../explain/warp_collective_divergence.md"),
};

/// The spec section of a warp-collective aligned instruction, and who must execute it; `None`
/// for every other instruction.
fn collective(inst: &Instruction) -> Option<(&'static str, &'static str)> {
    let Opcode::Other(name) = &inst.opcode else {
        return None;
    };
    if !(inst.has("sync") && inst.has("aligned")) {
        return None;
    }
    let warp = "every thread of the warp";
    let group = "every thread of the warp group";
    Some(match name.as_str() {
        "mma" => ("PTX ISA §9.7.14.5.14", warp),
        "ldmatrix" | "stmatrix" | "movmatrix" => ("PTX ISA §9.7.14.5.15", warp),
        "wgmma" if inst.has("mma_async") => ("PTX ISA §9.7.15.5.2", group),
        "wgmma" => ("PTX ISA §9.7.15.7", group),
        "setmaxnreg" => ("PTX ISA §9.7.19.5", group),
        _ => return None,
    })
}

/// Reports to `sink` the warp-collective aligned instructions under lane-divergent control, in
/// the function that `cx` analyzes.
pub fn check(cx: &Context, sink: &mut Sink) {
    let fa = cx.fa;
    // One finding per deciding branch or guard: the first instruction it keeps from some lanes
    // (a wgmma sequence under one branch is one mistake, not four).
    let mut decided: Vec<StmtId> = Vec::new();
    for (stmt, inst) in fa.instructions() {
        let Some((spec, who)) = collective(inst) else {
            continue;
        };
        let name = inst.full_name();
        let short = name.split(".sync").next().unwrap_or(name.as_str());
        let req = Requirement {
            allowed: U::Warp,
            what: format!("`{short}`"),
            who,
        };
        let Some(why) = divergence(cx, stmt, inst, &req) else {
            early_exits(cx, sink, stmt, &req, spec, &mut decided);
            continue;
        };
        let at = why.decided_at(stmt);
        if decided.contains(&at) {
            continue;
        }
        decided.push(at);
        let rule = Rule {
            spec,
            noun: "instruction",
            advice: "issue it from every lane, under a condition on the warp (`%tid.x / 32`) or the warp group (`%tid.x / 128`), and guard only what one lane does alone".into(),
        };
        report(cx, sink, &LINT, (stmt, inst), &req, &rule, why);
    }
}

/// Lanes that leave the kernel under lane-divergent control before `stmt`: an exited lane
/// cannot execute the instruction the rest of its warp executes (barriers, by contrast, stop
/// waiting for exited threads, which is why `divergent_exit_before_barrier` only warns).
fn early_exits(
    cx: &Context,
    sink: &mut Sink,
    stmt: StmtId,
    req: &Requirement,
    spec: &str,
    decided: &mut Vec<StmtId>,
) {
    let leaving = Leaving {
        who: "lanes",
        notes: [
            format!(
                "{spec}: {} must execute it; a lane that has exited cannot",
                req.who
            ),
            "keep every lane of the warp alive to the instruction and guard only the work".into(),
        ],
    };
    report_exits(
        cx,
        sink,
        &LINT,
        (stmt, &req.what),
        req.allowed,
        leaving,
        decided,
    );
}
