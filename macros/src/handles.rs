//! The methods of the barrier vocabulary's handles: what each takes and gives.
//!
//! rustc checks the handles' typestate on the copy it type-checks; this table tells the checker
//! the kinds of the arguments (so literals get their types) and of the result, and tells the
//! lowering which instruction form a method is.

use crate::types::{Handle, Prim, Ty};

/// One argument of a handle method.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Arg {
    U32,
    Bool,
    Sem,
    Scope,
    Parity,
    /// Shared memory a copy writes or reads (a shared array or the dynamic shared memory).
    Shared,
    /// A global slice.
    Global,
    /// A `u32` known at compile time (an element count).
    ConstU32,
}

/// What a handle method returns.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Out {
    Unit,
    U32,
    Bool,
    /// A handle of this kind (for pipelines, of the receiver's shape).
    Handle(Kind),
    /// An element of the receiver's pipeline.
    Elem,
    /// An element of the receiver accumulator.
    AccElem,
}

/// Handle kinds a method can return.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Kind {
    MBar,
    Arrival,
    Dropped,
    DynMBar,
    ClusterBar,
    ClusterArrival,
    Producer,
    ProducerSlot,
    Consumer,
    ConsumerSlot,
    Retired,
    Acc,
    /// A wgmma A operand in registers (its `K` is the score tile's `N`; the checker types it).
    Fragment,
    RowLse,
    /// `store_partial`'s part and its arrival (of the receiver accumulator's shape).
    Partial,
    SplitArrival,
    PingPong,
    Turn,
    /// `commit_behind`'s result (the checker types it from the scores).
    Overlap,
    /// An online softmax rounding P as the receiver's does.
    Softmax,
}

/// Every handle method, by what it lowers to.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Method {
    // named barriers
    BarSync {
        aligned: bool,
    },
    BarArrive {
        aligned: bool,
    },
    BarRed {
        op: &'static str,
        aligned: bool,
    },
    // mbarrier
    Init,
    Publish {
        fence: bool,
    },
    Arrive {
        form: ArriveForm,
        drop: bool,
    },
    Observe {
        test: bool,
        hinted: bool,
        with: bool,
    },
    WaitParity,
    Inval,
    IntoDynamic,
    ArriveLoad,
    ExpectTx {
        complete: bool,
        with: bool,
    },
    ArriveOnPeer {
        expect_tx: bool,
        drop: bool,
    },
    CpAsyncArrive {
        noinc: bool,
    },
    // arrival token
    Wait {
        test: bool,
        hinted: bool,
        with: bool,
    },
    PendingCount,
    // run-time parity mbarrier
    DynArrive {
        expect_tx: bool,
    },
    DynWait,
    DynParity,
    // cluster barrier
    ClusterArrive {
        sem: Option<&'static str>,
        aligned: bool,
    },
    ClusterWait {
        acquire: bool,
        aligned: bool,
    },
    // pipeline
    Producer,
    Consumer,
    Acquire,
    SlotStage,
    Load,
    /// `load_tile` (1 box) / `load_tiles` (2 boxes) / `load_tiles_multicast` (the second box
    /// multicast to the cluster): tensor copies into the stage.
    LoadTiles {
        multicast: bool,
    },
    /// `ConsumerSlot::address`.
    SlotAddress,
    ConsumerWait,
    /// `Consumer::skip(n)`: the position moved past `n` stages another consumer takes.
    ConsumerSkip,
    SlotGet,
    Release,
    /// `ConsumerSlot::release_elected(arrive)`: only the threads passing `true` arrive.
    ReleaseElected,
    /// `ConsumerSlot::retire`.
    Retire,
    /// `Retired::release`.
    RetiredRelease,
    // wgmma accumulator
    Mma,
    /// `mma_block`: `mma` on one 64-row block of a taller A box.
    MmaBlock,
    /// `stage_columns`: 64 columns rounded to bf16 into a swizzled shared tile.
    AccStage,
    /// `stage_columns_transposed`: the same columns as the tile's rows.
    AccStageTransposed,
    /// `stage_columns_32`: 32 columns into a 64-byte-swizzled shared tile.
    AccStage32,
    /// `stage_columns_16`: 16 columns into a 32-byte-swizzled shared tile.
    AccStage16,
    /// `stage_columns_transposed_16`: 16 columns as the 16 rows of a shared tile.
    AccStageTransposed16,
    /// `stage_columns_transposed_32`: 32 columns as the 32 rows of a shared tile.
    AccStageTransposed32,
    Commit,
    /// `wait::<K>()`: `K` is the turbofish's.
    AccWait,
    AccGet,
    AccRow,
    AccCol,
    AccStore,
    /// `store_partial`: a split sum's part into global memory.
    AccStorePartial,
    /// `Partial::arrive`: the ticket.
    PartialArrive,
    /// `SplitArrival::last`.
    SplitLast,
    /// `SplitArrival::total`.
    SplitTotal,
    /// `mma_tiles`: A and B from two stages.
    MmaTiles,
    /// `mma_regs`: A from a register fragment, B N-major from a stage.
    MmaRegs,
    /// `mask_columns(limit)`.
    MaskColumns,
    /// `mask_causal(offset)`.
    MaskCausal,
    /// `scale(factor)`: every element times an f32.
    AccScale,
    /// `add(&other)`: another accumulator of the same shape added element by element.
    AccAdd,
    /// `reset()`: zeroed, or overwritten by the product that follows.
    AccReset,
    /// `wait_behind(&newer)`: `wgmma.wait_group 1` with `newer`'s group the newest.
    WaitBehind,
    // online softmax
    SoftmaxStep,
    SoftmaxFinish,
    /// `lazy_rescale::<LOG2>()`: the same softmax, rescaling only past `2^LOG2`.
    SoftmaxLazy,
    LseStore,
    // ping-pong
    PingTake,
    PingEnd,
    TurnPass,
    // overlap of the scores' softmax with the output's P · V
    CommitBehind,
    WaitScores,
    Scores,
    OverlapSoftmax,
}

