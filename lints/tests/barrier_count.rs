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

/// Warp 0 arrives on barrier 1 counting 96 threads, warps 1 and 2 sync on it counting 64.
#[test]
fn different_counts_for_one_id() {
    let body = "
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.eq.u32 %p1, %r2, 0;
	@%p1 bra A;
	bar.sync 1, 64;
	bra.uni DONE;
A:
	bar.arrive 1, 96;
DONE:
	ret;";
    // The pattern: the arrive's count, pointing at the sync's.
    let (sync, arrive) = (line_of(body, "bar.sync 1"), line_of(body, "bar.arrive 1"));
    let s = static_findings(LINT, body);
    assert_eq!(s.len(), 1, "{s:?}");
    assert_eq!(s[0].span.line, arrive);
    assert_eq!(s[0].related.len(), 1);
    assert_eq!(s[0].related[0].span.line, sync);
    // The run: warp 0's arrive opens the phase with 96, warp 1 joins it with 64 (§9.7.13.1).
    // The finding is where the rule broke, the sync, and the witness shows both uses (the
    // other order completes: warps 1 and 2 complete a phase of 64 before warp 0 arrives).
    let f = expect_with(LINT, ".reqntid 96, 1, 1", body, 1);
    assert_proven(&f[0]);
    assert_eq!(f[0].span.line, sync);
    let w = f[0].witness.as_ref().unwrap();
    assert!(w.steps.iter().any(|s| s.span.line == arrive), "{}", f[0]);
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

/// Barrier 0 for the whole CTA (`.reqntid 256`) before the warp roles split, then with a count
/// of 128 inside one role: the CTA-wide phase completes for every thread before any reaches the
/// counted one. The twins put the CTA-wide use after the role's counted use (a thread of the
/// other role can arrive there while the counted phase is pending) or both in one loop. In the
/// twins the pattern is one finding; the runs break the rule at either use, whichever joins
/// the phase the other opened, so each use is denied with its own witness.
#[test]
fn a_cta_wide_use_before_the_roles_split_is_apart_from_a_role_counted_use() {
    let kernel = |before: &str, after: &str, looped: bool| {
        let (top, bottom) = if looped {
            (
                "mov.u32 %r9, 0;\nTOP:\n",
                "add.u32 %r9, %r9, 1;\n\tsetp.lt.u32 %p5, %r9, 4;\n\t@%p5 bra TOP;\n",
            )
        } else {
            ("", "")
        };
        format!(
            "
	mov.u32 %r1, %tid.x;
	{top}{before}
	shr.u32 %r2, %r1, 7;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra OTHER;
	bar.sync 0, 128;
OTHER:
	{after}
	{bottom}
	ret;"
        )
    };
    let dirs = ".reqntid 256, 1, 1";
    assert!(static_findings_with(LINT, dirs, &kernel("bar.sync 0;", "", false)).is_empty());
    assert!(findings_with(LINT, dirs, &kernel("bar.sync 0;", "", false)).is_empty());
    for twin in [
        kernel("", "bar.sync 0;", false),
        kernel("bar.sync 0;", "", true),
    ] {
        assert_eq!(static_findings_with(LINT, dirs, &twin).len(), 1);
        let f = findings_with(LINT, dirs, &twin);
        let mut at: Vec<u32> = f.iter().map(|d| d.span.line).collect();
        at.sort_unstable();
        let mut uses = vec![
            line_of(&twin, "bar.sync 0;"),
            line_of(&twin, "bar.sync 0, 128;"),
        ];
        uses.sort_unstable();
        assert_eq!(at, uses, "{f:#?}");
        for d in &f {
            assert_proven(d);
        }
    }
}
