mod common;
use common::*;

const LINT: &str = "mbarrier_parity_mismatch";

#[test]
fn pipelines_that_are_correct() {
    // nvcc's shape: the producer waits from the second round with the flipped parity.
    clean(&pipeline(&Pipeline::default()));
    // CUTLASS' shape: the producer waits in every round, the first wait passes at once.
    clean(&pipeline(&Pipeline {
        producer_skips_first_round: false,
        ..Pipeline::default()
    }));
}

#[test]
fn producer_waits_on_the_same_round() {
    let f = expect(
        LINT,
        &pipeline(&Pipeline {
            producer_flip: false,
            ..Pipeline::default()
        }),
        1,
    );
    assert!(f[0].message.contains("`empty`"), "{}", f[0].message);
    assert_eq!(f[0].related.len(), 1);
}

#[test]
fn consumer_waits_one_round_behind() {
    let f = expect(
        LINT,
        &pipeline(&Pipeline {
            consumer_flip: true,
            ..Pipeline::default()
        }),
        1,
    );
    assert!(f[0].message.contains("`full`"), "{}", f[0].message);
}

#[test]
fn both_flipped() {
    expect(
        LINT,
        &pipeline(&Pipeline {
            consumer_flip: true,
            producer_skips_first_round: false,
            ..Pipeline::default()
        }),
        1,
    );
}

const PROLOGUE: &str = "
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [bar], 128;
	bar.sync 0;";

#[test]
fn first_wait_with_parity_one() {
    let f = expect(
        LINT,
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
    let f = expect(
        LINT,
        &body(
            "@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [bar], 1024;\n\t@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [stage], [%rd2], 1024, [bar];",
        ),
        1,
    );
    assert!(f[0].message.contains("parity 1"), "{}", f[0].message);
}
