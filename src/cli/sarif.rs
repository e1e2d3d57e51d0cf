//! `phasegate lint --format sarif`: one SARIF 2.1.0 log (OASIS, the format GitHub code
//! scanning and editors read) for all the files of a run.
//!
//! - `runs[0].tool.driver`: `phasegate`, its version, and one rule per lint
//!   ([`crate::lints::LINTS`], then `analysis_limit` and `read`): the lint's name as `id`, its
//!   summary as `shortDescription`, its default level as `defaultConfiguration.level`, and the
//!   PTX ISA section its findings' notes cite (`properties.ptxIsaSections`, and in the
//!   descriptions);
//! - `runs[0].results`: one per finding, with `ruleId`/`ruleIndex`, `level` (`error`,
//!   `warning` or `note`), the message (notes appended), the PTX file and line/column in
//!   `locations`, and the why-chain (the finding's related places) and the CUDA source position
//!   (from `.loc`) in `relatedLocations`; a finding's witness is its `codeFlows` (one thread
//!   flow of the run's numbered steps; the replay string in its `properties`). A file that
//!   does not read is a result of rule `read`.
//!
//! Columns count Unicode code points (`columnKind`); file paths become URIs: relative paths stay
//! relative (percent-encoded), absolute ones are `file://` URIs.

use crate::lints::{ANALYSIS_LIMIT, Diagnostic, LINTS, Level};
use serde_json::{Value, json};

/// The rules that are not lints.
const EXTRA_RULES: [(&str, &str, Level); 2] = [
    (
        ANALYSIS_LIMIT,
        "a function whose loops nest too deeply to analyze; it was not analyzed",
        Level::Deny,
    ),
    (
        "read",
        "a file that does not read as PTX (not UTF-8, or a syntax error)",
        Level::Deny,
    ),
];

/// A SARIF log being filled.
pub struct Log {
    /// Rule ids in `rules` order.
    rules: Vec<(&'static str, &'static str, Level)>,
    /// For each rule, the first note of its findings that cites the PTX ISA, and the sections.
    spec: Vec<(Option<String>, Vec<String>)>,
    artifacts: Vec<String>,
    results: Vec<Value>,
}

impl Default for Log {
    fn default() -> Self {
        Self::new()
    }
}

impl Log {
    /// An empty log whose rules are every lint and the errors that are not lints (`analysis_limit`,
    /// `read`).
    pub fn new() -> Self {
        let rules: Vec<_> = LINTS
            .iter()
            .map(|l| (l.name, l.summary, l.default))
            .chain(EXTRA_RULES)
            .collect();
        let spec = vec![(None, Vec::new()); rules.len()];
        Log {
            rules,
            spec,
            artifacts: Vec::new(),
            results: Vec::new(),
        }
    }

    fn rule_index(&self, id: &str) -> Option<usize> {
        self.rules.iter().position(|r| r.0 == id)
    }

    fn artifact_index(&mut self, path: &str) -> usize {
        match self.artifacts.iter().position(|a| a == path) {
            Some(i) => i,
            None => {
                self.artifacts.push(path.to_string());
                self.artifacts.len() - 1
            }
        }
    }

    /// A PTX location: the file (by artifact index) and, when known, line and column.
    fn ptx_location(&mut self, path: &str, line: u32, col: u32) -> Value {
        let index = self.artifact_index(path);
        let mut physical = json!({
            "artifactLocation": { "uri": uri(path), "index": index },
        });
        if line > 0 {
            physical["region"] = region(line, col);
        }
        json!({ "physicalLocation": physical })
    }

    /// Adds a finding of `path`.
    pub fn finding(&mut self, path: &str, d: &Diagnostic) {
        let rule = self.rule_index(d.lint);
        if let Some(i) = rule {
            for n in &d.notes {
                let sections = cited_sections(n);
                if sections.is_empty() {
                    continue;
                }
                let (first, all) = &mut self.spec[i];
                first.get_or_insert_with(|| n.clone());
                for s in sections {
                    if !all.contains(&s) {
                        all.push(s);
                    }
                }
            }
        }
        let mut location = self.ptx_location(path, d.span.line, d.span.col);
        location["logicalLocations"] = json!([{ "name": d.function, "kind": "function" }]);
        let mut related: Vec<Value> = Vec::new();
        for r in &d.related {
            let mut l = self.ptx_location(path, r.span.line, r.span.col);
            let text = match &r.source {
                Some(s) => format!("{} ({s})", r.message),
                None => r.message.clone(),
            };
            l["id"] = json!(related.len());
            l["message"] = json!({ "text": text });
            related.push(l);
        }
        if let Some(s) = &d.source {
            let mut physical = json!({ "artifactLocation": { "uri": uri(&s.file) } });
            if s.line > 0 {
                physical["region"] = region(s.line, s.col);
            }
            related.push(json!({
                "id": related.len(),
                "physicalLocation": physical,
                "message": { "text": "the source of this instruction (from .loc)" },
            }));
        }
        let mut text = d.message.clone();
        for n in &d.notes {
            text.push_str("\nnote: ");
            text.push_str(n);
        }
        let mut result = json!({
            "ruleId": d.lint,
            "level": level(d.level),
            "message": { "text": text },
            "locations": [location],
            "properties": { "kernel": d.function },
        });
        if let Some(i) = rule {
            result["ruleIndex"] = json!(i);
        }
        if !related.is_empty() {
            result["relatedLocations"] = Value::Array(related);
        }
        if let Some(w) = &d.witness {
            result["codeFlows"] = json!([self.code_flow(path, w)]);
        }
        self.results.push(result);
    }

