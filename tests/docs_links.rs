//! The documentation's references hold: in `README.md` and the book (`book/src`, with the
//! lints' explanations it includes), every relative link names a file or folder that exists
//! (and a `#anchor`, a heading of its page), every repository path quoted in code exists,
//! every `{{#include}}` names a file and anchor that exist, the Rust shown is included from
//! files that `cargo test` builds, every page is in `SUMMARY.md`, every lint has its page, and
//! the shell commands shown are the ones CI runs. (`tests/book_commands.rs` runs the commands
//! whose output the pages show.)

#[path = "book_support/markdown.rs"]
mod markdown;

use markdown::{Block, documents, read, rel, root};
use std::path::{Path, PathBuf};

/// The book's pages.
fn pages() -> Vec<PathBuf> {
    markdown::markdown_files(&root().join("book/src"))
}

/// Fails with every problem found, one a line.
fn report(what: &str, problems: Vec<String>) {
    assert!(problems.is_empty(), "{what}:\n{}", problems.join("\n"));
}

/// The text of a document as it is read for links and headings: a book page with its `.md`
/// includes expanded, anything else as it is.
fn shown(path: &Path) -> String {
    if path.starts_with(root().join("book/src")) {
        markdown::expanded(path)
    } else {
        read(path)
    }
}

/// Whether `target` (a link target, without its `#anchor`) leaves the repository's files: a
/// URL or an e-mail address.
fn external(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:")
}

/// The problems with the links of one document (`None` if all resolve).
fn link_problems(doc: &Path) -> Vec<String> {
    let text = shown(doc);
    let dir = doc.parent().expect("a document's folder");
    let mut out = Vec::new();
    for (line, target) in markdown::links(&text) {
        if target.is_empty() {
            out.push(format!("{}:{line}: an empty link", rel(doc)));
            continue;
        }
        if external(&target) {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let file = if path.is_empty() {
            doc.to_path_buf()
        } else if path.starts_with('/') {
            out.push(format!(
                "{}:{line}: `{target}` is absolute; links are relative to the page",
                rel(doc)
            ));
            continue;
        } else {
            dir.join(path)
        };
        if !file.exists() {
            out.push(format!(
                "{}:{line}: `{target}`: no file {}",
                rel(doc),
                rel(&file)
            ));
            continue;
        }
        if let Some(anchor) = anchor {
            if file.extension().is_none_or(|e| e != "md") {
                out.push(format!(
                    "{}:{line}: `{target}`: an anchor into a file that is not Markdown",
                    rel(doc)
                ));
                continue;
            }
            let file = file.canonicalize().expect("an existing file");
            let anchors = markdown::anchors(&shown(&file));
            if !anchors.iter().any(|a| a == anchor) {
                out.push(format!(
                    "{}:{line}: `{target}`: {} has no heading `#{anchor}` (it has: {})",
                    rel(doc),
                    rel(&file),
                    anchors.join(", ")
                ));
            }
        }
    }
    out
}

#[test]
fn links_resolve() {
    let mut problems = Vec::new();
    for doc in std::iter::once(root().join("README.md")).chain(pages()) {
        problems.extend(link_problems(&doc));
    }
    report("links that do not resolve", problems);
}

/// The checker itself finds a broken link, a broken anchor and a link to a file that exists.
#[test]
fn the_link_check_finds_broken_links() {
    let dir = std::env::temp_dir().join(format!("phasegate-docs-links-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("other.md"),
        "# Other page\n\n## A `code` heading\n",
    )
    .unwrap();
    let page = dir.join("page.md");
    std::fs::write(
        &page,
        "# Page\n\n[ok](other.md), [ok too](other.md#a-code-heading), [here](#page),\n\
         [missing](nothing.md), [bad anchor](other.md#nowhere), `[not a link](in code)`,\n\
         ```text\n[not a link](in a block)\n```\n[web](https://example.org/x)\n",
    )
    .unwrap();
    let problems = link_problems(&page);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(
        problems[0].contains("`nothing.md`: no file"),
        "{}",
        problems[0]
    );
    assert!(
        problems[1].contains("no heading `#nowhere`"),
        "{}",
        problems[1]
    );
}

/// Whether a code span reads as a path of the repository: `examples/scale.rs`,
/// `tests/corpus/ptx/named_deadlock.ptx`, `tools/gpu-witness/` (not `NAME.ptx`, `FILE`, URLs).
fn repository_path(span: &str) -> Option<&str> {
    let top = [
        "benches", "book", "docs", "examples", "fuzz", "lints", "macros", "ptx", "python",
        "runtime", "sim", "src", "tests", "tools", "ui-tests", ".ci",
    ];
    let path = span.trim_end_matches([',', '.', ';', ':']);
    let first = path.split('/').next()?;
    if !path.contains('/') || !top.contains(&first) {
        return None;
    }
    let ok = path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c));
    // Placeholders (`tests/realworld/NAME/`, `.device/NAME.ptx`) stand for a name.
    let placeholder = path.split('/').any(|seg| {
        let stem = seg.split('.').next().unwrap_or_default();
        [
            "NAME", "FILE", "DIR", "OUT", "LINT", "ENTRY", "KIND", "TARGET",
        ]
        .contains(&stem)
    });
    (ok && !placeholder && !path.contains("..")).then_some(path)
}

