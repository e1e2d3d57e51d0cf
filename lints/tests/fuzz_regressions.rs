//! Inputs that made the analyzer use unbounded time or memory, found while fuzzing it
//! (`fuzz/`, book/src/reliability/README.md), kept so that they stay fixed. Each runs `lint_module` on
//! the input and checks the result.

use phasegate_lints::{
    ANALYSIS_LIMIT, Diagnostic, Level, LintConfig, MAX_LOOP_MEMBERSHIPS, lint_module,
};

fn module(body: &str) -> phasegate_ptx::Module {
    let text = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n{body}ret;\n}}\n"
    );
    phasegate_ptx::parse(&text).expect("the input reads")
}

fn lint(body: &str) -> Vec<Diagnostic> {
    lint_module(&module(body), &LintConfig::default())
}

/// `.reg .b32 r<4000000000>;` in a nested scope made the analyzer create a variable for each
/// of the first 4096 names of the range, however few were used: 2,000 such scopes (58 KB of
/// text) took 10 s and 2.6 GB. A range's names now get their variables when first named.
#[test]
fn scoped_register_ranges_cost_nothing_until_used() {
    let body = "{ .reg .b32 r<4000000000>; }\n".repeat(2000);
    assert_eq!(lint(&body), Vec::new());
}

/// The names past the first 4096 of a scoped range were resolved to the function's register
/// of the same name: here `%q4500` in the inner scope, which is uniform, was read as the outer
/// `%q4500`, which depends on `%tid.x`, and the threads that branch past the `bar.sync` to `ret`
/// were reported as a divergent exit. The inner write is guarded (by a CTA-uniform `%q1`) so
/// that it does not replace the outer value: the outer write still reaches the branch when the
/// inner scope declares nothing.
#[test]
fn scoped_register_ranges_shadow_past_4096() {
    let program = |inner_decl: &str| {
        format!(
            ".reg .pred %q<5000>;\n.reg .b32 %r<4>;\nmov.u32 %r1, %tid.x;\nsetp.eq.u32 %q4500, %r1, 0;\n\
             mov.u32 %r2, %ctaid.x;\nsetp.eq.u32 %q1, %r2, 1;\n\
             {{\n{inner_decl}@%q1 setp.eq.u32 %q4500, %r2, 0;\n@%q4500 bra L;\n}}\nbar.sync 0;\nL:\n"
        )
    };
    assert_eq!(lint(&program(".reg .pred %q<5000>;\n")), Vec::new());
    // Without the inner declaration the branch is on the outer `%q4500`, whose divergent write
    // the guarded one does not replace: threads skip the barrier and exit.
    let found = lint(&program(""));
    assert!(
        found
            .iter()
            .any(|d| d.lint == "divergent_exit_before_barrier"),
        "{found:#?}"
    );
}

/// Loops nested 500 deep: control dependence searched each block's list linearly before adding
/// to it (cubic in the depth; 2,000 loops took 13 s).
#[test]
fn deeply_nested_loops() {
    let n = 500;
    let mut body = String::from(".reg .pred %p<2>;\n.reg .b32 %r<100>;\n");
    for i in 0..n {
        body += &format!("H{i}:\nadd.u32 %r{}, %r{}, 1;\n", i % 90 + 1, i % 90 + 1);
    }
    body += "bar.sync 0;\n";
    for i in (0..n).rev() {
        body += &format!("setp.lt.u32 %p1, %r{}, 10;\n@%p1 bra H{i};\n", i % 90 + 1);
    }
    assert_eq!(lint(&body), Vec::new());
}

/// One register defined at 3,000 places: the constant analysis joined over every definition at
/// each of them (quadratic; 4,000 took 2.8 s). The join is now kept until a value changes.
#[test]
fn register_with_thousands_of_definitions() {
    let mut body = String::from(
        ".reg .pred %p<2>;\n.reg .b32 %r<4>;\nmov.u32 %r1, %tid.x;\nsetp.eq.u32 %p1, %r1, 0;\n",
    );
    for i in 0..3000 {
        body += &format!("@%p1 bra L{i};\nadd.u32 %r2, %r2, 1;\nL{i}:\n");
    }
    assert_eq!(lint(&body), Vec::new());
}

/// There is no size limit: a function of 100,000 statements is analyzed, and a bug at its end
/// is found.
#[test]
fn large_functions_are_analyzed() {
    let decls = ".reg .pred %p<2>;\n.reg .b32 %r<4>;\n";
    let body = format!(
        "{decls}{}mov.u32 %r2, %tid.x;\nsetp.eq.u32 %p1, %r2, 0;\n@%p1 bra L;\nbar.sync 0;\nL:\nmembar.cta;\n",
        "add.u32 %r1, %r1, 1;\n".repeat(100_000)
    );
    let found: Vec<&str> = lint(&body).into_iter().map(|d| d.lint).collect();
    assert!(found.contains(&"aligned_barrier_divergence"), "{found:?}");
}

/// Loops nested thousands deep (no compiler's output; `fuzz/stress.py loops`) make the
/// block-in-loop memberships grow with the square of the depth: past `MAX_LOOP_MEMBERSHIPS`
/// the function is not analyzed, and that is reported as an error at its first statement,
/// whatever the configuration allows.
#[test]
fn loops_nested_past_the_limit_get_one_error() {
    let depth = 3000;
    let mut body = ".reg .pred %p<2>;\n.reg .b32 %r<4>;\n".to_string();
    for i in 0..depth {
        body += &format!("H{i}:\nadd.u32 %r1, %r1, 1;\n");
    }
    for i in (0..depth).rev() {
        body += &format!("setp.lt.u32 %p1, %r1, {i};\n@%p1 bra H{i};\n");
    }
    let mut config = LintConfig::default();
    config.set("all", Level::Allow).unwrap();
    let found = lint_module(&module(&body), &config);
    assert_eq!(found.len(), 1, "{found:#?}");
    let d = &found[0];
    assert_eq!(
        (d.lint, d.level, d.function.as_str()),
        (ANALYSIS_LIMIT, Level::Deny, "k")
    );
    assert_eq!((d.span.line, d.span.col), (6, 1));
    assert!(
        d.message.starts_with("the loops of `k` nest too deeply to analyze: at least ")
            && d.message.ends_with(&format!(
                "block-in-loop memberships, more than the analyzer's limit of {MAX_LOOP_MEMBERSHIPS}; it was not analyzed"
            )),
        "{}",
        d.message
    );
    // A tenth of the depth is analyzed.
    let shallow: String = body
        .lines()
        .filter(|l| {
            l.strip_prefix('H')
                .or_else(|| l.split("bra H").nth(1))
                .and_then(|n| n.trim_end_matches([':', ';']).parse::<usize>().ok())
                .is_none_or(|n| n < depth / 10)
        })
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(lint_module(&module(&shallow), &config), Vec::new());
}
