//! Attention forward on Hopper in the kernel language, FlashAttention-3's structure with its
//! protocols typed: `O = softmax(Q · Kᵀ · scale [+ causal mask]) · V` in bf16 with f32
//! accumulation, bf16 out, plus each row's log-sum-exp.
//!
//! Q, K, V and O are `[batch · heads, seq, D]` row-major bf16 (D contiguous). The grid is
//! persistent ([`grid`]), and each CTA takes the query tiles of 128 rows (192 at head dimension
//! 64 on long rows) that the host's [`TileSchedule`] lists for it: mostly a head's tiles `t` and
//! `T − 1 − t` together, which take the same time under a causal mask, a head's one after
//! another so the CTAs that run at once share its keys and values in L2, and the last wave's
//! tiles one by one where they balance better. Warp group 0 produces: one thread loads a unit's Q tile, then each key tile and value tile into
//! rings of their own (2 stages each; `D / 64` tiles of 64 columns in the 128-byte swizzled
//! layout wgmma reads). Warp groups 1 and 2 consume, 64 query rows each:
//!
//! - `S = Q · Kᵀ` with both operands in shared memory (`mma_tiles`);
//! - the masks where they are needed: the columns past a ragged end (`mask_columns`), and on
//!   the diagonal tile of a causal head the columns after each row (`mask_causal`); the key loop
//!   stops at the diagonal, so fully masked tiles are never loaded;
//! - the online softmax (`OnlineSoftmax`): row maxima across the quad, `ex2` of the scaled
//!   scores, the output rescaled, and `P` rounded to bf16 in registers;
//! - `O += P · V` with P from registers and V read N-major from its stage (`mma_regs`);
//! - the two consumer warp groups take turns at the tensor cores (`ping_pong`): each turn
//!   issues tile j's scores and tile j − 1's `P · V`; taking the turn twice, or again without
//!   passing it, does not compile;
//! - inside a warp group, tile j's softmax runs while tile j − 1's `P · V` is still in flight:
//!   `commit_behind` orders the two groups, `wait_scores` (`wgmma.wait_group 1`) makes only the
//!   scores readable, and `Overlap::softmax` waits for the output before it writes P's
//!   registers and rescales it. A value stage goes back to the producer only after the group
//!   that read it completed.
//!
//! The epilogue divides by the row sums (`finish`), stores the log-sum-exp, rounds O to bf16
//! into swizzled staging tiles and writes them with tensor stores, which the next unit's
//! epilogue waits to have read its tiles.
//!
//! Launch ([`grid`]): blocks of 384 threads, `SPEC.dynamic_shared_bytes` of dynamic shared
//! memory; maps (dimension 0 first) over `[64, seq, D / 64, batch · heads]` with strides
//! `[2 D, 128, 2 D seq]` bytes: Q, K and V with boxes `[64, 128, D / 64, 1]`, O with
//! `[64, 64, 1, 1]`; `schedule` is [`TileSchedule::words`] for the grid. `scale_log2` is the softmax
//! scale times `log2 e`. `cargo run --example
//! attention_hopper` prints the PTX and checks small heads in the simulator against a CPU
//! reference; `-- --emit DIR` writes each kernel's PTX for `tools/gpu-attention`.

use phasegate::prelude::*;
use phasegate::runtime::KernelSpec;
use phasegate::runtime::rng::Rng;
use phasegate::runtime::sim::{ArgValue, Launch, Outcome, TensorMapArg, simulate_spec};

// ANCHOR: kernel
/// The key tiles (of `key_rows`) query tile `tile` (of `query_rows`) reads: up to its diagonal
/// under a causal mask, every one (`all`) otherwise.
#[device]
fn key_tiles_of(tile: u32, causal: u32, query_rows: u32, key_rows: u32, all: u32) -> u32 {
    if causal != 0 {
        min(
            (tile * query_rows + query_rows + key_rows - 1) / key_rows,
            all,
        )
    } else {
        all
    }
}

