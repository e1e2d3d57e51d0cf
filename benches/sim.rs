//! Simulator throughput in simulated thread-instructions per second (criterion's "elements"):
//! the bulk-copy pipeline — the `pipeline` example and nvcc's `mbarrier_pipeline` fixture, each
//! 1 CTA of 160 threads streaming 64 tiles of 16 KB through 4 stages — and the `transpose`
//! example (256×256, 64 CTAs of 32×8 threads), with and without the shared-memory race check,
//! all on one thread; and multi-CTA launches (the transpose at 1024×1024: 1024 CTAs, Triton's
//! bf16 `wgmma` matmul at 512×1024×128: 16 CTAs of 256 threads) on rayon pools of 1 and 2
//! threads, where clusters run in parallel, and Triton's softmax over 2048 rows on 1, 2 and
//! all of the machine's threads; and one kernel of each class of the real-world
//! corpus (Triton's softmax, layernorm, `mma.sync` and `wgmma` matmuls and attention forwards,
//! CUTLASS's cooperative and ping-pong `wgmma` GEMMs) and the kernel language's Hopper GEMM on one thread, beside a naive CPU GEMM as the yardstick
//! for tensor-core work. `cargo bench --bench sim`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use phasegate::ptx;
use phasegate::runtime::sim::{self, ArgValue, Launch, Outcome};

#[path = "../examples/gemm_hopper.rs"]
#[allow(dead_code)]
mod gemm_hopper;
#[path = "../examples/pipeline.rs"]
#[allow(dead_code)]
mod pipeline;
#[path = "../examples/transpose.rs"]
#[allow(dead_code)]
mod transpose;

fn run(module: &ptx::Module, entry: &str, launch: &Launch, args: &[ArgValue]) -> u64 {
    let mut args = args.to_vec();
    match sim::simulate_module(module, entry, launch, &mut args).expect("runs") {
        Outcome::Completed(stats) => stats.thread_instructions,
        Outcome::Finding(r) => panic!("{r}"),
    }
}

/// A rayon pool of `threads` threads: the simulator runs a launch's clusters on the pool it is
/// called from.
fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool")
}

fn pipeline_example(c: &mut Criterion) {
    let spec = pipeline::scale_pipeline::SPEC;
    let module = ptx::parse(spec.ptx).expect("parses");
    let tiles = 64u32;
    let x: Vec<[f32; 4]> = (0..tiles * 1024).map(|i| [i as f32; 4]).collect();
    let args = vec![
        ArgValue::buffer(&x),
        ArgValue::zeroed(x.len() * 16),
        ArgValue::F32(2.0),
        ArgValue::U32(tiles),
    ];
    let mut group = c.benchmark_group("sim");
    group.sample_size(10);
    for race_check in [true, false] {
        let launch = Launch {
            grid: (1, 1, 1),
            block: (160, 1, 1),
            dynamic_shared_bytes: spec.dynamic_shared_bytes,
            race_check,
            ..Launch::default()
        };
        let steps = run(&module, spec.entry, &launch, &args);
        group.throughput(Throughput::Elements(steps));
        let name = format!(
            "pipeline example, 1 cta x 160 threads, 64 tiles{}",
            if race_check { "" } else { ", no race check" }
        );
        group.bench_function(name, |b| {
            b.iter(|| run(&module, spec.entry, &launch, &args))
        });
    }
    group.finish();
}

