mod common;
use common::*;

const LINT: &str = "cluster_barrier_double_arrive";

#[test]
fn arrive_twice() {
    let f = expect(
        LINT,
        "
	barrier.cluster.arrive.aligned;
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	ret;",
        1,
    );
    assert_eq!(f[0].related[0].span.line, 15);
    assert_eq!(f[0].span.line, 16);
}

#[test]
fn arrive_in_loop_without_wait() {
    expect(
        LINT,
        "
	mov.u32 %r1, 0;
L:
	barrier.cluster.arrive.release.aligned;
	add.u32 %r1, %r1, 1;
	setp.lt.u32 %p1, %r1, 4;
	@%p1 bra L;
	barrier.cluster.wait.acquire.aligned;
	ret;",
        1,
    );
}

#[test]
fn wait_without_arrive() {
    let f = expect(
        LINT,
        "
	barrier.cluster.wait.aligned;
	ret;",
        1,
    );
    assert!(f[0].message.contains("without"), "{}", f[0].message);
}

#[test]
fn arrive_wait_pairs_are_fine() {
    clean(
        "
	mov.u32 %r1, 0;
L:
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	add.u32 %r1, %r1, 1;
	setp.lt.u32 %p1, %r1, 4;
	@%p1 bra L;
	barrier.cluster.arrive.relaxed.aligned;
	ld.param.u64 %rd1, [k_param_0];
	ld.global.u32 %r2, [%rd1];
	barrier.cluster.wait.aligned;
	ret;",
    );
}