macro_rules! attention_kernel {
    (
        $name:ident, $t:ident, d = $d:literal, chunks = $chunks:literal, blocks = [$($c:literal),+],
        query_rows = $br:literal, key_rows = $bc:literal, q_stages = $q_stages:literal,
        kv_stages = $stages:literal, consumers = $groups:literal, block = $block:literal,
        registers = ($all:literal, $producer:literal, $consumer:literal), staging = $tiles:literal
        $(, lazy_rescale = $lazy:literal)?
    ) => {
        /// Attention forward for one head dimension and element type (see the module
        /// documentation).
        #[kernel(target = "sm_90a", block = $block, max_registers = $all)]
        pub fn $name(
            q: TensorMap<$t, Tile4<64, $br, $chunks, 1>, Swizzle128B>,
            k: TensorMap<$t, Tile4<64, $bc, $chunks, 1>, Swizzle128B>,
            v: TensorMap<$t, Tile4<64, $bc, $chunks, 1>, Swizzle128B>,
            o: TensorMap<$t, Tile4<64, 64, 1, 1>, Swizzle128B>,
            lse: &mut [f32],
            schedule: &[u32],
            seq: u32,
            causal: u32,
            scale_log2: f32,
        ) {
            // This CTA's query tiles, head · seq_tiles + tile, are schedule[begin..begin + count]
            // ([`TileSchedule`]), and the first of them is also at a place of its own. Read
            // before the barriers are set up, so the loads' latency hides behind that.
            let count = schedule[3 * block_idx_x()];
            let begin = schedule[3 * block_idx_x() + 1];
            let first = schedule[3 * block_idx_x() + 2];
            let regs = warpgroup_registers::<$all>();
            // One arrival per consumer warp group releases a stage (`release_elected`). With
            // two Q stages the next unit's queries load while this unit runs.
            let queries = pipeline::<$t, $q_stages, { 64 * $br * $chunks }>(thread_idx_x() == 0, 1, $groups);
            let keys = pipeline::<$t, $stages, { 64 * $bc * $chunks }>(thread_idx_x() == 0, 1, $groups);
            let values = pipeline::<$t, $stages, { 64 * $bc * $chunks }>(thread_idx_x() == 0, 1, $groups);
            let seq_tiles = (seq + $br - 1) / $br;
            let key_tiles = (seq + $bc - 1) / $bc;
            if warp_id() < 4 {
                let _producer = regs.release::<$producer, 1>();
                if warp_id() == 0 && elect_one() {
                    q.prefetch();
                    k.prefetch();
                    v.prefetch();
                    let mut q_in = queries.producer();
                    let mut k_in = keys.producer();
                    let mut v_in = values.producer();
                    let mut unit = first;
                    for entry in begin..begin + count {
                        let head = unit / seq_tiles;
                        let tile = unit % seq_tiles;
                        if entry + 1 < begin + count {
                            unit = schedule[entry + 1];
                        }
                        let kv_tiles = key_tiles_of(tile, causal, $br, $bc, key_tiles);
                        q_in.acquire().load_tile(&q, [0, tile * $br, 0, head]);
                        for j in 0..kv_tiles {
                            k_in.acquire().load_tile(&k, [0, j * $bc, 0, head]);
                            v_in.acquire().load_tile(&v, [0, j * $bc, 0, head]);
                        }
                    }
                }
            } else {
                let _consumer = regs.claim::<$consumer, $groups>();
                let wg = warp_id() / 4 - 1;
                let leader = thread_idx_x() % 128 == 0;
                let mut q_in = queries.consumer();
                let mut k_in = keys.consumer();
                let mut v_in = values.consumer();
                let mut baton = ping_pong::<1, $groups>(wg);
                let mut staging = shared_array::<[$t; 2], { 2048 * $groups * $tiles }>();
                let epilogue = named_barrier_dyn(1 + $groups + wg, 128);
                let mine = wg * 2048 * $tiles;
                let mut unit = first;
                for entry in begin..begin + count {
                    let head = unit / seq_tiles;
                    let tile = unit % seq_tiles;
                    // The next tile's entry, read while this one runs.
                    if entry + 1 < begin + count {
                        unit = schedule[entry + 1];
                    }
                    let kv_tiles = key_tiles_of(tile, causal, $br, $bc, key_tiles);
                    let row0 = tile * $br + wg * 64;
                    let qs = q_in.wait();
                    let mut softmax = online_softmax::<$t>(scale_log2)$(.lazy_rescale::<$lazy>())?;
                    let mut out = accumulator::<f32, 64, $d>();
                    // The first key tile: its scores alone.
                    let ks = k_in.wait();
                    let turn = baton.take();
                    let s = accumulator::<f32, 64, $bc>()
                        .mma_tiles(&qs, &q, wg, &ks, &k, 0)
                        .commit();
                    baton = turn.pass();
                    let mut s = s.wait::<0>();
                    ks.release_elected(leader);
                    if $bc > seq {
                        s.mask_columns(seq);
                    }
                    // Columns after a row's own: where the key tile reaches past the
                    // warp group's first row (the offset wraps where the tile starts after
                    // a row, masking all of that row).
                    if causal != 0 && $bc > row0 + 1 {
                        s.mask_causal(row0);
                    }
                    let mut p = softmax.step(&s, &mut out);
                    let mut vs = v_in.wait();
                    // Each turn issues tile j's scores and tile j - 1's P · V together. The
                    // softmax of tile j runs once its scores are complete, while the tensor
                    // cores still multiply tile j - 1's P and then take the other group's turn.
                    for j in 1..kv_tiles {
                        let ks = k_in.wait();
                        let turn = baton.take();
                        let s = accumulator::<f32, 64, $bc>()
                            .mma_tiles(&qs, &q, wg, &ks, &k, 0)
                            .commit();
                        let both = out.mma_regs(&p, &vs, &v, 0).commit_behind(s);
                        baton = turn.pass();
                        let mut both = both.wait_scores();
                        ks.release_elected(leader);
                        if j * $bc + $bc > seq {
                            both.scores().mask_columns(seq - j * $bc);
                        }
                        if causal != 0 && j * $bc + $bc > row0 + 1 {
                            both.scores().mask_causal(row0.wrapping_sub(j * $bc));
                        }
                        out = both.softmax(&mut softmax, &mut p);
                        // The group that read the held values is complete: give them back.
                        vs.release_elected(leader);
                        vs = v_in.wait();
                    }
                    let turn = baton.take();
                    let pending = out.mma_regs(&p, &vs, &v, 0).commit();
                    baton = turn.pass();
                    // Every product that reads Q is complete: the producer may load the next
                    // tile's while this one finishes.
                    qs.release_elected(leader);
                    out = pending.wait::<0>();
                    vs.release_elected(leader);
                    let row_lse = softmax.finish(&mut out);
                    if row0 < seq {
                        row_lse.store(lse, head * seq + row0, min(seq - row0, 64));
                    }
                    // O a block of 64 columns at a time through the warp group's staging
                    // tiles, each once the tensor store that last read it has read it.
                    $(
                        if leader {
                            bulk_wait_read($tiles - 1);
                        }
                        epilogue.sync();
                        out.stage_columns(&mut staging, mine + $c % $tiles * 2048, $c);
                        fence_proxy_async();
                        epilogue.sync();
                        if leader {
                            tma_store(&o, [0, row0, $c, head], &staging, mine + $c % $tiles * 2048);
                            bulk_commit();
                        }
                    )+
                }
                baton.end();
                if leader {
                    bulk_wait(0);
                }
            }
        }
    };
}

