mod common;
use common::*;

const LINT: &str = "missing_proxy_fence";

fn store_then_copy(fence: &str) -> String {
    format!(
        "
	.shared .align 128 .b8 tile[4096];
	ld.param.u64 %rd1, [k_param_0];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, tile;
	add.u32 %r4, %r3, %r2;
	st.shared.u32 [%r4], %r1;
	{fence}
	bar.sync 0;
	setp.eq.u32 %p1, %r1, 0;
	@!%p1 bra DONE;
	cp.async.bulk.global.shared::cta.bulk_group [%rd1], [tile], 4096;
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group.read 0;
DONE:
	bar.sync 0;
	ret;"
    )
}

#[test]
fn store_then_bulk_store_without_fence() {
    let f = expect(LINT, &store_then_copy(""), 1);
    assert_eq!(f[0].related.len(), 1);
    assert!(f[0].message.contains("`tile`"), "{}", f[0].message);
}

#[test]
fn fence_before_barrier_is_fine() {
    clean(&store_then_copy("fence.proxy.async.shared::cta;"));
}

#[test]
fn fence_by_the_copying_thread_is_fine() {
    clean(
        "
	.shared .align 128 .b8 tile[4096];
	ld.param.u64 %rd1, [k_param_0];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, tile;
	add.u32 %r4, %r3, %r2;
	st.shared.u32 [%r4], %r1;
	bar.sync 0;
	setp.eq.u32 %p1, %r1, 0;
	@!%p1 bra DONE;
	fence.proxy.async.shared::cta;
	cp.async.bulk.global.shared::cta.bulk_group [%rd1], [tile], 4096;
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group.read 0;
DONE:
	bar.sync 0;
	ret;",
    );
}

#[test]
fn stores_to_another_buffer_do_not_count() {
    clean(
        "
	.shared .align 128 .b8 tile[4096];
	.shared .align 4 .b8 other[128];
	ld.param.u64 %rd1, [k_param_0];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, other;
	add.u32 %r4, %r3, %r2;
	st.shared.u32 [%r4], %r1;
	bar.sync 0;
	cp.async.bulk.global.shared::cta.bulk_group [%rd1], [tile], 4096;
	ret;",
    );
}

#[test]
fn loop_store_after_copy_reaches_next_copy() {
    expect(
        LINT,
        "
	.shared .align 128 .b8 tile[4096];
	ld.param.u64 %rd1, [k_param_0];
	mov.u32 %r1, %tid.x;
	mov.u32 %r5, 0;
L:
	fence.proxy.async.shared::cta;
	bar.sync 0;
	cp.async.bulk.global.shared::cta.bulk_group [%rd1], [tile], 4096;
	cp.async.bulk.wait_group.read 0;
	bar.sync 0;
	st.shared.u32 [tile], %r1;
	add.u32 %r5, %r5, 1;
	setp.lt.u32 %p1, %r5, 4;
	@%p1 bra L;
	ret;",
        0,
    );
    expect(
        LINT,
        "
	.shared .align 128 .b8 tile[4096];
	ld.param.u64 %rd1, [k_param_0];
	mov.u32 %r1, %tid.x;
	mov.u32 %r5, 0;
L:
	bar.sync 0;
	cp.async.bulk.global.shared::cta.bulk_group [%rd1], [tile], 4096;
	cp.async.bulk.wait_group.read 0;
	bar.sync 0;
	st.shared.u32 [tile], %r1;
	add.u32 %r5, %r5, 1;
	setp.lt.u32 %p1, %r5, 4;
	@%p1 bra L;
	ret;",
        1,
    );
}
