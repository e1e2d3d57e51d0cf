//! Malformed text: each error names its line and column, what was found and what was
//! expected; nothing panics, however deep or broken the input.

use super::{ReadError, parse};

const HEADER: &str = ".version 8.8\n.target sm_90a\n.address_size 64\n";

/// Parses `text`, which must fail, and checks where and what the error says.
fn fails(text: &str, line: u32, col: u32, message: &str) -> ReadError {
    let error = parse(text).expect_err("the text must not parse");
    assert_eq!((error.line, error.col), (line, col), "{error}");
    assert!(
        error.message.contains(message),
        "`{}` does not contain `{message}`",
        error.message
    );
    assert!(
        error.message.starts_with(|c: char| c.is_ascii_lowercase()),
        "{error}"
    );
    assert!(!error.message.ends_with('.'), "{error}");
    error
}

/// `body` inside an entry `k`; the body's first line is line 6.
fn entry(body: &str) -> String {
    format!("{HEADER}.visible .entry k()\n{{\n{body}\n}}\n")
}

#[test]
fn display_names_line_and_column() {
    let error = ReadError {
        line: 3,
        col: 7,
        message: "expected `;`, found `}`".into(),
    };
    assert_eq!(
        error.to_string(),
        "line 3, column 7: expected `;`, found `}`"
    );
    let _: &dyn std::error::Error = &error;
}

#[test]
fn missing_semicolon_after_instruction() {
    fails(
        &entry("\tret }"),
        6,
        6,
        "expected `;` after instruction, found `}`",
    );
    fails(
        &entry("\tadd.s32 %r1, %r2, 1\n\tret;"),
        7,
        2,
        "expected `;` after instruction, found `ret`",
    );
}

#[test]
fn header_errors() {
    fails(
        "",
        1,
        1,
        "expected `.version` at the start of the module, found end of input",
    );
    fails(
        "\n  .target sm_90a",
        2,
        3,
        "expected `.version` at the start of the module, found `.target`",
    );
    fails(
        ".version 8\n.target sm_90a",
        1,
        10,
        "expected a version `major.minor` after `.version`, found `8`",
    );
    fails(
        ".version 8.8\n.target compute_90",
        2,
        9,
        "expected a target `sm_XY` after `.target`, found `compute_90`",
    );
    fails(
        ".version 8.8\n.address_size 64",
        2,
        1,
        "expected `.target` after `.version`, found `.address_size`",
    );
}

#[test]
fn module_scope_errors() {
    fails(
        &format!("{HEADER}foo"),
        4,
        1,
        "expected a module-level directive, found `foo`",
    );
    fails(
        &format!("{HEADER}.section .debug_str {{ .b8 1"),
        4,
        28,
        "expected `}` to end the directive `.section`, found end of input",
    );
    fails(
        &format!("{HEADER}.global .u32 x"),
        4,
        15,
        "expected `;` after the declaration, found end of input",
    );
    fails(
        &format!("{HEADER}.file 1 2"),
        4,
        9,
        "expected a quoted path after the file index, found `2`",
    );
    fails(
        &format!("{HEADER}.entry k(.param .u32 a .param .u32 b) {{ }}"),
        4,
        24,
        "expected `,` or `)` after a parameter",
    );
    fails(
        &format!("{HEADER}.entry k()\n.maxntid 1, 1,\n{{\n}}"),
        6,
        1,
        "expected an integer or a string after `,`, found `{`",
    );
    fails(
        &format!("{HEADER}.entry 42()"),
        4,
        8,
        "expected a function name, found `42`",
    );
    fails(
        &format!("{HEADER}.entry k() ret;"),
        4,
        12,
        "expected `{` or `;` after the signature of `k`, found `ret`",
    );
}

#[test]
fn body_errors() {
    fails(
        &format!("{HEADER}.entry k() {{\n\tret;\n"),
        6,
        1,
        "expected `}` to close the body of `k`, found end of input",
    );
    fails(
        &entry("\t@%p1 }"),
        6,
        7,
        "expected an instruction after the guard, found `}`",
    );
    fails(
        &entry("\t@ 1 ret;"),
        6,
        4,
        "expected a predicate after `@`, found `1`",
    );
    fails(&entry("\t, ret;"), 6, 2, "expected a statement, found `,`");
    fails(
        &entry("\t.loc 1 2"),
        7,
        1,
        "expected a column number in `.loc`, found `}`",
    );
    fails(
        &entry("\t.loc 1 2 3,"),
        7,
        1,
        "expected text after `,` in `.loc`, found `}`",
    );
    fails(
        &entry("\t.callprototype _ (.param .b32 _)"),
        7,
        1,
        "expected `;` after the directive `.callprototype`, found `}`",
    );
    fails(
        &entry("\t.reg .texref t;"),
        6,
        7,
        "expected a type in the declaration, found `.texref`",
    );
    fails(
        &entry("\t.reg .b32 %r<99999999999>;"),
        6,
        15,
        "expected a register count after `<` that fits in 32 bits, found `99999999999`",
    );
    fails(
        &entry("\t.shared .align 8 .b8 .align 4 x;"),
        6,
        23,
        "duplicate `.align` in the declaration",
    );
    fails(
        &entry("\t.shared .b8 x[4;"),
        6,
        17,
        "expected `]` after the array size, found `;`",
    );
    fails(
        &entry("\t.reg .b32 ;"),
        6,
        12,
        "expected a variable name, found `;`",
    );
}

