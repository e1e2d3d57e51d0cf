//! The feature table: the lowest PTX ISA `.version` and the lowest `.target` that each
//! instruction, modifier, special register and directive needs.
//!
//! ptxas rejects a module that uses a feature its `.version` or `.target` does not allow, and it
//! names only the first such feature. [`crate::validate`] uses this table to report every one of
//! them at once, with the statement that uses it, and to compute the lowest `.version` a module
//! needs.
//!
//! The numbers come from the "PTX ISA Notes" and "Target ISA Notes" of each section of the PTX
//! ISA documentation (the 9.0/9.1 edition that `spec/` copies; section numbers are that
//! edition's). Every row carries a `sample` of PTX that uses the feature; the test
//! `ptx/tests/features.rs` assembles each sample with ptxas at the row's minimum and, where the
//! rest of the sample allows it, one `.version` and one `.target` below, so the table is checked
//! against the assembler rather than only against the prose.
//!
//! The table is data: one [`FeatureRow`] per feature, each with a [`Matcher`] that says which
//! statements use it. An instruction may match several rows (the instruction itself plus every
//! modifier that arrived later); [`instruction_features`] returns all of them.

use crate::model::{Directive, Instruction, Operand, SmVersion, Version};
use std::fmt;

/// A feature of PTX with the first `.version` and `.target` that allow it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Feature {
    /// What the feature is, written as PTX where possible: `mbarrier.try_wait.parity`,
    /// `barrier.cluster`, `ld.shared::cluster`, `.reqnctapercluster`, `%cluster_ctarank`.
    pub name: &'static str,
    /// The first PTX ISA version that has it.
    pub ptx: Version,
    /// The lowest target that has it. [`ANY_TARGET`] (`sm_10`) for "supported on all target
    /// architectures"; an `a` target (`sm_90a`) for an arch-specific feature, which only that
    /// exact target (or one in [`Feature::also`]) has.
    pub sm: SmVersion,
    /// Further targets that have an arch- or family-specific feature besides `sm`
    /// (`setmaxnreg`: `sm_90a`, and `sm_100a`, `sm_120a`, the `sm_100f` family, ...). Empty for
    /// the ordinary "this target or higher" features.
    pub also: &'static [SmVersion],
    /// Targets on which the feature arrived in a later `.version` than [`Feature::ptx`], with
    /// that version: `cvt` with `.e4m3x2`/`.e5m2x2` is PTX ISA 7.8 on `sm_90` but 8.1 on
    /// `sm_89`. An entry applies to the targets of its number (`sm_89`). Empty for almost every
    /// feature; [`Feature::ptx_on`] reads it.
    pub later_on: &'static [(SmVersion, Version)],
    /// The section of the PTX ISA documentation whose notes give the numbers (`9.7.13.15.16`).
    pub spec: &'static str,
}

/// `sm_10`, the first PTX target: the `sm` of features the documentation lists as "supported on
/// all target architectures", which every target satisfies.
pub const ANY_TARGET: SmVersion = SmVersion::new(10);

impl Feature {
    /// Whether code for `target` may use this feature (the `.version` aside).
    pub fn available_on(&self, target: SmVersion) -> bool {
        target_provides(target, self.sm)
            || self.also.iter().any(|&alt| target_provides(target, alt))
    }

    /// Whether a module with `.version version` may use this feature (the `.target` aside), on
    /// the targets that [`Feature::later_on`] does not name.
    pub fn available_in(&self, version: Version) -> bool {
        version >= self.ptx
    }

    /// The first `.version` that has the feature on `target`: [`Feature::ptx`], or later where
    /// [`Feature::later_on`] says so (`cvt.rn.satfinite.e4m3x2.f32`: 8.1 on `sm_89`, 7.8 on
    /// `sm_90`).
    pub fn ptx_on(&self, target: SmVersion) -> Version {
        self.later_on
            .iter()
            .filter(|(sm, _)| sm.number == target.number)
            .map(|&(_, version)| version)
            .fold(self.ptx, Version::max)
    }

    /// Whether a module with `.version version` and `.target target` may use this feature.
    pub fn available_with(&self, version: Version, target: SmVersion) -> bool {
        version >= self.ptx_on(target) && self.available_on(target)
    }

    /// The targets that have the feature, as a message writes them: `sm_90 or higher`,
    /// `sm_90a`, `sm_90a, sm_100a or the sm_100f family`.
    pub fn target_text(&self) -> String {
        let one = |sm: SmVersion| match sm.suffix {
            None => format!("{sm} or higher"),
            Some('f') => format!("the {sm} family"),
            Some(_) => sm.to_string(),
        };
        let mut all: Vec<String> = std::iter::once(self.sm)
            .chain(self.also.iter().copied())
            .map(one)
            .collect();
        match all.len() {
            1 => all.remove(0),
            _ => {
                let last = all.pop().unwrap_or_default();
                format!("{} or {last}", all.join(", "))
            }
        }
    }
}

impl fmt::Display for Feature {
    /// "`name` (PTX ISA .version 8.0, .target sm_90 or higher; PTX ISA 9.7.9.25.5.2)", with
    /// the later versions of [`Feature::later_on`] after the version: ".version 7.8 (8.1 on
    /// sm_89)".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` (PTX ISA .version {}", self.name, self.ptx)?;
        if !self.later_on.is_empty() {
            let later: Vec<String> = self
                .later_on
                .iter()
                .map(|(sm, version)| format!("{version} on {sm}"))
                .collect();
            write!(f, " ({})", later.join(", "))?;
        }
        write!(
            f,
            ", .target {}; PTX ISA {})",
            self.target_text(),
            self.spec
        )
    }
}

/// Whether code for `target` may use a feature that needs `need`.
///
/// Plain and `a` needs follow [`SmVersion::satisfies`] (an `a` feature needs exactly that
/// target). An `f` need (`sm_100f`, PTX ISA 8.8) is met by the `a` and `f` targets of the same
/// family at that number or higher: `sm_100f` by `sm_100a`, `sm_100f`, `sm_103a`, `sm_103f`.
pub fn target_provides(target: SmVersion, need: SmVersion) -> bool {
    match need.suffix {
        Some('f') => {
            matches!(target.suffix, Some('a') | Some('f'))
                && target.number >= need.number
                && family(target.number).is_some()
                && family(target.number) == family(need.number)
        }
        _ => target.satisfies(need),
    }
}

/// The families of the family-specific (`f`) targets, from the Target ISA Notes ("`sm_100f` or
/// higher in the same family"; `sm_101` was renamed `sm_110` in PTX ISA 9.0 and is its own
/// family).
const FAMILIES: &[&[u32]] = &[&[100, 103], &[101], &[110], &[120, 121]];

fn family(number: u32) -> Option<usize> {
    FAMILIES
        .iter()
        .position(|members| members.contains(&number))
}

/// Which statements use a feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matcher {
    /// An instruction of a given form.
    Instruction(InstMatch),
    /// A special register read by any operand; `%cluster_ctaid` also matches `%cluster_ctaid.x`.
    SpecialRegister(&'static str),
    /// A function directive, by its name without the dot (`reqnctapercluster`).
    Directive(&'static str),
}

/// The form of instruction a row applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstMatch {
    /// The opcode as written (`mbarrier`, `cp`, `griddepcontrol`).
    pub opcode: &'static str,
    /// Modifiers that must all be present, in this order (not necessarily adjacent):
    /// `["bf16", "f32"]` matches `cvt.rn.bf16.f32` but not `cvt.f32.bf16`.
    pub all: &'static [&'static str],
    /// If not empty, at least one of these modifiers must be present.
    pub any: &'static [&'static str],
    /// Modifiers that must all be absent.
    pub none: &'static [&'static str],
    /// A condition on the operands.
    pub operands: Operands,
}

/// A condition on an instruction's operands, for features that the operands rather than the
/// modifiers select (`mbarrier.arrive` with a count, `min` with three inputs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operands {
    /// No condition.
    Any,
    /// At least this many operands.
    AtLeast(usize),
    /// The destination (first operand) is the sink `_`.
    SinkDestination,
}

impl InstMatch {
    const fn new(opcode: &'static str) -> Self {
        InstMatch {
            opcode,
            all: &[],
            any: &[],
            none: &[],
            operands: Operands::Any,
        }
    }
    const fn all(mut self, all: &'static [&'static str]) -> Self {
        self.all = all;
        self
    }
    const fn any(mut self, any: &'static [&'static str]) -> Self {
        self.any = any;
        self
    }
    const fn none(mut self, none: &'static [&'static str]) -> Self {
        self.none = none;
        self
    }
    const fn operands(mut self, operands: Operands) -> Self {
        self.operands = operands;
        self
    }

    /// Whether `inst` has this form.
    pub fn matches(&self, inst: &Instruction) -> bool {
        inst.opcode.name() == self.opcode
            && in_order(self.all, &inst.modifiers)
            && (self.any.is_empty() || self.any.iter().any(|m| inst.has(m)))
            && !self.none.iter().any(|m| inst.has(m))
            && match self.operands {
                Operands::Any => true,
                Operands::AtLeast(n) => inst.operands.len() >= n,
                Operands::SinkDestination => matches!(inst.operands.first(), Some(Operand::Sink)),
            }
    }
}

/// Whether `wanted` occurs in `modifiers` in order.
fn in_order(wanted: &[&str], modifiers: &[String]) -> bool {
    let mut rest = modifiers.iter();
    wanted.iter().all(|w| rest.any(|m| m == w))
}

/// One row of the table: a feature, the statements that use it, and a line of PTX that does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureRow {
    /// The feature and the first `.version` and `.target` that have it.
    pub feature: Feature,
    /// Which statements use it.
    pub matcher: Matcher,
    /// PTX that uses the feature: one or more instructions, one per line (each ending in `;`),
    /// or a directive (`.reqnctapercluster 2, 1, 1`). The instructions use the registers and
    /// symbols that `ptx/tests/features.rs` declares: `%p<8>` (.pred), `%h<8>` (.b16), `%r<16>`
    /// (.b32), `%rd<16>` (.b64), `%f<16>` (.f32), `%fd<8>` (.f64), `bar0` (.shared .b64),
    /// `tile` (`.shared .b8 tile[4096]`), the param `pg_param`, the label `pg_end` and the function
    /// `pg_callee`.
    pub sample: &'static str,
}

impl FeatureRow {
    /// Whether `inst` uses this row's feature.
    pub fn matches_instruction(&self, inst: &Instruction) -> bool {
        match self.matcher {
            Matcher::Instruction(m) => m.matches(inst),
            Matcher::SpecialRegister(name) => reads_special(inst, name),
            Matcher::Directive(_) => false,
        }
    }

    /// Whether directive `d` is this row's feature.
    pub fn matches_directive(&self, d: &Directive) -> bool {
        matches!(self.matcher, Matcher::Directive(name) if name == d.name)
    }

    const fn also(mut self, also: &'static [SmVersion]) -> Self {
        self.feature.also = also;
        self
    }

    const fn later_on(mut self, later_on: &'static [(SmVersion, Version)]) -> Self {
        self.feature.later_on = later_on;
        self
    }
}

fn reads_special(inst: &Instruction, name: &str) -> bool {
    fn walk(op: &Operand, name: &str) -> bool {
        match op {
            Operand::Reg(r) => {
                let base = r
                    .strip_suffix(".x")
                    .or(r.strip_suffix(".y"))
                    .or(r.strip_suffix(".z"))
                    .unwrap_or(r);
                base == name
            }
            Operand::Vector(items) | Operand::List(items) | Operand::TensorAddress(_, items) => {
                items.iter().any(|o| walk(o, name))
            }
            Operand::Not(inner) => walk(inner, name),
            Operand::Pair(a, b) => walk(a, name) || walk(b, name),
            // A special register is never an address base; the rest hold no register.
            Operand::Address(_)
            | Operand::Imm(_)
            | Operand::Symbol(_)
            | Operand::SymbolOffset(..)
            | Operand::Sink => false,
        }
    }
    inst.operands.iter().any(|op| walk(op, name))
}

