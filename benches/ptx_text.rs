//! Reading and writing PTX text: the reader on a ~1 MB module built from nvcc's fixtures, and
//! the writer on the same model. `cargo bench --bench ptx_text`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use phasegate::ptx;

#[path = "support/large_module.rs"]
mod support;
use support::large_module;

fn bench(c: &mut Criterion) {
    let text = large_module(1 << 20);
    let module = ptx::parse(&text).expect("generated module parses");
    let mut group = c.benchmark_group("ptx_text");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("read 1 MB", |b| {
        b.iter(|| ptx::parse(std::hint::black_box(&text)).map(|m| m.items.len()))
    });
    group.bench_function("write 1 MB", |b| {
        b.iter(|| ptx::write_string(std::hint::black_box(&module)).len())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
