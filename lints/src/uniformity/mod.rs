//! Uniformity: for every variable, over which threads its value is the same, and why not.
//!
//! Levels, from most to least uniform ([`Level`]):
//! - `Cluster`: the same in every thread of the cluster (params, constants, `%nctaid`,
//!   `%clusterid`, addresses of variables);
//! - `Cta`: the same in every thread of the CTA (`%ctaid`, `%cluster_ctarank`, `bar.red`
//!   results, loads of `.shared` from uniform addresses);
//! - `Warp`: the same in every thread of a warp (`%tid.x / 32`, `tid.x < 64`, `vote`,
//!   values computed under warp-uniform control);
//! - `Thread`: divergent (`%tid.x`, `%laneid`, atomics, loads from divergent addresses, values
//!   merged after divergent branches or leaving loops with divergent exits).
//!
//! Warp uniformity of `%tid.x` arithmetic assumes warps are made of 32 consecutive `%tid.x`
//! (a 1-D block, or `%ntid.x` a multiple of 32): a value is tracked as `%tid.x + c`
//! ("affine") or as constant over aligned blocks of `2^g` consecutive `%tid.x` ("granule"
//! `g`; 5 or more is warp-uniform), so `tid.x >> 5`, `tid.x & -32` and `tid.x < 64` are
//! warp-uniform while `tid.x == 0` is not.
//!
//! Control: a value defined in a block that runs or not depending on a divergent branch (its
//! control dependence, transitively) is as divergent as that branch. That covers values merged
//! after divergent branches and values carried out of loops whose exit is divergent (the loop
//! body depends on the exit branch). Branches that only let threads leave the kernel
//! (`if (i >= n) return;`) are not counted: exited threads take no part in what follows.
//!
//! Values belong to writes, not registers: a read joins the values of the writes that reach it
//! (reaching definitions, [`reach`]), so a register that nvcc reuses in two roles no path joins
//! is as uniform in each as that role makes it. [`Uniformity::level`] still answers for the
//! register as a whole (the join of all its writes).
//!
//! Every level above `Cluster` has a recorded reason ([`Why`]), so a finding can say
//! "`%p2` depends on `%tid.x` at line 12" (naga's uniformity analysis does the same).

use crate::cfg::{BlockId, Cfg, Terminator};
use crate::consts::{Cmp, Consts};
use crate::dom::{DomTree, control_dependence};
use crate::regs::{Src, VarId, Vars};
use phasegate_ptx::{AddressBase, Body, Function, Instruction, Opcode, Operand, Statement, StmtId};
use std::fmt;

/// How uniform a value or a branch is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// The same in every thread of the cluster: parameters, constants, `%nctaid`, `%clusterid`.
    Cluster,
    /// The same in every thread of the CTA: `%ctaid`, `%cluster_ctarank`, `bar.red` results.
    Cta,
    /// The same in every thread of a warp: `%tid.x / 32`, `vote` results.
    Warp,
    /// May differ between the threads of a warp: `%tid.x`, `%laneid`, atomics.
    Thread,
}

impl Level {
    /// The level in a message's words: "warp-uniform but not CTA-uniform", "divergent".
    pub fn describe(self) -> &'static str {
        match self {
            Level::Cluster => "cluster-uniform",
            Level::Cta => "CTA-uniform but not cluster-uniform",
            Level::Warp => "warp-uniform but not CTA-uniform",
            Level::Thread => "divergent",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

const GRAN_NONE: u8 = 63;

/// No write slot.
const NO_SLOT: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Affine {
    No,
    /// `%tid.x + off`; `None`: plus an unknown CTA-uniform value.
    Tid(Option<i64>),
}

/// The abstract uniformity of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UVal {
    /// The threads over which the value is the same.
    pub level: Level,
    /// Constant over aligned blocks of `2^gran` consecutive `%tid.x` (63: not `%tid`-bound).
    gran: u8,
    affine: Affine,
}

impl UVal {
    /// A cluster-uniform value.
    pub const CLUSTER: UVal = UVal {
        level: Level::Cluster,
        gran: GRAN_NONE,
        affine: Affine::No,
    };
    /// A CTA-uniform value, not tied to `%tid`.
    pub const CTA: UVal = UVal {
        level: Level::Cta,
        gran: GRAN_NONE,
        affine: Affine::No,
    };
    /// A warp-uniform value: constant over each warp's 32 consecutive `%tid.x`.
    pub const WARP: UVal = UVal {
        level: Level::Warp,
        gran: 5,
        affine: Affine::No,
    };
    /// A divergent value.
    pub const THREAD: UVal = UVal {
        level: Level::Thread,
        gran: 0,
        affine: Affine::No,
    };

