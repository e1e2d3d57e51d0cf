//! The feature table against ptxas: every row's sample assembles at the row's minimum `.version`
//! and `.target`, and fails one `.version` and one `.target` below it wherever the rest of the
//! sample line allows that lower configuration (so that only the row's feature can be at fault).
//! Targets older than `sm_50` and versions newer than 8.8 are outside what ptxas 12.9 reads.
//!
//! ptxas is found through `PTXAS` or the `nvidia-cuda-nvcc-cu12` Python package. Without it the
//! test fails and says how to install it, unless `PHASEGATE_SKIP_PTXAS=1`, which skips it with a
//! visible line.
//!
//! The modules are built with the model and printed with `write_string`, so the writer is
//! exercised on every sample too. The accepted and the rejected module of a row differ only in
//! `.version` or `.target`, so a rejection can only come from the version or target.

use phasegate_ptx::features::{
    FEATURE_TABLE, Feature, FeatureRow, Matcher, TARGETS, previous_version, target_min_version,
};
use phasegate_ptx::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The oldest target ptxas 12.9 still assembles for (it dropped `sm_3x`); rows whose minimum is
/// below it are assembled for it.
const OLDEST_TARGET: SmVersion = SmVersion::new(50);
/// The newest `.version` ptxas 12.9 reads; targets and rows that need more are not assembled.
const NEWEST_VERSION: Version = Version::new(8, 8);

/// Rows whose documented minimum ptxas does not enforce: (feature name, `"version"` or
/// `"target"`). The table keeps the documented number; for these the test checks that ptxas
/// still accepts the lower configuration, so that the entry goes once ptxas agrees with the
/// documentation.
const PTXAS_MORE_LENIENT: &[(&str, &str)] = &[
    // 9.7.19.2: "nanosleep introduced in PTX ISA 6.3"; ptxas 12.9 assembles it under .version 6.2.
    ("nanosleep", "version"),
];

fn find_ptxas() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PTXAS") {
        return Some(PathBuf::from(path));
    }
    let out = Command::new("python3")
        .args([
            "-c",
            "import nvidia.cuda_nvcc as m; print(list(m.__path__)[0])",
        ])
        .output()
        .ok()?;
    let path = Path::new(String::from_utf8_lossy(&out.stdout).trim())
        .join("bin")
        .join("ptxas");
    (out.status.success() && path.is_file()).then_some(path)
}

static FILE_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Assembles `text` for `target`; `Ok(())` or `Err(ptxas's messages)`.
fn assemble(ptxas: &Path, text: &str, target: SmVersion) -> Result<(), String> {
    let n = FILE_COUNTER.fetch_add(1, Ordering::Relaxed);
    let stem = std::env::temp_dir().join(format!("phasegate-features-{}-{n}", std::process::id()));
    let (input, output) = (stem.with_extension("ptx"), stem.with_extension("cubin"));
    std::fs::write(&input, text).expect("write a temporary .ptx file");
    let run = Command::new(ptxas)
        .arg(format!("-arch={target}"))
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output();
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
    let run = run.unwrap_or_else(|e| panic!("cannot run {}: {e}", ptxas.display()));
    if run.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        ))
    }
}

// ---- the samples as model statements -------------------------------------------------------

