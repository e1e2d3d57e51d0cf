//! Every command the documentation shows with its output runs, and prints that output: the
//! `console` blocks of `README.md`, the book's pages and the lints' explanations (which the
//! book's lint pages include and `phasegate lint --explain` prints).
//!
//! A block is a sequence of `$ COMMAND` lines (a line ending in ` \` continues on the next),
//! each followed by the output it must print, stdout then stderr. In the expected output a
//! line `...` stands for any number of lines and `[..]` within a line for any text. Commands
//! are `phasegate ARGS` (this package's binary) and `cargo run --example NAME` (the example's
//! binary, which `cargo test` builds); `NAME=VALUE` before the command sets an environment
//! variable. They run in a folder that holds links to the repository's files, so the paths
//! they name are the repository's and the files they write are thrown away.

#[path = "book_support/markdown.rs"]
mod markdown;

use markdown::{read, rel, root};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A command with the output it must print.
#[derive(Debug)]
struct Shown {
    /// Where it is shown: `FILE:LINE`.
    at: String,
    /// The command line, continuation lines joined.
    command: String,
    expected: Vec<String>,
}

/// The commands of one document's `console` blocks.
fn shown_in(doc: &Path) -> Vec<Shown> {
    let (blocks, _) = markdown::split(&read(doc));
    let mut out = Vec::new();
    for block in blocks.iter().filter(|b| b.lang() == "console") {
        let mut current: Option<Shown> = None;
        let mut continued = false;
        for (i, line) in block.lines.iter().enumerate() {
            if continued {
                let c = current.as_mut().expect("a command being continued");
                continued = line.trim_end().ends_with('\\');
                c.command.push(' ');
                c.command
                    .push_str(line.trim().trim_end_matches('\\').trim_end());
                continue;
            }
            if let Some(cmd) = line.strip_prefix("$ ") {
                out.extend(current.take());
                continued = cmd.trim_end().ends_with('\\');
                current = Some(Shown {
                    at: format!("{}:{}", rel(doc), block.line + i),
                    command: cmd.trim().trim_end_matches('\\').trim_end().to_string(),
                    expected: Vec::new(),
                });
            } else {
                match current.as_mut() {
                    Some(c) => c.expected.push(line.to_string()),
                    None => panic!(
                        "{}:{}: a console block starts with `$ COMMAND`",
                        rel(doc),
                        block.line + i
                    ),
                }
            }
        }
        out.extend(current);
    }
    out
}

/// Whether `line` matches `pattern`, where `[..]` stands for any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split("[..]").collect();
    if parts.len() == 1 {
        return pattern == line;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !line.starts_with(first) || !line[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &line[first.len()..line.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

/// Whether the output lines match the expected ones (`...` stands for any lines).
fn output_matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e.trim() == "..." => {
            (0..=actual.len()).any(|skip| output_matches(rest, &actual[skip..]))
        }
        Some((e, rest)) => actual.split_first().is_some_and(|(a, more)| {
            line_matches(e.trim_end(), a.trim_end()) && output_matches(rest, more)
        }),
    }
}

/// A folder whose entries link to the repository's top-level files and folders.
fn workdir() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(make_workdir).clone()
}

fn make_workdir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("phasegate-book-commands-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("work folder");
    for entry in std::fs::read_dir(root()).expect("repository root") {
        let entry = entry.expect("entry");
        let name = entry.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(entry.path(), dir.join(&name)).expect("link");
        #[cfg(not(unix))]
        panic!("the documentation's commands run on Unix");
    }
    dir
}

/// The example binary NAME that `cargo test` built beside this test.
fn example(name: &str) -> Result<PathBuf, String> {
    let exe = std::env::current_exe().expect("this test's path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/PROFILE/deps");
    let path = dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "no example binary {} (`cargo test` builds the examples; with a target filter, \
             `cargo build --examples` first)",
            path.display()
        ))
    }
}

