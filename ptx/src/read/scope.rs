//! Registers declared without `%` (`.reg .pred p;` in nvcc's inline-asm blocks) are
//! registers, not symbols: `selp.u32 %r76, 1, 0, p;` reads `p` as [`Operand::Reg`]. This
//! table knows which such names are in scope at each point of a body.
//!
//! [`Operand::Reg`]: crate::model::Operand::Reg

use crate::model::{StateSpace, VarDecl};
use std::collections::HashMap;

/// The `%`-less `.reg` names visible at the current point, following `{ }` scopes.
#[derive(Default)]
pub(super) struct RegScope {
    /// Live declarations per exact name (`p`), and per range prefix (`r` of `r<4>`).
    names: HashMap<String, u32>,
    ranges: HashMap<String, Vec<u32>>,
    /// Declarations in order, so that closing a scope can forget its own.
    log: Vec<(String, Option<u32>)>,
    /// `log` lengths at each open `{`.
    marks: Vec<usize>,
}

impl RegScope {
    pub(super) fn clear(&mut self) {
        *self = RegScope::default();
    }

    /// Records `decl` if it declares `%`-less registers.
    pub(super) fn declare(&mut self, decl: &VarDecl) {
        if decl.space != StateSpace::Reg || decl.name.starts_with('%') {
            return;
        }
        match decl.range {
            None => *self.names.entry(decl.name.clone()).or_default() += 1,
            Some(count) => self
                .ranges
                .entry(decl.name.clone())
                .or_default()
                .push(count),
        }
        self.log.push((decl.name.clone(), decl.range));
    }

    pub(super) fn open(&mut self) {
        self.marks.push(self.log.len());
    }

    pub(super) fn close(&mut self) {
        let mark = self.marks.pop().unwrap_or(0);
        while self.log.len() > mark {
            let Some((name, range)) = self.log.pop() else {
                break;
            };
            match range {
                None => {
                    if let Some(live) = self.names.get_mut(&name) {
                        *live -= 1;
                        if *live == 0 {
                            self.names.remove(&name);
                        }
                    }
                }
                Some(_) => {
                    if let Some(counts) = self.ranges.get_mut(&name) {
                        counts.pop();
                        if counts.is_empty() {
                            self.ranges.remove(&name);
                        }
                    }
                }
            }
        }
    }

    /// Whether `name` is a declared register: `p`, or `r3` under `.reg .b32 r<4>;`.
    pub(super) fn contains(&self, name: &str) -> bool {
        if self.names.contains_key(name) {
            return true;
        }
        // Most bodies declare no `%`-less register (only nvcc's inline asm does).
        if self.ranges.is_empty() {
            return false;
        }
        let prefix = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let digits = &name[prefix.len()..];
        // `r<4>` declares `r0` to `r3`; `r03` is another name.
        let Ok(index) = digits.parse::<u32>() else {
            return false;
        };
        if digits.len() > 1 && digits.starts_with('0') {
            return false;
        }
        self.ranges
            .get(prefix)
            .is_some_and(|counts| counts.iter().any(|&count| index < count))
    }
}