/// Splits at commas that are not inside brackets, braces or parentheses.
fn split_top(text: &str) -> Vec<&str> {
    let (mut depth, mut start, mut parts) = (0i32, 0, Vec::new());
    for (i, c) in text.char_indices() {
        match c {
            '[' | '{' | '(' => depth += 1,
            ']' | '}' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        parts.push(last);
    }
    parts
}

/// `base` or `base+offset` inside brackets.
fn address(text: &str) -> Address {
    let (base, offset) = match text.split_once('+') {
        Some((b, o)) => (b.trim(), o.trim().parse().expect("an address offset")),
        None => (text.trim(), 0),
    };
    let base = if base.starts_with('%') {
        AddressBase::Reg(base.into())
    } else {
        AddressBase::Symbol(base.into())
    };
    Address { base, offset }
}

fn operand(text: &str) -> Operand {
    let text = text.trim();
    if text == "_" {
        return Operand::Sink;
    }
    if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        // `[tensorMap, {coords}]`: a tensor map and the coordinates of a box.
        if let [map, coords] = split_top(inner)[..] {
            let Operand::Vector(coords) = operand(coords) else {
                panic!("tensor coordinates in braces: `{text}`")
            };
            return Operand::TensorAddress(address(map), coords);
        }
        return Operand::Address(address(inner));
    }
    if let Some(inner) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        return Operand::Vector(split_top(inner).into_iter().map(operand).collect());
    }
    if let Some(rest) = text.strip_prefix('!') {
        return Operand::Not(Box::new(operand(rest)));
    }
    if let Some((a, b)) = text.split_once('|') {
        return Operand::Pair(Box::new(operand(a)), Box::new(operand(b)));
    }
    if text.starts_with('%') {
        return Operand::reg(text);
    }
    if let Ok(value) = text.parse::<i64>() {
        return Operand::int(value);
    }
    Operand::sym(text)
}

/// One line of a sample: `opcode.mod.mod operands;` or `.directive args`.
fn statement(line: &str) -> Statement {
    let line = line.trim().trim_end_matches(';');
    if let Some(rest) = line.strip_prefix('.') {
        let (name, args) = rest.split_once(' ').unwrap_or((rest, ""));
        let args = split_top(args)
            .into_iter()
            .map(
                |a| match a.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
                    Some(s) => DirectiveArg::Str(s.into()),
                    None => DirectiveArg::Int(a.parse().expect("a directive argument")),
                },
            )
            .collect();
        return Statement::Directive(Directive {
            name: name.into(),
            args,
        });
    }
    let (head, operands) = line.split_once([' ', '\t']).unwrap_or((line, ""));
    let mut parts = head.split('.');
    let opcode = Opcode::from_name(parts.next().expect("an opcode"));
    let modifiers: Vec<&str> = parts.collect();
    Statement::Instruction(Instruction::new(
        opcode,
        &modifiers,
        split_top(operands).into_iter().map(operand).collect(),
    ))
}

fn sample_statements(sample: &str) -> Vec<Statement> {
    sample.lines().map(statement).collect()
}

/// Every feature the sample uses, by the table.
fn sample_features(statements: &[Statement]) -> Vec<Feature> {
    let mut all = Vec::new();
    for s in statements {
        let found = match s {
            Statement::Instruction(inst) => instruction_features(inst),
            Statement::Directive(d) => directive_features(d),
            _ => Vec::new(),
        };
        for f in found {
            if !all.contains(&f) {
                all.push(f);
            }
        }
    }
    all
}

// ---- the modules ----------------------------------------------------------------------------

fn reg(ty: ScalarType, name: &str, count: u32) -> Statement {
    let mut d = VarDecl::new(StateSpace::Reg, ty, name);
    d.range = Some(count);
    Statement::Decl(d)
}

fn shared(ty: ScalarType, name: &str, align: u32, len: Option<u64>) -> Statement {
    let mut d = VarDecl::new(StateSpace::Shared, ty, name);
    d.align = Some(align);
    d.array = len.map(Some).into_iter().collect();
    Statement::Decl(d)
}

fn function(kind: FunctionKind, name: &str, body: Option<Vec<Statement>>) -> Function {
    Function {
        kind,
        linkage: None,
        name: name.into(),
        returns: vec![],
        params: vec![],
        directives: vec![],
        body: body.map(|statements| {
            let mut b = Body::new();
            for s in statements {
                b.push(s, Span::NONE);
            }
            b
        }),
    }
}

