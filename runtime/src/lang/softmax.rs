//! The online softmax of attention, on a warpgroup's wgmma accumulators.
//!
//! A score tile `S` is an `Acc<f32, 64, N>`: each thread holds elements of two rows, `16 w +
//! l / 4` and 8 rows below (§9.7.15.5.1.1), and the four threads of a quad (`l / 4` equal)
//! share those rows. [`OnlineSoftmax`] keeps, per thread and row, the running maximum `m` and the
//! thread's part of the running sum `l` of `exp2(S · scale_log2 − m · scale_log2)`: the
//! FlashAttention recurrence, with the sums reduced across the quad only once, at the end.

use super::wgmma::{Acc, Fragment, HalfFloat, Readable};
use super::{Global, outside_kernel};
use core::marker::PhantomData;

/// A warpgroup's running row maxima and sums over the score tiles seen so far, rounding P to
/// `E` (`bf16` or `f16`, the element type of the values it multiplies).
#[must_use = "the softmax's sums normalise the output: call `finish`"]
pub struct OnlineSoftmax<E: HalfFloat = half::bf16>(PhantomData<E>);

/// The softmax of no tile yet: maxima −∞, sums 0. `scale_log2` is the score scale times
/// `log2(e)`, so one `fma` and `ex2.approx.ftz.f32` give `exp(scale · s − scale · m)`. P is
/// rounded to `E`: `online_softmax::<f16>(..)` for f16 values; without the turbofish rustc
/// infers it from the values P multiplies, and `#[kernel]` takes `bf16`.
pub fn online_softmax<E: HalfFloat>(_scale_log2: f32) -> OnlineSoftmax<E> {
    outside_kernel("online_softmax")
}

impl<E: HalfFloat> OnlineSoftmax<E> {
    /// The same softmax, rescaling lazily (FlashAttention-4's conditional rescaling): a row's
    /// running maximum moves only when a tile's maximum passes it by more than `LOG2` in the
    /// exponent (`(s − m) · scale_log2 > LOG2`), so P may reach `2^LOG2`, and a warp whose rows
    /// all kept their maxima skips the output's rescaling (`vote.sync.any.pred` and a branch
    /// around the `mul.f32`). The result is the same in real arithmetic: the sums and the output
    /// carry the same factor, which `finish` divides out. `LOG2` is 1 to 15, so P stays finite
    /// in f16 (up to 2^15) as well as bf16. Where maxima settle early (long sequences, attention
    /// sinks) most tiles skip the rescaling; where they keep rising, the vote and branch cost
    /// a few instructions a tile.
    pub fn lazy_rescale<const LOG2: u32>(self) -> OnlineSoftmax<E> {
        outside_kernel("OnlineSoftmax::lazy_rescale")
    }

    /// Takes the next score tile `s`: each row's maximum over its quad (`max.f32`, two
    /// `shfl.sync.bfly`), the new running maximum `m'`, the rescaling `exp2((m − m') ·
    /// scale_log2)` applied to the sums and to the output accumulator `o` (rows as in `s`), and
    /// `P = exp2(s · scale_log2 − m' · scale_log2)` added to the sums and returned rounded to
    /// `E` as the A operand of `o`'s next product. A row whose maximum is still −∞ (every
    /// column masked) subtracts 0, so it gets zeros, not NaN.
    pub fn step<const N: u32, const D: u32, A, B>(
        &mut self,
        _s: &Acc<f32, 64, N, A>,
        _o: &mut Acc<f32, 64, D, B>,
    ) -> Fragment<E, N>
    where
        A: Readable,
        B: Readable,
    {
        outside_kernel("OnlineSoftmax::step")
    }

    /// Ends the recurrence: sums reduced across the quad, `o` divided by them (`rcp.approx`,
    /// a row with a zero sum stays 0), and each row's log-sum-exp `(m · scale_log2 + log2 l) ·
    /// ln 2` (the natural logarithm, as attention's backward pass reads it).
    pub fn finish<const D: u32, B>(self, _o: &mut Acc<f32, 64, D, B>) -> RowLse
    where
        B: Readable,
    {
        outside_kernel("OnlineSoftmax::finish")
    }
}

/// The log-sum-exp of a warpgroup's 64 rows, two per quad.
pub struct RowLse(PhantomData<()>);

impl RowLse {
    /// Stores row `r`'s value to `dst[index + r]` for `r < rows` (the rows that exist in a
    /// ragged last tile); one thread of each quad stores its two rows.
    pub fn store(&self, _dst: &mut Global<f32>, _index: u32, _rows: u32) {
        outside_kernel("RowLse::store")
    }
}

/// Tile `j`'s scores and tile `j − 1`'s `P · V`, committed in that order: FlashAttention-3's
/// overlap inside a warpgroup. `wgmma.wait_group 1` leaves only the newest group pending, the
/// output's, so the scores are complete and the softmax runs on them while the tensor cores
/// still multiply the previous tile's P. Made by [`Acc::commit_behind`].
#[must_use = "the output accumulator comes back from `softmax`"]
pub struct Overlap<const N: u32, const D: u32, St>(PhantomData<St>);

/// The scores' group may still be running.
pub struct ScoresPending;
/// The scores' group is complete; the output's may not be.
pub struct ScoresReady;

impl<const D: u32> Acc<f32, 64, D, super::wgmma::Issued<super::wgmma::P0>> {
    /// Commits the output's open batch (`wgmma.commit_group`) behind the scores' group, which
    /// is the scores' only one in flight: the output's group is the newer.
    pub fn commit_behind<const N: u32>(
        self,
        _scores: Acc<f32, 64, N, super::wgmma::InFlight<super::wgmma::P1>>,
    ) -> Overlap<N, D, ScoresPending> {
        outside_kernel("Acc::commit_behind")
    }
}

impl<const N: u32, const D: u32> Overlap<N, D, ScoresPending> {
    /// `wgmma.wait_group.sync.aligned 1`: the scores are complete.
    pub fn wait_scores(self) -> Overlap<N, D, ScoresReady> {
        outside_kernel("Overlap::wait_scores")
    }
}

impl<const N: u32, const D: u32> Overlap<N, D, ScoresReady> {
    /// The completed scores, to mask before the softmax.
    pub fn scores(&mut self) -> &mut Acc<f32, 64, N, super::wgmma::Idle> {
        outside_kernel("Overlap::scores")
    }

    /// [`OnlineSoftmax::step`] on the scores, split around the output's group: the maxima and
    /// exponentials first, then `wgmma.wait_group 0`, then `P` into `p`'s registers (which the
    /// output's group was reading) and the output rescaled. Gives back the output, complete.
    pub fn softmax<E: HalfFloat>(
        self,
        _softmax: &mut OnlineSoftmax<E>,
        _p: &mut Fragment<E, N>,
    ) -> Acc<f32, 64, D, super::wgmma::Idle> {
        outside_kernel("Overlap::softmax")
    }
}
