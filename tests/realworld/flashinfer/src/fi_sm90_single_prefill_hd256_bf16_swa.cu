// FlashInfer Hopper single prefill, head dim 256 (CTA tile 128x64), bf16, causal with a left sliding window.
// Written for the phasegate real-world PTX corpus: an explicit instantiation of one FlashInfer
// dispatch function, using the headers of the flashinfer-python 0.7.2.post1 PyPI sdist
// (include/flashinfer, and its bundled 3rdparty/cutlass) -- what FlashInfer's JIT generates
// from its csrc/*_kernel_inst.jinja templates, written by hand with the library's default
// parameter structs; no file of the sdist is copied.
#include <flashinfer/attention/hopper/attention_updater.cuh>
#include <flashinfer/attention/hopper/variant_helper.cuh>
#include <flashinfer/attention/hopper/default_params.cuh>
#include <flashinfer/attention/hopper/variants.cuh>
#include <flashinfer/attention/hopper/prefill_sm90.cuh>

namespace flashinfer {
using Params = SinglePrefillParams<cutlass::bfloat16_t, cutlass::bfloat16_t, cutlass::bfloat16_t>;
template cudaError_t SinglePrefillWithKVCacheDispatched<256, 256, MaskMode::kCausal, /*USE_SLIDING_WINDOW=*/true, StandardAttention, Params>(
    Params& params, cudaStream_t stream);
}  // namespace flashinfer