    fn of_level(level: Level) -> UVal {
        match level {
            Level::Cluster => UVal::CLUSTER,
            Level::Cta => UVal::CTA,
            Level::Warp => UVal::WARP,
            Level::Thread => UVal::THREAD,
        }
    }

    fn gran(g: u32) -> UVal {
        let g = g.min(GRAN_NONE as u32) as u8;
        if g >= GRAN_NONE {
            UVal::CTA
        } else if g >= 5 {
            UVal {
                level: Level::Warp,
                gran: g,
                affine: Affine::No,
            }
        } else {
            UVal {
                level: Level::Thread,
                gran: g,
                affine: Affine::No,
            }
        }
    }

    fn join(self, other: UVal) -> UVal {
        let level = self.level.max(other.level);
        let gran = self.gran.min(other.gran);
        let affine = if self.affine == other.affine {
            self.affine
        } else {
            Affine::No
        };
        UVal {
            level,
            gran,
            affine,
        }
        .normal()
    }

    fn normal(mut self) -> UVal {
        if self.level == Level::Thread {
            self.gran = self.gran.min(4);
        } else if self.level == Level::Warp {
            self.gran = self.gran.clamp(5, 62);
        }
        if self.gran < 5 {
            self.level = Level::Thread;
        } else if self.gran < GRAN_NONE && self.level < Level::Warp {
            self.level = Level::Warp;
        }
        if self.level != Level::Thread {
            self.affine = Affine::No;
        }
        self
    }
}

/// Why a value (or a block) is less uniform than cluster-uniform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// Reads a special register.
    Special {
        /// The register, `%tid.x`.
        name: String,
        /// The statement that reads it.
        stmt: StmtId,
    },
    /// Computed from another variable.
    From {
        /// The variable it is computed from, itself less uniform.
        var: VarId,
        /// The statement that computes it.
        stmt: StmtId,
    },
    /// Assigned in a block that depends on the branch at `branch` (a `bra`, or a guard).
    Control {
        /// The branch or guarded statement.
        branch: StmtId,
        /// The branch's predicate; `None` when it is no variable (a special register).
        pred: Option<VarId>,
    },
    /// The result of an instruction that differs per thread (`atom`, a call, an mbarrier wait).
    Op {
        /// The instruction.
        stmt: StmtId,
        /// What it is, for messages: "the result of an atomic".
        what: &'static str,
    },
}

/// The control dependences of a block, split into those that matter for uniformity and the
/// branches that only let threads exit.
#[derive(Clone, Debug, Default)]
pub struct ControlDeps {
    /// `(a, i)`: the block runs or not depending on which successor block `a` takes, reached
    /// through `a`'s successor number `i` (see [`crate::dom::control_dependence`]).
    pub deps: Vec<(BlockId, usize)>,
    /// The same for branches whose other side only exits (`if (i >= n) return;`): exited
    /// threads take no part in what follows, so these do not make the block less uniform.
    pub exits: Vec<(BlockId, usize)>,
}

