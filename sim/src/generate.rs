//! Random barrier-correct kernels, for differential testing: the same kernel run by the
//! simulator under many schedules and on a GPU must give one result.
//!
//! A generated kernel reads one `u32` per thread, transforms it through a random sequence of
//! phases — arithmetic, exchanges through shared memory separated by `bar.sync`, counted named
//! barriers over a subset of warps, `bar.red` reductions, mbarrier phases, and bulk copies
//! completing on an mbarrier — and writes one `u32` per thread. Every phase follows its
//! barrier's protocol, so the result is defined and schedule-independent. Kernels are built in
//! the PTX model and written with [`phasegate_ptx::write_string`]; a seed names each one.

use crate::rng::Rng;
use phasegate_ptx::*;

/// A generated kernel and the launch it is written for.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The seed that names the kernel: [`kernel`] with it builds the same kernel again.
    pub seed: u64,
    /// The PTX module, with one entry taking `(in, out)`: two global `u32` buffers of one
    /// element per thread of the grid.
    pub ptx: String,
    /// The entry's name, `gen_SEED`.
    pub entry: String,
    /// CTAs of the launch, along x.
    pub grid: u32,
    /// Threads per CTA, along x (a multiple of 32, at most 256).
    pub block: u32,
    /// The kinds of phases, in order (for reports).
    pub phases: Vec<&'static str>,
}

/// The bytes of the bulk-copied tile: one `u32` per thread of the largest block.
const TILE_WORDS: u32 = 256;

/// Builds the statements of one kernel.
struct Builder {
    body: Vec<Statement>,
    regs: u32,
    preds: u32,
    labels: u32,
    /// The parity of the mbarrier's current phase.
    parity: u32,
}

impl Builder {
    fn r(&mut self) -> String {
        self.regs += 1;
        format!("%r{}", self.regs)
    }
    fn p(&mut self) -> String {
        self.preds += 1;
        format!("%p{}", self.preds)
    }
    fn label(&mut self) -> String {
        self.labels += 1;
        format!("$L_{}", self.labels)
    }
    fn i(&mut self, opcode: &str, mods: &[&str], ops: Vec<Operand>) {
        self.body.push(Statement::Instruction(Instruction::new(
            Opcode::from_name(opcode),
            mods,
            ops,
        )));
    }
    fn guarded(
        &mut self,
        pred: &str,
        negated: bool,
        opcode: &str,
        mods: &[&str],
        ops: Vec<Operand>,
    ) {
        let inst = Instruction::new(Opcode::from_name(opcode), mods, ops).guarded(Some(Guard {
            negated,
            pred: pred.into(),
        }));
        self.body.push(Statement::Instruction(inst));
    }
    fn reg(name: &str) -> Operand {
        Operand::reg(name)
    }
    fn addr(base: &str, offset: i64) -> Operand {
        let base = if base.starts_with('%') {
            AddressBase::Reg(base.into())
        } else {
            AddressBase::Symbol(base.into())
        };
        Operand::Address(Address { base, offset })
    }
    /// `mad.lo.u32 dst, index, 4, base`: the address of word `index` of a shared array.
    fn word_addr(&mut self, dst: &str, index: &str, base: &str) {
        self.i(
            "mad",
            &["lo", "u32"],
            vec![
                Self::reg(dst),
                Self::reg(index),
                Operand::int(4),
                Operand::reg(base),
            ],
        );
    }
    /// `st.shared.u32 [addr], v`.
    fn st_shared(&mut self, addr: &str, v: &str) {
        self.i(
            "st",
            &["shared", "u32"],
            vec![Self::addr(addr, 0), Self::reg(v)],
        );
    }
    /// `ld.shared.u32 dst, [addr]`.
    fn ld_shared(&mut self, dst: &str, addr: &str) {
        self.i(
            "ld",
            &["shared", "u32"],
            vec![Self::reg(dst), Self::addr(addr, 0)],
        );
    }
    /// `OP.TY d, a, b` over registers.
    fn binary(&mut self, opcode: &str, ty: &str, d: &str, a: &str, b: &str) {
        self.i(
            opcode,
            &[ty],
            vec![Self::reg(d), Self::reg(a), Self::reg(b)],
        );
    }
    /// `loop: <wait> %p; @!%p bra loop;`
    fn spin(&mut self, mods: &[&str], ops: Vec<Operand>) {
        let l = self.label();
        self.body.push(Statement::Label(l.clone()));
        let p = self.p();
        let mut all = vec![Operand::reg(&p)];
        all.extend(ops);
        self.i("mbarrier", mods, all);
        self.guarded(&p, true, "bra", &[], vec![Operand::sym(&l)]);
    }
}

