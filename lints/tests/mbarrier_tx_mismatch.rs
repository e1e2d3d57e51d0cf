mod common;
use common::*;

const LINT: &str = "mbarrier_tx_mismatch";

#[test]
fn pipeline_with_the_right_bytes_is_fine() {
    clean_with(PIPELINE_BLOCK, &pipeline(&Pipeline::default()));
}

#[test]
fn pipeline_expecting_twice_the_bytes() {
    let body = pipeline(&Pipeline {
        expect_bytes: 8192,
        ..Pipeline::default()
    });
    // The pattern, at the expect_tx: the bytes announced and the bytes copied.
    let s = static_findings(LINT, &body);
    assert_eq!(s.len(), 1, "{s:?}");
    assert!(
        s[0].message.contains("8192") && s[0].message.contains("4096"),
        "{}",
        s[0].message
    );
    assert_eq!(s[0].related.len(), 1);
    // The run: the copy completes 4096 of the 8192 bytes, `full` never completes its phase and
    // the waiters hang. The finding is where they hang (the consumers' wait on `full`, or the
    // producer's on `empty`, as the schedule has it), and says which bytes are missing.
    let f = findings_with(LINT, PIPELINE_BLOCK, &body);
    assert!(!f.is_empty());
    for d in &f {
        assert_proven(d);
        assert!(
            d.notes.iter().any(|n| n.contains(
                "waits for 4096 bytes of transactions that no pending copy will complete"
            )),
            "{d}"
        );
    }
}

fn single(expect_tx: &str, copy_bytes: &str) -> String {
    format!("
	.shared .align 8 .b64 bar;
	.shared .align 128 .b8 tile[8192];
	ld.param.u64 %rd1, [k_param_0];
	ld.param.u32 %r9, [k_param_1];
	shl.b32 %r10, %r9, 2;
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [bar], 1;
	bar.sync 0;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [bar], {expect_tx};
	@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd1], {copy_bytes}, [bar];
W:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
	@!%p2 bra W;
	ret;")
}

#[test]
fn same_register_is_fine_whatever_its_value() {
    clean(&single("%r10", "%r10"));
    clean(&single("4096", "4096"));
}

#[test]
fn constant_mismatch() {
    expect(LINT, &single("4096", "2048"), 1);
}

#[test]
fn two_copies_add_up() {
    clean(
        "
	.shared .align 8 .b64 bar;
	.shared .align 128 .b8 tile[8192];
	ld.param.u64 %rd1, [k_param_0];
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [bar], 1;
	bar.sync 0;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [bar], 8192;
	@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd1], 4096, [bar];
	add.s64 %rd3, %rd1, 4096;
	mov.u32 %r2, tile;
	add.u32 %r3, %r2, 4096;
	@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd3], 4096, [bar];
W:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
	@!%p2 bra W;
	ret;",
    );
}

#[test]
fn expect_without_any_copy() {
    let body = "
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [bar], 1;
	bar.sync 0;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [bar], 4096;
W:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
	@!%p2 bra W;
	ret;";
    let s = static_findings(LINT, body);
    assert_eq!(s.len(), 1, "{s:?}");
    assert!(s[0].message.contains("no bulk copy"), "{}", s[0].message);
    // The run: every thread waits for a phase that 4096 bytes nobody copies keep open. The
    // finding is at the wait where the threads hang.
    let f = expect(LINT, body, 1);
    assert_proven(&f[0]);
    assert_eq!(f[0].span.line, line_of(body, "try_wait"));
    assert!(
        f[0].notes
            .iter()
            .any(|n| n.contains("waits for 4096 bytes of transactions")),
        "{}",
        f[0]
    );
}
