//! Checking attention's vocabulary: wgmma over two stages and from registers, masks, the
//! online softmax, and the ping-pong of two consumer warpgroups.
//!
//! rustc checks the states (an accumulator read while in flight, a turn taken twice); here the
//! sizes: that the boxes are operands a matrix descriptor can describe (K-major or N-major
//! tiles in rows of one 128-byte swizzle span, `CHUNKS` of them one after another), that they
//! fit the stages they are read from, and that the shapes of the product agree.

use super::{Checker, Slot};
use crate::handles::{self, Method};
use crate::types::{AccShape, Handle, MapShape, PipeShape, Prim, Ty, WgmmaInput};
use syn::Expr;
use syn::spanned::Spanned;

/// The largest `LOG2` of `lazy_rescale::<LOG2>()`: P reaches `2^LOG2`, and f16's largest
/// finite value is just under `2^16`.
const MAX_LAZY_LOG2: u64 = 15;

/// A box read as `CHUNKS` tiles of rows of one 128-byte swizzle span.
#[derive(Clone, Copy, Debug)]
pub struct ChunkedBox {
    /// Rows of each tile (dimension 1).
    pub rows: u32,
    /// Tiles one after another (dimension 2, 1 for a rank-2 box).
    pub chunks: u32,
    /// Elements in a row (dimension 0).
    pub row_elems: u32,
}

impl ChunkedBox {
    pub fn of(map: MapShape) -> ChunkedBox {
        ChunkedBox {
            rows: map.dims[1],
            chunks: if map.rank >= 3 { map.dims[2] } else { 1 },
            row_elems: map.dims[0],
        }
    }
}