#[test]
fn operand_errors() {
    fails(
        &entry("\tld.u32 %r1, [%rd1+%r2];"),
        6,
        20,
        "expected an offset after `+`, found `%r2`",
    );
    fails(
        &entry("\ttex.2d.v4.f32.f32 {%f1}, [%rd1, %f2];"),
        6,
        34,
        "expected `{` to open the tensor coordinates after `[map,`, found `%f2`",
    );
    fails(
        &entry("\tcp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%rd1, {}], [%r1];"),
        6,
        64,
        "expected a tensor coordinate, found `}`",
    );
    fails(
        &entry("\tcp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%rd1, {%r2} + 4], [%r1];"),
        6,
        69,
        "expected `]` to close the tensor address, found `+`",
    );
    fails(
        &entry("\tmov.u32 %r1, -%r2;"),
        6,
        16,
        "expected a number after `-`, found `%r2`",
    );
    fails(
        &entry("\tmov.u32 %r1, ;"),
        6,
        15,
        "expected an operand, found `;`",
    );
    fails(
        &entry("\tmov.b64 {%r1 %r2}, %rd1;"),
        6,
        15,
        "expected `,` or `}` in the operand list, found `%r2`",
    );
    fails(
        &entry("\tld.u32 %r1, [];"),
        6,
        15,
        "expected a register, symbol or integer address after `[`, found `]`",
    );
}

#[test]
fn lexical_errors() {
    fails(
        &entry("\tmov.u32 %r1, 99999999999999999999;"),
        6,
        15,
        "integer `99999999999999999999` does not fit in 64 bits",
    );
    fails(
        &entry("\tmov.u32 %r1, 09;"),
        6,
        15,
        "invalid digit in octal number `09`",
    );
    fails(
        &entry("\tmov.f32 %f1, 0f3F80;"),
        6,
        15,
        "expected 8 hex digits after `0f`, found `0f3F80`",
    );
    fails(
        &entry("\tmov.u32 %r1, 12abc;"),
        6,
        15,
        "invalid number `12abc`",
    );
    fails(
        &entry("\tmov.u32 %r1, 0x;"),
        6,
        15,
        "expected digits in number `0x`",
    );
    fails(
        &entry("\tmov.u32 %r1, #1;"),
        6,
        15,
        "unexpected character `#`",
    );
    fails(
        &entry("\tmov.u32 %r1, é;"),
        6,
        15,
        "unexpected character `é`",
    );
    fails(
        &entry("\tmov.u32 %, 1;"),
        6,
        10,
        "expected a register name after `%`",
    );
    fails(
        &entry("\t.pragma \"nounroll;\n"),
        6,
        10,
        "unterminated string, expected `\"`",
    );
    fails(
        &format!("{HEADER}/* never closed\n.entry k() {{ }}"),
        4,
        1,
        "unterminated block comment, expected `*/`",
    );
}

#[test]
fn errors_come_in_text_order() {
    // The syntax error on the first body line is reported, not the bad literal after it.
    fails(
        &entry("\tret }\n\tmov.u32 %r1, 99999999999999999999;"),
        6,
        6,
        "expected `;` after instruction, found `}`",
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep_vector = format!(
        "\tmov.b32 %r1, {}%r2{};",
        "{".repeat(10_000),
        "}".repeat(10_000)
    );
    fails(
        &entry(&deep_vector),
        6,
        80,
        "at most 64 levels of nested operands",
    );
    let deep_not = format!("\tmov.pred %p1, {}%p2;", "!".repeat(100_000));
    fails(
        &entry(&deep_not),
        6,
        81,
        "at most 64 levels of nested operands",
    );
    let deep_list = format!("\tcall f, {}x{};", "(".repeat(1_000), ")".repeat(1_000));
    assert!(parse(&entry(&deep_list)).is_err());
    let deep_init = format!(
        "{HEADER}.global .u32 x[1] = {}1{};",
        "{".repeat(10_000),
        "}".repeat(10_000)
    );
    fails(
        &deep_init,
        4,
        86,
        "at most 64 levels of nested braces in the initializer",
    );
    // Body scopes are flattened without recursion, so deep ones are fine.
    let scopes = format!("{}\tret;{}", "{\n".repeat(10_000), "\n}".repeat(10_000));
    assert!(parse(&entry(&scopes)).is_ok());
}

#[test]
fn long_and_non_ascii_tokens_are_shortened_safely() {
    let text = format!("{HEADER}\"{}\"", "é".repeat(100));
    let error = fails(
        &text,
        4,
        1,
        "expected a module-level directive, found `\"éééé",
    );
    assert!(error.message.ends_with("…`"), "{error}");
}

#[test]
fn arbitrary_bytes_never_panic() {
    let pieces = [
        "{",
        "}",
        "[",
        "]",
        "(",
        ")",
        "<",
        ">",
        ";",
        ",",
        ":",
        ".",
        "%",
        "@",
        "!",
        "|",
        "+",
        "-",
        "=",
        "_",
        "\"",
        "/*",
        "*/",
        "//",
        "\n",
        " ",
        "0x",
        "0f",
        "0d",
        "1.5e",
        "é",
        ".reg",
        ".b32",
        "%r",
        ".entry",
        "k",
        ".loc",
        ".section",
        "ld.u32",
        ".version 8.8 .target sm_90a ",
        "9999999999999999999999",
    ];
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for _ in 0..20_000 {
        let mut text = String::from(HEADER);
        for _ in 0..(state % 24) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            text.push_str(pieces[(state % pieces.len() as u64) as usize]);
        }
        let _ = parse(&text);
        let _ = parse(text.get(HEADER.len()..).unwrap_or(""));
    }
}
