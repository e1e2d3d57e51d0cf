//! A Hopper GEMM in the kernel language: `C = A · Bᵀ` in bf16 with f32 accumulation, the
//! structure of NVIDIA's fastest kernels, with every protocol typed.
//!
//! A is `M × K` and B is `N × K`, both row-major (K contiguous: cuBLAS's "TN"); C is `M × N`
//! row-major. Each CTA computes a 128 × 256 tile of C; the two CTAs of a cluster take two
//! neighbouring 128-row tiles that share B's 256 rows, and each loads half of them and
//! multicasts it into both CTAs' stages (`load_tiles_multicast`). Warp group 0 produces: one
//! thread issues the tensor copies into a 4-stage ring of 48 KiB stages and gives its
//! registers back (`setmaxnreg.dec` to 40). Warp groups 1 and 2 consume (`setmaxnreg.inc` to
//! 232): each multiplies its 64 rows of the stage's A box by the 256 rows of B with four
//! `wgmma.mma_async.m64n256k16.f32.bf16.bf16` per stage into 128 f32 registers a thread,
//! keeping one wgmma group in flight, and releases a stage on both CTAs once its group is
//! complete. The epilogue rounds the accumulator to bf16 into 128-byte-swizzled staging tiles
//! (`stage_columns`) and stores them with tensor stores. The grid is persistent: cluster `q`
//! of `Q` takes work units `q, q + Q, ...`, a unit being a pair of M tiles and an N tile.
//!
//! None of the protocol is written by hand: the stage's transaction bytes come from the maps'
//! box types, the wgmma descriptors from their swizzle, `wgmma.fence` is placed by the
//! accumulator's type, reading the accumulator before its groups completed does not compile,
//! the register roles are checked to balance, and the cluster pipeline waits for both CTAs'
//! consumers before a stage is refilled and for the whole cluster before a CTA exits.
//!
//! Launch: blocks of 384 threads in clusters of 2, an even grid (132 CTAs fill an H100),
//! `SPEC.dynamic_shared_bytes` of dynamic shared memory; maps from `SPEC.map_type`: A over
//! `[K, M]`, B over `[K, N]`, C over `[N, M]` (dimension 0 first). `cargo run --example
//! gemm_hopper` prints the PTX and checks a 256 × 512 × 192 product in the simulator.

use phasegate::prelude::*;
use phasegate::runtime::KernelSpec;
use phasegate::runtime::sim::{ArgValue, Launch, Outcome, TensorMapArg, simulate_spec};

// ANCHOR: kernel
/// Tile `u`'s pair of 128-row tiles and its column tile, `[row pair, column tile]`, of
/// `m_pairs` row pairs and `n_tiles` column tiles: in strips of 8 row pairs, a strip's tiles
/// column after column (the last strip as wide as what is left). A wave of 66 clusters then
/// covers about 8 row pairs by 8 column tiles instead of 64 row pairs (all of A, at 16384
/// rows) by 2 column tiles, so that it reads a quarter of the operand bytes per stage of K.
#[device]
pub fn unit_tile(u: u32, m_pairs: u32, n_tiles: u32) -> [u32; 2] {
    let first = u / (8 * n_tiles) * 8;
    let width = min(8u32, m_pairs - first);
    let inside = u - first * n_tiles;
    [first + inside % width, inside / width]
}

/// Stream-K's unit `u` of its cluster (of `clusters`), whose run is stages `begin..end` of the
/// tiles past `whole` (a whole number of waves), `stages` stages a tile, counted tile after
/// tile: `[tile, first stage, stages]`, the cluster's whole tiles first, then the tiles its run
/// touches; 0 stages for a unit past them (it does nothing). The fourth lane is unused.
#[device]
fn stream_unit(u: u32, clusters: u32, whole: u32, stages: u32, begin: u32, end: u32) -> [u32; 4] {
    let item = u / clusters;
    if item < whole / clusters {
        [u, 0u32, stages, 0u32]
    } else {
        let tile = begin / stages + item - whole / clusters;
        let first = max(begin, tile * stages);
        let last = min(end, tile * stages + stages);
        let count = if first < last { last - first } else { 0u32 };
        [whole + tile, first - tile * stages, count, 0u32]
    }
}

/// Which of tile `tile`'s pieces the one from stage `first` is, in the order of K, and how many
/// there are: the run boundaries (multiples of `span`) inside the tile cut it. A whole tile
/// (before `whole`) is one piece.
#[device]
fn stream_piece(tile: u32, whole: u32, span: u32, stages: u32, first: u32) -> [u32; 2] {
    if tile < whole {
        [0u32, 1u32]
    } else {
        let begin = (tile - whole) * stages;
        [
            (begin + first) / span - begin / span,
            1 + (begin + stages - 1) / span - begin / span,
        ]
    }
}

