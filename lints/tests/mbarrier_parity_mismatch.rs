mod common;
use common::*;

const LINT: &str = "mbarrier_parity_mismatch";

#[test]
fn pipelines_that_are_correct() {
    // nvcc's shape: the producer waits from the second round with the flipped parity.
    clean_with(PIPELINE_BLOCK, &pipeline(&Pipeline::default()));
    // CUTLASS' shape: the producer waits in every round, the first wait passes at once.
    clean_with(
        PIPELINE_BLOCK,
        &pipeline(&Pipeline {
            producer_skips_first_round: false,
            ..Pipeline::default()
        }),
    );
}

#[test]
fn producer_waits_on_the_same_round() {
    let body = pipeline(&Pipeline {
        producer_flip: false,
        ..Pipeline::default()
    });
    // The pattern is at the producer's wait on `empty`, with the parity of this round's
    // release instead of the last round's: while the consumers have not released the last
    // round, that parity names the phase before, which has completed, and the wait returns at
    // once (once they have, it waits for a release that needs its own fill: a hang).
    let s = static_findings(LINT, &body);
    assert_eq!(s.len(), 1, "{s:?}");
    assert!(s[0].message.contains("`empty`"), "{}", s[0].message);
    assert_eq!(s[0].related.len(), 1);
    // The run shows what that does: the producer re-arms `full` of a stage whose copy has not
    // landed, whose pending count then goes below zero (§9.7.13.15.2). The finding is there.
    let f = expect_with(LINT, PIPELINE_BLOCK, &body, 1);
    assert_proven(&f[0]);
    assert_eq!(
        f[0].span.line,
        line_of(&body, "mbarrier.arrive.expect_tx"),
        "{}",
        f[0]
    );
    assert!(f[0].message.contains("pending arrival count"), "{}", f[0]);
}

/// The pipelines whose consumers wait on `full` with the parity of the round before: one
/// mistake, at the consumers' wait. The runs deny it there (the pattern's message, witness
/// added) and at the other statements where other schedules of it break a rule (the producer
/// hangs on `empty`, or re-arms a `full` whose copy has not landed).
fn consumers_one_round_behind(o: &Pipeline) {
    let body = pipeline(o);
    let s = static_findings(LINT, &body);
    assert_eq!(s.len(), 1, "{s:?}");
    assert!(s[0].message.contains("`full`"), "{}", s[0].message);
    let f = findings_with(LINT, PIPELINE_BLOCK, &body);
    let wait = f
        .iter()
        .find(|d| d.span.line == s[0].span.line)
        .unwrap_or_else(|| panic!("not denied at the consumers' wait: {f:#?}"));
    assert_eq!(wait.message, s[0].message);
    for d in &f {
        assert_proven(d);
    }
}

#[test]
fn consumer_waits_one_round_behind() {
    consumers_one_round_behind(&Pipeline {
        consumer_flip: true,
        ..Pipeline::default()
    });
}

#[test]
fn both_flipped() {
    consumers_one_round_behind(&Pipeline {
        consumer_flip: true,
        producer_skips_first_round: false,
        ..Pipeline::default()
    });
}

const PROLOGUE: &str = "
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [bar], 128;
	bar.sync 0;";

/// Each thread arrives and then waits for parity 1, the phase before the first: the wait
/// returns at once while phase 0 is incomplete, and once the CTA's 128 arrivals complete it,
/// waits for phase 1, which never comes. `.reqntid`: under a block smaller than the barrier's
/// count phase 0 never completes and every wait returns at once, which the runs cannot tell
/// from a kernel that means it.
#[test]
fn first_wait_with_parity_one() {
    let f = expect_with(
        LINT,
        ".reqntid 128, 1, 1",
        &format!(
            "{PROLOGUE}
	mbarrier.arrive.shared::cta.b64 %rd1, [bar];
W:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 1;
	@!%p2 bra W;
	ret;"
        ),
        1,
    );
    assert!(f[0].message.contains("phase 0"), "{}", f[0].message);
    assert_proven(&f[0]);
}

#[test]
fn straight_line_phases_alternate() {
    clean(&format!(
        "{PROLOGUE}
	mbarrier.arrive.shared::cta.b64 %rd1, [bar];
W:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
	@!%p2 bra W;
	mbarrier.arrive.shared::cta.b64 %rd2, [bar];
W2:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 1;
	@!%p3 bra W2;
	ret;"
    ));
    expect(
        LINT,
        &format!(
            "{PROLOGUE}
	mbarrier.arrive.shared::cta.b64 %rd1, [bar];
W:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
	@!%p2 bra W;
	mbarrier.arrive.shared::cta.b64 %rd2, [bar];
W2:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;
	@!%p3 bra W2;
	ret;"
        ),
        1,
    );
}

fn self_sync_loop(parity: &str) -> String {
    format!(
        "{PROLOGUE}
	mov.u32 %r2, 0;
L:
	mbarrier.arrive.shared::cta.b64 %rd1, [bar];
	{parity}
W:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], %r3;
	@!%p3 bra W;
	add.u32 %r2, %r2, 1;
	setp.lt.u32 %p2, %r2, 8;
	@%p2 bra L;
	ret;"
    )
}

#[test]
fn loop_parity_k_and_1() {
    clean(&self_sync_loop("and.b32 %r3, %r2, 1;"));
    let f = expect(LINT, &self_sync_loop("mov.u32 %r3, 0;"), 1);
    assert!(f[0].message.contains("constant parity"), "{}", f[0].message);
    let f = expect(
        LINT,
        &self_sync_loop("and.b32 %r4, %r2, 1;\n\txor.b32 %r3, %r4, 1;"),
        1,
    );
    assert!(f[0].message.contains("previous phase"), "{}", f[0].message);
    let f = expect(
        LINT,
        &self_sync_loop("shr.u32 %r4, %r2, 1;\n\tand.b32 %r3, %r4, 1;"),
        1,
    );
    assert!(
        f[0].message.contains("every 2 iterations"),
        "{}",
        f[0].message
    );
}