/// The result of the analysis for one function.
#[derive(Clone, Debug)]
pub struct Uniformity {
    /// Per variable: the join of the values of all its writes.
    vals: Vec<Option<UVal>>,
    /// Per variable: the slot whose reason made it less uniform (`NO_SLOT`: none).
    why_slot: Vec<u32>,
    /// Per block: the level of the control it runs under, and the branch that sets it.
    ctrl: Vec<(Level, Option<StmtId>)>,
    /// Per block: the level of the branch predicate it ends with (if it ends in one).
    branch: Vec<Option<(Level, StmtId, Option<VarId>)>>,
    cd: Vec<ControlDeps>,
    /// Blocks that only exit (`ret`, or a jump to such a block).
    exit_only: Vec<bool>,
    /// Per write of a variable (its slot: `slot_base` of the statement plus the destination's
    /// number): its value and why, so that a read joins only the writes that reach it.
    dvals: Vec<Option<UVal>>,
    dwhy: Vec<Option<Why>>,
    /// Per statement: the slot of its first write (one more entry: the number of slots).
    slot_base: Vec<u32>,
    reach: Reach,
}

/// The variables that hold the linear thread index
/// `%tid.x + %ntid.x * (%tid.y + %ntid.y * %tid.z)`, computed as `#[kernel]`'s `warp_id()`
/// computes it: `mad.lo.u32 yz, ntid.y, tid.z, tid.y; mad.lo.u32 l, ntid.x, yz, tid.x` with each
/// special register read by a `mov`.
pub(crate) fn linear_tid_vars(body: &Body, vars: &Vars) -> Vec<VarId> {
    let def = |stmt: StmtId, op: Option<&Operand>| -> Option<&Instruction> {
        let Some(Operand::Reg(name)) = op else {
            return None;
        };
        let Some(Src::Var(v)) = vars.resolve(stmt, name) else {
            return None;
        };
        match vars.def_sites(v) {
            [site] => match body.get(*site) {
                Statement::Instruction(i) => Some(i),
                _ => None,
            },
            _ => None,
        }
    };
    let reads = |stmt: StmtId, op: Option<&Operand>, special: &str| -> bool {
        def(stmt, op).is_some_and(|i| {
            i.opcode == Opcode::Mov
                && matches!(i.operands.get(1), Some(Operand::Reg(r)) if r == special)
        })
    };
    let is_mad = |i: &Instruction| {
        i.opcode == Opcode::Mad
            && i.has("lo")
            && (i.has("u32") || i.has("s32"))
            && i.operands.len() == 4
    };
    let mut out = Vec::new();
    for (id, inst) in body.instructions() {
        if !is_mad(inst)
            || !reads(id, inst.operands.get(1), "%ntid.x")
            || !reads(id, inst.operands.get(3), "%tid.x")
        {
            continue;
        }
        let yz = def(id, inst.operands.get(2));
        let yz_ok = yz.is_some_and(|i| {
            // The defining statement of `yz`, to resolve its own operands there.
            let Some(Operand::Reg(name)) = inst.operands.get(2) else {
                return false;
            };
            let Some(Src::Var(v)) = vars.resolve(id, name) else {
                return false;
            };
            let Some(&site) = vars.def_sites(v).first() else {
                return false;
            };
            is_mad(i)
                && reads(site, i.operands.get(1), "%ntid.y")
                && reads(site, i.operands.get(2), "%tid.z")
                && reads(site, i.operands.get(3), "%tid.y")
        });
        if yz_ok && let Some(&v) = vars.defs(id).first() {
            out.push(v);
        }
    }
    out
}

/// What a function's launch directives say about `%tid.y`/`%tid.z`.
fn tid_yz_level(function: &Function) -> Level {
    let (req, max) = (
        function.directive_dims("reqntid"),
        function.directive_dims("maxntid"),
    );
    let yz_one = |d: Option<(u32, u32, u32)>| d.is_some_and(|(_, y, z)| y <= 1 && z <= 1);
    if yz_one(req) || yz_one(max) {
        return Level::Cluster;
    }
    if req.is_some_and(|(x, _, _)| x % 32 == 0 && x > 0) {
        return Level::Warp;
    }
    Level::Thread
}

