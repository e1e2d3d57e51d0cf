mod common;
use common::*;

const LINT: &str = "warp_collective_divergence";

/// `if (lane == 0) wgmma.commit_group`: one lane commits for a warp group (PTX ISA §9.7.15.7).
#[test]
fn wgmma_commit_under_a_lane_branch() {
    let f = expect(
        LINT,
        "
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 31;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra SKIP;
	wgmma.commit_group.sync.aligned;
SKIP:
	st.global.u32 [%rd1], %r1;
	ret;",
        1,
    );
    assert!(
        f[0].message
            .starts_with("`wgmma.commit_group` is under a branch at line 18"),
        "{}",
        f[0].message
    );
    assert!(f[0].message.contains("divergent"), "{}", f[0].message);
    assert!(
        f[0].notes
            .iter()
            .any(|n| n.contains("§9.7.15.7") && n.contains("every thread of the warp group")),
        "{:?}",
        f[0].notes
    );
    assert!(
        f[0].related.iter().any(|r| r.message.contains("%tid.x")),
        "{:?}",
        f[0].related
    );
    assert_eq!(f[0].span.line, 19);
}

/// A guard counts like a branch: `@%p mma.sync.aligned` with a per-lane predicate.
#[test]
fn guarded_mma_sync_with_a_lane_predicate() {
    let f = expect(
        LINT,
        "
	.reg .f32 %f<16>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r4, %r5}, {%r6}, {%f5, %f6, %f7, %f8};
	ret;",
        1,
    );
    assert!(
        f[0].message.contains("`mma` is guarded by `%p1`"),
        "{}",
        f[0].message
    );
    assert!(
        f[0].notes.iter().any(|n| n.contains("§9.7.14.5.14")),
        "{:?}",
        f[0].notes
    );
}

/// `elect.sync` picks one lane: a wgmma under it is issued by one thread of the warp group.
/// The four instructions under the branch are one mistake: one finding, at the first.
#[test]
fn wgmma_under_elect_sync() {
    let f = expect(
        LINT,
        "
	.reg .f32 %f<8>;
	elect.sync %r1|%p1, -1;
	@!%p1 bra SKIP;
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p3, 1, 1, 0, 0;
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 0;
SKIP:
	st.global.u32 [%rd1], %r1;
	ret;",
        1,
    );
    assert!(
        f[0].message.starts_with("`wgmma.fence` is under a branch"),
        "{}",
        f[0].message
    );
    assert!(
        f[0].related
            .iter()
            .any(|r| r.message.contains("elect.sync")),
        "{:?}",
        f[0].related
    );
}

/// A loop whose trip count differs between lanes around `ldmatrix`.
#[test]
fn ldmatrix_in_a_lane_dependent_loop() {
    let f = expect(
        LINT,
        "
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 7;
	mov.u32 %r3, 0;
LOOP:
	ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r4, %r5, %r6, %r7}, [%r3];
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p1, %r3, %r2;
	@%p1 bra LOOP;
	st.global.u32 [%rd1], %r4;
	ret;",
        1,
    );
    assert!(f[0].message.contains("trip count"), "{}", f[0].message);
}

/// Warp specialisation: the producer warp group lowers its registers and the consumers issue
/// wgmma under conditions on whole warps (`%tid.x / 128`), and a warp's lanes stay together.
#[test]
fn warp_group_roles_are_fine() {
    clean(
        "
	.reg .f32 %f<8>;
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 7;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra CONSUMER;
	setmaxnreg.dec.sync.aligned.u32 40;
	bra.uni DONE;
CONSUMER:
	setmaxnreg.inc.sync.aligned.u32 232;
	ld.param.u32 %r3, [k_param_1];
	mov.u32 %r4, 0;
LOOP:
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p3, 1, 1, 0, 0;
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 0;
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p2, %r4, %r3;
	@%p2 bra LOOP;
DONE:
	ret;",
    );
}

/// `.sync` without `.aligned` (`bar.warp.sync`, `shfl.sync`) names its participants with a mask
/// and may diverge: not this lint's business.
#[test]
fn sync_without_aligned_is_not_collective() {
    clean(
        "
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra SKIP;
	shfl.sync.bfly.b32 %r2, %r1, 1, 31, 65535;
	bar.warp.sync 65535;
SKIP:
	ret;",
    );
}

/// `if (lane >= 16) return;` before an `mma.sync`: the exited lanes cannot execute it. Exiting
/// whole warps first is fine.
#[test]
fn lanes_that_exit_before_a_collective() {
    let f = expect(
        LINT,
        "
	.reg .f32 %f<16>;
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 31;
	setp.ge.u32 %p1, %r2, 16;
	@%p1 bra DONE;
	mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r4, %r5}, {%r6}, {%f5, %f6, %f7, %f8};
	st.global.f32 [%rd1], %f1;
DONE:
	ret;",
        1,
    );
    assert!(
        f[0].message
            .starts_with("lanes exit at line 19 under a condition that is divergent before `mma`"),
        "{}",
        f[0].message
    );
    assert_eq!(f[0].span.line, 20);
    clean(
        "
	.reg .f32 %f<16>;
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.ge.u32 %p1, %r2, 2;
	@%p1 bra DONE;
	mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r4, %r5}, {%r6}, {%f5, %f6, %f7, %f8};
	st.global.f32 [%rd1], %f1;
DONE:
	ret;",
    );
}
