//! Reading and writing PTX text: the reader on a ~1 MB module built from nvcc's fixtures, and
//! the writer on the same model. `cargo bench --bench ptx_text`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use phasegate::ptx::{self, Item};

/// A module of about `bytes` bytes: the fixtures' functions repeated under new names.
fn large_module(bytes: usize) -> String {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ptx");
    let mut sources = Vec::new();
    for name in ["mbarrier_pipeline.ptx", "named_barriers.ptx", "block_reduce.ptx", "cluster_exchange.ptx", "bulk_store.ptx"] {
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
    let mut group = c.benchmark_group("ptx_text");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("read 1 MB", |b| b.iter(|| ptx::parse(std::hint::black_box(&text)).map(|m| m.items.len())));
    group.bench_function("write 1 MB", |b| b.iter(|| ptx::write_string(std::hint::black_box(&module)).len()));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