fn special_uval(name: &str, yz: Level) -> UVal {
    let base = name.split('.').next().unwrap_or(name);
    match base {
        "%tid" => {
            if name.ends_with(".x") {
                UVal {
                    level: Level::Thread,
                    gran: 0,
                    affine: Affine::Tid(Some(0)),
                }
            } else {
                UVal::of_level(yz)
            }
        }
        "%warpid" => UVal::WARP,
        "%ctaid" | "%cluster_ctaid" | "%cluster_ctarank" | "%smid" => UVal::CTA,
        "%ntid"
        | "%nctaid"
        | "%clusterid"
        | "%nclusterid"
        | "%cluster_nctaid"
        | "%cluster_nctarank"
        | "%nsmid"
        | "%gridid"
        | "%nwarpid"
        | "%total_smem_size"
        | "%aggr_smem_size"
        | "%dynamic_smem_size"
        | "%is_explicit_cluster"
        | "%current_graph_exec" => UVal::CLUSTER,
        _ if base.starts_with("%envreg") || base.starts_with("%reserved_smem_offset") => {
            UVal::CLUSTER
        }
        _ => UVal::THREAD,
    }
}

/// Blocks whose instructions only end the thread (`ret`/`exit`, or an unguarded jump to such a
/// block); the virtual exit is one.
fn exit_only_blocks(body: &Body, cfg: &Cfg) -> Vec<bool> {
    let n = cfg.len();
    let mut eo = vec![false; n + 1];
    eo[n] = true;
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..n {
            if eo[b] {
                continue;
            }
            let mut ok = true;
            for s in cfg.blocks[b].stmts() {
                if let Statement::Instruction(inst) = body.get(s) {
                    let fine = match inst.opcode {
                        Opcode::Ret | Opcode::Exit => inst.guard.is_none(),
                        Opcode::Bra => inst.guard.is_none(),
                        _ => false,
                    };
                    if !fine {
                        ok = false;
                        break;
                    }
                }
            }
            if ok && cfg.succs(b).iter().all(|&s| eo[s]) {
                eo[b] = true;
                changed = true;
            }
        }
    }
    eo
}

impl Uniformity {
    /// Computes the uniformity of every variable and block of `body`, control included.
    pub fn new(
        function: &Function,
        body: &Body,
        cfg: &Cfg,
        pdom: &DomTree,
        vars: &Vars,
        consts: &Consts,
    ) -> Uniformity {
        Self::build(function, body, cfg, pdom, vars, consts, true)
    }

    /// The uniformity of values from their data alone, without the control they are computed
    /// under: what a group of warps that took the same branches sees (a parameter compared
    /// inside `if (warp == 0)` is the same in all those warps).
    pub fn data_only(
        function: &Function,
        body: &Body,
        cfg: &Cfg,
        pdom: &DomTree,
        vars: &Vars,
        consts: &Consts,
    ) -> Uniformity {
        Self::build(function, body, cfg, pdom, vars, consts, false)
    }

