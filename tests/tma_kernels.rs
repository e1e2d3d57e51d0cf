//! Tensor-map parameters: the kernels of `examples/tma_tiles.rs` simulated under several
//! schedules against a CPU reference (exact: the copies move bits, the arithmetic is one
//! rounding per element), and the launch's checks of a map against the parameter's type.

#[path = "../examples/tma_tiles.rs"]
#[allow(dead_code)]
mod tma_tiles;

use phasegate::runtime::sim::{Launch, Policy, RunError, Schedule, TensorMapArg, TmaDataType};
use phasegate::runtime::{MapType, ParamType, ScalarKind};
use tma_tiles::{tma_add, tma_multicast, tma_roles, tma_scale};

fn schedules() -> Vec<Schedule> {
    [Policy::RoundRobin, Policy::Random, Policy::Pct { depth: 3 }]
        .into_iter()
        .flat_map(|policy| (1..=2).map(move |seed| Schedule { policy, seed }))
        .collect()
}

fn launch(grid: u32, schedule: Schedule) -> Launch {
    Launch {
        grid: (grid, 1, 1),
        block: (160, 1, 1),
        schedule,
        ..Launch::default()
    }
}

fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn the_map_types_are_in_the_kernel_spec() {
    assert_eq!(
        tma_scale::SPEC.params[0].ty,
        ParamType::TensorMap(MapType {
            elem: ScalarKind::F32,
            rank: 2,
            box_dims: [32, 8, 1, 1, 1],
            swizzle: 128,
        })
    );
    // 128 bytes aligned to 64 in the parameter block, as nvcc lays out a CUtensorMap.
    let (offsets, end) = tma_add::SPEC.param_layout();
    assert_eq!(offsets, vec![0, 128, 256, 384, 388]);
    assert_eq!(end, 392);
    assert!(tma_scale::PTX.contains(".param .align 64 .b8 tma_scale_param_0[128]"));
    // 128-byte swizzled boxes start on 1024-byte boundaries of the dynamic shared memory.
    assert!(tma_scale::PTX.contains(".extern .shared .align 1024 .b8 tma_scale_dynamic_smem[]"));
    assert!(tma_scale::PTX.contains("mbarrier.arrive.expect_tx.shared::cta.b64"));
    assert!(tma_add::PTX.contains("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"));
}

#[test]
fn tma_scale_matches_the_reference_under_every_policy() {
    let (w, h) = (96u32, 24u32);
    let x: Vec<f32> = (0..w * h).map(|i| (i as f32) * 0.37 - 11.0).collect();
    let map = tma_scale::SPEC
        .map_type("x")
        .unwrap()
        .tiled(0, &[w as u64, h as u64], &[w as u64 * 4])
        .unwrap();
    for schedule in schedules() {
        let x_arg = TensorMapArg::owning(map.clone(), bytes(&x));
        let mut y = vec![0f32; (w * h) as usize];
        let tiles = (w / 32) * (h / 8);
        tma_scale::simulate(
            &launch(2, schedule),
            (&x_arg, &mut y, -1.5f32, w, w / 32, tiles),
        )
        .unwrap_or_else(|e| panic!("{schedule}: {e}"));
        for (i, (y, x)) in y.iter().zip(&x).enumerate() {
            assert_eq!(*y, -1.5 * x, "element {i} under {schedule}");
        }
    }
}

#[test]
fn tma_add_stores_the_sum_through_its_map() {
    let (w, h) = (48u32, 32u32);
    let a: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..w * h).map(|i| 1000.0 - 2.0 * i as f32).collect();
    let map = |name| {
        tma_add::SPEC
            .map_type(name)
            .unwrap()
            .tiled(0, &[w as u64, h as u64], &[w as u64 * 4])
            .unwrap()
    };
    for schedule in schedules() {
        let a_arg = TensorMapArg::owning(map("a"), bytes(&a));
        let b_arg = TensorMapArg::owning(map("b"), bytes(&b));
        let mut c_arg = TensorMapArg::owning(map("c"), vec![0; (w * h * 4) as usize]);
        let tiles = (w / 16) * (h / 16);
        tma_add::simulate(
            &launch(3, schedule),
            (&a_arg, &b_arg, &mut c_arg, w / 16, tiles),
        )
        .unwrap_or_else(|e| panic!("{schedule}: {e}"));
        let c = floats(c_arg.data().unwrap());
        for i in 0..(w * h) as usize {
            assert_eq!(c[i], a[i] + b[i], "element {i} under {schedule}");
        }
    }
}

