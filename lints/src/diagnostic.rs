//! A finding about a kernel: what is wrong, where, and what to do.

use crate::uniformity::Level as Uniform;
use phasegate_ptx::{Span, StmtId};
use std::fmt;

/// How seriously a finding is taken.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Ord, PartialOrd, Hash)]
pub enum Level {
    /// Not reported: the lint does not run, or its findings are dropped.
    Allow,
    /// Reported as a warning: the kernel still builds, `phasegate lint` still succeeds.
    Warn,
    /// Reported as an error: `#[kernel]` fails to compile, `phasegate lint` fails.
    Deny,
}

impl Level {
    /// The word a report starts with: `warning`, `error` (`allow` never shows).
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warn => "warning",
            Level::Deny => "error",
        }
    }

    /// The name used on command lines and in `#[kernel(allow(...))]`: `allow`, `warn`, `deny`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warn => "warn",
            Level::Deny => "deny",
        }
    }

    /// The level named `allow`, `warn` or `deny`, or by the words of reports (`warning`, `error`).
    pub fn from_name(name: &str) -> Option<Level> {
        match name {
            "allow" => Some(Level::Allow),
            "warn" | "warning" => Some(Level::Warn),
            "deny" | "error" => Some(Level::Deny),
            _ => None,
        }
    }
}

/// A place in the CUDA C++ (or Rust) source, from the `.loc` line in force at a statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLoc {
    /// The path `.file` names (the index itself when no `.file` line names it).
    pub file: String,
    /// The source line.
    pub line: u32,
    /// The source column; 0 when `.loc` gives none.
    pub col: u32,
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if self.col > 0 {
            write!(f, ":{}", self.col)?;
        }
        Ok(())
    }
}

/// The other side of a finding (the first of two arrives, the branch a barrier sits under).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    /// The statement it is about, for a caller that maps statements to its own spans.
    pub stmt: StmtId,
    /// Its position in PTX text (none when the module was not read from text).
    pub span: Span,
    /// What is there, lowercase: "the first arrive is here".
    pub message: String,
    /// Its source position from `.loc`, when the PTX has one.
    pub source: Option<SourceLoc>,
}

impl Related {
    /// The note as a step of a uniformity explanation, when it is one (see [`WhyStep`]).
    pub fn why(&self) -> Option<WhyStep> {
        WhyStep::parse(&self.message)
    }
}

/// One step of the explanation of why a value is not uniform enough, as data: the uniformity
/// analysis writes its [`Related`] notes with this type's `Display` ("`%p1` (divergent) is
/// computed from `%r1` at line 6") and [`Related::why`] reads them back, so a caller with
/// better names for the registers (`#[kernel]`: the Rust variables and expressions) can say
/// the same in its own words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WhyStep {
    /// The register the step is about (`%p1`).
    pub subject: String,
    /// How uniform the register is.
    pub level: Uniform,
    /// The line of the statement the step points at (the note's own statement).
    pub line: u32,
    /// What makes the register as uniform as it is.
    pub cause: WhyCause,
}

/// What makes a register as uniform as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WhyCause {
    /// It reads this special register (`%tid.x`).
    Special(String),
    /// It is computed from this register.
    From(String),
    /// It is the result of an instruction that differs between threads ("a load").
    Op(String),
    /// It is assigned under a branch (the note's statement) whose condition is this uniform.
    Control(Uniform),
}

impl WhyStep {
    /// The level as the step says it, in a parenthesis after the subject: "divergent",
    /// "warp-uniform only", "CTA-uniform only".
    pub fn level_text(&self) -> &'static str {
        level_text(self.level)
    }

    /// Reads a note written by [`WhyStep`]'s `Display`; none for any other note.
    pub fn parse(message: &str) -> Option<WhyStep> {
        let rest = message.strip_prefix('`')?;
        let (subject, rest) = rest.split_once("` (")?;
        let (level, rest) = rest.split_once(") ")?;
        let level = ALL_LEVELS.into_iter().find(|&l| level_text(l) == level)?;
        if let Some(rest) = rest.strip_prefix("is assigned under the branch at line ") {
            let (line, condition) = rest.split_once(", whose condition is ")?;
            let condition = ALL_LEVELS.into_iter().find(|l| l.describe() == condition)?;
            return Some(WhyStep {
                subject: subject.to_string(),
                level,
                line: line.parse().ok()?,
                cause: WhyCause::Control(condition),
            });
        }
        let (what, line) = rest.rsplit_once(" at line ")?;
        let line = line.parse().ok()?;
        let quoted = |s: &str| {
            s.strip_prefix('`')
                .and_then(|s| s.strip_suffix('`'))
                .filter(|s| !s.contains('`'))
                .map(str::to_string)
        };
        let cause = if let Some(sreg) = what.strip_prefix("reads ") {
            WhyCause::Special(quoted(sreg)?)
        } else if let Some(src) = what.strip_prefix("is computed from ") {
            WhyCause::From(quoted(src)?)
        } else {
            WhyCause::Op(what.strip_prefix("is ")?.to_string())
        };
        Some(WhyStep {
            subject: subject.to_string(),
            level,
            line,
            cause,
        })
    }
}

