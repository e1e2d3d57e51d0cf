//! The launch a witness run uses: block and cluster shape, grid, dynamic shared memory.
//!
//! A launch the kernel declares is the launch it is run with: `.reqntid` (exact), `.maxntid`
//! (the most it allows, which is what CUTLASS and Triton launch), `.reqnctapercluster`.
//! Where the PTX declares nothing, the shape is a choice of the witness, and a wrong choice
//! makes a correct kernel fail (a consumer warp group of 96 threads never completes a barrier
//! counting 128). The analyzer then takes the first shape, among sizes the kernel's own
//! barrier counts suggest and the usual ones, under which the kernel runs to completion in the
//! round-robin schedule: the shape the kernel was written for, as far as its PTX tells. Every
//! witness names the shape it used and whether it was declared or chosen.

use phasegate_ptx::{Function, FunctionKind, Instruction, Module, Opcode, Operand};

/// A launch shape of witness runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Threads per CTA.
    pub block: (u32, u32, u32),
    /// CTAs per cluster.
    pub cluster: (u32, u32, u32),
    /// CTAs of the grid (`%nctaid`); only the first cluster runs.
    pub grid: (u32, u32, u32),
    /// Bytes of dynamic shared memory per CTA.
    pub dynamic_shared: u32,
    /// Whether the block is declared by the PTX (else chosen).
    pub block_declared: bool,
    /// Whether the cluster is declared by the PTX (else chosen).
    pub cluster_declared: bool,
}

impl Shape {
    /// `block 160 (chosen), cluster 2x1x1 (declared)`.
    pub fn describe(&self) -> String {
        let dims = |d: (u32, u32, u32)| match d {
            (x, 1, 1) => format!("{x}"),
            (x, y, 1) => format!("{x}x{y}"),
            (x, y, z) => format!("{x}x{y}x{z}"),
        };
        let how = |declared: bool| if declared { "declared" } else { "chosen" };
        format!(
            "block {} ({}), cluster {} ({})",
            dims(self.block),
            how(self.block_declared),
            dims(self.cluster),
            how(self.cluster_declared),
        )
    }
}

/// The shapes to try, in order: one when the PTX declares block and cluster, else the
/// candidates of the module docs.
pub fn candidates(function: &Function, directives: Directives, dynamic_shared: u32) -> Vec<Shape> {
    let blocks: Vec<((u32, u32, u32), bool)> = match (directives.reqntid, directives.maxntid) {
        (Some(b), _) => vec![(b, true)],
        (None, Some(b)) => vec![(b, true)],
        (None, None) => block_guesses(function)
            .into_iter()
            .map(|x| ((x, 1, 1), false))
            .collect(),
    };
    let clusters: Vec<((u32, u32, u32), bool)> = match directives.reqnctapercluster {
        Some(c) => vec![(c, true)],
        None if uses_clusters(function) => [(1, 1, 1), (2, 1, 1), (1, 2, 1), (2, 2, 1), (4, 1, 1)]
            .into_iter()
            .map(|c| (c, false))
            .collect(),
        None => vec![((1, 1, 1), false)],
    };
    let mut out = Vec::new();
    for &(cluster, cluster_declared) in &clusters {
        for &(block, block_declared) in &blocks {
            out.push(Shape {
                block,
                cluster,
                grid: (cluster.0 * 2, cluster.1, cluster.2),
                dynamic_shared,
                block_declared,
                cluster_declared,
            });
        }
    }
    out
}

/// The launch-shape directives of an entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Directives {
    /// `.reqntid`.
    pub reqntid: Option<(u32, u32, u32)>,
    /// `.maxntid`.
    pub maxntid: Option<(u32, u32, u32)>,
    /// `.reqnctapercluster`.
    pub reqnctapercluster: Option<(u32, u32, u32)>,
}

/// Block sizes for a kernel that declares none: sizes its barrier counts suggest (a count,
/// and a count plus one to four warps: the other roles), then the usual ones.
fn block_guesses(function: &Function) -> Vec<u32> {
    let mut counts: Vec<u32> = Vec::new();
    for (_, inst) in function.body.iter().flat_map(|b| b.instructions()) {
        if let Some(c) = thread_count(inst)
            && c >= 32
            && c % 32 == 0
            && c <= 1024
        {
            counts.push(c);
        }
    }
    counts.sort_unstable();
    counts.dedup();
    let mut out: Vec<u32> = Vec::new();
    for &c in counts.iter().rev() {
        for extra in [0, 32, 64, 128] {
            let b = c + extra;
            if b <= 1024 && !out.contains(&b) {
                out.push(b);
            }
        }
    }
    for b in [128, 256, 32, 64, 96, 160, 192, 384, 512, 1024] {
        if !out.contains(&b) {
            out.push(b);
        }
    }
    out
}

/// The immediate thread count of a counted named barrier or an mbarrier's initial count.
fn thread_count(inst: &Instruction) -> Option<u32> {
    let imm = |i: usize| inst.operands.get(i).and_then(Operand::as_int);
    match &inst.opcode {
        Opcode::Bar | Opcode::Barrier if !inst.has("red") => imm(1),
        Opcode::Bar | Opcode::Barrier => imm(2),
        Opcode::Mbarrier if inst.has("init") => imm(1),
        _ => None,
    }
    .and_then(|v| u32::try_from(v).ok())
}

/// Whether the function uses anything of a cluster: its barrier, `mapa`, `.shared::cluster`
/// accesses, multicast copies, the cluster special registers.
/// Whether the kernel (its entry or a function of its module) reads the y or z thread index
/// but never the block's dimensions: its roles then assume a block shape fixed at compile time
/// (FlashInfer's decode kernels take `bdx`, `bdy`, `bdz` as template constants), which a 1-D
/// guess breaks, so a run under a block the PTX does not declare proves nothing. A kernel that
/// reads `%ntid` works with the shape it gets (the linear thread index of `#[kernel]`, a tile
/// loop over `blockDim.y`), and a 1-D block is one of its launches.
pub fn reads_thread_yz(module: &Module, entry: &Function) -> bool {
    let reads = |names: &[&str]| {
        std::iter::once(entry)
            .chain(module.functions().filter(|f| f.kind != FunctionKind::Entry))
            .flat_map(|f| f.body.iter().flat_map(|b| b.instructions()))
            .any(|(_, inst)| {
                inst.operands
                    .iter()
                    .any(|o| o.as_reg().is_some_and(|r| names.contains(&r)))
            })
    };
    reads(&["%tid.y", "%tid.z"]) && !reads(&["%ntid.x", "%ntid.y", "%ntid.z"])
}

fn uses_clusters(function: &Function) -> bool {
    function.body.iter().flat_map(|b| b.instructions()).any(|(_, inst)| {
        inst.opcode == Opcode::Mapa
            || (inst.opcode == Opcode::Barrier && inst.has("cluster"))
            || inst.modifiers.iter().any(|m| m.contains("multicast"))
            || (inst.opcode != Opcode::Cp && inst.has("shared::cluster"))
            || inst.operands.iter().any(|o| {
                matches!(o, Operand::Reg(r) if r.starts_with("%cluster_") || r.starts_with("%clusterid") || r.starts_with("%nclusterid"))
            })
    })
}
