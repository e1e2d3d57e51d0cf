//! The PTX lexer: text to tokens, each with its byte range and 1-based line and column.
//!
//! The lexer never fails outright: a malformed piece of text becomes a [`Tok::Error`]
//! token, which the parser treats as the last one, so errors come in text order (a syntax
//! error on line 3 is reported before a bad literal on line 90).
//!
//! Dotted names are lexed whole where PTX writes them without spaces: an instruction name
//! `mbarrier.try_wait.parity.shared::cta.b64` is one [`Tok::Word`], a special register
//! `%tid.x` one [`Tok::Reg`]; a directive `.reg` is one [`Tok::Dir`].
//!
//! For speed, the lexer scans bytes and its tokens borrow their text from the source: a
//! token is `Copy` and costs no allocation. Everything PTX spells outside comments and
//! strings is ASCII; non-ASCII text only moves the column, which counts characters.

/// What a token is. Names borrow the source; numbers are already decoded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Tok<'a> {
    /// An identifier, possibly with `.component` and `::component` suffixes
    /// (`sm_90a`, `$L__BB0_2`, `_`, `ld.global.L2::128B.v4.u32`).
    Word(&'a str),
    /// A directive or type keyword, without its dot (`reg`, `b32`, `shared::cta`).
    Dir(&'a str),
    /// A register or `%`-identifier, with the `%` (`%r1`, `%tid.x`, `%envreg3`).
    Reg(&'a str),
    /// An integer literal (decimal, hex, octal or binary, `U` suffix dropped).
    Int(u64),
    /// `0fXXXXXXXX`: the exact bits of a single-precision float.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX`: the exact bits of a double-precision float.
    F64(u64),
    /// A decimal float such as `1.5` or `1e-3` (its text also spells `.version 8.7`).
    Float(f64),
    /// A string literal's text between the quotes, still escaped: [`unescape`] decodes it
    /// where the model needs the value.
    Str(&'a str),
    /// One of `; , : { } [ ] ( ) < > + - ! @ | =`.
    Punct(char),
    Eof,
    /// Lexing stops here; [`LexError::message`] says why.
    Error(LexError),
}

/// Why a piece of text is not a token. The message is built only when it is reported, from
/// the token's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LexError {
    UnterminatedComment,
    UnterminatedString,
    /// `%` not followed by a name.
    RegisterName,
    UnexpectedChar,
    /// `0f`/`0d` (the lowercased prefix letter) without 8/16 hex digits.
    FloatBits(u8),
    /// A number running into letters, or a float Rust does not read.
    InvalidNumber,
    OctalDigit,
    NoDigits,
    TooLarge,
}

impl LexError {
    /// The message for the error token whose source text is `text`.
    pub(super) fn message(self, text: &str) -> String {
        match self {
            LexError::UnterminatedComment => {
                "unterminated block comment, expected `*/` before end of input".into()
            }
            LexError::UnterminatedString => "unterminated string, expected `\"`".into(),
            LexError::RegisterName => "expected a register name after `%`".into(),
            LexError::UnexpectedChar => {
                let c = text.chars().next().unwrap_or(' ');
                let shown = if c.is_control() {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                };
                format!("unexpected character `{shown}`")
            }
            LexError::FloatBits(prefix) => {
                let width = if prefix == b'f' { 8 } else { 16 };
                let prefix = char::from(prefix);
                format!("expected {width} hex digits after `0{prefix}`, found `{text}`")
            }
            LexError::InvalidNumber => format!("invalid number `{text}`"),
            // The message names the digits without the `U` suffix.
            LexError::OctalDigit => {
                let digits = text.strip_suffix('U').unwrap_or(text);
                format!("invalid digit in octal number `{digits}`")
            }
            LexError::NoDigits => format!("expected digits in number `{text}`"),
            LexError::TooLarge => format!("integer `{text}` does not fit in 64 bits"),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Token<'a> {
    pub(super) tok: Tok<'a>,
    /// Byte range in the source.
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) line: u32,
    pub(super) col: u32,
}

impl Token<'_> {
    /// Whether nothing follows this token: the end of input or a lexer error.
    pub(super) fn is_last(&self) -> bool {
        matches!(self.tok, Tok::Eof | Tok::Error(_))
    }
}

/// The decoded value of a [`Tok::Str`]: `\\` and `\"` unescaped, other escapes kept as
/// written (the writer re-escapes the backslash).
pub(super) fn unescape(raw: &str) -> String {
    let mut value = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            let rest = chars.as_str();
            match rest.chars().next() {
                Some(escaped @ ('\\' | '"')) => {
                    value.push(escaped);
                    chars.next();
                }
                _ => value.push('\\'),
            }
        } else {
            value.push(c);
        }
    }
    value
}