const ALL_LEVELS: [Uniform; 4] = [
    Uniform::Cluster,
    Uniform::Cta,
    Uniform::Warp,
    Uniform::Thread,
];

fn level_text(level: Uniform) -> &'static str {
    match level {
        Uniform::Thread => "divergent",
        Uniform::Warp => "warp-uniform only",
        Uniform::Cta => "CTA-uniform only",
        Uniform::Cluster => "uniform",
    }
}

impl fmt::Display for WhyStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` ({}) ", self.subject, self.level_text())?;
        match &self.cause {
            WhyCause::Special(sreg) => write!(f, "reads `{sreg}` at line {}", self.line),
            WhyCause::From(src) => write!(f, "is computed from `{src}` at line {}", self.line),
            WhyCause::Op(what) => write!(f, "is {what} at line {}", self.line),
            WhyCause::Control(condition) => write!(
                f,
                "is assigned under the branch at line {}, whose condition is {}",
                self.line,
                condition.describe()
            ),
        }
    }
}

/// A counterexample: one run of the kernel, under the launch it names, that breaks the rule of
/// a finding. The analyzer found it by running the kernel in the simulator (the one executable
/// definition of the barrier semantics), so it is an execution the PTX ISA allows, not a
/// guess; a `deny` finding carries one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Witness {
    /// The kernel (`.entry`) the run launched.
    pub kernel: String,
    /// The launch of the run, one line: block, cluster, the CTA it follows, the parameter
    /// values it chose (`block 160, cluster 1, CTA (0, 0, 0); n = 65536`).
    pub launch: String,
    /// What replays the run in the simulator: `phasegate sim FILE --witness REPLAY`.
    pub replay: String,
    /// The events of the run that lead to the broken rule, in order; the last breaks it.
    pub steps: Vec<WitnessStep>,
    /// What the run takes for granted that the PTX does not say (the bytes of a tensor copy,
    /// whose box is in a tensor map the PTX does not hold).
    pub assumptions: Vec<String>,
}

/// One event of a [`Witness`]: which threads did what, where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WitnessStep {
    /// Its place among the events of the run (1 for the first); 0 for the line that stands
    /// for events left out (`… 12 more events …`, in `event`).
    pub number: usize,
    /// The statement, in the function the step is in.
    pub stmt: StmtId,
    /// The function (entry or `.func`) the statement is in.
    pub function: String,
    /// Its position in PTX text (none when the module was not read from text).
    pub span: Span,
    /// Its source position from `.loc`, when the PTX has one.
    pub source: Option<SourceLoc>,
    /// The threads, lowercase: `thread 0 (warp 0)`, `warps 1-4 (128 threads)`.
    pub who: String,
    /// What happened, lowercase: ``arrive on `full[0]`: phase 0 completes``.
    pub event: String,
}

impl fmt::Display for Witness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "witness: {}", self.launch)?;
        for s in &self.steps {
            if s.number == 0 {
                write!(f, "\n      {}", s.event)?;
                continue;
            }
            write!(
                f,
                "\n  {:>3}. line {}: {}: {}",
                s.number, s.span.line, s.who, s.event
            )?;
        }
        for a in &self.assumptions {
            write!(f, "\n  assuming {a}")?;
        }
        if !self.replay.is_empty() {
            write!(f, "\n  replay: phasegate sim --witness {}", self.replay)?;
        }
        Ok(())
    }
}

/// One finding, located at a statement of a function of the module.
///
/// `Display` writes it as `phasegate lint` does without source excerpts: the level, the lint,
/// the message and the function, then a `= note:` line per related place and per note.
///
/// ```rust
/// use phasegate_lints::{Diagnostic, Level, Related};
/// use phasegate_ptx::{Span, StmtId};
///
/// let d = Diagnostic {
///     lint: "barrier_count",
///     level: Level::Deny,
///     function: "k".into(),
///     stmt: Some(StmtId(4)),
///     span: Span::new(9, 2),
///     message: "`bar.sync 16` names barrier 16; the ids are 0..15".into(),
///     related: vec![Related {
///         stmt: StmtId(1),
///         span: Span::new(6, 2),
///         message: "the barrier is first used here".into(),
///         source: None,
///     }],
///     notes: vec!["PTX ISA §9.7.13.1: each CTA has sixteen barriers".into()],
///     ..Diagnostic::default()
/// };
/// assert_eq!(
///     d.to_string(),
///     "error[barrier_count]: `bar.sync 16` names barrier 16; the ids are 0..15 (in `k`)\n\
///      \x20 = note: line 6: the barrier is first used here\n\
///      \x20 = note: PTX ISA §9.7.13.1: each CTA has sixteen barriers"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The rule that found it (`aligned_barrier_divergence`, `ptx_feature`).
    pub lint: &'static str,
    /// Error or warning, from the lint's configured level.
    pub level: Level,
    /// The `.entry` or `.func` it is in.
    pub function: String,
    /// The statement found; `None` for a finding about the whole function.
    pub stmt: Option<StmtId>,
    /// The position in PTX text, when the module was read from text.
    pub span: Span,
    /// Lowercase, without a trailing period.
    pub message: String,
    /// Further places and advice.
    pub notes: Vec<String>,
    /// The other places the finding is about, with their statements so that a caller can map
    /// them to its own spans.
    pub related: Vec<Related>,
    /// The source position from `.loc`, when the PTX has it.
    pub source: Option<SourceLoc>,
    /// The run that proves the finding (every `deny` finding of a protocol rule has one); a
    /// finding without one is at most a warning, and its notes say why it is unproven.
    pub witness: Option<Witness>,
}

