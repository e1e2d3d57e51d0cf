//! What the kernel's source calls each register of the lowered function: the Rust binding it
//! holds (`let i = ...`, a parameter, a loop variable), else the expression whose value it is
//! (`block_idx_x() * block_dim_x()`), else the expression it was computed inside. The
//! analyzer's explanations name PTX registers; `#[kernel]` errors name these instead.
//!
//! Expressions are kept as the positions of their first and last tokens and read back from the
//! kernel's tokens only when an error needs them: on stable Rust a span cannot be joined, so
//! `Span::source_text` of an expression gives its first token only.

use proc_macro2::{Delimiter, LineColumn, Span, TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::HashMap;

/// The tokens of a piece of syntax, from the first to the last.
#[derive(Clone, Copy)]
pub struct Extent {
    pub first: Span,
    pub last: Span,
}

impl Extent {
    pub fn of(node: &impl ToTokens) -> Extent {
        let mut tokens = node.to_token_stream().into_iter().map(|tt| tt.span());
        let first = tokens.next().unwrap_or_else(Span::call_site);
        let last = tokens.last().unwrap_or(first);
        Extent { first, last }
    }

    /// One span for all of it where spans can be joined (as `syn::spanned::Spanned` gives),
    /// else the first token's.
    pub fn span(&self) -> Span {
        self.first.join(self.last).unwrap_or(self.first)
    }
}

#[derive(Default)]
struct Origin {
    /// The first Rust binding that holds the register.
    binding: Option<String>,
    /// The innermost expression whose value the register is.
    value_of: Option<Extent>,
    /// The expression (or statement) being lowered when the register was made.
    within: Option<Extent>,
}

/// The Rust name of each register of a lowered kernel.
#[derive(Default)]
pub struct RegNames {
    origins: HashMap<String, Origin>,
}

/// How an error refers to a register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegName {
    /// A binding or the source text of an expression: `` `i` ``, `` `t < 16` ``.
    Rust(String),
    /// A value computed as part of a longer expression.
    Within(String),
    /// A value computed at a place whose text could not be read back (line, column).
    At(usize, usize),
    /// No Rust name is known: the register itself.
    Ptx(String),
}

impl std::fmt::Display for RegName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RegName::Rust(s) => write!(f, "`{s}`"),
            RegName::Within(s) => write!(f, "a value computed in `{s}`"),
            RegName::At(line, column) => {
                write!(f, "the value computed at line {line}, column {column}")
            }
            RegName::Ptx(r) => write!(f, "`{r}`"),
        }
    }
}

impl RegNames {
    /// A new register, made while lowering `within`.
    pub(super) fn made(&mut self, reg: &str, within: Extent) {
        self.origins.entry(reg.to_string()).or_default().within = Some(within);
    }

    /// The register holds the value of the expression (the innermost one is kept).
    pub(super) fn value_of(&mut self, reg: &str, expr: Extent) {
        let origin = self.origins.entry(reg.to_string()).or_default();
        origin.value_of.get_or_insert(expr);
    }

    /// The register is bound to a Rust name (the first one is kept: `let u = t;` shares `t`'s
    /// register).
    pub(super) fn bind(&mut self, reg: &str, name: &str) {
        let origin = self.origins.entry(reg.to_string()).or_default();
        origin.binding.get_or_insert_with(|| name.to_string());
    }

    /// What the kernel's source calls the register.
    pub fn name(&self, reg: &str, source: &SourceText) -> RegName {
        let Some(origin) = self.origins.get(reg) else {
            return RegName::Ptx(reg.to_string());
        };
        if let Some(name) = &origin.binding {
            return RegName::Rust(name.clone());
        }
        if let Some(text) = origin.value_of.and_then(|e| source.text(e)) {
            return RegName::Rust(text);
        }
        if let Some(text) = origin.within.and_then(|e| source.text(e)) {
            return RegName::Within(text);
        }
        match origin.value_of.or(origin.within) {
            Some(e) if e.first.start().line > 0 => {
                let at = e.first.start();
                RegName::At(at.line, at.column + 1)
            }
            _ => RegName::Ptx(reg.to_string()),
        }
    }
}

/// The text of expressions, read back from the kernel's tokens by position.
pub struct SourceText {
    /// Every token (delimiters included) in source order: text, start, end, and whether it
    /// opens (1) or closes (-1) a delimiter.
    tokens: Vec<(String, LineColumn, LineColumn, i8)>,
}

/// Longer expressions are not quoted in a message.
const MAX_TEXT: usize = 48;

impl SourceText {
    pub fn new(node: &impl ToTokens) -> SourceText {
        let mut tokens = Vec::new();
        flatten(node.to_token_stream(), &mut tokens);
        SourceText { tokens }
    }