/// `C = A · Bᵀ` over `m × n × k`, tile by tile (see the module documentation), for A and B of
/// element type `$t` in stages of `$kt` of K (one 128-byte swizzle span: 64 bf16, 128 fp8), in
/// units of `$nt` columns, and with fp8 the product of the per-tensor scales. The main loop
/// either keeps `in_flight` wgmma groups in the tensor cores across stages, or, with
/// `promote = total`, adds each stage's product into an f32 `total` (fp8's promotion). C goes
/// out in blocks of `$cw` columns of the accumulator through a map of `[$bw, $bh]` boxes with
/// swizzle `$cswz` (`[$cw, 64]`: `$cw` columns of C by 64 rows; transposed, `[64, $cw]`: the
/// block's columns are C's rows), staged by `$stage` (`$stage_t` for a transposed instance; the
/// others never run that branch, but it must still name a method their accumulator has). A
/// staging tile is `32 · $cw` pairs either way.
macro_rules! gemm_kernel {
    (
        $name:ident, $t:ident, k_tile = $kt:literal, n_tile = $nt:literal, b_rows = $br:literal,
        stages = $st:literal, blocks = [$($block:literal),+], staging = $tiles:literal,
        c_tile = ($cw:literal, [$bw:literal, $bh:literal], $cswz:ident, $stage:ident, $stage_t:ident)
        $(, in_flight = $pending:literal)? $(, promote = $total:ident)? $(, scale = $scale:ident)?
        $(, transposed = $transposed:literal)?
        $(, split = ($partials:ident, $arrivals:ident, $splits:ident, $part:ident, $arrival:ident))?
        $(, stream = ($sk_partials:ident, $sk_arrivals:ident, $whole:ident, $span:ident, $k0:ident, $parts:ident))?
    ) => {
        #[kernel(
            target = "sm_90a",
            block = "384,1,1",
            cluster = "2,1,1",
            max_registers = 168
        )]
        pub fn $name(
            a: TensorMap<$t, Tile2<$kt, 128>, Swizzle128B>,
            b: TensorMap<$t, Tile2<$kt, $br>, Swizzle128B>,
            c: TensorMap<bf16, Tile2<$bw, $bh>, $cswz>,
            m: u32,
            n: u32,
            k: u32,
            $($scale: f32,)?
            $($partials: &mut [f32], $arrivals: &mut [u32], $splits: u32,)?
            $($sk_partials: &mut [f32], $sk_arrivals: &mut [u32], $whole: u32, $span: u32,)?
        ) {
            let regs = warpgroup_registers::<168>();
            // A stage: A's 128 rows of `$kt` elements, then B's 256 rows (one 128-row slice
            // from each CTA).
            let pipe = pipeline_cluster::<$t, $st, { (128 + $nt) * $kt }, 2>(thread_idx_x() == 0, 1, 256);
            let rank = cluster_cta_rank();
            let m_pairs = (m + 255) / 256;
            let n_tiles = (n + $nt - 1) / $nt;
            let units = m_pairs * n_tiles $(* $splits)?;
            let k_tiles = (k + $kt - 1) / $kt;
            // Split K: unit `u` is part `u % splits` of tile `u / splits`, a run of `k_per`
            // stages (the last part what is left).
            $(let k_per = (k_tiles + $splits - 1) / $splits;)?
            let cluster = block_idx_x() / 2;
            let clusters = grid_dim_x() / 2;
            // Stream-K: the first `whole` tiles whole, a wave of clusters at a time; the stages
            // of the other tiles, tile after tile, `$span` to a cluster, so that every cluster
            // ends its last wave at about the same stage. A tile whose stages fall to several
            // clusters is summed in `$sk_partials` like a split's parts, in the order of its
            // stages. Unit `u` is the cluster's item `u / clusters`: its whole tiles, then the
            // tiles its run of stages touches (an item past them does nothing).
            $(
                let whole = $whole / clusters * clusters;
                let tiles = units;
                let sk_stages = (tiles - whole) * k_tiles;
                let sk_begin = min(cluster * $span, sk_stages);
                let sk_end = min(sk_begin + $span, sk_stages);
                let units = (whole / clusters + ($span + k_tiles - 1) / k_tiles + 1) * clusters;
            )?
            if warp_id() < 4 {
                let _producer = regs.release::<40, 1>();
                if warp_id() == 0 && elect_one() {
                    a.prefetch();
                    b.prefetch();
                    c.prefetch();
                    let mut producer = pipe.producer();
                    for u in (cluster..units).step_by(clusters) {
                        $(
                            let $part = u % $splits;
                            let u = u / $splits;
                            let k_tiles = min(k_per, k_tiles - $part * k_per);
                        )?
                        let valid = true;
                        $(
                            let unit = stream_unit(u, clusters, whole, k_tiles, sk_begin, sk_end);
                            let valid = valid && unit[2] > 0;
                            let u = unit[0];
                            let $k0 = unit[1];
                            let k_tiles = unit[2];
                        )?
                        if valid {
                            let tile = unit_tile(u, m_pairs, n_tiles);
                            let m0 = (tile[0] * 2 + rank) * 128;
                            let n0 = tile[1] * $nt + rank * $br;
                            for kt in 0..k_tiles {
                                $(let kt = kt + $part * k_per;)?
                                $(let kt = kt + $k0;)?
                                producer
                                    .acquire()
                                    .load_tiles_multicast(&a, [kt * $kt, m0], &b, [kt * $kt, n0]);
                            }
                        }
                    }
                }
            } else {
                let _consumer = regs.claim::<232, 2>();
                let wg = warp_id() / 4 - 1;
                let leader = thread_idx_x() % 128 == 0;
                let epilogue = named_barrier_dyn(1 + wg, 128);
                // `$tiles` 64 × 64 staging tiles per consumer warp group, as many as the
                // blocks or a divisor of them, so that block b of every unit takes tile
                // b % $tiles.
                let mut staging = shared_array::<[bf16; 2], { 64 * $cw * $tiles }>();
                let tile0 = wg * 32 * $cw * $tiles;
                let mut consumer = pipe.consumer();
                for u in (cluster..units).step_by(clusters) {
                    $(
                        let $part = u % $splits;
                        let u = u / $splits;
                        let k_tiles = min(k_per, k_tiles - $part * k_per);
                    )?
                    let valid = true;
                    $(
                        let unit = stream_unit(u, clusters, whole, k_tiles, sk_begin, sk_end);
                        let valid = valid && unit[2] > 0;
                        let u = unit[0];
                        let piece = stream_piece(u, whole, $span, k_tiles, unit[1]);
                        let part = piece[0];
                        let $parts = piece[1];
                        let k_tiles = unit[2];
                    )?
                    if valid {
                        let tile = unit_tile(u, m_pairs, n_tiles);
                        let row = (tile[0] * 2 + rank) * 128 + wg * 64;
                        let col = tile[1] * $nt;
                        // With promotion (fp8), each stage's product is summed by the tensor cores
                        // into a fresh accumulator, which is then added into an f32 total: a long
                        // K is summed in f32, as cuBLAS and torch do without fast accumulation.
                        // Promoting: the stages after the first go in pairs after the loop
                        // below, which takes the first and, for an even count, the next.
                        $(
                            let mut $total = accumulator::<f32, 64, $nt>();
                            let pairs = (k_tiles - 1) / 2;
                            let k_tiles = k_tiles - 2 * pairs;
                        )?
                        let slot = consumer.wait();
                        let mut acc = accumulator::<f32, 64, $nt>()
                            .mma_block(&slot, &a, &b, wg)
                            .commit();
                        let mut held = slot.retire();
                        for _ in 1..k_tiles {
                            let slot = consumer.wait();
                            // Accumulating in the tensor cores: `$pending` group in flight, the
                            // group that read the held stage complete, so it goes back.
                            $(
                                acc = acc.mma_block(&slot, &a, &b, wg).commit().wait::<$pending>();
                                held.release();
                                held = slot.retire();
                            )?
                            // Promoting: the held stage's product complete, added to the total, and
                            // this stage's started on the same registers (`reset`).
                            $(
                                let done = acc.wait::<0>();
                                held.release();
                                $total.add(&done);
                                acc = done.reset().mma_block(&slot, &a, &b, wg).commit();
                                held = slot.retire();
                            )?
                        }
                        let acc = acc.wait::<0>();
                        held.release();
                        // Promoting, two stages a turn on two accumulators: the second stage's
                        // product runs on the tensor cores while the first's is added into the
                        // total (`wait_behind`: every group but the newest complete). Each turn
                        // ends with no group in flight, so that ptxas keeps the wgmmas
                        // asynchronous (a group carried around the loop and read in it makes
                        // ptxas serialize them, its warning C7514).
                        $(
                            $total.add(&acc);
                            let mut first = acc;
                            let mut second = accumulator::<f32, 64, $nt>();
                            for _ in 0..pairs {
                                let slot = consumer.wait();
                                let running = first.reset().mma_block(&slot, &a, &b, wg).commit();
                                let first_held = slot.retire();
                                let slot = consumer.wait();
                                let next = second.reset().mma_block(&slot, &a, &b, wg).commit();
                                let second_held = slot.retire();
                                first = running.wait_behind(&next);
                                first_held.release();
                                $total.add(&first);
                                second = next.wait::<0>();
                                second_held.release();
                                $total.add(&second);
                            }
                            let acc = $total;
                        )?
                        // fp8: the scales, on the f32 sums.
                        $(
                            let mut acc = acc;
                            acc.scale($scale);
                        )?
                        // Split K: this part stored, and the warp group that arrives last adds
                        // the parts up and stores C.
                        let last = true;
                        // ANCHOR: split
                        $(
                            // A part a warp group of each tile, 64 × `$nt` in the warp group's order.
                            let group = (u * 2 + rank) * 2 + wg;
                            let $arrival = acc
                                .store_partial($partials, group * 64 * $nt, $part, units / $splits * 256 * $nt)
                                .arrive($arrivals, group, $splits, &epilogue);
                            let last = last && $arrival.last();
                        )?
                        // Stream-K: a tile in several pieces is summed as a split's parts are;
                        // a whole tile (one piece) goes to the epilogue as it is.
                        // ANCHOR: stream
                        $(
                            let mut sk_last = true;
                            let acc = if $parts == 1 {
                                acc
                            } else {
                                let group = ((u - whole) * 2 + rank) * 2 + wg;
                                let arrival = acc
                                    .store_partial($sk_partials, group * 64 * $nt, part, (tiles - whole) * 256 * $nt)
                                    .arrive($sk_arrivals, group, $parts, &epilogue);
                                sk_last = arrival.last();
                                if arrival.last() {
                                    arrival.total()
                                } else {
                                    accumulator::<f32, 64, $nt>()
                                }
                            };
                            let last = last && sk_last;
                        )?
                        // ANCHOR_END: stream
                        if last {
                        $(
                            let acc = $arrival.total();
                        )?
                        // ANCHOR_END: split
                        // Transposed (`gemm_skinny`): the product is Cᵀ, its rows C's columns.
                        let transposed = 0 $(+ $transposed)?;
                        // Epilogue: the 64-column blocks through the staging tiles. Before a tile
                        // is written again, the tensor store that read it `$tiles` blocks ago must
                        // have read it.
                        $(
                            if leader {
                                bulk_wait_read($tiles - 1);
                            }
                            epilogue.sync();
                            if transposed != 0 {
                                acc.$stage_t(&mut staging, tile0 + $block % $tiles * 32 * $cw, $block);
                            } else {
                                acc.$stage(&mut staging, tile0 + $block % $tiles * 32 * $cw, $block);
                            }
                            fence_proxy_async();
                            epilogue.sync();
                            if leader {
                                let tile = tile0 + $block % $tiles * 32 * $cw;
                                if transposed != 0 {
                                    tma_store(&c, [row, col + $cw * $block], &staging, tile);
                                } else {
                                    tma_store(&c, [col + $cw * $block, row], &staging, tile);
                                }
                                bulk_commit();
                            }
                        )+
                        }
                    }
                }
                if leader {
                    bulk_wait(0);
                }
            }
        }
    };
}

/// `gemm_kernel!` of `$name` and, from the same parameters, of `$split`, the tiling with K in
/// `splits` parts (`Tiling::splits`: for products with fewer units than clusters; each part's
/// sums meet in `partials`, and the warp group that adds the last part stores C), or of
/// `$stream`, the tiling in stream-K (`Tiling::stream`: where the last wave of whole tiles
/// would leave clusters idle for long). One list of parameters for both, so that a split or
/// stream-K kernel is its tiling's kernel and the parts' sum, nothing else.
macro_rules! gemm_kernels {
    ($name:ident $(, split: $split:ident)? $(, stream: $stream:ident)?; $($params:tt)*) => {
        gemm_kernels!(@group $name $(, split: $split)? $(, stream: $stream)?; { $($params)* });
    };
    // The parameters as one group, which the optional names' repetitions may repeat.
    (@group $name:ident $(, split: $split:ident)? $(, stream: $stream:ident)?; $params:tt) => {
        gemm_kernel_with!($name, $params);
        $(gemm_kernel_with!($split, $params, split = (partials, arrivals, splits, part, arrival));)?
        $(gemm_kernel_with!($stream, $params, stream = (partials, arrivals, whole, span, k0, parts));)?
    };
}

