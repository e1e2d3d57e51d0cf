// FlashInfer batch decode over a paged KV cache (attention/decode.cuh: cp.async multi-stage K/V pipeline, warp-level reductions; split-KV partitions merged by a second kernel), head dim 128, fp16, no positional encoding, DefaultAttention. Built for sm_80.
// Written for the phasegate real-world PTX corpus: an explicit instantiation of one FlashInfer
// dispatch function, using the headers of the flashinfer-python 0.7.2.post1 PyPI sdist
// (include/flashinfer, and its bundled 3rdparty/cutlass) -- what FlashInfer's JIT generates
// from its csrc/*_kernel_inst.jinja templates, written by hand with the library's default
// parameter structs; no file of the sdist is copied.
#include <flashinfer/attention/default_decode_params.cuh>
#include <flashinfer/attention/variants.cuh>
#include <flashinfer/attention/decode.cuh>

namespace flashinfer {
using Params = BatchDecodeParams<half, half, half, int32_t>;
using Variant = DefaultAttention</*use_custom_mask=*/false, /*use_sliding_window=*/false,
                                 /*use_logits_soft_cap=*/false, /*use_alibi=*/false>;
template cudaError_t BatchDecodeWithPagedKVCacheDispatched<128, PosEncodingMode::kNone, Variant, Params>(
    Params params, half* tmp_v, float* tmp_s, bool enable_pdl, cudaStream_t stream);
}  // namespace flashinfer