    /// The source text from the start of `extent.first` to the end of `extent.last`, on one
    /// line; none when positions are unknown or the text is long.
    pub fn text(&self, extent: Extent) -> Option<String> {
        let (from, to) = (extent.first.start(), extent.last.end());
        if from.line == 0 || (to.line, to.column) <= (from.line, from.column) {
            return None;
        }
        let key = |lc: LineColumn| (lc.line, lc.column);
        let mut out = String::new();
        let mut prev: Option<(LineColumn, i8)> = None;
        for (text, start, end, delim) in &self.tokens {
            if key(*start) < key(from) || key(*end) > key(to) {
                continue;
            }
            if let Some((prev_end, prev_delim)) = prev {
                let gap = if start.line == prev_end.line {
                    start.column.saturating_sub(prev_end.column).min(1)
                } else {
                    // A line break: a space, except inside delimiters and before `.` and `,`.
                    usize::from(prev_delim != 1 && *delim != -1 && text != "." && text != ",")
                };
                out.push_str(&" ".repeat(gap));
            }
            out.push_str(text);
            prev = Some((*end, *delim));
            if out.len() > MAX_TEXT {
                return None;
            }
        }
        (!out.is_empty()).then_some(out)
    }
}

fn flatten(tokens: TokenStream, out: &mut Vec<(String, LineColumn, LineColumn, i8)>) {
    for tt in tokens {
        match tt {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::None => ("", ""),
                };
                if !open.is_empty() {
                    let s = g.span_open();
                    out.push((open.into(), s.start(), s.end(), 1));
                }
                flatten(g.stream(), out);
                if !close.is_empty() {
                    let s = g.span_close();
                    out.push((close.into(), s.start(), s.end(), -1));
                }
            }
            TokenTree::Punct(p) => {
                let s = p.span();
                out.push((p.as_char().to_string(), s.start(), s.end(), 0));
            }
            other => {
                let s = other.span();
                out.push((other.to_string(), s.start(), s.end(), 0));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn expr(src: &str) -> syn::Expr {
        syn::parse2(TokenStream::from_str(src).unwrap()).unwrap()
    }

    #[test]
    fn expressions_read_back_as_written() {
        for src in [
            "thread_idx_x()",
            "block_idx_x() * block_dim_x() + t",
            "x[(t + 1) % 256]",
            "named_barrier::<1, 64>()",
            "a.mul_add(b, -0.25).max(0.0)",
            "i<n",
            "!done && t >= 2",
        ] {
            let e = expr(src);
            let text = SourceText::new(&e).text(Extent::of(&e));
            assert_eq!(text.as_deref(), Some(src));
        }
    }

    #[test]
    fn a_sub_expression_is_read_from_the_whole() {
        let whole = expr("out[block_idx_x() * block_dim_x() + t] = t");
        let syn::Expr::Assign(a) = &whole else {
            panic!()
        };
        let syn::Expr::Index(ix) = &*a.left else {
            panic!()
        };
        let source = SourceText::new(&whole);
        assert_eq!(
            source.text(Extent::of(&ix.index)).as_deref(),
            Some("block_idx_x() * block_dim_x() + t")
        );
    }

    #[test]
    fn line_breaks_become_spaces_and_long_text_is_not_quoted() {
        let e = expr("foo(\n    a,\n    b\n)\n    .max(c)");
        assert_eq!(
            SourceText::new(&e).text(Extent::of(&e)).as_deref(),
            Some("foo(a, b).max(c)")
        );
        let long = expr("aaaaaaaaaa + bbbbbbbbbb + cccccccccc + dddddddddd + eeeeeeeeee");
        assert_eq!(SourceText::new(&long).text(Extent::of(&long)), None);
    }

    #[test]
    fn names_prefer_bindings_then_values_then_the_enclosing_expression() {
        let e = expr("warp_id() + t * 2");
        let syn::Expr::Binary(b) = &e else { panic!() };
        let source = SourceText::new(&e);
        let mut names = RegNames::default();
        names.made("%r1", Extent::of(&b.left));
        names.made("%r2", Extent::of(&b.right));
        names.value_of("%r2", Extent::of(&b.right));
        names.made("%r3", Extent::of(&e));
        names.value_of("%r3", Extent::of(&e));
        names.value_of("%r3", Extent::of(&b.left));
        names.bind("%r3", "s");
        names.bind("%r3", "u");
        assert_eq!(
            names.name("%r1", &source),
            RegName::Within("warp_id()".into())
        );
        assert_eq!(names.name("%r2", &source), RegName::Rust("t * 2".into()));
        assert_eq!(names.name("%r3", &source), RegName::Rust("s".into()));
        assert_eq!(names.name("%r9", &source), RegName::Ptx("%r9".into()));
        assert_eq!(names.name("%r2", &source).to_string(), "`t * 2`");
    }
}