// ANCHOR_END: kernel

/// Each shape twice: bf16 inputs and outputs, and f16.
macro_rules! attention_kernels {
    ($bf16:ident, $f16:ident, $($shape:tt)*) => {
        attention_kernel!($bf16, bf16, $($shape)*);
        attention_kernel!($f16, f16, $($shape)*);
    };
}

// ANCHOR: kernels
attention_kernels!(
    attention_hd64,
    attention_hd64_f16,
    d = 64,
    chunks = 1,
    blocks = [0],
    query_rows = 192,
    key_rows = 128,
    q_stages = 2,
    kv_stages = 2,
    consumers = 3,
    block = "512,1,1",
    registers = (128, 24, 160),
    staging = 1
);
attention_kernels!(
    attention_hd64_short,
    attention_hd64_short_f16,
    d = 64,
    chunks = 1,
    blocks = [0],
    query_rows = 128,
    key_rows = 128,
    q_stages = 2,
    kv_stages = 2,
    consumers = 2,
    block = "384,1,1",
    registers = (168, 40, 232),
    staging = 1
);
attention_kernels!(
    attention_hd128,
    attention_hd128_f16,
    d = 128,
    chunks = 2,
    blocks = [0, 1],
    query_rows = 128,
    key_rows = 128,
    q_stages = 2,
    kv_stages = 2,
    consumers = 2,
    block = "384,1,1",
    registers = (168, 40, 232),
    staging = 2
);
attention_kernels!(
    attention_hd256,
    attention_hd256_f16,
    d = 256,
    chunks = 4,
    blocks = [0, 1, 2, 3],
    query_rows = 128,
    key_rows = 64,
    q_stages = 1,
    kv_stages = 2,
    consumers = 2,
    block = "384,1,1",
    registers = (168, 24, 240),
    staging = 2,
    lazy_rescale = 8
);
attention_kernels!(
    attention_hd128_wide,
    attention_hd128_wide_f16,
    d = 128,
    chunks = 2,
    blocks = [0, 1],
    query_rows = 128,
    key_rows = 176,
    q_stages = 1,
    kv_stages = 2,
    consumers = 2,
    block = "384,1,1",
    registers = (168, 24, 240),
    staging = 1
);
// ANCHOR_END: kernels

/// One attention problem: `heads` (batch × heads) heads of `seq` rows of dimension `d`.
#[derive(Clone, Copy, Debug)]
pub struct Problem {
    pub heads: u32,
    pub seq: u32,
    pub d: u32,
    pub causal: bool,
}

impl Problem {
    /// The softmax scale `1 / sqrt(d)` times `log2 e`, as the kernel takes it.
    pub fn scale_log2(&self) -> f32 {
        (1.0 / (self.d as f32).sqrt()) * std::f32::consts::LOG2_E
    }
}

/// The element type of Q, K, V and O (and of P, rounded for the second product).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Half {
    Bf16,
    F16,
}

impl Half {
    /// `x` rounded to the nearest value of this type, as the value it is.
    pub fn round(self, x: f32) -> f32 {
        match self {
            Half::Bf16 => bf16::from_f32(x).to_f32(),
            Half::F16 => f16::from_f32(x).to_f32(),
        }
    }

    fn bytes(self, x: f32) -> [u8; 2] {
        match self {
            Half::Bf16 => bf16::from_f32(x).to_le_bytes(),
            Half::F16 => f16::from_f32(x).to_le_bytes(),
        }
    }

    fn value(self, bytes: [u8; 2]) -> f32 {
        match self {
            Half::Bf16 => bf16::from_le_bytes(bytes).to_f32(),
            Half::F16 => f16::from_le_bytes(bytes).to_f32(),
        }
    }
}

/// The kernels, one per head dimension and, at 64, per tile height, each for bf16 or f16
/// (`Kernel::with`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// `attention_hd64`: 192 query rows, three consumer warp groups.
    Hd64,
    /// `attention_hd64_short`: 128 query rows, two consumer warp groups.
    Hd64Short,
    /// `attention_hd128`: 128 query rows and key tiles of 128.
    Hd128,
    /// `attention_hd128_wide`: key tiles of 176 rows (FlashAttention-3's choice at head
    /// dimension 128 without a mask). Two stages of such K and V tiles leave room for one stage
    /// of Q and one staging tile of O a warp group: 208 KB of dynamic and 17 KB of static
    /// shared memory, of the 227 KB a CTA may have.
    Hd128Wide,
    Hd256,
}

impl Kernel {
    /// The kernel's description (its PTX, parameters and dynamic shared memory) for `half`.
    pub fn with(self, half: Half) -> KernelSpec {
        match (self, half) {
            (Kernel::Hd64, Half::Bf16) => attention_hd64::SPEC,
            (Kernel::Hd64Short, Half::Bf16) => attention_hd64_short::SPEC,
            (Kernel::Hd128, Half::Bf16) => attention_hd128::SPEC,
            (Kernel::Hd128Wide, Half::Bf16) => attention_hd128_wide::SPEC,
            (Kernel::Hd256, Half::Bf16) => attention_hd256::SPEC,
            (Kernel::Hd64, Half::F16) => attention_hd64_f16::SPEC,
            (Kernel::Hd64Short, Half::F16) => attention_hd64_short_f16::SPEC,
            (Kernel::Hd128, Half::F16) => attention_hd128_f16::SPEC,
            (Kernel::Hd128Wide, Half::F16) => attention_hd128_wide_f16::SPEC,
            (Kernel::Hd256, Half::F16) => attention_hd256_f16::SPEC,
        }
    }