/// The operand forms of an mbarrier arrive-on.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum ArriveForm {
    Plain,
    Count,
    ExpectTx,
    NoComplete,
    With,
}

use Arg::*;

/// The method `name` of handle `h`: what it is, its arguments, its result.
pub fn lookup(h: Handle, name: &str) -> Option<(Method, &'static [Arg], Out)> {
    use Method as M;
    let k = Out::Handle;
    Some(match h {
        Handle::Named {
            reduction: false,
            threads,
            ..
        } => match name {
            "sync" => (M::BarSync { aligned: true }, &[], Out::Unit),
            "sync_unaligned" => (M::BarSync { aligned: false }, &[], Out::Unit),
            "arrive" if threads > 0 => (M::BarArrive { aligned: true }, &[], Out::Unit),
            "arrive_unaligned" if threads > 0 => (M::BarArrive { aligned: false }, &[], Out::Unit),
            _ => return None,
        },
        Handle::Named {
            reduction: true, ..
        } => match name {
            "popc" => (
                M::BarRed {
                    op: "popc",
                    aligned: true,
                },
                &[Bool],
                Out::U32,
            ),
            "all" => (
                M::BarRed {
                    op: "and",
                    aligned: true,
                },
                &[Bool],
                Out::Bool,
            ),
            "any" => (
                M::BarRed {
                    op: "or",
                    aligned: true,
                },
                &[Bool],
                Out::Bool,
            ),
            "popc_unaligned" => (
                M::BarRed {
                    op: "popc",
                    aligned: false,
                },
                &[Bool],
                Out::U32,
            ),
            "all_unaligned" => (
                M::BarRed {
                    op: "and",
                    aligned: false,
                },
                &[Bool],
                Out::Bool,
            ),
            "any_unaligned" => (
                M::BarRed {
                    op: "or",
                    aligned: false,
                },
                &[Bool],
                Out::Bool,
            ),
            _ => return None,
        },
        Handle::DynNamed => match name {
            "sync" => (M::BarSync { aligned: true }, &[], Out::Unit),
            "arrive" => (M::BarArrive { aligned: true }, &[], Out::Unit),
            _ => return None,
        },
        Handle::MBar => match name {
            "init" => (M::Init, &[Bool, U32], k(Kind::MBar)),
            "publish" => (M::Publish { fence: true }, &[], k(Kind::MBar)),
            "publish_cta" => (M::Publish { fence: false }, &[], k(Kind::MBar)),
            "arrive" => (
                M::Arrive {
                    form: ArriveForm::Plain,
                    drop: false,
                },
                &[],
                k(Kind::Arrival),
            ),
            "arrive_count" => (
                M::Arrive {
                    form: ArriveForm::Count,
                    drop: false,
                },
                &[U32],
                k(Kind::Arrival),
            ),
            "arrive_expect_tx" => (
                M::Arrive {
                    form: ArriveForm::ExpectTx,
                    drop: false,
                },
                &[U32],
                k(Kind::Arrival),
            ),
            "arrive_no_complete" => (
                M::Arrive {
                    form: ArriveForm::NoComplete,
                    drop: false,
                },
                &[U32],
                k(Kind::Arrival),
            ),
            "arrive_with" => (
                M::Arrive {
                    form: ArriveForm::With,
                    drop: false,
                },
                &[Sem, Scope],
                k(Kind::Arrival),
            ),
            "arrive_drop" => (
                M::Arrive {
                    form: ArriveForm::Plain,
                    drop: true,
                },
                &[],
                k(Kind::Dropped),
            ),
            "arrive_drop_count" => (
                M::Arrive {
                    form: ArriveForm::Count,
                    drop: true,
                },
                &[U32],
                k(Kind::Dropped),
            ),
            "arrive_drop_expect_tx" => (
                M::Arrive {
                    form: ArriveForm::ExpectTx,
                    drop: true,
                },
                &[U32],
                k(Kind::Dropped),
            ),
            "arrive_drop_no_complete" => (
                M::Arrive {
                    form: ArriveForm::NoComplete,
                    drop: true,
                },
                &[U32],
                k(Kind::Dropped),
            ),
            "arrive_drop_with" => (
                M::Arrive {
                    form: ArriveForm::With,
                    drop: true,
                },
                &[Sem, Scope],
                k(Kind::Dropped),
            ),
            "observe" => (
                M::Observe {
                    test: false,
                    hinted: false,
                    with: false,
                },
                &[],
                k(Kind::MBar),
            ),
            "observe_test" => (
                M::Observe {
                    test: true,
                    hinted: false,
                    with: false,
                },
                &[],
                k(Kind::MBar),
            ),
            "observe_hinted" => (
                M::Observe {
                    test: false,
                    hinted: true,
                    with: false,
                },
                &[U32],
                k(Kind::MBar),
            ),
            "observe_with" => (
                M::Observe {
                    test: false,
                    hinted: false,
                    with: true,
                },
                &[Sem, Scope],
                k(Kind::MBar),
            ),
            "wait_parity" => (M::WaitParity, &[Parity], k(Kind::MBar)),
            "inval" => (M::Inval, &[Bool], k(Kind::MBar)),
            "into_dynamic" => (M::IntoDynamic, &[], k(Kind::DynMBar)),
            "arrive_load" => (
                M::ArriveLoad,
                &[Shared, U32, Global, U32, ConstU32],
                k(Kind::Arrival),
            ),
            "expect_tx" => (
                M::ExpectTx {
                    complete: false,
                    with: false,
                },
                &[U32],
                Out::Unit,
            ),
            "complete_tx" => (
                M::ExpectTx {
                    complete: true,
                    with: false,
                },
                &[U32],
                Out::Unit,
            ),
            "expect_tx_with" => (
                M::ExpectTx {
                    complete: false,
                    with: true,
                },
                &[U32, Sem, Scope],
                Out::Unit,
            ),
            "complete_tx_with" => (
                M::ExpectTx {
                    complete: true,
                    with: true,
                },
                &[U32, Sem, Scope],
                Out::Unit,
            ),
            "arrive_on_peer" => (
                M::ArriveOnPeer {
                    expect_tx: false,
                    drop: false,
                },
                &[U32],
                Out::Unit,
            ),
            "arrive_expect_tx_on_peer" => (
                M::ArriveOnPeer {
                    expect_tx: true,
                    drop: false,
                },
                &[U32, U32],
                Out::Unit,
            ),
            "arrive_drop_on_peer" => (
                M::ArriveOnPeer {
                    expect_tx: false,
                    drop: true,
                },
                &[U32],
                Out::Unit,
            ),
            "cp_async_arrive" => (M::CpAsyncArrive { noinc: false }, &[], Out::Unit),
            "cp_async_arrive_noinc" => (M::CpAsyncArrive { noinc: true }, &[], Out::Unit),
            _ => return None,
        },
        Handle::Arrival => match name {
            "wait" => (
                M::Wait {
                    test: false,
                    hinted: false,
                    with: false,
                },
                &[],
                k(Kind::MBar),
            ),
            "wait_test" => (
                M::Wait {
                    test: true,
                    hinted: false,
                    with: false,
                },
                &[],
                k(Kind::MBar),
            ),
            "wait_hinted" => (
                M::Wait {
                    test: false,
                    hinted: true,
                    with: false,
                },
                &[U32],
                k(Kind::MBar),
            ),
            "wait_with" => (
                M::Wait {
                    test: false,
                    hinted: false,
                    with: true,
                },
                &[Sem, Scope],
                k(Kind::MBar),
            ),
            "pending_count" => (M::PendingCount, &[], Out::U32),
            _ => return None,
        },
        Handle::DynMBar => match name {
            "arrive" => (M::DynArrive { expect_tx: false }, &[], Out::Unit),
            "arrive_expect_tx" => (M::DynArrive { expect_tx: true }, &[U32], Out::Unit),
            "wait" => (M::DynWait, &[], Out::Unit),
            "parity" => (M::DynParity, &[], Out::U32),
            _ => return None,
        },
        Handle::ClusterBar => {
            let (sem, aligned) = match name {
                "arrive" => (None, false),
                "arrive_release" => (Some("release"), false),
                "arrive_relaxed" => (Some("relaxed"), false),
                "arrive_aligned" => (None, true),
                "arrive_release_aligned" => (Some("release"), true),
                "arrive_relaxed_aligned" => (Some("relaxed"), true),
                _ => return None,
            };
            (
                M::ClusterArrive { sem, aligned },
                &[],
                k(Kind::ClusterArrival),
            )
        }
        Handle::ClusterArrival => {
            let (acquire, aligned) = match name {
                "wait" => (false, false),
                "wait_acquire" => (true, false),
                "wait_aligned" => (false, true),
                "wait_acquire_aligned" => (true, true),
                _ => return None,
            };
            (
                M::ClusterWait { acquire, aligned },
                &[],
                k(Kind::ClusterBar),
            )
        }
        Handle::Pipeline(_) => match name {
            "producer" => (M::Producer, &[], k(Kind::Producer)),
            "consumer" => (M::Consumer, &[], k(Kind::Consumer)),
            _ => return None,
        },
        Handle::Producer(_) => match name {
            "acquire" => (M::Acquire, &[], k(Kind::ProducerSlot)),
            _ => return None,
        },
        Handle::ProducerSlot(_) => match name {
            "stage" => (M::SlotStage, &[], Out::U32),
            "load" => (M::Load, &[Global, U32], Out::Unit),
            // Checked by `Checker::tile_load` (maps and coordinate arrays).
            "load_tile" | "load_tiles" => (M::LoadTiles { multicast: false }, &[], Out::Unit),
            "load_tiles_multicast" => (M::LoadTiles { multicast: true }, &[], Out::Unit),
            _ => return None,
        },
        Handle::Consumer(_) => match name {
            "wait" => (M::ConsumerWait, &[], k(Kind::ConsumerSlot)),
            "skip" => (M::ConsumerSkip, &[U32], Out::Unit),
            _ => return None,
        },
        Handle::ConsumerSlot(_) => match name {
            "stage" => (M::SlotStage, &[], Out::U32),
            "get" => (M::SlotGet, &[U32], Out::Elem),
            "address" => (M::SlotAddress, &[U32], Out::U32),
            "release" => (M::Release, &[], Out::Unit),
            "release_elected" => (M::ReleaseElected, &[Bool], Out::Unit),
            "retire" => (M::Retire, &[], k(Kind::Retired)),
            _ => return None,
        },
        Handle::Retired(_) => match name {
            "release" => (M::RetiredRelease, &[], Out::Unit),
            _ => return None,
        },
        // Checked by `Checker::acc_method` (operands, the constant index, the turbofish).
        Handle::Acc(_) => match name {
            "mma" => (M::Mma, &[], k(Kind::Acc)),
            "mma_block" => (M::MmaBlock, &[], k(Kind::Acc)),
            "stage_columns" => (M::AccStage, &[], Out::Unit),
            "stage_columns_transposed" => (M::AccStageTransposed, &[], Out::Unit),
            "stage_columns_32" => (M::AccStage32, &[], Out::Unit),
            "stage_columns_16" => (M::AccStage16, &[], Out::Unit),
            "stage_columns_transposed_16" => (M::AccStageTransposed16, &[], Out::Unit),
            "stage_columns_transposed_32" => (M::AccStageTransposed32, &[], Out::Unit),
            "commit" => (M::Commit, &[], k(Kind::Acc)),
            "wait" => (M::AccWait, &[], k(Kind::Acc)),
            "get" => (M::AccGet, &[ConstU32], Out::AccElem),
            "row" => (M::AccRow, &[ConstU32], Out::U32),
            "col" => (M::AccCol, &[ConstU32], Out::U32),
            "store" => (M::AccStore, &[Global, U32, U32], Out::Unit),
            // Checked by `Checker::acc_method` (the slice parameter).
            "store_partial" => (M::AccStorePartial, &[], k(Kind::Partial)),
            "mma_tiles" => (M::MmaTiles, &[], k(Kind::Acc)),
            "mma_regs" => (M::MmaRegs, &[], k(Kind::Acc)),
            "mask_columns" => (M::MaskColumns, &[U32], Out::Unit),
            "mask_causal" => (M::MaskCausal, &[U32], Out::Unit),
            // Checked by `Checker::acc_method` (an f32 factor).
            "scale" => (M::AccScale, &[], Out::Unit),
            // Checked by `Checker::acc_method` (an accumulator of the receiver's shape).
            "add" => (M::AccAdd, &[], Out::Unit),
            "reset" => (M::AccReset, &[], k(Kind::Acc)),
            // Checked by `Checker::acc_method` (an accumulator) and `check::inflight` (the order
            // of the two groups).
            "wait_behind" => (M::WaitBehind, &[], k(Kind::Acc)),
            "commit_behind" => (M::CommitBehind, &[], k(Kind::Overlap)),
            _ => return None,
        },
        // Checked by `Checker::softmax_method` (the accumulators it reads and writes).
        Handle::Softmax(_) => match name {
            "step" => (M::SoftmaxStep, &[], k(Kind::Fragment)),
            "finish" => (M::SoftmaxFinish, &[], k(Kind::RowLse)),
            "lazy_rescale" => (M::SoftmaxLazy, &[], k(Kind::Softmax)),
            _ => return None,
        },
        Handle::RowLse => match name {
            "store" => (M::LseStore, &[Global, U32, U32], Out::Unit),
            _ => return None,
        },
        // Checked by `Checker::partial_arrive` (the slice parameter and the barrier).
        Handle::Partial(_) => match name {
            "arrive" => (M::PartialArrive, &[], k(Kind::SplitArrival)),
            _ => return None,
        },
        Handle::SplitArrival(_) => match name {
            "last" => (M::SplitLast, &[], Out::Bool),
            "total" => (M::SplitTotal, &[], k(Kind::Acc)),
            _ => return None,
        },
        Handle::PingPong(..) => match name {
            "take" => (M::PingTake, &[], k(Kind::Turn)),
            "end" => (M::PingEnd, &[], Out::Unit),
            _ => return None,
        },
        Handle::Turn(..) => match name {
            "pass" => (M::TurnPass, &[], k(Kind::PingPong)),
            _ => return None,
        },
        // Checked by `Checker::overlap_method` (the softmax and fragment it takes).
        Handle::Overlap { ready: false, .. } => match name {
            "wait_scores" => (M::WaitScores, &[], k(Kind::Overlap)),
            _ => return None,
        },
        Handle::Overlap { ready: true, .. } => match name {
            "scores" => (M::Scores, &[], k(Kind::Acc)),
            "softmax" => (M::OverlapSoftmax, &[], k(Kind::Acc)),
            _ => return None,
        },
        _ => return None,
    })
}

