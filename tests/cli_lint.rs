//! `phasegate lint`: text and JSON output, levels, exit status, on the nvcc fixtures and on
//! small PTX files written here.

use phasegate::cli::lint::run;

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn lint(list: &[&str]) -> (u8, String) {
    let mut out = String::new();
    let status = run(&args(list), &mut out);
    (status, out)
}

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/ptx/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A PTX file with `.loc` lines: thread 0 skips a `bar.sync 0` (line 23 of the PTX, line 7 of
/// `k.cu`), and every thread leaves early if `tid >= n` (a warning).
const BUGGY: &str = r#".version 8.0
.target sm_90
.address_size 64

.visible .entry divergent(
	.param .u64 divergent_param_0,
	.param .u32 divergent_param_1
)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<4>;

	.loc	1 4 5
	ld.param.u64 	%rd1, [divergent_param_0];
	ld.param.u32 	%r2, [divergent_param_1];
	mov.u32 	%r1, %tid.x;
	.loc	1 6 5
	setp.eq.s32 	%p1, %r1, 0;
	@%p1 bra 	$L__BB0_2;

	.loc	1 7 9
	bar.sync 	0;

$L__BB0_2:
	.loc	1 9 5
	setp.ge.u32 	%p2, %r1, %r2;
	@%p2 bra 	$L__BB0_4;
	.loc	1 10 5
	bar.sync 	0;
	st.global.u32 	[%rd1], %r1;

$L__BB0_4:
	ret;

}
	.file	1 "/src/k.cu"
"#;

fn temp_file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("phasegate-cli-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write temp file");
    path.to_string_lossy().into_owned()
}

#[test]
fn fixtures_are_clean_and_exit_0() {
    let files: Vec<String> = [
        "mbarrier_pipeline.ptx",
        "named_barriers.ptx",
        "block_reduce.ptx",
        "cluster_exchange.ptx",
        "bulk_store.ptx",
        "ampere_cp_async.ptx",
    ]
    .iter()
    .map(|f| fixture(f))
    .collect();
    let mut list = vec!["--deny", "all"];
    list.extend(files.iter().map(String::as_str));
    let (status, out) = lint(&list);
    assert_eq!(status, 0, "{out}");
    assert_eq!(
        out.lines()
            .filter(|l| l.ends_with(": ok (1 kernel)"))
            .count(),
        6,
        "{out}"
    );
}

