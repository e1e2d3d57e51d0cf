//! An SVG picture of the timeline: one row per track, warp time slices as bars, barrier
//! operations as ticks, phase completions as red marks, copies as spans.

use super::{EventKind, Trace};
use std::fmt::Write;

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

impl Trace {
    /// The timeline as a standalone SVG document.
    pub fn svg(&self) -> String {
        const LEFT: f64 = 220.0;
        const WIDTH: f64 = 1000.0;
        const ROW: f64 = 18.0;
        const TOP: f64 = 30.0;
        let end = self.end_time().max(1) as f64;
        let x = |t: u64| LEFT + t as f64 / end * WIDTH;
        let height = TOP + ROW * self.tracks.len() as f64 + 30.0;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height}\" font-family=\"monospace\" font-size=\"11\">",
            LEFT + WIDTH + 20.0
        );
        let _ = writeln!(out, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
        let _ = writeln!(
            out,
            "<text x=\"4\" y=\"16\" font-size=\"13\">phasegate sim timeline: {} simulated cycles (blue: running, grey: waiting, orange: barrier operation, red: phase completes, green: async copy)</text>",
            end as u64
        );
        for (i, t) in self.tracks.iter().enumerate() {
            let y = TOP + ROW * i as f64;
            if i % 2 == 0 {
                let _ = writeln!(
                    out,
                    "<rect x=\"0\" y=\"{y}\" width=\"{}\" height=\"{ROW}\" fill=\"#f4f4f4\"/>",
                    LEFT + WIDTH + 20.0
                );
            }
            let _ = writeln!(
                out,
                "<text x=\"4\" y=\"{}\">{}</text>",
                y + 13.0,
                xml(&t.name)
            );
        }
        for e in &self.events {
            let y = TOP + ROW * e.track as f64;
            let title = format!("<title>{} [{}..{}]</title>", xml(&e.label), e.start, e.end);
            match e.kind {
                EventKind::Run | EventKind::Copy | EventKind::Wait => {
                    let color = match e.kind {
                        EventKind::Run => "#4a7fd4",
                        EventKind::Wait => "#c8c8c8",
                        _ => "#3aa655",
                    };
                    let w = (x(e.end) - x(e.start)).max(0.5);
                    let _ = writeln!(
                        out,
                        "<rect x=\"{:.2}\" y=\"{}\" width=\"{w:.2}\" height=\"{}\" fill=\"{color}\">{title}</rect>",
                        x(e.start),
                        y + 3.0,
                        ROW - 6.0
                    );
                }
                EventKind::Barrier => {
                    let _ = writeln!(
                        out,
                        "<rect x=\"{:.2}\" y=\"{}\" width=\"1.5\" height=\"{}\" fill=\"#f08c00\">{title}</rect>",
                        x(e.start),
                        y + 1.0,
                        ROW - 2.0
                    );
                }
                EventKind::Phase => {
                    let _ = writeln!(
                        out,
                        "<rect x=\"{:.2}\" y=\"{y}\" width=\"2\" height=\"{ROW}\" fill=\"#d62728\">{title}</rect>",
                        x(e.start) - 1.0
                    );
                }
            }
        }
        let _ = writeln!(
            out,
            "<text x=\"{LEFT}\" y=\"{}\">0</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            height - 8.0,
            LEFT + WIDTH,
            height - 8.0,
            end as u64
        );
        out.push_str("</svg>\n");
        out
    }
}
