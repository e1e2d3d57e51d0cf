//! Checking tensor maps and the copies that use them.
//!
//! A map's type fixes its element, box and swizzle, so a copy's size is known here. What the
//! driver or the copy engine would refuse at run time, or silently get wrong, is a compile
//! error on the user's tokens: a box that does not fill the stage it is loaded into (the
//! stage's mbarrier would wait for bytes that never come, or complete early), an element
//! type other than the stage's, coordinates of the wrong rank, a stage that breaks the
//! alignment the copy engine and the swizzle need.

use super::{Checker, Slot};
use crate::types::{MapShape, PipeShape, Prim, Ty};
use syn::Expr;
use syn::spanned::Spanned;

/// Whether `e` is a name, or a reference to one (`map`, `&map`), as the lowering finds maps.
fn names_a_map(e: &Expr) -> bool {
    match e {
        Expr::Reference(r) => names_a_map(&r.expr),
        Expr::Paren(p) => names_a_map(&p.expr),
        Expr::Group(g) => names_a_map(&g.expr),
        Expr::Path(p) => p.path.get_ident().is_some(),
        _ => false,
    }
}

impl Checker<'_> {
    /// `map.prefetch()`, `map.edit(slots, i)`, `map.published(slots, i)`.
    pub(super) fn map_method(&mut self, map: MapShape, m: &syn::ExprMethodCall) -> usize {
        match m.method.to_string().as_str() {
            "prefetch" => {
                self.method_arity(m, 0);
                self.known(Ty::Unit)
            }
            method @ ("edit" | "published") => {
                if self.method_arity(m, 2) {
                    self.slots_arg(&m.args[0]);
                    let i = self.operand(&m.args[1]);
                    self.expect_u32(i, &m.args[1]);
                }
                self.known(if method == "edit" {
                    Ty::MapEdit(map)
                } else {
                    Ty::TensorMap(map)
                })
            }
            _ => self.not_a_method(m, "`TensorMap`", "prefetch, edit, published"),
        }
    }

    /// The `tensormap.replace` chain of `map.edit(..)`: `.address(data, i)`,
    /// `.global_dim(DIM, extent)`, then `.release()`.
    pub(super) fn map_edit_method(&mut self, map: MapShape, m: &syn::ExprMethodCall) -> usize {
        match m.method.to_string().as_str() {
            "address" => {
                if self.method_arity(m, 2) {
                    let data = self.operand(&m.args[0]);
                    if let Some(elem) = self.global_elem(data, &m.args[0])
                        && (elem.prim != map.elem || elem.lanes != 1)
                    {
                        self.diag.error(
                            m.args[0].span(),
                            format!(
                                "the map's elements are `{}`, and this slice's are `{elem}`; a map addresses a tensor of its own element type",
                                map.elem
                            ),
                        );
                    }
                    let i = self.operand(&m.args[1]);
                    self.expect_u32(i, &m.args[1]);
                }
                self.known(Ty::MapEdit(map))
            }
            "global_dim" => {
                if self.method_arity(m, 2) {
                    match crate::params::literal_u64(&m.args[0]) {
                        Some(d) if d < map.rank as u64 => {}
                        Some(d) => self.diag.error(
                            m.args[0].span(),
                            format!(
                                "dimension {d} of a map of rank {}; its dimensions are 0 to {}",
                                map.rank,
                                map.rank - 1
                            ),
                        ),
                        None => self.diag.error(
                            m.args[0].span(),
                            "the dimension is an integer literal (`tensormap.replace` takes it as an immediate)",
                        ),
                    }
                    self.expr(&m.args[0]);
                    let extent = self.operand(&m.args[1]);
                    self.expect_u32(extent, &m.args[1]);
                }
                self.known(Ty::MapEdit(map))
            }
            "release" => {
                self.method_arity(m, 0);
                self.known(Ty::Unit)
            }
            _ => self.not_a_method(m, "a map edit", "address, global_dim, release"),
        }
    }

    /// The slots of `edit` and `published`: the `&mut [TensorMapSlot]` parameter, by name.
    fn slots_arg(&mut self, e: &Expr) {
        let v = self.operand(e);
        match self.resolve(v) {
            Slot::Known(Ty::MapSlots) if !names_a_map(e) => self
                .diag
                .error(e.span(), "name the `&mut [TensorMapSlot]` parameter here"),
            Slot::Known(Ty::MapSlots) | Slot::Free => {}
            _ => {
                let found = self.describe(v);
                self.diag.error(
                    e.span(),
                    format!(
                        "expected the tensor-map slots (a `&mut [TensorMapSlot]` parameter), found `{found}`"
                    ),
                );
            }
        }
    }

    /// The tensor map an argument names (`&map` or `map`).
    pub(super) fn map_arg(&mut self, e: &Expr) -> Option<MapShape> {
        let v = self.operand(e);
        match self.resolve(v) {
            Slot::Known(Ty::TensorMap(_)) if !names_a_map(e) => {
                self.diag
                    .error(e.span(), "name the tensor map parameter here (`&map`)");
                None
            }
            Slot::Known(Ty::TensorMap(m)) => Some(m),
            // An error already reported.
            Slot::Free => None,
            _ => {
                let found = self.describe(v);
                self.diag.error(
                    e.span(),
                    format!("expected a tensor map parameter, found `{found}`"),
                );
                None
            }
        }
    }

    /// The coordinates of a box: an array expression of `rank` `u32` values, or a `[u32; 2]` /
    /// `[u32; 4]` value of that rank.
    fn coords(&mut self, e: &Expr, map: Option<MapShape>) {
        let Expr::Array(arr) = e else {
            let v = self.expr(e);
            match (self.ty(v), map) {
                (None, _) => {}
                (Some(Ty::Vector(Prim::U32, n)), Some(m)) if n == m.rank => {}
                (Some(Ty::Vector(Prim::U32, _)), None) => {}
                (Some(other), _) => self.diag.error(
                    e.span(),
                    format!(
                        "the coordinates of a box are `[u32; {}]` (an array `[x, y, ..]`, dimension 0 first), found `{other}`",
                        map.map_or(0, |m| m.rank)
                    ),
                ),
            }
            return;
        };
        for item in &arr.elems {
            let v = self.operand(item);
            let u = self.known(Ty::Prim(Prim::U32));
            self.unify(u, v, item.span());
        }
        if let Some(map) = map
            && arr.elems.len() != map.rank as usize
        {
            self.diag.error(
                e.span(),
                format!(
                    "the map has rank {}, so a box is named by {} coordinates; found {}",
                    map.rank,
                    map.rank,
                    arr.elems.len()
                ),
            );
        }
    }

    /// `slot.load_tile(&map, [..])`, `slot.load_tiles(&a, [..], &b, [..])` and, on a cluster
    /// pipeline, `slot.load_tiles_multicast(&a, [..], &b, [..])`: the boxes must be of the
    /// stage's element type and fill the stage exactly (a multicast box once per CTA, each
    /// CTA's at its rank's place), each at an offset the copy engine and its swizzle accept.
    pub(super) fn tile_load(&mut self, shape: PipeShape, m: &syn::ExprMethodCall) -> usize {
        let multicast = m.method == "load_tiles_multicast";
        let pairs = if m.method == "load_tile" { 1 } else { 2 };
        if m.args.len() != 2 * pairs {
            let form = match (pairs, multicast) {
                (1, _) => "`load_tile(&map, [x, y, ..])`",
                (_, false) => "`load_tiles(&a, [x, y, ..], &b, [x, y, ..])`",
                (_, true) => "`load_tiles_multicast(&a, [x, y, ..], &b, [x, y, ..])`",
            };
            self.diag.error(
                m.span(),
                format!(
                    "{form} takes {} arguments, found {}",
                    2 * pairs,
                    m.args.len()
                ),
            );
            for a in &m.args {
                self.expr(a);
            }
            return self.fresh(Slot::Free);
        }
        if multicast && shape.ctas < 2 {
            self.diag.error(
                m.method.span(),
                "a multicast fills the stage of every CTA of the cluster, whose consumers must all release it first: make the pipeline with `pipeline_cluster::<T, STAGES, TILE, CTAS>`",
            );
        }
        let stage_bytes = shape.tile as u64 * shape.elem.size() as u64;
        let mut offset = 0u64;
        let mut all_known = true;
        for pair in 0..pairs {
            let (map_expr, coords) = (&m.args[2 * pair], &m.args[2 * pair + 1]);
            let map = self.map_arg(map_expr);
            self.coords(coords, map);
            let Some(map) = map else {
                all_known = false;
                continue;
            };
            if map.elem != shape.elem.prim {
                self.diag.error(
                    map_expr.span(),
                    format!(
                        "the map's elements are `{}`, the pipeline's stages hold `{}`",
                        map.elem, shape.elem
                    ),
                );
            }
            let align = map.box_alignment();
            let spread = multicast && pair == 1;
            let misplaced =
                !offset.is_multiple_of(align) || spread && !map.box_bytes().is_multiple_of(align);
            if misplaced {
                self.diag.error(
                    map_expr.span(),
                    format!(
                        "this box would start {offset} bytes into the stage{}; a {} box starts at a multiple of {align} bytes",
                        if spread { " (and one box further for each CTA rank)" } else { "" },
                        if map.swizzle == 0 { "tensor-copy".to_string() } else { format!("{}-byte swizzled", map.swizzle) },
                    ),
                );
            }
            if !stage_bytes.is_multiple_of(align) {
                self.diag.error(
                    map_expr.span(),
                    format!(
                        "a stage is {stage_bytes} bytes; boxes of this map start at multiples of {align} bytes, so every stage must be a multiple of {align}"
                    ),
                );
            }
            offset += map.box_bytes() * if spread { shape.ctas as u64 } else { 1 };
        }
        if all_known && offset != stage_bytes {
            let what = match (pairs, multicast) {
                (1, _) => "the box is".to_string(),
                (_, false) => "the two boxes are".to_string(),
                (_, true) => format!(
                    "the first box and {} multicast box{} are",
                    shape.ctas,
                    if shape.ctas == 1 { "" } else { "es" }
                ),
            };
            self.diag.error(
                m.method.span(),
                format!(
                    "{what} {offset} bytes, the stage {stage_bytes} ({} × `{}`): the stage's full barrier expects exactly the bytes its copies complete (PTX ISA §9.7.13.15.5)",
                    shape.tile, shape.elem
                ),
            );
        }
        self.known(Ty::Unit)
    }

    /// `tma_store(&map, [..], &src, index)`.
    pub(super) fn tma_store(&mut self, call: &syn::ExprCall) -> usize {
        if call.args.len() != 4 {
            self.diag.error(
                call.span(),
                format!(
                    "`tma_store(&map, [x, y, ..], &src, index)` takes 4 arguments, found {}",
                    call.args.len()
                ),
            );
            for a in &call.args {
                self.expr(a);
            }
            return self.fresh(Slot::Free);
        }
        let map = self.map_arg(&call.args[0]);
        self.coords(&call.args[1], map);
        let src = self.expr(&call.args[2]);
        let src_elem = self.shared_elem(src, &call.args[2]);
        let index = self.expr(&call.args[3]);
        self.expect_u32(index, &call.args[3]);
        if let (Some(map), Some(elem), Some(i)) = (
            map,
            src_elem,
            crate::params::const_value(&call.args[3], &self.consts),
        ) {
            let (offset, align) = (i * elem.size() as u64, map.box_alignment());
            if !offset.is_multiple_of(align) {
                self.diag.error(
                    call.args[3].span(),
                    format!("the box would start {offset} bytes into the shared memory; a tensor copy's shared memory starts at a multiple of {align} bytes"),
                );
            }
        }
        if let (Some(map), Some(elem)) = (map, src_elem)
            && map.elem != elem.prim
        {
            self.diag.error(
                call.args[2].span(),
                format!(
                    "the map's elements are `{}`, the shared memory holds `{elem}`",
                    map.elem
                ),
            );
        }
        self.known(Ty::Unit)
    }
}
