mod common;
use common::*;

const LINT: &str = "named_barrier_deadlock";

fn roles(warp0: &str, warp1: &str) -> String {
    format!(
        "
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra W1;
{warp0}
	bra.uni DONE;
W1:
{warp1}
DONE:
	st.global.u32 [%rd1], %r1;
	ret;"
    )
}

#[test]
fn sync_before_arrive_both_ways() {
    let f = expect(
        LINT,
        &roles(
            "\tbar.sync 0, 64;\n\tbar.arrive 1, 64;",
            "\tbar.sync 1, 64;\n\tbar.arrive 0, 64;",
        ),
        1,
    );
    assert!(f[0].message.contains("deadlock"), "{}", f[0].message);
    assert_eq!(f[0].related.len(), 1);
}

#[test]
fn producer_consumer_order_is_fine() {
    clean(&roles(
        "\tbar.arrive 0, 64;\n\tbar.sync 1, 64;",
        "\tbar.sync 0, 64;\n\tbar.arrive 1, 64;",
    ));
}

#[test]
fn loop_of_producer_consumer_rounds_is_fine() {
    // Both roles loop n times (a parameter): the consumer frees the slot after the first round.
    clean(
        "
	ld.param.u32 %r9, [k_param_1];
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra CONSUMER;
	mov.u32 %r3, 0;
P:
	setp.eq.u32 %p2, %r3, 0;
	@%p2 bra FIRST;
	bar.sync 2, 64;
FIRST:
	bar.arrive 1, 64;
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p3, %r3, %r9;
	@%p3 bra P;
	bra.uni DONE;
CONSUMER:
	mov.u32 %r4, 0;
C:
	bar.sync 1, 64;
	bar.arrive 2, 64;
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p4, %r4, %r9;
	@%p4 bra C;
DONE:
	st.global.u32 [%rd1], %r1;
	ret;",
    );
}

#[test]
fn loop_where_producer_waits_first() {
    // The producer waits on the consumer's barrier in its first round too.
    let f = expect(
        LINT,
        "
	ld.param.u32 %r9, [k_param_1];
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra CONSUMER;
	mov.u32 %r3, 0;
P:
	bar.sync 2, 64;
	bar.arrive 1, 64;
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p3, %r3, %r9;
	@%p3 bra P;
	bra.uni DONE;
CONSUMER:
	mov.u32 %r4, 0;
C:
	bar.sync 1, 64;
	bar.arrive 2, 64;
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p4, %r4, %r9;
	@%p4 bra C;
DONE:
	st.global.u32 [%rd1], %r1;
	ret;",
        1,
    );
    assert!(f[0].message.contains("barrier"), "{}", f[0].message);
}

fn guarded_bar(cond: &str, bar: &str) -> String {
    format!(
        "
	mov.u32 %r1, %tid.x;
{cond}
	@!%p1 bra L;
	{bar}
L:
	st.global.u32 [%rd1], %r1;
	ret;"
    )
}

#[test]
fn more_threads_than_the_count() {
    // if (threadIdx.x < 96) bar.sync 1, 64: the third warp waits on a second instance forever.
    let f = expect(
        LINT,
        &guarded_bar("\tsetp.lt.u32 %p1, %r1, 96;", "bar.sync 1, 64;"),
        1,
    );
    let m = &f[0].message;
    assert!(
        m.contains("barrier 1 with thread count 64 is reached by 96 threads (`%tid.x` in [0, 96))"),
        "{m}"
    );
    assert!(m.contains("the other 32 wait"), "{m}");
    assert!(
        f[0].notes.iter().any(|n| n.contains("§9.7.13.1")),
        "{:?}",
        f[0].notes
    );
}

#[test]
fn more_threads_than_the_count_swapped_operands_and_arrive() {
    // 96 > tid.x, with bar.arrive.
    expect(
        LINT,
        &guarded_bar("\tsetp.gt.u32 %p1, 96, %r1;", "bar.arrive 1, 64;"),
        1,
    );
}

#[test]
fn more_warps_than_the_count() {
    // (tid >> 5) in [1, 4): 96 threads on a barrier of 64.
    let f = expect(
        LINT,
        &guarded_bar(
            "\tshr.u32 %r2, %r1, 5;\n\tadd.u32 %r3, %r2, -1;\n\tsetp.lt.u32 %p1, %r3, 3;",
            "bar.sync 2, 64;",
        ),
        1,
    );
    assert!(f[0].message.contains("[32, 128)"), "{}", f[0].message);
}

#[test]
fn exactly_the_count_is_fine() {
    clean(&guarded_bar(
        "\tsetp.lt.u32 %p1, %r1, 64;",
        "bar.sync 1, 64;",
    ));
}

#[test]
fn warp_index_exactly_the_count_is_fine() {
    clean(&guarded_bar(
        "\tshr.u32 %r2, %r1, 5;\n\tsetp.lt.u32 %p1, %r2, 2;",
        "bar.sync 1, 64;",
    ));
    clean(&guarded_bar(
        "\tdiv.u32 %r2, %r1, 32;\n\tsetp.lt.u32 %p1, %r2, 2;",
        "bar.sync 1, 64;",
    ));
}

#[test]
fn unknown_number_of_threads_is_not_reported() {
    // Unbounded: tid >= 32.
    assert!(
        findings(
            LINT,
            &guarded_bar("\tsetp.ge.u32 %p1, %r1, 32;", "bar.sync 1, 64;")
        )
        .is_empty()
    );
    // A condition on a parameter.
    assert!(
        findings(
            LINT,
            &guarded_bar(
                "\tld.param.u32 %r9, [k_param_1];\n\tsetp.lt.u32 %p1, %r1, %r9;",
                "bar.sync 1, 64;"
            )
        )
        .is_empty()
    );
}

