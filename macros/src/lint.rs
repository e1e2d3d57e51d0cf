//! The analyzer inside `#[kernel]`: findings on the PTX become rustc errors (deny) or
//! warnings (warn) on the Rust tokens that produced the instruction, with the other side of
//! each finding named by its line and column.

use crate::diag::Diagnostics;
use phasegate_lints::{Diagnostic, Level, LintConfig};
use phasegate_ptx::Module;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote_spanned};

/// Lints `entry` of `module`; `spans` gives the Rust span of each statement of its body.
/// Denied findings go to `diag`; warnings come back as tokens that make rustc warn.
pub fn run(
    module: &Module,
    entry: &str,
    spans: &[Span],
    config: &LintConfig,
    diag: &mut Diagnostics,
) -> TokenStream {
    let Some(function) = module.function(entry) else {
        return TokenStream::new();
    };
    let mut warnings = TokenStream::new();
    for (n, d) in phasegate_lints::lint_function(module, function, config)
        .into_iter()
        .enumerate()
    {
        let span = d
            .stmt
            .and_then(|s| spans.get(s.index()).copied())
            .unwrap_or_else(Span::call_site);
        let text = message(&d, spans);
        match d.level {
            Level::Deny => diag.error(span, text),
            Level::Warn => warnings.extend(warning(span, &text, n)),
            Level::Allow => {}
        }
    }
    warnings
}

/// `message (phasegate::lint)`, then the related places and notes.
fn message(d: &Diagnostic, spans: &[Span]) -> String {
    let mut text = format!("{} (phasegate::{})", d.message, d.lint);
    for r in &d.related {
        let at = spans.get(r.stmt.index()).map(|s| s.start());
        match at {
            Some(lc) if lc.line > 0 => text.push_str(&format!(
                "\n  = note: {} (line {}, column {})",
                r.message,
                lc.line,
                lc.column + 1
            )),
            _ => text.push_str(&format!("\n  = note: {}", r.message)),
        }
    }
    for note in &d.notes {
        text.push_str(&format!("\n  = note: {note}"));
    }
    text
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