fn pipeline_fixture(c: &mut Criterion) {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/ptx/mbarrier_pipeline.ptx"
    ))
    .expect("fixture");
    let module = ptx::parse(&text).expect("parses");
    let n = 64 * 4096usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let args = vec![
        ArgValue::buffer(&x),
        ArgValue::zeroed(n * 4),
        ArgValue::F32(2.0),
        ArgValue::U32(n as u32),
    ];
    let mut group = c.benchmark_group("sim");
    group.sample_size(10);
    for race_check in [true, false] {
        let launch = Launch {
            grid: (1, 1, 1),
            block: (160, 1, 1),
            dynamic_shared_bytes: 65536,
            race_check,
            ..Launch::default()
        };
        let steps = run(&module, "mbarrier_pipeline", &launch, &args);
        group.throughput(Throughput::Elements(steps));
        let name = format!(
            "nvcc mbarrier_pipeline, 1 cta x 160 threads, 64 tiles{}",
            if race_check { "" } else { ", no race check" }
        );
        group.bench_function(name, |b| {
            b.iter(|| run(&module, "mbarrier_pipeline", &launch, &args))
        });
    }
    group.finish();
}

fn transpose(c: &mut Criterion) {
    let module = ptx::parse(transpose::transpose::PTX).expect("parses");
    let (w, h) = (256usize, 256usize);
    let input: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
    let args = vec![
        ArgValue::buffer(&input),
        ArgValue::zeroed(w * h * 4),
        ArgValue::U32(w as u32),
        ArgValue::U32(h as u32),
    ];
    let mut group = c.benchmark_group("sim");
    group.sample_size(10);
    for race_check in [true, false] {
        let launch = Launch {
            grid: (8, 8, 1),
            block: (32, 8, 1),
            race_check,
            ..Launch::default()
        };
        let steps = run(&module, "transpose", &launch, &args);
        group.throughput(Throughput::Elements(steps));
        let name = format!(
            "transpose 256x256, 64 ctas x 256 threads{}",
            if race_check { "" } else { ", no race check" }
        );
        let one = pool(1);
        group.bench_function(name, |b| {
            b.iter(|| one.install(|| run(&module, "transpose", &launch, &args)))
        });
    }
    group.finish();
}

/// Multi-CTA launches on pools of 1 and 2 threads (total throughput; with the race check).
fn parallel(c: &mut Criterion) {
    let mut group = c.benchmark_group("sim parallel");
    group.sample_size(10);
    let module = ptx::parse(transpose::transpose::PTX).expect("parses");
    let (w, h) = (1024usize, 1024usize);
    let input: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
    let args = vec![
        ArgValue::buffer(&input),
        ArgValue::zeroed(w * h * 4),
        ArgValue::U32(w as u32),
        ArgValue::U32(h as u32),
    ];
    let launch = Launch {
        grid: (32, 32, 1),
        block: (32, 8, 1),
        ..Launch::default()
    };
    let steps = run(&module, "transpose", &launch, &args);
    group.throughput(Throughput::Elements(steps));
    for threads in [1, 2] {
        let p = pool(threads);
        group.bench_function(
            format!("transpose 1024x1024, 1024 ctas, {threads} threads"),
            |b| b.iter(|| p.install(|| run(&module, "transpose", &launch, &args))),
        );
    }
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/realworld/triton/matmul_bf16_sm90a.ptx"
    ))
    .expect("the Triton matmul");
    let module = ptx::parse(&text).expect("parses");
    let (m, n, k) = (512u32, 1024u32, 128u32);
    // bf16 operands with small integer values (exact products).
    let bf16 = |v: i32| ((v as f32).to_bits() >> 16) as u16;
    let a: Vec<u16> = (0..m * k).map(|i| bf16((i % 7) as i32 - 3)).collect();
    let b: Vec<u16> = (0..k * n).map(|i| bf16((i % 5) as i32 - 2)).collect();
    let args = vec![
        ArgValue::buffer(&a),
        ArgValue::buffer(&b),
        ArgValue::zeroed((m * n * 2) as usize),
        ArgValue::U32(m),
        ArgValue::U32(n),
        ArgValue::U32(k),
        ArgValue::U32(k),
        ArgValue::U32(n),
        ArgValue::U32(n),
        ArgValue::zeroed(0),
        ArgValue::zeroed(0),
    ];
    let launch = Launch {
        grid: ((m / 128) * (n / 256), 1, 1),
        block: (256, 1, 1),
        dynamic_shared_bytes: 147456,
        ..Launch::default()
    };
    let steps = run(&module, "matmul", &launch, &args);
    group.throughput(Throughput::Elements(steps));
    for threads in [1, 2] {
        let p = pool(threads);
        group.bench_function(
            format!("triton bf16 wgmma matmul 512x1024x128, 16 ctas, {threads} threads"),
            |bch| bch.iter(|| p.install(|| run(&module, "matmul", &launch, &args))),
        );
    }
    // Scaling with the machine's cores (issue 20: 16 threads at least 0.8 x 16 times one):
    // Triton's softmax over 2048 rows of 1024, a row a one-CTA cluster, on 1, 2 and all the
    // machine's threads.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/realworld/triton/softmax_sm90a.ptx"
    ))
    .expect("the Triton softmax");
    let module = ptx::parse(&text).expect("parses");
    let (rows, cols) = (2048u32, 1024u32);
    let mut args = vec![
        ArgValue::zeroed((rows * cols * 4) as usize),
        filled((rows * cols * 4) as usize, 60),
    ];
    args.extend([cols, cols, rows, cols].map(ArgValue::U32));
    args.extend([ArgValue::zeroed(0), ArgValue::zeroed(0)]);
    let launch = Launch {
        grid: (rows, 1, 1),
        block: (256, 1, 1),
        dynamic_shared_bytes: 12320,
        ..Launch::default()
    };
    let steps = run(&module, "softmax_rows", &launch, &args);
    group.throughput(Throughput::Elements(steps));
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts = vec![1, 2, all];
    counts.dedup();
    for threads in counts {
        let p = pool(threads);
        group.bench_function(
            format!("triton softmax 2048 rows, 2048 ctas, {threads} threads"),
            |bch| bch.iter(|| p.install(|| run(&module, "softmax_rows", &launch, &args))),
        );
    }
    group.finish();
}