/// Byte classes, one bit each, looked up in [`CLASS`].
const IDENT: u8 = 1;
const IDENT_START: u8 = 2;
const DIGIT: u8 = 4;
const HEX: u8 = 8;
const PUNCT: u8 = 16;

/// The class bits of every byte: one table lookup instead of a chain of comparisons in
/// the hot loops.
const CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let mut class = 0;
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            class |= IDENT | IDENT_START;
        }
        if c.is_ascii_digit() {
            class |= IDENT | DIGIT;
        }
        if c.is_ascii_hexdigit() {
            class |= HEX;
        }
        if matches!(
            c,
            b';' | b','
                | b':'
                | b'{'
                | b'}'
                | b'['
                | b']'
                | b'('
                | b')'
                | b'<'
                | b'>'
                | b'+'
                | b'-'
                | b'!'
                | b'@'
                | b'|'
                | b'='
        ) {
            class |= PUNCT;
        }
        table[b] = class;
        b += 1;
    }
    table
};

fn is(byte: Option<u8>, class: u8) -> bool {
    byte.is_some_and(|b| CLASS[b as usize] & class != 0)
}

/// Whether `b` starts a UTF-8 character (the column counts characters, not bytes).
fn starts_char(b: u8) -> bool {
    b & 0xC0 != 0x80
}

/// Where the lexer stands.
struct Cursor {
    /// Byte offset; always on a char boundary.
    pos: usize,
    line: u32,
    /// Byte offset of the current line's first byte.
    line_start: usize,
    /// UTF-8 continuation bytes between `line_start` and `pos`: the column is
    /// `pos - line_start - wide + 1`.
    wide: usize,
}