#[test]
fn launch_bounds_limit_the_threads() {
    // .reqntid 64: only 64 threads exist, `tid < 96` lets all of them through.
    assert!(
        findings_with(
            LINT,
            ".reqntid 64, 1, 1",
            &guarded_bar("\tsetp.lt.u32 %p1, %r1, 96;", "bar.sync 1, 64;")
        )
        .is_empty()
    );
}

#[test]
fn barrier_in_a_loop_with_unknown_trips_is_not_reported() {
    assert!(
        findings(
            LINT,
            "
	ld.param.u32 %r9, [k_param_1];
	mov.u32 %r1, %tid.x;
	mov.u32 %r3, 0;
	setp.lt.u32 %p1, %r1, 96;
TOP:
	@!%p1 bra SKIP;
	bar.sync 1, 64;
SKIP:
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p2, %r3, %r9;
	@%p2 bra TOP;
	st.global.u32 [%rd1], %r1;
	ret;"
        )
        .is_empty()
    );
}

#[test]
fn guarded_barrier_instruction() {
    // @%p1 bar.sync 1, 32 with tid.x < 64.
    expect(
        LINT,
        "
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 64;
	@%p1 bar.sync 1, 32;
	st.global.u32 [%rd1], %r1;
	ret;",
        1,
    );
}

#[test]
fn impossible_combinations_of_thread_subsets_are_not_roles() {
    // Threads 0..64 sync on barrier 1 in two phases, each behind its own test of `%tid.x`. No
    // thread is inside the first subset and outside the second: a role made of those two
    // decisions would wait at barrier 0 while the others wait for it at barrier 1 (generated
    // kernels 5 and 8 of `tests/analyzer_and_simulator_agree.rs` were flagged so).
    clean(
        "
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 64;
	@!%p1 bra L1;
	bar.sync 1, 64;
L1:
	bar.sync 0;
	setp.lt.u32 %p2, %r1, 64;
	@!%p2 bra L2;
	bar.sync 1, 64;
L2:
	bar.sync 0;
	st.global.u32 [%rd1], %r1;
	ret;",
    );
}

#[test]
fn roles_of_nested_decisions_still_deadlock() {
    // Warps 0 and 1 (inside `warp < 2`) each sync before arriving where the other syncs.
    let f = findings_with(
        LINT,
        ".reqntid 96, 1, 1",
        "
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.lt.u32 %p1, %r2, 2;
	@!%p1 bra DONE;
	setp.eq.u32 %p2, %r2, 0;
	@!%p2 bra W1;
	bar.sync 1, 64;
	bar.arrive 2, 64;
	bra.uni DONE;
W1:
	bar.sync 2, 64;
	bar.arrive 1, 64;
DONE:
	st.global.u32 [%rd1], %r1;
	ret;",
    );
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].message.contains("deadlock"), "{}", f[0].message);
}

/// Warps 0–1 and then warps 1–2 of a 3-warp block sync on barrier 1 with count 64.
const OVERLAPPING_SUBSETS: &str = "
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 64;
	@!%p1 bra L1;
	bar.sync 1, 64;
L1:
	bar.sync 0;
	setp.ge.u32 %p2, %r1, 32;
	@!%p2 bra L2;
	bar.sync 1, 64;
L2:
	bar.sync 0;
	st.global.u32 [%rd1], %r1;
	ret;";

#[test]
fn with_an_exact_shape_overlapping_subsets_may_share_a_barrier() {
    // Each role's size is known (32 threads), so barrier 1 completes when 64 have arrived.
    assert!(findings_with(LINT, ".reqntid 96, 1, 1", OVERLAPPING_SUBSETS).is_empty());
}

#[test]
fn without_an_exact_shape_overlapping_subsets_are_reported() {
    // Without `.reqntid` the sizes of the roles are unknown and the run waits for every role
    // that uses the id: the documented imprecision (docs/reliability.md).
    assert_eq!(
        findings_with(LINT, ".maxntid 96, 1, 1", OVERLAPPING_SUBSETS).len(),
        1
    );
}

#[test]
fn with_an_exact_shape_crossed_roles_still_deadlock() {
    let f = findings_with(
        LINT,
        ".reqntid 64, 1, 1",
        &roles(
            "\tbar.sync 0, 64;\n\tbar.arrive 1, 64;",
            "\tbar.sync 1, 64;\n\tbar.arrive 0, 64;",
        ),
    );
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].message.contains("deadlock"), "{}", f[0].message);
}

/// Warps `0..warps` of a 3-warp block sync on barrier 1 with count 64; the others skip it.
fn subset_sync(warps: u32) -> String {
    format!(
        "
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.lt.u32 %p1, %r2, {warps};
	@!%p1 bra DONE;
	bar.sync 1, 64;
DONE:
	st.global.u32 [%rd1], %r1;
	ret;"
    )
}

#[test]
fn with_an_exact_shape_a_barrier_short_of_its_count_hangs() {
    // One warp (32 threads) reaches a barrier that waits for 64.
    let f = findings_with(LINT, ".reqntid 96, 1, 1", &subset_sync(1));
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].message
            .contains("thread count 64, but only 32 threads ever arrive"),
        "{}",
        f[0].message
    );
    // Two warps: exactly the count.
    assert!(findings_with(LINT, ".reqntid 96, 1, 1", &subset_sync(2)).is_empty());
    // Without an exact shape the sizes of the roles are unknown: not reported.
    assert!(findings_with(LINT, "", &subset_sync(1)).is_empty());
}