/// A kernel of the real-world corpus, with the launch and arguments it runs with here.
struct CorpusKernel {
    name: &'static str,
    file: &'static str,
    entry: &'static str,
    grid: (u32, u32, u32),
    block: u32,
    /// CTAs per cluster (`None`: the kernel's own, or 1).
    cluster: Option<(u32, u32, u32)>,
    dynamic_shared_bytes: u32,
    args: Vec<ArgValue>,
}

/// `n` bytes of `byte` (0x3c3c is 1.06 as f16, 0x3c3c3c3c is 0.0115 as f32: finite inputs).
fn filled(n: usize, byte: u8) -> ArgValue {
    ArgValue::Buffer(vec![byte; n])
}

/// One kernel of each class of the real-world corpus that the simulator runs: Triton's
/// softmax and layernorm (row reductions through shared memory, `cp.async` in softmax), its
/// `mma.sync` matmul (Ampere: `cp.async` pipelines, `ldmatrix`, tensor-core MMA) and its
/// `wgmma` matmul (Hopper), its attention forward in both forms, and CUTLASS 4.2's SM90
/// warp-specialised TMA GEMMs (the cooperative one, bf16 256x256x128 on 4 CTAs, and the
/// ping-pong one, f16 128x256x128 on 2 clusters of 2 CTAs with TMA multicast), each with the
/// `Params` struct CUTLASS's host code built, relocated onto the simulator's buffers
/// (`tests/realworld/cutlass/run/*.struct`, the launches `sim/tests/sim_cutlass.rs` checks
/// against the H100's results).
fn corpus_kernels() -> Vec<CorpusKernel> {
    let scratch = || [ArgValue::zeroed(0), ArgValue::zeroed(0)];
    let matmul = |n: u32| {
        let mut args = vec![
            filled((n * n * 2) as usize, 60),
            filled((n * n * 2) as usize, 60),
            ArgValue::zeroed((n * n * 2) as usize),
        ];
        args.extend([n; 6].map(ArgValue::U32));
        args.extend(scratch());
        args
    };
    let attention = |seq: u32, heads: u32| {
        let bytes = (heads * seq * 64 * 2) as usize;
        let mut args = vec![
            filled(bytes, 60),
            filled(bytes, 60),
            filled(bytes, 60),
            ArgValue::zeroed(bytes),
            ArgValue::zeroed((heads * seq * 4) as usize),
            ArgValue::F32(0.125),
            ArgValue::U32(heads * seq * 64),
            ArgValue::U32(seq * 64),
            ArgValue::U32(64),
            ArgValue::U32(heads),
            ArgValue::U32(seq),
        ];
        args.extend(scratch());
        args
    };
    let (rows, cols) = (64u32, 1024u32);
    let mut softmax = vec![
        ArgValue::zeroed((rows * cols * 4) as usize),
        filled((rows * cols * 4) as usize, 60),
    ];
    softmax.extend([cols, cols, rows, cols].map(ArgValue::U32));
    softmax.extend(scratch());
    let mut layernorm = vec![
        filled((rows * cols * 2) as usize, 60),
        ArgValue::zeroed((rows * cols * 2) as usize),
        filled((cols * 4) as usize, 60),
        filled((cols * 4) as usize, 60),
        ArgValue::zeroed((rows * 4) as usize),
        ArgValue::zeroed((rows * 4) as usize),
        ArgValue::U32(cols),
        ArgValue::U32(cols),
        ArgValue::F32(1e-5),
    ];
    layernorm.extend(scratch());
    let kernel = |name, file, entry, grid, block, dynamic_shared_bytes, args| CorpusKernel {
        name,
        file,
        entry,
        grid,
        block,
        cluster: None,
        dynamic_shared_bytes,
        args,
    };
    // A CUTLASS GEMM's launch and its `Params` from the recorded struct file `case`.
    let cutlass = |name, file, case: &str, grid, cluster, dynamic_shared_bytes| {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/realworld/cutlass/run");
        let text =
            std::fs::read_to_string(dir.join(format!("{case}.struct"))).expect("a struct file");
        let params = sim::StructArg::parse(&text, &dir).expect("the struct file parses");
        CorpusKernel {
            name,
            file,
            entry: "",
            grid,
            block: 384,
            cluster: Some(cluster),
            dynamic_shared_bytes,
            args: vec![ArgValue::from(params)],
        }
    };
    vec![
        kernel(
            "triton softmax 64x1024 (cp.async), 64 ctas x 256",
            "triton/softmax_sm90a.ptx",
            "softmax_rows",
            (rows, 1, 1),
            256,
            12320,
            softmax,
        ),
        kernel(
            "triton layernorm 64x1024, 64 ctas x 256",
            "triton/layernorm_fwd_sm80.ptx",
            "layernorm_fwd",
            (rows, 1, 1),
            256,
            32,
            layernorm,
        ),
        kernel(
            "triton mma.sync matmul 256^3 (cp.async, ldmatrix), 4 ctas x 256",
            "triton/matmul_sm80.ptx",
            "matmul",
            (4, 1, 1),
            256,
            98304,
            matmul(256),
        ),
        kernel(
            "triton wgmma matmul 256^3 (sm_90a), 2 ctas x 256",
            "triton/matmul_bf16_sm90a.ptx",
            "matmul",
            (2, 1, 1),
            256,
            147456,
            matmul(256),
        ),
        kernel(
            "triton mma.sync attention 2 heads x 256 x 64, 4 ctas x 128",
            "triton/attn_fwd_sm80.ptx",
            "attn_fwd",
            (2, 2, 1),
            128,
            49152,
            attention(256, 2),
        ),
        kernel(
            "triton wgmma attention 2 heads x 256 x 64, 4 ctas x 128",
            "triton/attn_fwd_sm90a.ptx",
            "attn_fwd",
            (2, 2, 1),
            128,
            65536,
            attention(256, 2),
        ),
        cutlass(
            "cutlass cooperative gemm bf16 256x256x128 (tma, wgmma), 4 ctas x 384",
            "cutlass/sm90_bf16_coop_tma_128x128x64_c1.ptx",
            "bf16_coop_int",
            (1, 4, 1),
            (1, 1, 1),
            230400,
        ),
        cutlass(
            "cutlass ping-pong gemm f16 128x256x128 (tma multicast, wgmma), 2 clusters of 2 ctas x 384",
            "cutlass/sm90_f16_pingpong_64x128x64_c2x1.ptx",
            "f16_pingpong_int",
            (2, 2, 1),
            (2, 1, 1),
            214016,
        ),
    ]
}

