// FlashInfer Hopper paged batch prefill, head dim 64 (CTA tile 192x96), bf16, causal with sliding window.
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
using Params = BatchPrefillPagedParams<cutlass::bfloat16_t, cutlass::bfloat16_t, cutlass::bfloat16_t, int32_t>;
template cudaError_t BatchPrefillWithPagedKVCacheDispatched<64, 64, MaskMode::kCausal, /*USE_SLIDING_WINDOW=*/true,
    /*SAME_SCHEDULER_FOR_ALL_HEADS=*/true, StandardAttention, Params>(Params& params, bool enable_pdl, cudaStream_t stream);
}  // namespace flashinfer
