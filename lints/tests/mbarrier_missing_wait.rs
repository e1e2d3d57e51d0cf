mod common;
use common::*;

const LINT: &str = "mbarrier_missing_wait";

/// Init by thread 0 and publish; `decls` declares the objects.
const PROLOGUE: &str = "
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;";

#[test]
fn arrive_in_loop_without_wait() {
    let body = format!(
        "
	.shared .align 8 .b64 bar;{PROLOGUE}
	@%p1 mbarrier.init.shared::cta.b64 [bar], 128;
	bar.sync 0;
	mov.u32 %r2, 0;
L:
	mbarrier.arrive.shared::cta.b64 %rd1, [bar];
	add.u32 %r2, %r2, 1;
	setp.lt.u32 %p2, %r2, 8;
	@%p2 bra L;
W:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;
	@!%p3 bra W;
	ret;"
    );
    let f = expect(LINT, &body, 1);
    assert!(f[0].message.contains("later iteration"), "{}", f[0].message);
}

#[test]
fn arrive_and_wait_each_iteration_with_parity_is_fine() {
    clean(&format!(
        "
	.shared .align 8 .b64 bar;{PROLOGUE}
	@%p1 mbarrier.init.shared::cta.b64 [bar], 128;
	bar.sync 0;
	mov.u32 %r2, 0;
L:
	mbarrier.arrive.shared::cta.b64 %rd1, [bar];
	and.b32 %r3, %r2, 1;
W:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], %r3;
	@!%p3 bra W;
	add.u32 %r2, %r2, 1;
	setp.lt.u32 %p2, %r2, 8;
	@%p2 bra L;
	ret;"
    ));
}

/// Every thread of the CTA arrives twice in a row on a barrier that counts the CTA's 128: the
/// second arrivals complete phase 1 before anyone waited on phase 0. `.reqntid` says so: under
/// a block of 64 the two arrivals of each thread make one phase, which is correct.
#[test]
fn two_arrives_in_a_row() {
    let f = expect_with(
        LINT,
        ".reqntid 128, 1, 1",
        &format!(
            "
	.shared .align 8 .b64 bar;{PROLOGUE}
	@%p1 mbarrier.init.shared::cta.b64 [bar], 128;
	bar.sync 0;
	mbarrier.arrive.shared::cta.b64 %rd1, [bar];
	mbarrier.arrive.shared::cta.b64 %rd2, [bar];
W:
	mbarrier.test_wait.shared::cta.b64 %p3, [bar], %rd2;
	@!%p3 bra W;
	ret;"
        ),
        1,
    );
    assert_eq!(f[0].related.len(), 1);
    assert_eq!(f[0].related[0].span.line, 20);
    assert_eq!(f[0].span.line, 21);
    assert_proven(&f[0]);
}

#[test]
fn cp_async_arrive_then_arrive_is_one_phase() {
    clean(&format!(
        "
	.shared .align 8 .b64 bar;{PROLOGUE}
	mov.u32 %r5, %ntid.x;
	shl.b32 %r6, %r5, 1;
	@%p1 mbarrier.init.shared.b64 [bar], %r6;
	bar.sync 0;
	cp.async.mbarrier.arrive.noinc.shared.b64 [bar];
	mbarrier.arrive.shared.b64 %rd2, [bar];
W:
	mbarrier.test_wait.shared.b64 %p3, [bar], %rd2;
	@!%p3 bra W;
	ret;"
    ));
}

fn pipeline(producer_wait: bool, consumer_wait: bool) -> String {
    common::pipeline(&Pipeline {
        producer_wait,
        consumer_wait,
        ..Pipeline::default()
    })
}

#[test]
fn warp_specialised_pipeline_is_fine() {
    clean_with(PIPELINE_BLOCK, &pipeline(true, true));
}

