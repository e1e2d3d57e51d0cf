use phasegate::prelude::*;

// `lazy_rescale::<LOG2>()` moves a row's maximum only when a tile's passes it by more than
// 2^LOG2, so P reaches 2^LOG2: the threshold is an exponent from 1 to 15, which keeps P finite
// in f16, given as a constant.

#[kernel(target = "sm_90a", block = "128,1,1")]
fn thresholds(scale: f32) {
    // A threshold of 0 would move the maximum at every rise: use the exact softmax instead.
    let _none = online_softmax::<bf16>(scale).lazy_rescale::<0>();
    // 2^16 is past f16's largest finite value.
    let _past_f16 = online_softmax::<f16>(scale).lazy_rescale::<16>();
    // The threshold is a constant, not a value of the kernel.
    let t = 8u32;
    let _runtime = online_softmax::<bf16>(scale).lazy_rescale::<t>();
    // Without it there is nothing to compare a rise with.
    let _missing = online_softmax::<bf16>(scale).lazy_rescale();
}

// The softmax's other methods take no generic arguments (`finish::<64, _>` is valid Rust, and
// the kernel language does not read it).
#[kernel(target = "sm_90a", block = "128,1,1")]
fn generic_finish(scale: f32) {
    let softmax = online_softmax::<bf16>(scale);
    let mut out = accumulator::<f32, 64, 64>();
    let _lse = softmax.finish::<64, _>(&mut out);
}

fn main() {}
