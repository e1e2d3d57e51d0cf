//! Checking wgmma accumulators and the stage operands they read.
//!
//! rustc checks the accumulator's asynchronous state on the copy it type-checks (what may be
//! read, committed, waited for). What needs the sizes of types is checked here, on the user's
//! tokens: the accumulator's shape (§9.7.15.5.2: M = 64, N a multiple of 8 up to 256), and
//! that a stage's boxes are operands the instruction can read through a matrix descriptor: of
//! an element type wgmma takes, `64` rows of A and `N` rows of B, K contiguous in rows of
//! exactly one swizzle span (the K-major swizzled layouts of §9.7.15.5.1.2.1.3), laid out as
//! `load_tiles(&a, .., &b, ..)` puts them.

use super::{Checker, Slot};
use crate::handles;
use crate::types::{AccShape, Handle, MapShape, PipeShape, Prim, Ty, WgmmaInput};
use syn::spanned::Spanned;
use syn::{Expr, GenericArgument};

/// The largest `K` of `wait::<K>()` the accumulator's type tracks.
const MAX_PENDING: u64 = 6;

impl Checker<'_> {
    /// `accumulator::<f32, 64, N>()`.
    pub(super) fn accumulator_shape(&mut self, func: &Expr) -> Option<AccShape> {
        let generics = self.generic_args(func);
        let [GenericArgument::Type(t), m, n] = generics.as_slice() else {
            self.diag.error(
                func.span(),
                "`accumulator` takes its element type and shape: `accumulator::<f32, 64, 128>()`",
            );
            return None;
        };
        let elem = crate::params::scalar_type(t);
        if elem != Some(Prim::F32) {
            self.diag.error(
                t.span(),
                "wgmma accumulators here are `f32` (`.f32` D of §9.7.15.5.2)",
            );
        }
        let (m_val, n_val) = (
            self.const_generic(m, "accumulator's M"),
            self.const_generic(n, "accumulator's N"),
        );
        if let Some(mv) = m_val
            && mv != 64
        {
            self.diag.error(
                m.span(),
                format!("a warpgroup's wgmma accumulator has M = 64, not {mv} (m64nNkK, PTX ISA §9.7.15.5.2)"),
            );
            return None;
        }
        let n_val = n_val?;
        if !(8..=256).contains(&n_val) || n_val % 8 != 0 {
            self.diag.error(
                n.span(),
                format!(
                    "wgmma's N is a multiple of 8 from 8 to 256, not {n_val} (PTX ISA §9.7.15.5.2)"
                ),
            );
            return None;
        }
        (elem == Some(Prim::F32) && m_val.is_some()).then_some(AccShape {
            elem: Prim::F32,
            n: n_val as u32,
        })
    }

    /// The methods of an accumulator.
    pub(super) fn acc_method(&mut self, acc: AccShape, m: &syn::ExprMethodCall) -> usize {
        let name = m.method.to_string();
        let Some((method, _, out)) = handles::lookup(Handle::Acc(acc), &name) else {
            return self.not_a_method(m, "`Acc`", handles::names(Handle::Acc(acc)));
        };
        use crate::handles::Method as M;
        match (method, &m.turbofish) {
            (M::AccWait, Some(t)) => match t.args.iter().collect::<Vec<_>>().as_slice() {
                [arg] => match self.const_generic(arg, "number of groups left pending") {
                    Some(k) if k > MAX_PENDING => self.diag.error(
                        arg.span(),
                        format!("an accumulator's type tracks at most 7 groups, so `wait::<K>()` has K up to {MAX_PENDING}, not {k}"),
                    ),
                    Some(k) => {
                        self.wait_counts.insert(m as *const syn::ExprMethodCall, k as u32);
                    }
                    None => {}
                },
                _ => self.diag.error(
                    t.span(),
                    "`wait` takes the number of groups left pending: `wait::<1>()`",
                ),
            },
            (M::AccWait, None) => self.diag.error(
                m.method.span(),
                "`wait` takes the number of groups left pending: `wait::<1>()` (`wait::<0>()` for all)",
            ),
            (_, Some(t)) => self.diag.error(
                t.span(),
                "kernel-language methods take no generic arguments",
            ),
            _ => {}
        }
        if let Some(result) = self.attention_acc_method(acc, method, m) {
            return result;
        }
        let want = match method {
            M::Mma => 3,
            M::MmaBlock => 4,
            M::AccStage
            | M::AccStageTransposed
            | M::AccStage32
            | M::AccStage16
            | M::AccStageTransposed16
            | M::AccStageTransposed32 => 3,
            M::AccGet | M::AccRow | M::AccCol => 1,
            M::AccStore => 3,
            M::AccStorePartial => 4,
            M::AccScale | M::AccAdd | M::WaitBehind => 1,
            _ => 0,
        };
        if !self.method_arity(m, want) {
            return self.fresh(Slot::Free);
        }
        match method {
            M::Mma => self.mma_operands(acc, m, false),
            M::MmaBlock => {
                self.mma_operands(acc, m, true);
                let v = self.operand(&m.args[3]);
                self.expect_u32(v, &m.args[3]);
            }
            M::AccStage | M::AccStageTransposed => self.stage_operands(acc, m, 64, 128),
            M::AccStage32 => self.stage_operands(acc, m, 32, 64),
            M::AccStage16 => self.stage_operands(acc, m, 16, 32),
            M::AccStageTransposed16 => self.stage_operands(acc, m, 16, 128),
            M::AccStageTransposed32 => self.stage_operands(acc, m, 32, 128),
            M::AccStorePartial => self.store_partial_operands(acc, m),
            M::AccScale => {
                let factor = self.operand(&m.args[0]);
                let f = self.known(Ty::Prim(Prim::F32));
                self.unify(f, factor, m.args[0].span());
            }
            M::AccAdd => {
                let other = self.operand(&m.args[0]);
                let want = format!("`Acc<{}, 64, {}>`", acc.elem, acc.n);
                match self.ty(other) {
                    Some(Ty::Handle(Handle::Acc(o))) if o == acc => {}
                    None => {}
                    Some(Ty::Handle(Handle::Acc(o))) => self.diag.error(
                        m.args[0].span(),
                        format!(
                            "`add` takes an accumulator of the receiver's shape, {want}, found `Acc<{}, 64, {}>`",
                            o.elem, o.n
                        ),
                    ),
                    Some(found) => self.diag.error(
                        m.args[0].span(),
                        format!(
                            "`add` takes an accumulator of the receiver's shape, {want}, found `{found}`"
                        ),
                    ),
                }
            }
            M::AccGet | M::AccRow | M::AccCol => {
                let v = self.operand(&m.args[0]);
                self.expect_u32(v, &m.args[0]);
                match crate::params::const_value(&m.args[0], &self.consts) {
                    Some(i) if i >= acc.n as u64 / 2 => self.diag.error(
                        m.args[0].span(),
                        format!(
                            "each thread holds {} elements of an `Acc<_, 64, {}>`; {i} is out of range",
                            acc.n / 2,
                            acc.n
                        ),
                    ),
                    Some(_) => {}
                    None => self.diag.error(
                        m.args[0].span(),
                        "an accumulator element is named by a constant (a literal or a kernel `const`): each is a register of its own",
                    ),
                }
            }
            M::WaitBehind => {
                let newer = self.operand(&m.args[0]);
                match self.ty(newer) {
                    Some(Ty::Handle(Handle::Acc(_))) | None => {}
                    Some(found) => self.diag.error(
                        m.args[0].span(),
                        format!(
                            "`wait_behind` takes the accumulator whose group was committed after the receiver's (`&newer`), found `{found}`"
                        ),
                    ),
                }
            }
            M::AccStore => {
                self.written_slice_param(
                    &m.args[0],
                    acc.elem,
                    |other| format!(
                        "an `Acc<{}, 64, {}>` is stored to a `&mut [{}]` parameter, found `{other}`",
                        acc.elem, acc.n, acc.elem
                    ),
                    "name the slice parameter the accumulator is stored to (`acc.store(c, index, ld)`)",
                );
                for a in m.args.iter().skip(1) {
                    let v = self.operand(a);
                    self.expect_u32(v, a);
                }
            }
            _ => {}
        }
        self.known(handles::result_type(Handle::Acc(acc), out))
    }

    /// `acc.mma(&slot, &a, &b)`: the stage holds `a`'s box and then `b`'s, both readable by a
    /// wgmma of the accumulator's shape.
    fn mma_operands(&mut self, acc: AccShape, m: &syn::ExprMethodCall, block: bool) {
        let stage = self.stage_arg(&m.args[0]);
        let a = self.map_arg(&m.args[1]);
        let b = self.map_arg(&m.args[2]);
        // `mma_block`: A's box holds 64 rows per warpgroup; on a cluster pipeline B's rows may
        // be the slices of `load_tiles_multicast`, one box per CTA.
        let a_rows = match a {
            Some(a) if block && a.dims[1] % 64 == 0 && a.dims[1] > 0 => a.dims[1],
            _ => 64,
        };
        let ctas = stage.map_or(1, |s| s.ctas);
        let b_rows = match b {
            Some(b) if block && ctas > 1 && b.dims[1] * ctas == acc.n => b.dims[1],
            _ => acc.n,
        };
        if let Some(a) = a {
            self.operand_box(a, a_rows, "A", &m.args[1], stage);
        }
        if let Some(b) = b {
            self.operand_box(b, b_rows, "B", &m.args[2], stage);
        }
        if let (Some(a), Some(b), Some(stage)) = (a, b, stage) {
            let stage_bytes = stage.tile as u64 * stage.elem.size() as u64;
            let boxes = a.box_bytes() + b.box_bytes() * (acc.n / b_rows.max(1)) as u64;
            if boxes != stage_bytes {
                self.diag.error(
                    m.method.span(),
                    format!(
                        "the two boxes are {boxes} bytes, the stage {stage_bytes}: `mma` reads the stage as `load_tiles(&a, .., &b, ..)` fills it, `a`'s box first and `b`'s right after it"
                    ),
                );
            }
            if a.dims[0] != b.dims[0] && a.elem == b.elem {
                self.diag.error(
                    m.args[2].span(),
                    format!(
                        "A's box spans K = {} and B's K = {}: one product needs the same K",
                        a.dims[0], b.dims[0]
                    ),
                );
            }
        }
    }

    /// `acc.stage_columns(&mut tile, index, block)` (and `stage_columns_transposed`): a shared
    /// tile of 64 × 64 bf16 or f16 (as 2048 pairs) and a constant column block of the
    /// accumulator; `stage_columns_32` (`width` 32): tiles of 64 × 32 (1024 pairs) and blocks
    /// of 32 columns; `stage_columns_16` (`width` 16): 64 × 16 (512 pairs), blocks of 16;
    /// `stage_columns_transposed_16` and `_32`: those blocks as 16 or 32 rows of 64. `swizzle`
    /// is the tile's row in bytes: `2 · width`, or 128 for a transposed tile.
    fn stage_operands(&mut self, acc: AccShape, m: &syn::ExprMethodCall, width: u32, swizzle: u32) {
        let pairs = 32 * width as u64;
        // The swizzle of rows of `swizzle` bytes repeats every 8 rows: 1024 bytes (256 pairs)
        // for 128-byte rows, 512 (128 pairs) for 64-byte ones, 256 (64 pairs) for 32-byte ones,
        // where a tile must start.
        let align = 2 * swizzle as u64;
        // Rows × columns: a transposed tile has the block's columns as its rows.
        let shape = if swizzle == 2 * width {
            format!("64 × {width}")
        } else {
            format!("{width} × 64")
        };
        let tile = self.operand(&m.args[0]);
        match self.resolve(tile) {
            Slot::Known(Ty::Shared { elem, len })
                if matches!(elem.prim, Prim::Bf16 | Prim::F16)
                    && elem.lanes == 2
                    && len.is_multiple_of(pairs) => {}
            Slot::Free => {}
            _ => {
                let found = self.describe(tile);
                self.diag.error(
                    m.args[0].span(),
                    format!("`{}` writes {shape} tiles of 16-bit floats as {pairs} pairs: a `shared_array::<[bf16; 2], N>()` (or `[f16; 2]`) with N a multiple of {pairs}, found `{found}`", m.method),
                );
            }
        }
        let index = self.operand(&m.args[1]);
        self.expect_u32(index, &m.args[1]);
        if let Some(i) = crate::params::const_value(&m.args[1], &self.consts)
            && !i.is_multiple_of(align)
        {
            self.diag.error(m.args[1].span(), format!("a tile starts where its {swizzle}-byte swizzle pattern does, at a multiple of {align} pairs ({} bytes); {i} is not", 4 * align));
        }
        let v = self.operand(&m.args[2]);
        self.expect_u32(v, &m.args[2]);
        match crate::params::const_value(&m.args[2], &self.consts) {
            // The block's registers must lie in the accumulator: a whole block of `width`
            // columns (an N that is not a multiple leaves a narrower rest no block covers).
            Some(cb) if cb >= (acc.n / width) as u64 => self.diag.error(
                m.args[2].span(),
                format!(
                    "an `Acc<_, 64, {}>` has {} of {width} columns; {cb} is not one of them",
                    acc.n,
                    match acc.n / width {
                        1 => "one block (0)".to_string(),
                        blocks => format!("{blocks} blocks"),
                    }
                ),
            ),
            Some(_) => {}
            None => self.diag.error(
                m.args[2].span(),
                "the column block is a constant (a literal or a kernel `const`): it names registers",
            ),
        }
    }

    /// One operand's box: element, rank, rows, K-major rows of one swizzle span.
    fn operand_box(
        &mut self,
        map: MapShape,
        rows: u32,
        which: &str,
        e: &Expr,
        stage: Option<PipeShape>,
    ) {
        if let Some(stage) = stage
            && (stage.elem.lanes != 1 || stage.elem.prim != map.elem)
        {
            self.diag.error(
                e.span(),
                format!(
                    "the map's elements are `{}`, the stage holds `{}`",
                    map.elem, stage.elem
                ),
            );
        }
        let Some(input) = WgmmaInput::of(map.elem) else {
            self.diag.error(
                e.span(),
                format!(
                    "wgmma does not read `{}` operands here: it takes `bf16`, `f16`, `f8e4m3` and `f8e5m2`, and `f32` data as tf32 (PTX ISA §9.7.15.5.2)",
                    map.elem
                ),
            );
            return;
        };
        if map.rank != 2 {
            self.diag.error(
                e.span(),
                format!("a wgmma operand's box is two-dimensional, `Tile2<K, ROWS>` (K contiguous); this map's has rank {}", map.rank),
            );
            return;
        }
        let (k, r) = (map.dims[0], map.dims[1]);
        if r != rows {
            let why = if which == "A" {
                "M = 64 rows of A".to_string()
            } else {
                format!("N = {rows} rows of B, the accumulator's N")
            };
            self.diag.error(
                e.span(),
                format!(
                    "the {which} box has {r} rows; this wgmma reads {why} (`Tile2<{k}, {rows}>`)"
                ),
            );
        }
        let row_bytes = k * input.bytes;
        if map.swizzle == 0 {
            let fix = if matches!(row_bytes, 32 | 64 | 128) {
                format!("swizzle it by its {row_bytes}-byte rows: `Swizzle{row_bytes}B`")
            } else {
                format!(
                    "make its rows 32, 64 or 128 bytes and swizzle them by that span, e.g. `Tile2<{}, {r}>` with `Swizzle128B`",
                    128 / input.bytes
                )
            };
            self.diag.error(
                e.span(),
                format!(
                    "the {which} box is not swizzled; wgmma reads K-major tiles in the swizzled layouts here: {fix}"
                ),
            );
        } else if row_bytes != map.swizzle {
            self.diag.error(
                e.span(),
                format!(
                    "the {which} box's rows are {row_bytes} bytes ({k} × `{}`), its swizzle span {}: the matrix descriptor's swizzled K-major layout has rows of exactly the span (`Tile2<{}, {r}>` with `{}`)",
                    map.elem,
                    map.swizzle,
                    map.swizzle / input.bytes,
                    map.swizzle_name()
                ),
            );
        }
    }
}