/// The type of a method's result for receiver `h`.
pub fn result_type(h: Handle, out: Out) -> Ty {
    let shape = match h {
        Handle::Pipeline(s)
        | Handle::Producer(s)
        | Handle::ProducerSlot(s)
        | Handle::Consumer(s)
        | Handle::ConsumerSlot(s)
        | Handle::Retired(s) => Some(s),
        _ => None,
    };
    match out {
        Out::Unit => Ty::Unit,
        Out::U32 => Ty::Prim(Prim::U32),
        Out::Bool => Ty::Prim(Prim::Bool),
        Out::Elem => shape.map(|s| s.elem.ty()).unwrap_or(Ty::Unit),
        Out::AccElem => match h {
            Handle::Acc(a) => Ty::Prim(a.elem),
            _ => Ty::Unit,
        },
        Out::Handle(kind) => Ty::Handle(match (kind, shape) {
            (Kind::MBar, _) => Handle::MBar,
            (Kind::Arrival, _) => Handle::Arrival,
            (Kind::Dropped, _) => Handle::Dropped,
            (Kind::DynMBar, _) => Handle::DynMBar,
            (Kind::ClusterBar, _) => Handle::ClusterBar,
            (Kind::ClusterArrival, _) => Handle::ClusterArrival,
            (Kind::Producer, Some(s)) => Handle::Producer(s),
            (Kind::ProducerSlot, Some(s)) => Handle::ProducerSlot(s),
            (Kind::Consumer, Some(s)) => Handle::Consumer(s),
            (Kind::ConsumerSlot, Some(s)) => Handle::ConsumerSlot(s),
            (Kind::Retired, Some(s)) => Handle::Retired(s),
            (Kind::Acc, _) => match h {
                Handle::Acc(a) | Handle::SplitArrival(a) => Handle::Acc(a),
                _ => return Ty::Unit,
            },
            (Kind::Partial, _) => match h {
                Handle::Acc(a) => Handle::Partial(a),
                _ => return Ty::Unit,
            },
            (Kind::SplitArrival, _) => match h {
                Handle::Partial(a) => Handle::SplitArrival(a),
                _ => return Ty::Unit,
            },
            (Kind::RowLse, _) => Handle::RowLse,
            (Kind::Softmax, _) => match h {
                Handle::Softmax(p) => Handle::Softmax(p),
                _ => return Ty::Unit,
            },
            (Kind::Turn, _) => match h {
                Handle::PingPong(id, groups) => Handle::Turn(id, groups),
                _ => return Ty::Unit,
            },
            (Kind::PingPong, _) => match h {
                Handle::Turn(id, groups) => Handle::PingPong(id, groups),
                _ => return Ty::Unit,
            },
            (Kind::Overlap, _) => match h {
                Handle::Overlap { n, d, .. } => Handle::Overlap { n, d, ready: true },
                _ => return Ty::Unit,
            },
            _ => return Ty::Unit,
        }),
    }
}

