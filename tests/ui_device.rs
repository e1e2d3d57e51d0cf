#[test]
fn ui_device() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui-tests/fail/device_*.rs");
    cases.pass("ui-tests/pass/device_*.rs");
}
