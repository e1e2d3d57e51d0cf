//! The PTX reader on arbitrary bytes: `parse` never panics, and what it accepts round-trips
//! through the writer: `parse(write_string(m)) == Ok(m)`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(module) = phasegate_ptx::parse(text) else {
        return;
    };
    let written = phasegate_ptx::write_string(&module);
    match phasegate_ptx::parse(&written) {
        Ok(again) => assert_eq!(
            again, module,
            "parse(write(m)) != m; written text:\n{written}"
        ),
        Err(e) => panic!("the writer's text does not read back: {e}\nwritten text:\n{written}"),
    }
});
