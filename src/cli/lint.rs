//! `phasegate lint`: the barrier analyzer on PTX files, ours or nvcc's.
//!
//! ```text
//! phasegate lint [--format text|json|sarif] [--allow LINT] [--warn LINT] [--deny LINT] FILE.ptx...
//! phasegate lint --list
//! phasegate lint --explain LINT
//! ```
//!
//! Text output is one `FILE:LINE:COL: error[lint]: message` per finding, then the kernel and
//! the CUDA source position (from `.loc`), an excerpt of the PTX with a caret under the
//! finding and the other places it is about (rustc's style, drawn by `annotate-snippets`), and
//! notes. `--format json` prints one JSON object per finding and line (the fields are listed in
//! `book/src/analyzer/formats.md`); `--format sarif` prints one SARIF 2.1.0 log ([`super::sarif`]).
//! `LINT` may be `all`; the level options apply in order. Exit status: 1 when a deny-level
//! finding (or a file that cannot be read) was reported, 2 on usage errors, 0 otherwise.

use super::sarif;
use crate::lints::{Diagnostic, LINTS, Level, LintConfig, SourceLoc, lint_module};
use crate::ptx;
use annotate_snippets::{AnnotationKind, Group, Renderer, Snippet};
use clap::{ArgMatches, Args, ValueEnum};
use serde::Serialize;

/// The arguments of `phasegate lint`.
#[derive(Args, Debug)]
#[command(after_help = "\
LINT is a lint name (`phasegate lint --list`) or `all`; --allow/--warn/--deny apply in order.
Exit status: 1 when a deny-level finding or a read error was reported, 2 on usage errors, else 0")]
pub struct LintArgs {
    /// The PTX files to analyze
    #[arg(value_name = "FILE.ptx", required_unless_present_any = ["list", "explain"])]
    pub files: Vec<String>,
    /// Output format: `text` (with source excerpts), `json` (one object per finding and line)
    /// or `sarif` (one SARIF 2.1.0 log)
    #[arg(long, value_enum, default_value_t = Format::Text, value_name = "FORMAT")]
    pub format: Format,
    /// Do not report LINT
    #[arg(short = 'A', long, value_name = "LINT", value_parser = lint_name)]
    pub allow: Vec<String>,
    /// Report LINT as a warning
    #[arg(short = 'W', long, value_name = "LINT", value_parser = lint_name)]
    pub warn: Vec<String>,
    /// Report LINT as an error (exit status 1)
    #[arg(short = 'D', long, value_name = "LINT", value_parser = lint_name)]
    pub deny: Vec<String>,
    /// List the lints with their default levels and summaries
    #[arg(long)]
    pub list: bool,
    /// Print what LINT finds, why it is a bug, a real finding, how to fix it and what it cannot
    /// decide (Markdown, as `rustc --explain` prints an error code)
    #[arg(long, value_name = "LINT", conflicts_with_all = ["files", "list", "protocol"])]
    pub explain: Option<String>,
    /// Print what the analyzer believes each kernel does instead of findings: the launch its
    /// runs use, the roles (warps with the same barrier operations) and each role's barrier
    /// operations with loops folded, then what the runs found and could not decide
    #[arg(long, conflicts_with = "format")]
    pub protocol: bool,
}

/// How findings are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// `FILE:LINE:COL: error[lint]: message`, then a source excerpt and notes
    Text,
    /// One JSON object per finding and line (book/src/analyzer/formats.md)
    Json,
    /// One SARIF 2.1.0 log for all the files
    Sarif,
}

/// A lint name or `all` (clap's value parser: an unknown name is a usage error that suggests
/// the closest one).
fn lint_name(name: &str) -> Result<String, String> {
    LintConfig::default()
        .set(name, Level::Allow)
        .map(|()| name.to_string())
        .map_err(|e| e.to_string())
}

