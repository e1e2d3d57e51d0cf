//! The barrier analyzer on whatever the reader accepts: `lint_module` never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(module) = phasegate_ptx::parse(text) else {
        return;
    };
    let _ = phasegate_lints::lint_module(&module, &phasegate_lints::LintConfig::default());
});
