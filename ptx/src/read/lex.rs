//! The PTX lexer: text to tokens, each with its byte range and 1-based line and column.
//!
//! The lexer never fails outright: a malformed piece of text becomes one final
//! [`Tok::Error`] token, so the parser reports errors in text order (a syntax error on line 3
//! is reported before a bad literal on line 90).
//!
//! Dotted names are lexed whole where PTX writes them without spaces: an instruction name
//! `mbarrier.try_wait.parity.shared::cta.b64` is one [`Tok::Word`], a special register
//! `%tid.x` one [`Tok::Reg`]; a directive `.reg` is one [`Tok::Dir`].

/// What a token is. Values are already decoded; the original text stays available through
/// the token's byte range.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    /// An identifier, possibly with `.component` and `::component` suffixes
    /// (`sm_90a`, `$L__BB0_2`, `_`, `ld.global.L2::128B.v4.u32`).
    Word(String),
    /// A directive or type keyword, without its dot (`reg`, `b32`, `shared::cta`).
    Dir(String),
    /// A register or `%`-identifier, with the `%` (`%r1`, `%tid.x`, `%envreg3`).
    Reg(String),
    /// An integer literal (decimal, hex, octal or binary, `U` suffix dropped).
    Int(u64),
    /// `0fXXXXXXXX`: the exact bits of a single-precision float.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX`: the exact bits of a double-precision float.
    F64(u64),
    /// A decimal float such as `1.5` or `1e-3` (its text also spells `.version 8.7`).
    Float(f64),
    /// A string literal with `\\` and `\"` unescaped.
    Str(String),
    /// One of `; , : { } [ ] ( ) < > + - ! @ | =`.
    Punct(char),
    Eof,
    /// Lexing stopped here; the message says why.
    Error(String),
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub(super) tok: Tok,
    /// Byte range in the source.
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) line: u32,
    pub(super) col: u32,
}

const PUNCT: &str = ";,:{}[]()<>+-!@|=";

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '$'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Splits `src` into tokens; the last token is [`Tok::Eof`] or [`Tok::Error`].
pub(super) fn tokenize(src: &str) -> Vec<Token> {
    let mut lexer = Lexer {
        src,
        pos: 0,
        line: 1,
        col: 1,
    };
    let mut tokens = Vec::new();
    loop {
        let token = lexer.next_token();
        let last = matches!(token.tok, Tok::Eof | Tok::Error(_));
        tokens.push(token);
        if last {
            return tokens;
        }
    }
}