/// Runs `phasegate lint ARGS` (`args` are what follows `lint`); returns the exit status.
pub fn run(args: &[String], out: &mut String) -> u8 {
    super::run_subcommand("lint", args, out)
}

/// The levels given on the command line, in the order they were given.
fn levels(args: &LintArgs, matches: &ArgMatches) -> Vec<(String, Level)> {
    let mut levels: Vec<(usize, String, Level)> = Vec::new();
    for (id, names, level) in [
        ("allow", &args.allow, Level::Allow),
        ("warn", &args.warn, Level::Warn),
        ("deny", &args.deny, Level::Deny),
    ] {
        let indices = matches.indices_of(id).into_iter().flatten();
        levels.extend(indices.zip(names).map(|(i, n)| (i, n.clone(), level)));
    }
    levels.sort_by_key(|(i, _, _)| *i);
    levels.into_iter().map(|(_, n, l)| (n, l)).collect()
}

/// Runs `phasegate lint` on parsed arguments.
pub(crate) fn execute(args: LintArgs, matches: &ArgMatches, out: &mut String) -> u8 {
    if args.list {
        list(out);
        return 0;
    }
    if let Some(name) = &args.explain {
        return explain(name, out);
    }
    let mut config = LintConfig::default();
    for (name, level) in levels(&args, matches) {
        if let Err(e) = config.set(&name, level) {
            // Checked by the value parser already.
            out.push_str(&format!("error: {e}\n"));
            return 2;
        }
    }
    let mut status = 0;
    let mut log = sarif::Log::new();
    for path in &args.files {
        let (text, module) = match read(path) {
            Ok(read) => read,
            Err(e) => {
                status = 1;
                match args.format {
                    Format::Text if e.line > 0 => out.push_str(&format!(
                        "{path}:{}:{}: error: {}\n",
                        e.line, e.col, e.message
                    )),
                    Format::Text => out.push_str(&format!("{path}: error: {}\n", e.message)),
                    Format::Json => json_line(&JsonFinding::read_error(path, &e), out),
                    Format::Sarif => log.read_error(path, e.line, e.col, &e.message),
                }
                continue;
            }
        };
        if args.protocol {
            protocol(path, &module, &config, out);
            continue;
        }
        let findings = lint_module(&module, &config);
        if findings.iter().any(|d| d.level == Level::Deny) {
            status = 1;
        }
        match args.format {
            Format::Text => {
                let source = Source::new(&text);
                let kernels = module.entries().count();
                for d in &findings {
                    human(path, &source, kernels, d, out);
                }
                let errors = findings.iter().filter(|d| d.level == Level::Deny).count();
                let warnings = findings.iter().filter(|d| d.level == Level::Warn).count();
                let kernels = module.entries().count();
                if findings.is_empty() {
                    out.push_str(&format!(
                        "{path}: ok ({kernels} kernel{})\n",
                        if kernels == 1 { "" } else { "s" }
                    ));
                } else {
                    out.push_str(&format!(
                        "{path}: {errors} error{}, {warnings} warning{}\n",
                        if errors == 1 { "" } else { "s" },
                        if warnings == 1 { "" } else { "s" }
                    ));
                }
            }
            Format::Json => {
                for d in &findings {
                    json_line(&JsonFinding::new(path, d), out);
                }
            }
            Format::Sarif => {
                for d in &findings {
                    log.finding(path, d);
                }
            }
        }
    }
    if args.format == Format::Sarif {
        out.push_str(&log.to_json());
        out.push('\n');
    }
    status
}

fn list(out: &mut String) {
    out.push_str("lints (default level, summary):\n");
    for l in LINTS {
        out.push_str(&format!(
            "  {:<32} {:<5} {}\n",
            l.name,
            l.default.name(),
            l.summary
        ));
    }
}