    /// The kernel for `p`. At head dimension 64 the softmax weighs most against the products,
    /// and three consumer warp groups (192 query rows) keep the tensor cores busier than two:
    /// on the lent H200 (2026-11-27, one run, the two kernels side by side against cuDNN),
    /// 1.04-1.15x without a mask at every length from 512 tokens, against 0.95-0.97x. Under a
    /// causal mask a 192-row tile masks more of its diagonal: with [`TileSchedule`] balancing
    /// the last wave (an H100, 2026-11-28, one run), the 128-row kernel runs causal rows up to
    /// 1024 (0.98x at 512 against 0.86x), the 192-row one above (1.05x at 2048 against 1.02x,
    /// 1.13-1.14x at 8 k and 16 k against 1.01-1.02x). At head dimension 128 without a mask,
    /// long rows take key tiles of 176 rows ([`Kernel::Hd128Wide`]): a third fewer barrier
    /// waits, hand-overs and softmax passes for the same products, bought with the second Q
    /// stage, whose overlap of the next tile's query load matters only where a tile reads few key
    /// tiles. On the lent H200 (2026-11-28, one run, two rounds of the two kernels side by side
    /// against cuDNN) 1.05-1.07x at 8 k and 16 k tokens against 0.99x, but 1.00x at 2 k against
    /// 1.01-1.02x and 0.92x at 512 against 1.04-1.05x; at 4 k (7 rounds, a later call) 1.02x
    /// against 1.00x.
    pub fn for_problem(p: Problem) -> Option<Kernel> {
        let tall = !p.causal || p.seq > 1024;
        Some(match (p.d, tall) {
            (64, true) => Kernel::Hd64,
            (64, false) => Kernel::Hd64Short,
            (128, _) if !p.causal && p.seq >= Kernel::WIDE_FROM => Kernel::Hd128Wide,
            (128, _) => Kernel::Hd128,
            (256, _) => Kernel::Hd256,
            _ => return None,
        })
    }

    /// The shortest rows without a mask that take [`Kernel::Hd128Wide`] at head dimension 128.
    pub const WIDE_FROM: u32 = 4096;

    /// The entry's name.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Hd64 => "attention_hd64",
            Kernel::Hd64Short => "attention_hd64_short",
            Kernel::Hd128 => "attention_hd128",
            Kernel::Hd128Wide => "attention_hd128_wide",
            Kernel::Hd256 => "attention_hd256",
        }
    }

    /// The head dimension it takes.
    pub fn head_dim(self) -> u32 {
        match self {
            Kernel::Hd64 | Kernel::Hd64Short => 64,
            Kernel::Hd128 | Kernel::Hd128Wide => 128,
            Kernel::Hd256 => 256,
        }
    }

    /// Query rows of a tile: 64 per consumer warp group.
    pub fn query_rows(self) -> u32 {
        if self == Kernel::Hd64 { 192 } else { 128 }
    }

    /// Key rows of a tile (64 at head dimension 256, whose 128-row K and V stages would not
    /// fit beside Q; 176 in the wide kernel at 128).
    pub fn key_rows(self) -> u32 {
        match self {
            Kernel::Hd256 => 64,
            Kernel::Hd128Wide => 176,
            _ => 128,
        }
    }

    /// The key tiles query tile `tile` of `p` reads: the kernel's `key_tiles_of`.
    pub fn key_tiles_of(self, p: Problem, tile: u32) -> u32 {
        let all = p.seq.div_ceil(self.key_rows());
        if p.causal {
            ((tile + 1) * self.query_rows())
                .div_ceil(self.key_rows())
                .min(all)
        } else {
            all
        }
    }

    /// Threads of a CTA: the producer warp group and the consumers.
    pub fn threads(self) -> u32 {
        128 + 2 * self.query_rows()
    }

    /// The bf16 kernel's description.
    pub fn spec(self) -> KernelSpec {
        self.with(Half::Bf16)
    }

    /// Every kernel.
    pub const ALL: [Kernel; 5] = [
        Kernel::Hd64,
        Kernel::Hd64Short,
        Kernel::Hd128,
        Kernel::Hd128Wide,
        Kernel::Hd256,
    ];
}

/// The grid for `p` run by `kernel` on a GPU of `sms` SMs: persistent, one CTA per SM, or per
/// query tile if there are fewer. [`TileSchedule`] says which tiles each CTA takes.
pub fn grid(kernel: Kernel, p: Problem, sms: u32) -> (u32, u32, u32) {
    let tiles = p.seq.div_ceil(kernel.query_rows()) * p.heads;
    (tiles.min(sms).max(1), 1, 1)
}

