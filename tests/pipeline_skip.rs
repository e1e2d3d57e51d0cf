//! `Consumer::skip`: two consumer warp groups share one ring, each taking every other tile of
//! the producer's stages and moving past the other's. A parity wait (PTX ISA §9.7.13.15.16)
//! tells only whether the phase of that parity has completed, so a consumer may wait on a
//! stage at most one round of the ring ahead of it: one that skipped a whole ring ahead takes an
//! earlier round's phase for its own. The warp groups' runs over the ring therefore take turns
//! (`ping_pong`), as a ping-pong GEMM's main loops do; without the turns, the analyzer finds the
//! run where the producer re-arms a stage that is still full and shows it.

use phasegate::prelude::*;
use phasegate::ptx::{SmVersion, ptxas};
use phasegate::runtime::sim::{self, Launch};

/// The producer's side of both kernels: `tiles` tiles of `per` stages of 128 floats of `src`,
/// in order (two loops, not one of `tiles * per` stages, which can wrap around).
#[device]
fn produce(producer: &mut Producer<f32, 2, 128>, src: &[f32], tiles: u32, per: u32) {
    for tile in 0..tiles {
        for s in 0..per {
            producer.acquire().load(src, (tile * per + s) * 128);
        }
    }
}

/// Tile `t` is `per` stages of 128 floats, in order; warp group `t % 2` of the two consumers
/// sums each thread's element over the tile's stages into `out[128 t + thread]`, and moves past
/// the other group's tiles (`skip`). Their runs take turns, so that a group waits on a stage only
/// after the other has waited on all of its tile's.
#[kernel(target = "sm_90a", block = "384,1,1")]
fn alternate(src: &[f32], out: &mut [f32], tiles: u32, per: u32) {
    let pipe = pipeline::<f32, 2, 128>(thread_idx_x() == 0, 1, 128);
    if warp_id() < 4 {
        if thread_idx_x() == 0 {
            let mut producer = pipe.producer();
            produce(&mut producer, src, tiles, per);
        }
    } else {
        let wg = warp_id() / 4 - 1;
        let t = thread_idx_x() % 128;
        let mut consumer = pipe.consumer();
        let mut baton = ping_pong::<1, 2>(wg);
        for tile in 0..tiles {
            if tile % 2 == wg {
                let turn = baton.take();
                let mut sum = 0.0f32;
                for _ in 0..per {
                    let slot = consumer.wait();
                    sum += slot.get(t);
                    slot.release();
                }
                baton = turn.pass();
                out[tile * 128 + t] = sum;
            } else {
                consumer.skip(per);
            }
        }
        // As many turns for both groups: group 1 takes an empty one after an odd count.
        if wg == 1 && tiles % 2 == 1 {
            let turn = baton.take();
            baton = turn.pass();
        }
        baton.end();
    }
}

/// The same without the turns: the group that skips runs ahead of the other's stages. Allowed
/// here so that the test can show what the analyzer finds in its PTX.
#[kernel(target = "sm_90a", block = "384,1,1", allow(mbarrier_missing_wait))]
fn alternate_without_turns(src: &[f32], out: &mut [f32], tiles: u32, per: u32) {
    let pipe = pipeline::<f32, 2, 128>(thread_idx_x() == 0, 1, 128);
    if warp_id() < 4 {
        if thread_idx_x() == 0 {
            let mut producer = pipe.producer();
            produce(&mut producer, src, tiles, per);
        }
    } else {
        let wg = warp_id() / 4 - 1;
        let t = thread_idx_x() % 128;
        let mut consumer = pipe.consumer();
        for tile in 0..tiles {
            if tile % 2 == wg {
                let mut sum = 0.0f32;
                for _ in 0..per {
                    let slot = consumer.wait();
                    sum += slot.get(t);
                    slot.release();
                }
                out[tile * 128 + t] = sum;
            } else {
                consumer.skip(per);
            }
        }
    }
}

fn sums(src: &[f32], tiles: u32, per: u32) -> Vec<f32> {
    let mut want = vec![0.0f32; tiles as usize * 128];
    for tile in 0..tiles as usize {
        for s in 0..per as usize {
            for t in 0..128 {
                want[tile * 128 + t] += src[(tile * per as usize + s) * 128 + t];
            }
        }
    }
    want
}

/// Exact over skips that wrap the two-stage ring an odd number of times (3 stages a tile), an
/// even number (4), not at all (1), and an odd count of tiles (group 1's empty last turn).
#[test]
fn two_groups_take_every_other_tile_of_one_ring() {
    for (tiles, per) in [(5u32, 3u32), (4, 4), (3, 1), (6, 2)] {
        let src: Vec<f32> = (0..tiles * per * 128)
            .map(|i| (i % 97) as f32 - 40.0)
            .collect();
        let mut out = vec![0.0f32; tiles as usize * 128];
        let launch = Launch {
            block: (384, 1, 1),
            ..Launch::default()
        };
        sim::simulate(&alternate::SPEC, &launch, (&src, &mut out, tiles, per))
            .expect("runs")
            .expect_completed();
        assert_eq!(out, sums(&src, tiles, per), "{tiles} tiles of {per} stages");
    }
}

/// The analyzer is silent on the kernel with turns and, without them, finds a run where a
/// skipping group's wait takes an earlier round's phase, with the witness that shows it.
#[test]
fn skipping_a_ring_ahead_without_turns_is_found_with_a_witness() {
    let lint = |ptx: &str| {
        let module = phasegate::ptx::parse(ptx).unwrap_or_else(|e| panic!("{e}"));
        phasegate::lints::lint_module(&module, &phasegate::lints::LintConfig::default())
    };
    let found = lint(alternate::PTX);
    assert!(found.is_empty(), "{found:#?}");
    let found = lint(alternate_without_turns::PTX);
    // The producer re-arms a stage's full barrier whose phase has not completed (the skipping
    // group released the stage in the wrong round), and its copy overwrites a stage the other
    // group still reads: each with a witness run.
    let rearm = found
        .iter()
        .find(|d| d.message.contains("pending arrival count") && d.message.contains("to -1"))
        .unwrap_or_else(|| panic!("the re-arm is not found: {found:#?}"));
    assert_eq!(rearm.lint, "mbarrier_missing_wait");
    assert!(rearm.witness.is_some(), "{rearm:#?}");
    assert!(
        found
            .iter()
            .any(|d| d.message.contains("overwrites shared memory") && d.witness.is_some()),
        "{found:#?}"
    );
}

#[test]
fn the_skipping_kernels_assemble() {
    let ptxas = ptxas::locate().unwrap_or_else(|e| panic!("{e}"));
    for ptx in [alternate::PTX, alternate_without_turns::PTX] {
        let arch = SmVersion::arch_specific(90);
        let result = ptxas::assemble(&ptxas, ptx, arch).unwrap_or_else(|e| panic!("{e}"));
        // Clean, and without a performance loss (a serialized or fenced wgmma, an ignored
        // `setmaxnreg`), as `tests/ptxas.rs` requires of every emitted kernel.
        assert!(
            result.clean && result.performance_losses().is_empty(),
            "{}\n{ptx}",
            result.log
        );
    }
}
