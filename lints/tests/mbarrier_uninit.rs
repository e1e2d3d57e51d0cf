mod common;
use common::*;

const LINT: &str = "mbarrier_uninit";

#[test]
fn init_then_barrier_then_use_is_fine() {
    clean(
        "
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [bar], 128;
	bar.sync 0;
	mbarrier.arrive.shared::cta.b64 %rd1, [bar];
W:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
	@!%p2 bra W;
	bar.sync 0;
	@%p1 mbarrier.inval.shared::cta.b64 [bar];
	ret;",
    );
}

#[test]
fn use_without_barrier_after_init() {
    let f = expect(
        LINT,
        "
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [bar], 128;
	fence.mbarrier_init.release.cluster;
	mbarrier.arrive.shared::cta.b64 %rd1, [bar];
W:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
	@!%p2 bra W;
	ret;",
        1,
    );
    assert!(f[0].message.contains("no barrier"), "{}", f[0].message);
    assert_eq!(f[0].related.len(), 1);
}

#[test]
fn same_thread_use_after_init_is_fine() {
    clean(
        "
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	mbarrier.init.shared::cta.b64 [bar], 1;
	mbarrier.arrive.shared::cta.b64 %rd1, [bar];
W:
	mbarrier.test_wait.shared::cta.b64 %p2, [bar], %rd1;
	@!%p2 bra W;
	mbarrier.inval.shared::cta.b64 [bar];
DONE:
	ret;",
    );
}

#[test]
fn use_before_init() {
    let f = expect(
        LINT,
        "
	.shared .align 8 .b64 bar;
	mbarrier.arrive.shared::cta.b64 %rd1, [bar];
	mbarrier.init.shared::cta.b64 [bar], 1;
	ret;",
        1,
    );
    assert!(f[0].message.contains("before any"), "{}", f[0].message);
}

/// Thread 0 initialises, invalidates and then arrives. (Every thread doing all three would
/// stop the runs at an earlier mistake of its own, another warp's `mbarrier.init` of the valid
/// object or a second thread's `mbarrier.inval` of the invalidated one, before any thread
/// reached the arrive.)
#[test]
fn use_after_inval() {
    let f = expect(
        LINT,
        "
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [bar], 1;
	bar.sync 0;
	@%p1 mbarrier.inval.shared::cta.b64 [bar];
	@%p1 mbarrier.arrive.shared::cta.b64 %rd1, [bar];
	ret;",
        1,
    );
    assert!(
        f[0].message.contains("after `mbarrier.inval`"),
        "{}",
        f[0].message
    );
    assert_proven(&f[0]);
}

/// Thread 0 initialises `bar` twice; the twin invalidates it in between. One thread: were it
/// every warp, another warp's first `mbarrier.init` would already be a second one.
#[test]
fn double_init() {
    let body = |between: &str| {
        format!(
            "
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [bar], 1;
	{between}
	@%p1 mbarrier.init.shared::cta.b64 [bar], 2;
	@%p1 mbarrier.inval.shared::cta.b64 [bar];
	ret;"
        )
    };
    let twice = body("");
    let f = expect(LINT, &twice, 1);
    assert_eq!(f[0].span.line, line_of(&twice, "[bar], 2;"));
    assert_proven(&f[0]);
    // init, inval, init is fine.
    clean(&body("@%p1 mbarrier.inval.shared::cta.b64 [bar];"));
}

#[test]
fn ring_of_stages_initialised_unrolled() {
    // Four stages initialised one by one, then used through a stage index by every thread of
    // the CTA: each stage counts the CTA's 128 threads (`.reqntid`).
    let dirs = ".reqntid 128, 1, 1";
    clean_with(
        dirs,
        "
	.shared .align 8 .b8 full[32];
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra J;
	mov.u32 %r2, full;
	mbarrier.init.shared::cta.b64 [%r2], 128;
	add.u32 %r3, %r2, 8;
	mbarrier.init.shared::cta.b64 [%r3], 128;
	add.u32 %r4, %r2, 16;
	mbarrier.init.shared::cta.b64 [%r4], 128;
	add.u32 %r5, %r2, 24;
	mbarrier.init.shared::cta.b64 [%r5], 128;
J:
	bar.sync 0;
	mov.u32 %r10, 0;
L:
	and.b32 %r11, %r10, 3;
	shl.b32 %r12, %r11, 3;
	mov.u32 %r13, full;
	add.u32 %r14, %r13, %r12;
	mbarrier.arrive.shared::cta.b64 %rd1, [%r14];
	shr.u32 %r15, %r10, 2;
	and.b32 %r16, %r15, 1;
W:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r14], %r16;
	@!%p2 bra W;
	add.u32 %r10, %r10, 1;
	setp.lt.u32 %p3, %r10, 64;
	@%p3 bra L;
	ret;",
    );
    // Only three of the four stages initialised (by thread 0): the fourth iteration arrives
    // on an object that was never initialised.
    let f = expect_with(
        LINT,
        dirs,
        "
	.shared .align 8 .b8 full[32];
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra J;
	mov.u32 %r2, full;
	mbarrier.init.shared::cta.b64 [%r2], 128;
	add.u32 %r3, %r2, 8;
	mbarrier.init.shared::cta.b64 [%r3], 128;
	add.u32 %r4, %r2, 16;
	mbarrier.init.shared::cta.b64 [%r4], 128;
J:
	bar.sync 0;
	mov.u32 %r10, 0;
L:
	and.b32 %r11, %r10, 3;
	shl.b32 %r12, %r11, 3;
	mov.u32 %r13, full;
	add.u32 %r14, %r13, %r12;
	mbarrier.arrive.shared::cta.b64 %rd1, [%r14];
	add.u32 %r10, %r10, 1;
	setp.lt.u32 %p3, %r10, 64;
	@%p3 bra L;
	ret;",
        1,
    );
    assert_proven(&f[0]);
}