#[test]
fn text_output_has_line_source_related_and_notes() {
    let path = temp_file("text.ptx", BUGGY);
    let (status, out) = lint(&[&path]);
    assert_eq!(status, 1, "{out}");
    assert!(
        out.contains(&format!("{path}:23:2: error[aligned_barrier_divergence]:")),
        "{out}"
    );
    assert!(
        out.contains("--> /src/k.cu:7:9 (in kernel `divergent`)"),
        "{out}"
    );
    // The PTX excerpt: the barrier with a caret under it; the branch, with its source line,
    // and the chain down to %tid.x marked on their lines.
    let lines: Vec<&str> = out.lines().collect();
    let marked = |number: &str, text: &str| -> &str {
        let i = lines
            .iter()
            .position(|l| l.starts_with(&format!("{number} |")) && l.contains(text))
            .unwrap_or_else(|| panic!("no excerpt line {number} `{text}`:\n{out}"));
        let column = lines[i].find(text).expect("text");
        let under = lines[i + 1];
        assert!(under.starts_with("   |"), "{out}");
        assert!(
            under[column..].starts_with(['^', '-']),
            "no mark under `{text}` at column {column}:\n{out}"
        );
        under
    };
    assert!(marked("23", "bar.sync").contains("^^^^"), "{out}");
    assert!(
        marked("20", "@%p1 bra").ends_with("the branch is here (/src/k.cu:6:5)"),
        "{out}"
    );
    assert!(
        marked("17", "mov.u32").contains("reads `%tid.x` at line 17"),
        "{out}"
    );
    assert!(out.contains("= note: PTX ISA §9.7.13.1"), "{out}");
    assert!(
        out.contains(&format!(
            "{path}:30:2: warning[divergent_exit_before_barrier]:"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("{path}: 1 error, 1 warning")),
        "{out}"
    );
}

#[test]
fn levels_from_the_command_line() {
    let path = temp_file("levels.ptx", BUGGY);
    let (status, out) = lint(&["--allow", "aligned_barrier_divergence", &path]);
    assert_eq!(status, 0, "{out}");
    assert!(!out.contains("aligned_barrier_divergence"), "{out}");
    let (status, out) = lint(&["--warn=aligned_barrier_divergence", &path]);
    assert_eq!(status, 0, "{out}");
    assert!(out.contains("warning[aligned_barrier_divergence]"), "{out}");
    let (status, out) = lint(&[
        "--allow",
        "all",
        "--deny",
        "divergent_exit_before_barrier",
        &path,
    ]);
    assert_eq!(status, 1, "{out}");
    assert!(
        out.contains("error[divergent_exit_before_barrier]")
            && !out.contains("aligned_barrier_divergence"),
        "{out}"
    );
}

#[test]
fn unknown_lint_and_bad_usage_exit_2() {
    let (status, out) = lint(&["--allow", "aligned_barier_divergence", "x.ptx"]);
    assert_eq!(status, 2);
    assert!(
        out.contains(
            "unknown lint `aligned_barier_divergence` (did you mean `aligned_barrier_divergence`?)"
        ),
        "{out}"
    );
    let (status, out) = lint(&[]);
    assert_eq!(status, 2);
    assert!(
        out.contains("required arguments were not provided")
            && out.contains("Usage: phasegate lint"),
        "{out}"
    );
    // clap's errors name the bad flag or value.
    let (status, out) = lint(&["--format", "xml", "x.ptx"]);
    assert_eq!(status, 2);
    assert!(out.contains("invalid value 'xml' for '--format"), "{out}");
    let (status, out) = lint(&["--frobnicate", "x.ptx"]);
    assert_eq!(status, 2);
    assert!(out.contains("unexpected argument '--frobnicate'"), "{out}");
    let (status, out) = lint(&["--deny"]);
    assert_eq!(status, 2);
    assert!(out.contains("'--deny <LINT>'"), "{out}");
}

#[test]
fn read_errors_exit_1_with_position() {
    let (status, out) = lint(&["/nonexistent/phasegate.ptx"]);
    assert_eq!(status, 1);
    assert!(
        out.starts_with("/nonexistent/phasegate.ptx: error: cannot read"),
        "{out}"
    );
    let path = temp_file(
        "bad.ptx",
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { bar.sync 0 }\n",
    );
    let (status, out) = lint(&[&path]);
    assert_eq!(status, 1);
    assert!(out.starts_with(&format!("{path}:4:")), "{out}");
}

#[test]
fn list_names_every_lint() {
    let (status, out) = lint(&["--list"]);
    assert_eq!(status, 0);
    for l in phasegate::lints::LINTS {
        assert!(out.contains(l.name), "{out}");
    }
}

// A small JSON reader, enough to check that every line is one well-formed object.
#[derive(Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }
    fn num(&self) -> Option<f64> {
        match self {
            Json::Num(n) => Some(*n),
            _ => None,
        }
    }
}

fn parse_json(text: &str) -> Result<Json, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut pos = 0;
    let v = value(&chars, &mut pos)?;
    skip_ws(&chars, &mut pos);
    if pos != chars.len() {
        return Err(format!("trailing text at {pos}"));
    }
    Ok(v)
}

fn skip_ws(c: &[char], p: &mut usize) {
    while *p < c.len() && c[*p].is_whitespace() {
        *p += 1;
    }
}