/// The corpus's kernel classes on one thread, with the race check: the figure that tells a user
/// how long a real kernel takes in `cargo test`.
fn corpus(c: &mut Criterion) {
    let mut group = c.benchmark_group("sim corpus");
    group.sample_size(10);
    let one = pool(1);
    for k in corpus_kernels() {
        let path = format!("{}/tests/realworld/{}", env!("CARGO_MANIFEST_DIR"), k.file);
        let text = std::fs::read_to_string(&path).expect("a corpus kernel");
        let module = ptx::parse(&text).expect("parses");
        // The CUTLASS modules have one entry, whose mangled name is long.
        let entry = match k.entry {
            "" => module.entries().next().expect("an entry").name.clone(),
            name => name.to_string(),
        };
        let launch = Launch {
            grid: k.grid,
            block: (k.block, 1, 1),
            cluster: k.cluster,
            dynamic_shared_bytes: k.dynamic_shared_bytes,
            ..Launch::default()
        };
        let steps = one.install(|| run(&module, &entry, &launch, &k.args));
        group.throughput(Throughput::Elements(steps));
        group.bench_function(k.name, |b| {
            b.iter(|| one.install(|| run(&module, &entry, &launch, &k.args)))
        });
    }
    // The kernel language's Hopper GEMM (a cluster of 2 CTAs of 384 threads: TMA multicast,
    // warp-specialised mbarrier pipelines, `wgmma` m64n256k16), in multiply-adds a second.
    let (m, n, k) = (256u32, 256u32, 128u32);
    let (a, b) = (gemm_hopper::operand(m, k, 3), gemm_hopper::operand(n, k, 4));
    group.throughput(Throughput::Elements((m * n * k) as u64));
    group.bench_function(
        "kernel-language hopper gemm 256x256x128, 1 cluster of 2 ctas x 384 (multiply-adds)",
        |bch| bch.iter(|| one.install(|| gemm_hopper::simulate(m, n, k, &a, &b, 2))),
    );
    // The yardstick for the tensor-core kernels: a naive CPU GEMM of the same 256³
    // multiply-adds the two matmuls above simulate, the textbook i-j-k loops with one f32
    // accumulator per output (the compiler keeps the additions in order, so one chain of
    // multiply-adds at a time, as the simulator's tensor-core steps accumulate).
    let n = 256usize;
    let a: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32 - 3.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| (i % 5) as f32 - 2.0).collect();
    group.throughput(Throughput::Elements((n * n * n) as u64));
    group.bench_function("naive cpu gemm 256^3, f32 (multiply-adds)", |bch| {
        bch.iter(|| {
            let mut c = vec![0.0f32; n * n];
            for i in 0..n {
                for j in 0..n {
                    let mut acc = 0.0f32;
                    for k in 0..n {
                        acc += a[i * n + k] * b[k * n + j];
                    }
                    c[i * n + j] = acc;
                }
            }
            std::hint::black_box(c)
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    pipeline_example,
    pipeline_fixture,
    transpose,
    parallel,
    corpus
);
criterion_main!(benches);
