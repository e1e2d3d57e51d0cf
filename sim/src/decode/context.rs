//! Module-wide decoding state ([`ModCx`]): the program being built, module-scope names, each
//! function's parameter frame; and what a name denotes ([`Sym`]), with the sizes and places of
//! variables.

use super::ops::Space;
use super::program::Program;
use phasegate_ptx::{Function, Module, VarDecl};
use rustc_hash::FxHashMap;

/// What a name denotes inside a function.
#[derive(Clone, Debug)]
pub(crate) enum Sym {
    Reg(u32),
    /// A variable: its address in `space` (shared offset, local offset, frame or kernel
    /// parameter offset, global address) and size.
    Var {
        space: Space,
        addr: u64,
        size: u64,
    },
    /// An `extern .shared` array without size: the dynamic shared memory.
    DynamicShared,
    /// Something the simulator cannot give an address (an initializer it cannot evaluate).
    Opaque(String),
}

/// A function's formal parameters in the frame.
#[derive(Clone, Debug, Default)]
pub(crate) struct FrameLayout {
    /// Parameter and return-parameter names with their frame offsets.
    pub names: Vec<(String, Sym)>,
    pub params: Vec<(u32, u32)>,
    pub rets: Vec<(u32, u32)>,
}

/// Module-wide decoding state.
pub(crate) struct ModCx<'m> {
    pub module: &'m Module,
    /// (`FxHashMap`s, as [`super::names::FnCx`]'s scopes: looked up, never iterated over.)
    pub globals: FxHashMap<String, Sym>,
    pub func_index: FxHashMap<String, u32>,
    /// Per function: its formal parameters and return parameters in the frame.
    pub frames: Vec<FrameLayout>,
    pub reachable: Vec<&'m Function>,
    pub recursive: Vec<String>,
    pub prog: Program,
}

/// The largest variable the simulator allocates (1 GiB).
pub(crate) const MAX_VAR_BYTES: u64 = 1 << 30;

/// Bytes of a declared variable; `[]` counts as zero; `None` when the size overflows.
pub(crate) fn var_bytes(decl: &VarDecl) -> Option<u64> {
    let elem = decl.ty.size() as u64 * decl.vector.unwrap_or(1) as u64;
    decl.array
        .iter()
        .try_fold(elem, |acc, d| acc.checked_mul(d.unwrap_or(0)))
}

/// Gives a `.shared` variable its offset in every CTA's shared window; `extern` arrays
/// without a size are the dynamic shared memory.
pub(crate) fn place_shared(prog: &mut Program, decl: &VarDecl) -> Sym {
    let align = decl.align.unwrap_or(decl.ty.size()).max(1);
    let size = var_bytes(decl).unwrap_or(u64::MAX).min(u32::MAX as u64);
    let dynamic = decl.array.iter().any(|d| d.is_none());
    if dynamic {
        prog.dynamic_shared_align = prog.dynamic_shared_align.max(align);
        prog.shared_vars.push((decl.name.clone(), u32::MAX, 0));
        return Sym::DynamicShared;
    }
    let offset = prog.shared_static_end.div_ceil(align).saturating_mul(align);
    prog.shared_static_end = offset.saturating_add(size as u32);
    prog.shared_vars
        .push((decl.name.clone(), offset, size as u32));
    Sym::Var {
        space: Space::Shared,
        addr: offset as u64,
        size,
    }
}
