// phasegate real-world PTX corpus: shared includes and helpers for the CUTLASS
// 3.8 instantiation files in this directory.  Written for phasegate; each .cu
// file names one kernel configuration and forces nvcc to emit the PTX for its
// entry point (cutlass::device_kernel<...> or cutlass::Kernel<...>).
#pragma once

#include <cute/tensor.hpp>

#include <cutlass/cutlass.h>
#include <cutlass/numeric_types.h>
#include <cutlass/device_kernel.h>
#include <cutlass/gemm/gemm.h>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/gemm/group_array_problem_shape.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/epilogue/thread/activation.h>
#include <cutlass/epilogue/fusion/operations.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/gemm/kernel/tile_scheduler.hpp>

// Reference the kernel's address from host code.  That makes the front end
// instantiate the __global__ template, so the device pass emits its .entry.
#define PHASEGATE_EMIT_KERNEL(KernelType, tag)                                  \
  extern "C" __attribute__((used)) void const* phasegate_kernel_##tag() {     \
    return reinterpret_cast<void const*>(&cutlass::device_kernel<KernelType>); \
  }
// Same for CUTLASS 2.x kernels, whose entry point is cutlass::Kernel<...>.
#define PHASEGATE_EMIT_KERNEL2(KernelType, tag)                                 \
  extern "C" __attribute__((used)) void const* phasegate_kernel_##tag() {     \
    return reinterpret_cast<void const*>(&cutlass::Kernel<KernelType>);        \
  }
