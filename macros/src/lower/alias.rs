//! Bindings that share an accumulator's registers, and reads of them after an assignment
//! overwrote those registers.
//!
//! `let done = acc.wait::<0>()` gives `done` the registers of `acc`: a wait completes the
//! products in place, and copying 64 to 128 registers at every wait would be work ptxas cannot
//! always remove. An assignment `acc = ...` then moves the new accumulator into the same
//! registers (a binding keeps its registers, so a loop carries it), and `done` would read the
//! new values. Rust accepts the program (`acc` was moved, and a moved binding may be assigned
//! again), so the lowering reports what it cannot compile faithfully instead of miscompiling it:
//! a read of `done` after the assignment, or before it in a loop that runs the assignment
//! again, is an error naming both places. A device function's names are its own (the inlining
//! sets these tables aside), so an assignment through a `&mut` accumulator parameter is not
//! followed into the caller.

use super::{Binding, HVal, Lowerer, Val};
use proc_macro2::Span;

/// An assignment that overwrote a binding's registers through another binding.
#[derive(Clone)]
pub(super) struct Clobber {
    /// Where the assignment is.
    at: Span,
    /// The binding assigned.
    assigned: String,
    /// The first register of the overwritten accumulator (a later binding of the same name to
    /// other registers is not affected).
    first: String,
}

/// The first register of an accumulator value.
fn first_register(val: &Val) -> Option<&str> {
    match val {
        Val::Handle(h) => match &**h {
            HVal::Acc(acc) => acc.regs.first().map(String::as_str),
            _ => None,
        },
        _ => None,
    }
}

impl Lowerer<'_> {
    /// `name = ...` is about to move a value into the registers of `dst`: every other binding
    /// holding an accumulator in those registers is overwritten. A read of one earlier in a loop
    /// that encloses the assignment but not the binding is reported now (the next iteration
    /// reads the new values); later reads are reported where they are ([`Lowerer::read_alias`]).
    pub(super) fn clobber_aliases(&mut self, name: &str, dst: &Val, at: Span) {
        let Some(first) = first_register(dst).map(str::to_string) else {
            return;
        };
        let mut aliases = Vec::new();
        for (depth, scope) in self.scopes.iter().enumerate() {
            for (alias, binding) in scope {
                if let Binding::Value { val, .. } = binding
                    && alias != name
                    && first_register(val) == Some(first.as_str())
                {
                    aliases.push((depth, alias.clone()));
                }
            }
        }
        for (depth, alias) in aliases {
            let read = self.alias_reads.get(&alias).copied();
            let loop_read = self
                .loop_starts
                .iter()
                .any(|&(start, scopes)| depth < scopes && read.is_some_and(|r| r > start));
            if loop_read {
                self.diag.error(
                    at,
                    format!(
                        "this assignment to `{name}` overwrites the registers of `{alias}`, \
                         which the loop reads before it: `{alias}` holds `{name}`'s registers \
                         (a `wait` gives an accumulator's own registers back), so the next \
                         iteration would read the new values; use `{alias}` before the loop, \
                         or keep the new accumulator in a binding of its own"
                    ),
                );
            }
            self.clobbers.insert(
                alias,
                Clobber {
                    at,
                    assigned: name.to_string(),
                    first: first.clone(),
                },
            );
        }
    }

    /// A read of the binding `name`, holding `val`: an error if an assignment through another
    /// binding overwrote its registers.
    pub(super) fn read_alias(&mut self, name: &str, val: &Val, at: Span) {
        self.read_serial += 1;
        self.alias_reads.insert(name.to_string(), self.read_serial);
        let Some(clobber) = self.clobbers.get(name) else {
            return;
        };
        if first_register(val) != Some(clobber.first.as_str()) {
            return;
        }
        let place = clobber.at.start();
        let assigned = clobber.assigned.clone();
        self.diag.error(
            at,
            format!(
                "`{name}` is read after the assignment to `{assigned}` at line {}, column {} \
                 overwrote its registers: `{name}` holds `{assigned}`'s registers (a `wait` gives \
                 an accumulator's own registers back); read `{name}` before that assignment, or \
                 assign the new accumulator to a new binding",
                place.line,
                place.column + 1
            ),
        );
    }

    /// A new binding of `name`: whatever overwrote an earlier one does not concern it.
    pub(super) fn forget_clobber(&mut self, name: &str) {
        self.clobbers.remove(name);
    }
}