/// Which query tiles each CTA of a persistent launch takes, in order: the kernel's `schedule`
/// argument ([`TileSchedule::words`]).
///
/// Without a mask every tile reads every key tile, and CTA `c` takes the tiles `c`, `c + G`, …
/// of the `G` CTAs, a head's tiles one after another so the CTAs that run at once share its keys
/// and values in L2.
///
/// Under a causal mask tile `t` of `T` reads `t + 1` key tiles (of as many rows as it has), and a
/// head's tiles `t` and `T − 1 − t` together take the same time whatever `t`. Most of the work
/// is dealt as such pairs, in the same order, a whole number of them to every CTA. The last
/// pairs, which would leave SMs idle in the last wave, may be taken as single tiles instead, the
/// longest first, each by the CTA with the least work so far (longest processing time first):
/// the partial last wave, or up to three waves more as long as their heads' keys and values fit
/// in L2 together, whichever the cost model says takes least time, and only if that is less than
/// dealing every pair. In the model a tile costs its key tiles plus one for its own start and
/// epilogue. On 132 SMs with 16 k tokens it takes the busiest CTA from 0.97 of the ideal
/// balance to 0.987-0.997 at head dimensions 64 and 128, 0.973-0.990 at 256 (whose heads' keys
/// and values let the L2 take fewer waves apart; at 512 tokens the pairs stay), and 192-row
/// tiles from 0.73 / 0.86 / 0.94 / 0.95 to 0.97 / 0.996 / 0.995 / 0.992.
///
/// Measured on an H100 against the pairs dealt round robin (2026-11-28, one run, each against
/// cuDNN): causal rows at 2 k tokens and more 0.97-1.16x → 1.01-1.20x, the 192-row kernel
/// 0.69 / 0.94 / 1.09 / 1.11x → 0.86 / 1.05 / 1.13 / 1.14x; at 512 tokens the 128-row kernels
/// 0.96x → 0.98x at head dimension 64, but 1.00x → 0.98x at 128, where the model's gain did not
/// carry over. Without a mask the order is the one before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileSchedule {
    /// Each CTA's tiles, `head · T + tile`, in the order it takes them.
    lists: Vec<Vec<u32>>,
}

impl TileSchedule {
    /// A tile's own cost in the model, beyond its key tiles: loading its queries, the first
    /// product that nothing overlaps, and the epilogue.
    const START: u64 = 1;

    /// The most bytes of keys and values the heads of the tiles dealt one by one may hold
    /// together: four fifths of Hopper's 50 MB of L2. Those tiles run longest first across all
    /// their heads at once, where pairs run a few heads at a time. On an H100 (2026-11-28),
    /// breaking up four waves at head dimension 128 and 8 k or 16 k tokens (62 MB) took
    /// 1.09-1.10x cuDNN down to 1.06x, while 42-44 MB at head dimension 64 went from 1.09-1.11x
    /// to 1.15-1.16x.
    const L2_BYTES: u64 = 40 << 20;

    /// Query tile `tile` of a head's cost in the model, in key tiles: its key tiles and
    /// [`TileSchedule::START`].
    pub fn tile_cost(kernel: Kernel, p: Problem, tile: u32) -> u64 {
        TileSchedule::START + u64::from(kernel.key_tiles_of(p, tile))
    }

    /// The schedule of `p` for `kernel` on `ctas` CTAs (some may have nothing to do).
    pub fn new(kernel: Kernel, p: Problem, ctas: u32) -> Result<TileSchedule, String> {
        let t = p.seq.div_ceil(kernel.query_rows());
        let g = ctas as usize;
        if g == 0 {
            return Err("a schedule needs at least one CTA".into());
        }
        if u64::from(p.heads) * u64::from(p.seq) > u64::from(u32::MAX) {
            return Err(format!(
                "{} heads of {} rows: more rows than a u32 counts",
                p.heads, p.seq
            ));
        }
        // A head's items, as the kernel deals them: under a causal mask its tiles (t, T - 1 - t)
        // (the middle tile of an odd T alone), else each tile.
        let per = if p.causal { t.div_ceil(2) } else { t };
        let items: Vec<Vec<u32>> = (0..p.heads)
            .flat_map(|h| {
                (0..per).map(move |last| {
                    let first = if p.causal { t - 1 - last } else { last };
                    if first == last {
                        vec![h * t + last]
                    } else {
                        vec![h * t + last, h * t + first]
                    }
                })
            })
            .collect();
        let cost = |u: u32| TileSchedule::tile_cost(kernel, p, u % t);
        let waves = items.len() / g;
        // Without a mask every tile costs the same, and nothing is left to balance.
        let most = if p.causal { waves.min(3) } else { 0 };
        let head_bytes = 2 * 2 * u64::from(p.seq) * u64::from(p.d);
        let mut best: Option<(u64, TileSchedule)> = None;
        // Every item dealt round robin first: tiles are taken one by one only where the model
        // says that saves time (at head dimension 256 and 512 tokens it does not, and taking
        // them one by one measured 1.5 % slower).
        let dealings = std::iter::once(items.len()).chain(
            (0..=most)
                .filter(|_| p.causal)
                .map(|broken| (waves - broken) * g),
        );
        for (n, dealt) in dealings.enumerate() {
            // The partial wave spans no more heads than a wave of pairs; each wave broken up
            // beyond it adds its heads to those the single tiles run across at once.
            if n > 1 {
                let heads = (items.len() - 1) / per as usize - dealt / per as usize + 1;
                if heads as u64 * head_bytes > TileSchedule::L2_BYTES {
                    break;
                }
            }
            let mut lists = vec![Vec::new(); g];
            let mut load = vec![0u64; g];
            for (i, item) in items[..dealt].iter().enumerate() {
                lists[i % g].extend(item);
                load[i % g] += item.iter().map(|&u| cost(u)).sum::<u64>();
            }
            let mut singles: Vec<u32> = items[dealt..].concat();
            singles.sort_by_key(|&u| (std::cmp::Reverse(cost(u)), u));
            let mut least: std::collections::BinaryHeap<std::cmp::Reverse<(u64, usize)>> =
                (0..g).map(|c| std::cmp::Reverse((load[c], c))).collect();
            for u in singles {
                let std::cmp::Reverse((l, c)) = least.pop().expect("a CTA");
                lists[c].push(u);
                least.push(std::cmp::Reverse((l + cost(u), c)));
            }
            let span = least.into_iter().map(|x| x.0.0).max().unwrap_or(0);
            if best.as_ref().is_none_or(|(b, _)| span < *b) {
                best = Some((span, TileSchedule { lists }));
            }
        }
        Ok(best.expect("at least one way to deal").1)
    }

