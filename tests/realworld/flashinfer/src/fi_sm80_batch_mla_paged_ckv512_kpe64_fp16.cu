// FlashInfer FA2-style MLA over a paged compressed KV cache (attention/mla.cuh: mma.sync,
// ldmatrix, cp.async pipeline, split-KV merge), ckv head dim 512 + rope part 64, fp16, no mask.
// BatchMLAPagedAttention<kNone, 512, 64>. Built for sm_80.
// Written for the phasegate real-world PTX corpus: an explicit instantiation of one FlashInfer
// dispatch function, using the headers of the flashinfer-python 0.7.2.post1 PyPI sdist
// (include/flashinfer, and its bundled 3rdparty/cutlass) -- what FlashInfer's JIT generates
// from its csrc/*_kernel_inst.jinja templates, written by hand with the library's default
// parameter structs; no file of the sdist is copied.
#include <flashinfer/attention/mla_params.cuh>
#include <flashinfer/attention/mla.cuh>

namespace flashinfer {
namespace mla {
using Params = MLAParams<half, half, half, int32_t>;
template cudaError_t BatchMLAPagedAttention<MaskMode::kNone, 512, 64, Params>(
    Params params, uint32_t num_blks_x, uint32_t num_blks_y, cudaStream_t stream);
}  // namespace mla
}  // namespace flashinfer
