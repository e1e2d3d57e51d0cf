mod common;
use common::*;

const LINT: &str = "aligned_barrier_divergence";

#[test]
fn bar_sync_under_tid_branch() {
    let f = expect(
        LINT,
        "
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra SKIP;
	bar.sync 0;
SKIP:
	st.global.u32 [%rd1], %r1;
	ret;",
        1,
    );
    assert!(f[0].message.contains("divergent"), "{}", f[0].message);
    // The chain names %tid.x and the branch is a related place.
    assert!(
        f[0].related.iter().any(|r| r.message.contains("%tid.x")),
        "{:?}",
        f[0].related
    );
    assert!(
        f[0].related.iter().any(|r| r.span.line == 17),
        "{:?}",
        f[0].related
    );
    assert_eq!(f[0].span.line, 18);
}

#[test]
fn bar_sync_after_uniform_branch_on_param_and_ctaid_is_fine() {
    clean(
        "
	ld.param.u32 %r1, [k_param_1];
	mov.u32 %r2, %ctaid.x;
	setp.lt.u32 %p1, %r2, %r1;
	@%p1 bra SKIP;
	bar.sync 0;
SKIP:
	ret;",
    );
}

#[test]
fn counted_barrier_in_warp_role_is_fine_but_uncounted_is_not() {
    // warp = tid / 32; if warp < 2 { bar.sync 1, 64 }
    clean(
        "
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.ge.u32 %p1, %r2, 2;
	@%p1 bra OTHER;
	bar.sync 1, 64;
	bra.uni DONE;
OTHER:
	bar.sync 2, 64;
DONE:
	st.global.u32 [%rd1], %r1;
	ret;",
    );
    // Warps 0 and 1 at a count-less barrier, the others skip it: the pattern matches...
    let skipped = "
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.ge.u32 %p1, %r2, 2;
	@%p1 bra DONE;
	bar.sync 1;
DONE:
	st.global.u32 [%rd1], %r1;
	ret;";
    let f = static_findings(LINT, skipped);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].message.contains("warp-uniform"), "{}", f[0].message);
    // ... but the others exit, and a barrier waits for the non-exited threads only
    // (§9.7.13.1): every run completes, so nothing is reported.
    expect(LINT, skipped, 0);
    // When they wait at another count-less barrier instead, they never exit: a deadlock that
    // a run of the declared block (128 threads) shows.
    let f = lint_text(&module(
        ".reqntid 128, 1, 1",
        "
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.ge.u32 %p1, %r2, 2;
	@%p1 bra OTHER;
	bar.sync 1;
	bra.uni DONE;
OTHER:
	bar.sync 2;
DONE:
	st.global.u32 [%rd1], %r1;
	ret;",
    ));
    assert!(
        f.iter()
            .any(|d| d.level == phasegate_lints::Level::Deny && d.witness.is_some()),
        "{f:?}"
    );
}

#[test]
fn tid_compare_with_multiple_of_32_is_warp_uniform() {
    clean(
        "
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 64;
	@!%p1 bra DONE;
	bar.sync 1, 64;
DONE:
	st.global.u32 [%rd1], %r1;
	ret;",
    );
    expect(
        LINT,
        "
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 48;
	@!%p1 bra DONE;
	bar.sync 1, 64;
DONE:
	st.global.u32 [%rd1], %r1;
	ret;",
        1,
    );
}

#[test]
fn guarded_barrier() {
    expect(
        LINT,
        "
	mov.u32 %r1, %laneid;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bar.sync 0;
	ret;",
        1,
    );
}

#[test]
fn loop_with_divergent_trip_count() {
    let f = expect(
        LINT,
        "
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, 0;
LOOP:
	bar.sync 0;
	add.u32 %r2, %r2, 1;
	setp.lt.u32 %p1, %r2, %r1;
	@%p1 bra LOOP;
	st.global.u32 [%rd1], %r2;
	ret;",
        1,
    );
    assert!(f[0].message.contains("loop"), "{}", f[0].message);
}

#[test]
fn loop_with_uniform_trip_count_is_fine() {
    clean(
        "
	ld.param.u32 %r1, [k_param_1];
	mov.u32 %r2, 0;
LOOP:
	bar.sync 0;
	add.u32 %r2, %r2, 1;
	setp.lt.u32 %p1, %r2, %r1;
	@%p1 bra LOOP;
	st.global.u32 [%rd1], %r2;
	ret;",
    );
}

#[test]
fn value_merged_after_divergent_branch_is_divergent() {
    // x = 0; if (tid == 0) x = 1; if (x) bar.sync
    let f = expect(
        LINT,
        "
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, 0;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra J;
	mov.u32 %r2, 1;
J:
	setp.eq.u32 %p2, %r2, 0;
	@%p2 bra DONE;
	bar.sync 0;
DONE:
	st.global.u32 [%rd1], %r2;
	ret;",
        1,
    );
    assert!(
        f[0].related
            .iter()
            .any(|r| r.message.contains("assigned under the branch")),
        "{:?}",
        f[0].related
    );
}

