//! Variable declarations and their initializers.

use super::lex::{Tok, Token};
use super::parse::{MAX_DEPTH, PResult, Parser, linkage_from_name};
use crate::model::*;

impl Parser<'_> {
    /// `[linkage] space [.align n] [.vN] .type [.ptr [space] [.align n]] [.align n] name...`.
    ///
    /// With `several`, comma-separated names share the prefix (`.reg .b32 %a, %b;`) and each
    /// becomes its own declaration; parameter lists pass `false` because there the comma
    /// separates parameters.
    pub(super) fn var_decls(&mut self, several: bool) -> PResult<Vec<VarDecl>> {
        let linkage = match self.peek().tok {
            Tok::Dir(d) => linkage_from_name(d),
            _ => None,
        };
        if linkage.is_some() {
            self.advance();
        }
        let space = match self.peek().tok {
            Tok::Dir(d) => StateSpace::from_name(d),
            _ => None,
        };
        let Some(space) = space else {
            return Err(self.expected("a state space such as `.reg`, `.shared` or `.param`"));
        };
        self.advance();
        let mut align = None;
        let mut vector = None;
        let ty = loop {
            let Tok::Dir(word) = self.peek().tok else {
                return Err(self.expected("a type in the declaration"));
            };
            if word == "align" {
                let keyword = self.advance();
                align = Some(self.alignment(align, &keyword)?);
            } else if let Some(width) = vector_width(word) {
                self.advance();
                vector = Some(width);
            } else if let Some(ty) = ScalarType::from_name(word) {
                self.advance();
                break ty;
            } else {
                return Err(self.unsupported(format!(
                    "expected a type in the declaration, found `.{word}`"
                )));
            }
        };
        let mut ptr = None;
        if self.eat_dir("ptr") {
            let ptr_space = match self.peek().tok {
                Tok::Dir(d) => StateSpace::from_name(d),
                _ => None,
            };
            if ptr_space.is_some() {
                self.advance();
            }
            let ptr_align = if self.at_dir("align") {
                let keyword = self.advance();
                Some(self.alignment(None, &keyword)?)
            } else {
                None
            };
            ptr = Some((ptr_space, ptr_align));
        }
        if self.at_dir("align") {
            let keyword = self.advance();
            align = Some(self.alignment(align, &keyword)?);
        }
        let mut decls = Vec::new();
        loop {
            let name = match self.peek().tok {
                Tok::Reg(r) => {
                    self.advance();
                    r.to_string()
                }
                _ => self.ident("a variable name")?,
            };
            let mut decl = VarDecl {
                linkage,
                space,
                align,
                vector,
                ty,
                ptr,
                name,
                range: None,
                array: Vec::new(),
                init: None,
            };
            self.decl_suffixes(&mut decl)?;
            decls.push(decl);
            if !(several && self.eat_punct(',')) {
                return Ok(decls);
            }
        }
    }

    /// The value after the `.align` `keyword`; a second `.align` on one declaration is an
    /// error there.
    fn alignment(&mut self, previous: Option<u32>, keyword: &Token<'_>) -> PResult<u32> {
        if previous.is_some() {
            let message = "duplicate `.align` in the declaration".into();
            return Err(self.error_at(keyword, message));
        }
        self.int_u32("an alignment after `.align`")
    }

    /// `<16>` register ranges, `[4]`/`[]` dimensions and `= initializer`.
    fn decl_suffixes(&mut self, decl: &mut VarDecl) -> PResult<()> {
        if self.eat_punct('<') {
            decl.range = Some(self.int_u32("a register count after `<`")?);
            self.expect_punct('>', "after the register count")?;
        }
        while self.eat_punct('[') {
            if self.eat_punct(']') {
                decl.array.push(None);
            } else {
                decl.array
                    .push(Some(self.int("an array size or `]` after `[`")?));
                self.expect_punct(']', "after the array size")?;
            }
        }
        if self.eat_punct('=') {
            decl.init = Some(self.initializer(0)?);
        }
        Ok(())
    }

    /// `{1, 2}`, `{{1, 2}, {3, 4}}`, `0f3F800000`, `sym+8`.
    fn initializer(&mut self, depth: usize) -> PResult<Initializer> {
        if depth > MAX_DEPTH {
            return Err(self.expected(&format!(
                "at most {MAX_DEPTH} levels of nested braces in the initializer"
            )));
        }
        if self.eat_punct('{') {
            let mut items = Vec::new();
            if self.eat_punct('}') {
                return Ok(Initializer::List(items));
            }
            loop {
                items.push(self.initializer(depth + 1)?);
                if self.eat_punct('}') {
                    return Ok(Initializer::List(items));
                }
                if !self.eat_punct(',') {
                    return Err(self.expected("`,` or `}` in the initializer"));
                }
            }
        }
        if matches!(self.peek().tok, Tok::Word(_)) && self.peek_second().tok == Tok::Punct('(') {
            // `generic(sym)` and similar address operators are outside the model.
            let name = self.describe(self.peek());
            return Err(self.unsupported(format!(
                "unsupported initializer {name}, expected a value or symbol"
            )));
        }
        Ok(Initializer::Scalar(self.operand(depth + 1)?))
    }
}

/// `v2` → 2, `v4` → 4, `v8` → 8 (any width the model can hold, as the writer writes it).
fn vector_width(word: &str) -> Option<u8> {
    let digits = word.strip_prefix('v')?;
    if digits.starts_with('+') {
        return None;
    }
    digits.parse().ok()
}