/// `gemm_kernel!` of `$name` with the group `$params` and, if given, one more clause.
macro_rules! gemm_kernel_with {
    ($name:ident, { $($params:tt)* } $(, $($clause:tt)*)?) => {
        gemm_kernel!($name, $($params)* $(, $($clause)*)?);
    };
}
gemm_kernels!(
    gemm_hopper, stream: gemm_hopper_stream;
    bf16,
    k_tile = 64,
    n_tile = 256,
    b_rows = 128,
    stages = 4,
    blocks = [0, 1, 2, 3],
    staging = 2,
    c_tile = (
        64,
        [64, 64],
        Swizzle128B,
        stage_columns,
        stage_columns_transposed
    ),
    in_flight = 1
);
// Narrower tiles of C for the shapes where 256 columns leave SMs idle (see `Tiling::choose`):
// more units, each cheaper; deeper rings in the same shared memory.
gemm_kernels!(
    gemm_hopper_n192, stream: gemm_hopper_n192_stream;
    bf16,
    k_tile = 64,
    n_tile = 192,
    b_rows = 96,
    stages = 5,
    blocks = [0, 1, 2],
    staging = 1,
    c_tile = (
        64,
        [64, 64],
        Swizzle128B,
        stage_columns,
        stage_columns_transposed
    ),
    in_flight = 1
);
// 160 columns (five blocks of 32, stored through a map of 32-column boxes): units that fit the
// machine where 128 and 192 do not (1536 columns: 10 tiles; 6 row pairs make 60 units for 66
// clusters, where 192 columns make 48).
gemm_kernel!(
    gemm_hopper_n160,
    bf16,
    k_tile = 64,
    n_tile = 160,
    b_rows = 80,
    stages = 5,
    blocks = [0, 1, 2, 3, 4],
    staging = 5,
    c_tile = (32, [32, 64], Swizzle64B, stage_columns_32, stage_columns_32),
    in_flight = 1
);
// 144 columns (nine blocks of 16, stored through a map of 16-column boxes in the 32-byte
// swizzle): 1536 columns are 11 tiles (10.7), so 6 row pairs make 66 units, one for each
// cluster of an H100's or H200's 132 SMs, where 160 columns make 60.
gemm_kernel!(
    gemm_hopper_n144,
    bf16,
    k_tile = 64,
    n_tile = 144,
    b_rows = 72,
    stages = 5,
    blocks = [0, 1, 2, 3, 4, 5, 6, 7, 8],
    staging = 9,
    c_tile = (16, [16, 64], Swizzle32B, stage_columns_16, stage_columns_16),
    in_flight = 1
);
gemm_kernels!(
    gemm_hopper_n128, split: gemm_hopper_n128_split;
    bf16,
    k_tile = 64,
    n_tile = 128,
    b_rows = 64,
    stages = 6,
    blocks = [0, 1],
    staging = 2,
    c_tile = (
        64,
        [64, 64],
        Swizzle128B,
        stage_columns,
        stage_columns_transposed
    ),
    in_flight = 1
);
gemm_kernel!(
    gemm_hopper_n64,
    bf16,
    k_tile = 64,
    n_tile = 64,
    b_rows = 32,
    stages = 8,
    blocks = [0],
    staging = 1,
    c_tile = (
        64,
        [64, 64],
        Swizzle128B,
        stage_columns,
        stage_columns_transposed
    ),
    in_flight = 1
);
// Skinny products (few rows of A: decoding, M up to 128): computed as Cᵀ = B · Aᵀ, so that A's
// rows are the wgmma's N (64 of them a unit) and B's rows, which stream from memory, its M, 128
// a CTA; stored transposed. The kernel's `a` is B's map and `b` A's (`Tiling::Skinny`).
gemm_kernels!(
    gemm_skinny, split: gemm_skinny_split;
    bf16,
    k_tile = 64,
    n_tile = 64,
    b_rows = 32,
    stages = 8,
    blocks = [0],
    staging = 1,
    c_tile = (
        64,
        [64, 64],
        Swizzle128B,
        stage_columns,
        stage_columns_transposed
    ),
    in_flight = 1,
    transposed = 1
);
gemm_kernels!(
    gemm_skinny_n128, split: gemm_skinny_n128_split;
    bf16,
    k_tile = 64,
    n_tile = 128,
    b_rows = 64,
    stages = 6,
    blocks = [0, 1],
    staging = 2,
    c_tile = (
        64,
        [64, 64],
        Swizzle128B,
        stage_columns,
        stage_columns_transposed
    ),
    in_flight = 1,
    transposed = 1
);
// At most 16 rows of A: a unit 16 of them (`wgmma` N = 16), so that no box of A lies past M (a
// 64-row unit's second CTA would load 32 rows of A wholly out of bounds: about 2 µs at 16 ×
// 8192² on an H200), with a quarter of the tensor work and of the split's parts; 12 stages of
// 18 KiB. C's blocks are 16 of its rows by 64 columns (`stage_columns_transposed_16`).
gemm_kernels!(
    gemm_skinny16, split: gemm_skinny16_split;
    bf16,
    k_tile = 64,
    n_tile = 16,
    b_rows = 8,
    stages = 12,
    blocks = [0],
    staging = 1,
    c_tile = (
        16,
        [64, 16],
        Swizzle128B,
        stage_columns_16,
        stage_columns_transposed_16
    ),
    in_flight = 1,
    transposed = 1
);
// At most 32 rows of A: the same with units of 32 rows (`wgmma` N = 32, A's box 16 rows a CTA,
// 10 stages of 20 KiB).
gemm_kernels!(
    gemm_skinny32, split: gemm_skinny32_split;
    bf16,
    k_tile = 64,
    n_tile = 32,
    b_rows = 16,
    stages = 10,
    blocks = [0],
    staging = 1,
    c_tile = (
        32,
        [64, 32],
        Swizzle128B,
        stage_columns_32,
        stage_columns_transposed_32
    ),
    in_flight = 1,
    transposed = 1
);
gemm_kernel!(
    gemm_fp8,
    f8e4m3,
    k_tile = 128,
    n_tile = 256,
    b_rows = 128,
    stages = 4,
    blocks = [0, 1, 2, 3],
    staging = 2,
    c_tile = (
        64,
        [64, 64],
        Swizzle128B,
        stage_columns,
        stage_columns_transposed
    ),
    in_flight = 1,
    scale = scale
);
// fp8 with promotion: 128-column units, so that the stage's product and the f32 total fit
// in registers together (64 + 64 a thread).
gemm_kernel!(
    gemm_fp8_promoted,
    f8e4m3,
    k_tile = 128,
    n_tile = 128,
    b_rows = 64,
    stages = 6,
    blocks = [0, 1],
    staging = 2,
    c_tile = (
        64,
        [64, 64],
        Swizzle128B,
        stage_columns,
        stage_columns_transposed
    ),
    promote = total,
    scale = scale
);
gemm_kernel!(
    gemm_fp8_e5m2,
    f8e5m2,
    k_tile = 128,
    n_tile = 256,
    b_rows = 128,
    stages = 4,
    blocks = [0, 1, 2, 3],
    staging = 2,
    c_tile = (
        64,
        [64, 64],
        Swizzle128B,
        stage_columns,
        stage_columns_transposed
    ),
    in_flight = 1,
    scale = scale
);
// ANCHOR_END: kernel

