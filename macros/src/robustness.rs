//! The expansion never panics: whatever tokens `#[kernel]` is given, it returns either a kernel
//! whose PTX ptxas assembles cleanly or spanned errors, never an internal error.
//!
//! The inputs are mutations of real kernels (tokens deleted, duplicated, swapped, replaced by
//! tokens from a pool of keywords, operators, literals and the language's own names) and
//! random token soups. Expansion runs outside the compiler here, with proc-macro2's fallback
//! spans, exactly as the compiler would call it.

use crate::expand;
use proc_macro2::{TokenStream, TokenTree};
use proptest::prelude::*;
use std::str::FromStr;

/// Kernels of the language, the seeds of the mutations.
const SEEDS: &[(&str, &str)] = &[
    (
        "",
        "fn scale(x: &[f32], y: &mut [f32], a: f32, n: u32) { let i = block_idx_x() * block_dim_x() + thread_idx_x(); if i < n { y[i] = a * x[i]; } }",
    ),
    (
        "",
        "fn dot(x: &[f32], y: &[f32], partial: &mut [f32], n: u32) { let mut cache = shared_array::<f32, 256>(); let tid = thread_idx_x(); let mut sum = 0.0f32; for i in (tid..n).step_by(block_dim_x()) { sum = x[i].mul_add(y[i], sum); } cache[tid] = sum; sync_threads(); let mut half = 128u32; while half > 0 { if tid < half { cache[tid] = cache[tid] + cache[tid + half]; } sync_threads(); half /= 2; } if tid == 0 { partial[block_idx_x()] = cache[0]; } }",
    ),
    (
        "target = \"sm_90\"",
        "fn bars(out: &mut [u32], n: u32) { let bar = mbarrier().init(thread_idx_x() == 0, block_dim_x()).publish(); let t = bar.arrive(); let bar = t.wait(); sync_threads(); let bar = if thread_idx_x() == 0 { bar.arrive_count(block_dim_x()).wait_test() } else { bar.observe() }; let r = reduction_barrier::<1, 64>(); out[0] = r.popc(!(lane_id() > 3)) + bar.arrive().pending_count() + n; named_barrier::<2, 64>().sync(); }",
    ),
    (
        "target = \"sm_90a\"",
        "fn pipe(x: &[[f32; 4]], y: &mut [[f32; 4]], a: f32, tiles: u32) { let pipe = pipeline::<[f32; 4], 2, 256>(thread_idx_x() == 0, 1, 32); if warp_id() == 0 { if elect_one() { let mut p = pipe.producer(); for t in 0..tiles { p.acquire().load(x, t * 256); } } } else { let mut c = pipe.consumer(); for t in 0..tiles { let s = c.wait(); let v = s.get(lane_id()); y[t * 256 + lane_id()] = [a * v[0], v[1], v[2] as f32, v[3]]; s.release(); } } }",
    ),
    (
        "cluster = \"2,1,1\"",
        "fn ex(x: &[f32], out: &mut [f32]) { let mut mine = shared_array::<f32, 32>(); mine[lane_id()] = x[lane_id()]; let c = cluster_barrier().arrive_aligned().wait_aligned(); let peer = peer_shared(&mine, cluster_cta_rank() ^ 1); out[lane_id()] = peer[lane_id()] as f32; let _ = c.arrive().wait(); }",
    ),
    (
        "target = \"sm_90a\", block = \"256,1,1\"",
        "fn mm(a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>, b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>, c: &mut [f32], k: u32) { let pipe = pipeline::<f32, 2, 4096>(thread_idx_x() == 0, 1, 128); if warp_id() < 4 { if warp_id() == 0 && elect_one() { let mut p = pipe.producer(); for t in 0..k { p.acquire().load_tiles(&a, [t * 32, 0], &b, [t * 32, 0]); } } } else { let mut q = pipe.consumer(); let s = q.wait(); let mut acc = accumulator::<f32, 64, 64>().mma(&s, &a, &b).commit(); let mut held = s.retire(); for _ in 1..k { let s = q.wait(); acc = acc.mma(&s, &a, &b).commit().wait::<1>(); held.release(); held = s.retire(); } let acc = acc.wait::<0>(); held.release(); c[acc.row(1)] = acc.get(1); acc.store(c, 0, 64); } }",
    ),
    (
        "",
        "fn casts(a: &[i64], b: &mut [u32], c: f64, flag: bool) { let i = thread_idx_x(); 'l: loop { if flag { break 'l; } continue; } b[i] = (a[i] as u32) ^ (c as u32) << 3 | (flag as u32) + (-5i32).abs() as u32 + 7u32.count_ones(); }",
    ),
];

