//! The differential harness shared by `examples/gpu_differential.rs` and `tests/gpu.rs`: the
//! example kernels and generated barrier-correct kernels, each run in the simulator and on the
//! GPU with the same inputs, compared bit for bit.

#[path = "../attention_hopper.rs"]
#[allow(dead_code)]
mod attention_hopper;
#[path = "../cluster_exchange.rs"]
#[allow(dead_code)]
mod cluster_exchange;
#[path = "../dot.rs"]
#[allow(dead_code)]
mod dot;
#[path = "../gemm_hopper.rs"]
#[allow(dead_code)]
mod gemm_hopper;
#[path = "../multicast.rs"]
#[allow(dead_code)]
mod multicast;
#[path = "../pipeline.rs"]
#[allow(dead_code)]
mod pipeline;
#[path = "../popc_count.rs"]
#[allow(dead_code)]
mod popc_count;
#[path = "../producer_consumer.rs"]
#[allow(dead_code)]
mod producer_consumer;
#[path = "../quantize.rs"]
#[allow(dead_code)]
mod quantize;
#[path = "../scale.rs"]
#[allow(dead_code)]
mod scale;
#[path = "../tma_tiles.rs"]
#[allow(dead_code)]
mod tma_tiles;
#[path = "../transpose.rs"]
#[allow(dead_code)]
mod transpose;
#[path = "../wgmma_gemm.rs"]
#[allow(dead_code)]
mod wgmma_gemm;

use phasegate::runtime::KernelSpec;
use phasegate::runtime::cuda::Gpu;
use phasegate::runtime::generate;
use phasegate::runtime::rng::Rng;
use phasegate::runtime::sim::{
    ArgValue, Launch, Outcome, TensorMapArg, TensorSource, simulate_spec,
};
use std::time::Duration;

/// One kernel, one launch, one set of argument values.
pub struct Case {
    pub name: String,
    pub spec: KernelSpec,
    pub launch: Launch,
    pub args: Vec<ArgValue>,
}

fn floats(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n)
        .map(|_| (rng.below(1 << 20) as f32 / (1 << 19) as f32) - 1.0)
        .collect()
}

fn launch(grid: (u32, u32, u32), block: (u32, u32, u32)) -> Launch {
    Launch {
        grid,
        block,
        ..Launch::default()
    }
}