#[test]
fn bar_red_result_and_uniform_load_are_uniform() {
    clean(
        "
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	bar.red.popc.u32 %r2, 0, %p1;
	setp.eq.u32 %p2, %r2, 0;
	@%p2 bra A;
	bar.sync 0;
A:
	ld.param.u64 %rd1, [k_param_0];
	ld.global.u32 %r3, [%rd1];
	setp.eq.u32 %p3, %r3, 7;
	@%p3 bra B;
	bar.sync 0;
B:
	ret;",
    );
    // A load from a divergent address is divergent.
    expect(
        LINT,
        "
	mov.u32 %r1, %tid.x;
	ld.param.u64 %rd1, [k_param_0];
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	ld.global.u32 %r3, [%rd3];
	setp.eq.u32 %p3, %r3, 7;
	@%p3 bra B;
	bar.sync 0;
B:
	st.global.u32 [%rd3], %r1;
	ret;",
        1,
    );
}

#[test]
fn non_aligned_barrier_sync_may_diverge() {
    clean(
        "
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra SKIP;
	barrier.sync 0;
SKIP:
	barrier.sync 0;
	ret;",
    );
    expect(
        LINT,
        "
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra SKIP;
	barrier.sync.aligned 0;
SKIP:
	st.global.u32 [%rd1], %r1;
	ret;",
        1,
    );
}

#[test]
fn cluster_arrive_under_cta_uniform_branch() {
    let f = expect(
        LINT,
        "
	mov.u32 %r1, %cluster_ctarank;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra SKIP;
	barrier.cluster.arrive.aligned;
SKIP:
	barrier.cluster.wait.aligned;
	ret;",
        1,
    );
    assert!(f[0].message.contains("cluster"), "{}", f[0].message);
    assert!(
        f[0].related
            .iter()
            .any(|r| r.message.contains("%cluster_ctarank")),
        "{:?}",
        f[0].related
    );
    // On a cluster-uniform value it is fine.
    clean(
        "
	ld.param.u32 %r1, [k_param_1];
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra SKIP;
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
SKIP:
	ret;",
    );
}

#[test]
fn elect_sync_predicate_is_divergent() {
    expect(
        LINT,
        "
	elect.sync %r1|%p1, -1;
	@!%p1 bra SKIP;
	bar.sync 1, 32;
SKIP:
	st.global.u32 [%rd1], %r1;
	ret;",
        1,
    );
}

#[test]
fn inline_asm_scopes_keep_registers_apart() {
    // `p` in the first scope is divergent; the `p` of the second scope is a bar.red result.
    clean(
        "
	mov.u32 %r1, %tid.x;
	{
	.reg .pred p;
	setp.eq.u32 p, %r1, 0;
	selp.u32 %r2, 1, 0, p;
	}
	{
	.reg .pred p;
	setp.ne.u32 %p1, %r2, 0;
	bar.red.or.pred p, 0, %p1;
	selp.u32 %r3, 1, 0, p;
	}
	setp.eq.u32 %p2, %r3, 0;
	@%p2 bra DONE;
	bar.sync 0;
DONE:
	ret;",
    );
}

/// CUTLASS's warp-group role: `canonical_warp_group_idx()` is `__shfl_sync(~0, tid / 128, 0)`,
/// a shuffle of a warp-uniform value (and a broadcast from lane 0); the epilogue's counted
/// named barrier in the role's loop is correct. The twin shuffles `%tid.x` down by one lane:
/// each lane gets its neighbour's index, so the loop's trip count differs within the warp.
#[test]
fn counted_barrier_in_a_role_from_a_warp_broadcast_is_fine_but_a_lane_shuffle_is_not() {
    let role = |shuffle: &str| {
        format!(
            "
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 7;
	mov.u32 %r3, 0;
	mov.u32 %r4, 31;
	mov.u32 %r5, -1;
	{shuffle}
	mov.u32 %r7, 0;
LOOP:
	setp.ge.u32 %p3, %r7, %r6;
	@%p3 bra DONE;
	bar.sync 1, 256;
	add.u32 %r7, %r7, 1;
	bra.uni LOOP;
DONE:
	bar.sync 0;
	ret;"
        )
    };
    clean(&role("shfl.sync.idx.b32 %r6|%p1, %r2, %r3, %r4, %r5;"));
    // The same broadcast of a divergent value: lane 0's `%tid.x`, one value per warp.
    clean(&role("shfl.sync.idx.b32 %r6|%p1, %r1, %r3, %r4, %r5;"));
    let f = expect(
        LINT,
        &role("shfl.sync.down.b32 %r6|%p1, %r1, 1, %r4, %r5;"),
        1,
    );
    assert!(
        f[0].related
            .iter()
            .any(|r| r.message.contains("warp shuffle")),
        "{:?}",
        f[0].related
    );
}