/// Tokens a mutation may insert.
const POOL: &[&str] = &[
    "let",
    "mut",
    "if",
    "else",
    "for",
    "in",
    "while",
    "loop",
    "break",
    "continue",
    "return",
    "match",
    "fn",
    "as",
    "+",
    "-",
    "*",
    "/",
    "%",
    "<<",
    ">>",
    "&",
    "|",
    "^",
    "!",
    "==",
    "<",
    "=",
    "+=",
    ";",
    ",",
    ".",
    "..",
    "..=",
    "::",
    "0",
    "1",
    "32",
    "4294967296",
    "-1",
    "1.5",
    "2.0f32",
    "true",
    "u32",
    "f32",
    "i64",
    "bool",
    "x",
    "y",
    "i",
    "n",
    "thread_idx_x",
    "sync_threads",
    "shared_array",
    "mbarrier",
    "arrive",
    "wait",
    "observe",
    "pipeline",
    "accumulator",
    "mma",
    "commit",
    "retire",
    "named_barrier",
    "step_by",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<",
    ">",
    "&mut",
    "'a",
    "_",
    "\"s\"",
    "b'x'",
    "r#type",
    "'outer:",
    "#",
    "block",
    "max_threads",
    "min_blocks_per_sm",
    "\"160,1,1\"",
    "0",
];

pub(crate) fn tokens(src: &str) -> Vec<String> {
    match TokenStream::from_str(src) {
        Ok(ts) => flatten(ts),
        Err(_) => Vec::new(),
    }
}

/// The token stream as a flat list of token texts (groups opened and closed explicitly), so
/// that mutations can also unbalance brackets. A punctuation joined to the next one (`::`,
/// `..`, `<<`) carries a trailing `\u{0}` marker so that [`mutate`] writes them together.
fn flatten(ts: TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    for tt in ts {
        match tt {
            TokenTree::Punct(p) if p.spacing() == proc_macro2::Spacing::Joint => {
                out.push(format!("{}\u{0}", p.as_char()))
            }
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    proc_macro2::Delimiter::Parenthesis => ("(", ")"),
                    proc_macro2::Delimiter::Brace => ("{", "}"),
                    proc_macro2::Delimiter::Bracket => ("[", "]"),
                    proc_macro2::Delimiter::None => ("", ""),
                };
                out.push(open.to_string());
                out.extend(flatten(g.stream()));
                out.push(close.to_string());
            }
            other => out.push(other.to_string()),
        }
    }
    out
}

#[derive(Clone, Debug)]
pub(crate) enum Mutation {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
    Replace(usize, usize),
    Insert(usize, usize),
}

pub(crate) fn mutate(mut toks: Vec<String>, mutations: &[Mutation]) -> String {
    for m in mutations {
        if toks.is_empty() {
            break;
        }
        let n = toks.len();
        match *m {
            Mutation::Delete(i) => {
                toks.remove(i % n);
            }
            Mutation::Duplicate(i) => {
                let t = toks[i % n].clone();
                toks.insert(i % n, t);
            }
            Mutation::Swap(i, j) => toks.swap(i % n, j % n),
            Mutation::Replace(i, p) => toks[i % n] = POOL[p % POOL.len()].to_string(),
            Mutation::Insert(i, p) => toks.insert(i % n, POOL[p % POOL.len()].to_string()),
        }
    }
    let mut text = String::new();
    for t in toks {
        match t.strip_suffix('\u{0}') {
            Some(joint) => text.push_str(joint),
            None => {
                text.push_str(&t);
                text.push(' ');
            }
        }
    }
    text
}

pub(crate) fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Duplicate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Replace(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Insert(a, b)),
    ]
}

/// What an expansion produced: `Ok(Some(ptx))` for a kernel without errors, `Ok(None)` for
/// spanned errors, `Err` for a panic or an internal error.
fn expand_checked(attr: &str, item: &str) -> Result<Option<String>, String> {
    let (Ok(attr), Ok(item)) = (TokenStream::from_str(attr), TokenStream::from_str(item)) else {
        return Ok(None); // not tokens at all: rustc's lexer rejects it before any macro runs
    };
    let out = std::panic::catch_unwind(|| expand::kernel(attr, item))
        .map_err(|_| "expansion panicked".to_string())?;
    let text = out.to_string();
    if text.contains("internal error in #[kernel]") {
        return Err(format!("internal error: {text}"));
    }
    if text.contains("compile_error") {
        // Spanned errors; an item that is not a function is passed through as it came, for
        // rustc to report its own syntax errors on it.
        return Ok(None);
    }
    if text.contains("phasegate_collect") {
        // A call of a name that is not in the language: the expansion goes on in that device
        // function's macro (`device::tests` follows such chains), or rustc reports the name.
        return Ok(None);
    }
    let file: syn::File =
        syn::parse2(out).map_err(|e| format!("expansion is not valid Rust: {e}"))?;
    let ptx = ptx_const(&file).ok_or("no PTX constant and no error")?;
    if ptx.is_empty() {
        return Err("empty PTX without an error".into());
    }
    Ok(Some(ptx))
}

