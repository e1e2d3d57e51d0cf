//! Compile-time errors on the user's tokens (`ui-tests/fail`) and kernels that must compile
//! (`ui-tests/pass`). Regenerate snapshots with `TRYBUILD=overwrite cargo test --test ui` and
//! read the diff.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui-tests/fail/*.rs");
    cases.pass("ui-tests/pass/*.rs");
}