const fn v(major: u32, minor: u32) -> Version {
    Version::new(major, minor)
}
const fn sm(number: u32) -> SmVersion {
    SmVersion::new(number)
}
const fn sm_a(number: u32) -> SmVersion {
    SmVersion::arch_specific(number)
}
const fn sm_f(number: u32) -> SmVersion {
    SmVersion {
        number,
        suffix: Some('f'),
    }
}
const fn op(opcode: &'static str) -> InstMatch {
    InstMatch::new(opcode)
}

const fn feature(name: &'static str, ptx: Version, sm: SmVersion, spec: &'static str) -> Feature {
    Feature {
        name,
        ptx,
        sm,
        also: &[],
        later_on: &[],
        spec,
    }
}
/// A row for an instruction form.
const fn inst(
    name: &'static str,
    ptx: Version,
    sm: SmVersion,
    spec: &'static str,
    form: InstMatch,
    sample: &'static str,
) -> FeatureRow {
    FeatureRow {
        feature: feature(name, ptx, sm, spec),
        matcher: Matcher::Instruction(form),
        sample,
    }
}
/// A row for a special register; `name` is the register (`%cluster_ctarank`).
const fn sreg(
    name: &'static str,
    ptx: Version,
    sm: SmVersion,
    spec: &'static str,
    sample: &'static str,
) -> FeatureRow {
    FeatureRow {
        feature: feature(name, ptx, sm, spec),
        matcher: Matcher::SpecialRegister(name),
        sample,
    }
}
/// A row for a function directive; `name` is the directive without the dot.
const fn dir(
    name: &'static str,
    feature_name: &'static str,
    ptx: Version,
    sm: SmVersion,
    spec: &'static str,
    sample: &'static str,
) -> FeatureRow {
    FeatureRow {
        feature: feature(feature_name, ptx, sm, spec),
        matcher: Matcher::Directive(name),
        sample,
    }
}

const ALL: SmVersion = ANY_TARGET;
const INT_TYPES_F16_F64: &[&str] = &[
    "u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64", "f16", "f64",
];
const WIDE_ELEMENTS: &[&str] = &["b64", "u64", "s64", "f64"];

