//! `phasegate lint`: the barrier analyzer on PTX files, ours or nvcc's.
//!
//! ```text
//! phasegate lint [--format text|json] [--allow LINT] [--warn LINT] [--deny LINT] FILE.ptx...
//! phasegate lint --list
//! ```
//!
//! Text output is one `FILE:LINE:COL: error[lint]: message` per finding, then the kernel and
//! the CUDA source position (from `.loc`), the other places the finding is about, and notes.
//! `--format json` prints one JSON object per finding and line. `LINT` may be `all`. Exit
//! status: 1 when a deny-level finding (or a file that cannot be read) was reported, 2 on usage
//! errors, 0 otherwise.

use crate::lints::{Diagnostic, LINTS, Level, LintConfig, SourceLoc, lint_module};
use crate::ptx;

pub const USAGE: &str = "\
usage: phasegate lint [--format text|json] [--allow LINT] [--warn LINT] [--deny LINT] FILE.ptx...
       phasegate lint --list

Runs the barrier analyzer on PTX files. LINT is a lint name or `all`; options apply in order.
exit status: 1 when a deny-level finding or a read error was reported, 2 on usage errors, else 0
";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

/// Runs `phasegate lint ARGS` (`args` are what follows `lint`); returns the exit status.
pub fn run(args: &[String], out: &mut String) -> u8 {
    let mut config = LintConfig::default();
    let mut format = Format::Text;
    let mut files: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        // `--opt value` or `--opt=value`.
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v)),
            _ => (arg, None),
        };
        let mut value = || -> Option<&str> {
            if let Some(v) = inline {
                return Some(v);
            }
            i += 1;
            args.get(i).map(String::as_str)
        };
        match flag {
            "--help" | "-h" => {
                out.push_str(USAGE);
                return 0;
            }
            "--list" => {
                list(out);
                return 0;
            }
            "--format" => match value() {
                Some("text") => format = Format::Text,
                Some("json") => format = Format::Json,
                Some(other) => {
                    return usage(
                        out,
                        &format!("unknown format `{other}` (expected `text` or `json`)"),
                    );
                }
                None => return usage(out, "`--format` needs `text` or `json`"),
            },
            "--allow" | "--warn" | "--deny" | "-A" | "-W" | "-D" => {
                let level = match flag {
                    "--allow" | "-A" => Level::Allow,
                    "--warn" | "-W" => Level::Warn,
                    _ => Level::Deny,
                };
                let Some(name) = value() else {
                    return usage(out, &format!("`{flag}` needs a lint name"));
                };
                if let Err(e) = config.set(name, level) {
                    return usage(out, &e.to_string());
                }
            }
            _ if arg.starts_with('-') && arg.len() > 1 => {
                return usage(out, &format!("unknown option `{arg}`"));
            }
            _ => files.push(arg),
        }
        i += 1;
    }
    if files.is_empty() {
        return usage(out, "`lint` needs at least one FILE.ptx");
    }
    let mut status = 0;
    for path in files {
        let Some(module) = read(path, out, format) else {
            status = 1;
            continue;
        };
        let findings = lint_module(&module, &config);
        if findings.iter().any(|d| d.level == Level::Deny) {
            status = 1;
        }
        match format {
            Format::Text => {
                for d in &findings {
                    text(path, d, out);
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
                    json(path, d, out);
                }
            }
        }
    }
    status
}

fn usage(out: &mut String, message: &str) -> u8 {
    out.push_str(&format!("error: {message}\n\n{USAGE}"));
    2
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

/// Reads a file as a module; a read error is reported as `FILE:LINE:COL: error: ...` (or as a
/// JSON object with `"lint": "read"`).
fn read(path: &str, out: &mut String, format: Format) -> Option<ptx::Module> {
    let fail = |out: &mut String, line: u32, col: u32, message: String| {
        match format {
        Format::Text if line > 0 => out.push_str(&format!("{path}:{line}:{col}: error: {message}\n")),
        Format::Text => out.push_str(&format!("{path}: error: {message}\n")),
        Format::Json => out.push_str(&format!(
            "{{\"file\":{},\"lint\":\"read\",\"level\":\"deny\",\"kernel\":null,\"line\":{line},\"column\":{col},\"message\":{}}}\n",
            quote(path),
            quote(&message)
        )),
    }
    };
    let text = match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                fail(
                    out,
                    0,
                    0,
                    format!(
                        "not UTF-8 text (invalid byte at offset {})",
                        e.utf8_error().valid_up_to()
                    ),
                );
                return None;
            }
        },
        Err(e) => {
            fail(out, 0, 0, format!("cannot read: {e}"));
            return None;
        }
    };
    match ptx::parse(&text) {
        Ok(module) => Some(module),
        Err(e) => {
            fail(out, e.line, e.col, e.message);
            None
        }
    }
}

fn source_text(s: &Option<SourceLoc>) -> String {
    s.as_ref().map(|s| format!(" ({s})")).unwrap_or_default()
}

fn text(path: &str, d: &Diagnostic, out: &mut String) {
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
    for r in &d.related {
        out.push_str(&format!(
            "  {path}:{}:{}: note: {}{}\n",
            r.span.line,
            r.span.col,
            r.message,
            source_text(&r.source)
        ));
    }
    for n in &d.notes {
        out.push_str(&format!("  = note: {n}\n"));
    }
}

/// A JSON string literal.
fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\r' => q.push_str("\\r"),
            '\t' => q.push_str("\\t"),
            c if (c as u32) < 0x20 => q.push_str(&format!("\\u{:04x}", c as u32)),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

fn json_source(s: &Option<SourceLoc>) -> String {
    match s {
        Some(s) => format!(
            "\"source_file\":{},\"source_line\":{}",
            quote(&s.file),
            s.line
        ),
        None => "\"source_file\":null,\"source_line\":null".to_string(),
    }
}

fn json(path: &str, d: &Diagnostic, out: &mut String) {
    let related: Vec<String> = d
        .related
        .iter()
        .map(|r| {
            format!(
                "{{\"line\":{},\"column\":{},\"message\":{},{}}}",
                r.span.line,
                r.span.col,
                quote(&r.message),
                json_source(&r.source)
            )
        })
        .collect();
    let notes: Vec<String> = d.notes.iter().map(|n| quote(n)).collect();
    out.push_str(&format!(
        "{{\"file\":{},\"lint\":{},\"level\":{},\"kernel\":{},\"line\":{},\"column\":{},\"message\":{},{},\"related\":[{}],\"notes\":[{}]}}\n",
        quote(path),
        quote(d.lint),
        quote(d.level.name()),
        quote(&d.function),
        d.span.line,
        d.span.col,
        quote(&d.message),
        json_source(&d.source),
        related.join(","),
        notes.join(",")
    ));
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(quote("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
    }
}
