mod common;
use common::*;

const LINT: &str = "barrier_red_sync_mix";

/// Warp 0 arrives on barrier 1, warp 1 reduces on it (`.reqntid 64`: one warp each).
#[test]
fn red_and_arrive_in_different_roles() {
    let body = "
	ld.param.u64 %rd1, [k_param_0];
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.eq.u32 %p1, %r2, 0;
	setp.eq.u32 %p2, %r1, 3;
	@%p1 bra A;
	bar.red.popc.u32 %r3, 1, 64, %p2;
	bra.uni DONE;
A:
	bar.arrive 1, 64;
DONE:
	st.global.u32 [%rd1], %r3;
	ret;";
    let dirs = ".reqntid 64, 1, 1";
    let s = static_findings_with(LINT, dirs, body);
    assert_eq!(s.len(), 1, "{s:?}");
    assert_eq!(s[0].related.len(), 1);
    assert!(s[0].message.contains("barrier 1"), "{}", s[0].message);
    // Whichever role comes second joins a phase the other opened (§9.7.13.1: "should not be
    // intermixed ... using the same active barrier"): the runs break the rule at both, each
    // denied with its witness; the reduction keeps the pattern's explanation.
    let f = findings_with(LINT, dirs, body);
    let mut at: Vec<u32> = f.iter().map(|d| d.span.line).collect();
    at.sort_unstable();
    assert_eq!(
        at,
        [line_of(body, "bar.red"), line_of(body, "bar.arrive")],
        "{f:#?}"
    );
    for d in &f {
        assert_proven(d);
    }
    let red = f.iter().find(|d| d.span.line == s[0].span.line).unwrap();
    assert_eq!(red.message, s[0].message);
    assert_eq!(red.related.len(), 1);
}

/// Every thread arrives on barrier 1 and goes on to reduce on it: a warp that runs ahead joins
/// the arrive's phase with the reduction. The reduction counts the same 128 threads as the
/// arrive, so the phase mixes `.red` with `.arrive` and nothing else (the simulator checks the
/// thread counts first: a count-less reduction here would be reported as `barrier_count`).
#[test]
fn arrive_then_red_by_the_same_threads() {
    let f = expect_with(
        LINT,
        ".reqntid 128, 1, 1",
        "
	ld.param.u64 %rd1, [k_param_0];
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p2, %r1, 3;
	bar.arrive 1, 128;
	bar.red.popc.u32 %r3, 1, 128, %p2;
	st.global.u32 [%rd1], %r3;
	ret;",
        1,
    );
    assert_proven(&f[0]);
    assert!(
        f[0].message.contains("the arrive does not wait"),
        "{}",
        f[0].message
    );
}

#[test]
fn sequential_syncthreads_and_count_are_fine() {
    // What nvcc makes of __syncthreads(); __syncthreads_count(p); __syncthreads();
    clean(
        "
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p2, %r1, 3;
	bar.sync 0;
	bar.red.popc.u32 %r3, 0, %p2;
	bar.sync 0;
	bar.red.and.pred %p3, 0, %p2;
	selp.u32 %r4, 1, 0, %p3;
	add.u32 %r5, %r4, %r3;
	st.global.u32 [%rd1], %r5;
	ret;",
    );
}

#[test]
fn different_ids_are_fine() {
    clean(
        "
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.eq.u32 %p1, %r2, 0;
	setp.eq.u32 %p2, %r1, 3;
	@%p1 bra A;
	bar.red.popc.u32 %r3, 2, 64, %p2;
	bra.uni DONE;
A:
	bar.arrive 1, 64;
DONE:
	st.global.u32 [%rd1], %r3;
	ret;",
    );
}
