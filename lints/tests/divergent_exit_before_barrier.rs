mod common;
use common::*;

const LINT: &str = "divergent_exit_before_barrier";

#[test]
fn early_return_before_syncthreads_warns() {
    let f = expect(
        LINT,
        "
	mov.u32 %r1, %tid.x;
	ld.param.u32 %r2, [k_param_1];
	setp.ge.u32 %p1, %r1, %r2;
	@%p1 bra DONE;
	bar.sync 0;
	st.global.u32 [%rd1], %r1;
DONE:
	ret;",
        1,
    );
    assert_eq!(f[0].level, phasegate_lints::Level::Warn);
    // It is not an aligned_barrier_divergence error.
    expect(
        "aligned_barrier_divergence",
        "
	mov.u32 %r1, %tid.x;
	ld.param.u32 %r2, [k_param_1];
	setp.ge.u32 %p1, %r1, %r2;
	@%p1 bra DONE;
	bar.sync 0;
	st.global.u32 [%rd1], %r1;
DONE:
	ret;",
        0,
    );
}

#[test]
fn guarded_exit_warns_once_for_several_barriers() {
    expect(
        LINT,
        "
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 5;
	@%p1 exit;
	bar.sync 0;
	bar.sync 0;
	ret;",
        1,
    );
}

#[test]
fn uniform_early_return_is_fine() {
    clean(
        "
	mov.u32 %r1, %ctaid.x;
	ld.param.u32 %r2, [k_param_1];
	setp.ge.u32 %p1, %r1, %r2;
	@%p1 bra DONE;
	bar.sync 0;
	st.global.u32 [%rd1], %r1;
DONE:
	ret;",
    );
}

#[test]
fn warp_exit_before_counted_barrier_is_fine() {
    clean(
        "
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 64;
	@%p1 bra DONE;
	bar.sync 1, 64;
	st.global.u32 [%rd1], %r1;
DONE:
	ret;",
    );
}
