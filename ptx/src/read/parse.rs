//! The recursive-descent parser: the cursor over tokens, the module header, module-scope
//! items and function signatures. Bodies are in `body.rs`, declarations in `decl.rs`,
//! operands in `operand.rs`, the `%`-less registers in scope in `scope.rs`.

use super::ReadError;
use super::body::OpcodeCache;
use super::lex::{Lexer, Tok, Token, unescape};
use super::scope::RegScope;
use crate::model::*;

/// How deep operands (`{`, `(`, `!`) and initializers (`{`) may nest. Real PTX nests two
/// or three levels; the bound keeps hostile input from exhausting the stack.
pub(super) const MAX_DEPTH: usize = 64;

/// A point to go back to with [`Parser::rewind`].
#[derive(Clone, Copy)]
pub(super) struct Mark<'a> {
    current: Token<'a>,
    previous_end: usize,
}

/// A parse failure. `unsupported` marks syntax that is valid PTX but outside the model
/// (`.global .texref t;`, `= {generic(x)}`): at module scope such an item is kept verbatim.
pub(super) struct Fail {
    pub(super) error: ReadError,
    pub(super) unsupported: bool,
}

pub(super) type PResult<T> = Result<T, Fail>;

/// The parser lexes as it goes, one token ahead of the current one (`name` then `:` is a
/// label). No token list is built: going back to a [`Mark`] lexes again from there.
pub(super) struct Parser<'a> {
    src: &'a str,
    lexer: Lexer<'a>,
    current: Token<'a>,
    /// The token after `current`; `current` itself once that is the last token.
    next: Token<'a>,
    /// Where the token before `current` ends: the end of [`Parser::slice_from`].
    previous_end: usize,
    /// The `%`-less registers in scope in the function being read.
    pub(super) regs: RegScope,
    pub(super) opcodes: OpcodeCache<'a>,
}

const LINKAGES: [(&str, Linkage); 4] = [
    ("visible", Linkage::Visible),
    ("extern", Linkage::Extern),
    ("weak", Linkage::Weak),
    ("common", Linkage::Common),
];

pub(super) fn linkage_from_name(name: &str) -> Option<Linkage> {
    LINKAGES.iter().find(|(n, _)| *n == name).map(|(_, l)| *l)
}

impl<'a> Parser<'a> {
    pub(super) fn new(src: &'a str) -> Self {
        let mut lexer = Lexer::new(src);
        let current = lexer.next_token();
        let next = Self::lex_after(&mut lexer, current);
        Parser {
            src,
            lexer,
            current,
            next,
            previous_end: 0,
            regs: RegScope::default(),
            opcodes: OpcodeCache::default(),
        }
    }

    // ---- cursor ----