/// The sample inside the fixed prelude: the declarations the samples name, a callee, a label.
fn module_for(sample: &str, version: Version, target: SmVersion) -> Module {
    let ret = || Statement::Instruction(Instruction::new(Opcode::Ret, &[], vec![]));
    let mut m = Module::new(version, target);
    m.items.push(Item::Function(function(
        FunctionKind::Func,
        "pg_callee",
        Some(vec![ret()]),
    )));
    let mut body = vec![
        reg(ScalarType::Pred, "%p", 8),
        reg(ScalarType::B16, "%h", 8),
        reg(ScalarType::B32, "%r", 16),
        reg(ScalarType::B64, "%rd", 16),
        reg(ScalarType::F32, "%f", 16),
        reg(ScalarType::F64, "%fd", 8),
        shared(ScalarType::B64, "bar0", 8, None),
        shared(ScalarType::B8, "tile", 128, Some(4096)),
    ];
    let mut header = Vec::new();
    for s in sample_statements(sample) {
        match s {
            // `.pragma` is a statement; `.noreturn` belongs to a `.func`; the others head the entry.
            Statement::Directive(d) if d.name == "noreturn" => {
                let mut f = function(FunctionKind::Func, "pg_noreturn", None);
                f.linkage = Some(Linkage::Extern);
                f.directives.push(d);
                m.items.push(Item::Function(f));
            }
            Statement::Directive(d) if d.name != "pragma" => header.push(d),
            other => body.push(other),
        }
    }
    body.push(Statement::Label("pg_end".into()));
    body.push(ret());
    let mut entry = function(FunctionKind::Entry, "pg_features", Some(body));
    entry.linkage = Some(Linkage::Visible);
    entry
        .params
        .push(VarDecl::new(StateSpace::Param, ScalarType::U64, "pg_param"));
    entry.directives = header;
    m.items.push(Item::Function(entry));
    m
}

// ---- configurations -------------------------------------------------------------------------

fn known_to_ptxas(target: SmVersion) -> bool {
    target.number >= OLDEST_TARGET.number
        && target_min_version(target).is_some_and(|v| v <= NEWEST_VERSION)
}

/// The target a row is assembled for: its own, or the oldest one ptxas knows.
fn accept_target(row: &FeatureRow) -> SmVersion {
    if row.feature.sm.suffix.is_some() || row.feature.sm.number >= OLDEST_TARGET.number {
        row.feature.sm
    } else {
        OLDEST_TARGET
    }
}

/// The target just below a row's: the highest plain target under its number, or for an `a`/`f`
/// target the plain one of the same number.
fn lower_target(need: SmVersion) -> Option<SmVersion> {
    if need.suffix.is_some() {
        return Some(SmVersion::new(need.number));
    }
    TARGETS
        .iter()
        .map(|t| t.sm)
        .filter(|t| t.suffix.is_none() && t.number < need.number && known_to_ptxas(*t))
        .max_by_key(|t| t.number)
}

/// The `.version` for `target` that covers the given features and the target.
fn version_for(target: SmVersion, features: &[Feature]) -> Version {
    features
        .iter()
        .map(|f| f.ptx_on(target))
        .chain(target_min_version(target))
        .max()
        .unwrap_or(Version::new(1, 0))
}

#[derive(Debug)]
struct Job {
    row: usize,
    /// The PTX assembled: the whole sample, or one line of it.
    line: &'static str,
    what: &'static str,
    version: Version,
    target: SmVersion,
    expect_accept: bool,
}

