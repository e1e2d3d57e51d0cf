//! What the documentation tests (`tests/docs_links.rs`, `tests/book_commands.rs`) read of the
//! Markdown files: their fenced code blocks, their links outside code, their headings, and the
//! pages of the book.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A path relative to the root, with `/` separators, for messages.
pub fn rel(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Every Markdown file under `dir`, sorted.
pub fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The documentation the tests read: the README, the book's pages and the lints' explanations
/// (which the book's lint pages include).
pub fn documents() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md")];
    out.extend(markdown_files(&root().join("book/src")));
    out.extend(markdown_files(&root().join("lints/explain")));
    out
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A fenced code block: its info string (`rust`, `console`, ...), its lines, and the line of
/// the file its first content line is on (1-based).
#[derive(Debug, Clone)]
pub struct Block {
    pub info: String,
    pub lines: Vec<String>,
    pub line: usize,
}

impl Block {
    /// The language: the info string up to the first comma or space.
    pub fn lang(&self) -> &str {
        self.info
            .split([',', ' '])
            .next()
            .unwrap_or_default()
            .trim()
    }
}

/// The fence that opens a code block on this line: its character and length.
fn fence(line: &str) -> Option<(char, usize, &str)> {
    let t = line.trim_start();
    let c = t.chars().next()?;
    if c != '`' && c != '~' {
        return None;
    }
    let n = t.chars().take_while(|&x| x == c).count();
    (n >= 3).then(|| (c, n, t[n..].trim()))
}

/// The fenced code blocks of a Markdown text, and the text outside them (code blocks replaced
/// by empty lines, so that line numbers stay).
pub fn split(text: &str) -> (Vec<Block>, Vec<String>) {
    let mut blocks = Vec::new();
    let mut prose = Vec::new();
    let mut open: Option<(char, usize, Block)> = None;
    for (i, line) in text.lines().enumerate() {
        match &mut open {
            Some((c, n, block)) => {
                let closes = fence(line)
                    .is_some_and(|(c2, n2, rest)| c2 == *c && n2 >= *n && rest.is_empty());
                if closes {
                    let (_, _, block) = open.take().expect("open block");
                    blocks.push(block);
                } else {
                    // Code blocks inside list items are indented; the indentation is not code.
                    block.lines.push(line.to_string());
                }
                prose.push(String::new());
            }
            None => {
                if let Some((c, n, info)) = fence(line) {
                    open = Some((
                        c,
                        n,
                        Block {
                            info: info.to_string(),
                            lines: Vec::new(),
                            line: i + 2,
                        },
                    ));
                    prose.push(String::new());
                } else {
                    prose.push(line.to_string());
                }
            }
        }
    }
    if let Some((_, _, block)) = open {
        panic!(
            "a code block opened at line {} is never closed",
            block.line - 1
        );
    }
    (blocks, prose)
}

/// Removes inline code spans from a line of prose (their text is no link).
pub fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let ticks = rest[start..].chars().take_while(|&c| c == '`').count();
        let after = &rest[start + ticks..];
        let closing = "`".repeat(ticks);
        match after.find(&closing) {
            Some(end) => rest = &after[end + ticks..],
            None => {
                out.push_str(&rest[start..]);
                return out;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The inline code spans of a line of prose.
pub fn code_spans(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        let ticks = rest[start..].chars().take_while(|&c| c == '`').count();
        let after = &rest[start + ticks..];
        let closing = "`".repeat(ticks);
        match after.find(&closing) {
            Some(end) => {
                out.push(after[..end].trim().to_string());
                rest = &after[end + ticks..];
            }
            None => break,
        }
    }
    out
}

/// The link targets of a Markdown text outside code: `[text](target)`, `![alt](target)` and
/// reference definitions `[name]: target`, each with its line (1-based).
pub fn links(text: &str) -> Vec<(usize, String)> {
    let (_, prose) = split(text);
    let mut out = Vec::new();
    for (i, line) in prose.iter().enumerate() {
        let line = without_code_spans(line);
        let bytes = line.as_bytes();
        let mut k = 0;
        while let Some(pos) = line[k..].find("](") {
            let start = k + pos + 2;
            // The target ends at the `)` that closes it (targets may hold balanced parentheses).
            let mut depth = 0usize;
            let mut end = None;
            for (j, &b) in bytes.iter().enumerate().skip(start) {
                match b {
                    b'(' => depth += 1,
                    b')' if depth == 0 => {
                        end = Some(j);
                        break;
                    }
                    b')' => depth -= 1,
                    _ => {}
                }
            }
            let Some(end) = end else { break };
            let target = line[start..end]
                .split_whitespace()
                .next()
                .unwrap_or_default();
            let target = target.trim_start_matches('<').trim_end_matches('>');
            out.push((i + 1, target.to_string()));
            k = end;
        }
        let t = line.trim_start();
        if t.starts_with('[')
            && let Some(close) = t.find("]:")
            && !t[..close].contains('(')
        {
            let target = t[close + 2..].split_whitespace().next().unwrap_or_default();
            out.push((i + 1, target.to_string()));
        }
    }
    out
}

/// The anchor that mdbook (and GitHub) give a heading: lowercase, letters, digits, `-` and `_`
/// kept, spaces to `-`, everything else dropped.
pub fn slug(heading: &str) -> String {
    let mut out = String::new();
    for c in heading.trim().chars() {
        if c.is_alphanumeric() || c == '-' || c == '_' {
            out.extend(c.to_lowercase());
        } else if c == ' ' {
            out.push('-');
        }
    }
    out
}

/// The anchors of a Markdown text's headings (`# ...` outside code blocks).
pub fn anchors(text: &str) -> Vec<String> {
    let (_, prose) = split(text);
    prose
        .iter()
        .filter_map(|l| {
            let t = l.trim_start();
            let hashes = t.chars().take_while(|&c| c == '#').count();
            (hashes > 0 && hashes <= 6 && t[hashes..].starts_with(' ')).then(|| slug(&t[hashes..]))
        })
        .collect()
}

/// An mdbook include directive: `{{#include PATH}}`, `{{#include PATH:ANCHOR}}`,
/// `{{#include PATH:FROM:TO}}`, and the same with `rustdoc_include`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Include {
    pub path: String,
    /// A named anchor, if the directive names one.
    pub anchor: Option<String>,
}

/// The include directives of a text, each with its line (1-based).
pub fn includes(text: &str) -> Vec<(usize, Include)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(start) = rest.find("{{#") {
            let after = &rest[start + 3..];
            let Some(end) = after.find("}}") else { break };
            let body = after[..end].trim();
            rest = &after[end + 2..];
            let Some(arg) = body
                .strip_prefix("include ")
                .or_else(|| body.strip_prefix("rustdoc_include "))
            else {
                continue;
            };
            let mut parts = arg.trim().splitn(2, ':');
            let path = parts.next().unwrap_or_default().to_string();
            let anchor = parts
                .next()
                .filter(|a| !a.is_empty() && !a.chars().next().is_some_and(|c| c.is_ascii_digit()))
                .map(|a| a.to_string());
            out.push((i + 1, Include { path, anchor }));
        }
    }
    out
}