/// Generates the kernel of `seed`.
pub fn kernel(seed: u64) -> Generated {
    let mut rng = Rng::new(seed);
    let block = 32 * (1 + rng.below(8) as u32); // 32..=256 threads
    let grid = 1 + rng.below(3) as u32;
    let entry = format!("gen_{seed}");
    let mut b = Builder {
        body: Vec::new(),
        regs: 0,
        preds: 0,
        labels: 0,
        parity: 0,
    };
    let (tid, cta, ntid, gtid, v) = (b.r(), b.r(), b.r(), b.r(), b.r());
    let (pin, pout, gin, gout, addr) = ("%rd1", "%rd2", "%rd3", "%rd4", "%rd5");
    b.i(
        "ld",
        &["param", "u64"],
        vec![
            Operand::reg(pin),
            Builder::addr(&format!("{entry}_param_0"), 0),
        ],
    );
    b.i(
        "ld",
        &["param", "u64"],
        vec![
            Operand::reg(pout),
            Builder::addr(&format!("{entry}_param_1"), 0),
        ],
    );
    b.i(
        "cvta",
        &["to", "global", "u64"],
        vec![Operand::reg(gin), Operand::reg(pin)],
    );
    b.i(
        "cvta",
        &["to", "global", "u64"],
        vec![Operand::reg(gout), Operand::reg(pout)],
    );
    b.i(
        "mov",
        &["u32"],
        vec![Builder::reg(&tid), Operand::reg("%tid.x")],
    );
    b.i(
        "mov",
        &["u32"],
        vec![Builder::reg(&cta), Operand::reg("%ctaid.x")],
    );
    b.i(
        "mov",
        &["u32"],
        vec![Builder::reg(&ntid), Operand::reg("%ntid.x")],
    );
    b.i(
        "mad",
        &["lo", "u32"],
        vec![
            Builder::reg(&gtid),
            Builder::reg(&cta),
            Builder::reg(&ntid),
            Builder::reg(&tid),
        ],
    );
    b.i(
        "mul",
        &["wide", "u32"],
        vec![Operand::reg("%rd6"), Builder::reg(&gtid), Operand::int(4)],
    );
    b.i(
        "add",
        &["s64"],
        vec![Operand::reg(addr), Operand::reg(gin), Operand::reg("%rd6")],
    );
    b.i(
        "ld",
        &["global", "u32"],
        vec![Builder::reg(&v), Builder::addr(addr, 0)],
    );
    // Shared addresses in registers: `sbuf` for exchanges, `tile` for bulk copies.
    b.i(
        "mov",
        &["u32"],
        vec![Operand::reg("%rs_buf"), Operand::sym("sbuf")],
    );
    b.i(
        "mov",
        &["u32"],
        vec![Operand::reg("%rs_tile"), Operand::sym("tile")],
    );
    // The mbarrier: initialised by thread 0 for all threads, published before any use.
    let leader = b.p();
    b.i(
        "setp",
        &["eq", "u32"],
        vec![Operand::reg(&leader), Builder::reg(&tid), Operand::int(0)],
    );
    b.guarded(
        &leader,
        false,
        "mbarrier",
        &["init", "shared::cta", "b64"],
        vec![Builder::addr("mbar", 0), Builder::reg(&ntid)],
    );
    b.guarded(
        &leader,
        false,
        "mbarrier",
        &["init", "shared::cta", "b64"],
        vec![Builder::addr("mbar_tx", 0), Operand::int(1)],
    );
    b.i("fence", &["mbarrier_init", "release", "cluster"], vec![]);
    b.i("bar", &["sync"], vec![Operand::int(0)]);
    let mut tx_parity = 0u32;
    let mut phases = Vec::new();
    let count = 2 + rng.below(6);
    for _ in 0..count {
        arithmetic(&mut b, &mut rng, &v);
        let kind = rng.below(6);
        phases.push(match kind {
            0 => {
                exchange(&mut b, &mut rng, &tid, &ntid, &v);
                "exchange"
            }
            1 => {
                named_subset(&mut b, &mut rng, &tid, block, &v);
                "named"
            }
            2 => {
                let c = b.r();
                let (bit, pbit) = (b.r(), b.p());
                b.i(
                    "and",
                    &["b32"],
                    vec![
                        Builder::reg(&bit),
                        Builder::reg(&v),
                        Operand::int(1 << rng.below(8)),
                    ],
                );
                b.i(
                    "setp",
                    &["ne", "u32"],
                    vec![Operand::reg(&pbit), Builder::reg(&bit), Operand::int(0)],
                );
                b.i(
                    "bar",
                    &["red", "popc", "u32"],
                    vec![Builder::reg(&c), Operand::int(15), Operand::reg(&pbit)],
                );
                b.binary("add", "u32", &v, &v, &c);
                "red.popc"
            }
            3 => {
                // Everyone arrives and waits; the barrier orders the shared writes before it.
                let slot = b.r();
                b.word_addr(&slot, &tid, "%rs_buf");
                b.st_shared(&slot, &v);
                b.i(
                    "mbarrier",
                    &["arrive", "shared::cta", "b64"],
                    vec![Operand::reg("%rd7"), Builder::addr("mbar", 0)],
                );
                b.spin(
                    &["try_wait", "shared::cta", "b64"],
                    vec![Builder::addr("mbar", 0), Operand::reg("%rd7")],
                );
                b.parity ^= 1;
                let (other, w) = (b.r(), b.r());
                b.i(
                    "xor",
                    &["b32"],
                    vec![Builder::reg(&other), Builder::reg(&tid), Operand::int(1)],
                );
                b.word_addr(&other, &other, "%rs_buf");
                b.ld_shared(&w, &other);
                b.binary("xor", "b32", &v, &v, &w);
                // Nobody overwrites sbuf before everyone has read it.
                b.i("bar", &["sync"], vec![Operand::int(0)]);
                "mbarrier"
            }
            4 => {
                // Thread 0 copies this CTA's inputs into shared memory with a bulk copy that
                // completes on mbar_tx; everyone waits on its phase parity.
                let dst = "%rs_tile";
                let off = "%rd8";
                b.i(
                    "mul",
                    &["wide", "u32"],
                    vec![
                        Operand::reg(off),
                        Builder::reg(&cta),
                        Operand::int((block * 4) as i64),
                    ],
                );
                b.i(
                    "add",
                    &["s64"],
                    vec![Operand::reg("%rd9"), Operand::reg(gin), Operand::reg(off)],
                );
                b.guarded(
                    &leader,
                    false,
                    "mbarrier",
                    &["arrive", "expect_tx", "shared::cta", "b64"],
                    vec![
                        Operand::reg("%rd10"),
                        Builder::addr("mbar_tx", 0),
                        Operand::int((block * 4) as i64),
                    ],
                );
                b.guarded(
                    &leader,
                    false,
                    "cp",
                    &[
                        "async",
                        "bulk",
                        "shared::cluster",
                        "global",
                        "mbarrier::complete_tx::bytes",
                    ],
                    vec![
                        Builder::addr(dst, 0),
                        Builder::addr("%rd9", 0),
                        Operand::int((block * 4) as i64),
                        Builder::addr("mbar_tx", 0),
                    ],
                );
                b.spin(
                    &["try_wait", "parity", "shared::cta", "b64"],
                    vec![Builder::addr("mbar_tx", 0), Operand::int(tx_parity as i64)],
                );
                tx_parity ^= 1;
                let (at, w) = (b.r(), b.r());
                let r = rng.below(block as u64) as i64;
                b.i(
                    "add",
                    &["u32"],
                    vec![Builder::reg(&at), Builder::reg(&tid), Operand::int(r)],
                );
                b.binary("rem", "u32", &at, &at, &ntid);
                b.word_addr(&at, &at, dst);
                b.ld_shared(&w, &at);
                b.binary("add", "u32", &v, &v, &w);
                // The next bulk copy overwrites the tile: everyone has read it first.
                b.i("bar", &["sync"], vec![Operand::int(0)]);
                "bulk"
            }
            _ => "arithmetic",
        });
    }
    b.i(
        "mul",
        &["wide", "u32"],
        vec![Operand::reg("%rd6"), Builder::reg(&gtid), Operand::int(4)],
    );
    b.i(
        "add",
        &["s64"],
        vec![Operand::reg(addr), Operand::reg(gout), Operand::reg("%rd6")],
    );
    b.i(
        "st",
        &["global", "u32"],
        vec![Builder::addr(addr, 0), Builder::reg(&v)],
    );
    b.i("ret", &[], vec![]);
    let _ = b.parity;
    Generated {
        seed,
        ptx: finish(&entry, b),
        entry,
        grid,
        block,
        phases,
    }
}

