//! A large PTX module for the benchmarks: nvcc's fixtures' functions repeated under new names.

use phasegate::ptx::{self, Item};

/// nvcc's fixtures `names` (in `tests/fixtures/ptx`), read.
pub fn fixtures(names: &[&str]) -> Vec<ptx::Module> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ptx");
    names
        .iter()
        .map(|name| {
            let text = std::fs::read_to_string(format!("{dir}/{name}")).expect("fixture");
            ptx::parse(&text).expect("fixture parses")
        })
        .collect()
}

/// A module of about `bytes` bytes of PTX text.
pub fn large_module(bytes: usize) -> String {
    let sources = fixtures(&[
        "mbarrier_pipeline.ptx",
        "named_barriers.ptx",
        "block_reduce.ptx",
        "cluster_exchange.ptx",
        "bulk_store.ptx",
        "ampere_cp_async.ptx",
        "dot_ref.ptx",
        "transpose_ref.ptx",
    ]);
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