    /// The CTAs it was made for.
    pub fn ctas(&self) -> u32 {
        self.lists.len() as u32
    }

    /// Each CTA's tiles, `head · T + tile` (`T` query tiles a head), in the order it takes them.
    pub fn lists(&self) -> &[Vec<u32>] {
        &self.lists
    }

    /// The kernel's `schedule` argument, for a launch of exactly [`TileSchedule::ctas`] CTAs:
    /// for CTA `c`, word `3c` is how many tiles it takes, word `3c + 1` the index of the word
    /// holding the first of them (the rest follow it), and word `3c + 2` that first tile again
    /// (0 if it takes none), so a CTA learns where to start from loads that do not wait on each
    /// other.
    pub fn words(&self) -> Vec<u32> {
        let g = self.lists.len();
        let mut words = Vec::with_capacity(3 * g + self.lists.iter().map(Vec::len).sum::<usize>());
        let mut at = 3 * g as u32;
        for list in &self.lists {
            words.extend([list.len() as u32, at, list.first().copied().unwrap_or(0)]);
            at += list.len() as u32;
        }
        words.extend(self.lists.iter().flatten());
        words
    }

    /// The model's time of the busiest CTA ([`TileSchedule::tile_cost`] a tile).
    pub fn makespan(&self, kernel: Kernel, p: Problem) -> u64 {
        let t = p.seq.div_ceil(kernel.query_rows());
        self.lists
            .iter()
            .map(|l| {
                l.iter()
                    .map(|&u| TileSchedule::tile_cost(kernel, p, u % t))
                    .sum::<u64>()
            })
            .max()
            .unwrap_or(0)
    }
}

/// A deterministic `[heads, seq, d]` tensor of bf16 values in [-1, 1].
pub fn tensor(p: Problem, seed: u32) -> Vec<bf16> {
    (0..p.heads * p.seq * p.d)
        .map(|i| {
            let h = i
                .wrapping_mul(2654435761)
                .wrapping_add(seed.wrapping_mul(40503))
                >> 8;
            bf16::from_f32((h % 257) as f32 / 128.0 - 1.0)
        })
        .collect()
}

/// The CPU reference in f64: `O` (per row, `d` values) and the rows' natural log-sum-exp.
pub fn reference(p: Problem, q: &[bf16], k: &[bf16], v: &[bf16]) -> (Vec<f64>, Vec<f64>) {
    reference_scaled(p, (q, k, v), 1.0 / (p.d as f64).sqrt())
}

/// [`reference`] with the scores scaled by `scale` (natural units: the kernel's `scale_log2`
/// is `scale · log2 e`).
pub fn reference_scaled(
    p: Problem,
    (q, k, v): (&[bf16], &[bf16], &[bf16]),
    scale: f64,
) -> (Vec<f64>, Vec<f64>) {
    let (s, d) = (p.seq as usize, p.d as usize);
    let mut out = vec![0.0; q.len()];
    let mut lse = vec![0.0; p.heads as usize * s];
    for h in 0..p.heads as usize {
        let at = |x: &[bf16], r: usize, c: usize| x[(h * s + r) * d + c].to_f64();
        for i in 0..s {
            let last = if p.causal { i + 1 } else { s };
            let scores: Vec<f64> = (0..last)
                .map(|j| (0..d).map(|c| at(q, i, c) * at(k, j, c)).sum::<f64>() * scale)
                .collect();
            let max = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let weights: Vec<f64> = scores.iter().map(|x| (x - max).exp()).collect();
            let sum: f64 = weights.iter().sum();
            lse[h * s + i] = max + sum.ln();
            for c in 0..d {
                let o: f64 = weights
                    .iter()
                    .enumerate()
                    .map(|(j, w)| w * at(v, j, c))
                    .sum();
                out[(h * s + i) * d + c] = o / sum;
            }
        }
    }
    (out, lse)
}

