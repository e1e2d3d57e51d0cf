//! Runs for the analyzer: one cluster of a launch whose inputs are made up, with a log of the
//! barrier operations it performed.
//!
//! `phasegate-lints` proves a finding by running the kernel here: a deny finding carries the
//! run that breaks the rule (its witness). The analyzer has the PTX and nothing else, so a
//! probe run makes up what a launch would bring:
//!
//! - the parameter block is given as bytes ([`Probe::params`]), chosen by the analyzer;
//! - global memory is open: every address holds bytes ([`Probe::fill`] until written), so any
//!   pointer the parameters hold can be read and written;
//! - tensor maps are unknown: a tensor copy moves no data and completes an unknown, positive
//!   number of bytes on its mbarrier (see `barrier::mbarrier`); it completes only when nothing
//!   else can happen, so that its mbarrier sees every copy of the phase before it decides
//!   whether their bytes can balance what the phase expects;
//! - tensor-core arithmetic is skipped (its results are data, not protocol), while its
//!   protocol is still checked (convergence, `wgmma.fence`, registers in flight);
//! - only one cluster of the grid runs ([`Probe::cluster`]).
//!
//! Everything else is the simulator's semantics, unchanged: the barrier state machines, the
//! happens-before clocks, the scheduler. A probe run that stops on a finding is therefore an
//! execution the PTX ISA allows for those inputs, which is what a witness has to be.

use crate::cluster::{Totals, run_cluster};
use crate::decode::{self, Program};
use crate::error::SimError;
use crate::launch::Launch;
use crate::machine::{ClusterMem, LaunchMem};
use crate::outcome::Outcome;
use crate::overlay::{GlobalMem, OpenMemory};
use crate::tma_state::TmaState;
use phasegate_ptx::{Module, StmtId};

pub(crate) use crate::event_log::Made;
pub use crate::event_log::{Blocked, LogEvent, LogKind, MbarrierState};
pub use crate::report::Object;

/// What a probe run makes up, besides the launch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Probe {
    /// The parameter block, as many bytes as the kernel's parameters take (more are ignored,
    /// fewer are zero-extended).
    pub params: Vec<u8>,
    /// The cluster of the grid to run (linear, x fastest).
    pub cluster: u32,
    /// Whether to record the barrier events ([`ProbeRun::log`]).
    pub log: bool,
    /// The byte every address of global memory holds until written (0: zeros; 0xff: every
    /// float a NaN, every integer all ones).
    pub fill: u8,
    /// Ops whose byte count the kernel computes from its inputs (an expect-tx, a bulk copy's
    /// size): made-up inputs make those counts as unknown as a tensor copy's box, so they are
    /// taken to be whatever balances the transactions (at least one byte).
    pub unknown_bytes: Vec<u32>,
}

/// How a probe run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeRun {
    /// Completed, or the finding it stopped on.
    pub outcome: Outcome,
    /// The barrier events, in order (empty unless [`Probe::log`]).
    pub log: Vec<LogEvent>,
    /// The threads blocked at the end (those a deadlock leaves waiting).
    pub blocked: Vec<Blocked>,
    /// The valid mbarrier objects at the end.
    pub mbarriers: Vec<MbarrierState>,
    /// Warps per CTA, to turn flat warp indices into CTA ranks and warp indices.
    pub warps_per_cta: u32,
}

/// Where an op of a decoded kernel comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location<'a> {
    /// The function (entry or `.func`).
    pub function: &'a str,
    /// Its statement; `None` for the return a body that falls off its end gets.
    pub stmt: Option<StmtId>,
    /// The PTX line (0 when the module was not read from text).
    pub line: u32,
}

/// An entry decoded once for many probe runs.
pub struct Kernel {
    prog: Program,
}

impl Kernel {
    /// Decodes `entry` of `module` and the functions it calls.
    pub fn decode(module: &Module, entry: &str) -> Result<Kernel, SimError> {
        Ok(Kernel {
            prog: decode::decode(module, entry)?,
        })
    }

    /// Bytes of the kernel's parameter block.
    pub fn param_bytes(&self) -> u32 {
        self.prog.kernel_param_bytes
    }