impl Default for Diagnostic {
    fn default() -> Self {
        Diagnostic {
            lint: "",
            level: Level::Deny,
            function: String::new(),
            stmt: None,
            span: Span::NONE,
            message: String::new(),
            notes: Vec::new(),
            related: Vec::new(),
            source: None,
            witness: None,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}[{}]: {} (in `{}`)",
            self.level.as_str(),
            self.lint,
            self.message,
            self.function
        )?;
        for r in &self.related {
            write!(f, "\n  = note: line {}: {}", r.span.line, r.message)?;
        }
        for note in &self.notes {
            write!(f, "\n  = note: {note}")?;
        }
        if let Some(w) = &self.witness {
            write!(f, "\n  = {}", w.to_string().replace('\n', "\n    "))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn why_steps_read_back_what_they_write() {
        let causes = [
            WhyCause::Special("%tid.x".into()),
            WhyCause::From("%r1".into()),
            WhyCause::Op("the result of an atomic".into()),
            WhyCause::Op("a load".into()),
        ];
        for level in ALL_LEVELS {
            let mut all: Vec<WhyCause> = causes.to_vec();
            all.extend(ALL_LEVELS.map(WhyCause::Control));
            for cause in all {
                let step = WhyStep {
                    subject: "%p12".into(),
                    level,
                    line: 40,
                    cause,
                };
                assert_eq!(WhyStep::parse(&step.to_string()), Some(step.clone()));
            }
        }
    }

    #[test]
    fn the_explanations_wording_is_unchanged() {
        let step = WhyStep {
            subject: "%p1".into(),
            level: Uniform::Thread,
            line: 6,
            cause: WhyCause::From("%r1".into()),
        };
        assert_eq!(
            step.to_string(),
            "`%p1` (divergent) is computed from `%r1` at line 6"
        );
        let step = WhyStep {
            subject: "%r9".into(),
            level: Uniform::Warp,
            line: 8,
            cause: WhyCause::Control(Uniform::Warp),
        };
        assert_eq!(
            step.to_string(),
            "`%r9` (warp-uniform only) is assigned under the branch at line 8, whose condition is warp-uniform but not CTA-uniform"
        );
    }

    #[test]
    fn other_notes_are_not_steps() {
        for note in [
            "the branch is here",
            "threads leave here",
            "the guard is a special register",
            "the first arrive is here",
            "`bar.sync 0` is here",
            "`%r1` (sideways) reads `%tid.x` at line 3",
            "`%r1` (divergent) reads `%tid.x` at line three",
        ] {
            assert_eq!(WhyStep::parse(note), None, "{note}");
        }
    }
}