pub fn example_cases(rng: &mut Rng) -> Vec<Case> {
    let mut cases = Vec::new();
    let n = 1000u32;
    cases.push(Case {
        name: "scale".into(),
        spec: scale::scale::SPEC,
        launch: launch((n.div_ceil(128), 1, 1), (128, 1, 1)),
        args: vec![
            ArgValue::buffer(&floats(rng, n as usize)),
            ArgValue::zeroed(n as usize * 4),
            ArgValue::F32(1.5),
            ArgValue::U32(n),
        ],
    });
    let (w, h) = (70u32, 45u32);
    cases.push(Case {
        name: "transpose".into(),
        spec: transpose::transpose::SPEC,
        launch: launch((w.div_ceil(32), h.div_ceil(32), 1), (32, 8, 1)),
        args: vec![
            ArgValue::buffer(&floats(rng, (w * h) as usize)),
            ArgValue::zeroed((w * h) as usize * 4),
            ArgValue::U32(w),
            ArgValue::U32(h),
        ],
    });
    let grid = 3u32;
    cases.push(Case {
        name: "dot".into(),
        spec: dot::dot::SPEC,
        launch: launch((grid, 1, 1), (256, 1, 1)),
        args: vec![
            ArgValue::buffer(&floats(rng, 5000)),
            ArgValue::buffer(&floats(rng, 5000)),
            ArgValue::zeroed(grid as usize * 4),
            ArgValue::U32(5000),
        ],
    });
    let tiles = 5u32;
    let x: Vec<[f32; 4]> = floats(rng, tiles as usize * 4096)
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect();
    cases.push(Case {
        name: "scale_pipeline".into(),
        spec: pipeline::scale_pipeline::SPEC,
        launch: Launch {
            dynamic_shared_bytes: pipeline::scale_pipeline::SPEC.dynamic_shared_bytes,
            ..launch((2, 1, 1), (160, 1, 1))
        },
        args: vec![
            ArgValue::buffer(&x),
            ArgValue::zeroed(x.len() * 16),
            ArgValue::F32(-0.75),
            ArgValue::U32(tiles),
        ],
    });
    let rounds = 6u32;
    cases.push(Case {
        name: "producer_consumer".into(),
        spec: producer_consumer::producer_consumer::SPEC,
        launch: launch((2, 1, 1), (64, 1, 1)),
        args: vec![
            ArgValue::zeroed((2 * rounds * 32) as usize * 4),
            ArgValue::U32(rounds),
        ],
    });
    cases.push(Case {
        name: "popc_count".into(),
        spec: popc_count::popc_count::SPEC,
        launch: launch((4, 1, 1), (128, 1, 1)),
        args: vec![
            ArgValue::buffer(&floats(rng, 500)),
            ArgValue::zeroed(16),
            ArgValue::F32(0.25),
            ArgValue::U32(500),
        ],
    });
    cases.push(Case {
        name: "cluster_exchange".into(),
        spec: cluster_exchange::cluster_exchange::SPEC,
        launch: Launch {
            cluster: Some((2, 1, 1)),
            ..launch((4, 1, 1), (128, 1, 1))
        },
        args: vec![
            ArgValue::buffer(&floats(rng, 512)),
            ArgValue::zeroed(512 * 4),
        ],
    });
    // The storage floats on their edges: every f16 tie between neighbours of one binade,
    // bf16 and fp8 ties, overflow, infinities, NaN, subnormals, and random magnitudes.
    let mut edges: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        -1.5,
        448.0,
        464.0,
        480.0,
        1e6,
        -1e6,
        57344.0,
        61440.0,
        65504.0,
        65520.0,
        1e30,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        2f32.powi(-24),
        1.5 * 2f32.powi(-24),
        2f32.powi(-10),
        2f32.powi(-17),
    ];
    edges.extend((0..1024).map(|k| 1.0 + (2 * k + 1) as f32 * 2f32.powi(-11)));
    edges.extend((0..256).map(|k| 1.0 + (2 * k + 1) as f32 * 2f32.powi(-9) - 1.0 / 64.0));
    edges.extend((0..512).map(|k| {
        let f = floats(rng, 1)[0];
        f * 2f32.powi(k % 40 - 20)
    }));
    let n = edges.len();
    cases.push(Case {
        name: "quantize".into(),
        spec: quantize::quantize::SPEC,
        launch: launch(((n as u32).div_ceil(128), 1, 1), (128, 1, 1)),
        args: vec![
            ArgValue::buffer(&edges),
            ArgValue::zeroed(n * 2),
            ArgValue::zeroed(n * 2),
            ArgValue::zeroed(n),
            ArgValue::zeroed(n),
            ArgValue::zeroed(n * 16),
            ArgValue::U32(n as u32),
        ],
    });
    // PTX fixtures for forms `#[kernel]` does not emit: `cp.reduce.async.bulk` into global
    // memory and into a peer CTA's shared memory.
    let reduce = include_str!("../../tests/sim/reduce.ptx");
    for (entry, launch) in [
        ("reduce_global", launch((4, 1, 1), (128, 1, 1))),
        (
            "reduce_cluster",
            Launch {
                cluster: Some((2, 1, 1)),
                ..launch((2, 1, 1), (128, 1, 1))
            },
        ),
    ] {
        cases.push(Case {
            name: format!("tests/sim/reduce.ptx {entry}"),
            spec: KernelSpec {
                entry,
                ptx: reduce,
                target: "sm_90a",
                params: ONE_OUTPUT,
                static_shared_bytes: 0,
                dynamic_shared_bytes: 0,
                cluster_dims: None,
                block_dims: None,
                max_threads: None,
            },
            launch,
            args: vec![ArgValue::zeroed(512)],
        });
    }
    cases.push(Case {
        name: "multicast_tile".into(),
        spec: multicast::multicast_tile::SPEC,
        launch: Launch {
            cluster: Some((2, 1, 1)),
            ..launch((4, 1, 1), (128, 1, 1))
        },
        args: vec![
            ArgValue::buffer(&floats(rng, 256)),
            ArgValue::zeroed(512 * 4),
        ],
    });
    // Tensor maps: encoded by the driver on the GPU, by the simulator's encoder in the
    // simulator, over the same tensors.
    let (w, h) = (96u32, 40u32);
    let map = |spec: &KernelSpec, name: &str, data: Vec<u8>| {
        let map = spec
            .map_type(name)
            .expect("a map parameter")
            .tiled(0, &[w as u64, h as u64], &[w as u64 * 4])
            .expect("a valid map");
        ArgValue::from(TensorMapArg::owning(map, data))
    };
    let bytes = |v: Vec<f32>| {
        v.into_iter()
            .flat_map(f32::to_le_bytes)
            .collect::<Vec<u8>>()
    };
    cases.push(Case {
        name: "tma_scale".into(),
        spec: tma_tiles::tma_scale::SPEC,
        launch: launch((3, 1, 1), (160, 1, 1)),
        args: vec![
            map(
                &tma_tiles::tma_scale::SPEC,
                "x",
                bytes(floats(rng, (w * h) as usize)),
            ),
            ArgValue::zeroed((w * h) as usize * 4),
            ArgValue::F32(-0.75),
            ArgValue::U32(w),
            ArgValue::U32(w / 32),
            ArgValue::U32((w / 32) * (h / 8)),
        ],
    });
    let add = tma_tiles::tma_add::SPEC;
    cases.push(Case {
        name: "tma_add".into(),
        spec: add,
        launch: launch((4, 1, 1), (160, 1, 1)),
        args: vec![
            map(&add, "a", bytes(floats(rng, (w * h) as usize))),
            map(&add, "b", bytes(floats(rng, (w * h) as usize))),
            map(&add, "c", vec![0; (w * h * 4) as usize]),
            ArgValue::U32(w / 16),
            ArgValue::U32((w / 16) * (h / 16)),
        ],
    });
    let tiles = 10u32;
    let roles = tma_tiles::tma_roles::SPEC;
    let x = roles
        .map_type("x")
        .expect("a map parameter")
        .tiled(0, &[32, tiles as u64 * 8], &[128])
        .expect("a valid map");
    cases.push(Case {
        name: "tma_roles".into(),
        spec: roles,
        launch: launch((3, 1, 1), (384, 1, 1)),
        args: vec![
            ArgValue::from(TensorMapArg::owning(
                x,
                bytes(floats(rng, tiles as usize * 256)),
            )),
            ArgValue::zeroed(tiles as usize * 256 * 4),
            ArgValue::U32(tiles),
        ],
    });
    // Two CTAs of a cluster sharing `b`'s tiles through multicast.
    let (clusters, steps) = (4u32, 6u32);
    let mc = tma_tiles::tma_multicast::SPEC;
    let mc_map = |name: &str, rows: u32, data: Vec<f32>| {
        let map = mc
            .map_type(name)
            .expect("a map parameter")
            .tiled(0, &[16, rows as u64], &[64])
            .expect("a valid map");
        ArgValue::from(TensorMapArg::owning(map, bytes(data)))
    };
    let a_len = (clusters * steps * 2 * 256) as usize;
    cases.push(Case {
        name: "tma_multicast".into(),
        spec: mc,
        launch: Launch {
            cluster: Some((2, 1, 1)),
            ..launch((clusters * 2, 1, 1), (160, 1, 1))
        },
        args: vec![
            mc_map("a", clusters * steps * 32, floats(rng, a_len)),
            mc_map("b", steps * 16, floats(rng, (steps * 256) as usize)),
            ArgValue::zeroed(a_len * 4),
            ArgValue::U32(steps),
        ],
    });
    // wgmma (tf32) on small integers: every product and sum exact, so bit for bit.
    let (m, n, k) = (128u32, 128u32, 8 * 32u32);
    let gemm = wgmma_gemm::wgmma_gemm::SPEC;
    let mut operand = |name: &str, rows: u32, seed: u32| {
        let map = gemm
            .map_type(name)
            .expect("a map parameter")
            .tiled(0, &[k as u64, rows as u64], &[k as u64 * 4])
            .expect("a valid map");
        let data = wgmma_gemm::operand(rows, k, seed ^ rng.below(1 << 16) as u32);
        ArgValue::from(TensorMapArg::owning(map, bytes(data)))
    };
    let (a, b) = (operand("a", m, 1), operand("b", n, 2));
    cases.push(Case {
        name: "wgmma_gemm".into(),
        spec: gemm,
        launch: launch((n / 64, m / 64, 1), (256, 1, 1)),
        args: vec![
            a,
            b,
            ArgValue::zeroed((m * n) as usize * 4),
            ArgValue::U32(n),
            ArgValue::U32(k / 32),
        ],
    });
    // The Hopper GEMM of the kernel language, launched through the runtime's GPU path on one
    // cluster (small integers: the only rounding, the final one to bf16, is the same anywhere),
    // and its fp8 instance (e4m3, the scales on the f32 sums: the tensor cores' fp8 accumulation
    // holds these sums exactly at this K).
    let (m, n, k) = (256u32, 512u32, 192u32);
    let seed = rng.below(1 << 16) as u32;
    let halves =
        |v: Vec<phasegate::prelude::bf16>| v.iter().flat_map(|x| x.to_le_bytes()).collect();
    let (a, b) = (
        gemm_hopper::operand(m, k, seed),
        gemm_hopper::operand(n, k, seed + 1),
    );
    // Every tiling, on the same product: a 256 × 512 C is 2, 3, 4 and 8 units of them, so the
    // narrower ones' rings wrap across units.
    for tiling in gemm_hopper::Tiling::ALL {
        let spec = tiling.spec();
        cases.push(Case {
            name: spec.entry.into(),
            spec,
            launch: launch((2, 1, 1), (384, 1, 1)),
            args: tiling.arguments((m, n, k), (halves(a.clone()), halves(b.clone()))),
        });
    }
    // K split in parts on four clusters: the parts of a tile meet in the parts' buffer, and
    // the arrival counters come back to zero (both buffers are compared).
    for (tiling, splits) in [
        (gemm_hopper::Tiling::Skinny, 3),
        (gemm_hopper::Tiling::Skinny16, 3),
        (gemm_hopper::Tiling::Skinny32, 2),
        (gemm_hopper::Tiling::Skinny128, 2),
        (gemm_hopper::Tiling::N128, 2),
    ] {
        let spec = tiling.spec_split(splits).expect("a split kernel");
        cases.push(Case {
            name: spec.entry.into(),
            spec,
            launch: launch((8, 1, 1), (384, 1, 1)),
            args: tiling.arguments_split((m, n, k), (halves(a.clone()), halves(b.clone())), splits),
        });
    }
    // Stream-K: on three clusters the 256-column tiling's two tiles are each cut into two
    // pieces; on two, the 192-column one's three tiles are whole, in two pieces, whole.
    for (tiling, clusters) in [
        (gemm_hopper::Tiling::N256, 3),
        (gemm_hopper::Tiling::N192, 2),
    ] {
        let spec = tiling.spec_stream().expect("a stream-K kernel");
        let stream = gemm_hopper::Stream::deal(tiling.units(m, n), k.div_ceil(64), clusters);
        cases.push(Case {
            name: spec.entry.into(),
            spec,
            launch: launch((2 * clusters, 1, 1), (384, 1, 1)),
            args: tiling.arguments_stream(
                (m, n, k),
                (halves(a.clone()), halves(b.clone())),
                stream,
            ),
        });
    }
    // Five stages of 128 of K: the promoting kernel's first stage alone, then two pairs.
    let k = 640u32;
    let seed = rng.below(1 << 16) as u32;
    let (a, b) = (
        gemm_hopper::operand(m, k, seed),
        gemm_hopper::operand(n, k, seed + 1),
    );
    let e4m3 = |v: &[phasegate::prelude::bf16]| {
        v.iter()
            .map(|x| phasegate::prelude::f8e4m3::from_f32(x.to_f32()).to_bits())
            .collect()
    };
    let e5m2 = |v: &[phasegate::prelude::bf16]| {
        v.iter()
            .map(|x| phasegate::prelude::f8e5m2::from_f32(x.to_f32()).to_bits())
            .collect()
    };
    for (spec, ab) in [
        (gemm_hopper::gemm_fp8::SPEC, (e4m3(&a), e4m3(&b))),
        (gemm_hopper::gemm_fp8_promoted::SPEC, (e4m3(&a), e4m3(&b))),
        (gemm_hopper::gemm_fp8_e5m2::SPEC, (e5m2(&a), e5m2(&b))),
    ] {
        cases.push(Case {
            name: spec.entry.into(),
            spec,
            launch: launch((2, 1, 1), (384, 1, 1)),
            args: gemm_hopper::arguments(&spec, (m, n, k), ab, 1, Some(0.375)),
        });
    }
    // The grouped GEMM on ragged groups, an empty one among them, two clusters: the maps it
    // rewrites with tensormap.replace must address the same rows on both sides.
    let groups = gemm_hopper::Groups {
        rows: vec![200, 0, 72, 300],
        n: 256,
        k: 128,
    };
    let seed = rng.below(1 << 16) as u32;
    let a = gemm_hopper::operand(groups.total_rows(), groups.k, seed);
    let b = gemm_hopper::operand(groups.rows.len() as u32 * groups.n, groups.k, seed + 1);
    let spec = gemm_hopper::grouped_gemm::SPEC;
    cases.push(Case {
        name: spec.entry.into(),
        spec,
        launch: launch((4, 1, 1), (384, 1, 1)),
        args: gemm_hopper::grouped_arguments(&spec, &groups, &a, &b),
    });
    // Attention on the inputs where every rounding is exact on both sides (the GPU's
    // `ex2.approx`, `rcp.approx` and `lg2.approx` included: `attention_hopper::exact`), each
    // kernel in bf16 and f16 on two heads of several key tiles, persistent on 3 CTAs.
    use attention_hopper::Half;
    let kernels = attention_hopper::Kernel::ALL;
    let each = kernels.map(|k| (k, Half::Bf16)).into_iter();
    for (kernel, half) in each.chain(kernels.map(|k| (k, Half::F16))) {
        let p = attention_hopper::Problem {
            heads: 2,
            seq: 512,
            d: kernel.head_dim(),
            causal: false,
        };
        let inputs = attention_hopper::exact(p, rng.next_u64()).expect("exact inputs");
        let grid = attention_hopper::grid(kernel, p, 3);
        cases.push(Case {
            name: kernel.with(half).entry.into(),
            spec: kernel.with(half),
            launch: attention_hopper::launch(kernel, grid),
            args: attention_hopper::arguments(
                (kernel, half),
                p,
                (&inputs.q, &inputs.k, &inputs.v),
                attention_hopper::EXACT_SCALE_LOG2,
                grid.0,
            )
            .expect("attention's arguments"),
        });
    }
    cases
}

