//! What the lowering of the kernel language produces: instruction choices that carry Rust's
//! meaning, `.loc` lines that point at the Rust source, targets settled from features, and
//! PTX that the reader reads back to the same text.

mod kernels;

#[path = "../examples/scale.rs"]
#[allow(dead_code)]
mod scale;

use phasegate::runtime::{ElemType, ParamType, ScalarKind};

/// Instructions of a PTX text without operands, one per line (`cvt.rzi.s32.f32`).
fn opcodes(ptx: &str) -> Vec<String> {
    ptx.lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty()
                && !l.starts_with('.')
                && !l.starts_with('$')
                && !l.starts_with("//")
                && !l.ends_with(':')
        })
        .filter_map(|l| l.split_whitespace().find(|w| !w.starts_with('@')))
        .map(|w| w.trim_end_matches(';').to_string())
        .collect()
}

fn assert_has(ptx: &str, instructions: &[&str]) {
    let ops = opcodes(ptx);
    for want in instructions {
        assert!(
            ops.iter().any(|o| o == want),
            "expected `{want}` in:\n{ptx}"
        );
    }
}

#[test]
fn casts_follow_rust_as() {
    assert_has(
        kernels::casts::PTX,
        &[
            "cvt.s64.s32",     // i32 as u64 / i64 sign-extends
            "cvt.u64.u32",     // u32 as u64 zero-extends
            "cvt.rn.f32.s32",  // i32 as f32 rounds to nearest
            "cvt.rn.f32.u64",  // u64 as f32
            "cvt.f64.f32",     // widening is exact
            "cvt.rn.f32.f64",  // narrowing rounds
            "cvt.rzi.s32.f32", // f32 as i32 truncates, saturates, NaN -> 0
            "cvt.rzi.u32.f32",
            "cvt.rzi.s64.f64",
            "cvt.u32.u64", // truncation
            "selp.u32",    // bool as u32
        ],
    );
}

#[test]
fn float_arithmetic_is_never_contracted() {
    let ptx = kernels::float_ops::PTX;
    assert_has(
        ptx,
        &[
            "mul.rn.f32",
            "sub.rn.f32",
            "div.rn.f32",
            "add.rn.f32",
            "fma.rn.f32",
            "sqrt.rn.f32",
            "sqrt.rn.f64",
            "min.f32",
            "max.f32",
            "abs.f32",
            "abs.f64",
            "mul.rn.f64",
        ],
    );
    for op in opcodes(ptx) {
        let arith = ["add.f", "sub.f", "mul.f", "div.f", "fma.f", "sqrt.f"];
        assert!(
            !arith.iter().any(|a| op.starts_with(a)),
            "`{op}` has no rounding mode: ptxas may contract it"
        );
    }
    // Rust's `!=` is true for NaN operands: the unordered comparison.
    assert_has(ptx, &["setp.neu.f32"]);
    // `f32::from_bits` and `to_bits` are moves of the bits.
    assert!(ptx.contains("mov.b32"), "{ptx}");
}

#[test]
fn integer_operations_wrap_and_keep_signedness() {
    let ptx = kernels::integer_ops::PTX;
    assert_has(
        ptx,
        &[
            "mul.lo.u32",
            "div.u32",
            "rem.u32",
            "div.s32",
            "rem.s32",
            "shr.s32",
            "shr.u32",
            "shl.b32",
            "shl.b64",
            "not.b32",
            "neg.s32",
            "min.s32",
            "max.s32",
            "abs.s32",
            "popc.b32",
            "clz.b32",
            "brev.b32",
            "mul.lo.u64",
            "sub.s64",
        ],
    );
}

#[test]
fn vectors_move_in_one_access() {
    assert_has(
        kernels::vectors::PTX,
        &[
            "ld.global.nc.v4.f32",
            "st.shared.v4.f32",
            "ld.shared.v4.f32",
            "st.global.v4.f32",
            "ld.global.nc.v2.u64",
            "st.global.v2.s32",
        ],
    );
}

#[test]
fn read_only_slices_use_the_non_coherent_path_and_written_ones_do_not() {
    let ptx = scale::scale::PTX;
    assert_has(
        ptx,
        &[
            "ld.global.nc.f32",
            "st.global.f32",
            "mul.rn.f32",
            "cvta.to.global.u64",
            "mad.wide.u32",
        ],
    );
    assert!(!ptx.contains("ld.global.f32"), "{ptx}");
}