#[test]
fn producer_without_empty_wait() {
    // The producer refills full[s] without waiting; and then nobody waits on empty[s] at all,
    // so the consumers' arrives on it break the rule too (the pattern finds both; the runs stop
    // at the producer's, which comes first: the consumers never get to a second round).
    let body = pipeline(false, true);
    assert_eq!(static_findings(LINT, &body).len(), 2);
    let f = findings_with(LINT, PIPELINE_BLOCK, &body);
    let full: Vec<_> = f
        .iter()
        .filter(|d| d.message.contains("`full` stage"))
        .collect();
    assert_eq!(full.len(), 1, "{f:#?}");
    assert_proven(full[0]);
    assert!(f.len() <= 2);
}

#[test]
fn consumer_without_full_wait() {
    let f = findings_with(LINT, PIPELINE_BLOCK, &pipeline(true, false));
    let empty: Vec<_> = f
        .iter()
        .filter(|d| d.message.contains("`empty` stage"))
        .collect();
    assert_eq!(empty.len(), 1, "{f:#?}");
    assert_proven(empty[0]);
    assert!(f.len() <= 2);
}

/// CUTLASS's mainloop producer arrives on the load-order barrier once, behind a flag it clears
/// in every iteration (`if (do_arrive) { arrive(); do_arrive = false; }`): the arrive runs at
/// most once per loop. The twin never clears the flag, so it arrives in every iteration. Every
/// thread of the CTA runs the loop here, so the barrier counts all 128 (`.reqntid`).
#[test]
fn arrive_behind_a_flag_cleared_each_iteration_runs_once_but_a_kept_flag_does_not() {
    let producer = |clear: &str| {
        format!(
            "
	.reg .b16 %rs<8>;
	.shared .align 8 .b64 bar;{PROLOGUE}
	@%p1 mbarrier.init.shared::cta.b64 [bar], 128;
	bar.sync 0;
	mov.u16 %rs1, 1;
	mov.u32 %r2, 0;
L:
	and.b16 %rs2, %rs1, 255;
	setp.eq.s16 %p4, %rs2, 0;
	@%p4 bra SKIP;
	mbarrier.arrive.shared::cta.b64 %rd1, [bar];
SKIP:
	{clear}
	add.u32 %r2, %r2, 1;
	setp.lt.u32 %p2, %r2, 8;
	@%p2 bra L;
W:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;
	@!%p3 bra W;
	ret;"
        )
    };
    let dirs = ".reqntid 128, 1, 1";
    clean_with(dirs, &producer("mov.u16 %rs1, 0;"));
    let f = expect_with(LINT, dirs, &producer("mov.u16 %rs3, 0;"), 1);
    assert!(f[0].message.contains("later iteration"), "{}", f[0].message);
    assert_proven(&f[0]);
}

/// CUTLASS's OrderedSequenceBarrier between the ping-pong math warp groups: each group waits
/// on its own slot (`slots + 8 * group`) and arrives on the other's, which the other group
/// completes only after its own wait. The slot it waits on is indexed by the warp-group number,
/// which the analysis does not relate to the slot it arrives on (here the second, written as a
/// constant): a wait on the array between two arrives orders them. The twin never waits between
/// its arrives.
#[test]
fn ordered_pair_of_slots_indexed_by_warp_group_is_fine_without_the_wait_it_is_not() {
    let group = |wait: &str| {
        format!(
            "
	.shared .align 8 .b64 slots[2];{PROLOGUE}
	@%p1 mbarrier.init.shared::cta.b64 [slots], 128;
	@%p1 mbarrier.init.shared::cta.b64 [slots+8], 128;
	bar.sync 0;
	shr.u32 %r10, %r1, 7;
	and.b32 %r4, %r10, 1;
	shl.b32 %r5, %r4, 3;
	mov.u32 %r6, slots;
	add.u32 %r7, %r6, %r5;
	mov.u32 %r2, 0;
L:
	and.b32 %r3, %r2, 1;
	{wait}
	mbarrier.arrive.shared::cta.b64 %rd1, [slots+8];
	add.u32 %r2, %r2, 1;
	setp.lt.u32 %p2, %r2, 8;
	@%p2 bra L;
	ret;"
        )
    };
    assert!(
        findings(
            LINT,
            &group(
                "W:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [%r7], %r3;\n\t@!%p3 bra W;"
            )
        )
        .is_empty()
    );
    expect(LINT, &group(""), 1);
}

