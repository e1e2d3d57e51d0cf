//! Checking warp-group register roles (`setmaxnreg`, PTX ISA §9.7.19.5).
//!
//! `setmaxnreg.inc` waits until the CTA's pool holds the registers it asks for, so a kernel
//! whose roles take more than the others release hangs on the GPU; a count that is not a
//! multiple of 8 in 24..=256 is undefined. Each role site says how many warp groups take it,
//! which makes the balance a sum the macro checks against the block and `max_registers`.

use super::{Checker, Slot};
use crate::attr::LaunchBounds;
use crate::diag::Diagnostics;
use crate::types::{Handle, Ty};
use proc_macro2::Span;
use syn::spanned::Spanned;

/// One `release` / `claim` of the kernel.
#[derive(Clone, Copy, Debug)]
pub struct RegisterRole {
    pub span: Span,
    pub claim: bool,
    pub from: u32,
    pub to: u32,
    pub groups: u32,
}

/// Where the kernel took its budget, and its count.
#[derive(Clone, Copy, Debug)]
pub struct RegisterBudget {
    pub span: Span,
    pub registers: u32,
}

impl Checker<'_> {
    /// `warpgroup_registers::<N>()`.
    pub(super) fn register_budget(&mut self, call: &syn::ExprCall) -> usize {
        let generics = self.generic_args(&call.func);
        let [n] = generics.as_slice() else {
            self.diag.error(
                call.func.span(),
                "`warpgroup_registers` takes the kernel's `max_registers` as its generic argument: `warpgroup_registers::<168>()`",
            );
            return self.fresh(Slot::Free);
        };
        let Some(n) = self.const_generic(n, "register count") else {
            return self.fresh(Slot::Free);
        };
        let registers = n as u32;
        self.register_budgets.push(RegisterBudget {
            span: call.span(),
            registers,
        });
        self.known(Ty::Handle(Handle::Registers(registers)))
    }

    /// `regs.release::<TO, GROUPS>()` / `regs.claim::<TO, GROUPS>()`.
    pub(super) fn register_role(&mut self, from: u32, m: &syn::ExprMethodCall) -> usize {
        let claim = match m.method.to_string().as_str() {
            "claim" => true,
            "release" => false,
            other => {
                self.diag.error(
                    m.method.span(),
                    format!("`{other}` is not a method of `Registers`; its methods: release::<TO, GROUPS>, claim::<TO, GROUPS>"),
                );
                return self.fresh(Slot::Free);
            }
        };
        if !m.args.is_empty() {
            self.diag.error(
                m.span(),
                format!(
                    "`{}` takes no arguments: its count and warp groups are generic arguments",
                    m.method
                ),
            );
        }
        let generics: Vec<&syn::GenericArgument> =
            m.turbofish.iter().flat_map(|t| t.args.iter()).collect();
        let [to, groups] = generics.as_slice() else {
            self.diag.error(
                m.method.span(),
                format!("`{}` takes the new register count and the number of warp groups in this role: `{}::<232, 2>()`", m.method, m.method),
            );
            return self.fresh(Slot::Free);
        };
        let (Some(to), Some(groups)) = (
            self.const_generic(to, "register count"),
            self.const_generic(groups, "number of warp groups"),
        ) else {
            return self.fresh(Slot::Free);
        };
        let (to, groups) = (to as u32, groups as u32);
        let mut ok = true;
        if !(24..=256).contains(&to) || !to.is_multiple_of(8) {
            self.diag.error(generics[0].span(), format!("`setmaxnreg` sets a multiple of 8 from 24 to 256 registers; {to} is not (PTX ISA §9.7.19.5)"));
            ok = false;
        } else if claim && to <= from {
            self.diag.error(generics[0].span(), format!("a role claims more than the {from} registers it has; {to} is not more (release registers with `release`)"));
            ok = false;
        } else if !claim && to >= from {
            self.diag.error(generics[0].span(), format!("a role releases registers down from its {from}; {to} is not fewer (take registers with `claim`)"));
            ok = false;
        }
        if groups == 0 {
            self.diag.error(
                generics[1].span(),
                "a role is taken by at least one warp group",
            );
            ok = false;
        }
        if ok {
            self.register_roles.push(RegisterRole {
                span: m.method.span(),
                claim,
                from,
                to,
                groups,
            });
        }
        self.known(Ty::Handle(Handle::RoleRegisters(to)))
    }
}

/// The kernel-wide rules: the budget is the kernel's `max_registers`, the roles fit the block's
/// warp groups, and the roles claim no more registers than the others release.
pub fn check_roles(
    budgets: &[RegisterBudget],
    roles: &[RegisterRole],
    bounds: &LaunchBounds,
    diag: &mut Diagnostics,
) {
    let Some(first) = budgets.first() else {
        return;
    };
    let Some(max) = bounds.max_registers else {
        diag.error(first.span, "register roles start from the kernel's register count: add `max_registers = N` to `#[kernel]` (ptxas then gives every thread N registers, the count `setmaxnreg` moves from)");
        return;
    };
    for b in budgets {
        if b.registers != max {
            diag.error(
                b.span,
                format!("the kernel has `max_registers = {max}`; the budget is `warpgroup_registers::<{max}>()`, not {}", b.registers),
            );
        }
    }
    let Some(threads) = bounds.block.map(|(x, y, z)| x * y * z) else {
        diag.error(first.span, "register roles are taken by whole warp groups of a known block: add `block = \"x,y,z\"` to `#[kernel]`");
        return;
    };
    if !threads.is_multiple_of(128) {
        diag.error(first.span, format!("`setmaxnreg` is executed by whole warp groups of 128 threads; the block has {threads}"));
        return;
    }
    let groups = threads / 128;
    let taken: u32 = roles.iter().map(|r| r.groups).sum();
    if taken > groups {
        for r in roles {
            diag.error(
                r.span,
                format!("the roles are taken by {taken} warp groups; the block has {groups}"),
            );
        }
        return;
    }
    // In registers per thread × warp groups: what the releases put in the pool and what the
    // claims take out of it (each of a warp group's 128 threads alike).
    let released: u32 = roles
        .iter()
        .filter(|r| !r.claim)
        .map(|r| (r.from - r.to) * r.groups)
        .sum();
    let claimed: u32 = roles
        .iter()
        .filter(|r| r.claim)
        .map(|r| (r.to - r.from) * r.groups)
        .sum();
    if claimed > released {
        for r in roles.iter().filter(|r| r.claim) {
            diag.error(r.span, format!("the claims take {claimed} registers a thread (summed over their warp groups) and the releases give back {released}: `setmaxnreg.inc` would wait forever for the rest (PTX ISA §9.7.19.5)"));
        }
    }
}
