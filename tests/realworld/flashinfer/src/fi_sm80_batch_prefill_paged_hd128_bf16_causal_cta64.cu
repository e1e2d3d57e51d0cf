// FlashInfer FA2-style batch prefill over a paged KV cache (attention/prefill.cuh: mma.sync + ldmatrix + cp.async, permuted shared memory), CTA_TILE_Q=64, head dim 128, bf16, causal, RoPE applied in the kernel (PosEncodingMode::kRoPELlama), DefaultAttention with soft-capping. Built for sm_80.
// Written for the phasegate real-world PTX corpus: an explicit instantiation of one FlashInfer
// dispatch function, using the headers of the flashinfer-python 0.7.2.post1 PyPI sdist
// (include/flashinfer, and its bundled 3rdparty/cutlass) -- what FlashInfer's JIT generates
// from its csrc/*_kernel_inst.jinja templates, written by hand with the library's default
// parameter structs; no file of the sdist is copied.
#include <flashinfer/attention/default_prefill_params.cuh>
#include <flashinfer/attention/variants.cuh>
#include <flashinfer/attention/prefill.cuh>

namespace flashinfer {
using Params = BatchPrefillPagedParams<nv_bfloat16, nv_bfloat16, nv_bfloat16, int32_t>;
using Variant = DefaultAttention</*use_custom_mask=*/false, /*use_sliding_window=*/false,
                                 /*use_logits_soft_cap=*/true, /*use_alibi=*/false>;
template cudaError_t BatchPrefillWithPagedKVCacheDispatched<
    /*SAME_KV_STRIDES=*/true, /*CTA_TILE_Q=*/64, 128, 128, PosEncodingMode::kRoPELlama,
    /*USE_FP16_QK_REDUCTION=*/false, MaskMode::kCausal, Variant, Params>(
    Params params, nv_bfloat16* tmp_v, float* tmp_s, bool enable_pdl, cudaStream_t stream);
}  // namespace flashinfer
