//! `parse(&write_string(&m)) == Ok(m)` for random, well-formed models.
//!
//! The generators produce only models whose text is unambiguous: names are PTX identifiers,
//! registers start with `%`, `sym+0` is never a `SymbolOffset` (it is written `sym`), and `.reg`
//! declarations use `%` names (a `%`-less one makes same-named symbols in scope registers).

use phasegate_ptx::*;
use proptest::prelude::*;

fn ident() -> impl Strategy<Value = String> {
    prop_oneof!["[a-zA-Z][a-zA-Z0-9_$]{0,8}", "[_$][a-zA-Z0-9_$]{1,8}"]
}

fn reg() -> impl Strategy<Value = String> {
    (
        "%[a-zA-Z_][a-zA-Z0-9_]{0,5}",
        prop::option::of(prop_oneof![Just(".x"), Just(".y"), Just(".z")]),
    )
        .prop_map(|(r, dim)| format!("{r}{}", dim.unwrap_or("")))
}

fn space() -> impl Strategy<Value = StateSpace> {
    prop::sample::select(vec![
        StateSpace::Reg,
        StateSpace::Sreg,
        StateSpace::Const,
        StateSpace::Global,
        StateSpace::Local,
        StateSpace::Param,
        StateSpace::Shared,
        StateSpace::Tex,
    ])
}

fn linkage() -> impl Strategy<Value = Option<Linkage>> {
    prop::option::weighted(
        0.2,
        prop::sample::select(vec![
            Linkage::Visible,
            Linkage::Extern,
            Linkage::Weak,
            Linkage::Common,
        ]),
    )
}

fn imm() -> impl Strategy<Value = Imm> {
    prop_oneof![
        prop_oneof![any::<i64>(), -100i64..100].prop_map(Imm::Int),
        any::<u32>().prop_map(Imm::F32),
        any::<u64>().prop_map(Imm::F64),
    ]
}

fn offset() -> impl Strategy<Value = i64> {
    prop_oneof![any::<i64>(), -64i64..64]
}

fn leaf_operand() -> impl Strategy<Value = Operand> {
    prop_oneof![
        reg().prop_map(Operand::Reg),
        imm().prop_map(Operand::Imm),
        ident().prop_map(Operand::Symbol),
        (
            ident(),
            offset().prop_filter("`sym+0` is written `sym`", |o| *o != 0)
        )
            .prop_map(|(s, o)| Operand::SymbolOffset(s, o)),
        (reg(), offset()).prop_map(|(r, offset)| Operand::Address(Address {
            base: AddressBase::Reg(r),
            offset
        })),
        (ident(), offset()).prop_map(|(s, offset)| Operand::Address(Address {
            base: AddressBase::Symbol(s),
            offset
        })),
        offset().prop_map(|offset| Operand::Address(Address {
            base: AddressBase::Absolute,
            offset
        })),
        Just(Operand::Sink),
    ]
}

/// What may stand on either side of `|` or after `!` without changing how the text groups.
fn simple_operand() -> impl Strategy<Value = Operand> {
    prop_oneof![
        reg().prop_map(Operand::Reg),
        ident().prop_map(Operand::Symbol),
        imm().prop_map(Operand::Imm),
        Just(Operand::Sink),
    ]
}

fn operand() -> impl Strategy<Value = Operand> {
    let shallow = prop_oneof![
        4 => leaf_operand(),
        1 => prop_oneof![reg().prop_map(Operand::Reg), ident().prop_map(Operand::Symbol)]
            .prop_map(|o| Operand::Not(Box::new(o))),
        1 => (simple_operand(), simple_operand()).prop_map(|(a, b)| Operand::Pair(Box::new(a), Box::new(b))),
    ];
    shallow.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Operand::Vector),
            prop::collection::vec(inner, 0..4).prop_map(Operand::List),
        ]
    })
}

fn initializer() -> impl Strategy<Value = Initializer> {
    let scalar = prop_oneof![
        imm().prop_map(Operand::Imm),
        ident().prop_map(Operand::Symbol),
        (
            ident(),
            offset().prop_filter("`sym+0` is written `sym`", |o| *o != 0)
        )
            .prop_map(|(s, o)| Operand::SymbolOffset(s, o)),
    ]
    .prop_map(Initializer::Scalar);
    scalar.prop_recursive(3, 16, 4, |inner| {
        prop::collection::vec(inner, 0..4).prop_map(Initializer::List)
    })
}