#[test]
fn every_row_against_ptxas() {
    if std::env::var("PHASEGATE_SKIP_PTXAS").as_deref() == Ok("1") {
        println!("skipped: feature table not checked against ptxas (PHASEGATE_SKIP_PTXAS=1)");
        return;
    }
    let ptxas = find_ptxas().unwrap_or_else(|| {
        panic!(
            "ptxas not found: set PTXAS to its path, or run `python3 -m pip install nvidia-cuda-nvcc-cu12==12.9.86` \
             (or set PHASEGATE_SKIP_PTXAS=1 to skip this test)"
        )
    });

    let mut problems = Vec::new();
    let mut jobs = Vec::new();
    let mut not_isolable = Vec::new();
    for (index, row) in FEATURE_TABLE.iter().enumerate() {
        let name = row.feature.name;
        let statements = sample_statements(row.sample);
        // The sample must use the row's feature, line by line.
        for (line, s) in row.sample.lines().zip(&statements) {
            let uses = match s {
                Statement::Instruction(inst) => row.matches_instruction(inst),
                Statement::Directive(d) => row.matches_directive(d),
                _ => false,
            };
            if !uses {
                problems.push(format!(
                    "{name}: sample line `{line}` does not use the feature"
                ));
            }
        }
        let features = sample_features(&statements);
        let others: Vec<Feature> = features
            .iter()
            .copied()
            .filter(|f| f.name != name)
            .collect();
        let target = accept_target(row);
        if !known_to_ptxas(target) {
            continue;
        }
        if let Some(f) = others.iter().find(|f| !f.available_on(target)) {
            problems.push(format!(
                "{name}: sample also needs `{}` ({}), which {target} lacks",
                f.name,
                f.target_text()
            ));
            continue;
        }
        let version = version_for(target, &features);
        if version > NEWEST_VERSION {
            continue;
        }
        jobs.push(Job {
            row: index,
            line: row.sample,
            what: "accepted at the minimum",
            version,
            target,
            expect_accept: true,
        });
        for &alt in row.feature.also {
            if known_to_ptxas(alt) {
                jobs.push(Job {
                    row: index,
                    line: row.sample,
                    what: "accepted on another target",
                    version: version_for(alt, &features),
                    target: alt,
                    expect_accept: true,
                });
            }
        }
        // A feature that arrived later on some targets (`later_on`) has its own `.version` on
        // the first target above them: the lowest plain target above the row's that the list
        // does not name.
        if !row.feature.later_on.is_empty() {
            let alt = TARGETS
                .iter()
                .map(|t| t.sm)
                .filter(|t| {
                    t.suffix.is_none()
                        && t.number > row.feature.sm.number
                        && known_to_ptxas(*t)
                        && row.feature.ptx_on(*t) == row.feature.ptx
                })
                .min_by_key(|t| t.number);
            if let Some(alt) = alt {
                jobs.push(Job {
                    row: index,
                    line: row.sample,
                    what: "accepted at the earlier .version on another target",
                    version: version_for(alt, &features),
                    target: alt,
                    expect_accept: true,
                });
            }
        }
        // One .version and one .target lower, line by line, where the lower configuration still
        // allows the target and everything else the line uses: then only this row's feature can
        // make ptxas reject it.
        let (mut version_checked, mut target_checked) = (false, false);
        let row_ptx = row.feature.ptx_on(target);
        let version_applies = row_ptx > version_for(target, &[]);
        let lower_sm = lower_target(row.feature.sm)
            .filter(|t| known_to_ptxas(*t) && row.feature.sm.number >= OLDEST_TARGET.number);
        for (line, s) in row.sample.lines().zip(&statements) {
            let line_others: Vec<Feature> = sample_features(std::slice::from_ref(s))
                .into_iter()
                .filter(|f| f.name != name)
                .collect();
            if let Some(lower) = previous_version(row_ptx).filter(|_| version_applies)
                && lower >= version_for(target, &line_others)
            {
                let lenient = PTXAS_MORE_LENIENT.contains(&(name, "version"));
                jobs.push(Job {
                    row: index,
                    line,
                    what: "one .version lower",
                    version: lower,
                    target,
                    expect_accept: lenient,
                });
                version_checked = true;
            }
            if let Some(lower) = lower_sm
                && line_others.iter().all(|f| f.available_on(lower))
                && !row.feature.available_on(lower)
            {
                let lenient = PTXAS_MORE_LENIENT.contains(&(name, "target"));
                let version = version_for(lower, &sample_features(std::slice::from_ref(s)));
                jobs.push(Job {
                    row: index,
                    line,
                    what: "one .target lower",
                    version,
                    target: lower,
                    expect_accept: lenient,
                });
                target_checked = true;
            }
        }
        if version_applies && previous_version(row_ptx).is_some() && !version_checked {
            not_isolable.push(format!("{name} (.version)"));
        }
        if lower_sm.is_some() && !target_checked {
            not_isolable.push(format!("{name} (.target)"));
        }
    }

    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism()
        .map_or(4, |n| n.get())
        .min(16);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    let row = &FEATURE_TABLE[job.row];
                    let text = write_string(&module_for(job.line, job.version, job.target));
                    let result = assemble(&ptxas, &text, job.target);
                    let bad = match (&result, job.expect_accept) {
                        (Ok(()), true) | (Err(_), false) => None,
                        (Err(log), true) => Some(format!("ptxas rejected it:\n{log}")),
                        (Ok(()), false) => Some("ptxas accepted it".to_string()),
                    };
                    if let Some(why) = bad {
                        failures.lock().unwrap().push(format!(
                            "`{}` {} (.version {}, .target {}): {why}\n--- module ---\n{text}",
                            row.feature.name, job.what, job.version, job.target
                        ));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();

    let count = |what: &str| jobs.iter().filter(|j| j.what == what).count();
    let rows = |what: &str| {
        jobs.iter()
            .filter(|j| j.what == what)
            .map(|j| j.row)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    };
    println!(
        "ptxas checked {} rows of {}: {} accepted at the minimum, {} on further targets ({} modules), \
         {} at an earlier .version on another target, {} checked one .version lower ({} modules), \
         {} checked one .target lower ({} modules); {} ptxas runs",
        jobs.iter()
            .map(|j| j.row)
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        FEATURE_TABLE.len(),
        rows("accepted at the minimum"),
        rows("accepted on another target"),
        count("accepted on another target"),
        rows("accepted at the earlier .version on another target"),
        rows("one .version lower"),
        count("one .version lower"),
        rows("one .target lower"),
        count("one .target lower"),
        jobs.len(),
    );
    if !not_isolable.is_empty() {
        println!(
            "lower configurations not checked because the rest of the sample needs the same: {}",
            not_isolable.join(", ")
        );
    }
    problems.extend(failures);
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn every_target_against_ptxas() {
    if std::env::var("PHASEGATE_SKIP_PTXAS").as_deref() == Ok("1") {
        println!("skipped: target table not checked against ptxas (PHASEGATE_SKIP_PTXAS=1)");
        return;
    }
    let ptxas = find_ptxas()
        .expect("ptxas not found: set PTXAS, or run `python3 -m pip install nvidia-cuda-nvcc-cu12==12.9.86`");
    let mut problems = Vec::new();
    let mut checked = 0;
    for t in TARGETS.iter().filter(|t| known_to_ptxas(t.sm)) {
        checked += 1;
        if let Err(log) = assemble(&ptxas, &write_string(&module_for("", t.ptx, t.sm)), t.sm) {
            problems.push(format!(".target {} at .version {}: {log}", t.sm, t.ptx));
        }
        let lower = previous_version(t.ptx).expect("a version before");
        if assemble(&ptxas, &write_string(&module_for("", lower, t.sm)), t.sm).is_ok() {
            problems.push(format!(
                ".target {} assembles at .version {lower}, below the table's {}",
                t.sm, t.ptx
            ));
        }
    }
    println!(
        "ptxas checked {checked} of {} targets at their minimum .version and one below",
        TARGETS.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ---- the API on small modules ---------------------------------------------------------------

fn kernel_module(version: Version, sm: SmVersion, lines: &str) -> Module {
    module_for(lines, version, sm)
}

fn feature_names(line: &str) -> Vec<&'static str> {
    match statement(line) {
        Statement::Instruction(inst) => {
            instruction_features(&inst).iter().map(|f| f.name).collect()
        }
        _ => unreachable!("an instruction"),
    }
}

#[test]
fn one_representative_per_family() {
    let cases: &[(&str, &[&str])] = &[
        ("add.s32 %r1, %r2, %r3;", &["add"]),
        ("fma.rn.bf16 %h1, %h2, %h3, %h4;", &["fma.{bf16,bf16x2}"]),
        (
            "setp.lt.bf16 %p1, %h1, %h2;",
            &["setp", "setp.{bf16,bf16x2}"],
        ),
        (
            "ld.acquire.cluster.shared::cluster.u32 %r1, [%r2];",
            &[
                "ld",
                "ld.{weak,relaxed,acquire}",
                "ld.cluster",
                "ld.shared::cluster",
            ],
        ),
        (
            "cvt.rn.bf16x2.f32 %r1, %f1, %f2;",
            &["cvt", "cvt.bf16x2.f32"],
        ),
        (
            "cp.async.bulk.wait_group.read 0;",
            &["cp.async.bulk.wait_group"],
        ),
        ("cp.async.wait_group 0;", &["cp.async.wait_group"]),
        ("bar.red.popc.u32 %r1, 1, %p1;", &["bar", "bar.red"]),
        ("barrier.sync 1, 64;", &["barrier"]),
        (
            "barrier.cluster.arrive.release.aligned;",
            &[
                "barrier.cluster",
                "barrier.cluster.{acquire,release,relaxed}",
            ],
        ),
        ("fence.proxy.async.shared::cta;", &["fence.proxy.async"]),
        (
            "mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%r1], 16;",
            &[
                "mbarrier.arrive",
                "mbarrier.arrive with sink destination",
                "mbarrier.arrive.expect_tx",
                "mbarrier.shared::cluster",
                "mbarrier.{release,acquire}.cta",
                "mbarrier.cluster",
            ],
        ),
        ("elect.sync %r1|%p1, -1;", &["elect.sync"]),
        (
            "mov.u32 %r1, %cluster_nctarank;",
            &["mov", "%cluster_nctarank"],
        ),
        ("setmaxnreg.dec.sync.aligned.u32 40;", &["setmaxnreg"]),
        (
            "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%f5, %f6}];",
            &[],
        ),
        // The tensor copies are not the bulk copies, and each modifier row stays with its form.
        (
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [tile], [%rd1, {%r1, %r2}], [bar0];",
            &["cp.async.bulk.tensor"],
        ),
        (
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [tile], [%rd1, {%r1, %r2}], [bar0], %h1;",
            &[
                "cp.async.bulk.tensor",
                "cp.async.bulk.tensor.multicast::cluster",
            ],
        ),
        (
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [tile], [%rd1], 16, [bar0], %h1;",
            &["cp.async.bulk", "cp.async.bulk.multicast::cluster"],
        ),
        (
            "cp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes [tile], [%rd1, {%r1}], [bar0];",
            &[
                "cp.async.bulk.tensor",
                "cp.async.bulk.tensor.shared::cta.global",
            ],
        ),
        (
            "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%rd1, {%r1}], [tile];",
            &["cp.async.bulk.tensor"],
        ),
        (
            "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [%rd1, {%r1}], [tile];",
            &["cp.reduce.async.bulk.tensor"],
        ),
        (
            "cp.async.bulk.prefetch.tensor.1d.L2.global.tile [%rd1, {%r1}];",
            &["cp.async.bulk.prefetch.tensor"],
        ),
        (
            "prefetch.param.tensormap [pg_param];",
            &["prefetch", "prefetch.tensormap"],
        ),
        (
            "tensormap.replace.tile.global_address.shared::cta.b1024.b64 [tile], %rd1;",
            &["tensormap.replace"],
        ),
        (
            "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [tile], 128;",
            &["tensormap.cp_fenceproxy"],
        ),
        (
            "wgmma.mma_async.sync.aligned.m64n8k32.s32.u8.s8 {%r1, %r2, %r3, %r4}, %rd1, %rd2, %p1;",
            &["wgmma.mma_async", "wgmma.mma_async.u8.s8"],
        ),
        (
            "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %r1, 0, %p1, 1, 1, 0, 0;",
            &["wgmma.mma_async.sp"],
        ),
        ("wgmma.wait_group.sync.aligned 0;", &["wgmma.wait_group"]),
        (
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};",
            &["mma", "mma.m16n8k16 with .f16/.bf16"],
        ),
        (
            "mma.sync.aligned.m16n8k16.row.col.f16.e4m3.e4m3.f16 {%r1, %r2}, {%r3, %r4}, {%r5}, {%r7, %r8};",
            &[
                "mma",
                "mma with .e4m3/.e5m2",
                "mma.m16n8k16 with .e4m3/.e5m2",
                "mma with .e4m3/.e5m2 and .f16 accumulators",
            ],
        ),
        (
            "ldmatrix.sync.aligned.m8n8.x1.shared::cta.b16 {%r1}, [tile];",
            &["ldmatrix", "ldmatrix.shared::cta"],
        ),
        (
            "cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;",
            &["cvt", "cvt with .e4m3x2/.e5m2x2"],
        ),
    ];
    for (line, want) in cases {
        assert_eq!(feature_names(line), *want, "{line}");
    }
    let cluster = match statement(".reqnctapercluster 2, 1, 1") {
        Statement::Directive(d) => directive_features(&d),
        _ => unreachable!(),
    };
    assert_eq!(
        cluster
            .iter()
            .map(|f| (f.name, f.ptx, f.sm))
            .collect::<Vec<_>>(),
        [(".reqnctapercluster", Version::new(7, 8), SmVersion::new(90))]
    );
    let try_wait = FEATURE_TABLE
        .iter()
        .find(|r| r.feature.name == "mbarrier.try_wait.parity")
        .unwrap()
        .feature;
    assert_eq!(
        (try_wait.ptx, try_wait.sm, try_wait.spec),
        (Version::new(7, 8), SmVersion::new(90), "9.7.13.15.16")
    );
    assert!(matches!(
        FEATURE_TABLE
            .iter()
            .find(|r| r.feature.name == "%cluster_ctarank")
            .unwrap()
            .matcher,
        Matcher::SpecialRegister(_)
    ));
}

#[test]
fn required_version_of_a_small_module() {
    let sm80 = SmVersion::new(80);
    let sm90 = SmVersion::new(90);
    assert_eq!(
        required_version(&kernel_module(
            Version::new(8, 0),
            sm80,
            "add.s32 %r1, %r2, %r3;"
        )),
        Version::new(7, 0)
    );
    let pipeline = "mbarrier.init.shared::cta.b64 [bar0], 1;\n\
                    fence.mbarrier_init.release.cluster;\n\
                    mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [bar0], 16;\n\
                    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd1], 16, [bar0];\n\
                    mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar0], 0;";
    let m = kernel_module(Version::new(8, 0), sm90, pipeline);
    assert_eq!(required_version(&m), Version::new(8, 0));
    assert!(check_features(&m).is_empty(), "{:?}", check_features(&m));
    let relaxed =
        format!("{pipeline}\nmbarrier.try_wait.parity.relaxed.cta.shared::cta.b64 %p1, [bar0], 0;");
    assert_eq!(
        required_version(&kernel_module(Version::new(8, 0), sm90, &relaxed)),
        Version::new(8, 6)
    );
}

#[test]
fn check_features_reports_try_wait_parity_under_sm_80() {
    let m = kernel_module(
        Version::new(7, 8),
        SmVersion::new(80),
        "add.s32 %r1, %r2, %r3;\nmbarrier.try_wait.parity.shared.b64 %p1, [bar0], 0;",
    );
    let errors = check_features(&m);
    assert_eq!(errors.len(), 1, "{errors:?}");
    let e = &errors[0];
    assert_eq!(e.feature.name, "mbarrier.try_wait.parity");
    assert_eq!(e.function, "pg_features");
    // The prelude declares eight variables; the add is statement 8, the try_wait statement 9.
    assert_eq!(e.stmt, Some(StmtId(9)));
    assert_eq!(
        (e.have_ptx, e.have_sm),
        (Version::new(7, 8), SmVersion::new(80))
    );
    assert_eq!(
        e.to_string(),
        "`mbarrier.try_wait.parity` requires .target sm_90 or higher (module targets sm_80; PTX ISA 9.7.13.15.16)"
    );
}

#[test]
fn check_features_reports_relaxed_under_8_0() {
    let m = kernel_module(
        Version::new(8, 0),
        SmVersion::new(90),
        "mbarrier.try_wait.parity.relaxed.cta.shared::cta.b64 %p1, [bar0], 0;",
    );
    let errors = check_features(&m);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(
        errors[0].to_string(),
        "`mbarrier.{arrive,arrive_drop,test_wait,try_wait}.relaxed` requires PTX ISA .version 8.6 or later (module has .version 8.0; PTX ISA 9.7.13.15.16)"
    );
}

#[test]
fn fp8_cvt_needs_a_later_version_on_sm_89_only() {
    let line = "cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;";
    let (sm89, sm90) = (SmVersion::new(89), SmVersion::new(90));
    assert_eq!(
        required_version(&kernel_module(Version::new(8, 8), sm89, line)),
        Version::new(8, 1)
    );
    assert_eq!(
        required_version(&kernel_module(Version::new(8, 8), sm90, line)),
        Version::new(7, 8)
    );
    assert!(check_features(&kernel_module(Version::new(7, 8), sm90, line)).is_empty());
    let errors = check_features(&kernel_module(Version::new(8, 0), sm89, line));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].version_too_low() && !errors[0].target_too_low());
    assert_eq!(
        errors[0].to_string(),
        "`cvt with .e4m3x2/.e5m2x2` requires PTX ISA .version 8.1 or later (module has .version 8.0; PTX ISA 9.7.9.21)"
    );
    assert_eq!(
        errors[0].feature.to_string(),
        "`cvt with .e4m3x2/.e5m2x2` (PTX ISA .version 7.8 (8.1 on sm_89), .target sm_89 or higher; PTX ISA 9.7.9.21)"
    );
}

