// FlashInfer Hopper MLA (multi-head latent attention, DeepSeek decode/prefill over a paged
// compressed KV cache: ckv head dim 512 + rope part 64; attention/mla_hopper.cuh: producer warps
// loading pages with cp.async into an mbarrier pipeline, wgmma consumer warpgroups, a merge of the
// per-split partial outputs), bf16, causal.  BatchMLAPageAttentionHopper<kCausal, 512, 64>.
// Written for the phasegate real-world PTX corpus: an explicit instantiation of one FlashInfer
// dispatch function, using the headers of the flashinfer-python 0.7.2.post1 PyPI sdist
// (include/flashinfer, and its bundled 3rdparty/cutlass) -- what FlashInfer's JIT generates
// from its csrc/*_kernel_inst.jinja templates, written by hand with the library's default
// parameter structs; no file of the sdist is copied.
#include <flashinfer/attention/mla_params.cuh>
#include <flashinfer/attention/mla_hopper.cuh>

namespace flashinfer {
namespace mla {
using Params = MLAParams<nv_bfloat16, nv_bfloat16, nv_bfloat16, int32_t>;
template cudaError_t BatchMLAPageAttentionHopper<MaskMode::kCausal, 512, 64, Params>(
    Params params, uint32_t num_blks_x, uint32_t num_blks_y, cudaStream_t stream);
}  // namespace mla
}  // namespace flashinfer