    /// The token after `token`: nothing follows the end of input or a lexer error, so
    /// there the same token again.
    fn lex_after(lexer: &mut Lexer<'a>, token: Token<'a>) -> Token<'a> {
        if token.is_last() {
            token
        } else {
            lexer.next_token()
        }
    }

    /// The current token; past the end, the final `Eof`/`Error` token.
    pub(super) fn peek(&self) -> &Token<'a> {
        &self.current
    }

    /// The token after the current one (the final token again past the end).
    pub(super) fn peek_second(&self) -> &Token<'a> {
        &self.next
    }

    /// Moves to the next token and returns the one moved past; the final token stays.
    pub(super) fn advance(&mut self) -> Token<'a> {
        let token = self.current;
        if !token.is_last() {
            self.previous_end = token.end;
            self.current = self.next;
            // Past the last token, `next` already is that token.
            if !self.current.is_last() {
                self.lexer.next_token_into(&mut self.next);
            }
        }
        token
    }

    pub(super) fn position(&self) -> Mark<'a> {
        Mark {
            current: self.current,
            previous_end: self.previous_end,
        }
    }

    /// Goes back to `mark`, lexing again from there.
    pub(super) fn rewind(&mut self, mark: Mark<'a>) {
        self.current = mark.current;
        self.previous_end = mark.previous_end;
        self.lexer.seek_after(&mark.current);
        self.next = Self::lex_after(&mut self.lexer, self.current);
    }

    /// Whether the parser has moved since `mark`.
    pub(super) fn moved_since(&self, mark: &Mark<'a>) -> bool {
        self.current.start != mark.current.start
    }

    /// The source text from the start of the token at `first` to the end of the token
    /// before the current one.
    pub(super) fn slice_from(&self, first: &Mark<'a>) -> &'a str {
        let (start, end) = (first.current.start, self.previous_end);
        self.src.get(start..end).unwrap_or("")
    }

    pub(super) fn at_punct(&self, c: char) -> bool {
        matches!(self.peek().tok, Tok::Punct(p) if p == c)
    }

    pub(super) fn eat_punct(&mut self, c: char) -> bool {
        let found = self.at_punct(c);
        if found {
            self.advance();
        }
        found
    }

    pub(super) fn expect_punct(&mut self, c: char, context: &str) -> PResult<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{c}` {context}")))
        }
    }

    pub(super) fn at_dir(&self, name: &str) -> bool {
        matches!(self.peek().tok, Tok::Dir(d) if d == name)
    }

    pub(super) fn eat_dir(&mut self, name: &str) -> bool {
        let found = self.at_dir(name);
        if found {
            self.advance();
        }
        found
    }

    // ---- errors ----

    /// How a token is named in messages: its text in backquotes, shortened.
    pub(super) fn describe(&self, token: &Token<'a>) -> String {
        if token.tok == Tok::Eof {
            return "end of input".into();
        }
        let text = self.src.get(token.start..token.end).unwrap_or("");
        let mut short: String = text.chars().take(40).collect();
        if short.len() < text.len() {
            short.push('…');
        }
        format!("`{short}`")
    }

    pub(super) fn error_at(&self, token: &Token<'a>, message: String) -> Fail {
        Fail {
            error: ReadError {
                line: token.line,
                col: token.col,
                message,
            },
            unsupported: false,
        }
    }

    /// "expected WHAT, found TOKEN" at the current token; a lexer error there wins.
    pub(super) fn expected(&self, what: &str) -> Fail {
        let token = self.peek();
        if let Tok::Error(error) = token.tok {
            let text = self.src.get(token.start..token.end).unwrap_or("");
            return self.error_at(token, error.message(text));
        }
        self.error_at(
            token,
            format!("expected {what}, found {}", self.describe(token)),
        )
    }

    pub(super) fn unsupported(&self, message: String) -> Fail {
        let mut fail = self.error_at(self.peek(), message);
        fail.unsupported = true;
        fail
    }

    // ---- literals ----

    pub(super) fn int(&mut self, what: &str) -> PResult<u64> {
        match self.peek().tok {
            Tok::Int(value) => {
                self.advance();
                Ok(value)
            }
            _ => Err(self.expected(what)),
        }
    }

    pub(super) fn int_u32(&mut self, what: &str) -> PResult<u32> {
        let token = *self.peek();
        let value = self.int(what)?;
        u32::try_from(value).map_err(|_| {
            self.error_at(
                &token,
                format!(
                    "expected {what} that fits in 32 bits, found {}",
                    self.describe(&token)
                ),
            )
        })
    }

    /// A plain identifier (no dotted suffix): names of functions, variables and labels.
    pub(super) fn ident(&mut self, what: &str) -> PResult<String> {
        match self.peek().tok {
            Tok::Word(w) if is_plain_ident(w) => {
                self.advance();
                Ok(w.to_string())
            }
            _ => Err(self.expected(what)),
        }
    }

    // ---- module ----

    pub(super) fn module(&mut self) -> PResult<Module> {
        if !self.eat_dir("version") {
            return Err(self.expected("`.version` at the start of the module"));
        }
        let version = self.version()?;
        if !self.eat_dir("target") {
            return Err(self.expected("`.target` after `.version`"));
        }
        let target = self.target()?;
        // The PTX ISA defaults to 32-bit addresses when `.address_size` is absent.
        let address_size = if self.eat_dir("address_size") {
            self.int_u32("an address size")?
        } else {
            32
        };
        let mut items = Vec::new();
        while !matches!(self.peek().tok, Tok::Eof) {
            self.item(&mut items)?;
        }
        Ok(Module {
            version,
            target,
            address_size,
            items,
        })
    }

    /// `8.7` lexes as a float; its text gives major and minor (`8.10` is not `8.1`).
    fn version(&mut self) -> PResult<Version> {
        let token = *self.peek();
        let parsed = match token.tok {
            Tok::Float(_) => self.src.get(token.start..token.end).and_then(|text| {
                let (major, minor) = text.split_once('.')?;
                Some(Version::new(major.parse().ok()?, minor.parse().ok()?))
            }),
            _ => None,
        };
        match parsed {
            Some(version) => {
                self.advance();
                Ok(version)
            }
            None => Err(self.expected("a version `major.minor` after `.version`")),
        }
    }

    fn target(&mut self) -> PResult<Target> {
        let sm = match self.peek().tok {
            Tok::Word(w) => SmVersion::parse(w),
            _ => None,
        };
        let Some(sm) = sm else {
            return Err(self.expected("a target `sm_XY` after `.target`"));
        };
        self.advance();
        let mut options = Vec::new();
        while self.eat_punct(',') {
            options.push(self.ident("a target option after `,`")?);
        }
        Ok(Target { sm, options })
    }

    fn item(&mut self, items: &mut Vec<Item>) -> PResult<()> {
        let start = self.position();
        let Tok::Dir(name) = self.peek().tok else {
            return Err(self.expected("a module-level directive"));
        };
        if name == "file" {
            items.push(Item::File(self.file()?));
            return Ok(());
        }
        let keyword_token = if linkage_from_name(name).is_some() {
            self.peek_second()
        } else {
            self.peek()
        };
        let keyword = match keyword_token.tok {
            Tok::Dir(d) => d,
            _ => "",
        };
        if keyword == "entry" || keyword == "func" {
            items.push(Item::Function(self.function()?));
        } else if StateSpace::from_name(keyword).is_some() {
            match self.var_decls(true).and_then(|decls| {
                self.expect_punct(';', "after the declaration")?;
                Ok(decls)
            }) {
                Ok(decls) => items.extend(decls.into_iter().map(Item::Var)),
                Err(fail) if fail.unsupported => {
                    self.rewind(start);
                    items.push(Item::Verbatim(self.verbatim()?));
                }
                Err(fail) => return Err(fail),
            }
        } else {
            items.push(Item::Verbatim(self.verbatim()?));
        }
        Ok(())
    }

    /// `.file 1 "path"{, timestamp, size}`.
    fn file(&mut self) -> PResult<FileDecl> {
        self.advance();
        let index = self.int_u32("a file index after `.file`")?;
        let path = match self.peek().tok {
            Tok::Str(raw) => unescape(raw),
            _ => return Err(self.expected("a quoted path after the file index")),
        };
        self.advance();
        let mut extra = Vec::new();
        while self.eat_punct(',') {
            extra.push(self.int("an integer after `,` in `.file`")?);
        }
        Ok(FileDecl { index, path, extra })
    }

    /// A directive the model does not know, kept as its exact text: up to a `;` at brace
    /// depth 0, or up to the `}` that closes its braces (and a `;` right after it).
    fn verbatim(&mut self) -> PResult<String> {
        let first = self.position();
        // Named in errors only, so described only then.
        let opener = |parser: &Self| parser.describe(&first.current);
        let mut depth = 0usize;
        loop {
            match self.peek().tok {
                Tok::Eof | Tok::Error(_) => {
                    let end = if depth > 0 { "`}`" } else { "`;`" };
                    let opener = opener(self);
                    return Err(self.expected(&format!("{end} to end the directive {opener}")));
                }
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') if depth == 0 => {
                    let opener = opener(self);
                    return Err(self.expected(&format!("`;` to end the directive {opener}")));
                }
                Tok::Punct('}') => {
                    depth -= 1;
                    if depth == 0 {
                        self.advance();
                        self.eat_punct(';');
                        return Ok(self.slice_from(&first).to_string());
                    }
                }
                Tok::Punct(';') if depth == 0 => {
                    self.advance();
                    return Ok(self.slice_from(&first).to_string());
                }
                _ => {}
            }
            self.advance();
        }
    }

    // ---- functions ----

    fn function(&mut self) -> PResult<Function> {
        let linkage = match self.peek().tok {
            Tok::Dir(d) => linkage_from_name(d),
            _ => None,
        };
        if linkage.is_some() {
            self.advance();
        }
        let kind = if self.eat_dir("entry") {
            FunctionKind::Entry
        } else if self.eat_dir("func") {
            FunctionKind::Func
        } else {
            return Err(self.expected("`.entry` or `.func`"));
        };
        let returns = if self.at_punct('(') {
            self.params("return parameter")?
        } else {
            Vec::new()
        };
        let name = self.ident("a function name")?;
        let params = if self.at_punct('(') {
            self.params("parameter")?
        } else {
            Vec::new()
        };
        let mut directives = Vec::new();
        while let Tok::Dir(name) = self.peek().tok {
            self.advance();
            directives.push(Directive {
                name: name.to_string(),
                args: self.directive_args()?,
            });
        }
        self.regs.clear();
        for decl in returns.iter().chain(&params) {
            self.regs.declare(decl);
        }
        let body = if self.eat_punct(';') {
            None
        } else if self.eat_punct('{') {
            Some(self.body(&name)?)
        } else {
            return Err(self.expected(&format!("`{{` or `;` after the signature of `{name}`")));
        };
        self.regs.clear();
        Ok(Function {
            kind,
            linkage,
            name,
            returns,
            params,
            directives,
            body,
        })
    }

    /// `( decl, decl )`: one declaration per parameter.
    fn params(&mut self, what: &str) -> PResult<Vec<VarDecl>> {
        self.advance();
        let mut params = Vec::new();
        if self.eat_punct(')') {
            return Ok(params);
        }
        loop {
            params.extend(self.var_decls(false)?);
            if self.eat_punct(')') {
                return Ok(params);
            }
            if !self.eat_punct(',') {
                return Err(self.expected(&format!("`,` or `)` after a {what}")));
            }
        }
    }

    /// `128, 1, 1` or `"nounroll"`: integers and strings separated by commas, possibly none.
    pub(super) fn directive_args(&mut self) -> PResult<Vec<DirectiveArg>> {
        let mut args = Vec::new();
        if !matches!(self.peek().tok, Tok::Int(_) | Tok::Str(_)) {
            return Ok(args);
        }
        loop {
            match self.peek().tok {
                Tok::Int(v) => args.push(DirectiveArg::Int(v)),
                Tok::Str(raw) => args.push(DirectiveArg::Str(unescape(raw))),
                _ => return Err(self.expected("an integer or a string after `,`")),
            }
            self.advance();
            if !self.eat_punct(',') {
                return Ok(args);
            }
        }
    }
}

/// An identifier without `.` or `::` suffixes.
pub(super) fn is_plain_ident(word: &str) -> bool {
    !word.bytes().any(|b| b == b'.' || b == b':')
}