/// Random wrapping arithmetic on `v` (2 to 5 operations).
fn arithmetic(b: &mut Builder, rng: &mut Rng, v: &str) {
    for _ in 0..2 + rng.below(4) {
        let k = rng.next_u64() as u32 | 1;
        let (op, mods, imm): (&str, &[&str], i64) = match rng.below(7) {
            0 => ("add", &["u32"], k as i64),
            1 => ("mul", &["lo", "u32"], k as i64),
            2 => ("xor", &["b32"], k as i64),
            3 => ("shl", &["b32"], (k % 7) as i64),
            4 => ("shr", &["u32"], (k % 7) as i64),
            5 => ("min", &["u32"], k as i64),
            _ => ("max", &["u32"], (k >> 4) as i64),
        };
        b.i(
            op,
            mods,
            vec![Builder::reg(v), Builder::reg(v), Operand::int(imm)],
        );
    }
}

/// Every thread stores, `bar.sync 0`, reads another thread's value, `bar.sync 0`.
fn exchange(b: &mut Builder, rng: &mut Rng, tid: &str, ntid: &str, v: &str) {
    let (slot, at, w) = (b.r(), b.r(), b.r());
    b.word_addr(&slot, tid, "%rs_buf");
    b.st_shared(&slot, v);
    b.i("bar", &["sync"], vec![Operand::int(0)]);
    b.i(
        "add",
        &["u32"],
        vec![
            Builder::reg(&at),
            Builder::reg(tid),
            Operand::int(1 + rng.below(63) as i64),
        ],
    );
    b.binary("rem", "u32", &at, &at, ntid);
    b.word_addr(&at, &at, "%rs_buf");
    b.ld_shared(&w, &at);
    b.binary("add", "u32", v, v, &w);
    b.i("bar", &["sync"], vec![Operand::int(0)]);
}