fn value(c: &[char], p: &mut usize) -> Result<Json, String> {
    skip_ws(c, p);
    match c.get(*p) {
        Some('{') => {
            *p += 1;
            let mut fields = Vec::new();
            skip_ws(c, p);
            if c.get(*p) == Some(&'}') {
                *p += 1;
                return Ok(Json::Obj(fields));
            }
            loop {
                skip_ws(c, p);
                let Json::Str(k) = value(c, p)? else {
                    return Err("key".into());
                };
                skip_ws(c, p);
                if c.get(*p) != Some(&':') {
                    return Err(format!("expected : at {p}"));
                }
                *p += 1;
                fields.push((k, value(c, p)?));
                skip_ws(c, p);
                match c.get(*p) {
                    Some(',') => *p += 1,
                    Some('}') => {
                        *p += 1;
                        return Ok(Json::Obj(fields));
                    }
                    _ => return Err(format!("expected , or }} at {p}")),
                }
            }
        }
        Some('[') => {
            *p += 1;
            let mut items = Vec::new();
            skip_ws(c, p);
            if c.get(*p) == Some(&']') {
                *p += 1;
                return Ok(Json::Arr(items));
            }
            loop {
                items.push(value(c, p)?);
                skip_ws(c, p);
                match c.get(*p) {
                    Some(',') => *p += 1,
                    Some(']') => {
                        *p += 1;
                        return Ok(Json::Arr(items));
                    }
                    _ => return Err(format!("expected , or ] at {p}")),
                }
            }
        }
        Some('"') => {
            *p += 1;
            let mut s = String::new();
            loop {
                match c.get(*p) {
                    Some('"') => {
                        *p += 1;
                        return Ok(Json::Str(s));
                    }
                    Some('\\') => {
                        *p += 1;
                        match c.get(*p) {
                            Some('n') => s.push('\n'),
                            Some('t') => s.push('\t'),
                            Some('r') => s.push('\r'),
                            Some('"') => s.push('"'),
                            Some('\\') => s.push('\\'),
                            Some('/') => s.push('/'),
                            Some('u') => {
                                let hex: String = c[*p + 1..*p + 5].iter().collect();
                                s.push(
                                    char::from_u32(
                                        u32::from_str_radix(&hex, 16).map_err(|e| e.to_string())?,
                                    )
                                    .ok_or("bad \\u")?,
                                );
                                *p += 4;
                            }
                            _ => return Err("bad escape".into()),
                        }
                        *p += 1;
                    }
                    Some(ch) if (*ch as u32) < 0x20 => {
                        return Err("control character in string".into());
                    }
                    Some(ch) => {
                        s.push(*ch);
                        *p += 1;
                    }
                    None => return Err("unterminated string".into()),
                }
            }
        }
        Some('n') if c[*p..].starts_with(&['n', 'u', 'l', 'l']) => {
            *p += 4;
            Ok(Json::Null)
        }
        Some('t') if c[*p..].starts_with(&['t', 'r', 'u', 'e']) => {
            *p += 4;
            Ok(Json::Bool(true))
        }
        Some('f') if c[*p..].starts_with(&['f', 'a', 'l', 's', 'e']) => {
            *p += 5;
            Ok(Json::Bool(false))
        }
        Some(ch) if ch.is_ascii_digit() || *ch == '-' => {
            let start = *p;
            while *p < c.len() && (c[*p].is_ascii_digit() || "-+.eE".contains(c[*p])) {
                *p += 1;
            }
            let t: String = c[start..*p].iter().collect();
            t.parse().map(Json::Num).map_err(|e| format!("{e}"))
        }
        other => Err(format!("unexpected {other:?} at {p}")),
    }
}

