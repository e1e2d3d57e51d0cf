//! Function bodies: statements, labels, `.loc`, body directives and instructions.

use super::lex::Tok;
use super::parse::{PResult, Parser, is_plain_ident, linkage_from_name};
use crate::model::*;

impl Parser<'_> {
    /// The statements after a body's `{`, up to and including its `}`. Nested scopes are
    /// flattened into `ScopeOpen`/`ScopeClose`, so this loop needs no recursion.
    pub(super) fn body(&mut self, function: &str) -> PResult<Body> {
        let mut body = Body::new();
        let mut depth = 0usize;
        loop {
            let token = *self.peek();
            let span = Span::new(token.line, token.col);
            match token.tok {
                Tok::Punct('}') => {
                    self.advance();
                    if depth == 0 {
                        return Ok(body);
                    }
                    depth -= 1;
                    self.regs.close();
                    body.push(Statement::ScopeClose, span);
                }
                Tok::Punct('{') => {
                    self.advance();
                    depth += 1;
                    self.regs.open();
                    body.push(Statement::ScopeOpen, span);
                }
                Tok::Dir("loc") => {
                    body.push(Statement::Loc(self.loc()?), span);
                }
                Tok::Dir(name)
                    if linkage_from_name(name).is_some()
                        || StateSpace::from_name(name).is_some() =>
                {
                    let decls = self.var_decls(true)?;
                    self.expect_punct(';', "after the declaration")?;
                    for decl in decls {
                        self.regs.declare(&decl);
                        body.push(Statement::Decl(decl), span);
                    }
                }
                Tok::Dir(_) => {
                    body.push(Statement::Directive(self.body_directive()?), span);
                }
                Tok::Word(word)
                    if self.peek_second().tok == Tok::Punct(':') && is_plain_ident(word) =>
                {
                    self.advance();
                    self.advance();
                    body.push(Statement::Label(word.to_string()), span);
                }
                Tok::Word(_) | Tok::Punct('@') => {
                    body.push(Statement::Instruction(self.instruction()?), span);
                }
                Tok::Eof => {
                    return Err(self.expected(&format!("`}}` to close the body of `{function}`")));
                }
                _ => return Err(self.expected("a statement")),
            }
        }
    }

    /// `.loc file line column{, rest}`: the rest is every token up to the end of the line,
    /// kept as text (`function_name $L__info_string0, inlined_at 1 7 3`).
    fn loc(&mut self) -> PResult<Loc> {
        self.advance();
        let file = self.int_u32("a file index after `.loc`")?;
        let line = self.int_u32("a line number in `.loc`")?;
        let col_line = self.peek().line;
        let col = self.int_u32("a column number in `.loc`")?;
        let mut rest = None;
        if self.at_punct(',') && self.peek().line == col_line {
            self.advance();
            let first = self.position();
            while self.peek().line == col_line
                && !matches!(
                    self.peek().tok,
                    Tok::Eof | Tok::Error(_) | Tok::Punct(';') | Tok::Punct('{') | Tok::Punct('}')
                )
            {
                self.advance();
            }
            if !self.moved_since(&first) {
                return Err(self.expected("text after `,` in `.loc`"));
            }
            rest = Some(self.slice_from(&first).to_string());
        }
        // nvcc and the writer end `.loc` at the end of the line; a `;` there is accepted too.
        if self.peek().line == col_line {
            self.eat_punct(';');
        }
        Ok(Loc {
            file,
            line,
            col,
            rest,
        })
    }

    /// `.pragma "nounroll";`. A directive whose arguments are not integers and strings
    /// (`.callprototype (.param .b32 _) _ (.param .b64 _);`) keeps its keyword and
    /// argument text verbatim in `name`, with no args, so that it round-trips.
    fn body_directive(&mut self) -> PResult<Directive> {
        let keyword = self.position();
        let Tok::Dir(name) = self.advance().tok else {
            return Err(self.expected("a directive"));
        };
        let args_start = self.position();
        if let Ok(args) = self.directive_args()
            && self.eat_punct(';')
        {
            return Ok(Directive {
                name: name.to_string(),
                args,
            });
        }
        self.rewind(args_start);
        while !self.at_punct(';') {
            if matches!(
                self.peek().tok,
                Tok::Eof | Tok::Error(_) | Tok::Punct('{') | Tok::Punct('}')
            ) {
                return Err(self.expected(&format!("`;` after the directive `.{name}`")));
            }
            self.advance();
        }
        let text = self.slice_from(&keyword);
        self.advance();
        // The keyword token starts with its ASCII dot.
        Ok(Directive {
            name: text.get(1..).unwrap_or("").to_string(),
            args: Vec::new(),
        })
    }

    /// `@!%p1 mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar0], 0;`
    fn instruction(&mut self) -> PResult<Instruction> {
        let mut guard = None;
        if self.eat_punct('@') {
            let negated = self.eat_punct('!');
            let pred = match self.peek().tok {
                Tok::Reg(r) => r.to_string(),
                Tok::Word(w) if is_plain_ident(w) => w.to_string(),
                _ => return Err(self.expected("a predicate after `@`")),
            };
            self.advance();
            guard = Some(Guard { negated, pred });
        }
        let Tok::Word(name) = self.peek().tok else {
            return Err(self.expected("an instruction after the guard"));
        };
        // A one-char array pattern compares chars; a `char` pattern calls `memcmp` per dot.
        let mut parts = name.split(['.']);
        let opcode = self.opcodes.get(parts.next().unwrap_or(""));
        let mut modifiers = Vec::with_capacity(name.bytes().filter(|&b| b == b'.').count());
        modifiers.extend(parts.map(str::to_string));
        self.advance();
        let mut operands = Vec::new();
        if !self.eat_punct(';') {
            if !self.at_operand_start() {
                return Err(self.expected("`;` after instruction"));
            }
            loop {
                operands.push(self.operand(0)?);
                if self.eat_punct(';') {
                    break;
                }
                if !self.eat_punct(',') {
                    return Err(self.expected("`;` after instruction"));
                }
            }
        }
        Ok(Instruction {
            guard,
            opcode,
            modifiers,
            operands,
        })
    }
}

/// [`Opcode::from_name`] searches the model's table of names one by one; a module repeats a
/// few dozen opcodes thousands of times, so the parser remembers the opcode of the names it
/// has looked up, in a small table indexed by a hash of the name (a clash only costs a
/// lookup).
pub(super) struct OpcodeCache<'a> {
    slots: [Option<(&'a str, Opcode)>; OpcodeCache::SLOTS],
}

impl Default for OpcodeCache<'_> {
    fn default() -> Self {
        OpcodeCache {
            slots: std::array::from_fn(|_| None),
        }
    }
}

impl<'a> OpcodeCache<'a> {
    const SLOTS: usize = 64;

    pub(super) fn get(&mut self, name: &'a str) -> Opcode {
        let hash = name.bytes().fold(name.len(), |hash, b| {
            hash.wrapping_mul(31).wrapping_add(usize::from(b))
        });
        let slot = &mut self.slots[hash % Self::SLOTS];
        match slot {
            Some((cached, opcode)) if *cached == name => opcode.clone(),
            _ => {
                let opcode = Opcode::from_name(name);
                *slot = Some((name, opcode.clone()));
                opcode
            }
        }
    }
}