// ANCHOR: grouped
/// The grouped GEMM's kernel, its epilogue's four 64-column blocks written out (as
/// `gemm_kernel!`'s).
macro_rules! grouped_kernel {
    ($name:ident, blocks = [$($block:literal),+]) => {
        /// Grouped `C_g = A_g · B_gᵀ` for a mixture of experts: group `g` has the rows
        /// `offsets[g]..offsets[g + 1]` of A (all groups' tokens, `[rows, k]`) and of C (`[rows, n]`),
        /// and expert `g`'s weights `b_experts[g · n · k..]` (`[n, k]`). One persistent launch: a unit
        /// is a pair of 128-row tiles of one group and a 256-column tile, numbered group after group,
        /// so a CTA meets each group in one run of its units. At the first unit `u` of a group, a
        /// CTA writes the group's maps into slots of its own, `3 · (2 u + rank)` on (A, B, C): the
        /// templates' bytes with the address and the rows replaced (`tensormap.replace`), released,
        /// then acquired, each unit, by the threads whose copies read them. A tile past its group's
        /// last row loads zeros and stores nothing, so groups of any size need no masks, and no
        /// slot is written twice in a launch. The maps `a`, `b`, `c` are templates
        /// (`[k, rows]`, `[k, n]`, `[n, rows]`): their boxes, swizzles and strides are kept.
        #[kernel(target = "sm_90a", block = "384,1,1", cluster = "2,1,1", max_registers = 168)]
        pub fn $name(
            a: TensorMap<bf16, Tile2<64, 128>, Swizzle128B>,
            b: TensorMap<bf16, Tile2<64, 128>, Swizzle128B>,
            c: TensorMap<bf16, Tile2<64, 64>, Swizzle128B>,
            a_rows: &[bf16],
            b_experts: &[bf16],
            c_rows: &mut [bf16],
            maps: &mut [TensorMapSlot],
            offsets: &[u32],
            groups: u32,
            n: u32,
            k: u32,
        ) {
            let regs = warpgroup_registers::<168>();
            let pipe = pipeline_cluster::<bf16, 4, { 384 * 64 }, 2>(thread_idx_x() == 0, 1, 256);
            let rank = cluster_cta_rank();
            let n_tiles = (n + 255) / 256;
            let k_tiles = (k + 63) / 64;
            let mut units = 0;
            for g in 0..groups {
                units += (offsets[g + 1] - offsets[g] + 255) / 256 * n_tiles;
            }
            let cluster = block_idx_x() / 2;
            let clusters = grid_dim_x() / 2;
            // Both roles walk the groups alike: `g` holds unit `u`, whose units start at `first`,
            // in `pairs` pairs of row tiles; `next` groups are walked so far (none before the
            // first unit: a launch with no groups reads no offset past `offsets[0]`).
            let mut g = 0;
            let mut next = 0;
            let mut first = 0;
            let mut pairs = 0;
            // The group whose maps this CTA wrote last (none yet), and their first slot.
            let mut current = groups;
            let mut map_slot = 0;
            if warp_id() < 4 {
                let _producer = regs.release::<40, 1>();
                if warp_id() == 0 && elect_one() {
                    let mut producer = pipe.producer();
                    for u in (cluster..units).step_by(clusters) {
                        while u >= first + pairs * n_tiles {
                            first += pairs * n_tiles;
                            g = next;
                            pairs = (offsets[g + 1] - offsets[g] + 255) / 256;
                            next += 1;
                        }
                        let row0 = offsets[g];
                        let rows = offsets[g + 1] - row0;
                        let m0 = ((u - first) % pairs * 2 + rank) * 128;
                        let n0 = (u - first) / pairs * 256 + rank * 128;
                        // The first unit of a group on this CTA writes the group's maps into
                        // its slots; the group's later units here read them.
                        // ANCHOR: edit
                        if g != current {
                            current = g;
                            map_slot = (u * 2 + rank) * 3;
                            a.edit(maps, map_slot)
                                .address(a_rows, row0 * k)
                                .global_dim(1, rows)
                                .release();
                            b.edit(maps, map_slot + 1).address(b_experts, g * n * k).release();
                            c.edit(maps, map_slot + 2)
                                .address(c_rows, row0 * n)
                                .global_dim(1, rows)
                                .release();
                        }
                        let a_g = a.published(maps, map_slot);
                        // ANCHOR_END: edit
                        let b_g = b.published(maps, map_slot + 1);
                        for kt in 0..k_tiles {
                            producer
                                .acquire()
                                .load_tiles_multicast(&a_g, [kt * 64, m0], &b_g, [kt * 64, n0]);
                        }
                    }
                }
            } else {
                let _consumer = regs.claim::<232, 2>();
                let wg = warp_id() / 4 - 1;
                let leader = thread_idx_x() % 128 == 0;
                let epilogue = named_barrier_dyn(1 + wg, 128);
                let mut staging = shared_array::<[bf16; 2], 8192>();
                let tile0 = wg * 4096;
                let mut consumer = pipe.consumer();
                for u in (cluster..units).step_by(clusters) {
                    while u >= first + pairs * n_tiles {
                        first += pairs * n_tiles;
                        g = next;
                        pairs = (offsets[g + 1] - offsets[g] + 255) / 256;
                        next += 1;
                    }
                    if g != current {
                        current = g;
                        map_slot = (u * 2 + rank) * 3;
                    }
                    let row = ((u - first) % pairs * 2 + rank) * 128 + wg * 64;
                    let col = (u - first) / pairs * 256;
                    let slot = consumer.wait();
                    let mut acc = accumulator::<f32, 64, 256>()
                        .mma_block(&slot, &a, &b, wg)
                        .commit();
                    let mut held = slot.retire();
                    for _ in 1..k_tiles {
                        let slot = consumer.wait();
                        acc = acc.mma_block(&slot, &a, &b, wg).commit().wait::<1>();
                        held.release();
                        held = slot.retire();
                    }
                    let acc = acc.wait::<0>();
                    held.release();
                    // The producer released the group's C map before it loaded the first stage
                    // of the group's first unit here, which this thread has waited for.
                    let c_g = c.published(maps, map_slot + 2);
                    $(
                        if leader {
                            bulk_wait_read(1);
                        }
                        epilogue.sync();
                        acc.stage_columns(&mut staging, tile0 + $block % 2 * 2048, $block);
                        fence_proxy_async();
                        epilogue.sync();
                        if leader {
                            let tile = tile0 + $block % 2 * 2048;
                            tma_store(&c_g, [col + 64 * $block, row], &staging, tile);
                            bulk_commit();
                        }
                    )+
                }
                if leader {
                    bulk_wait(0);
                }
            }
        }
    };
}
grouped_kernel!(grouped_gemm, blocks = [0, 1, 2, 3]);
// ANCHOR_END: grouped

/// bf16 values of small integers: every product and every sum of `k ≤ 2¹⁶` of them is exact in
/// f32, so the only rounding is the final one to bf16, which any order of summation shares.
pub fn operand(rows: u32, cols: u32, seed: u32) -> Vec<bf16> {
    (0..rows * cols)
        .map(|i| {
            let v = ((i.wrapping_mul(2654435761).wrapping_add(seed) >> 13) % 9) as f32 - 4.0;
            bf16::from_f32(v)
        })
        .collect()
}

/// fp8 (e4m3) values of small integers, exact in e4m3, their products and sums exact in f32.
pub fn operand_fp8(rows: u32, cols: u32, seed: u32) -> Vec<f8e4m3> {
    operand(rows, cols, seed)
        .into_iter()
        .map(|x| f8e4m3::from_f32(x.to_f32()))
        .collect()
}

/// The CPU reference: `C = scale · A · Bᵀ` over `m × n × k`, summed exactly in f32, scaled and
/// rounded once to bf16 (as the kernels do: `mul.rn.f32`, then `cvt.rn.bf16x2.f32`; bf16's scale
/// is 1).
pub fn reference<T: Copy>(
    (a, b): (&[T], &[T]),
    (m, n, k): (usize, usize, usize),
    scale: f32,
    value: impl Fn(T) -> f32,
) -> Vec<bf16> {
    let mut c = vec![bf16::ZERO; m * n];
    for r in 0..m {
        for j in 0..n {
            let sum: f32 = (0..k)
                .map(|x| value(a[r * k + x]) * value(b[j * k + x]))
                .sum();
            c[r * n + j] = bf16::from_f32(sum * scale);
        }
    }
    c
}

/// A kernel's arguments for `m × n × k`: the maps of A and B (owning `a` and `b`, of `elem`
/// bytes an element), C's (0xff, so what a kernel fails to write stands out), the sizes and,
/// for `gemm_fp8`, the scale.
pub fn arguments(
    spec: &KernelSpec,
    (m, n, k): (u32, u32, u32),
    (a, b): (Vec<u8>, Vec<u8>),
    elem: u64,
    scale: Option<f32>,
) -> Vec<ArgValue> {
    let mut args = vec![
        input_map(spec, "a", (m, k), elem, a),
        input_map(spec, "b", (n, k), elem, b),
        output_map(spec, m, n),
        ArgValue::U32(m),
        ArgValue::U32(n),
        ArgValue::U32(k),
    ];
    args.extend(scale.map(ArgValue::F32));
    args
}

/// The map parameter `name` over `data`: a `rows × k` matrix of `elem` bytes an element, over
/// `[k, rows]`.
fn input_map(
    spec: &KernelSpec,
    name: &str,
    (rows, k): (u32, u32),
    elem: u64,
    data: Vec<u8>,
) -> ArgValue {
    let dims = [k as u64, rows as u64];
    let map = spec
        .map_type(name)
        .expect("a map parameter")
        .tiled(0, &dims, &[dims[0] * elem])
        .expect("a valid map");
    ArgValue::from(TensorMapArg::owning(map, data))
}

/// The map of an `m × n` C (over `[n, m]`), its bytes 0xff so that what a kernel fails to write
/// stands out.
fn output_map(spec: &KernelSpec, m: u32, n: u32) -> ArgValue {
    let dims = [n as u64, m as u64];
    let map = spec
        .map_type("c")
        .expect("a map parameter")
        .tiled(0, &dims, &[dims[0] * 2])
        .expect("a valid map");
    ArgValue::from(TensorMapArg::owning(map, vec![0xff; (m * n * 2) as usize]))
}

