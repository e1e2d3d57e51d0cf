//! The barrier analyzer. The static analyses alone (witnesses off) on a ~1 MB module built from
//! nvcc's fixtures (every function of them repeated under new names), on one entry of 200,000
//! statements (the fixtures' bodies stitched together) and on the real-world corpus's largest
//! file; then the whole analyzer, witness runs included, on single kernels and on the corpus's
//! largest text (vLLM's Marlin module: 2.5 MB, 15 kernels). `cargo bench --bench lint`.
//! Targets: static analyses under 100 ms for the 1 MB module and under 2 s (and 1 GB) for the
//! 200,000 statements, with no size limit; a kernel's witness runs in about a second.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use phasegate::lints::{LintConfig, lint_module};
use phasegate::ptx;
use std::io::Read;

#[path = "support/large_entry.rs"]
mod large_entry;
#[path = "support/large_module.rs"]
mod support;
use large_entry::large_entry;
use support::large_module;

fn corpus_file(path: &str) -> String {
    let full = format!("{}/tests/realworld/{path}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&full).expect("corpus file");
    if path.ends_with(".gz") {
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .expect("gzip");
        text
    } else {
        String::from_utf8(bytes).expect("UTF-8")
    }
}

fn bench(c: &mut Criterion) {
    let text = large_module(1 << 20);
    let module = ptx::parse(&text).expect("generated module parses");
    let statics = LintConfig::default().with_witnesses(false);
    let config = LintConfig::default();
    assert!(
        lint_module(&module, &statics).is_empty(),
        "the fixtures are correct kernels"
    );
    let mut group = c.benchmark_group("lint");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("static: lint 1 MB", |b| {
        b.iter(|| lint_module(std::hint::black_box(&module), &statics).len())
    });
    group.bench_function("static: read + lint 1 MB", |b| {
        b.iter(|| {
            lint_module(
                &ptx::parse(std::hint::black_box(&text)).expect("parses"),
                &statics,
            )
            .len()
        })
    });
    let big_text = large_entry(200_000);
    let big = ptx::parse(&big_text).expect("generated entry parses");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(big_text.len() as u64));
    group.bench_function("static: lint one 200,000-statement entry", |b| {
        b.iter(|| lint_module(std::hint::black_box(&big), &statics).len())
    });
    // The real-world corpus's largest file on disk (CUTLASS SM80 SIMT GEMM with -G).
    let largest = corpus_file("cutlass/sm80_f32_simt_gemm_32x32x8_s2_G.ptx");
    group.throughput(Throughput::Bytes(largest.len() as u64));
    group.bench_function("static: read + lint the corpus's largest file", |b| {
        b.iter(|| {
            lint_module(
                &ptx::parse(std::hint::black_box(&largest)).expect("parses"),
                &statics,
            )
            .len()
        })
    });
    group.bench_function("witnesses: read + lint the corpus's largest file", |b| {
        b.iter(|| {
            lint_module(
                &ptx::parse(std::hint::black_box(&largest)).expect("parses"),
                &config,
            )
            .len()
        })
    });
    // Whole kernels, witness runs included.
    group.throughput(Throughput::Elements(1));
    for (name, path) in [
        (
            "witnesses: CUTLASS SM90 ping-pong GEMM, cluster 2x1",
            "cutlass/sm90_f16_pingpong_64x128x64_c2x1.ptx",
        ),
        (
            "witnesses: FlashInfer Hopper prefill (a bug found)",
            "flashinfer/fi_sm90_single_prefill_hd64_fp16_softcap.ptx.gz",
        ),
        (
            "witnesses: the corpus's largest text (Marlin, 15 kernels)",
            "wheels/vllm_0.33.0_C_marlin_sm80.ptx.gz",
        ),
    ] {
        let module = ptx::parse(&corpus_file(path)).expect("parses");
        group.bench_function(name, |b| {
            b.iter(|| lint_module(std::hint::black_box(&module), &config).len())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
