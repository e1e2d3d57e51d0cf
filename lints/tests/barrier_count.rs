mod common;
use common::*;

const LINT: &str = "barrier_count";

#[test]
fn id_out_of_range_through_a_register() {
    let f = expect(
        LINT,
        "
	mov.u32 %r1, 16;
	bar.sync %r1;
	ret;",
        1,
    );
    assert!(f[0].message.contains("16"), "{}", f[0].message);
}

#[test]
fn count_not_multiple_of_32() {
    expect(
        LINT,
        "
	mov.u32 %r1, 48;
	bar.sync 1, %r1;
	ret;",
        1,
    );
}

#[test]
fn arrive_without_count() {
    let f = expect(
        LINT,
        "
	bar.arrive 3;
	ret;",
        1,
    );
    assert!(
        f[0].message.contains("needs a thread count"),
        "{}",
        f[0].message
    );
}

#[test]
fn different_counts_for_one_id() {
    let f = expect(
        LINT,
        "
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.eq.u32 %p1, %r2, 0;
	@%p1 bra A;
	bar.sync 1, 64;
	bra.uni DONE;
A:
	bar.arrive 1, 96;
DONE:
	ret;",
        1,
    );
    assert_eq!(f[0].related.len(), 1);
}

#[test]
fn count_larger_than_the_cta() {
    assert_eq!(
        findings_with(LINT, ".reqntid 128, 1, 1", "\tbar.sync 1, 256;\n\tret;").len(),
        1
    );
    assert_eq!(
        findings_with(
            LINT,
            ".reqntid 128, 1, 1",
            "\tbar.sync 1, 128;\n\tbar.sync 1;\n\tret;"
        )
        .len(),
        0
    );
}

#[test]
fn consistent_named_barriers_are_fine() {
    clean(
        "
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.eq.u32 %p1, %r2, 0;
	@%p1 bra A;
	bar.sync 1, 64;
	bar.arrive 2, 64;
	bra.uni DONE;
A:
	bar.arrive 1, 64;
	bar.sync 2, 64;
DONE:
	bar.sync 0;
	barrier.sync 15;
	ret;",
    );
}