    /// A witness as a code flow: one thread flow whose locations are the run's steps, in
    /// order, each on its PTX line with who did what (SARIF 2.1.0 §3.36, §3.37, §3.38).
    fn code_flow(&mut self, path: &str, w: &crate::lints::Witness) -> Value {
        let locations: Vec<Value> = w
            .steps
            .iter()
            .filter(|s| s.number > 0)
            .map(|s| {
                let mut location = if s.span.line > 0 {
                    self.ptx_location(path, s.span.line, s.span.col)
                } else {
                    json!({})
                };
                location["message"] =
                    json!({ "text": format!("{}. {}: {}", s.number, s.who, s.event) });
                location["logicalLocations"] = json!([{ "name": s.function, "kind": "function" }]);
                json!({ "location": location, "executionOrder": s.number })
            })
            .collect();
        let mut text = format!("a run that breaks the rule: {}", w.launch);
        for a in &w.assumptions {
            text.push_str("; assuming ");
            text.push_str(a);
        }
        json!({
            "message": { "text": text },
            "threadFlows": [{ "locations": locations }],
            "properties": { "replay": w.replay },
        })
    }

    /// Adds a file that did not read (line 0 when it did not read as text).
    pub fn read_error(&mut self, path: &str, line: u32, col: u32, message: &str) {
        let location = self.ptx_location(path, line, col);
        let index = self.rule_index("read").expect("the read rule");
        self.results.push(json!({
            "ruleId": "read",
            "ruleIndex": index,
            "level": "error",
            "message": { "text": message },
            "locations": [location],
        }));
    }

    /// The log as JSON text.
    pub fn to_json(&self) -> String {
        let rules: Vec<Value> = self
            .rules
            .iter()
            .zip(&self.spec)
            .map(|(&(id, summary, default), (note, sections))| {
                let mut full = format!("{summary}.");
                let mut help = format!(
                    "Default level: {}. Change it with `phasegate lint --allow {id}` (or --warn, --deny).",
                    default.name()
                );
                if let Some(note) = note {
                    full.push(' ');
                    full.push_str(note);
                    help.push_str(" See ");
                    help.push_str(
                        &sections
                            .iter()
                            .map(|s| format!("PTX ISA §{s}"))
                            .collect::<Vec<_>>()
                            .join(", "),
                    );
                    help.push('.');
                }
                let mut rule = json!({
                    "id": id,
                    "name": id,
                    "shortDescription": { "text": summary },
                    "fullDescription": { "text": full },
                    "help": { "text": help },
                    "defaultConfiguration": { "level": default_level(default) },
                });
                if !sections.is_empty() {
                    rule["properties"] = json!({ "ptxIsaSections": sections });
                }
                rule
            })
            .collect();
        let artifacts: Vec<Value> = self
            .artifacts
            .iter()
            .map(|a| json!({ "location": { "uri": uri(a) } }))
            .collect();
        let log = json!({
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [{
                "tool": {
                    "driver": {
                        "name": "phasegate",
                        "version": env!("CARGO_PKG_VERSION"),
                        "semanticVersion": env!("CARGO_PKG_VERSION"),
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "artifacts": artifacts,
                "results": self.results,
            }],
        });
        serde_json::to_string_pretty(&log).expect("JSON of a SARIF log")
    }
}

fn region(line: u32, col: u32) -> Value {
    let mut r = json!({ "startLine": line });
    if col > 0 {
        r["startColumn"] = json!(col);
    }
    r
}

fn level(l: Level) -> &'static str {
    match l {
        Level::Deny => "error",
        Level::Warn => "warning",
        Level::Allow => "note",
    }
}

fn default_level(l: Level) -> &'static str {
    match l {
        Level::Deny => "error",
        Level::Warn => "warning",
        Level::Allow => "none",
    }
}

/// The PTX ISA sections a note cites: `PTX ISA §9.7.13.15.5-6: ...` gives `9.7.13.15.5-6`.
fn cited_sections(note: &str) -> Vec<String> {
    note.match_indices("PTX ISA §")
        .map(|(i, m)| {
            note[i + m.len()..]
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == '-')
                .collect::<String>()
                .trim_end_matches(['.', '-'])
                .to_string()
        })
        .filter(|s| !s.is_empty())
        .collect()
}

/// A file path as a URI reference: `file:///abs/path` for an absolute path, a relative
/// reference (forward slashes) otherwise; everything but unreserved characters and `/` is
/// percent-encoded.
pub fn uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let absolute = path.starts_with('/');
    let mut out = String::from(if absolute { "file://" } else { "" });
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{cited_sections, uri};

    #[test]
    fn sections_and_uris() {
        assert_eq!(
            cited_sections("PTX ISA §9.7.13.15.5-6: a phase completes. PTX ISA §8."),
            ["9.7.13.15.5-6", "8"]
        );
        assert!(cited_sections("no citation").is_empty());
        assert_eq!(uri("/tmp/a b/k.ptx"), "file:///tmp/a%20b/k.ptx");
        assert_eq!(uri("tests/x:y.ptx"), "tests/x%3Ay.ptx");
    }
}