/// Every feature phasegate emits or analyses, with its minimum `.version` and `.target`.
// One row per line, so that the table reads as a table.
#[rustfmt::skip]
pub static FEATURE_TABLE: &[FeatureRow] = &[
    // ---- 9.7.1 integer arithmetic: "Introduced in PTX ISA version 1.0. Supported on all target
    // architectures", except where noted.
    inst("add", v(1, 0), ALL, "9.7.1.1", op("add"), "add.s32 %r1, %r2, %r3;\nadd.f32 %f1, %f2, %f3;"),
    inst("sub", v(1, 0), ALL, "9.7.1.2", op("sub"), "sub.s32 %r1, %r2, %r3;"),
    inst("mul", v(1, 0), ALL, "9.7.1.3", op("mul"), "mul.lo.s32 %r1, %r2, %r3;\nmul.wide.u32 %rd1, %r2, %r3;"),
    inst("mad", v(1, 0), ALL, "9.7.1.4", op("mad"), "mad.lo.s32 %r1, %r2, %r3, %r4;"),
    inst("div", v(1, 0), ALL, "9.7.1.8", op("div"), "div.u32 %r1, %r2, %r3;\ndiv.rn.f32 %f1, %f2, %f3;"),
    inst("rem", v(1, 0), ALL, "9.7.1.9", op("rem"), "rem.u32 %r1, %r2, %r3;"),
    inst("abs", v(1, 0), ALL, "9.7.1.10", op("abs"), "abs.s32 %r1, %r2;"),
    inst("neg", v(1, 0), ALL, "9.7.1.11", op("neg"), "neg.s32 %r1, %r2;\nneg.f32 %f1, %f2;"),
    inst("min", v(1, 0), ALL, "9.7.1.12", op("min"), "min.s32 %r1, %r2, %r3;\nmin.f32 %f1, %f2, %f3;"),
    inst("max", v(1, 0), ALL, "9.7.1.13", op("max"), "max.u32 %r1, %r2, %r3;\nmax.f32 %f1, %f2, %f3;"),
    // 9.7.1.12/13: .u16x2/.s16x2 and .relu: PTX ISA 8.0, sm_90.
    inst("min.relu", v(8, 0), sm(90), "9.7.1.12", op("min").all(&["relu"]), "min.relu.s32 %r1, %r2, %r3;"),
    inst("max.relu", v(8, 0), sm(90), "9.7.1.13", op("max").all(&["relu"]), "max.relu.s32 %r1, %r2, %r3;"),
    inst("min.{u16x2,s16x2}", v(8, 0), sm(90), "9.7.1.12", op("min").any(&["u16x2", "s16x2"]), "min.u16x2 %r1, %r2, %r3;"),
    inst("max.{u16x2,s16x2}", v(8, 0), sm(90), "9.7.1.13", op("max").any(&["u16x2", "s16x2"]), "max.s16x2 %r1, %r2, %r3;"),
    // 9.7.1.14-20: popc, clz, brev, bfe, bfi: PTX ISA 2.0, sm_20.
    inst("popc", v(2, 0), sm(20), "9.7.1.14", op("popc"), "popc.b32 %r1, %r2;"),
    inst("clz", v(2, 0), sm(20), "9.7.1.15", op("clz"), "clz.b32 %r1, %r2;"),
    inst("brev", v(2, 0), sm(20), "9.7.1.18", op("brev"), "brev.b32 %r1, %r2;"),
    inst("bfe", v(2, 0), sm(20), "9.7.1.19", op("bfe"), "bfe.u32 %r1, %r2, 0, 8;"),
    inst("bfi", v(2, 0), sm(20), "9.7.1.20", op("bfi"), "bfi.b32 %r1, %r2, %r3, 0, 8;"),
    // ---- 9.7.3 floating point.
    // 9.7.3.6 fma: fma.f32 PTX ISA 2.0, sm_20; fma.f64 PTX ISA 1.4, sm_13.
    inst("fma.f32", v(2, 0), sm(20), "9.7.3.6", op("fma").all(&["f32"]), "fma.rn.f32 %f1, %f2, %f3, %f4;"),
    inst("fma.f64", v(1, 4), sm(13), "9.7.3.6", op("fma").all(&["f64"]), "fma.rn.f64 %fd1, %fd2, %fd3, %fd4;"),
    // 9.7.3.11/12 min/max: .NaN PTX ISA 7.0, sm_80; three inputs PTX ISA 8.8, sm_100.
    inst("min.NaN", v(7, 0), sm(80), "9.7.3.11", op("min").all(&["NaN"]), "min.NaN.f32 %f1, %f2, %f3;"),
    inst("max.NaN", v(7, 0), sm(80), "9.7.3.12", op("max").all(&["NaN"]), "max.NaN.f32 %f1, %f2, %f3;"),
    inst("min.f32 with three inputs", v(8, 8), sm(100), "9.7.3.11", op("min").all(&["f32"]).operands(Operands::AtLeast(4)), "min.f32 %f1, %f2, %f3, %f4;"),
    inst("max.f32 with three inputs", v(8, 8), sm(100), "9.7.3.12", op("max").all(&["f32"]).operands(Operands::AtLeast(4)), "max.f32 %f1, %f2, %f3, %f4;"),
    // 9.7.3.13/15/16: rcp, sqrt, rsqrt .approx.f32: PTX ISA 1.0, all targets; the IEEE rounding
    // forms of sqrt.f32: PTX ISA 1.4, sm_20.
    inst("rcp", v(1, 0), ALL, "9.7.3.13", op("rcp"), "rcp.approx.f32 %f1, %f2;\nrcp.rn.f32 %f1, %f2;"),
    inst("sqrt", v(1, 0), ALL, "9.7.3.15", op("sqrt"), "sqrt.approx.f32 %f1, %f2;"),
    inst("sqrt.{rn,rz,rm,rp}.f32", v(1, 4), sm(20), "9.7.3.15", op("sqrt").any(&["rn", "rz", "rm", "rp"]).all(&["f32"]), "sqrt.rn.f32 %f1, %f2;"),
    inst("rsqrt", v(1, 0), ALL, "9.7.3.16", op("rsqrt"), "rsqrt.approx.f32 %f1, %f2;"),
    // ---- 9.7.4 half precision: .f16/.f16x2 PTX ISA 4.2, sm_53; add/sub/mul .bf16/.bf16x2
    // PTX ISA 7.8, sm_90; fma .bf16/.bf16x2 and .relu PTX ISA 7.0, sm_80; min/max .f16/.bf16
    // PTX ISA 7.0, sm_80; min/max .xorsign.abs PTX ISA 7.2, sm_86.
    inst("add.{f16,f16x2}", v(4, 2), sm(53), "9.7.4.1", op("add").any(&["f16", "f16x2"]), "add.f16 %h1, %h2, %h3;"),
    inst("add.{bf16,bf16x2}", v(7, 8), sm(90), "9.7.4.1", op("add").any(&["bf16", "bf16x2"]), "add.rn.bf16 %h1, %h2, %h3;\nadd.rn.bf16x2 %r1, %r2, %r3;"),
    inst("sub.{f16,f16x2}", v(4, 2), sm(53), "9.7.4.2", op("sub").any(&["f16", "f16x2"]), "sub.f16x2 %r1, %r2, %r3;"),
    inst("sub.{bf16,bf16x2}", v(7, 8), sm(90), "9.7.4.2", op("sub").any(&["bf16", "bf16x2"]), "sub.rn.bf16 %h1, %h2, %h3;"),
    inst("mul.{f16,f16x2}", v(4, 2), sm(53), "9.7.4.3", op("mul").any(&["f16", "f16x2"]), "mul.f16 %h1, %h2, %h3;"),
    inst("mul.{bf16,bf16x2}", v(7, 8), sm(90), "9.7.4.3", op("mul").any(&["bf16", "bf16x2"]), "mul.rn.bf16 %h1, %h2, %h3;"),
    inst("fma.{f16,f16x2}", v(4, 2), sm(53), "9.7.4.4", op("fma").any(&["f16", "f16x2"]), "fma.rn.f16 %h1, %h2, %h3, %h4;"),
    inst("fma.{bf16,bf16x2}", v(7, 0), sm(80), "9.7.4.4", op("fma").any(&["bf16", "bf16x2"]), "fma.rn.bf16 %h1, %h2, %h3, %h4;"),
    inst("fma.relu", v(7, 0), sm(80), "9.7.4.4", op("fma").all(&["relu"]), "fma.rn.relu.f16 %h1, %h2, %h3, %h4;"),
    inst("min.{f16,f16x2,bf16,bf16x2}", v(7, 0), sm(80), "9.7.4.7", op("min").any(&["f16", "f16x2", "bf16", "bf16x2"]), "min.f16 %h1, %h2, %h3;\nmin.bf16x2 %r1, %r2, %r3;"),
    inst("max.{f16,f16x2,bf16,bf16x2}", v(7, 0), sm(80), "9.7.4.8", op("max").any(&["f16", "f16x2", "bf16", "bf16x2"]), "max.bf16 %h1, %h2, %h3;"),
    inst("min.xorsign.abs", v(7, 2), sm(86), "9.7.4.7", op("min").all(&["xorsign", "abs"]), "min.xorsign.abs.f16 %h1, %h2, %h3;"),
    inst("max.xorsign.abs", v(7, 2), sm(86), "9.7.4.8", op("max").all(&["xorsign", "abs"]), "max.xorsign.abs.bf16 %h1, %h2, %h3;"),
    // ---- 9.7.6/9.7.7 comparison and selection: setp, selp PTX ISA 1.0, all targets;
    // setp .f16 PTX ISA 4.2, sm_53; setp .bf16 PTX ISA 7.8, sm_90.
    inst("setp", v(1, 0), ALL, "9.7.6.2", op("setp"), "setp.lt.s32 %p1, %r1, %r2;\nsetp.eq.f32 %p1, %f1, %f2;"),
    inst("setp.{f16,f16x2}", v(4, 2), sm(53), "9.7.7.2", op("setp").any(&["f16", "f16x2"]), "setp.lt.f16 %p1, %h1, %h2;"),
    inst("setp.{bf16,bf16x2}", v(7, 8), sm(90), "9.7.7.2", op("setp").any(&["bf16", "bf16x2"]), "setp.lt.bf16 %p1, %h1, %h2;"),
    inst("selp", v(1, 0), ALL, "9.7.6.3", op("selp"), "selp.b32 %r1, %r2, %r3, %p1;"),
    // ---- 9.7.8 logic and shift: PTX ISA 1.0, all targets.
    inst("and", v(1, 0), ALL, "9.7.8.1", op("and"), "and.b32 %r1, %r2, %r3;\nand.pred %p1, %p2, %p3;"),
    inst("or", v(1, 0), ALL, "9.7.8.2", op("or"), "or.b32 %r1, %r2, %r3;"),
    inst("xor", v(1, 0), ALL, "9.7.8.3", op("xor"), "xor.b32 %r1, %r2, %r3;"),
    inst("not", v(1, 0), ALL, "9.7.8.4", op("not"), "not.b32 %r1, %r2;\nnot.pred %p1, %p2;"),
    inst("shl", v(1, 0), ALL, "9.7.8.8", op("shl"), "shl.b32 %r1, %r2, 3;"),
    inst("shr", v(1, 0), ALL, "9.7.8.9", op("shr"), "shr.u32 %r1, %r2, 3;\nshr.s32 %r1, %r2, %r3;"),
    // ---- 9.7.9 data movement and conversion.
    // 9.7.9.3 mov: PTX ISA 1.0, all targets.
    inst("mov", v(1, 0), ALL, "9.7.9.3", op("mov"), "mov.u32 %r1, %r2;\nmov.u32 %r1, bar0;\nmov.u64 %rd1, tile;"),
    // 9.7.9.6 shfl.sync: PTX ISA 6.0, sm_30.
    inst("shfl.sync", v(6, 0), sm(30), "9.7.9.6", op("shfl").all(&["sync"]), "shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;\nshfl.sync.idx.b32 %r1|%p1, %r2, 0, 31, -1;"),
    // 9.7.9.8 ld / 9.7.9.11 st: PTX ISA 1.0 (vectors included); .relaxed/.acquire/.release and
    // scopes PTX ISA 6.0, sm_70; .cluster scope PTX ISA 7.8, sm_90; ::cta PTX ISA 7.8, sm_30;
    // ::cluster PTX ISA 7.8, sm_90; .L2::64B/.L2::128B PTX ISA 7.4, sm_75, .L2::256B sm_80;
    // .v8 and .v4 of 64-bit elements (256-bit access) PTX ISA 8.8, sm_100.
    inst("ld", v(1, 0), ALL, "9.7.9.8", op("ld"), "ld.global.u32 %r1, [%rd1];\nld.param.u64 %rd1, [pg_param];\nld.shared.u64 %rd1, [bar0];"),
    inst("ld.v4", v(1, 0), ALL, "9.7.9.8", op("ld").all(&["v4"]), "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];"),
    inst("ld.v8", v(8, 8), sm(100), "9.7.9.8", op("ld").all(&["v8"]), "ld.global.v8.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1];"),
    inst("ld.v4 of 64-bit elements", v(8, 8), sm(100), "9.7.9.8", op("ld").all(&["v4"]).any(WIDE_ELEMENTS), "ld.global.v4.u64 {%rd1, %rd2, %rd3, %rd4}, [%rd5];"),
    inst("ld.{weak,relaxed,acquire}", v(6, 0), sm(70), "9.7.9.8", op("ld").any(&["relaxed", "acquire", "weak"]), "ld.relaxed.gpu.global.u32 %r1, [%rd1];\nld.acquire.sys.global.u32 %r1, [%rd1];\nld.weak.global.u32 %r1, [%rd1];"),
    inst("ld.cluster", v(7, 8), sm(90), "9.7.9.8", op("ld").all(&["cluster"]), "ld.acquire.cluster.global.u32 %r1, [%rd1];"),
    inst("ld.shared::cta", v(7, 8), sm(30), "9.7.9.8", op("ld").all(&["shared::cta"]), "ld.shared::cta.u32 %r1, [bar0];"),
    inst("ld.shared::cluster", v(7, 8), sm(90), "9.7.9.8", op("ld").all(&["shared::cluster"]), "ld.shared::cluster.u32 %r1, [%r2];"),
    inst("ld.L2::{64B,128B}", v(7, 4), sm(75), "9.7.9.8", op("ld").any(&["L2::64B", "L2::128B"]), "ld.global.L2::128B.u32 %r1, [%rd1];"),
    inst("ld.L2::256B", v(7, 4), sm(80), "9.7.9.8", op("ld").all(&["L2::256B"]), "ld.global.L2::256B.u32 %r1, [%rd1];"),
    // 9.7.9.9 ld.global.nc: PTX ISA 3.1, sm_32.
    inst("ld.global.nc", v(3, 1), sm(32), "9.7.9.9", op("ld").all(&["global", "nc"]), "ld.global.nc.u32 %r1, [%rd1];\nld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];"),
    inst("st", v(1, 0), ALL, "9.7.9.11", op("st"), "st.global.u32 [%rd1], %r1;\nst.shared.u64 [bar0], %rd1;"),
    inst("st.v4", v(1, 0), ALL, "9.7.9.11", op("st").all(&["v4"]), "st.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};"),
    inst("st.v8", v(8, 8), sm(100), "9.7.9.11", op("st").all(&["v8"]), "st.global.v8.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};"),
    inst("st.v4 of 64-bit elements", v(8, 8), sm(100), "9.7.9.11", op("st").all(&["v4"]).any(WIDE_ELEMENTS), "st.global.v4.b64 [%rd5], {%rd1, %rd2, %rd3, %rd4};"),
    inst("st.{weak,relaxed,release}", v(6, 0), sm(70), "9.7.9.11", op("st").any(&["relaxed", "release", "weak"]), "st.relaxed.gpu.global.u32 [%rd1], %r1;\nst.release.cta.shared.u32 [bar0], %r1;\nst.weak.global.u32 [%rd1], %r1;"),
    inst("st.cluster", v(7, 8), sm(90), "9.7.9.11", op("st").all(&["cluster"]).none(&["async"]), "st.relaxed.cluster.global.u32 [%rd1], %r1;"),
    inst("st.shared::cta", v(7, 8), sm(30), "9.7.9.11", op("st").all(&["shared::cta"]), "st.shared::cta.u32 [bar0], %r1;"),
    inst("st.shared::cluster", v(7, 8), sm(90), "9.7.9.11", op("st").all(&["shared::cluster"]).none(&["async"]), "st.shared::cluster.u32 [%r2], %r1;"),
    // 9.7.9.12 st.async: PTX ISA 8.1, sm_90.
    inst("st.async", v(8, 1), sm(90), "9.7.9.12", op("st").all(&["async"]), "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3];"),
    // 9.7.9.15 prefetch, prefetchu: PTX ISA 2.0, sm_20; .level::eviction_priority
    // (.L2::evict_last, .L2::evict_normal) PTX ISA 7.4, sm_80; .tensormap (with an optional
    // .const or .param space, or a generic address) PTX ISA 8.0, sm_90.
    inst("prefetch", v(2, 0), sm(20), "9.7.9.15", op("prefetch"), "prefetch.global.L2 [%rd1];\nprefetch.L1 [%rd1];"),
    inst("prefetchu", v(2, 0), sm(20), "9.7.9.15", op("prefetchu"), "prefetchu.L1 [%rd1];"),
    inst("prefetch.L2::{evict_last,evict_normal}", v(7, 4), sm(80), "9.7.9.15", op("prefetch").any(&["L2::evict_last", "L2::evict_normal"]), "prefetch.global.L2::evict_last [%rd1];\nprefetch.global.L2::evict_normal [%rd1];"),
    inst("prefetch.tensormap", v(8, 0), sm(90), "9.7.9.15", op("prefetch").all(&["tensormap"]), "prefetch.tensormap [%rd1];\nprefetch.param.tensormap [pg_param];\nprefetch.const.tensormap [%rd1];"),
    // 9.7.9.20 cvta: PTX ISA 2.0, sm_20; ::cta and ::cluster PTX ISA 7.8, ::cluster sm_90.
    inst("cvta", v(2, 0), sm(20), "9.7.9.20", op("cvta"), "cvta.to.global.u64 %rd1, %rd2;\ncvta.shared.u64 %rd1, %rd2;"),
    inst("cvta.shared::cta", v(7, 8), sm(20), "9.7.9.20", op("cvta").all(&["shared::cta"]), "cvta.shared::cta.u64 %rd1, %rd2;"),
    inst("cvta.shared::cluster", v(7, 8), sm(90), "9.7.9.20", op("cvta").all(&["shared::cluster"]), "cvta.shared::cluster.u64 %rd1, %rd2;"),
    // 9.7.9.21 cvt: PTX ISA 1.0, all targets; .relu and .bf16/.bf16x2/.f16x2/.tf32 results from
    // .f32 PTX ISA 7.0, sm_80; .f32 from .bf16 PTX ISA 7.1, sm_80; .bf16 to or from integers,
    // .f16 and .f64 PTX ISA 7.8, sm_90.
    inst("cvt", v(1, 0), ALL, "9.7.9.21", op("cvt"), "cvt.u32.u64 %r1, %rd1;\ncvt.rn.f32.s32 %f1, %r1;"),
    inst("cvt.relu", v(7, 0), sm(80), "9.7.9.21", op("cvt").all(&["relu"]), "cvt.rn.relu.f16.f32 %h1, %f1;"),
    inst("cvt.bf16.f32", v(7, 0), sm(80), "9.7.9.21", op("cvt").all(&["bf16", "f32"]), "cvt.rn.bf16.f32 %h1, %f1;"),
    inst("cvt.bf16x2.f32", v(7, 0), sm(80), "9.7.9.21", op("cvt").all(&["bf16x2", "f32"]), "cvt.rn.bf16x2.f32 %r1, %f1, %f2;"),
    inst("cvt.f16x2.f32", v(7, 0), sm(80), "9.7.9.21", op("cvt").all(&["f16x2", "f32"]), "cvt.rn.f16x2.f32 %r1, %f1, %f2;"),
    inst("cvt.tf32.f32", v(7, 0), sm(80), "9.7.9.21", op("cvt").all(&["tf32", "f32"]), "cvt.rna.tf32.f32 %r1, %f1;"),
    inst("cvt.f32.bf16", v(7, 1), sm(80), "9.7.9.21", op("cvt").all(&["f32", "bf16"]), "cvt.f32.bf16 %f1, %h1;"),
    inst("cvt between .bf16 and integer, .f16 or .f64", v(7, 8), sm(90), "9.7.9.21", op("cvt").all(&["bf16"]).any(INT_TYPES_F16_F64), "cvt.rn.bf16.s32 %h1, %r1;\ncvt.rzi.s32.bf16 %r1, %h1;\ncvt.f64.bf16 %fd1, %h1;"),
    // cvt to or from .e4m3x2/.e5m2x2 (.satfinite required towards them): PTX ISA 7.8 "for sm_90
    // or higher", 8.1 for sm_89; sm_89. ptxas 12.9 agrees on both versions.
    inst("cvt with .e4m3x2/.e5m2x2", v(7, 8), sm(89), "9.7.9.21", op("cvt").any(&["e4m3x2", "e5m2x2"]), "cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;\ncvt.rn.satfinite.e5m2x2.f32 %h1, %f1, %f2;\ncvt.rn.satfinite.e4m3x2.f16x2 %h1, %r1;\ncvt.rn.f16x2.e5m2x2 %r1, %h1;")
        .later_on(&[(sm(89), v(8, 1))]),
    // 9.7.9.23 mapa, 9.7.9.24 getctarank: PTX ISA 7.8, sm_90.
    inst("mapa", v(7, 8), sm(90), "9.7.9.23", op("mapa"), "mapa.shared::cluster.u32 %r1, %r2, 0;\nmapa.u64 %rd1, %rd2, %r1;"),
    inst("getctarank", v(7, 8), sm(90), "9.7.9.24", op("getctarank"), "getctarank.shared::cluster.u32 %r1, %r2;\ngetctarank.u64 %r1, %rd1;"),
    // 9.7.9.25.3 cp.async, cp.async.commit_group, cp.async.wait_group/wait_all: PTX ISA 7.0, sm_80.
    inst("cp.async", v(7, 0), sm(80), "9.7.9.25.3.1", op("cp").all(&["async"]).none(&["bulk", "mbarrier", "commit_group", "wait_group", "wait_all", "reduce"]), "cp.async.ca.shared.global [tile], [%rd1], 4;\ncp.async.cg.shared.global [tile], [%rd1], 16;"),
    inst("cp.async.commit_group", v(7, 0), sm(80), "9.7.9.25.3.2", op("cp").all(&["async", "commit_group"]).none(&["bulk"]), "cp.async.commit_group;"),
    inst("cp.async.wait_group", v(7, 0), sm(80), "9.7.9.25.3.3", op("cp").all(&["async", "wait_group"]).none(&["bulk"]), "cp.async.wait_group 0;"),
    inst("cp.async.wait_all", v(7, 0), sm(80), "9.7.9.25.3.3", op("cp").all(&["async", "wait_all"]), "cp.async.wait_all;"),
    // 9.7.9.25.4.1 cp.async.bulk: PTX ISA 8.0, sm_90 (.multicast::cluster included; advised for
    // sm_90a, not required); .shared::cta destination PTX ISA 8.6; .cp_mask PTX ISA 8.6, sm_100.
    inst("cp.async.bulk", v(8, 0), sm(90), "9.7.9.25.4.1", op("cp").all(&["async", "bulk"]).none(&["commit_group", "wait_group", "prefetch", "tensor", "reduce"]), "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd1], 16, [bar0];\ncp.async.bulk.global.shared::cta.bulk_group [%rd1], [tile], 16;\ncp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r1], [tile], 16, [bar0];\ncp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd1], [tile], 16, %rd2;"),
    inst("cp.async.bulk.multicast::cluster", v(8, 0), sm(90), "9.7.9.25.4.1", op("cp").all(&["async", "bulk", "multicast::cluster"]).none(&["tensor"]), "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [tile], [%rd1], 16, [bar0], %h1;"),
    inst("cp.async.bulk.shared::cta.global", v(8, 6), sm(90), "9.7.9.25.4.1", op("cp").all(&["async", "bulk", "shared::cta", "global"]).none(&["tensor"]), "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [tile], [%rd1], 16, [bar0];"),
    inst("cp.async.bulk.cp_mask", v(8, 6), sm(100), "9.7.9.25.4.1", op("cp").all(&["async", "bulk", "cp_mask"]), "cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd1], [tile], 16, %h1;"),
    // 9.7.9.25.4.2 cp.reduce.async.bulk, 9.7.9.25.4.3 cp.async.bulk.prefetch: PTX ISA 8.0, sm_90.
    inst("cp.reduce.async.bulk", v(8, 0), sm(90), "9.7.9.25.4.2", op("cp").all(&["reduce", "async", "bulk"]).none(&["tensor"]), "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [tile], 16;"),
    inst("cp.async.bulk.prefetch", v(8, 0), sm(90), "9.7.9.25.4.3", op("cp").all(&["async", "bulk", "prefetch"]).none(&["tensor"]), "cp.async.bulk.prefetch.L2.global [%rd1], 16;"),
    // 9.7.9.25.5 tensor copy (9.7.9.25.5.1 is its restrictions; the PTX ISA 9.1 web edition
    // numbers these 9.7.9.27.1.x, the 9.0 and the 9.1 PDF edition as here).
    // 9.7.9.25.5.2 cp.async.bulk.tensor: PTX ISA 8.0, sm_90 (.tile, .im2col, .L2::cache_hint and
    // .multicast::cluster from the start; .multicast::cluster advised for sm_90a, not required,
    // as for cp.async.bulk); .shared::cta destination PTX ISA 8.6, sm_90. The sm_100 forms
    // (.cta_group, .tile::gather4/scatter4, .im2col::w) have no rows yet.
    inst("cp.async.bulk.tensor", v(8, 0), sm(90), "9.7.9.25.5.2", op("cp").all(&["async", "bulk", "tensor"]).none(&["reduce", "prefetch"]), "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [tile], [%rd1, {%r1, %r2}], [bar0];\ncp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [tile], [%rd1, {%r1, %r2, %r3}], [bar0], {%h1};\ncp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [tile], [%rd1, {%r1}], [bar0], %rd2;\ncp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd1, {%r1, %r2}], [tile];\ncp.async.bulk.tensor.1d.global.shared::cta.bulk_group.L2::cache_hint [%rd1, {%r1}], [tile], %rd2;"),
    inst("cp.async.bulk.tensor.multicast::cluster", v(8, 0), sm(90), "9.7.9.25.5.2", op("cp").all(&["async", "bulk", "tensor", "multicast::cluster"]), "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [tile], [%rd1, {%r1, %r2}], [bar0], %h1;\ncp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint [tile], [%rd1, {%r1, %r2, %r3}], [bar0], {%h1}, %h2, %rd2;"),
    inst("cp.async.bulk.tensor.shared::cta.global", v(8, 6), sm(90), "9.7.9.25.5.2", op("cp").all(&["async", "bulk", "tensor", "shared::cta", "global"]), "cp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes [tile], [%rd1, {%r1}], [bar0];"),
    // 9.7.9.25.5.3 cp.reduce.async.bulk.tensor, 9.7.9.25.5.4 cp.async.bulk.prefetch.tensor: PTX
    // ISA 8.0, sm_90.
    inst("cp.reduce.async.bulk.tensor", v(8, 0), sm(90), "9.7.9.25.5.3", op("cp").all(&["reduce", "async", "bulk", "tensor"]), "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd1, {%r1, %r2}], [tile];\ncp.reduce.async.bulk.tensor.3d.global.shared::cta.max.im2col_no_offs.bulk_group [%rd1, {%r1, %r2, %r3}], [tile];\ncp.reduce.async.bulk.tensor.1d.global.shared::cta.and.bulk_group.L2::cache_hint [%rd1, {%r1}], [tile], %rd2;"),
    inst("cp.async.bulk.prefetch.tensor", v(8, 0), sm(90), "9.7.9.25.5.4", op("cp").all(&["async", "bulk", "prefetch", "tensor"]), "cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd1, {%r1, %r2}];\ncp.async.bulk.prefetch.tensor.3d.L2.global.im2col [%rd1, {%r1, %r2, %r3}], {%h1};\ncp.async.bulk.prefetch.tensor.1d.L2.global.L2::cache_hint [%rd1, {%r1}], %rd2;"),
    // 9.7.9.25.6.1 cp.async.bulk.commit_group, 9.7.9.25.6.2 cp.async.bulk.wait_group{.read}:
    // PTX ISA 8.0, sm_90.
    inst("cp.async.bulk.commit_group", v(8, 0), sm(90), "9.7.9.25.6.1", op("cp").all(&["async", "bulk", "commit_group"]), "cp.async.bulk.commit_group;"),
    inst("cp.async.bulk.wait_group", v(8, 0), sm(90), "9.7.9.25.6.2", op("cp").all(&["async", "bulk", "wait_group"]), "cp.async.bulk.wait_group 0;\ncp.async.bulk.wait_group.read 0;"),
    // 9.7.9.26 tensormap.replace (9.7.9.28 in the PTX ISA 9.1 web edition): PTX ISA 8.3 on
    // sm_90a, sm_100a, sm_101a (sm_110a), sm_120a and, from PTX ISA 8.8, the sm_100f, sm_101f
    // (sm_110f) and sm_120f families. .swizzle_atomicity (8.6) and the .elemtype values 13-15
    // (8.7) need sm_100a and have no rows yet.
    inst("tensormap.replace", v(8, 3), sm_a(90), "9.7.9.26", op("tensormap").all(&["replace"]), "tensormap.replace.tile.global_address.shared::cta.b1024.b64 [tile], %rd1;\ntensormap.replace.tile.rank.global.b1024.b32 [%rd1], 2;\ntensormap.replace.tile.box_dim.shared::cta.b1024.b32 [tile], 1, %r1;\ntensormap.replace.tile.global_stride.b1024.b64 [%rd1], 0, %rd2;\ntensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [tile], 3;")
        .also(&[sm_a(100), sm_a(101), sm_a(110), sm_a(120), sm_f(100), sm_f(101), sm_f(110), sm_f(120)]),
    // ---- 9.7.12 control flow: PTX ISA 1.0, all targets.
    inst("bra", v(1, 0), ALL, "9.7.12.3", op("bra"), "bra pg_end;\nbra.uni pg_end;"),
    inst("call", v(1, 0), ALL, "9.7.12.5", op("call"), "call pg_callee;\ncall.uni pg_callee;"),
    inst("ret", v(1, 0), ALL, "9.7.12.6", op("ret"), "ret;"),
    inst("exit", v(1, 0), ALL, "9.7.12.7", op("exit"), "exit;"),
    // ---- 9.7.13 parallel synchronization and communication.
    // 9.7.13.1 bar: bar.sync without a thread count PTX ISA 1.0 (all targets); register
    // operands, thread count and bar.{arrive,red} PTX ISA 2.0, sm_20; barrier PTX ISA 6.0, sm_30
    // (non-.aligned barrier on sm_6x and below behaves as .aligned; no separate minimum); .cta
    // PTX ISA 7.8.
    inst("bar", v(1, 0), ALL, "9.7.13.1", op("bar").none(&["warp"]), "bar.sync 0;"),
    inst("bar.sync with a thread count", v(2, 0), sm(20), "9.7.13.1", op("bar").all(&["sync"]).none(&["warp"]).operands(Operands::AtLeast(2)), "bar.sync 1, 64;"),
    inst("bar.arrive", v(2, 0), sm(20), "9.7.13.1", op("bar").all(&["arrive"]), "bar.arrive 1, 64;"),
    inst("bar.red", v(2, 0), sm(20), "9.7.13.1", op("bar").all(&["red"]), "bar.red.popc.u32 %r1, 1, %p1;\nbar.red.and.pred %p2, 2, !%p1;\nbar.red.or.pred %p2, 3, 64, %p1;"),
    inst("bar.cta", v(7, 8), ALL, "9.7.13.1", op("bar").all(&["cta"]), "bar.cta.sync 0;"),
    inst("barrier", v(6, 0), sm(30), "9.7.13.1", op("barrier").none(&["cluster"]), "barrier.sync 0;\nbarrier.sync.aligned 1, 64;\nbarrier.arrive 2, 64;\nbarrier.red.popc.aligned.u32 %r1, 3, %p1;"),
    inst("barrier.cta", v(7, 8), sm(30), "9.7.13.1", op("barrier").all(&["cta"]), "barrier.cta.sync 0;\nbarrier.cta.red.or.aligned.pred %p1, 3, 64, %p2;"),
    // 9.7.13.2 bar.warp.sync: PTX ISA 6.0, sm_30.
    inst("bar.warp.sync", v(6, 0), sm(30), "9.7.13.2", op("bar").all(&["warp", "sync"]), "bar.warp.sync -1;"),
    // 9.7.13.3 barrier.cluster: PTX ISA 7.8, sm_90; .acquire/.relaxed/.release PTX ISA 8.0.
    inst("barrier.cluster", v(7, 8), sm(90), "9.7.13.3", op("barrier").all(&["cluster"]), "barrier.cluster.arrive;\nbarrier.cluster.wait;\nbarrier.cluster.arrive.aligned;\nbarrier.cluster.wait.aligned;"),
    inst("barrier.cluster.{acquire,release,relaxed}", v(8, 0), sm(90), "9.7.13.3", op("barrier").all(&["cluster"]).any(&["acquire", "release", "relaxed"]), "barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire;\nbarrier.cluster.arrive.relaxed;"),
    // 9.7.13.4 membar/fence: membar.{cta,gl} PTX ISA 1.4, all targets; membar.sys PTX ISA 2.0,
    // sm_20; fence PTX ISA 6.0, sm_70; fence.proxy/membar.proxy PTX ISA 7.5, sm_70 (membar.proxy
    // sm_60); .cluster scope PTX ISA 7.8, sm_90; .op_restrict (mbarrier_init) and
    // fence.proxy.async PTX ISA 8.0, sm_90; .to_proxykind::from_proxykind PTX ISA 8.3, sm_90;
    // fence .acquire/.release and .sync_restrict PTX ISA 8.6, sm_90.
    inst("membar", v(1, 4), ALL, "9.7.13.4", op("membar").none(&["sys", "proxy"]), "membar.cta;\nmembar.gl;"),
    inst("membar.sys", v(2, 0), sm(20), "9.7.13.4", op("membar").all(&["sys"]), "membar.sys;"),
    inst("membar.proxy", v(7, 5), sm(60), "9.7.13.4", op("membar").all(&["proxy"]), "membar.proxy.alias;"),
    inst("fence", v(6, 0), sm(70), "9.7.13.4", op("fence").none(&["proxy", "mbarrier_init", "sync_restrict::shared::cta", "sync_restrict::shared::cluster"]), "fence.sc.cta;\nfence.acq_rel.gpu;\nfence.sc.sys;"),
    inst("fence.cluster", v(7, 8), sm(90), "9.7.13.4", op("fence").all(&["cluster"]).none(&["proxy", "mbarrier_init", "sync_restrict::shared::cta", "sync_restrict::shared::cluster"]), "fence.acq_rel.cluster;\nfence.sc.cluster;"),
    inst("fence.proxy", v(7, 5), sm(70), "9.7.13.4", op("fence").all(&["proxy"]).none(&["async", "tensormap::generic", "async::generic"]), "fence.proxy.alias;"),
    inst("fence.proxy.async", v(8, 0), sm(90), "9.7.13.4", op("fence").all(&["proxy", "async"]), "fence.proxy.async;\nfence.proxy.async.shared::cta;\nfence.proxy.async.shared::cluster;\nfence.proxy.async.global;"),
    inst("fence.proxy.tensormap::generic", v(8, 3), sm(90), "9.7.13.4", op("fence").all(&["proxy", "tensormap::generic"]), "fence.proxy.tensormap::generic.release.gpu;"),
    inst("fence.mbarrier_init", v(8, 0), sm(90), "9.7.13.4", op("fence").all(&["mbarrier_init"]), "fence.mbarrier_init.release.cluster;"),
    inst("fence.sync_restrict", v(8, 6), sm(90), "9.7.13.4", op("fence").any(&["sync_restrict::shared::cta", "sync_restrict::shared::cluster"]), "fence.release.sync_restrict::shared::cta.cluster;\nfence.acquire.sync_restrict::shared::cluster.cluster;"),
    // 9.7.13.5 atom: 32-bit atom.global PTX ISA 1.1, sm_11; atom.shared PTX ISA 1.2, sm_12;
    // atom.add.f32 PTX ISA 2.0, sm_20; atom.add.f64 PTX ISA 5.0, sm_60; .scope PTX ISA 5.0,
    // sm_60; .sem PTX ISA 6.0, sm_70; atom.add.noftz.f16 PTX ISA 6.3, sm_70; .bf16 PTX ISA 7.8,
    // sm_90; .cluster scope PTX ISA 7.8, sm_90; ::cta PTX ISA 7.8, sm_30; ::cluster PTX ISA 7.8,
    // sm_90.
    inst("atom", v(1, 1), sm(11), "9.7.13.5", op("atom"), "atom.global.add.u32 %r1, [%rd1], 1;\natom.global.cas.b32 %r1, [%rd1], %r2, %r3;"),
    inst("atom.shared", v(1, 2), sm(12), "9.7.13.5", op("atom").any(&["shared", "shared::cta", "shared::cluster"]), "atom.shared.add.u32 %r1, [bar0], 1;"),
    inst("atom.add.f32", v(2, 0), sm(20), "9.7.13.5", op("atom").all(&["add", "f32"]), "atom.global.add.f32 %f1, [%rd1], %f2;"),
    inst("atom.add.f64", v(5, 0), sm(60), "9.7.13.5", op("atom").all(&["add", "f64"]), "atom.global.add.f64 %fd1, [%rd1], %fd2;"),
    inst("atom.add.noftz.f16", v(6, 3), sm(70), "9.7.13.5", op("atom").all(&["add", "noftz", "f16"]), "atom.global.add.noftz.f16 %h1, [%rd1], %h2;"),
    inst("atom.add.noftz.{bf16,bf16x2}", v(7, 8), sm(90), "9.7.13.5", op("atom").all(&["add", "noftz"]).any(&["bf16", "bf16x2"]), "atom.global.add.noftz.bf16 %h1, [%rd1], %h2;"),
    inst("atom.{cta,gpu,sys}", v(5, 0), sm(60), "9.7.13.5", op("atom").any(&["cta", "gpu", "sys"]), "atom.cta.global.add.u32 %r1, [%rd1], 1;\natom.gpu.global.add.u32 %r1, [%rd1], 1;\natom.sys.global.add.u32 %r1, [%rd1], 1;"),
    inst("atom.{relaxed,acquire,release,acq_rel}", v(6, 0), sm(70), "9.7.13.5", op("atom").any(&["relaxed", "acquire", "release", "acq_rel"]), "atom.relaxed.gpu.global.add.u32 %r1, [%rd1], 1;\natom.acquire.gpu.global.add.u32 %r1, [%rd1], 1;\natom.acq_rel.sys.global.exch.b32 %r1, [%rd1], %r2;"),
    inst("atom.cluster", v(7, 8), sm(90), "9.7.13.5", op("atom").all(&["cluster"]), "atom.relaxed.cluster.global.add.u32 %r1, [%rd1], 1;"),
    inst("atom.shared::cta", v(7, 8), sm(30), "9.7.13.5", op("atom").all(&["shared::cta"]), "atom.shared::cta.add.u32 %r1, [bar0], 1;"),
    inst("atom.shared::cluster", v(7, 8), sm(90), "9.7.13.5", op("atom").all(&["shared::cluster"]), "atom.shared::cluster.add.u32 %r1, [%r2], 1;"),
    // 9.7.13.6 red: as atom (red.global PTX ISA 1.1, sm_11; red.shared PTX ISA 1.2, sm_12;
    // .scope PTX ISA 5.0, sm_60; .sem PTX ISA 6.0, sm_70; .cluster and ::cluster PTX ISA 7.8,
    // sm_90).
    inst("red", v(1, 1), sm(11), "9.7.13.6", op("red").none(&["async"]), "red.global.add.u32 [%rd1], 1;"),
    inst("red.shared", v(1, 2), sm(12), "9.7.13.6", op("red").any(&["shared", "shared::cta"]).none(&["async"]), "red.shared.add.u32 [bar0], 1;"),
    inst("red.{cta,gpu,sys}", v(5, 0), sm(60), "9.7.13.6", op("red").any(&["cta", "gpu", "sys"]).none(&["async"]), "red.gpu.global.add.u32 [%rd1], 1;"),
    inst("red.{relaxed,release}", v(6, 0), sm(70), "9.7.13.6", op("red").any(&["relaxed", "release"]).none(&["async"]), "red.release.gpu.global.add.u32 [%rd1], 1;"),
    inst("red.cluster", v(7, 8), sm(90), "9.7.13.6", op("red").all(&["cluster"]).none(&["async"]), "red.relaxed.cluster.global.add.u32 [%rd1], 1;"),
    inst("red.shared::cluster", v(7, 8), sm(90), "9.7.13.6", op("red").all(&["shared::cluster"]).none(&["async"]), "red.shared::cluster.add.u32 [%r1], 1;"),
    // 9.7.13.7 red.async: PTX ISA 8.1, sm_90.
    inst("red.async", v(8, 1), sm(90), "9.7.13.7", op("red").all(&["async"]), "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r1], 1, [%r2];"),
    // 9.7.13.9 vote.sync: PTX ISA 6.0, sm_30. 9.7.13.10 match.sync: PTX ISA 6.0, sm_70.
    // 9.7.13.11 activemask: PTX ISA 6.2, sm_30. 9.7.13.12 redux.sync: PTX ISA 7.0, sm_80.
    // 9.7.13.13 griddepcontrol: PTX ISA 7.8, sm_90. 9.7.13.14 elect.sync: PTX ISA 8.0, sm_90.
    inst("vote.sync", v(6, 0), sm(30), "9.7.13.9", op("vote").all(&["sync"]), "vote.sync.ballot.b32 %r1, %p1, -1;\nvote.sync.all.pred %p2, %p1, -1;"),
    inst("match.sync", v(6, 0), sm(70), "9.7.13.10", op("match").all(&["sync"]), "match.any.sync.b32 %r1, %r2, -1;"),
    inst("activemask", v(6, 2), sm(30), "9.7.13.11", op("activemask"), "activemask.b32 %r1;"),
    inst("redux.sync", v(7, 0), sm(80), "9.7.13.12", op("redux").all(&["sync"]), "redux.sync.add.u32 %r1, %r2, -1;\nredux.sync.or.b32 %r1, %r2, -1;"),
    inst("griddepcontrol", v(7, 8), sm(90), "9.7.13.13", op("griddepcontrol"), "griddepcontrol.wait;\ngriddepcontrol.launch_dependents;"),
    inst("elect.sync", v(8, 0), sm(90), "9.7.13.14", op("elect").all(&["sync"]), "elect.sync %r1|%p1, -1;"),
    // ---- 9.7.13.15 mbarrier (spec/ptx-mbarrier.md).
    // 9.7.13.15.9 init, .10 inval: PTX ISA 7.0, sm_80; ::cta PTX ISA 7.8.
    inst("mbarrier.init", v(7, 0), sm(80), "9.7.13.15.9", op("mbarrier").all(&["init"]), "mbarrier.init.shared.b64 [bar0], 1;\nmbarrier.init.b64 [%rd1], 32;"),
    inst("mbarrier.inval", v(7, 0), sm(80), "9.7.13.15.10", op("mbarrier").all(&["inval"]), "mbarrier.inval.shared.b64 [bar0];"),
    // 9.7.13.15.11 expect_tx, .12 complete_tx: PTX ISA 8.0, sm_90 (.relaxed with a scope from
    // the start).
    inst("mbarrier.expect_tx", v(8, 0), sm(90), "9.7.13.15.11", op("mbarrier").all(&["expect_tx"]).none(&["arrive", "arrive_drop"]), "mbarrier.expect_tx.shared.b64 [bar0], 16;\nmbarrier.expect_tx.relaxed.cta.shared.b64 [bar0], 16;"),
    inst("mbarrier.complete_tx", v(8, 0), sm(90), "9.7.13.15.12", op("mbarrier").all(&["complete_tx"]), "mbarrier.complete_tx.shared.b64 [bar0], 16;\nmbarrier.complete_tx.relaxed.cta.shared.b64 [bar0], 16;"),
    // 9.7.13.15.13 arrive: PTX ISA 7.0, sm_80; sink `_` destination PTX ISA 7.1; a count without
    // .noComplete PTX ISA 7.8, sm_90; .expect_tx and ::cluster PTX ISA 8.0, sm_90; .sem/.scope
    // PTX ISA 8.0 (.cluster scope sm_90); .relaxed PTX ISA 8.6, sm_90.
    inst("mbarrier.arrive", v(7, 0), sm(80), "9.7.13.15.13", op("mbarrier").all(&["arrive"]), "mbarrier.arrive.shared.b64 %rd1, [bar0];\nmbarrier.arrive.noComplete.shared.b64 %rd1, [bar0], 1;\nmbarrier.arrive.b64 %rd1, [%rd2];"),
    inst("mbarrier.arrive with sink destination", v(7, 1), sm(80), "9.7.13.15.13", op("mbarrier").all(&["arrive"]).operands(Operands::SinkDestination), "mbarrier.arrive.shared.b64 _, [bar0];"),
    inst("mbarrier.arrive with a count and without .noComplete", v(7, 8), sm(90), "9.7.13.15.13", op("mbarrier").all(&["arrive"]).none(&["noComplete", "expect_tx"]).operands(Operands::AtLeast(3)), "mbarrier.arrive.shared.b64 %rd1, [bar0], 2;"),
    inst("mbarrier.arrive.expect_tx", v(8, 0), sm(90), "9.7.13.15.13", op("mbarrier").all(&["arrive", "expect_tx"]), "mbarrier.arrive.expect_tx.shared.b64 %rd1, [bar0], 16;"),
    // 9.7.13.15.14 arrive_drop: as arrive (no separate sink note).
    inst("mbarrier.arrive_drop", v(7, 0), sm(80), "9.7.13.15.14", op("mbarrier").all(&["arrive_drop"]), "mbarrier.arrive_drop.shared.b64 %rd1, [bar0];\nmbarrier.arrive_drop.shared.b64 _, [bar0];\nmbarrier.arrive_drop.noComplete.shared.b64 %rd1, [bar0], 1;"),
    inst("mbarrier.arrive_drop with a count and without .noComplete", v(7, 8), sm(90), "9.7.13.15.14", op("mbarrier").all(&["arrive_drop"]).none(&["noComplete", "expect_tx"]).operands(Operands::AtLeast(3)), "mbarrier.arrive_drop.shared.b64 %rd1, [bar0], 1;"),
    inst("mbarrier.arrive_drop.expect_tx", v(8, 0), sm(90), "9.7.13.15.14", op("mbarrier").all(&["arrive_drop", "expect_tx"]), "mbarrier.arrive_drop.expect_tx.shared.b64 %rd1, [bar0], 16;"),
    // ::cta on every mbarrier instruction: PTX ISA 7.8; ::cluster: PTX ISA 8.0, sm_90.
    inst("mbarrier.shared::cta", v(7, 8), sm(80), "9.7.13.15.13", op("mbarrier").all(&["shared::cta"]), "mbarrier.arrive.shared::cta.b64 %rd1, [bar0];\nmbarrier.init.shared::cta.b64 [bar0], 1;"),
    inst("mbarrier.shared::cluster", v(8, 0), sm(90), "9.7.13.15.13", op("mbarrier").all(&["shared::cluster"]), "mbarrier.arrive.shared::cluster.b64 _, [%r1];\nmbarrier.arrive_drop.shared::cluster.b64 _, [%r1];"),
    inst("mbarrier.{release,acquire}.cta", v(8, 0), sm(80), "9.7.13.15.13", op("mbarrier").any(&["release", "acquire", "cta"]), "mbarrier.arrive.release.cta.shared.b64 %rd1, [bar0];\nmbarrier.test_wait.acquire.cta.shared.b64 %p1, [bar0], %rd1;"),
    inst("mbarrier.cluster", v(8, 0), sm(90), "9.7.13.15.13", op("mbarrier").all(&["cluster"]), "mbarrier.arrive.release.cluster.shared.b64 %rd1, [bar0];\nmbarrier.try_wait.parity.acquire.cluster.shared.b64 %p1, [bar0], 0;"),
    inst("mbarrier.{arrive,arrive_drop,test_wait,try_wait}.relaxed", v(8, 6), sm(90), "9.7.13.15.16", op("mbarrier").all(&["relaxed"]).any(&["arrive", "arrive_drop", "test_wait", "try_wait"]), "mbarrier.arrive.relaxed.cta.shared.b64 %rd1, [bar0];\nmbarrier.arrive_drop.relaxed.cta.shared.b64 %rd1, [bar0];\nmbarrier.test_wait.relaxed.cta.shared.b64 %p1, [bar0], %rd1;\nmbarrier.try_wait.parity.relaxed.cta.shared.b64 %p1, [bar0], 0;"),
    // 9.7.13.15.15 cp.async.mbarrier.arrive{.noinc}: PTX ISA 7.0, sm_80; ::cta PTX ISA 7.8.
    inst("cp.async.mbarrier.arrive", v(7, 0), sm(80), "9.7.13.15.15", op("cp").all(&["async", "mbarrier", "arrive"]), "cp.async.mbarrier.arrive.shared.b64 [bar0];\ncp.async.mbarrier.arrive.noinc.shared.b64 [bar0];"),
    inst("cp.async.mbarrier.arrive.shared::cta", v(7, 8), sm(80), "9.7.13.15.15", op("cp").all(&["async", "mbarrier", "arrive", "shared::cta"]), "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar0];"),
    // 9.7.13.15.16 test_wait PTX ISA 7.0, sm_80; .parity PTX ISA 7.1; try_wait (with or without
    // .parity) PTX ISA 7.8, sm_90.
    inst("mbarrier.test_wait", v(7, 0), sm(80), "9.7.13.15.16", op("mbarrier").all(&["test_wait"]).none(&["parity"]), "mbarrier.test_wait.shared.b64 %p1, [bar0], %rd1;"),
    inst("mbarrier.test_wait.parity", v(7, 1), sm(80), "9.7.13.15.16", op("mbarrier").all(&["test_wait", "parity"]), "mbarrier.test_wait.parity.shared.b64 %p1, [bar0], 0;"),
    inst("mbarrier.try_wait", v(7, 8), sm(90), "9.7.13.15.16", op("mbarrier").all(&["try_wait"]).none(&["parity"]), "mbarrier.try_wait.shared.b64 %p1, [bar0], %rd1;\nmbarrier.try_wait.shared.b64 %p1, [bar0], %rd1, 1000;"),
    inst("mbarrier.try_wait.parity", v(7, 8), sm(90), "9.7.13.15.16", op("mbarrier").all(&["try_wait", "parity"]), "mbarrier.try_wait.parity.shared.b64 %p1, [bar0], 0;\nmbarrier.try_wait.parity.shared.b64 %p1, [bar0], 1, 1000;"),
    // 9.7.13.15.17 pending_count: PTX ISA 7.0, sm_80.
    inst("mbarrier.pending_count", v(7, 0), sm(80), "9.7.13.15.17", op("mbarrier").all(&["pending_count"]), "mbarrier.pending_count.b64 %r1, %rd1;"),
    // 9.7.13.16 tensormap.cp_fenceproxy: PTX ISA 8.3, sm_90.
    inst("tensormap.cp_fenceproxy", v(8, 3), sm(90), "9.7.13.16", op("tensormap").all(&["cp_fenceproxy"]), "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [tile], 128;\ntensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cta.sync.aligned [%rd1], [tile], 128;"),
    // ---- 9.7.14.5 warp-level matrix instructions.
    // 9.7.14.5.14 mma: PTX ISA 6.4, sm_70 (.m8n8k4 .f16); .m16n8k16 with .f16/.bf16 inputs PTX
    // ISA 7.0, sm_80; .e4m3/.e5m2 inputs PTX ISA 8.4, sm_89; with them, the .m16n8k16 shape and
    // .f16 accumulators PTX ISA 8.7 (sm_89). The other shapes and types have no rows of their
    // own: the `mma` row gives them its lower bound.
    inst("mma", v(6, 4), sm(70), "9.7.14.5.14", op("mma"), "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, {%r1, %r2}, {%r3, %r4}, {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f0};"),
    inst("mma.m16n8k16 with .f16/.bf16", v(7, 0), sm(80), "9.7.14.5.14", op("mma").all(&["m16n8k16"]).any(&["f16", "bf16"]).none(&["e4m3", "e5m2"]), "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};\nmma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r1, %r2}, {%r3, %r4, %r5, %r6}, {%r7, %r8}, {%r9, %r10};\nmma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};"),
    inst("mma with .e4m3/.e5m2", v(8, 4), sm(89), "9.7.14.5.14", op("mma").any(&["e4m3", "e5m2"]), "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};\nmma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};"),
    inst("mma.m16n8k16 with .e4m3/.e5m2", v(8, 7), sm(89), "9.7.14.5.14", op("mma").all(&["m16n8k16"]).any(&["e4m3", "e5m2"]), "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r5}, {%f5, %f6, %f7, %f8};"),
    inst("mma with .e4m3/.e5m2 and .f16 accumulators", v(8, 7), sm(89), "9.7.14.5.14", op("mma").all(&["f16"]).any(&["e4m3", "e5m2"]), "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16 {%r1, %r2}, {%r3, %r4, %r5, %r6}, {%r7, %r8}, {%r9, %r10};"),
    // 9.7.14.5.15 ldmatrix: PTX ISA 6.5, sm_75; ::cta PTX ISA 7.8. 9.7.14.5.16 stmatrix: PTX ISA
    // 7.8, sm_90. Their sm_100 shapes and .b8 (PTX ISA 8.6) have no rows yet.
    inst("ldmatrix", v(6, 5), sm(75), "9.7.14.5.15", op("ldmatrix"), "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [tile];\nldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r1, %r2}, [%r5];\nldmatrix.sync.aligned.m8n8.x1.b16 {%r1}, [%rd1];"),
    inst("ldmatrix.shared::cta", v(7, 8), sm(75), "9.7.14.5.15", op("ldmatrix").all(&["shared::cta"]), "ldmatrix.sync.aligned.m8n8.x1.shared::cta.b16 {%r1}, [tile];"),
    inst("stmatrix", v(7, 8), sm(90), "9.7.14.5.16", op("stmatrix"), "stmatrix.sync.aligned.m8n8.x4.shared.b16 [tile], {%r1, %r2, %r3, %r4};\nstmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16 [%r5], {%r1, %r2};"),
    // ---- 9.7.15 warpgroup-level matrix instructions: sm_90a only (not sm_100a or later).
    // 9.7.15.5.2 wgmma.mma_async: PTX ISA 8.0; .u8.s8 and .s8.u8 PTX ISA 8.4. 9.7.15.6.3
    // wgmma.mma_async.sp: PTX ISA 8.2 (the same note on .u8.s8/.s8.u8). 9.7.15.7.1-3
    // wgmma.fence, wgmma.commit_group, wgmma.wait_group: PTX ISA 8.0.
    inst("wgmma.mma_async", v(8, 0), sm_a(90), "9.7.15.5.2", op("wgmma").all(&["mma_async"]).none(&["sp"]), "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1, 0, 0;\nwgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, -1, 1, 0, 1;\nwgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, %rd2, %p1, 1, 1, 1;\nwgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%r1, %r2}, %rd1, %rd2, %p1, 1, 1, 0, 0;\nwgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1;\nwgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%r1, %r2, %r3, %r4}, %rd1, %rd2, %p1;"),
    inst("wgmma.mma_async.sp", v(8, 2), sm_a(90), "9.7.15.6.3", op("wgmma").all(&["mma_async", "sp"]), "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %r1, 0, %p1, 1, 1, 0, 0;"),
    inst("wgmma.mma_async.u8.s8", v(8, 4), sm_a(90), "9.7.15.5.2", op("wgmma").all(&["mma_async", "u8", "s8"]), "wgmma.mma_async.sync.aligned.m64n8k32.s32.u8.s8 {%r1, %r2, %r3, %r4}, %rd1, %rd2, %p1;"),
    inst("wgmma.mma_async.s8.u8", v(8, 4), sm_a(90), "9.7.15.5.2", op("wgmma").all(&["mma_async", "s8", "u8"]), "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.u8.satfinite {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, %rd2, 1;"),
    inst("wgmma.fence", v(8, 0), sm_a(90), "9.7.15.7.1", op("wgmma").all(&["fence"]), "wgmma.fence.sync.aligned;"),
    inst("wgmma.commit_group", v(8, 0), sm_a(90), "9.7.15.7.2", op("wgmma").all(&["commit_group"]), "wgmma.commit_group.sync.aligned;"),
    inst("wgmma.wait_group", v(8, 0), sm_a(90), "9.7.15.7.3", op("wgmma").all(&["wait_group"]), "wgmma.wait_group.sync.aligned 0;\nwgmma.wait_group.sync.aligned 1;"),
    // ---- 9.7.19 miscellaneous: nanosleep PTX ISA 6.3, sm_70; trap PTX ISA 1.0, all targets;
    // setmaxnreg PTX ISA 8.0 on sm_90a, sm_100a, sm_101a (sm_110a), sm_120a and, from PTX ISA
    // 8.8, the sm_100f, sm_101f (sm_110f) and sm_120f families.
    inst("nanosleep", v(6, 3), sm(70), "9.7.19.2", op("nanosleep"), "nanosleep.u32 20;\nnanosleep.u32 %r1;"),
    inst("trap", v(1, 0), ALL, "9.7.19.4", op("trap"), "trap;"),
    inst("setmaxnreg", v(8, 0), sm_a(90), "9.7.19.5", op("setmaxnreg"), "setmaxnreg.inc.sync.aligned.u32 64;\nsetmaxnreg.dec.sync.aligned.u32 32;")
        .also(&[sm_a(100), sm_a(101), sm_a(110), sm_a(120), sm_f(100), sm_f(101), sm_f(110), sm_f(120)]),
    // ---- 10 special registers: %tid, %ntid, %ctaid, %nctaid, %clock PTX ISA 1.0; %laneid,
    // %warpid, %smid PTX ISA 1.3 (all targets); %nwarpid, %nsmid, %lanemask_*, %clock64 PTX ISA
    // 2.0, sm_20; %globaltimer PTX ISA 3.1, sm_30; %total_smem_size, %dynamic_smem_size PTX ISA
    // 4.1, sm_20; the cluster registers PTX ISA 7.8, sm_90; %aggr_smem_size PTX ISA 8.1, sm_90.
    sreg("%tid", v(1, 0), ALL, "10.1", "mov.u32 %r1, %tid.x;"),
    sreg("%ntid", v(1, 0), ALL, "10.2", "mov.u32 %r1, %ntid.y;"),
    sreg("%laneid", v(1, 3), ALL, "10.3", "mov.u32 %r1, %laneid;"),
    sreg("%warpid", v(1, 3), ALL, "10.4", "mov.u32 %r1, %warpid;"),
    sreg("%nwarpid", v(2, 0), sm(20), "10.5", "mov.u32 %r1, %nwarpid;"),
    sreg("%ctaid", v(1, 0), ALL, "10.6", "mov.u32 %r1, %ctaid.x;"),
    sreg("%nctaid", v(1, 0), ALL, "10.7", "mov.u32 %r1, %nctaid.z;"),
    sreg("%smid", v(1, 3), ALL, "10.8", "mov.u32 %r1, %smid;"),
    sreg("%nsmid", v(2, 0), sm(20), "10.9", "mov.u32 %r1, %nsmid;"),
    sreg("%is_explicit_cluster", v(7, 8), sm(90), "10.11", "mov.pred %p1, %is_explicit_cluster;"),
    sreg("%clusterid", v(7, 8), sm(90), "10.12", "mov.u32 %r1, %clusterid.x;"),
    sreg("%nclusterid", v(7, 8), sm(90), "10.13", "mov.u32 %r1, %nclusterid.y;"),
    sreg("%cluster_ctaid", v(7, 8), sm(90), "10.14", "mov.u32 %r1, %cluster_ctaid.x;"),
    sreg("%cluster_nctaid", v(7, 8), sm(90), "10.15", "mov.u32 %r1, %cluster_nctaid.x;"),
    sreg("%cluster_ctarank", v(7, 8), sm(90), "10.16", "mov.u32 %r1, %cluster_ctarank;"),
    sreg("%cluster_nctarank", v(7, 8), sm(90), "10.17", "mov.u32 %r1, %cluster_nctarank;"),
    sreg("%lanemask_eq", v(2, 0), sm(20), "10.18", "mov.u32 %r1, %lanemask_eq;"),
    sreg("%lanemask_le", v(2, 0), sm(20), "10.19", "mov.u32 %r1, %lanemask_le;"),
    sreg("%lanemask_lt", v(2, 0), sm(20), "10.20", "mov.u32 %r1, %lanemask_lt;"),
    sreg("%lanemask_ge", v(2, 0), sm(20), "10.21", "mov.u32 %r1, %lanemask_ge;"),
    sreg("%lanemask_gt", v(2, 0), sm(20), "10.22", "mov.u32 %r1, %lanemask_gt;"),
    sreg("%clock", v(1, 0), ALL, "10.23", "mov.u32 %r1, %clock;"),
    sreg("%clock64", v(2, 0), sm(20), "10.24", "mov.u64 %rd1, %clock64;"),
    sreg("%globaltimer", v(3, 1), sm(30), "10.28", "mov.u64 %rd1, %globaltimer;"),
    sreg("%total_smem_size", v(4, 1), sm(20), "10.30", "mov.u32 %r1, %total_smem_size;"),
    sreg("%aggr_smem_size", v(8, 1), sm(90), "10.31", "mov.u32 %r1, %aggr_smem_size;"),
    sreg("%dynamic_smem_size", v(4, 1), sm(20), "10.32", "mov.u32 %r1, %dynamic_smem_size;"),
    // ---- 11 directives: .maxnreg, .maxntid PTX ISA 1.3; .reqntid PTX ISA 2.1; .minnctapersm,
    // .pragma PTX ISA 2.0 (all targets); .noreturn PTX ISA 6.4, sm_30; the cluster dimension
    // directives PTX ISA 7.8, sm_90.
    dir("maxnreg", ".maxnreg", v(1, 3), ALL, "11.4.1", ".maxnreg 64"),
    dir("maxntid", ".maxntid", v(1, 3), ALL, "11.4.2", ".maxntid 128, 1, 1"),
    dir("reqntid", ".reqntid", v(2, 1), ALL, "11.4.3", ".reqntid 128, 1, 1"),
    dir("minnctapersm", ".minnctapersm", v(2, 0), ALL, "11.4.4", ".minnctapersm 2"),
    dir("noreturn", ".noreturn", v(6, 4), sm(30), "11.4.6", ".noreturn"),
    dir("pragma", ".pragma", v(2, 0), ALL, "11.4.7", ".pragma \"nounroll\""),
    dir("reqnctapercluster", ".reqnctapercluster", v(7, 8), sm(90), "11.7.1", ".reqnctapercluster 2, 1, 1"),
    dir("explicitcluster", ".explicitcluster", v(7, 8), sm(90), "11.7.2", ".explicitcluster"),
    dir("maxclusterrank", ".maxclusterrank", v(7, 8), sm(90), "11.7.3", ".maxclusterrank 8"),
];

