// FlashInfer's Hopper segment (grouped) GEMM for LoRA/MoE: CutlassSegmentGEMMSM90Run<bf16, bf16> (CUTLASS 4.5 grouped GEMM with per-group pointer arrays, built from flashinfer/gemm/group_gemm_sm90.cuh); may hold more than one .entry (row- and column-major weight paths).
// Written for the phasegate real-world PTX corpus: an explicit instantiation of one FlashInfer
// dispatch function, using the headers of the flashinfer-python 0.7.2.post1 PyPI sdist
// (include/flashinfer, and its bundled 3rdparty/cutlass) -- what FlashInfer's JIT generates
// from its csrc/*_kernel_inst.jinja templates, written by hand with the library's default
// parameter structs; no file of the sdist is copied.
#include <flashinfer/gemm/group_gemm_sm90.cuh>

namespace flashinfer {
namespace group_gemm {
template cudaError_t CutlassSegmentGEMMSM90Run<cutlass::bfloat16_t, cutlass::bfloat16_t>(
    void* float_buffer, size_t float_buffer_size_in_bytes, void* int_buffer,
    size_t int_buffer_size_in_bytes, void* all_problems, int64_t batch_size, void* x, void* w,
    void* y, void* x_stride, void* w_stride, void* y_stride, bool weight_column_major,
    cudaStream_t stream);
}  // namespace group_gemm
}  // namespace flashinfer
