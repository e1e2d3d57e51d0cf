//! The shape and options of one launch, and the launch bounds a kernel may declare.

use crate::sched::Schedule;

/// The shape and options of one launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// CTAs per dimension (`%nctaid`).
    pub grid: (u32, u32, u32),
    /// Threads per CTA per dimension (`%ntid`).
    pub block: (u32, u32, u32),
    /// CTAs per cluster; `None` uses the kernel's `.reqnctapercluster`, or clusters of one CTA.
    pub cluster: Option<(u32, u32, u32)>,
    /// Bytes of dynamic shared memory per CTA, as a driver launch's `sharedMemBytes` gives.
    pub dynamic_shared_bytes: u32,
    /// The order in which warps run and async operations complete; the same schedule replays
    /// a run exactly.
    pub schedule: Schedule,
    /// The most thread-instructions the run may execute before it stops with
    /// [`FindingKind::StepLimit`](crate::FindingKind::StepLimit).
    pub max_steps: u64,
    /// Whether shared-memory accesses are checked for data races (happens-before).
    pub race_check: bool,
}

impl Default for Launch {
    fn default() -> Launch {
        Launch {
            grid: (1, 1, 1),
            block: (32, 1, 1),
            cluster: None,
            dynamic_shared_bytes: 0,
            schedule: Schedule::default(),
            max_steps: 1_000_000_000,
            race_check: true,
        }
    }
}

/// A block shape against launch bounds: the exact shape `.reqntid` requires (PTX ISA §11.4.3)
/// and the most threads `.maxntid` allows (§11.4.2). `kernel` names the kernel in the error,
/// which says which bound and what the launch has. The simulator and the GPU launch share it.
pub fn check_block(
    kernel: &str,
    required: Option<(u32, u32, u32)>,
    max_threads: Option<u64>,
    block: (u32, u32, u32),
) -> Result<(), String> {
    if let Some(required) = required
        && required != block
    {
        return Err(format!(
            "{kernel} requires blocks of {required:?} (.reqntid), the launch has {block:?}"
        ));
    }
    let threads = block.0 as u64 * block.1 as u64 * block.2 as u64;
    if let Some(max) = max_threads
        && threads > max
    {
        return Err(format!(
            "{kernel} allows at most {max} threads per block (.maxntid), the launch has {threads}"
        ));
    }
    Ok(())
}