/// Runs `spec` on `args` in the simulator with `ctas` CTAs (an even number); C.
fn simulate_args(spec: &KernelSpec, mut args: Vec<ArgValue>, ctas: u32) -> Vec<bf16> {
    run_args(spec, &mut args, ctas);
    output(&args)
}

/// Runs `spec` on `args` in the simulator with `ctas` CTAs, leaving the outputs in `args`.
fn run_args(spec: &KernelSpec, args: &mut [ArgValue], ctas: u32) {
    let launch = Launch {
        grid: (ctas, 1, 1),
        block: (384, 1, 1),
        ..Launch::default()
    };
    match simulate_spec(spec, &launch, args) {
        Ok(Outcome::Completed(_)) => {}
        other => panic!("{}: {other:?}", spec.entry),
    }
}

/// C, the third argument's tensor.
fn output(args: &[ArgValue]) -> Vec<bf16> {
    let ArgValue::TensorMap(c) = &args[2] else {
        panic!("C is the third argument");
    };
    c.data()
        .expect("C's own tensor")
        .chunks_exact(2)
        .map(|h| bf16::from_le_bytes([h[0], h[1]]))
        .collect()
}

/// Simulates one tiling with K split in `splits` parts ([`Tiling::splits`]) on an
/// `m × n × k` problem with `ctas` CTAs: C, and the arrival counters as the launch left them
/// (all zero: the last arrival of each tile resets its counter for the next launch).
pub fn simulate_split(
    tiling: Tiling,
    dims: (u32, u32, u32),
    (a, b): (&[bf16], &[bf16]),
    ctas: u32,
    splits: u32,
) -> (Vec<bf16>, Vec<u32>) {
    let bytes = |v: &[bf16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let spec = tiling
        .spec_split(splits)
        .expect("a tiling with a split kernel");
    let mut args = tiling.arguments_split(dims, (bytes(a), bytes(b)), splits);
    run_args(&spec, &mut args, ctas);
    let counters = args.get(7).map(counters).unwrap_or_default();
    (output(&args), counters)
}

/// A stream-K schedule ([`Tiling::stream`]): the kernel's `whole` and `span` arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream {
    /// Tiles computed whole (a whole number of waves of clusters), before the rest's stages
    /// are dealt.
    pub whole: u32,
    /// Stages of K each cluster takes of the rest, tile after tile.
    pub span: u32,
}

impl Stream {
    /// `tiles` tiles of `stages` stages on `clusters` clusters: the tiles of all full waves
    /// but the last whole, the stages of the rest dealt evenly.
    pub fn deal(tiles: u32, stages: u32, clusters: u32) -> Stream {
        let whole = (tiles / clusters).saturating_sub(1) * clusters;
        Stream {
            whole,
            span: ((tiles - whole) * stages).div_ceil(clusters).max(1),
        }
    }

    /// Into how many pieces the dealt stages cut tile `tile` (counted from the first tile
    /// past the whole ones) of `stages` stages: one, and one more for each multiple of `span`
    /// strictly inside it. The kernel computes the same.
    pub fn pieces(self, tile: u32, stages: u32) -> u32 {
        let begin = tile * stages;
        1 + (begin + stages - 1) / self.span - begin / self.span
    }

    /// The most pieces any of the `tiles − whole` dealt tiles is cut into.
    pub fn most_pieces(self, tiles: u32, stages: u32) -> u32 {
        (0..tiles.saturating_sub(self.whole))
            .map(|t| self.pieces(t, stages))
            .max()
            .unwrap_or(1)
    }
}