    fn build(
        function: &Function,
        body: &Body,
        cfg: &Cfg,
        pdom: &DomTree,
        vars: &Vars,
        consts: &Consts,
        control: bool,
    ) -> Uniformity {
        let n = cfg.len();
        let yz = tid_yz_level(function);
        let linear = linear_tid_vars(body, vars);
        let exit_only = exit_only_blocks(body, cfg);
        let raw = control_dependence(cfg, pdom);
        let mut cd = vec![ControlDeps::default(); n];
        for (b, deps) in raw.into_iter().enumerate() {
            for (a, i) in deps {
                let early_exit = cfg
                    .succs(a)
                    .iter()
                    .enumerate()
                    .any(|(j, &s)| j != i && exit_only[s])
                    && !exit_only[b];
                if early_exit {
                    cd[b].exits.push((a, i));
                } else if !exit_only[b] {
                    cd[b].deps.push((a, i));
                }
            }
        }
        let params: Vec<&str> = function.params.iter().map(|p| p.name.as_str()).collect();
        let mut slot_base = Vec::with_capacity(body.len() + 1);
        let mut slots = 0u32;
        for i in 0..body.len() {
            slot_base.push(slots);
            slots += vars.defs(StmtId(i as u32)).len() as u32;
        }
        slot_base.push(slots);
        let mut u = Uniformity {
            vals: vec![None; vars.len()],
            why_slot: vec![NO_SLOT; vars.len()],
            ctrl: vec![(Level::Cluster, None); n],
            branch: vec![None; n],
            cd,
            exit_only,
            dvals: vec![None; slots as usize],
            dwhy: vec![None; slots as usize],
            slot_base,
            reach: Reach::default(),
        };
        u.reach = Reach::new(body, cfg, vars, &u.slot_base);
        let mut instrs: Vec<StmtId> = Vec::new();
        for (id, _) in body.instructions() {
            if !vars.defs(id).is_empty() {
                instrs.push(id);
            }
        }
        let mut visits = vec![0u16; body.len()];
        loop {
            let mut changed = false;
            // Branch levels and control levels of blocks, to a fixed point.
            for b in 0..n {
                u.branch[b] = cfg.branch_guard(b).map(|(stmt, guard)| {
                    let pred = match vars.resolve(stmt, &guard.pred) {
                        Some(Src::Var(v)) => Some(v),
                        _ => None,
                    };
                    let mut level = match vars.resolve(stmt, &guard.pred) {
                        Some(Src::Var(v)) => u
                            .use_val(stmt, v)
                            .map(|x| x.level)
                            .unwrap_or(Level::Cluster),
                        Some(Src::Special(_)) | None => Level::Thread,
                    };
                    if let Statement::Instruction(inst) = body.get(stmt)
                        && inst.has("uni")
                    {
                        level = level.min(Level::Warp);
                    }
                    (level, stmt, pred)
                });
            }
            let mut cchanged = true;
            while cchanged {
                cchanged = false;
                for &b in &cfg.rpo {
                    let mut best = u.ctrl[b];
                    for &(a, _) in &u.cd[b].deps {
                        if let Some((lvl, stmt, _)) = u.branch[a]
                            && lvl > best.0
                        {
                            best = (lvl, Some(stmt));
                        }
                        if u.ctrl[a].0 > best.0 {
                            best = u.ctrl[a];
                        }
                    }
                    // An early exit does not make what follows divergent, but what it is itself
                    // under still counts.
                    for &(a, _) in &u.cd[b].exits {
                        if u.ctrl[a].0 > best.0 {
                            best = u.ctrl[a];
                        }
                    }
                    if best.0 > u.ctrl[b].0 {
                        u.ctrl[b] = best;
                        cchanged = true;
                        changed = true;
                    }
                }
            }
            // Values.
            let mut work: std::collections::VecDeque<StmtId> = instrs.iter().copied().collect();
            let mut queued = vec![false; body.len()];
            for &i in &instrs {
                queued[i.index()] = true;
            }
            while let Some(id) = work.pop_front() {
                queued[id.index()] = false;
                visits[id.index()] = visits[id.index()].saturating_add(1);
                let Statement::Instruction(inst) = body.get(id) else {
                    continue;
                };
                let block = cfg.block_of(id);
                let defs = vars.defs(id);
                for (di, &var) in defs.iter().enumerate() {
                    let (mut val, mut why) = if visits[id.index()] > 64 {
                        (
                            UVal::THREAD,
                            Why::Op {
                                stmt: id,
                                what: "a value the analysis gave up on",
                            },
                        )
                    } else if linear.contains(&var) {
                        // The linear thread index: warps are 32 consecutive values of it
                        // whatever the block's shape, so it is `%tid.x`-like for warp uniformity.
                        (
                            UVal {
                                level: Level::Thread,
                                gran: 0,
                                affine: Affine::Tid(Some(0)),
                            },
                            Why::Special {
                                name: "%tid".into(),
                                stmt: id,
                            },
                        )
                    } else {
                        u.transfer(id, inst, di, &params, yz, vars, consts)
                    };
                    // A guarded definition, or one under divergent control, merges values.
                    if let Some(g) = &inst.guard {
                        let gl = match vars.resolve(id, &g.pred) {
                            Some(Src::Var(p)) => u.use_val(id, p).unwrap_or(UVal::CLUSTER),
                            _ => UVal::THREAD,
                        };
                        let gl = UVal::of_level(gl.level);
                        if gl.level > val.level {
                            why = Why::Control {
                                branch: id,
                                pred: vars.var_of(id, &Operand::Reg(g.pred.clone())),
                            };
                        }
                        val = val.join(gl);
                    }
                    let (cl, cstmt) = if control {
                        u.ctrl[block]
                    } else {
                        (Level::Cluster, None)
                    };
                    if cl > val.level {
                        let pred = cstmt.and_then(|s| u.branch[cfg.block_of(s)].and_then(|b| b.2));
                        why = Why::Control {
                            branch: cstmt.unwrap_or(id),
                            pred,
                        };
                    }
                    // Control that is the same across a warp leaves the value's shape within
                    // the warp (`%tid.x`-affine, granule) as it is; it only makes the value
                    // differ between warps.
                    if cl > Level::Cluster && !(cl <= Level::Warp && val.level >= Level::Warp) {
                        val = val.join(UVal::of_level(cl));
                    }
                    let slot = u.slot_base[id.index()] as usize + di;
                    let old = u.dvals[slot];
                    let new = match old {
                        None => val,
                        Some(o) => o.join(val),
                    };
                    if old != Some(new) {
                        if old.is_none_or(|o| new.level > o.level) && new.level > Level::Cluster {
                            u.dwhy[slot] = Some(why);
                        }
                        u.dvals[slot] = Some(new);
                        let vold = u.vals[var as usize];
                        let vnew = vold.map_or(new, |o| o.join(new));
                        if vold.is_none_or(|o| vnew.level > o.level) && vnew.level > Level::Cluster
                        {
                            u.why_slot[var as usize] = slot as u32;
                        }
                        u.vals[var as usize] = Some(vnew);
                        changed = true;
                        // The reads this write reaches (all reads of a register written once).
                        let (reached, merged) = match u.reach.readers(var, slot) {
                            Some(r) => r,
                            None => (vars.use_sites(var), &[][..]),
                        };
                        for &s in reached.iter().chain(merged) {
                            if !queued[s.index()] && !vars.defs(s).is_empty() {
                                queued[s.index()] = true;
                                work.push_back(s);
                            }
                        }
                    }
                }
            }
            // Branch levels may have changed: recompute (their change is seen via `changed`).
            let mut bchanged = false;
            for b in 0..n {
                if let Some((lvl, stmt, pred)) = u.branch[b] {
                    let now = pred
                        .and_then(|p| u.use_val(stmt, p))
                        .map(|x| x.level)
                        .unwrap_or(lvl);
                    let now = if let Statement::Instruction(inst) = body.get(stmt)
                        && inst.has("uni")
                    {
                        now.min(Level::Warp)
                    } else {
                        now
                    };
                    if now != lvl {
                        bchanged = true;
                    }
                }
            }
            let _ = changed;
            if !bchanged {
                break;
            }
        }
        u
    }