fn var_decl() -> impl Strategy<Value = VarDecl> {
    let ptr = prop::option::weighted(
        0.2,
        (prop::option::of(space()), prop::option::of(1u32..256)),
    );
    (
        (
            linkage(),
            space(),
            prop::option::of(any::<u32>()),
            prop::option::of(prop_oneof![
                prop::sample::select(vec![2u8, 4, 8]),
                any::<u8>()
            ]),
        ),
        (
            prop::sample::select(ScalarType::ALL.to_vec()),
            ptr,
            prop_oneof![ident(), reg()],
        ),
        (
            prop::option::of(any::<u32>()),
            prop::collection::vec(prop::option::of(any::<u64>()), 0..3),
            prop::option::weighted(0.3, initializer()),
        ),
    )
        .prop_map(
            |((linkage, space, align, vector), (ty, ptr, name), (range, array, init))| {
                // A `%`-less `.reg` name turns same-named symbols in its scope into registers.
                let name = if space == StateSpace::Reg && !name.starts_with('%') {
                    format!("%{name}")
                } else {
                    name
                };
                VarDecl {
                    linkage,
                    space,
                    align,
                    vector,
                    ty,
                    ptr,
                    name,
                    range,
                    array,
                    init,
                }
            },
        )
}

fn opcode() -> impl Strategy<Value = Opcode> {
    prop_oneof![
        prop::sample::select(vec![
            "add", "bar", "barrier", "bra", "call", "cp", "elect", "ld", "mbarrier", "mov", "ret",
            "setp", "st", "shfl", "fence", "mapa", "red", "atom", "vote", "exit",
        ])
        .prop_map(Opcode::from_name),
        "[a-z][a-z0-9_]{0,8}".prop_map(|n| Opcode::from_name(&n)),
    ]
}

fn instruction() -> impl Strategy<Value = Instruction> {
    let guard = prop::option::weighted(
        0.3,
        (any::<bool>(), reg()).prop_map(|(negated, pred)| Guard { negated, pred }),
    );
    let modifier = (
        "[a-z0-9_]{1,6}",
        prop::option::weighted(0.2, "[a-zA-Z0-9_]{1,6}"),
    )
        .prop_map(|(m, scope)| match scope {
            Some(s) => format!("{m}::{s}"),
            None => m,
        });
    (
        guard,
        opcode(),
        prop::collection::vec(modifier, 0..4),
        prop::collection::vec(operand(), 0..5),
    )
        .prop_map(|(guard, opcode, modifiers, operands)| Instruction {
            guard,
            opcode,
            modifiers,
            operands,
        })
}

fn loc() -> impl Strategy<Value = Loc> {
    let rest = prop::option::weighted(
        0.3,
        prop_oneof![
            (
                "[a-z$_][a-z0-9_$]{0,8}",
                prop::collection::vec(("( |, )", "[a-z_$][a-z0-9_]{0,6}|[1-9][0-9]{0,3}"), 0..4)
            )
                .prop_map(|(first, more)| more
                    .into_iter()
                    .fold(first, |acc, (sep, tok)| acc + &sep + &tok)),
            (1u32..9, 1u32..999, 0u32..99).prop_map(|(f, l, c)| format!(
                "function_name $L__info_string0, inlined_at {f} {l} {c}"
            )),
        ],
    );
    (any::<u32>(), any::<u32>(), any::<u32>(), rest).prop_map(|(file, line, col, rest)| Loc {
        file,
        line,
        col,
        rest,
    })
}

const RESERVED: [&str; 13] = [
    "loc", "reg", "sreg", "const", "global", "local", "param", "shared", "tex", "visible",
    "extern", "weak", "common",
];

fn directive() -> impl Strategy<Value = Directive> {
    let arg = prop_oneof![
        any::<u64>().prop_map(DirectiveArg::Int),
        "[^\n\r]{0,10}".prop_map(DirectiveArg::Str)
    ];
    let plain = (
        "[a-z][a-z0-9_]{0,9}".prop_filter("a declaration or `.loc` keyword", |n| {
            !RESERVED.contains(&n.as_str())
        }),
        prop::collection::vec(arg, 0..4),
    )
        .prop_map(|(name, args)| Directive { name, args });
    let raw = prop::sample::select(vec![
        "callprototype (.param .b32 _) _ (.param .b64 _)",
        "callprototype _ (.param .b64 _, .param .b32 _)",
        "branchtargets $L__BB0_1, $L__BB0_2",
    ])
    .prop_map(|name| Directive {
        name: name.to_string(),
        args: Vec::new(),
    });
    prop_oneof![4 => plain, 1 => raw]
}

