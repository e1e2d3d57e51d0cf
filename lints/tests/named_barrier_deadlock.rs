mod common;
use common::*;
use phasegate_lints::Diagnostic;

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
    // The producer waits on the consumer's barrier in its first round too. One warp each
    // (`.reqntid 64`): with more consumer warps than the count, the consumers alone would
    // complete the producer's barrier, a mistake of another kind.
    let f = expect_with(
        LINT,
        ".reqntid 64, 1, 1",
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
    assert_proven(&f[0]);
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

/// The block of the "more threads than the count" kernels: four warps, the guards let three
/// (or, for `guarded_barrier_instruction`, two) of them reach the barrier. Without it the runs
/// pick a block under which they complete (64 threads: exactly the count).
const FOUR_WARPS: &str = ".reqntid 128, 1, 1";

/// More warps reach a counted barrier than its count: the pattern names the threads and says
/// which wait. In a run, the first warps complete the phase and the later ones start the next
/// at the same instruction, their first execution of it: the warps of one instance split
/// between two phases (§9.7.13.1), which the runs report as `barrier_count` at the barrier.
/// The pattern's finding at the same statement is then not reported (a finding per statement).
fn more_threads_than_the_count_is_denied(body: &str) -> Diagnostic {
    let s = static_findings_with(LINT, FOUR_WARPS, body);
    assert_eq!(s.len(), 1, "{s:?}");
    let f = lint_text(&module(FOUR_WARPS, body));
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(
        (f[0].lint, f[0].span.line),
        ("barrier_count", s[0].span.line)
    );
    assert!(
        f[0].message
            .contains("meet in different phases of the barrier"),
        "{}",
        f[0]
    );
    assert_proven(&f[0]);
    s[0].clone()
}

#[test]
fn more_threads_than_the_count() {
    // if (threadIdx.x < 96) bar.sync 1, 64: the third warp waits on a second instance forever.
    let s = more_threads_than_the_count_is_denied(&guarded_bar(
        "\tsetp.lt.u32 %p1, %r1, 96;",
        "bar.sync 1, 64;",
    ));
    let m = &s.message;
    assert!(
        m.contains("barrier 1 with thread count 64 is reached by 96 threads (`%tid.x` in [0, 96))"),
        "{m}"
    );
    assert!(m.contains("the other 32 wait"), "{m}");
    assert!(
        s.notes.iter().any(|n| n.contains("§9.7.13.1")),
        "{:?}",
        s.notes
    );
}

#[test]
fn more_threads_than_the_count_swapped_operands_and_arrive() {
    // 96 > tid.x, with bar.arrive: nobody waits, but the third warp's arrival opens a phase of
    // its own.
    more_threads_than_the_count_is_denied(&guarded_bar(
        "\tsetp.gt.u32 %p1, 96, %r1;",
        "bar.arrive 1, 64;",
    ));
}

#[test]
fn more_warps_than_the_count() {
    // (tid >> 5) in [1, 4): 96 threads on a barrier of 64.
    let s = more_threads_than_the_count_is_denied(&guarded_bar(
        "\tshr.u32 %r2, %r1, 5;\n\tadd.u32 %r3, %r2, -1;\n\tsetp.lt.u32 %p1, %r3, 3;",
        "bar.sync 2, 64;",
    ));
    assert!(s.message.contains("[32, 128)"), "{}", s.message);
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
    // @%p1 bar.sync 1, 32 with tid.x < 64: two warps, each a whole instance of 32; the second
    // warp's first execution lands in the next phase.
    more_threads_than_the_count_is_denied(
        "
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 64;
	@%p1 bar.sync 1, 32;
	st.global.u32 [%rd1], %r1;
	ret;",
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
fn without_an_exact_shape_overlapping_subsets_are_a_pattern_the_runs_drop() {
    // Without `.reqntid` the sizes of the roles are unknown and the pattern waits for every
    // role that uses the id: the documented imprecision (book/src/reliability/README.md).
    let max = ".maxntid 96, 1, 1";
    assert_eq!(
        static_findings_with(LINT, max, OVERLAPPING_SUBSETS).len(),
        1
    );
    // The runs launch the most threads `.maxntid` allows, 96, under which it completes: the
    // pattern's finding is dropped.
    assert!(findings_with(LINT, max, OVERLAPPING_SUBSETS).is_empty());
    // A launch of 64 threads, which `.maxntid 96` allows too, does hang (warp 1 alone at the
    // second `bar.sync 1, 64`, warp 0 at `bar.sync 0`); the runs do not try it.
    let f = findings_with(LINT, ".reqntid 64, 1, 1", OVERLAPPING_SUBSETS);
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_proven(&f[0]);
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
    assert_proven(&f[0]);
    // Two warps: exactly the count.
    assert!(findings_with(LINT, ".reqntid 96, 1, 1", &subset_sync(2)).is_empty());
    // Without an exact shape the sizes of the roles are unknown: the pattern does not report
    // it. But one warp never completes a barrier of 64 in any block (nor may a block of 32 use
    // the count): a run under a chosen block hangs, and that is the finding.
    assert!(static_findings(LINT, &subset_sync(1)).is_empty());
    let f = findings_with(LINT, "", &subset_sync(1));
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_proven(&f[0]);
}