pub fn generated_case(seed: u64) -> (Case, String) {
    let k = generate::kernel(seed);
    let n = (k.grid * k.block) as usize;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) ^ seed as u32)
        .collect();
    let spec = KernelSpec {
        entry: Box::leak(k.entry.clone().into_boxed_str()),
        ptx: Box::leak(k.ptx.clone().into_boxed_str()),
        target: "sm_90a",
        params: GENERATED_PARAMS,
        static_shared_bytes: 0,
        dynamic_shared_bytes: 0,
        cluster_dims: None,
        block_dims: None,
        max_threads: None,
    };
    let case = Case {
        name: format!("generated seed {seed} {:?}", k.phases),
        spec,
        launch: launch((k.grid, 1, 1), (k.block, 1, 1)),
        args: vec![
            ArgValue::buffer(&input),
            ArgValue::zeroed(n * 4),
            ArgValue::U32(n as u32),
        ],
    };
    (case, k.ptx)
}

/// One `&mut [u32]` parameter.
const ONE_OUTPUT: &[phasegate::runtime::ParamSpec] = &[phasegate::runtime::ParamSpec {
    name: "out",
    ty: phasegate::runtime::ParamType::Slice {
        elem: phasegate::runtime::ElemType {
            scalar: phasegate::runtime::ScalarKind::U32,
            lanes: 1,
        },
        mutable: true,
    },
}];

