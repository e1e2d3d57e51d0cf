//! The barrier analyzer on a ~1 MB module built from nvcc's fixtures (every function of them
//! repeated under new names), on the largest single fixture, and on one entry of 200,000
//! statements (the fixtures' bodies stitched together). `cargo bench --bench lint`.
//! Targets: under 100 ms for the 1 MB module; under 2 s (and under 1 GB) for the 200,000
//! statements, with no size limit.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use phasegate::lints::{LintConfig, lint_module};
use phasegate::ptx;

#[path = "support/large_entry.rs"]
mod large_entry;
#[path = "support/large_module.rs"]
mod support;
use large_entry::large_entry;
use support::large_module;

fn bench(c: &mut Criterion) {
    let text = large_module(1 << 20);
    let module = ptx::parse(&text).expect("generated module parses");
    let config = LintConfig::default();
    assert!(
        lint_module(&module, &config).is_empty(),
        "the fixtures are correct kernels"
    );
    let mut group = c.benchmark_group("lint");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("lint 1 MB", |b| {
        b.iter(|| lint_module(std::hint::black_box(&module), &config).len())
    });
    group.bench_function("read + lint 1 MB", |b| {
        b.iter(|| {
            lint_module(
                &ptx::parse(std::hint::black_box(&text)).expect("parses"),
                &config,
            )
            .len()
        })
    });
    let pipeline = ptx::parse(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/ptx/named_barriers.ptx"
        ))
        .expect("fixture"),
    )
    .expect("parses");
    let big_text = large_entry(200_000);
    let big = ptx::parse(&big_text).expect("generated entry parses");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(big_text.len() as u64));
    group.bench_function("lint one 200,000-statement entry", |b| {
        b.iter(|| lint_module(std::hint::black_box(&big), &config).len())
    });
    group.bench_function("read + lint one 200,000-statement entry", |b| {
        b.iter(|| {
            lint_module(
                &ptx::parse(std::hint::black_box(&big_text)).expect("parses"),
                &config,
            )
            .len()
        })
    });
    // The real-world corpus's largest file (CUTLASS SM80 SIMT GEMM with -G: debug sections).
    let largest = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/realworld/cutlass/sm80_f32_simt_gemm_32x32x8_s2_G.ptx"
    ))
    .expect("corpus file");
    group.throughput(Throughput::Bytes(largest.len() as u64));
    group.bench_function("read + lint the corpus's largest file", |b| {
        b.iter(|| {
            lint_module(
                &ptx::parse(std::hint::black_box(&largest)).expect("parses"),
                &config,
            )
            .len()
        })
    });
    group.throughput(Throughput::Elements(1));
    group.bench_function("lint named_barriers.ptx", |b| {
        b.iter(|| lint_module(std::hint::black_box(&pipeline), &config).len())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