#[test]
fn json_lines_are_objects_with_the_fields() {
    let path = temp_file("json.ptx", BUGGY);
    let (status, out) = lint(&["--format", "json", &path]);
    assert_eq!(status, 1, "{out}");
    let objects: Vec<Json> = out
        .lines()
        .map(|l| parse_json(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(objects.len(), 2, "{out}");
    let first = &objects[0];
    assert_eq!(
        first.get("lint").and_then(Json::str),
        Some("aligned_barrier_divergence")
    );
    assert_eq!(first.get("level").and_then(Json::str), Some("deny"));
    assert_eq!(first.get("kernel").and_then(Json::str), Some("divergent"));
    assert_eq!(first.get("line").and_then(Json::num), Some(23.0));
    assert_eq!(
        first.get("source_file").and_then(Json::str),
        Some("/src/k.cu")
    );
    assert_eq!(first.get("source_line").and_then(Json::num), Some(7.0));
    assert!(
        first
            .get("message")
            .and_then(Json::str)
            .is_some_and(|m| m.contains("bar.sync"))
    );
    assert!(matches!(first.get("related"), Some(Json::Arr(r)) if !r.is_empty()));
    assert_eq!(objects[1].get("level").and_then(Json::str), Some("warn"));
    // Clean files print nothing in JSON.
    let (status, out) = lint(&["--format", "json", &fixture("named_barriers.ptx")]);
    assert_eq!((status, out.as_str()), (0, ""));
    // Every object has the fields of the book's JSON page (book/src/analyzer/formats.md), in its order; read errors too.
    let keys = |o: &Json| match o {
        Json::Obj(fields) => fields.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(),
        _ => panic!("not an object"),
    };
    let documented = [
        "file",
        "lint",
        "level",
        "kernel",
        "line",
        "column",
        "message",
        "source_file",
        "source_line",
        "related",
        "notes",
    ];
    // A finding proven by a run ends with its `witness`.
    let mut first_keys = keys(first);
    if first_keys.last().map(String::as_str) == Some("witness") {
        first_keys.pop();
    }
    assert_eq!(first_keys, documented);
    let (status, out) = lint(&["--format", "json", "/nonexistent/phasegate.ptx"]);
    assert_eq!(status, 1, "{out}");
    let read = parse_json(out.trim_end()).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(keys(&read), documented);
    assert_eq!(read.get("lint").and_then(Json::str), Some("read"));
    assert_eq!(read.get("kernel"), Some(&Json::Null));
    let doc = include_str!("../book/src/analyzer/formats.md");
    for key in documented {
        assert!(
            doc.contains(&format!("| `{key}` |")),
            "{key} is not documented"
        );
    }
}

/// The corpus through the command line: one JSON object per finding, the lints of each file
/// equal to its `// expect:` label, exit status 1 exactly when a deny-level lint is expected.
#[test]
fn corpus_verdicts_through_the_cli() {
    let dir = format!("{}/tests/corpus", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 40);
    for name in names {
        let cu = std::fs::read_to_string(format!("{dir}/{name}.cu")).expect("read .cu");
        let label = cu
            .lines()
            .find_map(|l| l.trim().strip_prefix("// expect:"))
            .expect("label")
            .trim()
            .to_string();
        let mut expected: Vec<String> = label
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| s != "clean")
            .collect();
        expected.sort();
        let ptx = format!("{dir}/ptx/{name}.ptx");
        let (status, out) = lint(&["--format", "json", &ptx]);
        let mut got: Vec<String> = out
            .lines()
            .map(|l| parse_json(l).unwrap_or_else(|e| panic!("{name}: {e}: {l}")))
            .map(|o| {
                assert_eq!(
                    o.get("kernel").and_then(Json::str),
                    Some(name.as_str()),
                    "{name}"
                );
                assert!(
                    o.get("source_file")
                        .and_then(Json::str)
                        .is_some_and(|f| f.contains("tests/corpus/")),
                    "{name}: {o:?}"
                );
                o.get("lint").and_then(Json::str).expect("lint").to_string()
            })
            .collect();
        got.sort();
        got.dedup();
        assert_eq!(got, expected, "{name}: {out}");
        // A deny-level lint is denied, or (the corpus test names the one kernel) a warning
        // that says it is unproven and why; the exit status follows the levels printed.
        let objects: Vec<Json> = out.lines().filter_map(|l| parse_json(l).ok()).collect();
        for l in &expected {
            let deny_lint = phasegate::lints::lints::find(l)
                .is_some_and(|i| i.default == phasegate::lints::Level::Deny);
            let printed = |o: &&Json| o.get("lint").and_then(Json::str) == Some(l.as_str());
            let level_ok = |o: &Json| match o.get("level").and_then(Json::str) {
                Some("deny") => true,
                Some("warn") => {
                    o.get("message")
                        .and_then(Json::str)
                        .is_some_and(|m| m.ends_with("(unproven)"))
                        && out.contains("unproven: ")
                }
                _ => false,
            };
            assert!(
                !deny_lint || objects.iter().filter(printed).all(level_ok),
                "{name}: {l} neither denied nor an unproven warning: {out}"
            );
        }
        let denied = objects
            .iter()
            .any(|o| o.get("level").and_then(Json::str) == Some("deny"));
        assert_eq!(status, u8::from(denied), "{name}: {out}");
    }
}

/// A function whose loops nest past the analyzer's limit is reported, not analyzed: an error in
/// both formats and exit status 1, even with every lint allowed (found while fuzzing; see
/// book/src/reliability/README.md).
#[test]
fn functions_over_the_analysis_limit_are_errors() {
    let depth = 3000;
    let mut body = String::new();
    for i in 0..depth {
        body += &format!("H{i}:\nadd.u32 %r1, %r1, 1;\n");
    }
    for i in (0..depth).rev() {
        body += &format!("setp.lt.u32 %p1, %r1, {i};\n@%p1 bra H{i};\n");
    }
    let text = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry big()\n{{\n.reg .pred %p<2>;\n.reg .b32 %r<4>;\n{body}ret;\n}}\n"
    );
    let path = temp_file("over_limit.ptx", &text);
    let (status, out) = lint(&["--allow", "all", &path]);
    assert_eq!(status, 1, "{out}");
    let expected = format!(
        "{path}:6:1: error[analysis_limit]: the loops of `big` nest too deeply to analyze: at least "
    );
    assert!(out.starts_with(&expected), "{out}");
    let (status, out) = lint(&["--format", "json", &path]);
    assert_eq!(status, 1, "{out}");
    let object = parse_json(out.trim_end()).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(
        object.get("lint").and_then(Json::str),
        Some("analysis_limit")
    );
    assert_eq!(object.get("level").and_then(Json::str), Some("deny"));
    assert_eq!(object.get("kernel").and_then(Json::str), Some("big"));
}