impl Checker<'_> {
    /// `online_softmax(scale_log2)` and `ping_pong::<ID>(group)`.
    pub(super) fn attention_call(
        &mut self,
        softmax: bool,
        call: &syn::ExprCall,
        args: &[usize],
    ) -> usize {
        if softmax {
            let f = self.known(Ty::Prim(Prim::F32));
            self.unify(f, args[0], call.args[0].span());
            let p = self.softmax_element(&call.func);
            return self.known(Ty::Handle(Handle::Softmax(p)));
        }
        let u = self.known(Ty::Prim(Prim::U32));
        self.unify(u, args[0], call.args[0].span());
        let generics = self.generic_args(&call.func);
        let [id_arg, groups_arg] = generics.as_slice() else {
            self.diag.error(
                call.func.span(),
                "`ping_pong` takes the first of its barrier ids and the number of warp groups: `ping_pong::<ID, GROUPS>(group)`",
            );
            return self.fresh(Slot::Free);
        };
        let id = self.const_generic(id_arg, "first barrier id");
        let groups = self.const_generic(groups_arg, "number of warp groups");
        if let Some(g) = groups
            && !(2..=4).contains(&g)
        {
            self.diag.error(
                groups_arg.span(),
                format!("warp groups take turns in twos to fours: a CTA of up to 1024 threads has at most 4 consumer warp groups beside a producer, not {g}"),
            );
            return self.fresh(Slot::Free);
        }
        match (id, groups) {
            (Some(id), Some(groups)) if id + groups <= 16 => {
                self.known(Ty::Handle(Handle::PingPong(id as u32, groups as u32)))
            }
            (Some(id), Some(groups)) => {
                self.diag.error(
                    id_arg.span(),
                    format!("{groups} warp groups take turns on barriers {id} to {}: a CTA has named barriers 0..15 (PTX ISA §9.7.13.1), so the first id is at most {}", id + groups - 1, 16 - groups),
                );
                self.fresh(Slot::Free)
            }
            _ => self.fresh(Slot::Free),
        }
    }

    /// The accumulator methods of attention; `None` for the others.
    pub(super) fn attention_acc_method(
        &mut self,
        acc: AccShape,
        method: Method,
        m: &syn::ExprMethodCall,
    ) -> Option<usize> {
        let want = match method {
            Method::MmaTiles => 6,
            Method::MmaRegs => 4,
            Method::MaskColumns | Method::MaskCausal | Method::CommitBehind => 1,
            _ => return None,
        };
        if !self.method_arity(m, want) {
            return Some(self.fresh(Slot::Free));
        }
        match method {
            Method::MmaTiles => self.mma_tiles_operands(acc, m),
            Method::MmaRegs => self.mma_regs_operands(acc, m),
            Method::CommitBehind => {
                return Some(match self.acc_arg(&m.args[0]) {
                    Some(s) => self.known(Ty::Handle(Handle::Overlap {
                        n: s.n,
                        d: acc.n,
                        ready: false,
                    })),
                    None => self.fresh(Slot::Free),
                });
            }
            _ => {
                let v = self.operand(&m.args[0]);
                self.expect_u32(v, &m.args[0]);
            }
        }
        Some(self.known(Ty::Handle(Handle::Acc(acc))))
    }

    /// `acc.mma_tiles(&a_slot, &a, a_block, &b_slot, &b, b_offset)`.
    fn mma_tiles_operands(&mut self, acc: AccShape, m: &syn::ExprMethodCall) {
        let a_stage = self.stage_arg(&m.args[0]);
        let a = self.map_arg(&m.args[1]);
        let v = self.operand(&m.args[2]);
        self.expect_u32(v, &m.args[2]);
        let b_stage = self.stage_arg(&m.args[3]);
        let b = self.map_arg(&m.args[4]);
        let a_box = a.and_then(|a| self.chunked_box(a, &m.args[1], "A", false));
        let b_box = b.and_then(|b| self.chunked_box(b, &m.args[4], "B", false));
        if let (Some(map), Some(abox)) = (a, a_box) {
            if abox.rows == 0 || !abox.rows.is_multiple_of(64) {
                self.diag.error(
                    m.args[1].span(),
                    format!("the A box has {} rows: `mma_tiles` reads blocks of M = 64 rows of it, so its rows are a multiple of 64", abox.rows),
                );
            }
            self.fits_stage(a_stage, map, 0, &m.args[0], "A");
        }
        if let (Some(map), Some(bbox)) = (b, b_box) {
            if bbox.rows != acc.n {
                self.diag.error(
                    m.args[4].span(),
                    format!("the B box has {} rows; this wgmma reads N = {} rows of B, the accumulator's N", bbox.rows, acc.n),
                );
            }
            let offset = self.offset_arg(&m.args[5], map);
            if let Some(offset) = offset {
                self.fits_stage(b_stage, map, offset, &m.args[3], "B");
            }
        } else {
            let v = self.operand(&m.args[5]);
            self.expect_u32(v, &m.args[5]);
        }
        if let (Some(a), Some(b)) = (a_box, b_box)
            && a.row_elems * a.chunks != b.row_elems * b.chunks
        {
            self.diag.error(
                m.args[4].span(),
                format!(
                    "A's box spans K = {} and B's K = {}: one product needs the same K",
                    a.row_elems * a.chunks,
                    b.row_elems * b.chunks
                ),
            );
        }
    }

    /// The element `online_softmax::<E>` rounds P to: `bf16` (the default) or `f16`, the
    /// 16-bit floats wgmma multiplies from registers with an f32 accumulator.
    fn softmax_element(&mut self, func: &Expr) -> Prim {
        let generics = self.generic_args(func);
        match generics.as_slice() {
            [] => Prim::Bf16,
            [syn::GenericArgument::Type(t)] => match crate::params::scalar_type(t) {
                Some(p @ (Prim::Bf16 | Prim::F16)) => p,
                _ => {
                    self.diag.error(
                        t.span(),
                        "P is rounded to a 16-bit float for wgmma's A from registers: `online_softmax::<bf16>` or `online_softmax::<f16>` (§9.7.15.5.2)",
                    );
                    Prim::Bf16
                }
            },
            _ => {
                self.diag.error(
                    func.span(),
                    "`online_softmax` takes at most P's element type: `online_softmax::<f16>(scale_log2)`",
                );
                Prim::Bf16
            }
        }
    }

    /// `acc.mma_regs(&p, &b_slot, &b, b_offset)`.
    fn mma_regs_operands(&mut self, acc: AccShape, m: &syn::ExprMethodCall) {
        let fragment = self.handle_arg(
            &m.args[0],
            |h| match h {
                Handle::Fragment(k, p) => Some((k, p)),
                _ => None,
            },
            "`mma_regs` reads A from registers: pass a `Fragment` (`&p`, from `OnlineSoftmax::step`)",
        );
        let k = fragment.map(|(k, _)| k);
        let stage = self.stage_arg(&m.args[1]);
        let b = self.map_arg(&m.args[2]);
        // (A B of another element type, fp8, is refused with the N-major read.)
        if let (Some((_, p)), Some(map)) = (fragment, b)
            && map.elem != p
            && matches!(map.elem, Prim::Bf16 | Prim::F16)
        {
            self.diag.error(
                m.args[2].span(),
                format!(
                    "P is rounded to `{}` and B is `{}`: one product multiplies one element type; round P to B's (`online_softmax::<{}>(..)`)",
                    p.rust_name(),
                    map.elem.rust_name(),
                    map.elem.rust_name()
                ),
            );
        }
        let b_box = b.and_then(|b| self.chunked_box(b, &m.args[2], "B", true));
        if let (Some(map), Some(bbox)) = (b, b_box) {
            if bbox.row_elems * bbox.chunks != acc.n {
                self.diag.error(
                    m.args[2].span(),
                    format!("the B box's rows hold {} elements ({} × {}); read N-major they are the accumulator's N = {}", bbox.row_elems * bbox.chunks, bbox.chunks, bbox.row_elems, acc.n),
                );
            }
            if let Some(k) = k
                && bbox.rows != k
            {
                self.diag.error(
                    m.args[2].span(),
                    format!("the B box has {} rows, the fragment K = {k} columns: read N-major, B's rows are the product's K", bbox.rows),
                );
            }
            if let Some(offset) = self.offset_arg(&m.args[3], map) {
                self.fits_stage(stage, map, offset, &m.args[1], "B");
            }
        } else {
            let v = self.operand(&m.args[3]);
            self.expect_u32(v, &m.args[3]);
        }
    }

    /// A consumer slot argument (a wgmma reads its stage).
    pub(super) fn stage_arg(&mut self, e: &Expr) -> Option<PipeShape> {
        self.handle_arg(
            e,
            |h| match h {
                Handle::ConsumerSlot(s) => Some(s),
                _ => None,
            },
            "a wgmma operand is read from a full stage: pass the consumer slot (`&slot`)",
        )
    }

    /// The handle of kind `pick` an argument names, or an error saying `expected`. `None` also
    /// where an error was already reported on the argument.
    fn handle_arg<T>(
        &mut self,
        e: &Expr,
        pick: impl Fn(Handle) -> Option<T>,
        expected: &str,
    ) -> Option<T> {
        let v = self.operand(e);
        match self.resolve(v) {
            Slot::Known(Ty::Handle(h)) if pick(h).is_some() => pick(h),
            Slot::Free => None,
            _ => {
                let found = self.describe(v);
                self.diag
                    .error(e.span(), format!("{expected}, found `{found}`"));
                None
            }
        }
    }

    /// A box read by a matrix descriptor: wgmma's element, rows of one 128-byte swizzle span,
    /// dimensions past 2 of extent 1 (dimension 2 may count tiles).
    fn chunked_box(
        &mut self,
        map: MapShape,
        e: &Expr,
        which: &str,
        n_major: bool,
    ) -> Option<ChunkedBox> {
        let Some(input) = WgmmaInput::of(map.elem) else {
            self.diag.error(
                e.span(),
                format!("wgmma does not read `{}` operands here: it takes `bf16`, `f16`, `f8e4m3` and `f8e5m2`, and `f32` data as tf32 (PTX ISA §9.7.15.5.2)", map.elem),
            );
            return None;
        };
        if n_major && input.bytes != 2 {
            self.diag.error(
                e.span(),
                "wgmma reads an N-major (transposed) B only of 16-bit elements (imm-trans-b, PTX ISA §9.7.15.5.1.2)",
            );
            return None;
        }
        let b = ChunkedBox::of(map);
        if map.swizzle != 128 || b.row_elems * input.bytes != 128 {
            self.diag.error(
                e.span(),
                format!(
                    "the {which} box's rows are {} bytes with swizzle span {}: these products read tiles whose rows are one 128-byte swizzle span (`Tile3<{}, ROWS, CHUNKS>` with `Swizzle128B`)",
                    b.row_elems * input.bytes,
                    map.swizzle,
                    128 / input.bytes
                ),
            );
            return None;
        }
        if map.dims[3..].iter().any(|&d| d != 1) || !b.rows.is_multiple_of(8) {
            self.diag.error(
                e.span(),
                format!("the {which} box is `[{}, ROWS, CHUNKS, 1, 1]` with ROWS a multiple of 8 (whole swizzle atoms); dimensions 3 and 4 of a box read by wgmma have extent 1", b.row_elems),
            );
            return None;
        }
        Some(b)
    }

    /// A box's element offset in a stage: a constant at a multiple of its alignment.
    fn offset_arg(&mut self, e: &Expr, map: MapShape) -> Option<u64> {
        let v = self.operand(e);
        self.expect_u32(v, e);
        let Some(offset) = crate::params::const_value(e, &self.consts) else {
            self.diag.error(
                e.span(),
                "the box's offset in the stage is a constant (a literal or a kernel `const`): it places the box where `load_tiles` put it",
            );
            return None;
        };
        let bytes = offset * map.elem.size() as u64;
        if !bytes.is_multiple_of(map.box_alignment()) {
            self.diag.error(
                e.span(),
                format!("a box starts where its swizzle pattern does, at a multiple of {} bytes; element {offset} is byte {bytes}", map.box_alignment()),
            );
            return None;
        }
        Some(offset)
    }

    /// The box at `offset` lies within the stage and has its element type.
    fn fits_stage(
        &mut self,
        stage: Option<PipeShape>,
        map: MapShape,
        offset: u64,
        e: &Expr,
        which: &str,
    ) {
        let Some(stage) = stage else { return };
        if stage.elem.lanes != 1 || stage.elem.prim != map.elem {
            self.diag.error(
                e.span(),
                format!(
                    "the {which} map's elements are `{}`, the stage holds `{}`",
                    map.elem, stage.elem
                ),
            );
        } else if offset + map.box_elems() > stage.tile as u64 {
            self.diag.error(
                e.span(),
                format!(
                    "the {which} box takes elements {offset}..{} of a stage of {}",
                    offset + map.box_elems(),
                    stage.tile
                ),
            );
        }
    }

    /// `softmax.step(&s, &mut o)` and `softmax.finish(&mut o)`, of a softmax rounding P to `p`.
    pub(super) fn softmax_method(&mut self, p: Prim, m: &syn::ExprMethodCall) -> usize {
        let name = m.method.to_string();
        let Some((method, _, out)) = handles::lookup(Handle::Softmax(p), &name) else {
            let methods = handles::names(Handle::Softmax(p));
            return self.not_a_method(m, "`OnlineSoftmax`", methods);
        };
        match (method, &m.turbofish) {
            (Method::SoftmaxLazy, Some(t)) => match t.args.iter().collect::<Vec<_>>().as_slice() {
                [arg] => match self.const_generic(arg, "rescaling threshold") {
                    Some(log2) if !(1..=MAX_LAZY_LOG2).contains(&log2) => self.diag.error(
                        arg.span(),
                        format!(
                            "the threshold is a power of two's exponent from 1 to {MAX_LAZY_LOG2}, not {log2}: P reaches 2^LOG2 and must stay finite in f16"
                        ),
                    ),
                    _ => {}
                },
                _ => self.diag.error(
                    t.span(),
                    "`lazy_rescale` takes the threshold's base-2 exponent: `lazy_rescale::<8>()`",
                ),
            },
            (Method::SoftmaxLazy, None) => self.diag.error(
                m.method.span(),
                "`lazy_rescale` takes the threshold's base-2 exponent: `lazy_rescale::<8>()` (a row's maximum moves when a tile's passes it by 2^8)",
            ),
            (_, Some(t)) => self.diag.error(
                t.span(),
                "kernel-language methods take no generic arguments",
            ),
            _ => {}
        }
        let want = match method {
            Method::SoftmaxStep => 2,
            Method::SoftmaxLazy => 0,
            _ => 1,
        };
        if !self.method_arity(m, want) {
            return self.fresh(Slot::Free);
        }
        let accs: Vec<Option<AccShape>> = m.args.iter().map(|a| self.acc_arg(a)).collect();
        if method == Method::SoftmaxStep {
            if let Some(s) = accs[0] {
                return self.known(Ty::Handle(Handle::Fragment(s.n, p)));
            }
            return self.fresh(Slot::Free);
        }
        self.known(handles::result_type(Handle::Softmax(p), out))
    }

    /// `overlap.wait_scores()`, `overlap.scores()` and `overlap.softmax(&mut softmax, &mut p)`.
    pub(super) fn overlap_method(&mut self, h: Handle, m: &syn::ExprMethodCall) -> usize {
        let Handle::Overlap { n, d, .. } = h else {
            return self.fresh(Slot::Free);
        };
        let name = m.method.to_string();
        let Some((method, _, _)) = handles::lookup(h, &name) else {
            return self.not_a_method(m, &format!("`{h}` here"), handles::names(h));
        };
        let want = if method == Method::OverlapSoftmax {
            2
        } else {
            0
        };
        if !self.method_arity(m, want) {
            return self.fresh(Slot::Free);
        }
        let acc = |n| Ty::Handle(Handle::Acc(AccShape { elem: Prim::F32, n }));
        match method {
            Method::WaitScores => self.known(Ty::Handle(Handle::Overlap { n, d, ready: true })),
            Method::Scores => self.known(acc(n)),
            _ => {
                let sm = self.operand(&m.args[0]);
                let rounds = match self.resolve(sm) {
                    Slot::Known(Ty::Handle(Handle::Softmax(p))) => Some(p),
                    Slot::Free => None,
                    _ => {
                        let found = self.describe(sm);
                        self.diag.error(
                            m.args[0].span(),
                            format!(
                                "expected the online softmax (`&mut softmax`), found `{found}`"
                            ),
                        );
                        None
                    }
                };
                let p = self.operand(&m.args[1]);
                match self.resolve(p) {
                    Slot::Known(Ty::Handle(Handle::Fragment(k, e)))
                        if k == n && rounds.is_none_or(|r| r == e) => {}
                    Slot::Free => {}
                    _ => {
                        let found = self.describe(p);
                        self.diag.error(m.args[1].span(), format!("expected the fragment the scores' P goes to, a `Fragment` of K = {n} (`&mut p`), found `{found}`"));
                    }
                }
                self.known(acc(d))
            }
        }
    }

    fn acc_arg(&mut self, e: &Expr) -> Option<AccShape> {
        self.handle_arg(
            e,
            |h| match h {
                Handle::Acc(a) => Some(a),
                _ => None,
            },
            "expected a wgmma accumulator (`&s`, `&mut o`)",
        )
    }
}