/// `--explain LINT`: the lint's documentation; an unknown name is a usage error that names the
/// known lints.
fn explain(name: &str, out: &mut String) -> u8 {
    match crate::lints::lints::explain(name) {
        Ok(text) => {
            out.push_str(text);
            if !text.ends_with('\n') {
                out.push('\n');
            }
            0
        }
        Err(e) => {
            out.push_str(&format!("error: {e}\n"));
            let names: Vec<&str> = LINTS.iter().map(|l| l.name).collect();
            out.push_str(&format!("the lints are: {}\n", names.join(", ")));
            2
        }
    }
}

/// Why a file was not linted: where (line 0 when the file did not read as text) and what.
struct ReadError {
    line: u32,
    col: u32,
    message: String,
}

/// Reads a file as text and as a module.
fn read(path: &str) -> Result<(String, ptx::Module), ReadError> {
    let text = super::read_text(path).map_err(|message| ReadError {
        line: 0,
        col: 0,
        message,
    })?;
    match ptx::parse(&text) {
        Ok(module) => Ok((text, module)),
        Err(e) => Err(ReadError {
            line: e.line,
            col: e.col,
            message: e.message,
        }),
    }
}

fn source_text(s: &Option<SourceLoc>) -> String {
    s.as_ref().map(|s| format!(" ({s})")).unwrap_or_default()
}

/// A finding in the human format: the `FILE:LINE:COL: level[lint]: message` line, the kernel
/// and CUDA source position, the PTX excerpt with the finding and its related places marked,
/// then the notes.
/// `kernels`: how many entries the module has (a replay names its kernel when there are several).
fn human(path: &str, source: &Source, kernels: usize, d: &Diagnostic, out: &mut String) {
    out.push_str(&format!(
        "{path}:{}:{}: {}[{}]: {}\n",
        d.span.line,
        d.span.col,
        d.level.as_str(),
        d.lint,
        d.message
    ));
    match &d.source {
        Some(s) => out.push_str(&format!("  --> {s} (in kernel `{}`)\n", d.function)),
        None => out.push_str(&format!("  --> in kernel `{}`\n", d.function)),
    }
    let excerpt = excerpt(source, d);
    out.push_str(&excerpt);
    // Related places the excerpt could not show keep their own line.
    for r in &d.related {
        if excerpt.is_empty() || source.statement(r.span.line, r.span.col).is_none() {
            out.push_str(&format!(
                "  {path}:{}:{}: note: {}{}\n",
                r.span.line,
                r.span.col,
                r.message,
                source_text(&r.source)
            ));
        }
    }
    for n in &d.notes {
        out.push_str(&format!("  = note: {n}\n"));
    }
    if let Some(w) = &d.witness {
        witness(path, kernels, w, out);
    }
}

/// `--protocol`: per kernel, the launch of its runs, its roles and their barrier operations,
/// and what the runs found.
fn protocol(path: &str, module: &crate::ptx::Module, config: &LintConfig, out: &mut String) {
    for (kernel, proof) in crate::lints::witness_runs(module, config) {
        out.push_str(&format!(
            "{path}: kernel `{kernel}`
"
        ));
        if proof.launch.is_empty() {
            out.push_str(
                "  no launch runs it
",
            );
        } else {
            out.push_str(&format!(
                "  launch: {}; {} runs
",
                proof.launch, proof.runs
            ));
        }
        out.push_str(&proof.skeleton.to_string());
        for p in &proof.findings {
            out.push_str(&format!(
                "  found: [{}] at line {}: {}
",
                p.lint.name,
                p.witness.steps.last().map_or(0, |s| s.span.line),
                p.message
            ));
        }
        for u in &proof.unproven {
            out.push_str(&format!(
                "  cannot decide: {u}
"
            ));
        }
    }
}

