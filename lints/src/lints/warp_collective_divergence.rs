//! ### What it does
//! Finds the warp-collective `.sync.aligned` tensor-core and register instructions executed
//! under control that differs between the threads of a warp: `mma.sync.aligned`,
//! `ldmatrix`/`stmatrix`/`movmatrix .sync.aligned`, the `wgmma` family (`fence`, `mma_async`,
//! `commit_group`, `wait_group`) and `setmaxnreg`. A guard, a branch and a loop whose trip count
//! differs between lanes count alike, and so do lanes that exit under lane-divergent control
//! before the instruction (an exited lane cannot take part).
//!
//! ### Why is this bad
//! `.aligned` means every thread of the warp (of the warp group, for `wgmma` and `setmaxnreg`)
//! executes the same instruction: PTX ISA §9.7.14.5.14 (`mma`), §9.7.14.5.15 (`ldmatrix`),
//! §9.7.15.5.2 (`wgmma.mma_async`), §9.7.15.7 (`wgmma.fence`, `commit_group`, `wait_group`),
//! §9.7.19.5 (`setmaxnreg`): "in conditionally executed code, [it] should only be used if it is
//! known that all threads in the warp evaluate the condition identically, otherwise behavior is
//! undefined." A tensor-core operation issued by part of a warp computes from registers the other
//! lanes never filled, or hangs the warp group.
//!
//! The analysis knows warps but not warp groups, so for `wgmma` and `setmaxnreg` it checks the
//! warp half of the rule: lane-divergent control (`if lane == 0`, `elect.sync`) is reported; a
//! condition that splits a warp group between whole warps is not. Requiring warp-group
//! uniformity from the `%tid.x` granule alone was tried and flagged correct production kernels:
//! Triton's warp-specialised kernels branch on `shfl(%tid.x >> 5, 0) < 4` (the granule of a
//! compared warp index is not tracked) and on per-warp flags loaded from shared memory, and
//! CUTLASS's grouped GEMMs on per-warp loaded values.
//!
//! ### What its witness shows
//! A run in which a `.sync.aligned` warp collective (`mma.sync`, `ldmatrix`, `shfl.sync` with a
//! full mask, the `wgmma` family, `setmaxnreg`) runs with lanes of the warp missing or apart, or
//! the warps of a warpgroup issue different `wgmma.mma_async`.
//!
//! ### What it cannot decide
//! As `aligned_barrier_divergence`: inputs the runs do not choose (a trip count or flag from a
//! parameter, data in global memory: the runs make every integer parameter 1, 128, 2048 or 65536
//! and memory all 0 or all 0xff), schedules they do not try (round-robin, PCT of depth 2 and 3,
//! random; up to 36 runs), and launches the PTX does not declare (the block is guessed when there
//! is no `.reqntid`/`.maxntid`, and a guess is no proof for a kernel that reads
//! `%tid.y`/`%tid.z`).
//!
//! ### Example
//! ```ptx
//! mov.u32 %r1, %tid.x;
//! and.b32 %r2, %r1, 31;
//! setp.ne.u32 %p1, %r2, 0;
//! @%p1 bra SKIP;
//! wgmma.commit_group.sync.aligned;
//! SKIP:
//! ```
//!
//! ### Use instead
//! Issue the instruction from every lane, under a condition on the warp (`%tid.x / 32`) or the
//! warp group (`%tid.x / 128`); guard only what one lane must do alone.

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
