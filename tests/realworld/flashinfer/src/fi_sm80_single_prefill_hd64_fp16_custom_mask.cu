// FlashInfer FA2-style single prefill, head dim 64, fp16, custom (bit-packed) mask, sliding window, f32 QK reduction. Built for sm_80.
// Written for the phasegate real-world PTX corpus: an explicit instantiation of one FlashInfer
// dispatch function, using the headers of the flashinfer-python 0.7.2.post1 PyPI sdist
// (include/flashinfer, and its bundled 3rdparty/cutlass) -- what FlashInfer's JIT generates
// from its csrc/*_kernel_inst.jinja templates, written by hand with the library's default
// parameter structs; no file of the sdist is copied.
#include <flashinfer/attention/default_prefill_params.cuh>
#include <flashinfer/attention/variants.cuh>
#include <flashinfer/attention/prefill.cuh>

namespace flashinfer {
using Params = SinglePrefillParams<half, half, half>;
using Variant = DefaultAttention</*use_custom_mask=*/true, /*use_sliding_window=*/true,
                                 /*use_logits_soft_cap=*/false, /*use_alibi=*/false>;
template cudaError_t SinglePrefillWithKVCacheDispatched<64, 64, PosEncodingMode::kNone,
    /*USE_FP16_QK_REDUCTION=*/false, MaskMode::kCustom, Variant, Params>(
    Params params, half* tmp, cudaStream_t stream);
}  // namespace flashinfer
