//! Chrome trace JSON (the Trace Event Format), which Perfetto and `chrome://tracing` open: one
//! process per CTA (and per cluster for its barrier and copies), one thread per track.
//! Timestamps are simulated cycles written as microseconds.

use super::{EventKind, Trace};
use std::fmt::Write;

/// A JSON string literal.
pub(crate) fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Trace {
    /// The timeline as Chrome trace JSON.
    pub fn chrome_json(&self) -> String {
        let mut groups: Vec<&str> = Vec::new();
        for t in &self.tracks {
            if !groups.contains(&t.group.as_str()) {
                groups.push(&t.group);
            }
        }
        let pid = |group: &str| groups.iter().position(|g| *g == group).unwrap_or(0) + 1;
        let mut items = Vec::new();
        for (i, g) in groups.iter().enumerate() {
            items.push(format!(
                "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"name\":{}}}}}",
                i + 1,
                json_str(g)
            ));
        }
        for (i, t) in self.tracks.iter().enumerate() {
            items.push(format!("{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":{}}}}}", pid(&t.group), i + 1, json_str(&t.name)));
            items.push(format!("{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"sort_index\":{}}}}}", pid(&t.group), i + 1, i));
        }
        for e in &self.events {
            let t = &self.tracks[e.track];
            let (p, tid) = (pid(&t.group), e.track + 1);
            let item = match e.kind {
                EventKind::Run | EventKind::Copy | EventKind::Wait => {
                    let cat = match e.kind {
                        EventKind::Run => "run",
                        EventKind::Wait => "wait",
                        _ => "async",
                    };
                    format!(
                        "{{\"name\":{},\"cat\":\"{cat}\",\"ph\":\"X\",\"ts\":{},\"dur\":{},\"pid\":{p},\"tid\":{tid}}}",
                        json_str(&e.label),
                        e.start,
                        e.end - e.start
                    )
                }
                EventKind::Barrier | EventKind::Phase => {
                    let cat = if e.kind == EventKind::Barrier {
                        "barrier"
                    } else {
                        "phase"
                    };
                    format!(
                        "{{\"name\":{},\"cat\":\"{cat}\",\"ph\":\"i\",\"s\":\"t\",\"ts\":{},\"pid\":{p},\"tid\":{tid}}}",
                        json_str(&e.label),
                        e.start
                    )
                }
            };
            items.push(item);
        }
        format!(
            "{{\"displayTimeUnit\":\"ns\",\"otherData\":{{\"producer\":\"phasegate sim\",\"time_unit\":\"simulated cycles\"}},\"traceEvents\":[\n{}\n]}}\n",
            items.join(",\n")
        )
    }
}
