//! What decoding produces: the [`Program`] one launch runs, with the sites of its ops, its
//! functions, the entry's parameters and launch-shape directives.

use super::ops::{Kind, Op};
use crate::memory::Global;
use phasegate_ptx::SpecialReg;

/// Where an op came from, for reports.
#[derive(Clone, Debug)]
pub(crate) struct Site {
    pub func: u32,
    /// The statement in the function's body; `None` for the return a body that falls off its
    /// end gets.
    pub stmt: Option<phasegate_ptx::StmtId>,
    /// 1-based PTX line, 0 when the module was not read from text.
    pub line: u32,
    pub text: Box<str>,
}

#[derive(Clone, Debug)]
pub(crate) struct FuncInfo {
    pub name: String,
    pub first_op: u32,
}

/// One parameter of the entry.
#[derive(Clone, Debug)]
pub(crate) struct KernelParam {
    pub name: String,
    pub offset: u32,
    pub size: u32,
    /// The declared type (`u64` for pointers, `b8` for byte arrays).
    pub ty: phasegate_ptx::ScalarType,
}

/// Launch-shape directives of the entry.
#[derive(Clone, Debug, Default)]
pub(crate) struct EntryShape {
    pub reqntid: Option<(u32, u32, u32)>,
    pub maxntid: Option<(u32, u32, u32)>,
    pub reqnctapercluster: Option<(u32, u32, u32)>,
    pub explicit_cluster: bool,
}

/// A decoded module, ready to launch one entry.
#[derive(Clone, Debug)]
pub(crate) struct Program {
    pub ops: Vec<Op>,
    pub sites: Vec<Site>,
    /// Ops that some branch targets: warps re-merge diverged threads there.
    pub is_target: Vec<bool>,
    pub funcs: Vec<FuncInfo>,
    pub entry_pc: u32,
    pub reg_bits: Vec<u8>,
    pub reg_names: Vec<String>,
    /// Special registers that have a slot, filled per thread at launch.
    pub sregs: Vec<(SpecialReg, u32)>,
    pub kernel_params: Vec<KernelParam>,
    pub kernel_param_bytes: u32,
    /// Bytes of each thread's `.param` frame (`.func` parameters, call-sequence variables).
    pub frame_bytes: u32,
    pub local_bytes: u32,
    /// Static shared bytes (from [`SHARED_BASE`](crate::memory::SHARED_BASE)) and where dynamic shared memory begins.
    pub shared_static_end: u32,
    pub dynamic_shared_align: u32,
    /// Module `.global` / `.const` variables, already placed.
    pub global: Global,
    pub shape: EntryShape,
    /// The slot of the carry flag (`add.cc`, `addc`, ...).
    pub carry: u32,
    /// Shared variables with their offsets and sizes, for reports.
    pub shared_vars: Vec<(String, u32, u32)>,
    /// The register slots each op names (sources, destinations, guard), sorted: the slots of
    /// op `pc` are `op_regs[op_regs_at[pc]..op_regs_at[pc + 1]]`. A warp's registers that can
    /// be other than zero after a cluster are those its executed ops name, its special
    /// registers and the carry flag ([`Program::written_slots`]).
    pub op_regs: Vec<u32>,
    pub op_regs_at: Vec<u32>,
    /// A number no other program decoded in this process has (its clones share it): what
    /// the register slots worked out from a warp's executed ops are remembered under.
    pub id: u64,
}