/// The first `k` warps exchange through named barrier `k` counted for them alone; the others
/// skip it (a warp-uniform branch, as in a warp-specialised kernel).
fn named_subset(b: &mut Builder, rng: &mut Rng, tid: &str, block: u32, v: &str) {
    let warps = block / 32;
    let k = 1 + rng.below(warps as u64) as u32;
    let (inside, skip) = (b.p(), b.label());
    b.i(
        "setp",
        &["lt", "u32"],
        vec![
            Operand::reg(&inside),
            Builder::reg(tid),
            Operand::int((k * 32) as i64),
        ],
    );
    b.guarded(&inside, true, "bra", &[], vec![Operand::sym(&skip)]);
    let (slot, at, w) = (b.r(), b.r(), b.r());
    b.word_addr(&slot, tid, "%rs_buf");
    b.st_shared(&slot, v);
    // One barrier id per thread count (ids 1..=8): one id never serves two counts.
    b.i(
        "bar",
        &["sync"],
        vec![Operand::int(k as i64), Operand::int((k * 32) as i64)],
    );
    b.i(
        "xor",
        &["b32"],
        vec![
            Builder::reg(&at),
            Builder::reg(tid),
            Operand::int((k * 32 - 1).min(31) as i64),
        ],
    );
    b.word_addr(&at, &at, "%rs_buf");
    b.ld_shared(&w, &at);
    b.binary("sub", "u32", v, v, &w);
    b.i(
        "bar",
        &["sync"],
        vec![Operand::int(k as i64), Operand::int((k * 32) as i64)],
    );
    b.body.push(Statement::Label(skip));
    // Re-converge the CTA before the next phase touches shared memory.
    b.i("bar", &["sync"], vec![Operand::int(0)]);
}

fn finish(entry: &str, b: Builder) -> String {
    let mut body = Body::new();
    let mut decl = |d: VarDecl| {
        body.push(Statement::Decl(d), Span::NONE);
    };
    let mut preds = VarDecl::new(StateSpace::Reg, ScalarType::Pred, "%p");
    preds.range = Some(b.preds + 1);
    decl(preds);
    let mut regs = VarDecl::new(StateSpace::Reg, ScalarType::B32, "%r");
    regs.range = Some(b.regs + 1);
    decl(regs);
    let mut wide = VarDecl::new(StateSpace::Reg, ScalarType::B64, "%rd");
    wide.range = Some(11);
    decl(wide);
    for name in ["%rs_buf", "%rs_tile"] {
        decl(VarDecl::new(StateSpace::Reg, ScalarType::B32, name));
    }
    for (name, bytes, align) in [
        ("sbuf", TILE_WORDS as u64 * 4, 16),
        ("tile", TILE_WORDS as u64 * 4, 128),
    ] {
        let mut d = VarDecl::new(StateSpace::Shared, ScalarType::B8, name);
        d.align = Some(align);
        d.array = vec![Some(bytes)];
        decl(d);
    }
    for name in ["mbar", "mbar_tx"] {
        let mut d = VarDecl::new(StateSpace::Shared, ScalarType::B64, name);
        d.align = Some(8);
        decl(d);
    }
    for s in b.body {
        body.push(s, Span::NONE);
    }
    let params = (0..3)
        .map(|i| {
            VarDecl::new(
                StateSpace::Param,
                if i < 2 {
                    ScalarType::U64
                } else {
                    ScalarType::U32
                },
                format!("{entry}_param_{i}"),
            )
        })
        .collect();
    let function = Function {
        kind: FunctionKind::Entry,
        linkage: Some(Linkage::Visible),
        name: entry.to_string(),
        returns: Vec::new(),
        params,
        directives: Vec::new(),
        body: Some(body),
    };
    let mut module = Module::new(Version::new(8, 0), SmVersion::arch_specific(90));
    module.items.push(Item::Function(function));
    module.version = validate::required_version(&module);
    write_string(&module)
}
