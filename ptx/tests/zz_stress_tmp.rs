use phasegate_ptx::{parse, write_string};
#[test]
fn stress() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/ptx");
    let mut state = 0x1234_5678_9ABC_DEF1u64;
    let mut next = move || { state ^= state << 13; state ^= state >> 7; state ^= state << 17; state };
    const BYTES: &[u8] = b"{}[]()<>;,:.%@!|+-=_\"/*\n 0123456789abfdxXU$\\\xff\xc3pqr.reg.b32.loc";
    let (mut ok, mut total) = (0, 0);
    for e in std::fs::read_dir(dir).unwrap() {
        let original = std::fs::read(e.unwrap().path()).unwrap();
        for _ in 0..20000 {
            let mut bytes = original.clone();
            for _ in 0..1 + next() % 6 {
                let at = (next() % bytes.len() as u64) as usize;
                match next() % 4 {
                    0 => bytes[at] = BYTES[(next() % BYTES.len() as u64) as usize],
                    1 => { bytes.remove(at); }
                    2 => bytes.insert(at, BYTES[(next() % BYTES.len() as u64) as usize]),
                    _ => {
                        const SNIPS: &[&str] = &[" sym+0", ", x", "{", "}", " !%p1", "|", "\n.loc 1 2 3, a b\n", ".reg .b32 q;", " q", "-", " 0f3F800000", "[", "]", " 1.5", " _", "(", ")", " p:", ";", " .pragma \"x\";", ".callprototype _ (.param .b32 _);", " %r1|%p2", " -0x8000000000000000", " a+-4", " .v4", " .align 8", " .ptr .global", "\n.section .x { .b8 1 }\n", " .global .u32 g = {1,{2}};", " 1e5", "@!p ", " .extern", " =", " <4>", "/*", "*/", "//", " 08", "\"", " .b32 r<3>;", " r2", "\t.reg .pred r1;"];
                        let snip = SNIPS[(next() % SNIPS.len() as u64) as usize].as_bytes();
                        for (k, b) in snip.iter().enumerate() { bytes.insert(at + k, *b); }
                    }
                }
            }
            let text = String::from_utf8_lossy(&bytes);
            total += 1;
            if let Ok(m) = parse(&text) {
                ok += 1;
                let w = write_string(&m);
                match parse(&w) {
                    Ok(m2) => if m2 != m { std::fs::write("/tmp/a.txt", format!("{m:#?}")).unwrap(); std::fs::write("/tmp/b.txt", format!("{m2:#?}")).unwrap(); std::fs::write("/tmp/t.ptx", text.as_bytes()).unwrap(); panic!("not idempotent"); },
                    Err(e) => panic!("written text fails: {e}\n{w}\n---orig---\n{text}"),
                }
            }
        }
    }
    eprintln!("{ok}/{total} parsed");
}
