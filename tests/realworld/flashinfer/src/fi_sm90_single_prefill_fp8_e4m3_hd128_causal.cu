// FlashInfer Hopper FP8 single prefill (attention/hopper/quantization: e4m3 Q/K/V, per-head scales, V transposed in shared memory for the FP8 wgmma), head dim 128, causal, StandardFP8Attention, bf16 output.
// Written for the phasegate real-world PTX corpus: an explicit instantiation of one FlashInfer
// dispatch function, using the headers of the flashinfer-python 0.7.2.post1 PyPI sdist
// (include/flashinfer, and its bundled 3rdparty/cutlass) -- what FlashInfer's JIT generates
// from its csrc/*_kernel_inst.jinja templates, written by hand with the library's default
// parameter structs; no file of the sdist is copied.
#include <flashinfer/attention/hopper/attention_updater.cuh>
#include <flashinfer/attention/hopper/variant_helper.cuh>
#include <flashinfer/attention/hopper/default_params.cuh>
#include <flashinfer/attention/hopper/variants.cuh>
#include <flashinfer/attention/hopper/quantization/prefill_sm90.cuh>

namespace flashinfer {
using Params = SinglePrefillParams<cutlass::float_e4m3_t, cutlass::float_e4m3_t, cutlass::bfloat16_t>;
template cudaError_t SingleFP8PrefillWithKVCacheDispatched<128, MaskMode::kCausal, /*USE_SLIDING_WINDOW=*/false,
    StandardFP8Attention, Params>(Params& params, cudaStream_t stream);
}  // namespace flashinfer