pub(super) struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    cursor: Cursor,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(src: &'a str) -> Self {
        Lexer {
            src,
            bytes: src.as_bytes(),
            cursor: Cursor {
                pos: 0,
                line: 1,
                line_start: 0,
                wide: 0,
            },
        }
    }

    /// Goes back to just after `token`, to lex what follows it again. A token other than
    /// the last holds no newline, so its line and column say where its line starts.
    pub(super) fn seek_after(&mut self, token: &Token<'a>) {
        let text = self.bytes.get(token.start..token.end).unwrap_or(&[]);
        let before = usize::try_from(token.col.saturating_sub(1)).unwrap_or(0);
        self.cursor = Cursor {
            pos: token.end,
            line: token.line,
            line_start: token.start.saturating_sub(before),
            wide: text.iter().filter(|&&b| !starts_char(b)).count(),
        };
    }

    fn at(&self, pos: usize) -> Option<u8> {
        self.bytes.get(pos).copied()
    }

    fn peek(&self) -> Option<u8> {
        self.at(self.cursor.pos)
    }

    fn peek_second(&self) -> Option<u8> {
        self.at(self.cursor.pos + 1)
    }

    fn col(&self) -> u32 {
        let c = &self.cursor;
        u32::try_from(c.pos - c.line_start - c.wide + 1).unwrap_or(u32::MAX)
    }

    /// Moves past bytes that contain no newline, all of them ASCII.
    fn skip_ascii(&mut self, count: usize) {
        self.cursor.pos += count;
    }

    /// Moves past bytes of any kind up to `end`, following newlines and wide characters.
    fn skip_to(&mut self, end: usize) {
        let (pos, bytes) = (self.cursor.pos, self.bytes);
        let skipped = bytes.get(pos..end).unwrap_or(&[]);
        if let Some(newline) = skipped.iter().rposition(|&b| b == b'\n') {
            let newlines = skipped.iter().filter(|&&b| b == b'\n').count();
            let lines = u32::try_from(newlines).unwrap_or(u32::MAX);
            self.cursor.line = self.cursor.line.saturating_add(lines);
            self.cursor.line_start = pos + newline + 1;
            self.cursor.wide = 0;
        }
        let tail = bytes
            .get(self.cursor.line_start.max(pos)..end)
            .unwrap_or(&[]);
        self.cursor.wide += tail.iter().filter(|&&b| !starts_char(b)).count();
        self.cursor.pos = end;
    }

    /// Moves past a run of `class` bytes (all ASCII).
    fn bump_while(&mut self, class: u8) {
        let run = self.bytes.get(self.cursor.pos..).unwrap_or(&[]);
        self.cursor.pos += run
            .iter()
            .position(|&b| CLASS[b as usize] & class == 0)
            .unwrap_or(run.len());
    }

    fn text(&self, start: usize) -> &'a str {
        self.src.get(start..self.cursor.pos).unwrap_or("")
    }

    /// Skips whitespace and comments. `Err` is where a block comment starts that never
    /// ends: its start, line and column.
    fn skip_trivia(&mut self) -> Result<(), (usize, u32, u32)> {
        loop {
            match self.bytes.get(self.cursor.pos) {
                Some(b'\n') => {
                    self.cursor.pos += 1;
                    self.cursor.line = self.cursor.line.saturating_add(1);
                    self.cursor.line_start = self.cursor.pos;
                    self.cursor.wide = 0;
                }
                Some(b' ' | b'\t' | b'\r' | b'\x0C') => self.cursor.pos += 1,
                Some(b'/') => match self.peek_second() {
                    Some(b'/') => self.line_comment(),
                    Some(b'*') => self.block_comment()?,
                    _ => return Ok(()),
                },
                _ => return Ok(()),
            }
        }
    }

    /// Skips `//` up to the newline, which ends the comment and resets the column; without
    /// one, the comment's characters count towards the column of the end of input.
    fn line_comment(&mut self) {
        let rest = &self.bytes[self.cursor.pos..];
        let end = match rest.iter().position(|&b| b == b'\n') {
            Some(newline) => self.cursor.pos + newline,
            None => self.bytes.len(),
        };
        self.skip_to(end);
    }

    /// Skips `/* ... */`.
    fn block_comment(&mut self) -> Result<(), (usize, u32, u32)> {
        let (start, line, col) = (self.cursor.pos, self.cursor.line, self.col());
        let body = self.bytes.get(start + 2..).unwrap_or(&[]);
        match body.windows(2).position(|pair| pair == b"*/") {
            Some(close) => {
                self.skip_to(start + 2 + close + 2);
                Ok(())
            }
            None => {
                self.skip_to(self.bytes.len());
                Err((start, line, col))
            }
        }
    }

    /// The next token; at the end of input, [`Tok::Eof`] again and again.
    pub(super) fn next_token(&mut self) -> Token<'a> {
        let mut token = Token {
            tok: Tok::Eof,
            start: 0,
            end: 0,
            line: 0,
            col: 0,
        };
        self.next_token_into(&mut token);
        token
    }

    /// [`Lexer::next_token`], written over `token`. The parser lexes straight into its
    /// lookahead slot: a token returned by value is copied there, and reading it back so
    /// soon after it was written stalls the CPU (2% of the reader's time).
    pub(super) fn next_token_into(&mut self, token: &mut Token<'a>) {
        match self.skip_trivia() {
            Ok(()) => {
                let start = self.cursor.pos;
                token.start = start;
                token.line = self.cursor.line;
                token.col = self.col();
                token.tok = match self.bytes.get(start) {
                    None => Tok::Eof,
                    Some(&b) => self.token_from(b, start),
                };
            }
            Err((start, line, col)) => {
                token.start = start;
                token.line = line;
                token.col = col;
                token.tok = Tok::Error(LexError::UnterminatedComment);
            }
        }
        token.end = self.cursor.pos;
    }

    fn token_from(&mut self, b: u8, start: usize) -> Tok<'a> {
        let class = CLASS[b as usize];
        let next = self.peek_second();
        if class & IDENT_START != 0 {
            self.dotted_name();
            return Tok::Word(self.text(start));
        }
        if class & DIGIT != 0 || (b == b'.' && is(next, DIGIT)) {
            return self.number();
        }
        if class & PUNCT != 0 {
            self.skip_ascii(1);
            return Tok::Punct(char::from(b));
        }
        match b {
            b'.' if is(next, IDENT_START) => {
                // `::component` suffixes (`shared::cta`), but no dotted ones: `.v4.u32` is
                // two directives.
                self.cursor.pos = name_end(self.bytes, start + 1, false);
                Tok::Dir(self.text(start + 1))
            }
            b'%' if is(next, IDENT) => {
                self.skip_ascii(1);
                self.dotted_name();
                Tok::Reg(self.text(start))
            }
            b'%' => {
                self.skip_ascii(1);
                Tok::Error(LexError::RegisterName)
            }
            b'"' => self.string(),
            _ => {
                let width = self.src[start..].chars().next().map_or(1, char::len_utf8);
                self.skip_to(start + width);
                Tok::Error(LexError::UnexpectedChar)
            }
        }
    }

    /// Identifier characters with `.component` and `::component` suffixes.
    fn dotted_name(&mut self) {
        self.cursor.pos = name_end(self.bytes, self.cursor.pos, true);
    }

    /// A string literal up to its closing quote on the same line; `\\` and `\"` do not
    /// close it.
    fn string(&mut self) -> Tok<'a> {
        let start = self.cursor.pos + 1;
        let mut pos = start;
        loop {
            match self.at(pos) {
                None | Some(b'\n' | b'\r') => {
                    self.skip_to(pos);
                    return Tok::Error(LexError::UnterminatedString);
                }
                Some(b'"') => {
                    self.skip_to(pos + 1);
                    return Tok::Str(self.src.get(start..pos).unwrap_or(""));
                }
                Some(b'\\') if matches!(self.at(pos + 1), Some(b'\\' | b'"')) => pos += 2,
                Some(_) => pos += 1,
            }
        }
    }

    fn number(&mut self) -> Tok<'a> {
        let first = self.peek();
        let prefix = self.peek_second().map(|c| c.to_ascii_lowercase());
        let tok = match (first, prefix) {
            (Some(b'0'), Some(p @ (b'x' | b'b'))) => {
                self.skip_ascii(2);
                let radix = if p == b'x' { 16 } else { 2 };
                let digits_start = self.cursor.pos;
                if radix == 16 {
                    self.bump_while(HEX);
                } else {
                    self.cursor.pos += self.bytes[digits_start..]
                        .iter()
                        .take_while(|&&b| b == b'0' || b == b'1')
                        .count();
                }
                let digits = self.text(digits_start);
                self.eat_unsigned_suffix();
                integer(digits, radix)
            }
            (Some(b'0'), Some(p @ (b'f' | b'd'))) => {
                self.skip_ascii(2);
                let digits_start = self.cursor.pos;
                self.bump_while(HEX);
                let digits = self.text(digits_start);
                let width = if p == b'f' { 8 } else { 16 };
                match u64::from_str_radix(digits, 16) {
                    Ok(bits) if digits.len() == width && p == b'f' => Tok::F32(bits as u32),
                    Ok(bits) if digits.len() == width => Tok::F64(bits),
                    _ => Tok::Error(LexError::FloatBits(p)),
                }
            }
            _ => self.decimal(),
        };
        if matches!(tok, Tok::Error(_)) {
            return tok;
        }
        if is(self.peek(), IDENT) {
            self.bump_while(IDENT);
            return Tok::Error(LexError::InvalidNumber);
        }
        tok
    }

    /// Decimal integers, octal integers (leading `0`) and decimal floats.
    fn decimal(&mut self) -> Tok<'a> {
        let start = self.cursor.pos;
        self.bump_while(DIGIT);
        let mut is_float = false;
        if self.peek() == Some(b'.') && is(self.peek_second(), DIGIT) {
            is_float = true;
            self.skip_ascii(1);
            self.bump_while(DIGIT);
        } else if self.peek() == Some(b'.') && !is(self.peek_second(), IDENT) {
            // `0.`: a decimal point with no digits after it (inline assembly writes
            // `{%f1, 0., %f2, 0.}`, and ptxas reads it as 0.0).
            is_float = true;
            self.skip_ascii(1);
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            let pos = self.cursor.pos;
            let exponent_follows = match self.at(pos + 1) {
                Some(b'+' | b'-') => is(self.at(pos + 2), DIGIT),
                after => is(after, DIGIT),
            };
            if exponent_follows {
                is_float = true;
                self.skip_ascii(1);
                if matches!(self.peek(), Some(b'+' | b'-')) {
                    self.skip_ascii(1);
                }
                self.bump_while(DIGIT);
            }
        }
        let text = self.text(start);
        if is_float {
            return match text.parse::<f64>() {
                Ok(value) => Tok::Float(value),
                Err(_) => Tok::Error(LexError::InvalidNumber),
            };
        }
        self.eat_unsigned_suffix();
        if text.len() > 1 && text.starts_with('0') {
            if text.bytes().any(|c| !(b'0'..=b'7').contains(&c)) {
                return Tok::Error(LexError::OctalDigit);
            }
            return integer(&text[1..], 8);
        }
        integer(text, 10)
    }

    fn eat_unsigned_suffix(&mut self) {
        if self.peek() == Some(b'U') {
            self.skip_ascii(1);
        }
    }
}

/// The end of the name whose identifier characters start at `pos`: `::component` suffixes
/// (`L2::128B`) are part of it, and `.component` ones (`ld.global`) where `dotted`.
fn name_end(bytes: &[u8], mut pos: usize, dotted: bool) -> usize {
    let ident_at = |i: usize| is(bytes.get(i).copied(), IDENT);
    loop {
        while ident_at(pos) {
            pos += 1;
        }
        match bytes.get(pos) {
            Some(b':') if bytes.get(pos + 1) == Some(&b':') && ident_at(pos + 2) => pos += 2,
            Some(b'.') if dotted && ident_at(pos + 1) => pos += 1,
            _ => return pos,
        }
    }
}

/// `digits` (already checked to be digits of `radix`) as a 64-bit integer.
fn integer<'a>(digits: &str, radix: u32) -> Tok<'a> {
    if digits.is_empty() {
        return Tok::Error(LexError::NoDigits);
    }
    match u64::from_str_radix(digits, radix) {
        Ok(value) => Tok::Int(value),
        Err(_) => Tok::Error(LexError::TooLarge),
    }
}