fn twin(path: &str) -> Vec<phasegate_lints::Diagnostic> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/").to_string() + path;
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    lint_text(&text)
}

#[test]
fn counter_shared_by_roles_no_path_joins_is_fine() {
    // nvcc's warp-specialised GEMM keeps the producer's and the consumers' tile counters in one
    // register; the producer's write (one thread, so divergent) reaches no consumer read.
    let f = twin("ptx/hand_shared_counter_roles.ptx");
    assert!(f.is_empty(), "{f:#?}");
}

#[test]
fn counter_shared_by_roles_read_after_they_join_is_divergent() {
    // The buggy twin: after the roles join, both loops' writes reach the test before `bar.sync 0`.
    let f: Vec<_> = twin("lint_twins/shared_counter_reaches_barrier.ptx")
        .into_iter()
        .filter(|d| d.lint == LINT)
        .collect();
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].span.line, 65);
    // The chain goes through the producer's write of the counter (line 56).
    assert!(
        f[0].related
            .iter()
            .any(|r| r.span.line == 56 && r.message.contains("%r1")),
        "{:?}",
        f[0].related
    );
}

#[test]
fn overwritten_divergent_value_does_not_reach_the_branch() {
    // `%r1` holds `%tid.x`, then `%ctaid.x`: only the second write reaches the test.
    clean(
        "
	mov.u32 %r1, %tid.x;
	st.global.u32 [%rd1], %r1;
	mov.u32 %r1, %ctaid.x;
	ld.param.u32 %r2, [k_param_1];
	setp.lt.u32 %p1, %r1, %r2;
	@%p1 bra SKIP;
	bar.sync 0;
SKIP:
	st.global.u32 [%rd1], %r2;
	ret;",
    );
}

#[test]
fn guarded_divergent_write_still_reaches_the_branch() {
    // A guarded write replaces the value only where its guard holds: both writes reach.
    expect(
        LINT,
        "
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r3, %tid.x;
	setp.eq.u32 %p2, %r3, 0;
	@%p2 mov.u32 %r1, 7;
	ld.param.u32 %r2, [k_param_1];
	setp.lt.u32 %p1, %r1, %r2;
	@%p1 bra SKIP;
	bar.sync 0;
SKIP:
	st.global.u32 [%rd1], %r2;
	ret;",
        1,
    );
}

#[test]
fn loop_carried_divergent_write_reaches_the_loop_test() {
    // The write at the loop's end reaches the test at its head through the back edge.
    expect(
        LINT,
        "
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r3, %tid.x;
	ld.param.u32 %r2, [k_param_1];
HEAD:
	setp.ge.u32 %p1, %r1, %r2;
	@%p1 bra DONE;
	bar.sync 0;
	add.s32 %r1, %r1, %r3;
	bra.uni HEAD;
DONE:
	st.global.u32 [%rd1], %r2;
	ret;",
        1,
    );
}

/// A path that ends in `trap` aborts the grid (PTX ISA §9.7.19.4), so it keeps no thread from
/// the barrier: a warp role that checks a uniform step with a trap before its loop leaves the
/// barrier after the role branch uniform, as the kernel language's `step_by` lowers it.
#[test]
fn trap_in_a_warp_role_does_not_make_the_barrier_after_it_divergent() {
    clean(
        "
	ld.param.u32 %r5, [k_param_1];
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.ge.u32 %p1, %r2, 2;
	@%p1 bra CONSUMER;
	setp.eq.u32 %p2, %r5, 0;
	@!%p2 bra LOOP;
	trap;
LOOP:
	add.u32 %r3, %r3, %r5;
	setp.lt.u32 %p3, %r3, 100;
	@%p3 bra LOOP;
	bra.uni JOIN;
CONSUMER:
	st.global.u32 [%rd1], %r1;
JOIN:
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	ret;",
    );
    // A guarded trap is the same abort.
    clean(
        "
	ld.param.u32 %r5, [k_param_1];
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 64;
	@%p1 bra WORK;
	bra.uni JOIN;
WORK:
	setp.eq.u32 %p2, %r5, 0;
	@%p2 trap;
	st.global.u32 [%rd1], %r1;
JOIN:
	bar.sync 0;
	ret;",
    );
}

/// An exit on the other side is not an abort: the barrier still follows a divergent branch
/// when one side leaves without trapping and the other reaches it through a trap check.
#[test]
fn trap_does_not_hide_a_divergent_branch_around_the_barrier() {
    let f = expect(
        LINT,
        "
	ld.param.u32 %r5, [k_param_1];
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra SKIP;
	setp.eq.u32 %p2, %r5, 0;
	@%p2 trap;
	bar.sync 0;
SKIP:
	st.global.u32 [%rd1], %r1;
	ret;",
        1,
    );
    assert!(f[0].message.contains("divergent"), "{}", f[0].message);
}