/// The features an instruction uses: its own and its modifiers' rows, and the special registers
/// its operands read, in table order.
pub fn instruction_features(inst: &Instruction) -> Vec<Feature> {
    FEATURE_TABLE
        .iter()
        .filter(|row| row.matches_instruction(inst))
        .map(|row| row.feature)
        .collect()
}

/// The features a function directive (`.reqnctapercluster 2, 1, 1`) uses.
pub fn directive_features(d: &Directive) -> Vec<Feature> {
    FEATURE_TABLE
        .iter()
        .filter(|row| row.matches_directive(d))
        .map(|row| row.feature)
        .collect()
}

/// A `.target` and the lowest `.version` that accepts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetRow {
    /// The target.
    pub sm: SmVersion,
    /// The first `.version` that accepts `.target sm` (PTX ISA 13, "PTX release history").
    pub ptx: Version,
}

const fn target(sm: SmVersion, ptx: Version) -> TargetRow {
    TargetRow { sm, ptx }
}

/// Every `.target` from `sm_20` on with the `.version` that introduced it (PTX ISA 13, "PTX
/// release history", and the release notes of each version; `sm_101` became `sm_110` in 9.0).
pub static TARGETS: &[TargetRow] = &[
    target(sm(20), v(2, 0)),
    target(sm(30), v(3, 0)),
    target(sm(32), v(4, 0)),
    target(sm(35), v(3, 1)),
    target(sm(37), v(4, 1)),
    target(sm(50), v(4, 0)),
    target(sm(52), v(4, 1)),
    target(sm(53), v(4, 2)),
    target(sm(60), v(5, 0)),
    target(sm(61), v(5, 0)),
    target(sm(62), v(5, 0)),
    target(sm(70), v(6, 0)),
    target(sm(72), v(6, 1)),
    target(sm(75), v(6, 3)),
    target(sm(80), v(7, 0)),
    target(sm(86), v(7, 1)),
    target(sm(87), v(7, 4)),
    target(sm(88), v(9, 0)),
    target(sm(89), v(7, 8)),
    target(sm(90), v(7, 8)),
    target(sm_a(90), v(8, 0)),
    target(sm(100), v(8, 6)),
    target(sm_a(100), v(8, 6)),
    target(sm_f(100), v(8, 8)),
    target(sm(101), v(8, 6)),
    target(sm_a(101), v(8, 6)),
    target(sm_f(101), v(8, 8)),
    target(sm(103), v(8, 8)),
    target(sm_a(103), v(8, 8)),
    target(sm_f(103), v(8, 8)),
    target(sm(110), v(9, 0)),
    target(sm_a(110), v(9, 0)),
    target(sm_f(110), v(9, 0)),
    target(sm(120), v(8, 7)),
    target(sm_a(120), v(8, 7)),
    target(sm_f(120), v(8, 8)),
    target(sm(121), v(8, 8)),
    target(sm_a(121), v(8, 8)),
    target(sm_f(121), v(8, 8)),
];

