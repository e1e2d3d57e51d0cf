//! Replaying a witness: `phasegate sim FILE --witness SPEC` runs the kernel exactly as the run
//! that found the finding did — the same launch, made-up inputs and schedule — so the
//! simulator's own report of the broken rule can be read, traced (`--trace`) and
//! compared with the witness's steps.
//!
//! The spec is what a witness's `replay` holds:
//! `block=160x1x1,cluster=1x1x1,grid=2x1x1,smem=0,ints=128,fill=0,schedule=pct:2:3`
//! (schedules `round-robin:SEED`, `random:SEED`, `pct:DEPTH:SEED`).

use super::explore::{Budget, param_block, unknown_bytes};
use super::params;
use crate::analysis::FunctionAnalysis;
use phasegate_ptx::Module;
use phasegate_sim::probe::{Kernel, Probe, ProbeRun};
use phasegate_sim::{Launch, Policy, Schedule};

/// A parsed replay spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    /// Threads per CTA.
    pub block: (u32, u32, u32),
    /// CTAs per cluster.
    pub cluster: (u32, u32, u32),
    /// CTAs in the grid (the run simulates the first cluster).
    pub grid: (u32, u32, u32),
    /// Bytes of dynamic shared memory.
    pub smem: u32,
    /// The value of every integer field of the parameters.
    pub ints: u64,
    /// The byte global memory holds until written.
    pub fill: u8,
    /// The scheduling policy and seed.
    pub schedule: Schedule,
}

impl Spec {
    /// Parses a spec; the error names the item that is wrong and what would be right.
    pub fn parse(text: &str) -> Result<Spec, String> {
        let mut spec = Spec {
            block: (0, 0, 0),
            cluster: (1, 1, 1),
            grid: (0, 0, 0),
            smem: 0,
            ints: 0,
            fill: 0,
            schedule: Schedule::default(),
        };
        let mut seen: Vec<&str> = Vec::new();
        for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| format!("`{item}` is not KEY=VALUE"))?;
            let bad = |what: &str| format!("`{item}`: {key} takes {what}");
            match key {
                "block" => spec.block = dims(value).ok_or_else(|| bad("XxYxZ"))?,
                "cluster" => spec.cluster = dims(value).ok_or_else(|| bad("XxYxZ"))?,
                "grid" => spec.grid = dims(value).ok_or_else(|| bad("XxYxZ"))?,
                "smem" => spec.smem = value.parse().map_err(|_| bad("a byte count"))?,
                "ints" => spec.ints = value.parse().map_err(|_| bad("an integer"))?,
                "fill" => spec.fill = value.parse().map_err(|_| bad("a byte, 0 to 255"))?,
                "schedule" => {
                    spec.schedule = schedule(value)
                        .ok_or_else(|| bad("round-robin:SEED, random:SEED or pct:DEPTH:SEED"))?
                }
                _ => {
                    return Err(format!(
                        "`{item}`: unknown key `{key}` (block, cluster, grid, smem, ints, fill, schedule)"
                    ));
                }
            }
            seen.push(key);
        }
        for key in ["block", "grid", "ints", "schedule"] {
            if !seen.contains(&key) {
                return Err(format!("the spec has no `{key}=`"));
            }
        }
        Ok(spec)
    }
}

fn dims(text: &str) -> Option<(u32, u32, u32)> {
    let v: Vec<u32> = text
        .split('x')
        .map(|d| d.parse().ok().filter(|&d| d > 0))
        .collect::<Option<_>>()?;
    match v.as_slice() {
        [x] => Some((*x, 1, 1)),
        [x, y] => Some((*x, *y, 1)),
        [x, y, z] => Some((*x, *y, *z)),
        _ => None,
    }
}

fn schedule(text: &str) -> Option<Schedule> {
    let parts: Vec<&str> = text.split(':').collect();
    let (policy, seed) = match parts.as_slice() {
        ["round-robin", s] => (Policy::RoundRobin, s),
        ["random", s] => (Policy::Random, s),
        ["pct", d, s] => (
            Policy::Pct {
                depth: d.parse().ok()?,
            },
            s,
        ),
        _ => return None,
    };
    Some(Schedule {
        policy,
        seed: seed.parse().ok()?,
    })
}

/// Runs entry `entry` of `module` as `spec` says, with the analyzer's made-up inputs.
pub fn replay(module: &Module, entry: &str, spec: &Spec) -> Result<ProbeRun, String> {
    let function = module
        .function(entry)
        .ok_or_else(|| format!("the module has no function `{entry}`"))?;
    let fa = match FunctionAnalysis::build(module, function) {
        Ok(Some(fa)) => fa,
        Ok(None) => return Err(format!("`{entry}` has no body")),
        Err(_) => return Err(format!("the loops of `{entry}` nest too deeply to analyze")),
    };
    let kernel = Kernel::decode(module, entry).map_err(|e| e.to_string())?;
    let fields = params::fields(&fa);
    let launch = Launch {
        grid: spec.grid,
        block: spec.block,
        cluster: Some(spec.cluster),
        dynamic_shared_bytes: spec.smem,
        schedule: spec.schedule,
        max_steps: Budget::default().run_steps,
        race_check: true,
    };
    let probe = Probe {
        params: param_block(&fields, kernel.param_bytes(), spec.ints),
        cluster: 0,
        log: true,
        fill: spec.fill,
        unknown_bytes: unknown_bytes(&fa, &kernel),
    };
    kernel.run(&launch, &probe).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_a_witness_prints() {
        let s = Spec::parse(
            "block=160x1x1,cluster=2x1x1,grid=4x1x1,smem=0,ints=128,fill=255,schedule=pct:2:3",
        )
        .unwrap();
        assert_eq!(
            (s.block, s.cluster, s.grid),
            ((160, 1, 1), (2, 1, 1), (4, 1, 1))
        );
        assert_eq!((s.ints, s.fill), (128, 255));
        assert_eq!(s.schedule.policy, Policy::Pct { depth: 2 });
        assert_eq!(s.schedule.seed, 3);
    }

    #[test]
    fn names_what_is_wrong() {
        let e = Spec::parse("block=160,grid=2,ints=1,schedule=pct:2").unwrap_err();
        assert!(e.contains("pct:DEPTH:SEED"), "{e}");
        let e = Spec::parse("block=160,grid=2,ints=1").unwrap_err();
        assert!(e.contains("schedule="), "{e}");
        let e = Spec::parse("blok=160").unwrap_err();
        assert!(e.contains("unknown key `blok`"), "{e}");
    }
}
