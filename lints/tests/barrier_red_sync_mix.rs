mod common;
use common::*;

const LINT: &str = "barrier_red_sync_mix";

#[test]
fn red_and_arrive_in_different_roles() {
    let f = expect(
        LINT,
        "
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
	ret;",
        1,
    );
    assert_eq!(f[0].related.len(), 1);
    assert!(f[0].message.contains("barrier 1"), "{}", f[0].message);
}

#[test]
fn arrive_then_red_by_the_same_threads() {
    expect(
        LINT,
        "
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p2, %r1, 3;
	bar.arrive 1, 128;
	bar.red.popc.u32 %r3, 1, %p2;
	st.global.u32 [%rd1], %r3;
	ret;",
        1,
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