/// The lowest `.version` that allows `.target sm`: `sm_80` → 7.0, `sm_86` → 7.1, `sm_90` → 7.8,
/// `sm_90a` → 8.0. `None` for a target the table does not know (below `sm_20`, or newer than
/// the documentation the table follows).
pub fn target_min_version(sm: SmVersion) -> Option<Version> {
    TARGETS.iter().find(|t| t.sm == sm).map(|t| t.ptx)
}

/// The `.target` directive as a feature (`.target sm_90`: PTX ISA 7.8), so that a module whose
/// `.version` is too old for its own target is reported like any other feature.
pub fn target_feature(sm: SmVersion) -> Option<Feature> {
    let index = TARGETS.iter().position(|t| t.sm == sm)?;
    Some(Feature {
        name: TARGET_NAMES[index],
        ptx: TARGETS[index].ptx,
        sm,
        also: &[],
        later_on: &[],
        spec: "11.1.2",
    })
}

/// `.target sm_XX` for each row of [`TARGETS`], in the same order (a [`Feature`] name is a
/// `&'static str`).
const TARGET_NAMES: [&str; 39] = [
    ".target sm_20",
    ".target sm_30",
    ".target sm_32",
    ".target sm_35",
    ".target sm_37",
    ".target sm_50",
    ".target sm_52",
    ".target sm_53",
    ".target sm_60",
    ".target sm_61",
    ".target sm_62",
    ".target sm_70",
    ".target sm_72",
    ".target sm_75",
    ".target sm_80",
    ".target sm_86",
    ".target sm_87",
    ".target sm_88",
    ".target sm_89",
    ".target sm_90",
    ".target sm_90a",
    ".target sm_100",
    ".target sm_100a",
    ".target sm_100f",
    ".target sm_101",
    ".target sm_101a",
    ".target sm_101f",
    ".target sm_103",
    ".target sm_103a",
    ".target sm_103f",
    ".target sm_110",
    ".target sm_110a",
    ".target sm_110f",
    ".target sm_120",
    ".target sm_120a",
    ".target sm_120f",
    ".target sm_121",
    ".target sm_121a",
    ".target sm_121f",
];

