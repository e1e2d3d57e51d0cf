//! Helpers for the lint tests: wrap a kernel body in a module and lint it.

#![allow(dead_code)]

use phasegate_lints::{Diagnostic, Level, LintConfig, lint_module};

/// A module with one `.entry k` whose body is `body` (declarations included), for `sm_90a`.
pub fn module(directives: &str, body: &str) -> String {
    format!(
        ".version 8.6\n.target sm_90a\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u32 k_param_1\n)\n{directives}\n{{\n\t.reg .pred %p<32>;\n\t.reg .b32 %r<128>;\n\t.reg .b64 %rd<64>;\n{body}\n}}\n"
    )
}

/// The line, in the module [`module`] makes of `body` (directives take one line whatever they
/// are), of the first line of `body` that contains `needle`.
pub fn line_of(body: &str, needle: &str) -> u32 {
    let text = module("", body);
    let at = text
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` is not in the kernel"));
    at as u32 + 1
}

/// The static lints alone (no witness runs): what the patterns match.
pub fn static_findings(lint: &str, body: &str) -> Vec<Diagnostic> {
    static_findings_with(lint, "", body)
}

/// [`static_findings`] of a kernel with launch directives (`.reqntid 128, 1, 1`).
pub fn static_findings_with(lint: &str, directives: &str, body: &str) -> Vec<Diagnostic> {
    let text = module(directives, body);
    let m = phasegate_ptx::parse(&text)
        .unwrap_or_else(|e| panic!("test PTX does not parse: {e}\n{text}"));
    lint_module(&m, &LintConfig::default().with_witnesses(false))
        .into_iter()
        .filter(|d| d.lint == lint)
        .collect()
}

pub fn lint_text(text: &str) -> Vec<Diagnostic> {
    let m = phasegate_ptx::parse(text)
        .unwrap_or_else(|e| panic!("test PTX does not parse: {e}\n{text}"));
    lint_module(&m, &LintConfig::default())
}

/// Findings of one lint for a kernel body.
pub fn findings(lint: &str, body: &str) -> Vec<Diagnostic> {
    findings_with(lint, "", body)
}

pub fn findings_with(lint: &str, directives: &str, body: &str) -> Vec<Diagnostic> {
    lint_text(&module(directives, body))
        .into_iter()
        .filter(|d| d.lint == lint)
        .collect()
}

/// All findings for a kernel body.
pub fn all(body: &str) -> Vec<Diagnostic> {
    lint_text(&module("", body))
}

/// Asserts exactly `n` findings of `lint`, printing them otherwise.
pub fn expect(lint: &str, body: &str, n: usize) -> Vec<Diagnostic> {
    expect_with(lint, "", body, n)
}

/// [`expect`] for a kernel with launch directives.
pub fn expect_with(lint: &str, directives: &str, body: &str, n: usize) -> Vec<Diagnostic> {
    let f = findings_with(lint, directives, body);
    assert_eq!(
        f.len(),
        n,
        "expected {n} `{lint}` findings, got:\n{}",
        f.iter()
            .map(|d| format!("line {}: {d}", d.span.line))
            .collect::<Vec<_>>()
            .join("\n")
    );
    f
}

/// Asserts no findings at all (any lint).
pub fn clean(body: &str) {
    clean_with("", body);
}

/// [`clean`] for a kernel with launch directives.
pub fn clean_with(directives: &str, body: &str) {
    let f = lint_text(&module(directives, body));
    assert!(
        f.is_empty(),
        "expected no findings, got:\n{}",
        f.iter()
            .map(|d| format!("line {}: {d}", d.span.line))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Asserts that `d` is denied with a witness: a run of the kernel broke its rule.
pub fn assert_proven(d: &Diagnostic) {
    assert_eq!(d.level, Level::Deny, "not denied: {d}");
    assert!(d.witness.is_some(), "denied without a witness: {d}");
}

/// The block of [`pipeline`]: one producer warp and the four consumer warps whose 128 threads
/// the `empty` barriers count.
pub const PIPELINE_BLOCK: &str = ".reqntid 160, 1, 1";

/// Options of the warp-specialised bulk-copy pipeline kernel: one producer thread fills
/// `full[s]` (expect_tx + cp.async.bulk), consumer warps wait on `full[s]` and arrive on
/// `empty[s]`; four stages indexed `k % 4`, parity `(k / 4) & 1`. The copies land in `tiles`,
/// 4096 bytes a stage. Runs need [`PIPELINE_BLOCK`].
#[derive(Clone, Copy, Debug)]
pub struct Pipeline {
    pub producer_wait: bool,
    /// The producer's parity is `((k >> 2) & 1) ^ 1` (true) or `(k >> 2) & 1`.
    pub producer_flip: bool,
    /// The producer waits only from the second round (`k >= 4`), as the nvcc fixture does;
    /// otherwise in every round (CUTLASS' way: the first-round wait passes at once).
    pub producer_skips_first_round: bool,
    pub consumer_wait: bool,
    pub consumer_flip: bool,
    /// Bytes the producer expects per stage (the copy moves 4096).
    pub expect_bytes: u32,
}

impl Default for Pipeline {
    fn default() -> Self {
        Pipeline {
            producer_wait: true,
            producer_flip: true,
            producer_skips_first_round: true,
            consumer_wait: true,
            consumer_flip: false,
            expect_bytes: 4096,
        }
    }
}

pub fn pipeline(o: &Pipeline) -> String {
    let pw = if o.producer_wait {
        "
	mbarrier.try_wait.parity.shared::cta.b64 %p10, [%r24], %r27;
	@!%p10 bra PW;"
    } else {
        ""
    };
    let cw = if o.consumer_wait {
        "
	mbarrier.try_wait.parity.shared::cta.b64 %p11, [%r44], %r46;
	@!%p11 bra CW;"
    } else {
        ""
    };
    let skip = if o.producer_skips_first_round {
        "\tsetp.lt.u32 %p13, %r20, 4;\n\t@%p13 bra FILL;"
    } else {
        ""
    };
    let pflip = if o.producer_flip {
        "\tnot.b32 %r26, %r25;"
    } else {
        "\tmov.u32 %r26, %r25;"
    };
    let cflip = if o.consumer_flip {
        "\txor.b32 %r46, %r49, 1;"
    } else {
        "\tmov.u32 %r46, %r49;"
    };
    let bytes = o.expect_bytes;
    format!(
        "
	.shared .align 8 .b8 full[32];
	.shared .align 8 .b8 empty[32];
	.shared .align 128 .b8 tiles[16384];
	ld.param.u32 %r9, [k_param_1];
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra INIT_DONE;
	mov.u32 %r2, full;
	mov.u32 %r3, empty;
	mbarrier.init.shared::cta.b64 [%r2], 1;
	mbarrier.init.shared::cta.b64 [%r3], 128;
	add.u32 %r4, %r2, 8;
	mbarrier.init.shared::cta.b64 [%r4], 1;
	add.u32 %r5, %r3, 8;
	mbarrier.init.shared::cta.b64 [%r5], 128;
	add.u32 %r7, %r2, 16;
	mbarrier.init.shared::cta.b64 [%r7], 1;
	add.u32 %r8, %r3, 16;
	mbarrier.init.shared::cta.b64 [%r8], 128;
	add.u32 %r10, %r2, 24;
	mbarrier.init.shared::cta.b64 [%r10], 1;
	add.u32 %r11, %r3, 24;
	mbarrier.init.shared::cta.b64 [%r11], 128;
	fence.mbarrier_init.release.cluster;
INIT_DONE:
	bar.sync 0;
	and.b32 %r6, %r1, -32;
	setp.eq.u32 %p2, %r6, 0;
	@%p2 bra PRODUCER;
	mov.u32 %r40, 0;
CLOOP:
	and.b32 %r41, %r40, 3;
	shl.b32 %r42, %r41, 3;
	mov.u32 %r43, full;
	add.u32 %r44, %r43, %r42;
	shr.u32 %r45, %r40, 2;
	and.b32 %r49, %r45, 1;
{cflip}
CW:{cw}
	mov.u32 %r47, empty;
	add.u32 %r48, %r47, %r42;
	mbarrier.arrive.shared::cta.b64 %rd5, [%r48];
	add.u32 %r40, %r40, 1;
	setp.lt.u32 %p12, %r40, %r9;
	@%p12 bra CLOOP;
	bra.uni DONE;
PRODUCER:
	@%p1 bra DONE;
	mov.u32 %r20, 0;
PLOOP:
	and.b32 %r21, %r20, 3;
{skip}
	shl.b32 %r22, %r21, 3;
	mov.u32 %r23, empty;
	add.u32 %r24, %r23, %r22;
	shr.u32 %r25, %r20, 2;
{pflip}
	and.b32 %r27, %r26, 1;
PW:{pw}
FILL:
	shl.b32 %r30, %r21, 3;
	mov.u32 %r31, full;
	add.u32 %r32, %r31, %r30;
	mbarrier.arrive.expect_tx.shared::cta.b64 %rd6, [%r32], {bytes};
	shl.b32 %r34, %r21, 12;
	mov.u32 %r35, tiles;
	add.u32 %r33, %r35, %r34;
	ld.param.u64 %rd7, [k_param_0];
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r33], [%rd7], 4096, [%r32];
	add.u32 %r20, %r20, 1;
	setp.lt.u32 %p14, %r20, %r9;
	@%p14 bra PLOOP;
DONE:
	ret;"
    )
}
