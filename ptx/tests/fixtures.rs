//! Every PTX fixture (nvcc's output and the hand-written `hand_*.ptx`) must parse, survive
//! `parse(write(parse(text))) == parse(text)`, and no prefix or byte mutation of it may make
//! the reader panic (a mutation that still parses must still round-trip).

use phasegate_ptx::{Item, Statement, parse, write_string};
use std::path::PathBuf;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/ptx");

/// The fixtures' names and texts; fails when the folder holds none, so that a moved folder
/// cannot turn these tests into no-ops.
fn fixtures() -> Vec<(String, String)> {
    let entries =
        std::fs::read_dir(FIXTURES).unwrap_or_else(|e| panic!("cannot read {FIXTURES}: {e}"));
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "ptx"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no .ptx fixtures in {FIXTURES}");
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (
                path.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
                text,
            )
        })
        .collect()
}

#[test]
fn every_fixture_parses_and_round_trips() {
    for (name, text) in fixtures() {
        let module = parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            module.functions().next().is_some(),
            "{name}: no function read"
        );
        let written = write_string(&module);
        let again = parse(&written)
            .unwrap_or_else(|e| panic!("{name}: re-reading the written text: {e}\n{written}"));
        assert_eq!(
            again, module,
            "{name}: parse(write(parse(text))) differs from parse(text)"
        );
    }
}

#[test]
fn fixture_spans_point_at_their_statements() {
    for (name, text) in fixtures() {
        let module = parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let lines: Vec<&str> = text.lines().collect();
        for function in module.functions() {
            let Some(body) = &function.body else { continue };
            for (id, statement) in body.iter() {
                let span = body.span(id);
                let line = lines[span.line as usize - 1];
                let at: String = line.chars().skip(span.col as usize - 1).collect();
                let ok = match statement {
                    Statement::Label(label) => at.starts_with(label.as_str()),
                    Statement::Instruction(inst) => {
                        at.starts_with('@') || at.starts_with(inst.opcode.name())
                    }
                    Statement::Loc(_) => at.starts_with(".loc"),
                    Statement::Decl(decl) => at.starts_with('.') && line.contains(&decl.name),
                    Statement::Directive(_) => at.starts_with('.'),
                    Statement::ScopeOpen => at.starts_with('{'),
                    Statement::ScopeClose => at.starts_with('}'),
                };
                assert!(
                    ok,
                    "{name}:{}:{}: span does not point at {statement:?}",
                    span.line, span.col
                );
            }
        }
    }
}

#[test]
fn nvcc_debug_sections_and_files_are_kept() {
    for (name, text) in fixtures() {
        let module = parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        if text.contains(".section") {
            assert!(
                module
                    .items
                    .iter()
                    .any(|i| matches!(i, Item::Verbatim(v) if v.starts_with(".section"))),
                "{name}: `.section` not kept verbatim"
            );
        }
        if text.contains("\t.file\t1 ") {
            assert!(module.file_name(1).is_some(), "{name}: `.file 1` not read");
        }
    }
}

#[test]
fn truncated_fixtures_never_panic() {
    for (_, text) in fixtures() {
        let cuts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        // Every prefix of the first 2 KiB (the header, globals, a signature), then about 400
        // spread over the rest; each is a char boundary, so slicing cannot panic.
        let step = (cuts.len() / 400).max(1);
        for (n, &cut) in cuts.iter().enumerate() {
            if cut < 2048 || n % step == 0 {
                let _ = parse(&text[..cut]);
            }
        }
    }
}

#[test]
fn mutated_fixtures_never_panic_and_still_round_trip() {
    // A fixed xorshift sequence: reproducible without a random-number dependency.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    const BYTES: &[u8] = b"{}[]()<>;,:.%@!|+-=_\"/*\n 0123456789abfdxXU$\\\xff\xc3";
    for (_, text) in fixtures() {
        let original = text.into_bytes();
        for _ in 0..300 {
            let mut bytes = original.clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() % bytes.len() as u64) as usize;
                match next() % 3 {
                    0 => bytes[at] = BYTES[(next() % BYTES.len() as u64) as usize],
                    1 => {
                        bytes.remove(at);
                    }
                    _ => bytes.insert(at, BYTES[(next() % BYTES.len() as u64) as usize]),
                }
            }
            let mutated = String::from_utf8_lossy(&bytes);
            // What still parses must still round-trip.
            if let Ok(module) = parse(&mutated) {
                let written = write_string(&module);
                assert_eq!(
                    parse(&written).as_ref(),
                    Ok(&module),
                    "mutated text:\n{mutated}\nwritten:\n{written}"
                );
            }
        }
    }
}
