//! Instruction operands.

use super::lex::Tok;
use super::parse::{MAX_DEPTH, PResult, Parser};
use crate::model::*;

impl Parser<'_> {
    /// Whether the current token can begin an operand.
    pub(super) fn at_operand_start(&self) -> bool {
        matches!(
            self.peek().tok,
            Tok::Word(_)
                | Tok::Reg(_)
                | Tok::Int(_)
                | Tok::F32(_)
                | Tok::F64(_)
                | Tok::Float(_)
                | Tok::Punct('!' | '-' | '[' | '{' | '(')
        )
    }

    /// One operand; `a|b` pairs bind two primaries (`%r8|%p7`, `_|%p1`).
    pub(super) fn operand(&mut self, depth: usize) -> PResult<Operand> {
        let first = self.primary(depth)?;
        if self.eat_punct('|') {
            let second = self.primary(depth)?;
            return Ok(Operand::Pair(Box::new(first), Box::new(second)));
        }
        Ok(first)
    }

    fn primary(&mut self, depth: usize) -> PResult<Operand> {
        if depth > MAX_DEPTH {
            return Err(self.expected(&format!("at most {MAX_DEPTH} levels of nested operands")));
        }
        let operand = match self.peek().tok {
            Tok::Punct('!') => {
                self.advance();
                return Ok(Operand::Not(Box::new(self.primary(depth + 1)?)));
            }
            Tok::Punct('-') => {
                self.advance();
                return Ok(Operand::Imm(self.negated_number()?));
            }
            Tok::Punct('[') => return self.address(),
            Tok::Punct('{') => return Ok(Operand::Vector(self.operand_list('}', depth)?)),
            Tok::Punct('(') => return Ok(Operand::List(self.operand_list(')', depth)?)),
            Tok::Int(v) => Operand::Imm(Imm::Int(v as i64)),
            Tok::F32(bits) => Operand::Imm(Imm::F32(bits)),
            Tok::F64(bits) => Operand::Imm(Imm::F64(bits)),
            Tok::Float(value) => Operand::Imm(Imm::F64(value.to_bits())),
            Tok::Reg(name) => Operand::Reg(name.to_string()),
            Tok::Word("_") => Operand::Sink,
            Tok::Word(name) => {
                self.advance();
                // `sym+0` is `sym`, as the writer sees it.
                return Ok(match self.offset()? {
                    Some(offset) if offset != 0 => Operand::SymbolOffset(name.to_string(), offset),
                    _ if self.regs.contains(name) => Operand::Reg(name.to_string()),
                    _ => Operand::Symbol(name.to_string()),
                });
            }
            _ => return Err(self.expected("an operand")),
        };
        self.advance();
        Ok(operand)
    }

    /// The number after a `-`: integers keep their two's-complement pattern, floats flip
    /// their sign bit.
    fn negated_number(&mut self) -> PResult<Imm> {
        let imm = match self.peek().tok {
            Tok::Int(v) => Imm::Int(0u64.wrapping_sub(v) as i64),
            Tok::F32(bits) => Imm::F32(bits ^ (1 << 31)),
            Tok::F64(bits) => Imm::F64(bits ^ (1 << 63)),
            Tok::Float(value) => Imm::F64((-value).to_bits()),
            _ => return Err(self.expected("a number after `-`")),
        };
        self.advance();
        Ok(imm)
    }

    /// `+16`, `+-4` or `-4` after a base; `None` where no offset follows.
    fn offset(&mut self) -> PResult<Option<i64>> {
        if self.eat_punct('+') {
            if self.eat_punct('-') {
                return Ok(Some(self.offset_value("an offset after `+-`", true)?));
            }
            return Ok(Some(self.offset_value("an offset after `+`", false)?));
        }
        if self.eat_punct('-') {
            return Ok(Some(self.offset_value("an offset after `-`", true)?));
        }
        Ok(None)
    }

    /// Offsets keep the 64-bit pattern of the literal, as immediates do.
    fn offset_value(&mut self, what: &str, negative: bool) -> PResult<i64> {
        let value = self.int(what)?;
        Ok(if negative {
            0u64.wrapping_sub(value) as i64
        } else {
            value as i64
        })
    }

    /// `[%rd1]`, `[%rd1+16]`, `[bar0]`, `[tile+128]`, `[1024]`, and the tensor form
    /// `[%rd86, {%r1, %r2, %r3}]`.
    fn address(&mut self) -> PResult<Operand> {
        self.advance();
        let address = match self.peek().tok {
            Tok::Reg(name) => {
                self.advance();
                Address {
                    base: AddressBase::Reg(name.to_string()),
                    offset: self.offset()?.unwrap_or(0),
                }
            }
            Tok::Word(name) => {
                self.advance();
                let base = if self.regs.contains(name) {
                    AddressBase::Reg(name.to_string())
                } else {
                    AddressBase::Symbol(name.to_string())
                };
                Address {
                    base,
                    offset: self.offset()?.unwrap_or(0),
                }
            }
            Tok::Int(value) => {
                self.advance();
                Address {
                    base: AddressBase::Absolute,
                    offset: value as i64,
                }
            }
            Tok::Punct('-') => {
                self.advance();
                Address {
                    base: AddressBase::Absolute,
                    offset: self.offset_value("an address after `-`", true)?,
                }
            }
            _ => return Err(self.expected("a register, symbol or integer address after `[`")),
        };
        if self.eat_punct(',') {
            if !self.at_punct('{') {
                return Err(self.expected("`{` to open the tensor coordinates after `[map,`"));
            }
            if self.peek_second().tok == Tok::Punct('}') {
                self.advance();
                return Err(self.expected("a tensor coordinate"));
            }
            let coords = self.operand_list('}', 1)?;
            self.expect_punct(']', "to close the tensor address")?;
            return Ok(Operand::TensorAddress(address, coords));
        }
        self.expect_punct(']', "to close the address")?;
        Ok(Operand::Address(address))
    }

    /// The operands of `{...}` or `(...)` after the opening bracket, up to `close`.
    fn operand_list(&mut self, close: char, depth: usize) -> PResult<Vec<Operand>> {
        self.advance();
        let mut items = Vec::new();
        if self.eat_punct(close) {
            return Ok(items);
        }
        loop {
            items.push(self.operand(depth + 1)?);
            if self.eat_punct(close) {
                return Ok(items);
            }
            if !self.eat_punct(',') {
                return Err(self.expected(&format!("`,` or `{close}` in the operand list")));
            }
        }
    }
}