/// Outside a loop, a first wait for parity 1 by a thread that has not arrived returns at once.
/// On an `empty` barrier that is CUTLASS's producer start (every stage starts out empty); on a
/// `full` barrier that bulk copies complete on, the consumer then reads the stage before the
/// copy has filled it: flagged.
#[test]
fn first_wait_for_parity_one_is_a_bug_only_where_copies_complete() {
    let body = |copy: &str| {
        format!(
            "
	.shared .align 8 .b64 bar;
	.shared .align 128 .b8 stage[1024];
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [bar], 1;
	bar.sync 0;
	ld.param.u64 %rd2, [k_param_0];
	{copy}
W:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 1;
	@!%p3 bra W;
	ld.shared.u32 %r2, [stage];
	st.global.u32 [%rd2], %r2;
	ret;"
        )
    };
    // The producer's empty barrier: nothing is copied behind it.
    assert!(findings(LINT, &body("")).is_empty());
    let copied = body(
        "@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [bar], 1024;\n\t@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [stage], [%rd2], 1024, [bar];",
    );
    let s = static_findings(LINT, &copied);
    assert_eq!(s.len(), 1, "{s:?}");
    assert!(s[0].message.contains("parity 1"), "{}", s[0].message);
    // The run: a thread passes the wait at once and reads `stage` with no order against the
    // copy that then lands there; the finding is at the copy, whose write breaks the order.
    let f = expect_with(LINT, ".reqntid 128, 1, 1", &copied, 1);
    assert_proven(&f[0]);
    assert_eq!(
        f[0].span.line,
        line_of(&copied, "cp.async.bulk"),
        "{}",
        f[0]
    );
}

/// CUTLASS's `PipelineState`: a stage index and a phase bit carried around the loop, the phase
/// flipped when the index wraps (`if (++index == STAGES) { index = 0; phase ^= 1; }`); the
/// producer starts with phase 1 on `empty` (every stage starts out empty), the consumers with
/// phase 0 on `full`. Correct; the twin starts the consumers with phase 1 too, so their first
/// wait on `full` returns before the copy has landed.
#[test]
fn pipeline_state_with_a_phase_flipped_at_the_wrap() {
    let kernel = |consumer_phase: u32| {
        format!(
            "
	.shared .align 8 .b64 full[2];
	.shared .align 8 .b64 empty[2];
	.shared .align 128 .b8 buf[2048];
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@!%p1 bra INITDONE;
	mbarrier.init.shared::cta.b64 [full], 1;
	mbarrier.init.shared::cta.b64 [full+8], 1;
	mbarrier.init.shared::cta.b64 [empty], 96;
	mbarrier.init.shared::cta.b64 [empty+8], 96;
INITDONE:
	bar.sync 0;
	ld.param.u64 %rd2, [k_param_0];
	ld.param.u32 %r40, [k_param_1];
	mov.u32 %r10, 0;
	mov.u32 %r12, 0;
	setp.lt.u32 %p9, %r1, 32;
	@!%p9 bra CONSUMER;
	setp.ne.u32 %p8, %r1, 0;
	@%p8 bra END;
	mov.u32 %r11, 1;
PLOOP:
	shl.b32 %r13, %r10, 3;
	mov.u32 %r14, empty;
	add.u32 %r15, %r14, %r13;
PW:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r15], %r11;
	@!%p3 bra PW;
	mov.u32 %r16, full;
	add.u32 %r17, %r16, %r13;
	shl.b32 %r18, %r10, 10;
	mov.u32 %r19, buf;
	add.u32 %r20, %r19, %r18;
	mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [%r17], 1024;
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r20], [%rd2], 1024, [%r17];
	add.u32 %r10, %r10, 1;
	setp.ne.u32 %p4, %r10, 2;
	@%p4 bra PNOWRAP;
	mov.u32 %r10, 0;
	xor.b32 %r11, %r11, 1;
PNOWRAP:
	add.u32 %r12, %r12, 1;
	setp.lt.u32 %p5, %r12, %r40;
	@%p5 bra PLOOP;
	bra.uni END;
CONSUMER:
	mov.u32 %r11, {consumer_phase};
CLOOP:
	shl.b32 %r23, %r10, 3;
	mov.u32 %r24, full;
	add.u32 %r25, %r24, %r23;
CW:
	mbarrier.try_wait.parity.shared::cta.b64 %p6, [%r25], %r11;
	@!%p6 bra CW;
	shl.b32 %r26, %r10, 10;
	mov.u32 %r27, buf;
	add.u32 %r28, %r27, %r26;
	ld.shared.u32 %r29, [%r28];
	mov.u32 %r30, empty;
	add.u32 %r31, %r30, %r23;
	mbarrier.arrive.shared::cta.b64 %rd3, [%r31];
	add.u32 %r10, %r10, 1;
	setp.ne.u32 %p7, %r10, 2;
	@%p7 bra CNOWRAP;
	mov.u32 %r10, 0;
	xor.b32 %r11, %r11, 1;
CNOWRAP:
	add.u32 %r12, %r12, 1;
	setp.lt.u32 %p2, %r12, %r40;
	@%p2 bra CLOOP;
END:
	ret;"
        )
    };
    clean(&kernel(0));
    let f = findings(LINT, &kernel(1));
    assert!(
        !f.is_empty(),
        "the consumers' first wait for parity 1 is not flagged"
    );
}