/// Every PTX ISA version released, in order (PTX ISA 13, "PTX release history").
#[rustfmt::skip]
pub const PTX_VERSIONS: &[Version] = &[
    v(1, 0), v(1, 1), v(1, 2), v(1, 3), v(1, 4), v(1, 5),
    v(2, 0), v(2, 1), v(2, 2), v(2, 3),
    v(3, 0), v(3, 1), v(3, 2),
    v(4, 0), v(4, 1), v(4, 2), v(4, 3),
    v(5, 0),
    v(6, 0), v(6, 1), v(6, 2), v(6, 3), v(6, 4), v(6, 5),
    v(7, 0), v(7, 1), v(7, 2), v(7, 3), v(7, 4), v(7, 5), v(7, 6), v(7, 7), v(7, 8),
    v(8, 0), v(8, 1), v(8, 2), v(8, 3), v(8, 4), v(8, 5), v(8, 6), v(8, 7), v(8, 8),
    v(9, 0),
];

/// The released PTX ISA version just before `version` (`8.0` → `7.8`).
pub fn previous_version(version: Version) -> Option<Version> {
    PTX_VERSIONS.iter().rev().find(|&&p| p < version).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Opcode, Operand};

    fn inst(text_opcode: &str, modifiers: &[&str], operands: Vec<Operand>) -> Instruction {
        Instruction::new(Opcode::from_name(text_opcode), modifiers, operands)
    }

    fn names(features: &[Feature]) -> Vec<&'static str> {
        features.iter().map(|f| f.name).collect()
    }

    #[test]
    fn target_names_follow_targets() {
        assert_eq!(TARGET_NAMES.len(), TARGETS.len());
        for (name, row) in TARGET_NAMES.iter().zip(TARGETS) {
            assert_eq!(*name, format!(".target {}", row.sm));
        }
    }

    #[test]
    fn try_wait_parity_with_relaxed_scope() {
        let i = inst(
            "mbarrier",
            &["try_wait", "parity", "relaxed", "cta", "shared::cta", "b64"],
            vec![Operand::reg("%p1"), Operand::sym("bar0"), Operand::int(0)],
        );
        let got = names(&instruction_features(&i));
        assert_eq!(
            got,
            [
                "mbarrier.shared::cta",
                "mbarrier.{release,acquire}.cta",
                "mbarrier.{arrive,arrive_drop,test_wait,try_wait}.relaxed",
                "mbarrier.try_wait.parity",
            ]
        );
        let relaxed = instruction_features(&i)
            .into_iter()
            .find(|f| f.name.ends_with(".relaxed"))
            .unwrap();
        assert_eq!(
            (relaxed.ptx, relaxed.sm),
            (Version::new(8, 6), SmVersion::new(90))
        );
    }

    #[test]
    fn modifier_order_matters_for_cvt() {
        let to_bf16 = inst("cvt", &["rn", "bf16", "f32"], vec![]);
        let from_bf16 = inst("cvt", &["f32", "bf16"], vec![]);
        assert!(names(&instruction_features(&to_bf16)).contains(&"cvt.bf16.f32"));
        assert!(!names(&instruction_features(&to_bf16)).contains(&"cvt.f32.bf16"));
        assert!(names(&instruction_features(&from_bf16)).contains(&"cvt.f32.bf16"));
    }

    #[test]
    fn bulk_and_tensor_copies_stay_apart() {
        let tensor_map = || {
            Operand::TensorAddress(
                crate::model::Address {
                    base: crate::model::AddressBase::Reg("%rd1".into()),
                    offset: 0,
                },
                vec![Operand::reg("%r1")],
            )
        };
        let load = inst(
            "cp",
            &[
                "async",
                "bulk",
                "tensor",
                "1d",
                "shared::cta",
                "global",
                "tile",
                "mbarrier::complete_tx::bytes",
                "multicast::cluster",
            ],
            vec![Operand::sym("tile"), tensor_map(), Operand::sym("bar0")],
        );
        assert_eq!(
            names(&instruction_features(&load)),
            [
                "cp.async.bulk.tensor",
                "cp.async.bulk.tensor.multicast::cluster",
                "cp.async.bulk.tensor.shared::cta.global",
            ]
        );
        let bulk = inst(
            "cp",
            &[
                "async",
                "bulk",
                "shared::cta",
                "global",
                "mbarrier::complete_tx::bytes",
            ],
            vec![],
        );
        assert_eq!(
            names(&instruction_features(&bulk)),
            ["cp.async.bulk", "cp.async.bulk.shared::cta.global"]
        );
        for (modifiers, name) in [
            (
                &[
                    "reduce",
                    "async",
                    "bulk",
                    "tensor",
                    "1d",
                    "global",
                    "shared::cta",
                    "add",
                ][..],
                "cp.reduce.async.bulk.tensor",
            ),
            (
                &["async", "bulk", "prefetch", "tensor", "1d", "L2", "global"][..],
                "cp.async.bulk.prefetch.tensor",
            ),
        ] {
            assert_eq!(
                names(&instruction_features(&inst("cp", modifiers, vec![]))),
                [name]
            );
        }
    }

    #[test]
    fn operands_select_features() {
        let counted = inst(
            "mbarrier",
            &["arrive", "shared", "b64"],
            vec![Operand::reg("%rd1"), Operand::sym("b"), Operand::int(2)],
        );
        let sink = inst(
            "mbarrier",
            &["arrive", "shared", "b64"],
            vec![Operand::Sink, Operand::sym("b")],
        );
        assert!(
            names(&instruction_features(&counted))
                .contains(&"mbarrier.arrive with a count and without .noComplete")
        );
        assert!(
            names(&instruction_features(&sink)).contains(&"mbarrier.arrive with sink destination")
        );
        let plain = inst(
            "mbarrier",
            &["arrive", "noComplete", "b64"],
            vec![Operand::reg("%rd1"), Operand::sym("b"), Operand::int(2)],
        );
        assert_eq!(names(&instruction_features(&plain)), ["mbarrier.arrive"]);
    }

    #[test]
    fn special_registers_with_and_without_dimension() {
        let rank = inst(
            "mov",
            &["u32"],
            vec![Operand::reg("%r1"), Operand::reg("%cluster_ctarank")],
        );
        let ctaid = inst(
            "mov",
            &["u32"],
            vec![Operand::reg("%r1"), Operand::reg("%cluster_ctaid.y")],
        );
        let f = instruction_features(&rank);
        assert_eq!(names(&f), ["mov", "%cluster_ctarank"]);
        assert_eq!(
            (f[1].ptx, f[1].sm),
            (Version::new(7, 8), SmVersion::new(90))
        );
        assert_eq!(
            names(&instruction_features(&ctaid)),
            ["mov", "%cluster_ctaid"]
        );
        // %ctaid must not be mistaken for %cluster_ctaid and vice versa.
        let plain = inst(
            "mov",
            &["u32"],
            vec![Operand::reg("%r1"), Operand::reg("%ctaid.x")],
        );
        assert_eq!(names(&instruction_features(&plain)), ["mov", "%ctaid"]);
    }

    #[test]
    fn directives() {
        let d = Directive {
            name: "reqnctapercluster".into(),
            args: vec![],
        };
        let f = directive_features(&d);
        assert_eq!(names(&f), [".reqnctapercluster"]);
        assert_eq!(
            (f[0].ptx, f[0].sm, f[0].spec),
            (Version::new(7, 8), SmVersion::new(90), "11.7.1")
        );
        assert!(
            directive_features(&Directive {
                name: "section".into(),
                args: vec![]
            })
            .is_empty()
        );
    }

    #[test]
    fn target_versions() {
        let min = |s: &str| target_min_version(SmVersion::parse(s).unwrap());
        assert_eq!(min("sm_70"), Some(Version::new(6, 0)));
        assert_eq!(min("sm_80"), Some(Version::new(7, 0)));
        assert_eq!(min("sm_86"), Some(Version::new(7, 1)));
        assert_eq!(min("sm_89"), Some(Version::new(7, 8)));
        assert_eq!(min("sm_90"), Some(Version::new(7, 8)));
        assert_eq!(min("sm_90a"), Some(Version::new(8, 0)));
        assert_eq!(min("sm_100a"), Some(Version::new(8, 6)));
        assert_eq!(min("sm_120a"), Some(Version::new(8, 7)));
        assert_eq!(min("sm_12"), None);
        assert_eq!(
            previous_version(Version::new(8, 0)),
            Some(Version::new(7, 8))
        );
        assert_eq!(
            previous_version(Version::new(7, 0)),
            Some(Version::new(6, 5))
        );
        assert_eq!(previous_version(Version::new(1, 0)), None);
    }

    #[test]
    fn arch_and_family_targets() {
        let setmaxnreg = FEATURE_TABLE
            .iter()
            .find(|r| r.feature.name == "setmaxnreg")
            .unwrap()
            .feature;
        let on = |s: &str| setmaxnreg.available_on(SmVersion::parse(s).unwrap());
        assert!(
            on("sm_90a")
                && on("sm_100a")
                && on("sm_120a")
                && on("sm_100f")
                && on("sm_103f")
                && on("sm_103a")
                && on("sm_121f")
        );
        assert!(!on("sm_90") && !on("sm_100") && !on("sm_89") && !on("sm_121"));
        assert_eq!(
            setmaxnreg.target_text(),
            "sm_90a, sm_100a, sm_101a, sm_110a, sm_120a, the sm_100f family, the sm_101f family, the sm_110f family or the sm_120f family"
        );
        let try_wait = FEATURE_TABLE
            .iter()
            .find(|r| r.feature.name == "mbarrier.try_wait")
            .unwrap()
            .feature;
        assert!(try_wait.available_on(SmVersion::arch_specific(90)));
        assert!(try_wait.available_on(SmVersion::new(100)));
        assert!(!try_wait.available_on(SmVersion::new(89)));
    }

    #[test]
    fn every_row_names_a_section_and_a_sample() {
        let mut seen = std::collections::HashSet::new();
        for row in FEATURE_TABLE {
            assert!(
                seen.insert(row.feature.name),
                "duplicate feature name {}",
                row.feature.name
            );
            assert!(
                row.feature
                    .spec
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == '.'),
                "{}",
                row.feature.spec
            );
            assert!(!row.sample.is_empty(), "{} has no sample", row.feature.name);
            assert!(
                PTX_VERSIONS.contains(&row.feature.ptx),
                "{}: {} is not a released PTX ISA version",
                row.feature.name,
                row.feature.ptx
            );
            for &(sm, later) in row.feature.later_on {
                assert!(
                    PTX_VERSIONS.contains(&later) && later > row.feature.ptx,
                    "{}: {later} on {sm} is not a later released version",
                    row.feature.name
                );
            }
        }
    }
}