/// A witness in the human format: the launch, the numbered steps with their PTX lines (and
/// source lines from `.loc`), what the run assumes, and how to replay it.
fn witness(path: &str, kernels: usize, w: &crate::lints::Witness, out: &mut String) {
    out.push_str(&format!(
        "  = witness: a run that breaks the rule ({})\n",
        w.launch
    ));
    for s in &w.steps {
        if s.number == 0 {
            out.push_str(&format!("      {}\n", s.event));
            continue;
        }
        let n = s.number;
        let at = if s.span.line > 0 {
            format!("{path}:{}", s.span.line)
        } else {
            format!("in `{}`", s.function)
        };
        out.push_str(&format!(
            "    {n:>3}. {at}{}: {}: {}\n",
            source_text(&s.source),
            s.who,
            s.event
        ));
    }
    for a in &w.assumptions {
        out.push_str(&format!("      assuming {a}\n"));
    }
    if !w.replay.is_empty() {
        out.push_str(&format!(
            "      replay: phasegate sim {path}{} --witness {}\n",
            if kernels > 1 {
                format!(" --kernel {}", w.kernel)
            } else {
                String::new()
            },
            w.replay
        ));
    }
}

/// A PTX file's text and where its lines start.
struct Source<'a> {
    text: &'a str,
    /// The byte offset of each line's start.
    starts: Vec<usize>,
}

impl<'a> Source<'a> {
    fn new(text: &'a str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Source { text, starts }
    }

    /// The byte range of line LINE (1-based) without its newline.
    fn line(&self, line: usize) -> Option<std::ops::Range<usize>> {
        let start = *self.starts.get(line.checked_sub(1)?)?;
        let end = self
            .starts
            .get(line)
            .map(|e| e - 1)
            .unwrap_or(self.text.len());
        Some(start..end)
    }

    /// The byte range of the statement at LINE:COL (1-based, columns in characters): from the
    /// column to its `;` on that line, or to the line's end without a trailing comment.
    fn statement(&self, line: u32, col: u32) -> Option<std::ops::Range<usize>> {
        let range = self.line(line as usize)?;
        let line_text = &self.text[range.clone()];
        let from = line_text
            .char_indices()
            .nth(col.saturating_sub(1) as usize)
            .map(|(i, _)| i)?;
        let rest = &line_text[from..];
        let len = match rest.find(';') {
            Some(i) => i + 1,
            None => rest.find("//").unwrap_or(rest.len()),
        };
        let len = rest[..len].trim_end().len().max(1).min(rest.len());
        Some(range.start + from..range.start + from + len)
    }
}

/// The PTX lines of a finding and of its related places, drawn as rustc draws them (empty when
/// the finding has no position in the text).
fn excerpt(source: &Source, d: &Diagnostic) -> String {
    let Some(primary) = source.statement(d.span.line, d.span.col) else {
        return String::new();
    };
    // (line, byte range in the text, label)
    let mut marks = vec![(d.span.line, primary, None)];
    for r in &d.related {
        if let Some(range) = source.statement(r.span.line, r.span.col) {
            let label = format!("{}{}", r.message, source_text(&r.source));
            marks.push((r.span.line, range, Some(label)));
        }
    }
    // Only the lines from the first to the last marked one go to the renderer.
    let first = marks.iter().map(|m| m.0).min().expect("one mark") as usize;
    let last = marks.iter().map(|m| m.0).max().expect("one mark") as usize;
    let from = source.line(first).expect("a marked line").start;
    let to = source.line(last).expect("a marked line").end;
    let annotations = marks.into_iter().enumerate().map(|(i, (_, range, label))| {
        let kind = if i == 0 {
            AnnotationKind::Primary
        } else {
            AnnotationKind::Context
        };
        kind.span(range.start - from..range.end - from).label(label)
    });
    let snippet = Snippet::source(&source.text[from..to])
        .line_start(first)
        .fold(true)
        .annotations(annotations);
    let level = match d.level {
        Level::Deny => annotate_snippets::Level::ERROR,
        Level::Warn => annotate_snippets::Level::WARNING,
        Level::Allow => annotate_snippets::Level::NOTE,
    };
    let report = [Group::with_level(level).element(snippet)];
    let mut rendered = Renderer::plain().render(&report);
    rendered.push('\n');
    rendered
}

