//! Where findings happen: threads and instructions as report sites, shared variables by
//! name, and the report of a data race with both accesses.

use crate::barrier::mbarrier::Actor;
use crate::barrier::{Violation, Who};
use crate::decode::Program;
use crate::machine::{Machine, unflatten};
use crate::memory::SHARED_BASE;
use crate::race::Conflict;
use crate::report::{FindingKind, Report, Site, Stop};

impl Machine<'_> {
    pub(crate) fn site(&self, w: usize, mask: u32, pc: u32, what: &str) -> Site {
        let warp = &self.warps[w];
        let lane = mask.trailing_zeros().min(31);
        let tid = unflatten(warp.index * 32 + lane, self.shape.block);
        let s = &self.prog.sites[(pc as usize).min(self.prog.sites.len() - 1)];
        Site {
            cta: self.ctas[warp.cta as usize].ctaid,
            cta_rank: warp.cta,
            warp: warp.index,
            lanes: mask,
            tid,
            line: s.line,
            stmt: s.stmt,
            function: self.prog.funcs[s.func as usize].name.clone(),
            instruction: s.text.to_string(),
            what: what.to_string(),
        }
    }

    pub(crate) fn actor_site(&self, a: Actor, what: &str) -> Site {
        let what = if a.async_op {
            format!("{what} (asynchronously, when the operation it issued here completed)")
        } else {
            what.to_string()
        };
        self.site(a.warp as usize, 1 << a.lane, a.pc, &what)
    }

    /// `tile+16`, or the raw offset when no variable covers it.
    pub(crate) fn shared_name(&self, off: u32) -> String {
        shared_name(self.prog, off)
    }

    pub(crate) fn race_report(
        &self,
        c: Conflict,
        cta: u32,
        t: u32,
        pc: u32,
        is_async: bool,
        is_read: bool,
    ) -> Stop {
        let threads = self.race.threads as u32;
        let earlier_async = c.earlier.who >= threads;
        let ew = self.race.thread_of(c.earlier.who) as usize;
        let (w, lane) = (t as usize / 32, t as usize % 32);
        let name = self.shared_name(c.offset + SHARED_BASE);
        let (kind, spec, message) = if c.missing_fence {
            (
                FindingKind::ProxyFenceMissing,
                "§9.7.13.4 (membar/fence: fence.proxy.async)",
                format!(
                    "a bulk copy reads shared memory {name} that the generic proxy wrote without fence.proxy.async"
                ),
            )
        } else if is_async && !is_read && !c.earlier_write {
            (
                FindingKind::AsyncReadBeforeWait,
                "§9.7.13.15.16",
                format!(
                    "an asynchronous copy overwrites shared memory {name} before a read of it is ordered before the copy"
                ),
            )
        } else if earlier_async && !c.earlier_write {
            (
                FindingKind::AsyncReadBeforeWait,
                "§9.7.13.15.16",
                format!(
                    "shared memory {name} is written while an asynchronous operation may still read it"
                ),
            )
        } else if !is_async && is_read && earlier_async {
            (
                FindingKind::AsyncReadBeforeWait,
                "§9.7.13.15.16",
                format!(
                    "shared memory {name} is read without waiting for the asynchronous copy that writes it"
                ),
            )
        } else {
            (
                FindingKind::SharedRace,
                "§8 (memory consistency model)",
                format!("data race on shared memory {name}"),
            )
        };
        let me = match (is_async, is_read) {
            (true, true) => "an asynchronous copy issued here reads it",
            (true, false) => "an asynchronous copy issued here writes it",
            (false, true) => "reads it",
            (false, false) => "writes it",
        };
        let them = match (earlier_async, c.earlier_write) {
            (true, true) => "an asynchronous copy issued here wrote it",
            (true, false) => "an asynchronous copy issued here read it",
            (false, true) => "wrote it",
            (false, false) => "read it",
        };
        let mut r = Report::new(kind, spec, message)
            .site(self.site(w, 1 << lane, pc, me))
            .site(self.site(ew / 32, 1 << (ew % 32), c.earlier.pc, them))
            .note(format!("in cta {:?}; no barrier, mbarrier phase or cluster barrier orders the two accesses", self.ctas[cta as usize].ctaid));
        if c.missing_fence {
            r = r.note("the writer must execute fence.proxy.async after its stores and before the barrier that orders them before the copy");
        } else if kind == FindingKind::AsyncReadBeforeWait {
            r = r.note("a bulk copy's writes are visible after a test_wait/try_wait on its mbarrier returns true for the phase it completes; a buffer may be refilled only after its readers release it");
        }
        r.into()
    }
}

impl Machine<'_> {
    /// The report of a rule a barrier operation broke, its sites named.
    /// [`Machine::violation`] of a rule of barrier `object`.
    pub(crate) fn violation_on(&self, v: Violation, object: crate::report::Object) -> Stop {
        match self.violation(v) {
            Stop::Finding(mut r) => {
                r.object = Some(object);
                Stop::Finding(r)
            }
            other => other,
        }
    }

    pub(crate) fn violation(&self, v: Violation) -> Stop {
        let mut r = *v.report;
        for (who, what) in v.sites {
            r = r.site(match who {
                Who::Lanes(at) => self.site(at.warp as usize, at.lanes, at.pc, &what),
                Who::Actor(actor) => self.actor_site(actor, &what),
            });
        }
        r.into()
    }
}

/// The name a C++ programmer gave a function-local `__shared__` variable, from nvcc's mangled
/// name of it: `full` for `_ZZ13pipeline_bodyPfPKfjE4full` (`_ZZ` function `E` length name).
fn local_name(mangled: &str) -> Option<&str> {
    let rest = mangled.strip_prefix("_ZZ")?;
    for (i, _) in rest
        .match_indices('E')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
    {
        let tail = &rest[i + 1..];
        let digits = tail.chars().take_while(char::is_ascii_digit).count();
        let Ok(len) = tail[..digits].parse::<usize>() else {
            continue;
        };
        let name = &tail[digits..];
        if digits > 0 && name.len() == len && name.chars().all(|c| c.is_alphanumeric() || c == '_')
        {
            return Some(name);
        }
    }
    None
}

/// `tile+16`, or the raw offset when no variable covers it.
pub(crate) fn shared_name(prog: &Program, off: u32) -> String {
    let dynamic = prog.dynamic_shared_offset();
    for (mangled, o, size) in &prog.shared_vars {
        let name = local_name(mangled).unwrap_or(mangled);
        if *o == u32::MAX {
            if off as u64 >= dynamic {
                return format!("`{name}`+{}", off as u64 - dynamic);
            }
        } else if off >= *o && off < o + size {
            return if off == *o {
                format!("`{name}`")
            } else {
                format!("`{name}`+{}", off - o)
            };
        }
    }
    format!("at shared offset {off}")
}

#[cfg(test)]
mod tests {
    use super::local_name;

    #[test]
    fn local_shared_variables_get_their_source_names() {
        assert_eq!(local_name("_ZZ13pipeline_bodyPfPKfjE4full"), Some("full"));
        assert_eq!(local_name("_ZZ17ok_elected_leaderE5tiles"), Some("tiles"));
        // Not a function-local name, or not one this reads: kept as it is.
        assert_eq!(local_name("global_smem"), None);
        assert_eq!(local_name("_ZZ3fooE"), None);
    }
}