#[test]
fn repository_paths_in_code_exist() {
    let mut problems = Vec::new();
    for doc in documents() {
        let (_, prose) = markdown::split(&read(&doc));
        for (i, line) in prose.iter().enumerate() {
            for span in markdown::code_spans(line) {
                let Some(path) = repository_path(&span) else {
                    continue;
                };
                if !root().join(path).exists() {
                    problems.push(format!("{}:{}: `{path}` does not exist", rel(&doc), i + 1));
                }
            }
        }
    }
    report(
        "repository paths quoted in the documentation that do not exist",
        problems,
    );
}

#[test]
fn the_path_check_reads_paths_and_skips_placeholders() {
    assert_eq!(
        repository_path("examples/scale.rs"),
        Some("examples/scale.rs")
    );
    assert_eq!(
        repository_path("tools/gpu-witness/"),
        Some("tools/gpu-witness/")
    );
    assert_eq!(
        repository_path("docs/performance.md,"),
        Some("docs/performance.md")
    );
    assert_eq!(repository_path("tests/realworld/NAME/"), None);
    assert_eq!(repository_path("NAME.ptx"), None);
    assert_eq!(repository_path("phasegate lint FILE"), None);
    assert_eq!(repository_path("a/b"), None);
}

#[test]
fn includes_resolve() {
    let mut problems = Vec::new();
    for page in pages() {
        let text = read(&page);
        let dir = page.parent().expect("a page's folder");
        for (line, inc) in markdown::includes(&text) {
            let file = dir.join(&inc.path);
            if !file.is_file() {
                problems.push(format!("{}:{line}: no file {}", rel(&page), inc.path));
                continue;
            }
            if let Some(anchor) = &inc.anchor
                && markdown::anchor_text(&read(&file), anchor).is_none()
            {
                problems.push(format!(
                    "{}:{line}: {} has no `ANCHOR: {anchor}` ... `ANCHOR_END: {anchor}`",
                    rel(&page),
                    inc.path
                ));
            }
        }
    }
    report("includes that mdbook would leave empty", problems);
}

#[test]
fn anchors_are_read_as_mdbook_reads_them() {
    let file =
        "a\n// ANCHOR: all\nb\n// ANCHOR: part\nc\n// ANCHOR_END: part\nd\n// ANCHOR_END: all\n";
    assert_eq!(
        markdown::anchor_text(file, "all").as_deref(),
        Some("b\nc\nd")
    );
    assert_eq!(markdown::anchor_text(file, "part").as_deref(), Some("c"));
    assert_eq!(markdown::anchor_text(file, "none"), None);
    let incs = markdown::includes("{{#include ../../examples/scale.rs:kernel}}\n{{#include x.md}}");
    assert_eq!(incs[0].1.anchor.as_deref(), Some("kernel"));
    assert_eq!(incs[1].1.anchor, None);
}

/// Whether a block holds Rust.
fn is_rust(block: &Block) -> bool {
    block.lang() == "rust"
}

/// The files whose Rust `cargo test` builds: examples, tests (integration tests and trybuild's
/// UI cases) and the crates' sources.
fn built_by_cargo_test(path: &Path) -> bool {
    let r = rel(path);
    [
        "examples/",
        "tests/",
        "ui-tests/",
        "src/",
        "runtime/src/",
        "lints/src/",
        "ptx/src/",
        "sim/src/",
    ]
    .iter()
    .any(|p| r.starts_with(p))
        && r.ends_with(".rs")
}