/// `--format sarif`: one SARIF 2.1.0 log for all the files, valid against the OASIS schema
/// (tests/schemas/), with a rule per lint and the findings, their related places and the read
/// errors as results.
#[test]
fn sarif_log_is_valid_sarif_2_1_0() {
    use serde_json::Value;
    let schema: Value =
        serde_json::from_str(include_str!("schemas/sarif-schema-2.1.0.json")).expect("schema");
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles");
    let path = temp_file("sarif buggy.ptx", BUGGY);
    let clean = fixture("named_barriers.ptx");
    let (status, out) = lint(&[
        "--format",
        "sarif",
        &path,
        "/nonexistent/phasegate.ptx",
        &clean,
    ]);
    assert_eq!(status, 1, "{out}");
    let log: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{out}");
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "phasegate");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));

    // One rule per lint, with its summary and default level.
    let rules = driver["rules"].as_array().expect("rules");
    for l in phasegate::lints::LINTS {
        let rule = rules
            .iter()
            .find(|r| r["id"] == l.name)
            .unwrap_or_else(|| panic!("no rule {}", l.name));
        assert_eq!(rule["shortDescription"]["text"], l.summary);
        let level = match l.default {
            phasegate::lints::Level::Deny => "error",
            phasegate::lints::Level::Warn => "warning",
            phasegate::lints::Level::Allow => "none",
        };
        assert_eq!(rule["defaultConfiguration"]["level"], level, "{}", l.name);
        assert!(rule["help"]["text"].as_str().is_some_and(|t| !t.is_empty()));
    }
    // The spec section the findings' notes cite.
    let abd = rules
        .iter()
        .find(|r| r["id"] == "aligned_barrier_divergence")
        .expect("rule");
    assert_eq!(abd["properties"]["ptxIsaSections"][0], "9.7.13.1");
    assert!(
        abd["fullDescription"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("PTX ISA §9.7.13.1"))
    );

    // The findings: the error and the warning of BUGGY, then the read error.
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 3, "{out}");
    let (first, second, read) = (&results[0], &results[1], &results[2]);
    assert_eq!(first["ruleId"], "aligned_barrier_divergence");
    assert_eq!(first["level"], "error");
    assert_eq!(
        rules[first["ruleIndex"].as_u64().expect("index") as usize]["id"],
        "aligned_barrier_divergence"
    );
    assert!(
        first["message"]["text"]
            .as_str()
            .is_some_and(|m| m.contains("bar.sync"))
    );
    let location = &first["locations"][0]["physicalLocation"];
    let uri = location["artifactLocation"]["uri"].as_str().expect("uri");
    assert!(
        uri.starts_with("file:///") && uri.ends_with("/sarif%20buggy.ptx"),
        "{uri}"
    );
    assert_eq!(location["region"]["startLine"], 23);
    assert_eq!(location["region"]["startColumn"], 2);
    assert_eq!(
        first["locations"][0]["logicalLocations"][0]["name"],
        "divergent"
    );
    // The why-chain: the branch (line 20) and the read of %tid.x (line 17), and the CUDA line.
    let related = first["relatedLocations"].as_array().expect("related");
    let at = |line: u64| {
        related
            .iter()
            .find(|r| r["physicalLocation"]["region"]["startLine"] == line)
            .unwrap_or_else(|| panic!("no related location at line {line}: {out}"))
    };
    assert_eq!(
        at(20)["message"]["text"],
        "the branch is here (/src/k.cu:6:5)"
    );
    assert!(
        at(17)["message"]["text"]
            .as_str()
            .is_some_and(|m| m.contains("reads `%tid.x`"))
    );
    assert!(related.iter().any(|r| {
        r["physicalLocation"]["artifactLocation"]["uri"] == "file:///src/k.cu"
            && r["physicalLocation"]["region"]["startLine"] == 7
    }));
    // The witness: a code flow whose last step is the bar.sync thread 0 skips (line 23 of the
    // file) or the one the others wait at, with the replay string.
    let flow = &first["codeFlows"][0];
    let steps = flow["threadFlows"][0]["locations"]
        .as_array()
        .unwrap_or_else(|| panic!("no code flow: {out}"));
    assert!(!steps.is_empty(), "{out}");
    let orders: Vec<u64> = steps
        .iter()
        .map(|s| s["executionOrder"].as_u64().expect("order"))
        .collect();
    assert!(orders.windows(2).all(|w| w[0] < w[1]), "{orders:?}");
    assert!(
        steps
            .iter()
            .any(|s| s["location"]["physicalLocation"]["region"]["startLine"] == 23),
        "{out}"
    );
    assert!(
        flow["properties"]["replay"]
            .as_str()
            .is_some_and(|r| r.contains("schedule=")),
        "{out}"
    );
    assert_eq!(second["ruleId"], "divergent_exit_before_barrier");
    assert_eq!(second["level"], "warning");
    assert_eq!(read["ruleId"], "read");
    assert_eq!(read["level"], "error");
    assert_eq!(
        read["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "file:///nonexistent/phasegate.ptx"
    );

    // The schema does catch a malformed log.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!validator.is_valid(&broken));

    // A clean run is a valid log with no results.
    let (status, out) = lint(&["--format", "sarif", &clean]);
    assert_eq!(status, 0, "{out}");
    let log: Value = serde_json::from_str(&out).expect("JSON");
    assert!(validator.is_valid(&log), "{out}");
    assert_eq!(log["runs"][0]["results"], Value::Array(Vec::new()));
}