/// Runs a command line; its output, stdout then stderr.
fn run(command: &str) -> Result<String, String> {
    if command.contains(['|', '>', '<', ';', '&', '`', '$', '\'', '"']) {
        return Err("shell syntax: the documentation's commands are plain argument lists".into());
    }
    let mut words = command.split_whitespace().peekable();
    let mut env = Vec::new();
    while let Some(w) = words.peek() {
        match w.split_once('=') {
            Some((k, v))
                if !k.is_empty() && k.chars().all(|c| c.is_ascii_uppercase() || c == '_') =>
            {
                env.push((k.to_string(), v.to_string()));
                words.next();
            }
            _ => break,
        }
    }
    let words: Vec<&str> = words.collect();
    let (program, args): (PathBuf, &[&str]) = match words.as_slice() {
        ["phasegate", args @ ..] => (PathBuf::from(env!("CARGO_BIN_EXE_phasegate")), args),
        ["cargo", "run", "--example", name] => (example(name)?, &[]),
        _ => {
            return Err(
                "only `phasegate ...` and `cargo run --example NAME` are run; show other commands in \
                 an `sh` block if CI runs them"
                    .into(),
            );
        }
    };
    let output = Command::new(program)
        .args(args)
        .envs(env)
        .current_dir(workdir())
        .output()
        .map_err(|e| format!("cannot run: {e}"))?;
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    Ok(text)
}

#[test]
fn the_documentations_commands_print_what_it_shows() {
    let mut all = Vec::new();
    for doc in markdown::documents() {
        all.extend(shown_in(&doc));
    }
    assert!(
        all.len() >= 20,
        "the README, the book and the lints show their commands: found {}",
        all.len()
    );
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = all
            .chunks(all.len().div_ceil(4))
            .map(|chunk| {
                s.spawn(move || {
                    let mut failures = Vec::new();
                    for shown in chunk {
                        match run(&shown.command) {
                            Err(e) => {
                                failures.push(format!("{}: `{}`: {e}", shown.at, shown.command))
                            }
                            Ok(text) => {
                                let actual: Vec<&str> = text.lines().collect();
                                if !output_matches(&shown.expected, &actual) {
                                    failures.push(format!(
                                        "{}: `{}` printed\n{text}\ninstead of\n{}\n",
                                        shown.at,
                                        shown.command,
                                        shown.expected.join("\n")
                                    ));
                                }
                            }
                        }
                    }
                    failures
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a runner thread"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} commands:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

#[test]
fn output_patterns() {
    let lines = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
    assert!(output_matches(&lines("a\n...\nd"), &["a", "b", "c", "d"]));
    assert!(output_matches(&lines("a\n...\nd"), &["a", "d"]));
    assert!(!output_matches(&lines("a\n...\nd"), &["a", "b"]));
    assert!(output_matches(&lines("x [..] z"), &["x y y z"]));
    assert!(!output_matches(&lines("x [..] z"), &["x y y"]));
    assert!(output_matches(&lines("[..]ok"), &["file: ok"]));
    assert!(!output_matches(&lines("a"), &["a", "b"]));
}

/// A command whose output differs from the page fails, with both texts.
#[test]
fn a_wrong_output_fails() {
    let dir = std::env::temp_dir().join(format!("phasegate-book-cmd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("page.md");
    std::fs::write(
        &page,
        "```console\n$ phasegate lint --explain \\\n    barrier_count\n# `barrier_count`\n...\n```\n\n\
         ```console\n$ phasegate lint --explain barrier_count\n# `mbarrier_uninit`\n...\n```\n",
    )
    .unwrap();
    let shown = shown_in(&page);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(shown.len(), 2);
    assert_eq!(shown[0].command, "phasegate lint --explain barrier_count");
    for (s, ok) in shown.iter().zip([true, false]) {
        let text = run(&s.command).expect("runs");
        let actual: Vec<&str> = text.lines().collect();
        assert_eq!(output_matches(&s.expected, &actual), ok, "{text}");
    }
    assert!(run("ls -l").is_err());
    assert!(run("phasegate lint x.ptx > out").is_err());
}