    /// The uniformity of a variable (cluster-uniform when it is never defined).
    pub fn level(&self, var: VarId) -> Level {
        self.vals
            .get(var as usize)
            .copied()
            .flatten()
            .map(|v| v.level)
            .unwrap_or(Level::Cluster)
    }

    /// The uniformity of a register operand as read at `stmt`.
    pub fn operand_level(
        &self,
        stmt: StmtId,
        op: &Operand,
        vars: &Vars,
        function: &Function,
    ) -> Level {
        let yz = tid_yz_level(function);
        self.operand_uval(stmt, op, yz, vars)
            .map(|(v, _)| v.level)
            .unwrap_or(Level::Cluster)
    }

    /// The uniformity of `var` as read at `stmt`: the join of the writes that reach it.
    pub fn level_at(&self, stmt: StmtId, var: VarId) -> Level {
        self.use_val(stmt, var)
            .map(|v| v.level)
            .unwrap_or(Level::Cluster)
    }

    /// The value of `var` as read at `stmt`: the join of the writes that reach it (`None`: none
    /// computed yet).
    #[inline(always)]
    fn use_val(&self, stmt: StmtId, var: VarId) -> Option<UVal> {
        let Some(writes) = self.reach.at(stmt, var) else {
            return self.vals.get(var as usize).copied().flatten();
        };
        let mut acc: Option<UVal> = None;
        for &s in writes {
            if let Some(x) = self.dvals[s as usize] {
                acc = Some(acc.map_or(x, |a| a.join(x)));
            }
        }
        acc
    }