/// `--protocol`: what the analyzer believes a kernel does — the launch of its runs, the roles
/// with their barrier operations (loops folded), and what the runs found.
#[test]
fn protocol_prints_roles_loops_and_findings() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/corpus/ptx/md_last_tile_unsignalled.ptx"
    );
    let (status, out) = lint(&["--protocol", path]);
    assert_eq!(status, 0, "{out}");
    assert!(out.contains("kernel `md_last_tile_unsignalled`"), "{out}");
    assert!(out.contains("launch: block 160 (declared)"), "{out}");
    // The producer warp and the consumer warps are two roles; the consumers' loop is folded.
    assert!(out.contains("role: warp 0\n"), "{out}");
    assert!(out.contains("role: warps 1-4\n"), "{out}");
    assert!(out.contains(" times:\n"), "{out}");
    assert!(out.contains("mbarrier.try_wait.parity"), "{out}");
    assert!(out.contains("found: [mbarrier_deadlock]"), "{out}");
    // It conflicts with an output format.
    let (status, out) = lint(&["--protocol", "--format", "json", path]);
    assert_eq!(status, 2, "{out}");
}

/// `--explain LINT` prints the lint's explanation, the text of `lints/explain/LINT.md` (the
/// book's page on the lint); an unknown name is a usage error that names the known lints.
#[test]
fn explain_prints_the_lints_page() {
    for l in phasegate::lints::LINTS {
        let (status, out) = lint(&["--explain", l.name]);
        assert_eq!(status, 0, "{out}");
        let path = format!("{}/lints/explain/{}.md", env!("CARGO_MANIFEST_DIR"), l.name);
        let page = std::fs::read_to_string(&path).expect("the lint's explanation");
        assert_eq!(out, page, "{}", l.name);
        assert!(out.starts_with(&format!("# `{}`\n", l.name)), "{out}");
        assert!(out.contains("## What it cannot decide"), "{out}");
    }
    let (status, out) = lint(&["--explain", "mbarrier_unint"]);
    assert_eq!(status, 2, "{out}");
    assert!(
        out.starts_with("error: unknown lint `mbarrier_unint` (did you mean `mbarrier_uninit`?)\n"),
        "{out}"
    );
    for l in phasegate::lints::LINTS {
        assert!(out.contains(l.name), "{} missing from:\n{out}", l.name);
    }
    let (status, out) = lint(&["--explain", "nothing_like_a_lint"]);
    assert_eq!(status, 2, "{out}");
    assert!(
        out.starts_with("error: unknown lint `nothing_like_a_lint`\nthe lints are: "),
        "{out}"
    );
    // With files it is a usage error (clap's), not a lint run.
    let (status, out) = lint(&["--explain", "barrier_count", "x.ptx"]);
    assert_eq!(status, 2, "{out}");
    assert!(out.contains("cannot be used with"), "{out}");
}