/// The value of `const PTX: &str = "...";` in the generated module.
pub(crate) fn ptx_const(file: &syn::File) -> Option<String> {
    file.items.iter().find_map(|item| match item {
        syn::Item::Mod(m) => m.content.as_ref()?.1.iter().find_map(|i| match i {
            syn::Item::Const(c) if c.ident == "PTX" => match &*c.expr {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        }),
        _ => None,
    })
}

pub(crate) fn assemble(ptx: &str) -> Result<(), String> {
    let ptxas = phasegate_ptx::ptxas::locate()?;
    let sm = if ptx.contains(".target sm_90a") {
        phasegate_ptx::SmVersion::arch_specific(90)
    } else {
        phasegate_ptx::SmVersion::new(90)
    };
    let result = phasegate_ptx::ptxas::assemble(&ptxas, ptx, sm)?;
    if result.clean {
        Ok(())
    } else {
        Err(format!("{}\n{ptx}", result.log))
    }
}

#[test]
fn every_seed_compiles_and_assembles() {
    for (attr, item) in SEEDS {
        let ptx = expand_checked(attr, item)
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|| panic!("seed has errors: {item}"));
        assemble(&ptx).unwrap_or_else(|e| panic!("{e}"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn mutated_kernels_give_valid_ptx_or_spanned_errors(seed in 0..SEEDS.len(), mutations in prop::collection::vec(mutation(), 1..4)) {
        let (attr, item) = SEEDS[seed];
        let item = mutate(tokens(item), &mutations);
        match expand_checked(attr, &item) {
            Ok(Some(ptx)) => prop_assert!(assemble(&ptx).is_ok(), "{}", assemble(&ptx).unwrap_err()),
            Ok(None) => {}
            Err(e) => prop_assert!(false, "{e}\ninput: {item}"),
        }
    }

    #[test]
    fn mutated_attributes_never_panic(seed in 0..SEEDS.len(), mutations in prop::collection::vec(mutation(), 1..3)) {
        let (attr, item) = SEEDS[seed];
        let attr = mutate(tokens(&format!("target = \"sm_90a\", cluster = \"2,1,1\", block = \"64,1,1\", max_threads = 128, min_blocks_per_sm = 2, {attr}")), &mutations);
        prop_assert!(expand_checked(&attr, item).is_ok());
    }

    #[test]
    fn token_soups_never_panic(picks in prop::collection::vec(0..POOL.len(), 0..40)) {
        let soup: Vec<&str> = picks.iter().map(|&i| POOL[i]).collect();
        let item = format!("fn k(x: &mut [u32]) {{ {} }}", soup.join(" "));
        prop_assert!(expand_checked("", &item).is_ok(), "{}", expand_checked("", &item).unwrap_err());
    }
}

/// Mutants the property test found reaching the lowering: `break`, `continue` and `return`
/// as a method's receiver, an index, a handle method's argument, behind `&`, as a range bound
/// or as a condition are errors of their own.
#[test]
fn control_flow_where_a_value_is_expected_is_an_error() {
    for item in [
        "fn k(b: &mut [u32], c: f64) { let i = thread_idx_x(); b[i] = 1 + return.count_ones(); }",
        "fn k(b: &mut [u32]) { let mut cache = shared_array::<u32, 32>(); b[0] = cache[return]; }",
        "fn k(b: &mut [u32]) { loop { b[break] = 1; } }",
        "fn k(b: &mut [u32]) { b[0] = (continue)[0]; }",
        "fn k(n: u32) { let bar = mbarrier().init(thread_idx_x() == 0, return).publish(); }",
        "fn k(x: &[f32]) { let mut s = 0.0f32; for i in (0..return).step_by(2) { s += x[i]; } }",
        "fn k(x: &[f32], out: &mut [f32]) { let mine = shared_array::<f32, 32>(); let p = peer_shared(&return, 1); }",
        "fn k(b: &mut [u32], flag: bool) { loop { if continue { break; } } }",
    ] {
        match expand_checked("", item) {
            Ok(None) => {}
            Ok(Some(_)) => panic!("no error for {item}"),
            Err(e) => panic!("{item}: {e}"),
        }
    }
}

/// Array literals whose length no vector has are errors of their own, whatever their elements
/// (a 20,000-case run of the mutation property test reached the lowering with `a * []`).
#[test]
fn array_literals_of_no_vector_length_are_errors() {
    for item in [
        "fn k(y: &mut [f32], a: f32) { let i = thread_idx_x(); y[i] = a * []; }",
        "fn k(y: &mut [f32]) { let v = []; y[0] = v[0]; }",
        "fn k(y: &mut [u32]) { let v = [1u32, 2, 3]; y[0] = v[0]; }",
        "fn k(y: &mut [f32], a: f32) { y[0] = a + [a]; }",
    ] {
        match expand_checked("", item) {
            Ok(None) => {}
            Ok(Some(_)) => panic!("no error for {item}"),
            Err(e) => panic!("{item}: {e}"),
        }
    }
}