/// A producer prologue that issues more bulk copies into a ring of 2 stages than it has stages,
/// before any consumer releases a stage: the third copy refills stage 0 (and re-arms `full[0]`)
/// while consumers may still be reading it. Looped (`k % 2`) and unrolled, as compilers emit
/// it; the twins issue as many copies as there are stages.
#[test]
fn producer_prologue_that_overfills_the_ring() {
    let looped = |prefetch: u32| RING.replace("PREFETCH", &prefetch.to_string());
    assert!(findings(LINT, &looped(2)).is_empty());
    let f = findings(LINT, &looped(3));
    assert!(
        f.iter()
            .any(|d| d.message.contains("expect_tx") && d.message.contains("`full`")),
        "{f:#?}"
    );
    let unrolled = |copies: u32| {
        let start = RING.find("\tmov.u32 %r2, 0;\nPRO:").expect("prologue");
        let end = RING.find("\tbra.uni END;").expect("prologue end");
        let issue: String = (0..copies)
            .map(|i| {
                let s = i % 2;
                format!(
                    "\tmbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [full+{}], 1024;\n\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf+{}], [%rd2], 1024, [full+{}];\n",
                    8 * s,
                    1024 * s,
                    8 * s
                )
            })
            .collect();
        format!("{}{issue}{}", &RING[..start], &RING[end..])
            .replace("PREFETCH", &copies.to_string())
    };
    assert!(findings(LINT, &unrolled(2)).is_empty());
    let f = findings(LINT, &unrolled(3));
    assert!(
        f.iter().any(|d| d
            .message
            .contains("arrives on the next phase without a successful wait")),
        "{f:#?}"
    );
}

/// A ring of 2 stages: thread 0 fills stages in its prologue (PREFETCH copies), the other
/// threads consume them (wait `full[k % 2]` with parity `(k / 2) & 1`, read, release `empty`).
const RING: &str = "
	.shared .align 8 .b64 full[2];
	.shared .align 8 .b64 empty[2];
	.shared .align 128 .b8 buf[2048];
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@!%p1 bra INITDONE;
	mbarrier.init.shared::cta.b64 [full], 1;
	mbarrier.init.shared::cta.b64 [full+8], 1;
	mbarrier.init.shared::cta.b64 [empty], 128;
	mbarrier.init.shared::cta.b64 [empty+8], 128;
INITDONE:
	bar.sync 0;
	ld.param.u64 %rd2, [k_param_0];
	@!%p1 bra CONSUMER;
	// producer prologue: PREFETCH copies before any wait on empty
	mov.u32 %r2, 0;
PRO:
	and.b32 %r3, %r2, 1;
	shl.b32 %r4, %r3, 3;
	mov.u32 %r5, full;
	add.u32 %r6, %r5, %r4;
	shl.b32 %r7, %r3, 10;
	mov.u32 %r8, buf;
	add.u32 %r9, %r8, %r7;
	mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [%r6], 1024;
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r9], [%rd2], 1024, [%r6];
	add.u32 %r2, %r2, 1;
	setp.lt.u32 %p2, %r2, PREFETCH;
	@%p2 bra PRO;
	bra.uni END;
CONSUMER:
	mov.u32 %r20, 0;
CLOOP:
	and.b32 %r21, %r20, 1;
	shl.b32 %r22, %r21, 3;
	mov.u32 %r23, full;
	add.u32 %r24, %r23, %r22;
	shr.u32 %r25, %r20, 1;
	and.b32 %r26, %r25, 1;
W:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r24], %r26;
	@!%p3 bra W;
	shl.b32 %r27, %r21, 10;
	mov.u32 %r28, buf;
	add.u32 %r29, %r28, %r27;
	ld.shared.u32 %r30, [%r29];
	mov.u32 %r31, empty;
	add.u32 %r32, %r31, %r22;
	mbarrier.arrive.shared::cta.b64 %rd3, [%r32];
	add.u32 %r20, %r20, 1;
	setp.lt.u32 %p4, %r20, PREFETCH;
	@%p4 bra CLOOP;
END:
	ret;";