    /// The launch-shape directives of the entry: `.reqntid`, `.maxntid`, `.reqnctapercluster`.
    #[allow(clippy::type_complexity)]
    pub fn shape_directives(
        &self,
    ) -> (
        Option<(u32, u32, u32)>,
        Option<(u32, u32, u32)>,
        Option<(u32, u32, u32)>,
    ) {
        let s = &self.prog.shape;
        (s.reqntid, s.maxntid, s.reqnctapercluster)
    }

    /// Bytes of static shared memory the kernel declares.
    pub fn static_shared_bytes(&self) -> u32 {
        self.prog.shared_static_end - crate::memory::SHARED_BASE
    }

    /// The most dynamic shared memory a launch of the kernel may ask for: what a CTA's shared
    /// memory (H100: 227 KB) leaves after the static variables, from where the dynamic block
    /// starts (the static end rounded up to the `extern` declaration's alignment).
    pub fn max_dynamic_shared_bytes(&self) -> u32 {
        let start = self.prog.dynamic_shared_offset() - u64::from(crate::memory::SHARED_BASE);
        u64::from(crate::memory::MAX_SHARED_BYTES).saturating_sub(start) as u32
    }

    /// Whether the kernel declares dynamic (`extern`) shared memory.
    pub fn uses_dynamic_shared(&self) -> bool {
        self.prog
            .shared_vars
            .iter()
            .any(|(_, off, _)| *off == u32::MAX)
    }

    /// The ops of statement `stmt` of `function` (one, or none for a statement that is no
    /// instruction or a function the entry does not call).
    pub fn pcs_of(&self, function: &str, stmt: StmtId) -> Vec<u32> {
        let Some(f) = self.prog.funcs.iter().position(|f| f.name == function) else {
            return Vec::new();
        };
        self.prog
            .sites
            .iter()
            .enumerate()
            .filter(|(_, s)| s.func as usize == f && s.stmt == Some(stmt))
            .map(|(pc, _)| pc as u32)
            .collect()
    }

    /// The function, statement and line of op `pc`.
    pub fn location(&self, pc: u32) -> Location<'_> {
        let site = &self.prog.sites[(pc as usize).min(self.prog.sites.len() - 1)];
        Location {
            function: &self.prog.funcs[site.func as usize].name,
            stmt: site.stmt,
            line: site.line,
        }
    }

    /// Runs one cluster of `launch` with the inputs of `probe` made up as the module docs say.
    pub fn run(&self, launch: &Launch, probe: &Probe) -> Result<ProbeRun, SimError> {
        let shape = crate::run::shape(&self.prog, launch)?;
        let mut params = probe.params.clone();
        params.resize(self.prog.kernel_param_bytes as usize, 0);
        let mut mem = LaunchMem {
            global: self.prog.global.clone(),
            kernel_params: params,
            unfenced: Vec::new(),
        };
        let clusters = crate::machine::volume(shape.grid) / crate::machine::volume(shape.cluster);
        if u64::from(probe.cluster) >= clusters {
            return Err(SimError::Launch(format!(
                "cluster {} of a grid of {clusters} clusters",
                probe.cluster
            )));
        }
        let mut open = OpenMemory::filled(probe.fill);
        let cm = ClusterMem {
            global: GlobalMem::Open(&mut open),
            kernel_params: &mem.kernel_params,
            tma: TmaState::default(),
        };
        let mut log = Vec::new();
        let (run, _) = run_cluster(
            &self.prog,
            &shape,
            launch,
            probe.cluster,
            cm,
            0,
            None,
            Some(Made {
                log: probe.log.then_some(&mut log),
                unknown_bytes: {
                    let mut v = probe.unknown_bytes.clone();
                    v.sort_unstable();
                    v
                },
            }),
        );
        mem.unfenced.clear();
        let blocked = run.blocked.clone();
        let mbarriers = run.mbarriers.clone();
        let mut totals = Totals::new(launch.schedule);
        let outcome = match totals.add(run, shape.ctas_per_cluster)? {
            Some(outcome) => outcome,
            None => totals.finish(),
        };
        Ok(ProbeRun {
            outcome,
            log,
            blocked,
            mbarriers,
            warps_per_cta: shape.warps_per_cta,
        })
    }
}
