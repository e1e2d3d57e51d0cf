//! Warp-group register roles: `setmaxnreg.{dec,inc}.sync.aligned.u32 TO` (PTX ISA §9.7.19.5).
//! The checker has made sure the counts are valid and balance across the roles.

use super::{Lowerer, Val};
use crate::types::{Handle, Ty};
use phasegate_ptx::{Opcode, Operand};

impl Lowerer<'_> {
    /// `regs.release::<TO, GROUPS>()` / `regs.claim::<TO, GROUPS>()`, whose type (from the
    /// checker) carries `TO`.
    pub(super) fn register_role(&mut self, m: &syn::ExprMethodCall, ty: Ty) -> Val {
        let Ty::Handle(Handle::RoleRegisters(to)) = ty else {
            return self.internal_val("register role count");
        };
        let action = if m.method == "claim" { "inc" } else { "dec" };
        self.inst(
            Opcode::from_name("setmaxnreg"),
            &[action, "sync", "aligned", "u32"],
            vec![Operand::int(to as i64)],
        );
        Val::Unit
    }
}