const GENERATED_PARAMS: &[phasegate::runtime::ParamSpec] = &[
    phasegate::runtime::ParamSpec {
        name: "input",
        ty: phasegate::runtime::ParamType::Slice {
            elem: phasegate::runtime::ElemType {
                scalar: phasegate::runtime::ScalarKind::U32,
                lanes: 1,
            },
            mutable: false,
        },
    },
    phasegate::runtime::ParamSpec {
        name: "output",
        ty: phasegate::runtime::ParamType::Slice {
            elem: phasegate::runtime::ElemType {
                scalar: phasegate::runtime::ScalarKind::U32,
                lanes: 1,
            },
            mutable: true,
        },
    },
    phasegate::runtime::ParamSpec {
        name: "n",
        ty: phasegate::runtime::ParamType::Scalar(phasegate::runtime::ScalarKind::U32),
    },
];

/// Runs one case both ways; `Ok(true)` when they agree.
pub fn compare(gpu: &Gpu, case: &Case) -> Result<bool, String> {
    let mut simulated = case.args.clone();
    match simulate_spec(&case.spec, &case.launch, &mut simulated) {
        Ok(Outcome::Completed(_)) => {}
        Ok(other) => return Err(format!("the simulator reported {other:?}")),
        Err(e) => return Err(format!("simulator error: {e:?}")),
    }
    let mut on_gpu = case.args.clone();
    gpu.launch_values(
        &case.spec,
        &case.launch,
        &mut on_gpu,
        Duration::from_secs(10),
    )
    .map_err(|e| e.to_string())?;
    let mut same = true;
    for (i, (s, g)) in simulated.iter().zip(&on_gpu).enumerate() {
        // Tensor-map slots hold the maps a kernel wrote, addresses and all: the simulator's
        // addresses are not the GPU's. The outputs of the copies through them are compared.
        if case.spec.params[i].ty == phasegate::runtime::ParamType::MapSlots {
            continue;
        }
        let (s, g) = match (s, g) {
            (ArgValue::Buffer(s), ArgValue::Buffer(g)) => (s, g),
            (ArgValue::TensorMap(s), ArgValue::TensorMap(g)) => match (&s.tensor, &g.tensor) {
                (TensorSource::Own(s), TensorSource::Own(g)) => (s, g),
                _ => continue,
            },
            _ => continue,
        };
        if s != g {
            {
                let first = s
                    .chunks(4)
                    .zip(g.chunks(4))
                    .position(|(a, b)| a != b)
                    .unwrap_or(0);
                println!(
                    "MISMATCH {}: argument {i} differs first at word {first}: sim {:?} gpu {:?}",
                    case.name,
                    &s[first * 4..(first * 4 + 4).min(s.len())],
                    &g[first * 4..(first * 4 + 4).min(g.len())]
                );
                same = false;
            }
        }
    }
    Ok(same)
}