struct Lexer<'a> {
    src: &'a str,
    /// Byte offset; always on a char boundary because it only moves by whole chars.
    pos: usize,
    line: u32,
    col: u32,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        self.src
            .get(self.pos..)
            .and_then(|rest| rest.chars().next())
    }

    fn peek_second(&self) -> Option<char> {
        let mut chars = self.src.get(self.pos..)?.chars();
        chars.next();
        chars.next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.col = 1;
        } else {
            self.col = self.col.saturating_add(1);
        }
        Some(c)
    }

    fn bump_while(&mut self, keep: impl Fn(char) -> bool) {
        while self.peek().is_some_and(&keep) {
            self.bump();
        }
    }

    fn text(&self, start: usize) -> &str {
        self.src.get(start..self.pos).unwrap_or("")
    }

    /// Skips whitespace and comments; an unterminated block comment is an error token.
    fn skip_trivia(&mut self) -> Option<Token> {
        loop {
            match (self.peek(), self.peek_second()) {
                (Some(c), _) if c.is_ascii_whitespace() => {
                    self.bump();
                }
                (Some('/'), Some('/')) => self.bump_while(|c| c != '\n'),
                (Some('/'), Some('*')) => {
                    let (start, line, col) = (self.pos, self.line, self.col);
                    self.bump();
                    self.bump();
                    loop {
                        match (self.peek(), self.peek_second()) {
                            (Some('*'), Some('/')) => {
                                self.bump();
                                self.bump();
                                break;
                            }
                            (Some(_), _) => {
                                self.bump();
                            }
                            (None, _) => {
                                let message =
                                    "unterminated block comment, expected `*/` before end of input";
                                return Some(Token {
                                    tok: Tok::Error(message.into()),
                                    start,
                                    end: self.pos,
                                    line,
                                    col,
                                });
                            }
                        }
                    }
                }
                _ => return None,
            }
        }
    }

    fn next_token(&mut self) -> Token {
        if let Some(error) = self.skip_trivia() {
            return error;
        }
        let (start, line, col) = (self.pos, self.line, self.col);
        let tok = match self.peek() {
            None => Tok::Eof,
            Some(c) => self.token_from(c, start),
        };
        Token {
            tok,
            start,
            end: self.pos,
            line,
            col,
        }
    }

    fn token_from(&mut self, c: char, start: usize) -> Tok {
        let next = self.peek_second();
        if is_ident_start(c) {
            self.dotted_name();
            return Tok::Word(self.text(start).to_string());
        }
        if c.is_ascii_digit() || (c == '.' && next.is_some_and(|n| n.is_ascii_digit())) {
            return self.number(start);
        }
        match c {
            '.' if next.is_some_and(is_ident_start) => {
                self.bump();
                self.bump_while(is_ident_char);
                self.scoped_suffixes();
                Tok::Dir(self.text(start + 1).to_string())
            }
            '%' if next.is_some_and(is_ident_char) => {
                self.bump();
                self.dotted_name();
                Tok::Reg(self.text(start).to_string())
            }
            '%' => {
                self.bump();
                Tok::Error("expected a register name after `%`".into())
            }
            '"' => self.string(),
            _ if PUNCT.contains(c) => {
                self.bump();
                Tok::Punct(c)
            }
            _ => {
                self.bump();
                let shown = if c.is_control() {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                };
                Tok::Error(format!("unexpected character `{shown}`"))
            }
        }
    }

    /// Identifier characters with `.component` and `::component` suffixes.
    fn dotted_name(&mut self) {
        self.bump_while(is_ident_char);
        loop {
            self.scoped_suffixes();
            if self.peek() == Some('.') && self.peek_second().is_some_and(is_ident_char) {
                self.bump();
                self.bump_while(is_ident_char);
            } else {
                return;
            }
        }
    }

    /// `::component` suffixes (`shared::cta`, `L2::128B`).
    fn scoped_suffixes(&mut self) {
        while self.src.get(self.pos..).is_some_and(|rest| {
            let mut chars = rest.chars();
            chars.next() == Some(':')
                && chars.next() == Some(':')
                && chars.next().is_some_and(is_ident_char)
        }) {
            self.bump();
            self.bump();
            self.bump_while(is_ident_char);
        }
    }

    fn string(&mut self) -> Tok {
        self.bump();
        let mut value = String::new();
        loop {
            match self.peek() {
                None | Some('\n') | Some('\r') => {
                    return Tok::Error("unterminated string, expected `\"`".into());
                }
                Some('"') => {
                    self.bump();
                    return Tok::Str(value);
                }
                Some('\\') => {
                    self.bump();
                    match self.peek() {
                        Some(c @ ('\\' | '"')) => {
                            self.bump();
                            value.push(c);
                        }
                        // Other escapes are kept as written; the writer re-escapes the backslash.
                        _ => value.push('\\'),
                    }
                }
                Some(c) => {
                    self.bump();
                    value.push(c);
                }
            }
        }
    }

    fn number(&mut self, start: usize) -> Tok {
        let first = self.peek();
        let prefix = self.peek_second().map(|c| c.to_ascii_lowercase());
        let tok = match (first, prefix) {
            (Some('0'), Some(p @ ('x' | 'b'))) => {
                self.bump();
                self.bump();
                let radix = if p == 'x' { 16 } else { 2 };
                let digits_start = self.pos;
                self.bump_while(|c| c.is_digit(radix));
                let digits = self.text(digits_start).to_string();
                self.eat_unsigned_suffix();
                self.integer(&digits, radix, start)
            }
            (Some('0'), Some(p @ ('f' | 'd'))) => {
                self.bump();
                self.bump();
                let digits_start = self.pos;
                self.bump_while(|c| c.is_ascii_hexdigit());
                let digits = self.text(digits_start);
                let width = if p == 'f' { 8 } else { 16 };
                match u64::from_str_radix(digits, 16) {
                    Ok(bits) if digits.len() == width && p == 'f' => Tok::F32(bits as u32),
                    Ok(bits) if digits.len() == width => Tok::F64(bits),
                    _ => Tok::Error(format!(
                        "expected {width} hex digits after `0{p}`, found `{}`",
                        self.text(start)
                    )),
                }
            }
            _ => self.decimal(start),
        };
        if matches!(tok, Tok::Error(_)) {
            return tok;
        }
        if self.peek().is_some_and(is_ident_char) {
            self.bump_while(is_ident_char);
            return Tok::Error(format!("invalid number `{}`", self.text(start)));
        }
        tok
    }

    /// Decimal integers, octal integers (leading `0`) and decimal floats.
    fn decimal(&mut self, start: usize) -> Tok {
        self.bump_while(|c| c.is_ascii_digit());
        let mut is_float = false;
        if self.peek() == Some('.') && self.peek_second().is_some_and(|c| c.is_ascii_digit()) {
            is_float = true;
            self.bump();
            self.bump_while(|c| c.is_ascii_digit());
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let rest = self.src.get(self.pos..).unwrap_or("");
            let mut chars = rest.chars().skip(1);
            let after = chars.next();
            let exponent_follows = match after {
                Some('+' | '-') => chars.next().is_some_and(|c| c.is_ascii_digit()),
                Some(c) => c.is_ascii_digit(),
                None => false,
            };
            if exponent_follows {
                is_float = true;
                self.bump();
                if matches!(self.peek(), Some('+' | '-')) {
                    self.bump();
                }
                self.bump_while(|c| c.is_ascii_digit());
            }
        }
        let text = self.text(start).to_string();
        if is_float {
            return match text.parse::<f64>() {
                Ok(value) => Tok::Float(value),
                Err(_) => Tok::Error(format!("invalid number `{text}`")),
            };
        }
        self.eat_unsigned_suffix();
        if text.len() > 1 && text.starts_with('0') {
            if text.chars().any(|c| !c.is_digit(8)) {
                return Tok::Error(format!("invalid digit in octal number `{text}`"));
            }
            return self.integer(&text[1..], 8, start);
        }
        self.integer(&text, 10, start)
    }

    fn eat_unsigned_suffix(&mut self) {
        if self.peek() == Some('U') {
            self.bump();
        }
    }

    fn integer(&self, digits: &str, radix: u32, start: usize) -> Tok {
        if digits.is_empty() {
            return Tok::Error(format!("expected digits in number `{}`", self.text(start)));
        }
        match u64::from_str_radix(digits, radix) {
            Ok(value) => Tok::Int(value),
            Err(_) => Tok::Error(format!(
                "integer `{}` does not fit in 64 bits",
                self.text(start)
            )),
        }
    }
}