/// The text between `ANCHOR: name` and `ANCHOR_END: name` in a file, without the other
/// anchors' lines, as mdbook includes it; `None` when the file has no such anchor.
pub fn anchor_text(file_text: &str, name: &str) -> Option<String> {
    let is_marker = |line: &str, kind: &str| {
        line.split_once(kind)
            .is_some_and(|(_, rest)| rest.trim() == name)
    };
    let mut lines = file_text.lines();
    lines.find(|l| is_marker(l, "ANCHOR:"))?;
    let mut out = Vec::new();
    for line in lines {
        if is_marker(line, "ANCHOR_END:") {
            return Some(out.join("\n"));
        }
        if line.contains("ANCHOR:") || line.contains("ANCHOR_END:") {
            continue;
        }
        out.push(line);
    }
    None
}

/// The text a page shows with its `.md` includes expanded (one level), for reading its links
/// and headings as the rendered page has them.
pub fn expanded(page: &Path) -> String {
    let text = read(page);
    let dir = page.parent().expect("a page's folder");
    let mut out = String::new();
    for line in text.lines() {
        let incs = includes(line);
        match incs.first() {
            Some((_, inc)) if inc.path.ends_with(".md") && line.trim().starts_with("{{#") => {
                out.push_str(&read(&dir.join(&inc.path)));
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    out
}
