//! The barrier analyzer on a ~1 MB module built from nvcc's fixtures (every function of them
//! repeated under new names), and on the largest single fixture. `cargo bench --bench lint`.
//! Target: under 100 ms for the 1 MB module.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use phasegate::lints::{lint_module, LintConfig};
use phasegate::ptx::{self, Item};

/// A module of about `bytes` bytes: the fixtures' functions repeated under new names.
fn large_module(bytes: usize) -> String {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ptx");
    let mut sources = Vec::new();
    for name in ["mbarrier_pipeline.ptx", "named_barriers.ptx", "block_reduce.ptx", "cluster_exchange.ptx", "bulk_store.ptx", "ampere_cp_async.ptx", "dot_ref.ptx", "transpose_ref.ptx"] {
        let text = std::fs::read_to_string(format!("{dir}/{name}")).expect("fixture");
        sources.push(ptx::parse(&text).expect("fixture parses"));
    }
    let mut module = sources[0].clone();
    module.items.retain(|i| matches!(i, Item::File(_)));
    let mut copy = 0;
    while ptx::write_string(&module).len() < bytes {
        for source in &sources {
            for f in source.functions() {
                let mut f = f.clone();
                f.name = format!("{}_{copy}", f.name);
                module.items.push(Item::Function(f));
            }
        }
        copy += 1;
    }
    ptx::write_string(&module)
}

fn bench(c: &mut Criterion) {
    let text = large_module(1 << 20);
    let module = ptx::parse(&text).expect("generated module parses");
    let config = LintConfig::default();
    assert!(lint_module(&module, &config).is_empty(), "the fixtures are correct kernels");
    let mut group = c.benchmark_group("lint");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("lint 1 MB", |b| b.iter(|| lint_module(std::hint::black_box(&module), &config).len()));
    group.bench_function("read + lint 1 MB", |b| b.iter(|| lint_module(&ptx::parse(std::hint::black_box(&text)).expect("parses"), &config).len()));
    let pipeline = ptx::parse(&std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ptx/named_barriers.ptx")).expect("fixture")).expect("parses");
    group.throughput(Throughput::Elements(1));
    group.bench_function("lint named_barriers.ptx", |b| b.iter(|| lint_module(std::hint::black_box(&pipeline), &config).len()));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