    /// Why `var` as read at `stmt` is less than cluster-uniform: the reason of its least uniform
    /// reaching write, with that write's level.
    fn why_at(&self, stmt: StmtId, var: VarId) -> Option<(Level, &Why)> {
        let Some(writes) = self.reach.at(stmt, var) else {
            return self.why(var).map(|w| (self.level(var), w));
        };
        let mut best: Option<(Level, &Why)> = None;
        for &s in writes {
            let s = s as usize;
            if let (Some(v), Some(w)) = (self.dvals[s], self.dwhy[s].as_ref())
                && best.is_none_or(|(l, _)| v.level > l)
                && v.level > Level::Cluster
            {
                best = Some((v.level, w));
            }
        }
        best
    }

    /// Why `var` is less than cluster-uniform; `None` when it is cluster-uniform.
    pub fn why(&self, var: VarId) -> Option<&Why> {
        let slot = *self.why_slot.get(var as usize)?;
        self.dwhy.get(slot as usize).and_then(Option::as_ref)
    }

    /// The level of control a block runs under, and the branch that makes it so.
    pub fn control(&self, b: BlockId) -> (Level, Option<StmtId>) {
        self.ctrl.get(b).copied().unwrap_or((Level::Cluster, None))
    }

    /// The level of the predicate of the branch (or guarded exit) that ends block `b`.
    pub fn branch(&self, b: BlockId) -> Option<(Level, StmtId, Option<VarId>)> {
        self.branch.get(b).copied().flatten()
    }

    /// The branches block `b` is control dependent on, early exits apart.
    pub fn control_deps(&self, b: BlockId) -> &ControlDeps {
        static EMPTY: ControlDeps = ControlDeps {
            deps: Vec::new(),
            exits: Vec::new(),
        };
        self.cd.get(b).unwrap_or(&EMPTY)
    }

    /// Whether block `b` only exits (`ret`, or a jump to such a block), so that a branch to it
    /// is an early exit.
    pub fn is_exit_only(&self, b: BlockId) -> bool {
        self.exit_only.get(b).copied().unwrap_or(false)
    }

    /// The level of an instruction's guard predicate (cluster-uniform when unguarded).
    pub fn guard_level(
        &self,
        stmt: StmtId,
        inst: &Instruction,
        vars: &Vars,
    ) -> (Level, Option<VarId>) {
        match &inst.guard {
            None => (Level::Cluster, None),
            Some(g) => match vars.resolve(stmt, &g.pred) {
                Some(Src::Var(v)) => (self.level_at(stmt, v), Some(v)),
                _ => (Level::Thread, None),
            },
        }
    }
}

/// Whether a block ends in a conditional branch or guarded exit (for callers that walk control
/// dependence).
pub fn is_conditional(cfg: &Cfg, b: BlockId) -> bool {
    matches!(
        cfg.blocks.get(b).map(|x| &x.term),
        Some(Terminator::Branch { .. } | Terminator::GuardedExit { .. })
    )
}

mod explain;
mod reach;
mod transfer;

use reach::Reach;

pub use explain::{Offending, exit_branches, offending_branch};
