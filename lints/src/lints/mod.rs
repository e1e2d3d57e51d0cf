//! The lints, one per file, and what they share: levels, the registry, the context they read
//! and the sink they report to.

pub mod aligned_barrier_divergence;
pub mod barrier_count;
pub mod barrier_red_sync_mix;
pub mod cluster_barrier_double_arrive;
pub mod cluster_peer_exit;
mod control;
pub mod divergent_exit_before_barrier;
pub mod mbarrier_deadlock;
pub mod mbarrier_missing_wait;
pub mod mbarrier_parity_mismatch;
pub mod mbarrier_tx_mismatch;
pub mod mbarrier_uninit;
pub mod missing_proxy_fence;
pub mod named_barrier_deadlock;
pub mod warp_collective_divergence;

use crate::analysis::FunctionAnalysis;
use crate::diagnostic::{Diagnostic, Level, Related};
use crate::mbar::{MbarOp, mbar_ops};
use phasegate_ptx::StmtId;
use std::cell::OnceCell;
use std::fmt;

/// A lint's name, default level and one-line summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LintInfo {
    /// The name used in `allow`/`warn`/`deny` and in reports: `aligned_barrier_divergence`.
    pub name: &'static str,
    /// The level when the configuration does not change it.
    pub default: Level,
    /// What the lint finds, in one line (`phasegate lint --list`, SARIF rule descriptions).
    pub summary: &'static str,
    /// The lint's documentation in Markdown, `lints/explain/NAME.md`: what it finds, why that
    /// is a bug, an example and a real finding, how to fix it, what it cannot decide. It is the
    /// one text behind `phasegate lint --explain NAME`, this lint module's rustdoc and the
    /// book's page on the lint.
    pub explanation: &'static str,
}

/// Every lint, in the order they run.
pub const ALL: [&LintInfo; 14] = [
    &aligned_barrier_divergence::LINT,
    &warp_collective_divergence::LINT,
    &divergent_exit_before_barrier::LINT,
    &barrier_count::LINT,
    &barrier_red_sync_mix::LINT,
    &mbarrier_missing_wait::LINT,
    &mbarrier_parity_mismatch::LINT,
    &mbarrier_uninit::LINT,
    &cluster_barrier_double_arrive::LINT,
    &missing_proxy_fence::LINT,
    &mbarrier_tx_mismatch::LINT,
    &named_barrier_deadlock::LINT,
    &mbarrier_deadlock::LINT,
    &cluster_peer_exit::LINT,
];

/// Looks a lint up by name.
pub fn find(name: &str) -> Option<&'static LintInfo> {
    ALL.iter().copied().find(|l| l.name == name)
}

/// The documentation of lint `name` ([`LintInfo::explanation`]), as `phasegate lint --explain`
/// prints it; `Err` names the known lints (with a suggestion when one name is close).
///
/// ```rust
/// let text = phasegate_lints::lints::explain("mbarrier_uninit").unwrap();
/// assert!(text.starts_with("# `mbarrier_uninit`"));
/// let err = phasegate_lints::lints::explain("mbarier_uninit").unwrap_err();
/// assert_eq!(err.suggestion, Some("mbarrier_uninit"));
/// ```
pub fn explain(name: &str) -> Result<&'static str, UnknownLint> {
    match find(name) {
        Some(lint) => Ok(lint.explanation),
        None => Err(UnknownLint {
            name: name.to_string(),
            suggestion: closest(name),
        }),
    }
}

/// The known lint name closest to `name`, if one is within three edits.
fn closest(name: &str) -> Option<&'static str> {
    ALL.iter()
        .map(|l| (edit_distance(name, l.name), l.name))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, n)| n)
}

/// A lint name that is not one of [`ALL`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownLint {
    /// The name as given.
    pub name: String,
    /// The known name closest to it, if one is close.
    pub suggestion: Option<&'static str>,
}

impl fmt::Display for UnknownLint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown lint `{}`", self.name)?;
        if let Some(s) = self.suggestion {
            write!(f, " (did you mean `{s}`?)")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownLint {}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push(
                (prev[j] + usize::from(ca != *cb))
                    .min(prev[j + 1] + 1)
                    .min(cur[j] + 1),
            );
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The level of each lint: the defaults, changed by name (`allow`/`warn`/`deny`).
///
/// ```rust
/// use phasegate_lints::{Level, LintConfig};
///
/// let config = LintConfig::new()
///     .with("all", Level::Warn)?
///     .with("mbarrier_uninit", Level::Allow)?;
/// assert_eq!(config.level("mbarrier_uninit"), Level::Allow);
/// assert_eq!(config.level("barrier_count"), Level::Warn);
///
/// // A misspelt name is an error that suggests the lint meant.
/// let err = LintConfig::new().with("mbarier_uninit", Level::Allow).unwrap_err();
/// assert_eq!(err.suggestion, Some("mbarrier_uninit"));
/// assert_eq!(err.to_string(), "unknown lint `mbarier_uninit` (did you mean `mbarrier_uninit`?)");
/// # Ok::<(), phasegate_lints::UnknownLint>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LintConfig {
    levels: Vec<(&'static str, Level)>,
    /// Whether entries are run for witnesses ([`crate::witness`]); without them, no finding
    /// is proven and the static candidates are reported as the lints find them.
    witnesses: bool,
    /// What the runs of one entry may cost.
    budget: crate::witness::Budget,
}

impl Default for LintConfig {
    fn default() -> Self {
        LintConfig {
            levels: ALL.iter().map(|l| (l.name, l.default)).collect(),
            witnesses: true,
            budget: crate::witness::Budget::default(),
        }
    }
}

impl LintConfig {
    /// Every lint at its default level.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets a lint's level; `all` sets every lint. Unknown names are an error the caller
    /// reports (with a suggestion when one name is close).
    pub fn set(&mut self, name: &str, level: Level) -> Result<(), UnknownLint> {
        if name == "all" {
            for entry in &mut self.levels {
                entry.1 = level;
            }
            return Ok(());
        }
        match self.levels.iter_mut().find(|(n, _)| *n == name) {
            Some(entry) => {
                entry.1 = level;
                Ok(())
            }
            None => Err(UnknownLint {
                name: name.to_string(),
                suggestion: closest(name),
            }),
        }
    }

    /// Builder form of [`set`](Self::set).
    pub fn with(mut self, name: &str, level: Level) -> Result<Self, UnknownLint> {
        self.set(name, level)?;
        Ok(self)
    }

    /// Whether entries are run for witnesses (the default). Without runs the static lints'
    /// candidates are reported as found, unproven: for a quick look, or a kernel the
    /// simulator cannot run.
    pub fn witnesses(&self) -> bool {
        self.witnesses
    }

    /// Turns the runs for witnesses on or off.
    pub fn with_witnesses(mut self, on: bool) -> Self {
        self.witnesses = on;
        self
    }

    /// What the runs of one entry may cost.
    pub fn budget(&self) -> crate::witness::Budget {
        self.budget
    }

    /// Sets what the runs of one entry may cost.
    pub fn with_budget(mut self, budget: crate::witness::Budget) -> Self {
        self.budget = budget;
        self
    }

    /// The level of lint `name`; [`Level::Allow`] for a name that is no lint.
    pub fn level(&self, name: &str) -> Level {
        self.levels
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, l)| *l)
            .unwrap_or(Level::Allow)
    }
}