/// The arguments of `kernel` in `half` for `p` on `ctas` CTAs as the runtime passes them: the
/// tensor maps of Q, K and V (each owning its tensor, the values rounded to `half`) and O (its
/// bytes 0xff, so rows a kernel fails to write stand out), the log-sum-exp buffer (NaN), the
/// [`TileSchedule`] for `ctas`, the sizes and `scale_log2`.
pub fn arguments<T: Copy + Into<f32>>(
    (kernel, half): (Kernel, Half),
    p: Problem,
    (q, k, v): (&[T], &[T], &[T]),
    scale_log2: f32,
    ctas: u32,
) -> Result<Vec<ArgValue>, String> {
    if kernel.head_dim() != p.d {
        return Err(format!(
            "{} takes head dimension {}, not {}",
            kernel.name(),
            kernel.head_dim(),
            p.d
        ));
    }
    let bytes = |x: &[T]| {
        x.iter()
            .flat_map(|&h| half.bytes(h.into()))
            .collect::<Vec<u8>>()
    };
    let (s, d, bh) = (p.seq as u64, p.d as u64, p.heads as u64);
    let spec = kernel.with(half);
    let schedule = TileSchedule::new(kernel, p, ctas)?;
    let map = |name: &str, data: Vec<u8>| -> Result<ArgValue, String> {
        let ty = spec.map_type(name).ok_or("a map parameter")?;
        let map = ty
            .tiled(0, &[64, s, d / 64, bh], &[2 * d, 128, 2 * d * s])
            .map_err(|e| e.to_string())?;
        Ok(ArgValue::from(TensorMapArg::owning(map, data)))
    };
    Ok(vec![
        map("q", bytes(q))?,
        map("k", bytes(k))?,
        map("v", bytes(v))?,
        map("o", vec![0xff; q.len() * 2])?,
        ArgValue::buffer(&vec![f32::NAN; (bh * s) as usize]),
        ArgValue::buffer(&schedule.words()),
        ArgValue::U32(p.seq),
        ArgValue::U32(p.causal as u32),
        ArgValue::F32(scale_log2),
    ])
}

/// The launch of `kernel` on `grid`: its block and dynamic shared memory.
pub fn launch(kernel: Kernel, grid: (u32, u32, u32)) -> Launch {
    Launch {
        grid,
        block: (kernel.threads(), 1, 1),
        dynamic_shared_bytes: kernel.spec().dynamic_shared_bytes,
        ..Launch::default()
    }
}

/// Runs `kernel` in `half` on `p` in the simulator on `launch`'s grid and schedule (its block and
/// shared memory are the kernel's), with `scale_log2`: `O` (its values) and the log-sum-exp.
pub fn simulate<T: Copy + Into<f32>>(
    (kernel, half): (Kernel, Half),
    p: Problem,
    qkv: (&[T], &[T], &[T]),
    scale_log2: f32,
    launch: &Launch,
) -> Result<(Vec<f32>, Vec<f32>), String> {
    let mut args = arguments((kernel, half), p, qkv, scale_log2, launch.grid.0)?;
    let launch = Launch {
        block: (kernel.threads(), 1, 1),
        ..launch.clone()
    };
    match simulate_spec(&kernel.with(half), &launch, &mut args) {
        Ok(Outcome::Completed(_)) => {}
        Ok(other) => return Err(format!("{}: {other:?}", kernel.name())),
        Err(e) => return Err(format!("{}: {e}", kernel.name())),
    }
    let (ArgValue::TensorMap(o), ArgValue::Buffer(lse)) = (&args[3], &args[4]) else {
        return Err("the arguments' order changed".into());
    };
    let o = o.data().ok_or("O's own tensor")?;
    let o = o
        .chunks_exact(2)
        .map(|h| half.value([h[0], h[1]]))
        .collect();
    let lse = lse
        .chunks_exact(4)
        .map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    Ok((o, lse))
}

/// `scale_log2` for [`exact`] inputs: the scores are the exponents themselves.
pub const EXACT_SCALE_LOG2: f32 = 1.0;

/// Inputs on which every rounding the kernel makes is exact, and the outputs it must then
/// produce, bit for bit. The GPU's `ex2.approx`, `rcp.approx` and `lg2.approx` differ from the
/// simulator's exact ones in the last bits, except where the exact result is representable and
/// the argument an integer or a power of two; these inputs keep every one of them there.
///
/// With `scale_log2` = 1 ([`EXACT_SCALE_LOG2`]) a score is its own base-2 exponent. Every key of
/// a head is in one of three groups, a quarter of the keys (A), a quarter (B) and a half (C),
/// marked by columns 0 to 2 of K. Query row `i` puts the levels 0 and −1 on columns 0 and 1 (in
/// an order drawn per row) and −2 on column 2, and its own offset on column 3 (all of K's are 1);
/// the other columns hold small integers, K's the same on every key, so they move every score of
/// a row by the same amount. A row's scores are therefore its maximum `m` and `m − 1`, `m − 2`,
/// the weights 1, 1/2 and 1/4, and the row sum `seq / 4 · (1 + 1/2) + seq / 2 · 1/4 = seq / 2`, a
/// power of two. V holds small integers, so the products and sums are exact in f32, and the
/// only rounding is O's to bf16 or f16, the same everywhere. Even heads put group C first, so the
/// running maximum rises from tile to tile and the output is rescaled; odd heads mix the groups.
pub struct Exact {
    /// Small integers, exact in bf16 and f16.
    pub q: Vec<f32>,
    pub k: Vec<f32>,
    pub v: Vec<f32>,
    /// `O` exactly, before the kernel rounds it to its element type ([`Half::round`]).
    pub o: Vec<f32>,
    /// The rows' natural log-sum-exp, computed in f32 as the kernel computes it.
    pub lse: Vec<f32>,
}