fn header_directive() -> impl Strategy<Value = Directive> {
    let names = prop::sample::select(vec![
        "maxntid",
        "reqntid",
        "minnctapersm",
        "reqnctapercluster",
        "explicitcluster",
        "maxclusterrank",
        "maxnreg",
        "noreturn",
    ]);
    (
        names,
        prop::collection::vec(any::<u64>().prop_map(DirectiveArg::Int), 0..4),
    )
        .prop_map(|(name, args)| Directive {
            name: name.to_string(),
            args,
        })
}

/// Statements with balanced scopes: each generated statement may open a scope before it or
/// close one after it; scopes still open at the end are closed.
fn body() -> impl Strategy<Value = Body> {
    let statement = prop_oneof![
        2 => var_decl().prop_map(Statement::Decl),
        2 => ident().prop_map(Statement::Label),
        8 => instruction().prop_map(Statement::Instruction),
        2 => loc().prop_map(Statement::Loc),
        1 => directive().prop_map(Statement::Directive),
    ];
    prop::collection::vec((statement, -1i8..=1), 0..24).prop_map(|statements| {
        let mut body = Body::new();
        let mut depth = 0;
        for (statement, scope) in statements {
            if scope > 0 {
                body.push(Statement::ScopeOpen, Span::NONE);
                depth += 1;
            }
            body.push(statement, Span::NONE);
            if scope < 0 && depth > 0 {
                body.push(Statement::ScopeClose, Span::NONE);
                depth -= 1;
            }
        }
        for _ in 0..depth {
            body.push(Statement::ScopeClose, Span::NONE);
        }
        body
    })
}

fn function() -> impl Strategy<Value = Function> {
    (
        prop::sample::select(vec![FunctionKind::Entry, FunctionKind::Func]),
        linkage(),
        ident(),
        prop::collection::vec(var_decl(), 0..2),
        prop::collection::vec(var_decl(), 0..4),
        prop::collection::vec(header_directive(), 0..3),
        prop::option::weighted(0.8, body()),
    )
        .prop_map(
            |(kind, linkage, name, returns, params, directives, body)| Function {
                kind,
                linkage,
                name,
                returns,
                params,
                directives,
                body,
            },
        )
}

fn verbatim() -> impl Strategy<Value = String> {
    prop_oneof![
        (ident(), prop::collection::vec(0u8..=255, 1..6)).prop_map(|(name, bytes)| {
            let list: Vec<String> = bytes.iter().map(u8::to_string).collect();
            format!(
                ".section\t.debug_{name}\n\t{{\n$L__info_string0:\n.b8 {}\n\n\t}}",
                list.join(",")
            )
        }),
        (ident(), ident()).prop_map(|(a, b)| format!(".alias {a}, {b};")),
        ident().prop_map(|t| format!(".global .texref {t};")),
        ident().prop_map(|p| format!(".global .align 8 .u64 {p}[1] = {{generic($str)}};")),
    ]
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        1 => (any::<u32>(), "[^\n\r]{0,24}", prop::collection::vec(any::<u64>(), 0..3))
            .prop_map(|(index, path, extra)| Item::File(FileDecl { index, path, extra })),
        1 => var_decl().prop_map(Item::Var),
        3 => function().prop_map(Item::Function),
        1 => verbatim().prop_map(Item::Verbatim),
    ]
}

fn module() -> impl Strategy<Value = Module> {
    (
        (any::<u32>(), any::<u32>()),
        (
            any::<u32>(),
            prop::option::of(prop::sample::select(vec!['a', 'f'])),
        ),
        prop::collection::vec("[a-z][a-z_0-9]{0,12}", 0..3),
        any::<u32>(),
        prop::collection::vec(item(), 0..5),
    )
        .prop_map(
            |((major, minor), (number, suffix), options, address_size, items)| Module {
                version: Version::new(major, minor),
                target: Target {
                    sm: SmVersion { number, suffix },
                    options,
                },
                address_size,
                items,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        // Integration tests have no `lib.rs` next to them for the regression file.
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn written_models_read_back_equal(m in module()) {
        let text = write_string(&m);
        prop_assert_eq!(parse(&text), Ok(m), "text:\n{}", text);
    }

    #[test]
    fn written_operands_read_back_equal(op in operand()) {
        let inst = Instruction::new(Opcode::Mov, &["b32"], vec![op]);
        let mut m = Module::new(Version::new(8, 8), SmVersion::arch_specific(90));
        let mut body = Body::new();
        body.push(Statement::Instruction(inst), Span::NONE);
        m.items.push(Item::Function(Function {
            kind: FunctionKind::Entry,
            linkage: None,
            name: "k".into(),
            returns: Vec::new(),
            params: Vec::new(),
            directives: Vec::new(),
            body: Some(body),
        }));
        let text = write_string(&m);
        prop_assert_eq!(parse(&text), Ok(m), "text:\n{}", text);
    }
}