/// One line of `--format json` (book/src/analyzer/formats.md): a finding, or a file that did not read
/// (`"lint": "read"`).
#[derive(Serialize)]
struct JsonFinding<'a> {
    file: &'a str,
    lint: &'a str,
    level: &'a str,
    kernel: Option<&'a str>,
    line: u32,
    column: u32,
    message: &'a str,
    source_file: Option<&'a str>,
    source_line: Option<u32>,
    related: Vec<JsonRelated<'a>>,
    notes: &'a [String],
    /// The run that breaks the rule (absent for findings without one: warnings, unproven).
    #[serde(skip_serializing_if = "Option::is_none")]
    witness: Option<JsonWitness<'a>>,
}

#[derive(Serialize)]
struct JsonWitness<'a> {
    kernel: &'a str,
    launch: &'a str,
    replay: &'a str,
    steps: Vec<JsonStep<'a>>,
    /// How many events the steps leave out between the first ones and the last ones.
    omitted: usize,
    assumptions: &'a [String],
}

#[derive(Serialize)]
struct JsonStep<'a> {
    number: usize,
    line: u32,
    column: u32,
    function: &'a str,
    who: &'a str,
    event: &'a str,
    source_file: Option<&'a str>,
    source_line: Option<u32>,
}

impl<'a> JsonWitness<'a> {
    fn new(w: &'a crate::lints::Witness) -> Self {
        let steps: Vec<JsonStep<'a>> = w
            .steps
            .iter()
            .filter(|s| s.number > 0)
            .map(|s| JsonStep {
                number: s.number,
                line: s.span.line,
                column: s.span.col,
                function: &s.function,
                who: &s.who,
                event: &s.event,
                source_file: s.source.as_ref().map(|x| x.file.as_str()),
                source_line: s.source.as_ref().map(|x| x.line),
            })
            .collect();
        let omitted = steps
            .last()
            .map_or(0, |last| last.number.saturating_sub(steps.len()));
        JsonWitness {
            kernel: &w.kernel,
            launch: &w.launch,
            replay: &w.replay,
            steps,
            omitted,
            assumptions: &w.assumptions,
        }
    }
}

#[derive(Serialize)]
struct JsonRelated<'a> {
    line: u32,
    column: u32,
    message: &'a str,
    source_file: Option<&'a str>,
    source_line: Option<u32>,
}

impl<'a> JsonFinding<'a> {
    fn new(path: &'a str, d: &'a Diagnostic) -> Self {
        JsonFinding {
            file: path,
            lint: d.lint,
            level: d.level.name(),
            kernel: Some(&d.function),
            line: d.span.line,
            column: d.span.col,
            message: &d.message,
            source_file: d.source.as_ref().map(|s| s.file.as_str()),
            source_line: d.source.as_ref().map(|s| s.line),
            related: d
                .related
                .iter()
                .map(|r| JsonRelated {
                    line: r.span.line,
                    column: r.span.col,
                    message: &r.message,
                    source_file: r.source.as_ref().map(|s| s.file.as_str()),
                    source_line: r.source.as_ref().map(|s| s.line),
                })
                .collect(),
            notes: &d.notes,
            witness: d.witness.as_ref().map(JsonWitness::new),
        }
    }

    fn read_error(path: &'a str, e: &'a ReadError) -> Self {
        JsonFinding {
            file: path,
            lint: "read",
            level: Level::Deny.name(),
            kernel: None,
            line: e.line,
            column: e.col,
            message: &e.message,
            source_file: None,
            source_line: None,
            related: Vec::new(),
            notes: &[],
            witness: None,
        }
    }
}

fn json_line(finding: &JsonFinding, out: &mut String) {
    out.push_str(&serde_json::to_string(finding).expect("JSON of a finding"));
    out.push('\n');
}
