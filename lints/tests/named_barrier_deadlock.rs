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