/// Simulates a stream-K kernel of `tiling` on `dims` with `ctas` CTAs under `stream`; C and
/// the arrival counters after the launch.
pub fn simulate_stream(
    tiling: Tiling,
    dims: (u32, u32, u32),
    (a, b): (&[bf16], &[bf16]),
    ctas: u32,
    stream: Stream,
) -> (Vec<bf16>, Vec<u32>) {
    let bytes = |v: &[bf16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let spec = tiling
        .spec_stream()
        .expect("a tiling with a stream-K kernel");
    let mut args = tiling.arguments_stream(dims, (bytes(a), bytes(b)), stream);
    run_args(&spec, &mut args, ctas);
    let counters = counters(&args[7]);
    (output(&args), counters)
}

/// A `u32` buffer argument's words (the arrival counters after a launch).
fn counters(arg: &ArgValue) -> Vec<u32> {
    match arg {
        ArgValue::Buffer(c) => c
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect(),
        _ => Vec::new(),
    }
}

/// Simulates `gemm_hopper` on an `m × n × k` problem with `ctas` CTAs (an even number); C.
pub fn simulate(m: u32, n: u32, k: u32, a: &[bf16], b: &[bf16], ctas: u32) -> Vec<bf16> {
    simulate_tiling(Tiling::N256, (m, n, k), (a, b), ctas)
}

/// Simulates the bf16 GEMM of one tiling on an `m × n × k` problem with `ctas` CTAs; C.
pub fn simulate_tiling(
    tiling: Tiling,
    dims: (u32, u32, u32),
    (a, b): (&[bf16], &[bf16]),
    ctas: u32,
) -> Vec<bf16> {
    let bytes = |v: &[bf16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let args = tiling.arguments(dims, (bytes(a), bytes(b)));
    simulate_args(&tiling.spec(), args, ctas)
}

/// The bf16 GEMM's tilings: how many columns of C a unit (a cluster's two 128-row tiles)
/// covers. Narrower units are more of them, for the shapes where 256-column units leave SMs
/// without work ([`Tiling::choose`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tiling {
    N256,
    N192,
    /// 160 columns: C stored in blocks of 32 (`stage_columns_32`, a map of 32-column boxes).
    N160,
    /// 144 columns: C stored in blocks of 16 (`stage_columns_16`, a map of 16-column boxes).
    N144,
    N128,
    N64,
    /// `gemm_skinny`: Cᵀ = B · Aᵀ, a unit 256 columns of C (a cluster's two 128-row tiles of
    /// B) times 64 rows of A, stored transposed: for few rows of A, which the others would pad
    /// to 256; for more than 32 of them ([`takes`](Self::takes)).
    Skinny,
    /// `gemm_skinny_n128`: the same with 128 rows of A a unit, for more than 64 rows.
    Skinny128,
    /// `gemm_skinny16`: the same with 16 rows of A a unit, for at most 16 rows
    /// ([`takes`](Self::takes)).
    Skinny16,
    /// `gemm_skinny32`: the same with 32 rows of A a unit, for 17 to 32 rows.
    Skinny32,
}

impl Tiling {
    /// Every tiling; `choose` takes the first of equal estimates, so the M-major ones first
    /// (and 128 columns before 160, which measured as fast where their estimates tie, and 160
    /// before 144), and of the transposed ones the narrowest first, which where it takes a
    /// product at all ([`takes`](Self::takes)) leaves less of A past M.
    pub const ALL: [Tiling; 10] = [
        Tiling::N256,
        Tiling::N192,
        Tiling::N128,
        Tiling::N160,
        Tiling::N144,
        Tiling::N64,
        Tiling::Skinny16,
        Tiling::Skinny32,
        Tiling::Skinny,
        Tiling::Skinny128,
    ];

    /// The kernel of this tiling.
    pub fn spec(self) -> KernelSpec {
        match self {
            Tiling::N256 => gemm_hopper::SPEC,
            Tiling::N192 => gemm_hopper_n192::SPEC,
            Tiling::N160 => gemm_hopper_n160::SPEC,
            Tiling::N144 => gemm_hopper_n144::SPEC,
            Tiling::N128 => gemm_hopper_n128::SPEC,
            Tiling::N64 => gemm_hopper_n64::SPEC,
            Tiling::Skinny => gemm_skinny::SPEC,
            Tiling::Skinny128 => gemm_skinny_n128::SPEC,
            Tiling::Skinny16 => gemm_skinny16::SPEC,
            Tiling::Skinny32 => gemm_skinny32::SPEC,
        }
    }

    /// The kernel of this tiling with K split in `splits` parts: the tiling's own for one
    /// part, its `_split` instance for more (the skinny and 128-column tilings have one).
    pub fn spec_split(self, splits: u32) -> Option<KernelSpec> {
        match (self, splits) {
            (_, 1) => Some(self.spec()),
            (Tiling::Skinny, _) => Some(gemm_skinny_split::SPEC),
            (Tiling::Skinny128, _) => Some(gemm_skinny_n128_split::SPEC),
            (Tiling::Skinny16, _) => Some(gemm_skinny16_split::SPEC),
            (Tiling::Skinny32, _) => Some(gemm_skinny32_split::SPEC),
            (Tiling::N128, _) => Some(gemm_hopper_n128_split::SPEC),
            _ => None,
        }
    }

    /// Into how many parts to split K for `m × n × k` on `sms` SMs (1: not split): where the
    /// tiling's units leave at least half of the clusters idle, as many parts as fill the
    /// clusters once, each at least [`Tiling::PART_STAGES`] stages of K, at most eight. The
    /// parts of a unit run side by side on otherwise idle SMs; what a split costs beyond the
    /// unsplit unit is the parts' round trip through L2 and the ticket, about 5 µs on an H200
    /// (2026-11-28: 1024³ went from 0.73× cuBLAS to 0.60× in two parts of 8 stages, while
    /// 64 × 4096² went from 0.58× to 0.82× in four of 16). With at least 16 stages a part and at
    /// most 8 parts, no part is empty (`(splits − 1) · ⌈stages / splits⌉ < stages`).
    pub fn splits(self, m: u32, n: u32, k: u32, sms: u32) -> u32 {
        if self.spec_split(2).is_none() {
            return 1;
        }
        let clusters = (sms / 2).max(1);
        let units = self.units(m, n).max(1);
        if 2 * units > clusters {
            return 1;
        }
        let stages = k.div_ceil(64);
        (clusters / units)
            .min(stages / Tiling::PART_STAGES)
            .clamp(1, 8)
    }

    /// The fewest stages of K (64 each) a part of a split takes.
    pub const PART_STAGES: u32 = 16;

    /// The stream-K kernel of this tiling (the 256- and 192-column ones have one).
    pub fn spec_stream(self) -> Option<KernelSpec> {
        match self {
            Tiling::N256 => Some(gemm_hopper_stream::SPEC),
            Tiling::N192 => Some(gemm_hopper_n192_stream::SPEC),
            _ => None,
        }
    }

    /// Stream-K for `m × n × k` on `sms` SMs, where the tiles do not fill the last wave of
    /// clusters and dealing the last tiles' stages evenly is estimated to save more than its
    /// cost; `None` otherwise. The tiles of all full waves but the last are computed whole;
    /// the stages of the rest (between one and two waves' worth) are dealt `span` to a
    /// cluster, so the clusters end together instead of a part-full last wave. In stages of
    /// the busiest cluster: `waves · S` before, `(full waves − 1) · S + span` after, plus
    /// [`Tiling::STREAM_COST`] for each of a cluster's two pieces.
    ///
    /// Dealt stages also cost what the estimate does not count: clusters that run whole tiles
    /// move through K together and share A's and B's slabs in L2, while dealt runs start
    /// at as many places in K as there are clusters. So only a small share of the tiles is
    /// dealt ([`Tiling::STREAM_SHARE`]). On an H200 (2026-11-28, one run against cuBLAS):
    /// 8192³ (a tenth of its tiles dealt) 1.024× → 1.050×, but 6000² × 2048 (a fifth)
    /// 0.973× → 0.938×, 4096³ (half) 1.004× → 0.946×, 1536² × 8192 (every tile) 0.886× →
    /// 0.717×.
    pub fn stream(self, m: u32, n: u32, k: u32, sms: u32) -> Option<Stream> {
        self.spec_stream()?;
        let clusters = (sms / 2).max(1);
        let tiles = self.units(m, n);
        let stages = k.div_ceil(64);
        if tiles == 0 || tiles.is_multiple_of(clusters) || stages == 0 {
            return None;
        }
        let stream = Stream::deal(tiles, stages, clusters);
        if (tiles - stream.whole) * Tiling::STREAM_SHARE > tiles {
            return None;
        }
        let before = tiles.div_ceil(clusters) * stages;
        let cost = 2 * Tiling::STREAM_COST * 256 / self.columns();
        let after = stream.whole / clusters * stages + stream.span + cost;
        (after < before).then_some(stream)
    }

    /// Stream-K's cost a piece in stages of a 256-column unit: the pieces' sums go through L2
    /// and a ticket, as a split's parts do (about 5 µs on an H200, a stage of 256 × 256 × 64
    /// about 0.8 µs at 700 TFLOPS on 66 clusters).
    pub const STREAM_COST: u32 = 6;

    /// Stream-K deals at most one tile in this many.
    pub const STREAM_SHARE: u32 = 8;

    /// The stream-K kernel's buffers for `m × n × k` under `stream`: `f32` elements of the
    /// pieces (as a split's parts, as many parts as the most pieces a tile is cut into) and
    /// `u32` arrival counters (one a warp group of each tile past the whole ones).
    pub fn stream_buffers(self, m: u32, n: u32, k: u32, stream: Stream) -> (usize, usize) {
        let groups = (self.units(m, n) - stream.whole) as usize * 4;
        let part = groups * 64 * self.columns() as usize;
        (
            stream.most_pieces(self.units(m, n), k.div_ceil(64)) as usize * part,
            groups,
        )
    }

    /// The split kernel's buffers for `m × n` in `splits` parts: `f32` elements of the parts
    /// (each part a 64-row slice of the accumulator of each warp group of each unit) and `u32`
    /// arrival counters (one a warp group of each unit).
    pub fn split_buffers(self, m: u32, n: u32, splits: u32) -> (usize, usize) {
        let groups = self.units(m, n) as usize * 4;
        let part = groups * 64 * self.columns() as usize;
        (splits as usize * part, groups)
    }

    /// Whether the kernel computes Cᵀ = B · Aᵀ and stores it transposed.
    pub fn transposed(self) -> bool {
        matches!(
            self,
            Tiling::Skinny | Tiling::Skinny128 | Tiling::Skinny16 | Tiling::Skinny32
        )
    }

    /// The kernel's arguments for `m × n × k` (A and B as their bf16 bytes): [`arguments`],
    /// except that a transposed tiling, which computes Cᵀ = B · Aᵀ, takes B's map as its `a`,
    /// A's as its `b` and the sizes as `n, m, k`; C's map is C's either way.
    pub fn arguments(
        self,
        (m, n, k): (u32, u32, u32),
        (a, b): (Vec<u8>, Vec<u8>),
    ) -> Vec<ArgValue> {
        let spec = self.spec();
        if !self.transposed() {
            return arguments(&spec, (m, n, k), (a, b), 2, None);
        }
        vec![
            input_map(&spec, "a", (n, k), 2, b),
            input_map(&spec, "b", (m, k), 2, a),
            output_map(&spec, m, n),
            ArgValue::U32(n),
            ArgValue::U32(m),
            ArgValue::U32(k),
        ]
    }

    /// [`arguments`](Self::arguments) for K split in `splits` parts: for more than one, the
    /// parts' buffer and the arrival counters, zeroed, and `splits`.
    pub fn arguments_split(
        self,
        (m, n, k): (u32, u32, u32),
        data: (Vec<u8>, Vec<u8>),
        splits: u32,
    ) -> Vec<ArgValue> {
        let mut args = self.arguments((m, n, k), data);
        if splits > 1 {
            let (parts, counters) = self.split_buffers(m, n, splits);
            args.push(ArgValue::buffer(&vec![0f32; parts]));
            args.push(ArgValue::buffer(&vec![0u32; counters]));
            args.push(ArgValue::U32(splits));
        }
        args
    }

    /// [`arguments`](Self::arguments) for the stream-K kernel: the pieces' buffer and the
    /// arrival counters, zeroed, then `whole` and `span`.
    pub fn arguments_stream(
        self,
        (m, n, k): (u32, u32, u32),
        data: (Vec<u8>, Vec<u8>),
        stream: Stream,
    ) -> Vec<ArgValue> {
        let mut args = self.arguments((m, n, k), data);
        let (parts, counters) = self.stream_buffers(m, n, k, stream);
        args.push(ArgValue::buffer(&vec![0f32; parts]));
        args.push(ArgValue::buffer(&vec![0u32; counters]));
        args.push(ArgValue::U32(stream.whole));
        args.push(ArgValue::U32(stream.span));
        args
    }

    /// Columns of C in a unit (for a transposed tiling, rows of C: the unit's area in the same
    /// measure).
    pub fn columns(self) -> u32 {
        match self {
            Tiling::N256 => 256,
            Tiling::N192 => 192,
            Tiling::N160 => 160,
            Tiling::N144 => 144,
            Tiling::N128 | Tiling::Skinny128 => 128,
            Tiling::N64 | Tiling::Skinny => 64,
            Tiling::Skinny16 => 16,
            Tiling::Skinny32 => 32,
        }
    }

    /// How fast a unit's columns go, against 256-column units, when every SM is busy:
    /// measured at 8192³ on an H200 (2026-11-27; TFLOPS over the fraction of the last wave
    /// that was full: 730, 722, 688 and 330). Narrow units read A's 128 rows for fewer
    /// columns of B, and at 64 columns a wgmma no longer hides its operand reads. The
    /// transposed tilings are the same wgmma shapes over the same stages. 160 columns
    /// (2026-11-28, H200): 0.96 of 256 at 8192³ (675 against 701 TFLOPS, both waves as full),
    /// and as fast as 128 columns where their estimates are equal at 0.94 (2048 × 5120, 4096 ×
    /// 2560 and 2560 × 4096, K = 4096: 0.977–0.979x cuBLAS against 0.980–0.989x); taken as
    /// 0.94, so that where 128 columns fill the waves as well they are kept. 144 columns
    /// (2026-11-28, H200, one call): as fast as 160 at 8192³ (679 against 671 TFLOPS), so 0.94
    /// too, after 160 in [`ALL`](Self::ALL): taken only where its units fill the waves better.
    pub fn speed(self) -> f64 {
        match self {
            Tiling::N256 => 1.0,
            Tiling::N192 => 0.99,
            Tiling::N160 => 0.94,
            Tiling::N144 => 0.94,
            Tiling::N128 | Tiling::Skinny128 => 0.94,
            Tiling::N64 | Tiling::Skinny => 0.45,
            // Streaming B as the 64-row unit does (the same bytes a unit), for a quarter of
            // its columns.
            Tiling::Skinny16 => 0.45 * 16.0 / 64.0,
            Tiling::Skinny32 => 0.45 * 32.0 / 64.0,
        }
    }

    /// A unit of work of this tiling for an `m × n` C: a cluster's two 128-row tiles times
    /// `columns` columns (transposed: two 128-column tiles times `columns` rows).
    pub fn units(self, m: u32, n: u32) -> u32 {
        match self {
            Tiling::Skinny | Tiling::Skinny128 | Tiling::Skinny16 | Tiling::Skinny32 => {
                n.div_ceil(256) * m.div_ceil(self.columns())
            }
            _ => m.div_ceil(256) * n.div_ceil(self.columns()),
        }
    }

    /// The estimated time of an `m × n` C on `sms` SMs, in 256-column units at full speed:
    /// the clusters (two SMs each) take the units in waves, every wave costs a unit's time,
    /// and a unit's time is its columns over its speed. K is the same for every tiling. A
    /// speed below 1 is a limit the SMs share (what the narrow units read moves through L2), so
    /// with a fraction `f` of the clusters busy (the units over the waves' places) each unit
    /// goes at `min(1, speed / f)`: on an H200 the 64-column skinny tiling ran 128 × 4096 ×
    /// 4096 at 0.97x cuBLAS with half the clusters busy, but 128 × 8192 × 8192 at 0.72x with
    /// all of them, where the 128-column one's half as many units took 0.82x.
    ///
    /// The estimate is of the units unsplit, though a split's parts fill clusters the units
    /// leave idle: the parts' sum costs what the estimate does not count (the last part reads
    /// the others' from L2). Counting the parts as more units picked splits that lost on an
    /// H200 (2026-11-28, one call, in cuBLAS's time): 192 × 4096² in two parts of 128-column
    /// units 0.94x against 1.07x for 64-row transposed units unsplit, 160 × 2048 × 4096 in four
    /// parts 0.70x against 0.83x in two of 64-row units, 320 × 2048 × 4096 in two parts of
    /// 128-row units 0.85x against 1.02x for 64-row units unsplit.
    pub fn estimate(self, m: u32, n: u32, sms: u32) -> f64 {
        let clusters = (sms / 2).max(1);
        let units = self.units(m, n);
        let waves = units.div_ceil(clusters).max(1);
        let busy = units as f64 / (waves * clusters) as f64;
        let speed = (self.speed() / busy.max(f64::MIN_POSITIVE)).min(1.0);
        waves as f64 * self.columns() as f64 / 256.0 / speed
    }

    /// Whether this tiling is one for `m` rows of A: a unit of `w` rows of A (256 for the M-major
    /// tilings) takes more than `w / 2` of them, the narrowest (16) any number up to 16, and the
    /// 32-row units at most 32. With fewer than `w / 2`, the unit's second CTA's box of A lies
    /// wholly past M, costing the load's time for no work. Past 32 rows, 32-row units stream B
    /// once for every 32 of them. Measured on an H200 (2026-11-28, each pair in one call, in
    /// cuBLAS's time): below half their width, 64-row units ran 16 × 4096² at 0.71x against
    /// the 16-row units' 0.96x, 128-row units 64 × 4096² at 0.57x against the 64-row units'
    /// 0.81x; past their width, 32-row units ran 64 × 4096² at 0.73x against the 64-row units'
    /// 0.79x and 48 × 4096² at 0.78x against 0.93x. For the estimate, a transposed tiling must
    /// also [read B once](Self::reads_b_once).
    pub fn takes(self, m: u32) -> bool {
        match self {
            Tiling::Skinny16 => m <= 16,
            Tiling::Skinny32 => (17..=32).contains(&m),
            Tiling::Skinny => m > 32,
            Tiling::Skinny128 => m > 64,
            _ => m > 128,
        }
    }

    /// Whether this tiling's units read B from DRAM no more often than the alternatives for
    /// `m` rows of A and `n × k` of B: an M-major unit reads the rows of B it needs once; a
    /// transposed one streams its 256 rows of B whatever its rows of A, so once for all of them
    /// where it is as wide as M, and otherwise once per `w` rows of A, the passes after the
    /// first from L2 only where B fits in it ([`L2_BYTES`](Self::L2_BYTES)). Past 128 rows no
    /// transposed tiling reads B once, and the estimate compares them with the M-major ones as
    /// before. Where B does not fit, a tiling that reads it again where another would not
    /// loses: on an H200 (2026-11-28, one call, in cuBLAS's time) 64-row units ran 128 × 4096
    /// × 14336 (B 112 MiB) at 0.89x against the 128-row units' 0.97x, 100 × 4096 × 14336 at
    /// 0.84x against 0.99x, 128 × 4096 × 8192 (64 MiB) at 0.92x against 1.00x; where it fits,
    /// not: 128 × 4096² (32 MiB) 0.91–0.94x against 0.90–0.94x over three calls, 96 × 2048 ×
    /// 4096 (16 MiB) 0.72x against 0.69x, 192 × 4096² (three passes) 1.07x.
    pub fn reads_b_once(self, m: u32, n: u32, k: u32) -> bool {
        let fits = n as u64 * k as u64 * 2 <= Tiling::L2_BYTES;
        fits || !self.transposed() || m <= self.columns() || m > 128
    }

    /// The L2 cache of an H100 or H200, bytes.
    pub const L2_BYTES: u64 = 50 << 20;

    /// The tiling for `m × n × k` on `sms` SMs: 256-column units, unless a narrower tiling's
    /// estimate is more than 8 % shorter (the estimate counts waves and speed, not the fixed
    /// cost of a unit: the margin keeps the widest units where the gain would be inside that).
    /// Narrower units win where 256 columns leave clusters idle or a last wave nearly empty:
    /// few units (M = 256 with a large N) or an unlucky count (3072³: 144 units on 66
    /// clusters, three waves with the last one 18 % full). At most 128 rows of A only the
    /// transposed tilings take the product ([`takes`](Self::takes)): the others would pad them
    /// to 256 a unit, with the second CTA's box of A wholly past M.
    ///
    /// Where the units chosen so leave at least half of the clusters idle and K is too short to
    /// split ([`splits`](Self::splits) gives one part), the product is one wave of a unit's K
    /// loop, and a narrower unit's loop is shorter: the narrowest tiling of the same
    /// orientation whose units still fit in one wave is taken. The estimate's speed of the
    /// narrow units is their limit when every SM streams operands, which a product this small
    /// does not reach: on an H200 at 1024³, 64 units of 64 columns ran at 0.89x cuBLAS where
    /// 32 of 128 ran at 0.75x (2026-11-27 and 28, two calls).
    pub fn choose(m: u32, n: u32, k: u32, sms: u32) -> Tiling {
        let widest = Tiling::N256.estimate(m, n, sms);
        let (best, time) = Tiling::ALL
            .iter()
            .filter(|t| t.takes(m) && t.reads_b_once(m, n, k))
            .map(|&t| (t, t.estimate(m, n, sms)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("tilings");
        let chosen = if !Tiling::N256.takes(m) || time < 0.92 * widest {
            best
        } else {
            Tiling::N256
        };
        let clusters = (sms / 2).max(1);
        if 2 * chosen.units(m, n) > clusters || chosen.splits(m, n, k, sms) > 1 {
            return chosen;
        }
        Tiling::ALL
            .into_iter()
            .filter(|t| {
                t.takes(m) && t.transposed() == chosen.transposed() && t.units(m, n) <= clusters
            })
            .min_by_key(|t| t.columns())
            .unwrap_or(chosen)
    }
}

/// Simulates an fp8 instance (`gemm_fp8`, `gemm_fp8_e5m2`) on an `m × n × k` problem with `ctas`
/// CTAs (an even number), A and B given as their bytes; C.
pub fn simulate_fp8(
    spec: &KernelSpec,
    dims: (u32, u32, u32),
    ab: (Vec<u8>, Vec<u8>),
    scale: f32,
    ctas: u32,
) -> Vec<bf16> {
    simulate_args(spec, arguments(spec, dims, ab, 1, Some(scale)), ctas)
}

/// The grouped GEMM's problem: `rows[g]` rows in group `g` (any, zero too), N and K shared.
#[derive(Clone, Debug)]
pub struct Groups {
    pub rows: Vec<u32>,
    pub n: u32,
    pub k: u32,
}

impl Groups {
    /// All groups' rows: A's and C's.
    pub fn total_rows(&self) -> u32 {
        self.rows.iter().sum()
    }

    /// `offsets[g]..offsets[g + 1]` are group g's rows (the kernel's `offsets`).
    pub fn offsets(&self) -> Vec<u32> {
        std::iter::once(0)
            .chain(self.rows.iter().scan(0, |end, r| {
                *end += r;
                Some(*end)
            }))
            .collect()
    }

    /// The kernel's work units: each group's pairs of 128-row tiles times the 256-column tiles.
    pub fn units(&self) -> u32 {
        self.rows.iter().map(|r| r.div_ceil(256)).sum::<u32>() * self.n.div_ceil(256)
    }

    /// Tensor-map slots the kernel writes: three for each CTA of each unit.
    pub fn slots(&self) -> u32 {
        6 * self.units()
    }
}

/// `grouped_gemm`'s arguments: the templates `a`, `b`, `c` over the buffers A (all groups' rows,
/// `[rows, k]`), B (the experts, `[groups, n, k]`) and C (`[rows, n]`, 0xff so what the kernel
/// fails to write stands out), zeroed slots, the row offsets and the sizes.
pub fn grouped_arguments(spec: &KernelSpec, p: &Groups, a: &[bf16], b: &[bf16]) -> Vec<ArgValue> {
    let bytes = |v: &[bf16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (n, k, rows) = (p.n as u64, p.k as u64, p.total_rows().max(1) as u64);
    let map = |name, dims: [u64; 2], buffer| {
        let map = spec
            .map_type(name)
            .expect("a map parameter")
            .tiled(0, &dims, &[dims[0] * 2])
            .expect("a valid map");
        ArgValue::from(TensorMapArg::over_arg(map, buffer))
    };
    vec![
        map("a", [k, rows], 3),
        map("b", [k, n], 4),
        map("c", [n, rows], 5),
        ArgValue::Buffer(bytes(a)),
        ArgValue::Buffer(bytes(b)),
        ArgValue::Buffer(vec![0xff; (p.total_rows() * p.n * 2) as usize]),
        ArgValue::Buffer(vec![0; p.slots() as usize * 128]),
        ArgValue::Buffer(p.offsets().iter().flat_map(|o| o.to_le_bytes()).collect()),
        ArgValue::U32(p.rows.len() as u32),
        ArgValue::U32(p.n),
        ArgValue::U32(p.k),
    ]
}

/// Simulates `grouped_gemm` with `ctas` CTAs (an even number); C, all groups' rows.
pub fn simulate_grouped(p: &Groups, a: &[bf16], b: &[bf16], ctas: u32) -> Vec<bf16> {
    let spec = grouped_gemm::SPEC;
    let mut args = grouped_arguments(&spec, p, a, b);
    let launch = Launch {
        grid: (ctas, 1, 1),
        block: (384, 1, 1),
        ..Launch::default()
    };
    match simulate_spec(&spec, &launch, &mut args) {
        Ok(Outcome::Completed(_)) => {}
        other => panic!("{}: {other:?}", spec.entry),
    }
    let ArgValue::Buffer(c) = &args[5] else {
        panic!("C is the sixth argument");
    };
    c.chunks_exact(2)
        .map(|h| bf16::from_le_bytes([h[0], h[1]]))
        .collect()
}

/// The grouped product on the CPU: each group's rows of A times its expert's B, as
/// [`reference`] computes one product.
pub fn grouped_reference(p: &Groups, a: &[bf16], b: &[bf16]) -> Vec<bf16> {
    let (n, k) = (p.n as usize, p.k as usize);
    let offsets = p.offsets();
    p.rows
        .iter()
        .enumerate()
        .flat_map(|(g, &rows)| {
            let a = &a[offsets[g] as usize * k..offsets[g + 1] as usize * k];
            let b = &b[g * n * k..(g + 1) * n * k];
            reference((a, b), (rows as usize, n, k), 1.0, bf16::to_f32)
        })
        .collect()
}

fn main() -> Result<(), String> {
    // `-- --emit DIR`: both kernels' PTX into DIR, for tools/gpu-gemm on the GPU machine.
    let args: Vec<String> = std::env::args().collect();
    // `-- --choose M×N×K,... [SMS]`: the tiling `Tiling::choose` takes for each size, and the
    // parts of K (`Tiling::splits`).
    if let [_, flag, sizes, rest @ ..] = args.as_slice()
        && flag == "--choose"
    {
        let sms: u32 = match rest.first() {
            Some(s) => s.parse().map_err(|_| format!("SM count `{s}`"))?,
            None => 132,
        };
        for size in sizes.split(',') {
            let dims: Vec<u32> = size
                .split('x')
                .map(|d| {
                    d.parse()
                        .map_err(|_| format!("size `{size}`: M×N×K as `MxNxK`"))
                })
                .collect::<Result<_, _>>()?;
            let [m, n, k] = dims[..] else {
                return Err(format!("size `{size}`: M×N×K as `MxNxK`"));
            };
            let t = Tiling::choose(m, n, k, sms);
            if let (Some(stream), Some(spec)) = (t.stream(m, n, k, sms), t.spec_stream()) {
                println!(
                    "{size} {} whole {} span {} pieces {}",
                    spec.entry,
                    stream.whole,
                    stream.span,
                    stream.most_pieces(t.units(m, n), k.div_ceil(64))
                );
                continue;
            }
            let splits = t.splits(m, n, k, sms);
            let spec = t
                .spec_split(splits)
                .expect("a split kernel where splits > 1");
            println!("{size} {} {splits}", spec.entry);
        }
        return Ok(());
    }
    if let [_, flag, dir] = args.as_slice()
        && flag == "--emit"
    {
        for spec in [
            gemm_hopper::SPEC,
            gemm_fp8::SPEC,
            gemm_fp8_e5m2::SPEC,
            grouped_gemm::SPEC,
            gemm_hopper_n192::SPEC,
            gemm_hopper_n128::SPEC,
            gemm_hopper_n64::SPEC,
            gemm_hopper_n160::SPEC,
            gemm_hopper_n144::SPEC,
            gemm_fp8_promoted::SPEC,
            gemm_skinny::SPEC,
            gemm_skinny_n128::SPEC,
            gemm_skinny16::SPEC,
            gemm_skinny32::SPEC,
            gemm_skinny_split::SPEC,
            gemm_skinny_n128_split::SPEC,
            gemm_skinny16_split::SPEC,
            gemm_skinny32_split::SPEC,
            gemm_hopper_n128_split::SPEC,
            gemm_hopper_stream::SPEC,
            gemm_hopper_n192_stream::SPEC,
        ] {
            let path = format!("{dir}/{}.ptx", spec.entry);
            std::fs::write(&path, spec.ptx).map_err(|e| format!("{path}: {e}"))?;
            println!(
                "{path}: {} bytes of dynamic shared memory",
                spec.dynamic_shared_bytes
            );
        }
        return Ok(());
    }
    println!("{}", gemm_hopper::PTX);
    let (m, n, k) = (256u32, 512u32, 192u32);
    let (a, b) = (operand(m, k, 1), operand(n, k, 2));
    let c = simulate(m, n, k, &a, &b, 2);
    let dims = (m as usize, n as usize, k as usize);
    assert_eq!(c, reference((&a, &b), dims, 1.0, bf16::to_f32));
    println!("// gemm_hopper: simulated, C = A · Bᵀ exactly for {m} × {n} × {k} on one cluster");
    let (a, b) = (operand_fp8(m, k, 1), operand_fp8(n, k, 2));
    let bytes = |v: &[f8e4m3]| v.iter().map(|x| x.to_bits()).collect();
    let c = simulate_fp8(&gemm_fp8::SPEC, (m, n, k), (bytes(&a), bytes(&b)), 0.375, 2);
    let want = reference((&a, &b), dims, 0.375, f8e4m3::to_f32);
    assert!(c == want, "gemm_fp8 differs from the reference");
    println!("// gemm_fp8: simulated, C = 0.375 · A · Bᵀ exactly for {m} × {n} × {k} (e4m3)");
    // Three experts, one without tokens, one whose last tile is ragged.
    let p = Groups {
        rows: vec![200, 0, 72],
        n: 256,
        k: 128,
    };
    let a = operand(p.total_rows(), p.k, 3);
    let b = operand(p.rows.len() as u32 * p.n, p.k, 4);
    let c = simulate_grouped(&p, &a, &b, 2);
    assert!(c == grouped_reference(&p, &a, &b), "grouped_gemm differs");
    println!(
        "// grouped_gemm: simulated, C_g = A_g · B_gᵀ exactly for groups of {:?} rows, n {}, k {}",
        p.rows, p.n, p.k
    );
    Ok(())
}
