//! The analyzer inside `#[kernel]`: findings on the PTX become rustc errors (deny) or
//! warnings (warn) on the Rust tokens that produced the instruction, with the other side of
//! each finding named by its line and column. The analyzer's explanation of why a value is
//! divergent names PTX registers (`%p1`, `%tid.x`); here it names what the kernel's source
//! calls them: the Rust variable a register holds, or the expression that computed it.

use crate::diag::Diagnostics;
use crate::lower::{CallSite, RegNames, SourceText};
use phasegate_lints::diagnostic::{WhyCause, WhyStep};
use phasegate_lints::uniformity::Level as Uniform;
use phasegate_lints::{Diagnostic, Level, LintConfig};
use phasegate_ptx::Module;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote_spanned};
use std::cell::OnceCell;

/// The kernel's Rust side of a lowered function.
pub struct Kernel<'a> {
    /// The Rust span of each statement of the function's body.
    pub spans: &'a [Span],
    /// The Rust name of each register.
    pub names: &'a RegNames,
    /// The kernel's body, to read expressions back from.
    pub body: &'a syn::Block,
    /// The device functions inlined into it (expressions are read back from them too).
    pub devices: &'a [&'a syn::ItemFn],
    /// For each statement, the device-function call it was inlined from.
    pub sites: &'a [Option<u32>],
    pub call_sites: &'a [CallSite],
}

/// Lints `entry` of `module`, lowered from `kernel`. Denied findings go to `diag`; warnings
/// come back as tokens that make rustc warn.
pub fn run(
    module: &Module,
    entry: &str,
    kernel: &Kernel,
    config: &LintConfig,
    diag: &mut Diagnostics,
) -> TokenStream {
    let Some(function) = module.function(entry) else {
        return TokenStream::new();
    };
    let spans = kernel.spans;
    // Read only when a finding explains a value.
    let source = OnceCell::new();
    let mut warnings = TokenStream::new();
    for (n, d) in phasegate_lints::lint_function(module, function, config)
        .into_iter()
        .enumerate()
    {
        let span = d
            .stmt
            .and_then(|s| spans.get(s.index()).copied())
            .unwrap_or_else(Span::call_site);
        let mut text = message(&d, kernel, &source);
        if let Some(s) = d.stmt {
            text.push_str(&inlined_from(kernel, s.index()));
        }
        match d.level {
            Level::Deny => diag.error(span, text),
            Level::Warn => warnings.extend(warning(span, &text, n)),
            Level::Allow => {}
        }
    }
    warnings
}

/// `message (phasegate::lint)`, then the related places and notes.
fn message(d: &Diagnostic, kernel: &Kernel, source: &OnceCell<SourceText>) -> String {
    let mut text = format!("{} (phasegate::{})", d.message, d.lint);
    for r in &d.related {
        let at = kernel
            .spans
            .get(r.stmt.index())
            .map(|s| s.start())
            .filter(|lc| lc.line > 0);
        let note = match r.why() {
            Some(step) => {
                let source = source.get_or_init(|| source_text(kernel));
                match explain(&step, kernel.names, source) {
                    Some(note) if at.is_none() && step.line > 0 => {
                        format!("{note} at line {}", step.line)
                    }
                    Some(note) => note,
                    None => continue,
                }
            }
            None => r.message.clone(),
        };
        match at {
            Some(lc) => text.push_str(&format!(
                "\n  = note: {note} (line {}, column {})",
                lc.line,
                lc.column + 1
            )),
            None => text.push_str(&format!("\n  = note: {note}")),
        }
    }
    for note in &d.notes {
        text.push_str(&format!("\n  = note: {note}"));
    }
    if let Some(w) = &d.witness {
        text.push_str(&witness(w, kernel));
    }
    text
}