/// What a lint reads: the analysis of one function, and the mbarrier operations in it.
pub struct Context<'a> {
    /// The analyses of the function being linted.
    pub fa: &'a FunctionAnalysis<'a>,
    mbar: OnceCell<Vec<MbarOp>>,
}

impl<'a> Context<'a> {
    /// A context over `fa`; the mbarrier operations are found on first use.
    pub fn new(fa: &'a FunctionAnalysis<'a>) -> Self {
        Context {
            fa,
            mbar: OnceCell::new(),
        }
    }
    /// The mbarrier operations of the function in text order, found once for all the lints that
    /// read them.
    pub fn mbar_ops(&self) -> &[MbarOp] {
        self.mbar.get_or_init(|| mbar_ops(self.fa))
    }
}

/// Where lints report; it applies the configured level and drops allowed findings.
pub struct Sink<'a> {
    config: &'a LintConfig,
    /// The findings reported so far, in the order the lints reported them.
    pub out: Vec<Diagnostic>,
}

impl<'a> Sink<'a> {
    /// An empty sink applying the levels of `config`.
    pub fn new(config: &'a LintConfig) -> Self {
        Sink {
            config,
            out: Vec::new(),
        }
    }

    /// Whether `lint` is not allowed, so that running it can report something.
    pub fn enabled(&self, lint: &LintInfo) -> bool {
        self.config.level(lint.name) != Level::Allow
    }

    /// Reports a finding at `stmt`, with the other places it is about and notes.
    pub fn report(
        &mut self,
        cx: &Context,
        lint: &LintInfo,
        stmt: StmtId,
        message: String,
        related: Vec<(StmtId, String)>,
        notes: Vec<String>,
    ) {
        let level = self.config.level(lint.name);
        if level == Level::Allow {
            return;
        }
        let fa = cx.fa;
        let (source, inlined) = match fa.source(stmt) {
            Some((s, i)) => (Some(s), i),
            None => (None, Vec::new()),
        };
        let mut notes = notes;
        for loc in inlined {
            notes.push(format!("inlined from {loc}"));
        }
        let related = related
            .into_iter()
            .map(|(s, m)| Related {
                stmt: s,
                span: if s.index() < fa.body.len() {
                    fa.body.span(s)
                } else {
                    phasegate_ptx::Span::NONE
                },
                message: m,
                source: fa.source(s).map(|x| x.0),
            })
            .collect();
        self.out.push(Diagnostic {
            lint: lint.name,
            level,
            function: fa.function.name.clone(),
            stmt: Some(stmt),
            span: fa.body.span(stmt),
            message,
            notes,
            related,
            source,
            witness: None,
        });
    }
}

/// A lint's entry point.
type Check = fn(&Context, &mut Sink);

/// Runs every enabled lint on one function.
pub fn run_all(cx: &Context, sink: &mut Sink) {
    let checks: [(&LintInfo, Check); 12] = [
        (
            &aligned_barrier_divergence::LINT,
            aligned_barrier_divergence::check,
        ),
        (
            &warp_collective_divergence::LINT,
            warp_collective_divergence::check,
        ),
        (
            &divergent_exit_before_barrier::LINT,
            divergent_exit_before_barrier::check,
        ),
        (&barrier_count::LINT, barrier_count::check),
        (&barrier_red_sync_mix::LINT, barrier_red_sync_mix::check),
        (&mbarrier_missing_wait::LINT, mbarrier_missing_wait::check),
        (
            &mbarrier_parity_mismatch::LINT,
            mbarrier_parity_mismatch::check,
        ),
        (&mbarrier_uninit::LINT, mbarrier_uninit::check),
        (
            &cluster_barrier_double_arrive::LINT,
            cluster_barrier_double_arrive::check,
        ),
        (&missing_proxy_fence::LINT, missing_proxy_fence::check),
        (&mbarrier_tx_mismatch::LINT, mbarrier_tx_mismatch::check),
        (&named_barrier_deadlock::LINT, named_barrier_deadlock::check),
    ];
    for (info, check) in checks {
        if sink.enabled(info) {
            check(cx, sink);
        }
    }
}