#[test]
fn rust_in_the_book_is_included_from_built_files() {
    let mut problems = Vec::new();
    for page in pages() {
        let (blocks, _) = markdown::split(&read(&page));
        let dir = page.parent().expect("a page's folder");
        for block in blocks.iter().filter(|b| is_rust(b)) {
            let content: Vec<&String> = block
                .lines
                .iter()
                .filter(|l| !l.trim().is_empty())
                .collect();
            if content.is_empty() {
                problems.push(format!(
                    "{}:{}: an empty Rust block",
                    rel(&page),
                    block.line
                ));
            }
            for line in content {
                let incs = markdown::includes(line);
                let Some((_, inc)) = incs.first().filter(|_| line.trim().starts_with("{{#")) else {
                    problems.push(format!(
                        "{}:{}: Rust written on the page (`{}`): include it from a file that \
                         `cargo test` builds",
                        rel(&page),
                        block.line,
                        line.trim()
                    ));
                    break;
                };
                let file = dir.join(&inc.path);
                if let Ok(file) = file.canonicalize()
                    && !built_by_cargo_test(&file)
                {
                    problems.push(format!(
                        "{}:{}: {} is not a file `cargo test` builds",
                        rel(&page),
                        block.line,
                        inc.path
                    ));
                }
            }
        }
    }
    for explain in markdown::markdown_files(&root().join("lints/explain")) {
        let (blocks, _) = markdown::split(&read(&explain));
        for block in blocks.iter().filter(|b| is_rust(b) || b.lang().is_empty()) {
            problems.push(format!(
                "{}:{}: a Rust (or unmarked) block in a lint's explanation, which rustdoc would \
                 test as Rust and `--explain` cannot include",
                rel(&explain),
                block.line
            ));
        }
    }
    report("Rust on the book's pages that no test builds", problems);
}

/// Every anchored region of the examples, by file and name.
fn example_regions() -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(root().join("examples")).expect("examples/") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = read(&path);
        for line in text.lines() {
            if let Some((_, name)) = line.split_once("ANCHOR:") {
                let name = name.trim();
                if let Some(region) = markdown::anchor_text(&text, name) {
                    out.push((rel(&path), name.to_string(), region));
                }
            }
        }
    }
    out
}

/// The README cannot include files (GitHub shows it as it is), so its Rust must be, line for
/// line, an anchored region of an example.
#[test]
fn the_readmes_rust_is_an_example() {
    let regions = example_regions();
    let (blocks, _) = markdown::split(&read(&root().join("README.md")));
    let rust: Vec<&Block> = blocks.iter().filter(|b| is_rust(b)).collect();
    assert!(!rust.is_empty(), "the README shows a kernel");
    for block in rust {
        let text = block.lines.join("\n");
        assert!(
            regions.iter().any(|(_, _, r)| *r == text),
            "README.md:{}: this Rust is no anchored region of examples/*.rs:\n{text}",
            block.line
        );
    }
}

/// The chapters `SUMMARY.md` lists.
fn summary_pages() -> Vec<PathBuf> {
    let src = root().join("book/src");
    markdown::links(&read(&src.join("SUMMARY.md")))
        .into_iter()
        .map(|(_, t)| src.join(t))
        .collect()
}

#[test]
fn every_page_is_in_the_summary() {
    let listed = summary_pages();
    let mut problems = Vec::new();
    for page in pages() {
        if page.file_name().is_some_and(|n| n == "SUMMARY.md") {
            continue;
        }
        if !listed.contains(&page) {
            problems.push(format!("{} is not in book/src/SUMMARY.md", rel(&page)));
        }
    }
    for page in &listed {
        if !page.is_file() {
            problems.push(format!(
                "SUMMARY.md lists {}, which does not exist",
                rel(page)
            ));
        }
    }
    report("the book's pages and its summary disagree", problems);
}

/// Each lint's page is its explanation (one text for `--explain`, rustdoc and the book), whose
/// level is the lint's and which has the sections a lint page needs, a real finding among them.
#[test]
fn every_lint_has_its_page() {
    let mut problems = Vec::new();
    for lint in phasegate::lints::LINTS {
        let name = lint.name;
        let page = root().join(format!("book/src/analyzer/lints/{name}.md"));
        let want = format!("{{{{#include ../../../../lints/explain/{name}.md}}}}");
        if !page.is_file() || read(&page).trim() != want {
            problems.push(format!("{} must be `{want}` alone", rel(&page)));
        }
        let explain = root().join(format!("lints/explain/{name}.md"));
        let text = read(&explain);
        if text != lint.explanation {
            problems.push(format!(
                "{name}: LintInfo::explanation is not {}",
                rel(&explain)
            ));
        }
        if !text.starts_with(&format!("# `{name}`\n")) {
            problems.push(format!("{}: the title is not `# `{name}``", rel(&explain)));
        }
        let level = format!("Level: **{}** by default.", lint.default.name());
        if !text.contains(&level) {
            problems.push(format!("{}: does not say `{level}`", rel(&explain)));
        }
        for section in [
            "## What it does",
            "## Why is this bad",
            "## Example",
            "## A real finding",
            "## Use instead",
            "## What it cannot decide",
        ] {
            if !text.lines().any(|l| l == section) {
                problems.push(format!("{}: no `{section}`", rel(&explain)));
            }
        }
        let (blocks, _) = markdown::split(&text);
        let finding = blocks.iter().any(|b| {
            b.lang() == "console"
                && b.lines
                    .first()
                    .is_some_and(|l| l.starts_with("$ phasegate lint "))
        });
        if !finding {
            problems.push(format!(
                "{}: the real finding is a `console` block of `$ phasegate lint FILE` and its output",
                rel(&explain)
            ));
        }
    }
    report("lint pages", problems);
}

