//! `#[kernel]` expansion time, lints included, for a 200-line kernel.
//! `cargo bench --bench expand`.
//!
//! A proc-macro crate exports only its macros, so the bench compiles the macro's own modules
//! (the same files) into itself and calls the expansion function directly, as rustc does.

#![allow(dead_code)]

#[path = "../macros/src/attr.rs"]
mod attr;
#[path = "../macros/src/builtins.rs"]
mod builtins;
#[path = "../macros/src/check/mod.rs"]
mod check;
#[path = "../macros/src/device/mod.rs"]
mod device;
#[path = "../macros/src/diag.rs"]
mod diag;
#[path = "../macros/src/expand.rs"]
mod expand;
#[path = "../macros/src/handles.rs"]
mod handles;
#[path = "../macros/src/lint.rs"]
mod lint;
#[path = "../macros/src/lower/mod.rs"]
mod lower;
#[path = "../macros/src/params.rs"]
mod params;
#[path = "../macros/src/shadow.rs"]
mod shadow;
#[path = "../macros/src/target.rs"]
mod target;
#[path = "../macros/src/types.rs"]
mod types;

use criterion::{Criterion, criterion_group, criterion_main};
use proc_macro2::TokenStream;
use std::str::FromStr;

/// A kernel of about 200 lines: 22 rounds of arithmetic, a loop, a shared-memory exchange
/// and a named-barrier handshake between warp roles.
fn kernel_source() -> String {
    let mut body = String::new();
    body.push_str("let t = thread_idx_x();\nlet mut acc = x[block_idx_x() * block_dim_x() + t];\nlet mut tile = shared_array::<f32, 256>();\n");
    body.push_str("let full = named_barrier::<1, 64>();\nlet empty = named_barrier::<2, 64>();\n");
    for r in 0..22 {
        body.push_str(&format!(
            "let a{r} = acc * {r}.5f32 + 1.0;\n\
             let b{r} = a{r}.mul_add(acc, -0.25).max(0.0);\n\
             for k in 0..{n}u32 {{ acc = acc + b{r} * (k as f32); }}\n\
             tile[t] = acc;\n\
             sync_threads();\n\
             acc = acc + tile[(t + {r}) % 256];\n\
             sync_threads();\n\
             if warp_id() == 0 {{ full.arrive(); empty.sync(); }} else if warp_id() == 1 {{ full.sync(); empty.arrive(); }}\n\
             if acc > 1000.0 {{ acc = acc / 3.0; }}\n",
            n = 2 + r % 5
        ));
    }
    body.push_str("y[block_idx_x() * block_dim_x() + t] = acc;\n");
    format!("fn big(x: &[f32], y: &mut [f32]) {{\n{body}}}\n")
}

fn bench(c: &mut Criterion) {
    let source = kernel_source();
    let lines = source.lines().count();
    let item = TokenStream::from_str(&source).expect("kernel tokens");
    // It must expand without errors: an error path would be faster and measure nothing.
    let out = expand::kernel(TokenStream::new(), item.clone()).to_string();
    assert!(!out.contains("compile_error"), "{out}");
    let mut group = c.benchmark_group("expand");
    group.bench_function(format!("kernel of {lines} lines, lints included"), |b| {
        b.iter(|| expand::kernel(TokenStream::new(), std::hint::black_box(item.clone())))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