/// [`Exact`] inputs for `p`, drawn from `seed`: `p.seq` a power of two of at least 4, no causal
/// mask (its rows see a number of keys that is not a power of two).
pub fn exact(p: Problem, seed: u64) -> Result<Exact, String> {
    let (s, d, heads) = (p.seq as usize, p.d as usize, p.heads as usize);
    if p.causal || s < 4 || !s.is_power_of_two() || d < 4 {
        return Err(format!(
            "exact inputs need a power-of-two sequence of 4 rows or more, no causal mask and 4 columns: {p:?}"
        ));
    }
    let mut rng = Rng::new(seed);
    // An integer in -n..=n.
    let small = |rng: &mut Rng, n: u64| rng.below(2 * n + 1) as f32 - n as f32;
    let (mut q, mut k) = (vec![0.0f32; heads * s * d], vec![0.0f32; heads * s * d]);
    let v: Vec<f32> = (0..heads * s * d).map(|_| small(&mut rng, 4)).collect();
    let mut o = vec![0.0f32; heads * s * d];
    let mut lse = vec![0.0f32; heads * s];
    let sum = (s / 2) as f32;
    for h in 0..heads {
        let row = |r: usize| (h * s + r) * d;
        // The keys in group order (A, B, then C), shuffled; on even heads C's keys are the
        // first half, A's and B's the second.
        let mut keys: Vec<usize> = (0..s).collect();
        for i in (1..s).rev() {
            keys.swap(i, rng.below(i as u64 + 1) as usize);
        }
        if h % 2 == 0 {
            keys.sort_by_key(|&j| j < s / 2);
        }
        let shared: Vec<f32> = (4..d).map(|_| small(&mut rng, 2)).collect();
        let mut group = vec![0usize; s];
        for (rank, &j) in keys.iter().enumerate() {
            group[j] = usize::from(rank >= s / 4) + usize::from(rank >= s / 2);
            k[row(j) + group[j]] = 1.0;
            k[row(j) + 3] = 1.0;
            k[row(j) + 4..row(j) + d].copy_from_slice(&shared);
        }
        for i in 0..s {
            let levels = if rng.below(2) == 0 {
                [0.0f32, -1.0, -2.0]
            } else {
                [-1.0, 0.0, -2.0]
            };
            q[row(i)..row(i) + 3].copy_from_slice(&levels);
            q[row(i) + 3] = small(&mut rng, 8);
            for c in 4..d {
                q[row(i) + c] = small(&mut rng, 2);
            }
            let max = q[row(i) + 3] + (4..d).map(|c| q[row(i) + c] * shared[c - 4]).sum::<f32>();
            for c in 0..d {
                let weighted: f32 = (0..s)
                    .map(|j| levels[group[j]].exp2() * v[row(j) + c])
                    .sum();
                o[row(i) + c] = weighted / sum;
            }
            lse[h * s + i] = (max + sum.log2()) * std::f64::consts::LN_2 as f32;
        }
    }
    Ok(Exact { q, k, v, o, lse })
}

/// The largest absolute error of `got` against `want`, and the relative Frobenius error.
pub fn errors(got: impl Iterator<Item = f64>, want: &[f64]) -> (f64, f64) {
    let (mut max, mut diff, mut norm) = (0.0f64, 0.0, 0.0);
    for (g, w) in got.zip(want) {
        max = max.max((g - w).abs());
        diff += (g - w) * (g - w);
        norm += w * w;
    }
    (max, (diff / norm.max(f64::MIN_POSITIVE)).sqrt())
}

fn main() -> Result<(), String> {
    // `-- --emit DIR`: each kernel's PTX into DIR, and its dynamic shared memory (for the GPU
    // benchmark, tools/gpu-attention).
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, dir] = args.as_slice()
        && flag == "--emit"
    {
        // And DIR/kernels.txt: a line per kernel, `name head_dim smem query_rows key_rows
        // threads`, which tools/gpu-attention/table.sh launches them by.
        let mut list = String::new();
        for kernel in Kernel::ALL {
            let smem = kernel.spec().dynamic_shared_bytes;
            // The f16 kernel beside it (`DTYPE=f16 table.sh` runs those).
            for spec in [kernel.spec(), kernel.with(Half::F16)] {
                let path = format!("{dir}/{}.ptx", spec.entry);
                std::fs::write(&path, spec.ptx).map_err(|e| format!("{path}: {e}"))?;
            }
            list += &format!(
                "{} {} {smem} {} {} {}\n",
                kernel.name(),
                kernel.head_dim(),
                kernel.query_rows(),
                kernel.key_rows(),
                kernel.threads()
            );
        }
        let path = format!("{dir}/kernels.txt");
        std::fs::write(&path, &list).map_err(|e| format!("{path}: {e}"))?;
        print!("{list}");
        return Ok(());
    }
    println!("{}", attention_hd128::PTX);
    for kernel in Kernel::ALL {
        for (half, causal) in [(Half::Bf16, false), (Half::Bf16, true), (Half::F16, true)] {
            let p = Problem {
                heads: 2,
                seq: 200,
                d: kernel.head_dim(),
                causal,
            };
            let (q, k, v) = (tensor(p, 1), tensor(p, 2), tensor(p, 3));
            // As on a GPU of 2 SMs: each CTA strides over several work items.
            let launch = Launch {
                grid: grid(kernel, p, 2),
                ..Launch::default()
            };
            let (o, lse) = simulate((kernel, half), p, (&q, &k, &v), p.scale_log2(), &launch)?;
            let (o_ref, lse_ref) = reference(p, &q, &k, &v);
            let (o_max, o_rel) = errors(o.iter().map(|&x| x as f64), &o_ref);
            let (l_max, _) = errors(lse.iter().map(|&x| x as f64), &lse_ref);
            let name = kernel.with(half).entry;
            println!(
                "// {name}, seq 200 (ragged), causal {causal}: O max error {o_max:.2e}, relative {o_rel:.2e}; log-sum-exp max error {l_max:.2e}"
            );
            if !(o_rel < 1e-2 && l_max < 1e-3) {
                return Err(format!(
                    "{name}, causal {causal}: outside the rounding of P and O"
                ));
            }
        }
    }
    Ok(())
}