#[test]
fn loc_lines_point_at_the_rust_statement() {
    let source = include_str!("../examples/scale.rs");
    let (line, text) = source
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("y[i] = a * x[i];"))
        .expect("statement in source");
    let col = text.find('y').expect("column") + 1;
    let loc = format!(".loc\t1 {} {}", line + 1, col);
    let ptx = scale::scale::PTX;
    let at = ptx
        .find(&loc)
        .unwrap_or_else(|| panic!("no `{loc}` in:\n{ptx}"));
    let store = ptx.find("st.global.f32").expect("store");
    let mul = ptx.find("mul.rn.f32").expect("multiply");
    assert!(
        at < mul && mul < store,
        "the statement's .loc must precede its instructions:\n{ptx}"
    );
    assert!(
        ptx.contains(".file 1 \"") && ptx.contains("scale.rs\""),
        "{ptx}"
    );
}

#[test]
fn control_flow_has_loops_and_early_exit() {
    let ptx = kernels::control::PTX;
    let ops = opcodes(ptx);
    assert!(
        ops.iter().filter(|o| *o == "ret").count() >= 2,
        "early return and the final ret:\n{ptx}"
    );
    assert!(ops.iter().filter(|o| *o == "bra").count() >= 8, "{ptx}");
    // The u64 loop counts its trips in 64 bits.
    assert_has(ptx, &["sub.u64", "div.u64", "setp.ne.u64", "add.u64"]);
    // A run-time step of zero traps; all steps here are constants, so there is no trap.
    assert!(!ops.iter().any(|o| o == "trap"), "{ptx}");
}

#[test]
fn targets_are_settled_from_features() {
    assert!(scale::scale::PTX.contains(".target sm_80\n"));
    assert_eq!(scale::scale::TARGET, "sm_80");
    assert!(
        kernels::cluster_ids::PTX.contains(".target sm_90\n"),
        "{}",
        kernels::cluster_ids::PTX
    );
    assert!(
        kernels::cluster_ids::PTX.contains(".version 7.8\n"),
        "{}",
        kernels::cluster_ids::PTX
    );
    assert!(kernels::pinned::PTX.contains(".target sm_90a\n"));
    assert!(kernels::pinned::PTX.contains(".version 8.0\n"));
    assert!(
        scale::scale::PTX.contains(".version 7.0\n"),
        "{}",
        scale::scale::PTX
    );
}

#[test]
fn spec_describes_entry_and_parameters() {
    let spec = kernels::vectors::SPEC;
    assert_eq!(spec.entry, "vectors");
    assert_eq!(spec.static_shared_bytes, 128 * 16);
    let names: Vec<&str> = spec.params.iter().map(|p| p.name).collect();
    assert_eq!(names, ["x", "y", "p", "q", "a"]);
    assert_eq!(
        spec.params[0].ty,
        ParamType::Slice {
            elem: ElemType {
                scalar: ScalarKind::F32,
                lanes: 4
            },
            mutable: false
        }
    );
    assert_eq!(
        spec.params[3].ty,
        ParamType::Slice {
            elem: ElemType {
                scalar: ScalarKind::I32,
                lanes: 2
            },
            mutable: true
        }
    );
    assert_eq!(spec.params[4].ty, ParamType::Scalar(ScalarKind::F32));
    assert_eq!(spec.param_layout(), (vec![0, 8, 16, 24, 32], 36));
    let casts = kernels::casts::SPEC;
    assert_eq!(casts.params[6].ty, ParamType::Scalar(ScalarKind::Bool));
    assert!(
        casts.ptx.contains(".param .u8 casts_param_6"),
        "{}",
        casts.ptx
    );
}

#[test]
fn emitted_ptx_reads_back_to_the_same_text() {
    let mut all: Vec<(&str, &str)> = kernels::ALL.iter().map(|(n, p, _)| (*n, *p)).collect();
    all.push(("scale", scale::scale::PTX));
    for (name, ptx) in all {
        let module = phasegate::ptx::parse(ptx).unwrap_or_else(|e| panic!("{name}: {e}\n{ptx}"));
        assert_eq!(
            phasegate::ptx::write_string(&module),
            ptx,
            "{name} does not round-trip"
        );
        assert!(module.function(name).is_some(), "{name}");
    }
}

#[test]
fn launch_bounds_become_entry_directives() {
    let shaped = kernels::shaped::PTX;
    assert!(shaped.contains(".reqntid 32, 4, 1\n"), "{shaped}");
    assert!(
        !shaped.contains("%ntid") && !shaped.contains("%tid.z"),
        "a required shape makes %ntid constant and %tid.z zero:\n{shaped}"
    );
    assert!(
        kernels::unshaped::PTX.contains("%ntid.x") && kernels::unshaped::PTX.contains("%tid.z")
    );
    let bounded = kernels::bounded::PTX;
    assert!(
        bounded.contains(".maxntid 256, 1, 1\n.minnctapersm 2\n"),
        "{bounded}"
    );
    assert_eq!(kernels::shaped::SPEC.block_dims, Some((32, 4, 1)));
    assert_eq!(kernels::bounded::SPEC.max_threads, Some(256));
    assert_eq!(kernels::unshaped::SPEC.block_dims, None);
}