/// The lines of `.ci/run` and `python/ci.sh`, and the README's set-up commands.
fn ci_commands() -> Vec<String> {
    let mut out = Vec::new();
    for f in [".ci/run", "python/ci.sh"] {
        out.extend(
            read(&root().join(f))
                .lines()
                .map(|l| l.trim().to_string())
                .filter(|l| !l.is_empty() && !l.starts_with('#')),
        );
    }
    out
}

/// The book's chapters that record measurements made on the GPU machine (or with nightly
/// fuzzing tools) with the commands that made them, dated: CI has no GPU, so it cannot run
/// them, and `shell_commands_are_ci_commands` only checks that the repository's scripts and
/// files they name exist. The Python chapter shows the
/// package's install commands (`python/README.md`, what `python/ci.sh` does in a virtual
/// environment).
const RECORDS: [&str; 5] = [
    "book/src/performance/",
    "book/src/gpu/",
    "book/src/corpus/",
    "book/src/reliability/",
    "book/src/python.md",
];

#[test]
fn shell_commands_are_ci_commands() {
    let ci = ci_commands();
    let readme = read(&root().join("README.md"));
    let (readme_blocks, _) = markdown::split(&readme);
    let setup = readme_blocks.first().expect("the README's set-up commands");
    assert_eq!(
        setup.lang(),
        "sh",
        "the README starts with its set-up commands"
    );
    assert_eq!(
        setup.lines,
        [
            "cargo run --example transpose",
            "python3 -m pip install nvidia-cuda-nvcc-cu12==12.9.86 && cargo test --workspace && bash python/ci.sh",
        ],
        "the README's two set-up commands"
    );
    // `.ci/run` runs the same line, with pip told to be quiet.
    let quiet = |l: &str| {
        l.replace(" --quiet", "")
            .replace(" --disable-pip-version-check", "")
    };
    assert!(
        ci.iter().any(|l| quiet(l) == setup.lines[1]),
        ".ci/run runs the README's test command"
    );
    let mut problems = Vec::new();
    for doc in std::iter::once(root().join("README.md")).chain(pages()) {
        let r = rel(&doc);
        let (blocks, _) = markdown::split(&shown(&doc));
        if RECORDS.iter().any(|p| r.starts_with(p)) {
            // Records: the scripts and files their commands name exist.
            for block in blocks
                .iter()
                .filter(|b| matches!(b.lang(), "sh" | "bash" | "shell"))
            {
                for word in block.lines.iter().flat_map(|l| l.split_whitespace()) {
                    if let Some(path) = repository_path(word)
                        && !root().join(path).exists()
                    {
                        problems.push(format!("{r}:{}: `{path}` does not exist", block.line));
                    }
                }
            }
            continue;
        }
        for block in blocks
            .iter()
            .filter(|b| matches!(b.lang(), "sh" | "bash" | "shell"))
        {
            for line in &block.lines {
                let command = line.split(" # ").next().unwrap_or_default().trim();
                if command.is_empty() || command.starts_with('#') {
                    continue;
                }
                let known = ci.iter().any(|l| quiet(l).contains(command))
                    || setup.lines.iter().any(|l| l == command);
                if !known {
                    problems.push(format!(
                        "{r}:{}: `{command}` is no command CI runs: show it in a `console` block \
                         with its output (tests/book_commands.rs runs it)",
                        block.line
                    ));
                }
            }
        }
    }
    report("shell commands that CI does not run", problems);
}

/// `cargo bench --bench NAME` in the performance tables names a bench of `Cargo.toml`.
#[test]
fn bench_commands_name_benches() {
    let manifest = read(&root().join("Cargo.toml"));
    let mut problems = Vec::new();
    for doc in documents() {
        let (_, prose) = markdown::split(&read(&doc));
        for (i, line) in prose.iter().enumerate() {
            for span in markdown::code_spans(line) {
                let Some(rest) = span.strip_prefix("cargo bench --bench ") else {
                    continue;
                };
                let name = rest.split_whitespace().next().unwrap_or_default();
                if !manifest.contains(&format!("[[bench]]\nname = \"{name}\"")) {
                    problems.push(format!("{}:{}: no bench `{name}`", rel(&doc), i + 1));
                }
            }
        }
    }
    report("bench commands", problems);
}