#[test]
fn hopper_arch_specific_rows() {
    let find = |name: &str| {
        FEATURE_TABLE
            .iter()
            .find(|r| r.feature.name == name)
            .unwrap_or_else(|| panic!("no row {name}"))
            .feature
    };
    let on = |f: Feature, s: &str| f.available_on(SmVersion::parse(s).unwrap());
    // wgmma is sm_90a only: neither plain sm_90 nor the Blackwell targets have it.
    for name in [
        "wgmma.mma_async",
        "wgmma.fence",
        "wgmma.commit_group",
        "wgmma.wait_group",
    ] {
        let f = find(name);
        assert!(on(f, "sm_90a"), "{name}");
        assert!(
            !on(f, "sm_90") && !on(f, "sm_100a") && !on(f, "sm_120a"),
            "{name}"
        );
    }
    // tensormap.replace follows setmaxnreg's targets; tensormap.cp_fenceproxy is plain sm_90.
    let replace = find("tensormap.replace");
    assert_eq!(replace.target_text(), find("setmaxnreg").target_text());
    assert!(on(replace, "sm_100a") && on(replace, "sm_103f") && !on(replace, "sm_90"));
    assert!(on(find("tensormap.cp_fenceproxy"), "sm_90"));
    assert!(on(find("cp.async.bulk.tensor"), "sm_90"));
    assert!(!on(find("cp.async.bulk.tensor"), "sm_89"));
}