#[test]
fn a_map_that_differs_from_the_parameter_type_is_refused_naming_the_field() {
    let t = tma_scale::SPEC.map_type("x").unwrap();
    let good = t.tiled(0, &[64, 16], &[256]).unwrap();
    let run = |map| {
        let arg = TensorMapArg::owning(map, vec![0; 64 * 16 * 4]);
        let mut y = vec![0f32; 64 * 16];
        match tma_scale::simulate(
            &launch(1, Schedule::default()),
            (&arg, &mut y, 1.0f32, 64u32, 2u32, 4u32),
        ) {
            Err(RunError::Simulator(e)) => e.to_string(),
            other => panic!("expected an argument error, got {other:?}"),
        }
    };
    let mut boxed = good.clone();
    boxed.box_dims[1] = 16;
    assert!(run(boxed).contains("the map's box is [32, 16], the parameter's type has [32, 8]"));
    let unswizzled = good
        .clone()
        .with_swizzle(phasegate::runtime::sim::Swizzle::None)
        .unwrap();
    assert!(run(unswizzled).contains("swizzles 0-byte spans, the parameter's type 128"));
    let mut typed = good.clone();
    typed.dtype = TmaDataType::U32;
    assert!(run(typed).contains("element type is u32, the parameter's is f32"));
    // The type's own constructor refuses what the driver would.
    let e = t.tiled(0, &[64, 16], &[250]).unwrap_err();
    assert!(e.to_string().contains("stride"), "{e}");
    let e = t.tiled(0, &[64], &[]).unwrap_err();
    assert!(e.to_string().contains("rank 2, 1 dimensions given"), "{e}");
}

#[test]
fn register_roles_run_their_setmaxnreg_and_compute_the_reference() {
    assert!(tma_roles::PTX.contains(".maxnreg 168"));
    assert!(tma_roles::PTX.contains("setmaxnreg.dec.sync.aligned.u32 \t40;"));
    assert!(tma_roles::PTX.contains("setmaxnreg.inc.sync.aligned.u32 \t232;"));
    let tiles = 6u32;
    let x: Vec<f32> = (0..tiles * 256).map(|i| i as f32 - 700.5).collect();
    let map = tma_roles::SPEC
        .map_type("x")
        .unwrap()
        .tiled(0, &[32, tiles as u64 * 8], &[128])
        .unwrap();
    for schedule in schedules() {
        let x_arg = TensorMapArg::owning(map.clone(), bytes(&x));
        let mut y = vec![0f32; x.len()];
        let launch = Launch {
            grid: (2, 1, 1),
            block: (384, 1, 1),
            schedule,
            ..Launch::default()
        };
        tma_roles::simulate(&launch, (&x_arg, &mut y, tiles))
            .unwrap_or_else(|e| panic!("{schedule}: {e}"));
        assert!(y.iter().zip(&x).all(|(y, x)| *y == 2.0 * x), "{schedule}");
    }
}

/// Inputs and the reference of `tma_multicast` for `clusters` clusters of `steps` tiles.
pub fn multicast_case(clusters: u32, steps: u32) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let a: Vec<f32> = (0..clusters * steps * 2 * 256)
        .map(|i| (i % 977) as f32 * 0.5)
        .collect();
    let b: Vec<f32> = (0..steps * 256).map(|i| 3000.0 - i as f32).collect();
    let mut c = vec![0f32; a.len()];
    for (i, c) in c.iter_mut().enumerate() {
        let tile = i / 256;
        let s = (tile / 2) as u32 % steps;
        *c = a[i] + b[s as usize * 256 + i % 256];
    }
    (a, b, c)
}

#[test]
fn multicast_shares_b_between_the_ctas_of_a_cluster() {
    let p = tma_multicast::PTX;
    assert!(p.contains(".multicast::cluster"), "{p}");
    assert!(p.contains("mbarrier.arrive.shared::cluster.b64"));
    assert!(
        !p.contains("arrive.release.cluster"),
        "no GPU-wide fence before each release"
    );
    assert!(p.contains("barrier.cluster.wait.acquire;"), "exit sync");
    let (clusters, steps) = (3u32, 5u32);
    let (a, b, want) = multicast_case(clusters, steps);
    let map = |name, rows: u32| {
        tma_multicast::SPEC
            .map_type(name)
            .unwrap()
            .tiled(0, &[16, rows as u64], &[64])
            .unwrap()
    };
    for schedule in schedules() {
        let a_arg = TensorMapArg::owning(map("a", clusters * steps * 32), bytes(&a));
        let b_arg = TensorMapArg::owning(map("b", steps * 16), bytes(&b));
        let mut c = vec![0f32; a.len()];
        let launch = Launch {
            grid: (clusters * 2, 1, 1),
            block: (160, 1, 1),
            schedule,
            ..Launch::default()
        };
        tma_multicast::simulate(&launch, (&a_arg, &b_arg, &mut c, steps))
            .unwrap_or_else(|e| panic!("{schedule}: {e}"));
        assert_eq!(c, want, "{schedule}");
    }
}