/// The methods of a handle, for error messages.
pub fn names(h: Handle) -> &'static str {
    match h {
        Handle::Named {
            reduction: true, ..
        } => "popc, all, any, popc_unaligned, all_unaligned, any_unaligned",
        Handle::Named { threads: 0, .. } => {
            "sync, sync_unaligned (a barrier over all threads has no arrive: PTX requires a thread count for it, §9.7.13.1)"
        }
        Handle::Named { .. } | Handle::DynNamed => "sync, arrive, sync_unaligned, arrive_unaligned",
        Handle::MBar => {
            "init, publish, publish_cta, arrive, arrive_count, arrive_expect_tx, arrive_no_complete, arrive_with, arrive_drop(_count, _expect_tx, _no_complete, _with), observe(_test, _hinted, _with), wait_parity, inval, into_dynamic, arrive_load, expect_tx, complete_tx, expect_tx_with, complete_tx_with, arrive_on_peer, arrive_expect_tx_on_peer, arrive_drop_on_peer, cp_async_arrive, cp_async_arrive_noinc"
        }
        Handle::Arrival => "wait, wait_test, wait_hinted, wait_with, pending_count",
        Handle::DynMBar => "arrive, arrive_expect_tx, wait, parity",
        Handle::ClusterBar => "arrive, arrive_release, arrive_relaxed, and their _aligned forms",
        Handle::ClusterArrival => "wait, wait_acquire, wait_aligned, wait_acquire_aligned",
        Handle::Pipeline(_) => "producer, consumer",
        Handle::Producer(_) => "acquire",
        Handle::ProducerSlot(_) => "stage, load, load_tile, load_tiles, load_tiles_multicast",
        Handle::Consumer(_) => "wait, skip",
        Handle::ConsumerSlot(_) => "stage, get, address, release, release_elected, retire",
        Handle::Retired(_) => "release",
        Handle::Acc(_) => {
            "mma, mma_block, mma_tiles, mma_regs, commit, commit_behind, wait::<K>, wait_behind, get, row, col, store, store_partial, stage_columns, stage_columns_transposed, stage_columns_32, stage_columns_16, stage_columns_transposed_16, stage_columns_transposed_32, mask_columns, mask_causal"
        }
        Handle::Softmax(_) => "step, finish, lazy_rescale::<LOG2>",
        Handle::RowLse => "store",
        Handle::Partial(_) => "arrive",
        Handle::SplitArrival(_) => "last, total",
        Handle::PingPong(..) => "take, end",
        Handle::Turn(..) => "pass",
        Handle::Overlap { ready: false, .. } => "wait_scores",
        Handle::Overlap { ready: true, .. } => "scores, softmax",
        _ => "none",
    }
}