/// The next [`Program::id`].
pub(crate) fn next_program_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Program {
    pub(crate) fn nregs(&self) -> usize {
        self.reg_bits.len()
    }
    /// The register slots op `pc` names.
    pub(crate) fn op_slots(&self, pc: usize) -> &[u32] {
        &self.op_regs[self.op_regs_at[pc] as usize..self.op_regs_at[pc + 1] as usize]
    }
    /// The ops control can go to after `pc`: the next one unless `pc` is an unconditional
    /// branch or ends the thread, and a branch's target. A call continues after itself (its
    /// callee returns).
    pub(crate) fn successors(&self, pc: u32) -> [Option<u32>; 2] {
        let op = &self.ops[pc as usize];
        let unguarded = op.guard.is_none();
        let next = (pc + 1 < self.ops.len() as u32).then_some(pc + 1);
        match &op.kind {
            Kind::Bra { target } if unguarded => [Some(*target), None],
            Kind::Bra { target } => [next, Some(*target)],
            Kind::Exit | Kind::Ret | Kind::Trap if unguarded => [None, None],
            _ => [next, None],
        }
    }

    /// Whether control can go from op `from` to op `to` (`to` itself counts when `from == to`),
    /// for a thread whose calls return to `stack` (innermost last).
    pub(crate) fn reaches(&self, stack: &[u32], from: u32, to: u32) -> bool {
        self.search(stack, from, |pc| pc == to)
    }

    /// Whether the program has an instruction that issues asynchronous operations (bulk and
    /// tensor copies, `cp.async` and its mbarrier arrive, tensor-core instructions), each of
    /// which acts through its thread's async agent (`race`).
    pub(crate) fn issues_async(&self) -> bool {
        self.ops.iter().any(|op| {
            matches!(
                op.kind,
                Kind::BulkLoad { .. }
                    | Kind::BulkStore { .. }
                    | Kind::CpAsync { .. }
                    | Kind::CpAsyncMbarArrive { .. }
                    | Kind::Tma(_)
                    | Kind::Tensor(_)
            )
        })
    }

    /// Whether some path from `from` executes an op with an effect other threads can see (a
    /// store, an atomic, a barrier, an asynchronous copy, a warp collective, a call) before the
    /// thread exits: a thread on the way out has none.
    pub(crate) fn acts_before_exit(&self, stack: &[u32], from: u32) -> bool {
        self.search(stack, from, |pc| {
            matches!(
                self.ops[pc as usize].kind,
                Kind::St { .. }
                    | Kind::Atom { .. }
                    | Kind::Bar { .. }
                    | Kind::ClusterArrive { .. }
                    | Kind::ClusterWait { .. }
                    | Kind::Mbar { .. }
                    | Kind::BulkLoad { .. }
                    | Kind::BulkStore { .. }
                    | Kind::CpAsync { .. }
                    | Kind::CpAsyncMbarArrive { .. }
                    | Kind::Shfl { .. }
                    | Kind::Vote { .. }
                    | Kind::Elect { .. }
                    | Kind::Redux { .. }
                    | Kind::WarpSync { .. }
                    | Kind::Tma(_)
                    | Kind::Tensor(_)
                    | Kind::Call { .. }
            )
        })
    }

    /// Whether an op for which `hit` holds can be reached from `from` (itself included), by a
    /// thread whose calls return to `stack`: a `ret` goes on after the innermost call.
    fn search(&self, stack: &[u32], from: u32, hit: impl Fn(u32) -> bool) -> bool {
        let mut seen = vec![false; self.ops.len()];
        let mut start = from;
        let mut depth = stack.len();
        loop {
            let mut returns = false;
            let mut work = vec![start];
            while let Some(pc) = work.pop() {
                if pc as usize >= seen.len() || seen[pc as usize] {
                    continue;
                }
                seen[pc as usize] = true;
                if hit(pc) {
                    return true;
                }
                returns |= matches!(self.ops[pc as usize].kind, Kind::Ret);
                work.extend(self.successors(pc).into_iter().flatten());
            }
            if !returns || depth == 0 {
                return false;
            }
            depth -= 1;
            start = stack[depth] + 1;
        }
    }

    /// Where dynamic shared memory starts (`extern .shared` arrays). In 64 bits: static
    /// shared memory near 4 GiB (which the launch then rejects) must not wrap around.
    pub(crate) fn dynamic_shared_offset(&self) -> u64 {
        let align = self.dynamic_shared_align.max(1) as u64;
        (self.shared_static_end as u64).div_ceil(align) * align
    }
}