/// A witness on the kernel's own lines: each step at the Rust tokens that made its
/// instruction (line and column in the kernel's file).
fn witness(w: &phasegate_lints::Witness, kernel: &Kernel) -> String {
    let mut text = format!("\n  = witness: a run that breaks the rule ({})", w.launch);
    for s in &w.steps {
        if s.number == 0 {
            text.push_str(&format!("\n      {}", s.event));
            continue;
        }
        let at = kernel
            .spans
            .get(s.stmt.index())
            .map(|sp| sp.start())
            .filter(|lc| lc.line > 0)
            .map(|lc| format!("line {}, column {}", lc.line, lc.column + 1))
            .unwrap_or_else(|| format!("PTX line {}", s.span.line));
        text.push_str(&format!(
            "\n    {:>3}. {at}: {}: {}",
            s.number, s.who, s.event
        ));
    }
    for a in &w.assumptions {
        text.push_str(&format!("\n      assuming {a}"));
    }
    text
}

/// A step of the analyzer's explanation in the kernel's terms: "`t` (divergent) reads
/// `thread_idx_x()`, which differs between threads" for "`%r1` (divergent) reads `%tid.x`".
/// None for a step that says nothing in Rust (`i` computed from `i`: a read of a mutable
/// variable). The place is the note's own (the caller adds it).
fn explain(step: &WhyStep, names: &RegNames, source: &SourceText) -> Option<String> {
    let subject = names.name(&step.subject, source);
    let level = step.level_text();
    Some(match &step.cause {
        WhyCause::Special(register) => {
            let call = match crate::builtins::special_function(register) {
                Some(f) => format!("`{f}()`"),
                None => format!("`{register}`"),
            };
            let differs = match step.level {
                Uniform::Thread => "differs between threads",
                Uniform::Warp => "differs between warps",
                Uniform::Cta => "differs between the CTAs of a cluster",
                Uniform::Cluster => "is the same in every thread",
            };
            if subject.to_string() == call {
                format!("{call} ({level}) {differs}")
            } else {
                format!("{subject} ({level}) reads {call}, which {differs}")
            }
        }
        WhyCause::From(register) => {
            let from = names.name(register, source);
            if from == subject {
                return None;
            }
            format!("{subject} ({level}) is computed from {from}")
        }
        WhyCause::Op(what) => format!("{subject} ({level}) is {what}"),
        WhyCause::Control(condition) => format!(
            "{subject} ({level}) is assigned under a branch whose condition is {}",
            condition.describe()
        ),
    })
}

/// The kernel's tokens and those of the device functions defined in its file (positions in
/// other files could be mistaken for the kernel's).
fn source_text(kernel: &Kernel) -> SourceText {
    let file = kernel.spans.first().map(|s| s.file());
    let mut tokens = quote::ToTokens::to_token_stream(kernel.body);
    for f in kernel.devices {
        if Some(f.sig.ident.span().file()) == file {
            tokens.extend(quote::ToTokens::to_token_stream(*f));
        }
    }
    SourceText::new(&tokens)
}

/// `= note: in device function `f`, inlined from the call at line L, column C` for each call
/// the statement was inlined through, innermost first.
fn inlined_from(kernel: &Kernel, stmt: usize) -> String {
    let mut out = String::new();
    let mut site = kernel.sites.get(stmt).copied().flatten();
    while let Some(c) = site.and_then(|s| kernel.call_sites.get(s as usize)) {
        let at = c.span.start();
        out.push_str(&format!(
            "\n  = note: in device function `{}`, inlined from the call at line {}, column {}",
            c.name,
            at.line,
            at.column + 1
        ));
        site = c.parent;
    }
    out
}

/// A warning on stable Rust: the use of a deprecated item whose note is the finding.
fn warning(span: Span, text: &str, n: usize) -> TokenStream {
    let name = format_ident!("phasegate_warning_{}", n, span = span);
    let note = format!("\n{text}");
    quote_spanned! {span=>
        const _: () = {
            #[deprecated(note = #note)]
            #[allow(non_upper_case_globals)]
            const #name: () = ();
            #name
        };
    }
}
